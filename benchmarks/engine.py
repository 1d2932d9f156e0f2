"""Decisions per second on one core: random bots through the full referee (observations built,
legality checked), for each game. Target: Caterpillar >= 200,000 decisions/s.

    .venv/bin/python benchmarks/engine.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import time

from arena.bots import load_bot_class
from arena.games import GAME_IDS, get_game, make_rules
from arena.referee import play

VARIANTS = {
    "caterpillar": [{}],
    "give_or_take": [{}],
    "go_for_it": [{"players": 2}, {"players": 4}, {"players": 6, "jokers": True}],
    "duke_of_york": [{}],
}


def measure(game_id: str, overrides: dict, seconds: float, limit: float | None = None) -> tuple[float, float]:
    """(decisions/s, games/s) of random bots through the referee for about `seconds` (with a move time limit)."""
    game = get_game(game_id)
    rules = make_rules(game.Rules, overrides)
    random_bot = load_bot_class("random")
    decisions = games = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        for _ in range(200):
            bots = [random_bot() for _ in range(game.players(rules))]
            decisions += play(game, rules, bots, games, move_time_limit=limit).decisions
            games += 1
    return decisions / elapsed, games / elapsed


def main() -> None:
    """Prints one line per game and variant."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per game variant")
    args = parser.parse_args()
    print(f"{'game':<14}{'rules':<32}{'decisions/s':>14}{'games/s':>10}{'with 1s move clock':>20}")
    for game_id in GAME_IDS:
        for overrides in VARIANTS[game_id]:
            per_s, games_per_s = measure(game_id, overrides, args.seconds)
            clocked, _ = measure(game_id, overrides, args.seconds, limit=1.0)
            print(f"{game_id:<14}{str(overrides):<32}{per_s:>14,.0f}{games_per_s:>10,.0f}{clocked:>20,.0f}")


if __name__ == "__main__":
    main()
