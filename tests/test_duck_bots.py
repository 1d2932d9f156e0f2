"""Bots written as plain classes, as someone who never read arena's code writes them: no `arena` import, no `Bot`
base, a family of bots sharing a base class of their own file, a bot without `reset`, `name` or `__init__`. The
protocol is structural (arena.bots.not_a_bot): each plays in every verb of tests/test_bot_forms.py, in every form
that holds a Python class (a file, a package folder, its zip, a registered name), with one worker and on Ray; hostile
plain classes get their faults and the others play on.
"""

from __future__ import annotations

import json

import pytest
from test_bot_forms import arena, config_text, files_under, new_league, write, zipped

GAME = "give_or_take"

DUCK = '''"""Plays the first legal move; imports nothing from arena."""


class FirstLegal:
    name = "duck-first"
    games = {"give_or_take"}

    def __init__(self, **params):
        self.params = params

    def reset(self, game_id, seat, rules, rng):
        self.rng = rng

    def act(self, observation):
        return observation.legal_moves[0]
'''

FAMILY = '''"""Two bots sharing a base of this file: its reset, its games and its way of choosing."""


class _Base:
    games = ("give_or_take",)

    def reset(self, game_id, seat, rules, rng):
        self.rng = rng

    def pick(self, moves):
        return self.rng.choice(moves)


class RngChooser(_Base):
    """Named after its class: rng-chooser."""

    def act(self, observation):
        return self.pick(list(observation.legal_moves))


class LastLegal(_Base):
    name = "duck-last"

    def act(self, observation):
        return observation.legal_moves[-1]
'''

PICK = "def pick(rng, moves):\n    return rng.choice(moves)\n"
CHOOSER = '''from duckcore.pick import pick


class Chooser:
    """No reset and no __init__: arena's defaults keep the rng it is given."""

    name = {name!r}
    games = {{"give_or_take"}}

    def act(self, observation):
        return pick(self.rng, list(observation.legal_moves))
'''

REGISTERED = ('class RegDuck:\n    name = "duck-reg"\n    games = {"give_or_take"}\n\n'
              "    def act(self, observation):\n        return observation.legal_moves[-1]\n")

HOSTILE = '''import random


class _Plain:
    games = {"give_or_take"}


class Raiser(_Plain):
    def act(self, observation):
        raise RuntimeError("the duck raises")


class Spinner(_Plain):
    def act(self, observation):
        while True:
            pass


class Illegal(_Plain):
    def act(self, observation):
        return "no such move"


class OwnDice(_Plain):
    def act(self, observation):
        return random.choice(list(observation.legal_moves))
'''


def duck_package(folder, name: str):
    return write(folder, {"bot.toml": 'entry = "duckcore.play:Chooser"\n', "duckcore/__init__.py": "",
                          "duckcore/pick.py": PICK, "duckcore/play.py": CHOOSER.format(name=name)})


FORMS = ["file", "family", "family-named", "package", "package-zip", "registered"]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A folder outside the checkout holding every form, the working folder; ARENA_HOME in it; `duck-reg`
    registered."""
    work = tmp_path_factory.mktemp("ducks")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        patch.setenv("ARENA_HOME", str(work / "home"))
        write(work, {"duck.py": DUCK, "family.py": FAMILY, "regduck.py": REGISTERED, "hostile.py": HOSTILE})
        duck_package(work / "duckpkg", "duck-pkg")
        zipped(duck_package(work / "src" / "duckzip", "duck-zip"), work / "duckzip.zip")
        arena("submit", "regduck.py", "--games", "1")
        forms = {"file": ("duck.py:FirstLegal", "duck-first"), "family": ("family.py:RngChooser", "rng-chooser"),
                 "family-named": ("family.py:LastLegal", "duck-last"), "package": ("duckpkg/", "duck-pkg"),
                 "package-zip": ("duckzip.zip", "duck-zip"), "registered": ("duck-reg", "duck-reg")}
        yield work, forms


@pytest.fixture(scope="module")
def tournaments(world):
    """The tournament of every form by path (a registered name alone), and the same bots by registered names after
    `arena submit` of each: run folder and results of each."""
    import pandas as pd

    work, forms = world
    by_name = {form: (bot, bot) for form, (_, bot) in forms.items()}
    for form, (spec, _) in forms.items():
        if form != "registered":
            arena("submit", spec, "--games", "1")
    runs = {}
    for label, chosen in (("paths", forms), ("names", by_name)):
        (work / f"{label}.toml").write_text(config_text(chosen, 1).replace('name = "forms"', f'name = "{label}"'))
        arena("tournament", f"{label}.toml", "--no-progress")
        run = work / "reports" / label
        runs[label] = run, pd.read_parquet(run / "results")
    return runs


def games_of(results, bot: str):
    return results[results["players"].map(lambda players: bot in list(players))]


@pytest.mark.parametrize("form", FORMS)
def test_play(world, form):
    spec, bot = world[1][form]
    played = json.loads(arena("play", GAME, spec, "random", "--json", "--rule", "max_deals=1").stdout)
    assert played["players"] == [bot, "random"] and played["fault"] is None


@pytest.mark.parametrize("form", FORMS)
def test_match(world, form):
    spec, bot = world[1][form]
    done = arena("match", GAME, spec, "random", "--max-deals", "1", "--rule", "max_deals=1", "--workers", "1",
                 "--no-progress", "--overwrite")
    assert bot in done.output


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("label", ["paths", "names"])
def test_tournament_replay_and_reproduce(tournaments, world, form, label):
    _, bot = world[1][form]
    run, results = tournaments[label]
    mine = games_of(results, bot)
    assert len(mine) > 0 and mine["fault"].isna().all()
    index = int(mine["game_index"].iloc[0])
    assert bot in json.loads(arena("replay", run, index, "--json").stdout)["players"]


@pytest.mark.parametrize("label", ["paths", "names"])
def test_reproduce(tournaments, label):
    reproduced = arena("reproduce", tournaments[label][0])
    assert "reproduced: identical results" in reproduced.output, reproduced.output


def test_submit_and_the_listing_name_every_form(tournaments, world):
    listed = {line.split("│")[1].strip() for line in arena("bots").stdout.splitlines() if line.count("│") == 4}
    assert {bot for _, bot in world[1].values()} <= listed


def test_on_one_worker_and_on_ray(world, workers):
    import arena as api

    work, forms = world
    run = api.run(config_text(forms, workers).replace('name = "forms"', f'name = "ducks-{workers}"'),
                  out=work / "reports")
    assert run.manifest["workers"] == workers and run.results["fault"].isna().all()
    assert {bot for _, bot in forms.values()} <= set(run.ratings["bot"])


@pytest.fixture(scope="module")
def league(world):
    return new_league(world[0])


@pytest.mark.parametrize("form", FORMS)
def test_league_add(league, world, form):
    spec, bot = world[1][form]
    added = arena("league", "add", league, spec, "--games", "1")
    assert added.output.startswith(f"added {bot!r}"), added.output


def test_a_league_plays_them(league, world):
    arena("league", "play", league, "--games", "60", "--workers", "1", "--no-progress")
    rows = json.loads(arena("league", "table", league, "--format", "json").stdout)
    assert {bot for _, bot in world[1].values()} <= {row["bot"] for row in rows}


def test_a_file_of_several_bots_names_them_and_a_class_that_is_no_bot_says_what_it_lacks(world):
    work, _ = world
    before = files_under(work)
    for spec, line in (("family.py", "family.py holds 2 bot classes (RngChooser, LastLegal): give "
                                     "path/to/file.py:Class"),
                       ("family.py:_Base", "family.py:_Base has no act method"),
                       ("family.py:Missing", "no class 'Missing' in family.py (classes: _Base, RngChooser, "
                                             "LastLegal)")):
        for verb in (["play", GAME, spec, "random"], ["submit", spec], ["match", GAME, spec, "random"]):
            refused = arena(*verb, check=False)
            assert refused.exit_code == 2 and refused.output.splitlines()[-1] == f"error: {line}", refused.output
    assert files_under(work) == before


# The spinner's moves end on its CPU-time clock or, on a loaded machine, on the wall-clock backstop first: such
# stalls, `suspend_after` of them, suspend it for the rest of the run, its games then timeouts too.
HOSTILE_FAULTS = {"Raiser": ("crash", "RuntimeError: the duck raises"),
                  "Spinner": ("timeout", ("no move within", "suspended after")),
                  "Illegal": ("illegal_move", "illegal move 'no such move'")}


def test_hostile_plain_classes_forfeit_and_the_others_play_on(world, workers):
    import arena as api

    work, _ = world
    hostile = {cls: (f"hostile.py:{cls}", f"duck-{cls.lower()}") for cls in [*HOSTILE_FAULTS, "OwnDice"]}
    text = config_text({"file": ("duck.py:FirstLegal", "duck-first"), **hostile}, workers)
    text = text.replace('name = "forms"', f'name = "hostile-{workers}"') + "move_time_limit = 0.2\n"
    run = api.run(text, out=work / "reports")
    results = run.results
    schedule_size = len(results)
    assert sorted(results["game_index"]) == list(range(schedule_size))
    faulty = {bot for cls, (_, bot) in hostile.items() if cls in HOSTILE_FAULTS}
    for cls, (termination, fault) in HOSTILE_FAULTS.items():
        alone = games_of(results, hostile[cls][1])  # facing no other bot at fault
        alone = alone[alone["players"].map(lambda players: len(faulty & set(players)) == 1)]
        assert len(alone) > 0
        for _, row in alone.iterrows():
            seat = list(row["players"]).index(hostile[cls][1])
            assert (row["termination"], row["fault_seat"]) == (termination, seat) and row["fault"].startswith(fault)
    honest = results[results["players"].map(lambda players: not {b for _, b in hostile.values()} & set(players))]
    dice = games_of(results, "duck-owndice")
    dice = dice[dice["players"].map(lambda players: not faulty & set(players))]
    assert len(honest) > 0 and honest["fault"].isna().all() and len(dice) > 0 and \
        dice["fault"].isna().all()  # its own dice spoil only a replay, which the check finds (below)


def test_a_bot_that_throws_its_own_dice_is_refused_by_the_check(world):
    refused = arena("submit", "hostile.py:OwnDice", "--games", "2", check=False)
    assert refused.exit_code == 2 and "not deterministic" in refused.output, refused.output
