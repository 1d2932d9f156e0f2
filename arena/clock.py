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
    """Times the moves of one game and preempts a move that runs over `limit` seconds."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.started: float | None = None
        """When the move now running began (perf_counter), or None between moves."""
        self.preemptive = _install(self)

    def overdue(self) -> bool:
        """True while a move is running past its limit."""
        started = self.started
        return started is not None and time.perf_counter() - started > self.limit


_current: MoveClock | None = None
_wake = threading.Event()
_installed = False


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
    """In a forked child the watchdog thread is gone: the next clock starts a new one."""
    global _installed
    _installed = False


os.register_at_fork(after_in_child=_after_fork)


def _on_alarm(signum, frame) -> None:
    if _current is not None and _current.overdue():
        raise MoveTimeout()


def _watch() -> None:
    main = threading.main_thread().ident
    while True:
        clock = _current
        started = clock.started if clock else None
        if started is None:
            _wake.wait(0.05)  # between moves: look again soon (a move's start is not signalled)
            _wake.clear()
            continue
        remaining = started + clock.limit - time.perf_counter()
        if remaining > 0:
            time.sleep(min(remaining + 0.001, 0.05))
        elif clock.started == started:
            signal.pthread_kill(main, signal.SIGALRM)
            time.sleep(max(clock.limit / 10, 0.01))  # again, should the bot swallow the first one
