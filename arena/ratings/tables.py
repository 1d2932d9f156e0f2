"""Deal-level statistics and the rating tables of a results frame, variant by variant."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from arena.config import RatingSettings
from arena.ratings.online import Z95, _rate_codes

# --- results frames --------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Seats:
    """A results frame flattened to one entry per (game, seat), games in game-index order."""

    rows: pd.DataFrame  # the games, sorted by game_index
    sizes: np.ndarray  # seats per game
    game: np.ndarray  # per seat: the game's row position
    seat: np.ndarray
    player: np.ndarray  # per seat: code into `names`
    names: np.ndarray
    score: np.ndarray
    rank: np.ndarray
    fault: np.ndarray  # per seat: True when this seat was the game's fault_seat


def _list_column(column: pd.Series) -> tuple[np.ndarray, pa.Array]:
    """(lengths, flattened values) of a column of lists, numpy arrays or Arrow lists."""
    array = pa.array(column)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not pa.types.is_list(array.type) and not pa.types.is_large_list(array.type):
        if len(array) and array.null_count < len(array):
            raise ValueError(f"column {column.name} must hold lists, not {array.type}")
        array = pa.array([[]] * len(array), pa.list_(pa.int64()))  # empty or all-missing column
    return pc.list_value_length(array).to_numpy(zero_copy_only=False).astype(np.int64), pc.list_flatten(array)


def _seats(df: pd.DataFrame) -> _Seats:
    """Flattens a results frame, checking that players, scores and ranks agree."""
    missing = {"game_index", "variant", "players", "ranks"} - set(df.columns)
    if missing:
        raise ValueError(f"results frame lacks column(s) {', '.join(sorted(missing))}")
    rows = df
    if not df["game_index"].is_monotonic_increasing:
        rows = df.sort_values("game_index", kind="stable")
    if not rows.index.equals(pd.RangeIndex(len(rows))):
        rows = rows.reset_index(drop=True)
    sizes, players = _list_column(rows["players"])
    rank_sizes, ranks = _list_column(rows["ranks"])
    if not np.array_equal(sizes, rank_sizes):
        raise ValueError("players and ranks differ in length")
    if "scores" in rows.columns:
        score_sizes, scores = _list_column(rows["scores"])
        if not np.array_equal(sizes, score_sizes):
            raise ValueError("players and scores differ in length")
        score = scores.to_numpy(zero_copy_only=False).astype(np.float64)
    else:
        score = np.full(int(sizes.sum()), np.nan)
    encoded = players.dictionary_encode()
    game = np.repeat(np.arange(len(rows)), sizes)
    seat = np.arange(len(game)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    if "fault_seat" in rows.columns:
        fault_seat = pd.to_numeric(rows["fault_seat"]).to_numpy(dtype=np.float64, na_value=np.nan)
        fault = fault_seat[game] == seat
    else:
        fault = np.zeros(len(game), dtype=bool)
    return _Seats(rows, sizes, game, seat, encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64),
                  encoded.dictionary.to_numpy(zero_copy_only=False), score,
                  ranks.to_numpy(zero_copy_only=False).astype(np.int64), fault)


def _by_variant(seats: _Seats):
    """(variant, game mask, seat mask, per-seat compact bot codes, bot names) per variant, sorted by name."""
    codes, names = pd.factorize(seats.rows["variant"], sort=True)
    seat_codes = codes[seats.game]
    for v, variant in enumerate(names):
        game_mask = codes == v
        seat_mask = seat_codes == v
        players = seats.player[seat_mask]
        present = np.bincount(players, minlength=len(seats.names)) > 0  # codes in use, renumbered 0.. in order
        yield str(variant), game_mask, seat_mask, (np.cumsum(present) - 1)[players], seats.names[present]


def wilson_interval(wins: np.ndarray, n: np.ndarray, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (lo, hi) of a proportion wins/n; NaN where n is 0."""
    wins, n = np.asarray(wins, dtype=np.float64), np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = wins / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # clipped: at 0 or n wins the bound is 0 or 1 exactly, not a rounding error away
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def _group_stats(group: np.ndarray, size: int, score: np.ndarray, rank: np.ndarray) -> dict[str, np.ndarray]:
    """games, wins, win rate and mean score with 95% intervals per group code (0..size-1)."""
    games = np.bincount(group, minlength=size).astype(np.int64)
    wins = np.bincount(group, weights=rank == 0, minlength=size).astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.bincount(group, weights=score, minlength=size) / games
        # two passes: sums of squares of raw scores would lose precision on large scores
        sq = np.bincount(group, weights=(score - mean[group]) ** 2, minlength=size)
        std = np.sqrt(sq / (games - 1))
        half = Z95 * std / np.sqrt(games)
        win_rate = wins / games
    lo, hi = wilson_interval(wins, games)
    return {"games": games, "wins": wins, "win_rate": win_rate, "win_rate_lo": lo, "win_rate_hi": hi,
            "mean_score": mean, "mean_score_lo": mean - half, "mean_score_hi": mean + half}


TABLE_COLUMNS = ["rank", "bot", "mu", "sigma", "conservative", "games", "wins", "win_rate", "win_rate_lo",
                 "win_rate_hi", "mean_score", "mean_score_lo", "mean_score_hi", "forfeits"]


@dataclass
class VariantRatings:
    """The ratings of one variant: its table, and every bot's (mu, sigma) after each game if asked."""

    table: pd.DataFrame
    """Columns TABLE_COLUMNS, best conservative rating first."""
    history: pd.DataFrame | None = None
    """Columns game_index, bot, mu, sigma: one row per seat of every game, in game-index order."""


def rate_results(df: pd.DataFrame, settings: RatingSettings | None = None, *,
                 history: bool = False) -> dict[str, VariantRatings]:
    """Rates a results frame variant by variant in game-index order; tables keyed by variant name."""
    settings = settings or RatingSettings()
    seats = _seats(df)
    game_index = seats.rows["game_index"].to_numpy()
    out = {}
    for variant, game_mask, seat_mask, bots, names in _by_variant(seats):
        try:
            mu, sigma, hmu, hsg = _rate_codes(seats.sizes[game_mask], bots, seats.rank[seat_mask], len(names),
                                              settings, history)
        except (FloatingPointError, ZeroDivisionError, ValueError) as error:
            raise type(error)(f"variant {variant}: {error}") from error
        stats = _group_stats(bots, len(names), seats.score[seat_mask], seats.rank[seat_mask])
        table = pd.DataFrame({"bot": names.astype(object), "mu": mu, "sigma": sigma})
        table["conservative"] = table["mu"] - 3 * table["sigma"]
        for column, values in stats.items():
            table[column] = values
        table["forfeits"] = np.bincount(bots, weights=seats.fault[seat_mask], minlength=len(names)).astype(np.int64)
        table = table.sort_values(["conservative", "mu", "bot"], ascending=[False, False, True], kind="stable")
        table.insert(0, "rank", np.arange(1, len(table) + 1))
        table = table.reset_index(drop=True)[TABLE_COLUMNS]
        hist = None
        if history:
            hist = pd.DataFrame({"game_index": game_index[seats.game[seat_mask]], "bot": names[bots].astype(object),
                                 "mu": hmu, "sigma": hsg})
        out[variant] = VariantRatings(table, hist)
    return out


def pairwise_matrix(df: pd.DataFrame) -> pd.DataFrame:
    """Share of their shared games in which the row bot ranked better than the column bot (ties half)."""
    seats = _seats(df)
    return _pairwise(seats.player, seats.sizes, seats.rank, seats.names)


def seat_advantage(df: pd.DataFrame) -> pd.DataFrame:
    """Per seat over all games of the frame: games, win rate (rank 0), mean score, with 95% intervals."""
    seats = _seats(df)
    return _seat_table(seats.seat, seats.score, seats.rank)


def _pairwise(seats_bots: np.ndarray, sizes: np.ndarray, ranks: np.ndarray, names: Sequence[str]) -> pd.DataFrame:
    """The pairwise matrix from flattened seats (bot codes into names)."""
    n_bots = len(names)
    offsets = np.cumsum(sizes) - sizes
    better = np.zeros(n_bots * n_bots)
    met = np.zeros(n_bots * n_bots)
    for size in np.unique(sizes):
        # games of one size line up as a (games, size) block, so every seat pair is one vector op
        starts = offsets[sizes == size]
        block_bots = seats_bots[starts[:, None] + np.arange(size)]
        block_ranks = ranks[starts[:, None] + np.arange(size)]
        for i in range(size):
            for j in range(size):
                if i != j:
                    pair = block_bots[:, i] * n_bots + block_bots[:, j]
                    points = (block_ranks[:, i] < block_ranks[:, j]) + 0.5 * (block_ranks[:, i] == block_ranks[:, j])
                    better += np.bincount(pair, weights=points, minlength=n_bots * n_bots)
                    met += np.bincount(pair, minlength=n_bots * n_bots)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(met > 0, better / met, np.nan).reshape(n_bots, n_bots)
    np.fill_diagonal(share, np.nan)
    labels = pd.Index(list(names), name="bot")
    return pd.DataFrame(share, index=labels, columns=labels.rename("opponent"))


def _seat_table(seat: np.ndarray, score: np.ndarray, rank: np.ndarray) -> pd.DataFrame:
    """The seat-advantage table from flattened seats."""
    size = int(seat.max()) + 1 if len(seat) else 0
    stats = _group_stats(seat, size, score, rank)
    stats.pop("wins")
    return pd.DataFrame({"seat": np.arange(size), **stats})


@dataclass
class VariantSummary:
    """The pandas summaries of one variant beside its rating table."""

    pairwise: pd.DataFrame
    """Square, indexed by bot (rows) and opponent (columns): share of their games the row bot won."""
    seats: pd.DataFrame
    """Columns seat, games, win_rate(_lo/_hi), mean_score(_lo/_hi)."""


def summaries(df: pd.DataFrame, ratings: dict[str, VariantRatings] | None = None) -> dict[str, VariantSummary]:
    """Pairwise matrix and seat advantage per variant; bots in rating-table order when ratings are given."""
    seats = _seats(df)
    out = {}
    for variant, game_mask, seat_mask, bots, names in _by_variant(seats):
        matrix = _pairwise(bots, seats.sizes[game_mask], seats.rank[seat_mask], names)
        if ratings is not None and variant in ratings:
            order = list(ratings[variant].table["bot"])
            matrix = matrix.loc[order, order]
        seat_table = _seat_table(seats.seat[seat_mask], seats.score[seat_mask], seats.rank[seat_mask])
        out[variant] = VariantSummary(matrix, seat_table)
    return out
