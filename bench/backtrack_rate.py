"""Search speed of the ``backtrack`` backend: nodes per second on 1, 2, ... processes.

Runs ``emc solve``'s default search (Luby restarts) on a puzzle it does not finish within the
time limit (set 2's 8x8 by default), once per thread count, and prints nodes, seconds and
nodes per second, with the speed-up over one process. A run that finds a board early is
marked; its rate still counts. Tree picking is off here (``-O pick=false``): the seconds its
estimates take would count as search time without nodes.

    python bench/backtrack_rate.py                                   # set2-8x8, 1 and 2 processes, 30 s each
    python bench/backtrack_rate.py --instances set2-8x7,set2-8x8 --threads 1,2 --seconds 60
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import guard, loaded_backtrack, machine, table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="set2-8x8")
    ap.add_argument("--threads", default="1,2", help="process counts, comma-separated (default 1,2)")
    ap.add_argument("--seconds", type=float, default=30, help="time limit per run (default 30)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-lookahead", action="store_true", help="switch the row look-ahead off (-O lookahead=false)")
    a = ap.parse_args()

    import emc
    from emc.model import Subproblem

    bt = loaded_backtrack()
    print(f"machine: {machine()}\n")
    rows = []
    for name in a.instances.split(","):
        sp = Subproblem.whole(emc.load(name))
        base = None
        for k in (int(x) for x in a.threads.split(",")):
            t = time.perf_counter()
            res = bt.solve(sp, time_limit=a.seconds, threads=k, seed=a.seed, lookahead=not a.no_lookahead, pick=False)
            secs = time.perf_counter() - t
            rate = res.stats["nodes"] / secs
            base = base or rate
            note = "" if res.status.value == "unknown" else f"answered ({res.status.value})"
            rows.append([name, k, f"{res.stats['nodes']:,}", f"{secs:.1f}", f"{rate / 1e6:.1f}", f"{rate / base:.2f}", note])
            print(f"  {name} {k} process(es): {rate / 1e6:.1f} M nodes/s", file=sys.stderr, flush=True)
    print(table(["instance", "processes", "nodes", "seconds", "M nodes/s", "speed-up", "note"], rows,
                right={1, 2, 3, 4, 5}))


if __name__ == "__main__":
    sys.exit(guard(main))
