"""heuristic: plays each of the four games by hand-written strategy, the way a careful human would.

The strategies follow docs/rules.md and Parlett's own notes on playing the games, one module per game in
`heuristics/` (named by the game id), where each explains its own. Each reads only the observation
and breaks ties with the bot's rng, so a game replays exactly.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from arena.bots import Bot

GAMES = ("caterpillar", "give_or_take", "go_for_it", "duke_of_york")


def import_package(folder: Path) -> ModuleType:
    """The package in `folder`, imported by its location under a name unique to that location.

    Arena imports a bot file by its path, outside any package, and bots/ is not on the import path:
    so the package cannot be imported by name, nor relatively. Imported this way, its modules import
    each other relatively, and every bot that imports it shares one copy.
    """
    folder = folder.resolve()
    name = f"arena_user_bots.{folder.name}_{hashlib.sha1(str(folder).encode()).hexdigest()[:8]}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        package = importlib.util.module_from_spec(spec)
        sys.modules[name] = package
        spec.loader.exec_module(package)
    return sys.modules[name]


_heuristics = import_package(Path(__file__).parent / "heuristics")
STRATEGIES = {game: importlib.import_module(f"{_heuristics.__name__}.{game}") for game in GAMES}
"""The strategy module of each game: its `move(observation, params, rng)` and `DEFAULTS`."""


class HeuristicBot(Bot):
    """Hand-written strategy per game, reading only its observation."""

    name = "heuristic"
    games = set(GAMES)
    defaults = {param: value for strategy in STRATEGIES.values() for param, value in strategy.DEFAULTS.items()}

    def act(self, observation):
        """The move for this observation, by the game's strategy."""
        return STRATEGIES[self.game_id].move(observation, self.params, self.rng)
