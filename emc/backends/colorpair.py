"""Backend ``colorpair``: Benoist and Bourreau's ColorPair constraint search (seed 002).

A depth-first search that keeps no domain per cell. For every pair of colours it tracks the
unplaced pieces offering the pair and the empty cells demanding it (a cell demands a pair when
two of its sides, next to each other clockwise or opposite, are known: from the frame or from
placed neighbours), and filters in constant time per placement: fewer offers than demands fails,
one piece for one cell places it, as many pieces as cells reserves them for their pair
(pre-emption); two colour counts add the shared-edge bound and the frame cycle. It branches on
the most constrained cells (the paper's four patterns), else on a cell of the pair a heuristic
picks (MinExpectedGap, the paper's best, by default), shaves the cells with two known sides at
every node, and jumps back over nodes that have nothing to do with a failure
(conflict-directed backjumping, explanations as cell bitsets). The compiled kernel is
:mod:`._colorpair_kernel`.

It answers feasibility (a perfect fill, or a proof that none exists) and counts solutions, on
whole puzzles and on sub-problems (fixed cells are placed pieces, the allowed pieces are the
offer); it does not optimise.

One thread: ``threads`` is not used. ``solve`` runs randomised restarts (``restarts``, default
true): run ``i`` tries the candidates in an order drawn from ``(seed, i)`` for ``luby(i) *
restart_nodes`` nodes (default 20,000), and a run that finishes its search without a solution
proves that there is none; ``count`` is one complete search.

Options (docs/colorpair.md gives each default and where it comes from): the switches
``contradiction``, ``instantiation``, ``preemption``, ``opposite_pairs``, ``patterns``,
``shaving``, ``backjumping`` (true by default), ``edge_bound`` and ``frame_cycle`` (false by
default); ``heuristic`` (``min-expected-gap``, default; ``min-offer``, ``min-expected-offer``,
``min-expected-ratio``, ``max-expected-filtering``); ``slice_nodes`` (nodes between checks of the
clock and Ctrl-C, default 200,000); ``restarts`` and ``restart_nodes`` (``solve`` only).
"""

from __future__ import annotations

import copy
import importlib.util
import itertools
import math
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import InputError
from ..runtime import check as check_interrupt
from ..model import Board, Goal, Subproblem
from .base import Backend, Capability, CountResult, DeeperFills, Result, Status, check_options, count_text, option_bool, option_int, solutions_text
from ..runtime import Throttled

#: The pair heuristics (seed 002, section 5.1), by option value, in the kernel's numbering.
HEURISTICS = ("min-offer", "min-expected-offer", "min-expected-gap", "min-expected-ratio", "max-expected-filtering")
DEFAULT_HEURISTIC = "min-expected-gap"
#: The filters and search rules an option turns on or off.
SWITCHES = ("contradiction", "instantiation", "preemption", "edge_bound", "frame_cycle", "opposite_pairs", "patterns",
            "shaving", "backjumping")
#: The switches off unless asked for: the two colour filters cost more time than the nodes they
#: save (0.2 % fewer nodes for 11 % more CPU time on four benchmark instances; docs/colorpair.md).
OFF_BY_DEFAULT = ("edge_bound", "frame_cycle")
SLICE_NODES = 200_000
#: ``solve``'s restarts: run ``i`` searches ``luby(i) * RESTART_NODES`` nodes (see ColorPairBackend._solve).
RESTART_NODES = 20_000
_OPTIONS = frozenset(SWITCHES + ("heuristic", "slice_nodes", "restarts", "restart_nodes"))
#: The most entries the kernel's tables may take (pairs x cells of demand room, and so on).
MAX_TABLE = 50_000_000

#: Statistics the kernel counts (stats[] order), by the names results carry.
STAT_NAMES = ("fail_contradiction", "fail_no_offer", "fail_instantiation", "fail_no_candidate", "fail_shaving",
              "fail_edge_bound", "fail_frame_cycle", "forced_instantiation", "forced_shaving", "preemptions",
              "backjumps", "nodes_skipped", "shaving_probes", "branch_pattern", "branch_pair", "branch_fallback")


def h_shared(n: int) -> int:
    """The most edges ``n`` unit squares of the grid can share (Benoist 2008, quoted in seed
    002 section 4.2): ``2n - ceil(2 sqrt(n))``, 0 for ``n`` up to 1."""
    if n <= 1:
        return 0
    t = math.isqrt(4 * n)
    if t * t < 4 * n:
        t += 1
    return 2 * n - t


def piece_class(colours) -> int:
    """The class of cell a piece can go on, from its border sides: 0 inner (none), 1 edge (one),
    2 corner (two next to each other); -1 when it fits no cell."""
    z = [int(c) == 0 for c in colours]
    n = sum(z)
    if n == 0:
        return 0
    if n == 1:
        return 1
    if n == 2 and any(z[s] and z[(s + 1) % 4] for s in range(4)):
        return 2
    return -1


class Plan:
    """The kernel's fixed tables for a sub-problem (see :mod:`._colorpair_kernel` for the
    layout): copied into each :class:`Search`."""

    def __init__(self, sp: Subproblem, opposite: bool = True):
        from . import _colorpair_kernel as K

        P = sp.puzzle
        self.sp = sp
        n = P.n_cells
        C = P.max_colour + 1
        self.C = C
        free = sp.free_mask
        pieces = [int(p) for p in sp.pieces]
        self.n_free = sp.n_free
        self.W = max(1, (n + 63) // 64)
        CS = np.zeros((n, K.N_CS), dtype=np.int64)
        CS[:, K.C_PIECE] = -1
        CS[:, K.C_FLOC] = -1
        CS[:, K.C_K0:K.C_K0 + 4] = -1
        CS[:, K.C_FM] = (P.frame_sides * (1 << np.arange(4))).sum(axis=1)
        CS[:, K.C_CLS] = P.cell_class
        CS[:, K.C_FREE] = free
        holes = (~free) & (sp.fixed.piece < 0)
        CS[:, K.C_HOLE] = holes
        CS[:, K.C_NB0:K.C_NB0 + 4] = P.neighbours
        for c in np.flatnonzero(free):
            for s in range(4):
                if P.frame_sides[c, s]:
                    CS[c, K.C_K0 + s] = 0
                    CS[c, K.C_NK] += 1
        self.CS = CS
        nbr = P.neighbours[free]
        self.no_holes = not bool(((nbr >= 0) & holes[np.maximum(nbr, 0)]).any())

        # the pairs each allowed piece offers, numbered by raw id: (class, a, b) consecutive
        # clockwise, then (class, low, high) opposite
        CC = C * C
        offers: dict[int, list[int]] = {}
        piece_pairs: dict[int, list[int]] = {}
        for t in pieces:
            c = [int(x) for x in P.pieces[t]]
            cls = piece_class(c)
            raws: list[int] = []
            if cls >= 0:
                for s in range(4):
                    raws.append((cls * C + c[s]) * C + c[(s + 1) % 4])
                if opposite:
                    for s in (0, 1):
                        lo, hi = sorted((c[s], c[s + 2]))
                        raws.append(3 * CC + (cls * C + lo) * C + hi)
            raws = list(dict.fromkeys(raws))
            piece_pairs[t] = raws
            for r in raws:
                offers.setdefault(r, []).append(t)
        raw_ids = sorted(offers)
        n_pairs = len(raw_ids)
        self.n_pairs = n_pairs
        cmap = np.full(6 * CC, -1, dtype=np.int64)
        cmap[raw_ids] = np.arange(n_pairs)
        class_cells = np.bincount(P.cell_class[free], minlength=3)
        PT = np.zeros((max(n_pairs, 1), K.N_PT), dtype=np.int64)
        oelem = np.zeros(sum(len(v) for v in offers.values()), dtype=np.int64)
        omj = np.zeros_like(oelem)  # per offer entry: which of its piece's offers it is
        PC = np.zeros((P.n_pieces, K.N_PC), dtype=np.int64)
        PC[:, K.Q_PREBY] = -1
        PC[:, K.Q_CELL] = -1
        PC[pieces, K.Q_UNI] = 1
        PC[:, K.Q_COL:K.Q_COL + 16] = P.colours.reshape(P.n_pieces, 16)
        PC[:, K.Q_ZM:K.Q_ZM + 4] = ((P.colours == 0) * (1 << np.arange(4))).sum(axis=2)
        PC[:, K.Q_DIST0:K.Q_DIST0 + 4] = -1
        PC[:, K.Q_TAN0:K.Q_TAN0 + 2] = -1
        pos = 0
        dpos = 0
        for i, r in enumerate(raw_ids):
            opp = r >= 3 * CC
            rest = r - 3 * CC if opp else r
            cls, rest = divmod(rest, CC)
            a, b = divmod(rest, C)
            PT[i, K.P_OSTART] = pos
            PT[i, K.P_OCAP] = PT[i, K.P_OSIZE] = len(offers[r])
            PT[i, K.P_DSTART] = dpos
            PT[i, K.P_DCAP] = class_cells[cls]
            PT[i, K.P_CLS], PT[i, K.P_KIND], PT[i, K.P_A], PT[i, K.P_B] = cls, int(opp), a, b
            for t in offers[r]:
                oelem[pos] = t
                j = piece_pairs[t].index(r)
                omj[pos] = j
                PC[t, K.Q_M0 + j] = i
                PC[t, K.Q_L0 + j] = pos
                pos += 1
            dpos += class_cells[cls]
        for t in pieces:
            PC[t, K.Q_NPAIR] = len(piece_pairs[t])
        if dpos > MAX_TABLE or n_pairs * self.W > MAX_TABLE:
            raise InputError(f"the colorpair search's tables would need {max(dpos, n_pairs * self.W):,} entries "
                             f"({n_pairs:,} colour pairs): too large for it; use another backend")
        self.PT, self.PC = PT, PC

        # colour counts (the shared-edge bound and the frame cycle)
        m_k = np.zeros(C, dtype=np.int64)
        mp_k = np.zeros(C, dtype=np.int64)
        sides: list[list[tuple[int, int]]] = [[] for _ in range(C)]
        for t in pieces:
            c = [int(x) for x in P.pieces[t]]
            for s in range(4):
                m_k[c[s]] += 1
            d = sorted(set(c))
            PC[t, K.Q_DIST0:K.Q_DIST0 + len(d)] = d
            mp_k[d] += 1
            cls = piece_class(c)
            tan: set[int] = set()
            if cls == 1:
                b = c.index(0)
                tan = {(b + 1) % 4, (b + 3) % 4}
            elif cls == 2:
                tan = {s for s in range(4) if c[s] != 0}
            if len(tan) == 2:
                PC[t, K.Q_TAN0:K.Q_TAN0 + 2] = [c[s] for s in sorted(tan)]
            for s in range(4):
                sides[c[s]].append((t, int(s in tan)))
        flat = [x for lst in sides for x in lst]
        self.ring = 2 * (P.width + P.height) - 4 if P.width >= 3 and P.height >= 3 else 0
        self.exact = len(pieces) == sp.n_free
        filled = np.flatnonzero((~free) & (sp.fixed.piece >= 0))
        self.tables = {
            "OELEM": oelem, "OMJ": omj, "DELEM": np.zeros(dpos, dtype=np.int64), "SP": np.full(6 * n, K.S_OFF, dtype=np.int64),
            "SLOC": np.zeros(6 * n, dtype=np.int64), "DP": np.zeros(n_pairs, dtype=np.int64),
            "FR": np.zeros(n, dtype=np.int64), "CMAP": cmap, "Q": np.zeros(n_pairs, dtype=np.int64),
            "TT": np.zeros(n + n_pairs + 8, dtype=np.int64), "TV": np.zeros(n + n_pairs + 8, dtype=np.int64),
            "PTRAIL": np.zeros(n + 1, dtype=np.int64), "MK": m_k, "MDK": np.zeros(C, dtype=np.int64), "MPK": mp_k,
            "CINQ": np.zeros(C, dtype=np.int64), "CQ": np.zeros(C, dtype=np.int64),
            "HVAL": np.array([h_shared(k) for k in range(P.n_pieces + 1)], dtype=np.int64),
            "CSSTART": np.cumsum([0] + [len(x) for x in sides]).astype(np.int64),
            "CSPIECE": np.array([t for t, _ in flat], dtype=np.int64),
            "CSTAN": np.array([g for _, g in flat], dtype=np.int64), "UNI": np.array(pieces, dtype=np.int64),
            "SHV": np.zeros(n, dtype=np.int64),
            "FIXED": np.array([[c, sp.fixed.piece[c], sp.fixed.rotation[c]] for c in filled],
                              dtype=np.int64).reshape(-1),
        }


def pins(sp: Subproblem) -> list[list[tuple[int, int, int]] | None]:
    """The searches symmetry breaking splits the sub-problem into, each a list of (cell, piece,
    turn) placed first: one search pinning nothing without it; the first corner piece on the
    top-left cell (square boards), or on one top corner and then the other (rectangular
    boards: two searches whose fills differ in that piece's cell, so their counts add up). None
    for a search with nothing to do (the piece fits no cell it may take)."""
    sym = sp.symmetry_cells()
    if sym is None:
        return [[]]
    piece, cells = sym
    P = sp.puzzle
    out: list[list[tuple[int, int, int]] | None] = []
    for c in cells:
        turns = [r for r in range(4) if P.fits[piece, int(c), r]]
        out.append([(int(c), int(piece), int(turns[0]))] if turns else None)
    return out


class Search:
    """One resumable ColorPair search of ``plan`` with some cells pinned (see :func:`pins`)."""

    def __init__(self, plan: Plan, pinned: list[tuple[int, int, int]] | None, settings: dict, keep: int = 1,
                 stop_at: int = 0):
        from . import _colorpair_kernel as K

        self.K, self.plan = K, plan
        sp = plan.sp
        n = sp.puzzle.n_cells
        depth = plan.n_free + 2
        n_pairs = max(plan.n_pairs, 1)
        n_uni = len(plan.tables["UNI"])
        keep = max(keep, 1)
        tables = dict(plan.tables)
        tables.update({
            "CSP": np.zeros((depth + 1) * 4 * max(n_uni, 1), dtype=np.int64),
            "CSR": np.zeros((depth + 1) * 4 * max(n_uni, 1), dtype=np.int64),
            "LV": np.zeros(depth * K.N_LV, dtype=np.int64),
            "SOLP": np.zeros(keep * n, dtype=np.int64), "SOLR": np.zeros(keep * n, dtype=np.int64),
            "DEEPP": np.full(n, -1, dtype=np.int64), "DEEPR": np.zeros(n, dtype=np.int64),
            "PINS": np.array(pinned or [], dtype=np.int64).reshape(-1),
        })
        size = K.X_DATA + sum(len(tables[name]) for name in K.TABLES)
        X = np.zeros(size, dtype=np.int64)
        at = K.X_DATA
        self.at: dict[str, int] = {}
        for name in K.TABLES:
            a = tables[name]
            X[getattr(K, "H_" + name)] = at
            X[at:at + len(a)] = a
            self.at[name] = at
            at += len(a)
        X[K.H_NUNI] = n_uni
        X[K.H_NFIXED] = len(tables["FIXED"]) // 3
        X[K.H_NPINS] = len(tables["PINS"]) // 3
        X[K.H_NSOL] = keep
        X[K.H_BRSN] = 2
        X[K.H_BPRE] = 2 + n
        X[K.H_BLVX] = 2 + n + n_pairs
        for key, col in (("contradiction", K.CF_CONTRA), ("instantiation", K.CF_INST), ("preemption", K.CF_PRE),
                         ("edge_bound", K.CF_EDGE), ("frame_cycle", K.CF_CYCLE), ("shaving", K.CF_SHAVE),
                         ("backjumping", K.CF_BJ), ("patterns", K.CF_PAT), ("opposite_pairs", K.CF_OPP)):
            X[col] = int(bool(settings[key]))
        X[K.CF_HEUR] = HEURISTICS.index(settings["heuristic"])
        X[K.CF_EXACT] = int(plan.exact)
        X[K.CF_NOHOLES] = int(plan.no_holes)
        X[K.CF_C] = plan.C
        X[K.CF_W] = plan.W
        X[K.CF_NFREE] = plan.n_free
        X[K.CF_RING] = plan.ring
        X[K.CF_STOP] = stop_at
        X[K.CF_KEEP] = keep
        X[K.CF_COL] = int((settings["edge_bound"] or settings["frame_cycle"]) and plan.exact and plan.no_holes)
        self.X = X
        self.CS, self.PT, self.PC = plan.CS.copy(), plan.PT.copy(), plan.PC.copy()
        self.B = np.zeros((2 + n + n_pairs + depth, plan.W), dtype=np.int64)
        self.n = n
        if pinned is None:  # the pinned piece fits no cell it may take: nothing to search
            X[K.ST_DONE] = 1
        else:
            K.setup(self.CS, self.PT, self.PC, self.X, self.B)
            self._note_deepest()

    def _note_deepest(self) -> None:
        """What the root placed counts as the deepest fill so far."""
        K, X = self.K, self.X
        if X[K.ST_NFILLED] > X[K.ST_DEEPEST]:
            X[K.ST_DEEPEST] = X[K.ST_NFILLED]
            X[self.at["DEEPP"]:self.at["DEEPP"] + self.n] = self.CS[:, K.C_PIECE]
            X[self.at["DEEPR"]:self.at["DEEPR"] + self.n] = self.CS[:, K.C_ROT]

    def step(self, budget: int) -> None:
        if not self.done:
            self.K.run(budget, self.CS, self.PT, self.PC, self.X, self.B)

    def set_stop(self, stop_at: int) -> None:
        self.X[self.K.CF_STOP] = stop_at

    @property
    def done(self) -> bool:
        return bool(self.X[self.K.ST_DONE])

    @property
    def nodes(self) -> int:
        return int(self.X[self.K.ST_NODES])

    @property
    def solutions(self) -> int:
        return int(self.X[self.K.ST_SOLS])

    @property
    def deepest(self) -> int:
        """The most free cells this search has had filled at once."""
        return int(self.X[self.K.ST_DEEPEST])

    def stats(self) -> dict[str, int]:
        s = self.X[self.K.SS_FAIL_CONTRA:self.K.SS_FAIL_CONTRA + len(STAT_NAMES)]
        return {name: int(s[i]) for i, name in enumerate(STAT_NAMES)}

    def board(self, k: int = 0) -> Board:
        """Kept solution ``k`` as a board of the sub-problem."""
        a, n = self.at, self.n
        return self._board(self.X[a["SOLP"] + k * n:a["SOLP"] + (k + 1) * n],
                           self.X[a["SOLR"] + k * n:a["SOLR"] + (k + 1) * n])

    @property
    def kept(self) -> int:
        return min(self.solutions, int(self.X[self.K.H_NSOL]))

    def partial(self) -> Board | None:
        """The deepest partial fill (every edge between its pieces matched), or None."""
        if self.deepest == 0:
            return None
        a, n = self.at, self.n
        return self._board(self.X[a["DEEPP"]:a["DEEPP"] + n], self.X[a["DEEPR"]:a["DEEPR"] + n])

    def _board(self, piece: np.ndarray, rot: np.ndarray) -> Board:
        sp = self.plan.sp
        b = sp.fixed.copy()
        for c in sp.free:
            if piece[c] >= 0:
                b.place(int(c), int(piece[c]), int(rot[c]))
        return b


def settings_from(options: dict[str, Any], counting: bool = False) -> dict[str, Any]:
    """The search settings from backend options (InputError for a bad name or value; a count,
    one complete search, refuses the restarts' options)."""
    check_options("colorpair", options, _OPTIONS)
    idle = [k for k in ("restarts", "restart_nodes") if counting and k in options]
    if not counting and not option_bool("colorpair", options, "restarts", True) and "restart_nodes" in options:
        idle.append("restart_nodes")
    if idle:
        why = "a count is one complete search" if counting else "restarts=false turns the restarts off"
        raise InputError(f"option(s) {', '.join(idle)} of backend colorpair would have no effect: {why}")
    out: dict[str, Any] = {k: option_bool("colorpair", options, k, k not in OFF_BY_DEFAULT) for k in SWITCHES}
    h = options.get("heuristic", DEFAULT_HEURISTIC)
    if h not in HEURISTICS:
        raise InputError(f"unknown heuristic {h!r} for backend colorpair (choose from: {', '.join(HEURISTICS)})")
    out["heuristic"] = h
    out["slice_nodes"] = option_int("colorpair", options, "slice_nodes", SLICE_NODES, low=1)
    out["restarts"] = not counting and option_bool("colorpair", options, "restarts", True)
    out["restart_nodes"] = option_int("colorpair", options, "restart_nodes", RESTART_NODES, low=1)
    return out


def shuffled(plan: Plan, rng: np.random.Generator) -> Plan:
    """A copy of ``plan`` whose offers list their pieces in a random order (the order in which a
    cell's candidates are tried), drawn from ``rng``."""
    from . import _colorpair_kernel as K

    out = copy.copy(plan)
    out.tables = dict(plan.tables)
    oelem, omj = plan.tables["OELEM"].copy(), plan.tables["OMJ"].copy()
    PC = plan.PC.copy()
    for p in range(plan.n_pairs):
        a, n = int(plan.PT[p, K.P_OSTART]), int(plan.PT[p, K.P_OCAP])
        order = a + rng.permutation(n)
        oelem[a:a + n], omj[a:a + n] = oelem[order], omj[order]
        for i in range(a, a + n):
            PC[oelem[i], K.Q_L0 + omj[i]] = i
    out.tables["OELEM"], out.tables["OMJ"], out.PC = oelem, omj, PC
    return out


class _Ticker:
    """Progress lines: (solutions,) nodes, their rate, at most one every ``every`` seconds."""

    def __init__(self, emit: Callable[[str], None] | None, every: float = 0.5):
        self.out = Throttled(emit, every)
        self.t0 = time.monotonic()

    def __call__(self, nodes: int, solutions: int | None = None, deepest: int = 0, cells: int = 0,
                 run: int = 0) -> None:
        def line() -> str | None:
            if nodes <= 0:
                return None
            rate = nodes / max(time.monotonic() - self.t0, 1e-9)
            speed = f"{rate / 1e6:.2f} M nodes/s" if rate >= 1e5 else f"{count_text(int(rate))} nodes/s"
            return ((solutions_text(solutions) + ", " if solutions is not None else "")
                    + f"{count_text(int(nodes))} nodes, {speed}" + (f", run {run}" if run else "")
                    + (f", deepest {deepest}/{cells}" if deepest and cells else ""))

        self.out(line)


class ColorPairBackend(Backend):
    name = "colorpair"
    compiled = True
    options = _OPTIONS
    formulations = ("colorpair",)
    summary_log = True
    capabilities = frozenset({Capability.FEASIBILITY, Capability.ENUMERATION})
    install_hint = "pip install 'emc[fast]'"
    description = ("ColorPair constraint search of Benoist and Bourreau (feasibility, counting): offer/demand "
                   "filtering per colour pair, shaving, conflict-directed backjumping")

    @classmethod
    def available(cls) -> bool:
        return importlib.util.find_spec("numba") is not None

    @classmethod
    def version(cls) -> str | None:
        try:
            import numba

            return f"numba {numba.__version__}"
        except ImportError:
            return None

    def before_fork(self, sp: Subproblem) -> None:
        """The compiled kernel loaded here (see :meth:`Backend.before_fork`)."""
        if self.available() and sp.n_free:
            plan = Plan(sp)
            Search(plan, pins(sp)[0], settings_from({})).step(0)

    def check_option_values(self, goal: Goal, options: dict[str, Any]) -> None:
        settings_from(options)

    def _searches(self, sp: Subproblem, settings: dict, keep: int, stop_at: int) -> list[Search]:
        plan = Plan(sp, opposite=settings["opposite_pairs"])
        return [Search(plan, pinned, settings, keep=keep, stop_at=stop_at) for pinned in pins(sp)]

    def _run(self, searches: list[Search], settings: dict, deadline: float | None, stop_at: int,
             tick: Callable[[list[Search]], None], budget: int | None = None) -> bool:
        """Run the searches one after the other, in slices, until each is done, ``stop_at``
        solutions are found in all (0: never) or they have searched ``budget`` nodes (None: no
        limit). Returns whether it ended early (time limit or Ctrl-C)."""
        try:
            for s in searches:
                if stop_at:  # a search stops at the solutions the ones before it left to find
                    s.set_stop(stop_at - sum(x.solutions for x in searches))
                while not s.done:
                    if stop_at and sum(x.solutions for x in searches) >= stop_at:
                        return False
                    step = settings["slice_nodes"]
                    if budget is not None:
                        step = min(step, budget - sum(x.nodes for x in searches))
                        if step <= 0:
                            return False
                    s.step(step)
                    check_interrupt()
                    tick(searches)
                    if stop_at and sum(x.solutions for x in searches) >= stop_at:
                        return False
                    if deadline is not None and time.monotonic() >= deadline and not s.done:
                        return True
        except KeyboardInterrupt:
            return True
        return False

    @staticmethod
    def _stats(searches: list[Search], sp: Subproblem, elapsed: float) -> dict[str, Any]:
        nodes = sum(s.nodes for s in searches)
        out: dict[str, Any] = {"free_cells": sp.n_free, "nodes": nodes,
                               "nodes_per_second": int(nodes / elapsed) if elapsed > 0 else 0}
        for s in searches:
            for k, v in s.stats().items():
                out[k] = out.get(k, 0) + v
        out["searches"] = len(searches)
        return out

    def _solve(self, sp: Subproblem, formulation: str, time_limit: float | None, threads: int, seed: int,
               log_path: Path | None, hint: Board | None, on_improvement: Callable[[Board, int], None] | None,
               options: dict[str, Any]) -> Result:
        """The first solution. With restarts (the default), run ``i`` searches the trees of
        :func:`pins` with the candidates in an order drawn from ``(seed, i)``, for ``luby(i) *
        restart_nodes`` nodes in all; a run that finishes its trees without a solution proves
        there is none. Without, one search in the plan's order."""
        from .backtrack import luby

        settings = settings_from(options)
        t0 = time.monotonic()
        deadline = None if time_limit is None else t0 + time_limit
        deeper = DeeperFills(self.partial_sink, sp)
        ticker = _Ticker(self.progress)
        nodes_before = 0  # the nodes of the runs before the current one
        stats: dict[str, Any] = {}
        best: Search | None = None  # the search that filled the most cells at once
        status, board, _interrupted, runs = Status.UNKNOWN, None, False, 0
        try:
            plan = Plan(sp, opposite=settings["opposite_pairs"])
            for i in itertools.count(1):
                runs = i
                run_plan = shuffled(plan, np.random.default_rng([seed, i])) if settings["restarts"] else plan
                searches = [Search(run_plan, pinned, settings, keep=1, stop_at=1) for pinned in pins(sp)]
                budget = luby(i) * settings["restart_nodes"] if settings["restarts"] else None

                def tick(ss: list[Search]) -> None:
                    s = max(ss, key=lambda x: x.deepest)
                    ticker(nodes_before + sum(x.nodes for x in ss), deepest=s.deepest, cells=sp.n_free,
                           run=i if settings["restarts"] else 0)
                    if deeper.wants(s.deepest):
                        b = s.partial()
                        if b is not None:
                            deeper.offer(b)

                stopped = self._run(searches, settings, deadline, 1, tick, budget)
                for k, v in self._stats(searches, sp, 0).items():
                    if isinstance(v, int) and k not in ("free_cells", "nodes_per_second", "searches"):
                        stats[k] = stats.get(k, 0) + v
                nodes_before += sum(x.nodes for x in searches)
                deepest = max(searches, key=lambda x: x.deepest)
                if best is None or deepest.deepest > best.deepest:
                    best = deepest
                found = next((x for x in searches if x.solutions), None)
                if found is not None:
                    status, board = Status.OPTIMAL, found.board()
                    break
                if all(x.done for x in searches):
                    status = Status.INFEASIBLE
                    break
                if stopped:
                    break
        except KeyboardInterrupt:
            pass
        elapsed = time.monotonic() - t0
        stats.update({"free_cells": sp.n_free, "nodes": nodes_before,
                      "nodes_per_second": int(nodes_before / elapsed) if elapsed > 0 else 0})
        if settings["restarts"]:
            stats["runs"] = runs
        if board is not None:
            stats["deepest"] = sp.n_free
            if on_improvement is not None:
                on_improvement(board, sp.max_score)
            return Result(Status.OPTIMAL, board, sp.max_score, sp.max_score, stats=stats)
        if status is Status.INFEASIBLE:
            return Result(Status.INFEASIBLE, stats=stats)
        stats["deepest"] = best.deepest if best is not None else 0
        return Result(Status.UNKNOWN, stats=stats, interrupted=True, partial=best.partial() if best else None)

    def _count(self, sp: Subproblem, formulation: str, limit: int | None, time_limit: float | None, keep: int,
               options: dict[str, Any]) -> CountResult:
        settings = settings_from(options, counting=True)
        t0 = time.monotonic()
        deadline = None if time_limit is None else t0 + time_limit
        stop_at = 0 if limit is None else int(limit)
        ticker = _Ticker(self.progress)
        try:
            searches = self._searches(sp, settings, keep=max(keep, 1), stop_at=stop_at)
        except KeyboardInterrupt:
            return CountResult(0, False, stats={"nodes": 0})

        def tick(ss: list[Search]) -> None:
            ticker(sum(x.nodes for x in ss), solutions=sum(x.solutions for x in ss))

        self._run(searches, settings, deadline, stop_at, tick)
        count = sum(s.solutions for s in searches)
        complete = all(s.done for s in searches)
        boards: list[Board] = []
        for s in searches:
            for k in range(min(s.kept, keep - len(boards))):
                boards.append(s.board(k))
        stats = self._stats(searches, sp, time.monotonic() - t0)
        return CountResult(count, complete, boards=boards[:keep], stats=stats)
