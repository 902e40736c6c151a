"""Small real methods for the campaign tests, registered at run time like the template: one
that fails on purpose for one seed, one whose worker process dies for one seed, and one that
offers every board it walks through to a record hunt (through emc.heuristics.core.found), not
only its improvements."""

from __future__ import annotations

import os

import numpy as np

from emc.heuristics.TEMPLATE import Climb
from emc.heuristics.core.found import found
from emc.heuristics.core.method import Option, Outcome
from emc.model import PieceClass


class Flaky(Climb):
    """The template's climb, except that seed 2 raises."""

    name = "flaky"

    def _run(self, puzzle, time_limit, seed, options, rec, start_board):
        if seed == 2:
            raise ValueError("seed 2 fails on purpose")
        return super()._run(puzzle, time_limit, seed, options, rec, start_board)


class Crash(Climb):
    """The template's climb, except that seed 3 ends its process outright."""

    name = "crash"

    def _run(self, puzzle, time_limit, seed, options, rec, start_board):
        if seed == 3:
            os._exit(3)
        return super()._run(puzzle, time_limit, seed, options, rec, start_board)


class Wander(Climb):
    """Swap-and-turn moves that never lose score, offering every board of at least ``offer``
    matched edges it reaches (a new board of the same score too) to whoever collects them."""

    name = "wander"
    options = (
        Option("moves", 2000, "moves to try", "int", low=1),
        Option("offer", 0, "offer every board of at least this score", "int", low=0),
    )

    def _run(self, puzzle, time_limit, seed, options, rec, start_board):
        from emc.heuristics.core.starts import random_board
        from emc.score import score, swap_delta

        rng = np.random.default_rng(seed)
        board = random_board(puzzle, rng)
        current = score(puzzle, board)
        rec.improved(board, current, "start")
        groups = [np.flatnonzero(puzzle.cell_class == k) for k in PieceClass]
        groups = [g for g in groups if len(g) >= 2]
        offered = 0
        for _ in range(options["moves"]):
            cells = groups[rng.integers(len(groups))]
            a, b = (int(c) for c in rng.choice(cells, 2, replace=False))
            ra = int(rng.choice(np.flatnonzero(puzzle.fits[board.piece[b], a])))
            rb = int(rng.choice(np.flatnonzero(puzzle.fits[board.piece[a], b])))
            delta = swap_delta(puzzle, board, a, b, ra, rb)
            if delta < 0:
                continue
            pa, pb = int(board.piece[a]), int(board.piece[b])
            board.place(a, pb, ra)
            board.place(b, pa, rb)
            current += delta
            if delta > 0:
                rec.improved(board, current, "swap")
            if current >= options["offer"]:
                found(board, current, "wander")
                offered += 1
        return Outcome("iteration-limit", options["moves"], {"offered": offered})
