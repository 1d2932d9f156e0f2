"""A bot that stalls (sleeps, so that only the wall-clock backstop ends its call) costs a run a few backstops, not one
per game: it is suspended after `[run] suspend_after` stalls, its remaining games recorded unplayed as its
`timeout` forfeits; a check (`arena submit`, `arena league add`, the upload checker) refuses it at its first stall,
naming the call; a league marks it `suspended` until a new version or `arena league reinstate`.

The sleepers are tests/zoo/stalls.py's, played by real workers (one local worker, or Ray), in process, in a process
of their own and in the sandbox. Limits are short (a move's backstop 1 s) so that each stall is cheap."""

import json
import sqlite3
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.config import parse_config
from arena.isolation.clock import SETUP_WALL_SECONDS, setup_wall
from arena.results import RunDir, load_results, run_digest
from arena.tournament.runner import play_missing

ROOT = Path(__file__).resolve().parent.parent
STALLS = ROOT / "tests" / "zoo" / "stalls.py"
runner = CliRunner()
LIMIT, BACKSTOP = 0.1, 10
"""The runs' move time limit and wall-clock backstop: a stalled move costs 1 s."""


def config_text(isolation: str = "none", where: str = "act", deals: int = 4, workers: int = 1, batch_size: int = 2000,
                suspend_after: int | None = None, name: str = "stalls", setup: float = 0.5) -> str:
    """Caterpillar among random, greedy and a sleeper (on its 3rd move of every game, or in every reset)."""
    lines = [f'name = "{name}"', "seed = 20261207", "[[games]]", 'game = "caterpillar"', f"deals = {deals}",
             "[[bots]]", 'name = "random"', "[[bots]]", 'name = "greedy"',
             "[[bots]]", 'name = "sleeper"', f'path = "{STALLS}:StallsBot"', f'params = {{ where = "{where}" }}',
             f'isolation = "{isolation}"',
             "[run]", f"workers = {workers}", f"batch_size = {batch_size}", f"move_time_limit = {LIMIT}",
             f"wall_backstop = {BACKSTOP}", f"setup_time_limit = {setup}"]
    if suspend_after is not None:
        lines.append(f"suspend_after = {suspend_after}")
    return "\n".join(lines) + "\n"


def play(directory: Path, text: str, workers: int = 1) -> tuple[RunDir, list[dict]]:
    config = parse_config(text, base=ROOT)
    run = RunDir(directory / config.name)
    report = play_missing(config, run, workers=workers)
    rows = load_results(run).to_pylist()
    assert [row["game_index"] for row in rows] == list(range(report.total)), "every game in the results"
    return run, rows


def sleeper_games(rows: list[dict]) -> list[tuple[str, int]]:
    """The fault of each game of the sleeper, in game-index order, after checking it is a timeout charged to it."""
    faults = []
    for row in rows:
        if "sleeper" in row["players"]:
            seat = row["players"].index("sleeper")
            assert (row["termination"], row["fault_seat"], row["ranks"][seat]) == ("timeout", seat, 1), row
            faults.append((row["fault"], row["decisions"]))
    return faults


STALL = f"no move within {LIMIT * BACKSTOP:g}s of wall time"


@pytest.mark.parametrize("isolation", ["none", "process", "sandbox"])
def test_a_sleeper_is_suspended_after_three_stalls_and_every_game_is_in_the_results(isolation, tmp_path):
    """One worker: its first three games stall (at its 3rd move: 4 or 5 decisions in), the others are recorded
    unplayed; the run takes three backstops, not sixteen; the other games are played."""
    started = time.perf_counter()
    run, rows = play(tmp_path, config_text(isolation))
    took = time.perf_counter() - started
    faults = sleeper_games(rows)
    assert len(faults) == 16 and len(rows) == 24
    assert [f for f, _ in faults[:3]] == [STALL] * 3 and all(4 <= d <= 5 for _, d in faults[:3])
    assert faults[3:] == [("suspended after 3 stalls", 0)] * 13
    assert all(r["termination"] == "normal" for r in rows if "sleeper" not in r["players"])
    assert took < 3 * LIMIT * BACKSTOP + 25, took  # three backstops and start-ups, never sixteen


def test_a_suspension_with_one_worker_does_not_depend_on_the_batches_and_a_resume(tmp_path):
    """With one worker the stalls are counted in game-index order across batches (in the worker) and from the saved
    results (after a resume): the same games are suspended, the digest is the same."""
    _, rows = play(tmp_path / "whole", config_text())
    run, cut = play(tmp_path / "batches", config_text(batch_size=1))
    assert [(r["fault"], r["decisions"]) for r in rows] == [(r["fault"], r["decisions"]) for r in cut]
    digest = run_digest(run)
    for part in sorted(run.results.glob("part-*.parquet"))[10:]:  # a run cut short after ten games
        part.unlink()
    config = parse_config(config_text(batch_size=1), base=ROOT)
    play_missing(config, run, workers=1, resume=True)
    assert run_digest(run) == digest


@pytest.mark.ray
def test_with_two_workers_each_suspends_the_sleeper_after_the_stalls_it_saw(tmp_path, local_ray):
    """Ray workers play batches at once: each suspends the sleeper after the stalls the run had saved when its batch
    was sent, or it saw itself; every game of the sleeper is still its timeout, and the run pays a few backstops."""
    started = time.perf_counter()
    run, rows = play(tmp_path, config_text("sandbox", deals=6, workers=2, batch_size=6), workers=local_ray)
    took = time.perf_counter() - started
    faults = sleeper_games(rows)
    stalls = sum(f == STALL for f, _ in faults)
    assert len(faults) == 24 and 3 <= stalls <= 6, faults  # at most three a worker
    assert all(f in (STALL, "suspended after 3 stalls") for f, _ in faults)
    assert took < stalls * LIMIT * BACKSTOP + 40, took


@pytest.mark.parametrize("isolation", ["none", "process"])
def test_a_bot_that_sleeps_in_reset_is_suspended_too(isolation, tmp_path):
    """A reset's backstop: 0.2 s of CPU time, 2 s of wall time (10 times); three stalls, then forfeits unplayed."""
    started = time.perf_counter()
    _, rows = play(tmp_path, config_text(isolation, where="reset", deals=2, setup=0.2))
    faults = sleeper_games(rows)
    assert faults == [("no setup within 2s of wall time", 0)] * 3 + [("suspended after 3 stalls", 0)] * 5
    assert time.perf_counter() - started < 3 * 2 + 25


def test_suspend_after_zero_never_suspends_and_one_after_the_first(tmp_path):
    _, rows = play(tmp_path / "never", config_text(deals=1, suspend_after=0))
    assert [f for f, _ in sleeper_games(rows)] == [STALL] * 4
    _, rows = play(tmp_path / "first", config_text(deals=1, suspend_after=1))
    assert [f for f, _ in sleeper_games(rows)] == [STALL] + ["suspended after 1 stall"] * 3


def test_a_bad_suspend_after_is_one_line_and_exit_2(tmp_path):
    config = tmp_path / "bad.toml"
    config.write_text(config_text(suspend_after=0).replace("suspend_after = 0", "suspend_after = -1"))
    result = runner.invoke(app, ["tournament", str(config), "--out", str(tmp_path), "--no-progress"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"error: {config}: run.suspend_after: must be a non-negative "
                                                  "integer, not -1"]


def test_the_output_manifest_summary_and_report_say_who_was_suspended_from_which_game(tmp_path):
    config = tmp_path / "stalls.toml"
    config.write_text(config_text(deals=2))
    result = runner.invoke(app, ["tournament", str(config), "--out", str(tmp_path), "--no-progress"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "stalls" / "manifest.json").read_text())
    facts = manifest["suspended"]["sleeper"]
    assert facts["fault"] == "suspended after 3 stalls" and facts["stalls"] == 3 and facts["games"] == 5
    line = next(line for line in result.output.splitlines() if line.startswith("suspended: "))
    assert line == (f"suspended: sleeper suspended after 3 stalls (calls the wall-clock backstop ended: 3 in the run, "
                    f"the last before its suspension in game {facts['last_stall']}): 5 games from game "
                    f"{facts['from_game']} on recorded unplayed, each a timeout charged to it")
    import pandas as pd

    summary = pd.read_csv(tmp_path / "stalls" / "summary.csv")
    row = summary[summary["kind"] == "suspended"].iloc[0]
    assert (row["bot"], row["games"], row["stalls"], row["last_stall"], row["from_game"]) == (
        "sleeper", 5, 3, facts["last_stall"], facts["from_game"])
    report = (tmp_path / "stalls" / "report.html").read_text()
    assert "<th>suspended</th>" in report and "sleeper suspended after 3 stalls" in report
    rows = load_results(RunDir(tmp_path / "stalls")).to_pylist()
    replayed = {int(page.stem.rpartition("-")[2]) for page in (tmp_path / "stalls" / "replays").glob("*.html")}
    assert replayed and not any("sleeper" in rows[index]["players"] for index in replayed), \
        "the report's examples are no games timing decided (a replay of a stall waits for the backstop again)"
    started = time.perf_counter()
    shown = runner.invoke(app, ["replay", str(tmp_path / "stalls"), str(facts["from_game"]), "--json"])
    data = json.loads(shown.output)
    assert (data["termination"], data["fault"], [deal["moves"] for deal in data["deals"]]) == (
        "timeout", "suspended after 3 stalls", [[]]), "a game recorded unplayed replays unplayed"
    assert time.perf_counter() - started < 5


def test_a_setup_calls_wall_backstop_is_bounded_in_seconds():
    """Ten times the limit, at most 20 s (or twice a limit over 10 s): a sleeping reset costs 20 s at the defaults."""
    assert SETUP_WALL_SECONDS == 20
    assert (setup_wall(10, 10), setup_wall(1, 10), setup_wall(0.5, 4), setup_wall(30, 10)) == (20, 10, 2, 60)
    assert setup_wall(None) is None


SLEEPS_IN_RESET = '''
import time

from arena.bots import Bot


class SleepsInReset(Bot):
    name = "sleeps-in-reset"

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        try:  # counted outside the sandbox (--no-sandbox); in it, the bot's folder is read-only
            with open(__file__ + ".resets", "a") as resets:
                resets.write("reset\\n")
        except OSError:
            pass
        time.sleep(3600)

    def act(self, observation):
        return observation.legal_moves[0]
'''


def test_submit_stops_at_the_first_stall_in_one_line(tmp_path):
    """A bot that plays every game and sleeps in every reset: one reset, one line naming it, no second stall."""
    bot = tmp_path / "bot.py"
    bot.write_text(SLEEPS_IN_RESET)
    started = time.perf_counter()
    result = runner.invoke(app, ["submit", f"{bot}:SleepsInReset", "--no-sandbox", "--setup-time-limit", "0.3"])
    took = time.perf_counter() - started
    assert result.exit_code == 2
    assert result.output.splitlines()[1:] == ["error: 'sleeps-in-reset' was not registered: stalled in reset: no "
                                              "setup within 3s of wall time (caterpillar seed 1000 seat 0)"]
    assert (tmp_path / "bot.py.resets").read_text() == "reset\n"
    assert took < 3 + 15, took


LEAGUE = """
name = "stalls"
seed = 5
[[games]]
game = "caterpillar"
[run]
workers = 1
batch_size = 8
move_time_limit = {limit}
wall_backstop = {backstop}
[league]
deals = 2
isolation = "{isolation}"
"""


def arena(*args) -> str:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def catalog_rows(league: Path) -> list:
    db = sqlite3.connect(league / "catalog.sqlite")
    try:
        return db.execute("SELECT * FROM bots ORDER BY rowid").fetchall()
    finally:
        db.close()


def test_league_add_refuses_a_bot_that_sleeps_in_reset_within_the_setup_backstop(tmp_path):
    """At the defaults of `arena league add` (a setup limit of 10 s), in the sandbox: one stall of 20 s, not 100, in
    one line, the league unchanged."""
    (tmp_path / "league.toml").write_text(LEAGUE.format(limit=0.3, backstop=10, isolation="process"))
    league = tmp_path / "league"
    arena("league", "new", league, tmp_path / "league.toml")
    arena("league", "add", league, "random")
    before = catalog_rows(league)
    started = time.perf_counter()
    bot = tmp_path / "bot.py"
    bot.write_text(SLEEPS_IN_RESET)
    result = runner.invoke(app, ["league", "add", str(league), f"{bot}:SleepsInReset"])
    took = time.perf_counter() - started
    assert result.exit_code == 2
    assert result.output.splitlines() == ["error: 'sleeps-in-reset' failed its checks, the league is unchanged: "
                                          "stalled in reset: no setup within 20s of wall time (caterpillar seed 1000 "
                                          "seat 0)"]
    assert catalog_rows(league) == before and not (league / "bots" / "bot.py").exists()
    assert took < 20 + 25, took


LATE = '''
import os
import time

from arena.bots import Bot


class Late(Bot):
    """Random moves until the trigger file exists (after its check), then it sleeps on its 3rd move of each game."""

    name = "late"

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        self.moves = 0

    def act(self, observation):
        self.moves += 1
        if self.moves == 3 and os.path.exists({trigger!r}):
            time.sleep(3600)
        return self.rng.choice(observation.legal_moves)
'''


def league_rows(league: Path) -> list[dict]:
    """The league's finished games."""
    from arena.league.catalog import Catalog
    from arena.league.play import league_parts

    catalog = Catalog(league)
    try:
        return [row for part in league_parts(league, [r for r in catalog.rounds() if r.status == "done"])
                for row in part.to_pylist()]
    finally:
        catalog.close()


def league_games(league: Path) -> dict[str, int]:
    """Games played by each bot label in the league."""
    from arena.league.catalog import Catalog
    from arena.league.play import league_parts

    catalog = Catalog(league)
    try:
        counts: dict[str, int] = {}
        for part in league_parts(league, [r for r in catalog.rounds() if r.status == "done"], ["players"]):
            for players in part.column("players").to_pylist():
                for label in players:
                    counts[label] = counts.get(label, 0) + 1
        return counts
    finally:
        catalog.close()


def test_a_league_bot_that_stalls_in_play_is_suspended_until_reinstated(tmp_path):
    """It passes its check, then stalls: within its first round it is suspended (three stalls, then its games there
    unplayed), the table, its page and the API say so and why, the matchmaker leaves it out; reinstated, it plays."""
    from test_server import served

    trigger = tmp_path / "stall-now"
    (tmp_path / "league.toml").write_text(LEAGUE.format(limit=LIMIT, backstop=BACKSTOP, isolation="process"))
    league = tmp_path / "league"
    arena("league", "new", league, tmp_path / "league.toml")
    for bot in ("random", "greedy"):
        arena("league", "add", league, bot)
    (tmp_path / "late.py").write_text(LATE.format(trigger=str(trigger)))
    arena("league", "add", league, f"{tmp_path / 'late.py'}:Late", "--no-sandbox", "--games", "1")
    trigger.touch()
    started = time.perf_counter()
    played = arena("league", "play", league, "--games", "60", "--no-progress")
    assert time.perf_counter() - started < 3 * LIMIT * BACKSTOP + 30
    assert f"suspended 'late': it stalled (the wall-clock backstop ended its calls); `arena league reinstate " \
           f"{league} late` or a new version makes it play again" in played
    reason = "suspended after 3 stalls in play, the last in round 1: no move within 1s of wall time"
    assert f"late: {reason}" in arena("league", "table", league).splitlines()
    rows = json.loads(arena("league", "table", league, "--format", "json"))
    assert {row["bot"]: row["status"] for row in rows} == {"random": "active", "greedy": "active", "late": "suspended"}
    late_games = league_games(league)["late"]
    arena("league", "play", league, "--games", "20", "--no-progress")
    assert league_games(league)["late"] == late_games, "the matchmaker chooses it no more"
    unplayed = next(r["game_index"] for r in league_rows(league) if r["fault"] == "suspended after 3 stalls")
    with served(league, "--no-play") as (_, client):
        page = client.get(f"/games/{unplayed}")
        assert page.status_code == 200 and "suspended after 3 stalls" in page.text, "replayed unplayed, as recorded"
        version = client.get("/api/bots/late").json()["versions"][0]
        assert (version["status"], version["reason"]) == ("suspended", reason)
        assert f"suspended <span class=\"reason\">({reason})</span>" in client.get("/bots/late").text
    trigger.unlink()
    assert arena("league", "reinstate", league, "late@1").strip() == "reinstated 'late' (version 1 only)"
    arena("league", "play", league, "--games", "20", "--no-progress")
    assert league_games(league)["late"] > late_games


def test_the_upload_check_refuses_at_the_first_stall_in_one_line(tmp_path):
    """The server's checker (its code, without the server): an upload that sleeps on its 3rd move is refused at its
    first stall, within one move's backstop (10 s at the checks' 1 s limit)."""
    from arena.league import load_settings
    from arena.league.uploads import find_upload, store_upload
    from arena.server.checker import check_pending

    (tmp_path / "league.toml").write_text(LEAGUE.format(limit=LIMIT, backstop=BACKSTOP, isolation="sandbox"))
    league = tmp_path / "league"
    arena("league", "new", league, tmp_path / "league.toml")
    arena("league", "entrant", league, "alice")
    upload = store_upload(league, "alice", "stalls.py", STALLS.read_bytes(), "StallsBot", None,
                          load_settings(league).uploads)
    started = time.perf_counter()
    assert check_pending(league) == 1
    assert time.perf_counter() - started < 10 + 20
    found = find_upload(league, upload)
    assert (found.status, found.label) == ("refused", None)
    assert found.reason == ("failed its checks: stalled in its move 3: no move within 10s of wall time (caterpillar "
                            "seed 1000 seat 0)")


def test_reproduce_says_when_only_games_that_timing_decided_differ(tmp_path):
    """A run whose workers placed the suspension elsewhere (here: its 4th game of the sleeper a stall, not an unplayed
    forfeit, as a second worker that had seen no stall would have played it): `arena reproduce --workers 1` finds
    every other game identical and says the difference is timing's, exit 1."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    config = tmp_path / "stalls.toml"
    config.write_text(config_text(deals=1))
    assert runner.invoke(app, ["tournament", str(config), "--out", str(tmp_path), "--no-progress"]).exit_code == 0
    run = RunDir(tmp_path / "stalls")
    (part,) = run.results.glob("part-*.parquet")
    table = pq.read_table(part)
    rows = table.to_pylist()
    last = max(i for i, r in enumerate(rows) if r["fault"] == "suspended after 3 stalls")
    rows[last].update(fault=STALL, decisions=4)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), part)
    manifest = json.loads(run.manifest.read_text())
    run.manifest.write_text(json.dumps({**manifest, "digest": run_digest(run)}))
    result = runner.invoke(app, ["reproduce", str(run.path), "--workers", "1"])
    assert result.exit_code == 1
    assert "MISMATCH: the re-run differs in 1 game, each decided by timing: a bot's stall or its suspension after " \
           "stalls" in result.output
