"""Zoo: a bot that never returns from its move: a busy loop the move clock must preempt.

With `stubborn`, the bot also catches the clock's MoveTimeout (a BaseException) and keeps going
for `stubborn` seconds: in process, nothing can take control back from such a bot before it
lets go (it still forfeits on time when it does). Only a separate process can be killed.
"""

import time

from arena.bots import Bot


class HangsBot(Bot):
    """Spins forever on its first move (or swallows the timeout for `stubborn` seconds)."""

    name = "zoo-hangs"
    defaults = {"stubborn": 0.0}

    def act(self, observation):
        until = time.perf_counter() + self.params["stubborn"]
        while True:
            try:
                while True:
                    pass
            except BaseException:
                if time.perf_counter() >= until:
                    raise
