"""Bots entering a league: checked as `arena submit` checks them, their code frozen by content hash, their
versions and their retirement recorded in the catalog.

A file bot's code is copied into `bots/<hash>/` before it is checked, the copy is what is checked and
what plays, and only then one catalog transaction records it: a process killed at any moment leaves
either no record (and at most an unused copy, which the next add of the same code reuses) or the whole
record. A bundled bot is arena's own code: it is recorded by name and arena's version.

A bot's folder or zip (a package with `entry = "module:Class"` in its bot.toml, or a command bot with
`command = ...`) is copied or unpacked (arena/bots/bundles.py) beside `bots/` in the same way, hashed by its
whole content, checked, and renamed to `bots/<hash>/`, which is then its spec: a round's config names that folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from arena.bots import BUNDLED_DIR, MANIFEST, BotError
from arena.bots.bundles import ArchiveLimits, check_folder, tree_hash
from arena.bots.registry import BotSource
from arena.bots.sources import as_folder, resolve
from arena.league import load_settings
from arena.league.catalog import BotRow, Catalog, LeagueError, now
from arena.league.directory import LeagueDir
from arena.league.entrants import Forbidden, Owner, Unknown, owner_of


@dataclass(frozen=True)
class Added:
    """What `add` did: the bot's row, and whether it was new (False: the same code was already there)."""

    bot: BotRow
    new: bool
    problems: tuple[str, ...] = ()


def label_of(name: str, version_: int) -> str:
    """The bot's name in tables: NAME, or NAME@V from the second version on."""
    return name if version_ == 1 else f"{name}@{version_}"


def check_name(name: str) -> str:
    if not name or any(not (ch.isalnum() or ch in "-_.+") for ch in name):
        raise LeagueError(f"bot name {name!r}: letters, digits and - _ . + only (@V marks versions)")
    return name


def add_bot(league: LeagueDir | Path, spec: str, *, name: str | None = None, sandboxed: bool = True,
            games_per_rules: int = 6, move_time_limit: float = 1.0, setup_time_limit: float = 10.0,
            limits: ArchiveLimits = ArchiveLimits(), owner: Owner | None = None, entered: float | None = None) -> Added:
    """Checks the bot named by `spec` and adds it to the league (see the module's docstring). `spec`: a bot name,
    `path/file.py:Class`, a bot's folder or zip with a bot.toml, or either of these without one followed by
    `:module:Class`; a zip or folder holds at most `limits`. Given an `owner` (an entrant's upload), the bot's name
    must be theirs or free, and becomes theirs in the same transaction. A bot `entered` (seconds since the epoch;
    default now) after entries closed is refused (arena/league/season.py)."""
    from arena.league.season import check_open
    from arena.tournament.submit import check_bot

    league = LeagueDir.of(league)  # league.toml read once for the checks below
    catalog = Catalog(league)
    staged = None
    try:
        check_open(league, catalog, entered)
        if name is not None:
            check_name(name)
        if spec.strip().startswith("llm:"):
            raise LeagueError(f"{spec}: a model seat plays no league: an entrant's URL would have the league's server "
                              "call any address, with its keys; play it in a tournament or match (docs/llm-seats.md)")
        source = resolve(spec)
        league_games = sorted({g.game for g in load_settings(league).games})
        if source.told:
            _check_plays(source.name, source.games, league_games)
        kind = _kind(source)
        if kind in ("package", "command"):
            staged = _staged_bundle(league, source, limits)
            file, class_name = staged, ""
            digest = tree_hash(staged, limits)
        elif kind == "file":
            file, class_name = Path(source.root), source.entry.rpartition(":")[2]
            digest = hashlib.sha256(file.read_bytes() + b"\x1f" + class_name.encode()).hexdigest()
        else:
            file, class_name = Path(source.entry.rpartition(":")[0]), source.entry.rpartition(":")[2]
            digest = hashlib.sha256(f"bundled\x1f{source.name}\x1f{version('arena')}".encode()).hexdigest()
        same = [b for b in catalog.bots() if b.hash == digest and (name is None or b.name == name)
                and (owner is None or owner_of(catalog.db, b.name) == owner.entrant)]
        if owner is not None and (name or source.name) is not None and not same:
            # before the checks: a name that is not theirs, or one active bot too many, costs no sandbox
            owner.may_use(catalog.db, name or check_name(source.name))
        if same:
            return Added(same[0], False)
        if kind in ("package", "command"):
            checked_spec = str(staged)
        elif kind == "file":
            staged = Path(tempfile.mkdtemp(prefix=".staged-", dir=_bots_dir(league)))
            shutil.copyfile(file, staged / file.name)
            checked_spec = f"{staged / file.name}:{class_name}"
        else:
            checked_spec = f"{BUNDLED_DIR / file.name}:{class_name}"
        try:
            report = check_bot(checked_spec, games_per_rules=games_per_rules, move_time_limit=move_time_limit,
                               setup_time_limit=setup_time_limit, sandboxed=sandboxed)
            if not report.ok:
                return Added(_unrecorded(report.name), False, tuple(report.problems))
            bot_name = name or check_name(report.name)
            claimed = tuple(c.game for c in report.checks)
            _check_plays(report.name, claimed, league_games)
            if owner is not None:
                owner.may_use(catalog.db, bot_name)  # before freezing: a refusal leaves no folder in bots/
            frozen = None
            if kind != "bundled":
                frozen = _bots_dir(league) / digest
                if frozen.is_dir():  # the same code frozen before (under another name, or by an add cut short)
                    shutil.rmtree(staged)
                    frozen = None  # not ours to remove
                else:
                    staged.rename(frozen)
                staged = None
                frozen_spec = f"bots/{digest}/{file.name}:{class_name}" if kind == "file" else f"bots/{digest}"
            else:
                frozen_spec = source.name
            try:
                with catalog.transaction() as db:
                    rows = db.execute("SELECT version, hash, label FROM bots WHERE name = ?", (bot_name,)).fetchall()
                    if any(h == digest for _, h, _ in rows):  # added meanwhile by another add
                        frozen = None
                        return Added(catalog.bot(next(label for _, h, label in rows if h == digest)), False)
                    if owner is not None:
                        owner.claim(db, bot_name)  # again, in the transaction: another upload may have come first
                    number = 1 + max((v for v, _, _ in rows), default=0)
                    label = label_of(bot_name, number)
                    if catalog.bot(label) is not None:
                        raise LeagueError(f"the name {label!r} is taken in this league")
                    db.execute("INSERT INTO bots VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, NULL)",
                               (label, bot_name, number, digest, kind, frozen_spec, spec, json.dumps(claimed), now()))
            except LeagueError:
                if frozen is not None and not any(b.hash == digest for b in catalog.bots()):
                    shutil.rmtree(frozen, ignore_errors=True)  # frozen for this add alone: the refusal takes it away
                raise
            return Added(catalog.bot(label), True)
        finally:
            if staged is not None:
                shutil.rmtree(staged, ignore_errors=True)
                staged = None
    finally:
        if staged is not None:
            shutil.rmtree(staged, ignore_errors=True)
        catalog.close()


def parse_label(label: str) -> tuple[str, int | None]:
    """A label as (NAME, V) for `NAME@V`, or (NAME, None) for `NAME` alone, which means every version; LeagueError
    for anything else."""
    name, at, number = label.partition("@")
    if not name or (at and not (number.isdigit() and int(number) >= 1)):
        raise LeagueError(f"{label!r}: a bot is NAME (every version) or NAME@V (version V, from 1)")
    return name, int(number) if at else None


@dataclass(frozen=True)
class StatusChange:
    """What retiring or reinstating a label did: the versions it changed and those already so."""

    name: str
    version: int | None
    """The version asked for (None: NAME alone, every version)."""
    status: str
    """"retired" or "active": the status asked for."""
    changed: tuple[str, ...]
    unchanged: tuple[str, ...]

    @property
    def every(self) -> bool:
        """Whether it was asked of every version (NAME alone)."""
        return self.version is None

    def text(self) -> str:
        """One line saying what happened, and of which versions."""
        verb = "retired" if self.status == "retired" else "reinstated"
        shown = "retired" if self.status == "retired" else "active"
        if not self.every:
            if not self.changed:
                return f"unchanged: {self.unchanged[0]} ({shown})"
            return f"{verb} {self.changed[0]!r} (version {self.version} only)"
        if not self.changed:
            return f"unchanged: every version of {self.name!r} is {shown} already ({', '.join(self.unchanged)})"
        rest = f"; {', '.join(self.unchanged)} {shown} already" if self.unchanged else ""
        return f"{verb} every version of {self.name!r}: {', '.join(self.changed)}{rest}"


def set_status(league: Path, label: str, status: str, owner: Owner | None = None) -> StatusChange:
    """Retires (`status` "retired") or reinstates ("active": a retired or suspended bot, its stalls counted afresh)
    the bot `label`: NAME@V that version, NAME every version, in one transaction; a retired bot's games stay. Given
    an `owner` (an entrant), the bot must be theirs, and a reinstated name must fit their active bots. Unknown,
    Forbidden or OverLimit (LeagueErrors) with one line."""
    name, number = parse_label(label)
    catalog = Catalog(league)
    try:
        with catalog.transaction() as db:
            rows = db.execute("SELECT label, version, status FROM bots WHERE name = ? ORDER BY version",
                              (name,)).fetchall()
            rows = [row for row in rows if number is None or row[1] == number]
            if not rows:
                known = ", ".join(b.label for b in catalog.bots()) or "none yet"
                raise Unknown(f"no bot {label!r} in this league (bots: {known})")
            if owner is not None:
                if owner_of(db, name) != owner.entrant:
                    raise Forbidden(f"the bot {name!r} is not yours")
                if status == "active":
                    owner.may_use(db, name)  # a name that plays again counts among their active bots
            changed = tuple(row[0] for row in rows if row[2] != status)
            db.executemany("UPDATE bots SET status = ?, retired = ? WHERE label = ?",
                           [(status, now() if status == "retired" else None, found) for found in changed])
            if status == "active":  # a suspended bot that plays again has its stalls counted afresh
                db.executemany("DELETE FROM stalls WHERE label = ?", [(found,) for found in changed])
        return StatusChange(name, number, status, changed, tuple(row[0] for row in rows if row[2] == status))
    finally:
        catalog.close()


def _bots_dir(league: Path) -> Path:
    path = LeagueDir(league).bots
    path.mkdir(exist_ok=True)
    return path


def _unrecorded(name: str) -> BotRow:
    return BotRow(name, name, 0, "", "", "", "", (), "refused", "", None)


def _kind(source: BotSource) -> str:
    """How a league freezes a bot: by its file, its whole folder (a package or a command bot), or arena's own by name
    and version; a form it cannot freeze is refused in one line naming those it can."""
    if source.form == "bundled":
        return "bundled"
    if source.form in ("file", "package", "command"):
        return source.form
    if source.form == "program":
        return "command"
    raise LeagueError(f"{source.spec}: a league freezes a bot's code: give path/file.py:Class, a folder or zip with a "
                      f"{MANIFEST}, folder-or.zip:module:Class, \"command: PROGRAM ARGS\", or a bundled bot's name")


def _check_plays(name: str | None, games, league_games: list[str]) -> None:
    """Refuses a bot that plays none of the league's games."""
    if games is not None and not set(games) & set(league_games):
        raise LeagueError(f"{name or 'the bot'} plays none of this league's games ({', '.join(league_games)}); "
                          f"it plays {', '.join(sorted(games)) or 'none'}")


def _staged_bundle(league: Path, source: BotSource, limits: ArchiveLimits) -> Path:
    """The bot's folder (a zip's as unpacked, a program's files, `as_folder`) written beside the frozen bots, within
    `limits`."""
    staged = _bots_dir(league) / f".staged-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        as_folder(source, staged)
        try:
            check_folder(staged, limits)
        except BotError as error:  # named as the user gave it, not by the folder it was staged in
            raise LeagueError(str(error).replace(str(staged), source.spec)) from None
        return staged
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
