"""Give or Take (RULES.md, Give or Take): two players play six cards each onto a running count,
adding, subtracting, dividing (or multiplying) by each card's value; the opponent scores the square
of how far your last card's value is from the count it made. Deals repeat until someone reaches
the target."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import NamedTuple

from arena.cards import DECK, JACK, JOKER, KING, NAME, RANK, SUIT, Card, CardError, parse_card, shuffled_deck
from arena.games.base import MoveError, Outcome, option, ranks_from_scores

id = "give_or_take"
min_players = max_players = 2

Move = tuple[Card, str]
"""A play: (card, op), op one of `+ - / * k` (RULES.md, Move notation)."""

OPS = "+-/*k"
"""The operations in the order legal_moves offers them."""
BASE: tuple[int, ...] = tuple(0 if RANK[c] >= JACK else RANK[c] + 1 for c in DECK)
"""Printed value of each card: A = 1, 2-10 face value, Q = 0, and J, K 0 (RULES.md: starting
count, the value a Jack copies from a turn-up, and the last-card value L)."""
KING_ACT = -1
"""The effective value of a card that acts as a King (RULES.md, Values)."""
HAND_SIZE = 6
BONUS = 10


@dataclass(frozen=True)
class Rules:
    """The options of RULES.md, Give or Take."""

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
    count: int
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


class State:
    """A Give or Take game in progress (mutable; only the referee holds it)."""

    __slots__ = ("rules", "seed", "deal", "dealer", "hands", "turn_up", "count", "prev", "prev_card", "played",
                 "final", "scores", "turn", "legal", "termination", "history", "moves")

    def __repr__(self) -> str:
        return f"<give_or_take deal={self.deal} count={self.count} scores={self.scores} turn={self.turn}>"


def players(rules: Rules) -> int:
    """Always two."""
    return 2


def step(count: int, value: int, op: str) -> int:
    """The count after playing a card of effective `value` with `op` (RULES.md, A play)."""
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


def _legal(hand: list[Card], count: int, prev: int, multiply: bool) -> tuple[Move, ...]:
    """Every (card, op) open to a hand, in hand order then OPS order (RULES.md, A play)."""
    out = []
    for card in hand:
        rank = RANK[card]
        v = KING_ACT if rank == KING else prev if rank == JACK else BASE[card]
        if v < 0:
            out.append((card, "k"))
            continue
        if v > count:
            out.append((card, "+"))
        elif v < count:
            out.append((card, "/" if v and count % v == 0 else "-"))
        else:
            out.append((card, "+"))
            out.append((card, "-"))
            if v:
                out.append((card, "/"))
        if multiply and count * v <= 20:
            out.append((card, "*"))
    return tuple(out)


def _set_deal(state: State, deal: int, hands: list[list[Card]], turn_up: Card,
              played: list[tuple[int, Card, str]], layout_hands: tuple | None = None) -> None:
    """Puts deal `deal` on the table: `hands` as they are now, after `played` (no scoring for those)."""
    state.deal = deal
    state.dealer = dealer = (deal + 1) % 2
    state.hands, state.turn_up = hands, turn_up
    if layout_hands is None:  # what each seat held at the deal: its plays, then the cards it holds now
        layout_hands = tuple(tuple([c for s, c, _ in played if s == seat] + hands[seat]) for seat in (0, 1))
    state.moves = [(s, (c, op)) for s, c, op in played]
    state.history.append(((dealer, layout_hands, turn_up), state.moves))
    count = BASE[turn_up]  # RULES.md, Starting count: J or K give 0
    prev = KING_ACT if RANK[turn_up] == KING else BASE[turn_up]  # a Jack after a turned-up K acts as a King
    final: list[tuple[int, int] | None] = [None, None]
    for seat, card, op in played:
        prev = effective_value(card, prev)
        count = step(count, prev, op)
        final[seat] = (BASE[card], count)
    state.count, state.prev, state.final = count, prev, final
    state.prev_card = played[-1][1] if played else turn_up
    state.played = list(played)
    state.turn = (1 - dealer) if len(played) % 2 == 0 else dealer
    state.legal = _legal(hands[state.turn], count, prev, state.rules.multiply)


def _start(rules: Rules, hands: list[list[Card]], turn_up: Card, played=(), scores=(0, 0), *,
           deal: int = 0, seed: int | str = 0, layout_hands: tuple | None = None) -> State:
    """A state in deal `deal` with `hands` as they are now after `played` ((seat, card, op) triples)."""
    state = State()
    state.rules, state.seed, state.scores = rules, seed, list(scores)
    state.termination, state.history = None, []
    _set_deal(state, deal, hands, turn_up, list(played), layout_hands)
    if not hands[0] and not hands[1]:  # a finished game (sample_world at the very end)
        state.legal = ()
        state.termination = "normal" if _settled(state) else "deal_limit"
    return state


def _dealt(seed: int | str, deal: int) -> tuple[list[list[Card]], Card]:
    """Deal `deal` shuffles a full pack afresh: 6 cards to seat 0, 6 to seat 1, the 13th turned up."""
    deck = shuffled_deck(f"{seed}:{deal}")
    return [deck[:HAND_SIZE], deck[HAND_SIZE:2 * HAND_SIZE]], deck[2 * HAND_SIZE]


def new_state(rules: Rules, seed: int) -> State:
    """Deal 0 from `seed`: seat 1 deals, seat 0 leads."""
    hands, turn_up = _dealt(seed, 0)
    return _start(rules, hands, turn_up, seed=seed)


def clone(state: State) -> State:
    """An independent copy."""
    copy = State()
    copy.rules, copy.seed, copy.deal, copy.dealer = state.rules, state.seed, state.deal, state.dealer
    copy.hands = [state.hands[0][:], state.hands[1][:]]
    copy.turn_up, copy.count, copy.prev, copy.prev_card = state.turn_up, state.count, state.prev, state.prev_card
    copy.played, copy.final, copy.scores = state.played[:], state.final[:], state.scores[:]
    copy.turn, copy.legal, copy.termination = state.turn, state.legal, state.termination
    copy.moves = state.moves[:]
    # earlier deals are finished and never change again, so their entries can be shared
    copy.history = state.history[:-1] + [(state.history[-1][0], copy.moves)]
    return copy


def to_move(state: State) -> int | None:
    """The seat to play, or None when the game is over."""
    return None if state.termination else state.turn


def legal_moves(state: State) -> tuple[Move, ...]:
    """The (card, op) plays open to the seat to move, in hand order then `+ - / * k` order."""
    return state.legal


def apply(state: State, move: Move) -> None:
    """Plays `move`, scores its bonuses, and ends the deal (and maybe the game) after the last play."""
    card, op = move
    seat = state.turn
    hand = state.hands[seat]
    hand.remove(card)
    prev_card = state.prev_card
    # RULES.md, Bonuses: against the actual card just before (the turn-up for the first play)
    if RANK[card] == RANK[prev_card]:
        state.scores[seat] += BONUS
    elif SUIT[card] == SUIT[prev_card]:
        state.scores[1 - seat] += BONUS
    rank = RANK[card]
    v = KING_ACT if rank == KING else state.prev if rank == JACK else BASE[card]
    state.prev = v
    state.count = count = step(state.count, v, op)
    state.prev_card = card
    state.final[seat] = (BASE[card], count)
    state.played.append((seat, card, op))
    state.moves.append((seat, move))
    other = 1 - seat
    if state.hands[other]:
        state.turn = other
        state.legal = _legal(state.hands[other], count, v, state.rules.multiply)
    elif not hand:
        _end_deal(state)
    else:  # only in positions built by _start with uneven hands: the same seat plays on
        state.legal = _legal(hand, count, v, state.rules.multiply)


def _settled(state: State) -> bool:
    """RULES.md, End of the game: a total has reached the target and the totals differ."""
    s = state.scores
    return max(s) >= state.rules.target and s[0] != s[1]


def _end_deal(state: State) -> None:
    """RULES.md, End of a deal: each last card scores (C - L)² to the opponent, 10 if C == L."""
    scores = state.scores
    for seat in (0, 1):
        last = state.final[seat]
        if last is None:
            continue
        value, count = last
        scores[1 - seat] += (count - value) ** 2
        if count == value:
            scores[seat] += BONUS
    if _settled(state):
        state.termination, state.legal = "normal", ()
    elif state.deal + 1 >= state.rules.max_deals:
        state.termination, state.legal = "deal_limit", ()
    else:
        deal = state.deal + 1
        hands, turn_up = _dealt(state.seed, deal)
        _set_deal(state, deal, hands, turn_up, [])


def scores(state: State) -> list[int]:
    """The scores as they stand."""
    return state.scores[:]


def result(state: State) -> Outcome:
    """Scores, ranks and termination of a finished game."""
    return Outcome(tuple(state.scores), ranks_from_scores(state.scores), state.termination)


def observe(state: State, seat: int) -> Observation:
    """What `seat` may know."""
    prev = state.prev
    return Observation(seat, state.rules, state.deal, state.dealer, tuple(state.hands[seat]), state.count,
                       state.turn_up, tuple(state.played), prev < 0, prev if prev > 0 else 0,
                       tuple(state.scores), len(state.hands[1 - seat]),
                       state.legal if seat == state.turn else ())


def sample_world(observation: Observation, rng: random.Random) -> State:
    """A state in which the other hand is dealt at random from the unseen cards; later deals use a seed from rng."""
    seen = set(observation.hand)
    seen.add(observation.turn_up)
    seen.update(c for _, c, _ in observation.played)
    unseen = [c for c in DECK if c not in seen]
    rng.shuffle(unseen)
    hands = [list(observation.hand), unseen[:observation.opponent_hand_size]]
    if observation.seat == 1:
        hands.reverse()
    return _start(observation.rules, hands, observation.turn_up, observation.played, observation.scores,
                  deal=observation.deal, seed=rng.getrandbits(64))


def move_to_str(move: Move) -> str:
    """The card and its operation, e.g. `7H+`, `KSk`."""
    return NAME[move[0]] + move[1]


def parse_move(text: str) -> Move:
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
    """The deal (from 1), the count and the scores, for a readable account."""
    scores = f"scores {state.scores[0]}-{state.scores[1]}"
    if state.termination is None and not state.played and state.deal > 0:  # the last card of a deal was just played
        return f"deal {state.deal} over, last cards scored   {scores}"
    return f"deal {state.deal + 1:2d}   count {state.count:3d}   {scores}"


def observation_json(observation: Observation) -> dict:
    """The observation as JSON-able data for bots in other processes: cards as names, moves in notation;
    `played` entries are [seat, card, op]."""
    o = observation
    return {"seat": o.seat, "rules": dict(vars(o.rules)), "deal": o.deal, "dealer": o.dealer,
            "hand": [NAME[c] for c in o.hand], "count": o.count, "turn_up": NAME[o.turn_up],
            "played": [[seat, NAME[card], op] for seat, card, op in o.played], "last_king": o.last_king,
            "last_value": o.last_value, "scores": list(o.scores), "opponent_hand_size": o.opponent_hand_size,
            "legal_moves": [NAME[card] + op for card, op in o.legal_moves]}
