"""Scores and independent verification of boards.

Objectives (Wauters, Vancroonenburg and Vanden Berghe, seed 003, section 4.6):

* ``obj1`` / score: matched internal edges, at most W(H-1) + H(W-1).
* ``obj2``: complete 2x2 blocks (every internal edge of the block matched).
* ``obj3``: perfect pieces (all four sides matched; a side on the frame counts as matched
  when it shows the border colour).
* ``obj4`` and ``obj5``: complete 3x3 and 4x4 blocks.

An internal edge is *matched* when both cells hold a piece and both show the same colour,
other than the border colour (two border sides facing each other inside the board are a
frame violation, not a match).

Everything here is vectorised with numpy over whole boards; :func:`placement_matches` and
:func:`swap_delta` give the change of score of a move by looking only at the cells it touches,
which is what local search needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import InputError
from .model import BORDER, OPPOSITE, Board, Puzzle, _check_types, check_placements, edge_matches  # noqa: F401 (re-exported)


def score(puzzle: Puzzle, board: Board) -> int:
    """Obj1: number of matched internal edges."""
    return int(edge_matches(puzzle, board).sum())


def _match_grids(puzzle: Puzzle, board: Board) -> tuple[np.ndarray, np.ndarray]:
    """Matched horizontal edges as ``(H, W-1)`` and vertical edges as ``(H-1, W)``."""
    W, H = puzzle.width, puzzle.height
    m = edge_matches(puzzle, board)
    nh = H * (W - 1)
    return m[:nh].reshape(H, W - 1), m[nh:].reshape(H - 1, W)


def complete_blocks(puzzle: Puzzle, board: Board, k: int) -> int:
    """Number of k x k windows whose internal edges are all matched (Obj2, Obj4, Obj5)."""
    W, H = puzzle.width, puzzle.height
    if k > W or k > H:
        return 0
    hm, vm = _match_grids(puzzle, board)

    def window_all(ok: np.ndarray, rows: int, cols: int) -> np.ndarray:
        # Sum of mismatches over every rows x cols window via a 2-D prefix sum.
        bad = np.pad((~ok).astype(np.int32), ((1, 0), (1, 0))).cumsum(0).cumsum(1)
        s = bad[rows:, cols:] - bad[:-rows, cols:] - bad[rows:, :-cols] + bad[:-rows, :-cols]
        return s == 0

    h_ok = window_all(hm, k, k - 1)  # (H-k+1, W-k+1)
    v_ok = window_all(vm, k - 1, k)
    return int((h_ok & v_ok).sum())


def perfect_pieces(puzzle: Puzzle, board: Board) -> int:
    """Obj3: pieces whose four sides are all matched (frame sides must show the border colour)."""
    shown = board.shown(puzzle)
    n = puzzle.n_cells
    good = np.ones((n, 4), dtype=bool)
    nb = puzzle.neighbours
    for s in range(4):
        inside = nb[:, s] >= 0
        theirs = np.where(inside, shown[np.maximum(nb[:, s], 0), OPPOSITE[s]], -2)
        good[:, s] = np.where(inside, (shown[:, s] == theirs) & (shown[:, s] > BORDER), shown[:, s] == BORDER)
    return int((good.all(axis=1) & board.filled).sum())


@dataclass(frozen=True)
class Mismatch:
    """An internal edge whose two sides differ (or where a cell is empty)."""

    cell_a: int
    cell_b: int
    colour_a: int  # -1 if cell_a is empty
    colour_b: int


def mismatches(puzzle: Puzzle, board: Board) -> list[Mismatch]:
    """Every unmatched internal edge, in ``puzzle.edges`` order."""
    shown = board.shown(puzzle)
    e, s = puzzle.edges, puzzle.edge_sides
    ca = shown[e[:, 0], s[:, 0]]
    cb = shown[e[:, 1], s[:, 1]]
    bad = np.flatnonzero(~((ca == cb) & (ca > BORDER)))
    return [Mismatch(int(e[i, 0]), int(e[i, 1]), int(ca[i]), int(cb[i])) for i in bad]


def scores(puzzle: Puzzle, board: Board) -> dict[str, int]:
    """All objectives of a board as a dict (``score`` = ``obj1``)."""
    s = score(puzzle, board)
    return {
        "score": s,
        "max_score": puzzle.max_score,
        "obj1": s,
        "obj2": complete_blocks(puzzle, board, 2),
        "obj3": perfect_pieces(puzzle, board),
        "obj4": complete_blocks(puzzle, board, 3),
        "obj5": complete_blocks(puzzle, board, 4),
        "mismatches": puzzle.max_score - s,
    }


# ------------------------------------------------------------------ verification
@dataclass
class Report:
    """The outcome of :func:`verify`: is the board a valid placement, and its scores."""

    valid: bool
    complete: bool
    problems: list[str] = field(default_factory=list)
    scores: dict[str, int] = field(default_factory=dict)
    frame_violations: list[str] = field(default_factory=list)
    hint_violations: list[str] = field(default_factory=list)

    @property
    def solved(self) -> bool:
        """A valid, complete board with every internal edge matched."""
        return self.valid and self.complete and self.scores.get("score") == self.scores.get("max_score")


def verify(puzzle: Puzzle, board: Board, allow_partial: bool = False, check_hints: bool = True) -> Report:
    """Check a board completely, independently of how it was produced.

    A board is valid when it has the puzzle's size, every piece id exists and is used at
    most once, every rotation is 0..3, every cell is filled (unless ``allow_partial``), the
    border colour shows on exactly the sides facing the frame, and every hint is honoured
    (unless ``check_hints`` is off). Scores are computed for valid and invalid boards alike.
    """
    _check_types(puzzle, board)
    problems: list[str] = []
    if (board.width, board.height) != (puzzle.width, puzzle.height):
        return Report(False, False, [f"board is {board.width}x{board.height}, puzzle is {puzzle.size}"])
    piece, rot = board.piece, board.rotation
    filled = piece >= 0
    bad_id = np.flatnonzero(piece >= puzzle.n_pieces)
    for c in bad_id:
        problems.append(f"{puzzle.cell_label(c)}: piece {piece[c] + 1} does not exist (puzzle has {puzzle.n_pieces})")
    bad_neg = np.flatnonzero(piece < -1)
    for c in bad_neg:
        problems.append(f"{puzzle.cell_label(c)}: invalid piece id {piece[c]}")
    bad_rot = np.flatnonzero(filled & ((rot < 0) | (rot > 3)))
    for c in bad_rot:
        problems.append(f"{puzzle.cell_label(c)}: rotation {rot[c]} is not 0..3")
    if problems:
        return Report(False, bool(filled.all()), problems)
    ids, counts = np.unique(piece[filled], return_counts=True)
    for p, n in zip(ids, counts):
        if n > 1:
            where = ", ".join(puzzle.cell_label(c) for c in np.flatnonzero(piece == p))
            problems.append(f"piece {p + 1} is used {n} times ({where})")
    complete = bool(filled.all())
    if not complete and not allow_partial:
        empty = int((~filled).sum())
        problems.append(f"{empty} empty cell{'' if empty == 1 else 's'}")

    shown = board.shown(puzzle)
    frame = puzzle.frame_sides
    frame_bad: list[str] = []
    from .model import SIDES

    wrong = filled[:, None] & ((shown == BORDER) != frame)
    for c, s in zip(*np.nonzero(wrong)):
        if frame[c, s]:
            frame_bad.append(f"{puzzle.cell_label(c)}: piece {piece[c] + 1} shows colour {shown[c, s]} to the frame on its {SIDES[s]} side")
        else:
            frame_bad.append(f"{puzzle.cell_label(c)}: piece {piece[c] + 1} shows the border colour inside the board on its {SIDES[s]} side")
    hint_bad: list[str] = []
    if check_hints:
        for h in puzzle.hints:
            if piece[h.cell] != h.piece or (rot[h.cell] % 4) != h.rotation:
                got = "empty" if piece[h.cell] < 0 else f"piece {piece[h.cell] + 1} rotation {rot[h.cell]}"
                hint_bad.append(f"{puzzle.cell_label(h.cell)}: hint wants piece {h.piece + 1} rotation {h.rotation}, board has {got}")
    problems += frame_bad + hint_bad
    return Report(
        valid=not problems,
        complete=complete,
        problems=problems,
        scores=scores(puzzle, board),
        frame_violations=frame_bad,
        hint_violations=hint_bad,
    )


# ------------------------------------------------------------- constant-time deltas
def placement_matches(puzzle: Puzzle, board: Board, cell: int, piece: int, rotation: int, ignore: int = -1) -> int:
    """Matched edges ``piece`` would make at ``cell`` with ``rotation`` against the current
    neighbours (the cell ``ignore`` is treated as empty). Touches at most four cells."""
    col = puzzle.colours[piece, rotation]
    n = 0
    for s in range(4):
        nb = puzzle.neighbours[cell, s]
        if nb < 0 or nb == ignore:
            continue
        q = board.piece[nb]
        if q < 0:
            continue
        theirs = puzzle.colours[q, board.rotation[nb], OPPOSITE[s]]
        n += int(col[s] == theirs and col[s] != BORDER)
    return n


def cell_matches(puzzle: Puzzle, board: Board, cell: int, ignore: int = -1) -> int:
    """Matched edges of the piece now on ``cell`` (0 if empty)."""
    p = board.piece[cell]
    if p < 0:
        return 0
    return placement_matches(puzzle, board, cell, int(p), int(board.rotation[cell]), ignore)


def swap_delta(puzzle: Puzzle, board: Board, a: int, b: int, rot_a: int, rot_b: int) -> int:
    """Change of score if the pieces on ``a`` and ``b`` swap places, the one landing on ``a``
    turned to ``rot_a`` and the one landing on ``b`` turned to ``rot_b``. Constant time.

    With ``a == b`` it is the change from turning the piece on ``a`` to ``rot_a``. The board
    must be the puzzle's size and ``a``, ``b`` its cells, each holding a piece (not checked
    further: this is the inner step of a local search).
    """
    _check_types(puzzle, board)
    if (board.width, board.height) != (puzzle.width, puzzle.height):
        raise InputError(f"board is {board.width}x{board.height}, puzzle is {puzzle.size}")
    n = puzzle.n_cells
    for name, v, top in (("a", a, n), ("b", b, n), ("rot_a", rot_a, 4), ("rot_b", rot_b, 4)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v < top:
            raise IndexError(f"swap_delta: {name} must be a whole number 0..{top - 1}, not {v!r}")
    pa, pb = int(board.piece[a]), int(board.piece[b])
    if pa < 0 or pb < 0:
        raise InputError(f"swap_delta: cell {a if pa < 0 else b} is empty")
    if a == b:
        return placement_matches(puzzle, board, a, pa, rot_a) - cell_matches(puzzle, board, a)
    adjacent = b in puzzle.neighbours[a]
    before = cell_matches(puzzle, board, a) + cell_matches(puzzle, board, b, ignore=a)
    after = placement_matches(puzzle, board, a, pb, rot_a, ignore=b) + placement_matches(puzzle, board, b, pa, rot_b, ignore=a)
    if adjacent:
        s = int(np.flatnonzero(puzzle.neighbours[a] == b)[0])
        ca = puzzle.colours[pb, rot_a, s]
        cb = puzzle.colours[pa, rot_b, OPPOSITE[s]]
        after += int(ca == cb and ca != BORDER)
    return after - before


def check_subproblem_solution(sp, board: Board, allow_empty: bool = False) -> list[str]:
    """Independent check of a board a solver returned for a :class:`~emc.model.Subproblem`.

    The board must agree with ``sp.fixed`` outside the free cells, fill every free cell with
    an allowed piece used once, in a rotation that puts the border colour exactly on the
    frame sides, and (for a feasibility goal) match every counted edge. Returns the list of
    problems, empty when the board is a correct answer.

    With ``allow_empty`` the board is a partial fill (the deepest a search reached): free cells
    may stay empty, and a feasibility goal asks only that every counted edge whose two cells
    are filled match.
    """
    from .model import Goal

    P = sp.puzzle
    problems: list[str] = []
    if (board.width, board.height) != (P.width, P.height):
        return [f"board is {board.width}x{board.height}, puzzle is {P.size}"]
    free = sp.free_mask
    outside = ~free
    same = (board.piece[outside] == sp.fixed.piece[outside]) & (
        (board.piece[outside] < 0) | (board.rotation[outside] % 4 == sp.fixed.rotation[outside] % 4)
    )
    for c in np.flatnonzero(outside)[~same]:
        problems.append(f"{P.cell_label(c)} is not free but was changed")
    allowed = np.zeros(P.n_pieces, dtype=bool)
    allowed[sp.pieces] = True
    got = board.piece[sp.free]
    if (got < 0).any() and not allow_empty:
        problems.append(f"{int((got < 0).sum())} free cells left empty")
    placed = got[got >= 0]
    if (placed >= P.n_pieces).any() or not allowed[placed[placed < P.n_pieces]].all():
        problems.append("a free cell holds a piece that is not allowed there")
    vals, counts = np.unique(placed, return_counts=True)
    if (counts > 1).any():
        problems.append(f"pieces used more than once: {[int(v) + 1 for v in vals[counts > 1]]}")
    for c in sp.free:
        p = board.piece[c]
        if 0 <= p < P.n_pieces and not (0 <= board.rotation[c] <= 3 and P.fits[p, c, board.rotation[c]]):
            problems.append(f"{P.cell_label(c)}: piece {p + 1} rotation {board.rotation[c]} does not fit the frame")
    if not problems and sp.goal is Goal.FEASIBILITY:
        if not allow_empty:
            if sp.score(board) != sp.max_score:
                problems.append(f"feasibility answer matches {sp.score(board)} of {sp.max_score} counted edges")
        else:
            counted = sp.counted_edges()
            e = P.edges[counted]
            both = (board.piece[e[:, 0]] >= 0) & (board.piece[e[:, 1]] >= 0)
            matched = edge_matches(P, board)[counted]
            if (both & ~matched).any():
                problems.append(f"partial fill matches {int((both & matched).sum())} of the {int(both.sum())} "
                                "counted edges between its filled cells")
    return problems
