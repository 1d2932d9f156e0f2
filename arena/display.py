"""The rating tables of a run as text: a terminal table, CSV, JSON or Markdown."""

from __future__ import annotations

import io
import json

import pandas as pd

from arena.results import ResultsError, RunDir

SHOWN = {"rank": "rank", "bot": "bot", "mu": "mu", "sigma": "sigma", "conservative": "mu-3σ", "games": "games",
         "win_rate": "win rate", "win_rate_ci": "95% CI", "mean_score": "mean score", "mean_score_ci": "95% CI ",
         "forfeits": "forfeits"}


def read_tables(run: RunDir, game: str | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The run's ratings and summary rows, only those of `game` (a game id or variant label) if given."""
    if not run.ratings.is_file():
        raise ResultsError(f"{run.path}: no ratings.csv yet; finish the run with `arena tournament CONFIG --resume`")
    ratings = pd.read_csv(run.ratings)
    summary = pd.read_csv(run.summary) if run.summary.is_file() else pd.DataFrame(columns=["variant"])
    if game is not None:
        keep = ratings["variant"].eq(game) | ratings["variant"].str.startswith(game + ":")
        if not keep.any():
            raise ResultsError(f"no game {game!r} in this run (variants: {', '.join(ratings['variant'].unique())})")
        ratings = ratings[keep]
        summary = summary[summary["variant"].isin(ratings["variant"].unique())]
    return ratings, summary


def _readable(table: pd.DataFrame) -> pd.DataFrame:
    out = table.copy()
    out["win_rate_ci"] = [f"{lo:.3f}-{hi:.3f}" for lo, hi in zip(out.win_rate_lo, out.win_rate_hi, strict=True)]
    out["mean_score_ci"] = [f"{lo:.1f}-{hi:.1f}" for lo, hi in zip(out.mean_score_lo, out.mean_score_hi, strict=True)]
    out = out[list(SHOWN)].rename(columns=SHOWN)
    for column, digits in (("mu", 2), ("sigma", 2), ("mu-3σ", 2), ("win rate", 3), ("mean score", 1)):
        out[column] = out[column].map(lambda v, d=digits: f"{v:.{d}f}")
    return out.astype(str)


def _markdown(table: pd.DataFrame) -> str:
    lines = ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(row) + " |" for row in table.itertuples(index=False)]
    return "\n".join(lines)


def _pairwise(summary: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    pairs = summary[summary["kind"] == "pairwise"]
    matrix = pairs.pivot(index="bot", columns="opponent", values="win_rate").reindex(index=order, columns=order)
    return matrix.map(lambda v: "" if pd.isna(v) else f"{v:.3f}").reset_index().astype(str)


def _seats(summary: pd.DataFrame) -> pd.DataFrame:
    seats = summary[summary["kind"] == "seat"]
    return pd.DataFrame({"seat": seats["seat"].astype(int).astype(str), "games": seats["games"].astype(int).astype(str),
                         "win rate": seats["win_rate"].map("{:.3f}".format),
                         "mean score": seats["mean_score"].map("{:.1f}".format)})


def format_tables(run: RunDir, game: str | None = None, form: str = "table") -> str:
    """The rating tables of a run (with pairwise matrices and seat advantage for table and markdown)."""
    ratings, summary = read_tables(run, game)
    if form == "csv":
        return ratings.to_csv(index=False, float_format="%.6f").rstrip("\n")
    if form == "json":
        return json.dumps({v: t.drop(columns="variant").to_dict(orient="records")
                           for v, t in ratings.groupby("variant", sort=False)}, indent=2)
    if form == "markdown":
        parts = []
        for variant, table in ratings.groupby("variant", sort=False):
            part = summary[summary["variant"] == variant]
            parts += [f"### {variant}", "", _markdown(_readable(table)), "", "Pairwise win rate (row beat column):", "",
                      _markdown(_pairwise(part, list(table["bot"]))), "", "Seat advantage:", "",
                      _markdown(_seats(part)), ""]
        return "\n".join(parts).rstrip("\n")
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, width=140, force_terminal=False)
    for variant, table in ratings.groupby("variant", sort=False):
        part = summary[summary["variant"] == variant]
        for title, frame in ((variant, _readable(table)), (f"{variant}: pairwise win rate (row beat column)",
                                                           _pairwise(part, list(table["bot"]))),
                             (f"{variant}: seat advantage", _seats(part))):
            shown = Table(*frame.columns, title=title, title_justify="left")
            for row in frame.itertuples(index=False):
                shown.add_row(*row)
            console.print(shown)
    return buffer.getvalue().rstrip("\n")
