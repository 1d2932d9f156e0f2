#!/usr/bin/env python3
"""The race planner of Go For It (bots/race) against heuristic, wherever it is let decide: the development runs
of docs/expert.md.

    .venv/bin/python benchmarks/race_planner.py [--players 2] [--first 100000] [--deals 400] [--at claims] [--rows 3]

Each deal (the engine's deal numbers `--first` on) is played once with the planner's seat in every seat, the
other seats playing the heuristic. `--at every`: the planner chooses at every decision with a choice; `--at
claims`: only between claiming and playing on, on rows of `--rows` cards or more; the heuristic's move
elsewhere. A deal's score is the mean over its seats of the share of the other seats placed below (a tie
half), as `arena match` scores a deal; the mean over the deals with its 95% interval, and how many deals were
not even (not 1/2).
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import sys

from arena.bots import BUNDLED_DIR, load_spec
from arena.games.go_for_it import rules as game

_heuristic = sys.modules[load_spec(f"{BUNDLED_DIR / 'heuristic.py'}:HeuristicBot").__module__]
heuristic = _heuristic.STRATEGIES["go_for_it"]
planner = importlib.import_module(f"{_heuristic.import_package(BUNDLED_DIR / 'race').__name__}.planner")
best_move = importlib.import_module(f"{heuristic.__name__.rpartition('.')[0]}.common").best_move


def placed(scores: list[int], seat: int) -> float:
    """The share of the other seats that `seat` places above, a shared place counting half."""
    mine = scores[seat]
    return sum(1.0 if mine > s else 0.5 if mine == s else 0.0
               for other, s in enumerate(scores) if other != seat) / (len(scores) - 1)


def planned(obs, at: str, rows: int, rng) -> str:
    """The planner's move where it is let decide, else the heuristic's."""
    legal = obs.legal_moves
    if len(legal) == 1 or (at == "claims" and ("claim" not in legal or len(obs.row) < rows)):
        return heuristic.move(obs, heuristic.DEFAULTS, rng)
    values = planner.values(obs, {})
    return best_move(legal, [values[move] for move in legal], rng)


def deal_score(players: int, deal: int, at: str, rows: int) -> float:
    """The planner's mean placing over the seats of one deal."""
    total = 0.0
    for seat in range(players):
        state = game.new_state(game.Rules(players=players), deal)
        rng = random.Random(deal * 7 + seat)
        while (mover := game.to_move(state)) is not None:
            obs = game.observe(state, mover)
            move = planned(obs, at, rows, rng) if mover == seat else heuristic.move(obs, heuristic.DEFAULTS, rng)
            game.apply(state, move)
        total += placed(game.scores(state), seat)
    return total / players


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, choices=(2, 4), default=2)
    parser.add_argument("--first", type=int, default=100000, help="the first deal's number")
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--at", choices=("every", "claims"), default="claims")
    parser.add_argument("--rows", type=int, default=2, help="with --at claims, the shortest row decided")
    args = parser.parse_args()
    scores = [deal_score(args.players, deal, args.at, args.rows) for deal in range(args.first, args.first + args.deals)]
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / len(scores) ** 0.5
    print(f"Go For It, {args.players} players, deals {args.first} to {args.first + args.deals - 1}, planner at "
          f"{args.at}{f' from rows of {args.rows}' if args.at == 'claims' else ''}: {mean:.3f} [{mean - half:.3f}, "
          f"{mean + half:.3f}] against heuristic, {sum(s != 0.5 for s in scores)} deals not even")


if __name__ == "__main__":
    main()
