"""The heuristic bot (bots/heuristic.py): table-driven decisions per game, each citing docs/rules.md or the
seed's advice; clean and deterministic play in every rules variant; and that it beats random."""

from __future__ import annotations

import json
import random

import pytest
from conftest import VARIANT_IDS, VARIANTS

from arena.bots import BUNDLED_DIR, load_spec
from arena.cards import DECK, IS_FACE, NAME, RANK, SUIT, card_names, parse_card, parse_cards
from arena.games import get_game, make_rules
from arena.games.caterpillar import rules as cat
from arena.games.duke_of_york import rules as duke
from arena.games.give_or_take import rules as got
from arena.games.go_for_it import rules as gfi
from arena.tournament import referee

HeuristicBot = load_spec(f"{BUNDLED_DIR / 'heuristic.py'}:HeuristicBot")


def cards(text: str) -> list[int]:
    """Cards from space-separated names ('' for none)."""
    return parse_cards(text.split())


def decide(game_id: str, observation, rules=None) -> object:
    """The bot's move for one observation (rules default to the game's defaults)."""
    bot = HeuristicBot()
    bot.reset(game_id, observation.seat, rules or get_game(game_id).Rules(), random.Random(7))
    move = bot.act(observation)
    assert move in observation.legal_moves
    return move


# ---------------------------------------------------------------------------------------------
# Caterpillar


def cat_position(hand: str, played: str, scores=(0, 0)) -> cat.Observation:
    """The observation of the seat to move with `hand`, after `played`; the other hand and the
    stock are the remaining cards in pack order (the bot never sees them)."""
    mine, row = cards(hand), cards(played)
    rest = [c for c in DECK if c not in mine and c not in row]
    seat = len(row) % 2
    hands = [mine, rest[:13]] if seat == 0 else [rest[:13], mine]
    state = cat._start(cat.Rules(), hands, rest[13:13 + 26 - len(row)], row, list(scores))
    return cat.observe(state, seat)


def cat_endgame(hand: str, unseen: str, last: str) -> cat.Observation:
    """Seat 0 to move with 24 cards played (ending with `last`) and exactly `unseen` not seen: the
    opponent holds 13 of those 15 cards."""
    mine, hidden, final = cards(hand), cards(unseen), parse_card(last)
    row = [c for c in DECK if c not in mine and c not in hidden and c != final] + [final]
    assert len(mine) == 13 and len(row) == 24
    total = sum(0 if IS_FACE[c] else RANK[c] + 1 for c in row)
    legal = tuple(c for c in mine if IS_FACE[c] or SUIT[c] == SUIT[final])
    return cat.Observation(0, cat.Rules(), tuple(mine), tuple(row), total, (300, 300), 2, 13, legal)


# (advice, observation, the plays that are right)
CATERPILLAR = [
    ("docs/rules.md: a numeral making T % 5 == 0 scores T (here 60)",
     cat_position("3H 4H 6H KS QD 2D 7S 8S 9S TS AS 2S 3S", "TC 9C 8C 7C 6C 5C 4C 3C 5H"), "3H"),
    ("seed: keep face cards (100 each at the end) when no play scores",
     cat_position("2H 3H KS QD JC 7S 8S 9S TS AS 2S 3S 4S", "5H"), "2H 3H"),
    ("keeps its only face card while it can follow suit",
     cat_position("2H 3H KS 7S 8S 9S TS AS 2S 3S 4S 5S 6S", "5H"), "2H 3H"),
    ("docs/rules.md: forced to play a face card, the one of the suit just played on a multiple of five scores",
     cat_position("KH QS JD 2D 3D 4D 7S 8S 9S TS AS 2S 3S", "TC 9C 8C 7C 6C 5C 4C 3C 2C AC TD 9D 8D 7D 6D 5H"),
     "KH"),
    ("docs/rules.md court short: the opponent, with no face card and no spade, would score 100 for each of "
     "this seat's face cards; changing to hearts (which it must hold) costs one face card",
     cat_endgame("5S 6S QH KH KD QD TH 7C 8C 9C TC AD 2D", "AH 2H 3H 4H 5H 6H 7H 8H 9H AC 2C 3C 4C 5C 6C",
                 "9S"), "QH KH"),
    ("avoid leaving an easy multiple of five: after 2C the opponent's 3C or 8C would score",
     cat_endgame("2C 7C KS QH 2S 3S 4S 5S 6S 7S 8S 9S TS", "3C 8C 9C TC AD 2D 3D 4D 5D 6D 7D 8D 9D TD AS",
                 "4C"), "7C"),
]


@pytest.mark.parametrize("advice, observation, right", CATERPILLAR, ids=[row[0][:60] for row in CATERPILLAR])
def test_caterpillar_decisions(advice, observation, right):
    assert NAME[decide("caterpillar", observation)] in right.split()


def test_caterpillar_endgame_position_is_what_it_claims():
    """The hand-built end-game positions account for all 52 cards and follow the rules' layout."""
    for _, observation, _ in CATERPILLAR[4:]:
        seen = set(observation.hand) | set(observation.caterpillar)
        assert len(seen) == 37 and observation.stock_left == 26 - len(observation.caterpillar)


# ---------------------------------------------------------------------------------------------
# Give or Take


def got_position(hand: str, count: int, last: str, played: int, multiply: bool = False,
                 turn_up: str = "9S") -> got.Observation:
    """The observation of the seat to move with `hand` on `count` after `played` plays of a deal,
    `last` being the card played just before (the turn-up if none)."""
    rules = got.Rules(multiply=multiply)
    mine, prev_card = cards(hand), parse_card(last)
    prev = got.BASE[prev_card]
    dealer = 1  # deal 0: seat 1 deals, seat 0 leads
    seat = dealer if played % 2 else 1 - dealer
    others = [c for c in DECK if c not in mine and c not in (prev_card, parse_card(turn_up))]
    row = others[:max(0, played - 1)] + [prev_card] if played else []
    plays = tuple((dealer if i % 2 else 1 - dealer, c, "+") for i, c in enumerate(row))
    opponent = 6 - (played + 1) // 2 if seat == dealer else 6 - played // 2
    legal = got._legal(mine, count, prev, got._ROWS[multiply])
    return got.Observation(seat, rules, 0, dealer, tuple(mine), count, parse_card(turn_up), plays, False, prev,
                           (0, 0), opponent, legal)


# (advice, observation, rules, the plays that are right, as `card op`)
GIVE_OR_TAKE = [
    ("docs/rules.md end of a deal: C == L on the last card scores 10 and gives nothing (A on 1 divides to 1)",
     got_position("AC", 1, "4D", played=11), "AC/"),
    ("docs/rules.md option multiply: a last Queen times the count makes 0 == L",
     got_position("QC", 7, "4D", played=11, multiply=True), "QC*"),
    ("docs/rules.md bonuses: same rank as the card before scores 10 (7C on a turned-up 7H)",
     got_position("7C 4S 5D 9S KC QD", 7, "7H", played=0, turn_up="7H"), "7C+ 7C- 7C/"),
    ("docs/rules.md bonuses: a card of the suit before gives the opponent 10 (not a heart on 8H)",
     got_position("2H 3H 4H 5H 9S KC", 8, "8H", played=0, turn_up="8H"), "9S+ KCk"),
    ("seed object: keep a last card that suits the likely count (King now, ten last)",
     got_position("TD KS", 6, "4D", played=9), "KSk"),
]


@pytest.mark.parametrize("advice, observation, right", GIVE_OR_TAKE, ids=[row[0][:60] for row in GIVE_OR_TAKE])
def test_give_or_take_decisions(advice, observation, right):
    card, op = decide("give_or_take", observation, observation.rules)
    assert NAME[card] + op in right.split()


# ---------------------------------------------------------------------------------------------
# Go For It


def gfi_position(row: str, mine: str, other: str, *, known: bool = False, passes: int = 0,
                 last: int = 0) -> gfi.Observation:
    """Seat 0 of two to decide on `row` with pile `mine` (known to it when `known`, as after taking
    up a row) against a pile `other`."""
    rules = gfi.Rules(players=2)
    piles = [cards(mine), cards(other)]
    unseen = [0 if known else len(piles[0]), len(piles[1])]
    state = gfi._start(rules, piles, unseen=unseen, row=cards(row), last=last, passes=passes, turn=0)
    return gfi.observe(state, 0)


# (advice, observation, the right move)
GO_FOR_IT = [
    ("docs/rules.md step 3: a seventh card always wins the row, so a six-card number is played on",
     gfi_position("AC 2D 3H 4S 5C 6D", "KS QS JS TS", "KH QH JH TH"), "play"),
    ("docs/rules.md step 1: the last card of the pile wins the row and ends the game",
     gfi_position("AC 5D 9H", "KS", "KH QH JH TH"), "play"),
    ("seed pairs: the next card (known) pairs an intermediate card and would take the row up, so claim",
     gfi_position("2C 5D 9H KS", "5S 8C 3D", "KH QH JH TH", known=True), "claim"),
    ("seed: forgo a low combination that converts into a higher one (the known next card pairs the first)",
     gfi_position("2C 5D 9H KS", "2H 8C 3D", "KH QH JH TH", known=True), "play"),
    ("docs/rules.md passing: play on rather than take up the row when the next card is known to be safe",
     gfi_position("2C 5D 9H", "QC 8C 3D", "KH QH JH TH", known=True, passes=2), "play"),
]


@pytest.mark.parametrize("advice, observation, right", GO_FOR_IT, ids=[row[0][:60] for row in GO_FOR_IT])
def test_go_for_it_decisions(advice, observation, right):
    assert decide("go_for_it", observation, observation.rules) == right


# ---------------------------------------------------------------------------------------------
# Duke of York

VALUE = duke.VALUES["queen_zero"]


def duke_play(hand: str, played: str, seat: int = 0, dealer: int = 1) -> duke.Observation:
    """Seat `seat` to play with `hand` after `played` (alternating from the leader) in round 0."""
    rules = duke.Rules()
    mine, row = cards(hand), cards(played)
    leader = 1 - dealer
    plays = tuple(((leader + i) % 2, c) for i, c in enumerate(row))
    count, up, peak, peak_seat = 0, True, -1, None
    for s, c in plays:
        v = VALUE[c]
        if up and v > duke.TOP - count:
            up = False
        count = count + v if up else count - v
        if up and count > peak:
            peak, peak_seat = count, s
    if up and all(VALUE[c] > duke.TOP - count for c in mine):
        up = False
    legal = tuple(duke.PLAY[c] for c in mine if (VALUE[c] <= duke.TOP - count if up else VALUE[c] <= count))
    opponent = 5 - sum(1 for s, _ in plays if s != seat)
    return duke.Observation(seat, rules, 0, dealer, seat, tuple(sorted(mine)), (None, None), None, count,
                            "up" if up else "down", peak, peak_seat, plays, (), (), (0, 0), opponent, 30, legal)


def duke_exchange(hand: str, table=(None, None), moves=(), seat: int = 0, dealer: int = 1) -> duke.Observation:
    """Seat `seat` in round 0's exchange, with `hand`, what it knows of the table, and the moves so far."""
    mine = tuple(sorted(cards(hand)))
    legal = duke.TAKES if len(mine) == 5 else tuple(duke.DISCARD[c] for c in mine)
    known = tuple(parse_card(c) if c else None for c in table)
    return duke.Observation(seat, duke.Rules(), 0, dealer, seat, mine, known, None, 0, "up", -1, None, (), (),
                            tuple(moves), (0, 0), 5, 40, legal)


# (advice, observation, the plays that are right)
DUKE = [
    ("docs/rules.md top of the hill: reaching 31 scores 3 (6 on 25)",
     duke_play("6C 3D 9S 2H", "TC 9D 4H 2S"), "6C"),
    ("docs/rules.md bottom of the hill: the last card down to 0 scores 3",
     duke_play("4C 2D", "TC 9D 5H 7S 3S JS KS AS"), "4C"),
    ("seed notes: discard a numeral of which you have two",
     duke_exchange("7H 7S 2D QC 9H KS"), "discard:7H discard:7S"),
    ("seed notes: take the unseen table card, not the one you put there yourself",
     duke_exchange("7H 3S 2D QC 9H", table=("7D", None)), "take:1"),
]


@pytest.mark.parametrize("advice, observation, right", DUKE, ids=[row[0][:60] for row in DUKE])
def test_duke_of_york_decisions(advice, observation, right):
    assert duke.move_to_str(decide("duke_of_york", observation)) in right.split()


def test_duke_position_is_what_it_claims():
    """The hand-built play positions have the count, direction and legal plays of the rules."""
    top = DUKE[0][1]
    assert (top.count, top.direction) == (25, "up")
    assert sorted(card_names(m[1] for m in top.legal_moves)) == ["2H", "3D", "6C"]
    bottom = DUKE[1][1]
    assert bottom.direction == "down" and bottom.count == 4


# ---------------------------------------------------------------------------------------------
# Whole games


def lineup(game, rules, seat: int, opponent: str = "random"):
    """The heuristic bot in `seat`, the named bundled bot in every other seat."""
    other = load_spec(f"{BUNDLED_DIR / 'random_bot.py'}:RandomBot") if opponent == "random" else \
        load_spec(f"{BUNDLED_DIR / 'greedy.py'}:GreedyBot")
    bots = [other() for _ in range(game.players(rules))]
    bots[seat] = HeuristicBot()
    return bots


@pytest.mark.parametrize("game_id, overrides", VARIANTS, ids=VARIANT_IDS)
def test_plays_every_variant_cleanly_and_replays(game_id, overrides):
    """No faults in any seat, and the same seed gives the same transcript (the bot's only randomness
    is its rng)."""
    game = get_game(game_id)
    rules = make_rules(game.Rules, overrides)
    n = game.players(rules)
    for seed in range(2 * n):
        seat = seed % n
        opponent = "greedy" if seed == n else "random"
        played = referee.play(game, rules, lineup(game, rules, seat, opponent), seed)
        assert played.fault_seat is None, played.fault
        again = referee.play(game, rules, lineup(game, rules, seat, opponent), seed)
        names = [b.name for b in lineup(game, rules, seat, opponent)]
        first = referee.transcript(game, rules, names, seed, played)
        second = referee.transcript(game, rules, names, seed, again)
        assert json.dumps(first) == json.dumps(second)


def test_params_are_checked():
    with pytest.raises(TypeError):
        HeuristicBot(no_such_parameter=1)
    assert HeuristicBot(samples=4).params["samples"] == 4


# (game, rules, deals, least share of games won against random: measured well above)
BEATS_RANDOM = [
    ("caterpillar", {}, 20, 0.7),
    ("give_or_take", {}, 20, 0.7),
    ("go_for_it", {"players": 2}, 20, 0.8),
    ("go_for_it", {"players": 4}, 10, 0.6),
    ("duke_of_york", {}, 20, 0.65),
]


@pytest.mark.parametrize("game_id, overrides, deals, least", BEATS_RANDOM, ids=[row[0] for row in BEATS_RANDOM])
def test_beats_random(game_id, overrides, deals, least):
    """Every deal played with the heuristic bot in every seat (duplicate deals); it wins (rank 0
    alone) at least `least` of them, where random play would win about 1 / players."""
    game = get_game(game_id)
    rules = make_rules(game.Rules, overrides)
    n = game.players(rules)
    wins = games = 0
    for seed in range(1000, 1000 + deals):
        for seat in range(n):
            outcome = referee.play(game, rules, lineup(game, rules, seat), seed).outcome
            wins += outcome.ranks[seat] == 0 and outcome.ranks.count(0) == 1
            games += 1
    assert wins / games >= least
