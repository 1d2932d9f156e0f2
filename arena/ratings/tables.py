"""The rating tables of a run's results, variant by variant: ratings, tiers, and deal-level statistics.

Per variant: TrueSkill (batch, order-free, by default; or the package's online pass), every bot's
win rate and mean score, each pairing's record and rating difference, the seat advantage, and for
two-player variants the pentanomial counts and duplicate score difference of deal pairs. Every
interval counts deals, not games: all rotations of a deal share its cards (`arena.ratings.deals`),
and rating intervals, tiers and the estimate against deals come from a Poisson bootstrap of whole deals
(`arena.ratings.bootstrap`), so the same results always give the same table, whatever their order. A
Plackett-Luce fit of the same games cross-checks the order. The parts are read by `arena.ratings.parts`.

The results are read once, a part at a time in game-index order (`rate_parts`), and never held whole.
Every statistic is a sum over deals, and the games of one deal (its seat rotations) are consecutive in
game-index order: each part adds its whole deals to running sums (outcome-group counts, clustered
sums, pentanomial counts) and holds back its last deal, which the next part may continue. Only the
online pass goes game by game, its ratings carried from part to part. Memory depends on the bots and
the outcome groups (each part's own, merged once MERGE_ROWS are held), and for the deal bootstrap 8 bytes a
game (its group and its deal) and a deal's key and number: a replicate's weight of each group is summed deal
by deal only once the fit is known, and the checkpoints of the estimate against deals are placed once every
deal is in. Small parts are taken FEED_GAMES games at a time.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from arena.config import RatingSettings
from arena.ratings.bootstrap import (
    BOOTSTRAP_REPLICATES,
    OutcomeGroups,
    deal_bootstrap,
    difference_se,
    estimate_against_deals,
    likelihood_of_superiority,
    tiers,
)
from arena.ratings.company import balanced
from arena.ratings.deals import (
    PENTANOMIAL_KEYS,
    Z95,
    ClusteredMean,
    PairedDifference,
    Pentanomial,
    grown,
)
from arena.ratings.misfit import misfits
from arena.ratings.offline import WarmStart, rate_outcomes
from arena.ratings.online import rate_codes
from arena.ratings.parts import (
    READ_COLUMNS,
    Games,
    Seated,
    as_arrow,
    check_columns,
    column_array,
    split_by_variant,
)
from arena.ratings.plackett_luce import order_disagreements, plackett_luce

ADD_GAMES = 65536
"""Games (of whole deals) added to the running sums at once: a six-player game has 15 pairs of seats, so the
temporaries of a million games at once would take gigabytes."""
FEED_GAMES = 16384
"""Games of small parts gathered before they are split by variant and summed: each step costs a few numpy calls
whatever its size, so a run's parts of 2,000 games are taken ten at a time (a million six-player games are
rated in 2 s less, `benchmarks/ratings.py --only run`)."""

TABLE_COLUMNS = ["rank", "tier", "bot", "mu", "sigma", "mu_lo", "mu_hi", "conservative", "games", "deals", "wins",
                 "win_rate", "win_rate_lo", "win_rate_hi", "mean_score", "mean_score_lo", "mean_score_hi",
                 "forfeits", "pl_rank"]
PAIR_COLUMNS = ["bot", "opponent", "games", "deals", "win_rate", "win_rate_lo", "win_rate_hi", "mu_diff",
                "mu_diff_lo", "mu_diff_hi", "los"]
DUPLICATE_COLUMNS = ["bot", "opponent", "deals", *PENTANOMIAL_KEYS, "score", "score_lo", "score_hi", "score_diff",
                     "score_diff_lo", "score_diff_hi", "incomplete"]
NEIGHBOUR_COLUMNS = ["bot", "before", "games", "deals", "win_rate", "win_rate_lo", "win_rate_hi", "mean_score",
                     "mean_score_lo", "mean_score_hi"]


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
    misfits: list[str] = field(default_factory=list)
    """Pairs that shared many tables whose record there the ratings do not predict (`misfits`)."""
    company_balanced: bool = False
    """Whether the fit weighed companies (`arena.ratings.company`): three or more players, some company over
    `company_deals` deals and the companies played unequally often."""

    @property
    def pairwise(self) -> pd.DataFrame:
        """The pairs' win rates as a square matrix in table order (NaN where two bots never met)."""
        order = list(self.table["bot"])
        return self.pairs.pivot(index="bot", columns="opponent", values="win_rate").reindex(index=order, columns=order)


# --- entry points -----------------------------------------------------------------------------------

def rate_parts(parts: Iterable[pa.Table], settings: RatingSettings | None = None, *,
               replicates: int = BOOTSTRAP_REPLICATES, progress: bool = True) -> dict[str, VariantRatings]:
    """Rates results given as Arrow tables (or record batches) in game-index order, one at a time; tables
    keyed by variant name, in name order.

    `progress`: the estimate against deals too (for games with a `deal` column), one more fit.

    A deal is known by its seed. Its games may lie anywhere within one part, but a deal carries over
    into the next part only as the last game's deal, as a run's schedule makes it (its rotations are
    consecutive in game-index order); a deal seen again later would be counted as a second deal.
    """
    running = RunningRatings(settings, replicates=replicates, progress=progress)
    for part in parts:
        running.add(part)
    return running.tables()


class RunningRatings:
    """`rate_parts` kept open: parts are added as they come (in game-index order) and the tables asked for at any
    time. A look then costs the new games and the fit, not a second pass over the earlier games: a league's
    matchmaker looks after every round."""

    def __init__(self, settings: RatingSettings | None = None, *, replicates: int = BOOTSTRAP_REPLICATES,
                 progress: bool = True, warm: bool = False) -> None:
        """warm: each fit starts from the last (`arena.ratings.offline.WarmStart`), where nothing is decided on them."""
        self.settings, self.replicates, self.progress = settings or RatingSettings(), replicates, progress
        self.warm = warm
        self.variants: dict[str, _Variant] = {}
        self.last_index = None
        self.waiting: list[pa.Table] = []
        """Parts not yet summed, fewer than FEED_GAMES games, all of one schema."""

    def add(self, part: pa.Table) -> None:
        check_columns(part.schema.names)
        if not part.num_rows:
            return
        indices = column_array(part, "game_index").to_numpy(zero_copy_only=False)
        if (np.diff(indices) < 0).any() or (self.last_index is not None and indices[0] < self.last_index):
            raise ValueError("results must come in game-index order")
        self.last_index = indices[-1]
        if isinstance(part, pa.RecordBatch):
            part = pa.Table.from_batches([part])
        if self.waiting and part.schema != self.waiting[0].schema:
            self._feed()
        self.waiting.append(part)
        if sum(waiting.num_rows for waiting in self.waiting) >= FEED_GAMES:
            self._feed()

    def _feed(self) -> None:
        """Sums the waiting parts."""
        if not self.waiting:
            return
        part = pa.concat_tables(self.waiting) if len(self.waiting) > 1 else self.waiting[0]
        self.waiting = []
        for variant, seated in split_by_variant(part):
            if variant not in self.variants:
                self.variants[variant] = _Variant(self.settings, self.replicates, self.progress, self.warm)
            with _naming(variant):
                self.variants[variant].feed(seated)

    def tables(self) -> dict[str, VariantRatings]:
        """The tables of the games so far, keyed by variant name, in name order. A deal is complete once asked
        for: a later part must not continue it (as a round of whole deals never does)."""
        return self.each(_Variant.finish)

    def each(self, how) -> dict:
        """`how` of each variant's running sums, every game so far fed, keyed by variant name, in name order."""
        self._feed()
        done = {}
        for variant in sorted(self.variants):
            with _naming(variant):
                done[variant] = how(self.variants[variant])
        return done


def rate_results(df: pd.DataFrame, settings: RatingSettings | None = None, *,
                 replicates: int = BOOTSTRAP_REPLICATES) -> dict[str, VariantRatings]:
    """Rates a results frame (rows in any order) variant by variant; tables keyed by variant name, in name order."""
    check_columns(df.columns)
    rows = df if df["game_index"].is_monotonic_increasing else df.sort_values("game_index", kind="stable")
    table = pa.table({name: as_arrow(rows[name]) for name in rows.columns if name in READ_COLUMNS})
    return rate_parts([table], settings, replicates=replicates)


def rate_run(run, method: str | None = None) -> dict[str, VariantRatings]:
    """Rates a run directory from its result parts, part by part, with its config's settings."""
    import dataclasses
    import tomllib

    from arena.config import rating_settings
    from arena.results import RATED_COLUMNS, iter_results

    settings = rating_settings(tomllib.loads(run.read_config()).get("ratings", {}))
    if method is not None:
        settings = dataclasses.replace(settings, method=method)
    return rate_parts(iter_results(run, RATED_COLUMNS), settings)


@contextmanager
def _naming(variant: str):
    """Puts the variant's name in front of a rating error raised inside."""
    try:
        yield
    except (FloatingPointError, ZeroDivisionError, ValueError) as error:
        raise type(error)(f"variant {variant}: {error}") from error


# --- one variant's running sums ---------------------------------------------------------------------

def _pair_code(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A code for each ordered pair of bot codes that does not change as bots are added (Szudzik's pairing:
    the pairs of bots 0..k-1 take codes 0..k^2-1)."""
    return np.where(a >= b, a * a + a + b, b * b + a)


class _Variant:
    """The running sums of one variant's tables, fed its games in game-index order."""

    def __init__(self, settings: RatingSettings, replicates: int, progress: bool, warm: bool = False) -> None:
        self.settings, self.replicates = settings, replicates
        self.warm = WarmStart() if warm else None
        self.codes: dict[str, int] = {}
        """Bot name -> code, in order of first appearance."""
        self.seats: int | None = None
        self.games = 0
        self.held: Games | None = None
        """The last deal fed so far, which the next part may continue."""
        self.groups = OutcomeGroups(replicates, progress)
        self.online = ([], []) if settings.method == "online" else None
        """The online pass's mu and sigma lists by bot code, carried from part to part."""
        self.win, self.score, self.pairs = ClusteredMean(), ClusteredMean(), ClusteredMean()
        self.seat_win, self.seat_score = ClusteredMean(), ClusteredMean()
        self.after_win, self.after_score = ClusteredMean(), ClusteredMean()
        """By (bot, the bot in the seat before), three or more players."""
        self.wins, self.forfeits = np.zeros(0, np.int64), np.zeros(0, np.int64)
        self.pentanomial, self.margin = Pentanomial(), PairedDifference()
        self.checkpoint = None
        """The last checkpoint of a matchmaker's looks (`arena.ratings.looks`)."""

    def feed(self, seated: Seated) -> None:
        """Adds the variant's games of one part, holding back its last deal (which the next part may continue)."""
        games = self._games(seated)
        if self.online is not None:  # the online pass goes game by game, in game-index order
            rate_codes(np.full(len(games), self.seats), games.bots.reshape(-1), games.ranks.reshape(-1),
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

    def _games(self, seated: Seated) -> Games:
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
        return Games(bots, seated.rank.reshape(-1, n), seated.score.reshape(-1, n), seated.fault.reshape(-1, n),
                      seated.key, seated.deal)

    def _add(self, games: Games) -> None:
        """Adds games of whole deals (in any order) to every order-free running sum, ADD_GAMES at most at once,
        the deals in the order of their first games (so a run's games are added in game-index order)."""
        if len(games) <= ADD_GAMES:
            self._add_deals(games)
            return
        _, first_game, deal = np.unique(games.key, return_index=True, return_inverse=True)
        deal = np.argsort(np.argsort(first_game))[deal.reshape(-1)]  # deals numbered by their first game
        step = max(1, ADD_GAMES * int(deal.max() + 1) // len(games))  # deals in about ADD_GAMES games
        for first in range(0, int(deal.max()) + 1, step):
            self._add_deals(games.select((deal >= first) & (deal < first + step)))

    def _add_deals(self, games: Games) -> None:
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
        self.wins = grown(self.wins, k) + np.bincount(bots, weights=won, minlength=k).astype(np.int64)
        self.forfeits = (grown(self.forfeits, k)
                         + np.bincount(bots, weights=games.fault.reshape(-1), minlength=k).astype(np.int64))
        # Each pair of seats once, seen from the bot with the smaller code; the other side's record is
        # its mirror image (`ClusteredMean.take` with flip), so half the entries are summed.
        i, j = np.triu_indices(n, 1)
        low_first = games.bots[:, i] < games.bots[:, j]
        r_low = np.where(low_first, games.ranks[:, i], games.ranks[:, j])
        r_high = np.where(low_first, games.ranks[:, j], games.ranks[:, i])
        pairing = _pair_code(np.minimum(games.bots[:, i], games.bots[:, j]),
                             np.maximum(games.bots[:, i], games.bots[:, j]))
        self.pairs.add(((r_low < r_high) + 0.5 * (r_low == r_high)).reshape(-1), pairing.reshape(-1),
                       np.repeat(deal, len(i)))
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

    def complete(self) -> None:
        """Adds the deal held back: every game is in (a later part must not continue it)."""
        if self.held is not None and len(self.held):
            self._add(self.held)
        self.held = None

    def finish(self) -> VariantRatings:
        """The tables, once every game is in."""
        self.complete()
        return self._tables()

    def naming(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The bots' names in order, each name's code of first appearance, and each such code's place by name:
        bots are numbered in the order of their names, so the numbering never depends on the order of the rows."""
        names = np.array(sorted(self.codes), dtype=object)
        code_of = np.array([self.codes[name] for name in names], dtype=np.int64)  # by name -> first appearance
        name_code = np.empty(len(names), dtype=np.int64)
        name_code[code_of] = np.arange(len(names))
        return names, code_of, name_code

    def _tables(self) -> VariantRatings:
        """The tables from the sums: the ratings first, since the order of the table orients the pairings."""
        settings, n = self.settings, self.seats
        names, code_of, name_code = self.naming()
        k = len(names)

        outcomes, deal_games, points, progress_weights = self.groups.outcomes(name_code)
        outcomes, deal_games, progress_weights, reweighted = balanced(outcomes, deal_games, progress_weights,
                                                                       settings.company_deals)
        batch = self.warm.fit(outcomes, k, settings, code_of) if self.warm else rate_outcomes(outcomes, k, settings)
        boot, newton = deal_bootstrap(outcomes, deal_games, self.replicates, k, settings, batch)
        if self.online is not None:
            mu, sigma = np.array(self.online[0])[code_of], np.array(self.online[1])[code_of]
            half = Z95 * sigma  # the package's own sigma: the online pass has no deal-level interval
            order = np.lexsort((names.astype(str), -(mu - 3 * sigma)))
        else:
            mu, sigma = batch.mu[0], batch.sigma[0]
            half = Z95 * boot.std(axis=0, ddof=1)
            order = np.lexsort((names.astype(str), -mu))
        diff_se = difference_se(boot)
        los = likelihood_of_superiority(mu, diff_se)
        labels, tier = tiers(order, los)

        win = self.win.take(code_of).result(proportion=True)
        score = self.score.take(code_of).result()
        strengths = plackett_luce(outcomes.bots, outcomes.drawn, outcomes.counts, k)
        # 1 + the bots strictly stronger: level strengths share a place, as the footer's "level with it" says
        pl_rank = 1 + (strengths[None, :] > strengths[:, None]).sum(axis=1)
        table = pd.DataFrame({
            "rank": labels, "tier": tier, "bot": names, "mu": mu, "sigma": sigma,
            "mu_lo": mu - half, "mu_hi": mu + half, "conservative": mu - 3 * sigma, "games": win["n"],
            "deals": win["units"], "wins": grown(self.wins, k)[code_of], "win_rate": win["mean"],
            "win_rate_lo": win["lo"], "win_rate_hi": win["hi"], "mean_score": score["mean"],
            "mean_score_lo": score["lo"], "mean_score_hi": score["hi"],
            "forfeits": grown(self.forfeits, k)[code_of], "pl_rank": pl_rank,
        }).iloc[order].reset_index(drop=True)[TABLE_COLUMNS]
        disagreements = order_disagreements(list(names), list(table["bot"]), dict(zip(names, strengths, strict=True)))
        a, b = np.divmod(np.arange(k * k), k)  # every ordered pair of bots, in codes by name
        pairs = self.pairs.take(_pair_code(np.minimum(code_of[a], code_of[b]), np.maximum(code_of[a], code_of[b])),
                                flip=code_of[a] > code_of[b]).result(proportion=True)
        paired = _pairs(pairs, names, order, mu, diff_se, los)
        return VariantRatings(
            table, paired,
            _seat_table(self.seat_win.take(np.arange(n)).result(proportion=True),
                        self.seat_score.take(np.arange(n)).result()),
            self._neighbours(names, code_of, order) if n > 2 else None,
            self._duplicate(names, code_of, order) if n == 2 else None,
            estimate_against_deals(outcomes, points, progress_weights, names, k, settings, batch, boot,
                                   newton),
            disagreements, settings.method, diff_se[np.ix_(order, order)], misfits(paired, table, settings),
            reweighted)

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
