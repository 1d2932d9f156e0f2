"""Go For It shown: at a person's seat, the row and every seat's pile and winnings (nobody sees the unseen part of a
pile); in its replay, every pile whole, the row and the cards set aside (drawn by `replay.js`)."""

from __future__ import annotations

from arena.games.views import View, cards, packed, who


class GoForItView(View):
    """Go For It: the row, every seat's pile and winnings (nobody sees the unseen part of a pile)."""

    title = "Go For It"
    rules_text = (
        "Go For It: everyone has a face-down pile and only ever turns up its top card onto the row; starting "
        "a row turns up two cards.\n"
        "- After each card: your last card ends the game (the row is yours); a joker sends the row to the "
        "bottom of your pile and itself to your left neighbour's; a row of 7 is yours.\n"
        "- A winning combination lets you claim the row or play on: 2 a pair, 3 a flush or run, 4 four suits, "
        "5 one colour, 6 six different numerals A-10; or a card pairing the row's first card or the one before.\n"
        "- Otherwise a card pairing another card of the row makes you take the row up; else play on or pass. "
        "After a full round of passes the last card's player must play or take.\n"
        "- Score: cards won minus cards left in your pile. Moves: play, pass, claim, take.")

    def board(self, obs, me):
        rules = obs.rules
        row = cards(obs.row)
        if obs.row:
            row += f"  (last card by {who(obs.last_player, me)}; passes {obs.passes} of {rules.players})"
        rows = [("row", row)]
        for seat in range(rules.players):
            known = obs.pile_known[seat]
            pile = f"pile {obs.pile_sizes[seat]}" + (f" (bottom known: {cards(known)})" if known else "")
            score = len(obs.winnings[seat]) - obs.pile_sizes[seat]
            rows.append((who(seat, me), f"{pile} · won {len(obs.winnings[seat])} · score {score}"))
        rows.append(("decisions", f"{obs.decisions} (limit {rules.max_decisions})"))
        return rows

    def news(self, prev, obs, me):
        # The observation keeps no list of moves, so tell the changes: decisions made, cards won.
        others = obs.decisions - (prev.decisions + 1 if prev else 0)
        lines = [f"{others} decision{'s' * (others != 1)} by the other seats"] if others > 0 else []
        for seat, won in enumerate(obs.winnings):
            gained = len(won) - (len(prev.winnings[seat]) if prev else 0)
            if seat != me and gained > 0:
                lines.append(f"{who(seat, me)} won {gained} card{'s' * (gained != 1)}")
        return lines

    def decisions(self, obs):
        return obs.decisions

    def frame(self, state):
        return {"piles": [packed(p) for p in state.piles], "unseen": list(state.unseen), "r": packed(state.row),
                "passes": state.passes, "w": [len(w) for w in state.winnings], "last": state.last,
                "decisions": state.decisions}

    def extra(self, data):
        return {"set_aside": "".join(data["deals"][0]["layout"]["set_aside"])}


VIEW = GoForItView()
