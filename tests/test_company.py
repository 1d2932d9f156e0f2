"""Company does not move a rating: at three or more players a bot's result depends on its tablemates, so the fit
counts each company at most `company_deals` deals' worth (arena/ratings/company.py) and the matchmaker seats a
late-comer in the company its neighbour met (arena/league/matchmaker.py). Known truths: copies of a bot, and a
simulated game whose interaction between tablemates is set by hand."""

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from test_league import add, arena, make_league

import arena.ratings.tables as tables
from arena.league.companies import Companies, swapped_company
from arena.ratings.company import company_cap, company_weights
from arena.ratings.tables import rate_parts
from arena.results import RATED_COLUMNS, SCHEMA


def results(tables_played: list[tuple[tuple[str, ...], int]], score, seed: int = 1) -> pa.Table:
    """Results of deals of one table size: each (table, deals) played in all its rotations, `score(bots, rng)`
    giving each seat's score; equal scores tie."""
    rng = np.random.default_rng(seed)
    players, ranks, deal_of = [], [], []
    deal = 0
    for table, deals in tables_played:
        for _ in range(deals):
            for rotation in range(len(table)):
                bots = list(table[rotation:] + table[:rotation])
                scores = np.asarray(score(bots, rng))
                players.append(bots)
                ranks.append((scores[None, :] > scores[:, None]).sum(axis=1).tolist())
                deal_of.append(deal)
            deal += 1
    games = len(players)
    columns = {
        "game_index": pa.array(np.arange(games)), "variant": pa.array([f"sim:{len(players[0])}"] * games),
        "deal": pa.array(np.array(deal_of, dtype=np.int32)), "seed": pa.array(np.array(deal_of) * 7919 + 3),
        "players": pa.array(players), "scores": pa.array([[0] * len(p) for p in players]), "ranks": pa.array(ranks),
        "termination": pa.array(["normal"] * games), "fault_seat": pa.nulls(games, pa.int32()),
    }
    schema = pa.schema([SCHEMA.field(name) for name in RATED_COLUMNS])
    return pa.Table.from_arrays([columns[name].cast(schema.field(name).type) for name in RATED_COLUMNS],
                                schema=schema)


def crowded(bots: list[str], rng) -> list[float]:
    """A game where the strong bot `s` runs away from the table when two weak bots sit there (they feed it, as two
    `random` seats feed `greedy` in Go For It), and a weak bot beside `m` holds its own against `s` more often."""
    skill = {"s": 2.0, "m": 1.0, "w": 0.0, "w2": 0.0}
    weak = sum(b in ("w", "w2") for b in bots)
    return [skill[b] + (2.0 if b == "s" and weak == 2 else 0.0) + rng.normal() for b in bots]


def test_a_known_interaction_splits_copies_unless_companies_are_weighed_alike(monkeypatch):
    """w2 is a copy of w that arrived late: w met (s, m) often, w2 mostly met (s, w). Counted as played, the fit puts
    w2 a tier below w; with each company counted at most 40 deals' worth, the two share a tier and lie within a
    tenth of beta."""
    played = [(("s", "m", "w"), 600), (("s", "w", "w2"), 400), (("s", "m", "w2"), 40)]
    games = results(played, crowded)
    fair = rate_parts([games], replicates=60)["sim:3"].table.set_index("bot")
    monkeypatch.setattr(tables, "balanced", lambda outcomes, deal_games, progress, cap: (outcomes, deal_games,
                                                                                         progress, False))
    as_played = rate_parts([games], replicates=60)["sim:3"].table.set_index("bot")
    assert as_played.loc["w", "tier"] != as_played.loc["w2", "tier"]
    assert as_played.loc["w", "mu"] - as_played.loc["w2", "mu"] > 25 / 6 / 10
    assert fair.loc["w", "tier"] == fair.loc["w2", "tier"]
    assert abs(fair.loc["w", "mu"] - fair.loc["w2", "mu"]) < 25 / 6 / 10
    assert fair.loc["s", "tier"] < fair.loc["m", "tier"] < fair.loc["w", "tier"]


def test_every_weight_is_one_where_every_company_played_alike():
    """A round robin (every company as often), two-player games and companies all below the cap are rated exactly
    as played; over it, a company counts the cap's deals' worth and the total stays the games'."""
    bots = np.array([[0, 1, 2], [1, 2, 3], [2, 0, 3], [3, 0, 1]])
    assert company_weights(bots, np.array([500.0, 500.0, 500.0, 500.0]), 40) is None
    assert company_weights(np.array([[0, 1], [1, 2]]), np.array([900.0, 1.0]), 40) is None
    assert company_weights(np.array([[0, 1, 2], [1, 2, 3]]), np.array([90.0, 12.0]), 40) is None
    # over the cap a company counts the larger of 40 deals of 3 games (120) and half its share of a round robin of as
    # many games among the same bots, and the total stays the games'
    played = np.array([[0, 1, 2], [2, 1, 0], [1, 2, 3], [4, 5, 6]])
    weights = company_weights(played, np.array([200.0, 400.0, 60.0, 3.0]), 40)
    scale = 663 / (120 + 60 + 3)  # 7 bots: a round robin of 663 games gives each of their 35 companies 19 games
    assert np.allclose(weights, [120 / 600 * scale, 120 / 600 * scale, scale, scale])
    weights = company_weights(played[:3], np.array([400.0, 800.0, 120.0]), 40)
    scale = 1320 / (165 + 120)  # 4 bots: a round robin of 1,320 games gives each of their 4 companies 330, half 165
    assert np.allclose(weights, [165 / 1200 * scale, 165 / 1200 * scale, scale])


def test_a_small_fields_companies_count_more_as_it_plays_on():
    """The cap on a company is half its share of a round robin where that passes `company_deals`: five bots at three
    players have ten companies, and a fixed cap of 40 deals would let their ratings learn from 1,200 games at most."""
    assert company_cap(2_000, 5, 3, 40) == 120  # half of 200 games a company: the floor holds
    assert company_cap(6_000, 5, 3, 40) == 300
    assert company_cap(6_000, 20, 3, 40) == 120  # 1,140 companies among 20 bots
    assert company_cap(6_000, 2, 3, 40) == 3_000  # fewer bots than seats: one company
    companies = Companies()
    for _ in range(79):
        companies.add(["a", "b", "c"])
    companies.add(["b", "c", "d"])
    assert companies.enough(3, 4, 40) == 10  # 40 deals over 4 a table
    for _ in range(120):
        companies.add(["b", "c", "d"])
    assert companies.enough(3, 4, 40) == 25  # 200 tables over the four companies of a, b, c, d, halved


def test_the_matchmaker_seats_a_late_comer_in_the_company_its_neighbour_met():
    """Of the companies one of a pair met, the one the other met least, with the other in its place, counting at
    most `enough` tables of each; none once no swapped table lags, or where a retired bot sat."""
    companies = Companies()
    for _ in range(50):
        companies.add(["random", "greedy", "heuristic"])
    companies.add(["random", "twin", "greedy"])
    active = ["heuristic", "greedy", "random", "twin"]  # the active bots in rating order
    swapped = (("greedy", "heuristic", "twin"), "random", "twin")
    assert swapped_company("random", "twin", companies, active, 10) == swapped
    assert swapped_company("twin", "random", companies, active, 10) == swapped
    for _ in range(9):
        companies.add(["twin", "greedy", "heuristic"])
    assert swapped_company("random", "twin", companies, active, 10) == swapped  # 9 of the 10 that count
    companies.add(["twin", "greedy", "heuristic"])
    assert swapped_company("random", "twin", companies, active, 10) is None
    assert swapped_company("random", "twin", companies, active, 60) == swapped
    assert swapped_company("random", "twin", companies, [b for b in active if b != "heuristic"], 60) is None


def test_of_the_lagging_companies_the_one_nearest_the_pair_is_swapped_first():
    """A company far up or down the order fixes a pair's places and says little of their order: of two that lag,
    the nearer one is played first, even where the farther one lags more; among equals, the one that lags most."""
    order = ["a", "b", "c", "d", "e", "f", "g", "h"]
    companies = Companies()
    for _ in range(5):
        companies.add(["a", "b", "d"])  # e's swap lags 5 tables, its other bots 3 and 2 places from (d, e)
    companies.add(["c", "d", "f"])  # lags 1 table, 1 place and 1 place away
    assert swapped_company("d", "e", companies, order, 10) == (("c", "e", "f"), "d", "e")
    companies.add(["c", "e", "f"])
    assert swapped_company("d", "e", companies, order, 10) == (("a", "b", "e"), "d", "e")
    companies.add(["d", "f", "g"])  # as near as (a, b, d) is far: 1 and 2 places; lags less
    assert swapped_company("d", "e", companies, order, 10) == (("e", "f", "g"), "d", "e")


def choices(players: int, order: list[str], settling: set[str], companies: Companies) -> list[tuple]:
    """The tables a four- or three-player variant's round would choose for `order`, with every pair open."""
    from arena.config import RatingSettings
    from arena.league.matchmaker import Look, Matchmaker
    from arena.league.settings import LeagueSettings

    settings = LeagueSettings("t", 1, (), None, RatingSettings(), deals=4, placement=1)
    matchmaker = Matchmaker.__new__(Matchmaker)
    matchmaker.settings, matchmaker.until_settled = settings, False
    se = [1.0 + i for i in range(len(order) - 1)]  # even: the intervals alone tell which pair is furthest from settled
    look = Look(order, [0.5] * len(se), se, [False] * len(se), diff=[0.0] * len(se), half=se)
    played = Counter({bot: 1 if bot in settling else 10 for bot in order})
    return matchmaker._variant_tables(look, players, played, companies)


def test_the_matchmaker_fills_tables_and_swaps_at_three_and_four_players():
    """The loop that fills a table's other seats, at three and four players (two tables a round for eight bots at
    four, two at three): each open pair's table is the pair and, of the 2 (players - 2) bots nearest it, the
    company given fewest tables, the nearest among equals, the same table once; a settling newcomer's pairs, and one
    more pair a round, play a swapped table where one lags."""
    order = ["a", "b", "c", "d", "e", "f", "g", "h"]  # se grows down the order: (g, h) is the widest
    assert choices(4, order, set(), Companies()) == [(("e", "f", "g", "h"), "order uncertain (LOS 0.50, se 7.00)")]
    assert choices(3, order, set(), Companies()) == [(("f", "g", "h"), "order uncertain (LOS 0.50, se 7.00)"),
                                                     (("e", "f", "g"), "order uncertain (LOS 0.50, se 6.00)")]
    companies = Companies()
    for table in (["e", "f", "g", "h"], ["a", "d", "e", "f"], ["a", "c", "d", "e"]):
        for _ in range(3):
            companies.add(table)
    assert choices(4, order, set(), companies) == [  # (g, h)'s nearest company played: the next; f met {a, d, e}
        (("d", "f", "g", "h"), "order uncertain (LOS 0.50, se 7.00)"),
        (("a", "d", "e", "g"), "order uncertain (LOS 0.50, se 6.00); g in the company f met")]
    companies.add(["d", "f", "g", "h"])
    assert choices(4, order, set(), companies)[0][0] == ("d", "e", "g", "h")  # fewest tables, then nearest
    assert choices(4, order, {"d"}, companies) == [  # d settles: both its pairs swap
        (("d", "f", "g", "h"), "settling the neighbours of d; d in the company e met"),
        (("a", "c", "e", "f"), "settling the neighbours of d; c in the company d met")]



def test_a_budget_plays_the_pair_least_sure_of_its_order_and_until_settled_the_pair_furthest_from_settled():
    """Playing a budget, the open pair whose order is least certain plays (the twins, d = 0, over a pair 1 se apart);
    until settled, the pair whose anytime interval is furthest from settling it (0.3 from zero is further than 0.5
    from the tie margin of 0.5)."""
    from scipy import special

    from arena.config import RatingSettings
    from arena.league.matchmaker import Look, Matchmaker
    from arena.league.settings import LeagueSettings
    from arena.ratings.looks import anytime_halfwidth

    settings = LeagueSettings("t", 1, (), None, RatingSettings(), deals=4, placement=1)
    diff, se = [0.3, 0.0], [0.3, 0.3]
    los = [float(special.ndtr(d / e)) for d, e in zip(diff, se, strict=True)]
    half = [anytime_halfwidth(e, settings.confidence) for e in se]
    look = Look(["a", "b", "c"], los, se, [False, False], diff=diff, half=half)
    matchmaker = Matchmaker.__new__(Matchmaker)
    matchmaker.settings = settings
    played = Counter({"a": 10, "b": 10, "c": 10})
    for until_settled, table in ((False, ("b", "c")), (True, ("a", "b"))):
        matchmaker.until_settled = until_settled
        assert [bots for bots, _ in matchmaker._variant_tables(look, 2, played, Companies())] == [table]

LATE = """
name = "late"
seed = 4242

[[games]]
game = "{game}"
rules = {rules}

[run]
workers = 1

[league]
deals = 4
"""


def company_count(league: Path) -> Counter:
    from arena.league.catalog import Catalog

    catalog = Catalog(league)
    try:
        return Counter(tuple(sorted(t["bots"])) for r in catalog.rounds() for t in r.plan)
    finally:
        catalog.close()


@pytest.mark.study
@pytest.mark.slow
@pytest.mark.parametrize("game, rules, first, late, games", [
    ("go_for_it", "{ players = 3 }", ["random", "greedy", "heuristic"], [("random", "twin")], 900),
    ("caterpillar", "{}", ["random", "greedy", "heuristic"], [("random", "twin")], 600),
])
def test_a_copy_added_late_ends_in_its_originals_tier(tmp_path, game, rules, first, late, games):
    """A league plays its first bots, then a copy of one of them joins and the league plays on: the copy shares its
    original's tier (copies of it there from the start share it too). At four and six players, where a league takes
    thousands of games to settle, the same study is benchmarks/copies.py's (docs/numbers.md, "Company")."""
    league = make_league(tmp_path, toml=LATE.format(game=game, rules=rules))
    for n, bot in enumerate(first):
        add(league, bot, *(["--name", f"{bot}-{n}"] if bot in first[:n] else []))
    arena("league", "play", league, "--games", games, "--no-progress")
    for bot, name in late:
        add(league, bot, "--name", name)
    arena("league", "play", league, "--games", games, "--no-progress")
    rows = {r["bot"]: r for r in json.loads(arena("league", "table", league, "--format", "json").stdout)}
    copies = [b for b in rows if b.split("-")[0] == "random"] + ["twin"]
    assert len({rows[b]["tier"] for b in copies}) == 1, {b: (rows[b]["mu"], rows[b]["tier"]) for b in copies}
    assert rows["greedy"]["tier"] != rows["twin"]["tier"]


@pytest.mark.slow
def test_a_tournament_of_unbalanced_tables_rates_copies_alike(tmp_path):
    """A config that names its tables, each played a different number of deals: `twin` (a copy of `random`) met
    `greedy` and `heuristic` in 40 deals, `random` in 150; the two share a tier."""
    import arena

    table = lambda deals, *bots: {"game": "go_for_it", "rules": {"players": 3}, "deals": deals, "bots": list(bots)}
    run = arena.run({"name": "unbalanced", "seed": 7, "run": {"workers": 1},
                     "games": [table(150, "random", "greedy", "heuristic"), table(100, "random", "twin", "greedy"),
                               table(40, "twin", "greedy", "heuristic")],
                     "bots": [{"name": "random"}, {"name": "greedy"}, {"name": "heuristic"},
                              {"name": "twin", "path": "random"}]}, out=tmp_path)
    rows = run.ratings.set_index("bot")
    assert rows.loc["random", "tier"] == rows.loc["twin", "tier"] != rows.loc["greedy", "tier"]


def test_pairs_the_ratings_do_not_predict_are_named():
    """Rock, paper, scissors: each beats the next nine times in ten, so the ratings tie and predict one half; the
    table names all three pairs. A Bradley-Terry truth with the same spread of results is not flagged."""
    beats = {("rock", "scissors"), ("scissors", "paper"), ("paper", "rock")}
    cycle = lambda bots, rng: [1.0, 0.0] if ((tuple(bots) in beats) == (rng.random() < 0.9)) else [0.0, 1.0]
    played = [(("rock", "paper"), 300), (("paper", "scissors"), 300), (("scissors", "rock"), 300)]
    rated = rate_parts([results(played, cycle)], replicates=30)["sim:2"]
    predicted = [float(line.split("predicted ")[1].split(",")[0]) for line in rated.misfits]
    assert len(predicted) == 3 and all(abs(p - 0.5) < 0.05 for p in predicted), rated.misfits
    skill = {"rock": 0.0, "paper": 1.0, "scissors": 2.0}
    normal = lambda bots, rng: [skill[b] + rng.normal() for b in bots]
    rated = rate_parts([results(played, normal)], replicates=30)["sim:2"]
    assert rated.misfits == []
