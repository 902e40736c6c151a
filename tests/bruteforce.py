"""The brute-force oracle of the test suite: answers for tiny puzzles and sub-problems, written
without emc's encoders, backends, colour tables or scoring.

It reads only a puzzle's raw pieces (four colours clockwise from the top), its size and hints,
and a sub-problem's fixed board, free cells and allowed pieces; turning a piece, the frame
rule, the symmetry rule and the counted edges are all spelt out again here. Ground truth for:

* every perfect board of a whole puzzle (:func:`brute_force_solutions`, :func:`count_solutions`);
* every fill of a sub-problem and the best score over them (:func:`every_fill`,
  :func:`fill_score`, :func:`brute_force_optimum`, :func:`region_optimum`);
* a few ready-made tiny sub-problems (:func:`swapped_blocks`, :func:`scrambled_region`).
"""

from __future__ import annotations

import itertools

import numpy as np

import emc
from emc.model import Board, Goal, Subproblem

# side s of a cell looks at the neighbour one step this way, which sees it from side (s + 2) % 4
_STEP = ((-1, 0), (0, 1), (1, 0), (0, -1))


def _shows(pieces, p: int, k: int) -> tuple[int, ...]:
    """Colours piece ``p`` shows after ``k`` clockwise quarter turns (top, right, bottom, left)."""
    row = pieces[p]
    return tuple(int(row[(s - k) % 4]) for s in range(4))


def _frame_ok(W: int, H: int, cell: int, shown) -> bool:
    """The border colour 0 faces exactly the cell's frame sides."""
    r, c = divmod(cell, W)
    return all((shown[s] == 0) == at for s, at in ((0, r == 0), (1, c == W - 1), (2, r == H - 1), (3, c == 0)))


def _neighbour(W: int, H: int, cell: int, side: int) -> int:
    r, c = divmod(cell, W)
    rr, cc = r + _STEP[side][0], c + _STEP[side][1]
    return rr * W + cc if 0 <= rr < H and 0 <= cc < W else -1


def _first_corner(puzzle) -> int:
    """The lowest-numbered piece with two border sides: symmetry breaking pins it."""
    return min(p for p in range(puzzle.n_pieces) if list(puzzle.pieces[p]).count(0) == 2)


def brute_force_solutions(puzzle, symmetry: bool = True, row_prefixes: list[int] | None = None) -> list[Board]:
    """Every perfect board of a whole puzzle, filled in reading order (hints honoured). With
    ``symmetry`` and no hints, the lowest-numbered corner piece sits on the top-left cell
    (square) or one of the two top corners (rectangle). ``row_prefixes`` (a list of H + 1
    zeros) gets, at index L, how many fills of the first L rows match perfectly."""
    W, H, n = puzzle.width, puzzle.height, puzzle.n_cells
    pieces = puzzle.pieces
    hint_at = {h.cell: (h.piece, h.rotation) for h in puzzle.hints}
    hinted = {h.piece for h in puzzle.hints}
    use_sym = symmetry and not puzzle.hints
    corner = _first_corner(puzzle)
    sym_cells = {0} if W == H else {0, W - 1}
    shown: list = [None] * n
    piece = [-1] * n
    rot = [0] * n
    used = [False] * puzzle.n_pieces
    out: list[Board] = []

    def ok(cell, p, sh):
        if not _frame_ok(W, H, cell, sh):
            return False
        if use_sym and ((p == corner and cell not in sym_cells) or (W == H and cell == 0 and p != corner)):
            return False
        r, c = divmod(cell, W)
        if c > 0 and shown[cell - 1][1] != sh[3]:
            return False
        if r > 0 and shown[cell - W][2] != sh[0]:
            return False
        return True

    def go(cell):
        if row_prefixes is not None and cell % W == 0:
            row_prefixes[cell // W] += 1
        if cell == n:
            out.append(Board(W, H, np.array(piece), np.array(rot)))
            return
        cands = [hint_at[cell]] if cell in hint_at else [(p, k) for p in range(puzzle.n_pieces) for k in range(4)
                                                         if p not in hinted]
        for p, k in cands:
            if used[p]:
                continue
            sh = _shows(pieces, p, k)
            if ok(cell, p, sh):
                used[p], piece[cell], rot[cell], shown[cell] = True, p, k, sh
                go(cell + 1)
                used[p], piece[cell], shown[cell] = False, -1, None

    go(0)
    return out


def count_solutions(puzzle, symmetry: bool = True) -> int:
    """How many perfect boards :func:`brute_force_solutions` finds."""
    return len(brute_force_solutions(puzzle, symmetry))


def every_fill(sp: Subproblem):
    """Every way to fill ``sp``'s free cells with its pieces in frame-fitting turns: (pieces,
    rotations, board) per fill, the first two per free cell in order."""
    P = sp.puzzle
    cells = [int(c) for c in sp.free]
    for perm in itertools.permutations([int(p) for p in sp.pieces], len(cells)):
        options = [[k for k in range(4) if _frame_ok(P.width, P.height, c, _shows(P.pieces, p, k))]
                   for p, c in zip(perm, cells)]
        for rots in itertools.product(*options):
            b = sp.fixed.copy()
            for c, p, k in zip(cells, perm, rots):
                b.place(c, p, k)
            yield perm, rots, b


def fill_score(sp: Subproblem, board: Board) -> int:
    """Matched counted edges of ``board``: edges between two free cells, or between a free cell
    and a filled fixed one, whose two sides show the same colour other than the border."""
    P = sp.puzzle
    W, H = P.width, P.height
    free = {int(c) for c in sp.free}
    n = 0
    for cell in free:
        mine = _shows(P.pieces, int(board.piece[cell]), int(board.rotation[cell]))
        for side in range(4):
            nb = _neighbour(W, H, cell, side)
            if nb < 0 or board.piece[nb] < 0 or (nb in free and nb < cell):  # an edge of two free cells once
                continue
            theirs = _shows(P.pieces, int(board.piece[nb]), int(board.rotation[nb]))
            n += mine[side] == theirs[(side + 2) % 4] and mine[side] != 0
    return n


def brute_force_optimum(sp: Subproblem) -> int:
    """The best score over every fill of ``sp`` (-1 when none fits the frame)."""
    return max((fill_score(sp, b) for *_, b in every_fill(sp)), default=-1)


def region_optimum(puzzle, board: Board, free) -> int:
    """The best score when the pieces on ``free`` are rearranged there."""
    return brute_force_optimum(Subproblem.region(puzzle, board, list(free), Goal.OPTIMISATION))


def swapped_blocks(seed: int):
    """A 6x6 planted board whose inner 2x2 blocks at r2c2 and r4c4 trade pieces, and the
    cells of the first block (re-solving them with the pieces now there is a sub-problem)."""
    P, planted = emc.generate(6, 6, 2, 6, seed=seed)
    A = [P.cell_of(r, c) for r in (1, 2) for c in (1, 2)]
    B = [P.cell_of(r, c) for r in (3, 4) for c in (3, 4)]
    board = planted.copy()
    for a, b in zip(A, B):
        board.piece[a], board.piece[b] = planted.piece[b], planted.piece[a]
        board.rotation[a], board.rotation[b] = planted.rotation[b], planted.rotation[a]
    return P, board, A


def scrambled_region(puzzle, board: Board, free, seed: int) -> Board:
    """A copy of ``board`` whose pieces on ``free`` are permuted and turned at random, so that
    the region's optimum is usually below its maximum."""
    from emc.rng import StableRng

    rng = StableRng(seed)
    b = board.copy()
    perm = rng.permutation(len(free))
    old = [int(board.piece[c]) for c in free]
    for i, c in enumerate(free):
        b.piece[c] = old[perm[i]]
        b.rotation[c] = rng.below(4)
    return b
