"""The registry of `arena submit`: a registered name works from any folder, `--replace` gives a registered name to
another bot, `arena bots --forget` unregisters one, and a stale entry is one warning per command."""

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BOT = '''from arena.bots import Bot


class B(Bot):
    name = "b"

    def act(self, observation):
        return observation.legal_moves[{move}]
'''
runner = CliRunner()


@pytest.fixture(autouse=True)
def arena_home(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    return tmp_path / "home" / "registry.json"


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """The author's folder (the current one, holding b.py and a copy of the example command bot) and another."""
    mine, other = tmp_path / "mine", tmp_path / "other"
    mine.mkdir()
    other.mkdir()
    (mine / "b.py").write_text(BOT.format(move=0))
    shutil.copy(EXAMPLES / "random_bot.py", mine / "random_bot.py")
    monkeypatch.chdir(mine)
    return mine, other


def submit(*args: str):
    return runner.invoke(app, ["submit", *args, "--games", "1"])


@pytest.mark.parametrize(("spec", "name"), [("b.py:B", "b"), ("command: python3 random_bot.py", "random-json")])
def test_a_registered_name_works_from_another_folder(folders, monkeypatch, arena_home, spec, name):
    mine, other = folders
    assert submit(spec).exit_code == 0
    record = json.loads(arena_home.read_text())[name]  # the bot's source: absolute paths, not the text typed
    assert record["form"] == ("file" if name == "b" else "program") and str(mine) in json.dumps(record)
    monkeypatch.chdir(other)
    played = runner.invoke(app, ["play", "caterpillar", name, "random", "--json"])
    assert played.exit_code == 0, played.output
    assert json.loads(played.stdout)["players"] == [name, "random"]


def test_replace_gives_a_registered_name_to_another_bot(folders, arena_home):
    mine, _ = folders
    assert submit("b.py:B").exit_code == 0
    (mine / "b2.py").write_text(BOT.format(move=-1))
    taken = submit("b2.py:B")
    assert taken.exit_code == 2 and "is registered to another bot" in taken.output and "--replace" in taken.output
    assert submit("b2.py:B", "--replace").exit_code == 0
    assert json.loads(arena_home.read_text())["b"]["entry"] == f"{mine / 'b2.py'}:B"


def test_replace_never_takes_a_bundled_name(folders):
    mine, _ = folders
    (mine / "r.py").write_text(BOT.format(move=0).replace('"b"', '"random"'))
    refused = submit("r.py:B", "--replace")
    assert refused.exit_code == 2 and "taken by a bundled or installed bot" in refused.output


def test_forget_unregisters_a_name_and_a_stale_entry_warns_once(folders, arena_home):
    mine, _ = folders
    assert submit("b.py:B").exit_code == 0
    (mine / "b.py").unlink()
    listed = runner.invoke(app, ["bots"])
    assert listed.exit_code == 0 and listed.stderr.count("warning: skipped registered bot b:") == 1
    assert "arena bots --forget b" in listed.stderr
    forgot = runner.invoke(app, ["bots", "--forget", "b"])
    assert forgot.exit_code == 0 and "forgot 'b'" in forgot.output
    assert json.loads(arena_home.read_text()) == {}
    again = runner.invoke(app, ["bots", "--forget", "b"])
    assert again.exit_code == 2 and again.output.strip() == "error: no registered bot 'b' (registered: none)"
