"""Zoo: a Give or Take bot that rewrites the (frozen) rules object of its observation.

`object.__setattr__` gets past a frozen dataclass. The referee gives every game its own copy of
the rules, so in process this spoils only the games this bot plays; in its own process it
changes nothing of the game at all.
"""

from arena.bots import Bot


class RewritesRulesBot(Bot):
    """Give or Take: sets the target to 1 (every deal then ends the game) and plays at random."""

    name = "zoo-rewrites-rules"
    games = {"give_or_take"}

    def act(self, observation):
        object.__setattr__(observation.rules, "target", 1)
        return self.rng.choice(observation.legal_moves)
