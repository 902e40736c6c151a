"""Probabilistic partial optimal placement (seed 003, section 4.5, after Schaus and Deville's
very large neighbourhood).

Lift ``q`` pairwise non-adjacent pieces of one group (inner pieces, or frame pieces: corners
and edges together), drawn by a roulette wheel weighted by their unmatched sides, and put them
back by an optimal assignment. Since no two holes touch, every neighbour of a hole stays on the
board, so what a piece gains in a hole does not depend on the other holes: the weight of
(piece, hole) is the most matched sides over the rotations that fit the hole, and the best
reinsertion is a maximum-weight assignment (:func:`~emc.heuristics.core.assignment.solve`).
Putting every piece back where it was is one assignment, so Obj1 never drops. Pieces only go
where a rotation of theirs fits, so on the frame a corner piece only trades places with corner
pieces and an edge piece with edge pieces, each in the rotation its cell forces.

The wheel. A piece weighs its unmatched sides (:attr:`State.bad`, frame sides showing the
border colour counting as matched), as in the paper. A piece with every side matched weighs
``zero_weight``: with the default 0 such pieces are drawn only once no piece with an unmatched
side is left to draw (each of them then equally likely), which is the paper's wheel as far as
it goes and keeps the move alive on a board whose unmatched pieces are used up, near a
solution, where a wheel of zero weights would stall. A positive ``zero_weight`` puts them on
the wheel beside the others. After each draw the drawn cell and its four neighbours leave the
wheel (diagonal neighbours stay), so fewer than ``q`` cells come out when no more fit.

Costs: the wheel ``O(cells of the group + q)`` (buckets, see :func:`draw`), the weights
``O(q^2 x 16)`` colour comparisons, the assignment ``O(q^3)`` at worst (far less on these
matrices, see :mod:`~emc.heuristics.core.assignment`), putting the pieces back ``O(q)`` cell
changes. The rates are in docs/local-search-core.md.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .assignment import assignment_work, solve
from .jit import njit
from .state import Tables, group_bounds, set_cell
from .xorshift import below, uniform

#: Cost of a (piece, hole) pair where no rotation of the piece fits the hole: far above any
#: total of allowed pairs (at most 4 per hole), so an optimum never uses one.
FORBIDDEN = 1.0e6

Work = namedtuple("Work", [
    "bucket",  # int32 (5, cells): the wheel, cells (indices into the group) by unmatched sides 0..4
    "bucket_n",  # int64 (5,): cells in each bucket
    "level",  # int32 (cells,): the bucket of each cell of the group, -1 once drawn or next to a drawn cell
    "slot",  # int32 (cells,): its place in that bucket
    "cells",  # int32 (q_max,): the cells drawn, which become the holes
    "pieces",  # int32 (q_max,): the pieces lifted
    "cost", "rot",  # float64 / int32 (q_max, q_max): the assignment's costs and best rotations
    "col",  # int64 (q_max,): the hole (index into cells) each lifted piece goes back to
    "assign",  # AssignmentWork of q_max columns
])
Work.__doc__ = "Buffers of partial optimal placement for up to ``q_max`` pieces (:func:`make_work`)."


def make_work(T: Tables, q_max: int = 64) -> Work:
    """The buffers :func:`pop` needs, for ``q`` up to ``q_max`` (larger ``q`` are cut to it)."""
    n = T.nb.shape[0]
    q = max(1, int(q_max))
    return Work(np.zeros((5, n), dtype=np.int32), np.zeros(5, dtype=np.int64), np.zeros(n, dtype=np.int32),
                np.zeros(n, dtype=np.int32), np.zeros(q, dtype=np.int32), np.zeros(q, dtype=np.int32),
                np.zeros((q, q)), np.zeros((q, q), dtype=np.int32), np.zeros(q, dtype=np.int64), assignment_work(q))


@njit
def _take(W, i):
    """Take cell ``i`` of the group off the wheel (swap it with the last of its bucket)."""
    k = W.level[i]
    s = W.slot[i]
    last = W.bucket[k, W.bucket_n[k] - 1]
    W.bucket[k, s] = last
    W.slot[last] = s
    W.bucket_n[k] -= 1
    W.level[i] = -1


@njit
def draw(T, S, W, rng, g, q, zero_weight):
    """Draw up to ``q`` pairwise non-adjacent movable cells of group ``g`` into ``W.cells`` by
    the roulette wheel (see the module's docstring); returns how many were drawn.

    The wheel keeps the cells in five buckets by their unmatched sides, a cell of bucket ``k``
    weighing ``k`` (``zero_weight`` for ``k = 0``): a draw picks a bucket with probability
    its total weight over the wheel's, then a cell of it uniformly, which is each cell with
    probability its weight over the total, as a linear roulette wheel would, in constant time.
    """
    lo, hi = group_bounds(T, g)
    m = hi - lo
    bn = W.bucket_n
    for k in range(5):
        bn[k] = 0
    for i in range(m):
        k = S.bad[T.group_cells[lo + i]]
        W.level[i] = k
        W.slot[i] = bn[k]
        W.bucket[k, bn[k]] = i
        bn[k] += 1
    n = 0
    while n < q:
        positive = bn[1] + 2 * bn[2] + 3 * bn[3] + 4 * bn[4]
        total = positive + zero_weight * bn[0]
        if total > 0.0:
            x = uniform(rng) * total
            k = 0
            if x < positive:  # a bucket of unmatched cells: bucket k weighs k * bn[k]
                for b in range(1, 5):
                    if bn[b] > 0:
                        k = b  # the last bucket with cells, should rounding run past the end
                        if x < b * bn[b]:
                            break
                        x -= b * bn[b]
                w = np.float64(k)
            else:
                x -= positive
                w = zero_weight
            f = x / w
            j = bn[k] - 1 if f >= bn[k] - 1 else np.int64(f)  # rounding at the top end of the bucket
        elif bn[0] > 0:  # no weight left on the wheel: every cell still there is as likely
            k = 0
            j = below(rng, bn[0])
        else:
            break
        i = W.bucket[k, j]
        _take(W, i)
        c = T.group_cells[lo + i]
        W.cells[n] = c
        n += 1
        for s in range(4):
            nb = T.nb[c, s]
            if nb >= 0:
                t = T.group_pos[nb] - lo
                if 0 <= t < m and W.level[t] >= 0:
                    _take(W, t)
    return n


@njit
def weights(T, S, W, n):
    """Fill ``W.cost[i, j]`` with minus the most sides the piece on ``W.cells[i]`` matches in
    hole ``W.cells[j]`` (``FORBIDDEN`` when no rotation fits) and ``W.rot[i, j]`` with that
    rotation. A piece in its own hole keeps its rotation on ties, so a placement that is
    already optimal is left as it is."""
    cells = W.cells
    pieces = W.pieces
    cost = W.cost
    rot = W.rot
    colours = T.colours
    for i in range(n):
        pieces[i] = S.piece[cells[i]]
    for j in range(n):
        c = cells[j]
        fm = T.frame_mask[c]
        # The colours facing the hole; a border colour facing it (never on a valid board)
        # matches nothing, like the frame (-1), so it becomes -2.
        f0 = S.facing[c, 0]
        f1 = S.facing[c, 1]
        f2 = S.facing[c, 2]
        f3 = S.facing[c, 3]
        f0 = -2 if f0 == 0 else f0
        f1 = -2 if f1 == 0 else f1
        f2 = -2 if f2 == 0 else f2
        f3 = -2 if f3 == 0 else f3
        for i in range(n):
            p = pieces[i]
            ok = T.rot_ok[p, fm]
            # turned r, the piece shows on side s what it shows unturned on side (s - r) mod 4
            # (int(): numpy's booleans add up as a logical or in plain Python)
            a0 = colours[p, 0, 0]
            a1 = colours[p, 0, 1]
            a2 = colours[p, 0, 2]
            a3 = colours[p, 0, 3]
            best = -1
            br = -1
            if i == j:
                br = S.rotation[c]
                best = S.nmatch[c]
            if ok & 1:
                v = int(a0 == f0) + int(a1 == f1) + int(a2 == f2) + int(a3 == f3)
                if v > best:
                    best = v
                    br = 0
            if ok & 2:
                v = int(a3 == f0) + int(a0 == f1) + int(a1 == f2) + int(a2 == f3)
                if v > best:
                    best = v
                    br = 1
            if ok & 4:
                v = int(a2 == f0) + int(a3 == f1) + int(a0 == f2) + int(a1 == f3)
                if v > best:
                    best = v
                    br = 2
            if ok & 8:
                v = int(a1 == f0) + int(a2 == f1) + int(a3 == f2) + int(a0 == f3)
                if v > best:
                    best = v
                    br = 3
            if br < 0:
                cost[i, j] = FORBIDDEN
                rot[i, j] = 0
            else:
                cost[i, j] = -best
                rot[i, j] = br


@njit
def place_optimally(T, S, W, n):
    """Put the pieces on the pairwise non-adjacent ``W.cells[:n]`` back by an optimal
    assignment (logged: at most ``n`` entries, so :func:`~emc.heuristics.core.state.undo_to`
    takes it back). Returns the change of Obj1 (>= 0)."""
    weights(T, S, W, n)
    total = -solve(W.cost, n, n, W.col, W.assign)
    cells = W.cells
    pieces = W.pieces
    before = 0
    for i in range(n):
        before += S.nmatch[cells[i]]
    for i in range(n):
        j = W.col[i]
        c = cells[j]
        r = W.rot[i, j]
        if S.piece[c] != pieces[i] or S.rotation[c] != r:
            set_cell(T, S, c, pieces[i], r)
    return np.int64(total + 0.5) - before


@njit
def pop(T, S, W, rng, g, q, zero_weight):
    """Partial optimal placement on group ``g`` (INNER or FRAME, or EDGE or CORNER alone): draw
    up to ``q`` cells (:func:`draw`; ``q`` is cut to ``W``'s size) and put their pieces back
    optimally (:func:`place_optimally`).

    Returns ``(cells drawn, change of Obj1)``; the cells are ``W.cells[:n]``."""
    n = draw(T, S, W, rng, g, min(q, W.cells.shape[0]), zero_weight)
    if n == 0:
        return 0, 0
    return n, place_optimally(T, S, W, n)  # one piece alone still takes its best rotation
