"""Finding bots: bundled, dropped into ./bots, by file spec, and from installed packages' entry points."""

import sys

import pytest

from arena.bots import (
    BUNDLED_DIR,
    BUNDLED_NAMES,
    BotError,
    available_bots,
    bundled_spec,
    folder_bots,
    load_bot_class,
    resolved_spec,
)

PACKAGE = '''
from arena.bots import Bot


class Installed(Bot):
    """A bot from an installed package."""

    name = "installed"
    games = {"caterpillar"}

    def act(self, observation):
        return observation.legal_moves[-1]
'''


@pytest.fixture
def installed_package(tmp_path, monkeypatch):
    """A real distribution on sys.path declaring an `arena.bots` entry point."""
    (tmp_path / "installed_bot.py").write_text(PACKAGE)
    info = tmp_path / "installed_bot-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: installed-bot\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[arena.bots]\ninstalled = installed_bot:Installed\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("installed_bot", None)


def test_the_table_of_bundled_names_is_what_the_bundled_files_define():
    assert {name: resolved_spec(bot) for name, bot in folder_bots(BUNDLED_DIR).items()} == {
        name: bundled_spec(name) for name in BUNDLED_NAMES}
    assert all(load_bot_class(name) is available_bots()[name] for name in BUNDLED_NAMES)


def test_an_entry_point_bot_is_found_by_name(installed_package):
    bot_class = load_bot_class("installed")
    assert bot_class.__name__ == "Installed" and "installed" in available_bots()
    assert resolved_spec(bot_class) == "installed_bot:Installed"
    assert load_bot_class(resolved_spec(bot_class)) is bot_class  # how workers load it


def test_a_bot_dropped_into_the_working_directorys_bots_folder(tmp_path, monkeypatch):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mine.py").write_text(PACKAGE.replace('"installed"', '"dropped-in"'))
    monkeypatch.chdir(tmp_path)
    assert load_bot_class("dropped-in").name == "dropped-in"


@pytest.mark.parametrize("spec, message", [
    ("nobody", "unknown bot 'nobody'"),
    ("no/such/file.py:Bot", "no bot file"),
    ("docs/example_bot.py:Missing", r"no class 'Missing' in docs/example_bot.py \(classes: CountingBot\)"),
    ("no_such_module:Bot", "cannot import no_such_module"),
])
def test_bad_specs(spec, message):
    with pytest.raises(BotError, match=message):
        load_bot_class(spec)
