"""The Bot protocol and loading a bot's class in this process: bundled in `bots/`, installed under the `arena.bots`
entry-point group, registered with `arena submit`, named by a spec `path/to/file.py:ClassName`, or a folder
whose `bot.toml` says what the bot is (a package's `entry = "module:Class"`, or a `command`).

The package's modules: `sources` (one resolution of every spec form into a `BotSource`, what every command plays),
`registry` (the names `arena submit` registered, with their sources), `listing` (the bots that can be named, read
from their source) and `bundles` (a bot's zip or folder checked, unpacked and hashed)."""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
import random
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from arena.errors import ArenaError

BUNDLED_DIR = Path(__file__).resolve().parents[2] / "bots"
"""The bundled bots; a `bots/` folder in the working directory is searched as well."""
BUNDLED = ("random_bot.py", "greedy.py", "heuristic.py", "heuristics", "ismcts.py", "expert.py", "race")
"""The bundled bots' files and folders in BUNDLED_DIR, bound read-only in every sandbox of a Python bot (a bot may
build on one, by its name or by importing it). Only these: bots/ is also where users drop bots of their own, whose
code a stranger's bot must not read."""
BUNDLED_NAMES = {"random": "random_bot.py:RandomBot", "greedy": "greedy.py:GreedyBot",
                 "heuristic": "heuristic.py:HeuristicBot", "ismcts": "ismcts.py:IsmctsBot",
                 "expert": "expert.py:ExpertBot"}
"""Each bundled bot's name and the file and class in BUNDLED_DIR that it names, so that a bundled bot loads by its
name without every bot file imported to read the names (a host loading `random` imported numpy for the expert's
sake); tests/test_bots.py checks the table against the files."""
ENTRY_POINT_GROUP = "arena.bots"
MANIFEST = "bot.toml"
"""The file at the root of a bot's folder that says what the bot is."""


class Bot:
    """Base class for bots: override `act` (and `reset` to prepare for a game)."""

    name: ClassVar[str] = ""
    """Unique name by which configs and the command line find the bot."""
    games: ClassVar[frozenset[str] | set[str] | None] = None
    """Game ids the bot can play, or None for any game (through the generic interface)."""

    defaults: ClassVar[dict[str, Any]] = {}
    """The parameters the bot takes (config `params`), with their default values."""

    def __init__(self, **params: Any) -> None:
        if params:  # a tournament makes a bot for every game: without parameters, nothing to check
            unknown = sorted(set(params) - set(self.defaults))
            if unknown:
                allowed = ", ".join(self.defaults) or "none"
                raise TypeError(f"unknown parameter {unknown[0]!r} (parameters: {allowed})")
        self.params = {**self.defaults, **params}

    def reset(self, game_id: str, seat: int, rules: Any, rng: random.Random) -> None:
        """Called before each game: the game, this bot's seat, the rules and its only rng."""
        self.game_id, self.seat, self.rules, self.rng = game_id, seat, rules, rng

    def act(self, observation: Any) -> Any:
        """The move to play: one of `observation.legal_moves`."""
        raise NotImplementedError


def host_command(spec: str) -> list[str]:
    """The built-in host running the Python bot class `spec` (`/path/file.py:Class`, `module:Class`, a package's
    folder): `python -P` puts no working directory or script folder first on its import path, so a `copy.py` beside
    the bot never stands in for the standard library's or arena's module (the host adds the working directory
    last, `unshadowed`)."""
    return [sys.executable, "-Pm", "arena.isolation", spec]


def is_host(command: Sequence[str]) -> bool:
    """Whether `command` runs arena's own bot host (`host_command`)."""
    return len(command) == 4 and command[1] in ("-m", "-Pm") and command[2] == "arena.isolation"


class BotError(ArenaError, ValueError):
    """A bot that cannot be found or loaded, or that cannot play what is asked of it."""


def can_play(bot_class: type, game_id: str) -> bool:
    """True when the bot declares it plays `game_id` (or any game)."""
    games = getattr(bot_class, "games", None)
    return games is None or game_id in games


def default_name(class_name: str) -> str:
    """The name of a bot class that names none: its class's name in kebab case (`FirstLegal`: `first-legal`,
    `MCTSBot`: `mcts-bot`), as the source reader (arena/bots/listing.py) tells it without running the class."""
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1-\2", class_name.strip("_"))
    return re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", spaced).replace("_", "-").lower()


def not_a_bot(cls: Any) -> str | None:
    """What keeps `cls` from being a bot, or None for a bot: the one definition of the protocol, which is structural.
    A bot is a class with a callable `act`, its own or a base's (`Bot.act` itself only says to override it); `reset`,
    `name`, `games` and `__init__(**params)` are optional and take `Bot`'s defaults (`as_bot_class`)."""
    if not inspect.isclass(cls):
        return "is not a class"
    act = getattr(cls, "act", None)
    if not callable(act) or act is Bot.act:
        return "has no act method"
    if not isinstance(getattr(cls, "name", None) or "", str):
        return "has a `name` that is not a string"
    games = getattr(cls, "games", None)
    if games is not None and not (isinstance(games, (set, frozenset, tuple, list)) and
                                  all(isinstance(g, str) for g in games)):
        return "has `games` that is neither a set of game ids nor None"
    return None


_adapted: dict[type, type] = {}
"""Each class that lacks part of the interface, with the class that fills it in (built once: a class loaded twice by
its spec is the same bot)."""


def as_bot_class(cls: Any, where: str) -> type:
    """The class that plays `cls` with the whole interface: `cls` itself when it has it (every `Bot` with a name),
    else a subclass of it that adds what it lacks from `Bot`: `name` from its class name, `games` = any, `reset`
    keeping the game, seat, rules and rng on the bot, `__init__(**params)` taking the parameters of its `defaults`.
    The subclass has `cls`'s module and qualified name, so `resolved_spec` names `cls`. Raises BotError with what
    is missing (`not_a_bot`)."""
    problem = not_a_bot(cls)
    if problem is not None:
        raise BotError(f"{where} {problem}")
    if cls in _adapted:
        return _adapted[cls]
    filled: dict[str, Any] = {}
    if not getattr(cls, "name", None):
        filled["name"] = default_name(cls.__name__)
    if not hasattr(cls, "games"):
        filled["games"] = None
    if not callable(getattr(cls, "reset", None)):
        filled["reset"] = Bot.reset
    if cls.__init__ is object.__init__:
        filled["__init__"] = Bot.__init__
        filled.setdefault("defaults", getattr(cls, "defaults", {}))
    if not filled:
        return cls
    adapted = type(cls.__name__, (cls,), {**filled, "__module__": cls.__module__, "__qualname__": cls.__qualname__,
                                          "__doc__": cls.__doc__})
    _adapted[cls] = adapted
    return adapted


def missing_class(class_name: str, where: str, classes: Sequence[str]) -> str:
    """The line for a class that `where` (a file or a module) does not define."""
    return f"no class {class_name!r} in {where} (classes: {', '.join(classes) or 'none'})"


def defined_classes(module: Any) -> list[str]:
    """The names of the classes a module defines itself, in order (for the line that names a missing one)."""
    return [name for name, obj in vars(module).items()
            if inspect.isclass(obj) and obj.__module__ == module.__name__]


_modules: dict[Path, Any] = {}


def _load_module(path: Path) -> Any:
    path = path.resolve()
    if path not in _modules:
        if not path.is_file():
            raise BotError(f"no bot file {path}")
        tag = hashlib.sha1(str(path).encode()).hexdigest()[:8]
        module_name = f"arena_user_bots.{path.stem}_{tag}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as error:
            del sys.modules[module_name]
            raise BotError(f"cannot import {path}: {type(error).__name__}: {error}") from None
        _modules[path] = module
    return _modules[path]


def _bots_in(module: Any) -> list[type]:
    """The bots a module defines, each with the whole interface; a class named `_Private` is not looked for."""
    return [as_bot_class(obj, obj.__name__) for name, obj in vars(module).items()
            if inspect.isclass(obj) and obj.__module__ == module.__name__ and not name.startswith("_")
            and not_a_bot(obj) is None]


def load_spec(spec: str) -> type:
    """The bot class named by `path/to/file.py:ClassName`."""
    path, _, class_name = spec.rpartition(":")
    module = _load_module(Path(path))
    if not inspect.isclass(getattr(module, class_name, None)):
        raise BotError(missing_class(class_name, path, defined_classes(module)))
    return as_bot_class(getattr(module, class_name), spec)


def bot_dirs() -> list[Path]:
    """Folders searched for bots by name: the bundled `bots/`, then `./bots`."""
    dirs = [BUNDLED_DIR]
    local = Path("bots").resolve()
    if local != BUNDLED_DIR and local.is_dir():
        dirs.append(local)
    return dirs


def folder_bots(folder: Path) -> dict[str, type]:
    """The bots defined in the `*.py` files of `folder` (a file that fails to import is skipped with a warning)."""
    found: dict[str, type] = {}
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            module = _load_module(path)
        except BotError as error:
            _log().warning(f"skipped {error}")
            continue
        for bot_class in _bots_in(module):
            found.setdefault(bot_class.name, bot_class)
    return found


def available_bots() -> dict[str, type]:
    """Every bot that can be named: bundled and dropped-in files, registered bots, entry points."""
    found: dict[str, type] = {}
    for folder in bot_dirs():
        for name, bot_class in folder_bots(folder).items():
            found.setdefault(name, bot_class)
    for name, spec in registered_bots().items():
        if name not in found:
            try:
                found[name] = load_bot_class(spec)
            except BotError as error:
                if name not in _warned:  # once per command, however often it looks the bots up
                    _warned.add(name)
                    _log().warning(f"skipped registered bot {name}: {error} (`arena bots --forget {name}` "
                                   "unregisters it)")
    # imported here: it costs 50 ms, and every bot's host process imports arena.bots
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name not in found:
            try:
                found[point.name] = as_bot_class(point.load(), f"entry point {point.name}")
            except Exception as error:
                _log().warning(f"skipped entry point {point.name}: {error}")
    return found


def _log():
    # imported when first needed: every bot's host process imports arena.bots, and logging is 5 ms of its start
    import logging

    return logging.getLogger(__name__)


_warned: set[str] = set()
"""The registered bots already said to be broken in this process."""


def registered_bots() -> dict[str, str]:
    """Bots made available by `arena submit`: name -> the spec that starts it (`BotSource.start`); a command bot's
    folder is left out: it runs in its folder, which only its source says (`arena.bots.sources.resolve`)."""
    from arena.bots.registry import load_registry

    return {name: source.start() for name, source in load_registry().items() if source.folder is None}


SPEC_LOADERS = {
    "command:": "arena.isolation.loaders:load_command_spec",
    "llm:": "arena.llm.seat:model_seat_class",
    "openspiel:": "arena.interop:load_openspiel_spec",
}
"""The loader of each spec that starts with a prefix, as `module:function` (`implementation`): a bot that runs as
a process (`command:`), a model seat (`llm:`, played in the process that plays the game: it waits on the
network, and its key stays in that process's environment), an OpenSpiel search (`openspiel:`)."""


def implementation(where: str) -> Any:
    """The function `module:function` names, its module imported now.

    Loading a spec and asking a bot's host are done by the modules that run bots (arena/isolation/, arena/llm/,
    arena/interop/), which build on this package: were it to import them, each would import itself through it. So
    this package names them, and imports each only when a spec or a listing needs it. A name looked up at the call
    is there in every process whatever it imported first (the command line, the server, the API, a Ray worker, a
    `python -P -m MODULE` child), where a function that those modules would set here on import would be missing
    from a process that had not imported them, and a spec would mean something else there. The listing's host
    asker (`listing.ASK_HOSTS`) is found the same way rather than passed in: every command that names a bot reads
    the listing (`arena bots`, `arena play`, a config, `arena submit`, a league's bots, the server's client), and
    each would have to carry it down, where one that forgot would list less. `tests/test_architecture.py` checks
    that every function a table names is there."""
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


def bundled_spec(spec: str) -> str:
    """The `file.py:Class` spec of a bundled bot's name, any other spec as it is."""
    return f"{BUNDLED_DIR / BUNDLED_NAMES[spec]}" if spec in BUNDLED_NAMES else spec


def load_bot_class(spec: str) -> type:
    """The bot class for a name, a `file.py:ClassName`, a `package.module:ClassName`, a bot's folder (a package's:
    `load_folder`), a `command: CMD` spec
    (any executable speaking the JSON-lines protocol of docs/protocol.md) or an `openspiel:ALGO` spec (a search
    of OpenSpiel's); raises BotError."""
    for prefix, loader in SPEC_LOADERS.items():
        if spec.startswith(prefix):
            return implementation(loader)(spec)
    if ".py:" in spec:
        return load_spec(spec)
    if is_bot_folder(spec):
        return load_folder(Path(spec))
    where, _, entry = spec.partition(":")
    if entry and Path(where).is_dir():  # a package's folder without a bot.toml, and its class
        return load_folder(Path(where), entry)
    if ":" in spec:
        return _imported_class(spec)
    if spec in BUNDLED_NAMES:  # found first by name, as in available_bots
        return load_spec(bundled_spec(spec))
    bots = available_bots()
    if spec not in bots:
        raise BotError(f"unknown bot {spec!r} (bots: {', '.join(sorted(bots))})")
    return bots[spec]


@dataclass(frozen=True)
class Manifest:
    """What a bot's `bot.toml` says: a Python package's entry, or a command (exactly one of the two)."""

    entry: str | None = None
    """`module:Class`, imported with the bot's folder first on the import path."""
    command: tuple[str, ...] | None = None
    """The program and its arguments, run in the bot's folder: a program on PATH or a path inside the folder."""


ENTRY = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


def is_bot_folder(spec: str) -> bool:
    """True when `spec` names a folder holding a `bot.toml`."""
    try:
        return ":" not in spec and (Path(spec) / MANIFEST).is_file()
    except (OSError, ValueError):
        return False


def read_manifest(folder: Path) -> Manifest:
    """The `bot.toml` of a bot's folder, checked: one line of BotError for anything amiss. A command's files must lie
    inside the folder (no absolute paths, no `..`): the sandbox shows the bot every file its command names."""
    import shlex
    import tomllib

    where = f"{Path(folder).name}/{MANIFEST}"
    try:
        data = tomllib.loads((Path(folder) / MANIFEST).read_text())
    except (OSError, UnicodeDecodeError) as error:
        raise BotError(f"{where}: cannot read: {getattr(error, 'strerror', None) or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise BotError(f"{where}: malformed TOML: {error}") from None
    unknown = sorted(set(data) - {"entry", "command"})
    if unknown:
        raise BotError(f"{where}: unknown key {unknown[0]!r} (keys: entry, command)")
    if ("entry" in data) == ("command" in data):
        raise BotError(f'{where}: give either entry = "module:Class" (a Python package) or command = "..." '
                       "(a program speaking docs/protocol.md)")
    if "entry" in data:
        entry = data["entry"]
        if not isinstance(entry, str) or not ENTRY.fullmatch(entry):
            raise BotError(f'{where}: entry must be "module:Class" (a module of the folder and its class), '
                           f"not {entry!r}")
        return Manifest(entry=entry)
    command = data["command"]
    try:
        argv = shlex.split(command) if isinstance(command, str) else command
    except ValueError as error:
        raise BotError(f"{where}: command: cannot split {command!r}: {error}") from None
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) and a for a in argv):
        raise BotError(f"{where}: command must be a string or an array of strings, not {command!r}")
    for arg in argv:
        if arg.startswith("/") or ".." in arg.split("/"):
            raise BotError(f"{where}: command: {arg!r} is outside the bot's folder (no absolute paths, no ..)")
    return Manifest(command=tuple(argv))


def load_folder(folder: Path, entry: str | None = None) -> type:
    """The bot class of a package's folder: `entry` (`module:Class`), else its `bot.toml`'s, imported with the folder
    last on the import path: its modules import one another by name, and never shadow the standard library, arena or
    an installed package of the same name (`unshadowed`)."""
    if entry is None:
        manifest = read_manifest(folder)
        if manifest.entry is None:
            raise BotError(f"{folder}: a command bot (its bot.toml has a command): it runs as a process, not a class")
        entry = manifest.entry
    folder = str(Path(folder).resolve())
    if folder not in sys.path:
        sys.path.append(folder)
    return _imported_class(entry)


def _imported_class(entry: str) -> type:
    """The bot class `module:Class` names, imported (its module's errors as one BotError line)."""
    module_name, _, class_name = entry.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        raise BotError(f"cannot import {module_name}: {type(error).__name__}: {error}") from None
    if not inspect.isclass(getattr(module, class_name, None)):
        raise BotError(missing_class(class_name, module_name, defined_classes(module)))
    return as_bot_class(getattr(module, class_name), entry)


def unshadowed(folders: list[str]) -> None:
    """Moves `folders` (a working directory, a script's folder) to the end of the import path: a bot's `copy.py`
    there is never imported in place of the standard library's, arena's or an installed package's module."""
    for folder in folders:
        for entry in [e for e in sys.path if e in ("", folder) or os.path.abspath(e or ".") == folder]:
            sys.path.remove(entry)
        sys.path.append(folder)


def resolved_spec(bot_class: type) -> str:
    """A spec that loads `bot_class` in any process: `/abs/path/file.py:Class` or `module:Class`."""
    module = sys.modules.get(bot_class.__module__)
    path = getattr(module, "__file__", None)
    if bot_class.__module__.startswith("arena_user_bots.") and path:
        return f"{Path(path).resolve()}:{bot_class.__qualname__}"
    return f"{bot_class.__module__}:{bot_class.__qualname__}"
