#!/usr/bin/env python3
"""Builds the race planner's tables (bots/race/go_for_it_2.json and go_for_it_4.json) from heuristic self-play.

    .venv/bin/python benchmarks/race_tables.py [--players 2] [--games 10000] [--seed 1] [--out FILE]

Plays `--games` games of Go For It (whole blocks of 100), the heuristic in every seat, on deals drawn from
`--seed` and each block's number alone, and writes what bots/race/selfplay.py builds from them: the rows'
outcomes, a digest of each block's, and the values of pile sizes. The same seed and games give the same
file, bit for bit (tests/test_expert.py rebuilds a block and the values from the file's outcomes).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from arena.bots import BUNDLED_DIR, load_spec


def race_selfplay():
    """bots/race/selfplay.py, imported by its location as the bots import it."""
    heuristic = sys.modules[load_spec(f"{BUNDLED_DIR / 'heuristic.py'}:HeuristicBot").__module__]
    package = heuristic.import_package(BUNDLED_DIR / "race")
    return importlib.import_module(f"{package.__name__}.selfplay")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, choices=(2, 4), default=2)
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="the file written (default: bots/race/go_for_it_PLAYERS.json)")
    args = parser.parse_args()
    out = args.out or BUNDLED_DIR / "race" / f"go_for_it_{args.players}.json"
    table = race_selfplay().build(args.players, args.seed, args.games)
    out.write_text(json.dumps(table, separators=(",", ":")) + "\n")
    print(f"{out}: {table['games']:,} games, {sum(len(v) for v in table['rows'].values()):,} outcomes")


if __name__ == "__main__":
    main()
