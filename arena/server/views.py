"""What the server shows, as one catalog snapshot of finished rounds: the standing tables, the rating history and the
games, computed once each time a round finishes (or a bot is added or retired) and kept until the next.

A request never reads the parts: it takes the `View` current when it starts, a frozen whole, so every answer stands
on one snapshot however the league moves meanwhile. The round log alone is read from the catalog, a page at a time
and up to the view's last round (a finished round never changes), so it stands on the same snapshot. Every view is
made in a computing process of its own, leaderboard and standings rendered into bytes there too: the server's
process only swaps in the finished view, so no request waits behind the interpreter's lock while a round is read,
rated or rendered. `Served` holds the views with the rest the app's handlers read.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import threading
import time
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from arena.isolation.limits import die_with
from arena.league import load_settings
from arena.league.catalog import BotRow, Catalog
from arena.league.companies import TablesPlayed
from arena.league.directory import LeagueDir
from arena.league.matchmaker import MATCHMAKER_REPLICATES, PAIR_COLUMNS, adjacent_pairs
from arena.league.play import league_parts
from arena.league.season import closing_time
from arena.league.standings import RatingHistory, head_to_head, settled_tiers, snapshot, with_bots
from arena.ratings.looks import standings
from arena.ratings.tables import RunningRatings
from arena.results import RATED_COLUMNS
from arena.server.final import FinalView, final_digest, read_final
from arena.server.render import prerendered

if TYPE_CHECKING:
    from anyio import CapacityLimiter
    from starlette.requests import Request

    from arena.league.settings import UploadLimits
    from arena.server.player import PlayLoop

GAME_COLUMNS = ["game_index", "variant", "players", "scores", "ranks", "termination", "fault_seat", "fault", "round"]
"""The columns of the games a bot page lists (its recent games and its forfeits)."""
RECENT_GAMES = 20
"""Games on a bot's page, newest first."""
HISTORY_POINTS = 60
"""Points of rating history computed for the rounds a server finds when it starts (every k-th round)."""
DEFERRED_HISTORY_GAMES = 100_000
"""A server's first look leaves the history's first points to its next look where the rounds they are fitted on
(those the league's history file does not keep) hold more games than this: at a million games they took 203 s,
and the standings alone 21 s. Below, one look makes both, as a small league's first page shows its history."""


@dataclass(frozen=True)
class RoundSpan:
    """A finished round as a view holds it: where its games are and when it ended. Its plan and config stay in the
    catalog, read a page at a time for the round log: held for every round, they grew a served million-game league
    by 45 kB a round."""

    number: int
    first_index: int
    games: int
    finished: str | None

    @property
    def end_index(self) -> int:
        return self.first_index + self.games


@dataclass(frozen=True)
class View:
    """The league as of one catalog snapshot: its bots, its finished rounds and what is computed from them."""

    name: str
    version: int = 0
    """Counts the views of this server: a page that shows this one has nothing to fetch."""
    bots: list[BotRow] = field(default_factory=list)
    rounds: list[RoundSpan] = field(default_factory=list)
    """The finished rounds, in order."""
    rated: dict = field(default_factory=dict)
    """The rating tables (arena.ratings.tables.VariantRatings) by variant."""
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    """Each variant's standing table, as `arena league table` has it."""
    history: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=RatingHistory.COLUMNS))
    adjacent: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=PAIR_COLUMNS))
    """Each adjacent pair of each variant as `arena league table --pairs` has it: the look and the rule the play loop
    stops on."""
    recent: pa.Table | None = None
    """Each bot's RECENT_GAMES latest games of the finished rounds (GAME_COLUMNS and the bot's label as `bot`), in
    game-index order: one Arrow table, which the server takes in a millisecond (a pandas frame a bot took 18)."""
    faulted: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=GAME_COLUMNS))
    """Every game of the finished rounds that a seat forfeited, in game-index order."""
    waiting: dict[str, str] = field(default_factory=dict)
    """Each variant that no table can be filled for, with why (`waiting_variants`)."""
    rendered: dict = field(default_factory=dict)
    """This view's pages and answers as (bytes, ETag) by key: the leaderboard and the standings rendered with the
    view, in the computing process; other pages added the first time they are asked for."""
    closes: datetime | None = None
    """When entries close or closed (arena/league/season.py), if they do."""
    final: FinalView | None = None
    """The season's final, once `arena league final` has finished it."""
    uploads: bool = True
    """Whether the league takes entrants' uploads: it plays its bots in the sandbox."""

    @property
    def game_count(self) -> int:
        """Games of the finished rounds."""
        return sum(r.games for r in self.rounds)

    def bot(self, label: str) -> BotRow | None:
        """The bot of this label, or None."""
        return next((b for b in self.bots if b.label == label), None)

    def standings(self) -> dict[str, list[dict]]:
        """Each variant's rows as `arena league table --format json` gives them (NaN as null)."""
        return {variant: json.loads(frame.to_json(orient="records", double_precision=10))
                for variant, frame in self.frames.items()}

    def bot_games(self, label: str, games: pd.DataFrame | None = None) -> pd.DataFrame:
        """The bot's latest games (or those of `games` it played), newest first, with its own seat, score and place
        (1: first; the ranks count from 0)."""
        if games is None:
            games = self.faulted.iloc[:0] if self.recent is None else self.recent.filter(
                pc.equal(self.recent.column("bot"), label)).drop_columns(["bot"]).to_pandas()
        if games.empty:
            return games.assign(seat=[], score=[], place=[])
        seats = games["players"].map(lambda players: list(players).index(label) if label in players else -1)
        mine = games[seats >= 0].assign(seat=seats[seats >= 0])
        mine = mine.assign(score=[s[i] for s, i in zip(mine["scores"], mine["seat"], strict=True)],
                           place=[r[i] + 1 for r, i in zip(mine["ranks"], mine["seat"], strict=True)])
        return mine.iloc[::-1]

    def forfeits(self, label: str) -> pd.DataFrame:
        """The bot's forfeited games (it was the seat at fault), newest first, with the reason."""
        mine = self.bot_games(label, self.faulted)
        return mine[mine["fault_seat"].notna() & (mine["fault_seat"] == mine["seat"])]

    def pairs(self, label: str) -> dict[str, pd.DataFrame]:
        """Head-to-head against every opponent, by variant: the rating tables' pairings seen from the bot."""
        return head_to_head(self.rated, label)

    def neighbours(self, label: str) -> dict[str, pd.DataFrame]:
        """The adjacent pairs the bot is in (the one above it and the one below), by variant."""
        mine = self.adjacent[(self.adjacent["bot"] == label) | (self.adjacent["next"] == label)]
        return {variant: rows for variant, rows in mine.groupby("variant", sort=False)}

    @property
    def closed(self) -> bool:
        """Whether entries have closed by now."""
        return self.closes is not None and self.closes <= datetime.now(UTC)

    @property
    def entries_open(self) -> bool:
        """Whether entrants may upload now (the pages link to `/enter` while they may)."""
        return self.uploads and not self.closed

    @property
    def last_round(self) -> int:
        """The number of the last finished round of this view (0: none): pages of the round log read from the
        catalog stop there, so that they stand on this view's snapshot too."""
        return self.rounds[-1].number if self.rounds else 0


class LeagueViews:
    """The current `View` of a league directory, replaced by a new one when the catalog shows a round finished
    or the bots changed: the standings are computed once per finished round, never once per request. The view is
    made in a computing process (`make_view`); this object only holds it."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.settings = load_settings(self.directory)
        self.current = View(self.settings.name)
        self.cost = 0.0
        """CPU seconds the computing process spent on the last look (the refresher waits in proportion)."""
        self.lock = threading.Lock()
        """One refresh at a time (the refresher thread, the play loop's end and a test's `refresh()`)."""
        self.pool: ProcessPoolExecutor | None = None
        self.pid: int | None = None
        """The computing process's pid: a stopping server kills it rather than wait for a look to end (a look at a
        million games took a minute)."""
        self._start()  # `arena league serve` makes its views first, while it is one thread that listens on nothing

    def _start(self) -> None:
        """Starts the computing process. Forked where this process runs one thread (a server that neither listens,
        holds the play lock nor serves yet), it starts with pandas, pyarrow and the ratings loaded: spawned, it
        imported them again, 1.2 CPU-s of every server's start. Anywhere else (a replacement, among the server's
        threads; a test process) it is spawned: a fork copies whatever another thread holds locked."""
        context = "fork" if threading.active_count() == 1 else "spawn"
        self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context(context),
                                        initializer=computing_process, initargs=(os.getpid(),))
        self.pid = self.pool.submit(os.getpid).result()

    def refresh(self, history: bool = True) -> View:
        """Has the computing process look at the catalog once and, if a round finished or a bot changed, make a
        new view; swaps it in. Returns the current view. `history=False`: the history's first points wait for the
        next look (`make_view`)."""
        with self.lock:
            known = self.current.rounds
            made, self.cost = self._compute(self.current.version, len(known), history)
            if made is not None:  # it sent only the rounds this view does not have: the log of a long league
                self.current = replace(made, rounds=known + made.rounds)  # took the server 8 ms to take whole
            return self.current

    def _compute(self, version: int, known: int, history: bool) -> tuple[View | None, float]:
        for attempt in (1, 2):  # a computing process that died is replaced once, its view made again
            if self.pool is None:
                self._start()
            try:
                return self.pool.submit(make_view, str(self.directory), version, known, history).result()
            except BrokenProcessPool:
                self.pool = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Ends the computing process, at once: a look under way is lost (the next server makes it again)."""
        if self.pool is not None:
            if self.pid is not None:
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.pool.shutdown(cancel_futures=True)
            self.pool = None


@dataclass(frozen=True)
class Served:
    """What the handlers of `arena league serve` read, made once by the app's lifespan (arena/server/app.py) and
    reached through `served(request)`."""

    views: LeagueViews
    """The league's current view, swapped in by the refresher."""
    loop: PlayLoop | None
    """The play loop (None: `--no-play`)."""
    upload_limits: UploadLimits
    """What an upload may weigh and how many an entrant may send (the league's settings when the server started)."""
    hashing: CapacityLimiter
    """The tokens checked at once (arena/server/upload_routes.py): a limiter of the server's event loop, made in it."""
    replays: OrderedDict[tuple, str] = field(default_factory=OrderedDict)
    """The last replay pages made, by (of the final, the final's digest, game index), oldest first."""

    @property
    def directory(self) -> Path:
        """The league's directory."""
        return self.views.directory


def served(request: Request) -> Served:
    """What the server's handlers read: the `Served` its lifespan made."""
    return request.state.served


COMPUTE_NICENESS = 10
"""The computing process yields the cores to the requests and to play: standings a little late cost less than
answers kept waiting or games not played."""


def computing_process(parent: int) -> None:
    """Sets up the computing process: it dies with the server and runs at a lower priority."""
    die_with(parent)
    os.nice(COMPUTE_NICENESS)


@dataclass
class _Making:
    """In the computing process: what a league's views are made from, kept between looks."""

    ratings: RunningRatings
    history: RatingHistory
    looks: RunningRatings
    """The same games in running ratings of the matchmaker's replicates: its look, for the adjacent pairs."""
    tallies: TablesPlayed = field(default_factory=TablesPlayed)
    """The tables of the rounds read so far, from their plans."""
    key: tuple = ()
    last_round: int = 0
    recent: dict[str, pa.Table] = field(default_factory=dict)
    """Each bot's latest games so far (a league of a million games is not held in memory, only these)."""
    faulted: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=GAME_COLUMNS))
    final: FinalView | None = None
    """The finished final, rated once for its digest."""


_leagues: dict[str, _Making] = {}
"""In the computing process: each league's state, kept between looks."""


def waiting_variants(settings, bots: list[BotRow]) -> dict[str, str]:
    """The variants that fewer active bots play than a table seats, each with why: shown on `/`, never silently
    absent."""
    from arena.games import get_game, make_rules

    waiting = {}
    for entry in settings.games:
        game = get_game(entry.game)
        seats = game.players(make_rules(game.Rules, entry.rules))
        playing = sum(1 for b in bots if b.status == "active" and entry.game in b.games)
        if playing < seats:
            waiting[entry.label] = (f"a table seats {seats} bots, and {playing} active "
                                    f"bot{'' if playing == 1 else 's'} play{'s' if playing == 1 else ''} {entry.game}")
    return waiting


def make_view(directory: str, version: int, known: int = 0, history: bool = True) -> tuple[View | None, float]:
    """In the computing process: one look at the catalog; if a round finished or a bot changed since the last
    look, the new view (numbered after `version`, the server's current one) with its leaderboard and standings
    rendered, its `rounds` only those after the `known` first (the server has those), else None; and the CPU
    seconds the look took, but for the history's first points. Only the rounds finished since the last look are
    read: the running sums take them, and the tables are the fit of those sums, each fit started from the last
    one's (the tables of rating every game again, as `arena league table` does, within the fit's tolerance).

    With `history=False`, the history's first points (up to HISTORY_POINTS fits of the rounds found, less those its
    file keeps) are left to the next look where they are dear (DEFERRED_HISTORY_GAMES), so that a server answers
    with the standings first. They are not counted in the seconds returned, which space the looks: counted, the
    look after them would have waited 19 minutes at a million games."""
    started = time.process_time()
    try:
        return _look(directory, version, known, started, history)
    except BaseException:  # the running sums may hold part of the new rounds: the next look reads every round again
        _leagues.pop(directory, None)
        raise


def _look(directory: str, version: int, known: int, started: float, history: bool) -> tuple[View | None, float]:
    league = LeagueDir(directory)  # one a look: league.toml read once by all that the look reads
    bots, rounds = snapshot(league, light=True)  # a look a second: the rounds' plans are not read
    making = _leagues.get(directory)
    if making is None:
        settings = load_settings(league)
        making = _leagues[directory] = _Making(RunningRatings(settings.ratings, progress=False, warm=True),
                                               RatingHistory(league, kept=True),
                                               RunningRatings(settings.ratings, replicates=MATCHMAKER_REPLICATES,
                                                              progress=False))
    catching_up = bool(rounds) and making.history.last_round == 0  # the history has read no round yet
    deferred = catching_up and not history and sum(
        r.games for r in rounds if r.number > making.history.fitted) > DEFERRED_HISTORY_GAMES
    closes, digest = closing_time(league), final_digest(league)
    if digest != (making.final.digest if making.final else None):  # a final finished (or played again) since
        making.final = read_final(league, bots)
    key = (tuple(r.number for r in rounds), tuple((b.label, b.status) for b in bots), closes, digest,
           closes is not None and closes <= datetime.now(UTC))  # a closing time passing changes the pages
    if key == making.key and version > 0 and not (catching_up and history):
        return None, time.process_time() - started
    new = [r for r in rounds if r.number > making.last_round]
    for part in league_parts(league, new, GAME_COLUMNS + [c for c in RATED_COLUMNS if c not in GAME_COLUMNS]):
        making.ratings.add(part.select(RATED_COLUMNS))
        making.looks.add(part.select(RATED_COLUMNS))
        _take(making, part.select(GAME_COLUMNS))
    if new:  # their plans, which the light snapshot leaves out
        catalog = Catalog(league)
        try:
            making.tallies.add(catalog.finished_rounds(making.last_round, new[-1].number))
        finally:
            catalog.close()
    making.last_round = max((r.number for r in new), default=making.last_round)
    # a point of history is a fit: at most HISTORY_POINTS for the rounds found at the start (those kept in the
    # league's history file are not fitted again), then one a look, the standings' own fit. The looks are spaced by
    # their cost, so a second point a look (a second fit) would space them twice as far for as many points.
    rated = making.ratings.tables() if rounds else {}
    unpaced = 0.0
    if not deferred:
        before = time.process_time()
        making.history.add(rounds, points=HISTORY_POINTS if catching_up else 1, latest=rated)
        unpaced = time.process_time() - before if catching_up else 0.0
    recent = pa.concat_tables([games.append_column("bot", pa.array([label] * games.num_rows, pa.string()))
                               for label, games in making.recent.items()]) if making.recent else None
    spans = [RoundSpan(r.number, r.first_index, r.games, r.finished) for r in rounds]
    final = making.final and replace(making.final, frames=with_bots(making.final.rated, bots))  # statuses of now
    settings = load_settings(league)
    adjacent = adjacent_pairs(settings, bots, standings(making.looks) if rounds else {}, making.tallies)
    view = View(settings.name, version + 1, bots, spans, rated, settled_tiers(with_bots(rated, bots), adjacent),
                making.history.frame(), adjacent, recent, making.faulted, closes=closes, final=final,
                waiting=waiting_variants(settings, bots), uploads=settings.isolation == "sandbox")
    view.rendered.update(prerendered(view))
    making.key = key
    return replace(view, rounds=spans[known:]), time.process_time() - started - unpaced


def _take(making: _Making, part: pa.Table) -> None:
    """Keeps of a part's games (in game-index order, after those taken before) each bot's RECENT_GAMES latest and
    every forfeited one: a pass over the seats in Arrow, no loop in Python over the games."""
    players = part.column("players").combine_chunks()
    seats = pd.DataFrame({"bot": pc.list_flatten(players).to_numpy(zero_copy_only=False),
                          "row": pc.list_parent_indices(players).to_numpy()})
    latest = seats.groupby("bot", sort=False).tail(RECENT_GAMES)
    for label, rows in latest.groupby("bot", sort=False)["row"]:
        games = part.take(pa.array(rows.to_numpy()))
        before = making.recent.get(label)
        if before is not None:
            games = pa.concat_tables([before, games])
        making.recent[label] = games.slice(max(0, games.num_rows - RECENT_GAMES)).combine_chunks()
    faulted = part.filter(pc.is_valid(part.column("fault_seat")))
    if faulted.num_rows:
        found = faulted.to_pandas()
        making.faulted = found if making.faulted.empty else pd.concat([making.faulted, found], ignore_index=True)
