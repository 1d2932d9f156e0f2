"""The shape of the code: arena's modules import one another in one direction only (no circle, lazy imports
inside functions included), and each module stays a room of one concern, at most about 500 lines (a game's
rules may be longer)."""

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "bots")
MAX_LINES = 500
LONG_GAMES = {path.relative_to(ROOT).as_posix() for path in (ROOT / "arena" / "games").glob("*/rules.py")}
"""A game's rules, which may be longer."""
NOT_YET_SPLIT: set[str] = set()
"""Rooms still over the limit, each to be split; the test fails if one of them shrinks below it, so the list is
taken down as they are."""


def modules() -> dict[str, Path]:
    """Every module of arena/ and bots/ by its dotted name (a package by its own name)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


@cache
def syntax(path: Path) -> ast.Module:
    """A file's syntax tree, parsed once for every test of the process (the tests only read it)."""
    return ast.parse(path.read_text(), str(path))


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that `name` imports anywhere in its file, at the top or inside a function.
    `from package import module` counts as importing the module, not the package."""
    named: set[str] = set()
    for node in ast.walk(syntax(path)):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = import_source(node, name, path)
            submodules = {f"{source}.{alias.name}" for alias in node.names} & known.keys()
            named.update(submodules)
            if len(submodules) < len(node.names):
                named.add(source)
    found = set()
    for module in named:
        while module and module not in known:  # `import arena.games.base` of a name inside a module
            module = module.rpartition(".")[0]
        if module and module != name:
            found.add(module)
    return found


def import_source(node: ast.ImportFrom, name: str, path: Path) -> str:
    """The dotted module a `from ... import` in module `name` (at `path`) imports from, relative ones resolved."""
    if not node.level:
        return node.module or ""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


@cache
def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> dict[frozenset[str], list[str]]:
    """Each group of modules that reach one another (Tarjan's strongly connected components), with one
    circle through it as the path a -> b -> ... -> a."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    found = {}
    for group in (g for g in groups if len(g) > 1):
        start = min(group)
        paths = {start: [start]}
        frontier = [start]
        circle = None
        while circle is None:  # breadth first inside the group, back to the start
            step = []
            for node in frontier:
                for target in sorted(graph[node] & group):
                    if target == start:
                        circle = paths[node] + [start]
                        break
                    if target not in paths:
                        paths[target] = paths[node] + [target]
                        step.append(target)
                if circle:
                    break
            frontier = step
        found[frozenset(group)] = circle
    return found


def test_the_analysis_finds_a_circle_and_a_lazy_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == {frozenset("abc"): ["a", "b", "c", "a"]}
    assert cycles({"a": {"b"}, "b": set()}) == {}
    graph = import_graph()
    assert "arena.games.base" in graph["arena.games"]  # a top-level import
    assert "arena.api" in graph["arena"]  # inside a function


def test_no_module_imports_itself_through_others():
    circles = cycles(import_graph()).values()
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(circle) for circle in circles)


def test_every_module_is_a_room_of_one_concern():
    lines = {path.relative_to(ROOT).as_posix(): len(path.read_text().splitlines())
             for path in sorted((ROOT / "arena").rglob("*.py"))}
    too_long = {name: count for name, count in lines.items() if count > MAX_LINES and name not in LONG_GAMES}
    assert too_long.keys() <= NOT_YET_SPLIT, f"over {MAX_LINES} lines: {too_long}"
    split = NOT_YET_SPLIT - too_long.keys()
    assert not split, f"now under {MAX_LINES} lines, take them off NOT_YET_SPLIT: {sorted(split)}"


def layers() -> dict[str, int]:
    """The layer of each of arena's top-level modules, counted from the top, as docs/architecture.md's table
    lists them (`report/` for the package arena.report)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    rows = [line.split("|")[2] for line in text.splitlines() if line.startswith("| ") and "`" in line.split("|")[2]]
    return {name.removesuffix(".py").removesuffix("/"): depth
            for depth, row in enumerate(rows) for name in re.findall(r"`([^`]+)`", row)}


def test_imports_go_down_the_layers_of_the_architecture_page():
    depth = layers()
    top = {name: name.split(".")[1] for name in import_graph() if name.startswith("arena.")}
    assert set(top.values()) <= depth.keys(), f"not in docs/architecture.md: {set(top.values()) - depth.keys()}"
    climbing = [f"{name} -> {target}" for name, targets in import_graph().items() if name in top
                for target in targets if target in top and depth[top[target]] < depth[top[name]]]
    assert not climbing, "imports up the layers:\n" + "\n".join(sorted(climbing))


def private_imports(name: str, path: Path, known: dict[str, Path]) -> list[str]:
    """Each `from M import _x` and `M._x` in `name`'s file where M is another module of `known`: a name with a
    leading underscore belongs to its own module, and one that another module needs should be public."""
    tree = syntax(path)
    aliases: dict[str, str] = {}  # a local name bound to a module of `known`
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    aliases[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source = import_source(node, name, path)
            for alias in node.names:
                if f"{source}.{alias.name}" in known:
                    aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                elif source in known and source != name and is_private(alias.name):
                    found.append(f"{name}:{node.lineno} from {source} import {alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            dotted = dotted_name(node.value)
            module = aliases.get(dotted) if dotted else None
            if module is None and dotted in known:  # `import arena.cards`, then `arena.cards._x`
                module = dotted
            if module and module != name:
                found.append(f"{name}:{node.lineno} {dotted}.{node.attr} of {module}")
    return sorted(found, key=lambda line: int(line.split(" ")[0].rpartition(":")[2]))


def is_private(identifier: str) -> bool:
    """A name kept to its own module: one leading underscore, not a dunder such as `__version__`."""
    return identifier.startswith("_") and not identifier.startswith("__")


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.c` for an expression that is only names and attributes, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted_name(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def test_the_private_analysis_finds_each_form(tmp_path):
    known = {"pkg": Path("pkg/__init__.py"), "pkg.a": Path("pkg/a.py"), "pkg.b": Path("pkg/b.py")}
    source = ("from pkg.a import public, _hidden\nfrom . import a as other\nimport pkg.b\n"
              "from .a import (\n    _wrapped,\n)\nother._inner()\npkg.b._deep\nself._mine\n__all__ = []\n")
    path = tmp_path / "c.py"
    path.write_text(source)
    found = private_imports("pkg.c", path, known | {"pkg.c": path})
    assert found == ["pkg.c:1 from pkg.a import _hidden", "pkg.c:4 from pkg.a import _wrapped",
                     "pkg.c:7 other._inner of pkg.a", "pkg.c:8 pkg.b._deep of pkg.b"]


def test_no_module_takes_another_modules_private_name():
    known = modules()
    found = [line for name, path in known.items() for line in private_imports(name, path, known)]
    assert not found, "private names taken from other modules (make them public):\n" + "\n".join(found)


def test_every_exception_derives_from_arena_error():
    """One root: an exception class defined anywhere in arena derives from ArenaError (directly or through another),
    so the command line catches that one; only the control-flow signals a bot must not swallow stand apart."""
    import builtins

    signals = {"MoveTimeout", "LeaveGame"}  # BaseException on purpose (arena/errors.py says why)
    bases: dict[str, list[str]] = {}
    for path in (ROOT / "arena").rglob("*.py"):
        for node in ast.walk(syntax(path)):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = [b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
                                    if isinstance(b, ast.Name | ast.Attribute)]
    builtin = lambda name: isinstance(getattr(builtins, name, None), type) and issubclass(getattr(builtins, name),
                                                                                          BaseException)
    exception = lambda name: builtin(name) or any(exception(b) for b in bases.get(name, ()) if b != name)
    rooted = lambda name: name == "ArenaError" or any(rooted(b) for b in bases.get(name, ()) if b != name)
    defined = [name for name in bases if name != "ArenaError" and exception(name)]
    assert len(defined) > 20, defined  # the walk found arena's exceptions
    assert sorted(n for n in defined if not rooted(n) and n not in signals) == []


def test_the_parent_death_signal_is_asked_in_one_place():
    """PR_SET_PDEATHSIG (prctl option 1) is written once, in arena/isolation/limits.py; every child calls die_with."""
    asking = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "arena").rglob("*.py")
                    if re.search(r"prctl\((1|PR_SET_PDEATHSIG)\b", path.read_text()))
    assert asking == ["arena/isolation/limits.py"], asking


FLAT_AT_MOST = 10
"""Modules that stand at the top of arena/ beside its packages: the public entry points and what every layer shares."""


def test_few_modules_stand_flat_in_arena():
    flat = sorted(path.name for path in (ROOT / "arena").glob("*.py"))
    assert len(flat) <= FLAT_AT_MOST, f"{len(flat)} modules flat in arena/ (at most {FLAT_AT_MOST}): {flat}"


REPORT_READERS = ("arena.cli", "arena.api", "arena.league", "arena.server", "arena.report")
"""The layers that may import arena.report: the command layer and the API (which write a run's report once the run
is done), the league and the server (which write its replay pages); never the engine below them."""


def test_only_the_fronts_and_the_league_import_the_report():
    within = lambda name, packages: any(name == p or name.startswith(p + ".") for p in packages)
    found = sorted(f"{name} -> {target}" for name, targets in import_graph().items() for target in targets
                   if within(target, ("arena.report",)) and not within(name, REPORT_READERS))
    assert not found, "imports of arena.report below the command layer:\n" + "\n".join(found)


def test_every_page_renders_through_the_one_environment_of_arena_web():
    """One Jinja2 environment, in arena/web/, renders every page (the filters, the escaping and the templates are set in
    one place), and no module writes a page's HTML itself."""
    environments = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "arena").rglob("*.py")
                          if "jinja2.Environment(" in path.read_text())
    assert environments == ["arena/web/__init__.py"], environments
    pages = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "arena").rglob("*.py")
                   if re.search(r"<html|<!doctype", path.read_text(), re.I))
    assert pages == [], pages


def test_only_the_command_line_prints():
    """What arena's modules say goes to `logging` (the command line shows warnings as `warning:` lines on stderr, the
    server's handlers decide where its notes go), never to a bare print: only arena/cli/ prints."""
    found = [f"{path.relative_to(ROOT)}:{node.lineno}" for path in sorted((ROOT / "arena").rglob("*.py"))
             if "cli" not in path.relative_to(ROOT / "arena").parts[:1]
             for node in ast.walk(syntax(path))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"]
    assert not found, "print outside arena/cli (use logging): " + ", ".join(found)


def test_no_module_wires_another_on_import():
    """What a module does never hangs on what a process imported first: no import kept only for what importing does
    (`# noqa: F401` on an import of arena), and no module that sets a name of another module as it is imported
    (`other.NAME = ...`, `other.TABLE[key] = ...` at the top of a file): a function found elsewhere is named in a table
    and imported when called (`arena.bots.implementation`)."""
    known = modules()
    found = []
    for name, path in known.items():
        text = path.read_text()
        found += [f"{name}:{number} {line.strip()}" for number, line in enumerate(text.splitlines(), 1)
                  if re.match(r"\s*(from arena\S* import|import arena)", line) and "noqa: F401" in line]
        tree = syntax(path)
        aliases = {alias.asname or alias.name: alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                   for alias in node.names if alias.name in known}
        aliases |= {alias.asname or alias.name: f"{import_source(node, name, path)}.{alias.name}"
                    for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names
                    if f"{import_source(node, name, path)}.{alias.name}" in known}
        for node in tree.body:
            for target in node.targets if isinstance(node, ast.Assign) else []:
                while isinstance(target, ast.Subscript):
                    target = target.value
                dotted = dotted_name(target.value) if isinstance(target, ast.Attribute) else None
                if dotted is not None and aliases.get(dotted, dotted if dotted in known else None) not in (None, name):
                    found.append(f"{name}:{node.lineno} sets {dotted}.{target.attr}")
    assert not found, "modules wired on import:\n" + "\n".join(found)


def test_every_function_named_in_a_table_is_there():
    """The functions that arena.bots and arena.config name as `module:function` rather than import (the spec
    loaders, the listing's host asker, a config's bot checks) each exist where they are named."""
    from arena.bots import SPEC_LOADERS, implementation
    from arena.bots.listing import ASK_HOSTS
    from arena.config.bot_entries import BOT_CHECKS

    for where in [*SPEC_LOADERS.values(), ASK_HOSTS, BOT_CHECKS]:
        assert callable(implementation(where)), where


def test_one_supervisor_starts_the_servers_children():
    """arena/isolation/supervisor.py starts, watches, restarts and stops the server's long-lived children (the play
    loop's, the upload checker's) and its replays' children: the server starts no process itself (no subprocess,
    no asyncio subprocess, no fork in arena/server/), and only the supervisor hands a child the `--parent` it dies
    with (die_with)."""
    def starts_processes(tree: ast.AST) -> bool:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [alias.name for alias in node.names] + [getattr(node, "module", None) or ""]
                if any(name.split(".")[0] == "subprocess" for name in names):
                    return True
            if isinstance(node, ast.Attribute) and (node.attr.startswith("create_subprocess_")
                                                    or node.attr in {"fork", "forkpty", "posix_spawn"}):
                return True
        return False

    server = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "arena" / "server").rglob("*.py")
                    if starts_processes(syntax(path)))
    assert server == [], f"the server starts processes itself, not through arena/isolation/supervisor.py: {server}"
    parents = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "arena").rglob("*.py")
                     if '"--parent"' in path.read_text())
    assert parents == ["arena/isolation/supervisor.py"], parents


def test_one_replay_in_a_child():
    """A game is replayed in a child one way, under one time limit: REPLAY_SECONDS is defined once, in
    arena/tournament/replay.py, and the children answer through arena/isolation/supervisor.py's run_jobs."""
    defined = sorted(f"{path.relative_to(ROOT).as_posix()}:{node.lineno}" for path in (ROOT / "arena").rglob("*.py")
                     for node in ast.walk(syntax(path))
                     if isinstance(node, ast.Assign | ast.AnnAssign)
                     and any(isinstance(t, ast.Name) and t.id == "REPLAY_SECONDS"
                             for t in (node.targets if isinstance(node, ast.Assign) else [node.target])))
    assert [place.partition(":")[0] for place in defined] == ["arena/tournament/replay.py"], defined


GAME_DRIVERS = ("arena/cli/human.py", "arena/report")
"""What shows a game by asking its views (`get_view`, arena/games/<game>/views.py): a person's seat at the terminal and
the replay page. A new game touches its own package and the registry, never these."""


def test_the_drivers_of_the_games_views_name_no_game():
    """No class, table, branch or script of the drivers names a game, in any spelling (`GiveOrTakeView`, "Give or
    Take", `give_or_take(f)` in the page's script); a docstring or a comment may, as an example."""
    from arena.games import GAME_IDS

    squeezed = lambda text: re.sub(r"[^a-z]", "", text.lower())
    games = {squeezed(game): game for game in GAME_IDS}
    paths = [path for place in GAME_DRIVERS
             for path in ([ROOT / place] if place.endswith(".py") else sorted((ROOT / place).rglob("*.py")))]
    found = []
    for path in paths:
        tree = syntax(path)
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
                      and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                words = [node.value]
            elif isinstance(node, ast.Name | ast.Attribute | ast.FunctionDef | ast.ClassDef | ast.arg):
                words = [getattr(node, field) for field in ("id", "attr", "name", "arg") if hasattr(node, field)]
            else:
                continue
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {game}" for word in words
                      for key, game in games.items() if key in squeezed(word)]
    assert paths and not found, "games named in their views' drivers:\n" + "\n".join(found)
