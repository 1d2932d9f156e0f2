"""Caterpillar (docs/rules.md, Caterpillar), by hand-written strategy: score multiples of five, leave the
opponent few scoring replies (counted from the unseen cards), keep face cards (100 each at the end)
unless a play with one is worth more, and mind being forced to spend a face card, or making the
opponent court short.

A play is valued by the chance of winning it leaves, tanh(margin / spread): the points it scores,
less the face cards it spends and what it offers the opponent, judged against how far ahead this
seat is and how many plays are left. The opponent's hand is modelled per kind of card (the numerals
of each suit, the face cards) from what it has played and drawn, taking it for a player that chooses
among its legal cards at random.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb, tanh

from arena.cards import IS_FACE, RANK, SUIT

from .common import best_move

DEFAULTS = {
    "face_value": 0.7,
    "threat": 1.3,
    "forced": 0.8,
    "follow_rate": 0.8,
    "court_gain": 0.5,
    "potential": 0.6,
    "short_scale": 1.0,
    "spread": 40.0,
}
"""The parameters `move` reads, with the heuristic bot's values."""

_PIP = tuple(0 if IS_FACE[c] else RANK[c] + 1 for c in range(52))
_KIND = tuple(4 if IS_FACE[c] else SUIT[c] for c in range(52))
"""A card's kind for the opponent model: its suit for a numeral (0-3), 4 for a face card."""
_KIND_SIZE = (10, 10, 10, 10, 12)
FACE_POINTS = 100
PLAYS = 26
_HAND = 13


_MAX_HELD = 9
"""Counts of a kind in the opponent's hand are tracked up to this (more is all but impossible)."""


@lru_cache(maxsize=4096)
def _hypergeometric(good: int, total: int, drawn: int) -> tuple[float, ...]:
    """P(j of `good` cards among `drawn` dealt from `total`), for j = 0.._MAX_HELD."""
    if total <= 0:
        return (1.0,) + (0.0,) * _MAX_HELD
    return tuple(comb(good, j) * comb(total - good, drawn - j) / comb(total, drawn) for j in range(_MAX_HELD + 1))


def opponent_holding(obs) -> list[list[float]]:
    """Per kind (numerals of each suit, face cards), the distribution of how many the opponent holds.

    Counting unseen cards alone underrates how short the opponent is of the suit in play and of face
    cards, as those are what it has been playing. So this follows the game: the opponent's first 13
    cards are dealt from the cards this seat never held; each of its plays removes a card of its kind,
    weighing the hands by how likely a player choosing among its legal cards at random was to play
    that kind (a face card played instead of following suit hints at a void); each draw may add one.
    """
    row, me = obs.caterpillar, obs.seat
    mine = [0] * 5
    for c in obs.hand:
        mine[_KIND[c]] += 1
    for c in row[me::2]:
        mine[_KIND[c]] += 1
    others = 52 - sum(mine)
    dists = [list(_hypergeometric(_KIND_SIZE[k] - mine[k], others, _HAND)) for k in range(5)]
    unseen = [_KIND_SIZE[k] - mine[k] for k in range(5)]
    for c in row[1 - me::2]:
        unseen[_KIND[c]] -= 1
    n_unseen = sum(unseen)
    p_draw = [u / n_unseen for u in unseen] if n_unseen else [0.0] * 5
    top = range(1, _MAX_HELD + 1)
    for i in range(1 - me, len(row), 2):
        kind = _KIND[row[i]]
        d = dists[kind]
        if i:
            suit = SUIT[row[i - 1]]
            faces = sum(j * p for j, p in enumerate(dists[4]))
            follow = sum(j * p for j, p in enumerate(dists[suit]))
            if kind == 4:
                d = [p * j / (j + follow) for j, p in enumerate(d)] if follow else [0.0] + d[1:]
                s = dists[suit]
                s = [p / (j + faces) for j, p in enumerate(s)] if faces else [s[0]] + [0.0] * _MAX_HELD
                total = sum(s)
                dists[suit] = [p / total for p in s] if total else s
            else:
                d = [p * j / (j + faces) for j, p in enumerate(d)] if faces else [0.0] + d[1:]
        else:
            d = [p * j for j, p in enumerate(d)]
        total = sum(d)
        dists[kind] = [p / total for p in d[1:]] + [0.0] if total else [1.0] + [0.0] * _MAX_HELD
        for k in range(5):  # the draw after the play
            p = p_draw[k]
            if p:
                d, q = dists[k], 1 - p
                dists[k] = [d[0] * q] + [d[j] * q + d[j - 1] * p for j in top]
    for k in range(5):  # the opponent holds no more of a kind than this seat has not seen
        d = dists[k][:unseen[k] + 1]
        total = sum(d)
        dists[k] = [p / total for p in d] + [0.0] * (_MAX_HELD + 1 - len(d)) if total else [1.0] + [0.0] * _MAX_HELD
    return dists


def move(obs, params: dict, rng) -> int:
    """The card to play: immediate points, minus what it costs in face cards and opponent replies."""
    legal = obs.legal_moves
    if len(legal) == 1:
        return legal[0]
    return best_move(legal, values(obs, params), rng)


def values(obs, params: dict) -> list[float]:
    """The value of each legal play, in the order of `obs.legal_moves`: the win chance it leaves, as
    tanh(margin / spread)."""
    legal = obs.legal_moves
    hand, row, total = obs.hand, obs.caterpillar, obs.total
    last = row[-1] if row else None
    plays_after = PLAYS - len(row) - 1
    face_w = params["face_value"] * FACE_POINTS
    knowledge = _Knowledge(obs, params) if plays_after else None
    me = obs.seat
    diff = obs.scores[me] - obs.scores[1 - me]
    my_faces = sum(IS_FACE[c] for c in hand)
    # The final margin is judged by a win chance, tanh(margin / spread): a court-short opponent is
    # a lost game more often than the points alone say, and a sure 100 matters less when far ahead.
    spread = params["spread"] * (1 + plays_after)
    base = diff + FACE_POINTS * (my_faces - (knowledge.faces_held if knowledge else 0))
    worth = []
    for card in legal:
        pip, suit = _PIP[card], SUIT[card]
        new_total = total + pip
        if pip:
            gain = new_total if new_total % 5 == 0 else 0
        else:
            gain = total if last is not None and SUIT[last] == suit and total % 5 == 0 else 0
        points = gain - (face_w if not pip else 0)
        if knowledge:
            risk, p_short = knowledge.risk(card, new_total, plays_after > 1)
            short_margin = diff + gain - FACE_POINTS * (my_faces - (not pip))
            value = ((1 - p_short) * tanh((base + points - risk) / spread)
                     + p_short * tanh(short_margin / spread))
        else:
            value = tanh((base + points) / spread)
        worth.append(value)
    return worth


class _Knowledge:
    """What this seat knows of the unseen cards and of the opponent's hand, for valuing a play."""

    def __init__(self, obs, params: dict):
        self.p = params
        self.hand = obs.hand
        seen = set(obs.hand)
        seen.update(obs.caterpillar)
        self.unseen = [c for c in range(52) if c not in seen]
        dists = opponent_holding(obs)
        unseen_kind = [0] * 5
        for c in self.unseen:
            unseen_kind[_KIND[c]] += 1
        means = [sum(j * p for j, p in enumerate(d)) for d in dists]
        # the chance that the opponent holds one given unseen card of each kind
        self.hold = [min(1.0, means[k] / unseen_kind[k]) if unseen_kind[k] else 0.0 for k in range(5)]
        self.void = [d[0] for d in dists]
        self.faces_held = means[4]
        self.unseen_kind = unseen_kind
        self.my_faces = sum(IS_FACE[c] for c in obs.hand)
        self.draw = obs.stock_left > 0
        self.n_unseen = len(self.unseen)

    def risk(self, card: int, new_total: int, again: bool) -> tuple[float, float]:
        """What a play leaves, in points: the opponent's best scoring reply and, if this seat plays
        again, being forced to spend a face card, less the chance of scoring again with a numeral
        of the suit; and the chance that the opponent is court short."""
        p = self.p
        suit = SUIT[card]
        face_w = p["face_value"] * FACE_POINTS
        faces_after = self.my_faces - IS_FACE[card]
        # The opponent's scoring replies: a numeral of the suit completing a multiple of five, or a
        # face card of the suit on a multiple of five (which costs them a face card).
        replies = []
        for c in self.unseen:
            if SUIT[c] != suit:
                continue
            pip = _PIP[c]
            if pip:
                if (new_total + pip) % 5 == 0:
                    replies.append((new_total + pip, self.hold[suit]))
            elif new_total % 5 == 0 and new_total:
                replies.append((new_total - face_w, self.hold[4]))
        risk = p["threat"] * _expected_best(replies)
        # The opponent with no numeral of the suit and no face card is court short: they score this
        # seat's face cards and this seat scores nothing for them.
        p_short = min(1.0, self.void[suit] * self.void[4] * p["short_scale"])
        if not again:
            return risk, p_short
        p_follow = (1 - self.void[suit]) * p["follow_rate"]
        own = [c for c in self.hand if c != card and SUIT[c] == suit and _PIP[c]]
        if not own:
            # No numeral of the suit left: if the opponent follows, a face card must go (or, holding
            # none, this seat is court short and scores the opponent's face cards).
            p_draw = self.unseen_kind[suit] * (1 - self.hold[suit]) / self.n_unseen if self.draw else 0.0
            forced = p_follow * (1 - p_draw)
            if faces_after:
                risk += forced * face_w * p["forced"]
            else:
                risk -= forced * FACE_POINTS * self.faces_held * p["court_gain"]
        else:
            residues = {_PIP[c] % 5 for c in own}
            risk -= p["potential"] * p_follow * len(residues) / 5 * (new_total + 11)
        return risk, p_short


def _expected_best(options: list[tuple[float, float]]) -> float:
    """Expected best value of `options` (value, chance it is available), taken as independent."""
    total, miss = 0.0, 1.0
    for v, q in sorted(options, reverse=True):
        if v <= 0:
            break
        total += miss * q * v
        miss *= 1 - q
    return total
