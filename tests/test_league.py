"""The league: new, add (checks, freezing, versions), retire, play (rounds, resume after SIGKILL, one at a time),
and the standing table, through the real commands with real Parquet parts and SQLite. The commands run in this
process (Typer's runner: a third of the CPU time of a new interpreter each), and in a process of their own
wherever the process matters: the killed `play` and `add`, the reader beside a `play`, the second `play`."""

import hashlib
import json
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from browser import needs_browser
from playwright.sync_api import expect
from typer.testing import CliRunner

from arena.cli import app
from arena.league import load_settings
from arena.league.catalog import Catalog
from arena.league.directory import LeagueDir
from arena.league.matchmaker import Matchmaker
from arena.league.play import RoundRecorder, play_lock
from arena.ratings import looks
from arena.results import PART_NAME, RunDir, run_digest

ARENA = [sys.executable, "-m", "arena.cli"]

LEAGUE_TOML = """
name = "club"
seed = 11

[[games]]
game = "caterpillar"

[run]
workers = 1
batch_size = 4

[league]
deals = 2
placement = 2
isolation = "process"
"""

BOT = '''
from arena.bots import Bot
import time


class Paced(Bot):
    """Random moves, {pace} s a move: slow enough to be killed mid-round."""

    name = "paced"
    games = {{"caterpillar"}}

    def reset(self, game_id, seat, rules, rng):
        self.rng = rng

    def act(self, observation):
        time.sleep({pace})
        return self.rng.choice(observation.legal_moves)
'''

BROKEN = '''
from arena.bots import Bot


class Broken(Bot):
    name = "broken"
    games = {"caterpillar"}

    def act(self, observation):
        raise RuntimeError("no")
'''


def arena(*args, check=True):
    """`arena ARGS` in this process: its exit status, stdout and stderr."""
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    done = SimpleNamespace(returncode=result.exit_code, stdout=result.stdout, stderr=result.stderr)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def arena_process(*args):
    """`arena ARGS` in a process of its own."""
    return subprocess.run(ARENA + [str(a) for a in args], capture_output=True, text=True, timeout=600)


def one_line_refusal(done) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def make_league(tmp_path: Path, name: str = "league", toml: str = LEAGUE_TOML) -> Path:
    config = tmp_path / f"{name}.toml"
    config.write_text(toml)
    arena("league", "new", tmp_path / name, config)
    return tmp_path / name


def bot_file(tmp_path: Path, pace: float = 0.0, name: str = "paced.py") -> Path:
    path = tmp_path / name
    path.write_text(BOT.format(pace=pace))
    return path


def add(league: Path, spec, *more, check=True):
    return arena("league", "add", league, spec, "--no-sandbox", "--games", "1", *more, check=check)


def state(league: Path) -> str:
    """Everything a league holds: the catalog's rows and every file's bytes (the play lock aside)."""
    db = sqlite3.connect(league / "catalog.sqlite")
    rows = [db.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in ("meta", "bots", "rounds")]
    db.close()
    sha = hashlib.sha256(repr(rows).encode())
    for path in sorted(league.rglob("*")):
        if path.is_file() and not path.name.startswith(("catalog.sqlite", "play.lock")):
            sha.update(str(path.relative_to(league)).encode() + path.read_bytes())
    return sha.hexdigest()


def catalog_agrees_with_parts(league: Path) -> int:
    """Asserts that the parts hold each game of the recorded rounds exactly once, and nothing else; the games."""
    catalog = Catalog(league)
    rounds = catalog.rounds()
    catalog.close()
    covered = []
    for path in sorted((league / "results").glob("part-*.parquet")):
        start, end = map(int, PART_NAME.fullmatch(path.name).groups())
        table = pq.read_table(path)
        assert table.column("game_index").to_pylist() == list(range(start, end))
        by_number = {r.number: r for r in rounds}  # a compacted part holds many rounds, each game its own
        for index, number in zip(table.column("game_index").to_pylist(), table.column("round").to_pylist(),
                                 strict=True):
            assert by_number[number].first_index <= index < by_number[number].end_index
        covered.append((start, end))
    covered.sort()
    position = 0
    for start, end in covered:
        assert start == position, f"games {position}..{start - 1} missing or doubled"
        position = end
    assert position == (rounds[-1].end_index if rounds else 0)
    assert all(r.status == "done" for r in rounds)
    return position


def test_new_add_versions_retire_and_refusals(tmp_path):
    league = make_league(tmp_path)
    assert "refuses" not in one_line_refusal(arena("league", "new", league, tmp_path / "league.toml", check=False))
    bad = tmp_path / "bad.toml"
    bad.write_text(LEAGUE_TOML.replace('game = "caterpillar"', 'game = "snap"'))
    assert "games[0].game" in one_line_refusal(arena("league", "new", tmp_path / "other", bad, check=False))
    assert not (tmp_path / "other").exists()

    paced = bot_file(tmp_path)
    assert "added 'paced' (version 1, file" in add(league, f"{paced}:Paced").stdout
    frozen = list((league / "bots").iterdir())
    assert len(frozen) == 1 and (frozen[0] / "paced.py").read_text() == paced.read_text()
    before = state(league)
    assert "unchanged" in add(league, f"{paced}:Paced").stdout
    assert state(league) == before

    paced.write_text(paced.read_text().replace("Random moves", "Random moves, version two"))
    assert "added 'paced@2' (version 2" in add(league, f"{paced}:Paced").stdout
    assert "added 'random'" in add(league, "random").stdout
    before = state(league)
    broken = tmp_path / "broken.py"
    broken.write_text(BROKEN)
    refused = arena("league", "add", league, f"{broken}:Broken", "--games", "1", check=False)  # in the sandbox
    assert "failed its checks" in one_line_refusal(refused)
    assert "unknown bot" in one_line_refusal(add(league, "no-such-bot", check=False))
    assert "unknown bot" not in one_line_refusal(arena("league", "retire", league, "nobody", check=False))
    assert state(league) == before, "a refused add or retire changes nothing"

    assert "retired 'paced' (version 1 only)" in arena("league", "retire", league, "paced@1").stdout
    assert "unchanged: paced (retired)" in arena("league", "retire", league, "paced@1").stdout
    catalog = Catalog(league)
    assert [(b.label, b.version, b.status) for b in catalog.bots()] == [
        ("paced", 1, "retired"), ("paced@2", 2, "active"), ("random", 1, "active")]
    catalog.close()
    arena("league", "play", league, "--rounds", "2", "--no-progress")
    catalog = Catalog(league)
    played = {b for r in catalog.rounds() for t in r.plan for b in t["bots"]}
    catalog.close()
    assert played == {"paced@2", "random"}, "a retired version does not play"

    with sqlite3.connect(league / "catalog.sqlite") as db:
        db.execute("UPDATE meta SET value = 'arena-league 99' WHERE key = 'format'")
    line = one_line_refusal(arena("league", "table", league, check=False))
    assert "arena-league 99" in line
    assert "not a league directory" in one_line_refusal(arena("league", "play", tmp_path, check=False))


def test_a_new_bot_leaves_earlier_games_untouched_and_plays_first(tmp_path):
    league = make_league(tmp_path)
    add(league, "random")
    add(league, "greedy")
    add(league, "random", "--name", "random-twin")
    arena("league", "play", league, "--rounds", "3", "--no-progress")
    parts = {p.name: p.read_bytes() for p in (league / "results").glob("part-*.parquet")}
    add(league, "heuristic")
    arena("league", "play", league, "--rounds", "1", "--no-progress")
    assert all((league / "results" / name).read_bytes() == data for name, data in parts.items())
    catalog = Catalog(league)
    last = catalog.rounds()[-1]
    catalog.close()
    assert last.plan and all("heuristic" in t["bots"] and t["why"].startswith("placement") for t in last.plan)
    catalog_agrees_with_parts(league)


def test_a_second_play_is_refused_while_one_plays(tmp_path):
    league = make_league(tmp_path)
    add(league, "random")
    add(league, "greedy")
    before = state(league)
    with play_lock(league):
        refused = arena_process("league", "play", league)  # with its progress bar, which it never draws
    assert "another `arena league play`" in one_line_refusal(refused)
    assert refused.stdout == ""
    assert state(league) == before


def test_identical_twins_tie(tmp_path):
    league = make_league(tmp_path, toml=LEAGUE_TOML.replace("deals = 2", "deals = 40"))
    add(league, "greedy")
    add(league, "greedy", "--name", "twin")
    add(league, "random")
    arena("league", "play", league, "--rounds", "6", "--no-progress")
    table = arena("league", "table", league, "--format", "json").stdout
    rows = {r["bot"]: r for r in json.loads(table)}
    assert rows["greedy"]["tier"] == rows["twin"]["tier"] != rows["random"]["tier"]


def cut_short(league: Path) -> bool:
    """Whether a round is being played, with some of its games saved and some not."""
    catalog = Catalog(league)
    playing = [r for r in catalog.rounds() if r.status == "playing"]
    catalog.close()
    if not playing:
        return False
    names = (PART_NAME.fullmatch(p.name) for p in (league / "results").glob("part-*"))
    first, end = playing[0].first_index, playing[0].end_index
    saved = sum(int(m[2]) - int(m[1]) for m in names if m and first <= int(m[1]) < end)
    return 0 < saved < playing[0].games


@pytest.mark.slow
def test_sigkill_during_play_then_play_loses_and_doubles_nothing(tmp_path):
    paced = bot_file(tmp_path, pace=0.004)
    toml = LEAGUE_TOML.replace("deals = 2", "deals = 6")  # 12 games a table, 4 a part
    leagues = [make_league(tmp_path, name, toml) for name in ("killed", "whole")]
    for league in leagues:
        add(league, f"{paced}:Paced")
        add(league, "random")
        add(league, "greedy")
    killed, whole = leagues
    process = subprocess.Popen(ARENA + ["league", "play", str(killed), "--rounds", "5", "--no-progress"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while not cut_short(killed):  # a round recorded and partly saved: kill it there
        assert process.poll() is None and time.time() < deadline, "play ended before it could be killed"
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    arena("league", "play", killed, "--rounds", "1", "--no-progress")  # finishes the round cut short, plays one
    catalog = Catalog(killed)
    rounds = len(catalog.rounds())
    catalog.close()
    games = catalog_agrees_with_parts(killed)
    arena("league", "play", whole, "--rounds", rounds, "--no-progress")
    assert catalog_agrees_with_parts(whole) == games
    assert run_digest(RunDir(killed)) == run_digest(RunDir(whole)), "the same rounds, the same games"


@pytest.mark.slow
def test_sigkill_during_add_leaves_the_league_whole(tmp_path):
    league = make_league(tmp_path)
    paced = bot_file(tmp_path)
    for delay in (0.3, 0.8, 1.5, 2.5):
        process = subprocess.Popen(ARENA + ["league", "add", str(league), f"{paced}:Paced", "--no-sandbox",
                                            "--games", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        catalog = Catalog(league)
        assert len(catalog.bots()) <= 1
        catalog.close()
    add(league, f"{paced}:Paced")
    add(league, "random")
    catalog = Catalog(league)
    assert [b.label for b in catalog.bots()] == ["paced", "random"]
    catalog.close()
    (frozen,) = [p for p in (league / "bots").iterdir() if not p.name.startswith(".")]
    assert (frozen / "paced.py").read_text() == paced.read_text()
    arena("league", "play", league, "--no-progress")
    catalog_agrees_with_parts(league)


@pytest.mark.slow
def test_a_reader_during_play_sees_whole_rounds(tmp_path):
    from arena.league.standings import snapshot, standing_frames

    league = make_league(tmp_path)
    add(league, f"{bot_file(tmp_path, pace=0.002)}:Paced")
    add(league, "random")
    add(league, "greedy")
    process = subprocess.Popen(ARENA + ["league", "play", str(league), "--rounds", "6", "--no-progress"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = set()
    try:
        while process.poll() is None:
            _, frames = standing_frames(league)
            _, rounds = snapshot(league)  # later: every round the table could have read, and maybe more
            games = sum(int(f["games"].sum()) // 2 for f in frames.values())
            ends = {0} | {sum(r.games for r in rounds[:k]) for k in range(1, len(rounds) + 1)}
            assert games in ends, "a table stands on whole rounds"
            seen.add(games)
    finally:
        process.wait()
    assert process.returncode == 0
    assert len(seen) >= 2, "read while play was writing"
    catalog_agrees_with_parts(league)


@pytest.mark.slow
@pytest.mark.ray
def test_same_seed_and_adds_give_the_same_games_on_one_and_two_workers(tmp_path, local_ray):
    digests = []
    for workers in (1, local_ray):
        league = make_league(tmp_path, f"w{workers}")
        for spec in ("random", "greedy", "heuristic"):
            add(league, spec)
        arena("league", "play", league, "--rounds", "3", "--workers", workers, "--no-progress")
        catalog_agrees_with_parts(league)
        digests.append(run_digest(RunDir(league)))
    assert digests[0] == digests[1]


def test_past_warm_from_the_looks_choose_the_same_rounds_in_one_play_or_a_play_a_round(tmp_path, monkeypatch):
    """Past WARM_FROM games a look updates the last checkpoint instead of fitting every game, and is still a function
    of the games alone: a league played in one `play` and one played a round per `play` (each start reads every game
    again, as after a kill) choose the same tables and play the same games."""
    monkeypatch.setattr(looks, "WARM_FROM", 16)  # checkpoints at 16, 20, 25, 31 and 38 games
    leagues = {}
    for name, plays in (("once", [8]), ("each", [1] * 8)):
        league = leagues[name] = make_league(tmp_path, name)
        for spec in ("random", "greedy", "heuristic"):
            add(league, spec)
        for rounds in plays:
            arena("league", "play", league, "--rounds", rounds, "--no-progress")
    plans, games = [], []
    for league in leagues.values():
        catalog = Catalog(league)
        plans.append([round_.plan for round_ in catalog.rounds()])
        catalog.close()
        games.append(catalog_agrees_with_parts(league))
    assert plans[0] == plans[1] and games[0] == games[1] > 38  # past the last checkpoint named above
    assert run_digest(RunDir(leagues["once"])) == run_digest(RunDir(leagues["each"]))


def test_the_table_shows_version_and_added(tmp_path):
    league = make_league(tmp_path)
    add(league, "random")
    add(league, "greedy")
    assert "no finished round" in arena("league", "table", league).stdout
    arena("league", "play", league, "--rounds", "2", "--no-progress")
    csv = arena("league", "table", league, "--format", "csv").stdout.splitlines()
    header = csv[0].split(",")
    assert header[:6] == ["rank", "tier", "bot", "version", "status", "added"] and len(csv) == 3
    history = arena("league", "table", league, "--history", "--format", "markdown").stdout
    assert "### caterpillar: each bot's mu after each round (2 rounds)" in history
    assert re.search(r"^\| round \| (greedy|random) \| (greedy|random) \|$", history, flags=re.M)
    assert re.search(r"^\| 2 \| \d+\.\d\d \| \d+\.\d\d \|$", history, flags=re.M)


def test_league_dir_names_every_file_a_league_holds(tmp_path):
    league = make_league(tmp_path)
    add(league, "random")
    add(league, "greedy")
    arena("league", "play", league, "--rounds", "1", "--no-progress")
    assert arena("league", "report", league).stdout.strip() == f"wrote {LeagueDir(league).report}"
    named = LeagueDir(league)
    paths = {named.settings, named.catalog, named.bots, named.results, named.lock, named.leaderboard}
    # SQLite's write-ahead log and shared memory sit beside the catalog, named by it
    assert {p for p in league.iterdir() if not p.name.startswith(named.catalog.name + "-")} == paths
    assert named.run.results == named.results and list(named.results.glob("part-*.parquet"))
    assert named.report.is_file() and named.bots.is_dir()


def test_a_league_report_reads_league_toml_once_and_sees_it_change(tmp_path, opened):
    """The static pages of a real league, rendered through one LeagueDir: league.toml read once (4 times before
    the LeagueDir kept it); a LeagueDir held on reads it again once it changed on disk."""
    league = make_league(tmp_path)
    add(league, "random")
    add(league, "greedy")
    arena("league", "play", league, "--rounds", "1", "--no-progress")
    before = opened("league.toml")
    arena("league", "report", league)
    assert opened("league.toml") - before == 1
    held = LeagueDir(league)
    assert load_settings(held).name == load_settings(held).name == "club"
    assert opened("league.toml") - before == 2  # the second look at the same LeagueDir read nothing
    held.settings.write_text(held.settings.read_text().replace('name = "club"', 'name = "chess-club"'))
    assert load_settings(held).name == "chess-club"


def test_the_matchmaker_plans_a_round_and_play_records_it(tmp_path):
    """The planner only reads the catalog: the round it returns is recorded by play.py's RoundRecorder, before
    the runner plays it."""
    league = make_league(tmp_path)
    add(league, "random")
    add(league, "greedy")
    catalog = Catalog(league)
    try:
        matchmaker = Matchmaker(league, load_settings(league), catalog, rounds=1)
        planned = matchmaker.plan(None)
        assert planned.status == "planned" and catalog.rounds() == []
        assert matchmaker.step(planned).ranges == [(0, planned.games)]
        recorder = RoundRecorder(Matchmaker(league, load_settings(league), catalog, rounds=1), catalog)
        assert recorder.next(None).ranges == [(0, planned.games)]
        assert [(r.number, r.status, r.config) for r in catalog.rounds()] == [(1, "playing", planned.config)]
        assert recorder.next(None) is None and catalog.rounds()[0].status == "done"
    finally:
        catalog.close()


def test_the_history_is_a_table_of_rounds_by_bot():
    """`league table --history`: a row per round (per k-th round past a dozen, the last always shown), a column
    per bot in the last round's order, its mu; blank before the bot joined."""
    from arena.cli.tables import history_tables

    rows = [(r, "caterpillar", bot, mu + r / 100, 1.0, r) for r in range(1, 35)
            for bot, mu in (("random", 20), ("greedy", 25)) + ((("late", 30),) if r > 20 else ())]
    frame = pd.DataFrame(rows, columns=["round", "variant", "bot", "mu", "sigma", "games"])
    ((title, shown),) = history_tables(frame)
    assert title == "caterpillar: each bot's mu every 3 rounds, up to the last of 34"
    assert list(shown.columns) == ["round", "late", "greedy", "random"]
    assert list(shown["round"]) == [str(r) for r in range(1, 35, 3)] and len(shown) <= 12
    assert shown.iloc[-1].tolist() == ["34", "30.34", "25.34", "20.34"]
    assert shown["late"].iloc[0] == ""  # not in the league yet at round 1


@pytest.mark.slow
@needs_browser
def test_chromium_shows_the_leaderboard_and_a_page_per_bot(tmp_path, browse):
    league = make_league(tmp_path)
    for spec in ("random", "greedy", "heuristic"):
        add(league, spec)
    arena("league", "play", league, "--rounds", "3", "--no-progress")
    arena("league", "retire", league, "random")
    index = Path(arena("league", "report", league).stdout.split("wrote ", 1)[1].strip())
    seen = browse(index)
    expect(seen.page.locator("body")).to_have_attribute("data-ready", "yes")
    rows = [row.locator("th, td").all_text_contents() for row in seen.page.locator("table.leaderboard tr").all()[1:]]
    links = [a.get_attribute("href") for a in seen.page.locator("table.leaderboard a").all()]
    assert seen.exceptions == [] and seen.console_errors == []
    assert [url for url in seen.requests if url != index.resolve().as_uri()
            and not url.startswith("data:")] == [], "the page loads nothing"
    assert sorted(r[1] for r in rows) == ["greedy", "heuristic", "random"]
    assert {r[1]: r[4] for r in rows}["random"] == "retired"
    replays = []
    for link in links:
        bot_page = index.parent / link
        opened = browse(bot_page)
        expect(opened.page.locator("body")).to_have_attribute("data-ready", "yes")
        assert opened.exceptions == [] and opened.console_errors == []
        assert len(opened.page.locator("table.pairs tr").all()[1:]) == 2, "it met both others"
        replays.append(index.parent / re.search(r'class="replay" href="(replay-[^"]+)"', bot_page.read_text())[1])
    assert all(replay.is_file() for replay in replays)
    # one replay opened is enough here: tests/test_replay_page.py steps through the page in every game
    shown = browse(replays[0])
    assert shown.exceptions == [] and shown.console_errors == []


SLOW_LATER = """
import os
import time

from arena.bots import Bot


class SlowLater(Bot):
    name = "slow-later"
    games = {{"caterpillar"}}

    def act(self, observation):
        if os.path.exists({marker!r}):  # a tenth of a second a move, well inside the move time limit
            time.sleep(0.1)
        return observation.legal_moves[0]
"""


def test_a_replay_over_its_time_limit_costs_its_link_not_the_report(tmp_path, monkeypatch):
    """The first-game replays run in a child under a time limit for the whole replay, as the run report's
    examples do: a bot that plays its games at once and then takes its time in their replay ends the replay at
    that limit, and the pages are written without its links."""
    league = make_league(tmp_path)
    marker = tmp_path / "slow"
    bot = tmp_path / "slow_later.py"
    bot.write_text(SLOW_LATER.format(marker=str(marker)))
    add(league, "random")
    add(league, f"{bot}:SlowLater")
    arena("league", "play", league, "--rounds", "1", "--no-progress")
    marker.touch()
    monkeypatch.setattr("arena.tournament.replay.REPLAY_SECONDS", 0.5)  # a replay of this game takes seconds
    started = time.perf_counter()
    arena("league", "report", league)
    assert time.perf_counter() - started < 20
    pages = list(LeagueDir(league).leaderboard.glob("bot-*.html"))
    assert len(pages) == 2 and not any('class="replay"' in page.read_text() for page in pages)


def test_the_static_pages_never_show_a_nan_bound(tmp_path):
    """One deal a table has no interval of a mean score: `arena league table` shows a dash, and the pages (whose
    tables are the server's) never show a NaN."""
    league = make_league(tmp_path, toml=LEAGUE_TOML.replace("deals = 2", "deals = 1"))
    add(league, "random")
    add(league, "greedy")
    arena("league", "play", league, "--rounds", "1", "--no-progress")
    assert "[–, –]" in arena("league", "table", league).stdout
    arena("league", "report", league)
    pages = [page.read_text() for page in [LeagueDir(league).report, *LeagueDir(league).leaderboard.glob("bot-*")]]
    assert len(pages) == 3 and not any("nan" in page for page in pages)


def test_play_keeps_its_budget_at_round_boundaries_and_stops_when_settled(tmp_path):
    league = make_league(tmp_path)
    for spec in ("random", "heuristic"):
        add(league, spec)
    out = arena("league", "play", league, "--games", 30, "--no-progress").stdout
    played = int(re.search(r"([\d,]+) games played", out)[1])
    assert 0 < played <= 30 and "budget of 30 games" in out
    assert catalog_agrees_with_parts(league) == played
    out = arena("league", "play", league, "--until", "settled", "--games", 4000, "--no-progress").stdout
    assert "every variant is settled" in out, out  # heuristic against random is settled long before 4,000 games
    catalog = Catalog(league)
    assert sum(r.games for r in catalog.rounds()) < 4000 + played
    catalog.close()
    assert "no round" in arena("league", "play", league, "--until", "settled", "--no-progress").stdout


def test_the_matchmakers_running_ratings_equal_rating_everything_again(tmp_path):
    from arena.league.play import league_parts
    from arena.ratings.tables import RunningRatings, rate_parts

    league = make_league(tmp_path)
    for spec in ("random", "greedy", "heuristic"):
        add(league, spec)
    arena("league", "play", league, "--rounds", "4", "--no-progress")
    catalog = Catalog(league)
    rounds = catalog.rounds()
    catalog.close()
    running = RunningRatings(replicates=30)
    for round_ in rounds:  # a look after every round, as the matchmaker's
        for part in league_parts(league, [round_], ["game_index", "variant", "seed", "players", "scores", "ranks"]):
            running.add(part)
        looked = running.tables()["caterpillar"].table
        again = rate_parts(league_parts(league, rounds[:round_.number], None), replicates=30)["caterpillar"].table
        assert list(looked["bot"]) == list(again["bot"]) and list(looked["games"]) == list(again["games"])
        numbers = ["mu", "sigma", "mu_lo", "mu_hi", "deals", "win_rate", "win_rate_lo", "win_rate_hi"]
        difference = np.abs(looked[numbers].to_numpy(float) - again[numbers].to_numpy(float)).max()
        assert difference < 1e-9, (round_.number, difference)  # the sums in another order: rounding only


def test_a_finished_rounds_damaged_part_has_its_games_played_again(tmp_path):
    """A part of a round already finished, damaged on disk after the fact: the next `arena league play` sets it aside
    and plays its games again from the round's seeds before any new round, the same games, and nothing is lost."""
    league = make_league(tmp_path)
    add(league, "random")
    add(league, "greedy")
    arena("league", "play", league, "--no-progress")
    part = sorted((league / "results").glob("part-*.parquet"))[-1]
    same = ["game_index", "seed", "players", "scores", "ranks", "termination"]
    before = pq.read_table(part, columns=same)
    part.write_bytes(part.read_bytes()[:100])
    played = arena("league", "play", league, "--no-progress")
    assert "was damaged" in played.stderr
    assert catalog_agrees_with_parts(league) > before.num_rows
    first, last = before.column("game_index")[0].as_py(), before.column("game_index")[-1].as_py()
    again = pa.concat_tables(pq.read_table(p, columns=same) for p in sorted((league / "results").glob("part-*")))
    index = again["game_index"]
    again = again.filter(pc.and_(pc.greater_equal(index, first), pc.less_equal(index, last)))
    assert again.sort_by("game_index").equals(before)


def test_a_damaged_part_is_set_aside_with_one_warning_and_its_games_played_again(tmp_path):
    """A part a crash left unreadable, in the round it cut short: the next `arena league play` moves it aside, says so
    on stderr (a warning through logging, in the words it always had), and plays its games again."""
    league = make_league(tmp_path)
    add(league, "random")
    add(league, "greedy")
    arena("league", "play", league, "--no-progress")
    part = sorted((league / "results").glob("part-*.parquet"))[-1]
    part.write_bytes(part.read_bytes()[:100])
    with sqlite3.connect(league / "catalog.sqlite") as db:  # the round as the crash left it: not finished
        db.execute("UPDATE rounds SET status = 'playing', finished = NULL")
    played = arena("league", "play", league, "--no-progress")
    aside = league / "damaged" / part.name
    assert re.fullmatch(rf"warning: {re.escape(str(part))} was damaged \(.+\); moved to {re.escape(str(aside))} "
                        r"and its games will be replayed\n", played.stderr), played.stderr
    assert aside.exists() and "warning" not in played.stdout
    catalog_agrees_with_parts(league)
