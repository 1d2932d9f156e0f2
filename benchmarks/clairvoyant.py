#!/usr/bin/env python3
"""The most any bot can score against heuristic seats in Go For It: a clairvoyant seat's score.

    .venv/bin/python benchmarks/clairvoyant.py [--players 4] [--deals 400] [--first 70000] [--nodes 20000]

One seat knows the whole deal (every pile's order) and tries every sequence of its own moves; the other seats
play the bundled heuristic, which breaks no ties in these games, so each sequence has one outcome. The seat
takes the best outcome: its score is the share of the other seats it places above (a shared place counts half),
as `arena match` scores a bot against a field of `heuristic` (every seat order equally often). No bot, which
sees only its observation, can do better in any game, so the mean over the deals (every seat of each deal, a
deal as one unit) bounds what any bot scores against `heuristic` there.
A search cut at `--nodes` moves tried is counted: then its outcome is the best found, and the bound a lower one.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from arena.bots import BUNDLED_DIR, load_spec
from arena.games.go_for_it import rules as game

heuristic = sys.modules[load_spec(f"{BUNDLED_DIR / 'heuristic.py'}:HeuristicBot").__module__].STRATEGIES["go_for_it"]


class NoTies:
    """The heuristic's rng: it is drawn from only to break a tie, which would make an outcome depend on it."""

    def choice(self, moves):
        raise RuntimeError("the heuristic met a tie; the clairvoyant's outcome would depend on its rng")


def placed(scores: list[int], seat: int) -> float:
    """The share of the other seats that `seat` places above, a shared place counting half."""
    mine = scores[seat]
    return sum(1.0 if mine > s else 0.5 if mine == s else 0.0
               for other, s in enumerate(scores) if other != seat) / (len(scores) - 1)


def best(state, seat: int, budget: list[int]) -> float:
    """The best score `seat` can reach from `state`, the other seats playing the heuristic."""
    while (mover := game.to_move(state)) is not None and mover != seat:
        game.apply(state, heuristic.move(game.observe(state, mover), heuristic.DEFAULTS, NoTies()))
    if mover is None:
        return placed(game.scores(state), seat)
    found = -1.0
    for move in game.legal_moves(state):
        if budget[0] <= 0:
            break
        budget[0] -= 1
        child = game.clone(state)
        game.apply(child, move)
        found = max(found, best(child, seat, budget))
        if found >= 1.0:
            break
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--first", type=int, default=70000, help="the first deal's seed")
    parser.add_argument("--nodes", type=int, default=20000, help="moves tried at most in one seat's search")
    args = parser.parse_args()
    rules = game.Rules(players=args.players)
    scores, cut = [], 0
    for deal in range(args.first, args.first + args.deals):
        total = 0.0
        for seat in range(args.players):
            budget = [args.nodes]
            total += best(game.new_state(rules, deal), seat, budget)
            cut += budget[0] <= 0
        scores.append(total / args.players)
    n = len(scores)
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / n ** 0.5
    print(f"Go For It, {args.players} players, deals {args.first} to {args.first + n - 1}: the clairvoyant seat "
          f"scores {mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] against heuristic seats; "
          f"{cut} of {n * args.players} searches cut at {args.nodes:,} moves")


if __name__ == "__main__":
    main()
