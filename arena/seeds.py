"""Seeds derived by hashing, never from run order: the same parts always give the same seed."""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object, _blake2b=hashlib.blake2b) -> int:
    """A 63-bit seed from the text of `parts` (e.g. config seed, game, table, deal)."""
    text = "\x1f".join([str(part) for part in parts]).encode()
    return int.from_bytes(_blake2b(text, digest_size=8).digest(), "big") >> 1
