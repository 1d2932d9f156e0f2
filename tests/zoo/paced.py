"""Zoo: plays as the bundled `random` bot does (the same moves from the same rng), pausing before each move, so
that a small run lasts long enough to be killed in the middle."""

import time

from arena.bots import Bot


class PacedBot(Bot):
    name = "paced"
    defaults = {"pause": 0.002}

    def act(self, observation):
        time.sleep(self.params["pause"])
        return self.rng.choice(observation.legal_moves)  # what `random` draws (bots/random_bot.py checks it)
