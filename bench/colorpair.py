"""Benchmark the ColorPair search (seed 002) as the paper's Tables 1-3: full enumeration of
uniform puzzles with their corner pieces fixed, by ``colorpair`` with its defaults, by its
ablations, by ``backtrack`` and by ``cpsat``; and the first solution of set 2's puzzles.

Instances: a folder written by ``emc suite`` (``--suite DIR``: every row of its manifest,
once per puzzle and cell set), or ``--instances NxN:K:SEEDS,...`` (uniform puzzles of ``emc
generate --model uniform``, every cell but the four corners free, as ``--free all~corners``
keeps them). Example::

    python bench/colorpair.py --instances 7x7:6:1-3,9x9:10:1 --time-limit 170
    python bench/colorpair.py --suite generated/seed002 --configs best,backtrack --time-limit 3600
    python bench/colorpair.py --solve set2-7x7,set2-8x8 --time-limit 170 --seeds 0,1,2

Configurations (``--configs``, default all but the extra heuristics): ``best`` (the defaults),
``nobj`` (no backjumping), ``nopre`` (no pre-emption), ``noshave`` (no shaving), ``minoffer``
(the MinOffer heuristic), ``expoffer``, ``expratio``, ``maxfilter`` (the other heuristics of the
paper's Table 3), ``backtrack``, ``cpsat``. Seconds are CPU seconds of this process (the runs
are single-threaded: on a shared machine they move less than wall seconds; ``--json`` keeps
both). A run cut by ``--time-limit`` shows as ``>T``.

Prints: Table 1 (per instance, by the best time), Table 2 (node and time ratios of backtrack to
colorpair by difficulty, the best time's class as in the paper), Table 3 (the heuristics'
gains over MinOffer), the nodes per second, and each target of issue 48 with where it stands.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import BenchError, guard, machine, table  # noqa: E402

CONFIGS = {
    "best": ("colorpair", {}),
    "nobj": ("colorpair", {"backjumping": False}),
    "nopre": ("colorpair", {"preemption": False}),
    "noshave": ("colorpair", {"shaving": False}),
    "minoffer": ("colorpair", {"heuristic": "min-offer"}),
    "expoffer": ("colorpair", {"heuristic": "min-expected-offer"}),
    "expratio": ("colorpair", {"heuristic": "min-expected-ratio"}),
    "maxfilter": ("colorpair", {"heuristic": "max-expected-filtering"}),
    "backtrack": ("backtrack", {}),
    "cpsat": ("cpsat", {}),
}
DEFAULT_CONFIGS = "best,nobj,nopre,noshave,minoffer,backtrack,cpsat"
#: the paper's difficulty classes (the best time of any configuration), upper bounds in seconds
CLASSES = [("< 1 s", 1), ("1 s to 10 s", 10), ("11 s to 3 min", 180), ("3 min to 60 min", 3600), ("> 60 min", math.inf)]


def instances(spec: str) -> list[tuple[str, object]]:
    """``NxN:K:SEEDS`` items: (name, sub-problem) with every cell but the corners free."""
    from emc.cells import make_subproblem
    from emc.generate import generate_uniform

    out = []
    for item in (x.strip() for x in spec.split(",") if x.strip()):
        m = re.fullmatch(r"([0-9]+)x([0-9]+):([0-9]+):([0-9]+)(?:-([0-9]+))?", item)
        if not m:
            raise BenchError(f"{item!r} is not NxN:K:SEEDS (e.g. 9x9:10:1-5)")
        w, h, k, lo = (int(m.group(i)) for i in range(1, 5))
        for seed in range(lo, int(m.group(5) or lo) + 1):
            p, planted = generate_uniform(w, h, k, seed=seed)
            out.append((f"u{w}x{h}-k{k}-s{seed}", make_subproblem(p, "all~corners", planted)))
    return out


def suite_instances(folder: str) -> list[tuple[str, object]]:
    """Every (puzzle, cell set) of an ``emc suite`` folder, from its manifest."""
    import emc
    from emc.cells import make_subproblem

    root = Path(folder)
    try:
        manifest = json.loads((root / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        raise BenchError(f"{folder}: no readable manifest.json ({exc})") from None
    out, seen = [], set()
    for row in manifest["files"]:
        key = (row["instance"], row["free"])
        if key in seen:
            continue
        seen.add(key)
        p = emc.read_puzzle(root / row["puzzle_file"])
        fixed = emc.read_board(root / row["solution_file"], p) if row.get("solution_file") else None
        sp = make_subproblem(p, row["free"], fixed) if row["free"] else make_subproblem(p)
        out.append((row["instance"], sp))
    return out


def run_count(config: str, sp, limit: float) -> dict:
    from emc.backends import get_backend

    backend, opts = CONFIGS[config]
    b = get_backend(backend)
    t, w = time.process_time(), time.perf_counter()
    r = b.count(sp, time_limit=limit, **opts)
    cpu, wall = time.process_time() - t, time.perf_counter() - w
    return {"count": r.count, "complete": r.complete, "cpu": round(cpu, 3), "wall": round(wall, 3), "limit": limit,
            "nodes": r.stats.get("nodes"), "stats": {k: v for k, v in r.stats.items() if isinstance(v, (int, float))}}


def warm_up(configs: list[str]) -> None:
    """Load (or compile) every kernel and solver once, so no timing holds it."""
    from emc.backends import get_backend
    from emc.cells import make_subproblem
    from emc.generate import generate_uniform

    p, planted = generate_uniform(4, 4, 3, seed=1)
    sp = make_subproblem(p, "all~corners", planted)
    for backend in {CONFIGS[c][0] for c in configs}:
        get_backend(backend).count(sp, time_limit=60)


def fmt_s(r: dict | None, limit: float) -> str:
    if r is None:
        return "-"
    return f"{r['cpu']:.3g}" if r["complete"] else f">{r.get('limit', limit):g}"


def fmt_nodes(r: dict | None) -> str:
    if r is None or r.get("nodes") is None:
        return "-"
    return f"{r['nodes'] / 1e6:.3g}" + ("" if r["complete"] else "+")


def geo(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def report(results: dict, configs: list[str], limit: float) -> None:
    names = list(results)
    done = {n: {c: r for c, r in results[n].items() if r and r["complete"]} for n in names}
    best_time = {n: min((r["cpu"] for r in done[n].values()), default=math.inf) for n in names}
    names.sort(key=lambda n: best_time[n])
    counts = {n: next((r["count"] for r in done[n].values()), None) for n in names}
    for n in names:  # every configuration that finished must agree
        seen = {r["count"] for r in done[n].values()}
        if len(seen) > 1:
            raise BenchError(f"{n}: the configurations disagree on the count: "
                             + ", ".join(f"{c} {r['count']}" for c, r in done[n].items()))
    print("\nTable 1. Full enumeration: CPU seconds and millions of nodes (+: stopped by the time limit); sorted by "
          "the best time\n")
    head = ["instance", "solutions"] + [f"{c} {w}" for c in configs for w in ("s", "M nodes") if c != "cpsat"]
    if "cpsat" in configs:
        head.append("cpsat s")
    rows = []
    for n in names:
        row = [n, counts[n] if counts[n] is not None else "?"]
        for c in configs:
            r = results[n].get(c)
            if c == "cpsat":
                continue
            row += [fmt_s(r, limit), fmt_nodes(r)]
        if "cpsat" in configs:
            row.append(fmt_s(results[n].get("cpsat"), limit))
        rows.append(row)
    print(table(head, rows))

    if "backtrack" in configs and "best" in configs:
        print("\nTable 2. backtrack against colorpair (defaults), by the best time; geometric means of the "
              "per-instance ratios, instances both finished\n")
        rows = []
        lo = 0.0
        for label, hi in CLASSES:
            group = [n for n in names if lo <= best_time[n] < hi and "backtrack" in done[n] and "best" in done[n]]
            lo = hi
            if not group:
                continue
            nr = geo([done[n]["backtrack"]["nodes"] / max(done[n]["best"]["nodes"], 1) for n in group])
            tr = geo([done[n]["backtrack"]["cpu"] / max(done[n]["best"]["cpu"], 1e-3) for n in group])
            rows.append([label, len(group), f"{nr:.3g}", f"{tr:.3g}"])
        print(table(["best time", "instances", "nodes divided by", "time divided by"], rows, right={1, 2, 3}))

    heur = [c for c in ("best", "expoffer", "expratio", "maxfilter") if c in configs]
    if "minoffer" in configs and heur:
        print("\nTable 3. Gains over MinOffer (1 - config / MinOffer, geometric means), instances both finished\n")
        rows = []
        lo = 0.0
        for label, hi in CLASSES:
            group = [n for n in names if lo <= best_time[n] < hi and "minoffer" in done[n]]
            lo = hi
            for c in heur:
                g = [n for n in group if c in done[n]]
                if not g:
                    continue
                tg = 1 - geo([done[n][c]["cpu"] / max(done[n]["minoffer"]["cpu"], 1e-3) for n in g])
                ng = 1 - geo([done[n][c]["nodes"] / max(done[n]["minoffer"]["nodes"], 1) for n in g])
                rows.append([label, c if c != "best" else "best (min-expected-gap)", len(g), f"{tg:.0%}", f"{ng:.0%}"])
        print(table(["best time", "heuristic", "instances", "time gain", "node gain"], rows, right={2, 3, 4}))

    print("\nNodes per second (all runs of the configuration, CPU time)\n")
    rows = []
    for c in configs:
        rs = [results[n][c] for n in names if results[n].get(c) and results[n][c].get("nodes")]
        if rs:
            nodes, cpu = sum(r["nodes"] for r in rs), sum(r["cpu"] for r in rs)
            rows.append([c, len(rs), f"{nodes / 1e6:.4g}", f"{cpu:.1f}", f"{nodes / cpu / 1e6:.3g}"])
    print(table(["configuration", "runs", "M nodes", "CPU s", "M nodes/s"], rows))

    if "backtrack" in configs and "best" in configs:
        print("\nTargets on the instances backtrack needs more than 10 s to count (or did not finish)\n")
        rows = []
        for n in names:
            bt, cp = results[n].get("backtrack"), results[n].get("best")
            if not bt or not cp or (bt["complete"] and bt["cpu"] <= 10):
                continue
            if not cp["complete"]:
                rows.append([n, fmt_s(bt, limit), fmt_s(cp, limit), "-", "-", "colorpair did not finish"])
                continue
            lower = "" if bt["complete"] else ">= "
            tr, nr = bt["cpu"] / max(cp["cpu"], 1e-3), bt["nodes"] / max(cp["nodes"], 1)
            ok = tr >= 10 and nr >= 1000
            rows.append([n, fmt_s(bt, limit), fmt_s(cp, limit), f"{lower}{tr:.3g}", f"{lower}{nr:.3g}",
                         "met" if ok else ("not met" if bt["complete"] else "met so far" if ok else "not shown")])
        print(table(["instance", "backtrack s", "colorpair s", "time ratio", "node ratio", "10x and 1000x"], rows)
              if rows else "(none)")


def solve_table(names: list[str], seeds: list[int], limit: float) -> None:
    import emc
    from emc.backends import get_backend
    from emc.model import Subproblem

    print("\nFirst solution (emc solve, one thread), CPU seconds and nodes per seed\n")
    rows = []
    for name in names:
        sp = Subproblem.whole(emc.load(name))
        for backend in ("colorpair", "backtrack"):
            cells = []
            for seed in seeds:
                t = time.process_time()
                r = get_backend(backend).solve(sp, time_limit=limit, threads=1, seed=seed)
                cpu = time.process_time() - t
                cells.append(f"{cpu:.1f} s / {r.stats.get('nodes', 0) / 1e6:.3g} M" if r.status.has_board
                             else f">{limit:g} s")
            rows.append([name, backend] + cells)
    print(table(["puzzle", "backend"] + [f"seed {s}" for s in seeds], rows))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="", help="uniform puzzles NxN:K:SEEDS, comma-separated")
    ap.add_argument("--suite", default=None, help="a folder written by emc suite")
    ap.add_argument("--configs", default=DEFAULT_CONFIGS, help=f"comma-separated: {', '.join(CONFIGS)}")
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per run (default 600)")
    ap.add_argument("--cpsat-limit", type=float, default=None, help="seconds per CP-SAT run (default: --time-limit)")
    ap.add_argument("--solve", default="", help="shipped puzzles whose first solution to time, e.g. set2-7x7,set2-8x8")
    ap.add_argument("--seeds", default="0", help="seeds of the --solve runs (default 0)")
    ap.add_argument("--json", default=None, help="write every run's figures here")
    ap.add_argument("--load", default="", help="comma-separated --json files of earlier runs: their figures join "
                                               "the tables (runs split into several calls, each short)")
    args = ap.parse_args(argv)
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    bad = [c for c in configs if c not in CONFIGS]
    if bad:
        raise BenchError(f"unknown configuration {bad[0]!r} (choose from: {', '.join(CONFIGS)})")
    items = instances(args.instances) + (suite_instances(args.suite) if args.suite else [])
    if not items and not args.solve and not args.load:
        raise BenchError("give --instances, --suite, --solve or --load")
    print(f"machine: {machine()}")
    print(f"command: python bench/colorpair.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    results: dict = {}
    for f in (x.strip() for x in args.load.split(",") if x.strip()):
        try:
            earlier = json.loads(Path(f).read_text())["results"]
        except (OSError, ValueError, KeyError) as exc:
            raise BenchError(f"--load {f}: not a --json file of this script ({exc})") from None
        for name, runs in earlier.items():
            results.setdefault(name, {}).update(runs)
    if items:
        warm_up(configs)
        for name, sp in items:
            results[name] = {}
            for c in configs:
                lim = args.cpsat_limit if c == "cpsat" and args.cpsat_limit else args.time_limit
                results[name][c] = run_count(c, sp, lim)
                r = results[name][c]
                print(f"  {name} {c}: {r['count']} {'' if r['complete'] else '(stopped) '}{r['cpu']:.2f} s CPU, "
                      f"{r['wall']:.2f} s wall, {r['nodes']} nodes", file=sys.stderr, flush=True)
    if results:
        shown = [c for c in CONFIGS if c in configs or any(c in runs for runs in results.values())]
        report(results, shown, args.time_limit)
    if args.solve:
        solve_table([x.strip() for x in args.solve.split(",") if x.strip()],
                    [int(x) for x in args.seeds.split(",")], args.time_limit)
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine(), "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(guard(main))
