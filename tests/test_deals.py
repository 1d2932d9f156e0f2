"""arena.ratings.deals: deal-clustered intervals on hand-computed cases, running sums fed in chunks, the Poisson
bootstrap's weights, simulations and a large run."""

from __future__ import annotations

import math
import time
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from arena.ratings import deals
from arena.ratings.deals import (
    Z95,
    ClusteredMean,
    PairedDifference,
    Pentanomial,
    clustered_mean,
    paired_difference,
    pentanomial,
    poisson_weights,
)

T2 = special.stdtrit(2, 0.975)  # t quantile (scipy.stats would add about 1 CPU-second to every test process)


def wilson(p: float | np.ndarray, n: float | np.ndarray) -> tuple:
    """Textbook Wilson score interval of a proportion p out of n."""
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * np.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return centre - half, centre + half


def sorted_cells():
    """Forces the sorting path of the (group, deal) cells, which large inputs take."""
    return mock.patch.multiple(deals, _DENSE_MIN=0, _DENSE_CELLS_PER_ENTRY=0)


# --- known small cases -----------------------------------------------------------------------------

def test_clustered_mean_of_known_deals():
    # group 0: deals 0, 1, 2 score (1, 0), (1, 1), (0, 0); group 1: one deal; group 2: nothing;
    # group 3 shares deal 0 with group 0, which must not change group 0's figures
    values = [1, 0, 1, 1, 0, 0, 1, 1, 5]
    group = [0, 0, 0, 0, 0, 0, 1, 1, 3]
    cluster = [0, 0, 1, 1, 2, 2, 7, 7, 0]
    r = clustered_mean(values, group, cluster, 4)
    assert r["n"].tolist() == [6, 2, 0, 1]
    assert r["units"].tolist() == [3, 1, 0, 1]
    np.testing.assert_allclose(r["mean"], [0.5, 1, np.nan, 5])
    # Y_c - mean * N_c = 0, 1, -1: var = 3/2 * 2 / 6^2 = 1/12
    se = math.sqrt(1 / 12)
    np.testing.assert_allclose(r["se"], [se, np.nan, np.nan, np.nan])
    np.testing.assert_allclose(r["lo"], [0.5 - T2 * se, np.nan, np.nan, np.nan])
    np.testing.assert_allclose(r["hi"], [0.5 + T2 * se, np.nan, np.nan, np.nan])


def test_clustered_proportion_uses_the_effective_sample_size():
    values = [1, 0, 1, 1, 0, 0, 1, 1, 1]
    group = [0, 0, 0, 0, 0, 0, 1, 1, 3]
    cluster = [0, 0, 1, 1, 2, 2, 7, 7, 0]
    r = clustered_mean(values, group, cluster, 4, proportion=True)
    # group 0: n_eff = 0.25 / (1/12) = 3 deals' worth out of 6 games; groups 1 and 3: win rate 1, n_eff = 1 deal
    np.testing.assert_allclose([r["lo"][0], r["hi"][0]], wilson(0.5, 3))
    np.testing.assert_allclose([r["lo"][1], r["hi"][1]], [wilson(1.0, 1)[0], 1])
    np.testing.assert_allclose([r["lo"][3], r["hi"][3]], [wilson(1.0, 1)[0], 1])
    assert np.isnan(r["lo"][2]) and np.isnan(r["hi"][2]) and np.isnan(r["mean"][2])


def test_clustered_proportion_counts_what_duplicate_deals_cancel_and_falls_back_to_deals():
    # anti-correlated deals (a win and a loss each) but for two: n_eff = 0.25 / (6/5 * 2/144) = 15 > 12 games
    paired = clustered_mean([1, 0] * 4 + [1, 1, 0, 0], [0] * 12, np.repeat(np.arange(6), 2), 1, proportion=True)
    np.testing.assert_allclose([paired["lo"][0], paired["hi"][0]], wilson(0.5, 15))
    # every deal a win and a loss: se is 0, so the interval counts the 3 deals, not the 6 games
    flat = clustered_mean([1, 0] * 3, [0] * 6, [4, 4, 9, 9, 2, 2], 1, proportion=True)
    assert flat["se"][0] == 0
    np.testing.assert_allclose([flat["lo"][0], flat["hi"][0]], wilson(0.5, 3))
    # all losses: n_eff is the number of deals
    zero = clustered_mean([0] * 6, [0] * 6, [1, 1, 2, 2, 3, 3], 1, proportion=True)
    np.testing.assert_allclose([zero["lo"][0], zero["hi"][0]], [0, wilson(0.0, 3)[1]], atol=1e-15)


def test_clustered_mean_refuses_bad_input():
    with pytest.raises(ValueError, match="group"):
        clustered_mean([1.0], [2], [0], 2)
    with pytest.raises(TypeError):
        clustered_mean([1.0], [0.5], [0], 2)
    with pytest.raises(ValueError, match="length"):
        clustered_mean([1.0, 2.0], [0, 0], [0], 2)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        clustered_mean([1.5], [0], [0], 1, proportion=True)


def test_empty_input_gives_empty_groups():
    r = clustered_mean([], [], [], 2, proportion=True)
    assert r["n"].tolist() == [0, 0] and r["units"].tolist() == [0, 0]
    assert np.isnan(r["mean"]).all() and np.isnan(r["lo"]).all()
    p = pentanomial([], [], [], 1)
    assert p["deals"].tolist() == [0] and np.isnan(p["score"]).all()
    d = paired_difference([], [], [], 1)
    assert d["deals"].tolist() == [0] and np.isnan(d["mean"]).all()


def test_large_and_sparse_deal_codes_change_nothing():
    rng = np.random.default_rng(5)
    group = rng.integers(0, 3, 300)
    cluster = rng.integers(0, 40, 300)
    values = rng.normal(size=300) + cluster % 3
    plain = clustered_mean(values, group, cluster, 3)
    for codes in (cluster * 10**12 + 7, cluster * 25_000, 39 - cluster, cluster - 20):
        other = clustered_mean(values, group, codes, 3)
        for key in plain:
            np.testing.assert_allclose(other[key], plain[key], rtol=1e-12)


def test_large_scores_keep_their_precision():
    rng = np.random.default_rng(6)
    cluster = np.repeat(np.arange(200), 3)
    values = rng.normal(size=600) + rng.normal(size=200)[cluster]
    small = clustered_mean(values, np.zeros(600, np.int64), cluster, 1)
    large = clustered_mean(values + 1e9, np.zeros(600, np.int64), cluster, 1)
    np.testing.assert_allclose(large["se"], small["se"], rtol=1e-6)
    np.testing.assert_allclose(large["mean"] - 1e9, small["mean"], atol=1e-6)


def test_pentanomial_counts_hand_made_deals():
    games = [  # (points, pairing, deal)
        (1, 0, 10), (1, 0, 10),  # 2 points
        (1, 0, 11), (0, 0, 11),  # 1
        (0.5, 0, 12), (0.5, 0, 12),  # 1
        (0.5, 0, 13), (1, 0, 13),  # 1.5
        (0, 0, 14), (0, 0, 14),  # 0
        (0, 0, 15), (0.5, 0, 15),  # 0.5
        (1, 0, 16),  # one game only
        (1, 0, 17), (0, 0, 17), (1, 0, 17),  # three games
        (1, 1, 10), (1, 1, 10),  # pairing 1 plays deal 10 too: one complete pair
        (1, 3, 1), (1, 3, 1), (1, 3, 2), (1, 3, 2), (1, 3, 3), (0.5, 3, 3),  # near 1: clipped
    ]
    points, pairing, deal = (np.array(column) for column in zip(*games, strict=True))
    order = np.random.default_rng(1).permutation(len(points))  # games of a deal need not be adjacent
    r = pentanomial(points[order], pairing[order], deal[order], 4)
    with sorted_cells():
        by_sort = pentanomial(points, pairing, deal, 4)
    for key in r:
        np.testing.assert_array_equal(by_sort[key], r[key])
    assert r["deals"].tolist() == [6, 1, 0, 3]
    assert [r[key][0] for key in ("p0", "p05", "p1", "p15", "p2")] == [1, 1, 2, 1, 1]
    assert [r[key][3] for key in ("p0", "p05", "p1", "p15", "p2")] == [0, 0, 0, 1, 2]
    assert r["incomplete"].tolist() == [2, 0, 0, 0]
    np.testing.assert_allclose(r["score"], [0.5, 1, np.nan, 11 / 12])
    pair_scores = np.array([1, 0.5, 0.5, 0.75, 0, 0.25])
    half = Z95 * math.sqrt(np.var(pair_scores, ddof=1) / 6)
    np.testing.assert_allclose(r["score_lo"], [0.5 - half, np.nan, np.nan, 11 / 12 - Z95 * math.sqrt(1 / 48 / 3)])
    np.testing.assert_allclose(r["score_hi"], [0.5 + half, np.nan, np.nan, 1])
    with pytest.raises(ValueError, match="points"):
        pentanomial([0.25, 1], [0, 0], [0, 0], 1)


def test_paired_difference_of_known_deals():
    # pairing 0: deals averaging 1, 2 (a single game) and -1/3; pairing 1: one deal; pairing 2: none
    diff = [3, -1, 2, 0, -2, 1, 4, 6]
    pairing = [0, 0, 0, 0, 0, 0, 1, 1]
    deal = [5, 5, 8, 9, 9, 9, 5, 5]
    r = paired_difference(diff, pairing, deal, 3)
    per_deal = np.array([1, 2, -1 / 3])
    assert r["deals"].tolist() == [3, 1, 0]
    np.testing.assert_allclose(r["mean"], [per_deal.mean(), 5, np.nan])
    sd = np.std(per_deal, ddof=1)
    np.testing.assert_allclose(r["sd"], [sd, np.nan, np.nan])
    np.testing.assert_allclose(r["lo"], [per_deal.mean() - T2 * sd / math.sqrt(3), np.nan, np.nan])
    np.testing.assert_allclose(r["hi"], [per_deal.mean() + T2 * sd / math.sqrt(3), np.nan, np.nan])


# --- against a plain implementation, cell by cell --------------------------------------------------

def reference(values, group, cluster, n_groups):
    """clustered_mean (means) and paired_difference written out deal by deal."""
    mean, se, dmean, dsd = (np.full(n_groups, np.nan) for _ in range(4))
    for g in range(n_groups):
        mine = group == g
        if not mine.any():
            continue
        y, c = values[mine], cluster[mine]
        mean[g] = y.mean()
        codes = np.unique(c)
        devs = np.array([y[c == code].sum() - mean[g] * (c == code).sum() for code in codes])
        per_deal = np.array([y[c == code].mean() for code in codes])
        dmean[g] = per_deal.mean()
        if len(codes) > 1:
            se[g] = math.sqrt(len(codes) / (len(codes) - 1) * (devs**2).sum()) / mine.sum()
            dsd[g] = per_deal.std(ddof=1)
    return mean, se, dmean, dsd


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from([0, 1, 2, 7, 10**6, 10**12]), st.integers(-3, 3)),
                max_size=40))
def test_both_cell_paths_match_a_plain_implementation(entries):
    table = np.array(entries, dtype=np.int64).reshape(-1, 3)
    group, cluster, values = table[:, 0], table[:, 1], table[:, 2].astype(np.float64)
    mean, se, dmean, dsd = reference(values, group, cluster, 3)
    dense = clustered_mean(values, group, cluster, 3), paired_difference(values, group, cluster, 3)
    with sorted_cells():
        by_sort = clustered_mean(values, group, cluster, 3), paired_difference(values, group, cluster, 3)
    for means, diffs in (dense, by_sort):
        np.testing.assert_allclose(means["mean"], mean, atol=1e-12)
        np.testing.assert_allclose(means["se"], se, atol=1e-12)
        np.testing.assert_allclose(diffs["mean"], dmean, atol=1e-12)
        np.testing.assert_allclose(diffs["sd"], dsd, atol=1e-12)


# --- the clustered standard error against a cluster bootstrap --------------------------------------

def test_clustered_se_matches_a_cluster_bootstrap():
    rng = np.random.default_rng(11)
    n_deals = 300
    sizes = rng.integers(2, 5, n_deals)  # 2 to 4 games per deal
    cluster = np.repeat(np.arange(n_deals), sizes)
    deal_effect = rng.normal(0, 2, n_deals)  # strong: games of a deal move together
    values = 10 + deal_effect[cluster] + rng.normal(0, 1, len(cluster))
    clustered = clustered_mean(values, np.zeros(len(values), np.int64), cluster, 1)["se"][0]

    y, n = np.bincount(cluster, weights=values), np.bincount(cluster)
    draws = rng.integers(0, n_deals, (2000, n_deals))  # whole deals, with replacement
    boot = (y[draws].sum(axis=1) / n[draws].sum(axis=1)).std(ddof=1)
    assert clustered == pytest.approx(boot, rel=0.1)
    weights = poisson_weights(np.arange(n_deals), 2000, seed=3).T.astype(np.float64)  # the module's bootstrap
    assert clustered == pytest.approx((weights @ y / (weights @ n)).std(ddof=1), rel=0.1)

    naive = values.std(ddof=1) / math.sqrt(len(values))
    assert naive < 0.7 * clustered


# --- coverage on simulated tournaments with known truth ---------------------------------------------

RUNS, DEALS = 1000, 100
RUN = np.repeat(np.arange(RUNS), 2 * DEALS)  # each simulated run is one group: one call rates them all
DEAL = np.repeat(np.arange(RUNS * DEALS), 2)  # every deal played twice, seats swapped


def coverage(lo, hi, truth) -> float:
    """Share of the intervals holding the truth."""
    return float(np.mean((lo <= truth) & (truth <= hi)))


def deal_win_probabilities(rng, p: float) -> np.ndarray:
    """Per run and deal, the bot's win probability: mean p, half the variance between deals (Beta, a + b = 1)."""
    return rng.beta(p, 1 - p, (RUNS, DEALS, 1))


def test_clustered_win_rate_covers_the_truth():
    rng = np.random.default_rng(2024)
    p = 0.6
    wins = (rng.random((RUNS, DEALS, 2)) < deal_win_probabilities(rng, p)).astype(np.float64)
    r = clustered_mean(wins.ravel(), RUN, DEAL, RUNS, proportion=True)
    clustered = coverage(r["lo"], r["hi"], p)
    assert 0.93 <= clustered <= 0.97
    naive = coverage(*wilson(wins.reshape(RUNS, -1).mean(axis=1), 2 * DEALS), p)
    assert naive < 0.92 and naive < clustered - 0.03

    means = clustered_mean(wins.ravel(), RUN, DEAL, RUNS)  # the t interval on the same data
    assert 0.93 <= coverage(means["lo"], means["hi"], p) <= 0.97


def naive_normal(points: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Interval of each run's mean counting its games as independent."""
    mean = points.mean(axis=1)
    half = z * points.std(axis=1, ddof=1) / math.sqrt(points.shape[1])
    return mean - half, mean + half


def test_pentanomial_score_covers_the_truth():
    rng = np.random.default_rng(2025)
    p, draws = 0.6, 0.2
    win = rng.random((RUNS, DEALS, 2)) < deal_win_probabilities(rng, p)
    points = np.where(rng.random((RUNS, DEALS, 2)) < draws, 0.5, win.astype(np.float64))
    truth = draws / 2 + (1 - draws) * p
    r = pentanomial(points.ravel(), RUN, DEAL, RUNS)
    assert (r["deals"] == DEALS).all() and (r["incomplete"] == 0).all()
    clustered = coverage(r["score_lo"], r["score_hi"], truth)
    assert 0.93 <= clustered <= 0.97
    naive = coverage(*naive_normal(points.reshape(RUNS, -1), Z95), truth)
    assert naive < 0.93 and naive < clustered - 0.025


def test_pentanomial_is_narrower_when_the_cards_favour_a_seat():
    # the deal's luck goes to a seat, so it helps the bot in one game of the pair and hurts it in the other
    rng = np.random.default_rng(2026)
    luck = rng.uniform(-0.45, 0.45, (RUNS, DEALS, 1)) * np.array([1, -1])
    points = (rng.random((RUNS, DEALS, 2)) < 0.5 + luck).astype(np.float64)
    r = pentanomial(points.ravel(), RUN, DEAL, RUNS)
    lo, hi = naive_normal(points.reshape(RUNS, -1), Z95)
    assert np.mean(r["score_hi"] - r["score_lo"]) < 0.9 * np.mean(hi - lo)  # sqrt(1 - 0.45**2 / 0.75) = 0.85
    assert coverage(r["score_lo"], r["score_hi"], 0.5) >= 0.93


def test_paired_difference_covers_the_truth():
    rng = np.random.default_rng(2027)
    truth = 1.5
    deal_effect = rng.normal(0, 2, (RUNS, DEALS, 1))  # the deal suits one bot in both games
    seat_luck = rng.normal(0, 1, (RUNS, DEALS, 1)) * np.array([1, -1])  # cancels when the seats swap
    diff = truth + deal_effect + seat_luck + rng.normal(0, 1, (RUNS, DEALS, 2))
    r = paired_difference(diff.ravel(), RUN, DEAL, RUNS)
    assert (r["deals"] == DEALS).all()
    clustered = coverage(r["lo"], r["hi"], truth)
    assert 0.93 <= clustered <= 0.97
    naive = coverage(*naive_normal(diff.reshape(RUNS, -1), special.stdtrit(2 * DEALS - 1, 0.975)), truth)
    assert naive < 0.92 and naive < clustered - 0.03


# --- running sums fed in chunks --------------------------------------------------------------------

def test_running_sums_fed_in_chunks_equal_the_whole():
    """Deals cut into chunks anywhere between deals (groups appearing late, large scores) sum to the same."""
    rng = np.random.default_rng(12)
    n_deals = 400
    sizes = rng.integers(1, 4, n_deals)
    deal = np.repeat(np.arange(n_deals) * 7 + 3, sizes)
    group = rng.integers(0, 3, len(deal)) + np.where(np.arange(len(deal)) > len(deal) // 2, 2, 0)  # 3, 4 come late
    values = 1e6 + rng.normal(0, 5, n_deals)[np.repeat(np.arange(n_deals), sizes)] + rng.normal(size=len(deal))
    points = rng.choice([0, 0.5, 1], len(deal))
    whole = clustered_mean(values, group, deal, 5), pentanomial(points, group, deal, 5), \
        paired_difference(values, group, deal, 5)
    starts = np.flatnonzero(np.r_[True, deal[1:] != deal[:-1]])
    cuts = [0, *np.sort(rng.choice(starts[1:], 30, replace=False)).tolist(), len(deal)]
    sums = ClusteredMean(), Pentanomial(), PairedDifference()
    for a, b in zip(cuts, cuts[1:], strict=False):
        sums[0].add(values[a:b], group[a:b], deal[a:b])
        sums[1].add(points[a:b], group[a:b], deal[a:b])
        sums[2].add(values[a:b], group[a:b], deal[a:b])
    for expected, found in zip(whole, (s.take(np.arange(5)).result() for s in sums), strict=True):
        for key in expected:
            np.testing.assert_allclose(found[key], expected[key], rtol=1e-9, err_msg=key)


def test_taken_pairings_can_be_seen_from_the_other_bot():
    points, diff = np.array([1, 0.5, 1, 0, 0, 0]), np.array([3.0, -1.0, 2.0, 5.0, -4.0, 0.0])
    pairing, deal = np.array([0, 0, 0, 0, 1, 1]), np.array([1, 1, 2, 2, 3, 3])
    flipped = Pentanomial().add(points, pairing, deal).take([0, 1, 7], flip=[True, False, False]).result()
    mirror = pentanomial(1 - points[:4], pairing[:4], deal[:4], 1)
    for key in ("p0", "p05", "p1", "p15", "p2", "score", "score_lo", "score_hi"):
        np.testing.assert_allclose(flipped[key][:1], mirror[key], err_msg=key)
    assert flipped["deals"].tolist() == [2, 1, 0]  # code 7 was never added: an empty pairing
    margin = PairedDifference().add(diff, pairing, deal).take([0], flip=[True]).result()
    np.testing.assert_allclose(margin["mean"], paired_difference(-diff[:4], pairing[:4], deal[:4], 1)["mean"])


# --- Poisson bootstrap weights ------------------------------------------------------------------------

def test_poisson_weights_are_reproducible_and_independent_of_order_and_chunking():
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 2**62, 1000)
    weights = poisson_weights(keys, 23, seed=7)
    assert weights.dtype == np.uint8 and weights.shape == (1000, 23)
    np.testing.assert_array_equal(weights, poisson_weights(keys, 23, seed=7))
    order = rng.permutation(1000)  # a deal's weights are its own, wherever it comes
    np.testing.assert_array_equal(poisson_weights(keys[order], 23, seed=7), weights[order])
    pieces = np.split(keys, [1, 7, 400])
    np.testing.assert_array_equal(np.concatenate([poisson_weights(p, 23, seed=7) for p in pieces]), weights)
    # more replicates start with the same ones; another seed draws others
    np.testing.assert_array_equal(poisson_weights(keys, 40, seed=7)[:, :23], weights)
    assert not np.array_equal(poisson_weights(keys, 23, seed=8), weights)
    assert len({column.tobytes() for column in weights.T}) == 23
    assert poisson_weights([], 3, seed=1).shape == (0, 3)
    assert poisson_weights([5], 0, seed=1).shape == (1, 0)


def test_poisson_weights_are_poisson_one_and_independent():
    weights = poisson_weights(np.arange(200_000), 50, seed=1)  # consecutive keys: the hash must mix them apart
    pmf = np.array([math.exp(-1) / math.factorial(k) for k in range(7)])
    share = np.bincount(weights.ravel(), minlength=7)[:7] / weights.size
    assert (np.abs(share - pmf) < 5 * np.sqrt(pmf * (1 - pmf) / weights.size)).all(), share
    assert weights.mean() == pytest.approx(1, abs=0.002) and weights.var() == pytest.approx(1, abs=0.005)
    sample = weights[:, :8].astype(np.float64)
    between_replicates = np.corrcoef(sample.T)[np.triu_indices(8, 1)]
    between_neighbours = [np.corrcoef(sample[:-1, r], sample[1:, r])[0, 1] for r in range(8)]
    assert np.abs(between_replicates).max() < 0.012 and np.abs(between_neighbours).max() < 0.012


def test_poisson_bootstrap_intervals_cover_the_truth():
    """The bootstrap standard error of a deal-clustered win rate gives 95% intervals that hold the truth 95% of
    the time, like the multinomial bootstrap it replaces."""
    rng = np.random.default_rng(2028)
    p, replicates = 0.6, 200
    wins = (rng.random((RUNS, DEALS, 2)) < deal_win_probabilities(rng, p)).sum(axis=2).astype(np.float64)
    mean, se = wins.sum(axis=1) / (2 * DEALS), np.empty(RUNS)
    for first in range(0, RUNS, 100):  # a hundred runs at a time: their weights as floats stay small
        weights = poisson_weights(np.arange(first * DEALS, (first + 100) * DEALS), replicates, seed=5)
        weights = weights.reshape(100, DEALS, replicates).astype(np.float64)
        boot = np.einsum("rd,rdb->rb", wins[first:first + 100], weights) / (2 * weights.sum(axis=1))
        se[first:first + 100] = boot.std(axis=1, ddof=1)
    assert 0.93 <= coverage(mean - Z95 * se, mean + Z95 * se, p) <= 0.97


# --- speed ------------------------------------------------------------------------------------------

def best_time(call, repeat: int = 2) -> float:
    """Fastest of a few calls in seconds of this process's CPU time, which other work on a busy machine
    stretches far less than wall time (a wall-clock bound failed at a load of about 10 on 2 cores)."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return min(times)


@pytest.mark.study
def test_two_million_entries_take_about_a_second_at_most():
    rng = np.random.default_rng(3)
    size = 2_000_000
    deal = np.repeat(rng.permutation(size // 2) * 3, 2)  # sparse deal codes up to 3e6, every deal twice
    bot = rng.integers(0, 8, size)
    win = (rng.random(size) < 0.5).astype(np.float64)
    # about 0.3 s each on an idle core; the bound leaves room for a loaded machine
    for proportion in (False, True):
        assert best_time(lambda p=proportion: clustered_mean(win, bot, deal, 8, proportion=p)) < 3
    # 28 pairings each with its own deals: too many (pairing, deal) cells for the dense path
    pairing = np.repeat(rng.integers(0, 28, size // 2), 2)
    assert best_time(lambda: pentanomial(win, pairing, deal, 28)) < 3
    assert best_time(lambda: paired_difference(win - 0.5, pairing, deal, 28)) < 3
