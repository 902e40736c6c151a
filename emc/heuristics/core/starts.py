"""Starting boards every local search can begin from.

* :func:`random_board`: every piece on a random cell of its class (corner, edge, inner), in
  the rotation its cell forces, inner pieces turned at random; hints in place (or not, with
  ``hints=False``); optionally one corner piece on the top-left cell, which seed 003 (section
  4.1) keeps there for the whole run so that the search does not wander among turned copies of
  the same board (pass ``fixed=(TOP_LEFT,)`` to :class:`~emc.heuristics.core.board_state.BoardState`).
* :func:`backtrack_board`: the deepest partial board of a time-limited backtracking search in
  one of the cell orders of seed 003 (section 4.2: scan-row, spiral, inverse spiral, mirrored
  scan-row), the rest filled at random within each class (:func:`fill_random`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ... import runtime
from ...errors import InputError
from ...model import Board, PieceClass, Puzzle, require_puzzle, require_seed

#: The top-left cell, where a start may put a corner piece for the run.
TOP_LEFT = 0


def random_board(puzzle: Puzzle, seed: int | np.random.Generator = 0, hints: bool = True,
                 corner: int | str | None = None) -> Board:
    """A random valid board: hints in place (unless ``hints`` is false: then the hint pieces are
    placed at random like the others), every other piece on a random cell of its class in the
    rotation that fits (inner pieces in a random rotation).

    ``corner``: a corner piece (0-based) to put on the top-left cell in the rotation it needs
    there, ``"random"`` for one drawn from the seed (seed 003, section 4.1), or None. On a square
    board with no hint honoured, every board can be turned so that a chosen corner piece sits on
    the top-left cell, so fixing it there loses nothing; a rectangular board (whose only turn is
    the half turn) or a hint honoured breaks that, and a fixed corner then restricts the search.
    """
    require_puzzle(puzzle, "random_board")
    rng = _rng(seed, "random_board")
    return fill_random(puzzle, _base(puzzle, rng, hints, corner, "random_board"), rng)


def _rng(seed, caller: str) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(require_seed(seed, caller))


def _base(puzzle: Puzzle, rng: np.random.Generator, hints: bool, corner, caller: str) -> Board:
    """An empty board with the hints (when honoured) and the fixed corner piece (if any) placed."""
    if not isinstance(hints, bool):
        raise TypeError(f"{caller}: hints is True or False, not {hints!r}")
    board = Board.from_hints(puzzle) if hints else Board.empty(puzzle)
    if corner is None:
        return board
    corners = np.flatnonzero(puzzle.piece_class == PieceClass.CORNER)
    corners = corners[~np.isin(corners, board.piece)]
    if isinstance(corner, str):
        if corner != "random":
            raise InputError(f"{caller}: corner is a piece number, 'random' or None, not {corner!r}")
        if not len(corners):
            raise InputError(f"{caller}: no free corner piece to put on the top-left cell")
        corner = int(corners[rng.integers(len(corners))])
    elif isinstance(corner, bool) or not isinstance(corner, (int, np.integer)):
        raise TypeError(f"{caller}: corner is a piece number, 'random' or None, not {corner!r}")
    if board.piece[TOP_LEFT] >= 0:
        raise InputError(f"{caller}: the top-left cell holds hint piece {board.piece[TOP_LEFT] + 1}")
    if corner not in corners:
        raise InputError(f"{caller}: piece {corner + 1} is not a free corner piece of {puzzle.name}"
                         if 0 <= corner < puzzle.n_pieces else f"{caller}: there is no piece {corner + 1}")
    rots = np.flatnonzero(puzzle.fits[corner, TOP_LEFT])
    board.place(TOP_LEFT, int(corner), int(rots[0]))
    return board


def fill_random(puzzle: Puzzle, board: Board, rng: np.random.Generator) -> Board:
    """``board`` (changed in place, and returned) with its empty cells filled by the pieces not on
    it, each on a random cell of its class, in the rotation its cell forces (inner pieces turned
    at random)."""
    used = set(int(p) for p in board.piece if p >= 0)
    for k in PieceClass:
        cells = np.flatnonzero((puzzle.cell_class == k) & (board.piece < 0))
        pieces = np.array([p for p in np.flatnonzero(puzzle.piece_class == k) if int(p) not in used], dtype=np.int64)
        if len(cells) != len(pieces):
            raise InputError(f"{len(pieces)} free {k.label} pieces for {len(cells)} {k.label} cells")
        pieces = pieces[rng.permutation(len(pieces))]
        for c, p in zip(cells, pieces):
            rots = np.flatnonzero(puzzle.fits[p, c])
            if len(rots) == 0:
                raise InputError(f"piece {p + 1} fits no rotation on {puzzle.cell_label(c)}")
            board.place(int(c), int(p), int(rots[rng.integers(len(rots))]))
    return board


# ------------------------------------------------------------------------- backtracking starts
#: The cell orders of seed 003's backtracking starts (section 4.2, Figure 3).
ORDERS = ("rows", "spiral", "inverse-spiral", "mirrored-rows")


def cell_order(width: int, height: int, order: str) -> np.ndarray:
    """Every cell of a ``width`` x ``height`` board in one of the :data:`ORDERS`: row by row from
    the top-left (scan-row); clockwise round the frame from the top-left and on inwards ring by
    ring (spiral); the spiral backwards, from the middle out (inverse spiral); the first cell of
    the scan-row order, then its last, its second, its second last and so on (mirrored scan-row,
    which fills from both ends towards the middle)."""
    n = width * height
    if order == "rows":
        return np.arange(n)
    if order == "mirrored-rows":
        out = np.empty(n, dtype=np.int64)
        out[0::2] = np.arange((n + 1) // 2)
        out[1::2] = np.arange(n - 1, (n + 1) // 2 - 1, -1)
        return out
    if order in ("spiral", "inverse-spiral"):
        cells = []
        top, bottom, left, right = 0, height - 1, 0, width - 1
        while top <= bottom and left <= right:
            cells += [top * width + c for c in range(left, right + 1)]
            cells += [r * width + right for r in range(top + 1, bottom + 1)]
            if top < bottom:
                cells += [bottom * width + c for c in range(right - 1, left - 1, -1)]
            if left < right:
                cells += [r * width + left for r in range(bottom - 1, top, -1)]
            top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
        out = np.array(cells, dtype=np.int64)
        return out if order == "spiral" else out[::-1].copy()
    raise InputError(f"unknown cell order {order!r} (choose from: {', '.join(ORDERS)})")


@dataclass
class BacktrackStart:
    """What :func:`backtrack_board` made: the board; the search's deepest partial board (the
    hints and fixed corner, and the first ``filled`` of the ``free`` cells of the order, every
    edge between them matched), which the board completes at random; nodes and seconds."""

    board: Board
    partial: Board
    filled: int
    free: int
    nodes: int
    seconds: float
    order: str


def backtrack_board(puzzle: Puzzle, order: str = "rows", seconds: float = 10.0, seed: int = 0, hints: bool = True,
                    corner: int | str | None = None, max_nodes: int | None = None) -> BacktrackStart:
    """A starting board from a time-limited backtracking search (seed 003, section 4.2).

    The search (:mod:`~emc.heuristics.core.dfs`) fills the cells in ``order`` (one of
    :data:`ORDERS`), each piece matching the neighbours already placed, for ``seconds`` (or
    ``max_nodes`` placements, whichever ends first, or until it fills the board); its deepest
    partial board is kept and the empty cells are then filled at random within each class
    (:func:`fill_random`). Hints (unless ``hints`` is false) and the fixed ``corner`` (as for
    :func:`random_board`) are placed before the search starts and never moved. The seed orders
    the candidates and draws the random fill.
    """
    from .dfs import D_DEEPEST, D_NODES, D_POS, candidate_table, run

    require_puzzle(puzzle, "backtrack_board")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0 or seconds == float("inf"):
        raise InputError(f"backtrack_board: seconds {seconds!r} must be a positive number")
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, (int, np.integer))
                                  or max_nodes < 1):
        raise InputError(f"backtrack_board: max_nodes {max_nodes!r} must be a whole number of at least 1")
    cells = cell_order(puzzle.width, puzzle.height, order)
    rng = _rng(seed, "backtrack_board")
    board = _base(puzzle, rng, hints, corner, "backtrack_board")
    cells = cells[board.piece[cells] < 0]
    placed = board.piece >= 0
    key_side = np.full(len(cells), -1, dtype=np.int64)
    check_mask = np.zeros(len(cells), dtype=np.int64)
    nb = np.ascontiguousarray(puzzle.neighbours, dtype=np.int64)
    for i, c in enumerate(cells):
        for s in range(4):
            if nb[c, s] >= 0 and placed[nb[c, s]]:
                check_mask[i] |= 1 << s
                if key_side[i] < 0:
                    key_side[i] = s
        placed[c] = True
    frame_mask = (puzzle.frame_sides * (1 << np.arange(4))).sum(axis=1).astype(np.int64)
    fits_mask = np.zeros((puzzle.n_pieces, 16), dtype=np.int64)
    for fm in np.unique(frame_mask):
        fits_mask[:, fm] = (puzzle.fits[:, int(np.flatnonzero(frame_mask == fm)[0]), :] * (1 << np.arange(4))).sum(1)
    colours = np.ascontiguousarray(puzzle.colours, dtype=np.int64)
    n_colours = puzzle.max_colour + 1
    free_pieces = np.setdiff1d(np.arange(puzzle.n_pieces), board.piece[board.piece >= 0])
    start, cand, free_start, free_cand = candidate_table(colours, fits_mask, free_pieces, n_colours, rng)
    piece, rotation = board.piece.astype(np.int64), board.rotation.astype(np.int64)
    used = np.ones(puzzle.n_pieces, dtype=np.uint8)
    used[free_pieces] = 0
    n = len(cells)
    at, end, free = (np.zeros(max(n, 1), dtype=np.int64) for _ in range(3))
    deepest_piece, deepest_rot = piece.copy(), rotation.copy()
    state = np.zeros(4, dtype=np.int64)
    t0 = time.perf_counter()
    slice_nodes = 20_000
    while True:
        budget = slice_nodes if max_nodes is None else min(slice_nodes, max_nodes - int(state[D_NODES]))
        t = time.perf_counter()
        run(budget, cells, key_side, check_mask, frame_mask, nb, colours, n_colours, start, cand, free_start, free_cand,
            piece, rotation, used, at, end, free, deepest_piece, deepest_rot, state)
        runtime.check()  # a Ctrl-C the command line's guard saw while the kernel ran
        now = time.perf_counter()
        if (state[D_DEEPEST] == n or state[D_POS] < 0 or now - t0 >= seconds
                or (max_nodes is not None and state[D_NODES] >= max_nodes)):
            break
        if now - t < 0.02:  # slices of about 0.05 s: the clock is read often enough, and cheaply
            slice_nodes *= 2
    partial = Board(puzzle.width, puzzle.height, deepest_piece, np.where(deepest_piece >= 0, deepest_rot, 0))
    return BacktrackStart(fill_random(puzzle, partial.copy(), rng), partial, int(state[D_DEEPEST]), n,
                          int(state[D_NODES]), time.perf_counter() - t0, order)
