"""A run directory stands on its own: `arena reproduce` and `arena replay` work from any folder, and its manifest
pins every bot's code by hash, so a bot edited since the run is named before anything is played."""

import hashlib
import json

import pytest
from typer.testing import CliRunner

from arena.bots.sources import recorded_spec
from arena.cli import app

runner = CliRunner()
BOT = '''from arena.bots import Bot


class B(Bot):
    name = "b"

    def act(self, observation):
        return observation.legal_moves[0]
'''
CONFIG = '''name = "here"
seed = 3
[[games]]
game = "caterpillar"
deals = 2
[[bots]]
name = "random"
[[bots]]
name = "b"
path = "my/b.py:B"
[run]
workers = 1
'''


@pytest.fixture
def run_in_x(tmp_path, monkeypatch):
    """A run made in folder x/ of a config naming its bot by a path relative to x/; the test then stands in y/."""
    x, y = tmp_path / "x", tmp_path / "y"
    (x / "my").mkdir(parents=True)
    y.mkdir()
    (x / "my" / "b.py").write_text(BOT)
    (x / "t.toml").write_text(CONFIG)
    monkeypatch.chdir(x)
    made = runner.invoke(app, ["tournament", "t.toml", "--no-progress"])
    assert made.exit_code == 0, made.output
    monkeypatch.chdir(y)
    return x


def test_reproduce_and_replay_work_from_another_folder(run_in_x):
    run = str(run_in_x / "reports" / "here")
    reproduced = runner.invoke(app, ["reproduce", run])
    assert reproduced.exit_code == 0, reproduced.output
    assert "reproduced: identical results" in reproduced.output
    replayed = runner.invoke(app, ["replay", run, "1", "--json"])
    assert replayed.exit_code == 0, replayed.output
    assert json.loads(replayed.stdout)["players"] in (["random", "b"], ["b", "random"])


def test_a_run_resumes_from_another_folder(run_in_x):
    resumed = runner.invoke(app, ["tournament", str(run_in_x / "t.toml"), "--resume", "--no-progress",
                                  "--out", str(run_in_x / "reports")])
    assert resumed.exit_code == 0, resumed.output
    assert "(0 played now" in resumed.output


def test_a_bot_edited_since_the_run_is_named_with_both_hashes(run_in_x):
    bot = run_in_x / "my" / "b.py"
    then = hashlib.sha256(bot.read_bytes()).hexdigest()
    bot.write_text(BOT + "# edited: plays the same, but is not the code the run played\n")
    now = hashlib.sha256(bot.read_bytes()).hexdigest()
    reproduced = runner.invoke(app, ["reproduce", str(run_in_x / "reports" / "here")])
    assert reproduced.exit_code == 1
    assert f"MISMATCH: bot 'b': its code changed since the run (sha256 {then[:12]} -> {now[:12]})" in reproduced.output


def test_the_manifest_pins_each_kind_of_bot(run_in_x, tmp_path, monkeypatch):
    """A file by its own SHA-256 (as sha256sum prints it), a package by its folder, a command by its files, a
    bundled bot by arena's version."""
    manifest = json.loads((run_in_x / "reports" / "here" / "manifest.json").read_text())
    assert manifest["bots"]["b"]["sha256"] == hashlib.sha256((run_in_x / "my" / "b.py").read_bytes()).hexdigest()
    assert "sha256" not in manifest["bots"]["random"] and manifest["bots"]["random"]["version"]
    assert manifest["folders"] == [str(run_in_x)]

    package = tmp_path / "site" / "clever_bots"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text(BOT)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    pinned = recorded_spec("clever_bots.core:B")["sha256"]
    (package / "helpers.py").write_text("X = 1\n")  # any file of the package counts
    assert recorded_spec("clever_bots.core:B")["sha256"] != pinned

    script, weights = run_in_x / "my" / "b.py", run_in_x / "my" / "weights.txt"
    assert recorded_spec(f"command: python3 {script}")["sha256"] == hashlib.sha256(script.read_bytes()).hexdigest()
    weights.write_text("1 2 3\n")
    pinned = recorded_spec(f"command: python3 {script} --weights {weights}")["sha256"]
    weights.write_text("1 2 4\n")  # the data file it names is part of the bot too
    assert recorded_spec(f"command: python3 {script} --weights {weights}")["sha256"] != pinned
    assert "sha256" not in recorded_spec("command: sh -c true")  # nothing of its own to pin
