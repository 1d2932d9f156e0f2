"""Go For It (docs/rules.md, Go For It), by hand-written strategy: the expected value of playing on (the
unseen cards decide the next card: a pair with the first or last card wins, an intermediate pair
takes the row up), against claiming, passing or taking.

Values are counted in cards. The next card is weighed over every unseen card; after it, the cards
this seat knows it will turn up (its pile's known bottom) are followed a few deep, and the rest is
estimated from rank, suit and colour counts. A pass leaves the risk to the others.
"""

from __future__ import annotations

from arena.cards import IS_RED, JOKER, RANK, SUIT
from arena.games.go_for_it.rules import JOKERS_ADDED

DEFAULTS = {
    "start_value": 1.0,
    "pass_factor": 0.5,
    "rest_value": 0.5,
    "end_bonus": 5.0,
    "margin": 0.0,
}
"""The parameters `move` reads, with the heuristic bot's values."""


class _Pool:
    """The cards nobody has seen (pile tops and the set-aside), by card, rank, suit and colour."""

    def __init__(self, obs):
        n = obs.rules.players
        counts = [1] * 52 + [JOKERS_ADDED.get(n, 0) if obs.rules.jokers else 0]
        for group in (obs.row, *obs.pile_known, *obs.winnings):
            for c in group:
                counts[c] -= 1
        self.counts = counts
        self.size = sum(counts)
        self.by_rank = [0] * 13
        self.by_suit = [0] * 4
        self.red = 0
        for c in range(52):
            if counts[c]:
                self.by_rank[RANK[c]] += counts[c]
                self.by_suit[SUIT[c]] += counts[c]
                self.red += counts[c] * IS_RED[c]
        self.cards = [(c, counts[c] / self.size) for c in range(53) if counts[c] > 0] if self.size else []


def _wins(row: list[int]) -> bool:
    """docs/rules.md step 4: the row is a winning combination (pair with first or last, or by length)."""
    c = row[-1]
    rank = RANK[c]
    if rank == RANK[row[0]] or rank == RANK[row[-2]]:
        return True
    size = len(row)
    if size == 3:
        a, b = RANK[row[0]], RANK[row[1]]
        if SUIT[row[0]] == SUIT[row[1]] == SUIT[c]:
            return True
        return a != b and max(a, b, rank) - min(a, b, rank) == 2
    if size == 4:
        return len({SUIT[x] for x in row}) == 4
    if size == 5:
        red = IS_RED[c]
        return all(IS_RED[x] == red for x in row)
    if size == 6:
        ranks = {RANK[x] for x in row}
        return len(ranks) == 6 and max(ranks) <= 9
    return False


class _Planner:
    """Values (in cards, from the side of the seat to play) of claiming, taking and playing on.

    Every card turned up is +1 (it leaves the pile); a row won is +1 a card and the next start
    (`win`); a row taken up is -1 a card and the next start goes to the neighbour (`lose`).
    """

    def __init__(self, obs, params: dict, seat: int, pool: _Pool):
        self.p = params
        self.pool = pool
        self.pile = obs.pile_sizes[seat]
        known = obs.pile_known[seat]
        # the cards this seat turns up next: unseen (None) down to its pile's known bottom
        self.next_cards = [None] * (self.pile - len(known)) + list(known)
        players = obs.rules.players
        self.share = 1.0 / max(1, players - 1)
        self.win = params["start_value"]
        self.lose = params["start_value"] * self.share

    def play_value(self, row: list[int], depth: int = 0) -> float:
        """Expected value of turning up the next card onto `row` and deciding well after it."""
        n = len(row)
        if self.pile - depth <= 1:
            return 2.0 + n + self.p["end_bonus"]  # the last card: the row is won and the game ends
        pool = self.pool
        pj = pool.counts[JOKER] / pool.size if pool.size else 0.0
        known = self.next_cards[depth]
        if n == 6 and known is None:
            # the seventh card always wins the row (docs/rules.md step 3), unless it is a joker
            return (1 - pj) * (8 + self.win) + pj * (1 - n - self.lose)
        cards = [(known, 1.0)] if known is not None else pool.cards
        got = 0.0
        for card, w in cards:
            got += w * self._after(row, card, depth)
        return got

    def _after(self, row: list[int], card: int, depth: int) -> float:
        """Value of turning up `card` onto `row`: +1 for the card leaving the pile, and what follows."""
        n = len(row)
        if card == JOKER:
            return 1.0 - n - self.lose
        if n + 1 == 7:
            return 8 + self.win
        new = row + [card]
        if _wins(new):
            return 1 + max(n + 1 + self.win, self.decide(new, depth + 1))
        rank = RANK[card]
        for x in row[1:-1]:
            if RANK[x] == rank:
                return -n - self.lose
        return 1 + self.decide(new, depth + 1)

    def decide(self, row: list[int], depth: int) -> float:
        """Value of a play-or-pass decision on `row` after this seat's own card: play on when that
        is worth something, else pass (the others may take the risk; if all pass it comes back)."""
        if depth < 3 and depth < len(self.next_cards) and self.next_cards[depth] is not None:
            ev = self.play_value(row, depth)
        else:
            ev = self._cheap(row, depth)
        return ev if ev >= 0 else ev * self.p["pass_factor"]

    def _cheap(self, row: list[int], depth: int) -> float:
        """A quick estimate of playing one more card onto `row` from rank, suit and colour counts."""
        pool = self.pool
        size = pool.size
        n = len(row)
        if self.pile - depth <= 1:
            return 2.0 + n + self.p["end_bonus"]
        if not size:
            return 0.0
        pj = pool.counts[JOKER] / size
        if n == 6:
            return (1 - pj) * (8 + self.win) + pj * (1 - n - self.lose)
        ends = {RANK[row[0]], RANK[row[-1]]}
        inner = {RANK[x] for x in row[1:-1]} - ends
        p_end = sum(pool.by_rank[r] for r in ends) / size
        p_inner = sum(pool.by_rank[r] for r in inner) / size
        p_combo = 0.0
        size_after = n + 1
        if size_after == 3:
            if SUIT[row[0]] == SUIT[row[1]]:
                p_combo += pool.by_suit[SUIT[row[0]]] / size
            a, b = RANK[row[0]], RANK[row[1]]
            if a != b and abs(a - b) <= 2:
                lo, hi = min(a, b), max(a, b)
                need = [lo + 1] if hi - lo == 2 else [r for r in (lo - 1, hi + 1) if 0 <= r <= 12]
                p_combo += sum(pool.by_rank[r] for r in need) / size
        elif size_after == 4:
            suits = {SUIT[x] for x in row}
            if len(suits) == 3:
                p_combo += pool.by_suit[({0, 1, 2, 3} - suits).pop()] / size
        elif size_after == 5:
            reds = sum(IS_RED[x] for x in row)
            if reds == 4:
                p_combo += pool.red / size
            elif reds == 0:
                p_combo += (size - pool.red - pool.counts[JOKER]) / size
        elif size_after == 6:
            ranks = {RANK[x] for x in row}
            if len(ranks) == 5 and max(ranks) <= 9:
                p_combo += sum(pool.by_rank[r] for r in range(10) if r not in ranks) / size
        p_combo = min(p_combo, max(0.0, 1 - p_end - p_inner - pj))
        p_rest = max(0.0, 1 - p_end - p_inner - pj - p_combo)
        return ((p_end + p_combo) * (n + 2 + self.win) - (p_inner + pj) * (n + self.lose)
                + p_rest * (1 + self.p["rest_value"]))


def move(obs, params: dict, rng) -> str:
    """`claim`, `play`, `pass` or `take`, whichever is worth most by the planner's estimates."""
    legal = obs.legal_moves
    if len(legal) == 1:
        return legal[0]
    me = obs.seat
    pool = _Pool(obs)
    planner = _Planner(obs, params, me, pool)
    row = list(obs.row)
    n = len(row)
    play = planner.play_value(row)
    if "claim" in legal:
        return "play" if play > n + planner.win + params["margin"] else "claim"
    if "take" in legal:
        return "play" if play >= -n - planner.lose else "take"
    if obs.passes + 1 == obs.rules.players and obs.last_player != me:
        # this pass completes a round of passes: the last card's player must play on or take up
        theirs = _Planner(obs, params, obs.last_player, pool)
        their_best = max(theirs.play_value(row), -n - theirs.lose)
        other = -their_best * planner.share
    else:
        other = play * params["pass_factor"] if play < 0 else -play * planner.share
    return "play" if play >= other else "pass"
