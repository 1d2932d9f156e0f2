"""A preemptive time limit on every call into a bot that runs in this process: its moves, and its setup
calls (construction and `reset`), which have a limit of their own. Limits count the CPU time of the thread
that plays, so that load on the machine never decides a game; a wall-clock backstop of `wall` times the limit
ends a call that uses no CPU time (it sleeps or blocks): for a setup call at most SETUP_WALL_SECONDS (`setup_wall`).

The referee numbers the moves of its games and writes the number of the move now running on the
clock's stamp (0 between moves); when the move returns it reads whether the watchdog saw that move
running: a store and a read, the whole cost of the clock on the hot path. The watchdog is a thread that
looks at every clock each `period` (a twentieth of the limit, at most 50 ms) and times each move from
when it first sees it, by the playing thread's CPU clock (which it reads from its own thread) and by the
wall clock; once a move has run over the limit it marks it and, in the main thread, sends SIGALRM, whose
handler raises MoveTimeout inside the bot's code, which interrupts busy loops and sleeps alike (and again
each period, should the bot swallow it). A move is therefore cut off between `limit` and `limit + period`
of CPU time after it began (plus the interpreter's switch interval). Outside the main thread (no signals
there) an overrun is caught when the move returns. A move the watchdog saw running is also timed when it
returns, for the game's slowest move (`slowest`): moves shorter than a period are not timed at all.

A setup call is stamped like a move but with its number negated: the watchdog and the backstop time a
negative stamp against the setup limit, a positive one against the move limit, so the hot path of moves
stays one store and one read.
"""

from __future__ import annotations

import os
import signal
import threading
import time

if __name__ == "__main__":
    # The sentinel (`arm_backstop`) runs this file as a script without site-packages: it imports nothing of arena's
    # and starts in 0.02 s of CPU time rather than 0.07. It calls nothing that uses this default.
    WALL_BACKSTOP = 0.0
else:
    from arena.config.models import WALL_BACKSTOP


class MoveTimeout(BaseException):
    """Raised inside a bot's call that ran over its time limit (a BaseException, so that a bot's
    `except Exception` does not swallow it); `wall` when it is the wall-clock backstop that ran out, not the
    bot's CPU time. `fault`: the forfeit's text, for a bot that keeps limits of its own (a model seat's wall-clock
    limit and token budget, arena/llm/seat.py)."""

    def __init__(self, wall: bool = False, fault: str | None = None) -> None:
        super().__init__(wall)
        self.wall, self.fault = wall, fault


NO_LIMIT_NS = 1 << 62
"""The allowance of a call that has no limit (about 146 years)."""
SETUP_WALL_SECONDS = 20.0
"""The most wall time a setup call (construction, hello, `reset`) may last, unless its limit is over half of it:
a bot that sleeps in `reset` then costs 20 s a game, not `wall` times the 10 s setup limit (100 s)."""


def setup_wall(setup: float | None, wall: float = WALL_BACKSTOP) -> float | None:
    """The wall-clock backstop of a setup call with a limit of `setup` seconds of CPU time (None: no limit):
    `wall` times it, at most SETUP_WALL_SECONDS or twice the limit, whichever is more."""
    return None if setup is None else min(setup * wall, max(SETUP_WALL_SECONDS, 2 * setup))


def _ns(limit: float | None, times: float = 1.0) -> int:
    return NO_LIMIT_NS if limit is None else int(limit * times * 1e9)


def _thread_cpu_clock() -> int | None:
    """The clock of this thread's CPU time, for clock_gettime_ns from any thread (None where there is none)."""
    try:
        return time.pthread_getcpuclockid(threading.get_ident())
    except (AttributeError, OSError):
        return None


class MoveClock:
    """Cuts off the moves of one thread's games that use over `limit` seconds of that thread's CPU time, and the
    setup calls (stamped with negative numbers) that use over `setup` seconds (None: no limit); and any call that
    lasts `wall` times its limit in wall time.

    The referee gives each call a number (`ticket`, rising across the games of the clock, so that the
    watchdog tells each from the one before), writes it in `stamp[0]` while the call runs and, once it
    returns, checks `seen[0]`, where the watchdog writes the number of a call it saw running (a call that
    lasted at least until its next look, rare among moves): only such a call is timed (`finish`) and can be
    over time. `stamp` is the backstop's shared page when this process has one, so the sentinel sees the
    same calls."""

    def __init__(self, limit: float | None, setup: float | None = None, wall: float = WALL_BACKSTOP) -> None:
        self.limit, self.setup, self.wall = limit, setup, wall
        self.limit_ns, self.setup_ns = _ns(limit), _ns(setup)
        self.wall_ns, self.setup_wall_ns = _ns(limit, wall), _ns(setup_wall(setup, wall))
        self.period = min(max(min(limit or 1.0, setup or 1.0) / 20, 0.001), 0.05)
        self.board = _board
        self.stamp = _board if _board is not None else [0]
        self.seen = [0]
        """The number of the call the watchdog last saw running."""
        self.since = (0, 0)
        """This thread's CPU time and the wall time (ns) when the watchdog first saw that call."""
        self.over = [0]
        """The number of a call the watchdog found over time."""
        self.over_wall = False
        """Whether that call ran out of wall time (the backstop) rather than CPU time."""
        self.slowest = [0.0, 0.0]
        """The most CPU time and the most wall time (s) a move of the game so far took, as far as timed."""
        self.ticket = 0
        self.cpu_clock, self.thread = _thread_cpu_clock(), threading.get_native_id()
        self.preemptive = threading.current_thread() is threading.main_thread() and hasattr(signal, "pthread_kill")
        _install(self)

    def cpu_ns(self) -> int:
        """The CPU time of the clock's thread (ns); the wall time where the system gives no thread clock."""
        return time.monotonic_ns() if self.cpu_clock is None else time.clock_gettime_ns(self.cpu_clock)

    def overdue(self) -> bool:
        """True while a call the watchdog found over time is still running."""
        running = self.stamp[_START]
        return running != 0 and self.over[0] == running

    def finish(self, number: int) -> None:
        """Times call `number`, which the watchdog saw running, now that it has returned (a move counts towards
        `slowest`); raises MoveTimeout when it was over time (a bot that swallowed the signal, or no signals here)."""
        if number > 0:
            cpu, wall = self.since
            self.note((self.cpu_ns() - cpu) / 1e9, (time.monotonic_ns() - wall) / 1e9)
        if self.over[0] == number:
            raise MoveTimeout(self.over_wall)

    def note(self, cpu: float, wall: float) -> None:
        """Counts a move of `cpu` and `wall` seconds towards the game's slowest."""
        slowest = self.slowest
        slowest[0], slowest[1] = max(slowest[0], cpu), max(slowest[1], wall)


_clocks: dict[int, MoveClock] = {}
"""The clock of each thread that plays games with a time limit, by thread id: the ones the watchdog serves."""
_wake = threading.Event()
_watching = _handling = False


def clock_for(limit: float | None, setup: float | None = None, wall: float = WALL_BACKSTOP) -> MoveClock:
    """This thread's clock for moves of `limit` seconds and setup calls of `setup` seconds of CPU time, each with
    `wall` times that in wall time: the one it had when it fits (a clock keeps nothing of a game after it, and
    making one would cost each game microseconds)."""
    clock = _clocks.get(threading.get_ident())
    if (clock is None or clock.limit != limit or clock.setup != setup or clock.wall != wall
            or clock.board is not _board):
        clock = MoveClock(limit, setup, wall)
    if _board is not None:  # the sentinel reads the CPU time of the thread that plays from outside
        _board[_THREAD] = clock.thread
    return clock


def note_move(cpu: float, wall: float) -> None:
    """Counts a move timed elsewhere (a bot process's, by that process's CPU time) towards the slowest move of the
    game this thread plays."""
    clock = _clocks.get(threading.get_ident())
    if clock is not None:
        clock.note(cpu, wall)


def untimed_call() -> None:
    """Clears the stamp of the call into a bot that this thread is running, so that neither the watchdog nor the
    backstop times it: for a bot with limits of its own (a model seat waits on the network, not the CPU, and keeps a
    wall-clock limit and a token budget, arena/llm/seat.py). Called by the bot as its move begins, not tested by
    the referee at each move: a test there cost the clocked path 2-5% in Caterpillar (benchmarks/clock.py)."""
    clock = _clocks.get(threading.get_ident())
    if clock is not None:
        clock.stamp[_START] = 0


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
        raise MoveTimeout(clock.over_wall)


def _watch() -> None:
    main = threading.main_thread().ident
    while True:
        period = 0.05
        for thread, clock in list(_clocks.items()):
            period = min(period, clock.period)
            running = clock.stamp[_START]
            if not running:
                continue
            try:
                cpu, wall = clock.cpu_ns(), time.monotonic_ns()
            except OSError:  # its thread has ended
                continue
            if clock.seen[0] != running:  # a new call: timed from now
                clock.since = cpu, wall
                clock.seen[0] = running  # after `since`: the referee reads it once it finds its call seen
                continue
            move = running > 0
            over_cpu = cpu - clock.since[0] > (clock.limit_ns if move else clock.setup_ns)
            if over_cpu or wall - clock.since[1] > (clock.wall_ns if move else clock.setup_wall_ns):
                clock.over_wall = not over_cpu
                clock.over[0] = running
                if clock.preemptive and thread == main:
                    signal.pthread_kill(main, signal.SIGALRM)
        _wake.wait(period)  # a new clock wakes it early
        _wake.clear()


# --- the backstop -----------------------------------------------------------------------------------
# A bot that blocks or ignores SIGALRM, or holds the interpreter (a huge sys.setswitchinterval), defeats
# the watchdog above: nothing inside the process can stop it. So every process that plays a run's
# batches (a Ray worker, the local worker of `workers = 1`) also has a sentinel: a tiny separate process
# (this file run as a script) that reads, from a page shared with this one, which move is running and which
# thread runs it, times it as the watchdog does (the thread's CPU time from /proc, and the wall clock), and
# SIGKILLs this process once that move is BACKSTOP_GRACE past its limit or its wall-clock backstop. The
# batch is then replayed in quarantine, whose host watches the same page of each game's child (a MoveWatch)
# and records the overrun as a `timeout`. The referee's cost: the stores of the move's number.

BACKSTOP_GRACE = 0.5
"""Seconds past the move time limit (of CPU time, or the wall-clock backstop) before a move is ended from
outside the process. The signal path ends a move within milliseconds of its limit; only a bot that defeats
it waits for the backstop. The game's result is the same either way (the bot's `timeout` at that decision),
so the grace only needs to cover a late signal."""

_START, _ALLOWED, _SETUP_ALLOWED, _WALL_ALLOWED, _SETUP_WALL_ALLOWED, _THREAD = range(6)
_BOARD_BYTES = 48
_board = None
"""The shared page, int64 slots: the number of the call now running (0 between calls; negative for a setup
call), how long a move and a setup call may run before the backstop ends them, in CPU time and in wall time
(ns), and the thread that makes the calls (its native id, 0 before a clock stamped any); None in a process
without a backstop."""
_sentinel = None
"""This process's sentinel (a Popen), once armed."""


def new_board(limit: float | None, setup: float | None = None, wall: float = WALL_BACKSTOP, fd: int = -1):
    """A page for the backstop allowing moves of `limit` seconds and setup calls of `setup` seconds of CPU time
    (None: no limit), `wall` times that in wall time: anonymous memory a forked child shares, or the file `fd`
    (a memfd another process maps)."""
    import mmap

    board = memoryview(mmap.mmap(fd, _BOARD_BYTES)).cast("q")
    idle(board)
    _allow(board, limit, setup, wall)
    return board


def _allow(board, limit: float | None, setup: float | None, wall: float) -> None:
    grace = int(BACKSTOP_GRACE * 1e9)
    board[_ALLOWED], board[_SETUP_ALLOWED] = _ns(limit) + grace, _ns(setup) + grace
    board[_WALL_ALLOWED], board[_SETUP_WALL_ALLOWED] = _ns(limit, wall) + grace, _ns(setup_wall(setup, wall)) + grace


def use_board(board) -> None:
    """Makes the referee's clocks in this process stamp their moves on `board` (None: no backstop)."""
    global _board
    _board = board


def arm_backstop(limit: float | None, setup: float | None = None, wall: float = WALL_BACKSTOP) -> None:
    """Gives this process a sentinel that kills it when a move runs `limit` + BACKSTOP_GRACE seconds of CPU time,
    or a setup call `setup` + BACKSTOP_GRACE seconds, or either `wall` times its limit + BACKSTOP_GRACE in wall
    time (a new sentinel if a bot ended the last)."""
    global _sentinel
    import subprocess
    import sys

    if _sentinel is None or _sentinel.poll() is not None:
        fd = os.memfd_create("arena-backstop")
        os.ftruncate(fd, _BOARD_BYTES)
        use_board(new_board(limit, setup, wall, fd))
        _sentinel = subprocess.Popen([sys.executable, "-I", "-S", __file__, str(fd), str(os.getpid())], pass_fds=[fd],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
        os.close(fd)
    else:
        _allow(_board, limit, setup, wall)


def idle(board) -> None:
    """Marks no call as running on `board` (after a child that stamped one was killed in it), by no thread yet."""
    board[_START] = board[_THREAD] = 0


def thread_cpu_ns(thread: int) -> int | None:
    """The CPU time (ns, at the kernel's tick) of thread `thread` (a native id) of any process, from /proc; None
    when it cannot be read (no such thread, no /proc)."""
    try:
        with open(f"/proc/{thread}/task/{thread}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        return (int(fields[11]) + int(fields[12])) * 1_000_000_000 // os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class MoveWatch:
    """Times the calls stamped on `board` from outside the process that makes them, as the sentinel does:
    a call is timed from when `overrun` first sees it, so call it often (every few milliseconds). Where the
    stamping thread's CPU time cannot be read, its wall time stands in for it."""

    def __init__(self, board) -> None:
        self.board, self.seen, self.since, self.since_cpu = board, 0, 0, None
        self.by_wall = False
        """Whether the call found over time ran out of wall time (the backstop) rather than CPU time."""

    def overrun(self) -> bool:
        """True when the call running on the board has run past its allowance."""
        board = self.board
        running, now = board[_START], time.monotonic_ns()
        cpu = thread_cpu_ns(board[_THREAD]) if running and board[_THREAD] else None
        if running != self.seen:
            self.seen, self.since, self.since_cpu = running, now, cpu
            return False
        if not running:
            return False
        move = running > 0
        used = now - self.since if cpu is None or self.since_cpu is None else cpu - self.since_cpu
        over_cpu = used > board[_ALLOWED if move else _SETUP_ALLOWED]
        if over_cpu or now - self.since > board[_WALL_ALLOWED if move else _SETUP_WALL_ALLOWED]:
            self.by_wall = not over_cpu
            return True
        return False

    @property
    def in_setup(self) -> bool:
        """True when the call last seen is a setup call (construction or reset), not a move."""
        return self.seen < 0


def _sentinel_main(fd: int, worker: int) -> None:
    """The sentinel: kills process `worker` once a call stamped on the page in file `fd` overruns, and leaves
    when the worker is gone (an orphan sentinel has a new parent)."""
    import mmap

    watch = MoveWatch(memoryview(mmap.mmap(fd, _BOARD_BYTES)).cast("q"))
    while os.getppid() == worker:
        if watch.overrun():
            os.kill(worker, signal.SIGKILL)
            break
        time.sleep(0.02)


if __name__ == "__main__":  # run as a script (never imported by the sentinel: it stays a small process)
    import sys

    _sentinel_main(int(sys.argv[1]), int(sys.argv[2]))
