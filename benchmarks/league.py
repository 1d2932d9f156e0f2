#!/usr/bin/env python3
"""How fast the league's matchmaker learns the order of a field of known strength, against random tables.

    .venv/bin/python benchmarks/league.py [--variant caterpillar|go_for_it4] [--bots 30] [--games 6000]
                                          [--checkpoints 6] [--workers 1] [--field even|clusters] [--low 0]
                                          [--seed 5] [--seeds 1] [--against TAU]

The field: `--bots` synthetic bots, bot i playing the bundled heuristic's move with probability p_i and a
uniformly random legal move otherwise, p on an even ladder from 0 to 1 (or, `--field clusters`, in clusters of
5 bots one step apart with five steps between clusters): the true order is the order of p. `--low` below 0
widens the field downwards: a bot of negative p plays the loser's move with probability -p, and a random one
otherwise. In Caterpillar the loser's move is the play the heuristic values least; in Go For It it is pass,
else take, else play on rather than claim. At four players the ladder from -0.5 to 1 spans about 280 Elo where 0
to 1 spans about 90 (docs/benchmarks.md); there a pure loser (-1) is not used, as its strength depends on who
sits at its table. In Caterpillar `--low -1` puts half the field below random, within about 110 Elo of it.
Two leagues of the same bots and seed play the same budget of games, one with the matchmaker, one with
uniformly random tables (the same number of tables a round, the same deals a table). At each checkpoint the
benchmark prints the Kendall tau between each league's TrueSkill order and the truth, and the games it took;
with `--seeds N`, it does so for N seeds and then prints the mean tau of each at each checkpoint. Random tables'
leagues do not depend on the matchmaker: `--against TAU` plays only the matchmaker's and takes TAU as random
tables' final mean tau (measured before with the same options).

    .venv/bin/python benchmarks/league.py --newcomer [--variant ...] [--bots 20] [--games 40000]
                                          [--round-deals 10] [--max-deals 200] [--workers 1]

`--newcomer`: a league of `--bots` ladder bots plays with the matchmaker until settled (at most `--games`), then
one newcomer joins, p halfway between the two ladder bots around the middle (its true rank is known), and the
league plays until settled again. It prints the games after the add until the newcomer's tier was settled (its
placement played, the pairs it forms with its neighbours settled) and until the whole league was, its rank and
the tau of the table. The yardstick is the user's way without a league: the same bots' files in a tournament
config, the round robin on duplicate deals with `until = "settled"` at the league's confidence and tie margin,
looking after every `--round-deals` deals of every table, at most `--max-deals` a table. Not settled there, a
settled round robin plays at least one look more, whatever its `max_deals`, which is the yardstick then (a
larger `max_deals` splits the error over more looks, so its looks up to here are wider and settle no sooner): the
larger `--max-deals`, the tighter that lower bound. A round robin whose first look alone exceeds ROUND_ROBIN_MOST
games (four players) is not played, and that first look is the yardstick.

Rating a million six-player games among 100 bots is measured by `benchmarks/ratings.py --only six --bots 100`.
"""

from __future__ import annotations

import argparse
import math
import random
import tempfile
import time
from pathlib import Path

from scipy.stats import kendalltau

from arena.league import load_settings, new_league
from arena.league.frozen import add_bot
from arena.league.matchmaker import Matchmaker, unique_tables
from arena.league.play import play_league
from arena.league.standings import league_ratings
from arena.seeds import derive_seed

BOT = '''
"""p = {p}: plays the bundled heuristic's move with probability p, else a random legal move; with p below 0, the
loser's move with probability -p (Caterpillar: the play the heuristic values least; Go For It: pass, else take,
else play on, never claim)."""
import sys

from arena.bots import BUNDLED_DIR, load_spec

Heuristic = load_spec(f"{{BUNDLED_DIR / 'heuristic.py'}}:HeuristicBot")
STRATEGIES = sys.modules[Heuristic.__module__].STRATEGIES
LOSER = {{"pass": 0, "take": 1, "play": 2, "claim": 3}}


class Mixed(Heuristic):
    name = "{name}"
    P = {p}

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        self._coin = rng

    def act(self, observation):
        coin = self._coin.random()
        legal = observation.legal_moves
        if coin < self.P:
            return super().act(observation)
        if coin < -self.P:
            if self.game_id == "caterpillar":
                worth = STRATEGIES["caterpillar"].values(observation, self.params)
                return legal[worth.index(min(worth))]
            return min(legal, key=lambda move: LOSER.get(move, 0))
        return self._coin.choice(legal)
'''

VARIANTS = {"caterpillar": 'game = "caterpillar"', "go_for_it4": 'game = "go_for_it"\nrules = { players = 4 }'}


class RandomTables(Matchmaker):
    """The yardstick: each round, as many tables as the matchmaker plays, drawn uniformly from the field."""

    def _variant_tables(self, look, players, played, companies):
        slots = self.settings.tables or max(1, len(look.order) // players)
        rng = random.Random(derive_seed(self.settings.seed, "random tables", len(self.catalog.rounds())))
        return unique_tables([(tuple(sorted(rng.sample(look.order, players))), "random table") for _ in range(slots)])


CLUSTER = 5
"""`--field clusters`: bots a cluster."""


def ladder(bots: int, field: str = "even", low: float = 0.0) -> dict[str, float]:
    """The field's bots by name and their p from `low` to 1, the truth: on an even ladder, or (`clusters`) in
    clusters of CLUSTER bots one step apart, the clusters five steps apart (bots a step apart are the hard pairs)."""
    steps = list(range(bots)) if field == "even" else [(CLUSTER + 4) * (i // CLUSTER) + i % CLUSTER
                                                        for i in range(bots)]
    return {f"p{i:02d}": round(low + (1 - low) * step / steps[-1], 4) for i, step in enumerate(steps)}


def write_bot(folder: Path, name: str, p: float) -> str:
    """The Mixed bot of this p as a file in `folder`, by its spec."""
    path = folder / f"{name}.py"
    path.write_text(BOT.format(p=p, name=name))
    return f"{path}:Mixed"


def add_mixed(league: Path, name: str, p: float) -> None:
    added = add_bot(league, write_bot(league.parent, name, p), sandboxed=False, games_per_rules=1)
    assert added.new, added.problems


def make_field(folder: Path, variant: str, bots: int, field: str = "even", seed: int = 5, low: float = 0.0) -> Path:
    toml = folder / "league.toml"
    toml.write_text(f'name = "bench"\nseed = {seed}\n[[games]]\n{VARIANTS[variant]}\n[run]\nworkers = 1\n'
                    'batch_size = 2000\n[league]\ndeals = 4\nisolation = "none"\n')
    league = folder / "league"
    new_league(league, toml)
    for name, p in ladder(bots, field, low).items():
        add_mixed(league, name, p)
    return league


def tau(league: Path, truth: dict[str, float] | None = None) -> float:
    """Kendall tau between the league's TrueSkill order and the truth (by default the ladder of its bots)."""
    (rated,) = league_ratings(league, replicates=10).values()
    return order_tau(list(rated.table["bot"]), truth or ladder(len(rated.table)))


def order_tau(order: list[str], truth: dict[str, float]) -> float:
    return float(kendalltau(range(len(order), 0, -1), [truth[name] for name in order]).statistic)


NEWCOMER = "new"
ROUND_ROBIN_MOST = 50_000
"""The newcomer's yardstick is played when its first look is at most this many games, else only counted."""


class NewcomerWatch(Matchmaker):
    """The matchmaker, noting at each look the games this `play` has played, the newcomer's place in the order,
    and whether its tier is settled: its placement tables played and the pairs it forms with its neighbours
    settled, by the rule `until settled` applies to every pair."""

    seen: list[tuple[int, int, bool]] = []

    def _variant_tables(self, look, players, played, companies):
        if NEWCOMER in look.order:
            at = look.order.index(NEWCOMER)
            settled = played[NEWCOMER] >= self.settings.placement and all(look.settled[max(0, at - 1):at + 1])
            self.seen.append((self.played_now, at + 1, settled))
        return super()._variant_tables(look, players, played, companies)


def round_robin(folder: Path, variant: str, truth: dict[str, float], settings, args) -> tuple[dict, list[str]]:
    """A user's re-run without the league: the same bots' files in a tournament config, every table of the
    round robin played on duplicate deals in rounds until settled, at the league's confidence and tie margin.
    Its manifest and its order."""
    import tomllib

    import arena

    bots = [{"name": name, "path": write_bot(folder, name, p)} for name, p in truth.items()]
    config = {"name": "round-robin", "seed": 5, "games": [{**tomllib.loads(VARIANTS[variant]), "duplicate": True}],
              "bots": bots, "run": {"workers": 1, "batch_size": 2000, "until": "settled",
                                    "max_deals": args.max_deals, "round_deals": args.round_deals,
                                    "confidence": settings.confidence, "tie_margin": settings.tie_margin}}
    run = arena.run(config, workers=args.workers, out=folder)
    (rated,) = run.tables.values()
    return run.manifest, list(rated.table["bot"])


def newcomer(args) -> None:
    """A settled league of `--bots`, one newcomer added between two ladder bots, settled again; then the
    round robin of the same bots."""
    bots = args.bots or 20
    budget = args.games or 40000
    with tempfile.TemporaryDirectory(prefix="arena-league-newcomer-") as scratch:
        folder = Path(scratch) / "league-field"
        folder.mkdir()
        league = make_field(folder, args.variant, bots)
        started = time.perf_counter()
        report = play_league(league, until_settled=True, games=budget, workers=args.workers)
        print(f"{bots} bots, {args.variant}: {report.played_now:,} games until settled ({report.stopped}; "
              f"{len(report.rounds)} rounds, {time.perf_counter() - started:.0f}s); tau {tau(league):.3f}")
        below = bots // 2 - 1
        truth = {**ladder(bots), NEWCOMER: round((below + 0.5) / (bots - 1), 4)}
        true_rank = 1 + sum(p > truth[NEWCOMER] for p in truth.values())
        add_mixed(league, NEWCOMER, truth[NEWCOMER])
        NewcomerWatch.seen = []
        started = time.perf_counter()
        report = play_league(league, until_settled=True, games=budget, workers=args.workers, planner=NewcomerWatch)
        tier = next(((games, rank) for games, rank, settled in NewcomerWatch.seen if settled), None)
        (rated,) = league_ratings(league, replicates=10).values()
        order = list(rated.table["bot"])
        print(f"newcomer p = {truth[NEWCOMER]} (between p{below:02d} and p{below + 1:02d}, true rank {true_rank} of "
              f"{bots + 1}): its tier settled after {tier[0]:,} games at rank {tier[1]}" if tier else
              "its tier never settled")
        print(f"  league settled again after {report.played_now:,} games ({report.stopped}; "
              f"{len(report.rounds)} rounds, {time.perf_counter() - started:.0f}s): "
              f"newcomer at rank {order.index(NEWCOMER) + 1}, tau {order_tau(order, truth):.3f}")
        settings = load_settings(league)
        players = settings.players(settings.games[0])
        first_look = math.comb(bots + 1, players) * args.round_deals * players  # every table, every rotation
        if first_look > ROUND_ROBIN_MOST:
            # A settled round robin looks after whole rounds: it plays at least this one.
            yardstick = first_look
            print(f"round robin of the {bots + 1} bots until settled: not played; its first look alone is "
                  f"{args.round_deals} deals of {math.comb(bots + 1, players):,} tables in {players} rotations, "
                  f"{yardstick:,} games")
            manifest = None
        else:
            rr_folder = Path(scratch) / "round-robin"
            rr_folder.mkdir()
            started = time.perf_counter()
            manifest, rr_order = round_robin(rr_folder, args.variant, truth, settings, args)
            (variant,) = manifest["stop"]["variants"].values()
            print(f"round robin of the {bots + 1} bots until settled: {manifest['games']:,} games "
                  f"({variant['verdict']}; {time.perf_counter() - started:.0f}s): "
                  f"newcomer at rank {rr_order.index(NEWCOMER) + 1}, tau {order_tau(rr_order, truth):.3f}")
            yardstick = manifest["games"]
        if manifest and variant["verdict"] != "settled":
            # It looks after whole rounds of round_deals, and a larger max_deals only widens each look's interval
            # (more looks): a settled round robin plays at least one more round than this one.
            yardstick = yardstick * (variant["deals"] + args.round_deals) // variant["deals"]
            print(f"  not settled at {variant['deals']} deals a table ({len(variant['unsettled'])} pairs open): a "
                  f"settled round robin plays at least {variant['deals'] + args.round_deals} deals a table, "
                  f"{yardstick:,} games")
        for what, games in (("its tier settled", tier[0] if tier else None),
                            ("the league settled again", report.played_now)):
            if games is not None:
                print(f"newcomer games until {what} / round robin games: {games:,} / {yardstick:,} = "
                      f"{games / yardstick:.3f} (target at most 0.10)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="caterpillar")
    parser.add_argument("--bots", type=int, help="default 30; with --newcomer, 20")
    parser.add_argument("--games", type=int, help="default 6000; with --newcomer, the budget of each play, 40000")
    parser.add_argument("--checkpoints", type=int, default=6)
    parser.add_argument("--seed", type=int, default=5, help="the leagues' seed")
    parser.add_argument("--seeds", type=int, default=1, help="run the seeds from --seed on, and print the mean tau")
    parser.add_argument("--field", choices=["even", "clusters"], default="even",
                        help="the bots' p: an even ladder, or clusters of 5 one step apart, five steps between")
    parser.add_argument("--low", type=float, default=0.0, help="the weakest bot's p: below 0 it plays the "
                        "loser's moves with probability -p; -0.5 widens the field at four players from about 90 "
                        "Elo to about 280, -1 Caterpillar's from about 460 to about 570")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--against", type=float, help="play only the matchmaker's leagues and compare them with "
                        "this final tau of random tables' (measured before with the same options)")
    parser.add_argument("--newcomer", action="store_true", help="one bot added to a settled league, against a "
                        "round-robin re-run until settled")
    parser.add_argument("--round-deals", type=int, default=10, help="--newcomer: the round robin's deals a look")
    parser.add_argument("--max-deals", type=int, default=200, help="--newcomer: the round robin's deals a table "
                        "at most")
    args = parser.parse_args()
    if args.newcomer:
        return newcomer(args)
    args.bots, args.games = args.bots or 30, args.games or 6000
    seeds = range(args.seed, args.seed + args.seeds)
    curves = [compare(args, seed) for seed in seeds]
    if len(curves) > 1:
        print(f"mean over the seeds {seeds[0]} to {seeds[-1]}:")
        print(f"{'games':>8}  {'matchmaker tau':>15}  {'random tables tau':>18}")
        mean = [[sum(curve[k][kind] for curve in curves) / len(curves) for kind in (0, 1)]
                for k in range(args.checkpoints)]
        if args.against is not None:
            mean[-1][1] = args.against
        for checkpoint, (matchmaker, random_tables) in enumerate(mean, 1):
            print(f"{args.games * checkpoint // args.checkpoints:>8,}  {matchmaker:>15.3f}  {random_tables:>18.3f}")
        verdict(mean, args)


def compare(args, seed: int) -> list[tuple[float, float]]:
    """Two leagues of the field and `seed`, one with the matchmaker and one with random tables, played to each
    checkpoint in turn: the tau of each at each checkpoint."""
    with tempfile.TemporaryDirectory(prefix="arena-league-bench-") as scratch:
        started = time.perf_counter()
        leagues = {}
        for kind in ("matchmaker",) if args.against is not None else ("matchmaker", "random tables"):
            folder = Path(scratch) / kind.replace(" ", "-")
            folder.mkdir()
            leagues[kind] = make_field(folder, args.variant, args.bots, args.field, seed, args.low)
        print(f"seed {seed}: {args.bots} bots added to {len(leagues)} league(s) in "
              f"{time.perf_counter() - started:.0f}s; "
              f"{args.variant}, checkpoints every {args.games // args.checkpoints:,} games")
        print(f"{'games':>8}  {'matchmaker tau':>15} {'(games)':>8}  {'random tables tau':>18} {'(games)':>8}")
        played = {kind: 0 for kind in leagues}
        seconds = {kind: 0.0 for kind in leagues}
        curve = []
        for checkpoint in range(1, args.checkpoints + 1):
            cells = []
            for kind, league in leagues.items():
                target = args.games * checkpoint // args.checkpoints
                started = time.perf_counter()
                report = play_league(league, games=target - played[kind], workers=args.workers,
                                     planner=Matchmaker if kind == "matchmaker" else RandomTables)
                seconds[kind] += time.perf_counter() - started
                played[kind] += report.played_now
                cells.append((tau(league, ladder(args.bots, args.field, args.low)), played[kind]))
            if len(cells) == 1:  # --against: random tables' tau is given, for the final checkpoint only
                last = checkpoint == args.checkpoints
                cells.append((args.against if last else math.nan, 0))
            print(f"{args.games * checkpoint // args.checkpoints:>8,}  {cells[0][0]:>15.3f} {cells[0][1]:>8,}  "
                  f"{cells[1][0]:>18.3f} {cells[1][1]:>8,}")
            curve.append((cells[0][0], cells[1][0]))
        verdict(curve, args)
        print("seconds playing: " + ", ".join(f"{kind} {value:.0f}" for kind, value in seconds.items()))
    return curve


def verdict(curve: list[tuple[float, float]], args) -> None:
    """When the matchmaker's tau reached random tables' final tau, against the target of a third of their games."""
    final = curve[-1][1]
    reached = next((k for k, (matchmaker, _) in enumerate(curve, 1) if matchmaker >= final), None)
    games = args.games * (reached or 0) // args.checkpoints
    print(f"random tables' final tau {final:.3f} after {args.games:,} games; the matchmaker reached it "
          + (f"after {games:,} games ({games / args.games:.2f} of them; target at most 1/3, "
             "to the checkpoints' resolution)" if reached else "at no checkpoint"))


if __name__ == "__main__":
    main()
