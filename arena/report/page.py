"""The report's page: the run's facts, one section per variant (its tables and charts), its HTML and style."""

from __future__ import annotations

import html
import json
import re
import tomllib

import pandas as pd
from plotly.colors import qualitative

from arena.ratings import VariantRatings
from arena.report.charts import (
    figure_html,
    los_figure,
    neighbours_figure,
    pairwise_figure,
    progress_figure,
    ratings_figure,
    scores_figure,
    seats_figure,
    terminations_figure,
)
from arena.web.formats import (
    bounds,
    counted,
    interval,
    model_use_lines,
    move_times_line,
    places,
    stop_lines,
    suspension_lines,
)
from arena.results import RunDir
from arena.tournament.summary import ResultsSummary


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

def page_header(name: str, run: RunDir, config_text: str, manifest: dict | None, summary: ResultsSummary,
                slugs: dict[str, str], plotly_version: str, bundle: str) -> str:
    """The run's facts: what was played, with which versions, how long it took, how to reproduce it, and the
    files the page needs beside it (`bundle`, the charts' script, and the replays)."""
    e = html.escape
    facts: list[tuple[str, str]] = []
    games = ", ".join(f"<a href='#{slugs.get(v, '')}'>{e(v)}</a> {n:,}" for v, n in summary.games.items())
    if manifest:
        facts.append(("games", f"{manifest['games']:,} ({games})"))
        if manifest.get("stop"):
            facts.append(("stopped", "<br>".join(e(line) for line in stop_lines(manifest["stop"]))))
        if manifest.get("suspended"):
            facts.append(("suspended", "<br>".join(e(line.removeprefix("suspended: "))
                                                   for line in suspension_lines(manifest["suspended"]))))
        facts.append(("digest", f"<code>{e(manifest['digest'])}</code>"))
        facts.append(("time limits", e(limits_text(config_text))))
        if (times := move_times_line(summary.move_times)) is not None:
            facts.append(("move times", e(times)))
        if uses := model_use_lines(summary.model_use):
            facts.append(("model seats", "<br>".join(e(line) for line in uses)))
        facts.append(("wall time", f"{manifest['wall_seconds']:,.1f} s (playing {manifest.get('play_seconds', 0):,.1f} "
                                   f"s, rating {manifest.get('rating_seconds', 0):,.1f} s)"))
        facts.append(("played", f"{e(str(manifest.get('started', '?')))} to {e(str(manifest.get('finished', '?')))}, "
                                f"{e(str(manifest.get('backend', '?')))}, {_workers(manifest.get('workers'))}, "
                                f"batches of {manifest.get('batch_size', '?')}"))
        versions = {**manifest.get("versions", {}), "plotly.js (report)": plotly_version}
        facts.append(("versions", ", ".join(f"{e(k)} {e(str(v))}" for k, v in versions.items())))
        bots = manifest.get("bots", {})
        facts.append(("bots", "<br>".join(f"{e(b)}: <code>{e(d.get('spec', ''))}</code>"
                                          + (f" {e(json.dumps(d['params']))}" if d.get("params") else "")
                                          for b, d in bots.items())))
    else:
        facts.append(("games", f"{summary.total:,} saved ({games})"))
        facts.append(("status", "<strong>unfinished</strong>: no manifest.json yet; finish the run with "
                                "<code>arena tournament CONFIG --resume</code>"))
    facts.append(("reproduce", f"<code>arena reproduce {e(str(run.path))}</code> re-plays this config and "
                               "checks the digest"))
    facts.append(("beside this page", f"<code>{e(bundle)}</code> (plotly.js, which draws the charts) and "
                                      "<code>replays/</code> (the example games): this page needs them, so copy "
                                      "the whole run directory, not the page alone"))
    rows = "\n".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in facts)
    return (f"<header><h1>Arena report: {e(name)}</h1>\n<table class='facts'>{rows}</table>\n"
            f"<details><summary>config.toml</summary><pre class='config'>{e(config_text)}</pre></details>"
            f"</header>")


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
                    terminations: dict[str, int], colours: dict[str, str], replays: list[str] | None = None) -> str:
    """One variant: rating table, example replays, pairings, deal pairs, then the charts."""
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
    divs = "\n".join(f"<div class='plot' data-plot='{kind}'>{figure_html(fig, f'{slug}-{kind}')}</div>"
                     for kind, fig in plots if fig is not None)
    if rated.method == "batch":
        how = ("Ranked by TrueSkill μ, the posterior given all games at once (order-free). Intervals come from "
               "resampling whole deals; bots whose difference is not significant at 95% share a tier "
               "(<code>2=</code>).")
        if rated.company_balanced:
            how += (" Its tables were played unequally often, so each company (the set of bots at a table) counts at "
                    "most <code>company_deals</code> deals' worth in the fit, or half its share of a round robin "
                    "of as many games where that is more: a bot's result depends on its tablemates.")
    else:
        how = ("Ranked by the online TrueSkill μ − 3σ, updated game by game in game-index order; its σ is the "
               "model's, tiers come from resampling whole deals.")
    cross = ("The Plackett–Luce maximum-likelihood fit of the same games gives the same order."
             if not rated.disagreements else
             "The Plackett–Luce maximum-likelihood fit disagrees: " + html.escape("; ".join(rated.disagreements)) + ".")
    if rated.misfits:
        cross += (" Misfit: the ratings do not predict what these bots' shared tables saw: "
                  + html.escape("; ".join(rated.misfits)) + ".")
    duplicate = ""
    if rated.duplicate is not None:
        duplicate = ("<h3>Deal pairs (same cards, seats swapped)</h3>"
                     "<p class='note'>Points of the bot over both games of a deal: 0, ½, 1, 1½ or 2 (pentanomial "
                     "counts), its score per game, and its mean score margin over the pair, where the luck of "
                     "the cards cancels.</p>" + _duplicate_table(rated.duplicate))
    examples = ""
    if replays:
        examples = ("<p class='note replays'>Example replays (step through every move; all hands shown): "
                    + " · ".join(replays) + "</p>\n")
    return (f"<section class='game' id='{slug}'><h2>{html.escape(variant)}</h2>\n"
            f"<p class='note'>{counted(games, 'game')}. {how}</p>\n{_rating_table(rated.table)}\n{examples}"
            f"<p class='note'>{cross}</p>\n<h3>Pairings</h3>{_pairs_table(rated.pairs)}{duplicate}\n"
            f"<div class='plots'>{divs}</div></section>")


def _rating_table(table: pd.DataFrame) -> str:
    """The rating table as HTML."""
    head = ("<tr><th>rank</th><th>bot</th><th>μ (95% CI)</th><th>σ</th><th>μ − 3σ</th><th>games</th><th>deals</th>"
            "<th>wins</th><th>win rate (95% CI)</th><th>mean score (95% CI)</th><th>forfeits</th>"
            "<th>Plackett–Luce</th></tr>")
    rows = [
        f"<tr class='tier-{r.tier % 2}'><td>{html.escape(str(r.rank))}</td><td class='bot'>{html.escape(str(r.bot))}"
        f"</td><td><strong>{r.mu:.2f}</strong> {bounds(r.mu_lo, r.mu_hi, 2)}</td><td>{r.sigma:.2f}</td>"
        f"<td>{r.conservative:.2f}</td><td>{r.games:,}</td><td>{r.deals:,}</td><td>{r.wins:,}</td>"
        f"<td>{interval(r.win_rate, r.win_rate_lo, r.win_rate_hi, 3)}</td>"
        f"<td>{interval(r.mean_score, r.mean_score_lo, r.mean_score_hi, 1)}</td>"
        f"<td>{r.forfeits:,}</td><td>{pl}</td></tr>"
        for r, pl in zip(table.itertuples(index=False), places(table["pl_rank"]), strict=True)
    ]
    return f"<table class='ratings'>{head}{''.join(rows)}</table>"


def _pairs_table(pairs: pd.DataFrame) -> str:
    """Every pairing once (the bot higher in the table first): record, rating difference and LOS."""
    head = ("<tr><th>bot</th><th>opponent</th><th>games</th><th>deals</th><th>ranked above (95% CI)</th>"
            "<th>μ difference (95% CI)</th><th>LOS</th></tr>")
    seen, rows = set(), []
    for r in pairs.itertuples(index=False):
        if (r.opponent, r.bot) in seen:
            continue
        seen.add((r.bot, r.opponent))
        rows.append(f"<tr><td class='bot'>{html.escape(str(r.bot))}</td><td class='bot'>{html.escape(str(r.opponent))}"
                    f"</td><td>{r.games:,}</td><td>{r.deals:,}</td>"
                    f"<td>{interval(r.win_rate, r.win_rate_lo, r.win_rate_hi, 3)}</td>"
                    f"<td>{r.mu_diff:+.2f} {bounds(r.mu_diff_lo, r.mu_diff_hi, 2)}</td>"
                    f"<td>{r.los:.3f}</td></tr>")
    return f"<table class='pairs'>{head}{''.join(rows)}</table>"


def _duplicate_table(dup: pd.DataFrame) -> str:
    """Two-player pairings on deal pairs: pentanomial counts, score and duplicate score margin."""
    head = ("<tr><th>bot</th><th>opponent</th><th>deal pairs</th><th>0</th><th>½</th><th>1</th><th>1½</th><th>2</th>"
            "<th>score (95% CI)</th><th>score margin (95% CI)</th></tr>")
    rows = [f"<tr><td class='bot'>{html.escape(str(r.bot))}</td><td class='bot'>{html.escape(str(r.opponent))}</td>"
            f"<td>{r.deals:,}</td>" + "".join(f"<td>{int(v):,}</td>" for v in (r.p0, r.p05, r.p1, r.p15, r.p2))
            + f"<td>{interval(r.score, r.score_lo, r.score_hi, 3)}</td>"
            f"<td>{r.score_diff:+.1f} {bounds(r.score_diff_lo, r.score_diff_hi, 1)}</td></tr>"
            for r in dup.itertuples(index=False)]
    return f"<table class='pairs'>{head}{''.join(rows)}</table>"


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
<script src="{bundle}"></script>
</head>
<body>
{body}
</body>
</html>
"""

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; color: #222; margin: 0 auto; padding: 16px 24px; max-width: 1500px; }
h1 { font-size: 24px; margin: 8px 0 12px; }
h2 { font-size: 20px; margin: 0 0 4px; }
section.game { border-top: 2px solid #ddd; margin-top: 28px; padding-top: 16px; }
table { border-collapse: collapse; margin: 8px 0 12px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e5e5e5; text-align: right; vertical-align: top; }
table.facts th, table.facts td, td.bot { text-align: left; }
table.ratings th, table.pairs th { background: #f4f4f4; }
table.ratings tr.tier-1 td { background: #f7f9fc; }
h3 { font-size: 16px; margin: 14px 0 2px; }
pre.config { background: #f7f7f7; border: 1px solid #e5e5e5; padding: 8px 12px; overflow-x: auto; }
.note { color: #555; margin: 2px 0 6px; }
.plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 12px 20px; }
.plot { min-width: 0; }
code { font-size: 12px; }
"""
