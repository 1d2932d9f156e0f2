"""Zoo: attacks a stranger's bot can make in process, those named in `how` (comma-separated), then a legal move.

`recursion` recurses until Python stops it; `stdout` writes a megabyte per move; `reseed` reseeds the
global `random`; `alarm` sets `signal.alarm(1)`, a SIGALRM in whoever's move comes a second later;
`thread` leaves a thread spinning for a second after its move returns; `fork` leaves a forked child behind;
`exit_in_reset` raises SystemExit from `reset`, `interrupt_in_init` KeyboardInterrupt from `__init__`
(which a config refuses: the config's check of the params builds the bot).
"""

import os
import random
import signal
import sys
import threading
import time

from arena.bots import Bot


def _spin():
    """Busy for a second after the move that started it returned (long enough to overlap other games)."""
    until = time.monotonic() + 1.0
    while time.monotonic() < until:
        pass


class AttacksBot(Bot):
    """Makes the attack `how` at each move (or in `reset` / `__init__`), then plays a random legal move."""

    name = "zoo-attacks"
    defaults = {"how": "recursion"}
    threads = 0

    def __init__(self, **params):
        super().__init__(**params)
        if self.params["how"] == "interrupt_in_init":
            raise KeyboardInterrupt

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        if self.params["how"] == "exit_in_reset":
            sys.exit(4)

    def act(self, observation):
        attacks = self.params["how"].split(",")  # several attacks at once: "stdout,reseed"
        if "recursion" in attacks:
            def down(depth):
                return down(depth + 1)
            down(0)
        if "stdout" in attacks:
            sys.stdout.write("x" * 1_000_000 + "\n")
            sys.stdout.flush()
        if "reseed" in attacks:
            random.seed(0)
        if "alarm" in attacks:
            signal.alarm(1)
        if "thread" in attacks and not AttacksBot.threads:  # one spinning thread per process is enough
            AttacksBot.threads += 1
            threading.Thread(target=_spin, daemon=True).start()
        if "fork" in attacks and os.fork() == 0:
            time.sleep(0.2)
            os._exit(0)
        return self.rng.choice(observation.legal_moves)
