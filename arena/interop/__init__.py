"""Arena's games for reinforcement-learning libraries: the optional extra `arena[rl]`.

`pettingzoo_env(game_id, **rules)` is a PettingZoo AEC environment and `openspiel_game(game_id, **rules)` an
OpenSpiel game; both rest on the action and observation encoding of `arena.interop.encoding`. They are
imported on first use, so importing this package needs neither PettingZoo nor OpenSpiel.

It holds the loader of `openspiel:ALGO` bot specs (a search of OpenSpiel's), which arena.bots names in its table.
"""

from __future__ import annotations

import importlib
from typing import Any

from arena import bots

__all__ = ["openspiel_game", "pettingzoo_env"]

_LAZY = {"pettingzoo_env": "arena.interop.pettingzoo", "openspiel_game": "arena.interop.openspiel"}


def __getattr__(name: str) -> Any:
    """Imports an adapter (and its library) only when it is first asked for."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


def load_openspiel_spec(spec: str) -> type:
    """`load_bot_class` for an `openspiel:ALGO` spec (arena.interop.openspiel, imported only now: importing
    arena needs no OpenSpiel)."""
    try:
        from arena.interop.openspiel import openspiel_bot_class
    except ImportError as error:
        raise bots.BotError(f"{spec}: needs OpenSpiel, the extra arena[rl]: {error}") from None
    return openspiel_bot_class(spec.removeprefix("openspiel:").strip())
