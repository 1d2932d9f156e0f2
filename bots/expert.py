"""expert: the heuristic bot's strategies, searching wider where that measured stronger.

Duke of York: the heuristic plays each card by determinized search (PIMC): it deals the opponent
hands from the unseen cards (leaving out, for an opponent who turned the play down, the cards that
would have fitted under 31), solves the rest of the round exactly in each (its own best play; the
opponent's best with weight `wary`, else the average of its fitting cards), and plays the card with
the best total margin. It searches over 8 hands once seven cards or fewer are left in the two hands,
and plays a rule of thumb before. expert searches over `iterations` hands (24) from nine cards, so
from the dealer's first card of every round: `arena match duke_of_york expert heuristic` measures
it (docs/expert.md). Searching all ten cards costs about four times as much a decision, which the
default clock allows but the budget of docs/expert.md does not; pure minimax (alpha-beta, wary 1)
measured no better than the heuristic.

Give or Take: the heuristic plans its last two cards exactly, taking the opponent's cards for draws
from all the cards it has not seen. expert reads the opponent's hand from its plays this deal, taken
for the heuristic's (the opponent it meets, and a careful player): with three cards or more the
heuristic plays the card whose loss leaves the best last cards (and takes a same-rank bonus, shuns a
same-suit one), so each hand the opponent may still hold (one or two cards: every one, enumerated) is
weighed by the chance that the heuristic holding it would have made the plays seen (one over the cards
tied best, none for a play it would not have made); its play with two cards in hand is read by the
heuristic's own plan, with a floor of MISREAD. With two cards each, expert plays against each pair the
opponent may hold (its next card either one, then its last card known); otherwise the heuristic's plan
draws the opponent's next cards from the cards it may hold. About 2 ms a decision.

Go For It with two or four players: the race planner (bots/race/planner.py) chooses between claiming a row
and playing on, by this seat's chance to win the race (two players) or its expected share of the other seats
beaten (four), from values of pile sizes that benchmarks/race_tables.py builds from heuristic self-play with a
fixed seed (bots/race/go_for_it_N.json); elsewhere the heuristic's move. With two players it leaves a pair that
starts a row to the heuristic (the planner claims almost every one, which measured no better), and used at
every decision it did not hold on fresh deals (docs/expert.md). Three, five or six players: the heuristic.

Caterpillar: the heuristic's strategy as it is; nothing tried within the budget of a move beat it on fresh
deals (docs/expert.md gives the figures).

The budget counts sampled hands and enumerated ones, never time, and every choice reads only the
observation and the bot's rng: a game replays bit for bit.
"""

from __future__ import annotations

import importlib
import sys
from itertools import combinations
from pathlib import Path

import numpy as np

from arena.bots import Bot, load_spec
from arena.cards import KING, RANK, SUIT
from arena.games.give_or_take.rules import (
    BASE,
    HAND_SIZE,
    KING_ACT,
    Observation,
    card_operations,
    effective_value,
    step,
)

_heuristic = sys.modules[load_spec(f"{Path(__file__).with_name('heuristic.py')}:HeuristicBot").__module__]
_race = importlib.import_module(f"{_heuristic.import_package(Path(__file__).with_name('race')).__name__}.planner")

STRATEGIES = _heuristic.STRATEGIES
_common = sys.modules[STRATEGIES["give_or_take"].__name__.rpartition(".")[0] + ".common"]
TIE, best_move = _common.TIE, _common.best_move
GAMES = ("caterpillar", "give_or_take", "go_for_it", "duke_of_york")
"""The heuristic's games, written out so that `arena bots` reads them from this source (arena/listing.py)."""

RACE_PLAYERS = {2: 3, 4: 2}
"""Go For It: by number of players, the shortest row at whose claim expert follows the race planner (bots/race
has tables for 2 and 4). With two players the planner claims almost every pair that starts a row, which
measured no better than playing on as the heuristic does."""

SEARCH_CARDS = {"duke_of_york": 9}
"""Duke of York: search once the two hands hold this many cards or fewer (the heuristic: 7)."""


_give_or_take = STRATEGIES["give_or_take"]
_GIVE_OR_TAKE_KEEP = _give_or_take.DEFAULTS["keep"]
"""The opponent's weight of the cards it keeps (the heuristic's), for reading its plays."""


def _play_odds(hands: np.ndarray, bonus: np.ndarray, table: np.ndarray) -> np.ndarray:
    """For each row of `hands` (cards, three or more), the chance that the heuristic holding them plays
    the first: one over the cards tied best by the bonus of each (`bonus`, by card) and the worth of the
    rest as last cards (the best of them, and 0.3 of the next), none if another card is better."""
    worth = table[hands]
    order = np.argsort(-worth, axis=1, kind="stable")  # ties in hand order, as the heuristic's sort
    rows = np.arange(len(hands))
    top, runner = order[:, :1], order[:, 1:2]
    first, second, third = (worth[rows, order[:, i]] for i in range(3))
    keep = _GIVE_OR_TAKE_KEEP
    column = np.arange(hands.shape[1])
    kept = np.where(column == top, (keep * (second + 0.3 * third))[:, None],
                    np.where(column == runner, (keep * (first + 0.3 * third))[:, None],
                             (keep * (first + 0.3 * second))[:, None]))
    values = bonus[hands] + kept
    best = values.max(axis=1, keepdims=True)
    tied = values >= best - TIE
    return np.where(tied[:, 0], 1.0 / tied.sum(axis=1), 0.0)


class _Unseen(_give_or_take.Unseen):
    """The heuristic's model of the unseen cards, its opponent_last worked out in two parts that repeat far
    more often than the whole: the bonus by the card before, the last card's score by count and value."""

    def __init__(self, obs):
        super().__init__(obs)
        self._bonuses: dict = {}
        self._scores: dict = {}

    def opponent_last(self, count: int, prev: int, prev_card: int) -> float:
        key = (count, prev, prev_card)
        got = self._last.get(key)
        if got is None:
            bonus = self._bonuses.get(prev_card)
            if bonus is None:
                bonus = self._bonuses[prev_card] = sum(w * self.bonus_after(RANK[card], share, prev_card)
                                                       for card, w, share in self.groups)
            score = self._scores.get((count, prev))
            if score is None:
                counts_after, last_score = _give_or_take.counts_after, _give_or_take.last_score
                multiply = self.multiply
                score = self._scores[count, prev] = sum(
                    w * max(last_score(card, c) for c in counts_after(count, effective_value(card, prev), multiply))
                    for card, w, _ in self.groups)
            got = self._last[key] = bonus - score
        return got


def _position(obs, plays: int) -> tuple[int, int]:
    """(count, effective value of the card before) after the deal's first `plays` plays."""
    turn_up = obs.turn_up
    count = BASE[turn_up]
    prev = KING_ACT if RANK[turn_up] == KING else count
    for _, card, op in obs.played[:plays]:
        prev = effective_value(card, prev)
        count = step(count, prev, op)
    return count, prev


class _TwoCardPlay:
    """The opponent's play at play `index` of the deal, with two cards in hand, read as the heuristic's:
    the chance that, holding the card it played and another, it would have played so (its plan of the
    last two cards).

    Its model of the unseen cards is made once, from what it saw then with only the card it played in
    hand, and shared over the other cards tried (one card more or less among some 40 unseen changes
    little, and sharing keeps its work on the counts)."""

    def __init__(self, obs, index: int):
        seat, self.card, op = obs.played[index]
        self.move = (self.card, op)
        count, prev = _position(obs, index)
        played = obs.played[:index]
        mine = HAND_SIZE - sum(s == obs.seat for s, _, _ in played)
        self.parts = (seat, obs.rules, obs.deal, obs.dealer, count, obs.turn_up, played, prev < 0,
                      prev if prev > 0 else 0, obs.scores, mine)
        self.prev, self.count = prev, count
        self.unseen = _Unseen(self._observation((self.card,), ()))

    def _observation(self, hand: tuple[int, ...], legal: tuple) -> Observation:
        seat, rules, deal, dealer, count, turn_up, played, last_king, last_value, scores, mine = self.parts
        return Observation(seat, rules, deal, dealer, hand, count, turn_up, played, last_king, last_value, scores,
                           mine, legal)

    def odds(self, other: int) -> float:
        """The chance that the heuristic holding the card it played and `other` played as it did."""
        hand = (self.card, other)
        multiply = self.parts[1].multiply
        # the moves it had, its cards' operations by the engine's own rule
        legal = tuple((c, op) for c in hand
                      for op in card_operations(effective_value(c, self.prev), self.count, multiply))
        ties = _Ties()
        chosen = _give_or_take.move(self._observation(hand, legal), _give_or_take.DEFAULTS, ties,
                                    model=lambda _: self.unseen)
        tied = ties.moves or (chosen,)
        return max(tied.count(self.move) / len(tied), MISREAD)


MISREAD = 0.1
"""The least chance given to a play of the opponent's last two cards that the heuristic, as read here,
would not have made: its model of the unseen cards is made once for every card tried, so it sometimes
differs from the opponent's own on a close call."""


class _Ties:
    """In the place of the heuristic's rng: keeps the moves it would choose among at random."""

    moves = None

    def choice(self, moves):
        self.moves = moves
        return moves[0]


def opponent_hands(obs) -> list[tuple[tuple[int, ...], float]] | None:
    """The hands of one or two cards the opponent may hold, each with its chance, from its plays this
    deal read as the heuristic's: every hand weighted by the chance that the heuristic holding it would
    have made those plays (one over the cards tied best, none for a card it would not have played, and
    for its play with two cards in hand at least MISREAD). None when it holds no card or no hand fits."""
    size, me, played = obs.opponent_hand_size, obs.seat, obs.played
    if not 0 < size <= 2:
        return None
    table = np.array(_give_or_take.LAST_CARD_VALUE[obs.rules.multiply])
    checks, later, two_card = [], [], None
    for i in range(len(played) - 1, -1, -1):
        seat, card, _ = played[i]
        if seat == me:
            continue
        if size + len(later) + 1 > 2:
            prev_card = played[i - 1][1] if i else obs.turn_up
            bonus = np.array([10 if RANK[c] == RANK[prev_card] else -10 if SUIT[c] == SUIT[prev_card] else 0
                              for c in range(52)])
            checks.append((card, later.copy(), bonus))
        else:
            two_card = _TwoCardPlay(obs, i)
        later.append(card)
    seen = {*obs.hand, obs.turn_up, *(card for _, card, _ in played)}
    unseen = [c for c in range(52) if c not in seen]
    hands = [(c,) for c in unseen] if size == 1 else list(combinations(unseen, 2))
    held = np.array(hands, dtype=np.intp)
    weights = np.ones(len(hands))
    for card, after, bonus in checks:
        full = np.concatenate([np.full((len(hands), 1), card), held, np.tile(after, (len(hands), 1))], axis=1)
        weights *= _play_odds(full.astype(np.intp), bonus, table)
    weighted = [(hands[i], float(weights[i]) * (1.0 if two_card is None else two_card.odds(hands[i][0])))
                for i in np.flatnonzero(weights)]
    weighted = [(cards, weight) for cards, weight in weighted if weight]
    total = sum(weight for _, weight in weighted)
    if not total:
        return None
    return [(cards, weight / total) for cards, weight in weighted]


class _InferredHand(_Unseen):
    """The heuristic's model of the opponent's next cards, drawn from its hand as opponent_holding infers
    it rather than from all the unseen cards."""

    def __init__(self, obs, hands):
        super().__init__(obs)
        if hands is None:
            return
        held = [0.0] * 52
        for cards, weight in hands:
            for c in cards:
                held[c] += weight
        by_rank: dict[int, list[int]] = {}
        for c in range(52):
            if held[c] > 0:
                by_rank.setdefault(RANK[c], []).append(c)
        size = obs.opponent_hand_size
        self.groups = []
        for cards in by_rank.values():
            mass = sum(held[c] for c in cards)
            self.groups.append((cards[0], mass / size, [sum(held[c] for c in cards if SUIT[c] == s) / mass
                                                        for s in range(4)]))


def _against_pairs(pairs, count: int, prev: int, prev_card: int, last: int, multiply: bool) -> float:
    """Expected points (this seat's side, the leader's) of the rest of the deal after this seat's play
    of `prev_card` with `last` left, the opponent holding each of `pairs` with its chance: it plays one
    card (each half the time, the operation worst for this seat), this seat `last` with its best
    operation, then the opponent its other card with its own best."""
    counts_after, last_score, bonus = _give_or_take.counts_after, _give_or_take.last_score, _give_or_take.bonus
    leads = {}  # the opponent's next card: the bonuses of it and of `last` after it, and this seat's counts
    for pair, _ in pairs:
        for card in pair:
            if card not in leads:
                v = effective_value(card, prev)
                lv = effective_value(last, v)
                leads[card] = (bonus(last, card) - bonus(card, prev_card), lv,
                               [counts_after(c, lv, multiply) for c in counts_after(count, v, multiply)])
    finals: dict = {}  # the points of this seat's last card and of the opponent's after it, by count
    total = 0.0
    for (a, b), chance in pairs:
        options = 0.0
        for card, final in ((a, b), (b, a)):
            swings, lv, outs = leads[card]
            worst = None
            for mine in outs:
                best = None
                for c2 in mine:
                    key = (final, c2, lv)
                    got = finals.get(key)
                    if got is None:
                        fv = effective_value(final, lv)
                        theirs = max(last_score(final, c3) for c3 in counts_after(c2, fv, multiply))
                        got = finals[key] = last_score(last, c2) - bonus(final, last) - theirs
                    if best is None or got > best:
                        best = got
                if worst is None or best < worst:
                    worst = best
            options += swings + worst
        total += chance * options / 2
    return total


def give_or_take_move(obs, params: dict, rng):
    """The heuristic's play, its last two cards planned against the opponent's hand as inferred: with
    two cards each, against each pair it may hold; otherwise the heuristic's plan with the opponent's
    next cards drawn from the cards it may hold."""
    hand, legal = obs.hand, obs.legal_moves
    if len(hand) == 2 and obs.opponent_hand_size == 2 and len(legal) > 1:
        pairs = opponent_hands(obs)
        if pairs is not None:
            prev = KING_ACT if obs.last_king else obs.last_value
            prev_card = obs.played[-1][1] if obs.played else obs.turn_up
            values = []
            for card, op in legal:
                v = effective_value(card, prev)
                last = hand[1] if card == hand[0] else hand[0]
                values.append(_give_or_take.bonus(card, prev_card)
                              + _against_pairs(pairs, step(obs.count, v, op), v, card, last, obs.rules.multiply))
            return best_move(legal, values, rng)

    def model(observation):
        return _InferredHand(observation, opponent_hands(observation))
    return _give_or_take.move(obs, params, rng, model=model)


class ExpertBot(Bot):
    """The heuristic's strategy per game, with Duke of York's search over more hands and from more cards, Give or
    Take's last cards planned against the opponent's hand as read from its plays, and Go For It's claims (2 and 4
    players) chosen by the race's values of pile sizes."""

    name = "expert"
    games = set(GAMES)
    defaults = {"iterations": 24}
    """iterations: the opponent hands Duke of York's search deals per decision (the heuristic: 8)."""

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        strategy = STRATEGIES[game_id]
        self.strategy = strategy.move
        self.strategy_params = dict(strategy.DEFAULTS)
        if game_id == "duke_of_york":
            self.strategy_params.update(samples=self.params["iterations"], search_cards=SEARCH_CARDS[game_id])

        elif game_id == "give_or_take":
            self.strategy = give_or_take_move
        elif game_id == "go_for_it" and rules.players in RACE_PLAYERS:
            self.strategy = self.go_for_it_move

    def go_for_it_move(self, obs, params: dict, rng):
        """The race planner's choice between claiming a row and playing on, for rows of RACE_PLAYERS cards or
        more; elsewhere the heuristic's move."""
        legal = obs.legal_moves
        if "claim" not in legal or len(obs.row) < RACE_PLAYERS[obs.rules.players]:
            return _heuristic.STRATEGIES["go_for_it"].move(obs, params, rng)
        got = _race.values(obs, {})
        return best_move(legal, [got[move] for move in legal], rng)

    def act(self, observation):
        return self.strategy(observation, self.strategy_params, self.rng)

