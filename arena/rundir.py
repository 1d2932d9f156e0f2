"""A run's directory without its results' contents: its files' paths, its config and manifest read once while
unchanged, and its parts' names. Apart from arena/results.py, which reads and writes the parts, so that what only
finds its way about a run (a replay's child, which is handed the saved rows to check) imports no pyarrow."""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from arena.errors import ArenaError

PART_NAME = re.compile(r"part-(\d{12})-(\d{12})\.parquet")
T = TypeVar("T")


class ResultsError(ArenaError, ValueError):
    """A run directory that is missing or does not hold what it should."""


class FileMemo:
    """What was read from files, each value kept while its files stay as they are on disk (inode, size, modification
    and change times): read once for any number of uses, read again once a file changed, whoever holds it and for
    however long (a server keeps its league's across requests). A file rewritten in place within one tick of the
    clock to the same size would go unseen; arena writes its files by rename (arena/atomic.py), a new inode.

    Threads may share one: two that miss at once both read, and the last one's value is kept (the values are
    read-only)."""

    def __init__(self) -> None:
        self.kept: dict[str, tuple[tuple, object]] = {}

    def get(self, name: str, paths: tuple[Path, ...], read: Callable[[], T]) -> T:
        """The value `name`, as `read()` makes it from `paths`: the one kept, unless one of them changed."""
        stamp = tuple(_stamp(path) for path in paths)  # before the read: a change during it is read again next time
        kept = self.kept.get(name)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        value = read()
        self.kept[name] = (stamp, value)
        return value

    def __reduce__(self):
        return FileMemo, ()  # a copy in another process reads for itself


def _stamp(path: Path) -> tuple | None:
    """What tells a file's versions apart (None: no such file)."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


@dataclass(frozen=True)
class RunDir:
    """The files of one run: `reports/<name>/`; its config and manifest read once for the operations that hold
    it (`read_config`, `read_manifest`, and `memo` for what is made of them, such as the saved Config)."""

    path: Path
    memo: FileMemo = field(default_factory=FileMemo, compare=False, repr=False)

    @property
    def config(self) -> Path:
        return self.path / "config.toml"

    @property
    def manifest(self) -> Path:
        return self.path / "manifest.json"

    def read_config(self) -> str:
        """The text of the run's config.toml."""
        return self.memo.get("config", (self.config,), self.config.read_text)

    def read_manifest(self) -> dict:
        """The run's manifest.json ({} while the run has not finished): a copy, for the caller to change."""
        return copy.deepcopy(self.memo.get("manifest", (self.manifest,), self._manifest))

    def _manifest(self) -> dict:
        try:
            return json.loads(self.manifest.read_text())
        except FileNotFoundError:
            return {}

    @property
    def results(self) -> Path:
        return self.path / "results"

    @property
    def bots(self) -> Path:
        """The copies of the run's bots' code, by hash (`arena.bots.sources.freeze`): what `arena reproduce` plays."""
        return self.path / "bots"

    @property
    def ratings(self) -> Path:
        return self.path / "ratings.csv"

    @property
    def summary(self) -> Path:
        return self.path / "summary.csv"

    @property
    def report(self) -> Path:
        return self.path / "report.html"

    @property
    def damaged(self) -> Path:
        """Where a part cut short by a crash is set aside (its games are played again)."""
        return self.path / "damaged"

    def part(self, start: int, end: int) -> Path:
        """The Parquet part holding games start..end-1."""
        return self.results / f"part-{start:012d}-{end:012d}.parquet"
