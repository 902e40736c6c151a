"""The incremental board state every score-maximising local search shares (issue 45, "The core").

It implements the solution model and the five objectives of Wauters, Vancroonenburg and Vanden
Berghe's guide-and-observe hyper-heuristic (seed 003, sections 4.1 and 4.6) and the swap and
rotate moves of its low-level heuristics (section 4.5), which are also the moves of Wang and
Chiang's tabu search (seed 004, section 2.3.1). Partial optimal placement is in
:mod:`~emc.heuristics.core.pop`.

Everything that runs per move is a compiled function (:data:`~emc.heuristics.core.jit.njit`)
over two named tuples of numpy arrays, so that a whole search loop can itself be one compiled
function calling these (a jitclass would not be cached on disk):

* :class:`Tables` (``T``): what the puzzle and the run fix: colours, neighbours, the internal
  edges and the windows each lies in, which rotations fit which cell, the movable cells;
* :class:`State` (``S``): the board and everything kept from it: piece and rotation per cell,
  the colour facing each side of each cell, a match flag per internal edge, matched and
  unmatched sides per cell, a mismatch counter per k x k window, the five objectives, and the
  undo log.

The one primitive that changes the board is :func:`set_cell` (one cell's piece and rotation;
it updates the edges, windows and counts around that cell and logs the old placement);
:func:`rotate`, :func:`swap` and partial optimal placement are made of it, and
:func:`undo_to` puts logged placements back. A change costs a constant: four edges, and for
each edge whose flag flips at most 20 windows (2 of 2x2, 6 of 3x3, 12 of 4x4).

The objectives are exactly those of :func:`emc.score.scores`, the from-scratch reference:
``obj[1]`` matched internal edges (Obj1), ``obj[2]`` complete 2x2 windows (Obj2), ``obj[3]``
perfect pieces (Obj3: four good sides, a frame side being good when it shows the border
colour), ``obj[4]`` and ``obj[5]`` complete 3x3 and 4x4 windows (Obj4, Obj5). A window is
complete when every internal edge inside it is matched. ``obj[0]`` is unused.

The board held is always complete (every cell holds a piece). The kernels do not check their
arguments (they are the inner steps of a search); :class:`~emc.heuristics.core.board_state.BoardState` does, for Python callers.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Iterable

import numpy as np

from ...errors import InputError
from ...model import PieceClass, Puzzle, require_puzzle
from .jit import njit
from .xorshift import below

#: Indices of the objectives in ``State.obj`` (and of their maxima in ``Tables.obj_max``).
OBJ1, OBJ2, OBJ3, OBJ4, OBJ5 = 1, 2, 3, 4, 5
#: Groups of movable cells (``Tables.group_start``): the three piece classes, then the frame
#: (edge and corner cells together, the class partial optimal placement lifts from on the frame).
INNER, EDGE, CORNER, FRAME = int(PieceClass.INNER), int(PieceClass.EDGE), int(PieceClass.CORNER), 3
GROUPS = {"inner": INNER, "edge": EDGE, "corner": CORNER, "frame": FRAME}
#: The window size behind each window objective.
WINDOW_SIZES = {OBJ2: 2, OBJ4: 3, OBJ5: 4}

Tables = namedtuple("Tables", [
    "width", "height",  # board columns and rows
    "colours",  # int32 (pieces, 4 rotations, 4 sides): Puzzle.colours
    "nb",  # int32 (cells, 4): Puzzle.neighbours, the cell across each side, -1 at the frame
    "edge_of",  # int32 (cells, 4): the internal edge on each side (index into Puzzle.edges), -1 at the frame
    "edges", "edge_sides",  # int32 (E, 2): Puzzle.edges and Puzzle.edge_sides
    "n_inside",  # int32 (cells,): internal sides of the cell (2, 3 or 4)
    "frame_mask",  # int32 (cells,): bit s set when side s of the cell faces the frame
    "rot_ok",  # int32 (pieces, 16): bit r set when rotation r of the piece fits a cell of that frame mask
    "ew_start", "ew_win",  # int32: the windows edge e is inside are ew_win[ew_start[e]:ew_start[e + 1]]
    "win_obj",  # int32 (windows,): the objective (OBJ2, OBJ4 or OBJ5) each window counts towards
    "movable",  # uint8 (cells,): 1 when the piece on the cell may move (not a hint honoured, not fixed)
    "group_cells",  # int32: the movable cells, inner ones first, then edge, then corner cells
    "group_start",  # int64 (5,): group g (INNER, EDGE, CORNER) is group_cells[group_start[g]:group_start[g + 1]]
    "group_pos",  # int32 (cells,): the index of each movable cell in group_cells, -1 for fixed cells
    "obj_max",  # int64 (6,): the largest value of each objective on this board size
    "tracked",  # uint8 (6,): 1 for the objectives the state keeps (Obj1 and Obj3 always)
])
Tables.__doc__ = "What a puzzle and a run fix (built by :func:`make_tables`; see the field comments in the source)."

State = namedtuple("State", [
    "piece", "rotation",  # int32 (cells,): the board
    "facing",  # int32 (cells, 4): the colour the neighbour across side s shows towards the cell, -1 at the frame
    "match",  # uint8 (E,): 1 when the internal edge is matched
    "nmatch",  # int32 (cells,): matched internal sides of the cell
    "bad",  # int32 (cells,): sides that are not good (unmatched, or a frame side not showing the border colour)
    "win_bad",  # int32 (windows,): unmatched internal edges inside each window
    "obj",  # int64 (6,): obj[1..5] = Obj1..Obj5 (obj[0] unused)
    "log",  # int32 (capacity, 3): the undo log, one (cell, old piece, old rotation) per set_cell
    "log_n",  # int64 (1,): entries in the log
])
State.__doc__ = "The board and what is kept from it (built by :func:`make_state`; see the field comments)."


# ------------------------------------------------------------------------------ building
def make_tables(puzzle: Puzzle, movable: np.ndarray | None = None,
                objectives: Iterable[int] = (OBJ1, OBJ2, OBJ3, OBJ4, OBJ5)) -> Tables:
    """The :class:`Tables` of ``puzzle``; ``movable`` is a boolean per cell (default: all).

    ``objectives``: those the state keeps. Obj1 and Obj3 cost next to nothing and are always
    kept; each window objective left out (Obj2, Obj4, Obj5) saves the updates of its windows on
    every edge that changes (2, 6 and 12 windows per edge): a search guided by Obj4 and
    observing Obj1 needs only ``(1, 4)``, and its moves then cost about half. An objective not
    kept reads -1 in ``State.obj``."""
    require_puzzle(puzzle, "make_tables")
    wanted = set()
    for k in objectives:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not OBJ1 <= k <= OBJ5:
            raise InputError(f"objective {k!r} is not one of 1..5")
        wanted.add(int(k))
    tracked = np.zeros(6, dtype=np.uint8)
    tracked[[OBJ1, OBJ3, *wanted]] = 1
    W, H, n = puzzle.width, puzzle.height, puzzle.n_cells
    edges = np.ascontiguousarray(puzzle.edges, dtype=np.int32)
    sides = np.ascontiguousarray(puzzle.edge_sides, dtype=np.int32)
    edge_of = np.full((n, 4), -1, dtype=np.int32)
    E = len(edges)
    edge_of[edges[:, 0], sides[:, 0]] = np.arange(E)
    edge_of[edges[:, 1], sides[:, 1]] = np.arange(E)
    frame_mask = (puzzle.frame_sides * (1 << np.arange(4))).sum(axis=1).astype(np.int32)
    # Puzzle.fits compares the sides a piece shows the border colour on with the cell's frame
    # sides, so it depends on the cell only through its frame mask: one cell per mask stands for all.
    fits = puzzle.fits
    rot_ok = np.zeros((puzzle.n_pieces, 16), dtype=np.int32)
    for mask in np.unique(frame_mask):
        cell = int(np.flatnonzero(frame_mask == mask)[0])
        rot_ok[:, mask] = (fits[:, cell, :] * (1 << np.arange(4))).sum(axis=1)

    # Windows: every k x k block of cells for k = 2, 3, 4 that fits the board, and for each
    # internal edge the windows it lies inside (both of its cells in the window).
    nh = H * (W - 1)
    per_edge: list[list[int]] = [[] for _ in range(E)]
    win_obj: list[int] = []
    for obj, k in WINDOW_SIZES.items():
        if not tracked[obj]:
            continue
        for r0 in range(H - k + 1):
            for c0 in range(W - k + 1):
                w = len(win_obj)
                win_obj.append(obj)
                for r in range(r0, r0 + k):
                    for c in range(c0, c0 + k - 1):
                        per_edge[r * (W - 1) + c].append(w)  # horizontal edge (r, c)-(r, c+1)
                for r in range(r0, r0 + k - 1):
                    for c in range(c0, c0 + k):
                        per_edge[nh + r * W + c].append(w)  # vertical edge (r, c)-(r+1, c)
    ew_start = np.zeros(E + 1, dtype=np.int32)
    ew_start[1:] = np.cumsum([len(x) for x in per_edge])
    ew_win = np.array([w for x in per_edge for w in x], dtype=np.int32)

    mov = np.ones(n, dtype=bool) if movable is None else np.asarray(movable, dtype=bool).reshape(-1)
    if mov.size != n:
        raise InputError(f"make_tables: movable has {mov.size} entries, the {puzzle.size} board {n} cells")
    cls = puzzle.cell_class
    groups = [np.flatnonzero((cls == g) & mov) for g in (INNER, EDGE, CORNER)]
    group_cells = np.concatenate(groups).astype(np.int32)
    group_start = np.cumsum([0] + [len(g) for g in groups]).astype(np.int64)
    group_pos = np.full(n, -1, dtype=np.int32)
    group_pos[group_cells] = np.arange(len(group_cells))
    obj_max = np.array([0, E, (W - 1) * (H - 1), n, max(W - 2, 0) * max(H - 2, 0),
                        max(W - 3, 0) * max(H - 3, 0)], dtype=np.int64)
    return Tables(W, H, np.ascontiguousarray(puzzle.colours, dtype=np.int32),
                  np.ascontiguousarray(puzzle.neighbours, dtype=np.int32), edge_of, edges, sides,
                  (puzzle.neighbours >= 0).sum(axis=1).astype(np.int32), frame_mask, rot_ok, ew_start, ew_win,
                  np.array(win_obj, dtype=np.int32), mov.astype(np.uint8), group_cells, group_start, group_pos,
                  obj_max, tracked)


def make_state(T: Tables, piece: np.ndarray, rotation: np.ndarray, log_capacity: int = 0) -> State:
    """A :class:`State` holding the complete board ``piece`` / ``rotation`` (copied), with
    everything computed from scratch (:func:`rebuild`) and an empty undo log of
    ``log_capacity`` entries (default: four per cell)."""
    n = T.nb.shape[0]
    P = T.colours.shape[0]
    arrays = []
    for what, values, top in (("pieces", piece, P), ("rotations", rotation, 4)):
        a = np.asarray(values)
        if a.shape != (n,) or not np.issubdtype(a.dtype, np.integer):
            raise InputError(f"make_state: {what} must be {n} whole numbers, one per cell, not {a.dtype} of shape "
                             f"{a.shape}")
        if a.size and (a.min() < 0 or a.max() >= top):
            raise InputError(f"make_state: {what} must be 0..{top - 1} on every cell (the board is complete), "
                             f"not {int(a.min() if a.min() < 0 else a.max())}")
        arrays.append(a)
    cap = log_capacity or 4 * n + 64
    S = State(np.array(piece, dtype=np.int32), np.array(rotation, dtype=np.int32),
              np.full((n, 4), -1, dtype=np.int32), np.zeros(len(T.edges), dtype=np.uint8),
              np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int32), np.zeros(len(T.win_obj), dtype=np.int32),
              np.zeros(6, dtype=np.int64), np.zeros((cap, 3), dtype=np.int32), np.zeros(1, dtype=np.int64))
    rebuild(T, S)
    return S


# ------------------------------------------------------------------------------ kernels
@njit
def rebuild(T, S):
    """Compute everything ``S`` keeps from its board alone (and empty the undo log): the
    from-scratch counterpart of the incremental updates, used to build a state."""
    n = S.piece.shape[0]
    for c in range(n):
        p = S.piece[c]
        r = S.rotation[c]
        for s in range(4):
            nb = T.nb[c, s]
            if nb >= 0:
                S.facing[nb, (s + 2) & 3] = T.colours[p, r, s]
    for k in range(6):
        S.obj[k] = 0
    for w in range(S.win_bad.shape[0]):
        S.win_bad[w] = 0
    for c in range(n):
        p = S.piece[c]
        r = S.rotation[c]
        m = 0
        bad = 0
        fm = T.frame_mask[c]
        for s in range(4):
            if (fm >> s) & 1:
                if T.colours[p, r, s] != 0:
                    bad += 1
            else:
                col = T.colours[p, r, s]
                if col != 0 and col == S.facing[c, s]:
                    m += 1
                else:
                    bad += 1
        S.nmatch[c] = m
        S.bad[c] = bad
        if bad == 0:
            S.obj[3] += 1
    for e in range(T.edges.shape[0]):
        a = T.edges[e, 0]
        sa = T.edge_sides[e, 0]
        col = T.colours[S.piece[a], S.rotation[a], sa]
        f = 1 if (col != 0 and col == S.facing[a, sa]) else 0
        S.match[e] = f
        S.obj[1] += f
        if f == 0:
            for t in range(T.ew_start[e], T.ew_start[e + 1]):
                S.win_bad[T.ew_win[t]] += 1
    for w in range(T.win_obj.shape[0]):
        if S.win_bad[w] == 0:
            S.obj[T.win_obj[w]] += 1
    for k in range(1, 6):
        if not T.tracked[k]:
            S.obj[k] = -1
    S.log_n[0] = 0


@njit
def place(T, S, c, p, r):
    """Put piece ``p`` turned ``r`` on cell ``c`` and update everything around it, without
    logging (:func:`set_cell` logs; :func:`undo_to` uses this to put placements back)."""
    obj = S.obj
    bad = S.bad
    was_perfect = bad[c] == 0
    fm = T.frame_mask[c]
    if fm != 0:  # frame sides are good when they show the border colour
        op = S.piece[c]
        orr = S.rotation[c]
        for s in range(4):
            if (fm >> s) & 1:
                bad[c] += (1 if T.colours[p, r, s] != 0 else 0) - (1 if T.colours[op, orr, s] != 0 else 0)
    S.piece[c] = p
    S.rotation[c] = r
    for s in range(4):
        e = T.edge_of[c, s]
        if e < 0:
            continue
        n = T.nb[c, s]
        col = T.colours[p, r, s]
        S.facing[n, (s + 2) & 3] = col
        f = 1 if (col != 0 and col == S.facing[c, s]) else 0
        if f == S.match[e]:
            continue
        S.match[e] = f
        step = 2 * f - 1  # +1: the edge became matched
        obj[1] += step
        S.nmatch[c] += step
        S.nmatch[n] += step
        bad[c] -= step
        # c's other sides may still change, so its perfection is settled once at the end;
        # a neighbour shares only this one edge with c, so its perfection is settled here.
        before = bad[n]
        bad[n] = before - step
        if before == 0:
            obj[3] -= 1
        elif before == step:
            obj[3] += 1
        if f == 1:
            for t in range(T.ew_start[e], T.ew_start[e + 1]):
                w = T.ew_win[t]
                S.win_bad[w] -= 1
                if S.win_bad[w] == 0:
                    obj[T.win_obj[w]] += 1
        else:
            for t in range(T.ew_start[e], T.ew_start[e + 1]):
                w = T.ew_win[t]
                if S.win_bad[w] == 0:
                    obj[T.win_obj[w]] -= 1
                S.win_bad[w] += 1
    if bad[c] == 0:
        if not was_perfect:
            obj[3] += 1
    elif was_perfect:
        obj[3] -= 1


@njit
def set_cell(T, S, c, p, r):
    """Put piece ``p`` turned ``r`` on cell ``c`` (the general incremental primitive), logging
    the placement it replaces so that :func:`undo_to` can put it back. The board may hold a
    piece twice in between two calls (a swap does); the counts stay exact for what is on it.

    Raises:
        IndexError: when the undo log is full (call :func:`commit` once a move is kept).
    """
    k = S.log_n[0]
    if k >= S.log.shape[0]:
        raise IndexError("the undo log is full: commit() a kept move before the next")
    S.log[k, 0] = c
    S.log[k, 1] = S.piece[c]
    S.log[k, 2] = S.rotation[c]
    S.log_n[0] = k + 1
    place(T, S, c, p, r)


@njit
def undo_to(T, S, mark):
    """Undo every logged placement after log position ``mark`` (a value of ``S.log_n[0]``
    taken before the moves), newest first: the state is then exactly what it was at ``mark``."""
    k = S.log_n[0]
    while k > mark:
        k -= 1
        place(T, S, S.log[k, 0], S.log[k, 1], S.log[k, 2])
    S.log_n[0] = k


@njit
def commit(S):
    """Forget the undo log (the moves made are kept)."""
    S.log_n[0] = 0


@njit
def rotate(T, S, c, r):
    """Turn the piece on cell ``c`` to rotation ``r`` (logged)."""
    set_cell(T, S, c, S.piece[c], r)


@njit
def swap(T, S, a, b, ra, rb):
    """Swap the pieces of cells ``a`` and ``b``, the one arriving on ``a`` turned ``ra`` and
    the one arriving on ``b`` turned ``rb`` (logged: two entries). With ``a == b``, turn the
    piece on ``a`` to ``ra``."""
    pa = S.piece[a]
    if a == b:
        set_cell(T, S, a, pa, ra)
        return
    set_cell(T, S, a, S.piece[b], ra)
    set_cell(T, S, b, pa, rb)


@njit
def matches_at(T, S, c, p, r, ignore):
    """Internal sides piece ``p`` turned ``r`` would match on cell ``c`` against the pieces
    around it now, not counting the side facing cell ``ignore`` (-1: count every side)."""
    m = 0
    for s in range(4):
        col = T.colours[p, r, s]
        if col != 0 and col == S.facing[c, s] and T.nb[c, s] != ignore:
            m += 1
    return m


@njit
def side_towards(T, a, b):
    """The side of cell ``a`` that touches cell ``b``, -1 when they do not touch."""
    for s in range(4):
        if T.nb[a, s] == b:
            return s
    return -1


@njit
def best_rotation(T, S, c, p, ignore):
    """``(matches, rotation)``: the rotation of piece ``p`` that fits cell ``c`` (frame sides)
    and matches most of its sides there (:func:`matches_at` with ``ignore``), the lowest one
    on ties; ``(-1, -1)`` when no rotation of ``p`` fits ``c``."""
    ok = T.rot_ok[p, T.frame_mask[c]]
    best = -1
    br = -1
    for r in range(4):
        if (ok >> r) & 1:
            m = matches_at(T, S, c, p, r, ignore)
            if m > best:
                best = m
                br = r
    return best, br


@njit
def rotate_delta1(T, S, c, r):
    """Change of Obj1 if the piece on cell ``c`` were turned to ``r`` (nothing changes)."""
    return matches_at(T, S, c, S.piece[c], r, -1) - S.nmatch[c]


@njit
def swap_delta1(T, S, a, b, ra, rb):
    """Change of Obj1 if :func:`swap` ``(a, b, ra, rb)`` were made (nothing changes)."""
    pa = S.piece[a]
    if a == b:
        return matches_at(T, S, a, pa, ra, -1) - S.nmatch[a]
    pb = S.piece[b]
    after = matches_at(T, S, a, pb, ra, b) + matches_at(T, S, b, pa, rb, a)
    before = S.nmatch[a] + S.nmatch[b]
    s = side_towards(T, a, b)
    if s >= 0:  # the edge between them: counted twice in before, not at all in after so far
        before -= S.match[T.edge_of[a, s]]
        col = T.colours[pb, ra, s]
        if col != 0 and col == T.colours[pa, rb, (s + 2) & 3]:
            after += 1
    return after - before


@njit
def swap_best1(T, S, a, b):
    """The best rotations for swapping the pieces of cells ``a`` and ``b`` by Obj1.

    Returns ``(delta, ra, rb)``: the change of Obj1 and the rotations (among those that fit
    the cells) that give the largest one, the lowest rotations on ties; ``ra = rb = -1`` when
    a piece has no rotation fitting its new cell. Cells that do not touch are independent (4 +
    4 placements are tried); touching ones are tried in all 4 x 4 combinations. With ``a ==
    b``: the best rotation of the piece on ``a``."""
    pa = S.piece[a]
    if a == b:
        m, r = best_rotation(T, S, a, pa, -1)
        return m - S.nmatch[a], r, r
    pb = S.piece[b]
    s = side_towards(T, a, b)
    before = S.nmatch[a] + S.nmatch[b]
    if s < 0:
        ma, ra = best_rotation(T, S, a, pb, -1)
        mb, rb = best_rotation(T, S, b, pa, -1)
        if ra < 0 or rb < 0:
            return 0, -1, -1
        return ma + mb - before, ra, rb
    before -= S.match[T.edge_of[a, s]]
    oka = T.rot_ok[pb, T.frame_mask[a]]
    okb = T.rot_ok[pa, T.frame_mask[b]]
    best = -1
    bra = -1
    brb = -1
    for ra in range(4):
        if not (oka >> ra) & 1:
            continue
        ma = matches_at(T, S, a, pb, ra, b)
        col = T.colours[pb, ra, s]
        for rb in range(4):
            if not (okb >> rb) & 1:
                continue
            m = ma + matches_at(T, S, b, pa, rb, a)
            if col != 0 and col == T.colours[pa, rb, (s + 2) & 3]:
                m += 1
            if m > best:
                best = m
                bra = ra
                brb = rb
    if bra < 0:
        return 0, -1, -1
    return best - before, bra, brb


@njit
def swap_delta(T, S, a, b, ra, rb, k):
    """Change of objective ``k`` (OBJ1 .. OBJ5) if :func:`swap` ``(a, b, ra, rb)`` were made:
    made, read and undone (the state ends as it was)."""
    before = S.obj[k]
    mark = S.log_n[0]
    swap(T, S, a, b, ra, rb)
    after = S.obj[k]
    undo_to(T, S, mark)
    return after - before


@njit
def rotate_delta(T, S, c, r, k):
    """Change of objective ``k`` if the piece on ``c`` were turned to ``r`` (made and undone)."""
    before = S.obj[k]
    mark = S.log_n[0]
    set_cell(T, S, c, S.piece[c], r)
    after = S.obj[k]
    undo_to(T, S, mark)
    return after - before


@njit
def group_bounds(T, g):
    """``(lo, hi)``: group ``g`` (INNER, EDGE, CORNER or FRAME) is ``T.group_cells[lo:hi]``."""
    if g == 3:
        return T.group_start[1], T.group_start[3]
    return T.group_start[g], T.group_start[g + 1]


@njit
def random_pair(T, rng, g):
    """Two different movable cells of group ``g`` drawn uniformly from the stream ``rng``
    (:mod:`~emc.heuristics.core.xorshift`); ``(-1, -1)`` when the group has fewer than two."""
    lo, hi = group_bounds(T, g)
    m = hi - lo
    if m < 2:
        return -1, -1
    i = below(rng, m)
    j = below(rng, m - 1)
    if j >= i:  # m - 1 choices besides i, each as likely
        j += 1
    return T.group_cells[lo + i], T.group_cells[lo + j]


@njit
def save_board(S, piece, rotation):
    """Copy the board into ``piece`` and ``rotation`` (a best board kept by a search)."""
    for c in range(S.piece.shape[0]):
        piece[c] = S.piece[c]
        rotation[c] = S.rotation[c]


@njit
def load_board(T, S, piece, rotation):
    """Make ``piece`` / ``rotation`` (a complete board) the state's board, everything kept
    computed afresh (:func:`rebuild`) and the undo log emptied: a search going back to a board
    it saved."""
    for c in range(S.piece.shape[0]):
        S.piece[c] = piece[c]
        S.rotation[c] = rotation[c]
    rebuild(T, S)
