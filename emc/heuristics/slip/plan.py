"""The slipping search's tables for a puzzle and a square order (seed 001, "Search Algorithm").

:func:`make_plan` lays a puzzle out for :mod:`.kernel`: the order's cells, each cell's known
sides (neighbours filled earlier, or hints), the two primary sides that key its candidate table,
which known sides may be slipped (never an edge between two frame cells), and the table of
turned pieces per (position type, primary colours), candidates under each key sorted by piece
and turn as in the exact kernel's table (:func:`emc.backends.backtrack.make_plan`), so that with
no slips and the scan-row order both searches try the same candidates in the same order.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ...model import OPPOSITE, Puzzle
from . import kernel as K

MAX_PIECES = 1 << 16


@dataclass
class SlipPlan:
    """What :func:`.kernel.run` reads, for one puzzle and one order."""

    puzzle: Puzzle
    order: np.ndarray  # the free cells in visiting order
    S: np.ndarray  # int64[n, N_F]
    C1: int
    start: np.ndarray
    cand: np.ndarray
    cand_rot: np.ndarray
    shown0: np.ndarray  # the ``shown`` array with the hints filled in
    used0: np.ndarray  # uint8 per piece: hints and pieces outside the search are used
    slippable: np.ndarray  # bool per position: some known side may be slipped there
    known: np.ndarray  # int per position: known non-frame sides
    cell_class: np.ndarray  # per position: 0 inner, 1 edge, 2 corner

    @property
    def n(self) -> int:
        return len(self.order)

    def shuffled(self, rng: np.random.Generator) -> "SlipPlan":
        """The same plan with the candidates under each key in a random order (the same search
        space, visited in another order): what a restart draws."""
        key = np.repeat(np.arange(len(self.start) - 1), np.diff(self.start))
        o = np.lexsort((rng.random(len(key)), key))
        return dataclasses.replace(self, cand=self.cand[o], cand_rot=self.cand_rot[o])


def make_plan(puzzle: Puzzle, order: np.ndarray) -> SlipPlan:
    """Tables for the search filling ``order`` (every cell not fixed by a hint, once each)."""
    P = puzzle
    if P.n_pieces > MAX_PIECES:
        raise InputError(f"{P.name} has {P.n_pieces:,} pieces: the slipping search takes up to {MAX_PIECES:,}")
    order = np.asarray(order, dtype=np.int64)
    hinted = {h.cell for h in P.hints}
    free = [c for c in range(P.n_cells) if c not in hinted]
    if sorted(order.tolist()) != free:
        raise InputError(f"the square order must list each of the {len(free)} cells without a hint once "
                         f"({len(order)} given)")
    n = len(order)
    C = P.max_colour + 1
    C1 = C + 1
    ANY = C
    posof = np.full(P.n_cells, -1, dtype=np.int64)
    posof[order] = np.arange(n)
    fixed = np.zeros(P.n_cells, dtype=bool)
    shown0 = np.zeros(P.n_cells * 4, dtype=np.int64)
    used0 = np.zeros(P.n_pieces, dtype=np.uint8)
    for h in P.hints:
        fixed[h.cell] = True
        shown0[h.cell * 4:h.cell * 4 + 4] = P.colours[h.piece, h.rotation]
        used0[h.piece] = 1
    frame_cell = P.cell_class > 0
    kind = (P.frame_sides[order] * (1 << np.arange(4))).sum(axis=1).astype(np.int64)
    S = np.zeros((max(n, 1), K.N_F), dtype=np.int64)
    S[:, K.F_NB0:K.F_NB0 + 4] = -1
    S[:, K.F_P1] = S[:, K.F_P2] = -1
    slippable = np.zeros(n, dtype=bool)
    known = np.zeros(n, dtype=np.int64)
    for i, cell in enumerate(order):
        ks = []
        for s in range(4):
            nb = int(P.neighbours[cell, s])
            if nb < 0:
                continue
            if fixed[nb] or posof[nb] < i:
                S[i, K.F_NB0 + s] = nb * 4 + OPPOSITE[s]
                S[i, K.F_KMASK] |= 0x80 << (8 * s)
                ks.append(s)
                if not (frame_cell[cell] and frame_cell[nb]):
                    S[i, K.F_SLIPS] |= 1 << s
        known[i] = len(ks)
        slippable[i] = S[i, K.F_SLIPS] != 0
        if ks:
            S[i, K.F_P1] = ks[0]
        if len(ks) > 1:
            S[i, K.F_P2] = ks[1]
        S[i, K.F_CELL] = cell

    # Position types: (frame mask, primary side 1, primary side 2), numbered in sorted order.
    tkey = np.stack([kind, S[:n, K.F_P1], S[:n, K.F_P2]], axis=1) if n else np.zeros((0, 3), dtype=np.int64)
    types, ptype = np.unique(tkey, axis=0, return_inverse=True)
    ptype = ptype.reshape(-1)
    S[:n, K.F_KEY] = ptype * C1 * C1

    # Every turned piece (not a hint) under every key its type may look it up by.
    pieces = np.array([p for p in range(P.n_pieces) if not used0[p]], dtype=np.int64)
    cols = P.colours[pieces].astype(np.int64).reshape(-1, 4)  # (m * 4 turns, 4 sides)
    pp = np.repeat(pieces, 4)
    rr = np.tile(np.arange(4), len(pieces))
    mask = ((cols == 0) * (1 << np.arange(4))).sum(axis=1)
    packed = pp | cols[:, 0] << 16 | cols[:, 1] << 24 | cols[:, 2] << 32 | cols[:, 3] << 40
    keys, idx = [], []
    for ty, (m, s1, s2) in enumerate(types):
        fit = np.flatnonzero(mask == m)
        variants = [(True, True)] if s1 < 0 else ([(False, True), (True, True)] if s2 < 0 else
                                                   [(False, False), (True, False), (False, True), (True, True)])
        for a_any, b_any in variants:
            a = np.full(len(fit), ANY) if a_any else cols[fit, s1]
            b = np.full(len(fit), ANY) if b_any else cols[fit, s2]
            keys.append((ty * C1 + a) * C1 + b)
            idx.append(fit)
    key = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    ci = np.concatenate(idx) if idx else np.zeros(0, dtype=np.int64)
    srt = np.lexsort((rr[ci], pp[ci], key))
    key, ci = key[srt], ci[srt]
    n_keys = max(len(types), 1) * C1 * C1
    if n_keys > 50_000_000:
        raise InputError(f"the slipping search's table would need {n_keys:,} keys: too many colours for it")
    start = np.searchsorted(key, np.arange(n_keys + 1)).astype(np.int64)
    return SlipPlan(P, order, S, C1, start, packed[ci].astype(np.int64), rr[ci].astype(np.int64), shown0, used0,
                    slippable, known, P.cell_class[order].astype(np.int64))
