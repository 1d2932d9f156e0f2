"""The round robin: which bots play which game at which index, with which seeds.

Game indices follow a canonical order: config game entries in order; within one, tables (every
combination of `players` bots, in config order; with a gauntlet only those that include its bot),
then deals, then cyclic seat rotations. An index
is decoded arithmetically, so a schedule of millions of games costs nothing to hold.

Seats. Each deal seats its table's bots in one cyclic order and plays every rotation of it, so every
bot holds every seat's cards once and the luck of the deal cancels. At three or more players the
cyclic order also decides who sits after whom, and in some games the player after a weak one
profits; so the order is not the config's. A table's deals go through all (n - 1)! cyclic orders of
its bots, each run of (n - 1)! deals in its own seeded shuffle of them: after every whole run each
bot has sat right after each other bot equally often ((n - 2)! times a run), and within a run the
orders are drawn without replacement, so the imbalance never exceeds one run's. Two players have
one cyclic order, and their rotations are already both seatings. Without duplicate deals (one
rotation) a table of three or more goes through all n! orders instead, so seats are balanced too.

An entry with `deals_of = { seed, table }` plays, at its one table, the deals of that table of a config with
that seed: the same cards, seat orders and bots' seeds, its bots (in the order listed) in that table's places.
Two bots are so compared at a table of three or more as duplicate deals compare two players: one of them with
some company, then the other in its place, on the same cards beside the same tablemates.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Any, NamedTuple

from arena.config import Config
from arena.games import get_game, make_rules
from arena.seeds import seed_after, seed_start, seeded_rng, seeds_after


@dataclass(frozen=True)
class Block:
    """The games of one config entry (one game under one set of rules)."""

    entry: int
    label: str
    game_id: str
    rules: Any
    players: int
    tables: tuple[tuple[int, ...], ...]
    """Each table's bots, as indices into the config's bots, in config order (a deal seats them in its own order)."""
    deals: int
    rotations: int
    start: int
    """Game index of the block's first game."""
    end: int
    """Game index after the block's last game."""

    @property
    def count(self) -> int:
        """Games in the block."""
        return self.end - self.start

    def deal_ranges(self, first: int, end: int) -> list[tuple[int, int]]:
        """The game-index ranges of deals first..end-1 of every table (each a contiguous range)."""
        end = min(end, self.deals)
        if first >= end:
            return []
        return [(self.start + (t * self.deals + first) * self.rotations,
                 self.start + (t * self.deals + end) * self.rotations) for t in range(len(self.tables))]


class ScheduledGame(NamedTuple):
    """One game of the schedule: everything needed to play (or replay) it."""

    index: int
    block: Block
    table: int
    deal: int
    rotation: int
    seat_bots: tuple[int, ...]
    """The bot (index into the config's bots) in each seat."""
    deal_seed: int
    bot_seeds: tuple[int, ...]
    seat_names: tuple[str, ...]
    """The name of the bot in each seat."""


_new = tuple.__new__
"""Makes a ScheduledGame from a tuple of its fields, without the Python-level __new__ of NamedTuple."""


class Schedule:
    """Every game of a tournament, addressed by game index."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.blocks: list[Block] = []
        names = [b.name for b in config.bots]
        start = 0
        for entry, item in enumerate(config.games):
            game = get_game(item.game)
            rules = make_rules(game.Rules, item.rules)
            players = game.players(rules)
            entrants = [names.index(n) for n in item.bots] if item.bots is not None else range(len(names))
            # A table that plays another's deals seats its bots in that table's places, in the order listed.
            tables = ((tuple(entrants),) if item.deals_of is not None
                      else tuple(combinations(sorted(entrants), players)))
            if item.gauntlet is not None:
                tables = tuple(t for t in tables if names.index(item.gauntlet) in t)
            rotations = players if item.duplicate else 1
            block = Block(entry, item.label, game.id, rules, players, tables, item.deals, rotations, start,
                          start + len(tables) * item.deals * rotations)
            self.blocks.append(block)
            start = block.end
        self.total = start
        self._table_names = {(b.entry, t): ",".join(names[i] for i in bots)
                             for b in self.blocks for t, bots in enumerate(b.tables)}
        self._deal_sources = {b.entry: (self.config.seed, None) if item.deals_of is None
                              else (item.deals_of[0], ",".join(item.deals_of[1]))
                              for b, item in zip(self.blocks, config.games, strict=True)}
        """Entry -> the config seed its deals derive from, and the table name they derive from (None: the table's
        own), the same for a table that plays another's deals as for that table."""
        self._last_block = self.blocks[0] if self.blocks else None
        self._orders: dict[tuple[int, bool], list[tuple[int, ...]]] = {}
        """(players, every order rather than the cyclic ones) -> the orders, as positions in a table."""
        self._shuffled: tuple[tuple[int, int, int] | None, list[tuple[int, ...]]] = (None, [])
        """The last run of cyclic orders asked for: (entry, table, run) and its shuffle."""

    def block_at(self, index: int) -> Block:
        """The block that holds game `index`."""
        block = self._last_block
        if not block.start <= index < block.end:  # games are mostly asked for in order: the last block first
            block = self._last_block = next(b for b in reversed(self.blocks) if b.start <= index)
        return block

    def game(self, index: int) -> ScheduledGame:
        """The game at `index` (0 <= index < total)."""
        if not 0 <= index < self.total:
            raise IndexError(f"game index {index} is outside 0..{self.total - 1}")
        return next(self.games(index, index + 1))

    def games(self, start: int, end: int) -> Iterator[ScheduledGame]:
        """Games start..end-1 in order, as `game` gives each: what the seeds of a table's games and of a deal's
        rotations share is hashed once, and the position in the block is counted on rather than decoded for every
        game."""
        if not 0 <= start <= end <= self.total:
            raise IndexError(f"games {start}..{end - 1} are not all within 0..{self.total - 1}")
        index, names, table_seed, dealt = start, [b.name for b in self.config.bots], None, None
        while index < end:
            block = self.block_at(index)
            players, rotations, stop = block.players, block.rotations, min(end, block.end)
            deal_run, first = divmod(index - block.start, rotations)  # deal_run: table * deals + deal
            while index < stop:
                table, deal = divmod(deal_run, block.deals)
                if table_seed is None or table_seed[0] != (block.entry, table):  # once per table
                    seed, dealt_as = self._deal_sources[block.entry]
                    table_seed = ((block.entry, table),
                                  seed_start(seed, block.label, dealt_as or self._table_names[block.entry, table]))
                if dealt is None or dealt[0] != (block.entry, table, deal):  # once per deal, for all its rotations
                    deal_seed = seed_after(table_seed[1], deal)  # derive_seed(config seed, label, table names, deal)
                    order = self._cyclic_order(block, table, deal, table_seed[1])
                    rotated = [order[r:] + order[:r] for r in range(rotations)]  # seat s: order[(s + r) % n]
                    seatings = [(seats, tuple([names[b] for b in seats])) for seats in rotated]
                    dealt = (block.entry, table, deal), deal_seed, seed_start(deal_seed, "bot"), seatings
                for rotation in range(first, min(rotations, first + stop - index)):
                    seats, seat_names = dealt[3][rotation]
                    bot_seeds = seeds_after(seed_start(rotation, after=dealt[2]), players)  # derive_seed(deal seed,
                    # "bot", rotation, seat) for each seat
                    yield _new(ScheduledGame, (index, block, table, deal, rotation, seats, dealt[1], tuple(bot_seeds),
                                               seat_names))
                    index += 1
                deal_run, first = deal_run + 1, 0

    def _cyclic_order(self, block: Block, table: int, deal: int, table_seed) -> tuple[int, ...]:
        """The seat order of the table's bots at `deal` (see the module's docstring): place deal % len(orders) of run
        deal // len(orders), a shuffle of all the orders seeded by derive_seed(config seed, label, table names,
        "seating", run)."""
        n, bots = block.players, block.tables[table]
        whole = block.rotations == 1 and n > 2  # no rotations to move the first bot: every order, not only cyclic
        orders = self._orders.get((n, whole))
        if orders is None:  # as positions in the table, the first first unless whole
            orders = self._orders[n, whole] = (list(permutations(range(n))) if whole
                                               else [(0, *rest) for rest in permutations(range(1, n))])
        if len(orders) == 1:
            return bots
        run, place = divmod(deal, len(orders))
        key = (block.entry, table, run)
        if self._shuffled[0] != key:
            shuffled = list(orders)
            seeded_rng(seed_after(seed_start("seating", after=table_seed), run)).shuffle(shuffled)
            self._shuffled = key, shuffled
        return tuple([bots[i] for i in self._shuffled[1][place]])
