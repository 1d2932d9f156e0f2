"""The game registry: the four games by id, each a package of its own (`arena/games/<game>/`: its rules in
`rules`, how it is shown in `views`), imported on first use. A new game is a package there and its id below."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from arena.errors import ArenaError
from arena.games.base import Game, MoveError, Outcome, RulesError, make_rules, ranks_from_scores
from arena.games.compiled import use_sources_where_due

GAME_IDS = ("caterpillar", "give_or_take", "go_for_it", "duke_of_york")
use_sources_where_due(GAME_IDS, __name__)  # before any game is imported

if TYPE_CHECKING:
    from arena.games.views import View

__all__ = ["GAME_IDS", "Game", "MoveError", "Outcome", "RulesError", "UnknownGameError",
           "get_game", "get_view", "how_they_run", "make_rules", "ranks_from_scores"]


class UnknownGameError(ArenaError, LookupError):
    """A game id that arena does not know."""


_loaded: dict[str, Game] = {}


def _known(game_id: str) -> str:
    if game_id not in GAME_IDS:
        raise UnknownGameError(f"unknown game {game_id!r} (games: {', '.join(GAME_IDS)})")
    return game_id


def get_game(game_id: str) -> Game:
    """The rules of `game_id`: its module `arena.games.<game_id>.rules`, compiled where built."""
    game = _loaded.get(game_id)  # a tournament asks for its game once a game: an import costs microseconds
    if game is None:
        module = f"arena.games.{_known(game_id)}.rules"
        game = _loaded[game_id] = importlib.import_module(module)  # type: ignore[assignment]
    return game


def get_view(game_id: str) -> View:
    """How `game_id` is shown, at a person's seat and in its replay page: the `VIEW` of `arena.games.<game_id>.views`
    (imported only by what shows a game, never by playing one)."""
    return importlib.import_module(f"arena.games.{_known(game_id)}.views").VIEW


def how_they_run() -> str:
    """How the games run in this process: "compiled", "interpreted", or game by game."""
    ways = {game: "interpreted" if get_game(game).__file__.endswith(".py") else "compiled" for game in GAME_IDS}
    return ways.popitem()[1] if len(set(ways.values())) == 1 else ", ".join(f"{g} {w}" for g, w in ways.items())
