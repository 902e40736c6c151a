"""Randomised restarts against the race of complete searches, for the ``backtrack`` backend.

For each whole puzzle: ``emc solve``'s default (Luby restarts with shuffled candidate orders)
with several seeds, and the race of the eight complete searches without restarts
(``-O restarts=false``), each on ``--threads`` processes with a time limit. Prints seconds,
nodes and the run (or search) that answered; every board is checked by emc's verifier.

    python bench/backtrack_restarts.py                                      # set2 6x6 .. 8x7
    python bench/backtrack_restarts.py --instances set2-8x8 --seeds 0-2 --time-limit 1200 --no-race
    python bench/backtrack_restarts.py --instances set2-8x7 --seeds 0-4 --no-race --no-lookahead
    python bench/backtrack_restarts.py --instances set2-8x7 --seeds 0-9 --no-race --order pairs
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import guard, loaded_backtrack, machine, table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="set2-6x6,set2-7x7,set2-8x6,set2-8x7")
    ap.add_argument("--seeds", default="0-4", help="restart seeds, e.g. 0-4 or 0,3 (default 0-4)")
    ap.add_argument("--time-limit", type=float, default=600)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--restart-nodes", type=int, default=None, help="Luby unit (default: the backend's)")
    ap.add_argument("--no-race", action="store_true", help="skip the race of complete searches")
    ap.add_argument("--no-lookahead", action="store_true", help="turn the row look-ahead off (-O lookahead=false)")
    ap.add_argument("--order", choices=("random", "pairs"), default=None,
                    help="the restarts' candidate order (-O order=...; default: the backend's, random)")
    ap.add_argument("--no-pick", action="store_true",
                    help="keep every run on the tree it draws (-O pick=false; default: the smallest tree after run 63)")
    a = ap.parse_args()

    import emc
    from emc.model import Subproblem

    if "-" in a.seeds:
        lo, hi = a.seeds.split("-")
        seeds = list(range(int(lo), int(hi) + 1))
    else:
        seeds = [int(s) for s in a.seeds.split(",")]
    bt = loaded_backtrack()
    opts = {} if a.restart_nodes is None else {"restart_nodes": a.restart_nodes}
    if a.no_lookahead:
        opts["lookahead"] = False
    if a.order:
        opts["order"] = a.order
    if a.no_pick:
        opts["pick"] = False
    print(f"machine: {machine()}\n")
    rows = []

    def one(name, label, **kw):
        sp = Subproblem.whole(emc.load(name))
        t = time.perf_counter()
        res = bt.solve(sp, time_limit=a.time_limit, threads=a.threads, **kw)
        secs = time.perf_counter() - t
        if res.board is not None and not emc.verify(sp.puzzle, res.board).solved:
            raise SystemExit(f"{name}: the backend returned a wrong board")
        shown = f"{secs:.2f}" if res.status.value in ("optimal", "infeasible") else f"> {a.time_limit:g}"
        rows.append([name, label, shown, f"{res.stats['nodes'] / 1e6:,.0f}", res.stats.get("decided_by", "")])
        print(f"  {name} {label}: {shown} s, {res.stats['nodes']:,} nodes", file=sys.stderr, flush=True)
        return secs if res.status.value in ("optimal", "infeasible") else float("inf")

    summary = []
    for name in a.instances.split(","):
        times = [one(name, f"restarts, seed {s}", seed=s, **opts) for s in seeds]
        if not a.no_race:
            one(name, "race of complete searches", restarts=False, **{k: v for k, v in opts.items() if k == "lookahead"})
        shown = [f"{t:.2f}" if t != float("inf") else f"> {a.time_limit:g}" for t in (statistics.median(times), max(times))]
        summary.append([name, *shown])
    print(table(["instance", "method", "seconds", "M nodes", "answered by"], rows, right={2, 3}))
    print()
    print(table(["instance", "restarts: median seconds", "worst"], summary))


if __name__ == "__main__":
    sys.exit(guard(main))
