"""isolation = "sandbox": the attack zoo of tests/zoo/escapes.py in real tournaments, with workers = 1 and with
Ray workers, and what the same attacks get in the other modes.

Four sandboxed attackers play beside the honest bundled bots (greedy itself sandboxed): `reader` reads a
secret planted outside its folder and other bots' source, writes into the run directory and the home
directory, connects to a TCP server of the test on 127.0.0.1, lists /proc and signals its parent; `hog`
forks until refused, allocates 8 GB, writes a 1 GB file and leaves a process behind; `caller` makes a user
namespace, mounts and attaches with ptrace, through ctypes (each must be refused with EPERM); `closer` closes its
stdout. A breakout would be the attacker's crash with the fault `escaped: ...` (tests/zoo/escapes.py). In the
sandbox none breaks out: `reader`, `hog` and `caller` play every game to its end, `closer` forfeits each of its games as
its crash; the run completes; the honest games equal those of a run without the attackers; no watched file
changes, the server is never reached, no process is left behind, and the secret is in no output.

Outside the sandbox (isolation = "none" and "process") the same attacks get through: the zoo is no
straw man. ARENA_REQUIRE_SANDBOX=1 (CI) turns a skip for want of a sandbox into a failure.
"""

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_hostile import by_game

from arena.api import finish_and_report
from arena.bots import load_bot_class
from arena.config import parse_config
from arena.games import get_game
from arena.isolation import close_all, process_bot_class, python_command, sandbox
from arena.results import RunDir, load_results
from arena.tournament import referee
from arena.tournament.runner import LocalWorker, play_missing

ROOT = Path(__file__).resolve().parent.parent
ZOO = ROOT / "tests" / "zoo"
ESCAPES = f"{ZOO / 'escapes.py'}:EscapesBot"
LIMIT = 5.0
"""The move time limit: an attack is the bot's own slow first move (forks, a 64 MiB file), not the clock's subject."""
HONEST = {"random", "greedy"}
ATTACKERS = {"reader": "secret,source,write,connect,proc", "hog": "fork,memory,big_file,orphan",
             "caller": "unshare,mount,ptrace", "closer": "stdout"}
CAT = get_game("caterpillar")


def _unavailable() -> str | None:
    try:
        sandbox.check()
    except sandbox.SandboxUnavailable as error:
        return str(error)
    return None


needs_sandbox = pytest.mark.needs("sandbox", _unavailable())


def toml(value) -> str:
    """A TOML value of strings, numbers and arrays (their JSON is TOML)."""
    return json.dumps(value)


def zoo_config(attackers: dict[str, dict], workers: int = 1) -> str:
    """A Caterpillar round robin of random, greedy (sandboxed) and `attackers` (name -> params of EscapesBot);
    `closer`, whose every game costs a new process, plays one table of Give or Take against random."""
    players = ["random", "greedy", *(name for name in attackers if name != "closer")]
    lines = ['name = "zoo"', "seed = 20260515",
             "[[games]]", 'game = "caterpillar"', "deals = 1", f"bots = {toml(players)}"]
    if "closer" in attackers:
        lines += ["[[games]]", 'game = "give_or_take"', "deals = 1", 'bots = ["random", "closer"]']
    for name, params in attackers.items():
        lines += ["[[bots]]", f'name = "{name}"', f'path = "{ESCAPES}"', 'isolation = "sandbox"',
                  "params = { " + ", ".join(f"{k} = {toml(v)}" for k, v in params.items()) + " }"]
    lines += ["[[bots]]", 'name = "random"', "[[bots]]", 'name = "greedy"', 'isolation = "sandbox"',
              "[run]", f"workers = {workers}", "batch_size = 4", f"move_time_limit = {LIMIT}"]
    return "\n".join(lines) + "\n"


def honest(rows):
    return [r for r in rows if set(r["players"]) <= HONEST]


def play_zoo(directory: Path, text: str, workers: int, finish: bool = True):
    """Plays a tournament (and finishes it: ratings, report with replays, manifest); returns the run and its rows."""
    config = parse_config(text, base=ROOT)
    run = RunDir(directory / config.name)
    report = play_missing(config, run, workers=workers)
    if finish:
        finish_and_report(config, run, report)
    rows = load_results(run).to_pylist()
    assert [row["game_index"] for row in rows] == list(range(report.total)), "every game index once"
    return run, rows


@pytest.fixture(scope="module")
def server():
    """A TCP server on 127.0.0.1 that records what reaches it."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    reached: list[bytes] = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            with connection:
                connection.settimeout(1.0)
                try:
                    reached.append(connection.recv(100))
                except OSError:
                    reached.append(b"")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield SimpleNamespace(port=listener.getsockname()[1], reached=reached)
    stop.set()
    thread.join()
    listener.close()


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A secret outside any bot's folder (and a unique marker for processes left behind)."""
    folder = tmp_path_factory.mktemp("planted")
    secret = secrets.token_hex(8)  # short enough to stand whole in a fault text (80 characters at most)
    (folder / "secret.txt").write_text(secret)
    return SimpleNamespace(folder=folder, file=folder / "secret.txt", secret=secret,
                           marker=f"zoo-orphan-{secrets.token_hex(4)}")


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """The rows of the run without the attackers."""
    return play_zoo(tmp_path_factory.mktemp("clean"), zoo_config({}), 1, finish=False)[1]


def attacker_params(planted, server, run_dir: Path) -> dict[str, dict]:
    # a bot beside it; one elsewhere in the project (the bundled bots, arena's own, are bound for every bot to read)
    sources = [str(ZOO / "raises.py"), str(ROOT / "examples" / "random_bot.py")]
    common = {"secret": str(planted.file), "sources": sources, "folders": [str(run_dir), str(Path.home())],
              "port": server.port, "marker": planted.marker}
    return {name: {"how": how, **common} for name, how in ATTACKERS.items()}


def watched_files(planted) -> dict[str, tuple[int, int]]:
    """Size and mtime of the planted files and of the bots' sources: nothing may change them."""
    files = [*planted.folder.iterdir(), *(ROOT / "bots").glob("*.py"), *ZOO.glob("*.py")]
    return {str(f): (f.stat().st_size, f.stat().st_mtime_ns) for f in files}


def leftovers(marker: str) -> list[int]:
    """Processes whose command line holds `marker` (the orphans of the `orphan` attack)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def leftovers_soon(marker: str) -> list[int]:
    """The orphans of the `orphan` attack, waited for a moment: on a busy machine the new process was seen
    running before its command line (with the marker) could be read."""
    deadline = time.monotonic() + 5
    while not (found := leftovers(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def no_leftovers_soon(marker: str) -> list[int]:
    deadline = time.monotonic() + 10
    while (found := leftovers(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def end_idle_worker() -> None:
    """Kills the local worker that a run keeps for the next (with it go its bot processes, by PR_SET_PDEATHSIG)."""
    idle, LocalWorker._idle = LocalWorker._idle, None
    if idle is not None:
        idle.kill()
        idle.wait()


@needs_sandbox
@pytest.mark.ends_ray
def test_the_attack_zoo_is_denied_in_the_sandbox(workers, tmp_path, clean, planted, server, capfd):
    before = watched_files(planted)
    home_before = set(Path.home().iterdir())
    reached = len(server.reached)  # the tests outside the sandbox may have reached it before, in this worker
    run_dir = tmp_path / "zoo"
    started = time.perf_counter()
    # the report (its replays run the bots again) is written once: with workers = 1
    run, rows = play_zoo(tmp_path, zoo_config(attacker_params(planted, server, run_dir), workers), workers,
                         finish=workers == 1)
    assert Path(run.path) == run_dir
    assert not [r["fault"] for r in rows if "escaped" in (r["fault"] or "")]
    for row in rows:
        if row["fault_seat"] is None:
            assert "closer" not in row["players"], row
        else:  # every forfeit is closer's: its process exited when it wrote an answer to the closed stdout
            assert row["players"][row["fault_seat"]] == "closer", row
            assert (row["termination"], row["fault"]) == ("crash", "BotProcessError: bot process exited with status 1")
    assert by_game(honest(rows)) == by_game(clean)
    assert watched_files(planted) == before
    assert not list(run_dir.rglob("escaped-*")) and not [p for p in set(Path.home().iterdir()) - home_before
                                                         if p.name.startswith("escaped-")]
    assert server.reached[reached:] == []
    # the bots live as long as their worker (kept for the next run, or Ray's): end it, and no attacker outlives it
    if workers == 1:
        end_idle_worker()
    else:
        import ray

        ray.shutdown()  # its workers end, and with them their bots' sandboxes
    assert no_leftovers_soon(planted.marker) == []
    output = capfd.readouterr()
    texts = [json.dumps(rows, default=str), output.out, output.err]
    texts += [f.read_bytes().decode(errors="replace") for f in run_dir.rglob("*") if f.is_file()]
    assert not [t for t in texts if planted.secret in t]
    print(f"zoo run with workers = {workers}: {time.perf_counter() - started:.1f}s")


OUTSIDE = ["secret", "source", "write", "connect", "proc", "orphan"]
"""The attacks that get through outside the sandbox (the others would harm the machine: not tried there)."""


@pytest.mark.parametrize("mode", ["none", "process"])
@pytest.mark.parametrize("attack", OUTSIDE)
def test_outside_the_sandbox_the_attacks_get_through(attack, mode, tmp_path, planted, server):
    """One game each (the bot's process ended after it, for `orphan`); the home directory is not written to here:
    a folder of the test stands for it."""
    reached = len(server.reached)
    params = {"how": attack, "secret": str(planted.file), "sources": [str(ZOO / "raises.py")],
              "folders": [str(tmp_path)], "port": server.port, "marker": f"{planted.marker}-{mode}"}
    if mode == "none":
        bot_class = load_bot_class(ESCAPES)
        bot_class.attacked.clear()
        bot = bot_class(**params)
    else:
        bot = process_bot_class(python_command(ESCAPES), params=params, move_time_limit=LIMIT)(**params)
    try:
        played = referee.play(CAT, CAT.Rules(), [bot, load_bot_class("random")()], 1, move_time_limit=LIMIT)
        if attack == "orphan":  # it outlives the game, and in process the bot's process too
            close_all()
            assert played.fault is None and leftovers_soon(params["marker"])
        else:
            assert f"RuntimeError: escaped: {attack}: " in played.fault, played.fault
    finally:
        for pid in leftovers(params["marker"]):
            os.kill(pid, signal.SIGKILL)
    if attack == "secret":
        assert planted.secret in played.fault
    if attack == "write":
        assert list(tmp_path.glob("escaped-*"))
    if attack == "connect":  # the server's thread records the connection on its own time: wait for it a little
        deadline = time.monotonic() + 10
        while len(server.reached) < reached + 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(server.reached) == reached + 1


def test_without_a_sandbox_a_sandboxed_bot_is_refused_with_one_line(tmp_path):
    """No bwrap to be found (ARENA_BWRAP names a missing file): the config is refused, exit 2, one line; and
    so is a bot given by a command, sandboxed by default. Nothing runs unsandboxed."""
    for bot in ('path = "random"\nisolation = "sandbox"', f'command = "{ROOT / "examples" / "first_legal.sh"}"'):
        config = tmp_path / "t.toml"
        config.write_text('name = "t"\nseed = 1\n[[games]]\ngame = "caterpillar"\ndeals = 1\n[[bots]]\n'
                          f'name = "random"\n[[bots]]\nname = "other"\n{bot}\n[run]\nworkers = 1\n')
        env = {**os.environ, sandbox.BWRAP_ENV: str(tmp_path / "no-bwrap")}
        done = subprocess.run([sys.executable, "-m", "arena.cli", "tournament", str(config), "--out",
                               str(tmp_path / "out"), "--no-progress"], env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and 'bots[1].isolation = "sandbox": ARENA_BWRAP=' in done.stderr
        assert not (tmp_path / "out" / "t" / "results").exists()


@pytest.mark.skipif(subprocess.run(["unshare", "--user", "--map-root-user", "true"], capture_output=True).returncode,
                    reason="cannot make a user namespace to forbid more of them in")
def test_where_user_namespaces_are_forbidden_the_sandbox_is_refused():
    """In a user namespace whose limit of nested user namespaces is 0, bwrap cannot make its own: the kernel
    refuses, and the sandbox is refused with why and how to allow it."""
    script = ("from arena.isolation import sandbox\ntry:\n    sandbox.check()\n"
              "except sandbox.SandboxUnavailable as error:\n"
              "    print(error)\n")
    done = subprocess.run(["unshare", "--user", "--map-root-user", "sh", "-c",
                           'echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" -c "$1"', sys.executable,
                           script], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('isolation = "sandbox": cannot make namespaces here (')
    assert "user.max_user_namespaces" in done.stdout and done.stdout.count("\n") == 1


@needs_sandbox
def test_a_sandboxed_bot_sees_only_its_own_file_and_the_runtime(tmp_path):
    """What the attacks above rest on, seen from inside: the root holds the system, the runtime, arena and the
    bot's file; the environment is the sandbox's own; the process is PID 2 under the sandbox's init."""
    bot = tmp_path / "bot.py"
    bot.write_text("x = 1\n")
    script = ("import json, os, sys; print(json.dumps([sorted(os.listdir('/')), sorted(os.listdir('/tmp')), "
              f"dict(os.environ), os.getpid(), os.path.exists(sys.argv[1]), os.path.exists({str(ROOT / 'bots')!r})]))")
    line = sandbox.wrap([sys.executable, "-c", script, str(bot)])  # an argument naming a file: the bot's own
    done = subprocess.run(line, capture_output=True, text=True, timeout=60, env={**os.environ, "HOST_ONLY": "1"})
    top, tmp, env, pid, sees_bot, sees_other = json.loads(done.stdout)
    assert set(top) <= {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "dev", "proc", "tmp",
                        *{Path(p).parts[1] for p in (sys.prefix, sys.base_prefix, str(ROOT))}}
    # only the ways to the bot's own file, and to the runtime and arena where they live under /tmp
    ways = [Path(p).parts for p in (str(tmp_path), sys.prefix, str(ROOT))]
    assert set(tmp) <= {parts[2] for parts in ways if parts[1] == "tmp" and len(parts) > 2}
    assert set(env) <= {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONDONTWRITEBYTECODE", "PWD", "LC_CTYPE"}  # PWD: bwrap's
    assert env["HOME"] == "/tmp"
    assert (pid, sees_bot, sees_other) == (2, True, False)


BURNS = '''
import time

from arena.bots import Bot


class Burns(Bot):
    """Burns `seconds` of CPU at the first move of each game."""

    name = "burns"
    defaults = {"seconds": 0.5}

    def act(self, observation):
        if not getattr(self, "burnt", False):
            self.burnt = True
            end = time.process_time() + self.params["seconds"]
            while time.process_time() < end:
                pass
        return self.rng.choice(observation.legal_moves)
'''


@needs_sandbox
def test_the_cpu_limit_of_a_sandboxed_bot_is_per_game(tmp_path):
    """cpu_seconds = 1 holds game by game: three games of 0.45 s each play on (a limit over the process's life
    would end the second), an endless one is cut. (Where the limit cannot be raised from outside, as for root
    without CAP_SYS_RESOURCE, each game has a fresh process.)"""
    path = tmp_path / "burns.py"
    path.write_text(BURNS)
    random_bot = load_bot_class("random")
    steady = process_bot_class(python_command(f"{path}:Burns"), params={"seconds": 0.45}, cpu_seconds=1,
                               sandboxed=True)
    for seed in range(3):
        played = referee.play(CAT, CAT.Rules(), [steady(seconds=0.45), random_bot()], seed)
        assert played.outcome.termination == "normal", played.fault
    endless = process_bot_class(python_command(f"{path}:Burns"), params={"seconds": 1e9}, cpu_seconds=1,
                                sandboxed=True)
    played = referee.play(CAT, CAT.Rules(), [endless(seconds=1e9), random_bot()], 1)
    assert played.outcome.termination == "crash" and "killed by SIGXCPU (CPU limit)" in played.fault, played.fault
