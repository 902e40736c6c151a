"""Speed of the shared local-search core (emc.heuristics.core) on one core: moves evaluated and
partial optimal placements per second, beside the reference figures of the papers.

Rows (each a compiled loop drawing its moves from a xorshift stream, so only the core is timed):

* swap, Obj1 fast delta: two random inner cells and random rotations, :func:`swap_delta1`
  (nothing applied);
* swap, best rotations (Obj1): :func:`swap_best1` on two random inner cells (4 + 4 placements,
  16 when they touch);
* rotate, Obj1 fast delta: :func:`rotate_delta1`, a random inner cell and rotation;
* swap, apply + undo: :func:`swap` then :func:`undo_to`, the change of any objective read in
  between, with all five objectives kept and with only Obj1, Obj3 and Obj4 (``objectives=(4,)``,
  what a search guided by Obj4 needs);
* POP q=24 inner / q=16 frame, apply + undo: :func:`pop` (draw, weights, assignment, apply),
  then undone, as a rejected candidate would be; and the same through scipy (the draw and the
  weights compiled, ``scipy.optimize.linear_sum_assignment`` called from Python, the result
  applied by a compiled function), with the share of its time spent in scipy's call;
* mix: one of seed 003's five low-level heuristics drawn uniformly (swap two corner, two edge
  or two inner pieces with their best rotations by Obj1, POP q=24 inner, POP q=16 frame),
  evaluated under Obj4 and undone: the floor of one hyper-heuristic iteration, without its
  acceptance test and bookkeeping.

Each row runs on two boards: a random start, and that board after a short compiled descent
(POP moves, which never lower Obj1, and improving swaps), whose edges flip less often. Rates
are CPU seconds of this process (``time.process_time``), the best of ``--repeats`` runs of
``--seconds`` each; the wall-clock rate and the load average are printed too, since a busy
machine slows both.

    python bench/core_rates.py                                  # meta-16x16 and eternity2, about 2 min
    python bench/core_rates.py --instances meta-10x10 --seconds 0.5 --repeats 2
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import BenchError, guard, machine, table  # noqa: E402

from emc.heuristics.core.jit import njit  # noqa: E402
from emc.heuristics.core.pop import draw, pop, weights  # noqa: E402
from emc.heuristics.core.state import (CORNER, EDGE, FRAME, INNER, OBJ4, group_bounds, rotate_delta1,  # noqa: E402
                                       set_cell, swap, swap_best1, swap_delta1, undo_to)
from emc.heuristics.core.xorshift import below  # noqa: E402

PAPER_ITERATIONS = 4_000  # seed 003, section 5: the whole hyper-heuristic, Core 2 Duo 2.8 GHz, Java
TABU_EVALUATIONS = 478_196_791 / 3600  # seed 004, Table 2: 16x16, evaluations in 3600 s, 1.8 GHz, C++


@njit
def _cell(T, rng, g):
    lo, hi = group_bounds(T, g)
    return T.group_cells[lo + below(rng, hi - lo)]


@njit
def run_swap_delta1(T, S, rng, n):
    acc = 0
    for _ in range(n):
        acc += swap_delta1(T, S, _cell(T, rng, INNER), _cell(T, rng, INNER), below(rng, 4), below(rng, 4))
    return acc


@njit
def run_swap_best1(T, S, rng, n):
    acc = 0
    for _ in range(n):
        d, ra, rb = swap_best1(T, S, _cell(T, rng, INNER), _cell(T, rng, INNER))
        acc += d
    return acc


@njit
def run_rotate_delta1(T, S, rng, n):
    acc = 0
    for _ in range(n):
        acc += rotate_delta1(T, S, _cell(T, rng, INNER), below(rng, 4))
    return acc


@njit
def run_swap_apply_undo(T, S, rng, n):
    acc = 0
    for _ in range(n):
        before = S.obj[OBJ4]
        swap(T, S, _cell(T, rng, INNER), _cell(T, rng, INNER), below(rng, 4), below(rng, 4))
        acc += S.obj[OBJ4] - before
        undo_to(T, S, 0)
    return acc


@njit
def run_pop_undo(T, S, W, rng, g, q, n):
    acc = 0
    for _ in range(n):
        k, gain = pop(T, S, W, rng, g, q, 0.0)
        acc += gain
        undo_to(T, S, 0)
    return acc


@njit
def run_mix(T, S, W, rng, n):
    """One of the five low-level heuristics, drawn uniformly, evaluated under Obj4, undone."""
    acc = 0
    for _ in range(n):
        h = below(rng, 5)
        before = S.obj[OBJ4]
        if h < 3:
            g = CORNER if h == 0 else (EDGE if h == 1 else INNER)
            lo, hi = group_bounds(T, g)
            if hi - lo >= 2:
                a = T.group_cells[lo + below(rng, hi - lo)]
                b = T.group_cells[lo + below(rng, hi - lo)]
                d, ra, rb = swap_best1(T, S, a, b)
                if ra >= 0:
                    swap(T, S, a, b, ra, rb)
        elif h == 3:
            pop(T, S, W, rng, INNER, 24, 0.0)
        else:
            pop(T, S, W, rng, FRAME, 16, 0.0)
        acc += S.obj[OBJ4] - before
        undo_to(T, S, 0)
    return acc


@njit
def descend(T, S, W, rng, n):
    """A short improvement of the board: POP moves (never worse by Obj1) and best swaps kept
    when they do not lower Obj1."""
    for _ in range(n):
        h = below(rng, 4)
        if h == 0:
            pop(T, S, W, rng, INNER, 24, 0.0)
        elif h == 1:
            pop(T, S, W, rng, FRAME, 16, 0.0)
        else:
            g = INNER if h == 2 else EDGE
            lo, hi = group_bounds(T, g)
            a = T.group_cells[lo + below(rng, hi - lo)]
            b = T.group_cells[lo + below(rng, hi - lo)]
            d, ra, rb = swap_best1(T, S, a, b)
            if ra >= 0 and d >= 0:
                swap(T, S, a, b, ra, rb)
        S.log_n[0] = 0


@njit
def apply_assignment(T, S, W, n, col):
    """Put the pieces of ``W.cells[:n]`` back as ``col`` says (the scipy path's last step)."""
    for i in range(n):
        W.pieces[i] = S.piece[W.cells[i]]
    for i in range(n):
        j = col[i]
        c = W.cells[j]
        r = W.rot[i, j]
        if S.piece[c] != W.pieces[i] or S.rotation[c] != r:
            set_cell(T, S, c, W.pieces[i], r)


def pop_with_scipy(T, S, W, rng, g, q, n, lsa) -> tuple[float, float]:
    """``n`` POP moves with scipy's assignment, each undone; returns (total CPU seconds, CPU
    seconds inside scipy's call)."""
    inside = 0.0
    t0 = time.process_time()
    for _ in range(n):
        k = draw(T, S, W, rng, g, q, 0.0)
        weights(T, S, W, k)
        t = time.process_time()
        _, col = lsa(W.cost[:k, :k])
        inside += time.process_time() - t
        apply_assignment(T, S, W, k, col)
        undo_to(T, S, 0)
    return time.process_time() - t0, inside


def timed(fn, seconds: float, repeats: int) -> tuple[float, float]:
    """Best rate over ``repeats`` runs of about ``seconds`` each: (per CPU second, per wall
    second). ``fn(n)`` runs ``n`` operations; ``n`` is calibrated on a first short run."""
    fn(10)
    n = 100
    while True:
        t = time.process_time()
        fn(n)
        dt = time.process_time() - t
        if dt > 0.05:
            break
        n *= 4
    n = max(1, int(n * seconds / dt))
    best_cpu, best_wall = 0.0, 0.0
    for _ in range(repeats):
        t, w = time.process_time(), time.perf_counter()
        fn(n)
        best_cpu = max(best_cpu, n / (time.process_time() - t))
        best_wall = max(best_wall, n / (time.perf_counter() - w))
    return best_cpu, best_wall


def fmt(rate: float) -> str:
    return f"{rate:,.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="meta-16x16,eternity2", help="comma-separated (default meta-16x16,eternity2)")
    ap.add_argument("--seconds", type=float, default=0.3, help="seconds per timed run (default 0.3)")
    ap.add_argument("--repeats", type=int, default=2, help="timed runs per row, the best kept (default 2)")
    ap.add_argument("--descent", type=int, default=20_000, help="moves of the descent before the second board")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.seconds <= 0 or a.repeats < 1:
        raise BenchError("--seconds must be positive and --repeats at least 1")

    import emc
    from scipy.optimize import linear_sum_assignment as lsa

    from emc.heuristics.core.pop import make_work
    from emc.heuristics.core.starts import random_board
    from emc.heuristics.core.board_state import BoardState
    from emc.heuristics.core.xorshift import make_rng

    print(f"machine: {machine()}")
    print(f"load average at start: {os.getloadavg()[0]:.2f} (rates are per CPU second of this process)\n")
    rows = []
    for name in [x.strip() for x in a.instances.split(",") if x.strip()]:
        puzzle = emc.load(name)
        start = random_board(puzzle, a.seed)
        for board_kind in ("random start", "after descent"):
            full = BoardState(puzzle, start, seed=a.seed)
            lean = BoardState(puzzle, start, seed=a.seed, objectives=(4,))
            if board_kind == "after descent":
                for bs in (full, lean):
                    descend(bs.tables, bs.state, make_work(bs.tables), make_rng(a.seed), a.descent)
            T, S, rng = full.tables, full.state, make_rng(a.seed + 1)
            W = make_work(T)
            Tl, Sl, Wl = lean.tables, lean.state, make_work(lean.tables)
            where = f"{name}, {board_kind} (Obj1 {int(S.obj[1])})"
            print(f"  {where}", file=sys.stderr, flush=True)

            def row(what, fn, where=where):
                cpu, wall = timed(fn, a.seconds, a.repeats)
                rows.append([where, what, fmt(cpu), fmt(wall)])
                return cpu

            row("swap, Obj1 fast delta", lambda n: run_swap_delta1(T, S, rng, n))
            row("swap, best rotations by Obj1", lambda n: run_swap_best1(T, S, rng, n))
            row("rotate, Obj1 fast delta", lambda n: run_rotate_delta1(T, S, rng, n))
            row("swap, apply + undo (5 objectives kept)", lambda n: run_swap_apply_undo(T, S, rng, n))
            row("swap, apply + undo (Obj1, 3, 4 kept)", lambda n: run_swap_apply_undo(Tl, Sl, rng, n))
            for g, q, label in ((INNER, 24, "POP q=24 inner"), (FRAME, 16, "POP q=16 frame")):
                row(f"{label}, apply + undo (5 kept)", lambda n, g=g, q=q: run_pop_undo(T, S, W, rng, g, q, n))
                row(f"{label}, apply + undo (1, 3, 4 kept)", lambda n, g=g, q=q: run_pop_undo(Tl, Sl, Wl, rng, g, q, n))
                pop_with_scipy(T, S, W, rng, g, q, 5, lsa)
                best, share = 0.0, 0.0
                for _ in range(a.repeats):
                    n = max(20, int(20_000 * a.seconds))
                    total, inside = pop_with_scipy(T, S, W, rng, g, q, n, lsa)
                    if n / total > best:
                        best, share = n / total, inside / total
                rows.append([where, f"{label}, scipy through Python ({share:.0%} in scipy's call)", fmt(best), ""])
            row("mix of the 5 heuristics, Obj4, undone (5 kept)", lambda n: run_mix(T, S, W, rng, n))
            row("mix of the 5 heuristics, Obj4, undone (1, 3, 4 kept)", lambda n: run_mix(Tl, Sl, Wl, rng, n))
    print(table(["board", "operation", "per CPU second", "per wall second"], rows, right={2, 3}))
    print(f"\nreference: seed 003 ran about {PAPER_ITERATIONS:,} iterations/s of the whole hyper-heuristic "
          f"(16x16, Core 2 Duo 2.8 GHz, Java); seed 004's tabu search about {TABU_EVALUATIONS:,.0f} "
          "move evaluations/s (16x16, 478,196,791 in 3,600 s, 1.8 GHz, C++)")


if __name__ == "__main__":
    sys.exit(guard(main))
