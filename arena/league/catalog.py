"""The league's catalog: its bots (names, versions, code hashes, status) and its rounds, in SQLite.

Why SQLite: it is in the standard library, one file, and every change is one transaction. In WAL mode
a reader (`arena league table`, `report`) sees the last committed state while `play` writes, and a
process killed in the middle of a transaction leaves the catalog as it was before it: the journal is
rolled back when the file is next opened. The games themselves are Parquet parts beside it; the catalog
says which rounds hold which game indices, so the two always agree (a round is recorded before its first
game is played, and marked done after its last part is saved).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from arena.errors import ArenaError
from arena.league.directory import LeagueDir

FORMAT = "arena-league 1"
"""The catalog's format marker: a league of another format is refused, never misread."""

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bots (
    label TEXT PRIMARY KEY,          -- NAME, or NAME@V from the second version on
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    hash TEXT NOT NULL,              -- SHA-256 of the frozen code (or of a bundled bot's name and arena's version)
    kind TEXT NOT NULL,              -- "file", "package" or "command" (frozen under bots/<hash>/), or "bundled"
    spec TEXT NOT NULL,              -- bots/<hash>/FILE.py:Class or bots/<hash> (a folder), or the bundled name
    source TEXT NOT NULL,            -- what was added (the spec as given)
    games TEXT NOT NULL,             -- JSON list of the games the bot plays
    status TEXT NOT NULL,            -- "active", "retired" or "suspended" (it stalled: STALL_SCHEMA)
    added TEXT NOT NULL,
    retired TEXT,
    UNIQUE (name, version)
);
CREATE TABLE rounds (
    number INTEGER PRIMARY KEY,
    first_index INTEGER NOT NULL,    -- league game index of the round's first game
    games INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    config TEXT NOT NULL,            -- the round's tournament config (TOML, bot paths relative to the league)
    plan TEXT NOT NULL,              -- JSON: each table's variant, bots and why it was chosen
    status TEXT NOT NULL,            -- "playing" until its last part is saved, then "done"
    started TEXT NOT NULL,
    finished TEXT
);
"""

ENTRANT_SCHEMA = """
CREATE TABLE IF NOT EXISTS entrants (
    name TEXT PRIMARY KEY,
    token_id TEXT UNIQUE,            -- the public half of the entrant's token (NULL once revoked)
    salt BLOB,                       -- scrypt's salt and hash of the secret half: never the token itself
    hash BLOB,
    created TEXT NOT NULL,
    revoked TEXT
);
CREATE TABLE IF NOT EXISTS owners (
    bot_name TEXT PRIMARY KEY,       -- a bot name an entrant's token uploaded first: only it adds versions, retires
    entrant TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS uploads (
    id TEXT PRIMARY KEY,
    entrant TEXT NOT NULL,
    file TEXT NOT NULL,              -- uploads/<id>/FILE, relative to the league
    class TEXT,                      -- the form's `class` and `name`, if given
    name TEXT,
    status TEXT NOT NULL,            -- "checking", then "accepted", "unchanged" (the code was there) or "refused"
    label TEXT,
    reason TEXT,
    created REAL NOT NULL,           -- seconds since the epoch (the hourly count compares numbers)
    finished TEXT,
    sha256 TEXT                      -- of the uploaded file: the same bytes again are answered `unchanged` at once
);
"""
"""The tables of entrants and their uploads (a league made before them gets them when its catalog is next opened)."""

STALL_SCHEMA = """
CREATE TABLE IF NOT EXISTS stalls (
    label TEXT PRIMARY KEY,          -- a bot version
    count INTEGER NOT NULL,          -- its stalls (calls the wall-clock backstop ended) since it last became active
    reason TEXT,                     -- why it is suspended, while it is
    suspended TEXT                   -- when it was suspended
);
"""
"""Each bot's stalls and, once they reach `[run] suspend_after`, why it was suspended (a league made before the
table gets it when its catalog is next opened)."""


class LeagueError(ArenaError, ValueError):
    """Bad input about a league (one line for the user)."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class BotRow:
    label: str
    name: str
    version: int
    hash: str
    kind: str
    spec: str
    source: str
    games: tuple[str, ...]
    status: str
    added: str
    retired: str | None
    reason: str | None = None
    """Why a suspended bot was suspended (None for any other)."""


@dataclass(frozen=True)
class RoundRow:
    number: int
    first_index: int
    games: int
    seed: int
    config: str
    plan: list
    status: str
    started: str
    finished: str | None

    @property
    def end_index(self) -> int:
        return self.first_index + self.games


class Catalog:
    """The catalog file of a league directory, opened for reading and writing."""

    def __init__(self, path: Path, *, create: bool = False) -> None:
        self.path = LeagueDir(path).catalog
        if not create and not self.path.is_file():
            raise LeagueError(f"{path}: not a league directory (no {self.path.name}); make one with `arena league new`")
        self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        if create:
            with self.transaction():
                for statement in _without_comments(SCHEMA + ENTRANT_SCHEMA + STALL_SCHEMA).split(";"):
                    self.db.execute(statement)
                self.db.execute("INSERT INTO meta VALUES ('format', ?), ('created', ?)", (FORMAT, now()))
        try:
            found = self.db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.DatabaseError:
            found = None
        if found is None or found[0] != FORMAT:
            self.db.close()
            what = found[0] if found else "an unknown format"
            raise LeagueError(f"{path}: a league of {what}, not {FORMAT}; this arena cannot read it")
        if self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'uploads'").fetchone() is None:
            with self.transaction():
                for statement in _without_comments(ENTRANT_SCHEMA).split(";"):
                    self.db.execute(statement)
        elif "sha256" not in self.db.execute("SELECT sql FROM sqlite_master WHERE name = 'uploads'").fetchone()[0]:
            with self.transaction():  # a league whose uploads were recorded before their hash was
                if not any(row[1] == "sha256" for row in self.db.execute("PRAGMA table_info(uploads)")):
                    self.db.execute("ALTER TABLE uploads ADD COLUMN sha256 TEXT")
        if self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'stalls'").fetchone() is None:
            with self.transaction():
                self.db.execute(_without_comments(STALL_SCHEMA))

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (taken at once, so two writers never interleave): all of it or none of it."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: everything read inside sees one committed state."""
        self.db.execute("BEGIN")
        try:
            yield self.db
        finally:
            self.db.execute("COMMIT")

    # --- bots ---------------------------------------------------------------------------------------

    def bots(self, status: str | None = None) -> list[BotRow]:
        """The bots in the order they were added (rowid), all or those of one status."""
        rows = self.db.execute("SELECT b.label, name, version, hash, kind, spec, source, games, status, added, "
                               "retired, CASE WHEN status = 'suspended' THEN s.reason END "
                               "FROM bots b LEFT JOIN stalls s ON s.label = b.label ORDER BY b.rowid").fetchall()
        bots = [BotRow(*row[:7], tuple(json.loads(row[7])), *row[8:]) for row in rows]
        return [b for b in bots if status is None or b.status == status]

    def bot(self, label: str) -> BotRow | None:
        return next((b for b in self.bots() if b.label == label), None)

    def stalls(self) -> dict[str, int]:
        """Each active bot's stalls since it last became active (those with none left out)."""
        return dict(self.db.execute("SELECT s.label, s.count FROM stalls s JOIN bots b ON b.label = s.label "
                                    "WHERE b.status = 'active' AND s.count > 0").fetchall())

    # --- rounds -------------------------------------------------------------------------------------

    def rounds(self, light: bool = False) -> list[RoundRow]:
        """Every round in order; `light`: without its config and plan (left empty), most of a long league's catalog
        and nothing a reader of the games needs."""
        return self._rounds("ORDER BY number", (), light)

    def finished_rounds(self, after: int = 0, upto: int | None = None, limit: int | None = None,
                        newest_first: bool = False) -> list[RoundRow]:
        """The finished rounds numbered above `after` and up to `upto`, oldest first (or newest first), at most
        `limit` of them: a page of a long league's round log, whose plans are most of its catalog."""
        return self._rounds(f"WHERE status = 'done' AND number > ? AND number <= ? "
                            f"ORDER BY number {'DESC' if newest_first else 'ASC'} LIMIT ?",
                            (after, 2 ** 62 if upto is None else upto, -1 if limit is None else limit))

    def _rounds(self, clauses: str, parameters: tuple, light: bool = False) -> list[RoundRow]:
        texts = "'', '[]'" if light else "config, plan"
        rows = self.db.execute(f"SELECT number, first_index, games, seed, {texts}, status, started, finished "
                               f"FROM rounds {clauses}", parameters).fetchall()
        return [RoundRow(*row[:5], json.loads(row[5]), *row[6:]) for row in rows]

    def record_round(self, number: int, first_index: int, games: int, seed: int, config: str, plan: list) -> RoundRow:
        with self.transaction() as db:
            db.execute("INSERT INTO rounds VALUES (?, ?, ?, ?, ?, ?, 'playing', ?, NULL)",
                       (number, first_index, games, seed, config, json.dumps(plan), now()))
        return next(r for r in self.rounds() if r.number == number)

    def finish_round(self, number: int, stalls: dict[str, tuple[int, str]] | None = None,
                     suspend_after: int = 0) -> list[str]:
        """Marks the round done and, in the same transaction, adds its `stalls` (label: how many, the last one's
        fault) to each bot's count, suspending each active bot whose count reaches `suspend_after` (0: never);
        returns the labels suspended."""
        suspended = []
        with self.transaction() as db:
            db.execute("UPDATE rounds SET status = 'done', finished = ? WHERE number = ?", (now(), number))
            for label, (count, fault) in (stalls or {}).items():
                db.execute("INSERT INTO stalls VALUES (?, ?, NULL, NULL) "
                           "ON CONFLICT (label) DO UPDATE SET count = count + excluded.count", (label, count))
                total = db.execute("SELECT count FROM stalls WHERE label = ?", (label,)).fetchone()[0]
                suspend = "UPDATE bots SET status = 'suspended' WHERE label = ? AND status = 'active'"
                if suspend_after and total >= suspend_after and db.execute(suspend, (label,)).rowcount:
                    reason = (f"suspended after {total} stall{'' if total == 1 else 's'} in play, the last in round "
                              f"{number}: {fault}")
                    db.execute("UPDATE stalls SET reason = ?, suspended = ? WHERE label = ?", (reason, now(), label))
                    suspended.append(label)
        return suspended


def _without_comments(script: str) -> str:
    return "\n".join(line.split("--")[0] for line in script.splitlines())
