"""The expert bot (bots/expert.py) and the normalized-Elo bounds of `arena match --sprt-model nelo`."""

import math

import numpy as np
import pytest

from arena.config import SprtSettings
from arena.stopping import NELO_SCALE, simulate_sprt, sprt_llr

PENTA_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
"""A two-player deal's score by its pentanomial outcome (0 to 2 points of the pair, halved)."""


def fastchess_nelo_llr(penta, nelo0, nelo1):
    """fastchess's pentanomial LLR with normalized bounds, written out from its definition: per-pair
    variance var, score_i = nelo_i sqrt(2 var) / (800 / ln 10) + 1/2, LLR = N (s1 - s0)(2 s - s0 - s1) / (2 var)."""
    counts = np.asarray(penta, dtype=float)
    total = counts.sum()
    probs = counts / total
    score = (probs * PENTA_SCORES).sum()
    var = (probs * (PENTA_SCORES - score) ** 2).sum()
    s0, s1 = (nelo * math.sqrt(2 * var) / (800 / math.log(10)) + 0.5 for nelo in (nelo0, nelo1))
    return total * (s1 - s0) * (2 * score - s0 - s1) / (2 * var)


@pytest.mark.parametrize("penta", [(10, 40, 100, 60, 20), (0, 5, 300, 30, 1), (50, 50, 20, 60, 70)])
def test_nelo_llr_is_fastchess_pentanomial_formula(penta):
    """The same LLR as fastchess's normalized model from the same deal pairs (its pseudo-counts aside)."""
    scores = np.repeat(PENTA_SCORES, penta)
    llr = sprt_llr(len(scores), scores.sum(), (scores ** 2).sum(), 0.0, 10.0, "nelo")
    assert llr == pytest.approx(fastchess_nelo_llr(penta, 0.0, 10.0), rel=1e-3)


def test_nelo_llr_known_value():
    """A hand-worked case: 100 deals, 60 scoring 1 and 40 scoring 0 (mean 0.6, variance 0.24); nelo bounds
    0 and 10 give s0 = 0.5, s1 = 0.5 + 10 sqrt(0.48) / 347.436 = 0.519941, so LLR = 100 * 0.019941 *
    (1.2 - 1.019941) / 0.48 = 0.748."""
    scores = np.array([1.0] * 60 + [0.0] * 40)
    llr = sprt_llr(100, scores.sum(), (scores ** 2).sum(), 0.0, 10.0, "nelo")
    assert NELO_SCALE == pytest.approx(347.4355855)
    assert llr == pytest.approx(0.748, abs=0.001)


def nelo_deals(nelo, draw_share):
    """Deal scores with a true normalized Elo `nelo`: pentanomial outcomes with `draw_share` of 1/2 and the
    rest split between 1/4 and 3/4, shifted until (mean - 1/2) / (sd sqrt 2) * NELO_SCALE = nelo."""
    values = np.array([0.25, 0.5, 0.75])

    def moments(shift):
        p = np.array([(1 - draw_share) / 2 - shift, draw_share, (1 - draw_share) / 2 + shift])
        mean = (p * values).sum()
        return p, (mean - 0.5) / math.sqrt(2 * (p * (values - mean) ** 2).sum()) * NELO_SCALE

    low, high = 0.0, (1 - draw_share) / 2
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if moments(middle)[1] < nelo else (low, middle)
    p = moments(low)[0]
    return lambda rng, shape: rng.choice(values, size=shape, p=p)


@pytest.mark.parametrize("draw_share", [0.2, 0.8])
def test_nelo_sprt_error_rates_in_simulation(draw_share):
    """Simulated matches whose truth is nelo0 accept H1 about alpha of the time, at nelo1 H0 about beta,
    whatever the share of drawn deal pairs (what the normalized model is for)."""
    runs = 1500
    sprt = SprtSettings(("a", "b"), 0.0, 10.0, 0.05, 0.05, "nelo")
    rng = np.random.default_rng(31)
    verdict, _ = simulate_sprt(nelo_deals(0.0, draw_share), runs, sprt, 200_000, 10, rng)
    false_h1 = (verdict == 1).mean()
    verdict, _ = simulate_sprt(nelo_deals(10.0, draw_share), runs, sprt, 200_000, 10, rng)
    false_h0 = (verdict == -1).mean()
    se = math.sqrt(0.05 * 0.95 / runs)
    assert 0.02 <= false_h1 <= 0.05 + 3 * se, false_h1
    assert 0.02 <= false_h0 <= 0.05 + 3 * se, false_h0
