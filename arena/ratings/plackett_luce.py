"""Plackett–Luce strengths of grouped game outcomes: an independent check of a TrueSkill rating order.

Plackett–Luce gives every bot a strength gamma = exp(theta) and reads a finishing order as a sequence of
choices: the winner is chosen among all seats with probability gamma / (sum of gamma of all seats), the
second among those left, and so on. With two seats this is Bradley–Terry. The fit is the maximum of the
likelihood, found with Hunter's (2004) MM algorithm. It shares no model with TrueSkill (no Gaussian
performances, no draw margin, no order of games), so when both put the bots in the same order the order
does not come from either model's assumptions; `order_disagreements` lists the pairs where they differ.

Ties use the Breslow approximation, as in Cox regression: the seats of a tied block are all chosen at the
same stage, each with the denominator of everything still unplaced, and then leave together. A tie of two
players thus counts as one win for each.

A weak prior keeps every strength finite (a bot that never loses would otherwise have gamma = infinity):
each bot plays `prior_games` virtual two-player games won and `prior_games` lost against a virtual bot of
fixed strength 1, which pulls it gently toward the middle. With `prior_games=0` this is the plain maximum
likelihood estimate, which exists only when no set of bots always finishes ahead of the rest (checked: a
ValueError otherwise). Bots that never play with positive weight stay where the prior alone puts them,
level with the virtual bot; the result is normalised to mean 0 over the bots that played, so listing
more bots that never played changes nobody's strength.

The groups are first reduced to sufficient statistics: each bot's weighted number of choices, and for each
distinct set of bots still unplaced at some stage, the weighted number of seats chosen from it. A handful
of bots then give a few hundred sets however many games there are, and each MM step costs little. Each
step is followed by the best common shift of all strengths (the games fix only differences, and the
prior's pull on the level is too weak for MM to settle it in reasonable time), and pairs of steps are
extrapolated by SQUAREM when that does not lower the likelihood. The iteration stops when one MM step
changes no log-strength by `tol` or more; where the likelihood is very flat (a bot that never loses) the
distance to the optimum can be a few orders of magnitude larger than that last step. Sums are taken in an
order fixed by the data, not by the order of the groups, so permuting the groups (or the seats within a
tie) gives the same result bit for bit.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

_MAX_LOG_STRENGTH = 600.0
"""SQUAREM jumps beyond this are not tried: exp overflows a little above 700."""


@dataclass(frozen=True)
class _Statistics:
    """The sufficient statistics of the likelihood, in compact bot codes (only bots that played).

    The log-likelihood is sum_i wins[i] * theta[i] - sum_R count[R] * log(sum of gamma over set R), with one
    R per distinct set of seats still unplaced at some stage; `set_of` and `member` list the sets' members.
    """

    wins: np.ndarray  # (bots,) weighted number of times each bot was chosen at a stage
    count: np.ndarray  # (sets,) weighted number of seats chosen from each remaining set
    set_of: np.ndarray  # (members,) the set of each member entry
    member: np.ndarray  # (members,) the bot of each member entry


def _keyed_sums(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of `keys` (non-negative integers) in lexicographic order, with the sums of their `values`."""
    if not len(values):
        return keys[:0], values[:0]
    # Sorting by the values within each key fixes the order of every sum whatever the order of the groups,
    # so permuting the groups gives the same floats bit for bit. One integer per row, when it fits, makes
    # that a sort on two keys instead of one per column.
    radix, width = int(keys.max()) + 1, keys.shape[1]
    if radix**width < 2**62:
        rows = keys @ radix ** np.arange(width - 1, -1, -1, dtype=np.int64)
        order = np.lexsort((values, rows))
        rows = rows[order]
        new = rows[1:] != rows[:-1]
    else:
        order = np.lexsort((values, *keys.T[::-1]))
        new = np.any(keys[order][1:] != keys[order][:-1], axis=1)
    starts = np.flatnonzero(np.concatenate([[True], new]))
    return keys[order[starts]], np.add.reduceat(values[order], starts)


def _statistics(bots: np.ndarray, drawn: np.ndarray, weights: np.ndarray, n_bots: int) -> _Statistics:
    """Reduces the groups (compact bot codes, all weights positive) to the sufficient statistics."""
    groups, n = bots.shape
    # A stage starts at every seat not tied with the seat before it; `run` counts the seats from each
    # position to the end of its tied block, so at a stage start it is the number of seats chosen there.
    run = np.ones((groups, n), dtype=np.int64)
    for k in range(n - 2, -1, -1):
        run[:, k] = np.where(drawn[:, k], run[:, k + 1] + 1, 1)
    starts = np.ones((groups, n), dtype=bool)
    starts[:, 1:] = ~drawn

    # A last seat alone is not a choice: its factor gamma / gamma is 1 and would only slow the MM down.
    chosen = np.ones((groups, n), dtype=bool)
    chosen[:, -1] = drawn[:, -1]
    # With the groups in order of weight, each bot's wins are added in increasing order of weight whatever
    # the order of the groups (a bot has one seat per group), so the sums do not depend on it.
    by_weight = np.argsort(weights, kind="stable")
    wins = np.bincount(bots[by_weight][chosen[by_weight]], weights=np.broadcast_to(
        weights[by_weight, None], (groups, n))[chosen[by_weight]], minlength=n_bots)

    counts, set_of, member = [], [], []
    offset = 0
    for k in range(n - 1):  # the stage at n - 1, if any, has one seat left: no choice
        at = starts[:, k]
        sets, count = _keyed_sums(np.sort(bots[at, k:], axis=1), weights[at] * run[at, k])
        counts.append(count)
        set_of.append(np.repeat(np.arange(offset, offset + len(sets)), n - k))
        member.append(sets.ravel())
        offset += len(sets)
    return _Statistics(wins, np.concatenate(counts), np.concatenate(set_of), np.concatenate(member))


def strongly_connected(edges: np.ndarray) -> bool:
    """Whether every node of a directed graph reaches every other (`edges[i, j]`: an edge from i to j): from the
    first node, forwards and backwards. Spares the ratings scipy.sparse.csgraph, whose import (scipy.linalg with it)
    cost a command that rates 50 to 120 ms."""
    def reaches_all(edges: np.ndarray) -> bool:
        seen = np.zeros(len(edges), dtype=bool)
        seen[:1] = True
        frontier = seen.copy()
        while frontier.any():
            frontier = edges[frontier].any(axis=0) & ~seen
            seen |= frontier
        return bool(seen.all())

    return reaches_all(edges) and reaches_all(edges.T)


def _check_connected(bots: np.ndarray, drawn: np.ndarray, n_bots: int) -> None:
    """Raises when the maximum-likelihood estimate does not exist (some bots always finish ahead of the rest)."""
    groups, n = bots.shape
    # Bot a "beats" b when a is chosen while b is still unplaced (Breslow: tied seats beat each other).
    # The estimate exists if and only if every bot reaches every other through such wins (Hunter 2004).
    beats = np.zeros((n_bots, n_bots), dtype=bool)
    block = np.zeros((groups, n), dtype=np.int64)  # the position where each seat's tied block starts
    for p in range(1, n):
        block[:, p] = np.where(drawn[:, p - 1], block[:, p - 1], p)
    for p in range(n):
        for q in range(n):
            if q == p:
                continue
            a = (block[:, p] <= q) if p < n - 1 else (drawn[:, -1] & (block[:, p] <= q))
            beats[bots[a, p], bots[a, q]] = True
    if not strongly_connected(beats):
        raise ValueError("with prior_games=0 the maximum-likelihood estimate does not exist: some bots always "
                         "finish ahead of (or never meet) the others; use prior_games > 0")


def _level(theta: np.ndarray) -> np.ndarray:
    """Shifts all log-strengths together to the best level against the virtual bot."""
    # The games only fix differences; the level comes from the prior alone, whose pull (a few virtual games
    # against thousands of real ones) is so weak that MM would take millions of steps to settle it. The
    # best shift c solves sum_i sigmoid(theta_i + c) = bots / 2: Newton's method from c = 0 (the last level),
    # bisecting when a step leaves the bracket. It raises the penalised likelihood, so the ascent stays monotone.
    target = len(theta) / 2
    low, high = -theta.max() - 40.0, -theta.min() + 40.0
    shift = 0.0
    for _ in range(200):
        p = expit(theta + shift)
        excess = p.sum() - target
        if excess > 0:
            high = shift
        else:
            low = shift
        slope = (p * (1 - p)).sum()
        new = shift - excess / slope if slope > 0 else 0.5 * (low + high)
        # Far below the MM tolerance; asking for the last ulp would let rounding noise keep it going.
        if abs(new - shift) <= 1e-13 * (1 + abs(shift)):
            return theta + new
        shift = new if low < new < high else 0.5 * (low + high)
    return theta + shift


def _mm_step(theta: np.ndarray, stats: _Statistics, log_numerator: np.ndarray, prior_games: float) -> np.ndarray:
    """One MM update of the log-strengths (Hunter 2004), then the best common level."""
    gamma = np.exp(theta)
    totals = np.bincount(stats.set_of, weights=gamma[stats.member], minlength=len(stats.count))
    denominator = np.bincount(stats.member, weights=(stats.count / totals)[stats.set_of], minlength=len(theta))
    if not prior_games:
        new = log_numerator - np.log(denominator)
        return new - new.mean()  # without the virtual bot only differences are identified
    # The minorised prior games: gamma_i / (gamma_i + 1) won and 1 / (gamma_i + 1) lost, prior_games each.
    denominator += 2 * prior_games / (gamma + 1)
    return _level(log_numerator - np.log(denominator))


def _log_likelihood(theta: np.ndarray, stats: _Statistics, prior_games: float) -> float:
    """The penalised log-likelihood the MM steps increase."""
    totals = np.bincount(stats.set_of, weights=np.exp(theta)[stats.member], minlength=len(stats.count))
    # np.sum rather than a BLAS dot product: its order of summation cannot depend on memory alignment.
    value = np.sum(stats.wins * theta) - np.sum(stats.count * np.log(totals))
    if prior_games:
        value += prior_games * (theta.sum() - 2 * np.logaddexp(0, theta).sum())
    return float(value)


def _fit(stats: _Statistics, prior_games: float, tol: float, max_iter: int) -> np.ndarray:
    """Iterates MM steps, extrapolated by SQUAREM where that does not lower the likelihood, to convergence."""
    log_numerator = np.log(stats.wins + prior_games)
    step = lambda t: _mm_step(t, stats, log_numerator, prior_games)
    theta = np.zeros(len(stats.wins))
    steps = 0
    # Plain MM creeps when the likelihood is flat along some direction: a bot that (nearly) never loses
    # climbs by about 1/(its games) of the remaining distance per step. So each cycle of two MM steps is
    # extrapolated along its path (SQUAREM, Varadhan & Roland 2008) and followed by one more MM step; the
    # result is kept only when its likelihood is not below that of the two plain steps (up to rounding,
    # which near the optimum is all that separates them), so the ascent stays monotone like plain MM.
    while steps < max_iter:
        first = step(theta)
        steps += 1
        change = first - theta
        if np.max(np.abs(change)) < tol:
            return first
        second = step(first)
        steps += 1
        curvature = second - 2 * first + theta
        alpha = -np.sqrt(np.sum(change**2) / np.sum(curvature**2)) if np.any(curvature) else -1.0
        if not alpha < -1:
            theta = second
            continue
        extrapolated = theta - 2 * alpha * change + alpha**2 * curvature
        if np.max(np.abs(extrapolated)) > _MAX_LOG_STRENGTH:  # a wild jump early on: exp would overflow
            theta = second
            continue
        candidate = step(extrapolated)
        steps += 1
        plain = _log_likelihood(second, stats, prior_games)
        better = _log_likelihood(candidate, stats, prior_games)
        theta = candidate if better >= plain - 1e-13 * abs(plain) else second
    warnings.warn(f"Plackett–Luce fit did not converge to tol={tol} in {max_iter} MM steps", RuntimeWarning,
                  stacklevel=3)
    return theta


def plackett_luce(bots: np.ndarray, drawn: np.ndarray, weights: np.ndarray, n_bots: int, *,
                  prior_games: float = 1.0, tol: float = 1e-10, max_iter: int = 10000) -> np.ndarray:
    """Maximum-likelihood Plackett–Luce log-strengths of grouped outcomes (seats in finishing order), mean 0."""
    bots = np.asarray(bots, dtype=np.int64)
    drawn = np.asarray(drawn, dtype=bool)
    weights = np.asarray(weights, dtype=np.float64)
    if bots.ndim != 2 or bots.shape[1] < 2:
        raise ValueError(f"bots must be (groups, n) with n >= 2, not {bots.shape}")
    if drawn.shape != (bots.shape[0], bots.shape[1] - 1):
        raise ValueError(f"drawn must be {(bots.shape[0], bots.shape[1] - 1)}, not {drawn.shape}")
    if weights.shape != (bots.shape[0],):
        raise ValueError(f"weights must be ({bots.shape[0]},), not {weights.shape}")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("weights must be finite and non-negative")
    if bots.size and (bots.min() < 0 or bots.max() >= n_bots):
        raise ValueError(f"bot codes must be in 0..{n_bots - 1}")
    if np.any(np.diff(np.sort(bots, axis=1), axis=1) == 0):
        raise ValueError("a bot appears twice in one group")
    if prior_games < 0:
        raise ValueError("prior_games must be non-negative")

    keep = weights > 0
    bots, drawn, weights = bots[keep], drawn[keep], weights[keep]
    # Only bots that played are fitted; the others stay where the prior puts them, level with the virtual
    # bot (theta 0 before normalising). The mean is taken over the bots that played, so adding a bot that
    # never played to n_bots does not move anyone else.
    played = np.zeros(n_bots, dtype=bool)
    played[bots.ravel()] = True
    codes = np.flatnonzero(played)
    theta = np.zeros(n_bots)
    if not len(codes):
        return theta
    compact = np.full(n_bots, -1, dtype=np.int64)
    compact[codes] = np.arange(len(codes))
    bots = compact[bots]
    if prior_games == 0:
        _check_connected(bots, drawn, len(codes))
    theta[codes] = _fit(_statistics(bots, drawn, weights, len(codes)), prior_games, tol, max_iter)
    return theta - theta[codes].mean()


def order_disagreements(names: Sequence[str], first_order: Sequence[str], second_scores: Mapping[str, float], *,
                        first: str = "TrueSkill", second: str = "Plackett–Luce") -> list[str]:
    """One line for every pair of `names` that `first_order` (best first) and `second_scores` rank differently."""
    position = {name: i for i, name in enumerate(first_order)}
    missing = [name for name in names if name not in position or name not in second_scores]
    if missing:
        raise ValueError(f"not ranked by both methods: {', '.join(missing)}")
    ranked = sorted(names, key=position.__getitem__)
    lines = []
    for i, upper in enumerate(ranked):
        for lower in ranked[i + 1:]:
            if second_scores[upper] < second_scores[lower]:
                lines.append(f"{upper} above {lower} by {first}, below by {second}")
            elif second_scores[upper] == second_scores[lower]:
                lines.append(f"{upper} above {lower} by {first}, level with it by {second}")
    return lines
