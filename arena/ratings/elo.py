"""Logistic Elo of every bot of a variant from one joint Bradley–Terry fit of its deal-pair scores, with
intervals from the deal bootstrap: the numbers of the ladder (configs/ladder.toml, docs/expert.md).

A **deal-pair score** is one number per deal, per table and per two bots seated at it: A's score against B
over every seat rotation of that deal at that table, each rotation counting 1 when A ranked above B, 1/2 when
they tied and 0 when B ranked above A, averaged over the rotations. At two players that is the score of a
deal pair (the same cards, seats swapped); at four, each table yields six of them a deal, one per pair of its
bots.

The model is logistic Bradley–Terry: the expected score of A against B is 1 / (1 + 10^((elo_B - elo_A) / 400)).
Every deal-pair score counts as one observation with that expectation, so the log-likelihood is
sum s log p + (1 - s) log(1 - p) over them (a fractional score is part win, part loss, as Ordo and BayesElo
count draws). The fit is the maximum of that likelihood over every bot at once, with one bot anchored at 0,
found by Newton's method on the pair sums (a handful of bots: a few tiny linear solves). Unlike a score
against one yardstick, which crowds towards 1 for every strong bot, each bot is placed by all its games,
most of all by those against bots near it.

Intervals resample whole deals: every deal number of the variant, with all its rotations and all its tables'
games, counts a Poisson(1) number of times in each replicate (the weights of `poisson_weights`, as the
rating tables draw theirs), and the fit is repeated; the interval is the fit plus or minus 1.96 bootstrap
standard errors, as for the tables' mu.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from arena.ratings.bootstrap import BOOTSTRAP_REPLICATES, BOOTSTRAP_SEED
from arena.ratings.deals import Z95, poisson_weights
from arena.ratings.parts import split_by_variant
from arena.ratings.plackett_luce import strongly_connected

ELO_PER_LOGIT = 400 / math.log(10)
"""Elo points per unit of log-odds: 400 Elo is odds of 10 to 1."""
_MAX_STEP = 2.0
"""Largest Newton step in log-odds: keeps the first steps from far starts from overshooting."""
_TOLERANCE = 1e-10
_MAX_ITERATIONS = 200


@dataclass(frozen=True)
class DealPairScores:
    """A variant's deal-pair scores: one row per (deal, table, two bots at the table), lower bot code first."""

    first: np.ndarray
    """(rows,) the bot code of A"""
    second: np.ndarray
    """(rows,) the bot code of B, always greater than A's"""
    score: np.ndarray
    """(rows,) A's score against B, averaged over the deal's rotations at that table"""
    deal: np.ndarray
    """(rows,) the deal number, the unit the bootstrap resamples"""


def deal_pair_scores(bots: np.ndarray, ranks: np.ndarray, table_deal: np.ndarray, deal: np.ndarray) -> DealPairScores:
    """The deal-pair scores of games given as (games, seats) bot codes and ranks, with each game's key of its
    table and deal (the deal seed) and its deal number."""
    bots, ranks = np.asarray(bots), np.asarray(ranks)
    firsts, seconds, scores, keys, deals = [], [], [], [], []
    for i in range(bots.shape[1]):
        for j in range(i + 1, bots.shape[1]):
            swap = bots[:, i] > bots[:, j]
            score = (ranks[:, i] < ranks[:, j]) + 0.5 * (ranks[:, i] == ranks[:, j])
            firsts.append(np.where(swap, bots[:, j], bots[:, i]))
            seconds.append(np.where(swap, bots[:, i], bots[:, j]))
            scores.append(np.where(swap, 1 - score, score))
            keys.append(table_deal)
            deals.append(deal)
    first, second, key = np.concatenate(firsts), np.concatenate(seconds), np.concatenate(keys)
    rows = np.stack([key, first.astype(np.int64), second.astype(np.int64)], axis=1)
    unique, row_of, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    row_of = row_of.reshape(-1)
    deal_of = np.zeros(len(unique), np.int64)
    deal_of[row_of] = np.concatenate(deals)
    mean = np.bincount(row_of, weights=np.concatenate(scores), minlength=len(unique)) / counts
    return DealPairScores(unique[:, 1], unique[:, 2], mean, deal_of)


def fit_elo(first: np.ndarray, second: np.ndarray, wins: np.ndarray, games: np.ndarray, bots: int,
            anchor: int) -> np.ndarray:
    """Maximum-likelihood logistic Elo (replicates, bots) of the pairs (first, second) given, per replicate,
    A's summed score `wins` and the pair's summed weight `games` (both (replicates, pairs)); `anchor` is at 0."""
    wins, games = np.atleast_2d(wins), np.atleast_2d(games)
    free = np.delete(np.arange(bots), anchor)
    theta = np.zeros((len(wins), bots))
    for _ in range(_MAX_ITERATIONS):
        p = expit(theta[:, first] - theta[:, second])
        residual = wins - games * p
        gradient = np.zeros_like(theta)
        np.add.at(gradient.T, first, residual.T)
        np.add.at(gradient.T, second, -residual.T)
        curvature = games * p * (1 - p)
        information = np.zeros((len(wins), bots, bots))
        for index, (a, b) in enumerate(zip(first, second, strict=True)):
            information[:, a, a] += curvature[:, index]
            information[:, b, b] += curvature[:, index]
            information[:, a, b] -= curvature[:, index]
            information[:, b, a] -= curvature[:, index]
        reduced = information[:, free][:, :, free]
        step = np.linalg.solve(reduced, gradient[:, free, None])[:, :, 0]
        step = np.clip(step, -_MAX_STEP, _MAX_STEP)
        theta[:, free] += step
        if np.abs(step).max() < _TOLERANCE:
            break
    return theta * ELO_PER_LOGIT


def check_estimable(pairs: DealPairScores, bots: int) -> None:
    """Raises ValueError unless every bot's Elo is finite: no group of bots scored all or nothing against the
    rest (each bot can reach every other through a chain of bots that scored something against the next)."""
    scored = np.zeros((bots, bots))
    np.add.at(scored, (pairs.first, pairs.second), pairs.score)
    np.add.at(scored, (pairs.second, pairs.first), 1 - pairs.score)
    if not strongly_connected(scored > 0):
        raise ValueError("some bots scored all or nothing against the rest: their Elo has no finite maximum")


@dataclass(frozen=True)
class EloTable:
    """Each bot's Elo in one variant, anchored at one bot, with its deal-bootstrap interval."""

    bots: list[str]
    elo: np.ndarray
    """(bots,) logistic Elo, the anchor at 0"""
    se: np.ndarray
    """(bots,) bootstrap standard error (0 for the anchor)"""
    deals: int
    """deal numbers resampled"""
    observations: int
    """deal-pair scores fitted"""

    @property
    def lo(self) -> np.ndarray:
        """(bots,) the low end of each 95% interval."""
        return self.elo - Z95 * self.se

    @property
    def hi(self) -> np.ndarray:
        """(bots,) the high end of each 95% interval."""
        return self.elo + Z95 * self.se

    def frame(self) -> pd.DataFrame:
        """The table as rows (bot, elo, lo, hi, se), highest Elo first."""
        frame = pd.DataFrame({"bot": self.bots, "elo": self.elo, "lo": self.lo, "hi": self.hi, "se": self.se})
        return frame.sort_values("elo", ascending=False, kind="stable").reset_index(drop=True)


def elo_table(pairs: DealPairScores, bots: list[str], anchor: str = "random",
              replicates: int = BOOTSTRAP_REPLICATES, seed: int = BOOTSTRAP_SEED) -> EloTable:
    """The joint Elo fit of a variant's deal-pair scores (bot codes index `bots`), anchored at `anchor` = 0,
    with intervals from `replicates` deal-bootstrap refits."""
    if anchor not in bots:
        raise ValueError(f"the anchor {anchor!r} played no game here")
    k = len(bots)
    check_estimable(pairs, k)
    pair_code = pairs.first * k + pairs.second
    codes, pair_of = np.unique(pair_code, return_inverse=True)
    first, second = codes // k, codes % k
    deals, deal_of = np.unique(pairs.deal, return_inverse=True)
    # per deal and pair: the summed score and the count of deal-pair scores, which each replicate weights
    cells = deal_of * len(codes) + pair_of
    size = len(deals) * len(codes)
    wins = np.bincount(cells, weights=pairs.score, minlength=size).reshape(len(deals), len(codes))
    games = np.bincount(cells, minlength=size).reshape(len(deals), len(codes)).astype(np.float64)
    weights = poisson_weights(deals.astype(np.int64), replicates, seed).T.astype(np.float64)  # (replicates, deals)
    fitted = fit_elo(first, second, np.vstack([wins.sum(0), weights @ wins]),
                     np.vstack([games.sum(0), weights @ games]), k, bots.index(anchor))
    se = fitted[1:].std(axis=0, ddof=1) if replicates > 1 else np.full(k, np.nan)
    return EloTable(list(bots), fitted[0], se, len(deals), len(pairs.score))


def run_elo(run, anchor: str = "random", replicates: int = BOOTSTRAP_REPLICATES) -> dict[str, EloTable]:
    """The Elo table of every variant of a run directory (a `RunDir`), in the order the variants first appear."""
    from arena.results import load_results

    table = load_results(run, ["game_index", "variant", "players", "ranks", "seed", "deal"])
    tables = {}
    for variant, seated in split_by_variant(table):
        seats = int(seated.sizes[0])
        if (seated.sizes != seats).any():
            raise ValueError(f"{variant} mixes tables of different sizes")
        playing, bots = np.unique(seated.player, return_inverse=True)  # only the bots that played this variant
        deal = seated.deal if seated.deal is not None else seated.key
        pairs = deal_pair_scores(bots.reshape(-1, seats), seated.rank.reshape(-1, seats), seated.key, deal)
        tables[variant] = elo_table(pairs, [seated.names[code] for code in playing], anchor, replicates)
    return tables
