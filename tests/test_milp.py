"""The MILP formulations (model (1)-(14) of Salassa et al., seed 000, and the compact
variant) and the ``highs`` and ``cbc`` backends, on real puzzles with the real solvers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import emc
from emc.backends import Status, get_backend
from emc.encoders import encode, get_encoder
from emc.encoders.milp import decode_names
from emc.model import Board, Goal, Subproblem
from emc.score import check_subproblem_solution

from bruteforce import count_solutions, region_optimum
from golden import assert_golden
from helpers import counted, unsolvable_optimisation

highspy = pytest.importorskip("highspy")
pytest.importorskip("pulp")

BACKENDS = ("highs", "cbc")
VARIANTS = ("paper", "compact")
# Seed 000, Table 1: MILP variables and constraints, and the clique's nodes (= frame-fitting
# placements under symmetry breaking, which is what the compact variant's binaries are).
TABLE1 = {3: (336, 126, 30), 4: (1048, 288, 138), 5: (2540, 630, 478),
          6: (5244, 1056, 1290), 7: (9688, 1638, 2910), 8: (16496, 2624, 5770)}


def planted(w, h, f, i, seed):
    return emc.generate(w, h, f, i, seed=seed)


# ------------------------------------------------------------------------------ sizes
@pytest.mark.parametrize("n", sorted(TABLE1))
def test_paper_sizes_equal_table_1(n):
    p = emc.load(f"set2-{n}x{n}")
    variables, constraints, nodes = TABLE1[n]
    for goal in Goal:
        sizes = encode(Subproblem.whole(p, goal), "milp", "paper").sizes()
        assert (sizes["variables"], sizes["constraints"]) == (variables, constraints)
        assert sizes["binaries"] == p.n_pieces * p.n_cells * 4
    assert encode(Subproblem.whole(p, Goal.OPTIMISATION), "milp", "compact").sizes()["binaries"] == nodes


def test_paper_rows_of_a_region_count_one_row_per_fixed_edge(planted_6x5):
    p, b = planted_6x5
    free = [p.cell_of(r, c) for r in (0, 1) for c in (2, 3, 4)]  # touches the top frame
    sp = Subproblem.region(p, b, free, Goal.OPTIMISATION)
    enc = encode(sp, "milp", "paper")
    e = p.edges[sp.counted_edges()]
    both = int(np.isin(e, free).all(axis=1).sum())
    frame = int(p.frame_sides[free].sum())
    assert enc.sizes()["constraints"] == 2 * 6 + 2 * p.n_colours * both + (sp.max_score - both) + frame
    assert enc.sizes()["variables"] == 6 * 6 * 4 + sp.max_score


def test_symmetry_bounds_leave_exactly_the_placements():
    for p in (emc.load("set2-4x4"), emc.load("set2-4x3")):
        sp = Subproblem.whole(p, Goal.FEASIBILITY)
        assert sp.symmetry_cells() is not None
        enc = encode(sp, "milp", "paper")
        ub = enc.model.col_upper[: enc.n_x]
        fits = p.fits[enc.x_piece, enc.x_cell, enc.x_rotation]
        open_ = {(a, b, c) for a, b, c, u, f in zip(enc.x_piece, enc.x_cell, enc.x_rotation, ub, fits) if u > 0 and f}
        pl = sp.placements()
        assert open_ == set(zip(pl.piece.tolist(), pl.cell.tolist(), pl.rotation.tolist()))
        assert (ub == 0).sum() > 0


# ------------------------------------------------------------------------------ files
def _cases():
    return {"set2-3x3": emc.load("set2-3x3"), "gen-4x3": planted(4, 3, 2, 3, 8)[0]}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("case", ["set2-3x3", "gen-4x3"])
def test_mps_read_back_by_highs_decodes_by_name(tmp_path, variant, case):
    p = _cases()[case]
    sp = Subproblem.whole(p, Goal.OPTIMISATION)
    enc = encode(sp, "milp", variant)
    (path,) = enc.write(tmp_path / "model.mps")
    h = highspy.Highs()
    h.silent()
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    assert (h.getNumCol(), h.getNumRow()) == (enc.sizes()["variables"], enc.sizes()["constraints"])
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    assert abs(h.getInfo().objective_function_value) < 1e-6
    board = decode_names(sp, dict(zip(h.allVariableNames(), h.allVariableValues())))
    assert emc.verify(p, board).solved


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("case", ["set2-3x3", "gen-4x3"])
def test_lp_read_back_by_cbc_command_line(tmp_path, variant, case):
    from emc.backends.milp import cbc_path

    p = _cases()[case]
    sp = Subproblem.whole(p, Goal.FEASIBILITY)
    (path,) = encode(sp, "milp", variant).write(tmp_path / "model.lp")
    sol = tmp_path / "model.sol"
    subprocess.run([cbc_path(), str(path), "-solve", "-solution", str(sol)], check=True, capture_output=True,
                   stdin=subprocess.DEVNULL, timeout=120)
    lines = sol.read_text().splitlines()
    assert lines[0].startswith("Optimal")
    values = {}
    for line in lines[1:]:
        tok = line.split()
        values[tok[1]] = float(tok[2])
    assert emc.verify(p, decode_names(sp, values)).solved


def test_files_are_deterministic_across_processes(tmp_path):
    code = ("import sys, emc; from emc.model import Subproblem, Goal; from emc.encoders import encode; "
            "sp = Subproblem.whole(emc.generate(4, 4, 2, 3, seed=2)[0], Goal.OPTIMISATION); "
            "[encode(sp, 'milp', v).write(sys.argv[1] + '/' + v + '.' + f) for v in ('paper', 'compact') for f in ('lp', 'mps')]")
    for k, seed in enumerate(("1", "2")):
        d = tmp_path / str(k)
        d.mkdir()
        subprocess.run([sys.executable, "-c", code, str(d)], check=True, env=dict(os.environ, PYTHONHASHSEED=seed))
    names = sorted(x.name for x in (tmp_path / "0").iterdir())
    assert len(names) == 4
    for n in names:
        assert (tmp_path / "0" / n).read_bytes() == (tmp_path / "1" / n).read_bytes()


def test_gzip_output_is_deterministic(tmp_path):
    sp = Subproblem.whole(emc.load("set2-3x3"), Goal.OPTIMISATION)
    a = encode(sp, "milp", "paper").write(tmp_path / "a.lp.gz")[0]
    b = encode(sp, "milp", "paper").write(tmp_path / "b.lp.gz")[0]
    assert a.read_bytes()[:2] == b"\x1f\x8b" and a.read_bytes() == b.read_bytes()


def test_golden_files(tmp_path, cli):
    sp = Subproblem.whole(emc.load("set2-3x3"), Goal.OPTIMISATION)
    assert_golden(encode(sp, "milp", "paper").write(tmp_path / "p.lp")[0], "set2-3x3.paper.lp")
    assert_golden(encode(sp, "milp", "compact").write(tmp_path / "c.mps")[0], "set2-3x3.compact.mps")
    # `emc export` writes the same bytes
    res = cli("export", "set2-3x3", "--format", "lp", "--variant", "paper", "-o", tmp_path / "cli.lp")
    assert res.code == 0, res
    assert_golden(tmp_path / "cli.lp", "set2-3x3.paper.lp")


def test_bad_options_are_input_errors():
    sp = Subproblem.whole(emc.load("set2-3x3"))
    with pytest.raises(emc.InputError):
        encode(sp, "milp", "exotic")
    with pytest.raises(emc.InputError):
        encode(sp, "milp", "compact", colour="red")
    with pytest.raises(emc.InputError):
        encode(sp, "milp", "compact", linking="nope")
    with pytest.raises(emc.InputError):
        encode(sp, "milp", "compact", cuts=[Board.empty(emc.load("set2-4x4"))])
    with pytest.raises(emc.InputError):
        get_backend("highs").solve(sp, variant="compact", gap=0.1)
    with pytest.raises(emc.InputError):
        encode(sp, "milp", "compact").write("/tmp/x.txt", "csv")
    with pytest.raises(emc.InputError):
        get_backend("highs").solve(sp, params={"no_such_highs_option": 1})
    with pytest.raises(emc.InputError):
        get_backend("cbc").solve(sp, params={"-sec 5": 1})


@pytest.mark.parametrize("params,says", [({"no_such_cbc_setting": 3}, "no setting 'no_such_cbc_setting'"),
                                         ({"maxNodes": "many"}, "illegal"), ({"cuts": "maybe"}, "off on root")])
def test_cbc_params_it_would_ignore_are_refused_before_solving(cli, params, says):
    # CBC itself only prints "No match" and carries on; emc asks it first and refuses.
    import json

    r = cli("solve", "set2-4x4", "-b", "cbc", "-O", f"params={json.dumps(params)}")
    assert r.code == 2 and says in r.err and r.err.count("\n") == 1 and r.out == ""
    ok = get_backend("cbc").solve(Subproblem.whole(emc.load("set2-4x4")), params={"cuts": "off", "maxNodes": 1000})
    assert ok.status is Status.OPTIMAL


def test_highs_params_are_refused_before_the_header(cli):
    r = cli("solve", "set2-4x4", "-b", "highs", "-O", 'params={"no_such_highs_option": 1}')
    assert r.code == 2 and "no_such_highs_option" in r.err and r.out == ""
    r = cli("solve", "set2-4x4", "-b", "highs", "-O", 'params={"presolve": [1]}')  # no option takes a list
    assert r.code == 2 and "HiGHS rejects option presolve=[1]" in r.err and r.err.count("\n") == 1


@pytest.mark.parametrize("params,expected", [(None, False), ({"mip_heuristic_run_rins": True}, True)])
def test_highs_runs_without_rins_and_rens_unless_params_say_so(monkeypatch, params, expected):
    # Their sub-MIPs do not look at the clock (regions overran 2 s limits by seconds): emc turns
    # them off, and params can turn them on again. Record the settings HiGHS really receives.
    import highspy

    seen: dict[str, object] = {}
    real = highspy.Highs.setOptionValue

    def recording(self, key, value):
        seen[key] = value
        return real(self, key, value)

    monkeypatch.setattr(highspy.Highs, "setOptionValue", recording)
    sp = Subproblem.whole(emc.load("set2-4x4"))
    r = get_backend("highs").solve(sp, seed=1, params=params)
    assert r.status is Status.OPTIMAL and emc.verify(sp.puzzle, r.board).solved
    assert seen["mip_heuristic_run_rins"] is expected and seen["mip_heuristic_run_rens"] is False


def test_decode_names_ignores_other_columns_and_rejects_clashes():
    p = emc.load("set2-3x3")
    sp = Subproblem.whole(p, symmetry_breaking=False)
    corners = [q for q in range(p.n_pieces) if (p.pieces[q] == 0).sum() == 2]
    a, b_ = corners[:2]
    ka = next(k for k in range(4) if p.fits[a, 0, k])
    kb = next(k for k in range(4) if p.fits[b_, 0, k])
    b = decode_names(sp, {f"x_p{a + 1}_r1_c1_k{ka}": 1.0, f"x_p{b_ + 1}_r1_c1_k{kb}": 1e-9, "h_r1_c1": 1.0,
                          "__dummy": 0.0})
    assert b.piece[0] == a and (b.piece[1:] < 0).all()
    with pytest.raises(emc.EmcError, match="clash|twice|two|both|more than one"):
        decode_names(sp, {f"x_p{a + 1}_r1_c1_k{ka}": 1.0, f"x_p{b_ + 1}_r1_c1_k{kb}": 1.0})
    with pytest.raises(emc.EmcError, match="has the value 0.2: no integer solution"):
        decode_names(sp, {f"x_p{a + 1}_r1_c1_k{ka}": 1.0, f"x_p{b_ + 1}_r1_c1_k{kb}": 0.2})
    with pytest.raises(emc.EmcError, match="is no variable of this model"):
        decode_names(sp, {f"x_p{a + 1}_r1_c1_k{(ka + 1) % 4}": 1.0})


def test_start_values_are_a_feasible_point_with_the_right_objective():
    p, b = planted(5, 4, 2, 3, 3)
    swap = [p.cell_of(1, 1), p.cell_of(2, 2)]
    b.piece[swap] = b.piece[swap[::-1]]
    for variant in VARIANTS:
        sp = Subproblem.whole(p, Goal.OPTIMISATION, symmetry_breaking=False)
        enc = encode(sp, "milp", variant)
        v = enc.start_values(b)
        m = enc.model
        act = m.matrix() @ v
        assert (act >= m.row_lower - 1e-9).all() and (act <= m.row_upper + 1e-9).all()
        assert (v >= m.col_lower).all() and (v <= m.col_upper).all()
        assert m.cost @ v == pytest.approx(sp.max_score - sp.score(b))
        assert enc.decode(v) == b


# --------------------------------------------------------------------------- solving
WHOLE = {
    "set2-3x3": lambda: emc.load("set2-3x3"),
    "set2-4x4": lambda: emc.load("set2-4x4"),
    "set2-4x3": lambda: emc.load("set2-4x3"),
    "gen-4x4": lambda: planted(4, 4, 2, 3, 7)[0],
}


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("case", sorted(WHOLE))
def test_whole_puzzles_reach_full_score(backend, variant, case):
    p = WHOLE[case]()
    for goal in Goal:
        sp = Subproblem.whole(p, goal)
        res = get_backend(backend).solve(sp, time_limit=120, variant=variant)
        assert res.status is Status.OPTIMAL, res
        assert res.objective == res.bound == p.max_score
        assert emc.verify(p, res.board).solved
        q, cells = sp.symmetry_cells()
        assert res.board.piece[cells].tolist().count(q) == 1


def _region_cases():
    """Planted 5x5 boards whose inner 2x2 region got one piece from outside: the brute-force
    optimum of the region is below its maximum."""
    out = []
    for seed in range(1, 40):
        p, b = planted(5, 5, 2, 3, seed)
        free = [p.cell_of(1, 1), p.cell_of(1, 2), p.cell_of(2, 1), p.cell_of(2, 2)]
        far = p.cell_of(3, 3)
        b.piece[[free[1], far]] = b.piece[[far, free[1]]]
        opt = region_optimum(p, b, free)
        if opt < Subproblem.region(p, b, free).max_score:
            out.append((p, b, free, opt))
        if len(out) == 2:
            return out
    raise AssertionError("no region with an optimum below its maximum")


REGIONS = _region_cases()
LINKED = [("paper", None), ("compact", "flow"), ("compact", "diff")]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("k", range(len(REGIONS)))
def test_backends_and_variants_agree_with_brute_force_optimum(backend, k):
    p, b, free, opt = REGIONS[k]
    sp = Subproblem.region(p, b, free, Goal.OPTIMISATION)
    assert opt < sp.max_score
    for variant, linking in LINKED:
        res = get_backend(backend).solve(sp, time_limit=120, variant=variant, linking=linking)
        assert res.status is Status.OPTIMAL, (variant, linking, res)
        assert res.objective == res.bound == opt
        # the same region under a feasibility goal has no answer
    for variant in VARIANTS:
        res = get_backend(backend).solve(sp.with_goal(Goal.FEASIBILITY), time_limit=120, variant=variant)
        assert res.status is Status.INFEASIBLE and res.board is None


@given(st.integers(0, 10_000), st.integers(2, 3), st.sampled_from(["paper", "compact"]))
@settings(max_examples=12, deadline=None)
def test_highs_region_optimum_equals_brute_force(seed, size, variant):
    p, b = planted(4, 4, 2, 2, seed % 50)
    rng = np.random.default_rng(seed)
    start = int(rng.integers(0, p.n_cells - size))
    free = list(range(start, start + size))
    for c in free:  # scramble the region's rotations and order
        b.rotation[c] = int(rng.integers(0, 4))
    b.piece[free] = rng.permutation(b.piece[free])
    sp = Subproblem.region(p, b, free, Goal.OPTIMISATION)
    res = get_backend("highs").solve(sp, time_limit=60, variant=variant)
    assert res.status is Status.OPTIMAL
    assert res.objective == region_optimum(p, b, free)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_cleared_regions_are_solved_back(backend, variant, planted_6x5):
    p, b = planted_6x5
    block = [p.cell_of(r, c) for r in (2, 3) for c in (2, 3)]
    top_row = [p.cell_of(0, c) for c in range(p.width)]
    for free in (block, top_row):
        cleared = b.copy()
        cleared.clear(free)
        for goal in Goal:
            sp = Subproblem.region(p, b, free, goal)
            assert (sp.fixed.piece[free] < 0).all()
            res = get_backend(backend).solve(sp, time_limit=120, variant=variant)
            assert res.status is Status.OPTIMAL, res
            assert res.objective == sp.max_score
            assert emc.verify(p, res.board).solved


@pytest.mark.parametrize("backend", BACKENDS)
def test_surplus_pieces_never_show_the_border_inside(backend):
    # Three inner cells free, with their own pieces plus two edge pieces taken off the board:
    # the paper's rows alone would let an edge piece sit inside with its border side out.
    p, b = planted(5, 5, 2, 3, 4)
    free = [p.cell_of(1, 1), p.cell_of(1, 2), p.cell_of(2, 2)]
    spare = [p.cell_of(0, 2), p.cell_of(2, 4)]
    fixed = b.copy()
    fixed.clear(spare)
    pieces = np.concatenate([b.piece[free], b.piece[spare]])
    sp = Subproblem(p, fixed, free, pieces, Goal.OPTIMISATION)
    enc = encode(sp, "milp", "paper")
    inside = (p.colours[enc.x_piece, enc.x_rotation] == 0) & ~p.frame_sides[enc.x_cell]
    assert inside.any() and (enc.model.col_upper[: enc.n_x][inside.any(axis=1)] == 0).all()
    results = [get_backend(backend).solve(sp, time_limit=120, variant=v) for v in VARIANTS]
    for res in results:
        assert res.status is Status.OPTIMAL and not check_subproblem_solution(sp, res.board)
    assert results[0].objective == results[1].objective == sp.max_score


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_cuts_exclude_found_solutions(backend, variant):
    p = emc.load("set2-3x3")
    assert count_solutions(p, symmetry=True) == 2
    sp = Subproblem.whole(p, Goal.FEASIBILITY)
    be = get_backend(backend)
    first = be.solve(sp, variant=variant)
    second = be.solve(sp, variant=variant, cuts=[first.board])
    assert first.status is second.status is Status.OPTIMAL
    assert emc.verify(p, second.board).solved and second.board != first.board
    third = be.solve(sp, variant=variant, cuts=[first.board, second.board])
    assert third.status is Status.INFEASIBLE


def test_cut_rows_follow_cut_17():
    p, b = planted(4, 4, 2, 3, 1)
    sp = Subproblem.region(p, b, [5, 6, 9], Goal.FEASIBILITY)
    for variant in VARIANTS:
        enc = encode(sp, "milp", variant, cuts=[b])
        m = enc.model
        i = m.row_names.index("cut_1")
        idx, val = m.row(i)
        assert m.row_upper[i] == 2 and len(idx) == 3 and (val == 1).all()
        assert sorted(m.col_names[j] for j in idx) == sorted(
            f"x_p{b.piece[c] + 1}_r{c // 4 + 1}_c{c % 4 + 1}_k{b.rotation[c]}" for c in (5, 6, 9))


# CBC spends seconds reading and presolving the paper model before it looks at the clock.
@pytest.mark.parametrize("backend,variant", [("highs", "paper"), ("highs", "compact"), ("cbc", "compact")])
def test_tiny_time_limit_on_8x8(backend, variant):
    p = emc.load("set2-8x8")
    sp = Subproblem.whole(p, Goal.OPTIMISATION)
    res = get_backend(backend).solve(sp, time_limit=0.05, variant=variant)
    assert res.status in (Status.UNKNOWN, Status.FEASIBLE) and res.interrupted
    if res.board is not None:
        assert not check_subproblem_solution(sp, res.board)


@pytest.mark.slow
def test_cbc_is_stopped_when_its_root_phase_outlasts_the_time_limit():
    """CBC looks at -sec only in branch and bound; on the 9x9 feasibility model its root
    phase runs on for many seconds, so emc must stop it itself: the answer is marked
    interrupted (CBC, left alone, ended its root phase and reported a plain 'unknown')."""
    sp = Subproblem.whole(emc.load("set2-9x9"))
    res = get_backend("cbc").solve(sp, time_limit=1)
    assert res.status in (Status.UNKNOWN, Status.FEASIBLE) and res.interrupted
    if res.board is not None:
        assert not check_subproblem_solution(sp, res.board)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_hint_is_used_as_mip_start(backend, tmp_path):
    p, b = planted(8, 8, 3, 6, 5)
    near = b.copy()
    swap = [p.cell_of(2, 2), p.cell_of(5, 4)]
    near.piece[swap] = near.piece[swap[::-1]]
    sp = Subproblem.whole(p, Goal.OPTIMISATION, symmetry_breaking=False)
    log = tmp_path / f"{backend}.log"
    res = get_backend(backend).solve(sp, time_limit=2, hint=near, log_path=log)
    assert res.status.has_board and res.objective >= sp.score(near)
    assert log.stat().st_size > 0


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_ctrl_c_returns_instead_of_crashing(backend):
    p = emc.load("set2-8x8")
    sp = Subproblem.whole(p, Goal.OPTIMISATION)
    done = threading.Event()

    def interrupt():
        if not done.is_set():
            os.kill(os.getpid(), signal.SIGINT)

    # CBC ignores the first SIGINT in its root phase; emc kills it after a grace (or at the second).
    timers = [threading.Timer(t, interrupt) for t in (1.0, 3.0)]
    for t in timers:
        t.start()
    try:
        res = get_backend(backend).solve(sp, time_limit=120)
    finally:
        done.set()
        for t in timers:
            t.cancel()
    assert res.interrupted
    assert res.status in (Status.FEASIBLE, Status.UNKNOWN)
    if res.board is not None:
        assert not check_subproblem_solution(sp, res.board)


def test_on_improvement_sees_valid_boards():
    p = emc.load("set2-4x4")
    sp = Subproblem.whole(p, Goal.OPTIMISATION, symmetry_breaking=False)
    seen = []
    res = get_backend("highs").solve(sp, time_limit=60, on_improvement=lambda b, s: seen.append((b.copy(), s)))
    assert seen and res.status.has_board
    for board, s in seen:
        assert not check_subproblem_solution(sp, board) and sp.score(board) == s
    assert [s for _, s in seen] == sorted(s for _, s in seen)


def test_encoder_registry_and_formats():
    enc = get_encoder("milp")
    assert enc.formats == ("lp", "mps") and enc.variants[0] == "compact"
    from emc.encoders import formulation_of_format

    assert formulation_of_format("lp") == ("milp", "lp") and formulation_of_format("mps") == ("milp", "mps")
    for name in BACKENDS:
        be = get_backend(name)
        assert be.available() and be.version() and "emc[milp]" in be.install_hint


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["highs", "cbc"])
def test_milp_backends_report_their_tree_bound_and_best_as_progress(backend):
    """HiGHS through its interrupt callback, CBC by following its log as it is written."""
    import re

    sp = unsolvable_optimisation("set2-5x5")
    be = get_backend(backend)
    lines: list[str] = []
    res = be.solve(sp, time_limit=6, threads=2, on_progress=lines.append)  # CBC bounds after ~1 s here
    assert res.status in (Status.OPTIMAL, Status.FEASIBLE) and be.progress is None and lines
    pat = r"^(?:root node|([\d.]+(?: thousand| million)?) branch-and-bound nodes)(?:, bound (\d+))?(?:, best (\d+))?$"
    seen = [re.match(pat, x) for x in lines]
    assert all(seen), lines
    nodes = [counted(m[1]) for m in seen if m[1]]
    bounds = [int(m[2]) for m in seen if m[2]]
    best = [int(m[3]) for m in seen if m[3]]
    assert nodes == sorted(nodes) and bounds == sorted(bounds, reverse=True) and best == sorted(best)
    assert bounds and best, lines  # both solvers find boards and bound the score within the limit here
    assert all(res.objective <= b <= sp.max_score for b in bounds) and all(b <= res.objective for b in best)


@pytest.mark.parametrize("fmt", ["lp", "mps"])
def test_feasibility_files_hold_exactly_the_model_columns(tmp_path, fmt):
    # An empty objective made PuLP add a "__dummy" column; the files must hold the model's
    # columns and nothing else, so their sizes are the ones emc reports.
    import highspy

    sp = Subproblem.whole(emc.load("set2-4x4"), Goal.FEASIBILITY)
    enc = encode(sp, "milp", "compact")
    path = tmp_path / f"f.{fmt}"
    enc.write(path)
    text = path.read_text()
    assert "__dummy" not in text and "feasibility" in text
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(path))
    assert h.getNumCol() == enc.model.n_cols and h.getNumRow() == enc.model.n_rows
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal


def test_a_callback_error_in_highs_reaches_the_caller():
    """HiGHS runs its callbacks in its own thread, printed their exceptions and went on (its
    answer then had no board): the error now stops the solve and is raised to the caller."""
    import emc
    from emc.backends import get_backend
    from emc.model import Goal, Subproblem

    def boom(board, score):
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        get_backend("highs").solve(Subproblem.whole(emc.load("set2-6x6"), Goal.OPTIMISATION), time_limit=30,
                                   on_improvement=boom)


def test_c_level_printing_during_a_highs_solve_goes_to_stderr(tmp_path):
    """HiGHS 1.12 printf's a debug line whatever its settings; a board written to -o /dev/stdout
    came after it. While HiGHS runs under the command line, C-level stdout is sent to stderr,
    and put back after; a library caller's stdout is not touched (the move is process-wide)."""
    import os
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    import emc

    script = tmp_path / "c.py"
    script.write_text(textwrap.dedent("""
        import ctypes, sys
        from emc import runtime as base
        from emc.runtime import c_stdout_to_stderr as _c_stdout_to_stderr
        libc = ctypes.CDLL(None)
        print("before", flush=True)
        with _c_stdout_to_stderr():  # a library caller's stdout is left alone
            libc.printf(b"library\\n")
            libc.fflush(None)
        base.REDIRECT_C_STDOUT = True  # as the command line sets it
        with _c_stdout_to_stderr():
            libc.printf(b"from C inside\\n")
            with _c_stdout_to_stderr():  # a second solve in another thread shares it
                libc.printf(b"nested\\n")
            libc.printf(b"still inside\\n")
        libc.printf(b"from C after\\n")
        libc.fflush(None)
        print("after", flush=True)
    """))
    env = dict(os.environ, PYTHONPATH=str(Path(emc.__file__).resolve().parent.parent))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["before", "library", "from", "C", "after", "after"], proc.stdout
    assert proc.stderr.splitlines() == ["from C inside", "nested", "still inside"], proc.stderr


@pytest.mark.parametrize("backend,params,words", [
    ("cpsat", {"log_search_progress": True}, "CP-SAT"),
    ("highs", {"output_flag": True, "log_to_console": True}, "Running HiGHS")])
def test_a_solver_log_asked_for_in_params_goes_to_stderr(backend, params, words):
    """A solver log asked for in params printed on stdout, ahead of --json's report (which no
    longer parsed) and of a board written to -o /dev/stdout."""
    import json
    import subprocess
    import sys

    if not get_backend(backend).available():
        pytest.skip(f"{backend} is not installed")
    proc = subprocess.run([sys.executable, "-m", "emc", "solve", "set2-4x4", "-b", backend, "-O",
                           f"params={json.dumps(params)}", "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "optimal" and words in proc.stderr


@pytest.mark.parametrize("backend,key", [("highs", "time_limit"), ("cbc", "sec"), ("cbc", "Seconds"),
                                         ("cpsat", "max_time_in_seconds"), ("cpsat", "max_deterministic_time")])
def test_a_time_limit_hidden_in_params_is_refused(cli, backend, key):
    """A solver's own time setting in params overrode --time-limit without a word (a 5 s
    matheuristic ran 8.5 s with CP-SAT's max_time_in_seconds=100)."""
    import json

    opt = f"params={json.dumps({key: 100})}"
    for args in (("solve", "set2-4x4", "-b", backend, "-t", 5, "-O", opt),
                 ("matheuristic", "set2-5x5", "-b", backend, "-t", 5, "--backend-option", opt)):
        r = cli(*args)
        assert r.code == 2 and f"{backend} params {key}: the time limit is set with --time-limit" in r.err, (args, r)
        assert r.err.count("\n") == 1 and r.out == ""


@pytest.mark.parametrize("backend,key,flag", [("highs", "threads", "--threads"), ("highs", "random_seed", "--seed"),
                                              ("cbc", "thread", "--threads"), ("cbc", "randomSeed", "--seed"),
                                              ("cbc", "randomCbc", "--seed"), ("cpsat", "num_workers", "--threads"),
                                              ("cpsat", "num_search_workers", "--threads"),
                                              ("cpsat", "random_seed", "--seed")])
def test_threads_and_seed_hidden_in_params_are_refused(cli, backend, key, flag):
    """params={"random_seed": 5} gave the board of --seed 5 while the header and the board file
    recorded seed 0; num_workers overrode --threads and broke emc count's enumeration."""
    import json

    opt = f"params={json.dumps({key: 1})}"
    r = cli("solve", "set2-4x4", "-b", backend, "-t", 5, "-O", opt)
    assert r.code == 2 and f"{backend} params {key}: the {flag[2:]}" in r.err and f"set with {flag}" in r.err, r
    if backend == "cpsat":
        r = cli("count", "set2-4x4", "-b", "cpsat", "-O", opt)
        assert r.code == 2 and f"cpsat params {key}" in r.err, r
    r = cli("count", "set2-4x4", "-b", "cpsat", "-O", 'params={"enumerate_all_solutions": false}')
    assert r.code == 2 and "emc count enumerates" in r.err, r


@pytest.mark.slow
@pytest.mark.parametrize("backend,params", [("cpsat", {"absolute_gap_limit": 30}), ("highs", {"mip_abs_gap": 100}),
                                            ("cbc", {"allowableGap": 100})])
def test_a_gap_limit_in_params_gives_feasible_with_the_solvers_bound_not_optimal(cli, backend, params):
    """The solvers call a search their gap limit ended "optimal": set 2's 7x7 (a perfect board
    exists) came out as OPTIMAL 59/84 with bound 59."""
    import json

    r = cli("solve", "set2-7x7", "-b", backend, "--goal", "optimisation", "-t", 60, "-O",
            f"params={json.dumps(params)}", "--json")
    assert r.code == 0, r
    d = json.loads(r.out)
    assert d["status"] == "feasible" and d["objective"] < 84 and d["bound"] == 84, d  # no proof: 84 is reachable
    assert "gap limit" in d["stats"]["stopped"] and d["board_valid"] and d["board_score"] == d["objective"]
    assert d["board"]["format"] == "emc-board" and d["board"]["score"] == d["objective"]


@pytest.mark.slow
def test_ctrl_c_inside_a_highs_sub_mip_answers_at_once_and_exits_cleanly(tmp_path):
    """HiGHS does not look at the interrupt inside its heuristic sub-MIPs: on the second 2xW
    region of Eternity II it ran on for ~20 s after Ctrl-C with RINS and RENS on (emc turns
    them off; params turn them on here, as a user may, for the longest sub-MIPs). The call now answers after a short
    grace with the best solution HiGHS had reported, leaving HiGHS's thread to end in the
    background: a script's interpreter waits for that thread at exit (a solver thread calling
    into an interpreter that is shutting down aborted it: "terminate called without an active
    exception"), and the emc command exits at once with the board saved."""
    import textwrap

    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent("""
        import _thread, sys, threading
        import emc
        from emc import runtime as base
        from emc.heuristics.decomposition.construction import construct
        P = emc.load("eternity2")
        delay = float(sys.argv[1])

        def on_region(rec, board):  # region 2's solve starts now: its sub-MIPs run from ~2 s to ~25 s
            if rec.index == 0:
                threading.Timer(delay, _thread.interrupt_main).start()

        res = construct(P, "greedy", region="2xW", backend="highs", time_limit=120, threads=1, on_region=on_region,
                        params={"mip_heuristic_run_rins": True, "mip_heuristic_run_rens": True})
        print("RESULT", res.interrupted, bool(base.BACKGROUND_THREADS), emc.verify(P, res.board).valid, flush=True)
    """))
    env = dict(os.environ, PYTHONPATH=str(Path(emc.__file__).resolve().parent.parent))
    # The signal is aimed at a sub-MIP, a few seconds into region 2 (timed from region 1's end, so a
    # loaded machine does not move it into region 1); a busy machine may still be in presolve then,
    # where HiGHS answers the interrupt itself, so later aims are tried before calling it failed.
    # Every attempt must answer interrupted with a valid board and exit cleanly.
    outcomes = []
    for delay in (3, 6, 10):
        proc = subprocess.run([sys.executable, str(script), str(delay)], capture_output=True, text=True, env=env,
                              timeout=300)
        assert proc.returncode == 0 and "terminate called" not in proc.stderr, proc.stderr
        assert proc.stdout.startswith("RESULT True") and proc.stdout.rstrip().endswith("True"), proc.stdout
        outcomes.append(proc.stdout.strip())
        if proc.stdout.strip() == "RESULT True True True":
            break
    assert outcomes[-1] == "RESULT True True True", outcomes  # the call left HiGHS's thread running

    out = tmp_path / "b.json"
    cmd = subprocess.Popen([sys.executable, "-u", "-m", "emc", "construct", "eternity2", "--region", "2xW", "-t", "120",
                            "--threads", "1", "--progress-every", "0.01", "-o", str(out), "--backend-option",
                            'params={"mip_heuristic_run_rins": true, "mip_heuristic_run_rens": true}'],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    for line in cmd.stderr:  # progress lines until region 1 is solved: region 2's solve has begun
        if "region 1" in line:
            break
    time.sleep(3)  # aim the signal at region 2's sub-MIP (no speed is asserted)
    cmd.send_signal(signal.SIGINT)
    text, err = cmd.communicate(timeout=120)
    assert cmd.returncode == 130 and "terminate called" not in err and "Traceback" not in err, err
    assert "interrupted" in text and emc.verify(emc.load("eternity2"), emc.read_board(out, emc.load("eternity2"))).valid


def test_cbc_is_not_started_when_building_the_model_took_the_whole_limit(cli, tmp_path):
    """CBC read the model and ran its root phase past the limit until emc ended it (Eternity II
    with -t 1 took over 8 s); a limit the model's own building spends now answers unknown."""
    r = cli("solve", "meta-10x10", "-b", "cbc", "--goal", "optimisation", "-t", "0.001", "--log", tmp_path / "cbc.log")
    assert r.code == 3 and "status UNKNOWN" in r.out and "(time limit reached)" in r.out, r
    assert "stopped: the time limit ran out while building the model (CBC not started)" in r.out
    assert "CBC not started" in (tmp_path / "cbc.log").read_text()  # the log emc writes for a solver that wrote none


def test_milp_helpers_bound_cbc_lines_and_lp_points(tmp_path):
    """Small pieces the solves lean on: a fractional dual bound rounds up unmatched edges (so
    the matched bound is as tight as it may be), CBC's `**`-flagged lines keep their values, and
    a fractional placement value (an LP point, not a board) decodes to nothing."""
    from emc.backends.milp import _bound_from, _checked_board, read_cbc_solution
    from emc.encoders import encode

    sp = Subproblem.whole(emc.load("set2-3x3"), Goal.OPTIMISATION)
    assert _bound_from(sp, 2.5) == sp.max_score - 3 and _bound_from(sp, 3.0000001) == sp.max_score - 3
    assert _bound_from(sp, None) is None and _bound_from(sp, float("inf")) is None
    sol = tmp_path / "s.txt"
    sol.write_text("Optimal - objective value 0\n      0 x_p1_r1_c1_k3  1  0\n** 1 x_p2_r1_c2_k0  1  0\n")
    head, values = read_cbc_solution(sol)
    assert head.startswith("Optimal") and values == {"x_p1_r1_c1_k3": 1.0, "x_p2_r1_c2_k0": 1.0}
    enc = encode(sp, "milp")
    solved = get_backend("highs").solve(sp, time_limit=30).board
    names = {f"x_p{int(solved.piece[c]) + 1}_r{c // 3 + 1}_c{c % 3 + 1}_k{int(solved.rotation[c])}": 1.0
             for c in range(9)}
    assert _checked_board(enc, sp, names) == solved
    half = dict(names)
    half[next(iter(half))] = 0.5
    assert _checked_board(enc, sp, half) is None


# ------------------------------------------------------------- the rows, point by point
def _fill_cases():
    """Small feasibility regions with several perfect fills and mismatched fills that pass every
    fixed neighbour: four cells of a planted 5x4 (one on the frame), three beside an empty fixed
    cell, the inner 2x2 block of a planted 4x4 with three inner colours, and two cells with spare
    pieces."""
    P, planted = emc.generate(5, 4, 2, 2, seed=2)
    c = P.cell_of
    yield Subproblem.region(P, planted, [c(1, 1), c(1, 2), c(1, 3), c(0, 2)], Goal.FEASIBILITY)
    b = planted.copy()
    b.clear([c(2, 3)])
    yield Subproblem.region(P, b, [c(1, 2), c(1, 3), c(2, 2)], Goal.FEASIBILITY)
    P3, planted3 = emc.generate(4, 4, 2, 3, seed=4)
    yield Subproblem.region(P3, planted3, [P3.cell_of(r, k) for r in (1, 2) for k in (1, 2)], Goal.FEASIBILITY)
    # a frame cell and the inner cell below it, with four spare pieces: each side of their edge
    # has candidates showing a colour the other side cannot show
    P5, planted5 = emc.generate(5, 5, 2, 4, seed=9)
    cells, extra = [P5.cell_of(0, 2), P5.cell_of(1, 2)], [P5.cell_of(3, 3), P5.cell_of(0, 3), P5.cell_of(2, 3), P5.cell_of(4, 2)]
    b = planted5.copy()
    b.clear(extra)
    yield Subproblem.region(P5, b, cells, Goal.FEASIBILITY, pieces=list(planted5.piece[cells]) + list(planted5.piece[extra]))


@pytest.mark.parametrize("variant", VARIANTS)
def test_feasibility_rows_hold_exactly_for_the_perfect_fills(variant):
    """Without a solver: every fill of the free cells (allowed pieces, frame-fitting turns) is
    put into the model's columns (the edge columns of the paper variant at 0, their bounds in a
    feasibility model) and its rows checked; they all hold exactly when emc.score finds every
    counted edge matched (a fill whose placement has no column, one fitting no fixed neighbour,
    is no point of the model)."""
    from bruteforce import every_fill

    perfect = mismatched = 0
    for sp in _fill_cases():
        enc = encode(sp, "milp", variant)
        m = enc.model
        A = m.matrix()
        col = {(int(p), int(c), int(k)): j for j, (p, c, k) in enumerate(zip(enc.x_piece, enc.x_cell, enc.x_rotation))}
        assert np.all(m.col_upper[enc.n_x:] == 0)
        for perm, rots, b in every_fill(sp):
            ok = sp.score(b) == sp.max_score
            js = [col.get((p, int(c), r)) for c, p, r in zip(sp.free.tolist(), perm, rots)]
            if None in js:
                assert not ok
                continue
            x = np.zeros(m.n_cols)
            x[js] = 1
            if np.any(x > m.col_upper):
                assert not ok
                continue
            act = A @ x
            holds = bool(np.all(act >= m.row_lower - 1e-9) and np.all(act <= m.row_upper + 1e-9))
            assert holds == ok, (variant, sp.free.tolist(), perm, rots)
            perfect += ok
            mismatched += not ok
    assert perfect >= 6 and mismatched > 0
