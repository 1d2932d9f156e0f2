"""The Python API: arena.run from a path, TOML text or a dict gives the same run as `arena tournament`;
arena.play gives the transcript of `arena play --json`."""

import json
import subprocess
import sys

import pandas as pd
import pytest

import arena
from arena.api import toml_text
from arena.bots import BotError
from arena.config import ConfigError, parse_config

CONFIG = {
    "name": "api",
    "seed": 11,
    "games": [{"game": "caterpillar", "deals": 12}, {"game": "go_for_it", "deals": 4, "rules": {"players": 3}}],
    "bots": [{"name": "random"}, {"name": "greedy"}, {"name": "heuristic"}],
    "run": {"workers": 1, "batch_size": 10},
}


def test_toml_text_reads_back_as_the_same_config():
    data = {**CONFIG, "run": {"workers": 1, "until": "sprt",
                              "sprt": {"bots": ["random", "greedy"], "elo0": 0, "elo1": 5.5}},
            "games": [{"game": "go_for_it", "deals": 4, "rules": {"players": 3, "jokers": True}}]}
    text = toml_text(data)
    assert parse_config(text).games[0].rules == {"players": 3, "jokers": True}
    assert parse_config(text).run.sprt.elo1 == 5.5
    with pytest.raises(ConfigError, match="not None"):
        toml_text({"name": None})


@pytest.mark.slow
def test_run_from_a_dict_text_and_path_gives_frames_and_the_same_digest(tmp_path):
    run = arena.run(CONFIG, out=tmp_path / "dict")
    assert isinstance(run.ratings, pd.DataFrame) and isinstance(run.results, pd.DataFrame)
    assert len(run.results) == run.manifest["games"] == 3 * 12 * 2 + 4 * 3  # 3 pairs x 2 seats; 3 rotations
    assert list(run.results["game_index"]) == list(range(len(run.results)))
    assert set(run.ratings["variant"]) == {"caterpillar", "go_for_it:players=3"}
    assert {"rank", "bot", "mu", "mu_lo", "mu_hi", "win_rate_lo"} <= set(run.ratings.columns)
    assert run.report_path.is_file() and run.report_path.parent == run.path
    path = tmp_path / "api.toml"
    path.write_text(toml_text(CONFIG))
    by_text = arena.run(path.read_text(), out=tmp_path / "text")
    calls = []
    by_path = arena.run(path, out=tmp_path / "path", progress=lambda done, most, note: calls.append((done, most)))
    assert calls[-1] == (len(run.results), len(run.results))  # the progress of every game, as the command's bar
    with pytest.raises(TypeError, match="progress is a function"):  # a bar is the command line's, not the API's
        arena.run(path, out=tmp_path / "bar", progress=True)
    assert run.manifest["digest"] == by_text.manifest["digest"] == by_path.manifest["digest"]
    pd.testing.assert_frame_equal(run.ratings, arena.open_run(run.path).ratings)
    with pytest.raises(ConfigError, match="already holds a run"):
        arena.run(CONFIG, out=tmp_path / "dict")
    assert arena.run(CONFIG, out=tmp_path / "dict", overwrite=True).manifest["digest"] == run.manifest["digest"]


def test_play_returns_the_transcript_of_arena_play_json():
    data = arena.play("go_for_it", ["random", "greedy", "heuristic"], seed=3, rules={"jokers": True})
    printed = subprocess.run([sys.executable, "-m", "arena.cli", "play", "go_for_it", "random", "greedy", "heuristic",
                              "--seed", "3", "--rule", "jokers=true", "--json"],
                             capture_output=True, text=True, check=True).stdout
    assert data == json.loads(printed)
    assert data["rules"]["players"] == 3 and data["players"] == ["random", "greedy", "heuristic"]


def test_play_takes_bot_instances_and_refuses_a_wrong_table():
    from arena.bots import load_bot_class

    data = arena.play("caterpillar", [load_bot_class("greedy")(), "random"], seed=5)
    assert data["players"] == ["greedy", "random"] and data["termination"] in ("normal", "court_short")
    with pytest.raises(BotError, match="needs 2 bots, got 3"):
        arena.play("caterpillar", ["random"] * 3)
