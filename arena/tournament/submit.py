"""`arena submit`: check a bot before it plays, then make it available by name.

A bot passes when it is built within the setup time limit and, in every game it claims, it plays a
validation set of games against `random` in every seat without an exception, an illegal move, a move
over the move time limit or a reset over the setup time limit, and replays each game identically from
the same seed. The checks stop at the first stall (a call the wall-clock backstop had to end: the bot slept or
blocked), which is the one problem said: each more would cost the backstop again.

The bot is a stranger's code: it runs in its own process (the built-in host, or its command), never in
this one, by default inside the sandbox (arena/isolation/sandbox.py), and every call into it has a deadline
(arena/isolation/), so the checks end within the limits they state whatever the bot does.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field

from arena.bots import BUNDLED_DIR, BotError, can_play, load_spec
from arena.bots.registry import BotSource, load_registry, register
from arena.bots.sources import resolve, source_names
from arena.games import GAME_IDS, get_game, make_rules
from arena.isolation.clock import WALL_BACKSTOP, setup_wall
from arena.tournament import referee

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
    source: BotSource | None = None
    """The bot as resolved, with the name and games it told (None: it was never built)."""
    unchanged: bool = False
    """True when this very code was registered under this name already: nothing was checked again."""
    stalled: bool = False
    """True when the checks stopped at a stall (a call the wall-clock backstop ended), the one problem said."""

    @property
    def ok(self) -> bool:
        """True when the bot passed every check."""
        return not self.problems


def check_bot(spec: str | BotSource, *, games_per_rules: int = 6, move_time_limit: float = 1.0,
              setup_time_limit: float = 10.0, sandboxed: bool = True,
              wall_backstop: float = WALL_BACKSTOP) -> SubmitReport:
    """Starts the bot named by `spec` (any form, or its source) in its own process (in the sandbox unless `sandboxed`
    is False; a command always in it) and plays the validation games; registers nothing. Raises BotError when the
    bot cannot be found or loaded at all, or when no sandbox can be made for it."""
    from arena.isolation import BotProcessError, SetupTimeout, close_all, process_bot_class, python_command

    source = resolve(spec) if isinstance(spec, str) else spec
    command = python_command(source.entry) if source.python else source.command
    started = time.perf_counter()
    try:
        bot_class = process_bot_class(command, move_time_limit=move_time_limit, setup_time_limit=setup_time_limit,
                                      wall_backstop=wall_backstop, sandboxed=sandboxed or not source.python,
                                      folder=source.folder)
    except SetupTimeout as late:
        close_all()
        stall = f"stalled in hello: no answer within {setup_wall(setup_time_limit, wall_backstop):g}s of wall time; "
        return SubmitReport(source.spec, source.spec, [],
                            [f"{stall if late.wall else ''}not built within setup_time_limit = {setup_time_limit:g}s"],
                            stalled=late.wall)
    except (BotProcessError, ValueError, OSError) as error:
        close_all()
        raise BotError(f"{source.spec}: {str(error).removeprefix('BotError: ')}") from None
    try:
        return _play_checks(source, bot_class, time.perf_counter() - started, games_per_rules,
                            (move_time_limit, setup_time_limit, wall_backstop))
    finally:
        close_all()


def _play_checks(source: BotSource, bot_class: type, built: float, games_per_rules: int,
                 limits: tuple) -> SubmitReport:
    name = bot_class.name
    claimed = [g for g in GAME_IDS if can_play(bot_class, g)]
    problems = [] if claimed else [f"it claims no game arena knows (games = {sorted(bot_class.games)})"]
    random_bot = load_spec(f"{BUNDLED_DIR / 'random_bot.py'}:RandomBot")  # arena's own: no other bot's code
    checks, stalled = [], False
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
                    stalled = problem.startswith("stalled ")
                    check.problems.append(f"{problem} ({game_id} {_rules_text(overrides)}seed {seed} seat {seat})"
                                          if stalled else f"{game_id} {_rules_text(overrides)}seed {seed} seat {seat}: "
                                          f"{problem}")
                    break
            if stalled:
                break
        checks.append(check)
        problems += check.problems
        if stalled:  # every further game would wait for the backstop again
            problems = check.problems
            break
    games = None if bot_class.games is None else tuple(sorted(bot_class.games))
    told = dataclasses.replace(source, name=name, games=games)
    return SubmitReport(name, source.spec, checks, problems, built, told, stalled=stalled)


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
            if referee.stalled(played.outcome.termination, played.fault):
                own = sum(s == seat for _, moves in game.deals(played.state) for s, _ in moves)
                call = "reset" if played.fault.startswith("no setup") else f"its move {own + 1}"
                return f"stalled in {call}: {played.fault}"
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


def submit(spec: str, replace: bool = False, **options) -> SubmitReport:
    """Checks the bot and, when it passes, registers its source by name for every command; `replace` lets it take a
    name registered to another bot before (never that of a bundled or installed bot). Code registered already under
    its name (the same SHA-256, from a folder or its zip alike) is `unchanged`; new code from the place a name was
    registered from replaces it."""
    source = resolve(spec)
    report = check_bot(source, **options)
    if not report.ok:
        return report
    name = report.name
    known = load_registry().get(name)
    if source.bundled or known is not None and known.sha256 is not None and known.sha256 == source.sha256:
        report.unchanged = True
        return report
    bundled = source_names().get(name)
    if bundled is not None and bundled.start() != source.start():
        raise BotError(f"the name {name!r} is taken by a bundled or installed bot ({bundled.spec}); rename yours")
    if known is not None and known.start() != source.start() and not replace:
        raise BotError(f"the name {name!r} is registered to another bot ({known.spec}); rename yours, or "
                       "submit it with --replace")
    register(name, report.source)
    return report
