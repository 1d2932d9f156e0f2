"""A complete small bot for the guide (docs/writing-a-bot.md): Caterpillar, played by counting.

It scores when it can (a card that brings the total to a multiple of five), otherwise plays a
numeral rather than a face card (face cards are worth 100 at the end and keep it from being
court short), and breaks ties with its own rng so every game replays exactly.
"""

from arena.bots import Bot
from arena.cards import IS_FACE, RANK, SUIT


def pips(card):
    """Pip value in Caterpillar: A = 1, 2-10 face value, J Q K nothing."""
    return 0 if IS_FACE[card] else RANK[card] + 1


class CountingBot(Bot):
    """Scores multiples of five when it can; keeps its face cards otherwise."""

    name = "counting"
    games = {"caterpillar"}
    defaults = {"keep_faces": True}

    def act(self, observation):
        moves = observation.legal_moves
        last = observation.caterpillar[-1] if observation.caterpillar else None

        def points(card):
            total = observation.total + pips(card)
            scores = total % 5 == 0 and (not IS_FACE[card] or (last is not None and SUIT[card] == SUIT[last]))
            return total if scores else 0

        best = max(points(card) for card in moves)
        choices = [card for card in moves if points(card) == best]
        if best == 0 and self.params["keep_faces"]:
            choices = [card for card in choices if not IS_FACE[card]] or choices
        return self.rng.choice(choices)
