"""Zoo, not hostile: a bot that thinks hard on its first move: it spends `cpu` seconds of its own CPU time (and
sleeps `sleep` seconds first), then plays as `random` does. tests/test_load.py plays it on a loaded core."""

import time

from arena.bots import Bot


class ThinksBot(Bot):
    name = "zoo-thinks"
    defaults = {"cpu": 0.6, "sleep": 0.0}

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        self.first = True

    def act(self, observation):
        if self.first:
            self.first = False
            time.sleep(self.params["sleep"])
            end = time.thread_time() + self.params["cpu"]
            while time.thread_time() < end:
                pass
        return self.rng.choice(observation.legal_moves)
