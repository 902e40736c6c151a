"""How long numba spent compiling emc's kernels in this process.

The kernels are compiled once and cached on disk (``cache=True``); a cold cache (the first run
after installing, a new ``NUMBA_CACHE_DIR``) costs several seconds of compiling, which a short
``--time-limit`` cannot cover. The kernel modules call :func:`install` when they are imported;
the command line reports the seconds when they were noticeable. Loading from the cache is not
counted (numba announces only real compiles).
"""

from __future__ import annotations

import time

SECONDS = [0.0]
_installed = [False]


def install() -> None:
    """Listen to numba's compile events (once per process)."""
    if _installed[0]:
        return
    _installed[0] = True
    try:
        from numba.core import event
    except Exception:  # an older numba without events: nothing is reported
        return

    class _Clock(event.Listener):
        depth = 0
        started = 0.0

        def on_start(self, ev) -> None:
            if self.depth == 0:  # a kernel calling another compiles both under one outer event
                self.started = time.perf_counter()
            self.depth += 1

        def on_end(self, ev) -> None:
            self.depth -= 1
            if self.depth == 0:
                SECONDS[0] += time.perf_counter() - self.started

    event.register("numba:compile", _Clock())


def seconds() -> float:
    return SECONDS[0]
