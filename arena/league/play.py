"""`arena league play`: the matchmaker's rounds, played by the tournament runner's workers (one local worker
or Ray), each finished batch saved at once as a Parquet part of league game indices, with the round.

One `play` at a time: a lock file held with flock (released by the kernel when the process ends, however it
ends). A round is recorded in the catalog before its first game, so a `play` killed at any moment finishes
that round first, playing only the games missing from its parts; no game is played twice, none lost.
"""

from __future__ import annotations

import dataclasses
import fcntl
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pyarrow as pa

from arena.league import load_settings
from arena.league.catalog import Catalog, LeagueError, RoundRow
from arena.league.compaction import compact
from arena.league.directory import LeagueDir
from arena.league.matchmaker import Matchmaker
from arena.results import PART_NAME, RATED_COLUMNS, SCHEMA, live_parts, read_rows, set_aside_damaged, write_part
from arena.tournament.plan import Range, Step

LEAGUE_SCHEMA = SCHEMA.append(pa.field("round", pa.int32()))
"""A league's result parts: the run columns (game_index is the league's) and the round."""
logger = logging.getLogger(__name__)


@contextmanager
def play_lock(directory: Path) -> Iterator[IO]:
    """Holds the league's play lock, or refuses at once when another `play` holds it. Yields the locked file: a
    child process handed it holds the lock too, until both have closed it."""
    handle = open(LeagueDir(directory).lock, "a+")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LeagueError(f"{directory}: another `arena league play` (or `serve --play`) is "
                              "playing this league; wait for it to finish") from None
        yield handle
    finally:
        handle.close()


@dataclass
class PlayReport:
    rounds: list[int]
    played_now: int
    stopped: str
    backend: str
    suspended: list[str] = dataclasses.field(default_factory=list)
    """The bots suspended for stalling in this `play`."""


class RoundRecorder:
    """The planner of the runner's loop (arena/tournament/plan.py's Planner) for a league: it asks the matchmaker for
    the next round, records it in the catalog before it is played and marks it done once played (the matchmaker only
    reads the catalog), and keeps the round being played, whose game indices the saved parts take. Before any new
    round it plays again the games of finished rounds that no part holds (`gaps`: a damaged part set aside)."""

    reads_results = True

    def __init__(self, matchmaker: Matchmaker, catalog: Catalog,
                 gaps: list[tuple[RoundRow, list[Range]]] = (), stalls: dict[str, int] | None = None) -> None:
        self.matchmaker, self.catalog = matchmaker, catalog
        self.gaps = list(gaps)
        self.stalls = {} if stalls is None else stalls
        """The active bots' stalls (by label), as the catalog has them after each round: the runner's workers suspend
        a bot within a round once it reaches `suspend_after` (arena/tournament/batch.py)."""
        self.suspended: list[str] = []
        """The bots this `play` suspended, in order."""
        self.unseen: list[pa.Table] = []
        """Results not yet handed to the matchmaker: those given while finished rounds' gaps were played."""
        self.current: RoundRow | None = None
        """The round being played, as the catalog records it."""

    def next(self, new: pa.Table | None) -> Step | None:
        """The step of the next round, recorded; the round before it, just played, marked done first. A finished
        round's missing games come first, each round's as one step of their ranges (its own game indices)."""
        if self.current is not None and self.current.status != "done":
            self.suspended += self.catalog.finish_round(self.current.number, round_stalls(self.catalog, self.current),
                                                        self.matchmaker.settings.run.suspend_after)
            self.stalls.clear()
            self.stalls.update(self.catalog.stalls())
        if new is not None:
            self.unseen.append(new)
        if self.gaps:
            self.current, ranges = self.gaps.pop(0)
            return dataclasses.replace(self.matchmaker.step(self.current), ranges=ranges)
        if len(self.unseen) > 1:  # the history read from the parts and the gaps' games: what the ratings read of both
            new = pa.concat_tables([table.select(RATED_COLUMNS) for table in self.unseen])
        else:
            new = self.unseen[0] if self.unseen else None
        self.unseen = []
        round_ = self.matchmaker.plan(new)
        if round_ is not None and round_.status == "planned":
            round_ = self.catalog.record_round(round_.number, round_.first_index, round_.games, round_.seed,
                                               round_.config, round_.plan)
        self.current = round_
        return None if round_ is None else self.matchmaker.step(round_)

    def most_games(self) -> int:
        """The matchmaker's estimate of the games this `play` will have played."""
        return self.matchmaker.most_games()

    def note(self) -> str:
        """The round being played, for the progress bar."""
        return self.matchmaker.note()

    def played(self) -> list[Range]:
        """The game-index ranges of the rounds this `play` played."""
        return self.matchmaker.played()

    def summary(self) -> dict | None:
        """Why the matchmaker stopped and the games played now."""
        return self.matchmaker.summary()


def round_stalls(catalog: Catalog, round_: RoundRow) -> dict[str, tuple[int, str]]:
    """The stalls of a round's games (calls the wall-clock backstop ended), by bot label: how many, and the fault of
    the last."""
    from arena.tournament.referee import stalled

    found: dict[str, tuple[int, str]] = {}
    for part in league_parts(catalog.path.parent, [round_], ["players", "termination", "fault", "fault_seat"]):
        for players, termination, fault, seat in zip(*part.to_pydict().values(), strict=True):
            if seat is not None and stalled(termination, fault):
                found[players[seat]] = (found.get(players[seat], (0, ""))[0] + 1, fault)
    return found


def league_parts(directory: LeagueDir | Path, rounds: list[RoundRow], columns: list[str] | None = None, *,
                 by_round: bool = False) -> Iterator[pa.Table]:
    """The results of the given rounds in game-index order (columns: all of LEAGUE_SCHEMA), a part at a time, or
    the rounds' share of a compacted part; `by_round`: never one table across two rounds.

    A compaction may delete a part after it was listed here: its merged part was renamed into place before, so
    the parts are listed again and read on from the first game not yet given. A compaction merges a round's parts
    sixteen at a time, so a reader of the round just finished may miss a part at each merge: it gives up only
    after misses in a row with no game read between them."""
    ranges = sorted((r.first_index, r.end_index) for r in rounds if r.games)
    if not by_round:  # consecutive rounds as one range: a compacted part is read in one piece
        joined: list[tuple[int, int]] = []
        for first, end in ranges:
            if joined and joined[-1][1] == first:
                joined[-1] = (joined[-1][0], end)
            else:
                joined.append((first, end))
        ranges = joined
    given = 0  # the games below this index have been given
    misses, missed_at = 0, -1
    while True:
        try:
            for start, end, path in live_parts(LeagueDir.of(directory).results):
                for first, last in ranges:
                    low, high = max(start, first, given), min(end, last)
                    if low < high:
                        yield read_rows(path, LEAGUE_SCHEMA, columns, low - start, high - start)
                        given = high
            return
        except FileNotFoundError:
            misses, missed_at = (misses + 1 if given == missed_at else 1), given
            if misses == 3:
                raise


def play_league(directory: Path, *, games: int | None = None, until_settled: bool = False, rounds: int | None = None,
                workers: int | None = None, address: str | None = None,
                on_progress: Callable[..., None] | None = None, planner: type[Matchmaker] = Matchmaker,
                lock: bool = True) -> PlayReport:
    """Plays rounds until the budget (`games`), `rounds`, or settled; with none of them, one round. The
    matchmaker (or `planner`, a class of its kind: benchmarks/league.py compares random tables) is the planner
    of the tournament runner's loop (arena.tournament.runner.execute). `lock=False`: the caller holds `play_lock`
    already (`arena league serve` holds it as long as it runs)."""
    from arena.tournament.runner import execute, make_pool

    directory = Path(directory)
    settings = load_settings(directory)
    if games is None and rounds is None and not until_settled:
        rounds = 1
    with play_lock(directory) if lock else nullcontext():
        catalog = Catalog(directory)
        try:
            run = LeagueDir(directory).run
            saved = [(start, end) for start, end, _ in set_aside_damaged(run)]
            matchmaker = planner(directory, settings, catalog, budget=games, until_settled=until_settled,
                                    rounds=rounds)
            stalls = catalog.stalls()
            recorder = RoundRecorder(matchmaker, catalog, missing_games(catalog.rounds(), saved), stalls)
            history = list(league_parts(directory, catalog.rounds(), RATED_COLUMNS))
            workers = (settings.run.workers if workers is None else workers) or os.cpu_count() or 1
            backend, pool = make_pool(workers, address if address is not None else settings.run.address)

            def done(config) -> list[tuple[int, int]]:
                """The batches of the round being played already saved, in its own game indices (by the parts'
                names: the damaged ones were set aside above, and those written since are whole)."""
                first, end = recorder.current.first_index, recorder.current.end_index
                compact(directory, LEAGUE_SCHEMA, first)  # the rounds before this one are finished
                names = (PART_NAME.fullmatch(path.name) for path in run.results.glob("part-*.parquet"))
                return [(int(m[1]) - first, int(m[2]) - first) for m in names
                        if m and first <= int(m[1]) and int(m[2]) <= end]

            def save(step, batch: tuple[int, int], columns: dict) -> None:
                first, number = recorder.current.first_index, recorder.current.number
                columns = {**columns, "game_index": [first + i for i in columns["game_index"]],
                           "round": [number] * (batch[1] - batch[0])}
                write_part(run, first + batch[0], first + batch[1], columns, schema=LEAGUE_SCHEMA)

            execute(recorder, pool, done=done, save=save, batch_size=settings.run.batch_size,
                    first=pa.concat_tables(history) if history else None, on_progress=on_progress, stalls=stalls)
            compact(directory, LEAGUE_SCHEMA, finished_end(catalog.rounds()))
        finally:
            catalog.close()
    return PlayReport(matchmaker.rounds_played, matchmaker.played_now, matchmaker.stopped, backend,
                      recorder.suspended)


def missing_games(rounds: list[RoundRow], saved: list[tuple[int, int]]) -> list[tuple[RoundRow, list[Range]]]:
    """Each finished round's games that no saved part holds (`saved`: the readable parts' game ranges), as ranges
    of the round's own game indices: a part damaged after its round finished (on disk: arena writes every part by
    rename), whose games are played again from the round's seeds."""
    gaps = []
    for round_ in (r for r in rounds if r.status == "done" and r.games):
        held = sorted((max(start, round_.first_index), min(end, round_.end_index)) for start, end in saved
                      if start < round_.end_index and end > round_.first_index)
        missing, at = [], round_.first_index
        for start, end in held + [(round_.end_index, round_.end_index)]:
            if start > at:
                missing.append((at - round_.first_index, start - round_.first_index))
            at = max(at, end)
        if missing:
            gaps.append((round_, missing))
    return gaps


def finished_end(rounds: list[RoundRow]) -> int:
    """The first game index of the first round not finished (or the end of the last round): the games below it
    are the finished rounds', which compaction may merge."""
    unfinished = [r.first_index for r in rounds if r.status != "done"]
    return min(unfinished, default=max((r.end_index for r in rounds), default=0))
