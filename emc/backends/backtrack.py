"""Backend ``backtrack``: a compiled scan-row depth-first search.

This is the direct search puzzle solvers run (Verhaard's eii, seed 001, and most Eternity II
programs): visit the free cells row by row and try, at each cell, every unused piece and
rotation whose top and left sides match what is already on the board. With a precomputed
table of candidates per (frame sides, top colour, left colour) a node costs a few memory
reads, and the search runs at millions of nodes per second (:mod:`._backtrack_kernel`).

It answers feasibility (a perfect fill, or a proof that none exists) and counts solutions;
it does not optimise.

Searches. On a whole puzzle without hints, every solution can be turned so that any chosen
corner piece sits on the top-left cell (square boards) or on a top corner (rectangular
boards). Pinning a different corner piece there gives a different but equally complete
search; visiting the cells column by column instead of row by row (the top and left
neighbours still come first) gives another. A sub-problem has its two scan orders.

Restarts (the default for ``solve``). The time to the first solution of one such search
varies wildly with the order in which it tries candidates, and set 2's puzzles have many
solutions (on the 8x7, ``bench/backtrack_restarts.py`` measured restarts answering in 9 to 75 s
against 118 s for the race of the eight fixed searches). So the backend runs short randomised
searches: run ``i`` takes one of the
searches above and a random candidate order, both drawn from ``(seed, i)``, for
``luby(i) * restart_nodes`` nodes (Luby's sequence 1, 1, 2, 1, 1, 2, 4, ...). The answer is
the lowest-numbered run that finds a solution, or that finishes its whole tree without one,
which proves infeasibility; processes take runs in turn and wait for each other before
answering, so the board and the run that found it do not depend on ``threads`` or on timing. Because
the longest run keeps doubling, infeasibility is proven at a logarithmic extra cost.

Without restarts (``restarts=False``) the searches run to completion side by side, in slices
of ``slice_nodes`` nodes, spread over ``threads`` processes; the first to finish answers.
Counting always runs one complete search, pinning the first corner piece of the file on a
row-by-row scan (the symmetry breaking every backend shares), so counts agree across backends.

Pruning. Besides matching neighbours, the search keeps for every colour how many more edges of
that colour a solution can have (between two frame cells, a frame and an inner cell, or two
inner cells: the pieces fix each number) and rejects a placement that opens one too many (see
:func:`edge_budget`); on set 2's 7x7 and 8x6 this removes 30 % of the nodes and 12 % of the
time (``bench/backtrack_trees.py`` with and without ``--no-budget``).

Row look-ahead. When the search reaches the first free cell of a row (a column in the column
scan), the top colours of the whole row are known. A backward pass over the row, with the
pieces unused at that moment, finds for each cell the colours its left neighbour may show so
that the rest of the row can still be filled, and the search then only tries candidates that
show one of them (see :func:`._backtrack_kernel.lookahead`; a relaxation, so no solution is
lost). Complete searches shrink by a factor of 2 to 2.5 on set 2's 7x6 .. 8x8, at a cost of
about 1.8 times per node (``bench/lookahead.py``).

Candidate order (``order``). By default a run tries the candidates under each key in a
random order. With ``order="pairs"`` it tries first the pieces whose corner colour pairs are
common among the pieces and keeps those with rare pairs for later (:func:`pair_scores`, with a
little noise, drawn like the random order from ``(seed, i)``). On set 2's 8x7 that needed 2.6
times fewer nodes per board over ten seeds, on the 7x7 about 1.8 times; on the 8x8 it found
boards about three times less often than the random order, so it is not the default (README,
"Candidate order").

Partial fills. A search that ends without an answer (time limit, Ctrl-C) returns the deepest
partial fill it reached in ``Result.partial``: the most free cells it had filled at once, every
edge between them matched, the rest empty (the depth Eternity II searchers compare, as a board
to look at; never a solution).

Tree picking (``pick``). Every one of those searches holds every solution, but they differ in
size, so the smallest holds them most densely. After its first 63 runs the restart search
estimates each tree's size (Knuth's random walks, :meth:`Search.estimate`) and keeps to the
smallest from then on; see :class:`Restarts`.

Options: ``restarts`` (default True), ``restart_nodes`` (the Luby unit, default 500,000 with
the row look-ahead and 1,000,000 without, so that runs last about as long),
``race`` (default True; False uses only the first search: row by row, first corner piece
pinned), ``scan`` (``both``, default, ``rows`` or ``cols``), ``slice_nodes`` (nodes between
checks of the clock, default 4,000,000), ``lookahead`` (default True), ``order`` (``random``,
default, or ``pairs``), ``pick`` (default True). Options that would change nothing are refused
rather than ignored: ``restart_nodes``, ``order`` and ``pick`` with ``restarts=false``, and those
three with ``race`` and ``restarts`` in a count (one complete search).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import os
import queue
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from ..errors import InputError
# Raises KeyboardInterrupt after a Ctrl-C the command line's guard saw (emc.runtime):
# the searches call it between slices, since a Ctrl-C landing while numba loads a kernel can be
# swallowed on the way (the search then went on to its time limit).
from ..runtime import check as check_interrupt
from ..runtime import held_interrupts
from ..model import BOTTOM, LEFT, OPPOSITE, RIGHT, TOP, Board, Goal, PieceClass, Subproblem
from .base import Backend, Capability, CountResult, DeeperFills, Result, Status, check_options, count_text, option_bool, option_int, solutions_text
from ..runtime import Throttled, child_setup, process_context, start_child

SLICE_NODES = 4_000_000
RESTART_NODES = 1_000_000  # the Luby unit without the row look-ahead ...
RESTART_NODES_LOOKAHEAD = 500_000  # ... and with it, where a node costs about twice as much: runs as long in time
ORDER_NOISE = 0.1  # the noise added to the pair scores when the restarts order candidates by them
ORDERS = ("random", "pairs")  # the restarts' candidate orders, the default first (see Restarts)
PICK_AFTER = 63  # the restarts' runs before they keep to the tree estimated smallest (see Restarts)
PICK_WALKS, PICK_WALKS_MIN, PICK_WORK = 100_000, 10_000, 6_400_000  # Knuth walks per tree: PICK_WORK / free cells
LOOKAHEAD_MAX_C1 = 32  # colours + 1 up to which plans get the row look-ahead (its masks are int64)
_OPTIONS = {"race", "slice_nodes", "scan", "restarts", "restart_nodes", "lookahead", "order", "pick"}


@dataclass
class Plan:
    """Arrays the kernel reads: a sub-problem laid out in visiting order."""

    order: np.ndarray
    kind: np.ndarray  # per position: its frame mask (bit s: side s faces the frame)
    ptype: np.ndarray  # per position: its block of the candidate table (see make_plan)
    top_src: np.ndarray
    left_src: np.ndarray
    top_fix: np.ndarray
    left_fix: np.ndarray
    right_fix: np.ndarray
    bottom_fix: np.ndarray
    C1: int
    start: np.ndarray
    cand_piece: np.ndarray
    cand_rot: np.ndarray
    cand_right: np.ndarray  # colour the candidate shows on its right side
    cand_bottom: np.ndarray  # ... and below
    allowed: np.ndarray  # bool per piece
    right_slot: np.ndarray  # per position: budget slot base of the edge to the right (-1: none)
    bottom_slot: np.ndarray
    budget: np.ndarray  # per (edge type, colour): edges of that colour between free cells
    side: int  # the look-ahead runs along rows (1: a position takes its left colour from the one before) or columns (2)
    chain_end: np.ndarray  # per position: where the row look-ahead started here ends (-1: none)
    la_start: np.ndarray  # the look-ahead's table: see lookahead_table
    la_cand: np.ndarray
    cand: np.ndarray = dataclasses.field(init=False)  # what the kernel reads: see pack_candidates
    S: np.ndarray = dataclasses.field(init=False)  # the per-position arrays as one table: see pack_positions

    def __post_init__(self) -> None:
        self.cand = pack_candidates(self.cand_piece, self.cand_right, self.cand_bottom)
        self.S = pack_positions(self)


def pack_positions(plan: Plan) -> np.ndarray:
    """The plan's per-position arrays as the kernel reads them: one int64 row per position,
    columns ``F_*`` of :mod:`._backtrack_kernel`."""
    from . import _backtrack_kernel as K

    n = len(plan.order)
    S = np.zeros((max(n, 1), K.N_F), dtype=np.int64)
    for col, a in ((K.F_KIND, plan.kind), (K.F_TYPE, plan.ptype), (K.F_TOP_SRC, plan.top_src),
                   (K.F_LEFT_SRC, plan.left_src), (K.F_TOP_FIX, plan.top_fix), (K.F_LEFT_FIX, plan.left_fix),
                   (K.F_RIGHT_FIX, plan.right_fix), (K.F_BOTTOM_FIX, plan.bottom_fix),
                   (K.F_RIGHT_SLOT, plan.right_slot), (K.F_BOTTOM_SLOT, plan.bottom_slot),
                   (K.F_CHAIN_END, plan.chain_end)):
        S[:n, col] = a
    return S


#: The most pieces the kernel takes (a piece number is packed into 16 bits; colours, at most
#: 255 in every puzzle emc reads, into 8).
MAX_PIECES = 1 << 16


def pack_candidates(piece: np.ndarray, right: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """One int64 per candidate: ``piece | right << 16 | bottom << 24`` (one load per candidate
    in the kernel instead of three)."""
    if len(piece) and (piece.max() >= MAX_PIECES or max(right.max(), bottom.max()) >= 1 << 8):
        raise InputError(f"the backtrack backend handles up to {MAX_PIECES:,} pieces and 256 colours")
    return piece.astype(np.int64) | right.astype(np.int64) << 16 | bottom.astype(np.int64) << 24


def make_plan_order(sp: Subproblem, scan: str = "rows") -> np.ndarray:
    """The free cells row by row (``scan="rows"``) or column by column (``"cols"``); either
    way a cell's top and left neighbours come before it."""
    order = np.array(sp.free, dtype=np.int64)  # sorted: row-major
    if scan == "rows":
        return order
    if scan == "cols":
        w = sp.puzzle.width
        return order[np.lexsort((order // w, order % w))]
    raise InputError(f"unknown scan order {scan!r} (choose from: rows, cols)")


def chains(top_src: np.ndarray, left_src: np.ndarray, top_fix: np.ndarray, left_fix: np.ndarray, ANY: int, side: int,
           lookahead: bool = True) -> np.ndarray:
    """Where the row look-ahead (:func:`._backtrack_kernel.lookahead`) works: a chain is a
    maximal run of positions each taking its left colour (``side`` 1) or top colour (``side``
    2) from the position before, whose other side (top, or left) comes from a cell placed
    before the chain starts. Returns ``chain_end``: the last position of the chain starting at
    each first position of a chain of two or more, -1 elsewhere (everywhere without
    ``lookahead``)."""
    n = len(top_src)
    chain_end = np.full(n, -1, dtype=np.int64)
    if not lookahead:
        return chain_end
    link_src, other_src, other_fix = (left_src, top_src, top_fix) if side == 1 else (top_src, left_src, left_fix)
    known = (other_src >= 0) | (other_fix != ANY)  # "any non-border colour" has no place in the table
    h = -1  # first position of the current chain (-1: none)
    for j in range(n + 1):
        if j < n and h >= 0 and link_src[j] == j - 1 and other_src[j] < h and known[j]:
            continue
        if h >= 0 and j - 1 > h:
            chain_end[h] = j - 1
        h = j if j < n and known[j] else -1
    return chain_end


def make_plan(sp: Subproblem, scan: str = "rows", lookahead: bool = True) -> Plan:
    """Lay out ``sp`` for the kernel in the given scan order (see :func:`make_plan_order`),
    with the row look-ahead unless ``lookahead`` is false."""
    P = sp.puzzle
    order = make_plan_order(sp, scan)
    n = len(order)
    posof = np.full(P.n_cells, -1, dtype=np.int64)
    posof[order] = np.arange(n)
    C = P.max_colour + 1
    ANY = C
    C1 = C + 1
    fixed_shown = sp.fixed.shown(P)
    kind = (P.frame_sides[order] * (1 << np.arange(4))).sum(axis=1).astype(np.int64)
    top_src = np.full(n, -1, dtype=np.int64)
    left_src = np.full(n, -1, dtype=np.int64)
    top_fix = np.zeros(n, dtype=np.int64)
    left_fix = np.zeros(n, dtype=np.int64)
    right_fix = np.full(n, -1, dtype=np.int64)
    bottom_fix = np.full(n, -1, dtype=np.int64)
    for i, cell in enumerate(order):
        for side, src, fix in ((TOP, top_src, top_fix), (LEFT, left_src, left_fix)):
            nb = P.neighbours[cell, side]
            if nb < 0:
                fix[i] = 0
            elif posof[nb] >= 0:
                src[i] = posof[nb]  # visited earlier in either scan order
            elif sp.fixed.piece[nb] >= 0:
                fix[i] = fixed_shown[nb, OPPOSITE[side]]
            else:
                fix[i] = ANY
        for side, fix in ((RIGHT, right_fix), (BOTTOM, bottom_fix)):
            nb = P.neighbours[cell, side]
            if nb >= 0 and posof[nb] < 0 and sp.fixed.piece[nb] >= 0:
                fix[i] = fixed_shown[nb, OPPOSITE[side]]

    # Position types: the frame mask with the colours fixed neighbours demand on the right and
    # below (-1: none), numbered in sorted order (on a whole board, the frame masks in order).
    types, ptype = np.unique(np.stack([kind, right_fix, bottom_fix], axis=1), axis=0, return_inverse=True)
    ptype = ptype.reshape(-1).astype(np.int64)

    # Candidate table: under each position type, every allowed (piece, rotation) that shows
    # the type's frame sides and fixed colours, under its exact key and under the keys with
    # "any" top and/or left, grouped by key and then by piece and rotation.
    pieces = np.array(sp.pieces, dtype=np.int64)
    cols = P.colours[pieces].astype(np.int64)  # (m, 4 rot, 4 side)
    pp = np.repeat(pieces, 4)
    kk = np.tile(np.arange(4), len(pieces))
    shown = cols.reshape(-1, 4)
    mask = ((shown == 0) * (1 << np.arange(4))).sum(axis=1)
    top, left = shown[:, TOP], shown[:, LEFT]
    keys, ps, rs = [], [], []
    for ty, (m, rfix, bfix) in enumerate(types):
        fit = (mask == m) & ((rfix < 0) | (shown[:, RIGHT] == rfix)) & ((bfix < 0) | (shown[:, BOTTOM] == bfix))
        for t_any in (False, True):
            for l_any in (False, True):
                t = np.where(t_any, ANY, top)
                lf = np.where(l_any, ANY, left)
                # "any" only stands for a non-border colour
                ok = fit.copy()
                if t_any:
                    ok &= top != 0
                if l_any:
                    ok &= left != 0
                keys.append(((ty * C1 + t) * C1 + lf)[ok])
                ps.append(pp[ok])
                rs.append(kk[ok])
    key = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    cp = np.concatenate(ps) if ps else np.zeros(0, dtype=np.int64)
    cr = np.concatenate(rs) if rs else np.zeros(0, dtype=np.int64)
    srt = np.lexsort((cr, cp, key))
    key, cp, cr = key[srt], cp[srt], cr[srt]
    n_keys = max(len(types), 1) * C1 * C1
    if n_keys > 200_000_000:  # 1.6 GB of offsets
        raise InputError(f"the backtrack search's table would need {n_keys:,} entries ({len(types)} kinds of cell x "
                         f"{C1} colours squared): too many colours for it; use another backend")
    start = np.searchsorted(key, np.arange(n_keys + 1)).astype(np.int64)
    allowed = np.zeros(P.n_pieces, dtype=bool)
    allowed[pieces] = True
    cp, cr = cp.astype(np.int64), cr.astype(np.int64)
    colours = np.ascontiguousarray(P.colours, dtype=np.int64)
    right_slot, bottom_slot, budget = edge_budget(sp, order, posof)
    side = 2 if scan == "cols" else 1
    lookahead = lookahead and C1 <= LOOKAHEAD_MAX_C1
    chain_end = chains(top_src, left_src, top_fix, left_fix, ANY, side, lookahead)
    la_start, la_cand = lookahead_table(shown, mask, pp, C1, side, lookahead)
    return Plan(order, kind, ptype, top_src, left_src, top_fix, left_fix, right_fix, bottom_fix, C1, start, cp, cr,
                colours[cp, cr, RIGHT].copy(), colours[cp, cr, BOTTOM].copy(), allowed,
                right_slot, bottom_slot, budget, side, chain_end, la_start, la_cand)


def lookahead_table(shown: np.ndarray, mask: np.ndarray, piece: np.ndarray, C1: int, side: int,
                    lookahead: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The row look-ahead's table (:func:`._backtrack_kernel.lookahead`) over the oriented
    pieces (``shown``: their four colours, ``mask``: the sides showing the border colour,
    ``piece``): along a row (``side`` 1) a turn links its left colour ``x`` to its right colour
    ``o`` under its top colour ``other``; down a column (2) its top to its bottom under its
    left. Returns offsets per ``mask * C1 + other`` and the turns, packed ``piece | x << 16 |
    o << 24``; both empty without ``lookahead``."""
    if not lookahead:
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    other_s, in_s, out_s = (TOP, LEFT, RIGHT) if side == 1 else (LEFT, TOP, BOTTOM)
    group = mask * C1 + shown[:, other_s]
    packed = piece.astype(np.int64) | shown[:, in_s].astype(np.int64) << 16 | shown[:, out_s].astype(np.int64) << 24
    o = np.argsort(group, kind="stable")
    start = np.searchsorted(group[o], np.arange(16 * C1 + 1)).astype(np.int64)
    return start, packed[o]


def edge_budget(sp: Subproblem, order: np.ndarray, posof: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How many edges of each colour a solution has between two free cells, per edge type.

    An edge joins two frame cells (type 0), a frame cell and an inner cell (1) or two inner
    cells (2). The pieces fix these numbers: the sides of corner and edge pieces that run along
    the frame pair up on type-0 edges; the inward side of each edge piece lies on a type-1 edge;
    the inner pieces' sides cover the type-1 edges once and the type-2 edges twice. Edges to
    fixed pieces take their share first. The search keeps, per (type, colour), how many edges
    are still allowed and rejects a placement that would open one too many: a colour used up
    early is seen at once instead of rows later.

    Returns (right slot, bottom slot, budget): per position, the budget index of the edge to
    its right / below (type * colours, plus the colour shown) or -1; all -1 (no budget) when
    the numbers are not fixed: boards under 3 x 3, free cells next to empty non-free cells, or
    more pieces of a class than free cells of it.
    """
    P = sp.puzzle
    n = len(order)
    C = P.max_colour + 1
    right_slot = np.full(n, -1, dtype=np.int64)
    bottom_slot = np.full(n, -1, dtype=np.int64)
    budget = np.zeros(3 * C, dtype=np.int64)
    off = (right_slot, bottom_slot, budget)
    if P.width < 3 or P.height < 3 or n == 0:
        return off
    cell_class = P.cell_class
    if not np.array_equal(np.bincount(P.piece_class[sp.pieces], minlength=3),
                          np.bincount(cell_class[order], minlength=3)):
        return off
    inner = cell_class == PieceClass.INNER
    tangent = np.zeros(C, dtype=np.int64)  # frame-running sides of corner and edge pieces
    inward = np.zeros(C, dtype=np.int64)  # the side of an edge piece facing the inside
    inner_sides = np.zeros(C, dtype=np.int64)  # all sides of inner pieces
    for p in sp.pieces:
        cols = P.pieces[p]
        cls = P.piece_class[p]
        if cls == PieceClass.INNER:
            np.add.at(inner_sides, cols, 1)
        elif cls == PieceClass.EDGE:
            b = int(np.flatnonzero(cols == 0)[0])
            inward[cols[(b + 2) % 4]] += 1
            tangent[cols[(b + 1) % 4]] += 1
            tangent[cols[(b + 3) % 4]] += 1
        else:
            np.add.at(tangent, cols[cols != 0], 1)
    shown = sp.fixed.shown(P)
    for cell in order:
        for side in range(4):
            nb = P.neighbours[cell, side]
            if nb < 0 or posof[nb] >= 0:
                continue
            if sp.fixed.piece[nb] < 0:
                return off  # an empty cell outside the sub-problem: any colour may face it
            c = shown[nb, OPPOSITE[side]]
            if not inner[cell] and not inner[nb]:
                tangent[c] -= 1
            elif not inner[cell]:
                inward[c] -= 1
            else:
                inner_sides[c] -= 1
    budget[:C] = tangent // 2
    budget[C:2 * C] = inward
    budget[2 * C:] = (inner_sides - inward) // 2
    np.maximum(budget, 0, out=budget)
    for i, cell in enumerate(order):
        for side, slot in ((RIGHT, right_slot), (BOTTOM, bottom_slot)):
            nb = P.neighbours[cell, side]
            if nb >= 0 and posof[nb] >= 0:
                slot[i] = (int(inner[cell]) + int(inner[nb])) * C
    return right_slot, bottom_slot, budget


@dataclass
class TreeEstimate:
    """Estimated size of a complete search tree (see :meth:`Search.estimate`).

    ``nodes`` is unbiased, but the walks' estimates are heavy-tailed: a few walks that get
    deep carry most of the weight, so ``stderr`` (the standard error of the mean) itself is
    unreliable when the tree is large; compare estimates made with different seeds."""

    nodes: float
    stderr: float
    per_depth: np.ndarray  # estimated nodes placed at each position of the visiting order
    probes: int


class Search:
    """One resumable search: a plan plus an optional pinned piece and the state arrays."""

    def __init__(self, plan: Plan, pin_piece: int = -1, pin_positions: np.ndarray | None = None, keep: int = 1):
        from . import _backtrack_kernel as K

        self.K = K
        self.plan = plan
        n = len(plan.order)
        self.pin_piece = int(pin_piece)
        self.first_ok = np.zeros(max(n, 1), dtype=np.bool_)
        self.pin_last = -1
        if pin_positions is not None and len(pin_positions):
            self.first_ok[pin_positions] = True
            self.pin_last = int(np.max(pin_positions))
        self.used = ~plan.allowed.copy()
        self.D = np.zeros((max(n, 1), K.N_G), dtype=np.int64)  # the search's state per position (G_* columns)
        self.D[:, K.G_PIECE] = -1
        self.D[:, K.G_LOOK] = -1  # positions no look-ahead writes allow every colour
        self.state = np.zeros(8, dtype=np.int64)
        self.budget = plan.budget.copy()
        self.sol_piece = np.zeros((max(keep, 1), max(n, 1)), dtype=np.int64)
        self.sol_rot = np.zeros((max(keep, 1), max(n, 1)), dtype=np.int64)

    @property
    def nodes(self) -> int:
        return int(self.state[self.K.S_NODES])

    @property
    def solutions(self) -> int:
        return int(self.state[self.K.S_SOLUTIONS])

    @property
    def placed(self) -> np.ndarray:
        """The piece on each position now (-1: none), in visiting order."""
        return self.D[:len(self.plan.order), self.K.G_PIECE]

    @property
    def deepest(self) -> int:
        """The most free cells this search has had filled at once."""
        return int(self.state[self.K.S_DEEPEST])

    @property
    def done(self) -> bool:
        return bool(self.state[self.K.S_DONE])

    def step(self, budget: int, stop_at: int) -> None:
        p = self.plan
        self.K.run(budget, stop_at, len(p.order), p.S, p.C1, p.start, p.cand, p.cand_rot, self.pin_piece,
                   self.first_ok, self.pin_last, self.used, self.D, self.state, self.sol_piece, self.sol_rot,
                   self.budget, p.side, p.la_start, p.la_cand)

    def estimate(self, probes: int = 100_000, seed: int = 0) -> "TreeEstimate":
        """Knuth's random-walk estimate of the nodes this search needs to finish its whole
        tree (all solutions), without running it; call before :meth:`step`."""
        if self.state[self.K.S_STARTED]:
            raise RuntimeError("estimate() needs a search that has not started")
        if probes < 1:
            raise ValueError("probes must be at least 1")
        p = self.plan
        n = len(p.order)
        per_depth = np.zeros(max(n, 1))
        total, total_sq = self.K.probe(
            probes, seed, n, p.S, p.C1, p.start, p.cand, self.pin_piece, self.first_ok, self.pin_last, self.used,
            self.budget, per_depth, p.side, p.la_start, p.la_cand)
        mean = total / probes
        var = max(total_sq / probes - mean * mean, 0.0)
        return TreeEstimate(mean, (var / probes) ** 0.5, per_depth[:n] / probes, probes)

    def partial(self, n_cells: int) -> tuple[np.ndarray, np.ndarray]:
        """The deepest partial fill this search has reached, as (piece, rotation) per cell of a
        board of ``n_cells`` cells, -1 where it placed nothing (past the :attr:`deepest`
        positions it filled, and on cells outside the search). Every edge between its pieces
        matches (it is a node of the search), but it is no solution."""
        K, p = self.K, self.plan
        piece = np.full(n_cells, -1, dtype=np.int64)
        rot = np.full(n_cells, -1, dtype=np.int64)
        k = self.deepest
        idx = self.D[:k, K.G_DEEP]
        piece[p.order[:k]] = p.cand[idx] & 0xFFFF
        rot[p.order[:k]] = p.cand_rot[idx]
        return piece, rot

    def board(self, sp: Subproblem, k: int = 0) -> Board:
        b = sp.fixed.copy()
        for i, cell in enumerate(self.plan.order):
            b.place(int(cell), int(self.sol_piece[k, i]), int(self.sol_rot[k, i]))
        return b


def race_pins(sp: Subproblem, order: np.ndarray | None = None) -> list[tuple[int, np.ndarray]]:
    """(piece, allowed positions) for each equivalent corner pinning of a whole puzzle, the
    positions counted in the visiting ``order`` (default: row by row)."""
    sym = sp.symmetry_cells()
    if sym is None:
        return []
    _, cells = sym
    P = sp.puzzle
    corners = [int(p) for p in sp.pieces if P.piece_class[p] == PieceClass.CORNER]
    posof = {int(c): i for i, c in enumerate(sp.free if order is None else order)}
    positions = np.array([posof[int(c)] for c in cells], dtype=np.int64)
    return [(c, positions) for c in corners]


Tree = tuple  # (scan, pinned piece or -1, its allowed positions or None)


def race_trees(sp: Subproblem, scans: tuple[str, ...], race: bool) -> list[Tree]:
    """The searches to race: each scan order with each corner pinning (whole puzzles), or each
    scan order alone (sub-problems and hinted puzzles). Without ``race``: the first one only,
    which pins the first corner piece, the symmetry breaking every backend shares."""
    trees: list[Tree] = []
    for scan in scans:
        order = make_plan_order(sp, scan)
        pins = race_pins(sp, order)
        trees += [(scan, piece, positions) for piece, positions in pins] if pins else [(scan, -1, None)]
    return trees if race else trees[:1]


def _searches(sp: Subproblem, trees: list[Tree], keep: int = 1, lookahead: bool = True) -> list[Search]:
    plans: dict[str, Plan] = {}
    out = []
    for scan, piece, positions in trees:
        if scan not in plans:
            plans[scan] = make_plan(sp, scan, lookahead)
        out.append(Search(plans[scan], piece, positions, keep=keep))
    return out


def _interleave(searches: list[Search], deadline: float | None, slice_nodes: int, stop_at: int,
                report: Callable[[int], None] | None = None) -> tuple[Search | None, bool]:
    """Run searches in turn, a slice each, until one finds ``stop_at`` solutions or finishes.

    Returns (the search that decided, timed out)."""
    while True:
        for s in searches:
            s.step(slice_nodes, stop_at)
            check_interrupt()
            if report is not None:
                report(sum(x.nodes for x in searches))
            if s.solutions >= stop_at > 0 or s.done:
                return s, False
            if deadline is not None and time.monotonic() >= deadline:
                return None, True


def _describe(tree: Tree, s: Search) -> str:
    """Which search decided, for the statistics: scan order, pinned piece (1-based), nodes."""
    scan, piece, _ = tree
    return f"{scan}" + (f", piece {piece + 1} pinned" if piece >= 0 else "") + f", {s.nodes} nodes"


def _race_child(sp: Subproblem, trees: list, slice_nodes: int, deadline: float | None, out, counts, deepest, slot: int,
                partials: "_SharedPartials", lookahead: bool = True) -> None:
    searches = _searches(sp, trees, lookahead=lookahead)

    def report(nodes: int) -> None:
        counts[slot] = nodes
        s = max(searches, key=lambda x: x.deepest)
        if s.deepest > deepest[slot]:
            partials.put(slot, *s.partial(sp.puzzle.n_cells))
            deepest[slot] = s.deepest

    s, _ = _interleave(searches, deadline, slice_nodes, 1, report)
    if s is None:
        out.put(("timeout", None, None, None))
    elif s.solutions:
        b = s.board(sp)
        out.put(("solution", b.piece.copy(), b.rotation.copy(), _describe(trees[searches.index(s)], s)))
    else:
        out.put(("infeasible", None, None, _describe(trees[searches.index(s)], s)))


def luby(i: int) -> int:
    """Term ``i`` (from 1) of Luby's restart sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, ..."""
    if i < 1:
        raise ValueError("Luby's sequence starts at 1")
    while True:
        k = i.bit_length()
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


def pair_scores(sp: Subproblem) -> np.ndarray:
    """Per piece (indexed by piece number; 0 for pieces outside ``sp``): how rare the colour
    pairs at its four corners are among the sub-problem's pieces, as a z-score.

    A piece turned on a board shows a (top, left) pair at its top-left corner; over the four
    turns of all the sub-problem's pieces each pair has a frequency f, and a piece's rarity is
    the sum of 1/f over its four turns. The restarts (``order="pairs"``) try the candidates
    with the most common pairs first and keep the rare ones for later; see :func:`shuffled`."""
    P = sp.puzzle
    pieces = np.array(sp.pieces, dtype=np.int64)
    out = np.zeros(P.n_pieces)
    if len(pieces) == 0:
        return out
    C = int(P.max_colour) + 1
    cols = P.colours[pieces].astype(np.int64)  # (m, 4 turns, 4 sides)
    pair = cols[:, :, TOP] * C + cols[:, :, LEFT]  # (m, 4 turns)
    freq = np.bincount(pair.ravel(), minlength=C * C)
    rarity = (1.0 / freq[pair]).sum(axis=1)
    sd = rarity.std()
    out[pieces] = (rarity - rarity.mean()) / sd if sd > 0 else 0.0
    return out


def shuffled(plan: Plan, rng: np.random.Generator, score: np.ndarray | None = None,
             noise: float = ORDER_NOISE) -> Plan:
    """``plan`` with the candidates under each key in another order (the same search space,
    visited in another order): at random, or with ``score`` (one value per piece) by score
    plus Gaussian noise of standard deviation ``noise``, lowest first."""
    key = np.repeat(np.arange(len(plan.start) - 1), np.diff(plan.start))
    if score is None:
        r = rng.random(len(key))
    else:
        r = score[plan.cand_piece] + noise * rng.standard_normal(len(key))
    o = np.lexsort((r, key))
    return dataclasses.replace(plan, cand_piece=plan.cand_piece[o], cand_rot=plan.cand_rot[o],
                               cand_right=plan.cand_right[o], cand_bottom=plan.cand_bottom[o])


def _processes(threads: int) -> int:
    """Processes for ``threads``: at most one per core this process may use (more only share
    the cores; the restarts give the same board for any count, so nothing is lost)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(int(threads), cores))


class Restarts:
    """Randomised restarts: run ``i`` searches one of the raced trees, drawn from ``(seed, i)``,
    with its candidates in an order drawn from the same generator (at random, or with
    ``order="pairs"`` by :func:`pair_scores` plus noise), for ``luby(i) * unit`` nodes.

    Tree picking (``pick``, default on): from run ``pick_after + 1`` on, every run searches
    the tree :meth:`picked` finds smallest by Knuth's estimate instead of the one drawn (the
    candidate order is still drawn as before). Every tree holds every solution, so the smallest
    holds them most densely: on set 2's 8x7, runs of the column scans (estimated 0.8 x 10^11
    nodes) found a board every 223 million nodes, runs of the row scans (1.2 to 1.3 x 10^11)
    every 518 million (README, "Tree picking"). The first ``pick_after`` runs keep the drawn
    trees, so that puzzles solved in a few seconds do not wait for the estimates.

    The outcome of run ``i`` depends on the seed and ``i`` only, so the answer (the lowest run
    that decides) is the same whichever process runs it and however many there are. A run that
    finishes its tree without a solution proves the (sub-)problem infeasible: each tree is a
    complete search. Luby's sequence keeps doubling the longest run, so a search that needs a
    whole tree gets one, at a cost of a logarithmic factor."""

    def __init__(self, sp: Subproblem, trees: list[Tree], seed: int, unit: int, slice_nodes: int,
                 lookahead: bool = True, order: str = "random", noise: float = ORDER_NOISE, pick: bool = True,
                 pick_after: int | None = None):
        if order not in ORDERS:
            raise ValueError(f"unknown candidate order {order!r} (choose from: {', '.join(ORDERS)})")
        self.sp, self.trees, self.seed, self.unit, self.slice_nodes = sp, trees, seed, unit, slice_nodes
        if pick_after is None:
            pick_after = PICK_AFTER
        self.pick_after = pick_after if pick and len(trees) > 1 else None  # None: never pick
        self._estimated: list[float] = []  # the trees picked() has estimated so far, in order
        self.score = pair_scores(sp) if order == "pairs" else None
        self.noise = noise  # on the pair scores (see shuffled)
        self.plans = {scan: make_plan(sp, scan, lookahead) for scan in dict.fromkeys(t[0] for t in trees)}
        self.deepest = 0  # the most free cells any run has filled at once
        self.partial: tuple[np.ndarray, np.ndarray] | None = None  # that fill, per cell (see Search.partial)
        self.on_partial: Callable[[np.ndarray, np.ndarray], None] | None = None  # hears each deeper one

    def search(self, i: int, deadline: float | None = None) -> tuple[Search, Tree] | None:
        """Run ``i``'s search, not yet started: its tree and candidate order, drawn from ``(seed,
        i)`` (the tree :meth:`picked` past ``pick_after``; None when the deadline passes while
        the trees are being estimated)."""
        rng = np.random.default_rng([self.seed, i])
        tree = self.trees[int(rng.integers(len(self.trees)))]
        if self.pick_after is not None and i > self.pick_after:
            tree = self.picked(deadline)
            if tree is None:
                return None
        return Search(shuffled(self.plans[tree[0]], rng, self.score, self.noise), tree[1], tree[2]), tree

    @property
    def estimates(self) -> list[float] | None:
        """Each tree's estimated size, once :meth:`picked` has estimated them all (else None)."""
        return self._estimated if len(self._estimated) == len(self.trees) else None

    def picked(self, deadline: float | None = None) -> Tree | None:
        """The tree with the fewest nodes by Knuth's estimate (:meth:`Search.estimate`; the first
        on ties), estimated once, with walks drawn from the seed alone, so every process picks
        the same tree. About 2.5 s on set 2's 8x8 (100,000 walks per tree; fewer on larger
        puzzles, whose walks are longer). Past ``deadline`` (``time.monotonic()``) it stops
        between two trees and returns None; a later call goes on from there."""
        if self.estimates is None:
            walks = max(PICK_WALKS_MIN, min(PICK_WALKS, PICK_WORK // max(self.sp.n_free, 1)))
            for scan, piece, positions in self.trees[len(self._estimated):]:
                if deadline is not None and time.monotonic() >= deadline:
                    return None
                search = Search(self.plans[scan], piece, positions)
                self._estimated.append(search.estimate(walks, self.seed % (1 << 31)).nodes)
                check_interrupt()
        return self.trees[int(np.argmin(self.estimates))]

    def run(self, i: int, deadline: float | None,
            report: Callable[[int], None] | None = None) -> tuple[str, Search | None, Tree | None]:
        """Run ``i``: ("solution" | "infeasible" | "cutoff" | "timeout", the search, its tree;
        both None when the deadline passed before the search could start)."""
        drawn = self.search(i, deadline)
        if drawn is None:
            return "timeout", None, None
        s, tree = drawn
        budget = luby(i) * self.unit
        while True:
            # Checked before every slice, the first included: runs cut off by their budget
            # must not go on one slice each past the deadline.
            if deadline is not None and time.monotonic() >= deadline:
                return "timeout", s, tree
            before = s.nodes
            s.step(min(self.slice_nodes, budget - s.nodes), 1)
            check_interrupt()
            if s.deepest > self.deepest:
                self.deepest = s.deepest
                self.partial = s.partial(self.sp.puzzle.n_cells)
                if self.on_partial is not None:
                    self.on_partial(*self.partial)
            if report is not None:
                report(s.nodes - before)
            if s.solutions:
                return "solution", s, tree
            if s.done:
                return "infeasible", s, tree
            if s.nodes >= budget:
                return "cutoff", s, tree

    def until_decided(self, runs: Iterable[int], deadline: float | None, report: Callable[[int], None],
                      on_run: Callable[[int], None]) -> tuple[str, int, Search, Tree]:
        """Run ``runs`` in turn (``on_run(i)`` before each) until one finds a solution, proves
        infeasibility or meets the deadline: (that kind, the run, its search, its tree)."""
        for i in runs:
            on_run(i)
            kind, s, tree = self.run(i, deadline, report)
            if kind != "cutoff":
                return kind, i, s, tree
        raise ValueError("no runs given")


class _Ticker:
    """Progress lines for ``Backend.progress``: (solutions counted,) nodes so far, their
    rate (the restart run, and the most of the ``cells`` free cells filled at once), at most
    one line every ``every`` seconds (``emit`` None: silent)."""

    def __init__(self, emit: Callable[[str], None] | None, every: float = 0.5, cells: int = 0,
                 deeper: "_Deeper | None" = None):
        self.out = Throttled(emit, every)
        self.t0 = time.monotonic()
        self.cells = cells
        self.deepest = 0  # the most it has been told of, for the statistics
        self.deeper = deeper if deeper is not None else _Deeper(None, None)  # where deeper fills go

    def __call__(self, nodes: int, run: int | None = None, solutions: int | None = None, deepest: int = 0) -> None:
        self.deepest = deepest = max(self.deepest, int(deepest))

        def line() -> str | None:
            if nodes <= 0:
                return None
            rate = nodes / max(time.monotonic() - self.t0, 1e-9) / 1e6
            return ((solutions_text(solutions) + ", " if solutions is not None else "")
                    + f"{count_text(int(nodes))} nodes, {rate:.1f} M nodes/s" + (f", restart run {run}" if run else "")
                    + (f", deepest fill {deepest}/{self.cells} cells" if deepest else ""))

        self.out(line)

    def searched(self, nodes: int, searches: list) -> None:
        """A tick of the searches of this process, whose deepest fill goes to ``deeper``."""
        s = max(searches, key=lambda x: x.deepest)
        self(nodes, deepest=s.deepest)
        if self.deeper.wants(s.deepest):
            self.deeper.offer_fill(*s.partial(self.deeper.sp.puzzle.n_cells))


class _Deeper(DeeperFills):
    """:class:`DeeperFills` from a search's arrays, built into a board only when deeper."""

    def offer_fill(self, piece: np.ndarray, rot: np.ndarray) -> None:
        """A search's fill (piece and rotation per cell)."""
        if self.wants(self.cells(piece)):
            self.offer(_board_from(self.sp, piece, rot))

    def offer_shared(self, most: int, partials: "_SharedPartials") -> None:
        """From the search processes' shared fills, when one of them reports ``most`` cells."""
        if self.wants(most):
            board = partials.deepest(self.sp)
            if board is not None:
                self.offer(board)


def _describe_run(i: int, tree: Tree, s: Search) -> str:
    return f"run {i} ({_describe(tree, s)})"


def _restart_child(sp: Subproblem, trees: list, seed: int, unit: int, slice_nodes: int, deadline: float | None,
                   slot: int, n_proc: int, out, counts, working, deepest, partials: "_SharedPartials",
                   lookahead: bool = True, order: str = "random", pick: bool = True) -> None:
    """Process ``slot`` of ``n_proc``: runs slot + 1, slot + 1 + n_proc, ... until one decides."""
    R = Restarts(sp, trees, seed, unit, slice_nodes, lookahead, order, pick=pick)
    R.on_partial = lambda piece, rot: partials.put(slot, piece, rot)

    def report(nodes: int) -> None:
        counts[slot] += nodes
        deepest[slot] = R.deepest

    def on_run(i: int) -> None:
        working[slot] = i

    kind, i, s, tree = R.until_decided(itertools.count(slot + 1, n_proc), deadline, report, on_run)
    if kind == "solution":
        b = s.board(sp)
        out.put(("solution", i, b.piece.copy(), b.rotation.copy(), _describe_run(i, tree, s)))
    elif kind == "infeasible":
        out.put(("infeasible", i, None, None, _describe_run(i, tree, s)))
    else:
        out.put(("timeout", i, None, None, None))


def _board_from(sp: Subproblem, piece: np.ndarray, rot: np.ndarray) -> Board:
    """The board a search process sent back (piece and rotation per cell; a free cell with
    piece -1 stays empty, as in a partial fill)."""
    board = sp.fixed.copy()
    for cell in sp.free:
        if piece[cell] >= 0:
            board.place(int(cell), int(piece[cell]), int(rot[cell]))
    return board


class _SharedPartials:
    """Each search process's deepest partial fill, in memory the parent reads. Two buffers per
    process written in turn, and the number of the last whole one, so that a process ended in
    the middle of a write still leaves its previous fill whole."""

    def __init__(self, ctx, n_proc: int, n_cells: int):
        self.n_cells = max(n_cells, 1)
        self.buf = ctx.Array("q", n_proc * 4 * self.n_cells, lock=False)
        self.whole = ctx.Array("q", n_proc, lock=False)  # 0: nothing yet; b + 1: buffer b is whole

    def _view(self, slot: int, b: int) -> np.ndarray:
        a = np.frombuffer(self.buf, dtype=np.int64)
        base = (slot * 2 + b) * 2 * self.n_cells
        return a[base:base + 2 * self.n_cells].reshape(2, self.n_cells)

    def put(self, slot: int, piece: np.ndarray, rot: np.ndarray) -> None:
        b = 1 if self.whole[slot] == 1 else 0  # the buffer not holding the last whole fill
        v = self._view(slot, b)
        v[0, :len(piece)] = piece
        v[1, :len(rot)] = rot
        self.whole[slot] = b + 1

    def deepest(self, sp: Subproblem) -> Board | None:
        """The fill with the most cells over the processes (the lowest process on ties)."""
        best, most = None, 0
        for slot in range(len(self.whole)):
            if self.whole[slot]:
                v = self._view(slot, int(self.whole[slot]) - 1)
                k = int((v[0, :sp.puzzle.n_cells] >= 0).sum())
                if k > most:
                    best, most = v[:, :sp.puzzle.n_cells].copy(), k
        return None if best is None else _board_from(sp, best[0], best[1])


def _start_processes(sp: Subproblem, n_proc: int, target: Callable, args: Callable[..., tuple]):
    """Start ``n_proc`` search processes running ``target(*args(i, out, counts, working, deepest,
    partials))``.

    Returns (processes, the queue they answer on, nodes searched per process, the run each
    process is on, the most free cells each has filled at once, their deepest partial fills).
    The kernel is compiled (or loaded) here first, so forked children start searching at once."""
    ctx = process_context()
    Search(make_plan(sp)).step(0, 1)
    out = ctx.Queue()
    counts = ctx.Array("q", n_proc, lock=False)
    working = ctx.Array("q", n_proc, lock=False)
    deepest = ctx.Array("q", n_proc, lock=False)
    partials = _SharedPartials(ctx, n_proc, sp.puzzle.n_cells)
    parent = os.getpid()
    procs = [ctx.Process(target=_child, args=(parent, target, args(i, out, counts, working, deepest, partials)),
                         daemon=True) for i in range(n_proc)]
    for p in procs:
        start_child(p)
    return procs, out, counts, working, deepest, partials


def _child(parent: int, target: Callable, args: tuple) -> None:
    """Run ``target(*args)`` in a search process that leaves Ctrl-C to its parent and dies with
    it: a parent killed outright (SIGKILL, the out-of-memory killer) cannot stop its workers,
    which searched on to their deadline, or for ever without one."""
    child_setup(parent)
    target(*args)


def _end_processes(procs: list) -> None:
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(timeout=5)


def _raise_crash(procs: list) -> None:
    codes = sorted({p.exitcode for p in procs if p.exitcode})
    raise RuntimeError(f"a backtrack search process failed (exit code {', '.join(map(str, codes))})")


class BacktrackBackend(Backend):
    name = "backtrack"
    compiled = True
    priority = {"feasibility": 10, "enumeration": 10, "race feasibility": 10}
    options = frozenset(_OPTIONS)
    formulations = ("scan-row",)
    summary_log = True
    capabilities = frozenset({Capability.FEASIBILITY, Capability.ENUMERATION})
    install_hint = "pip install 'emc[fast]'"
    description = "compiled scan-row backtracking search (feasibility, counting); randomised Luby restarts over corner pinnings and scan orders"

    def before_fork(self, sp: Subproblem) -> None:
        """The compiled kernel loaded here (see :meth:`Backend.before_fork`)."""
        if self.available() and sp.n_free:
            Search(make_plan(sp)).step(0, 1)

    @classmethod
    def available(cls) -> bool:
        return importlib.util.find_spec("numba") is not None

    @classmethod
    def version(cls) -> str | None:
        try:
            import numba

            return f"numba {numba.__version__}"
        except ImportError:
            return None

    def check_size(self, sp: Subproblem) -> None:
        if sp.puzzle.n_pieces > MAX_PIECES:  # the kernel packs a piece number into 16 bits
            raise InputError(f"{sp.puzzle.name} has {sp.puzzle.n_pieces:,} pieces: the backtrack backend handles "
                             f"up to {MAX_PIECES:,} (another backend: emc backends)")

    def check_option_values(self, goal: Goal, options: dict[str, Any]) -> None:
        self._check_options(options)

    @staticmethod
    def _check_options(options: dict[str, Any], counting: bool = False
                       ) -> tuple[bool, int, tuple[str, ...], bool, int, bool, str, bool]:
        """(race, slice_nodes, scans, restarts, restart_nodes, lookahead, order, pick) from the
        backend options. Options that would change nothing are refused: the restarts' own with
        ``restarts=false``, and those of the restarts and the race when ``counting`` (a count is
        one complete search)."""
        check_options("backtrack", options, _OPTIONS)
        # a count reads no restarts option (one given is refused just below)
        restarts = counting or option_bool("backtrack", options, "restarts", True)
        idle = [k for k in ("race", "restarts") if counting and k in options]
        if counting or not restarts:
            idle += [k for k in ("restart_nodes", "order", "pick") if k in options]
        if idle:
            why = ("a count is one complete search" if counting
                   else "they set the restarts, which restarts=false turns off")
            raise InputError(f"option(s) {', '.join(idle)} of backend backtrack would have no effect: {why}")
        slice_nodes = option_int("backtrack", options, "slice_nodes", SLICE_NODES, low=1)
        scan = str(options.get("scan", "both"))
        if scan not in ("both", "rows", "cols"):
            raise InputError(f"unknown scan {scan!r} for backend backtrack (choose from: both, rows, cols)")
        scans = ("rows", "cols") if scan == "both" else (scan,)
        order = str(options.get("order", "random"))
        if order not in ORDERS:
            raise InputError(f"unknown order {order!r} for backend backtrack (choose from: {', '.join(ORDERS)})")
        lookahead = option_bool("backtrack", options, "lookahead", True)
        unit = option_int("backtrack", options, "restart_nodes",
                          RESTART_NODES_LOOKAHEAD if lookahead else RESTART_NODES, low=1)
        return (option_bool("backtrack", options, "race", True), slice_nodes, scans, restarts, unit, lookahead, order,
                option_bool("backtrack", options, "pick", True))

    def _solve(self, sp: Subproblem, formulation: str, time_limit: float | None, threads: int, seed: int,
               log_path: Path | None, hint: Board | None, on_improvement: Callable[[Board, int], None] | None,
               options: dict[str, Any]) -> Result:
        race, slice_nodes, scans, restarts, unit, lookahead, order, pick = self._check_options(options)
        t0 = time.monotonic()
        deadline = None if time_limit is None else t0 + time_limit
        trees = race_trees(sp, scans, race)
        stats: dict[str, Any] = {"free_cells": sp.n_free, "searches": len(trees)}
        interrupted = False
        tick = _Ticker(self.progress, cells=sp.n_free, deeper=_Deeper(self.partial_sink, sp))
        if restarts:
            status, board, stats["nodes"], interrupted, decided_by, stats["runs"], n_proc, partial = self._restart(
                sp, trees, threads, seed, unit, slice_nodes, deadline, lookahead, order, pick, tick)
            if decided_by:
                stats["decided_by"] = decided_by
            stats["processes"] = n_proc
        else:
            status, board, interrupted, partial = self._complete_searches(sp, trees, threads, seed, slice_nodes,
                                                                          deadline, stats, lookahead, tick)
        elapsed = time.monotonic() - t0
        stats["nodes_per_second"] = int(stats["nodes"] / elapsed) if elapsed > 0 else 0
        stats["deepest"] = sp.n_free if board is not None else tick.deepest
        if board is not None and on_improvement is not None:
            on_improvement(board, sp.max_score)
        # the log (with --log) is emc's summary log, written by Backend.solve
        return Result(status, board, sp.max_score if board is not None else None,
                      sp.max_score if board is not None else None, stats=stats,
                      interrupted=interrupted or (status is Status.UNKNOWN and deadline is not None),
                      partial=partial if status is Status.UNKNOWN else None)

    def _complete_searches(self, sp: Subproblem, trees: list, threads: int, seed: int, slice_nodes: int,
                           deadline: float | None, stats: dict[str, Any], lookahead: bool, tick: _Ticker):
        """The race of complete searches without restarts, in slices (one process) or spread
        over ``threads`` processes. Returns (status, board, interrupted, the deepest partial
        fill); fills ``stats``; ``tick`` hears the nodes searched as it goes."""
        interrupted = False
        if len(trees) > 1:
            # the seed turns the order in which the searches take their slices
            k = seed % len(trees)
            trees = trees[k:] + trees[:k]
        n_proc = _processes(threads)
        if n_proc >= 2 and len(trees) >= 2:
            status, board, nodes, interrupted, decided_by, partial = self._race_processes(
                sp, trees, threads, slice_nodes, deadline, lookahead, tick)
            stats["nodes"] = nodes
            if decided_by:
                stats["decided_by"] = decided_by
            stats["processes"] = min(n_proc, len(trees))
        else:
            searches = _searches(sp, trees, lookahead=lookahead)
            status, board = Status.UNKNOWN, None
            try:
                s, timed_out = _interleave(searches, deadline, slice_nodes, 1,
                                           lambda n: tick.searched(n, searches))
                if s is not None:
                    if len(searches) > 1:
                        stats["decided_by"] = _describe(trees[searches.index(s)], s)
                    if s.solutions:
                        status, board = Status.OPTIMAL, s.board(sp)
                    else:
                        status = Status.INFEASIBLE
            except KeyboardInterrupt:
                interrupted = True
            stats["nodes"] = sum(x.nodes for x in searches)
            s = max(searches, key=lambda x: x.deepest)
            partial = _board_from(sp, *s.partial(sp.puzzle.n_cells)) if s.deepest and board is None else None
        return status, board, interrupted, partial

    def _restart(self, sp: Subproblem, trees: list, threads: int, seed: int, unit: int, slice_nodes: int,
                 deadline: float | None, lookahead: bool, order: str, pick: bool, tick: _Ticker):
        """Randomised restarts (:class:`Restarts`) over ``threads`` processes; ``tick`` hears
        the nodes searched and the run reached as they go.

        Returns (status, board, nodes, interrupted, decided by, runs started, processes, the
        deepest partial fill)."""
        n_proc = _processes(threads)
        if n_proc == 1:
            R = Restarts(sp, trees, seed, unit, slice_nodes, lookahead, order, pick=pick)
            R.on_partial = tick.deeper.offer_fill
            nodes = started = 0

            def report(k: int) -> None:
                nonlocal nodes
                nodes += k
                tick(nodes, started, deepest=R.deepest)

            def on_run(i: int) -> None:
                nonlocal started
                started = i

            def deepest_fill() -> Board | None:
                return None if R.partial is None else _board_from(sp, *R.partial)

            try:
                kind, i, s, tree = R.until_decided(itertools.count(1), deadline, report, on_run)
            except KeyboardInterrupt:
                return Status.UNKNOWN, None, nodes, True, None, started, 1, deepest_fill()
            if kind == "solution":
                return Status.OPTIMAL, s.board(sp), nodes, False, _describe_run(i, tree, s), i, 1, None
            if kind == "infeasible":
                return Status.INFEASIBLE, None, nodes, False, _describe_run(i, tree, s), i, 1, None
            return Status.UNKNOWN, None, nodes, False, None, i, 1, deepest_fill()

        procs, out, counts, working, deepest, partials = _start_processes(
            sp, n_proc, _restart_child,
            lambda k, out, counts, working, deepest, partials: (sp, trees, seed, unit, slice_nodes, deadline, k, n_proc,
                                                                out, counts, working, deepest, partials, lookahead,
                                                                order, pick))
        decisive: dict[int, tuple] = {}  # run -> (kind, piece, rotation, description)
        stopped: set[int] = set()
        interrupted = False
        try:
            while True:
                try:
                    check_interrupt()
                    kind, i, piece, rot, desc = out.get(timeout=0.1)
                    stopped.add((i - 1) % n_proc)
                    if kind != "timeout":
                        decisive[i] = (kind, piece, rot, desc)
                except queue.Empty:
                    if not any(p.is_alive() for p in procs) and out.empty():
                        break
                tick(sum(counts), max(working), deepest=max(deepest))
                tick.deeper.offer_shared(max(deepest), partials)
                if decisive:
                    first = min(decisive)
                    owner = (first - 1) % n_proc
                    # settled once every other process has finished its runs below ``first``
                    if all(k == owner or k in stopped or working[k] > first for k in range(n_proc)):
                        break
                if len(stopped) == n_proc:
                    break
        except KeyboardInterrupt:
            interrupted = True
        finally:
            with held_interrupts() as held:  # what the processes found outlives a second Ctrl-C
                _end_processes(procs)
                tick(sum(counts), max(working), deepest=max(deepest))
                partial = partials.deepest(sp)
        interrupted = interrupted or held.seen
        runs = int(max(working))
        nodes = int(sum(counts))
        if decisive:
            first = min(decisive)
            kind, piece, rot, desc = decisive[first]
            if kind == "infeasible":
                return Status.INFEASIBLE, None, nodes, interrupted, desc, runs, n_proc, None
            return Status.OPTIMAL, _board_from(sp, piece, rot), nodes, interrupted, desc, runs, n_proc, None
        timed_out = deadline is not None and time.monotonic() >= deadline
        if not interrupted and not timed_out and len(stopped) < n_proc:
            _raise_crash(procs)
        return Status.UNKNOWN, None, nodes, interrupted, None, runs, n_proc, partial

    def _race_processes(self, sp: Subproblem, trees: list, threads: int, slice_nodes: int, deadline: float | None,
                        lookahead: bool, tick: _Ticker):
        n_proc = min(_processes(threads), len(trees))
        groups = [trees[i::n_proc] for i in range(n_proc)]
        procs, out, counts, _, deepest, partials = _start_processes(
            sp, n_proc, _race_child,
            lambda i, out, counts, working, deepest, partials: (sp, groups[i], slice_nodes, deadline, out, counts,
                                                                deepest, i, partials, lookahead))
        status, board, interrupted, decided_by = Status.UNKNOWN, None, False, None
        answers = 0
        try:
            while answers < len(procs):
                tick(sum(counts), deepest=max(deepest))
                tick.deeper.offer_shared(max(deepest), partials)
                try:
                    check_interrupt()
                    kind, piece, rot, winner = out.get(timeout=0.2)
                except queue.Empty:
                    if not any(p.is_alive() for p in procs) and out.empty():
                        break
                    continue
                answers += 1
                decided_by = winner
                if kind == "solution":
                    board = _board_from(sp, piece, rot)
                    status = Status.OPTIMAL
                    break
                if kind == "infeasible":
                    status = Status.INFEASIBLE
                    break
        except KeyboardInterrupt:
            interrupted = True
        finally:
            with held_interrupts() as held:  # as in _restart
                _end_processes(procs)
                tick(sum(counts), deepest=max(deepest))
                partial = partials.deepest(sp) if status is Status.UNKNOWN else None
        interrupted = interrupted or held.seen
        timed_out = deadline is not None and time.monotonic() >= deadline
        if status is Status.UNKNOWN and not interrupted and not timed_out and answers < len(procs):
            _raise_crash(procs)
        return status, board, int(sum(counts)), interrupted, decided_by, partial

    def _count(self, sp: Subproblem, formulation: str, limit: int | None, time_limit: float | None, keep: int,
               options: dict[str, Any]) -> CountResult:
        _, slice_nodes, scans, _, _, lookahead, _, _ = self._check_options(options, counting=True)
        # one complete search, pinning the first corner piece (the shared symmetry breaking)
        s = _searches(sp, race_trees(sp, scans, race=False), keep=max(keep, 1), lookahead=lookahead)[0]
        deadline = None if time_limit is None else time.monotonic() + time_limit
        stop_at = 0 if limit is None else int(limit)
        tick = _Ticker(self.progress)
        try:
            while not s.done:
                s.step(slice_nodes, stop_at)
                check_interrupt()
                tick(s.nodes, solutions=s.solutions)
                if stop_at and s.solutions >= stop_at:
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    break
        except KeyboardInterrupt:
            pass
        boards = [s.board(sp, k) for k in range(min(keep, s.solutions))]
        return CountResult(s.solutions, bool(s.done), boards=boards, stats={"nodes": s.nodes})
