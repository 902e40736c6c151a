"""Boards a search finds along the way, handed to whoever collects them: the hook of record
hunts (``emc campaign run`` with ``[hunt] threshold = N``).

A method's improvements already reach its caller through ``on_progress``; a long search that
finds many boards worth keeping that are *not* improvements (a slipping backtracker finding one
463 after another, each a new board of the same score) offers each of them here::

    from ..core.found import found

    found(board, score, "slip")      # anywhere in the process that runs Method.run

Nothing happens unless a caller is collecting (:func:`collecting`, set around the run by the
campaign worker, which keeps boards at or above the hunt's threshold, verifies them and sends
them to the campaign's store at once, so a week-long task's boards are kept even if the task
never ends). The call is cheap when nobody collects: methods may call it unconditionally. The
board is copied; a search may go on changing its own. Boards found in a method's own child
processes are relayed to the process running the method first (the sink is not inherited).
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Callable, Iterator

from ...model import Board

#: (board, score, what, seconds into the run or None) -> None
Sink = Callable[[Board, int, str, "float | None"], None]

_SINK: contextvars.ContextVar[Sink | None] = contextvars.ContextVar("emc_found_sink", default=None)


@contextlib.contextmanager
def collecting(sink: Sink) -> Iterator[None]:
    """Send every board offered through :func:`found` in this context (this thread, this
    process) to ``sink``."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


def is_collecting() -> bool:
    """Whether a caller collects boards (a method may skip building boards it would offer)."""
    return _SINK.get() is not None


def found(board: Board, score: int, what: str = "", at: float | None = None) -> None:
    """Offer ``board`` (``score`` matched edges; ``what`` found it; ``at`` seconds into the
    run, if the method knows) to the collector, if any."""
    sink = _SINK.get()
    if sink is not None:
        sink(board.copy(), int(score), what, at)
