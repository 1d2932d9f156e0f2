"""Bots that a command of arena's own plays (`arena play`, `arena replay`): arena's bundled bots in its process,
every other Python bot in a host process of its own (arena/isolation/), as `isolation = "process"` runs it in a
tournament, and a command in its sandbox. A user's code then never runs in the command's process: each call into
it is a message with a deadline (the move and setup time limits), and a bot that hangs, defeats the move clock or
dies is that bot's forfeit, never the command's."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from arena.bots import BotError, load_bot_class
from arena.bots.listing import is_bundled
from arena.bots.sources import resolve
from arena.isolation.clock import WALL_BACKSTOP


def seat_class(spec: str, move_time_limit: float | None, setup_time_limit: float | None,
               wall_backstop: float = WALL_BACKSTOP) -> type:
    """The class that plays the bot `spec` (any form, arena/bots/sources.py) in a game refereed here with these time
    limits: a bundled bot's own class, a command's process in its sandbox, any other bot's stand-in for its host
    process (started now: its name and games come from its hello). Raises BotError for a bot that cannot be found,
    loaded or built within `setup_time_limit`."""
    from arena.isolation import BotProcessError, SetupTimeout, process_bot_class, python_command

    source = resolve(spec)
    if source.bundled:
        return load_bot_class(source.entry)  # arena's own code
    command = python_command(source.entry) if source.python else source.command
    try:
        return process_bot_class(command, name=source.name, move_time_limit=move_time_limit,
                                 setup_time_limit=setup_time_limit, wall_backstop=wall_backstop,
                                 sandboxed=not source.python, strict=True, folder=source.folder)
    except SetupTimeout:
        raise BotError(f"bot {spec} could not be built within setup_time_limit = {setup_time_limit:g}s") from None
    except BotProcessError as error:
        text = str(error).removeprefix("BotError: ")
        raise BotError(text if spec in text else f"bot {spec}: {text}") from None


def hosted_entries(entries: Sequence[Any]) -> tuple:
    """A config's `[[bots]]` entries, each that plays in the worker's process (`isolation = "none"`) and is not
    arena's own moved to a host process of its own (`isolation = "process"`, default limits): a replay then runs
    no user's code in its process, and plays each game as the run did (the host is seeded as in process)."""
    from arena.isolation import DEFAULT_MEMORY_MB

    return tuple(dataclasses.replace(entry, isolation="process", memory_mb=DEFAULT_MEMORY_MB)
                 if entry.isolation == "none" and not is_bundled(entry.spec) else entry for entry in entries)
