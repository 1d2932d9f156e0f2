"""Go For It (docs/rules.md, Go For It): 2-6 players turn up cards from face-down piles onto a row,
winning it with card combinations or taking it up; the game ends when someone plays their last
card, and each player scores the cards won minus the cards left in their pile."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, product
from typing import Final, NamedTuple

from mypy_extensions import mypyc_attr

from arena.cards import IS_RED, JOKER, NAME, RANK, SUIT, Card, card_names, shuffle, shuffled_deck
from arena.games.base import MoveError, ObservationCache, Outcome, option, ranks_from_scores

id = "go_for_it"
min_players = 2
max_players = 6

PLAY: Final = "play"
PASS: Final = "pass"
CLAIM: Final = "claim"
TAKE: Final = "take"
MOVES: Final = (PLAY, PASS, CLAIM, TAKE)
"""Every move, in the order legal_moves lists them."""
PLAY_PASS: Final[tuple[str, ...]] = (PLAY, PASS)
PLAY_CLAIM: Final[tuple[str, ...]] = (PLAY, CLAIM)
PLAY_TAKE: Final[tuple[str, ...]] = (PLAY, TAKE)

_AFTER: Final[tuple[tuple[int, ...], ...]] = tuple(tuple(range(1, n)) + (0,) for n in range(max_players + 1))
"""For n players, the seat after each seat (its left-hand neighbour, next in turn)."""
_SEAT_MOVE: Final[tuple[dict[str, tuple[int, str]], ...]] = tuple(
    {move: (seat, move) for move in MOVES} for seat in range(max_players))
"""(seat, move), the entries of the move history, built once rather than at every move."""

JOKERS_ADDED: Final = {3: 2, 5: 3, 6: 2}
"""Jokers added with option `jokers` so that the deal comes out even (docs/rules.md, Deal)."""
SEVEN: Final = 7
# JOKER and RANK as this module's constants, which compiled code reads without a dictionary lookup.
_JOKER: Final = JOKER
_RANK: Final = RANK


@mypyc_attr(native_class=False)  # compiled, a frozen dataclass refuses copy.copy
@dataclass(frozen=True)
class Rules:
    """The options of Go For It."""

    players: int = option(4, "number of players", low=2, high=6)
    jokers: bool = option(False, "with 3, 5 or 6 players add 2, 3 or 2 jokers so the deal comes out even")
    max_decisions: int = option(5000, "decisions after which the game ends (termination move_limit)", low=1)


class Observation(NamedTuple):
    """What one seat knows: everything public; nobody knows the unseen (dealt) part of any pile."""

    seat: int
    rules: Rules
    row: tuple[Card, ...]
    """The row, in the order played."""
    last_player: int | None
    """The seat that played the last card (None before any card)."""
    passes: int
    """Passes in a row since the last card was played."""
    pile_sizes: tuple[int, ...]
    pile_known: tuple[tuple[Card, ...], ...]
    """Per seat, the bottom part of the pile put there during play (taken-up rows, jokers), top first."""
    winnings: tuple[tuple[Card, ...], ...]
    """Per seat, the cards won, in the order won."""
    decisions: int
    turn: int | None
    """The seat to decide, or None when the game is over."""
    legal_moves: tuple[str, ...]


class State:
    """A Go For It game in progress (mutable; only the referee holds it).

    `turn` is None once the game is over, so that `to_move` is one attribute read.

    `added[seat]` counts the cards put at the bottom of the seat's pile during play (taken-up rows,
    jokers). Cards leave a pile only from the top and join it only at the bottom, so the unseen (dealt)
    part of a pile is its first `len(pile) - added` cards, and playing a card needs no bookkeeping.

    A seat's `winnings` list is replaced when it wins cards, never changed in place, so that clones share
    them. `won` caches the observation's `winnings` (a tuple, so clones may share it): it changes far less
    often than once a decision, so whatever changes the winnings sets it to None.

    `bits` is the OR of _BITS over the row's cards (its ranks, suits and colours), kept as the row
    grows, so that `apply` checks a combination without reading the row again.
    """

    __slots__ = ("rules", "n", "after", "limit", "piles", "added", "set_aside", "row", "last", "passes", "winnings",
                 "decisions", "turn", "legal", "termination", "layout", "moves", "won", "bits")

    rules: Rules
    n: int
    after: tuple[int, ...]
    limit: int
    piles: list[list[Card]]
    added: list[int]
    set_aside: list[Card]
    row: list[Card]
    last: int | None
    passes: int
    winnings: list[list[Card]]
    decisions: int
    turn: int | None
    legal: tuple[str, ...]
    termination: str | None
    layout: tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...]] | None
    moves: list[tuple[int, str]] | None
    won: tuple[tuple[Card, ...], ...] | None
    bits: int

    @property
    def unseen(self) -> list[int]:
        """Per seat, how many cards at the top of the pile nobody has seen (the rest of it is known)."""
        return [max(0, len(p) - a) for p, a in zip(self.piles, self.added, strict=True)]

    def __repr__(self) -> str:
        return f"<go_for_it row={card_names(self.row)} turn={self.turn} scores={scores(self)}>"


def players(rules: Rules) -> int:
    """The `players` option."""
    return rules.players


def _start(rules: Rules, piles: list[list[Card]], set_aside: list[Card] | None = None, *,
           unseen: list[int] | None = None, row: list[Card] | None = None, last: int | None = None,
           passes: int = 0, winnings: list[list[Card]] | None = None, decisions: int = 0, turn: int = 0,
           termination: str | None = None) -> State:
    """A state from explicit parts. With an empty row, seat `turn` starts a row at once (as after the
    deal); otherwise `turn` is to decide on the row as it stands. `unseen` defaults to whole piles."""
    n = rules.players
    state = State()
    state.rules, state.n, state.after, state.limit, state.piles = rules, n, _AFTER[n], rules.max_decisions, piles
    state.added = [0] * n if unseen is None else [len(p) - u for p, u in zip(piles, unseen, strict=True)]
    state.set_aside = list(set_aside or ())
    state.row = list(row or ())
    state.bits = _row_bits(state.row)
    state.last, state.passes, state.decisions = last, passes, decisions
    state.winnings = winnings if winnings is not None else [[] for _ in range(n)]
    state.turn, state.termination, state.legal = turn, termination, ()
    state.layout = (tuple(tuple(p) for p in piles), tuple(state.set_aside))
    state.moves = []
    state.won = None
    if termination:
        state.turn = None
    elif state.row:
        state.legal = _legal_at(state.row, passes, n)
    else:
        _new_row(state, turn)
    return state


def new_state(rules: Rules, seed: int) -> State:
    """Deals the pack (plus jokers) one card at a time from seat 0; seat 0 starts the first row."""
    n = rules.players
    jokers = JOKERS_ADDED.get(n, 0) if rules.jokers else 0
    deck = shuffled_deck(seed, jokers)
    dealt = len(deck) // n * n
    # Card i of the deal goes to seat i mod n; the first card a seat receives is the top of its pile.
    return _start(rules, [deck[s:dealt:n] for s in range(n)], deck[dealt:])


def clone(state: State) -> State:
    """An independent copy. What never changes in place is shared: the rules, the layout, the set-aside
    cards (nothing plays them), each seat's winnings and the cached observation tuple."""
    copy = State()  # at most three attributes an assignment: four or more would build and unpack a tuple
    copy.rules, copy.n = state.rules, state.n
    copy.after, copy.limit = state.after, state.limit
    copy.last, copy.passes = state.last, state.passes
    copy.piles = list(map(list.copy, state.piles))
    copy.added, copy.set_aside, copy.row = state.added.copy(), state.set_aside, state.row.copy()
    copy.winnings = state.winnings.copy()  # list.copy: a [:] slice also builds a slice object
    copy.decisions, copy.turn, copy.legal = state.decisions, state.turn, state.legal
    moves = state.moves
    copy.termination, copy.layout, copy.moves = state.termination, state.layout, None if moves is None else moves.copy()
    copy.won, copy.bits = state.won, state.bits
    return copy


_SUIT_BIT: Final = tuple(1 << s for s in SUIT[:52])
_ALL_SUITS: Final = 0b1111
_RANK_BIT: Final = tuple(1 << r for r in RANK[:52])
_RUNS: Final = frozenset(0b111 << low for low in range(11))
"""The rank bits of three consecutive ranks (A23 .. JQK, no wrap-round)."""
_NUMERALS: Final = (1 << 10) - 1

# A card's bits for `State.bits`: its rank (bits 0-12), its suit (13-16) and its colour (17 black, 18 red); a
# joker's are 0.
_RANKS: Final = (1 << 13) - 1
_SUITS: Final = 0b1111 << 13
_COLOURS: Final = 0b11 << 17
_BITS: Final = tuple(1 << RANK[c] | 1 << 13 + SUIT[c] | 1 << (18 if IS_RED[c] else 17) for c in range(52)) + (0,)
_SUIT_COLOUR: Final = tuple(_BITS[13 * s] & ~_RANKS for s in range(4))
_FLUSH_OR_RUN: Final = frozenset(
    [1 << a | 1 << b | 1 << c | _SUIT_COLOUR[s] for a, b, c in combinations(range(13), 3) for s in range(4)]
    + [run | _SUIT_COLOUR[s] | _SUIT_COLOUR[t] | _SUIT_COLOUR[u]
       for run in _RUNS for s, t, u in product(range(4), repeat=3)])
"""The bits of every three cards of three different ranks that make a flush or a run."""
_NUMBERS: Final = frozenset(sum(1 << r for r in ranks) for ranks in combinations(range(10), 6))
"""The rank bits of six numerals A-10 of different ranks."""


def _row_bits(row: Iterable[Card]) -> int:
    """`State.bits` of a row."""
    bits = 0
    for c in row:
        bits |= _BITS[c]
    return bits


def _wins(row: Sequence[Card]) -> bool:
    """Step 4: the row (length 2..6, or any length for the pair rule) is a winning combination.
    (`apply` has the same checks inlined, for speed.)"""
    c = row[-1]
    rank = _RANK[c]
    if rank == _RANK[row[0]] or rank == _RANK[row[-2]]:
        return True  # pairs with the first card or the card just before it (and the pair at length 2)
    size = len(row)
    if size == 3:
        a, b = row[0], row[1]
        return SUIT[a] == SUIT[b] == SUIT[c] or _RANK_BIT[a] | _RANK_BIT[b] | _RANK_BIT[c] in _RUNS  # flush, run
    if size == 4:
        return _SUIT_BIT[row[0]] | _SUIT_BIT[row[1]] | _SUIT_BIT[row[2]] | _SUIT_BIT[c] == _ALL_SUITS  # prime
    if size == 5:
        return IS_RED[row[0]] == IS_RED[row[1]] == IS_RED[row[2]] == IS_RED[row[3]] == IS_RED[c]  # colour
    if size == 6:  # number: six numerals A-10 of different ranks
        ranks = _RANK_BIT[row[0]] | _RANK_BIT[row[1]] | _RANK_BIT[row[2]] | _RANK_BIT[row[3]] | _RANK_BIT[row[4]]
        ranks |= _RANK_BIT[c]
        return ranks.bit_count() == 6 and ranks <= _NUMERALS
    return False


def _legal_at(row: Sequence[Card], passes: int, n: int) -> tuple[str, ...]:
    """The moves open at a decision on a standing row (used when rebuilding a position)."""
    if passes:
        return PLAY_TAKE if passes == n else PLAY_PASS
    return PLAY_CLAIM if _wins(row) else PLAY_PASS


def _end(state: State, seat: int) -> None:
    """1. Last card: `seat` played the last card of its pile; the row (jokers included) is its own."""
    winnings = state.winnings
    winnings[seat] = winnings[seat] + state.row
    state.row.clear()
    state.bits = 0
    state.termination, state.turn, state.legal, state.won = "normal", None, (), None


def _new_row(state: State, seat: int) -> None:
    """`seat` starts a row: it turns up the top two cards of its pile (automatic). The first card is
    checked for steps 1-2 only; at length 2 the only combination is a pair, and nothing else can
    happen. A joker passes the start on to the next seat, so this loops."""
    piles, row = state.piles, state.row
    state.passes = 0
    while True:
        state.last = seat
        pile = piles[seat]
        first = pile.pop(0)
        row.append(first)
        if not pile:
            _end(state, seat)
            return
        if first == _JOKER:  # nothing else on the row: the joker goes to the neighbour, who starts
            row.clear()
            nxt = state.after[seat]
            piles[nxt].append(_JOKER)
            state.added[nxt] += 1
            seat = nxt
            continue
        second = pile.pop(0)
        row.append(second)
        if not pile:
            _end(state, seat)
            return
        if second == _JOKER:  # the first card to the player's pile bottom, the joker to the neighbour's
            row.clear()
            pile.append(first)
            nxt = state.after[seat]
            piles[nxt].append(_JOKER)
            added = state.added
            added[seat] += 1
            added[nxt] += 1
            seat = nxt
            continue
        state.bits = _BITS[first] | _BITS[second]
        if state.decisions >= state.limit:  # docs/rules.md: move_limit, when a decision is due
            state.termination, state.turn, state.legal = "move_limit", None, ()
        else:
            state.turn, state.legal = seat, PLAY_CLAIM if _RANK[first] == _RANK[second] else PLAY_PASS
        return


def to_move(state: State) -> int | None:
    """The seat to decide, or None when the game is over."""
    return state.turn


def legal_moves(state: State) -> tuple[str, ...]:
    """`play`/`pass`, `play`/`claim` after a winning combination, `play`/`take` after a full round of passes."""
    return state.legal


def apply(state: State, move: str) -> None:
    """Plays a legal move for the seat to move, then every automatic event until the next decision.

    This is the inner loop of every search bot, so playing a card (docs/rules.md, After each card played)
    is written out here rather than split into helpers: a function call costs as much as the checks."""
    seat: int = state.turn  # type: ignore[assignment]
    if state.moves is not None:  # a sampled world keeps no record of its moves: searches never read one
        state.moves.append(_SEAT_MOVE[seat][move])
    decisions = state.decisions = state.decisions + 1
    # The other moves first, so that each test jumps over a short block: a comparison that jumps as far as
    # over the whole play is never specialised by the interpreter, and costs more than two that are.
    if move == PASS:
        # Passes always start with the last card's player, so after n passes the turn is theirs again.
        passes = state.passes = state.passes + 1
        if decisions >= state.limit:
            state.termination, state.turn, state.legal = "move_limit", None, ()
        else:
            state.turn, state.legal = state.after[seat], PLAY_TAKE if passes == state.n else PLAY_PASS
        return
    if move != PLAY:
        if move == CLAIM:  # winning a row: the winner starts the new one
            winnings = state.winnings
            winnings[seat] = winnings[seat] + state.row
            state.row.clear()
            state.won = None
            _new_row(state, seat)
        else:  # take: the row to the bottom of the pile, in row order; the next player starts a new row
            state.piles[seat] += state.row
            state.added[seat] += len(state.row)
            state.row.clear()
            _new_row(state, state.after[seat])
        return
    pile = state.piles[seat]
    c = pile.pop(0)
    row = state.row
    row.append(c)
    state.last, state.passes = seat, 0
    if not pile:  # 1. last card: the game ends, the row (jokers included) is the player's
        _end(state, seat)
        return
    if c == _JOKER:  # 2. the rest of the row to the player's pile bottom, the joker to the neighbour's
        row.pop()
        pile += row
        added = state.added
        added[seat] += len(row)
        row.clear()
        nxt = state.after[seat]
        state.piles[nxt].append(_JOKER)
        added[nxt] += 1
        _new_row(state, nxt)
        return
    size = len(row)
    if size == SEVEN:  # 3. seven: the player wins the row and starts a new one
        winnings = state.winnings
        winnings[seat] = winnings[seat] + row
        row.clear()
        state.won = None
        _new_row(state, seat)
        return
    # 4. winning combination (as _wins checks it, here from the row's bits): claim it or play on. Most cards
    # pair with no card of the row, so that is asked first. A card that pairs with one other than the first or
    # the one just before is an intermediate pair: legal None, for step 5 below, unless a prime or a colour
    # wins first (a flush, a run or a number never has a pair, and at length 3 every pair wins).
    legal: tuple[str, ...] | None
    before = state.bits
    bits = state.bits = before | _BITS[c]
    if before & _RANK_BIT[c]:
        rank = _RANK[c]
        if rank == _RANK[row[0]] or rank == _RANK[row[-2]]:
            legal = PLAY_CLAIM
        elif size == 4:  # prime: all four suits
            legal = PLAY_CLAIM if bits & _SUITS == _SUITS else None
        elif size == 5:  # colour: one colour only
            legal = PLAY_CLAIM if bits & _COLOURS != _COLOURS else None
        else:
            legal = None
    elif size == 3:  # flush or run
        legal = PLAY_CLAIM if bits in _FLUSH_OR_RUN else PLAY_PASS
    elif size == 4:
        legal = PLAY_CLAIM if bits & _SUITS == _SUITS else PLAY_PASS
    elif size == 5:
        legal = PLAY_CLAIM if bits & _COLOURS != _COLOURS else PLAY_PASS
    elif size == 6:  # number: six numerals A-10 of different ranks
        legal = PLAY_CLAIM if bits & _RANKS in _NUMBERS else PLAY_PASS
    else:  # a row of 2 (only in a rebuilt position) with no pair
        legal = PLAY_PASS
    if legal is None:  # 5. intermediate pair: the player takes up the row, the next player starts
        pile += row
        state.added[seat] += size
        row.clear()
        _new_row(state, state.after[seat])
        return
    if decisions >= state.limit:  # docs/rules.md: move_limit, when a decision is due
        state.termination, state.turn, state.legal = "move_limit", None, ()
    else:  # the same player decides again
        state.legal = legal


def scores(state: State) -> list[int]:
    """Cards won minus cards left in the pile, per seat."""
    return [len(w) - len(p) for w, p in zip(state.winnings, state.piles, strict=True)]


def result(state: State) -> Outcome:
    """Scores, ranks and termination of a finished game."""
    final = scores(state)
    return Outcome(tuple(final), ranks_from_scores(final), state.termination)  # type: ignore[arg-type]


_new_observation = tuple.__new__
"""Builds an Observation without the Python-level __new__ of NamedTuple (same tuple, less work)."""


def observe(state: State, seat: int) -> Observation:
    """What `seat` may know: everything but the order of the unseen cards (its own included)."""
    # The known part of a pile is its last `added` cards, or all of it when fewer are left.
    known = tuple([tuple(p[-a:]) if a else () for p, a in zip(state.piles, state.added, strict=True)])
    won = state.won
    if won is None:
        won = state.won = tuple([tuple(w) for w in state.winnings])
    turn = state.turn
    return _new_observation(Observation, (
        seat, state.rules, tuple(state.row), state.last, state.passes, tuple(map(len, state.piles)), known, won,
        state.decisions, turn, state.legal if seat == turn else ()))


_CARDS: Final = frozenset(range(52))


class _Plan(NamedTuple):
    """What sample_world works out from an observation alone, and the observation's parts it reads."""

    observation: Observation
    hidden: list[Card]
    """Every card nobody has seen, in card order (jokers last)."""
    piles: tuple[tuple[int, int, list[Card]], ...]
    """Per seat: where its unseen cards lie in the shuffled `hidden` (start, end), and the known part of
    the pile under them."""
    added: list[int]
    termination: str | None
    legal: tuple[str, ...]
    """The legal moves of the seat to move."""
    rules: Rules
    row: tuple[Card, ...]
    bits: int
    last: int | None
    passes: int
    decisions: int
    winnings: list[list[Card]]
    """Per seat, the cards won (lists shared by the sampled worlds: see State)."""
    turn: int | None


def _make_plan(obs: Observation) -> _Plan:
    """The plan of sample_world for `obs`."""
    rules = obs.rules
    n = rules.players
    # What is in play: the pack plus jokers, minus everything seen (row, known pile bottoms, winnings).
    hidden = sorted(_CARDS.difference(obs.row, *obs.pile_known, *obs.winnings))
    if rules.jokers and n in JOKERS_ADDED:  # the jokers not seen: every card not seen that is not in `hidden`
        seen = len(obs.row) + sum(map(len, obs.pile_known)) + sum(map(len, obs.winnings))
        hidden += [JOKER] * (52 + JOKERS_ADDED[n] - seen - len(hidden))
    piles: list[tuple[int, int, list[Card]]]
    termination: str | None
    piles, at = [], 0
    for size, known in zip(obs.pile_sizes, obs.pile_known, strict=True):
        top = size - len(known)
        piles.append((at, at + top, list(known)))
        at += top
    termination, legal = None, obs.legal_moves
    if obs.turn is None:  # over: a normal end empties the last player's pile; move_limit leaves all piles
        termination = "normal" if 0 in obs.pile_sizes else "move_limit"
    elif obs.seat != obs.turn:
        legal = _legal_at(obs.row, obs.passes, n)
    return _Plan(obs, hidden, tuple(piles), list(map(len, obs.pile_known)), termination, legal, rules, obs.row,
                 _row_bits(obs.row), obs.last_player, obs.passes, obs.decisions, list(map(list, obs.winnings)),
                 obs.turn)


_plan: Final[Callable[[Observation], _Plan]] = ObservationCache(_make_plan)


def sample_world(observation: Observation, rng: random.Random) -> State:
    """A state in which every unseen card (each pile's dealt part and the set-aside) is dealt at random."""
    _, hidden, cuts, added, termination, legal, rules, row, bits, last, passes, decisions, winnings, turn = (
        _plan(observation))
    hidden = hidden[:]
    shuffle(hidden, rng)
    piles: list[list[Card]] = []
    for start, end, known in cuts:
        pile = hidden[start:end]
        pile += known
        piles.append(pile)
    # As _start would build it, without what it must work out.
    n = rules.players
    state = State()
    state.rules, state.n = rules, n  # at most three attributes an assignment (see clone)
    state.after, state.limit = _AFTER[n], rules.max_decisions
    state.piles, state.added, state.set_aside = piles, added[:], hidden[end:]  # after the last pile's cards
    state.row, state.bits = list(row), bits
    state.last, state.passes, state.decisions = last, passes, decisions
    state.winnings, state.won = winnings[:], observation.winnings
    state.layout, state.moves = None, None  # no record of its moves (see deals)
    state.turn, state.legal, state.termination = turn, legal, termination
    return state


def move_to_str(move: str) -> str:
    """The move itself: `play`, `pass`, `claim` or `take`."""
    return move


def parse_move(text: object) -> str:
    """The move written as `text` (case and surrounding spaces ignored)."""
    if not isinstance(text, str) or (move := text.strip().lower()) not in MOVES:
        raise MoveError(f"not a move: {text!r} (moves: {', '.join(MOVES)})")
    return move


def deals(state: State) -> list[tuple[tuple | None, list[tuple[int, str]]]]:
    """One deal: the layout and every move (a sampled world keeps no record of its moves: layout None, no
    moves)."""
    return [(state.layout, state.moves or [])]


def layout_json(layout: tuple) -> dict:
    """`piles` (one per seat, top first) and `set_aside`."""
    piles, set_aside = layout
    return {"piles": [card_names(p) for p in piles], "set_aside": card_names(set_aside)}


def describe(state: State) -> str:
    """The row, the passes, pile sizes and scores, for a readable account."""
    row = " ".join(NAME[c] for c in state.row) or "-"
    piles = "/".join(str(len(p)) for p in state.piles)
    return f"row {row:<20}  passes {state.passes}  piles {piles}  scores {'/'.join(map(str, scores(state)))}"



def observation_json(observation: Observation) -> dict:
    """The observation as JSON-able data for bots in other processes: cards as names, moves in notation."""
    o = observation
    return {"seat": o.seat, "rules": dict(vars(o.rules)), "row": [NAME[c] for c in o.row],
            "last_player": o.last_player, "passes": o.passes, "pile_sizes": list(o.pile_sizes),
            "pile_known": [[NAME[c] for c in pile] for pile in o.pile_known],
            "winnings": [[NAME[c] for c in won] for won in o.winnings], "decisions": o.decisions,
            "turn": o.turn, "legal_moves": list(o.legal_moves)}
