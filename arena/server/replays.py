"""A league game's replay page for `/games/{index}`: the game regenerated from its round's config and seeds in a
child process under a time limit, as the run report regenerates its examples (arena/report/replays.py), never
in the server's process: replaying runs the bots' code again, and a bot that hangs or kills its process must
cost that page only.

    python -m arena.server.replays DIR INDEX      prints the transcript of league game INDEX as JSON
    python -m arena.server.replays DIR INDEX --final      the same of game INDEX of the final (DIR/final/)
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

from arena.errors import ArenaError
from arena.league.catalog import RoundRow

REPLAY_SECONDS = 60.0
"""The longest one replay may take (a game of bots at their move time limit takes far less)."""
KEPT_PAGES = 32
"""Replay pages kept in memory: a game's page never changes, and a shared link is opened many times."""


class ReplayError(ArenaError, RuntimeError):
    """A game that cannot be replayed here (one line for the page)."""


async def replay_json(directory: Path, index: int, final: bool = False) -> dict:
    """The transcript of league game `index` (`final`: of game `index` of the season's final), regenerated in a child
    process (in its own session, so its bots' processes go with it when it is killed at the time limit)."""
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-P", "-m", "arena.server.replays", str(directory), str(index),
        *(["--final"] if final else []),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True)
    try:
        out, err = await asyncio.wait_for(child.communicate(), REPLAY_SECONDS)
    except TimeoutError:
        raise ReplayError(f"the replay of game {index} took over {REPLAY_SECONDS:.0f} s") from None
    finally:
        if child.returncode is None:
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            await child.wait()
    if child.returncode != 0:
        lines = err.decode(errors="replace").strip().splitlines()
        raise ReplayError(f"game {index} cannot be replayed here: {lines[-1] if lines else 'no reason given'}")
    return json.loads(out)


def round_of(rounds: list[RoundRow], index: int) -> RoundRow | None:
    """The round that holds league game `index`, or None."""
    return next((r for r in rounds if r.first_index <= index < r.end_index), None)


def _replay_in_child(directory: Path, index: int) -> dict:
    """The transcript of league game `index` (of a finished round), played again from its round's config."""
    from arena.config import parse_config
    from arena.league.catalog import Catalog
    from arena.tournament.replay import replay_scheduled

    catalog = Catalog(directory)
    try:
        found = round_of([r for r in catalog.rounds() if r.status == "done"], index)
    finally:
        catalog.close()
    if found is None:
        raise ReplayError(f"no finished round holds game {index}")
    return replay_scheduled(parse_config(found.config, base=directory), index - found.first_index)


def main(argv: list[str]) -> int:
    """The child's entry point: the transcript on stdout, or one line on stderr and exit status 1."""
    from arena.league.directory import LeagueDir
    from arena.tournament.replay import replay_game

    directory, index = Path(argv[0]), int(argv[1])
    real_stdout = os.dup(1)
    os.dup2(2, 1)  # whatever a bot prints goes to stderr, not into the transcript
    try:
        data = replay_game(LeagueDir(directory).final, index) if "--final" in argv[2:] else \
            _replay_in_child(directory, index)
    except Exception as error:  # noqa: BLE001 - the parent shows the line on the page
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        return 1
    with os.fdopen(real_stdout, "w") as out:
        json.dump(data, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
