#!/usr/bin/env python3
"""The cost of the move clock's backstop per decision: random bots playing Caterpillar in process.

Three ways, interleaved in one run (this machine is shared and noisy): no clock, the clock (its signal
path), and the clock with the backstop's page stamped with the number of every move (what a worker does).
Prints decisions/s of each and the backstop's cost in nanoseconds per decision.

    .venv/bin/python benchmarks/backstop.py [--games 3000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from arena.bots import load_bot_class
from arena.games import get_game
from arena.isolation import clock
from arena.tournament import referee


def decisions_per_second(games: int, limit: float | None) -> float:
    game = get_game("caterpillar")
    random_bot = load_bot_class("random")
    rules = game.Rules()
    decisions, started = 0, time.perf_counter()
    for seed in range(games):
        decisions += referee.play(game, rules, [random_bot(), random_bot()], seed, move_time_limit=limit).decisions
    return decisions / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rates: dict[str, list[float]] = {"no clock": [], "clock": [], "clock + backstop": []}
    board = clock.new_board(1.0)
    for _ in range(args.repeats):
        clock.use_board(None)
        rates["no clock"].append(decisions_per_second(args.games, None))
        rates["clock"].append(decisions_per_second(args.games, 1.0))
        clock.use_board(board)
        rates["clock + backstop"].append(decisions_per_second(args.games, 1.0))
    clock.use_board(None)
    best = {name: max(values) for name, values in rates.items()}
    for name, values in rates.items():
        print(f"{name:<18} {best[name]:>12,.0f} decisions/s (best of {args.repeats}; median "
              f"{statistics.median(values):,.0f})")
    cost = 1e9 / best["clock + backstop"] - 1e9 / best["clock"]
    print(f"backstop: {cost:+.0f} ns per decision ({cost * best['clock'] / 1e9:+.1%} of a decision with the clock)")


if __name__ == "__main__":
    main()
