"""Replaying a game of a run: its transcript regenerated from the run's config and seeds, as the run played it,
and checked against the row the run saved; and replays in child processes under a time limit, for the pages that
show them (the run report's examples, the server's pages of a final's games): `python -m arena.tournament.replay`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from arena.bots.listing import is_own_class
from arena.config import Config
from arena.config.saved import played_config
from arena.games import get_game
from arena.llm.seat import take_exchanges
from arena.rundir import PART_NAME, ResultsError, RunDir
from arena.tournament import referee
from arena.tournament.batch import bot_makers, play_scheduled
from arena.tournament.batch import unplayed as unplayed_game
from arena.tournament.schedule import Schedule


def replay_game(run: RunDir, index: int) -> dict:
    """The transcript of game `index` of a run, regenerated from its seeds (and checked against the saved row)."""
    (saved,) = saved_rows(run, [index])
    return replayed(replay_config(run), index, saved)


def replayed(config: Config, index: int, saved: dict | None) -> dict:
    """Game `index` replayed with `config` (`replay_config`) and checked against its saved row (None: not on disk)."""
    return checked(index, replay_scheduled(config, index, unplayed_seat(saved)), saved)


def replay_config(run: RunDir) -> Config:
    """The config a run's games are replayed with: a model seat answers from the run's store."""
    from arena.tournament.batch import with_store

    return with_store(played_config(run), run)


def unplayed_seat(saved: dict | None) -> int | None:
    """The seat of the suspended bot of a game the run recorded unplayed, else None."""
    suspended = saved is not None and referee.suspended(saved["termination"], saved["fault"])
    return saved["fault_seat"] if suspended else None


def checked(index: int, data: dict, saved: dict | None) -> dict:
    """A replay's transcript, if it ended as the run saved game `index` (or the row is not on disk); else raises
    ResultsError."""
    if saved is not None and (saved["scores"], saved["ranks"], saved["termination"]) != (
            data["scores"], data["ranks"], data["termination"]):
        raise ResultsError(f"game {index} replays to {data['scores']} ({data['termination']}) but the run saved "
                           f"{saved['scores']} ({saved['termination']}): the bots or the engine have changed, or a bot "
                           "reached into the run's process")
    return data


def replay_scheduled(config: Config, index: int, unplayed: int | None = None) -> dict:
    """The transcript of game `index` of `config`'s schedule, played again by fresh bots: arena's bundled bots
    in this process, any other bot in a process of its own (`hosted_entries`), seeded as the run seeded it. A game
    the run recorded unplayed (the bot at seat `unplayed` was suspended) is that forfeit again, no bot started."""
    import dataclasses

    from arena.isolation.hosted import hosted_entries

    hosted = dataclasses.replace(config, bots=hosted_entries(config.bots))
    schedule = Schedule(hosted)
    if not 0 <= index < schedule.total:
        raise ResultsError(f"game index {index} is outside this run's 0..{schedule.total - 1}")
    scheduled = schedule.game(index)
    played = (unplayed_game(config, scheduled, unplayed) if unplayed is not None else
              play_scheduled(config, bot_makers(hosted, set(scheduled.seat_bots)), scheduled))
    block = scheduled.block
    return {**referee.transcript(get_game(block.game_id), block.rules, list(scheduled.seat_names),
                                 scheduled.deal_seed, played), **take_exchanges(len(scheduled.seat_bots))}


def saved_rows(run: RunDir, indices: Sequence[int]) -> list[dict | None]:
    """The saved result of each game of `indices`, None for one not on disk: only the parts named for them are read,
    each once."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    found: dict[int, dict] = {}
    for path in run.results.glob("part-*.parquet"):
        match = PART_NAME.fullmatch(path.name)
        wanted = [index for index in indices if match and int(match[1]) <= index < int(match[2])]
        if wanted:
            table = pq.read_table(path)
            rows = table.filter(pc.is_in(table["game_index"], pa.array(wanted, pa.int64()))).to_pylist()
            found.update((row["game_index"], row) for row in rows)
    return [found.get(index) for index in indices]


REPLAY_SECONDS = 60.0
"""The longest one replay in a child may take (a game of bots at their move time limit takes far less): a replay
runs the bots' code again, in every page that shows one (the run report's examples, a league's pages, the server's
game pages)."""


def replay_games(run: RunDir, indices: Sequence[int], *, own_here: bool = False) -> list:
    """The transcripts of games `indices` of a run, each regenerated in a child process (`run_jobs`): replaying runs
    the bots' code again, and a bot that exits, kills its process or hangs must cost its replay, never the page
    that shows it (or the run or league that writes the page). Each is a transcript or a ChildFailed (one line).

    With `own_here` (the run report's examples), a run whose bots are all arena's own classes is replayed in this
    process instead: their code neither ends its process nor hangs, and the child would cost a Python start-up and
    its imports. A server keeps every replay in a child, where none holds its interpreter."""
    from arena.isolation.supervisor import ChildFailed, error_line, run_jobs

    def one_line(replay: Callable[[], dict]) -> dict | ChildFailed:
        try:
            return replay()
        except Exception as error:  # noqa: BLE001 - as in a child: the failure of one replay is its line
            return ChildFailed(error_line(error))

    saved = saved_rows(run, indices)
    if own_here and all(is_own_class(bot.spec) for bot in played_config(run).bots):
        config = replay_config(run)
        return [one_line(partial(replayed, config, index, row)) for index, row in zip(indices, saved, strict=True)]
    # each replay is checked here against its saved row, so the child reads no part and imports no pyarrow (a child
    # of two replays took 0.66-0.71 CPU-s with it, 0.18-0.19 without); it is told the seat of a game recorded unplayed
    seats = [unplayed_seat(row) for row in saved]
    jobs = [str(index) if seat is None else f"{index}:{seat}" for index, seat in zip(indices, seats, strict=True)]
    answers = run_jobs("arena.tournament.replay", [str(run.path)], jobs, REPLAY_SECONDS)
    return [answer if isinstance(answer, ChildFailed) else one_line(partial(checked, index, answer, row))
            for index, answer, row in zip(indices, answers, saved, strict=True)]


def guard_calls(config: Config) -> None:
    """In a replay's child: a sentinel process that kills it when a call into a bot overruns the config's limits by
    the backstop's grace, as in a run (arena/isolation/clock.py), for a bot that defeats the clock."""
    from arena.isolation.clock import arm_backstop

    arm_backstop(config.run.move_time_limit, config.run.setup_time_limit, config.run.wall_backstop)


def main(argv: list[str]) -> int:
    """`python -m arena.tournament.replay RUN INDEX... --parent PID`: each game's transcript, one JSON line each."""
    from arena.isolation.supervisor import job_child

    def replayer(folder: Path) -> Callable[[str], dict]:
        run = RunDir(folder)

        def replay(job: str) -> dict:  # INDEX, or INDEX:SEAT for a game recorded unplayed, SEAT's bot suspended
            guard_calls(played_config(run))  # its bots checked once, in this child's first replay
            index, _, unplayed = job.partition(":")
            return replay_scheduled(replay_config(run), int(index), int(unplayed) if unplayed else None)

        return replay

    return job_child("arena.tournament.replay", argv, replayer)


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
