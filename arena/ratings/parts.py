"""Reading result parts for rating: the columns rating needs, checked, and a part's games split by variant
and flattened to one entry per seat (Arrow columns to numpy arrays, no loop in Python per game), then held as
rows of seats (`Games`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

REQUIRED_COLUMNS = ["game_index", "variant", "players", "ranks"]
"""What rating needs of the results; `scores`, `fault_seat`, `seed` (the deal's key, else every game is its own
deal) and `deal` (the estimate against deals) are read when present."""

READ_COLUMNS = {*REQUIRED_COLUMNS, "scores", "fault_seat", "seed", "deal"}


def check_columns(names) -> None:
    """Raises ValueError unless the columns rating needs are among `names`."""
    missing = set(REQUIRED_COLUMNS) - set(names)
    if missing:
        raise ValueError(f"results frame lacks column(s) {', '.join(sorted(missing))}")


def as_arrow(column: pd.Series) -> pa.Array:
    """A frame's column as one Arrow array (lists of lists, numpy arrays or Arrow lists alike)."""
    array = pa.array(column)
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def column_array(table, name: str) -> pa.Array:
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
class Seated:
    """The games of one variant in one part, in game-index order, flattened to one entry per seat."""

    sizes: np.ndarray  # seats per game
    player: np.ndarray  # per seat: code into `names`
    names: list[str]
    rank: np.ndarray
    score: np.ndarray
    fault: np.ndarray  # per seat: True when this seat was the game's fault_seat
    key: np.ndarray  # per game: its deal's key (the deal seed; the game index when unknown)
    deal: np.ndarray | None  # per game: its deal number, when known


def split_by_variant(table) -> Iterator[tuple[str, Seated]]:
    """One part's games by variant, checking that players, scores and ranks agree."""
    columns = table.schema.names
    sizes, players = _list_column(column_array(table, "players"), "players")
    rank_sizes, ranks = _list_column(column_array(table, "ranks"), "ranks")
    if not np.array_equal(sizes, rank_sizes):
        raise ValueError("players and ranks differ in length")
    if "scores" in columns:
        score_sizes, scores = _list_column(column_array(table, "scores"), "scores")
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
        fault_seat = pc.cast(column_array(table, "fault_seat"), pa.float64()).to_numpy(zero_copy_only=False)
        fault = fault_seat[game] == np.arange(len(game)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    else:
        fault = np.zeros(len(game), dtype=bool)
    # All rotations of a deal share its seed, and so do the games of a table that played another's deals (config
    # `deals_of`) with that table's: the seed is the key of the cards, which the bootstrap resamples together.
    key = column_array(table, "seed" if "seed" in columns else "game_index").to_numpy(zero_copy_only=False)
    key = key.astype(np.int64)
    deal = column_array(table, "deal").to_numpy(zero_copy_only=False).astype(np.int64) if "deal" in columns else None
    variant = column_array(table, "variant").dictionary_encode()
    variants = variant.dictionary.to_pylist()
    if len(variants) == 1:
        yield str(variants[0]), Seated(sizes, player, names, rank, score, fault, key, deal)
        return
    codes = variant.indices.to_numpy(zero_copy_only=False)
    for code, name in enumerate(variants):
        games = codes == code
        seats = games[game]
        yield str(name), Seated(sizes[games], player[seats], names, rank[seats], score[seats], fault[seats],
                                 key[games], None if deal is None else deal[games])


@dataclass(frozen=True)
class Games:
    """Games of one variant in game-index order, one row per game and one column per seat."""

    bots: np.ndarray  # bot codes, in order of the bots' first appearance
    ranks: np.ndarray
    scores: np.ndarray
    fault: np.ndarray
    key: np.ndarray  # (games,) the deal's key
    deal: np.ndarray | None  # (games,) the deal number

    def __len__(self) -> int:
        return len(self.key)

    def select(self, rows: np.ndarray | slice) -> Games:
        """The games that `rows` (a boolean mask or a slice) picks, in their order."""
        return Games(self.bots[rows], self.ranks[rows], self.scores[rows], self.fault[rows], self.key[rows],
                      None if self.deal is None else self.deal[rows])

    def then(self, later: Games) -> Games:
        """These games followed by `later`."""
        joined = lambda mine, theirs: np.concatenate([mine, theirs])
        return Games(joined(self.bots, later.bots), joined(self.ranks, later.ranks),
                      joined(self.scores, later.scores), joined(self.fault, later.fault), joined(self.key, later.key),
                      None if self.deal is None or later.deal is None else joined(self.deal, later.deal))
