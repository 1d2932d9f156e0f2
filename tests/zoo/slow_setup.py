"""Takes too long to set up once its trigger file exists: sleeps, or blocks SIGALRM and sleeps (so the clock's
signal cannot stop it: only the backstop or a deadline outside its process can), in `__init__` or in `reset`.
Blocked, a sleep defeats the in-process clock as a busy loop does, without burning a core for every second the
limit and grace last (the busy loop is tests/zoo/spins_in_init.py's, and test_submit.py's in `act`).
Without the trigger it is a random bot, so that checking its config builds it in time. In a sandbox, which
sees no file of the host, the trigger is `"rebuilt"`: its process has built it before (the process's hello builds it
once, every reset builds it again; checking the config builds it once, in a process of its own)."""

import os
import signal
import time

from arena.bots import Bot

built = 0
"""Bots built in this process."""


class SlowSetupBot(Bot):
    name = "slow-setup"
    defaults = {"where": "reset", "how": "sleep", "trigger": ""}

    def __init__(self, **params):
        global built
        super().__init__(**params)
        built += 1
        if self.params["where"] == "init":
            self._stall()

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        if self.params["where"] == "reset":
            self._stall()

    def act(self, observation):
        return self.rng.choice(observation.legal_moves)

    def _stall(self):
        trigger = self.params["trigger"]
        if not (built > 1 if trigger == "rebuilt" else os.path.exists(trigger)):
            return
        if self.params["how"] == "block":
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(3600)
