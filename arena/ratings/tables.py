"""The rating tables of a run's results, variant by variant: ratings, tiers, and deal-level statistics.

Per variant: TrueSkill (batch, order-free, by default; or the package's online pass), every bot's
win rate and mean score, each pairing's record and rating difference, the seat advantage, and for
two-player variants the pentanomial counts and duplicate score difference of deal pairs. Every
interval counts deals, not games: all rotations of a deal share its cards (`arena.ratings.deals`),
and rating intervals come from a Poisson bootstrap of whole deals: in each replicate every deal counts
a Poisson(1) number of times, drawn from a hash of a fixed seed, the replicate and the deal's seed, so
the same results always give the same table, whatever their order; each replicate is refitted, or for
many outcome groups taken one Newton step from the fit (`_bootstrap`). Bots not separated at 95% share a
tier. A Plackett-Luce fit of the same games cross-checks the order.

The results are read once, a part at a time in game-index order (`rate_parts`), and never held whole.
Every statistic is a sum over deals, and the games of one deal (its seat rotations) are consecutive in
game-index order: each part adds its whole deals to running sums (outcome-group counts, clustered
sums, pentanomial counts) and holds back its last deal, which the next part may continue. Only the
online pass goes game by game, its ratings carried from part to part. Memory depends on the bots and
the outcome groups, and for the deal bootstrap 8 bytes a game (its group and its deal) and a deal's
key: a replicate's weight of each group is summed deal by deal only once the fit is known.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from scipy import sparse, special

from arena.config import RatingSettings
from arena.ratings.batch import NewtonTerms, Outcomes, group_outcomes, newton_terms, outcome_keys, rate_outcomes
from arena.ratings.deals import (
    PENTANOMIAL_KEYS,
    Z95,
    ClusteredMean,
    PairedDifference,
    Pentanomial,
    _grown,
    poisson_weights,
)
from arena.ratings.online import _rate_codes
from arena.ratings.plackett_luce import order_disagreements, plackett_luce

BOOTSTRAP_REPLICATES = 200
"""Deal-bootstrap replicates behind every rating interval, LOS and tier."""
BOOTSTRAP_SEED = 20261123
"""Fixed, so the same results give the same intervals bit for bit."""
SEPARATED = 0.975
"""Likelihood of superiority at which two adjacent bots are separated: the 95% two-sided interval of
their rating difference excludes zero."""
PROGRESS_POINTS = 12
"""Checkpoints of the estimate-against-deals chart."""
BOOTSTRAP_DEALS = 8192
"""Deals whose bootstrap weights are drawn at once (a few MB), however many a variant has."""
ADD_GAMES = 65536
"""Games (of whole deals) added to the running sums at once: a six-player game has 30 ordered pairs, so the
temporaries of a million games at once would take gigabytes."""
EP_BOOTSTRAP_SEATS = 2400
"""Outcome groups times seats up to which every bootstrap replicate is refitted by EP (at 200 replicates,
up to about half a second); beyond, the replicates are a Newton step from the fit."""

TABLE_COLUMNS = ["rank", "tier", "bot", "mu", "sigma", "mu_lo", "mu_hi", "conservative", "games", "deals", "wins",
                 "win_rate", "win_rate_lo", "win_rate_hi", "mean_score", "mean_score_lo", "mean_score_hi",
                 "forfeits", "pl_rank"]
PAIR_COLUMNS = ["bot", "opponent", "games", "deals", "win_rate", "win_rate_lo", "win_rate_hi", "mu_diff",
                "mu_diff_lo", "mu_diff_hi", "los"]
DUPLICATE_COLUMNS = ["bot", "opponent", "deals", *PENTANOMIAL_KEYS, "score", "score_lo", "score_hi", "score_diff",
                     "score_diff_lo", "score_diff_hi", "incomplete"]
NEIGHBOUR_COLUMNS = ["bot", "before", "games", "deals", "win_rate", "win_rate_lo", "win_rate_hi", "mean_score",
                     "mean_score_lo", "mean_score_hi"]
REQUIRED_COLUMNS = ["game_index", "variant", "players", "ranks"]
"""What rating needs of the results; `scores`, `fault_seat`, `seed` (the deal's key, else every game is its own
deal) and `deal` (the estimate against deals) are read when present."""


@dataclass
class VariantRatings:
    """The ratings of one variant and the statistics beside them."""

    table: pd.DataFrame
    """Columns TABLE_COLUMNS, best first: rank is the tier's label (`1`, `2=`, `2=`)."""
    pairs: pd.DataFrame
    """Columns PAIR_COLUMNS: every ordered pairing that met (win rate: bot ranked above opponent, ties
    half), its rating difference with a deal-bootstrap interval, and los = P(bot is the better)."""
    seats: pd.DataFrame
    """Columns seat, games, deals, win_rate(_lo/_hi), mean_score(_lo/_hi)."""
    neighbours: pd.DataFrame | None = None
    """Three or more players: NEIGHBOUR_COLUMNS, each bot's record by the bot seated right before it (who
    moves just before it), in table order."""
    duplicate: pd.DataFrame | None = None
    """Two-player variants: DUPLICATE_COLUMNS per pairing (bot above opponent in the table)."""
    progress: pd.DataFrame | None = None
    """Columns deals, bot, mu, mu_lo, mu_hi: the batch estimate on the first `deals` deals of every table."""
    disagreements: list[str] = field(default_factory=list)
    """Where the Plackett-Luce order differs from the table's."""
    method: str = "batch"
    difference_se: np.ndarray | None = None
    """(bots, bots) in table order: the deal-bootstrap standard error of each rating difference."""

    @property
    def pairwise(self) -> pd.DataFrame:
        """The pairs' win rates as a square matrix in table order (NaN where two bots never met)."""
        order = list(self.table["bot"])
        return self.pairs.pivot(index="bot", columns="opponent", values="win_rate").reindex(index=order, columns=order)


# --- entry points -----------------------------------------------------------------------------------

def rate_parts(parts: Iterable[pa.Table], settings: RatingSettings | None = None, *,
               replicates: int = BOOTSTRAP_REPLICATES,
               deals: Mapping[str, int] | None = None) -> dict[str, VariantRatings]:
    """Rates results given as Arrow tables (or record batches) in game-index order, one at a time; tables
    keyed by variant name, in name order.

    `deals`: per variant, one more than its largest deal number (`deal_counts`), which places the
    checkpoints of the estimate against deals; a variant without it gets no such estimate.

    A deal is known by its seed. Its games may lie anywhere within one part, but a deal carries over
    into the next part only as the last game's deal, as a run's schedule makes it (its rotations are
    consecutive in game-index order); a deal seen again later would be counted as a second deal.
    """
    running = RunningRatings(settings, replicates=replicates, deals=deals)
    for part in parts:
        running.add(part)
    return running.tables()


class RunningRatings:
    """`rate_parts` kept open: parts are added as they come (in game-index order) and the tables asked for at any
    time. A look then costs the new games and the fit, not a second pass over the earlier games: a league's
    matchmaker looks after every round."""

    def __init__(self, settings: RatingSettings | None = None, *, replicates: int = BOOTSTRAP_REPLICATES,
                 deals: Mapping[str, int] | None = None) -> None:
        self.settings, self.replicates, self.deals = settings or RatingSettings(), replicates, deals or {}
        self.variants: dict[str, _Variant] = {}
        self.last_index = None

    def add(self, part: pa.Table) -> None:
        _check_columns(part.schema.names)
        if not part.num_rows:
            return
        indices = _array(part, "game_index").to_numpy(zero_copy_only=False)
        if (np.diff(indices) < 0).any() or (self.last_index is not None and indices[0] < self.last_index):
            raise ValueError("results must come in game-index order")
        self.last_index = indices[-1]
        for variant, seated in _split_by_variant(part):
            if variant not in self.variants:
                self.variants[variant] = _Variant(self.settings, self.replicates, self.deals.get(variant))
            with _naming(variant):
                self.variants[variant].feed(seated)

    def tables(self) -> dict[str, VariantRatings]:
        """The tables of the games so far, keyed by variant name, in name order. A deal is complete once asked
        for: a later part must not continue it (as a round of whole deals never does)."""
        rated = {}
        for variant in sorted(self.variants):
            with _naming(variant):
                rated[variant] = self.variants[variant].finish()
        return rated


def rate_results(df: pd.DataFrame, settings: RatingSettings | None = None, *,
                 replicates: int = BOOTSTRAP_REPLICATES) -> dict[str, VariantRatings]:
    """Rates a results frame (rows in any order) variant by variant; tables keyed by variant name, in name order."""
    _check_columns(df.columns)
    rows = df if df["game_index"].is_monotonic_increasing else df.sort_values("game_index", kind="stable")
    table = pa.table({name: _as_arrow(rows[name]) for name in rows.columns if name in _READ_COLUMNS})
    return rate_parts([table], settings, replicates=replicates, deals=deal_counts([table]))


def rate_run(run, method: str | None = None) -> dict[str, VariantRatings]:
    """Rates a run directory from its result parts, part by part, with its config's settings."""
    import dataclasses
    import tomllib

    from arena.config import rating_settings
    from arena.results import RATED_COLUMNS, iter_results

    settings = rating_settings(tomllib.loads(run.config.read_text()).get("ratings", {}))
    if method is not None:
        settings = dataclasses.replace(settings, method=method)
    deals = deal_counts(iter_results(run, ["variant", "deal"]))
    return rate_parts(iter_results(run, RATED_COLUMNS), settings, deals=deals)


def deal_counts(parts: Iterable[pa.Table]) -> dict[str, int]:
    """Per variant, one more than its largest deal number (none without a `deal` column): a cheap first
    pass over two small columns, for `rate_parts`."""
    counts: dict[str, int] = {}
    for part in parts:
        if not part.num_rows or "deal" not in part.schema.names:
            continue
        variant = _array(part, "variant").dictionary_encode()
        largest = np.full(len(variant.dictionary), -1, dtype=np.int64)
        np.maximum.at(largest, variant.indices.to_numpy(zero_copy_only=False),
                      _array(part, "deal").to_numpy(zero_copy_only=False).astype(np.int64))
        for name, value in zip(variant.dictionary.to_pylist(), largest.tolist(), strict=True):
            counts[name] = max(counts.get(name, 0), value + 1)
    return counts


@contextmanager
def _naming(variant: str):
    """Puts the variant's name in front of a rating error raised inside."""
    try:
        yield
    except (FloatingPointError, ZeroDivisionError, ValueError) as error:
        raise type(error)(f"variant {variant}: {error}") from error


# --- reading parts --------------------------------------------------------------------------------

_READ_COLUMNS = {*REQUIRED_COLUMNS, "scores", "fault_seat", "seed", "deal"}


def _check_columns(names) -> None:
    """Raises ValueError unless the columns rating needs are among `names`."""
    missing = set(REQUIRED_COLUMNS) - set(names)
    if missing:
        raise ValueError(f"results frame lacks column(s) {', '.join(sorted(missing))}")


def _as_arrow(column: pd.Series) -> pa.Array:
    """A frame's column as one Arrow array (lists of lists, numpy arrays or Arrow lists alike)."""
    array = pa.array(column)
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _array(table, name: str) -> pa.Array:
    """A column of a table or record batch as one Arrow array, dictionary-encoded strings decoded."""
    column = table.column(name)
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    return column.dictionary_decode() if pa.types.is_dictionary(column.type) else column


def _list_column(array: pa.Array, name: str) -> tuple[np.ndarray, pa.Array]:
    """(lengths, flattened values) of a column of lists."""
    if not pa.types.is_list(array.type) and not pa.types.is_large_list(array.type):
        if len(array) and array.null_count < len(array):
            raise ValueError(f"column {name} must hold lists, not {array.type}")
        array = pa.array([[]] * len(array), pa.list_(pa.int64()))  # empty or all-missing column
    return pc.list_value_length(array).to_numpy(zero_copy_only=False).astype(np.int64), pc.list_flatten(array)


@dataclass(frozen=True)
class _Seated:
    """The games of one variant in one part, in game-index order, flattened to one entry per seat."""

    sizes: np.ndarray  # seats per game
    player: np.ndarray  # per seat: code into `names`
    names: list[str]
    rank: np.ndarray
    score: np.ndarray
    fault: np.ndarray  # per seat: True when this seat was the game's fault_seat
    key: np.ndarray  # per game: its deal's key (the deal seed; the game index when unknown)
    deal: np.ndarray | None  # per game: its deal number, when known


def _split_by_variant(table) -> Iterator[tuple[str, _Seated]]:
    """One part's games by variant, checking that players, scores and ranks agree."""
    columns = table.schema.names
    sizes, players = _list_column(_array(table, "players"), "players")
    rank_sizes, ranks = _list_column(_array(table, "ranks"), "ranks")
    if not np.array_equal(sizes, rank_sizes):
        raise ValueError("players and ranks differ in length")
    if "scores" in columns:
        score_sizes, scores = _list_column(_array(table, "scores"), "scores")
        if not np.array_equal(sizes, score_sizes):
            raise ValueError("players and scores differ in length")
        score = scores.to_numpy(zero_copy_only=False).astype(np.float64)
    else:
        score = np.full(int(sizes.sum()), np.nan)
    encoded = players.dictionary_encode()
    player = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    names = encoded.dictionary.to_pylist()
    rank = ranks.to_numpy(zero_copy_only=False).astype(np.int64)
    game = np.repeat(np.arange(len(sizes)), sizes)
    if "fault_seat" in columns:
        fault_seat = pc.cast(_array(table, "fault_seat"), pa.float64()).to_numpy(zero_copy_only=False)
        fault = fault_seat[game] == np.arange(len(game)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    else:
        fault = np.zeros(len(game), dtype=bool)
    # All rotations of a deal share its seed (and only they do): the seed is the deal's key.
    key = _array(table, "seed" if "seed" in columns else "game_index").to_numpy(zero_copy_only=False)
    key = key.astype(np.int64)
    deal = _array(table, "deal").to_numpy(zero_copy_only=False).astype(np.int64) if "deal" in columns else None
    variant = _array(table, "variant").dictionary_encode()
    variants = variant.dictionary.to_pylist()
    if len(variants) == 1:
        yield str(variants[0]), _Seated(sizes, player, names, rank, score, fault, key, deal)
        return
    codes = variant.indices.to_numpy(zero_copy_only=False)
    for code, name in enumerate(variants):
        games = codes == code
        seats = games[game]
        yield str(name), _Seated(sizes[games], player[seats], names, rank[seats], score[seats], fault[seats],
                                 key[games], None if deal is None else deal[games])


# --- one variant's running sums ---------------------------------------------------------------------

@dataclass(frozen=True)
class _Games:
    """Games of one variant in game-index order, one row per game and one column per seat."""

    bots: np.ndarray  # bot codes, in order of the bots' first appearance
    ranks: np.ndarray
    scores: np.ndarray
    fault: np.ndarray
    key: np.ndarray  # (games,) the deal's key
    deal: np.ndarray | None  # (games,) the deal number

    def __len__(self) -> int:
        return len(self.key)

    def select(self, rows: np.ndarray | slice) -> _Games:
        """The games that `rows` (a boolean mask or a slice) picks, in their order."""
        return _Games(self.bots[rows], self.ranks[rows], self.scores[rows], self.fault[rows], self.key[rows],
                      None if self.deal is None else self.deal[rows])

    def then(self, later: _Games) -> _Games:
        """These games followed by `later`."""
        joined = lambda mine, theirs: np.concatenate([mine, theirs])
        return _Games(joined(self.bots, later.bots), joined(self.ranks, later.ranks),
                      joined(self.scores, later.scores), joined(self.fault, later.fault), joined(self.key, later.key),
                      None if self.deal is None or later.deal is None else joined(self.deal, later.deal))


def _pair_code(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A code for each ordered pair of bot codes that does not change as bots are added (Szudzik's pairing:
    the pairs of bots 0..k-1 take codes 0..k^2-1)."""
    return np.where(a >= b, a * a + a + b, b * b + a)


def _progress_points(deals: int) -> np.ndarray:
    """The checkpoints of the estimate against deals: PROGRESS_POINTS numbers of deals, evenly up to all."""
    return np.unique(np.linspace(1, deals, min(deals, PROGRESS_POINTS)).round().astype(np.int64))


class _OutcomeGroups:
    """A variant's outcome groups found so far (bots in first-appearance codes), each with its games and its
    games by the first progress checkpoint that counts them; and every game's group and deal."""

    def __init__(self, replicates: int, points: np.ndarray | None) -> None:
        self.replicates, self.points = replicates, points
        self.bots = np.zeros((0, 0), dtype=np.int64)
        self.drawn = np.zeros((0, 0), dtype=bool)
        self.base = 0
        """Outcome keys (`outcome_keys`) take bot codes below this power of two."""
        self.keys = np.zeros(0, dtype=np.int64)
        """The groups' keys, sorted, and the group of each."""
        self.key_groups = np.zeros(0, dtype=np.int64)
        self.counts = np.zeros(0)
        self.game_groups: list[np.ndarray] = []
        self.game_deals: list[np.ndarray] = []
        """Per part, every game's group and deal (numbered from 0 over all the parts)."""
        self.deal_keys: list[np.ndarray] = []
        self.progress = None if points is None else np.zeros((0, len(points) + 1), dtype=np.int64)

    def add(self, bots: np.ndarray, ranks: np.ndarray, deal: np.ndarray, deal_keys: np.ndarray,
            deal_numbers: np.ndarray | None) -> None:
        """Adds games of whole deals: `deal` numbers the deals 0.., `deal_keys` are their keys."""
        local = group_outcomes(bots, ranks)
        rows = self._rows(local.bots, local.drawn)
        size = len(self.bots)
        self.counts = _grown(self.counts, size)
        self.counts[rows] += local.counts
        self.game_groups.append(rows[local.game_group].astype(np.int32))
        self.game_deals.append((deal + sum(map(len, self.deal_keys))).astype(np.int32))
        self.deal_keys.append(deal_keys)
        if self.progress is not None and deal_numbers is None:
            self.progress = None
        if self.progress is not None:
            checkpoint = np.searchsorted(self.points, deal_numbers, side="right")  # counted from this one on
            width = len(self.points) + 1
            self.progress = _grown(self.progress, size)
            self.progress[rows] += np.bincount(local.game_group * width + checkpoint,
                                               minlength=len(rows) * width).reshape(-1, width)

    def _rows(self, bots: np.ndarray, drawn: np.ndarray) -> np.ndarray:
        """The group of each of these distinct outcomes, new ones added: a sorted search of their keys."""
        if not len(self.bots):
            self.bots, self.drawn = bots[:0], drawn[:0]
        base = max(self.base, 1 << int(bots.max(initial=0)).bit_length())  # a power of two: rarely re-keyed
        keys = outcome_keys(bots, drawn, base)
        if keys is None or base != self.base:  # the stored groups' keys change
            if keys is None:  # too many bots for an int64 per outcome: the outcomes numbered in order instead
                rows = np.concatenate([np.concatenate([self.bots, bots]), np.concatenate([self.drawn, drawn])], axis=1)
                numbers = np.unique(rows, axis=0, return_inverse=True)[1].reshape(-1)
                stored, keys = numbers[:len(self.bots)], numbers[len(self.bots):]
            else:
                stored = outcome_keys(self.bots, self.drawn, base)
            self.base, self.key_groups = base, np.argsort(stored)
            self.keys = stored[self.key_groups]
        at = np.searchsorted(self.keys, keys)
        found = self.keys[np.minimum(at, len(self.keys) - 1)] == keys if len(self.keys) else np.zeros(len(keys), bool)
        groups = np.empty(len(keys), dtype=np.int64)
        groups[found] = self.key_groups[at[found]]
        new = np.flatnonzero(~found)
        new = new[np.argsort(keys[new])]  # in key order, so that their places in the sorted keys ascend
        groups[new] = len(self.bots) + np.arange(len(new))
        self.bots, self.drawn = np.concatenate([self.bots, bots[new]]), np.concatenate([self.drawn, drawn[new]])
        self.keys = np.insert(self.keys, at[new], keys[new])
        self.key_groups = np.insert(self.key_groups, at[new], groups[new])
        return groups

    def outcomes(self, name_code: np.ndarray) -> tuple[Outcomes, _DealGames, np.ndarray | None]:
        """The groups in bot codes by name and in the canonical order of `group_outcomes` (so that the ratings
        do not depend on the order of the games): the outcomes, their games by deal and their games before
        each progress checkpoint (checkpoints, groups)."""
        bots, drawn = name_code[self.bots], self.drawn
        ranks = np.concatenate([np.zeros((len(bots), 1), np.int64), np.cumsum(~drawn, axis=1)], axis=1)
        canonical = group_outcomes(bots, ranks)  # tied bots reordered by their new codes
        place = canonical.game_group
        counts = np.empty_like(self.counts)
        counts[place] = self.counts
        progress = None
        if self.progress is not None:
            progress = np.empty_like(self.progress)
            progress[place] = self.progress
            progress = np.cumsum(progress, axis=1)[:, :-1].T.astype(np.float64)
        keys = np.concatenate(self.deal_keys) if self.deal_keys else np.zeros(0, np.int64)
        by_key = np.argsort(keys, kind="stable")  # deals in key order: sums that do not depend on the games' order
        position = np.empty(len(keys), dtype=np.int64)
        position[by_key] = np.arange(len(keys))
        game_deals = position[np.concatenate(self.game_deals)] if self.game_deals else np.zeros(0, np.int64)
        game_groups = place[np.concatenate(self.game_groups)] if self.game_groups else np.zeros(0, np.int64)
        games = sparse.csr_matrix((np.ones(len(game_deals)), (game_deals, game_groups)), shape=(len(keys), len(bots)))
        return Outcomes(canonical.bots, canonical.drawn, counts), _DealGames(games, keys[by_key]), progress


@dataclass(frozen=True)
class _DealGames:
    """A variant's games by deal, for the deal bootstrap."""

    games: sparse.csr_matrix
    """(deals, groups) each deal's games in each outcome group"""
    keys: np.ndarray
    """(deals,) each deal's key, which draws its bootstrap weights"""

    def weighted(self, per_deal, replicates: int) -> np.ndarray:
        """(replicates, columns): the rows of `per_deal` (deals, columns; dense or sparse), each deal's row
        counted its Poisson weight times in each replicate, BOOTSTRAP_DEALS deals at a time."""
        out = np.zeros((replicates, per_deal.shape[1]))
        for first in range(0, len(self.keys) if replicates else 0, BOOTSTRAP_DEALS):
            last = min(first + BOOTSTRAP_DEALS, len(self.keys))
            weights = poisson_weights(self.keys[first:last], replicates, BOOTSTRAP_SEED).astype(np.float64)
            out += np.asarray(per_deal[first:last].T @ weights).T
        return out


class _Variant:
    """The running sums of one variant's tables, fed its games in game-index order."""

    def __init__(self, settings: RatingSettings, replicates: int, deals: int | None) -> None:
        self.settings, self.replicates = settings, replicates
        self.codes: dict[str, int] = {}
        """Bot name -> code, in order of first appearance."""
        self.seats: int | None = None
        self.games = 0
        self.held: _Games | None = None
        """The last deal fed so far, which the next part may continue."""
        self.groups = _OutcomeGroups(replicates, None if deals is None else _progress_points(deals))
        self.online = ([], []) if settings.method == "online" else None
        """The online pass's mu and sigma lists by bot code, carried from part to part."""
        self.win, self.score, self.pairs = ClusteredMean(), ClusteredMean(), ClusteredMean()
        self.seat_win, self.seat_score = ClusteredMean(), ClusteredMean()
        self.after_win, self.after_score = ClusteredMean(), ClusteredMean()
        """By (bot, the bot in the seat before), three or more players."""
        self.wins, self.forfeits = np.zeros(0, np.int64), np.zeros(0, np.int64)
        self.pentanomial, self.margin = Pentanomial(), PairedDifference()

    def feed(self, seated: _Seated) -> None:
        """Adds the variant's games of one part, holding back its last deal (which the next part may continue)."""
        games = self._games(seated)
        if self.online is not None:  # the online pass goes game by game, in game-index order
            _rate_codes(np.full(len(games), self.seats), games.bots.reshape(-1), games.ranks.reshape(-1),
                        len(self.codes), self.settings, False, ratings=self.online, games_before=self.games)
        self.games += len(games)
        if self.held is not None:
            games = self.held.then(games)
        last = games.key == games.key[-1]
        tail = int(np.flatnonzero(~last)[-1]) + 1 if not last.all() else 0
        if last[:tail].any():  # the last deal also has games further up: take them out wherever they are
            self.held, whole = games.select(last), games.select(~last)
        else:  # as in a run's parts, the last deal is the tail: no copy
            self.held, whole = games.select(slice(tail, None)), games.select(slice(0, tail))
        if len(whole):
            self._add(whole)

    def _games(self, seated: _Seated) -> _Games:
        """A part's games as rows of seats, bots in this variant's codes; checks their shape."""
        n = int(seated.sizes[0])
        if (seated.sizes != n).any() or (self.seats is not None and n != self.seats):
            raise ValueError("games of one variant must all have the same number of players")
        if n < 2:
            raise ValueError("every game needs at least two players")
        self.seats = n
        present = np.unique(seated.player)
        code = np.zeros(len(seated.names), dtype=np.int64)
        code[present] = [self.codes.setdefault(seated.names[i], len(self.codes)) for i in present.tolist()]
        bots = code[seated.player].reshape(-1, n)
        in_order = np.sort(bots, axis=1)
        if (in_order[:, 1:] == in_order[:, :-1]).any():
            raise ValueError("a bot sits more than once at one game")
        return _Games(bots, seated.rank.reshape(-1, n), seated.score.reshape(-1, n), seated.fault.reshape(-1, n),
                      seated.key, seated.deal)

    def _add(self, games: _Games) -> None:
        """Adds games of whole deals (in any order) to every order-free running sum, ADD_GAMES at most at once."""
        if len(games) <= ADD_GAMES:
            self._add_deals(games)
            return
        deal = np.unique(games.key, return_inverse=True)[1].reshape(-1)
        step = max(1, ADD_GAMES * int(deal.max() + 1) // len(games))  # deals in about ADD_GAMES games
        for first in range(0, int(deal.max()) + 1, step):
            self._add_deals(games.select((deal >= first) & (deal < first + step)))

    def _add_deals(self, games: _Games) -> None:
        """`_add` of a slice of whole deals."""
        count, n = games.bots.shape
        k = len(self.codes)
        deal_keys, deal = np.unique(games.key, return_inverse=True)  # the deals numbered 0.. by key
        self.groups.add(games.bots, games.ranks, deal, deal_keys, games.deal)
        bots, ranks = games.bots.reshape(-1), games.ranks.reshape(-1)
        seat_deal = np.repeat(deal, n)
        won = ranks == 0
        self.win.add(won, bots, seat_deal)
        self.score.add(games.scores.reshape(-1), bots, seat_deal)
        self.wins = _grown(self.wins, k) + np.bincount(bots, weights=won, minlength=k).astype(np.int64)
        self.forfeits = (_grown(self.forfeits, k)
                         + np.bincount(bots, weights=games.fault.reshape(-1), minlength=k).astype(np.int64))
        i, j = (a.reshape(-1) for a in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
        i, j = i[i != j], j[i != j]
        r_i, r_j = games.ranks[:, i], games.ranks[:, j]
        self.pairs.add(((r_i < r_j) + 0.5 * (r_i == r_j)).reshape(-1),
                       _pair_code(games.bots[:, i], games.bots[:, j]).reshape(-1), np.repeat(deal, len(i)))
        seat = np.tile(np.arange(n), count)
        self.seat_win.add(won, seat, seat_deal)
        self.seat_score.add(games.scores.reshape(-1), seat, seat_deal)
        if n > 2:
            before = _pair_code(bots, np.roll(games.bots, 1, axis=1).reshape(-1))
            self.after_win.add(won, before, seat_deal)
            self.after_score.add(games.scores.reshape(-1), before, seat_deal)
        if n == 2:  # seen from the bot with the smaller code; turned to the table's order at the end
            rows = np.arange(count)
            first = np.where(games.bots[:, 0] < games.bots[:, 1], 0, 1)
            low, high = games.bots[rows, first], games.bots[rows, 1 - first]
            rank_low, rank_high = games.ranks[rows, first], games.ranks[rows, 1 - first]
            pairing = _pair_code(low, high)
            self.pentanomial.add((rank_low < rank_high) + 0.5 * (rank_low == rank_high), pairing, deal)
            self.margin.add(games.scores[rows, first] - games.scores[rows, 1 - first], pairing, deal)

    def finish(self) -> VariantRatings:
        """The tables, once every game is in."""
        if self.held is not None and len(self.held):
            self._add(self.held)
        self.held = None
        return self._tables()

    def _tables(self) -> VariantRatings:
        """The tables from the sums: the ratings first, since the order of the table orients the pairings."""
        settings, n = self.settings, self.seats
        # Bots are numbered in the order of their names, so the numbering never depends on the order of the rows.
        names = np.array(sorted(self.codes), dtype=object)
        k = len(names)
        code_of = np.array([self.codes[name] for name in names], dtype=np.int64)  # by name -> first appearance
        name_code = np.empty(k, dtype=np.int64)
        name_code[code_of] = np.arange(k)

        outcomes, deal_games, progress_weights = self.groups.outcomes(name_code)
        batch = rate_outcomes(outcomes, k, settings)
        # Many groups: every weighting is a Newton step from the fit, whose terms serve them all.
        newton = newton_terms(outcomes, k, settings, batch) if outcomes.bots.size > EP_BOOTSTRAP_SEATS else None
        boot = _bootstrap(outcomes, deal_games, self.replicates, k, settings, batch, newton)
        if self.online is not None:
            mu, sigma = np.array(self.online[0])[code_of], np.array(self.online[1])[code_of]
            half = Z95 * sigma  # the package's own sigma: the online pass has no deal-level interval
            order = np.lexsort((names.astype(str), -(mu - 3 * sigma)))
        else:
            mu, sigma = batch.mu[0], batch.sigma[0]
            half = Z95 * boot.std(axis=0, ddof=1)
            order = np.lexsort((names.astype(str), -mu))
        diff_se = _difference_se(boot)
        los = _los(mu, diff_se)
        labels, tiers = _tiers(order, los)

        win = self.win.take(code_of).result(proportion=True)
        score = self.score.take(code_of).result()
        strengths = plackett_luce(outcomes.bots, outcomes.drawn, outcomes.counts, k)
        pl_rank = np.empty(k, dtype=np.int64)
        pl_rank[np.lexsort((names.astype(str), -strengths))] = np.arange(1, k + 1)
        table = pd.DataFrame({
            "rank": labels, "tier": tiers, "bot": names, "mu": mu, "sigma": sigma,
            "mu_lo": mu - half, "mu_hi": mu + half, "conservative": mu - 3 * sigma, "games": win["n"],
            "deals": win["units"], "wins": _grown(self.wins, k)[code_of], "win_rate": win["mean"],
            "win_rate_lo": win["lo"], "win_rate_hi": win["hi"], "mean_score": score["mean"],
            "mean_score_lo": score["lo"], "mean_score_hi": score["hi"],
            "forfeits": _grown(self.forfeits, k)[code_of], "pl_rank": pl_rank,
        }).iloc[order].reset_index(drop=True)[TABLE_COLUMNS]
        disagreements = order_disagreements(list(names), list(table["bot"]), dict(zip(names, strengths, strict=True)))
        a, b = np.divmod(np.arange(k * k), k)  # every ordered pair of bots, in codes by name
        pairs = self.pairs.take(_pair_code(code_of[a], code_of[b])).result(proportion=True)
        return VariantRatings(
            table, _pairs(pairs, names, order, mu, diff_se, los),
            _seat_table(self.seat_win.take(np.arange(n)).result(proportion=True),
                        self.seat_score.take(np.arange(n)).result()),
            self._neighbours(names, code_of, order) if n > 2 else None,
            self._duplicate(names, code_of, order) if n == 2 else None,
            _progress(outcomes, self.groups.points, progress_weights, names, k, settings, batch, boot, newton),
            disagreements, settings.method, diff_se[np.ix_(order, order)])

    def _neighbours(self, names, code_of, order) -> pd.DataFrame:
        """Each bot's win rate and mean score by the bot seated right before it, with deal-clustered intervals."""
        k = len(names)
        position = np.empty(k, dtype=np.int64)
        position[order] = np.arange(k)
        a, b = np.divmod(np.arange(k * k), k)
        pairing = _pair_code(code_of[a], code_of[b])
        win = self.after_win.take(pairing).result(proportion=True)
        score = self.after_score.take(pairing).result()
        frame = pd.DataFrame({"bot": names[a], "before": names[b], "games": win["n"], "deals": win["units"],
                              "win_rate": win["mean"], "win_rate_lo": win["lo"], "win_rate_hi": win["hi"],
                              "mean_score": score["mean"], "mean_score_lo": score["lo"],
                              "mean_score_hi": score["hi"], "_a": position[a], "_b": position[b]})[win["n"] > 0]
        return frame.sort_values(["_a", "_b"]).drop(columns=["_a", "_b"]).reset_index(drop=True)[NEIGHBOUR_COLUMNS]

    def _duplicate(self, names, code_of, order) -> pd.DataFrame:
        """Two-player pairings on duplicate deals, seen from the bot higher in the table: pentanomial counts
        and the duplicate score difference."""
        k = len(names)
        position = np.empty(k, dtype=np.int64)
        position[order] = np.arange(k)
        a, b = np.divmod(np.arange(k * k), k)
        pairing = _pair_code(np.minimum(code_of[a], code_of[b]), np.maximum(code_of[a], code_of[b]))
        flip = code_of[a] > code_of[b]  # summed from b's side
        penta = self.pentanomial.take(pairing, flip).result()
        margin = self.margin.take(pairing, flip).result()
        frame = pd.DataFrame({"bot": names[a], "opponent": names[b], "deals": penta["deals"],
                              **{key: penta[key] for key in PENTANOMIAL_KEYS},
                              "score": penta["score"], "score_lo": penta["score_lo"], "score_hi": penta["score_hi"],
                              "score_diff": margin["mean"], "score_diff_lo": margin["lo"],
                              "score_diff_hi": margin["hi"], "incomplete": penta["incomplete"],
                              "_a": position[a], "_b": position[b]})
        met = (position[a] < position[b]) & (penta["deals"] + penta["incomplete"] > 0)
        frame = frame[met]
        return frame.sort_values(["_a", "_b"]).drop(columns=["_a", "_b"]).reset_index(drop=True)[DUPLICATE_COLUMNS]


# --- from the sums to the tables -------------------------------------------------------------------

def _bootstrap(outcomes: Outcomes, deal_games: _DealGames, replicates: int, k: int, settings: RatingSettings,
               batch, newton: NewtonTerms | None) -> np.ndarray:
    """Batch mu of every bot in each deal-bootstrap replicate: (replicates, bots).

    Each replicate is refitted by EP where that is cheap (EP_BOOTSTRAP_SEATS), else taken one Newton step
    from the fit (`newton`): the large-sample limit of the refit, and within a few percent of its standard
    errors even at a few thousand games (test_newton_replicates_are_the_refitted_ones). A Newton step is
    linear in the weights, so it needs no replicate's weight of each group: only each deal's sums."""
    groups, n = outcomes.bots.shape
    if newton is not None:
        per_deal = (deal_games.games @ newton.per_group).toarray()  # (deals, 2 bots)
        return newton.step(deal_games.weighted(per_deal, replicates))[0]
    weights = deal_games.weighted(deal_games.games, replicates)
    chunk = max(1, min(32, 4_000_000 // (groups * n)))  # replicates rated together, within a few hundred MB
    rows = [rate_outcomes(outcomes, k, settings, weights[start:start + chunk], start=batch).mu
            for start in range(0, len(weights), chunk)]
    return np.concatenate(rows) if rows else np.zeros((0, k))


def _difference_se(boot: np.ndarray) -> np.ndarray:
    """(bots, bots) bootstrap standard error of every rating difference."""
    if len(boot) < 2:
        return np.full((boot.shape[1],) * 2, np.nan)
    return np.std(boot[:, :, None] - boot[:, None, :], axis=0, ddof=1)


def _los(mu: np.ndarray, diff_se: np.ndarray) -> np.ndarray:
    """(bots, bots) likelihood of superiority: P(row bot is better than column bot), normal approximation."""
    diff = mu[:, None] - mu[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        los = special.ndtr(diff / diff_se)
    los = np.where(diff_se > 0, los, np.where(diff > 0, 1.0, np.where(diff < 0, 0.0, 0.5)))
    np.fill_diagonal(los, np.nan)
    return los


def _tiers(order: np.ndarray, los: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank labels and tier numbers by bot code: a bot not separated from the one above it shares its tier."""
    labels = np.empty(len(order), dtype=object)
    tiers = np.zeros(len(order), dtype=np.int64)
    members: list[list[int]] = []
    for position, bot in enumerate(order):
        if position and not los[order[position - 1], bot] >= SEPARATED:
            members[-1].append(bot)
        else:
            members.append([bot])
    position = 1
    for number, tier in enumerate(members, 1):
        for bot in tier:
            labels[bot] = f"{position}=" if len(tier) > 1 else str(position)
            tiers[bot] = number
        position += len(tier)
    return labels, tiers


def _pairs(stats: dict, names, order, mu, diff_se, los) -> pd.DataFrame:
    """Every ordered pairing that met: record with a deal-clustered interval, rating difference, LOS."""
    k = len(names)
    position = np.empty(k, dtype=np.int64)
    position[order] = np.arange(k)
    a, b = np.divmod(np.arange(k * k), k)
    met = stats["n"] > 0
    diff = (mu[:, None] - mu[None, :]).reshape(-1)
    half = Z95 * diff_se.reshape(-1)
    frame = pd.DataFrame({
        "bot": names[a], "opponent": names[b], "games": stats["n"],
        "deals": stats["units"], "win_rate": stats["mean"], "win_rate_lo": stats["lo"], "win_rate_hi": stats["hi"],
        "mu_diff": diff, "mu_diff_lo": diff - half, "mu_diff_hi": diff + half, "los": los.reshape(-1),
        "_a": position[a], "_b": position[b]})[met]
    return frame.sort_values(["_a", "_b"]).drop(columns=["_a", "_b"]).reset_index(drop=True)[PAIR_COLUMNS]


def _seat_table(win: dict, score: dict) -> pd.DataFrame:
    """Win rate and mean score by seat, with deal-clustered intervals."""
    return pd.DataFrame({"seat": np.arange(len(win["n"])), "games": win["n"], "deals": win["units"],
                         "win_rate": win["mean"], "win_rate_lo": win["lo"], "win_rate_hi": win["hi"],
                         "mean_score": score["mean"], "mean_score_lo": score["lo"], "mean_score_hi": score["hi"]})


def _progress(outcomes: Outcomes, points: np.ndarray | None, weights: np.ndarray | None, names, k: int,
              settings: RatingSettings, batch, boot: np.ndarray, newton: NewtonTerms | None) -> pd.DataFrame | None:
    """The batch estimate on the first d deals of every table, at each checkpoint d (`weights`: the groups'
    games before each).

    The interval at each point is the model's sigma widened by the full run's design effect (the
    bootstrap standard error over the posterior sigma), so it counts deals as the final one does."""
    if points is None or weights is None:
        return None
    if newton is not None:  # as in `_bootstrap`: a Newton step from the fit
        mu, sigma = newton.replicates(weights, own_curvature=True)
    else:
        rated = rate_outcomes(outcomes, k, settings, weights, start=batch)
        mu, sigma = rated.mu, rated.sigma
    widen = boot.std(axis=0, ddof=1) / batch.sigma[0] if len(boot) > 1 else np.ones(k)
    half = Z95 * sigma * widen
    return pd.DataFrame({"deals": np.repeat(points, k), "bot": np.tile(names, len(points)),
                         "mu": mu.reshape(-1), "mu_lo": (mu - half).reshape(-1), "mu_hi": (mu + half).reshape(-1)})


def csv_frames(ratings: dict[str, VariantRatings]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """ratings.csv (the tables, a variant column first) and summary.csv (pairs, seats, duplicate deal
    pairs and the estimate against deals, told apart by a kind column)."""
    tables = [r.table.assign(variant=v) for v, r in ratings.items()]
    parts = []
    for variant, rated in ratings.items():
        for kind, frame in (("pair", rated.pairs), ("seat", rated.seats), ("neighbour", rated.neighbours),
                            ("duplicate", rated.duplicate),
                            ("progress", rated.progress)):
            if frame is not None:
                parts.append(frame.assign(variant=variant, kind=kind))
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=["variant", *TABLE_COLUMNS])
    summary = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["variant", "kind"])
    first = ["variant", "kind"]
    return (table[["variant", *TABLE_COLUMNS]],
            summary[first + [c for c in summary.columns if c not in first]])
