"""The two-phase tabu search (method `tabu`): its tabu list and moves judged step by step, its
runs verified, repeatable and honouring hints, and its options checked."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

import emc
from emc.heuristics import optimise
from emc.heuristics.core.starts import random_board
from emc.heuristics.core.state import CORNER, EDGE, INNER, OBJ1, make_state, make_tables
from emc.heuristics.core.xorshift import make_rng
from emc.heuristics.tabu import kernel as K

pytest.importorskip("numba")


def _search(puzzle, seed=1, length=360):
    board = random_board(puzzle, seed)
    T = make_tables(puzzle, objectives=())
    S = make_state(T, board.piece, board.rotation)
    fifo, counts = K.make_tabu(length, puzzle.n_cells, puzzle.n_pieces)
    canon = K.make_canon(np.asarray(T.colours))
    counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
    counters[K.C_ASPIRATION] = counters[K.C_BEST] = S.obj[OBJ1]
    sizes = {g: int(T.group_start[g + 1] - T.group_start[g]) for g in (INNER, EDGE, CORNER)}
    pairs = (comb(sizes[CORNER], 2), comb(sizes[EDGE], 2), comb(sizes[INNER], 2))
    return T, S, make_rng(seed), fifo, counts, canon, counters, pairs


def test_each_iteration_evaluates_the_whole_neighbourhood_and_takes_its_best_move():
    P = emc.load("meta-10x10")
    T, S, rng, fifo, counts, canon, counters, (pc, pe, pi) = _search(P)
    inner = int(T.group_start[INNER + 1] - T.group_start[INNER])
    best_p, best_r = S.piece.copy(), S.rotation.copy()
    cur = int(S.obj[OBJ1])
    before = counters[K.C_EVALS]
    # the best move is at least as good as the best rotation of any inner piece (all evaluated)
    from emc.heuristics.core.state import rotate_delta1

    best_rot = max(rotate_delta1(T, S, int(c), r) for c in T.group_cells[T.group_start[INNER]:T.group_start[INNER + 1]]
                   for r in range(4) if r != S.rotation[c])
    new = K.tabu_steps(T, S, rng, 1, False, 500, pc, pe, pi, canon, fifo, counts, counters, cur, best_p, best_r,
                       P.max_score, False)
    assert counters[K.C_EVALS] - before == 3 * inner + 500
    assert new - cur >= best_rot and new == S.obj[OBJ1]
    board = emc.Board(P.width, P.height, S.piece.astype(np.int64), S.rotation.astype(np.int64))
    assert emc.verify(P, board).valid and emc.score(P, board) == new


def test_a_move_that_puts_back_what_a_cell_lost_is_tabu_unless_it_beats_the_best():
    P = emc.load("meta-10x10")
    T, S, rng, fifo, counts, canon, counters, (pc, pe, pi) = _search(P)
    c = int(T.group_cells[T.group_start[INNER]])
    p, r = int(S.piece[c]), int(S.rotation[c])
    key = K.attribute(canon, P.n_pieces, c, p, r)
    K._add(fifo, counts, counters, key)  # as if a move had taken (p, r) away from c
    assert counts[key] == 1
    # an equal piece (same colours) on that cell counts as the same attribute
    same = [q for q in range(P.n_pieces) if q != p and any((P.colours[q, k] == P.colours[p, r]).all() for k in range(4))]
    for q in same:
        k = next(k for k in range(4) if (P.colours[q, k] == P.colours[p, r]).all())
        assert K.attribute(canon, P.n_pieces, c, q, k) == key
    # the list forgets the oldest attribute once it is full
    fifo2, counts2 = K.make_tabu(3, P.n_cells, P.n_pieces)
    c2 = np.zeros(K.N_COUNTERS, dtype=np.int64)
    for k in (5, 6, 7, 8):
        K._add(fifo2, counts2, c2, k)
    assert counts2[5] == 0 and all(counts2[k] == 1 for k in (6, 7, 8)) and c2[K.C_TABU_N] == 3
    K.clear_tabu(fifo2, counts2, c2)
    assert counts2.sum() == 0 and c2[K.C_TABU_N] == 0


def test_a_swap_as_one_pair_element_forbids_that_swap_alone():
    P = emc.load("meta-10x10")
    T, S, rng, fifo, counts, canon, counters, _ = _search(P, length=4)
    a, b = (int(c) for c in T.group_cells[T.group_start[INNER]:T.group_start[INNER] + 2])
    ka = K.attribute(canon, P.n_pieces, a, int(S.piece[a]), int(S.rotation[a]))
    kb = K.attribute(canon, P.n_pieces, b, int(S.piece[b]), int(S.rotation[b]))
    key = K.pair_attribute(counts, ka, kb)
    assert key == K.pair_attribute(counts, kb, ka) and key >= counts.shape[0]
    K._add(fifo, counts, counters, key)
    # the pair is listed, neither cell alone is
    assert K._listed(fifo, counters, key) and counts.sum() == 0 and counts[ka] == 0 and counts[kb] == 0
    for k in (1, 2, 3):
        K._add(fifo, counts, counters, k)
    assert K._listed(fifo, counters, key) and counts.sum() == 3
    K._add(fifo, counts, counters, 4)  # the list is full: the pair, the oldest, goes
    assert not K._listed(fifo, counters, key) and counts.sum() == 4
    K.clear_tabu(fifo, counts, counters)
    assert counts.sum() == 0 and counters[K.C_TABU_N] == 0


@pytest.mark.parametrize("t_end,p_rotate", [(0.05, 0.5), (0.0, 0.1)])
def test_an_annealing_stage_makes_one_step_per_temperature_and_keeps_the_score(t_end, p_rotate):
    """t_end = 0 cools until the temperature underflows; every step evaluates one neighbour."""
    P = emc.load("meta-10x10")
    T, S, rng, fifo, counts, canon, counters, (pc, pe, pi) = _search(P)
    best_p, best_r = S.piece.copy(), S.rotation.copy()
    steps, t = 0, 100.0
    while t > max(t_end, K.TINY):
        steps += 1
        t *= 0.99
    cur = K.anneal_steps(T, S, rng, 100.0, t_end, 0.99, pc, pe, pi, counters, best_p, best_r, p_rotate)
    assert counters[K.C_EVALS] == steps and (steps > 70_000) == (t_end == 0.0)
    board = emc.Board(P.width, P.height, S.piece.astype(np.int64), S.rotation.astype(np.int64))
    assert emc.verify(P, board).valid and emc.score(P, board) == cur


@pytest.mark.parametrize("swap_as_pair", [False, True])
def test_a_tabu_search_never_undoes_its_last_move_at_once(swap_as_pair):
    """With every other candidate held back (one sample, no inner rotation on a frame-only
    search), the move just made is not taken back in the next iteration: its reverse is tabu."""
    P = emc.load("meta-10x10")
    T, S, rng, fifo, counts, canon, counters, (pc, pe, pi) = _search(P, length=50)
    best_p, best_r = S.piece.copy(), S.rotation.copy()
    ring = int(K.ring_score(T, S))
    counters[K.C_ASPIRATION] = 10**6  # no aspiration: only the list decides
    boards = [S.piece.copy()]
    for _ in range(60):
        ring = K.tabu_steps(T, S, rng, 1, True, 200, pc, pe, 0, canon, fifo, counts, counters, ring, best_p, best_r,
                            10**6, swap_as_pair)
        boards.append(S.piece.copy())
        assert ring == K.ring_score(T, S)
    moved = 0
    for a, b, c in zip(boards, boards[1:], boards[2:]):
        if (a != b).any():
            moved += 1
            assert (a != c).any()  # the swap just made is not reversed in the next iteration
    assert moved > 30


def test_runs_are_verified_repeatable_and_honour_hints():
    P = emc.load("meta-10x10")
    a = optimise(P, "tabu", seed=3, iterations=300)
    b = optimise(P, "tabu", seed=3, iterations=300)
    c = optimise(P, "tabu", seed=4, iterations=300)
    same = lambda run: {k: v for k, v in run.details.items() if k != "phase2_seconds"}  # noqa: E731
    assert a.board == b.board and [t["score"] for t in a.trajectory] == [t["score"] for t in b.trajectory]
    assert same(a) == same(b) and c.board != a.board
    assert emc.verify(P, a.board).valid and a.score == emc.score(P, a.board) and a.iterations == 300
    assert a.details["phase1"]["ring"] == a.details["phase1"]["ring_max"]  # META 10x10's frame is solved at once
    E = emc.load("eternity2")
    h = E.hints[0]
    run = optimise(E, "tabu", seed=1, iterations=30)
    assert run.board.piece[h.cell] == h.piece and emc.verify(E, run.board).valid


@pytest.mark.slow
def test_stagnation_brings_the_annealing_and_the_perturbation():
    P = emc.load("set2-6x6")
    run = optimise(P, "tabu", seed=2, iterations=400, i2=20, i3=90, beta2=50)
    assert run.details["annealing"] >= 1 and (run.details["perturbation"] >= 1 or run.stopped_by == "solved")
    assert emc.verify(P, run.board).valid


def test_bad_options_fail_in_one_line(cli, tmp_path):
    r = cli("optimise", "meta-10x10", "-m", "tabu")
    assert r.code == 2 and "needs a budget" in r.err, r
    r = cli("optimise", "meta-10x10", "-m", "tabu", "-O", "t0=1", "-O", "t_end=2", "-O", "iterations=5")
    assert r.code == 2 and "cools" in r.err, r
    board = tmp_path / "b.json"
    emc.write_board(random_board(emc.load("meta-10x10"), 1), emc.load("meta-10x10"), board)
    r = cli("optimise", "meta-10x10", "-m", "tabu", "--start-board", board, "-O", "iterations=5")
    assert r.code == 2 and "takes no starting board" in r.err, r
