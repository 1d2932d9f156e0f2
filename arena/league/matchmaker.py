"""The matchmaker: a planner whose every step is a league round, an ordinary tournament config of the tables
it chose, one `[[games]]` entry a table.

What it chooses, variant by variant, from the catalog and the results so far (never from the clock, the
workers or the order in which batches finished, so the same adds and retires give the same games):

1. A newcomer (a bot with fewer than `placement` tables in the variant) plays its placement tables first:
   table k of P seats it with the bots around the (k + 1/2) / P quantile of the field's rating order, so it
   meets the strong, the middling and the weak.
2. Then, while it has played fewer than `placement + 2` tables, the tables of the pairs it forms with its
   neighbours in the rating order, which settle where it stands.
3. Then the tables of the open adjacent pairs (not settled, `variant_look`) weighed by what the play is for. Playing
   a budget, the pairs whose order is least certain: each is weighed by the chance that it stands in the wrong order
   (`Look.wrong_order`, by the plain standard error; the wider among equals), which falls with every table the pair
   plays: the anytime-valid interval decides when a pair is settled, not which to play. With `until_settled`, the
   pairs furthest from settled: each is weighed by its interval's half-width over the one that would settle it
   (`Look.to_settle`). Either way a pair held open by the companies one of it has not met comes first,
   as a newcomer's neighbours do. A settled pair weighs nothing while any pair is open;
   once all are settled, the pairs are weighed by their standard error alone. At three or more players a
   pair's table is filled from the 2 (players - 2) bots nearest it in the order: the company given fewest
   tables, the nearest among equals. A settling newcomer's pairs, and one more pair a round, play a swapped
   table where one lags: of the companies one of the two met that the other met less (up to
   `company_deals` deals), the one nearest the pair, with the other in its place, so that a late-comer meets
   the company its neighbour met (the ratings weigh companies alike up to that cap, `arena.ratings.company`).

It stops when the budget of games is spent (a round is cut to the tables that fit, never played in part),
or, with `until_settled`, when every adjacent pair of every variant is settled (`variant_look`): the one rule that
`arena league table --pairs` and the server's pages show.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations, pairwise

import pyarrow as pa
import pyarrow.compute as pc
from scipy import special

from arena.config import parse_config
from arena.league.catalog import BotRow, Catalog, RoundRow
from arena.league.companies import Companies, TablesPlayed, bots_at, company_coverage, near_seats, swapped_company
from arena.league.rounds import Table, round_config
from arena.league.settings import LeagueSettings
from arena.ratings.looks import anytime_halfwidth, standings
from arena.ratings.tables import RunningRatings
from arena.results import RATED_COLUMNS
from arena.seeds import derive_seed
from arena.tournament.plan import Range, Step

MATCHMAKER_REPLICATES = 100
"""Deal-bootstrap replicates of the ratings the matchmaker looks at (the standing table uses the default)."""
COVERED = 0.9
"""At three or more players a pair is settled only once the companies near it are this well met (`company_coverage`)."""
COVERAGE_FLOOR = 0.1
"""The share of its companies' games a pair's difference counts at least (its standard error is divided by the square
root of the share met): a pair that met none of them is told apart no faster than with a tenth of its games."""


@dataclass
class Look:
    """Where one variant stands: its bots in rating order and each adjacent pair's state (`variant_look`), the pair
    i being order[i] above order[i + 1]."""

    order: list[str]
    los: list[float] = field(default_factory=list)
    se: list[float] = field(default_factory=list)
    """The standard error of each pair's difference, widened by the companies one of the pair has not met."""
    settled: list[bool] = field(default_factory=list)
    diff: list[float] = field(default_factory=list)
    """mu of the upper minus mu of the lower (NaN where either is unrated)."""
    half: list[float] = field(default_factory=list)
    """The half-width of each pair's anytime-valid interval (`anytime_halfwidth`)."""
    coverage: list[float] = field(default_factory=list)
    """How well each pair met the companies near it (`company_coverage`; 1 at two players)."""

    def verdict(self, i: int) -> str:
        """"separated", "tie" or "no" for the pair i."""
        if not self.settled[i]:
            return "no"
        return "separated" if self.diff[i] - self.half[i] > 0 else "tie"

    def wrong_order(self, i: int) -> float:
        """The chance that the pair i stands in the wrong order (1 - LOS, by the plain standard error): what the
        matchmaker weighs an open pair by while it plays a budget, to order the field with the games it has. The
        stop needs the anytime interval, but this choice need not: weighed by how far that wide interval was from
        settling them, pairs far apart and sure of their order took the tables the close pairs needed
        (docs/benchmarks.md)."""
        return min(self.los[i], 1 - self.los[i])

    def to_settle(self, i: int, margin: float) -> float:
        """How far the pair i is from settling: its interval's half-width over the one that would settle it (its
        distance from zero, or from the tie margin, whichever is further): what the matchmaker weighs an open pair
        by when it plays until settled. Twins near a tie and a close pair of unequal bots weigh alike: weighed by
        how uncertain their order is, twins chasing a tie took every table while a late copy's pair with its
        original waited, and a league took more games to settle (docs/benchmarks.md)."""
        diff = abs(self.diff[i])
        if diff != diff:  # unrated
            return float("inf")
        return self.half[i] / max(diff, margin - diff, 1e-9)

    def lagging(self, i: int) -> bool:
        """Whether the pair i is held open by the companies one of it has not met."""
        return bool(self.coverage) and self.coverage[i] < COVERED


def variant_look(names: list[str], rated, settings: LeagueSettings, players: int, played: Counter,
                 companies: Companies) -> Look:
    """Where a variant stands: its active bots `names` in rating order (those `rated`, a `looks.Standing` or None,
    has not rated after, in the order given) and each adjacent pair's state. The one rule of a settled pair, for the
    matchmaker's stop, `arena league table --pairs` and the server's pages alike:

    - both bots have played their placement and two tables more (`played`, tables per bot);
    - at three or more players, the companies near the pair that one of it met were met as often by the other in its
      place, for at least COVERED of their games (`company_coverage`, on `companies`);
    - the anytime-valid interval of their difference (`anytime_halfwidth` at the league's confidence; its standard
      error divided by the square root of the coverage, so that it carries the companies not met) excludes zero
      (separated) or lies within +-`tie_margin` (a tie). Looked at every round, it calls two equal bots apart no
      more often than 1 - confidence however long the league runs (`tests/test_settled.py`)."""
    if rated is None:
        order, mu, se_matrix = list(names), {}, None
    else:
        ranked = [b for b in rated.bots if b in names]
        order = ranked + [b for b in names if b not in ranked]
        mu = dict(zip(rated.bots, rated.mu, strict=True))
        position = {b: i for i, b in enumerate(rated.bots)}
        se_matrix = rated.difference_se
    enough = companies.enough(players, settings.deals, settings.ratings.company_deals)
    least = -(-settings.ratings.company_deals // settings.deals)  # tables from which a company must be met
    look = Look(order)
    for i, (a, b) in enumerate(pairwise(order)):
        coverage = company_coverage(order, i, players, companies, enough, least) if players > 2 else 1.0
        if a in mu and b in mu and se_matrix is not None:
            se = float(se_matrix[position[a], position[b]]) / max(coverage, COVERAGE_FLOOR) ** 0.5
            diff = float(mu[a] - mu[b])
            los = float(special.ndtr(diff / se)) if se > 0 else 1.0
            half = anytime_halfwidth(se, settings.confidence)
            settled = (min(played[a], played[b]) >= settings.placement + 2 and coverage >= COVERED
                       and (diff - half > 0 or abs(diff) + half <= settings.tie_margin))
        else:
            se, diff, los, half, settled = settings.ratings.sigma, float("nan"), 0.5, float("inf"), False
        look.los.append(los)
        look.se.append(se)
        look.settled.append(settled)
        look.diff.append(diff)
        look.half.append(half)
        look.coverage.append(coverage)
    return look


PAIR_COLUMNS = ["variant", "bot", "next", "diff", "diff_lo", "diff_hi", "settled", "met"]
"""`arena league table --pairs`: each adjacent pair, its difference with the anytime-valid interval, whether it is
settled ("separated", "tie" or "no") and how well it met the companies near it."""


def pair_rows(label: str, look: Look) -> list[dict]:
    """The adjacent pairs of a variant's look as rows of PAIR_COLUMNS."""
    rows = []
    for i, (a, b) in enumerate(pairwise(look.order)):
        half = look.half[i] if math.isfinite(look.half[i]) else math.nan  # no bound yet: shown as a dash
        rows.append({"variant": label, "bot": a, "next": b, "diff": look.diff[i], "diff_lo": look.diff[i] - half,
                     "diff_hi": look.diff[i] + half, "settled": look.verdict(i), "met": look.coverage[i]})
    return rows


class Matchmaker:
    """The league's planner: `plan(new)` returns the next round, which it only reads the catalog to choose; the
    caller (arena/league/play.py) records it in the catalog before playing its `step`, and marks it done once
    played, so a `play` killed at any moment finishes that round first when it runs again."""

    def __init__(self, directory, settings: LeagueSettings, catalog: Catalog, *, budget: int | None = None,
                 until_settled: bool = False, rounds: int | None = None) -> None:
        self.directory, self.settings, self.catalog = directory, settings, catalog
        self.budget, self.until_settled = budget, until_settled
        self.rounds_left = rounds
        self.results: list[pa.Table] = []
        """Results handed over and not yet added to `ratings`."""
        self.ratings = RunningRatings(settings.ratings, replicates=MATCHMAKER_REPLICATES, progress=False)
        self.current: RoundRow | None = None
        self.played_now = 0
        """Games of the rounds chosen by this matchmaker (or finished by it)."""
        self.stopped = ""
        """Why it stopped (for the user)."""
        self.rounds_played: list[int] = []
        self._config = None
        """The config of the round just recorded, parsed (to check it) before it was recorded."""

    # --- the planner interface ----------------------------------------------------------------------

    def plan(self, new: pa.Table | None) -> RoundRow | None:
        """The next round, given the results of the one before (`new`): a round cut short (status "playing") to
        finish first, or a new one (status "planned", not yet in the catalog); None when there is none to play."""
        if self.current is not None:  # the round just played: its results come in its own game indices
            if new is not None and new.num_rows:
                self.played_now += new.num_rows
                shifted = pc.add(new.column("game_index"), self.current.first_index)
                self.results.append(new.select(RATED_COLUMNS).set_column(0, "game_index", shifted))
            self.rounds_played.append(self.current.number)
            self.current = None
        elif new is not None and new.num_rows:  # at the start: the games already saved, in league game indices
            self.results.append(new.select(RATED_COLUMNS))
        unfinished = [r for r in self.catalog.rounds() if r.status == "playing"]
        if unfinished:  # a round cut short: finish it before choosing another
            self.current = unfinished[0]
            return self.current
        if self.rounds_left is not None and self.rounds_left <= 0:
            self.stopped = "the rounds asked for are played"
            return None
        left = None if self.budget is None else self.budget - self.played_now
        if left is not None and left <= 0:
            self.stopped = f"the budget of {self.budget:,} games is spent"
            return None
        tables = self.choose()
        if self.until_settled and not tables:
            self.stopped = "every variant is settled"
            return None
        if not tables:
            self.stopped = "no variant has enough active bots to make a table"
            return None
        if left is not None:
            tables = self._within(tables, left)
            if not tables:
                self.stopped = f"the budget of {self.budget:,} games leaves too few for a table"
                return None
        if self.rounds_left is not None:
            self.rounds_left -= 1
        self.current = self._planned(tables)
        return self.current

    def most_games(self) -> int:
        return self.played_now + (0 if self.budget is None else max(0, self.budget - self.played_now))

    def note(self) -> str:
        return "" if self.current is None else f"round {self.current.number}"

    def played(self) -> list[Range]:
        return [(r.first_index, r.end_index) for r in self.catalog.rounds() if r.number in self.rounds_played]

    def summary(self) -> dict | None:
        return {"stopped": self.stopped, "played_now": self.played_now}

    # --- choosing -----------------------------------------------------------------------------------

    def choose(self) -> list[Table]:
        """The tables of the next round (empty with `until_settled` once everything is settled)."""
        tables: list[Table] = []
        for number, (look, players, played, companies) in enumerate(self.looks()):
            if look is not None:
                tables += [Table(number, bots, why) for bots, why in
                           self._variant_tables(look, players, played, companies)]
        return tables

    def looks(self) -> list[tuple[Look | None, int, Counter, Companies]]:
        """Each variant of the league (in its order) as (where it stands, its players, the tables each bot was given,
        the companies given), the look None where too few active bots can play it."""
        tallies = TablesPlayed()
        tallies.add(self.catalog.rounds())
        return variant_looks(self.settings, self.catalog.bots("active"), self._rate(), tallies)

    def _variant_tables(self, look: Look, players: int, played: Counter,
                        companies: Companies) -> list[tuple[tuple[str, ...], str]]:
        settings, order = self.settings, look.order
        chosen: list[tuple[tuple[str, ...], str]] = []
        newcomers = [b for b in order if played[b] < settings.placement]
        for newcomer in sorted(newcomers, key=order.index):
            field_ = [b for b in order if b not in newcomers] or [b for b in order if b != newcomer]
            if len(field_) < players - 1:
                field_ = [b for b in order if b != newcomer]
            for k in range(played[newcomer], settings.placement):
                centre = (k + 0.5) / settings.placement * len(field_) - 0.5
                near = sorted(range(len(field_)), key=lambda i: (abs(i - centre), i))[:players - 1]
                chosen.append((tuple(sorted([newcomer, *(field_[i] for i in near)])),
                               f"placement {k + 1}/{settings.placement} of {newcomer}"))
        if chosen:
            return unique_tables(chosen)
        slots = settings.tables or max(1, len(order) // players)
        weights = []
        for i in range(len(order) - 1):
            pair = (order[i], order[i + 1])
            settling = [b for b in pair if played[b] < settings.placement + 2]
            if settling:  # a newcomer's neighbours come before every other pair
                weights.append((1, 0, look.se[i], i, f"settling the neighbours of {settling[0]}"))
            elif look.lagging(i):  # and so does a pair held open by a company one of it has not met
                weights.append((1, 0, look.se[i], i, f"{look.coverage[i]:.0%} of the companies near it met"))
            elif not look.settled[i]:
                weight = look.to_settle(i, settings.tie_margin) if self.until_settled else look.wrong_order(i)
                weights.append((0, weight, look.se[i], i,
                                f"order uncertain (LOS {look.los[i]:.2f}, se {look.se[i]:.2f})"))
        if not weights:
            if self.until_settled:
                return []
            weights = [(0, 0, look.se[i], i, f"settled; widest interval (se {look.se[i]:.2f})")
                       for i in range(len(order) - 1)]
        weights.sort(key=lambda w: (-w[0], -w[1], -w[2], w[3]))  # the widest first among equals
        # At three or more players a settling newcomer's pairs, and one more pair a round, play a swapped table
        # where one lags (`swapped_company`); swapping every pair's table cost the matchmaker its lead.
        enough = companies.enough(players, settings.deals, settings.ratings.company_deals)
        free = players > 2  # the round's one swap beyond a settling newcomer's pairs is still to be played
        for settling, _, _, i, why in weights[:slots]:
            lagging = look.lagging(i)  # held open by a company not met: the swap is what settles it
            swapped = (swapped_company(order[i], order[i + 1], companies, order, enough)
                       if players > 2 and (settling or lagging or free) else None)
            if swapped is None:
                chosen.append((_table_around(order, i, players, companies.count), why))
                continue
            if not settling and not lagging:
                free = False
            table, have, lack = swapped
            chosen.append((table, f"{why}; {lack} in the company {have} met"))
        return unique_tables(chosen)

    def _rate(self) -> dict:
        """Where each variant stands after every game so far (`arena.ratings.looks`): the results handed over
        since the last look are added to the running sums (a round holds whole deals), so a look costs the new
        games and the fit (in a large league, the fit of the games since its last checkpoint)."""
        if self.results:
            table = pa.concat_tables(self.results).sort_by("game_index")
            self.results = []
            self.ratings.add(table)
        return standings(self.ratings)

    def _within(self, tables: list[Table], left: int) -> list[Table]:
        """The tables, in the order chosen, that fit in `left` games."""
        kept, games = [], 0
        for table in tables:
            cost = self.settings.deals * len(table.bots)
            if games + cost <= left:
                kept.append(table)
                games += cost
        return kept

    # --- rounds -------------------------------------------------------------------------------------

    def _planned(self, tables: list[Table]) -> RoundRow:
        rounds = self.catalog.rounds()
        number = 1 + (rounds[-1].number if rounds else 0)
        first = rounds[-1].end_index if rounds else 0
        seed = derive_seed(self.settings.seed, "round", number)
        bots = {b.label: b for b in self.catalog.bots()}
        text = round_config(self.settings, number, seed, tables, bots)
        self._config = parse_config(text, base=self.directory)  # a round that cannot be played is never recorded
        games = sum(self.settings.deals * len(t.bots) for t in tables)
        plan = [{"variant": self.settings.games[t.variant].label, "bots": list(t.bots), "why": t.why} for t in tables]
        return RoundRow(number, first, games, seed, text, plan, "planned", "", None)

    def step(self, round_: RoundRow) -> Step:
        """What the runner plays of `round_`: one game-index range a table."""
        config, self._config = self._config or parse_config(round_.config, base=self.directory), None
        tables, first = [], 0
        for game in config.games:  # one range a table, so each is cut into batches by its own pace
            size = game.deals * len(game.bots)
            tables.append((first, first + size))
            first += size
        return Step(config, tables, sized=True)


def _table_around(order: list[str], i: int, players: int, count: Counter) -> tuple[str, ...]:
    """The pair order[i], order[i + 1] and players - 2 of the 2 (players - 2) bots nearest it in the order: the
    company given fewest tables so far (`count`), the nearest among equals.

    Varying the company matters at three or more players: a bot rated out of place by the one company it keeps
    meeting meets others, and a company past the ratings' cap (`arena.ratings.company`) teaches them less."""
    distance, near = near_seats(order, i, 2 * (players - 2))
    tables = [(i, i + 1, *fill) for fill in combinations(near, players - 2)]
    best = min(tables, key=lambda seats: (count[bots_at(order, seats)], sum(distance[s] for s in seats[2:]), seats))
    return bots_at(order, best)


def variant_looks(settings: LeagueSettings, active: list[BotRow], rated: dict, tallies: TablesPlayed
                  ) -> list[tuple[Look | None, int, Counter, Companies]]:
    """Each variant of the league (in its order) as (its `variant_look`, its players, the tables each bot was given,
    the companies given), the look None where fewer active bots than its players can play it; `rated`: the
    `looks.Standing` of each variant that has games."""
    looks = []
    for game in settings.games:
        players = settings.players(game)
        played = tallies.played.get(game.label, Counter())
        companies = tallies.companies.get(game.label, Companies())
        eligible = [b.label for b in active if game.game in b.games]
        look = (variant_look(eligible, rated.get(game.label), settings, players, played, companies)
                if len(eligible) >= players else None)
        looks.append((look, players, played, companies))
    return looks


def adjacent_pairs(settings: LeagueSettings, bots: list[BotRow], rated: dict, tallies: TablesPlayed,
                   game: str | None = None):
    """Each adjacent pair of each variant (of `game` alone, a game id or variant label, if given) as the matchmaker
    looks at it, a pandas frame of PAIR_COLUMNS: what `arena league table --pairs` and the bot pages show."""
    import pandas as pd

    from arena.ratings.variants import of_game

    active = [b for b in bots if b.status == "active"]
    rows = [row for g, (look, *_) in zip(settings.games, variant_looks(settings, active, rated, tallies), strict=True)
            if look is not None and of_game(g.label, game) for row in pair_rows(g.label, look)]
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def unique_tables(tables: list[tuple[tuple[str, ...], str]]) -> list[tuple[tuple[str, ...], str]]:
    """The tables in their order, each set of bots once (the first reason kept)."""
    seen, kept = set(), []
    for bots, why in tables:
        if bots not in seen:
            seen.add(bots)
            kept.append((bots, why))
    return kept
