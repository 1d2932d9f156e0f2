"""`arena league play`: the matchmaker's rounds, played by the tournament runner's workers (one local worker
or Ray), each finished batch saved at once as a Parquet part of league game indices, with the round.

One `play` at a time: a lock file held with flock (released by the kernel when the process ends, however it
ends). A round is recorded in the catalog before its first game, so a `play` killed at any moment finishes
that round first, playing only the games missing from its parts; no game is played twice, none lost.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from arena.league import load_settings
from arena.league.catalog import Catalog, LeagueError, RoundRow
from arena.league.matchmaker import Matchmaker
from arena.results import RATED_COLUMNS, SCHEMA, RunDir, scan_parts, write_part

LEAGUE_SCHEMA = SCHEMA.append(pa.field("round", pa.int32()))
"""A league's result parts: the run columns (game_index is the league's) and the round."""
LOCK_FILE = "play.lock"


@contextmanager
def play_lock(directory: Path) -> Iterator[None]:
    """Holds the league's play lock, or refuses at once when another `play` holds it."""
    handle = open(Path(directory) / LOCK_FILE, "a+")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LeagueError(f"{directory}: another `arena league play` is playing this league; "
                              "wait for it to finish") from None
        yield
    finally:
        handle.close()


@dataclass
class PlayReport:
    rounds: list[int]
    played_now: int
    stopped: str
    backend: str


def league_parts(directory: Path, rounds: list[RoundRow], columns: list[str] | None = None) -> Iterator[pa.Table]:
    """The results of the given rounds, part by part in game-index order (columns: all of LEAGUE_SCHEMA)."""
    import pyarrow.parquet as pq

    from arena.results import PART_NAME

    ranges = sorted((r.first_index, r.end_index) for r in rounds)
    for path in sorted((Path(directory) / "results").glob("part-*.parquet")):
        match = PART_NAME.fullmatch(path.name)
        if match and any(first <= int(match[1]) and int(match[2]) <= end for first, end in ranges):
            yield pq.read_table(path, schema=LEAGUE_SCHEMA, columns=columns)


def play_league(directory: Path, *, games: int | None = None, until_settled: bool = False, rounds: int | None = None,
                workers: int | None = None, address: str | None = None,
                on_progress: Callable[..., None] | None = None) -> PlayReport:
    """Plays rounds until the budget (`games`), `rounds`, or settled; with none of them, one round."""
    from arena.runner import LocalWorker, RayBackend, missing_batches

    directory = Path(directory)
    settings = load_settings(directory)
    if games is None and rounds is None and not until_settled:
        rounds = 1
    with play_lock(directory):
        catalog = Catalog(directory)
        run = RunDir(directory)
        good, bad = scan_parts(run)
        for path, reason in bad:  # a part cut short by a crash: set aside, and its games played again
            aside = directory / "damaged" / path.name
            aside.parent.mkdir(exist_ok=True)
            os.replace(path, aside)
            print(f"warning: {path} was damaged ({reason}); moved to {aside} and its games will be replayed")
        matchmaker = Matchmaker(directory, settings, catalog, budget=games, until_settled=until_settled,
                                rounds=rounds)
        recorded = catalog.rounds()
        history = list(league_parts(directory, recorded, RATED_COLUMNS))
        workers = settings.run.workers if workers is None else workers
        workers = workers or os.cpu_count() or 1
        address = address if address is not None else settings.run.address
        pool, backend, played_rounds = None, "serial", []
        try:
            step = matchmaker.next(pa.concat_tables(history) if history else None)
            while step is not None:
                round_ = matchmaker.current
                played_rounds.append(round_.number)
                if pool is None:
                    if address or workers > 1:
                        backend, pool = ("ray-cluster" if address else "ray-local"), RayBackend(step.config, workers,
                                                                                               address)
                    else:
                        pool = LocalWorker(step.config)
                _use_config(pool, step.config)
                done = [(start - round_.first_index, end - round_.first_index) for start, end, _ in scan_parts(run)[0]
                        if round_.first_index <= start and end <= round_.end_index]
                new = []
                if on_progress:
                    on_progress(matchmaker.played_now, matchmaker.most_games(), f"round {round_.number}")
                for (start, end), columns in pool.play(missing_batches(step.ranges, done, settings.run.batch_size)):
                    columns = dict(columns)
                    columns["game_index"] = [round_.first_index + i for i in columns["game_index"]]
                    columns["round"] = [round_.number] * (end - start)
                    write_part(run, round_.first_index + start, round_.first_index + end, columns,
                               schema=LEAGUE_SCHEMA)
                    new.append(pa.Table.from_pydict(columns, schema=LEAGUE_SCHEMA).select(RATED_COLUMNS))
                    matchmaker.count(end - start)
                    if on_progress:
                        on_progress(matchmaker.played_now, matchmaker.most_games(), f"round {round_.number}")
                step = matchmaker.next(pa.concat_tables(new) if new else None)
        finally:
            if pool is not None:
                pool.close()
            catalog.close()
    return PlayReport(played_rounds, matchmaker.played_now, matchmaker.stopped, backend)


def _use_config(pool, config) -> None:
    """Points a pool at the next round's config (the pool's workers stay up from round to round)."""
    pool.config = config
    if getattr(pool, "task", None) is not None:  # a Ray pool already started: its workers read the config by ref
        import ray

        pool.config_ref = ray.put(config)
