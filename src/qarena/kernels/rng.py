"""A small deterministic generator (xoshiro128**) for kernels.

Built from 32-bit operations on int64 values, it gives the same stream compiled and as plain
Python, so training with NUMBA_DISABLE_JIT=1 reproduces the compiled tables exactly.
"""

import numpy as np

from qarena.kernels.jit import njit

MASK32 = 0xFFFFFFFF


def seed_state(seed: int) -> np.ndarray:
    """Four non-zero 32-bit words from ``seed`` (splitmix-style mixing in Python ints)."""
    state = np.zeros(4, dtype=np.int64)
    x = seed & 0xFFFFFFFFFFFFFFFF
    for i in range(4):
        x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        z ^= z >> 31
        state[i] = (z & MASK32) or 1
    return state


@njit
def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & 0xFFFFFFFF


@njit
def next_u32(s: np.ndarray) -> int:
    """The next 32-bit output; advances ``s`` in place."""
    result = (_rotl((s[1] * 5) & 0xFFFFFFFF, 7) * 9) & 0xFFFFFFFF
    t = (s[1] << 9) & 0xFFFFFFFF
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 11)
    return int(result)


@njit
def uniform(s: np.ndarray) -> float:
    """A float in [0, 1) with 24 random bits."""
    return (next_u32(s) >> 8) * (1.0 / 16777216.0)


@njit
def below(s: np.ndarray, n: int) -> int:
    """An integer in [0, n) for small n (multiply-shift)."""
    return (next_u32(s) * int(n)) >> 32  # int(): n may arrive as a numpy int32
