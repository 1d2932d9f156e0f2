"""The PettingZoo adapter and the action/observation encoding under it, for every game and rules variant."""

import itertools
import pickle
import random
import subprocess
import sys

import numpy as np
import pytest
from conftest import VARIANT_IDS, VARIANTS, import_optional

import_optional("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from arena.bots import load_bot_class  # noqa: E402
from arena.interop import pettingzoo_env  # noqa: E402
from arena.interop.encoding import encoding  # noqa: E402
from arena.interop.pettingzoo import rank_rewards  # noqa: E402
from arena.tournament import referee  # noqa: E402

# Observations are dicts holding an action mask, as in PettingZoo's own classic environments.
pytestmark = [pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
              pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")]
per_variant = pytest.mark.parametrize("game_id, overrides", VARIANTS, ids=VARIANT_IDS)

ORDERED = {"caterpillar": ["caterpillar"], "give_or_take": ["played"], "go_for_it": ["row", "pile_known", "winnings"],
           "duke_of_york": ["played", "earlier"]}
"""The observation fields that keep cards in order; in `NESTED` ones each item (a seat's, a round's) is a sequence."""
NESTED = {"pile_known", "winnings", "earlier"}


def random_positions(game, rules, seeds, rng):
    """Random legal play from each seed; yields every state before a decision and the final one."""
    for seed in seeds:
        state = game.new_state(rules, seed)
        while game.to_move(state) is not None:
            yield state
            game.apply(state, rng.choice(game.legal_moves(state)))
        yield state


def random_env_steps(env, rng):
    """Random legal actions until the game is over; yields before each step."""
    while not any(env.terminations.values()):
        yield
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(rng.choice(np.flatnonzero(mask).tolist()))


@per_variant
def test_api(game_id, overrides):
    api_test(pettingzoo_env(game_id, **overrides), num_cycles=200, verbose_progress=False)


@per_variant
def test_seeded_runs_repeat(game_id, overrides):
    seed_test(lambda: pettingzoo_env(game_id, **overrides), num_cycles=200)


def test_reset_without_seed_follows_the_env_rng():
    first, second = pettingzoo_env("caterpillar"), pettingzoo_env("caterpillar")
    first.reset(seed=9)
    second.reset(seed=9)
    first.reset()
    second.reset()
    assert first.deal_seed == second.deal_seed != 9
    assert all(np.array_equal(first.observe(a)["observation"], second.observe(a)["observation"])
               for a in first.agents)


@per_variant
def test_seed_deals_and_transcript_ranks_match_the_referee(game_id, overrides):
    """reset(seed=s) deals what `arena play --seed s` deals; replaying a transcript's moves as actions ends
    with every agent terminated and rewarded by the transcript's ranks."""
    env = pettingzoo_env(game_id, **overrides)
    game, rules, enc = env.game, env.rules, env.encoding
    names = ["greedy", "random"] * 3
    names = names[:enc.players]
    for seed in (5, -(2**40) - 1):
        played = referee.play(game, rules, [load_bot_class(name)() for name in names], seed)
        data = referee.transcript(game, rules, names, seed, played)
        assert data["fault_seat"] is None
        env.reset(seed=np.int64(seed))
        assert game.layout_json(game.deals(env.game_state)[0][0]) == data["deals"][0]["layout"]
        for deal in data["deals"]:
            for entry in deal["moves"]:
                assert env.agent_selection == f"player_{entry['seat']}"
                assert not any(env.terminations.values())
                env.step(enc.action(game.parse_move(entry["move"])))
        assert all(env.terminations.values()) and not any(env.truncations.values())
        expected = rank_rewards(tuple(data["ranks"]))
        assert [env.rewards[agent] for agent in env.possible_agents] == expected
        assert [env.infos[agent]["rank"] for agent in env.possible_agents] == data["ranks"]
        assert abs(sum(expected)) < 1e-9 and all(-1 <= r <= 1 for r in expected)
        while env.agents:  # every agent leaves with step(None), having received its reward
            agent = env.agent_selection
            _, reward, terminated, _, _ = env.last()
            assert terminated and reward == expected[int(agent.removeprefix("player_"))]
            env.step(None)


def test_rank_rewards():
    assert rank_rewards((1, 0)) == [-1.0, 1.0]
    assert rank_rewards((0, 0)) == [0.0, 0.0]
    assert rank_rewards((0, 1, 1, 3)) == [1.0, 0.0, 0.0, -1.0]
    assert rank_rewards((1, 0, 1)) == [-0.5, 1.0, -0.5]


@per_variant
def test_observations_hide_what_a_seat_cannot_see(game_id, overrides):
    """At random points, each agent's observation is unchanged when the cards it cannot see are dealt
    afresh (`sample_world` from its own observation), and the test did deal them differently: the world's
    pickle (as OpenSpiel serializes a state) differs from the real state's, while a clone's is the same."""
    env = pettingzoo_env(game_id, **overrides)
    game = env.game
    rng = random.Random(f"{game_id}{overrides}")
    hidden_changed = 0
    for seed in range(8):
        env.reset(seed=seed)
        for _ in random_env_steps(env, rng):
            if rng.random() > 0.15:
                continue
            real = env.game_state
            assert pickle.dumps(game.clone(real)) == pickle.dumps(real)  # so that a difference means the cards
            for seat, agent in enumerate(env.possible_agents):
                seen = env.observe(agent)
                env.game_state = game.sample_world(game.observe(real, seat), random.Random(rng.random()))
                other = env.observe(agent)
                hidden_changed += pickle.dumps(env.game_state) != pickle.dumps(real)
                env.game_state = real
                assert np.array_equal(seen["observation"], other["observation"])
                assert np.array_equal(seen["action_mask"], other["action_mask"])
    assert hidden_changed


def reordered(observation, field):
    """The observation with the first two cards of an ordered field swapped."""
    swap = lambda cards: cards[1::-1] + cards[2:]
    value = getattr(observation, field)
    return observation._replace(**{field: tuple(map(swap, value)) if field in NESTED else swap(value)})


@per_variant
def test_distinct_observations_give_distinct_vectors(game_id, overrides):
    """Along random games, observations that differ have vectors that differ, also when only the order
    of played cards differs."""
    enc = encoding(game_id, **overrides)
    game, rules = enc.game, enc.rules
    by_vector = {}
    reorders = 0
    for state in itertools.islice(random_positions(game, rules, range(40), random.Random(1)), 400):
        for seat in range(enc.players):
            observation = game.observe(state, seat)
            vector = enc.vector(observation)
            assert vector.shape == enc.shape and vector.dtype == np.float32
            assert np.all(vector >= 0) and np.all(vector <= enc.high)
            assert by_vector.setdefault(vector.tobytes(), observation) == observation
            for field in ORDERED[game_id]:
                other = reordered(observation, field)
                if other != observation:
                    reorders += 1
                    assert not np.array_equal(enc.vector(other), vector), field
    assert len(by_vector) > 200 and reorders > 100


@per_variant
def test_actions_round_trip(game_id, overrides):
    enc = encoding(game_id, **overrides)
    assert enc is encoding(game_id, **{k: str(v).lower() for k, v in overrides.items()})  # cached per rules
    assert all(enc.action(enc.move(action)) == action for action in range(enc.num_actions))
    game, rules = enc.game, enc.rules
    for state in random_positions(game, rules, range(4), random.Random(2)):
        seat = game.to_move(state)
        if seat is None:
            continue
        observation = game.observe(state, seat)
        actions = enc.legal_actions(observation)
        assert actions == sorted(set(actions))
        assert {enc.move(a) for a in actions} == set(observation.legal_moves)
        for move in observation.legal_moves:
            assert enc.move(enc.action(move)) == move
        assert enc.text(observation)


def test_illegal_action_names_the_move():
    env = pettingzoo_env("caterpillar")
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=env.game.move_to_str(env.encoding.move(illegal))):
        env.step(illegal)
    with pytest.raises(ValueError):
        env.step(env.encoding.num_actions)
    other = next(a for a in env.agents if a != env.agent_selection)
    assert not env.observe(other)["action_mask"].any()


def test_ansi_render_and_bad_arguments():
    env = pettingzoo_env("duke_of_york", render_mode="ansi", values="face_value")
    env.reset(seed=3)
    assert "round 0," in env.render() and "legal: take:0 take:1" in env.render()
    assert pettingzoo_env("caterpillar").metadata["name"] == "arena_caterpillar_v0"
    with pytest.raises(ValueError):
        pettingzoo_env("caterpillar", render_mode="human")
    with pytest.raises(ValueError):
        pettingzoo_env("go_for_it", players=9)


def test_importing_the_package_loads_no_rl_library():
    code = "import sys, arena.interop; print(sorted({'pettingzoo', 'pyspiel', 'gymnasium'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
