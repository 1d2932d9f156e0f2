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

Caterpillar, Give or Take and Go For It: the heuristic's strategy as it is; nothing tried within the
budget of a move beat it (docs/expert.md gives the figures).

The budget counts sampled hands, never time, and every choice reads only the observation and the
bot's rng: a game replays bit for bit.
"""

from __future__ import annotations

import sys
from itertools import combinations
from pathlib import Path

from arena.bots import Bot, load_spec
from arena.cards import KING, RANK, SUIT
from arena.games.give_or_take import BASE, HAND_SIZE, KING_ACT, Observation, _ops, effective_value, step

_heuristic = sys.modules[load_spec(f"{Path(__file__).with_name('heuristic.py')}:HeuristicBot").__module__]

STRATEGIES = _heuristic.STRATEGIES
_common = sys.modules[STRATEGIES["give_or_take"].__name__.rpartition(".")[0] + ".common"]
TIE, best_move = _common.TIE, _common.best_move
GAMES = _heuristic.GAMES

SEARCH_CARDS = {"duke_of_york": 9}
"""Duke of York: search once the two hands hold this many cards or fewer (the heuristic: 7)."""


_give_or_take = STRATEGIES["give_or_take"]
_GIVE_OR_TAKE_KEEP = _give_or_take.DEFAULTS["keep"]
"""The opponent's weight of the cards it keeps (the heuristic's), for reading its plays."""


def _play_odds(hand: list[int], bonus: list[int], table: list[float]) -> float:
    """The chance that the heuristic holding `hand` (three cards or more) plays its first card: one over
    the cards tied best by the bonus of each (`bonus`, by card) and the worth of the rest as last cards
    (the best of them, and 0.3 of the next), none if another card is better."""
    first = second = third = -1e18
    top = runner = -1
    for i, card in enumerate(hand):
        v = table[card]
        if v > first:
            first, second, third, top, runner = v, first, second, i, top
        elif v > second:
            second, third, runner = v, second, i
        elif v > third:
            third = v
    keep = _GIVE_OR_TAKE_KEEP
    rest_of_top, rest_of_runner, rest = (keep * (second + 0.3 * third), keep * (first + 0.3 * third),
                                         keep * (first + 0.3 * second))
    values = [bonus[card] + (rest_of_top if i == top else rest_of_runner if i == runner else rest)
              for i, card in enumerate(hand)]
    best = max(values)
    if values[0] < best - TIE:
        return 0.0
    return 1.0 / sum(1 for v in values if v >= best - TIE)


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
    """The heuristic's play at play `index` of the deal, where the opponent held two cards: whether,
    holding the card it played and another, it would have played that card (its plan of the last two).

    Its model of the unseen cards is made once, from what it saw then with only the card it played in
    hand, and shared over the other cards tried (one card more or less among some 40 unseen changes
    little, and sharing keeps its work on the counts)."""

    def __init__(self, obs, index: int):
        seat, self.card, _ = obs.played[index]
        count, prev = _position(obs, index)
        played = obs.played[:index]
        mine = HAND_SIZE - sum(s == obs.seat for s, _, _ in played)
        self.parts = (seat, obs.rules, obs.deal, obs.dealer, count, obs.turn_up, played, prev < 0,
                      prev if prev > 0 else 0, obs.scores, mine)
        self.prev, self.count = prev, count
        unseen = self._observation((self.card,), ())
        self.unseen = _give_or_take._Unseen(unseen)

    def _observation(self, hand: tuple[int, ...], legal: tuple) -> Observation:
        seat, rules, deal, dealer, count, turn_up, played, last_king, last_value, scores, mine = self.parts
        return Observation(seat, rules, deal, dealer, hand, count, turn_up, played, last_king, last_value, scores,
                           mine, legal)

    def chose(self, other: int, rng) -> bool:
        hand = (self.card, other)
        multiply = self.parts[1].multiply
        legal = tuple((c, op) for c in hand for op in _ops(effective_value(c, self.prev), self.count, multiply))
        then = self._observation(hand, legal)
        return _give_or_take.move(then, _give_or_take.DEFAULTS, rng, model=lambda _: self.unseen)[0] == self.card


def opponent_holding(obs, rng) -> list[float] | None:
    """The chance of each card being in the opponent's hand (of one or two cards), from its plays this
    deal read as the heuristic's: every hand it may hold, weighted by the chance that the heuristic
    holding it would have made those plays (one over the cards tied best, none for a card it would not
    have played). None when it holds no card or no hand fits."""
    size, me, played = obs.opponent_hand_size, obs.seat, obs.played
    if not 0 < size <= 2:
        return None
    table = _give_or_take._LAST_CARD_VALUE[obs.rules.multiply]
    checks, later, two_card = [], [], None
    for i in range(len(played) - 1, -1, -1):
        seat, card, _ = played[i]
        if seat == me:
            continue
        if size + len(later) + 1 > 2:
            prev_card = played[i - 1][1] if i else obs.turn_up
            bonus = [10 if RANK[c] == RANK[prev_card] else -10 if SUIT[c] == SUIT[prev_card] else 0
                     for c in range(52)]
            checks.append((card, later.copy(), bonus))
        else:
            two_card = _TwoCardPlay(obs, i)
        later.append(card)
    seen = {*obs.hand, obs.turn_up, *(card for _, card, _ in played)}
    unseen = [c for c in range(52) if c not in seen]
    hands = [(c,) for c in unseen] if size == 1 else list(combinations(unseen, 2))
    weights, total = [0.0] * 52, 0.0
    for held in hands:
        weight = 1.0
        for card, after, bonus in checks:
            weight *= _play_odds([card, *held, *after], bonus, table)
            if not weight:
                break
        if weight and two_card is not None and not two_card.chose(held[0], rng):
            weight = 0.0
        if weight:
            for c in held:
                weights[c] += weight
            total += weight
    if not total:
        return None
    return [w / total * size for w in weights]


class _InferredHand(_give_or_take._Unseen):
    """The heuristic's model of the opponent's next cards, drawn from its hand as opponent_holding infers
    it rather than from all the unseen cards."""

    def __init__(self, obs, rng):
        super().__init__(obs)
        held = opponent_holding(obs, rng)
        if held is None:
            return
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


def give_or_take_move(obs, params: dict, rng):
    """The heuristic's play, its last two cards planned against the opponent's hand as inferred."""
    def model(observation):
        return _InferredHand(observation, rng)
    return _give_or_take.move(obs, params, rng, model=model)


class ExpertBot(Bot):
    """The heuristic's strategy per game, with Duke of York's search over more hands and from more cards."""

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

    def act(self, observation):
        return self.strategy(observation, self.strategy_params, self.rng)

