"""Bots that are more than one file: hostile zips refused before anything is written, and (below) packages and
command bots, from a folder or a zip, added to a league and played."""

import hashlib
import re
import signal
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from arena.bots import BotError
from arena.bots.bundles import ArchiveLimits, check_archive, tree_hash, unpack
from arena.cli import app
from arena.config import load_config, parse_config
from arena.isolation import close_all, entry_bot_class, process_bot_class
from arena.league.catalog import Catalog


@pytest.fixture(autouse=True)
def closed_bots():
    yield
    close_all()

LIMITS = ArchiveLimits()


def entry(name: str, mode: int = stat.S_IFREG | 0o644) -> zipfile.ZipInfo:
    """A zip entry with a Unix mode (a symlink, a device, ...), as `zip -y` or a crafted zip records it."""
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = mode << 16
    return info


def hostile(path: Path, kind: str) -> Path:
    """A small zip with one bot file and one hostile entry of `kind`."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr(entry("bot.toml"), 'command = "./mybot"\n')
        if kind == "slip":
            archive.writestr(entry("../evil"), "pwned")
        elif kind == "deep-slip":
            archive.writestr(entry("lib/../../evil"), "pwned")
        elif kind == "absolute":
            archive.writestr(entry("/etc/x"), "pwned")
        elif kind == "symlink":
            archive.writestr(entry("mybot", stat.S_IFLNK | 0o777), "/etc/passwd")
        elif kind == "device":
            archive.writestr(entry("tty", stat.S_IFCHR | 0o666), "")
        elif kind == "fifo":
            archive.writestr(entry("pipe", stat.S_IFIFO | 0o666), "")
        elif kind == "many":
            for i in range(LIMITS.files):
                archive.writestr(entry(f"f{i}"), "")
        elif kind == "bomb":  # zeros compress a thousandfold: a zip of 100 KiB that unpacks past the limit
            with archive.open(entry("zeros"), "w", force_zip64=True) as sink:
                block = bytes(1 << 20)
                for _ in range((LIMITS.unpacked >> 20) + 1):
                    sink.write(block)
        elif kind == "lying":  # the same zeros, its directory saying they are 10 bytes
            with archive.open(entry("zeros"), "w", force_zip64=True) as sink:
                block = bytes(1 << 20)
                for _ in range((LIMITS.unpacked >> 20) + 1):
                    sink.write(block)
            archive.filelist[-1].file_size = 10
    if kind == "corrupt":
        data = bytearray(path.read_bytes())
        path.write_bytes(bytes(data[: len(data) // 2]))
    return path


REFUSALS = {
    "slip": "'../evil' climbs out of the folder (..)",
    "deep-slip": "'lib/../../evil' climbs out of the folder (..)",
    "absolute": "'/etc/x' is an absolute path",
    "symlink": "'mybot' is a symlink; a bot's zip holds plain files only",
    "device": "'tty' is not a plain file; a bot's zip holds plain files only",
    "fifo": "'pipe' is not a plain file; a bot's zip holds plain files only",
    "many": "1001 entries, more than 1000",
    "bomb": "unpacks to 101.0 MiB, more than 100.0 MiB",
    "corrupt": "not a readable zip",
}


@pytest.fixture(scope="module")
def hostile_zips(tmp_path_factory) -> dict[str, Path]:
    """Each hostile zip, made once (the bomb takes a moment)."""
    return {kind: hostile(tmp_path_factory.mktemp(kind) / "bot.zip", kind) for kind in [*REFUSALS, "lying"]}


@pytest.mark.parametrize("kind", list(REFUSALS))
def test_a_hostile_zip_is_refused_with_its_reason_and_nothing_unpacked(tmp_path, kind, hostile_zips):
    path = hostile_zips[kind]
    with pytest.raises(BotError) as raised:
        check_archive(path, LIMITS)
    assert str(raised.value).startswith(f"bot.zip: {REFUSALS[kind]}")
    assert "\n" not in str(raised.value)
    with pytest.raises(BotError, match=REFUSALS[kind].replace("(", r"\(").replace(")", r"\)")):
        unpack(path, tmp_path / "out", LIMITS)
    assert not (tmp_path / "out").exists() and not (tmp_path / "evil").exists()
    assert not (path.parent.parent / "evil").exists()


def test_a_zip_whose_directory_lies_about_its_size_stops_at_what_it_declared(tmp_path, hostile_zips):
    """Its directory passes the check (10 bytes declared); unpacking stops there, nothing is left behind."""
    path = hostile_zips["lying"]
    check_archive(path, LIMITS)
    with pytest.raises(BotError, match="bot.zip: a damaged zip"):
        unpack(path, tmp_path / "out", LIMITS)
    assert not (tmp_path / "out").exists()


def test_the_limit_is_on_all_files_together_and_holds_exactly(tmp_path):
    """Four files of 300 bytes each: refused under a limit of 1,000 bytes, unpacked under one of 1,200."""
    path = tmp_path / "bot.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(4):
            archive.writestr(entry(f"f{i}"), bytes(300))
    with pytest.raises(BotError, match="unpacks to 1,200 bytes, more than 1,000 bytes"):
        unpack(path, tmp_path / "out", ArchiveLimits(unpacked=1000))
    assert unpack(path, tmp_path / "out", ArchiveLimits(unpacked=1200)) == tmp_path / "out"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["f0", "f1", "f2", "f3"]


def test_unpacking_keeps_the_executable_bit_and_the_folders(tmp_path):
    path = tmp_path / "bot.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(entry("bin/", stat.S_IFDIR | 0o755), "")
        archive.writestr(entry("bin/mybot", stat.S_IFREG | 0o755), "#!/bin/sh\n")
        archive.writestr(entry("data.txt"), "x")
    out = unpack(path, tmp_path / "out", LIMITS)
    assert (out / "bin" / "mybot").stat().st_mode & 0o111 and not (out / "data.txt").stat().st_mode & 0o111


def test_a_folder_and_the_same_folder_zipped_in_another_order_hash_alike(tmp_path):
    folder = tmp_path / "bot"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "bot.toml").write_text('entry = "pkg:Bot"\n')
    for order, name in ((sorted, "a.zip"), (lambda x: sorted(x, reverse=True), "b.zip")):
        with zipfile.ZipFile(tmp_path / name, "w", zipfile.ZIP_DEFLATED if name == "a.zip" else zipfile.ZIP_STORED) \
                as archive:
            for path in order(p for p in folder.rglob("*") if p.is_file()):
                archive.write(path, path.relative_to(folder).as_posix())
    hashes = {tree_hash(folder), tree_hash(unpack(tmp_path / "a.zip", tmp_path / "a", LIMITS)),
              tree_hash(unpack(tmp_path / "b.zip", tmp_path / "b", LIMITS))}
    assert len(hashes) == 1
    (tmp_path / "a" / "bot.toml").chmod(0o755)  # the executable bit is part of what a bot is
    assert tree_hash(tmp_path / "a") not in hashes


# --- bots of many files in a league ---------------------------------------------------------------------------

ARENA_ROOT = Path(__file__).resolve().parent.parent
LEAGUE_TOML = """
name = "club"
seed = 11

[[games]]
game = "caterpillar"

[run]
workers = 1
batch_size = 8

[league]
deals = 1
placement = 1
"""

PACKAGE = {  # a package of two modules and a data file, read beside its module
    "bot.toml": 'entry = "mybot.core:MyBot"\n',
    "mybot/__init__.py": "",
    "mybot/core.py": (
        "from pathlib import Path\n"
        "from arena.bots import Bot\n"
        "from mybot.choose import pick\n\n"
        "OFFSET = int((Path(__file__).parent / 'offset.txt').read_text())\n\n\n"
        "class MyBot(Bot):\n"
        "    name = 'pkg'\n"
        "    games = {'caterpillar'}\n\n"
        "    def act(self, observation):\n"
        "        return pick(observation.legal_moves, OFFSET)\n"),
    "mybot/choose.py": "def pick(moves, offset):\n    return sorted(moves)[offset % len(moves)]\n",
    "mybot/offset.txt": "1\n",
}

PY_COMMAND = {  # a command bot in Python: a script, its helper module and its data file, found from its folder
    "bot.toml": 'command = "python3 main.py"\n',
    "main.py": (
        "import json, sys\n"
        "from helper import first\n\n"
        "NAME = open('name.txt').read().strip()  # relative: the working directory is the bot's folder\n"
        "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    if message['type'] == 'hello':\n"
        "        answer = {'name': NAME, 'games': ['caterpillar']}\n"
        "    elif message['type'] == 'reset':\n"
        "        answer = {'ok': True}\n"
        "    else:\n"
        "        answer = {'move': first(message['observation']['legal_moves'])}\n"
        "    print(json.dumps(answer), flush=True)\n"),
    "helper.py": "def first(moves):\n    return moves[-1]\n",
    "name.txt": "py-command\n",
}

C_BOT = r"""
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

/* first legal move, in any game: arena writes compact JSON, so finding the key is enough */
int main(void) {
    char *line = NULL;
    size_t size = 0;
    while (getline(&line, &size, stdin) > 0) {
        if (strstr(line, "\"type\":\"hello\"")) {
            puts("{\"name\":\"c-first\",\"games\":[\"caterpillar\"]}");
        } else if (strstr(line, "\"type\":\"reset\"")) {
            puts("{\"ok\":true}");
        } else {
            char *move = strstr(line, "\"legal_moves\":[\"");
            if (move == NULL) { puts("{\"error\":\"no legal moves\"}"); fflush(stdout); continue; }
            move += strlen("\"legal_moves\":[\"");
            *strchr(move, '"') = 0;
            printf("{\"move\":\"%s\"}\n", move);
        }
        fflush(stdout);
    }
    free(line);
    return 0;
}
"""


def write_tree(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def zip_folder(folder: Path, path: Path) -> Path:
    """The folder zipped as a user's zip tool does (modes kept), in reverse order."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(folder.rglob("*"), reverse=True):
            archive.write(file, file.relative_to(folder).as_posix())
    return path


def c_bot(tmp_path: Path) -> Path:
    """A C program compiled here, with its bot.toml: a folder holding the binary alone."""
    source = tmp_path / "first.c"
    source.write_text(C_BOT)
    folder = tmp_path / "cbot"
    folder.mkdir()
    subprocess.run(["cc", "-O1", "-o", folder / "mybot", source], check=True)
    (folder / "bot.toml").write_text('command = "./mybot"\n')
    return folder


def arena(*args, check=True):
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    if check:
        assert result.exit_code == 0, result.output
    return result


def make_league(tmp_path: Path) -> Path:
    (tmp_path / "league.toml").write_text(LEAGUE_TOML)
    arena("league", "new", tmp_path / "league", tmp_path / "league.toml")
    return tmp_path / "league"


def league_files(league: Path) -> dict[str, str]:
    """Every file and folder of the league, with its bytes' hash (folders: None)."""
    return {p.relative_to(league).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None
            for p in sorted(league.rglob("*"))}


@pytest.mark.parametrize("kind", list(REFUSALS))
def test_league_add_refuses_a_hostile_zip_with_one_line_and_writes_nothing(tmp_path, kind, hostile_zips):
    league = make_league(tmp_path)
    before = league_files(league)
    path = hostile_zips[kind]
    result = arena("league", "add", league, path, "--games", "1", check=False)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert f"bot.zip: {REFUSALS[kind]}" in result.stderr
    assert league_files(league) == before


def test_league_add_refuses_a_command_that_names_files_outside_its_folder(tmp_path):
    """The sandbox shows a command bot the files its command names: never the league's own."""
    league = make_league(tmp_path)
    before = league_files(league)
    for command in ("cat ../../catalog.sqlite", "cat /etc/passwd"):
        folder = write_tree(tmp_path / "sly", {"bot.toml": f'command = "{command}"\n'})
        result = arena("league", "add", league, folder, "--games", "1", check=False)
        assert result.exit_code == 2 and "is outside the bot's folder (no absolute paths, no ..)" in result.stderr
    assert league_files(league) == before


def test_a_package_zip_a_python_command_and_a_c_command_are_added_and_play_a_round(tmp_path):
    league = make_league(tmp_path)
    package = zip_folder(write_tree(tmp_path / "pkg", PACKAGE), tmp_path / "pkg.zip")
    py_command = zip_folder(write_tree(tmp_path / "pycmd", PY_COMMAND), tmp_path / "pycmd.zip")
    c_command = zip_folder(c_bot(tmp_path), tmp_path / "cbot.zip")
    kinds = {}
    for path in (package, py_command, c_command):
        said = arena("league", "add", league, path, "--games", "1").stdout
        label, kind = re.search(r"added '([\w-]+)' \(version 1, (\w+),", said).groups()
        kinds[label] = kind
    assert kinds == {"pkg": "package", "py-command": "command", "c-first": "command"}
    catalog = Catalog(league)
    frozen = {b.label: b.spec for b in catalog.bots()}
    catalog.close()
    assert all(spec.startswith("bots/") and (league / spec / "bot.toml").is_file() for spec in frozen.values())
    assert (league / frozen["c-first"] / "mybot").stat().st_mode & 0o111
    arena("league", "play", league, "--no-progress")
    catalog = Catalog(league)
    (round_,) = catalog.rounds()
    catalog.close()
    config = parse_config(round_.config, base=league)  # the round's config: each bot by its frozen folder
    entries = {b.name: b for b in config.bots}
    assert {name: entries[name].path for name in frozen} == frozen
    assert entries["pkg"].spec == str((league / frozen["pkg"]).resolve()) and entries["pkg"].command is None
    assert entries["pkg"].isolation == "sandbox"  # a folder always plays in its own process, sandboxed here
    for name in ("py-command", "c-first"):
        assert entries[name].folder == str((league / frozen[name]).resolve())
        assert entries[name].isolation == "sandbox"
    assert entries["c-first"].command == (str((league / frozen["c-first"] / "mybot").resolve()),)
    games = pq.read_table(league / "results").to_pandas()
    played = {name for players in games["players"] for name in players}
    assert set(frozen) <= played
    assert games["fault_seat"].isna().all(), games["fault"].dropna().tolist()


def test_a_folder_and_the_same_folder_zipped_are_one_bot(tmp_path):
    league = make_league(tmp_path)
    folder = write_tree(tmp_path / "pkg", PACKAGE)
    assert "added 'pkg'" in arena("league", "add", league, folder, "--games", "1").stdout
    said = arena("league", "add", league, zip_folder(folder, tmp_path / "pkg.zip"), "--games", "1").stdout
    assert said.startswith("unchanged: the same code is already in the league as 'pkg'")
    (folder / "mybot" / "offset.txt").write_text("2\n")  # a changed tree under a known name: a new version
    assert "added 'pkg@2' (version 2, package" in arena("league", "add", league, folder, "--games", "1").stdout


def test_a_package_without_a_bot_toml_is_named_by_its_entry_after_the_zip(tmp_path):
    league = make_league(tmp_path)
    files = {k: v for k, v in PACKAGE.items() if k != "bot.toml"}
    bare = zip_folder(write_tree(tmp_path / "pkg", files), tmp_path / "pkg.zip")
    result = arena("league", "add", league, bare, "--games", "1", check=False)
    assert result.exit_code == 2 and "pkg.zip: no bot.toml at its root" in result.stderr
    assert "added 'pkg'" in arena("league", "add", league, f"{bare}:mybot.core:MyBot", "--games", "1").stdout
    said = arena("league", "add", league, write_tree(tmp_path / "full", PACKAGE), "--games", "1").stdout
    assert said.startswith("unchanged")  # the entry written into its bot.toml: the same tree as one that had it


WHERE_AM_I = (
    "import json, os, sys\n"
    "try:\n"
    "    open('scratch', 'w')\n"
    "    writable = 'yes'\n"
    "except OSError:\n"
    "    writable = 'no'\n"
    "sees = os.path.exists('../../catalog.sqlite')\n"
    "sys.stdin.readline()\n"
    "print(json.dumps({'name': f'{os.getcwd()}|{writable}|{sees}', 'games': None}), flush=True)\n"
    "for line in sys.stdin:\n"
    "    print('{\"ok\": true}', flush=True)\n")


def test_a_command_bot_runs_in_its_folder_read_only_and_sees_nothing_beside_it(tmp_path):
    league = make_league(tmp_path)
    folder = write_tree(league / "bots" / "probe", {"bot.toml": 'command = "python3 main.py"\n',
                                                    "main.py": WHERE_AM_I})
    config = tmp_path / "probe.toml"
    config.write_text('name = "p"\nseed = 1\n[[games]]\ngame = "caterpillar"\ndeals = 1\n'
                      f'[[bots]]\nname = "random"\n[[bots]]\nname = "probe"\npath = "{folder}"\n')
    entry = load_config(config).bots[1]
    assert entry.isolation == "sandbox" and entry.folder == str(folder)
    assert entry_bot_class(entry, strict=True).name == "probe"
    probe = process_bot_class(entry.command, sandboxed=True, folder=entry.folder)
    assert probe.name == f"{folder}|no|False"
    assert process_bot_class(entry.command, sandboxed=False, folder=entry.folder).name == f"{folder}|yes|True"


def test_league_add_help_shows_the_folder_and_zip_forms():
    said = " ".join(arena("league", "add", "--help").stdout.split())
    for example in ("arena league add club mybot/", "arena league add club mybot.zip",
                    "arena league add club mybot.zip:mybot.core:MyBot"):
        assert example in said


def test_sigkill_during_a_zips_add_leaves_the_league_whole(tmp_path):
    """Killed while it unpacks, checks or records, `add` leaves no record or the whole one, never a frozen folder
    cut short; the next add of the same zip then takes it."""
    league = make_league(tmp_path)
    package = zip_folder(write_tree(tmp_path / "pkg", PACKAGE), tmp_path / "pkg.zip")
    for delay in (0.5, 1.2):
        process = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "add", str(league), str(package),
                                    "--games", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        catalog = Catalog(league)
        assert len(catalog.bots()) <= 1
        catalog.close()
    said = arena("league", "add", league, package, "--games", "1").stdout
    assert said.startswith(("added 'pkg'", "unchanged"))
    frozen = [p for p in (league / "bots").iterdir() if not p.name.startswith(".")]
    assert [tree_hash(p) for p in frozen] == [p.name for p in frozen] and len(frozen) == 1
