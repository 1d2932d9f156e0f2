"""A league game's replay page for `/games/{index}` (and a final's game's, for `/final/games/{index}`): the game
regenerated in a child process under the replays' time limit, as the run report regenerates its examples
(arena/isolation/supervisor.py `run_jobs`), never in the server's process: replaying runs the bots' code again,
and a bot that hangs or kills its process must cost that page only. The child is a fresh interpreter, never a fork of
the server's threaded process.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.errors import ArenaError

KEPT_PAGES = 32
"""Replay pages kept in memory: a game's page never changes, and a shared link is opened many times."""


class ReplayError(ArenaError, RuntimeError):
    """A game that cannot be replayed here (one line for the page)."""


async def replay_json(directory: Path, index: int, final: bool = False) -> dict:
    """The transcript of league game `index` (`final`: of game `index` of the season's final), regenerated in a child
    process, waited for in a thread of the server's pool."""
    from arena.isolation.supervisor import ChildFailed
    from arena.league.directory import LeagueDir
    from arena.league.rounds import replay_league_games
    from arena.tournament.replay import replay_games

    if final:
        answer, = await asyncio.to_thread(replay_games, LeagueDir(directory).final, [index])
    else:
        answer, = await asyncio.to_thread(replay_league_games, directory, [index])
    if isinstance(answer, ChildFailed):
        raise ReplayError(f"game {index} cannot be replayed here: {answer}")
    return answer
