"""Caterpillar (RULES.md, Caterpillar): two players build a row of cards, scoring totals that
are multiples of five; face cards left in hand score 100 at the end, or go to the other player
when someone is court short."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import NamedTuple

from arena.cards import DECK, IS_FACE, NAME, RANK, SUIT, Card, CardError, card_names, parse_card, shuffled_deck
from arena.games.base import MoveError, Outcome, ranks_from_scores

id = "caterpillar"
min_players = max_players = 2

PIP: tuple[int, ...] = tuple(0 if IS_FACE[c] else RANK[c] + 1 for c in DECK)
"""Pip value of each card: A = 1, 2-10 face value, J Q K nothing."""
FACE_BONUS = 100


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


class State:
    """A Caterpillar game in progress (mutable; only the referee holds it)."""

    __slots__ = ("rules", "hands", "stock", "caterpillar", "total", "scores", "turn", "legal",
                 "termination", "layout", "moves")

    def __repr__(self) -> str:
        return f"<caterpillar total={self.total} scores={self.scores} turn={self.turn}>"


def players(rules: Rules) -> int:
    """Always two."""
    return 2


def _start(rules: Rules, hands: list[list[Card]], stock: list[Card], caterpillar: list[Card],
           scores: list[int]) -> State:
    state = State()
    state.rules, state.hands, state.stock, state.caterpillar = rules, hands, stock, caterpillar
    state.total = sum(PIP[c] for c in caterpillar)
    state.scores = scores
    state.turn = len(caterpillar) % 2
    state.termination = None
    state.layout = ((tuple(hands[0]), tuple(hands[1])), tuple(stock))
    state.moves = []
    state.legal = _legal(hands[state.turn], caterpillar[-1] if caterpillar else None)
    if not state.legal:
        _court_short(state)
    return state


def new_state(rules: Rules, seed: int) -> State:
    """Deals 13 cards to each seat from a pack shuffled by `seed`; the other 26 are the stock."""
    deck = shuffled_deck(seed)
    return _start(rules, [deck[:13], deck[13:26]], deck[26:], [], [0, 0])


def clone(state: State) -> State:
    """An independent copy."""
    copy = State()
    copy.rules, copy.total, copy.turn, copy.legal = state.rules, state.total, state.turn, state.legal
    copy.hands = [state.hands[0][:], state.hands[1][:]]
    copy.stock, copy.caterpillar = state.stock[:], state.caterpillar[:]
    copy.scores, copy.termination = state.scores[:], state.termination
    copy.layout, copy.moves = state.layout, state.moves[:]
    return copy


def _legal(hand: list[Card], last: Card | None) -> tuple[Card, ...]:
    if last is None:
        return tuple(hand)
    suit = SUIT[last]
    return tuple(c for c in hand if IS_FACE[c] or SUIT[c] == suit)


def to_move(state: State) -> int | None:
    """The seat to play, or None when the game is over."""
    return None if state.termination else state.turn


def legal_moves(state: State) -> tuple[Card, ...]:
    """The cards the seat to move may play: any face card, or a numeral of the suit just played."""
    return state.legal


def apply(state: State, card: Card) -> None:
    """Plays `card` for the seat to move, scores it, draws, and ends the game when due."""
    seat = state.turn
    hand = state.hands[seat]
    hand.remove(card)
    caterpillar = state.caterpillar
    pip = PIP[card]
    if pip:
        state.total += pip
        if state.total % 5 == 0:
            state.scores[seat] += state.total
    elif caterpillar and SUIT[card] == SUIT[caterpillar[-1]] and state.total % 5 == 0:
        state.scores[seat] += state.total
    caterpillar.append(card)
    state.moves.append((seat, card))
    if state.stock:
        hand.append(state.stock.pop(0))
    if len(caterpillar) == 26:
        for s in (0, 1):
            state.scores[s] += FACE_BONUS * sum(IS_FACE[c] for c in state.hands[s])
        state.termination, state.legal = "normal", ()
        return
    state.turn = seat = 1 - seat
    state.legal = _legal(state.hands[seat], card)
    if not state.legal:
        _court_short(state)


def _court_short(state: State) -> None:
    """The seat to move holds no legal card: it scores 100 per face card in the other hand."""
    other = state.hands[1 - state.turn]
    state.scores[state.turn] += FACE_BONUS * sum(IS_FACE[c] for c in other)
    state.termination = "court_short"


def scores(state: State) -> list[int]:
    """The scores as they stand."""
    return state.scores[:]


def result(state: State) -> Outcome:
    """Scores, ranks and termination of a finished game."""
    return Outcome(tuple(state.scores), ranks_from_scores(state.scores), state.termination)


def observe(state: State, seat: int) -> Observation:
    """What `seat` may know."""
    return Observation(seat, state.rules, tuple(state.hands[seat]), tuple(state.caterpillar), state.total,
                       tuple(state.scores), len(state.stock), len(state.hands[1 - seat]),
                       state.legal if seat == state.turn else ())


def sample_world(observation: Observation, rng: random.Random) -> State:
    """A state in which the other hand and the stock are dealt at random from the unseen cards."""
    seen = set(observation.hand) | set(observation.caterpillar)
    unseen = [c for c in DECK if c not in seen]
    rng.shuffle(unseen)
    size = observation.opponent_hand_size
    hands = [list(observation.hand), unseen[:size]]
    if observation.seat == 1:
        hands.reverse()
    return _start(observation.rules, hands, unseen[size:], list(observation.caterpillar), list(observation.scores))


def move_to_str(card: Card) -> str:
    """The card played, e.g. `7H`."""
    return NAME[card]


def parse_move(text: str) -> Card:
    """The card written as `text`."""
    try:
        return parse_card(text)
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
