"""Benchmark the CNF encoding options and SAT solvers on whole puzzles (feasibility).

Prints one row per (instance, encoding configuration, solver, seed): CNF size, wall seconds,
the CPU seconds of the solver processes (more telling than wall time when other jobs share
the cores), the status and the score. Example::

    python bench/sat.py --instances set2-4x4,set2-5x5,set2-6x6,set2-7x7,set2-8x8 --time-limit 600
    python bench/sat.py --instances set2-6x6,gen:6x6:3:5:1,gen:6x6:3:5:2 --configs base,pairs,pc \\
        --solvers kissat404,cadical195 --seeds 0,1

Instances are shipped names or ``gen:WxH:FRAME:INNER:SEEDS`` (emc.generate, planted solution;
``SEEDS`` like ``1-5`` or ``3``).
Solvers are PySAT names (``--solvers portfolio`` runs the backend's two-process portfolio).

Encoding configurations (``--configs``): atoms joined by ``+``, e.g. ``pc+pairs+order=spiral``:

    base      the defaults of emc.encoders.cnf (one-hot colours, piece-on-cell variables,
              colour-pair redundant clauses, seqcounter at-most-one, row-major numbering)
    pairs     colour pairs no candidate shows at a cell (Heule-style; on by default)
    nopairs   no redundant clauses
    triples   + colour triples as well
    pc        piece-on-cell variables carry the one-per-cell/piece constraints (default)
    nopc      without piece-on-cell variables
    counts    + the number of edges of each colour (fixed by the pieces)
    nocellamo no at-most-one per cell (implied for an exact cover)
    noprune   no arc-consistency pruning of placements
    log       binary (log) colour encoding
    card=NAME at-most-one constraints with that PySAT cardinality encoding
    order=NAME variable numbering along rowmajor, colmajor, reverse, spiral, inside-out
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

from emc.backends import get_backend
from emc.model import Goal, Subproblem

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import BenchError, guard, puzzles  # noqa: E402

ATOMS: dict[str, dict] = {
    "base": {},
    "pairs": {"redundant": "pairs"},
    "nopairs": {"redundant": "none"},
    "triples": {"redundant": "triples"},
    "pc": {"piece_cell": True},
    "nopc": {"piece_cell": False},
    "counts": {"colour_counts": True},
    "nocellamo": {"cell_amo": False},
    "noprune": {"prune": False},
}


def config(name: str) -> dict:
    """Backend options for a ``+``-joined configuration name."""
    enc: dict = {}
    opts: dict = {}
    for atom in name.split("+"):
        if atom == "log":
            opts["variant"] = "log"
        elif "=" in atom:
            k, v = atom.split("=", 1)
            enc[k] = v
        elif atom in ATOMS:
            enc.update(ATOMS[atom])
        else:
            raise BenchError(f"unknown configuration atom {atom!r} (see --help)")
    if enc:
        opts["encoding"] = enc
    return opts


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="set2-4x4,set2-5x5,set2-6x6,set2-7x7,set2-8x8")
    ap.add_argument("--configs", default="base", help="comma list of configurations (see above)")
    ap.add_argument("--solvers", default="kissat404", help="comma list of PySAT solver names, or 'portfolio'")
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per run (default 60)")
    args = ap.parse_args(argv)

    sat = get_backend("sat")
    head = (f"{'instance':<18} {'config':<22} {'solver':<11} {'seed':>4} {'vars':>7} {'clauses':>8} "
            f"{'seconds':>8} {'cpu':>8} {'status':<10} {'score':>8}")
    print(f"# {sat.version()}, time limit {args.time_limit:g} s per run, goal feasibility, whole puzzles")
    print(head)
    print("-" * len(head))
    for spec, puzzle in puzzles(args.instances):
        sp = Subproblem.whole(puzzle, Goal.FEASIBILITY)
        for cname in args.configs.split(","):
            for solver in args.solvers.split(","):
                for seed in (int(s) for s in args.seeds.split(",")):
                    opts = config(cname)
                    if solver == "portfolio":
                        opts["portfolio"] = True
                    else:
                        opts["solver"] = solver
                    c0, t0 = child_cpu(), time.perf_counter()
                    res = sat.solve(sp, time_limit=args.time_limit, seed=seed, **opts)
                    wall, cpu = time.perf_counter() - t0, child_cpu() - c0
                    score = f"{res.objective}/{sp.max_score}" if res.objective is not None else f"-/{sp.max_score}"
                    print(f"{spec:<18} {cname:<22} {solver:<11} {seed:>4} {res.stats['variables']:>7} "
                          f"{res.stats['clauses']:>8} {wall:>8.2f} {cpu:>8.2f} {res.status.value:<10} {score:>8}",
                          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(guard(main))
