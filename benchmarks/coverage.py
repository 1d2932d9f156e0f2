#!/usr/bin/env python3
"""Twins added late: does `--until settled` stop with a late copy where its original stands?

A Go For It league of three, four or six players plays `--before` games, then copies of some of its bots join
(the same code under another name) and the league plays `--until settled`, at most `--cap` games more. At its stop
each late copy is checked against its original: whether they are in different tiers (a split: two equal bots should
split in at most 5% of the checks), by the fixed 95% tiers of `arena ratings` (`split`) and by the league's own, which
break only where its settled rule calls a pair separated (`split_settled`); the gap mu(copy) - mu(original); and the
games played after the copies came. One worker, `deals = 4`, `isolation = "none"`.

    nice -n 10 .venv/bin/python benchmarks/coverage.py --seeds 101-110 [--players 3 4 6] [--before 2000]
                                                        [--cap 8000] [--company-deals N] [--pairs] [--out rows.csv]
    .venv/bin/python benchmarks/coverage.py --summary rows.csv [rows-before.csv ...]

Each league prints one CSV row a copy (appended to `--out`); `--summary` reads such files and prints, per file and
player count, the shares of checks that split (with exact 95% intervals), the mean gap with its 95% interval, the
mean games to the stop (a league stopped by `--cap` counted at the cap), and the mean and range over the leagues that
settled.
Run on a checkout of an earlier commit, the same script measures the rule as it was (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from itertools import pairwise
from pathlib import Path

from copies import late_copies  # benchmarks/ is the script's own folder: first on its path

from arena.league.standings import league_ratings

LEAGUES = {  # players: (rules, first bots, late copies as copy=original)
    3: ("{ players = 3 }", ["random", "greedy", "heuristic"], ["random-2=random", "heuristic-2=heuristic"]),
    4: ("{ players = 4 }", ["random", "greedy", "heuristic", "greedy-2=greedy"],
        ["random-2=random", "heuristic-2=heuristic"]),
    6: ("{ players = 6, jokers = true }", ["random", "greedy", "heuristic", "greedy-2=greedy", "heuristic-2=heuristic",
                                            "random-3=random"], ["random-2=random"]),
}
FIELDS = ["players", "seed", "copy", "original", "mu_copy", "mu_original", "gap", "split", "split_settled", "called",
          "copy_games", "games_after", "settled", "seconds"]


def run(players: int, seed: int, before: int, cap: int, company_deals: int | None = None, pairs: bool = False
        ) -> list[dict]:
    """One league: its rows, one a late copy; with `pairs`, its `arena league table --pairs` printed at its stop."""
    rules, first, late = LEAGUES[players]
    started = time.perf_counter()
    with late_copies(rules, seed, first, late, before, company_deals, until_settled=True,
                     games=cap) as (league, report):
        (rated,) = league_ratings(league).values()
        table = rated.table.set_index("bot")
        order, called, shown = verdicts(league)
        if pairs:
            print(f"{players} players, seed {seed}: {report.stopped}", shown, sep="\n", file=sys.stderr)
        rows = []
        for entry in late:
            copy, _, original = entry.partition("=")
            rows.append({"players": players, "seed": seed, "copy": copy, "original": original,
                         "mu_copy": round(float(table.at[copy, "mu"]), 4),
                         "mu_original": round(float(table.at[original, "mu"]), 4),
                         "gap": round(float(table.at[copy, "mu"] - table.at[original, "mu"]), 4),
                         "split": int(table.at[copy, "tier"] != table.at[original, "tier"]),
                         "split_settled": apart(order, called, copy, original),
                         "called": called.get(frozenset((copy, original)), "not adjacent"),
                         "copy_games": int(table.at[copy, "games"]), "games_after": report.played_now,
                         "settled": int("settled" in report.stopped),
                         "seconds": round(time.perf_counter() - started)})
        return rows


def verdicts(league: Path) -> tuple[list[str], dict, str]:
    """The active bots in the order of the league's settled rule, what it says of each adjacent pair (`arena league
    table --pairs`) by the pair's bots, and that table as text; empty where the code has no such table (an earlier
    commit, for the rule as it was)."""
    try:
        from arena.league.standings import pair_frame
    except ImportError:
        return [], {}, "(no table of pairs)"
    pairs = pair_frame(league)
    order = [*pairs["bot"], *pairs["next"][-1:]]
    return order, {frozenset((p.bot, p.next)): p.settled for p in pairs.itertuples()}, pairs.to_string(index=False)


def apart(order: list[str], called: dict, copy: str, original: str) -> int | str:
    """1 where the settled rule puts a tier break between the copy and its original (a pair between them called
    "separated": the league's own tiers), 0 where not, "" where the code has no such rule."""
    if not order:
        return ""
    low, high = sorted((order.index(copy), order.index(original)))
    return int(any(called[frozenset(pair)] == "separated" for pair in pairwise(order[low:high + 1])))


def seeds_of(text: str) -> list[int]:
    """`101-110` or `101,105`."""
    if "-" in text:
        low, high = text.split("-")
        return list(range(int(low), int(high) + 1))
    return [int(s) for s in text.split(",")]


def share(hits: int, checks: int) -> str:
    """`hits` of `checks` as a count and a percentage with its exact (Clopper-Pearson) 95% interval."""
    from scipy.stats import beta

    low = beta.ppf(0.025, hits, checks - hits + 1) if hits else 0.0
    high = beta.ppf(0.975, hits + 1, checks - hits) if hits < checks else 1.0
    return f"{hits} ({hits / checks:.0%} [{low:.0%}, {high:.0%}])"


def summary(paths: list[str]) -> None:
    """Per file and player count: splits by the fixed 95% tiers and by the league's tiers (the settled rule), each with
    its 95% interval, the mean gap [95% CI], the mean games after the copies came, leagues settled."""
    print("| rows | players | checks | split, fixed 95% tiers | split, the league's tiers | mean gap [95% CI] | "
          "mean abs gap | games after the copies came | settled | games after the copies came, settled leagues |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---|")
    for path in paths:
        rows = list(csv.DictReader(open(path)))
        for players in sorted({int(r["players"]) for r in rows}):
            mine = [r for r in rows if int(r["players"]) == players]
            gaps = [float(r["gap"]) for r in mine]
            mean = sum(gaps) / len(gaps)
            sd = math.sqrt(sum((g - mean) ** 2 for g in gaps) / max(1, len(gaps) - 1))
            half = 1.96 * sd / math.sqrt(len(gaps))
            leagues = {r["seed"]: r for r in mine}.values()
            games = sum(int(r["games_after"]) for r in leagues) / len(leagues)
            settled = sum(int(r["settled"]) for r in leagues)
            stops = [int(r["games_after"]) for r in leagues if int(r["settled"])]
            stopped = (f"{sum(stops) / len(stops):,.0f} ({min(stops):,}–{max(stops):,})" if stops else "none settled")
            by_rule = [r.get("split_settled", "") for r in mine]
            ruled = "–" if "" in by_rule else share(sum(map(int, by_rule)), len(mine))
            split = share(sum(int(r["split"]) for r in mine), len(mine))
            print(f"| {Path(path).name} | {players} | {len(mine)} | {split} | {ruled} | "
                  f"{mean:+.2f} [{mean - half:+.2f}, {mean + half:+.2f}] | "
                  f"{sum(map(abs, gaps)) / len(gaps):.2f} | {games:,.0f} | {settled} of {len(leagues)} | {stopped} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="101-110")
    parser.add_argument("--players", type=int, nargs="+", choices=sorted(LEAGUES), default=sorted(LEAGUES))
    parser.add_argument("--before", type=int, default=2000, help="games before the copies came")
    parser.add_argument("--cap", type=int, default=8000, help="games after, at most")
    parser.add_argument("--company-deals", type=int, help="the ratings' cap on a company (default: the league's)")
    parser.add_argument("--pairs", action="store_true", help="print each league's adjacent pairs at its stop (stderr)")
    parser.add_argument("--out", help="append the rows to this CSV file")
    parser.add_argument("--summary", nargs="+", metavar="CSV", help="summarise rows written before, and stop")
    args = parser.parse_args()
    if args.summary:
        summary(args.summary)
        return
    out = Path(args.out) if args.out else None
    writer = csv.DictWriter(sys.stdout, FIELDS)
    writer.writeheader()
    for seed in seeds_of(args.seeds):
        for players in args.players:
            rows = run(players, seed, args.before, args.cap, args.company_deals, args.pairs)
            writer.writerows(rows)
            sys.stdout.flush()
            if out is not None:
                fresh = not out.exists()
                with out.open("a", newline="") as handle:
                    appended = csv.DictWriter(handle, FIELDS)
                    if fresh:
                        appended.writeheader()
                    appended.writerows(rows)


if __name__ == "__main__":
    main()
