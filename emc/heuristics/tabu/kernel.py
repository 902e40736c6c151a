"""The compiled iterations of Wang and Chiang's two-phase tabu search (seed 004, sections 2.3 to
2.5) on the shared core (:mod:`emc.heuristics.core.state`).

* :func:`tabu_steps`: tabu iterations. Each evaluates its whole neighbourhood (every other
  rotation of every movable inner piece, and a sample of same-class swaps, each piece landing
  in its best rotation by matched edges, frame pieces in the one their cell forces) and makes
  the best move whose result is not tabu, even a worse one; a tabu move is allowed when it
  beats the best score known (aspiration). In phase I (``ring``) only frame swaps are made and
  only the edges between two frame cells count.
* :func:`anneal_steps`: the simulated annealing stage: random neighbours of the same
  neighbourhood, a better one always taken, a worse one with probability exp(delta / T).
* :func:`perturb`: random same-class swaps, inner and frame pairs drawn as often as each other.

The tabu list holds *attributes*: a cell with the four colours the piece a move took away
showed there (so equal pieces count as the same: ``canon`` numbers each (piece, rotation) by the
first pair that shows the same colours). A rotation adds its cell's attribute and is tabu when
it would put back colours its cell lost within the list; a swap adds either one pair element
(both cells' attributes as one key; tabu: the swap that puts both back) or both attributes
separately (tabu: a swap that puts back either). A count per (cell, colours) makes the test of
a single attribute one array read; pair elements are looked up in the list itself, which
happens only for the few candidates that beat the iteration's best so far.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import njit
from ..core.state import CORNER, EDGE, INNER, OBJ1, commit, random_pair, rotate, rotate_delta1, swap, swap_best1
from ..core.xorshift import below, uniform

# int64 slots of the counters array the kernels share with the driver
C_EVALS, C_MOVES, C_SINCE_BEST, C_ASPIRATION, C_BEST, C_IMPROVED, C_TABU_N, C_TABU_HEAD = range(8)
N_COUNTERS = 8
#: The smallest normal double: below it a temperature times alpha can round back to itself.
TINY = 2.2250738585072014e-308


def make_canon(colours: np.ndarray) -> np.ndarray:
    """int32 (pieces, 4): for each piece and rotation, the index ``4 * q + r'`` of the first
    (piece, rotation) showing the same four colours."""
    P = colours.shape[0]
    first: dict = {}
    canon = np.zeros((P, 4), dtype=np.int32)
    for p in range(P):
        for r in range(4):
            canon[p, r] = first.setdefault(tuple(int(c) for c in colours[p, r]), 4 * p + r)
    return canon


def make_tabu(length: int, n_cells: int, n_pieces: int):
    """The tabu list's buffers: the FIFO of attributes and the count of each attribute in it."""
    return np.zeros(max(length, 1), dtype=np.int64), np.zeros(n_cells * n_pieces * 4, dtype=np.int32)


@njit
def attribute(canon, n_pieces, c, p, r):
    """The attribute of piece ``p`` turned ``r`` on cell ``c``: the cell and the colours shown."""
    return np.int64(c) * (4 * n_pieces) + canon[p, r]


@njit
def pair_attribute(counts, ka, kb):
    """The attribute of a swap as one element: the two cells' attributes (``ka`` and ``kb``,
    from :func:`attribute`) as one key, the lower first. Pair keys lie above the single
    attributes' range, so the per-attribute counts never index them."""
    m = counts.shape[0]
    if ka > kb:
        ka, kb = kb, ka
    return m + ka * m + kb


@njit
def _add(fifo, counts, counters, key):
    """Append ``key`` to the list, dropping the oldest attribute when it is full."""
    n = fifo.shape[0]
    m = counts.shape[0]
    if counters[C_TABU_N] == n:
        old = fifo[counters[C_TABU_HEAD]]
        if old < m:
            counts[old] -= 1
        fifo[counters[C_TABU_HEAD]] = key
        counters[C_TABU_HEAD] = (counters[C_TABU_HEAD] + 1) % n
    else:
        fifo[(counters[C_TABU_HEAD] + counters[C_TABU_N]) % n] = key
        counters[C_TABU_N] += 1
    if key < m:
        counts[key] += 1


@njit
def _listed(fifo, counters, key):
    """Whether pair key ``key`` is in the list (a scan: only the few candidates that beat the
    iteration's best so far are tested)."""
    n = fifo.shape[0]
    for i in range(counters[C_TABU_N]):
        if fifo[(counters[C_TABU_HEAD] + i) % n] == key:
            return True
    return False


@njit
def clear_tabu(fifo, counts, counters):
    m = counts.shape[0]
    for i in range(counters[C_TABU_N]):
        k = fifo[(counters[C_TABU_HEAD] + i) % fifo.shape[0]]
        if k < m:
            counts[k] -= 1
    counters[C_TABU_N] = 0
    counters[C_TABU_HEAD] = 0


@njit
def _ring_gain(T, S, c, p, r, ignore):
    """Matched edges piece ``p`` turned ``r`` would make on frame cell ``c`` with its frame
    neighbours (not the one on ``ignore``)."""
    m = 0
    for s in range(4):
        nb = T.nb[c, s]
        if nb < 0 or nb == ignore or T.frame_mask[nb] == 0:
            continue
        col = T.colours[p, r, s]
        if col != 0 and col == S.facing[c, s]:
            m += 1
    return m


@njit
def _forced(T, p, c):
    """The rotation of frame piece ``p`` on frame cell ``c`` (its cell forces it), -1 if none."""
    ok = T.rot_ok[p, T.frame_mask[c]]
    for r in range(4):
        if (ok >> r) & 1:
            return r
    return -1


@njit
def _ring_swap_delta(T, S, a, b):
    """Change of the ring's matched edges if frame pieces on ``a`` and ``b`` (one class) swap."""
    pa = S.piece[a]
    pb = S.piece[b]
    ra = _forced(T, pb, a)
    rb = _forced(T, pa, b)
    before = _ring_gain(T, S, a, pa, S.rotation[a], -1) + _ring_gain(T, S, b, pb, S.rotation[b], a)
    after = _ring_gain(T, S, a, pb, ra, b) + _ring_gain(T, S, b, pa, rb, a)
    for s in range(4):
        if T.nb[a, s] == b:  # the shared edge, counted once on each side
            ca = T.colours[pb, ra, s]
            if ca != 0 and ca == T.colours[pa, rb, (s + 2) & 3]:
                after += 1
    return after - before, ra, rb


@njit
def ring_score(T, S):
    """Matched edges between two frame cells."""
    m = 0
    for e in range(T.edges.shape[0]):
        if S.match[e] and T.frame_mask[T.edges[e, 0]] != 0 and T.frame_mask[T.edges[e, 1]] != 0:
            m += 1
    return m


@njit
def _pair(T, rng, ring, pairs_c, pairs_e, pairs_i):
    """A random same-class pair: the class drawn by its share of all pairs (frame classes only
    in phase I)."""
    total = pairs_c + pairs_e + (0 if ring else pairs_i)
    x = below(rng, total)
    if x < pairs_c:
        return random_pair(T, rng, CORNER)
    if x < pairs_c + pairs_e:
        return random_pair(T, rng, EDGE)
    return random_pair(T, rng, INNER)


@njit
def tabu_steps(T, S, rng, n, ring, samples, pairs_c, pairs_e, pairs_i, canon, fifo, counts, counters, score_now,
               best_piece, best_rotation, target, swap_as_pair):
    """Up to ``n`` tabu iterations; returns the score (ring or whole board) after them.

    ``score_now`` is the current score (the ring's in phase I, Obj1 in phase II); ``target``
    the score that ends the phase (the ring's or the board's maximum). The best board of the
    phase is copied to ``best_piece``/``best_rotation`` whenever ``counters[C_BEST]`` rises
    (``C_IMPROVED`` is set then); ``C_ASPIRATION`` is the best score the aspiration compares
    with (the driver resets it after a perturbation); ``C_SINCE_BEST`` counts the iterations
    since it last rose. ``swap_as_pair``: a swap enters the list as one element (both cells
    with what they lost, :func:`pair_attribute`) and forbids only the swap that puts both back;
    otherwise as two cell attributes, each forbidding any move that puts its colours back.
    """
    inner_lo = T.group_start[INNER]
    inner_hi = T.group_start[INNER + 1]
    n_pieces = T.colours.shape[0]
    cur = score_now
    for _ in range(n):
        if cur >= target:
            return cur
        best_d = -(1 << 30)
        kind = -1  # 0: rotate, 1: swap
        ba = -1
        bb = -1
        bra = -1
        brb = -1
        if not ring:
            for t in range(inner_lo, inner_hi):
                c = T.group_cells[t]
                p = S.piece[c]
                for r in range(4):
                    if r == S.rotation[c]:
                        continue
                    counters[C_EVALS] += 1
                    d = rotate_delta1(T, S, c, r)
                    if d <= best_d:
                        continue
                    if counts[attribute(canon, n_pieces, c, p, r)] > 0 and cur + d <= counters[C_ASPIRATION]:
                        continue
                    best_d = d
                    kind = 0
                    ba = c
                    bra = r
        for _ in range(samples):
            a, b = _pair(T, rng, ring, pairs_c, pairs_e, pairs_i)
            if a < 0:
                continue
            counters[C_EVALS] += 1
            if ring:
                d, ra, rb = _ring_swap_delta(T, S, a, b)
            else:
                d, ra, rb = swap_best1(T, S, a, b)
            if ra < 0 or d <= best_d:
                continue
            ka = attribute(canon, n_pieces, a, S.piece[b], ra)
            kb = attribute(canon, n_pieces, b, S.piece[a], rb)
            if swap_as_pair:
                tabu = _listed(fifo, counters, pair_attribute(counts, ka, kb))
            else:
                tabu = counts[ka] > 0 or counts[kb] > 0
            if tabu and cur + d <= counters[C_ASPIRATION]:
                continue
            best_d = d
            kind = 1
            ba = a
            bb = b
            bra = ra
            brb = rb
        if kind < 0:  # every move tabu: the list has to age
            counters[C_SINCE_BEST] += 1
            continue
        ka = attribute(canon, n_pieces, ba, S.piece[ba], S.rotation[ba])
        if kind == 0:
            _add(fifo, counts, counters, ka)
            rotate(T, S, ba, bra)
        else:
            kb = attribute(canon, n_pieces, bb, S.piece[bb], S.rotation[bb])
            if swap_as_pair:
                _add(fifo, counts, counters, pair_attribute(counts, ka, kb))
            else:
                _add(fifo, counts, counters, ka)
                _add(fifo, counts, counters, kb)
            swap(T, S, ba, bb, bra, brb)
        commit(S)
        counters[C_MOVES] += 1
        cur += best_d
        if cur > counters[C_ASPIRATION]:
            counters[C_ASPIRATION] = cur
            counters[C_SINCE_BEST] = 0
        else:
            counters[C_SINCE_BEST] += 1
        if cur > counters[C_BEST]:
            counters[C_BEST] = cur
            counters[C_IMPROVED] = 1
            for c in range(S.piece.shape[0]):
                best_piece[c] = S.piece[c]
                best_rotation[c] = S.rotation[c]
    return cur


@njit
def anneal_steps(T, S, rng, t0, t_end, alpha, pairs_c, pairs_e, pairs_i, counters, best_piece, best_rotation,
                 p_rotate):
    """The annealing stage, from temperature ``t0`` down by ``alpha`` each step while above
    ``t_end`` (``t_end`` = 0: until it leaves the normal doubles, where a float stops falling
    in finite steps; ~70,900 steps at alpha 0.99): one random neighbour
    per step, a rotation of a random inner piece with probability ``p_rotate``, otherwise a
    random same-class swap. Returns Obj1 after it."""
    cur = S.obj[OBJ1]
    inner_lo = T.group_start[INNER]
    inner_n = T.group_start[INNER + 1] - inner_lo
    t = t0
    floor = max(t_end, TINY)
    while t > floor:
        if inner_n > 0 and (pairs_c + pairs_e + pairs_i == 0 or uniform(rng) < p_rotate):
            c = T.group_cells[inner_lo + below(rng, inner_n)]
            r = (S.rotation[c] + 1 + below(rng, 3)) & 3
            d = rotate_delta1(T, S, c, r)
            counters[C_EVALS] += 1
            if d >= 0 or uniform(rng) < np.exp(d / t):
                rotate(T, S, c, r)
                cur += d
        else:
            a, b = _pair(T, rng, False, pairs_c, pairs_e, pairs_i)
            if a >= 0:
                d, ra, rb = swap_best1(T, S, a, b)
                counters[C_EVALS] += 1
                if ra >= 0 and (d >= 0 or uniform(rng) < np.exp(d / t)):
                    swap(T, S, a, b, ra, rb)
                    cur += d
        commit(S)
        counters[C_MOVES] += 1
        if cur > counters[C_ASPIRATION]:  # a better score than any since the last perturbation
            counters[C_ASPIRATION] = cur
            counters[C_SINCE_BEST] = 0
        if cur > counters[C_BEST]:
            counters[C_BEST] = cur
            counters[C_IMPROVED] = 1
            for c in range(S.piece.shape[0]):
                best_piece[c] = S.piece[c]
                best_rotation[c] = S.rotation[c]
        t *= alpha
    return cur


@njit
def perturb(T, S, rng, swaps, pairs_c, pairs_e, pairs_i):
    """``swaps`` random same-class swaps, inner and frame pairs drawn as often as each other
    (the frame's class by its share of the frame's pairs); inner pieces land in a random
    rotation, frame pieces in the forced one. Returns Obj1 after them."""
    for _ in range(swaps):
        if pairs_i > 0 and (pairs_c + pairs_e == 0 or below(rng, 2) == 0):
            a, b = random_pair(T, rng, INNER)
        else:
            a, b = _pair(T, rng, True, pairs_c, pairs_e, 0)
        if a < 0:
            continue
        if T.frame_mask[a] == 0:
            ra = below(rng, 4)
            rb = below(rng, 4)
        else:
            ra = _forced(T, S.piece[b], a)
            rb = _forced(T, S.piece[a], b)
        swap(T, S, a, b, ra, rb)
        commit(S)
    return S.obj[OBJ1]
