"""Tournament configs (TOML): models and validation. Every problem is one line naming the field."""

from __future__ import annotations

import math
import os
import shlex
import shutil
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.games import RulesError, UnknownGameError, get_game, make_rules


class ConfigError(ValueError):
    """A config that cannot be run; the message names the field and the problem."""

    def __init__(self, message: str) -> None:
        # one line, whatever the config holds: a key, a path or a name may contain a newline
        super().__init__("".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message))


@dataclass(frozen=True)
class GameEntry:
    """One `[[games]]` table: a game under one set of rules, played by a round robin of bots."""

    game: str
    deals: int
    duplicate: bool = True
    rules: dict[str, Any] = field(default_factory=dict)
    bots: tuple[str, ...] | None = None
    """Names of the bots that play this game; all bots of the config when None."""
    gauntlet: str | None = None
    """A bot's name: only the tables that include it are played."""

    @property
    def label(self) -> str:
        """The variant's name in results and ratings, e.g. `go_for_it:jokers=true,players=3`."""
        if not self.rules:
            return self.game
        text = {k: str(v).lower() if isinstance(v, bool) else v for k, v in sorted(self.rules.items())}
        return f"{self.game}:" + ",".join(f"{k}={v}" for k, v in text.items())


@dataclass(frozen=True)
class BotEntry:
    """One `[[bots]]` table: a named bot, where to find it, and its parameters."""

    name: str
    path: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    spec: str = ""
    """Where the bot's class is, resolved so any worker can load it (`/abs/file.py:Class` or `module:Class`);
    `command: ...` for a bot given by a command."""
    isolation: str = "none"
    """`none`: the bot's class plays in the worker process; `process`: in a subprocess (arena/isolation/);
    `sandbox`: in a subprocess inside a sandbox (arena/sandbox.py)."""
    command: tuple[str, ...] | None = None
    """The executable that is the bot (docs/protocol.md), program path resolved; None for a Python class."""
    memory_mb: int | None = None
    """Address-space limit of a process bot in MiB (None: no limit)."""
    cpu_seconds: float | None = None
    """CPU seconds a process bot may use per game (None: no limit)."""
    plays: tuple[str, ...] | None = None
    """The games the bot says it plays when its config is checked (None: any game)."""


STOP_RULES = ("all", "settled", "sprt")


@dataclass(frozen=True)
class SprtSettings:
    """`[run] sprt`: the sequential probability ratio test of a match (`until = "sprt"`)."""

    bots: tuple[str, str]
    """The two bots compared: H0 says the first is elo0 stronger than the second, H1 elo1."""
    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    """The chance of accepting H1 when H0 holds."""
    beta: float = 0.05
    """The chance of accepting H0 when H1 holds."""


@dataclass(frozen=True)
class RunSettings:
    """The `[run]` table."""

    workers: int = 0
    """Worker processes; 0 = one per core, 1 = play in this process."""
    address: str | None = None
    """A Ray cluster to run on instead of a local instance."""
    batch_size: int = 2000
    move_time_limit: float | None = 1.0
    setup_time_limit: float = 10.0
    """Seconds a bot may take to be built (its module's import included) and for each `reset`."""
    until: str = "all"
    """When to stop: "all" deals; "settled", once a variant's table is settled; "sprt", once the test decides."""
    max_deals: int | None = None
    """Deals per table for the games that do not give their own `deals`."""
    round_deals: int = 10
    """A stopping rule looks at the results after every this many deals of every table."""
    confidence: float = 0.95
    """`settled`: the chance that no look separates any adjacent pair wrongly (split between the looks)."""
    tie_margin: float = 0.5
    """`settled`: a rating difference known to lie within +-tie_margin is a tie (0.5 = 53% head to head)."""
    sprt: SprtSettings | None = None


RATING_METHODS = ("batch", "online")


@dataclass(frozen=True)
class RatingSettings:
    """The TrueSkill environment of a tournament: the `[ratings]` table of its config."""

    mu: float = 25.0
    """Initial mean of every bot's rating."""
    sigma: float = 25.0 / 3
    """Initial standard deviation."""
    beta: float = 25.0 / 6
    """Performance spread: a beta lead is about a 76% chance to win."""
    tau: float = 25.0 / 300
    """Dynamics: added to sigma before every game so ratings can keep moving."""
    draw_probability: float = 0.1
    """Chance that two adjacent seats draw; sets the draw margin."""
    backend: str | tuple | None = None
    """trueskill's cdf/pdf/ppf: None (its own erfc approximation), "mpmath", "scipy" or a tuple."""
    method: str = "batch"
    """"batch": the posterior given all games at once (order-free, no dynamics); "online": the
    package's update game by game in game-index order."""

    def __post_init__(self) -> None:
        if self.method not in RATING_METHODS:
            raise ValueError(f"ratings: method must be one of {', '.join(RATING_METHODS)}, not {self.method!r}")
        if not (self.sigma > 0 and self.beta > 0 and self.tau >= 0):
            raise ValueError(f"ratings: need sigma > 0, beta > 0, tau >= 0, not {self}")
        if not 0 <= self.draw_probability < 1:
            raise ValueError(f"ratings: draw_probability must be in [0, 1), not {self.draw_probability!r}")

    def env(self) -> Any:
        """A fresh `trueskill.TrueSkill` environment with these constants (never the global one)."""
        import trueskill

        return trueskill.TrueSkill(self.mu, self.sigma, self.beta, self.tau, self.draw_probability,
                                   backend=self.backend)


@dataclass(frozen=True)
class Config:
    """A whole tournament, exactly as its TOML says."""

    name: str
    seed: int
    games: tuple[GameEntry, ...]
    bots: tuple[BotEntry, ...]
    run: RunSettings = RunSettings()
    ratings: RatingSettings = RatingSettings()
    text: str = ""
    """The TOML text the config was read from."""


def _check_keys(table: dict, allowed: set[str], where: str) -> None:
    for key in table:
        if key not in allowed:
            raise ConfigError(f"{where}{key}: unknown field (fields: {', '.join(sorted(allowed))})")


def _integer(value: Any, where: str, low: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or (low is not None and value < low):
        wanted = "a positive integer" if low == 1 else "a non-negative integer" if low == 0 else "an integer"
        raise ConfigError(f"{where}: must be {wanted}, not {value!r}")
    return value


def _number(value: Any, where: str, low: float = 0.0, inclusive: bool = False) -> float:
    if (not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < low
            or (value == low and not inclusive)):
        raise ConfigError(f"{where}: must be a number {'>=' if inclusive else '>'} {low:g}, not {value!r}")
    return float(value)


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: must be a non-empty string, not {value!r}")
    return value


def _table(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be a table, not {value!r}")
    return value


def _second(values) -> int | None:
    """The position of the first value that appeared before, or None."""
    seen = set()
    for position, value in enumerate(values):
        if value in seen:
            return position
        seen.add(value)
    return None


def load_config(path: str | Path) -> Config:
    """The config in the TOML file at `path`, validated."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    try:
        return parse_config(text, base=path.parent)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def parse_config(text: str, base: Path = Path(".")) -> Config:
    """The config in a TOML text; bot paths are relative to `base` (the config file's folder) or the cwd."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"malformed TOML: {error}") from None
    except RecursionError:  # tomllib recurses once per level of nested arrays and inline tables
        raise ConfigError("malformed TOML: arrays or tables nested too deeply") from None
    _check_keys(data, {"name", "seed", "games", "bots", "run", "ratings"}, "")
    for key in ("name", "seed", "games", "bots"):
        if key not in data:
            raise ConfigError(f"{key}: missing")
    name = _string(data["name"], "name")
    if any(ch in name for ch in "/\\") or name in (".", ".."):
        raise ConfigError(f"name: must not contain a path separator, not {name!r}")
    seed = _integer(data["seed"], "seed", 0)
    if not isinstance(data["bots"], list) or not data["bots"]:
        raise ConfigError("bots: must be a non-empty array of tables ([[bots]])")
    bots = tuple(_bot_entry(_table(raw, f"bots[{i}]"), f"bots[{i}].", base) for i, raw in enumerate(data["bots"]))
    if (twice := _second(b.name for b in bots)) is not None:
        raise ConfigError(f"bots[{twice}].name: {bots[twice].name!r} appears twice")
    run = _run_settings(_table(data.get("run", {}), "run"), bots)
    bots = _checked_bots(bots, run.setup_time_limit)
    if not isinstance(data["games"], list) or not data["games"]:
        raise ConfigError("games: must be a non-empty array of tables ([[games]])")
    games = tuple(_game_entry(_table(raw, f"games[{i}]"), f"games[{i}].", bots, run.max_deals)
                  for i, raw in enumerate(data["games"]))
    if (twice := _second(g.label for g in games)) is not None:
        raise ConfigError(f"games[{twice}]: {games[twice].label} is listed twice")
    if run.sprt is not None:
        _check_sprt_games(run.sprt, games, bots)
    ratings = rating_settings(_table(data.get("ratings", {}), "ratings"))
    return Config(name, seed, games, bots, run, ratings, text)


def _bot_entry(raw: dict, where: str, base: Path) -> BotEntry:
    _check_keys(raw, {"name", "path", "params", "isolation", "command", "memory_mb", "cpu_seconds"}, where)
    if "name" not in raw:
        raise ConfigError(f"{where}name: missing")
    name = _string(raw["name"], where + "name")
    path = raw.get("path")
    params = _table(raw.get("params", {}), where + "params")
    isolation = raw.get("isolation", "sandbox" if "command" in raw else "none")
    if isolation not in ("none", "process", "sandbox"):
        raise ConfigError(f'{where}isolation: must be "none", "process" or "sandbox", not {isolation!r}')
    if isolation != "none":
        return _process_bot_entry(raw, where, base, name, path, params, isolation)
    if "command" in raw:
        raise ConfigError(f'{where}isolation: a bot with a command always runs in its own process '
                          '(isolation = "sandbox", the default, or "process")')
    for key in ("memory_mb", "cpu_seconds"):
        if key in raw:
            raise ConfigError(f'{where}{key}: applies only to a bot in its own process '
                              '(isolation = "process" or "sandbox")')
    spec = _string(path, where + "path") if path is not None else name
    return BotEntry(name, path, params, _file_spec(spec, where, base) if ".py:" in spec else spec)


def _file_spec(spec: str, where: str, base: Path) -> str:
    """A `file.py:Class` spec with its file made absolute (relative to the cwd or else the config's folder)."""
    file, _, class_name = spec.rpartition(":")
    local = Path(file)
    if not local.is_absolute() and not _exists(local) and _exists(base / local):
        local = base / local
    if not _is_file(local):
        raise ConfigError(f"{where}path: no bot file {file}")
    return f"{local.resolve()}:{class_name}"


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


_checked: dict[tuple, dict] = {}
"""What checking a Python bot found (its hello: name, games, spec), by what was checked: a config read again
in this process does not start its bots' processes again."""


def _checked_bots(bots: tuple[BotEntry, ...], setup_time_limit: float) -> tuple[BotEntry, ...]:
    """The bot entries with their games (and their specs resolved), as each bot tells in its own process.

    This process never runs a bot's code: a Python bot is imported and built with its params in a host
    process (arena/isolation/), which must answer within the setup time limit; a command bot answers hello."""
    import dataclasses
    import json

    from arena.isolation import BotProcessError, SetupTimeout, check_bots, entry_bot_class

    keys = {i: (entry.spec, json.dumps(entry.params, sort_keys=True, default=repr), setup_time_limit,
                str(Path.cwd()), _stamp(entry.spec), entry.isolation == "sandbox")
            for i, entry in enumerate(bots) if entry.command is None}
    missing = [i for i, key in keys.items() if key not in _checked]
    checks = [(bots[i].spec, bots[i].params, keys[i][-1]) for i in missing]
    for i, answer in zip(missing, check_bots(checks, setup_time_limit), strict=True):
        entry, where = bots[i], f"bots[{i}]."
        field_name = "path" if entry.path is not None else "name"
        if isinstance(answer, SetupTimeout):
            raise ConfigError(f"{where}{field_name}: bot {entry.name!r} could not be built within "
                              f"setup_time_limit = {setup_time_limit:g}s")
        if isinstance(answer, BotProcessError):
            text = str(answer).removeprefix("BotError: ")
            raise ConfigError(f"{where}{text}" if text.startswith("params: ") else f"{where}{field_name}: {text}")
        _checked[keys[i]] = answer
    checked = []
    for i, entry in enumerate(bots):
        if entry.command is None:
            hello = _checked[keys[i]]
            games = hello.get("games")
            entry = dataclasses.replace(entry, spec=hello.get("spec") or entry.spec,
                                        plays=None if games is None else tuple(games))
        else:
            try:
                games = entry_bot_class(entry, setup_time_limit=setup_time_limit, strict=True).games
            except BotProcessError as error:
                raise ConfigError(f"bots[{i}].command: {error}") from None
            entry = dataclasses.replace(entry, plays=None if games is None else tuple(sorted(games)))
        checked.append(entry)
    return tuple(checked)


def _stamp(spec: str) -> tuple:
    """When a bot file last changed (size and time): a file changed since it was checked is checked again."""
    file = spec.rpartition(":")[0]
    try:
        info = Path(file).stat() if ".py" in file else None
    except (OSError, ValueError):
        info = None
    return (info.st_size, info.st_mtime_ns) if info is not None else ()


def _process_bot_entry(raw: dict, where: str, base: Path, name: str, path: Any, params: dict,
                       isolation: str) -> BotEntry:
    """A bot that plays in its own process (sandboxed or not): a command, or a Python class run by the built-in
    host (checked like any Python bot, in a host process)."""
    from arena.isolation import DEFAULT_MEMORY_MB
    from arena.sandbox import SandboxUnavailable, check

    if isolation == "sandbox":
        try:
            check()
        except SandboxUnavailable as error:
            raise ConfigError(f"{where}{error}") from None

    command = raw.get("command")
    memory_mb = _integer(raw.get("memory_mb", DEFAULT_MEMORY_MB), where + "memory_mb", 0) or None
    cpu_seconds = _number(raw["cpu_seconds"], where + "cpu_seconds") if "cpu_seconds" in raw else None
    if command is not None:
        if path is not None:
            raise ConfigError(f"{where}command: give a command or a path, not both")
        command = _command(command, where + "command", base)
        spec = "command: " + shlex.join(command)
    else:
        spec = _string(path, where + "path") if path is not None else name
        if ".py:" in spec:
            spec = _file_spec(spec, where, base)
        elif ":" not in spec and isolation == "sandbox":  # a name: a sandbox sees no registry, so its spec
            from arena.bots import registered_bots

            spec = registered_bots().get(spec, spec)
    return BotEntry(name, path, params, spec, isolation, command, memory_mb, cpu_seconds)


def _command(value: Any, where: str, base: Path) -> tuple[str, ...]:
    """A command line (a string split like a shell's, or an array), its program made absolute: a path
    relative to the config's folder or the cwd (like any relative argument naming a file there), or a
    program on PATH."""
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as error:
            raise ConfigError(f"{where}: cannot split {value!r}: {error}") from None
    elif isinstance(value, list) and all(isinstance(arg, str) for arg in value):
        argv = list(value)
    else:
        raise ConfigError(f"{where}: must be a string or an array of strings, not {value!r}")
    if not argv or not argv[0].strip():
        raise ConfigError(f"{where}: must name a program, not {value!r}")
    for i, arg in enumerate(argv):
        if "/" in arg and not Path(arg).is_absolute() and not Path(arg).exists() and (base / arg).exists():
            argv[i] = str((base / arg).resolve())
    program = argv[0]
    if "/" in program:
        found = Path(program).resolve()
        if not found.is_file():
            raise ConfigError(f"{where}: no program {program}")
        if not os.access(found, os.X_OK):
            raise ConfigError(f"{where}: {program} is not executable (chmod +x)")
        argv[0] = str(found)
    elif shutil.which(program) is None:
        raise ConfigError(f"{where}: no program {program!r} on PATH")
    return tuple(argv)


def _exists(path: Path) -> bool:
    """Path.exists, False for a name the system cannot even look up (too long, a NUL byte)."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def _game_entry(raw: dict, where: str, bots: tuple[BotEntry, ...], max_deals: int | None) -> GameEntry:
    _check_keys(raw, {"game", "deals", "duplicate", "rules", "bots", "gauntlet"}, where)
    if "game" not in raw:
        raise ConfigError(f"{where}game: missing")
    if "deals" not in raw and max_deals is None:
        raise ConfigError(f"{where}deals: missing (or give run.max_deals)")
    try:
        game = get_game(_string(raw["game"], where + "game"))
    except UnknownGameError as error:
        raise ConfigError(f"{where}game: {error}".replace("'", "")) from None
    deals = _integer(raw["deals"], where + "deals", 1) if "deals" in raw else max_deals
    duplicate = raw.get("duplicate", True)
    if not isinstance(duplicate, bool):
        raise ConfigError(f"{where}duplicate: must be true or false, not {duplicate!r}")
    rules_raw = _table(raw.get("rules", {}), where + "rules")
    try:
        rules = make_rules(game.Rules, rules_raw)
    except RulesError as error:
        raise ConfigError(f"{where}rules: {error}") from None
    by_name = {b.name: b for b in bots}
    chosen = raw.get("bots")
    if chosen is not None:
        if not isinstance(chosen, list) or not all(isinstance(n, str) for n in chosen):
            raise ConfigError(f"{where}bots: must be an array of bot names")
        for bot_name in chosen:
            if bot_name not in by_name:
                raise ConfigError(f"{where}bots: no bot named {bot_name!r} in [[bots]]")
    for bot_name in chosen if chosen is not None else by_name:
        plays = by_name[bot_name].plays
        if plays is not None and game.id not in plays:
            raise ConfigError(f"{where}game: bot {bot_name!r} cannot play {game.id} "
                              f"(it plays {', '.join(sorted(plays))}); list the bots that can in {where}bots")
    players = game.players(rules)
    entrants = len(chosen) if chosen is not None else len(bots)
    if entrants < players:
        raise ConfigError(f"{where}rules: {game.id} needs {players} players per table, "
                          f"but only {entrants} bots can play it")
    gauntlet = _string(raw["gauntlet"], where + "gauntlet") if "gauntlet" in raw else None
    if gauntlet is not None and gauntlet not in (chosen if chosen is not None else by_name):
        raise ConfigError(f"{where}gauntlet: {gauntlet!r} is not a bot that plays this game")
    return GameEntry(game.id, deals, duplicate, dict(rules_raw), tuple(chosen) if chosen is not None else None,
                     gauntlet)


def _check_sprt_games(sprt: SprtSettings, games: tuple[GameEntry, ...], bots: tuple[BotEntry, ...]) -> None:
    """A test compares two bots on one game: they must both play it."""
    if len(games) != 1:
        raise ConfigError(f"run.sprt: a test needs exactly one [[games]] table, not {len(games)}")
    entrants = games[0].bots if games[0].bots is not None else tuple(b.name for b in bots)
    for name in sprt.bots:
        if name not in entrants:
            raise ConfigError(f"run.sprt.bots: {name!r} does not play {games[0].label}")


def _run_settings(raw: dict, bots: tuple[BotEntry, ...]) -> RunSettings:
    _check_keys(raw, {"workers", "address", "batch_size", "move_time_limit", "setup_time_limit", "until", "max_deals",
                      "round_deals", "confidence", "tie_margin", "sprt"}, "run.")
    workers = raw.get("workers", 0)
    address = raw.get("address")
    if isinstance(workers, str):  # a Ray address in `workers` runs on that cluster
        workers, address = 0, workers
    workers = _integer(workers, "run.workers", 0)
    if address is not None:
        address = _string(address, "run.address")
    batch_size = _integer(raw.get("batch_size", 2000), "run.batch_size", 1)
    limit = raw.get("move_time_limit", 1.0)
    limit = None if limit == 0 else _number(limit, "run.move_time_limit")
    setup_limit = _number(raw.get("setup_time_limit", RunSettings.setup_time_limit), "run.setup_time_limit")
    until = raw.get("until", "all")
    if until not in STOP_RULES:
        raise ConfigError(f"run.until: must be one of {', '.join(map(repr, STOP_RULES))}, not {until!r}")
    for key, rule in (("confidence", "settled"), ("tie_margin", "settled"), ("sprt", "sprt")):
        if key in raw and until != rule:
            raise ConfigError(f'run.{key}: applies only with until = "{rule}"')
    if until == "sprt" and "sprt" not in raw:
        raise ConfigError('run.sprt: missing; until = "sprt" needs sprt = { bots = ["a", "b"], elo0 = 0, elo1 = 5 }')
    max_deals = _integer(raw["max_deals"], "run.max_deals", 1) if "max_deals" in raw else None
    round_deals = _integer(raw.get("round_deals", 10), "run.round_deals", 1)
    confidence = raw.get("confidence", 0.95)
    if not isinstance(confidence, float) or not 0.5 <= confidence < 1:
        raise ConfigError(f"run.confidence: must be a number in [0.5, 1), not {confidence!r}")
    tie_margin = _number(raw.get("tie_margin", 0.5), "run.tie_margin", inclusive=True)
    sprt = _sprt_settings(_table(raw["sprt"], "run.sprt"), bots) if "sprt" in raw else None
    return RunSettings(workers, address, batch_size, limit, setup_limit, until, max_deals, round_deals, confidence,
                       tie_margin, sprt)


def _sprt_settings(raw: dict, bots: tuple[BotEntry, ...]) -> SprtSettings:
    _check_keys(raw, {"bots", "elo0", "elo1", "alpha", "beta"}, "run.sprt.")
    names = raw.get("bots")
    if (not isinstance(names, list) or len(names) != 2 or not all(isinstance(n, str) for n in names)
            or names[0] == names[1]):
        raise ConfigError(f"run.sprt.bots: must name two different bots, not {names!r}")
    for name in names:
        if name not in {b.name for b in bots}:
            raise ConfigError(f"run.sprt.bots: no bot named {name!r} in [[bots]]")
    elo = {}
    for key, default in (("elo0", 0.0), ("elo1", 5.0)):
        value = raw.get(key, default)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not -1000 < value < 1000:
            raise ConfigError(f"run.sprt.{key}: must be a number of Elo between -1000 and 1000, not {value!r}")
        elo[key] = float(value)
    if elo["elo0"] >= elo["elo1"]:
        raise ConfigError(f"run.sprt: elo0 must be below elo1, not {elo['elo0']:g} and {elo['elo1']:g}")
    errors = {}
    for key in ("alpha", "beta"):
        value = raw.get(key, 0.05)
        if not isinstance(value, float) or not 0 < value < 0.5:
            raise ConfigError(f"run.sprt.{key}: must be a number in (0, 0.5), not {value!r}")
        errors[key] = value
    return SprtSettings((names[0], names[1]), elo["elo0"], elo["elo1"], errors["alpha"], errors["beta"])


def rating_settings(raw: dict) -> RatingSettings:
    """The `[ratings]` table, checked."""
    _check_keys(raw, {"mu", "sigma", "beta", "tau", "draw_probability", "method"}, "ratings.")
    method = raw.get("method", "batch")
    if method not in RATING_METHODS:
        raise ConfigError(f"ratings.method: must be one of {', '.join(RATING_METHODS)}, not {method!r}")
    defaults = RatingSettings()
    mu = raw.get("mu", defaults.mu)
    if not isinstance(mu, (int, float)) or isinstance(mu, bool) or not math.isfinite(mu):
        raise ConfigError(f"ratings.mu: must be a finite number, not {mu!r}")
    sigma = _number(raw.get("sigma", mu / 3), "ratings.sigma")
    beta = _number(raw.get("beta", sigma / 2), "ratings.beta")
    tau = _number(raw.get("tau", sigma / 100), "ratings.tau", inclusive=True)
    draw = raw.get("draw_probability", defaults.draw_probability)
    if not isinstance(draw, (int, float)) or isinstance(draw, bool) or not 0 <= draw < 1:
        raise ConfigError(f"ratings.draw_probability: must be a number in [0, 1), not {draw!r}")
    return RatingSettings(float(mu), sigma, beta, tau, float(draw), method=method)
