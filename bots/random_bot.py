"""random: plays any game, choosing uniformly among the legal moves with its own seeded rng."""

from arena.bots import Bot


class RandomBot(Bot):
    """Uniform over legal moves."""

    name = "random"
    games = None

    def act(self, observation):
        return self.rng.choice(observation.legal_moves)
