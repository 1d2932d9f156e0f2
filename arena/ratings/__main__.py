"""`python -m arena.ratings`: compiles the ratings' kernels (arena/ratings/kernels.py) into numba's on-disk cache,
so that no run pays for it (about 11 s of CPU with an empty cache, by `time python -m arena.ratings`; once after
installation: `make install` runs it). Each kernel is reached through the function the tables call it from, on a
few made-up six-player games, so that it is compiled for the very argument types a run passes it
(tests/test_ratings.py checks that a run compiles nothing more)."""

from __future__ import annotations

import numpy as np

from arena.config import RatingSettings
from arena.ratings import kernels
from arena.ratings.deals import ClusteredMean
from arena.ratings.offline import group_outcomes, newton_terms, rate_outcomes


def warm() -> None:
    rng = np.random.default_rng(1)
    bots = np.argsort(rng.random((12, 8)), axis=1)[:, :6].copy()  # 12 games of 6 of 8 bots, no ties
    outcomes = group_outcomes(bots, np.argsort(rng.random((12, 6)), axis=1))
    settings = RatingSettings()
    fit = rate_outcomes(outcomes, 8, settings)
    parallel = kernels.PARALLEL_FACTORS
    kernels.PARALLEL_FACTORS = 0  # the parallel sweep too, which only large fits reach
    try:
        rate_outcomes(outcomes, 8, settings)
    finally:
        kernels.PARALLEL_FACTORS = parallel
    newton_terms(outcomes, 8, settings, fit)
    ClusteredMean().add(rng.random(12), np.arange(12) % 3, np.arange(12) // 6)
    # and the two kernels no run calls: tests/test_ratings.py checks the sweep against them
    kernels.truncated_moments(rng.normal(size=6), np.full(6, np.inf))
    pi, half = rng.random((3, 4)) + 0.1, np.zeros((3, 3))
    kernels.chain_messages(pi, pi.copy(), half.copy(), half.copy(), half > 0, 4.1 ** 2, 0.6)


if __name__ == "__main__":
    warm()
