"""The game registry: the four games by id, imported on first use."""

from __future__ import annotations

import importlib

from arena.errors import ArenaError
from arena.games.base import Game, MoveError, Outcome, RulesError, make_rules, ranks_from_scores
from arena.games.compiled import use_sources_where_due

GAME_IDS = ("caterpillar", "give_or_take", "go_for_it", "duke_of_york")
use_sources_where_due(GAME_IDS, __name__)  # before any game is imported

__all__ = ["GAME_IDS", "Game", "MoveError", "Outcome", "RulesError", "UnknownGameError",
           "get_game", "how_they_run", "make_rules", "ranks_from_scores"]


class UnknownGameError(ArenaError, LookupError):
    """A game id that arena does not know."""


_loaded: dict[str, Game] = {}


def get_game(game_id: str) -> Game:
    """The game module for `game_id`."""
    game = _loaded.get(game_id)  # a tournament asks for its game once a game: an import costs microseconds
    if game is None:
        if game_id not in GAME_IDS:
            raise UnknownGameError(f"unknown game {game_id!r} (games: {', '.join(GAME_IDS)})")
        game = _loaded[game_id] = importlib.import_module(f"arena.games.{game_id}")  # type: ignore[assignment]
    return game


def how_they_run() -> str:
    """How the games run in this process: "compiled", "interpreted", or game by game."""
    ways = {game: "interpreted" if get_game(game).__file__.endswith(".py") else "compiled" for game in GAME_IDS}
    return ways.popitem()[1] if len(set(ways.values())) == 1 else ", ".join(f"{g} {w}" for g, w in ways.items())
