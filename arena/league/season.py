"""A league's season has an end: entries close (`arena league close`, or `[season] closes` in league.toml), then a
final is played on the frozen field (`arena league final`).

Closing records the time in the catalog (it overrides the TOML's); from then on `arena league add` and entrants'
uploads are refused with the time entries closed, and play may go on. An upload stored before that time was on time:
the checker judges it by when it arrived, not by when it is checked.

The final is the tournament of arena, played on the league's frozen code: a round robin of every active bot's latest
version in every variant of the league, on duplicate deals in every seat rotation, written as an ordinary run folder
`DIR/final/` by the tournament runner (its config, manifest with code hashes, results, ratings and report), so that
`arena ratings`, `arena report` and `arena reproduce` work on it from any folder, and a final cut short resumes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from arena.league import load_settings
from arena.league.catalog import BotRow, Catalog
from arena.league.directory import LeagueDir
from arena.league.entrants import Forbidden
from arena.league.rounds import bot_entries, shared_tables
from arena.league.settings import rfc3339
from arena.seeds import derive_seed

FINAL_DEALS = 100
"""Deals a table of the final plays by default (each in every seat rotation); with `--until settled`, the most."""


class EntriesClosed(Forbidden):
    """A bot entered after entries closed (403 to an upload)."""


def shown_time(moment: datetime) -> str:
    """A time as the league shows it: RFC 3339 in UTC, to the second."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def closing_time(directory: LeagueDir | Path, catalog: Catalog | None = None) -> datetime | None:
    """When entries close (or closed): the time `arena league close` recorded, else `[season] closes`, else None."""
    own = catalog is None
    catalog = Catalog(directory) if own else catalog
    try:
        row = catalog.db.execute("SELECT value FROM meta WHERE key = 'closes'").fetchone()
    finally:
        if own:
            catalog.close()
    return datetime.fromisoformat(row[0]) if row else load_settings(directory).closes


def close_entries(directory: Path, at: str | datetime | None = None) -> datetime:
    """Closes entries now, or at `at` (RFC 3339): recorded in the catalog, overriding `[season] closes`. Returns the
    time."""
    moment = datetime.now(UTC).replace(microsecond=0) if at is None else rfc3339(at, "--at")
    catalog = Catalog(directory)
    try:
        with catalog.transaction() as db:
            db.execute("INSERT INTO meta VALUES ('closes', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                       (moment.isoformat(),))
    finally:
        catalog.close()
    return moment


def check_open(directory: Path, catalog: Catalog | None = None, at: float | None = None) -> None:
    """Raises EntriesClosed if entries had closed by `at` (seconds since the epoch; default now)."""
    closes = closing_time(directory, catalog)
    entered = datetime.now(UTC) if at is None else datetime.fromtimestamp(at, UTC)
    if closes is not None and entered >= closes:
        raise EntriesClosed(f"entries closed at {shown_time(closes)}")


# --- the final ----------------------------------------------------------------------------------------------------

def finalists(bots: list[BotRow]) -> list[BotRow]:
    """Every active bot's latest active version, in the order the bots were first added."""
    latest: dict[str, BotRow] = {}
    for bot in bots:
        if bot.status == "active" and (bot.name not in latest or bot.version > latest[bot.name].version):
            latest[bot.name] = bot
    return list(latest.values())


def final_config(directory: LeagueDir | Path, *, deals: int | None = None,
                 until_settled: bool = False) -> tuple[str, list[str]]:
    """The final as a tournament config (TOML): every variant of the league, its finalists that play the game, `deals`
    deals a table on duplicate deals (with `until_settled`: rounds of deals until the table is settled, `deals` at
    most), the bots' frozen code by path relative to the league; and a line for each variant left out, too few of
    the finalists playing it. LeagueError while entries are open."""
    from arena.config.toml import toml_text
    from arena.league.catalog import LeagueError

    directory = LeagueDir.of(directory)
    settings = load_settings(directory)
    catalog = Catalog(directory)
    try:
        closes = closing_time(directory, catalog)
        bots = finalists(catalog.bots())
    finally:
        catalog.close()
    if closes is None or closes > datetime.now(UTC):
        when = "" if closes is None else f" (they close at {shown_time(closes)})"
        raise LeagueError(f"entries are open{when}: a final is played on a frozen field; close them first with "
                          f"`arena league close {directory}`")
    deals = deals or FINAL_DEALS
    games, left_out = [], []
    for variant in settings.games:
        playing = [b.label for b in bots if variant.game in b.games]
        if len(playing) < settings.players(variant):
            left_out.append(f"{variant.label} is not in the final: {len(playing)} of the finalists play it, a table "
                            f"seats {settings.players(variant)}")
        else:
            games.append({"game": variant.game, "duplicate": True, "rules": dict(sorted(variant.rules.items())),
                          "bots": playing, **({} if until_settled else {"deals": deals})})
    if not games:
        raise LeagueError(f"no variant has enough active bots for a table (active: "
                          f"{', '.join(b.label for b in bots) or 'none'})")
    shared = shared_tables(settings)
    if settings.run.workers:  # the league's workers play it, and replay it under `arena reproduce` (not its cluster)
        shared["run"]["workers"] = settings.run.workers
    if until_settled:
        shared["run"].update(until="settled", max_deals=deals, confidence=settings.confidence,
                             tie_margin=settings.tie_margin)
    config = {"name": f"{settings.name}-final", "seed": derive_seed(settings.seed, "final"), **shared,
              "games": games, "bots": bot_entries(settings, {b.label: b for b in bots}, [b.label for b in bots])}
    header = "".join(f"# {line}\n" for line in [f"the final of the league {settings.name}: every active bot's "
                                                 "latest version", *left_out])
    return header + toml_text(config), left_out


def final_run(directory: LeagueDir | Path, *, deals: int | None = None, until_settled: bool = False):
    """The final's config (parsed, its bots found in the league's folder alone), its run folder `DIR/final/` and the
    variants left out (`final_config`). A final started with other deals or another field is refused (one line)
    rather than mixed with it."""
    from arena.config import ConfigError, parse_config
    from arena.tournament.runner import prepare_run_dir

    text, left_out = final_config(directory, deals=deals, until_settled=until_settled)
    config = parse_config(text, folders=[Path(directory).resolve()])  # never a folder of the same name here
    run = LeagueDir.of(directory).final
    try:
        prepare_run_dir(config, run, resume=True, overwrite=False)
    except ConfigError:
        raise ConfigError(f"{run.path} holds a final of other deals or another field; move it away to play this "
                          "one") from None
    return config, run, left_out

