"""CP-SAT formulation of a sub-problem (OR-Tools), exported as a ``CpModelProto``.

The model follows the assignment structure of the MILP of Salassa et al. (seed 000, model
(1)-(14)): one Boolean per candidate placement (piece ``t`` on cell ``(r, c)`` in rotation
``alpha``), exactly one placement per free cell, one per piece (at most one when there are
more pieces than free cells). Only the way edges are tied together differs between the
variants; all of them are built from :meth:`Subproblem.placements` (with ``fit_fixed`` for
feasibility, where an edge to a fixed neighbour must match) so frame fitting and symmetry
breaking are those of every other formulation.

Variants (the first is the default; ``bench/cpsat.py`` measures them):

``edgevar``
    One Boolean per (edge, colour) saying which colour the edge carries, exactly one per
    edge, each equal to the placement sums of both cells. It gives the colour-balance
    rows a compact form. The fastest on set2 5x5/6x6 and generated 6x6 puzzles.
``sum`` (feasibility)
    For every counted edge between two free cells and every colour ``k``: the placements of
    one cell that show ``k`` towards the edge and those of the other cell that do are equal
    in number (both sums are 0 or 1 because each cell holds one piece). No extra variables,
    so one model solution is one board: the variant used for counting.
``table``
    The placement Booleans mapped onto one integer per free cell (index of its placement)
    and one integer colour per edge, joined per cell by a table constraint (placement and
    the colours of the sides facing other free cells): the classic CP model.
``clause`` (feasibility)
    ``edgevar`` written as clauses only (a placement implies its edge colours, an edge
    colour needs a supporting placement on both sides), without linear rows.

Optimisation (``Goal.OPTIMISATION``) maximises the matched counted edges: an edge to a filled
fixed cell is matched exactly when a placement showing the fixed neighbour's colour is
chosen (a sum of placement Booleans); an edge between two free cells gets one Boolean per
colour both sides can show, allowed to be true only when both cells show that colour, at
most one per edge (``table``: one Boolean per edge implying equal colour variables). That is
one model for ``edgevar``, ``sum`` and ``clause``, so the last two are refused there.

Options:

``balance`` (feasibility, default on except for ``sum``)
    Each colour occurs a fixed number of times on the pieces, so a perfect fill uses
    exactly half of the remaining occurrences on the edges between free cells.
``pairs`` (feasibility, off)
    Colour-pair counting, the offer/demand reasoning of Benoist and Bourreau (seed 002)
    as linear rows; fewer conflicts but a heavier LP, slower overall in our runs.
``exclusions`` (feasibility, off)
    Binary clauses forbidding colour pairs that no candidate of a cell shows on two of its
    sides (the redundant pair clauses of the SAT encodings); not faster here.
``piece_cells`` (off)
    Rotation-free "piece on cell" Booleans with their own exactly-one rows.
``cell_vars`` (off; implied by ``table``)
    The per-cell placement index variables, for decision strategies on cells.
``hint``
    A board given to CP-SAT as a solution hint (its placements on the free cells).
``cuts``
    Boards whose assignment of the free cells must not be repeated; each adds the no-good
    cut (17) of seed 000 section 3.2 (the placements of that board on the free cells
    cannot all be chosen again), as the backtracking constructive heuristic needs.

Variable names carry the placement, so a solution of the exported file alone can be decoded:
``x_p{piece}_r{row}_c{col}_k{turns}`` with 1-based piece, row and column and the rotation in
clockwise quarter turns (0..3), as everywhere in emc. Auxiliary variables start with other
letters (``y_`` edge colours, ``m_`` matches, ``e_`` / ``v_`` integers, ``q_``, ``w_``).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..io import atomic_write, gzip_name
from ..model import OPPOSITE, Board, Goal, Subproblem
from .base import COUNTS_NOT_FIXED, Encoder, Encoding, as_boards, colour_sides_between_free_cells

NAME_RE = re.compile(r"^x_p(\d+)_r(\d+)_c(\d+)_k(\d+)$")

#: options :meth:`CpSatEncoder.encode` accepts
OPTIONS = ("hint", "cuts", "balance", "piece_cells", "cell_vars", "pairs", "exclusions")
FEASIBILITY_VARIANTS = ("sum", "clause")  # in optimisation these are edgevar's model


def placement_name(piece: int, row: int, col: int, rotation: int) -> str:
    """Name of the placement Boolean (arguments 0-based, name 1-based except the rotation)."""
    return f"x_p{piece + 1}_r{row + 1}_c{col + 1}_k{rotation}"


class CpSatEncoding(Encoding):
    """A built CP-SAT model of a sub-problem.

    Attributes:
        model: the ``ortools.sat.python.cp_model.CpModel``.
        placements: the :class:`~emc.model.Placements` behind the placement Booleans.
        literals: placement Booleans, parallel to ``placements``.
        names: their names, parallel to ``placements``.
        literal_index: proto index of each placement Boolean (``numpy`` array).
        objective_offset: matched counted edges not represented in the objective (0 here,
            kept for callers that add their own terms).
    """

    formulation = "cpsat"

    def __init__(self, sp: Subproblem, variant: str, model, placements, literals, names, balance: bool, n_cuts: int):
        self.subproblem = sp
        self.variant = variant
        self.idle_options: dict[str, str] = {}
        self.model = model
        self.placements = placements
        self.literals = literals
        self.names = names
        self.literal_index = np.array([lit.index for lit in literals], dtype=np.int64)
        self.balance = balance
        self.n_cuts = n_cuts
        self.objective_offset = 0
        self._by_name = {n: i for i, n in enumerate(names)}

    # ------------------------------------------------------------------ interface
    def sizes(self) -> dict[str, int]:
        proto = self.model.proto
        return {"variables": len(proto.variables), "constraints": len(proto.constraints)}

    def write(self, path: str | os.PathLike, fmt: str | None = None, compress: bool | None = None) -> list[Path]:
        """Write the model with OR-Tools' own exporter.

        ``fmt`` ``pbtxt`` (text) or ``pb`` (binary); ``None`` or ``cpsat`` picks binary for
        a ``.pb`` / ``.pb.gz`` suffix and text otherwise. OR-Tools writes a temporary file
        (its choice of text or binary follows the file name) that is then moved into place
        atomically, gzipped when asked.
        """
        path = Path(path)
        if compress is None:
            compress = gzip_name(path)
        stem = path.name[:-3] if gzip_name(path) else path.name
        if fmt in (None, "cpsat"):
            fmt = "pb" if stem.endswith(".pb") else "pbtxt"
        if fmt not in ("pb", "pbtxt"):
            raise InputError(f"unknown CP-SAT export format {fmt!r} (choose pb or pbtxt)")
        with tempfile.TemporaryDirectory(prefix="emc-cpsat-") as tmp:
            out = Path(tmp) / ("model.pbtxt" if fmt == "pbtxt" else "model.pb")
            if not self.model.export_to_file(str(out)):
                raise InputError("OR-Tools could not write the model", path)
            data = out.read_bytes()
        if fmt == "pbtxt":  # what the file is, in comment lines (the binary model has no room for them)
            data = "".join(f"# {line}\n" for line in self.about_lines(fmt)).encode() + data
        with atomic_write(path, "wb", compress=compress) as f:
            f.write(data)
        return [path]

    def decode(self, answer: Any) -> Board:
        """Board from ``{name: value}`` (true when > 0.5), an iterable of true names, or a
        sequence of values indexed like the model's variables (e.g. a CP-SAT solution)."""
        true_names: list[str]
        if isinstance(answer, Mapping):
            true_names = [str(k) for k, v in answer.items() if float(v) > 0.5]
        elif isinstance(answer, np.ndarray) or (
            isinstance(answer, (list, tuple)) and answer and not isinstance(answer[0], str)
        ):
            vals = np.asarray(answer)
            if vals.ndim != 1 or vals.size <= int(self.literal_index.max(initial=-1)):
                raise InputError("CP-SAT answer has fewer values than the model has variables")
            chosen = np.flatnonzero(vals[self.literal_index] > 0.5)
            return self._board_from(chosen)
        else:
            true_names = [str(n) for n in answer]
        chosen = []
        for n in true_names:
            if not n.startswith("x_"):
                continue  # auxiliary variables (edge colours, matches) carry no placement
            i = self._by_name.get(n)
            if i is None:
                raise InputError(f"CP-SAT answer names {n!r}, which is not a placement of this model")
            chosen.append(i)
        return self._board_from(np.asarray(chosen, dtype=np.int64))

    def decode_values(self, values: np.ndarray) -> Board:
        """Board from the full solution vector of the model (fast path for the backend)."""
        return self._board_from(np.flatnonzero(np.asarray(values)[self.literal_index] > 0))

    # ------------------------------------------------------------------ helpers
    def _board_from(self, chosen: np.ndarray) -> Board:
        sp, pl = self.subproblem, self.placements
        board = sp.fixed.copy()
        cells = pl.cell[chosen]
        if len(np.unique(cells)) != len(cells):
            dup = int(cells[np.flatnonzero(np.bincount(cells) > 1)[0]]) if len(cells) else 0
            raise InputError(f"CP-SAT answer puts two pieces on {sp.puzzle.cell_label(dup)}")
        board.piece[cells] = pl.piece[chosen]
        board.rotation[cells] = pl.rotation[chosen]
        return board

    def hint_values(self, board: Board) -> np.ndarray:
        """0/1 per placement Boolean: the placements ``board`` makes on the free cells."""
        pl = self.placements
        return ((board.piece[pl.cell] == pl.piece) & (board.rotation[pl.cell] % 4 == pl.rotation)).astype(np.int8)


class CpSatEncoder(Encoder):
    """Builds :class:`CpSatEncoding` models (see the module docstring for the variants)."""

    name = "cpsat"
    formats = ("cpsat",)
    variants = ("edgevar", "sum", "table", "clause")
    options = frozenset(OPTIONS)
    bool_options = frozenset({"balance", "piece_cells", "cell_vars", "pairs", "exclusions"})

    @staticmethod
    def check_goal_variant(goal: Goal, variant: str | None) -> None:
        """InputError for ``sum`` and ``clause`` in optimisation: they tie edges together
        differently only in feasibility models, so in optimisation they are edgevar's model
        under another name (a benchmark file would claim a model it is not)."""
        if goal is Goal.OPTIMISATION and variant in FEASIBILITY_VARIANTS:
            raise InputError(f"the {variant} variant differs from edgevar in feasibility models only; an optimisation "
                             "model is the same for edgevar, sum and clause: use edgevar (the default) or table")

    def encode(self, subproblem: Subproblem, variant: str | None = None, **options: Any) -> CpSatEncoding:
        """Build the CP-SAT model of ``subproblem``.

        Args:
            subproblem: what to model.
            variant: ``edgevar`` (default), ``sum``, ``table`` or ``clause``.
            hint: a board whose placements on the free cells are given to CP-SAT as a hint.
            cuts: boards whose free-cell assignments are excluded (no-good cut (17)).
            balance: colour-balance rows (feasibility; default on except for ``sum``).
            pairs: colour-pair counting rows (feasibility; default off).
            piece_cells: rotation-free piece-on-cell Booleans (default off).
            cell_vars: per-cell placement index variables (default off).
            exclusions: binary clauses for colour pairs no candidate shows (feasibility; default off).

        Raises:
            InputError: unknown variant or option, or a hint/cut board of the wrong size.
        """
        variant = self.check_variant(variant)
        self.check_goal_variant(subproblem.goal, variant)
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise InputError(f"unknown cpsat encoder option(s) {unknown} (known: {', '.join(OPTIONS)})")
        for key in sorted(self.bool_options):
            if key in options and not isinstance(options[key], (bool, np.bool_)):
                raise InputError(f"cpsat encoder option {key} is true or false, not {options[key]!r}")
        from ortools.sat.python import cp_model

        sp = subproblem
        P = sp.puzzle
        feas = sp.goal is Goal.FEASIBILITY
        # A feasibility answer must match every fixed neighbour, so non-matching placements
        # are dropped up front (what the clique formulation does too).
        pl = sp.placements(fit_fixed=feas)
        model = cp_model.CpModel()
        model.name = f"emc {sp.name or P.name} {variant} {sp.goal.value}"
        rows, cols = np.divmod(pl.cell, P.width)
        names = [placement_name(int(p), int(r), int(c), int(k)) for p, r, c, k in zip(pl.piece, rows, cols, pl.rotation)]
        lits = [model.new_bool_var(nm) for nm in names]

        # Exactly one placement per free cell, one per piece (at most one with spare pieces).
        cell_start = np.searchsorted(pl.cell, sp.free)
        cell_end = np.searchsorted(pl.cell, sp.free, side="right")
        for c, a, b in zip(sp.free, cell_start, cell_end):
            model.add_exactly_one(lits[a:b])
        by_piece = np.argsort(pl.piece, kind="stable")
        pstart = np.searchsorted(pl.piece[by_piece], sp.pieces)
        pend = np.searchsorted(pl.piece[by_piece], sp.pieces, side="right")
        for p, a, b in zip(sp.pieces, pstart, pend):
            group = [lits[i] for i in by_piece[a:b]]
            if sp.exact_cover:
                model.add_exactly_one(group)
            elif group:
                model.add_at_most_one(group)
        if options.get("piece_cells"):
            self._piece_cells(model, sp, pl, lits, sp.exact_cover)

        shown = pl.shown(P)  # (n, 4)
        cell_range = {int(c): (int(a), int(b)) for c, a, b in zip(sp.free, cell_start, cell_end)}

        def side_groups(cell: int, side: int) -> dict[int, list[int]]:
            """Placement indices of ``cell`` grouped by the colour they show on ``side``."""
            a, b = cell_range[cell]
            out: dict[int, list[int]] = {}
            for i, col in zip(range(a, b), shown[a:b, side]):
                out.setdefault(int(col), []).append(i)
            return out

        free_mask = sp.free_mask
        counted = sp.counted_edges()
        edges = P.edges[counted]
        esides = P.edge_sides[counted]
        fixed_shown = sp.fixed.shown(P)
        inner_edges = []  # (edge position, cell a, side a, cell b, side b), both cells free
        objective: list = []
        for (a, b), (sa, sb) in zip(edges, esides):
            a, b, sa, sb = int(a), int(b), int(sa), int(sb)
            if free_mask[a] and free_mask[b]:
                inner_edges.append((a, sa, b, sb))
            elif not feas:
                # One side is a filled fixed cell: matched iff the free side shows its colour.
                f, s, o = (a, sa, b) if free_mask[a] else (b, sb, a)
                want = int(fixed_shown[o, OPPOSITE[s]])
                objective += [lits[i] for i in side_groups(f, s).get(want, [])]

        def lin(idx: list[int]):
            return sum(lits[i] for i in idx) if idx else 0

        def rc(cell: int) -> str:
            r, c = divmod(cell, P.width)
            return f"r{r + 1}_c{c + 1}"

        edge_colour_vars: dict[tuple[int, int], Any] = {}
        cell_var: dict[int, Any] = {}
        if variant == "table" or options.get("cell_vars"):
            # Index of the chosen placement among the cell's candidates (0-based).
            for c, (a, b) in cell_range.items():
                v = model.new_int_var(0, max(b - a - 1, 0), f"v_{rc(c)}")
                model.add_map_domain(v, lits[a:b], 0)
                cell_var[c] = v
        if variant == "table":
            self._table_links(model, sp, lits, shown, cell_range, cell_var, inner_edges, feas, objective, rc, side_groups,
                              edge_colour_vars, bool(options.get("balance", True)) or bool(options.get("pairs")))
        else:
            for a, sa, b, sb in inner_edges:
                ga, gb = side_groups(a, sa), side_groups(b, sb)
                colours = sorted(set(ga) | set(gb))
                if feas:
                    ys = []
                    for k in colours:
                        ia, ib = ga.get(k, []), gb.get(k, [])
                        if not ia or not ib:
                            for i in ia + ib:  # a colour only one side can show never matches
                                model.add(lits[i] == 0)
                            continue
                        if variant in ("edgevar", "clause"):
                            y = model.new_bool_var(f"y_{rc(a)}_{rc(b)}_col{k}")
                            edge_colour_vars[(a * P.n_cells + b, k)] = y
                            ys.append(y)
                        if variant == "edgevar":
                            model.add(lin(ia) == y)
                            model.add(lin(ib) == y)
                        elif variant == "clause":
                            # Pure clauses: a placement fixes the edge colour, an edge colour
                            # needs a supporting placement on both sides.
                            for i in ia + ib:
                                model.add_implication(lits[i], y)
                            model.add_bool_or([lits[i] for i in ia]).only_enforce_if(y)
                            model.add_bool_or([lits[i] for i in ib]).only_enforce_if(y)
                        else:
                            model.add(lin(ia) == lin(ib))
                    if variant in ("edgevar", "clause"):
                        model.add_exactly_one(ys)
                else:
                    ms = []
                    for k in colours:
                        ia, ib = ga.get(k, []), gb.get(k, [])
                        if ia and ib:
                            m = model.new_bool_var(f"m_{rc(a)}_{rc(b)}_col{k}")
                            model.add_bool_or([lits[i] for i in ia]).only_enforce_if(m)
                            model.add_bool_or([lits[i] for i in ib]).only_enforce_if(m)
                            ms.append(m)
                    if len(ms) > 1:
                        model.add_at_most_one(ms)  # an edge shows one colour: keeps the bound tight
                    objective += ms

        # On by default where edge-colour Booleans keep the rows short; over raw placement
        # sums (``sum``) the rows are long and slow the LP down.
        balance = bool(options.get("balance", variant != "sum")) and feas
        if balance:
            balance = self._add_balance(model, sp, pl, lits, shown, inner_edges, side_groups, edge_colour_vars, variant, P)
        if options.get("exclusions", False) and edge_colour_vars:
            self._add_exclusions(model, sp, shown, cell_range, inner_edges, edge_colour_vars)
        if options.get("pairs") and feas and sp.exact_cover:
            self._add_pairs(model, sp, pl, lits, shown, cell_range, inner_edges, edge_colour_vars, rc)

        if not feas:
            model.maximize(sum(objective) if objective else 0)

        cuts = as_boards(options.get("cuts"))
        n_cuts = 0
        for board in cuts:
            if not isinstance(board, Board) or (board.width, board.height) != (P.width, P.height):
                raise InputError(f"a cut must be a board of the puzzle's size, {P.size}")
            chosen = _board_placements(pl, board, sp.free)
            if chosen is None:
                continue  # the board uses a placement this model cannot make: already excluded
            model.add_bool_or([lits[i].Not() for i in chosen])
            n_cuts += 1

        enc = CpSatEncoding(sp, variant, model, pl, lits, names, balance, n_cuts)
        enc.given_options = {k: x for k, x in options.items() if x is not None}  # named in the pbtxt's comments
        enc.cell_vars = [cell_var[int(c)] for c in sp.free] if cell_var else []
        # options asked for that this model has no use for (`emc export` refuses them, suites list them)
        if not feas:
            for key in ("balance", "pairs", "exclusions"):
                if options.get(key):
                    enc.idle_options[key] = "feasibility models only"
        else:
            if options.get("balance") and not balance:
                enc.idle_options["balance"] = COUNTS_NOT_FIXED
            if options.get("pairs") and not sp.exact_cover:
                enc.idle_options["pairs"] = "as many pieces as free cells only"
            if options.get("exclusions") and not edge_colour_vars:
                enc.idle_options["exclusions"] = "edgevar, clause and table variants only"
        enc.effective_options = {  # what the model holds, defaults included (the suite manifest lists it)
            "balance": bool(balance), "pairs": bool(options.get("pairs") and feas and sp.exact_cover),
            "exclusions": bool(options.get("exclusions") and edge_colour_vars and feas),
            "piece_cells": bool(options.get("piece_cells")), "cell_vars": bool(cell_var),
            "hint": options.get("hint") is not None, "cuts": n_cuts}
        hint = options.get("hint")
        if hint is not None:
            if not isinstance(hint, Board) or (hint.width, hint.height) != (P.width, P.height):
                raise InputError(f"the hint must be a board of the puzzle's size, {P.size}")
            for lit, v in zip(lits, enc.hint_values(hint)):
                model.add_hint(lit, bool(v))
        return enc

    # ------------------------------------------------------------------ pieces of the model
    @staticmethod
    def _piece_cells(model, sp, pl, lits, exact: bool) -> None:
        """Rotation-free Booleans "piece t on cell c" (sum of its rotations), with their own
        exactly-one rows per cell and per piece: shorter literals for clause learning."""
        P = sp.puzzle
        key = pl.cell.astype(np.int64) * P.n_pieces + pl.piece
        uniq, start = np.unique(key, return_index=True)
        ends = list(start[1:]) + [len(key)]
        by_cell: dict[int, list] = {}
        by_piece: dict[int, list] = {}
        for k, a, b in zip(uniq, start, ends):
            c, t = divmod(int(k), P.n_pieces)
            if b - a == 1:
                q = lits[a]
            else:
                r, cc = divmod(c, P.width)
                q = model.new_bool_var(f"q_p{t + 1}_r{r + 1}_c{cc + 1}")
                model.add(sum(lits[a:b]) == q)
            by_cell.setdefault(c, []).append(q)
            by_piece.setdefault(t, []).append(q)
        for c in sorted(by_cell):
            model.add_exactly_one(by_cell[c])
        for t in sorted(by_piece):
            (model.add_exactly_one if exact else model.add_at_most_one)(by_piece[t])

    @staticmethod
    def _add_exclusions(model, sp, shown, cell_range, inner_edges, edge_colour_vars) -> None:
        """Binary clauses "not colour k1 on this side and k2 on that side" for every two sides
        of a free cell and every colour pair that none of the cell's candidates shows there
        (the redundant pair clauses of the SAT encodings of Heule and of Ansotegui et al.)."""
        P = sp.puzzle
        side_y: dict[tuple[int, int], dict[int, Any]] = {}
        for a, sa, b, sb in inner_edges:
            key = a * P.n_cells + b
            ys = {k: y for (e, k), y in edge_colour_vars.items() if e == key}
            side_y[(a, sa)] = side_y[(b, sb)] = ys
        for c, (a, b) in cell_range.items():
            sides = [s for s in range(4) if (c, s) in side_y]
            for i, s1 in enumerate(sides):
                for s2 in sides[i + 1:]:
                    seen = set(zip(shown[a:b, s1].tolist(), shown[a:b, s2].tolist()))
                    y1s, y2s = side_y[(c, s1)], side_y[(c, s2)]
                    for k1 in sorted(y1s):
                        for k2 in sorted(y2s):
                            if (k1, k2) not in seen:
                                model.add_bool_or([y1s[k1].Not(), y2s[k2].Not()])

    @staticmethod
    def _add_pairs(model, sp, pl, lits, shown, cell_range, inner_edges, edge_colour_vars, rc) -> None:
        """Colour-pair counting (the ColorPair offer/demand reasoning of Benoist and
        Bourreau, seed 002, as linear rows).

        Every piece has four corners, each an ordered pair of colours read clockwise. A
        corner position (a free cell and two consecutive sides, neither facing the frame)
        receives exactly one piece corner, so each non-border pair appears on the board as
        often as on the pieces. A Boolean per (position, pair) equals the sum of the
        placements showing that pair there; when both edges of the position already carry
        the pair's colours it must be true, and the count per pair is fixed.
        """
        P = sp.puzzle
        frame = P.frame_sides
        side_y: dict[tuple[int, int], dict[int, Any]] = {}
        for a, sa, b, sb in inner_edges:
            key = a * P.n_cells + b
            for (cell, side) in ((a, sa), (b, sb)):
                side_y[(cell, side)] = {k: y for (e, k), y in edge_colour_vars.items() if e == key}
        offer: dict[tuple[int, int], int] = {}
        for t in sp.pieces:
            col = P.pieces[t]
            for j in range(4):
                k1, k2 = int(col[j]), int(col[(j + 1) % 4])
                if k1 and k2:
                    offer[(k1, k2)] = offer.get((k1, k2), 0) + 1
        terms: dict[tuple[int, int], list] = {}
        for c, (a, b) in cell_range.items():
            for j in range(4):
                j2 = (j + 1) % 4
                if frame[c, j] or frame[c, j2]:
                    continue
                groups: dict[tuple[int, int], list[int]] = {}
                for i in range(a, b):
                    groups.setdefault((int(shown[i, j]), int(shown[i, j2])), []).append(i)
                y1s, y2s = side_y.get((c, j), {}), side_y.get((c, j2), {})
                for (k1, k2), idx in sorted(groups.items()):
                    w = model.new_bool_var(f"w_{rc(c)}_s{j}_col{k1}_{k2}")
                    model.add(sum(lits[i] for i in idx) == w)
                    y1, y2 = y1s.get(k1), y2s.get(k2)
                    if y1 is not None and y2 is not None:
                        model.add_bool_or([w, y1.Not(), y2.Not()])
                    terms.setdefault((k1, k2), []).append(w)
        for pair in sorted(terms):
            model.add(sum(terms[pair]) == offer.get(pair, 0))

    @staticmethod
    def _add_balance(model, sp, pl, lits, shown, inner_edges, side_groups, edge_colour_vars, variant, P) -> bool:
        """Colour balance: each colour's occurrences on the placed pieces, minus those facing
        fixed neighbours, are used in pairs on the edges between free cells."""
        need = colour_sides_between_free_cells(sp)
        if need is None:
            return False  # spare pieces, or a side facing an empty fixed cell: nothing to count on
        terms: dict[int, list] = {}
        for a, sa, b, sb in inner_edges:
            ga = side_groups(a, sa)
            for k, idx in ga.items():
                if variant in ("edgevar", "clause", "table"):
                    y = edge_colour_vars.get((a * P.n_cells + b, k))
                    if y is not None:
                        terms.setdefault(k, []).append(y)
                else:
                    terms.setdefault(k, []).extend(lits[i] for i in idx)
        for k in range(1, len(need)):
            if need[k] < 0 or need[k] % 2:
                model.add_bool_or([])  # the colours cannot pair up: no complete matching
                continue
            if need[k] == 0 and k not in terms:
                continue
            model.add(sum(terms.get(k, [])) == int(need[k] // 2))
        return True

    @staticmethod
    def _table_links(model, sp, lits, shown, cell_range, cell_var, inner_edges, feas, objective, rc, side_groups,
                     edge_colour_vars, colour_booleans) -> None:
        """The ``table`` variant: per free cell, an integer placement index and a table over
        (index, colours of the sides that face other free cells)."""
        from ortools.sat.python import cp_model

        P = sp.puzzle
        # Colour variables: one per side of an inner edge (shared in feasibility).
        side_var: dict[tuple[int, int], Any] = {}
        for a, sa, b, sb in inner_edges:
            ca, cb = sorted(side_groups(a, sa)), sorted(side_groups(b, sb))
            if feas:
                # No common colour leaves the value 0, which no table row has: infeasible.
                dom = sorted(set(ca) & set(cb)) or [0]
                e = model.new_int_var_from_domain(cp_model.Domain.from_values(dom), f"e_{rc(a)}_{rc(b)}")
                side_var[(a, sa)] = side_var[(b, sb)] = e
                if colour_booleans and dom[0] > 0:
                    # One Boolean per colour value, for the colour-balance rows.
                    ys = [model.new_bool_var(f"y_{rc(a)}_{rc(b)}_col{k}") for k in range(dom[0], dom[-1] + 1)]
                    model.add_map_domain(e, ys, dom[0])
                    for k, y in zip(range(dom[0], dom[-1] + 1), ys):
                        if k in dom:
                            edge_colour_vars[(a * P.n_cells + b, k)] = y
            else:
                ea = model.new_int_var_from_domain(cp_model.Domain.from_values(ca or [0]), f"e_{rc(a)}_s{sa}")
                eb = model.new_int_var_from_domain(cp_model.Domain.from_values(cb or [0]), f"e_{rc(b)}_s{sb}")
                side_var[(a, sa)], side_var[(b, sb)] = ea, eb
                m = model.new_bool_var(f"m_{rc(a)}_{rc(b)}")
                model.add(ea == eb).only_enforce_if(m)
                objective.append(m)
        for c, (a, b) in cell_range.items():
            sides = [s for s in range(4) if (c, s) in side_var]
            if not sides:
                continue
            rows = [[i - a] + [int(shown[i, s]) for s in sides] for i in range(a, b)]
            model.add_allowed_assignments([cell_var[c]] + [side_var[(c, s)] for s in sides], rows)


def _board_placements(pl, board: Board, free: np.ndarray) -> list[int] | None:
    """Indices of the placements ``board`` makes on ``free``; ``None`` if one is not a candidate."""
    out = []
    for c in free:
        p, k = int(board.piece[c]), int(board.rotation[c]) % 4
        a, b = np.searchsorted(pl.cell, c), np.searchsorted(pl.cell, c, side="right")
        hit = np.flatnonzero((pl.piece[a:b] == p) & (pl.rotation[a:b] == k))
        if p < 0 or not hit.size:
            return None
        out.append(int(a + hit[0]))
    return out


def parse_placement_name(name: str) -> tuple[int, int, int, int] | None:
    """``(piece, row, col, rotation)`` 0-based (rotation 0..3) from a placement name."""
    m = NAME_RE.match(name)
    if not m:
        return None
    p, r, c, k = (int(g) for g in m.groups())
    return p - 1, r - 1, c - 1, k


def true_names(names: Iterable[str], values: Iterable[float]) -> list[str]:
    """Names whose value is true (helper for callers holding parallel lists)."""
    return [n for n, v in zip(names, values) if v > 0.5]
