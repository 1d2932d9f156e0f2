"""Caterpillar (docs/rules.md, Caterpillar): two players build a row of cards, scoring totals that
are multiples of five; face cards left in hand score 100 at the end, or go to the other player
when someone is court short.

Search bots play thousands of random games per move through this module, so a play is kept to a
few operations done in C: a hand is a bytearray of card ints, so finding the card played is a
byte scan rather than a Python comparison per card, and the legal moves are the hand with the
cards that may not follow deleted by one `bytearray.translate`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from mypy_extensions import mypyc_attr

from arena.cards import DECK, IS_FACE, NAME, RANK, SUIT, Card, CardError, card_names, parse_card, shuffle
from arena.games.base import MoveError, Outcome
from arena.seeds import seeded_rng

id = "caterpillar"
min_players = max_players = 2

PIP: Final[tuple[int, ...]] = tuple(0 if IS_FACE[c] else RANK[c] + 1 for c in DECK)
"""Pip value of each card: A = 1, 2-10 face value, J Q K nothing (so a card is a face card iff
its pip is 0)."""
FACE_BONUS: Final = 100
PLAYS: Final = 26
"""The game ends after the 26th play."""
_FACES: Final = frozenset(c for c in DECK if IS_FACE[c])
_PACK: Final = bytes(DECK)
"""The pack in order, as bytes: what is left when the cards seen are deleted are the cards unseen."""
_CANNOT_FOLLOW: Final[tuple[bytes, ...]] = tuple(bytes([c for c in DECK if PIP[c] and SUIT[c] != SUIT[last]])
                                                 for last in DECK)
"""For each card, the cards that may not be played after it (the numerals of the other suits), as
bytes to delete from a hand."""
_SUIT: Final = SUIT
"""arena.cards.SUIT as this module's own constant: compiled, it is then read without a dict lookup."""


@mypyc_attr(native_class=False)  # compiled, a frozen dataclass refuses copy.copy
@dataclass(frozen=True)
class Rules:
    """Caterpillar has no options."""


class Observation(NamedTuple):
    """What one seat knows: its hand, the caterpillar, the total and the scores."""

    seat: int
    rules: Rules
    hand: tuple[Card, ...]
    caterpillar: tuple[Card, ...]
    """Every card played, in order."""
    total: int
    scores: tuple[int, ...]
    stock_left: int
    opponent_hand_size: int
    legal_moves: tuple[Card, ...]


_new: Final = tuple.__new__
"""Makes an Observation from a tuple of its fields, without the Python-level __new__ of NamedTuple."""


class State:
    """A Caterpillar game in progress (mutable; only the referee holds it).

    `held[seat]` is a hand (a bytearray of cards) in the order its cards arrived (the deal, then
    the draws): legal moves are offered in that order. `pile` is the stock bottom first, so that a
    draw pops its end. `start` is how many cards the caterpillar held when this state was set up:
    the moves are the cards after those (card i was played by seat i % 2). `mover` is the seat to
    move, None once the game is over; `stopped` is then the seat that was to move when it ended.
    """

    __slots__ = ("rules", "held", "pile", "caterpillar", "start", "total", "scores", "mover", "stopped", "legal",
                 "termination", "layout")

    rules: Rules
    held: list[bytearray]
    pile: list[Card]
    caterpillar: list[Card]
    start: int
    total: int
    scores: tuple[int, int]
    mover: int | None
    stopped: int | None
    legal: tuple[Card, ...]
    termination: str | None
    layout: tuple[tuple[tuple[Card, ...], tuple[Card, ...]], tuple[Card, ...]]

    @property
    def turn(self) -> int:
        """The seat to move (at the end: the seat that played last, or the one that was court short)."""
        return self.stopped if self.mover is None else self.mover  # type: ignore[return-value]

    @property
    def hands(self) -> list[list[Card]]:
        """Each seat's hand as a list."""
        return [list(hand) for hand in self.held]

    @property
    def stock(self) -> list[Card]:
        """The cards still in the stock, top first."""
        return self.pile[::-1]

    @property
    def moves(self) -> list[tuple[int, Card]]:
        """(seat, card) of every play since the layout."""
        return [(i % 2, c) for i, c in enumerate(self.caterpillar) if i >= self.start]

    def __repr__(self) -> str:
        return f"<caterpillar total={self.total} scores={self.scores} turn={self.turn}>"


def players(rules: Rules) -> int:
    """Always two."""
    return 2


def _start(rules: Rules, hands: list[Sequence[Card]], stock: Sequence[Card], caterpillar: list[Card],
           scores: Sequence[int], total: int | None = None) -> State:
    """A state with `hands` and `stock` (top first) as they are now, after `caterpillar` was played."""
    if len(stock) > PLAYS - len(caterpillar):  # apply relies on it: the 26th play's draw takes the last card
        raise ValueError(f"a stock of {len(stock)} cards after {len(caterpillar)} plays")
    state = State()
    state.rules, state.caterpillar, state.scores = rules, caterpillar, tuple(scores)  # type: ignore[assignment]
    state.held = held = [bytearray(hands[0]), bytearray(hands[1])]
    state.layout = ((tuple(hands[0]), tuple(hands[1])), tuple(stock))
    state.pile = pile = list(stock)
    pile.reverse()
    state.start = len(caterpillar)
    state.total = sum([PIP[c] for c in caterpillar]) if total is None else total
    state.mover = seat = len(caterpillar) % 2
    state.stopped = state.termination = None
    hand = held[seat]
    state.legal = tuple(hand.translate(None, _CANNOT_FOLLOW[caterpillar[-1]]) if caterpillar else hand)
    if not state.legal:
        _court_short(state, seat)
    return state


def new_state(rules: Rules, seed: int) -> State:
    """Deals 13 cards to each seat from a pack shuffled by `seed`; the other 26 are the stock."""
    deck = list(DECK)  # = arena.cards.shuffled_deck(seed)
    shuffle(deck, seeded_rng(seed))
    return _start(rules, [deck[:13], deck[13:26]], deck[26:], [], (0, 0), 0)


def clone(state: State) -> State:
    """An independent copy (the layout, the legal moves and the scores are immutable, so shared)."""
    copy = State()  # one attribute at a time: a tuple assignment would build and unpack a tuple
    copy.rules = state.rules
    copy.start = state.start
    copy.total = state.total
    copy.layout = state.layout
    copy.mover = state.mover
    copy.stopped = state.stopped
    copy.legal = state.legal
    copy.termination = state.termination
    copy.scores = state.scores
    held = state.held
    copy.held = [held[0].copy(), held[1].copy()]
    copy.pile = state.pile.copy()
    copy.caterpillar = state.caterpillar.copy()
    return copy


def to_move(state: State) -> int | None:
    """The seat to play, or None when the game is over."""
    return state.mover


def legal_moves(state: State) -> tuple[Card, ...]:
    """The cards the seat to move may play: any face card, or a numeral of the suit just played (in
    hand order)."""
    return state.legal


def apply(state: State, card: Card) -> None:
    """Plays `card` for the seat to move, scores it, draws, and ends the game when due."""
    seat: int = state.mover  # type: ignore[assignment]
    held = state.held
    hand = held[seat]
    hand.remove(card)
    caterpillar = state.caterpillar
    pip = PIP[card]
    if pip:
        state.total = total = state.total + pip
        if total % 5 == 0:
            a, b = state.scores
            state.scores = (a, b + total) if seat else (a + total, b)
    elif caterpillar and _SUIT[card] == _SUIT[caterpillar[-1]] and state.total % 5 == 0:
        state.scores = _scored(state.scores, seat, state.total)
    caterpillar.append(card)
    pile = state.pile
    if pile:
        hand.append(pile.pop())
    if not pile and len(caterpillar) == PLAYS:  # the stock lasts until the 26th play at most
        (a, b) = state.scores
        state.scores = (a + FACE_BONUS * len(_FACES.intersection(held[0])),
                        b + FACE_BONUS * len(_FACES.intersection(held[1])))
        state.termination, state.legal = "normal", ()  # two at a time: four would build and unpack a tuple
        state.mover, state.stopped = None, seat
        return
    state.mover = seat = 1 - seat
    state.legal = legal = tuple(held[seat].translate(None, _CANNOT_FOLLOW[card]))
    if not legal:
        _court_short(state, seat)


def _scored(scores: tuple[int, int], seat: int, points: int) -> tuple[int, int]:
    """The scores with `points` added to `seat`'s."""
    a, b = scores
    return (a, b + points) if seat else (a + points, b)


def _court_short(state: State, seat: int) -> None:
    """`seat` is to move and holds no legal card: it scores 100 per face card in the other hand."""
    other = state.held[1 - seat]
    state.scores = _scored(state.scores, seat, FACE_BONUS * len(_FACES.intersection(other)))
    state.termination, state.mover, state.stopped = "court_short", None, seat


def scores(state: State) -> list[int]:
    """The scores as they stand."""
    return list(state.scores)


def result(state: State) -> Outcome:
    """Scores, ranks and termination of a finished game."""
    a, b = state.scores
    # ranks_from_scores, for two seats
    return Outcome((a, b), (int(b > a), int(a > b)), state.termination)  # type: ignore[arg-type]


def observe(state: State, seat: int) -> Observation:
    """What `seat` may know."""
    held = state.held
    return _new(Observation, (seat, state.rules, tuple(held[seat]), tuple(state.caterpillar), state.total,
                              state.scores, len(state.pile), len(held[1 - seat]),
                              state.legal if seat == state.mover else ()))


def sample_world(observation: Observation, rng: random.Random) -> State:
    """A state in which the other hand and the stock are dealt at random from the unseen cards."""
    hand, caterpillar = observation.hand, observation.caterpillar
    unseen = list(_PACK.translate(None, bytes(hand) + bytes(caterpillar)))  # in pack order, as the shuffle expects
    shuffle(unseen, rng)
    size = observation.opponent_hand_size
    hands = [hand, unseen[:size]]
    if observation.seat == 1:
        hands.reverse()
    return _start(observation.rules, hands, unseen[size:], list(caterpillar), observation.scores,
                  observation.total)


def move_to_str(card: Card) -> str:
    """The card played, e.g. `7H`."""
    return NAME[card]


def parse_move(text: object) -> Card:
    """The card written as `text`."""
    try:
        return parse_card(text)  # type: ignore[arg-type]
    except CardError as error:
        raise MoveError(str(error)) from None


def deals(state: State) -> list[tuple[tuple, list[tuple[int, Card]]]]:
    """One deal: the layout and every move."""
    return [(state.layout, state.moves)]


def layout_json(layout: tuple) -> dict:
    """`hands` (2 x 13) and `stock` (26), top first."""
    hands, stock = layout
    return {"hands": [card_names(h) for h in hands], "stock": card_names(stock)}


def describe(state: State) -> str:
    """The running total and the scores, for a readable account."""
    return f"total {state.total:3d}   scores {state.scores[0]}-{state.scores[1]}"


def observation_json(observation: Observation) -> dict:
    """The observation as JSON-able data for bots in other processes: cards as names, moves in notation."""
    o = observation
    return {"seat": o.seat, "rules": dict(vars(o.rules)), "hand": [NAME[c] for c in o.hand],
            "caterpillar": [NAME[c] for c in o.caterpillar], "total": o.total, "scores": list(o.scores),
            "stock_left": o.stock_left, "opponent_hand_size": o.opponent_hand_size,
            "legal_moves": [NAME[c] for c in o.legal_moves]}
