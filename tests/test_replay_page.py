"""The replay viewer: one self-contained page per game that a real headless Chromium draws, steps
through with keys and clicks, without an error or a network request; `arena replay --html`; and the
report's example replays."""

import html
import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from browser import Watched, needs_browser, png_pixels
from playwright.sync_api import Page
from typer.testing import CliRunner

from arena.api import finish_and_report
from arena.bots import load_bot_class
from arena.cli import app
from arena.config import parse_config
from arena.games import get_game, make_rules
from arena.isolation import supervisor
from arena.isolation.supervisor import ChildFailed
from arena.report import variant_slugs
from arena.report.replay_page import frames, replay_page_html, write_replay_page
from arena.results import RunDir, load_results
from arena.tournament import referee
from arena.tournament.replay import replay_games
from arena.tournament.runner import play_missing
from arena.tournament.summary import example_games

HOSTILE = "<script>alert(1)</script>"


class Crasher(load_bot_class("random")):
    """A random bot that raises on its fourth move: a forfeited game."""

    name = "crasher"

    def reset(self, *args):
        super().reset(*args)
        self.moves = 0

    def act(self, observation):
        self.moves += 1
        if self.moves == 4:
            raise RuntimeError("crashed on purpose")
        return super().act(observation)


def transcript(game_id: str, bots: list, seed: int, rules: dict | None = None, names: list[str] | None = None) -> dict:
    """A played game's transcript; `bots` are bundled names or bot classes."""
    game = get_game(game_id)
    rules = make_rules(game.Rules, rules or {})
    classes = [load_bot_class(b) if isinstance(b, str) else b for b in bots]
    played = referee.play(game, rules, [c() for c in classes], seed)
    return referee.transcript(game, rules, names or [c.name for c in classes], seed, played)


GAMES = {  # name: (game, bots, seed, rules)
    "caterpillar": ("caterpillar", ["random", "greedy"], 3, None),
    "give_or_take": ("give_or_take", ["random", "greedy"], 3, None),  # three deals
    "go_for_it": ("go_for_it", ["random", "greedy", "random", "greedy"], 5, {"players": 4}),
    "go_for_it_jokers": ("go_for_it", ["random", "greedy", "random"], 2, {"players": 3, "jokers": True}),
    "duke_of_york": ("duke_of_york", ["random", "greedy"], 4, None),
    "forfeit": ("caterpillar", [Crasher, "greedy"], 1, None),
}


@pytest.fixture(scope="module")
def transcripts() -> dict[str, dict]:
    out = {name: transcript(game, bots, seed, rules) for name, (game, bots, seed, rules) in GAMES.items()}
    out["forfeit"]["players"][0] = HOSTILE  # an untrusted name, drawn in the browser too
    return out


def test_frames_follow_the_moves(transcripts):
    for name, data in transcripts.items():
        moves = sum(len(d["moves"]) for d in data["deals"])
        found = frames(data)
        # one frame for the start and each move, and one more between deals: "deal over", then "dealt"
        assert len(found) == 1 + moves + len(data["deals"]) - 1, name
        assert [f["m"] for f in found] == sorted(f["m"] for f in found) and found[-1]["m"] == moves - 1
        assert found[-1]["s"] == data["scores"] or data["fault_seat"] is not None, name
        json.dumps(found)
    over = [f for f in frames(transcripts["give_or_take"]) if "over" in f.get("n", "")]
    assert len(over) == 2 and all(f["t"] is None and len(f["p"]) == 12 for f in over)


def test_the_page_is_self_contained_small_and_escaped(transcripts, tmp_path):
    for name, data in transcripts.items():
        page = replay_page_html(data)
        assert page.startswith("<!DOCTYPE html>")
        assert not re.search(r"https?://", page), name  # nothing to load, not even a link
        assert not re.search(r'<(script|link|img|iframe)\b[^>]*\b(src|href)=(?!"data:)', page)  # the icon is data:
        assert len(page.encode()) < 60_000, (name, len(page.encode()))
    data = {**transcripts["caterpillar"], "players": [HOSTILE, "x' \"&</script><b>"]}
    page = write_replay_page(data, tmp_path / "deep" / "hostile.html").read_text()
    assert HOSTILE not in page and "</script><b>" not in page
    assert html.escape(HOSTILE) in page  # in the title, as text
    embedded = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)[1]
    assert json.loads(embedded)["players"] == data["players"]


# --- in Chromium ------------------------------------------------------------------------------------

def open_replay(browse, path: Path) -> Watched:
    """A replay page opened 1280 x 1000, once its script has set the viewer up."""
    seen = browse(path, height=1000)
    seen.page.wait_for_function("!!window.replay")
    return seen


def state(page: Page) -> dict:
    """Where the viewer stands and what the page shows of it."""
    return page.evaluate("""(all => ({at: window.replay.at, frames: window.replay.frames,
        current: Array.from(all('#moves li.move')).findIndex(li => li.classList.contains('current')),
        currents: all('#moves li.current').length, result: !document.getElementById('result').hidden,
        resultText: document.getElementById('result').textContent,
        seats: Array.from(all('.seat .name')).map(e => e.textContent), cards: all('.card').length,
        red: all('.card.red').length, jokers: all('.card.joker').length,
        toMove: all('.seat.to-move').length}))(s => document.querySelectorAll(s))""")


def shot(page: Page, save: Path) -> np.ndarray:
    """The viewport's pixels (the PNG kept at `save`, to look at when a test fails)."""
    return png_pixels(page.screenshot(path=save))


@pytest.mark.slow
@needs_browser
def test_chromium_steps_through_every_game(transcripts, browse, tmp_path):
    for name, data in transcripts.items():
        check_page(open_replay(browse, write_replay_page(data, tmp_path / f"{name}.html")), data, name, tmp_path)


def check_page(seen: Watched, data: dict, name: str, tmp_path: Path) -> None:
    page = seen.page
    start = state(page)
    assert start["at"] == 0 and start["current"] == -1 and not start["result"], (name, start)
    assert start["seats"] == data["players"]  # the hostile name is text on the page, nothing ran
    assert start["cards"] >= 10 and start["red"] > 0 and start["toMove"] == 1, (name, start)
    if name == "go_for_it_jokers":
        assert start["jokers"] >= 1
    before = shot(page, tmp_path / f"{name}-start.png")
    page.keyboard.press("ArrowRight")
    one = state(page)
    assert one["at"] == 1 and one["current"] == 0 and one["currents"] == 1, (name, one)
    after = shot(page, tmp_path / f"{name}-step.png")
    assert before.shape == after.shape and (before != after).any(axis=2).mean() > 0.001, f"{name}: nothing moved"
    page.locator("#next").click()
    assert state(page)["current"] == 1
    page.keyboard.press("ArrowLeft")
    assert state(page)["at"] == 1
    page.locator("#moves li[data-move='2']").click()  # clicking a move in the list jumps to it
    assert state(page)["current"] == 2
    page.keyboard.press("End")
    end = state(page)
    moves = sum(len(d["moves"]) for d in data["deals"])
    assert end["at"] == end["frames"] - 1 and end["current"] == moves - 1 and end["result"], (name, end)
    assert data["termination"] in end["resultText"]
    assert all(str(score) in end["resultText"] for score in data["scores"])
    if data["fault_seat"] is not None:
        assert "forfeits" in end["resultText"] and "crashed on purpose" in end["resultText"]
    shot(page, tmp_path / f"{name}-end.png")
    page.keyboard.press("Home")
    assert state(page)["at"] == 0
    if name == "caterpillar":  # Space plays: the viewer moves on by itself (a step each 0.7 s), then pauses
        page.keyboard.press("Space")
        page.wait_for_function("window.replay.at >= 1")
        page.keyboard.press("Space")
        at = state(page)["at"]
        page.wait_for_timeout(800)
        assert state(page)["at"] == at >= 1
    assert seen.exceptions == [] and seen.console_errors == [] and seen.dialogs == [], (name, seen)
    assert [url for url in seen.requests if url != page.url] == [], (name, seen.requests)


# --- the command and the report ---------------------------------------------------------------------

TINY = """name = "tiny"
seed = 5
[[games]]
game = "caterpillar"
deals = 2
[[games]]
game = "go_for_it"
deals = 1
rules = { players = 3, jokers = true }
[[bots]]
name = "random"
[[bots]]
name = "greedy"
[[bots]]
name = "random-2"
path = "random"
[run]
workers = 1
"""


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> RunDir:
    config = parse_config(TINY)
    run = RunDir(tmp_path_factory.mktemp("replays") / "tiny")
    finish_and_report(config, run, play_missing(config, run, workers=1))  # writes the report and its replays
    return run


def test_arena_replay_writes_a_page(tiny_run, tmp_path):
    target = tmp_path / "out" / "game.html"
    result = CliRunner().invoke(app, ["replay", str(tiny_run.path), "1", "--html", str(target)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"wrote {target}"
    page = target.read_text()
    assert "<title>Caterpillar replay: " in page and not re.search(r"https?://", page)
    bad = CliRunner().invoke(app, ["replay", str(tiny_run.path), "999", "--html", str(target)])
    assert bad.exit_code == 2 and "outside" in bad.output


def test_the_report_links_example_replays(tiny_run):
    page = tiny_run.report.read_text()
    table = load_results(tiny_run)
    slugs = variant_slugs(sorted(set(table.column("variant").to_pylist())))
    for variant, slug in slugs.items():
        body = re.search(f"<section class='game' id='{re.escape(slug)}'>(.*?)</section>", page, re.S)[1]
        links = re.findall(r'<a class="replay" href="(replays/[^"]+)">game (\d+)</a> \(([^)]*)', body)
        assert links, variant
        assert all(href == f"replays/{slug.removeprefix('game-')}-{index}.html" for href, index, _ in links)
        assert all((tiny_run.path / href).is_file() for href, _, _ in links)
        rows = [r for r in table.to_pylist() if r["variant"] == variant]
        firsts = {}  # the first game of each table (set of bots)
        for r in rows:
            firsts.setdefault(frozenset(r["players"]), r["game_index"])
        assert {int(i) for _, i, why in links if why.startswith("first game")} == set(firsts.values())


def test_a_run_of_arenas_own_bots_replays_its_examples_here_each_failure_its_line(tiny_run, monkeypatch):
    children = []
    monkeypatch.setattr(supervisor, "run_jobs", lambda module, args, jobs, seconds: children.append(jobs) or
                        [ChildFailed("not replayed")] * len(jobs))
    here = replay_games(tiny_run, [0, 1, 999], own_here=True)
    assert not children, "arena's own bots replay in this process"
    saved = load_results(tiny_run).to_pylist()
    assert [(g["scores"], g["termination"]) for g in here[:2]] == [(r["scores"], r["termination"]) for r in saved[:2]]
    assert isinstance(here[2], ChildFailed) and str(here[2]).startswith("ResultsError: game index 999 is outside")
    assert list(map(str, replay_games(tiny_run, [0]))) == ["not replayed"] and children == [["0"]], \
        "without own_here: a child, as a server replays"


def test_a_childs_replay_is_checked_against_the_saved_row_by_its_parent(tiny_run, tmp_path):
    """The child that replays reads no part: its parent hands it the games and checks each replay against its row.
    Game 0's saved scores changed on disk: its replay is a one-line failure, game 1's a transcript."""
    copy = RunDir(Path(shutil.copytree(tiny_run.path, tmp_path / "tiny")))
    (part,) = copy.results.glob("part-*.parquet")
    table = pq.read_table(part)
    scores = table.column("scores").to_pylist()
    scores[0] = [score + 1 for score in scores[0]]
    pq.write_table(table.set_column(table.schema.get_field_index("scores"), "scores",
                                    pa.array(scores, table.schema.field("scores").type)), part)
    changed, kept = replay_games(copy, [0, 1])
    assert isinstance(changed, ChildFailed) and str(changed).startswith("ResultsError: game 0 replays to "), changed
    assert kept["scores"] == scores[1] and kept["termination"] == load_results(copy).column("termination")[1].as_py()


def test_example_games_are_the_first_of_each_table_and_the_biggest_upset():
    """A rated 30, B 25, C 20: C beating A is the biggest upset possible; of those, the widest margin wins."""
    rows = [(["A", "B"], [0, 1], [9, 1]), (["B", "C"], [1, 0], [1, 9]), (["A", "C"], [1, 0], [10, 30]),
            (["C", "A"], [0, 1], [50, 10]), (["A", "C"], [0, 1], [9, 1])]
    table = pa.table({"game_index": list(range(5)), "variant": ["v"] * 5, "players": [r[0] for r in rows],
                      "ranks": [r[1] for r in rows], "scores": [r[2] for r in rows]})
    rated = SimpleNamespace(table=pd.DataFrame({"bot": ["A", "B", "C"], "mu": [30.0, 25.0, 20.0]}))
    assert example_games(table, {"v": rated}) == {"v": [
        (0, "first game of table A, B"), (1, "first game of table B, C"), (2, "first game of table A, C"),
        (3, "biggest upset: C (μ 20.0) above A (μ 30.0), by 40 points")]}
