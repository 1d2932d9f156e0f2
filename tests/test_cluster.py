"""A real Ray cluster on this machine, joined by address: a bot that defeats the clock is stopped on its workers, a
run without an address starts a local instance of its own beside it, and a run there that loses a node mid-run
finishes with the serial (workers = 1) results.

Two nodes (`ray start --head --num-cpus 1`, then `ray start --address ... --num-cpus 1`), each in a session of
its own, so that killing a session stops exactly that node (`ray stop` would stop every Ray instance on the
machine, those of tests running beside this one too). One test, one cluster: starting one costs seconds.
Once some batches of the last run are saved, the second node's raylet is SIGKILLed; its batches are retried
on the head (or replayed in quarantine), and the digest equals the local (workers = 1) run's.
"""

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.config import load_config, parse_config
from arena.results import RunDir, digest, load_results
from arena.tournament.runner import play_missing

PORT = 46391
RAY = str(Path(sys.executable).parent / "ray")
ARENA = [sys.executable, "-m", "arena.cli"]
ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "tests" / "data" / "small.toml"
CONFIG = """name = "lost-node"
seed = 7
[[games]]
game = "caterpillar"
deals = 1500
[[bots]]
name = "random"
[[bots]]
name = "greedy"
[run]
batch_size = 60
"""


def start_node(arguments: list[str], env: dict) -> subprocess.Popen:
    """`ray start ... --block` in a session of its own, once it says the node runs."""
    node = subprocess.Popen([RAY, "start", "--block", "--node-ip-address=127.0.0.1", "--num-cpus=1",
                             "--disable-usage-stats", *arguments], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    printed = []
    for line in node.stdout:
        printed.append(line)
        if "Ray runtime started" in line:
            threading.Thread(target=node.stdout.read, daemon=True).start()  # never blocked on a full pipe
            return node
    os.killpg(node.pid, signal.SIGKILL)
    node.wait()
    pytest.fail("ray start failed:\n" + "".join(printed))


def in_session(session: int, word: str) -> list[int]:
    """The processes of `session` whose command line holds `word`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            sid = int((entry / "stat").read_text().rpartition(")")[2].split()[3])
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        if sid == session and word in command:
            found.append(int(entry.name))
    return found


@contextmanager
def two_node_cluster(env: dict):
    nodes = []
    try:
        nodes.append(start_node(["--head", f"--port={PORT}", "--include-dashboard=false"], env))
        nodes.append(start_node([f"--address=127.0.0.1:{PORT}"], env))
        yield nodes[1]
    finally:
        for node in nodes:
            try:
                os.killpg(node.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            node.wait()
        current = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"  # as `ray stop` does
        if current.exists() and current.read_text().strip().endswith(f":{PORT}"):
            current.unlink(missing_ok=True)


def arena(*args: str, env: dict) -> subprocess.CompletedProcess:
    result = subprocess.run(ARENA + list(args) + ["--no-progress"], env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result


def local_digest(config, directory: Path) -> str:
    run = RunDir(directory / config.name)
    play_missing(config, run, workers=1)
    return digest(load_results(run))


@pytest.mark.slow
def test_a_real_two_node_cluster_by_address_and_a_node_lost_mid_run(tmp_path):
    config_path = tmp_path / "lost-node.toml"
    config_path.write_text(CONFIG)
    serial, lost_node = (local_digest(config, tmp_path / "local") for config in (load_config(SMALL),
                                                                                  parse_config(CONFIG)))
    env = {**os.environ, "RAY_AUTH_MODE": "disabled"}
    address = f"127.0.0.1:{PORT}"
    out = tmp_path / "cluster"
    with two_node_cluster(env) as second:
        # a bot that blocks the clock's signal: the sentinel of each cluster worker stops it
        hostile = tmp_path / "hostile.toml"
        hostile.write_text(f'name = "hostile"\nseed = 3\n[[games]]\ngame = "caterpillar"\ndeals = 1\n[[bots]]\n'
                           f'name = "blocks"\npath = "{ROOT}/tests/zoo/defeats_clock.py:DefeatsClockBot"\n'
                           '[[bots]]\nname = "random"\n[run]\nmove_time_limit = 0.1\n')
        arena("tournament", str(hostile), "--out", str(out), "--address", address, env=env)
        rows = load_results(RunDir(out / "hostile")).to_pylist()
        assert len(rows) == 2 and all(r["termination"] == "timeout" for r in rows)
        assert all(r["players"][r["fault_seat"]] == "blocks" for r in rows)

        # without an address a run starts its own local instance, not joining the cluster `ray start` left
        arena("tournament", str(SMALL), "--out", str(tmp_path / "own"), "--workers", "2", env=env)
        assert '"ray-local"' in (tmp_path / "own" / "small" / "manifest.json").read_text()
        assert digest(load_results(RunDir(tmp_path / "own" / "small"))) == serial

        started = time.monotonic()
        run = subprocess.Popen(ARENA + ["tournament", str(config_path), "--out", str(out), "--address", address,
                                        "--no-progress"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            results = out / "lost-node" / "results"
            while not list(results.glob("part-*.parquet")) and run.poll() is None and time.monotonic() - started < 60:
                time.sleep(0.01)
            raylets = in_session(second.pid, "raylet")
            before = len(list(results.glob("part-*.parquet")))
            assert raylets and before > 0 and run.poll() is None, (
                f"the run started on a two-node cluster: {raylets}, {before} parts, {run.poll()}")
            for pid in raylets:
                os.kill(pid, signal.SIGKILL)
            _, err = run.communicate(timeout=60)
        finally:
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL)
                run.wait()
    assert run.returncode == 0, err
    total = len(list(results.glob("part-*.parquet")))
    assert before < total, f"the kill landed mid-run: {before} of {total} batches were saved before it"
    assert '"ray-cluster"' in (out / "lost-node" / "manifest.json").read_text()
    assert digest(load_results(RunDir(out / "lost-node"))) == lost_node
