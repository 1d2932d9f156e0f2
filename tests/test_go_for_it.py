"""Go For It (docs/rules.md, Go For It): table-driven rules tests and property tests."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import DECK, JOKER, card_names, parse_cards, shuffled_deck
from arena.games import MoveError, RulesError, make_rules, ranks_from_scores
from arena.games.go_for_it import rules as g

PP, PC, PT = ("play", "pass"), ("play", "claim"), ("play", "take")


def cards(text: str) -> list[int]:
    """Cards from space-separated names ('' for none)."""
    return parse_cards(text.split())


def deal(*piles: str, set_aside: str = "", max_decisions: int = 5000) -> g.State:
    """A game dealt with these piles (top first): seat 0 starts the first row at once."""
    rules = g.Rules(players=len(piles), max_decisions=max_decisions)
    return g._start(rules, [cards(p) for p in piles], cards(set_aside))


def position(row: str, *piles: str, turn: int = 0, passes: int = 0, max_decisions: int = 5000) -> g.State:
    """`turn` to decide on a standing row that it played last (or that others then passed on)."""
    rules = g.Rules(players=len(piles), max_decisions=max_decisions)
    last = (turn - passes) % len(piles)
    return g._start(rules, [cards(p) for p in piles], row=cards(row), last=last, passes=passes, turn=turn)


def names(cs) -> str:
    return " ".join(card_names(cs))


def total_cards(state: g.State) -> Counter:
    everything = [c for p in state.piles for c in p] + state.row + state.set_aside
    return Counter(everything + [c for w in state.winnings for c in w])


def pack(rules: g.Rules) -> Counter:
    return Counter(list(DECK) + [JOKER] * (g.JOKERS_ADDED.get(rules.players, 0) if rules.jokers else 0))


# ---------------------------------------------------------------- options and deal

def test_options_and_defaults():
    rules = g.Rules()
    assert (rules.players, rules.jokers, rules.max_decisions) == (4, False, 5000)  # docs/rules.md: Options
    assert (g.min_players, g.max_players) == (2, 6)
    assert g.players(make_rules(g.Rules, {"players": "6"})) == 6
    assert make_rules(g.Rules, {"jokers": "true"}).jokers is True
    assert make_rules(g.Rules, {"max_decisions": 1}).max_decisions == 1


@pytest.mark.parametrize("overrides", [{"players": 1}, {"players": 7}, {"max_decisions": 0}, {"jokers": "maybe"},
                                       {"decks": 2}], ids=str)
def test_bad_options(overrides):
    with pytest.raises(RulesError):
        make_rules(g.Rules, overrides)


# docs/rules.md, The deal: as far as they go evenly, the 52 mod n left over set aside; jokers 2/3/2 with 3/5/6
# players, none with 2 or 4.
DEAL_TABLE = [
    (2, False, 26, 0, 0), (2, True, 26, 0, 0),
    (3, False, 17, 1, 0), (3, True, 18, 0, 2),
    (4, False, 13, 0, 0), (4, True, 13, 0, 0),
    (5, False, 10, 2, 0), (5, True, 11, 0, 3),
    (6, False, 8, 4, 0), (6, True, 9, 0, 2),
]


@pytest.mark.parametrize("n, jokers, each, aside, n_jokers", DEAL_TABLE,
                         ids=[f"deal-{r[0]}p-jokers={r[1]}" for r in DEAL_TABLE])
def test_deal(n, jokers, each, aside, n_jokers):
    rules = g.Rules(players=n, jokers=jokers)
    for seed in range(5):
        state = g.new_state(rules, seed)
        (layout, moves), = g.deals(state)
        piles, set_aside = layout
        assert [len(p) for p in piles] == [each] * n and len(set_aside) == aside and moves == []
        assert sum(p.count(JOKER) for p in piles) + set_aside.count(JOKER) == n_jokers
        # one card at a time from seat 0: card i of the shuffled pack goes to seat i mod n (first = top)
        deck = shuffled_deck(seed, n_jokers)
        assert all(piles[i % n][i // n] == c for i, c in enumerate(deck[:each * n]))
        assert list(set_aside) == deck[each * n:]
        assert total_cards(state) == pack(rules)
        js = g.layout_json(layout)
        assert set(js) == {"piles", "set_aside"} and js["piles"][0] == card_names(piles[0])
        assert js["set_aside"] == card_names(set_aside)


def test_seat_0_starts_with_its_top_two_cards():
    # docs/rules.md, Starting a row: seat 0 starts the first row; turning up two cards is automatic, not a decision.
    for seed in range(30):
        state = g.new_state(g.Rules(), seed)
        top = g.deals(state)[0][0][0][0]
        if JOKER not in top[:2]:
            assert state.row == list(top[:2]) and state.last == 0 and state.decisions == 0
            assert g.to_move(state) == 0 and state.moves == []


# ---------------------------------------------------------------- starting a row

START_TABLE = [
    # id, piles, row after the deal, seat to move, legal, pile 0 after
    ("start-plain-play-or-pass", ("7C 9D 2S", "TC QD 3H"), "7C 9D", 0, PP, "2S"),
    ("start-pair-claim-or-play", ("7C 7D 2S", "TC QD 3H"), "7C 7D", 0, PC, "2S"),
    ("start-second-card-checked-in-full-run", ("7C 8D 2S", "TC QD 3H"), "7C 8D", 0, PP, "2S"),
    # first card a joker: only steps 1-2; the row (nothing else) stays, the joker to seat 1, who starts a row
    ("start-first-card-joker", ("JK 7C 2S", "TC QD 3H", "4C 6D 8S"), "TC QD", 1, PP, "7C 2S"),
    # second card a joker: the first card to the bottom of seat 0's pile, the joker to seat 1
    ("start-second-card-joker", ("7C JK 2S", "TC QD 3H", "4C 6D 8S"), "TC QD", 1, PP, "2S 7C"),
    # jokers chain: seat 1 also turns up a joker first, so seat 2 starts
    ("start-joker-chain", ("JK 7C 2S", "JK QD 3H", "4C 6D 8S"), "4C 6D", 2, PP, "7C 2S"),
]


@pytest.mark.parametrize("piles, row, turn, legal, pile0", [r[1:] for r in START_TABLE],
                         ids=[r[0] for r in START_TABLE])
def test_starting_a_row(piles, row, turn, legal, pile0):
    state = deal(*piles)
    assert names(state.row) == row and g.to_move(state) == turn and g.legal_moves(state) == legal
    assert names(state.piles[0]) == pile0 and state.decisions == 0


def test_joker_pile_bottoms_are_public():
    # docs/rules.md, Joker: row cards to the player's pile bottom in row order, joker to the left-hand neighbour's
    state = position("2C 5D", "6C 8D 9S", "TC QD 4S", "AH 3H 5H", turn=0)
    state.piles[0].insert(0, JOKER)
    state.unseen[0] += 1
    g.apply(state, "play")
    assert names(state.piles[0]) == "6C 8D 9S 2C 5D"
    assert names(state.row) == "TC QD" and g.to_move(state) == 1 and g.legal_moves(state) == PP
    assert names(state.piles[1]) == "4S JK"
    obs = g.observe(state, 2)
    assert obs.pile_known == (tuple(cards("2C 5D")), (JOKER,), ())
    assert obs.pile_sizes == (5, 2, 3) and obs.legal_moves == () and obs.turn == 1


# ---------------------------------------------------------------- after each card played

# id (docs/rules.md step), row before, card played, outcome: a legal pair (seat 0 still to decide on row + card),
# "take" (step 5: row taken up, seat 1 starts) or "win" (step 3: row won, seat 0 starts a new row)
STEP_TABLE = [
    ("6-plain", "2C 9D", "5H", PP),
    ("4-flush", "2H 9H", "KH", PC),
    ("4-not-flush", "2H 9H", "KS", PP),
    ("4-run-in-order", "3C 4D", "5H", PC),
    ("4-run-any-order", "5C 3D", "4H", PC),
    ("4-run-ace-low", "AC 2D", "3H", PC),
    ("4-run-faces", "JC KD", "QH", PC),
    ("4-run-no-wrap", "QC KD", "AH", PP),
    ("4-no-run-gap", "3C 5D", "8H", PP),
    ("4-flush-only-at-length-3", "2H 9H KH", "5H", PP),
    ("4-prime", "2C 5D 9H", "KS", PC),
    ("4-not-prime", "2C 5D 9H", "KD", PP),
    ("4-colour-red", "2H 5D 9H JD", "KH", PC),
    ("4-colour-black", "2C 5S 9C JS", "KC", PC),
    ("4-not-colour", "2H 5D 9H JD", "KC", PP),
    ("4-prime-only-at-length-4", "2C 5D 9H KS", "3C", PP),
    ("4-number", "AC 2D 3H 5S 7C", "TD", PC),
    ("4-number-no-faces", "AC 2D 3H 5S 7C", "JD", PP),
    ("4-number-six-ranks", "AC 2D 3H 5S 7C", "2H", "take"),  # not a number, and an intermediate pair
    ("4-colour-only-at-length-5", "2H 5D 9H JD KH", "3D", PP),
    ("4-pair-with-first-len3", "4C 9D", "4H", PC),
    ("4-pair-with-first-len5", "4C 2D 9H JS", "4D", PC),
    ("4-pair-with-previous-len5", "4C 2D 9H JS", "JD", PC),
    ("4-pair-with-first-len6", "4C 2D 9H JS 6C", "4D", PC),
    ("4-combination-before-intermediate-pair", "4C 9D 2S", "9H", PC),  # a prime though 9H pairs 9D
    ("4-colour-before-intermediate-pair", "2C 5S 9C JS", "5C", PC),  # a colour though 5C pairs 5S
    ("5-intermediate-pair-len4", "4C 9D 2C", "9H", "take"),
    ("5-intermediate-pair-len5", "4C 2D 9H JS", "2H", "take"),
    ("5-intermediate-pair-len6", "4C 2D 9H JS 6C", "9C", "take"),
    ("3-seven", "AC 3D 5H 7S 9C JD", "KH", "win"),
    ("3-seven-before-intermediate-pair", "AC 3D 5H 7S 9C JD", "3H", "win"),
    ("3-seven-before-pair-with-first", "AC 3D 5H 7S 9C JD", "AH", "win"),
]


@pytest.mark.parametrize("row, card, outcome", [r[1:] for r in STEP_TABLE], ids=[r[0] for r in STEP_TABLE])
def test_after_each_card_played(row, card, outcome):
    state = position(row, f"{card} 6C 8D 2S", "TC QD 3H", turn=0)
    g.apply(state, "play")
    played = cards(f"{row} {card}")
    if outcome == "take":  # taken up to the bottom in row order; the next player starts a new row
        assert state.piles[0] == cards("6C 8D 2S") + played and state.unseen[0] == 3
        assert names(state.row) == "TC QD" and g.to_move(state) == 1 and state.winnings == [[], []]
    elif outcome == "win":  # won; the winner starts a new row
        assert state.winnings[0] == played and names(state.row) == "6C 8D" and g.to_move(state) == 0
    else:
        assert state.row == played and g.to_move(state) == 0 and g.legal_moves(state) == outcome
        assert state.passes == 0 and state.last == 0


LAST_CARD_TABLE = [
    # docs/rules.md step 1 comes first: the last card of a pile ends the game, the row goes to that player
    ("1-last-card-plain", "2C 9D", "5H"),
    ("1-last-card-before-joker", "2C 9D", "JK"),
    ("1-last-card-before-seven", "AC 3D 5H 7S 9C JD", "KH"),
    ("1-last-card-before-combination", "2H 9H", "KH"),
    ("1-last-card-before-intermediate-pair", "4C 2D 9H JS", "2H"),
]


@pytest.mark.parametrize("row, card", [r[1:] for r in LAST_CARD_TABLE], ids=[r[0] for r in LAST_CARD_TABLE])
def test_last_card_ends_the_game(row, card):
    state = position(row, card, "TC QD 3H", "4S 5S", turn=0)
    g.apply(state, "play")
    assert g.to_move(state) is None and state.row == [] and state.piles[0] == []
    assert state.winnings[0] == cards(f"{row} {card}")
    n_won = len(state.winnings[0])
    assert g.result(state) == g.Outcome((n_won, -3, -2), (0, 2, 1), "normal")
    assert g.observe(state, 0).legal_moves == () and g.observe(state, 0).turn is None


@pytest.mark.parametrize("piles, won", [
    (("5C", "2D 3D", "4H"), "5C"),          # first card of a starting pair is the last card
    (("5C 5D", "2D 3D", "4H"), "5C 5D"),    # second card is the last one: the game ends, no claim
    (("JK", "2D 3D", "4H"), "JK"),          # a joker as the last card goes to the winnings too
], ids=["1-first-card-of-pair-last", "1-second-card-of-pair-last", "1-joker-last"])
def test_last_card_while_starting_a_row(piles, won):
    state = deal(*piles)
    assert g.to_move(state) is None and names(state.winnings[0]) == won
    assert g.result(state).termination == "normal"
    assert g.scores(state) == [len(state.winnings[0]), -2, -1]


# ---------------------------------------------------------------- claim, take, passing

def test_claim_wins_the_row_and_the_winner_starts():
    state = deal("7C 7D 2S 9H 4C", "TC QD 3H")
    g.apply(state, "claim")
    assert names(state.winnings[0]) == "7C 7D" and names(state.row) == "2S 9H"
    assert g.to_move(state) == 0 and g.scores(state) == [2 - 1, -3]


def test_forgo_a_combination_and_play_on():
    state = deal("7C 7D 7H 2S 4C", "TC QD 3H")
    g.apply(state, "play")  # 7H pairs the card before it: claim or play again
    assert names(state.row) == "7C 7D 7H" and g.legal_moves(state) == PC


def test_two_player_passing_example():
    # docs/rules.md, Passing: "With two players: A plays, A passes, B passes; A now plays or takes."
    state = deal("2C 9D 5H 6S", "TC QD 3H")
    assert g.legal_moves(state) == PP
    g.apply(state, "pass")
    assert (g.to_move(state), g.legal_moves(state), state.passes) == (1, PP, 1)
    g.apply(state, "pass")
    assert (g.to_move(state), g.legal_moves(state), state.passes) == (0, PT, 2)
    obs = g.observe(state, 1)
    assert (obs.passes, obs.last_player, obs.turn, obs.legal_moves) == (2, 0, 0, ())
    g.apply(state, "take")  # to the bottom of A's pile in row order; B starts a new row
    assert names(state.piles[0]) == "5H 6S 2C 9D" and state.unseen[0] == 2
    assert g.observe(state, 1).pile_known[0] == tuple(cards("2C 9D"))
    assert names(state.row) == "TC QD" and g.to_move(state) == 1 and state.passes == 0
    assert state.moves == [(0, "pass"), (1, "pass"), (0, "take")]


def test_play_after_a_round_of_passes():
    state = deal("2C 9D 5H 6S", "TC QD 3H")
    g.apply(state, "pass")
    g.apply(state, "pass")
    g.apply(state, "play")
    assert names(state.row) == "2C 9D 5H" and g.legal_moves(state) == PP and state.passes == 0


def test_passes_restart_with_whoever_plays():
    # three players: 0 passes, 1 plays on (now the last card's player), then 1, 2 and 0 pass: 1 plays or takes
    state = deal("2C 9D 5H 6S", "TC QD 3H", "4S 6H 8C")
    g.apply(state, "pass")
    g.apply(state, "play")
    assert names(state.row) == "2C 9D TC" and g.to_move(state) == 1 and state.passes == 0
    for seat in (1, 2, 0):
        assert g.to_move(state) == seat and g.legal_moves(state) == PP
        g.apply(state, "pass")
    assert g.to_move(state) == 1 and g.legal_moves(state) == PT and state.passes == 3
    g.apply(state, "take")
    assert names(state.piles[1]) == "QD 3H 2C 9D TC" and names(state.row) == "4S 6H" and g.to_move(state) == 2


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_full_round_of_passes_n_players(n):
    piles = ["2C 9D 5H 6S", "TC QD 3H", "4S 6H 8C", "AD 3C 5C", "7D 9S JC", "KC 2H 4D"][:n]
    state = deal(*piles)
    for i in range(n):
        assert g.to_move(state) == i and g.legal_moves(state) == PP
        g.apply(state, "pass")
    assert g.to_move(state) == 0 and g.legal_moves(state) == PT and state.passes == n


def test_position_after_passes_rebuilds_legal_moves():
    assert g.legal_moves(position("2C 9D", "5H", "TC QD", "4S 6H", turn=2, passes=2)) == PP
    assert g.legal_moves(position("2C 9D", "5H", "TC QD", "4S 6H", turn=0, passes=3)) == PT
    assert g.legal_moves(position("2H 9H KH", "5H", "TC QD", turn=0)) == PC
    assert g.legal_moves(position("2H 9H", "5H", "TC QD", turn=0)) == PP


# ---------------------------------------------------------------- max_decisions, score, result

def test_max_decisions_ends_with_move_limit():
    # docs/rules.md: when a decision is due and max_decisions have been made: move_limit; the row counts for nobody
    state = deal("2C 9D 5H 6S", "TC QD 3H", max_decisions=1)
    assert g.to_move(state) == 0
    g.apply(state, "pass")
    assert g.to_move(state) is None and g.legal_moves(state) == ()
    assert g.result(state) == g.Outcome((-2, -3), (0, 1), "move_limit")
    assert names(state.row) == "2C 9D" and g.observe(state, 1).turn is None


def test_max_decisions_normal_end_wins_over_limit():
    state = position("2C 9D", "5H", "TC QD 3H", max_decisions=1)
    g.apply(state, "play")
    assert g.result(state).termination == "normal"


def test_max_decisions_counts_every_decision():
    state = deal("2C 9D 5H 6S 8S", "TC QD 3H", max_decisions=3)
    for move in ("pass", "pass", "play"):
        g.apply(state, move)
    assert state.decisions == 3 and g.to_move(state) is None and g.result(state).termination == "move_limit"


@pytest.mark.parametrize("won, piles, expected", [
    ([5, 0, 3], [0, 4, 2], (5, -4, 1)),
    ([2, 2, 0, 0], [3, 3, 1, 0], (-1, -1, -1, 0)),
], ids=["score-won-minus-pile-3p", "score-ties-share-rank-4p"])
def test_score_and_ranks(won, piles, expected):
    n = len(won)
    state = g._start(g.Rules(players=n), [[2] * k for k in piles], termination="normal",
                     winnings=[[3] * k for k in won])
    assert tuple(g.scores(state)) == expected
    assert g.result(state).ranks == ranks_from_scores(expected)


# ---------------------------------------------------------------- notation, observation, misc

@pytest.mark.parametrize("text, move", [("play", "play"), (" PASS ", "pass"), ("Claim", "claim"), ("take", "take")])
def test_parse_move(text, move):
    assert g.parse_move(text) == move and g.parse_move(g.move_to_str(move)) == move


@pytest.mark.parametrize("text", ["", "fold", "pl ay", "7H"])
def test_parse_bad_move(text):
    with pytest.raises(MoveError):
        g.parse_move(text)


def test_observation_is_public_except_seat_and_legal_moves():
    state = g.new_state(g.Rules(players=3, jokers=True), 7)
    turn = g.to_move(state)
    obs = [g.observe(state, s) for s in range(3)]
    assert obs[turn].legal_moves == g.legal_moves(state)
    for o in obs:
        assert o._replace(seat=0, legal_moves=()) == obs[0]._replace(legal_moves=())
    assert isinstance(g.describe(state), str) and "row" in g.describe(state)


# ---------------------------------------------------------------- properties

def reshuffle_unseen(state: g.State, rng: random.Random) -> g.State:
    """The same game with every card nobody has seen (each pile's dealt part, the set-aside) redealt."""
    other = g.clone(state)
    hidden = [c for p, u in zip(other.piles, other.unseen, strict=True) for c in p[:u]] + other.set_aside
    rng.shuffle(hidden)
    at = 0
    for p, u in zip(other.piles, other.unseen, strict=True):
        p[:u] = hidden[at:at + u]
        at += u
    other.set_aside = hidden[at:]
    return other


def check_invariants(state: g.State) -> None:
    assert total_cards(state) == pack(state.rules)
    assert all(0 <= u <= len(p) for p, u in zip(state.piles, state.unseen, strict=True))
    assert state.decisions <= state.rules.max_decisions
    assert state.moves is None or len(state.moves) == state.decisions  # a sampled world records no moves
    if g.to_move(state) is not None:
        assert all(state.piles) and 2 <= len(state.row) <= 6 and JOKER not in state.row
        assert state.legal in (PP, PC, PT) and 0 <= state.passes <= state.rules.players


def play_game(rules: g.Rules, seed: int, policy_seed: int, stubborn: float, check=None) -> g.State:
    rng = random.Random(policy_seed)
    state = g.new_state(rules, seed)
    check_invariants(state)
    while (seat := g.to_move(state)) is not None:
        obs = g.observe(state, seat)
        if check:
            check(state, seat, obs, rng)
        moves = obs.legal_moves
        # a stubborn player passes and takes up, to reach the move limit now and then
        move = moves[1] if "claim" not in moves and rng.random() < stubborn else rng.choice(moves)
        g.apply(state, move)
        check_invariants(state)
    return state


rules_st = st.builds(g.Rules, players=st.integers(2, 6), jokers=st.booleans(),
                     max_decisions=st.one_of(st.integers(1, 80), st.just(5000)))
game_args = dict(rules=rules_st, seed=st.integers(0, 2**32), policy_seed=st.integers(0, 2**32),
                 stubborn=st.sampled_from([0.0, 0.5, 1.0]))


@settings(max_examples=80, deadline=None)
@given(**game_args)
def test_property_game_ends_conserves_cards_and_scores(rules, seed, policy_seed, stubborn):
    state = play_game(rules, seed, policy_seed, stubborn)
    out = g.result(state)
    expected = tuple(len(w) - len(p) for w, p in zip(state.winnings, state.piles, strict=True))
    assert out.scores == expected and out.ranks == ranks_from_scores(expected)
    if out.termination == "normal":  # someone played their last card and won the row
        assert state.row == [] and state.piles.count([]) == 1 and state.decisions <= rules.max_decisions
        in_piles = sum(len(p) for p in state.piles)
        assert sum(out.scores) == sum(pack(rules).values()) - len(state.set_aside) - 2 * in_piles
    else:
        assert out.termination == "move_limit" and state.decisions == rules.max_decisions and all(state.piles)
    (layout, moves), = g.deals(state)
    assert moves == state.moves and len(moves) == state.decisions
    assert all(g.parse_move(g.move_to_str(m)) == m for _, m in moves)


@settings(max_examples=50, deadline=None)
@given(**game_args)
def test_property_same_seed_same_game(rules, seed, policy_seed, stubborn):
    first = play_game(rules, seed, policy_seed, stubborn)
    random.seed(12345)
    random.random()
    second = play_game(rules, seed, policy_seed, stubborn)
    assert g.deals(first) == g.deals(second) and g.result(first) == g.result(second)
    assert g.layout_json(g.deals(first)[0][0]) == g.layout_json(g.deals(second)[0][0])


# The leak checks run at a third of the decisions: a stubborn game that reaches 5,000 decisions would take a
# minute of them, where 300 leave room for the games that end normally.
leak_args = {**game_args, "rules": st.builds(g.Rules, players=st.integers(2, 6), jokers=st.booleans(),
                                             max_decisions=st.one_of(st.integers(1, 80), st.just(300)))}


@settings(max_examples=60, deadline=None)
@given(**leak_args, probe=st.integers(0, 2**32))
def test_property_no_leaks_and_sample_world(rules, seed, policy_seed, stubborn, probe):
    probe_rng = random.Random(probe)
    n = rules.players

    def check(state, seat, obs, rng):
        if probe_rng.random() < 0.65:  # a third of the decisions: a leak shows at any of them
            return
        other = reshuffle_unseen(state, probe_rng)
        for s in range(n):
            assert g.observe(other, s) == g.observe(state, s)
        watcher = probe_rng.randrange(n)
        watched = g.observe(state, watcher)
        world = g.sample_world(watched, random.Random(probe_rng.random()))
        assert g.observe(world, watcher) == watched
        # everything observed is public, so every seat sees the sampled world as it sees the real one
        assert all(g.observe(world, s) == g.observe(state, s) for s in range(n))
        assert total_cards(world) == pack(rules) and world.unseen == state.unseen
        assert len(world.set_aside) == len(state.set_aside)
        world_rng = random.Random(probe_rng.random())
        for played in range(1, 6):  # the sampled world plays on
            if g.to_move(world) is None:
                break
            g.apply(world, world_rng.choice(g.legal_moves(world)))
            check_invariants(world)
            assert world.decisions == watched.decisions + played
        assert g.deals(world) == [(None, [])]  # it keeps no record of its moves

    state = play_game(rules, seed, policy_seed, stubborn, check)
    for s in range(n):  # and the finished game
        obs = g.observe(state, s)
        world = g.sample_world(obs, random.Random(probe))
        assert g.observe(world, s) == obs and g.result(world) == g.result(state)
