"""The guide-and-observe hyper-heuristic (method `gao`): its compiled loop judged move by move,
its runs verified, repeatable and honouring hints, and its options checked."""

from __future__ import annotations

import json

import numpy as np
import pytest

import emc
from emc.heuristics import get_method, optimise
from emc.heuristics.core.pop import make_work
from emc.heuristics.core.starts import random_board
from emc.heuristics.core.state import OBJ1, OBJ4, make_state, make_tables
from emc.heuristics.core.xorshift import make_rng
from emc.heuristics.gao import kernel as K

pytest.importorskip("numba")

FAST = {"iterations": 20_000, "start_nodes": 20_000}


def _loop(puzzle, k, acceptance, seed=3, hints=True, **kw):
    """The compiled loop on a random board of ``puzzle``, ready to be run slice by slice."""
    board = random_board(puzzle, seed)
    movable = np.ones(puzzle.n_cells, dtype=bool)
    if hints:
        movable[[h.cell for h in puzzle.hints]] = False
    T = make_tables(puzzle, movable, objectives=(k,))
    S = make_state(T, board.piece, board.rotation)
    W = make_work(T, 24)
    counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
    counters[K.C_BEST1] = S.obj[OBJ1]
    counters[K.C_BESTK] = S.obj[k]
    counters[K.C_START_COST] = T.obj_max[k] - S.obj[k]
    args = dict(heuristics=np.arange(5, dtype=np.int64), k=k, acceptance=K.ACCEPTANCE[acceptance], ilta_k=5,
                ilta_r=1.4, ilta_equal_resets=False, gd_factor=1.0, sa_t0=1.0, sa_t1=0.05, q_inner=12, q_frame=8,
                zero_weight=0.0, random_rotations=False, patience=0)
    args.update(kw)
    best_p, best_r = S.piece.copy(), S.rotation.copy()
    tried, kept = np.zeros(5, dtype=np.int64), np.zeros(5, dtype=np.int64)

    def step(n, f0=0.0, f1=1.0):
        return K.run(T, S, W, rng, args["heuristics"], args["k"],
                     args["acceptance"], args["ilta_k"], args["ilta_r"], args["ilta_equal_resets"], args["gd_factor"],
                     args["sa_t0"], args["sa_t1"], f0, f1, n, args["q_inner"], args["q_frame"], args["zero_weight"],
                     args["random_rotations"], args["patience"], best_p, best_r, counters, tried, kept)

    rng = make_rng(seed)
    return T, S, step, best_p, best_r, counters, tried, kept


@pytest.mark.parametrize("k", [OBJ1, OBJ4])
def test_improving_or_equal_never_lets_the_guiding_objective_drop(k):
    P = emc.load("meta-10x10")
    T, S, step, best_p, best_r, counters, tried, kept = _loop(P, k, "ie")
    values = [int(S.obj[k])]
    for _ in range(3000):
        step(1)
        values.append(int(S.obj[k]))
    assert all(a <= b for a, b in zip(values, values[1:]))
    assert values[-1] > values[0] and tried.sum() == 3000 == counters[K.C_ITER]
    # the state still agrees with a from-scratch scoring of its board
    board = emc.Board(P.width, P.height, S.piece.astype(np.int64), S.rotation.astype(np.int64))
    assert emc.scores(P, board)["obj1"] == S.obj[OBJ1]


def test_accept_all_keeps_every_candidate_and_ilta_only_after_k_worse():
    P = emc.load("meta-10x10")
    T, S, step, _, _, counters, tried, kept = _loop(P, OBJ1, "aa")
    step(2000)
    # every group of a 10x10 board has two cells or more and every swap fits: each iteration is a candidate
    assert tried.sum() == kept.sum() == counters[K.C_ACCEPTED] == 2000
    # ILTA with a very large k behaves as improving-or-equal: the guiding objective never drops
    T, S, step, *_ = _loop(P, OBJ1, "ilta", ilta_k=10**9)
    seen = [int(S.obj[OBJ1])]
    for _ in range(1500):
        step(1)
        seen.append(int(S.obj[OBJ1]))
    assert all(a <= b for a, b in zip(seen, seen[1:]))
    # with k = 1 and a wide threshold it lets worse candidates through
    T, S, step, *_ = _loop(P, OBJ1, "ilta", ilta_k=1, ilta_r=10.0)
    seen = [int(S.obj[OBJ1])]
    for _ in range(1500):
        step(1)
        seen.append(int(S.obj[OBJ1]))
    assert any(a > b for a, b in zip(seen, seen[1:]))


def test_the_observed_best_board_is_the_best_obj1_seen_and_is_valid():
    P = emc.load("meta-10x10")
    T, S, step, best_p, best_r, counters, *_ = _loop(P, OBJ4, "ilta")
    top = int(S.obj[OBJ1])
    for _ in range(400):
        step(5)
        top = max(top, int(S.obj[OBJ1]))
    assert counters[K.C_BEST1] >= top  # candidates rejected may have been better still
    board = emc.Board(P.width, P.height, best_p.astype(np.int64), best_r.astype(np.int64))
    assert emc.verify(P, board).valid and emc.score(P, board) == counters[K.C_BEST1]


@pytest.mark.parametrize("acceptance", ["ie", "aa", "ilta", "gd", "sa"])
def test_every_acceptance_criterion_runs_and_reports_a_verified_board(acceptance):
    P = emc.load("meta-10x10")
    run = optimise(P, "gao", seed=2, acceptance=acceptance, **FAST)
    assert emc.verify(P, run.board).valid and run.score == emc.score(P, run.board)
    assert run.score >= run.details["start"]["score"] and run.iterations == FAST["iterations"]
    assert sum(p["iterations"] for p in run.details["phases"]) == FAST["iterations"]
    assert [p["objective"] for p in run.details["phases"]] == ["obj4", "obj1"]


def test_the_same_seed_gives_the_same_run_and_another_seed_another():
    P = emc.load("meta-12x12")
    a = optimise(P, "gao", seed=7, **FAST)
    b = optimise(P, "gao", seed=7, **FAST)
    c = optimise(P, "gao", seed=8, **FAST)
    assert a.board == b.board and [t["score"] for t in a.trajectory] == [t["score"] for t in b.trajectory]
    assert a.details["heuristics"] == b.details["heuristics"]
    assert c.board != a.board


def test_hints_are_honoured_unless_ignored_and_the_corner_stays_put():
    P = emc.load("eternity2")
    hint = P.hints[0]
    run = optimise(P, "gao", seed=1, iterations=5_000, start_nodes=5_000)
    assert run.board.piece[hint.cell] == hint.piece and run.board.rotation[hint.cell] == hint.rotation
    assert emc.verify(P, run.board).valid and not run.details["corner_fixed"]
    free = optimise(P, "gao", seed=1, iterations=5_000, start_nodes=5_000, hints="ignore")
    assert free.details["corner_fixed"]  # a square board with no hint honoured: a corner is pinned
    assert emc.verify(P, free.board, check_hints=False).valid
    start = free.trajectory[0]
    assert start["what"] == "start"
    # the pinned corner piece never moved: the start board's top-left piece is still there
    assert free.board.piece[0] == _start_board_top_left(P, 1)


def _start_board_top_left(P, seed):
    from emc.heuristics.core.starts import backtrack_board

    return int(backtrack_board(P, "rows", seconds=60, seed=seed, hints=False, corner="random",
                               max_nodes=5_000).board.piece[0])


def test_one_phase_random_start_and_random_rotations():
    P = emc.load("meta-10x10")
    run = optimise(P, "gao", seed=4, iterations=10_000, phase1_share=1.0, start="random", swap_rotations="random")
    assert [p["objective"] for p in run.details["phases"]] == ["obj4"] and run.details["start"]["kind"] == "random"
    assert emc.verify(P, run.board).valid
    only1 = optimise(P, "gao", seed=4, iterations=10_000, objective="obj1", phase1_share=1.0, start="random")
    assert [p["objective"] for p in only1.details["phases"]] == ["obj1"]


def test_a_start_board_is_improved_and_never_lost():
    P = emc.load("meta-10x10")
    start = random_board(P, 5)
    run = optimise(P, "gao", seed=5, iterations=10_000, start_board=start)
    assert run.details["start"]["kind"] == "given" and run.score >= emc.score(P, start)


def test_the_loop_stops_when_its_patience_runs_out():
    P = emc.load("meta-10x10")
    T, S, step, best_p, best_r, counters, *_ = _loop(P, OBJ4, "ie", patience=300)
    ran = step(10**6)
    assert ran < 10**6 and counters[K.C_SINCE1] == 300 and counters[K.C_ITER] == ran


def test_restarts_run_cycles_from_fresh_starts_and_keep_the_best():
    P = emc.load("meta-10x10")
    run = optimise(P, "gao", seed=6, iterations=60_000, start_nodes=5_000, restart_patience=3_000)
    cycles = run.details["cycles"]
    assert len(cycles) >= 2 and run.score == max(c["best_obj1"] for c in cycles)
    assert sum(p["iterations"] for p in run.details["phases"]) == 60_000
    assert {p["cycle"] for p in run.details["phases"]} == set(range(1, len(cycles) + 1))
    assert len({c["start"] for c in cycles}) > 1  # each cycle starts from a board of its own
    again = optimise(P, "gao", seed=6, iterations=60_000, start_nodes=5_000, restart_patience=3_000)
    assert again.board == run.board and again.details["cycles"] == cycles
    assert emc.verify(P, run.board).valid


def test_bad_options_fail_in_one_line(cli):
    r = cli("optimise", "meta-10x10", "-m", "gao", "-O", "heuristics=swap-inner,pop-middle", "-O", "iterations=10")
    assert r.code == 2 and "unknown low-level heuristic 'pop-middle'" in r.err and "pop-inner" in r.err, r
    r = cli("optimise", "meta-10x10", "-m", "gao")
    assert r.code == 2 and "needs a budget" in r.err, r
    r = cli("optimise", "meta-10x10", "-m", "gao", "-O", "sa_t0=0.1", "-O", "sa_t1=1", "-O", "iterations=10")
    assert r.code == 2 and "cools" in r.err, r
    r = cli("optimise", "meta-10x10", "-m", "gao", "-O", "acceptance=tabu", "-O", "iterations=10")
    assert r.code == 2 and "ie, aa, ilta, gd, sa" in r.err, r


def test_the_command_writes_a_verified_board_and_a_record(cli, tmp_path):
    out, res = tmp_path / "b.json", tmp_path / "r.json"
    r = cli("optimise", "meta-10x10", "-m", "gao", "--seed", "3", "-O", "iterations=20000", "-O", "start_nodes=20000",
            "-o", out, "--result", res)
    assert r.code == 0, r
    P = emc.load("meta-10x10")
    doc = json.loads(res.read_text())
    board = emc.read_board(out, P)
    assert emc.verify(P, board).valid and doc["final"]["score"] == emc.score(P, board)
    assert doc["method"] == "gao" and doc["options"]["acceptance"] == "ilta" and doc["final"]["iterations"] == 20000
    assert get_method("gao").option("ilta_k").default == 500
