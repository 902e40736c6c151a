"""The matheuristic: compiled kernels, the five neighbourhoods, the constructive heuristics,
the driver and the commands, on real generated and shipped puzzles with real solvers.

Optimality claims (TA/BW assignments, TSR local optima) are checked by brute force with
emc.score, which shares no code with the compiled kernels.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import emc
from emc.heuristics import kernels as K
from emc.heuristics.local_search import LocalSearchParams, improve, random_board
from emc.heuristics.neighbourhoods import (
    BlackWhite,
    Context,
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
