"""Shared bits of the benchmark scripts: machine description and plain-text tables."""

from __future__ import annotations

import datetime
import os
import platform
import sys
from pathlib import Path


def machine() -> str:
    """One line: CPU model (with its widest vector extension: machines that report the same
    model name differ there, and so does the speed of the compiled kernels), logical cores,
    memory, Python, date."""
    model, flags = None, None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model is None:
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and flags is None:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    cpu = model or platform.processor() or "unknown CPU"
    flags = flags or set()
    vector = next((name for flag, name in (("avx512f", "AVX-512"), ("avx2", "AVX2")) if flag in flags), "")
    if vector:
        cpu += f" ({vector})"
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = f", {kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return (f"{cpu}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}, "
            f"{datetime.date.today().isoformat()}")


def table(headers: list[str], rows: list[list], right: set[int] | None = None) -> str:
    """A Markdown table (pastes into the README as is)."""
    right = right if right is not None else {i for i, _ in enumerate(headers) if i > 0}
    cells = [[str(x) for x in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]

    def fmt(vals):
        return "| " + " | ".join(v.rjust(w) if i in right else v.ljust(w) for i, (v, w) in enumerate(zip(vals, widths))) + " |"

    sep = "|" + "|".join(("-" * (w + 1) + ":") if i in right else ("-" * (w + 2)) for i, w in enumerate(widths)) + "|"
    return "\n".join([fmt(headers), sep] + [fmt(r) for r in cells])


class BenchError(Exception):
    """A bad argument of a benchmark script (reported as one line by :func:`guard`)."""


def guard(main) -> int:
    """Run a script's ``main``: an error emc reports as one line (an unknown instance, a refused
    option) or a :class:`BenchError` ends the script with that line and exit status 2, not a
    traceback."""
    from emc.errors import EmcError

    try:
        return main() or 0
    except (EmcError, BenchError) as exc:
        print(f"{Path(sys.argv[0]).name}: {exc}", file=sys.stderr)
        return 2


def names(kind: str, text: str, known) -> list[str]:
    """The comma-separated names of ``text``, each one of ``known`` (else a one-line exit)."""
    out = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in out if x not in known]
    if bad or not out:
        raise BenchError((f"unknown {kind} {bad[0]!r}" if bad else f"no {kind} given")
                         + f" (choose from: {', '.join(known)})")
    return out


def puzzles(spec: str) -> list:
    """Shipped names, or ``gen:WxH:FRAME:INNER:SEEDS`` (``SEEDS`` like ``1-5`` or ``3``) for
    generated puzzles: (label, puzzle) pairs, all loaded before any run starts, so a bad name
    stops the script at once."""
    import emc

    out = []
    for item in (x.strip() for x in spec.split(",")):
        if not item:
            continue
        if item.startswith("gen:"):
            try:
                _, size, frame, inner, seeds = item.split(":")
                w, h = (int(x) for x in size.split("x"))
                lo, _, hi = seeds.partition("-")
                seed_range = range(int(lo), int(hi or lo) + 1)
                frame_n, inner_n = int(frame), int(inner)
            except ValueError:
                raise BenchError(f"{item!r} is not gen:WxH:FRAME:INNER:SEEDS (e.g. gen:6x6:3:5:1-5)") from None
            out += [(f"gen{w}x{h}-{s}", emc.generate(w, h, frame_n, inner_n, seed=s)[0]) for s in seed_range]
        else:
            out.append((item, emc.load(item)))
    return out


def loaded_backtrack():
    """The ``backtrack`` backend with its compiled kernel loaded (one tiny solve), so timings
    leave out numba's cache load."""
    import emc
    from emc.backends import get_backend
    from emc.model import Subproblem

    bt = get_backend("backtrack")
    bt.solve(Subproblem.whole(emc.load("set2-3x3")), threads=1)
    return bt
