"""Square orders and slip arrays: eii's published ones as data, and files (seed 001, "Determining
the Search Order and Slip Array" and "Resulting Search Order and Slip Array").

Squares are written as eii writes them: a row letter (``A`` is the top row, as in the paper's
picture, where the mandatory piece 139 sits on I8, the ninth row from the top) and a 1-based
column number, so ``P1`` is Eternity II's bottom-left square. An order is a list of items:

* a square, ``D13``, or emc's own label, ``r4c13``;
* a run, ``D13-D16``: the squares from the first to the last along one row or column;
* a block, ``[P1-P16 E1-E16]``: runs parallel to the first, stepping one row (or column) at a
  time towards the last (so ``[P1-P16 E1-E16]`` fills rows P, O, ..., E, each from column 1 to
  16, and ``[D4-A4 D12-A12]`` fills columns 4 .. 12, each from row D up to row A).

eii leaves no square to chance: the order must list every square once; squares holding a hint
are left out (or skipped when listed, so the published orders serve with piece 139 in place).

A slip array gives, from a depth on, the most mismatched edges allowed so far, as eii prints it:
``{193, 1, 202, 2, ...}`` reads "from depth 193 one slip, from 202 two, ...". Depths here are
1-based: depth ``d`` is the ``d``-th square filled. The paper does not say which base eii used;
1-based puts the 468 array's first slip on D1, the first square after the twelve full rows its
order fills first, which is where the order's shape suggests it was meant.

The 465 order as printed lists 253 squares: the run ``C14-C16`` is missing between ``C13-A13``
and ``B14-B16`` (every other square of rows A..D, columns 13..16 is there). It is restored here,
the one place it fits the pattern of the 468 order.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import numpy as np

from ...errors import InputError, read_whole
from ...model import Puzzle

#: eii's order tuned for 468, the public solver's (seed 001, "Resulting Search Order").
ORDER_468 = ("[P1-P16 E1-E16] [D1-D3 A1-A3] [D4-A4 D12-A12] D13-D16 C13-A13 C14-C16 B14-A14 B15-B16 "
             "A15-A16")
#: eii's best order for 465 without heuristics (seed 001, "Determining the Search Order"),
#: with the missing run C14-C16 restored (see the module's docstring).
ORDER_465 = "[P1-P16 F1-F16] [E1-E3 A1-A3] [E4-A4 E12-A12] E13-E16 D13-D16 C13-A13 C14-C16 B14-B16 A14-A16"

ORDERS = {
    "rows": "row by row from the top, each row left to right (the exact kernel's scan)",
    "rows-up": "row by row from the bottom, each row left to right (eii's scan-row)",
    "eii-468": "eii's public order, tuned for 468: " + ORDER_468,
    "eii-465": "eii's order for 465 without heuristics: " + ORDER_465,
}

#: Published slip arrays (depth from which, allowance), 1-based depths.
SLIP_468 = (193, 1, 202, 2, 209, 3, 214, 4, 218, 5, 222, 6, 226, 7, 229, 8, 232, 9, 235, 10, 238, 11, 240, 12)
SLIP_465 = (188, 1, 196, 2, 203, 3, 208, 4, 213, 5, 218, 6, 222, 7, 225, 8, 228, 9, 231, 10, 234, 11, 237, 12, 239,
            13, 241, 14, 243, 15)


@dataclass(frozen=True)
class SlipArray:
    """Allowances by depth: from depth ``steps[i][0]`` on (1-based unless ``base`` is 0), at
    most ``steps[i][1]`` mismatched edges in all.

    Attributes:
        steps: (depth, allowance) pairs, depths rising, allowances rising.
        base: the depth of the first square filled (1, or 0 for arrays written from 0).
        name: where it comes from (a preset's name or a file).
        order: the order it was tuned for, when known.
    """

    steps: tuple[tuple[int, int], ...]
    base: int = 1
    name: str = ""
    order: str | None = None
    info: dict = field(default_factory=dict, compare=False)

    def allowances(self, n: int) -> np.ndarray:
        """The most slips allowed once each of ``n`` positions (0-based) is filled."""
        allow = np.zeros(n, dtype=np.int64)
        for depth, a in self.steps:
            i = depth - self.base
            if i < n:
                allow[max(i, 0):] = a
        return allow

    @property
    def most(self) -> int:
        return max((a for _, a in self.steps), default=0)

    def as_list(self) -> list[int]:
        return [v for step in self.steps for v in step]

    def document(self, **extra) -> dict:
        doc = {"format": "emc-slip-array", "version": 1, "base": self.base, "steps": [list(s) for s in self.steps]}
        if self.order:
            doc["order"] = self.order
        doc.update(self.info)
        doc.update(extra)
        return doc

    @classmethod
    def from_allowances(cls, allow: np.ndarray, base: int = 1, **kw) -> "SlipArray":
        steps, last = [], 0
        for i, a in enumerate(np.asarray(allow).tolist()):
            if a != last:
                steps.append((i + base, int(a)))
                last = a
        return cls(tuple(steps), base, **kw)


def _pairs(flat: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    return tuple(zip(flat[0::2], flat[1::2]))


#: emc's arrays for the eii-468 order, tuned by :func:`.estimate.tune` on the counts of one 40 s
#: run of Eternity II with piece 139 (order eii-468, seed 7, 2026-11-28; docs/slip.md).
EMC_460 = (204, 1, 206, 2, 211, 3, 215, 4, 219, 5, 223, 6, 226, 7, 229, 8, 232, 9, 234, 10, 236, 11, 238, 12, 240, 13,
           242, 14, 244, 16, 247, 18, 248, 20)
EMC_458 = (204, 1, 206, 2, 211, 3, 215, 4, 219, 5, 223, 6, 226, 7, 229, 8, 232, 9, 234, 10, 236, 11, 238, 12, 240, 13,
           242, 14, 244, 15, 245, 16, 246, 17, 247, 18, 249, 19, 250, 21, 251, 22)
EMC_463 = (204, 1, 206, 2, 211, 3, 215, 4, 219, 5, 223, 6, 226, 7, 230, 8, 232, 9, 234, 10, 237, 11, 239, 12, 241, 13,
           243, 14, 245, 16, 248, 17)
EMC_465 = (204, 1, 206, 2, 211, 3, 215, 4, 219, 5, 223, 6, 226, 7, 230, 8, 232, 9, 234, 10, 237, 11, 239, 12, 241, 13,
           244, 14, 245, 15)

SLIP_ARRAYS = {
    "eii-468": SlipArray(_pairs(SLIP_468), 1, "eii-468", "eii-468"),
    "eii-465": SlipArray(_pairs(SLIP_465), 1, "eii-465", "eii-465"),
    "emc-458": SlipArray(_pairs(EMC_458), 1, "emc-458", "eii-468"),
    "emc-460": SlipArray(_pairs(EMC_460), 1, "emc-460", "eii-468"),
    "emc-463": SlipArray(_pairs(EMC_463), 1, "emc-463", "eii-468"),
    "emc-465": SlipArray(_pairs(EMC_465), 1, "emc-465", "eii-468"),
    "none": SlipArray((), 1, "none"),
}


def check_steps(steps, where: str = "the slip array", path: str | None = None) -> tuple[tuple[int, int], ...]:
    out, last_d, last_a = [], -1, 0
    for s in steps:
        if not (isinstance(s, (list, tuple)) and len(s) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                     for v in s)):
            raise InputError(f"{where}: each step is [depth, allowance] in whole numbers, not {s!r}", path)
        d, a = s
        if d < 0 or a < 0:
            raise InputError(f"{where}: depths and allowances are not negative ({s!r})", path)
        if d <= last_d or a < last_a:
            raise InputError(f"{where}: depths must rise and allowances must not fall ({s!r} after "
                             f"[{last_d}, {last_a}])", path)
        out.append((d, a))
        last_d, last_a = d, a
    return tuple(out)


def parse_slip_text(text: str, path: str | None = None) -> SlipArray:
    """A slip array from text: eii's ``{193, 1, 202, 2, ...}`` (braces optional) or emc's JSON
    (``"format": "emc-slip-array"``, as :func:`slip_document` writes)."""
    s = text.strip()
    if s.startswith("{") and '"' in s:
        try:
            doc = json.loads(s)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg})", path, exc.lineno) from None
        if not isinstance(doc, dict) or doc.get("format") != "emc-slip-array":
            raise InputError('not a slip array file (no "format": "emc-slip-array")', path, 1)
        base = doc.get("base", 1)
        if base not in (0, 1):
            raise InputError(f"base is 0 or 1, not {base!r}", path)
        steps = check_steps(doc.get("steps", []), "steps", path)
        info = {k: v for k, v in doc.items() if k not in ("format", "version", "base", "steps", "order")}
        return SlipArray(steps, base, str(path or "slip array"), doc.get("order"), info)
    values = []
    for ln, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0]
        for tok in re.split(r"[\s,{}]+", line):
            if tok:
                values.append(read_whole(tok, "slip array", path, ln))
    if len(values) % 2:
        raise InputError(f"a slip array is pairs (depth, allowance): {len(values)} numbers given", path)
    return SlipArray(check_steps(_pairs(tuple(values)), "slip array", path), 1, str(path or "slip array"))


def slip_array(spec: str | SlipArray | None) -> SlipArray:
    """A preset's name (``eii-468``, ``eii-465``, ``none``), a file, or the numbers inline."""
    if isinstance(spec, SlipArray):
        return spec
    if spec is None:
        return SLIP_ARRAYS["none"]
    if spec in SLIP_ARRAYS:
        return SLIP_ARRAYS[spec]
    from pathlib import Path

    p = Path(spec)
    if p.is_file():
        try:
            text = p.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read it ({exc})", spec) from None
        return parse_slip_text(text, spec)
    if re.fullmatch(r"[\s\d,{}]+", spec):
        return parse_slip_text(spec)
    raise InputError(f"no slip array {spec!r}: a file, the numbers (e.g. '193,1,202,2') or a preset "
                     f"({', '.join(SLIP_ARRAYS)})")


# --------------------------------------------------------------------------- orders
_SQUARE = re.compile(r"([A-Za-z])(\d+)$|r(\d+)c(\d+)$")


def _square(tok: str, P: Puzzle, path, ln) -> tuple[int, int]:
    m = _SQUARE.fullmatch(tok)
    if not m:
        raise InputError(f"{tok!r} is not a square (a row letter and column number like P1, or r16c1)", path, ln)
    if m.group(1):
        r, c = ord(m.group(1).upper()) - ord("A"), int(m.group(2)) - 1
    else:
        r, c = int(m.group(3)) - 1, int(m.group(4)) - 1
    if not (0 <= r < P.height and 0 <= c < P.width):
        raise InputError(f"square {tok} is not on the {P.size} board", path, ln)
    return r, c


def _run(a: tuple[int, int], b: tuple[int, int], tok: str, path, ln) -> list[tuple[int, int]]:
    if a[0] != b[0] and a[1] != b[1]:
        raise InputError(f"{tok}: a run goes along one row or one column", path, ln)
    n = max(abs(a[0] - b[0]), abs(a[1] - b[1]))
    dr, dc = np.sign(b[0] - a[0]), np.sign(b[1] - a[1])
    return [(a[0] + k * dr, a[1] + k * dc) for k in range(n + 1)]


def parse_order(text: str, puzzle: Puzzle, path: str | None = None) -> np.ndarray:
    """The cells (row-major numbers) of an order written as the module's docstring says."""
    P = puzzle
    squares: list[tuple[int, int]] = []
    src = []  # (line, item) for error messages
    for ln, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0]
        for item in re.findall(r"\[[^\]]*\]?|[^\s\[\]]+", line):
            src.append((ln, item))
    for ln, item in src:
        if item.startswith("["):
            if not item.endswith("]"):
                raise InputError(f"{item!r}: a block opened with [ is closed on the same line", path, ln)
            runs = [r for r in re.split(r"\s+-\s+|\s+", item[1:-1].strip()) if r]
            if len(runs) != 2:
                raise InputError(f"{item!r}: a block is [first-run last-run]", path, ln)
            ends = []
            for r in runs:
                parts = r.split("-")
                if len(parts) != 2:
                    raise InputError(f"{r!r} in {item!r} is not a run like P1-P16", path, ln)
                ends.append((_square(parts[0], P, path, ln), _square(parts[1], P, path, ln)))
            (a0, a1), (b0, b1) = ends
            first = _run(a0, a1, item, path, ln)
            last = _run(b0, b1, item, path, ln)
            shift = (b0[0] - a0[0], b0[1] - a0[1])
            if len(first) != len(last) or (b1[0] - a1[0], b1[1] - a1[1]) != shift:
                raise InputError(f"{item!r}: the last run must be the first one moved", path, ln)
            along = (a1[0] - a0[0], a1[1] - a0[1])
            if (shift[0] and along[0]) or (shift[1] and along[1]) or shift == (0, 0):
                raise InputError(f"{item!r}: the runs of a block step across their own direction", path, ln)
            steps = max(abs(shift[0]), abs(shift[1]))
            dr, dc = int(np.sign(shift[0])), int(np.sign(shift[1]))
            for k in range(steps + 1):
                squares += [(r + k * dr, c + k * dc) for r, c in first]
        elif "-" in item:
            parts = item.split("-")
            if len(parts) != 2:
                raise InputError(f"{item!r} is not a run like D13-D16", path, ln)
            squares += _run(_square(parts[0], P, path, ln), _square(parts[1], P, path, ln), item, path, ln)
        else:
            squares.append(_square(item, P, path, ln))
    hinted = {h.cell for h in P.hints}
    cells = [int(r) * P.width + int(c) for r, c in squares]
    seen: set[int] = set()
    for (r, c), cell in zip(squares, cells):
        if cell in seen:
            raise InputError(f"square r{r + 1}c{c + 1} is listed twice in the order", path)
        seen.add(cell)
    missing = [c for c in range(P.n_cells) if c not in seen and c not in hinted]
    if missing:
        more = "" if len(missing) <= 5 else f" and {len(missing) - 5} more"
        raise InputError(f"the order leaves out {len(missing)} square(s): "
                         f"{', '.join(P.cell_label(c) for c in missing[:5])}{more}", path)
    return np.array([c for c in cells if c not in hinted], dtype=np.int64)


def order_cells(spec: str, puzzle: Puzzle) -> np.ndarray:
    """An order by name (:data:`ORDERS`) or from a file."""
    P = puzzle
    hinted = {h.cell for h in P.hints}
    if spec == "rows":
        return np.array([c for c in range(P.n_cells) if c not in hinted], dtype=np.int64)
    if spec == "rows-up":
        return np.array([r * P.width + c for r in range(P.height - 1, -1, -1) for c in range(P.width)
                         if r * P.width + c not in hinted], dtype=np.int64)
    if spec in ("eii-468", "eii-465"):
        if (P.width, P.height) != (16, 16):
            raise InputError(f"order {spec} is written for 16x16 boards, not {P.size}")
        return parse_order(ORDER_468 if spec == "eii-468" else ORDER_465, P, spec)
    from pathlib import Path

    p = Path(spec)
    if p.is_file():
        try:
            text = p.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read it ({exc})", spec) from None
        return parse_order(text, P, spec)
    raise InputError(f"no order {spec!r}: a file, or one of {', '.join(ORDERS)}")
