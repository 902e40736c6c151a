"""Starting boards every local search can begin from.

* :func:`random_board`: every piece on a random cell of its class (corner, edge, inner), in
  the rotation its cell forces, inner pieces turned at random; hints in place (or not, with
  ``hints=False``); optionally one corner piece on the top-left cell, which seed 003 (section
  4.1) keeps there for the whole run so that the search does not wander among turned copies of
  the same board (pass ``fixed=(TOP_LEFT,)`` to :class:`~emc.heuristics.core.state.BoardState`).
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError
from ...model import Board, PieceClass, Puzzle, require_puzzle, require_seed

#: The top-left cell, where a start may put a corner piece for the run.
TOP_LEFT = 0


def random_board(puzzle: Puzzle, seed: int | np.random.Generator = 0, hints: bool = True,
                 corner: int | str | None = None) -> Board:
    """A random valid board: hints in place (unless ``hints`` is false: then the hint pieces are
    placed at random like the others), every other piece on a random cell of its class in the
    rotation that fits (inner pieces in a random rotation).

    ``corner``: a corner piece (0-based) to put on the top-left cell in the rotation it needs
    there, or ``"random"`` for one drawn from the seed (seed 003, section 4.1), or None. Whether
    it breaks a symmetry depends on the puzzle: a square board without hints honoured has every
    solution turned so that any corner piece is on the top-left cell; a rectangular one (only
    the half turn) or hints honoured do not, and the fixed corner then restricts the search.
    """
    require_puzzle(puzzle, "random_board")
    if not isinstance(hints, bool):
        raise TypeError(f"random_board: hints is True or False, not {hints!r}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(require_seed(seed, "random_board"))
    board = Board.from_hints(puzzle) if hints else Board.empty(puzzle)
    if corner is not None:
        corners = np.flatnonzero(puzzle.piece_class == PieceClass.CORNER)
        corners = corners[~np.isin(corners, board.piece)]
        if isinstance(corner, str):
            if corner != "random":
                raise InputError(f"random_board: corner is a piece number, 'random' or None, not {corner!r}")
            if not len(corners):
                raise InputError("random_board: no free corner piece to put on the top-left cell")
            corner = int(corners[rng.integers(len(corners))])
        elif isinstance(corner, bool) or not isinstance(corner, (int, np.integer)):
            raise TypeError(f"random_board: corner is a piece number, 'random' or None, not {corner!r}")
        if board.piece[TOP_LEFT] >= 0:
            raise InputError(f"random_board: the top-left cell holds hint piece {board.piece[TOP_LEFT] + 1}")
        if corner not in corners:
            raise InputError(f"random_board: piece {corner + 1} is not a free corner piece of {puzzle.name}"
                             if 0 <= corner < puzzle.n_pieces else f"random_board: there is no piece {corner + 1}")
        rots = np.flatnonzero(puzzle.fits[corner, TOP_LEFT])
        board.place(TOP_LEFT, int(corner), int(rots[0]))
    used = set(int(p) for p in board.piece if p >= 0)
    for k in PieceClass:
        cells = np.flatnonzero((puzzle.cell_class == k) & (board.piece < 0))
        pieces = np.array([p for p in np.flatnonzero(puzzle.piece_class == k) if int(p) not in used], dtype=np.int64)
        if len(cells) != len(pieces):
            raise InputError(f"{len(pieces)} free {k.label} pieces for {len(cells)} {k.label} cells")
        pieces = pieces[rng.permutation(len(pieces))]
        for c, p in zip(cells, pieces):
            rots = np.flatnonzero(puzzle.fits[p, c])
            if len(rots) == 0:
                raise InputError(f"piece {p + 1} fits no rotation on {puzzle.cell_label(c)}")
            board.place(int(c), int(p), int(rots[rng.integers(len(rots))]))
    return board
