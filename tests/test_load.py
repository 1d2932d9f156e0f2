"""A busy machine never decides a game: the time limits count a bot's own CPU time.

The measurement this reproduces: pinned to one core with two busy processes at nice -5 (as a served league's
server at nice 0 is to its play at nice 5), a bot that spends 0.6 s of CPU time on its first move under a 1 s
limit took several seconds of wall time, and forfeited every game on time while limits were wall-clock time, in
process and in the sandbox. Here each case plays one game on the loaded core: the 0.6 s bot forfeits nothing,
though its move takes more than the 1 s limit in wall time; a bot spending 2.5 s of CPU time still forfeits at 1 s
of it; a bot that sleeps past the wall-clock backstop still forfeits, with the backstop's fault. The sleepers and
the 0.6 s bots play at once, then the 2.5 s bots.

Each case runs in a process of its own pinned to the core (what `taskset` does), which builds its bots (a
sandboxed one starts its process) before the load starts, then plays on a word from the test. Linux shares a core
between sessions first (autogroups: each bot process has a session of its own) and by niceness only within one,
so the busy process has a session of its own at nice -5 too: it weighs three sessions at nice 0 (3121 to 1024),
and leaves each of two bots thinking at once a fifth of the core at most, whatever else runs on the machine.
Making processes run at nice -5 needs root (or CAP_SYS_NICE): elsewhere the test is skipped.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
THINKS = f"{ROOT / 'tests' / 'zoo' / 'thinks.py'}:ThinksBot"
LIMIT = 1.0
CASE = """
import json, sys
from arena.bots import load_bot_class
from arena.games import get_game
from arena.isolation import close_all, process_bot_class, python_command
from arena.tournament.referee import play

spec, sandboxed, params, backstop = sys.argv[1], sys.argv[2] == "sandbox", json.loads(sys.argv[3]), float(sys.argv[4])
if sandboxed:  # its process is started, and the bot built, now: before the load
    bot = process_bot_class(python_command(spec), params=params, move_time_limit=1.0, setup_time_limit=10.0,
                            wall_backstop=backstop, sandboxed=True)(**params)
else:
    bot = load_bot_class(spec)(**params)
random = load_bot_class("random")()
game = get_game("caterpillar")
print("ready", flush=True)
sys.stdin.readline()  # the load is on
played = play(game, game.Rules(), [bot, random], 7, move_time_limit=1.0, setup_time_limit=10.0, wall_backstop=backstop)
print(json.dumps({"termination": played.outcome.termination, "fault_seat": played.fault_seat, "fault": played.fault,
                  "decisions": played.decisions, "slowest": played.slowest}), flush=True)
close_all()
"""
CASES = {  # name: isolation, the bot's params, the wall-clock backstop
    "thinks 0.6 s in process": ("none", {"cpu": 0.6}, 10.0),
    "thinks 0.6 s sandboxed": ("sandbox", {"cpu": 0.6}, 10.0),
    "sleeps in process": ("none", {"cpu": 0.0, "sleep": 3600}, 3.0),
    "sleeps sandboxed": ("sandbox", {"cpu": 0.0, "sleep": 3600}, 3.0),
    "thinks 2.5 s in process": ("none", {"cpu": 2.5}, 10.0),
    "thinks 2.5 s sandboxed": ("sandbox", {"cpu": 2.5}, 10.0),
}
WAVES = (list(CASES)[:4], list(CASES)[4:])
"""The cases played at once: the 0.6 s bots and the sleepers, then the 2.5 s bots."""


def pinned(core: int, nice: int):
    """A preexec_fn that pins a process to `core` at niceness `nice`."""
    def setup():
        os.sched_setaffinity(0, {core})
        os.setpriority(os.PRIO_PROCESS, 0, nice)
    return setup


def start(command: list[str], core: int, nice: int, **options) -> subprocess.Popen:
    """`command` pinned to `core` in a session of its own at niceness `nice` (its processes' and, where Linux groups
    a session's processes, its group's)."""
    process = subprocess.Popen(command, preexec_fn=pinned(core, nice), start_new_session=True, **options)
    try:
        Path(f"/proc/{process.pid}/autogroup").write_text(str(nice))
    except FileNotFoundError:  # no autogroups: niceness alone decides
        pass
    return process


def can_raise_priority() -> bool:
    try:
        subprocess.run([sys.executable, "-c", "pass"], preexec_fn=pinned(min(os.sched_getaffinity(0)), -5), check=True)
    except (OSError, subprocess.SubprocessError):
        return False
    return True


@pytest.mark.study
@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux") or not can_raise_priority(),
                    reason="pinning processes at nice -5 needs Linux and root (or CAP_SYS_NICE)")
def test_a_loaded_core_decides_no_game():
    core = max(os.sched_getaffinity(0))
    cases = {name: start([sys.executable, "-c", CASE, THINKS, isolation, json.dumps(params), str(backstop)], core, 0,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
             for name, (isolation, params, backstop) in CASES.items()}
    busy, played = [], {}
    try:
        for name, case in cases.items():
            assert case.stdout.readline() == "ready\n", name
        busy = [start([sys.executable, "-c", "while True: pass"], core, -5)]
        time.sleep(0.2)  # the busy process has the core
        started = time.perf_counter()
        for wave in WAVES:
            for name in wave:
                cases[name].stdin.write("go\n")
                cases[name].stdin.flush()
            played.update({name: json.loads(cases[name].stdout.readline()) for name in wave})
        seconds = time.perf_counter() - started
    finally:
        for process in [*busy, *cases.values()]:
            process.kill()
            process.wait()
    for name in ("thinks 0.6 s in process", "thinks 0.6 s sandboxed"):
        game = played[name]
        assert game["fault_seat"] is None and game["termination"] != "timeout", (name, game)
        cpu, wall = game["slowest"]
        assert 0.55 < cpu < LIMIT < wall, (name, game)  # a wall-clock limit would have forfeited it
    for name in ("thinks 2.5 s in process", "thinks 2.5 s sandboxed"):
        game = played[name]
        assert (game["fault_seat"], game["termination"], game["fault"], game["decisions"]) == (
            0, "timeout", "no move within 1s", 0), (name, game)
        cpu, wall = game["slowest"]
        assert 0.95 < cpu < 1.5 < wall, (name, game)  # ended by its CPU time, long after 1 s of wall time
    for name in ("sleeps in process", "sleeps sandboxed"):
        game = played[name]
        assert (game["fault_seat"], game["termination"], game["fault"], game["decisions"]) == (
            0, "timeout", "no move within 3s of wall time", 0), (name, game)
    assert seconds < 40, played
    print(json.dumps(played))  # the figures, for `pytest -s`
