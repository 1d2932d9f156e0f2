"""Bots made available by name with `arena submit`, kept in a small JSON file: each name with its `BotSource`, the
value that one resolution of its spec gave (arena/bots/sources.py), which finds the bot from any folder (absolute
paths: the author's edits play at once, as with an editable install; a run pins the code it played by hash in its
manifest, and a league freezes its own copies)."""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import asdict, dataclass
from pathlib import Path

from arena.atomic import write_atomic

FORMS = ("bundled", "installed", "file", "package", "command", "program")
"""Every form of bot, as `BotSource.form` names it."""


@dataclass(frozen=True)
class BotSource:
    """A bot as one resolution finds it: what it is, where its code is, how it starts, and the hash of its code."""

    form: str
    """One of FORMS."""
    spec: str
    """The spec as it was given (a registered name: the spec it was registered from)."""
    name: str | None = None
    """The bot's name, when known without running it (its source says it, or it was registered); else None."""
    games: tuple[str, ...] | None = None
    """The games it plays (None: any game, or not known while `name` is None)."""
    root: str | None = None
    """The absolute file or folder that holds its code, bound read-only into its sandbox (None: arena's own)."""
    entry: str | None = None
    """How a Python bot starts: `/abs/file.py:Class`, `module:Class` or `/abs/folder:module:Class` (the built-in
    host's spec); None for a command."""
    command: tuple[str, ...] | None = None
    """How a command starts: its program and arguments, files made absolute; None for a Python bot."""
    sha256: str | None = None
    """SHA-256 of its whole code: a file's bytes, a folder's tree (`tree_hash`); None for arena's own code."""

    @property
    def folder(self) -> str | None:
        """The folder a command bot runs in (its own), else None."""
        return self.root if self.form == "command" else None

    @property
    def told(self) -> bool:
        """True when its name and games are known without asking the bot."""
        return self.name is not None

    @property
    def python(self) -> bool:
        """True for a Python class (run in process or in the built-in host), False for a command."""
        return self.entry is not None

    @property
    def bundled(self) -> bool:
        """True for arena's own code (a bundled bot, an installed entry point's or `openspiel:`'s): pinned by
        arena's version, never by a hash."""
        return self.form in ("bundled", "installed") and self.sha256 is None

    def start(self) -> str:
        """The spec that starts it in any process, from any folder: its entry, or `command: ...`."""
        return self.entry if self.entry is not None else "command: " + shlex.join(self.command or ())

    def to_json(self) -> dict:
        """The registry's record of it."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_json(cls, data: dict) -> BotSource:
        """A registry's record read back (an older arena's, a bare spec string, as what it starts)."""
        if isinstance(data, str):
            if data.startswith("command:"):
                return cls("program", data, command=tuple(shlex.split(data.removeprefix("command:"))))
            return cls("file" if ".py:" in data else "installed", data, entry=data)
        fields = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**fields)



def arena_home() -> Path:
    """arena's own folder of the user: $ARENA_HOME, default ~/.arena."""
    return Path(os.environ.get("ARENA_HOME", Path.home() / ".arena"))


def registry_path() -> Path:
    """Where registered bots are kept: $ARENA_HOME/registry.json."""
    return arena_home() / "registry.json"


def load_registry() -> dict[str, BotSource]:
    """Registered bots: name -> its source."""
    path = registry_path()
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    found = {}
    for name, record in data.items():
        try:
            found[str(name)] = BotSource.from_json(record)
        except (TypeError, ValueError):
            continue  # a record this arena cannot read: left for `arena bots --forget`
    return found


def register(name: str, source: BotSource) -> None:
    """Makes the bot `name` available by name."""
    data = load_registry()
    data[name] = source
    _save(data)


def unregister(name: str) -> BotSource | None:
    """Takes `name` out of the registry; its source, or None when it was not registered."""
    data = load_registry()
    source = data.pop(name, None)
    if source is not None:
        _save(data)
    return source


def _save(data: dict[str, BotSource]) -> None:
    write_atomic(registry_path(), json.dumps({k: v.to_json() for k, v in data.items()}, indent=2,
                                             sort_keys=True).encode())
