"""The OpenSpiel adapter: OpenSpiel's own checks on every rules variant, views built from observations alone,
and the `openspiel:` bots playing whole games through the referee, replayably."""

import json
import random
import subprocess
import sys

import numpy as np
import pytest
from conftest import VARIANT_IDS, VARIANTS, import_optional

pyspiel = import_optional("pyspiel")

from arena.bots import load_bot_class  # noqa: E402
from arena.config import parse_config  # noqa: E402
from arena.games import get_game, make_rules  # noqa: E402
from arena.interop import openspiel_game  # noqa: E402
from arena.interop.openspiel import DEALS  # noqa: E402
from arena.tournament import referee  # noqa: E402

per_variant = pytest.mark.parametrize("game_id, overrides", VARIANTS, ids=VARIANT_IDS)
ONE_VARIANT_EACH = [("caterpillar", {}), ("give_or_take", {}), ("go_for_it", {"players": 3, "jokers": True}),
                    ("duke_of_york", {})]
"""A variant of every game for the slower tests; Go For It with three seats and jokers, the most to go wrong."""
per_game = pytest.mark.parametrize("game_id, overrides", ONE_VARIANT_EACH, ids=[g for g, _ in ONE_VARIANT_EACH])


def views(state, player):
    """Everything OpenSpiel shows `player` of a state."""
    return (state.information_state_string(player), state.information_state_tensor(player),
            state.observation_string(player), state.observation_tensor(player))


def random_decisions(game, deals, rng):
    """Random play from deal seeds picked by `rng`; yields every state at a decision."""
    for _ in range(deals):
        state = game.new_initial_state()
        state.apply_action(rng.randrange(DEALS))
        while not state.is_terminal():
            yield state
            state.apply_action(rng.choice(state.legal_actions()))


@per_variant
def test_openspiel_random_simulations(game_id, overrides):
    game = openspiel_game(game_id, **overrides)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_the_game_is_registered_with_the_rules_as_parameters():
    game = pyspiel.load_game("python_arena_go_for_it", {"players": 3, "jokers": True})
    assert game.num_players() == 3
    assert game.get_parameters() == {"players": 3, "jokers": True, "max_decisions": 5000}
    assert openspiel_game("go_for_it", players=3, jokers=True) is openspiel_game("go_for_it", players="3", jokers=True)
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == DEALS == game.max_chance_outcomes()
    state.apply_action(17)  # the outcome is the deal seed
    arena_game = get_game("go_for_it")
    dealt = arena_game.new_state(make_rules(arena_game.Rules, {"players": 3, "jokers": True}), 17)
    assert arena_game.deals(state.world)[0][0] == arena_game.deals(dealt)[0][0]  # the same layout


@per_game
def test_returns_come_from_the_final_scores(game_id, overrides):
    game = openspiel_game(game_id, **overrides)
    rng = random.Random(5)
    for seed in range(3):
        state = game.new_initial_state()
        state.apply_action(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        scores = get_game(game_id).result(state.world).scores
        n = len(scores)
        expected = [(sum(s < mine for s in scores) - sum(s > mine for s in scores)) / (n - 1) for mine in scores]
        assert state.returns() == pytest.approx(expected)
        assert sum(state.returns()) == pytest.approx(0)


@per_game
def test_views_do_not_change_when_the_hidden_cards_are_dealt_again(game_id, overrides):
    """Another world consistent with a seat's observation (the others' hidden cards reshuffled) shows that
    seat exactly the same strings and tensors, and resampling is a function of the sampler's draws."""
    game = openspiel_game(game_id, **overrides)
    arena_game = get_game(game_id)
    rng = random.Random(11)
    hidden_changed = 0
    for count, state in enumerate(random_decisions(game, 2, rng)):
        if count % 3:
            continue
        for player in range(game.num_players()):
            seen = views(state, player)
            world = arena_game.sample_world(state.arena_observation(player), random.Random(count))
            other = game.state_of(world)
            assert views(other, player) == seen
            hidden_changed += other.serialize() != state.serialize()  # the whole world, hidden cards and all
            first, again = (state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(count, 0.0, 1.0))
                            for _ in range(2))
            assert views(first, player) == seen
            assert first.serialize() == again.serialize()
            if player == state.current_player():
                assert first.legal_actions() == state.legal_actions()
    assert hidden_changed  # the test did deal the hidden cards differently


def test_information_states_tell_observations_apart():
    """Two seats never share an information-state string, nor does one seat at two different moments."""
    game = openspiel_game("duke_of_york")
    strings = {}
    for state in random_decisions(game, 1, random.Random(3)):
        for player in range(2):
            observation = state.arena_observation(player)
            strings.setdefault(state.information_state_string(player), set()).add(observation)
    assert all(len(observations) == 1 for observations in strings.values())


def test_before_the_deal_nobody_sees_anything():
    game = openspiel_game("caterpillar")
    state = game.new_initial_state()
    for player in range(2):
        assert not np.any(state.information_state_tensor(player))
        assert "before the deal" in state.information_state_string(player)


def play_twice(game_id, overrides, spec, params, seed):
    """The transcript of a game the bot plays against itself, played twice from the same seed."""
    game = get_game(game_id)
    rules = make_rules(game.Rules, overrides)
    bot_class = load_bot_class(spec)
    transcripts = []
    for _ in range(2):
        bots = [bot_class(**params) for _ in range(game.players(rules))]
        played = referee.play(game, rules, bots, seed)
        transcripts.append(referee.transcript(game, rules, [b.name for b in bots], seed, played))
    return transcripts


SEARCHES = [("openspiel:ismcts", {"max_simulations": 6}), ("openspiel:mcts", {"max_simulations": 6, "worlds": 2})]


@per_game
@pytest.mark.parametrize("spec, params", SEARCHES, ids=[spec for spec, _ in SEARCHES])
def test_openspiel_bots_play_whole_games_replayably(game_id, overrides, spec, params):
    first, second = play_twice(game_id, overrides, spec, params, seed=2024)
    assert first["fault"] is None and first["termination"] not in ("crash", "illegal_move", "timeout"), first["fault"]
    assert json.dumps(first) == json.dumps(second)
    assert sum(len(deal["moves"]) for deal in first["deals"]) > 0


def test_unknown_algorithms_and_parameters_are_refused():
    from arena.bots import BotError

    with pytest.raises(BotError, match="openspiel:ismcts"):
        load_bot_class("openspiel:alphazero")
    with pytest.raises(TypeError, match="unknown parameter"):
        load_bot_class("openspiel:ismcts")(iterations=5)


def test_a_config_bot_with_an_openspiel_path_loads_in_another_process():
    """As on a Ray worker: the config records a spec that a fresh process loads; importing arena alone does
    not import OpenSpiel."""
    config = parse_config("""
        name = "os"
        seed = 1
        [[games]]
        game = "caterpillar"
        deals = 1
        [[bots]]
        name = "os-ismcts"
        path = "openspiel:ismcts"
        params = { max_simulations = 5 }
        [[bots]]
        name = "heuristic"
    """)
    spec = config.bots[0].spec
    code = ("import sys, arena, arena.bots, arena.config\n"
            "assert 'pyspiel' not in sys.modules\n"
            f"bot = arena.bots.load_bot_class({spec!r})(max_simulations=5)\n"
            "print(bot.name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "openspiel-ismcts"
