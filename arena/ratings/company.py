"""Company counted equally: the weighting that keeps a multi-player rating from depending on which tables were played.

At a table of three or more, one bot's result depends on who else sits there, not only on its own strength: in
three-player Go For It, `random` scores 0.29 against `greedy` when `heuristic` is the third seat and 0.03 when a
second `random` is (docs/numbers.md, "Company"). A model with one number per bot cannot absorb that, so its
ratings depend on the mix of tables each bot was given: a copy of a bot that joined a league late, and so met
other company, was rated a tier below its original.

The remedy weighs the games so that every company (the set of bots at a table) counts the same in the fit,
however many games it played: each game of a company that played `n_c` of the `N` games of `C` companies counts
`N / (C n_c)` times. Two copies then stand on equal terms wherever each company one of them met was also met by
the other with the copies swapped; the league's matchmaker plays those swapped tables
(`arena.league.matchmaker`). Where every company played equally often, as in a round robin, every weight is
exactly 1 and nothing changes. Two-player variants are left as they are: their company is the opponent alone,
which the model already separates.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from arena.ratings.batch import Outcomes
from arena.ratings.bootstrap import DealGames


def company_weights(bots: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
    """Each outcome group's weight per game (groups,), so every company counts the same in total: None where
    nothing changes (two players, or every company with the same number of games)."""
    groups, n = bots.shape
    if n < 3 or groups == 0:
        return None
    _, company = np.unique(np.sort(bots, axis=1), axis=0, return_inverse=True)
    company = company.reshape(-1)
    per_company = np.bincount(company, weights=counts)
    played = per_company > 0
    if np.all(per_company[played] == per_company[played][0]):
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(played, counts.sum() / played.sum() / per_company, 0.0)
    return share[company]


def balanced(outcomes: Outcomes, deal_games: DealGames, progress: np.ndarray | None = None
             ) -> tuple[Outcomes, DealGames, np.ndarray | None, bool]:
    """The outcomes, their games by deal and the progress weights with every company counted equally, and
    whether anything was reweighted."""
    weight = company_weights(outcomes.bots, outcomes.counts)
    if weight is None:
        return outcomes, deal_games, progress, False
    from scipy import sparse

    scaled = Outcomes(outcomes.bots, outcomes.drawn, outcomes.counts * weight, outcomes.game_group)
    games = DealGames(sparse.csr_matrix(deal_games.games @ sparse.diags(weight)), deal_games.keys)
    return scaled, games, None if progress is None else progress * weight[None, :], True




def company_share(company_games: Counter, bots: np.ndarray) -> np.ndarray:
    """The weight per game of games seating `bots` (games or groups, n) in the fit of every game, whose games by
    company are `company_games` (`arena.ratings.bootstrap.OutcomeGroups.company_games`, in the same codes): the
    weights of a look's update (`arena.ratings.looks`)."""
    n = bots.shape[1] if bots.ndim == 2 else 0
    counts = np.array(list(company_games.values()), dtype=np.float64)
    if n < 3 or not len(counts) or np.all(counts == counts[0]):
        return np.ones(len(bots))
    mass = counts.sum() / len(counts)
    return np.array([mass / company_games[tuple(company)] for company in np.sort(bots, axis=1).tolist()])
