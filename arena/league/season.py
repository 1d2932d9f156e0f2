"""A league's season has an end: entries close (`arena league close`, or `[season] closes` in league.toml), then a
final is played on the frozen field (`arena league final`).

Closing records the time in the catalog (it overrides the TOML's); from then on `arena league add` and entrants'
uploads are refused with the time entries closed, and play may go on. An upload stored before that time was on time:
the checker judges it by when it arrived, not by when it is checked. Closing is safe to repeat: closed entries stay
closed at the time they closed, and `--at` moves a close only until the final starts.

The final is the tournament of arena, played on the league's frozen code: a round robin of every active bot's latest
version in every variant of the league, on duplicate deals in every seat rotation, written as an ordinary run folder
`DIR/final/` by the tournament runner (its config, manifest with code hashes, results, ratings and report), so that
`arena ratings`, `arena report` and `arena reproduce` work on it from any folder, and a final cut short resumes. One
final at a time: `arena league final` holds `DIR/final.lock` while it plays (a lock the kernel frees when the process
ends, however it ends), and what it writes in it (when it started, the games it plays at most) is what a served
league says of a final being played (`final_state`).
"""

from __future__ import annotations

import fcntl
import json
import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from math import comb
from pathlib import Path
from typing import IO

from arena.atomic import write_atomic
from arena.league import load_settings
from arena.league.catalog import BotRow, Catalog, LeagueError
from arena.league.directory import LeagueDir
from arena.league.entrants import Forbidden
from arena.league.rounds import bot_entries, shared_tables
from arena.league.settings import rfc3339
from arena.results import live_parts
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


def close_entries(directory: LeagueDir | Path, at: str | datetime | None = None) -> tuple[datetime, bool]:
    """Closes entries now, or at `at` (RFC 3339): recorded in the catalog, overriding `[season] closes`. Returns the
    time entries close (or closed) and whether this call changed it. Safe to repeat: on closed entries, a close
    without `at` (or at the time they closed) changes nothing; `at` moves a close only before the final starts,
    LeagueError after (and while a final is being played)."""
    directory = LeagueDir.of(directory)
    asked = None if at is None else rfc3339(at, "--at")
    closes = closing_time(directory)
    if closes is not None and closes <= datetime.now(UTC) and asked in (None, closes):
        return closes, False
    when = f" at {shown_time(closes)}" if closes else ""
    with final_lock(directory, busy=f"the final is being played: entries closed{when} stay closed"):
        if directory.final.config.exists():  # a final started on the field as it stood: it stays frozen
            raise LeagueError(f"the final has started ({directory.final.path}): entries closed{when} stay closed; "
                              "a close moves only before the final starts")
        moment = datetime.now(UTC).replace(microsecond=0) if asked is None else asked
        catalog = Catalog(directory)
        try:
            with catalog.transaction() as db:
                db.execute("INSERT INTO meta VALUES ('closes', ?) ON CONFLICT (key) DO UPDATE SET value = "
                           "excluded.value", (moment.isoformat(),))
        finally:
            catalog.close()
    return moment, moment != closes


def check_open(directory: Path, catalog: Catalog | None = None, at: float | None = None) -> None:
    """Raises EntriesClosed if entries had closed by `at` (seconds since the epoch; default now)."""
    closes = closing_time(directory, catalog)
    entered = datetime.now(UTC) if at is None else datetime.fromtimestamp(at, UTC)
    if closes is not None and entered >= closes:
        raise EntriesClosed(f"entries closed at {shown_time(closes)}")


# --- the final ----------------------------------------------------------------------------------------------------

_FLOCK = struct.Struct("hhqqi4x")
"""Linux's `struct flock` (l_type, l_whence, l_start, l_len, l_pid): the whole file, for an open file description
lock. Such a lock, unlike flock's, can be asked about without being taken (F_OFD_GETLK): a served league tells a
final being played from one cut short without ever holding the lock a starting final needs."""


def _whole_file(handle: IO, command: int, kind: int) -> int:
    """An open file description lock command on the whole file; the lock type it answers."""
    return _FLOCK.unpack(fcntl.fcntl(handle.fileno(), command, _FLOCK.pack(kind, os.SEEK_SET, 0, 0, 0)))[0]


@contextmanager
def final_lock(directory: LeagueDir | Path, busy: str | None = None) -> Iterator[IO]:
    """Holds the league's final lock, or refuses at once (LeagueError: `busy`, or who holds it) when a final holds it.
    The kernel frees it when the process ends, however it ends: no stale lock is left to delete by hand."""
    directory = LeagueDir.of(directory)
    handle = open(directory.final_lock, "a+")
    try:
        try:
            _whole_file(handle, fcntl.F_OFD_SETLK, fcntl.F_WRLCK)
        except (BlockingIOError, PermissionError):
            started = _holder_note(directory).get("started")
            raise LeagueError(busy or f"{directory}: another `arena league final` is playing this league's final"
                              f"{f' (started {started})' if started else ''}; wait for it to finish") from None
        yield handle
    finally:
        handle.close()


def _holder_note(directory: LeagueDir) -> dict:
    """What the final lock's last holder said of its final ({} if nothing)."""
    try:
        note = json.loads(directory.final_note.read_text())
    except (OSError, ValueError):
        return {}
    return note if isinstance(note, dict) else {}


def note_final(directory: LeagueDir, **note) -> None:
    """Says what the final lock's holder plays (replacing what its last holder said)."""
    write_atomic(directory.final_note, json.dumps(note).encode())


def final_state(directory: LeagueDir | Path) -> dict:
    """Where the league's final stands, read without taking its lock: `{"status": "playing", "played": N, "total":
    M}` while `arena league final` holds the lock (M: the games it plays at most); `"finished"` (with `games` and
    `digest`) once its manifest is written; `"stopped"` (with played and total) for a final cut short, which the same
    command finishes; else `"not started"`."""
    directory = LeagueDir.of(directory)
    run = directory.final
    played = sum(end - start for start, end, _ in live_parts(run.results)) if run.results.is_dir() else 0
    note, held = {}, False
    if directory.final_lock.exists():
        with open(directory.final_lock) as handle:
            held = _whole_file(handle, fcntl.F_OFD_GETLK, fcntl.F_WRLCK) != fcntl.F_UNLCK
        note = _holder_note(directory)
    if held:
        return {"status": "playing", "played": played, "total": note.get("total")}
    try:
        manifest = run.read_manifest()
    except (OSError, ValueError):
        manifest = {}
    if manifest.get("digest"):
        return {"status": "finished", "games": int(manifest["games"]), "digest": manifest["digest"]}
    if run.config.exists():
        return {"status": "stopped", "played": played, "total": note.get("total")}
    return {"status": "not started"}


def finalists(bots: list[BotRow]) -> list[BotRow]:
    """Every active bot's latest active version, in the order the bots were first added."""
    latest: dict[str, BotRow] = {}
    for bot in bots:
        if bot.status == "active" and (bot.name not in latest or bot.version > latest[bot.name].version):
            latest[bot.name] = bot
    return list(latest.values())


def final_config(directory: LeagueDir | Path, *, deals: int | None = None,
                 until_settled: bool = False) -> tuple[str, list[str], int]:
    """The final as a tournament config (TOML): every variant of the league, its finalists that play the game, `deals`
    deals a table on duplicate deals (with `until_settled`: rounds of deals until the table is settled, `deals` at
    most), the bots' frozen code by path relative to the league; a line for each variant left out, too few of the
    finalists playing it; and the games it plays at most (every table of every variant, `deals` deals in every seat
    rotation, as the tournament's schedule counts them). LeagueError while entries are open."""
    from arena.config.toml import toml_text

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
    games, left_out, most = [], [], 0
    for variant in settings.games:
        playing = [b.label for b in bots if variant.game in b.games]
        if len(playing) < settings.players(variant):
            left_out.append(f"{variant.label} is not in the final: {len(playing)} of the finalists play it, a table "
                            f"seats {settings.players(variant)}")
        else:
            games.append({"game": variant.game, "duplicate": True, "rules": dict(sorted(variant.rules.items())),
                          "bots": playing, **({} if until_settled else {"deals": deals})})
            seats = settings.players(variant)
            most += comb(len(playing), seats) * deals * seats  # each table, each deal in every seat rotation
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
    return header + toml_text(config), left_out, most


def final_run(directory: LeagueDir | Path, *, deals: int | None = None, until_settled: bool = False):
    """The final's config (parsed, its bots found in the league's folder alone), its run folder `DIR/final/` and the
    variants left out (`final_config`), under the final lock (`final_lock`), noting beside it when the final started
    and the games it plays at most. A final started with other deals or another field is refused (one line)
    rather than mixed with it."""
    from arena.config import ConfigError, parse_config
    from arena.tournament.folder import prepare_run_dir

    directory = LeagueDir.of(directory)
    text, left_out, most = final_config(directory, deals=deals, until_settled=until_settled)
    note_final(directory, started=shown_time(datetime.now(UTC)), total=most, pid=os.getpid())
    config = parse_config(text, folders=[Path(directory).resolve()])  # never a folder of the same name here
    run = directory.final
    try:
        prepare_run_dir(config, run, resume=True, overwrite=False)
    except ConfigError:
        raise ConfigError(f"{run.path} holds a final of other deals or another field; move it away to play this "
                          "one") from None
    return config, run, left_out

