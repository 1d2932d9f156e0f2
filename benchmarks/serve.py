#!/usr/bin/env python3
"""Latency of `arena league serve` under concurrent readers while it plays a large league, what the readers cost
play, and whether a long-running server stays flat.

    .venv/bin/python benchmarks/serve.py [--league DIR] [--bots 100] [--games 1000000] [--seconds 300]
                                         [--pairs 3] [--clients 50] [--unread] [--closed]
    .venv/bin/python benchmarks/serve.py --soak [--minutes 30] [--league DIR] ...

The league: Go For It at six players with jokers, `--bots` file bots (uniform random movers, each its own code,
so its own hash), built by the league's own rounds (`arena league play`, the matchmaker's tables, every table
saved as its own part and compacted as `play` compacts) up to `--games` games. `--league DIR` keeps it: a league
already there is played on up to `--games` (the build's games a second are printed), never built again.
`tie_margin = 0`: random movers are equals, and with a margin the league would settle their pairs as
ties and `serve --play` would stop playing. `tables = 99`: a table for every adjacent pair of the order a round,
about 2,300 games (at the default, a table for every six bots, a round of 384 games cost more to choose than to
play: the league was built at 25 to 160 games/s that way, and at 1,850 with this).

Then, in the same run, `--pairs` times in turn (so that a drift of the shared machine falls on both alike):

1. `arena league play` alone for `--seconds`, counted from its first finished round (its start-up, reading the
   league and its first look, is left out), then SIGKILLed (the league is kill-safe);
2. `arena league serve --play` for `--seconds`, counted from its first finished round too, while `--clients`
   readers poll `/` and `/api/standings` as browsers do: each asks every 1 to 2 s (uniformly drawn), sending
   the ETag of what it holds (If-None-Match: a 304 when nothing changed).

The window is long because the standings' computing process works in bursts: a look (a fit of every game) every
its CPU time / COMPUTE_SHARE seconds, a minute or more apart on a large league; a window of 30 s held one burst or
none.
It prints each pair's games a second, the mean change of play with its 95% interval over the pairs, each process's
share of a core in each window, and each path's requests, p50, p99 and worst latency over all the pairs. With
`--unread`, then a window of `serve --play` with no readers; with `--closed`, the worst case: the same readers
closed-loop, each asking again as soon as it is answered, without ETags.

`--soak`: `serve --play` under the browser-like readers for `--minutes`, printing every `--sample` seconds the
server process's RSS, open files (its descriptors but sockets) and threads (from /proc), its sockets (the readers'
connections of the moment, not judged), the RSS of all its processes and the league's games; then whether each
stayed within 10% after the first fifth of the time (the warm-up).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

import numpy as np

from arena.league.directory import LeagueDir

ARENA = [sys.executable, "-m", "arena.cli"]
PATHS = ("/", "/api/standings")
POLL_SECONDS = (1.0, 2.0)
"""A browser-like reader's pause between two requests, drawn uniformly (htmx polls every 2 s)."""
MOST_REQUESTS = 2_000_000
SERVER_LOG = "server-stderr.txt"
"""Beside the league: what the server wrote to stderr, shown after each phase."""
LEAGUE = """
name = "serve-bench"
seed = 3

[[games]]
game = "go_for_it"
rules = { players = 6, jokers = true }

[run]
workers = 1
batch_size = 2000

[league]
tables = 99
deals = 4
isolation = "none"
tie_margin = 0.0
"""
BOT = '''
from arena.bots import Bot

class Mover{n}(Bot):
    """Uniform over legal moves (bot {n}: its own code, so its own hash)."""
    name = "mover{n}"
    games = {{"go_for_it"}}

    def reset(self, game_id, seat, rules, rng):
        self.rng = rng

    def act(self, observation):
        return self.rng.choice(observation.legal_moves)
'''


def progress(league: Path) -> tuple[int, int]:
    """The league's finished rounds and their games: one query of the catalog, read-only (a snapshot reads every
    round's config and plan: on the million-game league the readers' loop, polling it, spent a core on it)."""
    with closing(sqlite3.connect(f"file:{league / 'catalog.sqlite'}?mode=ro", uri=True)) as db:
        found = db.execute("SELECT count(*), coalesce(sum(games), 0) FROM rounds WHERE status = 'done'").fetchone()
    return found[0], found[1]


def finished_games(league: Path) -> int:
    return progress(league)[1]


def build(folder: Path, bots: int, games: int) -> Path:
    """The league in `folder`, made if absent and played on by `arena league play` up to `games` games."""
    from arena.league import new_league
    from arena.league.frozen import add_bot

    league = folder / "league"
    if not (league / "catalog.sqlite").exists():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "league.toml").write_text(LEAGUE)
        new_league(league, folder / "league.toml")
        for n in range(bots):
            path = folder / f"mover{n}.py"
            path.write_text(BOT.format(n=n))
            assert add_bot(league, f"{path}:Mover{n}", sandboxed=False, games_per_rules=1).new
    have = finished_games(league)
    if have < games:
        started = time.monotonic()
        subprocess.run(ARENA + ["league", "play", str(league), "--games", str(games - have), "--no-progress"],
                       check=True, stdout=subprocess.DEVNULL)
        took = time.monotonic() - started
        now = finished_games(league)
        print(f"built {now - have:,} games in {took:,.0f} s ({(now - have) / took:.1f} games/s)")
    return league


def after_first_round(league: Path, process: subprocess.Popen, most: float = 1800) -> tuple[int, float]:
    """Waits for the first round that `process` finishes; the league's games then and the time it took."""
    started, before = time.monotonic(), finished_games(league)
    while (now := finished_games(league)) == before:
        if process.poll() is not None or time.monotonic() - started > most:
            raise SystemExit(f"no round finished in {time.monotonic() - started:.0f} s")
        time.sleep(0.2)
    return now, time.monotonic() - started


def play_alone(league: Path, seconds: float) -> float:
    """Games a second of finished rounds while `arena league play` plays alone, from its first finished round."""
    process = subprocess.Popen(ARENA + ["league", "play", str(league), "--games", "1000000000", "--no-progress"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        before, startup = after_first_round(league, process)
        print(f"play alone: first round after {startup:.0f} s")
        cpu = cpu_seconds(process.pid)
        time.sleep(seconds)
        games = (finished_games(league) - before) / seconds
        print_cpu(cpu, cpu_seconds(process.pid), seconds)
        return games
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()


async def readers(base: str, clients: int, seconds: float, closed: bool,
                  league: Path) -> dict[str, list[tuple[float, int]]]:
    """Each reader's requests as (latency, status) by path: browser-like (a pause of POLL_SECONDS between two
    requests, If-None-Match of what it holds) or `closed`-loop (at once again, no ETag); and under "freshness",
    the seconds from each round seen finished in the catalog (looked at every 0.25 s) to `/api/health` showing
    it."""
    import httpx

    answered: dict[str, list[tuple[float, int]]] = {path: [] for path in PATHS}
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
        async def reader(k: int) -> None:
            rng, turn, held = random.Random(k), k, {}
            if not closed:
                await asyncio.sleep(rng.uniform(0, POLL_SECONDS[1]))  # browsers do not all open at once
            while time.monotonic() < deadline and sum(map(len, answered.values())) < MOST_REQUESTS:
                path = PATHS[turn % len(PATHS)]
                turn += 1
                headers = {"If-None-Match": held[path]} if path in held and not closed else {}
                start = time.perf_counter()
                try:
                    response = await client.get(path, headers=headers)
                except httpx.TransportError:  # a kept-alive connection the server closed: a browser asks again
                    answered[path].append((time.perf_counter() - start, 0))
                    continue
                answered[path].append((time.perf_counter() - start, response.status_code))
                assert response.status_code in (200, 304), (path, response.status_code)
                held[path] = response.headers.get("etag", "")
                if not closed:
                    await asyncio.sleep(rng.uniform(*POLL_SECONDS))

        async def freshness() -> None:
            """When each round is first seen finished in the catalog, and when the server's view first holds it."""
            seen: dict[int, float] = {}
            while time.monotonic() < deadline:
                done = (await asyncio.to_thread(progress, league))[0]  # not in the readers' loop
                now = time.monotonic()
                for number in range(1, done + 1):
                    seen.setdefault(number, now)
                shown = (await client.get("/api/health")).json()["rounds"]
                for number in range(1, shown + 1):
                    if number in seen and number not in lags:
                        lags[number] = time.monotonic() - seen[number]
                await asyncio.sleep(0.25)

        lags: dict[int, float] = {}
        started = progress(league)[0]
        await asyncio.gather(freshness(), *(reader(k) for k in range(clients)))
        answered["freshness"] = [lag for number, lag in lags.items() if number > started]
    return answered


def start_server(league: Path, play: bool = True) -> tuple[subprocess.Popen, str]:
    """`arena league serve` on the league and its address, once it listens (its first view made)."""
    command = ARENA + ["league", "serve", str(league), "--port", "0"] + ([] if play else ["--no-play"])
    with open(league.parent / SERVER_LOG, "w") as log:  # its warnings (a failed look says so there)
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
    return process, re.search(r"http://[^/]+", process.stdout.readline())[0]


def warm(league: Path) -> None:
    """Serves the kept league once, without play, until its rating history (the league's history.json) holds a
    point for each round, as a server that has run along the league would have kept: each phase's copy starts
    from it instead of fitting the points again. Where they were not kept, the server fits them after it listens
    (`DEFERRED_HISTORY_GAMES` in arena/server/views.py): the times printed are a first serve's."""
    started = time.monotonic()
    process, _ = start_server(league, play=False)
    listening = time.monotonic() - started
    rounds, kept = progress(league)[0], LeagueDir(league).history
    while not (kept.exists() and json.loads(kept.read_text())["last_round"] >= rounds):
        if process.poll() is not None:
            raise SystemExit(f"the server stopped before its rating history was kept: see {league.parent / SERVER_LOG}")
        time.sleep(1)
    print(f"serve: listening after {listening:.1f} s, the rating history kept {time.monotonic() - started:.0f} s "
          "after the start")
    process.send_signal(signal.SIGTERM)  # not SIGINT: a job started in the background by a shell ignores it
    process.wait()


def fresh(league: Path, scratch: Path) -> Path:
    """A copy of the kept league for one phase: every phase starts from the same games and, as the matchmaker's
    choices are a function of the games, plays the same rounds; the kept league does not grow."""
    copy = scratch / "phase"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(league, copy)
    return copy


def serve_under_readers(league: Path, seconds: float, clients: int, closed: bool) -> tuple[float, dict]:
    """Games a second while `serve --play` plays under the readers, from its first finished round, and the
    readers' requests."""
    started = time.monotonic()
    process, base = start_server(league)
    try:
        print(f"serve: listening after {time.monotonic() - started:.1f} s", end="")
        before, startup = after_first_round(league, process)
        print(f", first round {startup:.0f} s later")
        cpu = cpu_seconds(process.pid)
        if clients:
            answered = asyncio.run(readers(base, clients, seconds, closed, league))
        else:
            answered = time.sleep(seconds) or {}
        games = (finished_games(league) - before) / seconds
        print_cpu(cpu, cpu_seconds(process.pid), seconds)
        return games, answered
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
        print_server_log(league)


def print_server_log(league: Path) -> None:
    """The last lines the server wrote to stderr, if any."""
    lines = (league.parent / SERVER_LOG).read_text(errors="replace").splitlines()
    if lines:
        print(f"  the server's stderr, {len(lines)} lines, the last: " + " | ".join(lines[-3:]))


def print_latencies(answered: dict) -> None:
    lags = answered.pop("freshness", [])
    if lags:
        print(f"  a round's view served {np.median(lags):.1f} s after it finished at the median, "
              f"{max(lags):.1f} s at most ({len(lags)} rounds)")
    for path, found in answered.items():
        if found:
            ms = np.array([latency for latency, _ in found]) * 1000
            unchanged = sum(status == 304 for _, status in found)
            failed = sum(status == 0 for _, status in found)
            print(f"  GET {path:15} {len(ms):7,} requests ({unchanged:,} 304, {failed} connection errors)  "
                  f"p50 {np.percentile(ms, 50):6.1f} ms  "
                  f"p99 {np.percentile(ms, 99):6.1f} ms  worst {ms.max():7.1f} ms")


def process_figures(pid: int) -> tuple[float, int, int, int]:
    """A process's RSS (MB), open files, threads and sockets, from /proc: its descriptors but its sockets are its
    open files (a leak of them would grow); its sockets are the connections of the moment."""
    status = Path(f"/proc/{pid}/status").read_text()
    field = lambda name: int(re.search(rf"^{name}:\s+(\d+)", status, re.M)[1])
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:  # closed meanwhile
            pass
    sockets = sum(target.startswith("socket:") for target in targets)
    return field("VmRSS") / 1024, len(targets) - sockets, field("Threads"), sockets


def tree(root: int) -> dict[int, tuple[str, float, float]]:
    """`root` and every process below it, from /proc: by pid, a short name (its command's first words), its CPU
    seconds (user and system) so far and its RSS (MB)."""
    tick, page, parents, found = os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE"), {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        parents[int(entry.name)] = int(fields[1])
        name = " ".join(w.decode(errors="replace").rpartition("/")[2] for w in words[:4] if w)[:60]
        found[int(entry.name)] = (name, (int(fields[11]) + int(fields[12])) / tick, int(fields[21]) * page / 2 ** 20)

    def below(pid: int) -> bool:
        while pid > 1 and pid != root:
            pid = parents.get(pid, 0)
        return pid == root

    return {pid: figures for pid, figures in found.items() if below(pid)}


def cpu_seconds(root: int) -> dict[str, float]:
    """CPU seconds so far of `root` and every process below it, by name, summed where names repeat; the
    benchmark's own process as "readers"."""
    spent: dict[str, float] = {}
    for name, used, _ in tree(root).values():
        spent[name] = spent.get(name, 0.0) + used
    own = resource.getrusage(resource.RUSAGE_SELF)
    spent["readers"] = own.ru_utime + own.ru_stime
    return spent


def print_cpu(before: dict[str, float], after: dict[str, float], seconds: float) -> None:
    """Each process's share of one core over the measured `seconds`, largest first."""
    shares = {name: (used - before.get(name, 0.0)) / seconds for name, used in after.items()}
    print("  CPU, cores: " + ", ".join(f"{name} {share:.2f}" for name, share in
                                        sorted(shares.items(), key=lambda item: -item[1]) if share >= 0.01))


def soak(league: Path, minutes: float, clients: int, sample: float) -> None:
    """`serve --play` under browser-like readers for `minutes`; the server's figures against time, and whether
    they stayed flat after the warm-up."""
    process, base = start_server(league)
    rows: list[tuple[float, float, int, int, float, int, int]] = []
    try:
        started = time.monotonic()

        async def sampler() -> None:
            import httpx

            async with httpx.AsyncClient(base_url=base, timeout=60) as client:
                while (elapsed := time.monotonic() - started) < minutes * 60:
                    rss, files, threads, sockets = process_figures(process.pid)
                    every = sum(size for _, _, size in tree(process.pid).values())
                    rows.append((elapsed, rss, files, threads, every, finished_games(league), sockets))
                    shown = (await client.get("/api/health")).json()["games"]
                    print(f"  {elapsed / 60:5.1f} min  RSS {rss:7.1f} MB  open files {files:4}  threads {threads:3}  "
                          f"sockets {sockets:3}  all its processes' RSS {rows[-1][4]:7.1f} MB  "
                          f"games {rows[-1][5]:,} ({shown:,} shown)", flush=True)
                    await asyncio.sleep(sample)

        async def both() -> list:
            return await asyncio.gather(readers(base, clients, minutes * 60, closed=False, league=league), sampler())

        answered = asyncio.run(both())[0]
        print_latencies(answered)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
        print_server_log(league)
    warm = [row for row in rows if row[0] >= minutes * 60 / 5]
    for column, name in ((1, "RSS"), (2, "open files"), (3, "threads"), (4, "all its processes' RSS")):
        values = [row[column] for row in warm]
        spread = (max(values) - min(values)) / min(values) if values and min(values) else float("nan")
        print(f"after warm-up: {name} from {min(values):,.1f} to {max(values):,.1f} ({spread:.1%}): "
              f"{'flat' if spread <= 0.10 else 'NOT flat'} within 10%")
    sockets = [row[6] for row in warm]
    print(f"after warm-up: sockets from {min(sockets)} to {max(sockets)} (the readers' connections of the moment)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--league", type=Path, help="a folder that keeps the built league between runs")
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--seconds", type=float, default=300.0,
                        help="each phase's window: long enough for several of the standings' looks")
    parser.add_argument("--pairs", type=int, default=3, help="phases of play alone and served, alternated")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--closed", action="store_true", help="also the closed-loop readers (the worst case)")
    parser.add_argument("--unread", action="store_true", help="also serve --play with no readers: what serving costs")
    parser.add_argument("--soak", action="store_true")
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--sample", type=float, default=30.0, help="--soak: seconds between two samples")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    with tempfile.TemporaryDirectory(prefix="arena-serve-bench-") as scratch:
        league = build(args.league or Path(scratch), args.bots, args.games)
        print(f"league: {args.bots} bots, {finished_games(league):,} games in "
              f"{len(list((league / 'results').glob('part-*.parquet'))):,} parts; {args.clients} clients")
        warm(league)
        if args.soak:
            soak(fresh(league, Path(scratch)), args.minutes, args.clients, args.sample)
            return
        changes, answered = [], {}
        for pair in range(1, args.pairs + 1):  # alternated, so that a drift of the machine falls on both alike
            alone = play_alone(fresh(league, Path(scratch)), args.seconds)
            print(f"pair {pair}: play alone {alone:.1f} games/s")
            served, found = serve_under_readers(fresh(league, Path(scratch)), args.seconds, args.clients, closed=False)
            changes.append(served / alone - 1)
            print(f"pair {pair}: serve --play under {args.clients} browser-like readers {served:.1f} games/s "
                  f"({changes[-1]:+.1%} against play alone)")
            for path, latencies in found.items():
                answered.setdefault(path, []).extend(latencies)
        print(f"play under browser-like readers against play alone, {args.pairs} pairs: {mean_interval(changes)}")
        print_latencies(answered)
        extra = [("no", 0, False)] if args.unread else []
        extra += [("closed-loop", args.clients, True)] if args.closed else []
        for kind, clients, closed in extra:
            served, found = serve_under_readers(fresh(league, Path(scratch)), args.seconds, clients, closed)
            print(f"serve --play under {kind} readers: {served:.1f} games/s ({served / alone - 1:+.1%} against the "
                  f"last play alone)")
            print_latencies(found)


def mean_interval(changes: list[float]) -> str:
    """The mean change with its 95% interval over the pairs (Student's t: each pair is one measurement)."""
    from scipy import stats

    mean = float(np.mean(changes))
    if len(changes) < 2:
        return f"{mean:+.1%} (one pair: no interval)"
    half = stats.t.ppf(0.975, len(changes) - 1) * np.std(changes, ddof=1) / np.sqrt(len(changes))
    return f"{mean:+.1%} [{mean - half:+.1%}, {mean + half:+.1%}]"


if __name__ == "__main__":
    main()
