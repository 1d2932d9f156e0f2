"""Compaction of a league's result parts: merged parts hold the same games, readers see the same tables before and
after, and a compaction SIGKILLed at any moment (a real process, real Parquet) leaves the league reading the same
games, finished by the next compaction."""

import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.league import compaction
from arena.league.catalog import Catalog
from arena.league.play import LEAGUE_SCHEMA, finished_end, league_parts
from arena.league.standings import league_ratings
from arena.results import PART_NAME, RunDir, digest, live_parts, run_digest

LEAGUE_TOML = """
name = "club"
seed = 5

[[games]]
game = "caterpillar"

[run]
workers = 1
batch_size = 2

[league]
deals = 1
placement = 1
isolation = "none"
"""

SMALL_RUN = 4
"""Parts merged at once in these tests (the league's own is 16): levels below 16, 64, 256 games, so a small league
climbs three of them."""


def arena(*args):
    """`arena ARGS` in this process; asserts exit 0."""
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return SimpleNamespace(stdout=result.stdout)


@pytest.fixture(scope="module")
def uncompacted(tmp_path_factory) -> Path:
    """A league of many rounds whose every batch of two games is its own part, played with compaction off."""
    folder = tmp_path_factory.mktemp("compaction")
    (folder / "league.toml").write_text(LEAGUE_TOML)
    league = folder / "league"
    arena("league", "new", league, folder / "league.toml")
    for bot in ("random", "greedy", "heuristic"):
        arena("league", "add", league, bot, "--no-sandbox", "--games", "1")
    patch = pytest.MonkeyPatch()
    patch.setattr(compaction, "COMPACT_RUN", 10**9)  # never a run long enough: every part stays as saved
    try:
        arena("league", "play", league, "--games", "200", "--no-progress")
    finally:
        patch.undo()
    assert len(list((league / "results").glob("part-*.parquet"))) >= 100
    return league


def readings(league: Path, commands: bool = False) -> tuple:
    """What readers see: the digest of the games as the league reads them and as a run's reader does, and the
    ratings; with `commands`, `arena league table` as JSON and its history too."""
    games = pa.concat_tables(league_parts(league, rounds(league)))
    rated = {variant: r.table[["bot", "mu", "sigma", "games"]].to_dict("records")
             for variant, r in league_ratings(league, replicates=5).items()}
    seen = (digest(games.drop(["round"])), run_digest(RunDir(league)), rated)
    if commands:
        seen += (arena("league", "table", league, "--format", "json").stdout,
                 arena("league", "table", league, "--history", "--format", "csv").stdout)
    return seen


def rounds(league: Path):
    catalog = Catalog(league)
    try:
        return catalog.rounds()
    finally:
        catalog.close()


def compact_copy(league: Path, copy: Path) -> Path:
    shutil.copytree(league, copy)
    return copy


def test_compaction_merges_finished_rounds_into_few_parts_and_readers_see_the_same(uncompacted, tmp_path,
                                                                                    monkeypatch):
    before = readings(uncompacted, commands=True)
    league = compact_copy(uncompacted, tmp_path / "compacted")
    monkeypatch.setattr(compaction, "COMPACT_RUN", SMALL_RUN)
    parts = len(live_parts(league / "results"))
    merged = compaction.compact(league, LEAGUE_SCHEMA, finished_end(rounds(league)))
    left = sorted(live_parts(league / "results"))
    assert merged >= parts - len(left) and len(left) <= 3 * (SMALL_RUN - 1) < parts / 5
    assert {compaction.level(end - start) for start, end, _ in left} >= {1, 2}, "merged parts merged again"
    assert sorted((league / "results").iterdir()) == [path for _, _, path in left], "nothing else left behind"
    assert readings(league, commands=True) == before, "the same tables, history and games"
    # a merged part spans rounds: one round is read from its own rows, in the same games as before
    wanted = rounds(league)[len(rounds(league)) // 2]
    got = [t for t in league_parts(league, [wanted], ["game_index", "round"])]
    assert sum(map(len, got)) == wanted.games
    assert {r for t in got for r in t.column("round").to_pylist()} == {wanted.number}


def test_a_reader_sees_a_merged_part_and_not_the_parts_it_replaced(uncompacted, tmp_path, monkeypatch):
    before = readings(uncompacted)
    league = compact_copy(uncompacted, tmp_path / "both")
    small = sorted((league / "results").glob("part-*.parquet"))
    kept = {path.name: path.read_bytes() for path in small}
    monkeypatch.setattr(compaction, "COMPACT_RUN", SMALL_RUN)
    compaction.compact(league, LEAGUE_SCHEMA, finished_end(rounds(league)))
    for name, data in kept.items():  # as a compaction killed after its renames, before its deletes, leaves it
        (league / "results" / name).write_bytes(data)
    assert readings(league) == before
    compaction.compact(league, LEAGUE_SCHEMA, finished_end(rounds(league)))
    assert len(list((league / "results").iterdir())) < len(kept) / 5, "the next compaction deletes them"
    assert readings(league) == before


def test_a_reader_reads_on_while_a_compaction_merges_the_parts_it_listed(uncompacted, tmp_path, monkeypatch):
    """A look that reads the round just finished while `play` compacts it: every merge deletes parts the reader
    listed and has not read yet, more times over than it would give up after in a row; it reads every game once,
    in order."""
    before = readings(uncompacted)
    league = compact_copy(uncompacted, tmp_path / "merging")
    monkeypatch.setattr(compaction, "COMPACT_RUN", SMALL_RUN)
    results = RunDir(league).results
    merges = 0
    reader = league_parts(league, rounds(league))
    read = [next(reader)]
    for part in reader:  # between two reads, the next SMALL_RUN parts (listed, not yet read) are merged
        read.append(part)
        group = compaction.mergeable([p for p in live_parts(results) if p[0] >= part.column("game_index")[-1].as_py()
                                      + 1], finished_end(rounds(league)))
        if group:
            compaction.merge(RunDir(league), group, LEAGUE_SCHEMA)
            merges += 1
    assert merges > 3
    games = pa.concat_tables(read)
    assert games.column("game_index").to_pylist() == list(range(games.num_rows))
    assert digest(games.drop(["round"])) == before[0]


KILLED = """
import sys
from arena.league import compaction
from arena.league.catalog import Catalog
from arena.league.play import LEAGUE_SCHEMA, finished_end
compaction.COMPACT_RUN = {run}
catalog = Catalog(sys.argv[1])
limit = finished_end(catalog.rounds())
catalog.close()
print("start", flush=True)
compaction.compact(sys.argv[1], LEAGUE_SCHEMA, limit)
print("done", flush=True)
"""


@pytest.mark.slow
def test_a_compaction_sigkilled_at_any_moment_leaves_the_same_games(uncompacted, tmp_path, monkeypatch):
    before = readings(uncompacted)
    script = KILLED.format(run=SMALL_RUN)

    def compact_in_a_process(league: Path, kill_after: float | None) -> float | None:
        """Compacts `league` in a process of its own, SIGKILLed `kill_after` seconds into the compaction: how long
        the compaction took from its start when it finished, None when the kill cut it short."""
        process = subprocess.Popen([sys.executable, "-c", script, str(league)], stdout=subprocess.PIPE, text=True)
        assert process.stdout.readline() == "start\n"
        started = time.monotonic()
        if kill_after is not None:
            time.sleep(kill_after)
            process.kill()
        finished = process.stdout.read() == "done\n"
        process.wait(60)
        return time.monotonic() - started if finished else None

    whole = compact_copy(uncompacted, tmp_path / "whole")
    took = compact_in_a_process(whole, None)  # the kills fall within a compaction's own time, start-up aside
    assert took is not None
    rng = random.Random(7)
    cut_short = 0
    for attempt in range(12):  # until three kills fell midway (a busy machine's timings vary), six at least
        if attempt >= 6 and cut_short >= 3:
            break
        league = compact_copy(uncompacted, tmp_path / f"killed-{attempt}")
        cut_short += compact_in_a_process(league, rng.uniform(0, took)) is None
        names = {path.name for path in (league / "results").glob("part-*.parquet")}
        assert all(PART_NAME.fullmatch(name) for name in names)
        assert readings(league) == before, f"killed after {attempt}: the league reads the same games"
        monkeypatch.setattr(compaction, "COMPACT_RUN", SMALL_RUN)
        compaction.compact(league, LEAGUE_SCHEMA, finished_end(rounds(league)))  # the next one finishes it
        assert sorted(p.name for p in (league / "results").iterdir()) == \
            sorted(p.name for p in (whole / "results").iterdir())
        assert readings(league) == before
    assert cut_short >= 3, "most compactions were killed midway"
