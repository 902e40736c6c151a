"""Perfect boards per node for the restarts' candidate orders of the ``backtrack`` backend.

Runs restart runs of a fixed number of nodes each (``--run-nodes``) on one process, for
``--seconds`` per (instance, order): run ``i`` draws its search (scan order, pinned corner
piece, among those of the ``--scans`` given; after run 63 the tree estimated smallest, unless
``--no-pick``) and its candidate order from ``(--seed, i)`` as ``emc solve``'s restarts do, with
``random`` (the default) or ``pairs`` (common corner pairs first, with ``--noise``). Prints the
runs made, the boards found (each checked by emc's verifier), the nodes searched and nodes per
board: the rate that decides the time to a first board, whatever the restart schedule (success
per node does not depend on run length here, see the README).

    python bench/backtrack_orders.py --instances set2-7x7 --seconds 60
    python bench/backtrack_orders.py --instances set2-8x7 --orders random --scans cols --no-pick --seconds 480
    python bench/backtrack_orders.py --instances set2-8x8 --orders pairs --noise 0.3 --seconds 4500 \\
        --run-nodes 8000000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import BenchError, guard, loaded_backtrack, machine, names, table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="set2-7x7,set2-8x6")
    ap.add_argument("--orders", default="random,pairs", help="comma-separated: random, pairs (default both)")
    ap.add_argument("--seconds", type=float, default=60, help="per instance and order (default 60)")
    ap.add_argument("--run-nodes", type=int, default=2_000_000, help="nodes per run (default 2,000,000)")
    ap.add_argument("--noise", type=float, default=None, help="noise on the pair scores (default: the backend's)")
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--scans", default="rows,cols",
                    help="the scan orders whose searches the runs draw from (default rows,cols: all eight)")
    ap.add_argument("--no-pick", action="store_true",
                    help="keep every run on the tree it draws (as emc solve -O pick=false; default: the backend's "
                         "tree picking after run 63)")
    a = ap.parse_args()
    if a.seconds <= 0 or a.run_nodes < 1 or (a.noise is not None and a.noise < 0):
        raise BenchError("--seconds and --run-nodes must be positive and --noise at least 0")

    import emc
    from emc.backends.backtrack import ORDER_NOISE, ORDERS, Restarts, race_trees
    from emc.model import Subproblem

    orders = names("order", a.orders, ORDERS)
    scans = tuple(names("scan", a.scans, ("rows", "cols")))
    noise = ORDER_NOISE if a.noise is None else a.noise
    loaded_backtrack()
    print(f"machine: {machine()}\n")
    rows = []
    for name in a.instances.split(","):
        sp = Subproblem.whole(emc.load(name))
        trees = race_trees(sp, scans, True)
        for order in orders:
            R = Restarts(sp, trees, a.seed, a.run_nodes, a.run_nodes, order=order, noise=noise,
                         pick=not a.no_pick)  # the backend's runs
            t0 = time.monotonic()
            runs = boards = nodes = 0
            while time.monotonic() - t0 < a.seconds:
                runs += 1
                s, _ = R.search(runs)
                s.step(a.run_nodes, 1)
                nodes += s.nodes
                if s.solutions:
                    if not emc.verify(sp.puzzle, s.board(sp)).solved:
                        raise SystemExit(f"{name}: the search returned a wrong board")
                    boards += 1
            secs = time.monotonic() - t0
            per = f"{nodes / boards / 1e6:,.1f}" if boards else f"> {nodes / 1e6:,.0f}"
            label = order + (f" (noise {noise:g})" if order == "pairs" else "") + \
                ("" if set(scans) == {"rows", "cols"} else f", {'+'.join(scans)} only")
            rows.append([name, label, runs, boards, f"{nodes / 1e6:,.0f}", per, f"{nodes / secs / 1e6:.1f}"])
            print(f"  {name} {label}: {boards} boards in {runs} runs", file=sys.stderr, flush=True)
    print(table(["instance", "order", "runs", "boards", "M nodes", "M nodes per board", "M nodes/s"], rows,
                right={2, 3, 4, 5, 6}))


if __name__ == "__main__":
    sys.exit(guard(main))
