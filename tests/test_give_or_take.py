"""Give or Take against docs/rules.md, section "Give or Take": table-driven rules tests on exact positions,
then hypothesis properties over random seeds and random legal play."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import DECK, parse_card, parse_cards, shuffled_deck
from arena.games import MoveError, Outcome, RulesError, get_game, make_rules
from arena.games.give_or_take import rules as g

DEFAULT = g.Rules()
MULTIPLY = g.Rules(multiply=True)
ALL_RULES = [g.Rules(), g.Rules(multiply=True), g.Rules(target=30, max_deals=3),
             g.Rules(target=1, multiply=True, max_deals=1), g.Rules(target=500, max_deals=2)]


def pos(hand0: str, hand1: str, turn_up: str, played: str = "", scores=(0, 0), rules=DEFAULT, deal=0, seed=0):
    """A position: current hands and this deal's plays written as `seat:move` words (`0:7H+ 1:KSk`)."""
    plays = []
    for word in played.split():
        seat, move = word.split(":")
        card, op = g.parse_move(move)
        plays.append((int(seat), card, op))
    return g._start(rules, [parse_cards(hand0.split()), parse_cards(hand1.split())], parse_card(turn_up),
                    plays, scores, deal=deal, seed=seed)


def legal(state) -> list[str]:
    return [g.move_to_str(m) for m in g.legal_moves(state)]


def play(state, *moves: str) -> None:
    for text in moves:
        move = g.parse_move(text)
        assert move in g.legal_moves(state), (text, legal(state))
        g.apply(state, move)


# docs/rules.md, Values / A play / Option multiply: (id, turn_up, plays so far, hand of the seat to move, rules, legal)
LEGAL_ROWS = [
    ("add: v > c", "3C", "", "7H", DEFAULT, ["7H+"]),
    ("divide: v < c, c % v == 0", "8C", "", "4H", DEFAULT, ["4H/"]),
    ("subtract: v < c, no exact division", "9C", "", "4H", DEFAULT, ["4H-"]),
    ("equal: add, subtract or divide", "5C", "", "5H", DEFAULT, ["5H+", "5H-", "5H/"]),
    ("Queen on 0 offers + and -", "QC", "", "QH", DEFAULT, ["QH+", "QH-"]),
    ("Queen below the count: no dividing by 0, subtract", "5C", "", "QH", DEFAULT, ["QH-"]),
    ("Ace on a count above 1 always divides", "7C", "", "AH", DEFAULT, ["AH/"]),
    ("Ace on count 1 is equal: + - /", "AC", "", "AH", DEFAULT, ["AH+", "AH-", "AH/"]),
    ("Ace on count 0 adds", "KC", "", "AH", DEFAULT, ["AH+"]),
    ("King: the King action only", "7C", "", "KH", DEFAULT, ["KHk"]),
    ("Jack copies the turn-up's value", "7C", "", "JH", DEFAULT, ["JH+", "JH-", "JH/"]),
    ("Jack after a turned-up J: value 0", "JC", "", "JH", DEFAULT, ["JH+", "JH-"]),
    ("Jack after a turned-up K acts as a King", "KC", "", "JH", DEFAULT, ["JHk"]),
    ("Jack after a played King acts as a King", "4C", "0:KDk", "JH", DEFAULT, ["JHk"]),
    ("Jack after a Jack acting as a King acts as a King", "KC", "0:JDk", "JH", DEFAULT, ["JHk"]),
    ("Jack after a Jack copying 4 copies 4 (count 8)", "4C", "0:JD+", "JH", DEFAULT, ["JH/"]),
    ("Jack after a Queen copies 0", "6C", "0:QD-", "JH", DEFAULT, ["JH-"]),
    ("hand order, then op order", "3C", "", "9S 3H KD", DEFAULT, ["9S+", "3H+", "3H-", "3H/", "KDk"]),
    ("multiply offered in addition, c*v <= 20", "4C", "", "5H", MULTIPLY, ["5H+", "5H*"]),
    ("multiply not offered when c*v > 20", "4C", "", "6H", MULTIPLY, ["6H+"]),
    ("multiply offered on count 0", "QC", "", "7H", MULTIPLY, ["7H+", "7H*"]),
    ("multiply with a Queen (value 0)", "5C", "", "QH", MULTIPLY, ["QH-", "QH*"]),
    ("multiply with an equal card, same count as +", "2C", "", "2H", MULTIPLY, ["2H+", "2H-", "2H/", "2H*"]),
    ("Ace on count 1 with multiply (same count as /)", "AC", "", "AH", MULTIPLY, ["AH+", "AH-", "AH/", "AH*"]),
    ("Ace dividing with multiply", "9C", "", "AH", MULTIPLY, ["AH/", "AH*"]),
    ("no multiply for a King", "4C", "", "KH", MULTIPLY, ["KHk"]),
    ("no multiply for a Jack acting as a King", "KC", "", "JH", MULTIPLY, ["JHk"]),
    ("multiply for a Jack copying a value", "3C", "", "JH", MULTIPLY, ["JH+", "JH-", "JH/", "JH*"]),
    ("multiply for a Jack copying 0", "JC", "", "JH", MULTIPLY, ["JH+", "JH-", "JH*"]),
]


@pytest.mark.parametrize("turn_up, played, hand, rules, expected",
                         [row[1:] for row in LEGAL_ROWS], ids=[row[0] for row in LEGAL_ROWS])
def test_legal_moves(turn_up, played, hand, rules, expected):
    # the seat to move is seat 1 after one play, seat 0 otherwise (deal 0: seat 0 leads)
    other = "2S 3S 4S"
    hands = (other, hand) if played else (hand, other)
    state = pos(*hands, turn_up, played, rules=rules)
    assert legal(state) == expected


# docs/rules.md, A play / Values: (id, turn_up, plays, resulting count)
COUNT_ROWS = [
    ("starting count: numeral", "7C", "", 7),
    ("starting count: Ace 1", "AC", "", 1),
    ("starting count: Ten 10", "TC", "", 10),
    ("starting count: Queen 0", "QC", "", 0),
    ("starting count: Jack 0", "JC", "", 0),
    ("starting count: King 0", "KC", "", 0),
    ("add", "3C", "0:7H+", 10),
    ("divide", "8C", "0:4H/", 2),
    ("subtract", "9C", "0:4H-", 5),
    ("equal: add doubles", "5C", "0:5H+", 10),
    ("equal: subtract gives 0", "5C", "0:5H-", 0),
    ("equal: divide gives 1", "5C", "0:5H/", 1),
    ("Queen on 0 stays 0", "QC", "0:QH+", 0),
    ("Ace divides: count unchanged", "7C", "0:AH/", 7),
    ("King halves an even count", "8C", "0:KHk", 4),
    ("King doubles an odd count", "7C", "0:KHk", 14),
    ("King on 0 stays 0", "QC", "0:KHk", 0),
    ("turned-up King: count 0, then a King keeps 0", "KC", "0:KHk", 0),
    ("Jack copies a numeral (6 on 6 + = 12)", "6C", "0:JH+", 12),
    ("Jack after a King halves (8 -> 4 -> 2)", "8C", "0:KHk 1:JDk", 2),
    ("Jack after a turned-up King: King action on 0", "KC", "0:JHk", 0),
    ("Jack after a played King doubles (7 -> 14 -> 7)", "7C", "0:KHk 1:JDk", 7),
    ("Jack after Jack-as-King (5 -> 10 -> 5 -> 10)", "5C", "0:KHk 1:JDk 0:JSk", 10),
    ("Jack after Jack copying 4: 4 -> 8 -> 2", "4C", "0:JD+ 1:JH/", 2),
    ("multiply", "4C", "0:5H*", 20),
    ("multiply on 0", "QC", "0:7H*", 0),
]


@pytest.mark.parametrize("turn_up, played, count", [r[1:] for r in COUNT_ROWS], ids=[r[0] for r in COUNT_ROWS])
def test_count(turn_up, played, count):
    # each seat holds the cards it will play plus a spare card, so the deal does not end;
    # every play is checked against legal_moves, so no illegal op slips through
    words = [(int(w.split(":")[0]), w.split(":")[1]) for w in played.split()]
    used = {parse_card(turn_up)} | {g.parse_move(m)[0] for _, m in words}
    spare = [c for c in parse_cards("2S 3S 4S 5S 2D 3D".split()) if c not in used]
    hands = [[g.parse_move(m)[0] for s, m in words if s == seat] + [spare[seat]] for seat in (0, 1)]
    state = g._start(MULTIPLY, hands, parse_card(turn_up))
    assert state.count == g.BASE[parse_card(turn_up)]
    for seat, move in words:
        assert g.to_move(state) == seat
        play(state, move)
    assert state.count == count
    assert g.observe(state, 0).count == count


def test_count_by_walk_matches_apply():
    # _start walks the plays with the same arithmetic as apply
    state = pos("2S", "2D", "5C", "0:KHk 1:JDk 0:JSk")
    assert (state.count, state.prev) == (10, g.KING_ACT)


# docs/rules.md, Bonuses: (id, turn_up, plays before, hands (seat to move first), move, score change)
BONUS_ROWS = [
    ("same rank as the turn-up: player +10", "7C", "", "7H", "7H+", (10, 0)),
    ("same suit as the turn-up: opponent +10", "7C", "", "3C", "3C-", (0, 10)),
    ("neither: nothing", "7C", "", "3H", "3H-", (0, 0)),
    ("same rank as the card just played", "7C", "0:4H-", "4D", "4D+", (10, 0)),
    ("same suit as the card just played", "7C", "0:4H-", "9H", "9H+", (0, 10)),
    ("only the card just before counts, not the turn-up", "7C", "0:4H-", "7D", "7D+", (0, 0)),
    ("a Jack after a Jack is the same rank", "KC", "0:JDk", "JH", "JHk", (10, 0)),
    ("a Jack on a turned-up King of its suit: opponent +10", "KC", "", "JC", "JCk", (0, 10)),
    ("King on a turned-up King: same rank", "KC", "", "KH", "KHk", (10, 0)),
]


@pytest.mark.parametrize("turn_up, played, hand, move, delta",
                         [r[1:] for r in BONUS_ROWS], ids=[r[0] for r in BONUS_ROWS])
def test_bonuses(turn_up, played, hand, move, delta):
    other = "2S 3S 5S"
    hands = (other, hand + " 6S") if played else (hand + " 6D", other)
    state = pos(*hands, turn_up, played, scores=(5, 5))
    mover = g.to_move(state)
    before = g.scores(state)
    play(state, move)
    gained = [after - b for after, b in zip(g.scores(state), before, strict=True)]
    # delta is (mover, opponent)
    assert (gained[mover], gained[1 - mover]) == delta


# docs/rules.md, End of a deal: (id, turn_up, plays, hands left (seat 0, seat 1), last moves, final scores).
# Scores include the bonuses of the plays given (checked by hand in each comment).
END_ROWS = [
    # seat 0: 6S+ 6 -> 12 (same rank +10 to seat 0), L=6 C=12 -> seat 1 scores 36;
    # seat 1: 2C/ 12 -> 6, L=2 C=6 -> seat 0 scores 16 (the seed example)
    ("seed example: a last 2 making 6 gives the opponent 16", "6D", "", ("6S", "2C"), ["6S+", "2C/"], (10 + 16, 36)),
    # seat 0: 3S+ 0 -> 3 (the seed's "a 3 making 3": L = C, seat 1 scores 0, seat 0 a 10 bonus);
    # seat 1: 3C- 3 -> 0: same rank +10 to seat 1, L=3 C=0 -> seat 0 scores 9
    ("seed example: a 3 making 3 gives 0 and a 10 bonus", "QD", "", ("3S", "3C"), ["3S+", "3C-"], (10 + 9, 10)),
    # seat 0: JSk on turned-up K: count 0, L=0 C=0 -> +10 to seat 0; seat 1: KHk 0 -> 0, L=0 C=0 -> +10
    ("J and K count 0 as a last card", "KD", "", ("JS", "KH"), ["JSk", "KHk"], (10, 10)),
    # count 6 -> 12 -> 6; seat 0: 6S/ 6 -> 1 (L=6 C=1: seat 1 25); seat 1: 3C+ 1 -> 4 (L=3 C=4: seat 0 1)
    ("only the last play of each seat scores", "6D", "0:6H+ 1:2C/", ("6S", "3C"), ["6S/", "3C+"], (1, 25)),
    # seat 0: 9S+ 1 -> 10 (L=9 C=10: seat 1 1); seat 1: TC+ equal 10 -> 20 (L=10 C=20: seat 0 100)
    ("squares of the differences", "AD", "", ("9S", "TC"), ["9S+", "TC+"], (100, 1)),
    # seat 0: QS- 5 -> 5 (L=0, C=5: seat 1 25); seat 1: JH copies Q=0: 0 < 5 subtract 5 (L=0: seat 0 25)
    ("a Jack last counts 0, not what it copied", "5D", "", ("QS", "JH"), ["QS-", "JH-"], (25, 25)),
    # seat 0: AS/ 9 -> 9 (L=1, C=9: seat 1 64); seat 1: 9H- 9 -> 0 (no bonus vs AS; L=9 C=0: seat 0 81)
    ("Ace last: L = 1", "9D", "", ("AS", "9H"), ["AS/", "9H-"], (81, 64)),
]


@pytest.mark.parametrize("turn_up, played, hands, moves, final", [r[1:] for r in END_ROWS],
                         ids=[r[0] for r in END_ROWS])
def test_end_of_deal(turn_up, played, hands, moves, final):
    state = pos(*hands, turn_up, played, rules=g.Rules(target=1000))
    play(state, *moves)
    assert g.scores(state) == list(final)
    assert state.deal == 1 and state.played == []  # the next deal is dealt at once


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_end_of_deal_after_twelve_plays(seed):
    # a full deal from the seed: the deal ends after the 12th play (6 each), the last cards scored
    state = g.new_state(g.Rules(target=10_000), seed)
    rng = random.Random(seed)
    for _ in range(11):
        g.apply(state, rng.choice(g.legal_moves(state)))
    assert state.deal == 0 and len(state.played) == 11 and g.to_move(state) == 1
    assert len(state.hands[0]) == 0 and len(state.hands[1]) == 1
    lead_value, lead_count = state.final[0]  # seat 0's last card and the count it made
    card, op = move = g.legal_moves(state)[0]
    count = g.step(state.count, g.effective_value(card, state.prev), op)
    expected = g.scores(state)
    if g.RANK[card] == g.RANK[state.prev_card]:
        expected[1] += 10
    elif g.SUIT[card] == g.SUIT[state.prev_card]:
        expected[0] += 10
    expected[1] += (lead_count - lead_value) ** 2
    expected[0] += 10 if lead_count == lead_value else 0
    expected[0] += (count - g.BASE[card]) ** 2
    expected[1] += 10 if count == g.BASE[card] else 0
    g.apply(state, move)
    assert g.scores(state) == expected
    assert state.deal == 1 and state.dealer == 0 and g.to_move(state) == 1  # seat 0 deals deal 1, seat 1 leads
    last = g.deals(state)[0][1]
    assert len(last) == 12 and last[-1] == (1, move)


# docs/rules.md, End of the game: (id, rules, scores before, deal, final plays' delta, termination or None = plays on)
# The last two cards: seat 0 3S+ on QD (0 -> 3, L = C: seat 0 +10), seat 1 3C- (3 -> 0, same rank +10, seat 0 +9).
# So a deal ends with (+19, +10).
GAME_ROWS = [
    ("below the target: next deal", g.Rules(target=101), (50, 50), 0, None),
    ("seat 0 reaches the target: normal", g.Rules(target=101), (90, 50), 0, "normal"),
    ("seat 1 reaches the target: normal", g.Rules(target=101), (50, 95), 0, "normal"),
    ("both reach it, unequal: normal", g.Rules(target=101), (95, 95), 0, "normal"),
    ("reached but tied: another deal", g.Rules(target=101), (91, 100), 0, None),
    ("exactly the target (>=)", g.Rules(target=69), (50, 0), 0, "normal"),
    ("one short of the target", g.Rules(target=70), (50, 0), 0, None),
    ("max_deals reached unsettled: deal_limit", g.Rules(max_deals=1), (0, 0), 0, "deal_limit"),
    ("max_deals reached while tied above target: deal_limit", g.Rules(max_deals=3), (91, 100), 2, "deal_limit"),
    ("settled in the last allowed deal: normal", g.Rules(max_deals=3), (90, 50), 2, "normal"),
    ("before the last allowed deal: plays on", g.Rules(max_deals=2), (0, 0), 0, None),
]


@pytest.mark.parametrize("rules, start, deal, termination", [r[1:] for r in GAME_ROWS], ids=[r[0] for r in GAME_ROWS])
def test_end_of_game(rules, start, deal, termination):
    state = pos("3S", "3C", "QD", scores=start, rules=rules, deal=deal)
    play(state, "3S+", "3C-")
    assert g.scores(state) == [start[0] + 19, start[1] + 10]
    assert state.termination == termination
    if termination is None:
        assert state.deal == deal + 1 and g.to_move(state) == state.deal % 2
        assert len(g.deals(state)) == 2 and len(g.legal_moves(state)) >= 6
    else:
        assert g.to_move(state) is None and g.legal_moves(state) == ()
        assert g.observe(state, 0).legal_moves == g.observe(state, 1).legal_moves == ()
        out = g.result(state)
        assert out.termination == termination and list(out.scores) == g.scores(state)
        assert out.ranks == tuple(sum(o > m for o in out.scores) for m in out.scores)


def test_end_of_game_result_ranks():
    state = pos("3S", "3C", "QD", scores=(90, 50))
    play(state, "3S+", "3C-")
    assert g.result(state) == Outcome((109, 60), (0, 1), "normal")


def test_target_not_checked_mid_deal():
    # docs/rules.md: the game ends after a deal, not when a bonus takes a total past the target mid-deal
    state = pos("7H 2S", "4D 2C", "7C", scores=(100, 0))
    play(state, "7H+")
    assert state.scores[0] == 110 and g.to_move(state) == 1


# docs/rules.md: deal k is dealt by seat (k + 1) % 2, the other leads; a full pack shuffled afresh for every deal
@pytest.mark.parametrize("seed", [0, 1, 12345, 2**40 + 3])
def test_deals_follow_the_seed(seed):
    state = g.new_state(g.Rules(target=10_000, max_deals=4), seed)
    rng = random.Random(seed)
    while g.to_move(state) is not None:
        g.apply(state, rng.choice(g.legal_moves(state)))
    assert state.termination == "deal_limit"
    entries = g.deals(state)
    assert len(entries) == 4
    for k, ((dealer, hands, turn_up), moves) in enumerate(entries):
        deck = shuffled_deck(f"{seed}:{k}")
        assert dealer == (k + 1) % 2
        assert hands == (tuple(deck[:6]), tuple(deck[6:12])) and turn_up == deck[12]
        assert [s for s, _ in moves] == [k % 2, 1 - k % 2] * 6  # the non-dealer leads, turns alternate
        assert sorted(c for _, (c, _) in moves) == sorted(deck[:12])
        assert g.layout_json((dealer, hands, turn_up)) == {
            "dealer": dealer, "hands": [[g.NAME[c] for c in h] for h in hands], "turn_up": g.NAME[deck[12]]}


def test_new_state_observation():
    state = g.new_state(DEFAULT, 5)
    deck = shuffled_deck("5:0")
    obs = g.observe(state, 0)
    assert obs.seat == 0 and obs.rules == DEFAULT and obs.deal == 0 and obs.dealer == 1
    assert obs.hand == tuple(deck[:6]) and obs.turn_up == deck[12] and obs.count == g.BASE[deck[12]]
    assert obs.played == () and obs.scores == (0, 0) and obs.opponent_hand_size == 6
    assert obs.legal_moves == g.legal_moves(state) and g.observe(state, 1).legal_moves == ()
    assert g.observe(state, 1).hand == tuple(deck[6:12])


def test_observation_fields_mid_deal():
    state = pos("5S 6S", "JD 2C", "KC", "0:4S+ 1:KHk 0:AS/", deal=0)
    obs = g.observe(state, 1)
    assert obs.played == ((0, parse_card("4S"), "+"), (1, parse_card("KH"), "k"), (0, parse_card("AS"), "/"))
    assert obs.count == 2 and not obs.last_king and obs.last_value == 1
    assert obs.opponent_hand_size == 2 and obs.legal_moves == g.legal_moves(state)
    king = pos("5S", "JD", "KC")
    assert g.observe(king, 0).last_king and g.observe(king, 0).last_value == 0


# docs/rules.md, Move notation
@pytest.mark.parametrize("text, move", [("7H+", (parse_card("7H"), "+")), ("5C/", (parse_card("5C"), "/")),
                                        ("KSk", (parse_card("KS"), "k")), ("JDk", (parse_card("JD"), "k")),
                                        ("TD-", (parse_card("TD"), "-")), ("qh*", (parse_card("QH"), "*")),
                                        (" AS/ ", (parse_card("AS"), "/"))])
def test_parse_move(text, move):
    assert g.parse_move(text) == move
    assert g.parse_move(g.move_to_str(move)) == move


@pytest.mark.parametrize("text", ["", "7H", "7H=", "10H+", "XX+", "+", "7H+ +", "JK+"])
def test_parse_move_errors(text):
    with pytest.raises(MoveError):
        g.parse_move(text)


def test_every_move_round_trips():
    for card in DECK:
        for op in g.OPS:
            assert g.parse_move(g.move_to_str((card, op))) == (card, op)


# docs/rules.md, Options: target >= 1, multiply bool, max_deals >= 1
@pytest.mark.parametrize("overrides, expected", [
    ({}, g.Rules(101, False, 50)),
    ({"target": "30", "multiply": "true", "max_deals": "2"}, g.Rules(30, True, 2)),
    ({"target": 1, "max_deals": 1}, g.Rules(1, False, 1)),
])
def test_rules_options(overrides, expected):
    assert make_rules(g.Rules, overrides) == expected


@pytest.mark.parametrize("overrides", [{"target": 0}, {"max_deals": 0}, {"multiply": "maybe"}, {"deals": 3}])
def test_rules_options_rejected(overrides):
    with pytest.raises(RulesError):
        make_rules(g.Rules, overrides)


def test_registry_and_protocol():
    assert get_game("give_or_take") is g
    assert g.id == "give_or_take" and g.min_players == g.max_players == 2 and g.players(DEFAULT) == 2
    assert "count" in g.describe(g.new_state(DEFAULT, 1))


# ---------------------------------------------------------------- properties over random play

def _deal_cards(state) -> tuple[int, ...]:
    return tuple(sorted(state.hands[0] + state.hands[1] + [c for _, c, _ in state.played] + [state.turn_up]))


def _check_invariants(state) -> None:
    # cards conserved: this deal's hands, its plays and the turn-up are the 13 dealt cards, each once
    dealer, layout_hands, turn_up = g.deals(state)[-1][0]
    assert turn_up == state.turn_up and dealer == state.dealer == (state.deal + 1) % 2
    assert _deal_cards(state) == tuple(sorted(layout_hands[0] + layout_hands[1] + (turn_up,)))
    assert len(set(_deal_cards(state))) == 13
    for seat in (0, 1):
        mine = [c for s, c, _ in state.played if s == seat]
        assert sorted(mine + state.hands[seat]) == sorted(layout_hands[seat])
    if state.termination is None:
        assert len(state.hands[0]) + len(state.hands[1]) + len(state.played) == 12
        assert state.hands[state.turn]


def _random_game(rules, seed, rng, at=None):
    state = g.new_state(rules, seed)
    n = 0
    while (seat := g.to_move(state)) is not None:
        if at is not None and n == at:
            return state
        obs = g.observe(state, seat)
        g.apply(state, rng.choice(obs.legal_moves))
        n += 1
    return state


def _expected_scores(rules, state) -> list[int]:
    """The scores by an independent reading of docs/rules.md."""
    return _expected_totals(rules, state)[-1]


def _expected_totals(rules, state) -> list[list[int]]:
    """Replays the transcript with an independent reading of docs/rules.md: the totals after each deal."""
    total = [0, 0]
    totals = []
    for (_, _, turn_up), moves in g.deals(state):
        count = g.BASE[turn_up]
        prev_val = "K" if g.RANK[turn_up] == 12 else g.BASE[turn_up]
        prev_card = turn_up
        last = {}
        for seat, (card, op) in moves:
            r = g.RANK[card]
            v = "K" if r == 12 else prev_val if r == 10 else g.BASE[card]
            if v == "K":
                assert op == "k"
                count = count // 2 if count % 2 == 0 else count * 2
            else:
                options = {}
                if v > count:
                    options["+"] = count + v
                elif v < count:
                    if v and count % v == 0:
                        options["/"] = count // v
                    else:
                        options["-"] = count - v
                else:
                    options.update({"+": 2 * count, "-": 0})
                    if v:
                        options["/"] = 1
                if rules.multiply and count * v <= 20:
                    options["*"] = count * v
                count = options[op]
            if g.RANK[card] == g.RANK[prev_card]:
                total[seat] += 10
            elif g.SUIT[card] == g.SUIT[prev_card]:
                total[1 - seat] += 10
            prev_val, prev_card = v, card
            last[seat] = (g.BASE[card], count)
        if len(moves) == 12:
            for seat, (value, c) in last.items():
                total[1 - seat] += (c - value) ** 2
                total[seat] += 10 if c == value else 0
        totals.append(total[:])
    return totals


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), rules=st.sampled_from(ALL_RULES), choice_seed=st.integers(0, 2**32))
def test_random_play(seed, rules, choice_seed):
    rng = random.Random(choice_seed)
    state = g.new_state(rules, seed)
    n = 0
    while (seat := g.to_move(state)) is not None:
        _check_invariants(state)
        obs = g.observe(state, seat)
        assert obs.legal_moves == g.legal_moves(state) and obs.legal_moves
        assert len(set(obs.legal_moves)) == len(obs.legal_moves)
        assert g.observe(state, 1 - seat).legal_moves == ()
        g.apply(state, rng.choice(obs.legal_moves))
        n += 1
        assert n <= 12 * rules.max_deals  # the game ends
    _check_invariants(state)
    out = g.result(state)
    entries = g.deals(state)
    assert all(len(moves) == 12 for _, moves in entries)  # games end after a deal
    assert list(out.scores) == g.scores(state) == _expected_scores(rules, state)
    assert out.ranks == tuple(sum(o > m for o in out.scores) for m in out.scores)
    settled = max(out.scores) >= rules.target and out.scores[0] != out.scores[1]
    assert out.termination == ("normal" if settled else "deal_limit")
    if out.termination == "deal_limit":
        assert len(entries) == rules.max_deals
    totals = _expected_totals(rules, state)
    assert list(out.scores) == totals[-1]
    for earlier in totals[:-1]:  # no earlier deal settled the game
        assert max(earlier) < rules.target or earlier[0] == earlier[1]
    assert len(entries) <= rules.max_deals


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), rules=st.sampled_from(ALL_RULES), choice_seed=st.integers(0, 2**32))
def test_same_seed_same_game(seed, rules, choice_seed):
    first = _random_game(rules, seed, random.Random(choice_seed))
    random.seed(choice_seed ^ 0xBEEF)
    random.random()
    second = _random_game(rules, seed, random.Random(choice_seed))
    assert g.deals(first) == g.deals(second) and g.result(first) == g.result(second)
    # chance never depends on decisions: another line of play sees the same first deal
    other = _random_game(rules, seed, random.Random(choice_seed + 1))
    assert g.deals(other)[0][0] == g.deals(first)[0][0]


def _reshuffle_hidden(state, seat, rng):
    """Deals the cards `seat` cannot see (the other hand, the undealt pack) afresh, keeping every count."""
    other = 1 - seat
    seen = set(state.hands[seat]) | {c for _, c, _ in state.played} | {state.turn_up}
    hidden = [c for c in DECK if c not in seen]
    rng.shuffle(hidden)
    size = len(state.hands[other])
    state.hands[other] = hidden[:size]
    dealer, layout_hands, turn_up = state.history[-1][0]
    layout_hands = list(layout_hands)
    layout_hands[other] = tuple([c for s, c, _ in state.played if s == other] + hidden[:size])
    state.history[-1] = ((dealer, tuple(layout_hands), turn_up), state.moves)
    state.seed = rng.getrandbits(32)  # future deals are hidden too


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), rules=st.sampled_from(ALL_RULES), rseed=st.integers(0, 2**32),
       at=st.integers(0, 60))
def test_no_leaks_and_sample_world(seed, rules, rseed, at):
    rng = random.Random(rseed)
    state = _random_game(rules, seed, rng, at=at)
    for seat in (0, 1):
        obs = g.observe(state, seat)
        disturbed = g.clone(state)
        _reshuffle_hidden(disturbed, seat, rng)
        _check_invariants(disturbed)
        assert g.observe(disturbed, seat) == obs
        world = g.sample_world(obs, rng)
        _check_invariants(world)
        assert g.observe(world, seat) == obs
        assert g.to_move(world) == g.to_move(state)
        # a sampled world plays on to the end
        while g.to_move(world) is not None:
            g.apply(world, rng.choice(g.legal_moves(world)))
        assert world.termination in ("normal", "deal_limit")


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), rules=st.sampled_from(ALL_RULES), rseed=st.integers(0, 2**32),
       at=st.integers(0, 60))
def test_clone_is_independent(seed, rules, rseed, at):
    state = _random_game(rules, seed, random.Random(rseed), at=at)
    before = (g.deals(state), g.scores(state), g.observe(state, 0), g.observe(state, 1))
    copy = g.clone(state)
    rng = random.Random(rseed)
    while g.to_move(copy) is not None:
        g.apply(copy, rng.choice(g.legal_moves(copy)))
    assert (g.deals(state), g.scores(state), g.observe(state, 0), g.observe(state, 1)) == before


def test_sample_world_at_game_end():
    state = _random_game(g.Rules(target=30), 11, random.Random(2))
    for seat in (0, 1):
        obs = g.observe(state, seat)
        world = g.sample_world(obs, random.Random(4))
        assert g.observe(world, seat) == obs and g.to_move(world) is None
        assert g.result(world) == g.result(state)


def test_the_readable_account_counts_deals_as_the_observation_does():
    """`arena play` numbers the deals as `Observation.deal` does, from 0 (docs/writing-a-bot.md)."""
    import re

    from arena.api import play
    from arena.tournament import referee

    data = play("give_or_take", ["random", "greedy"], seed=3)
    assert len(data["deals"]) > 1
    headings = [line for line in referee.account(data) if re.fullmatch(r"deal \d+", line)]
    assert headings == [f"deal {k}" for k in range(len(data["deals"]))]
    for _, seat, _, state in referee.replay_steps(data):
        shown = re.match(r"deal +(\d+)(?! over)", g.describe(state))
        if shown and state.mover is not None:
            assert int(shown[1]) == g.observe(state, seat).deal
