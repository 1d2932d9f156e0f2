"""The play loop of `arena league serve --play`: a thread of the server that keeps the league played, round after
round as `arena league play --until settled` plays it, idle once every variant is settled and awake again when a
bot is added or retired.

Each stretch of play runs in a child process (`python -m arena.server.player`), not in the server's: the
runner's loop waits on its workers' pipes, and in a thread beside request handling and the standings it waited
for the interpreter's lock after every read (play fell from 272 to 2 games/s under readers in
benchmarks/serve.py). The server holds `play.lock` for as long as it runs and hands the child the locked file,
so a separate `arena league play` is refused meanwhile; the child dies with the server (the kernel kills it:
PR_SET_PDEATHSIG), and a round it leaves cut short is finished first by the next play, as after any `play` killed.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from arena.isolation.limits import TAILS_ENV
from arena.league.catalog import Catalog

STDERR_FOLDER = "stderr"
"""In the league: the last lines each frozen bot's process wrote to stderr, as `<code hash>.txt`."""
PLAY_NICENESS = 5
"""Play is batch work: its process and its workers (which inherit the niceness) yield the cores to the server's
process, so a reader is answered at once with both cores busy; above the standings' computing process (nice 10)."""
WAKE_SECONDS = 2.0
"""How often an idle loop looks at the catalog's bots for one added or retired."""
STOP_SECONDS = 10.0
"""How long a stopping server waits for the child to leave at the end of a batch before it kills it."""


class PlayLoop:
    """Plays the league in child processes, from a daemon thread, until `stop()`."""

    def __init__(self, directory: Path, lock_fd: int, workers: int | None = None, address: str | None = None,
                 settled: Callable[[], object] = lambda: None) -> None:
        self.directory, self.lock_fd, self.workers, self.address = Path(directory), lock_fd, workers, address
        self.settled = settled
        """Called when a stretch of play ends, before `playing` turns false: the server reads the league's last
        rounds, so an idle server never shows less than the league holds."""
        self.playing = False
        """Whether the league is being played now (`/api/health`)."""
        self.failure: str | None = None
        """Why the loop stopped for good, if it did (shown by `/api/health`)."""
        self.child: subprocess.Popen | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arena-league-play", daemon=True)

    def start(self) -> None:
        """Starts the loop (playing from the start: the first look for a round is part of play)."""
        self.playing = True
        self._thread.start()

    def stop(self) -> None:
        """Stops the child at the end of its batch (killed if it takes longer) and the loop."""
        self._stop.set()
        child = self.child
        if child is not None and child.poll() is None:
            child.send_signal(signal.SIGINT)
            try:
                child.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        self._thread.join(STOP_SECONDS)

    def _run(self) -> None:
        command = [sys.executable, "-P", "-m", "arena.server.player", str(self.directory), "--parent", str(os.getpid())]
        command += ["--workers", str(self.workers)] if self.workers is not None else []
        command += ["--address", self.address] if self.address is not None else []
        while not self._stop.is_set():
            bots = self._bots()
            self.playing = True
            try:
                self.child = subprocess.Popen(command, stdout=subprocess.DEVNULL, pass_fds=[self.lock_fd])
                status = self.child.wait()
            finally:
                try:
                    self.settled()
                finally:
                    self.playing = False
            if self._stop.is_set():
                return
            if status != 0:  # the pages stay up; health says why play stopped
                self.failure = f"play ended with exit status {status} (its error is in the server's log)"
                print(f"error: the league stopped playing: {self.failure}", file=sys.stderr)
                return
            # settled (or too few bots to make a table): wait for the bots to change
            while not self._stop.wait(WAKE_SECONDS) and self._bots() == bots:
                pass

    def _bots(self) -> list[tuple[str, str]]:
        """The league's bots and their status: a change is what can give the matchmaker new tables."""
        catalog = Catalog(self.directory)
        try:
            return [(b.label, b.status) for b in catalog.bots()]
        finally:
            catalog.close()


def main(argv: list[str]) -> int:
    """The child: plays the league until settled under the lock its server holds; exit 0, or 1 with one line."""
    from arena.isolation.limits import die_with
    from arena.league.catalog import LeagueError
    from arena.league.play import play_league

    parser = argparse.ArgumentParser(prog="python -m arena.server.player")
    parser.add_argument("directory", type=Path)
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--address")
    args = parser.parse_args(argv)
    die_with(args.parent)
    os.nice(PLAY_NICENESS)
    os.environ[TAILS_ENV] = str(args.directory / STDERR_FOLDER)  # each frozen bot's last stderr lines, for its owner
    try:
        play_league(args.directory, until_settled=True, workers=args.workers, address=args.address, lock=False)
    except KeyboardInterrupt:  # the server is stopping: the round is finished by the next play
        return 0
    except (LeagueError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
