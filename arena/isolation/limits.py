"""The operating system's limits on a bot process: its address space and CPU time, its death with the arena,
its CPU time used, and where its stderr goes."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from arena.bots import is_host

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
        if prctl is not None:
            prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: no orphans if the arena is killed
            if os.getppid() != parent:
                os._exit(1)

    return setup


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
