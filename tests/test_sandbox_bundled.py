"""A sandboxed bot can build on a bundled one: the bundled bots are bound read-only in every sandbox of a Python
bot, so a one-file bot that wraps `heuristic` passes `arena submit` (sandboxed by default) and plays a tournament
with isolation = "sandbox"; and only the bundled bots are bound, not whatever else lies in bots/."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_sandbox import ROOT, needs_sandbox
from typer.testing import CliRunner

from arena.cli import app
from arena.config import parse_config
from arena.isolation import sandbox
from arena.results import RunDir, load_results
from arena.tournament.runner import play_missing

WRAPPER = '''
from arena.bots import Bot, load_bot_class


class Tweaked(Bot):
    """heuristic's moves, found by its name as any user's bot would find it."""

    name = "tweaked-heuristic"
    games = {"caterpillar"}

    def __init__(self, **params):
        super().__init__(**params)
        self.inner = load_bot_class("heuristic")()

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        self.inner.reset(game_id, seat, rules, rng)

    def act(self, observation):
        return self.inner.act(observation)
'''


@pytest.fixture
def wrapper(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    path = tmp_path / "tweaked.py"
    path.write_text(WRAPPER)
    return f"{path}:Tweaked"


@needs_sandbox
def test_a_bot_that_wraps_heuristic_passes_submit_in_the_sandbox(wrapper):
    result = CliRunner().invoke(app, ["submit", wrapper, "--games", "2"])
    assert result.exit_code == 0, result.output
    assert "registered: 'tweaked-heuristic'" in result.output


@needs_sandbox
def test_a_bot_that_wraps_heuristic_plays_a_sandboxed_tournament_as_heuristic(wrapper, tmp_path):
    """Every game ends normally, and the wrapper's games are heuristic's own (the same seeds, the same moves)."""
    results = {}
    for i, entry in enumerate((f'path = "{wrapper}"\nisolation = "sandbox"', 'path = "heuristic"')):
        text = (f'name = "wrap"\nseed = 7\n[[games]]\ngame = "caterpillar"\ndeals = 2\n[[bots]]\nname = "me"\n{entry}\n'
                '[[bots]]\nname = "random"\n[run]\nworkers = 1\nbatch_size = 4\n')
        config = parse_config(text, base=ROOT)
        run = RunDir(tmp_path / str(i) / config.name)
        play_missing(config, run, workers=1)
        results[entry] = load_results(run).to_pylist()
    sandboxed, in_process = results.values()
    assert len(sandboxed) == 4 and all(row["termination"] == "normal" for row in sandboxed), sandboxed
    assert [row["scores"] for row in sandboxed] == [row["scores"] for row in in_process]


@needs_sandbox
def test_only_the_bundled_bots_are_bound(tmp_path):
    """A sandboxed Python bot sees in bots/ the bundled bots and nothing else of that folder (where users may drop
    bots of their own); BUNDLED names every file and folder of bots/ that the project holds."""
    bot = tmp_path / "looks.py"
    bot.write_text(f"import json, os\nprint(json.dumps(sorted(os.listdir({str(ROOT / 'bots')!r}))))\n")
    line = sandbox.wrap([sys.executable, "-m", "arena.isolation", f"{bot}:Nothing"])
    line[-3:] = [str(bot)]  # the built-in host's view, with the bot's file run as a script
    done = subprocess.run(line, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)) - {"__pycache__"} == set(sandbox.BUNDLED)
    tracked = subprocess.run(["git", "ls-files", "bots"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode == 0 and tracked.stdout:
        assert {Path(f).parts[1] for f in tracked.stdout.split()} == set(sandbox.BUNDLED)
