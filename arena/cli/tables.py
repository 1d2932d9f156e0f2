"""The rating tables of a run as text: a terminal table, CSV, JSON or Markdown (`arena ratings`, the end of a run,
`arena league table`)."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

import pandas as pd

from arena.cli.display import output_width, table
from arena.web.formats import counted, interval, places

if TYPE_CHECKING:  # the ratings (numba's kernels among them) are imported where tables are shown, not by every command
    from arena.ratings import VariantRatings


SECTIONS = ("pairs", "seats", "neighbours")
"""The tables shown beside the headline table on request (`arena ratings --pairs`, ...); `--all` shows them all."""


def ranking_frame(table: pd.DataFrame, full: bool) -> pd.DataFrame:
    """The headline table: place, bot, rating with its interval, games, results; `full` adds sigma and deals.
    Forfeits get a column only where a bot forfeited, or in the full table."""
    columns = {
        "rank": table["rank"], "bot": table["bot"],
        "mu [95% CI]": [interval(*r, 2) for r in zip(table.mu, table.mu_lo, table.mu_hi, strict=True)],
        "sigma": table["sigma"].map("{:.2f}".format), "games": table["games"].map("{:,}".format),
        "deals": table["deals"].map("{:,}".format),
        "win rate [95% CI]": [interval(*r, 3) for r in zip(table.win_rate, table.win_rate_lo, table.win_rate_hi,
                                                             strict=True)],
        "mean score [95% CI]": [interval(*r, 1) for r in zip(table.mean_score, table.mean_score_lo,
                                                               table.mean_score_hi, strict=True)],
        "forfeits": table["forfeits"].map("{:,}".format), "PL order": places(table["pl_rank"])}
    if not full:
        del columns["sigma"], columns["deals"]
        if not table["forfeits"].any():
            del columns["forfeits"]
    return pd.DataFrame(columns)


def _once(pairs: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Each pairing once, from the side of the bot higher in the table (the other side is its mirror)."""
    place = {bot: i for i, bot in enumerate(order)}
    return pairs[[place[a] < place[b] for a, b in zip(pairs["bot"], pairs["opponent"], strict=True)]]


def _pairs(pairs: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "bot": pairs["bot"], "opponent": pairs["opponent"], "games": pairs["games"].map("{:,}".format),
        "deals": pairs["deals"].map("{:,}".format),
        "ranked above [95% CI]": [interval(*r, 3) for r in zip(pairs.win_rate, pairs.win_rate_lo, pairs.win_rate_hi,
                                                                strict=True)],
        "mu diff [95% CI]": [interval(*r, 2) for r in zip(pairs.mu_diff, pairs.mu_diff_lo, pairs.mu_diff_hi,
                                                           strict=True)],
        "LOS": pairs["los"].map("{:.3f}".format)})


def _duplicate(dup: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "bot": dup["bot"], "opponent": dup["opponent"], "deal pairs": dup["deals"].map("{:,}".format),
        "0 / ½ / 1 / 1½ / 2": [" / ".join(f"{int(v):,}" for v in row)
                               for row in dup[["p0", "p05", "p1", "p15", "p2"]].itertuples(index=False)],
        "score [95% CI]": [interval(*r, 3) for r in zip(dup.score, dup.score_lo, dup.score_hi, strict=True)],
        "score diff [95% CI]": [interval(*r, 1) for r in zip(dup.score_diff, dup.score_diff_lo, dup.score_diff_hi,
                                                              strict=True)]})


def _seats(seats: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "seat": seats["seat"].astype(str), "games": seats["games"].map("{:,}".format),
        "win rate [95% CI]": [interval(*r, 3) for r in zip(seats.win_rate, seats.win_rate_lo, seats.win_rate_hi,
                                                             strict=True)],
        "mean score [95% CI]": [interval(*r, 1) for r in zip(seats.mean_score, seats.mean_score_lo,
                                                               seats.mean_score_hi, strict=True)]})


def _neighbours(frame: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Mean score by the bot seated right before, one row per bot and a column per bot before it: `mean ±half`
    of the 95% interval (deal-clustered, so symmetric)."""
    cell = {(r.bot, r.before): f"{r.mean_score:.1f} ±{(r.mean_score_hi - r.mean_score_lo) / 2:.1f}"
            for r in frame.itertuples(index=False)}
    return pd.DataFrame({"bot": order, **{f"after {b}": [cell.get((a, b), "") for a in order] for b in order}})


PENTANOMIAL_LEGEND = ("0 / ½ / 1 / 1½ / 2: how many deal pairs (the same cards, seats swapped) gave the bot 0, ½, "
                      "1, 1½ or 2 points over their two games (a win 1, a draw ½)")


def _sections(variant: str, rated: VariantRatings, shown=()) -> list[tuple[str, pd.DataFrame, str | None]]:
    """The titled tables of one variant with the legend under each (or None): the headline table, then the
    `shown` SECTIONS that the variant has."""
    method = (f"{model_name(rated)}; intervals count deals" if rated.method == "batch" else
              "TrueSkill, online in game order, ranked by mu - 3 sigma; mu +- 1.96 sigma")
    order = list(rated.table["bot"])
    out = [(f"{variant} ({method}; 2= shares a tier)", ranking_frame(rated.table, full=set(shown) == set(SECTIONS)),
            _cross_check(rated))]
    if "pairs" in shown:
        out.append((f"{variant}: pairings (LOS: chance the bot is the better)", _pairs(_once(rated.pairs, order)),
                    None))
        if rated.duplicate is not None:
            out.append((f"{variant}: deal pairs, seats swapped", _duplicate(rated.duplicate), PENTANOMIAL_LEGEND))
    if "seats" in shown:
        out.append((f"{variant}: seat advantage", _seats(rated.seats), None))
    if "neighbours" in shown and rated.neighbours is not None:
        out.append((f"{variant}: mean score by the bot seated before [95% CI ±]",
                    _neighbours(rated.neighbours, order), None))
    return out


def _cross_check(rated: VariantRatings) -> str:
    """What the table's less obvious columns mean, and whether the Plackett-Luce order agrees."""
    legend = ("win rate: first places, shared or not; PL order: the places of a Plackett-Luce fit of the same "
              "games, a cross-check")
    agrees = (f"{legend}: same order." if not rated.disagreements else
              f"{legend}: it disagrees: " + "; ".join(rated.disagreements) + ".")
    return "\n".join([agrees, *misfit_lines(rated)])


def model_name(rated: VariantRatings) -> str:
    """The model a batch table was fitted with, as its title names it."""
    return ("TrueSkill, order-free, each company's weight capped" if rated.company_balanced else
            "TrueSkill, order-free")


def misfit_lines(rated: VariantRatings) -> list[str]:
    """A line naming the pairs whose shared games the ratings do not predict (docs/numbers.md), or none."""
    if not rated.misfits:
        return []
    return ["misfit (the ratings do not predict what the bots' shared tables saw; docs/numbers.md): "
            + "; ".join(rated.misfits) + "."]


HISTORY_ROWS = 12
"""Most rows of a variant's history table: past that, rows are every k-th round (and the last), so that a
league of hundreds of rounds still reads at a glance."""


def history_tables(frame: pd.DataFrame, most: int = HISTORY_ROWS) -> list[tuple[str, pd.DataFrame]]:
    """Each variant's rating history (league_table --history's long frame: round, variant, bot, mu, ...) as a
    titled table a person reads: a row per round, or per k-th round when there are more than `most`, and a
    column per bot, in the order of the last round's table, holding its mu (blank before it joined)."""
    out = []
    for variant, rows in frame.groupby("variant", sort=False):
        rounds = sorted(rows["round"].unique())
        step = -(-len(rounds) // most)  # ceil: at most `most` rows
        kept = rounds[len(rounds) - 1::-step][::-1]  # counted back from the last round, which is always shown
        last = rows[rows["round"] == rounds[-1]].sort_values("mu", ascending=False)["bot"].tolist()
        wide = rows.pivot_table(index="round", columns="bot", values="mu").reindex(index=kept)
        wide = wide.reindex(columns=last + [b for b in wide.columns if b not in last])
        cells = {"round": [str(r) for r in kept],
                 **{bot: ["" if pd.isna(v) else f"{v:.2f}" for v in wide[bot]] for bot in wide.columns}}
        every = (f"after each round ({counted(len(rounds), 'round')})" if step == 1 else
                 f"every {step} rounds, up to the last of {len(rounds)}")
        out.append((f"{variant}: each bot's mu {every}", pd.DataFrame(cells)))
    return out


def markdown_table(table: pd.DataFrame) -> str:
    lines = ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in table.itertuples(index=False)]
    return "\n".join(lines)


def format_tables(ratings: dict[str, VariantRatings], form: str = "table", shown=()) -> str:
    """Rating tables in one of the formats: table (terminal) or markdown, each the headline table of every variant
    and the `shown` SECTIONS; csv (ratings.csv) or json (everything, whatever `shown`)."""
    if form == "csv":
        from arena.ratings import csv_frames

        return csv_frames(ratings)[0].to_csv(index=False, float_format="%.6f").rstrip("\n")
    if form == "json":
        def records(frame):
            return None if frame is None else json.loads(frame.to_json(orient="records", double_precision=10))
        return json.dumps({v: {"method": r.method, "table": records(r.table), "pairs": records(r.pairs),
                               "seats": records(r.seats), "neighbours": records(r.neighbours),
                               "duplicate": records(r.duplicate),
                               "disagreements": r.disagreements, "misfits": r.misfits,
                               "company_balanced": r.company_balanced} for v, r in ratings.items()}, indent=2)
    if form == "markdown":
        parts = []
        for variant, rated in ratings.items():
            for title, frame, legend in _sections(variant, rated, shown):
                parts += [f"### {title}", "", markdown_table(frame), ""] + ([legend, ""] if legend else [])
        return "\n".join(parts).rstrip("\n")
    from rich.console import Console

    buffer = io.StringIO()
    width = output_width()
    out = Console(file=buffer, width=width, force_terminal=False)
    for variant, rated in ratings.items():
        for title, frame, legend in _sections(variant, rated, shown):
            out.print(table(*frame.columns, ids=("rank", "bot", "opponent", "seat"),
                            rows=frame.itertuples(index=False), title=title, width=width))
            if legend:
                out.print(legend)
    return buffer.getvalue().rstrip("\n")
