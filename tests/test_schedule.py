"""The round robin schedule: tables, rotations, stable indices and seeds (DESIGN.md, Tournaments)."""

from itertools import combinations

from arena.config import parse_config
from arena.runner import missing_batches
from arena.schedule import Schedule

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
    assert games[48].block is gfi and games[48].seat_bots == (0, 1, 2)


def test_seeds_depend_on_the_table_not_on_its_position():
    """Adding a bot leaves the seeds of the existing tables as they were."""
    fewer = Schedule(parse_config(TEXT.replace('[[bots]]\nname = "r3"\npath = "random"\n', "")))
    more = Schedule(parse_config(TEXT))
    assert fewer.game(0).deal_seed == more.game(0).deal_seed
    assert Schedule(parse_config(TEXT.replace("seed = 3", "seed = 4"))).game(0).deal_seed != more.game(0).deal_seed


def test_missing_batches_fill_the_gaps():
    assert missing_batches([(0, 10)], [], 4) == [(0, 4), (4, 8), (8, 10)]
    assert missing_batches([(0, 10)], [(0, 4), (6, 8)], 3) == [(4, 6), (8, 10)]
    assert missing_batches([(0, 10)], [(0, 10)], 3) == []
    assert missing_batches([(0, 7)], [(2, 3)], 100) == [(0, 2), (3, 7)]
    # the rounds of a stopping rule: several ranges, parts of earlier rounds on disk
    assert missing_batches([(2, 6), (10, 14)], [(0, 4), (12, 13)], 3) == [(4, 6), (10, 12), (13, 14)]
    assert missing_batches([(5, 9)], [(0, 2), (20, 30)], 2) == [(5, 7), (7, 9)]
