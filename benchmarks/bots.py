#!/usr/bin/env python3
"""Time per decision of every bundled bot in every game, at its default parameters, on this machine.

    .venv/bin/python benchmarks/bots.py [--games 20] [--bots expert,heuristic] [--game caterpillar]

Each bot plays `--games` games of each game (Go For It with 2 and with 4 players) against `heuristic` in the
other seats, seated first in half of them and second in the others, through the referee (no move clock).
Only its own decisions are timed, in CPU time of the deciding thread (the bot's own cost, which a machine busy
with other work does not stretch as it does the wall clock), every one of them, forced moves included: the
mean, the 99th percentile and the slowest decision, in milliseconds, and the count of decisions they come from.
The target for `expert` at its defaults is at most 10 ms mean and 50 ms p99 (docs/expert.md). With
`--bots expert --games 400` it is the 2,000-game check of the move clock (1 s by default): the slowest decision
of expert in 400 games of each of the five variants.
"""

from __future__ import annotations

import argparse
import time

VARIANTS = {
    "caterpillar": {},
    "give_or_take": {},
    "go_for_it": {"players": 2},
    "go_for_it/4": {"players": 4},
    "duke_of_york": {},
}


def decision_times(bot_name: str, variant: str, games: int, seed: int = 1) -> list[float]:
    """Seconds of each of `bot_name`'s decisions in `games` games of `variant` against heuristic."""
    from arena.bots import can_play, load_bot_class
    from arena.games import get_game, make_rules
    from arena.tournament.referee import play

    game = get_game(variant.split("/")[0])
    rules = make_rules(game.Rules, VARIANTS[variant])
    bot_class, other = load_bot_class(bot_name), load_bot_class("heuristic")
    if not can_play(bot_class, game.id):
        return []
    times: list[float] = []
    for number in range(games):
        bot = bot_class()
        act = bot.act

        def timed(observation, act=act):
            started = time.thread_time()
            move = act(observation)
            times.append(time.thread_time() - started)
            return move

        bot.act = timed
        seats = [other() for _ in range(game.players(rules))]
        seats[number % 2] = bot
        play(game, rules, seats, seed + number)
    return times


def main() -> None:
    from arena.bots import BUNDLED_DIR, folder_bots

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games of each variant per bot")
    parser.add_argument("--bots", default=None, help="comma-separated bot names (default: every bundled bot)")
    parser.add_argument("--game", default=None, help="only this variant (e.g. go_for_it/4)")
    args = parser.parse_args()
    bots = args.bots.split(",") if args.bots else sorted(folder_bots(BUNDLED_DIR))
    variants = [args.game] if args.game else list(VARIANTS)
    print(f"time per decision against heuristic, {args.games} games per variant")
    print(f"{'bot':<10} {'game':<14} {'decisions':>9} {'mean ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for bot in bots:
        for variant in variants:
            times = sorted(decision_times(bot, variant, args.games))
            if not times:
                continue
            mean = 1000 * sum(times) / len(times)
            p99 = 1000 * times[min(len(times) - 1, int(0.99 * len(times)))]
            print(f"{bot:<10} {variant:<14} {len(times):>9,} {mean:>8.2f} {p99:>8.1f} {1000 * times[-1]:>8.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
