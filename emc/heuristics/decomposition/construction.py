"""Constructive heuristics over a region decomposition (Salassa et al., seed 000, sections
3.1 and 3.2).

The board is cut into regions (:func:`regions`): bands of rows across the board or
rectangles. The **greedy** heuristic (Algorithm 1) solves the regions one after the other,
each as an optimisation sub-problem: fill the region with unused pieces (more pieces than
cells, each used at most once) matching as many edges as possible inside the region and
towards the regions already placed. The **backtracking** heuristic (Algorithm 2) asks every
region to match perfectly (a feasibility sub-problem); when a region cannot, it returns to
the previous region and excludes that region's last answer with the no-good cut (17), and
when its time is up it finishes the board greedily from the deepest partial board reached.

Frame fitting keeps the piece classes right: a frame cell only takes a corner or edge piece
in the rotation that shows the border colour to the frame, an inner cell only an inner
piece, so whatever a region takes, the unused pieces always fit the cells still empty.

Any backend that can optimise (or, for backtracking, decide feasibility) works; the default
("auto") is the first installed of HiGHS, CBC and CP-SAT, fastest first on these regions. Each region solve gets, as its hint, the fill of a compiled greedy rule (the
best-matching piece cell by cell); if the solver gives no answer within its time limit, or
a worse one than that fill, the fill is used instead, so a board is always produced. Which
of the two filled each region is recorded.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...runtime import time_limit_seconds as seconds
from ...errors import InputError, UnknownNameError, read_whole, shorten
from ...model import Board, Goal, Puzzle, Subproblem, require_puzzle, require_seed
from ... import runtime
from ...backends import pick_backend
from . import kernels as K

ORDERS = ("row-major", "column-major", "snake")


def regions(puzzle: Puzzle, spec: str = "1xW", order: str = "row-major", clamp: bool = True) -> list[np.ndarray]:
    """Cut the board into rectangles of ``spec`` cells, listed in ``order``.

    Args:
        spec: ``"RxC"``: R rows by C columns; ``W`` stands for the board width and ``H`` for
            its height, so ``1xW`` is one row at a time, ``2xW`` two rows, ``Hx1`` one
            column, ``4x4`` squares. Rectangles on the last rows/columns are cut short when
            the size does not divide the board.
        order: ``row-major`` (bands top to bottom, left to right inside a band),
            ``column-major`` (left to right, top to bottom inside), or ``snake`` (row-major
            with every other band right to left, so consecutive regions always touch).
        clamp: cut sizes larger than the board down to it; ``False`` refuses them
            (InputError), as the command line does.

    Returns:
        The regions, each a sorted array of 0-based cells.
    """
    if not isinstance(spec, str):  # None and the like: the message below would fail on them
        raise InputError(f"region {spec!r} is not ROWSxCOLS (e.g. 1xW, 2xW, 4x4, Hx1)")
    m = re.fullmatch(r"\s*([0-9]+|[wWhH])\s*[xX*]\s*([0-9]+|[wWhH])\s*", spec or "")
    if not m:
        raise InputError(f"region {shorten(spec)!r} is not ROWSxCOLS (e.g. 1xW, 2xW, 4x4, Hx1)")

    def size(tok: str) -> int:
        t = tok.upper()
        v = puzzle.width if t == "W" else puzzle.height if t == "H" else read_whole(t, f"region {shorten(spec)!r}")
        if v < 1:
            raise InputError(f"region {spec!r}: sizes must be at least 1")
        return v

    rh, rw = size(m.group(1)), size(m.group(2))
    if not clamp and (rh > puzzle.height or rw > puzzle.width):
        raise InputError(f"region {spec!r} ({rh} row{'s' * (rh != 1)} by {rw} column{'s' * (rw != 1)}) is larger than the "
                         f"{puzzle.size} board ({puzzle.height} row{'s' * (puzzle.height != 1)} by {puzzle.width} "
                         f"column{'s' * (puzzle.width != 1)}); a region is ROWSxCOLS, W and H stand for the board's width "
                         "and height (HxW: the whole board)")
    rh, rw = min(rh, puzzle.height), min(rw, puzzle.width)
    if order not in ORDERS:
        raise UnknownNameError("region order", order, ORDERS)
    W, H = puzzle.width, puzzle.height
    tops = list(range(0, H, rh))
    lefts = list(range(0, W, rw))
    rects: list[tuple[int, int]] = []
    if order == "column-major":
        rects = [(t, l) for l in lefts for t in tops]
    else:
        for i, t in enumerate(tops):
            row = lefts if (order == "row-major" or i % 2 == 0) else lefts[::-1]
            rects += [(t, l) for l in row]
    out = []
    for t, l in rects:
        rr, cc = np.meshgrid(np.arange(t, min(t + rh, H)), np.arange(l, min(l + rw, W)), indexing="ij")
        out.append(np.sort((rr * W + cc).ravel()).astype(np.int64))
    return out


@dataclass
class RegionRecord:
    """What happened to one region solve."""

    index: int
    cells: int
    status: str
    objective: int | None
    max_score: int
    time: float
    backend: str
    filled_by: str  # "solver" or "fallback" (the compiled greedy rule)
    phase: str = "greedy"


@dataclass
class ConstructResult:
    """Outcome of :func:`greedy` or :func:`backtracking`.

    Attributes:
        board: the complete board.
        score: its score.
        method: ``greedy``, ``backtracking`` or ``random`` (:func:`construct` with a random start).
        region: the region spec, and ``order`` (``None`` for a random start, which builds none).
        elapsed: seconds.
        records: one :class:`RegionRecord` per solver call, then (greedy cut short by its time
            limit or Ctrl-C) one per region the compiled rule filled (status ``time-limit`` or
            ``interrupted``, backend ``-``, with the region's score and maximum).
        depth: (backtracking) the most regions matched perfectly in a row.
        solved: (backtracking) every region matched: the board is a full solution.
        backtracks: (backtracking) how many times a region's answer was cut off.
        timed_out: the time limit stopped the (backtracking or greedy) phase.
        time_limit: seconds the construction was given (backtracking: its backtracking
            phase); None: no limit.
        finish_time_limit: (backtracking) seconds its greedy finish was given at most.
    """

    board: Board
    score: int
    method: str
    region: str | None
    order: str | None
    elapsed: float
    records: list[RegionRecord] = field(default_factory=list)
    depth: int = 0
    solved: bool = False
    backtracks: int = 0
    timed_out: bool = False
    interrupted: bool = False
    time_limit: float | None = None
    finish_time_limit: float | None = None

    def as_dict(self) -> dict:
        return {
            "method": self.method, "region": self.region, "order": self.order, "score": self.score,
            "time_limit": _rounded(self.time_limit), "finish_time_limit": _rounded(self.finish_time_limit),
            "elapsed": round(self.elapsed, 4), "depth": self.depth, "solved": self.solved,
            "backtracks": self.backtracks, "timed_out": self.timed_out, "interrupted": self.interrupted,
            "regions": [vars(r) for r in self.records],
        }


class _Builder:
    """Shared machinery: the board under construction, solver calls and the fallback fill."""

    def __init__(self, puzzle: Puzzle, backend: str, threads: int, seed: int, region_time_limit: float | None,
                 deadline: float, on_region: Callable[[RegionRecord, Board], None] | None, options: dict):
        from ...backends import get_backend

        self.puzzle = puzzle
        self.backend_name = backend
        self.backend = get_backend(backend)
        self.backend.require()
        self.threads = threads
        self.rng = np.random.default_rng(seed)
        self.region_time_limit = region_time_limit
        self.deadline = deadline
        self.limit_is_deadline = False  # see limit()
        self.on_region = on_region
        self.options = options
        self.records: list[RegionRecord] = []
        self.current: Board | None = None  # greedy: the board after the last region placed
        self.cut_option = "cuts"
        self.colours = np.ascontiguousarray(puzzle.colours, dtype=np.int32)
        self.neighbours = np.ascontiguousarray(puzzle.neighbours, dtype=np.int32)
        self.fits = np.ascontiguousarray(puzzle.fits, dtype=np.uint8)

    def time_left(self) -> float:
        return self.deadline - time.perf_counter()

    def limit(self, deadline: float | None = None) -> float | None:
        d = self.deadline if deadline is None else deadline
        left = d - time.perf_counter()
        if left == float("inf"):
            self.limit_is_deadline = False
            return self.region_time_limit
        left = max(left, 0.05)
        # whether this call's limit is what the construction has left (an answer cut short by it
        # is the construction's time running out, not a region that cannot be matched)
        self.limit_is_deadline = self.region_time_limit is None or left <= self.region_time_limit
        return left if self.region_time_limit is None else min(self.region_time_limit, left)

    def subproblem(self, board: Board, cells: np.ndarray, goal: Goal) -> Subproblem | None:
        free = cells[board.piece[cells] < 0]  # hint cells are already filled
        if len(free) == 0:
            return None
        used = np.zeros(self.puzzle.n_pieces, dtype=bool)
        used[board.piece[board.piece >= 0]] = True
        unused = np.flatnonzero(~used)
        # Only pieces that fit some free cell of the region: the rest cannot be used there.
        useful = unused[self.puzzle.fits[np.ix_(unused, free)].any(axis=(1, 2))]
        return Subproblem(self.puzzle, board, free, useful, goal, name=f"{self.puzzle.name}-region")

    def fallback(self, board: Board, cells: np.ndarray) -> Board:
        """Fill the empty ``cells`` with the compiled greedy rule (best piece cell by cell)."""
        out = board.copy()
        used = np.zeros(self.puzzle.n_pieces, dtype=bool)
        used[out.piece[out.piece >= 0]] = True
        pieces = np.flatnonzero(~used).astype(np.int64)
        left = K.fill_greedy(self.colours, self.neighbours, self.fits, out.piece, out.rotation,
                             np.asarray(cells, dtype=np.int64), pieces)
        if left:
            raise InputError(f"{left} cells cannot take any remaining piece (the puzzle's piece classes do not fit the board)")
        return out

    def fill_rest(self, board: Board, regs: list[np.ndarray], status: str, phase: str = "greedy") -> Board:
        """The compiled rule fills the empty cells of ``regs``, listed as one record per region
        it filled (``status``: why: ``time-limit`` or ``interrupted``), each with its score and
        maximum: the edges inside it and towards the cells filled before it."""
        rest = [(j, r[board.piece[r] < 0]) for j, r in enumerate(regs)]
        rest = [(j, c) for j, c in rest if c.size]
        if not rest:
            return board
        out = self.fallback(board, np.concatenate([c for _, c in rest]))
        for k, (j, cells) in enumerate(rest):
            seen = out.copy()  # the board as region j found it, filled by the rule: later regions empty
            for _, later in rest[k + 1:]:
                seen.clear(later)
            sp = Subproblem.region(self.puzzle, seen, cells)
            self.records.append(RegionRecord(j, int(cells.size), status, sp.score(seen), sp.max_score, 0.0, "-",
                                             "fallback", phase))
        return out

    def solve(self, index: int, board: Board, cells: np.ndarray, goal: Goal, phase: str,
              cuts: list[Board] | None = None, deadline: float | None = None):
        """One region solve. Returns ``(status, board or None)``."""
        sp = self.subproblem(board, cells, goal)
        if sp is None:
            return "optimal", board
        hint = None
        if goal is Goal.OPTIMISATION:
            hint = self.fallback(board, sp.free)
        opts = dict(self.options)
        if cuts:
            opts[self.cut_option] = cuts
        t = time.perf_counter()
        try:
            res = self.backend.solve(sp, time_limit=self.limit(deadline), threads=self.threads,
                                     seed=int(self.rng.integers(0, 2**31 - 1)), hint=hint, **opts)
        except InputError as exc:
            if cuts and self.cut_option in str(exc):
                raise InputError(f"backend {self.backend_name!r} does not take no-good cuts (option "
                                 f"{self.cut_option!r}), which backtracking needs; use cpsat, cbc or highs") from None
            raise
        elapsed = time.perf_counter() - t
        out = res.board if res.status.has_board else None
        filled_by = "solver"
        if goal is Goal.OPTIMISATION and (out is None or sp.score(hint) > sp.score(out)):
            # no answer in time, or a worse one than the compiled rule's fill
            out, filled_by = hint, "fallback"
        rec = RegionRecord(index, int(sp.n_free), res.status.value, None if out is None else sp.score(out),
                           sp.max_score, round(elapsed, 4), res.backend, filled_by if out is not None else "-", phase)
        self.records.append(rec)
        if out is not None and goal is Goal.OPTIMISATION:
            self.current = out  # recorded and kept together (a Ctrl-C from here on keeps it)
        if runtime.raised():  # the backend swallowed Ctrl-C: keep its answer, then stop
            raise KeyboardInterrupt
        if self.on_region is not None:
            self.on_region(rec, out if out is not None else board)
        return res.status.value, out

    def greedy_from(self, board: Board, regs: list[np.ndarray], start: int = 0) -> tuple[Board, bool]:
        """Algorithm 1 from region ``start`` on; past the deadline the compiled rule fills the rest."""
        timed_out = False
        for i in range(start, len(regs)):
            cells = regs[i]
            if not (board.piece[cells] < 0).any():
                continue
            if self.time_left() <= 0:
                return self.fill_rest(board, regs, "time-limit"), True
            status, board = self.solve(i, board, cells, Goal.OPTIMISATION, "greedy")
            self.current = board
            if status != "optimal" and self.time_left() <= 0:
                timed_out = True  # the construction's time limit cut this region's solve
        return board, timed_out


def _finish(puzzle: Puzzle, board: Board, method: str, region: str, order: str, t0: float,
            b: _Builder, **kw) -> ConstructResult:
    from ...score import score, verify

    rep = verify(puzzle, board)
    if not rep.valid:  # every step is checked, so this would be a bug in emc
        raise AssertionError(f"construction produced an invalid board: {rep.problems[0]}")
    return ConstructResult(board, score(puzzle, board), method, region, order, time.perf_counter() - t0, b.records, **kw)


def greedy(
    puzzle: Puzzle,
    backend: str = "auto",
    region: str = "1xW",
    order: str = "row-major",
    time_limit: float | None = None,
    region_time_limit: float | None = None,
    threads: int = 1,
    seed: int = 0,
    on_region: Callable[[RegionRecord, Board], None] | None = None,
    **options,
) -> ConstructResult:
    """The MILP-based greedy heuristic (Algorithm 1) with any optimisation backend.

    Args:
        puzzle: the puzzle (its hints are placed first and never moved).
        backend: backend name (see ``emc backends``); ``"auto"``: the first installed of
            highs, cbc and cpsat, fastest first on these regions (as the commands choose).
        region, order: the decomposition (see :func:`regions`).
        time_limit: seconds for the whole construction; regions still empty when it runs out
            are filled by the compiled greedy rule (``None``: no limit).
        region_time_limit: seconds per region solve (``None``: solve each to optimality).
        threads, seed: solver settings (1 thread and a fixed seed give repeatable runs).
        on_region: called after every region solve with its record and the board so far.
        options: passed to the backend's ``solve``.
    """
    require_puzzle(puzzle, "greedy")
    seed = require_seed(seed, "greedy")
    t0 = time.perf_counter()
    backend = pick_backend(backend)
    time_limit, region_time_limit = seconds(time_limit), seconds(region_time_limit)  # InputError for -1
    deadline = t0 + time_limit if time_limit is not None else float("inf")
    regs = regions(puzzle, region, order)
    b = _Builder(puzzle, backend, threads, seed, region_time_limit, deadline, on_region, options)
    interrupted = False
    board = b.current = Board.from_hints(puzzle)
    with runtime.sigint_guard():
        try:
            board, timed_out = b.greedy_from(board, regs)
        except KeyboardInterrupt:
            interrupted, timed_out = True, False
            board = b.fill_rest(b.current, regs, "interrupted")
    return _finish(puzzle, board, "greedy", region, order, t0, b, timed_out=timed_out, interrupted=interrupted,
                   time_limit=time_limit)


def backtracking(
    puzzle: Puzzle,
    backend: str = "auto",
    region: str = "1xW",
    order: str = "row-major",
    time_limit: float | None = 60.0,
    region_time_limit: float | None = None,
    greedy_time_limit: float | None = None,
    threads: int = 1,
    seed: int = 0,
    on_region: Callable[[RegionRecord, Board], None] | None = None,
    cut_option: str = "cuts",
    **options,
) -> ConstructResult:
    """The MILP-based backtracking heuristic (Algorithm 2) with any feasibility backend that
    accepts no-good cuts.

    Each region must match perfectly, internally and towards the regions placed before it.
    When a region has no such fill, the search goes back one region and asks it for a
    different perfect fill, cutting off each answer already tried there (cut (17): at least
    one of its placements must change); the cuts of a region are forgotten when the search
    backs up past it, since they only hold for the fills before it. A region whose solve
    ends without an answer (its time limit) is treated as having none. When ``time_limit``
    is up, the deepest partial board reached (most regions matched; the first such board)
    is completed by the greedy heuristic, as in the paper.

    Args:
        time_limit: seconds of backtracking before the greedy completion (``None``: until
            the puzzle is solved or proven to have no solution with these regions).
        region_time_limit: seconds per feasibility solve.
        greedy_time_limit: seconds for the greedy completion (``None``: no limit).
        cut_option: the keyword the backend takes its list of cut boards under.
        options: passed to every backend call.

    See :func:`greedy` for the other arguments.
    """
    require_puzzle(puzzle, "backtracking")
    seed = require_seed(seed, "backtracking")
    t0 = time.perf_counter()
    backend = pick_backend(backend)
    time_limit, region_time_limit = seconds(time_limit), seconds(region_time_limit)  # InputError for -1
    bt_deadline = t0 + time_limit if time_limit is not None else float("inf")
    regs = regions(puzzle, region, order)
    b = _Builder(puzzle, backend, threads, seed, region_time_limit, bt_deadline, on_region, options)
    b.cut_option = cut_option
    board = Board.from_hints(puzzle)
    cuts: list[list[Board]] = [[] for _ in regs]
    stack: list[Board] = [board]  # stack[i]: board with regions 0..i-1 placed
    deepest, deepest_board = 0, board
    backtracks = 0
    timed_out = interrupted = False
    level = 0
    guard = runtime.sigint_guard()
    guard.__enter__()
    try:
        while level < len(regs):
            if time.perf_counter() >= bt_deadline:
                timed_out = True
                break
            base = stack[level]
            status, out = b.solve(level, base, regs[level], Goal.FEASIBILITY, "backtracking",
                                  cuts=cuts[level], deadline=bt_deadline)
            if out is not None:
                stack.append(out)
                level += 1
                if level > deepest:
                    deepest, deepest_board = level, out
                continue
            if status == "unknown" and (b.limit_is_deadline or time.perf_counter() >= bt_deadline):
                timed_out = True  # cut short by the construction's time (a solver may stop a little early)
                break
            # No perfect fill of this region on top of the current prefix: back up one region.
            cuts[level] = []
            if level == 0:
                break  # every first-region fill has been cut off: no solution with these regions
            level -= 1
            cuts[level].append(stack.pop())
            backtracks += 1
    except KeyboardInterrupt:
        interrupted = True
    solved = level == len(regs)
    board = stack[-1] if solved else deepest_board
    b.deadline = time.perf_counter() + greedy_time_limit if greedy_time_limit is not None else float("inf")
    try:
        if not solved:
            b.current = board
            if not interrupted:
                try:
                    board, _ = b.greedy_from(board, regs, deepest)
                except KeyboardInterrupt:
                    interrupted = True
            if interrupted:
                board = b.fill_rest(b.current, regs, "interrupted")
    finally:
        guard.__exit__(None, None, None)
    return _finish(puzzle, board, "backtracking", region, order, t0, b, depth=deepest, solved=solved,
                   backtracks=backtracks, timed_out=timed_out, interrupted=interrupted, time_limit=time_limit,
                   finish_time_limit=greedy_time_limit)


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 4)


def construct(puzzle: Puzzle, start: str = "greedy", seed: int = 0, **kw) -> ConstructResult:
    """``greedy``, ``backtracking`` or ``random`` start (random: a random valid board)."""
    require_puzzle(puzzle, "construct")
    seed = require_seed(seed, "construct")
    if start == "greedy":
        kw.pop("greedy_time_limit", None)
        return greedy(puzzle, seed=seed, **kw)
    if start == "backtracking":
        return backtracking(puzzle, seed=seed, **kw)
    if start == "random":
        from ...score import score
        from ..core.starts import random_board

        if kw:  # refused, not ignored, as the commands refuse them
            raise InputError(f"a random start builds no regions and calls no backend: it takes no "
                             f"{', '.join(sorted(kw))}")

        t0 = time.perf_counter()
        board = random_board(puzzle, seed)
        return ConstructResult(board, score(puzzle, board), "random", None, None, time.perf_counter() - t0)
    raise UnknownNameError("start", start, ["greedy", "backtracking", "random"])
