"""The HTML report of a run: one self-contained page of tables and interactive plotly charts.

The page carries its own copy of plotly.js, so it opens offline in any browser. Every chart is
computed from the saved results (never from raw rows in the page): ratings, tiers, pairings and the
estimate against deals are re-rated with the run's `[ratings]` settings, and score distributions are
drawn as precomputed box plots, so the file stays small however many games the run holds. The results
are read a part at a time (`summarise_results`: game counts, terminations, exact counts of every
score, example games), so the memory it takes does not grow with the run either.
"""

from __future__ import annotations

import html
import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
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
from arena.display import stop_lines
from arena.games.base import TERMINATIONS
from arena.ratings import VariantRatings
from arena.ratings.tables import rate_run
from arena.results import RunDir, iter_results

PLOT_HEIGHT = 380
FAULTS = {"crash", "illegal_move", "timeout"}
"""Terminations that forfeit a bot's game: drawn in red."""
REPLAY_TABLES = 4
"""Example replays per variant: the first game of at most this many tables, plus the biggest upset. Each is
regenerated from its seeds (a full game replay), so the count stays small whatever the size of the run."""

SUMMARY_COLUMNS = ["game_index", "variant", "players", "scores", "ranks", "termination"]
"""What the report reads of the results besides the ratings."""


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
    write_atomic(run.report, render_report(run, ratings, summary, replays).encode())
    return run.report


def render_report(run: RunDir, ratings: dict[str, VariantRatings] | None = None,
                  summary: ResultsSummary | None = None, replays: dict[str, list[str]] | None = None) -> str:
    """The report of a run as one HTML page."""
    config_text = run.config.read_text()
    manifest = json.loads(run.manifest.read_text()) if run.manifest.is_file() else None
    name = manifest["name"] if manifest else run.path.name
    ratings = rate_run(run) if ratings is None else ratings
    summary = summarise_results(iter_results(run, SUMMARY_COLUMNS), ratings) if summary is None else summary
    colours = _colours(sorted({bot for r in ratings.values() for bot in r.table["bot"]}))
    slugs = _slugs(list(ratings))
    sections = []
    for variant, rated in ratings.items():
        sections.append(_section(variant, slugs[variant], rated, summary.scores.get(variant), summary.games[variant],
                                 summary.terminations[variant], colours, (replays or {}).get(variant)))
    body = [_header(name, run, config_text, manifest, summary, slugs, plotly.__version__)]
    body += sections or ["<p class='note'>This run holds no games yet.</p>"]
    return PAGE.format(title=html.escape(f"Arena report: {name}"), style=STYLE, plotlyjs=get_plotlyjs(),
                       body="\n".join(body))


# --- data -------------------------------------------------------------------------------------------

@dataclass
class ResultsSummary:
    """What the report and the manifest read of a run's results besides the ratings, in one pass over its parts."""

    games: dict[str, int]
    """Games per variant, in order of first appearance."""
    terminations: dict[str, dict[str, int]]
    """Per variant, games per termination, in order of first appearance."""
    scores: dict[str, pd.DataFrame]
    """Per variant, per bot: the box-plot statistics of its scores (`ScoreCounts.boxes`)."""
    examples: dict[str, list[tuple[int, str]]]
    """Per variant, the games worth a replay (`example_games`)."""

    @property
    def total(self) -> int:
        """Games of every variant."""
        return sum(self.games.values())


def summarise_results(parts: Iterable[pa.Table], ratings: dict[str, VariantRatings]) -> ResultsSummary:
    """Game counts, terminations, score boxes and example games of results given part by part in game order
    (columns SUMMARY_COLUMNS): the memory of one part, whatever the number of games."""
    games: dict[str, int] = {}
    terminations: dict[str, dict[str, int]] = {}
    scores, examples = ScoreCounts(), ExampleFinder(ratings)
    for part in parts:
        variant, termination = _strings(part, "variant"), _strings(part, "termination")
        variants, ends = variant.dictionary.to_pylist(), termination.dictionary.to_pylist()
        pair = (variant.indices.to_numpy(zero_copy_only=False).astype(np.int64) * len(ends)
                + termination.indices.to_numpy(zero_copy_only=False))
        found, first, count = np.unique(pair, return_index=True, return_counts=True)
        in_order = np.argsort(first)  # as the games come
        for code, n in zip(found[in_order].tolist(), count[in_order].tolist(), strict=True):
            v, t = divmod(code, len(ends))
            games[variants[v]] = games.get(variants[v], 0) + n
            by_end = terminations.setdefault(variants[v], {})
            by_end[ends[t]] = by_end.get(ends[t], 0) + n
        scores.add(part)
        examples.add(part)
    return ResultsSummary(games, terminations, scores.boxes(), examples.result())


def _strings(table: pa.Table, name: str) -> pa.DictionaryArray:
    """A string column of a part, dictionary-encoded (values in order of first appearance)."""
    return table.column(name).combine_chunks().dictionary_encode()


def _seated_bots(games: pa.Table) -> tuple[np.ndarray, pa.DictionaryArray]:
    """Seats per game, and every seat's bot (flattened in game then seat order), dictionary-encoded."""
    players = games.column("players").combine_chunks()
    return (pc.list_value_length(players).to_numpy(zero_copy_only=False),
            pc.list_flatten(players).dictionary_encode())


class ScoreCounts:
    """How often each bot scored each score, per variant: exact box-plot statistics from counts, in memory
    that grows with the distinct scores, not the games."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        """(variant, bot) -> (distinct scores ascending, how often each)."""

    def add(self, part: pa.Table) -> None:
        """Counts the scores of one part's games."""
        if not part.num_rows:
            return
        variant = _strings(part, "variant")
        sizes, bots = _seated_bots(part)
        score = pc.list_flatten(part.column("scores").combine_chunks()).to_numpy(zero_copy_only=False)
        owner = (np.repeat(variant.indices.to_numpy(zero_copy_only=False).astype(np.int64), sizes)
                 * len(bots.dictionary) + bots.indices.to_numpy(zero_copy_only=False))
        low = int(score.min())
        span = int(score.max()) - low + 1
        found, count = np.unique(owner * span + (score - low), return_counts=True)  # by owner, then score
        owners, scores = np.divmod(found, span)
        starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        variants, names = variant.dictionary.to_pylist(), bots.dictionary.to_pylist()
        for start, stop in zip(starts.tolist(), [*starts[1:].tolist(), len(found)], strict=True):
            v, b = divmod(int(owners[start]), len(names))
            values, counts = scores[start:stop] + low, count[start:stop]
            held = self.counts.get((variants[v], names[b]))
            if held is not None:
                values, inverse = np.unique(np.concatenate([held[0], values]), return_inverse=True)
                counts = np.bincount(inverse, weights=np.concatenate([held[1], counts])).astype(np.int64)
            self.counts[(variants[v], names[b])] = (values, counts)

    def boxes(self) -> dict[str, pd.DataFrame]:
        """Per variant, per bot: quartiles (linear interpolation, as pandas), Tukey whiskers (the furthest scores
        within 1.5 IQR of the box), mean, min and max."""
        rows: dict[str, dict[str, dict[str, float]]] = {}
        for (variant, bot), (values, counts) in self.counts.items():
            cumulative = np.cumsum(counts)
            n = int(cumulative[-1])

            def quantile(q: float, values=values, cumulative=cumulative, n=n) -> float:
                position = (n - 1) * q
                below = int(np.floor(position))
                low, high = values[np.searchsorted(cumulative, [below, min(below + 1, n - 1)], side="right")]
                return float(low + (high - low) * (position - below))

            q1, median, q3 = quantile(0.25), quantile(0.5), quantile(0.75)
            iqr = q3 - q1
            rows.setdefault(variant, {})[bot] = {
                "q1": q1, "median": median, "q3": q3, "mean": float(values @ counts / n),
                "lowerfence": float(values[np.searchsorted(values, q1 - 1.5 * iqr, side="left")]),
                "upperfence": float(values[np.searchsorted(values, q3 + 1.5 * iqr, side="right") - 1]),
                "min": float(values[0]), "max": float(values[-1])}
        return {variant: pd.DataFrame.from_dict(bots, orient="index") for variant, bots in rows.items()}


def example_games(parts: pa.Table | Iterable[pa.Table],
                  ratings: dict[str, VariantRatings]) -> dict[str, list[tuple[int, str]]]:
    """Per variant, the games worth a replay, as (game index, what it shows), in game order.

    The first game of each table (each set of bots; at most REPLAY_TABLES of them), and the biggest upset:
    of the games in which the player with the lowest μ in the variant's rating table ranked above the
    player with the highest μ, the one with the largest μ gap between those two, then the largest score
    margin between them, then the earliest. `parts`: the results (a table, or parts in game order).
    """
    finder = ExampleFinder(ratings)
    for part in [parts] if isinstance(parts, pa.Table) else parts:
        finder.add(part)
    return finder.result()


class ExampleFinder:
    """`example_games` a part at a time: the tables seen so far and the biggest upset so far, per variant.
    Vectorised over the seats of a part, so a million games cost little."""

    def __init__(self, ratings: dict[str, VariantRatings]) -> None:
        self.ratings = ratings
        self.seats: dict[str, int] = {}  # seats per game; 0 once a variant shows games of different sizes
        self.tables: dict[str, dict[tuple, tuple[int, str]]] = {v: {} for v in ratings}  # table -> first game
        self.upsets: dict[str, tuple[float, float, int, str]] = {}  # (gap, margin, index, what it shows)

    def add(self, part: pa.Table) -> None:
        """Looks through one part's games."""
        for variant, rated in self.ratings.items():
            games = part.filter(pc.equal(part.column("variant"), variant))
            if not games.num_rows or self.seats.get(variant) == 0:
                continue
            sizes, bots = _seated_bots(games)
            n = self.seats.setdefault(variant, int(sizes[0]))
            if (sizes != n).any():  # a variant fixes the number of seats; anything else gets no examples
                self.seats[variant] = 0
                continue
            names = np.array(bots.dictionary.to_pylist(), dtype=object)[
                bots.indices.to_numpy(zero_copy_only=False).reshape(-1, n)]
            rated_code = pd.Index(rated.table["bot"]).get_indexer(bots.dictionary.to_pylist())  # -1: not rated
            seats = rated_code[bots.indices.to_numpy(zero_copy_only=False)].reshape(-1, n)
            indices = games.column("game_index").to_numpy()
            tables = self.tables[variant]
            if len(tables) < REPLAY_TABLES:  # a table is its set of bots: the first row of each set is its first game
                _, first = np.unique(np.sort(seats, axis=1), axis=0, return_index=True)
                for row in sorted(first.tolist()):
                    key = tuple(np.sort(seats[row]).tolist())
                    if key not in tables and len(tables) < REPLAY_TABLES:
                        tables[key] = (int(indices[row]), "first game of table " + ", ".join(names[row]))
            mu = np.append(rated.table["mu"].to_numpy(np.float64), np.nan)[seats]  # -1 (unrated) reads as NaN
            scores, ranks = (pc.list_flatten(games.column(name).combine_chunks()).to_numpy(zero_copy_only=False)
                             .reshape(-1, n) for name in ("scores", "ranks"))
            rows = np.arange(len(indices))
            low = np.where(np.isnan(mu), np.inf, mu).argmin(axis=1)
            high = np.where(np.isnan(mu), -np.inf, mu).argmax(axis=1)
            gap = mu[rows, high] - mu[rows, low]
            margin = scores[rows, low] - scores[rows, high]
            upsets = np.flatnonzero((ranks[rows, low] < ranks[rows, high]) & (gap > 0))
            if not len(upsets):
                continue
            best = upsets[np.lexsort((indices[upsets], -margin[upsets], -gap[upsets]))[0]]
            held = self.upsets.get(variant)
            if held is not None and (held[0], held[1]) >= (gap[best], margin[best]):
                continue  # an earlier game is at least as big an upset
            lo, hi = names[best, low[best]], names[best, high[best]]
            self.upsets[variant] = (float(gap[best]), float(margin[best]), int(indices[best]),
                                    f"biggest upset: {lo} (μ {mu[best, low[best]]:.1f}) above {hi} "
                                    f"(μ {mu[best, high[best]]:.1f}), by {int(margin[best])} points")

    def result(self) -> dict[str, list[tuple[int, str]]]:
        """Per variant with examples, (game index, what it shows) in game order."""
        out: dict[str, list[tuple[int, str]]] = {}
        for variant in self.ratings:
            if not self.seats.get(variant):
                continue
            picks = dict(self.tables[variant].values())
            if variant in self.upsets:
                _, _, index, upset = self.upsets[variant]
                picks[index] = f"{picks[index]}; {upset}" if index in picks else upset
            out[variant] = sorted(picks.items())
        return out


def write_example_replays(run: RunDir, examples: dict[str, list[tuple[int, str]]],
                          ratings: dict[str, VariantRatings]) -> dict[str, list[str]]:
    """Writes the replay page of each example game (`example_games`) to RUN/replays/<variant slug>-<game
    index>.html and returns, per variant, the HTML of its links (relative to the report). A game that cannot
    be regenerated (a bot gone or changed) gets a note instead: the report itself must not fail for it."""
    from arena.replay_page import write_replay_page

    slugs = _slugs(list(ratings))
    out: dict[str, list[str]] = {}
    for variant, games in examples.items():
        links = out.setdefault(variant, [])
        for index, why in games:
            name = f"{slugs[variant].removeprefix('game-')}-{index}.html"
            try:
                write_replay_page(_isolated_replay(run, index), run.path / "replays" / name)
            except Exception as error:  # noqa: BLE001 - any failure of one replay only costs its link
                links.append(f"game {index} ({html.escape(why)}): no replay ({html.escape(type(error).__name__)})")
                continue
            links.append(f"<a href='replays/{html.escape(name)}'>game {index}</a> ({html.escape(why)})")
    return out


REPLAY_SECONDS = 60.0
"""The longest one example replay may take: a replay runs the bots' code again."""


def _time_limits(config_text: str) -> tuple[float | None, float]:
    """The run's move time limit (None: none) and setup time limit, as its config gives them."""
    from arena.config import RunSettings

    run = tomllib.loads(config_text).get("run", {})
    limit = run.get("move_time_limit", RunSettings.move_time_limit)
    return None if not limit else float(limit), float(run.get("setup_time_limit", RunSettings.setup_time_limit))


def _isolated_replay(run: RunDir, index: int) -> dict:
    """`replay_game(run, index)` in a forked child: replaying runs the bots' code again, and a bot that
    exits, kills its process or hangs must cost its replay, never the report (or the run that writes it).
    The child's calls into bots are stamped on a backstop page, so one that defeats the clock is ended as in a
    run."""
    import os
    import select
    import signal
    import time

    from arena.clock import MoveWatch, new_board, use_board
    from arena.replay import replay_game

    moves = new_board(*_time_limits(run.config.read_text()))
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's exit status and pipe are what the parent checks
        code = 1
        try:
            os.close(read)
            os.dup2(2, 1)  # whatever a bot prints goes to stderr
            use_board(moves)
            data = json.dumps(replay_game(run, index)).encode()
            while data:
                data = data[os.write(write, data):]
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    chunks, deadline = [], time.monotonic() + REPLAY_SECONDS
    watch = MoveWatch(moves)
    try:
        while time.monotonic() < deadline:
            if watch.overrun():
                raise TimeoutError(f"a {'setup call' if watch.in_setup else 'move'} of game {index} ran over the "
                                   "time limit in its replay")
            if select.select([read], [], [], 0.05)[0]:
                chunk = os.read(read, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
        else:
            raise TimeoutError(f"the replay of game {index} took over {REPLAY_SECONDS:.0f} s")
    finally:
        os.close(read)
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
        status = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    if status != 0 and not chunks:
        raise RuntimeError(f"the replay of game {index} failed (exit status {status})")
    return json.loads(b"".join(chunks))


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

def _header(name: str, run: RunDir, config_text: str, manifest: dict | None, summary: ResultsSummary,
            slugs: dict[str, str], plotly_version: str) -> str:
    """The run's facts: what was played, with which versions, how long it took, and how to reproduce it."""
    e = html.escape
    facts: list[tuple[str, str]] = []
    games = ", ".join(f"<a href='#{slugs.get(v, '')}'>{e(v)}</a> {n:,}" for v, n in summary.games.items())
    if manifest:
        facts.append(("games", f"{manifest['games']:,} ({games})"))
        if manifest.get("stop"):
            facts.append(("stopped", "<br>".join(e(line) for line in stop_lines(manifest["stop"]))))
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
        facts.append(("games", f"{summary.total:,} saved ({games})"))
        facts.append(("status", "<strong>unfinished</strong>: no manifest.json yet; finish the run with "
                                "<code>arena tournament CONFIG --resume</code>"))
    facts.append(("reproduce", f"<code>arena reproduce {e(str(run.path))}</code> re-plays this config and "
                               "checks the digest"))
    rows = "\n".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in facts)
    return (f"<header><h1>Arena report: {e(name)}</h1>\n<table class='facts'>{rows}</table>\n"
            f"<details><summary>config.toml</summary><pre class='config'>{e(config_text)}</pre></details>"
            f"</header>")


def _section(variant: str, slug: str, rated: VariantRatings, scores: pd.DataFrame | None, games: int,
             terminations: dict[str, int], colours: dict[str, str], replays: list[str] | None = None) -> str:
    """One variant: rating table, example replays, pairings, deal pairs, then the charts."""
    bots = list(rated.table["bot"])
    plots = [
        ("ratings", _ratings_figure(rated.table, colours)),
        ("los", _los_figure(rated)),
        ("pairwise", _pairwise_figure(rated.pairwise)),
        ("progress", _progress_figure(rated.progress, bots, colours)),
        ("scores", _scores_figure(scores, bots, colours)),
        ("seats", _seats_figure(rated.seats)),
        ("neighbours", _neighbours_figure(rated)),
        ("terminations", _terminations_figure(terminations)),
    ]
    divs = "\n".join(f"<div class='plot' data-plot='{kind}'>{_figure_html(fig, f'{slug}-{kind}')}</div>"
                     for kind, fig in plots if fig is not None)
    if rated.method == "batch":
        how = ("Ranked by TrueSkill μ, the posterior given all games at once (order-free). Intervals come from "
               "resampling whole deals; bots whose difference is not significant at 95% share a tier "
               "(<code>2=</code>).")
    else:
        how = ("Ranked by the online TrueSkill μ − 3σ, updated game by game in game-index order; its σ is the "
               "model's, tiers come from resampling whole deals.")
    cross = ("The Plackett–Luce maximum-likelihood fit of the same games gives the same order."
             if not rated.disagreements else
             "The Plackett–Luce maximum-likelihood fit disagrees: " + html.escape("; ".join(rated.disagreements)) + ".")
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
            f"<p class='note'>{games:,} games. {how}</p>\n{_rating_table(rated.table)}\n{examples}"
            f"<p class='note'>{cross}</p>\n<h3>Pairings</h3>{_pairs_table(rated.pairs)}{duplicate}\n"
            f"<div class='plots'>{divs}</div></section>")


def _rating_table(table: pd.DataFrame) -> str:
    """The rating table as HTML."""
    head = ("<tr><th>rank</th><th>bot</th><th>μ (95% CI)</th><th>σ</th><th>μ − 3σ</th><th>games</th><th>deals</th>"
            "<th>wins</th><th>win rate (95% CI)</th><th>mean score (95% CI)</th><th>forfeits</th>"
            "<th>Plackett–Luce</th></tr>")
    rows = [
        f"<tr class='tier-{r.tier % 2}'><td>{html.escape(str(r.rank))}</td><td class='bot'>{html.escape(str(r.bot))}"
        f"</td><td><strong>{r.mu:.2f}</strong> [{r.mu_lo:.2f}, {r.mu_hi:.2f}]</td><td>{r.sigma:.2f}</td>"
        f"<td>{r.conservative:.2f}</td><td>{r.games:,}</td><td>{r.deals:,}</td><td>{r.wins:,}</td>"
        f"<td>{r.win_rate:.3f} [{r.win_rate_lo:.3f}, {r.win_rate_hi:.3f}]</td>"
        f"<td>{r.mean_score:.1f} [{_number(r.mean_score_lo)}, {_number(r.mean_score_hi)}]</td>"
        f"<td>{r.forfeits:,}</td><td>{r.pl_rank}</td></tr>"
        for r in table.itertuples(index=False)
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
                    f"<td>{r.win_rate:.3f} [{r.win_rate_lo:.3f}, {r.win_rate_hi:.3f}]</td>"
                    f"<td>{r.mu_diff:+.2f} [{_number(r.mu_diff_lo, 2)}, {_number(r.mu_diff_hi, 2)}]</td>"
                    f"<td>{r.los:.3f}</td></tr>")
    return f"<table class='pairs'>{head}{''.join(rows)}</table>"


def _duplicate_table(dup: pd.DataFrame) -> str:
    """Two-player pairings on deal pairs: pentanomial counts, score and duplicate score margin."""
    head = ("<tr><th>bot</th><th>opponent</th><th>deal pairs</th><th>0</th><th>½</th><th>1</th><th>1½</th><th>2</th>"
            "<th>score (95% CI)</th><th>score margin (95% CI)</th></tr>")
    rows = [f"<tr><td class='bot'>{html.escape(str(r.bot))}</td><td class='bot'>{html.escape(str(r.opponent))}</td>"
            f"<td>{r.deals:,}</td>" + "".join(f"<td>{int(v):,}</td>" for v in (r.p0, r.p05, r.p1, r.p15, r.p2))
            + f"<td>{r.score:.3f} [{_number(r.score_lo, 3)}, {_number(r.score_hi, 3)}]</td>"
            f"<td>{r.score_diff:+.1f} [{_number(r.score_diff_lo)}, {_number(r.score_diff_hi)}]</td></tr>"
            for r in dup.itertuples(index=False)]
    return f"<table class='pairs'>{head}{''.join(rows)}</table>"


def _number(value: float, digits: int = 1) -> str:
    """A bound, or a dash when undefined (a single deal has no interval)."""
    return "–" if np.isnan(value) else f"{value:.{digits}f}"


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
table.ratings th, table.pairs th { background: #f4f4f4; }
table.ratings tr.tier-1 td { background: #f7f9fc; }
h3 { font-size: 16px; margin: 14px 0 2px; }
pre.config { background: #f7f7f7; border: 1px solid #e5e5e5; padding: 8px 12px; overflow-x: auto; }
.note { color: #555; margin: 2px 0 6px; }
.plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 12px 20px; }
.plot { min-width: 0; }
code { font-size: 12px; }
"""
