"""Puzzles the tests share."""

from __future__ import annotations

import numpy as np

import emc
from emc.model import Goal, PieceClass, Subproblem


def unsolvable(puzzle: emc.Puzzle) -> emc.Puzzle:
    """The puzzle with one inner side recoloured to a new colour: no perfect board exists,
    while every piece still fits the frame as before."""
    pieces = puzzle.pieces.copy()
    inner = int(np.flatnonzero(puzzle.piece_class == PieceClass.INNER)[0])
    pieces[inner, 0] = puzzle.max_colour + 1
    return emc.Puzzle(puzzle.width, puzzle.height, pieces, (), puzzle.name + "-broken")


def unsolvable_optimisation(name: str) -> Subproblem:
    """A shipped puzzle made :func:`unsolvable`, whole, to optimise: a solver must bring its
    bound down from a perfect board, which gives progress lines to look at."""
    return Subproblem.whole(unsolvable(emc.load(name)), Goal.OPTIMISATION)
