"""Ctrl-C that survives the solvers, and the default backend of the heuristics.

Some backends catch ``KeyboardInterrupt`` themselves (to stop their search cleanly and hand
back the best board found). A heuristic that calls them many times must still stop on the
first Ctrl-C, so while :func:`sigint_guard` is active a SIGINT also raises a flag, and
:func:`check` turns a raised flag back into ``KeyboardInterrupt`` after the backend call.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator

_flag = {"raised": False, "depth": 0}


def raised() -> bool:
    """Whether Ctrl-C was pressed inside the guard."""
    return _flag["raised"]


def check() -> None:
    """Raise ``KeyboardInterrupt`` if Ctrl-C was pressed inside the guard."""
    if _flag["raised"]:
        raise KeyboardInterrupt


@contextlib.contextmanager
def sigint_guard() -> Iterator[None]:
    """Record SIGINT in a flag (and still raise ``KeyboardInterrupt`` as usual).

    Only the main thread can install signal handlers; elsewhere this does nothing.
    Nested guards share the flag; the outermost one resets it on exit.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    outer = _flag["depth"] == 0
    if outer:
        _flag["raised"] = False
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame):
        _flag["raised"] = True
        raise KeyboardInterrupt

    _flag["depth"] += 1
    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _flag["depth"] -= 1
        if outer:
            _flag["raised"] = False


#: Default sub-problem solvers of the heuristics, fastest first: on META 10x10 .. 16x16 the
#: greedy construction with highs or cbc takes 1-6 s, with cpsat 4-90 s for the same scores
#: (bench/matheuristic.py). ``backend="auto"`` (the default of every heuristic, as of the
#: commands) takes the first one installed.
HEURISTIC_BACKENDS = ("highs", "cbc", "cpsat")


def pick_backend(name: str | None) -> str | None:
    """``name``, or for ``"auto"`` the first installed of :data:`HEURISTIC_BACKENDS`."""
    if name != "auto":
        return name
    from ..backends import backend_class

    # none installed: the first, the default, whose install hint is then shown
    return next((b for b in HEURISTIC_BACKENDS if backend_class(b).available()), HEURISTIC_BACKENDS[0])
