"""Bots entering a league: checked as `arena submit` checks them, their code frozen by content hash, their
versions and their retirement recorded in the catalog.

A file bot's code is copied into `bots/<hash>/` before it is checked, the copy is what is checked and
what plays, and only then one catalog transaction records it: a process killed at any moment leaves
either no record (and at most an unused copy, which the next add of the same code reuses) or the whole
record. A bundled bot is arena's own code: it is recorded by name and arena's version.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from arena.bots import BUNDLED_DIR, BotError
from arena.league.catalog import BotRow, Catalog, LeagueError, now
from arena.league.directory import LeagueDir


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
            move_time_limit: float = 1.0, setup_time_limit: float = 10.0) -> Added:
    """Checks the bot named by `spec` and adds it to the league (see the module's docstring)."""
    from arena.submit import check_bot

    catalog = Catalog(league)
    try:
        if name is not None:
            check_name(name)
        kind, file, class_name, bundled_name = _source(spec)
        if kind == "bundled":
            digest = hashlib.sha256(f"bundled\x1f{bundled_name}\x1f{version('arena')}".encode()).hexdigest()
        else:
            code = file.read_bytes()
            digest = hashlib.sha256(code + b"\x1f" + class_name.encode()).hexdigest()
        same = [b for b in catalog.bots() if b.hash == digest and (name is None or b.name == name)]
        if same:
            return Added(same[0], False)
        staged = None
        if kind == "file":
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
            if kind == "file":
                frozen = _bots_dir(league) / digest
                if frozen.is_dir():  # the same code frozen before (under another name, or by an add cut short)
                    shutil.rmtree(staged)
                else:
                    staged.rename(frozen)
                staged = None
                frozen_spec = f"bots/{digest}/{file.name}:{class_name}"
            else:
                frozen_spec = bundled_name
            with catalog.transaction() as db:
                rows = db.execute("SELECT version, hash, label FROM bots WHERE name = ?", (bot_name,)).fetchall()
                if any(h == digest for _, h, _ in rows):  # added meanwhile by another add
                    return Added(catalog.bot(next(label for _, h, label in rows if h == digest)), False)
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
    finally:
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


def _source(spec: str) -> tuple[str, Path, str, str]:
    """(kind, file, class name, bundled name) of a spec: a bot name or `path/file.py:Class`."""
    if spec.startswith("command:"):
        raise LeagueError(f"{spec}: a league freezes Python bots (a bot name or path/file.py:Class), not commands")
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
