"""Company weighed alike: the weighting that keeps a multi-player rating from depending on which tables were played.

At a table of three or more, one bot's result depends on who else sits there, not only on its own strength: in
three-player Go For It, `random` scores 0.29 against `greedy` when `heuristic` is the third seat and 0.03 when a
second `random` is (docs/numbers.md, "Company"). A model with one number per bot cannot absorb that, so its
ratings depend on the mix of tables each bot was given: a copy of a bot that joined a league late, and so met
other company, was rated a tier below its original.

So each company (the set of bots at a table) counts at most `company_deals` deals' worth of games in the fit
(`[ratings] company_deals`), or half its share of a round robin of as many games where that is more (`company_cap`),
the weights scaled so that the total stays the number of games. Two copies then stand on equal terms wherever each
company one of them met was also met, that often, by the other in its place; the league's matchmaker plays those swapped
tables (`arena.league.matchmaker`). Below the cap a company counts its games, so the many companies a league plays once
(a newcomer's placement) add no more noise than their games carry. Where every company played equally often, as in a
round robin, or none reached the cap, every weight is exactly 1 and nothing changes. Two-player variants are left as
they are: their company is the opponent alone, which the model already separates.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from arena.ratings.bootstrap import DealGames
from arena.ratings.offline import Outcomes

SHARE = 0.5
"""The part of its share of a round robin that a company counts in full, where that passes `company_deals` deals."""


def company_cap(games: float, bots: int, n: int, cap_deals: int) -> float:
    """The most games a company counts in a fit of `games` games among `bots` bots at tables of n: half its share of
    a round robin of as many games (every company of n of the bots alike, SHARE), or `cap_deals` deals' worth (a deal
    is a game in each of the n rotations) where that is more.

    A fixed cap alone bounds what the ratings can learn: once each company of a small field is at the cap, more games
    add nothing, and a three-player league of five bots (ten companies) never settled its twins. The share grows
    with the games, so a small field's companies count more as it plays on, while a large field, whose share stays
    below the cap, keeps the cap. Half of it, not all: a late-comer stands on its neighbour's terms once it met their
    companies as often as they count (`arena.league.companies.company_coverage`), and a company played for a long
    time before it came would otherwise keep it chasing a share that grows with every table played."""
    return max(float(cap_deals * n), SHARE * games / math.comb(max(bots, n), n))


def per_game(games: np.ndarray, n: int, cap_deals: int, bots: int) -> np.ndarray | None:
    """Each company's weight per game (companies,) given its games, among `bots` bots: at most `company_cap` in all,
    the total kept. None where nothing changes: two players, every company with as many games, or none over the
    cap."""
    played = games > 0
    mass = np.minimum(games, company_cap(float(games.sum()), bots, n, cap_deals))
    if n < 3 or not played.any() or np.all(games[played] == games[played][0]) or np.all(mass == games):
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(played, mass / games * (games.sum() / mass.sum()), 0.0)


def company_weights(bots: np.ndarray, counts: np.ndarray, cap_deals: int) -> np.ndarray | None:
    """Each outcome group's weight per game (groups,), its company's (`per_game`); None where nothing changes."""
    groups, n = bots.shape
    if n < 3 or groups == 0:
        return None
    _, company = np.unique(np.sort(bots, axis=1), axis=0, return_inverse=True)
    company = company.reshape(-1)
    weight = per_game(np.bincount(company, weights=counts), n, cap_deals, len(np.unique(bots)))
    return None if weight is None else weight[company]


def balanced(outcomes: Outcomes, deal_games: DealGames, progress: np.ndarray | None, cap_deals: int
             ) -> tuple[Outcomes, DealGames, np.ndarray | None, bool]:
    """The outcomes, their games by deal and the progress weights with each company counted at most `cap_deals`
    deals' worth, and whether anything was reweighted."""
    weight = company_weights(outcomes.bots, outcomes.counts, cap_deals)
    if weight is None:
        return outcomes, deal_games, progress, False
    from scipy import sparse

    scaled = Outcomes(outcomes.bots, outcomes.drawn, outcomes.counts * weight, outcomes.game_group)
    games = DealGames(sparse.csr_matrix(deal_games.games @ sparse.diags(weight)), deal_games.keys)
    return scaled, games, None if progress is None else progress * weight[None, :], True


def company_share(company_games: Counter, bots: np.ndarray, cap_deals: int) -> np.ndarray:
    """The weight per game of games seating `bots` (games or groups, n) in the fit of every game, whose games by
    company are `company_games` (`arena.ratings.bootstrap.OutcomeGroups.company_games`, in the same codes): the
    weights of a look's update (`arena.ratings.looks`)."""
    companies = list(company_games)
    field = len({bot for company in companies for bot in company})
    weight = per_game(np.array([company_games[c] for c in companies], dtype=np.float64), bots.shape[1], cap_deals,
                      field)
    if weight is None:
        return np.ones(len(bots))
    of = dict(zip(companies, weight.tolist(), strict=True))
    return np.array([of[tuple(c)] for c in np.sort(bots, axis=1).tolist()])
