"""The edge-slipping backtracker on Eternity II with piece 139 (issue 47, seed 001).

Four measurements, each printed as a Markdown table with the machine line:

* ``rate``: nodes per CPU second of the exact kernel (``emc.backends.backtrack``, row scan, with
  and without its row look-ahead) and of the slipping kernel (no slips, and a slip array,
  row scan and eii's 468 order), in one process, their slices interleaved so that other load on
  the machine falls on all of them alike;
* ``hits``: hits per CPU hour at 460..463 with no heuristic (one search), eii's restarts,
  piece groups, the colour schedule, and both (each with eii's restarts);
* ``best``: best score after ``--seconds`` on ``--threads`` processes, for several seeds;
* ``estimate``: the Markov-chain estimate of nodes per board at 458..463, from the counts of a
  run with one seed, beside the rate measured by a run with another seed.

    python bench/slip.py rate --nodes 200000000
    python bench/slip.py hits --seconds 60 --groups groups.json
    python bench/slip.py best --seconds 60 --threads 2 --seeds 1,2,3
    python bench/slip.py estimate --seconds 120
    python bench/slip.py estimate --puzzle set2-10x10 --order rows --slips 60,1,70,3,80,6,90,10 \\
        --restarts luby --luby-unit 10000000 --scores 170-176 --seconds 60
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import guard, machine, table  # noqa: E402


def rate(a) -> None:
    import numpy as np

    import emc
    from emc.backends.backtrack import Search, make_plan as exact_plan, shuffled
    from emc.heuristics.slip.engine import SlipSearch
    from emc.heuristics.slip.orders import order_cells, slip_array
    from emc.heuristics.slip.plan import make_plan
    from emc.model import Subproblem

    P = emc.load("eternity2")
    sp = Subproblem.whole(P)
    rng = np.random.default_rng(a.seed)
    runs = {}
    for la in (True, False):
        s = Search(shuffled(exact_plan(sp, "rows", lookahead=la), np.random.default_rng(a.seed)))
        runs[f"exact kernel, rows, look-ahead {'on' if la else 'off'}"] = ("exact", s)
    for order, arr in (("rows", "none"), ("rows", a.slips), ("eii-468", "none"), ("eii-468", a.slips)):
        plan = make_plan(P, order_cells(order, P)).shuffled(rng)
        allow = slip_array(arr).allowances(plan.n)
        runs[f"slipping kernel, {order}, slips {arr}"] = ("slip", SlipSearch(plan, allow))
    cpu = {k: 0.0 for k in runs}
    nodes = {k: 0 for k in runs}
    part = a.nodes // a.rounds
    for kind, s in runs.values():  # load the kernels before timing
        s.step(1000, 0) if kind == "exact" else s.step(1000)
    for _ in range(a.rounds):
        for name, (kind, s) in runs.items():
            before = s.nodes
            t = time.process_time()
            if kind == "exact":
                s.step(part, 0)
            else:
                goal = s.nodes + part
                while s.nodes < goal:
                    s.step(goal - s.nodes)
            cpu[name] += time.process_time() - t
            nodes[name] += s.nodes - before
        print(".", end="", file=sys.stderr, flush=True)
    base = nodes[next(iter(runs))] / cpu[next(iter(runs))]
    rows = [[name, f"{nodes[name]:,}", f"{cpu[name]:.1f}", f"{nodes[name] / cpu[name] / 1e6:.1f}",
             f"{nodes[name] / cpu[name] / base:.2f}"] for name in runs]
    print(f"\nmachine: {machine()}\n")
    print(table(["search", "nodes", "CPU s", "M nodes/CPU s", "vs exact (look-ahead on)"], rows))


def _config(name: str, groups, arr: str):
    from emc.heuristics.slip.schedule import auto_schedule
    from emc.heuristics.slip.search import SlipConfig

    import emc

    P = emc.load("eternity2")
    cfg = SlipConfig(slips=arr, save_score=480, restarts="eii")
    if name == "no heuristic":
        return dataclasses.replace(cfg, restarts="none")
    if name == "restarts":
        return cfg
    if name == "groups":
        return dataclasses.replace(cfg, groups=groups)
    if name == "schedule":
        return dataclasses.replace(cfg, schedule=auto_schedule(P))
    return dataclasses.replace(cfg, groups=groups, schedule=auto_schedule(P))


def hits(a) -> None:
    import emc
    from emc.heuristics.slip.groups import read_pool
    from emc.heuristics.slip.search import slip_search

    P = emc.load("eternity2")
    groups = read_pool(a.groups, P) if a.groups else None
    names = ["no heuristic", "restarts"] + (["groups"] if groups else []) + ["schedule"] + (["both"] if groups else [])
    rows = []
    for name in names:
        r = slip_search(P, _config(name, groups, a.slips), seed=a.seed, time_limit=a.seconds)
        h = r.hits_per_cpu_hour()
        rows.append([name, f"{r.nodes:,}", f"{r.stats.seconds:.1f}", f"{r.nodes_per_second / 1e6:.1f}", r.runs,
                     r.best_score] + [f"{h.get(s, 0):.0f}" for s in (460, 461, 462, 463)])
        print(f"  {name}: best {r.best_score}", file=sys.stderr, flush=True)
    print(f"machine: {machine()}\n")
    print(table(["heuristic", "nodes", "CPU s", "M nodes/CPU s", "runs", "best", "460/h", "461/h", "462/h", "463/h"],
                rows))


def best(a) -> None:
    import emc
    from emc.heuristics.slip.search import SlipConfig, slip_search

    P = emc.load("eternity2")
    rows = []
    for seed in (int(x) for x in a.seeds.split(",")):
        t = time.monotonic()
        cfg = SlipConfig(slips=a.slips, restarts=a.restarts, luby_unit=a.luby_unit)
        r = slip_search(P, cfg, seed=seed, threads=a.threads, time_limit=a.seconds)
        rows.append([seed, r.best_score, f"{r.nodes:,}", f"{time.monotonic() - t:.1f}", f"{r.stats.seconds:.1f}",
                     r.hits_at_least(460)])
        print(f"  seed {seed}: {r.best_score}", file=sys.stderr, flush=True)
    print(f"machine: {machine()}\n")
    print(table(["seed", "best", "nodes", "wall s", "CPU s", "boards >= 460"], rows))


def estimate(a) -> None:
    import emc
    from emc.heuristics.slip.estimate import estimate as est, read_stats
    from emc.heuristics.slip.orders import slip_array
    from emc.heuristics.slip.search import SlipConfig, slip_search

    P = emc.load(a.puzzle)
    arr = slip_array(a.slips)
    cfg = SlipConfig(order=a.order, slips=arr, restarts=a.restarts, luby_unit=a.luby_unit, save_score=P.max_score)
    path = "/tmp/emc-bench-slip-stats.json"
    slip_search(P, cfg, seed=a.seed, time_limit=a.seconds, stats_path=path)
    st, doc = read_stats(path)
    e = est(P, st, doc["order"], doc["order"], arr)
    r = slip_search(P, cfg, seed=a.seed + 1, time_limit=a.seconds)
    lo, hi = (int(x) for x in a.scores.split("-"))
    rows = []
    for s in range(lo, hi + 1):
        k = r.hits_at_least(s)
        measured = r.nodes / k if k else float("inf")
        rows.append([s, f"{e.get(s, float('inf')):.3g}", k, f"{measured:.3g}",
                     f"{e.get(s, float('inf')) / measured:.2f}" if k else "-"])
    print(f"machine: {machine()}\n")
    print(f"{a.puzzle}, order {a.order}, slips {a.slips}, restarts {a.restarts}: counts from seed {a.seed} "
          f"({st.nodes:,} nodes), measured with seed {a.seed + 1} ({r.nodes:,} nodes, {r.runs} runs)\n")
    print(table(["score >=", "estimated nodes/board", "boards", "measured nodes/board", "estimate/measured"], rows))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("rate")
    p.add_argument("--nodes", type=int, default=200_000_000, help="nodes per search (default 2e8)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--slips", default="emc-460")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("hits")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--groups", help="group pool (emc slip groups)")
    p.add_argument("--slips", default="emc-458")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("best")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--slips", default="emc-458")
    p.add_argument("--restarts", default="luby")
    p.add_argument("--luby-unit", type=int, default=50_000_000)
    p = sub.add_parser("estimate")
    p.add_argument("--seconds", type=float, default=120)
    p.add_argument("--puzzle", default="eternity2")
    p.add_argument("--order", default="eii-468")
    p.add_argument("--slips", default="emc-458")
    p.add_argument("--restarts", default="eii")
    p.add_argument("--luby-unit", type=int, default=100_000_000)
    p.add_argument("--scores", default="458-463")
    p.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    {"rate": rate, "hits": hits, "best": best, "estimate": estimate}[a.what](a)


if __name__ == "__main__":
    sys.exit(guard(main))
