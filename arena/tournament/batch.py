"""Playing a batch: the bots of a config built, games start..end-1 of its schedule played by fresh bots, and
their result rows made into the columns of the results schema. The runner's workers and the quarantine play
every game through these pieces, so a game is played and recorded one way wherever it is played."""

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
from arena.results import SCHEMA
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


def play_batch(config: Config, start: int, end: int) -> dict[str, list]:
    """Plays games start..end-1 of the config's schedule; returns the result columns."""
    schedule, makers = prepare(config)
    rows, now = [], time.perf_counter
    gc.freeze()  # the batch's rows pile up and set off full collections: not of every module's objects too
    try:
        for scheduled in schedule.games(start, end):
            started = now()
            played = play_scheduled(config, makers, scheduled)
            rows.append(row(scheduled, played, now() - started, take_usage(len(scheduled.seat_bots))))
    finally:
        gc.unfreeze()
    return columns(rows)


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
    values = zip(*rows, strict=True) if rows else [()] * len(SCHEMA)
    return {name: list(column) for name, column in zip(SCHEMA.names, values, strict=True)}



def worker_batch(config: Config, start: int, end: int) -> dict[str, list]:
    """play_batch in a process that plays a run's batches (a Ray worker, the local worker), with the move
    clock's backstop armed: a bot that defeats the clock gets this process killed (arena/isolation/clock.py)."""
    arm_backstop(config.run.move_time_limit, config.run.setup_time_limit, config.run.wall_backstop)
    unshadowed([*config.folders, os.getcwd()])  # Ray puts the driver's folders first on a worker's import path
    return play_batch(config, start, end)

