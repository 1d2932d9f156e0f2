"""When a league's pair is settled: an interval that stays valid however often the league looks, a late-comer held
open until it has met its neighbour's company, and one rule for `--until settled`, `league table --pairs` and the
pages (docs/league.md, "Settled")."""

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from test_league import arena

from arena.config import RatingSettings
from arena.league.companies import Companies
from arena.league.matchmaker import COVERED, variant_look
from arena.league.settings import LeagueSettings
from arena.league.standings import settled_tiers
from arena.ratings.looks import Standing, anytime_halfwidth

MU_PER_SCORE = 14.8
"""About how many mu one point of score against the field is worth near even (TrueSkill's beta 25/6: a 0.5 score
difference is about 7.4 mu of the performance scale), so that the simulated errors have a league's size."""


def simulated_looks(runs: int, bots: int, rounds: int, deals: int, seed: int):
    """Identical bots in a league looked at after every round: each deal gives each bot a score against the field of
    0, 1/2 or 1 (1/4, 1/2, 1/4); each look estimates each bot's mu from its deals so far (in mu, with its standard
    error). Returns mu and se, each (runs, bots, rounds)."""
    rng = np.random.default_rng(seed)
    points = rng.choice(np.array([-1.0, 0.0, 1.0], dtype=np.float32), p=[0.25, 0.5, 0.25],
                        size=(runs, bots, rounds * deals)) * (MU_PER_SCORE / 2)
    seen = np.arange(1, rounds + 1) * deals
    total = np.cumsum(points, axis=2)[:, :, deals - 1::deals]
    squares = np.cumsum(points * points, axis=2)[:, :, deals - 1::deals]
    mu = total / seen
    variance = (squares / seen - mu * mu) * seen / (seen - 1)
    return mu, np.sqrt(np.maximum(variance, 0) / seen)


def test_identical_bots_looked_at_every_round_are_called_apart_no_more_often_than_alpha():
    """Four equal bots, 2,000 leagues of 250 looks each (1,000 deals a bot): the rule's interval calls a pair of them
    apart at some look in at most alpha = 5% of the pairs, where the fixed 95% interval that the league used before
    did so in about half of them. The estimate is a mean of discrete outcomes with its error estimated from them, as
    the league's are; every pair is counted, not only those adjacent at the time, so the figure bounds the adjacent
    pairs' too."""
    mu, se = simulated_looks(runs=2000, bots=4, rounds=250, deals=4, seed=53)
    anytime = fixed = checks = 0
    for a in range(4):
        for b in range(a + 1, 4):
            diff, error = mu[:, a] - mu[:, b], np.hypot(se[:, a], se[:, b])
            anytime += int(((np.abs(diff) - anytime_halfwidth(error, 0.95)) > 0).any(axis=1).sum())
            fixed += int(((np.abs(diff) - 1.96 * error) > 0).any(axis=1).sum())
            checks += len(diff)
    assert anytime / checks <= 0.05, anytime / checks
    assert fixed / checks > 0.3, fixed / checks  # the simulation can tell a rule that is not valid over looks


def test_an_anytime_interval_is_wider_than_a_fixed_one_but_narrows_as_the_games_come():
    errors = np.array([0.02, 0.05, 0.1, 0.15, 0.3, 0.5])
    ratio = anytime_halfwidth(errors, 0.95) / errors
    assert np.all(ratio > 1.96) and np.all(np.diff(anytime_halfwidth(errors, 0.95)) > 0)
    assert np.all(ratio[1:5] < 3.3)  # near its best where pairs settle
    assert anytime_halfwidth(0.0, 0.95) == float("inf")  # one deal tells nothing
    assert anytime_halfwidth(0.1, 0.99) > anytime_halfwidth(0.1, 0.95)


def look_of(players: int, mu: list[float], se: float, played: Counter, companies: Companies):
    settings = LeagueSettings("t", 1, (), None, RatingSettings(), deals=4, placement=3)
    bots = [f"b{i}" for i in range(len(mu))]
    standing = Standing(bots, np.array(mu), np.full((len(mu), len(mu)), se) - np.diag([se] * len(mu)))
    return variant_look(bots, standing, settings, players, played, companies)


def test_a_pair_is_settled_by_the_anytime_interval_once_both_have_played_their_placement():
    played = Counter({"b0": 5, "b1": 5})
    look = look_of(2, [25.8, 25.0], 0.3, played, Companies())  # 2.7 se apart: past 1.96, not past 3.2
    assert look.half == [anytime_halfwidth(0.3, 0.95)] and look.verdict(0) == "no"
    assert look_of(2, [26.2, 25.0], 0.3, played, Companies()).verdict(0) == "separated"
    assert look_of(2, [25.05, 25.0], 0.1, played, Companies()).verdict(0) == "tie"
    assert look_of(2, [26.2, 25.0], 0.3, Counter({"b0": 5, "b1": 4}), Companies()).verdict(0) == "no"  # settling


def test_a_late_comer_is_not_settled_before_it_met_its_neighbours_company_and_its_interval_carries_it():
    """Three players: b2 met b0 and b1 at the cap of 10 tables; its late twin b3 has not met that company. Their pair
    is open, and its interval wider, until b3 has played 9 of those 10 tables in b2's place (COVERED)."""
    companies = Companies()
    for _ in range(30):
        companies.add(["b0", "b1", "b2"])
    for _ in range(5):
        companies.add(["b1", "b2", "b3"])
    companies.add(["b4", "b5", "b6"])  # a field of seven: a round robin's share of a company stays below the cap
    played = Counter({bot: 40 for bot in ("b0", "b1", "b2", "b3")})
    mu = [28.0, 26.0, 25.02, 25.0]
    open_ = look_of(3, mu, 0.05, played, companies)
    assert open_.coverage[2] == 0.0 and open_.verdict(2) == "no" and open_.lagging(2)
    assert open_.half[2] == pytest.approx(anytime_halfwidth(0.05 / 0.1 ** 0.5, 0.95))  # a tenth of its games
    for met in range(1, 10):
        companies.add(["b0", "b1", "b3"])
        look = look_of(3, mu, 0.05, played, companies)
        assert look.coverage[2] == pytest.approx(met / 10)
    assert look.coverage[2] >= COVERED - 1e-9 and look.verdict(2) == "tie"


def test_a_company_the_ratings_weigh_in_full_below_a_grown_cap_must_be_met_too():
    """A small field: b2 met b0 and b1 at 15 tables, past the 10 of `company_deals` deals but below the cap its 145
    tables have grown to (half a round robin's share of four bots' companies: 19 tables), so the ratings weigh all 15.
    Its twin b3 has not met that company: their pair is not settled until b3 has played nine tenths of those tables."""
    companies = Companies()
    for _ in range(15):
        companies.add(["b0", "b1", "b2"])
    for _ in range(130):
        companies.add(["b1", "b2", "b3"])  # both twins at the table: no company one of them lacks
    played = Counter({bot: 40 for bot in ("b0", "b1", "b2", "b3")})
    assert companies.enough(3, 4, 40) == 19
    mu = [28.0, 26.0, 25.02, 25.0]
    assert look_of(3, mu, 0.05, played, companies).coverage[2] == 0.0
    for _ in range(12):
        companies.add(["b0", "b1", "b3"])
    # b2's 15 tables, 12 met; and b3's 12 in that company, past the 10 now, all 12 met by b2
    look = look_of(3, mu, 0.05, played, companies)
    assert look.coverage[2] == pytest.approx(24 / 27) and look.verdict(2) == "no"
    companies.add(["b0", "b1", "b3"])
    look = look_of(3, mu, 0.05, played, companies)
    assert look.coverage[2] == pytest.approx(26 / 28) and look.verdict(2) == "tie"


def test_a_league_tier_begins_exactly_where_the_settled_rule_separates_a_pair():
    """The standing table's tiers are the settled rule's (`settled_tiers`): open pairs and ties share a tier whatever
    their fixed 95% tiers said, a separated pair begins one, and a retired bot (in no pair) joins the tier above it."""
    frame = pd.DataFrame({"rank": ["1", "2", "3", "4", "5", "6"], "tier": [1, 2, 3, 4, 5, 6],
                          "bot": ["a", "old", "b", "c", "d", "e"]})
    pairs = pd.DataFrame({"variant": "v", "bot": ["a", "b", "c", "d"], "next": ["b", "c", "d", "e"],
                          "settled": ["separated", "no", "tie", "separated"]})
    table = settled_tiers({"v": frame}, pairs)["v"]
    assert list(table["rank"]) == ["1=", "1=", "3=", "3=", "3=", "6"] and list(table["tier"]) == [1, 1, 2, 2, 2, 3]
    assert list(frame["tier"]) == [1, 2, 3, 4, 5, 6]  # the ratings' own table is left as it was
    assert list(settled_tiers({"v": frame}, pairs.iloc[:0])["v"]["rank"]) == ["1="] * 6  # nothing settled apart yet


LEAGUE = """
name = "club"
seed = 53

[[games]]
game = "caterpillar"

[run]
workers = 1

[league]
deals = 4
tables = 2
placement = 2
isolation = "none"
"""


def test_league_table_pairs_agrees_with_until_settled_at_every_look(tmp_path):
    """After each round, `league table --pairs` shows every pair settled exactly when `play --until settled` plays no
    more, and `league table`'s tiers break exactly at the pairs it calls separated (one tier while none is, three once
    all are)."""
    (tmp_path / "league.toml").write_text(LEAGUE)
    league = tmp_path / "club"
    arena("league", "new", league, tmp_path / "league.toml")
    for bot in ("random", "greedy", "heuristic"):
        arena("league", "add", league, bot, "--no-sandbox", "--games", "1")
    seen, breaks = set(), set()
    for _ in range(80):
        pairs = pd.DataFrame(json.loads(arena("league", "table", league, "--pairs", "--format", "json").stdout))
        if not pairs.empty:
            assert list(pairs.columns) == ["variant", "bot", "next", "diff", "diff_lo", "diff_hi", "settled", "met"]
            bounded = pairs.dropna(subset=["diff_lo"])  # a pair not yet rated, or of one deal, has no bounds
            assert (bounded["diff_lo"] < bounded["diff"]).all() and (bounded["diff"] < bounded["diff_hi"]).all()
        table = arena("league", "table", league, "--format", "json").stdout
        if not table.startswith("no finished round"):  # the standing table's tiers are where the rule separates
            tier = {row["bot"]: row["tier"] for row in json.loads(table)}
            assert [tier[p.next] != tier[p.bot] for p in pairs.itertuples()] == list(pairs["settled"] == "separated")
            breaks.add(len(set(tier.values())))
        settled = not pairs.empty and bool((pairs["settled"] != "no").all())
        seen.add(settled)
        out = arena("league", "play", league, "--until", "settled", "--rounds", "1", "--no-progress").stdout
        assert ("every variant is settled" in out) == settled, (out, pairs)
        if settled:
            break
    assert seen == {False, True}, "the league settled within 80 rounds, after at least one open look"
    assert {1, 3} <= breaks  # one tier while nothing was settled apart, three once all were
    csv = arena("league", "table", league, "--pairs", "--format", "csv").stdout
    assert csv.splitlines()[0] == "variant,bot,next,diff,diff_lo,diff_hi,settled,met"
    assert "settled" in arena("league", "table", league, "--pairs").stdout
