"""Seeds derived by hashing, never from run order: the same parts always give the same seed."""

from __future__ import annotations

import hashlib
import random
from _random import Random as _CRandom


def derive_seed(*parts: object, _blake2b=hashlib.blake2b) -> int:
    """A 63-bit seed from the text of `parts` (e.g. config seed, game, table, deal)."""
    text = "\x1f".join([str(part) for part in parts]).encode()
    return int.from_bytes(_blake2b(text, digest_size=8).digest(), "big") >> 1


def derive_seeds(parts: tuple, count: int, _blake2b=hashlib.blake2b) -> list[int]:
    """[derive_seed(*parts, i) for i in range(count)], hashing the common start once (a seat's seed costs
    half as much)."""
    start = _blake2b("".join([f"{part}\x1f" for part in parts]).encode(), digest_size=8)
    seeds = []
    for i in range(count):
        hasher = start.copy()
        hasher.update(b"%d" % i)
        seeds.append(int.from_bytes(hasher.digest(), "big") >> 1)
    return seeds


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
