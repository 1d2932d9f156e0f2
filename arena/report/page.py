"""What the report's page shows (arena/web/templates/report.html renders it): the run's facts, one section per variant
(its tables and charts), each bot's colour and each variant's id in the page."""

from __future__ import annotations

import json
import re
import tomllib

import pandas as pd
from plotly.colors import qualitative

from arena.ratings import VariantRatings
from arena.report.charts import (
    PLOT_CONFIG,
    figure_json,
    los_figure,
    neighbours_figure,
    pairwise_figure,
    progress_figure,
    ratings_figure,
    scores_figure,
    seats_figure,
    terminations_figure,
)
from arena.results import RunDir
from arena.tournament.summary import ResultsSummary
from arena.web.formats import counted, model_use_lines, move_times_line, stop_lines, suspension_lines


def _workers(workers) -> str:
    """`1 worker`, `2 workers`, or `? workers` in a manifest that does not say."""
    return "? workers" if workers is None else counted(workers, "worker")


def variant_slugs(variants: list[str]) -> dict[str, str]:
    """A unique HTML id per variant: `game-caterpillar`, `game-go_for_it-jokers-true-players-3`."""
    out: dict[str, str] = {}
    for variant in variants:
        slug = "game-" + re.sub(r"[^A-Za-z0-9_]+", "-", variant).strip("-")
        candidate, n = slug, 2
        while candidate in out.values():
            candidate, n = f"{slug}-{n}", n + 1
        out[variant] = candidate
    return out


def bot_colours(bots: list[str]) -> dict[str, str]:
    """One colour per bot, the same in every chart of the report."""
    palette = qualitative.Plotly + qualitative.D3 + qualitative.Dark24
    return {bot: palette[i % len(palette)] for i, bot in enumerate(bots)}


# --- the page ---------------------------------------------------------------------------------------

def report_context(name: str, run: RunDir, config_text: str, manifest: dict | None, summary: ResultsSummary,
                   ratings: dict[str, VariantRatings], replays: dict[str, list[dict]], plotly_version: str,
                   bundle: str) -> dict:
    """What report.html shows: the run's facts (what was played, with which versions, how long it took, how to
    reproduce it, and the files the page needs beside it: `bundle`, the charts' script, and the replays), then a
    section per variant."""
    colours = bot_colours(sorted({bot for r in ratings.values() for bot in r.table["bot"]}))
    slugs = variant_slugs(list(ratings))
    facts: dict = {}
    if manifest:
        facts = {
            "stopped": stop_lines(manifest.get("stop")),
            "suspended": [line.removeprefix("suspended: ") for line in suspension_lines(manifest.get("suspended"))],
            "limits": limits_text(config_text), "move_times": move_times_line(summary.move_times),
            "model_seats": model_use_lines(summary.model_use),
            "wall": f"{manifest['wall_seconds']:,.1f} s (playing {manifest.get('play_seconds', 0):,.1f} s, rating "
                    f"{manifest.get('rating_seconds', 0):,.1f} s)",
            "played": f"{manifest.get('started', '?')} to {manifest.get('finished', '?')}, "
                      f"{manifest.get('backend', '?')}, {_workers(manifest.get('workers'))}, "
                      f"batches of {manifest.get('batch_size', '?')}",
            "versions": {**manifest.get("versions", {}), "plotly.js (report)": plotly_version},
            "bots": [{"name": bot, "spec": d.get("spec", ""),
                      "params": json.dumps(d["params"]) if d.get("params") else ""}
                     for bot, d in manifest.get("bots", {}).items()]}
    sections = [variant_section(variant, slugs[variant], rated, summary.scores.get(variant), summary.games[variant],
                                summary.terminations[variant], colours, replays.get(variant, []))
                for variant, rated in ratings.items()]
    return {"name": name, "run": str(run.path), "config_text": config_text, "manifest": manifest, "summary": summary,
            "slugs": slugs, "bundle": bundle, "sections": sections, "plot_config": PLOT_CONFIG, **facts}


def time_limits_of(config_text: str) -> tuple[float | None, float, float]:
    """The run's move time limit (None: none), setup time limit and wall-clock backstop, as its config gives them."""
    from arena.config import RunSettings

    run = tomllib.loads(config_text).get("run", {})
    limit = run.get("move_time_limit", RunSettings.move_time_limit)
    return (None if not limit else float(limit), float(run.get("setup_time_limit", RunSettings.setup_time_limit)),
            float(run.get("wall_backstop", RunSettings.wall_backstop)))


def limits_text(config_text: str) -> str:
    """The run's time limits, as its config gives them."""
    move, setup, wall = time_limits_of(config_text)
    return (f"{f'{move:g}s' if move else 'no limit'} of CPU time per move, {setup:g}s per setup call (construction "
            f"and reset); a call ends after {wall:g} times its limit in wall time")


def variant_section(variant: str, slug: str, rated: VariantRatings, scores: pd.DataFrame | None, games: int,
                    terminations: dict[str, int], colours: dict[str, str], examples: list[dict]) -> dict:
    """One variant: its ratings (rating table, pairings each once, deal pairs), example replays and charts."""
    bots = list(rated.table["bot"])
    plots = [
        ("ratings", ratings_figure(rated.table, colours)),
        ("los", los_figure(rated)),
        ("pairwise", pairwise_figure(rated.pairwise)),
        ("progress", progress_figure(rated.progress, bots, colours)),
        ("scores", scores_figure(scores, bots, colours)),
        ("seats", seats_figure(rated.seats)),
        ("neighbours", neighbours_figure(rated)),
        ("terminations", terminations_figure(terminations)),
    ]
    return {"variant": variant, "slug": slug, "games": games, "rated": rated, "pairs": pairings_once(rated.pairs),
            "examples": examples, "plots": [(kind, figure_json(fig)) for kind, fig in plots if fig is not None]}


def pairings_once(pairs: pd.DataFrame) -> pd.DataFrame:
    """Every pairing once: the row of the bot higher in the table (the first of the two)."""
    seen: set[tuple[str, str]] = set()
    keep = []
    for bot, opponent in zip(pairs["bot"], pairs["opponent"], strict=True):
        keep.append((opponent, bot) not in seen)
        seen.add((bot, opponent))
    return pairs[keep]
