"""Tournament runs: identical results whatever the backend, worker count or batch size; nothing
lost or doubled by a SIGKILL and --resume (a real Ray cluster joined by address: tests/test_cluster.py)."""

import dataclasses
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from arena.config import load_config
from arena.results import RunDir, digest, load_results
from arena.tournament.runner import play_missing
from arena.tournament.schedule import Schedule

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
@pytest.mark.ray
def test_ray_on_two_workers_gives_the_serial_results(tmp_path, serial_digest, local_ray):
    found, report = run_small(tmp_path, "ray", workers=local_ray, batch_size=25)
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
