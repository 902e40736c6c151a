"""The colour schedule: a pruning heuristic that makes the colour distribution uneven.

Seed 001 ("Good Groups/Bad Groups") tells how eii first gained a factor of about 10 in 463's
by "getting rid of one colour early during the search and saving other colours as long as
possible", and the public solvers that found the 470-edge boards since prune the same way: a
chosen set of colours must show on at least a given number of the placed pieces by given
depths. The search keeps one counter, the pieces placed that show a scheduled colour on some
side, and a position whose depth's minimum is not met has no candidates.

A schedule is ``colours`` and ``points`` ((depth, at least) pairs). :func:`auto_schedule`
makes one from the puzzle alone: the ``k`` inner colours carried by the fewest pieces, of
which a share must be placed by evenly spaced depths up to ``end`` (emc's choice of a
default; the papers give no numbers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ...errors import InputError, read_whole
from ...model import Puzzle


@dataclass(frozen=True)
class Schedule:
    colours: tuple[int, ...]
    points: tuple[tuple[int, int], ...]  # (depth, at least), depths 1-based

    def carriers(self, P: Puzzle) -> np.ndarray:
        """Per piece: whether it shows one of the colours (hints never count: not placed)."""
        c = np.isin(P.pieces, list(self.colours)).any(axis=1)
        for h in P.hints:
            c[h.piece] = False
        return c

    def bounds(self, n: int) -> np.ndarray:
        """lo[d]: the least carriers on the first ``d`` positions."""
        lo = np.zeros(n + 1, dtype=np.int64)
        for depth, least in self.points:
            if depth <= n:
                lo[depth] = max(lo[depth], least)
        return lo

    def text(self) -> str:
        return "colours=" + ",".join(map(str, self.colours)) + ";" + ",".join(f"{d}:{k}" for d, k in self.points)


def auto_schedule(P: Puzzle, k: int = 2, share: float = 0.8, end: int | None = None, steps: int = 4) -> Schedule:
    """The ``k`` inner colours on the fewest pieces; ``share`` of their pieces placed by depth
    ``end`` (default: five eighths of the cells), in ``steps`` even steps."""
    inner = [c for c in P.inner_colours if c not in P.frame_colours]
    count = {c: int(np.isin(P.pieces, [c]).any(axis=1).sum()) for c in inner}
    colours = tuple(sorted(sorted(inner, key=lambda c: (count[c], c))[:k]))
    sched = Schedule(colours, ())
    total = int(sched.carriers(P).sum())
    n = P.n_cells - len(P.hints)
    end = end or (5 * n) // 8
    points = tuple((end * (i + 1) // steps, int(share * total * (i + 1) / steps)) for i in range(steps))
    return Schedule(colours, points)


def parse_schedule(text: str, P: Puzzle) -> Schedule:
    """``auto``, ``auto:K`` or ``colours=3,7;60:20,120:45`` (colours; depth:at-least pairs)."""
    s = text.strip()
    if s == "auto" or s.startswith("auto:"):
        k = read_whole(s[5:], "schedule auto:K") if ":" in s else 2
        if k < 1:
            raise InputError("schedule auto:K needs K of at least 1")
        return auto_schedule(P, k)
    m = re.fullmatch(r"colours?=([\d,\s]+);([\d:,\s]+)", s)
    if not m:
        raise InputError(f"schedule {s!r}: write auto, auto:K or colours=C,C;DEPTH:COUNT,DEPTH:COUNT")
    colours = tuple(read_whole(c.strip(), "schedule colour") for c in m.group(1).split(",") if c.strip())
    bad = [c for c in colours if c not in P.colour_set]
    if bad:
        raise InputError(f"schedule: colour {bad[0]} is not on any piece of {P.name}")
    points = []
    for item in m.group(2).split(","):
        if item.strip():
            d, _, k = item.partition(":")
            points.append((read_whole(d.strip(), "schedule depth"), read_whole(k.strip(), "schedule count")))
    return Schedule(colours, tuple(points))
