"""`python -m arena.games [GAME ...]` compiles the games (all of them by default) with mypyc, in place."""

import sys

from arena.games import GAME_IDS
from arena.games.compiled import build

build(sys.argv[1:] or GAME_IDS)
