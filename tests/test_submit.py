"""`arena submit`: accepts the guide's example bot, rejects bad bots with a clear reason."""

import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots import load_bot_class
from arena.cli import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def arena_home(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))


def bot_file(tmp_path, body, name="bad"):
    path = tmp_path / f"{name}.py"
    header = f"import random, time\nfrom arena.bots import Bot\n\n\nclass Bad(Bot):\n    name = {name!r}\n"
    path.write_text(header + "    games = {'caterpillar'}\n\n" + textwrap.indent(textwrap.dedent(body), "    "))
    return f"{path}:Bad"


def test_the_guides_example_is_accepted_and_registered():
    result = runner.invoke(app, ["submit", "docs/example_bot.py:CountingBot"])
    assert result.exit_code == 0, result.output
    assert "caterpillar   ok" in result.output and "registered: 'counting'" in result.output
    assert load_bot_class("counting").__name__ == "CountingBot"
    listed = runner.invoke(app, ["bots", "--game", "caterpillar"])
    assert "counting" in listed.output
    played = runner.invoke(app, ["play", "caterpillar", "counting", "random", "--json"])
    assert played.exit_code == 0


@pytest.mark.parametrize("body, reason", [
    ("def act(self, o):\n    raise ValueError('oops')\n", "crash: BotProcessError: ValueError: oops"),
    ("def act(self, o):\n    return 'QS'\n", "illegal_move: illegal move \"'QS'\" (not a move of caterpillar)"),
    ("def act(self, o):\n    return random.choice(o.legal_moves)\n", "not deterministic"),
    ("def act(self, o):\n    t = time.thread_time()\n    while time.thread_time() < t + 0.5:\n        pass\n"
     "    return o.legal_moves[0]\n", "timeout: no move within 0.2s"),
], ids=["raises", "illegal", "not deterministic", "too slow"])
def test_bad_bots_are_rejected_with_the_reason(tmp_path, body, reason):
    spec = bot_file(tmp_path, body)
    result = runner.invoke(app, ["submit", spec, "--move-time-limit", "0.2", "--games", "3"])
    assert result.exit_code == 2
    assert reason in result.output and "was not registered" in result.output
    assert "bad" not in runner.invoke(app, ["bots"]).output


def test_a_name_that_is_taken_is_refused(tmp_path):
    spec = bot_file(tmp_path, "def act(self, o):\n    return o.legal_moves[0]\n", name="random")
    result = runner.invoke(app, ["submit", spec])
    assert result.exit_code == 2 and "the name 'random' is taken" in result.output


def test_not_a_bot():
    result = runner.invoke(app, ["submit", "docs/example_bot.py:pips"])
    assert result.exit_code == 2 and result.output.endswith(
        "error: no class 'pips' in docs/example_bot.py (classes: CountingBot)\n")


def test_an_executable_bot_is_accepted_by_command(tmp_path):
    result = runner.invoke(app, ["submit", "command: examples/first_legal.sh", "--games", "2"])
    assert result.exit_code == 0, result.output
    assert "registered: 'first-legal'" in result.output
    played = runner.invoke(app, ["play", "duke_of_york", "first-legal", "random", "--json"])
    assert played.exit_code == 0 and '"first-legal"' in played.output


ZOO = Path(__file__).resolve().parent / "zoo"
STALLS = {  # a sleep meets the wall-clock backstop (4: 2 s for setup calls), a busy loop its limit of CPU time (its
    # backstop, 50, is left to a loaded machine)
    "at import": (str(ZOO / "sleeps_at_import.py:SleepsAtImportBot"), "not built within setup_time_limit = 0.5s", 4),
    "in __init__": (str(ZOO / "spins_in_init.py:SpinsInInitBot"), "not built within setup_time_limit = 0.5s", 50),
    "in reset": ("def reset(self, *args):\n    time.sleep(3600)\ndef act(self, o):\n    return o.legal_moves[0]\n",
                 "stalled in reset: no setup within 2s of wall time", 4),
    "in act": ("def act(self, o):\n    import signal\n    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
               "    while True:\n        pass\n", "timeout: no move within 0.2s", 50),
}


@pytest.mark.parametrize("where", STALLS)
def test_a_bot_that_stalls_anywhere_is_rejected_within_the_limits_stated(tmp_path, where):
    """The bot runs in its own process: sleeping or spinning with SIGALRM blocked, at import, in __init__, in reset
    or in act, it is rejected with the reason, and the check ends within its limits and the wall-clock backstop
    (plus start-ups)."""
    spec, reason, backstop = STALLS[where]
    if not spec.endswith("Bot"):
        spec = bot_file(tmp_path, spec)
    started = time.perf_counter()
    result = runner.invoke(app, ["submit", spec, "--setup-time-limit", "0.5", "--move-time-limit", "0.2",
                                 "--wall-backstop", str(backstop)])
    assert result.exit_code == 2
    assert "setup_time_limit 0.5s, move_time_limit 0.2s" in result.output.splitlines()[0]
    assert reason in result.output and "was not registered" in result.output
    assert time.perf_counter() - started < 15  # a few interpreters' start-up and the limits, never the bot's stall


def test_submit_checks_the_bot_in_the_sandbox_unless_told_otherwise(tmp_path):
    """A bot that reads a file planted outside its folder when built: the sandbox hides the file, so it plays and
    is registered; with --no-sandbox it reads the file and, built to fail then, is refused."""
    secret = tmp_path / "planted" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("the planted secret")
    folder = tmp_path / "bot"
    folder.mkdir()
    spec = bot_file(folder, f"""
        def __init__(self, **params):
            super().__init__(**params)
            try:
                seen = open({str(secret)!r}).read()
            except OSError:
                seen = None
            if seen is not None:
                raise RuntimeError("read a file outside its sandbox")

        def act(self, observation):
            return observation.legal_moves[0]
        """, name="peeker")
    sandboxed = runner.invoke(app, ["submit", spec, "--games", "1"])
    assert sandboxed.exit_code == 0 and "in the sandbox" in sandboxed.output, sandboxed.output
    plain = runner.invoke(app, ["submit", spec, "--games", "1", "--no-sandbox"])
    assert plain.exit_code == 2 and "read a file outside its sandbox" in plain.output, plain.output
