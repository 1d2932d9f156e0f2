"""The cost of process isolation per decision: the random bot on Caterpillar, both seats in process vs
both seats in their own processes (the built-in host, and the example script that does not import arena).

    .venv/bin/python benchmarks/isolation.py [--seconds 3]

Each figure is the wall time of whole games (deal, referee, observations, resets) divided by the
decisions made; the overhead is the difference per decision, the ratio process / in process.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from arena.bots import load_bot_class, resolved_spec
from arena.games import get_game, make_rules
from arena.isolation import close_all, process_bot_class, python_command
from arena.referee import play

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "random_bot.py"


def per_decision(bot_class: type, seconds: float, limit: float | None) -> float:
    """Microseconds per decision of `bot_class` in both seats of Caterpillar, over about `seconds`."""
    game = get_game("caterpillar")
    rules = make_rules(game.Rules)
    play(game, rules, [bot_class(), bot_class()], 0, move_time_limit=limit)  # start the processes
    decisions = games = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        decisions += play(game, rules, [bot_class(), bot_class()], games, move_time_limit=limit).decisions
        games += 1
    return elapsed / decisions * 1e6


def main() -> None:
    """Prints µs per decision in process and in a process, and the overhead."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--move-time-limit", type=float, default=1.0, help="as in a tournament (0: none)")
    args = parser.parse_args()
    limit = args.move_time_limit or None
    random_bot = load_bot_class("random")
    local = per_decision(random_bot, args.seconds, limit)
    print(f"{'random bot on caterpillar':<34}{'µs/decision':>12}{'overhead µs':>13}{'ratio':>8}")
    print(f"{'in process':<34}{local:>12.1f}{'':>13}{1:>8.1f}")
    for label, command in (("process: built-in host", python_command(resolved_spec(random_bot))),
                           ("process: examples/random_bot.py", [sys.executable, str(EXAMPLE)])):
        remote = per_decision(process_bot_class(command, move_time_limit=limit), args.seconds, limit)
        print(f"{label:<34}{remote:>12.1f}{remote - local:>13.1f}{remote / local:>8.1f}")
    close_all()


if __name__ == "__main__":
    main()
