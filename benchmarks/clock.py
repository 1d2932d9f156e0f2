#!/usr/bin/env python3
"""The move clock's cost on the hot path: random bots through the referee with a 1 s move clock (engine.py's
"1s clock" column), this checkout against another, alternating in one sitting, each measurement in a fresh
interpreter.

    .venv/bin/python benchmarks/clock.py BASELINE_DIR [--rounds 10] [--seconds 1]

BASELINE_DIR is another checkout of arena (e.g. `git worktree add /tmp/base REV`, with its games compiled or the
compiled files of this one copied in). Rates are decisions per second of wall time, as engine.py measures them, and
per second of the playing thread's CPU time, which load on a shared machine moves far less: on a busy machine read
the second. Printed for each: the ratio of the best rates and the median and range of each round's ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

MEASURE = """
import sys, time
sys.path[:0] = [{checkout!r}]
from arena.bots import load_bot_class
from arena.games import get_game, make_rules
from arena.tournament.referee import play
game, bot = get_game({game!r}), load_bot_class("random")
rules = make_rules(game.Rules, {rules!r})
decisions = games = 0
for _ in range(200):  # warm up
    play(game, rules, [bot() for _ in range(game.players(rules))], games, move_time_limit=1.0)
    games += 1
wall, cpu = time.perf_counter(), time.thread_time()
while time.perf_counter() - wall < {seconds}:
    for _ in range(100):
        decisions += play(game, rules, [bot() for _ in range(game.players(rules))], games,
                          move_time_limit=1.0).decisions
        games += 1
print(decisions / (time.perf_counter() - wall), decisions / (time.thread_time() - cpu))
"""
VARIANTS = [("caterpillar", {}), ("go_for_it", {"players": 4})]


def measure(checkout: Path, game: str, rules: dict, seconds: float) -> tuple[float, float]:
    """Decisions per second of wall time and of CPU time with the arena of `checkout`, in a fresh interpreter."""
    code = MEASURE.format(checkout=str(checkout.resolve()), game=game, rules=rules, seconds=seconds)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    wall, cpu = map(float, out.stdout.split())
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", type=Path, help="another arena checkout")
    parser.add_argument("--rounds", type=int, default=10, help="measurements of each, in turn")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    for game, rules in VARIANTS:
        runs = {"this": [], "baseline": []}
        for _ in range(args.rounds):
            runs["this"].append(measure(here, game, rules, args.seconds))
            runs["baseline"].append(measure(args.baseline, game, rules, args.seconds))
        for column, unit in enumerate(("wall", "CPU")):
            this, base = ([run[column] for run in runs[name]] for name in ("this", "baseline"))
            ratios = sorted(a / b for a, b in zip(this, base, strict=True))
            print(f"{game} {rules}, decisions per {unit} second: this {max(this):,.0f}, baseline {max(base):,.0f}, "
                  f"ratio of the best {max(this) / max(base):.3f}, each round's ratio: median "
                  f"{statistics.median(ratios):.3f}, range {ratios[0]:.3f}-{ratios[-1]:.3f}", flush=True)


if __name__ == "__main__":
    main()
