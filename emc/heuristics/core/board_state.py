"""The checked Python face of the core's state (:mod:`~emc.heuristics.core.state`) and its
moves, partial optimal placement included (:mod:`~emc.heuristics.core.pop`): for tests and for
Python callers who try a few moves by hand. A search loop calls the compiled kernels instead.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ...errors import InputError
from ...model import Board, Puzzle, require_puzzle
from .state import (GROUPS, OBJ1, OBJ2, OBJ3, OBJ4, OBJ5, State, commit, group_bounds, make_state, make_tables, rotate, rotate_delta,
                    rotate_delta1, swap, swap_best1, swap_delta, swap_delta1, undo_to)


def _cell_arg(value, what: str, n: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} is a whole number, not {value!r}")
    if not 0 <= value < n:
        raise InputError(f"{what} {value} is not 0..{n - 1}")
    return int(value)


class BoardState:
    """A board under local search, for tests and Python callers: the compiled state with its
    arguments checked.

    Args:
        puzzle: the puzzle.
        board: a complete, valid board of it (:func:`emc.verify`; the hints in place unless
            ``hints`` is false).
        hints: honour the puzzle's hints (their cells never move) or ignore them (every cell of
            a class is movable, as in seed 003's experiments).
        fixed: more cells whose pieces never move (say the top-left corner, seed 003 section 4.1).
        seed: the random stream of :meth:`pop` (:func:`~emc.heuristics.core.xorshift.make_rng`).
        objectives: the objectives kept (:func:`make_tables`; Obj1 and Obj3 always are).

    Moves are logged: :meth:`undo` takes back the last move not yet committed, :meth:`commit`
    keeps every move made so far. ``tables`` and ``state`` are the arrays the kernels take.
    """

    def __init__(self, puzzle: Puzzle, board: Board, hints: bool = True, fixed: Iterable[int] = (), seed: int = 0,
                 objectives: Iterable[int] = (OBJ1, OBJ2, OBJ3, OBJ4, OBJ5)):
        from ...score import verify
        from .xorshift import make_rng

        require_puzzle(puzzle, "BoardState")
        if not isinstance(board, Board):
            raise TypeError(f"BoardState(puzzle, board): board is an emc.Board, not {type(board).__name__}")
        if not isinstance(hints, bool):
            raise TypeError(f"BoardState: hints is True (honour them) or False (ignore them), not {hints!r}")
        report = verify(puzzle, board, check_hints=hints)
        if not report.valid:
            raise InputError(f"BoardState needs a complete, valid board: {report.problems[0]}")
        movable = np.ones(puzzle.n_cells, dtype=bool)
        if hints:
            for h in puzzle.hints:
                movable[h.cell] = False
        for c in fixed:
            movable[_cell_arg(c, "a fixed cell", puzzle.n_cells)] = False
        self.puzzle = puzzle
        self.hints = hints
        self.tables = make_tables(puzzle, movable, objectives)
        self.state = make_state(self.tables, board.piece, board.rotation)
        self.rng = make_rng(seed)
        self._marks: list[int] = []
        self._work = None

    # --------------------------------------------------------------- reading
    def objective(self, k: int) -> int:
        """Objective ``k`` (1..5) of the current board."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= 5:
            raise InputError(f"objective {k!r} is not one of 1..5")
        if not self.tables.tracked[k]:
            raise InputError(f"objective {k} is not kept by this state (objectives= when it was made)")
        return int(self.state.obj[k])

    def scores(self) -> dict[str, int]:
        """``{"obj1": ..., ..., "obj5": ...}`` for the objectives kept (the keys of
        :func:`emc.score.scores`)."""
        return {f"obj{k}": int(self.state.obj[k]) for k in range(1, 6) if self.tables.tracked[k]}

    def board(self) -> Board:
        """A copy of the current board."""
        return Board(self.puzzle.width, self.puzzle.height, self.state.piece.copy(), self.state.rotation.copy())

    def cells(self, group: str) -> np.ndarray:
        """The movable cells of ``group`` (``inner``, ``edge``, ``corner`` or ``frame``)."""
        lo, hi = group_bounds(self.tables, self._group(group))
        return self.tables.group_cells[lo:hi].copy()

    # --------------------------------------------------------------- checks
    def _group(self, group: str) -> int:
        if group not in GROUPS:
            raise InputError(f"group {group!r} is not one of {', '.join(GROUPS)}")
        return GROUPS[group]

    def _movable(self, c, what: str) -> int:
        c = _cell_arg(c, what, self.puzzle.n_cells)
        if not self.tables.movable[c]:
            raise InputError(f"{what} {self.puzzle.cell_label(c)} is fixed (a hint honoured or a fixed cell)")
        return c

    def _rotation(self, cell: int, piece: int, r, what: str) -> int:
        if isinstance(r, bool) or not isinstance(r, (int, np.integer)):
            raise TypeError(f"{what} is a whole number 0..3, not {r!r}")
        if not 0 <= r < 4:
            raise InputError(f"{what} {r} is not 0..3")
        if not self.puzzle.fits[piece, cell, r]:
            raise InputError(f"piece {piece + 1} turned {r} does not fit {self.puzzle.cell_label(cell)} (the border "
                             "colour must face the frame)")
        return int(r)

    def _pair(self, a, b, ra, rb) -> tuple[int, int, int, int]:
        a = self._movable(a, "cell a")
        b = self._movable(b, "cell b")
        P = self.puzzle
        if P.cell_class[a] != P.cell_class[b]:
            raise InputError(f"{P.cell_label(a)} and {P.cell_label(b)} are cells of different classes")
        if (ra is None) != (rb is None):
            raise InputError("give both rotations or neither (None: the best ones by Obj1)")
        if ra is None:
            _, ra, rb = swap_best1(self.tables, self.state, a, b)
            return a, b, int(ra), int(rb)
        pa, pb = int(self.state.piece[a]), int(self.state.piece[b])
        if a == b:
            r = self._rotation(a, pa, ra, "rot_a")
            if rb != ra:
                raise InputError("a swap of a cell with itself turns its piece: rot_b must equal rot_a")
            return a, b, r, r
        return a, b, self._rotation(a, pb, ra, "rot_a"), self._rotation(b, pa, rb, "rot_b")

    def _objective(self, k) -> int:
        self.objective(k)
        return int(k)

    # --------------------------------------------------------------- moves
    def _begin(self, entries: int) -> None:
        """Room for ``entries`` more log entries (the log grows; a kernel would refuse)."""
        S = self.state
        need = int(S.log_n[0]) + entries
        if need > S.log.shape[0]:
            log = np.zeros((max(need, 2 * S.log.shape[0]), 3), dtype=np.int32)
            log[:S.log.shape[0]] = S.log
            self.state = S._replace(log=log)
        self._marks.append(int(self.state.log_n[0]))

    def rotate(self, cell: int, rotation: int) -> None:
        """Turn the piece on ``cell`` to ``rotation`` (which must fit the cell)."""
        c = self._movable(cell, "cell")
        r = self._rotation(c, int(self.state.piece[c]), rotation, "rotation")
        self._begin(1)
        rotate(self.tables, self.state, c, r)

    def swap(self, a: int, b: int, rot_a: int | None = None, rot_b: int | None = None) -> tuple[int, int]:
        """Swap the pieces of cells ``a`` and ``b`` (same class), turned ``rot_a`` on ``a`` and
        ``rot_b`` on ``b``, or both None for the best rotations by Obj1; returns the rotations."""
        a, b, ra, rb = self._pair(a, b, rot_a, rot_b)
        self._begin(2)
        swap(self.tables, self.state, a, b, ra, rb)
        return ra, rb

    def rotate_delta(self, cell: int, rotation: int, objective: int = 1) -> int:
        """Change of ``objective`` (1..5) if the piece on ``cell`` were turned to ``rotation``."""
        c = self._movable(cell, "cell")
        r = self._rotation(c, int(self.state.piece[c]), rotation, "rotation")
        k = self._objective(objective)
        if k == OBJ1:
            return int(rotate_delta1(self.tables, self.state, c, r))
        self._begin(1)
        self._marks.pop()
        return int(rotate_delta(self.tables, self.state, c, r, k))

    def swap_delta(self, a: int, b: int, rot_a: int | None = None, rot_b: int | None = None,
                   objective: int = 1) -> int:
        """Change of ``objective`` if :meth:`swap` ``(a, b, rot_a, rot_b)`` were made."""
        a, b, ra, rb = self._pair(a, b, rot_a, rot_b)
        k = self._objective(objective)
        if k == OBJ1:
            return int(swap_delta1(self.tables, self.state, a, b, ra, rb))
        self._begin(2)
        self._marks.pop()
        return int(swap_delta(self.tables, self.state, a, b, ra, rb, k))

    def pop(self, group: str = "inner", q: int = 24, zero_weight: float = 0.0) -> tuple[np.ndarray, int]:
        """Partial optimal placement (:func:`~emc.heuristics.core.pop.pop`) on ``group``
        (``inner`` or ``frame``, or ``edge`` / ``corner``): returns the cells lifted and the
        change of Obj1 (never negative)."""
        from .pop import make_work, pop

        g = self._group(group)
        if isinstance(q, bool) or not isinstance(q, (int, np.integer)):
            raise TypeError(f"q is a whole number, not {q!r}")
        if q < 1:
            raise InputError(f"q {q} must be at least 1")
        if isinstance(zero_weight, bool) or not isinstance(zero_weight, (int, float, np.number)) \
                or not zero_weight >= 0 or not np.isfinite(zero_weight):
            raise InputError(f"zero_weight {zero_weight!r} must be a finite number >= 0")
        lo, hi = group_bounds(self.tables, g)
        q = int(min(q, hi - lo))
        if self._work is None or self._work.cells.shape[0] < q:
            self._work = make_work(self.tables, max(q, 64))
        self._begin(q)
        n, gain = pop(self.tables, self.state, self._work, self.rng, g, q, float(zero_weight))
        return self._work.cells[:n].copy(), int(gain)

    def undo(self) -> None:
        """Take back the last move not yet committed."""
        if not self._marks:
            raise InputError("no move to undo (none made since the last commit)")
        undo_to(self.tables, self.state, self._marks.pop())

    def commit(self) -> None:
        """Keep every move made so far (they can no longer be undone)."""
        commit(self.state)
        self._marks.clear()

    def fresh(self) -> State:
        """The state rebuilt from scratch from the current board (for checks)."""
        return make_state(self.tables, self.state.piece, self.state.rotation)
