"""Every registered backend against every other and against brute force.

Parametrised from the registries (one test case per backend), so a new backend is checked
as soon as it is registered: agreement on satisfiability and infeasibility, on optima of
sub-problems, on solution counts, and behaviour under a tiny time limit. A backend whose
solver is not installed is skipped with a reason that names the install command.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import emc
from emc.backends import BACKENDS, Capability, Status, backend_class, get_backend
from emc.model import Goal, Subproblem
from emc.score import check_subproblem_solution

from bruteforce import count_solutions, region_optimum
from helpers import unsolvable


def _backends(cap: Capability) -> list:
    out = []
    for name in BACKENDS:
        cls = backend_class(name)
        if cap in cls.capabilities:
            mark = () if cls.available() else (pytest.mark.skip(reason=f"{name} not installed: {cls.install_hint}"),)
            out.append(pytest.param(name, id=name, marks=mark))
    return out


FEAS = _backends(Capability.FEASIBILITY)
OPT = _backends(Capability.OPTIMISATION)
EXACT_OPT = [b for b in OPT if backend_class(b.values[0]).exact_optimisation]
HEURISTIC_OPT = [b for b in OPT if not backend_class(b.values[0]).exact_optimisation]
ENUM = _backends(Capability.ENUMERATION)


SAT_CASES = {
    "set2-3x3": lambda: emc.load("set2-3x3"),
    "set2-4x3": lambda: emc.load("set2-4x3"),
    "set2-4x4": lambda: emc.load("set2-4x4"),
    "set2-5x5": lambda: emc.load("set2-5x5"),
    "gen-5x4": lambda: emc.generate(5, 4, 2, 4, seed=21)[0],
}
UNSAT_CASES = {
    "set2-4x4-broken": lambda: unsolvable(emc.load("set2-4x4")),
    "gen-4x3-broken": lambda: unsolvable(emc.generate(4, 3, 2, 3, seed=5)[0]),
}


@pytest.mark.parametrize("backend", FEAS)
@pytest.mark.parametrize("case", sorted(SAT_CASES))
def test_feasible_puzzles_are_solved(backend, case):
    p = SAT_CASES[case]()
    res = get_backend(backend).solve(Subproblem.whole(p), time_limit=60, threads=1, seed=0)
    assert res.status is Status.OPTIMAL, res
    assert emc.verify(p, res.board).solved


@pytest.mark.parametrize("backend", FEAS)
@pytest.mark.parametrize("case", sorted(UNSAT_CASES))
def test_infeasible_puzzles_are_proven_infeasible(backend, case):
    p = UNSAT_CASES[case]()
    res = get_backend(backend).solve(Subproblem.whole(p), time_limit=60, threads=1, seed=0)
    assert res.status is Status.INFEASIBLE, res
    assert res.board is None and res.bound is None  # no solver bound posing as an optimum


def _region_case(seed: int):
    """A planted 5x5 whose 3-cell inner region got one foreign piece: optimum below maximum."""
    p, b = emc.generate(5, 5, 2, 3, seed=seed)
    a, c, d = p.cell_of(1, 1), p.cell_of(1, 2), p.cell_of(2, 1)
    far = p.cell_of(3, 3)
    b.piece[[c, far]] = b.piece[[far, c]]
    free = [a, c, d]
    return p, b, free, region_optimum(p, b, free)


REGIONS = [_region_case(s) for s in (1, 2, 3)]


def test_region_cases_are_interesting():
    assert any(opt < Subproblem.region(p, b, free).max_score for p, b, free, opt in REGIONS)


@pytest.mark.parametrize("backend", EXACT_OPT)
@pytest.mark.parametrize("k", range(len(REGIONS)))
def test_optimisation_backends_find_the_brute_force_optimum(backend, k):
    p, b, free, opt = REGIONS[k]
    sp = Subproblem.region(p, b, free, Goal.OPTIMISATION)
    res = get_backend(backend).solve(sp, time_limit=60, threads=1, seed=0)
    assert res.status is Status.OPTIMAL, res
    assert res.objective == opt == sp.score(res.board)
    assert res.bound is None or res.bound == opt


@pytest.mark.parametrize("backend", FEAS)
def test_a_region_without_a_perfect_fill_is_infeasible_with_no_bound(backend):
    """Asked for a perfect fill of a region whose optimum is below its maximum, every backend
    proves it infeasible, with no bound (CP-SAT and MiniZinc used to report their objective bound,
    the maximum less one, which read like a proven optimum)."""
    p, b, free, opt = next(r for r in REGIONS if r[3] < Subproblem.region(r[0], r[1], r[2]).max_score)
    res = get_backend(backend).solve(Subproblem.region(p, b, free, Goal.FEASIBILITY), time_limit=60, threads=1, seed=0)
    assert res.status is Status.INFEASIBLE and res.board is None and res.bound is None, res


@pytest.mark.parametrize("backend", FEAS)
def test_a_cell_no_placement_fits_is_infeasible(backend):
    """One free cell holding a foreign piece: asked for a perfect fill, no placement of the piece
    matches the fixed neighbours, so the model is left with no variables at all (HiGHS then
    answered "Empty" and emc said UNKNOWN)."""
    p, b = emc.generate(5, 5, 2, 3, seed=1)
    c, far = p.cell_of(1, 2), p.cell_of(3, 3)
    b.piece[[c, far]] = b.piece[[far, c]]
    assert region_optimum(p, b, [c]) < Subproblem.region(p, b, [c]).max_score
    res = get_backend(backend).solve(Subproblem.region(p, b, [c], Goal.FEASIBILITY), time_limit=60, threads=1, seed=0)
    assert res.status is Status.INFEASIBLE and res.board is None and res.bound is None, res


@pytest.mark.parametrize("backend", HEURISTIC_OPT)
@pytest.mark.parametrize("k", range(len(REGIONS)))
def test_heuristic_optimisers_stay_within_the_optimum(backend, k):
    p, b, free, opt = REGIONS[k]
    sp = Subproblem.region(p, b, free, Goal.OPTIMISATION)
    res = get_backend(backend).solve(sp, time_limit=30, threads=1, seed=0)
    assert res.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert res.objective <= opt
    assert res.status is Status.FEASIBLE or opt == sp.max_score
    if res.bound is not None:
        assert res.bound >= opt


# Few colours: many solutions (96, 48 and 56 under symmetry breaking).
TINY = {
    "gen-3x3-f1-i2": lambda: emc.generate(3, 3, 1, 2, seed=3)[0],
    "gen-4x3-f2-i2-s1": lambda: emc.generate(4, 3, 2, 2, seed=1)[0],
    "gen-4x3-f2-i2-s4": lambda: emc.generate(4, 3, 2, 2, seed=4)[0],
}


@pytest.mark.parametrize("backend", ENUM)
@pytest.mark.parametrize("case", sorted(TINY))
def test_solution_counts_match_brute_force(backend, case):
    p = TINY[case]()
    want = count_solutions(p, symmetry=True)
    assert want > 1, "the case should have several solutions"
    res = get_backend(backend).count(Subproblem.whole(p), time_limit=120, keep=3)
    assert res.complete and res.count == want
    for board in res.boards:
        assert emc.verify(p, board).solved


@pytest.mark.parametrize("backend", ["sat", "cpsat", "minizinc"])
def test_counting_backends_report_the_solutions_so_far(backend):
    if not get_backend(backend).available():
        pytest.skip(f"{backend} is not installed")
    p = TINY["gen-3x3-f1-i2"]()
    lines: list[str] = []
    res = get_backend(backend).count(Subproblem.whole(p), time_limit=120, on_progress=lines.append)
    assert res.complete and lines
    counts = [int(x.split()[0]) for x in lines]
    assert lines == [f"{n} solution" + ("s" if n > 1 else "") for n in counts]
    assert counts[0] == 1 and counts == sorted(counts) and counts[-1] <= res.count


@pytest.mark.parametrize("backend", ENUM)
def test_counts_without_symmetry_breaking(backend):
    p = TINY["gen-3x3-f1-i2"]()
    want = count_solutions(p, symmetry=False)
    sp = Subproblem.whole(p, symmetry_breaking=False)
    assert get_backend(backend).count(sp, time_limit=120).count == want
    # on a square board every solution comes in four turns
    assert want == 4 * count_solutions(p, symmetry=True)


@pytest.mark.parametrize("backend", OPT)
def test_tiny_time_limit_never_crashes(backend):
    p = emc.load("set2-8x8")
    sp = Subproblem.whole(p, Goal.OPTIMISATION)
    res = get_backend(backend).solve(sp, time_limit=0.05, threads=1, seed=0)
    assert res.status in (Status.UNKNOWN, Status.FEASIBLE, Status.OPTIMAL)
    # an answer that is not proven was cut short by the limit, and must say so
    assert res.interrupted or res.status is Status.OPTIMAL
    if res.board is not None:
        assert not check_subproblem_solution(sp, res.board)


def test_unknown_backend_lists_the_valid_ones():
    with pytest.raises(emc.InputError) as exc:
        get_backend("gurobi-please")
    for name in BACKENDS:
        assert name in str(exc.value)


@pytest.mark.skipif("minizinc" not in BACKENDS, reason="minizinc backend not registered")
def test_missing_solver_gives_the_install_hint(tmp_path):
    # Without the minizinc executable on PATH the backend must say how to install it.
    env = dict(os.environ, PATH=str(tmp_path))
    code = "from emc.cli import main; raise SystemExit(main(['solve', 'set2-3x3', '--backend', 'minizinc']))"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert res.returncode == 2
    assert "apt-get install minizinc" in res.stderr and "Traceback" not in res.stderr
    assert res.stderr.count("\n") == 1


@pytest.mark.parametrize("backend", FEAS)
def test_every_backend_writes_the_log_it_is_asked_for(backend, tmp_path):
    # --log must never be ignored: a solver's own log, or emc's summary for those without one.
    log = tmp_path / "sub" / f"{backend}.log"
    log.parent.mkdir()
    res = get_backend(backend).solve(Subproblem.whole(emc.load("set2-4x4")), time_limit=60, log_path=log)
    assert res.status is Status.OPTIMAL and res.log_path == log
    text = log.read_text()
    assert text.strip(), backend


@pytest.mark.slow
def test_summary_log_holds_settings_progress_and_answer(tmp_path):
    log = tmp_path / "clique.log"
    sp = Subproblem.whole(emc.load("set2-7x7"), Goal.OPTIMISATION)
    res = get_backend("clique").solve(sp, time_limit=2, seed=4, log_path=log, method="heuristic")
    lines = log.read_text().splitlines()
    assert lines[0].startswith("emc clique log: set2-7x7 7x7, whole puzzle, optimisation, 49 free cells")
    assert "seed 4" in lines[1] and "method=heuristic" in lines[1]
    stamped = [x for x in lines if x.startswith("[")]
    assert stamped and all("largest clique" in x for x in stamped)
    assert f"status {res.status.value}, objective {res.objective}," in "\n".join(lines)
    assert f"clique_size: {res.stats['clique_size']}" in lines


def test_sat_keeps_its_own_log_when_it_hands_over_to_maxsat(tmp_path):
    from helpers import unsolvable_optimisation

    log = tmp_path / "sat.log"
    res = get_backend("sat").solve(unsolvable_optimisation("set2-5x5"), time_limit=60, log_path=log)
    assert res.stats.get("fallback") == "maxsat" and res.log_path == log
    text = log.read_text()
    assert text.startswith("emc sat backend") and "handing over to the maxsat backend" in text


def test_a_hint_that_is_no_board_of_the_puzzle_is_refused():
    """A hint was checked for its size only: a piece number past the puzzle's, a rotation of 7
    or a piece placed twice went to the solver as they were."""
    p, planted = emc.generate(4, 4, 2, 2, seed=3)
    sp = Subproblem.whole(p)
    for change, words in ((lambda b: b.piece.__setitem__(0, 99), "the hint: r1c1: piece 100 rotation"),
                          (lambda b: b.rotation.__setitem__(0, 7), "the hint: r1c1: piece"),
                          (lambda b: b.piece.__setitem__(1, b.piece[0]),
                           r"the hint has piece \d+ on r1c1 and r1c2: a piece goes on one cell")):
        bad = planted.copy()
        change(bad)
        with pytest.raises(emc.InputError, match=words):
            get_backend("cpsat").solve(sp, hint=bad, time_limit=5)
    assert get_backend("cpsat").solve(sp, hint=planted, time_limit=30).status is Status.OPTIMAL


def _small_regions():
    """Feasibility regions whose colour counts take every case: an exact cover of four cells (one
    on the frame), three cells beside an empty fixed cell, and three cells with a spare piece
    from a cell away from them (planted 5x4, two inner colours)."""
    P, planted = emc.generate(5, 4, 2, 2, seed=2)
    c = P.cell_of
    yield "exact", Subproblem.region(P, planted, [c(1, 1), c(1, 2), c(1, 3), c(0, 2)], Goal.FEASIBILITY)
    b = planted.copy()
    b.clear([c(2, 3)])
    yield "beside_empty", Subproblem.region(P, b, [c(1, 2), c(1, 3), c(2, 2)], Goal.FEASIBILITY)
    cells = [c(1, 1), c(1, 2), c(2, 1)]
    yield "spare", Subproblem.region(P, b, cells, Goal.FEASIBILITY,
                                     pieces=list(planted.piece[cells]) + [int(planted.piece[c(2, 3)])])


def _brute_perfect_fills(sp: Subproblem) -> int:
    from bruteforce import every_fill

    return sum(sp.score(b) == sp.max_score for *_, b in every_fill(sp))


@pytest.mark.parametrize("backend", [b for b in ENUM if b.values[0] in ("cpsat", "minizinc", "sat")])
def test_region_counts_beside_empty_cells_and_with_spare_pieces_match_brute_force(backend):
    """The colour-balance counts of the models (CP-SAT, MiniZinc, CNF) hold for regions beside
    an empty fixed cell and with spare pieces too: every backend counts the perfect fills that
    brute force counts."""
    for name, sp in _small_regions():
        want = _brute_perfect_fills(sp)
        assert want > 1, name
        got = get_backend(backend).count(sp, time_limit=60)
        assert got.complete and got.count == want, (name, backend, got)
