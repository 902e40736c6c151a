"""Benchmark of the guide-and-observe hyper-heuristic (method ``gao``) against seed 003's tables.

Each table runs the paper's experiment with emc's implementation, R runs per column (seeds
1..R, each run in its own process through ``emc optimise``, ``--jobs`` at a time), and prints
max / min / average / standard deviation per column beside the paper's figures:

* ``t2``: the acceptance criteria (IE, AA, ILTA, GD, SA) on Eternity II, hints ignored,
  100,000 iterations guided by Obj4, a 10 s scan-row backtracking start (Table II);
* ``t3``: the starting boards (random; backtracking in the scan-row, spiral, inverse-spiral and
  mirrored scan-row orders, 10 s each), improving-or-equal, 100,000 iterations (Table III);
* ``t4``: the scan-row start's seconds, improving-or-equal, 100,000 iterations (Table IV);
* ``rate``: iterations per second of the whole loop with the paper's heuristic mix and
  settings, one core, on META 16x16 and Eternity II (2 million iterations after a short start;
  seed 003 reports about 4,000 per second);
* ``t5``: the whole method with the paper's defaults on META 10x10 .. 16x16 and Eternity II
  for a time limit, one tenth of the paper's by default (``--time-scale``; Table V), with the
  time to the best board.

Tables II-IV are one phase of 100,000 iterations guided by Obj4 and observing Obj1 (the paper
calls them one-phase searches in Tables III and IV; Table II's text gives the same settings);
``--phases 2`` runs both phases of Algorithm 2 instead. The paper's starts are timed (10 s of
backtracking); here a start of S seconds is ``S x --start-rate`` placements of the backtracking
fill (3 million per second by default, about what it places on one core of the machines the
docs' tables were measured on), so Tables II-IV involve no clock: the same seed gives the same
run on any machine, whatever its load. Table V's runs end at a time limit.

Examples::

    python bench/gao.py --tables t2 --runs 10
    python bench/gao.py --tables t3,t4 --runs 10 --t4-times 0.5,1,3,6,10,30,60
    python bench/gao.py --tables t5 --runs 5 --jobs 2 --out generated/gao-t5.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import BenchError, guard, machine, table  # noqa: E402

#: Seed 003's tables: column -> (max, min, average, standard deviation[, time to best of all in s]).
PAPER = {
    "t2": {"ie": (456, 427, 451.3, 5.2), "aa": (426, 372, 403.2, 13.9), "ilta": (458, 448, 452.9, 2.7),
           "gd": (455, 448, 452.1, 2.0), "sa": (456, 450, 452.4, 1.7)},
    "t3": {"random": (430, 413, 421.2, 3.7), "rows": (456, 438, 451.4, 3.4), "spiral": (441, 413, 423.5, 7.1),
           "inverse-spiral": (447, 432, 442.7, 3.3), "mirrored-rows": (448, 422, 438.2, 7.9)},
    "t4": {0.5: (453, 434, 443.9, 6.4), 1: (455, 429, 447.4, 5.9), 3: (455, 436, 448.6, 4.8), 6: (455, 446, 451.3, 2.1),
           10: (458, 438, 451.5, 4.1), 30: (456, 448, 452.3, 1.8), 60: (457, 448, 453.0, 1.8),
           600: (458, 452, 454.0, 1.5), 3600: (457, 451, 454.2, 1.6)},
    "t5": {"meta-10x10": (172, 168, 170.4, 0.9, 46.0), "meta-12x12": (254, 250, 251.9, 0.9, 656.4),
           "meta-14x14": (348, 344, 345.8, 1.0, 762.4), "meta-16x16": (460, 453, 457.3, 1.5, 1563.9),
           "eternity2": (461, 455, 457.6, 1.5, 2871.97)},
}
#: Table V's time limits in seconds (the META 2010 contest's).
T5_SECONDS = {"meta-10x10": 1200, "meta-12x12": 1800, "meta-14x14": 2400, "meta-16x16": 3600, "eternity2": 3600}
T4_DEFAULT = "0.5,1,3,6,10,30,60"


def _run(puzzle: str, seed: int, options: dict, time_limit: float | None) -> dict:
    """One ``emc optimise -m gao`` run in its own process; its --result record."""
    with tempfile.TemporaryDirectory() as d:
        res = Path(d) / "r.json"
        cmd = [sys.executable, "-m", "emc", "optimise", puzzle, "-m", "gao", "--seed", str(seed), "--progress-every",
               "0", "--result", str(res)]
        for k, v in options.items():
            cmd += ["-O", f"{k}={v}"]
        if time_limit is not None:
            cmd += ["-t", str(time_limit)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BenchError(f"{' '.join(cmd[2:])} failed: {proc.stderr.strip().splitlines()[-1:]}")
        return json.loads(res.read_text())


def _columns(name: str, args) -> list[tuple[str, str, dict, float | None]]:
    """(column key, puzzle, options, time limit) of each column of table ``name``."""
    one = {"iterations": 100_000, "hints": "ignore", "phase1_share": 1.0 if args.phases == 1 else 0.75}
    def nodes(seconds: float) -> dict:
        return {"start_nodes": max(1, int(seconds * args.start_rate)), "start_seconds": 10**6}

    if name == "t2":
        return [(acc, "eternity2", {**one, "acceptance": acc, **nodes(10)}, None) for acc in PAPER["t2"]]
    if name == "t3":
        cols = [("random", "eternity2", {**one, "acceptance": "ie", "start": "random"}, None)]
        return cols + [(o, "eternity2", {**one, "acceptance": "ie", "start_order": o, **nodes(10)}, None)
                       for o in ("rows", "spiral", "inverse-spiral", "mirrored-rows")]
    if name == "t4":
        times = [float(t) for t in args.t4_times.split(",")]
        return [(t if t != int(t) else int(t), "eternity2", {**one, "acceptance": "ie", **nodes(t)}, None)
                for t in times]
    if name == "t5":
        return [(p, p, {"hints": "ignore", **args.t5_options}, T5_SECONDS[p] * args.time_scale)
                for p in args.t5_instances.split(",")]
    if name == "rate":
        return [(p, p, {"hints": "ignore", "iterations": 2_000_000, "start_nodes": 100_000}, None)
                for p in ("meta-16x16", "eternity2")]
    raise BenchError(f"unknown table {name!r} (choose from: t2, t3, t4, t5, rate)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", default="t2", help="t2, t3, t4, t5, comma-separated (default t2)")
    ap.add_argument("--runs", type=int, default=10, help="runs per column (default 10)")
    ap.add_argument("--jobs", type=int, default=1, help="runs at a time, one process each (default 1)")
    ap.add_argument("--phases", type=int, choices=(1, 2), default=1, help="tables II-IV: 1 (default) or 2 phases")
    ap.add_argument("--start-rate", type=float, default=3e6,
                    help="tables II-IV: backtracking placements per second of a start (default 3e6)")
    ap.add_argument("--t4-times", default=T4_DEFAULT, help=f"table IV's start seconds (default {T4_DEFAULT})")
    ap.add_argument("--t5-instances", default=",".join(T5_SECONDS), help="table V's instances")
    ap.add_argument("--time-scale", type=float, default=0.1, help="table V: share of the paper's times (default 0.1)")
    ap.add_argument("-O", dest="t5_opts", action="append", default=[], metavar="KEY=VALUE",
                    help="table V: an option of gao beside the paper's defaults (repeatable)")
    ap.add_argument("--out", help="write every run's record here (JSON)")
    args = ap.parse_args()
    if args.runs < 1 or args.jobs < 1:
        raise BenchError("--runs and --jobs are at least 1")
    args.t5_options = dict(o.split("=", 1) for o in args.t5_opts)
    plan = [(t, col, p, o, tl, s) for t in args.tables.split(",") for col, p, o, tl in _columns(t.strip(), args)
            for s in range(1, args.runs + 1)]
    print(f"# {machine()}; {len(plan)} runs, {args.jobs} at a time", flush=True)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        docs = list(pool.map(lambda job: _run(job[2], job[5], job[3], job[4]), plan))
    results: dict = {}
    for (t, col, *_), doc in zip(plan, docs):
        results.setdefault(t, {}).setdefault(col, []).append(doc)
    for t, cols in results.items():
        if t == "rate":
            rows = []
            for col, ds in cols.items():
                its = [sum(p["iterations"] for p in d["details"]["phases"]) for d in ds]
                secs = [sum(p["seconds"] for p in d["details"]["phases"]) for d in ds]
                rows.append([col, f"{statistics.mean(i / s for i, s in zip(its, secs)):,.0f}", "about 4,000"])
            print("\nrate: iterations per second of the loop (the start left out), one core")
            print(table(["puzzle", "emc", "seed 003"], rows))
            continue
        head = ["", *[str(c) for c in cols]]
        rows = []
        for label, f in (("Max.", max), ("Min.", min), ("Average", statistics.mean),
                         ("Stdev.", lambda xs: statistics.stdev(xs) if len(xs) > 1 else 0.0)):
            row = [label]
            for col, ds in cols.items():
                v = f([d["final"]["score"] for d in ds])
                paper = PAPER[t].get(col)
                i = ("Max.", "Min.", "Average", "Stdev.").index(label)
                mine = f"{v:.1f}" if label in ("Average", "Stdev.") else str(v)
                row.append(mine + (f" ({paper[i]})" if paper else ""))
            rows.append(row)
        if t == "t5":
            row = ["Time for best over all (s)"]
            for col, ds in cols.items():
                best = max(ds, key=lambda d: (d["final"]["score"], -d["final"]["time_to_best"]))
                row.append(f"{best['final']['time_to_best']:.1f} ({PAPER['t5'][col][4]})")
            rows.append(row)
            row = ["Iterations per second"]
            for col, ds in cols.items():
                row.append(f"{statistics.mean(d['final']['rate'] or 0 for d in ds):,.0f}")
            rows.append(row)
        print(f"\n{t}: emc's figures, the paper's in brackets ({len(next(iter(cols.values())))} runs per column)")
        print(table(head, rows))
    print(f"\n{time.perf_counter() - t0:.0f} s in all")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({t: {str(c): ds for c, ds in cols.items()} for t, cols in results.items()}))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONPATH", str(Path(__file__).resolve().parent.parent))
    sys.exit(guard(main))
