"""A random source whose stream is fixed forever, so seeds give the same files everywhere.

NumPy keeps the raw bit streams of its generators stable across versions but not the
algorithms that turn them into integers or permutations. emc draws only raw 64-bit words
from PCG64 and does the rest itself, so ``emc generate ... --seed 7`` writes the same bytes
on every machine and every NumPy version.
"""

from __future__ import annotations

import numpy as np


class StableRng:
    """Integers, choices and shuffles from PCG64's raw 64-bit output.

    Args:
        seed: any non-negative integer.
    """

    def __init__(self, seed: int):
        self._bits = np.random.PCG64(int(seed))

    def _raw(self) -> int:
        return int(self._bits.random_raw())

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self._raw()
            if x < limit:
                return x % n

    def integers(self, low: int, high: int, size: int) -> np.ndarray:
        """``size`` uniform integers in ``[low, high)``."""
        return np.array([low + self.below(high - low) for _ in range(size)], dtype=np.int64)

    def random(self) -> float:
        """A float in ``[0, 1)`` with 53 random bits."""
        return (self._raw() >> 11) * (1.0 / (1 << 53))

    def permutation(self, n: int) -> np.ndarray:
        """A uniform permutation of ``range(n)`` (Fisher-Yates)."""
        a = np.arange(n)
        for i in range(n - 1, 0, -1):
            j = self.below(i + 1)
            a[i], a[j] = a[j], a[i]
        return a

    def spawn_seed(self) -> int:
        """A seed for an independent sub-stream (for solvers that take a 31-bit seed)."""
        return self._raw() & 0x7FFFFFFF
