"""Backend ``clique``: the maximum-clique formulation of Salassa et al. (seed 000, section 2.2).

The sub-problem becomes the compatibility graph of :mod:`emc.encoders.clique` (a vertex per
placement, an edge between placements that can coexist); a clique with one vertex per free
cell is a perfect filling. Methods (option ``method``):

``exact`` (default for feasibility and for counting)
    A compiled exact search (:mod:`emc.backends._clique_search`). For feasibility and
    counting it looks for cliques that cover every free cell (and every piece, when all
    must be used), branching on the cell or piece with the fewest candidates left: it
    finds a solution, counts them all, or proves there is none. For optimisation it is a
    branch and bound for a maximum clique with greedy colouring bounds.
``heuristic`` (default for optimisation on graphs of more than 400 vertices)
    A compiled local search for large cliques (add and swap moves, a short prohibition of
    the vertex just dropped, vertex penalties, random perturbations), in the spirit of the
    heuristic of Grosso, Locatelli and Pullan (2008) that the paper used. It never proves
    anything; a full clique is still a proven-perfect answer.

Optimisation follows the paper's region neighbourhood (RO): the clique search ignores
unmatched edges, so the largest clique found is a partial board with holes, and the holes
are then filled with the remaining pieces by another backend that optimises (option
``complete_with``: a backend name, or ``auto`` = the first available of cpsat, highs,
cbc). With ``complete_with="assignment"`` (also the fallback when none of those is
installed) each hole gets the remaining piece and rotation that matches the most edges
with its filled neighbours, by an optimal assignment (scipy) that ignores edges between two
holes. A full clique gives status OPTIMAL (every counted edge matched); otherwise the
result is FEASIBLE, and when the exact search proved that no full clique exists the bound
is ``max_score - 1``. With a time limit, the clique search gets 80% of it and the filling
the rest.

An external DIMACS solver can be used instead (option ``binary``): emc writes the graph
(``binary_format``: ``clq`` or ``conflict`` for independent-set solvers) to a temporary
file, runs ``binary`` with ``binary_args`` (a list or a string; ``{file}`` is replaced by the
graph's path, otherwise the path is appended), and reads the clique from its standard
output in one of these forms:

* lines starting with ``v`` (as SAT solvers print): every integer on them is a vertex,
  a trailing 0 is ignored; or
* otherwise, the last line made only of integers, optionally after a label ending in
  ``:`` (``Maximum clique: 3 17 42``).

Vertex numbers are 1-based (option ``binary_base=0`` for 0-based output). Lines starting
with ``c`` or ``s`` are ignored. The answer is checked to be a clique. Without
``binary_exact=True`` a non-full clique from an external solver proves nothing.

Other options: ``max_steps`` (local-search moves without a time limit, default 20
million), ``tabu`` (iterations a dropped vertex stays out, default 7), ``max_plateau``
(moves without improvement before a perturbation, default 2000), ``penalty_delay``
(default 2).
"""

from __future__ import annotations

import importlib.util
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import InputError, SolverUnavailableError, UnknownNameError
from ..model import BORDER, Board, Goal, Subproblem
from .base import Backend, BackendError, Capability, CountResult, Result, Status, check_options, count_text, option_bool, option_int, solutions_text
from ..runtime import Throttled

METHODS = ("exact", "heuristic")
COMPLETERS = ("cpsat", "highs", "cbc")
_OPTIONS = {"method", "complete_with", "binary", "binary_args", "binary_format", "binary_base", "binary_exact",
            "max_steps", "tabu", "max_plateau", "penalty_delay"}
#: Share of an optimisation time limit kept for filling the holes the clique leaves.
COMPLETION_SHARE = 0.2
#: Graphs up to this many vertices get the exact search by default, also when optimising.
SMALL_GRAPH = 400
#: Seconds a compiled kernel call should take: short enough to react to the clock and Ctrl-C.
_SLICE = 0.1


class _Clock:
    def __init__(self, time_limit: float | None):
        self.t0 = time.perf_counter()
        self.limit = time_limit

    def left(self) -> float | None:
        return None if self.limit is None else self.limit - (time.perf_counter() - self.t0)

    def over(self) -> bool:
        left = self.left()
        return left is not None and left <= 0


def _adapt(budget: int, took: float) -> int:
    """Next kernel budget so that a call takes about ``_SLICE`` seconds."""
    if took < _SLICE / 4:
        return min(budget * 2, 1 << 40)
    if took > _SLICE * 2:
        return max(budget // 2, 64)
    return budget


# ------------------------------------------------------------------ graph data
class GraphTooSlow(Exception):
    """The time limit ran out while the graph's arrays were being built."""


def _stopper(clock: "_Clock | None", report: Callable[[str], None] | None, what: str,
             n: int) -> Callable[[float], None]:
    """Called with the share done between blocks of a build: reports progress and raises
    :class:`GraphTooSlow` once ``clock`` is over."""
    tick = Throttled(report)
    started = time.perf_counter()

    def stop(done: float) -> None:
        if clock is not None and clock.over():
            raise GraphTooSlow(f"the time limit ran out while building the {what} of the "
                               f"{n:,}-vertex graph ({100 * done:.0f} % built)")
        if time.perf_counter() - started > 1.0:  # only builds long enough to wonder about
            tick(lambda: f"building the {what} of the {n:,}-vertex graph: {100 * done:.0f} %")

    return stop


def _memory_available() -> int | None:
    """Bytes of memory available now (Linux), or None when unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _check_memory(need: int, what: str, advice: str) -> None:
    """BackendError when ``need`` bytes (``what`` they hold) exceed 60 % of the memory available."""
    have = _memory_available()
    if have is not None and need > 0.6 * have:
        raise BackendError(f"the clique graph is too large for this machine: {what} need {need / 2**30:.1f} GiB, "
                           f"{have / 2**30:.1f} GiB is available; {advice}")


class CliqueGraph:
    """The compiled arrays the kernels need, built once per sub-problem."""

    def __init__(self, sp: Subproblem):
        from ..encoders.clique import CliqueEncoding

        self.enc = CliqueEncoding(sp)
        self.sp = sp
        self.n = self.enc.n_vertices
        self._adj: np.ndarray | None = None
        self._csr: tuple[np.ndarray, np.ndarray] | None = None

    def adj_bitsets(self, clock: "_Clock | None" = None, report: Callable[[str], None] | None = None) -> np.ndarray:
        """Adjacency bitsets (``(N, ceil(N / 64))`` uint64), built once; stops with
        :class:`GraphTooSlow` when ``clock`` runs out first."""
        if self._adj is None:
            _check_memory(self.n * max(1, (self.n + 63) // 64) * 8,
                          f"the exact search's adjacency bitsets of {self.n:,} vertices",
                          "try -O method=heuristic, a smaller region or another backend")
            self._adj = self.enc.adjacency_bitsets(stop=_stopper(clock, report, "adjacency bitsets", self.n))
        return self._adj

    @property
    def adj(self) -> np.ndarray:
        return self.adj_bitsets()

    def conflict_csr(self, clock: "_Clock | None" = None,
                     report: Callable[[str], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """For each vertex, the sorted vertices it conflicts with (CSR: ``ptr``, ``idx``).

        Built by a compiled kernel that visits only the vertices of the same cell, of the
        neighbouring cells and of the same piece, so the time grows with the number of
        conflicts rather than with all pairs. Stops with :class:`GraphTooSlow` when ``clock``
        runs out first, and refuses (BackendError) lists that would not fit in memory.
        """
        if self._csr is None:
            from ._clique_search import conflict_rows

            enc, n = self.enc, self.n
            P = self.sp.puzzle
            cell = enc.cell.astype(np.int64)
            if n and np.any(np.diff(cell) < 0):  # the placements promise this order
                raise BackendError("clique graph: vertices are not sorted by cell")
            cell_start = np.searchsorted(cell, np.arange(P.n_cells + 1)).astype(np.int64)
            piece = enc.piece.astype(np.int64)
            piece_vtx = np.argsort(piece, kind="stable").astype(np.int64)
            piece_ptr = np.zeros(P.n_pieces + 1, dtype=np.int64)
            np.cumsum(np.bincount(piece, minlength=P.n_pieces), out=piece_ptr[1:])
            shown = enc.shown.astype(np.int64)
            nbcell = enc.nbcell.astype(np.int64)
            ptr = np.zeros(n + 1, dtype=np.int64)
            stop = _stopper(clock, report, "conflict lists", n)
            step = 1 << 13
            args = (piece, cell, shown, nbcell, cell_start, piece_ptr, piece_vtx, BORDER)
            for a in range(0, n, step):
                conflict_rows(*args, a, min(n, a + step), ptr, np.zeros(0, np.int32), False)
                stop(a / n / 4)
            np.cumsum(ptr, out=ptr)
            total = int(ptr[-1])
            _check_memory(total * 4, f"{n:,} vertices with {total:,} conflicts",
                          "solve a smaller region or use another backend")
            idx = np.empty(total, dtype=np.int32)
            for a in range(0, n, step):
                conflict_rows(*args, a, min(n, a + step), ptr, idx, True)
                stop(0.25 + 0.75 * a / n)
            self._csr = (ptr, idx)
        return self._csr

    def classes(self, with_pieces: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """Partition classes as (word index, mask) lists: the free cells, then (optionally)
        the pieces. Returns ``cw_ptr, cw_idx, cw_mask, cls_of, n_cell_classes``."""
        enc = self.enc
        cells = np.unique(enc.cell)
        cell_class = np.searchsorted(cells, enc.cell)
        members = [np.flatnonzero(cell_class == i) for i in range(len(cells))]
        cls_of = np.full((self.n, 2), -1, dtype=np.int64)
        cls_of[:, 0] = cell_class
        if with_pieces:
            pieces = np.unique(enc.piece)
            piece_class = np.searchsorted(pieces, enc.piece)
            cls_of[:, 1] = len(cells) + piece_class
            members += [np.flatnonzero(piece_class == i) for i in range(len(pieces))]
        ptr = [0]
        idx: list[int] = []
        mask: list[int] = []
        for mem in members:
            words = mem // 64
            for w in np.unique(words):
                bits = mem[words == w] % 64
                idx.append(int(w))
                mask.append(int(np.bitwise_or.reduce(np.left_shift(np.uint64(1), bits.astype(np.uint64)))))
            ptr.append(len(idx))
        return (np.array(ptr, dtype=np.int64), np.array(idx, dtype=np.int64),
                np.array(mask, dtype=np.uint64), cls_of, len(cells))

    def board(self, vertices: np.ndarray | list[int]) -> Board:
        """Board of a clique given as 0-based vertices."""
        return self.enc.decode([int(v) + 1 for v in vertices])


# ------------------------------------------------------------ search drivers
class CoverSearch:
    """Driver of :func:`cover_run`: cliques covering every free cell (and piece)."""

    def __init__(self, g: CliqueGraph, keep: int = 1):
        from . import _clique_search as ks

        self.ks = ks
        self.g = g
        sp = g.sp
        with_pieces = sp.exact_cover
        self.cw_ptr, self.cw_idx, self.cw_mask, self.cls_of, n_cell_classes = g.classes(with_pieces)
        n_classes = len(self.cw_ptr) - 1
        self.k = sp.n_free
        # a free cell without any placement: no full clique at all
        self.impossible = n_cell_classes < self.k
        D = self.k + 1
        W = g.adj.shape[1] if g.n else 1
        maxcls = int(max(np.diff(self.cw_ptr).max(initial=1) * 64, 64))
        self.st = np.zeros(4, dtype=np.int64)
        self.P = np.zeros((D, W), dtype=np.uint64)
        self.br = np.zeros((D, maxcls), dtype=np.int64)
        self.brn = np.zeros(D, dtype=np.int64)
        self.brpos = np.zeros(D, dtype=np.int64)
        self.chosen = np.zeros(D, dtype=np.int64)
        self.covered = np.zeros(n_classes, dtype=np.bool_)
        self.sols = np.zeros((max(keep, 1), max(self.k, 1)), dtype=np.int64)
        self.done = False

    @property
    def count(self) -> int:
        return int(self.st[2])

    @property
    def nodes(self) -> int:
        return int(self.st[3])

    def run(self, clock: _Clock, stop_after: int, report: Callable[[], None] | None = None) -> int:
        """Search until done, ``stop_after`` solutions (0: all) or the clock runs out;
        ``report()`` after each slice of the kernel (about every 0.1 s)."""
        ks = self.ks
        if self.impossible or self.g.n == 0:
            self.done = True
            return ks.DONE
        budget = 256
        while True:
            t = time.perf_counter()
            code = ks.cover_run(self.g.adj, self.cw_ptr, self.cw_idx, self.cw_mask, self.cls_of, self.k, self.st,
                                self.P, self.br, self.brn, self.brpos, self.chosen, self.covered, budget,
                                stop_after, self.sols)
            if report is not None:
                report()
            if code == ks.DONE:
                self.done = True
                return code
            if code == ks.STOPPED:
                return code
            if clock.over():
                return code
            budget = _adapt(budget, time.perf_counter() - t)


class MaxCliqueSearch:
    """Driver of :func:`maxclique_run`: a maximum clique, proven when ``done``.

    Args:
        adj: ``(N, W)`` adjacency bitsets of any graph.
        target: stop at the first clique this large (0: search to the end).
        depth_bound: a known upper bound on the clique size (sizes the work arrays).
    """

    def __init__(self, adj: np.ndarray, target: int = 0, depth_bound: int | None = None):
        from . import _clique_search as ks

        self.ks = ks
        n = adj.shape[0]
        # Vertices in order of non-increasing degree: the colouring then puts the most
        # connected vertices in the first colour classes (the usual initial order).
        deg = np.unpackbits(adj.view(np.uint8), axis=1).sum(axis=1) if n else np.zeros(0, int)
        self.order = np.argsort(-deg, kind="stable")
        self.adj = _permute_bitsets(adj, self.order) if n else adj
        ub = int(deg.max(initial=0)) + 1
        if depth_bound is not None:
            ub = min(ub, int(depth_bound))
        D = min(ub, n) + 2
        W = self.adj.shape[1] if n else 1
        self.target = target
        self.n = n
        self.st = np.zeros(4, dtype=np.int64)
        self.P = np.zeros((D, W), dtype=np.uint64)
        self.cv = np.zeros((D, max(n, 1)), dtype=np.int64)
        self.cc = np.zeros((D, max(n, 1)), dtype=np.int64)
        self.pos = np.zeros(D, dtype=np.int64)
        self.chosen = np.zeros(D, dtype=np.int64)
        self.best = np.zeros(D, dtype=np.int64)
        self.U = np.zeros(W, dtype=np.uint64)
        self.Q = np.zeros(W, dtype=np.uint64)
        self.done = False

    def seed_with(self, clique: np.ndarray) -> None:
        """Start from a known clique (0-based, original numbering): only larger ones are sought."""
        if len(clique) > self.st[2]:
            inv = np.empty(self.n, dtype=np.int64)
            inv[self.order] = np.arange(self.n)
            self.st[2] = len(clique)
            self.best[:len(clique)] = inv[np.asarray(clique, dtype=np.int64)]

    @property
    def size(self) -> int:
        return int(self.st[2])

    @property
    def nodes(self) -> int:
        return int(self.st[3])

    def clique(self) -> np.ndarray:
        return np.sort(self.order[self.best[:self.size]])

    def run(self, clock: _Clock, report: Callable[[], None] | None = None) -> int:
        ks = self.ks
        if self.n == 0:
            self.done = True
            return ks.DONE
        budget = 256
        while True:
            t = time.perf_counter()
            code = ks.maxclique_run(self.adj, self.target, self.st, self.P, self.cv, self.cc, self.pos, self.chosen,
                                    self.best, self.U, self.Q, budget)
            if report is not None:
                report()
            if code == ks.DONE:
                self.done = True
                return code
            if code == ks.STOPPED or clock.over():
                return code
            budget = _adapt(budget, time.perf_counter() - t)


class LocalSearch:
    """Driver of :func:`local_search_run` on the sparse conflict graph."""

    def __init__(self, conflicts: tuple[np.ndarray, np.ndarray], target: int, seed: int, tabu: int = 7,
                 max_plateau: int = 2000, penalty_delay: int = 2):
        from . import _clique_search as ks

        self.ks = ks
        self.cptr, self.cidx = conflicts
        n = len(self.cptr) - 1
        self.n = n
        self.target = target
        self.params = (int(tabu), int(max_plateau), max(1, int(penalty_delay)))
        self.st = np.zeros(5, dtype=np.int64)
        m = max(n, 1)
        self.in_c = np.zeros(m, dtype=np.bool_)
        self.miss = np.zeros(m, dtype=np.int64)
        self.clist = np.zeros(m, dtype=np.int64)
        self.cwhere = np.full(m, -1, dtype=np.int64)
        self.s0 = np.zeros(m, dtype=np.int64)
        self.s0w = np.full(m, -1, dtype=np.int64)
        self.s1 = np.zeros(m, dtype=np.int64)
        self.s1w = np.full(m, -1, dtype=np.int64)
        self.sizes = np.zeros(3, dtype=np.int64)
        self.penalty = np.zeros(m, dtype=np.int64)
        self.tabu = np.zeros(m, dtype=np.int64)
        self.best = np.zeros(m, dtype=np.int64)
        ks.seed_rng(int(seed) & 0x7FFFFFFF)
        if n:
            ks.ls_init(n, self.in_c, self.miss, self.clist, self.cwhere, self.s0, self.s0w, self.s1, self.s1w,
                       self.sizes)

    def start_from(self, clique: np.ndarray) -> None:
        """Put the vertices of a known clique in first (a warm start)."""
        for v in clique:
            self.ks.ls_force(int(v), self.cptr, self.cidx, self.in_c, self.miss, self.clist, self.cwhere, self.s0,
                             self.s0w, self.s1, self.s1w, self.sizes)
        if self.sizes[0] > self.st[1]:
            self.st[1] = self.sizes[0]
            self.best[:self.sizes[0]] = self.clist[:self.sizes[0]]

    @property
    def size(self) -> int:
        return int(self.st[1])

    @property
    def steps(self) -> int:
        return int(self.st[0])

    def clique(self) -> np.ndarray:
        return np.sort(self.best[:self.size])

    def run(self, clock: _Clock, max_steps: int | None, report: Callable[[], None] | None = None) -> int:
        """Search until the target size, ``max_steps`` moves (None: no cap) or the clock."""
        ks = self.ks
        if self.n == 0 or self.size >= self.target:
            return ks.STOPPED
        budget = 1024
        while max_steps is None or self.steps < max_steps:
            if max_steps is not None:
                budget = max(1, min(budget, max_steps - self.steps))
            t = time.perf_counter()
            tabu, plateau, delay = self.params
            code = ks.local_search_run(self.cptr, self.cidx, self.target, self.st, self.in_c, self.miss, self.clist,
                                       self.cwhere, self.s0, self.s0w, self.s1, self.s1w, self.sizes, self.penalty,
                                       self.tabu, self.best, budget, tabu, plateau, delay)
            if report is not None:
                report()
            if code == ks.STOPPED or clock.over():
                return code
            budget = _adapt(budget, time.perf_counter() - t)
        return ks.BUDGET


def bitsets_from_matrix(A: np.ndarray) -> np.ndarray:
    """Adjacency bitsets of a symmetric boolean matrix (the diagonal is ignored)."""
    A = np.asarray(A, dtype=bool).copy()
    n = A.shape[0]
    np.fill_diagonal(A, False)
    W = max(1, (n + 63) // 64)
    packed = np.packbits(A, axis=1, bitorder="little") if n else np.zeros((0, 0), np.uint8)
    packed = np.pad(packed, ((0, 0), (0, W * 8 - packed.shape[1])))
    return np.ascontiguousarray(packed).view(np.uint64).reshape(n, W)


def conflicts_from_matrix(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR lists of non-neighbours of a symmetric boolean adjacency matrix."""
    A = np.asarray(A, dtype=bool)
    bad = ~A
    np.fill_diagonal(bad, False)
    r, c = np.nonzero(bad)
    ptr = np.zeros(A.shape[0] + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(np.bincount(r, minlength=A.shape[0]))
    return ptr, c.astype(np.int64)


def max_clique(A: np.ndarray, time_limit: float | None = None) -> tuple[np.ndarray, bool]:
    """Maximum clique of any graph given by a symmetric boolean matrix, with the compiled
    branch and bound. Returns ``(vertices, proven)``; ``proven`` is false after a timeout."""
    ms = MaxCliqueSearch(bitsets_from_matrix(A))
    try:
        ms.run(_Clock(time_limit))
    except KeyboardInterrupt:
        pass
    return ms.clique(), ms.done


def heuristic_clique(A: np.ndarray, target: int, seed: int = 0, max_steps: int = 1_000_000) -> np.ndarray:
    """A large clique of any graph (symmetric boolean matrix) by the compiled local search,
    stopping at ``target`` vertices or after ``max_steps`` moves."""
    ls = LocalSearch(conflicts_from_matrix(A), target, seed)
    ls.run(_Clock(None), max_steps)
    return ls.clique()


def _permute_bitsets(adj: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Adjacency bitsets with vertex ``order[i]`` renamed ``i``."""
    n, W = adj.shape
    out = np.zeros_like(adj)
    step = max(1, (1 << 22) // max(n, 1))
    for a in range(0, n, step):
        rows = order[a:a + step]
        bits = np.unpackbits(adj[rows].view(np.uint8), axis=1, bitorder="little")[:, :n]
        bits = bits[:, order]
        packed = np.packbits(bits, axis=1, bitorder="little")
        pad = W * 8 - packed.shape[1]
        if pad:
            packed = np.pad(packed, ((0, 0), (0, pad)))
        out[a:a + len(rows)] = np.ascontiguousarray(packed).view(np.uint64)
    return out


# -------------------------------------------------------------- output parsing
def parse_clique_output(text: str, base: int = 1) -> list[int]:
    """Vertex numbers (1-based) of a clique printed by an external solver.

    Accepted: ``v`` lines (all their integers, a trailing 0 dropped), or else the last line
    made only of integers, optionally after a label ending in ``:``. ``c`` and ``s`` lines
    are ignored. ``base`` is the numbering the solver prints (1 or 0).

    Raises:
        InputError: nothing that looks like a clique in the output.
    """
    vlines: list[int] = []
    last: list[int] | None = None
    for raw in text.splitlines():
        t = raw.split()
        if not t or t[0] in ("c", "s"):
            continue
        if t[0] == "v":
            try:
                vlines += [int(x) for x in t[1:]]
            except ValueError:
                raise InputError(f"solver output line {raw!r} is not a list of vertices") from None
            continue
        if t[0].endswith(":"):
            t = t[1:]
        else:
            for i, tok in enumerate(t):  # "Maximum clique: 1 2 3" split as "clique:" "1" ...
                if tok.endswith(":"):
                    t = t[i + 1:]
                    break
        if t and all(x.lstrip("-").isdigit() for x in t):
            last = [int(x) for x in t]
    if vlines:
        if vlines and vlines[-1] == 0 and base == 1:
            vlines = vlines[:-1]
        found = vlines
    elif last is not None:
        found = last
    else:
        raise InputError("no clique in the solver's output (expected 'v' lines or a line of vertex numbers)")
    return [x + (1 - base) for x in found]


# ------------------------------------------------------------------- backend
class CliqueBackend(Backend):
    name = "clique"
    compiled = True
    priority = {"feasibility": 70, "optimisation": 60, "region optimisation": 60, "enumeration": 50}
    options = frozenset(_OPTIONS)
    formulations = ("clique",)
    summary_log = True
    capabilities = frozenset({Capability.FEASIBILITY, Capability.OPTIMISATION, Capability.ENUMERATION})
    install_hint = "pip install 'emc[fast]'"
    solver_modules = ("numba", "networkx", "emc.encoders.clique", "emc.backends._clique_search")
    description = "max-clique formulation (Salassa et al.): compiled exact search or local search, holes filled by another backend"
    exact_optimisation = False  # a maximum clique ignores unmatched edges: the filled board is not proven best

    @classmethod
    def available(cls) -> bool:
        return importlib.util.find_spec("numba") is not None

    def check_option_values(self, goal: Goal, options: dict[str, Any]) -> None:
        method = options.get("method")
        if method is not None and method not in METHODS:
            raise InputError(f"clique method must be one of {', '.join(METHODS)}, not {method!r}")
        choice = options.get("complete_with", "auto")
        if not isinstance(choice, str):
            raise InputError(f"complete_with is a backend name, auto or assignment, not {choice!r}")
        if choice not in ("auto", "assignment"):
            from . import BACKENDS

            if choice == self.name:
                raise InputError("complete_with cannot be the clique backend itself")
            if choice not in BACKENDS:
                raise UnknownNameError("backend for complete_with", str(choice), ["auto", "assignment", *BACKENDS])
        for key, low in (("max_steps", 1), ("tabu", 0), ("max_plateau", 1), ("penalty_delay", 1), ("binary_base", 0)):
            option_int(self.name, options, key, None, low)
        if "binary_exact" in options:
            option_bool(self.name, options, "binary_exact", False)
        fmt = options.get("binary_format", "clq")
        if fmt not in ("clq", "conflict"):
            raise InputError(f"binary_format must be clq or conflict, not {fmt!r}")
        binary = options.get("binary")
        if binary is not None and shutil.which(str(binary)) is None:
            raise SolverUnavailableError(f"clique solver binary {binary!r} not found (or not executable)")

    @classmethod
    def version(cls) -> str | None:
        if not cls.available():
            return None
        import numba

        return f"numba {numba.__version__}"

    # --------------------------------------------------------------- solve
    def _solve(self, sp: Subproblem, formulation: str, time_limit: float | None, threads: int, seed: int,
               log_path: Path | None, hint: Board | None, on_improvement: Callable[[Board, int], None] | None,
               options: dict[str, Any]) -> Result:
        check_options(self.name, options, _OPTIONS)
        feas = sp.goal is Goal.FEASIBILITY
        total = _Clock(time_limit)
        # Optimisation keeps a share of the time for filling the holes afterwards.
        clock = _Clock(time_limit if feas or time_limit is None else time_limit * (1 - COMPLETION_SHARE))
        g = CliqueGraph(sp)
        # Small graphs: the exact search is instant and proves its answer; large ones get the
        # local search, which is what the paper's RO neighbourhood used.
        method = options.get("method") or ("exact" if feas or g.n <= SMALL_GRAPH else "heuristic")
        stats: dict[str, Any] = {"vertices": g.n, "target": sp.n_free, "method": method}
        if sp.n_free == 0:
            return Result(Status.OPTIMAL, sp.fixed.copy(), stats=stats)
        interrupted = False
        proven_max = False  # the clique found is proven maximum
        tick = Throttled(self.progress)
        clique = np.zeros(0, dtype=np.int64)
        try:
            if options.get("binary"):
                clique, proven_max = self._external(g, clock, options, stats)
                stats["method"] = "binary"
            elif method == "exact" and feas:
                g.adj_bitsets(clock, self.progress)
                cs = CoverSearch(g)
                cs.run(clock, stop_after=1, report=lambda: tick(lambda: f"{count_text(cs.nodes)} nodes"))
                stats["nodes"] = cs.nodes
                if cs.count:
                    clique = cs.sols[0, :cs.k].copy()
                proven_max = cs.done
                if cs.done and not cs.count:
                    stats["proof"] = "no clique covers every free cell"
            elif method == "exact":
                n_cells = len(np.unique(g.enc.cell))  # a clique has at most one vertex per cell
                ms = MaxCliqueSearch(g.adj_bitsets(clock, self.progress), sp.n_free, depth_bound=n_cells)
                hint_clique = self._hint_clique(g, hint)
                if len(hint_clique):
                    ms.seed_with(hint_clique)
                ms.run(clock, report=lambda: tick(
                    lambda: f"{count_text(ms.nodes)} nodes, largest clique {ms.size} (a full board: {sp.n_free})"))
                stats["nodes"] = ms.nodes
                clique = ms.clique()
                proven_max = ms.done
            else:
                ls = LocalSearch(g.conflict_csr(clock, self.progress), sp.n_free, seed, int(options.get("tabu", 7)),
                                 int(options.get("max_plateau", 2000)), int(options.get("penalty_delay", 2)))
                ls.start_from(self._hint_clique(g, hint))
                steps = options.get("max_steps")
                if steps is None and time_limit is None:
                    steps = 20_000_000
                ls.run(clock, None if steps is None else int(steps), report=lambda: tick(
                    lambda: f"{count_text(ls.steps)} moves, largest clique {ls.size} (a full board: {sp.n_free})"))
                stats["steps"] = ls.steps
                stats["restarts"] = int(ls.st[3])
                clique = ls.clique()
        except KeyboardInterrupt:
            interrupted = True
            clique = self._salvage(locals())
        except GraphTooSlow as e:
            stats["stopped"] = str(e)
            return Result(Status.UNKNOWN, stats=stats, interrupted=True)
        stats["clique_size"] = int(len(clique))
        stats["clique_proven_maximum"] = bool(proven_max)
        full = len(clique) == sp.n_free
        if full:
            stats["clique_proven_maximum"] = True  # no clique has more vertices than free cells
            board = g.board(clique)
            if on_improvement:
                on_improvement(board, sp.max_score)
            return Result(Status.OPTIMAL, board, bound=sp.max_score, stats=stats, interrupted=interrupted)
        if feas:
            status = Status.INFEASIBLE if proven_max and not interrupted else Status.UNKNOWN
            return Result(status, stats=stats, interrupted=interrupted or clock.over())
        # Optimisation: fill the holes of the partial board.
        partial = g.board(clique)
        bound = sp.max_score - 1 if proven_max else None
        # After Ctrl-C only the instant assignment fills the holes: a backend given what is left of
        # the time (all of it without a limit) would carry on the run the user stopped.
        board, how = self._complete(sp, partial, total, options, seed, instant=interrupted)
        stats["completed_with"] = how
        if board is None:
            stats["completion_failed"] = "no way to fit the remaining pieces into the holes"
            return Result(Status.UNKNOWN, stats=stats, bound=bound, interrupted=interrupted or clock.over())
        if on_improvement:
            on_improvement(board, sp.score(board))
        return Result(Status.FEASIBLE, board, bound=bound, stats=stats, interrupted=interrupted or clock.over())

    @staticmethod
    def _salvage(frame: dict) -> np.ndarray:
        """Best clique of whichever search was running when Ctrl-C arrived."""
        for name in ("cs", "ms", "ls"):
            s = frame.get(name)
            if s is None:
                continue
            if name == "cs":
                return s.sols[0, :s.k].copy() if s.count else np.zeros(0, dtype=np.int64)
            return s.clique()
        return np.zeros(0, dtype=np.int64)

    @staticmethod
    def _hint_clique(g: CliqueGraph, hint: Board | None) -> np.ndarray:
        """The placements of a hint board that are vertices, kept greedily while they form a clique."""
        if hint is None or g.n == 0:
            return np.zeros(0, dtype=np.int64)
        cand = g.enc.vertices_of(hint)
        # the conflict lists, not the adjacency bitsets: on a large window those take seconds
        ptr, idx = g.conflict_csr()
        kept = np.zeros(g.n, dtype=bool)
        for v in cand:
            if not kept[idx[ptr[v]:ptr[v + 1]]].any():
                kept[v] = True
        return np.array([int(v) for v in cand if kept[v]], dtype=np.int64)

    # ------------------------------------------------------------ completion
    def _complete(self, sp: Subproblem, partial: Board, clock: _Clock, options: dict, seed: int,
                  instant: bool = False) -> tuple[Board | None, str]:
        """Fill the free cells the clique left empty, optimising the matched edges (``instant``:
        with the assignment alone, calling no backend)."""
        holes = sp.free[partial.piece[sp.free] < 0]
        if not len(holes):
            return partial, "nothing to fill"
        used = set(int(p) for p in partial.piece[sp.free] if p >= 0)
        rest = np.array([p for p in sp.pieces if int(p) not in used], dtype=np.int64)
        sub = Subproblem(sp.puzzle, partial, holes, rest, Goal.OPTIMISATION)
        choice = "assignment" if instant else options.get("complete_with", "auto")
        from . import BACKENDS, backend_class, get_backend

        names: list[str] = []
        if choice == "auto":
            names = [n for n in COMPLETERS if n in BACKENDS and backend_class(n).available()]
        elif choice != "assignment":  # a name check_option_values accepted
            get_backend(choice).require()
            names = [choice]
        failures: list[str] = []
        for name in names:
            left = clock.left()
            if left is not None and left < 0.05:
                break  # no time left: the assignment below is instant
            try:
                res = get_backend(name).solve(sub, time_limit=left, seed=seed)
            except (ImportError, SolverUnavailableError) as exc:
                if choice != "auto":
                    raise
                # e.g. two solver libraries that cannot be loaded into one process: try the next
                failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:200]}")
                continue
            if res.status.has_board:
                return res.board, name + (f" (after failures: {'; '.join(failures)})" if failures else "")
        board = _assignment_fill(sub)
        return board, "assignment" + (f" (after failures: {'; '.join(failures)})" if failures else "")

    # ------------------------------------------------------------ external
    def _external(self, g: CliqueGraph, clock: _Clock, options: dict, stats: dict) -> tuple[np.ndarray, bool]:
        binary = str(options["binary"])
        fmt = options.get("binary_format", "clq")
        if fmt not in ("clq", "conflict"):
            raise InputError(f"binary_format must be clq or conflict, not {fmt!r}")
        args = options.get("binary_args", [])
        args = shlex.split(args) if isinstance(args, str) else [str(a) for a in args]
        with tempfile.TemporaryDirectory(prefix="emc-clique-") as tmp:
            path = Path(tmp) / f"graph.{fmt}"
            g.enc.write(path, fmt)
            if any("{file}" in a for a in args):
                cmd = [binary] + [a.replace("{file}", str(path)) for a in args]
            else:
                cmd = [binary] + args + [str(path)]
            try:
                # bytes that are not UTF-8 become U+FFFD: no clique there, said in one line
                proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=clock.left())
            except FileNotFoundError:
                raise SolverUnavailableError(f"clique solver binary {binary!r} not found") from None
            except subprocess.TimeoutExpired as exc:
                out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
                stats["binary_timeout"] = True
                try:
                    verts = parse_clique_output(out, int(options.get("binary_base", 1)))
                except InputError:
                    return np.zeros(0, dtype=np.int64), False
                return self._checked_clique(g, verts), False
        stats["binary_returncode"] = proc.returncode
        failed = ""
        if proc.returncode != 0:  # said, not swallowed: its answer, if any, is still checked and used
            tail = (proc.stderr.strip().splitlines() or [""])[-1][:200]
            failed = f"the clique program exited with status {proc.returncode}" + (f": {tail}" if tail else "")
            stats["stopped"] = failed
        try:
            verts = parse_clique_output(proc.stdout, int(options.get("binary_base", 1)))
        except InputError as exc:
            if failed:
                raise BackendError(f"{failed}, and printed no clique") from None
            raise BackendError(f"the clique program's output holds no clique: {exc}") from None
        return self._checked_clique(g, verts), bool(options.get("binary_exact", False))

    @staticmethod
    def _checked_clique(g: CliqueGraph, verts: list[int]) -> np.ndarray:
        try:
            g.enc.decode(verts)
        except InputError as exc:
            raise BackendError(f"the external clique solver's answer is wrong: {exc}") from None
        return np.array(sorted(v - 1 for v in verts), dtype=np.int64)

    # --------------------------------------------------------------- count
    def _count(self, sp: Subproblem, formulation: str, limit: int | None, time_limit: float | None, keep: int,
               options: dict[str, Any]) -> CountResult:
        unknown = set(options) - {"method"}
        if unknown or options.get("method", "exact") != "exact":
            raise InputError("counting with the clique backend takes no options (it always uses the exact search)")
        clock = _Clock(time_limit)
        if sp.n_free == 0:
            return CountResult(1, True, boards=[sp.fixed.copy()] if keep else [])
        g = CliqueGraph(sp)
        try:
            g.adj_bitsets(clock, self.progress)
        except GraphTooSlow as e:
            return CountResult(0, False, stats={"vertices": g.n, "interrupted": True, "stopped": str(e)})
        cs = CoverSearch(g, keep=keep)
        interrupted = False
        tick = Throttled(self.progress)
        try:
            cs.run(clock, stop_after=int(limit or 0), report=lambda: tick(
                lambda: f"{solutions_text(cs.count)}, {count_text(cs.nodes)} nodes"))
        except KeyboardInterrupt:
            interrupted = True
        boards = [g.board(cs.sols[i, :cs.k]) for i in range(min(keep, cs.count))]
        return CountResult(cs.count, cs.done and not interrupted, boards=boards,
                           stats={"nodes": cs.nodes, "vertices": g.n, "interrupted": interrupted})


def _assignment_fill(sub: Subproblem) -> Board | None:
    """Fill the holes by an optimal assignment of pieces (and their best rotation) to holes,
    scoring each by the edges it matches with filled non-hole neighbours."""
    from scipy.optimize import linear_sum_assignment

    from ..score import placement_matches

    P = sub.puzzle
    board = sub.fixed.copy()
    holes, pieces = sub.free, sub.pieces
    gain = np.full((len(holes), len(pieces)), -1_000_000, dtype=np.int64)
    rot = np.zeros((len(holes), len(pieces)), dtype=np.int64)
    for i, c in enumerate(holes):
        for j, p in enumerate(pieces):
            for k in range(4):
                if not P.fits[p, c, k]:
                    continue
                m = placement_matches(P, board, int(c), int(p), k)
                if m > gain[i, j]:
                    gain[i, j], rot[i, j] = m, k
    rows, cols = linear_sum_assignment(-gain)
    if (gain[rows, cols] < 0).any() or len(rows) < len(holes):
        return None  # some hole has no fitting piece left
    for i, j in zip(rows, cols):
        board.place(int(holes[i]), int(pieces[j]), int(rot[i, j]))
    return board
