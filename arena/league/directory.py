"""The files of a league directory, named in one place as RunDir names a run's, and what is read of them kept
for the operations that hold the same LeagueDir."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from arena.rundir import FileMemo, RunDir


@dataclass(frozen=True)
class LeagueDir:
    """The files of one league: `DIR/` as `arena league new DIR` makes it. A path too (os.PathLike), so that it goes
    wherever the league's folder does; the functions that read its settings take it (`arena.league.load_settings`),
    and read league.toml once for all of them, again only once it changed on disk (`memo`, a FileMemo: a server
    keeps one across requests). The catalog's connections are not kept: each is opened by the thread that uses
    it (SQLite's connections are not to be shared between threads)."""

    path: Path
    memo: FileMemo = field(default_factory=FileMemo, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))  # a str from the command line or a test is a path

    @classmethod
    def of(cls, directory: LeagueDir | str | os.PathLike) -> LeagueDir:
        """`directory` itself when it is a LeagueDir (what it read is kept), else the LeagueDir of that folder."""
        return directory if isinstance(directory, LeagueDir) else cls(directory)

    def __fspath__(self) -> str:
        return str(self.path)

    def __str__(self) -> str:
        return str(self.path)

    @property
    def settings(self) -> Path:
        """The league TOML, as given to `arena league new` (arena/league/settings.py)."""
        return self.path / "league.toml"

    @property
    def catalog(self) -> Path:
        """The catalog: bots, versions and rounds in SQLite (arena/league/catalog.py)."""
        return self.path / "catalog.sqlite"

    @property
    def bots(self) -> Path:
        """The frozen copies of the bots' code, a folder per hash (arena/league/frozen.py)."""
        return self.path / "bots"

    @cached_property
    def run(self) -> RunDir:
        """The league as a run directory: its `results/` hold the Parquet parts (the run columns and the round),
        a damaged part is set aside in its `damaged/`. One RunDir for the LeagueDir's life, as what it read is."""
        return RunDir(self.path)

    @property
    def results(self) -> Path:
        """The Parquet parts of the league's games."""
        return self.run.results

    @property
    def lock(self) -> Path:
        """The file `play` (or `serve --play`) holds with flock while it plays: one writer at a time."""
        return self.path / "play.lock"

    @property
    def final_lock(self) -> Path:
        """The file `arena league final` holds locked while it plays the final (arena/league/season.py): one final at
        a time."""
        return self.path / "final.lock"

    @property
    def final_note(self) -> Path:
        """What the final lock's last holder said of its final (when it started, the games it plays at most),
        replaced whole, so that a reader never meets half of it."""
        return self.path / "final-note.json"

    @property
    def history(self) -> Path:
        """The rating history `arena league serve` computed, a point per round it fitted (arena/league/standings.py):
        kept so that a restarted server does not fit every point again."""
        return self.path / "history.json"

    @property
    def leaderboard(self) -> Path:
        """The static pages of `arena league report`: the index and a page per bot."""
        return self.path / "leaderboard"

    @property
    def report(self) -> Path:
        """The static leaderboard's index page."""
        return self.leaderboard / "index.html"

    @cached_property
    def final(self) -> RunDir:
        """The season's final, an ordinary run folder (`arena league final`, arena/league/season.py): its config and
        manifest read once for the LeagueDir's life, again once changed."""
        return RunDir(self.path / "final")
