"""Go For It (RULES.md, Go For It): 2-6 players turn up cards from face-down piles onto a row,
winning it with card combinations or taking it up; the game ends when someone plays their last
card, and each player scores the cards won minus the cards left in their pile."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import NamedTuple

from arena.cards import IS_RED, JOKER, NAME, RANK, SUIT, Card, card_names, shuffled_deck
from arena.games.base import MoveError, Outcome, option, ranks_from_scores

id = "go_for_it"
min_players = 2
max_players = 6

PLAY, PASS, CLAIM, TAKE = "play", "pass", "claim", "take"
MOVES = (PLAY, PASS, CLAIM, TAKE)
"""Every move, in the order legal_moves lists them."""
PLAY_PASS, PLAY_CLAIM, PLAY_TAKE = (PLAY, PASS), (PLAY, CLAIM), (PLAY, TAKE)

JOKERS_ADDED = {3: 2, 5: 3, 6: 2}
"""Jokers added with option `jokers` so that the deal comes out even (RULES.md, Deal)."""
SEVEN = 7

# Results of turning up one card (see _card): a seat >= 0 means "that seat starts a new row".
_DONE = -1  # a decision is due or the game is over
_NEXT = -2  # first card of a starting pair that ended nothing: the second follows


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
    """A Go For It game in progress (mutable; only the referee holds it)."""

    __slots__ = ("rules", "n", "piles", "unseen", "set_aside", "row", "last", "passes", "winnings",
                 "decisions", "turn", "legal", "termination", "layout", "moves")

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
    state.rules, state.n, state.piles = rules, n, piles
    state.unseen = [len(p) for p in piles] if unseen is None else unseen
    state.set_aside = list(set_aside or ())
    state.row = list(row or ())
    state.last, state.passes, state.decisions = last, passes, decisions
    state.winnings = winnings if winnings is not None else [[] for _ in range(n)]
    state.turn, state.termination, state.legal = turn, termination, ()
    state.layout = (tuple(tuple(p) for p in piles), tuple(state.set_aside))
    state.moves = []
    if termination:
        return state
    if state.row:
        state.legal = _legal_at(state)
    else:
        _run(state, turn)
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
    """An independent copy."""
    copy = State()
    copy.rules, copy.n, copy.last, copy.passes = state.rules, state.n, state.last, state.passes
    copy.piles = [p[:] for p in state.piles]
    copy.unseen, copy.set_aside, copy.row = state.unseen[:], state.set_aside[:], state.row[:]
    copy.winnings = [w[:] for w in state.winnings]
    copy.decisions, copy.turn, copy.legal = state.decisions, state.turn, state.legal
    copy.termination, copy.layout, copy.moves = state.termination, state.layout, state.moves[:]
    return copy


def _wins(row: list[Card]) -> bool:
    """Step 4: the row (length 2..6, or any length for the pair rule) is a winning combination."""
    c = row[-1]
    rank = RANK[c]
    if rank == RANK[row[0]] or rank == RANK[row[-2]]:
        return True  # pairs with the first card or the card just before it (and the pair at length 2)
    size = len(row)
    if size == 3:
        a, b = RANK[row[0]], RANK[row[1]]
        if SUIT[row[0]] == SUIT[row[1]] == SUIT[c]:
            return True  # flush
        # run: three different ranks spanning two steps are consecutive (c pairs neither, so only a == b is left)
        return a != b and max(a, b, rank) - min(a, b, rank) == 2
    if size == 4:
        return len({SUIT[x] for x in row}) == 4  # prime
    if size == 5:
        red = IS_RED[c]
        return all(IS_RED[x] == red for x in row)  # colour
    if size == 6:
        ranks = {RANK[x] for x in row}
        return len(ranks) == 6 and max(ranks) <= 9  # number: six numerals A-10 of different ranks
    return False


def _legal_at(state: State) -> tuple[str, ...]:
    """The moves open at a decision on a standing row (used when rebuilding a position)."""
    if state.passes:
        return PLAY_TAKE if state.passes == state.n else PLAY_PASS
    return PLAY_CLAIM if _wins(state.row) else PLAY_PASS


def _decide(state: State, seat: int, legal: tuple[str, ...]) -> None:
    """A decision is due for `seat`, unless max_decisions have been made (RULES.md: move_limit)."""
    if state.decisions >= state.rules.max_decisions:
        state.termination, state.legal = "move_limit", ()
    else:
        state.turn, state.legal = seat, legal


def _card(state: State, seat: int, full: bool) -> int:
    """`seat` turns up the top card of its pile onto the row and the checks of RULES.md (After
    each card played) follow: only steps 1-2 unless `full`. Returns _DONE, _NEXT, or the seat
    that starts a new row."""
    pile = state.piles[seat]
    c = pile.pop(0)
    if state.unseen[seat]:
        state.unseen[seat] -= 1
    row = state.row
    row.append(c)
    state.last, state.passes = seat, 0
    if not pile:  # 1. last card: the game ends, the row (jokers included) is the player's
        state.winnings[seat].extend(row)
        row.clear()
        state.termination, state.legal = "normal", ()
        return _DONE
    nxt = seat + 1
    if nxt == state.n:
        nxt = 0
    if c == JOKER:  # 2. the rest of the row to the player's pile bottom, the joker to the neighbour's
        row.pop()
        pile.extend(row)
        row.clear()
        state.piles[nxt].append(JOKER)
        return nxt
    if not full:
        return _NEXT
    if len(row) == SEVEN:  # 3. seven: the player wins the row and starts a new one
        state.winnings[seat].extend(row)
        row.clear()
        return seat
    if _wins(row):  # 4. winning combination: claim it or play on
        _decide(state, seat, PLAY_CLAIM)
        return _DONE
    rank = RANK[c]
    for x in row[:-1]:
        if RANK[x] == rank:  # 5. intermediate pair: the player takes up the row
            pile.extend(row)
            row.clear()
            return nxt
    _decide(state, seat, PLAY_PASS)  # 6. play on or pass
    return _DONE


def _run(state: State, starter: int) -> None:
    """While someone is to start a row, they turn up the top two cards of their pile (automatic)."""
    while starter >= 0:
        step = _card(state, starter, False)
        starter = _card(state, starter, True) if step == _NEXT else step


def to_move(state: State) -> int | None:
    """The seat to decide, or None when the game is over."""
    return None if state.termination else state.turn


def legal_moves(state: State) -> tuple[str, ...]:
    """`play`/`pass`, `play`/`claim` after a winning combination, `play`/`take` after a full round of passes."""
    return state.legal


def apply(state: State, move: str) -> None:
    """Plays a legal move for the seat to move, then every automatic event until the next decision."""
    seat = state.turn
    state.moves.append((seat, move))
    state.decisions += 1
    if move == PLAY:
        _run(state, _card(state, seat, True))
    elif move == PASS:
        state.passes += 1
        nxt = seat + 1
        if nxt == state.n:
            nxt = 0
        # Passes always start with the last card's player, so after n passes the turn is theirs again.
        _decide(state, nxt, PLAY_TAKE if state.passes == state.n else PLAY_PASS)
    elif move == CLAIM:  # winning a row: the winner starts the new one
        state.winnings[seat].extend(state.row)
        state.row.clear()
        _run(state, seat)
    else:  # take: the row to the bottom of the pile, in row order; the next player starts a new row
        state.piles[seat].extend(state.row)
        state.row.clear()
        _run(state, seat + 1 if seat + 1 < state.n else 0)


def scores(state: State) -> list[int]:
    """Cards won minus cards left in the pile, per seat."""
    return [len(w) - len(p) for w, p in zip(state.winnings, state.piles, strict=True)]


def result(state: State) -> Outcome:
    """Scores, ranks and termination of a finished game."""
    final = scores(state)
    return Outcome(tuple(final), ranks_from_scores(final), state.termination)


def observe(state: State, seat: int) -> Observation:
    """What `seat` may know: everything but the order of the unseen cards (its own included)."""
    over = state.termination is not None
    return Observation(seat, state.rules, tuple(state.row), state.last, state.passes,
                       tuple(len(p) for p in state.piles),
                       tuple(tuple(p[u:]) for p, u in zip(state.piles, state.unseen, strict=True)),
                       tuple(tuple(w) for w in state.winnings), state.decisions,
                       None if over else state.turn, state.legal if seat == state.turn else ())


def sample_world(observation: Observation, rng: random.Random) -> State:
    """A state in which every unseen card (each pile's dealt part and the set-aside) is dealt at random."""
    obs = observation
    rules = obs.rules
    n = rules.players
    # Count what is in play: the pack plus jokers, minus everything seen (row, known pile bottoms, winnings).
    counts = [1] * 52 + [JOKERS_ADDED.get(n, 0) if rules.jokers else 0]
    for group in (obs.row, *obs.pile_known, *obs.winnings):
        for c in group:
            counts[c] -= 1
    hidden = [c for c in range(53) for _ in range(counts[c])]
    rng.shuffle(hidden)
    piles, unseen, at = [], [], 0
    for size, known in zip(obs.pile_sizes, obs.pile_known, strict=True):
        top = size - len(known)
        piles.append(hidden[at:at + top] + list(known))
        unseen.append(top)
        at += top
    termination = None
    if obs.turn is None:  # over: a normal end empties the last player's pile; move_limit leaves all piles
        termination = "normal" if 0 in obs.pile_sizes else "move_limit"
    turn = obs.turn if obs.turn is not None else (obs.last_player or 0)
    return _start(rules, piles, hidden[at:], unseen=unseen, row=list(obs.row), last=obs.last_player,
                  passes=obs.passes, winnings=[list(w) for w in obs.winnings], decisions=obs.decisions,
                  turn=turn, termination=termination)


def move_to_str(move: str) -> str:
    """The move itself: `play`, `pass`, `claim` or `take`."""
    return move


def parse_move(text: str) -> str:
    """The move written as `text` (case and surrounding spaces ignored)."""
    move = text.strip().lower() if isinstance(text, str) else None
    if move not in MOVES:
        raise MoveError(f"not a move: {text!r} (moves: {', '.join(MOVES)})")
    return move


def deals(state: State) -> list[tuple[tuple, list[tuple[int, str]]]]:
    """One deal: the layout and every move."""
    return [(state.layout, state.moves)]


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
