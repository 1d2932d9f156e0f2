"""The ladder: each bot's logistic Elo above `random`, per game, from a finished run of configs/ladder.toml.

    .venv/bin/arena tournament configs/ladder.toml
    .venv/bin/python benchmarks/ladder.py reports/ladder

A bot's Elo above random is -400 log10(1/s - 1) of s, its score against random: how often it placed above
random, a tie counting half, over every game of the deals they shared (at four players, over the tables
that seat both). The interval is that of the score, whose 95% interval counts deals, not games (a deal's
rotations share its cards): the Elo of each end. A score of 1 has no finite Elo, and shows as "+inf".
"""

from __future__ import annotations

import sys

import arena
from arena.stopping import score_elo


def elo(score: float) -> str:
    value = float(score_elo(score))
    return f"{value:+.0f}" if abs(value) != float("inf") else ("+inf" if value > 0 else "-inf")


def ladder(run_path: str, yardstick: str = "random") -> str:
    """The ladder of a finished run as a markdown table: a row per bot, a column per variant."""
    tables = arena.open_run(run_path).tables
    rows: dict[str, dict[str, str]] = {}
    scores: dict[str, list[float]] = {}
    for variant, rated in tables.items():
        for pair in rated.pairs[rated.pairs["opponent"] == yardstick].itertuples():
            rows.setdefault(pair.bot, {})[variant] = (f"{elo(pair.win_rate)} [{elo(pair.win_rate_lo)}, "
                                                      f"{elo(pair.win_rate_hi)}]")
            scores.setdefault(pair.bot, []).append(pair.win_rate)
    variants = list(tables)
    order = sorted(rows, key=lambda bot: -sum(scores[bot]) / len(scores[bot]))  # by mean score over the games
    lines = [f"| bot | {' | '.join(variants)} |", "|---|" + "---|" * len(variants)]
    lines += [f"| {bot} | {' | '.join(rows[bot].get(v, '') for v in variants)} |" for bot in order]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python benchmarks/ladder.py RUN_DIRECTORY  (a finished run of configs/ladder.toml)")
    print(ladder(sys.argv[1]))
