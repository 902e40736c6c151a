"""Brute-force references for the solver tests: every solution of a tiny puzzle, the best
refill of a tiny region, written independently of every encoder."""

from __future__ import annotations

import itertools

import numpy as np

import emc
from emc.model import Board, PieceClass, Subproblem


def brute_force_solutions(puzzle, symmetry: bool = True, row_prefixes: list[int] | None = None) -> list[Board]:
    """Every perfect board, filled in reading order; with ``symmetry`` the lowest-numbered
    corner piece sits on the top-left cell (square) or one of the two top corners.
    ``row_prefixes`` (a list of H + 1 zeros) gets, at index L, how many fills of the first L
    rows match perfectly (frame sides grey, every edge between them matched)."""
    W, H, n = puzzle.width, puzzle.height, puzzle.n_cells
    cols = puzzle.colours
    corner = min(int(p) for p in range(puzzle.n_pieces) if puzzle.piece_class[p] == PieceClass.CORNER)
    sym_cells = {0} if W == H else {0, W - 1}
    out: list[Board] = []
    piece = [-1] * n
    rot = [0] * n
    used = [False] * puzzle.n_pieces

    def ok(cell, p, r):
        row, col = divmod(cell, W)
        c = cols[p, r]
        frame = (row == 0, col == W - 1, row == H - 1, col == 0)
        if any((c[s] == 0) != frame[s] for s in range(4)):
            return False
        if symmetry:
            if p == corner and cell not in sym_cells:
                return False
            if W == H and cell == 0 and p != corner:
                return False
        if col > 0 and cols[piece[cell - 1], rot[cell - 1], 1] != c[3]:
            return False
        if row > 0 and cols[piece[cell - W], rot[cell - W], 2] != c[0]:
            return False
        return True

    def go(cell):
        if row_prefixes is not None and cell % W == 0:
            row_prefixes[cell // W] += 1
        if cell == n:
            out.append(Board(W, H, np.array(piece), np.array(rot)))
            return
        for p in range(puzzle.n_pieces):
            if used[p]:
                continue
            for r in range(4):
                if ok(cell, p, r):
                    used[p], piece[cell], rot[cell] = True, p, r
                    go(cell + 1)
                    used[p], piece[cell] = False, -1

    go(0)
    return out


def brute_force_optimum(sp: Subproblem) -> int:
    """Best score over every assignment of the allowed pieces and rotations to the free cells."""
    best = -1
    P = sp.puzzle
    for perm in itertools.permutations(sp.pieces, sp.n_free):
        options = [[r for r in range(4) if P.fits[p, c, r]] for p, c in zip(perm, sp.free)]
        if any(not o for o in options):
            continue
        for rots in itertools.product(*options):
            b = sp.fixed.copy()
            for c, p, r in zip(sp.free, perm, rots):
                b.place(int(c), int(p), int(r))
            best = max(best, sp.score(b))
    return best


def swapped_blocks(seed: int):
    """A 6x6 planted board whose inner 2x2 blocks at r2c2 and r4c4 trade pieces, and the
    sub-problem of refilling the first block with the pieces now on it."""
    P, planted = emc.generate(6, 6, 2, 6, seed=seed)
    A = [P.cell_of(r, c) for r in (1, 2) for c in (1, 2)]
    B = [P.cell_of(r, c) for r in (3, 4) for c in (3, 4)]
    board = planted.copy()
    for a, b in zip(A, B):
        board.piece[a], board.piece[b] = planted.piece[b], planted.piece[a]
        board.rotation[a], board.rotation[b] = planted.rotation[b], planted.rotation[a]
    return P, board, A




def every_fill(sp: Subproblem):
    """Every way to fill ``sp``'s free cells with its pieces in frame-fitting turns: (pieces,
    rotations, board) per fill, the first two per free cell in order."""
    P = sp.puzzle
    cells = sp.free.tolist()
    for perm in itertools.permutations(sp.pieces.tolist(), sp.n_free):
        options = [[r for r in range(4) if P.fits[p, c, r]] for p, c in zip(perm, cells)]
        for rots in itertools.product(*options):
            b = sp.fixed.copy()
            for c, p, r in zip(cells, perm, rots):
                b.place(int(c), int(p), int(r))
            yield perm, rots, b
