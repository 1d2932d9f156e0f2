"""A config's `[[bots]]` entries: each parsed and checked (its file, its command, its isolation), and the
Python bots of a config checked in hosts of their own before a run."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from arena.bots import BotError, sources
from arena.bots.registry import BotSource
from arena.bots.sources import resolve
from arena.config.models import (
    BotEntry,
    ConfigError,
    check_keys,
    checked_integer,
    checked_number,
    checked_string,
    checked_table,
)
from arena.isolation.clock import WALL_BACKSTOP, setup_wall


def bot_entry(raw: dict, where: str, folders: tuple[Path, ...]) -> BotEntry:
    """One `[[bots]]` entry checked and made a BotEntry; `where` prefixes its errors. Its `path` (or, without one,
    its `name`), or its `command`, is resolved as every command resolves a spec (arena/bots/sources.py)."""
    check_keys(raw, {"name", "path", "params", "isolation", "command", "memory_mb", "cpu_seconds", "llm"}, where)
    if "name" not in raw:
        raise ConfigError(f"{where}name: missing")
    name = checked_string(raw["name"], where + "name")
    if "llm" in raw:
        return model_entry(raw, where, name)
    path = checked_string(raw["path"], where + "path") if raw.get("path") is not None else None
    params = checked_table(raw.get("params", {}), where + "params")
    if raw.get("isolation", "none") not in ("none", "process", "sandbox"):
        raise ConfigError(f'{where}isolation: must be "none", "process" or "sandbox", not {raw["isolation"]!r}')
    if "command" in raw:
        if path is not None:
            raise ConfigError(f"{where}command: give a command or a path, not both")
        source = program_source(command_argv(raw["command"], where + "command"), folders, where + "command")
    else:
        try:
            source = resolve(path or name, folders)
        except BotError as error:
            raise ConfigError(f"{where}{'path' if path is not None else 'name'}: {error}") from None
    own_process = not source.python or source.form == "package"
    isolation = raw.get("isolation", "sandbox" if own_process else "none")
    if isolation == "none" and own_process:
        what = "a bot with a command" if not source.python else "a bot's folder"
        raise ConfigError(f'{where}isolation: {what} always runs in its own process '
                          '(isolation = "sandbox", the default, or "process")')
    if isolation == "none":
        for key in ("memory_mb", "cpu_seconds"):
            if key in raw:
                raise ConfigError(f'{where}{key}: applies only to a bot in its own process '
                                  '(isolation = "process" or "sandbox")')
        return BotEntry(name, path, params, worker_spec(source))
    return _process_bot_entry(raw, where, name, path, params, isolation, source)


MODEL_KEYS = {"model", "url", "temperature", "max_tokens", "api_key_env", "tries", "move_seconds", "token_budget"}


def model_entry(raw: dict, where: str, name: str) -> BotEntry:
    """A model seat: `llm = { model, url, temperature, max_tokens, api_key_env, tries, move_seconds, token_budget }`
    (arena/llm/seat.py), played in the worker's process as `llm:MODEL@URL` with the rest as its params. The key
    itself is never in a config: `api_key_env` names the environment variable that holds it."""
    from arena.llm.seat import DEFAULT_URL, model_seat_class

    for key in ("path", "command", "params", "memory_mb", "cpu_seconds"):
        if key in raw:
            raise ConfigError(f"{where}{key}: a model seat (llm = {{...}}) takes no {key}")
    if raw.get("isolation", "none") != "none":
        raise ConfigError(f'{where}isolation: a model seat plays in the worker\'s process (it only talks to its '
                          'endpoint); leave isolation out')
    table = checked_table(raw["llm"], where + "llm")
    check_keys(table, MODEL_KEYS, where + "llm.")
    if "model" not in table:
        raise ConfigError(f"{where}llm.model: missing")
    model = checked_string(table["model"], where + "llm.model")
    url = checked_string(table.get("url", DEFAULT_URL), where + "llm.url")
    spec = f"llm:{model}@{url}"
    params = {key: value for key, value in table.items() if key not in ("model", "url")}
    try:
        model_seat_class(spec)(**params)
    except (BotError, TypeError) as error:
        raise ConfigError(f"{where}llm: {error}") from None
    return BotEntry(name, None, params, spec)


def worker_spec(source: BotSource) -> str:
    """The spec a worker starts the bot by: a bundled bot's name as it was given, else how the source starts."""
    return source.spec if source.bundled and source.spec == source.name else source.start()


def command_argv(value: Any, where: str) -> list[str]:
    """A command line: a string split like a shell's, or an array of strings."""
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
    return argv


def program_source(argv: list[str], folders: tuple[Path, ...], where: str) -> BotSource:
    """The source of a config's `command`, as `command: ...` resolves (ConfigError naming the field)."""
    try:
        return sources.program_source(argv, folders, where)
    except BotError as error:
        raise ConfigError(str(error)) from None


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
            for i, entry in enumerate(bots) if entry.command is None and not entry.spec.startswith("llm:")}
    missing = [i for i, key in keys.items() if key not in _checked]
    checks = [(bots[i].spec, bots[i].params, keys[i][-1]) for i in missing]
    for i, answer in zip(missing, check_bots(checks, setup_time_limit, wall_backstop), strict=True):
        entry, where = bots[i], f"bots[{i}]."
        field_name = "path" if entry.path is not None else "name"
        if isinstance(answer, SetupTimeout):
            waited = f" (waited {setup_wall(setup_time_limit, wall_backstop):g}s of wall time)" if answer.wall else ""
            raise ConfigError(f"{where}{field_name}: bot {entry.name!r} could not be built within "
                              f"setup_time_limit = {setup_time_limit:g}s{waited}")
        if isinstance(answer, BotProcessError):
            text = str(answer).removeprefix("BotError: ")
            raise ConfigError(f"{where}{text}" if text.startswith("params: ") else f"{where}{field_name}: {text}")
        _checked[keys[i]] = answer
    checked = []
    for i, entry in enumerate(bots):
        if entry.spec.startswith("llm:"):  # a model seat, checked as its entry was read; it plays any game
            pass
        elif entry.command is None:
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


def _process_bot_entry(raw: dict, where: str, name: str, path: str | None, params: dict, isolation: str,
                       source: BotSource) -> BotEntry:
    """A bot that plays in its own process (sandboxed or not): a command (in its own folder, for a command bot's
    folder), or a Python class run by the built-in host (checked like any Python bot, in a host process)."""
    from arena.isolation import DEFAULT_MEMORY_MB
    from arena.isolation.sandbox import SandboxUnavailable, check

    if isolation == "sandbox":
        try:
            check()
        except SandboxUnavailable as error:
            raise ConfigError(f"{where}{error}") from None
    memory_mb = checked_integer(raw.get("memory_mb", DEFAULT_MEMORY_MB), where + "memory_mb", 0) or None
    cpu_seconds = checked_number(raw["cpu_seconds"], where + "cpu_seconds") if "cpu_seconds" in raw else None
    return BotEntry(name, path, params, worker_spec(source), isolation, source.command, memory_mb, cpu_seconds,
                    folder=source.folder)
