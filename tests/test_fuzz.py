"""Fuzzing the inputs people type: tournament configs and moves.

A config is text from a user: whatever it holds, `parse_config` either returns a config that can
be run (every number finite) or raises ConfigError with one line naming the problem -- never
another exception, never a hang. A move is text from a user or a bot process: `parse_move` returns
a move of the game (one that writes back as itself) or raises MoveError.
"""

import math
import os
import tomllib
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from arena.config import Config, ConfigError, parse_config
from arena.games import GAME_IDS, MoveError, get_game

ROOT = Path(__file__).resolve().parent.parent
GOOD = (Path(__file__).parent / "data" / "small.toml").read_text()
FUZZ = settings(max_examples=int(os.environ.get("ARENA_FUZZ_EXAMPLES", "200")), deadline=timedelta(seconds=5),
                suppress_health_check=[HealthCheck.too_slow])
"""A deeper search: ARENA_FUZZ_EXAMPLES=20000 pytest tests/test_fuzz.py"""


def toml_string(text: str) -> str:
    """`text` as a TOML basic string."""
    escaped = ("\\" + ch if ch in '"\\' else f"\\u{ord(ch):04x}" if ord(ch) < 32 or ch == "\x7f" else ch for ch in text)
    return '"' + "".join(escaped) + '"'


def toml_value(value) -> str:
    """`value` (as tomllib returns them) written as TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    return "{" + ", ".join(f"{toml_string(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_document(data: dict) -> str:
    """A TOML document holding `data` (every table inline)."""
    return "\n".join(f"{toml_string(key)} = {toml_value(value)}" for key, value in data.items())


WORDS = ["random", "greedy", "caterpillar", "go_for_it", "give_or_take", "duke_of_york", "players", "jokers",
         "target", "multiply", "values", "face_value", "bots/random_bot.py:RandomBot", "nowhere.py:Bot",
         "arena.bots:Bot", "no.such.module:Bot", "a\nb.py:X", "a\x00b.py:X", "x" * 300 + ".py:X", "", " "]
SCALARS = st.one_of(st.booleans(), st.integers(-3, 12), st.integers(), st.floats(), st.text(max_size=8),
                    st.sampled_from(WORDS))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(WORDS) | st.text(max_size=4), inner, max_size=3),
                      max_leaves=6)


def check_config(text: str) -> None:
    """parse_config(text) gives a runnable config or one line of ConfigError, nothing else."""
    try:
        config = parse_config(text, base=ROOT)
    except ConfigError as error:
        message = str(error)
        assert message and "\n" not in message and "\r" not in message, f"not one line: {message!r}"
        return
    assert isinstance(config, Config)
    ratings = config.ratings
    numbers = [config.run.move_time_limit or 1.0, ratings.mu, ratings.sigma, ratings.beta, ratings.tau,
               ratings.draw_probability]
    assert all(math.isfinite(n) for n in numbers), f"a config with non-finite numbers loaded: {config}"


@FUZZ
@given(st.text())
@example("a = " + "[" * 5000)
@example("a = " + "{b = " * 5000)
@example("name = 'x'\nseed = 1\n[[games]]\n" * 3)
def test_arbitrary_text_is_a_config_error(text):
    check_config(text)


@FUZZ
@given(st.data())
def test_spliced_configs_are_config_errors(data):
    text = GOOD
    for _ in range(data.draw(st.integers(1, 4))):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, min(len(text), start + 24)))
        text = text[:start] + data.draw(st.text(max_size=12) | st.sampled_from(WORDS)) + text[end:]
    check_config(text)


def mutate(data, draw, top=False):
    """`data` with one value somewhere inside replaced, removed, or given a new neighbour."""
    if not top and (not isinstance(data, (dict, list)) or not data or draw(st.integers(0, 3)) == 0):
        return draw(VALUES)
    if isinstance(data, list):
        at = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(["deeper", "drop", "add"]))
        if action == "drop":
            return data[:at] + data[at + 1:]
        if action == "add":
            return data[:at] + [draw(VALUES)] + data[at:]
        return data[:at] + [mutate(data[at], draw)] + data[at + 1:]
    key = draw(st.sampled_from(sorted(data)))
    action = draw(st.sampled_from(["deeper", "drop", "add"]))
    if action == "drop":
        return {k: v for k, v in data.items() if k != key}
    if action == "add":
        return {**data, draw(st.sampled_from(WORDS + ["workers", "deals", "rules", "seed", "name", "path", "params",
                                                      "move_time_limit", "batch_size", "mu", "sigma", "tau"])
                             | st.text(max_size=4)): draw(VALUES)}
    return {**data, key: mutate(data[key], draw)}


@FUZZ
@given(st.data())
def test_mutated_configs_are_config_errors(data):
    tree = tomllib.loads(GOOD)
    for _ in range(data.draw(st.integers(1, 3))):
        tree = mutate(tree, data.draw, top=True)
    check_config(toml_document(tree))


FIELDS = ["name", "seed", "games.0.game", "games.0.deals", "games.0.duplicate", "games.0.rules",
          "games.2.rules.players", "games.2.rules.jokers", "games.1.rules.target", "games.3.rules.values",
          "games.1.bots", "bots.0.name", "bots.2.path", "bots.2.params", "bots.1.params.depth", "run.workers",
          "run.address", "run.batch_size", "run.move_time_limit", "ratings.mu", "ratings.sigma", "ratings.beta",
          "ratings.tau", "ratings.draw_probability"]
"""Fields of the small config (dotted paths, numbers index arrays) that the fuzzer sets to odd values."""


def put(tree, field: str, value):
    """`tree` with the value at a dotted path (numbers index arrays) set, tables made on the way."""
    head, _, rest = field.partition(".")
    key = int(head) if head.isdigit() else head
    inner = tree[key] if (isinstance(tree, list) or key in tree) else {}
    new = put(inner, rest, value) if rest else value
    if isinstance(tree, list):
        return tree[:key] + [new] + tree[key + 1:]
    return {**tree, key: new}


@FUZZ
@given(fields=st.lists(st.sampled_from(FIELDS), min_size=1, max_size=3), values=st.lists(VALUES, min_size=3,
                                                                                         max_size=3))
def test_configs_with_odd_field_values_are_config_errors(fields, values):
    tree = tomllib.loads(GOOD)
    for field, value in zip(fields, values, strict=False):
        tree = put(tree, field, value)
    check_config(toml_document(tree))


@pytest.mark.parametrize("field, value", [
    ("run.move_time_limit", "nan"), ("run.move_time_limit", "inf"), ("run.move_time_limit", "-inf"),
    ("ratings.mu", "nan"), ("ratings.mu", "inf"), ("ratings.sigma", "inf"), ("ratings.beta", "nan"),
    ("ratings.tau", "inf"), ("ratings.draw_probability", "nan"),
])
def test_non_finite_numbers_are_config_errors(field, value):
    table, key = field.split(".")
    text = GOOD.replace("[run]", f"[{table}]\n{key} = {value}\n[run]") if table == "ratings" else (
        GOOD.replace("[run]", f"[run]\n{key} = {value}"))
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        parse_config(text, base=ROOT)


@pytest.mark.parametrize("game_id", GAME_IDS)
@FUZZ
@given(text=st.text() | st.sampled_from(["7H", "7h+", " JDk ", "KSK", "take:0", "take: 1", "discard:QS", "play",
                                           "PASS", "JK", "10H", "take:٠", "discard:", ":", "+", "ǆ"]))
def test_parse_move_gives_a_move_or_a_move_error(game_id, text):
    game = get_game(game_id)
    try:
        move = game.parse_move(text)
    except MoveError:
        return
    assert game.parse_move(game.move_to_str(move)) == move, "a parsed move writes back as itself"


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("value", [None, 7, b"7H", ("7H",), ["take", 0]])
def test_parse_move_of_a_non_string_is_a_move_error(game_id, value):
    with pytest.raises(MoveError):
        get_game(game_id).parse_move(value)
