"""The HTML report of a run: one page of tables and interactive plotly charts, with two things beside it.

The page opens offline in any browser, from the run directory: the charts are drawn by plotly.js's
cartesian partial bundle (every trace the report draws, a third of the full bundle), written once beside
the page as RUN/plotly-cartesian.min.js, and the example games are replay pages in RUN/replays/. The page
says so. Every chart is
computed from the saved results (never from raw rows in the page): ratings, tiers, pairings and the
estimate against deals are re-rated with the run's `[ratings]` settings, and score distributions are
drawn as precomputed box plots, so the file stays small however many games the run holds. The results
are read a part at a time (`summarise_results`: game counts, terminations, exact counts of every
score, example games), so the memory it takes does not grow with the run either.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from arena.atomic import write_atomic
from arena.ratings import VariantRatings
from arena.ratings.tables import rate_run
from arena.report.examples import write_example_replays
from arena.report.page import report_context, variant_slugs
from arena.results import RunDir, iter_results
from arena.tournament.summary import SUMMARY_COLUMNS, ResultsSummary, summarise_results
from arena.web import environment

BUNDLE = Path(__file__).with_name("static") / "plotly-cartesian.min.js"
"""plotly.js's official cartesian partial bundle, as published (its header names its version and licence): the
traces the report draws (scatter, bar, box, heatmap) and few others, 1.5 MB where the full bundle is 4.8 MB."""

__all__ = ["BUNDLE", "render_report", "variant_slugs", "write_example_replays", "write_report"]


def write_report(run: RunDir, ratings: dict[str, VariantRatings] | None = None,
                 summary: ResultsSummary | None = None) -> Path:
    """Writes the run's report.html from its results, config and manifest; returns its path.

    `ratings`: the run's `rate_run(...)` and `summary` its `summarise_results`, if the caller has them,
    to skip reading the results again. A few example games per variant are written beside it as replay
    pages (RUN/replays/) and linked from their variant's section.
    """
    ratings = rate_run(run) if ratings is None else ratings
    summary = summarise_results(iter_results(run, SUMMARY_COLUMNS), ratings) if summary is None else summary
    replays = write_example_replays(run, summary.examples, ratings)
    write_atomic(run.path / BUNDLE.name, BUNDLE.read_bytes())
    write_atomic(run.report, render_report(run, ratings, summary, replays).encode())
    return run.report


def bundle_version() -> str:
    """The plotly.js version of BUNDLE, from its header comment."""
    found = re.search(r"plotly\.js \(cartesian - minified\) v(\S+)", BUNDLE.read_text()[:300])
    return found[1] if found else "?"


def render_report(run: RunDir, ratings: dict[str, VariantRatings] | None = None,
                  summary: ResultsSummary | None = None, replays: dict[str, list[dict]] | None = None) -> str:
    """The report of a run as one HTML page, which loads BUNDLE from beside it (write_report writes both)."""
    config_text = run.read_config()
    manifest = run.read_manifest() or None
    name = manifest["name"] if manifest else run.path.name
    ratings = rate_run(run) if ratings is None else ratings
    summary = summarise_results(iter_results(run, SUMMARY_COLUMNS), ratings) if summary is None else summary
    return report_template().render(report_context(name, run, config_text, manifest, summary, ratings, replays or {},
                                                   bundle_version(), BUNDLE.name))


@cache
def report_template():
    """report.html, read and compiled once a process."""
    return environment().get_template("report.html")
