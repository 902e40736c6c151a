"""A complete, small method to copy when adding a new one: random swap-and-turn hill climbing.

Adding a method to emc takes this file, renamed and filled with the real algorithm (in its
family's sub-package: ``emc/heuristics/<family>/method.py``), and one line in
:data:`emc.heuristics.METHODS`::

    "climb": "emc.heuristics.TEMPLATE:Climb",

Nothing else changes: ``emc methods`` lists it, ``emc optimise --method climb`` runs it with
the progress line, Ctrl-C handling, periodic saving and result file every method has, and
``emc.optimise(puzzle, "climb")`` calls it from Python. ``tests/test_methods.py`` registers
this class at run time to show exactly that.

The contract (:class:`~emc.heuristics.core.method.Method`):

* class attributes: ``name``, ``summary``, ``paper`` (the publication, if any), ``unit`` (what
  the iterations count) and ``options``, each an :class:`Option` with its default, a one-line
  help, its kind and bounds (checked before the run; an unknown name fails listing the valid
  ones) and ``source``: where a published default comes from;
* :meth:`_run` gets the puzzle, the time limit (None: no limit), the seed, every option's
  value and a :class:`Recorder`; it hands each better board to ``rec.improved`` (the first
  board too), calls ``rec.tick`` now and then (its ``due()`` is cheap: a compiled loop can
  return to Python only when it is true), and returns an :class:`Outcome`: how it stopped,
  the iterations, anything else worth keeping (JSON-ready);
* Ctrl-C may strike anywhere: :meth:`Method.run` catches it and returns the recorder's best
  board, so ``rec.improved`` must only ever see complete, valid boards;
* the base class verifies the final board and its score, so a method cannot report a wrong
  one; hints are honoured unless an option named ``hints`` says ``ignore``;
* the same seed must give the same run when the budget is counted in iterations: draw every
  random number from one generator seeded with ``seed``.

Hot loops belong in numba kernels on plain arrays (:mod:`emc.heuristics.core`); this template
stays in Python to be read, and is slow.
"""

from __future__ import annotations

import time

import numpy as np

from ..model import Board, PieceClass, Puzzle
from .core.method import Method, Option, Outcome, Recorder


class Climb(Method):
    name = "climb"
    summary = "random swap-and-turn hill climbing (a template to copy, not a contender)"
    paper = ""
    unit = "moves"
    options = (
        Option("moves", 20_000, "moves to try (the run also stops at the time limit)", "int", low=1),
        Option("sideways", True, "accept moves that keep the score", "bool"),
    )

    def _run(self, puzzle: Puzzle, time_limit: float | None, seed: int, options: dict, rec: Recorder,
             start_board: Board | None) -> Outcome:
        from ..score import score, swap_delta
        from .core.starts import random_board

        rng = np.random.default_rng(seed)
        board = start_board.copy() if start_board is not None else random_board(puzzle, rng)
        current = score(puzzle, board)
        rec.improved(board, current, "start")
        movable = np.ones(puzzle.n_cells, dtype=bool)
        movable[[h.cell for h in puzzle.hints]] = False
        groups = [np.flatnonzero((puzzle.cell_class == k) & movable) for k in PieceClass]
        groups = [g for g in groups if len(g) >= 2]
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        stopped_by = "iteration-limit"
        done = 0
        for done in range(1, options["moves"] + 1):
            if deadline is not None and done % 256 == 0 and time.perf_counter() >= deadline:
                stopped_by = "time-limit"
                break
            if current == puzzle.max_score or not groups:
                stopped_by = "finished"
                break
            cells = groups[rng.integers(len(groups))]
            a, b = (int(c) for c in rng.choice(cells, 2, replace=False))
            # the piece landing on a cell takes a random rotation that fits it (forced on the frame)
            ra = int(rng.choice(np.flatnonzero(puzzle.fits[board.piece[b], a])))
            rb = int(rng.choice(np.flatnonzero(puzzle.fits[board.piece[a], b])))
            delta = swap_delta(puzzle, board, a, b, ra, rb)
            if delta > 0 or (delta == 0 and options["sideways"]):
                pa, pb = int(board.piece[a]), int(board.piece[b])
                board.place(a, pb, ra)
                board.place(b, pa, rb)
                current += delta
                if delta > 0:
                    rec.improved(board, current, "swap")
            if rec.due():
                rec.tick(phase="climbing", current=current, iterations=done)
        return Outcome(stopped_by, done, {"final_current": current})
