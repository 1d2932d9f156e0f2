"""Give or Take (docs/rules.md, Give or Take): two players play six cards each onto a running count,
adding, subtracting, dividing (or multiplying) by each card's value; the opponent scores the square
of how far your last card's value is from the count it made. Deals repeat until someone reaches
the target.

Search bots play thousands of random games per move through this module, so the hot paths avoid
work Python does slowly: the moves open to each card are looked up in tables (a row per value of
the card before and count) that hold the same move tuples every time; a deal's cards are dealt
when first needed, once per sampled world and shared by its clones; observations are filled in
directly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from mypy_extensions import mypyc_attr

from arena.cards import DECK, JACK, JOKER, KING, NAME, RANK, SUIT, Card, CardError, parse_card, shuffled_top
from arena.games.base import MoveError, Outcome, option

id = "give_or_take"
min_players = max_players = 2

Move = tuple[Card, str]
"""A play: (card, op), op one of `+ - / * k` (docs/rules.md, Move notation)."""

OPS: Final = "+-/*k"
"""The operations in the order legal_moves offers them."""
BASE: Final[tuple[int, ...]] = tuple(0 if RANK[c] >= JACK else RANK[c] + 1 for c in DECK)
"""Printed value of each card: A = 1, 2-10 face value, Q = 0, and J, K 0 (docs/rules.md: starting
count, the value a Jack copies from a turn-up, and the last-card value L)."""
KING_ACT: Final = -1
"""The effective value of a card that acts as a King (docs/rules.md, Values)."""
HAND_SIZE: Final = 6
BONUS: Final = 10


@mypyc_attr(native_class=False)  # compiled, a frozen dataclass refuses copy.copy
@dataclass(frozen=True)
class Rules:
    """The options of docs/rules.md, Give or Take."""

    target: int = option(101, "a game ends after a deal in which a total reaches this", low=1)
    multiply: bool = option(False, "a card with a value may also multiply the count (product <= 20)")
    max_deals: int = option(50, "a game not settled after this many deals ends as deal_limit", low=1)


class Observation(NamedTuple):
    """What one seat knows: its hand, the count, this deal's plays, the scores."""

    seat: int
    rules: Rules
    deal: int
    """Number of the deal in play (from 0)."""
    dealer: int
    hand: tuple[Card, ...]
    count: int  # type: ignore[assignment]
    turn_up: Card
    played: tuple[tuple[int, Card, str], ...]
    """This deal's plays in order: (seat, card, op)."""
    last_king: bool
    """A Jack played now would act as a King: the last card acted as one, or the turn-up is a King."""
    last_value: int
    """The value a Jack played now would copy (0 when last_king)."""
    scores: tuple[int, ...]
    opponent_hand_size: int
    legal_moves: tuple[Move, ...]


_new: Final = tuple.__new__
"""Makes an Observation from a tuple of its fields, without the Python-level __new__ of NamedTuple."""


class State:
    """A Give or Take game in progress (mutable; only the referee holds it).

    `prev` is the effective value of the card played last (the turn-up's before the first play),
    `prev_card` that card; `final[seat]` is (value, count made) of the seat's last card this deal,
    once played. `history` holds ((dealer, hands as dealt, turn-up), moves) per deal, the last
    entry's moves being `moves`, this deal's (seat, (card, op)) plays; `triples` holds the first of
    them as (seat, card, op), as far as an observation has needed them. `mover` is the seat to
    move, None once the game is over (`stopped` is then the seat that played last). `rows` is the
    table of moves for these rules (_ROWS), and `dealt` the deals dealt from `seed` so far, shared
    by clones (a deal depends on nothing else).

    A new deal's cards are dealt when first needed (_lay_out): a search that stops at the end of a
    deal never pays for the next one. Until then `_hands` is None; the attributes that depend on
    the cards are read through properties that deal them first.
    """

    __slots__ = ("rules", "seed", "deal", "dealer", "_hands", "_turn_up", "_count", "_prev", "_prev_card", "triples",
                 "final", "scores", "mover", "stopped", "_legal", "termination", "_history", "moves", "rows", "dealt")

    rules: Rules
    seed: int | str
    deal: int
    dealer: int
    _hands: list[list[Card]] | None
    _turn_up: Card
    _count: int
    _prev: int
    _prev_card: Card
    triples: tuple[tuple[int, Card, str], ...]
    final: tuple[tuple[int, int] | None, tuple[int, int] | None]
    scores: list[int]
    mover: int | None
    stopped: int | None
    _legal: tuple[Move, ...] | None
    termination: str | None
    _history: list[tuple[tuple, list[tuple[int, Move]]]]
    moves: list[tuple[int, Move]]
    rows: tuple[dict[int, Row], ...]
    dealt: dict[tuple[int | str, int], tuple[tuple[Card, ...], tuple[Card, ...], Card]]

    @property
    def hands(self) -> list[list[Card]]:
        """Each seat's hand now, in the order dealt."""
        hands = self._hands
        return _lay_out(self) if hands is None else hands

    @property
    def turn_up(self) -> Card:
        """This deal's turn-up."""
        return _laid_out(self)._turn_up

    @property
    def count(self) -> int:
        """The count."""
        return _laid_out(self)._count

    @property
    def prev(self) -> int:
        """The effective value of the card played last (the turn-up's before the first play)."""
        return _laid_out(self)._prev

    @property
    def prev_card(self) -> Card:
        """The card played last (the turn-up before the first play)."""
        return _laid_out(self)._prev_card

    @property
    def legal(self) -> tuple[Move, ...]:
        """The moves open to the seat to move."""
        return legal_moves(self)

    @property
    def history(self) -> list[tuple[tuple, list[tuple[int, Move]]]]:
        """((dealer, hands as dealt, turn-up), moves) of every deal so far."""
        return _laid_out(self)._history

    @property
    def played(self) -> list[tuple[int, Card, str]]:
        """This deal's plays in order: (seat, card, op)."""
        return [(seat, card, op) for seat, (card, op) in self.moves]

    @property
    def turn(self) -> int | None:
        """The seat to move (at the end: the seat that played last)."""
        return self.stopped if self.mover is None else self.mover

    def __repr__(self) -> str:
        return f"<give_or_take deal={self.deal} scores={self.scores} turn={self.turn}>"


def players(rules: Rules) -> int:
    """Always two."""
    return 2


def step(count: int, value: int, op: str) -> int:
    """The count after playing a card of effective `value` with `op` (docs/rules.md, A play)."""
    if op == "+":
        return count + value
    if op == "-":
        return count - value
    if op == "/":
        return count // value
    if op == "*":
        return count * value
    return count * 2 if count & 1 else count >> 1  # King action: halve if even, else double


def effective_value(card: Card, prev: int) -> int:
    """Effective value of `card` after a card of effective value `prev`: a Jack copies it."""
    rank = RANK[card]
    if rank == KING:
        return KING_ACT
    if rank == JACK:
        return prev
    return BASE[card]


def card_operations(value: int, count: int, multiply: bool) -> str:
    """The operations open to a card of effective `value` on `count`, in OPS order (docs/rules.md, A play)."""
    if value < 0:
        return "k"
    if value > count:
        ops = "+"
    elif value < count:
        ops = "/" if value and count % value == 0 else "-"
    else:
        ops = "+-/" if value else "+-"
    return ops + "*" if multiply and count * value <= 20 else ops


# Lists indexed by an effective value run over the values 0..10 and then the King action (-1), so
# that the value itself is the index: Python reads index -1 as the last entry.
VALUES: Final = (*range(11), KING_ACT)

_VALUE_AFTER: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(effective_value(c, prev) for c in DECK) for prev in VALUES)
"""_VALUE_AFTER[prev][card]: the effective value of `card` played after a card of effective value `prev`."""

# The moves in these tables are typed as plain tuples: compiled, a Move read from them would be rebuilt.
_MOVES: Final[tuple[dict[str, tuple], ...]] = tuple({op: (card, op) for op in OPS} for card in DECK)
"""_MOVES[card][op]: the one tuple that stands for each move, so legal moves are never built anew."""
_SEAT_MOVES: Final[tuple[tuple[dict[str, tuple], ...], ...]] = tuple(
    tuple({op: (seat, move) for op, move in ops.items()} for ops in _MOVES) for seat in (0, 1))
"""_SEAT_MOVES[seat][card][op]: (seat, move), the entries of the move history, built once rather than at every move."""

Row = tuple[tuple[Move, ...], ...]
"""A row of _ROWS: the moves open to each card (indexed by card)."""
_ROWS: Final[tuple[tuple[dict[int, Row], ...], ...]] = tuple(tuple({} for _ in VALUES) for _ in (False, True))
"""_ROWS[multiply][prev][count][card]: the moves open to `card` after a card of effective value `prev`,
on `count`. Each row (a tuple over the pack) is made the first time it is needed."""
_CARD_MOVES: Final[dict[tuple[Card, str], tuple[Move, ...]]] = {}
"""The moves of a card for each string of operations, so that rows share them."""


def _row(rows: tuple[dict[int, Row], ...], prev: int, count: int) -> Row:
    """Row `count` of rows[prev], made now."""
    multiply = rows is _ROWS[True]
    cells = []
    for card, value in zip(DECK, _VALUE_AFTER[prev], strict=True):
        ops = card_operations(value, count, multiply)
        moves = _CARD_MOVES.get((card, ops))
        if moves is None:
            moves = _CARD_MOVES[card, ops] = tuple(_MOVES[card][op] for op in ops)
        cells.append(moves)
    rows[prev][count] = row = tuple(cells)
    return row


def _legal(hand: list[Card], count: int, prev: int, rows: tuple[dict[int, Row], ...]) -> tuple[Move, ...]:
    """Every (card, op) open to a hand, in hand order then OPS order (docs/rules.md, A play)."""
    row = rows[prev].get(count) or _row(rows, prev, count)
    legal: tuple[Move, ...] = ()
    for card in hand:  # at most six cards: adding tuples is quicker here than any comprehension
        legal = legal + row[card]
    return legal


_BONUS_TO: Final[tuple[tuple[int | None, ...], ...]] = tuple(
    tuple(0 if RANK[card] == RANK[before] else 1 if SUIT[card] == SUIT[before] else None for card in DECK)
    for before in DECK)
"""_BONUS_TO[card before][card]: who scores the 10 bonus of a play (docs/rules.md, Bonuses): 0 the player
(same rank), 1 the opponent (same suit), None nobody."""

_PACK: Final = bytes(DECK)
"""The pack in order, as bytes: what is left when the cards seen are deleted are the cards unseen."""


def _set_deal(state: State, deal: int, hands: list[list[Card]], turn_up: Card,
              played: Sequence[tuple[int, Card, str]], layout_hands: tuple | None = None) -> None:
    """Puts deal `deal` on the table: `hands` as they are now, after `played` (no scoring for those)."""
    state.deal = deal
    state.dealer = dealer = (deal + 1) % 2
    state._hands, state._turn_up = hands, turn_up
    count = BASE[turn_up]  # docs/rules.md, Starting count: J or K give 0
    prev = KING_ACT if RANK[turn_up] == KING else count  # a Jack after a turned-up K acts as a King
    final: list[tuple[int, int] | None] = [None, None]
    moves: list[tuple[int, Move]] = []
    mine: tuple[list[Card], list[Card]] = ([], [])
    for seat, card, op in played:  # the count as apply makes it
        prev = _VALUE_AFTER[prev][card]
        count = step(count, prev, op)
        final[seat] = (BASE[card], count)
        moves.append(_SEAT_MOVES[seat][card][op])
        mine[seat].append(card)
    if layout_hands is None:  # what each seat held at the deal: its plays, then the cards it holds now
        layout_hands = (tuple(mine[0] + hands[0]), tuple(mine[1] + hands[1]))
    state.moves, state.triples = moves, tuple(played)
    state._history.append(((dealer, layout_hands, turn_up), moves))
    state._count, state._prev, state.final = count, prev, (final[0], final[1])
    state._prev_card = played[-1][1] if played else turn_up
    state.mover = seat = (1 - dealer) if len(played) % 2 == 0 else dealer
    state._legal = _legal(hands[seat], count, prev, state.rows)


def _start(rules: Rules, hands: list[list[Card]], turn_up: Card, played: Sequence = (), scores: Sequence = (0, 0), *,
           deal: int = 0, seed: int | str = 0, layout_hands: tuple | None = None) -> State:
    """A state in deal `deal` with `hands` as they are now after `played` ((seat, card, op) triples)."""
    state = State()
    state.rules, state.seed, state.scores = rules, seed, list(scores)
    state.termination, state.stopped, state._history = None, None, []
    state.rows, state.dealt = _ROWS[rules.multiply], {}
    _set_deal(state, deal, hands, turn_up, played, layout_hands)
    if not hands[0] and not hands[1]:  # a finished game (sample_world at the very end)
        state._legal, state.mover, state.stopped = (), None, played[-1][0] if played else None
        state.termination = "normal" if _settled(state) else "deal_limit"
    return state


def _dealt(state: State, deal: int) -> tuple[tuple[Card, ...], tuple[Card, ...], Card]:
    """Deal `deal` shuffles a full pack afresh: 6 cards to seat 0, 6 to seat 1, the 13th turned up.
    (`arena.cards.shuffled_deck(f"{seed}:{deal}")`, once per seed and deal.)"""
    key = (state.seed, deal)
    dealt = state.dealt.get(key)
    if dealt is None:
        top = shuffled_top(list(DECK), random.Random(f"{state.seed}:{deal}"), 2 * HAND_SIZE + 1)
        dealt = state.dealt[key] = (tuple(top[:HAND_SIZE]), tuple(top[HAND_SIZE:2 * HAND_SIZE]), top[2 * HAND_SIZE])
    return dealt


def _next_deal(state: State, deal: int) -> None:
    """Starts deal `deal`: its dealer deals, the other seat leads. The cards wait for _lay_out."""
    state.deal = deal
    state.dealer = dealer = (deal + 1) % 2
    state.mover = 1 - dealer
    state.moves, state.triples, state.final = [], (), (None, None)
    state._hands = state._legal = None


def _laid_out(state: State) -> State:
    """The state, its deal's cards on the table (the properties of a deal not dealt yet deal it first)."""
    if state._hands is None:
        _lay_out(state)
    return state


def _lay_out(state: State) -> list[list[Card]]:
    """Deals the cards of the deal started by _next_deal and puts them on the table; returns the hands."""
    hand0, hand1, turn_up = _dealt(state, state.deal)
    state._hands = hands = [list(hand0), list(hand1)]
    state._turn_up = state._prev_card = turn_up
    state._history.append(((state.dealer, (hand0, hand1), turn_up), state.moves))
    state._count = count = BASE[turn_up]  # docs/rules.md, Starting count: J or K give 0
    state._prev = prev = KING_ACT if RANK[turn_up] == KING else count  # a Jack after a turned-up K acts as a King
    state._legal = _legal(hands[state.mover], count, prev, state.rows)  # type: ignore[index]
    return hands


def new_state(rules: Rules, seed: int) -> State:
    """Deal 0 from `seed`: seat 1 deals, seat 0 leads."""
    state = State()
    state.rules, state.seed, state.scores = rules, seed, [0, 0]
    state.termination, state.stopped, state._history = None, None, []
    state.rows, state.dealt = _ROWS[rules.multiply], {}
    _next_deal(state, 0)
    _lay_out(state)
    return state


def clone(state: State) -> State:
    """An independent copy (what never changes is shared: rules, tables, the dealt cache, finished deals)."""
    copy = State()  # one attribute at a time: a tuple assignment would build and unpack a tuple
    copy.rules = state.rules
    copy.seed = state.seed
    copy.deal = state.deal
    copy.dealer = state.dealer
    copy._turn_up = state._turn_up
    copy._count = state._count
    copy._prev = state._prev
    copy._prev_card = state._prev_card
    copy.mover = state.mover
    copy.stopped = state.stopped
    copy._legal = state._legal
    copy.termination = state.termination
    copy.rows = state.rows
    copy.dealt = state.dealt
    copy.triples = state.triples
    copy.final = state.final
    copy.scores = state.scores.copy()
    copy.moves = moves = state.moves.copy()
    history, hands = state._history, state._hands
    if hands is None:  # the deal's cards are not out yet: every deal in the history is finished
        copy._hands, copy._history = None, history.copy()
    else:  # earlier deals are finished and never change again: their entries are shared
        copy._hands = [hands[0].copy(), hands[1].copy()]
        copy._history = history[:-1]
        copy._history.append((history[-1][0], moves))
    return copy


def to_move(state: State) -> int | None:
    """The seat to play, or None when the game is over."""
    return state.mover


def legal_moves(state: State) -> tuple[Move, ...]:
    """The (card, op) plays open to the seat to move, in hand order then `+ - / * k` order."""
    legal = state._legal
    if legal is None:  # a new deal, not dealt yet
        _lay_out(state)
        legal = state._legal
    return legal  # type: ignore[return-value]


def apply(state: State, move: Move) -> None:
    """Plays `move`, scores its bonuses, and ends the deal (and maybe the game) after the last play."""
    card, op = move
    seat: int = state.mover  # type: ignore[assignment]
    hands = state._hands
    if hands is None:  # a new deal, not dealt yet
        hands = _lay_out(state)
    hand = hands[seat]
    hand.remove(card)
    to = _BONUS_TO[state._prev_card][card]  # docs/rules.md, Bonuses: against the actual card just before
    if to is not None:
        state.scores[seat ^ to] += BONUS
    state._prev = value = _VALUE_AFTER[state._prev][card]
    count = state._count
    if op == "+":
        count += value
    elif op == "-":
        count -= value
    elif op == "/":
        count //= value
    elif op == "k":
        count = count * 2 if count & 1 else count >> 1
    else:
        count *= value
    state._count = count
    state._prev_card = card
    state.moves.append(_SEAT_MOVES[seat][card][op])
    if not hand:  # the seat's last card this deal
        final = state.final
        state.final = (final[0], (BASE[card], count)) if seat else ((BASE[card], count), final[1])
    other = 1 - seat
    if hands[other]:
        state.mover = seat = other
        hand = hands[other]
    elif not hand:
        _end_deal(state, seat)
        return
    # else only in positions built by _start with uneven hands: the same seat plays on
    rows = state.rows  # _legal, inline
    row = rows[value].get(count) or _row(rows, value, count)
    legal: tuple[Move, ...] = ()
    for card in hand:
        legal = legal + row[card]
    state._legal = legal


def _settled(state: State) -> bool:
    """docs/rules.md, End of the game: a total has reached the target and the totals differ."""
    s = state.scores
    return max(s) >= state.rules.target and s[0] != s[1]


def _end_deal(state: State, seat: int) -> None:
    """docs/rules.md, End of a deal (`seat` played its last card): each last card scores (C - L)² to the
    opponent, 10 if C == L."""
    scores = state.scores
    first, second = state.final
    if first is not None:
        value, count = first
        scores[1] += (count - value) ** 2
        if count == value:
            scores[0] += BONUS
    if second is not None:
        value, count = second
        scores[0] += (count - value) ** 2
        if count == value:
            scores[1] += BONUS
    end = "normal" if _settled(state) else "deal_limit" if state.deal + 1 >= state.rules.max_deals else None
    if end:  # two attributes an assignment: four or more would build and unpack a tuple
        state.termination, state._legal = end, ()
        state.mover, state.stopped = None, seat
    else:
        _next_deal(state, state.deal + 1)


def scores(state: State) -> list[int]:
    """The scores as they stand."""
    return state.scores[:]


def result(state: State) -> Outcome:
    """Scores, ranks and termination of a finished game."""
    a, b = state.scores
    ranks = (int(b > a), int(a > b))  # ranks_from_scores, for two seats
    return Outcome((a, b), ranks, state.termination)  # type: ignore[arg-type]


def observe(state: State, seat: int) -> Observation:
    """What `seat` may know."""
    triples, moves = state.triples, state.moves
    if len(triples) < len(moves):  # the plays since the last observation (usually one), as (seat, card, op)
        for s, (card, op) in moves[len(triples):]:
            triples += ((s, card, op),)
        state.triples = triples
    hands = state._hands
    if hands is None:  # a new deal, not dealt yet
        hands = _lay_out(state)
    prev = state._prev
    return _new(Observation, (seat, state.rules, state.deal, state.dealer, tuple(hands[seat]), state._count,
                              state._turn_up, triples, prev < 0, prev if prev > 0 else 0, tuple(state.scores),
                              len(hands[1 - seat]), state._legal if seat == state.mover else ()))


def sample_world(observation: Observation, rng: random.Random) -> State:
    """A state in which the other hand is dealt at random from the unseen cards; later deals use a seed from rng."""
    hand, turn_up, played = observation.hand, observation.turn_up, observation.played
    seen = bytes([*hand, turn_up, *[card for _, card, _ in played]])
    unseen = list(_PACK.translate(None, seen))  # in pack order, as the shuffle expects
    hands = [list(hand), shuffled_top(unseen, rng, observation.opponent_hand_size)]
    if observation.seat == 1:
        hands.reverse()
    return _start(observation.rules, hands, turn_up, played, observation.scores,
                  deal=observation.deal, seed=rng.getrandbits(64))


def move_to_str(move: Sequence[Any]) -> str:
    """The card and its operation, e.g. `7H+`, `KSk`."""
    return NAME[move[0]] + move[1]


def parse_move(text: object) -> Move:
    """The move written as `text`, e.g. `5C/` or `JDk`."""
    text = text.strip() if isinstance(text, str) else ""
    op = text[-1:]
    if op == "K":
        op = "k"
    if not op or op not in OPS:
        raise MoveError(f"not a move: {text!r} (write a card then one of + - / * k, e.g. 7H+, KSk)")
    try:
        card = parse_card(text[:-1])
    except CardError as error:
        raise MoveError(f"{error} in move {text!r}") from None
    if card == JOKER:
        raise MoveError(f"not a move: {text!r} (Give or Take has no jokers)")
    return card, op


def deals(state: State) -> list[tuple[tuple, list[tuple[int, Move]]]]:
    """One entry per deal: (dealer, hands, turn_up) and its moves."""
    return state.history[:]


def layout_json(layout: tuple) -> dict:
    """`dealer`, `hands` (2 x 6) and `turn_up`."""
    dealer, hands, turn_up = layout
    return {"dealer": dealer, "hands": [[NAME[c] for c in h] for h in hands], "turn_up": NAME[turn_up]}


def describe(state: State) -> str:
    """The deal (from 0, as `Observation.deal`), the count and the scores, for a readable account."""
    scores = f"scores {state.scores[0]}-{state.scores[1]}"
    if state.termination is None and not state.moves and state.deal > 0:  # the last card of a deal was just played
        return f"deal {state.deal - 1} over, last cards scored   {scores}"
    return f"deal {state.deal:2d}   count {state.count:3d}   {scores}"


def observation_json(observation: Observation) -> dict:
    """The observation as JSON-able data for bots in other processes: cards as names, moves in notation;
    `played` entries are [seat, card, op]."""
    o = observation
    return {"seat": o.seat, "rules": dict(vars(o.rules)), "deal": o.deal, "dealer": o.dealer,
            "hand": [NAME[c] for c in o.hand], "count": o.count, "turn_up": NAME[o.turn_up],
            "played": [[seat, NAME[card], op] for seat, card, op in o.played], "last_king": o.last_king,
            "last_value": o.last_value, "scores": list(o.scores), "opponent_hand_size": o.opponent_hand_size,
            "legal_moves": [NAME[card] + op for card, op in o.legal_moves]}
