"""Zoo: a bot that stalls. It sleeps an hour (no CPU time: only the wall-clock backstop ends the call) on its
`move`-th move of every game (`where = "act"`) or in every `reset` (`where = "reset"`); with a `trigger`, only once
that file exists (so that a check, or a sandbox that sees no file of the host, finds it well behaved). Otherwise it
plays at random."""

import os
import time

from arena.bots import Bot


class StallsBot(Bot):
    name = "zoo-stalls"
    defaults = {"where": "act", "move": 3, "trigger": ""}

    def __init__(self, **params) -> None:
        super().__init__(**params)
        self.where, self.move, self.trigger = self.params["where"], self.params["move"], self.params["trigger"]

    def _stalls(self) -> bool:
        return not self.trigger or os.path.exists(self.trigger)

    def reset(self, game_id, seat, rules, rng) -> None:
        self.rng, self.moves = rng, 0
        if self.where == "reset" and self._stalls():
            time.sleep(3600)

    def act(self, observation):
        self.moves += 1
        if self.where == "act" and self.moves == self.move and self._stalls():
            time.sleep(3600)
        return self.rng.choice(observation.legal_moves)
