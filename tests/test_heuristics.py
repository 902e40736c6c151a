"""The matheuristic: compiled kernels, the five neighbourhoods, the constructive heuristics,
the driver and the commands, on real generated and shipped puzzles with real solvers.

Optimality claims (TA/BW assignments, TSR local optima) are checked by brute force with
emc.score, which shares no code with the compiled kernels.
"""

from __future__ import annotations

import itertools
import json
import re
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import emc
from emc.heuristics.decomposition import kernels as K
from emc.heuristics.core.starts import random_board
from emc.heuristics.decomposition.local_search import LocalSearchParams, improve
from emc.heuristics.decomposition.neighbourhoods import (
    BlackWhite,
    Context,
    RegionOptimisation,
    SearchState,
    SwapRotate,
    TileAssignment,
    reassign,
)
from emc.model import Board, PieceClass
from emc.score import score, swap_delta, verify


def make_state(puzzle, board, seed=0, backend=None):
    ctx = Context(puzzle)
    b = board.copy()
    return SearchState(ctx, b, ctx.score(b), np.random.default_rng(seed), backend)


def small_case(w, h, seed, frame=2, inner=3):
    puzzle, _ = emc.generate(w, h, frame, inner, seed=seed)
    return puzzle, random_board(puzzle, seed)


def fitting_rotations(puzzle, piece, cell):
    return [int(r) for r in np.flatnonzero(puzzle.fits[piece, cell])]


# ----------------------------------------------------------------------------- kernels
@given(st.integers(3, 6), st.integers(3, 6), st.integers(0, 10_000))
@settings(max_examples=30, deadline=None)
def test_compiled_scores_and_swap_deltas_match_the_reference(w, h, seed):
    puzzle, board = small_case(w, h, seed)
    ctx = Context(puzzle)
    assert ctx.score(board) == score(puzzle, board)
    um = ctx.unmatched(board)
    inside = (puzzle.neighbours >= 0).sum(axis=1)
    from emc.score import cell_matches

    for c in range(puzzle.n_cells):
        assert um[c] == inside[c] - cell_matches(puzzle, board, c)
    rng = np.random.default_rng(seed)
    for _ in range(40):
        a, b = (int(x) for x in rng.integers(0, puzzle.n_cells, 2))
        ra, rb = (int(x) for x in rng.integers(0, 4, 2))
        want = swap_delta(puzzle, board, a, b, ra, rb)
        got = K.swap_delta(ctx.colours, ctx.neighbours, board.piece, board.rotation, a, b, ra, rb)
        assert got == want
        # and against full rescoring
        moved = board.copy()
        pa, pb = moved.piece[a], moved.piece[b]
        if a == b:
            moved.rotation[a] = ra
        else:
            moved.place(a, pb, ra)
            moved.place(b, pa, rb)
        assert score(puzzle, moved) - score(puzzle, board) == want


@given(st.integers(3, 7), st.integers(3, 7), st.integers(0, 10_000))
@settings(max_examples=30, deadline=None)
def test_tsr_table_scan_finds_the_same_best_gain_as_the_plain_scan(w, h, seed):
    puzzle, board = small_case(w, h, seed)
    ctx = Context(puzzle)
    bv, br, cur = ctx.tsr_tables()
    args = (ctx.colours, ctx.neighbours, ctx.fits, board.piece, board.rotation, ctx.tsr_cells, ctx.tsr_starts,
            ctx.group_of, bv, br, cur)
    K.tsr_init(*args)
    for _ in range(5):  # a few moves, so the table is also checked after incremental updates
        d1, a, b, ra, rb = K.tsr_scan(*args)
        d2 = K.tsr_best_move(ctx.colours, ctx.neighbours, ctx.fits, board.piece, board.rotation,
                             ctx.tsr_cells, ctx.tsr_starts)[0]
        assert d1 == d2
        if d1 <= 0:
            break
        assert swap_delta(puzzle, board, a, b, ra, rb) == d1
        K.tsr_steps(*args, 1)


def test_sample_nonadjacent_draws_distinct_non_touching_cells():
    puzzle, board = small_case(8, 7, 3)
    ctx = Context(puzzle)
    rng = np.random.default_rng(0)
    for _ in range(50):
        cells = K.sample_nonadjacent(ctx.neighbours, ctx.inner_cells, rng.random(len(ctx.inner_cells)) + 0.1, 16,
                                     rng.random(16))
        assert len(set(cells.tolist())) == len(cells) > 0
        assert set(cells.tolist()) <= set(ctx.inner_cells.tolist())
        for a, b in itertools.combinations(cells, 2):
            assert b not in puzzle.neighbours[a]


# ------------------------------------------------------------------ brute-force optima
def brute_best(puzzle, board, cells):
    """Best score over every permutation x fitting rotation of the pieces on ``cells``."""
    pieces = [int(board.piece[c]) for c in cells]
    best = -1
    for perm in itertools.permutations(pieces):
        rot_choices = [fitting_rotations(puzzle, p, c) for p, c in zip(perm, cells)]
        if any(not r for r in rot_choices):
            continue
        for rots in itertools.product(*rot_choices):
            b = board.copy()
            for c, p, r in zip(cells, perm, rots):
                b.place(int(c), p, r)
            best = max(best, score(puzzle, b))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_ta_reinsertion_is_the_assignment_optimum(seed):
    puzzle, board = small_case(6, 6, seed, frame=2, inner=3)
    state = make_state(puzzle, board, seed)
    rng = np.random.default_rng(seed)
    # inner cells (4 rotations each) and frame cells (corners and edges mixed: they must not trade)
    for part, k in ((state.ctx.inner_cells, 4), (state.ctx.frame_cells, 5)):
        cells = K.sample_nonadjacent(state.ctx.neighbours, part, np.ones(len(part)), k, rng.random(k))
        want = brute_best(puzzle, state.board, cells)
        before = state.score
        gain = reassign(state, cells)
        assert state.score == before + gain == want == score(puzzle, state.board)
        assert verify(puzzle, state.board).valid


def test_ta_sideways_switch_moves_on_ties_only_when_on():
    """At a reinsertion optimum (no gain left for the cells), accept_equal=False leaves the board
    as it is and accept_equal=True may apply another optimum of the same score (a sideways move)."""
    sideways = 0
    for seed in range(4):
        puzzle, board = small_case(6, 6, seed, frame=2, inner=3)
        for trial in range(10):
            off = make_state(puzzle, board, seed)
            rng = np.random.default_rng(seed * 100 + trial)
            part = off.ctx.inner_cells
            cells = K.sample_nonadjacent(off.ctx.neighbours, part, np.ones(len(part)), 4, rng.random(4))
            while reassign(off, cells) > 0:  # climb to an optimum for these cells
                pass
            on = make_state(puzzle, off.board, seed)
            before = off.board.copy()
            assert reassign(off, cells, accept_equal=False) == 0 == reassign(on, cells, accept_equal=True)
            assert off.board.piece.tolist() == before.piece.tolist()
            assert off.board.rotation.tolist() == before.rotation.tolist()
            assert on.score == off.score == score(puzzle, on.board) and verify(puzzle, on.board).valid
            sideways += (on.board.piece.tolist(), on.board.rotation.tolist()) != (before.piece.tolist(),
                                                                                 before.rotation.tolist())
    assert sideways > 0  # ties are common (about 3 in 10 here): the switch must act on some


@pytest.mark.parametrize("seed", range(4))
def test_bw_ends_optimal_for_both_colour_classes(seed):
    puzzle, board = small_case(5, 4, seed, frame=2, inner=3)
    state = make_state(puzzle, board, seed)
    start = state.score
    BlackWhite().run(state, float("inf"))
    assert state.score >= start and state.score == score(puzzle, state.board)
    assert verify(puzzle, state.board).valid
    ctx = state.ctx
    for colour in (0, 1):
        for part in (ctx.inner_cells, ctx.frame_cells):
            cells = part[ctx.colour_class[part] == colour]
            assert brute_best(puzzle, state.board, cells) == state.score


@pytest.mark.parametrize("w,h,seed", [(4, 4, 1), (5, 4, 2), (5, 5, 3), (6, 4, 4)])
def test_tsr_reaches_a_local_optimum_checked_by_brute_force(w, h, seed):
    puzzle, board = small_case(w, h, seed)
    state = make_state(puzzle, board, seed)
    SwapRotate().run(state, float("inf"))
    b = state.board
    assert state.score == score(puzzle, b) and verify(puzzle, b).valid
    cls = puzzle.cell_class
    for a in range(puzzle.n_cells):
        for c in range(a, puzzle.n_cells):
            if cls[a] != cls[c]:
                continue
            for ra in fitting_rotations(puzzle, int(b.piece[c]), a):
                for rc in fitting_rotations(puzzle, int(b.piece[a]), c):
                    if a == c and ra != rc:
                        continue
                    assert swap_delta(puzzle, b, a, c, ra, rc) <= 0, (a, c, ra, rc)


# ------------------------------------------------------------------ property tests
@given(st.integers(3, 7), st.integers(3, 7), st.integers(0, 10_000), st.sampled_from(["TA", "BW", "TSR"]))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_neighbourhoods_never_lower_the_score_and_keep_the_board_valid(w, h, seed, name):
    puzzle, board = small_case(w, h, seed)
    state = make_state(puzzle, board, seed)
    hood = {"TA": TileAssignment(k=6, n=60), "BW": BlackWhite(), "TSR": SwapRotate()}[name]
    scores = []
    state.on_event = lambda ev: scores.append(ev.score)
    start = state.score
    gain = hood.run(state, float("inf"))
    assert gain >= 0 and state.score == start + gain == score(puzzle, state.board)
    assert scores == sorted(scores) and all(s > start for s in scores)
    assert verify(puzzle, state.board).valid
    assert verify(puzzle, state.best).valid and score(puzzle, state.best) == state.best_score


def test_hint_pieces_never_move():
    e2 = emc.load("eternity2")
    board = random_board(e2, 5)
    assert verify(e2, board).valid  # the random board honours the hint
    res = improve(e2, board, LocalSearchParams(neighbourhoods=("TA", "BW", "TSR"), ta_n=200), backend=None, seed=1)
    (hint,) = e2.hints
    assert res.board.piece[hint.cell] == hint.piece and res.board.rotation[hint.cell] == hint.rotation
    assert verify(e2, res.board).valid and res.score >= res.start_score


def test_local_search_without_backend_is_reproducible_and_monotone():
    puzzle, board = small_case(8, 8, 7, frame=3, inner=5)
    params = LocalSearchParams(neighbourhoods=("TA", "BW", "TSR"), ta_k=8, ta_n=200)
    r1 = improve(puzzle, board, params, backend=None, seed=3)
    r2 = improve(puzzle, board, params, backend=None, seed=3)
    assert r1.board == r2.board and r1.score == r2.score
    assert [e.score for e in r1.events] == [e.score for e in r2.events]
    traj = [r1.start_score] + [e.score for e in r1.events]
    assert traj == sorted(traj) and r1.score == score(puzzle, r1.board)
    assert r1.stopped_by == "local-optimum" and verify(puzzle, r1.board).valid


def test_random_board_is_valid_for_every_class_mix():
    for w, h in ((2, 2), (2, 5), (3, 3), (9, 4)):
        puzzle, _ = emc.generate(w, h, 2, 3, seed=w * h)
        b = random_board(puzzle, 1)
        assert verify(puzzle, b).valid


# ------------------------------------------------------------------ regions and construction
from emc.heuristics.decomposition.construction import backtracking, greedy, regions  # noqa: E402
from emc.model import Hint  # noqa: E402


def test_region_decompositions_partition_the_board():
    p, _ = emc.generate(7, 5, 2, 3, seed=1)
    for spec, order in (("1xW", "row-major"), ("2xW", "row-major"), ("2x3", "snake"), ("Hx1", "row-major"),
                        ("3x2", "column-major")):
        regs = regions(p, spec, order)
        allc = np.concatenate(regs)
        assert sorted(allc.tolist()) == list(range(p.n_cells))
    assert [r.tolist() for r in regions(p, "2xW")][2] == list(range(28, 35))  # last band cut short
    snake = regions(p, "2x3", "snake")
    assert snake[2][0] == 6 and snake[3][0] == 2 * 7 + 6  # the second band runs right to left
    with pytest.raises(emc.InputError):
        regions(p, "ax3")
    with pytest.raises(emc.InputError):
        regions(p, "1xW", "spiral")


def hinted_puzzle():
    p, planted = emc.generate(6, 6, 2, 4, seed=21)
    cell = p.cell_of(2, 3)
    return p.with_hints([Hint(cell, int(planted.piece[cell]), int(planted.rotation[cell]))]), planted


@pytest.mark.parametrize("region,order", [("1xW", "row-major"), ("2x3", "snake")])
def test_greedy_fills_every_cell_with_a_valid_board(region, order):
    p, _ = hinted_puzzle()
    seen = []
    res = greedy(p, "cpsat", region, order, seed=1, on_region=lambda rec, b: seen.append(rec))
    rep = verify(p, res.board)
    assert rep.valid and rep.complete and res.score == score(p, res.board)
    assert all(r.backend == "cpsat" and r.filled_by == "solver" for r in res.records)
    assert len(seen) == len(res.records) == len(regions(p, region, order))
    # each region was solved to optimality: its matched edges are the maximum for that step
    assert all(r.status == "optimal" for r in res.records)


def test_backtracking_finds_the_planted_solution():
    p, _ = emc.generate(5, 5, 4, 8, seed=2)
    res = backtracking(p, "cpsat", "1xW", time_limit=120, seed=1)
    assert res.solved and res.depth == 5 and res.score == p.max_score
    assert verify(p, res.board).solved
    assert any(r.phase == "backtracking" and r.status == "infeasible" for r in res.records) == (res.backtracks > 0)


def test_backtracking_needs_a_backend_that_takes_cuts():
    p, _ = emc.generate(5, 5, 4, 8, seed=2)
    with pytest.raises(emc.InputError, match="no-good cuts"):
        backtracking(p, "sat", "1xW", time_limit=60, seed=1)


def test_backtracking_time_limit_finishes_greedily():
    p, _ = emc.generate(8, 8, 3, 4, seed=5)
    res = backtracking(p, "cpsat", "1xW", time_limit=0.5, seed=1)
    assert verify(p, res.board).valid
    if not res.solved:
        assert res.timed_out
        assert any(r.phase == "greedy" for r in res.records)


def test_a_region_keeps_the_better_of_the_solver_fill_and_the_rule_fill():
    """Each greedy region is filled by the solver's answer or, when that is worse, by the compiled
    rule's fill (the hint it was given): the region's recorded score is at least the rule's on
    the same board. The fast clique heuristic loses to the rule on one region of this puzzle."""
    from emc.heuristics.decomposition.construction import _Builder
    from emc.model import Subproblem

    p, _ = emc.generate(7, 7, 2, 5, seed=0)
    regs = regions(p, "1xW", "row-major")
    after: list[Board] = []
    res = greedy(p, "clique", "1xW", seed=1, time_limit=60, method="heuristic", max_steps=1000,
                 on_region=lambda rec, b: after.append(b.copy()))
    rule = _Builder(p, "clique", 1, 0, None, float("inf"), None, {}).fallback
    before = Board.from_hints(p)
    for rec, board in zip(res.records, after, strict=True):
        sp = Subproblem.region(p, board, regs[rec.index])  # scores the region's edges, as the record does
        assert rec.objective == sp.score(board) >= sp.score(rule(before, regs[rec.index])), rec
        before = board
    assert before == res.board and verify(p, res.board).valid
    assert any(r.status == "feasible" and r.filled_by == "fallback" for r in res.records)


def test_backtracking_tries_every_fill_once_and_finishes_from_the_first_deepest():
    """A puzzle with no perfect board: the backtracking must try every perfect fill of the first
    L rows once (1 <= L < H) and back up from each, so its backtracks are the brute-force count
    of those fills (cuts kept from an earlier prefix would skip some). Its deepest level is
    reached several times with different fills; the greedy finish goes on from the first of
    them (as documented), so the answer keeps that fill's regions."""
    from bruteforce import brute_force_solutions
    from helpers import unsolvable

    p = unsolvable(emc.generate(4, 3, 2, 3, seed=3)[0])
    prefixes = [0] * (p.height + 1)
    assert brute_force_solutions(p, symmetry=False, row_prefixes=prefixes) == []
    seen = []
    res = backtracking(p, "cpsat", "1xW", time_limit=None, seed=1,
                       on_region=lambda rec, b: seen.append((rec, b.copy())))
    assert not res.solved and not res.timed_out and res.depth >= 1
    assert res.backtracks == sum(prefixes[1:p.height]) > 0
    deepest = [b for rec, b in seen if rec.phase == "backtracking" and rec.status != "infeasible"
               and rec.index + 1 == res.depth]
    cells = np.concatenate(regions(p, "1xW", "row-major")[:res.depth])
    kept = [(b.piece[cells].tolist(), b.rotation[cells].tolist()) for b in deepest]
    assert len(set(map(str, kept))) >= 2  # the test can tell the first from the others
    assert (res.board.piece[cells].tolist(), res.board.rotation[cells].tolist()) == kept[0]
    assert verify(p, res.board).valid


def test_a_greedy_construction_takes_and_ignores_the_finish_limit():
    """``construct`` takes ``greedy_time_limit`` for every start (the matheuristic passes it for a
    backtracking start); a greedy start has no finish, so the option must not reach its backend,
    which would refuse it as unknown."""
    from emc.heuristics import construct

    p, _ = emc.generate(4, 4, 2, 3, seed=3)
    a = construct(p, "greedy", backend="cpsat", seed=2, greedy_time_limit=5.0)
    b = construct(p, "greedy", backend="cpsat", seed=2)
    assert a.board == b.board and verify(p, a.board).valid

@pytest.mark.slow
def test_backend_flag_reaches_the_chosen_backend():
    p, _ = emc.generate(5, 5, 2, 3, seed=9)
    for name in ("cpsat", "cbc"):
        res = greedy(p, name, "1xW", seed=0)
        assert {r.backend for r in res.records} == {name}
        assert verify(p, res.board).valid
    start = random_board(p, 2)
    params = LocalSearchParams(neighbourhoods=("BO", "RO"), ro_width=3, ro_height=3, ro_n=2, ro_method="direct",
                               bo_time_limit=1, ro_time_limit=5, patience=1)
    for name in ("cpsat", "cbc"):
        r = improve(p, start, params, backend=name, seed=1)
        assert r.trace and {t["backend"] for t in r.trace} == {name}
        assert r.score >= r.start_score and verify(p, r.board).valid


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_backend_neighbourhoods_never_lower_the_score(seed):
    p, _ = emc.generate(6, 6, 2, 4, seed=30 + seed)
    start = random_board(p, seed)
    params = LocalSearchParams(neighbourhoods=("BO", "RO"), ro_width=3, ro_height=3, ro_n=3,
                               bo_time_limit=1, ro_time_limit=1, ro_clique_steps=20_000, patience=1)
    scores = []
    r = improve(p, start, params, backend="cpsat", seed=seed, on_event=lambda e: scores.append(e.score))
    assert [t["neighbourhood"] for t in r.trace].count("RO") >= 1
    assert {t["backend"] for t in r.trace if t["neighbourhood"] == "RO"} == {"clique"}
    # holes are filled by cpsat, or by the clique step's own assignment when the call's time is up
    assert all(t.get("completed_with") in (None, "cpsat", "assignment", "nothing to fill") for t in r.trace)
    traj = [r.start_score] + scores
    assert traj == sorted(traj) and r.score == score(p, r.board) >= r.start_score
    assert verify(p, r.board).valid


# ------------------------------------------------------------------ commands
def write_puzzle_file(tmp_path, w=6, h=6, f=2, i=4, seed=41):
    p, _ = emc.generate(w, h, f, i, seed=seed)
    path = tmp_path / "p.json"
    emc.write_puzzle(p, path)
    return p, path


FAST_LS = ["--ta-n", "100", "--ta-k", "6", "--window", "3x3", "--ro-n", "2", "--clique-steps", "20000",
           "--bo-time-limit", "1", "--ro-time-limit", "5", "--patience", "1"]
# No BO here: CP-SAT rarely proves a frame optimal within its limit, and a wall-clock limit
# makes the answer machine-dependent. The 3x3 windows are solved to the end.
_NO_BO = FAST_LS.index("--bo-time-limit")
REPEATABLE_LS = FAST_LS[:_NO_BO] + FAST_LS[_NO_BO + 2:] + ["--neighbourhoods", "TA,BW,TSR,RO"]


def read_result(path):
    doc = json.loads(path.read_text())
    assert doc["format"] == "emc-matheuristic-result"
    return doc


def test_matheuristic_writes_a_valid_board_and_a_monotone_trajectory(cli, tmp_path):
    p, pfile = write_puzzle_file(tmp_path)
    out, res, png = tmp_path / "b.json", tmp_path / "r.json", tmp_path / "b.png"
    r = cli("matheuristic", pfile, "-t", "20", "--seed", "3", "-o", out, "--result", res, "--render", png, *FAST_LS)
    assert r.code == 0, r
    board = emc.read_board(out, p)
    assert verify(p, board).valid
    doc = read_result(res)
    traj = [t["score"] for t in doc["trajectory"]]
    assert traj == sorted(traj) and traj[-1] == doc["final"]["score"] == score(p, board)
    assert doc["trajectory"][0]["neighbourhood"] == "construct:greedy"
    assert doc["seed"] == 3 and doc["parameters"]["local_search"]["ta_n"] == 100
    assert doc["parameters"]["local_search"]["ta_accept_equal"] and not doc["parameters"]["local_search"]["ro_accept_equal"]
    # the default sub-problem solver is the first installed of highs, cbc, cpsat
    assert {c["backend"] for c in doc["backend_calls"]} == {"highs", "clique"}
    ro = [c for c in doc["backend_calls"] if c["phase"] == "RO"]
    assert ro and all(c["backend"] == "clique" and set(c.get("holes_completed_with", {})) <= {"highs", "nothing to fill"}
                      for c in ro)
    assert doc["board"]["score"] == doc["final"]["score"] and doc["final"]["valid"]
    assert png.stat().st_size > 0


def test_same_seed_gives_the_same_board(cli, tmp_path):
    p, pfile = write_puzzle_file(tmp_path, seed=42)
    boards = []
    for k in range(2):
        out = tmp_path / f"b{k}.json"
        r = cli("matheuristic", pfile, "--seed", "5", "-o", out, *REPEATABLE_LS)
        assert r.code == 0, r
        boards.append(emc.read_board(out, p))
    assert boards[0] == boards[1]


@pytest.mark.slow
def test_time_limit_stops_the_run_and_saves_the_board(cli, tmp_path):
    # a 10x10 (about 170 of 180 in 3 s): on the 8x8 this used, 110 of 112 in 3 s, a quicker run
    # sometimes matched every edge and stopped as "solved" before the limit
    p, pfile = write_puzzle_file(tmp_path, 10, 10, 3, 6, seed=46)
    out, res = tmp_path / "b.json", tmp_path / "r.json"
    r = cli("matheuristic", pfile, "-t", "3", "--patience", "0", "--neighbourhoods", "TA,BW,TSR,RO", "-o", out,
            "--result", res, "--no-sideways", "--ro-sideways")
    assert r.code == 0, r
    doc = read_result(res)
    assert doc["final"]["stopped_by"] == "time-limit"
    ls = doc["parameters"]["local_search"]
    assert not ls["ta_accept_equal"] and ls["ro_accept_equal"]  # both sideways switches reach the search
    assert ls["patience"] == doc["local_search"]["patience"] == 0
    assert verify(p, emc.read_board(out, p)).valid


def test_construct_and_improve_commands(cli, tmp_path):
    p, pfile = write_puzzle_file(tmp_path, seed=44)
    b0, b1, res = tmp_path / "g.json", tmp_path / "i.json", tmp_path / "r.json"
    r = cli("construct", pfile, "--region", "2xW", "-b", "cbc", "-o", b0, "--result", res)
    assert r.code == 0, r
    doc = read_result(res)
    assert doc["construction"]["region"] == "2xW" and doc["local_search"] is None
    assert {c["backend"] for c in doc["backend_calls"]} == {"cbc"}
    g = emc.read_board(b0, p)
    r = cli("improve", pfile, b0, "--neighbourhoods", "TSR,BW,TA", "--ta-n", "50", "-o", b1)
    assert r.code == 0, r
    i = emc.read_board(b1, p)
    assert verify(p, i).valid and score(p, i) >= score(p, g)
    r = cli("construct", pfile, "--start", "backtracking", "-t", "5", "-o", b0)
    assert r.code == 0, r
    assert verify(p, emc.read_board(b0, p)).valid


def test_construct_time_limit_bounds_the_greedy_finish_too(cli, tmp_path):
    """`emc construct --start backtracking -t S` gave the backtracking S seconds and then let
    its greedy finish call the backend without any limit (25 s and more on Eternity II with
    -t 4). Then it gave the backtracking all of S and the finish nothing, so the fast rule
    filled what was left (worse than a plain greedy construction, and not said). Now the
    backtracking has three quarters of S, the finish what is left, and the report counts the
    regions the fast rule filled."""
    out, res = tmp_path / "b.json", tmp_path / "r.json"
    r = cli("construct", "eternity2", "--start", "backtracking", "-b", "cpsat", "-t", "2", "-o", out, "--result", res)
    assert r.code == 0, r
    doc = read_result(res)
    # the parameters record what was asked (no --construct-time-limit, as emc matheuristic records
    # it), the construction the seconds it had
    assert doc["parameters"]["time_limit"] == 2 and doc["parameters"]["construct_time_limit"] is None
    c = doc["construction"]
    assert c["time_limit"] == 1.5
    assert c["timed_out"] and 0 <= c["finish_time_limit"] <= 0.5
    last = {x["index"]: x for x in c["regions"]}
    rule = sum(x["filled_by"] == "fallback" for x in last.values())
    assert rule > 0  # Eternity II's rows are not all solved by CP-SAT in 2 s
    assert f", {rule} of {len(last)} regions filled by the fast greedy rule" in r.out, r
    assert verify(emc.load("eternity2"), emc.read_board(out, emc.load("eternity2"))).valid


def test_bad_input_gives_one_line_errors(cli, tmp_path):
    p, pfile = write_puzzle_file(tmp_path, seed=45)
    partial = tmp_path / "partial.json"
    b = random_board(p, 1)
    b.clear([0, 1])
    emc.write_board(b, p, partial)
    for args in (("matheuristic", pfile, "--region", "1xZ"),
                 ("matheuristic", pfile, "--neighbourhoods", "TA,XX"),
                 ("matheuristic", pfile, "--backend", "nosuch"),
                 ("improve", pfile, partial),
                 ("construct", tmp_path / "missing.txt")):
        r = cli(*args)
        assert r.code == 2, (args, r)
        assert r.err.startswith("emc: error:") and len(r.err.strip().splitlines()) == 1, r.err
    for cmd in ("matheuristic", "construct", "improve"):
        r = cli(cmd, "--help")
        assert r.code == 0 and "examples:" in r.out and f"emc {cmd}" in r.out
    # an option of a neighbourhood the run leaves out is refused, not ignored
    for flags, words in ((("--neighbourhoods", "TA,TSR", "--window", "3x3"), "--window: the neighbourhoods TA,TSR leave out RO"),
                         (("--neighbourhoods", "BO,RO", "--no-sideways"), "--no-sideways: the neighbourhoods BO,RO leave out TA"),
                         (("--neighbourhoods", "TA", "--bo-time-limit", "5"), "--bo-time-limit: the neighbourhoods TA leave out BO"),
                         (("--neighbourhoods", "TSR", "--clique-steps", "0"), "--clique-steps: the neighbourhoods TSR leave out RO")):
        r = cli("matheuristic", pfile, *flags, "-t", "1")
        assert r.code == 2 and words in r.err and len(r.err.strip().splitlines()) == 1, (flags, r)
    whole = tmp_path / "whole.json"
    emc.write_board(random_board(p, 2), p, whole)
    r = cli("improve", pfile, whole, "--neighbourhoods", "TSR", "--ta-n", "5")
    assert r.code == 2 and "--ta-n: the neighbourhoods TSR leave out TA" in r.err, r


def test_ctrl_c_stops_cleanly_and_saves_the_best_board(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    p, pfile = write_puzzle_file(tmp_path, 10, 10, 3, 6, seed=46)
    out, res = tmp_path / "b.json", tmp_path / "r.json"
    proc = subprocess.Popen([sys.executable, "-u", "-m", "emc", "matheuristic", str(pfile), "-t", "120",
                             "--start", "random", "--neighbourhoods", "TA,BW,TSR", "--patience", "0",
                             "--progress-every", "0.01", "-o", str(out), "--result", str(res)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:  # progress lines (stderr, as solve's) until one has a score: the search is under way
        if "best " in line:
            break
    else:
        raise AssertionError("no progress line with a score")
    os.kill(proc.pid, signal.SIGINT)
    out_text, err = proc.communicate(timeout=60)
    assert "improvements" not in out_text  # stdout keeps the result
    assert proc.returncode == 130, err
    doc = read_result(res)
    assert doc["final"]["stopped_by"] == "interrupt"
    assert verify(p, emc.read_board(out, p)).valid


def test_ctrl_c_in_a_construction_says_why_the_rule_filled_its_regions(tmp_path):
    """The regions a Ctrl-C left to the fast rule were said to lack "a solver answer in time, or
    a worse one"; the line now says the run was interrupted."""
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-u", "-m", "emc", "construct", "eternity2", "--region", "2xW",
                             "--progress-every", "0.01"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()  # a progress line: the construction is under way (it takes minutes)
    assert "building 2xW greedy" in line, line + proc.stderr.read()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert re.search(r"regions filled by the fast greedy rule \(the run was interrupted\); interrupted", out), out


@pytest.mark.parametrize("save_every", [0.2, 0])
def test_a_run_killed_outright_keeps_the_board_it_saved(tmp_path, save_every):
    # SIGKILL cannot be caught: only the boards --save-every wrote while the run went on survive
    import signal
    import subprocess
    import sys

    from helpers import eventually

    p, pfile = write_puzzle_file(tmp_path, 10, 10, 3, 6, seed=46)
    out = tmp_path / "b.json"
    proc = subprocess.Popen([sys.executable, "-u", "-m", "emc", "matheuristic", str(pfile), "-t", "300",
                             "--start", "random", "--neighbourhoods", "TA,BW,TSR", "--patience", "0",
                             "--progress-every", "0.01", "--save-every", str(save_every), "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "best" in proc.stderr.readline()  # the search is under way
        if save_every:
            assert eventually(out.exists, timeout=120)
            first = json.loads(out.read_text())
            # later saves replace the file whole (atomically): it always reads as a complete board
            assert eventually(lambda: json.loads(out.read_text())["score"] > first["score"], timeout=120)
        else:
            for _ in range(20):  # improvements go by, and nothing is written before the end
                proc.stderr.readline()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    if not save_every:
        assert not out.exists()
        return
    doc = json.loads(out.read_text())
    board = emc.read_board(out, p)
    assert verify(p, board).valid and score(p, board) == doc["score"] > first["score"]
    assert doc["solver"]["saved_during_run"] is True and doc["solver"]["method"] == "matheuristic"


def test_a_save_that_fails_during_the_run_warns_once_and_the_run_goes_on(tmp_path, capfd):
    import argparse
    import shutil

    from emc.commands.heuristics import _Saver
    from emc.heuristics.decomposition.neighbourhoods import Event

    p = emc.load("set2-4x4")
    folder = tmp_path / "out"
    folder.mkdir()
    args = argparse.Namespace(output=str(folder / "b.json"), save_every=0.0001, start="greedy", backend="highs",
                              seed=0)
    from emc.heuristics.decomposition.run import RunConfig

    saver = _Saver(p, args, RunConfig(start="greedy", backend="highs"), "matheuristic")
    b = random_board(p, 1)
    saver.event(Event(0.1, score(p, b), "TSR", b))
    assert emc.read_board(folder / "b.json", p) == b  # written
    shutil.rmtree(folder)  # the folder becomes a file under the run (a full disk fails the same way)
    folder.write_text("not a folder")
    for t in (0.2, 0.3):
        time.sleep(0.001)
        saver.event(Event(t, score(p, b), "TSR", b))  # no exception reaches the run
    err = capfd.readouterr().err
    assert err.count("warning: could not save the best board") == 1 and "the run goes on" in err, err


@pytest.mark.parametrize("nested", [False, True])
def test_ctrl_c_swallowed_by_a_solver_still_stops_the_heuristic(nested):
    """Nested: improve's guard sits inside matheuristic's; leaving the inner guard must not
    forget a Ctrl-C a backend swallowed inside it (the outer run would go on): only the
    outermost guard clears the flag."""
    import contextlib
    import signal

    from emc import runtime as control

    with control.sigint_guard():
        with control.sigint_guard() if nested else contextlib.nullcontext():
            try:  # what a backend that stops its search on Ctrl-C does
                signal.raise_signal(signal.SIGINT)
            except KeyboardInterrupt:
                pass
        assert control.raised()
        with pytest.raises(KeyboardInterrupt):
            control.check()
    assert not control.raised()
    control.check()  # outside the guard the flag is cleared


def test_held_interrupts_note_a_ctrl_c_without_raising_it():
    import signal

    from emc import runtime as control

    with control.held_interrupts() as held:
        signal.raise_signal(signal.SIGINT)
    assert held.seen and not control.raised()  # outside a guard no flag is left behind
    with control.sigint_guard():
        with control.held_interrupts() as held:
            signal.raise_signal(signal.SIGINT)
        assert held.seen and control.raised()
        with pytest.raises(KeyboardInterrupt):  # the guard's own handler is back
            signal.raise_signal(signal.SIGINT)

def test_a_perfect_board_ends_the_run():
    """Once every edge matches nothing can improve: the local search stops there instead of
    cycling to its time limit, and a perfect start board is returned at once."""
    from emc.heuristics.decomposition.run import RunConfig, matheuristic

    puzzle = emc.load("set2-5x5")
    res = matheuristic(puzzle, RunConfig(time_limit=600, seed=1))
    assert res.score == puzzle.max_score and verify(puzzle, res.board).solved
    assert res.stopped_by == "solved"
    assert res.local_search is None or res.local_search.stopped_by == "solved"
    again = matheuristic(puzzle, RunConfig(time_limit=600, seed=2), start_board=res.board)
    assert again.stopped_by == "solved" and again.local_search is None and again.board == res.board
    ls = improve(puzzle, res.board, backend=None, seed=0)
    assert ls.stopped_by == "solved" and ls.cycles == 0 and ls.score == puzzle.max_score and not ls.events


def test_progress_line_shows_no_score_before_the_first_one():
    """improve's status line said "partial 0" for a complete starting board before the first
    report; it now says there is no score yet until one is known, and the matched edges so far
    while a construction runs."""
    from types import SimpleNamespace

    from emc.commands.heuristics import Progress

    pr = Progress(emc.load("set2-4x4"), SimpleNamespace(quiet=True, progress_every=0))
    assert pr._best_text() == "no score yet"
    pr.tick("construct:greedy region 1", 3, 0.1)
    assert pr._best_text() == "3 edges matched so far"
    pr.tick("TA", 20, 0.2)
    assert pr._best_text() == "best 20/24"


def test_progress_lines_say_what_the_run_does_in_words():
    """`construct:greedy region 3` and `RO` were the progress lines' words for what a run was
    doing; they say it in words now (the records keep the short names), with how far the
    construction has got: the ticks of a real run name each region of the total in turn."""
    from types import SimpleNamespace

    from emc.commands.heuristics import Progress
    from emc.heuristics.decomposition.run import RunConfig, matheuristic, phase_words

    p = emc.load("set2-4x4")
    pr = Progress(p, SimpleNamespace(quiet=True, progress_every=0, start="greedy", region="1xW"))
    assert "".join(pr._status()) == "building 1xW greedy (0 edges matched so far)"
    pr.tick("construct:greedy region 3/4", 11, 0.1)
    assert "".join(pr._status()) == "building 1xW greedy: 3 of 4 regions placed (11 edges matched so far)"
    pr.event(SimpleNamespace(score=20, neighbourhood="construct:greedy"))
    assert "".join(pr._status()) == "built 1xW greedy: best 20/24"
    pr.event(SimpleNamespace(score=22, neighbourhood="RO"))
    pr.event(SimpleNamespace(score=23, neighbourhood="TA"))
    assert "".join(pr._status()) == "local search, TA (reinserting non-adjacent pieces): best 23/24 after 2 improvements"
    improve_pr = Progress(p, SimpleNamespace(quiet=True, progress_every=0))
    assert "".join(improve_pr._status()) == "the starting board (no score yet)"
    random_pr = Progress(p, SimpleNamespace(quiet=True, progress_every=0, start="random", region=None))
    assert "".join(random_pr._status()) == "a random start board (no score yet)"
    for name, words in (("BO", "re-solving the frame"), ("BW", "reinserting a checkerboard colour"),
                        ("TSR", "swapping and turning pieces"), ("RO", "re-solving windows")):
        assert phase_words(name, None) == f"local search, {name} ({words})"
    assert phase_words("construct:random", None) == "a random start board"
    phases = []
    matheuristic(p, RunConfig(backend="highs", region="2xW", local_search=None),
                 on_tick=lambda phase, score, t: phases.append(phase))
    assert [x for x in phases if "region" in x] == ["construct:greedy region 1/2", "construct:greedy region 2/2"]


def test_the_package_exports_are_the_functions_whatever_was_imported_first():
    """``from emc.heuristics import construct`` gave the submodule of the same name once it
    had been imported (the package's attribute), so ``construct(...)`` was not callable."""
    import importlib

    import emc.heuristics as H

    for mod in ("decomposition", "decomposition.construction", "decomposition.local_search",
                "decomposition.neighbourhoods", "decomposition.run", "core", "core.method"):
        importlib.import_module(f"emc.heuristics.{mod}")
    from emc.heuristics import construct, greedy, improve, matheuristic

    assert all(callable(f) and not isinstance(f, type(H)) for f in (construct, greedy, improve, matheuristic))
    assert [getattr(H, n).__name__ for n in ("construct", "improve")] == ["construct", "improve"]


def test_the_python_heuristics_refuse_what_the_commands_refuse_and_pick_the_same_backend(cli, tmp_path_factory):
    """improve(patience=0) without a time limit never returned; oversized or one-cell windows
    and a construction longer than the run were taken silently; and the functions solved their
    regions with cpsat where the commands pick the first installed of highs, cbc, cpsat."""
    import emc
    from emc.errors import InputError
    from emc.heuristics import LocalSearchParams, RunConfig, greedy, improve, matheuristic
    from emc.backends import backend_class
    from emc.backends import pick_backend, ranked

    p = emc.load("set2-5x5")
    auto = pick_backend("auto")
    assert auto == next(b for b in ranked("heuristic") if backend_class(b).available())
    built = greedy(p, time_limit=30)
    assert built.records and {r.backend for r in built.records} == {auto}
    board = built.board
    for params, kw, words in ((LocalSearchParams(patience=0), {}, "patience 0 runs until the time limit"),
                              (LocalSearchParams(ro_width=1, ro_height=1), {"time_limit": 5}, "at least 2 cells"),
                              (LocalSearchParams(ro_width=9, ro_height=3), {"time_limit": 5}, "larger than the 5x5"),
                              (LocalSearchParams(ta_k=1), {"time_limit": 5}, "ta_k is a whole number of at least 2, not 1")):
        with pytest.raises(InputError, match=words):
            improve(p, board, params, **kw)
    res = improve(p, board, LocalSearchParams(neighbourhoods=("TA", "RO"), ta_n=10, ro_n=1), time_limit=5)
    assert res.score >= built.score  # the default 6x6 window is cut down to the 5x5 board
    with pytest.raises(InputError, match="construct_time_limit 9 is longer than time_limit 5"):
        matheuristic(p, RunConfig(time_limit=5, construct_time_limit=9))
    assert matheuristic(p, RunConfig(time_limit=5)).config.backend == auto
    res = tmp_path_factory.mktemp("auto") / "r.json"  # the command line takes the name too (it was unknown there)
    assert cli("construct", "set2-5x5", "-b", "auto", "-q", "--result", res).code == 0
    assert read_result(res)["parameters"]["backend"] == auto


@pytest.mark.slow
def test_ta_draws_no_more_cells_than_the_board_has_and_lists_are_checked(cli, tmp_path):
    """--ta-k past the board's cells lifts what there is (it drew K random numbers per move: a
    traceback for 10^20, gigabytes for 10^9); a neighbourhood listed twice, or none, is refused."""
    p = emc.load("set2-5x5")
    board = greedy(p, time_limit=30).board
    res = improve(p, board, LocalSearchParams(neighbourhoods=("TA",), ta_k=10**9, ta_n=20), time_limit=5)
    assert emc.verify(p, res.board).valid and res.score >= score(p, board)
    start = tmp_path / "b.json"
    emc.write_board(board, p, start)
    r = cli("improve", "set2-5x5", start, "--neighbourhoods", "TA", "--ta-k", "99999999999999999999", "--ta-n", "5",
            "-t", "5", "-q")
    assert r.code == 0 and "Traceback" not in r.err, r
    r = cli("improve", "set2-5x5", start, "--neighbourhoods", "TA,BW,TA", "-t", "5")
    assert r.code == 2 and "neighbourhood TA is listed twice" in r.err and r.out == "", r
    for names, words in ((("TA", "TA"), "neighbourhood TA is listed twice"), ((), "no neighbourhood given")):
        with pytest.raises(emc.InputError, match=words):
            improve(p, board, LocalSearchParams(neighbourhoods=names), time_limit=5)


def test_a_result_files_own_version_is_checked(cli, tmp_path):
    """A result file read as a board: its own format version is checked as a board's is (any
    version was taken), one without a board says so, and one given as a puzzle says what it is."""
    res = tmp_path / "r.json"
    assert cli("construct", "set2-5x5", "-q", "--result", res).code == 0
    doc = json.loads(res.read_text())
    for version, words in (("x", 'format version "x": a version is a whole number from 1'),
                           (2, "format version 2 is not one this emc reads (1..1)")):
        bad = tmp_path / f"v{version}.json"
        bad.write_text(json.dumps({**doc, "version": version}, indent=1))
        for args in (("verify", "set2-5x5", bad), ("improve", "set2-5x5", bad, "-t", "1")):
            r = cli(*args)
            assert r.code == 2 and f"{bad}:3: {words}" in r.err and r.out == "", (args, r)
    none = tmp_path / "none.json"
    none.write_text(json.dumps({k: v for k, v in doc.items() if k != "board"}, indent=1))
    r = cli("verify", "set2-5x5", none)
    assert r.code == 2 and "this result file holds no board" in r.err, r
    r = cli("info", res)
    assert r.code == 2 and "this is a heuristic's result file (emc JSON, with its board), not a puzzle" in r.err, r


@pytest.mark.slow
def test_a_result_file_is_read_as_its_final_board(cli, tmp_path):
    """A --result file holds the run's final board: emc improve (and every board reader) takes
    it as that board, so a run can be chained from its result alone."""
    import emc

    res, out = tmp_path / "r.json", tmp_path / "b.json"
    assert cli("construct", "set2-6x6", "--start", "random", "--seed", 4, "--result", res, "-o", out, "-q").code == 0
    p = emc.load("set2-6x6")
    a, b = emc.read_board(res, p), emc.read_board(out, p)
    assert a.piece.tolist() == b.piece.tolist() and a.rotation.tolist() == b.rotation.tolist()
    r = cli("improve", "set2-6x6", res, "--neighbourhoods", "TSR", "-q", "-o", tmp_path / "c.json")
    assert r.code == 0 and "local search" in r.out, r
    # the board's note names a backend only where one was called: not for a random start
    assert json.loads(out.read_text())["solver"] == {"method": "construct", "start": "random", "seed": 4}
    assert cli("construct", "set2-6x6", "--seed", 4, "--backend", "cpsat", "-o", out, "-q").code == 0
    assert json.loads(out.read_text())["solver"]["backend"] == "cpsat"
    # nor for neighbourhoods that solve no sub-problem (only BO and RO call the backend)
    c = tmp_path / "c.json"
    assert "backend" not in json.loads(c.read_text())["solver"]
    assert cli("improve", "set2-6x6", res, "--neighbourhoods", "TSR,RO", "-t", "2", "-b", "cpsat", "-q",
               "-o", c).code == 0
    assert json.loads(c.read_text())["solver"]["backend"] == "cpsat"
    assert cli("matheuristic", "set2-6x6", "--start", "random", "--neighbourhoods", "TA,TSR", "-t", "1", "-q",
               "-o", c).code == 0
    assert json.loads(c.read_text())["solver"] == {"method": "matheuristic", "start": "random", "seed": 0}


def test_plain_progress_lines_keep_coming_while_nothing_reports(capsys):
    """A frame solve may hold the run for its whole time limit without an event: piped to a
    log, the progress went silent for that long. A clock now prints a line whenever none came
    for --progress-every seconds (here 0.05 s over a 0.5 s wait with no event)."""
    import time as _time
    from types import SimpleNamespace

    from emc.commands.heuristics import Progress

    seen = ""
    with Progress(emc.load("set2-4x4"), SimpleNamespace(quiet=False, progress_every=0.05)) as pr:
        pr.tick("BO", 20, 0.0)
        for _ in range(600):  # until three clock lines came, however slow the machine (at most 60 s)
            seen += capsys.readouterr().err
            if seen.count("BO (re-solving the frame): best 20/24") >= 3:
                break
            _time.sleep(0.1)
    seen += capsys.readouterr().err
    lines = [ln for ln in seen.splitlines() if "BO (re-solving the frame): best 20/24" in ln]
    assert len(lines) >= 3, lines


def test_a_greedy_cut_short_lists_every_region_and_who_filled_it():
    """The regions the compiled rule fills after the time limit were missing from the records
    (a result file listed 2 regions of 16); each region is now listed once, the rule's ones as
    such, and none of them counts as a backend call."""
    from emc.heuristics import greedy
    from emc.heuristics.decomposition.run import RunConfig, matheuristic, result_document

    p = emc.load("meta-12x12")
    res = greedy(p, backend="highs", region="1xW", time_limit=0.01)  # far less than 12 region solves take
    assert [r.index for r in res.records] == list(range(12))
    rule = [r for r in res.records if r.filled_by == "fallback" and r.backend == "-"]
    assert rule and all(r.status == "time-limit" for r in rule)
    run = matheuristic(p, RunConfig(backend="highs", time_limit=0.01, local_search=None))
    doc = result_document(run, "construct")
    assert len(doc["construction"]["regions"]) == 12
    assert all(c["backend"] != "-" for c in doc["backend_calls"])


def test_runs_that_build_no_regions_record_none_and_refuse_region_options(cli, tmp_path):
    """A random start ignored --region and friends yet its result file recorded them as used;
    improve recorded the default region although it builds none; the patience a run used
    (3 without a time limit, 0 with one) was recorded as null."""
    p, pfile = write_puzzle_file(tmp_path, seed=45)
    for cmd in ("construct", "matheuristic"):
        for flags in (("--region", "2xW"), ("--order", "snake"), ("--region-time-limit", "5"),
                      ("--construct-time-limit", "1")):
            r = cli(cmd, pfile, "--start", "random", *flags, "-t", "5", "-o", tmp_path / "x.json")
            assert r.code == 2 and f"{flags[0]}: a random start builds no regions" in r.err, (cmd, flags, r)
    # construct with a random start calls no backend: its options would never be checked
    r = cli("construct", pfile, "--start", "random", "-O", "foo=1", "-o", tmp_path / "x.json")
    assert r.code == 2 and "--option: a random start calls no backend" in r.err, r
    assert not (tmp_path / "x.json").exists()
    # so does a matheuristic from a random start whose neighbourhoods call none (BO and RO do): it
    # recorded the option as used; and the backend it never calls is not asked to optimise
    r = cli("matheuristic", pfile, "--start", "random", "--neighbourhoods", "TA,BW,TSR", "-O", "foo=1",
            "-t", "1", "-o", tmp_path / "x.json")
    assert r.code == 2 and "--option: a random start and the neighbourhoods TA,BW,TSR call no backend" in r.err
    assert not (tmp_path / "x.json").exists()
    assert cli("matheuristic", pfile, "--start", "random", "--neighbourhoods", "TA,TSR", "-b", "backtrack", "-t", "1",
               "-q").code == 0
    r = cli("matheuristic", pfile, "--start", "random", "--neighbourhoods", "TA,RO", "-O", "foo=1", "-t", "1")
    assert r.code == 2 and "foo" in r.err and "call no backend" not in r.err, r  # RO calls it: the backend refuses foo
    res, board = tmp_path / "r.json", tmp_path / "b.json"
    assert cli("construct", pfile, "--start", "random", "-o", board, "--result", res).code == 0
    assert read_result(res)["parameters"]["region"] is None and read_result(res)["parameters"]["order"] is None
    assert cli("improve", pfile, board, "--neighbourhoods", "TSR", "--result", res).code == 0
    doc = read_result(res)
    assert doc["parameters"]["region"] is None and doc["parameters"]["order"] is None
    assert doc["parameters"]["local_search"]["patience"] is None and doc["local_search"]["patience"] == 3
    assert cli("construct", pfile, "-o", board, "--result", res).code == 0  # defaults filled in and recorded
    assert read_result(res)["parameters"]["region"] == "1xW" and read_result(res)["parameters"]["order"] == "row-major"


@pytest.mark.slow
def test_a_construction_followed_by_a_local_search_leaves_it_half_the_time(cli, tmp_path):
    """A greedy construction used to be given all of --time-limit in emc matheuristic (on
    Eternity II with CP-SAT it could use it all, leaving the local search nothing), and emc
    construct halved a backtracking run's greedy finish for a local search that never came."""
    from emc.heuristics.decomposition.run import RunConfig, matheuristic

    p = emc.load("set2-5x5")
    res = matheuristic(p, RunConfig(start="greedy", backend="cpsat", time_limit=30, threads=1,
                                    local_search=LocalSearchParams(patience=1)))
    assert res.construction.time_limit == 15
    out = tmp_path / "c.json"
    r = cli("construct", "set2-5x5", "--start", "greedy", "-b", "cpsat", "-t", "30", "--result", out)
    assert r.code == 0 and json.loads(out.read_text())["construction"]["time_limit"] == 30, r
    r = cli("construct", "set2-5x5", "--start", "backtracking", "-b", "cpsat", "-t", "30", "--construct-time-limit", "1",
            "--result", out)
    built = json.loads(out.read_text())["construction"]
    assert r.code == 0 and built["time_limit"] == 1 and 20 < built["finish_time_limit"] <= 29, r  # all of what is left
    r = cli("matheuristic", "set2-5x5", "--start", "backtracking", "-b", "cpsat", "-t", "30", "--construct-time-limit",
            "1", "--patience", "1", "--result", out)
    built = json.loads(out.read_text())["construction"]
    assert r.code == 0 and built["time_limit"] == 1 and 0 < built["finish_time_limit"] <= 14.5, r  # half


def test_progress_before_the_first_region_says_the_construction_is_under_way():
    """A first region can take long (2xW on Eternity II): the periodic line said "best -  start"
    then, as if nothing had begun; it names the construction and its partial score now."""
    import argparse

    from emc.commands.heuristics import Progress

    p = emc.load("set2-4x4")
    for start, words in (("greedy", "0 edges matched so far"), ("backtracking", "0 edges matched so far"),
                         ("random", "no score yet"), (None, "no score yet")):
        prog = Progress(p, argparse.Namespace(quiet=True, progress_every=5.0, start=start))
        assert prog._best_text() == words
        assert prog.phase == (f"construct:{start}" if start else "start")


def test_regions_the_rule_fills_are_listed_with_their_scores_after_ctrl_c_too():
    """Ctrl-C in a construction left the rule's regions out of the result (the time limit listed
    them), and the rule's regions said max_score 0; each now has its own score and maximum."""
    from emc.heuristics import greedy

    p = emc.load("meta-10x10")

    def stop_after_second(rec, board):
        if rec.index == 1:
            raise KeyboardInterrupt

    res = greedy(p, backend="highs", region="1xW", on_region=stop_after_second)
    assert res.interrupted and emc.verify(p, res.board).valid
    assert [r.index for r in res.records] == list(range(10))
    rule = res.records[2:]
    assert all(r.filled_by == "fallback" and r.status == "interrupted" and r.backend == "-" for r in rule)
    # a row region counts its inner edges and those to the row above: 9 + 10, less what the frame rules out
    assert all(0 <= r.objective <= r.max_score and r.max_score == 19 for r in rule)
    timed = greedy(p, backend="highs", region="1xW", time_limit=0.01)
    assert all(r.max_score == 19 and r.objective is not None for r in timed.records if r.filled_by == "fallback"
               and r.index > 0)


@pytest.mark.parametrize("w, h, ww, wh", [(7, 5, 3, 3), (6, 6, 6, 2), (8, 4, 2, 4), (5, 5, 5, 5)])
def test_ro_windows_reach_every_cell(w, h, ww, wh):
    """RO's windows are drawn anywhere on the board: over many draws every movable cell lies in
    one, the bottom row and the right column included, and each window has the size asked for
    (cut to the board)."""

    puzzle, board = small_case(w, h, 3)
    state = make_state(puzzle, board, seed=5)
    ro = RegionOptimisation(width=ww, height=wh)
    seen = np.zeros(puzzle.n_cells, dtype=bool)
    for _ in range(400):
        cells = ro.window(state)
        assert len(cells) == min(ww, w) * min(wh, h)
        rows, cols = np.divmod(cells, w)
        assert rows.max() - rows.min() == min(wh, h) - 1 and cols.max() - cols.min() == min(ww, w) - 1
        seen[cells] = True
    assert seen.all()


def test_the_default_ro_window_is_cut_to_each_side_of_a_small_board():
    from types import SimpleNamespace

    from emc.commands.heuristics import _check_window

    for (w, h), want in (((8, 4), (4, 6)), ((4, 8), (6, 4)), ((10, 10), (6, 6))):  # (rows, columns)
        args = SimpleNamespace(window=None)
        _check_window(args, emc.generate(w, h, 2, 3, seed=1)[0])
        assert args.window == want and args.window_given is False


def test_a_window_is_rows_by_columns_like_a_region(cli, tmp_path):
    """--window reads ROWSxCOLS, as --region and cell labels do (it read columns by rows): a 2x3
    window re-solves 2 rows of 3 columns, the result records it so, and on a board 2 rows high
    a window of 3 rows is refused; optimise's ro_window reads it the same way."""
    from emc.cli import build_parser
    from emc.commands.heuristics import _check_window, _ls_params
    from emc.heuristics.decomposition.method import Matheuristic

    puzzle, board = small_case(7, 2, 3)  # 7 columns, 2 rows
    args = build_parser().parse_args(["improve", "p", "b", "--window", "2x3", "--neighbourhoods", "RO"])
    _check_window(args, puzzle)
    ro = next(h for h in _ls_params(args).build() if isinstance(h, RegionOptimisation))
    state = make_state(puzzle, board, seed=2)
    for _ in range(50):
        rows, cols = np.divmod(ro.window(state), puzzle.width)
        assert (rows.max() - rows.min() + 1, cols.max() - cols.min() + 1, len(rows)) == (2, 3, 6)
    pfile, bfile, res = tmp_path / "p.json", tmp_path / "b.json", tmp_path / "r.json"
    emc.write_puzzle(puzzle, pfile)
    emc.write_board(board, puzzle, bfile)
    common = ("--neighbourhoods", "RO", "--ro-n", 2, "--ro-method", "direct", "-b", "highs", "--patience", 1, "-q")
    r = cli("improve", pfile, bfile, "--window", "2x3", "--result", res, *common)
    assert r.code == 0, r
    ls = read_result(res)["parameters"]["local_search"]
    assert (ls["ro_height"], ls["ro_width"]) == (2, 3)
    r = cli("improve", pfile, bfile, "--window", "3x2", *common)
    assert r.code == 2 and "--window 3x2 (3 rows by 2 columns) is larger than the 7x2 board (2 rows by 7 columns" in r.err
    config = Matheuristic()._config(puzzle, 5, 0, Matheuristic.resolve({"ro_window": "2x3", "backend": "highs"}), True)
    assert (config.local_search.ro_height, config.local_search.ro_width) == (2, 3)


# ------------------------------------------------------------------ mutation-audit additions
def _solved_case(w, h, seed, frame=3, inner=5):
    """A generated puzzle and its planted (perfect) board."""
    puzzle, planted = emc.generate(w, h, frame, inner, seed=seed)
    assert score(puzzle, planted) == puzzle.max_score
    return puzzle, planted


def test_event_boards_are_copies_the_search_leaves_alone():
    """Each event's board is the board at that improvement (a copy): later moves must not change
    it, so every event board still scores what its event says, and the caller's start board is
    not touched (the search works on a copy)."""
    puzzle, board = small_case(7, 6, 11)
    before = board.copy()
    seen = []
    res = improve(puzzle, board, LocalSearchParams(neighbourhoods=("TA", "BW", "TSR"), ta_k=6, ta_n=60),
                  backend=None, seed=2, on_event=seen.append)
    assert len(seen) >= 2 and board == before
    for ev in seen:
        assert ev.board is not None and score(puzzle, ev.board) == ev.score and verify(puzzle, ev.board).valid
    assert seen[-1].board == res.board and res.score == seen[-1].score > score(puzzle, before)


def test_ta_also_lifts_frame_pieces():
    """TA works on the frame too (frame and inner apart): a board whose only faults are two
    traded edge pieces is put right by TA alone."""
    puzzle, planted = _solved_case(6, 6, 3)
    ctx = Context(puzzle)
    edges = ctx.groups[PieceClass.EDGE]
    a, b = int(edges[0]), int(edges[-1])  # far apart on the ring
    assert b not in puzzle.neighbours[a]
    board = planted.copy()
    pa, pb = int(planted.piece[a]), int(planted.piece[b])
    board.place(a, pb, fitting_rotations(puzzle, pb, a)[0])
    board.place(b, pa, fitting_rotations(puzzle, pa, b)[0])
    assert verify(puzzle, board).valid and score(puzzle, board) < puzzle.max_score
    state = make_state(puzzle, board, 1)
    TileAssignment(k=16, n=100, accept_equal=False).run(state, float("inf"))
    assert state.score == score(puzzle, state.board) == puzzle.max_score


def test_ta_draws_parts_and_cells_by_their_unmatched_edges():
    """TA picks the frame or the interior with probability proportional to the parts' total
    weight (1 + unmatched sides per cell), and the first cell of a draw in proportion to its
    own weight: a perfect frame around a scrambled interior is drawn about weight share of the
    time, and a cell with four unmatched sides five times as often as a perfect one."""
    puzzle, planted = _solved_case(7, 7, 4)
    ctx = Context(puzzle)
    # the interior scrambled (every inner piece turned twice), the frame perfect
    board = planted.copy()
    for c in ctx.inner_cells:
        board.rotation[c] = (board.rotation[c] + 2) % 4
    state = make_state(puzzle, board, 7)
    um = ctx.unmatched(state.board)
    w_in, w_fr = float((1 + um[ctx.inner_cells]).sum()), float((1 + um[ctx.frame_cells]).sum())
    ta = TileAssignment(k=2, n=1)
    inner = set(ctx.inner_cells.tolist())
    n = 2000
    got = sum(int(ta.select(state)[0]) in inner for _ in range(n)) / n
    assert abs(got - w_in / (w_in + w_fr)) < 0.05, (got, w_in, w_fr)
    # one inner piece turned a quarter in a perfect board: 4 unmatched sides, its neighbours 1 each
    for x in ctx.inner_cells:
        board = planted.copy()
        board.rotation[x] = (board.rotation[x] + 1) % 4
        um = ctx.unmatched(board)
        if um[x] == 4:
            break
    assert um[x] == 4
    state = make_state(puzzle, board, 8)
    firsts = [int(ta.select(state)[0]) for _ in range(n)]
    in_draws = [c for c in firsts if c in inner]
    share = in_draws.count(x) / len(in_draws)
    want = 5 / float((1 + um[ctx.inner_cells]).sum())
    assert abs(share - want) < 0.05, (share, want)


def test_local_search_cycles_stop_after_patience_idle_cycles():
    """With patience P the search stops after exactly P consecutive cycles without gain, and
    counts its cycles: the best score before each cycle (seen by on_tick) rises every cycle
    until the last P, which gain nothing."""
    puzzle, board = small_case(7, 7, 5)
    for patience in (1, 2):
        before = []
        res = improve(puzzle, board, LocalSearchParams(neighbourhoods=("TA",), ta_k=4, ta_n=15, patience=patience),
                      backend=None, seed=4, on_tick=lambda state, name: before.append(state.best_score))
        after = before[1:] + [res.score]
        assert res.cycles == len(before) and res.stopped_by == "local-optimum"
        assert all(b == a for b, a in zip(before[-patience:], after[-patience:]))
        assert all(b < a for b, a in zip(before[:-patience], after[:-patience]))
        assert len(before) > patience  # the first cycle of a random board gains


def test_local_search_stats_account_for_every_gain():
    """stats[name]["gain"] is what that neighbourhood added: the sum of its events' steps, and
    all together the final score less the start score."""
    puzzle, board = small_case(7, 6, 12)
    res = improve(puzzle, board, LocalSearchParams(neighbourhoods=("TA", "BW", "TSR"), ta_k=6, ta_n=40),
                  backend=None, seed=1)
    steps = {}
    prev = res.start_score
    for ev in res.events:
        steps[ev.neighbourhood] = steps.get(ev.neighbourhood, 0) + ev.score - prev
        prev = ev.score
    assert sum(st["gain"] for st in res.stats.values()) == res.score - res.start_score > 0
    assert {k: v["gain"] for k, v in res.stats.items() if v["gain"]} == steps
    assert all(v["calls"] >= res.cycles for v in res.stats.values())


def test_sideways_switches_and_ro_window_reach_the_neighbourhoods():
    """ta_accept_equal, ro_accept_equal and the RO window are the settings of the neighbourhoods
    the search runs; an improve run re-solves windows of ro_height rows by ro_width columns (2
    rows by 6 columns on a 6-wide, 4-high board: 12 free cells)."""

    for ta_eq, ro_eq in ((False, True), (True, False)):
        hoods = LocalSearchParams(ta_accept_equal=ta_eq, ro_accept_equal=ro_eq, ro_width=5, ro_height=2).build()
        ta = next(h for h in hoods if isinstance(h, TileAssignment))
        ro = next(h for h in hoods if isinstance(h, RegionOptimisation))
        assert ta.accept_equal is ta_eq and ro.accept_equal is ro_eq and (ro.width, ro.height) == (5, 2)
    puzzle, board = small_case(6, 4, 9)
    res = improve(puzzle, board, LocalSearchParams(neighbourhoods=("RO",), ro_width=6, ro_height=2, ro_n=2,
                                                   ro_method="direct", ro_time_limit=5, patience=1),
                  backend="highs", seed=1)
    assert res.trace and all(t["free_cells"] == 12 for t in res.trace)


def test_ro_without_sideways_leaves_a_board_it_cannot_improve_alone():
    """RO adopts a window answer that only ties with the current one only when asked to
    (ro_sideways): without it a call that gains nothing leaves the board exactly as it was;
    with it, ties do change the board (so the two settings differ)."""

    puzzle, planted = _solved_case(5, 5, 6, frame=2, inner=2)  # few colours: many tied windows
    moved = {False: 0, True: 0}
    for accept in (False, True):
        for seed in range(4):
            board = random_board(puzzle, seed)
            state = make_state(puzzle, board, seed, backend="highs")
            ro = RegionOptimisation(width=3, height=3, n=1, accept_equal=accept, clique_options={"max_steps": 20_000})
            for _ in range(4):
                old, old_score = state.board.copy(), state.score
                gain = ro.run(state, float("inf"))
                assert state.score == old_score + gain == score(puzzle, state.board)
                if gain == 0 and state.board != old:
                    moved[accept] += 1
    assert moved[False] == 0 and moved[True] > 0, moved


def test_bo_reoptimises_the_frame_only_and_finds_its_optimum():
    """BO frees the frame ring with every inner piece fixed: inner cells keep their pieces and
    the frame scores the best over every arrangement of the frame pieces (brute force)."""
    from emc.heuristics.decomposition.neighbourhoods import BorderOptimisation

    for seed in range(4):
        puzzle, _ = emc.generate(3, 3, 3, 4, seed=60 + seed)
        board = random_board(puzzle, seed)
        state = make_state(puzzle, board, seed, backend="highs")
        BorderOptimisation(time_limit=None).run(state, float("inf"))
        inner = state.ctx.inner_cells
        assert state.board.piece[inner].tolist() == board.piece[inner].tolist()
        assert state.board.rotation[inner].tolist() == board.rotation[inner].tolist()
        assert state.score == score(puzzle, state.board) and verify(puzzle, state.board).valid
        best = -1
        corners, edges = state.ctx.groups[PieceClass.CORNER], state.ctx.groups[PieceClass.EDGE]
        for pc in itertools.permutations(board.piece[corners].tolist()):
            for pe in itertools.permutations(board.piece[edges].tolist()):
                b = board.copy()
                for c, p in zip(list(corners) + list(edges), pc + pe):
                    b.place(int(c), p, fitting_rotations(puzzle, p, int(c))[0])
                best = max(best, score(puzzle, b))
        assert state.score == best, (seed, state.score, best)


def test_random_board_turns_inner_pieces_at_random():
    puzzle, _ = emc.generate(8, 8, 2, 3, seed=3)
    b = random_board(puzzle, 1)
    inner = np.flatnonzero(puzzle.cell_class == PieceClass.INNER)
    assert verify(puzzle, b).valid
    assert set(b.rotation[inner].tolist()) == {0, 1, 2, 3}


def test_the_seed_drives_the_local_search_and_the_run_passes_it_on():
    """Different seeds give different TA searches, and matheuristic improves with its own seed
    (its board is improve's with that seed)."""
    from emc.heuristics.decomposition.run import RunConfig, matheuristic

    puzzle, board = small_case(7, 7, 13)
    params = LocalSearchParams(neighbourhoods=("TA",), ta_k=4, ta_n=30, patience=1)
    boards = [improve(puzzle, board, params, backend=None, seed=s).board for s in (1, 2, 3)]
    assert len({(tuple(b.piece.tolist()), tuple(b.rotation.tolist())) for b in boards}) > 1
    for s in (1, 2, 3):
        run = matheuristic(puzzle, RunConfig(seed=s, local_search=params), start_board=board)
        assert run.board == boards[s - 1]


def test_no_neighbourhood_moves_a_hint_even_when_trading_it_would_gain():
    """A hint whose piece belongs on the next cell: trading the two would match every edge, yet
    TA, BW, TSR (whose touching-pair moves look at the neighbour cells directly) and RO (whose
    windows cover the hint) leave the hint's piece where it is."""
    from emc.model import Hint

    puzzle, planted = _solved_case(6, 6, 8)
    h, n = puzzle.cell_of(2, 3), puzzle.cell_of(2, 2)  # two touching inner cells, the hint after the other
    hinted = puzzle.with_hints([Hint(h, int(planted.piece[n]), int(planted.rotation[n]))])
    board = planted.copy()
    board.place(h, int(planted.piece[n]), int(planted.rotation[n]))
    board.place(n, int(planted.piece[h]), int(planted.rotation[h]))
    assert verify(hinted, board).valid

    for hood in (SwapRotate(), BlackWhite(), TileAssignment(k=8, n=200),
                 RegionOptimisation(3, 3, n=6, method="direct", time_limit=5),
                 RegionOptimisation(3, 3, n=6, clique_options={"max_steps": 20_000})):
        state = make_state(hinted, board, 3, backend="highs")
        hood.run(state, float("inf"))
        assert state.board.piece[h] == planted.piece[n] and state.board.rotation[h] == planted.rotation[n], hood.name
        assert verify(hinted, state.board).valid and state.score == score(hinted, state.board)


def test_bw_tries_the_second_colour_when_the_first_gains_nothing():
    """BW stops after a whole round (both colours) without gain: two traded pieces of the second
    colour class are put back even though the first class has nothing to gain."""
    puzzle, planted = _solved_case(6, 6, 9)
    a, b = puzzle.cell_of(1, 2), puzzle.cell_of(3, 4)  # inner cells of colour class 1
    ctx = Context(puzzle)
    assert ctx.colour_class[a] == ctx.colour_class[b] == 1
    board = planted.copy()
    board.place(a, int(planted.piece[b]), int(planted.rotation[b]))
    board.place(b, int(planted.piece[a]), int(planted.rotation[a]))
    state = make_state(puzzle, board, 0)
    assert state.score < puzzle.max_score
    BlackWhite().run(state, float("inf"))
    assert state.score == score(puzzle, state.board) == puzzle.max_score


def test_backend_options_reach_the_backend_calls_of_the_local_search():
    """backend_options go with every call of the chosen backend (BO and RO), from improve and
    from matheuristic: an option the backend does not take is refused by it."""
    from emc.errors import InputError
    from emc.heuristics.decomposition.run import RunConfig, matheuristic

    puzzle, board = small_case(5, 5, 14)
    params = LocalSearchParams(neighbourhoods=("BO",), bo_time_limit=5, patience=1)
    with pytest.raises(InputError, match="foo"):
        improve(puzzle, board, params, backend="highs", seed=1, backend_options={"foo": 1})
    with pytest.raises(InputError, match="foo"):
        matheuristic(puzzle, RunConfig(backend="highs", backend_options={"foo": 1}, local_search=params),
                     start_board=board)
    ok = improve(puzzle, board, params, backend="highs", seed=1, backend_options={"variant": "compact"})
    assert ok.trace and verify(puzzle, ok.board).valid


def test_the_result_file_counts_the_local_search_cycles():
    """A run from a given board records that board as the trajectory's start and the cycles its
    local search completed."""
    from emc.heuristics.decomposition.run import RunConfig, matheuristic, result_document

    puzzle, board = small_case(6, 6, 15)
    params = LocalSearchParams(neighbourhoods=("TA", "TSR"), ta_k=4, ta_n=20, patience=1)
    run = matheuristic(puzzle, RunConfig(seed=1, local_search=params), start_board=board)
    doc = result_document(run, "improve")
    assert run.local_search.cycles >= 2 and doc["local_search"]["cycles"] == run.local_search.cycles
    assert doc["local_search"]["start_score"] == score(puzzle, board) and doc["final"]["score"] == score(puzzle, run.board)
    # the trajectory starts with the given board, then every improvement, up to the final score
    traj = doc["trajectory"]
    assert traj[0]["neighbourhood"] == "start" and traj[0]["score"] == score(puzzle, board)
    assert [t["score"] for t in traj[1:]] == [e.score for e in run.local_search.events] and traj[-1]["score"] == run.score


def test_backend_neighbourhoods_report_the_gains_they_make():
    """BO and RO return what they added, so stats and the patience count see it: per
    neighbourhood the gain is the sum of its events' steps, in all the final less the start."""
    puzzle, board = small_case(5, 5, 16)
    params = LocalSearchParams(neighbourhoods=("BO", "RO"), ro_width=3, ro_height=3, ro_n=3, ro_method="direct",
                               bo_time_limit=5, ro_time_limit=5, patience=1)
    res = improve(puzzle, board, params, backend="highs", seed=2)
    steps, prev = {}, res.start_score
    for ev in res.events:
        steps[ev.neighbourhood] = steps.get(ev.neighbourhood, 0) + ev.score - prev
        prev = ev.score
    assert sum(st["gain"] for st in res.stats.values()) == res.score - res.start_score > 0
    assert {k: v["gain"] for k, v in res.stats.items() if v["gain"]} == steps
