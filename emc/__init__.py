"""emc: edge-matching puzzles of the Eternity II family.

A model compiler (MILP, max-clique graphs, CNF/WCNF, CP-SAT, MiniZinc), pluggable exact
solver backends, and the region-decomposition matheuristic, on one puzzle model.

Quick start::

    import emc
    puzzle = emc.load("meta-10x10")
    puzzle, planted = emc.generate(8, 8, frame_colours=3, inner_colours=5, seed=1)
    report = emc.verify(puzzle, planted)
"""

import os as _os
import sys as _sys
import types as _types


def _numba_cache_fallback() -> None:
    """Compiled kernels are cached (``cache=True``) beside the package or in the user's cache
    folder; an install where neither can be written (read-only site-packages, no home) made
    numba refuse to compile at all. Then the cache goes to a folder under the system's temp."""
    if "NUMBA_CACHE_DIR" in _os.environ:
        return
    here = _os.path.dirname(__file__)
    home_cache = _os.path.join(_os.path.expanduser("~"), ".cache")
    for folder in (here, home_cache, _os.path.expanduser("~")):
        if _os.path.isdir(folder) and _os.access(folder, _os.W_OK | _os.X_OK):
            return
    import tempfile

    _os.environ["NUMBA_CACHE_DIR"] = _os.path.join(tempfile.gettempdir(), f"emc-numba-cache-{_os.getuid()}")


_numba_cache_fallback()

from .errors import EmcError, InputError  # noqa: E402 (after the cache fallback, which must come first)

__version__ = "0.1.0"

__all__ = [
    "Board",
    "EmcError",
    "Goal",
    "Hint",
    "InputError",
    "PieceClass",
    "Puzzle",
    "Report",
    "Subproblem",
    "generate",
    "load",
    "optimise",
    "read_board",
    "read_puzzle",
    "resolve",
    "score",
    "scores",
    "verify",
    "write_board",
    "write_puzzle",
]

# The rest of the API is imported when first used (PEP 562): ``import emc`` then costs no numpy,
# so the ``emc`` command reaches its Ctrl-C handling within a few hundredths of a second (an
# import of everything took about 0.3 s, during which a Ctrl-C ended in a traceback).
_LAZY = {
    "read_board": "formats", "read_puzzle": "formats", "write_board": "formats", "write_puzzle": "formats",
    "generate": "generate",
    "load": "instances", "resolve": "instances",
    "optimise": "heuristics",
    "Board": "model", "Goal": "model", "Hint": "model", "PieceClass": "model", "Puzzle": "model",
    "Subproblem": "model",
    "Report": "score", "score": "score", "scores": "score", "verify": "score",
}
#: Functions named like the submodule that holds them: ``emc.score`` and ``emc.generate`` are the
#: functions, as they were when everything was imported at once, even after the submodules load.
_SHADOWED = ("generate", "score")


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'emc' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later uses find it directly
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


class _Package(_types.ModuleType):
    """The package's module type: loading ``emc.score`` or ``emc.generate`` binds the submodule
    as an attribute of the package, which would hide the function of that name (the submodule
    stays reachable as ``sys.modules["emc.score"]`` and by ``from emc.score import ...``)."""

    def __setattr__(self, name: str, value) -> None:
        if name in _SHADOWED and isinstance(value, _types.ModuleType):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package
