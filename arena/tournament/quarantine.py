"""Quarantine: a batch replayed game by game in child processes.

A fresh, single-threaded host process forks one child after another; the child publishes on a shared
board the game it plays, the seat whose bot code is running and each move applied (a few integer
stores per decision). When the child dies, the host rebuilds that game's state from the published
moves and records a `crash` forfeit of that seat with the scores as they stood -- what the referee
records for a bot that raises at that decision, whatever the timing -- and forks a new child for the
next game.

The runner's backends (arena/tournament/runner.py) replay a batch here when it fails. A quarantined game is played
and recorded through the same pieces as a batch (arena/tournament/batch.py: `prepare`, the schedule and bot makers
of a config; `row`, a game's result row), so exactly as play_batch plays and records it.
"""

from __future__ import annotations

import logging
import os
import time
from array import array

from arena.config import Config
from arena.errors import ArenaError
from arena.games import get_game
from arena.isolation.clock import MoveWatch, idle, new_board, use_board
from arena.isolation.limits import die_with
from arena.llm.seat import take_usage
from arena.tournament import referee
from arena.tournament.batch import (
    columns,
    count_stall,
    prepare,
    row,
    stall_counts,
    suspended_seat,
    time_limits,
    unplayed,
)
from arena.tournament.schedule import Schedule

logger = logging.getLogger(__name__)

QUARANTINE_MOVES = 1 << 20
"""Decisions of one game the board can hold (a game runs far shorter)."""
_GAME, _SEAT, _COUNT, _STARTED, _MOVES = range(5)
"""Board slots: the game index (`end` once all are played), the seat whose bot code runs (or
_NO_SEAT), moves applied, when the game began (monotonic ns), then each move's index among the
legal moves."""
_NO_SEAT = -1


class QuarantineError(ArenaError, RuntimeError):
    """A quarantined game failed outside any bot's code: an arena bug, not a forfeit."""


def quarantine_batch(config: Config, start: int, end: int, stalls: tuple | None = None) -> dict[str, list]:
    """Plays games start..end-1 in child processes; a game whose child dies (os._exit, a signal, a
    BaseException past the referee) is a `crash` forfeit of the seat whose bot code was running. A bot is suspended
    as play_batch suspends it, its stalls counted from `stalls` (the run's token and saved stalls) on."""
    import json
    import pickle
    import signal
    import subprocess
    import sys

    command = [sys.executable, "-P", "-c",
               "from arena.tournament.quarantine import _quarantine_host; _quarantine_host()"]
    # its own session: Ctrl-C is for this process, and killing the group ends the host and its child alike
    host = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
    rows: list[tuple] = []
    try:
        try:
            pickle.dump((sys.path, config, start, end, stalls), host.stdin)
            host.stdin.close()
        except BrokenPipeError:
            pass  # the host is gone: the first line read tells
        for _ in range(start, end):
            line = host.stdout.readline()
            try:
                kind, payload = json.loads(line)
            except ValueError:
                raise QuarantineError(f"the quarantine of games {start}..{end - 1} broke off") from None
            if kind != "row":
                raise QuarantineError(payload)
            rows.append(tuple(tuple(v) if isinstance(v, list) else v for v in payload))  # JSON made tuples lists
    finally:
        try:  # before wait() reaps the host, so that its group id cannot belong to another process yet
            os.killpg(host.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        host.wait()
        host.stdout.close()
    return columns(rows)


def _quarantine_host() -> None:
    """The quarantine's own process: reads (sys.path, config, start, end, stalls) and writes one JSON line per game."""
    import mmap
    import pickle
    import sys

    die_with(os.getppid())
    out = os.dup(1)
    os.dup2(2, 1)  # the rows own the pipe; whatever a bot prints goes to stderr
    path, config, start, end, stalls = pickle.load(sys.stdin.buffer)
    sys.path[:] = path
    schedule = Schedule(config)
    board = memoryview(mmap.mmap(-1, 8 * (_MOVES + QUARANTINE_MOVES))).cast("q")  # shared with the children
    counts = memoryview(mmap.mmap(-1, 8 * max(1, len(config.bots)))).cast("q")[:len(config.bots)]  # stalls, shared
    counts[:] = array("q", stall_counts(config, stalls))
    limit, setup, wall = config.run.move_time_limit, config.run.setup_time_limit, config.run.wall_backstop
    moves = new_board(limit, setup, wall)  # the children's clock stamps it
    index = start
    while index < end:
        board[_GAME], board[_SEAT], board[_COUNT] = -1, _NO_SEAT, 0
        if moves is not None:
            idle(moves)  # a killed child's move is not the next child's
        host = os.getpid()
        child = os.fork()
        if child == 0:
            die_with(host)
            use_board(moves)
            _quarantine_child(config, index, end, out, board, counts)
        status, overran, by_wall = _watch(child, moves)
        index = board[_GAME]
        if index in (-1, end):  # done, or the child could not start (and said why)
            break
        try:
            if overran:
                times = wall if by_wall else None
                fault = referee.setup_fault(setup, times) if overran == "setup" else referee.move_fault(limit, times)
                row = _died_row(schedule, index, board, fault, "timeout")
                if by_wall:  # a stall: the next child plays on with it counted
                    counts[schedule.game(index).seat_bots[board[_SEAT]]] += 1
            else:
                row = _died_row(schedule, index, board, _death(status))
        except QuarantineError as error:
            _send(out, ("error", str(error)))
            break
        _send(out, ("row", row))
        index += 1


def _watch(child: int, moves) -> tuple[int, str | None, bool]:
    """Waits for a child to end, killing it if a call into a bot outruns the backstop: (exit status, None or
    what overran: "move" or "setup", and whether it ran out of wall time rather than CPU time)."""
    import signal

    watch = MoveWatch(moves)
    while True:
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid:
            return os.waitstatus_to_exitcode(status), None, False
        if watch.overrun():  # a bot that defeated the clock inside the child
            os.kill(child, signal.SIGKILL)
            status = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
            return status, "setup" if watch.in_setup else "move", watch.by_wall
        time.sleep(0.01)


def _quarantine_child(config: Config, start: int, end: int, out: int, board, counts) -> None:
    """Plays games start..end-1 in a forked child, sending each one's row; never returns."""
    import traceback

    code = 0
    try:
        schedule, makers = prepare(config)
        for index in range(start, end):
            board[_GAME], board[_SEAT], board[_COUNT], board[_STARTED] = index, _NO_SEAT, 0, time.monotonic_ns()
            try:
                row = _play_published(config, schedule, makers, index, board, counts)
            except BaseException as error:  # a bot's SystemExit or the like, which the referee lets through
                if board[_SEAT] == _NO_SEAT:
                    raise
                row = _died_row(schedule, index, board, referee.describe_error(error))
            _send(out, ("row", row))
        board[_GAME] = end
    except BaseException:
        board[_GAME], code = -1, 1
        _send(out, ("error", traceback.format_exc()))
    finally:
        os._exit(code)


def _send(out: int, message: tuple) -> None:
    """One JSON line to the parent, written whole."""
    import json

    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(out, data):]


def _play_published(config: Config, schedule: Schedule, makers: list, index: int, board, counts) -> tuple:
    """Game `index` as play_batch plays it, publishing on `board` whose code runs and every move (or its forfeit
    unplayed, when a bot is suspended by the stalls in `counts`)."""
    scheduled = schedule.game(index)
    if (seat := suspended_seat(config, scheduled, counts)) is not None:
        return row(scheduled, unplayed(config, scheduled, seat), (time.monotonic_ns() - board[_STARTED]) / 1e9)
    block = scheduled.block
    seated = _SeatedMakers([makers[bot] for bot in scheduled.seat_bots], board)
    played = referee.play(_PublishedGame(get_game(block.game_id), board), block.rules, seated, scheduled.deal_seed,
                          seeds=scheduled.bot_seeds, built=False, **time_limits(config))
    count_stall(scheduled, played, counts)
    return row(scheduled, played, (time.monotonic_ns() - board[_STARTED]) / 1e9, take_usage(len(scheduled.seat_bots)))


class _SeatedMakers(list):
    """What makes the bots of a quarantined game: publishes each seat as the referee takes its maker, to build
    that seat's bot and reset it (a bot's __init__ is its own code too)."""

    def __init__(self, makers: list, board) -> None:
        super().__init__(makers)
        self.board = board

    def __getitem__(self, seat: int):
        self.board[_SEAT] = seat
        return list.__getitem__(self, seat)


class _PublishedGame:
    """A game module that publishes the seat about to decide and each move applied; the bots' own calls
    (and frames) are untouched."""

    def __init__(self, game, board) -> None:
        self.game, self.board = game, board

    def __getattr__(self, name: str):
        return getattr(self.game, name)

    def observe(self, state, seat: int):
        """The game's observation, once the seat is published (its bot decides next)."""
        self.board[_SEAT] = seat
        return self.game.observe(state, seat)

    def apply(self, state, move) -> None:
        """Applies the move, once published as its index among the legal moves."""
        board, count = self.board, self.board[_COUNT]
        if count >= QUARANTINE_MOVES:
            board[_SEAT] = _NO_SEAT
            raise QuarantineError(f"a game of more than {QUARANTINE_MOVES:,} decisions")
        board[_MOVES + count] = self.game.legal_moves(state).index(move)
        self.game.apply(state, move)
        board[_COUNT], board[_SEAT] = count + 1, _NO_SEAT


def _died_row(schedule: Schedule, index: int, board, fault: str, termination: str = "crash") -> tuple:
    """The row of a quarantined game that died: the published moves replayed, then the referee's forfeit."""
    seat, count = board[_SEAT], board[_COUNT]
    if seat == _NO_SEAT:
        raise QuarantineError(f"game {index} failed outside any bot's code: {fault}")
    scheduled = schedule.game(index)
    game = get_game(scheduled.block.game_id)
    state = game.new_state(scheduled.block.rules, scheduled.deal_seed)
    for i in range(count):
        game.apply(state, game.legal_moves(state)[board[_MOVES + i]])
    played = referee.forfeit(game, state, seat, termination, fault, count)  # the referee's own rule
    return row(scheduled, played, (time.monotonic_ns() - board[_STARTED]) / 1e9)


def _death(exitcode: int) -> str:
    """How a child process ended, e.g. `process died: exit code 3` or `process died: SIGKILL`."""
    import signal

    if exitcode < 0:
        try:
            return f"process died: {signal.Signals(-exitcode).name}"
        except ValueError:
            pass
    return f"process died: exit code {exitcode}"


def warn_quarantine(start: int, end: int, error: BaseException) -> None:
    """Says that a batch failed and is being replayed game by game."""
    logger.warning(f"games {start}..{end - 1} failed ({type(error).__name__}); replaying them in quarantine")
