"""How big are the complete searches of the ``backtrack`` backend? Knuth's estimate.

For each whole puzzle, scan order and pinned corner piece, random root-to-leaf walks
(:meth:`emc.backends.backtrack.Search.estimate`) estimate the nodes the complete scan-row
search needs to enumerate every solution, without running it. Each seed gives one estimate;
the spread between seeds shows how far to trust them (the estimates are heavy-tailed, so
the standard error of one seed understates it). ``--exact`` also runs the complete searches
(small puzzles only) to check the estimates against the true counts.

    python bench/tree_size.py                                        # set2 6x6, 7x7, 8x7, 8x8
    python bench/tree_size.py --instances set2-8x8 --probes 1e6 --seeds 1-3
    python bench/tree_size.py --instances set2-5x5,set2-6x6,set2-7x6 --exact
    python bench/tree_size.py --instances set2-8x8 --scans rows --per-line   # where the nodes are

``--per-line`` adds a table of where each search's nodes are: the estimated share of them
placed in each line of its scan (board rows for the row scan, columns for the column scan).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import guard, machine, names, table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="set2-6x6,set2-7x7,set2-8x7,set2-8x8")
    ap.add_argument("--scans", default="rows,cols")
    ap.add_argument("--probes", type=float, default=3e5, help="random walks per seed (default 3e5)")
    ap.add_argument("--seeds", default="1-3", help="seeds, one estimate each (default 1-3)")
    ap.add_argument("--exact", action="store_true", help="also run each complete search (small puzzles only)")
    ap.add_argument("--no-lookahead", action="store_true", help="switch the row look-ahead off")
    ap.add_argument("--per-line", action="store_true",
                    help="also print each search's share of nodes per line of its scan (row or column)")
    a = ap.parse_args()

    import emc
    from emc.backends.backtrack import Search, make_plan, race_pins
    from emc.model import Subproblem

    lo, _, hi = a.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    probes = int(a.probes)
    print(f"machine: {machine()}")
    print(f"{probes:,} walks per seed, seeds {a.seeds}\n")
    rows = []
    lines = []  # (instance, scan, pinned piece, percent of the nodes per scan line)
    for name in a.instances.split(","):
        sp = Subproblem.whole(emc.load(name))
        for scan in names("scan", a.scans, ("rows", "cols")):
            plan = make_plan(sp, scan, lookahead=not a.no_lookahead)
            for piece, positions in race_pins(sp, plan.order) or [(-1, None)]:
                t = time.perf_counter()
                ests = [Search(plan, piece, positions).estimate(probes, seed) for seed in seeds]
                secs = time.perf_counter() - t
                vals = [e.nodes for e in ests]
                if a.per_line:
                    W = sp.puzzle.width
                    line = plan.order // W if scan == "rows" else plan.order % W  # each position's row or column
                    depth = sum(e.per_depth for e in ests)
                    share = [100 * depth[line == k].sum() / max(depth.sum(), 1e-300) for k in range(line.max() + 1)]
                    lines.append((name, scan, piece + 1 if piece >= 0 else "-", share))
                mean = sum(vals) / len(vals)
                row = [name, scan, piece + 1 if piece >= 0 else "-", f"{mean:.3g}",
                       f"{min(vals):.3g} .. {max(vals):.3g}", f"{secs:.1f}"]
                if a.exact:
                    s = Search(plan, piece, positions)
                    while not s.done:
                        s.step(100_000_000, 0)
                    row += [f"{s.nodes:,}", f"{s.solutions:,}"]
                rows.append(row)
                print("  " + " ".join(str(x) for x in row), file=sys.stderr, flush=True)
    headers = ["instance", "scan", "pinned corner piece", "estimated nodes (mean of seeds)", "seeds' range",
               "seconds"]
    if a.exact:
        headers += ["exact nodes", "solutions"]
    print(table(headers, rows, right=set(range(2, len(headers)))))
    if lines:
        n = max(len(x[3]) for x in lines)
        print("\nestimated share of each search's nodes per line of its scan (%; line 1: the top row or the "
              "left column)\n")
        print(table(["instance", "scan", "pinned corner piece"] + [f"line {k + 1}" for k in range(n)],
                    [[i, sc, pc] + [f"{v:.1f}" for v in share] + [""] * (n - len(share)) for i, sc, pc, share in lines],
                    right=set(range(2, n + 3))))


if __name__ == "__main__":
    sys.exit(guard(main))
