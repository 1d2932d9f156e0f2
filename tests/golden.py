"""The golden transcripts: games of every rules variant and every bundled bot, recorded once and
compared move by move in tests/test_golden.py, so that a faster engine provably plays the same games.

    .venv/bin/python tests/golden.py    # rewrites tests/data/golden.jsonl.gz (only for a rules change)
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from conftest import VARIANTS

from arena.bots import load_bot_class
from arena.games import get_game, make_rules
from arena.tournament import referee

PATH = Path(__file__).parent / "data" / "golden.jsonl.gz"
LINEUPS = [("random",), ("greedy",), ("heuristic",), ("ismcts", "random"), ("heuristic", "greedy", "random")]
"""Bots by seat, repeated to fill the table. ismcts draws worlds with sample_world, so its moves pin
down how the engine deals hidden cards too."""
SEEDS_PER_LINEUP = 4
PARAMS = {"ismcts": {"iterations": 30, "rollout_cap": 400, "policy": "random", "horizon": "game", "prior": 0}}
"""ismcts as it was when the file was recorded (plain SO-ISMCTS with random playouts to the end)."""


def cases():
    """(game id, rules overrides, bot names, seed) of every golden game."""
    for game_id, overrides in VARIANTS:
        game = get_game(game_id)
        n = game.players(make_rules(game.Rules, overrides))
        for number, lineup in enumerate(LINEUPS):
            names = [lineup[seat % len(lineup)] for seat in range(n)]
            for seed in range(SEEDS_PER_LINEUP):
                yield game_id, overrides, names, 1000 * number + seed


def play_case(game_id: str, overrides: dict, names: list[str], seed: int) -> dict:
    """The transcript of one golden game."""
    game = get_game(game_id)
    rules = make_rules(game.Rules, overrides)
    bots = [load_bot_class(name)(**PARAMS.get(name, {})) for name in names]
    return referee.transcript(game, rules, names, seed, referee.play(game, rules, bots, seed))


def main() -> None:
    """Writes every golden transcript, one JSON line each."""
    lines = [json.dumps(play_case(*case), sort_keys=True) for case in cases()]
    PATH.write_bytes(gzip.compress("\n".join(lines).encode() + b"\n", mtime=0))
    print(f"{len(lines)} transcripts -> {PATH} ({PATH.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
