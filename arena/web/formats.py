"""Numbers as arena writes them everywhere, in the terminal, the run report and the league's pages: an interval,
a count with its noun, shared places, what the slowest moves took, what a stopping rule decided."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas is not imported for the formats: a command that shows no table spares its 0.2 s
    import pandas as pd


def interval(value: float, lo: float | None, hi: float | None, digits: int) -> str:
    """`value [lo, hi]`, with a dash for a bound that is undefined (a single deal has no interval): the one format
    of an interval in the terminal, the run report and the league's pages."""
    return f"{value:.{digits}f} {bounds(lo, hi, digits)}"


def bounds(lo: float | None, hi: float | None, digits: int) -> str:
    """`[lo, hi]`, with a dash for a bound that is undefined."""
    bound = lambda x: "–" if x is None or math.isnan(x) else f"{x:.{digits}f}"
    return f"[{bound(lo)}, {bound(hi)}]"


LOADED = 1.5
"""The slowest moves of a run that took this many times their CPU time in wall time (the interval's low end) say
the machine was loaded: their bots waited for a busy machine (arena.tournament.summary.MoveTimes)."""


def move_times_line(times: dict | None) -> str | None:
    """What a run's slowest moves took (`MoveTimes.result`), and whether the machine was loaded; None when no move
    was timed."""
    if not times:
        return None
    line = f"slowest move {times['cpu']:.2f}s of CPU time, {times['wall']:.2f}s of wall time"
    if "wall_per_cpu" not in times:
        return line
    line += (f"; the slowest moves of {counted(times['games'], 'game')} took "
             f"{interval(times['wall_per_cpu'], times['low'], times['high'], 2)} times their CPU time in wall time")
    if times["low"] is not None and times["low"] >= LOADED:
        line += (": the machine was loaded (or the bots waited); time limits count CPU time, so load decided no "
                 "game short of the wall-clock backstop")
    return line


def model_use_lines(use: dict | None) -> list[str]:
    """What each model seat spent (`ModelUse.result`): tokens a game, asks a game, seconds an ask; [] when no model
    played."""
    lines = []
    for bot, s in (use or {}).items():
        games, asks = max(s["games"], 1), max(s["tries"], 1)
        lines.append(f"{bot}: {s['tokens_in'] / games:,.0f} tokens in and {s['tokens_out'] / games:,.0f} out a game "
                     f"({s['tokens_in'] + s['tokens_out']:,} in {counted(s['games'], 'game')}), "
                     f"{s['tries'] / games:.1f} asks a game, {s['seconds'] / asks:.2f} s an ask")
    return lines


def counted(n: int, noun: str) -> str:
    """`1 game`, `3,960 games`: a count with its noun in the number that agrees with it."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def places(ranks: pd.Series) -> list[str]:
    """Places as the tiers write them: a place two bots share is `2=` for both."""
    shared = ranks.value_counts()
    return [f"{r}=" if shared[r] > 1 else str(r) for r in ranks]


def suspension_lines(suspended: dict | None) -> list[str]:
    """Which bots the run suspended for stalling, and when (the manifest's `suspended`); none when none was."""
    return [f"suspended: {bot} {facts['fault']} (calls the wall-clock backstop ended: {facts['stalls']} in the run, "
            f"the last before its suspension in game {facts['last_stall']}): {counted(facts['games'], 'game')} from "
            f"game {facts['from_game']} on recorded unplayed, each a timeout charged to it"
            for bot, facts in (suspended or {}).items()]


def stop_lines(stop: dict | None) -> list[str]:
    """What a stopping rule decided (the manifest's `stop`), a few lines; none when every deal was played."""
    if not stop:
        return []
    if stop["until"] == "sprt":
        m = stop["match"]
        elo = lambda x, unbounded="inf": unbounded if x is None else f"{x:+.1f}"  # None: infinite
        diff = lambda x: "n/a" if x is None else f"{x:+.1f}"  # None: no interval from a single deal
        lines = [f"match: {m['deals']:,} deals, score {m['score']:.3f} [{m['score_lo']:.3f}, {m['score_hi']:.3f}], "
                 f"Elo {elo(m['elo'])} [{elo(m['elo_lo'], '-inf')}, {elo(m['elo_hi'], '+inf')}], "
                 f"game score difference {diff(m['score_diff'])} [{diff(m['score_diff_lo'])}, "
                 f"{diff(m['score_diff_hi'])}] per game"]
        if m["penta"] is not None:
            lines.append("deal pairs by the first bot's points, 0 / ½ / 1 / 1½ / 2: "
                         + " / ".join(f"{n:,}" for n in m["penta"]))
        (verdict,) = {v["verdict"] for v in stop["variants"].values()}
        lines.append(f"{verdict}: LLR {m['llr']:.2f}, bounds ({m['lower']:.2f}, {m['upper']:.2f})")
        return lines
    lines = []
    for variant, v in stop["variants"].items():
        if v["verdict"] == "settled":
            lines.append(f"{variant}: settled after {v['deals']:,} of {v['max_deals']:,} deals per table")
        else:
            lines.append(f"{variant}: not settled after all {v['deals']:,} deals per table"
                         + (f" ({', '.join(v['unsettled'])} still open)" if v.get("unsettled") else ""))
    return lines


def thousands(n: int) -> str:
    """`3,960`: a count with its thousands apart."""
    return f"{n:,}"
