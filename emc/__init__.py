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

from .errors import EmcError, InputError
from .formats import read_board, read_puzzle, write_board, write_puzzle
from .generate import generate
from .instances import load, resolve
from .model import Board, Goal, Hint, PieceClass, Puzzle, Subproblem
from .score import score, scores, verify

__version__ = "0.1.0"

__all__ = [
    "Board",
    "EmcError",
    "Goal",
    "Hint",
    "InputError",
    "PieceClass",
    "Puzzle",
    "Subproblem",
    "generate",
    "load",
    "read_board",
    "read_puzzle",
    "resolve",
    "score",
    "scores",
    "verify",
    "write_board",
    "write_puzzle",
]
