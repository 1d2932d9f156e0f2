"""Bots made available by name with `arena submit`, kept in a small JSON file."""

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
    write_atomic(registry_path(), json.dumps(data, indent=2, sort_keys=True).encode())
