#!/usr/bin/env python3
"""Seconds and microseconds of the ratings: batch TrueSkill, the online engine, the trueskill package, the tables.

Random games among 20 bots (1,000,000 two-player and 100,000 six-player, ties included), each rated
by batch TrueSkill (`group_outcomes` then `rate_outcomes`: seconds, outcome groups, sweeps), by the
online engine `rate_games` (µs per game) and, on a small sample, by `trueskill.TrueSkill.rate` itself
(µs per game, the speed-up and the largest difference in mu and sigma from `rate_games`). Then the
whole rating tables (`rate_results`, with the deal bootstrap) of a synthetic results frame shaped like
configs/million.toml: 3 bots, 3 two-player tables x 170,000 deals x 2 rotations = 1,020,000 games,
with the seconds and the process's peak resident memory.

Then six-player Go For It against its play time. Synthetic duplicate results (every deal in its 6 rotations):
100,000 and 1,000,000 games among 20 bots (`--bots`), each deal at a random table of 6 of them, and a seven-bot
example (three copies of random), 7 bots at the 7 tables of 6 of them, 800 deals each (33,600 games). For each:
the batch rating alone (`group_outcomes` then `rate_outcomes`) and the whole tables (`rate_results`, with the
deal bootstrap; with `--part-games N`, `rate_parts` over parts of N games then `csv_frames`, as a run rates
itself from its saved parts), in CPU seconds, against the play time of as many games by random bots: a sample of
6-player Go For It games is played through the tournament's own `play_batch` on one core, and its CPU time per
game is scaled to the count and halved for a run on 2 workers. Target: the tables at most 10% of that play time.
CPU time, not wall time, on both sides: the machine is shared. First, the one-off cost of the compiled (numba)
kernels, each in a child process: compiling them (an empty cache) and loading them from the on-disk cache; they
are then loaded in this process before the cases, so that the cases' times are the rating's own. Last, the
process's peak resident memory so far (the cases run from the smallest frame to the largest, the example last).

`--only run` plays real tournaments of random bots instead (`RUNS`, through `arena.run` on Ray as `arena
tournament` plays them) and prints each run's own play and rating wall seconds from its manifest: the play
side there includes what a run really costs beyond the engine (Ray, writing the parts), which the CPU
estimate above leaves out.

    .venv/bin/python benchmarks/ratings.py [--scale 1.0] [--sample 2000] [--replicates 200]
        [--play-sample 2000] [--six-scale 1.0] [--tables-up-to 1000000] [--only six|run] [--part-games N]
        [--workers 2]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from itertools import combinations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from arena.ratings import RatingSettings, rate_games, rate_results
from arena.ratings.bootstrap import BOOTSTRAP_REPLICATES
from arena.ratings.offline import group_outcomes, rate_outcomes
from arena.ratings.tables import csv_frames, rate_parts
from arena.results import RATED_COLUMNS, SCHEMA, results_frame

CASES = [(2, 1_000_000), (6, 100_000)]
BOTS = 20
MILLION_BOTS = {"greedy": 3.0, "random": 0.0, "random-2": 0.0}
"""The bots of configs/million.toml and a skill (in score steps of five points) for the synthetic scores."""
MILLION_DEALS = 170_000
MILLION_DRAW_PROBABILITY = 0.02
SIX_PLAYER_GAMES = [100_000, 1_000_000]
"""Six-player games among BOTS, in deals of 6 rotations at random tables."""
EXAMPLE_BOTS = {"greedy": 3.0, "greedy-2": 3.0, "heuristic": 3.5, "heuristic-2": 3.5, "random": 0.0,
              "random-3": 0.0, "twin": 0.0}
"""The seven bots of the six-player example (three copies of random): 7 tables of 6, EXAMPLE_DEALS deals each."""
EXAMPLE_DEALS = 800
PLAY_WORKERS = 2
PLAY_CONFIG = """
name = "six-random"
seed = 1
[[games]]
game = "go_for_it"
deals = {deals}
rules = {{ players = 6 }}
""" + "".join(f'[[bots]]\nname = "random-{i}"\npath = "random"\n' for i in range(1, 7))


def random_games(players: int, games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random tables of `players` distinct bot codes among BOTS, and ranks from scores 0..3 so ties are common."""
    rng = np.random.default_rng(seed)
    seats = np.argsort(rng.random((games, BOTS)), axis=1)[:, :players]
    scores = rng.integers(0, 4, (games, players))
    ranks = (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    return seats, ranks


def package_rate(players: list[list[str]], ranks: list[list[int]], settings: RatingSettings) -> dict:
    """The same games rated by the package, one `env.rate` per game."""
    env = settings.env()
    ratings: dict = {}
    for names, rank in zip(players, ranks, strict=True):
        rated = env.rate([(ratings.get(name) or env.create_rating(),) for name in names], ranks=rank)
        for name, (rating,) in zip(names, rated, strict=True):
            ratings[name] = rating
    return ratings


def million_table(deals: int, seed: int = 1) -> pa.Table:
    """The rated columns of a results table shaped like configs/million.toml, in game-index order: the three
    pairs of its bots, every deal in both seat orders."""
    names = sorted(MILLION_BOTS)
    tables = np.repeat(np.array(list(combinations(range(len(names)), 2))), deals, axis=0)
    return duplicate_table(names, np.array([MILLION_BOTS[name] for name in names]), tables, "caterpillar", seed)


def duplicate_table(names: list[str], skill: np.ndarray, tables: np.ndarray, variant: str, seed: int = 1) -> pa.Table:
    """The rated columns of a results table of duplicate deals, in game-index order: one deal per row of
    `tables` (the bot codes of its seats in rotation 0), played in every rotation under one seed.

    Rotation r puts the table's bot (seat + r) % n in a seat. A seat's cards are the same in every rotation,
    so the score is a deal-and-seat luck shared by the rotations, the bot's skill and the game's noise,
    in steps of five points: the higher score wins, equal scores tie.
    """
    rng = np.random.default_rng(seed)
    units, n = tables.shape  # deals, each with its own seed
    games = units * n
    unit = np.repeat(np.arange(units), n)
    rotation = np.tile(np.arange(n), units)
    seats = tables[unit[:, None], (np.arange(n)[None, :] + rotation[:, None]) % n]
    luck = np.repeat(rng.normal(size=(units, n)), n, axis=0)
    raw = 20 + 6 * luck + skill[seats] + 4 * rng.normal(size=(games, n))
    scores = 5 * np.maximum(raw.round(), 0).astype(np.int64)
    ranks = (scores[:, None, :] > scores[:, :, None]).sum(axis=2).astype(np.int32)
    # the deal number within its table (rows of `tables` with the same bots)
    _, table_of = np.unique(np.sort(tables, axis=1), axis=0, return_inverse=True)
    table_of = table_of.reshape(-1)
    order = np.argsort(table_of, kind="stable")
    deal = np.empty(units, dtype=np.int64)
    deal[order] = np.arange(units) - np.searchsorted(table_of[order], table_of[order])
    # distinct 63-bit seeds, one per deal: an odd multiplier is a bijection modulo 2**64
    unit_seeds = (np.arange(1, units + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(1)
    offsets = pa.array(np.arange(0, n * games + 1, n, dtype=np.int32))
    columns = {
        "game_index": pa.array(np.arange(games, dtype=np.int64)),
        "variant": pc.take(pa.array([variant]), pa.array(np.zeros(games, dtype=np.int32))),
        "deal": pa.array(deal[unit].astype(np.int32)),
        "seed": pa.array(unit_seeds.astype(np.int64)[unit]),
        "players": pa.ListArray.from_arrays(offsets, pc.take(pa.array(names), pa.array(seats.reshape(-1)))),
        "scores": pa.ListArray.from_arrays(offsets, pa.array(scores.reshape(-1))),
        "ranks": pa.ListArray.from_arrays(offsets, pa.array(ranks.reshape(-1))),
        "termination": pc.take(pa.array(["normal"]), pa.array(np.zeros(games, dtype=np.int32))),
        "fault_seat": pa.nulls(games, pa.int32()),
    }
    schema = pa.schema([SCHEMA.field(name) for name in RATED_COLUMNS])
    return pa.Table.from_arrays([columns[name] for name in RATED_COLUMNS], schema=schema)


def six_player_tables(games: int, bots: int = BOTS, seed: int = 2) -> pa.Table:
    """Six-player results among `bots`: each deal at a random table of 6 (in a random seat order), 6 rotations."""
    rng = np.random.default_rng(seed)
    tables = np.argsort(rng.random((max(1, games // 6), bots)), axis=1)[:, :6]
    names = [f"bot-{i:03d}" for i in range(bots)]
    return duplicate_table(names, np.linspace(0, 4, bots), tables, "go_for_it", seed)


def example_tables() -> pa.Table:
    """The six-player example: 7 bots at the 7 tables that leave one out, EXAMPLE_DEALS deals of 6 rotations each."""
    names = list(EXAMPLE_BOTS)
    tables = np.array([[bot for bot in range(len(names)) if bot != out] for out in range(len(names))])
    return duplicate_table(names, np.array(list(EXAMPLE_BOTS.values())), np.repeat(tables, EXAMPLE_DEALS, axis=0),
                           "go_for_it")


def play_cpu_per_game(games: int) -> float:
    """CPU seconds per six-player Go For It game of random bots, played by `play_batch` in this process."""
    from arena.config import parse_config
    from arena.tournament.batch import play_batch

    config = parse_config(PLAY_CONFIG.format(deals=max(1, games // 6 + 1)))
    play_batch(config, 0, min(games, 60))  # warm-up: imports, the schedule
    started = time.process_time()
    play_batch(config, 0, games)
    return (time.process_time() - started) / games


JIT_CHILD = """
import sys, time
sys.path.insert(0, {folder!r})
from ratings import six_player_tables
from arena.ratings.tables import csv_frames, rate_parts
parts = [six_player_tables(3000)]
rate = lambda: csv_frames(rate_parts(parts, replicates=20))
started = time.process_time()
rate()
first = time.process_time()
rate()
print(2 * first - started - time.process_time())
"""


def jit_seconds() -> tuple[float, float]:
    """CPU seconds that a first rating in a fresh process takes beyond a second one, in a child process with an
    empty numba cache (the kernels compiled) and again with the cache it left (the kernels loaded from disk)."""
    import os
    import subprocess
    import tempfile
    from pathlib import Path

    code = JIT_CHILD.format(folder=str(Path(__file__).parent))
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        compiled, loaded = (float(subprocess.run([sys.executable, "-c", code], env=env, check=True, text=True,
                                                 capture_output=True).stdout) for _ in range(2))
    return compiled, loaded


def six_player(args) -> None:
    """Prints the six-player rating times against the play time of as many games."""
    compiled, loaded = jit_seconds()
    started = time.process_time()
    csv_frames(rate_parts([six_player_tables(3000)], replicates=args.replicates))  # the kernels, once a process
    print(f"compiled kernels (numba): {compiled:.2f} s CPU to compile on a first call after installation, "
          f"{loaded:.2f} s to load from the on-disk cache on a first call in a new process; loaded here "
          f"before the cases ({time.process_time() - started:.2f} s with a small rating)")
    per_game = play_cpu_per_game(args.play_sample)
    print(f"six-player Go For It, random bots, play_batch on one core: {per_game * 1e6:.0f} µs CPU per game "
          f"({args.play_sample:,} games played); play time below = games x that / {PLAY_WORKERS} workers")
    print(f"{'case':>26}{'games':>11}{'groups':>9}{'sweeps':>8}{'rating s':>10}{'tables s':>10}{'play s':>9}"
          f"{'rating/play':>13}{'tables/play':>13}{'peak MB':>9}")
    cases = [(f"{args.bots} bots, random tables", int(games * args.six_scale)) for games in SIX_PLAYER_GAMES]
    for name, games in [*cases, ("example: 7 bots, 7 tables", 0)]:
        table = six_player_tables(games, args.bots) if games else example_tables()
        games = table.num_rows
        frame = results_frame(table)
        players = np.array(table.column("players").combine_chunks().flatten().to_numpy(zero_copy_only=False))
        codes = np.unique(players, return_inverse=True)[1].reshape(games, 6)
        ranks = table.column("ranks").combine_chunks().flatten().to_numpy().reshape(games, 6)
        started = time.process_time()
        outcomes = group_outcomes(codes, ranks)
        batch = rate_outcomes(outcomes, int(codes.max()) + 1, RatingSettings())
        rating = time.process_time() - started
        tables = float("nan")
        if games <= args.tables_up_to:
            parts = [table.slice(first, args.part_games) for first in range(0, games, args.part_games or games)]
            started = time.process_time()
            if args.part_games:  # as a run rates itself: its parts one at a time, then the CSV frames
                csv_frames(rate_parts(parts, replicates=args.replicates))
            else:
                rate_results(frame, replicates=args.replicates)
            tables = time.process_time() - started
        play = games * per_game / PLAY_WORKERS
        print(f"{name:>26}{games:>11,}{len(outcomes.counts):>9,}{batch.sweeps:>8}{rating:>10.2f}{tables:>10.2f}"
              f"{play:>9.1f}{rating / play:>13.1%}{tables / play:>13.1%}{peak_rss_mb():>9,.0f}")
    how = f"rate_parts over parts of {args.part_games:,} games, then csv_frames" if args.part_games else "rate_results"
    print(f"(tables: {how}, with {args.replicates} deal-bootstrap replicates; target tables/play <= 10%)")


RUNS = [(10, 80), (20, 1), (20, 4)]
"""The real runs of `--only run`: (random bots, deals a table), every table of 6 of them in its 6 rotations:
10 bots at their 210 tables x 80 deals = 100,800 games; 20 bots at their 38,760 tables x 1 deal = 232,560, and
x 4 deals = 930,240 (about 3 minutes of play)."""


def real_runs(args) -> None:
    """Prints what real tournaments of random bots took to play and to rate, from their manifests."""
    import tempfile

    import arena

    print(f"real runs (arena.run, as `arena tournament`), six-player Go For It, random bots, {args.workers} workers:")
    print(f"{'bots':>5}{'deals':>6}{'games':>10}{'play s':>9}{'µs/game':>9}{'rating s':>10}{'rating/play':>13}")
    for bots, deals in RUNS:
        config = {"name": f"six-{bots}", "seed": 1,
                  "games": [{"game": "go_for_it", "deals": deals, "rules": {"players": 6}}],
                  "bots": [{"name": f"random-{i:02d}", "path": "random"} for i in range(1, bots + 1)]}
        with tempfile.TemporaryDirectory() as out:
            manifest = arena.run(config, workers=args.workers, out=out).manifest
        play, rating, games = manifest["play_seconds"], manifest["rating_seconds"], manifest["games"]
        print(f"{bots:>5}{deals:>6}{games:>10,}{play:>9.1f}{play / games * 1e6:>9.0f}{rating:>10.2f}"
              f"{rating / play:>13.1%}")
    print("(wall seconds from each run's manifest: play_seconds, and rating_seconds, the whole rating tables from "
          "the saved parts in the run's own process, numba's kernels loaded from the cache included; "
          "target rating/play <= 10%)")


LOOK_GAMES, LOOK_ROUND, LOOK_LAST = 1_000_002, 10_002, 1_191_996
"""`--only look`: a league's million six-player games (whole deals), then a round of about 10,000 more, then
games up to just below the next checkpoint (1,192,092 games), where a look updates the most games."""


def league_looks(args) -> None:
    """Prints what a matchmaker's look costs among `--bots` at a million six-player games, after a round of
    10,000 more and just before the next checkpoint, against fitting every game afresh, and how far the look
    after the round is from that fit."""
    from scipy.stats import kendalltau

    from arena.league.matchmaker import MATCHMAKER_REPLICATES
    from arena.ratings.looks import milestone, standings
    from arena.ratings.tables import RunningRatings

    games = six_player_tables(LOOK_LAST, args.bots)
    part = args.part_games or 2000
    running = RunningRatings(replicates=MATCHMAKER_REPLICATES, progress=False)
    added = 0

    def look(label: str, upto: int):
        nonlocal added
        for first in range(added, upto, part):
            running.add(games.slice(first, min(part, upto - first)))
        added = upto
        started, cpu = time.perf_counter(), time.process_time()
        standing = standings(running)["go_for_it"]
        print(f"{label:>40}: {time.perf_counter() - started:6.2f} s wall, {time.process_time() - cpu:6.2f} s CPU "
              f"({upto:,} games, {upto - milestone(upto):,} since the checkpoint at {milestone(upto):,})")
        return standing

    print(f"a league's looks: {args.bots} bots, six-player games, {MATCHMAKER_REPLICATES} replicates")
    look("first look (fits the checkpoint)", LOOK_GAMES)
    standing = look("look after a round of 10,002 games", LOOK_GAMES + LOOK_ROUND)
    started, cpu = time.perf_counter(), time.process_time()
    exact = rate_parts([games.slice(0, added)], replicates=MATCHMAKER_REPLICATES, progress=False)["go_for_it"]
    print(f"{'every game fitted afresh (the tables)':>40}: {time.perf_counter() - started:6.2f} s wall, "
          f"{time.process_time() - cpu:6.2f} s CPU")
    compare(standing, exact, kendalltau)
    look("look just before the next checkpoint", LOOK_LAST)


def compare(standing, exact, kendalltau) -> None:
    """How far a look is from the fresh fit of the same games."""
    table = exact.table.set_index("bot")
    mu = dict(zip(standing.bots, standing.mu, strict=True))
    worst = max(abs(mu[bot] - table.loc[bot, "mu"]) / table.loc[bot, "sigma"] for bot in table.index)
    place = [standing.bots.index(bot) for bot in exact.table["bot"]]
    pairs = np.triu_indices(len(place), 1)
    ratio = standing.difference_se[np.ix_(place, place)][pairs] / exact.difference_se[pairs]
    print(f"{'the look against it':>40}: Kendall tau of the orders {kendalltau(place, range(len(place)))[0]:.4f}, "
          f"largest |mu difference| {worst:.3f} sigma, difference errors x{ratio.min():.2f} to x{ratio.max():.2f}")


def peak_rss_mb() -> float:
    """The process's peak resident memory so far, in MB (ru_maxrss is kB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2 ** 20 if sys.platform == "darwin" else peak / 2 ** 10


def main() -> None:
    """Prints one line for the tables of the million-shaped frame, then one per player count."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the number of games and deals")
    parser.add_argument("--sample", type=int, default=2000, help="games rated by the package")
    parser.add_argument("--replicates", type=int, default=BOOTSTRAP_REPLICATES, help="deal-bootstrap replicates")
    parser.add_argument("--play-sample", type=int, default=2000, help="six-player games played to time play")
    parser.add_argument("--six-scale", type=float, default=1.0, help="multiplies the six-player games")
    parser.add_argument("--tables-up-to", type=int, default=1_000_000,
                        help="rate the whole tables of six-player cases up to this many games")
    parser.add_argument("--only", choices=["six", "run", "look"],
                        help="six: only the six-player cases against play time; run: only real runs of random bots; "
                             "look: a league's looks at a million six-player games (use --bots 100)")
    parser.add_argument("--workers", type=int, default=PLAY_WORKERS, help="workers of the real runs (--only run)")
    parser.add_argument("--bots", type=int, default=BOTS, help="bots of the six-player cases (a league's field: 100)")
    parser.add_argument("--part-games", type=int, default=0,
                        help="six-player tables from parts of this many games (rate_parts, csv_frames), as a run's")
    args = parser.parse_args()
    if args.only == "six":
        six_player(args)
        return
    if args.only == "run":
        real_runs(args)
        return
    if args.only == "look":
        league_looks(args)
        return

    # First, while the process is small, so that its peak memory is the tables' own.
    deals = max(1, int(MILLION_DEALS * args.scale))
    started = time.perf_counter()
    frame = results_frame(million_table(deals))
    built = time.perf_counter() - started
    before = peak_rss_mb()
    started = time.perf_counter()
    rated = rate_results(frame, RatingSettings(draw_probability=MILLION_DRAW_PROBABILITY),
                         replicates=args.replicates)
    seconds = time.perf_counter() - started
    order = " > ".join(rated["caterpillar"].table["bot"])
    print(f"rate_results: {len(frame):,} games, {3 * deals:,} deals, {args.replicates} replicates: {seconds:.1f} s "
          f"(frame built in {built:.1f} s), peak RSS {peak_rss_mb():,.0f} MB ({before:,.0f} MB before rating); "
          f"{order}")
    del frame, rated

    settings = RatingSettings()
    print(f"{'players':>7}{'games':>11}{'groups':>9}{'sweeps':>8}{'batch s':>9}{'online µs/game':>16}"
          f"{'package µs/game':>17}{'speed-up':>10}{'max |Δ|':>11}")
    names = np.array([f"bot-{i:02d}" for i in range(BOTS)], dtype=object)
    for players, games in CASES:
        games = max(1, int(games * args.scale))
        codes, ranks = random_games(players, games, seed=players)
        started = time.perf_counter()
        outcomes = group_outcomes(codes, ranks)
        batch = rate_outcomes(outcomes, BOTS, settings)
        batch_seconds = time.perf_counter() - started
        seated, ranked = names[codes].tolist(), ranks.tolist()
        started = time.perf_counter()
        rate_games(seated, ranked, settings)
        ours = (time.perf_counter() - started) / games * 1e6
        sample = min(args.sample, games)
        started = time.perf_counter()
        reference = package_rate(seated[:sample], ranked[:sample], settings)
        theirs = (time.perf_counter() - started) / sample * 1e6
        check = rate_games(seated[:sample], ranked[:sample], settings)
        error = max(max(abs(reference[bot].mu - mu), abs(reference[bot].sigma - sigma))
                    for bot, mu, sigma in zip(check.bots, check.mu, check.sigma, strict=True))
        print(f"{players:>7}{games:>11,}{len(outcomes.counts):>9,}{batch.sweeps:>8}{batch_seconds:>9.2f}"
              f"{ours:>16.2f}{theirs:>17.1f}{theirs / ours:>9.0f}×{error:>11.1e}")
    print()
    six_player(args)


if __name__ == "__main__":
    main()
