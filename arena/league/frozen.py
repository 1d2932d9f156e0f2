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

from arena.bots import BUNDLED_DIR, MANIFEST, BotError, read_manifest
from arena.bots.bundles import ArchiveLimits, copy_folder, tree_hash, unpack
from arena.league.catalog import BotRow, Catalog, LeagueError, now
from arena.league.directory import LeagueDir
from arena.league.entrants import Owner, owner_of


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


def add_bot(league: Path, spec: str, *, name: str | None = None, sandboxed: bool = True, games_per_rules: int = 6,
            move_time_limit: float = 1.0, setup_time_limit: float = 10.0,
            limits: ArchiveLimits = ArchiveLimits(), owner: Owner | None = None) -> Added:
    """Checks the bot named by `spec` and adds it to the league (see the module's docstring). `spec`: a bot name,
    `path/file.py:Class`, a bot's folder or zip with a bot.toml, or either of these without one followed by
    `:module:Class`; a zip or folder holds at most `limits`. Given an `owner` (an entrant's upload), the bot's name
    must be theirs or free, and becomes theirs in the same transaction."""
    from arena.submit import check_bot

    catalog = Catalog(league)
    staged = None
    try:
        if name is not None:
            check_name(name)
        bundle = _bundle_source(spec)
        if bundle is not None:
            staged, kind = _staged_bundle(league, *bundle, limits)
            file, class_name = staged, ""
            digest = tree_hash(staged, limits)
        else:
            kind, file, class_name, bundled_name = _source(spec)
        if kind == "bundled":
            digest = hashlib.sha256(f"bundled\x1f{bundled_name}\x1f{version('arena')}".encode()).hexdigest()
        elif kind == "file":
            code = file.read_bytes()
            digest = hashlib.sha256(code + b"\x1f" + class_name.encode()).hexdigest()
        same = [b for b in catalog.bots() if b.hash == digest and (name is None or b.name == name)
                and (owner is None or owner_of(catalog.db, b.name) == owner.entrant)]
        if owner is not None and name is not None and not same:
            owner.may_use(catalog.db, name)  # before the checks: a name that is not theirs costs no sandbox
        if same:
            return Added(same[0], False)
        if bundle is not None:
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
            if kind != "bundled":
                frozen = _bots_dir(league) / digest
                if frozen.is_dir():  # the same code frozen before (under another name, or by an add cut short)
                    shutil.rmtree(staged)
                else:
                    staged.rename(frozen)
                staged = None
                frozen_spec = f"bots/{digest}/{file.name}:{class_name}" if kind == "file" else f"bots/{digest}"
            else:
                frozen_spec = bundled_name
            with catalog.transaction() as db:
                rows = db.execute("SELECT version, hash, label FROM bots WHERE name = ?", (bot_name,)).fetchall()
                if any(h == digest for _, h, _ in rows):  # added meanwhile by another add
                    return Added(catalog.bot(next(label for _, h, label in rows if h == digest)), False)
                if owner is not None:
                    owner.claim(db, bot_name)
                number = 1 + max((v for v, _, _ in rows), default=0)
                label = label_of(bot_name, number)
                if catalog.bot(label) is not None:
                    raise LeagueError(f"the name {label!r} is taken in this league")
                db.execute("INSERT INTO bots VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, NULL)",
                           (label, bot_name, number, digest, kind, frozen_spec, spec, json.dumps(claimed), now()))
            return Added(catalog.bot(label), True)
        finally:
            if staged is not None:
                shutil.rmtree(staged, ignore_errors=True)
                staged = None
    finally:
        if staged is not None:
            shutil.rmtree(staged, ignore_errors=True)
        catalog.close()


def retire_bot(league: Path, label: str) -> tuple[BotRow, bool]:
    """Stops the bot `label` (NAME or NAME@V) playing; its games stay. Returns it and whether it was active."""
    catalog = Catalog(league)
    try:
        with catalog.transaction() as db:
            bot = catalog.bot(label)
            if bot is None:
                known = ", ".join(b.label for b in catalog.bots()) or "none yet"
                raise LeagueError(f"no bot {label!r} in this league (bots: {known})")
            if bot.status == "retired":
                return bot, False
            db.execute("UPDATE bots SET status = 'retired', retired = ? WHERE label = ?", (now(), label))
        return catalog.bot(label), True
    finally:
        catalog.close()


def _bots_dir(league: Path) -> Path:
    path = LeagueDir(league).bots
    path.mkdir(exist_ok=True)
    return path


def _unrecorded(name: str) -> BotRow:
    return BotRow(name, name, 0, "", "", "", "", (), "refused", "", None)


def _bundle_source(spec: str) -> tuple[Path, str | None] | None:
    """(folder or zip, entry given after it or None) when `spec` names a bot's folder or zip, else None."""
    where, _, entry = spec.partition(":")
    path = Path(where)
    try:  # a word that happens to name a folder here is a bot's name, unless it is written as a path
        folder = path.is_dir() and ("/" in where or (path / MANIFEST).is_file() or bool(entry))
        if not (folder or path.suffix.lower() == ".zip"):
            return None
    except (OSError, ValueError):
        return None
    if not path.exists():
        raise BotError(f"no bot zip {where}")
    return path, entry or None


def _staged_bundle(league: Path, source: Path, entry: str | None, limits: ArchiveLimits) -> tuple[Path, str]:
    """The bot's folder copied (or its zip unpacked) beside the frozen bots, with the entry given on the command line
    written into its bot.toml; and its kind, "package" or "command"."""
    staged = _bots_dir(league) / f".staged-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    if source.is_dir():
        copy_folder(source, staged, limits)
    else:
        unpack(source, staged, limits)
    try:
        manifest = staged / MANIFEST
        if entry is not None:
            if manifest.exists():
                raise LeagueError(f"{source}: has a {MANIFEST} already; leave the class out after it")
            manifest.write_text(f"entry = {json.dumps(entry)}\n")
        elif not manifest.is_file():
            raise LeagueError(f"{source}: no {MANIFEST} at its root; add one (entry = \"module:Class\" or "
                              "command = \"...\"), or give the class after it: SPEC:module:Class")
        return staged, "command" if read_manifest(staged).command is not None else "package"
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise


def _source(spec: str) -> tuple[str, Path, str, str]:
    """(kind, file, class name, bundled name) of a spec: a bot name or `path/file.py:Class`."""
    if spec.startswith("command:"):
        raise LeagueError(f"{spec}: a league freezes a command bot as a folder or zip whose {MANIFEST} says "
                          "command = \"...\" (docs/writing-a-bot.md)")
    if ":" not in spec:
        from arena.submit import known_bots

        found = known_bots().get(spec)
        if found is None:
            raise BotError(f"unknown bot {spec!r} (see `arena bots`, or give path/file.py:Class)")
        spec_file = found
    else:
        spec_file = spec
    file_text, _, class_name = spec_file.rpartition(":")
    if not file_text.endswith(".py"):
        raise LeagueError(f"{spec}: a league freezes a bot's file: give path/file.py:Class")
    file = Path(file_text)
    if not file.is_file():
        raise BotError(f"no bot file {file_text}")
    if file.resolve().parent == BUNDLED_DIR:
        from arena.bots import load_spec

        return "bundled", file.resolve(), class_name, load_spec(f"{file.resolve()}:{class_name}").name
    return "file", file, class_name, ""
