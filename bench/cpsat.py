"""Benchmark the CP-SAT model variants and parameter sets on whole set2 puzzles.

Prints one row per (instance, variant, parameter set, seed): wall seconds, CP-SAT's
deterministic time (its machine-independent work measure, useful when the cores are
shared) and the status. Example::

    python bench/cpsat.py --instances set2-4x4,set2-5x5,set2-6x6 --time-limit 60
    python bench/cpsat.py --instances set2-7x7 --variants table --params default,lin0 --seeds 0,1,2
    python bench/cpsat.py --instances gen:6x6:3:5:1-5 --variants edgevar,table

Instances: shipped names, or ``gen:WxH:FRAME:INNER:SEEDS`` for generated puzzles.

Parameter sets (``--params``):

    default   CP-SAT's portfolio with ``--threads`` workers
    rowmajor  fixed search over the placement Booleans in reading order, then the portfolio
    lin0      linearization_level 0 (no LP relaxation)
    lin2      linearization_level 2 (more cuts)
    nosym     symmetry_level 0 (no symmetry detection in presolve)
    probing   extra probing in presolve (cp_model_probing_level 3)
    core      portfolio with quick restarts
    mindom    fixed search on the cell with the fewest candidates (then the portfolio)
    pieces    extra rotation-free "piece on cell" Booleans with their own exactly-one rows
    pairs     colour-pair counting rows (offer/demand of seed 002)
    excl      binary clauses for colour pairs no candidate shows on two sides of a cell
"""

from __future__ import annotations

import argparse
import sys
import time

from pathlib import Path

from emc.backends import get_backend
from emc.model import Goal, Subproblem

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import guard, names, puzzles  # noqa: E402

PARAM_SETS: dict[str, dict] = {
    "default": {},
    "rowmajor": {"branching": "rowmajor"},
    "lin0": {"params": {"linearization_level": 0}},
    "lin2": {"params": {"linearization_level": 2}},
    "nosym": {"params": {"symmetry_level": 0}},
    "probing": {"params": {"cp_model_probing_level": 3}},
    "core": {"params": {"search_branching": "PORTFOLIO_WITH_QUICK_RESTART_SEARCH"}},
    "mindom": {"branching": "mindom"},
    "pieces": {"piece_cells": True},
    "pairs": {"pairs": True},
    "excl": {"exclusions": True},
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="set2-4x4,set2-5x5,set2-6x6,set2-7x7,set2-8x8")
    ap.add_argument("--variants", default="edgevar")
    ap.add_argument("--params", default="default", help=f"comma list of {', '.join(PARAM_SETS)}")
    ap.add_argument("--goal", choices=("feasibility", "optimisation"), default="feasibility")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per run (default 60)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--no-balance", action="store_true", help="leave out the colour-balance constraint")
    args = ap.parse_args(argv)

    backend = get_backend("cpsat")
    header = f"{'instance':<10} {'variant':<8} {'params':<9} {'seed':>4} {'vars':>6} {'cons':>6} {'seconds':>8} {'dtime':>8} {'status':<10} {'score':>7}"
    print(f"# cpsat {backend.version()}, threads={args.threads}, time limit {args.time_limit:g} s, goal {args.goal}")
    print(header)
    print("-" * len(header))
    for name, puzzle in puzzles(args.instances):
        sp = Subproblem.whole(puzzle, Goal(args.goal))
        for variant in args.variants.split(","):
            for pname in names("parameter set", args.params, PARAM_SETS):
                opts = dict(PARAM_SETS[pname])
                if args.no_balance:
                    opts["balance"] = False
                for seed in (int(s) for s in args.seeds.split(",")):
                    t0 = time.perf_counter()
                    res = backend.solve(sp, time_limit=args.time_limit, threads=args.threads, seed=seed,
                                        variant=variant, **opts)
                    wall = time.perf_counter() - t0
                    score = f"{res.objective}/{sp.max_score}" if res.objective is not None else f"-/{sp.max_score}"
                    print(f"{name:<10} {variant:<8} {pname:<9} {seed:>4} {res.stats['variables']:>6} {res.stats['constraints']:>6} "
                          f"{wall:>8.2f} {res.stats['deterministic_time']:>8.2f} {res.status.value:<10} {score:>7}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(guard(main))
