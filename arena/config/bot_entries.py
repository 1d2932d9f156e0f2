"""A config's `[[bots]]` entries: each parsed and checked (its file, its command, its isolation). The bots' own
answers are asked in processes of their own by arena/isolation/ (`BOT_CHECKS`): this package reads and runs no bot."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from arena.bots import BotError, load_bot_class, sources
from arena.bots.registry import BotSource
from arena.bots.sources import resolve
from arena.config.models import (
    DEFAULT_MEMORY_MB,
    BotEntry,
    ConfigError,
    check_keys,
    checked_integer,
    checked_number,
    checked_string,
    checked_table,
)

BOT_CHECKS = "arena.isolation.loaders:checked_bots"
"""What gives a config's bot entries their games, each asked in a process of its own (a Python bot's host answers
hello, a command bot too), and refuses a bot that cannot start, build or answer within the setup time limit; named,
not imported, as arena.bots names its spec loaders (`arena.bots.implementation` says why): it runs bots, which this
package, read by every layer above it, never does."""


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
    itself is never in a config: `api_key_env` names the environment variable that holds it. Its seat's class is
    loaded as every `llm:` spec is (arena/llm/seat.py), which checks the model, the URL (by default the seat's own)
    and the params without asking the model anything."""
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
    url = checked_string(table["url"], where + "llm.url") if "url" in table else ""
    params = {key: value for key, value in table.items() if key not in ("model", "url")}
    try:
        seat = load_bot_class(f"llm:{model}@{url}")
        seat(**params)
    except (BotError, TypeError) as error:
        raise ConfigError(f"{where}llm: {error}") from None
    return BotEntry(name, None, params, f"llm:{model}@{seat.url}")


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


def _process_bot_entry(raw: dict, where: str, name: str, path: str | None, params: dict, isolation: str,
                       source: BotSource) -> BotEntry:
    """A bot that plays in its own process (sandboxed or not): a command (in its own folder, for a command bot's
    folder), or a Python class run by the built-in host (checked like any Python bot, in a host process)."""
    memory_mb = checked_integer(raw.get("memory_mb", DEFAULT_MEMORY_MB), where + "memory_mb", 0) or None
    cpu_seconds = checked_number(raw["cpu_seconds"], where + "cpu_seconds") if "cpu_seconds" in raw else None
    return BotEntry(name, path, params, worker_spec(source), isolation, source.command, memory_mb, cpu_seconds,
                    folder=source.folder)
