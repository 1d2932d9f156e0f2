"""Who has sat with whom in a league: the tables each bot and each company (a table's bots) were given, and how
well an adjacent pair of the order met the companies that matter to it. The matchmaker's looks and choices read
them; at three or more players a bot's results depend on its tablemates, and the ratings weigh each company at most
`company_deals` deals' worth, or half a round robin's share (`arena.ratings.company`)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from arena.league.catalog import RoundRow
from arena.ratings.company import company_cap


def near_seats(order: list[str], i: int, count: int) -> tuple[dict[int, float], list[int]]:
    """The distance of every other seat of `order` from the middle of the pair (i, i + 1), and the `count` nearest
    seats, the upper first among equals."""
    distance = {s: abs(s - i - 0.5) for s in range(len(order)) if s not in (i, i + 1)}
    return distance, sorted(distance, key=lambda s: (distance[s], s))[:count]


def company_coverage(order: list[str], i: int, players: int, companies: Companies, enough: int, least: int
                     ) -> float:
    """How well the pair order[i], order[i + 1] met the companies that matter to it: of the companies near it (its
    other bots among the 2 (players - 1) nearest the pair) that one of the two met, without the other, at least `least`
    times (the tables of `company_deals` deals), the share of their tables, each counted at most `enough` times (as the
    ratings count them, `Companies.enough`), that the other also played in that company in its place. 1 where there
    are none.

    A bot's results depend on its tablemates, and the ratings weigh each company up to a cap (`company_cap`): two bots
    stand on equal terms once each met the companies the other met, that often. A late-comer that met few of its
    neighbour's companies has its difference's error widened, and its pair is not settled, until it has (its pair plays
    the swapped tables first, `swapped_company`). Only the companies near the pair played at least `company_deals` deals
    count: far ones fix the pair's places and say little of their order, and the many a league plays a few times each
    weigh little; requiring those would chain swap after swap along the order."""
    a, b = order[i], order[i + 1]
    # a little wider than where the pair's own tables take their company (2 (players - 2) bots): a copy between the
    # pair and the company its original kept would otherwise hide that company
    near = {order[s] for s in near_seats(order, i, 2 * (players - 1))[1]}
    mass = lag = 0
    for have, lack in ((a, b), (b, a)):
        for table in companies.of.get(have, ()):
            if (lack in table or companies.count[table] < least
                    or not all(bot == have or bot in near for bot in table)):
                continue
            swapped = tuple(sorted(lack if bot == have else bot for bot in table))
            counted = min(companies.count[table], enough)
            mass += counted
            lag += max(0, counted - companies.count[swapped])
    return 1.0 if mass == 0 else 1 - lag / mass


def bots_at(order: list[str], seats) -> tuple[str, ...]:
    return tuple(sorted(order[s] for s in seats))


@dataclass
class Companies:
    """How many tables each company (a table's bots, sorted) has been given, and the companies of each bot."""

    count: Counter = field(default_factory=Counter)
    of: dict[str, set] = field(default_factory=dict)

    def enough(self, players: int, deals: int, cap_deals: int) -> int:
        """The tables at `deals` deals a table that a company counts in full in the ratings (`company_cap` of the
        tables added so far)."""
        per_table = deals * players
        cap = company_cap(sum(self.count.values()) * per_table, len(self.of), players, cap_deals)
        return math.ceil(round(cap / per_table, 9))

    def add(self, bots) -> None:
        table = tuple(sorted(bots))
        self.count[table] += 1
        for bot in table:
            self.of.setdefault(bot, set()).add(table)


def swapped_company(a: str, b: str, companies: Companies, order: list[str], enough: int
                     ) -> tuple[tuple[str, ...], str, str] | None:
    """The table that seats one of the pair in a company the other met more often: of the companies played with
    exactly one of `a`, `b` (every bot in them still in `order`, the active bots in rating order) whose swapped
    table (the other in its place) lags behind them, counting at most `enough` tables of either, the one nearest the
    pair in the order (the summed distance of its other bots from the pair's middle), then the one that lags
    furthest, as (that table, the bot that met the company, the bot put in its place); None where no swapped table
    lags.

    The ratings count each company up to a cap at three or more players (`arena.ratings.company`): a bot stands on the
    same terms as its neighbour once it has met, that often, the companies its neighbour met. Playing the lagging swap
    gives a late-comer the field's early company; the nearest first, because a company far up or down the order fixes
    the pair's places and says little of their order."""
    position = {bot: k for k, bot in enumerate(order)}
    middle = (position[a] + position[b]) / 2
    best = None
    for have, lack in ((a, b), (b, a)):
        for table in companies.of.get(have, ()):
            if lack in table or not all(bot in position for bot in table):
                continue
            swapped = tuple(sorted(lack if bot == have else bot for bot in table))
            behind = min(companies.count[table], enough) - companies.count[swapped]
            far = sum(abs(position[bot] - middle) for bot in table if bot != have)
            if behind > 0 and (best is None or (far, -behind, swapped) < best[0]):
                best = ((far, -behind, swapped), swapped, have, lack)
    return None if best is None else best[1:]


@dataclass
class TablesPlayed:
    """Per variant label, how many tables each bot has been given and the companies given, in the rounds added."""

    played: dict[str, Counter] = field(default_factory=dict)
    companies: dict[str, Companies] = field(default_factory=dict)

    def add(self, rounds: list[RoundRow]) -> None:
        """Counts the tables of `rounds` (with their plans)."""
        for round_ in rounds:
            for table in round_.plan:
                self.played.setdefault(table["variant"], Counter()).update(table["bots"])
                self.companies.setdefault(table["variant"], Companies()).add(table["bots"])
