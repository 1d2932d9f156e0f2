"""A config's `[[bots]]` entries: each parsed and checked (its file, its command, its isolation), and the
Python bots of a config checked in hosts of their own before a run."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.bots import MANIFEST, BotError, read_manifest
from arena.clock import WALL_BACKSTOP
from arena.config.models import (
    BotEntry,
    ConfigError,
    check_keys,
    checked_integer,
    checked_number,
    checked_string,
    checked_table,
)


def bot_entry(raw: dict, where: str, folders: tuple[Path, ...]) -> BotEntry:
    """One `[[bots]]` entry checked and made a BotEntry; `where` prefixes its errors."""
    check_keys(raw, {"name", "path", "params", "isolation", "command", "memory_mb", "cpu_seconds"}, where)
    if "name" not in raw:
        raise ConfigError(f"{where}name: missing")
    name = checked_string(raw["name"], where + "name")
    path = raw.get("path")
    params = checked_table(raw.get("params", {}), where + "params")
    folder = _bot_folder(path, where, folders)
    isolation = raw.get("isolation", "sandbox" if "command" in raw or folder else "none")
    if isolation not in ("none", "process", "sandbox"):
        raise ConfigError(f'{where}isolation: must be "none", "process" or "sandbox", not {isolation!r}')
    if isolation != "none":
        return _process_bot_entry(raw, where, folders, name, path, params, isolation, folder)
    if "command" in raw or folder:
        what = "a bot with a command" if "command" in raw else "a bot's folder"
        raise ConfigError(f'{where}isolation: {what} always runs in its own process '
                          '(isolation = "sandbox", the default, or "process")')
    for key in ("memory_mb", "cpu_seconds"):
        if key in raw:
            raise ConfigError(f'{where}{key}: applies only to a bot in its own process '
                              '(isolation = "process" or "sandbox")')
    spec = checked_string(path, where + "path") if path is not None else name
    return BotEntry(name, path, params, _file_spec(spec, where, folders) if ".py:" in spec else spec)


def _bot_folder(path: Any, where: str, folders: tuple[Path, ...]) -> Path | None:
    """The folder a `path` names, when it names one (found as a file's path is): it must hold a bot.toml."""
    if not isinstance(path, str) or ":" in path:
        return None
    found = _found(path, folders, _is_dir)
    if found is None:
        return None
    if not (found / MANIFEST).is_file():
        raise ConfigError(f"{where}path: {path} is a folder without a {MANIFEST} (docs/writing-a-bot.md)")
    return found


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _file_spec(spec: str, where: str, folders: tuple[Path, ...]) -> str:
    """A `file.py:Class` spec with its file made absolute (found in the first of `folders` that holds it)."""
    file, _, class_name = spec.rpartition(":")
    local = _found(file, folders, _is_file)
    if local is None:
        raise ConfigError(f"{where}path: no bot file {file}")
    return f"{local}:{class_name}"


def _found(text: str, folders: tuple[Path, ...], exists: Callable[[Path], bool] | None = None) -> Path | None:
    """The absolute path that `text` names in the first of `folders` where `exists` holds (an absolute path as
    it is), or None."""
    exists = exists or _exists
    for folder in folders:
        path = folder / text
        if exists(path):
            return path.resolve()
    return None


def absolute_command(argv: list[str], folders: tuple[Path, ...]) -> list[str]:
    """The command with its program, when written as a path, and each argument that names a file, or a folder when
    written with a `/` (as the sandbox binds them, `names_file`), made absolute: each is looked up in the first of
    `folders` that holds it."""
    argv = list(argv)
    for i, arg in enumerate(argv):
        if i == 0 and "/" not in arg:
            continue  # a program's name is looked up on PATH, as a shell does
        found = _found(arg, folders, _exists if "/" in arg else _is_file)
        if found is not None:
            argv[i] = str(found)
    return argv


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


_checked: dict[tuple, dict] = {}
"""What checking a Python bot found (its hello: name, games, spec), by what was checked: a config read again
in this process does not start its bots' processes again."""


def checked_bots(bots: tuple[BotEntry, ...], setup_time_limit: float, wall_backstop: float = WALL_BACKSTOP
                 ) -> tuple[BotEntry, ...]:
    """The bot entries with their games (and their specs resolved), as each bot tells in its own process.

    This process never runs a bot's code: a Python bot is imported and built with its params in a host
    process (arena/isolation/), which must answer within the setup time limit (of its CPU time, and `wall_backstop`
    times that of wall time); a command bot answers hello."""
    import dataclasses
    import json

    from arena.isolation import BotProcessError, SetupTimeout, check_bots, entry_bot_class

    keys = {i: (entry.spec, json.dumps(entry.params, sort_keys=True, default=repr), setup_time_limit, wall_backstop,
                str(Path.cwd()), _stamp(entry.spec), entry.isolation == "sandbox")
            for i, entry in enumerate(bots) if entry.command is None}
    missing = [i for i, key in keys.items() if key not in _checked]
    checks = [(bots[i].spec, bots[i].params, keys[i][-1]) for i in missing]
    for i, answer in zip(missing, check_bots(checks, setup_time_limit, wall_backstop), strict=True):
        entry, where = bots[i], f"bots[{i}]."
        field_name = "path" if entry.path is not None else "name"
        if isinstance(answer, SetupTimeout):
            waited = f" (waited {setup_time_limit * wall_backstop:g}s of wall time)" if answer.wall else ""
            raise ConfigError(f"{where}{field_name}: bot {entry.name!r} could not be built within "
                              f"setup_time_limit = {setup_time_limit:g}s{waited}")
        if isinstance(answer, BotProcessError):
            text = str(answer).removeprefix("BotError: ")
            raise ConfigError(f"{where}{text}" if text.startswith("params: ") else f"{where}{field_name}: {text}")
        _checked[keys[i]] = answer
    checked = []
    for i, entry in enumerate(bots):
        if entry.command is None:
            hello = _checked[keys[i]]
            games = hello.get("games")
            entry = dataclasses.replace(entry, spec=hello.get("spec") or entry.spec,
                                        plays=None if games is None else tuple(games))
        else:
            try:
                games = entry_bot_class(entry, setup_time_limit=setup_time_limit, strict=True,
                                        wall_backstop=wall_backstop).games
            except BotProcessError as error:
                raise ConfigError(f"bots[{i}].command: {error}") from None
            entry = dataclasses.replace(entry, plays=None if games is None else tuple(sorted(games)))
        checked.append(entry)
    return tuple(checked)


def _stamp(spec: str) -> tuple:
    """When a bot file last changed (size and time): a file changed since it was checked is checked again."""
    file = spec.rpartition(":")[0]
    try:
        info = Path(file).stat() if ".py" in file else None
    except (OSError, ValueError):
        info = None
    return (info.st_size, info.st_mtime_ns) if info is not None else ()


def _process_bot_entry(raw: dict, where: str, folders: tuple[Path, ...], name: str, path: Any, params: dict,
                       isolation: str, folder: Path | None = None) -> BotEntry:
    """A bot that plays in its own process (sandboxed or not): a command, a Python class run by the built-in
    host (checked like any Python bot, in a host process), or a bot's folder (its bot.toml says which of the two;
    its spec is the folder)."""
    from arena.isolation import DEFAULT_MEMORY_MB
    from arena.sandbox import SandboxUnavailable, check

    if isolation == "sandbox":
        try:
            check()
        except SandboxUnavailable as error:
            raise ConfigError(f"{where}{error}") from None

    command = raw.get("command")
    memory_mb = checked_integer(raw.get("memory_mb", DEFAULT_MEMORY_MB), where + "memory_mb", 0) or None
    cpu_seconds = checked_number(raw["cpu_seconds"], where + "cpu_seconds") if "cpu_seconds" in raw else None
    if command is not None:
        if path is not None:
            raise ConfigError(f"{where}command: give a command or a path, not both")
        command = _command(command, where + "command", folders)
        spec = "command: " + shlex.join(command)
    elif folder is not None:
        try:
            manifest = read_manifest(folder)
        except BotError as error:
            raise ConfigError(f"{where}path: {error}") from None
        if manifest.command is not None:
            command = folder_command(manifest.command, folder, f"{where}path: {folder.name}/{MANIFEST}: command")
        spec = str(folder)
    else:
        spec = checked_string(path, where + "path") if path is not None else name
        if ".py:" in spec:
            spec = _file_spec(spec, where, folders)
        elif ":" not in spec and isolation == "sandbox":  # a name: a sandbox sees no registry, so its spec
            from arena.bots import registered_bots

            spec = registered_bots().get(spec, spec)
    return BotEntry(name, path, params, spec, isolation, command, memory_mb, cpu_seconds,
                    folder=None if command is None or folder is None else str(folder))


def folder_command(argv: tuple[str, ...], folder: Path, where: str) -> tuple[str, ...]:
    """A bot folder's command made absolute as a config's is, found in the folder alone (it runs there); a program
    written as a path must be one of the folder's files."""
    command = _command(list(argv), where, (folder,))
    if "/" in argv[0] and not Path(command[0]).is_relative_to(folder):
        raise ConfigError(f"{where}: no program {argv[0]} in {folder.name}/")
    return command


def _command(value: Any, where: str, folders: tuple[Path, ...]) -> tuple[str, ...]:
    """A command line (a string split like a shell's, or an array), its program made absolute: a path
    relative to the cwd or the config's folder (like any argument naming a file there), or a program on
    PATH."""
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as error:
            raise ConfigError(f"{where}: cannot split {value!r}: {error}") from None
    elif isinstance(value, list) and all(isinstance(arg, str) for arg in value):
        argv = list(value)
    else:
        raise ConfigError(f"{where}: must be a string or an array of strings, not {value!r}")
    if not argv or not argv[0].strip():
        raise ConfigError(f"{where}: must name a program, not {value!r}")
    argv = absolute_command(argv, folders)
    program = argv[0]
    if "/" in program:
        found = Path(program).resolve()
        if not found.is_file():
            raise ConfigError(f"{where}: no program {program}")
        if not os.access(found, os.X_OK):
            raise ConfigError(f"{where}: {program} is not executable (chmod +x)")
        argv[0] = str(found)
    elif shutil.which(program) is None:
        raise ConfigError(f"{where}: no program {program!r} on PATH")
    return tuple(argv)


def _exists(path: Path) -> bool:
    """Path.exists, False for a name the system cannot even look up (too long, a NUL byte)."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False
