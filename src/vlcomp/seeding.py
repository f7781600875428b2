"""Seeded random generators keyed by stable hashes, so draws do not depend on run order."""

from __future__ import annotations

import hashlib

import numpy as np


def stable_rng(*keys: object) -> np.random.Generator:
    """A numpy generator seeded from a blake2b hash of ``keys`` (never Python's ``hash()``).

    The same keys give the same stream in any process, order or degree of parallelism.
    """
    digest = hashlib.blake2b("\x1f".join(map(str, keys)).encode(), digest_size=16).digest()
    return np.random.default_rng(int.from_bytes(digest, "little"))
