"""Shared bits of the benchmark scripts: machine description and plain-text tables."""

from __future__ import annotations

import datetime
import os
import platform


def machine() -> str:
    """One line: CPU model, logical cores, memory, Python, date."""
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
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


def puzzles(spec: str):
    """Shipped names, or ``gen:WxH:FRAME:INNER:SEEDS`` (``SEEDS`` like ``1-5``) for generated puzzles."""
    import emc

    for item in spec.split(","):
        if item.startswith("gen:"):
            _, size, frame, inner, seeds = item.split(":")
            w, h = (int(x) for x in size.split("x"))
            lo, _, hi = seeds.partition("-")
            for s in range(int(lo), int(hi or lo) + 1):
                yield f"gen{w}x{h}-{s}", emc.generate(w, h, int(frame), int(inner), seed=s)[0]
        else:
            yield item, emc.load(item)


def loaded_backtrack():
    """The ``backtrack`` backend with its compiled kernel loaded (one tiny solve), so timings
    leave out numba's cache load."""
    import emc
    from emc.backends import get_backend
    from emc.model import Subproblem

    bt = get_backend("backtrack")
    bt.solve(Subproblem.whole(emc.load("set2-3x3")), threads=1)
    return bt
