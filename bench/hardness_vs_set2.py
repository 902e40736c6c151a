"""Side by side: set 2's puzzle of a size against puzzles drawn at emc's measured peak of that
size, for CaDiCaL and Kissat on emc's CNF, in one run (the target of issue 51).

For each size it solves set 2's instance and the puzzles of seeds 1..N that ``emc generate
WxH --hardest --seed S`` draws (each planted board checked first), with each solver in turn,
one solver process at a time, interleaving the puzzles so that a change of load on the machine
touches both sides alike, and prints the seconds each solver spent (``emc hardness``'s cost:
encoding and process start left out) and the medians. A solve stopped by the time limit counts
at the limit. Example::

    python bench/hardness_vs_set2.py --sizes 7x7,8x8 --seeds 5 --time-limit 1800 --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import emc  # noqa: E402
from emc.generate import generate_hardest, hardest_peak  # noqa: E402
from emc.hardness import measure_puzzle  # noqa: E402

from _common import machine, table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="7x7,8x8", help="board sizes, e.g. 7x7,8x8")
    ap.add_argument("--seeds", type=int, default=5, help="puzzles at the peak: seeds 1..N (default 5)")
    ap.add_argument("--solvers", default="cadical,kissat", help="emc hardness measures (default cadical,kissat)")
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per solve (default 600)")
    ap.add_argument("--json", help="also write every row and the medians here")
    args = ap.parse_args()
    print(machine())
    rows, summary = [], []
    for size in args.sizes.split(","):
        w, h = (int(x) for x in size.split("x"))
        peak = hardest_peak(w, h)
        puzzles = [("set2", emc.load(f"set2-{w}x{h}"))]
        for s in range(1, args.seeds + 1):
            p, planted = generate_hardest(w, h, s)
            assert emc.verify(p, planted).solved, p.name
            puzzles.append(("peak", p))
        counts = ", ".join(f"{k} {v}" for k, v in peak["params"].items())
        print(f"{size}: peak {peak['model']} ({counts}); set 2: set2-{w}x{h}")
        for solver in args.solvers.split(","):
            for side, p in puzzles:
                r = measure_puzzle(p, solver, args.time_limit)
                row = {"size": size, "solver": solver, "side": side, "puzzle": p.name, **r}
                rows.append(row)
                print(f"  {solver:8s} {side:4s} {p.name:32s} {r['cost']:10.2f} s{' (stopped)' if r['timed_out'] else ''}",
                      flush=True)
            for side in ("set2", "peak"):
                costs = [r["cost"] for r in rows if (r["size"], r["solver"], r["side"]) == (size, solver, side)]
                stopped = sum(r["timed_out"] for r in rows if (r["size"], r["solver"], r["side"]) == (size, solver, side))
                summary.append([size, solver, side, len(costs), f"{statistics.median(costs):.2f}",
                                f"{min(costs):.2f}", f"{max(costs):.2f}", stopped])
    print()
    print(table(["size", "solver", "puzzles", "n", "median s", "min s", "max s", "stopped"], summary,
                right={3, 4, 5, 6, 7}))
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine(), "time_limit": args.time_limit, "rows": rows},
                                              indent=1) + "\n")


if __name__ == "__main__":
    main()
