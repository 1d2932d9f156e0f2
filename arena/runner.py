"""Runs a tournament: batches of games in process or on Ray, each finished batch saved at once.

Results never depend on the backend, the worker count, the batch size or the completion order:
every game is fully determined by its game index and the config.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from arena import referee
from arena.bots import load_bot_class
from arena.config import Config, ConfigError, parse_config
from arena.games import get_game
from arena.results import RunDir, scan_parts, write_part
from arena.schedule import Schedule

Batch = tuple[int, int]
"""A contiguous range of game indices, start inclusive, end exclusive."""

_prepared: dict[str, tuple[Schedule, list[type]]] = {}


def _prepare(config: Config) -> tuple[Schedule, list[type]]:
    """The schedule and bot classes of a config, built once per process."""
    key = repr(config)
    if key not in _prepared:
        _prepared.clear()
        _prepared[key] = (Schedule(config), [load_bot_class(b.spec) for b in config.bots])
    return _prepared[key]


def play_batch(config: Config, start: int, end: int) -> dict[str, list]:
    """Plays games start..end-1 of the config's schedule; returns the result columns."""
    schedule, classes = _prepare(config)
    limit = config.run.move_time_limit
    rows: dict[str, list] = {k: [] for k in ("game_index", "game", "variant", "table", "deal", "rotation", "seed",
                                            "players", "scores", "ranks", "termination", "fault_seat", "fault",
                                            "decisions", "duration")}
    clock = time.perf_counter
    for index in range(start, end):
        scheduled = schedule.game(index)
        block = scheduled.block
        entries = [config.bots[b] for b in scheduled.seat_bots]
        bots = [classes[b](**config.bots[b].params) for b in scheduled.seat_bots]
        started = clock()
        played = referee.play(get_game(block.game_id), block.rules, bots, scheduled.deal_seed,
                              seeds=scheduled.bot_seeds, move_time_limit=limit)
        duration = clock() - started
        for key, value in (("game_index", index), ("game", block.game_id), ("variant", block.label),
                           ("table", scheduled.table), ("deal", scheduled.deal), ("rotation", scheduled.rotation),
                           ("seed", scheduled.deal_seed), ("players", [e.name for e in entries]),
                           ("scores", list(played.outcome.scores)), ("ranks", list(played.outcome.ranks)),
                           ("termination", played.outcome.termination), ("fault_seat", played.fault_seat),
                           ("fault", played.fault), ("decisions", played.decisions), ("duration", duration)):
            rows[key].append(value)
    return rows


def missing_batches(total: int, done: Iterable[Batch], batch_size: int) -> list[Batch]:
    """The ranges of 0..total-1 not covered by `done`, cut into batches of at most `batch_size`."""
    batches, position = [], 0
    for start, end in sorted(done) + [(total, total)]:
        while position < start:
            stop = min(start, position + batch_size)
            batches.append((position, stop))
            position = stop
        position = max(position, end)
    return batches


def serial_backend(config: Config, batches: list[Batch]) -> Iterator[tuple[Batch, dict]]:
    """Plays the batches one after another in this process."""
    for start, end in batches:
        yield (start, end), play_batch(config, start, end)


def ray_backend(config: Config, batches: list[Batch], workers: int,
                address: str | None) -> Iterator[tuple[Batch, dict]]:
    """Plays the batches as Ray tasks (a local instance, or the cluster at `address`), a bounded number in flight."""
    import logging

    import ray

    started_here = not ray.is_initialized()
    if started_here:
        options = dict(include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
        if address:
            ray.init(address=address, **options)
        else:
            ray.init(num_cpus=workers, **options)
    try:
        task = ray.remote(max_retries=3)(play_batch)
        config_ref = ray.put(config)
        slots = 2 * max(1, int(ray.cluster_resources().get("CPU", workers)))
        queue, pending = iter(batches), {}
        while True:
            for batch in queue:
                pending[task.remote(config_ref, *batch)] = batch
                if len(pending) >= slots:
                    break
            if not pending:
                break
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                yield pending.pop(ref), ray.get(ref)
    finally:
        if started_here:
            ray.shutdown()


@dataclass
class RunReport:
    """What a run did: counts and timings, for the manifest."""

    total: int
    played_now: int
    play_seconds: float
    backend: str
    workers: int
    started_at: str
    """When this invocation began (UTC, ISO 8601)."""


def play_missing(config: Config, run: RunDir, *, workers: int | None = None, address: str | None = None,
                 resume: bool = False, overwrite: bool = False,
                 on_progress: Callable[[int, int], None] | None = None) -> RunReport:
    """Plays every game of the config not yet saved in `run` and saves each batch as it finishes."""
    from datetime import UTC, datetime

    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    prepare_run_dir(config, run, resume=resume, overwrite=overwrite)
    total = Schedule(config).total
    good, bad = scan_parts(run)
    for path, reason in bad:  # a part cut short by a crash: set aside and replayed
        aside = run.path / "damaged" / path.name
        aside.parent.mkdir(exist_ok=True)
        os.replace(path, aside)
        print(f"warning: {path} was damaged ({reason}); moved to {aside} and its games will be replayed")
    done = [(start, end) for start, end, _ in good]
    batches = missing_batches(total, done, config.run.batch_size)
    workers = config.run.workers if workers is None else workers
    address = address if address is not None else config.run.address
    workers = workers or os.cpu_count() or 1
    if address:
        backend, results = "ray-cluster", ray_backend(config, batches, workers, address)
    elif workers == 1:
        backend, results = "serial", serial_backend(config, batches)
    else:
        backend, results = "ray-local", ray_backend(config, batches, workers, None)
    saved = sum(end - start for start, end in done)
    if on_progress:
        on_progress(saved, total)
    started = time.perf_counter()
    played_now = 0
    if batches:
        for (start, end), columns in results:
            write_part(run, start, end, columns)
            played_now += end - start
            if on_progress:
                on_progress(saved + played_now, total)
    return RunReport(total, played_now, time.perf_counter() - started, backend, workers, started_at)


def prepare_run_dir(config: Config, run: RunDir, *, resume: bool, overwrite: bool) -> None:
    """Creates the run directory with the exact config, or checks that a resumed one holds the same config."""
    if run.config.exists():
        if overwrite:
            shutil.rmtree(run.results, ignore_errors=True)
            for path in (run.manifest, run.ratings, run.summary, run.report):
                path.unlink(missing_ok=True)
        elif resume:
            saved = parse_config(run.config.read_text(), base=Path("."))
            if _comparable(saved) != _comparable(config):
                raise ConfigError(f"{run.path} holds a run of a different config; use another name or --overwrite")
            return
        else:
            raise ConfigError(f"{run.path} already holds a run: --resume to finish it, --overwrite to start afresh")
    from arena.atomic import write_atomic

    write_atomic(run.config, config.text.encode())


def _comparable(config: Config) -> tuple:
    """A config without its text and resolved bot paths, to compare a saved run with a new one."""
    bots = tuple((b.name, b.path, repr(b.params)) for b in config.bots)
    return (config.name, config.seed, repr(config.games), bots, config.run.move_time_limit,
            repr(config.ratings))


def replay_game(run: RunDir, index: int) -> dict:
    """The transcript of game `index` of a run, regenerated from its seeds (and checked against the saved row)."""
    from arena.results import ResultsError

    config = parse_config(run.config.read_text())
    schedule, classes = _prepare(config)
    if not 0 <= index < schedule.total:
        raise ResultsError(f"game index {index} is outside this run's 0..{schedule.total - 1}")
    scheduled = schedule.game(index)
    block = scheduled.block
    game = get_game(block.game_id)
    bots = [classes[b](**config.bots[b].params) for b in scheduled.seat_bots]
    played = referee.play(game, block.rules, bots, scheduled.deal_seed, seeds=scheduled.bot_seeds,
                          move_time_limit=config.run.move_time_limit)
    names = [config.bots[b].name for b in scheduled.seat_bots]
    return referee.transcript(game, block.rules, names, scheduled.deal_seed, played)


def finish_run(config: Config, run: RunDir, report: RunReport) -> dict:
    """Checks that every game is saved, rates them, and writes ratings.csv, summary.csv and manifest.json."""
    import json
    import platform
    from datetime import UTC, datetime
    from importlib.metadata import version

    import pandas as pd

    from arena.atomic import write_atomic
    from arena.ratings import RatingSettings, rate_results, summaries
    from arena.results import ResultsError, digest, load_results

    started = time.perf_counter()
    table = load_results(run)
    indices = table.column("game_index").to_numpy()
    if len(indices) != report.total or (len(indices) and (indices[0] != 0 or indices[-1] != report.total - 1)):
        raise ResultsError(f"{run.results} holds {len(indices):,} of {report.total:,} games: run with --resume")
    results_digest = digest(table)
    frame = table.to_pandas()
    load_seconds = time.perf_counter() - started
    started = time.perf_counter()
    ratings = rate_results(frame, RatingSettings(**vars(config.ratings)))
    rating_seconds = time.perf_counter() - started
    tables = pd.concat([r.table.assign(variant=v) for v, r in ratings.items()], ignore_index=True)
    tables = tables[["variant", *[c for c in tables.columns if c != "variant"]]]
    write_atomic(run.ratings, tables.to_csv(index=False, float_format="%.6f").encode())
    rows = []
    for variant, summary in summaries(frame, ratings).items():
        pairs = summary.pairwise.stack(future_stack=True).dropna().rename("win_rate").reset_index()
        rows.append(pairs.assign(variant=variant, kind="pairwise"))
        rows.append(summary.seats.assign(variant=variant, kind="seat"))
    summary_table = pd.concat(rows, ignore_index=True)
    first = ["variant", "kind", "bot", "opponent", "seat"]
    summary_table = summary_table[first + [c for c in summary_table.columns if c not in first]]
    write_atomic(run.summary, summary_table.to_csv(index=False, float_format="%.6f").encode())
    counts = frame.groupby("variant", sort=False).size()
    terminations = frame.groupby(["variant", "termination"], sort=False).size()
    previous = json.loads(run.manifest.read_text()) if run.manifest.is_file() else {}
    manifest = {
        "name": config.name,
        "digest": results_digest,
        "games": int(report.total),
        "games_by_variant": {k: int(v) for k, v in counts.items()},
        "terminations": {f"{v}/{t}": int(n) for (v, t), n in terminations.items()},
        "bots": {b.name: {"spec": b.spec, "params": b.params} for b in config.bots},
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
    return manifest
