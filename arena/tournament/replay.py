"""Replaying a game of a run: its transcript regenerated from the run's config and seeds, as the run played it,
and checked against the row the run saved; and a replay in a forked child under time limits, for the pages that
show one (the run report's examples, the league report's first games)."""

from __future__ import annotations

from collections.abc import Callable

from arena.config import Config
from arena.config.saved import saved_config
from arena.games import get_game
from arena.isolation.clock import WALL_BACKSTOP
from arena.results import PART_NAME, RunDir
from arena.tournament import referee
from arena.tournament.batch import bot_makers, play_scheduled
from arena.tournament.schedule import Schedule


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

    from arena.isolation.hosted import hosted_entries
    from arena.results import ResultsError

    hosted = dataclasses.replace(config, bots=hosted_entries(config.bots))
    schedule = Schedule(hosted)
    if not 0 <= index < schedule.total:
        raise ResultsError(f"game index {index} is outside this run's 0..{schedule.total - 1}")
    scheduled = schedule.game(index)
    played = play_scheduled(config, bot_makers(hosted, set(scheduled.seat_bots)), scheduled)
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


REPLAY_SECONDS = 60.0
"""The longest one replay in a child may take: a replay runs the bots' code again."""


def replay_in_child(regenerate: Callable[[], dict], move_time_limit: float | None, setup_time_limit: float,
                    index: int, wall_backstop: float = WALL_BACKSTOP) -> dict:
    """`regenerate()` (a game's transcript, played again) in a forked child: replaying runs the bots' code again,
    and a bot that exits, kills its process or hangs must cost its replay, never the page that shows it (or the
    run or league that writes the page). The child's calls into bots are stamped on a backstop page, so one that
    defeats the clock is ended as in a run; TimeoutError or RuntimeError names game `index`."""
    import json
    import os
    import select
    import signal
    import time

    from arena.isolation.clock import MoveWatch, new_board, use_board

    moves = new_board(move_time_limit, setup_time_limit, wall_backstop)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's exit status and pipe are what the parent checks
        code = 1
        try:
            os.close(read)
            os.dup2(2, 1)  # whatever a bot prints goes to stderr
            use_board(moves)
            data = json.dumps(regenerate()).encode()
            while data:
                data = data[os.write(write, data):]
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    chunks, deadline = [], time.monotonic() + REPLAY_SECONDS
    watch = MoveWatch(moves)
    try:
        while time.monotonic() < deadline:
            if watch.overrun():
                raise TimeoutError(f"a {'setup call' if watch.in_setup else 'move'} of game {index} ran over the "
                                   "time limit in its replay")
            if select.select([read], [], [], 0.05)[0]:
                chunk = os.read(read, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
        else:
            raise TimeoutError(f"the replay of game {index} took over {REPLAY_SECONDS:.0f} s")
    finally:
        os.close(read)
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
        status = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    if status != 0 and not chunks:
        raise RuntimeError(f"the replay of game {index} failed (exit status {status})")
    return json.loads(b"".join(chunks))
