"""Actions and observations of the four games as numbers, shared by the PettingZoo and OpenSpiel adapters.

`encoding(game_id, **rules)` gives, per game and rules, an `Encoding`:

- **Actions.** A fixed enumeration of every move the game can have under those rules; a move's action id
  is its index. Caterpillar: the 52 cards. Give or Take: the (card, op) pairs a card can ever make, card by
  card and in `+ - / * k` order (a King only `k`, a Queen never `/`, `*` only with `multiply`). Go For It:
  `play pass claim take`. Duke of York: `take:0 take:1`, then `discard:` each card, then each card played.
- **Observations.** A float32 vector built from the seat's observation alone, so it holds nothing the seat
  may not know. Every field is in it, except the rules, which the encoding itself is made for. Sets of
  cards are 52-long 0/1 planes (a hand's order is the deal order and carries nothing); where the
  observation keeps cards in order, a plane holds each card's place in its sequence, `(i + 1)` over the
  longest the sequence can be. Numbers are scaled by fixed constants, into [0, 1] where they are bounded
  (`high` gives each entry's bound); the last part is the legal-move mask.
- **Text.** A short readable account of the observation, cards in docs/rules.md notation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

import numpy as np

from arena.cards import DECK, JACK, JOKER, KING, NAME, QUEEN, RANK
from arena.games import get_game, make_rules

__all__ = ["Encoding", "encoding"]


def encoding(game_id: str, **rules: Any) -> Encoding:
    """The encoding of `game_id` under these rules options (values as `make_rules` takes them)."""
    game = get_game(game_id)
    return _encoding(game_id, make_rules(game.Rules, rules))


@cache
def _encoding(game_id: str, rules: Any) -> Encoding:
    """One encoding per game and rules object (rules are frozen dataclasses, so they hash by value)."""
    return _ENCODINGS[game_id](get_game(game_id), rules)


class Encoding:
    """A game's flat action space and its observation vector and text, under one set of rules.

    Subclasses declare the moves (`_moves`), the named parts of the vector with their sizes (`_parts`),
    how an observation fills them (`_fill`) and the text (`text`). Every entry lies in [0, 1] but for the
    parts named in `UNBOUNDED`, which have no upper bound (scores, a count that can keep growing).
    """

    UNBOUNDED: frozenset[str] = frozenset()

    def __init__(self, game: Any, rules: Any) -> None:
        self.game = game
        self.rules = rules
        self.players: int = game.players(rules)
        self.moves: tuple = tuple(self._moves())
        """Every move of the game under these rules; an action id is an index into it."""
        self._ids = {move: action for action, move in enumerate(self.moves)}
        self.num_actions: int = len(self.moves)
        self._slices: dict[str, slice] = {}
        size = 0
        for name, length in [*self._parts(), ("legal", self.num_actions)]:
            self._slices[name] = slice(size, size + length)
            size += length
        self.shape: tuple[int] = (size,)
        self.high = np.ones(self.shape, np.float32)
        """The upper bound of each entry of the vector (the lower bound is 0)."""
        for name in self.UNBOUNDED:
            self.high[self._slices[name]] = np.inf

    def __repr__(self) -> str:
        return f"<Encoding {self.game.id} {self.rules} actions={self.num_actions} shape={self.shape}>"

    def __reduce__(self) -> tuple:
        # A module does not pickle: an encoding travels as its game id and rules, and is rebuilt (cached).
        return _encoding, (self.game.id, self.rules)

    def action(self, move: Any) -> int:
        """The action id of `move`; raises ValueError for anything that is not a move of the game."""
        try:
            return self._ids[move]
        except (KeyError, TypeError):
            raise ValueError(f"not a move of {self.game.id}: {move!r}") from None

    def move(self, action: int) -> Any:
        """The game's own move object for `action`; raises ValueError for an id out of range."""
        is_integer = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
        if is_integer and 0 <= action < self.num_actions:
            return self.moves[action]
        raise ValueError(f"not an action of {self.game.id}: {action!r} (0..{self.num_actions - 1})")

    def legal_actions(self, observation: Any) -> list[int]:
        """The sorted action ids of the observation's legal moves."""
        ids = self._ids
        return sorted(ids[move] for move in observation.legal_moves)

    def action_mask(self, observation: Any) -> np.ndarray:
        """An int8 vector over the actions, 1 for the observation's legal moves."""
        mask = np.zeros(self.num_actions, np.int8)
        mask[self.legal_actions(observation)] = 1
        return mask

    def vector(self, observation: Any) -> np.ndarray:
        """The observation as a float32 vector of shape `shape`, built from nothing but the observation."""
        out = np.zeros(self.shape, np.float32)
        parts = {name: out[where] for name, where in self._slices.items()}  # views: filling them fills `out`
        self._fill(parts, observation)
        parts["legal"][self.legal_actions(observation)] = 1
        return out

    def text(self, observation: Any) -> str:
        """A readable account of the observation."""
        raise NotImplementedError

    def _moves(self) -> Iterable[Any]:
        raise NotImplementedError

    def _parts(self) -> list[tuple[str, int]]:
        raise NotImplementedError

    def _fill(self, parts: dict[str, np.ndarray], observation: Any) -> None:
        raise NotImplementedError

    def _legal_text(self, observation: Any) -> str:
        moves = observation.legal_moves
        return f" | legal: {' '.join(self.game.move_to_str(m) for m in moves)}" if moves else ""


def _cards(cards: Iterable[int]) -> str:
    """Cards in docs/rules.md notation, `-` for none."""
    return " ".join(NAME[c] for c in cards) or "-"


def _one_hot(plane: np.ndarray, index: int | None) -> None:
    """Marks `index` in `plane`; None (nobody, no card) leaves it all zero."""
    if index is not None:
        plane[index] = 1


def _positions(plane: np.ndarray, cards: Sequence[int], capacity: int) -> None:
    """Each card's place in the sequence, (i + 1) / capacity, on a 52-card plane (0 = not in it)."""
    plane[list(cards)] = np.arange(1, len(cards) + 1, dtype=np.float32) / capacity


def _seat_or_none(seat: int | None, players: int) -> int:
    """A seat, or `players` for none: one-hot index over players + 1 values."""
    return players if seat is None else seat


class CaterpillarEncoding(Encoding):
    """Caterpillar: actions are the cards 0..51."""

    UNBOUNDED = frozenset({"scores"})
    PLAYS = 26
    MAX_TOTAL = 220  # every pip of the pack: 4 x (1 + ... + 10)
    SCORE_SCALE = 1000

    def _moves(self):
        return DECK

    def _parts(self):
        return [("seat", 2), ("hand", 52), ("caterpillar", 52), ("last", 52), ("total", 1), ("scores", 2),
                ("stock_left", 1), ("opponent_hand_size", 1)]

    def _fill(self, parts, obs):
        parts["seat"][obs.seat] = 1
        parts["hand"][list(obs.hand)] = 1
        _positions(parts["caterpillar"], obs.caterpillar, self.PLAYS)
        _one_hot(parts["last"], obs.caterpillar[-1] if obs.caterpillar else None)  # the suit to follow
        parts["total"][0] = obs.total / self.MAX_TOTAL
        parts["scores"][:] = np.array(obs.scores, np.float32) / self.SCORE_SCALE
        parts["stock_left"][0] = obs.stock_left / self.PLAYS
        parts["opponent_hand_size"][0] = obs.opponent_hand_size / 13

    def text(self, obs):
        return (f"seat {obs.seat} | hand {_cards(obs.hand)} | caterpillar {_cards(obs.caterpillar)} | "
                f"total {obs.total} | scores {obs.scores[0]}-{obs.scores[1]} | stock {obs.stock_left}, "
                f"opponent holds {obs.opponent_hand_size}{self._legal_text(obs)}")


class GiveOrTakeEncoding(Encoding):
    """Give or Take: actions are the (card, op) pairs each card can ever make under the rules."""

    UNBOUNDED = frozenset({"count", "scores"})
    PLAYS = 12
    COUNT_SCALE = 100

    def __init__(self, game, rules):
        self.ops = game.OPS if rules.multiply else game.OPS.replace("*", "")
        super().__init__(game, rules)

    def _ops_of(self, card: int) -> str:
        """The operations `card` can ever be played with (docs/rules.md, A play)."""
        rank = RANK[card]
        if rank == KING:
            return "k"
        allowed = set(self.ops) - {"k"}
        if rank == JACK:  # copies a value, or acts as a King after one
            allowed.add("k")
        elif rank == QUEEN:  # value 0: never divides
            allowed.discard("/")
        return "".join(op for op in self.ops if op in allowed)

    def _moves(self):
        return [(card, op) for card in DECK for op in self._ops_of(card)]

    def _parts(self):
        return [("seat", 2), ("deal", 1), ("dealer", 2), ("hand", 52), ("count", 1), ("turn_up", 52),
                ("played", 52), ("played_by_me", 52), ("played_op", 52 * len(self.ops)), ("last_king", 1),
                ("last_value", 1), ("scores", 2), ("opponent_hand_size", 1)]

    def _fill(self, parts, obs):
        parts["seat"][obs.seat] = 1
        parts["deal"][0] = obs.deal / self.rules.max_deals
        parts["dealer"][obs.dealer] = 1
        parts["hand"][list(obs.hand)] = 1
        parts["count"][0] = obs.count / self.COUNT_SCALE
        parts["turn_up"][obs.turn_up] = 1
        cards = [card for _, card, _ in obs.played]  # a full pack per deal: each card at most once
        _positions(parts["played"], cards, self.PLAYS)
        parts["played_by_me"][[card for seat, card, _ in obs.played if seat == obs.seat]] = 1
        ops = parts["played_op"].reshape(52, len(self.ops))
        for _, card, op in obs.played:
            ops[card, self.ops.index(op)] = 1
        parts["last_king"][0] = obs.last_king
        parts["last_value"][0] = obs.last_value / 10
        parts["scores"][:] = np.array(obs.scores, np.float32) / self.rules.target
        parts["opponent_hand_size"][0] = obs.opponent_hand_size / 6

    def text(self, obs):
        jack = "act as a King" if obs.last_king else f"be worth {obs.last_value}"
        played = " ".join(f"{seat}:{NAME[card]}{op}" for seat, card, op in obs.played) or "-"
        return (f"seat {obs.seat} | deal {obs.deal}, dealer {obs.dealer} | hand {_cards(obs.hand)} | "
                f"turn-up {NAME[obs.turn_up]} | played {played} | count {obs.count}, a Jack would {jack} | "
                f"scores {obs.scores[0]}-{obs.scores[1]} | opponent holds {obs.opponent_hand_size}"
                f"{self._legal_text(obs)}")


class GoForItEncoding(Encoding):
    """Go For It: actions are `play pass claim take`."""

    ROW = 7  # a seventh card wins the row

    def __init__(self, game, rules):
        self.jokers = game.JOKERS_ADDED.get(rules.players, 0) if rules.jokers else 0
        self.cards = 52 + self.jokers
        super().__init__(game, rules)

    def _moves(self):
        return self.game.MOVES

    def _sequences(self, obs) -> list[tuple[str, Sequence[int], int]]:
        """The ordered groups of cards the observation shows, with their capacities."""
        groups = [("row", obs.row, self.ROW)]
        groups += [(f"pile_known_{seat}", cards, self.cards) for seat, cards in enumerate(obs.pile_known)]
        groups += [(f"winnings_{seat}", cards, self.cards) for seat, cards in enumerate(obs.winnings)]
        return groups

    def _parts(self):
        n = self.players
        # Each ordered group: a position plane for the 52 cards, then the positions of its jokers (alike).
        group = 52 + self.jokers
        groups = ["row", *(f"pile_known_{s}" for s in range(n)), *(f"winnings_{s}" for s in range(n))]
        return [("seat", n), ("turn", n + 1), ("last_player", n + 1), ("passes", 1), ("pile_sizes", n),
                ("decisions", 1), *((name, group) for name in groups)]

    def _fill(self, parts, obs):
        n = self.players
        parts["seat"][obs.seat] = 1
        parts["turn"][_seat_or_none(obs.turn, n)] = 1
        parts["last_player"][_seat_or_none(obs.last_player, n)] = 1
        parts["passes"][0] = obs.passes / n
        parts["pile_sizes"][:] = np.array(obs.pile_sizes, np.float32) / self.cards
        parts["decisions"][0] = obs.decisions / self.rules.max_decisions
        for name, cards, capacity in self._sequences(obs):
            plane = parts[name]
            joker = 52  # jokers are alike: the group's jokers fill its joker entries in order
            for place, card in enumerate(cards, 1):
                if card == JOKER:
                    plane[joker] = place / capacity
                    joker += 1
                else:
                    plane[card] = place / capacity

    def text(self, obs):
        n = self.players
        turn = "game over" if obs.turn is None else f"seat {obs.turn} to decide"
        last = "-" if obs.last_player is None else f"seat {obs.last_player}"
        known = "; ".join(f"{s}: {_cards(cards)}" for s, cards in enumerate(obs.pile_known) if cards) or "-"
        won = "/".join(str(len(cards)) for cards in obs.winnings)
        piles = "/".join(map(str, obs.pile_sizes))
        return (f"seat {obs.seat} of {n}, {turn} | row {_cards(obs.row)} (last card by {last}, "
                f"{obs.passes} passes) | piles {piles}, known bottoms {known} | won {won} | "
                f"decisions {obs.decisions}{self._legal_text(obs)}")


class DukeOfYorkEncoding(Encoding):
    """Duke of York: actions are `take:0`, `take:1`, `discard:` each card, then playing each card."""

    ROUNDS, PLAYS, TOP = 5, 10, 31
    MAX_SCORE = 30  # at most 3 + 3 a round

    def _moves(self):
        game = self.game
        return [*game.TAKES, *game.DISCARD, *game.PLAY]

    def _parts(self):
        return [("seat", 2), ("round", self.ROUNDS), ("dealer", 2), ("to_move", 3), ("hand", 52),
                ("table_0", 52), ("table_1", 52), ("taken", 52), ("count", 1), ("down", 1), ("peak", 1),
                ("peak_seat", 3), ("played_round", 52), ("played_position", 52), ("played_by_me", 52),
                ("exchange_takes", 4), ("exchange_discards", 2), ("my_discard", 52), ("scores", 2),
                ("opponent_hand_size", 1), ("stock_size", 1)]

    def _fill(self, parts, obs):
        parts["seat"][obs.seat] = 1
        parts["round"][obs.round] = 1
        parts["dealer"][obs.dealer] = 1
        parts["to_move"][_seat_or_none(obs.to_move, 2)] = 1
        parts["hand"][list(obs.hand)] = 1
        _one_hot(parts["table_0"], obs.table[0])
        _one_hot(parts["table_1"], obs.table[1])
        _one_hot(parts["taken"], obs.taken)
        parts["count"][0] = obs.count / self.TOP
        parts["down"][0] = obs.direction == "down"
        parts["peak"][0] = (obs.peak + 1) / (self.TOP + 1)
        parts["peak_seat"][_seat_or_none(obs.peak_seat, 2)] = 1
        # Every card is played at most once in a game: per card, the round it was played in, its place in
        # that round's play and whether this seat played it hold this round's play and every earlier one.
        for round_, plays in enumerate((*obs.earlier, obs.played)):
            for place, (seat, card) in enumerate(plays):
                parts["played_round"][card] = (round_ + 1) / self.ROUNDS
                parts["played_position"][card] = (place + 1) / self.PLAYS
                parts["played_by_me"][card] = seat == obs.seat
        # This round's exchange: the slot of each take (leader's, dealer's), each discard made, and the
        # card of this seat's own discard (the opponent's is face down). The plays are in `played`.
        takes = parts["exchange_takes"].reshape(2, 2)  # row 0 the leader's take, row 1 the dealer's
        discards = 0
        for seat, (kind, arg) in obs.moves:
            if kind == "take":
                takes[int(seat == obs.dealer), arg] = 1
            elif kind == "discard":
                parts["exchange_discards"][discards] = 1
                discards += 1
                if seat == obs.seat:
                    parts["my_discard"][arg] = 1
        parts["scores"][:] = np.array(obs.scores, np.float32) / self.MAX_SCORE
        parts["opponent_hand_size"][0] = obs.opponent_hand_size / 6
        parts["stock_size"][0] = obs.stock_size / 40

    def text(self, obs):
        game = self.game
        turn = "game over" if obs.to_move is None else f"seat {obs.to_move} to move"
        exchange = " ".join(f"{seat}:{game.move_to_str(m)}" for seat, m in obs.moves if m[0] != "play") or "-"
        played = " ".join(f"{seat}:{NAME[card]}" for seat, card in obs.played) or "-"
        peak = "-" if obs.peak_seat is None else f"{obs.peak} by seat {obs.peak_seat}"
        mine = ", ".join(f"slot {s} {NAME[c]}" for s, c in enumerate(obs.table) if c is not None) or "-"
        taken = "-" if obs.taken is None else NAME[obs.taken]
        return (f"seat {obs.seat} | round {obs.round}, dealer {obs.dealer}, {turn} | hand {_cards(obs.hand)} | "
                f"took {taken}, mine on the table {mine} | exchange {exchange} | played {played} | "
                f"count {obs.count} {obs.direction}, peak {peak} | scores {obs.scores[0]}-{obs.scores[1]} | "
                f"opponent holds {obs.opponent_hand_size}, stock {obs.stock_size}{self._legal_text(obs)}")


_ENCODINGS: dict[str, type[Encoding]] = {
    "caterpillar": CaterpillarEncoding,
    "give_or_take": GiveOrTakeEncoding,
    "go_for_it": GoForItEncoding,
    "duke_of_york": DukeOfYorkEncoding,
}
