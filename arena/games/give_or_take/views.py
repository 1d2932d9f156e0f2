"""Give or Take shown: at a person's seat, the deal, the turn-up, the count and the plays of this deal; in its
replay, every hand and each deal's last plays before the next is dealt (drawn by `replay.js`)."""

from __future__ import annotations

from arena.cards import NAME
from arena.games.give_or_take.rules import effective_value, parse_move, step
from arena.games.views import View, cards, packed_hand, score_line, who


class GiveOrTakeView(View):
    """Give or Take: the deal, the turn-up, the count, the plays of this deal."""

    title = "Give or Take"
    rules_text = (
        "Give or Take: in each deal 6 cards each are played alternately onto a count that starts at the "
        "turn-up's value; deals go on until a total reaches {target}, and the higher total wins.\n"
        "- Values: Q = 0, A = 1, 2-10 face value. A King halves an even count and doubles an odd one (k). "
        "A Jack copies the card before it (and acts as a King after a King).\n"
        "- Value v on count c: v > c adds (+); v < c divides (/) if c is a multiple of v, else subtracts (-); "
        "v == c: you choose + (2c), - (0) or / (1). An Ace on a count above 1 divides.{multiply}\n"
        "- Same rank as the card before: you score 10. Same suit: your opponent scores 10.\n"
        "- End of a deal: with L your last card's value and C the count right after it, your opponent scores "
        "(C - L) squared; if C == L you score 10.\n"
        "- Moves: the card then its operation, e.g. 7H+, 5C/, KSk.")

    def summary(self, rules):
        multiply = (" Option multiply: a card with a value may also multiply (*) when the product is at most 20."
                    if rules.multiply else "")
        return self.rules_text.format(multiply=multiply, target=rules.target)

    def board(self, obs, me):
        rules = obs.rules
        options = f"target {rules.target}" + (", multiply" if rules.multiply else "")
        plays = " · ".join(f"{who(s, me)} {NAME[c]}{op}" for s, c, op in obs.played) or "-"
        jack = "acts as a King" if obs.last_king else f"copies {obs.last_value}"
        return [("deal", f"{obs.deal} (dealer {who(obs.dealer, me)}; {options})"),
                ("turn-up", NAME[obs.turn_up]),
                ("this deal", plays),
                ("count", str(obs.count)),
                ("a Jack now", jack),
                ("scores", score_line(obs.scores, me)),
                ("cards left", f"{who(1 - me, me)} holds {obs.opponent_hand_size}"),
                ("your hand", cards(obs.hand, sort=True))]

    def news(self, prev, obs, me):
        lines, start = [], 0
        if prev and prev.deal == obs.deal:
            start = len(prev.played)
        elif prev:  # the plays that ended the last deal are gone from the observation; the scores tell
            lines.append(f"deal {prev.deal} ended; deal {obs.deal}: dealer {who(obs.dealer, me)}, "
                         f"turn-up {NAME[obs.turn_up]}")
        lines += [f"{who(s, me)} played {NAME[c]}{op}" for i, (s, c, op) in enumerate(obs.played)
                  if i >= start and s != me]
        return lines

    def decisions(self, obs):
        return 12 * obs.deal + len(obs.played)  # every deal is exactly 12 plays

    def frame(self, state):
        return {"deal": state.deal, "dealer": state.dealer, "h": [packed_hand(h) for h in state.hands],
                "u": NAME[state.turn_up], "p": [[s, NAME[c], op] for s, c, op in state.played], "count": state.count}

    def deal_over(self, before, after, seat, move):
        """The deal just finished: the state before its last play, with that play made."""
        card, op = parse_move(move)
        hands = [list(h) for h in before.hands]
        hands[seat].remove(card)
        count = step(before.count, effective_value(card, before.prev), op)
        played = [[s, NAME[c], o] for s, c, o in before.played] + [[seat, NAME[card], op]]
        return {"h": [packed_hand(h) for h in hands], "p": played, "count": count,
                "n": f"deal {before.deal} over: the last cards scored"}


VIEW = GiveOrTakeView()
