"""Instructions, not seconds: the engine's and the tournament layer's ratios counted by valgrind's callgrind.

    .venv/bin/python benchmarks/instructions.py [--games 3000]

On a shared machine a timed ratio moves by several percent from one run to the next; an instruction
count is the same every time for the same code and inputs, so a change of 1% shows. Instructions are
not time (a cache miss costs more than an add), so the timed benchmarks (engine.py, tournament.py
layer) stay the measure of record; this one says which way a change moved, and by how much.

Each probe runs twice under callgrind, with no games and with `--games`, and the difference is divided
by the decisions or games played, so start-up and imports cancel out. It prints:
- the lean Caterpillar loop and random Caterpillar games through the referee, per decision, and their
  ratio (engine.py's `x lean`, counted);
- random Caterpillar games by the bare referee (no clock), by play_batch in process and by worker_batch
  (the move clock on the backstop's shared page, as in a tournament's worker), per game, and the
  tournament layer's share over the bare referee.
Needs valgrind (Debian's package); takes about five minutes at 3,000 games.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def probe(kind: str, games: int) -> int:
    """Plays `games` games the way `kind` says; returns the decisions (or games) to divide by."""
    import random

    sys.path.insert(0, str(HERE))
    import lean_caterpillar
    from tournament import SPEEDUP

    from arena import referee
    from arena.bots import load_bot_class
    from arena.config import parse_config
    from arena.games import get_game, make_rules
    from arena.runner import play_batch, worker_batch

    game = get_game("caterpillar")
    rules, random_bot = make_rules(game.Rules, {}), load_bot_class("random")
    config = parse_config(SPEEDUP.format(deals=max(games, 2) // 2))
    play_batch(config, 0, 2)  # imports and first-use costs land in both runs of a probe alike
    if kind == "worker":
        worker_batch(config, 0, 2)  # arms the backstop: its sentinel process is started once, here
    if kind == "lean":
        rng = random.Random(1)
        return sum(lean_caterpillar.play(rng)[1] for _ in range(games))
    if kind in ("referee", "bare"):
        decisions = sum(referee.play(game, rules, [random_bot(), random_bot()], seed).decisions
                        for seed in range(games))
        return decisions if kind == "referee" else games
    (play_batch if kind == "batch" else worker_batch)(config, 0, games)
    return games


def count(kind: str, games: int) -> float:
    """Instructions per unit of `kind` (decision or game), start-up subtracted."""
    totals, units = [], 0
    for n in (0, games):
        done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                               __file__, "probe", kind, str(n)], capture_output=True, text=True, check=True,
                              env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})  # no idle BLAS threads spinning
        totals.append(int(re.search(r"Collected : (\d+)", done.stderr)[1]))
        units = int(done.stdout.split()[-1])
    return (totals[1] - totals[0]) / units


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="games per probe")
    sub = parser.add_subparsers(dest="which")
    probe_parser = sub.add_parser("probe")  # one probe, in the process callgrind runs
    probe_parser.add_argument("kind")
    probe_parser.add_argument("n", type=int)
    args = parser.parse_args()
    if args.which == "probe":
        print(probe(args.kind, args.n))
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    lean, engine = count("lean", args.games), count("referee", args.games)
    print(f"instructions per decision, random Caterpillar, {args.games:,} games")
    print(f"  lean loop {lean:,.0f}   referee {engine:,.0f}   lean / referee {lean / engine:.3f}")
    bare = count("bare", args.games)
    print("instructions per game, random Caterpillar, and the tournament layer over the bare referee")
    print(f"  bare referee {bare:,.0f}")
    for kind, label in (("batch", "play_batch in process"), ("worker", "worker_batch (clock, backstop page)")):
        per_game = count(kind, args.games)
        print(f"  {label} {per_game:,.0f}   {per_game / bare - 1:+.1%}")


if __name__ == "__main__":
    main()
