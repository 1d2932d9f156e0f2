"""Cards as plain ints, with lookup tables and the docs/rules.md notation (`TH`, `AS`, `JK`).

A card is `suit * 13 + rank`: ranks 0..12 are A 2 3 4 5 6 7 8 9 T J Q K, suits 0..3 are
C D H S. The joker is 52 (jokers are alike, so every joker is the same int).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TypeAlias

from arena.errors import ArenaError
from arena.seeds import seeded_rng

Card: TypeAlias = int

RANKS = "A23456789TJQK"
SUITS = "CDHS"
JOKER: Card = 52
ACE, JACK, QUEEN, KING = 0, 10, 11, 12

DECK: tuple[Card, ...] = tuple(range(52))

RANK: tuple[int, ...] = tuple(c % 13 for c in DECK) + (-1,)
"""Rank index of a card (A=0 .. K=12; -1 for the joker)."""
SUIT: tuple[int, ...] = tuple(c // 13 for c in DECK) + (-1,)
"""Suit index of a card (C=0 D=1 H=2 S=3; -1 for the joker)."""
NAME: tuple[str, ...] = tuple(RANKS[c % 13] + SUITS[c // 13] for c in DECK) + ("JK",)
"""Notation of a card: `TH`, `AS`, `JK`."""
IS_FACE: tuple[bool, ...] = tuple(RANK[c] >= JACK for c in DECK) + (False,)
"""True for J, Q, K (court cards)."""
IS_RED: tuple[bool, ...] = tuple(SUIT[c] in (1, 2) for c in DECK) + (False,)

_BY_NAME = {name: card for card, name in enumerate(NAME)}


class CardError(ArenaError, ValueError):
    """A string that is not a card in docs/rules.md notation."""


def card_name(card: Card) -> str:
    """The notation of one card, e.g. `TH`."""
    return NAME[card]


def parse_card(text: str) -> Card:
    """The card written as `text` (`TH`, `as`, `JK`); raises CardError."""
    card = _BY_NAME.get(text.strip().upper()) if isinstance(text, str) else None
    if card is None:
        raise CardError(f"not a card: {text!r} (write rank then suit, e.g. TH, AS, JK)")
    return card


def card_names(cards: Iterable[Card]) -> list[str]:
    """The notation of each card, in order."""
    return [NAME[c] for c in cards]


def parse_cards(texts: Iterable[str]) -> list[Card]:
    """The cards written in `texts`, in order."""
    return [parse_card(t) for t in texts]


def shuffled_deck(seed: int | str, jokers: int = 0) -> list[Card]:
    """A full pack (plus `jokers` jokers) shuffled by a private rng seeded with `seed`."""
    deck = list(DECK) + [JOKER] * jokers
    shuffle(deck, seeded_rng(seed) if type(seed) is int else random.Random(seed))
    return deck


_STEPS = [tuple((i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1)) for size in range(64)]
"""Per list size (up to a pack and its jokers), the steps of a shuffle: position i, bound i + 1, its bit length."""


def shuffle(cards: list[Card], rng: random.Random) -> None:
    """`rng.shuffle(cards)`, drawing exactly the same random numbers (see _draw_shuffle), at half the cost: how
    sample_world deals hidden cards. Anything but a plain random.Random (a subclass may draw differently)
    goes to rng.shuffle itself."""
    if _SHUFFLE_AGREES and type(rng) is random.Random:
        _draw_shuffle(cards, rng.getrandbits)
    else:
        rng.shuffle(cards)


def shuffled_top(cards: list[Card], rng: random.Random, keep: int) -> list[Card]:
    """The first `keep` of `cards` as `rng.shuffle(cards)` leaves them, drawing from `rng` exactly as it does
    (the rest of `cards` is left in no particular order): a swap that puts a card at a position >= keep
    does only its other half, since the shuffle never reads that position again."""
    if not (_SHUFFLE_AGREES and type(rng) is random.Random):
        rng.shuffle(cards)
        return cards[:keep]
    getrandbits = rng.getrandbits
    steps = _STEPS[len(cards)]
    later = max(len(cards) - keep, 0)
    for i, n, k in steps[:later]:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[j] = cards[i]
    for i, n, k in steps[later:]:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
    return cards[:keep]


def _draw_shuffle(cards: list[Card], getrandbits) -> None:
    """CPython's shuffle written out without a Python call per card: from the end, position i swaps with
    j = rng._randbelow(i + 1), which draws getrandbits(k), k = (i + 1).bit_length(), until it is below i + 1."""
    for i, n, k in _STEPS[len(cards)]:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _shuffle_agrees() -> bool:
    """Whether _draw_shuffle does what random.shuffle does on this Python (checked once, at import)."""
    mine, theirs = list(range(63)), list(range(63))
    a, b = random.Random(20261123), random.Random(20261123)
    for _ in range(20):
        _draw_shuffle(mine, a.getrandbits)
        b.shuffle(theirs)
    return mine == theirs and a.random() == b.random()


_SHUFFLE_AGREES = _shuffle_agrees()
