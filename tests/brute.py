"""Brute-force answers for tiny puzzles, written without emc's encoders or backends.

Used as ground truth: solution counts by plain backtracking over cells, and sub-problem
optima by trying every permutation and rotation.
"""

from __future__ import annotations

import itertools



def _shows(pieces, p, k):
    """Colours piece p shows after k clockwise quarter turns (top, right, bottom, left)."""
    row = pieces[p]
    return tuple(int(row[(s - k) % 4]) for s in range(4))


def count_solutions(puzzle, symmetry: bool = True) -> int:
    """Perfect boards of a whole puzzle (hints honoured). With ``symmetry``, the first corner
    piece of the file must sit on the top-left cell (square) or a top corner (rectangle)."""
    W, H, pieces = puzzle.width, puzzle.height, puzzle.pieces
    n = W * H
    hint_at = {h.cell: (h.piece, h.rotation) for h in puzzle.hints}
    corners = [p for p in range(n) if list(pieces[p]).count(0) == 2]
    first = corners[0]
    allowed_first = {0} if W == H else {0, W - 1}
    use_sym = symmetry and not puzzle.hints
    cell_piece = [None] * n
    used = [False] * n
    count = 0

    def ok(cell, sh):
        r, c = divmod(cell, W)
        for side, at_frame in ((0, r == 0), (1, c == W - 1), (2, r == H - 1), (3, c == 0)):
            if (sh[side] == 0) != at_frame:
                return False
        if c > 0 and cell_piece[cell - 1][2] != sh[3]:
            return False
        if r > 0 and cell_piece[cell - W][1] != sh[0]:
            return False
        return True

    def go(cell):
        nonlocal count
        if cell == n:
            count += 1
            return
        cands = [hint_at[cell]] if cell in hint_at else [(p, k) for p in range(n) for k in range(4)]
        for p, k in cands:
            if used[p] or (cell not in hint_at and any(h[0] == p for h in hint_at.values())):
                continue
            if use_sym and p == first and cell not in allowed_first:
                continue
            if use_sym and W == H and cell == 0 and p != first:
                continue
            sh = _shows(pieces, p, k)
            if not ok(cell, sh):
                continue
            used[p] = True
            # keep (piece, bottom colour, right colour) of the cell for its neighbours
            cell_piece[cell] = (p, sh[2], sh[1])
            go(cell + 1)
            used[p] = False
            cell_piece[cell] = None

    go(0)
    return count


def region_optimum(puzzle, board, free: list[int]) -> int:
    """Best number of matched counted edges when the pieces on ``free`` are rearranged there."""
    W = puzzle.width
    pieces = puzzle.pieces
    free = list(free)
    fset = set(free)
    mine = [int(board.piece[c]) for c in free]
    shown = {c: _shows(pieces, int(board.piece[c]), int(board.rotation[c])) for c in range(puzzle.n_cells)
             if board.piece[c] >= 0 and c not in fset}
    H = puzzle.height

    def fits(cell, sh):
        r, c = divmod(cell, W)
        return all((sh[s] == 0) == f for s, f in ((0, r == 0), (1, c == W - 1), (2, r == H - 1), (3, c == 0)))

    best = -1
    for perm in itertools.permutations(mine):
        options = []
        for cell, p in zip(free, perm):
            opts = [_shows(pieces, p, k) for k in range(4) if fits(cell, _shows(pieces, p, k))]
            if not opts:
                break
            options.append(opts)
        else:
            for choice in itertools.product(*options):
                view = dict(shown)
                view.update(zip(free, choice))
                s = 0
                for cell in free:
                    r, c = divmod(cell, W)
                    for side, (dr, dc), opp in ((1, (0, 1), 3), (2, (1, 0), 0), (3, (0, -1), 1), (0, (-1, 0), 2)):
                        rr, cc = r + dr, c + dc
                        if not (0 <= rr < H and 0 <= cc < W):
                            continue
                        nb = rr * W + cc
                        if nb not in view:
                            continue
                        if nb in fset and nb < cell:
                            continue  # count edges between two free cells once
                        a, b = view[cell][side], view[nb][opp]
                        s += a == b and a != 0
                best = max(best, s)
    return best


def scrambled_region(puzzle, board, free, seed: int):
    """A copy of ``board`` whose pieces on ``free`` are permuted and turned (still frame-fitting
    where possible), so that the region's optimum is usually below its maximum."""
    from emc.rng import StableRng

    rng = StableRng(seed)
    b = board.copy()
    perm = rng.permutation(len(free))
    old = [int(board.piece[c]) for c in free]
    for i, c in enumerate(free):
        b.piece[c] = old[perm[i]]
        b.rotation[c] = rng.below(4)
    return b
