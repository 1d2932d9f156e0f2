"""Bots that are more than one file: a zip or a folder, checked before anything of it is written, unpacked with
its bytes counted, and hashed by its content.

A zip is a stranger's: its entries may name paths outside the folder it is unpacked into (`../evil`, `/etc/x`),
be symlinks or devices, be too many, or unpack to far more than they weigh (a zip bomb, whose headers may lie about
its sizes). `check_archive` refuses all of these from the zip's directory alone, before a byte is unpacked, and
`unpack` counts the bytes it actually writes, so a zip whose headers lie still stops at the limit.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from arena.bots import BotError

CHUNK = 1 << 16


@dataclass(frozen=True)
class ArchiveLimits:
    """How much a zip (or a folder) of a bot may hold."""

    files: int = 1000
    """Entries at most (folders included)."""
    unpacked: int = 100 << 20
    """Bytes at most, unpacked, all files together."""


def check_archive(path: Path, limits: ArchiveLimits) -> None:
    """Raises BotError (one line) unless the zip at `path` is readable and every entry is a plain file or
    folder inside it, within `limits` as its directory declares them."""
    with _open(path) as archive:
        _checked_entries(path, archive, limits)


def unpack(path: Path, dest: Path, limits: ArchiveLimits) -> Path:
    """Checks the zip at `path` (`check_archive`) and unpacks it into `dest`, a new folder, counting the bytes
    written: past `limits.unpacked` it stops. Returns `dest`; on any refusal `dest` is removed again."""
    dest = Path(dest)
    with _open(path) as archive:
        entries = _checked_entries(path, archive, limits)
        dest.mkdir()
        try:
            written = 0
            for info in entries:
                target = dest.joinpath(*_parts(info.filename))
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as source, open(target, "xb") as sink:
                    while chunk := source.read(CHUNK):
                        written += len(chunk)
                        if written > limits.unpacked:
                            raise BotError(f"{Path(path).name}: unpacks to more than {size_text(limits.unpacked)} "
                                              "(its headers understate it)")
                        sink.write(chunk)
                target.chmod(0o755 if (info.external_attr >> 16) & 0o111 else 0o644)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError) as error:
            shutil.rmtree(dest, ignore_errors=True)
            raise BotError(f"{Path(path).name}: a damaged zip ({_reason(error)})") from None
        except BaseException:
            shutil.rmtree(dest, ignore_errors=True)
            raise
    return dest


def check_folder(folder: Path, limits: ArchiveLimits) -> list[Path]:
    """The files of a bot's folder, sorted by relative path; raises BotError for a symlink or anything but files
    and folders, or past `limits` (bytecode caches left out: they are made by running, not part of the bot)."""
    folder = Path(folder)
    files, count, total = [], 0, 0
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in [*dirs, *names]:
            path = Path(root) / name
            mode = path.lstat().st_mode
            relative = path.relative_to(folder).as_posix()
            if stat.S_ISLNK(mode):
                raise BotError(f"{folder}: {relative} is a symlink; a bot's folder holds plain files only")
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise BotError(f"{folder}: {relative} is not a plain file; a bot's folder holds plain files only")
            count += 1
            if stat.S_ISREG(mode):
                files.append(path)
                total += path.lstat().st_size
        if count > limits.files:
            raise BotError(f"{folder}: more than {limits.files} files")
        if total > limits.unpacked:
            raise BotError(f"{folder}: more than {size_text(limits.unpacked)}")
    return sorted(files, key=lambda p: p.relative_to(folder).as_posix())


def tree_hash(folder: Path, limits: ArchiveLimits = ArchiveLimits()) -> str:
    """SHA-256 of a folder's content: each file's relative path, whether it is executable, and its bytes' hash, in
    sorted order. Where it came from (a zip or a folder, which zip tool, file times) does not count."""
    sha = hashlib.sha256()
    for path in check_folder(folder, limits):
        digest = hashlib.sha256()
        with open(path, "rb") as file:
            while chunk := file.read(CHUNK):
                digest.update(chunk)
        executable = b"x" if path.stat().st_mode & 0o111 else b"-"
        sha.update(path.relative_to(folder).as_posix().encode() + b"\0" + executable + digest.digest())
    return sha.hexdigest()


def copy_folder(source: Path, dest: Path, limits: ArchiveLimits = ArchiveLimits()) -> Path:
    """Copies a bot's folder (its plain files, `check_folder`) into `dest`, a new folder; returns `dest`."""
    source, dest = Path(source), Path(dest)
    files = check_folder(source, limits)
    dest.mkdir()
    for path in files:
        target = dest / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        target.chmod(0o755 if path.stat().st_mode & 0o111 else 0o644)
    return dest


def _open(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        raise BotError(f"{Path(path).name}: not a readable zip ({_reason(error)})") from None


def _checked_entries(path: Path, archive: zipfile.ZipFile, limits: ArchiveLimits) -> list[zipfile.ZipInfo]:
    where = Path(path).name
    entries = archive.infolist()
    if len(entries) > limits.files:
        raise BotError(f"{where}: {len(entries)} entries, more than {limits.files}")
    seen: set[tuple[str, ...]] = set()
    for info in entries:
        name = info.filename
        if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
            raise BotError(f"{where}: {name!r} is an absolute path")
        parts = _parts(name)
        if ".." in parts:
            raise BotError(f"{where}: {name!r} climbs out of the folder (..)")
        if not parts or "\0" in name:
            raise BotError(f"{where}: an entry without a usable name ({name!r})")
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode)
        if stat.S_ISLNK(mode):
            raise BotError(f"{where}: {name!r} is a symlink; a bot's zip holds plain files only")
        if kind not in (0, stat.S_IFREG, stat.S_IFDIR):  # 0: a zip tool that records no Unix mode
            raise BotError(f"{where}: {name!r} is not a plain file; a bot's zip holds plain files only")
        if parts in seen:
            raise BotError(f"{where}: {name!r} is in it twice")
        seen.add(parts)
    declared = sum(info.file_size for info in entries)
    if declared > limits.unpacked:
        raise BotError(f"{where}: unpacks to {size_text(declared)}, more than {size_text(limits.unpacked)}")
    return entries


def _parts(name: str) -> tuple[str, ...]:
    """An entry's path components (either slash), without empty ones and `.`."""
    return tuple(p for p in name.replace("\\", "/").split("/") if p not in ("", "."))


def size_text(size: int) -> str:
    """A size as people read it: `2.0 MiB`, `1,200 bytes`."""
    return f"{size / (1 << 20):,.1f} MiB" if size >= 1 << 20 else f"{size:,} bytes"


def _reason(error: BaseException) -> str:
    return (str(error) or type(error).__name__).splitlines()[0]
