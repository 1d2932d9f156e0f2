"""The league: bots collected over time, rated against the field without replaying the field.

A league directory (its paths named by LeagueDir, arena/league/directory.py) holds `league.toml`
(arena/league/settings.py), the catalog (arena/league/catalog.py), `bots/` (frozen copies of the bots' code, by
hash: arena/league/frozen.py), `results/` (Parquet parts, the run columns plus the round) and `leaderboard/`
(the HTML pages). `play` (arena/league/play.py) asks the
matchmaker (arena/league/matchmaker.py) for rounds and plays each as an ordinary tournament config. A season ends
(arena/league/season.py) with entries closed and a final, the run folder `final/`; arena/league/games.py exports the
games.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from arena.atomic import write_atomic
from arena.config import ConfigError
from arena.league.catalog import Catalog, LeagueError
from arena.league.directory import LeagueDir
from arena.league.settings import LeagueSettings, parse_settings

__all__ = ["Catalog", "LeagueDir", "LeagueError", "LeagueSettings", "load_settings", "new_league"]


def new_league(directory: Path, config: Path) -> LeagueSettings:
    """Makes a league directory from a league TOML: built beside it and renamed into place, so a league is
    either whole or absent."""
    directory = Path(directory)
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise LeagueError(f"{directory}: already exists and is not an empty folder")
    try:
        text = Path(config).read_text()
    except OSError as error:
        raise ConfigError(f"{config}: cannot read: {error.strerror or error}") from None
    try:
        settings = parse_settings(text)
    except ConfigError as error:
        raise ConfigError(f"{config}: {error}") from None
    directory.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=f".{directory.name}-", dir=directory.parent))
    try:
        mask = os.umask(0)
        os.umask(mask)
        staged.chmod(0o777 & ~mask)  # mkdtemp makes 0700: give the league the usual permissions
        league = LeagueDir(staged)
        write_atomic(league.settings, text.encode())
        Catalog(staged, create=True).close()
        for folder in (league.bots, league.results):
            folder.mkdir()
        if directory.exists():
            directory.rmdir()
        os.rename(staged, directory)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    return settings


def load_settings(directory: LeagueDir | Path) -> LeagueSettings:
    """The settings of a league directory (checking that it is one, of this format): read once for the operations
    that hold the same LeagueDir, again once league.toml changed."""
    league = LeagueDir.of(directory)

    def read() -> LeagueSettings:
        Catalog(league.path).close()
        return parse_settings(league.settings.read_text())

    return league.memo.get("settings", (league.settings,), read)
