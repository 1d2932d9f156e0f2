"""heuristic: plays each of the four games by hand-written strategy, the way a careful human would.

One strategy function per game, each reading only the observation (and the rules and seat from
`reset`). The strategies follow RULES.md and the designer's notes in the seed texts:

- Caterpillar: score multiples of five, leave the opponent few scoring replies (counted from the
  unseen cards), keep face cards (100 each at the end) unless a play with one is worth more, and
  mind being forced to spend a face card, or making the opponent court short.
- Give or Take: take same-rank bonuses and avoid same-suit plays; plan the last two cards exactly
  (every card the opponent may hold), keep a good last card earlier on.
- Go For It: expected value of playing on (the unseen cards decide the next card: a pair with the
  first or last card wins, an intermediate pair takes the row up), against claiming, passing or
  taking.
- Duke of York: exchange towards a wide range of values; play by a small search over sampled
  opponent hands (top and bottom of the hill), with a rule of thumb while the hands are full.

Ties are broken with the bot's rng, so a game replays exactly.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb, tanh

from arena.bots import Bot
from arena.cards import IS_FACE, IS_RED, JOKER, RANK, SUIT
from arena.games.give_or_take import BASE, KING_ACT, effective_value, step

# ---------------------------------------------------------------------------------------------
# Caterpillar

_PIP = tuple(0 if IS_FACE[c] else RANK[c] + 1 for c in range(52))
_KIND = tuple(4 if IS_FACE[c] else SUIT[c] for c in range(52))
"""A card's kind for the opponent model: its suit for a numeral (0-3), 4 for a face card."""
_KIND_SIZE = (10, 10, 10, 10, 12)
FACE_POINTS = 100
PLAYS = 26
_HAND = 13


_MAX_HELD = 9
"""Counts of a kind in the opponent's hand are tracked up to this (more is all but impossible)."""


@lru_cache(maxsize=4096)
def _hypergeometric(good: int, total: int, drawn: int) -> tuple[float, ...]:
    """P(j of `good` cards among `drawn` dealt from `total`), for j = 0.._MAX_HELD."""
    if total <= 0:
        return (1.0,) + (0.0,) * _MAX_HELD
    return tuple(comb(good, j) * comb(total - good, drawn - j) / comb(total, drawn) for j in range(_MAX_HELD + 1))


def caterpillar_opponent(obs) -> list[list[float]]:
    """Per kind (numerals of each suit, face cards), the distribution of how many the opponent holds.

    Counting unseen cards alone underrates how short the opponent is of the suit in play and of face
    cards, as those are what it has been playing. So this follows the game: the opponent's first 13
    cards are dealt from the cards this seat never held; each of its plays removes a card of its kind,
    weighing the hands by how likely a player choosing among its legal cards at random was to play
    that kind (a face card played instead of following suit hints at a void); each draw may add one.
    """
    row, me = obs.caterpillar, obs.seat
    mine = [0] * 5
    for c in obs.hand:
        mine[_KIND[c]] += 1
    for c in row[me::2]:
        mine[_KIND[c]] += 1
    others = 52 - sum(mine)
    dists = [list(_hypergeometric(_KIND_SIZE[k] - mine[k], others, _HAND)) for k in range(5)]
    unseen = [_KIND_SIZE[k] - mine[k] for k in range(5)]
    for c in row[1 - me::2]:
        unseen[_KIND[c]] -= 1
    n_unseen = sum(unseen)
    p_draw = [u / n_unseen for u in unseen] if n_unseen else [0.0] * 5
    top = range(1, _MAX_HELD + 1)
    for i in range(1 - me, len(row), 2):
        kind = _KIND[row[i]]
        d = dists[kind]
        if i:
            suit = SUIT[row[i - 1]]
            faces = sum(j * p for j, p in enumerate(dists[4]))
            follow = sum(j * p for j, p in enumerate(dists[suit]))
            if kind == 4:
                d = [p * j / (j + follow) for j, p in enumerate(d)] if follow else [0.0] + d[1:]
                s = dists[suit]
                s = [p / (j + faces) for j, p in enumerate(s)] if faces else [s[0]] + [0.0] * _MAX_HELD
                total = sum(s)
                dists[suit] = [p / total for p in s] if total else s
            else:
                d = [p * j / (j + faces) for j, p in enumerate(d)] if faces else [0.0] + d[1:]
        else:
            d = [p * j for j, p in enumerate(d)]
        total = sum(d)
        dists[kind] = [p / total for p in d[1:]] + [0.0] if total else [1.0] + [0.0] * _MAX_HELD
        for k in range(5):  # the draw after the play
            p = p_draw[k]
            if p:
                d, q = dists[k], 1 - p
                dists[k] = [d[0] * q] + [d[j] * q + d[j - 1] * p for j in top]
    for k in range(5):  # the opponent holds no more of a kind than this seat has not seen
        d = dists[k][:unseen[k] + 1]
        total = sum(d)
        dists[k] = [p / total for p in d] + [0.0] * (_MAX_HELD + 1 - len(d)) if total else [1.0] + [0.0] * _MAX_HELD
    return dists


def caterpillar_move(obs, params: dict, rng) -> int:
    """The card to play: immediate points, minus what it costs in face cards and opponent replies."""
    legal = obs.legal_moves
    if len(legal) == 1:
        return legal[0]
    hand, row, total = obs.hand, obs.caterpillar, obs.total
    last = row[-1] if row else None
    plays_after = PLAYS - len(row) - 1
    face_w = params["face_value"] * FACE_POINTS
    best, best_value = [], None
    model = _CatModel(obs, params) if plays_after else None
    me = obs.seat
    diff = obs.scores[me] - obs.scores[1 - me]
    my_faces = sum(IS_FACE[c] for c in hand)
    # The final margin is judged by a win chance, tanh(margin / spread): a court-short opponent is
    # a lost game more often than the points alone say, and a sure 100 matters less when far ahead.
    spread = params["spread"] * (1 + plays_after)
    base = diff + FACE_POINTS * (my_faces - (model.faces_held if model else 0))
    for card in legal:
        pip, suit = _PIP[card], SUIT[card]
        new_total = total + pip
        if pip:
            gain = new_total if new_total % 5 == 0 else 0
        else:
            gain = total if last is not None and SUIT[last] == suit and total % 5 == 0 else 0
        points = gain - (face_w if not pip else 0)
        if model:
            risk, p_short = model.risk(card, new_total, plays_after > 1)
            short_margin = diff + gain - FACE_POINTS * (my_faces - (not pip))
            value = ((1 - p_short) * tanh((base + points - risk) / spread)
                     + p_short * tanh(short_margin / spread))
        else:
            value = tanh((base + points) / spread)
        if best_value is None or value > best_value + 1e-9:
            best, best_value = [card], value
        elif abs(value - best_value) <= 1e-9:
            best.append(card)
    return best[0] if len(best) == 1 else rng.choice(best)


class _CatModel:
    """What this seat knows of the unseen cards and of the opponent's hand, for valuing a play."""

    def __init__(self, obs, params: dict):
        self.p = params
        self.hand = obs.hand
        seen = set(obs.hand)
        seen.update(obs.caterpillar)
        self.unseen = [c for c in range(52) if c not in seen]
        dists = caterpillar_opponent(obs)
        unseen_kind = [0] * 5
        for c in self.unseen:
            unseen_kind[_KIND[c]] += 1
        means = [sum(j * p for j, p in enumerate(d)) for d in dists]
        # the chance that the opponent holds one given unseen card of each kind
        self.hold = [min(1.0, means[k] / unseen_kind[k]) if unseen_kind[k] else 0.0 for k in range(5)]
        self.void = [d[0] for d in dists]
        self.faces_held = means[4]
        self.unseen_kind = unseen_kind
        self.my_faces = sum(IS_FACE[c] for c in obs.hand)
        self.draw = obs.stock_left > 0
        self.n_unseen = len(self.unseen)

    def risk(self, card: int, new_total: int, again: bool) -> tuple[float, float]:
        """What a play leaves, in points: the opponent's best scoring reply and, if this seat plays
        again, being forced to spend a face card, less the chance of scoring again with a numeral
        of the suit; and the chance that the opponent is court short."""
        p = self.p
        suit = SUIT[card]
        face_w = p["face_value"] * FACE_POINTS
        faces_after = self.my_faces - IS_FACE[card]
        # The opponent's scoring replies: a numeral of the suit completing a multiple of five, or a
        # face card of the suit on a multiple of five (which costs them a face card).
        replies = []
        for c in self.unseen:
            if SUIT[c] != suit:
                continue
            pip = _PIP[c]
            if pip:
                if (new_total + pip) % 5 == 0:
                    replies.append((new_total + pip, self.hold[suit]))
            elif new_total % 5 == 0 and new_total:
                replies.append((new_total - face_w, self.hold[4]))
        risk = p["threat"] * _expected_best(replies)
        # The opponent with no numeral of the suit and no face card is court short: they score this
        # seat's face cards and this seat scores nothing for them.
        p_short = min(1.0, self.void[suit] * self.void[4] * p["short_scale"])
        if not again:
            return risk, p_short
        p_follow = (1 - self.void[suit]) * p["follow_rate"]
        own = [c for c in self.hand if c != card and SUIT[c] == suit and _PIP[c]]
        if not own:
            # No numeral of the suit left: if the opponent follows, a face card must go (or, holding
            # none, this seat is court short and scores the opponent's face cards).
            p_draw = self.unseen_kind[suit] * (1 - self.hold[suit]) / self.n_unseen if self.draw else 0.0
            forced = p_follow * (1 - p_draw)
            if faces_after:
                risk += forced * face_w * p["forced"]
            else:
                risk -= forced * FACE_POINTS * self.faces_held * p["court_gain"]
        else:
            residues = {_PIP[c] % 5 for c in own}
            risk -= p["potential"] * p_follow * len(residues) / 5 * (new_total + 11)
        return risk, p_short


def _expected_best(options: list[tuple[float, float]]) -> float:
    """Expected best value of `options` (value, chance it is available), taken as independent."""
    total, miss = 0.0, 1.0
    for v, q in sorted(options, reverse=True):
        if v <= 0:
            break
        total += miss * q * v
        miss *= 1 - q
    return total


# ---------------------------------------------------------------------------------------------
# Give or Take

_GOT_JACK = 10


def _got_results(count: int, v: int, multiply: bool) -> list[int]:
    """The counts a card of effective value `v` can make from `count` (one per legal operation)."""
    if v < 0:
        return [count * 2 if count & 1 else count >> 1]
    if v > count:
        out = [count + v]
    elif v < count:
        out = [count // v if v and count % v == 0 else count - v]
    else:
        out = [count * 2, 0, 1] if v else [0]
    if multiply and count * v <= 20:
        out.append(count * v)
    return out


def _last_score(card: int, count: int) -> int:
    """Points for the player's side of a last card that made `count`: -(C-L)² (to the opponent), +10 if C == L."""
    d = count - BASE[card]
    return 10 if d == 0 else -d * d


class _GotModel:
    """The unseen cards of a deal, grouped by rank, and the opponent's plays as draws from them."""

    def __init__(self, unseen: list[int], multiply: bool):
        self.multiply = multiply
        by_rank: dict[int, list[int]] = {}
        for c in unseen:
            by_rank.setdefault(RANK[c], []).append(c)
        total = len(unseen) or 1
        # (a representative card, weight, count of each suit) per rank
        self.groups = [(cards[0], len(cards) / total, [sum(SUIT[c] == s for c in cards) / len(cards)
                                                       for s in range(4)]) for cards in by_rank.values()]
        self._last: dict = {}

    def bonus_after(self, rank: int, suit_share: list[float], prev_card: int) -> float:
        """The opponent's bonus swing (from this seat's side) for a card of `rank` after `prev_card`."""
        if rank == RANK[prev_card]:
            return -10.0
        return 10.0 * suit_share[SUIT[prev_card]]

    def opponent_last(self, count: int, prev: int, prev_card: int) -> float:
        """Expected points (this seat's side) of the opponent's last card played on `count`."""
        key = (count, prev, prev_card)
        got = self._last.get(key)
        if got is None:
            got = 0.0
            for card, w, share in self.groups:
                v = effective_value(card, prev)
                best = max(_last_score(card, c) for c in _got_results(count, v, self.multiply))
                got += w * (self.bonus_after(RANK[card], share, prev_card) - best)
            self._last[key] = got
        return got


def _bonus(card: int, prev_card: int) -> int:
    """Bonus swing of a play for its player: +10 same rank, -10 same suit (RULES.md, Bonuses)."""
    if RANK[card] == RANK[prev_card]:
        return 10
    return -10 if SUIT[card] == SUIT[prev_card] else 0


def give_or_take_move(obs, params: dict, rng) -> tuple[int, str]:
    """The (card, op) to play: exact over the last two cards, a kept good last card before that."""
    legal = obs.legal_moves
    if len(legal) == 1:
        return legal[0]
    multiply = obs.rules.multiply
    prev = KING_ACT if obs.last_king else obs.last_value
    prev_card = obs.played[-1][1] if obs.played else obs.turn_up
    count, hand = obs.count, obs.hand
    seen = set(hand)
    seen.add(obs.turn_up)
    seen.update(c for _, c, _ in obs.played)
    model = _GotModel([c for c in range(52) if c not in seen], multiply)
    opponent_after = obs.opponent_hand_size >= len(hand)  # the opponent plays between my plays
    best, best_value = [], None
    for card, op in legal:
        v = effective_value(card, prev)
        new = step(count, v, op)
        value = _bonus(card, prev_card)
        rest = [c for c in hand if c != card]
        if not rest:
            value += _last_score(card, new)
            if opponent_after:
                value += model.opponent_last(new, v, card)
        elif len(rest) == 1:
            value += _got_two(model, new, v, card, rest[0], opponent_after, obs.opponent_hand_size)
        else:
            value += params["keep"] * _got_keep(rest, multiply)
        if best_value is None or value > best_value + 1e-9:
            best, best_value = [(card, op)], value
        elif abs(value - best_value) <= 1e-9:
            best.append((card, op))
    return best[0] if len(best) == 1 else rng.choice(best)


def _got_two(model: _GotModel, count: int, prev: int, prev_card: int, last: int, leader: bool,
             opp_size: int) -> float:
    """Expected points (this seat's side) from the opponent's next play, then this seat's last card
    `last`, then (for the leader) the opponent's last card."""
    total = 0.0
    opp_last = opp_size == 1
    for card, w, share in model.groups:
        v = effective_value(card, prev)
        outs = _got_results(count, v, model.multiply)
        swing = model.bonus_after(RANK[card], share, prev_card)
        vals = []
        for c in outs:
            val = swing
            if opp_last:
                val -= _last_score(card, c)
            lv = effective_value(last, v)
            # this seat's last card: bonus against the opponent's card (its suit is unknown: the
            # share of the rank in that suit), then the best operation
            mine = 10.0 if RANK[last] == RANK[card] else -10.0 * share[SUIT[last]]
            finals = []
            for c2 in _got_results(c, lv, model.multiply):
                f = _last_score(last, c2)
                if leader:
                    f += model.opponent_last(c2, lv, last)
                finals.append(f)
            vals.append(val + mine + max(finals))
        # the opponent picks the operation that is worst for this seat
        total += w * min(vals)
    return total


# How often each count (0, 1, 2, ...) stands before the last plays of a deal, as measured in play.
_TYPICAL_COUNTS = (2, 8, 10, 6, 6, 7, 7, 8, 6, 6, 6, 6, 5, 5, 3, 3, 2, 2, 1, 1, 1)


def _keep_value(card: int, multiply: bool) -> float:
    """How good `card` is as a last card over typical counts (a Jack is taken as a middling value)."""
    v = 5 if RANK[card] == _GOT_JACK else effective_value(card, 0)
    got = 0.0
    for c, weight in enumerate(_TYPICAL_COUNTS):
        got += weight * max(_last_score(card, x) for x in _got_results(c, v, multiply))
    return got / sum(_TYPICAL_COUNTS)


_KEEP = {False: [_keep_value(c, False) for c in range(52)], True: [_keep_value(c, True) for c in range(52)]}


def _got_keep(rest: list[int], multiply: bool) -> float:
    """Value of the cards kept: the best of them as a last card, and the second best as a spare."""
    values = sorted((_KEEP[multiply][c] for c in rest), reverse=True)
    return values[0] + 0.3 * values[1]


# ---------------------------------------------------------------------------------------------
# Go For It

_JOKERS_ADDED = {3: 2, 5: 3, 6: 2}


class _GfiPool:
    """The cards nobody has seen (pile tops and the set-aside), by card, rank, suit and colour."""

    def __init__(self, obs):
        n = obs.rules.players
        counts = [1] * 52 + [_JOKERS_ADDED.get(n, 0) if obs.rules.jokers else 0]
        for group in (obs.row, *obs.pile_known, *obs.winnings):
            for c in group:
                counts[c] -= 1
        self.counts = counts
        self.size = sum(counts)
        self.by_rank = [0] * 13
        self.by_suit = [0] * 4
        self.red = 0
        for c in range(52):
            if counts[c]:
                self.by_rank[RANK[c]] += counts[c]
                self.by_suit[SUIT[c]] += counts[c]
                self.red += counts[c] * IS_RED[c]
        self.cards = [(c, counts[c] / self.size) for c in range(53) if counts[c] > 0] if self.size else []


def _gfi_wins(row: list[int]) -> bool:
    """RULES.md step 4: the row is a winning combination (pair with first or last, or by length)."""
    c = row[-1]
    rank = RANK[c]
    if rank == RANK[row[0]] or rank == RANK[row[-2]]:
        return True
    size = len(row)
    if size == 3:
        a, b = RANK[row[0]], RANK[row[1]]
        if SUIT[row[0]] == SUIT[row[1]] == SUIT[c]:
            return True
        return a != b and max(a, b, rank) - min(a, b, rank) == 2
    if size == 4:
        return len({SUIT[x] for x in row}) == 4
    if size == 5:
        red = IS_RED[c]
        return all(IS_RED[x] == red for x in row)
    if size == 6:
        ranks = {RANK[x] for x in row}
        return len(ranks) == 6 and max(ranks) <= 9
    return False


class _GfiPlanner:
    """Values (in cards, from the side of the seat to play) of claiming, taking and playing on.

    Every card turned up is +1 (it leaves the pile); a row won is +1 a card and the next start
    (`win`); a row taken up is -1 a card and the next start goes to the neighbour (`lose`).
    """

    def __init__(self, obs, params: dict, seat: int):
        self.p = params
        self.pool = _GfiPool(obs)
        self.pile = obs.pile_sizes[seat]
        known = obs.pile_known[seat]
        # the cards this seat turns up next: unseen (None) down to its pile's known bottom
        self.next_cards = [None] * (self.pile - len(known)) + list(known)
        players = obs.rules.players
        self.share = 1.0 / max(1, players - 1)
        self.win = params["start_value"]
        self.lose = params["start_value"] * self.share

    def play_value(self, row: list[int], depth: int = 0) -> float:
        """Expected value of turning up the next card onto `row` and deciding well after it."""
        n = len(row)
        if self.pile - depth <= 1:
            return 2.0 + n + self.p["end_bonus"]  # the last card: the row is won and the game ends
        pool = self.pool
        pj = pool.counts[JOKER] / pool.size if pool.size else 0.0
        known = self.next_cards[depth]
        if n == 6 and known is None:
            # the seventh card always wins the row (RULES.md step 3), unless it is a joker
            return (1 - pj) * (8 + self.win) + pj * (1 - n - self.lose)
        cards = [(known, 1.0)] if known is not None else pool.cards
        got = 0.0
        for card, w in cards:
            got += w * self._after(row, card, depth)
        return got

    def _after(self, row: list[int], card: int, depth: int) -> float:
        """Value of turning up `card` onto `row`: +1 for the card leaving the pile, and what follows."""
        n = len(row)
        if card == JOKER:
            return 1.0 - n - self.lose
        if n + 1 == 7:
            return 8 + self.win
        new = row + [card]
        if _gfi_wins(new):
            return 1 + max(n + 1 + self.win, self.decide(new, depth + 1))
        rank = RANK[card]
        for x in row[1:-1]:
            if RANK[x] == rank:
                return -n - self.lose
        return 1 + self.decide(new, depth + 1)

    def decide(self, row: list[int], depth: int) -> float:
        """Value of a play-or-pass decision on `row` after this seat's own card: play on when that
        is worth something, else pass (the others may take the risk; if all pass it comes back)."""
        if depth < 3 and depth < len(self.next_cards) and self.next_cards[depth] is not None:
            ev = self.play_value(row, depth)
        else:
            ev = self._cheap(row, depth)
        return ev if ev >= 0 else ev * self.p["pass_factor"]

    def _cheap(self, row: list[int], depth: int) -> float:
        """A quick estimate of playing one more card onto `row` from rank, suit and colour counts."""
        pool = self.pool
        size = pool.size
        n = len(row)
        if self.pile - depth <= 1:
            return 2.0 + n + self.p["end_bonus"]
        if not size:
            return 0.0
        pj = pool.counts[JOKER] / size
        if n == 6:
            return (1 - pj) * (8 + self.win) + pj * (1 - n - self.lose)
        ends = {RANK[row[0]], RANK[row[-1]]}
        inner = {RANK[x] for x in row[1:-1]} - ends
        p_end = sum(pool.by_rank[r] for r in ends) / size
        p_inner = sum(pool.by_rank[r] for r in inner) / size
        p_combo = 0.0
        size_after = n + 1
        if size_after == 3:
            if SUIT[row[0]] == SUIT[row[1]]:
                p_combo += pool.by_suit[SUIT[row[0]]] / size
            a, b = RANK[row[0]], RANK[row[1]]
            if a != b and abs(a - b) <= 2:
                lo, hi = min(a, b), max(a, b)
                need = [lo + 1] if hi - lo == 2 else [r for r in (lo - 1, hi + 1) if 0 <= r <= 12]
                p_combo += sum(pool.by_rank[r] for r in need) / size
        elif size_after == 4:
            suits = {SUIT[x] for x in row}
            if len(suits) == 3:
                p_combo += pool.by_suit[({0, 1, 2, 3} - suits).pop()] / size
        elif size_after == 5:
            reds = sum(IS_RED[x] for x in row)
            if reds == 4:
                p_combo += pool.red / size
            elif reds == 0:
                p_combo += (size - pool.red - pool.counts[JOKER]) / size
        elif size_after == 6:
            ranks = {RANK[x] for x in row}
            if len(ranks) == 5 and max(ranks) <= 9:
                p_combo += sum(pool.by_rank[r] for r in range(10) if r not in ranks) / size
        p_combo = min(p_combo, max(0.0, 1 - p_end - p_inner - pj))
        p_rest = max(0.0, 1 - p_end - p_inner - pj - p_combo)
        return ((p_end + p_combo) * (n + 2 + self.win) - (p_inner + pj) * (n + self.lose)
                + p_rest * (1 + self.p["rest_value"]))


def go_for_it_move(obs, params: dict, rng) -> str:
    """`claim`, `play`, `pass` or `take`, whichever is worth most by the planner's estimates."""
    legal = obs.legal_moves
    if len(legal) == 1:
        return legal[0]
    me = obs.seat
    planner = _GfiPlanner(obs, params, me)
    row = list(obs.row)
    n = len(row)
    play = planner.play_value(row)
    if "claim" in legal:
        return "play" if play > n + planner.win + params["margin"] else "claim"
    if "take" in legal:
        return "play" if play >= -n - planner.lose else "take"
    if obs.passes + 1 == obs.rules.players and obs.last_player != me:
        # this pass completes a round of passes: the last card's player must play on or take up
        theirs = _GfiPlanner(obs, params, obs.last_player)
        their_best = max(theirs.play_value(row), -n - theirs.lose)
        other = -their_best * planner.share
    else:
        other = play * params["pass_factor"] if play < 0 else -play * planner.share
    return "play" if play >= other else "pass"


# ---------------------------------------------------------------------------------------------
# Duke of York

_DUKE_VALUES = {
    "queen_zero": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 12),
    "face_value": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13),
    "queen_eleven": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 11, 13),
}
_TOP = 31


def _top_points(peak: int) -> int:
    return 3 if peak == 31 else 2 if peak == 30 else 1


def _bottom_points(count: int) -> int:
    return 3 if count == 0 else 2 if count == 1 else 1


def _duke_search(mine: tuple, theirs: tuple, count: int, down: bool, my_turn: bool, peak: int,
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
            value = _duke_search(n_mine, n_theirs, new, down, not my_turn, new_peak, new_mine, memo, wary)
        total += value
        n += 1
        if best is None or (value > best if my_turn else value < best):
            best = value
    if not my_turn and wary < 1:
        best = wary * best + (1 - wary) * total / n
    memo[key] = best
    return best


def _duke_unseen(obs, values) -> tuple[list[int], int | None]:
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


def duke_move(obs, params: dict, rng) -> tuple:
    """Exchange by the hand's spread; play by search over sampled opponent hands."""
    legal = obs.legal_moves
    if len(legal) == 1:
        return legal[0]
    values = _DUKE_VALUES[obs.rules.values]
    kind = legal[0][0]
    if kind == "take":
        return _duke_take(obs, values, rng)
    if kind == "discard":
        return _duke_discard(obs, values, rng)
    return _duke_play(obs, values, params, rng)


def _duke_take(obs, values, rng) -> tuple:
    """Take from a slot whose card is unknown, rather than a card this seat itself put away; as
    dealer, prefer the slot the leader did not just fill with a card they did not want."""
    unknown = [s for s in (0, 1) if obs.table[s] is None]
    if len(unknown) == 1:
        known = obs.table[1 - unknown[0]]
        # a card put away earlier may fill a gap in this hand better than a random card
        if _duke_gap_value(list(obs.hand) + [known], values) > _duke_gap_value(list(obs.hand), values) + 1.5:
            return ("take", 1 - unknown[0])
        return ("take", unknown[0])
    if len(unknown) == 2:
        leader_slot = None
        for seat, move in obs.moves:
            if seat != obs.seat and move[0] == "take":
                leader_slot = move[1]
        if leader_slot is not None:
            return ("take", 1 - leader_slot)
        return ("take", rng.choice((0, 1)))
    return ("take", max((0, 1), key=lambda s: _duke_gap_value(list(obs.hand) + [obs.table[s]], values)))


def _duke_gap_value(cards: list[int], values) -> float:
    """How well a set of cards covers the values: distinct values, low cards for the way down and a
    spread of high ones; duplicates count little."""
    vals = sorted(values[RANK[c]] for c in cards)
    distinct = sorted(set(vals))
    score = len(distinct) * 2.0
    score += sum(1.5 for v in distinct if v <= 2) + sum(0.7 for v in distinct if 3 <= v <= 5)
    score += 0.5 * (distinct[-1] - distinct[0]) / 4 if distinct else 0
    return score


def _duke_discard(obs, values, rng) -> tuple:
    """Discard the card whose loss hurts the hand's spread least (a duplicate value first)."""
    hand = list(obs.hand)
    best, best_value = [], None
    for move in obs.legal_moves:
        card = move[1]
        rest = [c for c in hand if c != card]
        value = _duke_gap_value(rest, values)
        if best_value is None or value > best_value + 1e-9:
            best, best_value = [move], value
        elif abs(value - best_value) <= 1e-9:
            best.append(move)
    return best[0] if len(best) == 1 else rng.choice(best)


def _duke_play(obs, values, params, rng) -> tuple:
    """Average over sampled opponent hands of the exact value of each play."""
    unseen, floor = _duke_unseen(obs, values)
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
    for move in obs.legal_moves:
        options.setdefault(values[RANK[move[1]]], []).append(move)
    if samples:
        if size == 1:  # every card the opponent may hold, weighted by how many there are
            weights: dict[int, int] = {}
            for c in unseen:
                weights[values[RANK[c]]] = weights.get(values[RANK[c]], 0) + 1
            hands = [((v,), w) for v, w in weights.items()]
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
                    value = _duke_search(rest, theirs, count, down, False, new_peak, new_mine, memo,
                                         params["wary"])
                totals[v] = totals.get(v, 0.0) + weight * value
    else:
        for v in options:
            totals[v] = _duke_rule(obs, v, unseen, size, values, down, params)
    top = max(totals.values())
    best = [m for v, ms in options.items() if totals[v] >= top - 1e-9 for m in ms]
    return best[0] if len(best) == 1 else rng.choice(best)


def _duke_rule(obs, v, unseen, size, values, down, params) -> float:
    """Rule of thumb while the hands are full: reach 31 (or 30), do not leave the opponent a card to
    reach it, and keep low cards for the way down."""
    count = obs.count - v if down else obs.count + v
    value = 0.0
    n = len(unseen) or 1
    q = size / n
    unseen_vals = [values[RANK[c]] for c in unseen]
    if not down:
        if count == 31:
            value += 3
        elif count == 30:
            value += 2 - 3 * min(1.0, q * unseen_vals.count(1))
        else:
            reach31 = unseen_vals.count(31 - count) if 31 - count <= 13 else 0
            reach30 = unseen_vals.count(30 - count) if 30 - count <= 13 else 0
            value -= 3 * min(1.0, q * reach31) + 2 * min(1.0, q * reach30) * 0.6
        # high cards first: low ones are worth keeping for the way down (and a Queen for any time)
        value += params["high_first"] * v if v else -params["queen_keep"]
    else:
        if count in (0, 1):
            value += 0.5
    return value


# ---------------------------------------------------------------------------------------------


class HeuristicBot(Bot):
    """Hand-written strategy per game, reading only its observation."""

    name = "heuristic"
    games = {"caterpillar", "give_or_take", "go_for_it", "duke_of_york"}
    defaults = {
        # Caterpillar
        "face_value": 0.7,
        "threat": 1.3,
        "forced": 0.8,
        "follow_rate": 0.8,
        "court_gain": 0.5,
        "potential": 0.6,
        "short_scale": 1.0,
        "spread": 40.0,
        # Give or Take
        "keep": 0.5,
        # Go For It
        "start_value": 1.0,
        "pass_factor": 0.5,
        "rest_value": 0.5,
        "end_bonus": 5.0,
        "margin": 0.0,
        # Duke of York
        "samples": 8,
        "wary": 0.5,
        "high_first": 0.1,
        "queen_keep": 0.5,
        "search_cards": 7,
    }

    def act(self, observation):
        """The move for this observation, by the game's strategy function."""
        return _STRATEGIES[self.game_id](observation, self.params, self.rng)


_STRATEGIES = {
    "caterpillar": caterpillar_move,
    "give_or_take": give_or_take_move,
    "go_for_it": go_for_it_move,
    "duke_of_york": duke_move,
}
