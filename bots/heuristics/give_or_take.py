"""Give or Take (docs/rules.md, Give or Take), by hand-written strategy: take same-rank bonuses and avoid
same-suit plays; plan the last two cards exactly (every card the opponent may hold), keep a good last
card earlier on.

The opponent's plays are taken as draws from the unseen cards, grouped by rank, and it is taken to
choose the operation that is worst for this seat. Before the last two cards, the cards kept are
valued by how well the best of them would do as a last card over the counts usual at that point.
"""

from __future__ import annotations

from arena.cards import JACK, RANK, SUIT
from arena.games.give_or_take.rules import BASE, KING_ACT, effective_value, step

from .common import best_move

DEFAULTS = {
    "keep": 0.5,
}
"""The parameters `move` reads, with the heuristic bot's values."""


def counts_after(count: int, v: int, multiply: bool) -> list[int]:
    """The counts a card of effective value `v` can make from `count` (one per legal operation)."""
    if v < 0:
        return [count * 2 if count & 1 else count >> 1]
    if v > count:
        out = [count + v]
    elif v < count:
        out = [count // v if v and count % v == 0 else count - v]
    else:
        out = [count * 2, 0, 1] if v else [0]
    if multiply and count * v <= 20:
        out.append(count * v)
    return out


def last_score(card: int, count: int) -> int:
    """Points for the player's side of a last card that made `count`: -(C-L)² (to the opponent), +10 if C == L."""
    d = count - BASE[card]
    return 10 if d == 0 else -d * d


class Unseen:
    """The cards this seat has not seen (the opponent's hand and the undealt cards), grouped by rank,
    and the opponent's plays as draws from them."""

    def __init__(self, obs):
        self.multiply = obs.rules.multiply
        seen = set(obs.hand)
        seen.add(obs.turn_up)
        seen.update(c for _, c, _ in obs.played)
        unseen = [c for c in range(52) if c not in seen]
        by_rank: dict[int, list[int]] = {}
        for c in unseen:
            by_rank.setdefault(RANK[c], []).append(c)
        total = len(unseen) or 1
        # (a representative card, weight, count of each suit) per rank
        self.groups = [(cards[0], len(cards) / total, [sum(SUIT[c] == s for c in cards) / len(cards)
                                                       for s in range(4)]) for cards in by_rank.values()]
        self._last: dict = {}

    def bonus_after(self, rank: int, suit_share: list[float], prev_card: int) -> float:
        """The opponent's bonus swing (from this seat's side) for a card of `rank` after `prev_card`."""
        if rank == RANK[prev_card]:
            return -10.0
        return 10.0 * suit_share[SUIT[prev_card]]

    def opponent_last(self, count: int, prev: int, prev_card: int) -> float:
        """Expected points (this seat's side) of the opponent's last card played on `count`."""
        key = (count, prev, prev_card)
        got = self._last.get(key)
        if got is None:
            got = 0.0
            for card, w, share in self.groups:
                v = effective_value(card, prev)
                best = max(last_score(card, c) for c in counts_after(count, v, self.multiply))
                got += w * (self.bonus_after(RANK[card], share, prev_card) - best)
            self._last[key] = got
        return got


def bonus(card: int, prev_card: int) -> int:
    """Bonus swing of a play for its player: +10 same rank, -10 same suit (docs/rules.md, Bonuses)."""
    if RANK[card] == RANK[prev_card]:
        return 10
    return -10 if SUIT[card] == SUIT[prev_card] else 0


def move(obs, params: dict, rng, model=None) -> tuple[int, str]:
    """The (card, op) to play: exact over the last two cards, a kept good last card before that.

    `model` makes the model of the opponent's cards for the last two (an Unseen from the observation;
    by default the unseen cards as they are)."""
    legal = obs.legal_moves
    if len(legal) == 1:
        return legal[0]
    multiply = obs.rules.multiply
    prev = KING_ACT if obs.last_king else obs.last_value
    prev_card = obs.played[-1][1] if obs.played else obs.turn_up
    count, hand = obs.count, obs.hand
    unseen = (model or Unseen)(obs) if len(hand) <= 2 else None  # needed for the last two cards only
    opponent_after = obs.opponent_hand_size >= len(hand)  # the opponent plays between my plays
    values = []
    for card, op in legal:
        v = effective_value(card, prev)
        new = step(count, v, op)
        value = bonus(card, prev_card)
        rest = [c for c in hand if c != card]
        if not rest:
            value += last_score(card, new)
            if opponent_after:
                value += unseen.opponent_last(new, v, card)
        elif len(rest) == 1:
            value += _last_two(unseen, new, v, card, rest[0], opponent_after, obs.opponent_hand_size)
        else:
            value += params["keep"] * _keep_value(rest, multiply)
        values.append(value)
    return best_move(legal, values, rng)


def _last_two(unseen: Unseen, count: int, prev: int, prev_card: int, last: int, leader: bool,
              opp_size: int) -> float:
    """Expected points (this seat's side) from the opponent's next play, then this seat's last card
    `last`, then (for the leader) the opponent's last card."""
    total = 0.0
    opp_last = opp_size == 1
    for card, w, share in unseen.groups:
        v = effective_value(card, prev)
        outs = counts_after(count, v, unseen.multiply)
        swing = unseen.bonus_after(RANK[card], share, prev_card)
        lv = effective_value(last, v)
        # this seat's last card: bonus against the opponent's card (its suit is unknown: the share of
        # the rank in that suit), then the best operation
        mine = 10.0 if RANK[last] == RANK[card] else -10.0 * share[SUIT[last]]
        vals = []
        for c in outs:
            val = swing
            if opp_last:
                val -= last_score(card, c)
            finals = []
            for c2 in counts_after(c, lv, unseen.multiply):
                f = last_score(last, c2)
                if leader:
                    f += unseen.opponent_last(c2, lv, last)
                finals.append(f)
            vals.append(val + mine + max(finals))
        # the opponent picks the operation that is worst for this seat
        total += w * min(vals)
    return total


# How often each count (0, 1, 2, ...) stands before the last plays of a deal, as measured in play.
_TYPICAL_COUNTS = (2, 8, 10, 6, 6, 7, 7, 8, 6, 6, 6, 6, 5, 5, 3, 3, 2, 2, 1, 1, 1)


def _last_card_value(card: int, multiply: bool) -> float:
    """How good `card` is as a last card over typical counts (a Jack is taken as a middling value)."""
    v = 5 if RANK[card] == JACK else effective_value(card, 0)
    got = 0.0
    for c, weight in enumerate(_TYPICAL_COUNTS):
        got += weight * max(last_score(card, x) for x in counts_after(c, v, multiply))
    return got / sum(_TYPICAL_COUNTS)


LAST_CARD_VALUE = {multiply: [_last_card_value(c, multiply) for c in range(52)] for multiply in (False, True)}


def _keep_value(rest: list[int], multiply: bool) -> float:
    """Value of the cards kept: the best of them as a last card, and the second best as a spare."""
    values = sorted((LAST_CARD_VALUE[multiply][c] for c in rest), reverse=True)
    return values[0] + 0.3 * values[1]

