#!/usr/bin/env python3
"""The cost of isolation: per decision, the random bot on Caterpillar with both seats in process, in their own
processes (the built-in host, and the example script that does not import arena), in the sandbox without its
seccomp filter and Landlock, and in the sandbox as it is (with both); and the start-up of a bot process (until it
answers hello) in each of those three. All in one run.

    .venv/bin/python benchmarks/isolation.py [--seconds 3] [--starts 20] [--rounds 20]

A per-decision figure is the wall time of whole games (deal, referee, observations, resets) divided by the
decisions made; the overhead is the difference per decision, the ratio against in process, and each sandbox's
ratio against the same command in a process and, for the sandbox as it is, against the sandbox without the
filter and Landlock (what the two cost together), round by round with its 95% interval, in wall time and in the
CPU time of the bot processes, which a busy machine disturbs less. Start-ups alternate the modes, so a busy
machine weighs on all alike; a mode's extra start-up is the mean of the paired differences, with its 95%
interval. Last, the filter's own cost per system call: a read(2) timed in one sandboxed process before and after
it loads the filter.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

from arena.bots import load_bot_class, resolved_spec
from arena.games import get_game, make_rules
from arena.isolation import (
    BotProcess,
    close_all,
    host_env,
    is_host,
    process_bot_class,
    python_command,
    sandbox,
    seccomp,
)
from arena.isolation.process import DEFAULT_MEMORY_MB, ProcessBot, pool_key, pools
from arena.tournament.referee import play

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "random_bot.py"
BARE = "sandbox, no seccomp/Landlock"
"""The sandbox without its seccomp filter and without Landlock: what both walls cost is the sandbox's time over it."""
MODES = {"process": (False, True), BARE: (True, False), "sandbox": (True, True)}
"""Each mode's (sandboxed, seccomp filter loaded and Landlock applied)."""


def in_mode(mode: str, start):
    """`start()` with new sandboxes made as `mode` says (with or without the seccomp filter and Landlock)."""
    sandbox.SECCOMP = sandbox.LANDLOCK = MODES[mode][1]
    try:
        return start()
    finally:
        sandbox.SECCOMP = sandbox.LANDLOCK = True


def mode_class(command: list[str], mode: str, limit: float | None) -> type:
    """The process bot class of `command` in `mode`, its first process started now. The sandbox without the filter
    asks for 1 MiB less memory: arena keeps a pool of processes per command and limits, and this keeps its
    processes apart from the filtered sandbox's (a random bot uses a small part of either limit)."""
    memory_mb = DEFAULT_MEMORY_MB - (mode == BARE)
    return in_mode(mode, lambda: process_bot_class(command, memory_mb=memory_mb, move_time_limit=limit,
                                                   sandboxed=MODES[mode][0]))


def bot_usage(bot_class: type) -> tuple[float, int]:
    """Seconds on a CPU so far of the processes of a process bot class (the bots themselves, not bwrap), from the
    scheduler's count in nanoseconds, and their read and write system calls: (0, 0) for a bot in process."""
    if not issubclass(bot_class, ProcessBot):
        return 0.0, 0
    key = pool_key(bot_class.command, bot_class.memory_mb, bot_class.cpu_seconds, {}, bot_class.sandboxed)
    pids = [process.bot_pid() for process in pools.get(key, [])]
    cpu = sum(int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) for pid in pids) / 1e9
    calls = sum(int(line.split()[1]) for pid in pids for line in Path(f"/proc/{pid}/io").read_text().splitlines()
                if line.startswith(("syscr", "syscw")))
    return cpu, calls


def per_decision(bot_classes: list[type], seconds: float, limit: float | None, rounds: int = 20) -> tuple:
    """Microseconds per decision of each bot class in both seats of Caterpillar, over about `seconds` each, in
    `rounds` alternating turns (a busy machine weighs on all alike): over all rounds, then round by round, then
    the CPU time of the bot processes per decision round by round (which a busy machine disturbs less), then their
    read and write system calls per decision."""
    game = get_game("caterpillar")
    rules = make_rules(game.Rules)
    elapsed, decisions = [[0.0] * rounds for _ in bot_classes], [[0] * rounds for _ in bot_classes]
    cpu, calls = [[0.0] * rounds for _ in bot_classes], [0] * len(bot_classes)
    for bot_class in bot_classes:
        play(game, rules, [bot_class(), bot_class()], 0, move_time_limit=limit)  # start the processes
    for turn in range(rounds):
        for i, bot_class in enumerate(bot_classes):
            games, started, (cpu_started, calls_started) = 0, time.perf_counter(), bot_usage(bot_class)
            while time.perf_counter() - started < seconds / rounds:
                decisions[i][turn] += play(game, rules, [bot_class(), bot_class()], games,
                                           move_time_limit=limit).decisions
                games += 1
            elapsed[i][turn] += time.perf_counter() - started
            cpu_now, calls_now = bot_usage(bot_class)
            cpu[i][turn] += cpu_now - cpu_started
            calls[i] += calls_now - calls_started
    overall = [sum(e) / sum(d) * 1e6 for e, d in zip(elapsed, decisions, strict=True)]
    by_round = [[t / n * 1e6 for t, n in zip(e, d, strict=True)] for e, d in zip(elapsed, decisions, strict=True)]
    cpu_by_round = [[t / n * 1e6 for t, n in zip(c, d, strict=True)] for c, d in zip(cpu, decisions, strict=True)]
    return overall, by_round, cpu_by_round, [c / sum(d) for c, d in zip(calls, decisions, strict=True)]


def ratio_interval(numerators: list[float], denominators: list[float]) -> str:
    """The geometric mean of paired ratios with its 95% interval (normal, on the logarithms)."""
    logs = [math.log(n / d) for n, d in zip(numerators, denominators, strict=True)]
    mean, half = statistics.fmean(logs), 1.96 * statistics.stdev(logs) / len(logs) ** 0.5
    return f"{math.exp(mean):.3f} [{math.exp(mean - half):.3f}, {math.exp(mean + half):.3f}]"


SYSCALLS = """
import ctypes, os, sys, time

zero, count = os.open("/dev/zero", os.O_RDONLY), int(sys.argv[1])


def per_call():
    best = float("inf")
    for _ in range(5):  # the least of five: what a busy machine adds is never negative
        started = time.perf_counter_ns()
        for _ in range(count):
            os.read(zero, 1)
        best = min(best, (time.perf_counter_ns() - started) / count)
    return best


class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


before, program = per_call(), sys.stdin.buffer.read()
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS, then PR_SET_SECCOMP with SECCOMP_MODE_FILTER: as bwrap loads it
if libc.prctl(22, 2, ctypes.byref(Program(len(program) // 8, program)), 0, 0):
    raise OSError(ctypes.get_errno(), "cannot load the filter")
print(before, per_call())
"""
"""Nanoseconds per read(2) of one byte (Python's call included), the least of five runs of `count`, before and after
the process loads the filter given on its input: one process, so the difference is the filter's alone."""


def system_call(count: int = 50_000) -> tuple[float, float]:
    """Nanoseconds per read(2) in a sandbox without the filter, before and after it loads the filter itself."""
    line = in_mode(BARE, lambda: sandbox.wrap([sys.executable, "-c", SYSCALLS, str(count)]))
    done = subprocess.run(line, input=seccomp.bpf(), capture_output=True, check=True)
    before, after = map(float, done.stdout.split())
    return before, after


def start_up(command: list[str], mode: str) -> float:
    """Milliseconds from starting a bot process in `mode` to its answer to hello."""
    started = time.perf_counter()
    process = in_mode(mode, lambda: BotProcess(command, None, None, host_env() if is_host(command) else None,
                                               MODES[mode][0]))
    process.handshake({})
    elapsed = time.perf_counter() - started
    process.close()
    return elapsed * 1e3


def mean_interval(values: list[float]) -> str:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan")
    return f"{mean:.1f} [{mean - half:.1f}, {mean + half:.1f}]"


def main() -> None:
    """Prints µs per decision in each mode with the overheads, then the start-ups."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--move-time-limit", type=float, default=1.0, help="as in a tournament (0: none)")
    parser.add_argument("--starts", type=int, default=20, help="start-ups measured per mode and command")
    parser.add_argument("--rounds", type=int, default=20, help="alternating turns of the per-decision measurement")
    args = parser.parse_args()
    limit = args.move_time_limit or None
    try:
        sandbox.check()
        modes = list(MODES)
    except sandbox.SandboxUnavailable as error:
        print(f"no sandbox measured: {error}")
        modes = ["process"]
    random_bot = load_bot_class("random")
    commands = {"built-in host": python_command(resolved_spec(random_bot)),
                "examples/random_bot.py": [sys.executable, str(EXAMPLE)]}
    classes = [random_bot] + [mode_class(command, mode, limit) for command in commands.values() for mode in modes]
    measured = per_decision(classes, args.seconds * len(classes), limit, args.rounds)
    (local, *remotes), by_round, cpu_by_round, calls = measured
    print(f"{'random bot on caterpillar':<50}{'µs/decision':>12}{'overhead µs':>13}{'ratio':>8}"
          f"{'/process':>10}{'/without':>10}")
    print(f"{'in process':<50}{local:>12.1f}{'':>13}{1:>8.2f}")
    for i, label in enumerate(commands):
        measured = dict(zip(modes, remotes[i * len(modes):(i + 1) * len(modes)], strict=True))
        for mode, remote in measured.items():
            versus = f"{remote / measured['process']:>10.3f}" if mode != "process" else ""
            if mode == "sandbox" and BARE in measured:
                versus += f"{remote / measured[BARE]:>10.3f}"
            print(f"{mode + ': ' + label:<50}{remote:>12.1f}{remote - local:>13.1f}{remote / local:>8.2f}{versus}")
    if "sandbox" in modes:
        print("sandbox / sandbox without seccomp and Landlock, per decision, round by round: geometric mean [95% "
              f"interval] of {len(by_round[0])} rounds; the bots' CPU µs per decision, without / with both, and their "
              "ratio")
        for i, label in enumerate(commands):
            first = 1 + i * len(modes)  # index 0 is the bot in process
            filtered, unfiltered = first + modes.index("sandbox"), first + modes.index(BARE)
            cpu = [statistics.fmean(cpu_by_round[j]) for j in (unfiltered, filtered)]
            print(f"  {label:<24}wall {ratio_interval(by_round[filtered], by_round[unfiltered])}   bot CPU "
                  f"{cpu[0]:.1f} / {cpu[1]:.1f} µs: {ratio_interval(cpu_by_round[filtered], cpu_by_round[unfiltered])}"
                  f"   its reads and writes per decision {calls[filtered]:.2f}")
    close_all()
    print(f"\nstart-up of a bot process until hello, ms: mean [95% interval] of {args.starts}, alternating")
    for label, command in commands.items():
        times: dict[str, list[float]] = {mode: [] for mode in modes}
        for _ in range(args.starts):
            for mode in modes:
                times[mode].append(start_up(command, mode))
        print(label)
        for mode in modes:
            line = f"  {mode:<30}{mean_interval(times[mode])}"
            for base in ("process", BARE)[:modes.index(mode)]:
                extra = [t - b for b, t in zip(times[base], times[mode], strict=True)]
                line += f"   - {base}: {mean_interval(extra)}"
            print(line)
    if "sandbox" in modes:
        print("\none read(2) of a byte in the sandbox, ns (Python's call included), before and after the process "
              f"loads the filter: mean [95% interval] of {args.starts} sandboxes")
        before, after = zip(*(system_call() for _ in range(args.starts)), strict=True)
        extra = [a - b for b, a in zip(before, after, strict=True)]
        print(f"  before {mean_interval(list(before))}   after {mean_interval(list(after))}   "
              f"after - before {mean_interval(extra)}")


if __name__ == "__main__":
    main()
