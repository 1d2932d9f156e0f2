"""The ladder's Elo (arena/ratings/elo.py): deal-pair scores worked by hand, a joint Bradley–Terry fit that recovers
a known truth with intervals that cover it about as often as they claim, and copies of a bot in a real round
robin rated alike."""

import itertools

import numpy as np
import pytest
from scipy.special import expit

import arena
from arena.ratings.elo import ELO_PER_LOGIT, deal_pair_scores, elo_table, run_elo
from arena.results import RunDir

TRUTH = np.array([0.0, 150.0, 300.0, 320.0, 500.0])
"""Known Elo of five simulated bots, the first the anchor: a close pair and a wide spread."""


def test_deal_pair_scores_average_the_rotations_of_each_table_and_deal():
    # a deal of a four-player table in two of its rotations; ranks 0 best, seats 1 and 2 tie in the first
    bots = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
    ranks = np.array([[0, 1, 1, 3], [0, 1, 2, 3]])
    pairs = deal_pair_scores(bots, ranks, table_deal=np.array([7, 7]), deal=np.array([0, 0]))
    scores = {(int(a), int(b)): float(s) for a, b, s in zip(pairs.first, pairs.second, pairs.score, strict=True)}
    # bot 0 beat bot 1 in the first rotation and lost to it in the second; bots 1 and 2 tied, then 1 won
    assert scores == {(0, 1): 0.5, (0, 2): 0.5, (0, 3): 0.5, (1, 2): 0.75, (1, 3): 1.0, (2, 3): 1.0}
    assert set(pairs.deal) == {0}


def simulated_games(seed: int, deals: int = 300) -> tuple[np.ndarray, ...]:
    """Games (bots, ranks, deal keys, deal numbers) of a two-player round robin of the TRUTH bots, each deal in
    both seat orders. In half the deals the cards decide both rotations alike (one draw), in the others each
    rotation is drawn on its own: every game is won with the Bradley–Terry probability, and the two games of a
    deal are correlated, as real deals are."""
    rng = np.random.default_rng(seed)
    bots, ranks, keys, deal_numbers = [], [], [], []
    for table, (a, b) in enumerate(itertools.combinations(range(5), 2)):
        p = expit((TRUTH[a] - TRUTH[b]) / ELO_PER_LOGIT)
        for deal in range(deals):
            first = rng.random() < p
            shared = rng.random() < 0.5
            for seats, a_won in (((a, b), first), ((b, a), first if shared else rng.random() < p)):
                bots.append(seats)
                ranks.append((0, 1) if (seats[0] == a) == a_won else (1, 0))
                keys.append(table * 10_000 + deal)
                deal_numbers.append(deal)
    return np.array(bots), np.array(ranks), np.array(keys), np.array(deal_numbers)


def simulated_round_robin(seed: int, deals: int = 300):
    """The deal-pair scores of `simulated_games`."""
    return deal_pair_scores(*simulated_games(seed, deals))


def test_the_fit_recovers_a_bradley_terry_truth_and_its_intervals_cover_it():
    names = ["random", "a", "b", "c", "d"]
    seeds = range(12)
    tables = [elo_table(simulated_round_robin(seed), names) for seed in seeds]
    estimates = np.array([table.elo for table in tables])
    assert (estimates[:, 0] == 0).all()  # the anchor
    # unbiased: the mean over seeds is within a few standard errors of the mean of the truth
    se = np.array([table.se for table in tables]).mean(axis=0)[1:]
    assert np.abs(estimates.mean(axis=0)[1:] - TRUTH[1:]).max() < 3 * se.max() / np.sqrt(len(seeds))
    covered = sum(((table.lo <= TRUTH) & (TRUTH <= table.hi))[1:].sum() for table in tables)
    # 48 intervals of nominal 95%: about 46 cover; 41 or fewer would happen by chance less than 1% of the time
    assert covered >= 42, covered
    assert (np.array([table.hi - table.lo for table in tables])[:, 1:] < 80).all()


def test_the_bootstrap_counts_deals_not_games():
    """Deals that decide both rotations alike carry less than two games' worth: resampling whole deals widens
    the interval beyond what counting each game on its own would give."""
    bots, ranks, keys, deals = simulated_games(0)
    names = ["random", "a", "b", "c", "d"]
    by_deal = elo_table(deal_pair_scores(bots, ranks, keys, deals), names)
    each_game = np.arange(len(keys))  # every game its own deal: what counting games as independent resamples
    by_game = elo_table(deal_pair_scores(bots, ranks, each_game, each_game), names)
    assert np.abs(by_deal.elo - by_game.elo).max() < 1e-6  # the same games, the same fit
    # half the deals repeat one outcome in both rotations: about sqrt(1.5) times the games' standard errors
    assert (by_deal.se[1:] / by_game.se[1:]).mean() > 1.1, (by_deal.se, by_game.se)


def test_a_bot_that_never_scores_has_no_finite_elo():
    pairs = deal_pair_scores(np.array([[0, 1], [1, 0]]), np.array([[1, 0], [0, 1]]), np.array([1, 1]),
                             np.array([0, 0]))
    with pytest.raises(ValueError, match="all or nothing"):
        elo_table(pairs, ["random", "greedy"])


def test_copies_of_a_bot_in_a_round_robin_get_elo_within_each_others_intervals(tmp_path):
    config = {
        "name": "copies", "seed": 77,
        "games": [{"game": "caterpillar", "deals": 150}],
        "bots": [{"name": "random"}, {"name": "greedy"}, {"name": "heuristic"},
                 {"name": "heuristic-2", "path": "heuristic"}],
        "run": {"workers": 1},
    }
    arena.run(config, out=tmp_path)
    table = run_elo(RunDir(tmp_path / "copies"))["caterpillar"]
    elo = dict(zip(table.bots, table.elo, strict=True))
    lo, hi = dict(zip(table.bots, table.lo, strict=True)), dict(zip(table.bots, table.hi, strict=True))
    assert lo["heuristic-2"] <= elo["heuristic"] <= hi["heuristic-2"]
    assert lo["heuristic"] <= elo["heuristic-2"] <= hi["heuristic"]
    assert elo["random"] == 0 and hi["greedy"] < min(lo["heuristic"], lo["heuristic-2"])
