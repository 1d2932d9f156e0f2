"""Takes too long to set up once its trigger file exists: sleeps, or spins with SIGALRM blocked (so the clock's
signal cannot stop it: only the backstop or a deadline outside its process can), in `__init__` or in `reset`.
Without the trigger it is a random bot, so that checking its config builds it in time."""

import os
import signal
import time

from arena.bots import Bot


class SlowSetupBot(Bot):
    name = "slow-setup"
    defaults = {"where": "reset", "how": "sleep", "trigger": ""}

    def __init__(self, **params):
        super().__init__(**params)
        if self.params["where"] == "init":
            self._stall()

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        if self.params["where"] == "reset":
            self._stall()

    def act(self, observation):
        return self.rng.choice(observation.legal_moves)

    def _stall(self):
        if not os.path.exists(self.params["trigger"]):
            return
        if self.params["how"] == "sleep":
            time.sleep(3600)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        while True:
            pass
