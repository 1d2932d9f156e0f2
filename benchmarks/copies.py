#!/usr/bin/env python3
"""Copies of a bot in a multi-player league, some there from the start and one added late: do they share a tier?

The leagues of docs/numbers.md ("Company"): Go For It with three, four and six players (jokers), the first bots
played 3,000 games, then the late ones added and 3,000 games more (one worker, `deals = 4`, seed 4242, or 6161
at six players). Prints each league's copies of `random`: mu [95% CI], tier, games.

    .venv/bin/python benchmarks/copies.py                  # every league, about 2 minutes on one core
    .venv/bin/python benchmarks/copies.py --league 4       # one of 3, 4, 6a, 6b
"""

from __future__ import annotations

import argparse
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from arena.league import new_league
from arena.league.frozen import add_bot
from arena.league.play import play_league
from arena.league.standings import league_ratings

LEAGUES = {  # name: (players and rules, seed, first bots, late bots); "name=bot" adds bot under name
    "3": ("{ players = 3 }", 4242, ["random", "greedy", "heuristic"], ["twin=random"]),
    "4": ("{ players = 4 }", 4242, ["random", "greedy", "heuristic", "greedy-2=greedy"],
          ["random-2=random", "heuristic-2=heuristic"]),
    "6a": ("{ players = 6, jokers = true }", 6161, ["random", "random-3=random", "greedy", "heuristic",
                                                  "greedy-2=greedy", "heuristic-2=heuristic", "expert"],
           ["random-2=random"]),
    "6b": ("{ players = 6, jokers = true }", 6161, ["random", "greedy", "heuristic", "greedy-2=greedy",
                                                  "heuristic-2=heuristic", "random-3=random"],
           ["random-2=random", "expert"]),
}
TOML = """name = "copies"
seed = {seed}

[[games]]
game = "go_for_it"
rules = {rules}

[run]
workers = 1

[league]
deals = 4
isolation = "none"
"""


def add(league: Path, bots: list[str]) -> None:
    for entry in bots:
        name, _, spec = entry.rpartition("=")
        added = add_bot(league, spec, name=name or None, sandboxed=False)
        assert added.new, added.problems


@contextmanager
def late_copies(rules: str, seed: int, first: list[str], late: list[str], before: int, company_deals: int | None = None,
                **after):
    """A Go For It league in a scratch folder: `first` play `before` games, then `late` join and the league plays on
    (`after`: play_league's options); yields the league and that last play's report. `company_deals`: the ratings'
    cap on a company, if not the default."""
    with tempfile.TemporaryDirectory(prefix="arena-copies-") as scratch:
        toml = Path(scratch) / "league.toml"
        ratings = "" if company_deals is None else f"\n[ratings]\ncompany_deals = {company_deals}\n"
        toml.write_text(TOML.format(seed=seed, rules=rules) + ratings)
        league = Path(scratch) / "league"
        new_league(league, toml)
        add(league, first)
        play_league(league, games=before, workers=1)
        add(league, late)
        yield league, play_league(league, workers=1, **after)


def run(key: str, games: int) -> None:
    rules, seed, first, late = LEAGUES[key]
    started = time.perf_counter()
    with late_copies(rules, seed, first, late, games, games=games) as (league, _):
        (rated,) = league_ratings(league).values()
        table = rated.table
        print(f"league {key}: {rules}, seed {seed}; {', '.join(first)}, then {', '.join(late)} "
              f"({time.perf_counter() - started:.0f}s)")
        for row in table[table["bot"].str.startswith(("random", "twin"))].itertuples():
            print(f"  {row.bot:<10} {row.mu:6.2f} [{row.mu_lo:.2f}, {row.mu_hi:.2f}]  tier {row.tier:<4} "
                  f"{row.games:>6,} games")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--league", choices=sorted(LEAGUES), action="append", help="default: every one")
    parser.add_argument("--games", type=int, default=3000, help="games before the late bots came, and after")
    args = parser.parse_args()
    for key in args.league or LEAGUES:
        run(key, args.games)


if __name__ == "__main__":
    main()
