"""random: plays any game, choosing uniformly among the legal moves with its own seeded rng."""

import random
from types import SimpleNamespace

from arena.bots import Bot

_BIT_LENGTH = tuple(n.bit_length() for n in range(1024))
"""n.bit_length() by table: the method call costs a random decision 2%."""


class RandomBot(Bot):
    """Uniform over legal moves: the move `rng.choice(legal_moves)` picks, drawn as choice draws it
    (Random._randbelow_with_getrandbits) but inline, since random bots play millions of games and
    choice's two Python calls cost a quarter of a Caterpillar decision."""

    name = "random"
    games = None

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        self._bits = rng.getrandbits

    def act(self, observation, _bit_length=_BIT_LENGTH):
        legal = observation.legal_moves
        n = len(legal)
        k = _bit_length[n] if n < 1024 else n.bit_length()
        bits = self._bits
        r = bits(k)
        while r >= n:
            r = bits(k)
        return legal[r]


def _check() -> None:
    """The bot must pick what rng.choice picks, or every game of random bots would change."""
    bot, theirs = RandomBot(), random.Random(5)
    bot.reset("caterpillar", 0, None, random.Random(5))
    for n in [1, 2, 3, 5, 8, 13, 52, 100, 1023, 1024, 3000] * 25:
        if bot.act(SimpleNamespace(legal_moves=range(n))) != theirs.choice(range(n)):
            raise RuntimeError("random.Random.choice no longer draws as RandomBot does")


_check()
