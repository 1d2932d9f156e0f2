"""The variants a reader asks for: `--game caterpillar` names every variant of the game, a full label such as
`go_for_it:players=3` names one. One rule for the run's tables, the league's tables and the league's history."""

from __future__ import annotations

from typing import TypeVar

from arena.results import ResultsError

Value = TypeVar("Value")


def of_game(variant: str, game: str | None) -> bool:
    """Whether `variant` is one that `game` (a game id, a variant label, or None for all) names."""
    return game is None or variant == game or variant.startswith(game + ":")


def select(by_variant: dict[str, Value], game: str | None) -> dict[str, Value]:
    """Only the variants of `game`, if given; a ResultsError naming the variants there are if none matches."""
    chosen = {variant: value for variant, value in by_variant.items() if of_game(variant, game)}
    if not chosen and game is not None:
        raise ResultsError(f"no game {game!r} in this run (variants: {', '.join(by_variant) or 'none'})")
    return chosen
