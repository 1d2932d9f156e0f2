"""Caterpillar shown: at a person's seat, the row of cards, the running total, the hand; in its replay, every hand,
the row and the stock (drawn by `replay.js`)."""

from __future__ import annotations

from arena.cards import NAME
from arena.games.views import View, cards, packed, packed_hand, score_line, who


class CaterpillarView(View):
    """Caterpillar: the row of cards, the running total, the hand."""

    title = "Caterpillar"
    rules_text = (
        "Caterpillar: play one card to the end of the caterpillar, then draw the top card of the stock.\n"
        "- The first card may be any card; after that any face card (J Q K), or a numeral (A-10) of the suit "
        "of the card played just before. Pips: A = 1, 2-10 face value; J Q K add nothing.\n"
        "- A numeral that brings the running total to a multiple of 5 scores the total; a face card scores it "
        "only if the total is a multiple of 5 and the face card has the suit of the card before it.\n"
        "- After the 26th play each player scores 100 per face card in their own hand.\n"
        "- A player to move who holds no legal card is court short: play stops, and they score 100 per face "
        "card in the other player's hand.")

    def board(self, obs, me):
        return [("caterpillar", f"{cards(obs.caterpillar)}  ({len(obs.caterpillar)} played)"),
                ("total", str(obs.total)),
                ("scores", score_line(obs.scores, me)),
                ("cards left", f"stock {obs.stock_left} · {who(1 - me, me)} holds {obs.opponent_hand_size}"),
                ("your hand", cards(obs.hand, sort=True))]

    def news(self, prev, obs, me):
        start = len(prev.caterpillar) if prev else 0
        # Seat 0 plays first and turns alternate, so card i of the caterpillar was played by seat i % 2.
        return [f"{who(i % 2, me)} played {NAME[c]}" for i, c in enumerate(obs.caterpillar)
                if i >= start and i % 2 != me]

    def decisions(self, obs):
        return len(obs.caterpillar)

    def frame(self, state):
        return {"h": [packed_hand(h) for h in state.hands], "c": packed(state.caterpillar), "k": packed(state.stock),
                "total": state.total}


VIEW = CaterpillarView()
