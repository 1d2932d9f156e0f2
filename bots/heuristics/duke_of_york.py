"""Duke of York (docs/rules.md, Duke of York), by hand-written strategy: exchange towards a wide range of
values; play by a small search over sampled opponent hands (top and bottom of the hill), with a rule
of thumb while the hands are full.

Once the hands are small, the search is exact for the rest of the round over each sampled opponent
hand: this seat plays its best, the opponent its best with weight `wary` and, with the rest, the
average of the cards that fit. An opponent who turned the play down had no card that fitted under 31.
"""

from __future__ import annotations

from collections import Counter

from arena.cards import RANK

from .common import TIE, best_move, choose

DEFAULTS = {
    "samples": 8,
    "wary": 0.5,
    "high_first": 0.1,
    "queen_keep": 0.5,
    "search_cards": 7,
}
"""The parameters `move` reads, with the heuristic bot's values."""

_VALUES = {
    "queen_zero": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 12),
    "face_value": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13),
    "queen_eleven": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 11, 13),
}
_TOP = 31


def _top_points(peak: int) -> int:
    return 3 if peak == 31 else 2 if peak == 30 else 1


def _bottom_points(count: int) -> int:
    return 3 if count == 0 else 2 if count == 1 else 1


def _search(mine: tuple, theirs: tuple, count: int, down: bool, my_turn: bool, peak: int,
            peak_mine: bool, memo: dict, wary: float = 1.0) -> float:
    """Value (my points - theirs) of the rest of a round with both hands known (values, sorted): I
    play my best; the opponent its best with weight `wary`, else any fitting card."""
    key = (mine, theirs, count, down, my_turn, peak, peak_mine)
    got = memo.get(key)
    if got is not None:
        return got
    hand = mine if my_turn else theirs
    if not down and hand[0] > _TOP - count:
        down = True  # nothing fits going up: the play turns down and this player plays now
    limit = count if down else _TOP - count
    if hand[0] > limit:  # stuck: the round ends, the other player has played the last card
        top = _top_points(peak) if peak_mine else -_top_points(peak)
        got = top - _bottom_points(count) if my_turn else top + _bottom_points(count)
        memo[key] = got
        return got
    best, total, n, prev = None, 0.0, 0, -1
    for i, v in enumerate(hand):
        if v > limit:
            break
        if v == prev:
            continue
        prev = v
        rest = hand[:i] + hand[i + 1:]
        if down:
            new, new_peak, new_mine = count - v, peak, peak_mine
        elif count + v > peak:
            new, new_peak, new_mine = count + v, count + v, my_turn
        else:
            new, new_peak, new_mine = count + v, peak, peak_mine
        if my_turn:
            n_mine, n_theirs = rest, theirs
        else:
            n_mine, n_theirs = mine, rest
        if not n_mine and not n_theirs:  # the last card of the round
            top = _top_points(new_peak) if new_mine else -_top_points(new_peak)
            value = top + _bottom_points(new) if my_turn else top - _bottom_points(new)
        else:
            value = _search(n_mine, n_theirs, new, down, not my_turn, new_peak, new_mine, memo, wary)
        total += value
        n += 1
        if best is None or (value > best if my_turn else value < best):
            best = value
    if not my_turn and wary < 1:
        best = wary * best + (1 - wary) * total / n
    memo[key] = best
    return best


def _unseen(obs, values) -> tuple[list[int], int | None]:
    """The cards the opponent may hold, and (if the opponent turned the play down) the lowest value
    each of their cards must have: at that moment none of them fitted under 31."""
    seen = set(obs.hand)
    seen.update(c for c in obs.table if c is not None)
    seen.update(c for _, c in obs.played)
    for played in obs.earlier:
        seen.update(c for _, c in played)
    unseen = [c for c in range(52) if c not in seen]
    count, up, floor = 0, True, None
    for seat, card in obs.played:
        v = values[RANK[card]]
        if up and v > _TOP - count:
            up = False
            if seat != obs.seat:
                floor = _TOP - count + 1
        count = count + v if up else count - v
    return unseen, floor


def move(obs, params: dict, rng) -> tuple:
    """Exchange by the hand's spread; play by search over sampled opponent hands."""
    legal = obs.legal_moves
    if len(legal) == 1:
        return legal[0]
    values = _VALUES[obs.rules.values]
    kind = legal[0][0]
    if kind == "take":
        return _take(obs, values, rng)
    if kind == "discard":
        return _discard(obs, values, rng)
    return _play(obs, values, params, rng)


def _take(obs, values, rng) -> tuple:
    """Take from a slot whose card is unknown, rather than a card this seat itself put away; as
    dealer, prefer the slot the leader did not just fill with a card they did not want."""
    unknown = [s for s in (0, 1) if obs.table[s] is None]
    if len(unknown) == 1:
        known = obs.table[1 - unknown[0]]
        # a card put away earlier may fill a gap in this hand better than a random card
        if _coverage(list(obs.hand) + [known], values) > _coverage(list(obs.hand), values) + 1.5:
            return ("take", 1 - unknown[0])
        return ("take", unknown[0])
    if len(unknown) == 2:
        leader_slot = None
        for seat, action in obs.moves:
            if seat != obs.seat and action[0] == "take":
                leader_slot = action[1]
        if leader_slot is not None:
            return ("take", 1 - leader_slot)
        return ("take", rng.choice((0, 1)))
    return ("take", max((0, 1), key=lambda s: _coverage(list(obs.hand) + [obs.table[s]], values)))


def _coverage(cards: list[int], values) -> float:
    """How well a set of cards covers the values: distinct values, low cards for the way down and a
    spread of high ones; duplicates count little."""
    vals = sorted(values[RANK[c]] for c in cards)
    distinct = sorted(set(vals))
    score = len(distinct) * 2.0
    score += sum(1.5 for v in distinct if v <= 2) + sum(0.7 for v in distinct if 3 <= v <= 5)
    score += 0.5 * (distinct[-1] - distinct[0]) / 4 if distinct else 0
    return score


def _discard(obs, values, rng) -> tuple:
    """Discard the card whose loss hurts the hand's spread least (a duplicate value first)."""
    hand = obs.hand
    coverage_after = [_coverage([c for c in hand if c != card], values) for _, card in obs.legal_moves]
    return best_move(obs.legal_moves, coverage_after, rng)


def _play(obs, values, params, rng) -> tuple:
    """Average over sampled opponent hands of the exact value of each play."""
    unseen, floor = _unseen(obs, values)
    size = obs.opponent_hand_size
    if floor is not None:
        pool = [c for c in unseen if values[RANK[c]] >= floor]
        if len(pool) >= size:
            unseen = pool
    mine_all = tuple(sorted(values[RANK[c]] for c in obs.hand))
    down = obs.direction == "down"
    peak, peak_mine = obs.peak, obs.peak_seat == obs.seat
    samples = params["samples"] if len(mine_all) + size <= params["search_cards"] else 0
    totals: dict[int, float] = {}
    options = {}
    for play in obs.legal_moves:
        options.setdefault(values[RANK[play[1]]], []).append(play)
    if samples:
        if size == 1:  # every card the opponent may hold, weighted by how many there are
            hands = [((v,), w) for v, w in Counter(values[RANK[c]] for c in unseen).items()]
        else:
            hands = [(tuple(sorted(values[RANK[c]] for c in rng.sample(unseen, size))), 1) for _ in range(samples)]
        for theirs, weight in hands:
            memo: dict = {}
            for v in options:
                i = mine_all.index(v)
                rest = mine_all[:i] + mine_all[i + 1:]
                count = obs.count - v if down else obs.count + v
                new_peak, new_mine = (count, True) if not down and count > peak else (peak, peak_mine)
                if not rest and not theirs:
                    top = _top_points(new_peak) if new_mine else -_top_points(new_peak)
                    value = top + _bottom_points(count)
                else:
                    value = _search(rest, theirs, count, down, False, new_peak, new_mine, memo, params["wary"])
                totals[v] = totals.get(v, 0.0) + weight * value
    else:
        unseen_values = Counter(values[RANK[c]] for c in unseen)
        held = size / (len(unseen) or 1)  # the chance that the opponent holds a given unseen card
        for v in options:
            totals[v] = _rule_of_thumb(obs.count, v, down, unseen_values, held, params)
    top = max(totals.values())
    return choose([m for v, ms in options.items() if totals[v] >= top - TIE for m in ms], rng)


def _rule_of_thumb(count: int, v: int, down: bool, unseen_values: Counter, held: float, params: dict) -> float:
    """Rule of thumb while the hands are full: reach 31 (or 30), do not leave the opponent a card to
    reach it, and keep low cards for the way down. `unseen_values` counts the unseen cards by value,
    each held by the opponent with chance `held`."""
    count = count - v if down else count + v
    value = 0.0
    if not down:
        if count == 31:
            value += 3
        elif count == 30:
            value += 2 - 3 * min(1.0, held * unseen_values[1])
        else:
            reach31 = unseen_values[31 - count]
            reach30 = unseen_values[30 - count]
            value -= 3 * min(1.0, held * reach31) + 2 * min(1.0, held * reach30) * 0.6
        # high cards first: low ones are worth keeping for the way down (and a Queen for any time)
        value += params["high_first"] * v if v else -params["queen_keep"]
    else:
        if count in (0, 1):
            value += 0.5
    return value
