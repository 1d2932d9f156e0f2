"""The end of a season, safe to repeat: `arena league close` run twice keeps the time entries closed and refuses to
move it once the final has started; one `arena league final` at a time (two started together: one plays, the other
is refused at once in one line), its lock free again after a SIGKILL; a real `arena league serve` says where the final
stands (`/api/final`: not started, playing with played and total, stopped, finished) and shows it (`/final`: the
champion, a cross-table whose cells open each pairing's games, the standings; while it plays, its progress, turning
into the final by itself in Chromium); and every page has a favicon."""

import re
import signal
import subprocess
import time
from html.parser import HTMLParser

import pytest
from browser import find_chromium, png_pixels
from playwright.sync_api import expect
from test_league import ARENA, add, arena, bot_file, make_league, one_line_refusal, state
from test_server import error_page, served, wait_for

from arena.league.directory import LeagueDir
from arena.league.season import closing_time, final_state

PACE = 0.02
"""Seconds a move of the paced finalist: its 24 games of the final below take some seconds, long enough to be seen
playing, short enough for the suite."""


def test_closing_again_keeps_the_time_and_a_started_final_keeps_it_closed(tmp_path):
    league = make_league(tmp_path)
    add(league, "random")
    add(league, "greedy")
    assert arena("league", "close", league, "--at", "2099-01-01T00:00:00Z").stdout == \
        "entries close at 2099-01-01T00:00:00Z\n"
    assert arena("league", "close", league, "--at", "2099-01-01T00:00:00Z").stdout == \
        "entries close at 2099-01-01T00:00:00Z (unchanged)\n"
    first = arena("league", "close", league).stdout  # a scheduled close brought forward to now
    when = closing_time(league)
    assert first.startswith(f"entries closed at {when.strftime('%Y-%m-%dT%H:%M:%SZ')}; the final: ")
    before = state(league)
    time.sleep(1.1)  # a second later: a close that moved the time would show it
    again = arena("league", "close", league)
    assert again.stdout == f"entries closed at {when.strftime('%Y-%m-%dT%H:%M:%SZ')} already; nothing changed\n"
    assert closing_time(league) == when and state(league) == before
    # before the final, --at still moves the close: earlier, and back to open
    assert arena("league", "close", league, "--at", "2026-01-01T00:00:00Z").stdout.startswith(
        "entries closed at 2026-01-01T00:00:00Z; ")
    assert arena("league", "close", league, "--at", "2099-01-01T00:00:00Z").stdout.startswith("entries close at 2099")
    assert "entries are open" in one_line_refusal(arena("league", "final", league, check=False))
    assert final_state(league) == {"status": "not started"}
    arena("league", "close", league, "--at", "2026-01-01T00:00:00Z")
    arena("league", "final", league, "--deals", "1", "--workers", "1", "--no-progress")
    assert final_state(league)["status"] == "finished"
    before = state(league)
    refused = one_line_refusal(arena("league", "close", league, "--at", "2099-01-01T00:00:00Z", check=False))
    assert refused == (f"error: the final has started ({LeagueDir(league).final.path}): entries closed at "
                       "2026-01-01T00:00:00Z stay closed; a close moves only before the final starts")
    assert state(league) == before and closing_time(league).year == 2026
    assert arena("league", "close", league).stdout == \
        "entries closed at 2026-01-01T00:00:00Z already; nothing changed\n"
    assert arena("league", "close", league, "--at", "2026-01-01T00:00:00Z").returncode == 0  # the same time: a no-op
    assert "not an RFC 3339 time" in one_line_refusal(arena("league", "close", league, "--at", "soon", check=False))


def final_process(league, deals: int = 4) -> subprocess.Popen:
    """`arena league final LEAGUE --deals N` in a process of its own, on one local worker."""
    return subprocess.Popen(ARENA + ["league", "final", str(league), "--deals", str(deals), "--workers", "1",
                                     "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Cells(HTMLParser):
    """The rows of each `table.cross-table`: every cell's text and link, by variant."""

    def __init__(self) -> None:
        super().__init__()
        self.tables, self.table, self.cell = {}, None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and "cross-table" in (attrs.get("class") or "").split():
            self.table = self.tables.setdefault(attrs["data-variant"], [])
        elif self.table is not None and tag == "tr":
            self.table.append([])
        elif self.table is not None and tag in ("td", "th"):
            self.cell = {"tag": tag, "class": attrs.get("class", ""), "text": "", "href": None}
            self.table[-1].append(self.cell)
        elif self.cell is not None and tag == "a":
            self.cell["href"] = attrs["href"]

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag in ("td", "th"):
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data.strip()


INTERVAL = re.compile(r"\d\.\d\d \[(\d\.\d\d|–), (\d\.\d\d|–)\]")
"""A result with its interval, as a cross-table's cell shows it."""


@pytest.mark.slow
def test_a_final_played_once_at_a_time_and_served_as_it_plays(tmp_path, request):
    league = make_league(tmp_path)
    add(league, f"{bot_file(tmp_path, pace=PACE)}:Paced")
    for bot in ("random", "greedy", "heuristic"):
        add(league, bot)
    with served(league, "--no-play") as (process, client):
        url = f"http://127.0.0.1:{client.base_url.port}"
        assert client.get("/api/final").json() == {"status": "not started"}
        assert 'id="final-progress" data-status="not started"' in client.get("/final").text
        arena("league", "close", league)
        when = closing_time(league)
        assert "already; nothing changed" in arena("league", "close", league).stdout and closing_time(league) == when

        killed = final_process(league)  # a final killed mid-run leaves no lock behind
        wait_for(lambda: client.get("/api/final").json().get("played", 0) > 0, "the first final plays", 120)
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        stopped = wait_for(lambda: (answer := client.get("/api/final").json())["status"] == "stopped" and answer,
                           "the lock is free once the final is killed", 15)
        assert 0 < stopped["played"] < stopped["total"] == 48, stopped  # 6 tables, 4 deals, 2 seatings

        started = time.monotonic()
        finals = [final_process(league), final_process(league)]  # two started together: one plays
        playing = wait_for(lambda: (answer := client.get("/api/final").json())["status"] == "playing" and answer,
                           "a final plays")
        assert playing["total"] == 48 and 0 <= playing["played"] <= 48
        refused = wait_for(lambda: next((f for f in finals if f.poll() is not None), None), "one final is refused", 15)
        refused_after = time.monotonic() - started
        assert refused_after < 15 and refused.returncode == 2 and refused.stdout.read() == ""
        line = refused.stderr.read()
        assert re.fullmatch(r"error: \S+: another `arena league final` is playing this league's final( \(started "
                            r"\S+Z\))?; wait for it to finish\n", line), line  # when, once the other has said it
        winner = next(f for f in finals if f is not refused)
        assert winner.poll() is None, "the refused final was refused while the other played"
        assert "the final is being played" in one_line_refusal(arena("league", "close", league, "--at",
                                                                     "2099-01-01T00:00:00Z", check=False))
        page = client.get("/final").text
        assert 'data-status="playing"' in page and 'hx-trigger="every' in page and 'href="/api/final">JSON' in page
        moved = wait_for(lambda: (answer := client.get("/api/final").json())["status"] != "playing"
                         or answer["played"] > playing["played"] and answer, "the count moves")
        assert moved["status"] == "finished" or moved["played"] <= moved["total"] == 48
        if find_chromium():  # the page opened while the final plays turns into the final by itself
            seen = request.getfixturevalue("browse")(f"{url}/final")
            assert seen.page.locator("#final-progress").get_attribute("data-status") == "playing"
            expect(seen.page.locator(".champion").first).to_be_attached(timeout=180_000)
            assert not seen.console_errors and not seen.exceptions, seen
        out, err = winner.communicate(timeout=300)
        assert winner.returncode == 0, err
        assert "48 games in" in out

        final = wait_for(lambda: (answer := client.get("/api/final").json())["status"] == "finished" and answer,
                         "the final is served finished")
        rows = final["variants"]["caterpillar"]
        first = [row["bot"] for row in rows if row["tier"] == rows[0]["tier"]]
        assert final["champions"] == {"caterpillar": first} and rows[0]["rank"] in ("1", "1=")
        assert len(final["pairs"]["caterpillar"]) == 6 and final["games"] == 48

        before = state(league)  # after the final: a close moves nothing, and --at is refused in one line
        assert "already; nothing changed" in arena("league", "close", league).stdout
        refused = one_line_refusal(arena("league", "close", league, "--at", "2099-01-01T00:00:00Z", check=False))
        assert "the final has started" in refused and closing_time(league) == when and state(league) == before

        shown = client.get("/final").text
        champion = re.search(r'<div class="champion" data-variant="caterpillar">(.*?)</div>', shown, re.S)[1]
        assert all(f">{bot}</a>" in champion for bot in first) and ("tied" in champion) == (len(first) > 1)
        assert shown.index('class="champion"') < shown.index('class="cross-table"') < shown.index("<h3>Standings")
        assert 'href="/api/final">JSON</a>' in shown and 'rel="icon" href="/favicon.ico"' in shown
        assert "/final/games/" not in shown and "hx-trigger" not in shown, "replays behind the cells; no polling"
        parsed = Cells()
        parsed.feed(shown)
        header, *grid = parsed.tables["caterpillar"]
        order = [row["bot"] for row in rows]
        assert [cell["text"] for cell in header[2:]] == order and len(grid) == 4  # 4 x 4, in rank order
        games = set()
        for i, row in enumerate(grid):
            assert row[1]["text"] == order[i] and len(row) == 2 + 4
            for j, cell in enumerate(row[2:]):
                if i == j:
                    assert cell["class"] == "self" and cell["href"] is None
                    continue
                assert INTERVAL.fullmatch(cell["text"]), cell
                listed = client.get(cell["href"].replace("&amp;", "&"))
                assert listed.status_code == 200 and f"<h1>{order[i]} v {order[j]}</h1>" in listed.text
                indices = {int(k) for k in re.findall(r'href="/final/games/(\d+)"', listed.text)}
                assert len(indices) == 8  # a pairing's table: 4 deals in both seatings
                games |= indices
        assert games == set(range(48)), "the cells open every game of the final"
        assert client.get("/final/games/0").status_code == 200
        assert error_page(client.get("/final/pairing?variant=caterpillar&bot=random"), 400) == \
            "/final/pairing takes `variant`, `bot` and `opponent`: opponent is missing"
        assert error_page(client.get("/final/pairing?variant=snap&bot=random&opponent=greedy"), 404) == \
            "no variant 'snap' in the final (it has caterpillar)"
        assert error_page(client.get("/final?page=2"), 400).startswith("unknown parameter 'page'")

        icon = client.get("/favicon.ico")
        assert icon.status_code == 200 and icon.headers["content-type"] == "image/x-icon"
        assert png_pixels(icon.content[22:]).shape == (32, 32, 4)
        for path in ("/", "/rounds", "/bots/random", "/final"):
            assert 'rel="icon" href="/favicon.ico"' in client.get(path).text
        assert 'rel="icon" href="/favicon.ico"' in client.get("/no/such/page").text
