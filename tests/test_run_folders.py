"""A run directory stands on its own: `arena reproduce` and `arena replay` work from any folder, and its manifest
pins every bot's code by hash, so a bot edited since the run is named before anything is played."""

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots.sources import recorded_spec
from arena.cli import app

runner = CliRunner()
BOT = '''from arena.bots import Bot


class B(Bot):
    name = "b"

    def act(self, observation):
        return observation.legal_moves[0]
'''
CONFIG = '''name = "here"
seed = 3
[[games]]
game = "caterpillar"
deals = 2
[[bots]]
name = "random"
[[bots]]
name = "b"
path = "my/b.py:B"
[run]
workers = 1
'''


@pytest.fixture
def run_in_x(tmp_path, monkeypatch):
    """A run made in folder x/ of a config naming its bot by a path relative to x/; the test then stands in y/."""
    x, y = tmp_path / "x", tmp_path / "y"
    (x / "my").mkdir(parents=True)
    y.mkdir()
    (x / "my" / "b.py").write_text(BOT)
    (x / "t.toml").write_text(CONFIG)
    monkeypatch.chdir(x)
    made = runner.invoke(app, ["tournament", "t.toml", "--no-progress"])
    assert made.exit_code == 0, made.output
    monkeypatch.chdir(y)
    return x


def test_reproduce_and_replay_work_from_another_folder(run_in_x):
    run = str(run_in_x / "reports" / "here")
    reproduced = runner.invoke(app, ["reproduce", run])
    assert reproduced.exit_code == 0, reproduced.output
    assert "reproduced: identical results" in reproduced.output
    replayed = runner.invoke(app, ["replay", run, "1", "--json"])
    assert replayed.exit_code == 0, replayed.output
    assert json.loads(replayed.stdout)["players"] in (["random", "b"], ["b", "random"])


def test_a_run_resumes_from_another_folder(run_in_x):
    resumed = runner.invoke(app, ["tournament", str(run_in_x / "t.toml"), "--resume", "--no-progress",
                                  "--out", str(run_in_x / "reports")])
    assert resumed.exit_code == 0, resumed.output
    assert "(0 played now" in resumed.output


def test_a_bot_edited_since_the_run_is_named_with_both_hashes(run_in_x):
    """The run plays its own copy of the bot's code, and says the source changed; `--from-source` plays the source
    and refuses, naming the bot, before anything is played."""
    bot = run_in_x / "my" / "b.py"
    then = hashlib.sha256(bot.read_bytes()).hexdigest()
    bot.write_text(BOT.replace("legal_moves[0]", "legal_moves[-1]") + "# edited: not the code the run played\n")
    now = hashlib.sha256(bot.read_bytes()).hexdigest()
    run = str(run_in_x / "reports" / "here")
    reproduced = runner.invoke(app, ["reproduce", run])
    assert reproduced.exit_code == 0 and "reproduced: identical results" in reproduced.output, reproduced.output
    assert f"note: bot 'b': its source has changed (sha256 {then[:12]} -> {now[:12]}); played from the run's copy " \
           "of its code" in reproduced.output
    from_source = runner.invoke(app, ["reproduce", run, "--from-source"])
    assert from_source.exit_code == 1
    assert f"MISMATCH: bot 'b': its code changed since the run (sha256 {then[:12]} -> {now[:12]})" in \
        from_source.output


def test_the_manifest_pins_each_kind_of_bot(run_in_x, tmp_path, monkeypatch):
    """A file by its own SHA-256 (as sha256sum prints it), a package by its folder, a command by its files, a
    bundled bot by arena's version."""
    manifest = json.loads((run_in_x / "reports" / "here" / "manifest.json").read_text())
    assert manifest["bots"]["b"]["sha256"] == hashlib.sha256((run_in_x / "my" / "b.py").read_bytes()).hexdigest()
    assert "sha256" not in manifest["bots"]["random"] and manifest["bots"]["random"]["version"]
    assert manifest["folders"] == [str(run_in_x)]

    package = tmp_path / "site" / "clever_bots"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text(BOT)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    pinned = recorded_spec("clever_bots.core:B")["sha256"]
    (package / "helpers.py").write_text("X = 1\n")  # any file of the package counts
    assert recorded_spec("clever_bots.core:B")["sha256"] != pinned

    script, weights = run_in_x / "my" / "b.py", run_in_x / "my" / "weights.txt"
    assert recorded_spec(f"command: python3 {script}")["sha256"] == hashlib.sha256(script.read_bytes()).hexdigest()
    weights.write_text("1 2 3\n")
    pinned = recorded_spec(f"command: python3 {script} --weights {weights}")["sha256"]
    weights.write_text("1 2 4\n")  # the data file it names is part of the bot too
    assert recorded_spec(f"command: python3 {script} --weights {weights}")["sha256"] != pinned
    on_path = recorded_spec("command: sh -c true")  # nothing of its own to copy, but its program is pinned
    assert on_path["sha256"] == hashlib.sha256(Path(shutil.which("sh")).read_bytes()).hexdigest()
    assert "frozen" not in recorded_spec("command: sh -c true", tmp_path / "bots")


LOW = '''class Low:
    """Plays its lowest card; imports nothing from arena."""

    name = "low"
    games = {"caterpillar"}

    def act(self, observation):
        return min(observation.legal_moves)
'''
PACKAGE = {"bot.toml": 'entry = "pk.core:Pk"\n', "pk/__init__.py": "", "pk/data.json": '{"bias": 1}\n',
           "pk/core.py": '''import json
import pathlib

BIAS = json.loads((pathlib.Path(__file__).parent / "data.json").read_text())["bias"]


class Pk:
    name = "pkgbot"
    games = {"caterpillar"}

    def act(self, observation):
        moves = list(observation.legal_moves)
        return moves[BIAS % len(moves)]
'''}
COMMAND = '''import json
import random
import sys

rng = None
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = {"name": "rb", "games": ["caterpillar"]}
    elif message["type"] == "reset":
        rng, answer = random.Random(message["seed"]), {"ok": True}
    else:
        answer = {"move": rng.choice(message["observation"]["legal_moves"])}
    print(json.dumps(answer), flush=True)
'''
TRAVELS = '''name = "{name}"
seed = 5
[[games]]
game = "caterpillar"
deals = 2
[[bots]]
name = "random"
{bots}
[run]
workers = 1
'''


def write_tree(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def arena_process(*args, cwd: Path, home: Path):
    """`arena ARGS` as a user on another machine runs it: a process of its own, in `cwd`, with ARENA_HOME `home`."""
    import os
    import subprocess
    import sys

    return subprocess.run([str(Path(sys.executable).parent / "arena"), *map(str, args)], cwd=cwd, text=True,
                          capture_output=True, env={**os.environ, "ARENA_HOME": str(home)}, timeout=240)


@pytest.mark.slow
def test_a_run_folder_copied_elsewhere_reproduces_with_its_authors_files_and_registry_gone(tmp_path, monkeypatch):
    """A one-file bot, a package with a data file and a JSON-lines command, entered by registered names in one
    tournament and by paths in another (the file twice, under two names: its code is stored once). Each run folder,
    copied elsewhere, reproduces from an empty folder with an empty ARENA_HOME, and writes nothing there."""
    author, home = tmp_path / "author", tmp_path / "home"
    write_tree(author, {"low.py": LOW, "rb.py": COMMAND, **{f"pkgbot/{k}": v for k, v in PACKAGE.items()}})
    monkeypatch.chdir(author)
    monkeypatch.setenv("ARENA_HOME", str(home))
    for spec in ("low.py", "pkgbot", "command: python3 rb.py"):
        assert runner.invoke(app, ["submit", spec, "--games", "1"]).exit_code == 0
    by_name = "\n".join(f'[[bots]]\nname = "{bot}"' for bot in ("low", "pkgbot", "rb"))
    by_path = ('[[bots]]\nname = "low"\npath = "low.py"\n[[bots]]\nname = "low-again"\npath = "low.py:Low"\n'
               '[[bots]]\nname = "pkgbot"\npath = "pkgbot"\n[[bots]]\nname = "rb"\ncommand = "python3 rb.py"')
    elsewhere = tmp_path / "elsewhere"
    for name, bots in (("byname", by_name), ("bypath", by_path)):
        (author / f"{name}.toml").write_text(TRAVELS.format(name=name, bots=bots))
        made = runner.invoke(app, ["tournament", f"{name}.toml", "--no-progress"])
        assert made.exit_code == 0, made.output
        shutil.copytree(author / "reports" / name, elsewhere / name)
    assert len(list((elsewhere / "bypath" / "bots").iterdir())) == 3  # low and low-again share one copy
    monkeypatch.chdir(tmp_path)
    shutil.rmtree(author)
    shutil.rmtree(home)

    empty, empty_home = tmp_path / "empty", tmp_path / "empty-home"
    empty.mkdir()
    empty_home.mkdir()
    for name in ("byname", "bypath"):
        reproduced = arena_process("reproduce", elsewhere / name, cwd=empty, home=empty_home)
        assert reproduced.returncode == 0, reproduced.stderr
        assert "reproduced: identical results" in reproduced.stdout
        for bot in ("low", "pkgbot", "rb"):
            assert f"note: bot '{bot}': its source cannot be found here; played from the run's copy of its code" in \
                reproduced.stderr.splitlines()
        replayed = arena_process("replay", elsewhere / name, 5, "--json", cwd=empty, home=empty_home)
        assert replayed.returncode == 0, replayed.stderr
    assert list(empty.iterdir()) == [] and list(empty_home.iterdir()) == []
    refused = arena_process("reproduce", elsewhere / "byname", "--from-source", cwd=empty, home=empty_home)
    assert refused.returncode == 2 and "unknown bot 'low'" in refused.stderr  # the sources as named are gone


def test_a_match_by_registered_name_resumes_by_path_as_the_same_match(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    (tmp_path / "low.py").write_text(LOW)
    assert runner.invoke(app, ["submit", "low.py", "--games", "1"]).exit_code == 0
    options = ["random", "--max-deals", "2", "--workers", "1", "--no-progress"]
    assert runner.invoke(app, ["match", "caterpillar", "low", *options]).exit_code == 0
    resumed = runner.invoke(app, ["match", "caterpillar", "low.py:Low", *options, "--resume"])
    assert resumed.exit_code == 0 and "(0 played now" in resumed.output, resumed.output
    assert [p.name for p in (tmp_path / "reports").iterdir()] == ["match-caterpillar-low-vs-random"]


@pytest.mark.parametrize("zipped", [False, True], ids=["folder", "zip"])
def test_editing_a_packages_data_file_is_new_code(tmp_path, monkeypatch, zipped):
    """The hash of a package covers every file of its tree, not its entry module alone."""
    import zipfile

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    folder = write_tree(tmp_path / "pkgbot", PACKAGE)

    def submitted(*options: str) -> str:
        spec = "pkgbot"
        if zipped:
            with zipfile.ZipFile(tmp_path / "pkgbot.zip", "w") as archive:
                for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                    archive.write(path, path.relative_to(folder).as_posix())
            spec = "pkgbot.zip"
        result = runner.invoke(app, ["submit", spec, "--games", "1", *options])
        assert result.exit_code == 0, result.output
        return result.output.splitlines()[-1]

    assert submitted().startswith("registered: 'pkgbot'")
    assert submitted().startswith("unchanged: 'pkgbot'")
    (folder / "pk" / "data.json").write_text('{"bias": 2}\n')
    # a zip's new code is unpacked elsewhere than its old, so taking its name needs --replace
    assert submitted(*["--replace"] if zipped else []).startswith("registered: 'pkgbot'")
