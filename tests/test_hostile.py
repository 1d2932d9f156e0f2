"""Hostile bots, crashes and kills never stop a run, change other games, or lose results.

The bots of tests/zoo play real tournaments (play_missing + finish_and_report) beside the honest bundled
bots. Each hostile game ends with the right forfeit; the run completes with every game index once;
and the games of the table without the hostile bot are exactly those of a run without it (deal and
bot seeds hang on the names of a table's bots, not on positions). The hostile bot is listed first,
so its games are played before the honest ones, in the same process: damage it left behind would
show. A bot that ends its Ray worker is quarantined; SIGKILLs of the driver and damaged result
parts lose nothing.

What play in process (workers = 1, and inside each Ray worker) cannot stop, shown below: a bot runs
in the referee's interpreter, so it can find the game state (gc.get_objects, or the referee's frame
through sys._getframe) and play on the hidden cards; change that state (its own score: a replay of
the transcript finds it); rewrite the rules object that later games of the process share
(object.__setattr__ gets past a frozen dataclass); keep control by catching the clock's MoveTimeout
(until the backstop kills its worker). Only a process per bot stops these. Bots never run in the
driver: with workers = 1 they play in one local worker process, so a bot that ends its process or
defeats the clock costs a replay in quarantine, never the run.
"""

import json
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.api import finish_and_report
from arena.bots import load_bot_class
from arena.config import load_config, parse_config
from arena.games import get_game
from arena.results import TIMING_COLUMNS, ResultsError, RunDir, digest, load_results, scan_parts
from arena.tournament import referee
from arena.tournament.batch import play_batch
from arena.tournament.quarantine import quarantine_batch
from arena.tournament.replay import replay_game
from arena.tournament.runner import play_missing
from arena.tournament.schedule import Schedule

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "tests" / "data" / "small.toml"
ARENA = [sys.executable, "-m", "arena.cli"]
LIMIT = 0.25
CAT = get_game("caterpillar")
RANDOM = load_bot_class("random")
GAME_SETS = {
    "all": (("caterpillar", 2, {}), ("give_or_take", 1, {}), ("go_for_it", 2, {"players": 2}),
            ("duke_of_york", 1, {})),
    "caterpillar": (("caterpillar", 1, {}),),
    "give_or_take": (("give_or_take", 2, {}),),
    "ray": (("caterpillar", 2, {}), ("give_or_take", 1, {})),
}


def zoo(spec: str, **params):
    """An instance of a zoo bot, e.g. zoo("exits.py:ExitsBot", how="raise")."""
    return load_bot_class(str(ROOT / "tests" / "zoo" / spec))(**params)


def config_text(games: str, hostile: str | None = None, params: dict | None = None, *, honest_only: tuple = (),
                batch_size: int = 5, workers: int = 1, limit: float = LIMIT, wall_backstop: float | None = None) -> str:
    """A tournament of `random` and `greedy`, with the zoo bot `hostile` (tests/zoo/<file>:<Class>) listed first."""
    lines = ['name = "zoo"', "seed = 20260515"]
    for game, deals, rules in GAME_SETS[games]:
        lines += ["[[games]]", f'game = "{game}"', f"deals = {deals}"]
        if rules:
            lines.append("rules = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in rules.items()) + " }")
        if game in honest_only:
            lines.append('bots = ["random", "greedy"]')
    if hostile:
        lines += ["[[bots]]", 'name = "hostile"', f'path = "tests/zoo/{hostile}"']
        if params:
            lines.append("params = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in params.items()) + " }")
    lines += ["[[bots]]", 'name = "random"', "[[bots]]", 'name = "greedy"',
              "[run]", f"workers = {workers}", f"batch_size = {batch_size}", f"move_time_limit = {limit}"]
    if wall_backstop is not None:
        lines.append(f"wall_backstop = {wall_backstop}")
    return "\n".join(lines) + "\n"


def run_tournament(directory: Path, text: str, workers: int = 1):
    """Plays and finishes a tournament; returns the run, its rows in game-index order and the manifest."""
    config = parse_config(text, base=ROOT)
    run = RunDir(directory / config.name)
    report = play_missing(config, run, workers=workers)
    manifest, _ = finish_and_report(config, run, report)
    rows = load_results(run).to_pylist()
    assert [row["game_index"] for row in rows] == list(range(report.total)), "every game index once"
    return run, rows, manifest


def by_game(rows) -> dict:
    """Rows keyed by (variant, players by seat, deal, rotation): their seed and everything they decided."""
    return {(r["variant"], tuple(r["players"]), r["deal"], r["rotation"]):
            (r["seed"], r["scores"], r["ranks"], r["termination"], r["fault_seat"], r["fault"], r["decisions"])
            for r in rows}


def honest(rows):
    return [r for r in rows if "hostile" not in r["players"]]


def hostile(rows):
    return [r for r in rows if "hostile" in r["players"]]


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """The rows of a run without the hostile bot, by game set."""
    found = {}

    def rows_of(games: str):
        if games not in found:
            found[games] = run_tournament(tmp_path_factory.mktemp("baseline"), config_text(games))[1]
        return found[games]

    return rows_of


def assert_forfeits(run, rows, termination: str, fault: str, fair_moves: int = 0) -> None:
    """Every game of the hostile bot is its forfeit, unless it ended before the bot misbehaved (it plays
    `fair_moves` legal moves first); once it has stalled three times (the wall-clock backstop ended its call), its
    remaining games are its forfeits unplayed."""
    faulted = stalls = suspended = 0
    for row in hostile(rows):
        seat = row["players"].index("hostile")
        if row["fault_seat"] is None:
            moves = [m for deal in replay_game(run, row["game_index"])["deals"] for m in deal["moves"]]
            assert sum(m["seat"] == seat for m in moves) <= fair_moves, row
            continue
        assert (row["termination"], row["fault_seat"]) == (termination, seat), row
        if row["fault"] == "suspended after 3 stalls":  # a bot that stalls is suspended after its third stall
            assert stalls >= 3 and row["decisions"] == 0, row
            suspended += 1
        else:
            assert row["fault"].startswith(fault), row
            stalls += row["fault"].endswith(" of wall time")
        assert row["ranks"][seat] == len(row["players"]) - 1
        faulted += 1
    assert faulted >= len(hostile(rows)) / 2


FORFEITS = {
    "raises": ("raises.py:RaisesBot", {}, "all", "crash", "RuntimeError: the zoo bot raises"),
    "illegal": ("illegal.py:IllegalBot", {}, "all", "illegal_move", "illegal move "),
    "none": ("garbage.py:GarbageBot", {"kind": "none"}, "all", "illegal_move", "illegal move None"),
    "string": ("garbage.py:GarbageBot", {"kind": "string"}, "all", "illegal_move", "illegal move '"),
    "foreign": ("garbage.py:GarbageBot", {"kind": "foreign"}, "all", "illegal_move", "illegal move "),
    "lookalike": ("garbage.py:GarbageBot", {"kind": "lookalike"}, "all", "illegal_move", "illegal move <"),
    "busy-loop": ("hangs.py:HangsBot", {}, "caterpillar", "timeout", f"no move within {LIMIT:g}s"),
    "sleeps": ("sleeps.py:SleepsBot", {}, "caterpillar", "timeout", f"no move within {10 * LIMIT:g}s of wall time"),
}
"""Case: zoo bot, its params, the games it plays, the termination and the start of the fault of its forfeits."""


@pytest.mark.parametrize("case", FORFEITS)
def test_a_hostile_bot_forfeits_and_leaves_the_other_games_alone(case, tmp_path, baseline):
    spec, params, games, termination, fault = FORFEITS[case]
    run, rows, manifest = run_tournament(tmp_path, config_text(games, spec, params))
    assert_forfeits(run, rows, termination, fault)
    assert by_game(honest(rows)) == by_game(baseline(games))
    assert manifest["games"] == len(rows)


def test_a_bot_raising_past_the_referee_is_quarantined_in_a_serial_run(tmp_path, caplog, baseline):
    """SystemExit is no Exception: the referee lets it through, the serial backend replays the batch in quarantine."""
    text = config_text("all", "exits.py:ExitsBot", {"how": "system_exit"}, batch_size=12)
    run, rows, _ = run_tournament(tmp_path, text)
    assert "replaying them in quarantine" in caplog.text
    assert_forfeits(run, rows, "crash", "SystemExit: 3", fair_moves=2)
    assert by_game(honest(rows)) == by_game(baseline("all"))
    expected = play_batch(parse_config(text.replace("system_exit", "raise"), base=ROOT), 0, len(rows))
    for row, scores, decisions in zip(rows, expected["scores"], expected["decisions"], strict=True):
        assert (tuple(row["scores"]), row["decisions"]) == (scores, decisions), "scored as if it raised at that move"


CLOCK_LIMIT = 0.1
"""The move time limit of the clock-defeating bots' runs: each of their games costs it plus the grace."""


WORKER_START = 2.0
"""What a new worker process may take to start on a loaded machine (a Python start-up, or a Ray worker's)."""


def assert_stopped_from_outside(how: str, workers: int, tmp_path, baseline) -> None:
    """A bot that defeats the clock: the backstop kills the worker after the limit plus its grace (of CPU time for
    a bot that loops, of the wall-clock backstop for one that sleeps), quarantine ends each such game as the bot's
    `timeout`, and the run completes in bounded time. A loop's backstop is long (10 s), so that a loaded machine
    cannot have its wall time run out before its CPU time."""
    from arena.isolation.clock import BACKSTOP_GRACE

    sleeps = how in ("block", "ignore")
    backstop = 10 if sleeps else 100
    started = time.perf_counter()
    text = config_text("caterpillar", "defeats_clock.py:DefeatsClockBot", {"how": how}, workers=workers,
                       limit=CLOCK_LIMIT, wall_backstop=backstop)
    run, rows, _ = run_tournament(tmp_path, text, workers=workers)
    assert_forfeits(run, rows, "timeout", f"no move within {CLOCK_LIMIT * backstop:g}s of wall time" if sleeps
                    else f"no move within {CLOCK_LIMIT:g}s")
    assert all(r["fault_seat"] is not None for r in hostile(rows))
    if sleeps and workers == 1:  # its stalls counted across the quarantine's children: suspended there after three
        assert [r["fault"] for r in hostile(rows)][3:] == ["suspended after 3 stalls"] * (len(hostile(rows)) - 3)
    assert by_game(honest(rows)) == by_game(baseline("caterpillar"))
    # each hostile game ends once in quarantine, after its worker was killed (twice on Ray: one retry), and each
    # kill costs a new worker process; a run that waited on the bot would never end
    kills = len(hostile(rows)) + 2 * len(rows)
    each = CLOCK_LIMIT * backstop if sleeps else 2 * (CLOCK_LIMIT + BACKSTOP_GRACE)  # a loop: at half a core or more
    assert time.perf_counter() - started < kills * (each + BACKSTOP_GRACE + WORKER_START) + 30


@pytest.mark.parametrize("how", ["block", "ignore", "replace", "switch"])
def test_a_bot_that_defeats_the_clock_is_stopped_from_outside(how, tmp_path, baseline):
    """workers = 1; with Ray workers in tests/test_zoo.py."""
    assert_stopped_from_outside(how, 1, tmp_path, baseline)


def test_a_bots_keyboard_interrupt_is_a_crash_not_a_ctrl_c(tmp_path, baseline):
    """With workers = 1 the bots play in a worker process: the bot's KeyboardInterrupt is its crash, the
    run finishes (once: no --resume needed), and the user's Ctrl-C still stops a run (tested below)."""
    run, rows, _ = run_tournament(tmp_path, config_text("all", "interrupts.py:InterruptsBot"))
    crashes = [r for r in hostile(rows) if r["termination"] == "crash"]
    assert crashes and all(r["fault"].startswith("KeyboardInterrupt") for r in crashes), crashes[0]["fault"]
    assert all(r["players"][r["fault_seat"]] == "hostile" for r in crashes)
    assert by_game(honest(rows)) == by_game(baseline("all"))


def test_trying_to_change_an_observation_fails_harmlessly(tmp_path, baseline):
    """The bot raises (a `crash`) if any attempt went through; none does, so all its games end normally."""
    run, rows, _ = run_tournament(tmp_path, config_text("all", "mutates.py:MutatesBot"))
    assert all(row["fault_seat"] is None for row in rows)
    assert by_game(honest(rows)) == by_game(baseline("all"))


def test_a_crash_in_the_last_game_of_a_batch_leaves_no_clock_running(tmp_path):
    """The hostile bot listed last: the batches end with its crashes, and finishing the run takes longer
    than the move time limit. A clock left running would interrupt it with MoveTimeout."""
    text = config_text("caterpillar", "raises.py:RaisesBot").replace('name = "hostile"', 'name = "zz-hostile"')
    lines = text.splitlines()
    at = lines.index("[[bots]]")
    hostile_entry = lines[at:at + 3]
    lines = lines[:at] + lines[at + 3:]
    lines[lines.index("[run]"):lines.index("[run]")] = hostile_entry
    run, rows, _ = run_tournament(tmp_path, "\n".join(lines) + "\n")
    assert rows[-1]["termination"] == "crash"


def test_the_referee_leaves_no_clock_running_after_a_crash():
    """The crashed move is taken off the clock: its stamp reads no move running, and a wait of four limits
    is not interrupted (a MoveTimeout would raise out of the sleep and fail the test)."""
    from arena.isolation.clock import clock_for

    played = referee.play(CAT, CAT.Rules(), [RANDOM(), zoo("raises.py:RaisesBot")], 1, move_time_limit=0.05)
    assert played.outcome.termination == "crash"
    clock = clock_for(0.05)  # the clock the game was timed by: this thread's, kept between games
    assert clock.stamp[0] == 0 and not clock.overdue()
    time.sleep(0.2)


# What play in process cannot stop.


@pytest.mark.parametrize("spec", ["peeks_gc.py:PeeksGcBot", "peeks_frame.py:PeeksFrameBot"])
def test_in_process_a_bot_can_find_the_hidden_cards(spec, tmp_path, baseline):
    """Not a wish, a limit: the bot sees the other hand (and the stock) and plays on them. The tournament
    still completes and the other games are untouched; only isolation = "process" hides the state."""
    run, rows, _ = run_tournament(tmp_path, config_text("caterpillar", spec))
    assert all(row["fault_seat"] is None for row in hostile(rows))
    assert by_game(honest(rows)) == by_game(baseline("caterpillar"))
    peeker = zoo(spec)
    for seed in range(3):
        type(peeker).sightings.clear()
        played = referee.play(CAT, CAT.Rules(), [RANDOM(), peeker], seed, move_time_limit=LIMIT)
        state, truth = CAT.new_state(CAT.Rules(), seed), set()
        for seat, move in played.state.moves:
            if seat == 1:
                truth.add((tuple(state.caterpillar), tuple(state.hands[0])))
            CAT.apply(state, move)
        assert type(peeker).sightings and set(type(peeker).sightings) <= truth, "it saw the real hidden hand"


def test_in_process_a_bot_can_change_its_score_and_a_replay_finds_it(tmp_path, baseline):
    """The replay plays the bot in a process of its own, where no referee's state is within its reach: its games
    come out otherwise than the run saved them, and the replay says so."""
    run, rows, _ = run_tournament(tmp_path, config_text("caterpillar", "cheats.py:CheatsBot"))
    assert by_game(honest(rows)) == by_game(baseline("caterpillar"))
    for row in hostile(rows):
        with pytest.raises(ResultsError, match=f"game {row['game_index']} replays to .* but the run saved "
                                               f"{re.escape(str(row['scores']))}"):
            replay_game(run, row["game_index"])


def test_a_bot_that_rewrites_its_rules_spoils_only_its_own_games(tmp_path, baseline):
    """object.__setattr__ sets the frozen Give or Take rules' target to 1 in its observation; every game
    has its own copy of the rules, so the honest tables, played after it in the same process, are untouched."""
    _, rows, _ = run_tournament(tmp_path, config_text("give_or_take", "rewrites_rules.py:RewritesRulesBot"))
    assert by_game(honest(rows)) == by_game(baseline("give_or_take"))
    assert all(r["decisions"] <= 12 for r in hostile(rows))  # its own games end after one deal


def test_in_process_a_bot_that_swallows_the_timeout_keeps_control():
    """The move clock interrupts it again and again, but only the bot decides when to return."""
    started = time.perf_counter()
    played = referee.play(CAT, CAT.Rules(), [RANDOM(), zoo("hangs.py:HangsBot", stubborn=0.8)], 1,
                          move_time_limit=LIMIT)
    assert played.outcome.termination == "timeout" and time.perf_counter() - started >= 0.8


def test_the_fault_text_of_a_look_alike_move_is_reproducible():
    played = referee.play(CAT, CAT.Rules(), [zoo("garbage.py:GarbageBot", kind="lookalike"), RANDOM()], 1)
    assert played.outcome.termination == "illegal_move"
    assert not re.search(r"0x[0-9a-f]{4,}", played.fault), played.fault


# Worker death: quarantine.


def test_quarantine_plays_games_exactly_as_play_batch():
    config = load_config(SMALL)
    direct, quarantined = play_batch(config, 30, 70), quarantine_batch(config, 30, 70)
    for columns in (direct, quarantined):
        for name in TIMING_COLUMNS:
            del columns[name]
    assert quarantined == direct


@pytest.mark.parametrize("how, in_reset, fault", [("exit", False, "process died: exit code 3"),
                                                   ("kill", False, "process died: SIGKILL"),
                                                   ("exit", True, "process died: exit code 3")])
def test_a_death_in_quarantine_is_scored_like_a_crash_at_that_decision(how, in_reset, fault):
    """Scores as they stood, the seat at fault last: exactly what the referee records when the bot raises there."""
    def config(how):
        return parse_config(config_text("caterpillar", "exits.py:ExitsBot", {"how": how, "in_reset": in_reset}),
                            base=ROOT)

    total = Schedule(config(how)).total
    died, raised = quarantine_batch(config(how), 0, total), play_batch(config("raise"), 0, total)
    hostile_games = [i for i, players in enumerate(raised["players"]) if "hostile" in players]
    assert [died["fault"][i] for i in hostile_games] == [fault] * len(hostile_games)
    assert [raised["fault"][i] for i in hostile_games] == ["RuntimeError: the zoo bot dies"] * len(hostile_games)
    for columns in (died, raised):
        for name in [*TIMING_COLUMNS, "fault"]:
            del columns[name]
    assert died == raised


@pytest.mark.slow
def test_a_bot_that_ends_its_process_in_a_serial_run_is_quarantined(tmp_path, caplog, baseline):
    """workers = 1 plays in a local worker process, never in the driver: os._exit there costs the worker
    and a replay of its batch in quarantine; the run completes in one go."""
    text = config_text("all", "exits.py:ExitsBot", {"how": "exit"}, batch_size=12)
    run, rows, _ = run_tournament(tmp_path, text)
    assert "replaying them in quarantine" in caplog.text
    assert_forfeits(run, rows, "crash", "process died: exit code 3", fair_moves=2)
    assert by_game(honest(rows)) == by_game(baseline("all"))


@pytest.mark.slow
@pytest.mark.ray
def test_a_bot_that_kills_its_ray_worker_is_quarantined(tmp_path, baseline, local_ray):
    """Ray retries the batch, the worker dies again, the batch is replayed in quarantine: the run completes,
    the bot's games are crash forfeits scored at the fatal decision, the others are intact, and the
    digest does not depend on the batches."""
    games, digests = "ray", []
    for batch_size in (6, 14):  # three batches, two of them fatal; then one batch, fatal
        text = config_text(games, "exits.py:ExitsBot", {"how": "exit"}, workers=local_ray, batch_size=batch_size,
                           honest_only=("give_or_take",))
        run, rows, manifest = run_tournament(tmp_path / str(batch_size), text, workers=local_ray)
        assert manifest["backend"] == "ray-local"
        digests.append(manifest["digest"])
    assert digests[0] == digests[1]
    assert_forfeits(run, rows, "crash", "process died: exit code 3", fair_moves=2)
    raised = parse_config(config_text(games, "exits.py:ExitsBot", {"how": "raise"}, honest_only=("give_or_take",)),
                          base=ROOT)
    expected = play_batch(raised, 0, len(rows))
    assert [tuple(r["scores"]) for r in rows] == expected["scores"]
    assert [tuple(r["ranks"]) for r in rows] == expected["ranks"]
    assert by_game(honest(rows)) == by_game(baseline(games))


# Driver kills and damaged results.


@pytest.mark.slow
def test_sigkills_of_the_driver_at_random_moments_then_resume_give_the_same_results(tmp_path):
    """Each kill lands mid-run, at a random moment after the attempt wrote a part of its own and before the
    run's last (parts of two games, so that the run outlasts the kills); every part on disk is whole, none is
    lost, and --resume finishes the run."""
    expected = uninterrupted_digest(tmp_path)
    total = Schedule(load_config(SMALL)).total
    paced = paced_small(tmp_path)
    out = tmp_path / "killed"
    run = RunDir(out / "small")
    command = ARENA + ["tournament", str(paced), "--out", str(out), "--workers", "1", "--batch-size", "2",
                       "--no-progress"]
    rng, saved = random.Random(20260515), 0
    for attempt in range(3):
        process = subprocess.Popen(command + (["--resume"] if attempt else []), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60  # until the attempt has saved games of its own (counted by the parts'
        # names, which say their games: a resume may also remove a part it cannot use)
        while saved_games(run) == saved and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(rng.uniform(0, 0.4))
        assert process.poll() is None, "the kill lands on a running tournament, not a finished one"
        process.send_signal(signal.SIGKILL)
        process.wait()
        good, bad = scan_parts(run)
        assert not bad, "a part is written whole or not at all"
        now = sum(end - start for start, end, _ in good)
        assert saved < now < total, "the attempt saved parts of its own, and not the last"
        saved = now
    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert digest(load_results(run)) == expected


def uninterrupted_digest(tmp_path: Path) -> str:
    run = RunDir(tmp_path / "uninterrupted" / "small")
    play_missing(load_config(SMALL), run, workers=1)
    return digest(load_results(run))


def paced_small(tmp_path: Path) -> Path:
    """tests/data/small.toml with random-2 pausing 2 ms a move: the same games, but a run long enough (in wall
    time, not CPU) for a kill or a Ctrl-C to land in its middle, where played whole it is over in a second."""
    paced = tmp_path / "small.toml"
    bot = ROOT / "tests" / "zoo" / "paced.py"
    paced.write_text(SMALL.read_text().replace('name = "random-2"\npath = "random"\n',
                                               f'name = "random-2"\npath = "{bot}:PacedBot"\n'))
    assert "PacedBot" in paced.read_text()
    return paced


def saved_games(run: RunDir) -> int:
    """The games in the run's parts, by their names (part-START-END.parquet)."""
    return sum(int(end) - int(start) for start, end in
               (path.stem.split("-")[1:] for path in run.results.glob("part-*-*.parquet")))


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_ctrl_c_stops_a_serial_run_and_resume_finishes_it(tmp_path):
    """The user's Ctrl-C reaches the driver only (the worker has its own session): one line, every finished
    batch kept, no worker left behind, and --resume gives the uninterrupted results."""
    expected = uninterrupted_digest(tmp_path)
    out = tmp_path / "interrupted"
    run = RunDir(out / "small")
    command = ARENA + ["tournament", str(paced_small(tmp_path)), "--out", str(out), "--workers", "1",
                       "--batch-size", "20", "--no-progress"]
    # as from a shell: Ctrl-C not ignored, whatever an earlier test did to this process's SIGINT (a child
    # inherits an ignored signal, and Python then installs no KeyboardInterrupt handler)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not list(run.results.glob("part-*.parquet")) and time.monotonic() < deadline:
        time.sleep(0.05)
    children = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
    assert children, "the run has its local worker"
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2 and "interrupted" in err and "--resume" in err, err
    assert err.count("\n") == 1
    time.sleep(0.2)
    assert not any(alive(int(pid)) for pid in children), "a worker is left"
    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert digest(load_results(run)) == expected


def damage(part: Path, how: str) -> None:
    """Truncates a Parquet part, overwrites bytes in the middle of its data pages, or replaces it by garbage."""
    data = bytearray(part.read_bytes())
    if how == "truncate":
        part.write_bytes(bytes(data[: len(data) // 2]))
    elif how == "garbage":
        part.write_bytes(random.Random(1).randbytes(len(data)))
    else:
        footer = int.from_bytes(data[-8:-4], "little")
        middle = (4 + len(data) - 8 - footer) // 2
        data[middle:middle + 8] = bytes(b ^ 0xFF for b in data[middle:middle + 8])
        part.write_bytes(bytes(data))


def test_damaged_parts_are_refused_on_read_and_replayed_on_resume(tmp_path, caplog):
    config = load_config(SMALL)
    run = RunDir(tmp_path / "small")
    play_missing(config, run, workers=1)
    expected = digest(load_results(run))
    parts = sorted(run.results.glob("part-*.parquet"))
    damaged = {parts[1].name: "truncate", parts[3].name: "middle", parts[5].name: "garbage"}
    for name, how in damaged.items():
        damage(run.results / name, how)
        with pytest.raises(ResultsError) as error:
            load_results(run)
        message = str(error.value)
        assert "\n" not in message and "damaged result part" in message and "--resume" in message
    caplog.clear()
    report = play_missing(config, run, workers=1, resume=True)
    warnings = caplog.text
    assert warnings.count("was damaged") == len(damaged) and "will be replayed" in warnings
    assert sorted(p.name for p in (run.path / "damaged").iterdir()) == sorted(damaged)
    assert report.played_now == sum(end - start for start, end in (map(int, re.findall(r"\d{12}", n))
                                                                   for n in damaged))
    assert digest(load_results(run)) == expected
