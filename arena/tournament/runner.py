"""Runs a tournament: batches of games by one local worker process or by Ray workers, each saved at once.

Results never depend on the backend, the worker count, the batch size or the completion order:
every game is fully determined by its game index and the config.

A batch that fails (a bot that breaks out of the referee or ends its process) is replayed in
quarantine, game by game in child processes (arena/tournament/quarantine.py, imported only where a backend falls
back to it). Both play their games through arena/tournament/batch.py.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pyarrow as pa

from arena.bots.sources import recorded_spec
from arena.config import Config
from arena.errors import ArenaError
from arena.results import RATED_COLUMNS, SCHEMA, RunDir, iter_results, load_results, set_aside_damaged, write_part
from arena.tournament.batch import STALL_COLUMNS, StallCounts, columns, count_stalls, saved_stalls, worker_batch
from arena.tournament.folder import prepare_run_dir
from arena.tournament.schedule import Schedule

if TYPE_CHECKING:  # the planners read results with pandas, which a worker process need not import
    from arena.tournament.plan import Planner, Step
    from arena.tournament.summary import ResultsSummary

Batch = tuple[int, int]
"""A contiguous range of game indices, start inclusive, end exclusive."""


def missing_batches(wanted: Iterable[Batch], done: Iterable[Batch], batch_size: int) -> list[Batch]:
    """The parts of the `wanted` ranges not covered by `done`, cut into batches of at most `batch_size`."""
    done = sorted(done)
    batches = []
    for first, last in wanted:
        position = first
        for start, end in done + [(last, last)]:
            if end <= position:
                continue
            while position < min(start, last):
                stop = min(start, last, position + batch_size)
                batches.append((position, stop))
                position = stop
            position = max(position, end)
            if position >= last:
                break
    return batches


ROUND_TASK_SECONDS = 0.5
"""A planner that looks after each step waits for its last batch: the batches of such a step are cut to
about this long, so that no worker idles long at the end of a round (the results do not depend on it)."""


def step_batches(step: Step, done: list[Batch], batch_size: int, schedule: Schedule, timing: dict) -> list[Batch]:
    """The missing batches of a step. A step a planner looks after (`sized`) is cut into one deal a batch at
    first, then as many deals as take about ROUND_TASK_SECONDS by the time the games of that config entry
    took so far (at most batch_size games)."""
    if not step.sized:
        return missing_batches(step.ranges, done, batch_size)
    batches = []
    for first, last in step.ranges:
        block = schedule.block_at(first)
        seconds, games = timing[block.entry]
        deals = 1 if not games else max(1, int(ROUND_TASK_SECONDS * games / max(seconds, 1e-9) / block.rotations))
        batches += missing_batches([(first, last)], done, min(batch_size, deals * block.rotations))
    return batches


class LocalWorker:
    """`workers = 1`: the batches are played one after another by one worker process (no Ray).

    The run's own process never runs a bot, so whatever a bot does to its process (SIGKILLed by the
    backstop, os._exit, a SystemExit or KeyboardInterrupt of its own) costs a replay of its batch in
    quarantine and a new worker, never the run; a real Ctrl-C reaches only this process (the worker
    has its own session) and stops the run. What bots print goes to stderr. A worker that finished its
    run in good order is kept for the next run of this process (starting one costs a Python start-up).
    """

    _idle = None
    """The worker kept between runs (a Popen), if any."""

    def __init__(self) -> None:
        self.process = None
        self.busy = False

    def _start(self) -> None:
        import pickle
        import subprocess
        import sys

        idle, LocalWorker._idle = LocalWorker._idle, None
        if idle is not None and idle.poll() is None:
            self.process = idle
            return
        command = [sys.executable, "-P", "-c", "from arena.tournament.batch import local_worker; local_worker()"]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        start_new_session=True)
        pickle.dump(sys.path, self.process.stdin)
        self.process.stdin.flush()

    def play(self, config: Config, batches: list[Batch], stalls: Callable[[], tuple] = lambda: None
             ) -> Iterator[tuple[Batch, dict]]:
        """Plays the batches in order, each sent with `stalls()` as it stands then (the run's token and the stalls of
        its saved results, arena/tournament/batch.py); yields each batch's columns."""
        from collections import deque

        from arena.tournament.quarantine import quarantine_batch, warn_quarantine

        waiting, sent = deque(batches), deque()
        while waiting or sent:
            # One batch ahead: the worker plays the next while this process saves the last one.
            while waiting and len(sent) < 2:
                sent.append(waiting.popleft())
                self._send(config, sent[-1], stalls())
            start, end = sent.popleft()
            self.busy = True
            kind, payload = self._receive()
            self.busy = bool(sent)
            if kind == "died":  # the batch sent after this one went to the dead worker: send it again
                waiting.extendleft(reversed(sent))
                sent.clear()
            if kind == "ok":
                played = columns(payload)
            else:
                warn_quarantine(start, end, payload)
                played = quarantine_batch(config, start, end, stalls())
            yield (start, end), played

    def _send(self, config: Config, batch: Batch, stalls: tuple | None) -> None:
        import pickle

        if self.process is None:
            self._start()
        try:
            pickle.dump((config, *batch, stalls), self.process.stdin)
            self.process.stdin.flush()
        except OSError:  # the worker died under a bot: _receive finds out
            pass

    def _receive(self) -> tuple[str, object]:
        """The worker's answer for the oldest batch sent: ("ok", columns), ("failed", error) or ("died", error)."""
        import pickle

        try:
            return pickle.load(self.process.stdout)
        except (EOFError, OSError, pickle.UnpicklingError):  # the worker died under a bot
            self.close()
            return "died", RuntimeError("the worker process died")

    def close(self) -> None:
        """Keeps an idle worker for the next run; kills one that was interrupted in a batch (or is spare)."""
        if self.process is None:
            return
        if self.busy or LocalWorker._idle is not None or self.process.poll() is not None:
            self.process.kill()
            self.process.wait()
        else:
            LocalWorker._idle = self.process
        self.process, self.busy = None, False


RAY_RETRIES = 1
"""How often Ray re-runs a batch whose worker died (a lost node, an OOM kill); a batch that fails
again is replayed in quarantine, so a bot that kills its worker costs one retry, not three."""


class RayLost(ArenaError, RuntimeError):
    """The Ray instance under a run died: the run stops, every finished batch saved."""


class RayBackend:
    """Plays batches as Ray tasks (a local instance, or the cluster at `address`), a bounded number in flight.

    Ray starts with the first batch and stays up for the rounds that follow, until `close`. A batch
    whose task fails for good (its worker died every time, or a bot raised past the referee) is
    replayed here in quarantine, game by game, so one bot that ends its process never stops the run.
    """

    def __init__(self, workers: int, address: str | None) -> None:
        self.workers, self.address = workers, address
        self.task = None
        self.config_ref = (None, None)
        """The config of the last step and its object in Ray's store, put there once a step."""
        self.started_here = False

    def _start(self) -> None:
        import logging

        import ray

        self.started_here = not ray.is_initialized()
        if self.started_here:
            options = dict(include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
            if self.address:
                ray.init(address=self.address, **options)
            else:  # "local": a new instance even when `ray start` left a cluster on this machine, which
                # ray.init would otherwise join (and refuse, since it was given num_cpus)
                ray.init(address="local", num_cpus=self.workers, **options)
        self.task = ray.remote(max_retries=RAY_RETRIES)(worker_batch)
        self.slots = 2 * max(1, int(ray.cluster_resources().get("CPU", self.workers)))

    def play(self, config: Config, batches: list[Batch], stalls: Callable[[], tuple] = lambda: None
             ) -> Iterator[tuple[Batch, dict]]:
        """Plays the batches as tasks, each sent with `stalls()` as it stands then (arena/tournament/batch.py: the
        workers play at once, so each suspends a bot after the stalls it saw itself or the run had saved)."""
        import ray

        from arena.tournament.quarantine import quarantine_batch, warn_quarantine

        if not batches:
            return
        if self.task is None:
            self._start()
        if self.config_ref[0] is not config:
            self.config_ref = (config, ray.put(config))
        queue, pending = iter(batches), {}
        while True:
            for batch in queue:
                pending[self.task.remote(self.config_ref[1], *batch, stalls())] = batch
                if len(pending) >= self.slots:
                    break
            if not pending:
                break
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                batch = pending.pop(ref)
                try:
                    played = columns(ray.get(ref))
                except ray.exceptions.LocalRayletDiedError:
                    # Ray itself is gone (killed, out of memory): the next call into it would end this process
                    raise RayLost("the local Ray instance died") from None
                except ray.exceptions.RayError as error:  # WorkerCrashedError, RayTaskError, a lost node, ...
                    warn_quarantine(*batch, error)
                    played = quarantine_batch(config, *batch, stalls())
                yield batch, played

    def close(self) -> None:
        if self.started_here:
            import ray

            ray.shutdown()


@dataclass
class RunReport:
    """What a run did: counts and timings, for the manifest."""

    total: int
    """Games of the run: all of the schedule, or those played until the stopping rule stopped it."""
    played_now: int
    play_seconds: float
    backend: str
    workers: int
    started_at: str
    """When this invocation began (UTC, ISO 8601)."""
    played: list[Batch] = field(default_factory=list)
    """The game-index ranges of the run."""
    stop: dict | None = None
    """The stopping rule's account (manifest `stop`), None when every deal is played."""


def play_missing(config: Config, run: RunDir, *, workers: int | None = None, address: str | None = None,
                 resume: bool = False, overwrite: bool = False,
                 on_progress: Callable[..., None] | None = None) -> RunReport:
    """Plays every game of the config not yet saved in `run`, as its planner asks (its stopping rule), and
    saves each batch as it finishes. `on_progress(done, most, note)` follows it."""
    from datetime import UTC, datetime

    from arena.tournament.batch import with_store
    from arena.tournament.plan import plan_for

    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    prepare_run_dir(config, run, resume=resume, overwrite=overwrite)
    config = with_store(config, run)  # its model seats' exchanges kept in the run, and read back on resume
    done = [(start, end) for start, end, _ in set_aside_damaged(run)]
    planner = plan_for(config)
    workers, address = workers_for(config, workers, address)
    backend, pool = make_pool(workers, address)
    started = time.perf_counter()
    stalls = saved_stalls(iter_results(run, STALL_COLUMNS)) if done else {}
    played_now = execute(planner, pool, done=lambda _: done,
                         save=lambda _, batch, columns: write_part(run, *batch, columns),
                         batch_size=config.run.batch_size, saved=sum(end - start for start, end in done),
                         first=load_results(run, RATED_COLUMNS) if planner.reads_results and done else None,
                         on_progress=on_progress, stalls=stalls)
    played = planner.played()
    return RunReport(sum(end - start for start, end in played), played_now, time.perf_counter() - started,
                     backend, workers, started_at, played, planner.summary())


def workers_for(config: Config, workers: int | None, address: str | None) -> tuple[int, str | None]:
    """The workers and Ray address of a run: those given, else the config's, else every core, locally."""
    workers = config.run.workers if workers is None else workers
    address = address if address is not None else config.run.address
    return workers or os.cpu_count() or 1, address


def make_pool(workers: int, address: str | None) -> tuple[str, LocalWorker | RayBackend]:
    """The backend's name and the pool that plays batches: Ray for a cluster or more than one worker."""
    if address or workers > 1:
        return ("ray-cluster" if address else "ray-local"), RayBackend(workers, address)
    return "serial", LocalWorker()


def execute(planner: Planner, pool: LocalWorker | RayBackend, *, done: Callable[[Config], list[Batch]],
            save: Callable[[Step, Batch, dict], None], batch_size: int, saved: int = 0, first: pa.Table | None = None,
            on_progress: Callable[..., None] | None = None, stalls: StallCounts | None = None) -> int:
    """Plays what the planner asks, step after step, and saves every batch as it finishes; returns the games
    played. `done(config)` gives the batches of a step's config already saved (they are not played again),
    `first` the results already saved, for the planner's first step. The planner is asked only between steps,
    never during one, and nothing here decides what to play. The pool is closed at the end. `stalls`: the stalls
    of each bot in the results saved before (by name), counted on here as batches are saved and handed to the
    workers, which suspend a bot that reaches `[run] suspend_after` (arena/tournament/batch.py)."""
    import uuid

    schedule = None
    stalls = {} if stalls is None else stalls  # (a league's recorder keeps it as its catalog has it)
    token = uuid.uuid4().hex  # this run's: a worker kept from another run of the same config starts its count afresh
    timing = defaultdict(lambda: np.zeros(2))  # per config entry: seconds and games played, to size batches
    played_now, new = 0, first
    try:
        while step := planner.next(new):
            if on_progress:
                on_progress(saved + played_now, planner.most_games(), planner.note())
            if schedule is None or schedule.config is not step.config:  # a league's rounds each bring one
                schedule = Schedule(step.config)
            parts = []
            for batch, columns in pool.play(step.config, step_batches(step, done(step.config), batch_size,
                                                                      schedule, timing), lambda: (token, dict(stalls))):
                save(step, batch, columns)
                count_stalls(columns, stalls)
                if planner.reads_results:
                    parts.append(pa.Table.from_pydict(columns, schema=SCHEMA))
                    timing[schedule.block_at(batch[0]).entry] += (sum(columns["duration"]), batch[1] - batch[0])
                played_now += batch[1] - batch[0]
                if on_progress:
                    on_progress(saved + played_now, planner.most_games(), planner.note())
            new = pa.concat_tables(parts) if parts else None
    finally:
        pool.close()
    if on_progress:
        on_progress(saved + played_now, planner.most_games(), planner.note())
    return played_now


class Finished(NamedTuple):
    """A run rated and recorded: its manifest, its ratings by variant, and what its results hold besides (for the
    report, which the command layer writes from these without reading the results again)."""

    manifest: dict
    ratings: dict
    summary: ResultsSummary


def finish_run(config: Config, run: RunDir, report: RunReport) -> Finished:
    """Checks that every game is saved, rates them, and writes ratings.csv, summary.csv and manifest.json.

    The results are read a part at a time, in passes (the check, the digest, the ratings, the counts and
    examples of the report), never whole: the memory this takes does not grow with the number of games."""
    import json
    import platform
    from datetime import UTC, datetime
    from importlib.metadata import version

    from arena.atomic import write_atomic
    from arena.ratings.tables import csv_frames, rate_parts
    from arena.results import iter_results, run_digest
    from arena.tournament.summary import SUMMARY_COLUMNS, summarise_results, with_suspensions

    started = time.perf_counter()
    _check_saved(run, report.played)
    results_digest = run_digest(run)
    load_seconds = time.perf_counter() - started
    started = time.perf_counter()
    ratings = rate_parts(iter_results(run, RATED_COLUMNS), config.ratings)
    rating_seconds = time.perf_counter() - started
    tables, summary_table = csv_frames(ratings)
    write_atomic(run.ratings, tables.to_csv(index=False, float_format="%.6f").encode())
    summary = summarise_results(iter_results(run, SUMMARY_COLUMNS), ratings)
    summary_table = with_suspensions(summary_table, summary.suspended)
    write_atomic(run.summary, summary_table.to_csv(index=False, float_format="%.6f").encode())
    previous = run.read_manifest()
    manifest = {
        "name": config.name,
        "digest": results_digest,
        "games": int(report.total),
        "games_by_variant": summary.games,
        **({"stop": report.stop} if report.stop else {}),
        "terminations": {f"{v}/{t}": n for v, ends in summary.terminations.items() for t, n in ends.items()},
        **({"move_times": summary.move_times} if summary.move_times else {}),
        **({"suspended": summary.suspended} if summary.suspended else {}),
        **({"model_use": summary.model_use} if summary.model_use else {}),
        "bots": {b.name: {**recorded_spec(b.folder or b.spec, run.bots), "params": b.params} for b in config.bots},
        "folders": list(config.folders),
        "backend": report.backend,
        "workers": report.workers,
        "batch_size": config.run.batch_size,
        "started": previous.get("started", report.started_at),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "played_now": report.played_now,
        "wall_seconds": round(report.play_seconds + load_seconds + rating_seconds, 3),
        "play_seconds": round(report.play_seconds, 3),
        "load_seconds": round(load_seconds, 3),
        "rating_seconds": round(rating_seconds, 3),
        "versions": {"arena": version("arena"), "python": platform.python_version(),
                     **{p: version(p) for p in ("ray", "trueskill", "pandas", "pyarrow")}},
    }
    write_atomic(run.manifest, json.dumps(manifest, indent=2).encode())
    return Finished(manifest, ratings, summary)


def _check_saved(run: RunDir, played: list[Batch]) -> None:
    """Raises ResultsError unless the run's parts hold exactly the games of `played` (a pass over game indices)."""
    from arena.results import ResultsError, iter_results

    saved = []
    for part in iter_results(run, []):
        if part.num_rows:  # a part holds the games its name says, one after another (checked as it is read)
            first = part.column("game_index")[0].as_py()
            saved.append((first, first + part.num_rows))
    if _joined(saved) != _joined(played):
        raise ResultsError(f"{run.results} holds {sum(end - start for start, end in saved):,} games, not the run's "
                           f"{sum(end - start for start, end in played):,}: run with --resume")


def _joined(ranges: Iterable[Batch]) -> list[Batch]:
    """Game-index ranges in order, those that touch joined into one."""
    joined: list[Batch] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
        else:
            joined.append((start, end))
    return joined
