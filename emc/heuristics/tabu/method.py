"""Wang and Chiang's two-phase tabu search as the registered method ``tabu`` (seed 004; every
parameter of its Table 1 is an option with the paper's value as default).

* Phase I, the frame alone: corner and edge pieces on random cells of their classes, then tabu
  search with same-class swaps (rotations forced by the cells), scoring the matched edges
  between frame cells, until the ring is perfect or ``i1`` iterations.
* Phase II, the whole board: the inner pieces on random cells in random rotations; tabu search
  over every other rotation of every inner piece and ``min(beta1 * N_PHP, beta2)`` random
  same-class swaps per iteration, N_PHP being the number of same-class pairs (C(4,2) +
  C(4(n-2),2) + C((n-2)^2,2) on an n x n board; counted from the board's classes on any W x H).
  After ``i2`` iterations without a better score, a simulated-annealing stage (T from ``t0``,
  times ``alpha`` each step, until below ``t_end``); after ``i3``, a perturbation of
  ``gamma * W * H`` random same-class swaps, after which the aspiration score and the counters
  start again (the best board of the run is kept apart).

The tabu list holds one element per move, as section 2.3.2 describes: a rotation's is the cell
with the colours it lost, a swap's both cells with theirs, and a swap is tabu only when it would
put both back (``swap_tabu=pair``; ``cells`` makes each cell of a swap an element of its own,
forbidding any move that restores either, a far stricter list that measured 8 edges worse
on average on META 14x14).

Readings where the paper is silent or loose (emc's defaults, each an option): the final
temperature T_E = 0 is read as ``t_end`` = 0.05 (``t_end=0`` cools until the temperature
underflows); the annealing draws a rotation or a swap as often as each other
(``anneal_mix=even``; ``neighbourhood`` draws each by its share of the tabu neighbourhood); the
annealing stage runs each time ``i2`` more iterations pass without a better score, until ``i3``
calls for the perturbation.
"""

from __future__ import annotations

import time
from math import comb

import numpy as np

from ...errors import InputError
from ...model import Board, PieceClass, Puzzle
from ..core.method import Method, Option, Outcome, Recorder

_T1 = "seed 004, Table 1"
#: Tabu iterations per slice before the driver sizes slices from their speed.
FIRST_SLICE = 20
SLICE_SECONDS = 0.1


class TabuSearch(Method):
    name = "tabu"
    summary = "two-phase tabu search with annealing and perturbation (META 2010 finalist)"
    paper = "Wang, Chiang: Solving Eternity-II puzzles with a tabu search algorithm (seed 004)"
    unit = "iterations"
    requires = ("numba",)
    install_hint = "pip install 'emc[fast]'"
    warmup_options = {"iterations": 20, "i2": 5, "i3": 12, "beta2": 50}
    options = (
        Option("iterations", None, "tabu iterations in all (default: until the time limit)", "int", low=1, none=True),
        Option("tabu_length", 360, "attributes in the tabu list", "int", low=1, high=1500, source=_T1),
        Option("i1", 400, "phase I: most iterations on the frame", "int", low=0, source=_T1),
        Option("i2", 400, "iterations without a better score before an annealing stage", "int", low=1, source=_T1),
        Option("i3", 3500, "iterations without a better score before a perturbation", "int", low=1, source=_T1),
        Option("beta1", 0.5, "share of the same-class pairs sampled per iteration", "float", low=0.0, high=1.0,
               source=_T1),
        Option("beta2", 6000, "most same-class pairs sampled per iteration", "int", low=1, source=_T1),
        Option("alpha", 0.99, "annealing: the temperature's factor per step", "float", low=0.01, high=0.9999,
               source=_T1),
        Option("t0", 100.0, "annealing: first temperature", "float", low=1e-6, source=_T1),
        Option("t_end", 0.05, "annealing: the stage ends when the temperature is no longer above this (the "
               "paper's T_E = 0; 0 cools until the temperature underflows, ~70,900 steps at alpha 0.99)", "float",
               low=0.0),
        Option("anneal_mix", "even", "annealing: a rotation as likely as a swap (even), or each drawn by its "
               "share of the tabu neighbourhood (neighbourhood)", "choice", ("even", "neighbourhood")),
        Option("swap_tabu", "pair", "a swap enters the tabu list as one element, the two cells with what they "
               "lost, forbidding that swap alone (pair), or as two cell attributes, each forbidding any move that "
               "puts its colours back (cells)", "choice", ("pair", "cells"), source="seed 004, section 2.3.2"),
        Option("gamma", 0.5, "perturbation: random swaps per cell of the board", "float", low=0.0, source=_T1),
        Option("hints", "honour", "honour the puzzle's hints (their pieces never move) or ignore them", "choice",
               ("honour", "ignore")),
    )

    @classmethod
    def check_options(cls, o: dict) -> None:
        if o["t_end"] > o["t0"]:
            raise InputError(f"options t0 {o['t0']:g} and t_end {o['t_end']:g} of method 'tabu': the annealing cools, "
                             "so t_end is at most t0")


    def check_start(self, puzzle: Puzzle, board: Board, options: dict) -> None:
        raise InputError("method 'tabu' builds its own board (phase I solves the frame first): it takes no starting "
                         "board")

    def _run(self, puzzle: Puzzle, time_limit, seed: int, o: dict, rec: Recorder, start_board: Board | None) -> Outcome:
        from ... import runtime
        from ..core.starts import random_board
        from ..core.state import CORNER, EDGE, INNER, OBJ1, make_state, make_tables
        from ..core.xorshift import make_rng
        from . import kernel as K

        if time_limit is None and o["iterations"] is None:
            raise InputError("method 'tabu' needs a budget: a time limit (-t) or -O iterations=N")
        t0 = time.perf_counter()
        deadline = None if time_limit is None else t0 + time_limit
        honour = o["hints"] == "honour"
        board = random_board(puzzle, seed, hints=honour)
        movable = np.ones(puzzle.n_cells, dtype=bool)
        if honour:
            movable[[h.cell for h in puzzle.hints]] = False
        T = make_tables(puzzle, movable, objectives=())
        S = make_state(T, board.piece, board.rotation)
        rng = make_rng(seed)
        sizes = {g: int(T.group_start[g + 1] - T.group_start[g]) for g in (INNER, EDGE, CORNER)}
        pairs_c, pairs_e, pairs_i = comb(sizes[CORNER], 2), comb(sizes[EDGE], 2), comb(sizes[INNER], 2)
        n_php = pairs_c + pairs_e + pairs_i
        samples = max(1, min(int(o["beta1"] * n_php), o["beta2"]))
        ring_samples = max(1, min(int(o["beta1"] * (pairs_c + pairs_e)), o["beta2"]))
        fifo, counts = K.make_tabu(o["tabu_length"], puzzle.n_cells, puzzle.n_pieces)
        as_pair = o["swap_tabu"] == "pair"
        rotations = 3 * sizes[INNER]
        p_rotate = 0.5 if o["anneal_mix"] == "even" else rotations / max(rotations + samples, 1)
        canon = K.make_canon(np.asarray(T.colours))
        counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
        best_piece, best_rotation = S.piece.copy(), S.rotation.copy()
        budget = o["iterations"]
        used = 0
        details: dict = {"samples_per_iteration": samples, "pairs": n_php}
        stopped_by = "iteration-limit" if budget is not None else "time-limit"

        def out_of_budget() -> str | None:
            if budget is not None and used >= budget:
                return "iteration-limit"
            if deadline is not None and time.perf_counter() >= deadline:
                return "time-limit"
            return None

        def board_of(piece, rotation) -> Board:
            return Board(puzzle.width, puzzle.height, piece.astype(np.int64), rotation.astype(np.int64))

        # ---- phase I: the frame
        ring_max = sum(1 for a, b in puzzle.edges if puzzle.cell_class[a] > 0 and puzzle.cell_class[b] > 0)
        ring = int(K.ring_score(T, S))
        rec.tick(phase="phase I: tabu search on the frame", current=ring, force=True)
        counters[K.C_ASPIRATION] = counters[K.C_BEST] = ring
        phase1 = 0
        while ring < ring_max and phase1 < o["i1"] and out_of_budget() is None:
            n = min(50, o["i1"] - phase1, (budget - used) if budget is not None else 50)
            ring = K.tabu_steps(T, S, rng, n, True, ring_samples, pairs_c, pairs_e, 0, canon, fifo, counts, counters,
                                ring, best_piece, best_rotation, ring_max, as_pair)
            phase1 += n
            used += n
            runtime.check()
        details["phase1"] = {"iterations": phase1, "ring": int(ring), "ring_max": ring_max}
        # the best ring of phase I, with the inner pieces drawn afresh (random cells, random rotations)
        piece, rotation = best_piece.copy(), best_rotation.copy()
        fresh = random_board(puzzle, np.random.default_rng(seed + 1), hints=honour)
        inner = (puzzle.cell_class == PieceClass.INNER) & movable
        piece[inner], rotation[inner] = fresh.piece[inner], fresh.rotation[inner]
        S = make_state(T, piece, rotation)
        rec.improved(board_of(S.piece, S.rotation), int(S.obj[OBJ1]), "phase I")

        # ---- phase II: the whole board
        K.clear_tabu(fifo, counts, counters)
        cur = int(S.obj[OBJ1])
        counters[K.C_ASPIRATION] = counters[K.C_BEST] = cur
        counters[K.C_SINCE_BEST] = 0
        best_piece[:], best_rotation[:] = S.piece, S.rotation
        top = puzzle.max_score
        stages = {"annealing": 0, "perturbation": 0}
        phase = "phase II: tabu search"
        n_slice = FIRST_SLICE
        t_ii = time.perf_counter()
        evals_before = int(counters[K.C_EVALS])
        annealed_at = None
        while True:
            why = out_of_budget()
            if why is not None:
                stopped_by = why
                break
            if cur >= top:
                stopped_by = "solved"
                break
            since = int(counters[K.C_SINCE_BEST])
            if since >= o["i3"]:
                cur = int(K.perturb(T, S, rng, int(o["gamma"] * puzzle.n_cells), pairs_c, pairs_e, pairs_i))
                counters[K.C_ASPIRATION] = cur
                counters[K.C_SINCE_BEST] = 0
                K.clear_tabu(fifo, counts, counters)
                stages["perturbation"] += 1
                continue
            if since > 0 and since % o["i2"] == 0 and annealed_at != (used, since):
                annealed_at = (used, since)
                cur = int(K.anneal_steps(T, S, rng, o["t0"], o["t_end"], o["alpha"], pairs_c, pairs_e, pairs_i,
                                         counters, best_piece, best_rotation, p_rotate))
                stages["annealing"] += 1
            n = min(n_slice, o["i2"] - since % o["i2"], o["i3"] - since)
            if budget is not None:
                n = min(n, budget - used)
            ts = time.perf_counter()
            cur = int(K.tabu_steps(T, S, rng, n, False, samples, pairs_c, pairs_e, pairs_i, canon, fifo, counts,
                                   counters, cur, best_piece, best_rotation, top, as_pair))
            used += n
            runtime.check()
            if counters[K.C_IMPROVED]:
                counters[K.C_IMPROVED] = 0
                rec.improved(board_of(best_piece, best_rotation), int(counters[K.C_BEST]), phase)
            if rec.due():
                evals = int(counters[K.C_EVALS]) - evals_before
                rec.tick(phase=phase, current=cur, iterations=used,
                         detail=f"{evals / max(time.perf_counter() - t_ii, 1e-9):,.0f} evaluations/s",
                         rate=used / max(time.perf_counter() - t_ii, 1e-9))
            took = time.perf_counter() - ts
            if took > 0:
                n_slice = int(min(max(n * SLICE_SECONDS / took, 1), 4 * max(n, 1)))
        details.update({"iterations": used, "evaluations": int(counters[K.C_EVALS]), "moves": int(counters[K.C_MOVES]),
                        **stages, "phase2_seconds": round(time.perf_counter() - t_ii, 3)})
        return Outcome(stopped_by, used, details)
