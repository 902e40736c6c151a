"""The numba-optional decorator of the shared core's kernels, for them and for search loops
built on them.

numba is an optional extra (``emc[fast]``). With it, a function decorated with :data:`njit` is
compiled on first use and cached on disk, and compiled functions call each other as compiled
code; without it the same functions run as plain Python (correct, one to two orders of
magnitude slower), as in :mod:`emc.heuristics.decomposition.kernels`.

The kernels take the named tuples of :mod:`~emc.heuristics.core.state` (two dozen arrays) and
are compiled without numba's reference counting (``_nrt=False``), so they cannot allocate
arrays: every buffer is made beforehand, in Python. With reference counting, numba increments
and decrements the count of every array of a tuple whose field is read in a branch, and fails
to pair them away: an Obj1 swap delta ran at 1.4 million per second that way and at 42
million without (docs/local-search-core.md). A search loop that calls the kernels should be
compiled with this :data:`njit` as well (and allocate nothing), or read the fields it needs
into local variables at its top. ``_nrt`` is an option of numba's CPU target, not part of its
documented interface: where it is missing the kernels compile with reference counting (slower,
still correct).
"""

from __future__ import annotations

try:  # numba is optional: fall back to plain Python with the same code
    from numba import njit as _njit
    from numba.core.cpu import CPUTargetOptions as _Options

    from ..._compile_clock import install as _clock_compiles

    _clock_compiles()
    HAVE_NUMBA = True
    NO_REFCOUNT = hasattr(_Options, "_nrt")
except ImportError:  # pragma: no cover - exercised only on installs without numba
    HAVE_NUMBA = False
    NO_REFCOUNT = False

    def _njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f


#: ``@njit``: compiled, cached, without reference counting (see above); the plain function
#: without numba.
njit = _njit(cache=True, _nrt=False) if NO_REFCOUNT else _njit(cache=True)
