"""Zoo: a Caterpillar bot that adds 5 points to its own score in the referee's state each move.

In process, nothing stops this: the bot reaches the state through the referee's frame. It is
found afterwards: re-playing the transcript's moves through the engine gives other scores.
"""

import sys

from arena.bots import Bot


class CheatsBot(Bot):
    """Caterpillar: plays at random and quietly raises its own score."""

    name = "zoo-cheats"
    games = {"caterpillar"}

    def act(self, observation):
        frame = sys._getframe(1)
        while frame is not None and not ("state" in frame.f_locals and "game" in frame.f_locals):
            frame = frame.f_back
        if frame is not None:
            frame.f_locals["state"].scores[self.seat] += 5
        return self.rng.choice(observation.legal_moves)
