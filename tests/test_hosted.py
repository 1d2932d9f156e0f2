"""No bot code in arena's own processes: `arena bots` reads the bots from their source, and `arena play` and
`arena replay` play a user's bot from a host process of its own (arena/listing.py, arena/isolation/hosted.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.bots import load_bot_class
from arena.bots.listing import is_bundled, listed_bots, read_file
from arena.games import get_game
from arena.isolation.sandbox import BUNDLED, BUNDLED_BOTS
from arena.tournament import referee

ROOT = Path(__file__).resolve().parent.parent
ZOO = ROOT / "tests" / "zoo"
ARENA = [sys.executable, "-m", "arena.cli"]

HOSTILE = '''
"""Writes a file, then loops forever, when it is imported."""
from pathlib import Path

from arena.bots import Bot

Path({marker!r}).write_text("ran")
while True:
    pass


class Hostile(Bot):
    """Never gets as far as being defined."""

    name = {name!r}
    games = {{"caterpillar", "go_for_it"}}

    def act(self, observation):
        return observation.legal_moves[0]
'''

RECORDS_ITS_PID = '''
import os

from arena.bots import Bot

with open({pids!r}, "a") as f:  # every process that imports this file says so
    f.write(f"{{os.getpid()}}\\n")


class Recorder(Bot):
    """Plays at random, or raises at its first move."""

    name = "recorder" + {suffix!r}  # computed: reading the source cannot tell the name
    defaults = {{"raises": {raises!r}}}

    def act(self, observation):
        if self.params["raises"]:
            raise RuntimeError("the recorder raises")
        return self.rng.choice(observation.legal_moves)
'''


def env_with(home: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "ARENA_HOME": str(home), "COLUMNS": "200"}


def recorded(pids: Path) -> set[int]:
    return {int(line) for line in pids.read_text().split()} if pids.exists() else set()


def test_arena_bots_lists_hostile_files_without_running_them(tmp_path):
    (tmp_path / "bots").mkdir()
    dropped, registered = tmp_path / "dropped-ran", tmp_path / "registered-ran"
    (tmp_path / "bots" / "hostile.py").write_text(HOSTILE.format(marker=str(dropped), name="dropped-hostile"))
    elsewhere = tmp_path / "elsewhere" / "evil.py"
    elsewhere.parent.mkdir()
    elsewhere.write_text(HOSTILE.format(marker=str(registered), name="registered-hostile"))
    home = tmp_path / "home"
    home.mkdir()
    (home / "registry.json").write_text(json.dumps({"registered-hostile": f"{elsewhere}:Hostile"}))
    started = time.perf_counter()
    listed = subprocess.run([*ARENA, "bots", "--game", "go_for_it"], cwd=tmp_path, env=env_with(home),
                            capture_output=True, text=True, timeout=60)
    took = time.perf_counter() - started
    assert listed.returncode == 0, listed.stderr
    rows = {line.split("│")[1].strip(): line for line in listed.stdout.splitlines() if line.count("│") == 4}
    assert {"dropped-hostile", "registered-hostile", "random", "expert"} <= rows.keys()
    assert "caterpillar, go_for_it" in rows["dropped-hostile"] and "Never gets as far" in rows["dropped-hostile"]
    assert not dropped.exists() and not registered.exists()  # neither file ran, here or anywhere
    assert took < 20


def test_a_bot_its_source_does_not_tell_about_is_asked_in_a_host_within_the_time_limit(tmp_path, monkeypatch,
                                                                                        caplog):
    (tmp_path / "bots").mkdir()
    pids = tmp_path / "pids"
    (tmp_path / "bots" / "told.py").write_text(RECORDS_ITS_PID.format(pids=str(pids), suffix="-told", raises=False))
    spins = RECORDS_ITS_PID.format(pids=str(pids), suffix="-spins", raises=False) + "\nwhile True:\n    pass\n"
    (tmp_path / "bots" / "spins.py").write_text(spins)
    monkeypatch.chdir(tmp_path)
    started = time.perf_counter()
    found = listed_bots(time_limit=1.0)
    assert time.perf_counter() - started < 15
    told = found["recorder-told"]
    assert told.about == "Plays at random, or raises at its first move." and told.games is None
    assert "recorder-spins" not in found and "skipped" in caplog.text
    assert recorded(pids) and os.getpid() not in recorded(pids)  # imported by the hosts, never here


FRESH_PROCESS = """
import sys

from arena.bots import load_bot_class
from arena.bots.listing import listed_bots

assert not [name for name in sys.modules if name.startswith(("arena.isolation", "arena.interop", "arena.llm"))]
command = load_bot_class(sys.argv[1])
seat = load_bot_class("llm:model@http://127.0.0.1:1/v1")
listed = listed_bots(time_limit=5.0)
print(command.name, seat.name, listed["told"].games, listed["told"].about)
"""


def test_a_fresh_process_that_imports_only_arena_bots_loads_every_spec_form_and_asks_a_host(tmp_path):
    """What a spec means and how the listing asks a bot's host never hang on what a process imported first: a
    process that imports only arena.bots (as a child started by `python -P -m MODULE` may) loads a `command:` and an
    `llm:` spec and lists a bot that only its host can tell about."""
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "told.py").write_text(
        '"""Named at import."""\nimport random\n\n\nclass Told:\n    """Names itself at import."""\n\n'
        '    name = "".join(["to", "ld"])\n    games = {"caterpillar"}\n\n'
        '    def act(self, observation):\n        return random.choice(observation.legal_moves)\n')
    assert read_file(tmp_path / "bots" / "told.py") == ([], ["Told"])
    shell_bot = f"command: {ROOT / 'examples' / 'first_legal.sh'}"
    out = subprocess.run([sys.executable, "-c", FRESH_PROCESS, shell_bot], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["first-legal", "model", "('caterpillar',)", "Names", "itself", "at", "import."]


def test_every_bundled_bot_is_read_from_its_source_as_its_class_says():
    for file in (f for f in BUNDLED if f.endswith(".py")):
        listed, unclear = read_file(BUNDLED_BOTS / file)
        assert not unclear and len(listed) == 1, file
        bot_class = load_bot_class(listed[0].spec)
        games = None if bot_class.games is None else tuple(sorted(bot_class.games))
        assert (listed[0].name, listed[0].games) == (bot_class.name, games)
        assert listed[0].about == bot_class.__doc__.strip().splitlines()[0]


def test_only_arenas_own_bots_play_in_its_process():
    assert is_bundled(f"{BUNDLED_BOTS / 'random_bot.py'}:RandomBot") and is_bundled("openspiel:mcts")
    assert not is_bundled(f"{BUNDLED_BOTS / 'my_bot.py'}:MyBot")  # a user's file dropped beside the bundled bots
    assert not is_bundled("/elsewhere/random_bot.py:RandomBot") and not is_bundled("their_package.bot:Bot")


ACT = "\n    def act(self, o):\n        return o.legal_moves[0]\n"


@pytest.mark.parametrize("source, bots, unclear", [
    ("from arena.bots import Bot as B\nclass A(B):\n    name = 'a'\n" + ACT, [("a", None)], []),
    ("from arena import bots\nG = ('y', 'x')\nclass A(bots.Bot):\n    name = 'a'\n    games = set(G)\n" + ACT,
     [("a", ("x", "y"))], []),
    ("import arena.bots\nclass A(arena.bots.Bot):\n    name = 'a'\n    games = ['x']\n" + ACT, [("a", ("x",))], []),
    ("from arena.bots import Bot\nclass A(Bot):\n    name = 'a'\n    games = {'x'}\n" + ACT + "class C(A):\n"
     "    name = 'c'\n", [("a", ("x",)), ("c", ("x",))], []),
    ("from arena.bots import Bot\nclass Base(Bot):\n    pass\nclass A(Base):\n    name = 'a'\n" + ACT,
     [("a", None)], []),
    ("class Helper(object):\n    name = 'not a bot'\nclass E(Exception):\n    pass\n", [], []),
    ("from bots.heuristic import HeuristicBot\nclass A(HeuristicBot):\n    name = 'a'\n", [], ["A"]),
    ("from bots.heuristic import HeuristicBot\nclass Helper(HeuristicBot):\n    pass\n", [], []),
    ("from bots.heuristic import HeuristicBot\nclass Mine(HeuristicBot):" + ACT, [], ["Mine"]),
    ("from arena.bots import Bot\nclass A(Bot):\n    name = 'a' + 'b'\n" + ACT, [], ["A"]),
    ("from arena.bots import Bot\nimport games_here\nclass A(Bot):\n    name = 'a'\n    games = games_here.ALL\n"
     + ACT, [], ["A"]),
    ("from arena.bots import Bot\nif True:\n    Bot = object\nclass A(Bot):\n    name = 'a'\n" + ACT, [], ["A"]),
    ("from arena.bots import Bot\nfrom elsewhere import *\nclass A(Mystery):\n    name = 'a'\n", [], ["A"]),
    # the protocol is structural: a class with `act`, its own or a base's of the same file, with or without Bot
    ("class FirstLegal:\n    name = 'first-legal'\n    games = None" + ACT, [("first-legal", None)], []),
    ("class MCTSPlayer:" + ACT, [("mcts-player", None)], []),
    ("class _Base:\n    games = {'x'}\n    def reset(self, *args):\n        pass\nclass Raiser(_Base):" + ACT +
     "class Twice(Raiser):\n    name = 'twice'\n", [("raiser", ("x",)), ("twice", ("x",))], []),
    ("class _Private:" + ACT, [], []),  # found when named, not when the file is looked through
    ("from arena.bots import Bot\nclass Abstract(Bot):\n    name = 'abstract'\n", [], []),  # Bot.act is no act
])
def test_reading_a_source_finds_its_bots_or_says_what_it_cannot_tell(tmp_path, source, bots, unclear):
    path = tmp_path / "mine.py"
    path.write_text(source)
    listed, not_told = read_file(path)
    assert [(bot.name, bot.games) for bot in listed] == bots and not_told == unclear


def test_a_users_bot_that_defeats_the_clock_forfeits_arena_play_on_time(tmp_path):
    started = time.perf_counter()
    played = subprocess.run([*ARENA, "play", "caterpillar", f"{ZOO / 'defeats_clock.py'}:DefeatsClockBot", "random",
                             "--move-time-limit", "0.5", "--wall-backstop", "2"], env=env_with(tmp_path),
                            capture_output=True, text=True, timeout=60)
    assert played.returncode == 0, played.stderr  # it blocks the clock's signal and sleeps: the backstop ends it
    assert "seat 0 (zoo-defeats-clock) forfeits: no move within 1s of wall time" in played.stdout.splitlines()
    assert time.perf_counter() - started < 30


def test_a_users_bot_that_raises_forfeits_arena_play_from_its_own_process(tmp_path):
    pids = tmp_path / "pids"
    bot = tmp_path / "recorder.py"
    bot.write_text(RECORDS_ITS_PID.format(pids=str(pids), suffix="", raises=True))
    play = subprocess.Popen([*ARENA, "play", "caterpillar", "random", f"{bot}:Recorder", "--json"],
                            env=env_with(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = play.communicate(timeout=60)
    assert play.returncode == 0, err
    data = json.loads(out)
    assert (data["termination"], data["fault_seat"], data["players"]) == ("crash", 1, ["random", "recorder"])
    assert "RuntimeError: the recorder raises" in data["fault"]
    assert recorded(pids) and play.pid not in recorded(pids)


def test_arena_replay_plays_a_users_bot_from_its_own_process_move_for_move(tmp_path, monkeypatch):
    import arena
    from arena.config import load_config
    from arena.tournament.batch import play_scheduled, prepare

    pids = tmp_path / "pids"
    (tmp_path / "recorder.py").write_text(RECORDS_ITS_PID.format(pids=str(pids), suffix="", raises=False))
    (tmp_path / "run.toml").write_text('name = "hosted"\nseed = 3\n[[games]]\ngame = "caterpillar"\ndeals = 1\n'
                                       '[[bots]]\nname = "random"\n[[bots]]\nname = "recorder"\n'
                                       'path = "recorder.py:Recorder"\n[run]\nworkers = 1\n')
    monkeypatch.chdir(tmp_path)
    arena.run("run.toml", out=tmp_path / "reports")
    config = load_config(tmp_path / "run.toml")
    schedule, makers = prepare(config)  # the bots in this process, as a worker plays them
    for index in range(schedule.total):
        scheduled = schedule.game(index)
        block = scheduled.block
        expected = referee.transcript(get_game(block.game_id), block.rules, list(scheduled.seat_names),
                                      scheduled.deal_seed, play_scheduled(config, makers, scheduled))
        before = recorded(pids)
        replay = subprocess.Popen([*ARENA, "replay", str(tmp_path / "reports" / "hosted"), str(index), "--json"],
                                  env=env_with(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = replay.communicate(timeout=60)
        assert replay.returncode == 0, err
        assert json.loads(out) == expected
        assert recorded(pids) - before and replay.pid not in recorded(pids)


def test_a_users_bot_that_sleeps_at_import_is_refused_by_arena_play_within_the_setup_limit(tmp_path):
    started = time.perf_counter()
    played = subprocess.run([*ARENA, "play", "caterpillar", f"{ZOO / 'sleeps_at_import.py'}:SleepsAtImportBot",
                             "random", "--setup-time-limit", "1", "--wall-backstop", "2"], env=env_with(tmp_path),
                            capture_output=True, text=True, timeout=60)
    assert played.returncode == 2 and played.stdout == ""
    assert played.stderr.endswith("could not be built within setup_time_limit = 1s\n")
    assert len(played.stderr.splitlines()) == 1 and time.perf_counter() - started < 30
