"""The operating system's limits on a bot process: its address space and CPU time, its death with the arena,
its CPU time used (and the time an answer may take, in CPU and in wall time), and where its stderr goes."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from arena.bots import is_host
from arena.isolation.protocol import NoAnswer

STDERR_ENV = "ARENA_BOT_STDERR"
"""A file to append every bot process's stderr to; discarded when unset. It is never parsed."""
TAILS_ENV = "ARENA_BOT_STDERR_TAILS"
"""A folder where each bot process frozen in a folder named by its code's hash (a league's `bots/<hash>/`) leaves
the last lines of its stderr when it ends, as `<that folder's name>.txt` (a served league shows them to the bot's
owner); nothing is kept when unset."""
_CPU_LIFETIME = 100
"""A process's hard CPU limit is this many per-game budgets; it is replaced before reaching it."""


def resource_module():
    import resource

    return resource


def cpu_used(pid: int) -> float | None:
    """CPU seconds (user + system) a process has used, from /proc; None where there is no /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def process_cpu_ns(pid: int) -> int | None:
    """CPU nanoseconds (user + system, all its threads) process `pid` has used, or None where that cannot be read.

    Linux lets any process read the CPU clock of another: its id encodes the pid as glibc's clock_getcpuclockid
    makes it (`~pid << 3 | CPUCLOCK_SCHED`), and one read is a system call (a third of a microsecond here, where
    /proc/PID/stat costs 16 µs), cheap enough for every move."""
    try:
        return time.clock_gettime_ns(~pid << 3 | 2)
    except (OSError, OverflowError):  # gone, or not Linux
        return None


CPU_LOOK = 0.05
"""The longest wait (s) between two looks at the CPU time of a bot process that is thinking: a bot with threads
may use CPU time faster than the wall clock runs."""


class Allowance:
    """The time an answer of process `pid` may take from now: `cpu` seconds of its CPU time (None: not counted) and
    `wall` seconds of wall time (None: no end). Where its CPU time cannot be read (no pid, no Linux), `cpu` seconds of
    wall time stand in for it, as before CPU time was counted."""

    def __init__(self, pid: int | None, cpu: float | None, wall: float | None) -> None:
        self.pid, self.started = pid, time.perf_counter()
        self.cpu_started = None if cpu is None or pid is None else process_cpu_ns(pid)
        self.cpu_end = None if self.cpu_started is None else self.cpu_started + int(cpu * 1e9)
        self.stand_in = cpu is not None and self.cpu_started is None and (wall is None or cpu < wall)
        self.deadline = None if wall is None and not self.stand_in else self.started + (cpu if self.stand_in else wall)

    def wait_ms(self) -> int | None:
        """Milliseconds to wait for the answer before looking again (None: as long as it takes); raises NoAnswer
        once the time is up."""
        timeout = None if self.deadline is None else self.deadline - time.perf_counter()
        if timeout is not None and timeout <= 0:
            raise NoAnswer(wall=not self.stand_in)
        if self.cpu_end is not None:  # look again when the bot may have used up its CPU time
            used = process_cpu_ns(self.pid)
            left = CPU_LOOK if used is None else (self.cpu_end - used) / 1e9
            if left <= 0:
                raise NoAnswer(wall=False)
            timeout = min(left, CPU_LOOK) if timeout is None else min(left, CPU_LOOK, timeout)
        return None if timeout is None else math.ceil(timeout * 1000)

    def took(self) -> tuple[float, float]:
        """The CPU time and the wall time (s) since the question (its wall time for both where CPU time cannot be
        read)."""
        wall = time.perf_counter() - self.started
        used = None if self.cpu_started is None else process_cpu_ns(self.pid)
        return (wall if used is None else (used - self.cpu_started) / 1e9), wall


def child_setup(memory_mb: int | None, cpu_seconds: float | None, parent: int):
    """The preexec_fn of a bot process: its limits, and death when the arena dies."""
    resource = resource_module()
    prctl = _prctl()

    def setup() -> None:
        if memory_mb:
            size = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
        if cpu_seconds:
            # The soft limit is raised game by game (limit_cpu); the hard one bounds the process's life.
            soft = math.ceil(cpu_seconds)
            resource.setrlimit(resource.RLIMIT_CPU, (soft, soft * _CPU_LIFETIME + 1))
        _dies_with(prctl, parent)  # no orphans if the arena is killed

    return setup


def die_with(parent: int) -> None:
    """Has Linux SIGKILL this process when `parent` ends (elsewhere nothing), and leaves at once if it has ended
    already: every child arena starts (bot processes, the local worker, quarantines, a server's player, checker and
    views) so none outlives the process that started it."""
    _dies_with(_prctl(), parent)


def _dies_with(prctl, parent: int) -> None:
    """die_with with libc's prctl looked up already (a forked child may load nothing before it execs)."""
    if prctl is None:
        return
    prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it ended before the request took hold
        os._exit(1)


def _prctl():
    """libc's prctl where there is one (Linux), looked up now: nothing may be loaded after fork."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def stderr_sink():
    path = os.environ.get(STDERR_ENV)
    if not path:
        return subprocess.DEVNULL
    try:
        return open(path, "ab")  # noqa: SIM115 - handed to the child, closed once it is started
    except OSError:
        return subprocess.DEVNULL


def stderr_tail_file(command) -> Path | None:
    """Where the bot process of `command` leaves its stderr's last lines (TAILS_ENV), or None: only the built-in host
    of a bot frozen in a folder named by its code's hash (a league's `bots/<hash>/file.py`, or the package folder
    `bots/<hash>`) has a name to file them under."""
    folder = os.environ.get(TAILS_ENV)
    argv = list(command)
    if not folder or not is_host(argv):
        return None
    file = argv[3].rpartition(":")[0]
    frozen = Path(file).parent if file.endswith(".py") else Path(argv[3]) if not file else None
    if frozen is None or not re.fullmatch(r"[0-9a-f]{64}", frozen.name):
        return None
    return Path(folder) / f"{frozen.name}.txt"
