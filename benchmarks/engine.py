#!/usr/bin/env python3
"""Engine speed on one core, as ratios measured in one run (absolute figures move with the machine).

    .venv/bin/python benchmarks/engine.py [--seconds 1] [--rounds 3] [--baseline DIR]

For each game and variant it prints:
- decisions/s of random bots through the full referee (observations built, legality checked), with and
  without a 1 s move clock, and the ratio to the lean hand-written Caterpillar loop
  (benchmarks/lean_caterpillar.py) measured in the same run. Targets: Caterpillar >= 0.6x the lean loop,
  every game >= 150,000 decisions/s;
- the search bots' inner loop: from a seat's observation, sample_world, then clone + legal_moves + apply
  with random moves to the end of the game, in moves/s (what ismcts spends its time on).

`--baseline DIR` also measures another checkout of arena (e.g. `git worktree add /tmp/base REV`), each
measurement of the two alternating in one run, and prints the speed-up of this one over it: of the referee without
and with the 1 s move clock (the clock's cost on the hot path), of the search loop and inside the engine.
`--interpreted` measures the baseline with its games interpreted (ARENA_INTERPRETED=1); without `--baseline` the
baseline is then this checkout, which prints the speed-up of the compiled games over the same modules interpreted.
For the search loop it prints two: of the whole loop, and inside the engine's functions, which leaves out the loop's
own cost per move (picking a move, calling the five functions), measured on a game whose functions do nothing.
That loop calls Python functions: a compiled game's cost less to call, so for compiled games "inside the
engine" overstates the speed-up, and the whole loop is the figure to read.

Each figure is measured `--rounds` times, in turn with the others. Rates are the best round's, since load
on a shared machine only ever slows a measurement, and ratios are those of the best rates; each is printed
with the range of the ratios of the figures measured in the same round, which shows how much the machine
moved it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

VARIANTS = {
    "caterpillar": [{}],
    "give_or_take": [{}],
    "go_for_it": [{"players": 2}, {"players": 4}, {"players": 6, "jokers": True}],
    "duke_of_york": [{}],
}
HERE = Path(__file__).resolve().parent


def referee_rate(game_id: str, overrides: dict, seconds: float, limit: float | None = None) -> float:
    """Decisions/s of random bots through the referee for about `seconds` (with a move time limit)."""
    from arena.bots import load_bot_class
    from arena.games import get_game, make_rules
    from arena.tournament.referee import play

    game = get_game(game_id)
    rules = make_rules(game.Rules, overrides)
    random_bot = load_bot_class("random")
    decisions = games = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        for _ in range(100):
            bots = [random_bot() for _ in range(game.players(rules))]
            decisions += play(game, rules, bots, games, move_time_limit=limit).decisions
            games += 1
    return decisions / elapsed


def search_inputs(game_id: str, overrides: dict) -> tuple[list, tuple, random.Random]:
    """What the search loop plays from: observations taken at random points of random games, the game's
    (sample_world, clone, to_move, legal_moves, apply) and the random generator."""
    from arena.games import get_game, make_rules

    game = get_game(game_id)
    rules = make_rules(game.Rules, overrides)
    rng = random.Random(7)
    observations = []
    for seed in range(40):
        state, steps = game.new_state(rules, seed), 0
        stop = rng.randrange(1, 40)
        while (seat := game.to_move(state)) is not None and steps < stop:
            game.apply(state, rng.choice(game.legal_moves(state)))
            steps += 1
        if seat is not None:
            observations.append(game.observe(state, seat))
    return observations, (game.sample_world, game.clone, game.to_move, game.legal_moves, game.apply), rng


def search_rate(game_id: str, overrides: dict, seconds: float) -> float:
    """Moves/s of determinised random playouts: sample_world from an observation, then clone, legal_moves
    and apply to the end."""
    return playouts(*search_inputs(game_id, overrides), seconds)


def playouts(observations: list, functions: tuple, rng: random.Random, seconds: float) -> float:
    """Moves/s of the search loop over `observations` for about `seconds`."""
    moves = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        moves += search_pass(observations, functions, rng)
    return moves / elapsed


def search_pass(observations: list, functions: tuple, rng: random.Random) -> int:
    """One pass of the search loop over `observations` with a game's (sample_world, clone, to_move,
    legal_moves, apply); returns the moves played."""
    sample_world, clone, to_move, legal_moves, apply = functions
    pick = rng.random  # cheaper than rng.choice, so the engine's share of the loop shows
    moves = 0
    for observation in observations:
        world = sample_world(observation, rng)
        for _ in range(4):  # a few playouts per world, as a search revisits one determinisation
            state = clone(world)
            while to_move(state) is not None:
                legal = legal_moves(state)
                apply(state, legal[int(pick() * len(legal))])
                moves += 1
    return moves


class _Idle:
    """The state of a game that does nothing but count down its moves."""

    __slots__ = ("turn", "left")


def idle_inputs() -> tuple[list, tuple, random.Random]:
    """search_inputs of a game whose functions do nothing (playouts of 40 moves): what it costs to pick a
    move and call the five functions, which no engine can save."""
    legal = (("play", 0), ("play", 1), ("play", 2))

    def sample_world(observation, rng):
        world = _Idle()
        world.turn, world.left = 0, 40
        return world

    def clone(state):
        copy = _Idle()
        copy.turn, copy.left = state.turn, state.left
        return copy

    def to_move(state):
        return state.turn

    def legal_moves(state):
        return legal

    def apply(state, move):
        state.left -= 1
        if not state.left:
            state.turn = None

    return [None] * 40, (sample_world, clone, to_move, legal_moves, apply), random.Random(7)


def loop_rate(seconds: float) -> float:
    """Moves/s of the search loop itself, on the do-nothing game of idle_inputs."""
    return playouts(*idle_inputs(), seconds)


def lean_rate(seconds: float) -> float:
    """Decisions/s of the lean Caterpillar loop."""
    sys.path.insert(0, str(HERE))
    import lean_caterpillar

    rng = random.Random(1)
    decisions = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        for _ in range(200):
            decisions += lean_caterpillar.play(rng)[1]
    return decisions / elapsed


def measure(kind: str, game_id: str, overrides: dict, seconds: float) -> float:
    """One measurement by name."""
    if kind == "lean":
        return lean_rate(seconds)
    if kind == "loop":
        return loop_rate(seconds)
    if kind == "referee":
        return referee_rate(game_id, overrides, seconds)
    if kind == "clocked":
        return referee_rate(game_id, overrides, seconds, limit=1.0)
    return search_rate(game_id, overrides, seconds)


def measure_in(checkout: Path, kind: str, game_id: str, overrides: dict, seconds: float,
               interpreted: bool = False) -> float:
    """The same measurement with the arena package of another checkout (its games interpreted if asked), in a
    fresh interpreter."""
    code = (f"import sys; sys.path[:0] = [{str(checkout)!r}, {str(HERE)!r}]; import engine; "
            f"print(engine.measure({kind!r}, {game_id!r}, {overrides!r}, {seconds!r}))")
    env = {**os.environ, "PYTHONPATH": str(checkout)} | ({"ARENA_INTERPRETED": "1"} if interpreted else {})
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def ratio_and_range(numerators: list[float], denominators: list[float]) -> tuple[float, float, float]:
    """The ratio of the best of each (load on a shared machine only ever slows a measurement) and the lowest
    and highest ratio of two figures measured in the same round (how much the machine moved it)."""
    ratios = sorted(a / b for a, b in zip(numerators, denominators, strict=True))
    return max(numerators) / max(denominators), ratios[0], ratios[-1]


def shown(ratio: tuple[float, float, float], unit: str = "") -> str:
    """A ratio and its range, e.g. 0.62 (0.58-0.66)."""
    best, low, high = ratio
    return f"{best:.2f}{unit} ({low:.2f}-{high:.2f})"


def main() -> None:
    """Prints one line per game and variant from `--rounds` alternating measurements of each figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="measurements of each figure, in turn")
    parser.add_argument("--baseline", type=Path, help="another arena checkout to compare with, in the same run")
    parser.add_argument("--interpreted", action="store_true",
                        help="the baseline's games interpreted; without --baseline, this checkout's")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    if args.interpreted and not args.baseline:
        args.baseline = HERE.parent
    kinds = ["lean", "referee", "clocked", "search"]
    if args.baseline:
        kinds += ["loop", "base referee", "base clocked", "base search"]
    from arena.games import how_they_run

    print(f"the games run {how_they_run()} (ARENA_INTERPRETED=1 runs them interpreted)")
    if args.baseline:
        print(f"baseline: {args.baseline.resolve()}" + (", its games interpreted" if args.interpreted else ""))
    print(f"{args.rounds} alternating rounds of {args.seconds:g} s per figure: rates are the best round's, ratios "
          "those of the best rates (in brackets the range of each round's ratio); the lean Caterpillar loop is "
          "measured in every round")
    head = (f"{'game':<14}{'rules':<32}{'lean':>9}{'decisions/s':>12}{'x lean':>19}{'1s clock':>10}"
            f"{'search moves/s':>16}")
    print(head + ("   baseline: decisions/s  1s clock  search   speed-up: decisions, 1s clock, search loop, inside "
                  "the engine" if args.baseline else ""))
    figures = {"rows": []}
    for game_id, variants in VARIANTS.items():
        for overrides in variants:
            runs = {kind: [] for kind in kinds}
            for _ in range(args.rounds):
                for kind in kinds:
                    if kind.startswith("base "):
                        rate = measure_in(args.baseline, kind[5:], game_id, overrides, args.seconds, args.interpreted)
                    else:
                        rate = measure(kind, game_id, overrides, args.seconds)
                    runs[kind].append(rate)
            best = {kind: max(rates) for kind, rates in runs.items()}
            ratios = {"x lean": ratio_and_range(runs["referee"], runs["lean"])}
            line = (f"{game_id:<14}{json.dumps(overrides):<32}{best['lean']:>9,.0f}{best['referee']:>12,.0f}"
                    f"{shown(ratios['x lean']):>19}{best['clocked']:>10,.0f}{best['search']:>16,.0f}")
            if args.baseline:
                ratios["decisions"] = ratio_and_range(runs["referee"], runs["base referee"])
                ratios["1s clock"] = ratio_and_range(runs["clocked"], runs["base clocked"])
                ratios["search loop"] = ratio_and_range(runs["search"], runs["base search"])
                # moves/s inside the engine: per move, the loop's time less that of the do-nothing loop
                engine = {kind: [1 / (1 / rate - 1 / loop) for rate, loop in zip(runs[kind], runs["loop"], strict=True)]
                          for kind in ("search", "base search")}
                ratios["inside the engine"] = ratio_and_range(engine["search"], engine["base search"])
                speedups = (shown(ratios[name], "x")
                            for name in ("decisions", "1s clock", "search loop", "inside the engine"))
                line += (f"   {best['base referee']:>12,.0f} {best['base clocked']:>9,.0f} {best['base search']:>9,.0f}"
                         "   " + ", ".join(speedups))
            figures["rows"].append({"game": game_id, "rules": overrides, "runs": runs, "ratios": ratios})
            print(line, flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
