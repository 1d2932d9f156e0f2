"""The referee: plays one game between bots, enforcing legality and turning faults into forfeits,
and writes its transcript JSON (what `arena play --json` prints)."""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from arena.games import Game, Outcome
from arena.isolation.clock import WALL_BACKSTOP, MoveTimeout, clock_for, setup_wall
from arena.seeds import derive_seeds, seeded_rng


@dataclass(slots=True)
class Played:
    """One finished game: its outcome, the fault if any, and the final state (for transcripts)."""

    outcome: Outcome
    fault_seat: int | None
    fault: str | None
    decisions: int
    state: Any
    slowest: tuple[float, float] | None = None
    """The most CPU time and the most wall time (s) any move of the game took, as far as the clock timed them
    (moves shorter than its period are not timed); None when moves had no time limit."""


def bot_seeds(seed: int, players: int) -> list[int]:
    """The seed of each seat's bot rng in a game dealt from `seed`."""
    return derive_seeds((seed, "bot"), players)


WALL_FAULT = " of wall time"
"""How the fault text of a call that the wall-clock backstop ended closes: a stall."""


def move_fault(limit: float, wall: float | None = None) -> str:
    """The fault of a move over the time limit (of CPU time), or over `wall` times it in wall time."""
    return f"no move within {limit:g}s" if wall is None else f"no move within {limit * wall:g}s{WALL_FAULT}"


def setup_fault(limit: float, wall: float | None = None) -> str:
    """The fault of a construction or reset over the setup time limit (of CPU time), or over its wall-clock backstop
    (`wall` times it, at most arena.isolation.clock.SETUP_WALL_SECONDS: `setup_wall`)."""
    return f"no setup within {limit:g}s" if wall is None else \
        f"no setup within {setup_wall(limit, wall):g}s{WALL_FAULT}"


def stalled(termination: str, fault: str | None) -> bool:
    """Whether a game's result is a stall: a call into the bot at fault that the wall-clock backstop ended (it slept
    or blocked), which costs the run `wall_backstop` times the limit, not the limit."""
    return termination == "timeout" and fault is not None and fault.endswith(WALL_FAULT)


def suspension_fault(after: int) -> str:
    """The fault of a game not played because a bot of its table was suspended after `after` stalls."""
    return f"suspended after {after} stall{'' if after == 1 else 's'}"


def suspended(termination: str, fault: str | None) -> bool:
    """Whether a game's result is a forfeit recorded unplayed: a bot of its table was suspended."""
    return termination == "timeout" and fault is not None and fault.startswith("suspended after ")


def play(game: Game, rules: Any, bots: Sequence[Any], seed: int, *, seeds: Sequence[int] | None = None,
         move_time_limit: float | None = None, setup_time_limit: float | None = None, built: bool = True,
         wall_backstop: float = WALL_BACKSTOP) -> Played:
    """Plays one game from `seed`; a bot that raises, plays an illegal move or runs over time forfeits.

    `bots` are the bots by seat or, when not `built`, what makes each (called with no arguments: the
    construction is the bot's code, timed like its `reset` by `setup_time_limit`). The limits count the CPU time
    of the thread that plays (a bot process's own, for one); a call that lasts `wall_backstop` times its limit in
    wall time is over time too."""
    rules = _own_copy(rules)  # this game's own: a bot forcing its way into a frozen Rules spoils no other game
    state = game.new_state(rules, seed)
    timed = move_time_limit is not None or setup_time_limit is not None
    clock = clock_for(move_time_limit, setup_time_limit, wall_backstop) if timed else None
    seated = _seat(game, rules, state, bots, seeds or bot_seeds(seed, len(bots)), clock, built)
    if isinstance(seated, Played):  # a bot that failed its construction or reset forfeits before the first move
        return seated
    # Calls are numbered on across the clock's games, so that its watchdog tells each from the one before;
    # this game's decisions are the moves numbered after the setup calls. One count serves both.
    number = clock.ticket if clock is not None else 0
    acts = [bot.act for bot in seated]
    if move_time_limit is None:
        return _moves(game, state, acts, None, number)
    clock.slowest = [0.0, 0.0]
    played = _moves(game, state, acts, clock, number)
    played.slowest = clock.slowest[0], clock.slowest[1]
    return played


def _seat(game: Game, rules: Any, state: Any, bots: Sequence[Any], seeds: Sequence[int], clock,
          built: bool) -> list | Played:
    """The bots by seat, each made (unless `built`) and reset for this game under the clock's setup limit, its
    calls numbered on from the clock's ticket; or the forfeit of the first that fails."""
    number = clock.ticket if clock is not None else 0
    players = []
    try:
        for seat in range(len(bots)):
            bot = bots[seat]  # by index: a quarantine's list publishes the seat whose code runs
            try:
                if not built:
                    number += 1
                    bot = _setup_call(clock, number, bot)
                number += 1
                _setup_call(clock, number, bot.reset, game.id, seat, rules, seeded_rng(seeds[seat]),
                            own_deadlines=getattr(type(bot), "own_deadlines", False))
            except MoveTimeout as timeout:
                if clock is None or clock.setup is None:  # raised by the bot itself: no setup clock ran
                    raise
                return forfeit(game, state, seat, "timeout",
                               setup_fault(clock.setup, clock.wall if timeout.wall else None), 0)
            except Exception as error:
                return forfeit(game, state, seat, "crash", describe_error(error), 0)
            players.append(bot)
    finally:
        if clock is not None:
            clock.ticket = number
    return players


def _moves(game: Game, state: Any, acts: list, clock, number: int) -> Played:
    """The game's moves from `state` by the bots' `acts`, numbered on from `number` on the clock (None: no move
    time limit); a move that raises, runs over time or is not legal forfeits. The timed call stays inline: as a
    function of its own it cost the clocked path 2-3% (benchmarks/clock.py, per second of CPU time)."""
    observe, apply, to_move = game.observe, game.apply, game.to_move
    first = number
    stamp, seen = (clock.stamp, clock.seen) if clock is not None else (None, None)
    try:
        while (seat := to_move(state)) is not None:
            observation = observe(state, seat)
            number += 1
            try:
                if clock is None:
                    move = acts[seat](observation)
                else:
                    stamp[0] = number  # the move now running, timed by the watchdog and the backstop
                    try:
                        move = acts[seat](observation)
                    finally:
                        stamp[0] = 0  # whatever happened, no alarm for this move any more
                        if seen[0] == number:  # a long move: timed, and over time if the watchdog said so
                            clock.finish(number)
            except MoveTimeout as timeout:
                fault = (_clip(timeout.fault) if timeout.fault else
                         move_fault(clock.limit, clock.wall if timeout.wall else None))
                return forfeit(game, state, seat, "timeout", fault, number - first - 1)
            except Exception as error:
                return forfeit(game, state, seat, "crash", describe_error(error), number - first - 1)
            legal = observation.legal_moves
            try:  # apply the game's own move object, so a bot's look-alike never reaches the state
                own = legal[legal.index(move)]
                if own is not move and type(own) is not type(move):
                    raise ValueError
            except Exception:
                return forfeit(game, state, seat, "illegal_move", f"illegal move {_short(move)}", number - first - 1)
            apply(state, own)
    finally:
        if clock is not None:
            clock.ticket = number  # however the game ended: a later move never takes an earlier one's number
    return Played(game.result(state), None, None, number - first, state)


def _setup_call(clock, number: int, call, *args, own_deadlines: bool = False):
    """`call(*args)` timed by the clock's setup limit (stamped as call -number); raises MoveTimeout when over it.
    A bot with `own_deadlines` (arena's stand-in for a bot process, which waits on the process with deadlines
    of its own, the process's start-up apart) is not stamped."""
    if clock is None or clock.setup is None or own_deadlines:
        return call(*args)
    stamp = clock.stamp
    stamp[0] = -number
    try:
        return call(*args)
    finally:
        stamp[0] = 0
        if clock.seen[0] == -number:  # over time if the watchdog said so (a bot that swallowed the signal)
            clock.finish(-number)


def _own_copy(rules: Any) -> Any:
    """copy.copy(rules), in a tenth of its time for the games' Rules (frozen dataclasses with a __dict__)."""
    if not hasattr(rules, "__dict__"):
        return copy.copy(rules)
    own = object.__new__(type(rules))
    own.__dict__.update(rules.__dict__)
    return own


def forfeit(game: Game, state: Any, fault_seat: int, termination: str, fault: str, decisions: int) -> Played:
    """Scores as they stand; the seat at fault ranks last, the others among themselves by score."""
    scores = game.scores(state)
    n = len(scores)
    ranks = [n - 1 if seat == fault_seat else
             sum(1 for other, s in enumerate(scores) if other != fault_seat and s > scores[seat])
             for seat in range(n)]
    return Played(Outcome(tuple(scores), tuple(ranks), termination), fault_seat, fault, decisions, state)


def _clip(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def _short(value: Any) -> str:
    try:  # without memory addresses, which differ from run to run (fault texts are part of the results)
        return _clip(re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value)))
    except Exception:
        return f"<unprintable {type(value).__name__}>"


def describe_error(error: BaseException) -> str:
    """An exception as `Type: message`, clipped (its type alone if its message cannot be made)."""
    try:
        return _clip(f"{type(error).__name__}: {error}")
    except Exception:
        return type(error).__name__


def transcript(game: Game, rules: Any, players: Sequence[str], seed: int, played: Played) -> dict:
    """The transcript JSON object of a played game (what `arena play --json` prints)."""
    deals = [{"layout": game.layout_json(layout),
              "moves": [{"seat": seat, "move": game.move_to_str(move)} for seat, move in moves]}
             for layout, moves in game.deals(played.state)]
    return {"game": game.id, "rules": asdict(rules), "seed": seed, "players": list(players), "deals": deals,
            "scores": list(played.outcome.scores), "ranks": list(played.outcome.ranks),
            "termination": played.outcome.termination, "fault_seat": played.fault_seat, "fault": played.fault}


def replay(data: dict) -> Outcome:
    """Re-plays a transcript's moves through the engine and returns the outcome they reach.

    For a forfeited game the outcome is the standing at the fault, as the referee computes it.
    Raises ValueError when a recorded move is not legal at its point or a seat does not match.
    """
    from arena.games import get_game, make_rules

    game = get_game(data["game"])
    state = game.new_state(make_rules(game.Rules, data["rules"]), data["seed"])
    for *_, state in replay_steps(data):  # noqa: B007 - the state after the last move is wanted
        pass
    if data["fault_seat"] is not None:
        return forfeit(game, state, data["fault_seat"], data["termination"], data["fault"], 0).outcome
    return game.result(state)


def replay_steps(data: dict):
    """Re-plays a transcript's moves, yielding (deal number, seat, move text, state after the move)."""
    from arena.games import get_game, make_rules

    game = get_game(data["game"])
    state = game.new_state(make_rules(game.Rules, data["rules"]), data["seed"])
    for number, deal in enumerate(data["deals"]):
        for entry in deal["moves"]:
            move = game.parse_move(entry["move"])
            if game.to_move(state) != entry["seat"] or move not in game.legal_moves(state):
                raise ValueError(f"move {entry['move']!r} by seat {entry['seat']} does not fit the game")
            game.apply(state, move)
            yield number, entry["seat"], entry["move"], state


def account(data: dict) -> list[str]:
    """A readable account of a transcript: each deal's cards, each move with the running state, the result."""
    from arena.games import get_game

    game = get_game(data["game"])
    players = data["players"]
    lines = [f"{game.id} - seed {data['seed']} - " + ", ".join(f"seat {s}: {p}" for s, p in enumerate(players))]
    width = max(len(p) for p in players)
    steps = replay_steps(data)
    for number, deal in enumerate(data["deals"]):
        term = getattr(game, "deal_name", "deal")  # Duke of York calls its deals rounds
        lines.append(f"{term} {number}" if len(data["deals"]) > 1 else term)  # from 0, as observations count
        for key, value in deal["layout"].items():
            if value and isinstance(value, list) and isinstance(value[0], list):
                lines += [f"  {key} seat {s}: {' '.join(cards)}" for s, cards in enumerate(value)]
            else:
                lines.append(f"  {key}: {' '.join(value) if isinstance(value, list) else value}")
        for _ in deal["moves"]:
            _, seat, move, state = next(steps)
            lines.append(f"    seat {seat} {players[seat]:<{width}}  {move:<9} {game.describe(state)}")
    lines.append(f"result: {data['termination']}   scores {' '.join(map(str, data['scores']))}"
                 f"   ranks {' '.join(map(str, data['ranks']))}")
    if data["fault_seat"] is not None:
        lines.append(f"seat {data['fault_seat']} ({players[data['fault_seat']]}) forfeits: {data['fault']}")
    winners = [players[s] for s, r in enumerate(data["ranks"]) if r == 0]
    lines.append(("winner: " if len(winners) == 1 else "tied: ") + ", ".join(winners))
    return lines
