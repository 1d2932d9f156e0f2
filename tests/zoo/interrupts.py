"""Zoo: a bot whose own KeyboardInterrupt must not pass for the user's Ctrl-C."""

from arena.bots import Bot


class InterruptsBot(Bot):
    """Raises KeyboardInterrupt at 5% of its moves."""

    name = "zoo-interrupts"

    def act(self, observation):
        if self.rng.random() < 0.05:
            raise KeyboardInterrupt
        return self.rng.choice(observation.legal_moves)
