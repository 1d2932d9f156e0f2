"""A `command` bot as docs/protocol.md's table of config keys says, a test per sentence of its `command` row (and of
the working directory's line): how the command is split, where its program and files are found, what it runs in,
and a process that dies during hello explained by the last lines of its stderr."""

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.config import ConfigError, load_config
from arena.isolation import BotProcessError, close_all, process_bot_class

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
HEAD = 'name = "t"\nseed = 1\n[[games]]\ngame = "caterpillar"\ndeals = 1\n[[bots]]\nname = "random"\n'
runner = CliRunner()


@pytest.fixture(autouse=True)
def arena_home(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    yield
    close_all()


def config_with(tmp_path: Path, command: str, **keys: str) -> Path:
    """A config in `tmp_path/conf/` whose second bot is `command` (TOML), next to a copy of the example bot."""
    folder = tmp_path / "conf"
    folder.mkdir(exist_ok=True)
    shutil.copy(EXAMPLES / "random_bot.py", folder / "random_bot.py")
    extra = "".join(f"{key} = {value}\n" for key, value in keys.items())
    path = folder / "t.toml"
    path.write_text(HEAD + f'[[bots]]\nname = "json"\ncommand = {command}\n{extra}')
    return path


@pytest.mark.parametrize("command", ['"python3 random_bot.py"', '["python3", "random_bot.py"]'])
def test_a_string_is_split_like_a_shell_and_an_array_is_taken_as_it_is(tmp_path, monkeypatch, command):
    """"a string split like a shell would (shlex), or an array of arguments" — both name the same bot."""
    monkeypatch.chdir(tmp_path)
    bot = load_config(config_with(tmp_path, command)).bots[1]
    assert bot.command == ("python3", str(tmp_path / "conf" / "random_bot.py"))


def test_the_program_is_a_path_from_the_working_directory_or_the_configs_folder_or_a_name_on_path(tmp_path,
                                                                                                     monkeypatch):
    """"The program is a path (relative to the working directory, or else the config file's folder) or a name
    found on PATH"."""
    config = config_with(tmp_path, '"./first.sh"')
    shutil.copy(EXAMPLES / "first_legal.sh", config.parent / "first.sh")
    monkeypatch.chdir(tmp_path)
    assert load_config(config).bots[1].command == (str(config.parent / "first.sh"),)  # beside the config
    shutil.copy(EXAMPLES / "first_legal.sh", tmp_path / "first.sh")
    assert load_config(config).bots[1].command == (str(tmp_path / "first.sh"),)  # the working directory first
    config.write_text(config.read_text().replace('"./first.sh"', '"sh first.sh"'))
    assert load_config(config).bots[1].command == ("sh", str(tmp_path / "first.sh"))  # sh: found on PATH


def test_every_argument_that_names_a_file_is_made_absolute_with_or_without_a_slash(tmp_path, monkeypatch):
    """"Every other argument that names a file there ... is made absolute"; a word that names nothing stays."""
    (tmp_path / "conf" / "data").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    config = config_with(tmp_path, '"python3 random_bot.py --depth data/ data 2"')
    folder = tmp_path / "conf"
    assert load_config(config).bots[1].command == ("python3", str(folder / "random_bot.py"), "--depth",
                                                   str(folder / "data"), "data", "2")  # a folder needs its `/`


def test_a_command_bot_runs_in_its_own_process_sandboxed_unless_told_otherwise(tmp_path, monkeypatch):
    """"A bot with a command always runs in its own process, sandboxed unless isolation = "process"."."""
    monkeypatch.chdir(tmp_path)
    assert load_config(config_with(tmp_path, '"python3 random_bot.py"')).bots[1].isolation == "sandbox"
    config = config_with(tmp_path, '"python3 random_bot.py"', isolation='"process"')
    assert load_config(config).bots[1].isolation == "process"
    config.write_text(config.read_text().replace('"process"', '"none"'))
    with pytest.raises(ConfigError, match="always runs in its own process"):
        load_config(config)


def test_a_command_is_not_given_together_with_a_path(tmp_path, monkeypatch):
    """"Not together with path"."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="give a command or a path, not both"):
        load_config(config_with(tmp_path, '"python3 random_bot.py"', path='"random"'))


WHERE_AM_I = """#!/bin/sh
read -r hello
printf '{"name":"%s|%s","games":null}\\n' "$(pwd)" "$HOME"
while read -r line; do echo '{"ok":true}'; done
"""


def test_the_working_directory_is_the_sandboxs_tmp_or_in_a_plain_process_the_arenas(tmp_path, monkeypatch):
    """"In the sandbox the working directory and HOME are its private /tmp; with isolation = "process" the working
    directory and the environment are the arena's"."""
    script = tmp_path / "where.sh"
    script.write_text(WHERE_AM_I)
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert process_bot_class([str(script)], sandboxed=True).name == "/tmp|/tmp"
    assert process_bot_class([str(script)], sandboxed=False).name == f"{tmp_path}|{tmp_path}"


def test_the_same_command_is_one_class_made_once(tmp_path):
    """The class (and its hello) is made once per arguments, not once per game."""
    script = tmp_path / "where.sh"
    script.write_text(WHERE_AM_I)
    script.chmod(0o755)
    assert process_bot_class([str(script)]) is process_bot_class([str(script)])


DIES = """#!/bin/sh
echo "starting up" >&2
echo "Traceback (most recent call last):" >&2
echo "ModuleNotFoundError: No module named 'numpy'" >&2
exit 3
"""


@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_process_that_dies_in_hello_is_explained_by_the_end_of_its_stderr(tmp_path, sandboxed):
    """One line: the exit status, then the bot's last lines of stderr."""
    script = tmp_path / "dies.sh"
    script.write_text(DIES)
    script.chmod(0o755)
    with pytest.raises(BotProcessError) as raised:
        process_bot_class([str(script)], sandboxed=sandboxed)
    assert str(raised.value) == ("bot process exited with status 3: starting up | Traceback (most recent call last):"
                                 " | ModuleNotFoundError: No module named 'numpy'")


def test_a_config_and_submit_say_why_a_command_bot_died_in_hello(tmp_path, monkeypatch):
    """A program that dies before it answers hello, in a config and in `arena submit` alike: its own last words on
    stderr are the error."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dies.py").write_text('raise SystemExit("cannot start: no weights file")\n')
    config = config_with(tmp_path, '"python3 dies.py"')
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    assert "bots[1].command: bot process exited with status 1: cannot start: no weights file" in str(raised.value)
    result = runner.invoke(app, ["submit", "command: python3 dies.py", "--games", "1"])
    assert result.exit_code == 2
    assert "exited with status 1: cannot start: no weights file" in result.output


def test_a_missing_file_is_named_as_the_user_wrote_it_never_by_a_sandbox_path(tmp_path, monkeypatch):
    """One line, exit 2, before any process starts: the file as typed, never where the sandbox would have looked."""
    monkeypatch.chdir(tmp_path)
    config = config_with(tmp_path, '"python3 missing_bot.py"')
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    assert str(raised.value) == f"{config}: bots[1].command: no file missing_bot.py"
    for verb in (["submit"], ["play", "give_or_take", "random"]):
        result = runner.invoke(app, [*verb, "command: python3 missing_bot.py"])
        assert result.exit_code == 2 and "/tmp" not in result.output, result.output
        assert result.output.splitlines()[-1] == "error: command: python3 missing_bot.py: no file missing_bot.py"
    assert not (tmp_path / "reports").exists()


def test_submit_takes_a_plain_file_name_from_the_current_folder(monkeypatch):
    """`arena submit "command: python3 random_bot.py"` run in examples/, as a newcomer types it."""
    monkeypatch.chdir(EXAMPLES)
    result = runner.invoke(app, ["submit", "command: python3 random_bot.py", "--games", "1"])
    assert result.exit_code == 0, result.output
    assert "registered: 'random-json'" in result.output
