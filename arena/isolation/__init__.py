"""Process isolation: a bot that runs in its own subprocess and speaks JSON lines (docs/protocol.md).

Any executable can be a bot. On the arena side a process bot is a class usable exactly like a bot
class (`process_bot_class`): its instances forward `reset` and `act` to a long-lived process, one per
bot per worker process, replaced after any fault so one bad game does not forfeit the next. A
Python bot class runs behind the same protocol in the built-in host, `python -m arena.isolation SPEC`.

What a process bot gets wrong becomes the referee's usual forfeit: an answer that is not a move of
the game, or a line that is not a JSON object, is an illegal move; a process that exits, is killed
(memory or CPU limit) or answers `{"error": ...}` is a crash (`BotProcessError`); no answer within the
move time limit, or to hello or reset within the setup time limit, is a timeout (`MoveTimeout`, and the
process is killed).

Every wait on a bot process has a deadline. The built-in host first says it is ready (arena's own start-up,
HELLO_TIMEOUT), then loads and builds the bot for its hello answer within the setup time limit; a command
bot's start-up and hello together get HELLO_TIMEOUT; each reset (the host builds a fresh bot for it) gets the
setup time limit, each move the move time limit; closing waits at most half a second before a kill.

A sandboxed process bot (`isolation = "sandbox"`, and `command:` specs) runs its command inside the sandbox of
arena/isolation/sandbox.py; where none can be made, it never starts (BotProcessError).

The package's modules: `protocol` (the JSON lines, both sides), `limits` (the operating system's limits on a
bot process), `stderr` (what a bot writes on stderr: its last lines kept, the rest logged), `process` (the arena
side: running processes and the class that stands for one), `loaders` (bots loaded as processes, and the
`command:` spec loader), `host` (the bot side) and `supervisor` (arena's own children: a server's
long-lived ones kept running, and a page's replays done under a deadline).
"""

import importlib

_HOME = {
    **dict.fromkeys(["Host", "main"], "host"),
    **dict.fromkeys(["STDERR_ENV"], "limits"),
    **dict.fromkeys(["check_bots", "check_commands", "entry_bot_class", "tell_sources"], "loaders"),
    **dict.fromkeys(["DEFAULT_MEMORY_MB", "HELLO_TIMEOUT", "RESET_TIMEOUT", "BotProcess", "ProcessBot", "close_all",
                     "host_env", "is_host", "process_bot_class", "python_command", "running_processes"], "process"),
    **dict.fromkeys(["MAX_LINE", "PROTOCOL", "BadAnswer", "BotProcessError", "NoAnswer", "ProtocolError",
                     "SetupTimeout", "decode_answer", "move_from_answer", "observation_from_json"], "protocol"),
}
"""The module of each name the package exports. The names load on first use (PEP 562's module `__getattr__`): every
bot's host process (`python -m arena.isolation`) imports this package before its host, and with every module
imported here it started in 0.13 CPU-s, not 0.07."""
__all__ = list(_HOME)


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
