"""The bots that can be named, listed without running their code in this process: each file read as source
(`ast`), and only a class that reading cannot tell about asked, in a host process of its own under a time
limit (arena/isolation/). `arena bots` lists them this way, and `arena play` finds a bot by name this way
before it starts the bot's host.

Reading a file finds each class that is a bot by the structural protocol (`arena.bots.not_a_bot`): one that
defines `act`, or derives from one that does through classes of the same file, with or without `Bot` (imported
from `arena.bots`) among them; with its `name` (else the one made from its class name) and `games` when they are
literals (a string, None, a set, tuple or list of strings, `set(...)` of one, or a name the module binds to one)
and its docstring. A class whose base is imported from elsewhere, or whose `name` or `games` is computed, is
unclear: its host is asked (a hello, as a config's check). Looking through a file, a class with an unclear base
that neither sets `name` nor defines `act` is no bot: in a file of its own it would only repeat its base.
"""

from __future__ import annotations

import ast
import importlib.util
import logging
from dataclasses import dataclass
from pathlib import Path

from arena.bots import (
    BUNDLED,
    BUNDLED_DIR,
    ENTRY_POINT_GROUP,
    BotError,
    bot_dirs,
    bundled_spec,
    default_name,
    implementation,
    missing_class,
)
from arena.bots.registry import load_registry
from arena.errors import ArenaError

logger = logging.getLogger(__name__)

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


ASK_HOSTS = "arena.isolation.loaders:ask_hosts"
"""What asks each spec's bot (a Python class in the built-in host, or a `command:`) hello in a process of its own
within a time limit, its answer or the error: this module runs no bot (`arena.bots.implementation` says why it is
named, not imported)."""


class Unclear(ArenaError):
    """What reading the source cannot tell: only running the code can."""


_UNSET = object()
"""An attribute that a class and its bases leave unset."""


@dataclass(frozen=True)
class _Class:
    """What the source tells of a class of the module: its `name` and `games` (as set by it or its bases, or
    _UNSET), and whether it or a base defines `act` (`Bot.act`, which only says to override it, does not count)."""

    name: object = _UNSET
    games: object = _UNSET
    acts: bool = False


_BOT = _Class("", None, False)
"""`Bot` itself, as its subclasses start from it."""
_COLLECTIONS = {"set", "frozenset", "tuple", "list", "sorted"}


class _Reader:
    """One module's source: what its top-level names are, and which of its classes are bots (the protocol of
    `arena.bots.not_a_bot`, read rather than run)."""

    def __init__(self, tree: ast.Module) -> None:
        self.bot_names: set[str] = set()  # names of arena.bots.Bot here
        self.bot_modules: set[str] = set()  # names of the module arena.bots here (`from arena import bots`)
        self.arena_names: set[str] = set()  # names of the package arena (`import arena.bots`)
        self.unknown: set[str] = set()  # names bound to what only running the code tells
        self.values: dict[str, object] = {}  # names bound to literals
        self.classes: dict[str, _Class] = {}  # this module's classes that reading tells about
        self.star = False  # `from x import *`: any name may be anything
        self.found: dict[str, tuple[tuple, str]] = {}  # bot classes: ((name, games), docstring's first line)
        self.opaque: dict[str, bool] = {}  # classes only their host can tell about: whether they set name or act
        self.not_bots: dict[str, str] = {}  # classes that are no bot: what they lack
        self.class_names: list[str] = []  # every class of the module, in order
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
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list:
            self.forget(node.name)  # a function: no class
        else:  # a decorated function, or names bound in an `if`, a `try`, a loop: what only running it tells
            for name in {node.name} if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else _bound(node):
                self.forget(name)
                self.unknown.add(name)

    def forget(self, name: str) -> None:
        for names in (self.bot_names, self.bot_modules, self.arena_names, self.unknown):
            names.discard(name)
        for found in (self.values, self.classes, self.found, self.opaque, self.not_bots):
            found.pop(name, None)

    def class_def(self, node: ast.ClassDef) -> None:
        attrs: dict[str, ast.expr] = {}
        own_act = False
        for item in node.body:
            if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
                attrs[item.targets[0].id] = item.value
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.value is not None:
                attrs[item.target.id] = item.value
            own_act |= isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "act"
        own_act |= "act" in attrs
        self.class_names.append(node.name)
        try:
            bases = self.bases(node.bases)
            told = _Class(*(self.value(attrs[key]) if key in attrs else
                            next((getattr(base, key) for base in bases if getattr(base, key) is not _UNSET), _UNSET)
                            for key in ("name", "games")), own_act or any(base.acts for base in bases))
        except Unclear:
            self.unknown.add(node.name)
            self.opaque[node.name] = "name" in attrs or own_act
            return
        self.classes[node.name] = told
        name = "" if told.name is _UNSET or told.name is None else told.name
        games = None if told.games is _UNSET else told.games
        if not told.acts:
            self.not_bots[node.name] = "has no act method"
        elif not isinstance(name, str):
            self.not_bots[node.name] = "has a `name` that is not a string"
        elif not (games is None or isinstance(games, tuple)):
            self.not_bots[node.name] = "has `games` that is neither a set of game ids nor None"
        else:
            about = (ast.get_docstring(node) or "").strip()
            self.found[node.name] = ((name or default_name(node.name), games), about.splitlines()[0] if about else "")

    def bases(self, bases: list[ast.expr]) -> list[_Class]:
        """What the source tells of each base of a class that is `Bot` or a class of this module (builtins such as
        `object` tell nothing); raises Unclear when a base may be anything."""
        told = []
        for base in bases:
            if isinstance(base, ast.Name) and base.id in self.bot_names:
                told.append(_BOT)
                continue
            if isinstance(base, ast.Name) and base.id in self.classes:
                told.append(self.classes[base.id])
                continue
            dotted = ast.unparse(base)
            if dotted == "arena.bots.Bot" and self.arena_names or dotted.partition(".")[0] in self.bot_modules \
                    and dotted.endswith(".Bot") and dotted.count(".") == 1:
                told.append(_BOT)
                continue
            root = base
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, ast.Name) or root.id in self.unknown or root.id in self.arena_names \
                    or self.star or root.id in self.bot_modules:
                raise Unclear  # anything but a builtin (object, Exception) may be a bot
        return told

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


@dataclass(frozen=True)
class Reading:
    """What a Python file's source tells of its classes."""

    path: Path
    bots: dict[str, Listed]
    """Its bot classes, by class name."""
    opaque: dict[str, bool]
    """Its classes that only their host can tell about (a base from elsewhere, a computed `name` or `games`), each
    with whether it sets `name` or defines `act` itself: else, in a file of its own, it would only repeat its base."""
    not_bots: dict[str, str]
    """Its other classes, each with what keeps it from being a bot."""
    classes: list[str]
    """Every class it defines, in order."""
    unknown: frozenset[str]
    """The names it binds to what only running it tells (an import, a computed value): any may be a bot class."""
    star: bool
    """Whether it imports `*`: then any name may be a bot class."""

    def discovered(self) -> tuple[list[Listed], list[str]]:
        """The bots found in the file when it is looked through rather than a class named (a folder of bots, a file
        given without its class): those the source tells of, and those to ask the host about. A class named
        `_Private` is not looked for."""
        return ([bot for cls, bot in self.bots.items() if not cls.startswith("_")],
                [cls for cls, own in self.opaque.items() if own and not cls.startswith("_")])

    def bot(self, class_name: str, shown: str) -> Listed:
        """The bot `class_name` as the source tells it; raises Unclear when only its host can tell, BotError (one
        line, the file as `shown`) for a class that is no bot or that the file does not define."""
        if class_name in self.unknown or self.star and class_name not in self.not_bots:
            raise Unclear
        if class_name in self.bots:
            return self.bots[class_name]
        if class_name in self.not_bots:
            raise BotError(f"{shown}:{class_name} {self.not_bots[class_name]}")
        raise BotError(missing_class(class_name, shown, self.classes))


_read: dict[Path, tuple[tuple[int, int], Reading]] = {}
"""What read_source found in each file, by the file's modification time and size: a league names its bots in every
round's config, and parsing every bot file again each time cost more than the round's ratings."""


def read_source(path: Path) -> Reading:
    """What the source of a Python file tells of its classes; raises BotError for a file that cannot be read or
    parsed."""
    path = path.resolve()
    try:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        if path in _read and _read[path][0] == stamp:
            return _read[path][1]
        source = path.read_bytes()
    except OSError as error:
        raise BotError(f"cannot read {path}: {type(error).__name__}: {error}") from None
    reading = read_bytes(source, path)
    _read[path] = stamp, reading
    return reading


def read_bytes(source: bytes, path: Path) -> Reading:
    """`read_source` of a file's bytes (`path` names it in the specs and the error): nothing is written or run."""
    try:
        tree = ast.parse(source, str(path))
    except (SyntaxError, ValueError) as error:
        raise BotError(f"cannot read {path}: {type(error).__name__}: {error}") from None
    reader = _Reader(tree)
    bots = {cls: Listed(name, games, about, f"{path}:{cls}") for cls, ((name, games), about) in reader.found.items()}
    return Reading(path, bots, reader.opaque, reader.not_bots, reader.class_names, frozenset(reader.unknown),
                   reader.star)


def read_file(path: Path) -> tuple[list[Listed], list[str]]:
    """The bots found in a Python file looked through (`Reading.discovered`), and the classes that only their host
    can tell about; raises BotError for a file that cannot be read or parsed."""
    return read_source(path).discovered()


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


def read_spec(spec: str, shown: str | None = None) -> Listed:
    """The bot a `file.py:Class` or `module:Class` spec names, as its source tells it; raises Unclear when only its
    host can tell, BotError (one line, naming the file or module as `shown`) when its file cannot be found or read,
    or its class is no bot or missing."""
    where, _, class_name = spec.rpartition(":")
    path = Path(where) if ".py" in where else module_file(where)
    if path is None or not path.is_file():
        raise BotError(f"no bot file {where}" if ".py" in where else f"cannot find module {where}")
    bot = read_source(path).bot(class_name, shown or where)
    return bot if ".py" in where else Listed(bot.name, bot.games, bot.about, spec)


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
                logger.warning(f"skipped {error}")
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
        found.setdefault(point.name, Listed(point.name, bot.games, bot.about, bot.spec))
    for bot in _ask(asked, time_limit):
        found.setdefault(bot.name, bot)
    return found


def _warn_registered(name: str, kind: str, why: object) -> None:
    extra = f" (`arena bots --forget {name}` unregisters it)" if kind == "registered bot" else ""
    logger.warning(f"skipped {kind} {name}: {why}{extra}")


def _ask(asked: list[tuple[str, str]], time_limit: float) -> list[Listed]:
    """The bots of `asked` ((spec, where it was found)) as their hosts answer hello, each in a process of its own
    (a command in its sandbox), within `time_limit` seconds; a warning for each that does not answer."""
    if not asked:
        return []
    listed = []
    answers = implementation(ASK_HOSTS)([spec for spec, _ in asked], time_limit)
    for (spec, where), answer in zip(asked, answers, strict=True):
        if isinstance(answer, Exception):
            logger.warning(f"skipped {where}: {str(answer).removeprefix('BotError: ')}")
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


def is_own_class(spec: str) -> bool:
    """True for a Python class of arena's own that runs like any bot class: a bundled bot (by its name or its file)
    or an `arena.` module's class; not a model seat (it waits on the network) or OpenSpiel's search."""
    spec = bundled_spec(spec)
    return ":" in spec and not spec.startswith(("openspiel:", "llm:", "command:")) and is_bundled(spec)


def is_bundled(spec: str) -> bool:
    """True for a spec of arena's own code: a bundled bot's file (one of `BUNDLED` in `bots/`, not a user's file
    dropped beside them), an `arena.` module, `openspiel:`, a model seat's `llm:`."""
    where = spec.rpartition(":")[0]
    if spec.startswith(("openspiel:", "llm:")):  # a model seat is arena's own code talking to a model
        return True
    if ".py" in where:
        path = Path(where).resolve()
        return path.parent == BUNDLED_DIR and path.name in BUNDLED
    return where.partition(".")[0] == "arena"
