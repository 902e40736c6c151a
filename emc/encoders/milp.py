"""Mixed-integer linear programming (MILP) formulations of a sub-problem, written as LP or MPS.

Implements the model (1)-(14) of Salassa, Vancroonenburg, Wauters, Della Croce and Vanden
Berghe, "MILP and Max-Clique based heuristics for the Eternity II puzzle" (seed 000, section
2.1), its region form (15)-(16) and the no-good cut (17) of their
backtracking heuristic (section 3.2), plus a smaller variant emc uses for solving.

Variants
--------

``compact`` (the default)
    Columns only for the placements of :meth:`Subproblem.placements` (frame-fitting, with
    symmetry breaking; for a feasibility goal also matching the fixed neighbours). Each
    counted edge between two free cells is linked per colour ``l`` that the first cell can
    show there: a continuous ``d >= S_a(l) - S_b(l)``, where ``S_a(l)`` sums the placements
    of cell ``a`` showing ``l`` on that side. With both cells filled by one placement each,
    the ``d`` of an edge add up to 1 exactly when it is unmatched, and their LP relaxation
    is half the L1 distance between the two colour distributions, never weaker than the
    paper's maximum over colours. An edge to a filled fixed cell showing ``m`` gets one
    unmatched indicator ``h >= 1 - S_a(m)``. A feasibility goal replaces all of this by
    ``S_a(l) = S_b(l)`` per free-free edge and colour (fixed neighbours are already
    matched by the placements). ``linking="diff"`` selects the paper's two-sided
    per-colour rows on the smaller colour sets instead (kept for the benchmark).

``paper``
    Model (1)-(14) as printed: a binary for every (piece, cell, rotation) of the allowed
    pieces and free cells, a continuous unmatched indicator ``h``/``v`` in [0, 1] per
    counted edge, (2) one row per piece (``= 1``, or ``<= 1`` when there are more pieces
    than free cells, as (16)), (3) one row per free cell, (4)-(7) two rows per counted
    edge and per non-border colour of the puzzle, and (8)-(11) one row per frame side of
    each free cell. On a whole puzzle without hints the sizes are those of Table 1.
    Three departures, none of which adds a row or a column:

    * an edge to a filled fixed cell showing colour ``m`` is one row ``h + S_a(m) >= 1``:
      with the other side a constant, (4)-(7) reduce to ``S_a(l) <= h`` for ``l != m``
      and ``1 - S_a(m) <= h``, and the first family follows from the second and row (3),
      even in the LP relaxation;
    * symmetry breaking fixes columns to 0 by bounds, as :meth:`Subproblem.placements`
      would leave them out;
    * when the piece set has more border sides than the free cells have frame sides
      (surplus pieces, or pieces from elsewhere), a piece could show the border colour
      inside the board, which (1)-(14) does not forbid and emc's scoring does; those
      columns are fixed to 0 by bounds. On a whole puzzle the count of border sides
      equals the count of frame sides, so (8)-(11) already rule it out and no bound is
      added.

Every variant minimises the number of unmatched counted edges (the objective value is
that number at any optimum); a feasibility goal fixes the paper's ``h``/``v`` to 0. The
``cuts`` option adds one row (17) per given board: the placements it has on the free cells
cannot all be chosen again.

Names are self-describing so that a solution read back from a solver's own output decodes
without the model (:func:`decode_names`): ``x_p12_r3_c4_k1`` is piece 12 on row 3, column
4 turned one quarter clockwise (1-based piece, row and column; rotation 0..3); ``h_r3_c4``
is the edge right of cell (3, 4) and ``v_r3_c4`` the edge below it; ``h_r3_c4_l5`` is the
compact variant's colour-5 term of that edge.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ..errors import EmcError, InputError
from ..io import atomic_write
from ..model import BORDER, RIGHT, SIDES, Board, Goal, Subproblem
from .base import Encoder, Encoding, as_boards

INF = math.inf
LINKINGS = ("flow", "diff")
_X_NAME = re.compile(r"^x_p(\d+)_r(\d+)_c(\d+)_k([0-3])$")


class LinearModel:
    """A MILP in arrays: ``min cost @ x`` s.t. ``row_lower <= A x <= row_upper``, column bounds,
    integrality. ``A`` is stored row-wise (CSR: ``start``, ``index``, ``value``)."""

    def __init__(self) -> None:
        self._names: list[str] = []
        self._lower: list[np.ndarray] = []
        self._upper: list[np.ndarray] = []
        self._int: list[np.ndarray] = []
        self._cost: list[np.ndarray] = []
        self.n_cols = 0
        self.row_names: list[str] = []
        self._row_lo: list[float] = []
        self._row_hi: list[float] = []
        self._idx: list[np.ndarray] = []
        self._val: list[np.ndarray] = []
        self._frozen = False

    # -------------------------------------------------------------- building
    def add_cols(self, names: list[str], lower: float | np.ndarray, upper: float | np.ndarray, integer: bool,
                 cost: float) -> np.ndarray:
        n = len(names)
        first = self.n_cols
        self._names.extend(names)
        self._lower.append(np.broadcast_to(np.asarray(lower, dtype=np.float64), (n,)).copy())
        self._upper.append(np.broadcast_to(np.asarray(upper, dtype=np.float64), (n,)).copy())
        self._int.append(np.full(n, integer, dtype=bool))
        self._cost.append(np.full(n, cost, dtype=np.float64))
        self.n_cols += n
        return np.arange(first, first + n, dtype=np.int64)

    def add_row(self, name: str, index: np.ndarray, value: np.ndarray, lower: float, upper: float) -> None:
        self.row_names.append(name)
        self._idx.append(np.asarray(index, dtype=np.int64))
        self._val.append(np.asarray(value, dtype=np.float64))
        self._row_lo.append(lower)
        self._row_hi.append(upper)

    def freeze(self) -> "LinearModel":
        """Turn the building lists into arrays (idempotent)."""
        if self._frozen:
            return self
        cat = lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.zeros(0, dt)  # noqa: E731
        self.col_names = self._names
        self.col_lower = cat(self._lower, np.float64)
        self.col_upper = cat(self._upper, np.float64)
        self.integer = cat(self._int, bool)
        self.cost = cat(self._cost, np.float64)
        self.row_lower = np.array(self._row_lo, dtype=np.float64)
        self.row_upper = np.array(self._row_hi, dtype=np.float64)
        lengths = np.array([len(i) for i in self._idx], dtype=np.int64)
        self.start = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        self.index = cat(self._idx, np.int64)
        self.value = cat(self._val, np.float64)
        self._frozen = True
        return self

    @property
    def n_rows(self) -> int:
        return len(self.row_names)

    def row(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        s, e = self.start[i], self.start[i + 1]
        return self.index[s:e], self.value[s:e]

    def matrix(self):
        """The constraint matrix as a ``scipy.sparse.csr_matrix``."""
        from scipy.sparse import csr_matrix

        return csr_matrix((self.value, self.index, self.start), shape=(self.n_rows, self.n_cols))


class MilpEncoding(Encoding):
    """A sub-problem compiled into a :class:`LinearModel` (see the module docstring).

    Attributes:
        model: the arrays (columns, rows, bounds, costs).
        x_piece, x_cell, x_rotation: the placement of each of the first ``n_x`` columns.
        linking: how the compact variant links edges (``flow`` or ``diff``; ``paper`` for the paper variant).
    """

    formulation = "milp"

    def __init__(self, sp: Subproblem, variant: str, model: LinearModel, x_piece: np.ndarray, x_cell: np.ndarray,
                 x_rotation: np.ndarray, linking: str):
        self.subproblem = sp
        self.variant = variant
        self.model = model.freeze()
        self.x_piece, self.x_cell, self.x_rotation = x_piece, x_cell, x_rotation
        self.n_x = int(x_piece.size)
        self.linking = linking
        self._pulp = None

    # ------------------------------------------------------------------ sizes
    def sizes(self) -> dict[str, int]:
        m = self.model
        return {
            "variables": m.n_cols,
            "constraints": m.n_rows,
            "binaries": int(m.integer.sum()),
            "nonzeros": int(m.index.size),
        }

    # ----------------------------------------------------------------- answers
    def decode(self, answer: Mapping[str, float] | Sequence[float] | np.ndarray) -> Board:
        """The board from a ``{name: value}`` mapping, or from the column values in model order."""
        if isinstance(answer, Mapping):
            return decode_names(self.subproblem, answer)
        vals = np.asarray(answer, dtype=np.float64)
        if vals.shape != (self.model.n_cols,):
            raise EmcError(f"a MILP answer needs {self.model.n_cols} column values, got shape {vals.shape}")
        on = np.flatnonzero(vals[: self.n_x] > 0.5)
        return _board_from(self.subproblem, self.x_piece[on], self.x_cell[on], self.x_rotation[on])

    def start_values(self, board: Board) -> np.ndarray | None:
        """Column values of ``board`` as a MIP start (``None`` if it shares no free cell).

        The placements ``board`` has on free cells get 1, every other placement 0, and
        each continuous column the smallest value its rows allow (what the minimisation
        would give it). Cells the board leaves empty, or fills with a placement the model
        has no column for, stay 0: the start may then be partial or infeasible, which the
        solvers reject or repair on their own.
        """
        sp = self.subproblem
        vals = np.zeros(self.model.n_cols)
        if (board.width, board.height) != (sp.puzzle.width, sp.puzzle.height):
            return None
        on = board.piece[self.x_cell] == self.x_piece
        on &= (board.rotation[self.x_cell] % 4) == self.x_rotation
        if not on.any():
            return None
        vals[: self.n_x] = on
        m = self.model
        cont = ~m.integer
        if cont.any():
            A = m.matrix()
            activity = A[:, : self.n_x] @ vals[: self.n_x]
            need = m.col_lower.copy()
            A_cont = A[:, np.flatnonzero(cont)].tocoo()
            cols = np.flatnonzero(cont)[A_cont.col]
            rows, coef = A_cont.row, A_cont.data
            # lower <= act + c y <= upper gives y >= (lower - act)/c for c > 0, (upper - act)/c for c < 0.
            lo = np.where(coef > 0, (m.row_lower[rows] - activity[rows]) / coef, (m.row_upper[rows] - activity[rows]) / coef)
            lo = np.where(np.isfinite(lo), lo, -INF)
            np.maximum.at(need, cols, lo)
            vals[cont] = np.clip(need[cont], m.col_lower[cont], m.col_upper[cont])
        return vals

    def unmatched_of(self, board: Board) -> int:
        """Unmatched counted edges of ``board``: what the objective is at its best for it."""
        return self.subproblem.max_score - self.subproblem.score(board)

    # ------------------------------------------------------------------- files
    def to_pulp(self):
        """The model as a ``pulp.LpProblem`` (built once; columns and rows keep their names)."""
        if self._pulp is not None:
            return self._pulp
        import pulp

        m = self.model
        prob = pulp.LpProblem(self.problem_name(), pulp.LpMinimize)
        # PuLP 3.x attaches columns to the problem (add_variable); older ones take loose
        # LpVariables. Either way every column reaches the files, even one in no row.
        attach = getattr(prob, "add_variable", None)
        make = attach if attach is not None else pulp.LpVariable
        cols = []
        for name, lo, hi, is_int in zip(m.col_names, m.col_lower.tolist(), m.col_upper.tolist(), m.integer.tolist()):
            cols.append(make(name, None if lo == -INF else lo, None if hi == INF else hi,
                             pulp.LpInteger if is_int else pulp.LpContinuous))
        if attach is None:
            prob.addVariables(cols)
        nz = np.flatnonzero(m.cost)
        terms = [(cols[j], float(m.cost[j])) for j in nz.tolist()]
        if not terms and cols:
            # Feasibility: "0 x" keeps the objective row without the __dummy column PuLP
            # adds to an empty objective (the files then have exactly the model's columns).
            terms = [(cols[0], 0.0)]
        prob.setObjective(pulp.LpAffineExpression(terms))
        prob.objective.name = "unmatched" if len(nz) else "feasibility"
        for i, name in enumerate(m.row_names):
            idx, val = m.row(i)
            expr = pulp.LpAffineExpression([(cols[j], v) for j, v in zip(idx.tolist(), val.tolist())])
            lo, hi = float(m.row_lower[i]), float(m.row_upper[i])
            if lo == hi:
                con = pulp.LpConstraint(expr, pulp.LpConstraintEQ, name, lo)
            elif lo == -INF:
                con = pulp.LpConstraint(expr, pulp.LpConstraintLE, name, hi)
            elif hi == INF:
                con = pulp.LpConstraint(expr, pulp.LpConstraintGE, name, lo)
            else:  # pragma: no cover - the builders make no ranged rows
                raise EmcError(f"row {name} is ranged; LP/MPS export supports one-sided rows only")
            prob.addConstraint(con, name)
        self._pulp = prob
        return prob

    def problem_name(self) -> str:
        sp = self.subproblem
        base = sp.name or sp.puzzle.name or "puzzle"
        return re.sub(r"[^A-Za-z0-9_]", "_", f"emc_{base}_{self.variant}")

    def write(self, path: str | os.PathLike, fmt: str | None = None, compress: bool | None = None) -> list[Path]:
        """Write the model as CPLEX LP (``fmt="lp"``) or free MPS (``fmt="mps"``).

        The format defaults to the file suffix (``.lp``, ``.mps``, either with ``.gz``).
        PuLP's writers order columns by name and LP rows by name (MPS rows keep the model's
        order), so the bytes depend on the sub-problem only.
        """
        path = Path(path)
        if fmt is None:
            suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
            fmt = suffixes[-1].lstrip(".") if suffixes else "lp"
        if fmt not in ("lp", "mps"):
            raise InputError(f"the MILP formulation writes lp or mps, not {fmt!r}", path)
        prob = self.to_pulp()
        with tempfile.TemporaryDirectory(prefix="emc-milp-") as tmp:
            t = os.path.join(tmp, "model." + fmt)
            if fmt == "lp":
                prob.writeLP(t)
            else:
                prob.writeMPS(t)
            data = Path(t).read_bytes()
        # Comment lines saying what the file is, after PuLP's first line (LP: the model name in
        # a comment; MPS: "*SENSE:...", which PuLP's reader looks for there).
        first, _, rest = data.partition(b"\n")
        mark = "\\ " if fmt == "lp" else "* "
        about = "".join(f"{mark}{line}\n" for line in self.about_lines(fmt)).encode()
        data = first + b"\n" + about + rest
        with atomic_write(path, "wb", compress=compress) as f:
            f.write(data)
        return [path]


# ---------------------------------------------------------------------- decoding
def x_name(piece: int, cell: int, rotation: int, width: int) -> str:
    """The column name of a placement (0-based piece and cell in, 1-based name out)."""
    r, c = divmod(int(cell), width)
    return f"x_p{int(piece) + 1}_r{r + 1}_c{c + 1}_k{int(rotation)}"


def _board_from(sp: Subproblem, piece: np.ndarray, cell: np.ndarray, rotation: np.ndarray) -> Board:
    board = sp.fixed.copy()
    seen: set[int] = set()
    free = sp.free_mask
    for p, c, k in zip(piece.tolist(), cell.tolist(), rotation.tolist()):
        if c in seen:
            raise EmcError(f"the MILP answer places two pieces on {sp.puzzle.cell_label(c)}")
        if not free[c]:
            raise EmcError(f"the MILP answer places a piece on {sp.puzzle.cell_label(c)}, which is not free")
        seen.add(c)
        board.place(c, p, k)
    return board


def decode_names(sp: Subproblem, values: Mapping[str, float]) -> Board:
    """The board of a MILP answer given as ``{column name: value}``, without the model.

    Only ``x_p.._r.._c.._k..`` columns matter, each 0 or 1 (within 1e-4; a fractional value
    is no integer solution, an error); other names are ignored, so the whole solution a solver
    printed can be passed in. A placement column the sub-problem rules out is an error too.
    """
    P = sp.puzzle
    pl = sp.placements()
    known = set(zip(pl.piece.tolist(), pl.cell.tolist(), pl.rotation.tolist()))
    pieces, cells, rots = [], [], []
    for name, v in values.items():
        m = _X_NAME.match(name)
        if m is None:
            continue
        v = float(v)
        if min(abs(v), abs(v - 1)) > 1e-4:  # a binary column; solvers print 0.99999999 and the like
            raise InputError(f"MILP column {name} has the value {v:g}: no integer solution (the relaxation's values?)",
                             about=name)
        if v < 0.5:
            continue
        p, r, c, k = (int(g) for g in m.groups())
        if not (1 <= p <= P.n_pieces and 1 <= r <= P.height and 1 <= c <= P.width):
            raise InputError(f"MILP column {name} is outside the {P.size} puzzle", about=name)
        if (p - 1, (r - 1) * P.width + (c - 1), k) not in known:
            raise InputError(f"MILP column {name} is no variable of this model (a placement it rules out: another "
                             "puzzle's or sub-problem's answer?)", about=name)
        pieces.append(p - 1)
        cells.append((r - 1) * P.width + (c - 1))
        rots.append(k)
    return _board_from(sp, np.array(pieces, dtype=np.int64), np.array(cells, dtype=np.int64), np.array(rots, dtype=np.int64))


# ---------------------------------------------------------------------- building
def _edge_name(P, a: int, sa: int) -> str:
    r, c = P.row_col(a)
    return f"{'h' if sa == RIGHT else 'v'}_r{r + 1}_c{c + 1}"


def _cut_sets(sp: Subproblem, cuts: Iterable[Board]) -> list[list[tuple[int, int, int]]]:
    """The (piece, cell, rotation) placements each cut board has on the free cells."""
    out = []
    P = sp.puzzle
    for i, b in enumerate(as_boards(cuts), start=1):
        if not isinstance(b, Board):
            raise InputError(f"cut {i} is not a board")
        if (b.width, b.height) != (P.width, P.height):
            raise InputError(f"cut board {i} is {b.width}x{b.height}, the puzzle is {P.size}")
        X = [(int(b.piece[c]), int(c), int(b.rotation[c]) % 4) for c in sp.free if b.piece[c] >= 0]
        if not X:
            raise InputError(f"cut board {i} fills none of the free cells")
        out.append(X)
    return out


def _add_cuts(model: LinearModel, sp: Subproblem, cuts, col_of: Mapping[tuple[int, int, int], int]) -> None:
    for i, X in enumerate(_cut_sets(sp, cuts), start=1):
        idx = [col_of.get(t) for t in X]
        if any(j is None for j in idx):
            continue  # the model has no column for one of them: that assignment is out already
        model.add_row(f"cut_{i}", np.array(idx), np.ones(len(idx)), -INF, len(idx) - 1)


def _x_names(P, piece: np.ndarray, cell: np.ndarray, rot: np.ndarray) -> list[str]:
    W = P.width
    r, c = np.divmod(cell, W)
    return [f"x_p{p + 1}_r{rr + 1}_c{cc + 1}_k{k}" for p, rr, cc, k in zip(piece.tolist(), r.tolist(), c.tolist(), rot.tolist())]


def _fixed_colour(sp: Subproblem, cell: int, side: int) -> int:
    return int(sp.puzzle.colours[sp.fixed.piece[cell], sp.fixed.rotation[cell], side])


def build_paper(sp: Subproblem, cuts=()) -> MilpEncoding:
    """Model (1)-(14) of seed 000 on the sub-problem (see the module docstring)."""
    P = sp.puzzle
    pieces, free = sp.pieces, sp.free
    nP, nF = int(pieces.size), int(free.size)
    feas = sp.goal is Goal.FEASIBILITY
    colours = P.colours[pieces]  # (nP, 4 rotations, 4 sides)
    ci, pi, ki = (a.ravel() for a in np.meshgrid(np.arange(nF), np.arange(nP), np.arange(4), indexing="ij"))
    x_piece, x_cell, x_rot = pieces[pi], free[ci], ki.astype(np.int64)
    ub = np.ones(x_piece.size)

    sym = sp.symmetry_cells()
    if sym is not None:
        q, allowed = sym
        ub[(x_piece == q) & ~np.isin(x_cell, allowed)] = 0
        if len(allowed) == 1:
            ub[(x_cell == allowed[0]) & (x_piece != q)] = 0

    frame = P.frame_sides
    shown = colours[pi, ki]  # (n, 4): colour on each side per column
    inner_border = (shown == BORDER) & ~frame[x_cell]
    border_sides = int((P.pieces[pieces] == BORDER).sum())
    if not (sp.exact_cover and border_sides == int(frame[free].sum())):
        ub[inner_border.any(axis=1)] = 0
    model = LinearModel()
    model.add_cols(_x_names(P, x_piece, x_cell, x_rot), 0.0, ub, True, 0.0)

    # Column of (free cell i, piece j, rotation k) is (i * nP + j) * 4 + k; J[s][l] lists
    # the j * 4 + k that show colour l on side s, the same offsets for every cell.
    block = nP * 4
    flat = colours.reshape(block, 4)
    J = [{int(l): np.flatnonzero(flat[:, s] == l) for l in np.unique(flat[:, s])} for s in range(4)]
    empty = np.zeros(0, dtype=np.int64)
    pos = {int(c): i for i, c in enumerate(free.tolist())}

    # (2) and (16): each piece at most / exactly once.
    cols_by_piece = np.arange(nF * block).reshape(nF, nP, 4)
    for j, p in enumerate(pieces.tolist()):
        idx = cols_by_piece[:, j, :].ravel()
        model.add_row(f"piece_p{p + 1}", idx, np.ones(idx.size), 1.0 if sp.exact_cover else -INF, 1.0)
    # (3): each free cell gets one piece.
    for i, c in enumerate(free.tolist()):
        r, cc = P.row_col(c)
        idx = np.arange(i * block, (i + 1) * block)
        model.add_row(f"cell_r{r + 1}_c{cc + 1}", idx, np.ones(idx.size), 1.0, 1.0)

    # (4)-(7): one unmatched indicator per counted edge.
    counted = sp.counted_edges()
    edges, sides = P.edges[counted], P.edge_sides[counted]
    enames = [_edge_name(P, int(a), int(sa)) for (a, _), (sa, _) in zip(edges, sides)]
    hcols = model.add_cols(enames, 0.0, 0.0 if feas else 1.0, False, 1.0)
    L = P.colour_set
    for (a, b), (sa, sb), en, h in zip(edges.tolist(), sides.tolist(), enames, hcols.tolist()):
        if a in pos and b in pos:
            oa, ob = pos[a] * block, pos[b] * block
            for l in L:
                ia, ib = oa + J[sa].get(l, empty), ob + J[sb].get(l, empty)
                idx = np.concatenate([ia, ib, [h]])
                ab = np.concatenate([np.ones(ia.size), -np.ones(ib.size), [-1.0]])
                ba = np.concatenate([-np.ones(ia.size), np.ones(ib.size), [-1.0]])
                model.add_row(f"edge_{en}_l{l}_ab", idx, ab, -INF, 0.0)
                model.add_row(f"edge_{en}_l{l}_ba", idx, ba, -INF, 0.0)
        else:
            f, sf, o, so = (a, sa, b, sb) if a in pos else (b, sb, a, sa)
            m = _fixed_colour(sp, o, so)
            ia = pos[f] * block + (J[sf].get(m, empty) if m != BORDER else empty)
            model.add_row(f"edge_{en}_fixed", np.concatenate([ia, [h]]), np.ones(ia.size + 1), 1.0, INF)

    # (8)-(11): the border colour on every frame side of a free cell.
    for s in (0, 2, 3, 1):  # top, bottom, left, right, the paper's order
        for i, c in enumerate(free.tolist()):
            if frame[c, s]:
                r, cc = P.row_col(c)
                idx = i * block + J[s].get(BORDER, empty)
                model.add_row(f"frame_{SIDES[s]}_r{r + 1}_c{cc + 1}", idx, np.ones(idx.size), 1.0, 1.0)

    col_of = {(p, c, k): j for j, (p, c, k) in enumerate(zip(x_piece.tolist(), x_cell.tolist(), x_rot.tolist()))}
    _add_cuts(model, sp, cuts, col_of)
    return MilpEncoding(sp, "paper", model, x_piece, x_cell, x_rot, "paper")


def build_compact(sp: Subproblem, cuts=(), linking: str = "flow") -> MilpEncoding:
    """The compact variant (see the module docstring)."""
    if linking not in LINKINGS:
        raise InputError(f"unknown MILP linking {linking!r} (choose from: {', '.join(LINKINGS)})")
    P = sp.puzzle
    feas = sp.goal is Goal.FEASIBILITY
    pl = sp.placements(fit_fixed=feas)
    x_piece, x_cell, x_rot = (a.astype(np.int64) for a in (pl.piece, pl.cell, pl.rotation))
    shown = pl.shown(P)
    model = LinearModel()
    model.add_cols(_x_names(P, x_piece, x_cell, x_rot), 0.0, 1.0, True, 0.0)

    # Placements are sorted by cell, then piece: each cell owns one slice of columns.
    lo = np.searchsorted(x_cell, np.arange(P.n_cells), "left")
    hi = np.searchsorted(x_cell, np.arange(P.n_cells), "right")

    order = np.argsort(x_piece, kind="stable")
    plo = np.searchsorted(x_piece[order], sp.pieces, "left")
    phi = np.searchsorted(x_piece[order], sp.pieces, "right")
    for p, a, b in zip(sp.pieces.tolist(), plo.tolist(), phi.tolist()):
        idx = order[a:b]
        if idx.size == 0 and not sp.exact_cover:
            continue
        model.add_row(f"piece_p{p + 1}", idx, np.ones(idx.size), 1.0 if sp.exact_cover else -INF, 1.0)
    for c in sp.free.tolist():
        r, cc = P.row_col(c)
        idx = np.arange(lo[c], hi[c])
        model.add_row(f"cell_r{r + 1}_c{cc + 1}", idx, np.ones(idx.size), 1.0, 1.0)

    def side_groups(cell: int, side: int) -> dict[int, np.ndarray]:
        idx = np.arange(lo[cell], hi[cell])
        col = shown[idx, side]
        return {int(l): idx[col == l] for l in np.unique(col)}

    free = sp.free_mask
    counted = sp.counted_edges()
    empty = np.zeros(0, dtype=np.int64)
    for (a, b), (sa, sb) in zip(P.edges[counted].tolist(), P.edge_sides[counted].tolist()):
        en = _edge_name(P, a, sa)
        if free[a] and free[b]:
            ga, gb = side_groups(a, sa), side_groups(b, sb)
            if feas:
                for l in sorted(set(ga) | set(gb)):
                    ia, ib = ga.get(l, empty), gb.get(l, empty)
                    model.add_row(f"edge_{en}_l{l}", np.concatenate([ia, ib]),
                                  np.concatenate([np.ones(ia.size), -np.ones(ib.size)]), 0.0, 0.0)
            elif linking == "flow":
                ls = sorted(ga)
                dcols = model.add_cols([f"{en}_l{l}" for l in ls], 0.0, 1.0, False, 1.0)
                for l, d in zip(ls, dcols.tolist()):
                    ia, ib = ga[l], gb.get(l, empty)
                    model.add_row(f"edge_{en}_l{l}", np.concatenate([ia, ib, [d]]),
                                  np.concatenate([np.ones(ia.size), -np.ones(ib.size), [-1.0]]), -INF, 0.0)
            else:  # diff: the paper's rows, on the colours either side can show
                (h,) = model.add_cols([en], 0.0, 1.0, False, 1.0).tolist()
                for l in sorted(set(ga) | set(gb)):
                    ia, ib = ga.get(l, empty), gb.get(l, empty)
                    idx = np.concatenate([ia, ib, [h]])
                    ab = np.concatenate([np.ones(ia.size), -np.ones(ib.size), [-1.0]])
                    ba = np.concatenate([-np.ones(ia.size), np.ones(ib.size), [-1.0]])
                    model.add_row(f"edge_{en}_l{l}_ab", idx, ab, -INF, 0.0)
                    model.add_row(f"edge_{en}_l{l}_ba", idx, ba, -INF, 0.0)
        elif not feas:
            f, sf, o, so = (a, sa, b, sb) if free[a] else (b, sb, a, sa)
            m = _fixed_colour(sp, o, so)
            ia = side_groups(f, sf).get(m, empty) if m != BORDER else empty
            (h,) = model.add_cols([en], 0.0, 1.0, False, 1.0).tolist()
            model.add_row(f"edge_{en}_fixed", np.concatenate([ia, [h]]), np.ones(ia.size + 1), 1.0, INF)

    col_of = {(p, c, k): j for j, (p, c, k) in enumerate(zip(x_piece.tolist(), x_cell.tolist(), x_rot.tolist()))}
    _add_cuts(model, sp, cuts, col_of)
    return MilpEncoding(sp, "compact", model, x_piece, x_cell, x_rot, linking)


class MilpEncoder(Encoder):
    """MILP formulations: ``compact`` (default) and ``paper`` (model (1)-(14) of seed 000).

    Options: ``cuts`` (boards whose free-cell placements are excluded, cut (17)) and, for
    the compact variant, ``linking`` (``flow``, the default, or ``diff``).
    """

    name = "milp"
    formats = ("lp", "mps")
    variants = ("compact", "paper")
    options = frozenset({"cuts", "linking"})

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """InputError for option names the MILP encoder does not take."""
        unknown = sorted(set(options) - cls.options)
        if unknown:
            raise InputError(f"unknown MILP option(s): {', '.join(unknown)} (known: {', '.join(sorted(cls.options))})")

    @staticmethod
    def check_linking(variant: str, linking: str | None) -> None:
        """InputError for a ``linking`` the variant cannot take (the paper model has its own)."""
        if variant == "paper":
            if linking not in (None, "paper"):
                raise InputError("the paper variant has its own linking; 'linking' applies to the compact variant")
        elif linking is not None and linking not in LINKINGS:
            raise InputError(f"unknown MILP linking {linking!r} (choose from: {', '.join(LINKINGS)})")

    def encode(self, subproblem: Subproblem, variant: str | None = None, **options: Any) -> MilpEncoding:
        v = self.check_variant(variant)
        self.check_options(options)
        given = {k: x for k, x in options.items() if x is not None}  # named in the file's comment lines
        cuts = options.pop("cuts", None) or ()
        linking = options.pop("linking", None)
        self.check_linking(v, linking)
        enc = build_paper(subproblem, cuts) if v == "paper" else build_compact(subproblem, cuts, linking or "flow")
        enc.given_options = given
        enc.effective_options = {"linking": enc.linking, "cuts": len(as_boards(cuts))}
        return enc


__all__ = ["LINKINGS", "LinearModel", "MilpEncoder", "MilpEncoding", "build_compact", "build_paper", "decode_names", "x_name"]
