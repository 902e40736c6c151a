"""A compiled depth-first fill of the board in any cell order, for the backtracking starts of
seed 003 (section 4.2): scan-row, spiral, inverse spiral and mirrored scan-row.

The search places pieces cell by cell in a fixed order, each one matching every neighbour
already on the board (and the frame), and backtracks chronologically. It is the paper's plain
backtracking, not emc's exact search (:mod:`emc.backends.backtrack`, which needs each cell's
top and left neighbours placed first, and so cannot follow a spiral): with a time budget it
stops somewhere deep in its tree, and what a start keeps is the deepest partial board it
reached.

Candidates. Once the order is fixed, which neighbours of a position are on the board when it
is reached is known beforehand (those earlier in the order, and the cells fixed before the
search). One of them, the *key side*, picks a list of candidates: the turns of the pieces that
fit the cell's frame sides and show the neighbour's colour on that side (a table by frame
mask, side and colour, each list in a random order drawn from the seed); the other placed
neighbours are then checked one by one. A position with no placed neighbour tries every turn
that fits its frame sides.

The state lives in arrays the caller owns and :func:`run` stops after a node budget, so Python
checks the clock between slices and resumes.
"""

from __future__ import annotations

import numpy as np

from .jit import njit

# state[] slots: the position being filled (-1: the tree is exhausted), nodes so far, the most
# positions ever filled at once (the deepest partial fill), whether the search started
D_POS, D_NODES, D_DEEPEST, D_STARTED = 0, 1, 2, 3


def candidate_table(colours: np.ndarray, fits_mask: np.ndarray, pieces: np.ndarray, n_colours: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The candidate lists, each shuffled by ``rng``.

    Returns ``(start, cand, free_start, free_cand)``: the turns of ``pieces`` that fit frame mask
    ``fm`` and show colour ``c`` on side ``s`` are ``cand[start[k]:start[k + 1]]`` with ``k =
    (fm * 4 + s) * n_colours + c``, each packed ``piece * 4 + rotation``; every turn fitting
    ``fm`` is ``free_cand[free_start[fm]:free_start[fm + 1]]``. ``fits_mask[p, fm]`` has bit
    ``r`` set when rotation ``r`` of piece ``p`` fits frame mask ``fm``."""
    keys, vals, fkeys, fvals = [], [], [], []
    for p in pieces:
        for fm in range(16):
            ok = int(fits_mask[p, fm])
            for r in range(4):
                if (ok >> r) & 1:
                    fkeys.append(fm)
                    fvals.append(int(p) * 4 + r)
                    for s in range(4):
                        keys.append((fm * 4 + s) * n_colours + int(colours[p, r, s]))
                        vals.append(int(p) * 4 + r)

    def grouped(k, v, n_keys):
        k = np.asarray(k, dtype=np.int64)
        v = np.asarray(v, dtype=np.int64)
        order = np.lexsort((rng.random(len(k)), k))  # by key, in a random order within each key
        start = np.searchsorted(k[order], np.arange(n_keys + 1)).astype(np.int64)
        return start, v[order].astype(np.int32)

    start, cand = grouped(keys, vals, 64 * n_colours)
    free_start, free_cand = grouped(fkeys, fvals, 16)
    return start, cand, free_start, free_cand


@njit
def _bounds(pos, order, key_side, frame_mask, nb, colours, piece, rotation, n_colours, start, free_start):
    """The range of candidates of position ``pos``, from what its key neighbour shows."""
    c = order[pos]
    fm = frame_mask[c]
    s = key_side[pos]
    if s < 0:
        return free_start[fm], free_start[fm + 1], 1
    n = nb[c, s]
    col = colours[piece[n], rotation[n], (s + 2) & 3]
    k = (fm * 4 + s) * n_colours + col
    return start[k], start[k + 1], 0


@njit
def run(budget, order, key_side, check_mask, frame_mask, nb, colours, n_colours, start, cand, free_start, free_cand,
        piece, rotation, used, at, end, free, deepest_piece, deepest_rot, state):
    """Fill the cells of ``order`` depth first for up to ``budget`` more nodes (placements).

    ``piece`` / ``rotation`` hold the board (-1: empty; cells outside ``order`` keep what they
    hold), ``used`` a flag per piece (pieces not allowed start as used). ``key_side[pos]`` is the
    side of the position's key neighbour (-1: none placed before it), ``check_mask[pos]`` the
    sides whose neighbours are placed before it. ``at`` / ``end`` / ``free`` are per position:
    the next candidate to try, the end of its list, 1 when the list is the free one. When the
    search fills more positions than ever before, the board is copied to ``deepest_piece`` /
    ``deepest_rot``. Returns when the budget is spent, the order is filled (``state[D_DEEPEST]
    == len(order)``) or the tree is exhausted (``state[D_POS] == -1``).
    """
    n = order.shape[0]
    if state[D_STARTED] == 0:
        state[D_STARTED] = 1
        state[D_POS] = 0
        if n == 0:
            return
        at[0], end[0], free[0] = _bounds(0, order, key_side, frame_mask, nb, colours, piece, rotation, n_colours,
                                         start, free_start)
    d = state[D_POS]
    nodes = 0
    while d >= 0 and nodes < budget:
        c = order[d]
        if piece[c] >= 0:  # coming back to this position: take its piece off
            used[piece[c]] = 0
            piece[c] = -1
        found = -1
        i = at[d]
        e = end[d]
        lst = free_cand if free[d] else cand
        cm = check_mask[d]
        while i < e:
            v = lst[i]
            i += 1
            p = v >> 2
            if used[p]:
                continue
            r = v & 3
            ok = True
            for s in range(4):
                if (cm >> s) & 1:
                    m = nb[c, s]
                    if colours[p, r, s] != colours[piece[m], rotation[m], (s + 2) & 3]:
                        ok = False
                        break
            if ok:
                found = v
                break
        at[d] = i
        if found < 0:
            d -= 1
            continue
        nodes += 1
        p = found >> 2
        piece[c] = p
        rotation[c] = found & 3
        used[p] = 1
        if d + 1 > state[D_DEEPEST]:
            state[D_DEEPEST] = d + 1
            for j in range(piece.shape[0]):
                deepest_piece[j] = piece[j]
                deepest_rot[j] = rotation[j]
        if d + 1 == n:
            break
        d += 1
        at[d], end[d], free[d] = _bounds(d, order, key_side, frame_mask, nb, colours, piece, rotation, n_colours,
                                         start, free_start)
    state[D_POS] = d
    state[D_NODES] += nodes
