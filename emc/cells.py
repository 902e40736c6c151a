"""Sets of cells written as text (``--free`` options), and sub-problems built from them.

Syntax (1-based rows and columns; parts joined with ``+`` are united):

==================  ===============================================================
``all``             every cell
``frame``           the frame ring (cells touching the border)
``corners``         the four corner cells
``inner``           every cell not on the frame
``black``/``white`` the checkerboard classes ((row + col) even / odd, 1-based)
``rows:A-B``        rows A to B, every column (``rows:3`` for one row)
``cols:A-B``        columns A to B, every row
``rRcC-rR2cC2``     the rectangle from one corner cell to the other, inclusive
``rRcC,rR2cC2,...`` a list of single cells
==================  ===============================================================

A ``~`` takes away the cells named after it: ``all~corners`` is every cell but the four
corners (the benchmark of seed 002 fixes them), ``frame~rows:1`` the frame without its top row.

Example: ``--free frame`` (the BO neighbourhood), ``--free r3c3-r8c8`` (an RO window),
``--free rows:1-2`` (the first 2 x W band), ``--free frame+rows:5``, ``--free all~corners``.
"""

from __future__ import annotations

import re

import numpy as np

from .errors import InputError, read_whole, shorten
from .model import Board, Goal, Puzzle, Subproblem

_CELL = re.compile(r"r([0-9]+)c([0-9]+)$")
_RECT = re.compile(r"r([0-9]+)c([0-9]+)-r([0-9]+)c([0-9]+)$")
_RANGE = re.compile(r"(rows|cols):([0-9]+)(?:-([0-9]+))?$")
_WORDS = ("all", "frame", "corners", "inner", "black", "white")


def parse_cells(spec: str, puzzle: Puzzle) -> np.ndarray:
    """Sorted 0-based cell indices named by ``spec`` (see the module docstring)."""
    if not spec or not spec.strip():
        raise InputError("empty cell set")
    first, *taken = spec.replace(" ", "").split("~")
    for t in [first] + taken:
        if not t:
            raise InputError(f"cell set {spec!r}: nothing on one side of '~' (write the cells to keep, then '~' and the "
                             "cells to take away, as in all~corners)")
    chosen = _union(first, puzzle)
    for t in taken:
        chosen &= ~_union(t, puzzle)
    return np.flatnonzero(chosen)


def _union(spec: str, puzzle: Puzzle) -> np.ndarray:
    """The cells of the parts of ``spec`` joined by ``+``, as a mask."""
    W, H = puzzle.width, puzzle.height
    r, c = np.divmod(np.arange(puzzle.n_cells), W)
    chosen = np.zeros(puzzle.n_cells, dtype=bool)
    for part in spec.split("+"):
        low = part.lower()
        if not low:
            raise InputError(f"cell set {spec!r}: an empty part between '+' signs (join parts as frame+rows:2-3)")
        if low == "all":
            chosen[:] = True
        elif low == "frame":
            chosen |= puzzle.cell_class > 0
        elif low == "corners":
            chosen |= puzzle.cell_class == 2
        elif low == "inner":
            chosen |= puzzle.cell_class == 0
        elif low in ("black", "white"):
            chosen |= ((r + c) % 2 == 0) == (low == "black")
        elif m := _RANGE.match(low):
            a = read_whole(m.group(2), f"cell set {shorten(part)!r}")
            b = read_whole(m.group(3), f"cell set {shorten(part)!r}") if m.group(3) else a
            limit = H if m.group(1) == "rows" else W
            if not (1 <= a <= b <= limit):
                raise InputError(f"cell set {part!r}: {m.group(1)} must be within 1..{limit}, low to high")
            idx = r if m.group(1) == "rows" else c
            chosen |= (idx >= a - 1) & (idx <= b - 1)
        elif m := _RECT.match(low):
            r1, c1, r2, c2 = (read_whole(x, f"cell set {shorten(part)!r}") for x in m.groups())
            _check_cell(part, r1, c1, W, H)
            _check_cell(part, r2, c2, W, H)
            ra, rb = sorted((r1, r2))
            ca, cb = sorted((c1, c2))
            chosen |= (r >= ra - 1) & (r <= rb - 1) & (c >= ca - 1) & (c <= cb - 1)
        else:
            for item in low.split(","):
                m = _CELL.match(item)
                if not m:
                    what = f"cannot read {item!r}" if item else "an empty item between commas"
                    if "," in low and all(_CELL.match(x) or _RANGE.match(x) or _RECT.match(x)
                                          or x in _WORDS for x in low.split(",")):
                        raise InputError(f"cell set {part!r}: commas list single cells (r1c1,r2c5); join other parts "
                                         f"with '+': {part.replace(',', '+')}")
                    raise InputError(
                        f"cell set {part!r}: {what} (use all, frame, corners, inner, black, white, "
                        "rows:A-B, cols:A-B, rRcC-rRcC or rRcC,rRcC,..., and ~ to take cells away)")
                rr, cc = (read_whole(x, f"cell set {shorten(part)!r}") for x in m.groups())
                _check_cell(part, rr, cc, W, H)
                chosen[(rr - 1) * W + (cc - 1)] = True
    return chosen


def _check_cell(part: str, row: int, col: int, W: int, H: int) -> None:
    if not (1 <= row <= H and 1 <= col <= W):
        raise InputError(f"cell set {part!r}: r{row}c{col} is outside the {W}x{H} board")


def make_subproblem(
    puzzle: Puzzle,
    free: str | None = None,
    fixed: Board | None = None,
    goal: Goal = Goal.FEASIBILITY,
    symmetry_breaking: bool = True,
    fixed_path: str | None = None,
) -> Subproblem:
    """The sub-problem that command-line options describe.

    * no ``free`` and no ``fixed``: the whole puzzle (hints fixed).
    * ``fixed`` only: fill the empty cells of ``fixed`` with the pieces it does not use.
    * ``free`` (with or without ``fixed``): re-solve those cells; the pieces allowed are
      every piece not placed on a non-free cell (so a region of a full board is re-solved
      with its own pieces, and a region of a partial board may take any unused piece).
    Hint cells stay fixed unless named in ``free``; a ``fixed`` board (read from ``fixed_path``,
    named in errors) that contradicts a hint on a cell that stays fixed is refused.
    """
    if free is None and fixed is None:
        return Subproblem.whole(puzzle, goal, symmetry_breaking)
    base = fixed.copy() if fixed is not None else Board.from_hints(puzzle)
    try:
        freed = parse_cells(free, puzzle) if free is not None else np.zeros(0, dtype=np.int64)
    except InputError as exc:  # said as the option it came from
        raise InputError(f"--free: {exc.reason}", exc.path, exc.line) from None
    if fixed is not None:
        for h in puzzle.hints:
            label = puzzle.cell_label(h.cell)
            if h.cell not in freed:  # a hint cell that stays fixed must hold the hint
                p, r = int(base.piece[h.cell]), int(base.rotation[h.cell])
                if p >= 0 and (p, r) != (h.piece, h.rotation):
                    raise InputError(f"{label}: the fixed board has piece {p + 1} turned {r}, the puzzle's hint wants "
                                     f"piece {h.piece + 1} turned {h.rotation} (free {label} to re-solve it)", fixed_path)
                at = np.flatnonzero(base.piece == h.piece)
                if p < 0 and at.size:
                    raise InputError(f"the fixed board has piece {h.piece + 1} on {puzzle.cell_label(int(at[0]))}, "
                                     f"the puzzle's hint puts it on {label} (free {label} to re-solve it)", fixed_path)
            if base.piece[h.cell] < 0 and h.piece not in base.piece:  # a partial board still gets its hints
                base.place(h.cell, h.piece, h.rotation)
    if fixed is not None:  # what stays fixed must be a valid (partial) board: its faults are not the solver's
        from .score import verify

        kept = base.copy()
        kept.piece[freed], kept.rotation[freed] = -1, 0
        report = verify(puzzle, kept, allow_partial=True, check_hints=False)
        if not report.valid:
            raise InputError(f"the fixed board is not valid where it stays fixed: {report.problems[0]} "
                             "(correct it, or free that cell)", fixed_path)
    cells = freed if free is not None else np.flatnonzero(base.piece < 0)
    if cells.size == 0:
        if free is not None:  # e.g. `inner` on a board two rows high
            raise InputError(f"no free cells: --free {shorten(free)!r} names no cell of the {puzzle.size} board")
        raise InputError("no free cells: " + ("the --fixed board is already full (give --free)" if fixed is not None
                                              else "every cell holds a hint (give --free)"))
    outside = np.ones(puzzle.n_cells, dtype=bool)
    outside[cells] = False
    used = base.piece[outside & (base.piece >= 0)]
    pieces = np.setdiff1d(np.arange(puzzle.n_pieces), used)
    sp = Subproblem(puzzle, base, cells, pieces, goal, symmetry_breaking=False)
    if symmetry_breaking and sp.is_whole and not puzzle.hints:
        sp = Subproblem(puzzle, base, cells, pieces, goal, symmetry_breaking=True)
    return sp
