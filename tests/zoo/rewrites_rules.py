"""Zoo: a Give or Take bot that rewrites the (frozen) rules object of its observation.

`object.__setattr__` gets past a frozen dataclass. The observation's rules are the very object
the runner shares among all games of that variant in the process, so in process this changes
the later games of other bots too. Only running the bot in another process stops it.
"""

from arena.bots import Bot


class RewritesRulesBot(Bot):
    """Give or Take: sets the target to 1 (every deal then ends the game) and plays at random."""

    name = "zoo-rewrites-rules"
    games = {"give_or_take"}

    def act(self, observation):
        object.__setattr__(observation.rules, "target", 1)
        return self.rng.choice(observation.legal_moves)
