"""Benchmark the MiniZinc model on Gecode over whole set2 puzzles (or generated ones).

One row per (instance, configuration, seed): wall seconds (including MiniZinc's
compilation), Gecode's search nodes and the status. Example::

    python bench/minizinc_gecode.py --instances set2-5x5,set2-6x6,set2-7x7 --time-limit 120 --seeds 1,2,3
    python bench/minizinc_gecode.py --configs ff-min,ff-rand-luby --instances gen:6x6:3:5:1-5

Instances: shipped names, or ``gen:WxH:FRAME:INNER:SEEDS`` for generated puzzles
(``SEEDS`` like ``1-5`` or ``3``).

Configurations (``--configs``):

    ff-rand-luby   first_fail, random values, Luby restarts (the default)
    ff-min         first_fail, smallest value, no restarts
    wdeg-rand-luby dom_w_deg, random values, Luby restarts
    table          the table variant (the default search; the other configurations use element)
    nobal          no colour-balance constraint
"""

from __future__ import annotations

import argparse
import sys

from pathlib import Path

from emc.backends import get_backend
from emc.model import Goal, Subproblem

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import guard, names, puzzles  # noqa: E402

CONFIGS: dict[str, dict] = {
    "ff-rand-luby": {},
    "ff-min": {"value": "indomain_min", "restart": "none"},
    "wdeg-rand-luby": {"search": "dom_w_deg"},
    "table": {"variant": "table"},
    "nobal": {"balance": False},
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="set2-4x4,set2-5x5,set2-6x6,set2-7x7,set2-8x8")
    ap.add_argument("--configs", default="ff-rand-luby", help=f"comma list of {', '.join(CONFIGS)}")
    ap.add_argument("--goal", choices=("feasibility", "optimisation"), default="feasibility")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--solver", default="gecode")
    args = ap.parse_args(argv)

    backend = get_backend("minizinc")
    header = f"{'instance':<12} {'config':<15} {'seed':>4} {'seconds':>8} {'nodes':>9} {'status':<10} {'score':>7}"
    print(f"# minizinc {backend.version()} / {args.solver}, threads={args.threads}, time limit {args.time_limit:g} s, goal {args.goal}")
    print(header)
    print("-" * len(header))
    for name, puzzle in puzzles(args.instances):
        sp = Subproblem.whole(puzzle, Goal(args.goal))
        for cname in names("configuration", args.configs, CONFIGS):
            for seed in (int(s) for s in args.seeds.split(",")):
                res = backend.solve(sp, time_limit=args.time_limit, threads=args.threads, seed=seed,
                                    solver=args.solver, **CONFIGS[cname])
                score = f"{res.objective}/{sp.max_score}" if res.objective is not None else f"-/{sp.max_score}"
                print(f"{name:<12} {cname:<15} {seed:>4} {res.wall_time:>8.2f} {res.stats.get('nodes', '-'):>9} "
                      f"{res.status.value:<10} {score:>7}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(guard(main))
