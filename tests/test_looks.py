"""A matchmaker's looks (arena/ratings/looks.py): the tables' own numbers below WARM_FROM games, a checkpoint
updated by the games since beyond, and a function of the games alone either way."""

from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
import pytest

from arena.ratings import looks
from arena.ratings.tables import RunningRatings, rate_parts
from arena.results import RATED_COLUMNS, SCHEMA

BOTS = 8
REPLICATES = 30


def six_player_games(deals: int, seed: int = 5) -> pa.Table:
    """Six-player results among BOTS of skills 0..3: each deal at a table of six drawn so that every company has
    played as many deals as any other, give or take one, at every deal (the fit weighs companies equally and a
    checkpoint keeps the weights of its own games, `arena.ratings.company`), in random seat order, played in its
    6 rotations,
    the scores a seat's luck in the deal, the bot's skill and noise (equal scores tie)."""
    rng = np.random.default_rng(seed)
    companies = np.array(list(itertools.combinations(range(BOTS), 6)))
    rounds = -(-deals // len(companies))  # every company once a round, in a random order
    tables = companies[np.concatenate([rng.permutation(len(companies)) for _ in range(rounds)])[:deals]]
    tables = tables[np.arange(deals)[:, None], np.argsort(rng.random((deals, 6)), axis=1)]  # random seats
    games = deals * 6
    deal = np.repeat(np.arange(deals), 6)
    seats = tables[deal[:, None], (np.arange(6)[None, :] + np.tile(np.arange(6), deals)[:, None]) % 6]
    luck = np.repeat(rng.normal(size=(deals, 6)), 6, axis=0)
    scores = np.round(2 * luck + np.linspace(0, 3, BOTS)[seats] + 2 * rng.normal(size=(games, 6))).astype(np.int64)
    ranks = (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    offsets = pa.array(np.arange(0, 6 * games + 1, 6, dtype=np.int32))
    names = pa.array([f"bot-{i:02d}" for i in range(BOTS)])
    columns = {
        "game_index": pa.array(np.arange(games)), "variant": pa.array(["go_for_it:6"] * games),
        "deal": pa.array(deal.astype(np.int32)), "seed": pa.array(deal * 7919 + 13),
        "players": pa.ListArray.from_arrays(offsets, names.take(pa.array(seats.reshape(-1)))),
        "scores": pa.ListArray.from_arrays(offsets, pa.array(scores.reshape(-1))),
        "ranks": pa.ListArray.from_arrays(offsets, pa.array(ranks.reshape(-1))),
        "termination": pa.array(["normal"] * games), "fault_seat": pa.nulls(games, pa.int32()),
    }
    schema = pa.schema([SCHEMA.field(name) for name in RATED_COLUMNS])
    return pa.Table.from_arrays([columns[name].cast(schema.field(name).type) for name in RATED_COLUMNS],
                                schema=schema)


def looked(parts: list[pa.Table]) -> looks.Standing:
    running = RunningRatings(replicates=REPLICATES, progress=False)
    for part in parts:
        running.add(part)
    return looks.standings(running)["go_for_it:6"]


def test_below_warm_from_a_look_is_the_tables_order_and_intervals():
    games = six_player_games(200)
    standing = looked([games])
    rated = rate_parts([games], replicates=REPLICATES)["go_for_it:6"]
    assert standing.bots == list(rated.table["bot"])
    assert np.array_equal(standing.mu, rated.table["mu"].to_numpy())
    assert np.array_equal(standing.difference_se, rated.difference_se)


def test_a_look_depends_on_the_games_alone_not_on_when_the_looks_were_taken(monkeypatch):
    """Looks after every round of a league, and one look at the same games read at once (as a `play` run again
    reads them), give the same standing bit for bit, through checkpoints and the updates between them."""
    monkeypatch.setattr(looks, "WARM_FROM", 600)
    games = six_player_games(594)
    rounds = [games.slice(first, 300) for first in range(0, games.num_rows, 300)]
    running = RunningRatings(replicates=REPLICATES, progress=False)
    checkpoints = set()
    for number, round_ in enumerate(rounds, 1):
        running.add(round_)
        every_round = looks.standings(running)["go_for_it:6"]
        checkpoint = running.variants["go_for_it:6"].checkpoint
        checkpoints.add(None if checkpoint is None else checkpoint.games)
        at_once = looked([pa.concat_tables(rounds[:number])])
        assert every_round.bots == at_once.bots
        assert np.array_equal(every_round.mu, at_once.mu)
        assert np.array_equal(every_round.difference_se, at_once.difference_se)
    assert len(checkpoints - {None}) >= 4  # 600, 750, 937, ... games: several checkpoints, each updated by later rounds


@pytest.mark.parametrize("deals", [594, 1450])
def test_an_updated_checkpoint_stays_close_to_fitting_every_game(monkeypatch, deals):
    """Up to a quarter more games than the checkpoint: mu within a tenth of sigma of the fit of every game, the
    same order wherever that fit separates two bots, difference errors within a quarter (30 replicates each)."""
    monkeypatch.setattr(looks, "WARM_FROM", 600)
    games = six_player_games(deals)
    standing = looked([games])
    checkpoint = looks.milestone(games.num_rows)
    assert games.num_rows - checkpoint > checkpoint // 10  # the update carries many games
    rated = rate_parts([games], replicates=REPLICATES)["go_for_it:6"]
    exact = rated.table.set_index("bot")
    mu = dict(zip(standing.bots, standing.mu, strict=True))
    assert max(abs(mu[bot] - exact.loc[bot, "mu"]) / exact.loc[bot, "sigma"] for bot in exact.index) < 0.1
    order = list(rated.table["bot"])
    place = {bot: i for i, bot in enumerate(standing.bots)}
    se = standing.difference_se
    for i, a in enumerate(order):
        for j in range(i + 1, len(order)):
            b = order[j]
            if exact.loc[a, "mu"] - exact.loc[b, "mu"] > 1.96 * rated.difference_se[i, j]:
                assert place[a] < place[b]
            ratio = se[place[a], place[b]] / rated.difference_se[i, j]
            assert 0.75 < ratio < 1.33, (a, b, ratio)
