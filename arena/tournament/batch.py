"""Playing a batch: the bots of a config built, games start..end-1 of its schedule played by fresh bots, and
their result rows made into the columns of the results schema. The runner's workers and the quarantine play
every game through these pieces, so a game is played and recorded one way wherever it is played.

Suspension: a bot whose calls the wall-clock backstop ended `[run] suspend_after` times (its stalls, each costing
the run `wall_backstop` times a limit) is suspended for the rest of the run: each game of its table is then
recorded without being played, a `timeout` charged to it ("suspended after N stalls"). The stalls are counted in
game-index order by the process that plays (`stall_counts`), starting from those the run has saved, which the runner
hands over with each batch: with one worker, which plays the batches in order, the games suspended depend on the
results alone; with several, on which stalls each worker had seen (docs/time-limits.md).
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from arena.bots import load_bot_class, unshadowed
from arena.config import Config
from arena.games import get_game
from arena.isolation.clock import arm_backstop
from arena.llm.seat import take_usage
from arena.tournament import referee
from arena.tournament.schedule import Schedule

_prepared: dict[str, tuple[Schedule, list[Callable[[], object]]]] = {}


def prepare(config: Config) -> tuple[Schedule, list[Callable[[], object]]]:
    """The schedule of a config, and for each of its bots what makes a fresh one with its params; built
    once per process."""
    key = repr(config)
    if key not in _prepared:
        _prepared.clear()
        _prepared[key] = (Schedule(config), bot_makers(config))
    return _prepared[key]


def bot_makers(config: Config, seated: set[int] | None = None) -> list[Callable[[], object] | None]:
    """For each bot of a config (of those `seated` only, None for the others: a replay of one game starts only its
    table's processes) what makes a fresh one with its params."""
    return [partial(_bot_class(b, config), **b.params, **_store(b, config)) if seated is None or i in seated else None
            for i, b in enumerate(config.bots)]


def _store(entry, config: Config) -> dict:
    """A model seat's store, the run's (arena/llm/store.py); nothing for any other bot."""
    return {"store": config.llm_store} if entry.spec.startswith("llm:") else {}


def with_store(config: Config, run) -> Config:
    """`config` played in the run folder `run`: its model seats keep their exchanges in `RUN/llm/`."""
    from dataclasses import replace

    if not any(entry.spec.startswith("llm:") for entry in config.bots):
        return config
    return replace(config, llm_store=str(Path(run.path).resolve() / "llm"))


def _bot_class(entry, config: Config) -> type:
    """The class that plays a `[[bots]]` entry: its own, or a stand-in that runs the bot in a subprocess."""
    if entry.isolation != "none":
        from arena.isolation import entry_bot_class

        return entry_bot_class(entry, move_time_limit=config.run.move_time_limit,
                               setup_time_limit=config.run.setup_time_limit, wall_backstop=config.run.wall_backstop)
    return load_bot_class(entry.spec)


StallCounts = dict[str, int]
"""The stalls of each bot (by name) a run has had so far (bots without any left out)."""
_stalls: tuple[str, list[int]] | None = None
"""The run this process plays batches of (the runner's token for it) and its stalls by bot index, as counted here."""


def stall_counts(config: Config, stalls: tuple[str, StallCounts] | None) -> list[int]:
    """The stalls by bot index of the config to start a batch from: those this process counted in the run of token
    `stalls[0]` (it plays that run's batches in order), or more where the run's saved results (`stalls[1]`) say so."""
    global _stalls
    token, saved = stalls if stalls is not None else ("", {})
    if _stalls is None or _stalls[0] != token or len(_stalls[1]) != len(config.bots) or not token:
        _stalls = (token, [0] * len(config.bots))
    counts = _stalls[1]
    for index, bot in enumerate(config.bots):
        counts[index] = max(counts[index], saved.get(bot.name, 0))
    return counts


def play_batch(config: Config, start: int, end: int, stalls: tuple[str, StallCounts] | None = None) -> dict[str, list]:
    """Plays games start..end-1 of the config's schedule, suspending the bots that stall (`stalls`: the run's token
    and the stalls of its saved results); returns the result columns."""
    return columns(play_rows(config, start, end, stalls))


def play_rows(config: Config, start: int, end: int, stalls: tuple[str, StallCounts] | None = None) -> list[tuple]:
    """`play_batch`'s result rows (`row`)."""
    schedule, makers = prepare(config)
    counts = stall_counts(config, stalls)
    rows, now = [], time.perf_counter
    gc.freeze()  # the batch's rows pile up and set off full collections: not of every module's objects too
    try:
        for scheduled in schedule.games(start, end):
            started = now()
            played = play_counted(config, makers, scheduled, counts)
            rows.append(row(scheduled, played, now() - started, take_usage(len(scheduled.seat_bots))))
    finally:
        gc.unfreeze()
    return rows


def play_counted(config: Config, makers: list[Callable[[], object]], scheduled, counts) -> referee.Played:
    """One game of the schedule (`play_scheduled`), or its forfeit unplayed when a bot of its table is suspended (has
    `suspend_after` stalls in `counts`, by bot index: a list, or the quarantine's shared array); a stall in it is
    counted."""
    seat = suspended_seat(config, scheduled, counts)
    if seat is not None:
        return unplayed(config, scheduled, seat)
    played = play_scheduled(config, makers, scheduled)
    count_stall(scheduled, played, counts)
    return played


def suspended_seat(config: Config, scheduled, counts) -> int | None:
    """The first seat of a scheduled game whose bot is suspended (has `suspend_after` stalls in `counts`), or None."""
    after = config.run.suspend_after
    if not after or max(counts) < after:  # the common case in one look
        return None
    return next((seat for seat, bot in enumerate(scheduled.seat_bots) if counts[bot] >= after), None)


def unplayed(config: Config, scheduled, seat: int) -> referee.Played:
    """A scheduled game recorded without being played: the forfeit (`timeout`) of a suspended bot at `seat`, at the
    deal's start."""
    block = scheduled.block
    game = get_game(block.game_id)
    return referee.forfeit(game, game.new_state(block.rules, scheduled.deal_seed), seat, "timeout",
                           referee.suspension_fault(config.run.suspend_after), 0)


def count_stall(scheduled, played: referee.Played, counts) -> None:
    """Counts a stall of the game in `counts` (by bot index): a call the wall-clock backstop ended."""
    if played.fault_seat is not None and referee.stalled(played.outcome.termination, played.fault):
        counts[scheduled.seat_bots[played.fault_seat]] += 1


STALL_COLUMNS = ["players", "termination", "fault", "fault_seat"]
"""The result columns that tell a stall."""


def saved_stalls(parts) -> StallCounts:
    """The stalls of each bot in results given a part at a time (pyarrow tables of STALL_COLUMNS at least)."""
    counts: StallCounts = {}
    for part in parts:
        count_stalls(part.select(STALL_COLUMNS).to_pydict(), counts)
    return counts


def count_stalls(columns: dict[str, list], counts: StallCounts) -> None:
    """Adds the stalls of a batch's result columns to `counts` (by bot name)."""
    for players, termination, fault, seat in zip(columns["players"], columns["termination"], columns["fault"],
                                                 columns["fault_seat"], strict=True):
        if seat is not None and referee.stalled(termination, fault):
            counts[players[seat]] = counts.get(players[seat], 0) + 1


def play_scheduled(config: Config, makers: list[Callable[[], object]], scheduled) -> referee.Played:
    """One game of the schedule, played by fresh bots (as in a tournament, so also in a replay), each built
    by the referee under the setup time limit."""
    block = scheduled.block
    return referee.play(get_game(block.game_id), block.rules, [makers[b] for b in scheduled.seat_bots],
                        scheduled.deal_seed, seeds=scheduled.bot_seeds, built=False, **time_limits(config))


def time_limits(config: Config) -> dict:
    """The referee's time limits of a config's games."""
    return {"move_time_limit": config.run.move_time_limit, "setup_time_limit": config.run.setup_time_limit,
            "wall_backstop": config.run.wall_backstop}


def row(scheduled, played: referee.Played, duration: float, usage: tuple = (None,) * 4) -> tuple:
    """One game's result row, its values in the order of the results schema (`columns` makes columns of rows);
    `usage`: what its model seats spent (arena/llm/seat.py `take_usage`)."""
    block, outcome = scheduled.block, played.outcome
    return (scheduled.index, block.game_id, block.label, scheduled.table, scheduled.deal, scheduled.rotation,
            scheduled.deal_seed, scheduled.seat_names, outcome.scores, outcome.ranks, outcome.termination,
            played.fault_seat, played.fault, played.decisions, duration, *(played.slowest or (None, None)), *usage)


def columns(rows: list[tuple]) -> dict[str, list]:
    """Result rows (`row`) as the columns of the results schema."""
    from arena.results import SCHEMA  # here: a worker sends rows, and imports no pyarrow (0.2 CPU-s a process)

    values = zip(*rows, strict=True) if rows else [()] * len(SCHEMA)
    return {name: list(column) for name, column in zip(SCHEMA.names, values, strict=True)}



def worker_batch(config: Config, start: int, end: int, stalls: tuple[str, StallCounts] | None = None
                 ) -> list[tuple]:
    """play_rows in a process that plays a run's batches (a Ray worker, the local worker), with the move
    clock's backstop armed: a bot that defeats the clock gets this process killed (arena/isolation/clock.py). The
    rows go to the driver, which makes them columns (`columns`)."""
    arm_backstop(config.run.move_time_limit, config.run.setup_time_limit, config.run.wall_backstop)
    unshadowed([*config.folders, os.getcwd()])  # Ray puts the driver's folders first on a worker's import path
    return play_rows(config, start, end, stalls)


def local_worker() -> None:
    """The local worker's process (arena/tournament/runner.py `LocalWorker`): reads sys.path, then plays each
    (config, start, end, stalls) it is sent. It imports this module alone, not the runner's pyarrow and numpy."""
    import pickle
    import sys

    from arena.isolation.limits import die_with

    die_with(os.getppid())
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # the results own the pipe; whatever a bot prints goes to stderr
    sys.path[:] = pickle.load(sys.stdin.buffer)
    while True:
        try:
            config, start, end, stalls = pickle.load(sys.stdin.buffer)
        except EOFError:
            return
        try:
            result = ("ok", worker_batch(config, start, end, stalls))
        except BaseException as error:  # a bot's SystemExit, KeyboardInterrupt, ...: its batch goes to quarantine
            result = ("failed", error)
        try:
            message = pickle.dumps(result)
        except Exception:  # an exception that does not pickle
            message = pickle.dumps(("failed", RuntimeError(type(result[1]).__name__)))
        out.write(message)
        out.flush()

