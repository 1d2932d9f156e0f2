"""The report's example replays: each example game regenerated from its seeds in a forked child, in time, and
written as a replay page beside the report."""

from __future__ import annotations

import html
import json
import tomllib

from arena.ratings import VariantRatings
from arena.report.page import variant_slugs
from arena.results import RunDir


def write_example_replays(run: RunDir, examples: dict[str, list[tuple[int, str]]],
                          ratings: dict[str, VariantRatings]) -> dict[str, list[str]]:
    """Writes the replay page of each example game (`example_games`) to RUN/replays/<variant slug>-<game
    index>.html and returns, per variant, the HTML of its links (relative to the report). A game that cannot
    be regenerated (a bot gone or changed) gets a note instead: the report itself must not fail for it."""
    from arena.config import ConfigError
    from arena.config.saved import saved_config
    from arena.replay_page import write_replay_page

    try:  # the bots checked once, here (each in a process of its own), not again in every replay's child
        saved_config(run)
    except ConfigError:
        pass  # each replay fails on it and gets its note
    slugs = variant_slugs(list(ratings))
    out: dict[str, list[str]] = {}
    for variant, games in examples.items():
        links = out.setdefault(variant, [])
        for index, why in games:
            name = f"{slugs[variant].removeprefix('game-')}-{index}.html"
            try:
                write_replay_page(_isolated_replay(run, index), run.path / "replays" / name)
            except Exception as error:  # noqa: BLE001 - any failure of one replay only costs its link
                links.append(f"game {index} ({html.escape(why)}): no replay ({html.escape(type(error).__name__)})")
                continue
            links.append(f"<a href='replays/{html.escape(name)}'>game {index}</a> ({html.escape(why)})")
    return out


REPLAY_SECONDS = 60.0
"""The longest one example replay may take: a replay runs the bots' code again."""


def _time_limits(config_text: str) -> tuple[float | None, float]:
    """The run's move time limit (None: none) and setup time limit, as its config gives them."""
    from arena.config import RunSettings

    run = tomllib.loads(config_text).get("run", {})
    limit = run.get("move_time_limit", RunSettings.move_time_limit)
    return None if not limit else float(limit), float(run.get("setup_time_limit", RunSettings.setup_time_limit))


def _isolated_replay(run: RunDir, index: int) -> dict:
    """`replay_game(run, index)` in a forked child: replaying runs the bots' code again, and a bot that
    exits, kills its process or hangs must cost its replay, never the report (or the run that writes it).
    The child's calls into bots are stamped on a backstop page, so one that defeats the clock is ended as in a
    run."""
    import os
    import select
    import signal
    import time

    from arena.clock import MoveWatch, new_board, use_board
    from arena.replay import replay_game

    moves = new_board(*_time_limits(run.config.read_text()))
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's exit status and pipe are what the parent checks
        code = 1
        try:
            os.close(read)
            os.dup2(2, 1)  # whatever a bot prints goes to stderr
            use_board(moves)
            data = json.dumps(replay_game(run, index)).encode()
            while data:
                data = data[os.write(write, data):]
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    chunks, deadline = [], time.monotonic() + REPLAY_SECONDS
    watch = MoveWatch(moves)
    try:
        while time.monotonic() < deadline:
            if watch.overrun():
                raise TimeoutError(f"a {'setup call' if watch.in_setup else 'move'} of game {index} ran over the "
                                   "time limit in its replay")
            if select.select([read], [], [], 0.05)[0]:
                chunk = os.read(read, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
        else:
            raise TimeoutError(f"the replay of game {index} took over {REPLAY_SECONDS:.0f} s")
    finally:
        os.close(read)
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
        status = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    if status != 0 and not chunks:
        raise RuntimeError(f"the replay of game {index} failed (exit status {status})")
    return json.loads(b"".join(chunks))
