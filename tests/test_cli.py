"""The command line: `arena games`, `arena bots`, `arena play`, and one-line errors with exit 2."""

import json

import pytest
from typer.testing import CliRunner

from arena import referee
from arena.cli import app

runner = CliRunner()


def test_games_lists_every_game_and_option():
    result = runner.invoke(app, ["games"], env={"COLUMNS": "250"})
    assert result.exit_code == 0
    for word in ("caterpillar", "give_or_take", "go_for_it", "duke_of_york", "target", "jokers", "queen_zero"):
        assert word in result.output


def test_bots_lists_bundled_bots():
    result = runner.invoke(app, ["bots", "--game", "caterpillar"])
    assert result.exit_code == 0 and "random" in result.output and "greedy" in result.output


@pytest.mark.parametrize("args", [
    ["caterpillar", "random", "greedy"],
    ["give_or_take", "greedy", "random", "--rule", "multiply=true"],
    ["go_for_it", "random", "greedy", "random"],
    ["duke_of_york", "random", "random", "--rule", "values=face_value"],
])
def test_play_json_replays_to_the_same_result(args):
    result = runner.invoke(app, ["play", *args, "--seed", "11", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["seed"] == 11 and data["players"] == args[1:len(data["players"]) + 1]
    outcome = referee.replay(data)
    assert list(outcome.scores) == data["scores"] and list(outcome.ranks) == data["ranks"]


def test_play_prints_a_readable_account():
    result = runner.invoke(app, ["play", "caterpillar", "random", "greedy", "--seed", "3"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].startswith("caterpillar - seed 3")
    assert any(line.startswith("  hands seat 0:") for line in lines)
    assert any("total" in line and "scores" in line for line in lines)
    assert any(line.startswith("result: ") for line in lines)


@pytest.mark.parametrize("args, message", [
    (["play", "chess", "random", "random"], "unknown game 'chess'"),
    (["play", "caterpillar", "random", "nobody"], "unknown bot 'nobody'"),
    (["play", "caterpillar", "random"], "needs 2 bots, got 1"),
    (["play", "go_for_it"] + ["random"] * 7, "must be between 2 and 6"),
    (["play", "caterpillar", "random", "random", "--rule", "speed=3"], "unknown rule 'speed'"),
    (["play", "give_or_take", "random", "random", "--rule", "target=lots"], "takes a int"),
    (["play", "duke_of_york", "random", "random", "--rule", "values=roman"], "must be one of"),
    (["play", "caterpillar", "random", "random", "--rule", "novalue"], "key=value"),
    (["play", "caterpillar", "random", "tests/nofile.py:Bot"], "no bot file"),
    (["bots", "--game", "poker"], "unknown game 'poker'"),
])
def test_bad_input_gets_one_line_and_exit_2(args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.output
