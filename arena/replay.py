"""Replaying a game of a run: its transcript regenerated from the run's config and seeds, as the run played it,
and checked against the row the run saved."""

from __future__ import annotations

from arena import referee
from arena.batch import play_scheduled, prepare
from arena.config import Config
from arena.config.saved import saved_config
from arena.games import get_game
from arena.results import PART_NAME, RunDir


def replay_game(run: RunDir, index: int) -> dict:
    """The transcript of game `index` of a run, regenerated from its seeds (and checked against the saved row)."""
    from arena.results import ResultsError

    config = saved_config(run)
    data = replay_scheduled(config, index)
    saved = saved_row(run, index)
    if saved is not None and (saved["scores"], saved["ranks"], saved["termination"]) != (
            data["scores"], data["ranks"], data["termination"]):
        raise ResultsError(f"game {index} replays to {data['scores']} ({data['termination']}) but the run saved "
                           f"{saved['scores']} ({saved['termination']}): the bots or the engine have changed, or a bot "
                           "reached into the run's process")
    return data


def replay_scheduled(config: Config, index: int) -> dict:
    """The transcript of game `index` of `config`'s schedule, played again by fresh bots: arena's bundled bots
    in this process, any other bot in a process of its own (`hosted_entries`), seeded as the run seeded it."""
    import dataclasses

    from arena.hosted import hosted_entries
    from arena.results import ResultsError

    schedule, makers = prepare(dataclasses.replace(config, bots=hosted_entries(config.bots)))
    if not 0 <= index < schedule.total:
        raise ResultsError(f"game index {index} is outside this run's 0..{schedule.total - 1}")
    scheduled = schedule.game(index)
    played = play_scheduled(config, makers, scheduled)
    block = scheduled.block
    return referee.transcript(get_game(block.game_id), block.rules, list(scheduled.seat_names),
                              scheduled.deal_seed, played)


def saved_row(run: RunDir, index: int) -> dict | None:
    """The saved result of game `index`, or None when it is not on disk (only the part named for it is read)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    for path in run.results.glob("part-*.parquet"):
        match = PART_NAME.fullmatch(path.name)
        if match and int(match[1]) <= index < int(match[2]):
            table = pq.read_table(path)
            rows = table.filter(pc.equal(table["game_index"], index)).to_pylist()
            return rows[0] if rows else None
    return None
