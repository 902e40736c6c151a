"""Benchmark of the region matheuristic against Table 3 of Salassa et al. (seed 000).

Runs chosen configurations on the META 2010 instances (meta-10x10 .. meta-16x16) and the
official Eternity II puzzle, R runs each (seeds 1..R), every run in its own process through
``emc matheuristic`` (so solvers never share a process), and prints max / average / min
score, average time and the longest region solve of the constructions (over all runs: how
well a ``--region-time-limit`` is kept) beside the paper's figures.

Configurations, comma-separated, each ``START[+LS]:REGION[:SECONDS]``:

* ``greedy:1xW`` - greedy construction only (Algorithm 1, regions solved to optimality);
* ``greedy+LS:1xW:300`` - greedy, then the local search until 300 s in total;
* ``backtracking:1xW:120`` - 120 s of backtracking, then the greedy finish;
* ``backtracking+LS:1xW:240`` - half of the time backtracking, then greedy, then local search.

Examples::

    python bench/matheuristic.py --instances meta-10x10 --configs greedy:1xW,greedy+LS:1xW:120 --runs 3
    python bench/matheuristic.py --instances meta-10x10,meta-12x12,meta-14x14,meta-16x16,eternity2 \\
        --configs greedy:1xW --runs 3 --backend cbc --out generated/bench-mh.json

Extra options go after ``--`` and reach every run: ``emc matheuristic`` for the ``+LS``
configurations, ``emc construct`` for the others, so local-search options such as ``--
--ro-time-limit 5`` need ``+LS`` configurations only. A run that fails stops the script with
its error.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import BenchError, guard  # noqa: E402

#: Table 3 of seed 000: (instance, start, region) -> (max, avg, min, time avg in s). CPLEX 12.4, one core.
PAPER = {
    ("meta-10x10", "greedy", "1xW"): (165, 161.10, 158, 4.29),
    ("meta-10x10", "greedy+LS", "1xW"): (168, 164.90, 161, 1204.29),
    ("meta-10x10", "greedy", "2xW"): (170, 166.35, 164, 25.93),
    ("meta-10x10", "greedy+LS", "2xW"): (170, 167.05, 164, 1225.93),
    ("meta-10x10", "backtracking", "1xW"): (169, 165.65, 162, 1200.24),
    ("meta-10x10", "backtracking+LS", "1xW"): (172, 167.75, 165, 2400.24),
    ("meta-10x10", "backtracking", "2xW"): (170, 167.65, 164, 1207.06),
    ("meta-10x10", "backtracking+LS", "2xW"): (171, 168.10, 165, 2407.06),
    ("meta-12x12", "greedy", "1xW"): (245, 241.20, 239, 6.83),
    ("meta-12x12", "greedy+LS", "1xW"): (247, 244.00, 240, 1806.83),
    ("meta-12x12", "greedy", "2xW"): (249, 247.00, 244, 101.02),
    ("meta-12x12", "greedy+LS", "2xW"): (250, 247.50, 245, 1901.02),
    ("meta-12x12", "backtracking", "1xW"): (248, 245.35, 242, 1801.51),
    ("meta-12x12", "backtracking+LS", "1xW"): (250, 247.75, 246, 3601.51),
    ("meta-12x12", "backtracking", "2xW"): (249, 247.60, 246, 1868.85),
    ("meta-12x12", "backtracking+LS", "2xW"): (252, 248.45, 246, 3668.85),
    ("meta-14x14", "greedy", "1xW"): (338, 333.00, 329, 10.43),
    ("meta-14x14", "greedy+LS", "1xW"): (339, 335.56, 332, 2410.43),
    ("meta-14x14", "greedy", "2xW"): (344, 340.50, 338, 2335.42),
    ("meta-14x14", "greedy+LS", "2xW"): (344, 340.80, 338, 4735.42),
    ("meta-14x14", "backtracking", "1xW"): (342, 338.25, 334, 2401.36),
    ("meta-14x14", "backtracking+LS", "1xW"): (344, 340.69, 336, 4801.36),
    ("meta-14x14", "backtracking", "2xW"): (344, 342.17, 340, 4664.65),
    ("meta-14x14", "backtracking+LS", "2xW"): (344, 342.33, 340, 7064.65),
    ("meta-16x16", "greedy", "1xW"): (448, 444.05, 440, 24.08),
    ("meta-16x16", "greedy+LS", "1xW"): (449, 446.20, 443, 3624.08),
    ("meta-16x16", "greedy", "2xW"): (454, 451.38, 448, 11188.03),
    ("meta-16x16", "greedy+LS", "2xW"): (454, 451.88, 448, 14788.03),
    ("meta-16x16", "backtracking", "1xW"): (453, 448.80, 444, 3605.68),
    ("meta-16x16", "backtracking+LS", "1xW"): (454, 451.53, 449, 7205.68),
    ("meta-16x16", "backtracking", "2xW"): (457, 453.69, 451, 13722.86),
    ("meta-16x16", "backtracking+LS", "2xW"): (457, 454.00, 451, 17322.86),
    ("eternity2", "greedy", "1xW"): (449, 443.75, 440, 21.85),
    ("eternity2", "greedy+LS", "1xW"): (450, 446.50, 442, 3621.85),
    ("eternity2", "greedy", "2xW"): (456, 451.75, 450, 13835.04),
    ("eternity2", "greedy+LS", "2xW"): (457, 451.95, 450, 17435.04),
    ("eternity2", "backtracking", "1xW"): (453, 449.00, 446, 3605.08),
    ("eternity2", "backtracking+LS", "1xW"): (454, 451.35, 447, 7205.08),
    ("eternity2", "backtracking", "2xW"): (457, 452.80, 448, 15294.52),
    ("eternity2", "backtracking+LS", "2xW"): (457, 453.15, 449, 18894.52),
}


def parse_config(text: str) -> dict:
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise BenchError(f"bad configuration {text!r}: START[+LS]:REGION[:SECONDS]")
    start, region = parts[0], parts[1]
    ls = start.endswith("+LS")
    base = start[:-3] if ls else start
    if base not in ("greedy", "backtracking", "random"):
        raise BenchError(f"bad start in {text!r}")
    seconds = float(parts[2]) if len(parts) == 3 else None
    if (ls or base == "backtracking") and seconds is None:
        raise BenchError(f"{text!r} needs a time in seconds")
    return {"label": start, "start": base, "ls": ls, "region": region, "seconds": seconds}


def command(instance: str, cfg: dict, backend: str, seed: int, result: Path, extra: list[str]) -> list[str]:
    cmd = [sys.executable, "-m", "emc", "matheuristic" if cfg["ls"] else "construct", instance,
           "--start", cfg["start"], "--region", cfg["region"], "--backend", backend, "--seed", str(seed),
           "--result", str(result), "--quiet"]
    if cfg["ls"]:
        cmd += ["--time-limit", str(cfg["seconds"]), "--patience", "0"]
    elif cfg["seconds"] is not None:
        cmd += ["--time-limit", str(cfg["seconds"])]
    return cmd + extra


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="meta-10x10", help="comma-separated instance names")
    ap.add_argument("--configs", default="greedy:1xW", help="comma-separated START[+LS]:REGION[:SECONDS]")
    ap.add_argument("--runs", type=int, default=3, help="runs per configuration (seeds 1..R)")
    ap.add_argument("--backend", default="highs")
    ap.add_argument("--out", help="also write every run's summary as JSON here")
    ap.add_argument("extra", nargs="*", help="options passed to emc (after --)")
    args = ap.parse_args()
    configs = [parse_config(c) for c in args.configs.split(",") if c]
    import emc

    instances = [i.strip() for i in args.instances.split(",") if i.strip()]
    for inst in instances:  # a bad name stops the script before the first run
        emc.load(inst)
    rows = []
    runs_out = []
    with tempfile.TemporaryDirectory(prefix="emc-bench-mh-") as tmp:
        for inst in instances:
            for cfg in configs:
                scores, times, hints_ok, longest = [], [], [], []
                for seed in range(1, args.runs + 1):
                    res = Path(tmp) / f"{inst}-{cfg['label']}-{cfg['region']}-{seed}.json"
                    cmd = command(inst, cfg, args.backend, seed, res, args.extra)
                    t = time.perf_counter()
                    proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ))
                    wall = time.perf_counter() - t
                    if proc.returncode != 0 or not res.exists():  # stop: a table of failed runs misleads
                        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
                        raise BenchError(f"run failed ({last}): {' '.join(cmd[2:])}")
                    doc = json.loads(res.read_text())
                    fin = doc["final"]
                    scores.append(fin["score"])
                    times.append(fin["elapsed"])
                    hints_ok.append(fin["valid"])
                    construction = doc.get("construction") or {}
                    longest.append(max((r["time"] for r in construction.get("regions") or []), default=0.0))
                    runs_out.append({"instance": inst, "config": cfg, "seed": seed, "score": fin["score"],
                                     "elapsed": fin["elapsed"], "wall": round(wall, 2), "valid": fin["valid"],
                                     "construct_score": construction.get("score"),
                                     "longest_region": longest[-1],
                                     "trajectory": doc["trajectory"]})
                    print(f"  {inst} {cfg['label']} {cfg['region']} seed {seed}: {fin['score']} in {fin['elapsed']:.1f} s",
                          file=sys.stderr, flush=True)
                rows.append((inst, cfg, scores, times, hints_ok, longest))
    head = (f"{'instance':<11} {'start':<16} {'region':<6} {'runs':>4} {'max':>5} {'avg':>8} {'min':>5} {'time (s)':>9}"
            f" {'region (s)':>10}   | paper: {'max':>4} {'avg':>8} {'min':>4} {'time (s)':>9}")
    print(f"backend {args.backend}; extra options: {' '.join(args.extra) or '-'}")
    print(head)
    print("-" * len(head))
    for inst, cfg, scores, times, hints_ok, longest in rows:
        W = inst.split("-")[-1].split("x")[0] if inst.startswith("meta") else "16"
        region = cfg["region"].replace("W", W)
        if scores:
            mine = (f"{len(scores):>4} {max(scores):>5} {sum(scores) / len(scores):>8.2f} {min(scores):>5} "
                    f"{sum(times) / len(times):>9.2f} {max(longest):>10.2f}")
        else:
            mine = f"{0:>4} {'-':>5} {'-':>8} {'-':>5} {'-':>9} {'-':>10}"
        paper = PAPER.get((inst, cfg["label"], cfg["region"]))
        ptxt = (f"{paper[0]:>4} {paper[1]:>8.2f} {paper[2]:>4} {paper[3]:>9.2f}" if paper else "   -")
        note = ""
        if inst == "eternity2" and scores:
            note = "  hint honoured" if all(hints_ok) else "  HINT NOT HONOURED"
        print(f"{inst:<11} {cfg['label']:<16} {region:<6} {mine}   |        {ptxt}{note}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"backend": args.backend, "runs": runs_out}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(guard(main))
