"""What the strategies share: choosing among moves of equal value."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

TIE = 1e-9
"""Values this close are equal: sums taken in a different order differ in the last bits."""


def choose(moves: Sequence[Any], rng: random.Random) -> Any:
    """The only move, or the rng's choice among equally good ones (the rng is drawn from only for a tie)."""
    return moves[0] if len(moves) == 1 else rng.choice(moves)


def best_move(moves: Iterable[Any], values: Iterable[float], rng: random.Random) -> Any:
    """The move of highest value (a move within TIE of the best so far ties with it), ties chosen by `rng`."""
    best, best_value = [], None
    for move, value in zip(moves, values, strict=True):
        if best_value is None or value > best_value + TIE:
            best, best_value = [move], value
        elif abs(value - best_value) <= TIE:
            best.append(move)
    return choose(best, rng)
