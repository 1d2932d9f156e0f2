"""Caterpillar rules, table-driven, each row citing docs/rules.md (section Caterpillar)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import DECK, IS_FACE, NAME, card_names, parse_cards
from arena.games.caterpillar import rules as cat

RULES = cat.Rules()


def position(hand0, hand1, played="", stock="", scores=(0, 0)):
    """A position from card names; the seat to move follows from how many cards were played."""
    return cat._start(RULES, [parse_cards(hand0.split()), parse_cards(hand1.split())],
                      parse_cards(stock.split()), parse_cards(played.split()), list(scores))


# (docs/rules.md line, played so far, hand of the seat to move, expected legal plays)
LEGAL = [
    ("the first card of the game may be any card", "", "7H KS 2C", "7H KS 2C"),
    ("after that: any face card, or a numeral of the suit played just before", "3C", "7H KS 2C 9C", "KS 2C 9C"),
    ("the suit to follow is the last card's, also when it is a face card", "3C QD", "7H KS 2C 9D", "KS 9D"),
    ("a numeral of another suit is never legal after the first card", "AS", "2H 3D 4C", ""),
]


@pytest.mark.parametrize("rule, played, hand, legal", LEGAL, ids=[row[0] for row in LEGAL])
def test_legal_plays(rule, played, hand, legal):
    other = "5H 6H 7H 8H" if "AS" not in played else "5H JH"
    seat_hands = (hand, other) if len(played.split()) % 2 == 0 else (other, hand)
    state = position(*seat_hands, played=played, stock="2S")
    if legal:
        assert card_names(cat.legal_moves(state)) == legal.split()
    else:
        assert cat.to_move(state) is None and state.termination == "court_short"


# (docs/rules.md line, played so far, card played, total after, points scored by the player)
SCORING = [
    ("numeral: T += pip; T % 5 == 0 scores T", "3C", "7C", 10, 10),
    ("numeral: T not a multiple of five scores nothing", "3C", "8C", 11, 0),
    ("A = 1", "3C", "AC", 4, 0),
    ("an ace completing a multiple of five scores it", "4C", "AC", 5, 5),
    ("seed: a first card Five scores 5", "", "5D", 5, 5),
    ("seed: a first card Ten scores 10", "", "TD", 10, 10),
    ("face card: T unchanged, scores T if T % 5 == 0 and same suit as the card before", "5C", "KC", 5, 5),
    ("face card of another suit scores nothing", "5C", "KD", 5, 0),
    ("face card of the same suit on a total not a multiple of five scores nothing", "4C", "JC", 4, 0),
    ("a first card that is a face card scores nothing", "", "QH", 0, 0),
    ("a total of 0 scores 0 (face on face, same suit)", "KC", "QC", 0, 0),
    ("J, Q, K add nothing to the total", "2C 8C", "JD", 10, 0),
    ("a face card after a face card of its suit on a multiple of five scores T", "5S JS", "QS", 5, 5),
]


@pytest.mark.parametrize("rule, played, card, total, points", SCORING, ids=[row[0] for row in SCORING])
def test_scoring_a_play(rule, played, card, total, points):
    hands = (card + " 2H", "3H 4H") if len(played.split()) % 2 == 0 else ("3H 4H", card + " 2H")
    state = position(*hands, played=played, stock="9H 9D", scores=(1000, 2000))
    seat = cat.to_move(state)
    before = state.scores[seat]
    cat.apply(state, parse_cards([card])[0])
    assert state.total == total
    assert state.scores[seat] - before == points
    assert state.scores[1 - seat] == (1000, 2000)[1 - seat]


def test_turn_draws_top_of_stock_and_alternates():
    """A turn: play one card, then draw the top card of the stock; turns alternate."""
    state = position("7H 8C", "2H 3S", stock="KD 4D")
    cat.apply(state, parse_cards(["7H"])[0])
    assert card_names(state.hands[0]) == ["8C", "KD"] and card_names(state.stock) == ["4D"]
    assert cat.to_move(state) == 1


def test_normal_end_scores_face_cards_in_own_hand():
    """Normal end: after the 26th play each player adds 100 for every face card in their own hand."""
    played = " ".join(NAME[c] for c in range(1, 26))  # 25 cards: ace..king of clubs, ace..queen of diamonds
    state = position("KH JS 2H", "AC QH KS 3H", played=played, stock="4H", scores=(40, 50))
    assert cat.to_move(state) == 1
    cat.apply(state, parse_cards(["QH"])[0])  # the 26th play (a face card: legal after QD)
    outcome = cat.result(state)
    assert outcome.termination == "normal" and cat.to_move(state) is None
    assert outcome.scores == (40 + 200, 50 + 100)  # seat 1 drew 4H and kept KS: one face card
    assert outcome.ranks == (0, 1)


def test_court_short_scores_other_players_face_cards():
    """Court short: the player to move holds no legal card; play stops; it scores 100 per face card
    in the other hand, and the other player scores nothing for them."""
    state = position("2C KS", "3H 4H", played="", stock="5D 6D", scores=(0, 0))
    cat.apply(state, parse_cards(["2C"])[0])  # seat 1 holds no club and no face card
    outcome = cat.result(state)
    assert outcome.termination == "court_short"
    assert outcome.scores == (0, 100)  # seat 0 holds KS (and drew 5D)
    assert outcome.ranks == (1, 0)


def test_equal_scores_share_rank():
    """Result: a seat's rank is the number of seats with a strictly higher score."""
    state = position("2C", "3H", played="", stock="", scores=(0, 0))
    cat.apply(state, parse_cards(["2C"])[0])  # seat 1 court short, no face cards anywhere
    assert cat.result(state).ranks == (0, 0)


def play_random(seed: int, rng_seed: int):
    state = cat.new_state(RULES, seed)
    rng = random.Random(rng_seed)
    while (seat := cat.to_move(state)) is not None:
        cat.apply(state, rng.choice(cat.observe(state, seat).legal_moves))
    return state


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), rng_seed=st.integers(0, 2**32))
def test_random_games_keep_the_rules(seed, rng_seed):
    """Cards are conserved, the game ends after at most 26 plays, and the scores add up."""
    state = cat.new_state(RULES, seed)
    rng = random.Random(rng_seed)
    expected = [0, 0]
    while (seat := cat.to_move(state)) is not None:
        assert sorted(state.hands[0] + state.hands[1] + state.stock + state.caterpillar) == list(DECK)
        card = rng.choice(cat.legal_moves(state))
        total = state.total + cat.PIP[card]
        same_suit = state.caterpillar and card // 13 == state.caterpillar[-1] // 13
        if total % 5 == 0 and (not IS_FACE[card] or same_suit):
            expected[seat] += total
        cat.apply(state, card)
        assert len(state.caterpillar) <= 26
    faces = [sum(IS_FACE[c] for c in hand) for hand in state.hands]
    if state.termination == "normal":
        assert len(state.caterpillar) == 26 and not state.stock
        expected = [expected[0] + 100 * faces[0], expected[1] + 100 * faces[1]]
    else:
        short = state.turn
        assert state.termination == "court_short" and not cat.legal_moves(state)
        expected[short] += 100 * faces[1 - short]
    assert list(cat.result(state).scores) == expected
