"""`arena submit`: check a bot before it plays, then make it available by name.

A bot passes when it is built within the setup time limit and, in every game it claims, it plays a
validation set of games against `random` in every seat without an exception, an illegal move, a move
over the move time limit or a reset over the setup time limit, and replays each game identically from
the same seed.

The bot is a stranger's code: it runs in its own process (the built-in host, or its command), never in
this one, by default inside the sandbox (arena/sandbox.py), and every call into it has a deadline
(arena/isolation/), so the checks end within the limits they state whatever the bot does.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from arena import referee
from arena.bots import BUNDLED_DIR, MANIFEST, BotError, can_play, is_bot_folder, load_spec, read_manifest
from arena.clock import WALL_BACKSTOP
from arena.config.bot_entries import absolute_command
from arena.games import GAME_IDS, get_game, make_rules
from arena.registry import load_registry, register

VALIDATION_RULES = {"caterpillar": [{}], "give_or_take": [{}], "duke_of_york": [{}],
                    "go_for_it": [{"players": 2}, {"players": 4}]}


@dataclass
class GameCheck:
    """How a bot did in the validation games of one game."""

    game: str
    games: int = 0
    wins: int = 0
    slowest: float = 0.0
    """The mean wall time per move of its slowest game (s)."""
    slowest_move: tuple[float, float] = (0.0, 0.0)
    """The most CPU time and the most wall time (s) a move took, as the clock timed them: wall time far past CPU
    time is a loaded machine, which the time limits (of CPU time) leave out."""
    problems: list[str] = field(default_factory=list)


@dataclass
class SubmitReport:
    """The outcome of checking a bot."""

    name: str
    spec: str
    checks: list[GameCheck]
    problems: list[str]
    """Problems that stop the bot being registered (those of every game included)."""
    built: float | None = None
    """Seconds its process took to load and build the bot (None: not within the setup time limit)."""
    lasting_spec: str = ""
    """A spec that finds the bot from any folder."""

    @property
    def ok(self) -> bool:
        """True when the bot passed every check."""
        return not self.problems


def check_bot(spec: str, *, games_per_rules: int = 6, move_time_limit: float = 1.0, setup_time_limit: float = 10.0,
              sandboxed: bool = True, wall_backstop: float = WALL_BACKSTOP) -> SubmitReport:
    """Starts the bot named by `spec` in its own process (in the sandbox unless `sandboxed` is False) and plays
    the validation games; registers nothing. Raises BotError when the bot cannot be loaded at all, or when no
    sandbox can be made for it."""
    from arena.isolation import BotProcessError, SetupTimeout, close_all, process_bot_class, python_command

    folder = None
    if spec.startswith("command:"):  # its files made absolute, as a config's: the sandbox starts in its own /tmp
        command = absolute_command(shlex.split(spec.removeprefix("command:")), (Path.cwd(),))
    elif is_bot_folder(spec):  # a package (the host imports it from the folder) or a command run in the folder
        command, folder = _folder_command(Path(spec).resolve())
    else:  # a file made absolute: the process may start elsewhere (the sandbox's own folder)
        file, _, class_name = spec.rpartition(":")
        command = python_command(f"{Path(file).resolve()}:{class_name}" if file.endswith(".py") else spec)
    started = time.perf_counter()
    try:
        bot_class = process_bot_class(command, move_time_limit=move_time_limit, setup_time_limit=setup_time_limit,
                                      wall_backstop=wall_backstop, sandboxed=sandboxed, folder=folder)
    except SetupTimeout:
        close_all()
        return SubmitReport(spec, spec, [], [f"not built within setup_time_limit = {setup_time_limit:g}s"])
    except (BotProcessError, ValueError, OSError) as error:
        close_all()
        raise BotError(f"{spec}: {str(error).removeprefix('BotError: ')}") from None
    try:
        return _play_checks(spec, bot_class, time.perf_counter() - started, games_per_rules,
                            (move_time_limit, setup_time_limit, wall_backstop))
    finally:
        close_all()


def _folder_command(folder: Path) -> tuple[list[str], str | None]:
    """The process that plays a bot's folder, and the folder it runs in (None: the built-in host's own)."""
    from arena.config import ConfigError
    from arena.config.bot_entries import folder_command
    from arena.isolation import python_command

    manifest = read_manifest(folder)
    if manifest.command is None:
        return python_command(str(folder)), None
    try:
        return list(folder_command(manifest.command, folder, f"{folder.name}/{MANIFEST}: command")), str(folder)
    except ConfigError as error:
        raise BotError(str(error)) from None


def _play_checks(spec: str, bot_class: type, built: float, games_per_rules: int, limits: tuple) -> SubmitReport:
    name = bot_class.name
    claimed = [g for g in GAME_IDS if can_play(bot_class, g)]
    problems = [] if claimed else [f"it claims no game arena knows (games = {sorted(bot_class.games)})"]
    random_bot = load_spec(f"{BUNDLED_DIR / 'random_bot.py'}:RandomBot")  # arena's own: no other bot's code
    checks = []
    for game_id in claimed:
        game = get_game(game_id)
        check = GameCheck(game_id)
        for overrides in VALIDATION_RULES[game_id]:
            rules = make_rules(game.Rules, overrides)
            seats = game.players(rules)
            for number in range(games_per_rules):
                seat, seed = number % seats, 1000 + number
                problem = _one_game(game, rules, bot_class, random_bot, seat, seed, limits, check)
                if problem:
                    check.problems.append(f"{game_id} {_rules_text(overrides)}seed {seed} seat {seat}: {problem}")
                    break
        checks.append(check)
        problems += check.problems
    return SubmitReport(name, spec, checks, problems, built, _lasting_spec(spec, bot_class))


def _one_game(game, rules, bot_class, random_bot, seat, seed, limits, check: GameCheck) -> str | None:
    """Plays one validation game twice under `limits` (move, setup, wall backstop); the problem found, or None."""
    transcripts = []
    for _ in range(2):
        try:
            lineup = [random_bot() for _ in range(game.players(rules))]
            lineup[seat] = bot_class()
        except Exception as error:
            return f"cannot create the bot: {type(error).__name__}: {error}"
        started = time.perf_counter()
        played = referee.play(game, rules, lineup, seed, move_time_limit=limits[0], setup_time_limit=limits[1],
                              wall_backstop=limits[2])
        per_move = (time.perf_counter() - started) / max(1, played.decisions)
        if played.fault_seat == seat:
            return f"{played.outcome.termination}: {played.fault}"
        names = [getattr(b, "name", "?") for b in lineup]
        transcripts.append(json.dumps(referee.transcript(game, rules, names, seed, played)))
    check.games += 1
    check.wins += played.outcome.ranks[seat] == 0
    check.slowest = max(check.slowest, per_move)
    cpu, wall = played.slowest or (0.0, 0.0)
    check.slowest_move = max(check.slowest_move[0], cpu), max(check.slowest_move[1], wall)
    if transcripts[0] != transcripts[1]:
        return "not deterministic: the same seed gave another game (use only the rng given to reset)"
    return None


def _rules_text(overrides: dict) -> str:
    return "".join(f"{k}={v} " for k, v in overrides.items())


def _lasting_spec(spec: str, bot_class: type) -> str:
    """A spec that finds the bot from any folder: absolute paths for files and commands."""
    if not spec.startswith("command:"):
        return bot_class.spec or spec
    return "command: " + shlex.join(absolute_command(shlex.split(spec.removeprefix("command:")), (Path.cwd(),)))


KNOWN_BOTS = """
import json, shlex, sys
from arena.bots import available_bots, resolved_spec
known = {name: "command: " + shlex.join(bot.command) if getattr(bot, "command", None) else resolved_spec(bot)
         for name, bot in available_bots().items()}
sys.__stdout__.write("\\n" + json.dumps(known) + "\\n")
"""
"""Prints the specs of the bots known by name, on its last line: their files are imported, so not in this
process."""
KNOWN_BOTS_SECONDS = 60.0
"""The longest that listing the known bots may take (each is imported)."""


def known_bots() -> dict[str, str]:
    """The specs of the bots that can be named, by name, found in a process of their own, in bounded time."""
    try:
        found = subprocess.run([sys.executable, "-c", KNOWN_BOTS], capture_output=True, text=True,
                               timeout=KNOWN_BOTS_SECONDS, start_new_session=True)
    except subprocess.TimeoutExpired:
        raise BotError(f"listing the known bots took over {KNOWN_BOTS_SECONDS:g}s (a bot that hangs when "
                       "imported?)") from None
    try:
        return json.loads(found.stdout.splitlines()[-1])
    except (ValueError, IndexError):
        raise BotError("listing the known bots failed (a bot that breaks when imported?)") from None


def submit(spec: str, replace: bool = False, **options) -> SubmitReport:
    """Checks the bot and, when it passes, registers it by name for `arena bots` and configs; `replace` lets it take
    a name registered before (never that of a bundled or installed bot)."""
    report = check_bot(spec, **options)
    if report.ok:
        known = known_bots().get(report.name)
        if known is not None and known != report.lasting_spec:
            if report.name not in load_registry():
                raise BotError(f"the name {report.name!r} is taken by a bundled or installed bot ({known}); "
                               "rename yours")
            if not replace:
                raise BotError(f"the name {report.name!r} is registered to another bot ({known}); rename yours, "
                               "or submit it with --replace")
        register(report.name, report.lasting_spec)
    return report
