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
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path

from arena.isolation.limits import TAILS_ENV
from arena.isolation.supervisor import Supervisor, child_arguments
from arena.league.catalog import Catalog

log = logging.getLogger(__name__)

STDERR_FOLDER = "stderr"
"""In the league: the last lines each frozen bot's process wrote to stderr, as `<code hash>.txt`."""
PLAY_NICENESS = 5
"""Play is batch work: its process and its workers (which inherit the niceness) yield the cores to the server's
process, so a reader is answered at once with both cores busy; above the standings' computing process (nice 10)."""
STOP_SECONDS = 10.0
"""How long a stopping server waits for the child to leave at the end of a batch before it kills it."""


class PlayLoop(Supervisor):
    """Plays the league in child processes (arena/isolation/supervisor.py keeps them), until `stop()`: a child plays
    until every variant is settled and exits 0, and the next starts once the league's bots change; a child that fails
    is not started again (the pages stay up, `failure` says why)."""

    def __init__(self, directory: Path, lock_fd: int, workers: int | None = None, address: str | None = None,
                 settled: Callable[[], object] = lambda: None) -> None:
        self.directory = Path(directory)
        args = [str(self.directory)] + (["--workers", str(workers)] if workers is not None else []) \
            + (["--address", address] if address is not None else [])
        super().__init__("play", "arena.server.player", args, pass_fds=[lock_fd], grace=STOP_SECONDS,
                         restart_seconds=None)
        self.settled = settled
        """Called when a stretch of play ends, before `playing` turns false: the server reads the league's last
        rounds, so an idle server never shows less than the league holds."""
        self.playing = False
        """Whether the league is being played now (`/api/health`)."""
        self.bots: list[tuple[str, str]] = []
        """The league's bots and their status when the last stretch of play began."""

    def start(self) -> None:
        """Starts the loop (playing from the start: the first look for a round is part of play)."""
        self.playing = True
        super().start()

    def starting(self) -> None:
        self.bots, self.playing = self._bots(), True

    def ended(self, status: int) -> None:
        try:
            self.settled()
        finally:
            self.playing = False

    def changed(self) -> bool:
        """Settled (or too few bots to make a table): play again once a bot is added or retired."""
        return self._bots() != self.bots

    def _bots(self) -> list[tuple[str, str]]:
        """The league's bots and their status: a change is what can give the matchmaker new tables."""
        catalog = Catalog(self.directory)
        try:
            return [(b.label, b.status) for b in catalog.bots()]
        finally:
            catalog.close()


def main(argv: list[str]) -> int:
    """The child: plays the league until settled under the lock its server holds; exit 0, or 1 with one line."""
    from arena.league.catalog import LeagueError
    from arena.league.play import play_league

    parser = argparse.ArgumentParser(prog="python -m arena.server.player")
    parser.add_argument("directory", type=Path)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--address")
    args = child_arguments(parser, argv)
    os.nice(PLAY_NICENESS)
    os.environ[TAILS_ENV] = str(args.directory / STDERR_FOLDER)  # each frozen bot's last stderr lines, for its owner
    try:
        play_league(args.directory, until_settled=True, workers=args.workers, address=args.address, lock=False)
    except KeyboardInterrupt:  # the server is stopping: the round is finished by the next play
        return 0
    except (LeagueError, ValueError) as error:
        log.error("%s", error)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
