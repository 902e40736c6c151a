"""The benchmark scripts: bad arguments end in one line, and the tables they print add up."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("script, args, words", [
    ("exact.py", ["--instances", "nosuch", "--backends", "sat"], "exact.py: unknown instance 'nosuch'"),
    ("exact.py", ["--instances", "set2-3x3", "--backends", "nosuch"], "exact.py: unknown backend 'nosuch'"),
    ("exact.py", ["--instances", "set2-3x3", "--backends", "sat", "-O", "nosuch=1"], "unknown option(s) for backend 'sat'"),
    ("exact.py", ["--instances", "set2-3x3", "--backends", "sat", "-O", "solver"], "--option 'solver': expected KEY=VALUE"),
    ("sat.py", ["--instances", "gen:5x5"], "sat.py: 'gen:5x5' is not gen:WxH:FRAME:INNER:SEEDS"),
    ("cpsat.py", ["--instances", "set2-3x3", "--variants", "sum", "--goal", "optimisation"], "in feasibility models only"),
    ("tree_size.py", ["--instances", "set2-3x3", "--scans", "diag"], "unknown scan 'diag' (choose from: rows, cols)"),
    ("minizinc_gecode.py", ["--instances", "set2-3x3", "--configs", "element"], "unknown configuration 'element'"),
    ("export.py", ["--sizes", "99x99"], "export.py: unknown instance 'set2-99x99'"),
    ("export.py", ["--sizes", "3x3", "--formats", "nope"], "export.py: unknown export format 'nope'"),
    ("sat.py", ["--instances", "set2-3x3", "--configs", "nosuch"], "sat.py: unknown configuration atom 'nosuch'"),
    ("backtrack_orders.py", ["--orders", "easy"], "backtrack_orders.py: unknown order 'easy'"),
    ("regions.py", ["--instances", "set2-4x4", "--backends", "nosuch"], "regions.py: unknown backend 'nosuch'"),
    ("regions.py", ["--instances", "set2-4x4", "--regions", "r9c9-r12c12"], "regions.py: "),
    ("backtrack_orders.py", ["--seconds", "0"], "--seconds and --run-nodes must be positive"),
    ("core_rates.py", ["--instances", "nosuch"], "core_rates.py: unknown instance 'nosuch'"),
    ("core_rates.py", ["--seconds", "0"], "core_rates.py: --seconds must be positive and --repeats at least 1"),
    ("start_depths.py", ["--orders", "zigzag"], "start_depths.py: unknown order 'zigzag'"),
    ("start_depths.py", ["--seeds", "3"], "start_depths.py: --seeds '3' is not FIRST-LAST"),
    ("gao.py", ["--tables", "t9"], "gao.py: unknown table 't9' (choose from: t2, t3, t4, t5, rate)"),
    ("gao.py", ["--runs", "0"], "gao.py: --runs and --jobs are at least 1"),
    ("cnf_variants.py", ["--instances", "set2-3x3", "--variants", "nosuch"], "cnf_variants.py: unknown variant or atom 'nosuch'"),
    ("cnf_variants.py", ["--instances", "set2-3x3", "--variants", "old+forbid=colours"], "forbidden-colour clause set"),
    ("cnf_variants.py", ["--instances", "set2-3x3", "--seeds", "a-b"], "--seeds: 'a-b' is not a list"),
])
@pytest.mark.slow
def test_bad_arguments_end_in_one_line(script, args, words):
    r = run(script, *args)
    assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r


def test_exact_prints_each_run_and_the_summary_layout():
    r = run("exact.py", "--instances", "set2-3x3,set2-4x4", "--backends", "sat", "--time-limit", "30")
    assert r.returncode == 0, r
    tables = [t for t in r.stdout.split("\n\n") if t.startswith("|")]
    runs, summary = tables[-2].splitlines()[2:], tables[-1].splitlines()
    assert [ln.split("|")[4].strip() for ln in runs] == ["optimal", "optimal"]
    assert summary[0].split("|")[3:5] == [" set2-3x3 ", " set2-4x4 "] and len(summary) == 3
    seconds = [float(x) for x in summary[2].split("|")[3:5]]
    assert seconds == [float(ln.split("|")[7]) for ln in runs]  # the same runs, pivoted


def test_exact_gives_every_run_the_backend_options():
    r = run("exact.py", "--instances", "set2-3x3", "--backends", "sat", "-O", "solver=glucose4", "-O", "nosuch_key=1")
    assert r.returncode == 2 and "unknown option(s) for backend 'sat': nosuch_key" in r.stderr  # checked before runs
    r = run("exact.py", "--instances", "set2-3x3", "--backends", "highs", "-O", "variant=no")  # reads as False
    assert r.returncode == 2 and "a variant is a name" in r.stderr and r.stdout == "", r
    r = run("exact.py", "--instances", "set2-3x3", "--backends", "sat", "-O", "solver=glucose4", "--time-limit", "30")
    assert r.returncode == 0 and "options -O solver=glucose4" in r.stdout, r
    assert "| optimal " in r.stdout
    # HiGHS without a branch-and-bound node does not finish set 2's 4x4; with nodes it does (true
    # of the HiGHS 1.12 that pyproject pins: stronger root heuristics would solve it at the root)
    statuses = {}
    for extra in ([], ["-O", 'params={"mip_max_nodes": 0}']):
        r = run("exact.py", "--instances", "set2-4x4", "--backends", "highs", "-O", "variant=paper", *extra)
        assert r.returncode == 0, r
        rows = [ln.split("|") for ln in r.stdout.splitlines() if ln.startswith("| set2-4x4")]
        assert [ln[3].strip() for ln in rows] == ["milp/paper"]  # the variant asked for, alone
        statuses[bool(extra)] = rows[0][4].strip()
    assert statuses == {False: "optimal", True: "unknown"}
    r = run("exact.py", "--instances", "set2-3x3", "--backends", "sat", "-O", "variant=log")
    assert r.returncode == 0 and "| `sat`   | cnf/log " in r.stdout, r


@pytest.mark.slow
def test_backtrack_orders_counts_verified_boards_per_node():
    r = run("backtrack_orders.py", "--instances", "set2-5x5", "--seconds", "1", "--run-nodes", "20000")
    assert r.returncode == 0, r
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("| set2-5x5")]
    assert [ln.split("|")[2].strip() for ln in lines] == ["random", "pairs (noise 0.1)"]
    for ln in lines:
        runs, boards = int(ln.split("|")[3]), int(ln.split("|")[4])
        assert 0 < boards <= runs  # the 5x5 has boards within 20,000 nodes in most runs


def test_tree_size_per_line_shares_add_up_per_search():
    """--per-line splits each search's estimated nodes over the lines of its scan: rows for the
    row scan, columns for the column scan (set 2's 5x4 is 5 wide and 4 high)."""
    r = run("tree_size.py", "--instances", "set2-5x4", "--per-line", "--probes", "2e4", "--seeds", "1")
    assert r.returncode == 0, r
    per_line = r.stdout.split("\n\n")[-1].splitlines()[2:]
    assert len(per_line) == 8  # 2 scans x 4 pinned corners
    for ln in per_line:
        cells = [c.strip() for c in ln.split("|")[1:-1]]
        shares = [float(c) for c in cells[3:] if c]
        assert len(shares) == (4 if cells[1] == "rows" else 5), ln
        assert abs(sum(shares) - 100) < 0.5 and min(shares) > 0, ln


def test_regions_reoptimises_each_region_and_sums_up_per_backend():
    r = run("regions.py", "--instances", "set2-5x5", "--regions", "r2c2-r3c3,r1c1-r2c5", "--backends", "maxsat,highs",
            "--time-limit", "30")
    assert r.returncode == 0, r.stderr
    rows = [line.split("|")[1:-1] for line in r.stdout.splitlines() if line.startswith("| set2-5x5")]
    assert len(rows) == 4  # two regions x two backends
    for inst, region, cells, backend, status, matched, bound, own, secs in (map(str.strip, x) for x in rows):
        got, most = (int(v) for v in matched.split("/"))
        assert status == "optimal" and int(bound) == got >= int(own) and most >= got  # a region's optimum is never below the board's own fill
    # both backends prove the same optima
    assert sorted(x[5] for x in rows if "maxsat" in x[3]) == sorted(x[5] for x in rows if "highs" in x[3])
    assert "| maxsat  |         2 of 2 |" in r.stdout and "| highs   |         2 of 2 |" in r.stdout


def test_regions_whole_optimises_the_puzzle_from_nothing():
    r = run("regions.py", "--instances", "set2-4x4", "--regions", "whole", "--backends", "maxsat,cpsat",
            "--time-limit", "30")
    assert r.returncode == 0, r.stderr
    rows = [[x.strip() for x in line.split("|")[1:-1]] for line in r.stdout.splitlines() if line.startswith("| set2-4x4")]
    assert [(x[1], x[2], x[4], x[5], x[7]) for x in rows] == [("whole", "16", "optimal", "24/24", "-")] * 2


def test_cnf_variants_prints_a_median_per_variant_and_solver():
    r = run("cnf_variants.py", "--instances", "set2-4x4,gen:4x4:1:3:2", "--variants", "old,default,forbid-piece+twins,ref-all",
            "--seeds", "0-2", "--time-limit", "30")
    assert r.returncode == 0 and "WRONG" not in r.stdout + r.stderr, r
    raw = [ln.split() for ln in r.stdout.splitlines() if ln.startswith(("set2-4x4 ", "gen4x4-2 "))]
    assert len(raw) == 2 * 4 * 2 * 3 and all(x[-1] == "sat" for x in raw)  # instances x variants x solvers x seeds
    rows = [ln for ln in r.stdout.splitlines() if ln.startswith("| set2-4x4") or ln.startswith("| gen4x4-2")]
    assert len(rows) == 8
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        variant = cells[1]
        for col, solver in ((4, "kissat404"), (5, "cadical195")):
            times = sorted(float(x[-2]) for x in raw if x[0] == cells[0] and x[1] == variant and x[2] == solver)
            assert float(cells[col]) == pytest.approx(times[1], abs=0.006), (row, times)


@pytest.mark.parametrize("variant", ["ref-plain", "ref-amo", "ref-forbid", "ref-all"])
def test_the_reference_encoding_of_the_cnf_bench_has_the_brute_force_boards(variant):
    """bench/cnf_variants.py's re-implementation of the reference encoding has no rotation
    variables: its models are the boards up to the rotation of a piece that shows the same
    colours turned (abab). Enumerated on its variables, each model is a solved board, and
    the (piece, colours) of every cell over all models are the brute force's, twins included."""
    import emc

    sys.path.insert(0, str(BENCH))
    try:
        import cnf_variants
    finally:
        sys.path.remove(str(BENCH))
    from bruteforce import brute_force_solutions
    from pysat.solvers import Solver

    for puzzle in (emc.load("set2-4x4"), emc.generate(3, 3, 1, 2, seed=1)[0], emc.generate(4, 3, 1, 3, seed=2)[0]):
        ref = cnf_variants.Reference(puzzle, *cnf_variants.REF[variant])
        key = lambda b: (tuple(b.piece.tolist()), tuple(map(tuple, b.shown(puzzle).tolist())))  # noqa: E731
        want = {key(b) for b in brute_force_solutions(puzzle)}
        got = set()
        with Solver(name="cadical195", bootstrap_with=ref.clauses) as s:
            while s.solve():
                m = s.get_model()
                b = ref.decode({v for v in m if v > 0})
                assert emc.verify(puzzle, b).solved
                assert key(b) not in got
                got.add(key(b))
                s.add_clause([-v for v in m if v > 0])
        assert got == want and len(want) > 1, (puzzle.name, variant)
    # a puzzle with too many boards for the brute force, whose inner pieces show a colour three
    # times: the case clauses of two sides alone let such a piece show that colour four times
    # (a model that is no board, found among these 1,500 when the last clause kinds are left out)
    puzzle = emc.generate(4, 4, 1, 3, seed=9)[0]
    ref = cnf_variants.Reference(puzzle, *cnf_variants.REF[variant])
    with Solver(name="cadical195", bootstrap_with=ref.clauses) as s:
        for _ in range(1500):
            assert s.solve()
            m = s.get_model()
            assert emc.verify(puzzle, ref.decode({v for v in m if v > 0})).solved
            s.add_clause([-v for v in m if v > 0])
