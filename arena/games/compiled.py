"""The game modules compiled with mypyc: `make` builds them (`python -m arena.games`), and where they
are not built, the very same source runs interpreted, more slowly (docs/benchmarks.md, The compiled engine).

Of a game's package only its rules are compiled: a compiled module (`<game>/rules.<platform>.so` next to
`<game>/rules.py`) shadows its source on import. So a build records the hash of each source it compiled, and the
game registry runs a game from its source when the source has changed since (with a warning), or when
`ARENA_INTERPRETED=1` asks for every game interpreted (to compare)."""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).parent
RECORD = HERE / "compiled.json"
"""{game: sha256 of the source it was compiled from}, written by a build."""
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def source(game: str) -> Path:
    """The game's rules, the one module of its package that is compiled."""
    return HERE / game / "rules.py"


def _digest(game: str) -> str:
    return hashlib.sha256(source(game).read_bytes()).hexdigest()


def compiled(games: Iterable[str]) -> list[str]:
    """The games that have a compiled module."""
    return [game for game in games if (HERE / game / f"rules{SUFFIX}").exists()]


def _record() -> dict[str, str]:
    try:
        return json.loads(RECORD.read_text())
    except (OSError, ValueError):
        return {}


def changed(games: Iterable[str]) -> list[str]:
    """The games whose source is not the one their compiled module was built from."""
    record = _record()
    return [game for game in games if record.get(game) != _digest(game)]


def use_sources_where_due(games: Iterable[str], package: str) -> None:
    """Imports from source, ahead of their compiled modules, every compiled game under ARENA_INTERPRETED=1,
    else each one whose source has changed since it was compiled (with a warning)."""
    due = compiled(games)
    if due and os.environ.get("ARENA_INTERPRETED") != "1":
        due = changed(due)
        for game in due:
            warnings.warn(f"{source(game)} has changed since it was compiled: it runs interpreted until "
                          "`make` compiles it again", stacklevel=2)
    for game in due:
        parent = importlib.import_module(f"{package}.{game}")
        name = f"{parent.__name__}.rules"
        spec = importlib.util.spec_from_file_location(name, source(game))
        assert spec is not None and spec.loader is not None
        module = sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        parent.rules = module


def build(games: Iterable[str]) -> None:
    """Compiles the games in place, one extension each, on every core (mypy checks their types first)."""
    from mypyc.build import mypycify
    from setuptools import setup

    warnings.filterwarnings("ignore", module="setuptools")  # its notes on pyproject.toml are not about this build

    games = list(games)
    record = _record() | {game: _digest(game) for game in games}  # before: a source edited meanwhile shows as changed
    root = HERE.parent.parent
    os.chdir(root)  # mypyc names a module by its path from here
    import tempfile  # here: every bot's host imports this module, and tempfile is 3 ms of its start

    with tempfile.TemporaryDirectory() as scratch:
        modules = mypycify([str(source(game).relative_to(root)) for game in games],
                           opt_level="3", separate=True, target_dir=os.path.join(scratch, "c"))
        setup(name="arena-games", ext_modules=modules, script_args=[
            "--quiet", "build_ext", "--inplace", f"--parallel={os.cpu_count() or 1}",
            f"--build-temp={os.path.join(scratch, 'temp')}", f"--build-lib={os.path.join(scratch, 'lib')}"])
    RECORD.write_text(json.dumps(record, indent=1) + "\n")
