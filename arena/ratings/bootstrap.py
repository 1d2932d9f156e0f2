"""The deal bootstrap of the ratings and what rests on it: the likelihood of superiority, the tiers and the
estimate against deals.

A variant's games are summed into outcome groups (`OutcomeGroups`), and each game's deal is kept, so that
every deal-bootstrap replicate is a weighting of the groups: in each replicate every deal counts a Poisson(1)
number of times, drawn from a hash of a fixed seed, the replicate and the deal's seed, so the same results
always give the same intervals, whatever their order. Each replicate is refitted by EP, or for many outcome
groups taken one Newton step from the fit (`deal_bootstrap`). Bots not separated at 95% share a tier.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse, special

from arena.config import RatingSettings
from arena.ratings.deals import Z95, poisson_weights
from arena.ratings.offline import (
    BatchRatings,
    NewtonTerms,
    Outcomes,
    group_outcomes,
    newton_terms,
    rate_outcomes,
)

BOOTSTRAP_REPLICATES = 200
"""Deal-bootstrap replicates behind every rating interval, LOS and tier."""
BOOTSTRAP_SEED = 20261123
"""Fixed, so the same results give the same intervals bit for bit."""
SEPARATED = 0.975
"""Likelihood of superiority at which two adjacent bots are separated: the 95% two-sided interval of
their rating difference excludes zero."""
PROGRESS_POINTS = 12
"""Checkpoints of the estimate-against-deals chart."""
BOOTSTRAP_DEALS = 8192
"""Deals whose bootstrap weights are drawn at once (a few MB), however many a variant has."""
MERGE_ROWS = 1 << 20
"""Outcome groups held beyond the last merge's before they are merged (about 100 MB for six players)."""
EP_BOOTSTRAP_SEATS = 2400
"""Outcome groups times seats up to which every bootstrap replicate is refitted by EP (at 200 replicates,
up to about half a second); beyond, the replicates are a Newton step from the fit."""


class OutcomeGroups:
    """A variant's games by outcome group, part by part: the groups held (bots in first-appearance codes),
    with their games, every game's group and deal, and each deal's number (for the estimate against deals,
    whose checkpoints are known only once every deal is in). Each part's groups are appended as they are and
    merged with the rest only once MERGE_ROWS of them are held: merging part by part would copy every group
    found so far for each part, a cost that grows with parts times groups, and never merging would hold a
    part's worth of groups for every part."""

    def __init__(self, replicates: int, progress: bool = True) -> None:
        self.replicates = replicates
        self.bots: list[np.ndarray] = []
        self.drawn: list[np.ndarray] = []
        self.counts: list[np.ndarray] = []
        """The groups held, a block per part or merge: bots in finishing order, ties, and games."""
        self.rows = self.merged_rows = 0
        """The groups held, and those the last merge left."""
        self.game_groups: list[np.ndarray] = []
        self.game_deals: list[np.ndarray] = []
        """Per part, every game's group (a row of the groups held) and deal (numbered from 0 over all the parts)."""
        self.deal_keys: list[np.ndarray] = []
        self.deal_numbers: list[np.ndarray] | None = [] if progress else None
        """Per part, each deal's number (None: no estimate against deals)."""
        self.deals = 0
        self.company_games: Counter = Counter()
        """Games by company (a table's bots, sorted, in first-appearance codes): the weights of a look's update
        (`arena.ratings.company`) without merging every group."""

    def add(self, bots: np.ndarray, ranks: np.ndarray, deal: np.ndarray, deal_keys: np.ndarray,
            deal_numbers: np.ndarray | None) -> None:
        """Adds games of whole deals: `deal` numbers the deals 0.., `deal_keys` are their keys."""
        local = group_outcomes(bots, ranks)
        self.bots.append(local.bots)
        self.drawn.append(local.drawn)
        self.counts.append(local.counts)
        if local.bots.shape[1] > 2:  # companies matter at three or more seats (`arena.ratings.company`)
            companies, company = np.unique(np.sort(local.bots, axis=1), axis=0, return_inverse=True)
            games = np.bincount(company.reshape(-1), weights=local.counts, minlength=len(companies))
            self.company_games.update(dict(zip(map(tuple, companies.tolist()), games.tolist(), strict=True)))
        self.game_groups.append((local.game_group + self.rows).astype(np.int32))  # 8 bytes a game in all
        self.game_deals.append((deal + self.deals).astype(np.int32))
        self.rows += len(local.counts)
        self.deals += len(deal_keys)
        self.deal_keys.append(deal_keys)
        if deal_numbers is None:
            self.deal_numbers = None
        if self.deal_numbers is not None:
            numbers = np.empty(len(deal_keys), np.int32)
            numbers[deal] = deal_numbers  # the games of a deal share its number
            self.deal_numbers.append(numbers)
        if self.rows > self.merged_rows + MERGE_ROWS:
            self._merge(np.arange(int(max(map(np.max, self.bots))) + 1))

    def _merge(self, code: np.ndarray) -> Outcomes:
        """Merges the groups held into one block, with bots renamed by `code`, in the canonical order of
        `group_outcomes`; returns them."""
        bots, drawn = code[np.concatenate(self.bots)], np.concatenate(self.drawn)
        canonical = group_outcomes(bots, _ranks(drawn))  # the same outcomes merged, tied bots reordered by their codes
        place, groups = canonical.game_group, len(canonical.counts)
        counts = np.bincount(place, weights=np.concatenate(self.counts), minlength=groups)
        self.bots, self.drawn, self.counts = [canonical.bots], [canonical.drawn], [counts]
        self.game_groups = [place[games].astype(np.int32) for games in self.game_groups]
        self.rows = self.merged_rows = groups
        return Outcomes(canonical.bots, canonical.drawn, counts)

    @property
    def games(self) -> int:
        return sum(len(groups) for groups in self.game_groups)

    def deal_end(self, games: int) -> int:
        """The games added up to the end of the deal that holds game number `games` (counted from 1)."""
        deals = np.concatenate(self.game_deals)
        later = np.flatnonzero(deals[games:] != deals[games - 1])
        return games + int(later[0]) if len(later) else len(deals)

    def since(self, first: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The bots (first-appearance codes) and ranks of each outcome of the games added from game `first` on,
        with their games: (bots, ranks, counts), nothing merged."""
        tail, end = [], self.games
        for groups in reversed(self.game_groups):  # only the parts that hold those games
            if end <= first:
                break
            tail.append(groups[max(0, first - (end - len(groups))):])
            end -= len(groups)
        rows, counts = np.unique(np.concatenate(tail or [np.zeros(0, np.int32)]), return_counts=True)
        return np.concatenate(self.bots)[rows], _ranks(np.concatenate(self.drawn)[rows]), counts

    def outcomes(self, name_code: np.ndarray, upto: int | None = None
                 ) -> tuple[Outcomes, DealGames, np.ndarray | None, np.ndarray | None]:
        """The groups in bot codes by name and in the canonical order of `group_outcomes` (so that the ratings
        do not depend on the order of the games): the outcomes, their games by deal, the checkpoints of the
        estimate against deals (`progress_points`) and the groups' games before each (checkpoints, groups).
        With `upto`, only the games added first count (and no estimate against deals)."""
        outcomes = self._merge(name_code)
        first_code = np.empty_like(name_code)
        first_code[name_code] = np.arange(len(name_code))
        self.bots = [first_code[self.bots[0]]]  # held on in first-appearance codes: later parts may add games
        keys = np.concatenate(self.deal_keys)
        game_deals = np.concatenate(self.game_deals)[:upto]
        game_groups = np.concatenate(self.game_groups)[:upto]
        if upto is not None:  # only the deals and the counts of those games
            deals = np.unique(game_deals)
            keys, game_deals = keys[deals], np.searchsorted(deals, game_deals)
            outcomes = Outcomes(outcomes.bots, outcomes.drawn,
                                np.bincount(game_groups, minlength=len(outcomes.counts)).astype(np.float64))
        by_key = np.argsort(keys, kind="stable")  # deals in key order: sums that do not depend on the games' order
        position = np.empty(len(keys), dtype=np.int64)
        position[by_key] = np.arange(len(keys))
        games = sparse.csr_matrix((np.ones(len(game_deals)), (position[game_deals], game_groups)),
                                  shape=(len(keys), len(outcomes.counts)))
        points = progress = None
        if self.deal_numbers is not None and upto is None:
            numbers = np.concatenate(self.deal_numbers)
            points = progress_points(int(numbers.max()) + 1)
            checkpoint = np.searchsorted(points, numbers, side="right")[game_deals]  # counted from this one on
            width = len(points) + 1
            cells = game_groups.astype(np.int64) * width + checkpoint
            progress = np.bincount(cells, minlength=len(outcomes.counts) * width).reshape(-1, width)
            progress = np.cumsum(progress, axis=1)[:, :-1].T.astype(np.float64)
        return outcomes, DealGames(games, keys[by_key]), points, progress


def _ranks(drawn: np.ndarray) -> np.ndarray:
    """The seats' ranks of outcomes in finishing order, from their ties (groups, seats - 1)."""
    return np.concatenate([np.zeros((len(drawn), 1), np.int64), np.cumsum(~drawn, axis=1)], axis=1)


def progress_points(deals: int) -> np.ndarray:
    """The checkpoints of the estimate against deals: PROGRESS_POINTS numbers of deals, evenly up to all."""
    return np.unique(np.linspace(1, deals, min(deals, PROGRESS_POINTS)).round().astype(np.int64))


@dataclass(frozen=True)
class DealGames:
    """A variant's games by deal, for the deal bootstrap."""

    games: sparse.csr_matrix
    """(deals, groups) each deal's games in each outcome group"""
    keys: np.ndarray
    """(deals,) each deal's key, which draws its bootstrap weights"""

    def weighted(self, per_deal, replicates: int) -> np.ndarray:
        """(replicates, columns): the rows of `per_deal` (deals, columns; dense or sparse), each deal's row
        counted its Poisson weight times in each replicate, BOOTSTRAP_DEALS deals at a time."""
        out = np.zeros((replicates, per_deal.shape[1]))
        for first in range(0, len(self.keys) if replicates else 0, BOOTSTRAP_DEALS):
            last = min(first + BOOTSTRAP_DEALS, len(self.keys))
            weights = poisson_weights(self.keys[first:last], replicates, BOOTSTRAP_SEED).astype(np.float64)
            out += np.asarray(per_deal[first:last].T @ weights).T
        return out


def deal_bootstrap(outcomes: Outcomes, deal_games: DealGames, replicates: int, k: int, settings: RatingSettings,
                   batch: BatchRatings) -> tuple[np.ndarray, NewtonTerms | None]:
    """Batch mu of every bot in each deal-bootstrap replicate (replicates, bots), and the Newton terms of the
    fit `batch` where the replicates are steps from it (None where they are refitted).

    Each replicate is refitted by EP where that is cheap (EP_BOOTSTRAP_SEATS), else taken one Newton step
    from the fit: the large-sample limit of the refit, and within a few percent of its standard errors even
    at a few thousand games (test_newton_replicates_are_the_refitted_ones). A Newton step is linear in the
    weights, so it needs no replicate's weight of each group: only each deal's sums."""
    groups, n = outcomes.bots.shape
    if outcomes.bots.size > EP_BOOTSTRAP_SEATS:  # one set of Newton terms serves every weighting
        newton = newton_terms(outcomes, k, settings, batch)
        per_deal = deal_games.games @ newton.gradient  # (deals, bots), sparse: a deal seats few of the bots
        return newton.step(deal_games.weighted(per_deal, replicates)), newton
    weights = deal_games.weighted(deal_games.games, replicates)
    chunk = max(1, min(32, 4_000_000 // (groups * n)))  # replicates rated together, within a few hundred MB
    rows = [rate_outcomes(outcomes, k, settings, weights[start:start + chunk], start=batch).mu
            for start in range(0, len(weights), chunk)]
    return (np.concatenate(rows) if rows else np.zeros((0, k))), None


def difference_se(boot: np.ndarray) -> np.ndarray:
    """(bots, bots) bootstrap standard error of every rating difference."""
    if len(boot) < 2:
        return np.full((boot.shape[1],) * 2, np.nan)
    return np.std(boot[:, :, None] - boot[:, None, :], axis=0, ddof=1)


def likelihood_of_superiority(mu: np.ndarray, diff_se: np.ndarray) -> np.ndarray:
    """(bots, bots) likelihood of superiority: P(row bot is better than column bot), normal approximation."""
    diff = mu[:, None] - mu[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        los = special.ndtr(diff / diff_se)
    los = np.where(diff_se > 0, los, np.where(diff > 0, 1.0, np.where(diff < 0, 0.0, 0.5)))
    np.fill_diagonal(los, np.nan)
    return los


def tiers(order: np.ndarray, los: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank labels and tier numbers by bot code: a bot not separated from the one above it shares its tier."""
    labels, numbers = np.empty(len(order), dtype=object), np.zeros(len(order), dtype=np.int64)
    labels[order], numbers[order] = tier_labels([position == 0 or los[order[position - 1], bot] >= SEPARATED
                                                 for position, bot in enumerate(order)])
    return labels, numbers


def tier_labels(starts: list[bool]) -> tuple[np.ndarray, np.ndarray]:
    """Rank labels ("2=" where a tier holds more than one bot) and tier numbers of bots in rating order, a new tier
    beginning at each bot whose `starts` is true (the first bot begins one whatever it says)."""
    numbers = np.cumsum([True, *starts[1:]]) if starts else np.zeros(0, dtype=np.int64)
    sizes = np.bincount(numbers)
    first = np.cumsum(np.concatenate([[0, 1], sizes[1:-1]]))  # the position of each tier's first bot, by number
    labels = np.array([f"{first[n]}=" if sizes[n] > 1 else str(first[n]) for n in numbers], dtype=object)
    return labels, numbers.astype(np.int64)


def estimate_against_deals(outcomes: Outcomes, points: np.ndarray | None, weights: np.ndarray | None, names,
                           k: int, settings: RatingSettings, batch: BatchRatings, boot: np.ndarray,
                           newton: NewtonTerms | None) -> pd.DataFrame | None:
    """The batch estimate on the first d deals of every table, at each checkpoint d (`weights`: the groups'
    games before each).

    The interval at each point is the model's sigma widened by the full run's design effect (the
    bootstrap standard error over the posterior sigma), so it counts deals as the final one does."""
    if points is None or weights is None:
        return None
    if newton is not None:  # as in `deal_bootstrap`: a Newton step from the fit
        mu, sigma = newton.replicates(weights, own_curvature=True)
    else:
        rated = rate_outcomes(outcomes, k, settings, weights, start=batch)
        mu, sigma = rated.mu, rated.sigma
    widen = boot.std(axis=0, ddof=1) / batch.sigma[0] if len(boot) > 1 else np.ones(k)
    half = Z95 * sigma * widen
    return pd.DataFrame({"deals": np.repeat(points, k), "bot": np.tile(names, len(points)),
                         "mu": mu.reshape(-1), "mu_lo": (mu - half).reshape(-1), "mu_hi": (mu + half).reshape(-1)})
