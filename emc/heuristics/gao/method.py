"""The guide-and-observe hyper-heuristic as the registered method ``gao`` (Wauters,
Vancroonenburg and Vanden Berghe, seed 003; defaults from its section 5.4, the configuration
that won the META 2010 contest).

A run: a starting board (seed 003, section 4.2: a time-limited backtracking fill, the rest of
the board filled at random within each piece class, or a random board); phase 1 optimises a
guiding objective (Obj4 by default: complete 3x3 windows) for three quarters of the budget while
observing Obj1 on every candidate; phase 2 starts again from the best board by Obj1 seen and
optimises Obj1 for the last quarter (Algorithm 2). Each iteration picks one of five low-level
heuristics uniformly (section 4.5) and judges the candidate with the acceptance criterion
(section 4.4; ILTA by default). The loop is compiled (:mod:`emc.heuristics.gao.kernel`) on the
shared core (:mod:`emc.heuristics.core`).

Where the paper is silent, emc's readings (each an option):

* the budget: ``time_limit`` (seconds for the whole run, the start included) and/or
  ``iterations`` (for both phases together: the same seed then gives the same run);
* swaps turn the two pieces to their best rotations by Obj1 (``swap_rotations=random``: at
  random);
* a piece with no unmatched side weighs 0 on POP's roulette wheel (drawn once the others are
  used up);
* the corner piece fixed on the top-left cell (section 4.1) only where that loses nothing: a
  square board with no hint honoured (``corner``);
* ILTA counts the candidates since the last improving one (``ilta_count``): the partial
  optimal placements leave the objective unchanged most of the time, so counting only worse
  candidates in a row (the other reading of the paper's "consecutive worsening solutions") would
  almost never let a worse one through (454 against 457.5 on META 16x16 after 5 million
  iterations, docs/methods/gao.md); the count restarts when one is let through;
* great deluge: the level starts at ``gd_factor`` times the phase's starting cost and falls
  linearly to 0 over the phase; annealing: the temperature falls geometrically from ``sa_t0``
  to ``sa_t1`` over the phase (cost = the objective's maximum less its value, as for ILTA).
"""

from __future__ import annotations

import time

import numpy as np

from ...errors import InputError
from ...model import Board, Puzzle
from ..core.method import Method, Option, Outcome, Recorder

_PAPER = "seed 003, section 5.4"
_LLH = "swap-corner,swap-edge,swap-inner,pop-inner,pop-frame"
OBJECTIVES = {"obj1": 1, "obj2": 2, "obj3": 3, "obj4": 4, "obj5": 5}
OBJECTIVE_WORDS = {1: "matched edges", 2: "complete 2x2 windows", 3: "perfect pieces", 4: "complete 3x3 windows",
                   5: "complete 4x4 windows"}
#: Iterations of the first slice; later slices are sized to last about SLICE_SECONDS.
FIRST_SLICE = 2_000
SLICE_SECONDS = 0.1


class GuideAndObserve(Method):
    name = "gao"
    summary = "guide-and-observe hyper-heuristic: Obj4 guides with ILTA, Obj1 observed, then Obj1 (META 2010 winner)"
    paper = ("Wauters, Vancroonenburg, Vanden Berghe: A guide-and-observe hyper-heuristic approach to the Eternity II "
             "puzzle (seed 003)")
    unit = "iterations"
    requires = ("numba",)
    install_hint = "pip install 'emc[fast]'"
    warmup_options = {"iterations": 2_000, "start_nodes": 2_000}
    options = (
        Option("iterations", None, "iterations of both phases together (default: until the time limit)", "int", low=1,
               none=True),
        Option("objective", "obj4", "the guiding objective of phase 1 (obj1 matched edges, obj2/obj4/obj5 complete "
               "2x2/3x3/4x4 windows, obj3 perfect pieces)", "choice", tuple(OBJECTIVES), source=_PAPER),
        Option("phase1_share", 0.75, "share of the budget for phase 1; the rest optimises obj1 from the best board "
               "observed (1: one phase)", "float", low=0.0, high=1.0, source=_PAPER),
        Option("acceptance", "ilta", "ie (improving or equal), aa (all), ilta, gd (great deluge), sa (annealing)",
               "choice", tuple(("ie", "aa", "ilta", "gd", "sa")), source="seed 003, Table II"),
        Option("ilta_k", 500, "ILTA: consecutive worse candidates before one may pass", "int", low=1,
               source="seed 003, section 5.1"),
        Option("ilta_r", 1.4, "ILTA: a worse candidate passes if its cost is within R times the best cost", "float",
               low=1.0, source="seed 003, section 5.1"),
        Option("ilta_count", "non-improving", "ILTA counts the candidates since the last improving one (equal "
               "ones count too) or the worse candidates in a row (an equal one restarts the count)", "choice",
               ("non-improving", "worse")),
        Option("gd_factor", 1.0, "great deluge: starting level, times the phase's starting cost", "float", low=0.0),
        Option("sa_t0", 1.0, "annealing: first temperature", "float", low=1e-9),
        Option("sa_t1", 0.02, "annealing: last temperature", "float", low=1e-9),
        Option("heuristics", _LLH, "the low-level heuristics, picked uniformly", source="seed 003, section 4.5"),
        Option("q_inner", 24, "pop-inner: inner pieces lifted", "int", low=2, high=64, source="seed 003, section 4.5"),
        Option("q_frame", 16, "pop-frame: frame pieces lifted", "int", low=2, high=64, source="seed 003, section 4.5"),
        Option("zero_weight", 0.0, "POP's wheel: weight of a piece with no unmatched side", "float", low=0.0),
        Option("swap_rotations", "best", "swaps turn the pieces to their best rotations by obj1, or at random",
               "choice", ("best", "random")),
        Option("start", "backtrack", "the starting board: a backtracking fill completed at random, or random",
               "choice", ("backtrack", "random"), source="seed 003, Table III"),
        Option("start_order", "rows", "the backtracking fill's order: rows (scan-row), spiral, inverse-spiral, "
               "mirrored-rows", "choice", ("rows", "spiral", "inverse-spiral", "mirrored-rows"),
               source="seed 003, Table III"),
        Option("start_seconds", 10.0, "seconds of the backtracking fill (at most half the time limit)", "seconds",
               source="seed 003, Table IV"),
        Option("start_nodes", None, "placements of the backtracking fill (a budget that makes runs repeatable)",
               "int", low=1, none=True),
        Option("restart_patience", None, "start a new cycle (fresh start, both phases) once phase 1 has gone this "
               "many iterations without a better obj1 (phase 2: a third of it); default: one cycle, the paper's", "int",
               low=1, none=True),
        Option("hints", "honour", "honour the puzzle's hints (their pieces never move) or ignore them (the paper's "
               "setting)", "choice", ("honour", "ignore"), source="seed 003, section 3"),
        Option("corner", "auto", "keep a corner piece on the top-left cell (auto: where that loses nothing, a "
               "square board with no hint honoured)", "choice", ("auto", "yes", "no"),
               source="seed 003, section 4.1"),
    )

    @classmethod
    def check_options(cls, o: dict) -> None:
        from .kernel import HEURISTICS

        names = [h.strip() for h in str(o["heuristics"]).split(",") if h.strip()]
        if not names:
            raise InputError("option heuristics of method 'gao' names no heuristic (choose from: "
                             f"{', '.join(HEURISTICS)})")
        for h in names:
            if h not in HEURISTICS:
                from ...errors import UnknownNameError

                raise UnknownNameError("low-level heuristic", h, list(HEURISTICS))
        if o["sa_t1"] > o["sa_t0"]:
            raise InputError(f"options sa_t0 {o['sa_t0']:g} and sa_t1 {o['sa_t1']:g} of method 'gao': the annealing "
                             "cools, so sa_t1 is at most sa_t0")


    def check_start(self, puzzle: Puzzle, board: Board, options: dict) -> None:
        from ...score import verify

        rep = verify(puzzle, board, check_hints=options["hints"] != "ignore")
        if not rep.valid:
            raise InputError(f"the starting board is not a valid complete board: {rep.problems[0]}")

    # ------------------------------------------------------------------------ the run
    def _run(self, puzzle: Puzzle, time_limit, seed: int, o: dict, rec: Recorder, start_board: Board | None) -> Outcome:
        from ..core.pop import make_work
        from ..core.starts import TOP_LEFT
        from ..core.state import OBJ1, make_state, make_tables
        from ..core.xorshift import make_rng
        from .kernel import ACCEPTANCE, C_BEST1, HEURISTICS, N_COUNTERS

        if time_limit is None and o["iterations"] is None:
            raise InputError("method 'gao' needs a budget: a time limit (-t) or -O iterations=N")
        t0 = time.perf_counter()
        deadline = None if time_limit is None else t0 + time_limit
        honour = o["hints"] == "honour"
        corner_fixed = o["corner"] == "yes" or (o["corner"] == "auto" and puzzle.width == puzzle.height
                                                 and not (honour and puzzle.hints))
        details: dict = {"corner_fixed": corner_fixed}
        movable = np.ones(puzzle.n_cells, dtype=bool)
        if honour:
            movable[[h.cell for h in puzzle.hints]] = False
        if corner_fixed:
            movable[TOP_LEFT] = False
        k1 = OBJECTIVES[o["objective"]]
        T = make_tables(puzzle, movable, objectives=(k1,))
        W = make_work(T, max(o["q_inner"], o["q_frame"]))
        rng = make_rng(seed)
        heuristics = np.array([HEURISTICS[h.strip()] for h in o["heuristics"].split(",") if h.strip()], dtype=np.int64)
        tried = np.zeros(len(HEURISTICS), dtype=np.int64)
        kept = np.zeros(len(HEURISTICS), dtype=np.int64)
        run_args = dict(acceptance=ACCEPTANCE[o["acceptance"]], heuristics=heuristics)
        share = o["phase1_share"]
        total = o["iterations"]
        patience = o["restart_patience"]
        stopped_by = "iteration-limit" if total is not None else "time-limit"
        done_iterations = 0
        phase_log, cycles = [], []
        self._search_t0 = None
        cycle = 0
        while True:
            board, start = self._start(puzzle, o, seed, cycle, time_limit, deadline, honour, corner_fixed,
                                       start_board if cycle == 0 else None, rec)
            if cycle == 0:
                details["start"] = start
            if self._search_t0 is None:
                self._search_t0 = time.perf_counter()
            S = make_state(T, board.piece, board.rotation)
            best_piece, best_rotation = S.piece.copy(), S.rotation.copy()
            counters = np.zeros(N_COUNTERS, dtype=np.int64)
            counters[C_BEST1] = S.obj[OBJ1]
            phases = [(k1, share)] + ([(OBJ1, 1.0 - share)] if share < 1.0 else [])
            if share == 0.0:
                phases = [(OBJ1, 1.0)]
            budget_t0 = time.perf_counter()
            time_left = None if deadline is None else max(deadline - budget_t0, 0.0)
            left = None if total is None else total - done_iterations
            stop = None
            for index, (k, part) in enumerate(phases):
                if index == 1:  # phase 2 starts from the best board by Obj1 observed in phase 1
                    from ..core.state import load_board

                    load_board(T, S, best_piece, best_rotation)
                if patience is None:
                    phase_iterations = None if left is None else (
                        int(round(left * part)) if index < len(phases) - 1 else total - done_iterations)
                    phase_end = None
                    if time_left is not None:
                        phase_end = (budget_t0 + time_left * share) if (index == 0 and len(phases) > 1) else deadline
                    phase_patience = 0
                else:  # a cycle's phases end when their patience runs out, or with the budget
                    phase_iterations = None if total is None else total - done_iterations
                    phase_end = deadline
                    phase_patience = patience if index == 0 else max(1, patience // 3)
                stop, n_done, seconds = self._phase(T, S, W, rng, k, o, run_args, phase_iterations, phase_end,
                                                    phase_patience, best_piece, best_rotation, counters, tried, kept,
                                                    rec, puzzle, index + 1, done_iterations)
                done_iterations += n_done
                phase_log.append({"cycle": cycle + 1, "phase": index + 1, "objective": f"obj{k}",
                                  "iterations": int(n_done), "seconds": round(seconds, 3),
                                  "best_obj1": int(counters[C_BEST1])})
                if stop in ("solved", "interrupt") or (patience is not None and stop != "patience"):
                    break  # done, or (in a cycle) the run's budget is spent
            cycles.append({"cycle": cycle + 1, "start": int(start["score"]), "best_obj1": int(counters[C_BEST1])})
            if stop in ("solved", "interrupt") or patience is None:
                if stop in ("solved", "interrupt"):
                    stopped_by = stop
                break
            if (total is not None and done_iterations >= total) or (deadline is not None
                                                                     and time.perf_counter() >= deadline):
                break
            cycle += 1
        from .kernel import HEURISTICS as names

        details["phases"] = phase_log
        if patience is not None:
            details["cycles"] = cycles
        details["heuristics"] = {name: {"tried": int(tried[c]), "kept": int(kept[c])} for name, c in names.items()
                                 if tried[c]}
        details["accepted"] = int(sum(kept))
        return Outcome(stopped_by if rec.best_score < puzzle.max_score else "solved", done_iterations, details)

    def _start(self, puzzle, o, seed, cycle, time_limit, deadline, honour, corner_fixed, given, rec):
        """The starting board of a cycle (the first: the run's start board when given), and what
        to record of it. Later cycles draw from a seed made of the run's seed and the cycle."""
        from ...score import score
        from ..core.starts import backtrack_board, random_board

        s = seed if cycle == 0 else int(np.random.SeedSequence([seed, cycle]).generate_state(1)[0] >> 1)
        corner = "random" if corner_fixed and given is None else None
        if cycle == 0:
            rec.tick(phase="building the starting board", force=True)
        if given is not None:
            board, info = given.copy(), {"kind": "given"}
        elif o["start"] == "random":
            board, info = random_board(puzzle, s, hints=honour, corner=corner), {"kind": "random"}
        else:
            seconds = o["start_seconds"]
            if time_limit is not None:
                seconds = min(seconds, time_limit / 2)
            if deadline is not None:
                seconds = max(min(seconds, deadline - time.perf_counter()), 1e-3)
            built = backtrack_board(puzzle, o["start_order"], seconds=seconds, seed=s, hints=honour, corner=corner,
                                    max_nodes=o["start_nodes"])
            board = built.board
            info = {"kind": "backtrack", "order": o["start_order"], "filled": int(built.filled),
                    "free": int(built.free), "nodes": int(built.nodes), "seconds": round(built.seconds, 3)}
        info["score"] = score(puzzle, board)
        rec.improved(board, info["score"], "start" if cycle == 0 else f"cycle {cycle + 1} start")
        return board, info

    def _phase(self, T, S, W, rng, k, o, run_args, iterations, end, patience, best_piece, best_rotation, counters,
               tried, kept, rec, puzzle, number, done_before):
        """One phase: slices of the compiled loop until its iterations, its time or its patience
        are spent (or every edge is matched). Returns (how it stopped, iterations, seconds)."""
        from ... import runtime
        from .kernel import C_BESTK, C_IMPROVED, C_ITER, C_SINCE1, C_START_COST, C_WORSE, run

        counters[C_ITER] = 0
        counters[C_WORSE] = 0
        counters[C_SINCE1] = 0
        counters[C_BESTK] = S.obj[k]
        counters[C_START_COST] = T.obj_max[k] - S.obj[k]
        phase = f"phase {number}: guided by obj{k}, {o['acceptance'].upper()}"
        rec.tick(phase=phase, force=True)
        t_start = time.perf_counter()
        n_slice = FIRST_SLICE
        random_rot = o["swap_rotations"] == "random"
        while True:
            done = int(counters[C_ITER])
            n = n_slice if iterations is None else min(n_slice, iterations - done)
            if n <= 0:
                return "iteration-limit", done, time.perf_counter() - t_start
            now = time.perf_counter()
            if end is not None and now >= end:
                return "time-limit", done, now - t_start
            if iterations is not None:
                f0, f1 = done / iterations, (done + n) / iterations
            else:
                span = max(end - t_start, 1e-9)
                f0 = (now - t_start) / span
                f1 = min(1.0, f0 + SLICE_SECONDS / span)
            ran = run(T, S, W, rng, run_args["heuristics"], k, run_args["acceptance"], o["ilta_k"], o["ilta_r"],
                      o["ilta_count"] == "worse", o["gd_factor"], o["sa_t0"], o["sa_t1"], f0, f1, n, o["q_inner"],
                      o["q_frame"], o["zero_weight"], random_rot, patience, best_piece, best_rotation, counters,
                      tried, kept)
            runtime.check()  # a Ctrl-C that landed while the loop ran
            if counters[C_IMPROVED]:
                counters[C_IMPROVED] = 0
                self._report(puzzle, rec, best_piece, best_rotation, counters, f"phase {number}")
            elapsed = time.perf_counter() - now
            if rec.due():
                so_far = done_before + int(counters[C_ITER])
                rec.tick(phase=phase, current=int(S.obj[1]), iterations=so_far,
                         detail=f"obj{k} {int(S.obj[k])}/{int(T.obj_max[k])}",
                         rate=so_far / max(time.perf_counter() - self._search_t0, 1e-9))
            if ran < n:
                done = int(counters[C_ITER])
                if patience > 0 and counters[C_SINCE1] >= patience:
                    return "patience", done, time.perf_counter() - t_start
                return "solved", done, time.perf_counter() - t_start
            # slices of about SLICE_SECONDS: the clock and Ctrl-C are read often enough, cheaply
            if elapsed > 0:
                n_slice = int(min(max(n * SLICE_SECONDS / elapsed, 100), 4 * n))

    @staticmethod
    def _report(puzzle, rec, best_piece, best_rotation, counters, what) -> None:
        from .kernel import C_BEST1

        if counters[C_BEST1] > rec.best_score:
            board = Board(puzzle.width, puzzle.height, best_piece.astype(np.int64), best_rotation.astype(np.int64))
            rec.improved(board, int(counters[C_BEST1]), what)
