"""The report's interactive plotly charts, each computed from the saved results (never from raw rows in the
page), with the report's small shared look."""

from __future__ import annotations

import html
from functools import cache

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from arena.games.base import TERMINATIONS
from arena.ratings import VariantRatings

PLOT_HEIGHT = 380
FAULTS = {"crash", "illegal_move", "timeout"}
"""Terminations that forfeit a bot's game: drawn in red."""


def _rgba(colour: str, alpha: float) -> str:
    """A '#rrggbb' colour with transparency."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


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
    """Each bot's mu with its 95% interval from resampling whole deals."""
    bots = list(table["bot"])
    fig = go.Figure(go.Scatter(
        x=table["mu"], y=[f"{r} {b}" for r, b in zip(table["rank"], bots, strict=True)], mode="markers",
        name="μ (95% CI)", marker={"size": 10, "color": [colours[b] for b in bots]},
        error_x={"type": "data", "array": table["mu_hi"] - table["mu"], "arrayminus": table["mu"] - table["mu_lo"],
                 "thickness": 2, "width": 6},
        customdata=np.stack([table["mu_lo"], table["mu_hi"], table["sigma"]], axis=1),
        hovertemplate="%{y}: μ %{x:.2f} [%{customdata[0]:.2f}, %{customdata[1]:.2f}], "
                      "σ %{customdata[2]:.2f}<extra></extra>"))
    return _layout(fig, "TrueSkill μ with 95% intervals (rank: tier)", xaxis_title="μ",
                   yaxis={"autorange": "reversed"}, showlegend=False)


def _los_figure(rated: VariantRatings):
    """Likelihood of superiority: the chance that the row bot is better than the column bot."""
    order = list(rated.table["bot"])
    matrix = rated.pairs.pivot(index="bot", columns="opponent", values="los").reindex(index=order, columns=order)
    z = matrix.to_numpy(dtype=np.float64)
    text = np.where(np.isnan(z), "", np.vectorize(lambda v: f"{v:.2f}")(np.nan_to_num(z)))
    fig = go.Figure(go.Heatmap(
        z=np.where(np.isnan(z), None, z).tolist(), x=order, y=order, text=text.tolist(), texttemplate="%{text}",
        zmin=0, zmax=1, zmid=0.5, colorscale="RdBu", xgap=2, ygap=2,
        colorbar={"title": {"text": "LOS"}, "thickness": 12},
        hovertemplate="P(%{y} better than %{x}) = %{z:.3f}<extra></extra>"))
    return _layout(fig, "Likelihood of superiority (row better than column)",
                   xaxis={"title": {"text": "opponent"}, "showgrid": False},
                   yaxis={"autorange": "reversed", "title": {"text": "bot"}, "showgrid": False})


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


def _neighbours_figure(rated: VariantRatings):
    """Each bot's mean score by the bot seated right before it, against its mean score over all its games: does
    sitting after a weak player pay?"""
    if rated.neighbours is None:
        return None
    bots = list(rated.table["bot"])
    frame = rated.neighbours.merge(rated.table[["bot", "mean_score"]].rename(columns={"mean_score": "overall"}),
                                   on="bot")
    frame["gain"], frame["half"] = (frame["mean_score"] - frame["overall"],
                                    (frame["mean_score_hi"] - frame["mean_score_lo"]) / 2)
    gain = frame.pivot(index="bot", columns="before", values="gain").reindex(index=bots, columns=bots)
    cells = frame.assign(text=[f"{m:.1f} ±{h:.1f}" for m, h in zip(frame["mean_score"], frame["half"], strict=True)])
    text = cells.pivot(index="bot", columns="before", values="text").reindex(index=bots, columns=bots).fillna("")
    z = gain.to_numpy(dtype=np.float64)
    reach = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
    fig = go.Figure(go.Heatmap(
        z=np.where(np.isnan(z), None, z).tolist(), x=bots, y=bots, text=text.to_numpy().tolist(),
        texttemplate="%{text}", zmin=-reach, zmax=reach, zmid=0, colorscale="RdBu", xgap=2, ygap=2,
        colorbar={"title": {"text": "vs own mean"}, "thickness": 12},
        hovertemplate="%{y} after %{x}: %{text} (%{z:+.2f} on its mean)<extra></extra>"))
    return _layout(fig, "Mean score by the bot seated before [95% CI ±]",
                   xaxis={"title": {"text": "seated before"}, "showgrid": False},
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


def _progress_figure(progress: pd.DataFrame | None, bots: list[str], colours: dict[str, str]):
    """Each bot's order-free estimate and its 95% interval on the first d deals of every table: where it settles."""
    if progress is None:
        return None
    fig = go.Figure()
    for bot in bots:
        rows = progress[progress["bot"] == bot]
        x = rows["deals"].to_numpy()
        colour = colours[bot]
        fig.add_trace(go.Scatter(x=x, y=rows["mu_hi"], mode="lines", line={"width": 0}, legendgroup=bot,
                                 showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=x, y=rows["mu_lo"], mode="lines", line={"width": 0}, fill="tonexty",
                                 fillcolor=_rgba(colour, 0.15), legendgroup=bot, showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=x, y=rows["mu"], mode="lines+markers", name=bot, legendgroup=bot,
                                 line={"color": colour, "width": 2}, marker={"size": 4},
                                 customdata=np.stack([rows["mu_lo"], rows["mu_hi"]], axis=1),
                                 hovertemplate=f"{html.escape(bot)} after %{{x}} deals: μ %{{y:.2f}} "
                                               "[%{customdata[0]:.2f}, %{customdata[1]:.2f}]<extra></extra>"))
    return _layout(fig, "μ and 95% interval against deals played (deal order, every table)",
                   xaxis_title="deals per table", yaxis_title="μ", legend={})


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


def _terminations_figure(counts: dict[str, int]):
    """How the games ended: every known termination, zeros included, faults in red."""
    names = list(TERMINATIONS) + sorted(set(counts) - set(TERMINATIONS))
    values = [int(counts.get(n, 0)) for n in names]
    colours = ["#d62728" if n in FAULTS else "#4c78a8" if n == "normal" else "#9c9c9c" for n in names]
    fig = go.Figure(go.Bar(x=names, y=values, text=[f"{v:,}" for v in values], textposition="outside",
                           marker_color=colours, cliponaxis=False, hovertemplate="%{x}: %{y:,} games<extra></extra>"))
    return _layout(fig, "Terminations", yaxis_title="games", yaxis_rangemode="tozero")
