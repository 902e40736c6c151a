"""Starting boards every local search can begin from.

* :func:`random_board`: every piece on a random cell of its class (corner, edge, inner), in
  the rotation its cell forces, inner pieces turned at random; hints in place.
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError
from ...model import Board, PieceClass, Puzzle, require_puzzle, require_seed


def random_board(puzzle: Puzzle, seed: int | np.random.Generator = 0) -> Board:
    """A random valid board: hints in place, every other piece on a random cell of its class
    in the rotation that fits (inner pieces in a random rotation)."""
    require_puzzle(puzzle, "random_board")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(require_seed(seed, "random_board"))
    board = Board.from_hints(puzzle)
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
