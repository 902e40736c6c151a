"""Compiled clique searches over bitsets (numba), used by :mod:`emc.backends.clique`.

Three kernels, each resumable: it runs for a budget of nodes or steps, saves its whole
state in the arrays it was given and returns, so the Python side can watch the clock and
Ctrl-C between calls and then call again to go on exactly where it stopped.

* :func:`cover_run`: exact search for cliques that take one vertex from every class of a
  partition (the free cells, and the pieces when every piece must be used). It branches on
  the class with the fewest candidates left and prunes as soon as a class has none, so
  it is forward checking with a most-constrained-class order; it can stop at the first
  clique or count them all.
* :func:`maxclique_run`: exact maximum clique by branch and bound with a greedy colouring
  bound computed on bitsets (the MCQ / BBMC family of Tomita et al. and San Segundo et al.).
* :func:`local_search_run`: heuristic maximum clique in the spirit of the "simple
  ingredients" of Grosso, Locatelli and Pullan (2008) and Pullan's dynamic local search:
  add moves, plateau (swap) moves with a short prohibition on the vertex just dropped,
  vertex penalties that steer the choice among equals, and perturbations that force a random
  vertex in and drop its conflicts when the search is stuck.

Bitsets: row ``u`` of an ``(N, W)`` uint64 array holds vertex ``v`` at bit ``v % 64`` of
word ``v // 64``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._compile_clock import install as _clock_compiles

_clock_compiles()

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S56 = np.uint64(56)

# return codes of the resumable kernels
BUDGET = 0  #: node/step budget used up; call again to resume
DONE = 1  #: search finished (exact kernels: everything explored)
STOPPED = 2  #: stopped on request (target size reached, solution limit reached)


@njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int64((x * _H01) >> _S56)


@njit(cache=True, inline="always")
def _lowbit_index(x):
    """Index of the lowest set bit of a non-zero word."""
    low = x & (~x + _ONE)
    return _popcount(low - _ONE)


# ------------------------------------------------------------------ cover search
@njit(cache=True, inline="always")
def _select_class(P, row, covered, cw_ptr, cw_idx, cw_mask, br):
    """Fill row ``row`` of ``br`` with the candidates (the vertices in row ``row`` of ``P``) of
    the uncovered class with fewest candidates.

    Returns the number of candidates (0: some class has none, a dead end), or -1 when
    every class is covered. Inlined, and given whole arrays and a row number rather than two
    row views per node (each a new array with its reference count): that made
    :func:`cover_run` about 9 % faster (set 2's 6x6, the same nodes, runs alternating).
    """
    n_classes = covered.shape[0]
    best = 1 << 62
    best_c = -1
    for c in range(n_classes):
        if covered[c]:
            continue
        cnt = 0
        for j in range(cw_ptr[c], cw_ptr[c + 1]):
            cnt += _popcount(P[row, cw_idx[j]] & cw_mask[j])
        if cnt < best:
            best = cnt
            best_c = c
            if cnt == 0:
                return 0
    if best_c < 0:
        return -1
    m = 0
    for j in range(cw_ptr[best_c], cw_ptr[best_c + 1]):
        w = P[row, cw_idx[j]] & cw_mask[j]
        base = cw_idx[j] * 64
        while w != _ZERO:
            b = _lowbit_index(w)
            br[row, m] = base + b
            m += 1
            w &= w - _ONE
    return m


@njit(cache=True)
def cover_run(adj, cw_ptr, cw_idx, cw_mask, cls_of, k, st, P, br, brn, brpos, chosen, covered,
              budget, stop_after, sols):
    """Exact search for cliques with one vertex in every class (resumable).

    Args:
        adj: ``(N, W)`` adjacency bitsets.
        cw_ptr, cw_idx, cw_mask: each class as a list of (word index, word mask) pairs.
        cls_of: ``(N, 2)`` the classes a vertex covers (second one -1 if none).
        k: clique size wanted (the number of classes a clique must cover with its first
            entries, i.e. the number of cell classes).
        st: int64 state ``[depth, started, solutions, nodes]``.
        P, br, brn, brpos, chosen, covered: search state (see the module docstring).
        budget: nodes to expand in this call.
        stop_after: stop once this many solutions are counted (0: count all).
        sols: ``(keep, k)`` the first solutions found (vertex numbers, 0-based).

    Returns:
        BUDGET, DONE or STOPPED.
    """
    W = adj.shape[1]
    n = adj.shape[0]
    d = st[0]
    if st[1] == 0:
        st[1] = 1
        for w in range(W):
            P[0, w] = _ZERO
        for v in range(n):
            P[0, v // 64] |= _ONE << np.uint64(v % 64)
        r = _select_class(P, 0, covered, cw_ptr, cw_idx, cw_mask, br)
        if r <= 0:
            st[0] = -1
            return DONE
        brn[0] = r
        brpos[0] = 0
        d = 0
    spent = 0
    while d >= 0:
        if spent >= budget:
            st[0] = d
            return BUDGET
        if brpos[d] > 0:  # undo the previous choice made at this depth
            v = chosen[d]
            covered[cls_of[v, 0]] = False
            if cls_of[v, 1] >= 0:
                covered[cls_of[v, 1]] = False
        if brpos[d] == brn[d]:
            brpos[d] = 0
            brn[d] = 0
            d -= 1
            continue
        v = br[d, brpos[d]]
        brpos[d] += 1
        chosen[d] = v
        covered[cls_of[v, 0]] = True
        if cls_of[v, 1] >= 0:
            covered[cls_of[v, 1]] = True
        spent += 1
        st[3] += 1
        if d + 1 == k:
            st[2] += 1
            if st[2] <= sols.shape[0]:
                for i in range(k):
                    sols[st[2] - 1, i] = chosen[i]
            if stop_after > 0 and st[2] >= stop_after:
                st[0] = d
                return STOPPED
            continue
        for w in range(W):
            P[d + 1, w] = P[d, w] & adj[v, w]
        r = _select_class(P, d + 1, covered, cw_ptr, cw_idx, cw_mask, br)
        if r <= 0:
            continue
        brn[d + 1] = r
        brpos[d + 1] = 0
        d += 1
    st[0] = -1
    return DONE


# ------------------------------------------------------------ max clique (B&B)
@njit(cache=True)
def _colour_sort(Pd, adj, kmin, out_v, out_c, U, Q):
    """Greedy sequential colouring of the vertices in ``Pd``; keeps (in colour order) only
    the vertices whose colour is at least ``kmin``: the others cannot lead past the bound."""
    W = Pd.shape[0]
    for w in range(W):
        U[w] = Pd[w]
    colour = 0
    m = 0
    left = 0
    for w in range(W):
        left += _popcount(U[w])
    while left > 0:
        colour += 1
        for w in range(W):
            Q[w] = U[w]
        for w in range(W):
            while Q[w] != _ZERO:
                b = _lowbit_index(Q[w])
                v = w * 64 + b
                bit = _ONE << np.uint64(b)
                U[w] &= ~bit
                Q[w] &= ~bit
                left -= 1
                # later words are filtered as the scan reaches them
                for x in range(w, W):
                    Q[x] &= ~adj[v, x]
                if colour >= kmin:
                    out_v[m] = v
                    out_c[m] = colour
                    m += 1
    return m


@njit(cache=True)
def maxclique_run(adj, target, st, P, cv, cc, pos, chosen, best, U, Q, budget):
    """Branch and bound for a maximum clique (resumable).

    Args:
        adj: ``(N, W)`` adjacency bitsets.
        target: stop as soon as a clique this large is found (0: never).
        st: int64 state ``[depth, started, best_size, nodes]``; set ``best_size`` before
            the first call to ask only for cliques larger than it.
        P: ``(D, W)`` candidate sets per depth; cv, cc: ``(D, N)`` candidates and colours
            per depth; pos: ``(D,)`` branching position; chosen: ``(D,)`` the current clique.
        best: ``(D,)`` best clique found (first ``st[2]`` entries).
        U, Q: scratch words.
        budget: nodes to expand in this call.

    Returns:
        BUDGET, DONE (the best clique is maximum) or STOPPED (target reached).
    """
    W = adj.shape[1]
    n = adj.shape[0]
    d = st[0]
    if st[1] == 0:
        st[1] = 1
        for w in range(W):
            P[0, w] = _ZERO
        for v in range(n):
            P[0, v // 64] |= _ONE << np.uint64(v % 64)
        pos[0] = _colour_sort(P[0], adj, st[2] + 1, cv[0], cc[0], U, Q)
        d = 0
    spent = 0
    while d >= 0:
        if spent >= budget:
            st[0] = d
            return BUDGET
        if pos[d] == 0:
            d -= 1
            continue
        i = pos[d] - 1
        pos[d] = i
        v = cv[d, i]
        if d + cc[d, i] <= st[2]:
            # colours only fall from here on: nothing left at this depth can beat the best
            pos[d] = 0
            d -= 1
            continue
        chosen[d] = v
        spent += 1
        st[3] += 1
        empty = True
        for w in range(W):
            x = P[d, w] & adj[v, w]
            P[d + 1, w] = x
            if x != _ZERO:
                empty = False
        P[d, v // 64] &= ~(_ONE << np.uint64(v % 64))
        if empty:
            if d + 1 > st[2]:
                st[2] = d + 1
                for j in range(d + 1):
                    best[j] = chosen[j]
                if target > 0 and st[2] >= target:
                    st[0] = d
                    return STOPPED
            continue
        m = _colour_sort(P[d + 1], adj, st[2] - d, cv[d + 1], cc[d + 1], U, Q)
        if m == 0:
            continue
        pos[d + 1] = m
        d += 1
    st[0] = -1
    return DONE


# --------------------------------------------------------------- local search
@njit(cache=True)
def seed_rng(seed):
    np.random.seed(seed)


@njit(cache=True, inline="always")
def _set_add(lst, where, size, v):
    where[v] = size
    lst[size] = v
    return size + 1


@njit(cache=True, inline="always")
def _set_remove(lst, where, size, v):
    i = where[v]
    last = lst[size - 1]
    lst[i] = last
    where[last] = i
    where[v] = -1
    return size - 1


@njit(cache=True)
def _pick(lst, size, penalty, tabu, it):
    """A vertex of the list that is not prohibited, with the least penalty (ties at random)."""
    best = -1
    best_pen = 1 << 62
    ties = 0
    for i in range(size):
        v = lst[i]
        if tabu[v] > it:
            continue
        p = penalty[v]
        if p < best_pen:
            best_pen = p
            best = v
            ties = 1
        elif p == best_pen:
            ties += 1
            if np.random.randint(ties) == 0:
                best = v
    return best


@njit(cache=True)
def _add(v, cptr, cidx, in_c, miss, clist, cwhere, s0, s0w, s1, s1w, sizes):
    # sizes = [|C|, |S0|, |S1|]
    if s0w[v] >= 0:
        sizes[1] = _set_remove(s0, s0w, sizes[1], v)
    elif s1w[v] >= 0:
        sizes[2] = _set_remove(s1, s1w, sizes[2], v)
    in_c[v] = True
    sizes[0] = _set_add(clist, cwhere, sizes[0], v)
    for j in range(cptr[v], cptr[v + 1]):
        w = cidx[j]
        if in_c[w]:
            continue
        miss[w] += 1
        if miss[w] == 1:
            sizes[1] = _set_remove(s0, s0w, sizes[1], w)
            sizes[2] = _set_add(s1, s1w, sizes[2], w)
        elif miss[w] == 2:
            sizes[2] = _set_remove(s1, s1w, sizes[2], w)


@njit(cache=True)
def _remove(u, cptr, cidx, in_c, miss, clist, cwhere, s0, s0w, s1, s1w, sizes):
    in_c[u] = False
    sizes[0] = _set_remove(clist, cwhere, sizes[0], u)
    miss[u] = 0
    for j in range(cptr[u], cptr[u + 1]):
        w = cidx[j]
        if in_c[w]:
            continue  # cannot happen in a clique, kept for safety
        miss[w] -= 1
        if miss[w] == 0:
            sizes[2] = _set_remove(s1, s1w, sizes[2], w)
            sizes[1] = _set_add(s0, s0w, sizes[1], w)
        elif miss[w] == 1:
            sizes[2] = _set_add(s1, s1w, sizes[2], w)
    # u conflicts with no member of the clique it left
    sizes[1] = _set_add(s0, s0w, sizes[1], u)


@njit(cache=True)
def ls_init(n, in_c, miss, clist, cwhere, s0, s0w, s1, s1w, sizes):
    """Empty clique: every vertex can be added."""
    sizes[0] = 0
    sizes[1] = 0
    sizes[2] = 0
    for v in range(n):
        in_c[v] = False
        miss[v] = 0
        cwhere[v] = -1
        s1w[v] = -1
        s0w[v] = -1
    for v in range(n):
        sizes[1] = _set_add(s0, s0w, sizes[1], v)


@njit(cache=True)
def ls_force(v, cptr, cidx, in_c, miss, clist, cwhere, s0, s0w, s1, s1w, sizes):
    """Put ``v`` in the clique, dropping the members it conflicts with."""
    if in_c[v]:
        return
    for j in range(cptr[v], cptr[v + 1]):
        w = cidx[j]
        if in_c[w]:
            _remove(w, cptr, cidx, in_c, miss, clist, cwhere, s0, s0w, s1, s1w, sizes)
    _add(v, cptr, cidx, in_c, miss, clist, cwhere, s0, s0w, s1, s1w, sizes)


@njit(cache=True)
def local_search_run(cptr, cidx, target, st, in_c, miss, clist, cwhere, s0, s0w, s1, s1w, sizes,
                     penalty, tabu, best, steps, tabu_len, max_plateau, penalty_delay):
    """Heuristic maximum clique on the conflict graph ``(cptr, cidx)`` (resumable).

    Args:
        cptr, cidx: CSR lists of the vertices each vertex conflicts with (non-neighbours).
        target: stop when a clique this large is found.
        st: int64 state ``[iteration, best_size, since_improvement, restarts, penalty_updates]``.
        in_c ... sizes: current clique, its add set ``S0`` (conflicts with no member) and
            swap set ``S1`` (conflicts with exactly one), kept up to date move by move.
        penalty, tabu: per-vertex penalty and the iteration until which it may not re-enter.
        best: the best clique found (first ``st[1]`` entries).
        steps: moves in this call.
        tabu_len: iterations a vertex dropped by a swap stays out.
        max_plateau: moves without a new best before a perturbation.
        penalty_delay: perturbations between two decreases of every penalty.

    Returns:
        BUDGET or STOPPED (target reached).
    """
    n = in_c.shape[0]
    for _ in range(steps):
        it = st[0] + 1
        st[0] = it
        v = _pick(s0, sizes[1], penalty, tabu, it)
        stuck = False
        if v >= 0:
            _add(v, cptr, cidx, in_c, miss, clist, cwhere, s0, s0w, s1, s1w, sizes)
        else:
            v = _pick(s1, sizes[2], penalty, tabu, it)
            if v >= 0:
                u = -1
                for j in range(cptr[v], cptr[v + 1]):
                    if in_c[cidx[j]]:
                        u = cidx[j]
                        break
                _remove(u, cptr, cidx, in_c, miss, clist, cwhere, s0, s0w, s1, s1w, sizes)
                tabu[u] = it + tabu_len
                _add(v, cptr, cidx, in_c, miss, clist, cwhere, s0, s0w, s1, s1w, sizes)
            else:
                stuck = True
        if sizes[0] > st[1]:
            st[1] = sizes[0]
            st[2] = 0
            for j in range(sizes[0]):
                best[j] = clist[j]
            if st[1] >= target:
                return STOPPED
        else:
            st[2] += 1
        if stuck or st[2] > max_plateau:
            # Perturb: members of the clique we are stuck on become less attractive, then a
            # random vertex is forced in and its conflicts leave.
            for j in range(sizes[0]):
                penalty[clist[j]] += 1
            st[4] += 1
            if st[4] % penalty_delay == 0:
                for x in range(n):
                    if penalty[x] > 0:
                        penalty[x] -= 1
            st[3] += 1
            st[2] = 0
            r = np.random.randint(n)
            ls_force(r, cptr, cidx, in_c, miss, clist, cwhere, s0, s0w, s1, s1w, sizes)
    return BUDGET


# ------------------------------------------------------------ conflict lists
@njit(cache=True, nogil=True)
def conflict_rows(piece, cell, shown, nbcell, cell_start, piece_ptr, piece_vtx, border, u0, u1, ptr, out, fill):
    """Conflict lists of vertices ``u0 .. u1 - 1`` built from the puzzle's structure.

    Two placements conflict when they use the same piece, sit on the same cell, or sit on
    neighbouring cells and do not show the same non-border colour across the shared edge.
    Only those candidates are visited (the vertices of the cell, of its neighbours and of the
    piece), so the work is proportional to the conflicts, not to all pairs of vertices.

    Args:
        piece, cell: per vertex (0-based); vertices are sorted by cell.
        shown: ``(N, 4)`` colours each placement shows, clockwise from the top.
        nbcell: ``(cells, 4)`` neighbour cell across each side, -1 at the frame.
        cell_start: ``cells + 1`` offsets: the vertices of cell ``c`` are
            ``cell_start[c] .. cell_start[c + 1] - 1``.
        piece_ptr, piece_vtx: the vertices of each piece in increasing order (CSR).
        border: the frame colour, which never matches.
        ptr: without ``fill``, ``ptr[u + 1]`` receives the number of conflicts of ``u``; with
            ``fill``, the finished offsets, and ``out[ptr[u]:ptr[u + 1]]`` receives the
            conflicts of ``u`` in increasing order.
    """
    rc = np.empty(5, dtype=np.int64)
    rs = np.empty(5, dtype=np.int64)
    for u in range(u0, u1):
        cu = cell[u]
        pu = piece[u]
        # the cells whose every vertex must be looked at: the own cell and its neighbours
        m = 1
        rc[0] = cu
        rs[0] = -1
        for s in range(4):
            nb = nbcell[cu, s]
            if nb >= 0 and cell_start[nb] < cell_start[nb + 1]:
                k = m
                while k > 0 and rc[k - 1] > nb:
                    rc[k] = rc[k - 1]
                    rs[k] = rs[k - 1]
                    k -= 1
                rc[k] = nb
                rs[k] = s
                m += 1
        pos = ptr[u] if fill else 0
        j = piece_ptr[pu]
        jend = piece_ptr[pu + 1]
        for r in range(m):
            c = rc[r]
            while j < jend and cell[piece_vtx[j]] < c:
                if fill:
                    out[pos] = piece_vtx[j]
                pos += 1
                j += 1
            while j < jend and cell[piece_vtx[j]] == c:
                j += 1  # covered by the cell's own pass below
            s = rs[r]
            if s < 0:
                for v in range(cell_start[c], cell_start[c + 1]):
                    if v != u:
                        if fill:
                            out[pos] = v
                        pos += 1
            else:
                col = shown[u, s]
                o = (s + 2) % 4
                for v in range(cell_start[c], cell_start[c + 1]):
                    if piece[v] == pu or col == border or shown[v, o] != col:
                        if fill:
                            out[pos] = v
                        pos += 1
        while j < jend:
            if fill:
                out[pos] = piece_vtx[j]
            pos += 1
            j += 1
        if not fill:
            ptr[u + 1] = pos
