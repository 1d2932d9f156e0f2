"""The manual: every relative link of README.md and docs/ leads to a file of the project (and to a heading
of it, for a link with an anchor), and nothing points outside the project, where a clone has nothing."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
"""A markdown link `[text](target)` (images aside); code spans are taken out before it is applied."""
SOURCES = ("arena", "bots", "tests", "benchmarks", "docs", "examples", "configs", ".ci")


def links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)  # code blocks
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans
    return LINK.findall(text)


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub makes them: lower case, punctuation dropped, spaces to -."""
    headings = re.findall(r"^#+\s+(.*)$", re.sub(r"```.*?```", "", page.read_text(), flags=re.S), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_relative_link_resolves_inside_the_project(page):
    checked = 0
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        found = (page.parent / path).resolve() if path else page
        assert found.is_relative_to(ROOT), f"{target}: outside the project"
        assert found.exists(), f"{target}: no such file"
        if anchor and found.suffix == ".md":
            assert anchor in anchors(found), f"{target}: no such heading"
        checked += 1
    assert checked or page.name != "README.md", "the front page links the manual"


def test_the_manual_covers_what_the_front_page_promises():
    linked = {Path(target.partition("#")[0]).name for target in links(ROOT / "README.md")}
    assert {"commands.md", "rules.md", "numbers.md", "stopping.md", "untrusted-bots.md", "ray.md", "interop.md",
            "python-api.md", "benchmarks.md", "writing-a-bot.md", "protocol.md"} <= linked
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


def test_nothing_points_outside_the_project():
    """No file refers to a sibling directory of the project (a clone has none)."""
    files = [ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml"]
    files += [p for top in SOURCES for p in (ROOT / top).rglob("*") if p.is_file() and p.suffix in
              (".py", ".md", ".toml", ".sh", ".txt", ".json", "") and "__pycache__" not in p.parts]
    outside = "../" + "shared"  # spelt in two, so that this file does not find itself
    found = [f"{p.relative_to(ROOT)}" for p in files if outside in p.read_text(errors="replace")]
    assert found == []


def observation_tables(page: Path) -> dict[str, list[str]]:
    """The first column of each `### Observation of `GAME`` table of a page, by game."""
    tables = {}
    for game, body in re.findall(r"^### Observation of `(\w+)`\n(.*?)(?=^#|\Z)", page.read_text(), flags=re.M | re.S):
        tables[game] = re.findall(r"^\| `(\w+)` \|", body, flags=re.M)
    return tables


def test_the_observation_tables_list_every_field():
    """writing-a-bot.md has a table per game that lists every field of its Observation, in order, and no other."""
    from arena.games import GAME_IDS, get_game

    tables = observation_tables(ROOT / "docs" / "writing-a-bot.md")
    assert sorted(tables) == sorted(GAME_IDS)
    for game_id, fields in tables.items():
        assert fields == list(get_game(game_id).Observation._fields), game_id


def test_every_test_a_page_names_exists():
    """A claim backed by a test names it: a renamed or removed test leaves the claim unbacked, so a page may cite
    only test functions (`test_...`) and test files (`tests/test_....py`) that the project holds."""
    tests = list((ROOT / "tests").rglob("*.py"))
    known = {path.stem for path in tests} | {name for path in tests
                                             for name in re.findall(r"def (test_\w+)", path.read_text())}
    cited = {(page.relative_to(ROOT).as_posix(), name) for page in PAGES + [ROOT / "tests" / "zoo" / "README.md"]
             for name in re.findall(r"\b(test_\w+)", page.read_text())}
    missing = sorted(f"{page}: {name}" for page, name in cited if name not in known)
    assert not missing, "pages cite tests that do not exist:\n" + "\n".join(missing)


def commands_and_options() -> list[tuple[str, list[list[str]]]]:
    """Every command of `arena` and `arena league` ("league play"), with each option's names (`--progress`,
    `--no-progress`)."""
    import typer

    from arena.cli import app

    def walk(group, path):
        for name, command in sorted(group.commands.items()):
            if hasattr(command, "commands"):
                yield from walk(command, [*path, name])
            else:
                yield " ".join([*path, name]), [[*p.opts, *p.secondary_opts] for p in command.params
                                                if p.param_type_name == "option"]

    return list(walk(typer.main.get_command(app), []))


def test_every_command_has_an_example_in_its_help():
    from typer.testing import CliRunner

    from arena.cli import app

    missing = []
    for command, _ in commands_and_options():
        shown = CliRunner().invoke(app, [*command.split(), "--help"], env={"COLUMNS": "200"}).output
        if not re.search(rf"Examples?:\s+arena {command}\b", shown):
            missing.append(command)
    assert not missing, f"no `Example: arena ...` in the --help of {missing}"


def test_docs_commands_lists_every_option_of_every_command():
    """Each command has a row in the table of docs/commands.md (`| `arena league play DIR ...` |`) that names
    every one of its options (either name of a flag pair)."""
    text = {m.group(1): m.group(0) for m in re.finditer(r"^\| `arena ((?:league )?[a-z\-]+)[ `].*$",
                                                        (ROOT / "docs" / "commands.md").read_text(), flags=re.M)}
    wrong = []
    for command, options in commands_and_options():
        row = text.get(command)
        if row is None:
            wrong.append(f"arena {command}: no row")
            continue
        wrong += [f"arena {command}: {names[0]}" for names in options
                  if names != ["--help"] and not any(re.search(rf"{name}\b", row) for name in names)]
    assert not wrong, "docs/commands.md does not give:\n" + "\n".join(wrong)


def test_the_demo_figures_come_from_its_config():
    """README.md, `make demo`'s message and configs/quickstart.toml give the games the demo plays and how many of
    the bundled bots; its config is what decides them."""
    from arena.bots import BUNDLED_DIR
    from arena.bots.listing import listed_bots
    from arena.config import load_config
    from arena.tournament.schedule import Schedule

    config = load_config(ROOT / "configs" / "quickstart.toml")
    bundled = [name for name, bot in listed_bots().items() if bot.spec.startswith(str(BUNDLED_DIR))]
    games, bots = f"{Schedule(config).total:,} games", f"{len(config.bots)} of the {len(bundled)} bundled bots"
    readme, makefile = (ROOT / "README.md").read_text(), (ROOT / "Makefile").read_text()
    assert games in readme and bots in readme
    assert games in makefile and bots in makefile
    assert games in (ROOT / "configs" / "quickstart.toml").read_text()
