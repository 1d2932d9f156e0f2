#!/usr/bin/env python3
"""Duke of York: a bound on what any bot can score against heuristic, from a seat told the opponent's hand.

    .venv/bin/python benchmarks/told_hand.py [--deals 400] [--first 70000]

One seat plays the heuristic's strategy but is told the opponent's hand: its search, which otherwise deals
the opponent hands from the unseen cards, solves every round exactly against the true hand from the round's
first card. The other seat plays the bundled heuristic. A real seat does not see the opponent's hand, so the
ceiling against `heuristic` is at least this score (the told seat does not see the table's face-down cards,
and chooses its exchange as the heuristic does, so a seat that sees the whole deal may score more). Each deal
is played with the told seat first and second; a deal's score is the mean of the two games (1 a win, 1/2 a
tie), as `arena match` scores a deal pair.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys

from arena.bots import BUNDLED_DIR, load_spec
from arena.games.duke_of_york import rules as game

heuristic = sys.modules[load_spec(f"{BUNDLED_DIR / 'heuristic.py'}:HeuristicBot").__module__].STRATEGIES["duke_of_york"]
TOLD = dict(heuristic.DEFAULTS, samples=1, search_cards=10)
"""One hand is enough when it is the true one; searching from ten cards solves every round from its start."""


def told(state, obs):
    """`obs` with the opponent's hand told: every other card the seat has not seen is added to its record of
    earlier rounds, the one thing besides its hand, the table and this round's play from which the heuristic
    works out the cards the opponent may hold."""
    theirs = set(state.hands[1 - obs.seat])
    rest = tuple((1 - obs.seat, c) for c in range(52) if c not in theirs)
    return obs._replace(earlier=obs.earlier + (rest,))


def play(deal: int, seat: int) -> float:
    """The told seat's result in one game of `deal`, sitting at `seat`: 1 a win, 1/2 a tie, 0 a loss."""
    rules = game.Rules()
    state = game.new_state(rules, deal)
    rngs = [random.Random(deal * 2 + s) for s in range(2)]
    while (mover := game.to_move(state)) is not None:
        obs = game.observe(state, mover)
        if mover == seat:
            move = heuristic.move(told(state, obs), TOLD, rngs[mover])
        else:
            move = heuristic.move(obs, heuristic.DEFAULTS, rngs[mover])
        game.apply(state, move)
    mine, theirs = game.scores(state)[seat], game.scores(state)[1 - seat]
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--first", type=int, default=70000, help="the first deal's seed")
    args = parser.parse_args()
    scores = [(play(deal, 0) + play(deal, 1)) / 2 for deal in range(args.first, args.first + args.deals)]
    n = len(scores)
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / n ** 0.5
    print(f"Duke of York, deals {args.first} to {args.first + n - 1}: told the opponent's hand, the heuristic scores "
          f"{mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] against heuristic")


if __name__ == "__main__":
    main()
