"""CNF (SAT) and WCNF (MaxSAT) formulations of an edge-matching sub-problem.

The SAT view of edge matching follows Heule, "Solving edge-matching problems with
satisfiability solvers" (SAT 2008 workshop on SAT-based puzzle solving), and Ansotegui,
Bejar, Fernandez and Mateu, "Edge matching puzzles as hard SAT/CSP benchmarks" (CP 2008):
Boolean placement variables, one-hot colour variables on the internal edges, linking
clauses from placements to colours, support clauses from colours back to placements, and
optional redundant "no candidate shows these colours together" clauses. The sub-problem
and its objective (matched counted edges) are those of Salassa et al. (seed 000); the
MaxSAT version has one soft clause per counted edge, so its cost is the number of
unmatched counted edges.

CNF (feasibility; an optimisation sub-problem is encoded as "every counted edge matched"):

* exactly one placement per free cell, exactly one per piece (at most one when there are
  more pieces than cells), over the ``z`` piece-on-cell variables when ``piece_cell`` is on
  (default) and over the placements otherwise; cardinality constraints by
  :class:`pysat.card.CardEnc` with the encoding named by ``card``;
* link: a placement implies the colour of every counted edge it touches; an edge to a
  filled fixed cell has a constant colour, so placements showing another colour are
  dropped (``prune``, with arc consistency to a fixpoint) or forbidden by a unit clause;
* support: a colour on an edge implies one of the placements showing it, on each side;
* redundant (default ``pairs``): colour pairs no candidate shows together on two sides of
  a cell (``triples`` adds triples); optional ``colour_counts`` (how many edges carry each
  colour is fixed by the pieces) and ``edge_amo``;
* optional clause families measured for issue 52 (``bench/cnf_variants.py``, docs/cnf.md),
  off by default because they made Kissat and CaDiCaL slower on set 2's 7x7: ``forbid``
  (forbidden colours: a piece on a cell, or a placement, excludes the colours it does not
  show on each edge), ``piece_support`` (a piece on a cell shows one of its colours on each
  side) and ``twins`` (symmetry breaking among pieces equal up to rotation, which keeps one
  board of each set that differs by swapping them).

WCNF: the same hard placement constraints, ``e`` variables meaning "this edge is matched in
this colour" with support clauses on both sides, and one soft clause (weight 1) per
counted edge, in the puzzle's edge order. New (2022 MaxSAT evaluation, ``h`` lines) format
by default, ``wcnf-old`` for the ``p wcnf`` header format.

Variables (numbered through :class:`pysat.formula.IDPool`, in this order):

* ``x``: one per candidate placement (piece, cell, rotation) of
  :meth:`~emc.model.Subproblem.placements` that survives pruning -- frame fitting and
  symmetry breaking are therefore the same as in every other formulation -- numbered
  cell by cell along ``order`` (row-major by default);
* ``z``: piece on cell, for pairs with several rotations (``piece_cell``);
* ``e``: one per (edge between two free cells, colour) (``log`` variant: ``b``, the bits of
  the colour's index in the edge's domain);
* cardinality auxiliaries (``aux``), and in the WCNF one ``never`` variable fixed false that
  stands for edges that no pair of candidates can match.

The file starts with comment lines: what produced it, the puzzle (name, size, sha256), the
sub-problem, the options, the sizes, then the variable map, then the header and clauses::

    c x 17 piece 5 row 1 col 2 rot 3
    c z 402 piece 5 row 1 col 2
    c e 300 edge r1c2-r1c3 colour 4
    c b 300 edge r1c2-r1c3 bit 0 of colours 3,4,7
    c aux 1201-3400
    c never 3401

Piece, row and column are 1-based; rotation is 0..3 quarter turns clockwise. A model's
true ``x`` variables are the board (:meth:`SatEncoding.decode`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from ..errors import InputError, SolverUnavailableError
from ..model import Board, Goal, Subproblem
from .base import COUNTS_NOT_FIXED, Encoder, Encoding, colour_sides_between_free_cells, whole_number_list

#: PySAT cardinality encodings accepted by the ``card`` option (pysat.card.EncType names).
CARD_ENCODINGS = ("pairwise", "seqcounter", "sortnetwrk", "cardnetwrk", "bitwise", "ladder",
                  "totalizer", "mtotalizer", "kmtotalizer")
REDUNDANT = ("none", "pairs", "triples")
#: Forbidden-colour clause sets of the ``forbid`` option (see :meth:`SatEncoding._build_forbid`).
FORBID = ("none", "piece", "placement", "both")
NUMBERINGS = ("ascending", "descending")
DEFAULT_CARD = "seqcounter"
DEFAULT_REDUNDANT = "pairs"
DEFAULT_FORBID = "none"
DEFAULT_PIECE_SUPPORT = False

_CNF_OPTIONS = {"card", "order", "tiebreak", "numbering", "cell_amo", "piece_cell", "edge_amo", "support", "redundant",
                "colour_counts", "prune", "forbid", "piece_support", "twins"}
_WCNF_OPTIONS = {"card", "order", "tiebreak", "numbering", "cell_amo", "piece_cell", "redundant", "forbid"}


def _card(encode, **kw):
    """A PySAT cardinality encoding; a Ctrl-C that lands inside its C code comes out as a
    ``pycard.error`` ("Caught keyboard interrupt"), given back here as the KeyboardInterrupt it is."""
    try:
        return encode(**kw)
    except Exception as exc:
        if "keyboard interrupt" in str(exc).lower():
            raise KeyboardInterrupt from None
        raise


def _need_pysat():
    try:
        import pysat.card  # noqa: F401
        import pysat.formula  # noqa: F401
    except ImportError:
        raise SolverUnavailableError("the CNF/WCNF formulations need PySAT: pip install 'emc[sat]'") from None


# ----------------------------------------------------------------------------- clause blocks
class _Clauses:
    """Clauses kept as fixed-width numpy blocks (fast to write) plus ragged lists."""

    def __init__(self):
        self.blocks: list[tuple[str, np.ndarray]] = []  # (section, (n, k) literals)

    def add_array(self, section: str, arr: np.ndarray) -> None:
        if arr.size:
            self.blocks.append((section, np.ascontiguousarray(arr, dtype=np.int64)))

    def add_lists(self, section: str, lists: list[list[int]]) -> None:
        """Ragged clauses, stored as one numpy block per clause length (first-seen order)."""
        if not lists:
            return
        by_len: dict[int, list[list[int]]] = {}
        for c in lists:
            by_len.setdefault(len(c), []).append(c)
        for L, cs in by_len.items():
            self.blocks.append((section, np.array(cs, dtype=np.int64).reshape(len(cs), L)))

    def __len__(self) -> int:
        return sum(len(b) for _, b in self.blocks)

    def drop_repeats(self) -> int:
        """Remove clauses equal (as literal sets) to an earlier one, keeping the first, in place;
        the number removed. Two builders can state one clause (the pinned corner's unit clause
        for its cell and for its piece; a log CNF's support clause and a cell's
        at-least-one), which a solver never needs twice."""
        removed = 0
        widths: dict[int, list[int]] = {}
        for i, (_, b) in enumerate(self.blocks):
            widths.setdefault(b.shape[1], []).append(i)
        for k, idx in widths.items():
            if k == 0:
                continue
            rows = np.concatenate([self.blocks[i][1] for i in idx]) if len(idx) > 1 else self.blocks[idx[0]][1]
            key = np.sort(rows, axis=1) if k > 1 else rows
            # a hash per clause finds the few candidates fast; they are then compared exactly
            mult = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93],
                            dtype=np.uint64)
            h = np.zeros(len(rows), dtype=np.uint64)
            for j in range(k):
                h = (h ^ key[:, j].astype(np.uint64)) * mult[j % 4]
            _, inv, counts = np.unique(h, return_inverse=True, return_counts=True)
            cand = np.flatnonzero(counts[inv] > 1)
            if not cand.size:
                continue
            _, first = np.unique(key[cand], axis=0, return_index=True)
            keep = np.ones(len(rows), dtype=bool)
            keep[cand] = False
            keep[cand[first]] = True  # np.unique's first index of each clause: the earliest of them
            if keep.all():
                continue
            removed += int((~keep).sum())
            at = 0
            for i in idx:
                name, b = self.blocks[i]
                self.blocks[i] = (name, b[keep[at:at + len(b)]])
                at += len(b)
        self.blocks = [(name, b) for name, b in self.blocks if len(b) or b.shape[1] == 0]
        return removed

    def sections(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for name, b in self.blocks:
            out[name] = out.get(name, 0) + len(b)
        return out

    def to_lists(self) -> list[list[int]]:
        out: list[list[int]] = []
        for _, b in self.blocks:
            out.extend(b.tolist())
        return out

    def text(self, prefix: str = "") -> Iterable[str]:
        for _, b in self.blocks:
            n, k = b.shape
            if k == 0:
                yield (prefix + "0\n") * n
                continue
            line = prefix + " ".join(["%d"] * k) + " 0\n"
            # Chunked so that a huge block never builds one giant tuple.
            step = max(1, 200_000 // k)
            for i in range(0, n, step):
                part = b[i:i + step]
                yield (line * len(part)) % tuple(part.ravel().tolist())


ORDERS = ("rowmajor", "colmajor", "diagonal", "reverse", "spiral", "inside-out")


def cell_rank(puzzle, order: str) -> np.ndarray:
    """Position of each cell in a visiting order of the board (``ORDERS``)."""
    W, H = puzzle.width, puzzle.height
    r, c = np.divmod(np.arange(W * H), W)
    if order == "rowmajor":
        key = np.arange(W * H)
    elif order == "colmajor":
        key = c * H + r
    elif order == "diagonal":
        key = (r + c) * (W * H) + r
    elif order == "reverse":
        key = W * H - 1 - np.arange(W * H)
    elif order in ("spiral", "inside-out"):
        # Ring number (0 = the frame), then clockwise position on the ring from its top-left.
        ring = np.minimum(np.minimum(r, c), np.minimum(H - 1 - r, W - 1 - c))
        top, left = ring, ring
        bottom, right = H - 1 - ring, W - 1 - ring
        pos = np.where(r == top, c - left,
              np.where(c == right, (right - left) + (r - top),
              np.where(r == bottom, (right - left) + (bottom - top) + (right - c),
                       2 * (right - left) + (bottom - top) + (bottom - r))))
        key = ring * (W * H) + pos
        if order == "inside-out":
            key = -ring * (W * H) + pos
    else:
        from ..errors import UnknownNameError

        raise UnknownNameError("variable order", order, ORDERS)
    rank = np.empty(W * H, dtype=np.int64)
    rank[np.argsort(key, kind="stable")] = np.arange(W * H)
    return rank


def _alloc(pool, n: int) -> np.ndarray:
    """``n`` consecutive fresh variables from an IDPool (what ``n`` calls of ``pool.id()``
    without an object would give, in one step)."""
    start = pool.top + 1
    pool.top += int(n)
    return np.arange(start, start + int(n), dtype=np.int64)


def _group(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Unique rows of ``keys`` (sorted) and, for each, the ``values`` that have it (in order)."""
    if len(keys) == 0:
        return keys.reshape(0, keys.shape[1] if keys.ndim == 2 else 1), []
    order = np.lexsort(keys.T[::-1]) if keys.ndim == 2 else np.argsort(keys, kind="stable")
    k, v = keys[order], values[order]
    if k.ndim == 1:
        change = np.flatnonzero(k[1:] != k[:-1]) + 1
    else:
        change = np.flatnonzero((k[1:] != k[:-1]).any(axis=1)) + 1
    starts = np.concatenate([[0], change])
    return k[starts], np.split(v, change)


# ----------------------------------------------------------------------------- structure
class _Structure:
    """Placements, counted edges and how each placement side relates to them."""

    def __init__(self, sp: Subproblem):
        P = sp.puzzle
        self.sp = sp
        self.pl = sp.placements()
        self.shown = self.pl.shown(P).astype(np.int64) if len(self.pl) else np.zeros((0, 4), np.int64)
        counted = sp.counted_edges()
        edges = P.edges[counted]
        esides = P.edge_sides[counted]
        free = sp.free_mask
        fixed_shown = sp.fixed.shown(P)
        ff = free[edges[:, 0]] & free[edges[:, 1]]
        self.ff_edges = edges[ff]  # (F, 2) cells
        self.ff_sides = esides[ff].astype(np.int64)
        self.ff_index = counted[ff]
        n_cells = P.n_cells
        # ff_id[cell, side] -> index of the free-free edge on that side, or -1
        self.ff_id = np.full((n_cells, 4), -1, dtype=np.int64)
        F = len(self.ff_edges)
        self.ff_id[self.ff_edges[:, 0], self.ff_sides[:, 0]] = np.arange(F)
        self.ff_id[self.ff_edges[:, 1], self.ff_sides[:, 1]] = np.arange(F)
        # Edges from a free cell to a filled fixed cell: the colour is a constant.
        fx = ~ff
        fe, fs = edges[fx], esides[fx]
        self.fx_index = counted[fx]
        a_free = free[fe[:, 0]]
        self.fx_cell = np.where(a_free, fe[:, 0], fe[:, 1]).astype(np.int64)
        self.fx_side = np.where(a_free, fs[:, 0], fs[:, 1]).astype(np.int64)
        other = np.where(a_free, fe[:, 1], fe[:, 0])
        other_side = np.where(a_free, fs[:, 1], fs[:, 0])
        self.fx_colour = fixed_shown[other, other_side].astype(np.int64)
        # Index -1 (no such edge) lands on this sentinel colour, which no piece shows.
        self.fx_colour_pad = np.append(self.fx_colour, -1)
        self.fx_id = np.full((n_cells, 4), -1, dtype=np.int64)
        self.fx_id[self.fx_cell, self.fx_side] = np.arange(len(self.fx_cell))
        self.n_colours = int(P.max_colour) + 1

    def edge_label(self, cells) -> str:
        P = self.sp.puzzle
        return f"{P.cell_label(int(cells[0]))}-{P.cell_label(int(cells[1]))}"

    def side_colours(self, alive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Boolean (F, colours) per end of each free-free edge: a live placement shows it."""
        F, K = len(self.ff_edges), self.n_colours
        pres = np.zeros((2, F, K), dtype=bool)
        cell = self.pl.cell
        for s in range(4):
            eid = self.ff_id[cell, s]
            ok = alive & (eid >= 0)
            if not ok.any():
                continue
            e = eid[ok]
            role = (self.ff_edges[e, 0] != cell[ok]).astype(np.int64)
            pres[role, e, self.shown[ok, s]] = True
        return pres[0], pres[1]

    def prune(self) -> np.ndarray:
        """Live placements after arc consistency on the all-edges-matched constraints.

        A placement survives when every counted edge it touches can still be matched: its
        colour is the fixed neighbour's colour, or some live placement on the other side
        shows it. Repeated to a fixpoint; used for feasibility only.
        """
        n = len(self.pl)
        alive = np.ones(n, dtype=bool)
        cell = self.pl.cell
        for s in range(4):
            fid = self.fx_id[cell, s]
            alive &= (fid < 0) | (self.shown[:, s] == self.fx_colour_pad[fid])
        while True:
            pa, pb = self.side_colours(alive)
            # Extra all-true last row: index -1 (no free-free edge) never prunes.
            dom = np.vstack([pa & pb, np.ones((1, pa.shape[1]), dtype=bool)])
            new = alive.copy()
            for s in range(4):
                new &= dom[self.ff_id[cell, s], self.shown[:, s]]
            if (new == alive).all():
                return alive
            alive = new


# ----------------------------------------------------------------------------- the encoding
class SatEncoding(Encoding):
    """A CNF or WCNF encoding; ``clauses()`` / ``soft`` feed a solver, ``write`` exports it."""

    def __init__(self, formulation: str, variant: str, sp: Subproblem, options: dict[str, Any],
                 given: Iterable[str]):
        _need_pysat()
        self.formulation = formulation
        self.variant = variant
        self.subproblem = sp
        self.options = options
        # the options asked for by name (the rest are defaults): only those count as idle
        self.given = frozenset(given)
        self.weighted = formulation == "wcnf"
        self.hard = _Clauses()
        self.loose_aux: set[str] = set()  # encodings whose auxiliary variables the placements do not fix
        self.soft: list[list[int]] = []
        self.never = 0
        self._build()

    def no_solution_text(self) -> str:
        text = super().no_solution_text()
        if text or not self.pruned_empty.size or self.weighted:
            return text
        cells = [self.subproblem.puzzle.cell_label(int(c)) for c in self.pruned_empty]
        some = ", ".join(cells[:3]) + (f" and {len(cells) - 3} more" if len(cells) > 3 else "")
        return f"arc consistency leaves no placement on {'cell' if len(cells) == 1 else 'cells'} {some}"

    # ------------------------------------------------------------------ construction
    def _build(self) -> None:
        from pysat.formula import IDPool

        sp, opt = self.subproblem, self.options
        st = _Structure(sp)
        self._st = st
        pool = IDPool()
        self.pool = pool
        n_all = len(st.pl)
        if not self.weighted and opt["prune"]:
            alive = st.prune()
        else:
            alive = np.ones(n_all, dtype=bool)
        keep = np.flatnonzero(alive)
        rank = cell_rank(sp.puzzle, opt["order"])
        # Variables are numbered along the chosen cell order: solvers break ties between
        # fresh variables by their number, so this order steers the first decisions.
        if opt["tiebreak"]:
            # Same cell order, placements of a cell in a random order: a cheap way to make
            # runs differ without losing the locality of the numbering.
            keep = keep[np.random.default_rng(int(opt["tiebreak"])).permutation(len(keep))]
        keep = keep[np.argsort(rank[st.pl.cell[keep]], kind="stable")]
        self.rank = rank
        self.x_piece = st.pl.piece[keep].astype(np.int64)
        self.x_cell = st.pl.cell[keep].astype(np.int64)
        self.x_rot = st.pl.rotation[keep].astype(np.int64)
        shown = st.shown[keep]
        nx = len(keep)
        self.x_var = _alloc(pool, nx)
        self.n_pruned = n_all - nx
        # cells arc consistency left without a placement (their clauses are empty)
        self.pruned_empty = np.setdiff1d(np.asarray(sp.free, dtype=np.int64), self.x_cell)
        self.z_var = np.zeros(0, dtype=np.int64)
        self.z_piece = self.z_cell = self.z_var
        if opt.get("piece_cell"):
            self._build_piece_cell()
        n_before_edges = int(pool.top)

        # Colour (or matched-colour) variables on the free-free edges.
        pa, pb = self._side_colours_kept(st, shown)
        dom = pa & pb
        F, K = dom.shape
        self.dom = dom
        y = np.zeros((F, K), dtype=np.int64)
        log = self.variant == "log"
        bits: list[list[int]] = [[] for _ in range(F)]
        e_rank = np.stack([rank[st.ff_edges[:, 0]], rank[st.ff_edges[:, 1]]], axis=1) if F else np.zeros((0, 2), int)
        e_order = np.lexsort((e_rank.max(axis=1), e_rank.min(axis=1))) if F else np.zeros(0, int)
        self.e_order = e_order
        for e in e_order.tolist():
            cols = np.flatnonzero(dom[e])
            if log:
                nb = int(np.ceil(np.log2(len(cols)))) if len(cols) > 1 else 0
                bits[e] = [pool.id(("b", e, j)) for j in range(nb)]
            else:
                for k in cols:
                    y[e, k] = pool.id(("e", e, int(k)))
        self.y = y
        self.bits = bits
        self.n_edge_vars = int(pool.top - n_before_edges)

        if self.weighted:
            self._build_soft(st, shown)
        else:
            self._build_links(st, shown)
        named_top = int(pool.top)  # everything above is a cardinality auxiliary
        self._build_support(st, shown)
        self._build_exactly_one(st)
        # options asked for that this model has no use for (the header names them)
        self.idle_options: dict[str, str] = {}
        if self.variant == "log":
            # (the default redundant=pairs stays in the header as before, so that files written
            # earlier still decode with the same arguments; it is only listed here when asked for)
            for key, on in (("redundant", opt["redundant"] != "none"), ("edge_amo", opt.get("edge_amo")),
                            ("colour_counts", opt.get("colour_counts")), ("forbid", opt["forbid"] != "none"),
                            ("piece_support", opt.get("piece_support"))):
                if on and key in self.given:
                    self.idle_options[key] = "one-hot variant only"
        else:
            if opt["forbid"] != "none":
                self._build_forbid(st, shown)
            if opt.get("twins") and not self._build_twins():
                self.idle_options["twins"] = "no two free pieces are equal up to rotation, or spare pieces (no exact cover)"
            if opt.get("piece_support"):
                if opt["piece_cell"]:
                    self._build_piece_support(st, shown)
                elif "piece_support" in self.given:
                    self.idle_options["piece_support"] = "needs piece_cell=true (its clauses start from a piece-on-cell variable)"
            if opt["redundant"] != "none":
                self._build_redundant(st, shown)
            if not self.weighted and opt.get("colour_counts") and not self._build_colour_counts():
                self.idle_options["colour_counts"] = COUNTS_NOT_FIXED
        self.hard.drop_repeats()
        self.n_vars = int(pool.top)
        self.aux = (named_top + 1, self.n_vars) if self.n_vars > named_top else None
        if opt["numbering"] == "descending":
            self._reverse_numbering()

    def _reverse_numbering(self) -> None:
        """Renumber every variable v as n + 1 - v (same formula, mirrored numbers).

        Kissat decides the highest-numbered fresh variable first (CaDiCaL and the MiniSat
        family the lowest), so this puts the first cells of ``order`` first for Kissat."""
        n = self.n_vars

        def flip(a: np.ndarray) -> np.ndarray:
            return np.where(a > 0, n + 1 - a, np.where(a < 0, -(n + 1 + a), 0))

        self.hard.blocks = [(name, flip(b)) for name, b in self.hard.blocks]
        self.soft = [flip(np.asarray(c, dtype=np.int64)).tolist() for c in self.soft]
        self.x_var, self.z_var, self.y = flip(self.x_var), flip(self.z_var), flip(self.y)
        self.bits = [[n + 1 - v for v in b] for b in self.bits]
        if self.never:
            self.never = n + 1 - self.never
        if self.aux:
            self.aux = (n + 1 - self.aux[1], n + 1 - self.aux[0])

    def map_text(self) -> str:
        """The variable map as comment lines (see the module docstring)."""
        st = self._st
        parts = [self._x_map_text()]
        if len(self.z_var):
            multi = ~np.isin(self.z_var, self.x_var)
            W = self.subproblem.puzzle.width
            r, c = np.divmod(self.z_cell[multi], W)
            arr = np.stack([self.z_var[multi], self.z_piece[multi] + 1, r + 1, c + 1], axis=1)
            parts.append(("c z %d piece %d row %d col %d\n" * len(arr)) % tuple(arr.ravel().tolist()))
        lines = []
        for e in self.e_order.tolist():
            label = st.edge_label(st.ff_edges[e])
            cols = np.flatnonzero(self.dom[e])
            if self.variant == "log":
                lines += [f"c b {v} edge {label} bit {j} of colours {','.join(map(str, cols))}\n"
                          for j, v in enumerate(self.bits[e])]
            else:
                lines += [f"c e {self.y[e, k]} edge {label} colour {k}\n" for k in cols]
        parts.append("".join(lines))
        if self.aux:
            parts.append(f"c aux {self.aux[0]}-{self.aux[1]}\n")
        if self.never:
            parts.append(f"c never {self.never}\n")
        return "".join(parts)

    def _side_colours_kept(self, st: _Structure, shown: np.ndarray):
        F, K = len(st.ff_edges), st.n_colours
        pres = np.zeros((2, F, K), dtype=bool)
        for s in range(4):
            eid = st.ff_id[self.x_cell, s]
            ok = eid >= 0
            e = eid[ok]
            role = (st.ff_edges[e, 0] != self.x_cell[ok]).astype(np.int64)
            pres[role, e, shown[ok, s]] = True
        return pres[0], pres[1]

    def _x_map_text(self) -> str:
        n = len(self.x_var)
        if not n:
            return ""
        W = self.subproblem.puzzle.width
        r, c = np.divmod(self.x_cell, W)
        arr = np.stack([self.x_var, self.x_piece + 1, r + 1, c + 1, self.x_rot], axis=1)
        return ("c x %d piece %d row %d col %d rot %d\n" * n) % tuple(arr.ravel().tolist())

    def _pattern(self, e: int, k: int, negate: bool) -> list[int]:
        """Literals that say (or, negated, deny) that edge ``e`` has colour ``k`` (log variant)."""
        idx = int(np.flatnonzero(np.flatnonzero(self.dom[e]) == k)[0])
        lits = []
        for j, v in enumerate(self.bits[e]):
            on = (idx >> j) & 1
            lits.append(v if on else -v)
        return [-l for l in lits] if negate else lits

    def _build_links(self, st: _Structure, shown: np.ndarray) -> None:
        """Placement -> colour of each counted edge it touches (CNF only)."""
        units = []
        pairs = []
        log_lists: list[list[int]] = []
        for s in range(4):
            eid = st.ff_id[self.x_cell, s]
            has = np.flatnonzero(eid >= 0)
            e, col = eid[has], shown[has, s]
            if self.variant == "log":
                ok = self.dom[e, col]
                units.append(-self.x_var[has[~ok]])
                for i, ee, k in zip(has[ok].tolist(), e[ok].tolist(), col[ok].tolist()):
                    xv = int(self.x_var[i])
                    log_lists.extend([[-xv, l] for l in self._pattern(ee, k, False)])
            else:
                yv = self.y[e, col]
                units.append(-self.x_var[has[yv == 0]])
                pairs.append(np.stack([-self.x_var[has[yv > 0]], yv[yv > 0]], axis=1))
            fid = st.fx_id[self.x_cell, s]
            bad = (fid >= 0) & (shown[:, s] != st.fx_colour_pad[fid])
            units.append(-self.x_var[bad])
        u = np.concatenate(units) if units else np.zeros(0, np.int64)
        self.hard.add_array("unit", np.unique(u)[::-1].reshape(-1, 1) if u.size else u.reshape(0, 1))
        if pairs:
            self.hard.add_array("link", np.concatenate(pairs))
        self.hard.add_lists("link", log_lists)
        if self.variant != "log":
            # Each edge shows at least one colour; at most one when asked (else implied by
            # support + one placement per cell).
            alo = [self.y[e][self.y[e] > 0].tolist() for e in range(len(self.y))]
            self.hard.add_lists("edge-alo", alo)
            if self.options["edge_amo"]:
                self._amo("edge-amo", alo)
        else:
            forb = []
            for e in range(len(self.bits)):
                m, nb = int(self.dom[e].sum()), len(self.bits[e])
                for idx in range(m, 1 << nb):
                    forb.append([(-v if (idx >> j) & 1 else v) for j, v in enumerate(self.bits[e])])
                if m == 0:
                    forb.append([])
            self.hard.add_lists("edge-domain", forb)

    def _build_support(self, st: _Structure, shown: np.ndarray) -> None:
        """Colour on an edge -> a placement showing it on each side."""
        if not self.weighted and not self.options["support"]:
            return
        keys, vals = [], []
        for s in range(4):
            eid = st.ff_id[self.x_cell, s]
            has = np.flatnonzero(eid >= 0)
            e = eid[has]
            role = (st.ff_edges[e, 0] != self.x_cell[has]).astype(np.int64)
            col = shown[has, s]
            ok = self.dom[e, col]
            keys.append(np.stack([e[ok], role[ok], col[ok]], axis=1))
            vals.append(self.x_var[has[ok]])
        if not keys:
            return
        k, groups = _group(np.concatenate(keys), np.concatenate(vals))
        out = []
        for (e, role, col), xs in zip(k.tolist(), groups):
            head = [-int(self.y[e, col])] if self.variant != "log" else self._pattern(e, col, True)
            out.append(head + xs.tolist())
        self.hard.add_lists("support", out)

    def _build_soft(self, st: _Structure, shown: np.ndarray) -> None:
        """One soft clause per counted edge, in ``puzzle.edges`` order: the edge is matched."""
        soft: dict[int, list[int]] = {}
        never = 0
        for e in range(len(st.ff_edges)):
            soft[int(st.ff_index[e])] = self.y[e][self.y[e] > 0].tolist()
        for j in range(len(st.fx_cell)):
            c, s, k = st.fx_cell[j], st.fx_side[j], st.fx_colour[j]
            sel = (self.x_cell == c) & (shown[:, s] == k)
            soft[int(st.fx_index[j])] = self.x_var[sel].tolist()
        out = []
        for idx in sorted(soft):
            lits = soft[idx]
            if not lits:
                if not never:
                    never = self.pool.id(("never",))
                    self.hard.add_lists("never", [[-never]])
                lits = [never]
            out.append(lits)
        self.never = never
        self.soft = out

    def _amo(self, section: str, groups: list[list[int]], exact: bool = False) -> None:
        from pysat.card import CardEnc, EncType

        enc = getattr(EncType, self.options["card"])
        out: list[list[int]] = []
        for lits in groups:
            if len(lits) <= 1:
                continue
            if len(lits) <= 4 or self.options["card"] == "pairwise":
                a = np.asarray(lits, dtype=np.int64)
                i, j = np.triu_indices(len(a), 1)
                self.hard.add_array(section, np.stack([-a[i], -a[j]], axis=1))
                continue
            c = _card(CardEnc.atmost, lits=lits, bound=1, top_id=self.pool.top, encoding=enc)
            if c.nv > self.pool.top:
                self.pool.occupy(self.pool.top + 1, c.nv)
                self.pool.top = c.nv
                self.loose_aux.update([self.options["card"]] if self.options["card"] in self.LOOSE_CARDS else [])
            out.extend(c.clauses)
        self.hard.add_lists(section, out)

    def _build_piece_cell(self) -> None:
        """Optional ``z`` variables "piece p is on cell c" (any rotation).

        The one-per-cell and one-per-piece constraints then run over the ``z`` (four times
        fewer literals for inner pieces) and the solver can branch on a piece's cell before
        its rotation. A (piece, cell) pair with a single rotation reuses its ``x``."""
        n_pieces = self.subproblem.puzzle.n_pieces
        # Groups in cell-order rank, then piece; members in variable order.
        gkey = self.rank[self.x_cell] * n_pieces + self.x_piece
        order = np.lexsort((self.x_var, gkey))
        ukeys, start, counts = np.unique(gkey[order], return_index=True, return_counts=True)
        G = len(ukeys)
        first = order[start]
        z_piece, z_cell = self.x_piece[first], self.x_cell[first]
        z = self.x_var[first].copy()
        multi = np.flatnonzero(counts > 1)
        z[multi] = _alloc(self.pool, len(multi))
        member_group = np.repeat(np.arange(G), counts)
        xs_sorted = self.x_var[order]
        in_multi = counts[member_group] > 1
        # x -> z
        self.hard.add_array("piece-cell", np.stack([-xs_sorted[in_multi], z[member_group[in_multi]]], axis=1))
        # z -> some rotation, and at most one rotation, grouped by the number of rotations
        for L in np.unique(counts[multi]).tolist():
            gs = multi[counts[multi] == L]
            idx = start[gs][:, None] + np.arange(L)[None, :]
            xs = xs_sorted[idx]
            self.hard.add_array("piece-cell", np.concatenate([-z[gs][:, None], xs], axis=1))
            i, j = np.triu_indices(L, 1)
            self.hard.add_array("piece-cell", np.stack([-xs[:, i], -xs[:, j]], axis=2).reshape(-1, 2))
        self.z_piece, self.z_cell, self.z_var = z_piece, z_cell, z

    def _build_exactly_one(self, st: _Structure) -> None:
        sp = self.subproblem
        if self.options.get("piece_cell"):
            piece, cell, var = self.z_piece, self.z_cell, self.z_var
        else:
            piece, cell, var = self.x_piece, self.x_cell, self.x_var
        cells_k, cell_groups = _group(cell, var)
        present = set(cells_k.tolist())
        alo = [g.tolist() for g in cell_groups]
        # A free cell without any candidate placement makes the problem infeasible.
        alo += [[] for c in sp.free.tolist() if c not in present]
        self.hard.add_lists("cell-alo", alo)
        if self.options["cell_amo"] or not sp.exact_cover:
            self._amo("cell-amo", [g.tolist() for g in cell_groups])
        pieces_k, piece_groups = _group(piece, var)
        if sp.exact_cover:
            have = set(pieces_k.tolist())
            palo = [g.tolist() for g in piece_groups] + [[] for p in sp.pieces.tolist() if p not in have]
            self.hard.add_lists("piece-alo", palo)
        self._amo("piece-amo", [g.tolist() for g in piece_groups])

    def _piece_groups(self, st: _Structure, shown: np.ndarray):
        """The (piece, cell) pairs of the placements: the pair of each placement, the literal
        that says "this piece is on this cell" (its ``z``, or its only placement; 0 without
        ``piece_cell``), and which colours the pair's placements show on each side
        (``(pairs, 4, colours)``)."""
        n_pieces = self.subproblem.puzzle.n_pieces
        key = self.x_cell * n_pieces + self.x_piece
        ukey, g = np.unique(key, return_inverse=True)
        G, K = len(ukey), st.n_colours
        show = np.zeros((G, 4, K), dtype=bool)
        for s in range(4):
            show[g, s, shown[:, s]] = True
        lit = np.zeros(G, dtype=np.int64)
        if len(self.z_var):
            zkey = self.z_cell * n_pieces + self.z_piece
            order = np.argsort(zkey)
            lit = self.z_var[order[np.searchsorted(zkey[order], ukey)]]
        first = np.zeros(G, dtype=np.int64)
        first[g[::-1]] = np.arange(len(g))[::-1]  # each pair's first placement
        return g, lit, show, self.x_cell[first]

    def _build_forbid(self, st: _Structure, shown: np.ndarray) -> None:
        """Forbidden colours: binary clauses "this piece (or placement) here excludes colour k
        on this edge" for every colour of the edge's domain it does not show on that side.

        ``piece``: a (piece, cell) pair forbids the colours none of its rotations shows on a
        side (with ``piece_cell`` the clause starts from the pair's ``z``; without it, from
        each of its placements). ``placement``: a placement forbids every colour but the one it
        shows (what the link clause and an explicit edge at-most-one give in two steps).
        ``both``: the two. Implied by the other clauses, but not by unit propagation alone for
        ``piece``: the solver learns at once which colours a piece rules out of an edge, and which
        pieces a colour rules out of a cell."""
        mode = self.options["forbid"]
        out = []
        dom = self.dom
        if mode in ("piece", "both"):
            g, lit, show, gcell = self._piece_groups(st, shown)
            for s in range(4):
                if len(self.z_var):
                    e = st.ff_id[gcell, s]
                    has = np.flatnonzero(e >= 0)
                    bad = dom[e[has]] & ~show[has, s]
                    i, k = np.nonzero(bad)
                    out.append(np.stack([-lit[has[i]], -self.y[e[has[i]], k]], axis=1))
                else:
                    e = st.ff_id[self.x_cell, s]
                    has = np.flatnonzero(e >= 0)
                    bad = dom[e[has]] & ~show[g[has], s]
                    i, k = np.nonzero(bad)
                    out.append(np.stack([-self.x_var[has[i]], -self.y[e[has[i]], k]], axis=1))
        if mode in ("placement", "both"):
            for s in range(4):
                e = st.ff_id[self.x_cell, s]
                has = np.flatnonzero(e >= 0)
                bad = dom[e[has]].copy()
                bad[np.arange(len(has)), shown[has, s]] = False
                i, k = np.nonzero(bad)
                out.append(np.stack([-self.x_var[has[i]], -self.y[e[has[i]], k]], axis=1))
        if out:
            self.hard.add_array("forbid", np.concatenate(out))

    def _build_twins(self) -> bool:
        """Symmetry breaking among twin pieces (equal up to rotation): of two twins, the
        lower-numbered piece sits on the lower-numbered cell (row-major, whatever ``order``
        says). Swapping two twins (each turned to show what the other showed) maps a board to
        another, so this keeps one board of every such set; exact covers only (with spare
        pieces a twin may stay out). Binary clauses between the two pieces' literals on
        out-of-order cell pairs; False when there is nothing to break."""
        sp = self.subproblem
        if not sp.exact_cover:
            return False
        free = set(sp.pieces.tolist())
        lits: dict[int, dict[int, list[int]]] = {}
        if len(self.z_var):
            for p, c, v in zip(self.z_piece.tolist(), self.z_cell.tolist(), self.z_var.tolist()):
                lits.setdefault(p, {})[c] = [v]
        else:
            for p, c, v in zip(self.x_piece.tolist(), self.x_cell.tolist(), self.x_var.tolist()):
                lits.setdefault(p, {}).setdefault(c, []).append(v)
        out: list[list[int]] = []
        any_pair = False
        for group in sp.puzzle.duplicate_groups():
            mem = sorted(p for p in group if p in free)
            for a, b in zip(mem, mem[1:]):
                any_pair = True
                la, lb = lits.get(a, {}), lits.get(b, {})
                for cb in sorted(lb):
                    for ca in sorted(c for c in la if c > cb):
                        out += [[-u, -w] for u in la[ca] for w in lb[cb]]
        self.hard.add_lists("twins", out)
        return any_pair

    def _build_piece_support(self, st: _Structure, shown: np.ndarray) -> None:
        """Piece support: a piece on a cell shows, on each side, one of the colours its
        rotations there show (``-z`` or one of those colours). For pairs with several
        rotations only (a pair with one rotation has its link clauses); needs ``piece_cell``.
        Implied through the rotations, but not by unit propagation."""
        g, lit, show, gcell = self._piece_groups(st, shown)
        multi = np.flatnonzero(~np.isin(lit, self.x_var))
        out: list[list[int]] = []
        for gi in multi.tolist():
            for s in range(4):
                e = int(st.ff_id[gcell[gi], s])
                if e < 0:
                    continue
                cols = np.flatnonzero(show[gi, s] & self.dom[e])
                out.append([-int(lit[gi])] + self.y[e, cols].tolist())
        self.hard.add_lists("piece-support", out)

    def _build_redundant(self, st: _Structure, shown: np.ndarray) -> None:
        """Colour pairs (and triples) on the sides of one cell that no candidate shows.

        Implied by the other clauses, but stated directly they let the solver see the
        conflict as soon as two edge colours are set. One-hot variant only."""
        triples = self.options["redundant"] == "triples"
        K = self.y.shape[1]
        out = []
        cells_k, groups = _group(self.x_cell, np.arange(len(self.x_cell)))
        combos = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3)]
        tcombos = [(0, 1, 2), (1, 2, 3), (2, 3, 0), (3, 0, 1)]
        for c, idx in zip(cells_k.tolist(), groups):
            eids = st.ff_id[c]
            sh = shown[idx]
            for s1, s2 in combos:
                e1, e2 = eids[s1], eids[s2]
                if e1 < 0 or e2 < 0:
                    continue
                seen = np.zeros((K, K), dtype=bool)
                seen[sh[:, s1], sh[:, s2]] = True
                d1, d2 = np.flatnonzero(self.dom[e1]), np.flatnonzero(self.dom[e2])
                missing = ~seen[np.ix_(d1, d2)]
                i, j = np.nonzero(missing)
                if i.size:
                    out.append(np.stack([-self.y[e1, d1[i]], -self.y[e2, d2[j]]], axis=1))
            if triples:
                for s1, s2, s3 in tcombos:
                    e1, e2, e3 = eids[s1], eids[s2], eids[s3]
                    if e1 < 0 or e2 < 0 or e3 < 0:
                        continue
                    seen3 = np.zeros((K, K, K), dtype=bool)
                    seen3[sh[:, s1], sh[:, s2], sh[:, s3]] = True
                    seen12 = seen3.any(axis=2)
                    seen23 = seen3.any(axis=0)
                    seen13 = seen3.any(axis=1)
                    d1, d2, d3 = (np.flatnonzero(self.dom[e]) for e in (e1, e2, e3))
                    sub = ~seen3[np.ix_(d1, d2, d3)]
                    # Only triples whose three pairs are all possible: the rest are
                    # already excluded by a pair clause.
                    sub &= seen12[np.ix_(d1, d2)][:, :, None] & seen23[np.ix_(d2, d3)][None, :, :] \
                        & seen13[np.ix_(d1, d3)][:, None, :]
                    i, j, k = np.nonzero(sub)
                    if i.size:
                        out3 = np.stack([-self.y[e1, d1[i]], -self.y[e2, d2[j]], -self.y[e3, d3[k]]], axis=1)
                        self.hard.add_array("redundant-triples", out3)
        if out:
            self.hard.add_array("redundant-pairs", np.concatenate(out))

    def _build_colour_counts(self) -> None:
        """How often each colour appears on the free-free edges is fixed by the pieces.

        Valid only for an exact cover whose free cells have no uncounted side (every
        neighbour is free, filled or the frame); skipped otherwise (returns False). One-hot only."""
        from pysat.card import CardEnc, EncType

        sides = colour_sides_between_free_cells(self.subproblem)
        if sides is None:
            return False
        K = self.y.shape[1]
        sides = np.pad(sides, (0, max(0, K - len(sides))))
        out = []
        enc = EncType.totalizer if self.options["card"] in ("pairwise", "ladder", "bitwise") else \
            getattr(EncType, self.options["card"])
        for k in range(1, K):
            lits = self.y[:, k][self.y[:, k] > 0].tolist()
            rest = int(sides[k])
            if rest % 2 or rest < 0 or rest // 2 > len(lits):
                out.append([])
                continue
            need = rest // 2
            if not lits:
                continue
            c = _card(CardEnc.equals, lits=lits, bound=need, top_id=self.pool.top, encoding=enc)
            if c.nv > self.pool.top:
                self.pool.occupy(self.pool.top + 1, c.nv)
                self.pool.top = c.nv
                if enc in (EncType.totalizer, EncType.sortnetwrk, EncType.cardnetwrk):
                    self.loose_aux.add("colour_counts")
            out.extend(c.clauses)
        self.hard.add_lists("colour-counts", out)
        return True

    # ------------------------------------------------------------------ interface
    def clauses(self) -> list[list[int]]:
        """The hard clauses as lists of literals (what a PySAT solver takes)."""
        return self.hard.to_lists()

    @property
    def placement_vars(self) -> np.ndarray:
        return self.x_var

    def sizes(self) -> dict[str, int]:
        if self.weighted:
            return {"variables": self.n_vars, "hard": len(self.hard), "soft": len(self.soft)}
        return {"variables": self.n_vars, "clauses": len(self.hard)}

    def options_text(self) -> str:
        keys = sorted(self.options)
        return " ".join(f"{k}={self.options[k]}" for k in keys)

    def _goal_text(self) -> str:
        goal = self.subproblem.goal
        if self.formulation == "cnf" and goal is Goal.OPTIMISATION:  # the CNF asks for every edge all the same
            return f"{goal.value}, as feasibility: every counted edge matched"
        return goal.value

    def effective(self) -> dict:
        # the log variant has no one-hot colour variables: redundant clauses, edge at-most-one and
        # colour counts are not in it whatever the options line says (it keeps redundant=pairs
        # there so that files written earlier decode with the same arguments)
        drop = {"redundant", "edge_amo", "colour_counts", "forbid", "piece_support"} if self.variant == "log" else set()
        return {k: v for k, v in self.options.items() if k not in self.idle_options and k not in drop}

    #: PySAT cardinality encodings whose auxiliary variables the constrained literals do not fix
    #: (a board then has many models); colour_counts uses the totalizer for pairwise, ladder and
    #: bitwise, whose at-most-one have no such freedom
    LOOSE_CARDS = ("totalizer", "sortnetwrk", "cardnetwrk")

    def models_per_board_text(self) -> str:
        """Whether counting the CNF's models counts boards (the tests enumerate the models of
        set 2's 4x4 for every card and colour_counts and compare)."""
        card = self.options["card"]
        # which encodings left auxiliary variables in this file (groups of up to 4 are written
        # pairwise, with none)
        loose = [f"card={card}"] if card in self.loose_aux else []
        if "colour_counts" in self.loose_aux:
            loose.append("colour_counts" + (" (a totalizer)" if card in ("pairwise", "ladder", "bitwise") else ""))
        if not loose:
            text = "one per board (every other variable follows from the x variables)"
        else:
            text = (f"several per board ({' and '.join(loose)} leave auxiliary variables free): to count boards, "
                    "count models projected onto the x variables")
        if self.options.get("twins") and "twins" not in getattr(self, "idle_options", {}):
            text += ("; twins=True keeps one board of each set that differs only by swapping pieces equal up to "
                     "rotation (the lower-numbered twin on the lower-numbered cell)")
        return text

    def header_lines(self, fmt: str) -> list[str]:
        from .. import __version__

        sp = self.subproblem
        P = sp.puzzle
        kind = "whole puzzle" if sp.is_whole else "region"
        lines = [
            f"c emc {__version__}: {self.formulation} encoding of an edge-matching sub-problem ({fmt})",
            f"c puzzle {P.name} {P.size} sha256 {P.sha256}",
            f"c subproblem: {kind}, {sp.n_free} free cell{'' if sp.n_free == 1 else 's'}, {len(sp.pieces)} "
            f"piece{'' if len(sp.pieces) == 1 else 's'}, "
            f"{sp.max_score} counted edges, goal {self._goal_text()}, symmetry breaking "
            f"{'on' if sp.symmetry_cells() is not None else 'off'}",
            f"c free cells {' '.join(P.cell_label(c) for c in sp.free)}" if not sp.is_whole else "c free cells all",
            f"c variant {self.variant} options {self.options_text()}",
        ]
        if self.idle_options:
            lines.append("c options without effect here: "
                         + ", ".join(f"{k}={self.options[k]} ({why})" for k, why in self.idle_options.items()))
        freed = sp.hints_not_kept()
        if freed:
            lines.insert(4, f"c hints not kept (their cells are free): {' '.join(freed)}")
        dead = "" if self.weighted else self.no_solution_text()  # the file holds empty clauses, or clauses forcing them
        if dead:
            lines.append(f"c unsatisfiable as written: {dead}")
        if not self.weighted:
            lines.append(f"c models: {self.models_per_board_text()}")
        sz = self.sizes()
        lines.append("c sizes " + " ".join(f"{k}={v}" for k, v in sz.items()))
        sec = self.hard.sections()
        lines.append("c hard clauses by kind " + " ".join(f"{k}={v}" for k, v in sec.items()))
        if self.weighted:
            lines.append("c soft clauses: one per counted edge (weight 1, satisfied when the edge is matched), "
                         "in the puzzle's edge order; cost = unmatched counted edges")
        else:
            lines.append(f"c placements pruned by arc consistency: {self.n_pruned}")
        lines.append("c variable map: x = placement (1-based piece/row/col, rotation 0-3 clockwise), "
                     "z = piece on cell, e = edge " + ("matched in colour" if self.weighted else "colour")
                     + ", b = colour index bit, aux = cardinality auxiliaries, never = always false")
        return [l + "\n" for l in lines]

    def write(self, path: str | os.PathLike, fmt: str | None = None, compress: bool | None = None) -> list[Path]:
        from ..io import atomic_write

        default = "wcnf" if self.weighted else "cnf"
        fmt = fmt or default
        valid = ("wcnf", "wcnf-old") if self.weighted else ("cnf",)
        if fmt not in valid:
            from ..errors import UnknownNameError

            raise UnknownNameError(f"{self.formulation} export format", fmt, valid)
        path = Path(path)
        with atomic_write(path, compress=compress) as f:
            for line in self.header_lines(fmt):
                f.write(line)
            f.write(self.map_text())
            if not self.weighted:
                f.write(f"p cnf {self.n_vars} {len(self.hard)}\n")
                for chunk in self.hard.text():
                    f.write(chunk)
            elif fmt == "wcnf":
                for chunk in self.hard.text("h "):
                    f.write(chunk)
                for c in self.soft:
                    f.write("1 " + " ".join(map(str, c)) + " 0\n")
            else:
                top = len(self.soft) + 1
                f.write(f"p wcnf {self.n_vars} {len(self.hard) + len(self.soft)} {top}\n")
                for chunk in self.hard.text(f"{top} "):
                    f.write(chunk)
                for c in self.soft:
                    f.write("1 " + " ".join(map(str, c)) + " 0\n")
        return [path]

    def decode(self, answer: Any) -> Board:
        """Board from the true variables (an iterable of signed literals; the negative ones are
        only checked: in range, and no variable both true and false)."""
        sp = self.subproblem
        if isinstance(answer, (str, bytes)):
            raise InputError("a CNF answer is a list of literals (emc.answers.read_literals reads a solver's text)")
        lits = whole_number_list(answer, "a CNF answer is a list of whole-number literals")
        bad = next((v for v in lits if not 0 < abs(v) <= self.n_vars), None)
        if bad is not None:
            raise InputError(f"literal {bad} is not a variable of this model (1..{self.n_vars}): the answer is "
                             "another file's", about=bad)
        true = np.asarray([v for v in lits if v > 0], dtype=np.int64)
        both = np.intersect1d(true, [-v for v in lits if v < 0])
        if both.size:
            raise InputError(f"variable {int(both[0])} is given both true and false: the answer is no assignment",
                             about=int(both[0]))
        on = np.isin(self.x_var, true)
        cells, counts = np.unique(self.x_cell[on], return_counts=True)
        if (counts > 1).any():  # no model of the file does this: the answer is another file's
            raise InputError(f"the answer places {int(counts.max())} pieces on "
                             f"{sp.puzzle.cell_label(int(cells[np.argmax(counts)]))}: it is not a model of this "
                             f"{'WCNF' if self.weighted else 'CNF'} (a model of "
                             "a sub-problem's file? give decode the export's --fixed and --free)")
        board = sp.fixed.copy()
        for i in np.flatnonzero(on):
            board.place(int(self.x_cell[i]), int(self.x_piece[i]), int(self.x_rot[i]))
        return board


# ----------------------------------------------------------------------------- encoders
def _options(allowed: set[str], given: dict[str, Any], name: str) -> dict[str, Any]:
    unknown = sorted(set(given) - allowed)
    if unknown:
        raise InputError(f"unknown {name} option(s) {', '.join(unknown)} (valid: {', '.join(sorted(allowed))})")
    out = {
        "card": DEFAULT_CARD,
        "cell_amo": True,
        "piece_cell": True,
        "order": "rowmajor",
        "tiebreak": 0,
        "numbering": "ascending",
        "redundant": DEFAULT_REDUNDANT,
    }
    out["forbid"] = DEFAULT_FORBID
    if name == "cnf":
        out.update({"edge_amo": False, "support": True, "colour_counts": False, "prune": True,
                    "piece_support": DEFAULT_PIECE_SUPPORT, "twins": False})
    else:
        # Measured on the CNF only (feasibility); the MaxSAT runs were made without them.
        out["redundant"] = "none"
    out.update(given)
    if out["card"] not in CARD_ENCODINGS:
        from ..errors import UnknownNameError

        raise UnknownNameError("cardinality encoding", str(out["card"]), CARD_ENCODINGS)
    tb = out["tiebreak"]
    try:
        ok = not isinstance(tb, bool) and int(tb) == float(tb) and int(tb) >= 0
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise InputError(f"tiebreak must be a seed, a whole number 0 or more, not {tb!r}")
    out["tiebreak"] = int(tb)
    if out["numbering"] not in NUMBERINGS:
        from ..errors import UnknownNameError

        raise UnknownNameError("variable numbering", str(out["numbering"]), NUMBERINGS)
    if out["order"] not in ORDERS:
        from ..errors import UnknownNameError

        raise UnknownNameError("variable order", str(out["order"]), ORDERS)
    if out["redundant"] not in REDUNDANT:
        from ..errors import UnknownNameError

        raise UnknownNameError("redundant clause set", str(out["redundant"]), REDUNDANT)
    if out["forbid"] not in FORBID:
        from ..errors import UnknownNameError

        raise UnknownNameError("forbidden-colour clause set", str(out["forbid"]), FORBID)
    for k in ("cell_amo", "piece_cell", "edge_amo", "support", "colour_counts", "prune", "piece_support", "twins"):
        if k in out:
            if not isinstance(out[k], (bool, np.bool_)):  # bool("false") is True: a string would flip it
                raise InputError(f"cnf encoder option {k} is true or false, not {out[k]!r}")
            out[k] = bool(out[k])
    return out


class CnfEncoder(Encoder):
    """SAT encoding: every counted edge matched (for any goal)."""

    name = "cnf"
    formats = ("cnf",)
    variants = ("onehot", "log")
    options = frozenset(_CNF_OPTIONS)
    bool_options = frozenset({"cell_amo", "piece_cell", "edge_amo", "support", "colour_counts", "prune",
                              "piece_support", "twins"})

    def encode(self, subproblem: Subproblem, variant: str | None = None, **options: Any) -> SatEncoding:
        """Compile ``subproblem`` to CNF.

        Args:
            subproblem: the sub-problem; an optimisation goal is encoded as "all counted
                edges matched".
            variant: ``onehot`` (one variable per edge and colour, default) or ``log`` (the
                colour's index in the edge's domain in binary).
            **options:
                ``card``: PySAT cardinality encoding (:data:`CARD_ENCODINGS`) for the
                at-most-one constraints (default ``seqcounter``; groups of at most four
                literals are always pairwise).
                ``piece_cell``: piece-on-cell variables carry the one-per-cell and
                one-per-piece constraints (default on).
                ``cell_amo``: at-most-one per cell (default on; implied for an exact cover).
                ``edge_amo``: at-most-one colour per edge (default off; implied by ``support``).
                ``support``: colour -> placement clauses (default on; off needs ``edge_amo``
                in the one-hot variant).
                ``redundant``: ``none``, ``pairs`` (default) or ``triples``: colour pairs
                (and triples) no candidate shows together at a cell.
                ``colour_counts``: how many edges carry each colour (default off).
                ``prune``: drop placements arc consistency rules out (default on).
                ``forbid``: forbidden-colour clauses, ``none`` (default), ``piece``,
                ``placement`` or ``both`` (:data:`FORBID`).
                ``piece_support``: a piece on a cell shows one of its colours on each side
                (default off; needs ``piece_cell``).
                ``twins``: the lower-numbered of two twin pieces on the lower-numbered cell
                (default off; removes boards, so never for counting).
                ``order``: cell order of the numbering (:data:`ORDERS`, default row-major).
                ``numbering``: ``ascending`` (default) or ``descending`` (mirrored numbers).
                ``tiebreak``: seed for the order of a cell's placements (0: as enumerated).

        Raises:
            InputError: unknown variant or option, or an invalid option value.
        """
        v = self.check_variant(variant)
        return SatEncoding("cnf", v, subproblem, self.check_options(options, v), given=options)

    def check_options(self, options: dict[str, Any], variant: str | None = None) -> dict[str, Any]:
        """``options`` with the defaults filled in; InputError for a name or value it does not
        take (a backend checks before any work starts)."""
        v = self.check_variant(variant)
        opts = _options(_CNF_OPTIONS, options, "cnf")
        if v == "onehot" and not opts["support"] and not opts["edge_amo"]:
            # support + one placement per cell is what keeps an edge to one colour; without
            # both, a model could colour an edge twice and leave it unmatched
            raise InputError("support=false needs edge_amo=true: without the support clauses nothing else keeps "
                             "an edge to one colour, and the CNF's models would include unmatched boards")
        return opts


class WcnfEncoder(Encoder):
    """MaxSAT encoding: hard placement rules, one soft clause per counted edge."""

    name = "wcnf"
    formats = ("wcnf", "wcnf-old")
    variants = ("onehot",)
    options = frozenset(_WCNF_OPTIONS)
    bool_options = frozenset({"cell_amo", "piece_cell"})

    def encode(self, subproblem: Subproblem, variant: str | None = None, **options: Any) -> SatEncoding:
        """Compile ``subproblem`` to weighted CNF.

        Args:
            subproblem: the sub-problem (either goal; the soft clauses count matched edges).
            variant: ``onehot`` only.
            **options: ``card``, ``piece_cell``, ``cell_amo``, ``redundant`` (default
                ``none`` here), ``forbid``, ``order``, ``numbering`` and ``tiebreak`` as for
                :meth:`CnfEncoder.encode`.

        Raises:
            InputError: unknown variant or option, or an invalid option value.
        """
        v = self.check_variant(variant)
        return SatEncoding("wcnf", v, subproblem, self.check_options(options), given=options)

    def check_options(self, options: dict[str, Any], variant: str | None = None) -> dict[str, Any]:
        """As :meth:`CnfEncoder.check_options`."""
        self.check_variant(variant)
        return _options(_WCNF_OPTIONS, options, "wcnf")
