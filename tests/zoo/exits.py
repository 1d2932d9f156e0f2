"""Zoo: a bot that ends its own process part-way through a game.

`how`: `exit` calls os._exit(3), `kill` sends SIGKILL to its own process, `system_exit` raises
SystemExit (which the referee does not catch), `raise` raises RuntimeError (an ordinary crash, for
comparison). The bot plays `after` random moves of its own first, so the game dies with scores on
the board; with `in_reset` it dies before the game starts.
"""

import os
import signal

from arena.bots import Bot


class ExitsBot(Bot):
    """Plays `after` random moves, then ends its process the way `how` says."""

    name = "zoo-exits"
    defaults = {"after": 2, "how": "exit", "in_reset": False}

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        self.moves = 0
        if self.params["in_reset"]:
            self.die()

    def act(self, observation):
        if self.moves >= self.params["after"]:
            self.die()
        self.moves += 1
        return self.rng.choice(observation.legal_moves)

    def die(self):
        """Ends the process (or raises) as `how` says."""
        how = self.params["how"]
        if how == "exit":
            os._exit(3)
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if how == "system_exit":
            raise SystemExit(3)
        raise RuntimeError("the zoo bot dies")
