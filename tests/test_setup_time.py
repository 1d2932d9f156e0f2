"""The setup time limit: a bot that takes too long to be built or reset, in every isolation mode, with one local
worker and with Ray workers, in real tournaments.

Four attackers (tests/zoo/slow_setup.py) sleep, or block SIGALRM and sleep, in `__init__` or in `reset`, each
in a game of its own against `random`, before the honest games of `random` and `greedy` in the same worker. A sleep
uses no CPU time: the wall-clock backstop ends it (here 1.5 times the setup time limit).
They behave while the config is checked (which builds each bot once) and misbehave once their trigger file
exists. Each run completes within the limits it states; every
game of an attacker is its `timeout`; the honest games are those of a run without the attackers. A bot that
cannot be built in time while the config is checked (it sleeps at import, or spins in every `__init__`) is
refused with one line and exit 2, in bounded time.
"""

import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_hostile import by_game

from arena.config import parse_config
from arena.isolation.clock import BACKSTOP_GRACE
from arena.results import RunDir, load_results
from arena.tournament.runner import play_missing

ROOT = Path(__file__).resolve().parent.parent
ZOO = ROOT / "tests" / "zoo"
MODES = ["none", "process", "sandbox"]
"""Isolation modes of the attackers: a new mode is one more word here."""
SETUP = 1.0
"""The setup time limit of these runs (seconds of CPU time)."""
BACKSTOP = 1.5
"""The wall-clock backstop of these runs: a setup call that sleeps ends after SETUP * BACKSTOP seconds."""
WALL = SETUP * BACKSTOP
ATTACKS = {"caterpillar": ("init", "sleep"), "give_or_take": ("init", "block"),
           "duke_of_york": ("reset", "sleep"), "go_for_it": ("reset", "block")}
"""The game each attacker plays, and where and how it stalls."""
HONEST = {"random", "greedy"}
SLACK = 2.0
"""What a loaded machine may add to a timed-out game beyond its limit and the backstop's grace."""


def config_text(trigger: Path | None, mode: str = "none", workers: int = 1) -> str:
    """Each game of ATTACKS played by its attacker and random (when `trigger` is given), then the honest games:
    random and greedy at HONEST_GAME, played after the attacks, in the same worker."""
    lines = ['name = "setup"', "seed = 20261201"]
    for game, (where, how) in ATTACKS.items() if trigger is not None else ():
        lines += ["[[games]]", f'game = "{game}"', "deals = 1", "duplicate = false",
                  f'bots = ["{where}-{how}", "random"]']
        if game == "go_for_it":
            lines.append("rules = { players = 2 }")
    lines += ["[[games]]", 'game = "go_for_it"', "deals = 2", "rules = { players = 2, jokers = true }",
              'bots = ["random", "greedy"]']
    if trigger is not None:
        for where, how in ATTACKS.values():
            lines += ["[[bots]]", f'name = "{where}-{how}"', f'path = "{ZOO}/slow_setup.py:SlowSetupBot"',
                      f'isolation = "{mode}"',
                      f'params = {{ where = "{where}", how = "{how}", '
                      f'trigger = "{"rebuilt" if mode == "sandbox" else trigger}" }}']
    lines += ["[[bots]]", 'name = "random"', "[[bots]]", 'name = "greedy"',
              "[run]", f"workers = {workers}", "batch_size = 1", "move_time_limit = 1.0", f"setup_time_limit = {SETUP}",
              f"wall_backstop = {BACKSTOP}"]
    return "\n".join(lines) + "\n"


def play(directory: Path, text: str, workers: int) -> list[dict]:
    """Plays a run (its rating and report apart) and returns its rows, every game index once."""
    config = parse_config(text, base=ROOT)
    run = RunDir(directory / config.name)
    report = play_missing(config, run, workers=workers)
    rows = load_results(run).to_pylist()
    assert [row["game_index"] for row in rows] == list(range(report.total))
    return rows


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    return play(tmp_path_factory.mktemp("clean"), config_text(None), 1)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_a_bot_too_slow_to_set_up_forfeits_each_game_and_the_run_goes_on(mode, workers, tmp_path, clean):
    trigger = tmp_path / "misbehave"
    parse_config(config_text(trigger, mode, workers), base=ROOT)  # checked while the attackers behave
    trigger.touch()
    started = time.perf_counter()
    rows = play(tmp_path, config_text(trigger, mode, workers), workers)
    seconds = time.perf_counter() - started
    attacked = [row for row in rows if not set(row["players"]) <= HONEST]
    assert len(attacked) == len(ATTACKS) and len(rows) == len(ATTACKS) + 4
    for row in attacked:
        attacker = next(name for name in row["players"] if name not in HONEST)
        assert (row["players"][row["fault_seat"]], row["termination"], row["fault"], row["decisions"]) == (
            attacker, "timeout", f"no setup within {WALL:g}s of wall time", 0), row
        assert row["duration"] < WALL + BACKSTOP_GRACE + SLACK, row
    assert by_game(row for row in rows if set(row["players"]) <= HONEST) == by_game(clean)
    # Each timed-out game costs at most its limit and grace; a backstop kill adds a new worker and a replay
    # in quarantine (and a retry on Ray). A run that waited on a bot would take an hour.
    assert seconds < len(attacked) * (WALL + BACKSTOP_GRACE + SLACK) * 3 + 30


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bot", ["sleeps_at_import.py:SleepsAtImportBot", "spins_in_init.py:SpinsInInitBot"])
def test_a_bot_that_cannot_be_built_in_time_is_refused_when_its_config_is_checked(mode, bot, tmp_path):
    sleeps = bot.startswith("sleeps")
    config = tmp_path / "refused.toml"
    config.write_text('name = "refused"\nseed = 1\n[[games]]\ngame = "caterpillar"\ndeals = 1\n'
                      f'[[bots]]\nname = "stranger"\npath = "{ZOO / bot}"\nisolation = "{mode}"\n'
                      f'[[bots]]\nname = "random"\n[run]\nsetup_time_limit = {SETUP}\n'
                      f'wall_backstop = {BACKSTOP if sleeps else 50}\n')  # a spin's: left to a loaded machine
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "arena.cli", "tournament", str(config), "--out", str(tmp_path),
                             "--no-progress"], capture_output=True, text=True, timeout=60)
    seconds = time.perf_counter() - started
    assert result.returncode == 2, result.stderr
    waited = f" (waited {WALL:g}s of wall time)" if sleeps else ""  # a spin runs out of CPU time
    assert result.stderr.splitlines() == [f"error: {config}: bots[0].path: bot 'stranger' could not be built within "
                                          f"setup_time_limit = {SETUP:g}s{waited}"]
    assert not (tmp_path / "refused").exists()
    assert seconds < 15  # two interpreters' start-up and the limit: the bot itself is never waited for
