"""Spins for ever in `__init__` with SIGALRM blocked: it can never be built."""

import signal

from arena.bots import Bot


class SpinsInInitBot(Bot):
    name = "spins-in-init"

    def __init__(self, **params):
        super().__init__(**params)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        while True:
            pass

    def act(self, observation):
        return observation.legal_moves[0]
