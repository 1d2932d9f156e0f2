"""arena.ratings against the trueskill 0.4.5 package itself, and the summaries on known values."""

from __future__ import annotations

import math
import random
import statistics

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import trueskill
from hypothesis import given, settings
from hypothesis import strategies as st
from trueskill import backends

from arena.ratings import (
    TABLE_COLUMNS,
    RatingSettings,
    pairwise_matrix,
    rate_games,
    rate_results,
    seat_advantage,
    summaries,
    wilson_interval,
)
from arena.ratings import online as ar

TOLERANCE = 1e-6
BOTS = [f"bot-{i}" for i in range(8)]


def ranks_of(scores: list[int]) -> list[int]:
    """Seats with a strictly higher score, as the referee ranks."""
    return [sum(other > score for other in scores) for score in scores]


def random_games(rng: random.Random, games: int, sizes: tuple[int, ...], top_score: int = 3):
    """(players, ranks) of random games; a small score range makes ties common."""
    players, ranks = [], []
    for _ in range(games):
        seated = rng.sample(BOTS, rng.choice(sizes))
        players.append(seated)
        ranks.append(ranks_of([rng.randint(0, top_score) for _ in seated]))
    return players, ranks


def package_ratings(players, ranks, rating_settings: RatingSettings, history: list | None = None) -> dict:
    """The same games rated by the package: one `env.rate` per game, ties as equal ranks."""
    env = rating_settings.env()
    current: dict = {}
    for seated, rank in zip(players, ranks, strict=True):
        rated = env.rate([(current.get(bot) or env.create_rating(),) for bot in seated], ranks=rank)
        for bot, (rating,) in zip(seated, rated, strict=True):
            current[bot] = rating
            if history is not None:
                history.append((rating.mu, rating.sigma))
    return current


def assert_matches(ours: ar.Ratings, reference: dict, exact: bool = False) -> None:
    """Every bot's mu and sigma within TOLERANCE of the package (or bit for bit)."""
    assert sorted(ours.bots) == sorted(reference)
    for bot, mu, sigma in zip(ours.bots, ours.mu, ours.sigma, strict=True):
        if exact:
            assert (mu, sigma) == (reference[bot].mu, reference[bot].sigma), bot
        else:
            assert abs(mu - reference[bot].mu) < TOLERANCE, bot
            assert abs(sigma - reference[bot].sigma) < TOLERANCE, bot


def test_cdf_and_pdf_are_the_packages_bit_for_bit():
    xs = np.concatenate([np.linspace(-40, 40, 4001), np.random.default_rng(1).normal(0, 4, 4000)])
    for x in xs.tolist():
        assert ar._cdf(x) == backends.cdf(x)
        assert ar._pdf(x) == backends.pdf(x)


@pytest.mark.parametrize("rating_settings", [
    RatingSettings(),
    RatingSettings(mu=1500.0, sigma=400.0, beta=200.0, tau=4.0, draw_probability=0.3),
    RatingSettings(draw_probability=0.0),
])
def test_two_players_with_draws_match_the_package(rating_settings):
    players, ranks = random_games(random.Random(2), 1500, (2,))
    assert sum(rank == [0, 0] for rank in ranks) > 200
    assert_matches(rate_games(players, ranks, rating_settings), package_ratings(players, ranks, rating_settings))


@pytest.mark.parametrize("size", [3, 4, 6])
def test_multiplayer_with_ties_matches_the_package_bit_for_bit(size):
    players, ranks = random_games(random.Random(size), 150, (size,))
    assert sum(len(set(rank)) < size for rank in ranks) > 50
    rating_settings = RatingSettings(draw_probability=0.2)
    assert_matches(rate_games(players, ranks, rating_settings), package_ratings(players, ranks, rating_settings),
                   exact=True)


def test_mixed_sizes_in_one_table_match_the_package():
    players, ranks = random_games(random.Random(7), 300, (2, 3, 4, 5, 6))
    assert_matches(rate_games(players, ranks), package_ratings(players, ranks, RatingSettings()))


def test_a_tuple_backend_takes_the_op_by_op_path_and_matches():
    normal = statistics.NormalDist()
    backend = (lambda x: 0.5 * math.erfc(-x / math.sqrt(2)), normal.pdf, normal.inv_cdf)
    rating_settings = RatingSettings(backend=backend)
    players, ranks = random_games(random.Random(3), 200, (2, 3, 4))
    assert_matches(rate_games(players, ranks, rating_settings), package_ratings(players, ranks, rating_settings),
                   exact=True)


def test_history_is_every_seat_after_its_game():
    players, ranks = random_games(random.Random(4), 120, (2, 4, 6))
    steps: list = []
    package_ratings(players, ranks, RatingSettings(), steps)
    ours = rate_games(players, ranks, history=True)
    assert len(ours.history_mu) == len(steps) == sum(map(len, players))
    assert np.allclose(ours.history_mu, [mu for mu, _ in steps], rtol=0, atol=TOLERANCE)
    assert np.allclose(ours.history_sigma, [sigma for _, sigma in steps], rtol=0, atol=TOLERANCE)
    assert rate_games(players, ranks).history_mu is None


@pytest.mark.parametrize(("mus", "ranks"), [
    ([0.0, 300.0], [0, 1]),  # an upset beyond the erfc approximation: cdf underflows to 0
    ([300.0, 0.0], [0, 1]),  # even the expected win: pdf underflows, so w is 0, not in (0, 1)
    ([0.0, 300.0, 300.0], [0, 1, 1]),
])
def test_hopeless_games_raise_as_the_package_does(mus, ranks):
    env = RatingSettings().env()
    with pytest.raises(FloatingPointError):
        env.rate([(trueskill.Rating(mu, 1.0),) for mu in mus], ranks=ranks)
    drawn = [a == b for a, b in zip(ranks, ranks[1:], strict=False)]
    with pytest.raises(FloatingPointError):
        ar._rate_graph(mus, [1.0] * len(mus), drawn, trueskill.calc_draw_margin(0.1, 2, env), env.tau,
                       env.beta ** 2)


@st.composite
def game_sequences(draw):
    """Settings and a short sequence of games of 2 to 6 of up to 7 bots, ties likely."""
    bots = BOTS[:draw(st.integers(2, 7))]
    games = []
    for _ in range(draw(st.integers(1, 15))):
        seated = draw(st.permutations(bots))[:draw(st.integers(2, min(6, len(bots))))]
        games.append((seated, ranks_of(draw(st.lists(st.integers(0, 3), min_size=len(seated),
                                                     max_size=len(seated))))))
    sigma = draw(st.floats(0.5, 20))
    rating_settings = RatingSettings(mu=draw(st.floats(-50, 50)), sigma=sigma, beta=draw(st.floats(0.1, 1)) * sigma,
                                     tau=draw(st.floats(0, 0.05)) * sigma, draw_probability=draw(st.floats(0, 0.6)))
    return rating_settings, games


@settings(max_examples=100, deadline=None)
@given(game_sequences())
def test_random_sequences_match_the_package(case):
    rating_settings, games = case
    players, ranks = [g for g, _ in games], [r for _, r in games]
    try:
        reference = package_ratings(players, ranks, rating_settings)
    except (ArithmeticError, ValueError) as error:
        with pytest.raises(type(error)):
            rate_games(players, ranks, rating_settings)
        return
    assert_matches(rate_games(players, ranks, rating_settings), reference)


def results_frame(rng: random.Random, variants: dict[str, tuple[int, ...]], games: int) -> pd.DataFrame:
    """A results frame of interleaved variants, as a run's Parquet parts read back."""
    rows = []
    for index in range(games):
        variant = rng.choice(sorted(variants))
        seated = rng.sample(BOTS, rng.choice(variants[variant]))
        scores = [rng.randint(0, 4) for _ in seated]
        fault = rng.randrange(len(seated)) if rng.random() < 0.05 else None
        rows.append({"game_index": index, "variant": variant, "players": seated, "scores": scores,
                     "ranks": ranks_of(scores), "termination": "normal", "fault_seat": fault})
    frame = pd.DataFrame(rows).astype({"fault_seat": "Int64"})
    return pa.Table.from_pandas(frame, preserve_index=False).to_pandas()


def test_rate_results_rates_each_variant_apart_in_game_index_order():
    variants = {"caterpillar": (2,), "go_for_it:players=3": (3,), "go_for_it:players=4": (4,),
                "go_for_it:players=6": (6,)}
    df = results_frame(random.Random(5), variants, 400)
    shuffled = df.sample(frac=1, random_state=0)  # the order of rows must not matter, only game_index
    rated = rate_results(shuffled, RatingSettings(draw_probability=0.15), history=True)
    assert list(rated) == sorted(variants)
    for variant, result in rated.items():
        games = df[df["variant"] == variant]
        reference = package_ratings([list(p) for p in games["players"]], [list(r) for r in games["ranks"]],
                                    RatingSettings(draw_probability=0.15))
        table = result.table
        assert list(table.columns) == TABLE_COLUMNS
        assert list(table["rank"]) == list(range(1, len(table) + 1))
        assert table["conservative"].is_monotonic_decreasing
        for row in table.itertuples():
            assert abs(row.mu - reference[row.bot].mu) < TOLERANCE
            assert abs(row.sigma - reference[row.bot].sigma) < TOLERANCE
        last = result.history.groupby("bot").tail(1).set_index("bot")
        assert np.allclose(last.loc[table["bot"], "mu"], table["mu"])
        assert result.history["game_index"].is_monotonic_increasing


def known_frame() -> pd.DataFrame:
    """Four hand-made games: a beats b, a and b tie, c beats a (a forfeits), then a, b tie over c."""
    return pd.DataFrame({
        "game_index": [0, 1, 2, 3],
        "variant": ["v"] * 4,
        "players": [["a", "b"], ["b", "a"], ["a", "c"], ["a", "b", "c"]],
        "scores": [[3, 1], [2, 2], [0, 5], [4, 4, 1]],
        "ranks": [[0, 1], [0, 0], [1, 0], [0, 0, 2]],
        "termination": ["normal", "normal", "forfeit", "normal"],
        "fault_seat": pd.array([None, None, 0, None], dtype="Int64"),
    })


def test_wilson_interval_of_known_cases():
    lo, hi = wilson_interval(8, 10)
    assert (round(float(lo), 4), round(float(hi), 4)) == (0.4902, 0.9433)
    assert wilson_interval(0, 10)[0] == 0 and wilson_interval(10, 10)[1] == 1
    assert np.isnan(wilson_interval(0, 0)[0])


def test_rating_table_counts_wins_scores_and_forfeits():
    table = rate_results(known_frame())["v"].table.set_index("bot")
    assert table.loc["a", ["games", "wins", "forfeits"]].tolist() == [4, 3, 1]
    assert table.loc["b", ["games", "wins", "forfeits"]].tolist() == [3, 2, 0]
    assert table.loc["c", ["games", "wins", "forfeits"]].tolist() == [2, 1, 0]
    lo, hi = wilson_interval(3, 4)
    assert table.loc["a", "win_rate"] == 0.75
    assert (table.loc["a", "win_rate_lo"], table.loc["a", "win_rate_hi"]) == pytest.approx((lo, hi))
    # a scored 3, 2, 0, 4: mean 2.25, sample std sqrt(35/12)
    half = 1.96 * math.sqrt(35 / 12) / 2
    assert table.loc["a", ["mean_score", "mean_score_lo", "mean_score_hi"]].tolist() == pytest.approx(
        [2.25, 2.25 - half, 2.25 + half])


def test_pairwise_matrix_counts_ties_as_half():
    # a-b: a won, tied, tied (2/3); a-c: lost, won (1/2); b-c: b won their one game
    expected = pd.DataFrame([[np.nan, 2 / 3, 0.5], [1 / 3, np.nan, 1.0], [0.5, 0.0, np.nan]],
                            index=pd.Index(["a", "b", "c"], name="bot"),
                            columns=pd.Index(["a", "b", "c"], name="opponent"))
    pd.testing.assert_frame_equal(pairwise_matrix(known_frame()), expected)


def test_pairwise_matrix_is_nan_where_bots_never_met():
    frame = known_frame().iloc[:3]
    matrix = pairwise_matrix(frame)
    assert np.isnan(matrix.loc["b", "c"]) and np.isnan(matrix.loc["c", "b"])


def test_seat_advantage_of_known_games():
    seats = seat_advantage(known_frame()).set_index("seat")
    assert seats["games"].tolist() == [4, 4, 1]
    assert seats["win_rate"].tolist() == [0.75, 0.75, 0.0]  # seat 0 won games 0, 1, 3; seat 1 games 1, 2, 3
    assert seats["mean_score"].tolist() == pytest.approx([(3 + 2 + 0 + 4) / 4, (1 + 2 + 5 + 4) / 4, 1.0])


def test_summaries_follow_the_rating_order():
    df = known_frame()
    rated = rate_results(df)
    summary = summaries(df, rated)["v"]
    order = rated["v"].table["bot"].tolist()
    assert list(summary.pairwise.index) == order == list(summary.pairwise.columns)
    assert summary.seats["games"].tolist() == [4, 4, 1]


def test_bad_frames_are_refused():
    with pytest.raises(ValueError, match="lacks"):
        rate_results(known_frame().drop(columns="ranks"))
    bad = known_frame()
    bad.at[0, "ranks"] = [0]
    with pytest.raises(ValueError, match="differ"):
        rate_results(bad)
    twice = known_frame()
    twice.at[0, "players"] = ["a", "a"]
    with pytest.raises(ValueError, match="more than once"):
        rate_results(twice)
    with pytest.raises(ValueError):
        RatingSettings(draw_probability=1.0)
