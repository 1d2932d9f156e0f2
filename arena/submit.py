"""`arena submit`: check a bot before it plays, then make it available by name.

A bot passes when, in every game it claims, it plays a validation set of games against `random`
in every seat without an exception, an illegal move or a move over the time limit, and replays
each game identically from the same seed.
"""

from __future__ import annotations

import json
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

from arena import referee
from arena.bots import BotError, available_bots, can_play, load_bot_class, resolved_spec
from arena.games import GAME_IDS, get_game, make_rules
from arena.registry import register

VALIDATION_RULES = {"caterpillar": [{}], "give_or_take": [{}], "duke_of_york": [{}],
                    "go_for_it": [{"players": 2}, {"players": 4}]}


@dataclass
class GameCheck:
    """How a bot did in the validation games of one game."""

    game: str
    games: int = 0
    wins: int = 0
    slowest: float = 0.0
    problems: list[str] = field(default_factory=list)


@dataclass
class SubmitReport:
    """The outcome of checking a bot."""

    name: str
    spec: str
    checks: list[GameCheck]
    problems: list[str]
    """Problems that stop the bot being registered (those of every game included)."""

    @property
    def ok(self) -> bool:
        """True when the bot passed every check."""
        return not self.problems


def check_bot(spec: str, *, games_per_rules: int = 6, move_time_limit: float = 1.0) -> SubmitReport:
    """Loads the bot named by `spec` and plays the validation games; registers nothing."""
    bot_class = load_bot_class(spec)
    name = bot_class.name
    claimed = [g for g in GAME_IDS if can_play(bot_class, g)]
    problems = [] if claimed else [f"it claims no game arena knows (games = {sorted(bot_class.games)})"]
    random_bot = available_bots()["random"]
    checks = []
    for game_id in claimed:
        game = get_game(game_id)
        check = GameCheck(game_id)
        for overrides in VALIDATION_RULES[game_id]:
            rules = make_rules(game.Rules, overrides)
            seats = game.players(rules)
            for number in range(games_per_rules):
                seat, seed = number % seats, 1000 + number
                problem = _one_game(game, rules, bot_class, random_bot, seat, seed, move_time_limit, check)
                if problem:
                    check.problems.append(f"{game_id} {_rules_text(overrides)}seed {seed} seat {seat}: {problem}")
                    break
        checks.append(check)
        problems += check.problems
    return SubmitReport(name, spec, checks, problems)


def _one_game(game, rules, bot_class, random_bot, seat, seed, limit, check: GameCheck) -> str | None:
    """Plays one validation game twice; the problem found, or None."""
    transcripts = []
    for _ in range(2):
        try:
            lineup = [random_bot() for _ in range(game.players(rules))]
            lineup[seat] = bot_class()
        except Exception as error:
            return f"cannot create the bot: {type(error).__name__}: {error}"
        started = time.perf_counter()
        played = referee.play(game, rules, lineup, seed, move_time_limit=limit)
        per_move = (time.perf_counter() - started) / max(1, played.decisions)
        if played.fault_seat == seat:
            return f"{played.outcome.termination}: {played.fault}"
        names = [getattr(b, "name", "?") for b in lineup]
        transcripts.append(json.dumps(referee.transcript(game, rules, names, seed, played)))
    check.games += 1
    check.wins += played.outcome.ranks[seat] == 0
    check.slowest = max(check.slowest, per_move)
    if transcripts[0] != transcripts[1]:
        return "not deterministic: the same seed gave another game (use only the rng given to reset)"
    return None


def _rules_text(overrides: dict) -> str:
    return "".join(f"{k}={v} " for k, v in overrides.items())


def _lasting_spec(spec: str, bot_class: type) -> str:
    """A spec that finds the bot from any folder: absolute paths for files and commands."""
    if not spec.startswith("command:"):
        return resolved_spec(bot_class)
    words = shlex.split(spec.removeprefix("command:"))
    if Path(words[0]).exists():
        words[0] = str(Path(words[0]).resolve())
    return "command: " + shlex.join(words)


def submit(spec: str, **options) -> SubmitReport:
    """Checks the bot and, when it passes, registers it by name for `arena bots` and configs."""
    report = check_bot(spec, **options)
    if report.ok:
        bot_class = load_bot_class(spec)
        known = available_bots().get(report.name)
        if known is not None and resolved_spec(known) != resolved_spec(bot_class):
            raise BotError(f"the name {report.name!r} is taken by another bot ({resolved_spec(known)}); rename yours")
        register(report.name, _lasting_spec(spec, bot_class))
    return report
