"""A league's finished games as one Parquet file, for people who train bots: `arena league export` writes it, and the
server streams the same bytes as `/api/games.parquet`.

The columns are those of the league's parts (the run's result columns, players by label, and the round), in
game-index order. The games are read a part at a time and written a row group at a time, so a league of any size is
exported in the memory of one row group, and a client starts receiving at once.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from arena.league import load_settings
from arena.league.catalog import LeagueError
from arena.league.play import LEAGUE_SCHEMA, league_parts
from arena.league.standings import snapshot
from arena.ratings.variants import of_game

ROW_GROUP = 65_536
"""Games a row group of the export holds: the most held in memory at once."""


def finished_games(directory: Path, game: str | None = None, after: int = -1,
                   rounds: list | None = None) -> Iterator[pa.Table]:
    """The games of the finished rounds (or of `rounds`), of `game` (a game id or a variant label; None: all), with a
    game index above `after`, a part at a time in game-index order. LeagueError names the variants for an unknown
    `game`."""
    if game is not None:
        labels = [g.label for g in load_settings(directory).games]
        if not any(of_game(label, game) for label in labels):
            raise LeagueError(f"no variant {game!r} in this league (variants: {', '.join(labels)})")
    rounds = snapshot(directory, light=True)[1] if rounds is None else rounds
    for part in league_parts(directory, [r for r in rounds if r.first_index + r.games > after + 1]):
        keep = pc.greater(part.column("game_index"), after)
        if game is not None:
            variants = part.column("variant").unique().to_pylist()
            keep = pc.and_(keep, pc.is_in(part.column("variant"),
                                          pa.array([v for v in variants if of_game(v, game)], pa.string())))
        chosen = part.filter(keep)
        if chosen.num_rows:
            yield chosen


class _Chunks:
    """A file for ParquetWriter that keeps what is written until it is taken: the bytes of a stream."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.position = 0
        self.closed = False

    def write(self, data) -> int:
        self.chunks.append(bytes(data))
        self.position += len(data)
        return len(data)

    def tell(self) -> int:
        return self.position

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def take(self) -> bytes:
        taken = b"".join(self.chunks)
        self.chunks.clear()
        return taken


def parquet_stream(tables: Iterable[pa.Table]) -> Iterator[bytes]:
    """One Parquet file of LEAGUE_SCHEMA made of `tables`, as bytes given a row group at a time (ROW_GROUP games
    each, the last aside)."""
    sink = _Chunks()
    writer = pq.ParquetWriter(sink, LEAGUE_SCHEMA, compression="zstd")
    held: list[pa.Table] = []
    rows = 0
    for table in tables:
        held.append(table)
        rows += table.num_rows
        if rows >= ROW_GROUP:  # whole row groups out, the rest kept for the next
            joined, whole = pa.concat_tables(held), rows // ROW_GROUP * ROW_GROUP
            writer.write_table(joined.slice(0, whole), row_group_size=ROW_GROUP)
            held, rows = [joined.slice(whole)], rows - whole
            yield sink.take()
    if rows:
        writer.write_table(pa.concat_tables(held), row_group_size=ROW_GROUP)
    writer.close()
    yield sink.take()


def export_games(directory: Path, out: Path, game: str | None = None) -> int:
    """Writes the league's finished games (of `game`, if given) to `out` as Parquet (whole or not at all: written
    beside it and renamed into place); returns how many."""
    out = Path(out)
    count = 0

    def counted() -> Iterator[pa.Table]:
        nonlocal count
        for table in finished_games(directory, game):
            count += table.num_rows
            yield table

    if not out.parent.is_dir():
        raise LeagueError(f"{out}: no folder {out.parent} to write it in")
    chunks = parquet_stream(counted())
    first = next(chunks)  # an unknown game is refused before a file is made
    handle, temporary = tempfile.mkstemp(prefix=f".{out.name}-", dir=out.parent)
    os.fchmod(handle, 0o644)  # mkstemp's 0600 would keep the data from the people it is for
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(first)
            for chunk in chunks:
                file.write(chunk)
        os.replace(temporary, out)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return count
