"""The compiled main loop of the guide-and-observe hyper-heuristic (seed 003, sections 4.3 to
4.6, Algorithms 1 and 2).

One call runs up to ``n`` iterations of one phase on the shared core's state
(:mod:`emc.heuristics.core.state`): pick a low-level heuristic uniformly, make the candidate
move, judge it under the guiding objective with the acceptance criterion, keep it or undo it,
and observe Obj1 on every candidate (the best board by Obj1 is copied out whenever a
candidate beats it, accepted or not). The Python driver (:mod:`emc.heuristics.gao.method`)
calls it in slices, reading the clock and Ctrl-C in between; every number the loop carries
from one slice to the next lives in the arrays it is given, so slicing never changes a run.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import njit
from ..core.pop import pop
from ..core.state import (
    CORNER,
    EDGE,
    FRAME,
    INNER,
    OBJ1,
    commit,
    random_pair,
    save_board,
    swap,
    swap_best1,
    undo_to,
)
from ..core.xorshift import below, uniform

#: The low-level heuristics (section 4.5), by code: three swaps within a class, two partial
#: optimal placements.
SWAP_CORNER, SWAP_EDGE, SWAP_INNER, POP_INNER, POP_FRAME = range(5)
HEURISTICS = {"swap-corner": SWAP_CORNER, "swap-edge": SWAP_EDGE, "swap-inner": SWAP_INNER,
              "pop-inner": POP_INNER, "pop-frame": POP_FRAME}
#: The acceptance criteria (section 4.4), by code.
IE, AA, ILTA, GD, SA = range(5)
ACCEPTANCE = {"ie": IE, "aa": AA, "ilta": ILTA, "gd": GD, "sa": SA}

# Slots of the int64 counters array the loop keeps between slices.
C_ITER, C_ACCEPTED, C_BEST1, C_BESTK, C_WORSE, C_IMPROVED, C_START_COST, C_SINCE1 = range(8)
N_COUNTERS = 8


@njit
def _random_rotation(T, p, c, rng):
    """A rotation of piece ``p`` that fits cell ``c``, drawn uniformly; -1 when none does."""
    ok = T.rot_ok[p, T.frame_mask[c]]
    n = 0
    for r in range(4):
        n += (ok >> r) & 1
    if n == 0:
        return -1
    j = below(rng, n)
    for r in range(4):
        if (ok >> r) & 1:
            if j == 0:
                return r
            j -= 1
    return -1


@njit
def run(T, S, W, rng, heuristics, k, acceptance, ilta_k, ilta_r, ilta_equal_resets, gd_factor, sa_t0, sa_t1, frac0, frac1, n,
        q_inner, q_frame, zero_weight, random_rotations, patience, best_piece, best_rotation, counters, tried, kept):
    """Run up to ``n`` iterations of one phase.

    Args:
        T, S, W, rng: the core's tables, state, POP buffers and random stream.
        heuristics: int64 codes (:data:`HEURISTICS`) of the low-level heuristics to pick from,
            each with the same probability.
        k: the guiding objective (1..5: Obj1..Obj5).
        acceptance: :data:`ACCEPTANCE` code; ``ilta_k`` and ``ilta_r`` ILTA's k and R;
            ``gd_factor`` the great deluge's starting level as a multiple of the phase's
            starting cost (the level then falls linearly to 0 over the phase); ``sa_t0`` and
            ``sa_t1`` the annealing's first and last temperatures (geometric cooling).
        frac0, frac1: how far through the phase this slice begins and is expected to end (0 to
            1), for the great deluge's level and the annealing's temperature.
        n: iterations to run at most.
        q_inner, q_frame: pieces lifted by the two partial optimal placements.
        zero_weight: the wheel's weight of a piece with no unmatched side.
        random_rotations: swaps turn the pieces at random (else: their best rotations by Obj1).
        patience: stop once this many iterations in a row have not raised the best Obj1
            (``C_SINCE1`` counts them); 0: never.
        best_piece, best_rotation: the best board by Obj1 seen so far (overwritten when beaten).
        counters: int64 (:data:`N_COUNTERS`,): see the ``C_*`` slots; ``C_BESTK`` and
            ``C_START_COST`` must be set by the caller when a phase begins, ``C_BEST1`` when
            the run begins; ``C_IMPROVED`` is set to 1 when the best board by Obj1 changed.
        tried, kept: int64 per heuristic code: candidates made and accepted.

    Returns:
        The iterations run (fewer than ``n`` only when every edge is matched or the patience
        ran out).
    """
    objmax = T.obj_max[k]
    top1 = T.obj_max[OBJ1]
    n_h = heuristics.shape[0]
    best1 = counters[C_BEST1]
    for i in range(n):
        if best1 == top1 or (patience > 0 and counters[C_SINCE1] >= patience):
            return i
        counters[C_SINCE1] += 1
        h = heuristics[below(rng, n_h)]
        before = S.obj[k]
        tried[h] += 1
        if h <= SWAP_INNER:
            g = CORNER if h == SWAP_CORNER else (EDGE if h == SWAP_EDGE else INNER)
            a, b = random_pair(T, rng, g)
            if a < 0:
                counters[C_ITER] += 1
                continue
            if random_rotations:
                ra = _random_rotation(T, S.piece[b], a, rng)
                rb = _random_rotation(T, S.piece[a], b, rng)
            else:
                d, ra, rb = swap_best1(T, S, a, b)
            if ra < 0 or rb < 0:
                counters[C_ITER] += 1
                continue
            swap(T, S, a, b, ra, rb)
        elif h == POP_INNER:
            pop(T, S, W, rng, INNER, q_inner, zero_weight)
        else:
            pop(T, S, W, rng, FRAME, q_frame, zero_weight)
        after = S.obj[k]
        o1 = S.obj[OBJ1]
        if o1 > best1:  # observe Obj1 on every candidate, kept or not
            best1 = o1
            counters[C_BEST1] = o1
            counters[C_IMPROVED] = 1
            counters[C_SINCE1] = 0
            save_board(S, best_piece, best_rotation)
        cost = objmax - before
        new_cost = objmax - after
        accept = False
        if new_cost <= cost:
            accept = True
            if new_cost < cost or ilta_equal_resets:
                counters[C_WORSE] = 0
            elif acceptance == ILTA:
                counters[C_WORSE] += 1
        elif acceptance == AA:
            accept = True
        elif acceptance == ILTA:
            counters[C_WORSE] += 1
            if counters[C_WORSE] >= ilta_k and new_cost <= ilta_r * (objmax - counters[C_BESTK]):
                accept = True
                counters[C_WORSE] = 0
        elif acceptance == GD:
            f = frac0 + (frac1 - frac0) * (i / n)
            level = gd_factor * counters[C_START_COST] * (1.0 - f)
            accept = new_cost <= level
        elif acceptance == SA:
            f = frac0 + (frac1 - frac0) * (i / n)
            t = sa_t0 * (sa_t1 / sa_t0) ** min(f, 1.0)
            accept = uniform(rng) < np.exp(-(new_cost - cost) / t)
        if accept:
            commit(S)
            kept[h] += 1
            counters[C_ACCEPTED] += 1
            if after > counters[C_BESTK]:
                counters[C_BESTK] = after
        else:
            undo_to(T, S, 0)
        counters[C_ITER] += 1
    return n
