"""`arena league serve`: a real uvicorn server in a process of its own on a free loopback port, read by a real
HTTP client (httpx) and by Chromium. Every page and endpoint on an empty, a mid-round and a settled league; a
bot added meanwhile; the server SIGKILLed mid-round and started again; bad paths and parameters; errors as HTML
pages and JSON lines; a request kept waiting that keeps no other waiting."""

import html
import json
import re
import shutil
import signal
import sqlite3
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pandas as pd
import pytest
from browser import needs_browser
from playwright.sync_api import expect
from test_league import ARENA, BOT, cut_short
from test_league import LEAGUE_TOML as CLUB_TOML
from typer.testing import CliRunner

from arena.cli import app
from arena.league.catalog import Catalog
from arena.results import PART_NAME, RunDir, run_digest

# a round of one table (2 deals, 2 seatings) is two parts: one can be cut short
LEAGUE_TOML = CLUB_TOML.replace("batch_size = 4", "batch_size = 2").replace('"process"', '"none"')

PACED = BOT  # random moves, `pace` s a move: slow enough to be caught mid-round


def arena(*args, check=True):
    """`arena ARGS` in this process."""
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    if check:
        assert result.exit_code == 0, result.stderr
    return result


def make_league(tmp_path: Path, *bots: str, name: str = "league", pace: float | None = None,
                tie_margin: float | None = None) -> Path:
    """A caterpillar league of these bundled bots (and a paced bot first, if `pace`), nothing played; a wide
    `tie_margin` settles a pair of twins in a hundred or so games rather than thousands."""
    config = tmp_path / f"{name}.toml"
    config.write_text(LEAGUE_TOML + ("" if tie_margin is None else f"tie_margin = {tie_margin}\n"))
    league = tmp_path / name
    arena("league", "new", league, config)
    if pace is not None:
        (tmp_path / "paced.py").write_text(PACED.format(pace=pace))
        arena("league", "add", league, f"{tmp_path / 'paced.py'}:Paced", "--no-sandbox", "--games", "1")
    for bot in bots:
        arena("league", "add", league, bot, "--no-sandbox", "--games", "1")
    return league


@contextmanager
def served(league: Path, *options: str):
    """`arena league serve LEAGUE --port 0 OPTIONS` in a process of its own; yields (process, httpx client)."""
    process = subprocess.Popen(ARENA + ["league", "serve", str(league), "--port", "0", *options],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, (line, process.stderr.read() if process.poll() is not None else "")
        with httpx.Client(base_url=f"http://127.0.0.1:{found[1]}", timeout=30) as client:
            wait_for(lambda: _answers(client), "the server answers")
            yield process, client
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _answers(client: httpx.Client) -> bool:
    try:
        return client.get("/api/health").status_code == 200
    except httpx.TransportError:
        return False


def wait_for(condition, what: str, seconds: float = 90):
    """Polls `condition` until it is true (returns its value) or fails after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting until {what}")


def done_rounds(league: Path) -> list:
    catalog = Catalog(league)
    try:
        return [r for r in catalog.rounds() if r.status == "done"]
    finally:
        catalog.close()


def one_line_error(response: httpx.Response, status: int) -> str:
    """Asserts a JSON error of this status, one line, no traceback; returns the line."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert list(body) == ["error"] and "\n" not in body["error"] and "Traceback" not in response.text
    return body["error"]


def error_page(response: httpx.Response, status: int) -> str:
    """Asserts an HTML error page of this status, its one line shown, no traceback; returns the line."""
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("text/html") and "Traceback" not in response.text
    heading = re.search(r"<h1>(.*?)</h1>", response.text)[1]
    assert heading.startswith(f"{status} "), heading  # "404 Not Found"
    line = html.unescape(re.search(r'<p class="error">(.*?)</p>', response.text, re.S)[1])
    assert "\n" not in line
    return line


def test_every_page_and_endpoint_of_an_empty_league(tmp_path):
    league = make_league(tmp_path)
    with served(league, "--no-play") as (_, client):
        assert client.get("/api/health").json() == {"status": "ok", "rounds": 0, "games": 0, "playing": False}
        assert client.get("/api/standings").json() == {"rounds": 0, "games": 0, "variants": {}}
        assert client.get("/api/rounds").json() == {"rounds": []}
        for path in ("/", "/rounds"):
            page = client.get(path)
            assert page.status_code == 200 and "No finished round yet" in page.text
        assert client.get("/static/htmx.min.js").status_code == 200
        assert client.get("/static/report/plotly-cartesian.min.js").status_code == 200
        assert client.get("/games/0").status_code == 404
        one_line_error(client.get("/api/bots/random"), 404)


@pytest.fixture(scope="module")
def settled(tmp_path_factory):
    """A league of three bundled bots played until settled, served without play: (league, client). One league and
    one server for the tests that only read one."""
    league = make_league(tmp_path_factory.mktemp("settled"), "random", "greedy", "heuristic")
    arena("league", "play", league, "--until", "settled", "--no-progress")
    with served(league, "--no-play") as (process, client):
        yield league, client, process


def test_the_computing_process_is_forked_from_the_server_with_its_modules_not_spawned(settled):
    """Forked before it listens, the server's computing process starts with its modules loaded (spawned, it imported
    pandas, pyarrow and the ratings again): a child with the server's own command line, none of multiprocessing's."""
    _, _, process = settled
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    commands = [Path(f"/proc/{child}/cmdline").read_bytes() for child in children]
    assert Path(f"/proc/{process.pid}/cmdline").read_bytes() in commands, commands
    assert not any(b"multiprocessing" in command for command in commands), commands


def test_every_page_and_endpoint_of_a_settled_league(settled):
    league, client, _ = settled
    rounds = done_rounds(league)
    table = json.loads(arena("league", "table", league, "--format", "json").stdout)
    games = sum(r.games for r in rounds)
    assert client.get("/api/health").json() == {"status": "ok", "rounds": len(rounds), "games": games,
                                                "playing": False}
    standings = client.get("/api/standings").json()
    assert (standings["rounds"], standings["games"]) == (len(rounds), games)
    rows = standings["variants"]["caterpillar"]
    assert [(r["bot"], r["games"], r["rank"]) for r in rows] == [(r["bot"], r["games"], r["rank"]) for r in table]
    for served_row, row in zip(rows, table, strict=True):  # running sums, equal to rating every game again
        assert served_row["mu"] == pytest.approx(row["mu"], abs=1e-9)
        assert served_row["mu_lo"] == pytest.approx(row["mu_lo"], abs=1e-9)

    board = client.get("/").text
    assert all(f"/bots/{r['bot']}" in board for r in rows) and "win rate" not in board.split("</p>", 1)[1]
    log = client.get("/rounds").text
    first = rounds[-20:]  # the log's first page: the 20 latest rounds
    assert log.index(f"Round {first[-1].number}<") < log.index(f"Round {first[0].number}<"), "newest first"
    assert all(table_["why"] in log for r in first for table_ in r.plan)
    after = client.get("/api/rounds", params={"after": 1}).json()["rounds"]
    assert [r["number"] for r in after] == [r.number for r in rounds[1:21]]  # a page of 20
    assert after[0]["tables"] == rounds[1].plan

    bot = client.get("/api/bots/random").json()
    assert [v["label"] for v in bot["versions"]] == ["random"]
    assert bot["rows"]["caterpillar"]["games"] == next(r["games"] for r in rows if r["bot"] == "random")
    assert {p["opponent"] for p in bot["pairs"]["caterpillar"]} == {"greedy", "heuristic"}
    assert [h["round"] for h in bot["history"]] == [r.number for r in rounds]
    recent = [g["game_index"] for g in bot["recent_games"]]
    assert recent == sorted(recent, reverse=True) and all("random" in g["players"] for g in bot["recent_games"])
    page = client.get("/bots/random").text
    assert "history-chart" in page and f"/games/{recent[0]}" in page and "Head to head" in page
    # the pairs the play loop stopped on, as `league table --pairs` has them: all settled
    adjacent = json.loads(arena("league", "table", league, "--pairs", "--format", "json").stdout)
    mine = [p for p in adjacent if "random" in (p["bot"], p["next"])]
    assert mine and all(p["settled"] != "no" for p in mine)
    assert [(p["bot"], p["next"], p["settled"]) for p in bot["neighbours"]["caterpillar"]] == [
        (p["bot"], p["next"], p["settled"]) for p in mine]
    for served_pair, pair in zip(bot["neighbours"]["caterpillar"], mine, strict=True):
        assert served_pair["diff_lo"] == pytest.approx(pair["diff_lo"], abs=1e-5)
    assert "Neighbours in the order" in page and mine[0]["settled"] in page

    replay = client.get(f"/games/{recent[0]}")
    assert replay.status_code == 200 and "Caterpillar replay" in replay.text and "random" in replay.text
    assert '<a href="/">&larr; the league ' in replay.text  # back to the leaderboard
    live = client.get("/", headers={"HX-Request": "true"})
    version = re.search(r'id="live" data-version="(\d+)"', live.text)[1]
    assert "<html" not in live.text, "htmx gets the live part only"
    assert client.get("/", params={"since": version}, headers={"HX-Request": "true"}).status_code == 204


def test_a_league_mid_round_is_served_on_whole_rounds(tmp_path):
    league = make_league(tmp_path, "random", "greedy", pace=0.003)
    with served(league) as (_, client):
        wait_for(lambda: done_rounds(league) and cut_short(league), "a round is under way after a finished one")
        health = client.get("/api/health").json()
        assert health["playing"] is True
        standings = client.get("/api/standings").json()
        ends = {sum(r.games for r in done_rounds(league)[:k]) for k in range(len(done_rounds(league)) + 1)}
        assert standings["games"] in ends, "standings stand on whole rounds"
        rows = standings["variants"].get("caterpillar", [])
        assert sum(r["games"] for r in rows) == 2 * standings["games"], "two seats a game, every game rated once"
        for path in ("/", "/rounds", "/bots/paced", "/api/bots/paced", f"/api/rounds?after={standings['rounds']}"):
            assert client.get(path).status_code == 200, path


def test_a_bot_added_while_serving_and_playing_reaches_the_leaderboard(tmp_path):
    league = make_league(tmp_path, "random", "greedy")
    with served(league) as (_, client):
        wait_for(lambda: client.get("/api/standings").json()["rounds"] and
                 not client.get("/api/health").json()["playing"], "the league is settled and idle", 120)
        refused = subprocess.run(ARENA + ["league", "play", str(league), "--no-progress"], capture_output=True,
                                 text=True, timeout=120)
        assert refused.returncode == 2 and "another `arena league play`" in refused.stderr
        added = subprocess.run(ARENA + ["league", "add", str(league), "heuristic", "--no-sandbox", "--games", "1"],
                               capture_output=True, text=True, timeout=120)
        assert added.returncode == 0, added.stderr
        bots = lambda: {r["bot"] for r in client.get("/api/standings").json()["variants"]["caterpillar"]}
        wait_for(lambda: "heuristic" in bots(), "the new bot is rated", 120)
        assert "/bots/heuristic" in client.get("/").text


def test_sigkill_mid_round_then_serve_again_loses_and_doubles_nothing(tmp_path):
    killed = make_league(tmp_path, "random", "greedy", name="killed", pace=0.003, tie_margin=8.0)
    whole = make_league(tmp_path, "random", "greedy", name="whole", pace=0.003, tie_margin=8.0)
    with served(killed) as (process, _):
        wait_for(lambda: cut_short(killed), "a round is cut short", 120)
        process.send_signal(signal.SIGKILL)
        process.wait()
    with served(killed) as (_, client):  # finishes the round cut short, then plays on until settled
        wait_for(lambda: client.get("/api/standings").json()["rounds"] > 0 and
                 not client.get("/api/health").json()["playing"], "the league is settled and idle", 240)
        served_games = client.get("/api/health").json()["games"]
    arena("league", "play", whole, "--until", "settled", "--no-progress")
    assert served_games == sum(r.games for r in done_rounds(whole))
    indices = lambda league: sorted(i for p in (league / "results").glob("part-*.parquet")
                                    for i in range(*map(int, PART_NAME.fullmatch(p.name).groups())))
    assert indices(killed) == indices(whole) == list(range(served_games))
    assert run_digest(RunDir(killed)) == run_digest(RunDir(whole)), "the same rounds, the same games"


def test_the_round_log_is_read_a_page_at_a_time(tmp_path):
    from arena.server.pages_routes import ROUND_PAGE

    league = make_league(tmp_path, "random", "greedy")
    arena("league", "play", league, "--no-progress", "--rounds", ROUND_PAGE + 2)
    with served(league, "--no-play") as (_, client):
        rounds = ROUND_PAGE + 2
        shown = lambda page: [int(n) for n in re.findall(r"<h2 id=\"round-(\d+)\">", page)]
        newest = client.get("/rounds").text
        assert shown(newest) == list(range(rounds, 2, -1)), "the newest page, newest first"
        assert f"{rounds} finished rounds" in newest and 'href="/rounds?before=3"' in newest
        oldest = client.get("/rounds", params={"before": 3}).text
        assert shown(oldest) == [2, 1] and 'id="older"' not in oldest
        first = client.get("/api/rounds").json()["rounds"]
        assert [r["number"] for r in first] == list(range(1, ROUND_PAGE + 1))
        rest = client.get("/api/rounds", params={"after": first[-1]["number"]}).json()["rounds"]
        assert [r["number"] for r in rest] == [rounds - 1, rounds] and rest[0]["tables"]
        arena("league", "play", league, "--no-progress", "--rounds", 1)  # not in the served view yet
        assert shown(client.get("/rounds").text)[0] == rounds, "the round log stands on the view's rounds"
        assert client.get("/api/rounds", params={"after": rounds}).json()["rounds"] == []
        page = client.get("/rounds", params={"before": "x"})
        assert page.status_code == 400 and "expected a round number" in page.text and "Traceback" not in page.text


def test_bad_paths_and_parameters(settled, tmp_path):
    league, client, _ = settled
    assert "expected a round number" in one_line_error(client.get("/api/rounds?after=x"), 400)
    one_line_error(client.get("/api/rounds?after=-1"), 400)
    assert "unknown parameter 'before'" in one_line_error(client.get("/api/rounds?before=3"), 400)
    assert "no bot 'nobody'" in one_line_error(client.get("/api/bots/nobody"), 404)
    one_line_error(client.get("/api/nothing"), 404)
    for path in ("/games/abc", "/games/-1"):
        assert error_page(client.get(path), 404) == f"no such page: {path}"
    # a page's refusal is an HTML page of its status and line, the API's the same line as JSON
    assert error_page(client.get("/bots/nobody"), 404) == "no bot 'nobody' in this league"
    assert error_page(client.get("/games/999999"), 404) == "no game 999999 in the finished rounds of this league"
    assert error_page(client.get("/nothing"), 404) == "no such page: /nothing"
    port = client.base_url.port  # a second server on the port this one listens on
    taken = subprocess.run(ARENA + ["league", "serve", str(league), "--no-play", "--port", str(port)],
                           capture_output=True, text=True, timeout=60)
    assert taken.returncode == 2 and taken.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}")
    missing = subprocess.run(ARENA + ["league", "serve", str(tmp_path / "none"), "--port", "0"],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "not a league" in missing.stderr


@needs_browser
def test_chromium_sees_the_leaderboard_update_without_a_reload_and_the_chart_drawn(tmp_path, browse):
    league = make_league(tmp_path, "random", "greedy", "heuristic", pace=0.002)
    with served(league) as (_, client):
        url = f"http://127.0.0.1:{client.base_url.port}/"
        seen = browse(url)
        summary = seen.page.locator("#summary")
        first = summary.get_attribute("data-rounds")  # the rounds shown at first; then more, swapped in by htmx
        expect(summary, "the leaderboard did not update").not_to_have_attribute("data-rounds", first, timeout=120_000)
        assert int(summary.get_attribute("data-rounds")) > int(first)
        assert not seen.exceptions and not seen.console_errors, (seen.exceptions, seen.console_errors)
        assert seen.requests.count(url) == 1, "updated in place, never reloaded"
        assert any("since=" in r for r in seen.requests), "htmx polled the live part"
        wait_for(lambda: len(client.get("/api/bots/greedy").json()["history"]) >= 2, "two points of greedy's history")
        chart = browse(url + "bots/greedy")
        points = chart.page.locator("#history-chart .scatterlayer .point")
        expect(points.nth(1)).to_be_attached()
        assert points.count() >= 2 and not chart.exceptions and not chart.console_errors


def test_the_standings_are_computed_once_a_round_not_once_a_request(tmp_path, request):
    from arena.server.views import LeagueViews

    league = make_league(tmp_path, "random", "greedy")
    views = LeagueViews(league)
    request.addfinalizer(views.close)
    empty = views.refresh()
    assert views.refresh() is empty, "nothing finished: the same view, nothing computed again"
    arena("league", "play", league, "--no-progress")
    first = views.refresh()
    assert first is not empty and len(first.rounds) == 1 and views.refresh() is first
    arena("league", "add", league, "heuristic", "--no-sandbox", "--games", "1")
    assert views.refresh().bot("heuristic") is not None, "a bot added is a new view"


def test_a_restarted_server_reads_its_rating_history_and_fits_no_point_again(tmp_path, request):
    from arena.league.directory import LeagueDir
    from arena.server.views import LeagueViews

    league = make_league(tmp_path, "random", "greedy")
    arena("league", "play", league, "--no-progress", "--games", "8")
    first = LeagueViews(league)
    request.addfinalizer(first.close)
    history = first.refresh().history
    assert len(history) and LeagueDir(league).history.exists()
    first.close()
    kept = LeagueDir(league).history.stat().st_mtime_ns
    again = LeagueViews(league)
    request.addfinalizer(again.close)
    pd.testing.assert_frame_equal(again.refresh().history, history)
    assert LeagueDir(league).history.stat().st_mtime_ns == kept, "the kept points were fitted and written again"


def test_a_server_answers_with_the_standings_before_its_history_and_the_next_look_adds_it(tmp_path, monkeypatch):
    """Where the history's first points are dear (at a million games 203 s of fits), the lifespan's first look leaves
    them to the refresher's first look: the standings are served at once, the bot's page says its history is being
    computed, and the next look adds the same points as one look making both."""
    from arena.league.directory import LeagueDir
    from arena.server import views as views_module
    from arena.server.pages_routes import bot_context, templates
    from arena.server.views import make_view

    league = make_league(tmp_path, "random", "greedy")
    arena("league", "play", league, "--no-progress", "--games", "12")
    copy = shutil.copytree(league, tmp_path / "copy")  # the same games, a league of its own to the computing state
    at_once, _ = make_view(str(copy), 0, history=False)  # 12 games: cheap, so made in the first look
    assert sorted(set(at_once.history["round"])) == [r.number for r in at_once.rounds] == [1, 2, 3]
    monkeypatch.setattr(views_module, "DEFERRED_HISTORY_GAMES", 0)
    first, _ = make_view(str(league), 0, history=False)
    assert len(first.rounds) == 3 and first.rated and first.history.empty
    assert not LeagueDir(league).history.exists()
    page = templates.get_template("_bot.html").render(view=first, version=first.version, bot=first.bot("random"),
                                                      **bot_context(first, "random"))
    assert "Being computed" in page and "Not rated yet" not in page
    second, _ = make_view(str(league), first.version, len(first.rounds))
    assert second.version == first.version + 1 and second.rounds == []  # the server has the rounds
    pd.testing.assert_frame_equal(second.history, at_once.history, check_exact=False, atol=1e-5)
    assert make_view(str(league), second.version, 3)[0] is None, "caught up: nothing to do"


def test_a_look_at_a_finished_round_fits_the_ratings_once(tmp_path, monkeypatch):
    from arena.ratings.tables import RunningRatings
    from arena.server.views import make_view

    league = make_league(tmp_path, "random", "greedy")
    arena("league", "play", league, "--no-progress", "--games", "8")
    first, _ = make_view(str(league), 0)
    arena("league", "play", league, "--no-progress", "--games", "12")  # three rounds more, finished between looks
    fits = []
    tables = RunningRatings.tables
    monkeypatch.setattr(RunningRatings, "tables", lambda self: fits.append(self) or tables(self))
    second, _ = make_view(str(league), first.version, len(first.rounds))
    assert len(second.rounds) == 3 and len(fits) == 1, "a look fitted more than the standings"
    points = sorted(set(second.history["round"]) - set(first.history["round"]))
    assert points == [second.rounds[-1].number], "a look adds one point, at its latest round"
    last = second.history[second.history["round"] == second.rounds[-1].number]
    table = next(iter(second.rated.values())).table
    assert last.set_index("bot")["mu"].to_dict() == table.set_index("bot")["mu"].to_dict()

def test_a_look_that_fails_midway_leaves_no_half_read_rounds_behind(tmp_path, monkeypatch):
    import arena.server.views as views

    league = make_league(tmp_path, "random", "greedy")
    arena("league", "play", league, "--no-progress", "--games", "8")
    first, _ = views.make_view(str(league), 0)
    arena("league", "play", league, "--no-progress", "--games", "8")
    take = views._take
    monkeypatch.setattr(views, "_take", lambda making, part: (_ for _ in ()).throw(OSError("a part went away")))
    with pytest.raises(OSError):  # after the new rounds' games were added to the running sums
        views.make_view(str(league), first.version, len(first.rounds))
    monkeypatch.setattr(views, "_take", take)
    again, _ = views.make_view(str(league), first.version, len(first.rounds))
    views._leagues.clear()
    fresh, _ = views.make_view(str(league), 0)
    rows = lambda view: next(iter(view.rated.values())).table.set_index("bot")[["mu", "games"]].to_dict()
    assert rows(again) == rows(fresh), "the rounds read before the failure were counted twice"
    assert fresh.game_count == 16


def test_a_stopping_server_does_not_wait_for_a_look_under_way(tmp_path):
    from arena.server.views import LeagueViews

    league = make_league(tmp_path, "random", "greedy")
    views = LeagueViews(league)
    views.refresh()
    running = views.pool.submit(time.sleep, 60)  # a look of a large league, under way
    wait_for(running.running, "the computing process is at it")
    started = time.monotonic()
    views.close()
    assert time.monotonic() - started < 5


QUITTER = '''
import os
from arena.bots import Bot


class Quitter(Bot):
    """Random moves, except that it raises on its first move where QUITTER_RAISES is set (in the server only)."""

    name = "quitter"
    games = {"caterpillar"}

    def reset(self, game_id, seat, rules, rng):
        self.rng = rng

    def act(self, observation):
        if os.environ.get("QUITTER_RAISES"):
            raise RuntimeError("asked to give up")
        return self.rng.choice(observation.legal_moves)
'''


def test_a_bots_forfeits_show_with_their_reasons(tmp_path, monkeypatch):
    league = make_league(tmp_path, "random")
    (tmp_path / "quitter.py").write_text(QUITTER)
    arena("league", "add", league, f"{tmp_path / 'quitter.py'}:Quitter", "--no-sandbox", "--games", "1")
    monkeypatch.setenv("QUITTER_RAISES", "1")  # for the server and the play it starts, not for the checks above
    with served(league) as (_, client):
        wait_for(lambda: client.get("/api/health").json()["games"], "a round is played")
        forfeits = client.get("/api/bots/quitter").json()["forfeits"]
        assert forfeits and all("asked to give up" in f["fault"] for f in forfeits)
        assert not client.get("/api/bots/random").json()["forfeits"]
        page = client.get("/bots/quitter").text
        assert "asked to give up" in page.split("<h2>Forfeits</h2>")[1]


def test_an_unchanged_page_polled_again_is_a_304_and_a_new_round_a_new_etag(tmp_path):
    league = make_league(tmp_path, "random", "greedy")
    arena("league", "play", league, "--no-progress")
    with served(league, "--no-play") as (_, client):
        tags = {}
        for path in ("/", "/api/standings"):
            first = client.get(path)
            tags[path] = first.headers["etag"]
            again = client.get(path, headers={"If-None-Match": tags[path]})
            assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tags[path]
            assert client.get(path, headers={"If-None-Match": '"other"'}).content == first.content
        arena("league", "play", league, "--no-progress")
        wait_for(lambda: client.get("/api/health").json()["rounds"] == 2, "the second round served")
        for path in ("/", "/api/standings"):
            changed = client.get(path, headers={"If-None-Match": tags[path]})
            assert changed.status_code == 200 and changed.headers["etag"] != tags[path]


def test_a_variant_too_few_bots_can_fill_is_named_on_the_leaderboard_with_why(tmp_path):
    """Two bots in a league of two-player Caterpillar and three-player Go For It: the second is not silently absent."""
    from arena.server.views import make_view

    config = tmp_path / "mixed.toml"
    config.write_text(LEAGUE_TOML.replace('game = "caterpillar"\n',
                                          'game = "caterpillar"\n\n[[games]]\ngame = "go_for_it"\n'
                                          "rules = { players = 3 }\n"))
    league = tmp_path / "mixed"
    arena("league", "new", league, config)
    for bot in ("random", "greedy"):
        arena("league", "add", league, bot, "--no-sandbox", "--games", "1")
    view, _ = make_view(str(league), 0)
    assert view.waiting == {"go_for_it:players=3": "a table seats 3 bots, and 2 active bots play go_for_it"}
    page = view.rendered[("leaderboard.html", "/", ())][0].decode()
    assert "go_for_it:players=3: not played yet: a table seats 3 bots, and 2 active bots play go_for_it." in page


@needs_browser
def test_chromium_shows_an_unknown_bots_page_as_its_status_and_line(settled, browse):
    _, client, _ = settled
    seen = browse(f"http://127.0.0.1:{client.base_url.port}/bots/nobody")
    expect(seen.page.locator("p.error")).to_have_text("no bot 'nobody' in this league")
    expect(seen.page).to_have_title("404 Not Found")
    expect(seen.page.locator("h1")).to_have_text("404 Not Found")
    assert not seen.exceptions and f"http://127.0.0.1:{client.base_url.port}/static/style.css" in seen.requests
    assert all("404" in error for error in seen.console_errors), seen.console_errors  # only the page's own status


def test_a_catalog_held_or_moved_away_keeps_the_server_answering(tmp_path):
    """Another process holding the league's catalog (SQLite's exclusive lock) keeps the round log waiting, up to the
    catalog's busy timeout. It waits in a thread: `/api/health` and the leaderboard answer at once meanwhile, and the
    round log once the catalog is let go. The catalog moved away is an unexpected failure: a 500 of one line, as an
    HTML page for a page and as JSON under /api, its traceback in the server's log once (stderr, through logging);
    the server answers again, on the same connection, once the catalog is back."""
    league = make_league(tmp_path, "random", "greedy")
    arena("league", "play", league, "--no-progress")
    with served(league, "--no-play") as (process, client), ThreadPoolExecutor(2) as pool:
        base = str(client.base_url)
        holder = sqlite3.connect(league / "catalog.sqlite", isolation_level=None)
        try:
            holder.execute("PRAGMA locking_mode=EXCLUSIVE")
            holder.execute("BEGIN EXCLUSIVE")  # in WAL mode, with the exclusive locking mode: readers wait too
            kept = [pool.submit(httpx.get, base + path, timeout=60) for path in ("/rounds", "/api/rounds")]
            time.sleep(0.3)  # both are waiting on the catalog by now
            waits = []
            for path in ["/api/health", "/"] * 5:
                started = time.monotonic()
                assert client.get(path, timeout=5).status_code == 200  # blocked, it would wait for the catalog
                waits.append(time.monotonic() - started)
            assert not any(request.done() for request in kept), "the round log did not wait for the catalog"
            assert max(waits) < 0.5, waits
        finally:
            holder.close()
        assert [request.result().status_code for request in kept] == [200, 200]

        catalog = league / "catalog.sqlite"
        catalog.rename(tmp_path / "away.sqlite")
        try:  # pages not asked for yet in this view: they read the catalog
            page, answer = client.get("/rounds?before=2"), client.get("/api/rounds")
        finally:
            (tmp_path / "away.sqlite").rename(catalog)
        unexpected = "internal error (LeagueError); the server's log has the details"
        assert error_page(page, 500) == unexpected and one_line_error(answer, 500) == unexpected
        assert client.get("/rounds?before=2").status_code == 200 and client.get("/api/rounds").status_code == 200
    log = process.stderr.read()
    for path in ("/rounds", "/api/rounds"):
        assert f"error: GET {path} failed\nTraceback (most recent call last):" in log, log
    assert log.count("LeagueError: ") >= 2 and "Exception in ASGI application" not in log, "each traceback once"
