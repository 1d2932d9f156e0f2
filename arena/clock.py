"""A preemptive per-move time limit for bots that run in this process.

The referee stamps the start of each move (one clock read). A watchdog thread sleeps until that
move's deadline and, if the move is still running, sends SIGALRM to the main thread; the handler
raises MoveTimeout inside the bot's code, which interrupts busy loops and sleeps alike. Nothing is
signalled on the hot path. Outside the main thread (no signals there) overruns are still caught
when the move returns.
"""

from __future__ import annotations

import os
import signal
import threading
import time


class MoveTimeout(BaseException):
    """Raised inside a bot's move that ran over the time limit (a BaseException, so that a bot's
    `except Exception` does not swallow it)."""


class MoveClock:
    """Times the moves of one game and preempts a move that runs over `limit` seconds.

    The referee writes the start of each move (time.monotonic_ns) in `stamp[0]` and 0 when it ends: two
    stores and a clock read, the whole cost of the clock on the hot path. `stamp` is the backstop's shared
    page when this process has one, so the sentinel reads the same stamp as the watchdog thread."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.limit_ns = int(limit * 1e9)
        self.board = _board
        self.stamp = _board if _board is not None else [0]
        self.preemptive = _install(self)

    def overdue(self) -> bool:
        """True while a move is running past its limit."""
        started = self.stamp[_START]
        return started != 0 and time.monotonic_ns() - started > self.limit_ns


_current: MoveClock | None = None
_wake = threading.Event()
_installed = False


def clock_for(limit: float) -> MoveClock:
    """A clock for moves of `limit` seconds: the one the watchdog serves when it fits, as a clock keeps no
    state between games and making one (and waking the watchdog to it) would cost each game microseconds."""
    clock = _current
    if clock is not None and clock.limit == limit and clock.board is _board:
        return clock
    return MoveClock(limit)


def _install(clock: MoveClock) -> bool:
    """Makes `clock` the one the watchdog serves; False when signals cannot be used here."""
    global _current, _installed
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_kill"):
        return False
    if not _installed:
        signal.signal(signal.SIGALRM, _on_alarm)
        threading.Thread(target=_watch, name="arena-move-clock", daemon=True).start()
        _installed = True
    _current = clock
    _wake.set()
    return True


def _after_fork() -> None:
    """In a forked child the watchdog thread is gone (the next clock starts a new one), and so is the
    sentinel: the parent's page is not this process's."""
    global _installed, _board, _sentinel, _current
    _installed, _board, _sentinel, _current = False, None, None, None


os.register_at_fork(after_in_child=_after_fork)


def _on_alarm(signum, frame) -> None:
    if _current is not None and _current.overdue():
        raise MoveTimeout()


def _watch() -> None:
    main = threading.main_thread().ident
    while True:
        clock = _current
        started = clock.stamp[_START] if clock else 0
        if not started:
            _wake.wait(0.05)  # between moves: look again soon (a move's start is not signalled)
            _wake.clear()
            continue
        remaining = (started + clock.limit_ns - time.monotonic_ns()) / 1e9
        if remaining > 0:
            time.sleep(min(remaining + 0.001, 0.05))
        elif clock.stamp[_START] == started:
            signal.pthread_kill(main, signal.SIGALRM)
            time.sleep(max(clock.limit / 10, 0.01))  # again, should the bot swallow the first one


# --- the backstop -----------------------------------------------------------------------------------
# A bot that blocks or ignores SIGALRM, or holds the interpreter (a huge sys.setswitchinterval), defeats
# the watchdog above: nothing inside the process can stop it. So every process that plays a run's
# batches (a Ray worker, the local worker of `workers = 1`) also has a sentinel: a tiny separate process
# that reads, from a page shared with this one, when the move now running began, and SIGKILLs this
# process once that move is BACKSTOP_GRACE past its limit. The batch is then replayed in quarantine,
# whose host watches the same page of each game's child and records the overrun as a `timeout`
# (arena/quarantine.py). The referee's cost: one clock read and one store at each end of a move.

BACKSTOP_GRACE = 0.5
"""Seconds past the move time limit before a move is ended from outside the process. The signal path
ends a move within milliseconds of its limit; only a bot that defeats it waits for the backstop. The
game's result is the same either way (the bot's `timeout` at that decision), so the grace only needs
to cover a late signal on a loaded machine."""

_START, _ALLOWED = 0, 1
_board = None
"""The shared page, int64 slots: when the move now running began (monotonic ns, 0 between moves) and
how long a move may run before the backstop ends it (ns); None in a process without a backstop."""
_sentinel = None
"""This process's sentinel (a Popen), once armed."""

SENTINEL = """
import mmap, os, signal, sys, time
fd, pid = int(sys.argv[1]), int(sys.argv[2])
board = memoryview(mmap.mmap(fd, 16)).cast("q")
while os.getppid() == pid:  # the worker is alive (an orphan sentinel has a new parent and leaves)
    started = board[0]
    if started and time.monotonic_ns() - started > board[1]:
        os.kill(pid, signal.SIGKILL)
        break
    time.sleep(0.02)
"""


def new_board(limit: float, fd: int = -1):
    """A page for the backstop allowing moves of `limit` seconds: anonymous memory a forked child shares,
    or the file `fd` (a memfd another process maps)."""
    import mmap

    board = memoryview(mmap.mmap(fd, 16)).cast("q")
    board[_START], board[_ALLOWED] = 0, int((limit + BACKSTOP_GRACE) * 1e9)
    return board


def use_board(board) -> None:
    """Makes the referee's clocks in this process stamp their moves on `board` (None: no backstop)."""
    global _board
    _board = board


def arm_backstop(limit: float) -> None:
    """Gives this process a sentinel that kills it when a move runs `limit` + BACKSTOP_GRACE seconds (a new
    one if a bot ended the last)."""
    global _sentinel
    import subprocess
    import sys

    if _sentinel is None or _sentinel.poll() is not None:
        fd = os.memfd_create("arena-backstop")
        os.ftruncate(fd, 16)
        use_board(new_board(limit, fd))
        _sentinel = subprocess.Popen([sys.executable, "-c", SENTINEL, str(fd), str(os.getpid())], pass_fds=[fd],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
        os.close(fd)
    else:
        _board[_ALLOWED] = int((limit + BACKSTOP_GRACE) * 1e9)


def idle(board) -> None:
    """Marks no move as running on `board` (after a child that stamped a move was killed in it)."""
    board[_START] = 0


def overrun(board) -> bool:
    """True when the move stamped on `board` has run past its allowance."""
    started = board[_START]
    return bool(started) and time.monotonic_ns() - started > board[_ALLOWED]
