"""arena's own child processes, started in one way and watched in one place: each is a fresh interpreter,
`python -P -m MODULE ARGS --parent PID`, that takes the one parent-death signal (`child_arguments` calls
`die_with`), so none outlives the process that started it.

Two kinds, one module:

- a long-lived child kept running beside a server (`Supervisor`: the league's play, the upload checker), started,
  watched from a thread, started again when it ends (or given up on, with the reason kept), stopped at shutdown;
- children that do jobs under a deadline and answer one JSON line per job (`run_jobs`, with `answer_jobs` its child's
  side: a game's replay), killed with their process group when a job runs over, their failure one line.

Why fresh interpreters and not fork: the server that starts them runs threads (uvicorn's loop, the refresher, these
supervisors, a thread pool), and a fork of a threaded process may inherit a lock another thread held, for ever.
A fresh child costs its imports and its config's bot checks, once per child, not per job (docs/architecture.md).
This module imports no layer above isolation/: what a child runs is named by its module.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from arena.errors import ArenaError
from arena.isolation.limits import die_with

log = logging.getLogger(__name__)

RESTART_SECONDS = 2.0
"""How long a supervisor waits before starting a child again after it failed."""
WAKE_SECONDS = 2.0
"""How often a supervisor whose child finished its work looks for new work (`Supervisor.changed`)."""
JOIN_SECONDS = 10.0
"""How long `Supervisor.stop` waits for its thread once the child is gone (it may be telling its user so)."""


def child_command(module: str, *args: str) -> list[str]:
    """The command of one of arena's children: `python -P -m MODULE ARGS --parent PID` (PID: this process)."""
    return [sys.executable, "-P", "-m", module, *args, "--parent", str(os.getpid())]


def child_arguments(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """A child's side of `child_command`: its arguments parsed, `--parent` among them, death with that parent asked
    (die_with), SIGINT heard whatever it inherited, and its log lines on stderr, which its parent passes on (a
    server's log)."""
    parser.add_argument("--parent", type=int, required=True, help="the process this one dies with")
    args = parser.parse_args(argv)
    die_with(args.parent)
    # A child inherits an ignored SIGINT (a shell starts its background jobs so: `arena league serve &`), and Python
    # then never raises KeyboardInterrupt: the supervisor's SIGINT would go unheard and its grace end in a kill.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")
    return args


class Supervisor:
    """Keeps a child `python -P -m MODULE ARGS` running from a daemon thread until `stop()`.

    When the child ends on its own: with exit status 0 (its work done) it starts again once `changed()` says there is
    work (asked every WAKE_SECONDS); with another status it starts again after `restart_seconds`, logged as a
    warning, or, when `restart_seconds` is None, not again: `failure` says why and the error is logged. `stop()`
    sends SIGINT and waits `grace` seconds for the child to leave (0: kills it at once), then kills it.
    A user adds what its child means through `starting()`, `ended(status)` and `changed()`."""

    def __init__(self, what: str, module: str, args: Sequence[str] = (), *, pass_fds: Sequence[int] = (),
                 grace: float = 0.0, restart_seconds: float | None = RESTART_SECONDS) -> None:
        self.what, self.command = what, child_command(module, *args)
        self.pass_fds, self.grace, self.restart_seconds = tuple(pass_fds), grace, restart_seconds
        self.failure: str | None = None
        """Why the child is not started again, if it is not."""
        self.child: subprocess.Popen | None = None
        self._stop = threading.Event()
        self._starting = threading.Lock()  # a child is started only while not stopping, and stop() sees it
        self._thread = threading.Thread(target=self._run, name=f"arena-{module.rpartition('.')[2]}", daemon=True)

    def starting(self) -> None:
        """Called in the supervisor's thread before each start of the child."""

    def ended(self, status: int) -> None:
        """Called in the supervisor's thread after each end of the child (its exit status), at `stop()` too."""

    def changed(self) -> bool:
        """Whether a child that finished its work (exit status 0) has work again."""
        return True

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stops the child (SIGINT, then SIGKILL after `grace` seconds) and the thread."""
        with self._starting:
            self._stop.set()
            child = self.child
        if child is not None and child.poll() is None:
            if self.grace:
                child.send_signal(signal.SIGINT)
            try:
                child.wait(self.grace)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        self._thread.join(JOIN_SECONDS)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.starting()
            status = -1
            try:
                with self._starting:
                    if self._stop.is_set():
                        return
                    self.child = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                                  pass_fds=self.pass_fds)
                status = self.child.wait()
            finally:
                self.ended(status)
            if self._stop.is_set():
                return
            if status == 0:
                while not self._stop.wait(WAKE_SECONDS) and not self.changed():
                    pass
            elif self.restart_seconds is None:  # the server stays up; its health says why
                self.failure = f"{self.what} ended with exit status {status} (its error is in the server's log)"
                log.error("%s; not starting it again", self.failure)
                return
            else:
                log.warning("%s ended (exit status %d); starting it again", self.what, status)
                self._stop.wait(self.restart_seconds)


# --- children that do jobs ----------------------------------------------------------------------------------------

class ChildFailed(ArenaError, RuntimeError):
    """A job a child did not answer (it ran over its time, its child ended) or answered with an error: one line."""


def run_jobs(module: str, args: Sequence[str], jobs: Sequence[str], seconds: float) -> list:
    """Each of `jobs` done by a child `python -P -m MODULE ARGS JOB...` (whose main is `answer_jobs`), in order: the
    answer (JSON) of each, or the ChildFailed of one answered with an error, not answered within `seconds` of the
    last answer (or of the start), or left by a child that ended. A child that runs over or ends is killed with its
    process group (the bots' processes it started) and the jobs after that one go to a new child: a job that kills
    its child costs itself only."""
    answers: list = []
    while len(answers) < len(jobs):
        left = jobs[len(answers):]
        with tempfile.TemporaryFile() as stderr:  # read only when the child fails: never a pipe that fills up
            child = subprocess.Popen(child_command(module, *args, *left), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=stderr, start_new_session=True)
            try:
                lines = _lines(child.stdout.fileno(), seconds)
                for _ in left:
                    line = next(lines)
                    if line is None:
                        answers.append(ChildFailed(f"no answer within {seconds:g} s"))
                        break
                    if not line:
                        answers.append(ChildFailed(_last_line(stderr) or f"its process ended (exit status "
                                                                          f"{child.wait()})"))
                        break
                    try:
                        answer = json.loads(line)
                        answers.append(ChildFailed(answer["error"]) if "error" in answer else answer["ok"])
                    except (ValueError, TypeError, KeyError):  # something wrote on the answers' stream
                        answers.append(ChildFailed(f"an answer that is not one of {module}'s: {line[:80]!r}"))
                        break
            finally:
                try:
                    os.killpg(child.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                child.wait()
                child.stdout.close()
    return answers


def _lines(fd: int, seconds: float):
    """The lines read from `fd`, each within `seconds` of the one before: a line (bytes, without its newline), b""
    at the end of the file, None when the time ran out."""
    import time

    buffer = b""
    while True:
        deadline = time.monotonic() + seconds
        while b"\n" not in buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                yield None
                return
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                yield b""
                return
            buffer += chunk
        line, _, buffer = buffer.partition(b"\n")
        yield line


def _last_line(stderr) -> str:
    """The last line a failed child wrote on stderr (its one-line error), or ""."""
    stderr.seek(max(0, os.fstat(stderr.fileno()).st_size - 4096))
    lines = stderr.read().decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else ""


def error_line(error: Exception) -> str:
    """An exception as the one line a job's failure shows: `Type: its first line`."""
    lines = str(error).strip().splitlines()
    return type(error).__name__ + (f": {lines[0]}" if lines else "")


def answer_jobs(jobs: Sequence[str], do: Callable[[str], object]) -> int:
    """The child's side of `run_jobs`: `do(job)` for each job, its answer one JSON line on stdout (`{"ok": ...}`, or
    `{"error": "Type: one line"}` for an exception, and on to the next job). Whatever else writes to stdout (a bot
    that prints) goes to stderr, not into the answers."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    with out:
        for job in jobs:
            try:
                answer = {"ok": do(job)}
            except Exception as error:  # noqa: BLE001 - the parent shows the line; the next job is done
                answer = {"error": error_line(error)}
            out.write(json.dumps(answer) + "\n")
            out.flush()
    return 0


def job_child(module: str, argv: Sequence[str], make: Callable[[Path], Callable[[str], object]]) -> int:
    """The main of a `run_jobs` child, `python -m MODULE FOLDER JOB... --parent PID`: each job done by what
    `make(FOLDER)` returns (`answer_jobs`)."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}")
    parser.add_argument("folder", type=Path)
    parser.add_argument("jobs", nargs="+")
    args = child_arguments(parser, argv)
    return answer_jobs(args.jobs, make(args.folder))
