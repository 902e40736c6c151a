"""Sizes of the searches the ``backtrack`` backend races, one by one.

For each whole puzzle, each scan order and each pinned corner piece: the nodes (placements)
the compiled scan-row search needs to reach its first perfect board, on one core, stopping
at ``--limit`` nodes (shown as ``>LIMIT``). This is what decides how fast the race is.

    python bench/backtrack_trees.py                                  # set2 6x6, 7x6, 7x7
    python bench/backtrack_trees.py --instances set2-8x8 --limit 4e9
    python bench/backtrack_trees.py --instances set2-7x7,set2-8x6 --no-budget   # without the edge budgets
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import guard, machine, names, table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="set2-6x6,set2-7x6,set2-7x7")
    ap.add_argument("--scans", default="rows,cols")
    ap.add_argument("--limit", type=float, default=3e9, help="node limit per search (default 3e9)")
    ap.add_argument("--no-budget", action="store_true", help="switch the edge-colour budgets off")
    ap.add_argument("--no-lookahead", action="store_true", help="switch the row look-ahead off")
    a = ap.parse_args()

    import emc
    from emc.backends.backtrack import Search, make_plan, race_pins
    from emc.model import Subproblem

    limit = int(a.limit)
    print(f"machine: {machine()}\n")
    rows = []
    for name in a.instances.split(","):
        sp = Subproblem.whole(emc.load(name))
        for scan in names("scan", a.scans, ("rows", "cols")):
            plan = make_plan(sp, scan, lookahead=not a.no_lookahead)
            if a.no_budget:  # a new Plan: its packed table S is derived from these arrays
                none = np.full_like(plan.right_slot, -1)
                plan = dataclasses.replace(plan, right_slot=none, bottom_slot=none.copy())
            Search(plan).step(0, 1)  # load the compiled kernel outside the timing
            for piece, positions in race_pins(sp, plan.order):
                s = Search(plan, piece, positions)
                t = time.perf_counter()
                while not s.done and s.solutions == 0 and s.nodes < limit:
                    s.step(50_000_000, 1)
                secs = time.perf_counter() - t
                nodes = f"{s.nodes:,}" if (s.done or s.solutions) else f">{limit:,}"
                rows.append([name, scan, piece + 1, nodes, f"{secs:.1f}", f"{s.nodes / secs / 1e6:.1f}" if secs else ""])
                print(f"  {name} {scan} piece {piece + 1}: {nodes} nodes in {secs:.1f} s", file=sys.stderr, flush=True)
    print(table(["instance", "scan", "pinned corner piece", "nodes to first solution", "seconds", "M nodes/s"],
                rows, right={2, 3, 4, 5}))
    print()
    print(summary(rows))
    total_nodes = sum(int(r[3].lstrip(">").replace(",", "")) for r in rows)
    total_secs = sum(float(r[4]) for r in rows)
    print(f"\nall searches: {total_nodes:,} nodes in {total_secs:.1f} s"
          f"{' (edge budgets off)' if a.no_budget else ''}")


def summary(rows: list[list]) -> str:
    """The README's layout: one row per puzzle, the pinned corners' node counts (millions) side
    by side for each scan."""
    scans = list(dict.fromkeys(r[1] for r in rows))
    by = {}
    for name, scan, piece, nodes, _secs, _rate in rows:
        n = nodes.replace(",", "")
        by.setdefault(name, {}).setdefault(scan, []).append(
            (piece, ">" + f"{int(n[1:]) / 1e6:.3g}" if n.startswith(">") else f"{int(n) / 1e6:.3g}"))
    heads = [f"{'columns' if s == 'cols' else s}, pinned corner piece 1 / 2 / 3 / 4 (million nodes)" for s in scans]
    return table(["puzzle", *heads], [[name, *(" / ".join(t for _, t in sorted(v.get(s, []))) for s in scans)] for name, v in by.items()],
                 right=set())


if __name__ == "__main__":
    sys.exit(guard(main))
