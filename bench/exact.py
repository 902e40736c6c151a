"""Exact solving: every backend x formulation on small puzzles, with time limits.

Each run happens in its own process (a solver that ignores its time limit is killed after a
grace period), solves the whole puzzle as a feasibility problem (a perfect board) unless
--goal optimisation, and the board is checked by emc's verifier. Prints a Markdown table
with the machine and date, beside seed 000's Table 1 (CPLEX on the MILP; Intel i7-2600).

    python bench/exact.py                                   # set2 4x4 .. 8x8, every backend
    python bench/exact.py --instances set2-6x6,set2-7x7 --backends cpsat,sat --time-limit 120
    python bench/exact.py --generated 7x7:3:6:1-3 --backends portfolio
    python bench/exact.py --instances set2-6x6 --backends highs -O 'params={"presolve": "off"}'

``-O KEY=VALUE`` (repeatable, read as ``emc solve -O`` reads it) gives every run that backend
option, so it suits one backend at a time; ``-O variant=V`` runs that formulation variant alone
(the MILP's ``paper``, the CNF's ``log``, ...).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import BenchError, guard, machine, table  # noqa: E402

#: Seed 000, Table 1: CPLEX 12.6 on model (1)-(14), best matched edges (seconds), 1 thread / 4 threads.
PAPER = {
    "set2-3x3": "12 (0.1) / 12 (0.1)",
    "set2-4x4": "24 (0.1) / 24 (0.1)",
    "set2-5x5": "40 (16.7) / 40 (1.2)",
    "set2-6x6": "60 (243.5) / 60 (158.5)",
    "set2-7x7": "81 (3600) / 81 (3600)",
    "set2-8x8": "103 (3600) / 103 (3600)",
}


def _run(args_tuple, out):
    name, gen, backend, formulation, opts, goal, time_limit, threads, seed = args_tuple
    import emc
    from emc.backends import get_backend
    from emc.model import Goal, Subproblem

    if gen:
        puzzle, _ = emc.generate(*gen)
    else:
        puzzle = emc.load(name)
    sp = Subproblem.whole(puzzle, Goal(goal))
    t0 = time.perf_counter()
    try:
        res = get_backend(backend).solve(sp, time_limit=time_limit, threads=threads, seed=seed,
                                         formulation=formulation, **opts)
        ok = res.board is None or emc.verify(puzzle, res.board).valid
        out.put((res.status.value, res.objective, res.bound, time.perf_counter() - t0, ok, ""))
    except Exception as exc:  # reported in the table
        out.put(("error", None, None, time.perf_counter() - t0, False, f"{type(exc).__name__}: {exc}"[:80]))


def configurations(backends: list[str], variant: str | None = None):
    from emc.backends import backend_class
    from emc.encoders import get_encoder

    for b in backends:
        cls = backend_class(b)
        if not cls.available():
            print(f"# skipping {b}: not available ({cls.install_hint})", file=sys.stderr)
            continue
        for f in cls.formulations:
            variants = [variant]  # None: the backend's default
            if b in ("cbc", "highs") and variant is None:
                variants = list(get_encoder(f).variants)
            for v in variants:
                yield b, f, v


def main() -> None:
    from emc.backends import names

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="set2-4x4,set2-5x5,set2-6x6,set2-7x7,set2-8x8")
    ap.add_argument("--generated", action="append", default=[], metavar="WxH:F:I:SEEDS")
    ap.add_argument("--backends", default=",".join(n for n in names()))
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--goal", choices=("feasibility", "optimisation"), default="feasibility")
    ap.add_argument("--keep-going", action="store_true",
                    help="run every configuration on every set 2 instance; by default one that timed out is "
                         "skipped on the larger ones")
    ap.add_argument("--option", "-O", action="append", default=[], metavar="KEY=VALUE",
                    help="backend option for every run, repeatable (as emc solve -O)")
    a = ap.parse_args()

    from emc.commands.solve import parse_options
    from emc.suite import parse_generate

    import emc

    options = parse_options(a.option)

    jobs = [(n, None) for n in a.instances.split(",") if n]
    for n, _ in jobs:
        emc.load(n)  # an unknown name stops the script here, not in every child
    for spec in a.generated:
        for (w, h, f, i, s) in parse_generate(spec):
            jobs.append((f"gen-{w}x{h}-f{f}-i{i}-s{s}", (w, h, f, i, s)))
    variant = options.pop("variant", None)
    if variant is not None and not isinstance(variant, str):  # -O variant=no reads as False
        raise BenchError(f"--option variant={variant!r}: a variant is a name (e.g. paper, log)")
    confs = list(configurations([b for b in a.backends.split(",") if b], variant))
    from emc.backends import get_backend
    from emc.model import Goal

    # every run's backend options: the -O ones and the configuration's variant
    run_options = {(b, f, v): dict(options, **({"variant": v} if v is not None else {})) for b, f, v in confs}
    for (b, _f, _v), opts in run_options.items():  # a refused option stops the script here, not in every child
        get_backend(b).check_request(Goal(a.goal), opts)
    print(f"machine: {machine()}")
    shown = " ".join(f"-O {o}" for o in a.option)
    print(f"goal {a.goal}, time limit {a.time_limit:g} s, {a.threads} threads, seed {a.seed}"
          f"{', options ' + shown if shown else ''}\n")
    rows = []
    timed_out: set = set()
    ctx = mp.get_context("fork")
    for name, gen in jobs:
        for b, f, v in confs:
            key = (b, f, v)
            label = f"{f}/{v}" if v else f
            if key in timed_out and not a.keep_going and gen is None:
                rows.append([name, b, label, "skipped", "", "", "", PAPER.get(name, "")])
                continue
            q = ctx.Queue()
            p = ctx.Process(target=_run, args=((name, gen, b, f, run_options[key], a.goal, a.time_limit, a.threads, a.seed),
                                               q))
            p.start()
            p.join(a.time_limit + 60)
            if p.is_alive():
                p.kill()
                p.join()
                status, obj, bound, secs, ok, err = "killed", None, None, a.time_limit + 60, True, "ignored its time limit"
            else:
                status, obj, bound, secs, ok, err = q.get() if not q.empty() else ("crashed", None, None, 0, False, "")
            if status in ("unknown", "killed") or (a.goal == "optimisation" and status == "feasible"):
                timed_out.add(key)
            verdict = "" if ok else " INVALID"
            rows.append([name, b, label, status + verdict + (f" ({err})" if err else ""),
                         "" if obj is None else obj, "" if bound is None else bound, f"{secs:.2f}", PAPER.get(name, "")])
            print(f"  {name:>10} {b:>9} {label:>16}: {status} {obj} in {secs:.2f} s {err}", file=sys.stderr, flush=True)
    print(table(["instance", "backend", "formulation", "status", "matched", "bound", "seconds", "paper CPLEX 1 thr / 4 thr"],
                rows, right={4, 5, 6}))
    print()
    print(summary(rows, a.time_limit, a.goal))


def summary(rows: list[list], limit: float, goal: str) -> str:
    """The README's layout: one row per backend and formulation, one column per instance,
    seconds to a proven answer (a perfect board or the proven optimum, or a proof that there is
    none), ``> LIMIT`` when none came, ``-`` for a run skipped after a smaller puzzle timed out."""
    instances = list(dict.fromkeys(r[0] for r in rows))
    configs = list(dict.fromkeys((r[1], r[2]) for r in rows))
    cell = {}
    for name, b, label, status, obj, _bound, secs, _paper in rows:
        done = status.split()[0] in ("optimal", "infeasible") and "INVALID" not in status  # answered and proven
        cell[(b, label, name)] = secs if done else "-" if status == "skipped" else f"> {limit:g}"
    body = [[f"`{b}`", label, *(cell.get((b, label, n), "") for n in instances)] for b, label in configs]
    return table(["backend", "formulation", *instances], body, right=set(range(2, 2 + len(instances))))


if __name__ == "__main__":
    sys.exit(guard(main))
