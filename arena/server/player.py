"""The play loop of `arena league serve --play`: the league played in a thread of the server's process, round
after round as `arena league play --until settled` plays it, idle once every variant is settled and awake again
when a bot is added or retired.

The server holds `play.lock` for as long as it runs (arena/server/app.py), so this loop plays with `lock=False`
and a separate `arena league play` is refused meanwhile. A round cut short (the server killed) is finished
first by the next play, as after any `play` killed.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path

from arena.league.catalog import Catalog

WAKE_SECONDS = 2.0
"""How often an idle loop looks at the catalog's bots for one added or retired."""


class Stopped(Exception):
    """The server is shutting down: the round in play is left for the next play to finish."""


class PlayLoop:
    """Plays the league in a daemon thread until `stop()`."""

    def __init__(self, directory: Path, workers: int | None = None, address: str | None = None,
                 settled: Callable[[], object] = lambda: None) -> None:
        self.directory, self.workers, self.address = Path(directory), workers, address
        self.settled = settled
        """Called when play stops, before `playing` turns false: the server reads the league's last rounds, so
        an idle server never shows less than the league holds."""
        self.playing = False
        """Whether a round is being played now (`/api/health`)."""
        self.failure: str | None = None
        """Why the loop stopped for good, if it did (a broken league; shown by `/api/health`)."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arena-league-play", daemon=True)

    def start(self) -> None:
        """Starts the loop (playing from the start: the first look for a round is part of play)."""
        self.playing = True
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Asks the loop to stop at the next batch and waits for it (at most `timeout` seconds)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        from arena.league.play import play_league

        def check(*_) -> None:  # called by the runner after every batch: the way out of a long round
            if self._stop.is_set():
                raise Stopped

        while not self._stop.is_set():
            bots = self._bots()
            self.playing = True
            try:
                play_league(self.directory, until_settled=True, workers=self.workers, address=self.address,
                            on_progress=check, lock=False)
            except Stopped:
                return
            except Exception as error:  # noqa: BLE001 - the pages stay up; health says why play stopped
                self.failure = f"{type(error).__name__}: {error}"
                print(f"error: the league stopped playing: {self.failure}", file=sys.stderr)
                return
            finally:
                try:
                    self.settled()
                finally:
                    self.playing = False
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
