"""What every game offers (the Game protocol), game results, and rules options.

A game's rules are the module `arena/games/<game>/rules.py`, with the attributes and functions of `Game`.
States are mutable and private to the referee (`apply` changes a state in place, `clone` copies one); bots
only ever see observations, which are immutable named tuples built by `observe`.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Hashable, Iterable, Sequence
from typing import Any, NamedTuple, Protocol, TypeAlias

from arena.errors import ArenaError

Move: TypeAlias = Hashable
"""A move: a hashable value each game defines (a card int, a `(card, op)` pair, a word)."""

TERMINATIONS = ("normal", "court_short", "deal_limit", "move_limit", "crash", "illegal_move", "timeout")


class Outcome(NamedTuple):
    """The end of a game as data (a named tuple: made once a game, at half the cost of a frozen dataclass)."""

    scores: tuple[int, ...]
    """Final score of each seat."""
    ranks: tuple[int, ...]
    """Rank of each seat: how many seats scored strictly more (0 = best)."""
    termination: str
    """How the game ended: one of TERMINATIONS."""


def ranks_from_scores(scores: Sequence[int]) -> tuple[int, ...]:
    """Each seat's rank: the number of seats with a strictly higher score (docs/rules.md, Result)."""
    return tuple(sum(1 for other in scores if other > mine) for mine in scores)


class Game(Protocol):
    """The interface of a game module (the functions every game module defines)."""

    id: str
    min_players: int
    max_players: int
    Rules: type

    def players(self, rules: Any) -> int: """Number of seats under these rules."""
    def new_state(self, rules: Any, seed: int) -> Any: """A new game dealt from `seed`."""
    def clone(self, state: Any) -> Any: """An independent copy of a state."""
    def to_move(self, state: Any) -> int | None: """The seat to decide, or None when over."""
    def legal_moves(self, state: Any) -> tuple[Move, ...]: """The moves open to the seat to move."""
    def apply(self, state: Any, move: Move) -> None: """Plays a legal move, in place."""
    def scores(self, state: Any) -> list[int]: """The scores as they stand (no end bonuses)."""
    def result(self, state: Any) -> Outcome: """The outcome of a finished game."""
    def observe(self, state: Any, seat: int) -> Any: """What `seat` may know, immutable."""
    def sample_world(self, observation: Any, rng: random.Random) -> Any: """A state consistent with it."""
    def move_to_str(self, move: Move) -> str: """A move in docs/rules.md notation."""
    def parse_move(self, text: str) -> Move: """The move written as `text`; raises MoveError."""
    def deals(self, state: Any) -> list[tuple[Any, list[tuple[int, Move]]]]: """(layout, moves) per deal."""
    def layout_json(self, layout: Any) -> dict: """A deal's layout in the transcript format."""


class ObservationCache:
    """What a game works out from an observation alone (for sample_world), kept by the observation's identity
    for the last `kept` observations: a search bot samples many worlds from one observation. Each entry holds
    its observation, so that its id is not reused while it is kept; the oldest entries go first."""

    def __init__(self, build: Any, kept: int = 64) -> None:
        self.build, self.kept = build, kept
        self.entries: dict[int, tuple[Any, Any]] = {}

    def __call__(self, observation: Any) -> Any:
        entry = self.entries.get(id(observation))
        if entry is not None and entry[0] is observation:
            return entry[1]
        value = self.build(observation)
        if len(self.entries) >= self.kept:
            del self.entries[next(iter(self.entries))]
        self.entries[id(observation)] = (observation, value)
        return value


class MoveError(ArenaError, ValueError):
    """Text that is not a move of the game."""


class RulesError(ArenaError, ValueError):
    """An unknown rules option or a bad value for one."""


def option(default: Any, help: str, *, choices: Iterable[Any] | None = None,
           low: int | None = None, high: int | None = None) -> Any:
    """A rules field with its help text and the values it allows."""
    meta = {"help": help, "choices": tuple(choices) if choices else None, "low": low, "high": high}
    return dataclasses.field(default=default, metadata=meta)


def _coerce(name: str, kind: type, value: Any) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
    elif kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            try:
                return int(value)
            except ValueError:
                pass
    elif kind is str and isinstance(value, str):
        return value
    raise RulesError(f"rule {name!r} takes a {kind.__name__}, not {value!r}")


def make_rules(rules_class: type, overrides: dict[str, Any] | None = None) -> Any:
    """The rules with `overrides` (values may be strings, as from `--rule k=v`) checked and applied."""
    fields = {f.name: f for f in dataclasses.fields(rules_class)}
    values = {}
    for name, raw in (overrides or {}).items():
        if name not in fields:
            known = ", ".join(fields) or "none"
            raise RulesError(f"unknown rule {name!r} (options: {known})")
        field = fields[name]
        value = _coerce(name, type(field.default), raw)
        meta = field.metadata
        if meta["choices"] and value not in meta["choices"]:
            raise RulesError(f"rule {name!r} must be one of {', '.join(map(str, meta['choices']))}, not {value!r}")
        if meta["low"] is not None and value < meta["low"] or meta["high"] is not None and value > meta["high"]:
            raise RulesError(f"rule {name!r} must be between {meta['low']} and {meta['high']}, not {value!r}")
        values[name] = value
    return rules_class(**values)


def rules_options(rules_class: type) -> list[dict[str, Any]]:
    """Each option of a rules class: name, default, allowed values and help."""
    out = []
    for f in dataclasses.fields(rules_class):
        meta = f.metadata
        low, high = meta["low"], meta["high"]
        allowed = meta["choices"] or (f"{low}..{high}" if low is not None and high is not None else
                                      f">= {low}" if low is not None else f"<= {high}" if high is not None else None)
        out.append({"name": f.name, "default": f.default, "allowed": allowed, "help": meta["help"]})
    return out
