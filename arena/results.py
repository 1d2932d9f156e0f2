"""A run's Parquet result store: parts written atomically, read back, digested (the run directory itself:
arena/rundir.py)."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from arena.atomic import write_atomic
from arena.rundir import PART_NAME, ResultsError, RunDir

logger = logging.getLogger(__name__)

SCHEMA = pa.schema([
    ("game_index", pa.int64()),
    ("game", pa.string()),
    ("variant", pa.string()),
    ("table", pa.int32()),
    ("deal", pa.int32()),
    ("rotation", pa.int32()),
    ("seed", pa.int64()),
    ("players", pa.list_(pa.string())),
    ("scores", pa.list_(pa.int64())),
    ("ranks", pa.list_(pa.int32())),
    ("termination", pa.string()),
    ("fault_seat", pa.int32()),
    ("fault", pa.string()),
    ("decisions", pa.int32()),
    ("duration", pa.float64()),
    ("slowest_move_cpu", pa.float64()),
    ("slowest_move_wall", pa.float64()),
    ("llm_tokens_in", pa.list_(pa.int64())),
    ("llm_tokens_out", pa.list_(pa.int64())),
    ("llm_tries", pa.list_(pa.int32())),
    ("llm_seconds", pa.list_(pa.float64())),
])
MODEL_COLUMNS = ("llm_tokens_in", "llm_tokens_out", "llm_tries", "llm_seconds")
"""What the model seats of a game spent, by seat (0 for a seat that is no model; null when no model played): tokens
sent and received, asks of the model, and the seconds it took to answer (arena/llm/seat.py)."""
TIMING_COLUMNS = {"duration", "slowest_move_cpu", "slowest_move_wall", *MODEL_COLUMNS}
"""How long a game took (wall seconds), and the most CPU time and the most wall time any of its moves took (null
without a move time limit, or in parts written before they were kept), and what its model seats spent: what load
on the machine or a model's answers change, never part of the digest."""
def write_part(run: RunDir, start: int, end: int, columns: dict[str, list], schema: pa.Schema = SCHEMA) -> Path:
    """Writes the results of games start..end-1 as one Parquet part, atomically (`schema`: SCHEMA, or SCHEMA
    and more columns, as a league's parts have)."""
    table = pa.Table.from_pydict(columns, schema=schema)
    if table.num_rows != end - start:
        raise ValueError(f"part {start}-{end} has {table.num_rows} rows")
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", write_page_checksum=True)  # so damage cannot read as data
    path = run.part(start, end)
    write_atomic(path, sink.getvalue().to_pybytes())
    return path


def scan_parts(run: RunDir) -> tuple[list[tuple[int, int, Path]], list[tuple[Path, str]]]:
    """The readable parts as (start, end, path), and the damaged ones as (path, reason).

    Each part is read whole, its page checksums checked and its game indices compared with its name,
    so a part cut short, overwritten in the middle or misnamed is never taken for results.
    """
    good, bad = [], []
    for start, end, path, table_or_reason in _read_parts(run):
        if isinstance(table_or_reason, str):
            bad.append((path, table_or_reason))
        else:
            good.append((start, end, path))
    return good, bad


def set_aside_damaged(run: RunDir) -> list[tuple[int, int, Path]]:
    """Moves each part cut short by a crash out of the results into the run's `damaged/`, saying so as a warning:
    its games are played again. Returns the readable parts as (start, end, path), as scan_parts does."""
    good, bad = scan_parts(run)
    for path, reason in bad:
        aside = run.damaged / path.name
        aside.parent.mkdir(exist_ok=True)
        os.replace(path, aside)
        logger.warning(f"{path} was damaged ({reason}); moved to {aside} and its games will be replayed")
    return good


def load_results(run: RunDir, columns: list[str] | None = None) -> pa.Table:
    """Every result of a run (or only some columns), sorted by game index; raises ResultsError for damaged parts."""
    tables, in_order, end_before = [], True, 0
    for start, end, path, table_or_reason in _read_parts(run, columns):
        if isinstance(table_or_reason, str):
            raise ResultsError(_damaged(run, path, table_or_reason))
        tables.append(table_or_reason)
        in_order, end_before = in_order and start >= end_before, end
    if not tables:
        empty = SCHEMA.empty_table()
        return empty if columns is None else empty.select(tables_columns(columns))
    table = pa.concat_tables(tables)
    return table if in_order else table.sort_by("game_index")  # parts in name order are in game order


def iter_results(run: RunDir, columns: list[str] | None = None) -> Iterator[pa.Table]:
    """A run's results (or only some columns) one part at a time, in game-index order: what a pass over a run of
    any size reads, in the memory of one part. Raises ResultsError for a damaged part or parts that overlap."""
    end_before = 0
    for start, end, path, table_or_reason in _read_parts(run, columns):
        if isinstance(table_or_reason, str):
            raise ResultsError(_damaged(run, path, table_or_reason))
        if start < end_before:
            raise ResultsError(f"{path}: overlaps the part before it; run `arena tournament {run.config} --resume`")
        end_before = end
        yield table_or_reason


def _damaged(run: RunDir, path: Path, reason: str) -> str:
    """What to say of a damaged part."""
    return f"{path}: damaged result part ({reason}); run `arena tournament {run.config} --resume` to replay it"


def tables_columns(columns: list[str]) -> list[str]:
    """`columns` with game_index first, which every read needs to check the games."""
    return ["game_index", *[c for c in columns if c != "game_index"]]


def read_part(path: Path, schema: pa.Schema, columns: list[str] | None = None) -> pa.Table:
    """One part file's columns (default: all of `schema`) with `schema`'s types, its pages' checksums verified.

    Through ParquetFile, not pq.read_table, whose dataset layer costs about twice as much a part: the 117
    parts of a 232,560-game run, read once a column as its digest reads them, took 2.3-2.9 s of CPU that way
    and 1.3 s this way."""
    names = schema.names if columns is None else columns
    file = pq.ParquetFile(path, page_checksum_verification=True)
    return _typed(file.read(columns=_present(file, names), use_threads=False), schema, names)


def _present(file: pq.ParquetFile, names: list[str]) -> list[str]:
    """Those of `names` that a part file holds (one written before a timing column was kept lacks it)."""
    held = set(file.schema_arrow.names)
    return [name for name in names if name in held or name not in TIMING_COLUMNS]


def _typed(table: pa.Table, schema: pa.Schema, names: list[str]) -> pa.Table:
    """The columns `names` of a part's table with `schema`'s types, a timing column it lacks as nulls."""
    for name in names:
        if name not in table.column_names:
            table = table.append_column(schema.field(name), pa.nulls(table.num_rows, schema.field(name).type))
    return table.select(names).cast(pa.schema([schema.field(name) for name in names]))


def live_parts(results: Path) -> list[tuple[int, int, Path]]:
    """The parts of a results folder by name, as (start, end, path) in game order, without those that a larger
    part holds whole.

    Compaction (compact_parts) renames its merged part into place before it deletes the parts it merged, so
    that one rename is the switch: a reader that lists both sees only the merged part, one that lists before
    sees only the small ones, and a compaction killed between the two leaves the same games visible."""
    found = []
    for path in Path(results).glob("part-*.parquet"):
        match = PART_NAME.fullmatch(path.name)
        if match:
            found.append((int(match[1]), int(match[2]), path))
    found.sort(key=lambda part: (part[0], -part[1]))  # the larger of two parts that start together first
    live, reach = [], 0
    for start, end, path in found:
        if live and end <= reach:
            continue  # within a part before it
        live.append((start, end, path))
        reach = max(reach, end)
    return live


def read_rows(path: Path, schema: pa.Schema, columns: list[str] | None, first: int, end: int) -> pa.Table:
    """Rows first..end-1 of one part file (counted from its first row), reading only the row groups that hold
    them, checksums verified: a round's games are a small share of a compacted part."""
    names = schema.names if columns is None else columns
    file = pq.ParquetFile(path, page_checksum_verification=True)
    groups, offset, skipped = [], 0, None
    for group in range(file.num_row_groups):
        rows = file.metadata.row_group(group).num_rows
        if offset < end and first < offset + rows:
            groups.append(group)
            skipped = offset if skipped is None else skipped
        offset += rows
    table = file.read_row_groups(groups, columns=_present(file, names), use_threads=False)
    return _typed(table.slice(first - (skipped or 0), end - first), schema, names)


def _read_parts(run: RunDir, columns: list[str] | None = None):
    """Each part file as (start, end, path, its table or why it is damaged), but those a compacted part replaces."""
    if not run.results.is_dir():
        return
    live = {path for _, _, path in live_parts(run.results)}
    for path in sorted(run.results.glob("part-*.parquet")):
        match = PART_NAME.fullmatch(path.name)
        if not match:
            yield 0, 0, path, "not a part name"
            continue
        if path not in live:
            continue
        start, end = int(match[1]), int(match[2])
        try:
            table = read_part(path, SCHEMA, None if columns is None else tables_columns(columns))
        except Exception as error:
            yield start, end, path, f"unreadable ({type(error).__name__})"
            continue
        indices = table.column("game_index").to_numpy()
        if len(indices) != end - start:
            yield start, end, path, f"holds {len(indices)} rows, not {end - start}"
        elif not np.array_equal(indices, np.arange(start, end)):
            yield start, end, path, f"holds other games than {start}..{end - 1}"
        else:
            yield start, end, path, table


RATED_COLUMNS = ["game_index", "variant", "deal", "seed", "players", "scores", "ranks", "termination", "fault_seat"]
"""What the ratings and summaries read of the results."""


def results_frame(table: pa.Table, columns: list[str] = RATED_COLUMNS):
    """The results as pandas with no Python object per row (lists stay Arrow lists, strings categorical),
    so a million rows stay small."""
    import pandas as pd

    return table.select(columns).to_pandas(strings_to_categorical=True,
                                           types_mapper=lambda t: pd.ArrowDtype(t) if pa.types.is_list(t) else None)


DIGEST_COLUMNS = [f.name for f in SCHEMA if f.name not in TIMING_COLUMNS]


def digest(table: pa.Table) -> str:
    """SHA-256 over the results in game-index order, timing columns left out."""
    indices = table.column("game_index").to_numpy()
    if len(indices) > 1 and (indices[1:] < indices[:-1]).any():
        table = table.sort_by("game_index")
    sha = hashlib.sha256()
    for name in DIGEST_COLUMNS:
        _hash_column(sha, name, lambda name=name: [table.column(name)])
    return sha.hexdigest()


DIGEST_IN_MEMORY = 16 << 20
"""The bytes of part files up to which a run's digest reads each part once, all its columns, and hashes the whole
(`digest`, the same hash). Column by column a part is read once a column, twice for lists and strings: the 100
parts of 200 games of a league before compaction took 1.1 s of CPU that way and 0.1 s this way."""


def run_digest(run: RunDir) -> str:
    """The digest of a run's results. A run beyond DIGEST_IN_MEMORY is read part by part and column by column:
    a run of any size is hashed in the memory of one part's column and the column's distinct strings."""
    try:
        size = sum(path.stat().st_size for _, _, path in live_parts(run.results)) if run.results.is_dir() else 0
    except FileNotFoundError:  # a part merged away by a compaction meanwhile: the read below lists them again
        size = 0
    if size <= DIGEST_IN_MEMORY:
        tables = list(iter_results(run, DIGEST_COLUMNS))
        return digest(pa.concat_tables(tables) if tables else SCHEMA.empty_table().select(DIGEST_COLUMNS))
    sha = hashlib.sha256()
    for name in DIGEST_COLUMNS:
        _hash_column(sha, name, lambda name=name: (part.column(name) for part in iter_results(run, [name])))
    return sha.hexdigest()


def _hash_column(sha, name: str, read: Callable[[], Iterable[pa.ChunkedArray]]) -> None:
    """Feeds one column to the hash: its name, then its values in a fixed binary form.

    `read()` gives the column's pieces in game-index order, and is called once per pass over them: a
    column of lists hashes all its lengths before its values, and strings are hashed as their dictionary
    (every distinct value in order of first appearance) and then the index of each value in it.
    """
    value_type = SCHEMA.field(name).type
    sha.update(f"\x1e{name}\x1e".encode())
    pieces = lambda: (piece.combine_chunks() if isinstance(piece, pa.ChunkedArray) else piece for piece in read())
    values = pieces
    if pa.types.is_list(value_type):
        for piece in pieces():
            sha.update(_int64_bytes(pc.list_value_length(piece)))
        values = lambda: (pc.list_flatten(piece) for piece in pieces())
        value_type = value_type.value_type
    if pa.types.is_string(value_type):
        dictionary: dict[str, int] = {}
        for piece in values():
            for text in pc.fill_null(piece, "\x00").dictionary_encode().dictionary.to_pylist():
                dictionary.setdefault(text, len(dictionary))
        sha.update("\x1f".join(dictionary).encode())
        known = pa.array(list(dictionary), pa.string())
        for piece in values():
            sha.update(_int64_bytes(pc.index_in(pc.fill_null(piece, "\x00"), value_set=known)))
    else:
        for piece in values():
            sha.update(_int64_bytes(pc.fill_null(piece, -1)))


def _int64_bytes(array: pa.Array) -> bytes:
    """An integer array as little-endian int64 bytes."""
    return array.to_numpy(zero_copy_only=False).astype("<i8").tobytes()
