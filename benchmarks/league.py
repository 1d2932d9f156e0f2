"""How fast the league's matchmaker learns the order of a field of known strength, against random tables.

    .venv/bin/python benchmarks/league.py [--variant caterpillar|go_for_it4] [--bots 30] [--games 6000]
                                          [--checkpoints 6] [--workers 1]

The field: `--bots` synthetic bots, bot i playing the bundled heuristic's move with probability p_i and a
uniformly random legal move otherwise, p on an even ladder from 0 to 1: the true order is the order of p.
Two leagues of the same bots and seed play the same budget of games, one with the matchmaker, one with
uniformly random tables (the same number of tables a round, the same deals a table). At each checkpoint the
benchmark prints the Kendall tau between each league's TrueSkill order and the truth, and the games it took.

Not measured here yet: a newcomer added to a settled 20-bot league against a round-robin re-run. Rating a million
six-player games among 100 bots is measured by `benchmarks/ratings.py --only six --bots 100`.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from scipy.stats import kendalltau

from arena.league import new_league
from arena.league.frozen import add_bot
from arena.league.matchmaker import Matchmaker, _unique
from arena.league.play import play_league
from arena.league.standings import league_ratings
from arena.seeds import derive_seed

BOT = '''
"""Plays the bundled heuristic's move with probability {p}, else a random legal move."""
from arena.bots import BUNDLED_DIR, load_spec

Heuristic = load_spec(f"{{BUNDLED_DIR / 'heuristic.py'}}:HeuristicBot")


class Mixed(Heuristic):
    name = "{name}"
    P = {p}

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        self._coin = rng

    def act(self, observation):
        if self._coin.random() < self.P:
            return super().act(observation)
        return self._coin.choice(observation.legal_moves)
'''

VARIANTS = {"caterpillar": 'game = "caterpillar"', "go_for_it4": 'game = "go_for_it"\nrules = { players = 4 }'}


class RandomTables(Matchmaker):
    """The yardstick: each round, as many tables as the matchmaker plays, drawn uniformly from the field."""

    def _variant_tables(self, look, players, played):
        slots = self.settings.tables or max(1, len(look.order) // players)
        rng = random.Random(derive_seed(self.settings.seed, "random tables", len(self.catalog.rounds())))
        return _unique([(tuple(sorted(rng.sample(look.order, players))), "random table") for _ in range(slots)])


def make_field(folder: Path, variant: str, bots: int) -> Path:
    toml = folder / "league.toml"
    toml.write_text(f'name = "bench"\nseed = 5\n[[games]]\n{VARIANTS[variant]}\n[run]\nworkers = 1\n'
                    'batch_size = 2000\n[league]\ndeals = 4\nisolation = "none"\n')
    league = folder / "league"
    new_league(league, toml)
    for i in range(bots):
        p = round(i / (bots - 1), 4)
        path = folder / f"p{i:02d}.py"
        path.write_text(BOT.format(p=p, name=f"p{i:02d}"))
        added = add_bot(league, f"{path}:Mixed", sandboxed=False, games_per_rules=1)
        assert added.new, added.problems
    return league


def tau(league: Path) -> float:
    (rated,) = league_ratings(league, replicates=10).values()
    order = list(rated.table["bot"])
    truth = [int(name[1:]) for name in order]
    return float(kendalltau(range(len(order), 0, -1), truth).statistic)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="caterpillar")
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--checkpoints", type=int, default=6)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-league-bench-") as scratch:
        started = time.perf_counter()
        leagues = {}
        for kind in ("matchmaker", "random tables"):
            folder = Path(scratch) / kind.replace(" ", "-")
            folder.mkdir()
            leagues[kind] = make_field(folder, args.variant, args.bots)
        print(f"{args.bots} bots added to two leagues in {time.perf_counter() - started:.0f}s; {args.variant}, "
              f"checkpoints every {args.games // args.checkpoints:,} games")
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
                cells.append((tau(league), played[kind]))
            print(f"{args.games * checkpoint // args.checkpoints:>8,}  {cells[0][0]:>15.3f} {cells[0][1]:>8,}  "
                  f"{cells[1][0]:>18.3f} {cells[1][1]:>8,}")
            curve.append(cells)
        final = curve[-1][1][0]
        reached = next((cells[0][1] for cells in curve if cells[0][0] >= final), None)
        print(f"random tables' final tau {final:.3f} after {curve[-1][1][1]:,} games; the matchmaker reached it "
              + (f"after {reached:,} games ({reached / curve[-1][1][1]:.2f} of them; target at most 1/3, "
                 "to the checkpoints' resolution)" if reached else "at no checkpoint"))
        print("seconds playing: " + ", ".join(f"{kind} {value:.0f}" for kind, value in seconds.items()))


if __name__ == "__main__":
    main()
