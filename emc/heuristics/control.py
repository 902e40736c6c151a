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



class held_interrupts:
    """A context in which Ctrl-C raises nothing: a search that is ending its worker processes
    and gathering what they found (the deepest partial fill) after a first Ctrl-C must not lose
    it to a second one, nor to the first delivered again by ``emc.cli`` (a KeyboardInterrupt
    that landed in a finaliser). A SIGINT here is noted in ``seen`` and, inside
    :func:`sigint_guard`, in its flag. Outside the main thread it does nothing."""

    def __init__(self) -> None:
        self.seen = False
        self._previous = None

    def __enter__(self) -> "held_interrupts":
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.getsignal(signal.SIGINT)

            def handler(signum, frame):
                self.seen = True
                if _flag["depth"]:
                    _flag["raised"] = True

            signal.signal(signal.SIGINT, handler)
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

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
