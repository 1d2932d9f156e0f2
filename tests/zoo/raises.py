"""Zoo: a bot that raises in its move; the referee records a `crash` forfeit."""

from arena.bots import Bot


class RaisesBot(Bot):
    """Raises RuntimeError on every move."""

    name = "zoo-raises"

    def act(self, observation):
        raise RuntimeError("the zoo bot raises")
