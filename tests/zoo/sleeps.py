"""Zoo: a bot that sleeps far past any move time limit."""

import time

from arena.bots import Bot


class SleepsBot(Bot):
    """Sleeps a minute on its first move."""

    name = "zoo-sleeps"

    def act(self, observation):
        time.sleep(60)
        return observation.legal_moves[0]
