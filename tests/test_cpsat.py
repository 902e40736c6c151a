"""CP-SAT formulation and backend, checked against the real OR-Tools solver.

Exported models are read back from the file with protobuf's own parsers and solved by a
fresh CpSolver; answers are decoded by variable name and verified by emc. Counts and optima
are compared with brute force written here, independently of the encoder.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import emc
from emc.backends import Status, get_backend
from emc.encoders import encode, formulation_of_format, get_encoder
from emc.encoders.cpsat import FEASIBILITY_VARIANTS
from emc.errors import InputError
from emc.model import Board, Goal, Subproblem
from emc.score import check_subproblem_solution

from bruteforce import brute_force_optimum, brute_force_solutions, swapped_blocks
from golden import assert_golden
from helpers import ctrl_c_after_first_board, unsolvable_optimisation

pytest.importorskip("ortools")
from google.protobuf import text_format  # noqa: E402
from ortools.sat import cp_model_pb2  # noqa: E402
from ortools.sat.python import cp_model  # noqa: E402

VARIANTS = get_encoder("cpsat").variants
OPTIMISATION_VARIANTS = [v for v in VARIANTS if v not in FEASIBILITY_VARIANTS]


@pytest.fixture(scope="module")
def below_max_region():
    """A region whose best refill matches fewer than all counted edges (first seed that has one)."""
    for seed in range(1, 40):
        P, board, A = swapped_blocks(seed)
        sp = Subproblem.region(P, board, A, Goal.OPTIMISATION)
        best = brute_force_optimum(sp)
        if best < sp.max_score:
            return sp, best
    pytest.fail("no generated region with an optimum below its maximum")


# ---------------------------------------------------------------- export and decode
def _solve_file(path: Path) -> dict[str, int]:
    """Load the exported model from ``path`` with protobuf, solve it with a fresh solver,
    and return {variable name: value}."""
    pb = cp_model_pb2.CpModelProto()
    if path.suffix == ".pb":
        pb.ParseFromString(path.read_bytes())
    else:
        text_format.Parse(path.read_text(), pb)
    model = cp_model.CpModel()
    model.proto.parse_text_format(text_format.MessageToString(pb))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60
    # CP-SAT's own SIGINT handler stays installed after the solve and kills the process at the
    # next SIGINT: the Ctrl-C tests that run later in the same process would die with it.
    solver.parameters.catch_sigint_signal = False
    status = solver.solve(model)
    assert status in (cp_model.OPTIMAL, cp_model.FEASIBLE), solver.status_name(status)
    values = list(solver.response_proto.solution)
    return {v.name: int(x) for v, x in zip(pb.variables, values)}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("which", ["set2-3x3", "set2-4x4", "set2-4x3", "gen5x4"])
def test_exported_model_solved_from_file_decodes_by_name(tmp_path, which, variant):
    P = emc.generate(5, 4, 2, 3, seed=7)[0] if which == "gen5x4" else emc.load(which)
    sp = Subproblem.whole(P)
    enc = encode(sp, "cpsat", variant)
    suffix = ".pb" if variant == "table" else ".pbtxt"
    (path,) = enc.write(tmp_path / f"model{suffix}")
    named = _solve_file(path)
    for answer in (named, [n for n, v in named.items() if v]):
        board = enc.decode(answer)
        report = emc.verify(P, board)
        assert report.solved, report.problems


def test_golden_export(tmp_path, set2_3x3):
    enc = encode(Subproblem.whole(set2_3x3), "cpsat")
    (path,) = enc.write(tmp_path / "set2-3x3.cpsat.pbtxt")
    assert_golden(path, "set2-3x3.cpsat.pbtxt")


def test_export_is_deterministic_and_format_follows_suffix(tmp_path):
    P = emc.load("set2-4x4")
    sp = Subproblem.whole(P, Goal.OPTIMISATION)
    a = encode(sp, "cpsat").write(tmp_path / "a.pb")[0].read_bytes()
    b = encode(sp, "cpsat").write(tmp_path / "b.pb")[0].read_bytes()
    assert a == b
    t1 = encode(sp, "cpsat").write(tmp_path / "a.pbtxt")[0].read_text()
    t2 = encode(sp, "cpsat").write(tmp_path / "c.txt", fmt="pbtxt")[0].read_text()
    assert t1 == t2 and t1.startswith("# emc ") and "\nname: " in t1  # comment lines saying what it is, then the model
    pb = cp_model_pb2.CpModelProto()
    pb.ParseFromString(a)  # binary really is binary
    assert text_format.MessageToString(pb) == text_format.MessageToString(text_format.Parse(t1, cp_model_pb2.CpModelProto()))
    gz = encode(sp, "cpsat").write(tmp_path / "a.pbtxt.gz")[0]
    import gzip

    assert gzip.decompress(gz.read_bytes()).decode() == t1
    assert formulation_of_format("cpsat") == ("cpsat", "cpsat")


def test_sizes_and_names(set2_3x3):
    sp = Subproblem.whole(set2_3x3)
    enc = encode(sp, "cpsat", "sum")
    pl = sp.placements(fit_fixed=True)
    sizes = enc.sizes()
    assert sizes["variables"] == len(pl)  # the sum variant has placement Booleans only
    assert sizes["constraints"] > sp.n_free
    from emc.encoders.cpsat import parse_placement_name

    for name, p, c, r in zip(enc.names, pl.piece, pl.cell, pl.rotation):
        assert parse_placement_name(name) == (p, *divmod(int(c), set2_3x3.width), r)


def test_bad_input_is_an_input_error(set2_3x3):
    sp = Subproblem.whole(set2_3x3)
    with pytest.raises(InputError):
        encode(sp, "cpsat", "nonsense")
    with pytest.raises(InputError):
        encode(sp, "cpsat", colour="red")
    with pytest.raises(InputError):
        encode(sp, "cpsat", cuts=[Board.empty(emc.load("set2-4x4"))])
    enc = encode(sp, "cpsat")
    with pytest.raises(InputError):
        enc.decode(["x_p99_r1_c1_k0"])
    with pytest.raises(InputError):
        get_backend("cpsat").solve(sp, params={"no_such_parameter": 1})
    with pytest.raises(InputError):
        get_backend("cpsat").solve(sp, frobnicate=True)


# ---------------------------------------------------------------- backend
@pytest.mark.parametrize("variant", VARIANTS)
def test_backend_solves_whole_puzzles(variant):
    b = get_backend("cpsat")
    for name in ("set2-4x4", "set2-5x4"):
        P = emc.load(name)
        res = b.solve(Subproblem.whole(P), time_limit=60, threads=2, variant=variant)
        assert res.status is Status.OPTIMAL and emc.verify(P, res.board).solved


def test_optimisation_reports_improvements_and_proves_the_optimum(tmp_path):
    P = emc.load("set2-4x4")
    seen = []
    res = get_backend("cpsat").solve(Subproblem.whole(P, Goal.OPTIMISATION), time_limit=60, threads=2,
                                     log_path=tmp_path / "cpsat.log", on_improvement=lambda b, o: seen.append((b, o)))
    assert res.status is Status.OPTIMAL and res.objective == res.bound == P.max_score
    assert seen and [o for _, o in seen] == sorted(o for _, o in seen)
    assert all(emc.score(P, b) == o for b, o in seen)
    assert "CP-SAT" in (tmp_path / "cpsat.log").read_text()


@pytest.mark.parametrize("variant", OPTIMISATION_VARIANTS)
def test_region_optimum_matches_brute_force(below_max_region, variant):
    sp, best = below_max_region
    res = get_backend("cpsat").solve(sp, time_limit=60, variant=variant)
    assert res.status is Status.OPTIMAL and res.objective == best and res.bound == best


def test_region_without_perfect_fill_is_infeasible(below_max_region):
    sp, _ = below_max_region
    res = get_backend("cpsat").solve(sp.with_goal(Goal.FEASIBILITY), time_limit=60)
    assert res.status is Status.INFEASIBLE and res.board is None


def test_cleared_region_is_solved_back():
    P, planted = emc.generate(7, 6, 3, 5, seed=3)
    free = [P.cell_of(r, c) for r in range(1, 4) for c in range(2, 6)] + [0, 1, 2]
    for goal in Goal:
        sp = Subproblem.region(P, planted, free, goal)
        res = get_backend("cpsat").solve(sp, time_limit=60, threads=2, hint=planted if goal is Goal.OPTIMISATION else None)
        assert res.status is Status.OPTIMAL and res.objective == sp.max_score
        assert check_subproblem_solution(sp, res.board) == []


def test_spare_pieces_use_at_most_one():
    P, planted = emc.generate(6, 6, 2, 4, seed=5)
    free = [P.cell_of(2, 2), P.cell_of(2, 3)]
    spare = [int(planted.piece[P.cell_of(3, 3)])]
    board = planted.copy()
    board.clear([P.cell_of(3, 3)])
    sp = Subproblem.region(P, board, free, Goal.OPTIMISATION, pieces=list(planted.piece[free]) + spare)
    assert not sp.exact_cover
    res = get_backend("cpsat").solve(sp, time_limit=60)
    assert res.status is Status.OPTIMAL and res.objective == sp.max_score == brute_force_optimum(sp)


def test_cuts_exclude_given_solutions():
    P, _ = emc.generate(3, 3, 1, 2, seed=2)
    sp = Subproblem.whole(P)
    all_boards = brute_force_solutions(P)
    assert len(all_boards) >= 2
    b = get_backend("cpsat")
    keep = all_boards[-1]
    res = b.solve(sp, time_limit=60, cuts=all_boards[:-1])
    assert res.status is Status.OPTIMAL and res.board == keep
    res = b.solve(sp, time_limit=60, cuts=all_boards)
    assert res.status is Status.INFEASIBLE
    count = b.count(sp, cuts=all_boards[:1])
    assert count.complete and count.count == len(all_boards) - 1


def test_too_little_time_never_crashes():
    P = emc.load("set2-8x8")
    for goal in Goal:
        res = get_backend("cpsat").solve(Subproblem.whole(P, goal), time_limit=0.01, threads=2)
        assert res.status in (Status.UNKNOWN, Status.FEASIBLE, Status.OPTIMAL)
        if res.board is not None:
            assert emc.verify(P, res.board).valid
        # set 2's 8x8 has a perfect board, so no upper bound is below 112: stopped in presolve,
        # CP-SAT answered a bound of 0, which was reported as if proven
        assert res.bound is None or res.bound >= P.max_score


def test_deterministic_runs_repeat():
    P = emc.load("set2-5x5")
    sp = Subproblem.whole(P, Goal.OPTIMISATION)
    runs = [get_backend("cpsat").solve(sp, time_limit=0.5, threads=2, seed=3, deterministic=True) for _ in range(2)]
    assert runs[0].board == runs[1].board and runs[0].objective == runs[1].objective


# ---------------------------------------------------------------- counting
@pytest.mark.parametrize("w,h,colours,seed", [(3, 3, 2, 1), (3, 3, 2, 4), (4, 3, 2, 1), (4, 3, 3, 2)])
def test_counts_match_brute_force(w, h, colours, seed):
    P, _ = emc.generate(w, h, 1, colours, seed=seed)
    want = brute_force_solutions(P)
    got = get_backend("cpsat").count(Subproblem.whole(P), keep=3)
    assert got.complete and got.count == len(want) > 1
    keys = {(tuple(x.piece), tuple(x.rotation)) for x in want}
    assert all((tuple(x.piece), tuple(x.rotation)) in keys for x in got.boards)


@pytest.mark.parametrize("w,h,seed", [(3, 3, 1), (3, 3, 4)])
def test_counts_without_symmetry_breaking(w, h, seed):
    # every board is then counted once per turn of the board that keeps its shape
    P, _ = emc.generate(w, h, 1, 2, seed=seed)
    nosym = get_backend("cpsat").count(Subproblem.whole(P, symmetry_breaking=False))
    assert nosym.count == len(brute_force_solutions(P, symmetry=False)) == len(brute_force_solutions(P)) * 4


def test_count_limit_stops_early():
    P, _ = emc.generate(4, 3, 1, 2, seed=2)
    res = get_backend("cpsat").count(Subproblem.whole(P), limit=2)
    assert res.count == 2 and not res.complete


# ---------------------------------------------------------------- Ctrl-C
@pytest.mark.slow
def test_interrupt_returns_best_board_without_traceback(tmp_path):
    first, (status, score, interrupted, valid) = ctrl_c_after_first_board(tmp_path, "cpsat", threads=2)
    assert status == "feasible" and int(score) >= first and interrupted == valid == "True"


@pytest.mark.slow
def test_optimisation_reports_its_bound_as_progress():
    sp = unsolvable_optimisation("set2-5x5")  # no perfect board: CP-SAT has to bring its bound down
    cp = get_backend("cpsat")
    lines: list[str] = []
    res = cp.solve(sp, time_limit=60, threads=2, on_progress=lines.append)
    assert res.status is Status.OPTIMAL and res.objective < sp.max_score and cp.progress is None
    # first what it is doing (building a large model, then presolving, can take a while), then bounds
    phases = ["building the CP-SAT model", r"CP-SAT presolving and searching \([\d,]+ variables, [\d,]+ constraints\)"]
    assert all(re.fullmatch(want, got) for want, got in zip(phases, lines[:2], strict=True)), lines
    lines = lines[2:]
    bounds = [int(x.removeprefix("bound ")) for x in lines if x.startswith("bound ")]
    assert bounds and len(bounds) == len(lines)
    assert bounds == sorted(bounds, reverse=True) and len(set(bounds)) == len(bounds)  # each line a drop
    assert sp.max_score >= bounds[0] and bounds[-1] >= res.objective
    lines.clear()
    assert cp.solve(sp.with_goal(Goal.FEASIBILITY), time_limit=60, on_progress=lines.append).status is Status.INFEASIBLE
    assert len(lines) == 2 and lines[0] == "building the CP-SAT model"  # no objective, no bound


def test_variants_that_differ_only_in_feasibility_are_refused_in_optimisation(below_max_region, cli, tmp_path):
    """In optimisation sum and clause built edgevar's model (only the name line differed), so a
    benchmark file or a run would have claimed a model it was not."""
    sp, _ = below_max_region
    assert FEASIBILITY_VARIANTS and OPTIMISATION_VARIANTS == ["edgevar", "table"]
    for variant in FEASIBILITY_VARIANTS:
        with pytest.raises(InputError, match=f"the {variant} variant differs from edgevar in feasibility models only"):
            encode(sp, "cpsat", variant)
        with pytest.raises(InputError, match="use edgevar"):
            get_backend("cpsat").solve(sp, time_limit=5, variant=variant)
        encode(sp.with_goal(Goal.FEASIBILITY), "cpsat", variant)  # still built for feasibility
        r = cli("export", "set2-4x4", "-f", "cpsat", "--variant", variant, "-o", tmp_path / "m.pbtxt")
        assert r.code == 2 and "differs from edgevar in feasibility models only" in r.err, r
    r = cli("suite", "-o", tmp_path / "s", "--instances", "set2-4x4", "--formats", "cpsat", "--variants", "edgevar,sum")
    assert r.code == 2 and "cpsat/sum: the sum variant differs" in r.err and not (tmp_path / "s").exists(), r
    r = cli("suite", "-o", tmp_path / "s", "--instances", "set2-4x4", "--formats", "cpsat", "--variants", "edgevar,sum",
            "--goal", "feasibility")
    assert r.code == 0, r


def test_a_search_a_params_setting_ends_is_not_said_to_have_hit_a_time_limit():
    """stop_after_first_solution in params, no time limit: the answer was marked interrupted
    (the CLI then said "time limit reached"); now stats say a params setting stopped it."""
    sp = Subproblem.whole(emc.load("set2-6x6"), Goal.OPTIMISATION)
    res = get_backend("cpsat").solve(sp, threads=1, seed=0, params={"stop_after_first_solution": True})
    assert res.status is Status.FEASIBLE and res.objective < sp.max_score, res
    assert not res.interrupted and "a setting in params ended the search" in res.stats["stopped"]


def test_count_limits_keep_and_bounds_of_cpsat_and_minizinc():
    """set 2's 4x4 has 12 boards with the corner pinned: a limit of 1 stops short (not
    complete) in CP-SAT and MiniZinc, `keep` keeps exactly that many boards; MiniZinc's time
    limit is capped at 20 days."""
    from datetime import timedelta

    from emc.backends.minizinc import _minizinc_limit

    sp = Subproblem.whole(emc.load("set2-4x4"), Goal.FEASIBILITY)
    cp = get_backend("cpsat")
    one = cp.count(sp, limit=1)
    assert one.count == 1 and not one.complete
    kept = cp.count(sp, keep=2)
    assert kept.count == 12 and kept.complete and len(kept.boards) == 2
    assert all(emc.verify(sp.puzzle, b).solved for b in kept.boards)
    mz = get_backend("minizinc")
    one = mz.count(sp, limit=1)
    assert one.count == 1 and not one.complete
    assert _minizinc_limit(1e9) == timedelta(days=20) and _minizinc_limit(5) == timedelta(seconds=5)


@pytest.mark.parametrize("backend", ["cpsat", "minizinc"])
def test_an_infeasible_feasibility_solve_reports_no_board_and_no_bound(backend):
    """No perfect board: INFEASIBLE, and no bound (a solver's "largest score below the maximum"
    would read as a proven optimum that is not there)."""
    from helpers import unsolvable

    sp = Subproblem.whole(unsolvable(emc.load("set2-4x4")), Goal.FEASIBILITY)
    res = get_backend(backend).solve(sp, time_limit=60)
    assert res.status is Status.INFEASIBLE and res.board is None and res.bound is None


def test_a_time_limited_optimisation_keeps_its_bound_between_the_board_and_the_maximum():
    sp = unsolvable_optimisation("set2-7x7")
    res = get_backend("cpsat").solve(sp, time_limit=2, threads=1, seed=1)
    assert res.status in (Status.FEASIBLE, Status.OPTIMAL) and res.board is not None
    assert res.objective <= res.bound <= sp.max_score - 0 and res.objective == sp.score(res.board)


# ---------------------------------------------------------------- every model solution, against brute force
def _region_cases():
    """Small feasibility regions with several perfect fills each: of a planted 5x4 with two
    inner colours, four cells of an exact cover, one of them on the frame; three inner cells
    with a spare inner piece (its cell r3c4 cleared, away from them); three cells beside an empty fixed cell
    (r3c4 cleared, not free); the inner 2x2 block of a planted 4x4 with three, and three cells of
    another."""
    P, planted = emc.generate(5, 4, 2, 2, seed=2)
    c = P.cell_of
    exact = Subproblem.region(P, planted, [c(1, 1), c(1, 2), c(1, 3), c(0, 2)], Goal.FEASIBILITY)
    cells = [c(1, 1), c(1, 2), c(2, 1)]
    b = planted.copy()
    b.clear([c(2, 3)])
    spare = Subproblem.region(P, b, cells, Goal.FEASIBILITY,
                              pieces=list(planted.piece[cells]) + [int(planted.piece[c(2, 3)])])
    b = planted.copy()
    b.clear([c(2, 3)])
    beside = Subproblem.region(P, b, [c(1, 2), c(1, 3), c(2, 2)], Goal.FEASIBILITY)
    P3, planted3 = emc.generate(4, 4, 2, 3, seed=4)  # three inner colours: the inner 2x2 block
    block = Subproblem.region(P3, planted3, [P3.cell_of(r, k) for r in (1, 2) for k in (1, 2)], Goal.FEASIBILITY)
    P1, planted1 = emc.generate(4, 4, 2, 3, seed=1)  # one perfect fill, and colour pairs one way round only
    three = Subproblem.region(P1, planted1, [P1.cell_of(1, 1), P1.cell_of(1, 2), P1.cell_of(2, 1)], Goal.FEASIBILITY)
    return {"exact": exact, "spare": spare, "beside_empty": beside, "block": block, "three": three}


def _perfect_fills(sp: Subproblem) -> set:
    """Every perfect fill of ``sp``, as ((piece, rotation) per free cell), by trying every
    assignment of the allowed pieces and frame-fitting rotations and scoring it with emc.score."""
    from bruteforce import every_fill

    return {tuple(zip(perm, rots)) for perm, rots, b in every_fill(sp) if sp.score(b) == sp.max_score}


def _model_fills(enc) -> set:
    """Every assignment of the placement Booleans a CP-SAT enumeration of ``enc`` reaches, as fills."""
    pl, lits = enc.placements, enc.literals

    class Collect(cp_model.CpSolverSolutionCallback):
        def __init__(self):
            super().__init__()
            self.fills = set()

        def on_solution_callback(self):
            on = [i for i, x in enumerate(lits) if self.Value(x)]
            by_cell = {int(pl.cell[i]): (int(pl.piece[i]), int(pl.rotation[i])) for i in on}
            self.fills.add(tuple(by_cell.get(int(c), (-1, -1)) for c in enc.subproblem.free))

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.catch_sigint_signal = False
    cb = Collect()
    status = solver.solve(enc.model, cb)
    assert status in (cp_model.OPTIMAL, cp_model.INFEASIBLE), solver.status_name(status)
    return cb.fills


@pytest.mark.slow
@pytest.mark.parametrize("options", [{}, {"balance": False}, {"exclusions": True}, {"pairs": True},
                                     {"piece_cells": True}, {"cell_vars": True}])
def test_feasibility_models_have_exactly_the_perfect_fills_as_solutions(options):
    """On small regions (exact cover, spare pieces, beside an empty fixed cell) the placements of
    the CP-SAT model's solutions, every variant and redundant option, are the perfect fills that
    brute force finds: no redundant row cuts a perfect fill away, none lets a mismatch in."""
    for name, sp in _region_cases().items():
        want = _perfect_fills(sp)
        assert len(want) >= (1 if name == "three" else 2), name
        for variant in VARIANTS:
            enc = encode(sp, "cpsat", variant, **options)
            assert _model_fills(enc) == want, (name, variant, options)


def test_a_cut_excludes_its_own_placements_only():
    """Cut (17) forbids the board's placements on the free cells all together, not a part of
    them: refilling one inner cell with the planted piece cut away still leaves its other turns
    (and with two cells, every other fill)."""
    P, planted = emc.generate(4, 4, 2, 3, seed=4)
    for cells in ([P.cell_of(1, 1)], [P.cell_of(1, 1), P.cell_of(1, 2)]):
        sp = Subproblem.region(P, planted, cells, Goal.OPTIMISATION)
        best_other = max(sp.score(b) for b in _all_fills(sp) if any(b.piece[c] != planted.piece[c] or
                                                                     b.rotation[c] != planted.rotation[c] for c in cells))
        for variant in OPTIMISATION_VARIANTS:
            res = get_backend("cpsat").solve(sp, time_limit=60, threads=1, variant=variant, cuts=[planted])
            assert res.status is Status.OPTIMAL, (cells, variant, res)
            assert res.objective == best_other == sp.score(res.board), (cells, variant)
            assert any(res.board.piece[c] != planted.piece[c] or res.board.rotation[c] != planted.rotation[c]
                       for c in cells)


def _all_fills(sp: Subproblem):
    """Every board filling ``sp``'s free cells with its pieces in frame-fitting turns."""
    from bruteforce import every_fill

    return (b for *_, b in every_fill(sp))
