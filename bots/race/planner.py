"""Go For It's race planner: every move valued by this seat's chance to win (two players) or its expected
share of the other seats beaten (four), read from the values of pile sizes (bots/race/selfplay.py).

With two players the game is a race: the seat that turns up its last card takes the row and wins unless
the other has won half the pack, so the piles' sizes and who starts the next row decide, and cards won
matter only near that mark. A row won is worth the value of starting the next one with the piles as they
are; a row taken up, the value of the piles after it with the next seat to start. Playing on turns up the
next card: every card it may be is tried (the pile's known bottom when it is reached, else each card
nobody has seen, all equally likely); after it, the seat that decides next (this one, or the other after a
pass) chooses the move worth most to itself, its own next card tried by its kind (a pair with an end, a
pair inside, another winning combination, or none) rather than one by one, and what follows that from
how rows went on in self-play from the same length. The values count cards, never time: a decision reads
only the observation and the tables, so a game replays bit for bit.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from arena.cards import IS_RED, RANK, SUIT

from .selfplay import WIN, pair_index

TABLES = {players: Path(__file__).with_name(f"go_for_it_{players}.json") for players in (2, 4)}
_loaded: dict = {}


class Tables:
    """The values of pile sizes and the rows' outcomes of one number of players, as the planner reads them."""

    def __init__(self, data: dict):
        self.players = data["players"]
        self.rows = {}
        for key, outcomes in data["rows"].items():
            total = sum(o[-1] for o in outcomes)
            self.rows[key] = [(tuple(o[:self.players]), o[self.players], o[self.players + 1], o[-1] / total)
                              for o in outcomes]
        if self.players == 2:
            self.start = np.array(data["values"])
        else:
            self.pairs = np.array(data["values"])
            self.index = pair_index


def tables(players: int) -> Tables:
    """The tables of `players` (2 or 4), read once."""
    if players not in _loaded:
        _loaded[players] = Tables(json.loads(TABLES[players].read_text()))
    return _loaded[players]


def _combination(row: list[int], card: int) -> bool:
    """docs/rules.md step 4 for a row of 2 to 5 cards and a card with no pair in it: a flush or a run (3),
    a prime (4), a colour (5), a number (6)."""
    size = len(row) + 1
    if size == 3:
        a, b = row
        ranks = sorted((RANK[a], RANK[b], RANK[card]))
        return SUIT[a] == SUIT[b] == SUIT[card] or (ranks[2] - ranks[0] == 2 and ranks[0] < ranks[1] < ranks[2])
    if size == 4:
        return len({SUIT[a] for a in row} | {SUIT[card]}) == 4
    if size == 5:
        return all(IS_RED[a] == IS_RED[card] for a in row)
    if size == 6:
        ranks = {RANK[a] for a in row} | {RANK[card]}
        return len(ranks) == 6 and max(ranks) <= 9
    return False


class Race:
    """One decision's values, from the observation of the seat `me` to move."""

    def __init__(self, obs, tables: Tables, cache: dict):
        self.me, self.n, self.t = obs.seat, obs.rules.players, tables
        self.cache = cache
        seen = [0] * 52
        for group in (obs.row, *obs.pile_known, *obs.winnings):
            for c in group:
                seen[c] = 1
        self.unseen = [c for c in range(52) if not seen[c]]
        self.known = obs.pile_known
        self.hidden = [size - len(known) for size, known in zip(obs.pile_sizes, obs.pile_known, strict=True)]
        self.won = [len(w) for w in obs.winnings]

    # -- values of the piles between rows and of the rows' outcomes, this seat's side --

    def start(self, starter: int, piles: tuple[int, ...], won: tuple[int, ...] | None = None) -> float:
        """The value of the piles `piles` with `starter` to start the next row (four players: and the cards
        won, `won`, by default as they are)."""
        me = self.me
        if self.n == 2:
            value = self.t.start[piles[starter], piles[1 - starter]]
            return value if starter == me else 1 - value
        won = won or self.won
        pairs, index = self.t.pairs, self.t.index
        mine = won[me] - piles[me]
        return sum(pairs[0 if starter == me else 1 if starter == j else 2, index(mine - won[j] + piles[j]),
                         index(piles[me] - piles[j])]
                   for j in range(self.n) if j != me) / (self.n - 1)

    def winning(self, seat: int, piles: tuple[int, ...], row: int) -> float:
        """The value of `seat` winning a row of `row` cards, the piles then `piles`: it starts the next."""
        if self.n == 2:
            return self.start(seat, piles)
        return self.start(seat, piles, tuple(w + row * (s == seat) for s, w in enumerate(self.won)))

    def ended(self, ender: int, piles: tuple[int, ...], row: int) -> float:
        """The value when `ender` turns up its last card onto a row of `row` cards (its own included): exact,
        the scores being known."""
        scores = [w + row * (s == ender) - piles[s] * (s != ender) for s, w in enumerate(self.won)]
        mine = scores[self.me]
        return sum(1.0 if mine > s else 0.5 if mine == s else 0.0
                   for other, s in enumerate(scores) if other != self.me) / (self.n - 1)

    def then(self, key: str, subject: int, piles: tuple[int, ...]) -> float:
        """The value of a row going on as in self-play from `key` (`play L` or `pass L`: L cards in the row),
        seen by `subject`."""
        size = int(key.split()[1])
        memo = (key, subject, piles)
        got = self.cache.get(memo)
        if got is not None:
            return got
        n = self.n
        mine = tuple(piles[(subject + i) % n] for i in range(n))
        total = 0.0
        for turned, kind, seat, chance in self.t.rows.get(key, ()):
            left = [p - t for p, t in zip(mine, turned, strict=True)]
            if min(left) <= 0:
                ender = min(range(n), key=lambda i: left[i])
                total += chance * self.ended((subject + ender) % n, piles, size + sum(turned))
                continue
            if kind != WIN:
                left[seat] += sum(turned)
            after = tuple(left[(i - subject) % n] for i in range(n))
            starter = (subject + seat + (kind != WIN)) % n
            total += chance * (self.winning(starter, after, size + sum(turned)) if kind == WIN
                               else self.start(starter, after))
        self.cache[memo] = total
        return total

    def best(self, seat: int, *values: float) -> float:
        """The value of the choice of `seat` among moves worth `values` to this seat."""
        return max(values) if seat == self.me else min(values)

    # -- a card turned up --

    def next_cards(self, seat: int, drawn: int, out: int | None) -> list[tuple[int, float]]:
        """The card `seat` turns up after `drawn` of its own, with its chance (card `out` known not to be it)."""
        if drawn >= self.hidden[seat]:
            return [(self.known[seat][drawn - self.hidden[seat]], 1.0)]
        cards = [c for c in self.unseen if c != out]
        return [(c, 1.0 / len(cards)) for c in cards]

    def play(self, seat: int, row: list[int], piles: tuple[int, ...], drawn: tuple[int, ...],
             deeper: bool) -> float:
        """The value of `seat` turning up its next card onto `row`: each card tried, then the choice after it
        searched one card deeper (`deeper`) or by kind."""
        if not deeper:
            return self.by_kind(seat, row, piles, drawn)
        total = 0.0
        for card, chance in self.next_cards(seat, drawn[seat], None):
            total += chance * self.after(seat, row, card, piles, drawn, card)
        return total

    def after(self, seat: int, row: list[int], card: int, piles: tuple[int, ...], drawn: tuple[int, ...],
              out: int) -> float:
        """The value once `seat` has turned up `card` onto `row`, the choice after it searched one card deeper."""
        size = len(row) + 1
        if piles[seat] == 1:
            return self.ended(seat, piles, size)
        piles = tuple(p - (s == seat) for s, p in enumerate(piles))
        if size == 7:
            return self.winning(seat, piles, size)
        drawn = tuple(d + (s == seat) for s, d in enumerate(drawn))
        rank = RANK[card]
        new = row + [card]
        if rank == RANK[row[0]] or rank == RANK[row[-1]] or (
                rank not in {RANK[c] for c in row[1:-1]} and _combination(row, card)):
            return self.best(seat, self.winning(seat, piles, size), self.then(f"play {size}", seat, piles))
        if rank in {RANK[c] for c in row[1:-1]}:  # a pair inside the row: taken up
            return self.start((seat + 1) % self.n, tuple(p + size * (s == seat) for s, p in enumerate(piles)))
        on = self.by_kind(seat, new, piles, drawn, out)
        return self.best(seat, on, self.passed(seat, new, piles, drawn, out))

    def passed(self, seat: int, row: list[int], piles: tuple[int, ...], drawn: tuple[int, ...],
               out: int | None = None) -> float:
        """The value of `seat` passing on `row` after its own card: with two players the other plays on or
        passes, and then this seat plays on or takes up; with more, as rows went on after such a pass."""
        size = len(row)
        if self.n != 2:
            return self.then(f"pass {size}", seat, piles)
        other = 1 - seat
        take = self.start(other, tuple(p + size * (s == seat) for s, p in enumerate(piles)))
        back = self.best(seat, self.by_kind(seat, row, piles, drawn, out), take)
        return self.best(other, self.by_kind(other, row, piles, drawn, out), back)

    def by_kind(self, seat: int, row: list[int], piles: tuple[int, ...], drawn: tuple[int, ...],
                out: int | None = None) -> float:
        """The value of `seat` turning up its next card onto `row`, the card tried by its kind: what follows
        it valued by how rows went on in self-play."""
        size = len(row) + 1
        if piles[seat] == 1:
            return self.ended(seat, piles, size)
        after = tuple(p - (s == seat) for s, p in enumerate(piles))
        if size == 7:
            return self.winning(seat, after, size)
        ends = {RANK[row[0]], RANK[row[-1]]}
        inside = {RANK[c] for c in row[1:-1]} - ends
        won = self.best(seat, self.winning(seat, after, size), self.then(f"play {size}", seat, after))
        taken = self.start((seat + 1) % self.n, tuple(p + size * (s == seat) for s, p in enumerate(after)))
        going = None
        total = 0.0
        for card, chance in self.next_cards(seat, drawn[seat], out):
            rank = RANK[card]
            if rank in ends or (rank not in inside and _combination(row, card)):
                total += chance * won
            elif rank in inside:
                total += chance * taken
            else:
                if going is None:
                    going = self.best(seat, self.then(f"play {size}", seat, after),
                                      self.then(f"pass {size}", seat, after))
                total += chance * going
        return total


def values(obs, cache: dict) -> dict[str, float]:
    """Each legal move's value to the seat to move (its chance to win, or its share of seats beaten)."""
    race = Race(obs, tables(obs.rules.players), cache)
    me, row, piles = obs.seat, list(obs.row), tuple(obs.pile_sizes)
    drawn = (0,) * obs.rules.players
    got = {}
    for move in obs.legal_moves:
        if move == "claim":
            got[move] = race.winning(me, piles, len(row))
        elif move == "take":
            got[move] = race.start((me + 1) % race.n, tuple(p + len(row) * (s == me) for s, p in enumerate(piles)))
        elif move == "play":
            got[move] = race.play(me, row, piles, drawn, deeper=True)
        elif obs.passes == 0:
            got[move] = race.passed(me, row, piles, drawn)
        elif race.n == 2:  # the other passed on its own card: after this pass it plays on or takes up
            other = 1 - me
            take = race.start(me, tuple(p + len(row) * (s == other) for s, p in enumerate(piles)))
            got[move] = race.best(other, race.play(other, row, piles, drawn, deeper=False), take)
        else:
            got[move] = race.then(f"pass {len(row)}", me, piles)
    return got
