"""A season from first upload to final: entries close (`arena league close`, `[season] closes`), the final is an
ordinary run folder `DIR/final/` that `arena ratings`, `report` and `reproduce` (from any folder) read, a final killed
mid-run resumes to the digest of one played through, and a real `arena league serve` (real HTTP, Chromium) takes an
entrant's new version and retirement from the bot's page, refuses uploads once entries are closed, shows the final
without a restart and streams the games as Parquet."""

import io
import re
import signal
import subprocess
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from browser import Watched, find_chromium
from playwright.sync_api import Page, expect
from test_league import ARENA, add, arena, bot_file, make_league, one_line_refusal, state
from test_league import LEAGUE_TOML as CLUB_TOML
from test_sandbox import needs_sandbox
from test_server import one_line_error, served, wait_for
from test_uploads import COUNTING, ask_as_owner, post, token
from test_uploads import make_league as make_upload_league

from arena.league.catalog import Catalog
from arena.league.directory import LeagueDir
from arena.league.frozen import add_bot
from arena.league.season import closing_time
from arena.results import PART_NAME, RunDir

TWO_VARIANTS = CLUB_TOML.replace('[run]', '[[games]]\ngame = "go_for_it"\nrules = { players = 4 }\n\n[run]')
"""The club league and a four-player variant that three bots cannot fill."""


def games_of(league) -> int:
    """The games of the league's finished rounds."""
    catalog = Catalog(league)
    try:
        return sum(r.games for r in catalog.rounds() if r.status == "done")
    finally:
        catalog.close()


def test_entries_close_and_the_final_is_a_run_anyone_reads_and_reproduces(tmp_path, monkeypatch):
    league = make_league(tmp_path, toml=TWO_VARIANTS + '\n[season]\ncloses = 2099-01-01T00:00:00Z\n')
    add(league, f"{bot_file(tmp_path)}:Paced")  # a file bot: the final plays its frozen copy
    add(league, "random")
    add(league, "greedy")
    arena("league", "play", league, "--no-progress")
    assert "entries are open (they close at 2099-01-01T00:00:00Z)" in one_line_refusal(
        arena("league", "final", league, check=False))
    assert "has no offset" in one_line_refusal(arena("league", "close", league, "--at", "2026-01-01T00:00:00",
                                                     check=False))
    assert "not an RFC 3339 time" in one_line_refusal(arena("league", "close", league, "--at", "soon", check=False))
    assert arena("league", "close", league).stdout.startswith("entries closed at ")  # overrides [season] closes
    before = state(league)
    assert one_line_refusal(add(league, "heuristic", check=False)).startswith("error: entries closed at ")
    assert state(league) == before, "a refused add changes nothing"
    on_time = closing_time(league).timestamp() - 1  # an upload stored before entries closed, checked after
    assert add_bot(league, "heuristic", sandboxed=False, games_per_rules=1, entered=on_time).new

    final = arena("league", "final", league, "--deals", "2", "--workers", "1", "--no-progress").stdout
    assert "note: go_for_it:players=4 is not in the final: 3 of the finalists play it, a table seats 4" in final
    run = LeagueDir(league).final
    assert "24 games" in final and run.manifest.is_file()  # 6 tables, 2 deals, 2 rotations
    assert "digest" in final and "0 played now" in arena("league", "final", league, "--deals", "2", "--workers",
                                                          "1", "--no-progress").stdout
    assert "holds a final of other deals" in one_line_refusal(arena("league", "final", league, "--deals", "3",
                                                                    check=False))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the final names the league's frozen copies, found from any folder
    assert "reproduced: identical results" in arena("reproduce", run.path).stdout
    rows = arena("ratings", run.path, "--format", "csv").stdout.splitlines()
    assert {row.split(",")[3] for row in rows[1:]} == {"paced", "random", "greedy", "heuristic"}
    assert arena("report", run.path).stdout.startswith("wrote ")
    arena("league", "report", league)  # the static leaderboard says so too, and links to the final's report
    index = LeagueDir(league).report.read_text()
    assert '<p id="season">Entries closed at ' in index and 'href="../final/report.html"' in index

    out = tmp_path / "games.parquet"
    assert arena("league", "export", league, out).stdout == f"wrote {games_of(league)} games to {out}\n"
    assert pq.read_table(out).column("game_index").to_pylist() == list(range(games_of(league)))
    assert "no variant 'snap'" in one_line_refusal(arena("league", "export", league, out, "--game", "snap",
                                                         check=False))


@pytest.mark.ray
@pytest.mark.slow
def test_a_final_killed_mid_run_and_resumed_on_ray_gives_the_digest_of_one_played_through(tmp_path, local_ray):
    killed = make_league(tmp_path, "killed")
    for bot in (f"{bot_file(tmp_path, pace=0.01)}:Paced", "random", "greedy"):
        add(killed, bot)
    arena("league", "close", killed)
    results = LeagueDir(killed).final.results
    process = subprocess.Popen(ARENA + ["league", "final", str(killed), "--deals", "4", "--workers", "1",
                                        "--no-progress"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while not _saved(results):
        assert process.poll() is None and time.time() < deadline, "the final ended before it could be killed"
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    saved = _saved(results)
    assert 0 < saved < 24 and not LeagueDir(killed).final.manifest.exists()
    resumed = arena("league", "final", killed, "--deals", "4", "--workers", str(local_ray), "--no-progress").stdout
    assert f"{24 - saved} played now, ray-local" in resumed
    # `reproduce` plays the whole final again in a folder of its own, on one worker, and compares the digests
    assert "reproduced: identical results" in arena("reproduce", LeagueDir(killed).final.path).stdout


def test_the_games_stream_a_row_group_at_a_time_not_the_whole_league():
    from arena.league.games import ROW_GROUP, parquet_stream
    from arena.league.play import LEAGUE_SCHEMA

    part = pa.Table.from_pylist([{"game_index": 0, "players": ["a", "b"], "scores": [1, 2], "ranks": [1, 0],
                                  "round": 1}] * 10_000, schema=LEAGUE_SCHEMA)
    read = []

    def parts():  # 200,000 games in parts of 10,000, as a league's compacted parts are read
        for k in range(20):
            read.append(k)
            yield part

    chunks = parquet_stream(parts())
    first = next(chunks)
    assert len(read) == -(-ROW_GROUP // part.num_rows), "the first bytes leave once a row group is read"
    whole = pq.ParquetFile(io.BytesIO(first + b"".join(chunks)))
    assert whole.metadata.num_rows == 200_000 and whole.num_row_groups == -(-200_000 // ROW_GROUP)


def _saved(results) -> int:
    """The games saved in a run's results folder so far."""
    names = [PART_NAME.fullmatch(p.name) for p in results.glob("part-*")] if results.is_dir() else []
    return sum(int(m[2]) - int(m[1]) for m in names if m)


def _parquet(response) -> list[int]:
    assert response.status_code == 200 and response.headers["content-type"] == "application/vnd.apache.parquet"
    return pq.read_table(io.BytesIO(response.content)).column("game_index").to_pylist()


def as_owner(browse, address: str, token: str) -> Watched:
    """A bot's page once `token` is typed into its owner form and the page knows whose bot it is."""
    seen = browse(address)
    ask_as_owner(seen.page, token)
    seen.page.wait_for_function("!!document.getElementById('owner-note').textContent"
                                " || !document.getElementById('owner-actions').hidden")
    return seen


def upload(page: Page, code: str) -> None:
    """Picks a file of `code` and sends the bot page's upload form."""
    page.locator("#upload-file").set_input_files({"name": "counting.py", "mimeType": "text/x-python",
                                                  "buffer": code.encode()})
    page.locator("#upload-form").evaluate("form => form.requestSubmit()")


def retire_every_version(page: Page) -> None:
    """Sends the form that retires every version of the bot twice: the second click retires. It is sent even when
    the page hides it from one who is not the owner."""
    for _ in range(2):
        page.locator("#retire-all-form").evaluate("form => form.requestSubmit()")


def said(page: Page, timeout: float = 60_000) -> list[str]:
    """The owner's verdict and note, once the page has answered."""
    verdict = page.locator("#owner-verdict")
    expect(verdict).to_have_text(re.compile("^(Accepted|Refused|Retired)"), timeout=timeout)
    return [verdict.text_content(), page.locator("#owner-note").text_content()]


@needs_sandbox
@pytest.mark.slow
def test_a_season_served_from_first_upload_to_the_final(tmp_path, monkeypatch, request):
    league = make_upload_league(tmp_path, "random", "greedy")
    arena("league", "play", league, "--no-progress")
    alice, bob = token(league, "alice"), token(league, "bob")
    (tmp_path / "counting.py").write_text(COUNTING)
    browse = request.getfixturevalue("browse") if find_chromium() else None
    with served(league, "--no-play") as (process, client):
        url = f"http://127.0.0.1:{client.base_url.port}"
        uploaded = arena("league", "upload", url, tmp_path / "counting.py:CountingBot", "--token", alice, check=False)
        assert uploaded.stdout == "accepted as 'counting'\n", uploaded.stderr
        assert "Entries" not in client.get("/").text
        wait_for(lambda: client.get("/api/bots/counting").status_code == 200, "the view has the bot's page")
        page = f"{url}/bots/counting"
        if browse:  # the owner uploads a new version from the bot's page, another entrant cannot retire it
            second = as_owner(browse, page, alice)
            upload(second.page, COUNTING + "# two")
            assert said(second.page, timeout=180_000) == ["Accepted as counting@2.", ""]  # after the sandboxed check
            assert not second.console_errors and all("token" not in r and alice not in r for r in second.requests)
            theirs = as_owner(browse, page, bob).page
            retire_every_version(theirs)
            assert said(theirs) == ["Refused: the bot 'counting' is not yours", "That token does not own this bot."]
        else:
            assert post(client, alice, "counting.py", (COUNTING + "# two").encode(), name="counting").status_code == 202
        wait_for(lambda: client.get("/api/bots/counting@2").status_code == 200, "the view has counting@2")

        closed = arena("league", "close", league).stdout
        assert closed.startswith("entries closed at ")
        when = closed.split()[3].rstrip(";")
        refused = post(client, bob, "counting.py", COUNTING.encode(), name="late")
        assert one_line_error(refused, 403) == f"entries closed at {when}"
        assert one_line_refusal(add(league, "heuristic", check=False)) == f"error: entries closed at {when}"
        plain = lambda text: " ".join(text.replace("<time>", "").replace("</time>", "").split())
        wait_for(lambda: f"Entries closed at {when}." in plain(client.get("/").text), "the page says so")
        if browse:
            late = as_owner(browse, page, alice).page
            upload(late, COUNTING)
            assert said(late) == [f"Refused: entries closed at {when}", ""]
            assert f"Entries closed at {when}." in plain(late.locator("#season").text_content())

        assert client.get("/api/final").json() == {"status": "not started"}
        arena("league", "final", league, "--deals", "2", "--no-progress")
        final = wait_for(lambda: (answer := client.get("/api/final").json())["status"] == "finished" and answer,
                         "the final is served without a restart")  # "playing" its last games until it is rated
        assert final["digest"] in RunDir(league / "final").manifest.read_text() and final["games"] == 12
        rows = final["variants"]["caterpillar"]  # the latest version of the uploaded bot, from its frozen copy
        assert {row["bot"] for row in rows} == {"random", "greedy", "counting@2"}
        assert all(row["mu_lo"] < row["mu"] < row["mu_hi"] for row in rows) and len(final["pairs"]["caterpillar"]) == 3
        shown = client.get("/final").text  # each pairing's games behind its cell of the cross-table
        assert 'class="cross-table"' in shown and "/final/games/" not in shown
        pairing = client.get("/final/pairing", params={"variant": "caterpillar", "bot": "random", "opponent": "greedy"})
        assert all(f'href="/final/games/{i}"' in pairing.text for i in range(4))
        assert 'href="/final"' in client.get("/").text
        assert "Caterpillar replay: random v greedy" in client.get("/final/games/0").text
        if browse:  # play may go on after the final: the owner retires the bot from its page
            retired = as_owner(browse, page, alice).page
            retire_every_version(retired)
            assert said(retired) == ["Retired every version of 'counting': counting, counting@2.", ""]

        out = tmp_path / "games.parquet"
        arena("league", "export", league, out)
        exported = pq.read_table(out).column("game_index").to_pylist()
        assert exported == list(range(games_of(league))) == _parquet(client.get("/api/games.parquet"))
        assert _parquet(client.get("/api/games.parquet?variant=caterpillar&after=1")) == exported[2:]
        assert one_line_error(client.get("/api/games.parquet?variant=snap"), 404).startswith("no variant 'snap'")
        assert one_line_error(client.get("/api/games.parquet?after=x"), 400).startswith("after='x'")
    assert all(secret not in process.stderr.read() for secret in (alice, bob))
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert "reproduced: identical results" in arena("reproduce", league / "final").stdout
