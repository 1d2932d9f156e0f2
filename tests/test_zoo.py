"""The attacks a stranger's bot can make in process, each in a real tournament with Ray workers and with
workers = 1: each one is stopped (a forfeit of that bot alone) or harmless to every other game.

What stays possible in process by design (docs/untrusted-bots.md; remedy: isolation = "process"):
reading the hidden cards, changing the game state or the rules, monkeypatching arena or other bots'
classes, and killing the worker's sentinel or the worker itself (which quarantine turns into its crash).
"""

import pytest
from test_hostile import (
    assert_forfeits,
    assert_stopped_from_outside,
    by_game,
    config_text,
    honest,
    hostile,
    run_tournament,
)

HARMLESS = "stdout,reseed,alarm,thread,fork"
"""Attacks that change nothing, made all at every move: the bot's games end normally and the others are
those of a run without it."""
HARMLESS_LIMIT = 5.0
"""The move time limit while the bot makes them: the attacks are its own slow moves (a megabyte written and
a Ray worker forked took up to 0.67 s a move with two cores shared by six busy processes), not the clock's
subject, which tests/test_hostile.py tests."""
STOPPED = {"recursion": ("crash", "RecursionError"), "exit_in_reset": ("crash", "SystemExit: 4")}
"""Attacks that are the bot's forfeit: termination and the start of the fault."""


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    return run_tournament(tmp_path_factory.mktemp("clean"), config_text("caterpillar"))[1]


@pytest.fixture(scope="module")
def baseline(clean):
    """test_hostile's baseline for the caterpillar set."""
    return lambda games: clean


@pytest.mark.ray
@pytest.mark.parametrize("how", ["block", "ignore"])
def test_a_bot_that_defeats_the_clock_on_ray_workers_is_stopped_from_outside(how, local_ray, tmp_path, baseline):
    """The Ray half of tests/test_hostile.py's test: the sentinel kills the Ray worker (twice: Ray retries once).
    Replacing the handler and stalling the interpreter meet the same sentinel; they are tested with workers = 1."""
    assert_stopped_from_outside(how, local_ray, tmp_path, baseline)


def test_harmless_attacks_change_no_game(workers, tmp_path, clean):
    text = config_text("caterpillar", "attacks.py:AttacksBot", {"how": HARMLESS}, workers=workers,
                       limit=HARMLESS_LIMIT)
    run, rows, _ = run_tournament(tmp_path, text, workers=workers)
    assert [(row["game_index"], row["fault"]) for row in rows if row["fault_seat"] is not None] == []
    assert by_game(honest(rows)) == by_game(clean)


@pytest.mark.parametrize("how", STOPPED)
def test_an_attack_that_breaks_out_is_the_bots_forfeit(how, workers, tmp_path, clean):
    termination, fault = STOPPED[how]
    text = config_text("caterpillar", "attacks.py:AttacksBot", {"how": how}, workers=workers)
    run, rows, _ = run_tournament(tmp_path, text, workers=workers)
    assert_forfeits(run, rows, termination, fault)
    assert all(row["fault_seat"] is not None for row in hostile(rows))
    assert by_game(honest(rows)) == by_game(clean)


def test_a_bot_that_breaks_out_of_its_constructor_is_refused_by_the_config():
    """Reading a config builds each bot once to check its params: a KeyboardInterrupt (or SystemExit) of the
    bot's own there is a one-line config error, not the user's Ctrl-C."""
    from test_hostile import ROOT

    from arena.config import ConfigError, parse_config

    text = config_text("caterpillar", "attacks.py:AttacksBot", {"how": "interrupt_in_init"})
    with pytest.raises(ConfigError, match="params: KeyboardInterrupt"):
        parse_config(text, base=ROOT)
