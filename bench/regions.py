"""Optimising regions of a board: which backend proves the best fill of a window soonest.

A greedy construction (HiGHS, 1xW regions, seed 0; the same board every time) gives each
instance a complete board; each region given (cells as ``--free`` names them) is then
re-optimised with the rest of the board fixed, the board's own fill as a hint, by each
backend, as ``emc solve PUZZLE --fixed board.json --free REGION -b B`` does. Every board is
checked by emc's verifier (the backends' solve() does it). Prints the status, the matched
edges of the region, the bound and the time per run, and then, per backend, how many runs
were proven optimal and their median time. The region ``whole`` optimises the whole puzzle
from nothing instead (no fixed cells, no hint), as ``emc solve PUZZLE --goal optimisation``
does, where the ``emc solve`` default stays CP-SAT (see the README).

    python bench/regions.py
    python bench/regions.py --instances eternity2 --regions r1c1-r8c8,r5c5-r9c9 --time-limit 60
    python bench/regions.py --instances meta-10x10,eternity2,set2-7x7 --regions whole --backends cpsat,maxsat
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BenchError, guard, machine, names, puzzles, table  # noqa: E402

REGIONS = "r2c2-r6c6,r6c5-r10c9,r1c1-r5c5,r4c3-r7c7,r1c1-r8c8"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--instances", default="meta-10x10,eternity2")
    ap.add_argument("--regions", default=REGIONS,
                    help=f"regions as --free gives them, or whole (default {REGIONS})")
    ap.add_argument("--backends", default="cpsat,maxsat,highs")
    ap.add_argument("--time-limit", type=float, default=20.0)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()

    from emc.backends import BACKENDS, get_backend
    from emc.cells import make_subproblem
    from emc.heuristics.decomposition.construction import greedy
    from emc.model import Goal

    backends = names("backend", a.backends, list(BACKENDS))
    regions = [r.strip() for r in a.regions.split(",") if r.strip()]
    if not regions:
        raise BenchError("no region given")
    if a.time_limit <= 0:
        raise BenchError("--time-limit must be positive")
    loaded = puzzles(a.instances)
    for name in backends:
        get_backend(name).require()
    print(f"# regions re-optimised (of a greedy board; whole: from nothing); {machine()}; time limit {a.time_limit:g} s, "
          f"{a.threads} threads", flush=True)
    rows: list[list] = []
    per: dict[str, list] = {b: [] for b in backends}
    for label, puzzle in loaded:
        board = None if regions == ["whole"] else greedy(puzzle, backend="highs", region="1xW", seed=0).board
        for region in regions:
            whole = region == "whole"
            # bad regions stop here, one line
            sp = make_subproblem(puzzle, None if whole else region, None if whole else board, Goal.OPTIMISATION)
            own = "-" if whole else sp.score(board)
            for name in backends:
                res = get_backend(name).solve(sp, time_limit=a.time_limit, threads=a.threads, seed=0,
                                              hint=None if whole else board)
                proven = res.status.value == "optimal"
                per[name].append(res.wall_time if proven else None)
                rows.append([label, region, sp.n_free, name, res.status.value, f"{res.objective}/{sp.max_score}",
                             "-" if res.bound is None else res.bound, own, f"{res.wall_time:.2f}"])
                print(" ".join(str(x) for x in rows[-1]), file=sys.stderr, flush=True)
    print(table(["instance", "region", "cells", "backend", "status", "matched", "bound", "greedy's", "seconds"], rows,
                right={2, 5, 6, 7, 8}))
    print()
    summary = []
    for name in backends:
        proven = [t for t in per[name] if t is not None]
        summary.append([name, f"{len(proven)} of {len(per[name])}",
                        f"{statistics.median(proven):.2f}" if proven else "-"])
    print(table(["backend", "proven optimal", "median seconds (proven)"], summary))
    return 0


if __name__ == "__main__":
    sys.exit(guard(main))
