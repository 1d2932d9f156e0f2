"""The bots that can be named, listed without running their code in this process: each file read as source
(`ast`), and only a class that reading cannot tell about asked, in a host process of its own under a time
limit (arena/isolation/). `arena bots` lists them this way, and `arena play` finds a bot by name this way
before it starts the bot's host.

Reading a file finds each class that derives from `Bot` (imported from `arena.bots`, or a class of the same
file that does), with its `name` and `games` when they are literals (a string, None, a set, tuple or list of
strings, `set(...)` of one, or a name the module binds to one) and its docstring. A class whose base is
imported from elsewhere, or whose `name` or `games` is computed, is unclear: its host is asked (a hello, as a
config's check). A class with an unclear base and no `name` of its own is no bot here: in a file of its own
it would only repeat its base's name.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.bots import BUNDLED, BUNDLED_DIR, ENTRY_POINT_GROUP, BotError, bot_dirs
from arena.bots.registry import load_registry
from arena.errors import ArenaError

TIME_LIMIT = 5.0
"""Seconds a host process may take to load and build a bot that reading its source could not tell about."""


@dataclass(frozen=True)
class Listed:
    """A bot as `arena bots` lists it."""

    name: str
    games: tuple[str, ...] | None
    """The games it plays (None: any game)."""
    about: str
    """The first line of its class's docstring."""
    spec: str
    """Where it is: `/abs/file.py:Class`, `module:Class`, or a registered `command: ...` spec."""


ASK_HOSTS: Callable[[list[str], float], list] | None = None
"""Asks each spec's bot (a Python class in the built-in host, or a `command:`) hello in a process of its own within a
time limit: its answer or the error (arena.isolation sets it on import: this module runs no bot)."""


class Unclear(ArenaError):
    """What reading the source cannot tell: only running the code can."""


_BOT = ("", None)
"""The name and games of `Bot` itself, which each bot class starts from."""
_COLLECTIONS = {"set", "frozenset", "tuple", "list", "sorted"}


class _Reader:
    """One module's source: what its top-level names are, and which of its classes are bots."""

    def __init__(self, tree: ast.Module) -> None:
        self.bot_names: set[str] = set()  # names of arena.bots.Bot here
        self.bot_modules: set[str] = set()  # names of the module arena.bots here (`from arena import bots`)
        self.arena_names: set[str] = set()  # names of the package arena (`import arena.bots`)
        self.unknown: set[str] = set()  # names bound to what only running the code tells
        self.values: dict[str, object] = {}  # names bound to literals
        self.classes: dict[str, tuple | None] = {}  # this module's classes: a bot's (name, games), or None
        self.star = False  # `from x import *`: any name may be anything
        self.found: list[tuple[str, tuple, str]] = []  # (class, (name, games), docstring's first line)
        self.unclear: list[str] = []  # classes only their host can tell about
        for node in tree.body:
            self.statement(node)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                local = alias.asname or alias.name
                self.star |= alias.name == "*"
                if node.module == "arena.bots" and alias.name == "Bot":
                    self.bot_names.add(local)
                elif node.module == "arena" and alias.name == "bots":
                    self.bot_modules.add(local)
                else:
                    self.forget(local)
                    self.unknown.add(local)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "arena.bots" and alias.asname:
                    self.bot_modules.add(alias.asname)
                elif alias.name.partition(".")[0] == "arena" and not alias.asname:
                    self.arena_names.add("arena")
                else:
                    local = alias.asname or alias.name.partition(".")[0]
                    self.forget(local)
                    self.unknown.add(local)
        elif isinstance(node, ast.ClassDef):
            self.forget(node.name)
            self.class_def(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in _bound(target):
                    self.forget(name)
                    if isinstance(target, ast.Name):
                        try:
                            self.values[name] = self.value(node.value)
                            continue
                        except Unclear:
                            pass
                    self.unknown.add(name)
        else:  # a function, or names bound in an `if`, a `try`, a loop: what only running it tells
            for name in {node.name} if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else _bound(node):
                self.forget(name)
                self.unknown.add(name)

    def forget(self, name: str) -> None:
        for names in (self.bot_names, self.bot_modules, self.arena_names, self.unknown):
            names.discard(name)
        self.values.pop(name, None)
        self.classes.pop(name, None)

    def class_def(self, node: ast.ClassDef) -> None:
        attrs: dict[str, ast.expr] = {}
        for item in node.body:
            if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
                attrs[item.targets[0].id] = item.value
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.value is not None:
                attrs[item.target.id] = item.value
        try:
            base = self.bot_base(node.bases)
            if base is None:
                self.classes[node.name] = None
                return
            name = self.value(attrs["name"]) if "name" in attrs else base[0]
            games = self.value(attrs["games"]) if "games" in attrs else base[1]
            if not isinstance(name, str) or not (games is None or isinstance(games, tuple)):
                raise Unclear
        except Unclear:
            self.unknown.add(node.name)
            if "name" in attrs:  # a bot only if it names itself: else it repeats the name of a base
                self.unclear.append(node.name)
            return
        self.classes[node.name] = (name, games)
        if name:
            about = (ast.get_docstring(node) or "").strip()
            self.found.append((node.name, (name, games), about.splitlines()[0] if about else ""))

    def bot_base(self, bases: list[ast.expr]) -> tuple | None:
        """The (name, games) a class inherits from its first base that is a bot, None when no base is one;
        raises Unclear when a base may be a bot."""
        unclear = False
        for base in bases:
            if isinstance(base, ast.Name) and base.id in self.bot_names:
                return _BOT
            if isinstance(base, ast.Name) and self.classes.get(base.id):
                return self.classes[base.id]
            if isinstance(base, ast.Name) and base.id in self.classes:
                continue  # a class of this module that is no bot
            dotted = ast.unparse(base)
            if dotted == "arena.bots.Bot" and self.arena_names or dotted.partition(".")[0] in self.bot_modules \
                    and dotted.endswith(".Bot") and dotted.count(".") == 1:
                return _BOT
            root = base
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, ast.Name) or root.id in self.unknown or root.id in self.arena_names \
                    or self.star or root.id in self.bot_modules:
                unclear = True  # anything but a builtin (object, Exception) may be a bot
        if unclear:
            raise Unclear
        return None

    def value(self, node: ast.expr) -> object:
        """The value of a literal: a string, None, or a collection of strings (as a sorted tuple)."""
        if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str)):
            return node.value
        if isinstance(node, ast.Name) and node.id in self.values:
            return self.values[node.id]
        if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
            items = [self.value(item) for item in node.elts]
            if all(isinstance(item, str) for item in items):
                return tuple(sorted(set(items)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _COLLECTIONS \
                and node.func.id not in self.unknown and node.func.id not in self.values and len(node.args) == 1 \
                and not node.keywords:
            inner = self.value(node.args[0])
            if isinstance(inner, tuple):
                return inner
        raise Unclear


def _bound(node: ast.AST) -> set[str]:
    """The names a statement binds (by assignment, import, definition), nested statements included."""
    names = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
            names.add(child.id)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(child.name)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).partition(".")[0] for a in child.names)
    return names


_read: dict[Path, tuple[tuple[int, int], list[Listed], list[str]]] = {}
"""What read_file found in each file, by the file's modification time and size: a league names its bots in every
round's config, and parsing every bot file again each time cost more than the round's ratings."""


def read_file(path: Path) -> tuple[list[Listed], list[str]]:
    """The bots of a Python file as its source tells them, and the classes that only their host can tell about;
    raises BotError for a file that cannot be read or parsed."""
    path = path.resolve()
    try:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        if path in _read and _read[path][0] == stamp:
            return list(_read[path][1]), list(_read[path][2])
        source = path.read_bytes()
    except OSError as error:
        raise BotError(f"cannot read {path}: {type(error).__name__}: {error}") from None
    listed, unclear = read_source(source, path)
    _read[path] = stamp, listed, unclear
    return list(listed), list(unclear)


def read_source(source: bytes, path: Path) -> tuple[list[Listed], list[str]]:
    """`read_file` of a file's bytes (`path` names it in the specs and the error): nothing is written or run."""
    try:
        tree = ast.parse(source, str(path))
    except (SyntaxError, ValueError) as error:
        raise BotError(f"cannot read {path}: {type(error).__name__}: {error}") from None
    reader = _Reader(tree)
    return [Listed(name, games, about, f"{path}:{cls}") for cls, (name, games), about in reader.found], reader.unclear


def module_file(module: str) -> Path | None:
    """The source file of `module` (`a.b.c`), found without running any package's code (None when not found)."""
    top, *rest = module.split(".")
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if found is None:
        return None
    if not rest:
        return Path(found.origin) if found.origin and found.origin.endswith(".py") else None
    folder = Path((found.submodule_search_locations or [""])[0])
    for candidate in (folder.joinpath(*rest).with_suffix(".py"), folder.joinpath(*rest, "__init__.py")):
        if candidate.is_file():
            return candidate
    return None


def read_spec(spec: str) -> Listed | None:
    """The bot a `file.py:Class` or `module:Class` spec names, as its source tells it (None: not a bot there);
    raises Unclear when only its host can tell, BotError when its file cannot be found or read."""
    where, _, class_name = spec.rpartition(":")
    path = Path(where) if ".py" in where else module_file(where)
    if path is None or not path.is_file():
        raise BotError(f"no bot file {where}" if ".py" in where else f"cannot find module {where}")
    listed, unclear = read_file(path)
    if class_name in unclear:
        raise Unclear
    for bot in listed:
        if bot.spec.rpartition(":")[2] == class_name:
            return Listed(bot.name, bot.games, bot.about, spec if ".py" not in where else bot.spec)
    return None


def listed_bots(time_limit: float = TIME_LIMIT, registered: bool = True) -> dict[str, Listed]:
    """Every bot that can be named, as `available_bots` finds them (bundled and dropped-in files, registered bots,
    entry points, the first of a name kept), without running their code here: a class whose source does not tell
    is asked in a host process within `time_limit` seconds (all such hosts at once); one that does not answer is
    skipped with a warning."""
    found: dict[str, Listed] = {}
    asked: list[tuple[str, str]] = []  # (spec, where it was found) of what only a host can tell, in order
    for folder in bot_dirs():
        for path in sorted(folder.glob("*.py")):
            if path.name.startswith("_"):
                continue
            try:
                listed, unclear = read_file(path)
            except BotError as error:
                print(f"warning: skipped {error}", file=sys.stderr)
                continue
            for bot in listed:
                found.setdefault(bot.name, bot)
            asked += [(f"{path.resolve()}:{cls}", str(path)) for cls in unclear]
    if registered:
        for name, source in load_registry().items():
            if name in found:
                continue
            if source.root is not None and not Path(source.root).exists():
                _warn_registered(name, "registered bot", f"its files are gone ({source.root})")
            elif source.told:
                found[name] = Listed(name, source.games, _about(source.entry) if source.form == "file" else "",
                                     source.start())
            else:  # an older arena's record: what its source tells, else its host
                try:
                    bot = read_spec(source.entry) if source.entry and ":" in source.entry else None
                except (Unclear, BotError):
                    bot = None
                if bot is not None:
                    found[name] = Listed(name, bot.games, bot.about, bot.spec)
                else:
                    asked.append((source.start(), f"registered bot {name}"))
    from importlib.metadata import entry_points  # 50 ms: only here

    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in found:
            continue
        try:
            bot = read_spec(point.value)
        except Unclear:
            asked.append((point.value, f"entry point {point.name}"))
            continue
        except BotError as error:
            _warn_registered(point.name, "entry point", error)
            continue
        if bot is None:
            _warn_registered(point.name, "entry point", f"{point.value} is no bot class")
        else:
            found.setdefault(point.name, Listed(point.name, bot.games, bot.about, bot.spec))
    for bot in _ask(asked, time_limit):
        found.setdefault(bot.name, bot)
    return found


def _warn_registered(name: str, kind: str, why: object) -> None:
    extra = f" (`arena bots --forget {name}` unregisters it)" if kind == "registered bot" else ""
    print(f"warning: skipped {kind} {name}: {why}{extra}", file=sys.stderr)


def _ask(asked: list[tuple[str, str]], time_limit: float) -> list[Listed]:
    """The bots of `asked` ((spec, where it was found)) as their hosts answer hello, each in a process of its own
    (a command in its sandbox), within `time_limit` seconds; a warning for each that does not answer."""
    if not asked:
        return []
    if ASK_HOSTS is None:
        raise BotError("cannot ask a bot's process here: import arena.isolation first")
    listed = []
    for (spec, where), answer in zip(asked, ASK_HOSTS([spec for spec, _ in asked], time_limit), strict=True):
        if isinstance(answer, Exception):
            print(f"warning: skipped {where}: {str(answer).removeprefix('BotError: ')}", file=sys.stderr)
            continue
        games = answer.get("games")
        listed.append(Listed(str(answer.get("name") or Path(spec).name), None if games is None else
                             tuple(sorted(games)), _about(spec), answer.get("spec") or spec))
    return listed


def _about(spec: str) -> str:
    """The first docstring line of the class a Python spec names (read from its source), or ""."""
    where, _, class_name = spec.rpartition(":")
    path = Path(where) if ".py" in where else module_file(where)
    try:
        tree = ast.parse(path.read_bytes()) if path is not None else None
    except (OSError, SyntaxError, ValueError):
        tree = None
    for node in tree.body if tree is not None else []:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            about = (ast.get_docstring(node) or "").strip()
            return about.splitlines()[0] if about else ""
    return ""


def is_bundled(spec: str) -> bool:
    """True for a spec of arena's own code: a bundled bot's file (one of `BUNDLED` in `bots/`, not a user's file
    dropped beside them), an `arena.` module, `openspiel:`."""
    where = spec.rpartition(":")[0]
    if spec.startswith("openspiel:"):
        return True
    if ".py" in where:
        path = Path(where).resolve()
        return path.parent == BUNDLED_DIR and path.name in BUNDLED
    return where.partition(".")[0] == "arena"
