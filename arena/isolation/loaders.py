"""Bots loaded as processes: the Python bots of a config checked in hosts of their own, a `[[bots]]` entry's
process bot class, the loader of `command: CMD` specs and the hosts the listing asks (both named in arena.bots'
tables, `arena.bots.implementation`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.bots import BotError
from arena.bots.listing import is_own_class
from arena.config.models import BotEntry, ConfigError
from arena.isolation import sandbox
from arena.isolation.clock import WALL_BACKSTOP, setup_wall
from arena.isolation.process import (
    DEFAULT_MEMORY_MB,
    BotProcess,
    host_env,
    process_bot_class,
    python_command,
)
from arena.isolation.protocol import BotProcessError, SetupTimeout


def check_bots(bots: Sequence[tuple[str, dict, bool]], setup_time_limit: float | None,
               wall_backstop: float = WALL_BACKSTOP) -> list:
    """Each Python bot `(spec, params, sandboxed)` imported and built in a host process of its own (in the sandbox
    if sandboxed), never in this one: its hello answer ({"name", "games", "spec"}), or the BotProcessError (a
    SetupTimeout when it took longer than `setup_time_limit` of CPU time, or `wall_backstop` times that in wall
    time). The hosts start together; each is closed once it has answered. Arena's own bundled bots are the
    exception: their code is arena's, so the built-in host's answer is asked here, without a process."""
    own = [is_own_class(spec) for spec, _, _ in bots]
    hosted = iter(check_commands([(python_command(spec), params, sandboxed)
                                  for (spec, params, sandboxed), here in zip(bots, own, strict=True) if not here],
                                 setup_time_limit, wall_backstop))
    return [_hello_here(spec, params) if here else next(hosted)
            for (spec, params, _), here in zip(bots, own, strict=True)]


def _hello_here(spec: str, params: dict) -> dict | BotProcessError:
    """The built-in host's hello answer for arena's own bot `spec`, asked in this process."""
    import json

    from arena.isolation.host import Host
    from arena.isolation.protocol import error_text

    answer = Host(spec).reply(json.dumps({"type": "hello", "params": params}))
    return BotProcessError(error_text(answer["error"])) if "error" in answer else answer


def check_commands(commands: Sequence[tuple[Sequence[str], dict, bool]], setup_time_limit: float | None,
                   wall_backstop: float = WALL_BACKSTOP) -> list:
    """`check_bots` for bot processes given by their commands `(command, params, sandboxed)`: the built-in host's
    (`python_command`), timed by `setup_time_limit` once it is ready, or any other, whose start-up and hello
    together have HELLO_TIMEOUT."""
    started: list = []
    for command, _, sandboxed, *folder in commands:  # a command bot's own folder, where it runs
        try:
            started.append(BotProcess(command, DEFAULT_MEMORY_MB, None, host_env(), sandboxed, *folder))
        except BotProcessError as error:
            started.append(error)
    answers = []
    try:
        for process, (_, params, *_) in zip(started, commands, strict=True):
            if isinstance(process, BotProcessError):
                answers.append(process)
                continue
            try:
                answers.append(process.handshake(params, setup_time_limit, wall_backstop))
            except BotProcessError as error:
                answers.append(error)
    finally:
        for process in started:
            if isinstance(process, BotProcess):
                process.close()
    return answers


def tell_sources(sources: Sequence[Any], setup_time_limit: float | None) -> list:
    """Each bot source's hello (arena/bots/sources.py), asked in a process of its own: a Python class in the
    built-in host, a command in its sandbox and its own folder; or its BotProcessError."""
    return check_commands([(python_command(s.entry), {}, False) if s.python else (s.command, {}, True, s.folder)
                           for s in sources], setup_time_limit)


def entry_bot_class(entry: Any, move_time_limit: float | None = None, setup_time_limit: float | None = None,
                    strict: bool = False, wall_backstop: float = WALL_BACKSTOP) -> type:
    """The process bot class of a config `[[bots]]` entry (its `command`, or its Python class in the host), in the
    sandbox for `isolation = "sandbox"`."""
    command = entry.command or python_command(entry.spec)
    return process_bot_class(command, name=entry.name, params=entry.params, memory_mb=entry.memory_mb,
                             cpu_seconds=entry.cpu_seconds, move_time_limit=move_time_limit,
                             setup_time_limit=setup_time_limit, wall_backstop=wall_backstop,
                             sandboxed=entry.isolation == "sandbox",
                             strict=strict, folder=entry.folder)


def load_command_spec(spec: str) -> type:
    """`load_bot_class` for a `command: CMD` spec: a bot that is an executable (docs/protocol.md), sandboxed."""
    import shlex

    try:
        return process_bot_class(shlex.split(spec.removeprefix("command:")), sandboxed=True)
    except (BotProcessError, ValueError, OSError) as error:
        raise BotError(f"bot command {spec.removeprefix('command:').strip()!r}: {error}") from None


def ask_hosts(specs: Sequence[str], time_limit: float) -> list:
    """Each spec's hello (a `command:` in its sandbox, a Python class in the built-in host), or its BotProcessError."""
    import shlex

    return check_commands([(shlex.split(spec.removeprefix("command:")), {}, True) if spec.startswith("command:")
                           else (python_command(spec), {}, False) for spec in specs], time_limit)


_checked: dict[tuple, dict] = {}
"""What checking a Python bot found (its hello: name, games, spec), by what was checked: a config read again
in this process does not start its bots' processes again."""


def checked_bots(bots: tuple[BotEntry, ...], setup_time_limit: float, wall_backstop: float = WALL_BACKSTOP
                 ) -> tuple[BotEntry, ...]:
    """The bot entries with their games (and their specs resolved), as each bot tells in its own process.

    This process never runs a user's bot's code: a Python bot is imported and built with its params in a host
    process (arena's own bundled bots here, `check_bots`), which must answer within the setup time limit (of its CPU
    time, and `wall_backstop` times that of wall time); a command bot answers hello. A sandboxed bot where no sandbox
    can be made is refused first. A config's reading asks this (arena.config.bot_entries.BOT_CHECKS), raising
    ConfigError with the field."""
    import dataclasses
    import json

    for i, entry in enumerate(bots):
        if entry.isolation == "sandbox":
            try:
                sandbox.check()
            except sandbox.SandboxUnavailable as error:
                raise ConfigError(f"bots[{i}].{error}") from None
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
