"""Every form of bot in every command, as a new user meets them: from a folder outside the checkout, with ARENA_HOME in
a temporary folder, and a `copy.py` in that folder and in a package's own folder that would break any process that
imported it in place of the standard library's (`tests/test_bot_forms.py::test_*[*]`).

The forms are those of docs/writing-a-bot.md's table; each bot plays Give or Take only, so every check is one game.
What a verb does once for all forms (a tournament, its reproduction, a league, a server, a Ray run) is built once
and each cell reads its part; each cell asserts its bot played (or the one documented refusal), exit 0, and no
traceback anywhere.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import test_server
from test_bundles import C_BOT
from typer.testing import CliRunner

from arena.cli import app

GAME = "give_or_take"
SHADOW = 'raise ImportError("a copy.py beside the bot was imported in place of the standard library\'s")\n'


def python_bot(name: str, cls: str) -> str:
    return (f"from arena.bots import Bot\n\n\nclass {cls}(Bot):\n    name = {name!r}\n    games = {{{GAME!r}}}\n\n"
            "    def act(self, observation):\n        return self.rng.choice(observation.legal_moves)\n")


COMMAND = ("import json, sys\nname = open('name.txt').read().strip() if len(sys.argv) < 2 else sys.argv[1]\n"
           "for line in sys.stdin:\n    m = json.loads(line)\n"
           f"    out = {{'hello': {{'name': name, 'games': [{GAME!r}]}}, 'reset': {{'ok': True}}}}.get(m['type'])\n"
           "    print(json.dumps(out or {'move': m['observation']['legal_moves'][0]}), flush=True)\n")


def zipped(folder: Path, path: Path) -> str:
    with zipfile.ZipFile(path, "w") as archive:
        for file in sorted(folder.rglob("*")):
            archive.write(file, file.relative_to(folder).as_posix())
    return path.name


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def package(folder: Path, name: str, manifest: bool = True) -> Path:
    """A package of two modules that import each other by name, with a copy.py of its own beside them."""
    return write(folder, {**({"bot.toml": 'entry = "deep.core:Deep"\n'} if manifest else {}),
                          "deep/__init__.py": "",
                          "deep/pick.py": "def pick(rng, moves):\n    return rng.choice(moves)\n",
                          "deep/core.py": python_bot(name, "Deep").replace(
                              "return self.rng.choice(observation.legal_moves)",
                              "import copy\n        from deep.pick import pick\n"
                              "        return pick(self.rng, copy.copy(observation.legal_moves))"),
                          "copy.py": SHADOW})


def make_forms(work: Path) -> dict[str, tuple[str, str]]:
    """Every form: (spec, the bot's name)."""
    (work / "copy.py").write_text(SHADOW)
    (work / "filebot.py").write_text(python_bot("filebot", "FileBot"))
    (work / "regbot.py").write_text(python_bot("regbot", "RegBot"))
    package(work / "pkg", "pkgbot")
    package(work / "src" / "pkgzip", "pkgzip")
    zipped(work / "src" / "pkgzip", work / "pkgzip.zip")
    package(work / "src" / "zent", "zentry", manifest=False)
    zipped(work / "src" / "zent", work / "zent.zip")
    write(work / "cmdbot", {"bot.toml": 'command = "python3 main.py"\n', "main.py": COMMAND, "name.txt": "cmdbot"})
    write(work / "src" / "cmdzip", {"bot.toml": 'command = "python3 main.py"\n', "main.py": COMMAND,
                                    "name.txt": "cmdzip"})
    zipped(work / "src" / "cmdzip", work / "cmdzip.zip")
    (work / "prog.py").write_text(COMMAND)
    forms = {"bundled": ("greedy", "greedy"), "registered": ("regbot", "regbot"),
             "file": ("filebot.py:FileBot", "filebot"), "package": ("pkg/", "pkgbot"),
             "package-zip": ("pkgzip.zip", "pkgzip"), "zip-entry": ("zent.zip:deep.core:Deep", "zentry"),
             "command": ("cmdbot", "cmdbot"), "command-zip": ("cmdzip.zip", "cmdzip"),
             "program": ("command: python3 prog.py prog", "prog")}
    if shutil.which("cc"):
        (work / "first.c").write_text(C_BOT.replace('"c-first\\",\\"games\\":[\\"caterpillar\\"]',
                                                    '"cbot\\",\\"games\\":[\\"give_or_take\\"]'))
        subprocess.run(["cc", "-O1", "-o", work / "cbot", work / "first.c"], check=True)
        forms["compiled"] = ("command: ./cbot", "cbot")
    return forms


FORMS = ["bundled", "registered", "file", "package", "package-zip", "zip-entry", "command", "command-zip", "program",
         "compiled"]


def arena(*args, check: bool = True):
    """`arena ARGS` in this process: its output must never hold a traceback."""
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    if check:
        assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A folder outside the checkout holding every form, the working folder; ARENA_HOME in it; `regbot` registered."""
    work = tmp_path_factory.mktemp("forms")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        patch.setenv("ARENA_HOME", str(work / "home"))
        forms = make_forms(work)
        arena("submit", "regbot.py:RegBot", "--games", "1")
        yield work, forms


def form(world, name: str) -> tuple[str, str]:
    if name not in world[1]:
        pytest.skip("no C compiler")
    return world[1][name]


TOURNAMENT = """name = "forms"
seed = 3

[[games]]
game = "give_or_take"
deals = 1
rules = {{ max_deals = 1 }}

[[bots]]
name = "random"
{bots}
[run]
workers = {workers}
"""


def config_text(forms: dict[str, tuple[str, str]], workers: int) -> str:
    """One tournament of every form: a registered or bundled name alone, any other spec as its `path`."""
    entries = []
    for spec, name in forms.values():
        if spec.startswith("command:"):
            entries.append(f"[[bots]]\nname = {name!r}\ncommand = {spec.removeprefix('command:').strip()!r}\n")
        elif spec == name:
            entries.append(f"[[bots]]\nname = {name!r}\n")
        else:
            entries.append(f"[[bots]]\nname = {name!r}\npath = {spec!r}\n")
    return TOURNAMENT.format(bots="\n".join(entries), workers=workers)


@pytest.fixture(scope="module")
def tournament(world):
    work, forms = world
    (work / "forms.toml").write_text(config_text(forms, 1))
    arena("tournament", "forms.toml", "--no-progress")
    import pandas as pd

    results = pd.read_parquet(work / "reports" / "forms" / "results")
    return work / "reports" / "forms", results


@pytest.fixture(scope="module")
def reproduced(tournament):
    return arena("reproduce", tournament[0], check=False)


def new_league(work: Path) -> Path:
    """A league of one-deal Give or Take games in `work/club`."""
    (work / "club.toml").write_text('name = "club"\nseed = 1\n\n[[games]]\ngame = "give_or_take"\n'
                                    "rules = { max_deals = 1 }\n\n[league]\ndeals = 1\n")
    arena("league", "new", work / "club", work / "club.toml")
    return work / "club"


@pytest.fixture(scope="module")
def league(world):
    return new_league(world[0])


@pytest.fixture(scope="module")
def server(world, tmp_path_factory):
    """A served league (no play) and an entrant's token: every upload is checked by its checker."""
    work, _ = world
    (work / "served.toml").write_text('name = "served"\nseed = 1\n\n[[games]]\ngame = "give_or_take"\n'
                                      "rules = { max_deals = 1 }\n\n[league]\ndeals = 1\n\n[uploads]\n"
                                      "check_games = 1\nactive_bots = 20\nuploads_per_hour = 100\n"
                                      "file_bytes = 1048576\nzip_bytes = 1048576\nrequest_bytes = 1048576\n")
    arena("league", "new", work / "served", work / "served.toml")
    token = arena("league", "entrant", work / "served", "alice").stdout.splitlines()[-1]
    with pytest.MonkeyPatch.context() as patch:  # started as a user starts it: the `arena` script, not `python -m`
        patch.setattr(test_server, "ARENA", [str(Path(sys.executable).parent / "arena")])
        with test_server.served(work / "served", "--no-play") as (_, client):
            yield str(client.base_url), token


@pytest.fixture(scope="module")
def api_run(world):
    """`arena.run` of every form, in one local worker."""
    import arena as api

    work, forms = world
    return api.run(config_text(forms, 1).replace('name = "forms"', 'name = "forms-api"'), out=work / "reports")


@pytest.fixture(scope="module")
def submitted(world):
    """`arena submit` of every form, once: what each printed."""
    return {name: arena("submit", spec, "--games", "1").output for name, (spec, _) in world[1].items()}


@pytest.mark.parametrize("name", FORMS)
def test_submit(submitted, world, name):
    _, bot = form(world, name)
    last = submitted[name].splitlines()[-1]
    assert last.startswith(f"unchanged: {bot!r}") if name in ("bundled", "registered") else \
        last.startswith(f"registered: {bot!r}")


@pytest.mark.parametrize("name", FORMS)
def test_bots_lists_and_forgets(submitted, world, name):
    from arena.bots.registry import load_registry, register

    _, bot = form(world, name)
    listed = {line.split("│")[1].strip(): line for line in arena("bots").stdout.splitlines() if line.count("│") == 4}
    assert GAME in listed[bot] or "any" in listed[bot]
    if name == "bundled":
        refused = arena("bots", "--forget", bot, check=False)
        assert refused.exit_code == 2 and refused.output.startswith(f"error: no registered bot {bot!r}")
        return
    source = load_registry()[bot]
    assert arena("bots", "--forget", bot).output.startswith(f"forgot {bot!r}")
    assert bot not in load_registry()
    register(bot, source)  # as it was, for the other cells


@pytest.mark.parametrize("name", FORMS)
def test_play(world, name):
    spec, bot = form(world, name)
    played = json.loads(arena("play", GAME, spec, "random", "--json", "--rule", "max_deals=1").stdout)
    assert played["players"] == [bot, "random"] and played["fault"] is None


@pytest.mark.parametrize("name", FORMS)
def test_match(world, name):
    spec, bot = form(world, name)
    done = arena("match", GAME, spec, "random", "--max-deals", "1", "--rule", "max_deals=1", "--workers", "1",
                 "--no-progress", "--overwrite")
    assert "1 deal" in done.output or "deals" in done.output
    assert f"{bot}" in done.output


@pytest.mark.parametrize("name", FORMS)
def test_tournament(tournament, world, name):
    _, bot = form(world, name)
    _, results = tournament
    mine = results[results["players"].map(lambda players: bot in list(players))]
    assert len(mine) > 0 and mine["fault"].isna().all()


@pytest.mark.parametrize("name", FORMS)
def test_replay(tournament, world, name):
    _, bot = form(world, name)
    run, results = tournament
    index = int(results[results["players"].map(lambda players: bot in list(players))]["game_index"].iloc[0])
    assert bot in json.loads(arena("replay", run, index, "--json").stdout)["players"]


@pytest.mark.parametrize("name", FORMS)
def test_reproduce(reproduced, tournament, world, name):
    from arena.bots.sources import resolve

    spec, bot = form(world, name)
    assert reproduced.exit_code == 0 and "reproduced: identical results" in reproduced.output, reproduced.output
    record = json.loads((tournament[0] / "manifest.json").read_text())["bots"][bot]
    if name == "bundled":
        assert "version" in record and "sha256" not in record
    else:
        assert record["sha256"] == resolve(spec).sha256


@pytest.mark.parametrize("name", FORMS)
def test_league_add(league, world, name):
    spec, bot = form(world, name)
    added = arena("league", "add", league, spec, "--games", "1")
    assert added.output.startswith(f"added {bot!r}"), added.output


@pytest.mark.parametrize("name", FORMS)
def test_league_upload(server, world, name):
    spec, bot = form(world, name)
    url, token = server
    uploaded = arena("league", "upload", url, spec, "--token", token, check=False)
    if name == "bundled":
        assert uploaded.exit_code == 2 and "a bundled bot is every league's to add" in uploaded.output
        return
    assert uploaded.exit_code == 0 and uploaded.output.strip() == f"accepted as {bot!r}", uploaded.output


@pytest.mark.parametrize("name", FORMS)
def test_run(api_run, world, name):
    _, bot = form(world, name)
    played = api_run.results[api_run.results["players"].map(lambda players: bot in list(players))]
    assert len(played) > 0 and played["fault"].isna().all()
    assert bot in set(api_run.ratings["bot"])


def test_a_package_and_a_program_play_on_ray_workers(world):
    """Ray's workers put the driver's folder first on their import path: the copy.py there stays unimported."""
    import arena as api

    work, forms = world
    chosen = {name: forms[name] for name in ("package", "program")}
    run = api.run(config_text(chosen, 2).replace('name = "forms"', 'name = "forms-ray"'), out=work / "reports")
    assert run.manifest["backend"] == "ray-local" and run.manifest["workers"] == 2
    assert set(run.ratings["bot"]) == {"random", "pkgbot", "prog"} and run.results["fault"].isna().all()


def files_under(folder: Path) -> dict[str, int]:
    """Every file under `folder` with its size: what a refused command must leave as it was."""
    return {str(p.relative_to(folder)): p.stat().st_size for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_league_refuses_a_bot_that_plays_none_of_its_games(world):
    work, forms = world
    (work / "other.toml").write_text('name = "other"\nseed = 1\n\n[[games]]\ngame = "caterpillar"\n\n[[games]]\n'
                                     'game = "go_for_it"\nrules = { players = 2 }\n')
    arena("league", "new", work / "other", work / "other.toml")
    before = files_under(work / "other")
    for spec, bot in (forms["file"], forms["command"]):  # told by its source, and told only by its hello
        refused = arena("league", "add", work / "other", spec, "--games", "1", check=False)
        assert refused.exit_code == 2
        assert refused.output == (f"error: {bot} plays none of this league's games (caterpillar, go_for_it); it "
                                  f"plays {GAME}\n")
    assert files_under(work / "other") == before


def test_a_spec_that_names_nothing_gets_the_nearest_names(world):
    work, _ = world
    # the league the module's server serves comes and goes on its own: its catalog's WAL files while it is read
    unserved = lambda: {path: size for path, size in files_under(work).items() if not path.startswith("served/")}
    before = unserved()
    for verb in (["play", GAME, "gredy", "random"], ["submit", "gredy"], ["match", GAME, "gredy", "random"]):
        refused = arena(*verb, check=False)
        assert refused.exit_code == 2 and refused.output.splitlines()[-1] == \
            "error: unknown bot 'gredy': did you mean greedy?", refused.output
    assert unserved() == before


def test_a_missing_file_is_named_as_written(world):
    work, _ = world
    before = files_under(work)
    for spec, line in (("nothere.py:Bot", "no bot file nothere.py"), ("nothere.zip", "no bot zip nothere.zip"),
                       ("command: python3 nothere.py", "command: python3 nothere.py: no file nothere.py"),
                       ("command: ./nothere", "command: ./nothere: no program ./nothere")):
        for verb in (["play", GAME, spec, "random"], ["submit", spec]):
            refused = arena(*verb, check=False)
            assert refused.exit_code == 2 and refused.output.splitlines()[-1] == f"error: {line}", refused.output
    assert files_under(work) == before


def test_resubmitting_the_same_code_is_unchanged(world):
    work, forms = world
    arena("submit", forms["package"][0], "--games", "1")
    registry = (work / "home" / "registry.json").read_bytes()
    for spec in (forms["package"][0], "pkg"):  # the same folder, written two ways
        again = arena("submit", spec, "--games", "1")
        assert again.output.splitlines()[-1].startswith("unchanged: 'pkgbot' can be named already, with this very "
                                                        "code (sha256 ")
    assert (work / "home" / "registry.json").read_bytes() == registry


def test_a_failed_check_prints_no_empty_figures(world):
    work, _ = world
    (work / "crashes.py").write_text(python_bot("crashes", "Crashes").replace(
        "return self.rng.choice(observation.legal_moves)", "raise RuntimeError('no idea')"))
    before = (work / "home" / "registry.json").read_bytes()
    failed = arena("submit", "crashes.py:Crashes", "--games", "1", check=False)
    assert failed.exit_code == 2
    assert f"  {GAME:<13} FAILED  after 0 games\n" in failed.output and "slowest" not in failed.output
    assert "error: 'crashes' was not registered" in failed.output
    assert (work / "home" / "registry.json").read_bytes() == before
    passed = arena("submit", "filebot.py:FileBot", "--games", "1")
    assert f"  {GAME:<13} ok      1 game, " in passed.output


def test_a_zip_whose_bot_toml_is_one_folder_down_is_refused_naming_it(world, league):
    work, _ = world
    zipped(work / "src", work / "nested.zip")  # src/cmdzip/bot.toml and the others, one folder down
    before = files_under(league)
    for verb in (["submit", "nested.zip"], ["league", "add", league, "nested.zip"], ["play", GAME, "nested.zip",
                                                                                     "random"]):
        refused = arena(*verb, check=False)
        assert refused.exit_code == 2 and refused.output.splitlines()[-1] == (
            "error: nested.zip: its bot.toml is at cmdzip/bot.toml, one folder down; zip what is inside that folder "
            "(cd cmdzip && zip -r ../nested.zip .)"), refused.output
    assert files_under(league) == before


def test_an_upload_with_a_wrong_token_names_the_option_and_a_large_one_says_mib(world, server):
    import os

    work, forms = world
    url, _ = server
    wrong = arena("league", "upload", url, forms["file"][0], "--token", "not-a-token", check=False)
    assert wrong.exit_code == 2 and wrong.output.startswith(f"error: {url} answered 401: ")
    assert wrong.output.rstrip().endswith("(check --token, or ARENA_LEAGUE_TOKEN)")
    big = work / "big"  # beside src/, whose folders other tests zip whole
    write(big, {"bot.toml": 'command = "python3 main.py"\n', "main.py": COMMAND})
    (big / "weights.bin").write_bytes(os.urandom(3 << 19))  # 1.5 MiB that no zip can shrink
    zipped(big, work / "big.zip")
    token = arena("league", "entrant", work / "served", "bob").stdout.splitlines()[-1]
    large = arena("league", "upload", url, "big.zip", "--token", token, check=False)
    assert large.exit_code == 2 and large.output.startswith(f"error: {url} answered 413: the request is 1.5 MiB; "
                                                            "this league takes 1.0 MiB at most"), large.output
