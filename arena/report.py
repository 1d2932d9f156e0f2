"""The HTML report of a run: one self-contained page of tables and interactive plotly charts.

The page carries its own copy of plotly.js, so it opens offline in any browser. Every chart is
computed from the saved results (never from raw rows in the page): ratings and their history are
re-rated with the run's `[ratings]` settings, score distributions are drawn as precomputed box
plots, and long rating histories are thinned to HISTORY_POINTS per bot, so the file stays small
however many games the run holds.
"""

from __future__ import annotations

import html
import json
import re
import tomllib
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import plotly
import plotly.graph_objects as go
import plotly.io as pio
import pyarrow as pa
import pyarrow.compute as pc
from plotly.colors import qualitative
from plotly.offline import get_plotlyjs
from plotly.subplots import make_subplots

from arena.atomic import write_atomic
from arena.config import rating_settings
from arena.games.base import TERMINATIONS
from arena.ratings import RatingSettings, VariantRatings, rate_results, summaries
from arena.results import RATED_COLUMNS, RunDir, load_results, results_frame

HISTORY_POINTS = 500
"""Points per bot kept of a rating history: enough for a smooth curve, few enough for a small file."""
PLOT_HEIGHT = 380
FAULTS = {"crash", "illegal_move", "timeout"}
"""Terminations that forfeit a bot's game: drawn in red."""

def write_report(run: RunDir, ratings: dict[str, VariantRatings] | None = None,
                 table: pa.Table | None = None) -> Path:
    """Writes the run's report.html from its results, config and manifest; returns its path.

    `ratings`: the run's `rate_results(..., history=True)` and `table` its `load_results`, if the
    caller has them, to skip rating and reading again.
    """
    write_atomic(run.report, render_report(run, ratings, table).encode())
    return run.report


def render_report(run: RunDir, ratings: dict[str, VariantRatings] | None = None,
                  table: pa.Table | None = None) -> str:
    """The report of a run as one HTML page."""
    config_text = run.config.read_text()
    manifest = json.loads(run.manifest.read_text()) if run.manifest.is_file() else None
    name = manifest["name"] if manifest else run.path.name
    table = load_results(run, RATED_COLUMNS) if table is None else table
    frame = results_frame(table)
    if ratings is None or any(r.history is None for r in ratings.values()):
        ratings = rate_results(frame, _rating_settings(config_text), history=True) if len(frame) else {}
    summary = summaries(frame, ratings) if len(frame) else {}
    scores = _score_boxes(table)
    colours = _colours(sorted({bot for r in ratings.values() for bot in r.table["bot"]}))
    slugs = _slugs(list(ratings))
    game_numbers = {v: g.to_numpy() for v, g in frame.groupby("variant", sort=False)["game_index"]}
    terminations = frame.groupby(["variant", "termination"], sort=False).size()
    sections = []
    for variant, rated in ratings.items():
        sections.append(_section(variant, slugs[variant], rated, summary[variant], scores.get(variant),
                                 game_numbers[variant], terminations.loc[variant], colours))
    body = [_header(name, run, config_text, manifest, frame, slugs, plotly.__version__)]
    body += sections or ["<p class='note'>This run holds no games yet.</p>"]
    return PAGE.format(title=html.escape(f"Arena report: {name}"), style=STYLE, plotlyjs=get_plotlyjs(),
                       body="\n".join(body))


# --- data -------------------------------------------------------------------------------------------

def _rating_settings(config_text: str) -> RatingSettings:
    """The TrueSkill settings of the run's config (only its `[ratings]` table: bot files need not be at hand)."""
    return rating_settings(tomllib.loads(config_text).get("ratings", {}))


def _score_boxes(table: pa.Table) -> dict[str, pd.DataFrame]:
    """Per variant, per bot: the box-plot statistics of its scores (quartiles, Tukey whiskers, mean)."""
    if not table.num_rows:
        return {}
    sizes = pc.list_value_length(table.column("players")).to_numpy(zero_copy_only=False)
    variant_codes, variants = pd.factorize(table.column("variant").to_numpy(zero_copy_only=False))
    seats = pd.DataFrame({
        "variant": np.repeat(variant_codes, sizes),
        "bot": pc.list_flatten(table.column("players")).to_numpy(zero_copy_only=False),
        "score": pc.list_flatten(table.column("scores")).to_numpy(zero_copy_only=False).astype(np.float64),
    })
    groups = seats.groupby(["variant", "bot"], sort=False)["score"]
    stats = groups.quantile([0.25, 0.5, 0.75]).unstack()
    stats.columns = ["q1", "median", "q3"]
    stats["mean"] = groups.mean()
    iqr = stats["q3"] - stats["q1"]
    low, high = stats["q1"] - 1.5 * iqr, stats["q3"] + 1.5 * iqr
    # Tukey whiskers: the furthest scores still within 1.5 IQR of the box
    keys = pd.MultiIndex.from_frame(seats[["variant", "bot"]])
    inside = seats[(seats["score"].to_numpy() >= low.reindex(keys).to_numpy())
                   & (seats["score"].to_numpy() <= high.reindex(keys).to_numpy())]
    whiskers = inside.groupby(["variant", "bot"], sort=False)["score"]
    stats["lowerfence"], stats["upperfence"] = whiskers.min(), whiskers.max()
    stats["min"], stats["max"] = groups.min(), groups.max()
    return {str(variants[code]): part.droplevel("variant") for code, part in stats.groupby(level="variant")}


def _thin(n: int, points: int = HISTORY_POINTS) -> np.ndarray:
    """Positions 0..n-1 to keep of a history of n steps: at most `points`, evenly spread, first and last kept."""
    return np.unique(np.linspace(0, n - 1, min(n, points)).round().astype(np.int64)) if n else np.zeros(0, np.int64)


def _slugs(variants: list[str]) -> dict[str, str]:
    """A unique HTML id per variant: `game-caterpillar`, `game-go_for_it-jokers-true-players-3`."""
    out: dict[str, str] = {}
    for variant in variants:
        slug = "game-" + re.sub(r"[^A-Za-z0-9_]+", "-", variant).strip("-")
        candidate, n = slug, 2
        while candidate in out.values():
            candidate, n = f"{slug}-{n}", n + 1
        out[variant] = candidate
    return out


def _colours(bots: list[str]) -> dict[str, str]:
    """One colour per bot, the same in every chart of the report."""
    palette = qualitative.Plotly + qualitative.D3 + qualitative.Dark24
    return {bot: palette[i % len(palette)] for i, bot in enumerate(bots)}


def _rgba(colour: str, alpha: float) -> str:
    """A '#rrggbb' colour with transparency."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


# --- the page ---------------------------------------------------------------------------------------

def _header(name: str, run: RunDir, config_text: str, manifest: dict | None, frame: pd.DataFrame,
            slugs: dict[str, str], plotly_version: str) -> str:
    """The run's facts: what was played, with which versions, how long it took, and how to reproduce it."""
    e = html.escape
    facts: list[tuple[str, str]] = []
    counts = frame.groupby("variant", sort=False).size()
    games = ", ".join(f"<a href='#{slugs.get(v, '')}'>{e(v)}</a> {n:,}" for v, n in counts.items())
    if manifest:
        facts.append(("games", f"{manifest['games']:,} ({games})"))
        facts.append(("digest", f"<code>{e(manifest['digest'])}</code>"))
        facts.append(("wall time", f"{manifest['wall_seconds']:,.1f} s (playing {manifest.get('play_seconds', 0):,.1f} "
                                   f"s, rating {manifest.get('rating_seconds', 0):,.1f} s)"))
        facts.append(("played", f"{e(str(manifest.get('started', '?')))} to {e(str(manifest.get('finished', '?')))}, "
                                f"{e(str(manifest.get('backend', '?')))}, {manifest.get('workers', '?')} workers, "
                                f"batches of {manifest.get('batch_size', '?')}"))
        versions = {**manifest.get("versions", {}), "plotly (report)": plotly_version}
        facts.append(("versions", ", ".join(f"{e(k)} {e(str(v))}" for k, v in versions.items())))
        bots = manifest.get("bots", {})
        facts.append(("bots", "<br>".join(f"{e(b)}: <code>{e(d.get('spec', ''))}</code>"
                                          + (f" {e(json.dumps(d['params']))}" if d.get("params") else "")
                                          for b, d in bots.items())))
    else:
        facts.append(("games", f"{len(frame):,} saved ({games})"))
        facts.append(("status", "<strong>unfinished</strong>: no manifest.json yet; finish the run with "
                                "<code>arena tournament CONFIG --resume</code>"))
    facts.append(("reproduce", f"<code>arena reproduce {e(str(run.path))}</code> re-plays this config and "
                               "checks the digest"))
    rows = "\n".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in facts)
    return (f"<header><h1>Arena report: {e(name)}</h1>\n<table class='facts'>{rows}</table>\n"
            f"<details><summary>config.toml</summary><pre class='config'>{e(config_text)}</pre></details>"
            f"</header>")


def _section(variant: str, slug: str, rated: VariantRatings, summary, scores: pd.DataFrame | None,
             game_indices: np.ndarray, terminations: pd.Series, colours: dict[str, str]) -> str:
    """One variant: rating table, then the charts."""
    bots = list(rated.table["bot"])
    plots = [
        ("ratings", _ratings_figure(rated.table, colours)),
        ("pairwise", _pairwise_figure(summary.pairwise)),
        ("scores", _scores_figure(scores, bots, colours)),
        ("history", _history_figure(rated.history, game_indices, bots, colours)),
        ("seats", _seats_figure(summary.seats)),
        ("terminations", _terminations_figure(terminations)),
    ]
    divs = "\n".join(f"<div class='plot' data-plot='{kind}'>{_figure_html(fig, f'{slug}-{kind}')}</div>"
                     for kind, fig in plots)
    return (f"<section class='game' id='{slug}'><h2>{html.escape(variant)}</h2>\n"
            f"<p class='note'>{len(game_indices):,} games. Ranked by the conservative rating μ − 3σ.</p>\n"
            f"{_rating_table(rated.table)}\n<div class='plots'>{divs}</div></section>")


def _rating_table(table: pd.DataFrame) -> str:
    """The rating table as HTML."""
    head = ("<tr><th>rank</th><th>bot</th><th>μ</th><th>σ</th><th>μ − 3σ</th><th>games</th><th>wins</th>"
            "<th>win rate (95% CI)</th><th>mean score (95% CI)</th><th>forfeits</th></tr>")
    rows = [
        f"<tr><td>{r.rank}</td><td class='bot'>{html.escape(str(r.bot))}</td><td>{r.mu:.2f}</td>"
        f"<td>{r.sigma:.2f}</td><td><strong>{r.conservative:.2f}</strong></td><td>{r.games:,}</td><td>{r.wins:,}</td>"
        f"<td>{r.win_rate:.3f} [{r.win_rate_lo:.3f}, {r.win_rate_hi:.3f}]</td>"
        f"<td>{r.mean_score:.1f} [{_number(r.mean_score_lo)}, {_number(r.mean_score_hi)}]</td>"
        f"<td>{r.forfeits:,}</td></tr>"
        for r in table.itertuples(index=False)
    ]
    return f"<table class='ratings'>{head}{''.join(rows)}</table>"


def _number(value: float) -> str:
    """A score bound to one decimal, or a dash when undefined (a single game has no interval)."""
    return "–" if np.isnan(value) else f"{value:.1f}"


# --- charts -----------------------------------------------------------------------------------------

def _layout(fig, title: str, **layout):
    """A figure with the report's small shared look (not plotly's default template, which is 10 KB per chart)."""
    # the title sits below the mode bar's row of buttons, which would otherwise cover long titles
    base = {"title": {"text": title, "x": 0.01, "xanchor": "left", "y": 1, "yref": "container", "yanchor": "top",
                      "pad": {"t": 30}, "font": {"size": 15}},
            "template": _template(), "height": PLOT_HEIGHT, "margin": {"l": 60, "r": 20, "t": 76, "b": 50}}
    if "legend" in layout:  # a legend row under the x-axis title
        base["margin"]["b"] = 96
        layout["legend"] = {"orientation": "h", "x": 0, "y": 0, "yref": "container", "yanchor": "bottom",
                            **layout["legend"]}
    fig.update_layout(**base, **layout)
    return fig


@cache
def _template():
    """A plain layout-only template (built once: plotly copies it into each figure)."""
    axis = {"gridcolor": "#e5e5e5", "zerolinecolor": "#c8c8c8", "linecolor": "#c8c8c8", "automargin": True}
    return go.layout.Template(layout={"font": {"family": "system-ui, sans-serif", "size": 12},
                                      "paper_bgcolor": "white", "plot_bgcolor": "white",
                                      "xaxis": axis, "yaxis": axis, "hovermode": "closest"})


def _figure_html(fig, div_id: str) -> str:
    """A figure as a div and its script; plotly.js itself is in the page head once."""
    return pio.to_html(fig, full_html=False, include_plotlyjs=False, div_id=div_id, default_width="100%",
                       default_height=f"{PLOT_HEIGHT}px",
                       config={"displaylogo": False, "responsive": True,
                               "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"]})


def _ratings_figure(table: pd.DataFrame, colours: dict[str, str]):
    """Each bot's mu with a ±3 sigma bar, and the conservative rating that ranks it."""
    bots = list(table["bot"])
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=table["mu"], y=bots, mode="markers", name="μ ± 3σ", marker={"size": 10, "color": [colours[b] for b in bots]},
        error_x={"type": "data", "array": 3 * table["sigma"], "thickness": 2, "width": 6},
        customdata=np.stack([table["sigma"], table["conservative"]], axis=1),
        hovertemplate="%{y}: μ %{x:.2f}, σ %{customdata[0]:.2f}, μ − 3σ %{customdata[1]:.2f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=table["conservative"], y=bots, mode="markers", name="μ − 3σ (ranking)",
                             marker={"symbol": "diamond", "size": 9, "color": "#333"},
                             hovertemplate="%{y}: μ − 3σ %{x:.2f}<extra></extra>"))
    return _layout(fig, "TrueSkill rating: μ ± 3σ", xaxis_title="rating", yaxis={"autorange": "reversed"},
                   legend={})


def _pairwise_figure(matrix: pd.DataFrame):
    """How often the row bot ranked above the column bot in their shared games."""
    z = matrix.to_numpy(dtype=np.float64)
    text = np.where(np.isnan(z), "", np.vectorize(lambda v: f"{v:.2f}")(np.nan_to_num(z)))
    fig = go.Figure(go.Heatmap(
        z=np.where(np.isnan(z), None, z).tolist(), x=list(matrix.columns), y=list(matrix.index), text=text.tolist(),
        texttemplate="%{text}", zmin=0, zmax=1, zmid=0.5, colorscale="RdBu", xgap=2, ygap=2,
        colorbar={"title": {"text": "win rate"}, "thickness": 12},
        hovertemplate="%{y} above %{x}: %{z:.3f}<extra></extra>"))
    return _layout(fig, "Pairwise win rate (row ranked above column)",
                   xaxis={"title": {"text": "opponent"}, "showgrid": False},
                   yaxis={"autorange": "reversed", "title": {"text": "bot"}, "showgrid": False})


def _scores_figure(scores: pd.DataFrame | None, bots: list[str], colours: dict[str, str]):
    """Box plots of each bot's scores, from precomputed quartiles (the page never holds every score)."""
    fig = go.Figure()
    for bot in bots:
        if scores is None or bot not in scores.index:
            continue
        s = scores.loc[bot]
        fig.add_trace(go.Box(
            x=[bot], q1=[s["q1"]], median=[s["median"]], q3=[s["q3"]], lowerfence=[s["lowerfence"]],
            upperfence=[s["upperfence"]], mean=[s["mean"]], name=bot, marker_color=colours[bot], boxpoints=False,
            boxmean=True, hoverinfo="y+name"))
    return _layout(fig, "Score per game (box: quartiles, whiskers: 1.5 IQR, dashed: mean)", showlegend=False,
                   yaxis_title="score")


def _history_figure(history: pd.DataFrame, game_indices: np.ndarray, bots: list[str], colours: dict[str, str]):
    """Every bot's mu ± sigma after each of its games, in the order they were rated, thinned for long runs."""
    fig = go.Figure()
    # x: the game's position among this variant's games (1-based), the order the ratings were updated in
    number = np.searchsorted(game_indices, history["game_index"].to_numpy()) + 1
    codes = pd.Categorical(history["bot"], categories=bots).codes
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(bots) + 1))
    mu, sigma = history["mu"].to_numpy(), history["sigma"].to_numpy()
    for i, bot in enumerate(bots):
        rows = order[bounds[i]:bounds[i + 1]]
        rows = rows[_thin(len(rows))]
        x = number[rows].astype(np.int32)
        m, s = mu[rows].astype(np.float32), sigma[rows].astype(np.float32)
        colour = colours[bot]
        fig.add_trace(go.Scatter(x=x, y=m + s, mode="lines", line={"width": 0}, legendgroup=bot, showlegend=False,
                                 hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=x, y=m - s, mode="lines", line={"width": 0}, fill="tonexty",
                                 fillcolor=_rgba(colour, 0.15), legendgroup=bot, showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=x, y=m, mode="lines", name=bot, legendgroup=bot, line={"color": colour, "width": 2},
                                 customdata=s, hovertemplate=f"{html.escape(bot)} after game %{{x}}: "
                                                             "μ %{y:.2f} ± %{customdata:.2f}<extra></extra>"))
    return _layout(fig, "TrueSkill μ ± σ as the games were rated", xaxis_title="game of this variant",
                   yaxis_title="μ", legend={})


def _seats_figure(seats: pd.DataFrame):
    """Win rate and mean score by seat, with 95% intervals: does sitting first help?"""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("win rate", "mean score"), horizontal_spacing=0.14)
    labels = [f"seat {s}" for s in seats["seat"]]
    fig.add_trace(go.Bar(
        x=labels, y=seats["win_rate"], marker_color="#4c78a8", name="win rate",
        error_y={"type": "data", "array": seats["win_rate_hi"] - seats["win_rate"],
                 "arrayminus": seats["win_rate"] - seats["win_rate_lo"]},
        customdata=seats["games"], hovertemplate="%{x}: win rate %{y:.3f} over %{customdata:,} games<extra></extra>"),
        row=1, col=1)
    fig.add_trace(go.Bar(
        x=labels, y=seats["mean_score"], marker_color="#f58518", name="mean score",
        error_y={"type": "data", "array": seats["mean_score_hi"] - seats["mean_score"],
                 "arrayminus": seats["mean_score"] - seats["mean_score_lo"]},
        hovertemplate="%{x}: mean score %{y:.2f}<extra></extra>"), row=1, col=2)
    if len(seats):
        # a fair seat wins its share of the games (ties at rank 0 count as wins for each seat)
        fig.add_hline(y=1 / len(seats), line_dash="dot", line_color="#888", row=1, col=1)
    return _layout(fig, "Seat advantage (95% intervals; dotted: an even share)", showlegend=False)


def _terminations_figure(counts: pd.Series):
    """How the games ended: every known termination, zeros included, faults in red."""
    names = list(TERMINATIONS) + sorted(set(counts.index) - set(TERMINATIONS))
    values = [int(counts.get(n, 0)) for n in names]
    colours = ["#d62728" if n in FAULTS else "#4c78a8" if n == "normal" else "#9c9c9c" for n in names]
    fig = go.Figure(go.Bar(x=names, y=values, text=[f"{v:,}" for v in values], textposition="outside",
                           marker_color=colours, cliponaxis=False, hovertemplate="%{x}: %{y:,} games<extra></extra>"))
    return _layout(fig, "Terminations", yaxis_title="games", yaxis_rangemode="tozero")


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
<script>{plotlyjs}</script>
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
table.ratings th { background: #f4f4f4; }
pre.config { background: #f7f7f7; border: 1px solid #e5e5e5; padding: 8px 12px; overflow-x: auto; }
.note { color: #555; margin: 2px 0 6px; }
.plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 12px 20px; }
.plot { min-width: 0; }
code { font-size: 12px; }
"""
