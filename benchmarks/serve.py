"""Latency of `arena league serve` under concurrent readers while it plays, and what the readers cost play.

    .venv/bin/python benchmarks/serve.py [--bots 8] [--warm-games 400] [--seconds 20] [--clients 20]
                                         [--workers 1]

A caterpillar league of `--bots` file bots (random movers, each its own code) is made in a temporary folder
and played to `--warm-games` games by `arena league play`. Then, in the same run:

1. `arena league play` alone for `--seconds` (then SIGKILLed: the league is kill-safe), counting the games of
   the rounds finished meanwhile;
2. `arena league serve --play` for `--seconds`, while `--clients` concurrent loopback clients (0: none) (httpx, one
   asyncio task each) read `/` and `/api/standings` in turn as fast as they are answered: the games of the
   rounds finished meanwhile, and each request's latency.

It prints the requests, the p50, p99 and worst latency of each path, and the play throughput of both phases.
Bounded in time (`--seconds` a phase) and in requests (at most MOST_REQUESTS).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ARENA = [sys.executable, "-m", "arena.cli"]
MOST_REQUESTS = 200_000
PATHS = ("/", "/api/standings")
LEAGUE = """
name = "bench"
seed = 3

[[games]]
game = "caterpillar"

[run]
workers = {workers}

[league]
deals = 2
isolation = "none"
"""
BOT = '''
from arena.bots import Bot


class Mover{n}(Bot):
    """Uniform over legal moves (bot {n}: its own code, so its own hash)."""

    name = "mover{n}"
    games = {{"caterpillar"}}

    def reset(self, game_id, seat, rules, rng):
        self.rng = rng

    def act(self, observation):
        return self.rng.choice(observation.legal_moves)
'''


def run(*args: str) -> None:
    subprocess.run(ARENA + list(args), check=True, stdout=subprocess.DEVNULL)


def finished_games(league: Path) -> int:
    from arena.league.standings import snapshot

    return sum(r.games for r in snapshot(league)[1])


def make_league(folder: Path, bots: int, warm_games: int, workers: int) -> Path:
    (folder / "league.toml").write_text(LEAGUE.format(workers=workers))
    league = folder / "league"
    run("league", "new", str(league), str(folder / "league.toml"))
    for n in range(bots):
        path = folder / f"mover{n}.py"
        path.write_text(BOT.format(n=n))
        run("league", "add", str(league), f"{path}:Mover{n}", "--no-sandbox", "--games", "1")
    run("league", "play", str(league), "--games", str(warm_games), "--no-progress")
    return league


def play_alone(league: Path, seconds: float) -> float:
    """Games a second of finished rounds while `arena league play` plays alone."""
    before = finished_games(league)
    process = subprocess.Popen(ARENA + ["league", "play", str(league), "--games", "100000000", "--no-progress"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(seconds)
    process.send_signal(signal.SIGKILL)
    process.wait()
    return (finished_games(league) - before) / seconds


async def readers(base: str, clients: int, seconds: float) -> dict[str, list[float]]:
    import httpx

    latencies: dict[str, list[float]] = {path: [] for path in PATHS}
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
        async def reader(k: int) -> None:
            turn = k
            while time.monotonic() < deadline and sum(map(len, latencies.values())) < MOST_REQUESTS:
                path = PATHS[turn % len(PATHS)]
                turn += 1
                start = time.perf_counter()
                response = await client.get(path)
                latencies[path].append(time.perf_counter() - start)
                assert response.status_code == 200, (path, response.status_code)

        await asyncio.gather(*(reader(k) for k in range(clients)))
    return latencies


def serve_under_readers(league: Path, seconds: float, clients: int) -> tuple[float, dict[str, list[float]]]:
    """Games a second while `serve --play` plays under the readers, and the readers' latencies."""
    process = subprocess.Popen(ARENA + ["league", "serve", str(league), "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        base = re.search(r"http://[^/]+", process.stdout.readline())[0]
        before = finished_games(league)
        if clients:
            latencies = asyncio.run(readers(base, clients, seconds))
        else:  # `--clients 0`: what serving costs play with nobody reading
            time.sleep(seconds)
            latencies = {path: [] for path in PATHS}
        return (finished_games(league) - before) / seconds, latencies
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--warm-games", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-serve-bench-") as folder:
        league = make_league(Path(folder), args.bots, args.warm_games, args.workers)
        print(f"league: {args.bots} bots, {finished_games(league):,} games; {args.clients} clients, "
              f"{args.seconds:.0f} s a phase")
        alone = play_alone(league, args.seconds)
        served, latencies = serve_under_readers(league, args.seconds, args.clients)
        print(f"league: {finished_games(league):,} games at the end")
        for path, found in latencies.items():
            if not found:
                continue
            ms = np.array(found) * 1000
            print(f"GET {path:15} {len(ms):7,} requests  p50 {np.percentile(ms, 50):7.1f} ms  "
                  f"p99 {np.percentile(ms, 99):7.1f} ms  worst {ms.max():7.1f} ms")
        loss = 1 - served / alone if alone else float("nan")
        print(f"play alone {alone:.1f} games/s; serve --play under readers {served:.1f} games/s "
              f"({loss:+.0%} loss)")


if __name__ == "__main__":
    main()
