"""Zoo: a bot that tries to change its observation in every way it can, then plays at random.

Observations are immutable named tuples of tuples, so every attempt must fail. The bot checks it:
if an attempt went through, or the observation changed, it raises, and its game is a `crash`.
"""

from arena.bots import Bot


def attempts(observation):
    """Ways to change an observation, each a callable that must raise."""
    found = [lambda: setattr(observation, "seat", 99),
             lambda: object.__setattr__(observation, "seat", 99),
             lambda: delattr(observation, "legal_moves"),
             lambda: observation.__setitem__(0, 99),
             lambda: vars(observation).update(seat=99)]
    for name, value in zip(observation._fields, observation, strict=True):
        if isinstance(value, tuple):
            found += [lambda v=value: v.append(0),
                      lambda v=value: list.append(v, 0),
                      lambda v=value: v.__setitem__(0, 99),
                      lambda v=value: list.__setitem__(v, 0, 99)]
            found += [lambda v=inner: list.append(v, 0) for inner in value if isinstance(inner, tuple)]
        found.append(lambda n=name: setattr(observation, n, None))
    return found


class MutatesBot(Bot):
    """Tries to rewrite its observation before each move; plays uniformly at random."""

    name = "zoo-mutates"

    def act(self, observation):
        before = repr(observation)
        for attempt in attempts(observation):
            try:
                attempt()
            except (AttributeError, TypeError):
                continue
            raise AssertionError("an observation was changed")
        if repr(observation) != before:
            raise AssertionError("an observation was changed")
        return self.rng.choice(observation.legal_moves)
