"""A preemptive time limit on every call into a bot that runs in this process: its moves, and its setup
calls (construction and `reset`), which have a limit of their own.

The referee numbers the moves of its games and writes the number of the move now running on the
clock's stamp (0 between moves); when the move returns it reads whether the watchdog marked that move
as over time: a store and a read, the whole cost of the clock on the hot path. The watchdog is a
thread that looks at every clock each `period` (a twentieth of the limit, at most 50 ms) and times
each move from when it first sees it; once a move has run over the limit it marks it and, in the main
thread, sends SIGALRM, whose handler raises MoveTimeout inside the bot's code, which interrupts busy
loops and sleeps alike (and again each period, should the bot swallow it). A move is therefore cut
off between `limit` and `limit + period` (plus the interpreter's switch interval) after it began.
Outside the main thread (no signals there) an overrun is caught when the move returns.

A setup call is stamped like a move but with its number negated: the watchdog and the backstop time a
negative stamp against the setup limit, a positive one against the move limit, so the hot path of moves
stays one store and one read.
"""

from __future__ import annotations

import os
import signal
import threading
import time


class MoveTimeout(BaseException):
    """Raised inside a bot's move that ran over the time limit (a BaseException, so that a bot's
    `except Exception` does not swallow it)."""


NO_LIMIT_NS = 1 << 62
"""The allowance of a call that has no limit (about 146 years)."""


def _ns(limit: float | None) -> int:
    return NO_LIMIT_NS if limit is None else int(limit * 1e9)


class MoveClock:
    """Cuts off the moves of one thread's games that run over `limit` seconds, and the setup calls (stamped
    with negative numbers) that run over `setup` seconds (None: no limit).

    The referee gives each move a number (`ticket`, rising across the games of the clock, so that the
    watchdog tells each move from the one before), writes it in `stamp[0]` while the move runs and
    checks `fired[0]`, where the watchdog writes the number of a move it found over time. `stamp` is the
    backstop's shared page when this process has one, so the sentinel sees the same moves."""

    def __init__(self, limit: float | None, setup: float | None = None) -> None:
        self.limit, self.setup = limit, setup
        self.limit_ns, self.setup_ns = _ns(limit), _ns(setup)
        self.period = min(max(min(limit or 1.0, setup or 1.0) / 20, 0.001), 0.05)
        self.board = _board
        self.stamp = _board if _board is not None else [0]
        self.fired = [0]
        self.ticket = 0
        self.preemptive = threading.current_thread() is threading.main_thread() and hasattr(signal, "pthread_kill")
        _install(self)

    def overdue(self) -> bool:
        """True while a move the watchdog found over time is still running."""
        running = self.stamp[_START]
        return running != 0 and self.fired[0] == running


_clocks: dict[int, MoveClock] = {}
"""The clock of each thread that plays games with a time limit, by thread id: the ones the watchdog serves."""
_wake = threading.Event()
_watching = _handling = False


def clock_for(limit: float | None, setup: float | None = None) -> MoveClock:
    """This thread's clock for moves of `limit` seconds and setup calls of `setup` seconds: the one it had when
    it fits (a clock keeps nothing of a game after it, and making one would cost each game microseconds)."""
    clock = _clocks.get(threading.get_ident())
    if clock is not None and clock.limit == limit and clock.setup == setup and clock.board is _board:
        return clock
    return MoveClock(limit, setup)


def _install(clock: MoveClock) -> None:
    """Makes `clock` the one the watchdog serves for this thread (starting the watchdog if need be)."""
    global _watching, _handling
    if clock.preemptive and not _handling:
        signal.signal(signal.SIGALRM, _on_alarm)
        _handling = True
    _clocks[threading.get_ident()] = clock
    if not _watching:
        threading.Thread(target=_watch, name="arena-move-clock", daemon=True).start()
        _watching = True
    _wake.set()


def _after_fork() -> None:
    """In a forked child the watchdog thread is gone (the next clock starts a new one), and so is the
    sentinel: the parent's page is not this process's."""
    global _watching, _board, _sentinel
    _watching, _board, _sentinel = False, None, None
    _clocks.clear()


os.register_at_fork(after_in_child=_after_fork)


def _on_alarm(signum, frame) -> None:
    clock = _clocks.get(threading.main_thread().ident)
    if clock is not None and clock.overdue():
        raise MoveTimeout()


def _watch() -> None:
    main = threading.main_thread().ident
    seen: dict[int, tuple[int, int]] = {}  # by thread: the move last seen running, and since when
    while True:
        now, period = time.monotonic_ns(), 0.05
        for thread, clock in list(_clocks.items()):
            period = min(period, clock.period)
            running = clock.stamp[_START]
            if not running:
                seen.pop(thread, None)
                continue
            move, since = seen.get(thread, (0, 0))
            if move != running:
                seen[thread] = running, now
            elif now - since > (clock.limit_ns if running > 0 else clock.setup_ns):
                clock.fired[0] = running
                if clock.preemptive and thread == main:
                    signal.pthread_kill(main, signal.SIGALRM)
        _wake.wait(period)  # a new clock wakes it early
        _wake.clear()


# --- the backstop -----------------------------------------------------------------------------------
# A bot that blocks or ignores SIGALRM, or holds the interpreter (a huge sys.setswitchinterval), defeats
# the watchdog above: nothing inside the process can stop it. So every process that plays a run's
# batches (a Ray worker, the local worker of `workers = 1`) also has a sentinel: a tiny separate process
# that reads, from a page shared with this one, which move is running, times it as the watchdog does,
# and SIGKILLs this process once that move is BACKSTOP_GRACE past its limit. The batch is then replayed
# in quarantine, whose host watches the same page of each game's child (a MoveWatch) and records the
# overrun as a `timeout` (arena/quarantine.py). The referee's cost: the stores of the move's number.

BACKSTOP_GRACE = 0.5
"""Seconds past the move time limit before a move is ended from outside the process. The signal path
ends a move within milliseconds of its limit; only a bot that defeats it waits for the backstop. The
game's result is the same either way (the bot's `timeout` at that decision), so the grace only needs
to cover a late signal on a loaded machine."""

_START, _ALLOWED, _SETUP_ALLOWED = 0, 1, 2
_BOARD_BYTES = 24
_board = None
"""The shared page, int64 slots: the number of the call now running (0 between calls; negative for a setup
call), how long a move may run before the backstop ends it and how long a setup call may run (ns); None in
a process without a backstop."""
_sentinel = None
"""This process's sentinel (a Popen), once armed."""

SENTINEL = """
import mmap, os, signal, sys, time
fd, pid = int(sys.argv[1]), int(sys.argv[2])
board = memoryview(mmap.mmap(fd, 24)).cast("q")
seen = since = 0
while os.getppid() == pid:  # the worker is alive (an orphan sentinel has a new parent and leaves)
    running, now = board[0], time.monotonic_ns()
    if running != seen:  # a new call (or none): timed from now
        seen, since = running, now
    elif running and now - since > board[1 if running > 0 else 2]:
        os.kill(pid, signal.SIGKILL)
        break
    time.sleep(0.02)
"""


def new_board(limit: float | None, setup: float | None = None, fd: int = -1):
    """A page for the backstop allowing moves of `limit` seconds and setup calls of `setup` seconds (None: no
    limit): anonymous memory a forked child shares, or the file `fd` (a memfd another process maps)."""
    import mmap

    board = memoryview(mmap.mmap(fd, _BOARD_BYTES)).cast("q")
    board[_START] = 0
    _allow(board, limit, setup)
    return board


def _allow(board, limit: float | None, setup: float | None) -> None:
    board[_ALLOWED], board[_SETUP_ALLOWED] = (NO_LIMIT_NS if x is None else int((x + BACKSTOP_GRACE) * 1e9)
                                              for x in (limit, setup))


def use_board(board) -> None:
    """Makes the referee's clocks in this process stamp their moves on `board` (None: no backstop)."""
    global _board
    _board = board


def arm_backstop(limit: float | None, setup: float | None = None) -> None:
    """Gives this process a sentinel that kills it when a move runs `limit` + BACKSTOP_GRACE seconds, or a
    setup call `setup` + BACKSTOP_GRACE seconds (a new one if a bot ended the last)."""
    global _sentinel
    import subprocess
    import sys

    if _sentinel is None or _sentinel.poll() is not None:
        fd = os.memfd_create("arena-backstop")
        os.ftruncate(fd, _BOARD_BYTES)
        use_board(new_board(limit, setup, fd))
        _sentinel = subprocess.Popen([sys.executable, "-P", "-c", SENTINEL, str(fd), str(os.getpid())], pass_fds=[fd],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
        os.close(fd)
    else:
        _allow(_board, limit, setup)


def idle(board) -> None:
    """Marks no move as running on `board` (after a child that stamped a move was killed in it)."""
    board[_START] = 0


class MoveWatch:
    """Times the calls stamped on `board` from outside the process that makes them, as the sentinel does:
    a call is timed from when `overrun` first sees it, so call it often (every few milliseconds)."""

    def __init__(self, board) -> None:
        self.board, self.seen, self.since = board, 0, 0

    def overrun(self) -> bool:
        """True when the call running on the board has run past its allowance."""
        running, now = self.board[_START], time.monotonic_ns()
        if running != self.seen:
            self.seen, self.since = running, now
            return False
        return running != 0 and now - self.since > self.board[_ALLOWED if running > 0 else _SETUP_ALLOWED]

    @property
    def in_setup(self) -> bool:
        """True when the call last seen is a setup call (construction or reset), not a move."""
        return self.seen < 0
