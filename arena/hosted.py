"""Bots that a command of arena's own plays (`arena play`, `arena replay`): arena's bundled bots in its process,
every other Python bot in a host process of its own (arena/isolation/), as `isolation = "process"` runs it in a
tournament. A user's code then never runs in the command's process: each call into it is a message with a
deadline (the move and setup time limits), and a bot that hangs, defeats the move clock or dies is that bot's
forfeit, never the command's."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.bots import SPEC_LOADERS, BotError, load_bot_class
from arena.clock import WALL_BACKSTOP
from arena.listing import is_bundled, listed_bots


def seat_class(spec: str, move_time_limit: float | None, setup_time_limit: float | None,
               wall_backstop: float = WALL_BACKSTOP) -> type:
    """The class that plays the bot `spec` (a name, `file.py:Class`, `module:Class`, `command: ...`) in a game
    refereed here with these time limits: a bundled bot's own class, a `command:` bot's process, any other bot's
    stand-in for its host process (started now: its name and games come from its hello). Raises BotError for a
    bot that cannot be found, loaded or built within `setup_time_limit`."""
    if ":" not in spec:  # a name, found from the bots' sources: none of their files runs here
        bots = listed_bots()
        if spec not in bots:
            raise BotError(f"unknown bot {spec!r} (bots: {', '.join(sorted(bots))})")
        spec = bots[spec].spec
    if is_bundled(spec) or any(spec.startswith(prefix) for prefix in SPEC_LOADERS):
        return load_bot_class(spec)  # arena's own code, or a command bot (a process in its sandbox already)
    from arena.isolation import BotProcessError, SetupTimeout, process_bot_class, python_command

    where, _, class_name = spec.rpartition(":")
    if ".py" in where:
        if not Path(where).is_file():
            raise BotError(f"no bot file {where}")
        spec = f"{Path(where).resolve()}:{class_name}"
    try:
        return process_bot_class(python_command(spec), move_time_limit=move_time_limit,
                                 setup_time_limit=setup_time_limit, wall_backstop=wall_backstop, strict=True)
    except SetupTimeout:
        raise BotError(f"bot {spec} could not be built within setup_time_limit = {setup_time_limit:g}s") from None
    except BotProcessError as error:
        text = str(error).removeprefix("BotError: ")
        raise BotError(text if spec.rpartition(":")[0] in text else f"bot {spec}: {text}") from None


def hosted_entries(entries: Sequence[Any]) -> tuple:
    """A config's `[[bots]]` entries, each that plays in the worker's process (`isolation = "none"`) and is not
    arena's own moved to a host process of its own (`isolation = "process"`, default limits): a replay then runs
    no user's code in its process, and plays each game as the run did (the host is seeded as in process)."""
    from arena.isolation import DEFAULT_MEMORY_MB

    return tuple(dataclasses.replace(entry, isolation="process", memory_mb=DEFAULT_MEMORY_MB)
                 if entry.isolation == "none" and not is_bundled(entry.spec) else entry for entry in entries)
