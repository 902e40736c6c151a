"""The bottom floor every other part of emc stands on: signals, Ctrl-C, child processes,
time limits and C-level output.

Backends, heuristics and commands all stop on Ctrl-C and SIGTERM, run solvers in child
processes and call C libraries that print; the rules for doing so safely live here once:

* :func:`sigint_guard`, :func:`raised`, :func:`check`: a Ctrl-C that a solver swallowed
  (some catch ``KeyboardInterrupt`` to hand back their best board) still stops a heuristic
  that calls it many times;
* :class:`held_interrupts`: a window in which Ctrl-C raises nothing, for gathering what a
  stopped search found;
* :func:`start_child`, :func:`child_setup`, :func:`process_context`: worker processes that
  leave Ctrl-C to their parent and die with it;
* :func:`c_stdout_to_stderr`, :data:`REDIRECT_C_STDOUT`: C libraries' prints kept off the
  command's standard output;
* :data:`BACKGROUND_THREADS`: solver threads a Ctrl-C stopped waiting for;
* :func:`time_limit_seconds`, :func:`limit_left`, :class:`Throttled`: time limits and
  rate-limited progress lines.

Nothing here imports any other part of emc but :mod:`emc.errors`.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import signal
import sys
import threading
import time
from typing import Any, Callable, Iterator

from .errors import InputError


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

    Only the main thread can install signal handlers; elsewhere this does nothing. Where SIGINT
    is ignored it installs no handler: a campaign's worker leaves Ctrl-C to its runner, which
    requeues the runs in flight, and a run cut short must not come back as a finished one. The
    flag is then set only by :func:`note_interrupt` (SIGTERM under ``nohup``).
    Nested guards share the flag; the outermost one resets it on exit.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    outer = _flag["depth"] == 0
    if outer:
        _flag["raised"] = False
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame):
        _flag["raised"] = True
        raise KeyboardInterrupt

    _flag["depth"] += 1
    if not ignored:
        signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        if not ignored:
            signal.signal(signal.SIGINT, previous)
        _flag["depth"] -= 1
        if outer:
            _flag["raised"] = False


def note_interrupt() -> None:
    """Mark the guard's flag as a Ctrl-C would: for a stop that arrives another way (SIGTERM
    where SIGINT is ignored, as under ``nohup`` or in a background job) and is raised as
    ``KeyboardInterrupt`` by the command line's handler."""
    if _flag["depth"]:
        _flag["raised"] = True



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


def process_context():
    """The multiprocessing context for solver processes: fork where there is one (children
    start at once, with the compiled kernels already loaded), spawn elsewhere."""
    import multiprocessing as mp

    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


#: Held back while a worker process starts (see :func:`start_child`).
_CHILD_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})


def start_child(process) -> None:
    """Start a worker ``process`` (a ``multiprocessing`` process whose target first calls
    :func:`leave_signals_to_parent` or :func:`child_setup`) with SIGINT and SIGTERM blocked
    until it has set its own handlers.

    A forked child begins with its parent's handlers, which raise ``KeyboardInterrupt`` in the
    CLI. A ``terminate()`` that reached the child before its target set its own (the parent
    stopping right after starting it) was mostly lost, the child going on to its own deadline
    (without the mask, the worker test in tests/test_bad_input.py sees its child go on), or else
    raised there; in the instants between the fork and multiprocessing's own ``try`` the
    exception would carry the child back into its parent's code, to go on running it as a second
    copy. Blocked, the signal waits and then ends the child as meant."""
    if not hasattr(signal, "pthread_sigmask"):  # no POSIX signal masks (Windows): start as is
        process.start()
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _CHILD_SIGNALS)
    try:
        process.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def leave_signals_to_parent() -> None:
    """In a worker process: ignore Ctrl-C (the parent decides when to stop) and let SIGTERM end
    it (the CLI's handler, which stops as for Ctrl-C, is the parent's alone); then let through
    the signals :func:`start_child` held back (a SIGTERM sent meanwhile ends the process now)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _CHILD_SIGNALS)


def die_with_parent_hook() -> Callable[[], None] | None:
    """A call that makes the calling process be killed when its parent dies (Linux's
    PR_SET_PDEATHSIG; None elsewhere). The C function is looked up here, so that the call alone
    also suits a ``preexec_fn`` (between fork and exec: no import, no lock)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    kill = int(signal.SIGKILL)

    def hook() -> None:
        prctl(1, kill)  # PR_SET_PDEATHSIG

    return hook


def child_setup(parent: int) -> None:
    """In a worker process: leave Ctrl-C to the parent, and die with the parent (pid
    ``parent``) if it is killed, so no solver outlives the run that started it."""
    leave_signals_to_parent()
    hook = die_with_parent_hook()
    if hook is not None:
        hook()
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def limit_left(time_limit: float | None, called: float) -> float | None:
    """What is left of a call's ``time_limit`` at this moment (``called``: ``time.monotonic()``
    when the call began), at least 0.05 s: the limit covers the whole call, and building a
    large model takes seconds (an RO window of all Eternity II with CBC ran 13 s against 8)."""
    if time_limit is None:
        return None
    return max(time_limit - (time.monotonic() - called), 0.05)


def time_limit_seconds(value: Any) -> float | None:
    """A time limit: None (or infinity: no limit), or a positive number of seconds of any real
    type (numpy's, Fraction, Decimal); InputError otherwise."""
    import numbers
    from decimal import Decimal

    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Decimal)) or math.isnan(value) or value <= 0:
        raise InputError(f"the time limit is a positive number of seconds or None, not {value!r}")
    return None if math.isinf(value) else float(value)



#: Solver threads a call stopped waiting for after Ctrl-C (HiGHS inside a heuristic sub-MIP,
#: which does not look at the interrupt). They end on their own once the solver sees the
#: interrupt; a Python process waits for them at exit (a solver thread still calling back into
#: an interpreter that is shutting down aborts the process), the command line does not.
BACKGROUND_THREADS: list[threading.Thread] = []


def background_threads_alive() -> bool:
    return any(t.is_alive() for t in BACKGROUND_THREADS)


@atexit.register
def _join_background_threads() -> None:
    for t in BACKGROUND_THREADS:
        t.join()


#: Set by the command line for its run: C-level output on stdout (HiGHS's printf debug line)
#: goes to stderr while a solver runs (see :func:`c_stdout_to_stderr`).
REDIRECT_C_STDOUT = False


_STDOUT_LOCK = threading.Lock()
_STDOUT_USERS = [0, -1]  # solves inside c_stdout_to_stderr, and the saved stdout descriptor


@contextlib.contextmanager
def c_stdout_to_stderr() -> Iterator[None]:
    """Send what C code prints on standard output to standard error while a backend runs, when
    :data:`REDIRECT_C_STDOUT` is set (the command line sets it; a library caller's process keeps
    its stdout as it is, since the redirection is process-wide).

    HiGHS 1.12 prints a debug line ("HighsMipSolverData::transformNewIntegerFeasibleSolution
    ...") with printf, whatever its output settings, ahead of a board written to ``-o
    /dev/stdout``; CP-SAT's ``log_search_progress`` and HiGHS's ``log_to_console``, given in
    ``-O params=...``, printed their logs there, before ``--json``'s report. The redirection
    is the process's (every thread's); the commands print their progress on stderr and their
    results after the solve, so nothing of theirs is moved. Solves in several threads share
    one redirection (the last one out puts stdout back)."""
    if not REDIRECT_C_STDOUT:
        yield
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        with _STDOUT_LOCK:
            if _STDOUT_USERS[0] == 0:
                sys.stdout.flush()
                libc.fflush(None)
                saved = os.dup(1)
                try:
                    os.dup2(2, 1)
                except OSError:
                    os.close(saved)
                    raise
                _STDOUT_USERS[1] = saved
            _STDOUT_USERS[0] += 1
    except (OSError, AttributeError, ValueError):  # no C library to flush, or no descriptors: leave stdout
        yield
        return
    try:
        yield
    finally:
        with _STDOUT_LOCK:
            _STDOUT_USERS[0] -= 1
            if _STDOUT_USERS[0] == 0:
                try:
                    sys.stdout.flush()
                    libc.fflush(None)
                finally:  # stdout comes back whatever the flushes did
                    os.dup2(_STDOUT_USERS[1], 1)
                    os.close(_STDOUT_USERS[1])
                    _STDOUT_USERS[1] = -1



class Throttled:
    """Passes lines to ``emit`` at most one every ``every`` seconds (``emit`` None: never).
    Called with a function that makes the line, so nothing is formatted in between."""

    def __init__(self, emit: Callable[[str], None] | None, every: float = 0.5):
        self.emit, self.every = emit, every
        self.last = -float("inf")

    def __call__(self, line: Callable[[], str | None]) -> None:
        if self.emit is None:
            return
        now = time.monotonic()
        if now - self.last < self.every:
            return
        text = line()
        if text:
            self.last = now
            self.emit(text)
