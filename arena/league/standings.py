"""The league's standing tables: the rating tables of `arena ratings` over every game of the finished rounds,
each bot's row with its version, status and when it was added; and its rating as the league grew.

A reader takes one catalog snapshot and reads the parts of the rounds it lists as done: what `play` writes
meanwhile (the parts of a round not yet finished) is not read, so the tables always stand on whole rounds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from arena.atomic import write_atomic
from arena.league import load_settings
from arena.league.catalog import BotRow, Catalog, RoundRow
from arena.league.directory import LeagueDir
from arena.league.play import league_parts
from arena.ratings.variants import of_game, select
from arena.results import RATED_COLUMNS

HISTORY_REPLICATES = 20
"""Bootstrap replicates of each point of `--history` (its mu needs none; its table is only the mu)."""


def snapshot(directory: LeagueDir | Path, light: bool = False) -> tuple[list[BotRow], list[RoundRow]]:
    """The bots and the finished rounds, as one committed state of the catalog; `light`: the rounds without their
    config and plan (`Catalog.rounds`)."""
    catalog = Catalog(directory)
    try:
        with catalog.snapshot():
            return catalog.bots(), [r for r in catalog.rounds(light) if r.status == "done"]
    finally:
        catalog.close()


def league_ratings(directory: LeagueDir | Path, rounds: list[RoundRow] | None = None,
                   replicates: int | None = None) -> dict:
    """The rating tables (arena.ratings.tables.VariantRatings by variant) of the games of `rounds` (default:
    every finished round). The functions here take a LeagueDir (or a folder): given one, its settings are read once
    for all of them."""
    from arena.ratings.tables import rate_parts

    settings = load_settings(directory)
    if rounds is None:
        rounds = snapshot(directory)[1]
    options = {} if replicates is None else {"replicates": replicates}
    return rate_parts(league_parts(directory, rounds, RATED_COLUMNS), settings.ratings, **options)


def standing_frames(directory: LeagueDir | Path, game: str | None = None,
                    taken: tuple[list[BotRow], list[RoundRow]] | None = None,
                    pairs: pd.DataFrame | None = None) -> tuple[dict, dict[str, pd.DataFrame]]:
    """The ratings by variant and each variant's table with the bot's version, status and added date beside it and
    its tiers by the settled rule (`settled_tiers`, on `pairs`, the `pair_frame` of the same snapshot, made here if not
    given), from the catalog `snapshot` given (`taken`), or one taken now."""
    directory = LeagueDir.of(directory)  # its settings read once for the ratings and the pairs
    bots, rounds = taken = taken or snapshot(directory)
    rated = select(league_ratings(directory, rounds), game) if rounds else {}
    if pairs is None:
        pairs = pair_frame(directory, game, taken)
    return rated, settled_tiers(with_bots(rated, bots), pairs)


def settled_tiers(frames: dict[str, pd.DataFrame], pairs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Each variant's table (of `frames`) with its rank and tier from the league's settled rule (`pairs`, the
    `pair_frame` of the same games): a new tier begins at an active bot exactly where its pair with the active bot
    above it is settled as separated. A league is looked at every round, and tiers by a fixed 95% interval, looked at
    that often, part equal bots sooner or later: the rule's anytime-valid interval does not, and it is what the
    league stops on. A pair still open or settled as a tie shares a tier; a retired bot, which the league no longer
    plays, shares the tier of the bot above it. A one-off tournament's tables keep their fixed 95% tiers."""
    from arena.ratings.bootstrap import tier_labels

    separated = {(p.variant, frozenset((p.bot, p.next))) for p in pairs.itertuples() if p.settled == "separated"}
    shown = {}
    for variant, frame in frames.items():
        active = set(pairs.loc[pairs["variant"] == variant, ["bot", "next"]].to_numpy().ravel())
        starts, above = [], None
        for bot in frame["bot"]:
            starts.append((variant, frozenset((above, bot))) in separated)  # only active bots' pairs are in it
            above = bot if bot in active else above
        table = frame.copy()
        table["rank"], table["tier"] = tier_labels(starts)
        shown[variant] = table
    return shown


def pair_frame(directory: LeagueDir | Path, game: str | None = None,
               taken: tuple[list[BotRow], list[RoundRow]] | None = None) -> pd.DataFrame:
    """Each adjacent pair of each variant's active bots, its difference, interval and whether it is settled, by the
    look and the rule of the matchmaker's `--until settled` (`arena.league.matchmaker.adjacent_pairs`): the finished
    rounds' games in running ratings of the matchmaker's replicates, the tables counted from the rounds' plans."""
    from arena.league.companies import TablesPlayed
    from arena.league.matchmaker import MATCHMAKER_REPLICATES, adjacent_pairs
    from arena.ratings.looks import standings
    from arena.ratings.tables import RunningRatings

    bots, rounds = taken or snapshot(directory)
    settings = load_settings(directory)
    select({g.label: g for g in settings.games}, game)  # a game the league does not play: one line naming those it does
    running = RunningRatings(settings.ratings, replicates=MATCHMAKER_REPLICATES, progress=False)
    for part in league_parts(directory, rounds, RATED_COLUMNS):
        running.add(part)
    tallies = TablesPlayed()
    tallies.add(rounds)
    return adjacent_pairs(settings, bots, standings(running), tallies, game)


def with_bots(rated: dict, bots: list[BotRow]) -> dict[str, pd.DataFrame]:
    """Each variant's rating table (of `rated`, VariantRatings by variant) with each bot's version, status and
    added date beside its name."""
    by_label = {b.label: b for b in bots}
    frames = {}
    for variant, ratings in rated.items():
        table = ratings.table.copy()
        position = table.columns.get_loc("bot") + 1
        table.insert(position, "version", [by_label[b].version if b in by_label else 0 for b in table["bot"]])
        table.insert(position + 1, "status", [by_label[b].status if b in by_label else "" for b in table["bot"]])
        table.insert(position + 2, "added", [by_label[b].added if b in by_label else "" for b in table["bot"]])
        frames[variant] = table
    return frames


def versions(bots: list[BotRow], label: str) -> list[BotRow]:
    """Every version of the bot of `label` (the bots of its name), in the catalog's order."""
    name = next(b.name for b in bots if b.label == label)
    return [b for b in bots if b.name == name]


def head_to_head(rated: dict, label: str) -> dict[str, pd.DataFrame]:
    """The bot against every opponent, by variant (of `rated`, VariantRatings by variant): the rating tables'
    pairings seen from the bot, in the variants it was rated in."""
    found = {}
    for variant, ratings in rated.items():
        mine = ratings.pairs[ratings.pairs["bot"] == label]
        if not mine.empty:
            found[variant] = mine
    return found


def history_frame(directory: LeagueDir | Path, game: str | None = None) -> pd.DataFrame:
    """Each bot's mu after each finished round (columns round, variant, bot, mu, sigma, games): the rounds added
    one by one to running ratings, as the matchmaker's looks take them, not every earlier round read again."""
    history = RatingHistory(directory)
    history.add(snapshot(directory)[1])
    return history.frame(game)


class RatingHistory:
    """Each bot's rating after each finished round, kept up to date a round at a time: `arena league table
    --history` reads every round once, and `arena league serve` adds only the rounds finished since its last
    look."""

    COLUMNS = ["round", "variant", "bot", "mu", "sigma", "games"]

    def __init__(self, directory: LeagueDir | Path, kept: bool = False) -> None:
        from arena.ratings.tables import RunningRatings

        self.directory = LeagueDir.of(directory)
        self.running = RunningRatings(load_settings(self.directory).ratings, replicates=HISTORY_REPLICATES,
                                      progress=False, warm=True)  # a point's fit starts from the last point's
        self.rows: list[tuple] = []
        self.last_round = 0
        """The last round added: rounds finish in order, so those up to it are in."""
        self.path = self.directory.history if kept else None
        """With `kept`, the points are read from and written to the league's history file: each is a fit of every
        bot, and a server restarted on a long league fitted 60 of them again before it answered."""
        self.fitted = 0
        """Rounds up to this one have their points in the history file: only their games are added again."""
        if self.path is not None and self.path.exists():
            found = json.loads(self.path.read_text())
            self.rows = [tuple(row) for row in found["rows"]]
            self.fitted = found["last_round"]

    def add(self, rounds: list[RoundRow], points: int | None = None, latest: dict | None = None) -> None:
        """Adds the finished rounds not yet added (in round order, as the running ratings need game order), with a
        point after each; with `points`, after every k-th of them and the last, at most `points` points (each
        point is a fit: a server that meets a long league, or rounds that finish faster than it looks, thins
        them). Rounds whose points were kept are only read into the running sums. `latest`: the rating tables of the
        games of all of `rounds`, if the caller has them; the last point takes its rows from them instead of a fit of
        its own (a fit's mu, sigma and games do not depend on its bootstrap replicates)."""
        new = [r for r in sorted(rounds, key=lambda r: r.number) if r.number > self.last_round]
        fresh = [r for r in new if r.number > self.fitted]
        every = max(1, -(-len(fresh) // points)) if points else 1
        ending = {r.end_index: (k, r) for k, r in enumerate(fresh, 1) if r.games}
        # one pass over the parts of all the new rounds (a compacted part holds many), a point where a round ends
        for part in league_parts(self.directory, new, RATED_COLUMNS, by_round=True):
            self.running.add(part)
            k, round_ = ending.get(part.column("game_index")[-1].as_py() + 1, (0, None))
            if round_ is not None and (k % every == 0 or k == len(fresh)):
                tables = latest if latest is not None and k == len(fresh) else self.running.tables()
                for variant, rated in tables.items():
                    for row in rated.table.itertuples(index=False):
                        self.rows.append((round_.number, variant, row.bot, float(row.mu), float(row.sigma),
                                          int(row.games)))
        if new:
            self.last_round = new[-1].number
        if fresh and self.path is not None:
            self.fitted = self.last_round
            write_atomic(self.path, json.dumps({"last_round": self.fitted, "rows": self.rows}).encode())

    def frame(self, game: str | None = None) -> pd.DataFrame:
        """The history so far, of every variant or only those of `game` (a game id or variant label)."""
        rows = [r for r in self.rows if of_game(r[1], game)]
        return pd.DataFrame(rows, columns=self.COLUMNS)
