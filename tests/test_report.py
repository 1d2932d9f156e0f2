"""The HTML report: one page whose tables match ratings.csv, small however long the run, with plotly.js's
cartesian bundle beside it, and drawn by a real headless Chromium without a JavaScript error or a network
request."""

import html
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from browser import needs_browser, png_pixels
from playwright.sync_api import expect
from plotly.offline import get_plotlyjs

from arena.api import finish_and_report
from arena.config import load_config
from arena.report import BUNDLE, variant_slugs, write_report
from arena.results import SCHEMA, RunDir, load_results
from arena.tournament.runner import play_missing
from arena.tournament.summary import ScoreCounts

SMALL = Path(__file__).parent / "data" / "small.toml"
PLOTS = ["ratings", "los", "pairwise", "progress", "scores", "seats", "terminations"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> RunDir:
    config = load_config(SMALL)
    run = RunDir(tmp_path_factory.mktemp("report") / "small")
    finish_and_report(config, run, play_missing(config, run, workers=1))
    write_report(run)
    return run


def plots(slug: str) -> list[str]:
    """The charts of a variant's section: three or more players add who sits before whom."""
    return PLOTS[:-1] + ["neighbours"] * ("players-3" in slug) + PLOTS[-1:]


def variants(run: RunDir) -> list[str]:
    return sorted(set(load_results(run).column("variant").to_pylist()))


def section(page: str, slug: str) -> str:
    match = re.search(f"<section class='game' id='{re.escape(slug)}'>(.*?)</section>", page, re.S)
    assert match, f"no section {slug}"
    return match[1]


def test_report_is_one_small_page_with_plotly_beside_it(small_run):
    page = small_run.report.read_text()
    assert page.startswith("<!DOCTYPE html>")
    # one thing to fetch, plotly.js's cartesian bundle from beside the page: no other script, stylesheet, image
    # or frame (the icon is in the page, a data: address), and no copy of plotly.js in the page
    assert re.findall(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=(?!\"data:)[^>]*>", page) == [
        '<script src="plotly-cartesian.min.js">']
    assert (small_run.path / "plotly-cartesian.min.js").read_bytes() == BUNDLE.read_bytes()
    assert "Plotly" not in page.partition("</head>")[0].replace("plotly-cartesian.min.js", "")
    # the page and its bundle are at least 5 times smaller than the page with the full bundle inside was
    assert len(page.encode()) < 250_000 and 3 * BUNDLE.stat().st_size < len(get_plotlyjs())
    assert 5 * len(page.encode()) < len(get_plotlyjs())
    # and it says what travels with it
    assert "<code>plotly-cartesian.min.js</code> (plotly.js, which draws the charts)" in page
    assert "<code>replays/</code> (the example games)" in page and "copy the whole run directory" in page
    # enough to reproduce the run: its digest, config, versions and the command
    manifest = json.loads(small_run.manifest.read_text())
    assert f"<code>{manifest['digest']}</code>" in page
    assert html.unescape(re.search(r"<pre class='config'>(.*?)</pre>", page, re.S)[1]) == small_run.config.read_text()
    assert all(f"{name} {version}" in page for name, version in manifest["versions"].items())
    assert f"arena reproduce {small_run.path}" in page and f"{manifest['games']:,} (" in page


def test_every_variant_has_its_section_and_plots(small_run):
    page = small_run.report.read_text()
    slugs = variant_slugs(variants(small_run))
    assert slugs["caterpillar"] == "game-caterpillar"
    assert slugs["go_for_it:jokers=true,players=3"] == "game-go_for_it-jokers-true-players-3"
    for slug in slugs.values():
        body = section(page, slug)
        assert re.findall(r"<div class='plot' data-plot='(\w+)'>", body) == plots(slug)
        assert "<table class='ratings'>" in body


def test_every_chart_is_a_valid_plotly_figure(small_run):
    """The charts go into the page unvalidated, for speed: plotly's schema checks each one here, so a misspelt
    property or a bad value fails rather than vanishing silently in the browser."""
    page, decoder = small_run.report.read_text(), json.JSONDecoder()
    figures = []
    for call in re.finditer(r'Plotly\.newPlot\(\s*"([^"]+)",\s*', page):
        data, end = decoder.raw_decode(page, call.end())
        layout, _ = decoder.raw_decode(page, re.compile(r",\s*").match(page, end).end())
        figures.append((call[1], data, layout))
    slugs = variant_slugs(variants(small_run)).values()
    assert [name for name, _, _ in figures] == [f"{slug}-{kind}" for slug in slugs for kind in plots(slug)]
    for name, data, layout in figures:
        assert data, name
        go.Figure(data=data, layout=layout)  # raises ValueError on anything outside plotly's schema


def test_rating_tables_match_ratings_csv(small_run):
    page = small_run.report.read_text()
    ratings = pd.read_csv(small_run.ratings)
    slugs = variant_slugs(variants(small_run))
    for variant, table in ratings.groupby("variant"):
        body = section(page, slugs[variant])
        for row in table.itertuples():
            cells = (f"<td>{row.rank}</td><td class='bot'>{row.bot}</td><td><strong>{row.mu:.2f}</strong> "
                     f"[{row.mu_lo:.2f}, {row.mu_hi:.2f}]</td><td>{row.sigma:.2f}</td><td>{row.conservative:.2f}</td>"
                     f"<td>{row.games:,}</td><td>{row.deals:,}</td>")
            assert cells in body
        assert "<h3>Pairings</h3>" in body
        assert ("<h3>Deal pairs" in body) == (variant != "go_for_it:jokers=true,players=3")  # two-player only


def test_the_estimate_against_deals_ends_at_the_table(small_run):
    summary = pd.read_csv(small_run.summary)
    ratings = pd.read_csv(small_run.ratings).set_index(["variant", "bot"])
    progress = summary[summary["kind"] == "progress"]
    for (variant, bot), rows in progress.groupby(["variant", "bot"]):
        last = rows.sort_values("deals").iloc[-1]
        assert last["mu"] == pytest.approx(ratings.loc[(variant, bot), "mu"], abs=1e-5)
        assert (rows["mu_lo"] <= rows["mu"]).all() and (rows["mu"] <= rows["mu_hi"]).all()


def test_a_report_reads_the_runs_config_and_manifest_once(small_run, opened):
    """`arena report` of a real run (its example replays regenerated in forked children, which `opened` counts
    too): its config.toml read 27 times and its manifest 14 before RunDir kept what it read."""
    from typer.testing import CliRunner

    from arena.cli import app

    done = CliRunner().invoke(app, ["report", str(small_run.path)], catch_exceptions=False)
    assert done.exit_code == 0 and "wrote" in done.stdout
    assert (opened("config.toml"), opened("manifest.json")) == (1, 1)


def test_a_run_dir_reads_its_files_again_once_they_change(tmp_path):
    """What a RunDir read is kept only while the file is as it was: a rewrite (in place or by rename) is read."""
    from arena.atomic import write_atomic

    run = RunDir(tmp_path)
    run.config.write_text('name = "a"\n')
    assert run.read_config() == 'name = "a"\n' and run.read_manifest() == {}
    run.config.write_text('name = "bb"\n')  # in place, another size
    write_atomic(run.manifest, b'{"games": 4}')
    assert run.read_config() == 'name = "bb"\n' and run.read_manifest() == {"games": 4}
    run.read_manifest()["games"] = 5  # the caller's copy
    write_atomic(run.config, b'name = "cc"\n')  # by rename, the same size
    assert run.read_manifest() == {"games": 4} and run.read_config() == 'name = "cc"\n'


def test_a_long_run_gives_a_small_report(tmp_path):
    """60,000 synthetic games of five bots: the page holds summaries, never per-game data."""
    run = RunDir(tmp_path / "long")
    run.results.mkdir(parents=True)
    shutil.copy(SMALL, run.config)
    n, rng = 60_000, np.random.default_rng(7)
    bots = np.array([f"bot-{i}" for i in range(5)], dtype=object)
    players = bots[np.stack([rng.integers(0, 5, n), rng.integers(0, 5, n)], axis=1)]
    players[:, 1] = np.where(players[:, 0] == players[:, 1], "bot-x", players[:, 1])
    ranks = np.stack([np.zeros(n, int), np.ones(n, int)], axis=1)
    ranks = np.where(rng.random(n)[:, None] < 0.5, ranks, ranks[:, ::-1])
    columns = {
        "game_index": np.arange(n), "game": ["caterpillar"] * n, "variant": ["caterpillar"] * n,
        "table": np.zeros(n, np.int32), "deal": np.zeros(n, np.int32), "rotation": np.zeros(n, np.int32),
        "seed": np.arange(n), "players": players.tolist(), "scores": rng.integers(0, 900, (n, 2)).tolist(),
        "ranks": ranks.tolist(), "termination": ["normal"] * n, "fault_seat": [None] * n, "fault": [None] * n,
        "decisions": np.zeros(n, np.int32), "duration": np.zeros(n),
        "slowest_move_cpu": np.zeros(n), "slowest_move_wall": np.zeros(n),
        **{name: [None] * n for name in ("llm_tokens_in", "llm_tokens_out", "llm_tries", "llm_seconds")},
    }
    pq.write_table(pa.Table.from_pydict(columns, schema=SCHEMA), run.part(0, n))
    page = write_report(run).read_text()
    assert "unfinished" in page  # no manifest: the report says so rather than failing
    assert len(page.encode()) < 250_000
    ratings_table = re.search("<table class='ratings'>(.*?)</table>", section(page, "game-caterpillar"), re.S)[1]
    assert ratings_table.count("<td class='bot'>") == 6


def test_score_boxes_from_counts_are_the_quantiles_of_the_scores():
    """Counted a part at a time, the box of each bot's scores is what pandas computes from all of them."""
    rng = np.random.default_rng(4)
    n = 3000
    players = np.where(rng.random((n, 1)) < 0.5, [["a", "b"]], [["b", "c"]]).tolist()
    scores = np.round(rng.gamma(2, 80, (n, 2))).astype(np.int64) - 20
    table = pa.table({"variant": ["v"] * n, "players": players, "scores": scores.tolist()})
    counts = ScoreCounts()
    for part in table.to_batches(max_chunksize=700):
        counts.add(pa.Table.from_batches([part]))
    boxes = counts.boxes()["v"]
    seats = pd.DataFrame({"bot": np.ravel(players), "score": scores.ravel().astype(np.float64)})
    for bot, scored in seats.groupby("bot")["score"]:
        q1, median, q3 = scored.quantile([0.25, 0.5, 0.75])
        inside = scored[(scored >= q1 - 1.5 * (q3 - q1)) & (scored <= q3 + 1.5 * (q3 - q1))]
        expected = [q1, median, q3, scored.mean(), inside.min(), inside.max(), scored.min(), scored.max()]
        found = boxes.loc[bot, ["q1", "median", "q3", "mean", "lowerfence", "upperfence", "min", "max"]]
        np.testing.assert_allclose(found.to_numpy(np.float64), expected, rtol=1e-12)


def test_a_run_without_games_still_has_a_report(tmp_path):
    run = RunDir(tmp_path / "empty")
    run.path.mkdir()
    shutil.copy(SMALL, run.config)
    page = write_report(run).read_text()
    assert "no games yet" in page and "<section" not in page


PROBE = """Array.from(document.querySelectorAll('section.game')).map(s => ({
    id: s.id,
    plots: Array.from(s.querySelectorAll('.plot')).map(p => {
        const graph = p.querySelector('.js-plotly-plot');
        return {kind: p.dataset.plot, drawn: !!(graph && graph.querySelector('.main-svg')),
                traces: graph && graph.data ? graph.data.length : 0};
    }),
}))"""
# Redraw every chart at the final viewport size before the screenshot, then wait two frames.
SETTLE = """Promise.all(Array.from(document.querySelectorAll('.js-plotly-plot')).map(g => Plotly.Plots.resize(g)))
    .then(() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done))))"""


@pytest.mark.slow
@needs_browser
def test_chromium_draws_the_report_without_errors(small_run, browse, tmp_path):
    seen = browse(small_run.report)
    for plot in seen.page.locator(".plot").all():
        expect(plot.locator(".js-plotly-plot .main-svg").first, "the charts were not drawn in time").to_be_attached()
    drawn = seen.page.evaluate(PROBE)
    assert sorted(s["id"] for s in drawn) == sorted(variant_slugs(variants(small_run)).values())
    for found in drawn:
        assert [p["kind"] for p in found["plots"]] == plots(found["id"])
        assert all(p["drawn"] and p["traces"] > 0 for p in found["plots"]), found
    # A viewport as tall as the page (capped below Chromium's texture limit): capturing beyond the viewport instead
    # resizes the page mid-capture, and charts caught redrawing come out torn.
    full = min(seen.page.evaluate("document.documentElement.scrollHeight"), 16000)
    seen.page.set_viewport_size({"width": 1280, "height": max(900, full)})
    seen.page.evaluate(SETTLE)
    shot = tmp_path / "report.png"
    pixels = png_pixels(seen.page.screenshot(path=shot))
    assert pixels.shape[0] > 3000 and pixels.shape[1] == 1280  # the whole page, not one screen
    rgb = pixels[..., :3].astype(np.uint32)
    colours = len(np.unique(rgb[..., 0] << 16 | rgb[..., 1] << 8 | rgb[..., 2]))
    ink = np.any(pixels[..., :3] < 200, axis=2).mean()
    assert colours > 200 and ink > 0.02, f"the page looks blank ({colours} colours, {ink:.1%} ink): {shot}"
    assert seen.exceptions == [] and seen.console_errors == []
    page = small_run.report.resolve().as_uri()
    beside = (small_run.path / "plotly-cartesian.min.js").resolve().as_uri()
    assert [url for url in seen.requests if url not in (page, beside) and not url.startswith("data:")] == []


def test_move_times_say_when_wall_time_ran_far_past_cpu_time():
    """The slowest moves' wall time over their CPU time, with an interval over deals (a deal's rotations are one
    unit); the line says the machine was loaded only when the whole interval lies above LOADED."""
    from arena.tournament.summary import MoveTimes
    from arena.web.formats import LOADED, move_times_line

    def summed(wall_per_cpu: list[float]) -> dict:
        times = MoveTimes()
        n = 2 * len(wall_per_cpu)  # two rotations of each deal
        times.add(pa.table({"variant": ["caterpillar"] * n, "seed": [i // 2 for i in range(n)],
                            "slowest_move_cpu": [0.5] * (n - 1) + [0.01],  # the last is too short to count
                            "slowest_move_wall": [0.5 * r for r in wall_per_cpu for _ in range(2)]}))
        return times.result()

    loaded = summed([3.0, 3.2, 2.8, 3.1, 2.9])
    assert (loaded["cpu"], loaded["wall"], loaded["games"], loaded["deals"]) == (0.5, 1.6, 9, 5)
    assert LOADED < loaded["low"] < loaded["wall_per_cpu"] < loaded["high"] < 3.3
    assert move_times_line(loaded).endswith("short of the wall-clock backstop")
    calm = summed([1.0, 1.1, 1.0, 1.05, 1.02])
    assert calm["low"] < 1.1 and "loaded" not in move_times_line(calm)
    assert move_times_line(None) is None
    unlimited = MoveTimes()
    unlimited.add(pa.table({"variant": ["caterpillar"], "seed": [1], "slowest_move_cpu": pa.array([None], pa.float64()),
                            "slowest_move_wall": pa.array([None], pa.float64())}))
    assert unlimited.result() is None
