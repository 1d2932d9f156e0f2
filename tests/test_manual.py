"""The manual runs: every fenced code block of README.md and docs/*.md is executed as a reader would run it, or
says why not (docs/architecture.md#the-manual-is-tested).

What a block is, by the language after its fence:
- `console`, `bash`, `sh`: commands, run by `sh -e` in the page's folder with the project's `.venv/bin` first on
  PATH; they must exit 0. In a block with `$ ` prompts only the prompted lines are commands (the rest is their
  output, not compared).
- `toml`: a tournament config, or a fragment of one completed with a small base config (a game, `random`, and
  `greedy` when the fragment enters no bot), played by `arena tournament`.
- `python`: code, run by the venv's python in the page's folder; then every bot class it defines plays one
  game of each game it claims against `random`, and must finish it without a forfeit.
- `json`: each line, or else the whole block, parses as JSON.
- `text`: output, a layout or a diagram; never run. A block with no language fails: say what it is.

Each page runs in a folder of its own that holds what a reader's clone holds (copies of configs/, docs/,
examples/, benchmarks/, and the project's .venv linked), with ARENA_HOME inside it; its blocks run in order,
so a block may use what an earlier one made (a league, a run directory). Pages run in parallel.

HTML comments on the lines just before a fence direct it:
- `<!-- not run: REASON -->`: the block is not run, for that reason (a server that runs until stopped, minutes
  of play, a file the reader brings).
- `<!-- file: PATH -->`: the block is written to PATH in the page's folder, for a later block to use (a config
  that a command names, a bot's file); a python file is also run as above.
- `<!-- continues -->`: a python or toml block is the previous block of its language continued (a bot's methods
  after its class): the two are run as one.
- `<!-- setup: COMMAND -->`: COMMAND runs first, for what the page takes as done (`make demo`'s run).

Budgets shrink for the test: in commands, configs and the copied configs/ alike, `--games`, `--deals` and
`--max-deals` above a few are cut down, as are `deals` and `max_deals` keys, `--workers N` and `workers = N`
become one local worker (no Ray: tests/test_cluster.py covers Ray), and an `arena match` that gives no
`--max-deals` stops after 20 deals. See SHRINK and ADDED below.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena.config.toml import toml_text

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COPIED = ("configs", "docs", "examples", "benchmarks")
"""What a reader's clone holds that the manual's commands name, copied into each page's folder."""
COMMANDS, KINDS = {"console", "bash", "sh"}, {"console", "bash", "sh", "toml", "python", "json", "text"}
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
DIRECTIVE = re.compile(r"^\s*<!--\s*(not run|file|continues|setup)\s*(?::\s*(.*?))?\s*-->\s*$")
SHRINK = [
    (re.compile(r"(--(?:games|rounds)[ =])(\d+)"), lambda n: min(n, 40)),
    (re.compile(r"(--(?:deals|max-deals)[ =])(\d+)"), lambda n: min(n, 20)),
    (re.compile(r"(?m)^(\s*deals\s*=\s*)(\d+)"), lambda n: min(n, 2)),
    (re.compile(r"(?m)^(\s*max_deals\s*=\s*)(\d+)"), lambda n: min(n, 20)),
    (re.compile(r"(--workers[ =]|(?m:^)\s*workers\s*=\s*)(\d+)"), lambda n: 1),
]
"""(pattern, new number): a budget, the number in the pattern's second group, and what the test plays instead."""
ADDED = [("arena match ", "--max-deals 20"), ("arena match ", "--workers 1")]
"""(command, option): a command that does not give the option is given it (its default is a long match on Ray)."""
BLOCK_SECONDS = 180
BASE_CONFIG = {"name": "fragment", "seed": 1, "games": [{"game": "caterpillar", "deals": 2}], "run": {"workers": 1}}


@dataclass
class Block:
    """One fenced code block of a page, with the directives of the comments just before it."""

    page: Path
    line: int
    kind: str
    text: str
    directives: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line} ({self.kind or 'no language'})"


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of a page, in order (a block indented in a list item included)."""
    lines, found, i = page.read_text().splitlines(), [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, end = len(opening.group(1)), i + 1
        while end < len(lines) and not re.match(r"^\s*```\s*$", lines[end]):
            end += 1
        directives, before = {}, i - 1
        while before >= 0 and (directive := DIRECTIVE.match(lines[before])):
            directives[directive.group(1)] = directive.group(2) or ""
            before -= 1
        text = "\n".join(line[indent:] for line in lines[i + 1:end]) + "\n"
        found.append(Block(page, i + 1, opening.group(2), text, directives))
        i = end + 1
    return found


def shrink(text: str) -> str:
    """`text` with its budgets cut down for a quick run (SHRINK, ADDED)."""
    for pattern, cut in SHRINK:
        text = pattern.sub(lambda match, cut=cut: f"{match.group(1)}{cut(int(match.group(2)))}", text)
    lines = []
    for line in text.split("\n"):
        command, comment = re.match(r"(.*?)(\s*#.*)?$", line).groups()
        for prefix, option in ADDED:
            if command.lstrip().startswith(prefix) and option.split()[0] not in command:
                command += " " + option
        lines.append(command + (comment or ""))
    return "\n".join(lines)


def commands(block: Block) -> str:
    """The shell text of a command block: its `$ ` lines where it has prompts, else all of it."""
    prompted = [line[2:] for line in block.text.splitlines() if line.startswith("$ ")]
    return "\n".join(prompted) + "\n" if prompted else block.text


def test_every_block_says_what_it_is():
    """Every block has a language the manual test knows, every `not run` gives its reason, and `file:` a path."""
    wrong = []
    for page in PAGES:
        for block in blocks(page):
            if block.kind not in KINDS:
                wrong.append(f"{block}: tag it {', '.join(sorted(KINDS))}")
            if "not run" in block.directives and len(block.directives["not run"]) < 10:
                wrong.append(f"{block}: `not run` needs its reason")
            wrong += [f"{block}: `{name}:` needs a value" for name in ("file", "setup")
                      if name in block.directives and not block.directives[name]]
    assert not wrong, "\n".join(wrong)


def test_blocks_are_read_with_their_directives(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Text\n\n<!-- not run: a server that runs until stopped -->\n```console\n$ arena x\nout\n```\n\n"
                    "- a list item:\n\n  <!-- file: bots/mine.py -->\n  <!-- continues -->\n  ```python\n"
                    "  def act(self):\n      pass\n  ```\n")
    first, second = blocks(page)
    assert (first.line, first.kind, first.directives) == (4, "console", {"not run": "a server that runs until stopped"})
    assert commands(first) == "arena x\n"
    assert (second.kind, second.directives) == ("python", {"file": "bots/mine.py", "continues": ""})
    assert second.text == "def act(self):\n    pass\n"


def test_shrink_cuts_budgets_and_leaves_the_rest():
    assert shrink("arena league play club --games 5000 --workers 2") == "arena league play club --games 40 --workers 1"
    assert shrink("deals = 500\nrules = { max_deals = 50 }\nworkers = 0\n") == (
        "deals = 2\nrules = { max_deals = 50 }\nworkers = 1\n")
    assert shrink("arena match caterpillar a b --max-deals 8") == (
        "arena match caterpillar a b --max-deals 8 --workers 1")
    assert shrink("arena match caterpillar a b --sprt 0,10  # why\n") == (
        "arena match caterpillar a b --sprt 0,10 --max-deals 20 --workers 1  # why\n")


class Reader:
    """A reader at a page: a folder like a clone of the project, where the page's blocks run in order."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        for top in COPIED:
            shutil.copytree(ROOT / top, folder / top, ignore=shutil.ignore_patterns("__pycache__", "*.png"))
        for config in (folder / "configs").glob("*.toml"):
            config.write_text(shrink(config.read_text()))
        (folder / ".venv").symlink_to(ROOT / ".venv")
        venv_bin = str(ROOT / ".venv" / "bin")
        self.env = {**os.environ, "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}",
                    "ARENA_HOME": str(folder / ".arena"), "VIRTUAL_ENV": str(ROOT / ".venv"), "NO_COLOR": "1",
                    "COLUMNS": "200"}
        self.python = str(ROOT / ".venv" / "bin" / "python")
        self.previous: dict[str, str] = {}  # by language: the text of the last block, for `continues`

    def run(self, args: list[str], where: Block) -> str:
        """Runs a command in the folder; a failure names the block and shows the command's output."""
        try:
            done = subprocess.run(args, cwd=self.folder, env=self.env, capture_output=True, text=True,
                                  timeout=BLOCK_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{where}: still running after {BLOCK_SECONDS} s: {args}", pytrace=False)
        if done.returncode != 0:
            pytest.fail(f"{where}: exit {done.returncode}\n{args}\n--- stdout\n{done.stdout[-3000:]}\n"
                        f"--- stderr\n{done.stderr[-3000:]}", pytrace=False)
        return done.stdout

    def shell(self, script: str, where: Block) -> str:
        return self.run(["sh", "-e", "-c", shrink(script)], where)

    def read(self, block: Block) -> None:
        """Runs one block as its language and directives say."""
        if "not run" in block.directives or block.kind == "text":
            return
        if "setup" in block.directives:
            self.shell(block.directives["setup"], block)
        text = block.text
        if "continues" in block.directives and block.kind not in COMMANDS:  # commands carry on in the folder anyway
            text = self.previous.get(block.kind, "") + "\n" + text
        self.previous[block.kind] = text
        if block.kind in COMMANDS:
            self.shell(commands(block), block)
        elif block.kind == "json":
            parse_json(block)
        elif block.kind == "toml":
            self.config(block, text)
        elif block.kind == "python":
            self.code(block, text)

    def file(self, block: Block, text: str, default: str) -> Path:
        path = self.folder / (block.directives.get("file") or default)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def config(self, block: Block, text: str) -> None:
        text = shrink(text)
        try:
            config = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            pytest.fail(f"{block}: not TOML: {error}", pytrace=False)
        if "file" in block.directives:
            self.file(block, text, "")
            return
        whole = {**BASE_CONFIG, **config, "name": f"block-{block.line}"}
        if "bots" not in config:
            whole["bots"] = [{"name": "random"}, {"name": "greedy"}]
        elif len(config["bots"]) < 2:
            whole["bots"] = [*config["bots"], {"name": "random"}]
        whole["run"] = {**BASE_CONFIG["run"], **config.get("run", {})}
        path = self.file(block, shrink(toml_text(whole)), f"block-{block.line}.toml")
        self.run(["arena", "tournament", path.name, "--no-progress", "--out", "block-runs", "--overwrite"], block)

    def code(self, block: Block, text: str) -> None:
        path = self.file(block, text, f"block_{block.line}.py")
        played = json.loads(self.run([self.python, "-c", RUN_AND_PLAY_BOTS, path.name], block).splitlines()[-1])
        forfeits = [f"{bot} forfeits {game}: {fault}" for bot, game, fault in played if fault is not None]
        assert not forfeits, f"{block}: " + "; ".join(forfeits)


RUN_AND_PLAY_BOTS = """
import json, runpy, sys
import arena
from arena.bots import not_a_bot
from arena.games import GAME_IDS
names = runpy.run_path(sys.argv[1], run_name="__main__")
played = []
for name, value in names.items():
    if not_a_bot(value) is None and value.__module__ == "__main__":
        for game in sorted(value.games) if getattr(value, "games", None) is not None else GAME_IDS:
            transcript = arena.play(game, [f"{sys.argv[1]}:{name}", "random"], seed=1, move_time_limit=1.0)
            played.append([name, game, transcript["fault"]])
print(json.dumps(played))
"""
"""Runs a python block as a script, then plays each bot class it defines in each game it claims against `random`
(from a process of its own, on `arena play`'s move clock), and prints each game's fault (None: no forfeit)."""


def parse_json(block: Block) -> None:
    try:
        json.loads(block.text)
    except json.JSONDecodeError:
        for number, line in enumerate(block.text.splitlines()):
            try:
                json.loads(line)
            except json.JSONDecodeError as error:
                pytest.fail(f"{block} line {number + 1}: not JSON: {error}", pytrace=False)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_the_page_runs(page, tmp_path):
    """Every block of the page that is a command, a config, code or JSON runs as written (budgets shrunk)."""
    reader = Reader(tmp_path)
    for block in blocks(page):
        reader.read(block)


def test_the_benchmarks_run_as_the_manual_gives_them():
    """The manual gives benchmarks as commands (`benchmarks/ladder.py reports/ladder`): each is an executable with
    a shebang that finds the venv's python on PATH (`python3`, as an activated venv has it)."""
    for script in sorted((ROOT / "benchmarks").glob("*.py")):
        assert script.read_text().startswith("#!/usr/bin/env python3\n"), f"{script.name}: no shebang"
        assert os.access(script, os.X_OK), f"{script.name}: not executable (chmod +x)"
