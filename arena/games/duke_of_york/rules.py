"""Duke of York (docs/rules.md, Duke of York): five rounds; each round opens with an exchange with the
two face-down table cards, then the players march the count up the hill towards 31 and back down
towards 0, scoring for the top of the hill and for the bottom."""

from __future__ import annotations

import random
from bisect import insort
from dataclasses import dataclass
from itertools import accumulate
from math import comb
from typing import Any, Final, NamedTuple

from mypy_extensions import mypyc_attr

from arena.cards import DECK, NAME, RANK, Card, CardError, card_names, parse_card, shuffle, shuffled_deck
from arena.games.base import MoveError, ObservationCache, Outcome, option, ranks_from_scores

id = "duke_of_york"
min_players = max_players = 2
deal_name = "round"
"""What a deal is called in readable accounts."""

ROUNDS: Final = 5
HAND: Final = 5
TOP: Final = 31
MOST: Final = 13
"""No card is worth more (under any `values` option)."""

VALUE_CHOICES = ("queen_zero", "face_value", "queen_eleven")
# docs/rules.md, Duke of York: the card values of each `values` option, by rank A 2 .. 10 J Q K.
_BY_RANK = {
    "queen_zero": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 12),
    "face_value": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13),
    "queen_eleven": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 11, 13),
}
VALUES: Final[dict[str, tuple[int, ...]]] = {
    name: tuple(ranks[RANK[c]] for c in DECK) for name, ranks in _BY_RANK.items()}
"""The value of each card (indexed by card int) under each `values` option."""

# Moves are tuples built once: ("take", slot), ("discard", card), ("play", card). (Typed `tuple` rather than
# `tuple[str, int]`: compiled, a typed pair would be unpacked and built again wherever it is stored.)
TAKES: Final[tuple[tuple, ...]] = (("take", 0), ("take", 1))
DISCARD: Final[tuple[tuple, ...]] = tuple(("discard", c) for c in DECK)
PLAY: Final[tuple[tuple, ...]] = tuple(("play", c) for c in DECK)
HIDDEN_DISCARD = ("discard", None)
"""How an observation shows the opponent's discard (it goes to the table face down)."""

# Phases of a round: the four exchange decisions, then the play.
LEADER_TAKE, LEADER_DISCARD, DEALER_TAKE, DEALER_DISCARD, PLAYING = range(5)


@mypyc_attr(native_class=False)  # compiled, a frozen dataclass refuses copy.copy
@dataclass(frozen=True)
class Rules:
    """Duke of York's one option: the card values."""

    values: str = option("queen_zero", "card values: queen_zero (Q=0 A=1 .. J=11 K=12), face_value "
                         "(A=1 .. J=11 Q=12 K=13) or queen_eleven (A=1 .. Q=11 J=12 K=13)", choices=VALUE_CHOICES)


class Observation(NamedTuple):
    """What one seat knows: its hand, what it put on the table, the play of the round, the scores."""

    seat: int
    rules: Rules
    round: int
    """The round, 0..4."""
    dealer: int
    to_move: int | None
    """The seat to decide, None when the game is over."""
    hand: tuple[Card, ...]
    """Own hand, sorted."""
    table: tuple[Card | None, Card | None]
    """Slots 0 and 1: a card this seat put there itself that nobody has taken since, else None."""
    taken: Card | None
    """The card this seat took from the table in this round's exchange (None before it takes)."""
    count: int  # type: ignore[assignment]  # (a field named like tuple.count)
    direction: str
    """'up' or 'down'."""
    peak: int
    """The highest count of the round so far (-1 before the first play)."""
    peak_seat: int | None
    """Who first brought the count to the peak (top of the hill so far)."""
    played: tuple[tuple[int, Card], ...]
    """(seat, card) for every card played this round, in order."""
    earlier: tuple[tuple[tuple[int, Card], ...], ...]
    """The cards played in each earlier round, as (seat, card) in order."""
    moves: tuple[tuple[int, tuple], ...]
    """This round's moves in order; the opponent's discards are shown as ('discard', None)."""
    scores: tuple[int, ...]
    opponent_hand_size: int
    stock_size: int
    legal_moves: tuple[tuple, ...]


# The entries of `played` and of the move history, built once rather than at every move.
_SEAT_CARD: Final[tuple[tuple[tuple, ...], ...]] = tuple(tuple((seat, c) for c in DECK) for seat in (0, 1))
_SEAT_PLAY: Final[tuple[tuple[tuple, ...], ...]] = tuple(tuple((seat, PLAY[c]) for c in DECK) for seat in (0, 1))
_SEAT_TAKE: Final[tuple[tuple[tuple, ...], ...]] = tuple(tuple((seat, take) for take in TAKES) for seat in (0, 1))
_SEAT_DISCARD: Final[tuple[tuple[tuple, ...], ...]] = tuple(tuple((seat, DISCARD[c]) for c in DECK) for seat in (0, 1))


class State:
    """A Duke of York game in progress (mutable; only the referee holds it).

    A round's moves are its four exchange moves (leader take, leader discard, dealer take, dealer
    discard: `exchange`, so the phase of the round is their number) and then the plays, which `played`
    already records: `moves` puts them together when asked, so that a play is recorded once.
    `turn` is None once the game is over. `past` (each finished round's layout, exchange and plays),
    `history`, `set_aside` and `stock` are replaced, never changed in place, so clones share them.
    `playing` is whether the exchange is over, so that `apply` knows a play without comparing strings.
    """

    __slots__ = ("rules", "value", "round", "dealer", "hands", "table", "owner", "stock",
                 "set_aside", "history", "taken", "count", "down", "peak", "peak_seat", "played", "scores", "turn",
                 "legal", "termination", "past", "layout", "exchange", "playing", "ended")
    rules: Rules
    value: tuple[int, ...]
    round: int
    dealer: int
    hands: list[list[Card]]
    table: list[Card | None]
    owner: list[int]
    stock: list[Card]
    set_aside: list[Card]
    history: list[tuple[tuple[int, Card], ...]]
    taken: list[Card | None]
    count: int
    down: bool
    peak: int
    peak_seat: int | None
    played: list[tuple[int, Card]]
    scores: list[int]
    turn: int | None
    legal: tuple[tuple[str, int], ...]
    termination: str | None
    past: list
    layout: Any
    exchange: list[tuple[int, tuple[str, int]]]
    playing: bool
    ended: tuple | None

    def __repr__(self) -> str:
        return (f"<duke_of_york round={self.round} count={self.count} {'down' if self.down else 'up'} "
                f"scores={self.scores} turn={self.turn}>")

    @property
    def phase(self) -> int:
        """LEADER_TAKE, LEADER_DISCARD, DEALER_TAKE, DEALER_DISCARD or PLAYING."""
        return len(self.exchange)

    @property
    def moves(self) -> list[tuple[int, tuple]]:
        """This round's moves, (seat, move) in order."""
        return _round_moves(self.exchange, self.played)

    @property
    def rounds(self) -> list[tuple]:
        """(layout, moves) of every round so far, the current one last."""
        return deals(self)


def players(rules: Rules) -> int:
    """Always two."""
    return 2


def _new_round(state: State, first: list[Card], second: list[Card], layout) -> None:
    """Starts round `state.round` with these hands, sorted (the table and stock are already in place)."""
    dealer = state.dealer = (state.round + 1) % 2  # docs/rules.md: round r is dealt by seat (r + 1) % 2
    state.hands, state.taken = [first, second], [None, None]
    state.count, state.down, state.peak, state.peak_seat = 0, False, -1, None
    state.played, state.exchange, state.layout = [], [], layout
    state.playing = False
    state.turn, state.legal = 1 - dealer, TAKES  # the other seat leads


def _start(rules: Rules, hands: list[list[Card]], table: list[Card], stock: list[Card], round_: int = 0,
           scores: tuple[int, int] = (0, 0), set_aside: list[Card] | None = None,
           history: list[tuple[tuple[int, Card], ...]] | None = None, owner: tuple[int, int] = (-1, -1)) -> State:
    """A state at the start of round `round_` (before the exchange) from explicit cards."""
    state = State()
    state.rules, state.value = rules, VALUES[rules.values]
    state.round = round_
    state.table, state.owner = list(table), list(owner)
    state.stock, state.set_aside = list(stock), list(set_aside or [])
    state.history = list(history or [])
    state.scores = list(scores)
    state.termination, state.ended = None, None
    state.past = []
    layout = ((round_ + 1) % 2, (tuple(hands[0]), tuple(hands[1])), tuple(table))
    _new_round(state, sorted(hands[0]), sorted(hands[1]), layout)
    return state


def new_state(rules: Rules, seed: int) -> State:
    """Shuffles once (docs/rules.md): 5 cards to each seat, 2 to the table slots, the other 40 are the stock."""
    deck = shuffled_deck(seed)
    return _start(rules, [deck[0:5], deck[5:10]], deck[10:12], deck[12:])


def clone(state: State) -> State:
    """An independent copy (sharing what is never changed in place)."""
    copy = State()  # at most three attributes an assignment: four or more would build and unpack a tuple
    copy.rules, copy.value = state.rules, state.value
    copy.round, copy.dealer = state.round, state.dealer
    hands = state.hands
    copy.hands = [hands[0].copy(), hands[1].copy()]  # list.copy: a [:] slice also builds a slice object
    copy.table, copy.owner, copy.taken = state.table.copy(), state.owner.copy(), state.taken.copy()
    copy.stock, copy.set_aside, copy.history = state.stock, state.set_aside, state.history
    copy.count, copy.down = state.count, state.down
    copy.peak, copy.peak_seat = state.peak, state.peak_seat
    copy.played, copy.scores = state.played.copy(), state.scores.copy()
    copy.turn, copy.legal = state.turn, state.legal
    copy.termination, copy.past, copy.layout = state.termination, state.past, state.layout
    copy.exchange, copy.playing, copy.ended = state.exchange.copy(), state.playing, state.ended
    return copy


def _round_moves(exchange: list[tuple[int, tuple[str, int]]], played) -> list[tuple[int, tuple]]:
    """A round's moves from its exchange moves and its plays."""
    return [*exchange, *[_SEAT_PLAY[seat][card] for seat, card in played]]


def to_move(state: State) -> int | None:
    """The seat to decide, or None when the game is over."""
    return state.turn


def legal_moves(state: State) -> tuple[tuple, ...]:
    """Take slot 0 or 1; discard any card of the hand; or play a card that keeps the count in 0..31."""
    return state.legal


def _each(moves: tuple[tuple[str, Card], ...], hand: list[Card]) -> tuple[tuple[str, Card], ...]:
    """`moves[c]` for every card `c` of `hand`, in hand order: the hand unpacked by its size (up to six cards),
    which is quicker than itemgetter (an object built at each call) or a loop. `apply` has it written out
    for plays."""
    size = len(hand)
    if size == 6:
        a, b, c, d, e, f = hand
        return moves[a], moves[b], moves[c], moves[d], moves[e], moves[f]
    if size == 5:
        a, b, c, d, e = hand
        return moves[a], moves[b], moves[c], moves[d], moves[e]
    if size == 4:
        a, b, c, d = hand
        return moves[a], moves[b], moves[c], moves[d]
    if size == 3:
        a, b, c = hand
        return moves[a], moves[b], moves[c]
    if size == 2:
        a, b = hand
        return moves[a], moves[b]
    return (moves[hand[0]],) if hand else ()


def _plays(hand: list[Card], value: tuple[int, ...], limit: int) -> tuple[tuple[str, Card], ...]:
    """The plays of the cards of `hand` worth at most `limit`, in card order (a plain loop is the quickest
    way to build this small tuple)."""
    legal = []
    for c in hand:
        if value[c] <= limit:
            legal.append(PLAY[c])
    return tuple(legal)


def _play_turn(state: State, seat: int, count: int) -> None:
    """The legal plays of `seat`, to move at `count`; turns the play down or ends the round (stuck) when due."""
    hand, value = state.hands[seat], state.value
    if not state.down:
        legal = _plays(hand, value, TOP - count)  # going up: count + value <= 31
        if legal:
            state.legal = legal
            return
        state.down = True  # docs/rules.md: no card fits going up, so the play turns down and this seat plays now
    legal = _plays(hand, value, count)  # going down: count - value >= 0
    if legal:
        state.legal = legal
    else:  # stuck: the round ends at once and the other seat played the last card
        _end_round(state, 1 - seat)


def apply(state: State, move: tuple) -> None:
    """Plays a legal move for the seat to move; turns the play down, ends rounds and the game when due.

    Plays are the inner loop of search bots, so after a play the next player's legal plays are worked
    out here, as _play_turn and _plays do, rather than in two calls (one loop for either direction)."""
    seat: int = state.turn  # type: ignore[assignment]  # (None only once the game is over)
    kind, arg = move
    # A play is known by the phase: `kind == "play"` would jump over the whole play, and a comparison that
    # jumps that far is never specialised by the interpreter (it costs more than the flag).
    if state.playing:
        hands = state.hands
        hands[seat].remove(arg)
        state.played.append(_SEAT_CARD[seat][arg])
        state.turn = other = 1 - seat
        hand = hands[other]
        if state.down:
            limit = state.count = state.count - state.value[arg]  # going down: count - value >= 0
        else:
            count = state.count = state.count + state.value[arg]
            if count > state.peak:  # strictly: the top goes to whoever *first* reached the peak
                state.peak, state.peak_seat = count, seat
            limit = TOP - count  # going up: count + value <= 31
        if not hand:  # both hands played out (turns alternate from equal hands): this seat played the last card
            _end_round(state, seat)
        elif limit < MOST:  # not every card fits (asked this way round, the jump is short: see above)
            legal = []
            value = state.value
            for c in hand:
                if value[c] <= limit:
                    legal.append(PLAY[c])
            if legal:
                state.legal = tuple(legal)
            elif state.down:  # stuck: the round ends at once and this seat played the last card
                _end_round(state, seat)
            else:
                # docs/rules.md: no card fits going up, so the play turns down, and every card fits going down
                # (the count is above 31 - 13)
                state.down = True
                state.legal = _each(PLAY, hand)
        else:  # every card fits, the commonest case: _each(PLAY, hand), written out (a call costs as much)
            size = len(hand)
            if size == 4:
                a, b, c, d = hand
                state.legal = PLAY[a], PLAY[b], PLAY[c], PLAY[d]
            elif size == 2:
                a, b = hand
                state.legal = PLAY[a], PLAY[b]
            elif size == 5:
                a, b, c, d, e = hand
                state.legal = PLAY[a], PLAY[b], PLAY[c], PLAY[d], PLAY[e]
            elif size == 3:
                a, b, c = hand
                state.legal = PLAY[a], PLAY[b], PLAY[c]
            else:
                state.legal = PLAY[hand[0]],
    elif kind == "take":
        state.exchange.append(_SEAT_TAKE[seat][arg])
        table = state.table
        card = table[arg]
        hand = state.hands[seat]
        insort(hand, card)
        state.taken[seat] = card
        table[arg], state.owner[arg] = None, -1
        state.legal = _each(DISCARD, hand)
    else:  # discard, face down into the slot just taken from; only this seat knows what lies there
        exchange = state.exchange
        exchange.append(_SEAT_DISCARD[seat][arg])
        state.hands[seat].remove(arg)
        slot = exchange[-2][1][1]  # this seat's take, just before
        state.table[slot], state.owner[slot] = arg, seat
        if len(exchange) == DEALER_TAKE:
            state.turn, state.legal = state.dealer, TAKES
        else:  # the exchange is over: the leader plays first, going up from 0
            state.playing = True
            leader = state.turn = 1 - state.dealer
            hand = state.hands[leader]
            if hand:  # every card fits at 0 (no card is worth more than 13): all of them
                state.legal = _each(PLAY, hand)
            else:
                _play_turn(state, leader, 0)


# docs/rules.md, Duke of York, scoring a round, by count 0..31: the top of the hill scores 1, or 2 if the peak is 30,
# or 3 if it is 31; the bottom of the hill scores 1, or 2 if the final count is 1, or 3 if it is 0.
_TOP_POINTS: Final = (1,) * 30 + (2, 3)
_BOTTOM_POINTS: Final = (3, 2) + (1,) * 30


def _end_round(state: State, last: int) -> None:
    """Scores the top and the bottom of the hill, then deals the next round or ends the game."""
    peak, count = state.peak, state.count
    scores, round_ = state.scores, state.round
    scores[state.peak_seat] += _TOP_POINTS[peak]  # type: ignore[index]  # (set by the round's first play)
    scores[last] += _BOTTOM_POINTS[count]
    played = tuple(state.played)
    state.history = [*state.history, played]
    state.ended = (round_, peak, state.peak_seat, count, last)
    if round_ == ROUNDS - 1:  # the final position stays as it is, for observers
        state.termination, state.legal, state.turn = "normal", (), None
        return
    hands, stock = state.hands, state.stock
    state.set_aside = [*state.set_aside, *hands[0], *hands[1]]  # unplayed cards are set aside unseen
    first, second = stock[0:HAND], stock[HAND:2 * HAND]
    state.stock = stock[2 * HAND:]
    state.round = round_ = round_ + 1
    layout = state.layout
    if layout is not None:  # a sampled world keeps no record of its rounds: searches never read one
        state.past = [*state.past, (layout, state.exchange, played)]
        layout = ((round_ + 1) % 2, (tuple(first), tuple(second)), tuple(state.table))
    first.sort()
    second.sort()
    _new_round(state, first, second, layout)


def scores(state: State) -> list[int]:
    """The scores as they stand."""
    return state.scores[:]


def result(state: State) -> Outcome:
    """Scores, ranks and termination of a finished game (equal totals share rank 0: a draw)."""
    return Outcome(tuple(state.scores), ranks_from_scores(state.scores), state.termination)  # type: ignore[arg-type]


_new_observation = tuple.__new__
"""Builds an Observation without the Python-level __new__ of NamedTuple (same tuple, less work)."""


def observe(state: State, seat: int) -> Observation:
    """What `seat` may know: never the opponent's hand, the stock or table cards it did not put there."""
    table, owner = state.table, state.owner
    # A round's moves open with leader take, leader discard, dealer take, dealer discard: the one
    # discard this seat did not make (move 1 or 3) is shown face down.
    exchange: list = state.exchange
    hidden = 3 if seat != state.dealer else 1
    if len(exchange) > hidden:
        exchange = [*exchange[:hidden], (1 - seat, HIDDEN_DISCARD), *exchange[hidden + 1:]]
    moves = tuple(_round_moves(exchange, state.played))
    turn = state.turn
    return _new_observation(Observation, (
        seat, state.rules, state.round, state.dealer, turn, tuple(state.hands[seat]),
        (table[0] if owner[0] == seat else None, table[1] if owner[1] == seat else None),
        state.taken[seat], state.count, "down" if state.down else "up", state.peak, state.peak_seat,
        tuple(state.played), tuple(state.history[:state.round]), moves, tuple(state.scores),
        len(state.hands[1 - seat]), len(state.stock), state.legal if seat == turn else ()))


class _Plan(NamedTuple):
    """What sample_world works out from an observation alone."""

    observation: Observation
    phase: int
    empty: int | None
    """The slot just taken from, when a discard is due."""
    unseen: list[Card]
    """Every card this seat has not seen, in card order."""
    fitting: tuple | None
    """When the opponent is to play: (limit, numbers of fitting cards it may hold, cumulative weights)."""
    owner: list[int]
    opponent_discard: tuple[int, int | None] | None
    """The opponent's discard this round: (its index in the moves, the slot whose sampled card it is, or
    None when this seat took it back)."""
    random_taken: bool
    """Mid-exchange, before the opponent's discard: the card it took is any card of its hand."""


def _make_plan(obs: Observation) -> _Plan:
    """The plan of sample_world for `obs`."""
    me, opp = obs.seat, 1 - obs.seat
    moves = obs.moves
    phase = min(len(moves), PLAYING)
    empty = moves[-1][1][1] if phase in (LEADER_DISCARD, DEALER_DISCARD) else None
    seen = set(obs.hand)
    seen.update(c for c in obs.table if c is not None)
    seen.update(c for _, c in obs.played)
    for played in obs.earlier:
        seen.update(c for _, c in played)
    unseen = [c for c in DECK if c not in seen]
    fitting = None
    if phase == PLAYING and obs.to_move == opp:
        # The opponent to move holds a card that fits, else the play would have turned down or ended:
        # deal k fitting cards with the exact conditional law of a uniform deal given "at least one".
        value, size = VALUES[obs.rules.values], obs.opponent_hand_size
        limit = TOP - obs.count if obs.direction == "up" else obs.count
        fit = sum(1 for c in unseen if value[c] <= limit)
        rest = len(unseen) - fit
        ks = range(1, min(size, fit) + 1)
        fitting = (limit, ks, list(accumulate([comb(fit, k) * comb(rest, size - k) for k in ks])))
    # This round's exchange: who knows each slot, and the opponent's discard (still in its slot, or the
    # card this seat then took from that slot).
    slot: Any
    owner, slot, opponent_discard = [-1, -1], None, None
    for i, (seat, move) in enumerate(moves[:4]):
        if move[0] == "take":
            slot, owner[move[1]] = move[1], -1
        else:
            owner[slot] = seat
            if seat == opp:
                taken_back = any(m == TAKES[slot] for _, m in moves[i + 1:4])
                opponent_discard = (i, None if taken_back else slot)
    random_taken = opponent_discard is None and phase > (DEALER_TAKE if opp == obs.dealer else LEADER_TAKE)
    owner = [me if obs.table[s] is not None else opp if owner[s] == opp else -1 for s in (0, 1)]
    plan = _Plan(obs, phase, empty, unseen, fitting, owner, opponent_discard, random_taken)
    return plan


_plan = ObservationCache(_make_plan)


def sample_world(observation: Observation, rng: random.Random) -> State:
    """A state consistent with `observation`: the opponent's hand, the table slots this seat does not
    know, the stock and the unseen set-aside cards are dealt at random from the unseen cards."""
    obs = observation
    me, opp = obs.seat, 1 - obs.seat
    rules = obs.rules
    value = VALUES[rules.values]
    plan = _plan(obs)
    phase, empty = plan.phase, plan.empty
    unseen = plan.unseen[:]
    shuffle(unseen, rng)
    size = obs.opponent_hand_size
    if plan.fitting is not None:
        limit, ks, cum_weights = plan.fitting
        fit = [c for c in unseen if value[c] <= limit]
        rest = [c for c in unseen if value[c] > limit]
        k = rng.choices(ks, cum_weights=cum_weights)[0]
        opp_hand = fit[:k] + rest[:size - k]
        unseen = fit[k:] + rest[size - k:]
        shuffle(unseen, rng)
    else:
        opp_hand, unseen = unseen[:size], unseen[size:]
    table = list(obs.table)
    for s in (0, 1):
        if table[s] is None and s != empty:
            table[s] = unseen.pop()
    stock, set_aside = unseen[:obs.stock_size], unseen[obs.stock_size:]

    taken: list[Card | None]
    moves, taken = list(obs.moves), [None, None]
    taken[me] = obs.taken
    if plan.opponent_discard is not None:
        i, slot = plan.opponent_discard
        taken[opp] = card = obs.taken if slot is None else table[slot]
        moves[i] = (opp, DISCARD[card])  # type: ignore[index]
    elif plan.random_taken:
        taken[opp] = rng.choice(opp_hand)  # mid-exchange: any card of the hand could be the one taken

    hand = list(obs.hand)
    opp_hand.sort()
    hands = [hand, opp_hand] if me == 0 else [opp_hand, hand]
    state = State()
    state.rules, state.value = rules, value  # at most three attributes an assignment (see clone)
    state.round, state.dealer, state.hands = obs.round, obs.dealer, hands
    state.table, state.owner = table, plan.owner[:]
    state.stock, state.set_aside = stock, set_aside
    state.history = list(obs.earlier)
    state.taken = taken
    state.count, state.down = obs.count, obs.direction == "down"
    state.peak, state.peak_seat = obs.peak, obs.peak_seat
    state.played, state.scores = list(obs.played), list(obs.scores)
    state.past, state.layout, state.exchange = [], None, moves[:4]  # a sampled world has no layouts
    state.playing = phase == PLAYING
    state.termination, state.ended = None, None
    if obs.to_move is None:
        state.termination, state.turn, state.legal = "normal", None, ()
        state.history.append(tuple(obs.played))
    elif phase == PLAYING:
        state.turn = obs.to_move
        _play_turn(state, obs.to_move, obs.count)
    else:
        state.turn = 1 - obs.dealer if phase < DEALER_TAKE else obs.dealer
        state.legal = TAKES if empty is None else _each(DISCARD, state.hands[state.turn])
    return state


def move_to_str(move: tuple) -> str:
    """`take:0`, `discard:7H`, or the card played, e.g. `7H`."""
    kind, arg = move
    if kind == "play":
        return NAME[arg]
    if kind == "take":
        return f"take:{arg}"
    return "discard:" + ("??" if arg is None else NAME[arg])


def parse_move(text: object) -> tuple:
    """The move written as `text`: `take:0`, `take:1`, `discard:7H` or a card such as `7H`."""
    if not isinstance(text, str):
        raise MoveError(f"not a move: {text!r}")
    word, colon, rest = text.strip().partition(":")
    word = word.strip().lower()
    try:
        if not colon:
            return PLAY[parse_card(word)]
        if word == "take" and rest.strip() in ("0", "1"):
            return TAKES[int(rest)]
        if word == "discard":
            return DISCARD[parse_card(rest)]
    except (CardError, IndexError):
        pass
    raise MoveError(f"not a move: {text!r} (write take:0, take:1, discard:7H or a card such as 7H)")


def deals(state: State) -> list[tuple[tuple, list[tuple[int, tuple]]]]:
    """One entry per round: (dealer, hands, table at the start of the round) and its moves (a sampled
    world has only its current round, with layout None: it keeps no record of the rounds it plays)."""
    rounds = [(layout, _round_moves(exchange, played)) for layout, exchange, played in state.past]
    return [*rounds, (state.layout, state.moves)]


def layout_json(layout: tuple) -> dict:
    """`dealer`, `hands` (2 x 5) and `table` ([slot 0, slot 1] at the start of the round)."""
    dealer, hands, table = layout
    return {"dealer": dealer, "hands": [card_names(h) for h in hands], "table": card_names(table)}


def describe(state: State) -> str:
    """The round (from 0, as `Observation.round`), the count, its direction and the scores, for a readable account."""
    if state.ended and (state.termination or not state.moves):  # a round just ended
        round_, peak, top, count, bottom = state.ended
        return (f"round {round_} over: top {peak} seat {top}, bottom {count} seat {bottom}"
                f"   scores {state.scores[0]}-{state.scores[1]}")
    return (f"round {state.round}  count {state.count:2d} {'down' if state.down else 'up  '}"
            f"   scores {state.scores[0]}-{state.scores[1]}")


def observation_json(observation: Observation) -> dict:
    """The observation as JSON-able data for bots in other processes: cards as names (null for none), moves in
    notation (the opponent's hidden discard as `discard:??`); `played` and `earlier` entries are [seat, card]."""
    o = observation
    return {"seat": o.seat, "rules": dict(vars(o.rules)), "round": o.round, "dealer": o.dealer,
            "to_move": o.to_move, "hand": [NAME[c] for c in o.hand],
            "table": [None if c is None else NAME[c] for c in o.table],
            "taken": None if o.taken is None else NAME[o.taken], "count": o.count, "direction": o.direction,
            "peak": o.peak, "peak_seat": o.peak_seat, "played": [[seat, NAME[c]] for seat, c in o.played],
            "earlier": [[[seat, NAME[c]] for seat, c in played] for played in o.earlier],
            "moves": [[seat, move_to_str(move)] for seat, move in o.moves], "scores": list(o.scores),
            "opponent_hand_size": o.opponent_hand_size, "stock_size": o.stock_size,
            "legal_moves": [move_to_str(m) for m in o.legal_moves]}
