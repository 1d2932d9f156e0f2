"""Bots made available by name with `arena submit`, kept in a small JSON file: each name with a spec that finds the
bot from any folder (absolute paths: the author's edits play at once, as with an editable install; a run pins the
code it played by hash in its manifest, and a league freezes its own copies)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from arena.atomic import write_atomic


def registry_path() -> Path:
    """Where registered bots are kept: $ARENA_HOME/registry.json (default ~/.arena)."""
    return Path(os.environ.get("ARENA_HOME", Path.home() / ".arena")) / "registry.json"


def load_registry() -> dict[str, str]:
    """Registered bots: name -> spec (a `file.py:Class` path or an entry-point name)."""
    path = registry_path()
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def register(name: str, spec: str) -> None:
    """Makes the bot `name` available by name."""
    data = load_registry()
    data[name] = spec
    _save(data)


def unregister(name: str) -> str | None:
    """Takes `name` out of the registry; its spec, or None when it was not registered."""
    data = load_registry()
    spec = data.pop(name, None)
    if spec is not None:
        _save(data)
    return spec


def _save(data: dict[str, str]) -> None:
    write_atomic(registry_path(), json.dumps(data, indent=2, sort_keys=True).encode())
