"""Maximum-clique formulation of a sub-problem (Salassa et al., seed 000, section 2.2).

The graph has one vertex per candidate placement ``(piece, cell, rotation)`` of
:meth:`Subproblem.placements(fit_fixed=True) <emc.model.Subproblem.placements>`: frame
fitting and symmetry breaking are the ones every formulation uses, and for a region of a
board a placement must already match every filled fixed neighbour (the paper's RO
neighbourhood drops the nodes that conflict with assignments just outside the region). Two
vertices are joined when the placements can coexist: different pieces, different cells, and,
when the cells are side by side, the same non-border colour on the shared edge. Each cell's
placements form an independent set, so a clique has at most one vertex per free cell and a
clique with one vertex per free cell is a perfect filling of the sub-problem.

Files (both DIMACS, vertices numbered from 1 in :class:`~emc.model.Placements` order, i.e.
by cell, then piece, then rotation):

``clq``
    ``p edge N M`` and one ``e u v`` line per edge, ``u < v``, sorted by ``u`` then ``v``.
``conflict``
    The complement graph (edges between conflicting placements), for maximum
    independent set solvers: an independent set of the target size is a solution.

Both start with ``c`` comment lines: what wrote the file, the puzzle's name, size and
sha256, the sub-problem (free cells, pieces, fixed cells, symmetry breaking), the target
size, then the vertex map, one line a vertex::

    c v 17 piece 5 row 1 col 2 rot 3

(1-based piece, row and column; ``rot`` is the number of clockwise quarter turns, 0..3).
The map lives only in the file itself, so a graph can never be separated from it;
:func:`read_vertex_map` reads it back.

Writing streams fixed-size byte buffers, so memory stays bounded whatever the graph size.
With numba installed a compiled kernel walks the vertex pairs and prints the digits
straight into the buffer; without it a numpy path does the same a block of rows at a time.
Both give identical bytes.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from ..errors import InputError
from ..io import atomic_write, gzip_name
from ..model import BORDER, OPPOSITE, Board, Placements, Subproblem
from .base import Encoder, Encoding, whole_number_list

FORMATS = ("clq", "conflict")
#: Bytes handed to the file per write call; bounds the writer's memory.
BUFFER_BYTES = 8 << 20
#: Gzip level used by default: edge lists compress well even at the fastest level.
DEFAULT_GZIP_LEVEL = 1


# ----------------------------------------------------------------- the graph

class NotACliqueError(InputError):
    """Two vertices of an answer that the graph does not join (the complement, the conflict
    graph, does join them: there the set is not independent)."""

    def __init__(self, a: int, b: int, conflict: bool = False):
        self.a, self.b = a, b
        super().__init__(f"vertices {a} and {b} are joined in the conflict graph: the set is not independent" if conflict
                         else f"vertices {a} and {b} are not joined: the set is not a clique", about=a)

    def in_conflict_graph(self) -> "NotACliqueError":
        return NotACliqueError(self.a, self.b, conflict=True)

class CliqueEncoding(Encoding):
    """The compatibility graph of a sub-problem.

    Attributes:
        placements: the vertices (vertex ``i + 1`` is placement ``i``).
        shown: ``(N, 4)`` colours each placement shows, clockwise from the top.
        target: clique size that means a solution (the number of free cells).
    """

    formulation = "clique"
    variant = "default"

    def __init__(self, subproblem: Subproblem):
        self.subproblem = subproblem
        P = subproblem.puzzle
        self.placements: Placements = subproblem.placements(fit_fixed=True)
        pl = self.placements
        self.piece = np.ascontiguousarray(pl.piece, dtype=np.int32)
        self.cell = np.ascontiguousarray(pl.cell, dtype=np.int32)
        self.rotation = np.ascontiguousarray(pl.rotation, dtype=np.int32)
        self.shown = np.ascontiguousarray(P.colours[self.piece, self.rotation], dtype=np.int32).reshape(-1, 4)
        self.nbcell = np.ascontiguousarray(P.neighbours, dtype=np.int32)
        self.target = subproblem.n_free
        self._sizes: dict[str, Any] | None = None

    @property
    def n_vertices(self) -> int:
        return int(self.piece.size)

    # ------------------------------------------------------------- sizes
    def sizes(self) -> dict[str, Any]:
        """``vertices``, ``edges``, ``conflict_edges`` and ``density`` (edges / pairs), counted
        without building the graph: pairs of different pieces on different cells, less the
        pairs on neighbouring cells whose shared edge does not match."""
        if self._sizes is None:
            n = self.n_vertices
            pairs = n * (n - 1) // 2
            edges = _count_edges(self)
            self._sizes = {
                "vertices": n,
                "edges": edges,
                "conflict_edges": pairs - edges,
                "density": round(edges / pairs, 6) if pairs else 0.0,
            }
        return dict(self._sizes)

    def sizes_of(self, fmt: str | None = None) -> dict[str, Any]:
        """For ``conflict`` the complement graph's sizes: ``edges`` and ``density`` are those of
        the file written, ``clique_edges`` the graph it complements."""
        s = self.sizes()
        if fmt != "conflict":
            return s
        n = s["vertices"]
        pairs = n * (n - 1) // 2
        return {"vertices": n, "edges": s["conflict_edges"], "clique_edges": s["edges"],
                "density": round(s["conflict_edges"] / pairs, 6) if pairs else 0.0}

    # ---------------------------------------------------------- adjacency
    def compatible_block(self, rows: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
        """Boolean ``(len(rows), len(cols))`` matrix: vertices (0-based) joined by an edge.

        ``cols`` defaults to every vertex. A vertex is never joined to itself.
        """
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.arange(self.n_vertices) if cols is None else np.asarray(cols, dtype=np.int64)
        pu, cu, su = self.piece[rows], self.cell[rows], self.shown[rows]
        pv, cv, sv = self.piece[cols], self.cell[cols], self.shown[cols]
        ok = (pu[:, None] != pv[None, :]) & (cu[:, None] != cv[None, :])
        for s in range(4):
            nb = self.nbcell[cu, s]
            side_by_side = cv[None, :] == nb[:, None]
            match = (su[:, s][:, None] == sv[:, OPPOSITE[s]][None, :]) & (su[:, s] != BORDER)[:, None]
            ok &= ~side_by_side | match
        return ok

    def adjacency_bitsets(self, stop: Callable[[float], None] | None = None) -> np.ndarray:
        """``(N, ceil(N / 64))`` uint64 rows: bit ``v`` of row ``u`` is set when ``u`` and
        ``v`` are joined (bit ``v % 64`` of word ``v // 64``). ``stop`` is called with the
        share done after each block of rows (it may raise to abandon the build)."""
        n = self.n_vertices
        words = max(1, (n + 63) // 64)
        out = np.zeros((n, words), dtype=np.uint64)
        step = max(1, (1 << 22) // max(n, 1))
        for a in range(0, n, step):
            rows = np.arange(a, min(n, a + step))
            block = self.compatible_block(rows)
            packed = np.packbits(block, axis=1, bitorder="little")
            pad = words * 8 - packed.shape[1]
            if pad:
                packed = np.pad(packed, ((0, 0), (0, pad)))
            out[a:a + len(rows)] = packed.view(np.uint64).reshape(len(rows), words)
            if stop is not None:
                stop((a + len(rows)) / n)
        return out

    # ------------------------------------------------------------- write
    def header_lines(self, fmt: str = "clq") -> list[str]:
        """The ``c`` comment lines at the top of the file (without the vertex map)."""
        sp = self.subproblem
        P = sp.puzzle
        s = self.sizes()
        fixed_cells = int((sp.fixed.piece >= 0).sum())
        from .. import __version__

        lines = [
            f"c emc {__version__}: max-clique formulation (Salassa et al., section 2.2): a vertex per placement,",
            "c an edge between two placements that can coexist (different pieces, different cells,",
            "c matching colours across a shared edge)",
        ]
        if fmt == "conflict":
            lines.append("c this file is the COMPLEMENT graph: edges join conflicting placements")
            lines.append(f"c target: an independent set of {self.target} vertices is a solution")
        else:
            lines.append(f"c target: a clique of {self.target} vertices is a solution")
        lines += [
            f"c format {fmt}",
            f"c puzzle {P.name}",
            f"c puzzle_size {P.width}x{P.height}",
            f"c puzzle_sha256 {P.sha256}",
            f"c subproblem {'whole' if sp.is_whole else 'region'} goal {sp.goal.value} "
            f"free_cells {sp.n_free} pieces {sp.pieces.size} fixed_cells {fixed_cells}",
        ]
        sym = sp.symmetry_cells()
        if sym is not None:
            piece, cells = sym
            lines.append(f"c symmetry_breaking piece {piece + 1} only on "
                         + " ".join(P.cell_label(c) for c in cells))
        else:
            lines.append("c symmetry_breaking none")
        if not sp.is_whole:
            lines += _wrapped("c free_cells", [P.cell_label(c) for c in sp.free])
            lines += _wrapped("c free_pieces", [str(p + 1) for p in sp.pieces])
            freed = sp.hints_not_kept()
            if freed:
                lines += _wrapped("c hints_not_kept", freed)
        dead_cells, dead_pieces = sp.dead_ends()  # no clique reaches the target: say so up front
        if dead_cells:
            lines += _wrapped("c target_unreachable cells_without_vertex", [P.cell_label(c) for c in dead_cells])
        if dead_pieces:
            lines += _wrapped("c target_unreachable pieces_without_vertex", [str(p + 1) for p in dead_pieces])
        lines += [
            f"c target_size {self.target}",
            # "edges" counts the edges of the graph this file holds (the p line's M)
            (f"c vertices {s['vertices']} edges {s['edges']} conflict_edges {s['conflict_edges']}" if fmt != "conflict"
             else f"c vertices {s['vertices']} edges {s['conflict_edges']} clique_graph_edges {s['edges']}"),
            "c vertex map: c v VERTEX piece PIECE row ROW col COL rot ROT "
            "(1-based piece/row/col, ROT = clockwise quarter turns 0..3)",
        ]
        return lines

    def write(self, path: str | os.PathLike, fmt: str | None = None, compress: bool | None = None,
              gzip_level: int = DEFAULT_GZIP_LEVEL, use_numba: bool | None = None) -> list[Path]:
        """Write the graph (``clq``) or its complement (``conflict``) in DIMACS.

        Args:
            path: output file; ``.gz`` means gzip unless ``compress`` says otherwise.
            fmt: ``clq`` (default) or ``conflict``.
            compress: gzip the output.
            gzip_level: 1 (fast, default) .. 9 (small).
            use_numba: force the compiled (True) or numpy (False) writer; default: compiled
                when numba is installed.

        Returns:
            ``[path]``.
        """
        fmt = fmt or "clq"
        if fmt not in FORMATS:
            raise InputError(f"the clique formulation writes {', '.join(FORMATS)}, not {fmt!r}")
        if not 0 <= int(gzip_level) <= 9:
            raise InputError(f"gzip level {gzip_level} is not 0..9")
        path = Path(path)
        if compress is None:
            compress = gzip_name(path)
        complement = fmt == "conflict"
        s = self.sizes()
        m = s["conflict_edges"] if complement else s["edges"]
        head = "\n".join(self.header_lines(fmt)) + "\n"
        with atomic_write(path, "wb", compress=False) as raw:
            out = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=int(gzip_level)) if compress else raw
            try:
                out.write(head.encode())
                for chunk in self._vertex_map_chunks():
                    out.write(chunk)
                out.write(f"p edge {self.n_vertices} {m}\n".encode())
                written = 0
                tell = self.on_written  # billions of edges for Eternity II: the caller shows how far
                for chunk, k in self.edge_chunks(complement, use_numba):
                    out.write(chunk)
                    written += k
                    if tell is not None:
                        tell(written, m, "edges")
            finally:
                if compress:
                    out.close()
            if written != m:  # the closed-form count and the writer must agree
                raise RuntimeError(f"clique writer produced {written} edges, sizes() says {m}")
        return [path]

    def _vertex_map_chunks(self, per_chunk: int = 50_000) -> Iterable[bytes]:
        W = self.subproblem.puzzle.width
        n = self.n_vertices
        for a in range(0, n, per_chunk):
            b = min(n, a + per_chunk)
            v = np.arange(a, b)
            r, c = np.divmod(self.cell[a:b], W)
            lines = [f"c v {i + 1} piece {p + 1} row {rr + 1} col {cc + 1} rot {k}\n"
                     for i, p, rr, cc, k in zip(v.tolist(), self.piece[a:b].tolist(), r.tolist(), c.tolist(),
                                                 self.rotation[a:b].tolist())]
            yield "".join(lines).encode()

    def edge_chunks(self, complement: bool = False, use_numba: bool | None = None,
                    buffer_bytes: int = BUFFER_BYTES) -> Iterable[tuple[bytes | memoryview, int]]:
        """The ``e u v`` lines as ``(bytes, number_of_lines)`` chunks of at most ``buffer_bytes``."""
        if use_numba is None:
            use_numba = _have_numba()
        if use_numba:
            yield from _numba_chunks(self, complement, buffer_bytes)
        else:
            yield from _numpy_chunks(self, complement, buffer_bytes)

    # ------------------------------------------------------------ decode
    def decode(self, answer: Any) -> Board:
        """The board of a clique: ``answer`` is an iterable of 1-based vertex numbers.

        A clique smaller than the number of free cells leaves those cells empty (a partial
        board, as the region neighbourhood's clique step produces).

        Raises:
            InputError: a number outside 1..N, a repeated vertex, or two vertices that are
                not joined (so the set is not a clique).
        """
        if isinstance(answer, (str, bytes)):
            raise InputError("a clique answer is a list of vertex numbers (emc.answers.read_vertices reads a solver's "
                             "text)")
        given = whole_number_list(answer, "a clique answer is a list of whole vertex numbers")
        n = self.n_vertices
        bad = next((v for v in given if not 1 <= v <= n), None)
        if bad is not None:
            raise InputError(f"vertex {bad} is not in 1..{n}", about=bad)
        verts = np.asarray(given, dtype=np.int64)
        uniq, counts = np.unique(verts, return_counts=True)
        if (counts > 1).any():
            twice = int(uniq[np.argmax(counts > 1)])
            raise InputError(f"vertex {twice} is listed twice in the clique", about=twice)
        idx = verts - 1
        if idx.size > 1:
            ok = self.compatible_block(idx, idx)
            np.fill_diagonal(ok, True)
            if not ok.all():
                i, j = np.argwhere(~ok)[0]
                raise NotACliqueError(int(verts[i]), int(verts[j]))
        board = self.subproblem.fixed.copy()
        for i in idx:
            board.place(int(self.cell[i]), int(self.piece[i]), int(self.rotation[i]))
        return board

    def vertices_of(self, board: Board) -> np.ndarray:
        """0-based vertices whose placement ``board`` makes (in vertex order): the graph's own
        numbering; the DIMACS files and :meth:`decode` number them from 1 (add 1)."""
        on = board.piece[self.cell] == self.piece
        on &= (board.rotation[self.cell] % 4) == self.rotation
        return np.flatnonzero(on)


class CliqueEncoder(Encoder):
    """Registry entry ``clique``: formats ``clq`` (graph) and ``conflict`` (complement)."""

    name = "clique"
    formats = FORMATS
    variants = ("default",)

    def encode(self, subproblem: Subproblem, variant: str | None = None, **options: Any) -> CliqueEncoding:
        self.check_variant(variant)
        if options:
            raise InputError(f"the clique formulation takes no options (got {', '.join(sorted(options))})")
        return CliqueEncoding(subproblem)


# ------------------------------------------------------------- reading back
def read_vertex_map(path: str | os.PathLike) -> Placements:
    """The vertex map of a written ``clq`` / ``conflict`` file, as 0-based
    :class:`~emc.model.Placements` (entry ``i`` is vertex ``i + 1``).

    Raises:
        InputError: no map, a malformed map line, or vertices out of order.
    """
    import io

    p = Path(path)
    if not p.exists():
        raise InputError("no such file", path)
    with open(p, "rb") as f:
        magic = f.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    width = None
    pieces, cells, rots = [], [], []
    with opener(p, "rb") as fb:
        f = io.TextIOWrapper(fb, encoding="utf-8")
        for ln, line in enumerate(f, start=1):
            if not line.startswith("c"):
                break
            t = line.split()
            if len(t) >= 3 and t[1] == "puzzle_size":
                width = int(t[2].split("x")[0])
            if len(t) >= 2 and t[1] == "v":
                if len(t) != 11 or t[3::2] != ["piece", "row", "col", "rot"]:
                    raise InputError("malformed vertex map line", path, ln)
                try:
                    v, pc, r, c, k = (int(x) for x in t[2::2])
                except ValueError:
                    raise InputError("non-integer in a vertex map line", path, ln) from None
                if v != len(pieces) + 1:
                    raise InputError(f"vertex {v} out of order in the map", path, ln)
                if width is None:
                    raise InputError("vertex map before the puzzle_size line", path, ln)
                pieces.append(pc - 1)
                cells.append((r - 1) * width + (c - 1))
                rots.append(k)
    if not pieces:
        raise InputError("no vertex map (c v ... lines) in the file", path)
    return Placements(np.array(pieces, dtype=np.int32), np.array(cells, dtype=np.int32), np.array(rots, dtype=np.int32))


# ------------------------------------------------------------- counting
def _count_edges(g: CliqueEncoding) -> int:
    """Number of edges, by counting classes of pairs (no loop over pairs of vertices).

    Pairs of different pieces on different cells, minus the pairs of different pieces on
    neighbouring cells whose shared edge does not match. Pairs across an edge are counted
    with colour histograms per (cell, side); pairs of the same piece across an edge are few
    (at most 16 per vertex and side) and are listed explicitly.
    """
    n = g.n_vertices
    if n < 2:
        return 0
    P = g.subproblem.puzzle

    def c2(x: np.ndarray) -> int:
        x = x.astype(np.int64)
        return int((x * (x - 1) // 2).sum())

    n_cells, n_pieces = P.n_cells, P.n_pieces
    cell = g.cell.astype(np.int64)
    piece = g.piece.astype(np.int64)
    per_cell = np.bincount(cell, minlength=n_cells)
    cp_key = cell * n_pieces + piece
    total = n * (n - 1) // 2 - c2(per_cell) - c2(np.bincount(piece)) + c2(np.bincount(cp_key))

    e, es = P.edges.astype(np.int64), P.edge_sides.astype(np.int64)
    a, b, sa, sb = e[:, 0], e[:, 1], es[:, 0], es[:, 1]
    ncol = int(g.shown.max()) + 1
    # hist[cell, side, colour]: placements on the cell showing that colour on that side
    hist = np.zeros((n_cells, 4, ncol), dtype=np.int64)
    np.add.at(hist, (np.repeat(cell, 4), np.tile(np.arange(4), n), g.shown.ravel().astype(np.int64)), 1)
    hist[:, :, BORDER] = 0  # the border colour never matches
    across_all = per_cell[a] * per_cell[b]
    across_match = (hist[a, sa] * hist[b, sb]).sum(axis=1)

    # same-piece pairs across each edge: join the vertices of cell b on (cell, piece)
    order = np.argsort(cp_key, kind="stable")
    keys = cp_key[order]
    same_all = 0
    same_match = 0
    for s in (1, 2):  # right and bottom: each internal edge once, from its first cell
        nb = P.neighbours[cell, s].astype(np.int64)
        has = nb >= 0
        u = np.flatnonzero(has)
        k = nb[u] * n_pieces + piece[u]
        lo = np.searchsorted(keys, k, "left")
        hi = np.searchsorted(keys, k, "right")
        cnt = hi - lo
        same_all += int(cnt.sum())
        uu = np.repeat(u, cnt)
        starts = np.repeat(lo - np.cumsum(cnt) + cnt, cnt) + np.arange(int(cnt.sum()))
        ww = order[starts]
        cu = g.shown[uu, s]
        cw = g.shown[ww, OPPOSITE[s]]
        same_match += int(((cu == cw) & (cu != BORDER)).sum())
    mismatched_diff_piece = (int(across_all.sum()) - int(across_match.sum())) - (same_all - same_match)
    return int(total - mismatched_diff_piece)


# ------------------------------------------------------------- writers
def _have_numba() -> bool:
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def _digit_table(n: int) -> tuple[np.ndarray, np.ndarray]:
    """ASCII digits of 0..n, left-aligned in a ``(n+1, D)`` uint8 array, and their lengths."""
    nums = np.arange(n + 1, dtype=np.int64)
    width = len(str(max(n, 1)))
    lens = np.ones(n + 1, dtype=np.int64)
    for d in range(1, width):
        lens += nums >= 10 ** d
    digits = np.zeros((n + 1, width), dtype=np.uint8)
    for k in range(width):
        # k-th digit from the left: nums // 10**(len-1-k) % 10, where it exists
        p = lens - 1 - k
        ok = p >= 0
        digits[ok, k] = 48 + (nums[ok] // 10 ** p[ok]) % 10
    return digits, lens


def _numpy_chunks(g: CliqueEncoding, complement: bool, buffer_bytes: int):
    n = g.n_vertices
    if n < 2:
        return
    digits, lens = _digit_table(n)
    D = digits.shape[1]
    line_w = 2 * D + 4
    max_edges = max(1, buffer_bytes // line_w)
    step = max(1, min(n, (1 << 23) // n))
    for a in range(0, n, step):
        rows = np.arange(a, min(n, a + step))
        ok = g.compatible_block(rows)
        if complement:
            ok = ~ok
        ok &= np.arange(n)[None, :] > rows[:, None]
        ru, rv = np.nonzero(ok)
        if not len(ru):
            continue
        u = rows[ru] + 1
        v = rv + 1
        for s in range(0, len(u), max_edges):
            uu, vv = u[s:s + max_edges], v[s:s + max_edges]
            m = len(uu)
            # one fixed-width row per line; zero bytes mark the unused digit slots
            buf = np.zeros((m, line_w), dtype=np.uint8)
            buf[:, 0] = ord("e")
            buf[:, 1] = ord(" ")
            buf[:, 2:2 + D] = digits[uu]
            buf[:, 2 + D] = ord(" ")
            buf[:, 3 + D:3 + 2 * D] = digits[vv]
            buf[:, 3 + 2 * D] = ord("\n")
            data = buf[buf != 0].tobytes()
            yield data, m


def _numba_chunks(g: CliqueEncoding, complement: bool, buffer_bytes: int):
    from ._clique_kernels import fill_edges

    n = g.n_vertices
    if n < 2:
        return
    digits, lens = _digit_table(n)
    buf = np.empty(max(buffer_bytes, 64), dtype=np.uint8)
    u, v = 0, 1
    while u < n - 1:
        u, v, pos, k = fill_edges(g.piece, g.cell, g.shown, g.nbcell, complement, u, v, digits, lens, buf)
        if k:
            yield bytes(buf[:pos]), int(k)


def _wrapped(prefix: str, items: list[str], per_line: int = 20) -> list[str]:
    return [prefix + " " + " ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)] or [prefix]
