"""Landlock (arena/isolation/landlock.py), where the kernel offers it: a sandboxed Python bot, restricted by the
built-in host before its code loads, may bind no TCP port, write no file outside its /tmp and /dev (not even
/proc/self/comm, which the sandbox's own /proc lets it write), while it still writes in its /tmp and to /dev/null and
plays; the same probes in the same sandbox without Landlock get through."""


import pytest
from test_sandbox import CAT, needs_sandbox

from arena.bots import load_bot_class
from arena.isolation import close_all, landlock, process_bot_class, python_command, sandbox
from arena.tournament import referee

PROBE = '''
import errno, os, socket, sys

from arena.bots import Bot

EXPECTED = "bind=EACCES comm=EACCES tmp=ok devnull=ok"


def attempt(action):
    try:
        action()
        return "ok"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))


def bind():
    with socket.socket() as listener:  # TCP, on the loopback of the sandbox's own network namespace
        listener.bind(("127.0.0.1", 0))


def probe():
    """What the bot gets: a TCP port, its own name in /proc, a file in /tmp, /dev/null."""
    got = {"bind": attempt(bind), "comm": attempt(lambda: open("/proc/self/comm", "w").write("probe")),
           "tmp": attempt(lambda: open("/tmp/probe.txt", "w").write("x")),
           "devnull": attempt(lambda: open("/dev/null", "w").write("x"))}
    return " ".join(f"{key}={value}" for key, value in got.items())


class Probe(Bot):
    name = "probe"

    def act(self, observation):
        got = probe()
        if got != EXPECTED:
            raise RuntimeError(got)
        return self.rng.choice(observation.legal_moves)


if __name__ == "__main__":
    print(probe())
'''

needs_landlock = pytest.mark.needs(
    "sandbox", "the kernel offers no Landlock with TCP rules (Linux 6.7 or later)" if landlock.abi() < 4 else None)


def play_probe(path):
    """The probe bot's game against random, sandboxed; its fault says what it got where that was not EXPECTED."""
    bot = process_bot_class(python_command(f"{path}:Probe"), sandboxed=True)()
    try:
        return referee.play(CAT, CAT.Rules(), [bot, load_bot_class("random")()], 1)
    finally:
        close_all()


@needs_sandbox
@needs_landlock
def test_a_sandboxed_python_bot_is_restricted_by_landlock(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text(PROBE)
    played = play_probe(path)
    assert played.fault is None and played.outcome.termination == "normal", played.fault


@needs_sandbox
def test_without_landlock_the_same_sandbox_lets_the_probes_through(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "LANDLOCK", False)
    path = tmp_path / "probe.py"
    path.write_text(PROBE)
    played = play_probe(path)
    assert played.fault == "BotProcessError: RuntimeError: bind=ok comm=ok tmp=ok devnull=ok", played.fault
