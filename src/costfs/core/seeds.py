"""Seeds derived by hashing, so every random draw is a pure function of what it belongs to."""

import hashlib

import numpy as np


def derive_seed(*parts: object) -> int:
    """A 32-bit seed from the study seed and the names of the stage, problem, replicate, ...

    Hashing (rather than spawning from a global generator) makes each seed independent of the
    order in which jobs run and of which other jobs exist in the study.
    """
    text = "\x1f".join(str(part) for part in parts)
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:4], "little")


def derive_rng(*parts: object) -> np.random.Generator:
    return np.random.default_rng(derive_seed(*parts))
