"""A league's games as ordinary tournament configs: each round the matchmaker chose, and the season's final, share
the league's `[run]` and `[ratings]` settings and name its bots by their frozen code; and a league game replayed
from its round's config, in a child process (`python -m arena.league.rounds`), for the pages that show it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.config.models import RunSettings
from arena.config.toml import toml_text
from arena.isolation.clock import WALL_BACKSTOP
from arena.league.catalog import BotRow, LeagueError, RoundRow
from arena.league.settings import LeagueSettings


@dataclass(frozen=True)
class Table:
    """One table the matchmaker chose: a variant (index into the league's games), its bots, and why."""

    variant: int
    bots: tuple[str, ...]
    why: str


def round_config(settings: LeagueSettings, number: int, seed: int, tables: list[Table],
                 bots: dict[str, BotRow]) -> str:
    """A round as a tournament config: a `[[games]]` entry a table (its bots exactly), the league's run and
    ratings settings, the bots' frozen code by path relative to the league directory."""
    games = [{"game": settings.games[t.variant].game, "deals": settings.deals, "duplicate": True,
              "rules": dict(sorted(settings.games[t.variant].rules.items())), "bots": list(t.bots)} for t in tables]
    config = {"name": f"{settings.name}-round-{number}", "seed": seed, **shared_tables(settings),
              "games": games, "bots": bot_entries(settings, bots, sorted({b for t in tables for b in t.bots}))}
    return f"# round {number} of the league {settings.name}\n" + toml_text(config)


def shared_tables(settings: LeagueSettings) -> dict:
    """The `[run]` and `[ratings]` tables of every config the league plays (its rounds and its final)."""
    run, ratings = settings.run, settings.ratings
    return {"run": {"batch_size": run.batch_size, "move_time_limit": run.move_time_limit or 0,
                    "setup_time_limit": run.setup_time_limit,
                    **({"wall_backstop": run.wall_backstop} if run.wall_backstop != WALL_BACKSTOP else {}),
                    **({"suspend_after": run.suspend_after} if run.suspend_after != RunSettings.suspend_after else {})},
            "ratings": {key: getattr(ratings, key) for key in ("mu", "sigma", "beta", "tau", "draw_probability")}}


def bot_entries(settings: LeagueSettings, bots: dict[str, BotRow], labels: list[str]) -> list[dict]:
    """The `[[bots]]` of a league's config for these labels: each bot's frozen code by its path relative to the
    league (a bundled bot by name), a file bot isolated as the league says (a folder plays in the sandbox always)."""
    entries = []
    for label in labels:
        isolation = settings.isolation if bots[label].kind == "file" else "none"
        entries.append({"name": label, "path": bots[label].spec,
                        **({"isolation": isolation} if isolation != "none" else {})})
    return entries


def round_of(rounds: list[RoundRow], index: int) -> RoundRow | None:
    """The round that holds league game `index`, or None."""
    return next((r for r in rounds if r.first_index <= index < r.end_index), None)


def replay_league_games(directory: Path, indices: Sequence[int]) -> list:
    """The transcripts of league games `indices`, each regenerated in a child process under the replays' time limit
    (arena.tournament.replay.replay_games says why): each a transcript or a ChildFailed (one line)."""
    from arena.isolation.supervisor import run_jobs
    from arena.tournament.replay import REPLAY_SECONDS

    return run_jobs("arena.league.rounds", [str(directory)], [str(i) for i in indices], REPLAY_SECONDS)


def replay_league_game(directory: Path, index: int) -> dict:
    """The transcript of league game `index` (of a finished round), played again from its round's config (in a
    replay's child: its calls into bots guarded as in a run)."""
    from arena.config import parse_config
    from arena.league.catalog import Catalog
    from arena.tournament.replay import guard_calls, replay_scheduled

    catalog = Catalog(directory)
    try:
        found = round_of([r for r in catalog.rounds() if r.status == "done"], index)
    finally:
        catalog.close()
    if found is None:
        raise LeagueError(f"no finished round holds game {index}")
    config = parse_config(found.config, base=directory)
    guard_calls(config)
    return replay_scheduled(config, index - found.first_index, suspended_seat(directory, index))


def suspended_seat(directory: Path, index: int) -> int | None:
    """The seat of the bot suspended in league game `index`, whose game was recorded unplayed
    (arena/tournament/batch.py), or None for a game played."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from arena.league.directory import LeagueDir
    from arena.results import live_parts
    from arena.tournament.referee import suspended

    for start, end, path in live_parts(LeagueDir(directory).results):
        if start <= index < end:
            part = pq.read_table(path, columns=["game_index", "termination", "fault", "fault_seat"])
            for row in part.filter(pc.equal(part.column("game_index"), index)).to_pylist():
                return row["fault_seat"] if suspended(row["termination"], row["fault"]) else None
    return None


def main(argv: list[str]) -> int:
    """`python -m arena.league.rounds DIR INDEX... --parent PID`: each league game's transcript, one JSON line each."""
    from arena.isolation.supervisor import job_child

    return job_child("arena.league.rounds", argv,
                     lambda directory: lambda index: replay_league_game(directory, int(index)))


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
