"""A league's entrants: the tokens they upload bots with, and the bot names each token owns.

A token is `ID.SECRET`: the ID finds the entrant's row, the SECRET is checked against a slow hash of it (scrypt,
with a salt of its own), compared in constant time. The catalog keeps the ID, the salt and the hash, never the
token, so a copy of the league lets nobody upload. A token owns the bot names it uploads first; only that entrant
may add versions of them or retire them. Bots the organiser added with `arena league add` belong to no entrant.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from arena.league.catalog import Catalog, LeagueError, now

SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}
"""scrypt's cost: about 16 MiB and some tens of milliseconds a check, so guessing secrets offline is slow."""
_DUMMY_SALT = b"\0" * 16
"""An unknown token ID is hashed too, so a wrong ID takes as long to refuse as a wrong secret."""


class Forbidden(LeagueError):
    """A bot name that belongs to another entrant (or to the organiser)."""


class OverLimit(LeagueError):
    """An entrant over one of the league's limits (active bots, uploads an hour)."""


class Unknown(LeagueError):
    """No such bot, or no such upload."""


def check_entrant_name(name: str) -> str:
    """`name` if it is a valid entrant name (letters, digits, - _ .), else LeagueError."""
    if not name or len(name) > 64 or any(not (ch.isalnum() or ch in "-_.") for ch in name):
        raise LeagueError(f"entrant name {name!r}: 1 to 64 letters, digits, - _ and . only")
    return name


def _hash(secret: str, salt: bytes) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, **SCRYPT)


def new_token(league: Path, name: str) -> str:
    """A new token for the entrant `name` (made on first use); an earlier token of theirs stops working. The
    token is returned, never stored."""
    check_entrant_name(name)
    token_id, secret, salt = secrets.token_hex(8), secrets.token_urlsafe(32), secrets.token_bytes(16)
    digest = _hash(secret, salt)
    catalog = Catalog(league)
    try:
        with catalog.transaction() as db:
            db.execute("INSERT INTO entrants VALUES (?, ?, ?, ?, ?, NULL) ON CONFLICT (name) DO UPDATE SET "
                       "token_id = excluded.token_id, salt = excluded.salt, hash = excluded.hash, revoked = NULL",
                       (name, token_id, salt, digest, now()))
    finally:
        catalog.close()
    return f"{token_id}.{secret}"


def revoke_token(league: Path, name: str) -> bool:
    """Withdraws the entrant's token (their bots stay, and stay theirs). Returns whether one was in force."""
    catalog = Catalog(league)
    try:
        with catalog.transaction() as db:
            row = db.execute("SELECT token_id FROM entrants WHERE name = ?", (name,)).fetchone()
            if row is None:
                known = ", ".join(n for (n,) in db.execute("SELECT name FROM entrants ORDER BY name")) or "none yet"
                raise LeagueError(f"no entrant {name!r} in this league (entrants: {known})")
            db.execute("UPDATE entrants SET token_id = NULL, salt = NULL, hash = NULL, revoked = ? WHERE name = ?",
                       (now(), name))
            return row[0] is not None
    finally:
        catalog.close()


def entrant_of(db: sqlite3.Connection, token: str) -> str | None:
    """The entrant whose token this is, or None (unknown, wrong or revoked)."""
    token_id, _, secret = token.partition(".")
    row = db.execute("SELECT name, salt, hash FROM entrants WHERE token_id = ?", (token_id,)).fetchone() \
        if token_id and secret else None
    digest = _hash(secret, row[1] if row else _DUMMY_SALT)
    return row[0] if row is not None and hmac.compare_digest(digest, row[2]) else None


def owner_of(db: sqlite3.Connection, bot_name: str) -> str | None:
    """The entrant who owns `bot_name`, or None."""
    row = db.execute("SELECT entrant FROM owners WHERE bot_name = ?", (bot_name,)).fetchone()
    return row[0] if row else None


def active_names(db: sqlite3.Connection, entrant: str) -> set[str]:
    """The entrant's bot names with a version still playing."""
    return {name for (name,) in db.execute(
        "SELECT DISTINCT o.bot_name FROM owners o JOIN bots b ON b.name = o.bot_name "
        "WHERE o.entrant = ? AND b.status = 'active'", (entrant,))}


@dataclass(frozen=True)
class Owner:
    """An entrant adding a bot: the name must be theirs or free, and within their active bots."""

    entrant: str
    active_bots: int

    def may_use(self, db: sqlite3.Connection, bot_name: str) -> None:
        """Raises Forbidden if `bot_name` belongs to someone else, OverLimit if it would be one active bot too many."""
        owner = owner_of(db, bot_name)
        if owner is None and db.execute("SELECT 1 FROM bots WHERE name = ?", (bot_name,)).fetchone():
            raise Forbidden(f"the bot name {bot_name!r} belongs to the league's organiser")
        if owner is not None and owner != self.entrant:
            raise Forbidden(f"the bot name {bot_name!r} belongs to another entrant")
        active = active_names(db, self.entrant)
        if bot_name not in active and len(active) >= self.active_bots:
            raise OverLimit(f"{len(active)} active bots already ({', '.join(sorted(active))}), the most an entrant "
                            "may have here; retire one first")

    def claim(self, db: sqlite3.Connection, bot_name: str) -> None:
        """Inside the transaction that adds the bot: checks the name (`may_use`) and makes it the entrant's."""
        self.may_use(db, bot_name)
        db.execute("INSERT OR IGNORE INTO owners VALUES (?, ?)", (bot_name, self.entrant))
