"""Compaction of a league's result parts: every table a round plays is saved as its own small Parquet part (a
`play` killed mid-round keeps every table it finished), and finished rounds' parts are merged into large ones,
as Delta Lake and Iceberg compact small files, so that a league of a million games is read from dozens of files,
not a hundred thousand.

Size-tiered, as a log-structured store merges: a part's level is how many times COMPACT_RUN its games are (below
COMPACT_RUN ** 2 games, level 0), and COMPACT_RUN consecutive parts of one level are merged into one part of the
next. Each game is rewritten about once a level (four times up to a million games), and at most COMPACT_RUN - 1
parts of each level stay apart.

Kill-safe by one rename: the merged part is written beside the others under a temporary name, synced, and
renamed to the name of the range it covers; only then are the parts it merged deleted. Readers take a part that
another holds whole as replaced (arena.results.live_parts), so at every moment they see either the small parts or
the merged one, never both and never neither; the next compaction deletes what a killed one left behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from arena.results import PART_NAME, RunDir, live_parts, read_part

COMPACT_RUN = 16
"""Consecutive parts of one level merged into one part of the next."""
ROW_GROUP_ROWS = 16_384
"""Rows of a merged part's row groups: a reader of one round reads one or two of them, not the whole part."""


def level(games: int) -> int:
    """A part's level: 0 below COMPACT_RUN ** 2 games, then one more each time its games are COMPACT_RUN times
    as many."""
    found = 0
    while games >= COMPACT_RUN ** (found + 2):
        found += 1
    return found


def compact(directory: Path, schema: pa.Schema, limit: int) -> int:
    """Merges the parts of games below `limit` (those of finished rounds) while COMPACT_RUN consecutive parts
    share a level; returns how many parts were merged. Only the league's one writer (under `play.lock`) calls it."""
    run = RunDir(Path(directory))
    if not run.results.is_dir():
        return 0
    remove_replaced(run)
    merged = 0
    while group := mergeable(live_parts(run.results), limit):
        merge(run, group, schema)
        merged += len(group)
    return merged


def mergeable(parts: list[tuple[int, int, Path]], limit: int) -> list[tuple[int, int, Path]] | None:
    """The first COMPACT_RUN consecutive parts below `limit` of one level, each starting where the last ended."""
    parts = [part for part in parts if part[1] <= limit]
    for first in range(len(parts) - COMPACT_RUN + 1):
        group = parts[first:first + COMPACT_RUN]
        levels = {level(end - start) for start, end, _ in group}
        touching = all(group[k][1] == group[k + 1][0] for k in range(COMPACT_RUN - 1))
        if len(levels) == 1 and touching:
            return group
    return None


def merge(run: RunDir, group: list[tuple[int, int, Path]], schema: pa.Schema) -> Path:
    """Writes the parts of `group` as one part (row groups of ROW_GROUP_ROWS), renames it into place, then
    deletes them."""
    start, end = group[0][0], group[-1][1]
    target = run.part(start, end)
    fd, temporary = tempfile.mkstemp(dir=run.results, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as out:
            with pq.ParquetWriter(out, schema, compression="zstd", write_page_checksum=True) as writer:
                pending: list[pa.Table] = []
                for part_start, part_end, path in group:
                    table = read_part(path, schema)  # its checksums verified: damage is never copied on
                    indices = table.column("game_index").to_numpy()
                    if not np.array_equal(indices, np.arange(part_start, part_end)):
                        raise ValueError(f"{path}: holds other games than its name says")
                    pending.append(table)
                    if sum(t.num_rows for t in pending) >= ROW_GROUP_ROWS:
                        writer.write_table(pa.concat_tables(pending), row_group_size=ROW_GROUP_ROWS)
                        pending = []
                if pending:
                    writer.write_table(pa.concat_tables(pending), row_group_size=ROW_GROUP_ROWS)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)  # the switch: from here readers see the merged part and not the others
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _sync_folder(run.results)  # the rename is on disk before any part it replaces is gone
    for _, _, path in group:
        path.unlink()
    return target


def remove_replaced(run: RunDir) -> None:
    """Deletes what a compaction killed midway left: parts that a merged part holds, and unfinished temporary
    files (a part being saved is never left half-written by the one writer that calls this)."""
    live = {path for _, _, path in live_parts(run.results)}
    for path in run.results.glob("part-*.parquet"):
        if PART_NAME.fullmatch(path.name) and path not in live:
            path.unlink(missing_ok=True)
    for path in run.results.glob(".part-*.tmp"):
        path.unlink(missing_ok=True)


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
