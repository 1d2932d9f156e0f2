"""The round robin schedule: tables, rotations, stable indices and seeds (docs/commands.md, Configs)."""

import math
import random
from collections import Counter
from itertools import combinations, permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.config import parse_config
from arena.seeds import derive_seed, derive_seeds, seed_after, seed_start, seeded_rng, seeds_after
from arena.tournament.runner import missing_batches
from arena.tournament.schedule import Schedule

TEXT = """
name = "s"
seed = 3
[[games]]
game = "caterpillar"
deals = 4
[[games]]
game = "go_for_it"
deals = 2
duplicate = false
rules = { players = 3 }
[[bots]]
name = "random"
[[bots]]
name = "greedy"
[[bots]]
name = "r2"
path = "random"
[[bots]]
name = "r3"
path = "random"
"""


def test_tables_deals_and_rotations_in_canonical_order():
    schedule = Schedule(parse_config(TEXT))
    cat, gfi = schedule.blocks
    assert cat.tables == tuple(combinations(range(4), 2)) and cat.rotations == 2
    assert cat.count == 6 * 4 * 2 and gfi.count == 4 * 2 * 1 and schedule.total == 56
    games = [schedule.game(i) for i in range(schedule.total)]
    assert [g.index for g in games] == list(range(56))
    first, second = games[0], games[1]
    assert (first.table, first.deal, first.rotation, first.seat_bots) == (0, 0, 0, (0, 1))
    assert (second.table, second.deal, second.rotation, second.seat_bots) == (0, 0, 1, (1, 0))
    assert first.deal_seed == second.deal_seed, "all rotations of one deal share its seed"
    assert first.bot_seeds != second.bot_seeds
    assert len({g.deal_seed for g in games}) == 6 * 4 + 4 * 2
    assert games[48].block is gfi and sorted(games[48].seat_bots) == [0, 1, 2]


def test_seeds_depend_on_the_table_not_on_its_position():
    """Adding a bot leaves the seeds of the existing tables as they were."""
    fewer = Schedule(parse_config(TEXT.replace('[[bots]]\nname = "r3"\npath = "random"\n', "")))
    more = Schedule(parse_config(TEXT))
    assert fewer.game(0).deal_seed == more.game(0).deal_seed
    assert Schedule(parse_config(TEXT.replace("seed = 3", "seed = 4"))).game(0).deal_seed != more.game(0).deal_seed


def test_seeds_are_hashes_of_the_config_seed_table_deal_rotation_and_seat():
    game = Schedule(parse_config(TEXT)).game(13)  # 13 = (table 1 * 4 deals + deal 2) * 2 rotations + rotation 1
    assert (game.table, game.deal, game.rotation, game.seat_bots) == (1, 2, 1, (2, 0))
    assert game.seat_names == ("r2", "random")
    assert game.deal_seed == derive_seed(3, "caterpillar", "random,r2", 2)
    assert game.bot_seeds == tuple(derive_seed(game.deal_seed, "bot", 1, seat) for seat in range(2))


def test_derive_seeds_hashes_as_derive_seed():
    for parts, count in [((1, "bot"), 2), ((2**62 + 5, "bot", 3), 6), (("x",), 1), ((), 3)]:
        assert derive_seeds(parts, count) == [derive_seed(*parts, i) for i in range(count)]


def test_seed_starts_extend_as_derive_seed():
    """A schedule hashes a table's start once, then a deal's, then a rotation's: the seeds must not change."""
    table = seed_start(3, "caterpillar", "random,r2")
    deal = seed_start(seed_after(table, 4), "bot")
    assert seed_after(table, 4) == derive_seed(3, "caterpillar", "random,r2", 4)
    assert seeds_after(seed_start(1, after=deal), 3) == [derive_seed(seed_after(table, 4), "bot", 1, seat)
                                                         for seat in range(3)]


@given(st.integers(min_value=0, max_value=2**64))
def test_seeded_rng_is_random_random_of_the_seed(seed):
    ours, theirs = seeded_rng(seed), random.Random(seed)
    assert ours.getstate() == theirs.getstate() and type(ours) is random.Random
    assert [ours.random(), ours.gauss(0, 1), ours.getrandbits(70)] == [theirs.random(), theirs.gauss(0, 1),
                                                                      theirs.getrandbits(70)]


def test_games_in_a_range_are_the_games_at_their_indices():
    """Played in order (a batch), each game is exactly the one random access gives (a replay, quarantine)."""
    config = parse_config(TEXT)
    one_by_one = [Schedule(config).game(i) for i in range(56)]
    for start, end in [(0, 56), (3, 17), (47, 50), (48, 49), (49, 56), (5, 5)]:
        assert list(Schedule(config).games(start, end)) == one_by_one[start:end]
    schedule = Schedule(config)
    assert list(schedule.games(40, 56)) + list(schedule.games(2, 9)) == one_by_one[40:56] + one_by_one[2:9]


def _seating_config(players: int, deals: int, duplicate: bool = True) -> str:
    bots = "".join(f'[[bots]]\nname = "b{i}"\npath = "random"\n' for i in range(players))
    return (f'name = "seats"\nseed = 11\n[[games]]\ngame = "go_for_it"\ndeals = {deals}\n'
            f'duplicate = {str(duplicate).lower()}\nrules = {{ players = {players} }}\n{bots}')


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_run_of_deals_seats_each_bot_after_each_other_equally_often(players):
    """A table's deals go through all (n - 1)! cyclic orders: after each whole run, every bot has sat right after
    every other bot (n - 2)! times; each deal's rotations put every bot in every seat once, on the deal's cards."""
    run = math.factorial(players - 1)
    schedule = Schedule(parse_config(_seating_config(players, 2 * run)))
    games = list(schedule.games(0, schedule.total))
    for first in (0, run):  # two runs, shuffled differently
        after = Counter()
        orders = set()
        for deal in range(first, first + run):
            rotations = [g for g in games if g.deal == deal]
            assert len({g.deal_seed for g in rotations}) == 1
            assert [g.rotation for g in rotations] == list(range(players))
            assert all(sorted(g.seat_bots[s] for g in rotations) == list(range(players)) for s in range(players))
            seats = rotations[0].seat_bots
            orders.add(seats[seats.index(0):] + seats[:seats.index(0)])
            after.update((seats[s - 1], seats[s]) for s in range(players))
        assert len(orders) == run, "every cyclic order once a run"
        assert after == Counter({(a, b): math.factorial(players - 2) for a in range(players) for b in range(players)
                                 if a != b})
    runs = [[g.seat_bots for g in games if g.rotation == 0 and first <= g.deal < first + run] for first in (0, run)]
    assert runs[0] != runs[1] or players == 3, "each run has its own shuffle (of only two orders at 3 players)"


def test_without_rotations_a_table_goes_through_every_order():
    schedule = Schedule(parse_config(_seating_config(3, 12, duplicate=False)))
    seats = [g.seat_bots for g in schedule.games(0, 12)]
    assert sorted(seats[:6]) == sorted(seats[6:]) == sorted(permutations(range(3)))


def test_two_player_tables_seat_the_config_order_then_its_rotation():
    schedule = Schedule(parse_config(TEXT))
    assert {g.seat_bots for g in schedule.games(0, 8)} == {(0, 1), (1, 0)}
    assert [g.seat_bots for g in schedule.games(0, 4)] == [(0, 1), (1, 0), (0, 1), (1, 0)]


def test_missing_batches_fill_the_gaps():
    assert missing_batches([(0, 10)], [], 4) == [(0, 4), (4, 8), (8, 10)]
    assert missing_batches([(0, 10)], [(0, 4), (6, 8)], 3) == [(4, 6), (8, 10)]
    assert missing_batches([(0, 10)], [(0, 10)], 3) == []
    assert missing_batches([(0, 7)], [(2, 3)], 100) == [(0, 2), (3, 7)]
    # the rounds of a stopping rule: several ranges, parts of earlier rounds on disk
    assert missing_batches([(2, 6), (10, 14)], [(0, 4), (12, 13)], 3) == [(4, 6), (10, 12), (13, 14)]
    assert missing_batches([(5, 9)], [(0, 2), (20, 30)], 2) == [(5, 7), (7, 9)]


PINNED = """
name = "pinned"
seed = 3
[[games]]
game = "go_for_it"
deals = 6
rules = { players = 3 }
bots = ["greedy", "r2", "random"]
[[games]]
game = "go_for_it"
deals = 6
rules = { players = 3 }
bots = ["greedy", "r3", "random"]
deals_of = { seed = 3, table = ["greedy", "r2", "random"] }
[[bots]]
name = "greedy"
[[bots]]
name = "r2"
path = "random"
[[bots]]
name = "r3"
path = "random"
[[bots]]
name = "random"
"""


def test_a_table_pinned_to_another_plays_its_deals_seats_and_bot_seeds_with_its_bots_in_their_places():
    """r3 in r2's place: every game of the pinned table has the deal seed, the seat order and the bots' seeds of
    the other table's game at the same place, r3 where r2 sat; without the pin its deals are its own."""
    schedule = Schedule(parse_config(PINNED))
    own, pinned = schedule.blocks
    assert own.count == pinned.count == 6 * 3
    for offset in range(own.count):
        mirrored, game = schedule.game(own.start + offset), schedule.game(pinned.start + offset)
        assert game.deal_seed == mirrored.deal_seed and game.bot_seeds == mirrored.bot_seeds
        assert game.seat_names == tuple("r3" if name == "r2" else name for name in mirrored.seat_names)
    assert len({schedule.game(i).seat_names for i in range(pinned.start, pinned.end)}) == 6  # seat orders vary
    free = Schedule(parse_config(PINNED.replace('deals_of = { seed = 3, table = ["greedy", "r2", "random"] }\n', "")))
    assert free.game(pinned.start).deal_seed != schedule.game(pinned.start).deal_seed


def test_a_pinned_table_deals_the_same_cards_in_its_transcripts():
    """The transcripts of the pinned table's games hold, deal for deal, the cards of the other table's."""
    from arena.tournament.replay import replay_scheduled

    config = parse_config(PINNED)
    own, pinned = Schedule(config).blocks
    for offset in range(own.count):
        mirrored, game = replay_scheduled(config, own.start + offset), replay_scheduled(config, pinned.start + offset)
        assert [deal["layout"] for deal in game["deals"]] == [deal["layout"] for deal in mirrored["deals"]]
        assert game["players"] == ["r3" if name == "r2" else name for name in mirrored["players"]]


PIN = 'deals_of = { seed = 3, table = ["greedy", "r2", "random"] }'


@pytest.mark.parametrize("pin, message", [
    ('deals_of = { seed = 3, table = ["greedy", "r2"] }', "games[1].deals_of.table: must be an array of 3 bot names"),
    ('deals_of = { table = ["greedy", "r2", "random"] }', "games[1].deals_of.seed: missing"),
    ('deals_of = { seed = -1, table = ["greedy", "r2", "random"] }', "games[1].deals_of.seed: "),
])
def test_a_pin_without_its_seed_or_table_is_refused_in_one_line(pin, message):
    from arena.config import ConfigError

    for text, expected in ((PINNED.replace(PIN, pin), message),
                           (PINNED.replace('bots = ["greedy", "r3", "random"]\n', ""),
                            "games[1].deals_of: needs bots, exactly 3")):
        with pytest.raises(ConfigError) as refused:
            parse_config(text)
        assert str(refused.value).startswith(expected) and "\n" not in str(refused.value)
