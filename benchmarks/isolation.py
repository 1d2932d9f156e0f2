"""The cost of isolation: per decision, the random bot on Caterpillar with both seats in process, in their own
processes (the built-in host, and the example script that does not import arena) and in the sandbox; and the
start-up of a bot process (until it answers hello), in a process and in the sandbox. All in one run.

    .venv/bin/python benchmarks/isolation.py [--seconds 3] [--starts 20]

A per-decision figure is the wall time of whole games (deal, referee, observations, resets) divided by the
decisions made; the overhead is the difference per decision, the ratio against in process, and the sandbox's
ratio against the same command in a process. Start-ups alternate process and sandbox, so a busy machine
weighs on both alike; the sandbox's extra start-up is the mean of the paired differences, with its 95%
interval.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from arena import sandbox
from arena.bots import load_bot_class, resolved_spec
from arena.games import get_game, make_rules
from arena.isolation import BotProcess, _host_env, _is_host, close_all, process_bot_class, python_command
from arena.referee import play

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "random_bot.py"


def per_decision(bot_classes: list[type], seconds: float, limit: float | None, rounds: int = 10) -> list[float]:
    """Microseconds per decision of each bot class in both seats of Caterpillar, over about `seconds` each, in
    `rounds` alternating turns (a busy machine weighs on all alike)."""
    game = get_game("caterpillar")
    rules = make_rules(game.Rules)
    elapsed, decisions = [0.0] * len(bot_classes), [0] * len(bot_classes)
    for bot_class in bot_classes:
        play(game, rules, [bot_class(), bot_class()], 0, move_time_limit=limit)  # start the processes
    for _ in range(rounds):
        for i, bot_class in enumerate(bot_classes):
            games, started = 0, time.perf_counter()
            while time.perf_counter() - started < seconds / rounds:
                decisions[i] += play(game, rules, [bot_class(), bot_class()], games, move_time_limit=limit).decisions
                games += 1
            elapsed[i] += time.perf_counter() - started
    return [e / d * 1e6 for e, d in zip(elapsed, decisions, strict=True)]


def start_up(command: list[str], sandboxed: bool) -> float:
    """Milliseconds from starting a bot process to its answer to hello."""
    started = time.perf_counter()
    process = BotProcess(command, None, None, _host_env() if _is_host(command) else None, sandboxed)
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
    args = parser.parse_args()
    limit = args.move_time_limit or None
    try:
        sandbox.check()
        modes = (False, True)
    except sandbox.SandboxUnavailable as error:
        print(f"no sandbox measured: {error}")
        modes = (False,)
    random_bot = load_bot_class("random")
    commands = {"built-in host": python_command(resolved_spec(random_bot)),
                "examples/random_bot.py": [sys.executable, str(EXAMPLE)]}
    classes = [random_bot] + [process_bot_class(command, move_time_limit=limit, sandboxed=sandboxed)
                              for command in commands.values() for sandboxed in modes]
    local, *remotes = per_decision(classes, args.seconds * len(classes), limit)
    print(f"{'random bot on caterpillar':<34}{'µs/decision':>12}{'overhead µs':>13}{'ratio':>8}"
          f"{'sandbox/process':>17}")
    print(f"{'in process':<34}{local:>12.1f}{'':>13}{1:>8.2f}")
    for i, label in enumerate(commands):
        in_process = None
        for j, sandboxed in enumerate(modes):
            remote = remotes[i * len(modes) + j]
            versus = f"{remote / in_process:>17.3f}" if in_process else ""
            in_process = in_process or remote
            name = f"{'sandbox' if sandboxed else 'process'}: {label}"
            print(f"{name:<34}{remote:>12.1f}{remote - local:>13.1f}{remote / local:>8.2f}{versus}")
    close_all()
    print(f"\nstart-up of a bot process until hello, ms: mean [95% interval] of {args.starts}, alternating")
    for label, command in commands.items():
        times: dict[bool, list[float]] = {mode: [] for mode in modes}
        for _ in range(args.starts):
            for sandboxed in modes:
                times[sandboxed].append(start_up(command, sandboxed))
        line = f"{label:<24}process {mean_interval(times[False])}"
        if True in times:
            extra = [s - p for p, s in zip(times[False], times[True], strict=True)]
            line += f"   sandbox {mean_interval(times[True])}   sandbox - process {mean_interval(extra)}"
        print(line)


if __name__ == "__main__":
    main()
