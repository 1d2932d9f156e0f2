"""arena.ratings.plackett_luce against closed forms, a direct maximisation and simulated Plackett–Luce games."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import optimize
from scipy.sparse.csgraph import connected_components

from arena.ratings.plackett_luce import order_disagreements, plackett_luce, strongly_connected


def log_likelihood(theta, bots, drawn, weights, prior_games):
    """The penalised log-likelihood written out seat by seat, independently of the module's statistics."""
    gamma = np.exp(theta)[bots]
    remaining = np.cumsum(gamma[:, ::-1], axis=1)[:, ::-1]  # gamma summed over the seats not yet placed
    # Breslow: every seat of a tied block is chosen with the denominator of the block's first seat.
    block = np.zeros(bots.shape, dtype=np.int64)
    for p in range(1, bots.shape[1]):
        block[:, p] = np.where(drawn[:, p - 1], block[:, p - 1], p)
    terms = np.log(gamma) - np.log(np.take_along_axis(remaining, block, axis=1))  # a lone last seat gives 0
    prior = prior_games * np.sum(theta - 2 * np.logaddexp(0, theta))
    return weights @ terms.sum(axis=1) + prior


def direct_fit(bots, drawn, weights, n_bots, prior_games):
    """The maximum found by BFGS (theta_0 pinned at 0 without a prior, where only differences count), mean 0."""
    free = n_bots if prior_games else n_bots - 1
    full = (lambda x: x) if prior_games else (lambda x: np.concatenate([[0.0], x]))
    result = optimize.minimize(lambda x: -log_likelihood(full(x), bots, drawn, weights, prior_games),
                               np.zeros(free), jac="3-point", method="BFGS", options={"gtol": 1e-9})
    theta = full(result.x)
    return theta - theta.mean()


def random_groups(rng, groups, n, n_bots, tie=0.3):
    """Groups of distinct bots in random finishing orders, with random ties and weights (some zero)."""
    bots = np.argsort(rng.random((groups, n_bots)), axis=1)[:, :n]
    drawn = rng.random((groups, n - 1)) < tie
    weights = rng.integers(0, 6, groups).astype(float)
    return bots, drawn, weights


def sample_orders(rng, log_strength, tables):
    """Finishing orders of the given tables (rows of bot codes) drawn by Plackett–Luce's sequential choice."""
    games, n = tables.shape
    left = np.exp(log_strength)[tables]
    orders = np.empty_like(tables)
    rows = np.arange(games)
    for stage in range(n):
        cumulative = np.cumsum(left, axis=1)
        pick = np.argmax(cumulative > rng.random(games)[:, None] * cumulative[:, -1:], axis=1)
        orders[:, stage] = tables[rows, pick]
        left[rows, pick] = 0  # placed: no longer chosen
    return orders


def test_two_bots_closed_form():
    # 7 wins, 3 losses and 2 ties (one win each under Breslow): gamma_0 / gamma_1 = 9 / 5.
    bots = np.array([[0, 1], [1, 0], [0, 1]])
    drawn = np.array([[False], [False], [True]])
    theta = plackett_luce(bots, drawn, np.array([7.0, 3.0, 2.0]), 2, prior_games=0)
    half = math.log(9 / 5) / 2
    np.testing.assert_allclose(theta, [half, -half], atol=1e-10)


def test_two_bots_with_prior_closed_form():
    # The prior adds a win and a loss against gamma = 1 per bot. The two score equations sum to
    # 2 - 2 (g0 / (g0 + 1) + g1 / (g1 + 1)) = 0, so g1 = 1 / g0 and theta = (t, -t), where t solves bot 0's
    # equation: 9 + 1 wins = 14 seats chosen from {0, 1} times e^t / (e^t + e^-t) + 2 e^t / (e^t + 1).
    bots = np.array([[0, 1], [1, 0], [0, 1]])
    drawn = np.array([[False], [False], [True]])
    theta = plackett_luce(bots, drawn, np.array([7.0, 3.0, 2.0]), 2, prior_games=1.0)
    score = lambda t: 10 - 14 * math.exp(t) / (math.exp(t) + math.exp(-t)) - 2 * math.exp(t) / (math.exp(t) + 1)
    expected = optimize.brentq(score, -5, 5)
    np.testing.assert_allclose(theta, [expected, -expected], atol=1e-9)


def test_three_bot_cycle_matches_direct_maximisation():
    # 0 beats 1, 1 beats 2, 2 beats 0 most of the time, plus ties: the MLE exists without a prior.
    bots = np.array([[0, 1], [1, 0], [1, 2], [2, 1], [2, 0], [0, 2], [0, 2]])
    drawn = np.array([[False], [False], [False], [False], [False], [False], [True]])
    weights = np.array([8.0, 2.0, 6.0, 3.0, 5.0, 4.0, 3.0])
    theta = plackett_luce(bots, drawn, weights, 3, prior_games=0)
    np.testing.assert_allclose(theta, direct_fit(bots, drawn, weights, 3, 0), atol=1e-7)
    assert theta.mean() == pytest.approx(0, abs=1e-15)


@pytest.mark.parametrize("prior_games", [0.0, 0.5, 2.0])
def test_multiplayer_with_ties_matches_direct_maximisation(prior_games):
    rng = np.random.default_rng(7)
    bots, drawn, weights = random_groups(rng, 60, 4, 5)
    weights = weights * 0.37  # not whole games
    theta = plackett_luce(bots, drawn, weights, 5, prior_games=prior_games)
    direct = direct_fit(bots, drawn, weights, 5, prior_games)
    np.testing.assert_allclose(theta, direct, atol=1e-7)


def test_recovers_simulated_strengths():
    rng = np.random.default_rng(2024)
    truth = np.array([-1.0, -0.6, -0.2, 0.2, 0.6, 1.0])
    tables = np.argsort(rng.random((200_000, 6)), axis=1)[:, :4]
    orders = sample_orders(rng, truth, tables)
    grouped, weights = np.unique(orders, axis=0, return_counts=True)
    drawn = np.zeros((len(grouped), 3), dtype=bool)
    theta = plackett_luce(grouped, drawn, weights.astype(float), 6)

    # Standard errors from the observed information (numerical Hessian of the log-likelihood), mean-0 scale.
    f = lambda t: log_likelihood(t, grouped, drawn, weights, 1.0)
    h, eye = 1e-3, np.eye(6)
    hessian = np.array([[(f(theta + h * (eye[i] + eye[j])) - f(theta + h * (eye[i] - eye[j]))
                          - f(theta - h * (eye[i] - eye[j])) + f(theta - h * (eye[i] + eye[j]))) / (4 * h * h)
                         for j in range(6)] for i in range(6)])
    centre = eye - 1 / 6
    se = np.sqrt(np.diag(centre @ np.linalg.inv(-hessian) @ centre.T))
    assert np.all(se < 0.01)
    assert np.all(np.abs(theta - truth) < 4 * se)
    assert np.max(np.abs(theta - truth)) < 0.05
    assert list(np.argsort(theta)) == list(range(6))


def test_grouping_and_order_invariance():
    rng = np.random.default_rng(11)
    bots, drawn, weights = random_groups(rng, 400, 5, 7)
    theta = plackett_luce(bots, drawn, weights, 7)

    # One row per game: the same fit.
    rows = np.repeat(np.arange(len(weights)), weights.astype(int))
    expanded = plackett_luce(bots[rows], drawn[rows], np.ones(len(rows)), 7)
    np.testing.assert_allclose(expanded, theta, atol=1e-9)
    # Fractional weights split in two rows each: the same fit up to rounding.
    split = plackett_luce(np.concatenate([bots, bots]), np.concatenate([drawn, drawn]),
                          np.concatenate([0.3 * weights, 0.7 * weights]), 7)
    np.testing.assert_allclose(split, theta, atol=1e-9)

    # Groups in another order, and the seats of each tied block in another order: bit for bit.
    for seed in range(3):
        permutation = np.random.default_rng(seed).permutation(len(weights))
        assert np.array_equal(plackett_luce(bots[permutation], drawn[permutation], weights[permutation], 7), theta)
    shuffled = bots.copy()
    for g in range(len(bots)):
        start = 0
        for p in range(1, 6):
            if p == 5 or not drawn[g, p - 1]:
                shuffled[g, start:p] = rng.permutation(shuffled[g, start:p])
                start = p
    assert np.array_equal(plackett_luce(shuffled, drawn, weights, 7), theta)
    assert np.array_equal(plackett_luce(bots, drawn, weights, 7), theta)  # deterministic


def test_unbeaten_bot_is_finite_and_strongest():
    rng = np.random.default_rng(3)
    bots, _, weights = random_groups(rng, 300, 3, 5, tie=0)
    # Move bot 4 to the front of every game it is in: it never loses.
    key = np.where(bots == 4, -1, np.arange(3))
    bots = np.take_along_axis(bots, np.argsort(key, axis=1, kind="stable"), axis=1)
    drawn = np.zeros((300, 2), dtype=bool)
    theta = plackett_luce(bots, drawn, weights, 5)
    assert np.all(np.isfinite(theta))
    assert np.argmax(theta) == 4 and theta[4] > theta[:4].max() + 1
    with pytest.raises(ValueError, match="does not exist"):
        plackett_luce(bots, drawn, weights, 5, prior_games=0)


@given(st.integers(0, 9).flatmap(lambda n: arrays(bool, (n, n), elements=st.booleans())))
def test_strongly_connected_is_scipys_one_strong_component(edges):
    """The test of whether the estimate exists, against scipy's strong components of the same graph."""
    components = connected_components(edges, directed=True, connection="strong")[0]
    assert strongly_connected(edges) == (components <= 1)


def test_bots_without_games():
    bots = np.array([[0, 2], [2, 0], [2, 3]])
    drawn = np.zeros((3, 1), dtype=bool)
    weights = np.array([3.0, 1.0, 0.0])  # bot 3 appears only with weight 0, bot 1 never
    theta = plackett_luce(bots, drawn, weights, 4)
    assert theta[0] + theta[2] == pytest.approx(0, abs=1e-15)
    assert theta[1] == theta[3] == pytest.approx(-theta[[0, 2]].mean(), abs=1e-15)
    np.testing.assert_allclose(theta[[0, 2]], plackett_luce(np.array([[0, 1], [1, 0]]), drawn[:2], weights[:2], 2))
    assert np.array_equal(plackett_luce(bots[:0], drawn[:0], weights[:0], 3), np.zeros(3))


def test_invalid_input():
    drawn = np.zeros((1, 1), dtype=bool)
    with pytest.raises(ValueError, match="twice"):
        plackett_luce(np.array([[1, 1]]), drawn, np.ones(1), 2)
    with pytest.raises(ValueError, match="non-negative"):
        plackett_luce(np.array([[0, 1]]), drawn, -np.ones(1), 2)
    with pytest.raises(ValueError, match="codes"):
        plackett_luce(np.array([[0, 2]]), drawn, np.ones(1), 2)


def test_warns_when_not_converged():
    rng = np.random.default_rng(5)
    bots, drawn, weights = random_groups(rng, 50, 3, 4)
    with pytest.warns(RuntimeWarning, match="did not converge"):
        plackett_luce(bots, drawn, weights, 4, max_iter=2)


def test_order_disagreements():
    first = ["ismcts", "greedy", "heuristic", "random"]
    assert order_disagreements(first, first, {"ismcts": 2.0, "greedy": 1.0, "heuristic": 0.5, "random": -3.0}) == []
    scores = {"ismcts": 2.0, "heuristic": 1.0, "greedy": 0.5, "random": 2.5}
    assert order_disagreements(["random", "greedy", "heuristic", "ismcts"], first, scores) == [
        "ismcts above random by TrueSkill, below by Plackett–Luce",
        "greedy above heuristic by TrueSkill, below by Plackett–Luce",
        "greedy above random by TrueSkill, below by Plackett–Luce",
        "heuristic above random by TrueSkill, below by Plackett–Luce",
    ]
    with pytest.raises(ValueError, match="ismcts"):
        order_disagreements(["ismcts"], ["greedy"], {"ismcts": 0.0})
