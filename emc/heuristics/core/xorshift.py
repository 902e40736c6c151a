"""The random stream of the compiled local searches: Marsaglia's xorshift64 (13, 7, 17).

A stream is a ``uint64`` array of one element that the caller owns and passes to every kernel
that draws (:func:`make_rng` builds it from a seed). Nothing here reads numpy's or Python's
global random state, so a search given the same seed makes the same moves on every run, in
compiled code or plain Python, whatever else the process draws.

xorshift64 needs only shifts and exclusive ors: numpy's 64-bit scalars warn on overflowing
products and sums, which the plain-Python fallback (no numba) would run into with a
multiplying generator. Its period is 2**64 - 1 and its weaknesses (it fails a few of the
strictest statistical batteries in its low bits) do not matter for picking moves; the draws
below use the high 53 bits.
"""

from __future__ import annotations

import numpy as np

from ...model import require_seed
from .jit import njit

_MASK = (1 << 64) - 1
_S11 = np.uint64(11)
_S13 = np.uint64(13)
_S7 = np.uint64(7)
_S17 = np.uint64(17)


def make_rng(seed: int) -> np.ndarray:
    """A fresh stream for ``seed`` (a whole number >= 0): a ``uint64`` array of one element.

    The seed goes through splitmix64 (in Python integers), so neighbouring seeds give unrelated
    streams and no seed gives xorshift's forbidden all-zero state."""
    seed = require_seed(seed, "make_rng")
    z = (seed + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    z ^= z >> 31
    return np.array([z or 0x9E3779B97F4A7C15], dtype=np.uint64)


@njit
def next_u64(rng):
    """The next 64-bit word of the stream ``rng`` (advances it)."""
    x = rng[0]
    x ^= x << _S13
    x ^= x >> _S7
    x ^= x << _S17
    rng[0] = x
    return x


@njit
def uniform(rng):
    """A float in ``[0, 1)`` from the 53 high bits of the next word."""
    return np.float64(next_u64(rng) >> _S11) * (1.0 / 9007199254740992.0)


@njit
def below(rng, n):
    """A whole number in ``[0, n)``, ``n >= 1`` (the 53 high bits modulo ``n``: a bias of at
    most ``n / 2**53``, nothing against the sizes drawn here)."""
    return np.int64((next_u64(rng) >> _S11) % np.uint64(n))
