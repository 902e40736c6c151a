"""CNF / WCNF formulations and the sat / maxsat backends, on real puzzles and real solvers.

Exported files are read back by PySAT's own readers, solved, and decoded through the file's
own variable map (parsed here from the comment lines, not taken from the encoder), and the
boards are checked by emc.verify. Counts and optima are compared with brute force.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

import emc
from emc.heuristics.core.starts import random_board
from emc.backends import Status, get_backend
from emc.encoders import encode, get_encoder
from emc.errors import InputError
from emc.model import Board, Goal, PieceClass, Subproblem
from emc.score import check_subproblem_solution

from bruteforce import brute_force_optimum
from golden import assert_golden
from helpers import unsolvable_optimisation

pysat = pytest.importorskip("pysat")
from pysat.examples.rc2 import RC2  # noqa: E402
from pysat.formula import CNF, WCNF  # noqa: E402
from pysat.solvers import Solver  # noqa: E402

X_LINE = re.compile(r"^c x (\d+) piece (\d+) row (\d+) col (\d+) rot (\d)$")


def read_map(path) -> dict[int, tuple[int, int, int, int]]:
    """Placement variables from the file's comment lines: var -> (piece, row, col, rot), 1-based."""
    out = {}
    with open(path) as f:
        for line in f:
            m = X_LINE.match(line.rstrip("\n"))
            if m:
                v, p, r, c, k = map(int, m.groups())
                out[v] = (p, r, c, k)
    return out


def board_from_model(puzzle, fixed: Board, model, xmap) -> Board:
    b = fixed.copy()
    for lit in model:
        if lit > 0 and lit in xmap:
            p, r, c, k = xmap[lit]
            b.place((r - 1) * puzzle.width + (c - 1), p - 1, k)
    return b


def puzzles():
    return [emc.load("set2-3x3"), emc.load("set2-4x4"), emc.load("set2-4x3"), emc.generate(5, 4, 2, 3, seed=7)[0]]


# ----------------------------------------------------------------------------- files
@pytest.mark.parametrize("idx", range(4))
@pytest.mark.parametrize("variant,opts", [("onehot", {}), ("log", {"numbering": "descending"}),
                                          ("onehot", {"numbering": "descending", "order": "spiral", "tiebreak": 2}),
                                          ("onehot", {"redundant": "triples", "piece_cell": True,
                                                      "colour_counts": True, "card": "ladder"})])
def test_cnf_file_solves_through_its_own_map(tmp_path, idx, variant, opts):
    puzzle = puzzles()[idx]
    sp = Subproblem.whole(puzzle)
    path = tmp_path / "p.cnf"
    enc = encode(sp, "cnf", variant, **opts)
    enc.write(path)
    cnf = CNF(from_file=str(path))
    assert cnf.nv == enc.sizes()["variables"] and len(cnf.clauses) == enc.sizes()["clauses"]
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as s:
        assert s.solve()
        model = s.get_model()
    board = board_from_model(puzzle, Board.from_hints(puzzle), model, read_map(path))
    assert emc.verify(puzzle, board).solved


@pytest.mark.parametrize("idx", range(4))
@pytest.mark.parametrize("fmt,opts", [("wcnf", {}), ("wcnf-old", {}), ("wcnf", {"numbering": "descending"})])
def test_wcnf_file_solves_through_its_own_map(tmp_path, idx, fmt, opts):
    puzzle = puzzles()[idx]
    sp = Subproblem.whole(puzzle, Goal.OPTIMISATION)
    path = tmp_path / "p.wcnf"
    enc = encode(sp, "wcnf", **opts)
    enc.write(path, fmt)
    w = WCNF(from_file=str(path))
    assert len(w.hard) == enc.sizes()["hard"] and len(w.soft) == enc.sizes()["soft"] == puzzle.max_score
    with RC2(w, solver="g4") as rc2:
        model = rc2.compute()
        assert rc2.cost == 0
    board = board_from_model(puzzle, Board.from_hints(puzzle), model, read_map(path))
    assert emc.verify(puzzle, board).solved


def test_header_names_puzzle_and_options(tmp_path):
    p = emc.load("set2-4x4")
    path = tmp_path / "p.cnf"
    encode(Subproblem.whole(p), "cnf", card="totalizer").write(path)
    head = path.read_text().splitlines()[:8]
    assert any(p.sha256 in l and "set2-4x4" in l for l in head)
    assert any("card=totalizer" in l for l in head)


def test_a_cnf_of_an_optimisation_subproblem_says_it_asks_for_every_edge(tmp_path):
    # The CNF always asks for a perfect board; the WCNF keeps the optimisation
    from emc.model import Goal

    p = emc.load("set2-4x4")
    sp = Subproblem.whole(p, Goal.OPTIMISATION)
    for fmt, says in (("cnf", "goal optimisation, as feasibility: every counted edge matched,"),
                      ("wcnf", "goal optimisation, symmetry")):
        encode(sp, fmt).write(tmp_path / f"p.{fmt}")
        assert says in (tmp_path / f"p.{fmt}").read_text().splitlines()[2]
    encode(Subproblem.whole(p), "cnf").write(tmp_path / "f.cnf")
    assert "goal feasibility, symmetry" in (tmp_path / "f.cnf").read_text().splitlines()[2]


def test_writing_is_deterministic(tmp_path):
    p = emc.load("set2-4x4")
    a, b = tmp_path / "a.wcnf", tmp_path / "b.wcnf"
    encode(Subproblem.whole(p, Goal.OPTIMISATION), "wcnf").write(a)
    encode(Subproblem.whole(p, Goal.OPTIMISATION), "wcnf").write(b)
    assert a.read_bytes() == b.read_bytes()


def test_golden_cnf_and_wcnf(tmp_path, set2_3x3):
    cnf, wcnf = tmp_path / "set2-3x3.cnf", tmp_path / "set2-3x3.wcnf"
    encode(Subproblem.whole(set2_3x3), "cnf").write(cnf)
    encode(Subproblem.whole(set2_3x3, Goal.OPTIMISATION), "wcnf").write(wcnf)
    assert_golden(cnf, "set2-3x3.cnf")
    assert_golden(wcnf, "set2-3x3.wcnf")


def test_bad_options_are_input_errors():
    sp = Subproblem.whole(emc.load("set2-3x3"))
    with pytest.raises(InputError, match="card"):
        encode(sp, "cnf", card="nonsense")
    with pytest.raises(InputError, match="frobnicate"):
        encode(sp, "cnf", frobnicate=True)
    with pytest.raises(InputError, match="wcnf-old"):
        encode(sp, "cnf").write("/tmp/never-written.cnf", "wcnf-old")
    for seed in (-1, 1.5, "abc", True, float("nan")):  # -1 reached numpy as a traceback; 1.5 was cut to 1
        with pytest.raises(InputError, match="tiebreak must be a seed"):
            encode(sp, "cnf", tiebreak=seed)
    assert encode(sp, "cnf", tiebreak=2.0).options["tiebreak"] == 2


# ----------------------------------------------------------------------------- brute force
def brute_force_count(sp: Subproblem) -> int:
    """Perfect fills of a whole puzzle by backtracking in row-major order, with the same
    symmetry breaking as the formulations: the first corner piece on the top-left cell of
    a square board, on one of the two top corners of a rectangular one."""
    P = sp.puzzle
    W, H = P.width, P.height
    corners = [p for p in range(P.n_pieces) if P.piece_class[p] == PieceClass.CORNER]
    first = corners[0]
    allowed_first = {0} if W == H else {0, W - 1}
    col = P.colours
    piece = [-1] * P.n_cells
    rot = [0] * P.n_cells
    used = [False] * P.n_pieces
    count = 0

    def go(cell: int) -> None:
        nonlocal count
        if cell == P.n_cells:
            count += 1
            return
        r, c = divmod(cell, W)
        for p in range(P.n_pieces):
            if used[p]:
                continue
            if p == first and cell not in allowed_first:
                continue
            if W == H and cell == 0 and p != first:
                continue
            for k in range(4):
                if not P.fits[p, cell, k]:
                    continue
                if c > 0 and col[p, k, 3] != col[piece[cell - 1], rot[cell - 1], 1]:
                    continue
                if r > 0 and col[p, k, 0] != col[piece[cell - W], rot[cell - W], 2]:
                    continue
                used[p], piece[cell], rot[cell] = True, p, k
                go(cell + 1)
                used[p], piece[cell] = False, -1

    go(0)
    return count


@pytest.mark.parametrize("args", [(3, 3, 1, 2, 1), (3, 3, 1, 2, 4), (4, 3, 1, 3, 2), (4, 3, 2, 2, 1)])
def test_count_equals_brute_force(args):
    w, h, f, i, seed = args
    puzzle, _ = emc.generate(w, h, f, i, seed=seed)
    sp = Subproblem.whole(puzzle)
    want = brute_force_count(sp)
    assert want > 1  # the instances are chosen to have many solutions
    got = get_backend("sat").count(sp, keep=5)
    assert got.complete and got.count == want
    assert len(got.boards) == min(5, want)
    assert len({(tuple(b.piece), tuple(b.rotation)) for b in got.boards}) == len(got.boards)
    for b in got.boards:
        assert emc.verify(puzzle, b).solved


def test_count_limit_stops_early():
    puzzle, _ = emc.generate(3, 3, 1, 2, seed=1)
    res = get_backend("sat").count(Subproblem.whole(puzzle), limit=2)
    assert res.count == 2 and not res.complete


def scrambled(w, h, seed):
    """A valid but poorly matching board: the planted one with its pieces shuffled among cells
    of the same class (rotated to fit the frame)."""
    puzzle, planted = emc.generate(w, h, 2, 3, seed=seed)
    rng = np.random.default_rng(seed)
    b = planted.copy()
    for cls in (0, 1, 2):
        cells = np.flatnonzero(puzzle.cell_class == cls)
        perm = rng.permutation(cells)
        for c, src in zip(cells, perm):
            p = planted.piece[src]
            k = int(np.flatnonzero(puzzle.fits[p, c])[0])
            b.place(c, p, k)
    assert emc.verify(puzzle, b).valid
    return puzzle, b


@pytest.mark.parametrize("seed,cells", [(1, [6, 7, 11, 12]), (2, [1, 2, 6, 7]), (4, [6, 7, 11, 12])])
def test_maxsat_optimum_equals_brute_force(seed, cells):
    puzzle, board = scrambled(5, 4, seed)
    sp = Subproblem.region(puzzle, board, cells, Goal.OPTIMISATION)
    want = brute_force_optimum(sp)
    assert want < sp.max_score  # a region whose optimum is below the maximum
    res = get_backend("maxsat").solve(sp, time_limit=60)
    assert res.status is Status.OPTIMAL and res.objective == want == res.bound
    # the sat backend proves no perfect fill, then hands over to maxsat
    res2 = get_backend("sat").solve(sp, time_limit=60)
    assert res2.status is Status.OPTIMAL and res2.objective == want
    assert res2.stats.get("fallback") == "maxsat"
    # without the fallback: no perfect fill is proven, which is a bound, not infeasibility (an
    # optimisation sub-problem always has boards)
    res3 = get_backend("sat").solve(sp, time_limit=60, fallback=False)
    assert res3.status is Status.UNKNOWN and res3.bound == sp.max_score - 1 and res3.board is None


def test_maxsat_lsu_and_portfolio_agree():
    puzzle, board = scrambled(5, 4, 2)
    sp = Subproblem.region(puzzle, board, [1, 2, 6, 7], Goal.OPTIMISATION)
    want = brute_force_optimum(sp)
    seen = []
    for opts in ({"algorithm": "lsu"}, {"portfolio": True}, {"algorithm": "rc2-stratified", "portfolio": False}):
        res = get_backend("maxsat").solve(sp, time_limit=60, on_improvement=lambda b, s: seen.append(s), **opts)
        assert res.status is Status.OPTIMAL and res.objective == want
    assert seen and max(seen) == want


# ----------------------------------------------------------------------------- sub-problems
@pytest.mark.parametrize("backend,opts", [
    ("sat", {}), ("maxsat", {}),
    ("sat", {"variant": "log", "encoding": {"prune": False, "piece_cell": False}}),
    ("sat", {"encoding": {"redundant": "triples", "colour_counts": True, "order": "spiral"}}),
    ("maxsat", {"encoding": {"redundant": "pairs", "piece_cell": False, "card": "totalizer"}}),
    ("maxsat", {"encoding": {"numbering": "descending"}, "algorithm": "lsu"}),
])
def test_cleared_region_is_solved_back(backend, opts):
    puzzle, planted = emc.generate(6, 5, 2, 4, seed=11)
    region = [7, 8, 9, 13, 14, 15, 20]
    for goal in (Goal.FEASIBILITY, Goal.OPTIMISATION):
        sp = Subproblem.region(puzzle, planted, region, goal)
        res = get_backend(backend).solve(sp, time_limit=60, **opts)
        assert res.status is Status.OPTIMAL and res.objective == sp.max_score
        assert check_subproblem_solution(sp, res.board) == []


@pytest.mark.parametrize("backend", ["sat", "maxsat"])
def test_infeasible_region(backend):
    puzzle, board = scrambled(5, 4, 1)
    sp = Subproblem.region(puzzle, board, [6, 7, 11, 12], Goal.FEASIBILITY)
    assert brute_force_optimum(sp) < sp.max_score
    res = get_backend(backend).solve(sp, time_limit=60)
    assert res.status is Status.INFEASIBLE and res.board is None


def test_a_stopped_fallback_keeps_the_bound_the_sat_call_proved():
    # The SAT call soon proves no perfect fill of 40 cells of a random 8x8 board; RC2, given the
    # rest of 2 s, finds no core and said the bound was the maximum again.
    p = emc.load("set2-8x8")
    sp = Subproblem.region(p, random_board(p, 1), [p.cell_of(r, c) for r in range(1, 6) for c in range(8)],
                           Goal.OPTIMISATION)
    res = get_backend("sat").solve(sp, time_limit=2)
    assert res.stats.get("fallback") == "maxsat" and res.status is Status.FEASIBLE
    assert res.bound is not None and res.objective <= res.bound <= sp.max_score - 1
    assert sp.score(res.board) == res.objective


def test_portfolio_and_solver_choices_solve():
    sp = Subproblem.whole(emc.load("set2-4x4"))
    for opts in ({"portfolio": True}, {"portfolio": "glucose4,minisat22"}, {"solver": "cd19"},
                 {"solver": "glucose4", "variant": "log"}, {"encoding": {"redundant": "pairs"}}):
        res = get_backend("sat").solve(sp, time_limit=60, seed=3, **opts)
        assert res.status is Status.OPTIMAL and emc.verify(sp.puzzle, res.board).solved


def test_log_file_is_written(tmp_path):
    sp = Subproblem.whole(emc.load("set2-4x4"))
    log = tmp_path / "sat.log"
    get_backend("sat").solve(sp, log_path=log, solver="cadical195")
    text = log.read_text()
    assert "cadical195" in text and "clauses=" in text and "conflicts" in text


# ----------------------------------------------------------------------------- limits and errors
def test_too_little_time_is_not_a_crash():
    sp = Subproblem.whole(emc.load("set2-8x8"))
    for backend in ("sat", "maxsat"):
        problem = sp.with_goal(Goal.OPTIMISATION) if backend == "maxsat" else sp
        res = get_backend(backend).solve(problem, time_limit=0.01)
        assert res.status in (Status.UNKNOWN, Status.FEASIBLE) and res.interrupted
        if res.board is not None:
            assert check_subproblem_solution(problem, res.board) == []


def test_unknown_solver_lists_valid_names():
    sp = Subproblem.whole(emc.load("set2-3x3"))
    with pytest.raises(InputError) as err:
        get_backend("sat").solve(sp, solver="nosuchsolver")
    assert "cadical195" in str(err.value) and "glucose4" in str(err.value)
    with pytest.raises(InputError, match="frob"):
        get_backend("sat").solve(sp, frob=1)


def test_registries():
    assert get_encoder("cnf").formats == ("cnf",)
    assert "wcnf-old" in get_encoder("wcnf").formats
    from emc.encoders import FORMATS

    assert FORMATS["cnf"] == ("cnf", "cnf") and FORMATS["wcnf"] == ("wcnf", "wcnf")
    assert get_backend("sat").available() and get_backend("maxsat").version()


def interrupt_when_solving():
    """Send Ctrl-C to this process once a solver child process is running (as a user would)."""
    import multiprocessing
    import os
    import signal
    import threading
    import time

    def watch():
        for _ in range(600):
            if multiprocessing.active_children():
                time.sleep(0.3)
                os.kill(os.getpid(), signal.SIGINT)
                return
            time.sleep(0.05)

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    return t


@pytest.mark.slow
def test_ctrl_c_returns_unknown_without_traceback():
    sp = Subproblem.whole(emc.load("set2-8x8"))
    interrupt_when_solving()
    res = get_backend("sat").solve(sp, time_limit=120)
    assert res.status is Status.UNKNOWN and res.interrupted


def test_a_solver_process_killed_from_outside_is_an_error_not_a_time_limit():
    """The out-of-memory killer (here SIGKILL sent to Kissat's process alone) leaves no answer:
    the backend says so instead of reporting a solve stopped by its limit, which a hardness
    sweep would have counted as a puzzle too hard for the limit."""
    import multiprocessing
    import os
    import signal
    import threading
    import time

    def kill_the_solver():
        for _ in range(600):
            kids = multiprocessing.active_children()
            if kids:
                time.sleep(0.3)
                os.kill(kids[0].pid, signal.SIGKILL)
                return
            time.sleep(0.05)

    threading.Thread(target=kill_the_solver, daemon=True).start()
    sp = Subproblem.whole(emc.load("set2-8x8"))  # minutes of Kissat
    with pytest.raises(InputError, match="the solver's process ended without an answer \\(killed by signal 9"):
        get_backend("sat").solve(sp, time_limit=120, solver="kissat404", portfolio=False)


@pytest.mark.slow
def test_ctrl_c_keeps_best_maxsat_board():
    puzzle, board = scrambled(8, 8, 2)
    cells = [r * 8 + c for r in range(1, 6) for c in range(1, 6)]
    sp = Subproblem.region(puzzle, board, cells, Goal.OPTIMISATION)
    interrupt_when_solving()
    res = get_backend("maxsat").solve(sp, time_limit=120, portfolio=False)
    assert res.interrupted and res.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert check_subproblem_solution(sp, res.board) == []


@pytest.mark.parametrize("backend", ["sat", "maxsat"])
def test_region_with_surplus_pieces(backend):
    puzzle, planted = emc.generate(6, 5, 2, 4, seed=11)
    board = planted.copy()
    spare = [27, 28]  # emptied, not free: their pieces may go into the region or stay out
    pieces = list(planted.piece[spare])
    board.clear(spare)
    region = [8, 9, 14, 15]
    sp = Subproblem.region(puzzle, board, region, Goal.FEASIBILITY, pieces=list(planted.piece[region]) + pieces)
    assert not sp.exact_cover
    res = get_backend(backend).solve(sp, time_limit=60)
    assert res.status is Status.OPTIMAL and check_subproblem_solution(sp, res.board) == []


@pytest.mark.slow
def test_maxsat_reports_its_bound_and_best_as_progress():
    sp = unsolvable_optimisation("set2-6x6")  # RC2 has cores to find
    ms = get_backend("maxsat")
    lines: list[str] = []
    res = ms.solve(sp, time_limit=6, threads=2, on_progress=lines.append)
    assert res.status in (Status.OPTIMAL, Status.FEASIBLE) and ms.progress is None
    seen = [re.match(r"^bound (\d+)(?:, best (\d+))?$", x) for x in lines]
    assert lines and all(seen), lines
    bounds = [int(m[1]) for m in seen]
    best = [int(m[2]) for m in seen if m[2]]
    assert bounds == sorted(bounds, reverse=True) and best == sorted(best) and best, lines
    assert all(res.bound <= b <= sp.max_score for b in bounds) and all(b <= res.objective for b in best)
    assert res.objective < sp.max_score  # the recoloured side can never be matched


@pytest.mark.parametrize("variant,opts", [("onehot", {}), ("onehot", {"support": False, "edge_amo": True}),
                                          ("log", {}), ("log", {"support": False}),
                                          ("onehot", {"cell_amo": False, "piece_cell": False, "redundant": "none"})])
def test_every_model_of_the_cnf_is_a_solution(tmp_path, variant, opts):
    """Soundness, not just one lucky model: every model of the file (projected on the placement
    variables, enumerated with blocking clauses) is a solved board, and there are as many as
    the backtracking search counts. `support=false` alone once let an edge take two colours,
    so models with unmatched edges were solutions of the file; it is refused now."""
    puzzle = emc.load("set2-4x4")
    sp = Subproblem.whole(puzzle)
    path = tmp_path / "p.cnf"
    encode(sp, "cnf", variant, **opts).write(path)
    xmap = read_map(path)
    boards = set()
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(path)).clauses) as s:
        while s.solve():
            on = [v for v in s.get_model() if v > 0 and v in xmap]
            board = board_from_model(puzzle, Board.from_hints(puzzle), on, xmap)
            assert emc.verify(puzzle, board).solved
            boards.add(tuple(sorted(on)))
            s.add_clause([-v for v in on])
    assert len(boards) == get_backend("backtrack").count(sp).count == 12


def test_options_that_would_do_nothing_are_named_or_refused(tmp_path, cli):
    """The log variant has no one-hot colour variables for redundant clauses, edge at-most-one or
    colour counts: its header says which asked-for options it has no use for, and an export
    that names one is refused; support=false without edge_amo is refused in one-hot."""
    p = emc.load("set2-4x4")
    with pytest.raises(InputError, match="support=false needs edge_amo=true"):
        encode(Subproblem.whole(p), "cnf", support=False)
    texts = {}
    for red in ("none", "pairs", "triples"):
        path = tmp_path / f"{red}.cnf"
        encode(Subproblem.whole(p), "cnf", "log", redundant=red).write(path)
        texts[red] = [l for l in path.read_text().splitlines() if not l.startswith("c ")]
        head = path.read_text()
        assert (f"c options without effect here: redundant={red} (one-hot variant only)\n" in head) == (red != "none")
    assert texts["none"] == texts["pairs"] == texts["triples"]  # the clauses: what "without effect" means
    r = cli("export", "set2-4x4", "-f", "cnf", "--variant", "log", "-O", "colour_counts=true", "-o", tmp_path / "x.cnf")
    assert r.code == 2 and "--option colour_counts: no effect on this model (one-hot variant only)" in r.err, r
    assert not (tmp_path / "x.cnf").exists()
    r = cli("suite", "-o", tmp_path / "s", "--instances", "set2-4x4", "--formats", "cnf", "--variants", "onehot,log",
            "-O", "redundant=triples")
    assert r.code == 0, r
    encode(Subproblem.whole(p), "cnf", "log").write(tmp_path / "plain.cnf")  # the suite leaves the idle option out
    assert (tmp_path / "s/cnf/set2-4x4.log.cnf").read_bytes() == (tmp_path / "plain.cnf").read_bytes()
    assert "options without effect" not in (tmp_path / "s/cnf/set2-4x4.onehot.cnf").read_text()


@pytest.mark.parametrize("solver, words", [("kissat404", "not incremental"), ("lingeling", "no literal propagation"),
                                           ("cadical103", "no literal propagation")])
def test_maxsat_oracles_pysat_cannot_run_are_refused_before_the_solve(cli, solver, words):
    """They passed the name check and failed once RC2 started ("not yet implemented")."""
    r = cli("solve", "set2-4x4", "-b", "maxsat", "--goal", "optimisation", "--solver", solver)
    assert r.code == 2 and words in r.err and len(r.err.strip().splitlines()) == 1 and not r.out, r
    if solver != "kissat404":  # the linear search asks for no propagation
        r = cli("solve", "set2-4x4", "-b", "maxsat", "--goal", "optimisation", "--solver", solver, "-O", "algorithm=lsu")
        assert r.code == 0 and "status OPTIMAL  matched 24/24" in r.out, r


def test_encoding_options_the_log_variant_has_not_are_refused_as_export_refuses_them(cli, tmp_path):
    for key, value in (("redundant", '"triples"'), ("edge_amo", "true"), ("colour_counts", "true")):
        r = cli("solve", "set2-5x5", "-b", "sat", "--variant", "log", "-O", f"encoding={{\"{key}\": {value}}}")
        assert r.code == 2 and f"-O encoding {key}=" in r.err and "no effect with the log variant" in r.err, r
        assert not r.out  # refused before the header
    e = cli("export", "set2-5x5", "-f", "cnf", "--variant", "log", "-O", "redundant=triples", "-o", tmp_path / "x.cnf")
    assert e.code == 2 and "no effect on this model (one-hot variant only)" in e.err, e
    for enc in ('encoding={"redundant": "none"}', 'encoding={"edge_amo": false}'):  # nothing asked that is lost
        assert cli("solve", "set2-5x5", "-b", "sat", "--variant", "log", "-O", enc).code == 0


def _models_and_boards(path, cap: int) -> tuple[int, set]:
    """Up to ``cap`` models of a CNF file, each blocked whole, and the boards (true x variables
    of the file's map) among them."""
    xs = sorted(read_map(path))
    models, boards = 0, set()
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(path)).clauses) as s:
        while models < cap and s.solve():
            m = s.get_model()
            models += 1
            boards.add(tuple(v for v in xs if m[v - 1] > 0))
            s.add_clause([-lit for lit in m])
    return models, boards


@pytest.mark.parametrize("variant", ["onehot", "log"])
def test_the_header_says_whether_models_are_boards_and_projecting_counts_them(tmp_path, variant):
    """The `c models:` line is right for every cardinality encoding, with and without
    colour_counts: enumerating the models of set 2's 4x4 (12 boards with the first corner
    pinned) gives 12 exactly when it says one per board, more when it says several; projected
    onto the x variables of the file's map, every encoding gives the 12 boards."""
    from emc.encoders.cnf import CARD_ENCODINGS

    sp = Subproblem.whole(emc.load("set2-4x4"), Goal.FEASIBILITY)
    for card, counts in itertools.product(CARD_ENCODINGS, (False, True)):
        if variant == "log" and counts:
            continue  # one-hot only
        path = tmp_path / f"{card}-{counts}.cnf"
        encode(sp, "cnf", variant, card=card, colour_counts=counts).write(path)
        line = next(ln for ln in path.read_text().splitlines() if ln.startswith("c models: "))
        xs = sorted(read_map(path))
        models, boards = _models_and_boards(path, 40)
        one = line.startswith("c models: one per board")
        assert one == (models == 12), (card, counts, line, models)
        # projected: block the x variables only, so each board comes once
        found = 0
        with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(path)).clauses) as s:
            while s.solve():
                m = s.get_model()
                found += 1
                s.add_clause([-v if m[v - 1] > 0 else v for v in xs])
        assert found == 12 and (one or len(boards) < models), (card, counts, found)


@pytest.mark.parametrize("variant, opts", [("onehot", {}), ("log", {}), ("onehot", {"piece_cell": False}),
                                           ("onehot", {"redundant": "triples", "colour_counts": True})])
def test_no_clause_is_written_twice(tmp_path, variant, opts):
    """Whole puzzles held the pinned corner's unit clause twice (its cell and its piece each had
    only that placement), and log CNFs some support clauses equal to a cell's at-least-one."""
    from collections import Counter

    for name in ("set2-4x4", "set2-5x5"):
        sp = Subproblem.whole(emc.load(name), Goal.FEASIBILITY)
        for fmt in ("cnf",) + (("wcnf",) if variant == "onehot" and not opts.get("colour_counts") else ()):
            path = tmp_path / f"x.{fmt}"
            enc = encode(sp, fmt, variant, **{k: v for k, v in opts.items() if fmt == "cnf" or k != "colour_counts"})
            enc.write(path)
            body = [ln.split(maxsplit=1)[1] if fmt == "wcnf" else ln for ln in path.read_text().splitlines()
                    if ln and ln[0] not in "cp"]
            twice = [c for c, k in Counter(body).items() if k > 1]
            assert not twice, (name, fmt, twice[:3])


@pytest.mark.parametrize("opts", [{}, {"cell_amo": False}, {"cell_amo": False, "piece_cell": False}])
def test_every_model_of_a_region_with_spare_pieces_is_a_fill(tmp_path, opts):
    """With more pieces than free cells nothing else keeps two pieces off one cell, so the
    cell at-most-one clauses stay even with cell_amo=false (which drops them only for exact
    covers): every model of the file, enumerated, is one piece per cell. The spare pieces
    include a twin of a region piece, which could sit on the same cell showing the same colours."""
    puzzle, planted = emc.generate(5, 5, 2, 2, seed=0)
    twins = next(g for g in puzzle.duplicate_groups() if len(g) > 1)
    cell_of = {int(p): c for c, p in enumerate(planted.piece)}
    board = planted.copy()
    spare = [cell_of[twins[1]], cell_of[twins[-1]] if len(twins) > 2 else 0]
    board.clear(spare)
    region = [cell_of[twins[0]], 12 if cell_of[twins[0]] != 12 else 6]
    sp = Subproblem.region(puzzle, board, region, Goal.FEASIBILITY,
                           pieces=list(planted.piece[region]) + list(planted.piece[spare]))
    assert not sp.exact_cover
    path = tmp_path / "r.cnf"
    encode(sp, "cnf", **opts).write(path)
    xmap = read_map(path)
    n = 0
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(path)).clauses) as s:
        while s.solve():
            on = [v for v in s.get_model() if v > 0 and v in xmap]
            cells = [(xmap[v][2], xmap[v][3]) for v in on]
            assert len(cells) == len(set(cells)) == len(region), (opts, cells)
            assert check_subproblem_solution(sp, board_from_model(puzzle, board, on, xmap)) == []
            n += 1
            s.add_clause([-v for v in on])
    assert n >= 1


@pytest.mark.parametrize("card", ["seqcounter", "ladder", "totalizer"])
def test_the_models_line_holds_for_regions_with_spare_pieces_too(tmp_path, card):
    """A region of a generated board whose pieces outnumber its cells (at-most-one rows instead
    of exact covers): full models and boards still agree exactly when the line says so."""
    puzzle, planted = emc.generate(5, 5, 2, 2, seed=0)
    board = planted.copy()
    board.clear([18])
    region = [6, 7, 11, 12]
    sp = Subproblem.region(puzzle, board, region, Goal.FEASIBILITY,
                           pieces=list(planted.piece[region]) + [int(planted.piece[18])])
    path = tmp_path / "r.cnf"
    encode(sp, "cnf", card=card).write(path)
    one = "c models: one per board" in path.read_text()
    models, boards = _models_and_boards(path, 500)
    assert boards and one == (models == len(boards)), (card, models, len(boards))
    assert one == (card != "totalizer")


def test_a_loose_cardinality_encoding_that_made_no_auxiliary_keeps_models_as_boards(tmp_path):
    """set 2's 3x3 has no group of more than four literals: even card=totalizer writes its
    at-most-one pairwise there, with no auxiliary variable, so its models are its boards."""
    sp = Subproblem.whole(emc.load("set2-3x3"), Goal.FEASIBILITY)
    path = tmp_path / "t.cnf"
    enc = encode(sp, "cnf", card="totalizer")
    enc.write(path)
    assert enc.aux is None and "c models: one per board" in path.read_text()
    n = 0
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(path)).clauses) as s:
        while s.solve():
            n += 1
            s.add_clause([-lit for lit in s.get_model()])
    assert n == get_backend("backtrack").count(sp).count


# ----------------------------------------------------------------------------- clause families of issue 52
#: Option sets that must all have the same boards: every clause family on its own, with and
#: without piece-on-cell variables, and mixed with the older options.
FAMILIES = [
    {},
    {"forbid": "none", "piece_support": False},
    {"forbid": "piece"},
    {"forbid": "placement"},
    {"forbid": "both"},
    {"forbid": "piece", "piece_cell": False},
    {"forbid": "both", "piece_cell": False, "cell_amo": False},
    {"piece_support": True},
    {"piece_support": True, "forbid": "piece", "card": "pairwise"},
    {"forbid": "piece", "card": "pairwise", "redundant": "none"},
    {"forbid": "both", "redundant": "triples", "colour_counts": True, "card": "ladder"},
    {"forbid": "piece", "prune": False, "support": False, "edge_amo": True},
]


def _boards_of_file(path, puzzle) -> set:
    """Every model of a CNF file projected on its placement variables (each board blocked by
    its true x variables once found), as (pieces, rotations) of the decoded boards; each must
    be a solved board."""
    xmap = read_map(path)
    xs = sorted(xmap)
    out = set()
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(path)).clauses) as s:
        while s.solve():
            m = s.get_model()
            on = [v for v in xs if m[v - 1] > 0]
            b = board_from_model(puzzle, Board.from_hints(puzzle), on, xmap)
            assert emc.verify(puzzle, b).solved
            key = (tuple(b.piece.tolist()), tuple(b.rotation.tolist()))
            assert key not in out  # blocking the x variables blocks the board
            out.add(key)
            s.add_clause([-v if m[v - 1] > 0 else v for v in xs])
    return out


@pytest.mark.parametrize("opts", FAMILIES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_every_clause_family_keeps_exactly_the_brute_force_boards(tmp_path, opts):
    """The redundant clause families (forbidden colours, piece support, explicit at-most-one,
    ...) must not lose a board nor let a non-board through: the boards of each file, found
    by enumerating its models on the placement variables, are the brute-force search's,
    board for board, on puzzles with several solutions (twin pieces included)."""
    from bruteforce import brute_force_solutions

    cases = [emc.load("set2-4x4"), emc.generate(3, 3, 1, 2, seed=1)[0], emc.generate(4, 3, 1, 3, seed=2)[0],
             emc.generate(4, 3, 2, 2, seed=1)[0]]
    assert any(len(g) > 1 for p in cases for g in p.duplicate_groups())  # twins among the pieces
    for puzzle in cases:
        want = {(tuple(b.piece.tolist()), tuple(b.rotation.tolist())) for b in brute_force_solutions(puzzle)}
        assert len(want) > 1
        path = tmp_path / f"{puzzle.name}.cnf"
        encode(Subproblem.whole(puzzle), "cnf", **opts).write(path)
        assert _boards_of_file(path, puzzle) == want, (puzzle.name, opts)


@pytest.mark.parametrize("opts", [{"forbid": "piece"}, {"forbid": "both", "piece_support": True},
                                  {"forbid": "placement", "piece_cell": False}])
def test_clause_families_keep_a_region_with_spare_pieces_exact(tmp_path, opts):
    """A region with more pieces than cells (no exact cover): the files' fills are every fill
    the brute force finds."""
    from bruteforce import every_fill

    puzzle, planted = emc.generate(5, 5, 2, 2, seed=0)
    board = planted.copy()
    board.clear([18])
    region = [6, 7, 11, 12]
    sp = Subproblem.region(puzzle, board, region, Goal.FEASIBILITY,
                           pieces=list(planted.piece[region]) + [int(planted.piece[18])])
    want = {(tuple(b.piece.tolist()), tuple(b.rotation.tolist())) for _, _, b in every_fill(sp)
            if check_subproblem_solution(sp, b) == []}
    path = tmp_path / "r.cnf"
    encode(sp, "cnf", **opts).write(path)
    xmap = read_map(path)
    xs = sorted(xmap)
    got = set()
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(path)).clauses) as s:
        while s.solve():
            m = s.get_model()
            on = [v for v in xs if m[v - 1] > 0]
            b = board_from_model(puzzle, board, on, xmap)
            got.add((tuple(b.piece.tolist()), tuple(b.rotation.tolist())))
            s.add_clause([-v if m[v - 1] > 0 else v for v in xs])
    assert got == want and want


def test_clause_families_are_in_the_header_and_add_the_clauses_they_name(tmp_path):
    sp = Subproblem.whole(emc.load("set2-5x5"))
    path = tmp_path / "f.cnf"
    encode(sp, "cnf", forbid="both", piece_support=True).write(path)
    head = [ln for ln in path.read_text().splitlines() if ln.startswith("c ") and ln[2:4] not in ("x ", "z ", "e ")]
    opts = next(ln for ln in head if ln.startswith("c variant "))
    assert "forbid=both" in opts and "piece_support=True" in opts
    kinds = next(ln for ln in head if ln.startswith("c hard clauses by kind "))
    counts = dict(kv.split("=") for kv in kinds.split()[5:])
    assert int(counts["forbid"]) > 0 and int(counts["piece-support"]) > 0
    # each family only adds clauses: the same variables, and every clause of the plain file kept
    plain = encode(sp, "cnf", forbid="none", piece_support=False)
    both = encode(sp, "cnf", forbid="both", piece_support=True)
    assert plain.n_vars == both.n_vars
    assert {tuple(c) for c in plain.clauses()} <= {tuple(c) for c in both.clauses()}
    piece, place = (encode(sp, "cnf", forbid=f, piece_support=False) for f in ("piece", "placement"))
    extra = lambda e: {tuple(c) for c in e.clauses()} - {tuple(c) for c in plain.clauses()}  # noqa: E731
    assert all(len(c) == 2 and c[0] < 0 and c[1] < 0 for c in extra(piece) | extra(place))
    assert extra(piece) | extra(place) == extra(encode(sp, "cnf", forbid="both", piece_support=False))
    # the piece-level clauses start from z variables, which the placement-level ones never use
    zs = set(both.z_var.tolist()) - set(both.x_var.tolist())
    assert any(-c[0] in zs for c in extra(piece)) and not any(-c[0] in zs for c in extra(place))


def test_clause_family_options_refuse_bad_values_and_say_when_idle(tmp_path):
    sp = Subproblem.whole(emc.load("set2-4x4"))
    with pytest.raises(InputError, match="forbidden-colour clause set") as err:
        encode(sp, "cnf", forbid="colours")
    assert all(v in str(err.value) for v in ("none", "piece", "placement", "both"))
    with pytest.raises(InputError, match="piece_support is true or false"):
        encode(sp, "cnf", piece_support="yes")
    with pytest.raises(InputError, match="piece_support"):
        encode(sp.with_goal(Goal.OPTIMISATION), "wcnf", piece_support=True)  # edges may stay unmatched there
    path = tmp_path / "n.cnf"
    encode(sp, "cnf", piece_cell=False, piece_support=True).write(path)
    assert "c options without effect here: piece_support=True (needs piece_cell=true" in path.read_text()
    encode(sp, "cnf", "log", forbid="piece").write(path)
    assert "forbid=piece (one-hot variant only)" in path.read_text()


def test_clause_family_files_are_deterministic(tmp_path):
    sp = Subproblem.whole(emc.load("set2-5x5"))
    for opts in ({"forbid": "both", "piece_support": True}, {"forbid": "piece", "tiebreak": 3}):
        a, b = tmp_path / "a.cnf", tmp_path / "b.cnf"
        encode(sp, "cnf", **opts).write(a)
        encode(sp, "cnf", **opts).write(b)
        assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("forbid", ["piece", "placement", "both"])
def test_wcnf_forbidden_colours_keep_the_optimum(forbid):
    """In the WCNF a colour variable means "matched in that colour": a piece that never shows
    the colour cannot be on either side, so the clauses hold there too; RC2's optimum of a
    region whose best fill leaves edges unmatched is the brute force's."""
    puzzle, board = scrambled(5, 4, 2)
    sp = Subproblem.region(puzzle, board, [1, 2, 6, 7], Goal.OPTIMISATION)
    want = brute_force_optimum(sp)
    assert want < sp.max_score
    enc = encode(sp, "wcnf", forbid=forbid)
    assert enc.hard.sections().get("forbid", 0) > 0
    res = get_backend("maxsat").solve(sp, time_limit=60, encoding={"forbid": forbid})
    assert res.status is Status.OPTIMAL and res.objective == want


def _twins_in_order(puzzle, board, pieces=None) -> bool:
    """Of every two twin pieces (equal up to rotation) among ``pieces``, the lower-numbered one
    sits on the lower-numbered cell."""
    cell = {int(p): c for c, p in enumerate(board.piece.tolist()) if p >= 0}
    for g in puzzle.duplicate_groups():
        mem = sorted(p for p in g if pieces is None or p in pieces)
        if any(cell[a] > cell[b] for a, b in zip(mem, mem[1:])):
            return False
    return True


@pytest.mark.parametrize("opts", [{"twins": True}, {"twins": True, "piece_cell": False},
                                  {"twins": True, "forbid": "piece", "order": "reverse"}])
def test_twins_keeps_exactly_the_brute_force_boards_with_twins_in_order(tmp_path, opts):
    """Symmetry breaking among twin pieces: the file's boards are exactly the brute-force boards
    whose twins are in order, fewer than all, and every picture (the colours each cell shows)
    of the puzzle's boards is still among them: swapping twins keeps the picture, so no
    solution is lost up to that symmetry."""
    from bruteforce import brute_force_solutions

    for puzzle in (emc.generate(3, 3, 1, 2, seed=1)[0], emc.generate(4, 3, 1, 3, seed=2)[0],
                   emc.generate(4, 3, 2, 2, seed=1)[0]):
        every = brute_force_solutions(puzzle)
        kept = [b for b in every if _twins_in_order(puzzle, b)]
        want = {(tuple(b.piece.tolist()), tuple(b.rotation.tolist())) for b in kept}
        assert 0 < len(want) < len(every)
        picture = lambda b: tuple(map(tuple, b.shown(puzzle).tolist()))  # noqa: E731
        assert {picture(b) for b in kept} == {picture(b) for b in every}
        path = tmp_path / "t.cnf"
        encode(Subproblem.whole(puzzle), "cnf", **opts).write(path)
        assert _boards_of_file(path, puzzle) == want, (puzzle.name, opts)
        assert "twins=True keeps one board of each set" in path.read_text()


def test_twins_in_a_region_orders_the_free_twins_and_is_idle_without_them(tmp_path):
    puzzle, planted = emc.generate(4, 4, 1, 2, seed=3)
    twins = next(g for g in puzzle.duplicate_groups() if len(g) > 1)
    cell_of = {int(p): c for c, p in enumerate(planted.piece)}
    region = sorted({cell_of[p] for p in twins} | {5, 6})
    sp = Subproblem.region(puzzle, planted, region, Goal.FEASIBILITY)
    from bruteforce import every_fill

    fills = [b for _, _, b in every_fill(sp) if check_subproblem_solution(sp, b) == []]
    free = set(sp.pieces.tolist())
    want = {(tuple(b.piece.tolist()), tuple(b.rotation.tolist())) for b in fills if _twins_in_order(puzzle, b, free)}
    assert 0 < len(want) < len(fills)
    path = tmp_path / "r.cnf"
    encode(sp, "cnf", twins=True).write(path)
    xmap = read_map(path)
    xs = sorted(xmap)
    got = set()
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(path)).clauses) as s:
        while s.solve():
            m = s.get_model()
            b = board_from_model(puzzle, sp.fixed, [v for v in xs if m[v - 1] > 0], xmap)
            got.add((tuple(b.piece.tolist()), tuple(b.rotation.tolist())))
            s.add_clause([-v if m[v - 1] > 0 else v for v in xs])
    assert got == want
    encode(Subproblem.whole(emc.load("set2-4x4")), "cnf", twins=True).write(path)  # set 2 has no twins
    text = path.read_text()
    assert "c options without effect here: twins=True (no two free pieces" in text and "keeps one board" not in text


def test_sat_backend_takes_the_clause_families_and_refuses_what_would_mislead():
    puzzle = emc.generate(4, 3, 1, 3, seed=2)[0]
    sp = Subproblem.whole(puzzle)
    sat = get_backend("sat")
    res = sat.solve(sp, time_limit=60, encoding={"forbid": "both", "piece_support": True, "twins": True})
    assert res.status is Status.OPTIMAL and emc.verify(puzzle, res.board).solved
    want = get_backend("backtrack").count(sp).count
    assert sat.count(sp, encoding={"forbid": "both", "piece_support": True}).count == want
    with pytest.raises(InputError, match="twins=true keeps one board"):
        sat.count(sp, encoding={"twins": True})
    with pytest.raises(InputError, match="-O encoding forbid=piece: no effect with the log variant"):
        sat.solve(sp, variant="log", encoding={"forbid": "piece"})
