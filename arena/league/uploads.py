"""Bots that entrants upload to a served league: the checks an upload passes before anything is written (its form,
its size, its entrant's rights and limits), storing it, and its record until a worker's verdict.

Nothing here runs the uploaded code: the server stores the file and records it as `checking`; a worker process
(arena/server/checker.py) checks it as `arena league add` does, in the sandbox, and records the verdict. An upload
refused here leaves the league as it was, byte for byte. A stored upload is written beside its place and renamed
into it (`uploads/<id>/FILE`), then recorded in the same catalog transaction that checked the entrant's rights: a
process killed on the way leaves at most an unrecorded folder, never a record without its file.
"""

from __future__ import annotations

import ast
import hashlib
import re
import secrets
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bots import BotError
from arena.bots.bundles import ArchiveLimits, check_archive, size_text
from arena.bots.listing import read_bytes
from arena.league.catalog import BotRow, Catalog, LeagueError, now
from arena.league.entrants import Forbidden, OverLimit, Owner, Unknown, active_names, entrant_of, owner_of
from arena.league.frozen import check_name
from arena.league.settings import UploadLimits

FOLDER = "uploads"
FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_+-]{0,63}\.(py|zip)")
"""An uploaded file's name: .py or .zip, of the letters a bot's name may have but the dot (`my-first.zip`, as `arena
league add` takes it; a .py's name is its module's), no folder."""
CLASS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
ENTRY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,99}:[A-Za-z_][A-Za-z0-9_]{0,99}")
"""A zip's entry given in the form's `class` when it has no bot.toml: module:Class."""
HOUR = 3600.0


class BadUpload(LeagueError):
    """An upload whose form is wrong: no file, a file name or class name that cannot be, a bad bot name."""


class TooLarge(LeagueError):
    """An upload over the league's size limits."""


@dataclass(frozen=True)
class Upload:
    """One upload's record."""

    id: str
    entrant: str
    file: str
    """uploads/<id>/FILE, relative to the league."""
    class_name: str | None
    name: str | None
    status: str
    """"checking", "accepted" or "refused"."""
    label: str | None
    reason: str | None
    created: float
    """When it arrived (seconds since the epoch)."""


def authenticate(league: Path, token: str) -> str | None:
    """The entrant whose token this is, or None (unknown, wrong or revoked); takes scrypt's time."""
    catalog = Catalog(league)
    try:
        return entrant_of(catalog.db, token)
    finally:
        catalog.close()


@dataclass(frozen=True)
class Held:
    """An upload of code the league holds already for its entrant: nothing is stored or checked again, and nothing
    reinstated."""

    label: str
    status: str
    """The bot's status now: "active" or "retired"."""

    def text(self) -> str:
        """`unchanged: NAME@V (STATUS)`."""
        return f"unchanged: {self.label} ({self.status})"


def check_form(filename: str, size: int, class_name: str | None, name: str | None, limits: UploadLimits) -> None:
    """The checks of an upload's form, before anything is written: BadUpload or TooLarge with one line."""
    if not FILE_NAME.fullmatch(filename):
        raise BadUpload(f"{filename[:80]!r}: the file must be a .py or a .zip, named with letters, digits and "
                        "- _ + (no folder)")
    if size > limits.largest(filename):
        kind = filename.rsplit(".", 1)[1]
        raise TooLarge(f"the file is {size_text(size)}; a .{kind} may be {size_text(limits.largest(filename))} "
                       "at most here")
    if class_name is not None and not (ENTRY if filename.endswith(".zip") else CLASS_NAME).fullmatch(class_name):
        raise BadUpload("class: a Python class name (for a zip: module:Class)")
    if name is not None:
        try:
            check_name(name)
        except LeagueError as error:
            raise BadUpload(str(error)) from None


def check_contents(path: Path, limits: UploadLimits) -> None:
    """The checks of a stored file's contents, before it is recorded: BadUpload or TooLarge with one line. A zip is
    checked from its directory, never unpacked here (arena/bots/bundles.py): first what it holds (no absolute
    path, no `..`, no symlink or device: 400), then how much (entries and unpacked bytes: 413, a zip bomb)."""
    if path.suffix != ".zip":
        return
    try:
        check_archive(path, ArchiveLimits(files=sys.maxsize, unpacked=sys.maxsize))
    except BotError as error:
        raise BadUpload(str(error)) from None
    try:
        check_archive(path, limits.archive())
    except BotError as error:
        raise TooLarge(str(error)) from None


def store_upload(league: Path, entrant: str, filename: str, data: bytes, class_name: str | None, name: str | None,
                 limits: UploadLimits) -> str | Held:
    """Stores an upload and records it as `checking` (see the module's docstring); returns its id, or `Held` for code
    the league holds already for this entrant (nothing written). The cheap refusals come first, before anything is
    written or unpacked: entries closed (EntriesClosed, a Forbidden), the form (BadUpload, TooLarge), too many uploads
    an hour or active bots (OverLimit), another's bot name or a league that plays outside the sandbox (Forbidden);
    then what a zip holds (read from its directory)."""
    from arena.league import load_settings
    from arena.league.season import check_open

    if load_settings(league).isolation != "sandbox":
        raise Forbidden("this league takes no uploads: it plays its bots outside the sandbox "
                        "([league] isolation is not \"sandbox\")")
    check_open(league)
    check_form(filename, len(data), class_name, name, limits)
    digest = hashlib.sha256(data).hexdigest()
    catalog = Catalog(league)
    staged = None
    try:
        with catalog.transaction() as db:
            held = _held(db, entrant, digest, class_name, name)
            if held is not None:
                return held
            _within_limits(db, entrant, name or _told_name(filename, data, class_name), limits)
            folder = Path(league) / FOLDER
            folder.mkdir(exist_ok=True)
            staged = Path(tempfile.mkdtemp(prefix=".staged-", dir=folder))
            (staged / filename).write_bytes(data)
            check_contents(staged / filename, limits)
            upload_id = secrets.token_hex(8)
            staged.rename(folder / upload_id)
            staged = None
            db.execute(f"INSERT INTO uploads ({COLUMNS}, sha256) VALUES (?, ?, ?, ?, ?, 'checking', NULL, NULL, ?, ?)",
                       (upload_id, entrant, f"{FOLDER}/{upload_id}/{filename}", class_name, name, time.time(), digest))
        return upload_id
    finally:
        if staged is not None:
            shutil.rmtree(staged, ignore_errors=True)
            _remove_if_empty(Path(league) / FOLDER)
        catalog.close()


def _held(db: sqlite3.Connection, entrant: str, digest: str, class_name: str | None, name: str | None) -> Held | None:
    """The bot an earlier upload of these very bytes (with this class, under this name if one is given) became, if
    any: the same code, which the checker would find unchanged."""
    rows = db.execute("SELECT u.label, b.status FROM uploads u JOIN bots b ON b.label = u.label WHERE u.entrant = ? "
                      "AND u.sha256 = ? AND u.status IN ('accepted', 'unchanged') AND coalesce(u.class, '') = ? "
                      "ORDER BY u.created", (entrant, digest, class_name or "")).fetchall()
    found = [(label, status) for label, status in rows if name is None or label.partition("@")[0] == name]
    return Held(*found[0]) if found else None


def _told_name(filename: str, data: bytes, class_name: str | None) -> str | None:
    """The bot's name as a Python file's source tells it (read, never run), or None: what an upload that names no
    bot would be called, so that the quota of active bots is checked before it is."""
    if not filename.endswith(".py"):
        return None
    try:
        listed, _ = read_bytes(data, Path(filename)).discovered()
    except BotError:
        return None
    found = [bot for bot in listed if class_name is None or bot.spec.rpartition(":")[2] == class_name]
    return found[0].name if len(found) == 1 else None


def _within_limits(db: sqlite3.Connection, entrant: str, name: str | None, limits: UploadLimits) -> None:
    """Too many uploads this hour, the name another's, or one active bot too many (when the upload's name is not
    known before it is checked: a new bot unless it is one of theirs), as OverLimit or Forbidden."""
    (recent,) = db.execute("SELECT count(*) FROM uploads WHERE entrant = ? AND created > ?",
                           (entrant, time.time() - HOUR)).fetchone()
    if recent >= limits.uploads_per_hour:
        raise OverLimit(f"{recent} uploads in the last hour, the most an entrant may make here; try again later")
    if name is not None:
        Owner(entrant, limits.active_bots).may_use(db, name)
        return
    active = sorted(active_names(db, entrant))
    if len(active) >= limits.active_bots:
        raise OverLimit(f"{len(active)} active bots already ({', '.join(active)}), the most an entrant may have here; "
                        "retire one first, or give the name of yours this is a new version of")


def _remove_if_empty(folder: Path) -> None:
    """`uploads/` made for a refused first upload goes again: a refusal leaves the league as it was."""
    try:
        folder.rmdir()
    except OSError:
        pass


def _row(row: tuple) -> Upload:
    return Upload(*row)


COLUMNS = "id, entrant, file, class, name, status, label, reason, created"


def find_upload(league: Path, upload_id: str) -> Upload:
    """The upload of this id; Unknown if there is none."""
    catalog = Catalog(league)
    try:
        row = catalog.db.execute(f"SELECT {COLUMNS} FROM uploads WHERE id = ?", (upload_id,)).fetchone()
    finally:
        catalog.close()
    if row is None:
        raise Unknown(f"no upload {upload_id!r} in this league")
    return _row(row)


def pending_uploads(league: Path) -> list[Upload]:
    """The uploads still `checking`, oldest first (those a killed worker left are among them)."""
    catalog = Catalog(league)
    try:
        rows = catalog.db.execute(f"SELECT {COLUMNS} FROM uploads WHERE status = 'checking' ORDER BY created, rowid")
        return [_row(row) for row in rows]
    finally:
        catalog.close()


def owned_uploads(league: Path, entrant: str, name: str) -> list[Upload] | None:
    """The entrant's uploads of their bot `name`, newest first; None when the name is not theirs."""
    catalog = Catalog(league)
    try:
        if owner_of(catalog.db, name) != entrant:
            return None
        rows = catalog.db.execute(f"SELECT {COLUMNS} FROM uploads WHERE entrant = ? AND (name = ? OR label = ? OR "
                                  "label LIKE ?) ORDER BY created DESC, rowid DESC", (entrant, name, name, f"{name}@%"))
        return [_row(row) for row in rows]
    finally:
        catalog.close()


def entrant_bots(league: Path, entrant: str, uploads: int = 10) -> tuple[list[BotRow], list[Upload]]:
    """The entrant's bots, every version in the order added, and their last `uploads` uploads, newest first."""
    catalog = Catalog(league)
    try:
        with catalog.snapshot() as db:
            owned = {name for (name,) in db.execute("SELECT bot_name FROM owners WHERE entrant = ?", (entrant,))}
            bots = [b for b in catalog.bots() if b.name in owned]
            rows = db.execute(f"SELECT {COLUMNS} FROM uploads WHERE entrant = ? ORDER BY created DESC, rowid DESC "
                              "LIMIT ?", (entrant, uploads)).fetchall()
        return bots, [_row(row) for row in rows]
    finally:
        catalog.close()


def record_verdict(league: Path, upload_id: str, label: str | None, reason: str | None,
                   status: str | None = None) -> None:
    """Records the checker's verdict: accepted as `label`, refused for `reason`, or `status` "unchanged" (the league
    held the code already, as `label`). The file of an upload refused or unchanged goes: the league keeps no copy of
    code it did not take."""
    status = status or ("accepted" if label is not None else "refused")
    catalog = Catalog(league)
    try:
        with catalog.transaction() as db:
            db.execute("UPDATE uploads SET status = ?, label = ?, reason = ?, finished = ? WHERE id = ?",
                       (status, label, reason, now(), upload_id))
    finally:
        catalog.close()
    if status != "accepted" and re.fullmatch(r"[0-9a-f]{16}", upload_id):
        shutil.rmtree(Path(league) / FOLDER / upload_id, ignore_errors=True)
        _remove_if_empty(Path(league) / FOLDER)


def entry_class(path: Path) -> str:
    """The bot class of an uploaded Python file that names none: its one top-level class whose bases name a Bot,
    found by parsing the file (never running it); BadUpload when there is not exactly one."""
    try:
        tree = ast.parse(path.read_bytes(), path.name)
    except (SyntaxError, ValueError) as error:
        raise BadUpload(f"{path.name}: not Python: {error}".splitlines()[0]) from None
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    bots = [c.name for c in classes if any("Bot" in ast.unparse(base) for base in c.bases)] or \
        [c.name for c in classes]
    if len(bots) != 1:
        raise BadUpload(f"{path.name}: name the bot's class with the form's `class` "
                        f"(classes: {', '.join(bots) or 'none'})")
    return bots[0]
