"""Zoo: a bot that answers with a well-formed move of the right type that is not legal now."""

from arena.bots import Bot

WORDS = ("play", "pass", "claim", "take", "resign")
"""Go For It's moves, and one that no game has."""


def not_legal(legal: tuple) -> object:
    """A move shaped like `legal[0]` (a card, a word, a tuple holding a card) that is not in `legal`."""
    sample = legal[0]
    if isinstance(sample, str):
        return next(w for w in WORDS if w not in legal)
    if isinstance(sample, int):
        return next(c for c in range(53) if c not in legal)
    at = next(i for i, part in enumerate(sample) if isinstance(part, int))  # the card (or slot) of a tuple move
    return next(m for m in (sample[:at] + (c,) + sample[at + 1:] for c in range(53)) if m not in legal)


class IllegalBot(Bot):
    """Plays a card it may not play (or a word not open to it) on every move."""

    name = "zoo-illegal"

    def act(self, observation):
        return not_legal(observation.legal_moves)
