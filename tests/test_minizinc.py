"""MiniZinc formulation and backend, run for real on MiniZinc with Gecode.

The written .mzn/.dzn files are solved by the ``minizinc`` command directly (not through the
backend) and the printed answer is decoded and verified; counts and optima are compared with
brute force and with the CP-SAT backend.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import emc
from emc.backends import Status, get_backend
from emc.encoders import encode, formulation_of_format, get_encoder
from emc.encoders.minizinc import parse_output
from emc.errors import InputError
from emc.model import Goal, Subproblem
from emc.score import check_subproblem_solution

from bruteforce import brute_force_optimum, brute_force_solutions, swapped_blocks
from golden import assert_golden
from helpers import ctrl_c_after_first_board, eventually, solver_processes

pytestmark = pytest.mark.skipif(not get_backend("minizinc").available(), reason="MiniZinc is not installed")

VARIANTS = get_encoder("minizinc").variants


def run_cli(files: list[Path], *flags: str) -> str:
    """Solve the written files with the minizinc command on Gecode; return its stdout."""
    proc = subprocess.run([shutil.which("minizinc"), "--solver", "gecode", "--time-limit", "60000", *flags,
                           str(files[0]), str(files[1])], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("which", ["set2-3x3", "set2-4x4", "set2-4x3", "gen5x4"])
def test_written_files_solved_by_the_cli_decode_to_solutions(tmp_path, which, variant):
    P = emc.generate(5, 4, 2, 3, seed=7)[0] if which == "gen5x4" else emc.load(which)
    for goal in Goal:
        enc = encode(Subproblem.whole(P, goal), "minizinc", variant)
        files = enc.write(tmp_path / f"{goal.value}.mzn")
        assert [f.name for f in files] == [f"{goal.value}.mzn", f"{goal.value}.dzn"]
        out = run_cli(files)
        report = emc.verify(P, enc.decode(out))
        assert report.solved, report.problems
        if goal is Goal.OPTIMISATION:
            assert "==========" in out and parse_output(out)[-1]["matched"] == P.max_score


def test_cli_enumeration_matches_brute_force(tmp_path):
    P, _ = emc.generate(3, 3, 1, 2, seed=4)
    enc = encode(Subproblem.whole(P), "minizinc", restart="none")
    sols = parse_output(run_cli(enc.write(tmp_path / "m.mzn"), "--all-solutions"))
    boards = {(tuple(b.piece), tuple(b.rotation)) for b in (enc.decode(s) for s in sols)}
    want = {(tuple(b.piece), tuple(b.rotation)) for b in brute_force_solutions(P)}
    assert len(sols) == len(boards) and boards == want


def test_golden_export(tmp_path, set2_3x3):
    enc = encode(Subproblem.whole(set2_3x3), "minizinc")
    mzn, dzn = enc.write(tmp_path / "set2-3x3.mzn")
    assert_golden(mzn, "set2-3x3.mzn")
    assert_golden(dzn, "set2-3x3.dzn")


def test_render_is_deterministic_and_registered(tmp_path):
    P = emc.load("set2-4x4")
    sp = Subproblem.whole(P, Goal.OPTIMISATION)
    a = encode(sp, "minizinc").write(tmp_path / "a.mzn")
    b = encode(sp, "minizinc").write(tmp_path / "b.mzn")
    assert [f.read_bytes() for f in a] == [f.read_bytes() for f in b]
    assert formulation_of_format("mzn") == ("minizinc", "mzn")
    sizes = encode(sp, "minizinc").sizes()
    assert sizes["variables"] == 16 and sizes["placements"] == len(sp.placements())


def test_bad_input_is_an_input_error(set2_3x3):
    sp = Subproblem.whole(set2_3x3)
    with pytest.raises(InputError):
        encode(sp, "minizinc", "nonsense")
    with pytest.raises(InputError):
        encode(sp, "minizinc", search="sideways")
    enc = encode(sp, "minizinc")
    with pytest.raises(InputError):
        enc.decode("no answer here")
    with pytest.raises(InputError):
        enc.decode({"piece": [1, 2], "rotation": [0, 0]})
    with pytest.raises(InputError):
        get_backend("minizinc").solve(sp, solver="no-such-solver")
    with pytest.raises(InputError):
        get_backend("minizinc").solve(sp, colour="red")


# ---------------------------------------------------------------- backend
def test_backend_solves_and_reports_improvements(tmp_path):
    b = get_backend("minizinc")
    P = emc.load("set2-5x5")
    res = b.solve(Subproblem.whole(P), time_limit=60, log_path=tmp_path / "mzn.log")
    assert res.status is Status.OPTIMAL and emc.verify(P, res.board).solved
    assert "solution matched=40/40" in (tmp_path / "mzn.log").read_text()
    P = emc.load("set2-4x4")
    seen = []
    res = b.solve(Subproblem.whole(P, Goal.OPTIMISATION), time_limit=60, on_improvement=lambda bd, o: seen.append(o))
    assert res.status is Status.OPTIMAL and res.objective == res.bound == P.max_score
    assert seen == sorted(set(seen)) and seen[-1] == P.max_score


@pytest.fixture(scope="module")
def below_max_region():
    for seed in range(1, 40):
        P, board, A = swapped_blocks(seed)
        sp = Subproblem.region(P, board, A, Goal.OPTIMISATION)
        best = brute_force_optimum(sp)
        if best < sp.max_score:
            return sp, best
    pytest.fail("no generated region with an optimum below its maximum")


@pytest.mark.parametrize("variant", VARIANTS)
def test_region_optimum_matches_brute_force_and_cpsat(below_max_region, variant):
    sp, best = below_max_region
    res = get_backend("minizinc").solve(sp, time_limit=60, variant=variant)
    assert res.status is Status.OPTIMAL and res.objective == best
    assert get_backend("cpsat").solve(sp, time_limit=60).objective == best
    infeasible = get_backend("minizinc").solve(sp.with_goal(Goal.FEASIBILITY), time_limit=60, variant=variant)
    assert infeasible.status is Status.INFEASIBLE and infeasible.board is None


def test_cleared_region_is_solved_back():
    P, planted = emc.generate(7, 6, 3, 5, seed=3)
    big = [P.cell_of(r, c) for r in range(1, 4) for c in range(2, 6)] + [0, 1, 2]
    small = [P.cell_of(r, c) for r in range(1, 3) for c in range(2, 5)] + [0, 1]
    for goal, free in ((Goal.FEASIBILITY, big), (Goal.OPTIMISATION, small)):
        sp = Subproblem.region(P, planted, free, goal)
        res = get_backend("minizinc").solve(sp, time_limit=60)
        assert res.status is Status.OPTIMAL and res.objective == sp.max_score
        assert check_subproblem_solution(sp, res.board) == []


def test_too_little_time_never_crashes():
    P = emc.load("set2-8x8")
    for goal in Goal:
        res = get_backend("minizinc").solve(Subproblem.whole(P, goal), time_limit=0.01)
        assert res.status in (Status.UNKNOWN, Status.FEASIBLE, Status.OPTIMAL)
        if res.board is not None:
            assert emc.verify(P, res.board).valid


@pytest.mark.slow
@pytest.mark.parametrize("w,h,colours,seed", [(3, 3, 2, 1), (3, 3, 2, 4), (4, 3, 2, 1), (4, 3, 3, 2)])
def test_counts_match_brute_force_and_cpsat(w, h, colours, seed):
    P, _ = emc.generate(w, h, 1, colours, seed=seed)
    sp = Subproblem.whole(P)
    got = get_backend("minizinc").count(sp, keep=2)
    assert got.complete and got.count == len(brute_force_solutions(P)) == get_backend("cpsat").count(sp).count
    assert len(got.boards) == 2 and all(emc.verify(P, b).solved for b in got.boards)


def test_count_limit_stops_early():
    P, _ = emc.generate(4, 3, 1, 2, seed=1)
    res = get_backend("minizinc").count(Subproblem.whole(P), limit=3)
    assert res.count == 3 and not res.complete


@pytest.mark.slow
def test_interrupt_returns_best_board_without_traceback(tmp_path):
    first, (status, score, interrupted, valid) = ctrl_c_after_first_board(tmp_path, "minizinc")
    assert status == "feasible" and int(score) >= first and interrupted == valid == "True"


def test_same_seed_same_run_with_one_thread():
    sp = Subproblem.whole(emc.load("set2-5x5"))
    runs = [get_backend("minizinc").solve(sp, time_limit=60, threads=1, seed=5) for _ in range(2)]
    assert runs[0].board == runs[1].board and runs[0].stats["nodes"] == runs[1].stats["nodes"]


def test_gecode_runs_on_one_process_whatever_threads_says(tmp_path):
    # Gecode 6.2's parallel search sometimes ended an optimisation with a wrong "optimal"
    # objective (see the backend's docstring), so two threads still give one process: the
    # run then repeats node for node, which a parallel one does not.
    P = emc.load("clue1")
    sp = Subproblem.whole(P)
    runs = [get_backend("minizinc").solve(sp, time_limit=60, threads=2, seed=3, log_path=tmp_path / f"{i}.log")
            for i in range(2)]
    assert [r.stats["processes"] for r in runs] == [1, 1]
    assert "threads=2 processes=1" in (tmp_path / "0.log").read_text()
    assert runs[0].board == runs[1].board and runs[0].stats["nodes"] == runs[1].stats["nodes"]
    assert all(r.status is Status.OPTIMAL and emc.verify(P, r.board).solved for r in runs)


def test_unknown_solver_is_refused_before_any_work(cli):
    r = cli("solve", "set2-4x4", "-b", "minizinc", "--solver", "no-such-solver")
    assert r.code == 2 and r.out == "" and "MiniZinc has no solver 'no-such-solver'" in r.err
    assert r.err.count("\n") == 1


@pytest.mark.slow
def test_an_exported_model_without_restarts_lists_what_emc_count_counts(tmp_path, cli):
    """The exported model's header says how it searches and what symmetry breaking it has; with
    -O restart=none, `minizinc -a` lists every solution, ends with the search-complete line and
    agrees with `emc count`, with symmetry breaking and without (four times as many on a square
    board); each listed solution decodes (emc decode -f mzn) to a solved board."""
    P = emc.generate(4, 4, 2, 2, seed=3)[0]
    pz = tmp_path / "p.json"
    emc.write_puzzle(P, pz)
    counts = {}
    for sym in ([], ["--no-symmetry"]):
        mzn = tmp_path / f"m{len(sym)}.mzn"
        r = cli("export", pz, "-f", "mzn", "--goal", "feasibility", "-O", "restart=none", *sym, "-o", mzn)
        assert r.code == 0, r
        head = mzn.read_text()[:1500]
        assert "% Search: int_search(choice, first_fail, indomain_random).\n" in head
        assert "minizinc -a" not in head  # no restart, nothing to warn about
        assert ("% Symmetry breaking: off." in head) == bool(sym), head
        assert ("% Symmetry breaking: off." in (tmp_path / f"m{len(sym)}.dzn").read_text()[:600]) == bool(sym)
        out = run_cli([mzn, mzn.with_suffix(".dzn")], "--all-solutions")
        assert out.rstrip().endswith("=========="), out[-200:]
        sols = parse_output(out)
        r = cli("count", pz, "-b", "sat", *sym, "--json")
        assert r.code == 0 and json.loads(r.out)["count"] == len(sols), (r.out, len(sols))
        counts[bool(sym)] = len(sols)
        ans = tmp_path / f"a{len(sym)}.out"
        ans.write_text(out)
        r = cli("decode", pz, ans, "-f", "mzn", *sym, "-o", tmp_path / f"b{len(sym)}.json")
        assert r.code == 0 and "valid and solved" in r.out, r
    assert counts[True] == 4 * counts[False] > 0
    default = tmp_path / "d.mzn"
    assert cli("export", pz, "-f", "mzn", "-o", default).code == 0
    assert "Listing all solutions (minizinc -a) needs a search without restarts" in default.read_text()[:1500]


def test_minizinc_files_never_replace_inputs_and_need_their_own_names(tmp_path, cli):
    """The data file goes beside the model under the model's name with .dzn: refused before
    any work when that is the puzzle or the --fixed board, a folder, or when the model's name
    does not end in .mzn (minizinc opens nothing else; /dev/stdout has no side file)."""
    puzzle = tmp_path / "q.dzn"
    puzzle.write_bytes((Path(emc.__file__).parent.parent / "instances/set2/pieces_04x04.txt").read_bytes())
    before = puzzle.read_bytes()
    r = cli("export", puzzle, "-f", "mzn", "-o", tmp_path / "q.mzn")
    assert r.code == 2 and "the model's data file" in r.err and "would overwrite the puzzle" in r.err, r
    assert puzzle.read_bytes() == before and not (tmp_path / "q.mzn").exists()
    board = tmp_path / "b.dzn"
    assert cli("solve", "set2-4x4", "-o", tmp_path / "b.json").code == 0
    board.write_bytes((tmp_path / "b.json").read_bytes())
    r = cli("export", "set2-4x4", "--fixed", board, "--free", "r1c1-r2c2", "-f", "mzn", "-o", tmp_path / "b.mzn")
    assert r.code == 2 and "would overwrite the --fixed board" in r.err, r
    (tmp_path / "dd.dzn").mkdir()
    r = cli("export", "set2-4x4", "-f", "mzn", "-o", tmp_path / "dd.mzn")
    assert r.code == 2 and "data file path is a folder" in r.err and not (tmp_path / "dd.mzn").exists(), r
    for name in ("a.txt", "/dev/stdout"):
        r = cli("export", "set2-4x4", "-f", "mzn", "-o", name if name.startswith("/") else tmp_path / name)
        assert r.code == 2 and "a MiniZinc model is written to NAME.mzn" in r.err, r
    assert not (tmp_path / "a.txt").exists() and not Path("/dev/stdout.dzn").exists()


def test_count_and_solve_refuse_what_minizinc_cannot_do_before_any_work(cli):
    r = cli("count", "set2-4x4", "-b", "minizinc", "-O", "restart=luby")
    assert r.code == 2 and r.out == "" and "a restart would find solutions again" in r.err, r
    for opt, words in (("balance=maybe", "option balance of backend 'minizinc' is true or false, not 'maybe'"),
                       ("restart=bogus", "unknown MiniZinc restart 'bogus'"),
                       ("value=sideways", "unknown MiniZinc value choice 'sideways'")):
        r = cli("solve", "set2-4x4", "-b", "minizinc", "-O", opt)
        assert r.code == 2 and r.out == "" and words in r.err and r.err.count("\n") == 1, (opt, r.err)
    import minizinc

    try:
        no_a = next(s for s in ("scip", "cplex", "gurobi") if "-a" not in (minizinc.Solver.lookup(s).stdFlags or []))
    except (StopIteration, LookupError):
        pytest.skip("every MiniZinc solver here lists all solutions")
    r = cli("count", "set2-4x4", "-b", "minizinc", "-O", f"solver={no_a}")
    assert r.code == 2 and "cannot list all solutions" in r.err and "Traceback" not in r.err, r


def test_decode_reads_a_minizinc_answer_and_refuses_one_without_a_solution(tmp_path, cli):
    mzn = tmp_path / "m.mzn"
    assert cli("export", "set2-4x4", "-f", "mzn", "-o", mzn).code == 0
    out = run_cli([mzn, tmp_path / "m.dzn"])  # optimisation: improving solutions, the best last
    ans = tmp_path / "a.out"
    ans.write_text(out)
    r = cli("decode", "set2-4x4", ans, "-f", "mzn", "--json")
    assert r.code == 0 and json.loads(r.out)["solved"], r
    unsat = tmp_path / "u.out"
    for n, status in enumerate(("UNSATISFIABLE", "UNKNOWN", "ERROR", "UNSATorUNBOUNDED", "UNBOUNDED")):
        # every status line that holds no board is named, with its line (a time limit gives UNKNOWN)
        unsat.write_text("% a comment\n" * n + f"====={status}=====\n")
        r = cli("decode", "set2-4x4", unsat, "-f", "mzn")
        assert r.code == 2 and f"{unsat}:{n + 1}: the solver's answer is {status}: it holds no board" in r.err, r
    r = cli("decode", "set2-4x4", ans, "-f", "mzn", "--model", mzn)
    assert r.code == 2 and "a MiniZinc answer names its pieces and needs no model" in r.err, r
    junk = tmp_path / "j.out"
    junk.write_text("piece = [1, 2, x];\nrotation = [0, 0, 0];\n----------\n")
    r = cli("decode", "set2-4x4", junk, "-f", "mzn")
    assert r.code == 2 and f"{junk}:1: piece = [1, 2, x]: not whole numbers" in r.err and "Traceback" not in r.err, r


def _solver_pids() -> set[int]:
    """emc's MiniZinc runs: their command lines name emc's temporary model folder or the
    flattened model MiniZinc writes for Gecode."""
    return solver_processes("emc-minizinc-", "mznfile")


@pytest.mark.slow
def test_a_callback_that_raises_ends_minizinc_and_its_solver():
    """A notebook user stops a run by raising from on_improvement: the error reaches the caller
    and neither minizinc nor Gecode keeps running (closing the result stream alone left both)."""
    before = _solver_pids()

    def boom(board, score):
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        get_backend("minizinc").solve(Subproblem.whole(emc.load("set2-8x8"), Goal.OPTIMISATION), time_limit=30,
                                      on_improvement=boom)
    assert eventually(lambda: not (_solver_pids() - before))
