#!/usr/bin/env python3
"""Tournament throughput and the driver's memory: Ray on all cores against in process, the full
million-game run, and runs of growing size.

    .venv/bin/python benchmarks/tournament.py layer [--games 50000] [--rounds 5]
    .venv/bin/python benchmarks/tournament.py speedup [--games 200000]
    .venv/bin/python benchmarks/tournament.py million
    .venv/bin/python benchmarks/tournament.py scale [--games 300000,1000000,3000000]
    .venv/bin/python benchmarks/tournament.py ten-million

`layer` is the cost of the tournament layer: random-vs-random Caterpillar games played by the bare
referee (fresh bots, no clock, nothing kept), by the bare referee with the move clock, by the
batches of a run played in this process (play_batch: schedule, seeds, clock, result rows), and by a
tournament of as many games with one local worker (schedule, seeds, the move clock and its backstop,
result rows, Parquet parts), alternating, the best of five rounds each; as games/s (wall) and as
CPU time per game (the worker's), the steadier measure on a shared machine, each cost with the range of
the costs measured round by round. Target: at most 10%.

`speedup` plays the same Caterpillar random-vs-random run in process and on a local Ray instance
(one worker per core) and prints games/s for both; Ray's start-up is timed apart. `million` plays
configs/million.toml and prints play time, rating time (and its share of the wall time) and the
driver's peak memory.

`scale` plays Caterpillar random vs random on Ray with all cores at each size, every size in a fresh
process so that no peak carries over, and prints the driver's own peak memory (its resident set's
high-water mark, Ray's processes not included) while playing and, separately, in finish_and_report (digest,
ratings, report), against the number of games, with the slope of each in MB per million games: flat
when memory does not grow with the run. `ten-million` is `scale` at 1, 3 and 10 million games (about
half an hour on two cores). Linux only: the high-water mark is read from and reset through /proc.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine import ratio_and_range

from arena.api import finish_and_report
from arena.config import load_config, parse_config
from arena.results import RunDir
from arena.tournament.runner import play_missing

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


def layer(games: int, rounds: int = 5) -> None:
    """Prints games/s and CPU time per game of the bare referee (without and with the move clock), of a run's
    batches played in this process and of a one-worker tournament, and the layer's cost."""
    from arena.bots import load_bot_class
    from arena.games import get_game, make_rules
    from arena.tournament import referee
    from arena.tournament.batch import play_batch
    from arena.tournament.runner import LocalWorker

    game = get_game("caterpillar")
    rules = make_rules(game.Rules, {})
    random_bot = load_bot_class("random")
    config = parse_config(SPEEDUP.format(deals=games // 2))
    limit = config.run.move_time_limit

    def bare(clock: float | None) -> tuple[float, float]:
        started, cpu = time.perf_counter(), time.process_time()
        for seed in range(games):
            referee.play(game, rules, [random_bot(), random_bot()], seed, move_time_limit=clock)
        return games / (time.perf_counter() - started), (time.process_time() - cpu) / games

    def worker_cpu() -> float:  # the local worker's CPU seconds so far (utime + stime)
        fields = Path(f"/proc/{LocalWorker._idle.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def in_process() -> tuple[float, float]:
        started, cpu = time.perf_counter(), time.process_time()
        for start in range(0, games, config.run.batch_size):
            play_batch(config, start, min(games, start + config.run.batch_size))
        return games / (time.perf_counter() - started), (time.process_time() - cpu) / games

    results: dict[str, list[tuple[float, float]]] = {"bare referee": [], "bare referee + clock": [],
                                                      "batches in process": [], "tournament, 1 worker": []}
    with tempfile.TemporaryDirectory() as scratch:
        play_missing(parse_config(SPEEDUP.format(deals=500)), RunDir(Path(scratch) / "warm-up"), workers=1)
        for round_ in range(rounds):
            results["bare referee"].append(bare(None))
            results["bare referee + clock"].append(bare(limit))
            results["batches in process"].append(in_process())
            cpu = worker_cpu()
            report = play_missing(config, RunDir(Path(scratch) / f"run-{round_}"), workers=1)
            results["tournament, 1 worker"].append((report.total / report.play_seconds,
                                                    (worker_cpu() - cpu) / report.total))
    print(f"{games:,} Caterpillar games, random vs random, best of {rounds} alternating rounds (move clock {limit:g} "
          f"s, batches of {config.run.batch_size:,}); in brackets the range of each round's cost against that round's "
          "bare referee")
    print(f"{'':22} {'games/s':>9} {'CPU us/game':>12} {'layer, wall':>22} {'layer, CPU':>22}")
    bare_runs = results["bare referee"]
    for name, runs in results.items():
        rate, cpu = max(rate for rate, _ in runs), min(cpu for _, cpu in runs)
        # a cost is a ratio of rates less 1: the bare referee's games/s over these, games per CPU second likewise
        wall = ratio_and_range([b for b, _ in bare_runs], [r for r, _ in runs])
        cpu_cost = ratio_and_range([1 / b for _, b in bare_runs], [1 / c for _, c in runs])
        print(f"{name:22} {rate:9,.0f} {cpu * 1e6:12.1f} {_as_cost(wall):>22} {_as_cost(cpu_cost):>22}")
    print("(batches in process: play_batch alone, no worker, no parts; the tournament's CPU time is its worker "
          "process's, while the run's own process saves the parts on the other core)")


def _as_cost(ratio: tuple[float, float, float]) -> str:
    """A ratio_and_range as a cost and its range, e.g. +6.5% (+4.1% to +9.0%)."""
    best, low, high = ratio
    return f"{best - 1:+.1%} ({low - 1:+.1%} to {high - 1:+.1%})"


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
        manifest, _ = finish_and_report(config, run, report)
        wall = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{manifest['games']:,} games on {report.backend} ({report.workers} workers)")
    rate = manifest["games"] / manifest["play_seconds"]
    print(f"wall {wall:.1f} s: play {manifest['play_seconds']:.1f} s ({rate:,.0f} games/s), "
          f"load {manifest['load_seconds']:.1f} s, rating {manifest['rating_seconds']:.2f} s "
          f"= {100 * manifest['rating_seconds'] / wall:.1f}% of the wall time, "
          f"report {manifest['report_seconds']:.1f} s")
    print(f"driver peak memory: {peak_mb:,.0f} MB; digest {manifest['digest']}")


def peak_mb() -> float:
    """This process's peak resident memory since it started or since reset_peak (VmHWM), in MB."""
    return int(re.search(r"VmHWM:\s+(\d+) kB", Path("/proc/self/status").read_text())[1]) / 1024


def reset_peak() -> None:
    """Starts the high-water mark afresh from the current resident memory."""
    Path("/proc/self/clear_refs").write_text("5")


def measure(games: int) -> None:
    """Plays and finishes one random-vs-random run of `games` games on Ray with all cores; prints its figures
    as one JSON line."""
    config = parse_config(SPEEDUP.format(deals=games // 2).replace('name = "speedup"', 'name = "scale"'))
    with tempfile.TemporaryDirectory() as scratch:
        run = RunDir(Path(scratch) / config.name)
        report = play_missing(config, run)
        play_peak = peak_mb()
        reset_peak()
        started = time.perf_counter()
        finish_and_report(config, run, report)
        finish_seconds = time.perf_counter() - started
        finish_peak = peak_mb()
    print(json.dumps({"games": report.total, "workers": report.workers, "play_seconds": report.play_seconds,
                      "play_peak_mb": play_peak, "finish_seconds": finish_seconds, "finish_peak_mb": finish_peak}))


def scale(sizes: list[int]) -> None:
    """Measures each size in a fresh process; prints peak memory against games and its slope."""
    import numpy as np

    print("Caterpillar random vs random on Ray, all cores; the driver's peak resident memory")
    print(f"{'games':>12} {'play s':>8} {'play peak MB':>13} {'finish s':>9} {'finish peak MB':>15}")
    rows = []
    for games in sizes:
        done = subprocess.run([sys.executable, __file__, "measure", str(games)], capture_output=True, text=True)
        if done.returncode:
            sys.exit(f"the run of {games:,} games failed:\n{done.stderr}")
        row = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(f"{row['games']:>12,} {row['play_seconds']:>8.1f} {row['play_peak_mb']:>13.0f} "
              f"{row['finish_seconds']:>9.1f} {row['finish_peak_mb']:>15.0f}", flush=True)
    if len(rows) > 1:
        millions = np.array([row["games"] for row in rows]) / 1e6
        for phase in ("play", "finish"):
            slope = np.polyfit(millions, [row[f"{phase}_peak_mb"] for row in rows], 1)[0]
            print(f"{phase} peak: {slope:+.1f} MB per million games")


def main() -> None:
    """Runs the benchmark named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="which", required=True)
    layer_parser = sub.add_parser("layer")
    layer_parser.add_argument("--games", type=int, default=50_000)
    layer_parser.add_argument("--rounds", type=int, default=5)
    sub.add_parser("speedup").add_argument("--games", type=int, default=200_000)
    sub.add_parser("million")
    sub.add_parser("scale").add_argument("--games", default="300000,1000000,3000000",
                                         help="comma-separated run sizes")
    sub.add_parser("ten-million")
    sub.add_parser("measure").add_argument("games", type=int)  # one size, in the process `scale` starts
    args = parser.parse_args()
    if args.which == "layer":
        layer(args.games, args.rounds)
    elif args.which == "speedup":
        speedup(args.games)
    elif args.which == "million":
        million()
    elif args.which == "scale":
        scale([int(games) for games in args.games.split(",")])
    elif args.which == "ten-million":
        scale([1_000_000, 3_000_000, 10_000_000])
    else:
        measure(args.games)


if __name__ == "__main__":
    main()
