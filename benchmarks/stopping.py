#!/usr/bin/env python3
"""What the stopping rules save: deals an SPRT match needs, and deals `until = "settled"` saves on a config.

    .venv/bin/python benchmarks/stopping.py matches [--sprt 0,5] [--workers 0]
        heuristic against greedy in each two-player game: deals until the test decides, the verdict,
        Elo with its interval, seconds
    .venv/bin/python benchmarks/stopping.py settled [configs/strength.toml] [--fixed] [--workers 0]
        the config played with until = "settled" (its deals as the maximum): deals and games per variant
        against the fixed schedule, seconds; --fixed also plays the fixed config for its seconds
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from arena.config import load_config, parse_config
from arena.results import RunDir
from arena.tournament.runner import play_missing
from arena.tournament.schedule import Schedule
from arena.tournament.stopping import match_config

TWO_PLAYER_GAMES = ("caterpillar", "give_or_take", "duke_of_york")


def matches(sprt: list[float], workers: int, max_deals: int) -> None:
    print(f"heuristic vs greedy, SPRT elo0={sprt[0]:g} elo1={sprt[1]:g}, at most {max_deals:,} deals")
    print(f"{'game':<14}{'verdict':<13}{'deals':>7}{'games':>7}  {'Elo [95% CI]':<24}{'LLR':>7}{'seconds':>9}")
    with tempfile.TemporaryDirectory() as scratch:
        for game in TWO_PLAYER_GAMES:
            config = parse_config(match_config(game, "heuristic", "greedy", sprt=sprt, max_deals=max_deals, rules={},
                                               players=None, field="random", seed=1))
            started = time.perf_counter()
            report = play_missing(config, RunDir(Path(scratch) / game), workers=workers)
            m = report.stop["match"]
            elo = f"{m['elo']:+.0f} [{m['elo_lo']:+.0f}, {m['elo_hi'] or float('inf'):+.0f}]"
            print(f"{game:<14}{report.stop['variants'][game]['verdict']:<13}{m['deals']:>7,}{report.total:>7,}  "
                  f"{elo:<24}{m['llr']:>7.2f}{time.perf_counter() - started:>9.1f}")


def settled(path: Path, workers: int, fixed: bool) -> None:
    config = load_config(path)
    settled_config = dataclasses.replace(config, run=dataclasses.replace(config.run, until="settled"))
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        report = play_missing(settled_config, RunDir(Path(scratch) / "settled"), workers=workers)
        settled_seconds = time.perf_counter() - started
        fixed_seconds = None
        if fixed:
            started = time.perf_counter()
            play_missing(config, RunDir(Path(scratch) / "fixed"), workers=workers)
            fixed_seconds = time.perf_counter() - started
    schedule = Schedule(config)
    print(f"{path} with until = \"settled\" (round_deals {config.run.round_deals}, confidence "
          f"{config.run.confidence}, tie_margin {config.run.tie_margin})")
    print(f"{'variant':<28}{'verdict':<11}{'deals':>7}{'of':>5}{'games':>8}{'of':>7}  unsettled")
    for block in schedule.blocks:
        v = report.stop["variants"][block.label]
        games = len(block.tables) * v["deals"] * block.rotations
        print(f"{block.label:<28}{v['verdict']:<11}{v['deals']:>7,}{block.deals:>5,}{games:>8,}{block.count:>7,}  "
              f"{', '.join(v.get('unsettled', []))}")
    print(f"games: {report.total:,} of {schedule.total:,} ({1 - report.total / schedule.total:.0%} saved); "
          f"{settled_seconds:.1f} s" + (f" against {fixed_seconds:.1f} s for the fixed run" if fixed else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["matches", "settled"])
    parser.add_argument("config", nargs="?", default="configs/strength.toml", type=Path)
    parser.add_argument("--sprt", default="0,5")
    parser.add_argument("--max-deals", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--fixed", action="store_true")
    args = parser.parse_args()
    if args.mode == "matches":
        matches([float(x) for x in args.sprt.split(",")], args.workers, args.max_deals)
    else:
        settled(args.config, args.workers, args.fixed)


if __name__ == "__main__":
    main()
