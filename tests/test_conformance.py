"""One conformance suite that every game (in every rules variant) and every bundled bot passes."""

import json
import random

import pytest
from conftest import VARIANT_IDS, VARIANTS
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots import BUNDLED_DIR, available_bots, can_play, folder_bots
from arena.games import get_game, make_rules, ranks_from_scores
from arena.games.base import TERMINATIONS
from arena.tournament import referee

BUNDLED = sorted(folder_bots(BUNDLED_DIR))
QUICK_PARAMS = {"ismcts": {"iterations": 25}}
"""Lighter settings for slow bots: the suite checks conduct, not strength."""


def setup(game_id, overrides):
    game = get_game(game_id)
    return game, make_rules(game.Rules, overrides)


def is_immutable(value) -> bool:
    if isinstance(value, (int, float, str, bool, type(None))):
        return True
    if isinstance(value, tuple):
        return all(is_immutable(v) for v in value)
    return getattr(type(value), "__dataclass_params__", None) is not None and type(value).__dataclass_params__.frozen


def random_walk(game, rules, seed, rng, stop_at=None):
    """Plays random legal moves; yields (state, seat) before every decision."""
    state = game.new_state(rules, seed)
    steps = 0
    while (seat := game.to_move(state)) is not None:
        yield state, seat
        game.apply(state, rng.choice(game.legal_moves(state)))
        steps += 1
        assert steps < 100_000, "game does not end"
    yield state, None


@pytest.mark.parametrize("game_id, overrides", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), walk=st.integers(0, 2**32))
def test_game_interface(game_id, overrides, seed, walk):
    """Observations are immutable and consistent, moves round-trip, clones are independent,
    sample_world agrees with the observation, and the end is a proper result."""
    game, rules = setup(game_id, overrides)
    rng = random.Random(walk)
    for state, seat in random_walk(game, rules, seed, rng):
        if seat is None:
            break
        legal = game.legal_moves(state)
        assert legal, "a seat to move always has a move"
        observation = game.observe(state, seat)
        assert observation.seat == seat and observation.legal_moves == legal
        assert is_immutable(tuple(observation)), "observations hold only immutable values"
        for move in legal:
            assert game.parse_move(game.move_to_str(move)) == move
        others = [s for s in range(game.players(rules)) if s != seat]
        assert all(game.observe(state, s).legal_moves == () for s in others)
        if rng.random() < 0.2:
            copy = game.clone(state)
            game.apply(copy, rng.choice(legal))
            assert game.observe(state, seat) == observation, "a clone shares nothing with its original"
            world = game.sample_world(observation, random.Random(rng.random()))
            assert game.observe(world, seat) == observation, "sample_world is consistent with the observation"
            assert game.legal_moves(world) == legal
    outcome = game.result(state)
    assert outcome.termination in TERMINATIONS
    assert len(outcome.scores) == game.players(rules)
    assert outcome.ranks == ranks_from_scores(outcome.scores)


@pytest.mark.parametrize("game_id, overrides", VARIANTS, ids=VARIANT_IDS)
def test_same_seed_same_transcript_and_replay(game_id, overrides):
    """The same seed gives the identical transcript, also after disturbing the global random state,
    and replaying the transcript's moves through the engine reaches the same result."""
    game, rules = setup(game_id, overrides)
    bots = available_bots()
    names = ["random", "greedy"] * 3
    names = names[:game.players(rules)]

    def one(seed):
        played = referee.play(game, rules, [bots[n]() for n in names], seed)
        return referee.transcript(game, rules, names, seed, played)

    for seed in (1, 2, 3):
        first = one(seed)
        random.seed(12345)
        random.random()
        again = one(seed)
        assert json.dumps(first) == json.dumps(again)
        data = json.loads(json.dumps(first))
        outcome = referee.replay(data)
        assert list(outcome.scores) == data["scores"] and list(outcome.ranks) == data["ranks"]
        assert outcome.termination == data["termination"]


@pytest.mark.parametrize("bot_name", BUNDLED)
@pytest.mark.parametrize("game_id, overrides", VARIANTS, ids=VARIANT_IDS)
def test_bundled_bot_plays_cleanly(bot_name, game_id, overrides):
    """Every bundled bot plays every game it claims without faults, deterministically."""
    bot_class = available_bots()[bot_name]
    if not can_play(bot_class, game_id):
        pytest.skip(f"{bot_name} does not play {game_id}")
    game, rules = setup(game_id, overrides)
    random_bot = available_bots()["random"]
    for seed in range(3):
        params = QUICK_PARAMS.get(bot_name, {})
        lineup = [bot_class(**params)] + [random_bot() for _ in range(game.players(rules) - 1)]
        played = referee.play(game, rules, lineup, seed)
        assert played.fault_seat is None, played.fault
        again = referee.play(game, rules, [bot_class(**params)] + lineup[1:], seed)
        assert again.outcome == played.outcome
