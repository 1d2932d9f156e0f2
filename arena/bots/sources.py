"""One resolution of every way to name a bot: a spec becomes a `BotSource`, the one value that every command plays,
checks, registers, freezes and pins by hash.

| form       | spec                                                                    | starts as                    |
|------------|-------------------------------------------------------------------------|------------------------------|
| bundled    | a name of arena's own bots (`random`), or its file                      | its class, in process        |
| installed  | an `arena.bots` entry point's name, or `module:Class`, `openspiel:ALGO` | its class                    |
| file       | `path/to/file.py:Class`                                                 | the built-in host            |
| package    | a folder or zip whose `bot.toml` says `entry = "pkg.module:Class"`,     | the built-in host, the folder|
|            | or `folder-or.zip:pkg.module:Class` without one                         | last on its import path      |
| command    | a folder or zip whose `bot.toml` says `command = "python3 main.py"`     | its command, in its folder   |
| program    | `command: ./mybot --flag` (any executable speaking docs/protocol.md)    | its command                  |

A name that `arena submit` registered resolves to the source registered (`arena.bots.registry`). A zip is unpacked
once into `$ARENA_HOME/unpacked/<sha256 of the zip>/` and plays from there. Nothing here runs a bot's code: a bot's
name and games are read from its source where it tells them, else left for its host to tell (`told`).
"""

from __future__ import annotations

import difflib
import hashlib
import os
import shlex
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from arena.bots import BUNDLED_DIR, BUNDLED_NAMES, MANIFEST, SPEC_LOADERS, BotError, bundled_spec, read_manifest
from arena.bots.bundles import ArchiveLimits, tree_hash, unpack
from arena.bots.registry import BotSource, arena_home, load_registry

if TYPE_CHECKING:
    from arena.bots.listing import Listed

SPEC_FORMS = ("a name (`arena bots`), path/to/file.py:Class, a folder or zip with a bot.toml, "
              "folder-or.zip:module:Class, or \"command: PROGRAM ARGS\"")
"""The forms a spec may take, for the one line that refuses one."""


def resolve(spec: str, folders: tuple[Path, ...] | None = None, *, registered: bool = True) -> BotSource:
    """The bot that `spec` names (see the module's docstring); relative paths are found in the first of `folders`
    that holds them (default: the working directory). Raises BotError with one line: a missing file named as the
    user wrote it, a name that names nothing with the nearest names."""
    folders = tuple(folders or (Path.cwd(),))
    spec = spec.strip()
    if not spec:
        raise BotError(f"an empty bot spec; give {SPEC_FORMS}")
    if spec.startswith("command:"):
        return _program(spec, folders)
    for prefix in SPEC_LOADERS:
        if spec.startswith(prefix):
            return BotSource("installed", spec, entry=spec)
    where, _, rest = spec.partition(":")
    if spec.endswith(".py"):
        spec = _only_class(spec, folders)
    if ".py:" in spec:
        return _file(spec, folders)
    bundle = _bundle_path(where, bool(rest), folders)
    if bundle is not None:
        return _bundle(spec, bundle, rest or None)
    if rest:
        return _module(spec)
    return _name(spec, registered)


def _program(spec: str, folders: tuple[Path, ...]) -> BotSource:
    try:
        argv = shlex.split(spec.removeprefix("command:"))
    except ValueError as error:
        raise BotError(f"{spec}: cannot split it: {error}") from None
    if not argv:
        raise BotError(f"{spec!r} names no program; give \"command: PROGRAM ARGS\"")
    return program_source(argv, folders, spec.strip())


def program_source(argv: list[str], folders: tuple[Path, ...], where: str) -> BotSource:
    """`command: PROGRAM ARGS`: its program found (a path, or a name on PATH), each argument that names a file made
    absolute; an argument written as a file that is nowhere is refused here (`where` starts the line), before the
    bot starts."""
    command = checked_command(argv, folders, where)
    files = [Path(arg) for arg in command if Path(arg).is_absolute() and Path(arg).is_file()]
    if not files:  # a program on PATH alone: pinned by its own file's hash, though nothing of it can be frozen
        files = [Path(shutil.which(command[0]))]
    digest = files_hash(files)
    return BotSource("program", "command: " + shlex.join(argv), command=tuple(command), sha256=digest)


def checked_command(argv: list[str], folders: tuple[Path, ...], where: str) -> list[str]:
    """A command line with its program found and its file arguments made absolute (`absolute_command`); raises
    BotError for a program that is missing or not executable, and for an argument that looks like a file (`a.py`,
    `dir/x`) found in none of `folders`."""
    argv = absolute_command(argv, folders)
    program = argv[0]
    if "/" in program:
        found = Path(program)
        if not found.is_file():
            raise BotError(f"{where}: no program {program}")
        if not os.access(found, os.X_OK):
            raise BotError(f"{where}: {program} is not executable (chmod +x)")
    elif shutil.which(program) is None:
        raise BotError(f"{where}: no program {program!r} on PATH")
    for arg in argv[1:]:
        if looks_like_file(arg) and not Path(arg).is_absolute():
            raise BotError(f"{where}: no file {arg}")
    return argv


def looks_like_file(arg: str) -> bool:
    """True for an argument written as a file's name: with a `/`, or a suffix of letters (`main.py`), not an option."""
    if arg.startswith("-") or " " in arg or "=" in arg:
        return False
    suffix = Path(arg).suffix[1:]
    return "/" in arg or (suffix.isalpha() and suffix.isascii() and len(arg) > len(suffix) + 1)


def absolute_command(argv: list[str], folders: tuple[Path, ...]) -> list[str]:
    """The command with its program, when written as a path, and each argument that names a file, or a folder when
    written with a `/` (as the sandbox binds them, `names_file`), made absolute: each is looked up in the first of
    `folders` that holds it."""
    argv = list(argv)
    for i, arg in enumerate(argv):
        if i == 0 and "/" not in arg:
            continue  # a program's name is looked up on PATH, as a shell does
        found = found_in(arg, folders, exists if "/" in arg else is_file)
        if found is not None:
            argv[i] = str(found)
    return argv


def _file(spec: str, folders: tuple[Path, ...]) -> BotSource:
    where, _, class_name = spec.rpartition(":")
    path = found_in(where, folders, is_file)
    if path is None:
        raise BotError(f"no bot file {where}")
    from arena.bots.listing import Unclear, read_spec

    entry = f"{path}:{class_name}"
    try:
        listed = read_spec(entry, shown=where)
    except Unclear:
        listed = None
    name, games = (listed.name, listed.games) if listed is not None else (None, None)
    if path.parent == BUNDLED_DIR:
        return BotSource("bundled", spec, name, games, entry=entry)
    return BotSource("file", spec, name, games, str(path), entry, sha256=files_hash([path]))


def _only_class(spec: str, folders: tuple[Path, ...]) -> str:
    """`file.py` as `file.py:Class` when the file holds one bot class (read from its source; a class named
    `_Private` is not looked for)."""
    from arena.bots.listing import read_file

    path = found_in(spec, folders, is_file)
    if path is None:
        raise BotError(f"no bot file {spec}")
    listed, unclear = read_file(path)
    classes = [bot.spec.rpartition(":")[2] for bot in listed] + unclear
    if len(classes) != 1:
        raise BotError(f"{spec} holds {len(classes)} bot classes{' (' + ', '.join(classes) + ')' if classes else ''}: "
                       "give path/to/file.py:Class")
    return f"{spec}:{classes[0]}"


def _bundle_path(where: str, has_entry: bool, folders: tuple[Path, ...]) -> Path | None:
    """The folder or zip that the part of a spec before its first `:` names, or None when it names neither: a zip
    anywhere, a folder with a bot.toml, a folder written as a path or followed by an entry. A zip that is nowhere is
    refused here."""
    if where.lower().endswith(".zip"):
        found = found_in(where, folders, is_file)
        if found is None:
            raise BotError(f"no bot zip {where}")
        return found
    folder = found_in(where, folders, is_dir)
    if folder is None:
        if "/" in where and not has_entry:
            raise BotError(f"no bot folder {where}")
        return None
    if (folder / MANIFEST).is_file() or has_entry or "/" in where:
        return folder
    return None


def _bundle(spec: str, path: Path, entry: str | None) -> BotSource:
    """A package or a command bot: a folder, or a zip unpacked once (by its hash) under ARENA_HOME."""
    folder = unpacked(path) if path.is_file() else path
    shown = path.name if path.is_file() else spec.partition(":")[0]
    manifest_file = folder / MANIFEST
    if entry is not None:
        if manifest_file.exists():
            raise BotError(f"{shown}: has a {MANIFEST} already; leave the class out after it")
        from arena.bots import ENTRY

        if not ENTRY.fullmatch(entry):
            raise BotError(f'{shown}: the class after it must be "module:Class", not {entry!r}')
        start = f"{folder}:{entry}"
        return BotSource("package", spec, *_told_entry(folder, entry), str(folder), start, sha256=tree_hash(folder))
    if not manifest_file.is_file():
        inner = [p.relative_to(folder).as_posix() for p in sorted(folder.glob(f"*/{MANIFEST}"))]
        if inner:
            raise BotError(f"{shown}: its {MANIFEST} is at {inner[0]}, one folder down; zip what is inside that "
                           f"folder (cd {inner[0].split('/')[0]} && zip -r ../{Path(shown).stem}.zip .)")
        raise BotError(f"{shown}: no {MANIFEST} at its root; add one (entry = \"module:Class\" or command = "
                       "\"...\"), or give the class after it: SPEC:module:Class")
    manifest = read_manifest(folder)
    digest = tree_hash(folder)
    if manifest.entry is not None:
        return BotSource("package", spec, *_told_entry(folder, manifest.entry), str(folder), str(folder),
                         sha256=digest)
    command = folder_command(manifest.command, folder, f"{shown}/{MANIFEST}: command")
    return BotSource("command", spec, root=str(folder), command=tuple(command), sha256=digest)


def _told_entry(folder: Path, entry: str) -> tuple[str | None, tuple[str, ...] | None]:
    """The name and games of a package's class as its source tells them, else (None, None); raises BotError for a
    class that its module's source shows is no bot or not there."""
    from arena.bots.listing import Unclear, read_source

    module, _, class_name = entry.partition(":")
    for candidate in (folder.joinpath(*module.split(".")).with_suffix(".py"),
                      folder.joinpath(*module.split("."), "__init__.py")):
        if candidate.is_file():
            try:
                bot = read_source(candidate).bot(class_name, f"{folder.name}/{candidate.relative_to(folder)}")
            except Unclear:
                return None, None
            return bot.name, bot.games
    raise BotError(f"{folder.name}: no module {module} in it (its entry {entry})")


def folder_command(argv: tuple[str, ...], folder: Path, where: str) -> list[str]:
    """A bot folder's command made absolute, found in the folder alone (it runs there); a program written as a path
    must be one of the folder's files."""
    command = checked_command(list(argv), (folder,), where)
    if "/" in argv[0] and not Path(command[0]).is_relative_to(folder):
        raise BotError(f"{where}: no program {argv[0]} in {folder.name}/")
    return command


def as_folder(source: BotSource, dest: Path) -> Path:
    """A bot's code written into `dest`, a new folder, as a folder bot (what a league freezes and an upload sends): a
    folder bot's files (with the entry given after it written into its bot.toml), or for a `command:` program each
    file its command names, beside a bot.toml whose command names them there."""
    import json

    from arena.bots.bundles import copy_folder

    if source.form in ("package", "command"):
        copy_folder(Path(source.root), dest)
        entry = source.entry.removeprefix(source.root).removeprefix(":") if source.entry else ""
        if entry:
            (dest / MANIFEST).write_text(f"entry = {json.dumps(entry)}\n")
        return dest
    if source.form != "program":
        raise BotError(f"{source.spec}: not a folder bot, a package or a command")
    dest.mkdir()
    argv = []
    for i, arg in enumerate(source.command or ()):
        path = Path(arg)
        if path.is_absolute() and path.is_file():
            shutil.copy2(path, dest / path.name)  # its mode too: a program stays executable
            arg = f"./{path.name}" if i == 0 else path.name
        elif path.is_absolute() and path.is_dir():
            shutil.copytree(path, dest / path.name)
            arg = path.name
        argv.append(arg)
    (dest / MANIFEST).write_text(f"command = {json.dumps(argv)}\n")
    return dest


def freeze(source: BotSource, bots: Path) -> str | None:
    """Copies the code of a bot that is not arena's own into `bots/<sha256>/`, once (the same code, however named,
    is stored once; a copy is staged beside and renamed, so a kill leaves none half made), and returns the spec
    that plays the copy, relative to the folder that holds `bots`: `bots/<sha>/file.py:Class`, `bots/<sha>` (a
    folder with its bot.toml) or `bots/<sha>:module:Class`. None for arena's own code, and for a program found on
    PATH whose command names no file: nothing of it can be copied (its hash still pins it)."""
    if source.bundled or source.sha256 is None:
        return None
    if source.form == "program" and not any(Path(arg).is_absolute() for arg in source.command or ()):
        return None
    from arena.bots.bundles import copy_folder

    frozen = bots / source.sha256
    relative = f"{bots.name}/{source.sha256}"
    if source.form == "file":
        spec = f"{relative}/{Path(source.root).name}:{source.entry.rpartition(':')[2]}"
    elif source.form == "installed":  # an installed package's or module's tree, and its class
        spec = f"{relative}:{source.entry}"
    else:  # a folder; a package's class given after it stays after it
        entry = source.entry.removeprefix(source.root).removeprefix(":") if source.entry else ""
        spec = f"{relative}:{entry}" if entry else relative
    if frozen.is_dir():
        return spec
    bots.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=".staged-", dir=bots))
    try:
        if source.form == "file":
            shutil.copy2(source.root, staged / Path(source.root).name)
        elif source.form == "installed":
            where = module_root(source.entry)
            (copy_folder if where.is_dir() else shutil.copy2)(where, staged / where.name)
        elif source.form == "program":
            staged.rmdir()
            as_folder(source, staged)
        else:
            staged.rmdir()
            copy_folder(Path(source.root), staged)
        staged.rename(frozen)
    except OSError:
        if not frozen.is_dir():
            raise
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    return spec


def unpacked(zip_path: Path, limits: ArchiveLimits = ArchiveLimits()) -> Path:
    """The folder a bot's zip is unpacked into, once: `$ARENA_HOME/unpacked/<sha256 of the zip's bytes>/`."""
    digest = hashlib.sha256(zip_path.read_bytes()).hexdigest()
    home = arena_home() / "unpacked"
    folder = home / digest
    if not folder.is_dir():
        home.mkdir(parents=True, exist_ok=True)
        staged = Path(tempfile.mkdtemp(prefix=".staged-", dir=home))
        staged.rmdir()
        unpack(zip_path, staged, limits)
        try:
            staged.rename(folder)
        except OSError:  # unpacked meanwhile by another command
            shutil.rmtree(staged, ignore_errors=True)
    return folder


def _module(spec: str) -> BotSource:
    """`module:Class` of an installed package: found without running its code."""
    import importlib.util

    module, _, _ = spec.partition(":")
    top = module.partition(".")[0]
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        found = None
    if found is None:
        raise BotError(f"cannot find module {module} (a module:Class spec names an installed package; a file is "
                       "path/to/file.py:Class)")
    if top == "arena" or top == "bots":
        return BotSource("installed", spec, entry=spec)
    where = module_root(spec)
    digest = tree_hash(where) if where.is_dir() else files_hash([where])
    return BotSource("installed", spec, entry=spec, sha256=digest)


def module_root(entry: str) -> Path:
    """The folder (a package's) or file (a module's) that holds the installed top-level module of `module:Class`."""
    import importlib.util

    found = importlib.util.find_spec(entry.partition(":")[0].partition(".")[0])
    return Path(found.submodule_search_locations[0]) if found.submodule_search_locations else Path(found.origin)


def _name(spec: str, registered: bool) -> BotSource:
    """A bot's name: bundled or dropped into `bots/` (read from its file), registered, or an entry point."""
    if registered:
        record = load_registry().get(spec)
        if record is not None:
            return replace(record, name=spec)
    if spec in BUNDLED_NAMES:  # searched first by name; one file read, not every bot's (a league's rounds parse
        from arena.bots.listing import read_spec  # their configs, a name of its bots at a time)

        return _named(spec, read_spec(bundled_spec(spec)))
    names = source_names()
    if spec in names:
        return names[spec]
    known = sorted({*names, *(load_registry() if registered else {})})
    near = difflib.get_close_matches(spec, known, n=3, cutoff=0.6)
    if Path(spec).exists():
        raise BotError(f"{spec}: a folder without a {MANIFEST}, and no bot of this name")
    if near:
        raise BotError(f"unknown bot {spec!r}: did you mean {' or '.join(near)}?")
    raise BotError(f"unknown bot {spec!r} (bots: {', '.join(known)}; or give {SPEC_FORMS})")


def source_names() -> dict[str, BotSource]:
    """The bots found by name without the registry: bundled and dropped-in files, entry points."""
    from arena.bots.listing import listed_bots

    return {name: _named(name, bot) for name, bot in listed_bots(registered=False).items()}


def _named(name: str, bot: Listed) -> BotSource:
    """The source of a bot found by name, as `name`."""
    return replace(resolve(bot.spec, registered=False), spec=name, name=name, games=bot.games)


def files_hash(files: list[Path]) -> str:
    """SHA-256 of a bot's files: one file's own (what `sha256sum` prints), else one over each file's name and hash."""
    if len(files) == 1:
        return hashlib.sha256(files[0].read_bytes()).hexdigest()
    sha = hashlib.sha256()
    for path in files:
        sha.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return sha.hexdigest()


def recorded_spec(spec: str, frozen_in: Path | None = None) -> dict[str, str]:
    """How a run records where a bot came from, so that a run directory moved to another machine still says it:
    arena's own bot by its name and arena's version, a path inside the current folder (the project) relative, with
    its form and the SHA-256 of its code (`BotSource.sha256`) that `arena reproduce` checks, and with `frozen_in`
    (a run's `bots/` folder) the spec of its copy there (`freeze`); {} for what no longer resolves."""
    from importlib.metadata import version

    try:
        source = resolve(spec, registered=False)
    except BotError:
        return {}
    if source.bundled:
        return {"spec": source.name or spec, "version": version("arena")} if source.form == "bundled" \
            else {"spec": spec}
    here = Path.cwd()

    def relative(text: str) -> str:
        path = Path(text)
        return str(path.relative_to(here)) if path.is_absolute() and path.is_relative_to(here) else text

    if spec.startswith("command:"):
        shown = "command: " + shlex.join(relative(arg) for arg in shlex.split(spec.removeprefix("command:")))
    else:
        where, colon, rest = spec.partition(":") if ".py:" not in spec else spec.rpartition(":")
        shown = relative(where) + colon + rest
    frozen = freeze(source, frozen_in) if frozen_in is not None else None
    return {"spec": shown, "form": source.form, **({"sha256": source.sha256} if source.sha256 else {}),
            **({"frozen": frozen} if frozen else {})}


def found_in(text: str, folders: tuple[Path, ...], test) -> Path | None:
    """The absolute path that `text` names in the first of `folders` where `test` holds (an absolute path as it is),
    or None."""
    for folder in folders:
        path = Path(folder) / text
        if test(path):
            return path.resolve()
    return None


def _looked_up(test):
    """`test` (Path.is_file, is_dir, exists), False for a name the system cannot even look up (too long, a NUL byte)."""
    def safely(path: Path) -> bool:
        try:
            return test(path)
        except (OSError, ValueError):
            return False
    return safely


is_file, is_dir, exists = _looked_up(Path.is_file), _looked_up(Path.is_dir), _looked_up(Path.exists)
