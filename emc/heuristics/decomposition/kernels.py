"""Compiled inner loops of the local search (Salassa et al., seed 000, section 3.3).

Every function here works on plain arrays so that numba can compile it:

* ``colours``: ``Puzzle.colours``, ``(pieces, 4 rotations, 4 sides)``;
* ``neighbours``: ``Puzzle.neighbours``, ``(cells, 4)``, -1 at the frame;
* ``fits``: ``Puzzle.fits`` as ``uint8``, ``(pieces, cells, 4)``: the rotation puts the
  border colour exactly on the cell's frame sides;
* ``piece`` / ``rotation``: ``Board.piece`` / ``Board.rotation`` (-1 = empty cell).

An internal edge is matched when both sides show the same colour and that colour is not
the border colour 0, exactly as in :mod:`emc.score` (the pure-Python reference these
kernels are tested against).

numba is an optional dependency (``emc[fast]``). Without it the same functions run as plain
Python: correct, but one to two orders of magnitude slower.
"""

from __future__ import annotations

import numpy as np

try:  # numba is optional: fall back to plain Python with the same code
    from numba import njit as _njit

    from ..._compile_clock import install as _clock_compiles

    _clock_compiles()
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised only on installs without numba
    HAVE_NUMBA = False

    def _njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f


njit = _njit(cache=True)


@njit
def placement_matches(colours, neighbours, piece, rotation, cell, p, r, ignore):
    """Matched edges piece ``p`` turned ``r`` would make on ``cell`` against the filled
    neighbours, treating cell ``ignore`` as empty."""
    n = 0
    for s in range(4):
        nb = neighbours[cell, s]
        if nb < 0 or nb == ignore:
            continue
        q = piece[nb]
        if q < 0:
            continue
        c = colours[p, r, s]
        if c != 0 and c == colours[q, rotation[nb], (s + 2) % 4]:
            n += 1
    return n


@njit
def cell_matches(colours, neighbours, piece, rotation, cell, ignore):
    """Matched edges of the piece on ``cell`` (0 when empty), ``ignore`` treated as empty."""
    p = piece[cell]
    if p < 0:
        return 0
    return placement_matches(colours, neighbours, piece, rotation, cell, p, rotation[cell], ignore)


@njit
def board_score(colours, neighbours, piece, rotation):
    """Matched internal edges of the whole board (each edge counted once)."""
    n = 0
    for cell in range(piece.shape[0]):
        p = piece[cell]
        if p < 0:
            continue
        r = rotation[cell]
        # right and bottom sides only, so every edge is seen once
        for s in range(1, 3):
            nb = neighbours[cell, s]
            if nb < 0:
                continue
            q = piece[nb]
            if q < 0:
                continue
            c = colours[p, r, s]
            if c != 0 and c == colours[q, rotation[nb], (s + 2) % 4]:
                n += 1
    return n


@njit
def unmatched_sides(colours, neighbours, piece, rotation):
    """Per cell: internal sides whose edge is not matched (empty cells count 0)."""
    n_cells = piece.shape[0]
    out = np.zeros(n_cells, dtype=np.int64)
    for cell in range(n_cells):
        if piece[cell] < 0:
            continue
        inside = 0
        for s in range(4):
            if neighbours[cell, s] >= 0:
                inside += 1
        out[cell] = inside - cell_matches(colours, neighbours, piece, rotation, cell, -1)
    return out


@njit
def adjacent_side(neighbours, a, b):
    """The side of ``a`` that faces ``b``, or -1 when they are not neighbours."""
    for s in range(4):
        if neighbours[a, s] == b:
            return s
    return -1


@njit
def swap_delta(colours, neighbours, piece, rotation, a, b, rot_a, rot_b):
    """Change of score when the pieces on ``a`` and ``b`` trade places, the one arriving on
    ``a`` turned ``rot_a`` and the one arriving on ``b`` turned ``rot_b``. With ``a == b``:
    the change from turning the piece on ``a`` to ``rot_a``. Constant time."""
    pa = piece[a]
    pb = piece[b]
    if a == b:
        return placement_matches(colours, neighbours, piece, rotation, a, pa, rot_a, -1) - cell_matches(
            colours, neighbours, piece, rotation, a, -1)
    before = cell_matches(colours, neighbours, piece, rotation, a, -1) + cell_matches(
        colours, neighbours, piece, rotation, b, a)
    after = placement_matches(colours, neighbours, piece, rotation, a, pb, rot_a, b) + placement_matches(
        colours, neighbours, piece, rotation, b, pa, rot_b, a)
    s = adjacent_side(neighbours, a, b)
    if s >= 0:
        ca = colours[pb, rot_a, s]
        if ca != 0 and ca == colours[pa, rot_b, (s + 2) % 4]:
            after += 1
    return after - before


@njit
def tsr_best_move(colours, neighbours, fits, piece, rotation, cells, starts):
    """Best swap-and-rotate move of the whole TSR neighbourhood.

    ``cells`` holds the movable cells grouped by class, group ``g`` being
    ``cells[starts[g]:starts[g + 1]]``; two cells are only swapped inside a group. Every
    pair is tried with every rotation of both pieces that fits its new cell (for frame cells
    that is one rotation), and every cell with every other fitting rotation in place.

    Returns:
        ``(delta, a, b, rot_a, rot_b)`` of the best move; ``delta <= 0`` means no improving
        move exists (the board is a local optimum).
    """
    best = 0
    ba, bb, bra, brb = -1, -1, 0, 0
    for g in range(starts.shape[0] - 1):
        lo, hi = starts[g], starts[g + 1]
        for i in range(lo, hi):
            a = cells[i]
            pa = piece[a]
            cur_a = cell_matches(colours, neighbours, piece, rotation, a, -1)
            for r in range(4):
                if r != rotation[a] and fits[pa, a, r]:
                    d = placement_matches(colours, neighbours, piece, rotation, a, pa, r, -1) - cur_a
                    if d > best:
                        best, ba, bb, bra, brb = d, a, a, r, r
            for j in range(i + 1, hi):
                b = cells[j]
                pb = piece[b]
                before = cur_a + cell_matches(colours, neighbours, piece, rotation, b, a)
                s = adjacent_side(neighbours, a, b)
                for ra in range(4):
                    if not fits[pb, a, ra]:
                        continue
                    ma = placement_matches(colours, neighbours, piece, rotation, a, pb, ra, b)
                    for rb in range(4):
                        if not fits[pa, b, rb]:
                            continue
                        mb = placement_matches(colours, neighbours, piece, rotation, b, pa, rb, a)
                        extra = 0
                        if s >= 0:
                            c1 = colours[pb, ra, s]
                            if c1 != 0 and c1 == colours[pa, rb, (s + 2) % 4]:
                                extra = 1
                        d = ma + mb + extra - before
                        if d > best:
                            best, ba, bb, bra, brb = d, a, b, ra, rb
    return best, ba, bb, bra, brb


@njit
def tsr_descent(colours, neighbours, fits, piece, rotation, cells, starts, max_moves):
    """Apply best TSR moves until none improves or ``max_moves`` were made (in place).

    Returns:
        ``(total gain, moves made, 1 if a local optimum was reached else 0)``.
    """
    gain = 0
    moves = 0
    while moves < max_moves:
        d, a, b, ra, rb = tsr_best_move(colours, neighbours, fits, piece, rotation, cells, starts)
        if d <= 0:
            return gain, moves, 1
        pa = piece[a]
        if a == b:
            rotation[a] = ra
        else:
            piece[a] = piece[b]
            rotation[a] = ra
            piece[b] = pa
            rotation[b] = rb
        gain += d
        moves += 1
    return gain, moves, 0


@njit
def assignment_weights(colours, neighbours, fits, piece, rotation, cells, pieces):
    """Weights of the assignment problem of TA and BW.

    ``weight[i, j]`` is the best number of matched edges piece ``pieces[i]`` can make on
    ``cells[j]`` over the rotations that fit the cell, against the pieces on the board
    around it; -1 when no rotation fits. The cells must be pairwise non-adjacent, so their
    neighbours are never among them and the weights are independent of each other.

    Returns:
        ``(weight, best_rotation)``, both ``(len(pieces), len(cells))``.
    """
    k = pieces.shape[0]
    m = cells.shape[0]
    w = np.full((k, m), -1, dtype=np.int64)
    rot = np.zeros((k, m), dtype=np.int32)
    for i in range(k):
        p = pieces[i]
        for j in range(m):
            c = cells[j]
            for r in range(4):
                if fits[p, c, r]:
                    v = placement_matches(colours, neighbours, piece, rotation, c, p, r, -1)
                    if v > w[i, j]:
                        w[i, j] = v
                        rot[i, j] = r
    return w, rot


@njit
def sample_nonadjacent(neighbours, cand, weight, k, u):
    """Draw up to ``k`` pairwise non-adjacent cells from ``cand`` without replacement.

    Each draw picks a remaining candidate with probability proportional to ``weight`` (using
    the uniform number ``u[t]`` for draw ``t``, so the caller owns the random stream), then
    drops it and its four neighbours from the candidates. Diagonal neighbours stay allowed.
    """
    n_cells = neighbours.shape[0]
    pos = np.full(n_cells, -1, dtype=np.int64)
    for i in range(cand.shape[0]):
        pos[cand[i]] = i
    alive = weight.astype(np.float64).copy()
    out = np.empty(k, dtype=np.int64)
    n = 0
    for t in range(k):
        total = alive.sum()
        if total <= 0.0:
            break
        x = u[t] * total
        idx = -1
        acc = 0.0
        for i in range(alive.shape[0]):
            if alive[i] > 0.0:
                idx = i
                acc += alive[i]
                if acc > x:
                    break
        c = cand[idx]
        out[n] = c
        n += 1
        alive[idx] = 0.0
        for s in range(4):
            nb = neighbours[c, s]
            if nb >= 0 and pos[nb] >= 0:
                alive[pos[nb]] = 0.0
    return out[:n]


@njit
def fill_greedy(colours, neighbours, fits, piece, rotation, cells, pieces):
    """Fill the empty ``cells`` in the given order, each with the unused piece of ``pieces``
    and the fitting rotation that match most edges with the filled neighbours (first one on
    ties). In place. Used to finish a board when a solver gave no answer in time.

    Returns:
        The number of cells left empty because no remaining piece fits them (0 when the
        pieces' classes match the cells', as they do in every well-formed puzzle).
    """
    used = np.zeros(pieces.shape[0], dtype=np.uint8)
    left = 0
    for ci in range(cells.shape[0]):
        c = cells[ci]
        if piece[c] >= 0:
            continue
        best = -1
        bi = -1
        br = 0
        for i in range(pieces.shape[0]):
            if used[i]:
                continue
            p = pieces[i]
            for r in range(4):
                if fits[p, c, r]:
                    v = placement_matches(colours, neighbours, piece, rotation, c, p, r, -1)
                    if v > best:
                        best, bi, br = v, i, r
        if bi < 0:
            left += 1
            continue
        used[bi] = 1
        piece[c] = pieces[bi]
        rotation[c] = br
    return left


# ------------------------------------------------------------------ TSR with a move table
# A full TSR scan costs O(n^2 * 16) placement evaluations. For two cells that do not touch,
# the swap's gain splits into "best rotation of the other piece here" terms, which depend
# only on the cell's neighbours. Keeping those terms in a (cell, piece) table makes a scan
# O(n^2) look-ups, and a move only invalidates the rows of the cells around the two cells
# it changed.


@njit
def _tsr_row(colours, neighbours, fits, piece, rotation, a, cells, lo, hi, best_val, best_rot):
    for j in range(lo, hi):
        p = piece[cells[j]]
        bv = -1
        br = 0
        for r in range(4):
            if fits[p, a, r]:
                v = placement_matches(colours, neighbours, piece, rotation, a, p, r, -1)
                if v > bv:
                    bv = v
                    br = r
        best_val[a, p] = bv
        best_rot[a, p] = br


@njit
def tsr_init(colours, neighbours, fits, piece, rotation, cells, starts, group_of, best_val, best_rot, cur):
    """Fill the move table: ``best_val[a, p]`` / ``best_rot[a, p]`` for every movable cell
    ``a`` and every piece ``p`` of its group, and ``cur[a]``, the matches of ``a`` now.
    ``group_of[cell]`` is the cell's group index (-1 if not movable)."""
    for g in range(starts.shape[0] - 1):
        for i in range(starts[g], starts[g + 1]):
            a = cells[i]
            _tsr_row(colours, neighbours, fits, piece, rotation, a, cells, starts[g], starts[g + 1], best_val, best_rot)
    for c in range(piece.shape[0]):
        cur[c] = cell_matches(colours, neighbours, piece, rotation, c, -1)


@njit
def tsr_scan(colours, neighbours, fits, piece, rotation, cells, starts, group_of, best_val, best_rot, cur):
    """Best TSR move from the table (same answer as :func:`tsr_best_move`)."""
    best = 0
    ba, bb, bra, brb = -1, -1, 0, 0
    for g in range(starts.shape[0] - 1):
        lo, hi = starts[g], starts[g + 1]
        for i in range(lo, hi):
            a = cells[i]
            pa = piece[a]
            ca = cur[a]
            d = best_val[a, pa] - ca
            if d > best:
                best, ba, bb, bra, brb = d, a, a, best_rot[a, pa], best_rot[a, pa]
            for j in range(i + 1, hi):
                b = cells[j]
                if adjacent_side(neighbours, a, b) >= 0:
                    continue
                pb = piece[b]
                va = best_val[a, pb]
                vb = best_val[b, pa]
                if va < 0 or vb < 0:
                    continue
                d = va + vb - ca - cur[b]
                if d > best:
                    best, ba, bb, bra, brb = d, a, b, best_rot[a, pb], best_rot[b, pa]
            # touching pairs: the shared edge makes the two rotations interact
            for s in range(4):
                b = neighbours[a, s]
                if b <= a or group_of[b] != group_of[a]:
                    continue
                pb = piece[b]
                before = ca + cell_matches(colours, neighbours, piece, rotation, b, a)
                for ra in range(4):
                    if not fits[pb, a, ra]:
                        continue
                    ma = placement_matches(colours, neighbours, piece, rotation, a, pb, ra, b)
                    for rb in range(4):
                        if not fits[pa, b, rb]:
                            continue
                        mb = placement_matches(colours, neighbours, piece, rotation, b, pa, rb, a)
                        c1 = colours[pb, ra, s]
                        extra = 1 if (c1 != 0 and c1 == colours[pa, rb, (s + 2) % 4]) else 0
                        d = ma + mb + extra - before
                        if d > best:
                            best, ba, bb, bra, brb = d, a, b, ra, rb
    return best, ba, bb, bra, brb


@njit
def _tsr_refresh(colours, neighbours, fits, piece, rotation, cells, starts, group_of, best_val, best_rot, cur, c):
    cur[c] = cell_matches(colours, neighbours, piece, rotation, c, -1)
    for s in range(4):
        n = neighbours[c, s]
        if n < 0:
            continue
        cur[n] = cell_matches(colours, neighbours, piece, rotation, n, -1)
        g = group_of[n]
        if g >= 0:
            _tsr_row(colours, neighbours, fits, piece, rotation, n, cells, starts[g], starts[g + 1], best_val, best_rot)


@njit
def tsr_steps(colours, neighbours, fits, piece, rotation, cells, starts, group_of, best_val, best_rot, cur, max_moves):
    """Apply up to ``max_moves`` best TSR moves in place, keeping the table current.

    Returns:
        ``(total gain, moves made, 1 if a local optimum was reached else 0)``.
    """
    gain = 0
    moves = 0
    while moves < max_moves:
        d, a, b, ra, rb = tsr_scan(colours, neighbours, fits, piece, rotation, cells, starts, group_of,
                                   best_val, best_rot, cur)
        if d <= 0:
            return gain, moves, 1
        if a == b:
            rotation[a] = ra
        else:
            pa = piece[a]
            piece[a] = piece[b]
            rotation[a] = ra
            piece[b] = pa
            rotation[b] = rb
        _tsr_refresh(colours, neighbours, fits, piece, rotation, cells, starts, group_of, best_val, best_rot, cur, a)
        if b != a:
            _tsr_refresh(colours, neighbours, fits, piece, rotation, cells, starts, group_of, best_val, best_rot, cur, b)
        gain += d
        moves += 1
    return gain, moves, 0
