"""Time the export of large formulation files: set 2's clique graphs (and CNFs, when the CNF
encoder is installed).

Each export runs in its own Python process, so the peak memory printed (the process's
maximum resident set size) belongs to that export alone. ``startup`` is the time that
process needs to load the compiled writer (numba's cache) and write set2-3x3 once; the
``encode`` and ``write`` columns come after it. MB/s is file size over write time. The files are deleted after they
are measured unless ``--keep`` is given.

Usage::

    python bench/export.py                               # set2-6x6 .. set2-10x10, clq (+ cnf)
    python bench/export.py --sizes 6x6,8x8 --formats clq,conflict --gzip
    python bench/export.py --out generated/bench-export --keep
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import guard  # noqa: E402

CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, {root!r})
import emc
from emc.encoders import formulation_of_format, get_encoder
from emc.model import Subproblem
name, fmt, path = {name!r}, {fmt!r}, {path!r}
formulation, wfmt = formulation_of_format(fmt)
# Loading compiled kernels (numba's cache) costs the same for every size: time it apart
# by writing a tiny instance first.
ts = time.perf_counter()
warm = get_encoder(formulation).encode(Subproblem.whole(emc.load("set2-3x3")))
warm.write(path, wfmt)
os.unlink(path)
startup = time.perf_counter() - ts
t0 = time.perf_counter()
sp = Subproblem.whole(emc.load(name))
enc = get_encoder(formulation).encode(sp)
sizes = enc.sizes()
t1 = time.perf_counter()
enc.write(path, wfmt)
t2 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({{"sizes": {{k: v for k, v in sizes.items()}}, "encode": t1 - t0, "write": t2 - t1,
                  "bytes": os.path.getsize(path), "peak": peak, "startup": startup}}))
"""


def cnf_available() -> bool:
    """The CNF encoder is another module of emc that may not be installed in this tree."""
    import importlib.util

    sys.path.insert(0, str(ROOT))
    from emc.encoders import FORMATS

    return "cnf" in FORMATS and importlib.util.find_spec("emc.encoders.cnf") is not None


def run_one(name: str, fmt: str, path: Path) -> dict:
    code = CHILD.format(root=str(ROOT), name=name, fmt=fmt, path=str(path))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"export of {name} as {fmt} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="6x6,7x7,8x8,9x9,10x10", help="set 2 sizes, comma-separated")
    ap.add_argument("--formats", default=None, help="formats (default: clq, and cnf when available)")
    ap.add_argument("--out", default=str(ROOT / "generated" / "bench-export"), help="output folder")
    ap.add_argument("--gzip", action="store_true", help="write .gz files")
    ap.add_argument("--keep", action="store_true", help="keep the files")
    args = ap.parse_args(argv)
    formats = args.formats.split(",") if args.formats else ["clq"] + (["cnf"] if cnf_available() else [])
    import emc
    from emc.encoders import formulation_of_format

    instances = [f"set2-{size.strip()}" for size in args.sizes.split(",") if size.strip()]
    for name in instances:  # every name and format checked before the first run
        emc.load(name)
    for fmt in formats:
        formulation_of_format(fmt)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # compile the writer kernels into numba's cache once, outside the timings
    for fmt in formats:
        run_one("set2-3x3", fmt, out / f"warmup.{fmt}")
        (out / f"warmup.{fmt}").unlink()
    print(f"{'instance':<12} {'format':<9} {'vertices/vars':>13} {'edges/clauses':>14} {'file MB':>9} "
          f"{'startup s':>9} {'encode s':>8} {'write s':>8} {'MB/s':>7} {'peak MB':>8}")
    for name in instances:
        for fmt in formats:
            path = out / f"{name}.{fmt}{'.gz' if args.gzip else ''}"
            r = run_one(name, fmt, path)
            vals = list(r["sizes"].values())
            if fmt == "conflict":  # the complement's edges
                vals[1] = r["sizes"]["conflict_edges"]
            mb = r["bytes"] / 1e6
            rate = mb / r["write"] if r["write"] > 0 else float("inf")
            print(f"{name:<12} {fmt:<9} {vals[0]:>13,} {vals[1]:>14,} {mb:>9.1f} {r['startup']:>9.2f} {r['encode']:>8.2f} "
                  f"{r['write']:>8.2f} {rate:>7.1f} {r['peak'] / 1e6:>8.0f}", flush=True)
            if not args.keep:
                path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(guard(main))
