"""The command line: `arena games`, `arena bots`, `arena play`, and one-line errors with exit 2."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.tournament import referee

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


@pytest.mark.parametrize("args", [["games"], ["bots"], ["play", "caterpillar", "random", "greedy"]])
def test_a_command_that_shows_no_rating_table_starts_without_the_ratings_libraries(args):
    """pandas, pyarrow, numba and scipy take a second between them to import: a command that needs none of them is
    spared them (arena/cli/tables.py)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "arena.cli", *args], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    imported = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines() if line.startswith("import time")}
    assert "typer" in imported and not imported & {"pandas", "pyarrow", "numba", "scipy"}


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


def in_terminal(args: list[str], columns: int) -> str:
    """What `arena ARGS` prints to a pseudo-terminal `columns` wide, colour codes removed."""
    import os
    import pty
    import re
    import subprocess
    import sys

    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "50", "TERM": "xterm"}
    process = subprocess.Popen([sys.executable, "-m", "arena.cli", *args], stdout=follower, stderr=follower,
                               stdin=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the program ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(leader)
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode())


@pytest.mark.parametrize("where", ["pipe", "80 columns"])
def test_games_never_cuts_an_id_and_writes_ranges_as_people_do(where):
    output = runner.invoke(app, ["games"]).output if where == "pipe" else in_terminal(["games"], 80)
    assert "…" not in output
    for game_id in ("caterpillar", "give_or_take", "go_for_it", "duke_of_york", "max_decisions", "queen_zero"):
        assert game_id in output, game_id
    assert ">= 1" in output and "None" not in output and "2..6" in output
    if where == "80 columns":
        assert max(len(line) for line in output.splitlines()) <= 80


def test_rating_tables_fit_an_80_column_terminal_without_cutting_a_name(tmp_path):
    from arena.api import finish_and_report
    from arena.config import parse_config
    from arena.results import RunDir
    from arena.tournament.runner import play_missing

    config = parse_config('name = "n"\nseed = 1\n[[games]]\ngame = "caterpillar"\ndeals = 4\n[[bots]]\n'
                          'name = "random"\n[[bots]]\nname = "a-bot-with-a-rather-long-name"\npath = "greedy"\n')
    run = RunDir(tmp_path / "n")
    finish_and_report(config, run, play_missing(config, run, workers=1))
    output = in_terminal(["ratings", str(run.path)], 80)
    assert "a-bot-with-a-rather-long-name" in output and "…" not in output
    assert max(len(line) for line in output.splitlines()) <= 80
    manifest = json.loads(run.manifest.read_text())
    # bundled bots are recorded by name and version, not by a path on this machine
    assert manifest["bots"]["a-bot-with-a-rather-long-name"]["spec"] == "greedy"
    assert "version" in manifest["bots"]["random"] and "/" not in json.dumps(manifest["bots"])


def test_version():
    from importlib.metadata import version

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"arena {version('arena')}"


def test_a_project_bot_is_recorded_relative_to_the_project():
    from arena.bots.sources import recorded_spec

    absolute = Path("docs/example_bot.py").resolve()  # the tests run from the project's root
    sha256 = hashlib.sha256(absolute.read_bytes()).hexdigest()
    assert recorded_spec(f"{absolute}:CountingBot") == {"spec": "docs/example_bot.py:CountingBot", "form": "file",
                                                        "sha256": sha256}
