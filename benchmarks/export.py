#!/usr/bin/env python3
"""The memory of exporting a league's games (`arena league export`, `/api/games.parquet`): streamed a part at a time,
against the same games gathered first and written at once.

    .venv/bin/python benchmarks/export.py stream 100      # 100 parts of 10,000 two-player games, streamed
    .venv/bin/python benchmarks/export.py whole 100       # the same games gathered into one table first

Each run is a process of its own (peak RSS is per process). The games are made up (Caterpillar-like rows of
arena.league.play's LEAGUE_SCHEMA, 50 bot names), the Parquet bytes are counted and dropped; it prints the games,
the file's size, the seconds and the peak RSS against the RSS before.
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np
import pyarrow as pa

from arena.league.games import parquet_stream
from arena.league.play import LEAGUE_SCHEMA

PART = 10_000


def part(k: int, rng: np.random.Generator) -> pa.Table:
    """The k-th part: PART games with league game indices, as a compacted league part holds them."""
    index = np.arange(k * PART, (k + 1) * PART)
    return pa.table({
        "game_index": index, "game": ["caterpillar"] * PART, "variant": ["caterpillar"] * PART,
        "table": np.zeros(PART, np.int32), "deal": (index // 2).astype(np.int32),
        "rotation": (index % 2).astype(np.int32), "seed": rng.integers(0, 2**62, PART),
        "players": [[f"bot{i % 50}", f"bot{(i + 7) % 50}"] for i in index],
        "scores": rng.integers(0, 900, (PART, 2)).tolist(), "ranks": [[0, 1]] * PART,
        "termination": ["normal"] * PART, "fault_seat": pa.nulls(PART, pa.int32()),
        "fault": pa.nulls(PART, pa.string()), "decisions": np.full(PART, 26, np.int32),
        "duration": rng.random(PART), "round": (index // 1000).astype(np.int32)}, schema=LEAGUE_SCHEMA)


def main() -> None:
    mode, parts = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(1)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started, size = time.perf_counter(), 0
    tables = (part(k, rng) for k in range(parts))
    for chunk in parquet_stream(tables if mode == "stream" else [pa.concat_tables(list(tables))]):
        size += len(chunk)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{mode}: {parts * PART:,} games, {size / 1e6:.1f} MB of Parquet, {time.perf_counter() - started:.1f} s, "
          f"peak RSS {peak / 1024:.0f} MB ({before / 1024:.0f} MB before)")


if __name__ == "__main__":
    main()
