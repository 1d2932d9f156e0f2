"""A look at where a variant stands, for a matchmaker choosing its next round: the bots in rating order and the
standard error of each rating difference, at a cost that grows with the games since the last checkpoint rather
than with every game.

Below WARM_FROM games a look is the tables' own fit and deal bootstrap, the numbers `arena ratings` shows. From
WARM_FROM games on, the games are cut at checkpoints: the milestones WARM_FROM, then a quarter more each time
(each extended to the end of the deal that holds its last game). The games up to the last milestone are fitted
and bootstrapped once, at the first look past it. Each look then updates that fit with the games since, by
expectation propagation over their outcome groups alone with the checkpoint's posterior as their prior (the
earlier games' messages are not revisited: assumed-density filtering, `rate_outcomes(base=...)`), and scales
the checkpoint's bootstrap standard errors by how much the posterior's own have shrunk since. Where a milestone
falls depends on the number of games alone, never on when the looks were taken, so a league's looks are a
function of its games: a `play` killed and run again chooses the same tables. At three or more players the
games since are weighed as the fit of every game weighs them (each company capped, `company_cap` in
`arena.ratings.company`), while the checkpoint's own games keep the weights they had at the checkpoint: where
companies grow at unequal paces after it, a look drifts from the full fit until the next checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arena.ratings.bootstrap import DealGames, deal_bootstrap, difference_se
from arena.ratings.company import balanced, company_share
from arena.ratings.offline import Outcomes, group_outcomes, rate_outcomes

MIXTURE_SE = 0.5
"""The standard error (in mu) of a difference around which the confidence sequence of `anytime_halfwidth` is
tightest: it is near-optimal for errors of about 0.05 to 0.3 mu, where adjacent pairs settle (a tie within the
default margin of 0.5 needs an error below about 0.15)."""

WARM_FROM = 200_000
"""Games of a variant from which a look updates the last checkpoint instead of fitting every game afresh."""


@dataclass(frozen=True)
class Standing:
    """Where a variant stands: its bots in rating order, their mu, and the standard error of each difference."""

    bots: list[str]
    mu: np.ndarray
    """(bots,) in the order of `bots`"""
    difference_se: np.ndarray
    """(bots, bots) in the order of `bots`"""


@dataclass(frozen=True)
class _Checkpoint:
    mark: int
    """Its milestone."""
    games: int
    """The games it fitted: the first ones added, up to the end of a deal."""
    names: list[str]
    mu: np.ndarray
    sigma: np.ndarray
    difference_se: np.ndarray
    """By the order of `names`; only bots that played before the checkpoint are in it."""


def standings(running) -> dict[str, Standing]:
    """Where each variant of running ratings (`arena.ratings.tables.RunningRatings`) stands, by variant name."""
    return running.each(look)


def milestone(games: int) -> int | None:
    """The last checkpoint at or below `games`, in whole integers (None below WARM_FROM)."""
    if games < WARM_FROM:
        return None
    mark = WARM_FROM
    while mark + mark // 4 <= games:
        mark += mark // 4
    return mark


def look(variant) -> Standing:
    """The standing of one variant's running sums (`arena.ratings.tables._Variant`), every game added."""
    variant.complete()
    if variant.online is not None:  # the online pass has no deal bootstrap to carry: its own tables
        rated = variant.finish()
        return Standing(list(rated.table["bot"]), rated.table["mu"].to_numpy(), rated.difference_se)
    names, _, name_code = variant.naming()
    groups = variant.groups
    mark = milestone(groups.games)
    if mark is None:
        mu, _, diff_se, _ = _fit(variant, name_code, None)
        return _standing(names, mu, diff_se)
    checkpoint = variant.checkpoint
    if checkpoint is None or checkpoint.mark != mark:
        cut = groups.deal_end(mark)
        mu, sigma, diff_se, present = _fit(variant, name_code, cut)
        checkpoint = variant.checkpoint = _Checkpoint(mark, cut, list(names[present]), mu, sigma, diff_se)
    if groups.games == checkpoint.games:
        return _standing(np.array(checkpoint.names, dtype=object), checkpoint.mu, checkpoint.difference_se)
    return _standing(names, *_update(variant, names, name_code, checkpoint))


def _fit(variant, name_code: np.ndarray, upto: int | None):
    """mu, sigma and the bootstrap standard error of each difference, of the first `upto` games (all without),
    and the bots that played them (by name). A checkpoint (`upto`) is fitted among its own bots and groups alone,
    so that it does not depend on what was added after it."""
    settings = variant.settings
    outcomes, deal_games, _, _ = variant.groups.outcomes(name_code, upto)
    present = np.ones(len(name_code), dtype=bool)
    if upto is not None:
        played = outcomes.counts > 0
        present = np.bincount(outcomes.bots[played].reshape(-1), minlength=len(name_code)) > 0
        code = np.cumsum(present) - 1
        outcomes = Outcomes(code[outcomes.bots[played]], outcomes.drawn[played], outcomes.counts[played])
        deal_games = DealGames(deal_games.games[:, played], deal_games.keys)
    outcomes, deal_games, _, _ = balanced(outcomes, deal_games, None, settings.company_deals)
    k = int(present.sum())
    batch = rate_outcomes(outcomes, k, settings)
    boot, _ = deal_bootstrap(outcomes, deal_games, variant.replicates, k, settings, batch)
    return batch.mu[0], batch.sigma[0], difference_se(boot), present


def _update(variant, names: np.ndarray, name_code: np.ndarray, checkpoint: _Checkpoint):
    """mu and the difference standard errors of every game, the checkpoint's fit updated by the games since."""
    settings, k = variant.settings, len(names)
    bots, ranks, counts = variant.groups.since(checkpoint.games)
    grouped = group_outcomes(name_code[bots], ranks)  # tied bots in the order of their names, as in a fit
    counts = counts * company_share(variant.groups.company_games, bots, settings.company_deals)  # as the full fit
    outcomes = Outcomes(grouped.bots, grouped.drawn, np.bincount(grouped.game_group, counts).astype(np.float64))
    at = np.searchsorted(names, checkpoint.names)  # both in name order
    base_pi, base_tau = np.full(k, settings.sigma ** -2), np.full(k, settings.mu * settings.sigma ** -2)
    base_pi[at], base_tau[at] = checkpoint.sigma ** -2, checkpoint.mu * checkpoint.sigma ** -2
    fit = rate_outcomes(outcomes, k, settings, base=(base_pi, base_tau))
    mu, variance = fit.mu[0], fit.sigma[0] ** 2
    diff_se = np.sqrt(variance[:, None] + variance[None, :])  # a bot new since: the posterior's own
    before = checkpoint.sigma ** 2
    shrunk = np.sqrt((variance[at][:, None] + variance[at][None, :]) / (before[:, None] + before[None, :]))
    diff_se[np.ix_(at, at)] = checkpoint.difference_se * shrunk
    np.fill_diagonal(diff_se, 0.0)
    return mu, diff_se


def anytime_halfwidth(se, confidence: float, mixture: float = MIXTURE_SE):
    """The half-width of a confidence sequence for a rating difference estimated with standard error `se` (scalar or
    array): the normal-mixture boundary of Robbins, |d - delta| <= se sqrt((1 + v) (log(1 + 1/v) + 2 log(1/alpha)))
    with v = (se / mixture)^2 and alpha = 1 - confidence (`mixture`: the error where it is tightest, MIXTURE_SE unless
    a study compares others, benchmarks/anytime.py). Unlike the fixed interval d +- 1.96 se, it holds at every
    look at once: where the difference is a Gaussian martingale in its information 1/se^2, the chance that any look,
    however many, excludes the true difference is at most alpha (Ville's inequality on the mixture martingale;
    Howard, Ramdas, McAuliffe and Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence sequences", 2021,
    eq. 14). It costs width: 3.0 to 3.3 standard errors for errors from 0.05 to 0.3 mu, where a fixed interval has
    1.96, so about 2.6 times the games to settle a given pair. An error of 0 (nothing to tell, e.g. one deal) gives an
    infinite width."""
    se = np.asarray(se, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (se / mixture) ** 2
        half = se * np.sqrt((1 + v) * (np.log1p(1 / v) + 2 * np.log(1 / (1 - confidence))))
    return np.where(se > 0, half, np.inf) if half.ndim else (float(half) if se > 0 else float("inf"))


def _standing(names: np.ndarray, mu: np.ndarray, diff_se: np.ndarray) -> Standing:
    order = np.lexsort((names.astype(str), -mu))
    return Standing(list(names[order]), mu[order], diff_se[np.ix_(order, order)])
