"""Seeds derived by hashing, never from run order: the same parts always give the same seed."""

from __future__ import annotations

import hashlib
import random
from _random import Random as _CRandom


def derive_seed(*parts: object, _blake2b=hashlib.blake2b) -> int:
    """A 63-bit seed from the text of `parts` (e.g. config seed, game, table, deal)."""
    text = "\x1f".join([str(part) for part in parts]).encode()
    return int.from_bytes(_blake2b(text, digest_size=8).digest(), "big") >> 1


def derive_seeds(parts: tuple, count: int) -> list[int]:
    """[derive_seed(*parts, i) for i in range(count)], hashing the common start once (a seat's seed costs
    half as much)."""
    return seeds_after(seed_start(*parts), count)


def seed_start(*parts: object, after=None, _blake2b=hashlib.blake2b):
    """The hash of the start of a seed's text, `parts` (after the start `after`) followed by what seed_after
    or seeds_after add: a schedule hashes what its games share once (a table's name, a deal's seed)."""
    text = "".join([f"{part}\x1f" for part in parts]).encode()
    if after is None:
        return _blake2b(text, digest_size=8)
    hasher = after.copy()
    hasher.update(text)
    return hasher


def seed_after(start, last: int, _from_bytes=int.from_bytes) -> int:
    """derive_seed(*parts, last) from seed_start(*parts)."""
    hasher = start.copy()
    hasher.update(b"%d" % last)
    return _from_bytes(hasher.digest(), "big") >> 1


def seeds_after(start, count: int) -> list[int]:
    """[derive_seed(*parts, i) for i in range(count)] from seed_start(*parts)."""
    return [seed_after(start, i) for i in range(count)]


def seeded_rng(seed: int, _new=random.Random.__new__, _seed=_CRandom.seed) -> random.Random:
    """random.Random(seed) for an int seed, without the Python layer of Random.seed (a game seeds three
    generators, its deal's and each bot's, and that layer is an eighth of their cost); checked at import."""
    rng = _new(random.Random)
    _seed(rng, seed)
    rng.gauss_next = None  # as Random.seed leaves it
    return rng


def _check() -> None:
    for seed in (0, 1, 5, 2**31, 2**62 + 12345, 2**63 - 1):
        if seeded_rng(seed).getstate() != random.Random(seed).getstate():
            raise RuntimeError("random.Random seeds ints differently from seeded_rng on this Python")


_check()
