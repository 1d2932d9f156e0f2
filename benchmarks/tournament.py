"""Tournament throughput: Ray on all cores against in process, and the full million-game run.

    .venv/bin/python benchmarks/tournament.py speedup [--games 200000]
    .venv/bin/python benchmarks/tournament.py million

`speedup` plays the same Caterpillar random-vs-random run in process and on a local Ray instance
(one worker per core) and prints games/s for both; Ray's start-up is timed apart. `million` plays
configs/million.toml and prints play time, rating time (and its share of the wall time) and the
driver's peak memory.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from arena.config import load_config, parse_config
from arena.results import RunDir
from arena.runner import finish_run, play_missing

SPEEDUP = """
name = "speedup"
seed = 1
[[games]]
game = "caterpillar"
deals = {deals}
[[bots]]
name = "random"
[[bots]]
name = "random-2"
path = "random"
[run]
batch_size = 10000
"""


def speedup(games: int) -> None:
    """Prints in-process and Ray games/s for the same run."""
    import ray

    config = parse_config(SPEEDUP.format(deals=games // 2))
    with tempfile.TemporaryDirectory() as scratch:
        serial = play_missing(config, RunDir(Path(scratch) / "serial"), workers=1)
        started = time.perf_counter()
        workers = os.cpu_count() or 1
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        startup = time.perf_counter() - started
        parallel = play_missing(config, RunDir(Path(scratch) / "ray"), workers=workers)
        ray.shutdown()
    serial_rate, ray_rate = serial.total / serial.play_seconds, parallel.total / parallel.play_seconds
    print(f"{games:,} Caterpillar games, random vs random, batches of 10,000")
    print(f"in process      : {serial.play_seconds:7.1f} s  {serial_rate:10,.0f} games/s")
    print(f"ray, {workers} workers : {parallel.play_seconds:7.1f} s  {ray_rate:10,.0f} games/s"
          f"  (+ {startup:.1f} s ray.init)")
    print(f"speed-up        : {ray_rate / serial_rate:.2f}x  "
          f"(with start-up: {serial.play_seconds / (parallel.play_seconds + startup):.2f}x)")


def million() -> None:
    """Plays configs/million.toml and prints timings and the driver's peak memory."""
    config = load_config(Path(__file__).resolve().parent.parent / "configs" / "million.toml")
    with tempfile.TemporaryDirectory() as scratch:
        run = RunDir(Path(scratch) / config.name)
        started = time.perf_counter()
        report = play_missing(config, run)
        manifest, _ = finish_run(config, run, report)
        wall = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{manifest['games']:,} games on {report.backend} ({report.workers} workers)")
    rate = manifest["games"] / manifest["play_seconds"]
    print(f"wall {wall:.1f} s: play {manifest['play_seconds']:.1f} s ({rate:,.0f} games/s), "
          f"load {manifest['load_seconds']:.1f} s, rating {manifest['rating_seconds']:.2f} s "
          f"= {100 * manifest['rating_seconds'] / wall:.1f}% of the wall time, "
          f"report {manifest['report_seconds']:.1f} s")
    print(f"driver peak memory: {peak_mb:,.0f} MB; digest {manifest['digest']}")


def main() -> None:
    """Runs the benchmark named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="which", required=True)
    sub.add_parser("speedup").add_argument("--games", type=int, default=200_000)
    sub.add_parser("million")
    args = parser.parse_args()
    speedup(args.games) if args.which == "speedup" else million()


if __name__ == "__main__":
    main()
