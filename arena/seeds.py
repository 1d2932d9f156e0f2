"""Seeds derived by hashing, never from run order: the same parts always give the same seed."""

from __future__ import annotations

import hashlib


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
