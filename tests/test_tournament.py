"""`arena tournament`, `ratings`, `replay` and `reproduce` on a small real run, and ratings that
equal the trueskill package's own, recomputed from the Parquet results."""

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import trueskill
from typer.testing import CliRunner

from arena import results
from arena.cli import app
from arena.config import load_config
from arena.results import SCHEMA, RunDir, digest, load_results, run_digest, write_part
from arena.tournament import referee

SMALL = Path(__file__).parent / "data" / "small.toml"
runner = CliRunner()


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    result = runner.invoke(app, ["tournament", str(SMALL), "--out", str(out), "--workers", "1", "--no-progress"],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "caterpillar" in result.output and "digest" in result.output
    (out / "printed.txt").write_text(result.output)  # beside the run directory, for the tests of what it prints
    return out / "small"


def test_the_run_directory_holds_everything(run):
    for name in ("config.toml", "manifest.json", "ratings.csv", "summary.csv", "report.html"):
        assert (run / name).is_file(), name
    assert (run / "config.toml").read_text() == SMALL.read_text()
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["games"] == len(load_results(RunDir(run))) == 294
    assert set(manifest["versions"]) >= {"arena", "python", "ray", "trueskill", "pandas", "pyarrow"}


def test_online_ratings_equal_the_trueskill_package(run):
    """`--method online`, recomputed game by game with trueskill.TrueSkill from the Parquet files."""
    config = load_config(SMALL)
    env = config.ratings.env()
    table = load_results(RunDir(run)).to_pylist()
    expected: dict[str, dict[str, trueskill.Rating]] = {}
    for row in table:
        ratings = expected.setdefault(row["variant"], {})
        teams = [(ratings.get(p, env.create_rating()),) for p in row["players"]]
        for player, (rating,) in zip(row["players"], env.rate(teams, ranks=row["ranks"]), strict=True):
            ratings[player] = rating
    result = runner.invoke(app, ["ratings", str(run), "--method", "online", "--format", "csv"])
    assert result.exit_code == 0, result.output
    saved = pd.read_csv(io.StringIO(result.output))
    assert set(saved["variant"]) == set(expected) and "go_for_it:jokers=true,players=3" in expected
    for row in saved.itertuples():
        want = expected[row.variant][row.bot]
        assert row.mu == pytest.approx(want.mu, abs=1e-6) and row.sigma == pytest.approx(want.sigma, abs=1e-6)


def test_ratings_are_recomputed_from_merged_parts(run, tmp_path):
    """ratings.csv is a cache: parts merged into one (and the cache gone) give the very same table."""
    before = runner.invoke(app, ["ratings", str(run), "--format", "csv"])
    assert before.exit_code == 0 and before.output == (run / "ratings.csv").read_text().rstrip("\n") + "\n"
    moved = RunDir(tmp_path / "moved")
    moved.results.mkdir(parents=True)
    shutil.copy(run / "config.toml", moved.config)
    table = load_results(RunDir(run))
    pq.write_table(table, moved.part(0, table.num_rows))
    after = runner.invoke(app, ["ratings", str(moved.path), "--format", "csv"])
    assert after.exit_code == 0 and after.output == before.output


@pytest.mark.parametrize("form, check", [
    ("csv", lambda out: out.splitlines()[0].startswith("variant,rank,tier,bot,mu,sigma,mu_lo,mu_hi,conservative")),
    ("json", lambda out: set(json.loads(out)) == {"caterpillar", "give_or_take", "go_for_it:jokers=true,players=3",
                                                   "duke_of_york"}),
    ("markdown", lambda out: "| rank | bot | mu [95% CI] |" in out and "### duke_of_york" in out),
    ("table", lambda out: "LOS" in out and "pairings" in out and "seat advantage" in out and "deal pairs" in out),
])
def test_ratings_formats(run, form, check):
    result = runner.invoke(app, ["ratings", str(run), "--format", form, "--all"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and check(result.output), result.output


def markdown_tables(text: str) -> dict[str, list[str]]:
    """The rows of each `### title` table of markdown output, by title."""
    sections = re.findall(r"^### (.*)\n\n((?:\|.*\n?)+)", text, flags=re.M)
    return {title: body.strip().splitlines()[2:] for title, body in sections}


def test_ratings_shows_a_headline_table_per_variant_and_the_rest_on_request(run):
    shown = lambda *flags: runner.invoke(app, ["ratings", str(run), *flags], env={"COLUMNS": "200"}).output
    headline = shown()
    titles = [line for line in headline.splitlines() if "(TrueSkill" in line]
    assert len(titles) == 4 and len(headline.splitlines()) <= 4 * 9 + 1
    assert "pairings" not in headline and "seat advantage" not in headline and "seated before" not in headline
    assert headline.splitlines()[-1] == "more: --pairs, --seats, --neighbours or --all"
    assert "seat advantage" in shown("--seats") and "pairings" not in shown("--seats")
    assert "seated before" in shown("--neighbours", "--game", "go_for_it")
    pairs = shown("--pairs", "--game", "caterpillar")
    assert "0 / ½ / 1 / 1½ / 2: how many deal pairs" in pairs  # the pentanomial column's legend
    # each pair once (3 bots: 3 pairs), from the side of the bot higher in the table
    tables = markdown_tables(shown("--pairs", "--game", "caterpillar", "--format", "markdown"))
    pairings = tables["caterpillar: pairings (LOS: chance the bot is the better)"]
    met = [frozenset(row.split(" | ")[:2]) for row in pairings]
    assert len(pairings) == 3 and len(set(met)) == 3


def test_the_tournament_prints_the_headline_tables_and_where_the_rest_are(run):
    printed = (run.parent / "printed.txt").read_text()
    assert "pairings (LOS" not in printed and "seat advantage" not in printed
    assert "(294 played now, serial, 1 worker)" in printed  # not "1 workers"
    assert f"arena ratings {run} --all" in printed and "report: file://" in printed
    assert "serial, 1 worker, batches" in (run / "report.html").read_text()


def test_ratings_of_one_game(run):
    result = runner.invoke(app, ["ratings", str(run), "--game", "go_for_it", "--format", "csv"])
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert {row["variant"] for row in rows} == {"go_for_it:jokers=true,players=3"} and len(rows) == 3


def test_replay_regenerates_a_game_from_its_seeds(run):
    saved = load_results(RunDir(run)).to_pylist()
    for index in (0, 150, 293):
        result = runner.invoke(app, ["replay", str(run), str(index), "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        assert (data["scores"], data["ranks"], data["players"]) == (saved[index]["scores"], saved[index]["ranks"],
                                                                    saved[index]["players"])
        outcome = referee.replay(data)  # and its moves replay through the engine to the same end
        assert list(outcome.scores) == data["scores"]
    readable = runner.invoke(app, ["replay", str(run), "3"])
    assert readable.exit_code == 0 and "result: " in readable.output


def test_reproduce_matches(run):
    result = runner.invoke(app, ["reproduce", str(run), "--workers", "1"])
    assert result.exit_code == 0 and "reproduced" in result.output


def tampered(run: Path, directory: Path) -> RunDir:
    """A copy of the run with one score of one game in its first result part raised by 100."""
    copy = RunDir(directory / run.name)
    shutil.copytree(run, copy.path)
    part = sorted(copy.results.glob("part-*.parquet"))[0]
    columns = pq.read_table(part).to_pydict()
    columns["scores"][3][0] += 100
    write_part(copy, columns["game_index"][0], columns["game_index"][-1] + 1, columns)
    return copy


def test_reproduce_refuses_a_run_whose_parts_were_changed(run, tmp_path):
    copy = tampered(run, tmp_path)
    result = runner.invoke(app, ["reproduce", str(copy.path), "--workers", "1"])
    assert result.exit_code == 1, result.output
    assert "MISMATCH: the run's result parts are not those its manifest records" in result.output


def test_reproduce_refuses_a_run_whose_parts_and_digest_were_changed(run, tmp_path):
    """A forger who also writes the changed parts' digest into the manifest: the re-run gives the real games."""
    copy = tampered(run, tmp_path)
    manifest = json.loads(copy.manifest.read_text())
    manifest["digest"] = run_digest(copy)
    copy.manifest.write_text(json.dumps(manifest))
    result = runner.invoke(app, ["reproduce", str(copy.path), "--workers", "1"])
    assert result.exit_code == 1, result.output
    assert "MISMATCH: the re-run gave other results" in result.output
    assert f"expected {manifest['digest']}" in result.output and "reproduced" not in result.output


def test_a_finished_run_is_not_overwritten_by_accident(run):
    again = runner.invoke(app, ["tournament", str(SMALL), "--out", str(run.parent), "--workers", "1", "--no-progress"])
    assert again.exit_code == 2 and "already holds a run" in again.output
    resumed = runner.invoke(app, ["tournament", str(SMALL), "--out", str(run.parent), "--workers", "1",
                                  "--no-progress", "--resume"])
    assert resumed.exit_code == 0 and "0 played now" in resumed.output


@pytest.mark.parametrize("args, message", [
    (["ratings", "nowhere"], "not a run directory"),
    (["replay", "nowhere", "1"], "not a run directory"),
    (["tournament", "nowhere.toml"], "no such config file"),
])
def test_missing_things_get_one_line(args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and message in result.output and len(result.output.strip().splitlines()) == 1


def test_replay_index_out_of_range(run):
    result = runner.invoke(app, ["replay", str(run), "5000"])
    assert result.exit_code == 2 and "outside this run's 0..293" in result.output


def test_ratings_of_an_unknown_game(run):
    result = runner.invoke(app, ["ratings", str(run), "--game", "poker"])
    assert result.exit_code == 2 and "no game 'poker'" in result.output


@pytest.mark.parametrize("in_memory", [0, results.DIGEST_IN_MEMORY], ids=["column-by-column", "in-memory"])
def test_the_digest_keeps_its_value_when_read_part_by_part(tmp_path, monkeypatch, in_memory):
    """Parts whose later ones bring new strings, missing values and lists of other lengths: the digest read
    part by part (column by column, or each part once) is the digest of the whole, and the value it has always had
    (manifests record it). The first part is written as parts were before the slowest moves' times were kept: it
    reads with them null, and neither they nor their values in the later parts change the digest."""
    monkeypatch.setattr(results, "DIGEST_IN_MEMORY", in_memory)
    empty = RunDir(tmp_path / "empty")
    assert run_digest(empty) == digest(SCHEMA.empty_table()) == (
        "df46921224e62c30744617dfa015a99945e74d94d9ee18b9ffb08ad407cc88d5")
    run = RunDir(tmp_path / "parts")
    parts = [  # per game: players, scores, ranks, termination, fault_seat, fault
        [(["a", "b"], [3, 1], [0, 1], "normal", None, None), (["b", "a"], [2, 2], [0, 0], "normal", None, None)],
        [(["a", "c", "b"], [0, 5, 1], [2, 0, 1], "crash", 0, "boom"),
         (["c", "a"], [1, 9], [1, 0], "normal", None, None), (["d", "c"], [7, 7], [0, 0], "timeout", 1, "slow")],
        [(["c", "d"], [4, -2], [0, 1], "crash", 1, "boom")],
    ]
    start = 0
    for games in parts:
        n = len(games)
        players, scores, ranks, terminations, fault_seats, faults = map(list, zip(*games, strict=True))
        columns = {
            "game_index": list(range(start, start + n)), "game": ["caterpillar"] * n,
            "variant": ["x" if len(seated) == 2 else "y" for seated in players], "table": [0] * n,
            "deal": list(range(start, start + n)), "rotation": [0] * n, "seed": [10 * i for i in range(n)],
            "players": players, "scores": scores, "ranks": ranks, "termination": terminations,
            "fault_seat": fault_seats, "fault": faults, "decisions": [5] * n, "duration": [0.5] * n,
            "slowest_move_cpu": [0.1 * start + 0.2] * n, "slowest_move_wall": [None] * n}
        if start == 0:  # an older part
            del columns["slowest_move_cpu"], columns["slowest_move_wall"]
        write_part(run, start, start + n, columns, pa.schema([field for field in SCHEMA if field.name in columns]))
        start += n
    assert load_results(run).column("slowest_move_cpu").to_pylist() == [None, None, 0.4, 0.4, 0.4, 0.7]
    assert run_digest(run) == digest(load_results(run)) == (
        "1e6c8c44ec55cab443625daecdbe0f7b90571ddf6715cf6d3c70dc5389255f4d")
