"""Process isolation (arena/isolation/, docs/protocol.md): a bot in its own process plays exactly as
in process, any executable can be a bot, every misbehaviour is the right forfeit and the next game
gets a fresh process, nothing a bot writes can raise or hang the arena, and no process outlives it."""

import dataclasses
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from conftest import VARIANT_IDS, VARIANTS
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from arena import isolation
from arena.bots import load_bot_class, resolved_spec
from arena.config import ConfigError, load_config, parse_config
from arena.games import GAME_IDS, get_game, make_rules
from arena.isolation import (
    BadAnswer,
    BotProcessError,
    ProtocolError,
    decode_answer,
    move_from_answer,
    observation_from_json,
    process_bot_class,
    python_command,
)
from arena.results import RunDir, digest, load_results
from arena.tournament import referee
from arena.tournament.runner import play_missing

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SMALL = Path(__file__).parent / "data" / "small.toml"
RANDOM, GREEDY = load_bot_class("random"), load_bot_class("greedy")
GAMES = [("caterpillar", {}), ("give_or_take", {}), ("go_for_it", {"players": 3, "jokers": True}),
         ("duke_of_york", {})]
LIMIT = 0.5

MISBEHAVING = '''
import os
import time

from arena.bots import Bot


class Misbehaving(Bot):
    """Plays at random, but misbehaves once when its trigger file exists (it deletes it)."""

    name = "misbehaving"
    defaults = {"mode": "crash", "trigger": ""}

    def act(self, observation):
        if os.path.exists(self.params["trigger"]):
            os.unlink(self.params["trigger"])
            mode = self.params["mode"]
            if mode == "crash":
                raise RuntimeError("boom")
            if mode == "garbage":
                os.write(1, b"this is not json\\n")
            if mode == "exit":
                os._exit(3)
            if mode == "hang":
                while True:
                    pass
            if mode == "memory":
                hog = []
                while True:
                    hog.append(bytearray(16 << 20))
        return self.rng.choice(observation.legal_moves)
'''


def _rules(game_id, overrides):
    game = get_game(game_id)
    return game, make_rules(game.Rules, overrides)


def _transcript(game, rules, bots, seed, limit=LIMIT):
    played = referee.play(game, rules, bots, seed, move_time_limit=limit)
    return referee.transcript(game, rules, [f"seat{s}" for s in range(len(bots))], seed, played), played


@pytest.fixture(scope="module")
def hosted():
    """The random and greedy bots in the built-in host."""
    return (process_bot_class(python_command(resolved_spec(RANDOM)), move_time_limit=LIMIT),
            process_bot_class(python_command(resolved_spec(GREEDY)), move_time_limit=LIMIT))


@pytest.fixture(scope="module")
def misbehaving(tmp_path_factory):
    path = tmp_path_factory.mktemp("bots") / "misbehaving.py"
    path.write_text(MISBEHAVING)
    return f"{path}:Misbehaving"


# --- observations travel exactly ----------------------------------------------------------------------------


@pytest.mark.parametrize(("game_id", "overrides"), VARIANTS, ids=VARIANT_IDS)
def test_observation_json_round_trips_exactly(game_id, overrides):
    game, rules = _rules(game_id, overrides)
    for seed in range(3):
        state, rng = game.new_state(rules, seed), random.Random(seed)
        while True:
            for seat in range(game.players(rules)):
                observation = game.observe(state, seat)
                data = json.loads(json.dumps(game.observation_json(observation)))
                assert observation_from_json(game, rules, data) == observation
            if game.to_move(state) is None:
                break
            game.apply(state, rng.choice(game.legal_moves(state)))


@pytest.mark.parametrize(("game_id", "overrides"), GAMES, ids=[g for g, _ in GAMES])
def test_a_hosted_bot_plays_exactly_as_in_process(game_id, overrides, hosted):
    game, rules = _rules(game_id, overrides)
    hosted_random, hosted_greedy = hosted
    for seed in range(4):
        seats = range(game.players(rules))
        local, _ = _transcript(game, rules, [(GREEDY if s % 2 else RANDOM)() for s in seats], seed)
        bots = [(hosted_greedy if s % 2 else hosted_random)() for s in seats]
        remote, played = _transcript(game, rules, bots, seed)
        assert remote == local
        assert played.decisions > 0
        if len(bots) > 2:  # the same bot in two seats: two processes
            assert bots[0].process.pid != bots[2].process.pid


ZOO = Path(__file__).parent / "zoo"


@pytest.mark.parametrize("spec", ["peeks_frame.py:PeeksFrameBot", "peeks_gc.py:PeeksGcBot", "cheats.py:CheatsBot"])
def test_in_its_own_process_a_peeking_or_cheating_bot_sees_and_changes_nothing(spec):
    file, _, class_name = spec.partition(":")
    if not (ZOO / file).is_file():
        pytest.skip(f"no tests/zoo/{file}")
    hosted = process_bot_class(python_command(f"{ZOO / file}:{class_name}"), move_time_limit=LIMIT)
    game, rules = _rules("caterpillar", {})
    for seed in range(3):  # with nothing to peek at, it falls back on its rng, just as the random bot
        honest, _ = _transcript(game, rules, [RANDOM(), RANDOM()], seed)
        assert _transcript(game, rules, [hosted(), RANDOM()], seed)[0] == honest
    local = [_transcript(game, rules, [load_bot_class(f"{ZOO / file}:{class_name}")(), RANDOM()], seed)[0]
             for seed in range(3)]
    assert local != [_transcript(game, rules, [RANDOM(), RANDOM()], seed)[0] for seed in range(3)]  # in process it can


# --- any executable is a bot --------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_shell_example_plays_every_game(game_id):
    shell = process_bot_class([str(EXAMPLES / "first_legal.sh")], move_time_limit=LIMIT)
    assert shell.name == "first-legal" and shell.games is None
    game, rules = _rules(game_id, {})
    _, played = _transcript(game, rules, [shell()] + [RANDOM() for _ in range(game.players(rules) - 1)], 7)
    assert played.fault is None and played.decisions > 0


def test_the_python_script_example_plays_and_replays():
    script = process_bot_class([sys.executable, str(EXAMPLES / "random_bot.py")], move_time_limit=LIMIT)
    assert script.name == "random-json"
    for game_id, overrides in GAMES:
        game, rules = _rules(game_id, overrides)
        others = game.players(rules) - 1
        first, played = _transcript(game, rules, [script()] + [RANDOM() for _ in range(others)], 11)
        assert played.fault is None
        assert _transcript(game, rules, [script()] + [RANDOM() for _ in range(others)], 11)[0] == first


# --- misbehaviour is a forfeit, and the next game gets a fresh process ---------------------------------------


@pytest.mark.parametrize(("mode", "termination", "fault"), [
    ("crash", "crash", "RuntimeError: boom"),
    ("garbage", "illegal_move", "malformed answer: not JSON"),
    ("exit", "crash", "exited with status 3"),
    ("hang", "timeout", "no move within"),
    ("memory", "crash", "MemoryError"),
])
def test_a_misbehaving_process_forfeits_and_the_next_game_is_fine(tmp_path, misbehaving, mode, termination, fault):
    trigger = tmp_path / "trigger"
    limit = 0.3 if mode == "hang" else 2.0  # filling 160 MB can take over 0.3 s on a loaded machine: not a hang
    bot = process_bot_class(python_command(misbehaving), params={"mode": mode, "trigger": str(trigger)},
                            memory_mb=160, move_time_limit=limit)
    game, rules = _rules("caterpillar", {})
    trigger.touch()
    first = [bot(mode=mode, trigger=str(trigger)), RANDOM()]
    started = time.perf_counter()
    played = referee.play(game, rules, first, 1, move_time_limit=limit)
    assert time.perf_counter() - started < 5
    assert (played.outcome.termination, played.fault_seat) == (termination, 0)
    assert fault in played.fault
    broken = first[0].process
    assert broken.broken
    second = [bot(mode=mode, trigger=str(trigger)), RANDOM()]
    played = referee.play(game, rules, second, 1, move_time_limit=limit)
    assert played.outcome.termination == "normal"
    assert second[0].process is not broken and second[0].process.pid != broken.pid
    assert broken.popen.returncode is not None  # reaped when it was replaced


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-game CPU limits need prlimit and /proc")
def test_a_busy_loop_without_a_move_time_limit_hits_the_cpu_limit(tmp_path, misbehaving):
    trigger = tmp_path / "trigger"
    params = {"mode": "hang", "trigger": str(trigger)}
    bot = process_bot_class(python_command(misbehaving), params=params, cpu_seconds=1)
    game, rules = _rules("caterpillar", {})
    trigger.touch()
    played = referee.play(game, rules, [bot(**params), RANDOM()], 1)
    assert played.outcome.termination == "crash" and "(CPU limit)" in played.fault
    for seed in range(3):  # the limit is per game: a fresh process, and then games go on
        assert referee.play(game, rules, [bot(**params), RANDOM()], seed).outcome.termination == "normal"


def test_a_hang_is_a_timeout_even_where_the_clock_cannot_preempt(tmp_path, misbehaving):
    trigger = tmp_path / "trigger"
    params = {"mode": "hang", "trigger": str(trigger)}
    bot = process_bot_class(python_command(misbehaving), params=params, move_time_limit=0.3)
    game, rules = _rules("caterpillar", {})
    trigger.touch()
    found = []
    worker = threading.Thread(target=lambda: found.append(
        referee.play(game, rules, [bot(**params), RANDOM()], 1, move_time_limit=0.3)))
    worker.start()
    worker.join(10)
    assert found and found[0].outcome.termination == "timeout" and found[0].fault_seat == 0


def test_an_unparsable_move_is_an_illegal_move_with_a_clear_fault(tmp_path):
    script = tmp_path / "bad.sh"
    script.write_text("#!/bin/sh\nwhile read -r line; do case $line in\n"
                      "*hello*) echo '{\"name\":\"bad\"}';;\n*reset*) echo '{\"ok\":true}';;\n"
                      "*) echo '{\"move\":\"7X\"}';;\nesac; done\n")
    script.chmod(0o755)
    game, rules = _rules("caterpillar", {})
    played = referee.play(game, rules, [process_bot_class([str(script)])(), RANDOM()], 3)
    assert played.outcome.termination == "illegal_move"
    assert played.fault == "illegal move '7X' (not a move of caterpillar)"


def test_a_bot_can_refuse_its_params(misbehaving):
    with pytest.raises(BotProcessError, match="params: TypeError: unknown parameter 'depth'"):
        process_bot_class(python_command(misbehaving), params={"depth": 3})


# --- the protocol parser never raises anything else, never hangs ----------------------------------------------

ANSWERS = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=200).map(str.encode),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                 lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                 max_leaves=12).map(lambda value: json.dumps(value).encode()),
    st.fixed_dictionaries({"move": st.one_of(st.text(max_size=12), st.integers(), st.none(),
                                             st.sampled_from(["7H", "7H+", "KSk", "take:0", "discard:??", "play",
                                                              "JK", " 7h ", "take:2"]))},
                          optional={"error": st.text(max_size=10)}).map(lambda value: json.dumps(value).encode()),
)


@settings(max_examples=300, deadline=None)
@given(line=ANSWERS, game_id=st.sampled_from(GAME_IDS))
@example(line=b"[" * 100_000, game_id="caterpillar")
@example(line=b'{"move": "' + "\udcff".encode("utf-8", "surrogatepass") + b'"}', game_id="duke_of_york")
@example(line=b"1" * 5000, game_id="go_for_it")
def test_any_answer_is_a_move_a_bad_answer_or_a_crash(line, game_id):
    game = get_game(game_id)
    try:
        answer = decode_answer(line)
    except ProtocolError:
        return
    assert isinstance(answer, dict)
    try:
        move = move_from_answer(game, answer)
    except BotProcessError:
        assert "error" in answer
        return
    assert isinstance(move, BadAnswer) or game.move_to_str(move) is not None


HELLO, RESET = b'{"name":"fuzz"}\n', b'{"ok":true}\n'
FUZZ_BOT = """
import sys, time
pieces = [bytes.fromhex(p) for p in open(sys.argv[1]).read().split()]
for piece in pieces:
    if not sys.stdin.buffer.readline():
        sys.exit(0)
    sys.stdout.buffer.write(piece)
    sys.stdout.buffer.flush()
if sys.argv[2] == "hang":
    time.sleep(30)
"""


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prefix=st.sampled_from([[], [HELLO], [HELLO, RESET], [HELLO, RESET]]),
       answers=st.lists(st.tuples(ANSWERS, st.sampled_from([b"\n", b"", b"\n\n"])).map(b"".join), max_size=4),
       valid=st.integers(0, 20), hang=st.booleans())
def test_whatever_a_process_writes_the_game_ends_in_a_forfeit_in_time(tmp_path, monkeypatch, prefix, answers,
                                                                       valid, hang):
    monkeypatch.setattr(isolation.process, "HELLO_TIMEOUT", 0.3)
    monkeypatch.setattr(isolation.process, "RESET_TIMEOUT", 0.3)
    game, rules = _rules("go_for_it", {"players": 2})
    # Answers that are moves first (`play` is often legal), so that the fuzz also strikes in mid-game.
    pieces = prefix + [b'{"move":"play"}\n'] * (valid if len(prefix) == 2 else 0) + answers
    script = tmp_path / "pieces"
    script.write_text(" ".join(piece.hex() or "" for piece in pieces if piece))
    command = [sys.executable, "-S", "-c", FUZZ_BOT, str(script), "hang" if hang else "exit"]
    started = time.perf_counter()
    try:
        bot = process_bot_class(command, move_time_limit=0.2, strict=False)
        played = referee.play(game, rules, [bot(), RANDOM()], 5, move_time_limit=0.2)
    finally:
        isolation.close_all()
    assert time.perf_counter() - started < 5
    event(f"{played.outcome.termination}: {(played.fault or '')[:30]}")
    if played.fault_seat is not None:
        assert played.fault_seat == 0
        assert played.outcome.termination in ("crash", "illegal_move", "timeout")


# --- configs and tournaments -----------------------------------------------------------------------------------


def _config_text(extra_bots: str, deals: int = 4) -> str:
    text = SMALL.read_text()
    for game_id, count in (("caterpillar", 30), ("give_or_take", 8), ("go_for_it", 6), ("duke_of_york", 8)):
        text = text.replace(f'game = "{game_id}"\ndeals = {count}', f'game = "{game_id}"\ndeals = {deals}')
    return text.replace('path = "random"\n', 'path = "random"\n' + extra_bots)


def test_a_tournament_with_process_bots_gives_the_in_process_results(tmp_path):
    shell = f'\n[[bots]]\nname = "first-legal"\ncommand = "{EXAMPLES / "first_legal.sh"}"\n'
    plain = parse_config(_config_text(shell))
    isolated = parse_config(_config_text('isolation = "process"\nmemory_mb = 512\ncpu_seconds = 5\n' + shell))
    assert [b.isolation for b in isolated.bots] == ["none", "none", "process", "sandbox"]
    digests = []
    earlier = set(map(id, isolation.running_processes))  # kept by the tests this test process ran before
    for name, config in (("plain", plain), ("isolated", isolated)):
        run = RunDir(tmp_path / name)
        report = play_missing(config, run, workers=1)
        table = load_results(run)
        assert table.num_rows == report.total > 0
        assert set(table.column("termination").to_pylist()) <= {"normal", "court_short", "deal_limit", "move_limit"}
        digests.append(digest(table))
    assert digests[0] == digests[1]
    # One process per process bot (and limits), kept across all those games.
    assert len([p for p in isolation.running_processes if not p.broken and id(p) not in earlier]) <= 3


def test_process_bot_config_keys(tmp_path):
    (tmp_path / "bots").mkdir()
    script = tmp_path / "bots" / "first.sh"
    script.write_text((EXAMPLES / "first_legal.sh").read_text())
    script.chmod(0o755)
    config_path = tmp_path / "t.toml"
    base = 'name = "t"\nseed = 1\n[[games]]\ngame = "caterpillar"\ndeals = 1\n[[bots]]\nname = "random"\n'
    config_path.write_text(base + '[[bots]]\nname = "sh"\ncommand = ["bots/first.sh", "--quiet"]\n'
                           '[[bots]]\nname = "hosted"\npath = "random"\nisolation = "process"\nmemory_mb = 0\n')
    config = load_config(config_path)  # the command is found next to the config, from any folder
    shell, hosted = config.bots[1], config.bots[2]
    assert shell.command == (str(script), "--quiet") and shell.isolation == "sandbox"  # a command's default
    assert shell.memory_mb == isolation.DEFAULT_MEMORY_MB and shell.spec.startswith("command: ")
    assert hosted.command is None and hosted.memory_mb is None and hosted.spec.endswith("random_bot.py:RandomBot")
    assert dataclasses.replace(config.bots[0]).isolation == "none"


@pytest.mark.parametrize(("bot", "message"), [
    ('isolation = "docker"', 'bots[1].isolation: must be "none", "process" or "sandbox", not \'docker\''),
    ('path = "random"\nmemory_mb = 100', "bots[1].memory_mb: applies only to a bot in its own process"),
    ('command = "sh"\nisolation = "none"', "bots[1].isolation: a bot with a command always runs in its own process"),
    ('command = "sh"\npath = "random"', "bots[1].command: give a command or a path, not both"),
    ('command = 5', "bots[1].command: must be a string or an array of strings, not 5"),
    ('command = "no-such-program-here --x"', "bots[1].command: no program 'no-such-program-here' on PATH"),
    ('command = "./no/such/bot.sh"', "bots[1].command: no program ./no/such/bot.sh"),
    ('command = "true"', "bots[1].command: bot process exited with status 0"),
    ('command = "sh"\nmemory_mb = -1', "bots[1].memory_mb: must be a non-negative integer, not -1"),
    ('command = "sh"\ncpu_seconds = 0', "bots[1].cpu_seconds: must be a number > 0, not 0"),
    ('path = "random"\nisolation = "process"\nparams = { depth = 2 }',
     "bots[1].params: TypeError: unknown parameter 'depth'"),
    ('path = "nowhere.py:Bot"\nisolation = "process"', "bots[1].path: no bot file nowhere.py"),
])
def test_process_bot_config_errors_are_one_line_naming_the_field(bot, message):
    text = f'name = "t"\nseed = 1\n[[games]]\ngame = "caterpillar"\ndeals = 1\n[[bots]]\nname = "random"\n' \
           f'[[bots]]\nname = "other"\n{bot}\n'
    with pytest.raises(ConfigError) as raised:
        parse_config(text)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


# --- no process outlives the arena ----------------------------------------------------------------------------

STUBBORN = """#!/bin/sh
trap '' TERM HUP INT
read -r line; echo '{"name":"stubborn"}'
read -r line; echo '{"ok":true}'
while :; do sleep 1; done
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _run_script(tmp_path, body: str) -> subprocess.Popen:
    stubborn = tmp_path / "stubborn.sh"
    stubborn.write_text(STUBBORN)
    stubborn.chmod(0o755)
    script = textwrap.dedent(f"""
        from arena.tournament import referee
        from arena.bots import load_bot_class, resolved_spec
        from arena.games import get_game, make_rules
        from arena.isolation import process_bot_class, python_command
        game = get_game("caterpillar")
        rules = make_rules(game.Rules)
        hosted = process_bot_class(python_command(resolved_spec(load_bot_class("random"))))()
        stubborn = process_bot_class([{str(stubborn)!r}])()
        referee.play(game, rules, [hosted, load_bot_class("random")()], 1)
        stubborn.reset("caterpillar", 0, rules, __import__("random").Random(1))
        print(hosted.process.pid, stubborn.process.pid, flush=True)
    """) + textwrap.dedent(body)
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, cwd=ROOT, text=True)


def _gone_soon(pids: list[int]) -> bool:
    deadline = time.time() + 5
    while time.time() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.05)
    return not any(_alive(pid) for pid in pids)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_processes_end_with_the_interpreter(tmp_path):
    process = _run_script(tmp_path, "")
    pids = [int(p) for p in process.stdout.readline().split()]
    assert process.wait(10) == 0
    assert len(pids) == 2 and _gone_soon(pids)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux")
def test_processes_die_with_a_killed_arena(tmp_path):
    process = _run_script(tmp_path, "import time; time.sleep(60)")
    pids = [int(p) for p in process.stdout.readline().split()]
    assert all(_alive(pid) for pid in pids)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(10)
    assert _gone_soon(pids)
