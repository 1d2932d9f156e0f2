#!/usr/bin/env python3
"""The ladder: each bot's logistic Elo above `random`, per game, from a finished run of configs/ladder.toml.

    .venv/bin/arena tournament configs/ladder.toml --workers 2
    .venv/bin/python benchmarks/ladder.py reports/ladder

Each variant's Elo comes from one joint Bradley–Terry fit of all its deal-pair scores, anchored at random = 0,
with 95% intervals from the deal bootstrap (`arena.ratings.elo`; docs/expert.md, The ladder). Prints the
markdown table (a row per bot, highest mean Elo first; a column per variant), then the run's games and digest.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from arena.ratings.elo import run_elo
from arena.results import RunDir


def ladder(run_path: str, anchor: str = "random") -> str:
    """The ladder of a finished run as a markdown table, with a last line naming the run's games and digest."""
    run = RunDir(Path(run_path))
    tables = run_elo(run, anchor)
    variants = sorted(tables)
    cells: dict[str, dict[str, str]] = {}
    means: dict[str, list[float]] = {}
    for variant in variants:
        for row in tables[variant].frame().itertuples():
            cells.setdefault(row.bot, {})[variant] = (
                "0 (anchor)" if row.bot == anchor else f"{row.elo:+.0f} [{row.lo:+.0f}, {row.hi:+.0f}]")
            means.setdefault(row.bot, []).append(row.elo)
    order = sorted(cells, key=lambda bot: -sum(means[bot]) / len(means[bot]))
    lines = [f"| bot | {' | '.join(variants)} |", "|---|" + "---|" * len(variants)]
    lines += [f"| {bot} | {' | '.join(cells[bot].get(v, '') for v in variants)} |" for bot in order]
    manifest = json.loads(run.manifest.read_text())
    lines.append(f"\n{manifest['games']:,} games, digest {manifest['digest'][:16]}")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python benchmarks/ladder.py RUN_DIRECTORY  (a finished run of configs/ladder.toml)")
    print(ladder(sys.argv[1]))
