"""What docs/league.md promises of a served league, each shown: a hostile bot on a game's replay page costs that
page only; a bot's page lists its 20 latest games; an entrant's hourly upload window expires; `arena league
upload` takes its token from ARENA_LEAGUE_TOKEN."""

from __future__ import annotations

import re
import sqlite3

import pyarrow.parquet as pq
import pytest
from test_sandbox import needs_sandbox
from test_server import arena, make_league, served
from test_uploads import COUNTING, token
from test_uploads import make_league as make_upload_league

from arena.league.settings import UploadLimits
from arena.league.uploads import HOUR, OverLimit, store_upload
from arena.server.views import RECENT_GAMES

HOSTILE = '''
import os
import signal

from arena.bots import Bot

MARKER = {marker!r}

class Hostile(Bot):
    """Random moves while its league plays; once the file MARKER is there (made before the league is served), it
    kills the process that runs it, at its first move: in the replays, the replay's own process."""

    name = "hostile"
    games = {"caterpillar"}

    def reset(self, game_id, seat, rules, rng):
        self.rng = rng

    def act(self, observation):
        if os.path.exists(MARKER):
            os.kill(os.getppid(), signal.SIGKILL)
        return self.rng.choice(observation.legal_moves)
'''


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A league of random, greedy and hostile with some rounds played (bots in the playing process: isolation
    "none"), more than RECENT_GAMES games each."""
    folder = tmp_path_factory.mktemp("promises")
    league = make_league(folder, "random", "greedy")
    (folder / "hostile.py").write_text(HOSTILE.replace("{marker!r}", repr(str(folder / "replaying"))))
    arena("league", "add", league, f"{folder / 'hostile.py'}:Hostile", "--no-sandbox", "--games", "1")
    arena("league", "play", league, "--games", "120", "--no-progress")
    (folder / "replaying").touch()
    return league


def test_a_hostile_bot_on_a_replay_page_costs_that_page_only(played):
    with served(played, "--no-play") as (process, client):
        hostile = client.get("/api/bots/hostile").json()["recent_games"]
        every = pq.read_table(played / "results", columns=["game_index", "players"]).to_pylist()
        calm = [g for g in every if "hostile" not in g["players"]]
        killed = client.get(f"/games/{hostile[0]['game_index']}")
        assert killed.status_code == 500 and "cannot be replayed here" in killed.text, killed.text
        page = client.get(f"/games/{calm[0]['game_index']}")  # the next page, the server and the others answer
        assert page.status_code == 200 and "greedy" in page.text
        assert client.get("/").status_code == 200 and client.get("/api/health").json()["status"] == "ok"
        assert process.poll() is None


def test_a_bot_page_lists_its_latest_games_and_no_more(played):
    with served(played, "--no-play") as (_, client):
        games = client.get("/api/health").json()["games"]
        recent = client.get("/api/bots/random").json()["recent_games"]
        page = client.get("/bots/random").text
    assert RECENT_GAMES == 20 and games > 2 * RECENT_GAMES
    indices = [g["game_index"] for g in recent]
    assert len(indices) == RECENT_GAMES and indices == sorted(indices, reverse=True), indices  # newest first
    assert re.findall(r'href="/games/(\d+)"', page) == [str(i) for i in indices]  # random has no forfeit listed


def test_the_hourly_upload_window_expires(tmp_path):
    """Two uploads an hour: a third is refused while the first two are under an hour old, and taken once they are
    over it (their times moved back in the catalog, as an hour passing moves the clock)."""
    league = make_upload_league(tmp_path)
    token(league, "alice")
    limits = UploadLimits(uploads_per_hour=2)
    upload = lambda: store_upload(league, "alice", "counting.py", COUNTING.encode(), "CountingBot", None, limits)
    upload(), upload()

    def age(seconds: float) -> None:
        with sqlite3.connect(league / "catalog.sqlite") as db:
            db.execute("UPDATE uploads SET created = created - ?", (seconds,))

    with pytest.raises(OverLimit, match="2 uploads in the last hour"):
        upload()
    age(HOUR - 60)  # 59 minutes old: still in the window
    with pytest.raises(OverLimit):
        upload()
    age(120)  # 61 minutes old: out of it
    assert upload()


@needs_sandbox
def test_upload_takes_its_token_from_the_environment(tmp_path, monkeypatch):
    league = make_upload_league(tmp_path)
    secret = token(league, "alice")
    (tmp_path / "counting.py").write_text(COUNTING)
    with served(league, "--no-play") as (_, client):
        url = f"http://127.0.0.1:{client.base_url.port}/"
        monkeypatch.setenv("ARENA_LEAGUE_TOKEN", "wrong.token")
        wrong = arena("league", "upload", url, f"{tmp_path / 'counting.py'}:CountingBot", check=False)
        assert wrong.exit_code == 2 and "missing, wrong or revoked token" in wrong.stderr, wrong.stderr
        monkeypatch.setenv("ARENA_LEAGUE_TOKEN", secret)
        taken = arena("league", "upload", url, f"{tmp_path / 'counting.py'}:CountingBot", check=False)
        assert taken.exit_code == 0 and taken.stdout.strip() == "accepted as 'counting'", taken.stderr
