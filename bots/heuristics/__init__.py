"""The heuristic bot's strategies (bots/heuristic.py), one module per game, named by its game id.

Each module's `move(observation, params, rng)` is the whole strategy for its game: it reads only the
observation and `params` (the module's `DEFAULTS` list them), and breaks ties with `rng`, so a game
replays exactly. A module imports no other game's, so each can also serve on its own, as a rollout
policy say.

bots/ is not on the import path: bots/heuristic.py imports this package by its location.
"""
