"""Tournament runs: identical results whatever the backend, worker count or batch size; nothing
lost or doubled by a SIGKILL and --resume; a real Ray cluster joined by address."""

import dataclasses
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from arena.config import load_config
from arena.results import RunDir, digest, load_results
from arena.runner import play_missing
from arena.schedule import Schedule

SMALL = Path(__file__).parent / "data" / "small.toml"
ARENA = [sys.executable, "-m", "arena.cli"]


def run_small(tmp_path, name, **kwargs):
    config = load_config(SMALL)
    batch_size = kwargs.pop("batch_size", None)
    if batch_size:
        config = dataclasses.replace(config, run=dataclasses.replace(config.run, batch_size=batch_size))
    run = RunDir(tmp_path / name)
    report = play_missing(config, run, **kwargs)
    table = load_results(run)
    assert table.num_rows == report.total == Schedule(config).total
    assert table.column("game_index").to_pylist() == list(range(report.total))
    return digest(table), report


@pytest.fixture(scope="module")
def serial_digest(tmp_path_factory):
    return run_small(tmp_path_factory.mktemp("serial"), "serial", workers=1)[0]


def test_batch_size_does_not_change_results(tmp_path, serial_digest):
    assert run_small(tmp_path, "b7", workers=1, batch_size=7)[0] == serial_digest


@pytest.mark.slow
def test_ray_on_two_workers_gives_the_serial_results(tmp_path, serial_digest):
    found, report = run_small(tmp_path, "ray", workers=2, batch_size=25)
    assert report.backend == "ray-local" and found == serial_digest


@pytest.mark.slow
def test_sigkill_then_resume_loses_and_doubles_nothing(tmp_path, serial_digest):
    out = tmp_path / "reports"
    command = ARENA + ["tournament", str(SMALL), "--out", str(out), "--workers", "1", "--batch-size", "5",
                       "--no-progress"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = out / "small" / "results"
    deadline = time.time() + 60
    while time.time() < deadline and len(list(results.glob("part-*.parquet"))) < 3:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    parts = list(results.glob("part-*.parquet"))
    assert 3 <= len(parts) < Schedule(load_config(SMALL)).total / 5, "killed part-way"
    for part in parts:
        pq.read_table(part)  # every saved part is whole
    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert digest(load_results(RunDir(out / "small"))) == serial_digest


@contextmanager
def ray_cluster(port: int, env: dict):
    """A real one-node Ray cluster started with `ray start --head`, in a session of its own: killing that
    session's processes stops it and its workers, where `ray stop` would stop every Ray instance on the
    machine (those of tests running beside this one too)."""
    ray = str(Path(sys.executable).parent / "ray")
    head = subprocess.Popen([ray, "start", "--head", "--block", f"--port={port}", "--node-ip-address=127.0.0.1",
                             "--num-cpus=2", "--disable-usage-stats", "--include-dashboard=false"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        printed = []
        for line in head.stdout:  # `ray start` says so once the cluster takes clients, then blocks
            printed.append(line)
            if "Ray runtime started" in line:
                break
        else:
            pytest.fail("ray start --head failed:\n" + "".join(printed))
        threading.Thread(target=head.stdout.read, daemon=True).start()  # never blocked on a full pipe
        yield
    finally:
        os.killpg(head.pid, signal.SIGKILL)
        head.wait()
        # as `ray stop` does: a plain ray.init() would otherwise try to join the dead cluster
        current = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
        if current.exists() and current.read_text().strip().endswith(f":{port}"):
            current.unlink(missing_ok=True)


@pytest.mark.slow
def test_a_real_ray_cluster_by_address(tmp_path, serial_digest):
    port = 46379
    env = {**os.environ, "RAY_AUTH_MODE": "disabled"}
    with ray_cluster(port, env):
        command = ARENA + ["tournament", str(SMALL), "--out", str(tmp_path), "--address", f"127.0.0.1:{port}",
                           "--batch-size", "30", "--no-progress"]
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        manifest = (tmp_path / "small" / "manifest.json").read_text()
        assert '"ray-cluster"' in manifest
        assert digest(load_results(RunDir(tmp_path / "small"))) == serial_digest
        # a bot that blocks the clock's signal: the sentinel of each cluster worker stops it
        root = Path(__file__).resolve().parent.parent
        hostile = tmp_path / "hostile.toml"
        hostile.write_text(f'name = "hostile"\nseed = 3\n[[games]]\ngame = "caterpillar"\ndeals = 1\n[[bots]]\n'
                           f'name = "blocks"\npath = "{root}/tests/zoo/defeats_clock.py:DefeatsClockBot"\n'
                           '[[bots]]\nname = "random"\n[run]\nmove_time_limit = 0.1\n')
        command = ARENA + ["tournament", str(hostile), "--out", str(tmp_path), "--address", f"127.0.0.1:{port}",
                           "--no-progress"]
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        rows = load_results(RunDir(tmp_path / "hostile")).to_pylist()
        assert len(rows) == 2 and all(r["termination"] == "timeout" for r in rows)
        assert all(r["players"][r["fault_seat"]] == "blocks" for r in rows)
        # without an address a run starts its own local instance, not joining the cluster `ray start` left
        command = ARENA + ["tournament", str(SMALL), "--out", str(tmp_path / "local"), "--workers", "2",
                           "--no-progress"]
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        assert '"ray-local"' in (tmp_path / "local" / "small" / "manifest.json").read_text()
        assert digest(load_results(RunDir(tmp_path / "local" / "small"))) == serial_digest
