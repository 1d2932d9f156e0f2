"""The report's interactive plotly charts, each computed from the saved results (never from raw rows in the
page), with the report's small shared look, and each figure as the JSON the page draws it from. Each figure is a
plain dict in plotly's figure schema, handed to plotly.js as it is: graph_objects, which validate every property,
took most of the report's CPU."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
from plotly.colors import sequential
from plotly.io.json import to_json_plotly

from arena.games.base import TERMINATIONS
from arena.ratings import VariantRatings

PLOT_HEIGHT = 380
FAULTS = {"crash", "illegal_move", "timeout"}
"""Terminations that forfeit a bot's game: drawn in red."""

_AXIS = {"gridcolor": "#e5e5e5", "zerolinecolor": "#c8c8c8", "linecolor": "#c8c8c8", "automargin": True}
TEMPLATE = {"layout": {"font": {"family": "system-ui, sans-serif", "size": 12}, "paper_bgcolor": "white",
                       "plot_bgcolor": "white", "xaxis": _AXIS, "yaxis": _AXIS, "hovermode": "closest"}}
"""The report's small shared look, not plotly's default template (10 KB a chart); plotly.js applies it to
every axis of a figure, the second panel's too."""
RED_BLUE = [[i / (len(sequential.RdBu) - 1), colour] for i, colour in enumerate(sequential.RdBu)]
"""Red (0) to blue (1) through white, written out: plotly.js's own 'RdBu' is another scale, blue to red."""


def _rgba(colour: str, alpha: float) -> str:
    """A '#rrggbb' colour with transparency."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


# --- charts -----------------------------------------------------------------------------------------

def _figure(traces: list[dict], title: str, **layout) -> dict:
    """A figure of these traces with the report's shared look and its own `layout` on top."""
    # the title sits below the mode bar's row of buttons, which would otherwise cover long titles
    base = {"title": {"text": title, "x": 0.01, "xanchor": "left", "y": 1, "yref": "container", "yanchor": "top",
                      "pad": {"t": 30}, "font": {"size": 15}},
            "template": TEMPLATE, "height": PLOT_HEIGHT, "margin": {"l": 60, "r": 20, "t": 76, "b": 50}}
    if "legend" in layout:  # a legend row under the x-axis title
        base["margin"]["b"] = 96
        layout["legend"] = {"orientation": "h", "x": 0, "y": 0, "yref": "container", "yanchor": "bottom",
                            **layout["legend"]}
    return {"data": traces, "layout": base | layout}


PLOT_CONFIG = {"displaylogo": False, "responsive": True,
               "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"]}
"""plotly.js's options for every chart of the report: no logo, resized with the page, no selection tools."""


def figure_json(fig: dict) -> dict:
    """A figure's data and layout in plotly's JSON encoding (numpy arrays and pandas series as lists, `<`, `>` and `/`
    escaped, so the text is safe inside a page's script), and its height: report_tables.html's `plot` draws it. Not
    validated: the figures are built here, and plotly.js ignores what it does not know."""
    return {"data": to_json_plotly(fig["data"]), "layout": to_json_plotly(fig["layout"]),
            "height": fig["layout"].get("height", PLOT_HEIGHT)}


def _heatmap(z: np.ndarray, x: list, y: list, text: list, colour_title: str, hover: str, **scale) -> dict:
    """A heatmap of `z` (blank where NaN) with each cell's text written in it, on the red-blue scale."""
    return {"type": "heatmap", "z": np.where(np.isnan(z), None, z).tolist(), "x": x, "y": y, "text": text,
            "texttemplate": "%{text}", **scale, "colorscale": RED_BLUE, "xgap": 2, "ygap": 2,
            "colorbar": {"title": {"text": colour_title}, "thickness": 12}, "hovertemplate": hover}


def _two_decimals(z: np.ndarray) -> list:
    """Each cell's value to two decimals, blank where NaN."""
    return np.where(np.isnan(z), "", np.vectorize(lambda v: f"{v:.2f}")(np.nan_to_num(z))).tolist()


HEATMAP_AXES = {"xaxis": {"title": {"text": "opponent"}, "showgrid": False},
                "yaxis": {"autorange": "reversed", "title": {"text": "bot"}, "showgrid": False}}


def ratings_figure(table: pd.DataFrame, colours: dict[str, str]) -> dict:
    """Each bot's mu with its 95% interval from resampling whole deals."""
    bots = list(table["bot"])
    return _figure([{
        "type": "scatter", "x": table["mu"], "y": [f"{r} {b}" for r, b in zip(table["rank"], bots, strict=True)],
        "mode": "markers", "name": "μ (95% CI)", "marker": {"size": 10, "color": [colours[b] for b in bots]},
        "error_x": {"type": "data", "array": table["mu_hi"] - table["mu"], "arrayminus": table["mu"] - table["mu_lo"],
                    "thickness": 2, "width": 6},
        "customdata": np.stack([table["mu_lo"], table["mu_hi"], table["sigma"]], axis=1),
        "hovertemplate": "%{y}: μ %{x:.2f} [%{customdata[0]:.2f}, %{customdata[1]:.2f}], "
                         "σ %{customdata[2]:.2f}<extra></extra>"}],
        "TrueSkill μ with 95% intervals (rank: tier)", xaxis={"title": {"text": "μ"}},
        yaxis={"autorange": "reversed"}, showlegend=False)


def los_figure(rated: VariantRatings) -> dict:
    """Likelihood of superiority: the chance that the row bot is better than the column bot."""
    order = list(rated.table["bot"])
    matrix = rated.pairs.pivot(index="bot", columns="opponent", values="los").reindex(index=order, columns=order)
    z = matrix.to_numpy(dtype=np.float64)
    return _figure([_heatmap(z, order, order, _two_decimals(z), "LOS",
                             "P(%{y} better than %{x}) = %{z:.3f}<extra></extra>", zmin=0, zmax=1, zmid=0.5)],
                   "Likelihood of superiority (row better than column)", **HEATMAP_AXES)


def pairwise_figure(matrix: pd.DataFrame) -> dict:
    """How often the row bot ranked above the column bot in their shared games."""
    z = matrix.to_numpy(dtype=np.float64)
    return _figure([_heatmap(z, list(matrix.columns), list(matrix.index), _two_decimals(z), "win rate",
                             "%{y} above %{x}: %{z:.3f}<extra></extra>", zmin=0, zmax=1, zmid=0.5)],
                   "Pairwise win rate (row ranked above column)", **HEATMAP_AXES)


def neighbours_figure(rated: VariantRatings) -> dict | None:
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
    return _figure([_heatmap(z, bots, bots, text.to_numpy().tolist(), "vs own mean",
                             "%{y} after %{x}: %{text} (%{z:+.2f} on its mean)<extra></extra>",
                             zmin=-reach, zmax=reach, zmid=0)],
                   "Mean score by the bot seated before [95% CI ±]",
                   **HEATMAP_AXES | {"xaxis": {"title": {"text": "seated before"}, "showgrid": False}})


def scores_figure(scores: pd.DataFrame | None, bots: list[str], colours: dict[str, str]) -> dict:
    """Box plots of each bot's scores, from precomputed quartiles (the page never holds every score)."""
    boxes = []
    for bot in bots:
        if scores is None or bot not in scores.index:
            continue
        s = scores.loc[bot]
        boxes.append({"type": "box", "x": [bot], **{k: [s[k]] for k in ("q1", "median", "q3", "lowerfence",
                                                                         "upperfence", "mean")},
                      "name": bot, "marker": {"color": colours[bot]}, "boxpoints": False, "boxmean": True,
                      "hoverinfo": "y+name"})
    return _figure(boxes, "Score per game (box: quartiles, whiskers: 1.5 IQR, dashed: mean)", showlegend=False,
                   yaxis={"title": {"text": "score"}})


def progress_figure(progress: pd.DataFrame | None, bots: list[str], colours: dict[str, str]) -> dict | None:
    """Each bot's order-free estimate and its 95% interval on the first d deals of every table: where it settles."""
    if progress is None:
        return None
    traces = []
    for bot in bots:
        rows = progress[progress["bot"] == bot]
        x = rows["deals"].to_numpy()
        band = {"type": "scatter", "x": x, "mode": "lines", "line": {"width": 0}, "legendgroup": bot,
                "showlegend": False, "hoverinfo": "skip"}
        traces += [band | {"y": rows["mu_hi"]},
                   band | {"y": rows["mu_lo"], "fill": "tonexty", "fillcolor": _rgba(colours[bot], 0.15)},
                   {"type": "scatter", "x": x, "y": rows["mu"], "mode": "lines+markers", "name": bot,
                    "legendgroup": bot, "line": {"color": colours[bot], "width": 2}, "marker": {"size": 4},
                    "customdata": np.stack([rows["mu_lo"], rows["mu_hi"]], axis=1),
                    "hovertemplate": f"{html.escape(bot)} after %{{x}} deals: μ %{{y:.2f}} "
                                     "[%{customdata[0]:.2f}, %{customdata[1]:.2f}]<extra></extra>"}]
    return _figure(traces, "μ and 95% interval against deals played (deal order, every table)",
                   xaxis={"title": {"text": "deals per table"}}, yaxis={"title": {"text": "μ"}}, legend={})


SEAT_GAP = 0.14
"""Between the seats chart's two panels, room for the second one's y-axis."""
SEAT_PANELS = (0.0, (1 - SEAT_GAP) / 2), ((1 - SEAT_GAP) / 2 + SEAT_GAP, 1.0)
"""The x domains of the seats chart's two panels, side by side."""


def seats_figure(seats: pd.DataFrame) -> dict:
    """Win rate and mean score by seat, with 95% intervals: does sitting first help?"""
    labels = [f"seat {s}" for s in seats["seat"]]

    def bars(column: str, colour: str, panel: str, **hover) -> dict:
        return {"type": "bar", "x": labels, "y": seats[column], "marker": {"color": colour},
                "name": column.replace("_", " "), "xaxis": f"x{panel}", "yaxis": f"y{panel}",
                "error_y": {"type": "data", "array": seats[f"{column}_hi"] - seats[column],
                            "arrayminus": seats[column] - seats[f"{column}_lo"]}, **hover}

    axes, titles = {}, []
    for panel, title, (left, right) in zip(("", "2"), ("win rate", "mean score"), SEAT_PANELS, strict=True):
        axes[f"xaxis{panel}"] = {"anchor": f"y{panel}", "domain": [left, right]}
        axes[f"yaxis{panel}"] = {"anchor": f"x{panel}", "domain": [0.0, 1.0]}
        titles.append({"text": title, "x": (left + right) / 2, "xref": "paper", "y": 1.0,
                       "yref": "paper", "xanchor": "center", "yanchor": "bottom", "showarrow": False,
                       "font": {"size": 16}})
    # a fair seat wins its share of the games (ties at rank 0 count as wins for each seat)
    even = [{"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": 1 / len(seats),
             "y1": 1 / len(seats), "line": {"color": "#888", "dash": "dot"}}] if len(seats) else []
    return _figure([bars("win_rate", "#4c78a8", "", customdata=seats["games"],
                         hovertemplate="%{x}: win rate %{y:.3f} over %{customdata:,} games<extra></extra>"),
                    bars("mean_score", "#f58518", "2", hovertemplate="%{x}: mean score %{y:.2f}<extra></extra>")],
                   "Seat advantage (95% intervals; dotted: an even share)", showlegend=False, annotations=titles,
                   shapes=even, **axes)


def terminations_figure(counts: dict[str, int]) -> dict:
    """How the games ended: every known termination, zeros included, faults in red."""
    names = list(TERMINATIONS) + sorted(set(counts) - set(TERMINATIONS))
    values = [int(counts.get(n, 0)) for n in names]
    colours = ["#d62728" if n in FAULTS else "#4c78a8" if n == "normal" else "#9c9c9c" for n in names]
    return _figure([{"type": "bar", "x": names, "y": values, "text": [f"{v:,}" for v in values],
                     "textposition": "outside", "marker": {"color": colours}, "cliponaxis": False,
                     "hovertemplate": "%{x}: %{y:,} games<extra></extra>"}],
                   "Terminations", yaxis={"title": {"text": "games"}, "rangemode": "tozero"})
