"""The five neighbourhoods of the multi-neighbourhood local search of Salassa, Vancroonenburg,
Wauters, Della Croce and Vanden Berghe (seed 000, section 3.3, Table 2).

* **TA** (tile assignment): K pieces on pairwise non-adjacent cells are lifted and put back
  by an optimal weighted bipartite assignment; cells are drawn with a probability that grows
  with their unmatched edges; frame and inner pieces are never mixed.
* **BO** (border optimisation): the frame ring is re-solved by an exact backend with every
  inner piece fixed.
* **BW** (black and white): TA on a whole checkerboard colour class at once, alternating
  the two classes until neither gains.
* **TSR** (tile swap and rotation): best-improvement swaps of two pieces of the same class,
  with every fitting rotation, to a local optimum.
* **RO** (region optimisation): a W x H window is re-solved exactly; by default through the
  maximum-clique formulation, whose holes are then completed by the chosen backend.

Every neighbourhood changes the board in place and never lowers its score. The pieces on
the puzzle's hint cells are never moved.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ...errors import InputError
from ...model import Board, Goal, PieceClass, Puzzle, Subproblem
from ... import runtime
from . import kernels as K

#: Order in which the paper cycles through the neighbourhoods (section 4).
PAPER_ORDER = ("TA", "BO", "BW", "TSR", "RO")

#: A weight that rules out a (piece, cell) pair in the assignment problems.
_FORBIDDEN = -(10**6)


class Context:
    """The arrays the kernels read, built once per puzzle.

    Attributes:
        puzzle: the puzzle.
        colours, neighbours: contiguous int32 copies of the puzzle's tables.
        fits: ``Puzzle.fits`` as uint8 (numba-friendly).
        movable: boolean per cell: False on hint cells, whose pieces never move.
        groups: movable cells per :class:`PieceClass` (corner, edge, inner).
        frame_cells, inner_cells: movable cells on the frame ring / inside it.
        colour_class: ``(row + col) % 2`` per cell, the checkerboard colour of BW.
    """

    def __init__(self, puzzle: Puzzle):
        self.puzzle = puzzle
        self.colours = np.ascontiguousarray(puzzle.colours, dtype=np.int32)
        self.neighbours = np.ascontiguousarray(puzzle.neighbours, dtype=np.int32)
        self.fits = np.ascontiguousarray(puzzle.fits, dtype=np.uint8)
        movable = np.ones(puzzle.n_cells, dtype=bool)
        for h in puzzle.hints:
            movable[h.cell] = False
        self.movable = movable
        cls = puzzle.cell_class
        self.groups = {k: np.flatnonzero((cls == k) & movable).astype(np.int64) for k in PieceClass}
        self.frame_cells = np.flatnonzero((cls > 0) & movable).astype(np.int64)
        self.inner_cells = np.flatnonzero((cls == 0) & movable).astype(np.int64)
        r, c = np.divmod(np.arange(puzzle.n_cells), puzzle.width)
        self.colour_class = ((r + c) % 2).astype(np.int8)
        order = [self.groups[PieceClass.CORNER], self.groups[PieceClass.EDGE], self.groups[PieceClass.INNER]]
        self.tsr_cells = np.concatenate(order).astype(np.int64)
        self.tsr_starts = np.cumsum([0] + [len(g) for g in order]).astype(np.int64)
        self.group_of = np.full(puzzle.n_cells, -1, dtype=np.int64)
        for g, cells in enumerate(order):
            self.group_of[cells] = g
        self._tsr_tables = None

    def tsr_tables(self):
        """Work arrays of the TSR move table (allocated once per puzzle)."""
        if self._tsr_tables is None:
            P = self.puzzle
            self._tsr_tables = (np.zeros((P.n_cells, P.n_pieces), dtype=np.int16),
                                np.zeros((P.n_cells, P.n_pieces), dtype=np.int16),
                                np.zeros(P.n_cells, dtype=np.int64))
        return self._tsr_tables

    def score(self, board: Board) -> int:
        return int(K.board_score(self.colours, self.neighbours, board.piece, board.rotation))

    def unmatched(self, board: Board) -> np.ndarray:
        return K.unmatched_sides(self.colours, self.neighbours, board.piece, board.rotation)


@dataclass
class Event:
    """One improvement of the search: when, the score after it, who made it, and the board
    (a copy, which the search does not change afterwards; ``None`` where none was given)."""

    time: float
    score: int
    neighbourhood: str
    board: Board | None = field(default=None, repr=False, compare=False)


@dataclass
class SearchState:
    """The board under search and everything the neighbourhoods share.

    The board is changed in place; :attr:`best` is a consistent copy taken after every
    improvement, so an interrupt in the middle of a move can never leave a broken board
    behind.

    Attributes:
        ctx: the :class:`Context`.
        board: the current board (complete and valid).
        score: its score, kept up to date by the neighbourhoods.
        rng: the random stream (``numpy.random.Generator``) of this run.
        backend: name of the exact backend BO and RO call (``None``: those neighbourhoods
            are skipped).
        threads: solver threads for backend calls.
        t0: start time (``time.perf_counter``) of the run, for the trajectory.
        on_event: called after every improvement with the :class:`Event`.
        trace: one dict per backend call (neighbourhood, backend, status, time), so a run
            records which solvers it reached.
        backend_options: extra options for every call of :attr:`backend` (not of the
            clique backend RO may use).
    """

    ctx: Context
    board: Board
    score: int
    rng: np.random.Generator
    backend: str | None = "cpsat"
    threads: int = 1
    t0: float = field(default_factory=time.perf_counter)
    on_event: Callable[[Event], None] | None = None
    events: list[Event] = field(default_factory=list)
    trace: list[dict] = field(default_factory=list)
    best: Board | None = None
    best_score: int = -1
    backend_options: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.best is None:
            self.best = self.board.copy()
            self.best_score = self.score

    def improved(self, neighbourhood: str) -> None:
        """Record the current board as the best one (call after a move that gained)."""
        if self.score <= self.best_score:
            return
        snapshot = self.board.copy()
        self.best = snapshot
        self.best_score = self.score
        ev = Event(time.perf_counter() - self.t0, self.score, neighbourhood)
        self.events.append(ev)  # without the board: a long run makes thousands of these
        if self.on_event is not None:
            self.on_event(Event(ev.time, ev.score, neighbourhood, snapshot))

    def solver_seed(self) -> int:
        return int(self.rng.integers(0, 2**31 - 1))

    def call_backend(self, neighbourhood: str, sp: Subproblem, time_limit: float | None, hint: Board | None = None,
                     backend: str | None = None, **options: Any):
        """Solve ``sp`` with the chosen backend and record the call in :attr:`trace`."""
        from ...backends import get_backend

        name = backend or self.backend
        if name == self.backend:
            options = {**self.backend_options, **options}
        res = get_backend(name).solve(sp, time_limit=time_limit, threads=self.threads, seed=self.solver_seed(),
                                      hint=hint, **options)
        rec = {"neighbourhood": neighbourhood, "backend": res.backend, "status": res.status.value,
               "objective": res.objective, "max": res.max_score, "time": round(res.wall_time, 4),
               "free_cells": int(sp.n_free)}
        if "completed_with" in res.stats:
            rec["completed_with"] = res.stats["completed_with"]
        self.trace.append(rec)
        runtime.check()  # a backend may have swallowed Ctrl-C
        return res


# ---------------------------------------------------------------------------------------
def reassign(state: SearchState, cells: np.ndarray, accept_equal: bool = False) -> int:
    """Lift the pieces on pairwise non-adjacent ``cells`` and put them back optimally.

    The weight of (piece, cell) is the best number of matched edges over the rotations that
    fit the cell; because no two cells touch, the total is the sum of the weights and the
    best reinsertion is a maximum-weight perfect assignment, solved by
    ``scipy.optimize.linear_sum_assignment``. The current placement is one assignment, so
    the optimum is never worse.

    Args:
        cells: pairwise non-adjacent, movable cells.
        accept_equal: also apply an optimum that only ties with the current score
            (a sideways move; it can change the board).

    Returns:
        The gain in score (>= 0); the board is changed only when it is applied.
    """
    from scipy.optimize import linear_sum_assignment

    cells = np.asarray(cells, dtype=np.int64)
    if len(cells) < 2:
        return 0
    ctx, b = state.ctx, state.board
    pieces = b.piece[cells].astype(np.int64)
    w, rot = K.assignment_weights(ctx.colours, ctx.neighbours, ctx.fits, b.piece, b.rotation, cells, pieces)
    current = 0
    for c in cells:
        current += K.cell_matches(ctx.colours, ctx.neighbours, b.piece, b.rotation, int(c), -1)
    cost = np.where(w >= 0, w, _FORBIDDEN)
    rows, cols = linear_sum_assignment(cost, maximize=True)
    best = int(cost[rows, cols].sum())
    gain = best - current
    if gain < 0:  # cannot happen: the current placement is feasible for the assignment
        raise AssertionError("assignment optimum below the current placement")
    if gain > 0 or (accept_equal and gain == 0):
        new_piece = pieces[rows]
        new_rot = rot[rows, cols]
        b.piece[cells[cols]] = new_piece
        b.rotation[cells[cols]] = new_rot
        state.score += gain
    else:
        gain = 0
    return int(gain)


class Neighbourhood:
    """A neighbourhood of the local search.

    Subclasses implement :meth:`run`, which improves ``state.board`` in place until the
    neighbourhood's own stopping rule or ``deadline`` (a ``time.perf_counter`` value), and
    returns the total gain.
    """

    name = ""
    words = ""  # what it does, for progress lines ("re-solving windows")
    needs_backend = False

    def run(self, state: SearchState, deadline: float) -> int:
        raise NotImplementedError

    def params(self) -> dict:
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}


class TileAssignment(Neighbourhood):
    """TA: ``n`` iterations of lifting ``k`` non-adjacent pieces and reinserting them optimally.

    Each iteration first picks the frame or the interior, with probability proportional to
    the total selection weight of its movable cells, then draws up to ``k`` pairwise
    non-adjacent cells of that part, each with probability proportional to
    ``1 + unmatched sides`` (so cells with many unmatched edges are lifted more often, as
    in Wauters et al.'s probabilistic TA, and perfect cells can still receive a piece).
    Frame pieces stay on the frame and inner pieces inside; corner and edge pieces cannot
    trade cells because no rotation fits.

    Args:
        k: pieces lifted per iteration (Table 2: 16).
        n: iterations per call (Table 2: 1000).
        accept_equal: apply reinsertions that tie with the current score (sideways moves
            that diversify the board; they never lower it).
    """

    name = "TA"
    words = "reinserting non-adjacent pieces"

    def __init__(self, k: int = 16, n: int = 1000, accept_equal: bool = True):
        if k < 2 or n < 1:
            raise InputError("TA needs k >= 2 pieces and n >= 1 iterations")
        self.k, self.n, self.accept_equal = int(k), int(n), bool(accept_equal)

    def select(self, state: SearchState) -> np.ndarray:
        """The cells one iteration lifts."""
        ctx = state.ctx
        um = ctx.unmatched(state.board)
        parts = [p for p in (ctx.inner_cells, ctx.frame_cells) if len(p) >= 2]
        if not parts:
            return np.empty(0, dtype=np.int64)
        weights = [float((1 + um[p]).sum()) for p in parts]
        x = state.rng.random() * sum(weights)
        part = parts[0] if x < weights[0] or len(parts) == 1 else parts[1]
        k = min(self.k, len(part))  # never more draws than cells (a huge --ta-k allocated gigabytes per move)
        u = state.rng.random(k)
        return K.sample_nonadjacent(ctx.neighbours, part, (1 + um[part]).astype(np.float64), k, u)

    def run(self, state: SearchState, deadline: float) -> int:
        total = 0
        for it in range(self.n):
            if (it & 15) == 0 and time.perf_counter() >= deadline:
                break
            cells = self.select(state)
            gain = reassign(state, cells, self.accept_equal)
            if gain > 0:
                total += gain
                state.improved(self.name)
        return total


class BlackWhite(Neighbourhood):
    """BW: reassign all pieces of one checkerboard colour at once, alternating colours.

    The cells of one colour are pairwise non-adjacent, so each colour is one assignment
    problem per part (frame cells and inner cells are solved separately). The two colours
    alternate until a full round (both colours) gains nothing, or ``max_rounds``.
    """

    name = "BW"
    words = "reinserting a checkerboard colour"

    def __init__(self, max_rounds: int = 1000):
        self.max_rounds = int(max_rounds)

    def run(self, state: SearchState, deadline: float) -> int:
        ctx = state.ctx
        parts = []
        for colour in (0, 1):
            for cells in (ctx.inner_cells, ctx.frame_cells):
                sel = cells[ctx.colour_class[cells] == colour]
                parts.append((colour, sel))
        total = 0
        idle = 0
        for _ in range(self.max_rounds):
            for colour in (0, 1):
                if time.perf_counter() >= deadline:
                    return total
                gain = 0
                for col, sel in parts:
                    if col == colour:
                        gain += reassign(state, sel, accept_equal=False)
                if gain > 0:
                    total += gain
                    state.improved(self.name)
                    idle = 0
                else:
                    idle += 1
                if idle >= 2:
                    return total
        return total


class SwapRotate(Neighbourhood):
    """TSR: steepest descent over all swaps of two same-class pieces and all rotations.

    Each step scans the whole neighbourhood with the compiled
    :func:`~emc.heuristics.decomposition.kernels.tsr_best_move` (constant-time deltas) and applies the
    best improving move, until none improves (a local optimum) or the deadline.
    """

    name = "TSR"
    words = "swapping and turning pieces"

    def __init__(self, max_moves: int = 1_000_000):
        self.max_moves = int(max_moves)

    def run(self, state: SearchState, deadline: float) -> int:
        ctx, b = state.ctx, state.board
        best_val, best_rot, cur = ctx.tsr_tables()
        args = (ctx.colours, ctx.neighbours, ctx.fits, b.piece, b.rotation, ctx.tsr_cells, ctx.tsr_starts,
                ctx.group_of, best_val, best_rot, cur)
        K.tsr_init(*args)
        total = 0
        moves = 0
        while moves < self.max_moves and time.perf_counter() < deadline:
            # Batches keep the deadline honoured; each move is applied whole.
            gain, made, done = K.tsr_steps(*args, min(64, self.max_moves - moves))
            moves += made
            if gain > 0:
                state.score += int(gain)
                total += int(gain)
                state.improved(self.name)
            if done:
                break
        return total


class BorderOptimisation(Neighbourhood):
    """BO: the frame ring re-optimised by the backend, every inner piece fixed.

    The sub-problem frees the movable frame cells with the pieces now on them; its counted
    edges are the frame-frame edges and the edges to the fixed inner ring, so its objective
    changes exactly as the board's score. The current board is passed as the solver hint.

    Args:
        time_limit: seconds per call (``None``: until proven optimal or the deadline).
    """

    name = "BO"
    words = "re-solving the frame"
    needs_backend = True

    def __init__(self, time_limit: float | None = 30.0):
        self.time_limit = time_limit

    def run(self, state: SearchState, deadline: float) -> int:
        if state.backend is None or len(state.ctx.frame_cells) < 2:
            return 0
        sp = Subproblem.region(state.ctx.puzzle, state.board, state.ctx.frame_cells, Goal.OPTIMISATION)
        return _resolve(state, self.name, sp, _limit(self.time_limit, deadline))


class RegionOptimisation(Neighbourhood):
    """RO: ``n`` random ``width`` x ``height`` windows, each re-solved exactly.

    ``method="clique"`` follows the paper: the window's placements that fit the fixed cells
    around it form the maximum-clique graph (the ``clique`` backend); a maximum clique is a
    perfectly matching partial fill, and the cells it leaves empty (holes) are then filled
    with the leftover pieces by the chosen optimisation backend, the clique's cells fixed.
    ``method="direct"`` solves the window as one optimisation sub-problem with the chosen
    backend (current board as hint); it is used automatically when the clique backend is
    not installed. A window is accepted only when it scores more.

    Args:
        width, height: window size (Table 2: 6 x 6); clipped to the board.
        n: windows per call (Table 2: 10).
        method: ``"clique"`` or ``"direct"``.
        time_limit: seconds per solver call.
        clique_options: extra options for the clique backend (e.g. ``max_steps``).
        accept_equal: adopt a window answer that only ties with the current one (a
            sideways move that changes the board without lowering its score).
    """

    name = "RO"
    words = "re-solving windows"
    needs_backend = True

    def __init__(self, width: int = 6, height: int = 6, n: int = 10, method: str = "clique",
                 time_limit: float | None = 10.0, clique_options: dict | None = None, accept_equal: bool = False):
        if width < 1 or height < 1 or n < 1:
            raise InputError("RO needs a window of at least 1x1 and n >= 1")
        if method not in ("clique", "direct"):
            raise InputError(f"unknown RO method {method!r} (choose from: clique, direct)")
        self.width, self.height, self.n, self.method, self.time_limit = int(width), int(height), int(n), method, time_limit
        self.clique_options = dict(clique_options or {})
        self.accept_equal = bool(accept_equal)
        self._clique_ok: bool | None = None

    def window(self, state: SearchState) -> np.ndarray:
        P = state.ctx.puzzle
        w, h = min(self.width, P.width), min(self.height, P.height)
        r0 = int(state.rng.integers(0, P.height - h + 1))
        c0 = int(state.rng.integers(0, P.width - w + 1))
        rr, cc = np.meshgrid(np.arange(r0, r0 + h), np.arange(c0, c0 + w), indexing="ij")
        cells = (rr * P.width + cc).ravel()
        return cells[state.ctx.movable[cells]]

    def use_clique(self) -> bool:
        if self.method != "clique":
            return False
        if self._clique_ok is None:
            from ...backends import BACKENDS, backend_class

            self._clique_ok = "clique" in BACKENDS and backend_class("clique").available()
        return self._clique_ok

    def run(self, state: SearchState, deadline: float) -> int:
        if state.backend is None:
            return 0
        total = 0
        for _ in range(self.n):
            if time.perf_counter() >= deadline:
                break
            cells = self.window(state)
            if len(cells) < 2:
                continue
            sp = Subproblem.region(state.ctx.puzzle, state.board, cells, Goal.OPTIMISATION)
            tl = _limit(self.time_limit, deadline)
            if self.use_clique() and state.backend != "clique":
                # The clique backend fills the holes of its clique with the chosen backend.
                total += _resolve(state, self.name, sp, tl, backend="clique", accept_equal=self.accept_equal,
                                  complete_with=state.backend, **self.clique_options)
            elif self.use_clique():
                total += _resolve(state, self.name, sp, tl, accept_equal=self.accept_equal, **self.clique_options)
            else:
                total += _resolve(state, self.name, sp, tl, accept_equal=self.accept_equal)
        return total


def _limit(per_call: float | None, deadline: float) -> float | None:
    left = deadline - time.perf_counter()
    if left == float("inf"):
        return per_call
    left = max(left, 0.05)
    return left if per_call is None else min(per_call, left)


def _adopt(state: SearchState, cand: Board, sp: Subproblem, gain: int) -> None:
    b = state.board
    free = sp.free
    b.piece[free] = cand.piece[free]
    b.rotation[free] = cand.rotation[free]
    state.score += int(gain)


def _resolve(state: SearchState, name: str, sp: Subproblem, time_limit: float | None, backend: str | None = None,
             accept_equal: bool = False, **options: Any) -> int:
    """Solve ``sp`` (hint: the current board) and adopt the answer when it scores more (or,
    with ``accept_equal``, as much: a sideways move)."""
    before = sp.score(state.board)
    if before == sp.max_score:
        return 0
    res = state.call_backend(name, sp, time_limit, hint=state.board, backend=backend, **options)
    if not res.status.has_board:
        return 0
    gain = int(res.objective) - before
    if gain > 0:
        _adopt(state, res.board, sp, gain)
        state.improved(name)
        return gain
    if gain == 0 and accept_equal:
        _adopt(state, res.board, sp, 0)
    return 0


NEIGHBOURHOODS: dict[str, type[Neighbourhood]] = {
    "TA": TileAssignment,
    "BO": BorderOptimisation,
    "BW": BlackWhite,
    "TSR": SwapRotate,
    "RO": RegionOptimisation,
}


def check_neighbourhood_names(names) -> None:
    """InputError for no names, an unknown one, or one listed twice (each runs once per cycle)."""
    from ...errors import UnknownNameError

    if not names:
        raise InputError("no neighbourhood given (choose from: " + ", ".join(NEIGHBOURHOODS) + ")")
    for i, n in enumerate(names):
        if n not in NEIGHBOURHOODS:
            raise UnknownNameError("neighbourhood", n, list(NEIGHBOURHOODS))
        if n in names[:i]:
            raise InputError(f"neighbourhood {n} is listed twice (each runs once per cycle, in the order given)")


def parse_neighbourhoods(text: str) -> list[str]:
    """``"TA,BO,BW"`` -> ``["TA", "BO", "BW"]``; see :func:`check_neighbourhood_names`."""
    names = [t.strip().upper() for t in text.split(",") if t.strip()]
    check_neighbourhood_names(names)
    return names
