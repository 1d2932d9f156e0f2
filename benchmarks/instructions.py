#!/usr/bin/env python3
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
  tournament layer's share over the bare referee;
- engine.py's search loop (sample_world, then clone, legal_moves and apply to the end) for every game, per
  move, after a first pass that fills the caches of the observations: the whole loop, and inside the
  engine (less the same loop over a game whose functions do nothing). With `--baseline DIR` (another
  checkout, e.g. `git worktree add /tmp/base REV`) also that checkout's, and the speed-ups. (Compiled
  games cost less to call than the do-nothing loop's Python functions: for them, read the whole loop.)
`--only engine|layer|search` runs one part. Needs valgrind (Debian's package); takes about five minutes
at 3,000 games, and as long again for the search loop with a baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def probe(kind: str, games: int, game_id: str = "", rules: str = "{}", root: str = "") -> int:
    """Plays `games` games (passes of the search loop) the way `kind` says, with the arena package of
    `root` if given; returns the decisions, games or moves to divide by."""
    import random

    if root:
        sys.path.insert(0, root)
    sys.path.insert(0, str(HERE))
    if kind in ("search", "idle"):
        import engine

        inputs = engine.idle_inputs() if kind == "idle" else engine.search_inputs(game_id, json.loads(rules))
        engine.search_pass(*inputs)  # the observations' caches filled in both runs of the probe alike
        return sum(engine.search_pass(*inputs) for _ in range(games))
    import lean_caterpillar
    from tournament import SPEEDUP

    from arena.bots import load_bot_class
    from arena.config import parse_config
    from arena.games import get_game, make_rules
    from arena.tournament import referee
    from arena.tournament.batch import play_batch, worker_batch

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


def count(kind: str, games: int, *args: str) -> float:
    """Instructions per unit of `kind` (decision, game or move), start-up subtracted."""
    totals, units = [], 0
    for n in (0, games):
        done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                               __file__, "probe", kind, str(n), *args], capture_output=True, text=True, check=True,
                              # no idle BLAS threads spinning; one hash seed, so that str hashes (dict and set
                              # layouts) are the same in every run and the counts repeat exactly
                              env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0"})
        totals.append(int(re.search(r"Collected : (\d+)", done.stderr)[1]))
        units = int(done.stdout.split()[-1])
    return (totals[1] - totals[0]) / units


def search_loop(passes: int, baseline: Path | None) -> None:
    """Prints the search loop's instructions a move for every game, and the speed-ups over `baseline`."""
    from engine import VARIANTS

    roots = {"this": str(HERE.parent)} | ({"baseline": str(baseline.resolve())} if baseline else {})
    idle = count("idle", passes)
    print(f"search loop, instructions a move ({passes} passes; inside the engine: less the {idle:,.0f} of the "
          "do-nothing loop)")
    print(f"  {'game':<14}{'rules':<32}{'whole':>8}{'inside':>8}"
          + (f"{'baseline':>10}{'inside':>8}   speed-up: whole, inside" if baseline else ""))
    for game_id, variants in VARIANTS.items():
        for overrides in variants:
            rules = json.dumps(overrides)
            moves = {name: count("search", passes, game_id, rules, root) for name, root in roots.items()}
            line = f"  {game_id:<14}{rules:<32}{moves['this']:>8,.0f}{moves['this'] - idle:>8,.0f}"
            if baseline:
                base = moves["baseline"]
                line += (f"{base:>10,.0f}{base - idle:>8,.0f}   {base / moves['this']:.2f}x, "
                         f"{(base - idle) / (moves['this'] - idle):.2f}x")
            print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="games per probe")
    parser.add_argument("--passes", type=int, default=3, help="passes of the search loop per probe")
    parser.add_argument("--baseline", type=Path, help="another arena checkout, for the search loop's speed-ups")
    parser.add_argument("--only", choices=("engine", "layer", "search"), help="run one part")
    sub = parser.add_subparsers(dest="which")
    probe_parser = sub.add_parser("probe")  # one probe, in the process callgrind runs
    probe_parser.add_argument("kind")
    probe_parser.add_argument("n", type=int)
    probe_parser.add_argument("args", nargs="*")
    args = parser.parse_args()
    if args.which == "probe":
        print(probe(args.kind, args.n, *args.args))
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    from arena.games import how_they_run

    print(f"the games run {how_they_run()} (ARENA_INTERPRETED=1 runs them interpreted)")
    if args.only in (None, "engine"):
        lean, engine = count("lean", args.games), count("referee", args.games)
        print(f"instructions per decision, random Caterpillar, {args.games:,} games")
        print(f"  lean loop {lean:,.0f}   referee {engine:,.0f}   lean / referee {lean / engine:.3f}")
    if args.only in (None, "layer"):
        bare = count("bare", args.games)
        print("instructions per game, random Caterpillar, and the tournament layer over the bare referee")
        print(f"  bare referee {bare:,.0f}")
        for kind, label in (("batch", "play_batch in process"), ("worker", "worker_batch (clock, backstop page)")):
            per_game = count(kind, args.games)
            print(f"  {label} {per_game:,.0f}   {per_game / bare - 1:+.1%}")
    if args.only in (None, "search"):
        search_loop(args.passes, args.baseline)


if __name__ == "__main__":
    main()
