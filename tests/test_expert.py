"""The expert bot (bots/expert.py) and the normalized-Elo bounds of `arena match --sprt-model nelo`."""

import json
import math
import random
import sys
import time

import numpy as np
import pytest

from arena.bots import available_bots
from arena.config import ConfigError, RunSettings, SprtSettings, parse_config
from arena.games import get_game, make_rules
from arena.tournament import referee
from arena.tournament.stopping import NELO_SCALE, simulate_sprt, sprt_llr

DEFAULT_CLOCK = RunSettings.__dataclass_fields__["move_time_limit"].default

PENTA_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
"""A two-player deal's score by its pentanomial outcome (0 to 2 points of the pair, halved)."""


def fastchess_nelo_llr(penta, nelo0, nelo1):
    """fastchess's pentanomial LLR with normalized bounds, written out from its definition: per-pair
    variance var, score_i = nelo_i sqrt(2 var) / (800 / ln 10) + 1/2, LLR = N (s1 - s0)(2 s - s0 - s1) / (2 var)."""
    counts = np.asarray(penta, dtype=float)
    total = counts.sum()
    probs = counts / total
    score = (probs * PENTA_SCORES).sum()
    var = (probs * (PENTA_SCORES - score) ** 2).sum()
    s0, s1 = (nelo * math.sqrt(2 * var) / (800 / math.log(10)) + 0.5 for nelo in (nelo0, nelo1))
    return total * (s1 - s0) * (2 * score - s0 - s1) / (2 * var)


@pytest.mark.parametrize("penta", [(10, 40, 100, 60, 20), (0, 5, 300, 30, 1), (50, 50, 20, 60, 70)])
def test_nelo_llr_is_fastchess_pentanomial_formula(penta):
    """The same LLR as fastchess's normalized model from the same deal pairs (its pseudo-counts aside)."""
    scores = np.repeat(PENTA_SCORES, penta)
    llr = sprt_llr(len(scores), scores.sum(), (scores ** 2).sum(), 0.0, 10.0, "nelo")
    assert llr == pytest.approx(fastchess_nelo_llr(penta, 0.0, 10.0), rel=1e-3)


def test_nelo_llr_known_value():
    """A hand-worked case: 100 deals, 60 scoring 1 and 40 scoring 0 (mean 0.6, variance 0.24); nelo bounds
    0 and 10 give s0 = 0.5, s1 = 0.5 + 10 sqrt(0.48) / 347.436 = 0.519941, so LLR = 100 * 0.019941 *
    (1.2 - 1.019941) / 0.48 = 0.748."""
    scores = np.array([1.0] * 60 + [0.0] * 40)
    llr = sprt_llr(100, scores.sum(), (scores ** 2).sum(), 0.0, 10.0, "nelo")
    assert NELO_SCALE == pytest.approx(347.4355855)
    assert llr == pytest.approx(0.748, abs=0.001)


def nelo_deals(nelo, draw_share):
    """Deal scores with a true normalized Elo `nelo`: pentanomial outcomes with `draw_share` of 1/2 and the
    rest split between 1/4 and 3/4, shifted until (mean - 1/2) / (sd sqrt 2) * NELO_SCALE = nelo."""
    values = np.array([0.25, 0.5, 0.75])

    def moments(shift):
        p = np.array([(1 - draw_share) / 2 - shift, draw_share, (1 - draw_share) / 2 + shift])
        mean = (p * values).sum()
        return p, (mean - 0.5) / math.sqrt(2 * (p * (values - mean) ** 2).sum()) * NELO_SCALE

    low, high = 0.0, (1 - draw_share) / 2
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if moments(middle)[1] < nelo else (low, middle)
    p = moments(low)[0]
    return lambda rng, shape: rng.choice(values, size=shape, p=p)


@pytest.mark.study
@pytest.mark.parametrize("draw_share", [0.2, 0.8])
def test_nelo_sprt_error_rates_in_simulation(draw_share):
    """Simulated matches whose truth is nelo0 accept H1 about alpha of the time, at nelo1 H0 about beta,
    whatever the share of drawn deal pairs (what the normalized model is for)."""
    runs = 1500
    sprt = SprtSettings(("a", "b"), 0.0, 10.0, 0.05, 0.05, "nelo")
    rng = np.random.default_rng(31)
    verdict, _ = simulate_sprt(nelo_deals(0.0, draw_share), runs, sprt, 200_000, 10, rng)
    false_h1 = (verdict == 1).mean()
    verdict, _ = simulate_sprt(nelo_deals(10.0, draw_share), runs, sprt, 200_000, 10, rng)
    false_h0 = (verdict == -1).mean()
    se = math.sqrt(0.05 * 0.95 / runs)
    assert 0.02 <= false_h1 <= 0.05 + 3 * se, false_h1
    assert 0.02 <= false_h0 <= 0.05 + 3 * se, false_h0


# The expert bot ----------------------------------------------------------------------------------------

EXPERT_VARIANTS = [("caterpillar", {}), ("give_or_take", {}), ("go_for_it", {"players": 2}),
                   ("go_for_it", {"players": 4}), ("duke_of_york", {}), ("duke_of_york", {"values": "face_value"})]
EXPERT_IDS = [f"{game}{rules or ''}" for game, rules in EXPERT_VARIANTS]


def lineup(game, rules, seat, params=None):
    bots = available_bots()
    others = [bots["heuristic"]() for _ in range(game.players(rules))]
    others[seat] = bots["expert"](**(params or {}))
    return others


@pytest.mark.parametrize("game_id, overrides", EXPERT_VARIANTS, ids=EXPERT_IDS)
def test_expert_replays_bit_for_bit(game_id, overrides):
    """The same seed gives the same transcript, byte for byte, with the global random state disturbed
    in between; and the transcript replays through the engine to the same result."""
    game = get_game(game_id)
    rules = make_rules(game.Rules, overrides)
    for seed in (1, 2):
        names = ["heuristic"] * game.players(rules)
        names[seed % 2] = "expert"

        def one(seed=seed, names=names):
            played = referee.play(game, rules, lineup(game, rules, seed % 2), seed)
            assert played.fault is None, played.fault
            return json.dumps(referee.transcript(game, rules, names, seed, played))

        first = one()
        random.seed(999)
        random.random()
        assert one() == first
        data = json.loads(first)
        assert list(referee.replay(data).scores) == data["scores"]


def hidden_elsewhere(game, world, observation, seat, rng):
    """Another state that shows `seat` the same observation but deals the hidden cards differently."""
    for _ in range(20):
        other = game.sample_world(observation, rng)
        if game.observe(other, seat) == observation and repr(game.deals(other)) != repr(game.deals(world)):
            return other
    return None


@pytest.mark.parametrize("game_id, overrides", EXPERT_VARIANTS, ids=EXPERT_IDS)
def test_expert_reads_only_its_observation(game_id, overrides):
    """A leak test for the bot: at decisions along games, the same observation in a world whose hidden
    cards lie differently gets the same move from an expert with the same rng. (The engine's own leak
    tests, one per game module, check that observations hide what they should.)"""
    game = get_game(game_id)
    rules = make_rules(game.Rules, overrides)
    rng = random.Random(7)
    checked = 0
    for seed in range(4):
        state = game.new_state(rules, seed)
        bots = lineup(game, rules, 0)
        for seat, bot in enumerate(bots):
            bot.reset(game.id, seat, rules, random.Random(seed * 10 + seat))
        while (seat := game.to_move(state)) is not None:
            observation = game.observe(state, seat)
            if seat == 0 and len(observation.legal_moves) > 1:
                other = hidden_elsewhere(game, state, observation, seat, rng)
                if other is not None:
                    moves = []
                    for view in (observation, game.observe(other, seat)):
                        probe = available_bots()["expert"]()
                        probe.reset(game.id, seat, rules, random.Random(seed))
                        moves.append(probe.act(view))
                    assert moves[0] == moves[1]
                    checked += 1
            game.apply(state, bots[seat].act(observation))
    assert checked >= 10


def test_expert_reads_the_opponents_last_cards_in_give_or_take():
    """Give or Take: expert's reading of the opponent's hand of one or two cards from its plays (as the
    heuristic's) never rules out the hand the heuristic holds, and gives it on average at least three times
    the chance of a hand dealt at random from the unseen cards (measured over 40 games: 4.5 times with
    one card, 8.5 with two). 20 games, expert in each seat half of them."""
    game = get_game("give_or_take")
    rules = make_rules(game.Rules, {})
    bots = available_bots()
    opponent_hands = sys.modules[bots["expert"].__module__].opponent_hands
    ratios: dict[int, list[float]] = {1: [], 2: []}
    for seed in range(20):
        players = lineup(game, rules, seed % 2)
        for seat, bot in enumerate(players):
            bot.reset(game.id, seat, rules, random.Random(seed * 2 + seat))
        state = game.new_state(rules, seed)
        while game.to_move(state) is not None:
            seat = game.to_move(state)
            observation = game.observe(state, seat)
            hands = opponent_hands(observation) if seat == seed % 2 else None
            if hands is not None:
                held = sorted(state.hands[1 - seat])
                chance = sum(weight for cards, weight in hands if sorted(cards) == held)
                unseen = 52 - len(observation.hand) - 1 - len(observation.played)
                assert chance > 0
                ratios[len(held)].append(chance * math.comb(unseen, len(held)))
            game.apply(state, players[seat].act(observation))
    for size, seen in ratios.items():
        assert len(seen) >= 20 and sum(seen) / len(seen) >= 3, (size, len(seen), sum(seen) / len(seen))


CLOCK_GAMES = 80
"""Games of the clock test in Duke of York, where expert searches longest; a fifth of it in the other variants:
144 games in all. `benchmarks/bots.py --bots expert --games 400` is the 2,000-game check (docs/expert.md)."""


@pytest.mark.study
@pytest.mark.parametrize("game_id, overrides", EXPERT_VARIANTS[:5], ids=EXPERT_IDS[:5])
def test_expert_stays_well_inside_the_move_clock(game_id, overrides):
    """CLOCK_GAMES games (a fifth outside Duke of York) under the default move clock (1 s, the referee's own
    watchdog): no timeout, and the slowest decision takes under a quarter of the clock in CPU time (the time the bot
    itself spends, which a machine busy with other work does not stretch, as it does the wall clock)."""
    game = get_game(game_id)
    rules = make_rules(game.Rules, overrides)
    slowest = 0.0
    for seed in range(CLOCK_GAMES if game_id == "duke_of_york" else CLOCK_GAMES // 5):
        bots = lineup(game, rules, seed % 2)
        expert = bots[seed % 2]
        act = expert.act

        def timed(observation, act=act):
            nonlocal slowest
            started = time.thread_time()
            move = act(observation)
            slowest = max(slowest, time.thread_time() - started)
            return move

        expert.act = timed
        played = referee.play(game, rules, bots, 1000 + seed, move_time_limit=DEFAULT_CLOCK)
        assert played.fault is None, played.fault
    assert slowest < DEFAULT_CLOCK / 4, slowest


def race_modules():
    """bots/race's self-play and planner modules, as expert imports them."""
    expert = sys.modules[available_bots()["expert"].__module__]
    selfplay = sys.modules[expert._race.__name__.rpartition(".")[0] + ".selfplay"]
    return selfplay, expert._race


@pytest.mark.parametrize("players", [2, 4])
def test_race_tables_rebuild_bit_for_bit(players):
    """The committed tables of the race planner (bots/race/go_for_it_N.json) are what
    benchmarks/race_tables.py builds from its seed: the first block of self-play games, played again, counts
    what the file's digest of it says, and the values rebuilt from the file's counts are the file's, bit for bit.
    (The whole build, `benchmarks/race_tables.py --players N --games 10000`, rewrites the same file.)"""
    selfplay, planner = race_modules()
    data = json.loads(planner.TABLES[players].read_text())
    assert data["players"] == players and len(data["blocks"]) == data["games"] // selfplay.BLOCK
    block = selfplay.record(players, selfplay.deal_seeds(data["seed"], 0))
    assert selfplay.digest(selfplay.counts_json(block)) == data["blocks"][0]
    counts = {key: data[key] for key in ("rows", "ends", "pairs")}
    assert selfplay.values(players, counts) == data["values"]


@pytest.mark.parametrize("players", [2, 4])
def test_expert_claims_by_the_race_in_go_for_it(players):
    """Go For It: expert chooses between claiming a row and playing on by the race planner's values (with two
    players from rows of three cards), so it claims some rows the heuristic plays on, and its choice is then
    the planner's best; elsewhere it plays the heuristic's move. The heuristic's own games of 20 deals give
    the positions."""
    selfplay, planner = race_modules()
    expert_module = sys.modules[available_bots()["expert"].__module__]
    game = get_game("go_for_it")
    rules = make_rules(game.Rules, {"players": players})
    heuristic = selfplay.STRATEGY
    claims = differ = 0
    for seed in range(20):
        state = game.new_state(rules, seed)
        rng = random.Random(seed)
        while (seat := game.to_move(state)) is not None:
            observation = game.observe(state, seat)
            move = heuristic.move(observation, heuristic.DEFAULTS, rng)
            expert = available_bots()["expert"]()
            expert.reset(game.id, seat, rules, random.Random(seed))
            chosen = expert.act(observation)
            if "claim" in observation.legal_moves and len(observation.row) >= expert_module.RACE_PLAYERS[players]:
                values = planner.values(observation, {})
                assert values[chosen] == max(values.values())
                claims += 1
                differ += chosen == "claim" and move == "play"
            else:
                assert chosen == move
            game.apply(state, move)
    assert claims >= 20 and differ >= 2, (claims, differ)


def test_expert_takes_its_parameters_from_the_config():
    """`params = { iterations = ... }` reaches the bot; an unknown parameter is refused by name."""
    text = """
name = "t"
seed = 1
[[games]]
game = "duke_of_york"
deals = 1
[[bots]]
name = "expert"
params = { iterations = 5 }
[[bots]]
name = "heuristic"
"""
    config = parse_config(text)
    entry = next(b for b in config.bots if b.name == "expert")
    bot = available_bots()["expert"](**entry.params)
    bot.reset("duke_of_york", 0, make_rules(get_game("duke_of_york").Rules), random.Random(1))
    assert bot.strategy_params["samples"] == 5
    with pytest.raises(ConfigError, match="depth"):
        parse_config(text.replace("iterations = 5", "depth = 3"))


def test_match_carries_the_sprt_model_into_its_config():
    """`arena match --sprt-model nelo` writes model = "nelo" into the match's config, which parses back; the
    default stays logistic, and a config with an unknown model is refused by name."""
    from arena.tournament.stopping import match_config

    nelo = parse_config(match_config("caterpillar", "heuristic", "greedy", sprt=[0, 5], max_deals=10, rules={},
                                     players=None, field="random", seed=1, model="nelo"))
    assert nelo.run.sprt.model == "nelo"
    text = match_config("caterpillar", "heuristic", "greedy", sprt=[0, 5], max_deals=10, rules={}, players=None,
                        field="random", seed=1)
    assert parse_config(text).run.sprt.model == "logistic"
    with pytest.raises(ConfigError, match="run.sprt.model"):
        parse_config(text.replace("beta = 0.05", 'beta = 0.05, model = "bayesian"'))
