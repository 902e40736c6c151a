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

Memory layout. The whole state is five int64 arrays: ``CS`` (one row per cell), ``PT`` (one row
per colour pair), ``PC`` (one row per piece), ``X`` (the scalars, the settings, the statistics,
and every other table at an offset its header gives: see the ``H_*`` slots) and ``B`` (the
explanation bitsets, one row each). Numba counts references to every array a call passes: the
first version of this kernel passed some fifty arrays from call to call, and ``perf`` put two
thirds of the run in those counts (0.11 M nodes/s on a 7x7). With five, a call costs a few
nanoseconds, and the small helpers are inlined into their callers. The state is owned by the caller
(:class:`emc.backends.colorpair.Search`), so :func:`run` returns after a node budget and
resumes where it stopped.
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
# class: 0 inner, 1 edge, 2 corner), HOLE (a cell outside the sub-problem with no piece) and
# NB0..NB3 (the neighbour across each side, -1 at the frame) are fixed.
C_PIECE, C_ROT, C_LEV, C_DEC, C_NK, C_K0, C_NSURR, C_FLOC, C_DCNT, C_FREE, C_FM, C_CLS, C_HOLE, C_NB0 = \
    0, 1, 2, 3, 4, 5, 9, 10, 11, 12, 13, 14, 15, 16
N_CS = 24

# PT[pair, *]: per (compact) pair. OSTART/OCAP: the pair's block of the offer table (every piece
# that offers it); OSIZE: how many of them are unplaced (the first OSIZE of the block);
# DSTART/DCAP, DSIZE: likewise in the demand table for the demand slots; NBPRE: unplaced pieces
# of the offer pre-empted by another pair; PREEMPT: 1 while this pair pre-empts its offer;
# DPLOC: position in the set of demanded pairs; INQ: queued for the filters; CLS, KIND
# (0 consecutive, 1 opposite), A, B: what the pair is (for the tests).
P_OSTART, P_OCAP, P_OSIZE, P_DSTART, P_DCAP, P_DSIZE, P_NBPRE, P_PREEMPT, P_DPLOC, P_INQ, P_CLS, P_KIND, \
    P_A, P_B = range(14)
N_PT = 16

# PC[piece, *]: per piece. NPAIR: its offers (at most six), M0..M5 the pairs, L0..L5 its position in
# each pair's block of the offer table; PREBY: the pair pre-empting it (-1: none); CELL: where it is
# placed (-1: nowhere); UNI: 1 for the pieces the sub-problem may place; DIST0..DIST3: its distinct
# colours (-1 past them); TAN0, TAN1: the colours of a frame piece's two sides along the frame
# (-1 for inner pieces); COL: the colours it shows, 16 columns from COL (turn * 4 + side); ZM: the
# sides showing the border colour, as a mask, 4 columns from ZM (per turn).
Q_NPAIR, Q_M0, Q_L0, Q_PREBY, Q_CELL, Q_UNI, Q_DIST0, Q_TAN0, Q_COL, Q_ZM = 0, 1, 7, 13, 14, 15, 16, 20, 24, 40
N_PC = 48

# slot states besides a pair number
S_OFF, S_DUP, S_DEAD = -1, -2, -3

# X[0:32]: the search's scalars
(ST_TN, ST_PN, ST_FRN, ST_DPN, ST_NMULTI, ST_QN, ST_CQN, ST_FAIL, ST_NFILLED, ST_DEPTH, ST_PHASE, ST_DONE,
 ST_CSN, ST_DEEPEST, ST_SOLS, ST_STARTED, ST_NODES) = range(17)
# X[32:64]: the run's settings
(CF_CONTRA, CF_INST, CF_PRE, CF_EDGE, CF_CYCLE, CF_SHAVE, CF_BJ, CF_PAT, CF_HEUR, CF_EXACT, CF_NOHOLES,
 CF_C, CF_W, CF_NFREE, CF_RING, CF_STOP, CF_KEEP, CF_OPP, CF_COL) = range(32, 51)
# X[64:96]: what the search counts. Failures by the filter that found them: FAIL_CONTRA (fewer
# offers than demands), FAIL_NOPAIR (a cell demanding a pair no piece offers), FAIL_INST (the one
# piece left does not fit its cell), FAIL_EMPTY (a branching cell without candidates), FAIL_SHAVE
# (shaving found no value for a cell), FAIL_EDGE, FAIL_CYCLE; FORCED_INST, FORCED_SHAVE: cells
# placed by instantiation and by shaving; PREEMPTIONS; BACKJUMPS (failures that skipped nodes) and
# SKIPPED (nodes skipped); PROBES (shaving's trial placements); PATTERN, PAIR_CHOICE, FALLBACK:
# nodes branched on a pattern cell, on a cell of the pair the heuristic chose, on the cell with
# the most known sides (no demanded pair)
(SS_FAIL_CONTRA, SS_FAIL_NOPAIR, SS_FAIL_INST, SS_FAIL_EMPTY, SS_FAIL_SHAVE, SS_FAIL_EDGE, SS_FAIL_CYCLE,
 SS_FORCED_INST, SS_FORCED_SHAVE, SS_PREEMPTIONS, SS_BACKJUMPS, SS_SKIPPED, SS_PROBES, SS_PATTERN,
 SS_PAIR_CHOICE, SS_FALLBACK) = range(64, 80)
N_SS = 16
# X[96:160]: where each table starts in X (filled by colorpair.Search)
(H_OELEM, H_DELEM, H_SP, H_SLOC, H_DP, H_FR, H_CMAP, H_Q, H_TT, H_TV, H_PTRAIL, H_MK, H_MDK, H_MPK, H_CINQ,
 H_CQ, H_HVAL, H_CSSTART, H_CSPIECE, H_CSTAN, H_UNI, H_NUNI, H_CSP, H_CSR, H_SHV, H_LV, H_SOLP, H_SOLR,
 H_DEEPP, H_DEEPR, H_FIXED, H_NFIXED, H_PINS, H_NPINS, H_NSOL, H_BRSN, H_BPRE, H_BLVX, H_OMJ) = range(96, 135)
X_DATA = 160
#: The tables of X after the header, in order, as colorpair.Search lays them out.
TABLES = ("OELEM", "DELEM", "SP", "SLOC", "DP", "FR", "CMAP", "Q", "TT", "TV", "PTRAIL", "MK", "MDK", "MPK", "CINQ",
          "CQ", "HVAL", "CSSTART", "CSPIECE", "CSTAN", "UNI", "CSP", "CSR", "SHV", "LV", "SOLP", "SOLR", "DEEPP",
          "DEEPR", "FIXED", "PINS", "OMJ")
# B rows: the current failure's explanation, shaving's union, then one row per cell (the reason a
# filter placed it), per pair (its pre-emption's explanation) and per node (its conflict set)
B_FX, B_SX = 0, 1

# the heuristics choosing a pair when no pattern applies (CF_HEUR)
H_MIN_OFFER, H_MIN_EXP_OFFER, H_MIN_EXP_GAP, H_MIN_EXP_RATIO, H_MAX_EXP_FILTER = range(5)

# failure kinds (X[ST_FAIL])
F_NONE, F_CONTRA, F_NOPAIR, F_INST, F_EMPTY, F_SHAVE, F_EDGE, F_CYCLE = range(8)

# trail entries
T_PLACE, T_PREEMPT = 0, 1

# run phases
PH_ENTER, PH_NEXT = 0, 1

# lv rows (X[H_LV] + node * N_LV): per node of the current branch. CELL: the cell branched on;
# PAIR: the pair its candidates come from; CB, CE: its candidates on the candidate stack; CN: the
# next to try; TMARK, PMARK: the trail and the placement trail when the node was reached (its
# state); SOL: a solution was found below it (no jump may pass it).
L_CELL, L_PAIR, L_CB, L_CE, L_CN, L_TMARK, L_PMARK, L_SOL = range(8)
N_LV = 8

# The small helpers are inlined into their callers.
INL = "always"
# Indices are cast to unsigned (U) where they are used: numba lets a negative index count from the
# end of the array, which costs a test per access on a signed one. Never mix a U value into signed
# arithmetic (numba turns int64 with uint64 into float64): U() wraps whole index expressions only.
U = np.uint64


# ---------------------------------------------------------------------------- bitsets
@njit(cache=True, _nrt=False, inline=INL)
def _bset(B, row, c):
    B[U(row), U(c >> 6)] |= np.int64(1) << (c & 63)


@njit(cache=True, _nrt=False, inline=INL)
def _bhas(B, row, c):
    return (B[U(row), U(c >> 6)] >> (c & 63)) & 1 != 0


@njit(cache=True, _nrt=False, inline=INL)
def _bclr(B, row, c):
    B[U(row), U(c >> 6)] &= ~(np.int64(1) << (c & 63))


@njit(cache=True, _nrt=False, inline=INL)
def _bzero(B, row):
    for i in range(B.shape[1]):
        B[U(row), U(i)] = 0


@njit(cache=True, _nrt=False, inline=INL)
def _bor(B, row, src):
    for i in range(B.shape[1]):
        B[U(row), U(i)] |= B[U(src), U(i)]


@njit(cache=True, _nrt=False, inline=INL)
def _bcopy(B, row, src):
    for i in range(B.shape[1]):
        B[U(row), U(i)] = B[U(src), U(i)]


# ---------------------------------------------------------------------------- sparse sets
@njit(cache=True, _nrt=False, inline=INL)
def _touch(p, PT, X):
    if PT[U(p), P_INQ] == 0:
        PT[U(p), P_INQ] = 1
        X[U(X[H_Q] + X[ST_QN])] = p
        X[ST_QN] += 1


@njit(cache=True, _nrt=False, inline=INL)
def _ctouch(k, X):
    o = X[H_CINQ] + k
    if X[U(o)] == 0:
        X[U(o)] = 1
        X[U(X[H_CQ] + X[ST_CQN])] = k
        X[ST_CQN] += 1


@njit(cache=True, _nrt=False, inline=INL)
def _dem_insert(m, p, PT, X):
    de = X[H_DELEM]
    i = PT[U(p), P_DSTART] + PT[U(p), P_DSIZE]
    X[U(de + i)] = m
    X[U(X[H_SLOC] + m)] = i
    PT[U(p), P_DSIZE] += 1
    if PT[U(p), P_DSIZE] == 1:
        k = X[ST_DPN]
        X[U(X[H_DP] + k)] = p
        PT[U(p), P_DPLOC] = k
        X[ST_DPN] = k + 1


@njit(cache=True, _nrt=False, inline=INL)
def _dem_remove(m, p, PT, X):
    de = X[H_DELEM]
    sl = X[H_SLOC]
    i = X[U(sl + m)]
    last = PT[U(p), P_DSTART] + PT[U(p), P_DSIZE] - 1
    o = X[U(de + last)]
    X[U(de + i)] = o
    X[U(sl + o)] = i
    X[U(de + last)] = m
    X[U(sl + m)] = last
    PT[U(p), P_DSIZE] -= 1
    if PT[U(p), P_DSIZE] == 0:
        dpo = X[H_DP]
        k = PT[U(p), P_DPLOC]
        last = X[ST_DPN] - 1
        o = X[U(dpo + last)]
        X[U(dpo + k)] = o
        PT[U(o), P_DPLOC] = k
        X[ST_DPN] = last


@njit(cache=True, _nrt=False, inline=INL)
def _fr_add(c, CS, X):
    k = X[ST_FRN]
    X[U(X[H_FR] + k)] = c
    CS[U(c), C_FLOC] = k
    X[ST_FRN] = k + 1


@njit(cache=True, _nrt=False, inline=INL)
def _fr_remove(c, CS, X):
    fr = X[H_FR]
    k = CS[U(c), C_FLOC]
    last = X[ST_FRN] - 1
    o = X[U(fr + last)]
    X[U(fr + k)] = o
    CS[U(o), C_FLOC] = k
    CS[U(c), C_FLOC] = -1
    X[ST_FRN] = last


@njit(cache=True, _nrt=False, inline=INL)
def _surround(c, delta, CS):
    """Cell ``c`` becomes (1) or stops being (-1) an empty free cell with two known sides: its
    neighbours count it."""
    for s in range(4):
        z = CS[U(c), U(C_NB0 + s)]
        if z >= 0:
            CS[U(z), C_NSURR] += delta


@njit(cache=True, _nrt=False, inline=INL)
def _raw_pair(cls, j, a, b, C):
    """The raw number of the pair slot ``j`` of a cell of class ``cls`` demands when its two
    sides show ``a`` then ``b``."""
    if j < 4:
        return (cls * C + a) * C + b
    lo = min(a, b)
    hi = max(a, b)
    return 3 * C * C + (cls * C + lo) * C + hi


@njit(cache=True, _nrt=False, inline=INL)
def _slot_sides(j):
    if j < 4:
        return j, (j + 1) & 3
    return j - 4, j - 2


# ---------------------------------------------------------------------------- placing
@njit(cache=True, _nrt=False, inline=INL)
def _activate(y, j, CS, PT, X, B):
    """Slot ``j`` of the empty cell ``y`` has both sides known: it joins its pair's demand."""
    m = y * 6 + j
    sa, sb = _slot_sides(j)
    a = CS[U(y), U(C_K0 + sa)]
    b = CS[U(y), U(C_K0 + sb)]
    p = X[U(X[H_CMAP] + _raw_pair(CS[U(y), C_CLS], j, a, b, X[CF_C]))]
    sp = X[H_SP]
    if p < 0:
        X[U(sp + m)] = S_DEAD
        if X[ST_FAIL] == F_NONE:
            X[ST_FAIL] = F_NOPAIR
            if X[CF_BJ]:
                _bzero(B, B_FX)
                for s in (sa, sb):
                    z = CS[U(y), U(C_NB0 + s)]
                    if z >= 0 and CS[U(z), C_LEV] > 0:
                        _bset(B, B_FX, z)
        return
    # a cell demands a pair once, however many of its slots show it: only consecutive slots can
    # show the same consecutive pair (three or four sides of one colour, or colours alternating
    # round it), and only the two opposite slots the same opposite pair
    if j < 4:
        for jj in range(4):
            if jj != j and X[U(sp + y * 6 + jj)] == p:
                X[U(sp + m)] = S_DUP
                return
    elif X[U(sp + y * 6 + 9 - j)] == p:
        X[U(sp + m)] = S_DUP
        return
    X[U(sp + m)] = p
    _dem_insert(m, p, PT, X)
    CS[U(y), C_DCNT] += 1
    if CS[U(y), C_DCNT] == 2:
        X[ST_NMULTI] += 1
    _touch(p, PT, X)


@njit(cache=True, _nrt=False, inline=INL)
def _deactivate(y, j, CS, PT, X):
    m = y * 6 + j
    sp = X[H_SP]
    p = X[U(sp + m)]
    if p >= 0:
        _dem_remove(m, p, PT, X)
        if CS[U(y), C_DCNT] == 2:
            X[ST_NMULTI] -= 1
        CS[U(y), C_DCNT] -= 1
    X[U(sp + m)] = S_OFF


@njit(cache=True, _nrt=False)
def assign(c, t, r, lev, dec, CS, PT, PC, X, B):
    """Place piece ``t`` turned ``r`` on cell ``c`` at search level ``lev`` (``dec``: a branching
    decision), updating every set; a pair no piece offers, demanded by a neighbour now, sets the
    failure flag (the placement is still made whole, so that :func:`unassign` can undo it). When
    it leaves no cell demanding two pairs where there was one, every demanded pair is queued
    again: pre-emptions count again from then on."""
    nmulti_before = X[ST_NMULTI]
    CS[U(c), C_PIECE] = t
    CS[U(c), C_ROT] = r
    CS[U(c), C_LEV] = lev
    CS[U(c), C_DEC] = dec
    PC[U(t), Q_CELL] = c
    k = X[ST_TN]
    X[U(X[H_TT] + k)] = T_PLACE
    X[U(X[H_TV] + k)] = c
    X[ST_TN] = k + 1
    X[U(X[H_PTRAIL] + X[ST_PN])] = c
    X[ST_PN] += 1
    free = CS[U(c), C_FREE]
    if free:
        X[ST_NFILLED] += 1
    # the piece leaves its offers
    oe = X[H_OELEM]
    omj = X[H_OMJ]
    pre = PC[U(t), Q_PREBY]
    for j in range(PC[U(t), Q_NPAIR]):
        p = PC[U(t), U(Q_M0 + j)]
        i = PC[U(t), U(Q_L0 + j)]
        last = PT[U(p), P_OSTART] + PT[U(p), P_OSIZE] - 1
        o = X[U(oe + last)]
        jo = X[U(omj + last)]
        X[U(oe + i)] = o
        X[U(omj + i)] = jo
        PC[U(o), U(Q_L0 + jo)] = i
        X[U(oe + last)] = t
        X[U(omj + last)] = j
        PC[U(t), U(Q_L0 + j)] = last
        PT[U(p), P_OSIZE] -= 1
        if pre >= 0 and p != pre:
            PT[U(p), P_NBPRE] -= 1
        _touch(p, PT, X)
    mk = X[H_MK]
    mdk = X[H_MDK]
    col_on = X[CF_COL]  # the colour counts, kept only for the filters that read them
    if col_on and PC[U(t), Q_UNI]:
        mpk = X[H_MPK]
        for s in range(4):
            kk = PC[U(t), U(Q_COL + s)]
            X[U(mk + kk)] -= 1
            _ctouch(kk, X)
            kk = PC[U(t), U(Q_DIST0 + s)]
            if kk >= 0:
                X[U(mpk + kk)] -= 1
    if free:
        # the cell leaves its demands and the frontier
        sp = X[H_SP]
        for j in range(6):
            p = X[U(sp + c * 6 + j)]
            if p >= 0:
                _dem_remove(c * 6 + j, p, PT, X)
                _touch(p, PT, X)
        if CS[U(c), C_DCNT] >= 2:
            X[ST_NMULTI] -= 1
        if CS[U(c), C_FLOC] >= 0:
            _fr_remove(c, CS, X)
            _surround(c, -1, CS)
        fm = CS[U(c), C_FM]
        for s in range(4):
            kk = CS[U(c), U(C_K0 + s)]
            if col_on and kk >= 0 and (fm >> s) & 1 == 0:
                X[U(mdk + kk)] -= 1
                _ctouch(kk, X)
    # the empty neighbours learn a side
    for s in range(4):
        y = CS[U(c), U(C_NB0 + s)]
        if y < 0 or CS[U(y), C_FREE] == 0 or CS[U(y), C_PIECE] >= 0:
            continue
        os = (s + 2) & 3
        col = PC[U(t), U(Q_COL + r * 4 + s)]
        CS[U(y), U(C_K0 + os)] = col
        CS[U(y), C_NK] += 1
        if col_on:
            X[U(mdk + col)] += 1
            _ctouch(col, X)
        if CS[U(y), U(C_K0 + ((os + 1) & 3))] >= 0:
            _activate(y, os, CS, PT, X, B)
        if CS[U(y), U(C_K0 + ((os + 3) & 3))] >= 0:
            _activate(y, (os + 3) & 3, CS, PT, X, B)
        if X[CF_OPP] and CS[U(y), U(C_K0 + ((os + 2) & 3))] >= 0:
            _activate(y, 4 + (os & 1), CS, PT, X, B)
        if CS[U(y), C_NK] == 2:
            _fr_add(y, CS, X)
            _surround(y, 1, CS)
    if nmulti_before > 0 and X[ST_NMULTI] == 0 and X[CF_PRE]:
        dpo = X[H_DP]
        for i in range(X[ST_DPN]):
            _touch(X[U(dpo + i)], PT, X)


@njit(cache=True, _nrt=False)
def unassign(c, CS, PT, PC, X):
    """Undo :func:`assign` of cell ``c``, the last placement not yet undone."""
    t = CS[U(c), C_PIECE]
    r = CS[U(c), C_ROT]
    sp = X[H_SP]
    mdk = X[H_MDK]
    col_on = X[CF_COL]
    for s in range(3, -1, -1):
        y = CS[U(c), U(C_NB0 + s)]
        if y < 0 or CS[U(y), C_FREE] == 0 or CS[U(y), C_PIECE] >= 0:
            continue
        os = (s + 2) & 3
        if CS[U(y), C_NK] == 2:
            _fr_remove(y, CS, X)
            _surround(y, -1, CS)
        j = 4 + (os & 1)
        if X[U(sp + y * 6 + j)] != S_OFF:
            _deactivate(y, j, CS, PT, X)
        j = (os + 3) & 3
        if X[U(sp + y * 6 + j)] != S_OFF:
            _deactivate(y, j, CS, PT, X)
        if X[U(sp + y * 6 + os)] != S_OFF:
            _deactivate(y, os, CS, PT, X)
        if col_on:
            X[U(mdk + PC[U(t), U(Q_COL + r * 4 + s)])] -= 1
        CS[U(y), C_NK] -= 1
        CS[U(y), U(C_K0 + os)] = -1
    if CS[U(c), C_FREE]:
        fm = CS[U(c), C_FM]
        for s in range(4):
            kk = CS[U(c), U(C_K0 + s)]
            if col_on and kk >= 0 and (fm >> s) & 1 == 0:
                X[U(mdk + kk)] += 1
        if CS[U(c), C_NK] >= 2:
            _fr_add(c, CS, X)
            _surround(c, 1, CS)
        if CS[U(c), C_DCNT] >= 2:
            X[ST_NMULTI] += 1
        for j in range(5, -1, -1):
            p = X[U(sp + c * 6 + j)]
            if p >= 0:
                _dem_insert(c * 6 + j, p, PT, X)
        X[ST_NFILLED] -= 1
    if col_on and PC[U(t), Q_UNI]:
        mk = X[H_MK]
        mpk = X[H_MPK]
        for s in range(4):
            kk = PC[U(t), U(Q_DIST0 + s)]
            if kk >= 0:
                X[U(mpk + kk)] += 1
            X[U(mk + PC[U(t), U(Q_COL + s)])] += 1
    pre = PC[U(t), Q_PREBY]
    for j in range(PC[U(t), Q_NPAIR] - 1, -1, -1):
        p = PC[U(t), U(Q_M0 + j)]
        PT[U(p), P_OSIZE] += 1  # t sits just past the offer's members: last out, first back
        if pre >= 0 and p != pre:
            PT[U(p), P_NBPRE] += 1
    PC[U(t), Q_CELL] = -1
    CS[U(c), C_PIECE] = -1
    X[ST_PN] -= 1


@njit(cache=True, _nrt=False)
def _unpreempt(p, PT, PC, X):
    oe = X[H_OELEM]
    b = PT[U(p), P_OSTART]
    for i in range(b, b + PT[U(p), P_OSIZE]):
        t = X[U(oe + i)]
        if PC[U(t), Q_PREBY] == p:
            PC[U(t), Q_PREBY] = -1
            for j in range(PC[U(t), Q_NPAIR]):
                rr = PC[U(t), U(Q_M0 + j)]
                if rr != p:
                    PT[U(rr), P_NBPRE] -= 1
    PT[U(p), P_PREEMPT] = 0


@njit(cache=True, _nrt=False)
def undo_to(mark, CS, PT, PC, X):
    """Undo the trail back to length ``mark``."""
    tt = X[H_TT]
    tv = X[H_TV]
    k = X[ST_TN]
    while k > mark:
        k -= 1
        if X[U(tt + k)] == T_PLACE:
            unassign(X[U(tv + k)], CS, PT, PC, X)
        else:
            _unpreempt(X[U(tv + k)], PT, PC, X)
    X[ST_TN] = mark


# ---------------------------------------------------------------------------- explanations
@njit(cache=True, _nrt=False)
def _pair_expl(row, p, with_pre, CS, PT, PC, X, B):
    """Into ``B[U(row)]``: why ``p`` has so few offers for its demands: the neighbours making each
    cell demand it, the cells of the pieces of the pair already placed, and (``with_pre``) the
    explanations of the pre-emptions that took its other pieces."""
    de = X[H_DELEM]
    db = PT[U(p), P_DSTART]
    for i in range(db, db + PT[U(p), P_DSIZE]):
        m = X[U(de + i)]
        y = m // 6
        sa, sb = _slot_sides(m - y * 6)
        for s in (sa, sb):
            z = CS[U(y), U(C_NB0 + s)]
            if z >= 0 and CS[U(z), C_PIECE] >= 0 and CS[U(z), C_LEV] > 0:
                _bset(B, row, z)
    oe = X[H_OELEM]
    ob = PT[U(p), P_OSTART]
    for i in range(ob + PT[U(p), P_OSIZE], ob + PT[U(p), P_OCAP]):
        z = PC[U(X[U(oe + i)]), Q_CELL]
        if CS[U(z), C_LEV] > 0:
            _bset(B, row, z)
    if with_pre:
        bpre = X[H_BPRE]
        for i in range(ob, ob + PT[U(p), P_OSIZE]):
            q = PC[U(X[U(oe + i)]), Q_PREBY]
            if q >= 0 and q != p:
                _bor(B, row, bpre + q)


@njit(cache=True, _nrt=False)
def _all_placed(row, CS, X, B):
    """Into ``B[U(row)]``: every cell placed above level 0 (the explanation of the colour filters)."""
    pt = X[H_PTRAIL]
    for i in range(X[ST_PN]):
        z = X[U(pt + i)]
        if CS[U(z), C_LEV] > 0:
            _bset(B, row, z)


@njit(cache=True, _nrt=False)
def _dom_expl(row, c, p, use_pre, CS, PT, PC, X, B):
    """Into ``B[U(row)]``: why cell ``c`` has only the candidates drawn from pair ``p`` (-1: every
    unplaced piece): its placed neighbours, the cells of the pair's placed pieces, the
    explanations of the pre-emptions that took its other pieces."""
    for s in range(4):
        z = CS[U(c), U(C_NB0 + s)]
        if z >= 0 and CS[U(z), C_PIECE] >= 0 and CS[U(z), C_LEV] > 0:
            _bset(B, row, z)
    if p < 0:
        _all_placed(row, CS, X, B)
        return
    oe = X[H_OELEM]
    ob = PT[U(p), P_OSTART]
    for i in range(ob + PT[U(p), P_OSIZE], ob + PT[U(p), P_OCAP]):
        z = PC[U(X[U(oe + i)]), Q_CELL]
        if CS[U(z), C_LEV] > 0:
            _bset(B, row, z)
    if use_pre:
        bpre = X[H_BPRE]
        for i in range(ob, ob + PT[U(p), P_OSIZE]):
            q = PC[U(X[U(oe + i)]), Q_PREBY]
            if q >= 0 and q != p:
                _bor(B, row, bpre + q)


@njit(cache=True, _nrt=False, inline=INL)
def resolve(row, pstart, CS, X, B):
    """Replace in ``B[U(row)]`` every cell a filter placed from ``ptrail[pstart]`` on by the reason
    it was placed, newest first (a reason names older cells only), and drop the level's
    decision cell. Returns whether that decision cell was in the explanation."""
    had = False
    pt = X[H_PTRAIL]
    brsn = X[H_BRSN]
    for i in range(X[ST_PN] - 1, pstart - 1, -1):
        z = X[U(pt + i)]
        if _bhas(B, row, z):
            _bclr(B, row, z)
            if CS[U(z), C_DEC]:
                had = True
            else:
                _bor(B, row, brsn + z)
    return had


# ---------------------------------------------------------------------------- filters
@njit(cache=True, _nrt=False, inline=INL)
def fits(c, t, r, CS, PC):
    """Piece ``t`` turned ``r`` on the empty cell ``c``: the border colour on exactly its frame
    sides, and every known side matched."""
    if PC[U(t), U(Q_ZM + r)] != CS[U(c), C_FM]:
        return False
    for s in range(4):
        k = CS[U(c), U(C_K0 + s)]
        if k >= 0 and PC[U(t), U(Q_COL + r * 4 + s)] != k:
            return False
    return True


@njit(cache=True, _nrt=False)
def _frame_cycle(k, PC, X):
    """Whether the links of the frame pieces (see the module docstring) close a cycle through
    colour ``k`` shorter than the frame ring."""
    cst = X[H_CSSTART]
    csp = X[H_CSPIECE]
    cstan = X[H_CSTAN]
    mk = X[H_MK]
    mdk = X[H_MDK]
    a = -1
    b = -1
    for i in range(X[U(cst + k)], X[U(cst + k + 1)]):
        t = X[U(csp + i)]
        if PC[U(t), Q_CELL] >= 0:
            continue
        if X[U(cstan + i)] == 0:
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
    for _ in range(X[CF_C] + 1):
        nk = PC[U(cur), U(Q_TAN0 + 1)] if PC[U(cur), Q_TAN0] == prev_col else PC[U(cur), Q_TAN0]
        if nk <= 0 or X[U(mk + nk)] != 2 or X[U(mdk + nk)] != 0:
            return False
        x = -1
        y = -1
        for i in range(X[U(cst + nk)], X[U(cst + nk + 1)]):
            t = X[U(csp + i)]
            if PC[U(t), Q_CELL] >= 0:
                continue
            if X[U(cstan + i)] == 0:
                return False
            if x < 0:
                x = t
            else:
                y = t
        if x < 0 or y < 0 or x == y:
            return False
        nxt = y if x == cur else x
        if nxt == start:
            return length < X[CF_RING]
        length += 1
        prev_col = nk
        cur = nxt
    return False


@njit(cache=True, _nrt=False)
def propagate(lev, CS, PT, PC, X, B):
    """Run the filters over the queued pairs and colours until nothing changes (cells they
    place belong to level ``lev``). Returns False on a failure, with its kind in
    ``X[ST_FAIL]`` and (with backjumping) its explanation in ``B[B_FX]``; the queues are emptied."""
    bj = X[CF_BJ]
    qo = X[H_Q]
    cqo = X[H_CQ]
    oe = X[H_OELEM]
    while X[ST_FAIL] == F_NONE and (X[ST_QN] > 0 or X[ST_CQN] > 0):
        if X[ST_QN] > 0:
            X[ST_QN] -= 1
            p = X[U(qo + X[ST_QN])]
            PT[U(p), P_INQ] = 0
            d = PT[U(p), P_DSIZE]
            if d == 0:
                continue
            use_pre = X[CF_PRE] != 0 and X[ST_NMULTI] == 0
            osz = PT[U(p), P_OSIZE]
            avail = osz - PT[U(p), P_NBPRE] if use_pre else osz
            if avail < d:
                if X[CF_CONTRA]:
                    X[ST_FAIL] = F_CONTRA
                    X[SS_FAIL_CONTRA] += 1
                    if bj:
                        _bzero(B, B_FX)
                        _pair_expl(B_FX, p, use_pre and osz >= d, CS, PT, PC, X, B)
                    break
                continue
            if avail == 1 and d == 1 and X[CF_INST]:
                # the one piece left for the one cell
                ob = PT[U(p), P_OSTART]
                t = -1
                for i in range(ob, ob + osz):
                    tt = X[U(oe + i)]
                    pb = PC[U(tt), Q_PREBY]
                    if not use_pre or pb < 0 or pb == p:
                        t = tt
                        break
                c = X[U(X[H_DELEM] + PT[U(p), P_DSTART])] // 6
                rr = -1
                nr = 0
                for r in range(4):
                    if fits(c, t, r, CS, PC):
                        nr += 1
                        rr = r
                if nr == 0:
                    X[ST_FAIL] = F_INST
                    X[SS_FAIL_INST] += 1
                    if bj:
                        _bzero(B, B_FX)
                        _dom_expl(B_FX, c, p, use_pre, CS, PT, PC, X, B)
                    break
                if nr == 1:
                    if bj:
                        row = X[H_BRSN] + c
                        _bzero(B, row)
                        _dom_expl(row, c, p, use_pre, CS, PT, PC, X, B)
                    X[SS_FORCED_INST] += 1
                    assign(c, t, rr, lev, 0, CS, PT, PC, X, B)
                    continue
            if use_pre and avail == d and PT[U(p), P_PREEMPT] == 0:
                # every piece this pair still counts is needed by its cells
                if bj:
                    row = X[H_BPRE] + p
                    _bzero(B, row)
                    _pair_expl(row, p, True, CS, PT, PC, X, B)
                ob = PT[U(p), P_OSTART]
                for i in range(ob, ob + osz):
                    t = X[U(oe + i)]
                    if PC[U(t), Q_PREBY] < 0:
                        PC[U(t), Q_PREBY] = p
                        for j in range(PC[U(t), Q_NPAIR]):
                            rr = PC[U(t), U(Q_M0 + j)]
                            if rr != p:
                                PT[U(rr), P_NBPRE] += 1
                                _touch(rr, PT, X)
                PT[U(p), P_PREEMPT] = 1
                k = X[ST_TN]
                X[U(X[H_TT] + k)] = T_PREEMPT
                X[U(X[H_TV] + k)] = p
                X[ST_TN] = k + 1
                X[SS_PREEMPTIONS] += 1
        else:
            X[ST_CQN] -= 1
            k = X[U(cqo + X[ST_CQN])]
            X[U(X[H_CINQ] + k)] = 0
            if k == 0 or X[CF_EXACT] == 0 or X[CF_NOHOLES] == 0:
                continue
            left = X[U(X[H_MK] + k)] - X[U(X[H_MDK] + k)]
            if X[CF_EDGE] and (left < 0 or left > 2 * X[U(X[H_HVAL] + X[U(X[H_MPK] + k)])]):
                X[ST_FAIL] = F_EDGE
                X[SS_FAIL_EDGE] += 1
                if bj:
                    _bzero(B, B_FX)
                    _all_placed(B_FX, CS, X, B)
                break
            if X[CF_CYCLE] and X[CF_RING] > 0 and left == 2 and X[U(X[H_MDK] + k)] == 0:
                if _frame_cycle(k, PC, X):
                    X[ST_FAIL] = F_CYCLE
                    X[SS_FAIL_CYCLE] += 1
                    if bj:
                        _bzero(B, B_FX)
                        _all_placed(B_FX, CS, X, B)
                    break
    if X[ST_FAIL] != F_NONE:
        if X[ST_FAIL] == F_NOPAIR:
            X[SS_FAIL_NOPAIR] += 1
        while X[ST_QN] > 0:
            X[ST_QN] -= 1
            PT[U(X[U(qo + X[ST_QN])]), P_INQ] = 0
        while X[ST_CQN] > 0:
            X[ST_CQN] -= 1
            X[U(X[H_CINQ] + X[U(cqo + X[ST_CQN])])] = 0
        return False
    return True


# ---------------------------------------------------------------------------- branching
@njit(cache=True, _nrt=False, inline=INL)
def _avail(p, use_pre, PT):
    return PT[U(p), P_OSIZE] - PT[U(p), P_NBPRE] if use_pre else PT[U(p), P_OSIZE]


@njit(cache=True, _nrt=False, inline=INL)
def cell_pair(c, use_pre, PT, X):
    """The pair demanded by cell ``c`` with the fewest pieces to offer (-1: it demands none)."""
    best = -1
    bv = 1 << 40
    sp = X[H_SP] + c * 6
    for j in range(6):
        p = X[U(sp + j)]
        if p >= 0:
            v = _avail(p, use_pre, PT)
            if v < bv:
                bv = v
                best = p
    return best


@njit(cache=True, _nrt=False)
def expected_offer(p, use_pre, PT, PC, X):
    """Seed 002's expected offer of ``p``: over its pieces, the chance that none of the piece's
    other pairs takes it, each pair ``q`` taking it with probability ``|Demand(q)| / |Offer(q)|``."""
    e = 0.0
    oe = X[H_OELEM]
    ob = PT[U(p), P_OSTART]
    for i in range(ob, ob + PT[U(p), P_OSIZE]):
        t = X[U(oe + i)]
        pb = PC[U(t), Q_PREBY]
        if use_pre and pb >= 0 and pb != p:
            continue
        prob = 1.0
        for j in range(PC[U(t), Q_NPAIR]):
            r = PC[U(t), U(Q_M0 + j)]
            if r == p:
                continue
            o = PT[U(r), P_OSIZE]
            dd = PT[U(r), P_DSIZE]
            if dd >= o:
                prob = 0.0
                break
            prob *= 1.0 - dd / o
        e += prob
    return e


@njit(cache=True, _nrt=False)
def choose(CS, PT, PC, X):
    """The cell to branch on: a pattern cell of seed 002 (four known sides, three, two with a
    surrounded neighbour, or a surrounded neighbour of a cell with one known side and two
    surrounded neighbours; the fewest offers first, then the lowest cell), else a cell of the
    pair the heuristic picks (the lowest), else (no demanded pair: cells beside holes) the empty
    cell with the most known sides."""
    use_pre = X[CF_PRE] != 0 and X[ST_NMULTI] == 0
    fr = X[H_FR]
    if X[CF_PAT]:
        best = -1
        bcat = 9
        bv = 1 << 40
        for i in range(X[ST_FRN]):
            c = X[U(fr + i)]
            nk = CS[U(c), C_NK]
            if nk >= 4:
                cat = 0
            elif nk == 3:
                cat = 1
            elif CS[U(c), C_NSURR] >= 1:
                cat = 2
            else:
                cat = 9
                for s in range(4):
                    y = CS[U(c), U(C_NB0 + s)]
                    if y >= 0 and CS[U(y), C_FREE] and CS[U(y), C_PIECE] < 0 and CS[U(y), C_NK] == 1 and CS[U(y), C_NSURR] >= 2:
                        cat = 3
                        break
            if cat > bcat or cat == 9:
                continue
            p = cell_pair(c, use_pre, PT, X)
            v = _avail(p, use_pre, PT) if p >= 0 else 1 << 39
            if cat < bcat or v < bv or (v == bv and c < best):
                best = c
                bcat = cat
                bv = v
        if best >= 0:
            X[SS_PATTERN] += 1
            return best
    if X[ST_DPN] > 0:
        h = X[CF_HEUR]
        dpo = X[H_DP]
        bp = -1
        bs = 1e300
        for i in range(X[ST_DPN]):
            p = X[U(dpo + i)]
            d = PT[U(p), P_DSIZE]
            if h == H_MIN_OFFER:
                sc = float(_avail(p, use_pre, PT))
            else:
                e = expected_offer(p, use_pre, PT, PC, X)
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
        de = X[H_DELEM]
        db = PT[U(bp), P_DSTART]
        for i in range(db, db + PT[U(bp), P_DSIZE]):
            c = X[U(de + i)] // 6
            if best < 0 or c < best:
                best = c
        X[SS_PAIR_CHOICE] += 1
        return best
    best = -1
    for c in range(CS.shape[0]):
        if CS[U(c), C_FREE] and CS[U(c), C_PIECE] < 0 and (best < 0 or CS[U(c), C_NK] > CS[U(best), C_NK]):
            best = c
    X[SS_FALLBACK] += 1
    return best


@njit(cache=True, _nrt=False, inline=INL)
def candidates(c, p, use_pre, start, CS, PT, PC, X):
    """Push on the candidate stack from ``start`` every (piece, turn) that fits cell ``c``,
    drawn from the offer of ``p`` (without the pieces other pairs pre-empt), or from every
    unplaced piece when ``p`` is -1. Returns the end of the list."""
    csp = X[H_CSP]
    csr = X[H_CSR]
    k = start
    if p >= 0:
        oe = X[H_OELEM]
        ob = PT[U(p), P_OSTART]
        for i in range(ob, ob + PT[U(p), P_OSIZE]):
            t = X[U(oe + i)]
            pb = PC[U(t), Q_PREBY]
            if use_pre and pb >= 0 and pb != p:
                continue
            for r in range(4):
                if fits(c, t, r, CS, PC):
                    X[U(csp + k)] = t
                    X[U(csr + k)] = r
                    k += 1
    else:
        uni = X[H_UNI]
        for i in range(X[H_NUNI]):
            t = X[U(uni + i)]
            if PC[U(t), Q_CELL] >= 0:
                continue
            for r in range(4):
                if fits(c, t, r, CS, PC):
                    X[U(csp + k)] = t
                    X[U(csr + k)] = r
                    k += 1
    return k


# ---------------------------------------------------------------------------- search
@njit(cache=True, _nrt=False)
def shave(lev, CS, PT, PC, X, B):
    """Shaving at a node of level ``lev``: every cell with two known sides or more tries each of
    its candidates (placed, filtered, undone). A cell none of whose candidates survives fails
    the node; a cell with one survivor gets it (placed at ``lev``), and the pass starts again.
    Returns False on a failure (explanation in ``B[B_FX]`` with backjumping)."""
    bj = X[CF_BJ]
    fr = X[H_FR]
    shv = X[H_SHV]
    csp = X[H_CSP]
    csr = X[H_CSR]
    again = True
    while again:
        again = False
        nf = X[ST_FRN]
        for i in range(nf):
            X[U(shv + i)] = X[U(fr + i)]
        for ii in range(nf):
            c = X[U(shv + ii)]
            use_pre = X[CF_PRE] != 0 and X[ST_NMULTI] == 0
            p = cell_pair(c, use_pre, PT, X)
            base = X[ST_CSN]
            end = candidates(c, p, use_pre, base, CS, PT, PC, X)
            ok_n = 0
            bt = -1
            br = -1
            if bj:
                _bzero(B, B_SX)
            for k in range(base, end):
                t = X[U(csp + k)]
                r = X[U(csr + k)]
                mark = X[ST_TN]
                pmark = X[ST_PN]
                assign(c, t, r, lev + 1, 1, CS, PT, PC, X, B)
                X[SS_PROBES] += 1
                if propagate(lev + 1, CS, PT, PC, X, B):
                    ok_n += 1
                    bt = t
                    br = r
                else:
                    if bj:
                        resolve(B_FX, pmark, CS, X, B)
                        _bor(B, B_SX, B_FX)
                    X[ST_FAIL] = F_NONE
                undo_to(mark, CS, PT, PC, X)
                if ok_n >= 2:
                    break
            if ok_n == 0:
                X[ST_FAIL] = F_SHAVE
                X[SS_FAIL_SHAVE] += 1
                if bj:
                    _bcopy(B, B_FX, B_SX)
                    _dom_expl(B_FX, c, p, use_pre, CS, PT, PC, X, B)
                return False
            if ok_n == 1:
                if bj:
                    row = X[H_BRSN] + c
                    _bcopy(B, row, B_SX)
                    _dom_expl(row, c, p, use_pre, CS, PT, PC, X, B)
                X[SS_FORCED_SHAVE] += 1
                assign(c, bt, br, lev, 0, CS, PT, PC, X, B)
                if not propagate(lev, CS, PT, PC, X, B):
                    return False
                again = True
                break
    return True


@njit(cache=True, _nrt=False)
def setup(CS, PT, PC, X, B):
    """The root: the frame's demands, the fixed cells and pins placed (level 0), the filters
    and shaving run. Leaves the search at its first node, or done when the root fails."""
    X[ST_STARTED] = 1
    n = CS.shape[0]
    nslots = 6 if X[CF_OPP] else 4
    for c in range(n):
        if CS[U(c), C_FREE] == 0 or CS[U(c), C_PIECE] >= 0:
            continue
        for j in range(nslots):
            sa, sb = _slot_sides(j)
            if CS[U(c), U(C_K0 + sa)] >= 0 and CS[U(c), U(C_K0 + sb)] >= 0:
                _activate(c, j, CS, PT, X, B)
        if CS[U(c), C_NK] >= 2:
            _fr_add(c, CS, X)
            _surround(c, 1, CS)
    fx = X[H_FIXED]
    for i in range(X[H_NFIXED]):
        assign(X[U(fx + 3 * i)], X[U(fx + 3 * i + 1)], X[U(fx + 3 * i + 2)], 0, 0, CS, PT, PC, X, B)
    pn = X[H_PINS]
    for i in range(X[H_NPINS]):
        assign(X[U(pn + 3 * i)], X[U(pn + 3 * i + 1)], X[U(pn + 3 * i + 2)], 0, 0, CS, PT, PC, X, B)
    dpo = X[H_DP]
    for i in range(X[ST_DPN]):
        _touch(X[U(dpo + i)], PT, X)
    if X[CF_COL]:
        for k in range(X[CF_C]):
            _ctouch(k, X)
    ok = propagate(0, CS, PT, PC, X, B)
    if ok and X[CF_SHAVE]:
        ok = shave(0, CS, PT, PC, X, B)
    X[ST_DEPTH] = 0
    X[ST_PHASE] = PH_ENTER
    if not ok:
        X[ST_DONE] = 1


@njit(cache=True, _nrt=False, inline=INL)
def _max_level(CS, B):
    """The deepest search level among the cells of the failure's explanation (0: none)."""
    best = 0
    for w in range(B.shape[1]):
        x = B[B_FX, U(w)]
        while x != 0:
            c = w * 64 + trailing_zeros(x)
            if CS[U(c), C_LEV] > best:
                best = CS[U(c), C_LEV]
            x &= x - 1
    return best


@njit(cache=True, _nrt=False)
def _jump(k, CS, PT, PC, X, B):
    """Node ``k`` fails, explained by ``B[B_FX]`` (cells of its levels): undo back to the deepest
    node that placed one of them and return the node that branched there (its child failed),
    or -1 when the explanation names no search level (the search is over)."""
    j = _max_level(CS, B)
    if j > k:
        j = k  # cannot happen: an explanation names placed cells only
    if j == 0:
        return -1
    if j < k:
        X[SS_BACKJUMPS] += 1
        X[SS_SKIPPED] += k - j
    lv = X[H_LV]
    undo_to(X[U(lv + j * N_LV + L_TMARK)], CS, PT, PC, X)
    X[ST_CSN] = X[U(lv + (j - 1) * N_LV + L_CE)]
    return j - 1


@njit(cache=True, _nrt=False)
def _failed_below(k, CS, PT, PC, X, B):
    """The child of node ``k`` failed, explained by ``B[B_FX]``: note it at node ``k`` (returns
    k), or, when the explanation does not name node ``k``'s cell, fail node ``k`` too and jump to
    the deepest node the explanation names. Returns the node to go on from, or -1: the search is
    done."""
    lv = X[H_LV]
    while True:
        had = resolve(B_FX, X[U(lv + k * N_LV + L_PMARK)], CS, X, B)
        if had or X[U(lv + k * N_LV + L_SOL)]:
            _bor(B, X[H_BLVX] + k, B_FX)
            return k
        k = _jump(k, CS, PT, PC, X, B)
        if k < 0:
            return -1


@njit(cache=True, _nrt=False)
def run(node_budget, CS, PT, PC, X, B):
    """Search on for about ``node_budget`` nodes (branching placements), or until ``X[CF_STOP]``
    solutions (0: all), from where the last call stopped."""
    if X[ST_DONE]:
        return
    bj = X[CF_BJ]
    d = X[ST_DEPTH]
    phase = X[ST_PHASE]
    lv = X[H_LV]
    blvx = X[H_BLVX]
    csp = X[H_CSP]
    csr = X[H_CSR]
    nodes = 0
    while True:
        row = lv + d * N_LV
        if phase == PH_ENTER:
            # node d is reached: its level's filters left it consistent
            if nodes >= node_budget:
                break
            if X[CF_SHAVE] and d > 0 and not shave(d, CS, PT, PC, X, B):
                X[ST_FAIL] = F_NONE
                X[U(row + L_TMARK)] = X[ST_TN]  # for _jump: node d's state is what is on the trail now
                X[U(row + L_PMARK)] = X[ST_PN]
                if not bj:
                    d -= 1
                    phase = PH_NEXT
                    continue
                d = _jump(d, CS, PT, PC, X, B)
                if d >= 0:
                    d = _failed_below(d, CS, PT, PC, X, B)
                if d < 0:
                    X[ST_DONE] = 1
                    break
                phase = PH_NEXT
                continue
            if X[ST_NFILLED] == X[CF_NFREE]:
                ns = X[ST_SOLS]
                if ns < X[H_NSOL]:
                    sp_ = X[H_SOLP] + ns * CS.shape[0]
                    sr_ = X[H_SOLR] + ns * CS.shape[0]
                    for c in range(CS.shape[0]):
                        X[U(sp_ + c)] = CS[U(c), C_PIECE]
                        X[U(sr_ + c)] = CS[U(c), C_ROT]
                X[ST_SOLS] = ns + 1
                if d == 0:
                    X[ST_DONE] = 1
                    break
                X[U(row - N_LV + L_SOL)] = 1
                d -= 1
                phase = PH_NEXT
                if X[CF_STOP] > 0 and X[ST_SOLS] >= X[CF_STOP]:
                    break
                continue
            use_pre = X[CF_PRE] != 0 and X[ST_NMULTI] == 0
            c = choose(CS, PT, PC, X)
            p = cell_pair(c, use_pre, PT, X)
            cb = X[ST_CSN]
            ce = candidates(c, p, use_pre, cb, CS, PT, PC, X)
            X[U(row + L_CELL)] = c
            X[U(row + L_PAIR)] = p
            X[U(row + L_CB)] = cb
            X[U(row + L_CE)] = ce
            X[U(row + L_CN)] = cb
            X[U(row + L_TMARK)] = X[ST_TN]
            X[U(row + L_PMARK)] = X[ST_PN]
            X[U(row + L_SOL)] = 0
            X[ST_CSN] = ce
            if bj:
                _bzero(B, blvx + d)
                _dom_expl(blvx + d, c, p, use_pre, CS, PT, PC, X, B)
            if ce == cb:
                X[SS_FAIL_EMPTY] += 1
            phase = PH_NEXT
        else:
            # node d: undo its last child and try the next candidate
            undo_to(X[U(row + L_TMARK)], CS, PT, PC, X)
            X[ST_CSN] = X[U(row + L_CE)]
            if X[U(row + L_CN)] == X[U(row + L_CE)]:
                X[ST_CSN] = X[U(row + L_CB)]
                if X[U(row + L_SOL)] or not bj:
                    if d == 0:
                        X[ST_DONE] = 1
                        break
                    if X[U(row + L_SOL)]:
                        X[U(row - N_LV + L_SOL)] = 1
                    d -= 1
                    continue
                _bcopy(B, B_FX, blvx + d)
                d = _jump(d, CS, PT, PC, X, B)
                if d >= 0:
                    d = _failed_below(d, CS, PT, PC, X, B)
                if d < 0:
                    X[ST_DONE] = 1
                    break
                continue
            if nodes >= node_budget:
                break
            k = X[U(row + L_CN)]
            X[U(row + L_CN)] = k + 1
            nodes += 1
            assign(X[U(row + L_CELL)], X[U(csp + k)], X[U(csr + k)], d + 1, 1, CS, PT, PC, X, B)
            if propagate(d + 1, CS, PT, PC, X, B):
                if X[ST_NFILLED] > X[ST_DEEPEST]:
                    X[ST_DEEPEST] = X[ST_NFILLED]
                    dp_ = X[H_DEEPP]
                    dr_ = X[H_DEEPR]
                    for c in range(CS.shape[0]):
                        X[U(dp_ + c)] = CS[U(c), C_PIECE]
                        X[U(dr_ + c)] = CS[U(c), C_ROT]
                d += 1
                phase = PH_ENTER
            else:
                X[ST_FAIL] = F_NONE
                if bj:
                    d = _failed_below(d, CS, PT, PC, X, B)
                    if d < 0:
                        X[ST_DONE] = 1
                        break
    X[ST_DEPTH] = d
    X[ST_PHASE] = phase
    X[ST_NODES] += nodes
