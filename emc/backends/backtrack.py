"""Backend ``backtrack``: a compiled scan-row depth-first search.

This is the direct search puzzle solvers run (Verhaard's eii, seed 001, and most Eternity II
programs): visit the free cells row by row and try, at each cell, every unused piece and
rotation whose top and left sides match what is already on the board. With a precomputed
table of candidates per (frame sides, top colour, left colour) a node costs a few memory
reads, and the search runs at millions of nodes per second (:mod:`._backtrack_kernel`).

It answers feasibility (a perfect fill, or a proof that none exists) and counts solutions;
it does not optimise.

Race. On a whole puzzle without hints, every solution can be turned so that any chosen corner
piece sits on the top-left cell (square boards) or on a top corner (rectangular boards).
Pinning a different corner piece there gives a different but equally complete search: each
finds a solution if there is one and each proves infeasibility alone. Visiting the cells
column by column instead of row by row (the top and left neighbours still come first) gives
another. Their sizes differ by large factors (set 2's 7x7, nodes to the first solution: rows
5.8, 36.7, 1.6, 36.7 million for the four corner pieces; columns 16.3, 7.2, 6.7, 3.6
million; diagonal and two-row band orders, also valid, made trees 2 to 10 times larger on
set 2's 6x6, 7x6 and 7x7), so by default the eight are run side by side in slices of a few
million nodes, spread over ``threads`` processes; the first to finish answers. A sub-problem races its two
scan orders. Counting pins the first corner piece of the file on a row-by-row scan, the
symmetry breaking every backend shares, so counts agree across backends.

Options: ``race`` (default True; False runs only the first search: row by row, first corner
piece pinned), ``scan`` (``both``, default, ``rows`` or ``cols``), ``slice_nodes`` (nodes per
slice, default 4,000,000).
"""

from __future__ import annotations

import importlib.util
import multiprocessing as mp
import queue
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import InputError
from ..model import BOTTOM, LEFT, OPPOSITE, RIGHT, TOP, Board, PieceClass, Subproblem
from .base import Backend, Capability, CountResult, Result, Status, check_options

SLICE_NODES = 4_000_000
_OPTIONS = {"race", "slice_nodes", "scan"}


@dataclass
class Plan:
    """Arrays the kernel reads: a sub-problem laid out in visiting order."""

    order: np.ndarray
    kind: np.ndarray
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


def make_plan_order(sp: Subproblem, scan: str = "rows") -> np.ndarray:
    """The free cells row by row (``scan="rows"``) or column by column (``"cols"``); either
    way a cell's top and left neighbours come before it."""
    order = np.array(sp.free, dtype=np.int64)  # sorted: row-major
    w = sp.puzzle.width
    r, c = order // w, order % w
    if scan == "rows":
        return order
    if scan == "cols":
        return order[np.lexsort((r, c))]
    raise InputError(f"unknown scan order {scan!r} (choose from: rows, cols)")


def make_plan(sp: Subproblem, scan: str = "rows") -> Plan:
    """Lay out ``sp`` for the kernel in the given scan order (see :func:`make_plan_order`)."""
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

    # Candidate table: every allowed (piece, rotation) under its exact key, and under the
    # keys with "any" top and/or left, grouped by key and then by piece and rotation.
    pieces = np.array(sp.pieces, dtype=np.int64)
    cols = P.colours[pieces].astype(np.int64)  # (m, 4 rot, 4 side)
    pp = np.repeat(pieces, 4)
    kk = np.tile(np.arange(4), len(pieces))
    shown = cols.reshape(-1, 4)
    mask = ((shown == 0) * (1 << np.arange(4))).sum(axis=1)
    top, left = shown[:, TOP], shown[:, LEFT]
    keys, ps, rs = [], [], []
    for t_any in (False, True):
        for l_any in (False, True):
            t = np.where(t_any, ANY, top)
            lf = np.where(l_any, ANY, left)
            # "any" only stands for a non-border colour
            ok = np.ones(len(pp), dtype=bool)
            if t_any:
                ok &= top != 0
            if l_any:
                ok &= left != 0
            keys.append(((mask * C1 + t) * C1 + lf)[ok])
            ps.append(pp[ok])
            rs.append(kk[ok])
    key = np.concatenate(keys)
    cp = np.concatenate(ps)
    cr = np.concatenate(rs)
    srt = np.lexsort((cr, cp, key))
    key, cp, cr = key[srt], cp[srt], cr[srt]
    n_keys = 16 * C1 * C1
    start = np.searchsorted(key, np.arange(n_keys + 1)).astype(np.int64)
    allowed = np.zeros(P.n_pieces, dtype=bool)
    allowed[pieces] = True
    cp, cr = cp.astype(np.int64), cr.astype(np.int64)
    colours = np.ascontiguousarray(P.colours, dtype=np.int64)
    return Plan(order, kind, top_src, left_src, top_fix, left_fix, right_fix, bottom_fix, C1, start, cp, cr,
                colours[cp, cr, RIGHT].copy(), colours[cp, cr, BOTTOM].copy(), allowed)


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
        self.pos = np.zeros(max(n, 1), dtype=np.int64)
        self.end = np.zeros(max(n, 1), dtype=np.int64)
        self.piece = np.full(max(n, 1), -1, dtype=np.int64)
        self.cidx = np.zeros(max(n, 1), dtype=np.int64)
        self.state = np.zeros(8, dtype=np.int64)
        self.sol_piece = np.zeros((max(keep, 1), max(n, 1)), dtype=np.int64)
        self.sol_rot = np.zeros((max(keep, 1), max(n, 1)), dtype=np.int64)

    @property
    def nodes(self) -> int:
        return int(self.state[self.K.S_NODES])

    @property
    def solutions(self) -> int:
        return int(self.state[self.K.S_SOLUTIONS])

    @property
    def done(self) -> bool:
        return bool(self.state[self.K.S_DONE])

    def step(self, budget: int, stop_at: int) -> None:
        p = self.plan
        self.K.run(budget, stop_at, len(p.order), p.kind, p.top_src, p.left_src, p.top_fix, p.left_fix, p.right_fix,
                   p.bottom_fix, p.C1, p.start, p.cand_piece, p.cand_rot, p.cand_right, p.cand_bottom, self.pin_piece,
                   self.first_ok, self.pin_last,
                   self.used, self.pos, self.end, self.piece, self.cidx, self.state, self.sol_piece, self.sol_rot)

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


def _searches(sp: Subproblem, trees: list[Tree], keep: int = 1) -> list[Search]:
    plans: dict[str, Plan] = {}
    out = []
    for scan, piece, positions in trees:
        if scan not in plans:
            plans[scan] = make_plan(sp, scan)
        out.append(Search(plans[scan], piece, positions, keep=keep))
    return out


def _interleave(searches: list[Search], deadline: float | None, slice_nodes: int, stop_at: int,
                report: Callable[[int], None] | None = None) -> tuple[Search | None, bool]:
    """Run searches in turn, a slice each, until one finds ``stop_at`` solutions or finishes.

    Returns (the search that decided, timed out)."""
    while True:
        for s in searches:
            s.step(slice_nodes, stop_at)
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


def _race_child(sp: Subproblem, trees: list, slice_nodes: int, deadline: float | None, out, counts, slot: int) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    searches = _searches(sp, trees)

    def report(nodes: int) -> None:
        counts[slot] = nodes

    s, _ = _interleave(searches, deadline, slice_nodes, 1, report)
    if s is None:
        out.put(("timeout", None, None, None))
    elif s.solutions:
        b = s.board(sp)
        out.put(("solution", b.piece.copy(), b.rotation.copy(), _describe(trees[searches.index(s)], s)))
    else:
        out.put(("infeasible", None, None, _describe(trees[searches.index(s)], s)))


class BacktrackBackend(Backend):
    name = "backtrack"
    formulations = ("scan-row",)
    capabilities = frozenset({Capability.FEASIBILITY, Capability.ENUMERATION})
    install_hint = "pip install 'emc[fast]'"
    description = "compiled scan-row backtracking search (feasibility, counting); races corner pinnings and scan orders over the threads"

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

    @staticmethod
    def _check_options(options: dict[str, Any]) -> tuple[bool, int, tuple[str, ...]]:
        check_options("backtrack", options, _OPTIONS)
        slice_nodes = int(options.get("slice_nodes", SLICE_NODES))
        if slice_nodes < 1:
            raise InputError("slice_nodes must be positive")
        scan = str(options.get("scan", "both"))
        if scan not in ("both", "rows", "cols"):
            raise InputError(f"unknown scan {scan!r} for backend backtrack (choose from: both, rows, cols)")
        scans = ("rows", "cols") if scan == "both" else (scan,)
        return bool(options.get("race", True)), slice_nodes, scans

    def _solve(self, sp: Subproblem, formulation: str, time_limit: float | None, threads: int, seed: int,
               log_path: Path | None, hint: Board | None, on_improvement: Callable[[Board, int], None] | None,
               options: dict[str, Any]) -> Result:
        race, slice_nodes, scans = self._check_options(options)
        t0 = time.monotonic()
        deadline = None if time_limit is None else t0 + time_limit
        trees = race_trees(sp, scans, race)
        if len(trees) > 1:
            # the seed turns the order in which the searches take their slices
            k = seed % len(trees)
            trees = trees[k:] + trees[:k]
        stats: dict[str, Any] = {"free_cells": sp.n_free, "searches": len(trees)}
        interrupted = False
        if threads >= 2 and len(trees) >= 2:
            status, board, nodes, interrupted, decided_by = self._race_processes(sp, trees, threads, slice_nodes, deadline)
            stats["nodes"] = nodes
            if decided_by:
                stats["decided_by"] = decided_by
            stats["processes"] = min(threads, len(trees))
        else:
            searches = _searches(sp, trees)
            status, board = Status.UNKNOWN, None
            try:
                s, timed_out = _interleave(searches, deadline, slice_nodes, 1)
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
        elapsed = time.monotonic() - t0
        stats["nodes_per_second"] = int(stats["nodes"] / elapsed) if elapsed > 0 else 0
        if board is not None and on_improvement is not None:
            on_improvement(board, sp.max_score)
        if log_path is not None:
            from ..io import write_text

            write_text(log_path, "".join(f"{k}: {v}\n" for k, v in {"backend": "backtrack", "status": status.value,
                                                                     "seconds": round(elapsed, 3), **stats}.items()))
        return Result(status, board, sp.max_score if board is not None else None,
                      sp.max_score if board is not None else None, stats=stats, log_path=log_path,
                      interrupted=interrupted or (status is Status.UNKNOWN and deadline is not None))

    def _race_processes(self, sp: Subproblem, trees: list, threads: int, slice_nodes: int, deadline: float | None):
        n_proc = min(threads, len(trees))
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context("spawn")
        # Compile (or load) the kernel once here, so the forked children start searching at once.
        warm = Search(make_plan(sp))
        warm.step(0, 1)
        out = ctx.Queue()
        counts = ctx.Array("q", n_proc, lock=False)  # nodes searched so far, per process
        groups = [trees[i::n_proc] for i in range(n_proc)]
        procs = [ctx.Process(target=_race_child, args=(sp, g, slice_nodes, deadline, out, counts, i), daemon=True)
                 for i, g in enumerate(groups)]
        for p in procs:
            p.start()
        status, board, interrupted, decided_by = Status.UNKNOWN, None, False, None
        answers = 0
        try:
            while answers < len(procs):
                try:
                    kind, piece, rot, winner = out.get(timeout=0.2)
                except queue.Empty:
                    if not any(p.is_alive() for p in procs) and out.empty():
                        break
                    continue
                answers += 1
                decided_by = winner
                if kind == "solution":
                    board = sp.fixed.copy()
                    for cell in sp.free:
                        board.place(int(cell), int(piece[cell]), int(rot[cell]))
                    status = Status.OPTIMAL
                    break
                if kind == "infeasible":
                    status = Status.INFEASIBLE
                    break
        except KeyboardInterrupt:
            interrupted = True
        finally:
            for p in procs:
                if p.is_alive():
                    p.terminate()
            for p in procs:
                p.join(timeout=5)
        timed_out = deadline is not None and time.monotonic() >= deadline
        if status is Status.UNKNOWN and not interrupted and not timed_out and answers < len(procs):
            codes = sorted({p.exitcode for p in procs if p.exitcode})
            raise RuntimeError(f"a backtrack search process failed (exit code {', '.join(map(str, codes))})")
        return status, board, int(sum(counts)), interrupted, decided_by

    def _count(self, sp: Subproblem, formulation: str, limit: int | None, time_limit: float | None, keep: int,
               options: dict[str, Any]) -> CountResult:
        _, slice_nodes, scans = self._check_options(options)
        # one complete search, pinning the first corner piece (the shared symmetry breaking)
        s = _searches(sp, race_trees(sp, scans, race=False), keep=max(keep, 1))[0]
        deadline = None if time_limit is None else time.monotonic() + time_limit
        stop_at = 0 if limit is None else int(limit)
        try:
            while not s.done:
                s.step(slice_nodes, stop_at)
                if stop_at and s.solutions >= stop_at:
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    break
        except KeyboardInterrupt:
            pass
        boards = [s.board(sp, k) for k in range(min(keep, s.solutions))]
        return CountResult(s.solutions, bool(s.done), boards=boards, stats={"nodes": s.nodes})
