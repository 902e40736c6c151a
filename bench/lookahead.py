"""What the row look-ahead of the ``backtrack`` backend buys: nodes, speed, boards per second.

For each whole puzzle, the same searches with the look-ahead on (the default) and off
(``-O lookahead=false``):

- complete searches (rows, first corner piece pinned; ``--exact`` puzzles): nodes, solutions
  and seconds of the whole tree;
- Knuth's estimate of the complete search's size (``--estimate`` puzzles; mean of the seeds);
- ``--seconds`` of the randomised restarts that ``emc solve`` runs, on one process
  (``--restarts`` puzzles; each setting with its default Luby unit): perfect boards found
  (each run that finds one counts, then the next run starts), nodes per second and seconds
  per board.

    python bench/lookahead.py                                        # the defaults below
    python bench/lookahead.py --exact set2-6x6 --estimate set2-8x8 --restarts set2-7x7 --seconds 60
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import guard, machine, table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--exact", default="set2-6x6,set2-7x6", help="puzzles for complete searches ('' for none)")
    ap.add_argument("--estimate", default="set2-7x7,set2-8x7,set2-8x8", help="puzzles for tree-size estimates")
    ap.add_argument("--restarts", default="set2-7x7,set2-8x7", help="puzzles for timed restarts")
    ap.add_argument("--probes", type=float, default=3e5, help="random walks per estimate (default 3e5)")
    ap.add_argument("--seeds", default="1-3", help="estimate seeds (default 1-3)")
    ap.add_argument("--seconds", type=float, default=120, help="restarts: seconds per setting (default 120)")
    a = ap.parse_args()

    import emc
    from emc.backends.backtrack import (RESTART_NODES, RESTART_NODES_LOOKAHEAD, SLICE_NODES, Restarts, Search, make_plan,
                                        race_pins, race_trees)
    from emc.model import Subproblem

    lo, _, hi = a.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    names = lambda s: [x for x in s.split(",") if x]  # noqa: E731
    print(f"machine: {machine()}\n")
    Search(make_plan(Subproblem.whole(emc.load("set2-4x4")))).step(10, 1)  # load the compiled kernel

    def pinned(name):
        """Per setting (off, on): the rows search of ``name`` with its first corner piece pinned."""
        sp = Subproblem.whole(emc.load(name))
        for la in (False, True):
            plan = make_plan(sp, "rows", lookahead=la)
            yield (plan, *race_pins(sp, plan.order)[0])

    rows = []
    for name in names(a.exact):
        row = [name]
        for plan, piece, positions in pinned(name):
            s = Search(plan, piece, positions)
            t = time.perf_counter()
            while not s.done:
                s.step(100_000_000, 0)
            row += [f"{s.nodes:,}", f"{time.perf_counter() - t:.2f}"]
        rows.append(row + [s.solutions])
        print("  " + " ".join(map(str, rows[-1])), file=sys.stderr, flush=True)
    if rows:
        print("Complete searches (rows, first corner piece pinned):\n")
        print(table(["puzzle", "nodes, off", "seconds, off", "nodes, on", "seconds, on", "solutions"], rows))
        print()

    rows = []
    for name in names(a.estimate):
        row = [name]
        for plan, piece, positions in pinned(name):
            ests = [Search(plan, piece, positions).estimate(int(a.probes), seed).nodes for seed in seeds]
            row.append(sum(ests) / len(ests))
        rows.append([name, f"{row[1]:.3g}", f"{row[2]:.3g}", f"{row[1] / row[2]:.2f}"])
        print("  " + " ".join(map(str, rows[-1])), file=sys.stderr, flush=True)
    if rows:
        print(f"Estimated nodes of one complete search (rows, first corner piece pinned; {int(a.probes):,} walks, "
              f"seeds {a.seeds}):\n")
        print(table(["puzzle", "off", "on", "off / on"], rows))
        print()

    rows = []
    for name in names(a.restarts):
        sp = Subproblem.whole(emc.load(name))
        trees = race_trees(sp, ("rows", "cols"), race=True)
        for la in (False, True):
            # every run on the tree it draws (no tree picking): the look-ahead's effect alone
            R = Restarts(sp, trees, 0, RESTART_NODES_LOOKAHEAD if la else RESTART_NODES, SLICE_NODES, lookahead=la,
                         pick=False)
            deadline = time.monotonic() + a.seconds
            t = time.perf_counter()
            boards = nodes = 0
            i = 1
            while time.monotonic() < deadline:
                kind, s, _ = R.run(i, deadline)
                nodes += s.nodes
                if kind == "solution":
                    if not emc.verify(sp.puzzle, s.board(sp)).solved:
                        raise SystemExit(f"{name}: a run returned a wrong board")
                    boards += 1
                i += 1
            secs = time.perf_counter() - t
            rows.append([name, "on" if la else "off", boards, f"{nodes / secs / 1e6:.1f}",
                         f"{nodes / max(boards, 1) / 1e6:.3g}", f"{secs / boards:.3g}" if boards else f"> {secs:.0f}"])
            print("  " + " ".join(map(str, rows[-1])), file=sys.stderr, flush=True)
    if rows:
        print(f"Restarts, seed 0, one process, {a.seconds:g} s per setting (perfect boards found):\n")
        print(table(["puzzle", "look-ahead", "boards", "M nodes/s", "M nodes per board", "seconds per board"], rows))


if __name__ == "__main__":
    sys.exit(guard(main))
