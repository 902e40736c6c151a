"""The max-clique formulation (seed 000, section 2.2): graph sizes, DIMACS files read back
independently, decoding, and the clique backend's exact and heuristic searches."""

from __future__ import annotations

import gzip
import itertools
import sys
import textwrap

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import emc
from emc.backends import Status, get_backend
from emc.encoders import encode, formulation_of_format
from emc.errors import InputError
from emc.model import Board, Goal, Subproblem
from emc.score import check_subproblem_solution

from golden import assert_golden
from bruteforce import brute_force_solutions
from helpers import COUNT, counted

pytest.importorskip("numba")

# Seed 000, Table 1 (whole puzzles, symmetry breaking on the first corner). For 5x5 and 6x6
# the paper prints 86,184 and 674,512 edges; counting the rule independently gives one less.
TABLE1 = {
    "3x3": (30, 291),
    "4x4": (138, 6707),
    "5x5": (478, 86183),
    "6x6": (1290, 674511),
    "7x7": (2910, 3620565),
    "8x8": (5770, 14751304),
}


# ------------------------------------------------------------ independent helpers
def read_dimacs(path):
    """Parse a DIMACS graph file without emc: (n, set of edges, vertex map, comments)."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    n = m = None
    edges = set()
    vmap = {}
    comments = []
    width = None
    for line in raw.decode().splitlines():
        t = line.split()
        if t[0] == "c":
            comments.append(line)
            if t[1] == "puzzle_size":
                width = int(t[2].split("x")[0])
            if t[1] == "v":
                v, piece, row, col, rot = int(t[2]), int(t[4]), int(t[6]), int(t[8]), int(t[10])
                vmap[v] = (piece - 1, (row - 1) * width + col - 1, rot)
        elif t[0] == "p":
            assert t[1] == "edge" and m is None
            n, m = int(t[2]), int(t[3])
        else:
            assert t[0] == "e" and n is not None
            u, v = int(t[1]), int(t[2])
            assert 1 <= u < v <= n
            edges.add((u, v))
    assert len(edges) == m, "edge count in the p line is wrong or an edge is repeated"
    return n, edges, vmap, comments


def board_from_map(puzzle, vmap, clique, fixed=None):
    b = fixed.copy() if fixed is not None else Board.empty(puzzle)
    for v in clique:
        piece, cell, rot = vmap[v]
        b.place(cell, piece, rot)
    return b


def write(enc, tmp_path, fmt, name=None, **kw):
    path = tmp_path / (name or f"g.{fmt}")
    (written,) = enc.write(path, fmt, **kw)
    return written


# ------------------------------------------------------------------ sizes
@pytest.mark.parametrize("size", list(TABLE1))
def test_sizes_match_table1(size):
    enc = encode(Subproblem.whole(emc.load(f"set2-{size}")), "clique")
    s = enc.sizes()
    assert (s["vertices"], s["edges"]) == TABLE1[size]
    n = s["vertices"]
    assert s["edges"] + s["conflict_edges"] == n * (n - 1) // 2


@pytest.mark.parametrize("size", ["3x3", "4x4", "5x5", "6x6"])
def test_written_graph_has_table1_counts(size, tmp_path):
    enc = encode(Subproblem.whole(emc.load(f"set2-{size}")), "clique")
    path = write(enc, tmp_path, "clq")
    n_lines = 0
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b"p "):
                assert line.split()[2:] == [str(TABLE1[size][0]).encode(), str(TABLE1[size][1]).encode()]
            n_lines += line.startswith(b"e ")
    assert n_lines == TABLE1[size][1]


def test_sizes_count_edges_of_regions_exactly(planted_6x5):
    puzzle, planted = planted_6x5
    for free in ([7, 8, 9, 13, 14, 15], list(range(6)), [0, 1, 6, 7, 28, 29]):
        sp = Subproblem.region(puzzle, planted, free)
        enc = encode(sp, "clique")
        n = enc.n_vertices
        A = enc.compatible_block(np.arange(n))
        assert (A == A.T).all() and not A.diagonal().any()
        assert enc.sizes()["edges"] == int(A.sum()) // 2


# ---------------------------------------------------------- reading files back
@pytest.mark.parametrize("make", [
    lambda: emc.load("set2-3x3"),
    lambda: emc.load("set2-4x3"),
    lambda: emc.generate(3, 3, 1, 2, seed=5)[0],
])
def test_max_clique_of_the_file_is_a_solution(make, tmp_path):
    puzzle = make()
    enc = encode(Subproblem.whole(puzzle), "clique")
    n, edges, vmap, _ = read_dimacs(write(enc, tmp_path, "clq"))
    assert len(vmap) == n
    G = nx.Graph()
    G.add_nodes_from(range(1, n + 1))
    G.add_edges_from(edges)
    clique, size = nx.max_weight_clique(G, weight=None)
    assert size == puzzle.n_cells
    board = board_from_map(puzzle, vmap, clique)
    assert emc.verify(puzzle, board).solved
    # and the encoding decodes the same vertex numbers to the same board
    assert enc.decode(clique) == board


@pytest.mark.parametrize("make", [
    lambda: Subproblem.whole(emc.load("set2-3x3")),
    lambda: Subproblem.whole(emc.load("set2-4x3")),
    lambda: Subproblem.region(*emc.generate(5, 4, 2, 2, seed=3), [6, 7, 8, 11, 12, 13]),
])
def test_conflict_file_is_exactly_the_complement(make, tmp_path):
    enc = encode(make(), "clique")
    n1, e1, m1, _ = read_dimacs(write(enc, tmp_path, "clq"))
    n2, e2, m2, c2 = read_dimacs(write(enc, tmp_path, "conflict"))
    assert n1 == n2 and m1 == m2
    assert not (e1 & e2)
    assert len(e1) + len(e2) == n1 * (n1 - 1) // 2
    assert len(e2) == enc.sizes()["conflict_edges"]
    assert any("COMPLEMENT" in c for c in c2)


def test_file_header_and_vertex_map(tmp_path):
    puzzle = emc.load("set2-3x3")
    sp = Subproblem.whole(puzzle)
    enc = encode(sp, "clique")
    path = write(enc, tmp_path, "clq")
    _, _, vmap, comments = read_dimacs(path)
    text = "\n".join(comments)
    assert f"c puzzle_sha256 {puzzle.sha256}" in text
    assert "c puzzle set2-3x3" in text and "c target_size 9" in text
    pl = sp.placements(fit_fixed=True)
    assert [vmap[i + 1] for i in range(len(pl))] == list(zip(pl.piece, pl.cell, pl.rotation))
    from emc.encoders.clique import read_vertex_map

    back = read_vertex_map(path)
    assert np.array_equal(back.piece, pl.piece) and np.array_equal(back.cell, pl.cell)
    assert np.array_equal(back.rotation, pl.rotation)


def test_region_file_decodes_through_its_map(tmp_path):
    puzzle, planted = emc.generate(6, 5, 2, 3, seed=2)
    free = [8, 9, 10, 14, 15, 16]
    sp = Subproblem.region(puzzle, planted, free, goal=Goal.FEASIBILITY)
    enc = encode(sp, "clique")
    n, edges, vmap, comments = read_dimacs(write(enc, tmp_path, "clq"))
    assert any(c.startswith("c free_cells r2c3") for c in comments)
    G = nx.Graph(list(edges))
    G.add_nodes_from(range(1, n + 1))
    clique, size = nx.max_weight_clique(G, weight=None)
    assert size == len(free)
    board = board_from_map(puzzle, vmap, clique, fixed=sp.fixed)
    assert check_subproblem_solution(sp, board) == []
    assert emc.verify(puzzle, board).solved


def test_formats_are_registered():
    assert formulation_of_format("clq") == ("clique", "clq")
    assert formulation_of_format("conflict") == ("clique", "conflict")


def test_golden_files(tmp_path):
    enc = encode(Subproblem.whole(emc.load("set2-3x3")), "clique")
    assert_golden(write(enc, tmp_path, "clq", "set2-3x3.clq"), "set2-3x3.clq")
    assert_golden(write(enc, tmp_path, "conflict", "set2-3x3.conflict"), "set2-3x3.conflict")


def test_writers_agree_byte_for_byte_and_gzip(tmp_path, planted_6x5):
    puzzle, planted = planted_6x5
    for sp in (Subproblem.whole(emc.load("set2-5x5")), Subproblem.region(puzzle, planted, range(6, 24))):
        enc = encode(sp, "clique")
        for fmt in ("clq", "conflict"):
            a = write(enc, tmp_path, fmt, "a", use_numba=True).read_bytes()
            b = write(enc, tmp_path, fmt, "b", use_numba=False).read_bytes()
            assert a == b
            z = write(enc, tmp_path, fmt, "c.gz").read_bytes()
            assert z[:2] == b"\x1f\x8b" and gzip.decompress(z) == a
            assert write(enc, tmp_path, fmt, "d.gz", gzip_level=1).read_bytes() == z


def test_decode_rejects_non_cliques_and_handles_partial_boards():
    puzzle = emc.load("set2-4x4")
    sp = Subproblem.whole(puzzle)
    enc = encode(sp, "clique")
    with pytest.raises(InputError):
        enc.decode([0])
    with pytest.raises(InputError):
        enc.decode([1, 1])
    A = enc.compatible_block(np.arange(enc.n_vertices))
    u, v = np.argwhere(~A & ~np.eye(len(A), dtype=bool))[0]
    with pytest.raises(InputError, match="not a clique"):
        enc.decode([u + 1, v + 1])
    # a clique smaller than the free cells leaves holes
    u, v = np.argwhere(A)[0]
    b = enc.decode([u + 1, v + 1])
    assert int(b.filled.sum()) == 2
    assert emc.verify(puzzle, b, allow_partial=True).valid


# ------------------------------------------------------------- the searches
def _matrix(n, p, seed):
    rng = np.random.default_rng(seed)
    A = np.triu(rng.random((n, n)) < p, 1)
    return A | A.T


@given(st.integers(0, 70), st.floats(0.0, 1.0), st.integers(0, 10_000))
@settings(max_examples=60, deadline=None)
def test_exact_search_agrees_with_networkx(n, p, seed):
    from emc.backends.clique import max_clique

    A = _matrix(n, p, seed)
    clique, proven = max_clique(A)
    assert proven
    assert all(A[a, b] for a, b in itertools.combinations(clique, 2))
    G = nx.from_numpy_array(A.astype(int))
    _, omega = nx.max_weight_clique(G, weight=None) if n else ([], 0)
    assert len(clique) == omega


@pytest.mark.parametrize("name", ["set2-3x3", "set2-4x3", "set2-5x3"])
def test_exact_search_on_puzzle_graphs_agrees_with_networkx(name):
    from emc.backends.clique import max_clique

    enc = encode(Subproblem.whole(emc.load(name)), "clique")
    A = enc.compatible_block(np.arange(enc.n_vertices))
    clique, proven = max_clique(A)
    _, omega = nx.max_weight_clique(nx.from_numpy_array(A.astype(int)), weight=None)
    assert proven and len(clique) == omega == enc.target


def test_exact_search_on_an_infeasible_region_graph():
    # A region whose best clique is not full: the optimum is checked against networkx.
    from emc.backends.clique import max_clique

    sp = _infeasible_region()
    enc = encode(sp, "clique")
    A = enc.compatible_block(np.arange(enc.n_vertices))
    clique, proven = max_clique(A)
    _, omega = nx.max_weight_clique(nx.from_numpy_array(A.astype(int)), weight=None)
    assert proven and len(clique) == omega < sp.n_free


@pytest.mark.parametrize("size", ["4x4", "5x5"])
def test_heuristic_finds_full_cliques(size):
    sp = Subproblem.whole(emc.load(f"set2-{size}"))
    res = get_backend("clique").solve(sp, method="heuristic", seed=3, max_steps=5_000_000)
    assert res.status is Status.OPTIMAL
    assert emc.verify(sp.puzzle, res.board).solved


def test_heuristic_on_random_graphs_returns_cliques():
    from emc.backends.clique import heuristic_clique, max_clique

    for seed in range(5):
        A = _matrix(60, 0.7, seed)
        omega = len(max_clique(A)[0])
        c = heuristic_clique(A, omega, seed=seed, max_steps=200_000)
        assert all(A[a, b] for a, b in itertools.combinations(c, 2))
        assert len(c) == omega  # small graphs: the local search reaches the maximum


@pytest.mark.parametrize("size", ["3x3", "4x4", "5x5", "6x6"])
def test_exact_feasibility_on_set2(size):
    sp = Subproblem.whole(emc.load(f"set2-{size}"))
    res = get_backend("clique").solve(sp, time_limit=120)
    assert res.status is Status.OPTIMAL and res.objective == sp.max_score
    assert emc.verify(sp.puzzle, res.board).solved


@pytest.mark.parametrize("args", [(3, 3, 1, 2, 0), (3, 3, 1, 2, 7), (4, 3, 1, 2, 1), (4, 3, 1, 2, 4)])
def test_number_of_full_cliques_equals_number_of_solutions(args):
    w, h, f, i, seed = args
    puzzle, _ = emc.generate(w, h, f, i, seed=seed)
    want = {(tuple(b.piece.tolist()), tuple(b.rotation.tolist())) for b in brute_force_solutions(puzzle)}
    res = get_backend("clique").count(Subproblem.whole(puzzle), keep=len(want) + 1)
    assert res.complete and res.count == len(want) >= 1
    got = {(tuple(b.piece.tolist()), tuple(b.rotation.tolist())) for b in res.boards}
    assert got == want


def test_count_without_symmetry_breaking_counts_every_turn():
    puzzle, _ = emc.generate(3, 3, 1, 2, seed=7)
    sp = Subproblem.whole(puzzle, symmetry_breaking=False)
    res = get_backend("clique").count(sp)
    assert res.complete and res.count == len(brute_force_solutions(puzzle, symmetry=False))


def test_count_limit_stops_early():
    puzzle, _ = emc.generate(4, 3, 1, 2, seed=1)
    full = get_backend("clique").count(Subproblem.whole(puzzle))
    assert full.count > 2
    part = get_backend("clique").count(Subproblem.whole(puzzle), limit=2)
    assert part.count == 2 and not part.complete


# ---------------------------------------------------------------- sub-problems
def _region_exists(sp):
    """Does some filling of the (small) region match every counted edge? Brute force."""
    P = sp.puzzle
    cells = list(sp.free)
    for perm in itertools.permutations(sp.pieces, len(cells)):
        for rots in itertools.product(range(4), repeat=len(cells)):
            if not all(P.fits[p, c, k] for p, c, k in zip(perm, cells, rots)):
                continue
            b = sp.fixed.copy()
            for p, c, k in zip(perm, cells, rots):
                b.place(c, p, k)
            if sp.score(b) == sp.max_score:
                return True
    return False


def _infeasible_region():
    """A 2x2 inner region of a planted board whose surroundings were disturbed so that no
    filling matches them (checked by brute force)."""
    for seed in range(50):
        puzzle, planted = emc.generate(6, 6, 2, 3, seed=seed)
        board = planted.copy()
        # swap two inner pieces next to the region, outside it
        a, b = puzzle.cell_of(1, 1), puzzle.cell_of(4, 4)
        board.place(a, int(planted.piece[b]), int(planted.rotation[b]))
        board.place(b, int(planted.piece[a]), int(planted.rotation[a]))
        free = [puzzle.cell_of(r, c) for r in (2, 3) for c in (1, 2)]
        sp = Subproblem.region(puzzle, board, free, goal=Goal.FEASIBILITY)
        if not _region_exists(sp):
            return sp
    raise AssertionError("no infeasible region found")


def test_cleared_region_is_solved_back():
    puzzle, planted = emc.generate(7, 6, 2, 4, seed=5)
    free = [puzzle.cell_of(r, c) for r in range(1, 4) for c in range(2, 6)]
    sp = Subproblem.region(puzzle, planted, free, goal=Goal.FEASIBILITY)
    for method in ("exact", "heuristic"):
        res = get_backend("clique").solve(sp, method=method, time_limit=60, seed=1)
        assert res.status is Status.OPTIMAL
        assert check_subproblem_solution(sp, res.board) == []
        assert emc.verify(puzzle, res.board).solved


def test_infeasible_region_is_reported_infeasible():
    sp = _infeasible_region()
    res = get_backend("clique").solve(sp, time_limit=60)
    assert res.status is Status.INFEASIBLE and res.board is None


@pytest.mark.parametrize("complete_with", ["assignment", "auto"])
def test_optimisation_fills_the_holes(complete_with):
    sp = _infeasible_region().with_goal(Goal.OPTIMISATION)
    res = get_backend("clique").solve(sp, method="exact", complete_with=complete_with, time_limit=60)
    # optimal exactly when the filled board meets the bound the search proved
    assert res.status is (Status.OPTIMAL if res.objective == res.bound else Status.FEASIBLE)
    assert check_subproblem_solution(sp, res.board) == []
    assert res.bound == sp.max_score - 1  # the exact search proved no perfect filling
    assert res.stats["clique_proven_maximum"] and res.stats["clique_size"] < sp.n_free
    # the clique's cells keep their pieces; the holes were filled
    assert res.board.filled.all()


def test_the_heuristic_search_claims_no_bound_it_did_not_prove():
    """The heuristic clique search proves nothing about the maximum clique: on a region with no
    perfect fill it gives a board, no bound, and so never OPTIMAL, even when its board reaches
    max - 1 (the bound the exact search proves there)."""
    sp = _infeasible_region().with_goal(Goal.OPTIMISATION)
    res = get_backend("clique").solve(sp, method="heuristic", time_limit=60, seed=1, max_steps=200_000)
    assert not res.stats["clique_proven_maximum"] and res.stats["clique_size"] < sp.n_free
    assert res.bound is None and res.status is Status.FEASIBLE
    assert check_subproblem_solution(sp, res.board) == []


def test_optimisation_on_a_solvable_puzzle_is_optimal():
    sp = Subproblem.whole(emc.load("set2-4x4"), goal=Goal.OPTIMISATION)
    for method in ("exact", "heuristic"):
        res = get_backend("clique").solve(sp, method=method, time_limit=60)
        assert res.status is Status.OPTIMAL and res.objective == sp.max_score


def test_hint_board_warm_starts_the_local_search():
    puzzle, planted = emc.generate(5, 5, 2, 3, seed=9)
    sp = Subproblem.whole(puzzle, goal=Goal.OPTIMISATION, symmetry_breaking=False)
    res = get_backend("clique").solve(sp, method="heuristic", hint=planted, max_steps=1)
    assert res.status is Status.OPTIMAL and res.board == planted


# ------------------------------------------------------------- external binary
SOLVER = textwrap.dedent("""
    import sys
    import networkx as nx
    G = nx.Graph()
    for line in open(sys.argv[-1]):
        t = line.split()
        if t[0] == "p":
            G.add_nodes_from(range(1, int(t[2]) + 1))
        elif t[0] == "e":
            G.add_edge(int(t[1]), int(t[2]))
    if "--mis" in sys.argv:
        G = nx.complement(G)
    clique, size = nx.max_weight_clique(G, weight=None)
    print("c networkx max clique")
    print("s", size)
    print("v", " ".join(map(str, sorted(clique))), "0")
""")


@pytest.mark.parametrize("fmt,extra", [("clq", []), ("conflict", ["--mis"])])
def test_external_binary(tmp_path, fmt, extra):
    script = tmp_path / "nxclique.py"
    script.write_text(SOLVER)
    sp = Subproblem.whole(emc.load("set2-4x3"))
    res = get_backend("clique").solve(sp, binary=sys.executable, binary_args=[str(script), *extra, "{file}"],
                                      binary_format=fmt, time_limit=60)
    assert res.status is Status.OPTIMAL and emc.verify(sp.puzzle, res.board).solved
    assert res.stats["method"] == "binary"


def test_an_external_binary_that_fails_is_said_to_have_failed(tmp_path):
    """A clique program exiting non-zero went unmentioned: the run ended UNKNOWN, no reason."""
    from emc.backends.base import BackendError

    sp = Subproblem.whole(emc.load("set2-4x3"))
    script = tmp_path / "bad.py"
    script.write_text("import sys\nprint('v 1')\nprint('out of memory', file=sys.stderr)\nsys.exit(1)\n")
    res = get_backend("clique").solve(sp, binary=sys.executable, binary_args=[str(script), "{file}"], time_limit=60)
    assert res.stats["stopped"] == "the clique program exited with status 1: out of memory"
    assert res.board is None or emc.verify(sp.puzzle, res.board, allow_partial=True).valid
    script.write_text("import sys\nprint('nothing')\nsys.exit(3)\n")
    with pytest.raises(BackendError, match="the clique program exited with status 3, and printed no clique"):
        get_backend("clique").solve(sp, binary=sys.executable, binary_args=[str(script), "{file}"], time_limit=60)
    # bytes that are not UTF-8 were a UnicodeDecodeError with a traceback
    script.write_text("import sys\nsys.stdout.buffer.write(b'v 1 \\xff\\n')\n")
    with pytest.raises(BackendError, match="the clique program's output holds no clique"):
        get_backend("clique").solve(sp, binary=sys.executable, binary_args=[str(script), "{file}"], time_limit=60)


def test_parse_clique_output_forms():
    from emc.backends.clique import parse_clique_output

    assert parse_clique_output("c hi\ns 3\nv 1 5\nv 9 0\n") == [1, 5, 9]
    assert parse_clique_output("searching...\nMaximum clique: 3 17 42\n") == [3, 17, 42]
    assert parse_clique_output("2 16 41\n", base=0) == [3, 17, 42]
    with pytest.raises(InputError):
        parse_clique_output("no answer here\n")


def test_unknown_option_is_an_input_error():
    with pytest.raises(InputError):
        get_backend("clique").solve(Subproblem.whole(emc.load("set2-3x3")), colour="blue")


@pytest.mark.slow
def test_time_limit_stops_the_searches():
    # set2-8x8 is out of reach of both searches in this time (Table 1: the paper's clique
    # heuristic did not solve it either); each returns what it has.
    sp = Subproblem.whole(emc.load("set2-8x8"))
    res = get_backend("clique").solve(sp, time_limit=0.5)
    assert res.status is Status.UNKNOWN and res.interrupted and res.board is None
    # long enough for the local search to hold some clique even on a loaded machine
    res = get_backend("clique").solve(sp.with_goal(Goal.OPTIMISATION), time_limit=5.0, complete_with="assignment")
    assert res.status is Status.FEASIBLE and res.interrupted
    assert check_subproblem_solution(sp.with_goal(Goal.OPTIMISATION), res.board) == []
    assert 0 < res.stats["clique_size"] < sp.n_free


@given(st.integers(2, 6), st.integers(2, 6), st.integers(0, 3), st.integers(0, 10_000), st.booleans())
@settings(max_examples=40, deadline=None)
def test_conflict_lists_are_the_complement_of_the_compatibility_matrix(w, h, inner, seed, region):
    # The local search's conflict lists are built from the puzzle's structure (cells,
    # neighbours, pieces); they must be exactly the non-edges of the dense matrix, sorted.
    from emc.backends.clique import CliqueGraph

    puzzle, planted = emc.generate(w, h, 2, inner + 1, seed=seed)
    if region:
        rng = np.random.default_rng(seed)
        free = rng.choice(puzzle.n_cells, size=max(1, puzzle.n_cells // 2), replace=False)
        sp = Subproblem.region(puzzle, planted, free, goal=Goal.OPTIMISATION)
    else:
        sp = Subproblem.whole(puzzle, Goal.OPTIMISATION, symmetry_breaking=bool(seed % 2))
    g = CliqueGraph(sp)
    ptr, idx = g.conflict_csr()
    A = g.enc.compatible_block(np.arange(g.n))
    assert len(ptr) == g.n + 1
    for u in range(g.n):
        row = idx[ptr[u]:ptr[u + 1]]
        expected = np.flatnonzero(~A[u])
        assert np.array_equal(row, expected[expected != u])


def test_graph_build_stops_at_the_time_limit():
    # meta-12x12's conflict lists (85 million entries) take longer than this limit to build
    # on any machine; the search reports UNKNOWN and says why instead of overrunning.
    sp = Subproblem.whole(emc.load("meta-12x12"), Goal.OPTIMISATION)
    res = get_backend("clique").solve(sp, time_limit=0.01, method="heuristic")
    assert res.status is Status.UNKNOWN and res.interrupted and res.board is None
    assert "while building the conflict lists" in res.stats["stopped"]


def test_read_vertex_map_of_a_gzipped_file_and_bad_files(tmp_path):
    from emc.encoders.clique import read_vertex_map

    sp = Subproblem.whole(emc.load("set2-4x3"))
    enc = encode(sp, "clique")
    back = read_vertex_map(write(enc, tmp_path, "conflict", "g.conflict.gz"))
    assert np.array_equal(back.cell, sp.placements(fit_fixed=True).cell)
    bad = tmp_path / "bad.clq"
    bad.write_text("c puzzle_size 3x3\nc v 2 piece 1 row 1 col 1 rot 0\np edge 1 0\n")
    with pytest.raises(InputError, match="out of order"):
        read_vertex_map(bad)
    bad.write_text("p edge 1 0\n")
    with pytest.raises(InputError, match="no vertex map"):
        read_vertex_map(bad)


@pytest.mark.slow
def test_searches_report_progress():
    """Each of the three searches reports after its kernel slices: nodes (or moves) only
    grow, the largest clique never shrinks and stays within the board."""
    import re

    P = emc.load("set2-7x7")
    cl = get_backend("clique")
    runs = [(Subproblem.whole(P), {}, rf"^({COUNT}) nodes$"),
            (Subproblem.whole(P, Goal.OPTIMISATION), {"method": "heuristic"},
             rf"^({COUNT}) moves, largest clique (\d+) \(a full board: 49\)$"),
            (Subproblem.whole(P, Goal.OPTIMISATION), {"method": "exact"},
             rf"^({COUNT}) nodes, largest clique (\d+) \(a full board: 49\)$")]
    for sp, opts, pat in runs:
        lines: list[str] = []
        cl.solve(sp, time_limit=4, on_progress=lines.append, **opts)  # lines every 0.5 s: slack for a loaded machine
        seen = [re.match(pat, x) for x in lines]
        assert len(lines) >= 2 and all(seen), (opts, lines)
        work = [counted(m[1]) for m in seen]
        assert work == sorted(work) and cl.progress is None
        if seen[0].lastindex == 2:
            sizes = [int(m[2]) for m in seen]
            assert sizes == sorted(sizes) and 0 < sizes[-1] <= 49


@pytest.mark.slow
def test_count_reports_solutions_and_nodes():
    import re

    lines: list[str] = []
    res = get_backend("clique").count(Subproblem.whole(emc.load("set2-6x6")), time_limit=3, on_progress=lines.append)
    seen = [re.match(rf"^(\d+) solutions?, ({COUNT}) nodes$", x) for x in lines]
    assert lines and all(seen), lines
    counts = [int(m[1]) for m in seen]
    assert counts == sorted(counts) and counts[-1] <= res.count


def test_missing_clique_binary_is_refused_before_any_work(cli, tmp_path):
    r = cli("solve", "set2-4x4", "-b", "clique", "-O", f"binary={tmp_path / 'no-such-program'}")
    assert r.code == 2 and r.out == "" and "not found" in r.err and r.err.count("\n") == 1


def test_ctrl_c_on_an_optimisation_without_a_time_limit_fills_the_holes_at_once(tmp_path):
    """The holes the clique leaves used to go to CP-SAT with what was left of the time, which
    without --time-limit was no limit at all: Ctrl-C ended the clique search, then the run went
    on. Now the instant assignment fills them, and the board is still verified and written."""
    import signal
    import subprocess

    out = tmp_path / "b.json"
    proc = subprocess.Popen([sys.executable, "-u", "-m", "emc", "solve", "eternity2", "-b", "clique", "--goal",
                             "optimisation", "--progress-every", "0.1", "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "solving:" in proc.stderr.readline()  # under way (building the graph, or searching)
        proc.send_signal(signal.SIGINT)
        stdout, _ = proc.communicate(timeout=120)  # a guard against the hang, not a speed check
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stdout
    assert "(interrupted)" in stdout and "filled by assignment" in stdout and "verified independently: valid" in stdout
    p = emc.load("eternity2")
    assert emc.verify(p, emc.read_board(out, p)).valid


def test_decode_checks_every_pair_of_the_answer():
    """A set whose first vertex is joined to all the others is still no clique when two of the
    others conflict (here: the same piece on two cells)."""
    sp = Subproblem.whole(emc.load("set2-4x4"))
    enc = encode(sp, "clique")
    A = enc.compatible_block(np.arange(enc.n_vertices))
    np.fill_diagonal(A, False)
    for u in range(enc.n_vertices):
        nb = np.flatnonzero(A[u])
        pairs = np.argwhere(~A[np.ix_(nb, nb)] & (nb[:, None] < nb[None, :]))
        if len(pairs):
            v, w = nb[pairs[0]]
            break
    else:
        pytest.fail("no vertex with two conflicting neighbours")
    with pytest.raises(InputError, match="not a clique"):
        enc.decode([u + 1, v + 1, w + 1])
    ok = enc.decode([u + 1, v + 1])  # each pair alone is an edge
    assert emc.verify(sp.puzzle, ok, allow_partial=True).valid
