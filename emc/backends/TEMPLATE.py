"""A complete, small backend to copy when adding a new one: exhaustive search in plain Python.

Adding a backend to emc takes this file, renamed and filled with the real solver (one module
per solver family: ``emc/backends/<family>.py``), and one line in
:data:`emc.backends.BACKENDS`::

    "exhaustive": "emc.backends.TEMPLATE:ExhaustiveBackend",

Nothing else changes: ``emc backends`` lists it with its install hint, ``emc solve -b`` and
``emc count -b`` take it, the heuristics accept it as their sub-problem solver when it can
optimise, and ``tests/test_agreement.py``, parametrised from the registry, checks it against
every other backend and against brute force. Its :attr:`Backend.priority` makes it a default
for the tasks it names (none here). ``tests/test_methods.py`` registers this class at run
time to show exactly that.

The contract (:class:`~emc.backends.base.Backend`):

* class attributes: ``name``, ``formulations`` (the first is the default), ``capabilities``,
  ``install_hint``, ``description``, ``options`` (every option name :meth:`solve` may get:
  anything else is refused listing these), ``priority`` (task -> rank, see
  :data:`emc.backends.TASKS`), ``exact_optimisation`` (False for a heuristic backend);
* :meth:`available` answers without importing the solver where it can
  (``importlib.util.find_spec``, ``shutil.which``); the solver itself is imported inside
  :meth:`_solve`, so that emc works without it;
* :meth:`_solve` honours ``time_limit`` (seconds, None for none, covering model building
  too: ``emc.runtime.limit_left``) and Ctrl-C (``KeyboardInterrupt``): both end the search
  and return the best board found with status FEASIBLE and ``interrupted=True`` (UNKNOWN
  without a board); it calls ``on_improvement(board, objective)`` for each better board and
  ``self.progress`` (through :class:`~emc.runtime.Throttled`) with a line now and then;
* a solver in a child process is started with :func:`emc.runtime.start_child` and runs
  :func:`emc.runtime.child_setup` first, so it leaves Ctrl-C to the parent and dies with it;
  C code that prints is wrapped by the base class (:func:`emc.runtime.c_stdout_to_stderr`);
* the base class checks every board a backend returns (:func:`emc.score.check_subproblem_solution`)
  and its claimed objective and bound, so a wrong answer is an error, never a result;
* :meth:`_count` (with ENUMERATION) counts perfect fills, stopping at ``limit``, the time limit
  or Ctrl-C (``complete=False`` then), keeping up to ``keep`` boards.

This one enumerates fills cell by cell with the placements :meth:`Subproblem.placements`
gives (frame-fitting turns, symmetry breaking applied): fine for a few free cells, hopeless
beyond.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..model import Board, Goal, Subproblem
from ..runtime import Throttled
from .base import Backend, Capability, CountResult, Result, Status


class ExhaustiveBackend(Backend):
    name = "exhaustive"
    formulations = ("direct",)
    capabilities = frozenset({Capability.FEASIBILITY, Capability.OPTIMISATION, Capability.ENUMERATION})
    install_hint = "nothing to install (plain Python)"
    description = "every fill in turn, in plain Python: a template for new backends, for tiny sub-problems only"
    options = frozenset()
    priority = {}  # a default for no task

    @classmethod
    def available(cls) -> bool:
        return True

    @classmethod
    def version(cls) -> str | None:
        return "1"

    def _solve(self, sp: Subproblem, formulation: str, time_limit: float | None, threads: int, seed: int,
               log_path: Path | None, hint: Board | None, on_improvement: Callable[[Board, int], None] | None,
               options: dict[str, Any]) -> Result:
        search = _Search(sp, time_limit, self.progress)
        best: list = [None, -1]

        def found(board: Board, score: int) -> bool:
            if score > best[1]:
                best[0], best[1] = board.copy(), score
                if on_improvement is not None:
                    on_improvement(best[0], score)
            # a feasibility search stops at the first perfect fill, an optimisation at a perfect one
            return score == sp.max_score

        finished = search.run(found, need_perfect=sp.goal is Goal.FEASIBILITY)
        stats = {"nodes": search.nodes}
        if best[0] is None:
            return Result(Status.INFEASIBLE if finished else Status.UNKNOWN, stats=stats, interrupted=not finished)
        proven = finished or best[1] == sp.max_score
        return Result(Status.OPTIMAL if proven else Status.FEASIBLE, board=best[0], objective=best[1],
                      bound=best[1] if proven else None, stats=stats, interrupted=not finished)

    def _count(self, sp: Subproblem, formulation: str, limit: int | None, time_limit: float | None, keep: int,
               options: dict[str, Any]) -> CountResult:
        search = _Search(sp, time_limit, self.progress)
        boards: list[Board] = []
        count = [0]

        def found(board: Board, score: int) -> bool:
            count[0] += 1
            if len(boards) < keep:
                boards.append(board.copy())
            return limit is not None and count[0] >= limit

        finished = search.run(found, need_perfect=True)
        return CountResult(count[0], finished and not (limit is not None and count[0] >= limit), boards=boards,
                           stats={"nodes": search.nodes})


class _Search:
    """Depth-first over the free cells in order; each cell tries its placements (pieces not yet
    used), keeping the matched counted edges towards cells already decided."""

    def __init__(self, sp: Subproblem, time_limit: float | None, progress):
        self.sp, self.P = sp, sp.puzzle
        self.deadline = None if time_limit is None else time.monotonic() + time_limit
        self.tick = Throttled(progress)
        self.nodes = 0
        pl = sp.placements()
        self.options = {int(c): [] for c in sp.free}
        for p, c, r in zip(pl.piece, pl.cell, pl.rotation):
            self.options[int(c)].append((int(p), int(r)))
        self.cells = [int(c) for c in sp.free]
        self.board = sp.fixed.copy()
        # open_before[i]: counted edges not yet decided when cell i is next (an edge is decided
        # once both its cells are: a fixed cell always is), so score + open_before[i] bounds a fill
        pos = np.full(self.P.n_cells, -1)
        pos[self.cells] = np.arange(len(self.cells))
        e = self.P.edges[sp.counted_edges()]
        last = np.maximum(pos[e[:, 0]], pos[e[:, 1]]) if len(e) else np.zeros(0, dtype=int)
        self.open_before = [int((last >= i).sum()) for i in range(len(self.cells) + 1)]

    def gain(self, cell: int, piece: int, rot: int) -> tuple[int, int]:
        """(matched, unmatched) counted edges towards the neighbours already decided."""
        P, b = self.P, self.board
        shown = P.colours[piece, rot]
        good = bad = 0
        for s in range(4):
            nb = int(P.neighbours[cell, s])
            if nb < 0 or b.piece[nb] < 0:
                continue
            theirs = P.colours[b.piece[nb], b.rotation[nb], (s + 2) % 4]
            if shown[s] == theirs and shown[s] != 0:
                good += 1
            else:
                bad += 1
        return good, bad

    def run(self, found: Callable[[Board, int], bool], need_perfect: bool) -> bool:
        """Search; ``found(board, score)`` returns True to stop. True when the search finished
        (or ``found`` stopped it), False when the time limit or Ctrl-C ended it."""
        used: set[int] = set()
        best = [-1]

        def go(i: int, score: int) -> bool:
            self.nodes += 1
            if self.nodes % 1024 == 0:
                if self.deadline is not None and time.monotonic() >= self.deadline:
                    raise TimeoutError
                self.tick(lambda: f"{self.nodes:,} nodes, best {best[0]}")
            if i == len(self.cells):
                best[0] = max(best[0], score)
                return found(self.board, score)
            if not need_perfect and score + self.open_before[i] <= best[0]:
                return False  # even matching every open edge cannot beat the best
            cell = self.cells[i]
            for piece, rot in self.options[cell]:
                if piece in used:
                    continue
                good, bad = self.gain(cell, piece, rot)
                if need_perfect and bad:
                    continue
                used.add(piece)
                self.board.place(cell, piece, rot)
                try:
                    if go(i + 1, score + good):
                        return True
                finally:
                    self.board.piece[cell] = -1
                    used.discard(piece)
            return False

        try:
            go(0, 0)
        except (TimeoutError, KeyboardInterrupt):
            return False
        return True
