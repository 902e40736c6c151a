"""Compiled depth-first search with edge slipping (Verhaard's eii, seed 001, "Edge Slipping").

The free cells are filled in a fixed order (any order: scan-row, eii's published orders, one
read from a file). At each position the sides whose neighbour is already known (placed earlier,
or a hint) are the *known sides*; the position's two first known sides are its *primary* sides,
and the candidate table (built by :mod:`.plan`) lists, under each (position type, colour on
primary side 1, colour on primary side 2), the turned pieces that show the position's frame
sides, "any colour" standing in for one or both primaries. A position is tried in phases:

* phase 0, perfect: the candidates under the exact key that match every known side;
* phase ``1 + s`` for each slippable known side ``s`` (not an edge between two frame cells),
  only while the slips used so far are below the slip array's allowance at this depth: the
  candidates that match every known side but ``s`` and show another colour on ``s`` (from the
  key with ``s`` replaced by "any" when ``s`` is primary).

So a half-fitting piece is tried once, in the phase of the one side it mismatches. A board
with ``k`` slips scores ``max_score - k``: every internal edge is checked once, when the later
of its two cells is filled (edges between two hints are not counted and never occur in the
shipped puzzles).

As in :mod:`emc.backends._backtrack_kernel` (whose layout this follows: a state table per
position, candidates packed one int64 each, 64 candidates tested at once into a word of bits,
slices of a node budget), the state lives in arrays owned by the caller and :func:`run` returns
after a budget, so Python can check the clock and restart rules between slices.

A candidate is packed ``piece | top << 16 | right << 24 | bottom << 32 | left << 40``. A
position's demands are one word ``need`` (the colour each known side must show, one byte per
side) and ``kmask`` (``0x80`` in the bytes of the known sides); a candidate's bytes that differ
from ``need`` are found with the usual "which bytes are non-zero" trick, so a whole test is a
few integer operations without a branch.

Optional piece counters carry the pruning heuristics (:mod:`.groups`, :mod:`.schedule`): each
piece adds one to some of ``K`` counters (``ctr_mask[piece]``, bit k: counter k), and the number
placed on the first ``d`` positions must lie in ``[lo[k, d], hi[k, d]]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ..._compile_clock import install as _clock_compiles

_clock_compiles()

# S[pos, F_*]: fixed by the plan.
#   F_KEY: the position type's first key (type * C1 * C1); F_NB0..F_NB3: per side, the index in
#   ``shown`` (cell * 4 + side) of the colour the neighbour shows towards this cell, -1 when the
#   side is not known (a frame side, or a neighbour filled later); F_P1, F_P2: the primary sides
#   (-1: none); F_KMASK: 0x80 in the byte of each known side; F_SLIPS: bit s set when known side s
#   may be slipped; F_CELL: the board cell.
F_KEY, F_NB0, F_NB1, F_NB2, F_NB3, F_P1, F_P2, F_KMASK, F_SLIPS, F_CELL = range(10)
N_F = 16
# D[pos, G_*]: the search's state.
#   G_POS: first candidate G_BITS covers; G_END: end of the phase's candidate range; G_PHASE: 0
#   perfect, 1 + s slipping side s; G_BITS: candidates from G_POS on still to try; G_PIECE: the
#   placed piece (-1: none); G_CIDX: its candidate index; G_SLIPS: slips used on the positions
#   before this one; G_NEED: the colours the known sides demand; G_C1, G_C2: the primaries'
#   colours (C1 - 1 = any); G_OPEN: the phases still to try here (bit s: slipping side s); G_FLAG:
#   the byte pattern a candidate of the current phase must show against need (0 or 0x80 << 8s);
#   G_BLOCK: the counters that are full here (a piece adding to one of them may not go here)
G_POS, G_END, G_PHASE, G_BITS, G_PIECE, G_CIDX, G_SLIPS, G_NEED, G_C1, G_C2, G_OPEN, G_FLAG, G_BLOCK = range(13)
N_G = 16
# state[] slots
S_DEPTH, S_NODES, S_DONE, S_STARTED, S_DEEPEST, S_FOUND, S_FOUND_SLIPS, S_BEST = range(8)
N_STATE = 8

U = np.uint64
LOW7 = np.int64(0x7F7F7F7F)
HIGH = np.int64(0x80808080)


@njit(cache=True, inline="always")
def chunk_bits(base, e, cand, used, need, kmask, flag, ctr_mask, block, counters):
    """The candidates ``base .. min(base + 64, e) - 1`` that may go here, as bits: piece unused,
    every known side matched except the one ``flag`` marks (which must differ), and no full
    counter (with ``counters``)."""
    bits = np.int64(0)
    for k in range(min(64, e - base)):
        cv = cand[U(base + k)]
        p = cv & 0xFFFF
        x = ((cv >> 16) ^ need) & 0xFFFFFFFF
        nz = (x | ((x & LOW7) + LOW7)) & HIGH  # 0x80 in each byte of x that is not zero
        ok = np.int64((nz & kmask) == flag) & (1 - np.int64(used[U(p)]))
        if counters:
            ok &= np.int64((ctr_mask[U(p)] & block) == 0)
        bits |= ok << k
    return bits


@njit(cache=True)
def run(
    node_budget,  # nodes (placements) to make in this slice
    n,  # positions (free cells)
    S,  # int64[n, N_F]
    C1,  # colours + 1 (C1 - 1: "any colour" in a key)
    start,  # candidate table offsets per key
    cand,  # packed candidates
    cand_rot,  # their rotations
    shown,  # int64[cells * 4]: the colour each filled cell shows on each side (hints filled in)
    used,  # uint8 per piece (hints and pieces outside the search start as used)
    allow,  # int64[n]: the most slips allowed once position d is filled (the slip array)
    counters,  # whether the piece counters below are checked
    ctr_mask,  # int64 per piece: the counters it adds to
    lo,  # int64[K, n + 1]: at least this many on the first d positions
    hi,  # int64[K, n + 1]: at most this many
    cnt,  # int64[K]: the counts now
    D,  # int64[n, N_G]
    state,  # int64[N_STATE]
    save_slips,  # stop and hand back every board with at most this many slips ...
    out_piece,  # ... and every board better than any before, in these (per position)
    out_rot,
    visits,  # int64[n]: times each position was reached
    slip_visits,  # ... of those, with slipping allowed there
    perfect,  # int64[n]: perfect placements
    slipped,  # int64[n]: placements slipping one edge
    hits,  # int64[>= allow[-1] + 1]: complete boards by number of slips
):
    d = state[S_DEPTH]
    nodes = np.int64(0)
    deepest = state[S_DEEPEST]
    K = cnt.shape[0]
    ANY = C1 - 1
    enter = state[S_STARTED] == 0
    state[S_FOUND] = 0
    if enter:
        state[S_STARTED] = 1
        d = 0
        if n == 0:
            state[S_DONE] = 1
            return
    while d >= 0:
        du = U(d)
        if enter:
            # Reach position d: what its known sides demand, the counters, the perfect phase.
            enter = False
            visits[du] += 1
            need = np.int64(0)
            for s in range(4):
                nb = S[du, F_NB0 + s]
                if nb >= 0:
                    need |= shown[U(nb)] << (8 * s)
            p1 = S[du, F_P1]
            p2 = S[du, F_P2]
            c1 = ANY if p1 < 0 else (need >> (8 * p1)) & 0xFF
            c2 = ANY if p2 < 0 else (need >> (8 * p2)) & 0xFF
            D[du, G_NEED] = need
            D[du, G_C1] = c1
            D[du, G_C2] = c2
            D[du, G_PIECE] = -1
            kk = S[du, F_KEY] + c1 * C1 + c2
            b = start[U(kk)]
            e = start[U(kk + 1)]
            opened = np.int64(0)
            if D[du, G_SLIPS] < allow[du]:
                opened = S[du, F_SLIPS]
                if opened:
                    slip_visits[du] += 1
            block = np.int64(0)
            if counters:
                for k in range(K):
                    if cnt[k] < lo[k, du]:
                        e = b  # a count that should have been reached by now: nothing goes here
                        opened = 0
                    if cnt[k] + 1 > hi[k, du + 1]:
                        block |= np.int64(1) << k
            D[du, G_BLOCK] = block
            D[du, G_OPEN] = opened
            D[du, G_PHASE] = 0
            D[du, G_FLAG] = 0
            D[du, G_POS] = b
            D[du, G_END] = e
            D[du, G_BITS] = chunk_bits(b, e, cand, used, need, S[du, F_KMASK], np.int64(0), ctr_mask, block,
                                       counters)
            if nodes >= node_budget:
                break
        pc = D[du, G_PIECE]
        if pc >= 0:  # take back the piece placed here
            used[U(pc)] = 0
            D[du, G_PIECE] = -1
            if counters:
                m = ctr_mask[U(pc)]
                for k in range(K):
                    cnt[k] -= (m >> k) & 1
        bits = D[du, G_BITS]
        if bits == 0:
            # the word is spent: the next 64 candidates of the phase, then the next phase
            base = D[du, G_POS] + 64
            e = D[du, G_END]
            need = D[du, G_NEED]
            kmask = S[du, F_KMASK]
            block = D[du, G_BLOCK]
            while True:
                while bits == 0 and base < e:
                    bits = chunk_bits(base, e, cand, used, need, kmask, D[du, G_FLAG], ctr_mask, block, counters)
                    D[du, G_POS] = base
                    base += 64
                opened = D[du, G_OPEN]
                if bits != 0 or opened == 0:
                    break
                s = trailing_zeros(opened)
                D[du, G_OPEN] = opened & (opened - 1)
                D[du, G_PHASE] = 1 + s
                flag = np.int64(0x80) << (8 * s)
                D[du, G_FLAG] = flag
                c1 = D[du, G_C1]
                c2 = D[du, G_C2]
                if s == S[du, F_P1]:
                    c1 = ANY
                elif s == S[du, F_P2]:
                    c2 = ANY
                kk = S[du, F_KEY] + c1 * C1 + c2
                base = start[U(kk)]
                e = start[U(kk + 1)]
                D[du, G_END] = e
            if bits == 0:
                d -= 1
                if nodes >= node_budget:
                    break
                continue
        i = D[du, G_POS] + trailing_zeros(bits)
        D[du, G_BITS] = bits & (bits - 1)
        cv = cand[U(i)]
        p = cv & 0xFFFF
        nodes += 1
        D[du, G_PIECE] = p
        D[du, G_CIDX] = i
        used[U(p)] = 1
        if counters:
            m = ctr_mask[U(p)]
            for k in range(K):
                cnt[k] += (m >> k) & 1
        slip = np.int64(D[du, G_PHASE] > 0)
        if slip:
            slipped[du] += 1
        else:
            perfect[du] += 1
        cell4 = S[du, F_CELL] * 4
        shown[U(cell4)] = (cv >> 16) & 0xFF
        shown[U(cell4 + 1)] = (cv >> 24) & 0xFF
        shown[U(cell4 + 2)] = (cv >> 32) & 0xFF
        shown[U(cell4 + 3)] = (cv >> 40) & 0xFF
        if d >= deepest:
            deepest = d + 1
        total = D[du, G_SLIPS] + slip
        if d == n - 1:
            hits[U(total)] += 1
            if total <= save_slips or total < state[S_BEST]:
                for j in range(n):
                    out_piece[j] = D[j, G_PIECE]
                    out_rot[j] = cand_rot[D[j, G_CIDX]]
                if total < state[S_BEST]:
                    state[S_BEST] = total
                state[S_FOUND] = 1
                state[S_FOUND_SLIPS] = total
                state[S_DEPTH] = d
                state[S_NODES] += nodes
                state[S_DEEPEST] = deepest
                return
            if nodes >= node_budget:
                break
            continue
        d += 1
        D[U(d), G_SLIPS] = total
        enter = True
    state[S_DEPTH] = d
    state[S_NODES] += nodes
    state[S_DEEPEST] = deepest
    if d < 0:
        state[S_DONE] = 1
