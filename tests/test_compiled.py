"""The games compiled with mypyc (arena/games/compiled.py) play the very games their source plays, and a
compiled module never runs in place of a source that has changed since it was built.

`make` compiles the games; CI sets ARENA_REQUIRE_COMPILED=1 so that a failed build fails here rather than
passing interpreted. Elsewhere these tests skip where the games are not compiled."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import GAME_IDS, get_game
from arena.games.compiled import SUFFIX, changed, compiled

ROOT = Path(__file__).parent.parent
BUILT = compiled(GAME_IDS)
needs_build = pytest.mark.needs(
    "compiled", "the games are not compiled here (make compiles them)" if BUILT != list(GAME_IDS) else None)


def python(code: str, cwd: Path = ROOT, **environ: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd), **environ}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


FILES = "from arena.games import GAME_IDS, get_game\nprint(*(get_game(g).__file__ for g in GAME_IDS))"


@needs_build
def test_every_game_runs_compiled():
    assert BUILT == list(GAME_IDS), "make did not compile every game (is there a C compiler?)"
    assert changed(GAME_IDS) == []
    assert all(get_game(game).__file__.endswith(SUFFIX) for game in GAME_IDS)


@needs_build
def test_interpreted_on_request_plays_the_golden_games():
    """ARENA_INTERPRETED=1 runs the games from source, and a third of the golden games, spread over every game
    and variant, replay there too (all of them run compiled in the suite's own processes)."""
    files = python(FILES, ARENA_INTERPRETED="1").stdout.split()
    assert len(files) == len(GAME_IDS) and all(file.endswith(".py") for file in files)
    third = [f"tests/test_golden.py::test_games_replay_bit_for_bit[{number}]" for number in range(0, 280, 30)]
    golden = subprocess.run([sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", *third],
                            cwd=ROOT, env={**os.environ, "ARENA_INTERPRETED": "1"},
                            capture_output=True, text=True, timeout=300)
    assert golden.returncode == 0 and f"{len(third)} passed" in golden.stdout, golden.stdout[-2000:]


@needs_build
def test_a_game_changed_since_its_build_runs_from_source(tmp_path):
    """A copy of arena in which one game's source is edited after the build: that game runs from its source,
    with a warning that says so; the others stay compiled."""
    shutil.copytree(ROOT / "arena", tmp_path / "arena", ignore=shutil.ignore_patterns("__pycache__"))
    edited = tmp_path / "arena" / "games" / "go_for_it" / "rules.py"
    edited.write_text(edited.read_text() + "\nEDITED = True\n")
    run = python(FILES + "\nimport arena.games.go_for_it.rules as g\nprint(g.EDITED)", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    files, edited_flag = run.stdout.splitlines()
    assert edited_flag == "True"
    for game, file in zip(GAME_IDS, files.split(), strict=True):
        assert file.endswith(".py" if game == "go_for_it" else SUFFIX), (game, file)
    assert "go_for_it/rules.py has changed since it was compiled: it runs interpreted until `make`" in run.stderr
