"""emc: edge-matching puzzles of the Eternity II family.

A model compiler (MILP, max-clique graphs, CNF/WCNF, CP-SAT, MiniZinc), pluggable exact
solver backends, and the region-decomposition matheuristic, on one puzzle model.

Quick start::

    import emc
    puzzle = emc.load("meta-10x10")
    puzzle, planted = emc.generate(8, 8, frame_colours=3, inner_colours=5, seed=1)
    report = emc.verify(puzzle, planted)
"""

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
