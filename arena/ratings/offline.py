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
local messages passed along the chain, exact and O(n); each truncation is refined in turn by moment
matching (the truncated-Gaussian v and w functions, computed stably far into the tails). A group's
message to a skill is its posterior marginal over its cavity, counted `weight` times; a group's step
is damped while it oscillates without shrinking. A sweep over every group is compiled (`sweep`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import sparse

from arena.config import RatingSettings
from arena.ratings.kernels import contiguous, finishing_order, newton_blocks, sweep

TOLERANCE = 1e-6
"""Convergence: the largest change of any mu or sigma in a sweep, relative to the smallest sigma (the
floating-point noise of a million games' messages is about 1e-7 of it)."""
MAX_SWEEPS = 1000
STEADY_SWEEPS = 4
"""Sweeps whose changes shrink by one steady ratio (within STEADY_SPREAD) before the fit extrapolates."""
STEADY_SPREAD = 0.01


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
    bots, ranks = contiguous(bots, np.int64), contiguous(ranks, np.int64)
    n = bots.shape[1]
    in_order, drawn = np.empty_like(bots), np.empty((len(bots), n - 1), dtype=np.bool_)
    finishing_order(bots, ranks, in_order, drawn)
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
    converged: bool = True
    """False when the fit stopped at MAX_SWEEPS with mu or sigma still moving (rate_outcomes warns then)."""


def rate_outcomes(outcomes: Outcomes, n_bots: int, settings: RatingSettings | None = None,
                  weights: np.ndarray | None = None, start: BatchRatings | None = None,
                  base: tuple[np.ndarray, np.ndarray] | None = None) -> BatchRatings:
    """Expectation propagation over every group until no mu or sigma moves; one row per row of `weights`.

    weights: (replicates, groups), default the counts; start: a converged result to warm-start from.
    base: the precision and precision times mean of each bot (bots,) from factors held fixed, in place of the
    prior: a fit of earlier games (its sigma ** -2 and mu * sigma ** -2) updated by these groups alone, with
    the earlier games' messages left as they were. The bots' mean skill stays the prior mean.
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
    if base is not None:  # (1, bots), broadcast over the replicates
        prior_pi, prior_tau = (np.asarray(b, dtype=np.float64).reshape(1, n_bots) for b in base)
    # one factor per (replicate, group) that counts, replicate by replicate
    replicate, group = np.nonzero(weights > 0)
    replicate = contiguous(replicate, np.int64)
    factors = len(group)
    if start is None:
        msg_pi, msg_tau = np.zeros((factors, n)), np.zeros((factors, n))
        trunc_pi, trunc_tau = np.zeros((factors, n - 1)), np.zeros((factors, n - 1))
    else:
        from_start = replicate if len(start.state[0]) == replicates else np.zeros_like(replicate)
        msg_pi, msg_tau, trunc_pi, trunc_tau = (s[from_start, group] for s in start.state)
    drawn = np.ascontiguousarray(outcomes.drawn[group])
    # seat (f, k) adds to the bot (replicate[f], bots[f, k]) of a flattened (replicates * bots) posterior
    target = replicate[:, None] * n_bots + outcomes.bots[group]
    weight = weights[replicate, group]
    size = replicates * n_bots
    q_pi, q_tau = (prior + np.bincount(target.reshape(-1), (weight[:, None] * msg).reshape(-1), size)
                   .reshape(replicates, n_bots) for prior, msg in ((prior_pi, msg_pi), (prior_tau, msg_tau)))
    damping = np.ones(factors)
    last_pi, last_tau = np.zeros((factors, n)), np.zeros((factors, n))
    shift = np.zeros(replicates)  # a shift of the common level not yet added to msg_tau
    sweeps = 0
    ratios: list[float] = []  # each sweep's change over the last one's, since the last extrapolation
    change = np.inf
    saved = None
    converged = False
    while sweeps < MAX_SWEEPS:
        sweeps += 1
        sums = np.zeros((4, size))  # new messages and full steps, pi and tau, by (replicate, bot)
        sweep(q_pi.reshape(-1), q_tau.reshape(-1), target, weight, replicate, shift, msg_pi, msg_tau, trunc_pi,
               trunc_tau, drawn, damping, last_pi, last_tau, beta2, margin, sums)
        new_pi, new_tau, full_pi, full_tau = sums.reshape(4, replicates, n_bots)
        new_pi, new_tau = prior_pi + new_pi, prior_tau + new_tau
        # Games inform only differences of skill: the common level is the prior's alone, and EP's
        # factorised messages would let it creep (one part in the data's precision per sweep).
        # So every message moves by one shift that puts the bots' mean skill back at the prior mean
        # (added to the messages in the next sweep's blocks, or at the end).
        informed = new_pi > prior_pi * (1 + 1e-12)
        pull = np.where(informed, 1 - prior_pi / new_pi, 0.0)  # how much of a message shift reaches mu
        with np.errstate(invalid="ignore", divide="ignore"):
            shift = np.where(informed, settings.mu - new_tau / new_pi, 0.0).sum(axis=1) / pull.sum(axis=1)
        # Over a base, the earlier games' precise skills hold the level, and shifting only the new messages
        # would fight them sweep after sweep: the level is set once, at the end.
        shift = np.nan_to_num(shift) if base is None else np.zeros(replicates)
        new_tau = new_tau + (new_pi - prior_pi) * shift[:, None]
        q_pi, q_tau = new_pi, new_tau
        # converged when the full, undamped steps would move no mu or sigma (up to the common level)
        full_pi, full_tau = q_pi + full_pi, q_tau + full_tau
        if (full_pi <= 0).any():
            continue
        mu, full_mu = q_tau / q_pi, full_tau / full_pi
        moved = (full_mu - full_mu.mean(axis=1, keepdims=True)) - (mu - mu.mean(axis=1, keepdims=True))
        last_change, change = change, max(np.max(np.abs(moved)), np.max(np.abs(full_pi ** -0.5 - q_pi ** -0.5)))
        if change <= TOLERANCE * np.min(q_pi) ** -0.5:
            converged = True
            break
        # Near the fixed point the sweeps shrink every change by one ratio r, the slowest mode's: 0.96 in a league
        # of a million six-player games, whose tables seat bots of like strength, so 340 sweeps from the prior.
        # Once the ratio holds steady, the messages still have r / (1 - r) times the last sweep's step to go:
        # they are moved there at once (Aitken's extrapolation, every message alike), and the sweeps go on from
        # there, nearer the fixed point in a third of the sweeps or fewer (103 in that league;
        # `test_a_slowly_mixing_fit_is_extrapolated_to_the_same_fixed_point`). It costs a copy of the messages.
        ratios.append(change / last_change)
        if saved is not None:
            messages = (msg_pi, msg_tau, trunc_pi, trunc_tau)
            msg_tau += msg_pi * shift[replicate, None]
            shift = np.zeros(replicates)
            ahead = ratios[-1] / (1 - ratios[-1])
            for now, then in zip(messages, saved, strict=True):
                now += (now - then) * ahead
            q_pi, q_tau = (prior + np.bincount(target.reshape(-1), (weight[:, None] * msg).reshape(-1), size)
                           .reshape(replicates, n_bots) for prior, msg in ((prior_pi, msg_pi), (prior_tau, msg_tau)))
            last_pi[:], last_tau[:] = 0, 0  # no step to flip against: the damping goes on from the new place
            saved, ratios = None, []
            change = np.inf
        elif (len(ratios) >= STEADY_SWEEPS and 0.5 < min(ratios[-STEADY_SWEEPS:])
              and max(ratios[-STEADY_SWEEPS:]) < 1 and np.ptp(ratios[-STEADY_SWEEPS:]) < STEADY_SPREAD):
            msg_tau += msg_pi * shift[replicate, None]  # the messages as they stand, the level's shift in them
            shift = np.zeros(replicates)
            saved = (msg_pi.copy(), msg_tau.copy(), trunc_pi.copy(), trunc_tau.copy())
    msg_tau += msg_pi * shift[replicate, None]
    state = []
    for per_factor in (msg_pi, msg_tau, trunc_pi, trunc_tau):  # by (replicate, group), zero where not rated
        if factors == replicates * groups:  # every group rated: the factors are (replicate, group) in order
            state.append(per_factor.reshape(replicates, groups, -1))
            continue
        full = np.zeros((replicates, groups, per_factor.shape[1]))
        full[replicate, group] = per_factor
        state.append(full)
    mu = q_tau / q_pi
    if base is not None:
        mu += settings.mu - mu.mean(axis=1, keepdims=True)
    if not converged:  # said, never passed off as a fixed point
        warnings.warn(f"the ratings did not converge in {MAX_SWEEPS} sweeps (last change {change:.2g} of mu or "
                      "sigma): read them as approximate", RuntimeWarning, stacklevel=2)
    return BatchRatings(mu, q_pi ** -0.5, sweeps, tuple(state), converged)


def carried_over(fitted: Outcomes, fit: BatchRatings, outcomes: Outcomes, n_bots: int) -> BatchRatings | None:
    """A start for the fit of `outcomes` from the fit of earlier groups (`fitted`, its bots in the same codes):
    each group's converged messages where it was fitted before, none for a new group. With a few games added to
    many, the fit then moves only as far as they move it. It converges to the same messages within the fit's
    tolerance, not to the same floats. None where the outcomes do not fit one key each (`outcome_keys`)."""
    before, now = (outcome_keys(o.bots, o.drawn, n_bots) for o in (fitted, outcomes))
    if before is None or now is None:
        return None
    order = np.argsort(before)
    place = np.minimum(np.searchsorted(before, now, sorter=order), len(before) - 1)
    found = before[order[place]] == now
    state = []
    for messages in fit.state:
        carried = np.zeros((1, len(now), messages.shape[2]))
        carried[0, found] = messages[0, order[place[found]]]
        state.append(carried)
    return BatchRatings(fit.mu[:1], fit.sigma[:1], 0, tuple(state))


class WarmStart:
    """Fits that each start from the last (`carried_over`), for a caller that fits a growing set of games again and
    again and decides nothing on the last floats: the same ratings within the fit's tolerance, in fewer sweeps."""

    def __init__(self) -> None:
        self.fitted: tuple[Outcomes, BatchRatings] | None = None
        """The groups of the last fit, bots in codes that do not change as bots join, and the fit."""

    def fit(self, outcomes: Outcomes, n_bots: int, settings: RatingSettings, code: np.ndarray) -> BatchRatings:
        """`rate_outcomes` of `outcomes`, started from the last fit; `code`: each bot's lasting code."""
        lasting = Outcomes(code[outcomes.bots], outcomes.drawn, outcomes.counts)
        start = carried_over(*self.fitted, lasting, n_bots) if self.fitted else None
        fit = rate_outcomes(outcomes, n_bots, settings, start=start)
        self.fitted = (lasting, fit)
        return fit


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
        change = sums - self.gradient.T @ self.counts
        if curvature is None:  # one Hessian for every replicate: factorised once
            step = np.linalg.solve(self.fit_curvature.reshape(n_bots, n_bots) + np.eye(n_bots) * self.prior_pi,
                                   change.T).T
        else:
            hessian = curvature.reshape(-1, n_bots, n_bots) + np.eye(n_bots) * self.prior_pi
            step = np.linalg.solve(hessian, change[..., None])[..., 0]
        return self.mu + step - step.mean(axis=1, keepdims=True)


def newton_terms(outcomes: Outcomes, n_bots: int, settings: RatingSettings, fit: BatchRatings,
                 chunk: int = 65536) -> NewtonTerms:
    """The Newton terms of every group at the fit of the counts (`NewtonTerms`)."""
    groups, n = outcomes.bots.shape
    mu = fit.mu[0]
    msg_pi, _, trunc_pi, trunc_tau = (s[0] for s in fit.state)
    gradients, blocks = np.empty((groups, n)), np.empty((groups, n, n))
    newton_blocks(trunc_pi, trunc_tau, mu[outcomes.bots], settings.beta ** 2, gradients, blocks)
    return NewtonTerms(mu, _by_bot(gradients, outcomes.bots, n_bots), _by_bot(msg_pi, outcomes.bots, n_bots),
                       outcomes.bots, blocks, outcomes.counts, settings.sigma ** -2, chunk)


def linear_replicates(outcomes: Outcomes, n_bots: int, settings: RatingSettings, fit: BatchRatings,
                      weights: np.ndarray, own_curvature: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The mu and sigma of every bot under each weighting of the groups (replicates, groups), by one Newton
    step from the fit (`NewtonTerms`)."""
    return newton_terms(outcomes, n_bots, settings, fit).replicates(weights, own_curvature)
