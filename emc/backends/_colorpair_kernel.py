"""Compiled ColorPair search (numba): Benoist and Bourreau's constant-time filtering (seed 002).

No domain is kept per cell. For every colour pair the search keeps the unplaced pieces that
offer it (``Offer``) and the empty cells that demand it (``Demand``), both as sparse sets: an
array whose first ``size`` entries are the members, and each member's position in it, so that
an insertion or a removal is a swap and a counter. A pair is two colours met one after the other
going clockwise round a piece (``consecutive``), or met on two opposite sides (``opposite``,
unordered); a cell demands a pair when both of the sides concerned are known (the border colour
on the frame, or the colour a placed neighbour shows). Pairs are kept apart by the class of cell
they concern (inner, edge, corner): an inner cell can only take an inner piece, so an edge piece
showing the pair is no offer for it.

Placing a piece removes it from its (at most six) offers and its cell from its demands, and
adds its empty neighbours to the demands their newly known sides make: a bounded number of
sparse-set operations (:func:`assign`; :func:`unassign` undoes them in reverse order). The
filters then look only at the pairs whose counts changed (:func:`propagate`):

* contradiction: fewer pieces offered than cells demanding the pair;
* instantiation: one piece for one cell: placed at once when a single turn of it fits there;
* pre-emption: as many pieces as cells, and no cell demanding two pairs: every offered piece
  is taken by this pair, so it counts as unavailable to its other pairs;
* the shared-edge bound per colour (exact covers without holes): the sides of a colour left on
  unplaced pieces, less those demanded, must meet each other, and ``n`` pieces share at most
  ``h(n)`` edges;
* the frame cycle (likewise): two frame pieces holding the last two sides of a colour nobody
  demands must be neighbours; a chain of such links that closes on itself before it holds the
  whole frame ring cannot be placed.

Search: depth first, one node per placement chosen by the branching rule; cells placed by the
filters (and by shaving) belong to the node that caused them. Every failure comes with an
explanation, a set of placed cells (a bitset) whose placements alone bring it about; a node
whose children all fail explains its own failure by their union and by what limited its
candidates, and the search jumps back to the deepest node that placed one of those cells
(conflict-directed backjumping). A cell placed by a filter is replaced in an explanation by the
reason it was placed (its own bitset), so that jumps reach as high as they can.

All state lives in arrays owned by the caller (:class:`emc.backends.colorpair.Search`), so
:func:`run` returns after a node budget and resumes where it stopped.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .._compile_clock import install as _clock_compiles

_clock_compiles()

# ---------------------------------------------------------------------------- layouts
# CS[cell, *]: per cell. PIECE/ROT: what is placed (-1: empty); LEV: the search level that placed
# it (0: fixed cells, pins and what the root's filters placed); DEC: 1 when a branching decision
# placed it (0: a filter, or level 0); NK: how many sides are known (frame sides count);
# K0..K3: the colour each side must show (-1: unknown); NSURR: empty free neighbours with two
# known sides or more; FLOC: position in the frontier (-1: not in it); DCNT: demand slots of the
# cell in a demand set (duplicates and dead slots left out); FREE, FM (frame mask), CLS (cell
# class: 0 inner, 1 edge, 2 corner) and HOLE (a cell outside the sub-problem with no piece) are fixed.
C_PIECE, C_ROT, C_LEV, C_DEC, C_NK, C_K0, C_NSURR, C_FLOC, C_DCNT, C_FREE, C_FM, C_CLS, C_HOLE = \
    0, 1, 2, 3, 4, 5, 9, 10, 11, 12, 13, 14, 15
N_CS = 16

# PT[pair, *]: per (compact) pair. OSTART/OCAP: the pair's block of ``oelem`` (every piece that
# offers it); OSIZE: how many of them are unplaced (the first OSIZE of the block); DSTART/DCAP,
# DSIZE: likewise in ``delem`` for the demand slots; NBPRE: unplaced pieces of the offer
# pre-empted by another pair; PREEMPT: 1 while this pair pre-empts its offer; DPLOC: position in
# the set of demanded pairs; INQ: queued for the filters; CLS, KIND (0 consecutive, 1 opposite),
# A, B: what the pair is (for the statistics and tests).
P_OSTART, P_OCAP, P_OSIZE, P_DSTART, P_DCAP, P_DSIZE, P_NBPRE, P_PREEMPT, P_DPLOC, P_INQ, P_CLS, P_KIND, \
    P_A, P_B = range(14)
N_PT = 16

# PC[piece, *]: per piece. NPAIR: its offers (at most six), M0..M5 the pairs, L0..L5 its position in
# each pair's block of ``oelem``; PREBY: the pair pre-empting it (-1: none); CELL: where it is
# placed (-1: nowhere); UNI: 1 for the pieces the sub-problem may place.
Q_NPAIR, Q_M0, Q_L0, Q_PREBY, Q_CELL, Q_UNI = 0, 1, 7, 13, 14, 15
N_PC = 16

# demand slots of a cell: the four consecutive side pairs clockwise, then the two opposite ones
SLOT_A = np.array([0, 1, 2, 3, 0, 1], dtype=np.int64)
SLOT_B = np.array([1, 2, 3, 0, 2, 3], dtype=np.int64)
# slot states besides a pair number
S_OFF, S_DUP, S_DEAD = -1, -2, -3

# st[*]: the search's scalars
(ST_TN, ST_PN, ST_FRN, ST_DPN, ST_NMULTI, ST_QN, ST_CQN, ST_FAIL, ST_NFILLED, ST_DEPTH, ST_PHASE, ST_DONE,
 ST_CSN, ST_DEEPEST, ST_SOLS, ST_STARTED, ST_NODES) = range(17)
N_ST = 24

# cfg[*]: the run's settings
(CF_CONTRA, CF_INST, CF_PRE, CF_EDGE, CF_CYCLE, CF_SHAVE, CF_BJ, CF_PAT, CF_HEUR, CF_EXACT, CF_NOHOLES,
 CF_C, CF_W, CF_NFREE, CF_RING, CF_STOP, CF_KEEP, CF_OPP) = range(18)
N_CF = 24

# the heuristics choosing a pair when no pattern applies (CF_HEUR)
H_MIN_OFFER, H_MIN_EXP_OFFER, H_MIN_EXP_GAP, H_MIN_EXP_RATIO, H_MAX_EXP_FILTER = range(5)

# stats[*]: what the search counts. Failures by the filter that found them: FAIL_CONTRA (fewer
# offers than demands), FAIL_NOPAIR (a cell demanding a pair no piece offers), FAIL_INST (the one
# piece left does not fit its cell), FAIL_EMPTY (a branching cell without candidates), FAIL_SHAVE
# (shaving found no value for a cell), FAIL_EDGE, FAIL_CYCLE; FORCED_INST, FORCED_SHAVE: cells
# placed by instantiation and by shaving; PREEMPTIONS; BACKJUMPS (failures that skipped nodes) and
# SKIPPED (nodes skipped); PROBES (shaving's trial placements); PATTERN and PAIR_CHOICE: nodes
# branched on a pattern cell or on a pair chosen by the heuristic
(SS_FAIL_CONTRA, SS_FAIL_NOPAIR, SS_FAIL_INST, SS_FAIL_EMPTY, SS_FAIL_SHAVE, SS_FAIL_EDGE, SS_FAIL_CYCLE,
 SS_FORCED_INST, SS_FORCED_SHAVE, SS_PREEMPTIONS, SS_BACKJUMPS, SS_SKIPPED, SS_PROBES, SS_PATTERN,
 SS_PAIR_CHOICE, SS_FALLBACK) = range(16)
N_SS = 16

# failure kinds (st[ST_FAIL])
F_NONE, F_CONTRA, F_NOPAIR, F_INST, F_EMPTY, F_SHAVE, F_EDGE, F_CYCLE = range(8)

# trail entries
T_PLACE, T_PREEMPT = 0, 1

# run phases
PH_ENTER, PH_NEXT = 0, 1


# ---------------------------------------------------------------------------- bitsets
@njit(cache=True, inline="always")
def _bset(E, c):
    E[c >> 6] |= np.int64(1) << (c & 63)


@njit(cache=True, inline="always")
def _bhas(E, c):
    return (E[c >> 6] >> (c & 63)) & 1 != 0


@njit(cache=True, inline="always")
def _bclr(E, c):
    E[c >> 6] &= ~(np.int64(1) << (c & 63))


@njit(cache=True, inline="always")
def _bzero(E):
    for i in range(E.shape[0]):
        E[i] = 0


@njit(cache=True, inline="always")
def _bor(E, F):
    for i in range(E.shape[0]):
        E[i] |= F[i]


@njit(cache=True, inline="always")
def _bcopy(E, F):
    for i in range(E.shape[0]):
        E[i] = F[i]


# ---------------------------------------------------------------------------- sparse sets
@njit(cache=True, inline="always")
def _touch(p, PT, q, st):
    if PT[p, P_INQ] == 0:
        PT[p, P_INQ] = 1
        q[st[ST_QN]] = p
        st[ST_QN] += 1


@njit(cache=True, inline="always")
def _ctouch(k, cinq, cq, st):
    if cinq[k] == 0:
        cinq[k] = 1
        cq[st[ST_CQN]] = k
        st[ST_CQN] += 1


@njit(cache=True, inline="always")
def _dem_insert(m, p, PT, delem, SLOC, dp, st):
    i = PT[p, P_DSTART] + PT[p, P_DSIZE]
    delem[i] = m
    SLOC[m] = i
    PT[p, P_DSIZE] += 1
    if PT[p, P_DSIZE] == 1:
        k = st[ST_DPN]
        dp[k] = p
        PT[p, P_DPLOC] = k
        st[ST_DPN] = k + 1


@njit(cache=True, inline="always")
def _dem_remove(m, p, PT, delem, SLOC, dp, st):
    i = SLOC[m]
    last = PT[p, P_DSTART] + PT[p, P_DSIZE] - 1
    o = delem[last]
    delem[i] = o
    SLOC[o] = i
    delem[last] = m
    SLOC[m] = last
    PT[p, P_DSIZE] -= 1
    if PT[p, P_DSIZE] == 0:
        k = PT[p, P_DPLOC]
        last = st[ST_DPN] - 1
        o = dp[last]
        dp[k] = o
        PT[o, P_DPLOC] = k
        st[ST_DPN] = last


@njit(cache=True, inline="always")
def _fr_add(c, CS, fr, st):
    k = st[ST_FRN]
    fr[k] = c
    CS[c, C_FLOC] = k
    st[ST_FRN] = k + 1


@njit(cache=True, inline="always")
def _fr_remove(c, CS, fr, st):
    k = CS[c, C_FLOC]
    last = st[ST_FRN] - 1
    o = fr[last]
    fr[k] = o
    CS[o, C_FLOC] = k
    CS[c, C_FLOC] = -1
    st[ST_FRN] = last


@njit(cache=True, inline="always")
def _raw_pair(cls, j, a, b, C):
    """The raw number of the pair slot ``j`` of a cell of class ``cls`` demands when its two
    sides show ``a`` then ``b``."""
    if j < 4:
        return (cls * C + a) * C + b
    lo = min(a, b)
    hi = max(a, b)
    return 3 * C * C + (cls * C + lo) * C + hi


# ---------------------------------------------------------------------------- placing
@njit(cache=True)
def _activate(y, j, CS, NB, SP, SLOC, PT, delem, dp, cmap, q, st, cfg, fx):
    """Slot ``j`` of the empty cell ``y`` has both sides known: it joins its pair's demand."""
    m = y * 6 + j
    a = CS[y, C_K0 + SLOT_A[j]]
    b = CS[y, C_K0 + SLOT_B[j]]
    p = cmap[_raw_pair(CS[y, C_CLS], j, a, b, cfg[CF_C])]
    if p < 0:
        SP[m] = S_DEAD
        if st[ST_FAIL] == F_NONE:
            st[ST_FAIL] = F_NOPAIR
            if cfg[CF_BJ]:
                _bzero(fx)
                for s in (SLOT_A[j], SLOT_B[j]):
                    z = NB[y, s]
                    if z >= 0 and CS[z, C_LEV] > 0:
                        _bset(fx, z)
        return
    for jj in range(6):
        if jj != j and SP[y * 6 + jj] == p:
            SP[m] = S_DUP
            return
    SP[m] = p
    _dem_insert(m, p, PT, delem, SLOC, dp, st)
    CS[y, C_DCNT] += 1
    if CS[y, C_DCNT] == 2:
        st[ST_NMULTI] += 1
    _touch(p, PT, q, st)


@njit(cache=True)
def _deactivate(y, j, CS, SP, SLOC, PT, delem, dp, st):
    m = y * 6 + j
    p = SP[m]
    if p >= 0:
        _dem_remove(m, p, PT, delem, SLOC, dp, st)
        if CS[y, C_DCNT] == 2:
            st[ST_NMULTI] -= 1
        CS[y, C_DCNT] -= 1
    SP[m] = S_OFF


@njit(cache=True)
def assign(c, t, r, lev, dec, CS, NB, COL, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx,
           trail_t, trail_v, ptrail, m_k, md_k, mp_k, cinq, cq, pdistinct):
    """Place piece ``t`` turned ``r`` on cell ``c`` at search level ``lev`` (``dec``: a branching
    decision), updating every set; a pair no piece offers, demanded by a neighbour now, sets the
    failure flag (the placement is still made whole, so that :func:`unassign` can undo it)."""
    CS[c, C_PIECE] = t
    CS[c, C_ROT] = r
    CS[c, C_LEV] = lev
    CS[c, C_DEC] = dec
    PC[t, Q_CELL] = c
    k = st[ST_TN]
    trail_t[k] = T_PLACE
    trail_v[k] = c
    st[ST_TN] = k + 1
    ptrail[st[ST_PN]] = c
    st[ST_PN] += 1
    free = CS[c, C_FREE]
    if free:
        st[ST_NFILLED] += 1
    # the piece leaves its offers
    pre = PC[t, Q_PREBY]
    for j in range(PC[t, Q_NPAIR]):
        p = PC[t, Q_M0 + j]
        i = PC[t, Q_L0 + j]
        last = PT[p, P_OSTART] + PT[p, P_OSIZE] - 1
        o = oelem[last]
        oelem[i] = o
        oelem[last] = t
        for jj in range(PC[o, Q_NPAIR]):
            if PC[o, Q_M0 + jj] == p:
                PC[o, Q_L0 + jj] = i
                break
        PC[t, Q_L0 + j] = last
        PT[p, P_OSIZE] -= 1
        if pre >= 0 and p != pre:
            PT[p, P_NBPRE] -= 1
        _touch(p, PT, q, st)
    if PC[t, Q_UNI]:
        for s in range(4):
            kk = COL[t, 0, s]
            m_k[kk] -= 1
            _ctouch(kk, cinq, cq, st)
        for s in range(4):
            kk = pdistinct[t, s]
            if kk >= 0:
                mp_k[kk] -= 1
    if free:
        # the cell leaves its demands and the frontier
        for j in range(6):
            p = SP[c * 6 + j]
            if p >= 0:
                _dem_remove(c * 6 + j, p, PT, delem, SLOC, dp, st)
                _touch(p, PT, q, st)
        if CS[c, C_DCNT] >= 2:
            st[ST_NMULTI] -= 1
        if CS[c, C_FLOC] >= 0:
            _fr_remove(c, CS, fr, st)
            for s in range(4):
                z = NB[c, s]
                if z >= 0:
                    CS[z, C_NSURR] -= 1
        for s in range(4):
            kk = CS[c, C_K0 + s]
            if kk >= 0 and (CS[c, C_FM] >> s) & 1 == 0:
                md_k[kk] -= 1
                _ctouch(kk, cinq, cq, st)
    # the empty neighbours learn a side
    for s in range(4):
        y = NB[c, s]
        if y < 0 or CS[y, C_FREE] == 0 or CS[y, C_PIECE] >= 0:
            continue
        os = (s + 2) & 3
        col = COL[t, r, s]
        CS[y, C_K0 + os] = col
        CS[y, C_NK] += 1
        md_k[col] += 1
        _ctouch(col, cinq, cq, st)
        if CS[y, C_K0 + ((os + 1) & 3)] >= 0:
            _activate(y, os, CS, NB, SP, SLOC, PT, delem, dp, cmap, q, st, cfg, fx)
        if CS[y, C_K0 + ((os + 3) & 3)] >= 0:
            _activate(y, (os + 3) & 3, CS, NB, SP, SLOC, PT, delem, dp, cmap, q, st, cfg, fx)
        if cfg[CF_OPP] and CS[y, C_K0 + ((os + 2) & 3)] >= 0:
            _activate(y, 4 + (os & 1), CS, NB, SP, SLOC, PT, delem, dp, cmap, q, st, cfg, fx)
        if CS[y, C_NK] == 2:
            _fr_add(y, CS, fr, st)
            for ss in range(4):
                z = NB[y, ss]
                if z >= 0:
                    CS[z, C_NSURR] += 1


@njit(cache=True)
def place(c, t, r, lev, dec, CS, NB, COL, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx,
          trail_t, trail_v, ptrail, m_k, md_k, mp_k, cinq, cq, pdistinct):
    """:func:`assign`, then, when it leaves no cell demanding two pairs where there was one, every
    demanded pair queued again: pre-emptions count again from then on."""
    before = st[ST_NMULTI]
    assign(c, t, r, lev, dec, CS, NB, COL, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx,
           trail_t, trail_v, ptrail, m_k, md_k, mp_k, cinq, cq, pdistinct)
    if before > 0 and st[ST_NMULTI] == 0 and cfg[CF_PRE]:
        for i in range(st[ST_DPN]):
            _touch(dp[i], PT, q, st)


@njit(cache=True)
def unassign(c, CS, NB, COL, PC, PT, oelem, delem, SP, SLOC, dp, fr, st, ptrail, m_k, md_k, mp_k, pdistinct):
    """Undo :func:`assign` of cell ``c``, the last placement not yet undone."""
    t = CS[c, C_PIECE]
    r = CS[c, C_ROT]
    for s in range(3, -1, -1):
        y = NB[c, s]
        if y < 0 or CS[y, C_FREE] == 0 or CS[y, C_PIECE] >= 0:
            continue
        os = (s + 2) & 3
        if CS[y, C_NK] == 2:
            _fr_remove(y, CS, fr, st)
            for ss in range(4):
                z = NB[y, ss]
                if z >= 0:
                    CS[z, C_NSURR] -= 1
        for j in (4 + (os & 1), (os + 3) & 3, os):
            if SP[y * 6 + j] != S_OFF:
                _deactivate(y, j, CS, SP, SLOC, PT, delem, dp, st)
        md_k[COL[t, r, s]] -= 1
        CS[y, C_NK] -= 1
        CS[y, C_K0 + os] = -1
    free = CS[c, C_FREE]
    if free:
        for s in range(4):
            kk = CS[c, C_K0 + s]
            if kk >= 0 and (CS[c, C_FM] >> s) & 1 == 0:
                md_k[kk] += 1
        if CS[c, C_NK] >= 2:
            _fr_add(c, CS, fr, st)
            for s in range(4):
                z = NB[c, s]
                if z >= 0:
                    CS[z, C_NSURR] += 1
        if CS[c, C_DCNT] >= 2:
            st[ST_NMULTI] += 1
        for j in range(5, -1, -1):
            p = SP[c * 6 + j]
            if p >= 0:
                _dem_insert(c * 6 + j, p, PT, delem, SLOC, dp, st)
        st[ST_NFILLED] -= 1
    if PC[t, Q_UNI]:
        for s in range(4):
            kk = pdistinct[t, s]
            if kk >= 0:
                mp_k[kk] += 1
        for s in range(4):
            m_k[COL[t, 0, s]] += 1
    pre = PC[t, Q_PREBY]
    for j in range(PC[t, Q_NPAIR] - 1, -1, -1):
        p = PC[t, Q_M0 + j]
        PT[p, P_OSIZE] += 1  # t sits just past the offer's members: last out, first back
        if pre >= 0 and p != pre:
            PT[p, P_NBPRE] += 1
    PC[t, Q_CELL] = -1
    CS[c, C_PIECE] = -1
    st[ST_PN] -= 1


@njit(cache=True)
def _unpreempt(p, PT, PC, oelem):
    b = PT[p, P_OSTART]
    for i in range(b, b + PT[p, P_OSIZE]):
        t = oelem[i]
        if PC[t, Q_PREBY] == p:
            PC[t, Q_PREBY] = -1
            for j in range(PC[t, Q_NPAIR]):
                rr = PC[t, Q_M0 + j]
                if rr != p:
                    PT[rr, P_NBPRE] -= 1
    PT[p, P_PREEMPT] = 0


@njit(cache=True)
def undo_to(mark, CS, NB, COL, PC, PT, oelem, delem, SP, SLOC, dp, fr, st, trail_t, trail_v, ptrail, m_k, md_k,
            mp_k, pdistinct):
    """Undo the trail back to length ``mark``."""
    k = st[ST_TN]
    while k > mark:
        k -= 1
        if trail_t[k] == T_PLACE:
            unassign(trail_v[k], CS, NB, COL, PC, PT, oelem, delem, SP, SLOC, dp, fr, st, ptrail, m_k, md_k, mp_k,
                     pdistinct)
        else:
            _unpreempt(trail_v[k], PT, PC, oelem)
    st[ST_TN] = mark


# ---------------------------------------------------------------------------- explanations
@njit(cache=True)
def _nbrs_into(E, c, CS, NB):
    """The placed neighbours of ``c`` (above level 0): the cells its known sides come from."""
    for s in range(4):
        z = NB[c, s]
        if z >= 0 and CS[z, C_PIECE] >= 0 and CS[z, C_LEV] > 0:
            _bset(E, z)


@njit(cache=True)
def _pair_expl(E, p, with_pre, CS, NB, PT, PC, oelem, delem, pre_expl):
    """Why ``p`` has so few offers for its demands: the neighbours making each cell demand it,
    the cells of the pieces of the pair already placed, and (``with_pre``) the explanations of
    the pre-emptions that took its other pieces."""
    db = PT[p, P_DSTART]
    for i in range(db, db + PT[p, P_DSIZE]):
        m = delem[i]
        y = m // 6
        j = m - y * 6
        for s in (SLOT_A[j], SLOT_B[j]):
            z = NB[y, s]
            if z >= 0 and CS[z, C_PIECE] >= 0 and CS[z, C_LEV] > 0:
                _bset(E, z)
    ob = PT[p, P_OSTART]
    for i in range(ob + PT[p, P_OSIZE], ob + PT[p, P_OCAP]):
        z = PC[oelem[i], Q_CELL]
        if CS[z, C_LEV] > 0:
            _bset(E, z)
    if with_pre:
        for i in range(ob, ob + PT[p, P_OSIZE]):
            q = PC[oelem[i], Q_PREBY]
            if q >= 0 and q != p:
                _bor(E, pre_expl[q])


@njit(cache=True)
def _all_placed(E, st, ptrail, CS):
    """Every cell placed above level 0 (the explanation of the colour filters)."""
    for i in range(st[ST_PN]):
        z = ptrail[i]
        if CS[z, C_LEV] > 0:
            _bset(E, z)


@njit(cache=True)
def _dom_expl(E, c, p, use_pre, CS, NB, PT, PC, oelem, delem, pre_expl, st, ptrail):
    """Why cell ``c`` has only the candidates drawn from pair ``p`` (-1: every unplaced piece)."""
    _nbrs_into(E, c, CS, NB)
    if p < 0:
        _all_placed(E, st, ptrail, CS)
        return
    ob = PT[p, P_OSTART]
    for i in range(ob + PT[p, P_OSIZE], ob + PT[p, P_OCAP]):
        z = PC[oelem[i], Q_CELL]
        if CS[z, C_LEV] > 0:
            _bset(E, z)
    if use_pre:
        for i in range(ob, ob + PT[p, P_OSIZE]):
            q = PC[oelem[i], Q_PREBY]
            if q >= 0 and q != p:
                _bor(E, pre_expl[q])


@njit(cache=True)
def resolve(E, pstart, CS, st, ptrail, rsn):
    """Replace in ``E`` every cell a filter placed from ``ptrail[pstart]`` on by the reason it was
    placed, newest first (a reason names older cells only), and drop the level's decision cell.
    Returns whether that decision cell was in ``E``."""
    had = False
    for i in range(st[ST_PN] - 1, pstart - 1, -1):
        z = ptrail[i]
        if _bhas(E, z):
            _bclr(E, z)
            if CS[z, C_DEC]:
                had = True
            else:
                _bor(E, rsn[z])
    return had


# ---------------------------------------------------------------------------- filters
@njit(cache=True, inline="always")
def fits(c, t, r, CS, COL, ZM):
    """Piece ``t`` turned ``r`` on the empty cell ``c``: the border colour on exactly its frame
    sides, and every known side matched."""
    if ZM[t, r] != CS[c, C_FM]:
        return False
    for s in range(4):
        k = CS[c, C_K0 + s]
        if k >= 0 and COL[t, r, s] != k:
            return False
    return True


@njit(cache=True)
def _frame_cycle(k, CS, PC, m_k, md_k, cs_start, cs_piece, cs_tan, ptan, cfg):
    """Whether the links of the frame pieces (see the module docstring) close a cycle through
    colour ``k`` shorter than the frame ring."""
    a = -1
    b = -1
    for i in range(cs_start[k], cs_start[k + 1]):
        t = cs_piece[i]
        if PC[t, Q_CELL] >= 0:
            continue
        if cs_tan[i] == 0:
            return False
        if a < 0:
            a = t
        else:
            b = t
    if a < 0 or b < 0 or a == b:
        return False
    start = a
    prev_col = k
    cur = b
    length = 2
    for _ in range(cfg[CF_C] + 1):
        nk = ptan[cur, 1] if ptan[cur, 0] == prev_col else ptan[cur, 0]
        if nk <= 0 or m_k[nk] != 2 or md_k[nk] != 0:
            return False
        x = -1
        y = -1
        for i in range(cs_start[nk], cs_start[nk + 1]):
            t = cs_piece[i]
            if PC[t, Q_CELL] >= 0:
                continue
            if cs_tan[i] == 0:
                return False
            if x < 0:
                x = t
            else:
                y = t
        if x < 0 or y < 0 or x == y:
            return False
        nxt = y if x == cur else x
        if nxt == start:
            return length < cfg[CF_RING]
        length += 1
        prev_col = nk
        cur = nxt
    return False


@njit(cache=True)
def propagate(lev, CS, NB, COL, ZM, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx, trail_t, trail_v,
              ptrail, m_k, md_k, mp_k, cinq, cq, pdistinct, rsn, pre_expl, hval, cs_start, cs_piece, cs_tan, ptan,
              stats, tmp):
    """Run the filters over the queued pairs and colours until nothing changes (cells they
    place belong to level ``lev``). Returns False on a failure, with its kind in
    ``st[ST_FAIL]`` and (with backjumping) its explanation in ``fx``; the queues are emptied."""
    bj = cfg[CF_BJ]
    while st[ST_FAIL] == F_NONE and (st[ST_QN] > 0 or st[ST_CQN] > 0):
        if st[ST_QN] > 0:
            st[ST_QN] -= 1
            p = q[st[ST_QN]]
            PT[p, P_INQ] = 0
            use_pre = cfg[CF_PRE] != 0 and st[ST_NMULTI] == 0
            osz = PT[p, P_OSIZE]
            avail = osz - PT[p, P_NBPRE] if use_pre else osz
            d = PT[p, P_DSIZE]
            if d == 0:
                continue
            if avail < d:
                if cfg[CF_CONTRA]:
                    st[ST_FAIL] = F_CONTRA
                    stats[SS_FAIL_CONTRA] += 1
                    if bj:
                        _bzero(fx)
                        _pair_expl(fx, p, use_pre and osz >= d, CS, NB, PT, PC, oelem, delem, pre_expl)
                    break
                continue
            if avail == 1 and d == 1 and cfg[CF_INST]:
                # the one piece left for the one cell
                ob = PT[p, P_OSTART]
                t = -1
                for i in range(ob, ob + osz):
                    tt = oelem[i]
                    pb = PC[tt, Q_PREBY]
                    if not use_pre or pb < 0 or pb == p:
                        t = tt
                        break
                c = delem[PT[p, P_DSTART]] // 6
                rr = -1
                nr = 0
                for r in range(4):
                    if fits(c, t, r, CS, COL, ZM):
                        nr += 1
                        rr = r
                if nr == 0:
                    st[ST_FAIL] = F_INST
                    stats[SS_FAIL_INST] += 1
                    if bj:
                        _bzero(fx)
                        _dom_expl(fx, c, p, use_pre, CS, NB, PT, PC, oelem, delem, pre_expl, st, ptrail)
                    break
                if nr == 1:
                    if bj:
                        _bzero(rsn[c])
                        _dom_expl(rsn[c], c, p, use_pre, CS, NB, PT, PC, oelem, delem, pre_expl, st, ptrail)
                    stats[SS_FORCED_INST] += 1
                    place(c, t, rr, lev, 0, CS, NB, COL, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx,
                          trail_t, trail_v, ptrail, m_k, md_k, mp_k, cinq, cq, pdistinct)
                    continue
            if use_pre and avail == d and PT[p, P_PREEMPT] == 0:
                # every piece this pair still counts is needed by its cells
                if bj:
                    _bzero(pre_expl[p])
                    _pair_expl(pre_expl[p], p, True, CS, NB, PT, PC, oelem, delem, pre_expl)
                ob = PT[p, P_OSTART]
                for i in range(ob, ob + osz):
                    t = oelem[i]
                    if PC[t, Q_PREBY] < 0:
                        PC[t, Q_PREBY] = p
                        for j in range(PC[t, Q_NPAIR]):
                            rr = PC[t, Q_M0 + j]
                            if rr != p:
                                PT[rr, P_NBPRE] += 1
                                _touch(rr, PT, q, st)
                PT[p, P_PREEMPT] = 1
                k = st[ST_TN]
                trail_t[k] = T_PREEMPT
                trail_v[k] = p
                st[ST_TN] = k + 1
                stats[SS_PREEMPTIONS] += 1
        else:
            st[ST_CQN] -= 1
            k = cq[st[ST_CQN]]
            cinq[k] = 0
            if k == 0 or cfg[CF_EXACT] == 0 or cfg[CF_NOHOLES] == 0:
                continue
            if cfg[CF_EDGE]:
                left = m_k[k] - md_k[k]
                if left < 0 or left > 2 * hval[mp_k[k]]:
                    st[ST_FAIL] = F_EDGE
                    stats[SS_FAIL_EDGE] += 1
                    if bj:
                        _bzero(fx)
                        _all_placed(fx, st, ptrail, CS)
                    break
            if cfg[CF_CYCLE] and cfg[CF_RING] > 0 and m_k[k] == 2 and md_k[k] == 0:
                if _frame_cycle(k, CS, PC, m_k, md_k, cs_start, cs_piece, cs_tan, ptan, cfg):
                    st[ST_FAIL] = F_CYCLE
                    stats[SS_FAIL_CYCLE] += 1
                    if bj:
                        _bzero(fx)
                        _all_placed(fx, st, ptrail, CS)
                    break
    if st[ST_FAIL] != F_NONE:
        if st[ST_FAIL] == F_NOPAIR:
            stats[SS_FAIL_NOPAIR] += 1
        while st[ST_QN] > 0:
            st[ST_QN] -= 1
            PT[q[st[ST_QN]], P_INQ] = 0
        while st[ST_CQN] > 0:
            st[ST_CQN] -= 1
            cinq[cq[st[ST_CQN]]] = 0
        return False
    return True


# ---------------------------------------------------------------------------- branching
@njit(cache=True, inline="always")
def _avail(p, use_pre, PT):
    return PT[p, P_OSIZE] - PT[p, P_NBPRE] if use_pre else PT[p, P_OSIZE]


@njit(cache=True)
def cell_pair(c, use_pre, SP, PT):
    """The pair demanded by cell ``c`` with the fewest pieces to offer (-1: it demands none)."""
    best = -1
    bv = 1 << 40
    for j in range(6):
        p = SP[c * 6 + j]
        if p >= 0:
            v = _avail(p, use_pre, PT)
            if v < bv:
                bv = v
                best = p
    return best


@njit(cache=True)
def expected_offer(p, use_pre, PT, PC, oelem):
    """Seed 002's expected offer of ``p``: over its pieces, the chance that none of the piece's
    other pairs takes it, each pair ``q`` taking it with probability ``|Demand(q)| / |Offer(q)|``."""
    e = 0.0
    ob = PT[p, P_OSTART]
    for i in range(ob, ob + PT[p, P_OSIZE]):
        t = oelem[i]
        pb = PC[t, Q_PREBY]
        if use_pre and pb >= 0 and pb != p:
            continue
        prob = 1.0
        for j in range(PC[t, Q_NPAIR]):
            r = PC[t, Q_M0 + j]
            if r == p:
                continue
            o = PT[r, P_OSIZE]
            dd = PT[r, P_DSIZE]
            if dd >= o:
                prob = 0.0
                break
            prob *= 1.0 - dd / o
        e += prob
    return e


@njit(cache=True)
def choose(CS, NB, SP, PT, PC, oelem, delem, dp, fr, st, cfg, stats):
    """The cell to branch on: a pattern cell of seed 002 (four known sides, three, two with a
    surrounded neighbour, or a surrounded neighbour of a cell with one known side and two
    surrounded neighbours; the fewest offers first, then the lowest cell), else a cell of the
    pair the heuristic picks, else (no demanded pair: cells beside holes) the empty cell with
    the most known sides."""
    use_pre = cfg[CF_PRE] != 0 and st[ST_NMULTI] == 0
    if cfg[CF_PAT]:
        best = -1
        bcat = 9
        bv = 1 << 40
        for i in range(st[ST_FRN]):
            c = fr[i]
            nk = CS[c, C_NK]
            if nk >= 4:
                cat = 0
            elif nk == 3:
                cat = 1
            elif CS[c, C_NSURR] >= 1:
                cat = 2
            else:
                cat = 9
                for s in range(4):
                    y = NB[c, s]
                    if y >= 0 and CS[y, C_FREE] and CS[y, C_PIECE] < 0 and CS[y, C_NK] == 1 and CS[y, C_NSURR] >= 2:
                        cat = 3
                        break
            if cat > bcat or cat == 9:
                continue
            p = cell_pair(c, use_pre, SP, PT)
            v = _avail(p, use_pre, PT) if p >= 0 else 1 << 39
            if cat < bcat or v < bv or (v == bv and c < best):
                best = c
                bcat = cat
                bv = v
        if best >= 0:
            stats[SS_PATTERN] += 1
            return best
    if st[ST_DPN] > 0:
        h = cfg[CF_HEUR]
        bp = -1
        bs = 1e300
        for i in range(st[ST_DPN]):
            p = dp[i]
            d = PT[p, P_DSIZE]
            if h == H_MIN_OFFER:
                sc = float(_avail(p, use_pre, PT))
            else:
                e = expected_offer(p, use_pre, PT, PC, oelem)
                if h == H_MIN_EXP_OFFER:
                    sc = e
                elif h == H_MIN_EXP_GAP:
                    sc = e - d
                elif h == H_MIN_EXP_RATIO:
                    sc = e / d
                else:
                    sc = e - _avail(p, use_pre, PT)
            if sc < bs or (sc == bs and p < bp):
                bs = sc
                bp = p
        best = -1
        db = PT[bp, P_DSTART]
        for i in range(db, db + PT[bp, P_DSIZE]):
            c = delem[i] // 6
            if best < 0 or c < best:
                best = c
        stats[SS_PAIR_CHOICE] += 1
        return best
    best = -1
    for c in range(CS.shape[0]):
        if CS[c, C_FREE] and CS[c, C_PIECE] < 0 and (best < 0 or CS[c, C_NK] > CS[best, C_NK]):
            best = c
    stats[SS_FALLBACK] += 1
    return best


@njit(cache=True)
def candidates(c, p, use_pre, CS, COL, ZM, PC, PT, oelem, uni, cs_p, cs_r, start):
    """Push on the candidate stack from ``start`` every (piece, turn) that fits cell ``c``,
    drawn from the offer of ``p`` (without the pieces other pairs pre-empt), or from every
    unplaced piece when ``p`` is -1. Returns the end of the list."""
    k = start
    if p >= 0:
        ob = PT[p, P_OSTART]
        for i in range(ob, ob + PT[p, P_OSIZE]):
            t = oelem[i]
            pb = PC[t, Q_PREBY]
            if use_pre and pb >= 0 and pb != p:
                continue
            for r in range(4):
                if fits(c, t, r, CS, COL, ZM):
                    cs_p[k] = t
                    cs_r[k] = r
                    k += 1
    else:
        for i in range(uni.shape[0]):
            t = uni[i]
            if PC[t, Q_CELL] >= 0:
                continue
            for r in range(4):
                if fits(c, t, r, CS, COL, ZM):
                    cs_p[k] = t
                    cs_r[k] = r
                    k += 1
    return k


# ---------------------------------------------------------------------------- search
# lv[d, *]: per node of the current branch. CELL: the cell branched on; PAIR: the pair its
# candidates come from; CB, CE: its candidates on the candidate stack; CN: the next to try;
# TMARK, PMARK: the trail and the placement trail when the node was reached (its state);
# SOL: a solution was found below it (no jump may pass it).
L_CELL, L_PAIR, L_CB, L_CE, L_CN, L_TMARK, L_PMARK, L_SOL = range(8)
N_LV = 8

#: The order of the arrays in the tuple the search functions take (see colorpair.Search).
ARRAYS = ("CS", "NB", "COL", "ZM", "PC", "PT", "oelem", "delem", "SP", "SLOC", "dp", "fr", "cmap", "q", "st",
          "cfg", "fx", "trail_t", "trail_v", "ptrail", "m_k", "md_k", "mp_k", "cinq", "cq", "pdistinct", "rsn",
          "pre_expl", "hval", "cs_start", "cs_piece", "cs_tan", "ptan", "stats", "tmp", "uni", "cs_p", "cs_r", "sx",
          "shv", "lv", "lvx", "sol_piece", "sol_rot", "deep_piece", "deep_rot", "fixed", "pins")


@njit(cache=True)
def _prop(lev, A):
    (CS, NB, COL, ZM, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx, trail_t, trail_v, ptrail, m_k,
     md_k, mp_k, cinq, cq, pdistinct, rsn, pre_expl, hval, cs_start, cs_piece, cs_tan, ptan, stats, tmp, uni, cs_p,
     cs_r, sx, shv, lv, lvx, sol_piece, sol_rot, deep_piece, deep_rot, fixed, pins) = A
    return propagate(lev, CS, NB, COL, ZM, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx, trail_t,
                     trail_v, ptrail, m_k, md_k, mp_k, cinq, cq, pdistinct, rsn, pre_expl, hval, cs_start, cs_piece,
                     cs_tan, ptan, stats, tmp)


@njit(cache=True)
def _place(c, t, r, lev, dec, A):
    (CS, NB, COL, ZM, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx, trail_t, trail_v, ptrail, m_k,
     md_k, mp_k, cinq, cq, pdistinct, rsn, pre_expl, hval, cs_start, cs_piece, cs_tan, ptan, stats, tmp, uni, cs_p,
     cs_r, sx, shv, lv, lvx, sol_piece, sol_rot, deep_piece, deep_rot, fixed, pins) = A
    place(c, t, r, lev, dec, CS, NB, COL, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx, trail_t,
          trail_v, ptrail, m_k, md_k, mp_k, cinq, cq, pdistinct)


@njit(cache=True)
def _undo(mark, A):
    (CS, NB, COL, ZM, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx, trail_t, trail_v, ptrail, m_k,
     md_k, mp_k, cinq, cq, pdistinct, rsn, pre_expl, hval, cs_start, cs_piece, cs_tan, ptan, stats, tmp, uni, cs_p,
     cs_r, sx, shv, lv, lvx, sol_piece, sol_rot, deep_piece, deep_rot, fixed, pins) = A
    undo_to(mark, CS, NB, COL, PC, PT, oelem, delem, SP, SLOC, dp, fr, st, trail_t, trail_v, ptrail, m_k, md_k, mp_k,
            pdistinct)


@njit(cache=True)
def shave(lev, A):
    """Shaving at a node of level ``lev``: every cell with two known sides or more tries each of
    its candidates (placed, filtered, undone). A cell none of whose candidates survives fails
    the node; a cell with one survivor gets it (placed at ``lev``), and the pass starts again.
    Returns False on a failure (explanation in ``fx`` with backjumping)."""
    (CS, NB, COL, ZM, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx, trail_t, trail_v, ptrail, m_k,
     md_k, mp_k, cinq, cq, pdistinct, rsn, pre_expl, hval, cs_start, cs_piece, cs_tan, ptan, stats, tmp, uni, cs_p,
     cs_r, sx, shv, lv, lvx, sol_piece, sol_rot, deep_piece, deep_rot, fixed, pins) = A
    bj = cfg[CF_BJ]
    again = True
    while again:
        again = False
        nf = st[ST_FRN]
        for i in range(nf):
            shv[i] = fr[i]
        for ii in range(nf):
            c = shv[ii]
            use_pre = cfg[CF_PRE] != 0 and st[ST_NMULTI] == 0
            p = cell_pair(c, use_pre, SP, PT)
            base = st[ST_CSN]
            end = candidates(c, p, use_pre, CS, COL, ZM, PC, PT, oelem, uni, cs_p, cs_r, base)
            ok_n = 0
            bt = -1
            br = -1
            if bj:
                _bzero(sx)
            for k in range(base, end):
                t = cs_p[k]
                r = cs_r[k]
                mark = st[ST_TN]
                pmark = st[ST_PN]
                _place(c, t, r, lev + 1, 1, A)
                stats[SS_PROBES] += 1
                if _prop(lev + 1, A):
                    ok_n += 1
                    bt = t
                    br = r
                else:
                    if bj:
                        resolve(fx, pmark, CS, st, ptrail, rsn)
                        _bor(sx, fx)
                    st[ST_FAIL] = F_NONE
                _undo(mark, A)
                if ok_n >= 2:
                    break
            if ok_n == 0:
                st[ST_FAIL] = F_SHAVE
                stats[SS_FAIL_SHAVE] += 1
                if bj:
                    _bcopy(fx, sx)
                    _dom_expl(fx, c, p, use_pre, CS, NB, PT, PC, oelem, delem, pre_expl, st, ptrail)
                return False
            if ok_n == 1:
                if bj:
                    _bcopy(rsn[c], sx)
                    _dom_expl(rsn[c], c, p, use_pre, CS, NB, PT, PC, oelem, delem, pre_expl, st, ptrail)
                stats[SS_FORCED_SHAVE] += 1
                _place(c, bt, br, lev, 0, A)
                if not _prop(lev, A):
                    return False
                again = True
                break
    return True


@njit(cache=True)
def setup(A):
    """The root: the frame's demands, the fixed cells and pins placed (level 0), the filters
    and shaving run. Leaves the search at its first node, or done when the root fails."""
    (CS, NB, COL, ZM, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx, trail_t, trail_v, ptrail, m_k,
     md_k, mp_k, cinq, cq, pdistinct, rsn, pre_expl, hval, cs_start, cs_piece, cs_tan, ptan, stats, tmp, uni, cs_p,
     cs_r, sx, shv, lv, lvx, sol_piece, sol_rot, deep_piece, deep_rot, fixed, pins) = A
    st[ST_STARTED] = 1
    n = CS.shape[0]
    nslots = 6 if cfg[CF_OPP] else 4
    for c in range(n):
        if CS[c, C_FREE] == 0 or CS[c, C_PIECE] >= 0:
            continue
        for j in range(nslots):
            if CS[c, C_K0 + SLOT_A[j]] >= 0 and CS[c, C_K0 + SLOT_B[j]] >= 0:
                _activate(c, j, CS, NB, SP, SLOC, PT, delem, dp, cmap, q, st, cfg, fx)
        if CS[c, C_NK] >= 2:
            _fr_add(c, CS, fr, st)
            for s in range(4):
                z = NB[c, s]
                if z >= 0:
                    CS[z, C_NSURR] += 1
    for i in range(fixed.shape[0]):
        _place(fixed[i, 0], fixed[i, 1], fixed[i, 2], 0, 0, A)
    for i in range(pins.shape[0]):
        _place(pins[i, 0], pins[i, 1], pins[i, 2], 0, 0, A)
    for i in range(st[ST_DPN]):
        _touch(dp[i], PT, q, st)
    for k in range(m_k.shape[0]):
        _ctouch(k, cinq, cq, st)
    ok = _prop(0, A)
    if ok and cfg[CF_SHAVE]:
        ok = shave(0, A)
    st[ST_DEPTH] = 0
    st[ST_PHASE] = PH_ENTER
    if not ok:
        st[ST_DONE] = 1


@njit(cache=True)
def _max_level(E, CS):
    """The deepest search level among the cells of ``E`` (0 when it holds none)."""
    best = 0
    for w in range(E.shape[0]):
        x = E[w]
        while x != 0:
            c = w * 64 + trailing_zeros(x)
            if CS[c, C_LEV] > best:
                best = CS[c, C_LEV]
            x &= x - 1
    return best


@njit(cache=True)
def _failed_below(k, A):
    """The child of node ``k`` failed, explained by ``fx``: note it at node ``k`` (returns k), or,
    when the explanation does not name node ``k``'s cell, fail node ``k`` too and jump to the
    deepest node the explanation names. Returns the node to go on from, or -1: the search is
    done (the explanation names no search level)."""
    (CS, NB, COL, ZM, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx, trail_t, trail_v, ptrail, m_k,
     md_k, mp_k, cinq, cq, pdistinct, rsn, pre_expl, hval, cs_start, cs_piece, cs_tan, ptan, stats, tmp, uni, cs_p,
     cs_r, sx, shv, lv, lvx, sol_piece, sol_rot, deep_piece, deep_rot, fixed, pins) = A
    while True:
        had = resolve(fx, lv[k, L_PMARK], CS, st, ptrail, rsn)
        if had or lv[k, L_SOL]:
            _bor(lvx[k], fx)
            return k
        k = _jump(k, A)
        if k < 0:
            return -1


@njit(cache=True)
def _jump(k, A):
    """Node ``k`` fails, explained by ``fx`` (cells of its levels): undo back to the deepest node
    that placed one of them and return the node that branched there (its child failed), or -1."""
    (CS, NB, COL, ZM, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx, trail_t, trail_v, ptrail, m_k,
     md_k, mp_k, cinq, cq, pdistinct, rsn, pre_expl, hval, cs_start, cs_piece, cs_tan, ptan, stats, tmp, uni, cs_p,
     cs_r, sx, shv, lv, lvx, sol_piece, sol_rot, deep_piece, deep_rot, fixed, pins) = A
    j = _max_level(fx, CS)
    if j > k:
        j = k  # cannot happen: an explanation names placed cells only
    if j == 0:
        return -1
    if j < k:
        stats[SS_BACKJUMPS] += 1
        stats[SS_SKIPPED] += k - j
    _undo(lv[j, L_TMARK], A)
    st[ST_CSN] = lv[j - 1, L_CE]
    return j - 1


@njit(cache=True)
def run(node_budget, A):
    """Search on for about ``node_budget`` nodes (branching placements), or until ``cfg[CF_STOP]``
    solutions (0: all), from where the last call stopped."""
    (CS, NB, COL, ZM, PC, PT, oelem, delem, SP, SLOC, dp, fr, cmap, q, st, cfg, fx, trail_t, trail_v, ptrail, m_k,
     md_k, mp_k, cinq, cq, pdistinct, rsn, pre_expl, hval, cs_start, cs_piece, cs_tan, ptan, stats, tmp, uni, cs_p,
     cs_r, sx, shv, lv, lvx, sol_piece, sol_rot, deep_piece, deep_rot, fixed, pins) = A
    if st[ST_DONE]:
        return
    bj = cfg[CF_BJ]
    d = st[ST_DEPTH]
    phase = st[ST_PHASE]
    nodes = 0
    stop = False
    while True:
        if phase == PH_ENTER:
            # node d is reached: its level's filters left it consistent
            if nodes >= node_budget:
                break
            if cfg[CF_SHAVE] and d > 0 and not shave(d, A):
                st[ST_FAIL] = F_NONE
                lv[d, L_TMARK] = st[ST_TN]  # for _jump: node d's state is what is on the trail now
                lv[d, L_PMARK] = st[ST_PN]
                if not bj:
                    d -= 1
                    phase = PH_NEXT
                    continue
                d = _jump(d, A)
                if d >= 0:
                    d = _failed_below(d, A)
                if d < 0:
                    st[ST_DONE] = 1
                    break
                phase = PH_NEXT
                continue
            if st[ST_NFILLED] == cfg[CF_NFREE]:
                ns = st[ST_SOLS]
                if ns < sol_piece.shape[0]:
                    for c in range(CS.shape[0]):
                        sol_piece[ns, c] = CS[c, C_PIECE]
                        sol_rot[ns, c] = CS[c, C_ROT]
                st[ST_SOLS] = ns + 1
                if d == 0:
                    st[ST_DONE] = 1
                    break
                lv[d - 1, L_SOL] = 1
                d -= 1
                phase = PH_NEXT
                if cfg[CF_STOP] > 0 and st[ST_SOLS] >= cfg[CF_STOP]:
                    stop = True
                    break
                continue
            use_pre = cfg[CF_PRE] != 0 and st[ST_NMULTI] == 0
            c = choose(CS, NB, SP, PT, PC, oelem, delem, dp, fr, st, cfg, stats)
            p = cell_pair(c, use_pre, SP, PT)
            cb = st[ST_CSN]
            ce = candidates(c, p, use_pre, CS, COL, ZM, PC, PT, oelem, uni, cs_p, cs_r, cb)
            lv[d, L_CELL] = c
            lv[d, L_PAIR] = p
            lv[d, L_CB] = cb
            lv[d, L_CE] = ce
            lv[d, L_CN] = cb
            lv[d, L_TMARK] = st[ST_TN]
            lv[d, L_PMARK] = st[ST_PN]
            lv[d, L_SOL] = 0
            st[ST_CSN] = ce
            if bj:
                _bzero(lvx[d])
                _dom_expl(lvx[d], c, p, use_pre, CS, NB, PT, PC, oelem, delem, pre_expl, st, ptrail)
            if ce == cb:
                stats[SS_FAIL_EMPTY] += 1
            phase = PH_NEXT
        else:
            # node d: undo its last child and try the next candidate
            _undo(lv[d, L_TMARK], A)
            st[ST_CSN] = lv[d, L_CE]
            if lv[d, L_CN] == lv[d, L_CE]:
                st[ST_CSN] = lv[d, L_CB]
                if lv[d, L_SOL] or not bj:
                    if d == 0:
                        st[ST_DONE] = 1
                        break
                    if lv[d, L_SOL]:
                        lv[d - 1, L_SOL] = 1
                    d -= 1
                    continue
                _bcopy(fx, lvx[d])
                d = _jump(d, A)
                if d >= 0:
                    d = _failed_below(d, A)
                if d < 0:
                    st[ST_DONE] = 1
                    break
                continue
            if nodes >= node_budget:
                break
            k = lv[d, L_CN]
            lv[d, L_CN] = k + 1
            nodes += 1
            _place(lv[d, L_CELL], cs_p[k], cs_r[k], d + 1, 1, A)
            if _prop(d + 1, A):
                if st[ST_NFILLED] > st[ST_DEEPEST]:
                    st[ST_DEEPEST] = st[ST_NFILLED]
                    for c in range(CS.shape[0]):
                        deep_piece[c] = CS[c, C_PIECE]
                        deep_rot[c] = CS[c, C_ROT]
                d += 1
                phase = PH_ENTER
            else:
                st[ST_FAIL] = F_NONE
                if bj:
                    d = _failed_below(d, A)
                    if d < 0:
                        st[ST_DONE] = 1
                        break
    st[ST_DEPTH] = d
    st[ST_PHASE] = phase
    st[ST_NODES] += nodes
