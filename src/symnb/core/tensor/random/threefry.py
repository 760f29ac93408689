"""Threefry-2x32 in NumPy: JAX's default counter-based generator, bit for bit.

A key is a ``uint32`` array of shape ``(2,)`` (what ``jax.random.key_data`` returns for
a ``threefry2x32`` key). Everything here follows ``jax/_src/random/threefry2x32.py`` and
``prng.py`` of JAX 0.10 with ``jax_threefry_partitionable`` on (its default): the
counters of a draw of shape ``s`` are ``arange(prod(s))`` as 64-bit numbers split into
(high, low) 32-bit words, hashed with the key. No library on PyPI offers this exact
variant in NumPy (``randomgen``'s ThreeFry is 4x64/2x64 with other counters), hence
this small file. The tests compare every function with ``jax.random`` on the same key.

NumPy's unsigned arithmetic on arrays wraps modulo 2**32, which is what the hash needs.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

__all__ = ["KEY_SHAPE", "seed_key", "threefry2x32", "random_bits", "split", "fold_in"]

#: The shape of a key's data.
KEY_SHAPE = (2,)

_ROTATIONS = (np.array([13, 15, 26, 6], np.uint32), np.array([17, 29, 16, 24], np.uint32))
_PARITY = np.uint32(0x1BD11BDA)  # Threefry's key-schedule constant


def _rotate_left(x: np.ndarray, d: np.uint32) -> np.ndarray:
    return (x << d) | (x >> np.uint32(32 - int(d)))


def threefry2x32(k1: np.ndarray, k2: np.ndarray, x1: np.ndarray, x2: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The Threefry-2x32 hash (20 rounds) of the counter pairs ``(x1, x2)`` under the key
    ``(k1, k2)``; all uint32, broadcast together (JAX's ``threefry2x32_p``)."""
    k1, k2 = np.uint32(k1), np.uint32(k2)
    ks = (k1, k2, k1 ^ k2 ^ _PARITY)
    with np.errstate(over="ignore"):  # 0-d operands are scalars, which warn on wrapping
        x = [np.asarray(x1, np.uint32) + ks[0], np.asarray(x2, np.uint32) + ks[1]]
        for block in range(5):
            for r in _ROTATIONS[block % 2]:
                x[0] = x[0] + x[1]
                x[1] = _rotate_left(x[1], r) ^ x[0]
            x[0] = x[0] + ks[(block + 1) % 3]
            x[1] = x[1] + ks[(block + 2) % 3] + np.uint32(block + 1)
    return np.asarray(x[0], np.uint32), np.asarray(x[1], np.uint32)


def seed_key(seed: int) -> np.ndarray:
    """The key ``jax.random.key(seed)`` holds: the 64-bit seed as (high, low) words."""
    seed = int(seed) & 0xFFFF_FFFF_FFFF_FFFF  # two's complement, as JAX's int64 seed
    return np.array([seed >> 32, seed & 0xFFFF_FFFF], dtype=np.uint32)


def _counters(shape: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """``arange(prod(shape))`` reshaped, as (high, low) uint32 words (``iota_2x32_shape``)."""
    counts = np.arange(math.prod(shape), dtype=np.uint64).reshape(tuple(shape))
    return (counts >> np.uint64(32)).astype(np.uint32), counts.astype(np.uint32)


def random_bits(key: np.ndarray, bit_width: int, shape: Sequence[int]) -> np.ndarray:
    """Uniform random bits of ``shape`` as unsigned ints of ``bit_width`` (16, 32 or 64)."""
    high, low = _counters(shape)
    bits1, bits2 = threefry2x32(key[0], key[1], high, low)
    if bit_width == 64:
        return (bits1.astype(np.uint64) << np.uint64(32)) | bits2.astype(np.uint64)
    if bit_width == 32:
        return bits1 ^ bits2
    if bit_width in (8, 16):
        return (bits1 ^ bits2).astype(np.dtype(f"uint{bit_width}"))
    raise ValueError(f"random_bits: bit_width must be 8, 16, 32 or 64, got {bit_width}")


def split(key: np.ndarray, num: int = 2) -> np.ndarray:
    """``num`` new keys from ``key``, shape ``(num, 2)`` (``jax.random.split``)."""
    high, low = _counters((num,))
    bits1, bits2 = threefry2x32(key[0], key[1], high, low)
    return np.stack([bits1, bits2], axis=-1)


def fold_in(key: np.ndarray, data: int) -> np.ndarray:
    """A new key mixing the integer ``data`` into ``key`` (``jax.random.fold_in``)."""
    high, low = seed_key(int(data) & 0xFFFF_FFFF)  # JAX folds in data as uint32
    bits1, bits2 = threefry2x32(key[0], key[1], np.array([high]), np.array([low]))
    return np.concatenate([bits1, bits2])
