"""How deep the backtracking starts of seed 003 (section 4.2) get: for each cell order, the cells
the search filled in its deepest partial board, the score of the start (that board completed at
random within each class), and nodes per second, over a few seeds.

The paper gives its search 10 s and finds scan-row best (Table III, after 100,000 iterations of
the hyper-heuristic: scan-row 451.4 on average, inverse spiral 442.7, mirrored scan-row 438.2,
spiral 423.5, a random start 421.2).

    python bench/start_depths.py                                   # eternity2, hints ignored, corner fixed, 2 s x 2 seeds
    python bench/start_depths.py --instances meta-16x16 --seconds 10 --seeds 0-4
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import BenchError, guard, machine, names, table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="eternity2")
    ap.add_argument("--orders", default="rows,spiral,inverse-spiral,mirrored-rows")
    ap.add_argument("--seconds", type=float, default=2.0, help="search time per start (default 2; the paper: 10)")
    ap.add_argument("--seeds", default="0-1", help="seeds, FIRST-LAST (default 0-1)")
    ap.add_argument("--hints", action="store_true", help="honour the hints (default: ignore them, as the paper)")
    a = ap.parse_args()

    import numpy as np

    import emc
    from emc.heuristics.core.starts import ORDERS, backtrack_board
    from emc.score import score

    orders = names("order", a.orders, ORDERS)
    try:
        first, last = (int(x) for x in a.seeds.split("-"))
    except ValueError:
        raise BenchError(f"--seeds {a.seeds!r} is not FIRST-LAST") from None
    if a.seconds <= 0 or last < first:
        raise BenchError("--seconds must be positive and --seeds FIRST-LAST with FIRST <= LAST")
    print(f"machine: {machine()}\n")
    rows = []
    for name in [x.strip() for x in a.instances.split(",") if x.strip()]:
        puzzle = emc.load(name)
        corner = "random" if puzzle.width == puzzle.height and not (a.hints and puzzle.hints) else None
        for order in orders:
            got = [backtrack_board(puzzle, order, a.seconds, seed, hints=a.hints, corner=corner)
                   for seed in range(first, last + 1)]
            depth = [r.filled for r in got]
            scores = [score(puzzle, r.board) for r in got]
            rate = sum(r.nodes for r in got) / sum(r.seconds for r in got)
            rows.append([name, order, f"{np.mean(depth):.1f} (of {got[0].free})", min(depth), max(depth),
                         f"{np.mean(scores):.1f}", f"{rate / 1e6:.2f}"])
            print(f"  {name} {order}: depth {np.mean(depth):.1f}", file=sys.stderr, flush=True)
    print(table(["instance", "order", "cells filled, mean", "min", "max", "start score, mean", "M nodes/s"], rows,
                right={2, 3, 4, 5, 6}))
    print(f"\n{a.seconds:g} s per start, seeds {first}-{last}, hints {'honoured' if a.hints else 'ignored'}, "
          "a corner piece fixed on the top-left cell of square boards")


if __name__ == "__main__":
    sys.exit(guard(main))
