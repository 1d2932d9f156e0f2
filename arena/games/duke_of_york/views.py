"""Duke of York shown: at a person's seat, the round, the exchange with the table slots and the count up and down
the hill; in its replay, every hand, the face-down slots and each round's top and bottom (drawn by `replay.js`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from arena.cards import NAME
from arena.games.duke_of_york.rules import ROUNDS, VALUES, parse_move
from arena.games.views import View, packed_hand, score_line, who


class DukeOfYorkView(View):
    """Duke of York: the round, the exchange with the table slots, the count up and down the hill."""

    title = "Duke of York"
    rules_text = (
        "Duke of York: 5 rounds of 5 cards each; two cards lie face down on the table (slots 0 and 1).\n"
        "- Exchange: the leader, then the dealer, takes a slot's card (take:0 / take:1) and puts any card of "
        "the hand face down into that same slot (discard:7H).\n"
        "- Play: from 0 the count goes up; play a card keeping count + value <= 31 if you can. If you cannot, "
        "the play turns down and you play now, keeping count - value >= 0; if you cannot, the round ends.\n"
        "- Values: {values}. Play a card by its name, e.g. 7H.\n"
        "- Top of the hill: whoever first brought the count to its highest scores 1 (2 at 30, 3 at 31). "
        "Bottom: whoever played the last card (if a player is stuck, the other) scores 1 (2 if the final "
        "count is 1, 3 if 0).\n"
        "- After 5 rounds the higher total wins.")

    VALUE_TEXTS: ClassVar[dict[str, str]] = {
        "queen_zero": "Q = 0, A = 1, 2-10 face value, J = 11, K = 12",
        "face_value": "A = 1, 2-10 face value, J = 11, Q = 12, K = 13",
        "queen_eleven": "A = 1, 2-10 face value, Q = 11, J = 12, K = 13"}

    def summary(self, rules):
        return self.rules_text.format(values=self.VALUE_TEXTS.get(rules.values, rules.values))

    def board(self, obs, me):
        value = VALUES[obs.rules.values]
        leader = 1 - obs.dealer
        count = f"{obs.count}, going {obs.direction}"
        if obs.peak >= 0:
            count += f" (peak {obs.peak} by {who(obs.peak_seat, me)})"
        slots = " · ".join(f"slot {i}: " + ("face down" if c is None else f"{NAME[c]} (put there by you)")
                           for i, c in enumerate(obs.table))
        rows = [("round", f"{obs.round} of 0-{ROUNDS - 1} (dealer {who(obs.dealer, me)}, leader {who(leader, me)})"),
                ("count", count),
                ("this round", " · ".join(f"{who(s, me)} {NAME[c]}" for s, c in obs.played) or "-"),
                ("table", slots)]
        if obs.taken is not None:
            rows.append(("you took", NAME[obs.taken]))
        rows += [("scores", score_line(obs.scores, me)),
                 ("cards left", f"{who(1 - me, me)} holds {obs.opponent_hand_size} · stock {obs.stock_size}"),
                 ("your hand", " ".join(f"{NAME[c]}={value[c]}" for c in obs.hand) or "-")]
        return rows

    @staticmethod
    def _event(moves: Sequence[tuple[int, tuple]], i: int) -> str:
        """Move i of a round in words; an opponent's discard is hidden, but its slot is the one just taken."""
        kind, arg = moves[i][1]
        if kind == "take":
            return f"took the card in slot {arg}"
        if kind == "discard":
            slot = moves[i - 1][1][1] if i and moves[i - 1][1][0] == "take" else "?"
            return f"put a card face down in slot {slot}"
        return f"played {NAME[arg]}"

    def news(self, prev, obs, me):
        # Events keyed (round, move index in the round): a round opens with 4 exchange moves, then the plays.
        # Earlier rounds keep only their plays in the observation, so those are the events shown for them.
        events = [((r, 4 + j), s, f"played {NAME[c]}") for r, plays in enumerate(obs.earlier)
                  for j, (s, c) in enumerate(plays)]
        events += [((obs.round, i), s, self._event(obs.moves, i)) for i, (s, _) in enumerate(obs.moves)]
        since = (prev.round, len(prev.moves)) if prev else (-1, 0)
        lines = [f"{who(s, me)} {text}" for key, s, text in events if key >= since and s != me]
        if prev and prev.round != obs.round:
            lines.append(f"round {prev.round} ended; round {obs.round}: dealer {who(obs.dealer, me)}")
        return lines

    def decisions(self, obs):
        return sum(4 + len(plays) for plays in obs.earlier) + len(obs.moves)

    def frame(self, state):
        return {"round": state.round, "dealer": state.dealer, "h": [packed_hand(h) for h in state.hands],
                "table": ["" if c is None else NAME[c] for c in state.table], "owner": list(state.owner),
                "taken": ["" if c is None else NAME[c] for c in state.taken], "count": state.count,
                "down": state.down, "peak": state.peak, "ps": state.peak_seat,
                "p": [[s, NAME[c]] for s, c in state.played], "stock": len(state.stock),
                "exchange": state.phase < 4}  # phases 0-3 are the exchange with the table

    def deal_over(self, before, after, seat, move):
        """The round just finished: its plays and the engine's record of its top and bottom (`ended`)."""
        _, card = parse_move(move)
        hands = [list(h) for h in before.hands]
        hands[seat].remove(card)
        round_, peak, peak_seat, count, last = after.ended
        top = 3 if peak == 31 else 2 if peak == 30 else 1
        bottom = 3 if count == 0 else 2 if count == 1 else 1
        return {"h": [packed_hand(h) for h in hands], "p": [[s, NAME[c]] for s, c in after.history[-1]],
                "count": count, "peak": peak, "ps": peak_seat, "down": True, "exchange": False,
                "n": f"round {round_} over: top of the hill {peak} scores {top} for seat {peak_seat}, "
                     f"bottom {count} scores {bottom} for seat {last}"}


VIEW = DukeOfYorkView()
