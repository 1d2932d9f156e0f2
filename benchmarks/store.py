#!/usr/bin/env python3
"""Reading a league's games for rating: its compacted Parquet parts against one SQLite table of the same games.

    .venv/bin/python benchmarks/store.py LEAGUE

Reads the rated columns of every finished round of LEAGUE as `arena league table` does (arena.league.play's
league_parts), writes the same games into a SQLite table in a temporary folder (lists of players, scores and ranks
as JSON text, the game index as primary key), reads them back into Arrow columns, and prints the CPU seconds of
each read and the bytes each store takes.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa

from arena.league.catalog import Catalog
from arena.league.play import league_parts
from arena.results import RATED_COLUMNS, live_parts


def main() -> None:
    league = Path(sys.argv[1])
    catalog = Catalog(league)
    rounds = [r for r in catalog.rounds() if r.status == "done"]
    catalog.close()
    started = time.process_time()
    table = pa.concat_tables(league_parts(league, rounds, RATED_COLUMNS))
    parquet = time.process_time() - started
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "games.sqlite"
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE games (game_index INTEGER PRIMARY KEY, variant TEXT, deal INTEGER, seed INTEGER, "
                   "players TEXT, scores TEXT, ranks TEXT, termination TEXT, fault_seat INTEGER)")
        lists = {"players", "scores", "ranks"}
        db.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [tuple(json.dumps(row[c]) if c in lists else row[c] for c in RATED_COLUMNS)
                        for row in table.to_pylist()])
        db.commit()
        db.close()
        started = time.process_time()
        db = sqlite3.connect(path)
        rows = db.execute(f"SELECT {', '.join(RATED_COLUMNS)} FROM games ORDER BY game_index").fetchall()
        columns = {c: [json.loads(r[k]) if c in lists else r[k] for r in rows] for k, c in enumerate(RATED_COLUMNS)}
        pa.Table.from_pydict(columns, schema=table.schema)
        sqlite = time.process_time() - started
        db.close()
        sqlite_bytes = path.stat().st_size
    parquet_bytes = sum(p.stat().st_size for _, _, p in live_parts(league / "results"))
    parts = len(live_parts(league / "results"))
    print(f"{table.num_rows:,} games: Parquet ({parts} parts) {parquet:.2f} s CPU, {parquet_bytes / 1e6:.1f} MB; "
          f"SQLite {sqlite:.2f} s CPU, {sqlite_bytes / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
