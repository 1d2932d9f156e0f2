"""Microseconds per rated game: `arena.ratings` against the trueskill 0.4.5 package itself.

Rates 1,000,000 random two-player games and 100,000 four- and six-player games (ties included)
with `arena.ratings.rate_games`, and a small sample of each with `trueskill.TrueSkill.rate`, then
prints both costs per game, the speed-up and the largest difference in mu and sigma on the sample.

    .venv/bin/python benchmarks/ratings.py [--scale 1.0] [--sample 2000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from arena.ratings import RatingSettings, rate_games

CASES = [(2, 1_000_000), (4, 100_000), (6, 100_000)]
BOTS = 20


def random_games(players: int, games: int, seed: int) -> tuple[list[list[str]], list[list[int]]]:
    """Random tables of `players` distinct bots among BOTS, scores 0..3 so ties are common."""
    rng = np.random.default_rng(seed)
    names = np.array([f"bot-{i:02d}" for i in range(BOTS)], dtype=object)
    seats = np.argsort(rng.random((games, BOTS)), axis=1)[:, :players]
    scores = rng.integers(0, 4, (games, players))
    ranks = (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    return names[seats].tolist(), ranks.tolist()


def package_rate(players: list[list[str]], ranks: list[list[int]], settings: RatingSettings) -> dict:
    """The same games rated by the package, one `env.rate` per game."""
    env = settings.env()
    ratings: dict = {}
    for names, rank in zip(players, ranks, strict=True):
        rated = env.rate([(ratings.get(name) or env.create_rating(),) for name in names], ranks=rank)
        for name, (rating,) in zip(names, rated, strict=True):
            ratings[name] = rating
    return ratings


def main() -> None:
    """Prints one line per player count."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the number of games")
    parser.add_argument("--sample", type=int, default=2000, help="games rated by the package")
    args = parser.parse_args()
    settings = RatingSettings()
    print(f"{'players':>7}{'games':>11}{'arena µs/game':>15}{'package µs/game':>17}{'speed-up':>10}{'max |Δ|':>11}")
    for players, games in CASES:
        games = max(1, int(games * args.scale))
        names, ranks = random_games(players, games, seed=players)
        started = time.perf_counter()
        rate_games(names, ranks, settings)
        ours = (time.perf_counter() - started) / games * 1e6
        sample = min(args.sample, games)
        started = time.perf_counter()
        reference = package_rate(names[:sample], ranks[:sample], settings)
        theirs = (time.perf_counter() - started) / sample * 1e6
        check = rate_games(names[:sample], ranks[:sample], settings)
        error = max(max(abs(reference[bot].mu - mu), abs(reference[bot].sigma - sigma))
                    for bot, mu, sigma in zip(check.bots, check.mu, check.sigma, strict=True))
        print(f"{players:>7}{games:>11,}{ours:>15.2f}{theirs:>17.1f}{theirs / ours:>9.0f}×{error:>11.1e}")


if __name__ == "__main__":
    main()
