"""Order-free TrueSkill: the posterior of fixed skills given every game of a variant at once.

The model is the trueskill package's factor graph (one player per team): skill s ~ N(mu, sigma²),
performance p = s + N(0, beta²), and for the seats in finishing order each difference of adjacent
performances is above the draw margin (a win) or within it (a draw). Where the package updates
game after game, with dynamics (tau) that forget, this module runs expectation propagation over
all games together until the messages stop changing: the approximation TrueSkill Through Time
makes within one period. Nothing depends on the order of the games: games with the same outcome
(the same bots finishing in the same order, with the same ties) are grouped and each group counts
as `weight` copies of one factor, so a million games between a handful of bots are a few hundred
factors. The same engine rates many weightings of the groups at once (the deal bootstrap), one
row of `weights` each.

One game of n seats is one factor: the performances are a Gaussian chain (each truncation ties two
neighbours), so with the current truncation messages every marginal the factor needs is a product of
local messages passed along the chain, exact and O(n) (batched over groups and replicates); each
truncation is refined in turn by moment matching (the truncated-Gaussian v and w functions, computed
stably far into the tails). A group's message to a skill is its posterior marginal over
its cavity, counted `weight` times; a group's step is damped while it oscillates without shrinking.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import sparse, special

from arena.config import RatingSettings

TOLERANCE = 1e-6
"""Convergence: the largest change of any mu or sigma in a sweep, relative to the smallest sigma (the
floating-point noise of a million games' messages is about 1e-7 of it)."""
MAX_SWEEPS = 1000
SWEEP_BLOCK = 16384
"""Factors refined at once within a sweep."""

_SQRT2 = math.sqrt(2)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


@dataclass(frozen=True)
class Outcomes:
    """The games of one variant grouped by outcome: the factors of the batch model."""

    bots: np.ndarray
    """(groups, n) bot codes in finishing order; within a tie, by code."""
    drawn: np.ndarray
    """(groups, n - 1) True where the seats at positions k and k + 1 tied."""
    counts: np.ndarray
    """(groups,) games with this outcome."""
    game_group: np.ndarray | None = None
    """(games,) the group of every game, in the order the games were given (None for groups summed over
    many calls)."""


def group_outcomes(bots: np.ndarray, ranks: np.ndarray) -> Outcomes:
    """Groups games (rows of seat bot codes and seat ranks, all of one size) by outcome, in a canonical order."""
    bots, ranks = np.asarray(bots, dtype=np.int64), np.asarray(ranks, dtype=np.int64)
    n = bots.shape[1]
    order = np.lexsort((bots, ranks), axis=1)  # by rank, ties by bot code
    in_order = np.take_along_axis(bots, order, axis=1)
    sorted_ranks = np.take_along_axis(ranks, order, axis=1)
    drawn = sorted_ranks[:, 1:] == sorted_ranks[:, :-1]
    keys = outcome_keys(in_order, drawn, int(bots.max(initial=0)) + 1)
    if keys is not None:  # one int64 key per game: a 1-D sort is far faster than rows
        _, first, game_group, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
        in_order, drawn = in_order[first], drawn[first]
    else:
        keys = np.concatenate([in_order, drawn.astype(np.int64)], axis=1)
        unique, game_group, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
        in_order, drawn = unique[:, :n].copy(), unique[:, n:].astype(bool)
    return Outcomes(in_order, drawn, counts.astype(np.float64), game_group.reshape(-1))


def outcome_keys(in_order: np.ndarray, drawn: np.ndarray, base: int) -> np.ndarray | None:
    """One int64 per outcome (bot codes below `base` in finishing order, and its ties), in the order of the
    outcomes' rows; None where the outcomes of so many seats and bots do not fit in 62 bits."""
    n = in_order.shape[1]
    if base ** n * 2 ** (n - 1) >= 2 ** 62:
        return None
    return (in_order * base ** np.arange(n)).sum(axis=1) + (drawn * 2 ** np.arange(n - 1)).sum(axis=1) * base ** n


@dataclass
class BatchRatings:
    """Posterior means and standard deviations, one row per weighting of the groups."""

    mu: np.ndarray
    """(replicates, bots)"""
    sigma: np.ndarray
    sweeps: int
    state: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    """The converged messages (to warm-start another weighting of the same groups)."""


def _trunc_moments(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of a standard normal truncated to [lo, hi] (hi may be inf), stable far in the tails."""
    above = np.isinf(hi)  # a win: the one-sided truncation, most differences, has a cheaper closed form
    if above.all():
        return _moments_above(lo)
    mean, var = np.empty_like(lo), np.empty_like(lo)
    mean[above], var[above] = _moments_above(lo[above])
    mean[~above], var[~above] = _moments_within(lo[~above], hi[~above])
    return mean, var


def _moments_above(lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of a standard normal truncated to [lo, inf): the inverse Mills ratio phi(lo) / Q(lo),
    by erfcx, exact far into either tail (it underflows to 0 only where the mean is 0 to double precision)."""
    with np.errstate(over="ignore"):
        mean = 1 / (math.sqrt(math.pi / 2) * special.erfcx(lo / _SQRT2))
    return mean, np.clip(1 + lo * mean - mean * mean, 1e-300, 1.0)


def _moments_within(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`_trunc_moments` of any interval."""
    flip = lo > 0  # mirror the right tail into the left, where erfcx keeps the ratios exact
    lo, hi = np.where(flip, -hi, lo), np.where(flip, -lo, hi)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        # Both ends in the left tail (hi <= 0): every term is divided by the density at hi, the larger one.
        h = np.minimum(hi, 0.0)
        low = np.isfinite(lo)
        ratio = np.where(low, np.exp((h * h - np.where(low, lo, 0.0) ** 2) / 2), 0.0)  # phi(lo) / phi(hi)
        mills = lambda x: math.sqrt(math.pi / 2) * special.erfcx(-x / _SQRT2)  # Phi(x) / phi(x)
        mass = mills(h) - np.where(low, mills(np.where(low, lo, 0.0)), 0.0) * ratio
        mean_tail = (ratio - 1) / mass
        var_tail = 1 + (np.where(low, lo, 0.0) * ratio - h) / mass - mean_tail ** 2
        # lo <= 0 < hi: the bulk of the normal, computed directly
        phi_lo = np.where(low, np.exp(-np.where(low, lo, 0.0) ** 2 / 2 - _LOG_SQRT_2PI), 0.0)
        top = np.isfinite(hi)
        phi_hi = np.where(top, np.exp(-np.where(top, hi, 0.0) ** 2 / 2 - _LOG_SQRT_2PI), 0.0)
        bulk = special.ndtr(hi) - special.ndtr(lo)
        mean_bulk = (phi_lo - phi_hi) / bulk
        var_bulk = 1 + (np.where(low, lo, 0.0) * phi_lo - np.where(top, hi, 0.0) * phi_hi) / bulk - mean_bulk ** 2
    in_tail = hi <= 0
    mean = np.where(in_tail, mean_tail, mean_bulk)
    var = np.clip(np.where(in_tail, var_tail, var_bulk), 1e-300, 1.0)
    return np.where(flip, -mean, mean), var


def _through(pi, tau, msg_pi, msg_tau, sign):
    """The message that a performance with natural parameters (pi, tau) sends through one truncated difference
    (its message msg_pi, msg_tau on d = p_k - p_k+1) to its neighbour: sign -1 down the chain (p_k+1 = p_k - d),
    +1 up it (p_k = p_k+1 + d). A difference with no message yet (msg_pi 0) sends nothing."""
    scale = 1 / (pi + msg_pi)  # = (1 / msg_pi) / (1 / pi + 1 / msg_pi), written to stay finite at msg_pi = 0
    return msg_pi * pi * scale, (msg_pi * tau + sign * msg_tau * pi) * scale


def _factor(cav_pi, cav_tau, trunc_pi, trunc_tau, drawn, beta2, margin):
    """One pass over the factor of every group: refines the truncation messages (in place) and returns the
    skill posteriors (pi, tau) of the seats. Arrays are (..., n) per seat, (..., n - 1) per difference.

    The performances form a chain (each truncation ties two neighbours), so every marginal is a product of
    local messages, exactly: without truncation k the chain falls into two independent halves, and the
    cavity of the difference k is the left half's marginal of p_k minus the right half's of p_k+1. The
    right halves' messages come from one sweep up the chain; a sweep down then refines the truncations in
    turn, as the package's schedule does, each from the left messages of the ones already refined. A last
    sweep up gives every performance its two neighbours' messages. O(n) per group, batched over groups."""
    n = cav_pi.shape[-1]
    seat_first = lambda a: np.ascontiguousarray(np.moveaxis(a, -1, 0))  # a seat's values lie together
    perf_var = 1 / cav_pi + beta2  # a performance's prior: the skill's cavity plus the noise
    perf_pi, perf_tau = seat_first(1 / perf_var), seat_first(cav_tau / cav_pi / perf_var)
    t_pi, t_tau, drawn = seat_first(trunc_pi), seat_first(trunc_tau), seat_first(drawn)

    def from_right():  # the message each performance k < n - 1 gets from the chain above it
        up_pi, up_tau = np.zeros_like(perf_pi), np.zeros_like(perf_tau)
        for k in range(n - 2, -1, -1):
            up_pi[k], up_tau[k] = _through(perf_pi[k + 1] + up_pi[k + 1], perf_tau[k + 1] + up_tau[k + 1],
                                           t_pi[k], t_tau[k], 1)
        return up_pi, up_tau

    up_pi, up_tau = from_right()
    down_pi, down_tau = np.zeros_like(perf_pi), np.zeros_like(perf_tau)  # from the chain below each performance
    for k in range(n - 1):
        left_pi, left_tau = perf_pi[k] + down_pi[k], perf_tau[k] + down_tau[k]
        right_pi, right_tau = perf_pi[k + 1] + up_pi[k + 1], perf_tau[k + 1] + up_tau[k + 1]
        c_var = 1 / left_pi + 1 / right_pi  # the difference's cavity: all but this truncation
        c_mean = left_tau / left_pi - right_tau / right_pi
        c_pi = 1 / c_var
        c_sd = np.sqrt(c_var)
        t, eps = c_mean / c_sd, margin / c_sd
        z_mean, z_var = _trunc_moments(np.where(drawn[k], -eps - t, eps - t), np.where(drawn[k], eps - t, np.inf))
        post_pi = 1 / (z_var * c_var)
        t_pi[k] = post_pi - c_pi
        t_tau[k] = (c_mean + z_mean * c_sd) * post_pi - c_mean * c_pi
        down_pi[k + 1], down_tau[k + 1] = _through(left_pi, left_tau, t_pi[k], t_tau[k], -1)
    up_pi, up_tau = from_right()
    trunc_pi[...], trunc_tau[...] = np.moveaxis(t_pi, 0, -1), np.moveaxis(t_tau, 0, -1)
    # the chain's message to each performance, then through the performance noise to the skill
    m_pi, m_tau = np.moveaxis(down_pi + up_pi, 0, -1), np.moveaxis(down_tau + up_tau, 0, -1)
    s_pi = m_pi / (1 + beta2 * m_pi)
    s_tau = m_tau / (1 + beta2 * m_pi)
    return cav_pi + s_pi, cav_tau + s_tau


def rate_outcomes(outcomes: Outcomes, n_bots: int, settings: RatingSettings | None = None,
                  weights: np.ndarray | None = None, start: BatchRatings | None = None) -> BatchRatings:
    """Expectation propagation over every group until no mu or sigma moves; one row per row of `weights`.

    weights: (replicates, groups), default the counts; start: a converged result to warm-start from.
    Only the groups a weighting counts are rated in it: a group of zero weight adds nothing to any
    posterior (in a deal-bootstrap replicate, a group of one deal's games has weight 0 more than a
    third of the time; at an early progress checkpoint, most groups have).
    """
    import trueskill

    settings = settings or RatingSettings()
    weights = outcomes.counts[None, :] if weights is None else np.asarray(weights, dtype=np.float64)
    if weights.ndim == 1:
        weights = weights[None, :]
    replicates, (groups, n) = weights.shape[0], outcomes.bots.shape
    beta2 = settings.beta ** 2
    margin = trueskill.calc_draw_margin(settings.draw_probability, 2, settings.env())
    prior_pi, prior_tau = settings.sigma ** -2, settings.mu * settings.sigma ** -2
    # one factor per (replicate, group) that counts, replicate by replicate
    replicate, group = np.nonzero(weights > 0)
    factors = len(group)
    if start is None:
        msg_pi, msg_tau = np.zeros((factors, n)), np.zeros((factors, n))
        trunc_pi, trunc_tau = np.zeros((factors, n - 1)), np.zeros((factors, n - 1))
    else:
        from_start = replicate if len(start.state[0]) == replicates else np.zeros_like(replicate)
        msg_pi, msg_tau, trunc_pi, trunc_tau = (s[from_start, group] for s in start.state)
    bots, drawn = outcomes.bots[group], outcomes.drawn[group]
    # seat (f, k) adds to the bot (replicate[f], bots[f, k]) of a flattened (replicates * bots) posterior
    target = replicate[:, None] * n_bots + bots
    seat_weights = np.repeat(weights[replicate, group][:, None], n, axis=1)
    size = replicates * n_bots

    def summed(values: np.ndarray, rows: slice = slice(None)) -> np.ndarray:
        """Per-seat values of the factors `rows`, counted their weights, summed by (replicate, bot)."""
        return np.bincount(target[rows].reshape(-1), (seat_weights[rows] * values).reshape(-1), size)

    q_pi, q_tau = (prior + summed(msg).reshape(replicates, n_bots)
                   for prior, msg in ((prior_pi, msg_pi), (prior_tau, msg_tau)))
    damping = np.ones((factors, 1))
    last_pi, last_tau = np.zeros((factors, n)), np.zeros((factors, n))
    shift = np.zeros(replicates)  # a shift of the common level not yet added to msg_tau
    sweeps = 0
    while sweeps < MAX_SWEEPS:
        sweeps += 1
        # Factor by factor, every factor from the same posterior; SWEEP_BLOCK factors at once, so that the
        # temporaries stay small (a million games' whole arrays are 48 MB each, and twice as slow).
        new_pi, new_tau, full_pi, full_tau = (np.zeros(size) for _ in range(4))
        for first in range(0, factors, SWEEP_BLOCK):
            rows = slice(first, first + SWEEP_BLOCK)
            msg_pi_b, msg_tau_b = msg_pi[rows], msg_tau[rows]  # views: updated in place
            msg_tau_b += msg_pi_b * shift[replicate[rows], None]
            cav_pi = q_pi.reshape(-1).take(target[rows]) - msg_pi_b  # a flat take: twice as fast
            cav_tau = q_tau.reshape(-1).take(target[rows]) - msg_tau_b
            post_pi, post_tau = _factor(cav_pi, cav_tau, trunc_pi[rows], trunc_tau[rows], drawn[rows], beta2, margin)
            step_pi, step_tau = post_pi - cav_pi - msg_pi_b, post_tau - cav_tau - msg_tau_b
            # A group's copies share one message, so its update feeds back through its own weight - 1
            # copies in the cavity: heavy groups overshoot and oscillate. Each group's step is damped
            # while it flips direction from one sweep to the next without shrinking to half its size, and
            # freed again while it does not: a step that flips as it shrinks is converging (as most do,
            # light groups on noise), and damping it would only slow it.
            last_b_pi, last_b_tau = last_pi[rows], last_tau[rows]
            flips = (step_pi * last_b_pi).sum(axis=1) + (step_tau * last_b_tau).sum(axis=1) < 0
            stays = ((step_pi ** 2).sum(axis=1) + (step_tau ** 2).sum(axis=1)
                     > 0.25 * ((last_b_pi ** 2).sum(axis=1) + (last_b_tau ** 2).sum(axis=1)))
            damping[rows] = np.where((flips & stays)[:, None], damping[rows] / 2, np.minimum(1.0, damping[rows] * 1.5))
            last_pi[rows], last_tau[rows] = step_pi, step_tau
            msg_pi_b += damping[rows] * step_pi
            msg_tau_b += damping[rows] * step_tau
            new_pi += summed(msg_pi_b, rows)
            new_tau += summed(msg_tau_b, rows)
            full_pi += summed(step_pi, rows)
            full_tau += summed(step_tau, rows)
        new_pi = prior_pi + new_pi.reshape(replicates, n_bots)
        new_tau = prior_tau + new_tau.reshape(replicates, n_bots)
        # Games inform only differences of skill: the common level is the prior's alone, and EP's
        # factorised messages would let it creep (one part in the data's precision per sweep).
        # So every message moves by one shift that puts the bots' mean skill back at the prior mean
        # (added to the messages in the next sweep's blocks, or at the end).
        informed = new_pi > prior_pi * (1 + 1e-12)
        pull = np.where(informed, 1 - prior_pi / new_pi, 0.0)  # how much of a message shift reaches mu
        with np.errstate(invalid="ignore", divide="ignore"):
            shift = np.where(informed, settings.mu - new_tau / new_pi, 0.0).sum(axis=1) / pull.sum(axis=1)
        shift = np.nan_to_num(shift)
        new_tau = new_tau + (new_pi - prior_pi) * shift[:, None]
        q_pi, q_tau = new_pi, new_tau
        # converged when the full, undamped steps would move no mu or sigma (up to the common level)
        full_pi = q_pi + full_pi.reshape(replicates, n_bots)
        full_tau = q_tau + full_tau.reshape(replicates, n_bots)
        if (full_pi <= 0).any():
            continue
        mu, full_mu = q_tau / q_pi, full_tau / full_pi
        moved = (full_mu - full_mu.mean(axis=1, keepdims=True)) - (mu - mu.mean(axis=1, keepdims=True))
        change = max(np.max(np.abs(moved)), np.max(np.abs(full_pi ** -0.5 - q_pi ** -0.5)))
        if change <= TOLERANCE * np.min(q_pi) ** -0.5:
            break
    msg_tau += msg_pi * shift[replicate, None]
    state = []
    for per_factor in (msg_pi, msg_tau, trunc_pi, trunc_tau):  # by (replicate, group), zero where not rated
        full = np.zeros((replicates, groups, per_factor.shape[1]))
        full[replicate, group] = per_factor
        state.append(full)
    return BatchRatings(q_tau / q_pi, q_pi ** -0.5, sweeps, tuple(state))


def _by_bot(values: np.ndarray, bots: np.ndarray, n_bots: int) -> sparse.csr_matrix:
    """(rows, bots): each row's per-seat values (rows, seats) under its seats' bots (`bots`, the same shape).
    Built as it is stored: a row's bots are distinct, so there is nothing to sum or sort."""
    rows, n = bots.shape
    return sparse.csr_matrix((values.reshape(-1), bots.reshape(-1), np.arange(0, rows * n + 1, n)),
                             shape=(rows, n_bots))


@dataclass(frozen=True)
class NewtonTerms:
    """What a Newton step from the fit needs of every group, computed once for any number of weightings.

    Each group's factor is taken as EP left it: with its converged truncation messages, the likelihood of its
    bots' skills is a Gaussian (performances = skills + noise, truncations on their differences) whose
    precision couples every seat of the game. Its gradient at the fit is (E[p] - mu) / beta², E[p] the mean of
    the performances given the skills at the fit; its Hessian, (I - cov(p) / beta²) / beta². A weighting's
    step solves the Hessian (the fit's, or the weighting's own, for weightings far from the counts) for its
    change of the weighted gradients: the linearised bootstrap, which costs one pass over the groups and a
    bots × bots solve per weighting, not an EP fit. Everything but the curvature is linear in the weights, so a
    weighting can be summed as well deal by deal (`gradient`, then `step`)."""

    mu: np.ndarray
    """(bots,) the fit's mu"""
    gradient: sparse.csr_matrix
    """(groups, bots): each group's gradient under its seats' bots."""
    message_pi: sparse.csr_matrix
    """(groups, bots): each group's messages' precision under its seats' bots."""
    bots: np.ndarray
    """(groups, seats) the groups' bots"""
    blocks: np.ndarray
    """(groups, seats, seats): each group's Hessian block, by seat (a third of the memory of a sparse matrix)."""
    counts: np.ndarray
    prior_pi: float
    chunk: int = 65536
    """Groups whose Hessian blocks are spread over the bots at once."""

    def curvature(self, weights: np.ndarray) -> np.ndarray:
        """(weightings, bots²): the Hessian blocks summed under each weighting of the groups."""
        n_bots, groups = len(self.mu), len(self.bots)
        out = np.zeros((len(weights), n_bots * n_bots))
        for first in range(0, groups, self.chunk):
            part = slice(first, min(groups, first + self.chunk))
            bots = self.bots[part]
            pairs = _by_bot(self.blocks[part], (bots[:, :, None] * n_bots + bots[:, None, :]).reshape(len(bots), -1),
                            n_bots * n_bots)
            out += np.asarray(pairs.T @ weights[:, part].T).T
        return out

    @cached_property
    def fit_curvature(self) -> np.ndarray:
        """(1, bots²): the Hessian of the fit, under the counts."""
        return self.curvature(self.counts[None, :])

    def replicates(self, weights: np.ndarray, own_curvature: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The mu and sigma of every bot under each weighting of the groups (replicates, groups), by one Newton
        step from the fit: (replicates, bots) each, each row's mean mu the prior mean as in a fit. sigma: the
        fit's messages, reweighted."""
        weights = np.asarray(weights, dtype=np.float64)
        curvature = self.curvature(weights) if own_curvature else None
        sigma = (np.asarray(self.message_pi.T @ weights.T).T + self.prior_pi) ** -0.5
        return self.step(np.asarray(self.gradient.T @ weights.T).T, curvature), sigma

    def step(self, sums: np.ndarray, curvature: np.ndarray | None = None) -> np.ndarray:
        """The mu of `replicates` from the weighted sums of `gradient` (replicates, bots) and, unless the fit's,
        the weighted curvature (replicates, bots²)."""
        n_bots = len(self.mu)
        if curvature is None:
            curvature = self.fit_curvature
        change = sums - self.gradient.T @ self.counts
        hessian = curvature.reshape(-1, n_bots, n_bots) + np.eye(n_bots) * self.prior_pi
        step = np.linalg.solve(hessian, change[..., None])[..., 0]
        return self.mu + step - step.mean(axis=1, keepdims=True)


def newton_terms(outcomes: Outcomes, n_bots: int, settings: RatingSettings, fit: BatchRatings,
                 chunk: int = 65536) -> NewtonTerms:
    """The Newton terms of every group at the fit of the counts (`NewtonTerms`)."""
    groups, n = outcomes.bots.shape
    beta2 = settings.beta ** 2
    mu = fit.mu[0]
    msg_pi, _, trunc_pi, trunc_tau = (s[0] for s in fit.state)
    diff = np.eye(n)[:-1] - np.eye(n, k=1)[:-1]  # row k: p_k - p_k+1
    gradients, blocks = [np.zeros((0, n))], [np.zeros((0, n, n))]
    for first in range(0, groups, chunk):
        part = slice(first, min(groups, first + chunk))
        bots = outcomes.bots[part]
        precision = np.eye(n) / beta2 + np.einsum("gk,ki,kj->gij", trunc_pi[part], diff, diff)
        cov = np.linalg.inv(precision)
        mean = (cov @ (trunc_tau[part] @ diff + mu[bots] / beta2)[..., None])[..., 0]
        gradients.append((mean - mu[bots]) / beta2)
        blocks.append((np.eye(n) - cov / beta2) / beta2)
    return NewtonTerms(mu, _by_bot(np.concatenate(gradients), outcomes.bots, n_bots),
                       _by_bot(msg_pi, outcomes.bots, n_bots), outcomes.bots, np.concatenate(blocks), outcomes.counts,
                       settings.sigma ** -2, chunk)


def linear_replicates(outcomes: Outcomes, n_bots: int, settings: RatingSettings, fit: BatchRatings,
                      weights: np.ndarray, own_curvature: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The mu and sigma of every bot under each weighting of the groups (replicates, groups), by one Newton
    step from the fit (`NewtonTerms`)."""
    return newton_terms(outcomes, n_bots, settings, fit).replicates(weights, own_curvature)
