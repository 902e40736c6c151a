"""Compiled scan-row depth-first search over the free cells (numba).

The free cells are visited in a fixed order (row by row or column by column). When a cell is
reached, the colours its top and left sides must show are known: the border colour at the frame, the
colour of an already placed or fixed neighbour, or "any non-border colour" when that
neighbour is an empty cell outside the sub-problem. The candidates for each
(frame mask, top, left) triple are precomputed in one flat table, each candidate packed into
one integer (piece, and the colours it shows right and below), so a node costs a table
lookup and a few checks (piece unused, right and bottom sides against fixed neighbours, the
colour it shows towards the next cell of its row against the row look-ahead (:func:`lookahead`,
computed once per row), and the edges of each colour still allowed:
:func:`emc.backends.backtrack.edge_budget`).

The search state lives in arrays owned by the caller, and :func:`run` returns after a node
budget, so Python can check the clock and Ctrl-C between slices and resume.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# state[] slots (S_DEEPEST: the most positions ever filled at once)
S_DEPTH, S_NODES, S_SOLUTIONS, S_DONE, S_STARTED, S_DEEPEST = 0, 1, 2, 3, 4, 5


@njit(cache=True, inline="always")
def admissible(cv, d, used, check_pin, pinned_here, first_piece, first_ok, rf, bf, rs, bs, budget):
    """Whether packed candidate ``cv`` may be placed at position ``d``: its piece unused, the
    pinned piece only where allowed (and nothing else where it must go), the fixed neighbours'
    colours on its right and below, and an edge of each colour it opens still in the budget.

    :func:`probe` calls this; :func:`run` spells the same tests out in its loop, because calling
    this there made the search about a third slower (28.5 against 19.7 M nodes/s on set 2's 8x8).
    Change both together."""
    p = cv & 0xFFFF
    if used[p]:
        return False
    if check_pin:
        if p == first_piece:
            if not first_ok[d]:
                return False
        elif pinned_here:
            return False  # the last place the pinned piece may take: nothing else goes here
    cr = (cv >> 16) & 0xFF
    cb = cv >> 24
    if (rf >= 0 and cr != rf) or (bf >= 0 and cb != bf):
        return False
    if rs >= 0 and budget[rs + cr] <= 0:
        return False
    if bs >= 0:
        sb = bs + cb
        need = 2 if (rs >= 0 and rs + cr == sb) else 1
        if budget[sb] < need:
            return False
    return True


@njit(cache=True, inline="always")
def lookahead(h, last, side, top_src, left_src, top_fix, left_fix, right_fix, bottom_fix, kind, C1, la_start, la_cand,
              used, wmode, uword, shown_r, shown_b, look):
    """Row look-ahead, run when the search reaches ``h``, the first position of a chain
    ``h .. last`` of positions that each take their left colour (``side`` 1: a row of the row
    scan) or top colour (``side`` 2: a column of the column scan) from the one before; their
    other known side (top, or left) comes from cells placed before ``h``.

    Working back from ``last``, it finds for each position ``j`` the colours its linking side
    may show so that ``j .. last`` can still be filled with pieces unused at this moment, and
    writes them as a bit mask into ``look[j - 1]``: the kernel demands it of the colour ``j - 1``
    shows towards ``j``. Pieces the chain itself will use are not taken out as it goes, nor are
    fixed neighbours on the chain's far side looked at (relaxations: the masks may allow too
    much, never too little). Returns whether the colour ``h`` is given on its linking side can
    start such a fill.

    The table (:func:`emc.backends.backtrack.lookahead_table`) lists the turns of the pieces
    by (frame mask, other side), each packed with the colours it shows towards the previous
    and the next position, so a position costs one branch-free pass over that list. With
    ``wmode`` (at most 64 pieces) the used pieces are read from the bits of ``uword`` instead
    of the array ``used``: the pass then touches no other memory (3 to 9 % more nodes per
    second on set 2's 8x8)."""
    nxt = (np.int64(1) << (C1 - 1)) - 1  # what the position after j demands (at first: any colour)
    j = last
    while True:
        if side == 1:
            src = top_src[j]
            other = top_fix[j] if src < 0 else shown_b[src]
            of = right_fix[j]
        else:
            src = left_src[j]
            other = left_fix[j] if src < 0 else shown_r[src]
            of = bottom_fix[j]
        if of >= 0:
            nxt &= np.int64(1) << of
        g = kind[j] * C1 + other
        mask = 0
        for i in range(la_start[g], la_start[g + 1]):
            cv = la_cand[i]
            u = (uword >> (cv & 0x3F)) if wmode else np.int64(used[cv & 0xFFFF])
            mask |= ((nxt >> ((cv >> 24) & 0xFF)) & ~u & 1) << ((cv >> 16) & 0xFF)
        if j == h:
            if side == 1:
                src = left_src[h]
                x = left_fix[h] if src < 0 else shown_r[src]
            else:
                src = top_src[h]
                x = top_fix[h] if src < 0 else shown_b[src]
            if x == C1 - 1:  # "any non-border colour"
                return mask & ~np.int64(1) != 0
            return (mask >> x) & 1 != 0
        look[j - 1] = mask
        if mask == 0:
            return False
        nxt = mask
        j -= 1


@njit(cache=True)
def run(
    node_budget,  # nodes to visit in this slice
    stop_at,  # stop after this many solutions (0 = never)
    n,  # number of free cells (positions)
    kind,  # frame mask per position (bit s = side s faces the frame)
    top_src,  # position of the free cell above (-1: none)
    left_src,  # position of the free cell to the left (-1: none)
    top_fix,  # colour required on top when not from a free cell (C = any non-border)
    left_fix,
    right_fix,  # colour required on the right from a fixed neighbour (-1: no requirement)
    bottom_fix,
    C1,  # colours + 1 (the value C1 - 1 stands for "any non-border colour")
    start,  # flat table offsets, indexed by (kind * C1 + top) * C1 + left
    cand,  # per candidate, packed: piece | right colour << 16 | bottom colour << 24
    cand_rot,  # per candidate: rotation (read only when a solution is kept)
    first_piece,  # symmetry breaking: this piece ...
    first_ok,  # ... only at positions where first_ok[pos] is True (-1 piece: no rule),
    pin_last,  # ... and surely by this position (the last one where first_ok is True)
    used,  # bool per piece (pieces that are not allowed start as used)
    pos,  # per position: next candidate index
    end,  # per position: end of its candidate range
    piece,  # per position: placed piece or -1
    cidx,  # per position: index of the placed candidate
    state,  # int64[8]
    sol_piece,  # (K, n) kept solutions
    sol_rot,
    right_slot,  # per position: budget slot base of the edge to its right (-1: no budget)
    bottom_slot,
    budget,  # per (edge type, colour) slot: edges of that colour still allowed
    shown_r,  # per position: right colour of the placed candidate (read by the cell to its right)
    shown_b,  # ... and its bottom colour (read by the cell below)
    side,  # 1: the look-ahead runs along rows, 2: down columns
    chain_end,  # per position: last position of the chain that starts here (-1: no look-ahead here)
    la_start,  # the look-ahead's table (see lookahead)
    la_cand,
    look,  # per position: mask of the colours it may show towards the next one (see lookahead)
):
    d = state[S_DEPTH]
    nodes = 0
    lsh = 16 if side == 1 else 24  # the colour a candidate shows towards the next cell of its chain
    # With at most 64 pieces the look-ahead reads the used pieces from one word (bit p: piece p
    # used), kept in step below; otherwise it reads ``used``.
    wmode = used.shape[0] <= 64
    uword = np.int64(0)
    if wmode:
        for q in range(used.shape[0]):
            if used[q]:
                uword |= np.int64(1) << q
    if state[S_STARTED] == 0:
        state[S_STARTED] = 1
        if n == 0:
            state[S_SOLUTIONS] += 1
            state[S_DONE] = 1
            return
        d = 0
        k0 = (kind[0] * C1 + top_fix[0]) * C1 + left_fix[0]
        pos[0] = start[k0]
        end[0] = start[k0 + 1]
        piece[0] = -1
        if chain_end[0] >= 0 and not lookahead(0, chain_end[0], side, top_src, left_src, top_fix, left_fix, right_fix,
                                               bottom_fix, kind, C1, la_start, la_cand, used, wmode, uword, shown_r,
                                               shown_b, look):
            end[0] = pos[0]
    while d >= 0:
        if piece[d] >= 0:
            used[piece[d]] = False
            if wmode:
                uword &= ~(np.int64(1) << piece[d])
            piece[d] = -1
            if right_slot[d] >= 0:
                budget[right_slot[d] + shown_r[d]] += 1
            if bottom_slot[d] >= 0:
                budget[bottom_slot[d] + shown_b[d]] += 1
        i = pos[d]
        e = end[d]
        rf = right_fix[d]
        bf = bottom_fix[d]
        rs = right_slot[d]
        bs = bottom_slot[d]
        # After pin_last the pinned piece is surely placed, so only earlier positions check it.
        check_pin = first_piece >= 0 and d <= pin_last
        pinned_here = check_pin and d == pin_last and not used[first_piece]
        lk = look[d]
        while i < e:
            cv = cand[i]
            p = cv & 0xFFFF
            if used[p]:
                i += 1
                continue
            if check_pin:
                if p == first_piece:
                    if not first_ok[d]:
                        i += 1
                        continue
                elif pinned_here:
                    i += 1
                    continue  # the last place the pinned piece may take: nothing else goes here
            cr = (cv >> 16) & 0xFF
            cb = cv >> 24
            if (rf >= 0 and cr != rf) or (bf >= 0 and cb != bf):
                i += 1
                continue
            if (lk >> ((cv >> lsh) & 0xFF)) & 1 == 0:
                i += 1
                continue
            if rs >= 0:
                if budget[rs + cr] <= 0:
                    i += 1
                    continue
            if bs >= 0:
                sb = bs + cb
                need = 2 if (rs >= 0 and rs + cr == sb) else 1
                if budget[sb] < need:
                    i += 1
                    continue
            break
        if i >= e:
            pos[d] = e
            d -= 1
            if nodes >= node_budget:
                break
            continue
        pos[d] = i + 1
        nodes += 1
        if d >= state[S_DEEPEST]:
            state[S_DEEPEST] = d + 1
        piece[d] = p
        cidx[d] = i
        used[p] = True
        if wmode:
            uword |= np.int64(1) << p
        shown_r[d] = cr
        shown_b[d] = cb
        if rs >= 0:
            budget[rs + cr] -= 1
        if bs >= 0:
            budget[bs + cb] -= 1
        if d == n - 1:
            ns = state[S_SOLUTIONS]
            if ns < sol_piece.shape[0]:
                for j in range(n):
                    sol_piece[ns, j] = piece[j]
                    sol_rot[ns, j] = cand_rot[cidx[j]]
            state[S_SOLUTIONS] = ns + 1
            if stop_at > 0 and ns + 1 >= stop_at:
                state[S_DEPTH] = d
                state[S_NODES] += nodes
                return
            if nodes >= node_budget:
                break
            continue
        d += 1
        ts = top_src[d]
        t = top_fix[d] if ts < 0 else shown_b[ts]
        ls = left_src[d]
        lf = left_fix[d] if ls < 0 else shown_r[ls]
        kk = (kind[d] * C1 + t) * C1 + lf
        pos[d] = start[kk]
        end[d] = start[kk + 1]
        piece[d] = -1
        if chain_end[d] >= 0 and not lookahead(d, chain_end[d], side, top_src, left_src, top_fix, left_fix, right_fix,
                                               bottom_fix, kind, C1, la_start, la_cand, used, wmode, uword,
                                               shown_r, shown_b, look):
            end[d] = pos[d]
        if nodes >= node_budget:
            break
    state[S_DEPTH] = d
    state[S_NODES] += nodes
    if d < 0:
        state[S_DONE] = 1


@njit(cache=True)
def probe(
    n_probes,  # random root-to-leaf walks
    seed,
    n, kind, top_src, left_src, top_fix, left_fix, right_fix, bottom_fix, C1, start, cand,
    first_piece, first_ok, pin_last,
    used,  # as for run(); restored on return
    right_slot, bottom_slot,
    budget,  # as for run(); restored on return
    per_depth,  # float64[n]: adds, per position, the walks' estimates of the nodes placed there
    side, chain_end, la_start, la_cand,  # as for run()
):
    """Knuth's estimate of the size of :func:`run`'s complete search tree.

    Each walk goes down from the root choosing uniformly among the candidates :func:`run`
    would try at each position (after the row look-ahead); the product of the numbers of
    choices seen so far, summed over the positions reached, is an unbiased estimate of the
    nodes (placements) of the whole tree. Returns (sum of the walks' estimates, sum of their squares).

    The lines that find a position's candidates, place one and undo the walk repeat
    :func:`run`'s: moving them into shared inline helpers made :func:`run` 2.6 times slower
    (28.8 against 11.0 M nodes/s on set 2's 8x8), so each keeps its own copy."""
    np.random.seed(seed)
    shown_r = np.zeros(max(n, 1), dtype=np.int64)
    shown_b = np.zeros(max(n, 1), dtype=np.int64)
    placed = np.zeros(max(n, 1), dtype=np.int64)
    choice = np.zeros(max(cand.shape[0], 1), dtype=np.int64)
    look = np.full(max(n, 1), -1, dtype=np.int64)
    lsh = 16 if side == 1 else 24
    total = 0.0
    total_sq = 0.0
    for _ in range(n_probes):
        weight = 1.0
        est = 0.0
        d = 0
        while d < n:
            ts = top_src[d]
            t = top_fix[d] if ts < 0 else shown_b[ts]
            ls = left_src[d]
            lf = left_fix[d] if ls < 0 else shown_r[ls]
            kk = (kind[d] * C1 + t) * C1 + lf
            rf = right_fix[d]
            bf = bottom_fix[d]
            rs = right_slot[d]
            bs = bottom_slot[d]
            check_pin = first_piece >= 0 and d <= pin_last
            pinned_here = check_pin and d == pin_last and not used[first_piece]
            if chain_end[d] >= 0 and not lookahead(d, chain_end[d], side, top_src, left_src, top_fix, left_fix,
                                                   right_fix, bottom_fix, kind, C1, la_start, la_cand, used,
                                                   False, np.int64(0), shown_r, shown_b, look):
                break
            lk = look[d]
            c = 0
            for i in range(start[kk], start[kk + 1]):
                if (lk >> ((cand[i] >> lsh) & 0xFF)) & 1 == 0:
                    continue
                if admissible(cand[i], d, used, check_pin, pinned_here, first_piece, first_ok, rf, bf, rs, bs, budget):
                    choice[c] = cand[i]
                    c += 1
            if c == 0:
                break
            weight *= c
            est += weight
            per_depth[d] += weight
            cv = choice[np.random.randint(c)]
            p = cv & 0xFFFF
            cr = (cv >> 16) & 0xFF
            cb = cv >> 24
            used[p] = True
            placed[d] = p
            shown_r[d] = cr
            shown_b[d] = cb
            if rs >= 0:
                budget[rs + cr] -= 1
            if bs >= 0:
                budget[bs + cb] -= 1
            d += 1
        for j in range(d):
            used[placed[j]] = False
            if right_slot[j] >= 0:
                budget[right_slot[j] + shown_r[j]] += 1
            if bottom_slot[j] >= 0:
                budget[bottom_slot[j] + shown_b[j]] += 1
        total += est
        total_sq += est * est
    return total, total_sq
