"""The MILP of seed 000 (Salassa et al.) beside Table 1: model sizes and solve times.

For each whole puzzle set2-3x3 .. set2-8x8 (no hints; symmetry breaking by column bounds):
the paper variant's variables and constraints next to Table 1's, then the time each of
cbc/highs x paper/compact takes on the optimisation problem (maximum matched edges), next
to the CPLEX 12.6 times Table 1 reports. A time is shown alone when the run proved the
optimum; otherwise the best score follows in parentheses ("-" when there was no board).

    python bench/milp.py                       # 60 s per run, 1 thread
    python bench/milp.py --time-limit 300 --instances set2-5x5,set2-6x6
    python bench/milp.py --goal feasibility --backends highs

The cores may be shared with other work; the machine line says what ran it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import guard, machine, table  # noqa: E402

#: Seed 000, Table 1: MILP sizes and CPLEX seconds (score in parentheses where not optimal).
TABLE1 = {
    "set2-3x3": (336, 126, "0.1", "0.1"),
    "set2-4x4": (1048, 288, "0.1", "0.1"),
    "set2-5x5": (2540, 630, "16.7", "1.2"),
    "set2-6x6": (5244, 1056, "243.5", "158.5"),
    "set2-7x7": (9688, 1638, "3600 (81)", "3600 (81)"),
    "set2-8x8": (16496, 2624, "3600 (103)", "3600 (103)"),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default=",".join(TABLE1))
    ap.add_argument("--backends", default="cbc,highs")
    ap.add_argument("--variants", default="paper,compact")
    ap.add_argument("--goal", choices=("optimisation", "feasibility"), default="optimisation")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per run (default 60)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    import emc
    from emc.backends import get_backend
    from emc.encoders import encode
    from emc.model import Goal, Subproblem

    goal = Goal(args.goal)
    combos = [(b, v) for b in args.backends.split(",") for v in args.variants.split(",")]
    versions = ", ".join(f"{b} {get_backend(b).version()}" for b in dict.fromkeys(b for b, _ in combos))
    print(f"# {machine()}")
    print(f"# {versions}; goal {goal.value}, time limit {args.time_limit:g} s, {args.threads} thread(s), seed {args.seed}")
    headers = ["instance", "vars ours / paper", "cons ours / paper"]
    headers += [f"{b}/{v}" for b, v in combos] + ["CPLEX 1 thr", "CPLEX 4 thr"]
    rows = []
    for name in args.instances.split(","):
        p = emc.load(name)
        sp = Subproblem.whole(p, goal)
        sizes = encode(sp, "milp", "paper").sizes()
        pv, pc, c1, c4 = TABLE1.get(name, ("?", "?", "", ""))
        row = [name, f"{sizes['variables']} / {pv}", f"{sizes['constraints']} / {pc}"]
        for backend, variant in combos:
            t0 = time.perf_counter()
            res = get_backend(backend).solve(sp, time_limit=args.time_limit, threads=args.threads, seed=args.seed,
                                             variant=variant)
            secs = time.perf_counter() - t0
            if res.status.value == "optimal":
                cell = f"{secs:.1f}"
            else:
                cell = f"{secs:.1f} ({res.objective if res.objective is not None else '-'})"
            row.append(cell)
            print(f"  {name} {backend}/{variant}: {res.status.value} {res.objective}/{res.max_score} "
                  f"bound {res.bound} in {secs:.1f} s", file=sys.stderr, flush=True)
        row += [c1, c4]
        rows.append(row)
    print(table(headers, rows))
    return 0


if __name__ == "__main__":
    sys.exit(guard(main))
