"""The shared local-search core (emc.heuristics.core): the incremental board state, its moves
and undo, partial optimal placement, the compiled assignment and the starting boards.

Every incremental value is checked against emc.score's from-scratch functions (which share no
code with the kernels), assignments against scipy, and partial optimal placement against a
brute-force enumeration of the lifted pieces' placements.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import emc
from emc.errors import InputError
from emc.heuristics.core.assignment import linear_sum_assignment
from emc.heuristics.core.pop import draw, make_work
from emc.heuristics.core.starts import ORDERS, TOP_LEFT, backtrack_board, cell_order, random_board
from emc.heuristics.core.board_state import BoardState
from emc.heuristics.core.state import make_state, make_tables
from emc.heuristics.core.xorshift import below, make_rng, uniform
from emc.model import Board, Hint, PieceClass
from emc.score import edge_matches, perfect_pieces, placement_matches, score, scores, verify

OBJECTIVES = ("obj1", "obj2", "obj3", "obj4", "obj5")
KEPT = ("piece", "rotation", "facing", "match", "nmatch", "bad", "win_bad", "obj")


def reference(puzzle, board, keys=OBJECTIVES):
    s = scores(puzzle, board)
    return {k: s[k] for k in keys}


def check(bs: BoardState) -> None:
    """The state agrees with emc.score on its board, and with a state rebuilt from scratch."""
    board = bs.board()
    assert verify(bs.puzzle, board, check_hints=bs.hints).valid
    assert bs.scores() == reference(bs.puzzle, board, tuple(bs.scores()))
    assert np.array_equal(bs.state.match.astype(bool), edge_matches(bs.puzzle, board))
    fresh = bs.fresh()
    for name in KEPT:
        assert np.array_equal(getattr(bs.state, name), getattr(fresh, name)), name


def snapshot(bs: BoardState) -> dict:
    return {name: getattr(bs.state, name).copy() for name in KEPT}


def same(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in KEPT)


def planted_case(w, h, seed, hints=0, frame=1, inner=2):
    """A generated puzzle (few colours, so windows complete often), with ``hints`` hints taken
    from its planted board, and that board."""
    puzzle, board = emc.generate(w, h, frame, inner, seed=seed)
    if hints:
        rng = np.random.default_rng(seed)
        cells = rng.choice(puzzle.n_cells, min(hints, puzzle.n_cells), replace=False)
        puzzle = puzzle.with_hints([Hint(int(c), int(board.piece[c]), int(board.rotation[c])) for c in cells])
    return puzzle, board


def start(puzzle, planted, rng, kind, hints=True):
    """A starting board: the planted one shuffled a little (many complete windows to break and
    rebuild), or a random one."""
    if kind == "random":
        return random_board(puzzle, int(rng.integers(1 << 30)), hints=hints)
    bs = BoardState(puzzle, planted, hints=hints)
    for _ in range(int(rng.integers(0, 4))):
        group = [g for g in ("inner", "edge", "corner") if len(bs.cells(g)) >= 2]
        if group:
            cells = bs.cells(group[int(rng.integers(len(group)))])
            a, b = (int(x) for x in rng.choice(cells, 2, replace=False))
            bs.swap(a, b)
    return bs.board()


def fitting(puzzle, piece, cell):
    return [int(r) for r in np.flatnonzero(puzzle.fits[piece, cell])]


def random_moves(bs: BoardState, rng: np.random.Generator, n: int, commit: bool = True) -> list[str]:
    """``n`` random moves on ``bs``: rotations, swaps with given and best rotations, partial
    optimal placements, undos (and commits unless ``commit`` is false). After each one the
    state is checked against emc.score, and each move's predicted change of every objective
    against the change it made. Returns the moves made, by name."""
    P = bs.puzzle
    kept = [int(k[3]) for k in bs.scores()]
    made = []
    for _ in range(n):
        kind = ["rotate", "swap", "swap-best", "pop", "pop", "undo", "commit" if commit else "swap"][int(rng.integers(7))]
        before = bs.scores()
        state_before = snapshot(bs)
        groups = [g for g in ("inner", "edge", "corner") if len(bs.cells(g))]
        cells = bs.cells(str(rng.choice(groups))) if groups else []
        predicted = None
        if kind == "rotate":
            cells = bs.cells("inner")
            if not len(cells):
                continue
            c = int(rng.choice(cells))
            r = int(rng.choice(fitting(P, int(bs.state.piece[c]), c)))
            predicted = {k: bs.rotate_delta(c, r, objective=k) for k in kept}
            bs.rotate(c, r)
        elif kind in ("swap", "swap-best"):
            if not len(cells):
                continue
            a, b = (int(x) for x in rng.choice(cells, 2))  # a == b now and then: a turn in place
            if kind == "swap" and a != b:
                ra = int(rng.choice(fitting(P, int(bs.state.piece[b]), a)))
                rb = int(rng.choice(fitting(P, int(bs.state.piece[a]), b)))
            elif kind == "swap":
                ra = rb = int(rng.choice(fitting(P, int(bs.state.piece[a]), a)))
            else:
                ra = rb = None
            predicted = {k: bs.swap_delta(a, b, ra, rb, objective=k) for k in kept}
            assert same(state_before, snapshot(bs))  # predicting changes nothing
            bs.swap(a, b, ra, rb)
        elif kind == "pop":
            group = "frame" if rng.random() < 0.4 else str(rng.choice(["inner", "edge", "corner"]))
            zero = float(rng.choice([0.0, 0.5, 1.0]))
            lifted, gain = bs.pop(group, int(rng.integers(1, 9)), zero_weight=zero)
            assert gain >= 0 and bs.scores()["obj1"] - before["obj1"] == gain
            predicted = None
        elif kind == "undo":
            try:
                bs.undo()
            except InputError:
                continue
        else:
            bs.commit()
        made.append(kind)
        after = bs.scores()
        if predicted is not None:
            assert {k: after[f"obj{k}"] - before[f"obj{k}"] for k in kept} == predicted, kind
        check(bs)
    return made


# ----------------------------------------------------------------------------- the state
@given(st.integers(2, 7), st.integers(2, 7), st.integers(0, 10_000), st.integers(0, 3),
       st.sampled_from(["planted", "random"]), st.booleans())
@settings(max_examples=40, deadline=None)
def test_incremental_objectives_equal_the_reference_after_random_moves(w, h, seed, hints, kind, honour):
    puzzle, planted = planted_case(w, h, seed, hints)
    rng = np.random.default_rng(seed)
    bs = BoardState(puzzle, start(puzzle, planted, rng, kind, honour), hints=honour, seed=seed)
    check(bs)
    made = random_moves(bs, rng, 40)
    assert {"swap", "pop"} | ({"rotate"} if len(bs.cells("inner")) else set()) <= set(made)


@pytest.mark.parametrize("name, honour", [("eternity2", True), ("eternity2", False), ("meta-10x10", True),
                                          ("set2-8x7", True)])
def test_incremental_objectives_on_real_puzzles(name, honour):
    puzzle = emc.load(name)
    rng = np.random.default_rng(7)
    bs = BoardState(puzzle, random_board(puzzle, 3, hints=honour), hints=honour, seed=3)
    random_moves(bs, rng, 60)
    if honour:
        for h in puzzle.hints:
            assert (bs.state.piece[h.cell], bs.state.rotation[h.cell]) == (h.piece, h.rotation)


@pytest.mark.parametrize("name", ["meta-16x16", "eternity2", "meta-12x12"])
def test_long_move_sequences_on_16x16(name):
    puzzle = emc.load(name)
    rng = np.random.default_rng(11)
    bs = BoardState(puzzle, random_board(puzzle, 5, corner="random"), fixed=[TOP_LEFT], seed=11)
    corner = (int(bs.state.piece[TOP_LEFT]), int(bs.state.rotation[TOP_LEFT]))
    random_moves(bs, rng, 400)
    assert (int(bs.state.piece[TOP_LEFT]), int(bs.state.rotation[TOP_LEFT])) == corner


def test_windows_and_perfect_pieces_reach_their_maxima_on_a_solved_board():
    # A solved board has every window complete and every piece perfect, so the counts are the
    # number of windows of each size, on square, long and thin boards alike.
    for w, h in ((5, 5), (7, 3), (3, 6), (2, 5), (4, 4)):
        puzzle, planted = emc.generate(w, h, 2, 3, seed=w * 10 + h)
        bs = BoardState(puzzle, planted)
        want = {"obj1": puzzle.max_score, "obj2": (w - 1) * (h - 1), "obj3": w * h,
                "obj4": max(w - 2, 0) * max(h - 2, 0), "obj5": max(w - 3, 0) * max(h - 3, 0)}
        assert bs.scores() == want == reference(puzzle, planted)
        assert list(bs.tables.obj_max[1:]) == list(want.values())


def test_a_state_can_keep_only_some_objectives():
    puzzle, planted = planted_case(6, 5, 3)
    full = BoardState(puzzle, planted)
    lean = BoardState(puzzle, planted, objectives=(4,))
    assert set(lean.scores()) == {"obj1", "obj3", "obj4"}
    assert lean.tables.ew_win.size < full.tables.ew_win.size
    rng = np.random.default_rng(1)
    random_moves(lean, rng, 30)
    assert int(lean.state.obj[2]) == int(lean.state.obj[5]) == -1
    with pytest.raises(InputError, match="objective 2 is not kept"):
        lean.objective(2)


@given(st.integers(3, 6), st.integers(3, 6), st.integers(0, 10_000))
@settings(max_examples=25, deadline=None)
def test_undo_restores_every_array_exactly(w, h, seed):
    puzzle, planted = planted_case(w, h, seed, hints=1)
    rng = np.random.default_rng(seed)
    bs = BoardState(puzzle, start(puzzle, planted, rng, "planted"), seed=seed)
    marks = [snapshot(bs)]
    for _ in range(12):
        random_moves(bs, rng, 1, commit=False)
        marks.append(snapshot(bs))
    # undo one move at a time: each undo lands exactly on the state before that move (moves
    # that the driver skipped or that were undos themselves leave equal snapshots behind)
    while True:
        try:
            bs.undo()
        except InputError:
            break
    assert same(bs.state._asdict(), marks[0])


@given(st.integers(2, 6), st.integers(2, 6), st.integers(0, 10_000))
@settings(max_examples=30, deadline=None)
def test_best_swap_rotations_are_the_best_by_obj1(w, h, seed):
    puzzle, _ = planted_case(w, h, seed, frame=2, inner=3)
    board = random_board(puzzle, seed)
    bs = BoardState(puzzle, board)
    rng = np.random.default_rng(seed)
    base = score(puzzle, board)
    for i in range(8):
        group = str(rng.choice(["inner", "edge", "corner"]))
        cells = bs.cells(group)
        if not len(cells):
            continue
        a, b = (int(x) for x in rng.choice(cells, 2))
        touching = [int(x) for x in puzzle.neighbours[a] if x in cells]
        if i % 2 and touching:  # every other pair touches: their shared edge ties the rotations together
            b = int(rng.choice(touching))
        pa, pb = int(board.piece[a]), int(board.piece[b])
        best = -99
        for ra in fitting(puzzle, pb, a):
            for rb in fitting(puzzle, pa, b) if a != b else [ra]:
                moved = board.copy()
                moved.place(a, pb, ra)
                if a != b:
                    moved.place(b, pa, rb)
                best = max(best, score(puzzle, moved) - base)
                assert bs.swap_delta(a, b, ra, rb) == score(puzzle, moved) - base
        got = bs.swap_delta(a, b)
        ra, rb = bs.swap(a, b)
        assert got == best == score(puzzle, bs.board()) - base
        bs.undo()


# ------------------------------------------------------------------- partial optimal placement
def brute_force_gain(puzzle, board, cells):
    """The most Obj1 can gain by putting the pieces of ``cells`` back in any order and any
    fitting rotations, each whole board scored from scratch."""
    base = score(puzzle, board)
    pieces = [int(board.piece[c]) for c in cells]
    best = -1
    for perm in itertools.permutations(pieces):
        rots = [fitting(puzzle, p, c) for p, c in zip(perm, cells)]
        if not all(rots):
            continue
        for turn in itertools.product(*rots):
            b = board.copy()
            for c, p, r in zip(cells, perm, turn):
                b.place(int(c), p, r)
            best = max(best, score(puzzle, b) - base)
    return best


@given(st.integers(3, 7), st.integers(3, 7), st.integers(0, 10_000), st.sampled_from(["inner", "frame"]),
       st.integers(2, 3))
@settings(max_examples=30, deadline=None)
def test_pop_equals_the_brute_force_optimum_on_tiny_q(w, h, seed, group, q):
    puzzle, _ = planted_case(w, h, seed, frame=2, inner=2)
    board = random_board(puzzle, seed)
    bs = BoardState(puzzle, board, seed=seed)
    lifted, gain = bs.pop(group, q)
    assert gain == brute_force_gain(puzzle, board, lifted) >= 0
    assert score(puzzle, bs.board()) == score(puzzle, board) + gain
    check(bs)


@given(st.integers(3, 8), st.integers(3, 8), st.integers(0, 10_000), st.integers(1, 20),
       st.sampled_from([0.0, 1e-300, 0.25, 1.0]), st.booleans())
@settings(max_examples=40, deadline=None)
def test_pop_draws_non_adjacent_movable_cells_of_its_group(w, h, seed, q, zero_weight, solved):
    puzzle, planted = planted_case(w, h, seed, hints=2)
    board = planted if solved else random_board(puzzle, seed)
    bs = BoardState(puzzle, board, fixed=[c for c in range(puzzle.n_cells) if c % 7 == 3], seed=seed)
    P = puzzle
    for group, classes in (("inner", {0}), ("frame", {1, 2}), ("edge", {1}), ("corner", {2})):
        lifted, gain = bs.pop(group, q, zero_weight=zero_weight)
        lifted = [int(c) for c in lifted]
        movable = {int(c) for c in bs.cells(group)}
        assert len(set(lifted)) == len(lifted) <= q and set(lifted) <= movable
        assert all(P.cell_class[c] in classes for c in lifted)
        assert not any(b in lifted for c in lifted for b in P.neighbours[c])
        covered = set(lifted) | {int(b) for c in lifted for b in P.neighbours[c]}
        if len(lifted) < q:  # no cell of the group was left that could still be drawn
            assert movable <= covered
        if solved:  # every piece weighs zero_weight: still drawn, and the board stays solved
            assert len(lifted) >= min(q, 1, len(movable)) and gain == 0
            assert bs.scores()["obj1"] == P.max_score
        bs.undo()
        check(bs)


def test_pieces_without_unmatched_sides_are_drawn_only_after_the_others():
    # With zero_weight 0, a perfect piece is drawn only when every piece with an unmatched side
    # has been drawn or sits next to a drawn one.
    puzzle, planted = planted_case(8, 8, 4)
    rng = np.random.default_rng(4)
    bs = BoardState(puzzle, planted, seed=4)
    inner = bs.cells("inner")
    for _ in range(4):  # a few unmatched pieces on an otherwise solved board
        a, b = (int(x) for x in rng.choice(inner, 2, replace=False))
        bs.swap(a, b, 0, 0)
    bs.commit()
    work = make_work(bs.tables)
    bad = {int(c) for c in inner if bs.state.bad[c] > 0}
    assert bad
    for _ in range(30):
        n = draw(bs.tables, bs.state, work, bs.rng, 0, 12, 0.0)
        drawn = [int(c) for c in work.cells[:n]]
        first_perfect = next((i for i, c in enumerate(drawn) if c not in bad), n)
        before = set(drawn[:first_perfect])
        covered = before | {int(x) for c in before for x in puzzle.neighbours[c]}
        if first_perfect < n:
            assert bad <= covered


def test_frame_pop_keeps_corners_on_corners_and_rotations_forced():
    puzzle = emc.load("meta-10x10")
    bs = BoardState(puzzle, random_board(puzzle, 2), seed=2)
    total, corners = 0, 0
    for _ in range(50):
        lifted, gain = bs.pop("frame", 16)
        total += gain
        corners += sum(puzzle.cell_class[c] == PieceClass.CORNER for c in lifted)
        bs.commit()
    board = bs.board()
    assert verify(puzzle, board).valid and total > 0 and corners > 0
    assert (puzzle.piece_class[board.piece] == puzzle.cell_class).all()


def test_pop_is_deterministic_for_a_seed_whatever_numpy_draws():
    puzzle = emc.load("meta-10x10")
    runs = []
    for other in (1, 2):
        np.random.seed(other)  # the global state the core must not read
        bs = BoardState(puzzle, random_board(puzzle, 9), seed=42)
        got = [tuple(bs.pop("inner" if i % 2 else "frame", 12)[0]) for i in range(20)]
        np.random.random(10)
        runs.append((got, bs.board()))
    assert runs[0][0] == runs[1][0] and runs[0][1] == runs[1][1]
    other = BoardState(puzzle, random_board(puzzle, 9), seed=43)
    assert [tuple(other.pop("inner" if i % 2 else "frame", 12)[0]) for i in range(20)] != runs[0][0]


def test_pop_optimum_uses_the_reference_weights():
    # The assignment's weights are the placement_matches of emc.score, maximised over rotations.
    puzzle = emc.load("set2-7x7")
    board = random_board(puzzle, 1)
    bs = BoardState(puzzle, board, seed=1)
    lifted, gain = bs.pop("inner", 6)
    w = np.array([[max(placement_matches(puzzle, board, int(c), int(board.piece[d]), r) for r in range(4))
                   for c in lifted] for d in lifted])
    before = sum(placement_matches(puzzle, board, int(c), int(board.piece[c]), int(board.rotation[c]))
                 for c in lifted)
    from scipy.optimize import linear_sum_assignment as scipy_lsa

    r, c = scipy_lsa(w, maximize=True)
    assert gain == w[r, c].sum() - before


# ----------------------------------------------------------------------------- the assignment
@given(st.integers(1, 12), st.integers(1, 12), st.booleans(), st.booleans(), st.data())
@settings(max_examples=150, deadline=None)
def test_assignment_total_equals_scipys(n, m, integer, maximize, data):
    from scipy.optimize import linear_sum_assignment as scipy_lsa

    if integer:
        cost = data.draw(hnp.arrays(np.int64, (n, m), elements=st.integers(-6, 6)))
    else:
        cost = data.draw(hnp.arrays(np.float64, (n, m), elements=st.floats(-1e3, 1e3, allow_nan=False)))
    rows, cols = linear_sum_assignment(cost, maximize=maximize)
    want_r, want_c = scipy_lsa(cost, maximize=maximize)
    assert len(rows) == len(want_r) == min(n, m)
    assert np.array_equal(rows, np.sort(rows)) and len(set(rows)) == len(rows) and len(set(cols)) == len(cols)
    assert np.isclose(cost[rows, cols].sum(), cost[want_r, want_c].sum(), rtol=1e-9, atol=1e-6)


def test_assignment_on_pop_sized_matrices_with_ties():
    from scipy.optimize import linear_sum_assignment as scipy_lsa

    rng = np.random.default_rng(0)
    for q in (1, 2, 24, 40, 64):
        for _ in range(20):
            cost = -rng.integers(0, 5, (q, q)).astype(float)
            cost[rng.random((q, q)) < 0.05] = 1e6  # forbidden pairs, as POP's
            np.fill_diagonal(cost, -rng.integers(0, 5, q))  # the current placement is always allowed
            r, c = linear_sum_assignment(cost)
            wr, wc = scipy_lsa(cost)
            assert cost[r, c].sum() == cost[wr, wc].sum()


@pytest.mark.parametrize("cost, error, words", [
    (np.zeros(3), InputError, "a 2-D array"),
    (np.array([[1.0, np.inf]]), InputError, "must be finite"),
    (np.array([["a", "b"]]), TypeError, "holds numbers"),
])
def test_assignment_refuses_bad_matrices(cost, error, words):
    with pytest.raises(error, match=words) as exc:
        linear_sum_assignment(cost)
    assert "\n" not in str(exc.value)


def test_assignment_of_an_empty_matrix():
    r, c = linear_sum_assignment(np.zeros((0, 4)))
    assert r.size == c.size == 0


# ----------------------------------------------------------------------------- random streams
def test_xorshift_streams_are_fixed_by_their_seed():
    a, b, c = make_rng(5), make_rng(5), make_rng(6)
    da = [below(a, 1000) for _ in range(50)]
    assert da == [below(b, 1000) for _ in range(50)] != [below(c, 1000) for _ in range(50)]
    assert all(0 <= x < 1000 for x in da)
    u = [uniform(a) for _ in range(2000)]
    assert 0 <= min(u) and max(u) < 1 and abs(np.mean(u) - 0.5) < 0.05
    counts = np.bincount([below(a, 4) for _ in range(4000)], minlength=4)
    assert counts.min() > 850  # each of 4 values about 1000 times
    assert make_rng(0)[0] != 0
    # the stream is the documented one: splitmix64 of the seed, then xorshift64 (13, 7, 17),
    # a draw being the 53 high bits modulo n (written out here with Python's integers)
    mask = (1 << 64) - 1
    z = (12345 + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    x = z ^ (z >> 31)
    want = []
    for _ in range(5):
        x ^= (x << 13) & mask
        x ^= x >> 7
        x ^= (x << 17) & mask
        want.append((x >> 11) % 1_000_003)
    r = make_rng(12345)
    assert [below(r, 1_000_003) for _ in range(5)] == want


# ----------------------------------------------------------------------------- starting boards
def test_random_board_can_fix_a_corner_on_the_top_left_and_ignore_hints():
    e2 = emc.load("eternity2")
    b = random_board(e2, 4, corner="random")
    assert verify(e2, b).valid and e2.piece_class[b.piece[TOP_LEFT]] == PieceClass.CORNER
    assert random_board(e2, 4, corner="random") == b and random_board(e2, 5, corner="random") != b
    corner = int(np.flatnonzero(e2.piece_class == PieceClass.CORNER)[2])
    assert random_board(e2, 4, corner=corner).piece[TOP_LEFT] == corner
    free = random_board(e2, 4, hints=False)
    assert verify(e2, free, check_hints=False).valid and not verify(e2, free).valid  # hint piece elsewhere
    assert random_board(e2, 4) == random_board(e2, 4, hints=True)


@pytest.mark.parametrize("call, error, words", [
    (lambda p: random_board(p, 1, corner=5), InputError, "piece 6 is not a free corner piece"),
    (lambda p: random_board(p, 1, corner=999), InputError, "there is no piece 1000"),
    (lambda p: random_board(p, 1, corner="any"), InputError, "corner is a piece number, 'random' or None"),
    (lambda p: random_board(p, 1, corner=1.0), TypeError, "corner is a piece number"),
    (lambda p: random_board(p, 1, hints="no"), TypeError, "hints is True or False"),
])
def test_random_board_refuses_bad_options(call, error, words):
    with pytest.raises(error, match=words) as exc:
        call(emc.load("meta-10x10"))
    assert "\n" not in str(exc.value)


# ----------------------------------------------------------------------------- bad input
def _state():
    p = emc.load("set2-5x5")
    return BoardState(p, random_board(p, 1), fixed=[TOP_LEFT])


@pytest.mark.parametrize("call, error, words", [
    (lambda p, s: BoardState(p, Board.empty(p)), InputError, "complete, valid board: 25 empty cells"),
    (lambda p, s: BoardState("set2-5x5", random_board(p, 1)), TypeError, "takes an emc.Puzzle"),
    (lambda p, s: BoardState(p, "board"), TypeError, "board is an emc.Board"),
    (lambda p, s: BoardState(p, random_board(p, 1), hints="yes"), TypeError, "hints is True"),
    (lambda p, s: BoardState(p, random_board(p, 1), fixed=[25]), InputError, "a fixed cell 25 is not 0..24"),
    (lambda p, s: BoardState(p, random_board(p, 1), objectives=[6]), InputError, "objective 6 is not one of 1..5"),
    (lambda p, s: s.swap(TOP_LEFT, 4), InputError, "cell a r1c1 is fixed"),
    (lambda p, s: s.swap(6, 4), InputError, "cells of different classes"),
    (lambda p, s: s.swap(6, 7, 1), InputError, "give both rotations or neither"),
    (lambda p, s: s.swap(6, 7, 1, 5), InputError, "rot_b 5 is not 0..3"),
    (lambda p, s: s.swap(1, 2, 1, 1), InputError, "does not fit"),
    (lambda p, s: s.swap(6, 6, 1, 2), InputError, "rot_b must equal rot_a"),
    (lambda p, s: s.swap(6.0, 7), TypeError, "cell a is a whole number"),
    (lambda p, s: s.rotate(30, 1), InputError, "cell 30 is not 0..24"),
    (lambda p, s: s.rotate(6, True), TypeError, "rotation is a whole number"),
    (lambda p, s: s.rotate_delta(6, 1, objective=0), InputError, "objective 0 is not one of 1..5"),
    (lambda p, s: s.pop("border"), InputError, "group 'border' is not one of inner, edge, corner, frame"),
    (lambda p, s: s.pop("inner", 0), InputError, "q 0 must be at least 1"),
    (lambda p, s: s.pop("inner", 2.5), TypeError, "q is a whole number"),
    (lambda p, s: s.pop("inner", 4, zero_weight=-1), InputError, "zero_weight -1 must be a finite number"),
    (lambda p, s: s.undo(), InputError, "no move to undo"),
    (lambda p, s: make_tables("set2-5x5"), TypeError, "takes an emc.Puzzle"),
    (lambda p, s: make_tables(p, [True] * 24), InputError, "movable has 24 entries, the 5x5 board 25 cells"),
    (lambda p, s: make_state(s.tables, [0] * 24, [0] * 24), InputError, "pieces must be 25 whole numbers"),
    (lambda p, s: make_state(s.tables, [-1] * 25, [0] * 25), InputError, "pieces must be 0..24 on every cell"),
    (lambda p, s: make_state(s.tables, list(range(25)), [4] * 25), InputError, "rotations must be 0..3"),
])
def test_bad_input_is_one_line(call, error, words):
    s = _state()
    with pytest.raises(error, match=words) as exc:
        call(s.puzzle, s)
    assert "\n" not in str(exc.value)


def test_kernels_refuse_a_full_undo_log():
    from emc.heuristics.core.state import rotate

    p = emc.load("set2-5x5")
    T = make_tables(p)
    b = random_board(p, 1)
    S = make_state(T, b.piece, b.rotation, log_capacity=2)
    rotate(T, S, 6, 1)
    rotate(T, S, 6, 2)
    with pytest.raises(IndexError, match="undo log is full"):
        rotate(T, S, 6, 3)


# ----------------------------------------------------------------------------- without numba
@pytest.mark.slow
def test_the_core_runs_as_plain_python_without_numba():
    """With numba's compiler off the kernels run as Python functions: the move driver's checks
    hold, the boards are those of the compiled kernels, and the random stream raises no numpy
    overflow warning (turned into errors here)."""
    here = Path(__file__).resolve().parent
    code = (
        f"import sys; sys.path.insert(0, {str(here)!r})\n"
        "import numpy as np, emc\n"
        "from test_core import random_moves, planted_case\n"
        "from emc.heuristics.core.board_state import BoardState\n"
        "from emc.heuristics.core.starts import random_board\n"
        "p, _ = planted_case(6, 5, 3, hints=1)\n"
        "bs = BoardState(p, random_board(p, 2), seed=3)\n"
        "made = random_moves(bs, np.random.default_rng(3), 40)\n"
        "print(sorted(set(made)), bs.board().piece.tolist(), bs.board().rotation.tolist())\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(here.parent)}
    plain = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code], capture_output=True, text=True,
                           env=env, timeout=600)
    assert plain.returncode == 0, plain.stderr
    env.pop("NUMBA_DISABLE_JIT")
    compiled = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert compiled.returncode == 0, compiled.stderr
    assert "'pop'" in plain.stdout and plain.stdout == compiled.stdout


def test_perfect_pieces_reference_counts_frame_sides():
    # Obj3 counts a frame side as matched when it shows the border colour: on a solved board
    # every piece is perfect, the frame pieces included.
    puzzle, planted = emc.generate(4, 3, 2, 2, seed=1)
    assert perfect_pieces(puzzle, planted) == 12 == BoardState(puzzle, planted).objective(3)


# ----------------------------------------------------------------------------- backtracking starts
def test_cell_orders_are_those_of_the_paper():
    # seed 003, Figure 3: the position of each cell of a 4 x 4 board in each order
    figure = {"rows": [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]],
              "spiral": [[0, 1, 2, 3], [11, 12, 13, 4], [10, 15, 14, 5], [9, 8, 7, 6]],
              "inverse-spiral": [[15, 14, 13, 12], [4, 3, 2, 11], [5, 0, 1, 10], [6, 7, 8, 9]],
              "mirrored-rows": [[0, 2, 4, 6], [8, 10, 12, 14], [15, 13, 11, 9], [7, 5, 3, 1]]}
    for order, want in figure.items():
        position = np.empty(16, dtype=int)
        position[cell_order(4, 4, order)] = np.arange(16)
        assert position.reshape(4, 4).tolist() == want, order
    for w, h in ((2, 7), (5, 3), (6, 6), (1, 4), (7, 2)):
        for order in ORDERS:
            assert sorted(cell_order(w, h, order).tolist()) == list(range(w * h))


def check_start(puzzle, res, hints=True, corner=False):
    """The start is a valid board completing the partial one, which holds the hints (and the
    fixed corner) and the first ``filled`` free cells of its order, every edge between filled
    cells matched."""
    assert verify(puzzle, res.board, check_hints=hints).valid
    part = res.partial
    assert verify(puzzle, part, allow_partial=True, check_hints=hints).valid
    on = part.piece >= 0
    assert (res.board.piece[on] == part.piece[on]).all() and (res.board.rotation[on] == part.rotation[on]).all()
    e = puzzle.edges
    both = on[e[:, 0]] & on[e[:, 1]]
    assert edge_matches(puzzle, part)[both].all()
    fixed = ([h.cell for h in puzzle.hints] if hints else []) + ([TOP_LEFT] if corner else [])
    order = [int(c) for c in cell_order(puzzle.width, puzzle.height, res.order) if c not in fixed]
    assert res.free == len(order)
    assert set(np.flatnonzero(on)) == set(fixed) | set(order[:res.filled])


@given(st.integers(2, 5), st.integers(2, 5), st.integers(0, 10_000), st.sampled_from(ORDERS), st.booleans())
@settings(max_examples=30, deadline=None)
def test_backtracking_fills_a_small_board_completely_in_every_order(w, h, seed, order, corner):
    # The search is exhaustive: a board exists (the planted one, turned so that any corner
    # piece is on the top-left when the board is square), so it is found.
    puzzle, _ = emc.generate(w, h, 2, 2, seed=seed)
    corner = corner and w == h
    res = backtrack_board(puzzle, order, seconds=30, seed=seed, corner="random" if corner else None)
    assert res.filled == res.free and score(puzzle, res.board) == puzzle.max_score
    check_start(puzzle, res, corner=corner)


@pytest.mark.parametrize("name, order, hints", [("eternity2", "rows", True), ("eternity2", "spiral", False),
                                                ("meta-12x12", "inverse-spiral", True),
                                                ("meta-12x12", "mirrored-rows", True)])
def test_backtracking_keeps_the_deepest_partial_board(name, order, hints):
    puzzle = emc.load(name)
    res = backtrack_board(puzzle, order, seconds=5, seed=3, hints=hints, max_nodes=200_000)
    assert 0 < res.filled < res.free and res.nodes == 200_000
    check_start(puzzle, res, hints)
    again = backtrack_board(puzzle, order, seconds=5, seed=3, hints=hints, max_nodes=200_000)
    assert again.board == res.board and again.filled == res.filled
    other = backtrack_board(puzzle, order, seconds=5, seed=4, hints=hints, max_nodes=200_000)
    assert other.board != res.board


def test_backtracking_start_keeps_a_fixed_corner():
    puzzle = emc.load("meta-10x10")
    res = backtrack_board(puzzle, "rows", seconds=5, seed=1, corner=2, max_nodes=50_000)
    assert res.board.piece[TOP_LEFT] == res.partial.piece[TOP_LEFT] == 2
    check_start(puzzle, res, corner=True)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"order": "diagonal"}, InputError, "unknown cell order 'diagonal' .choose from: rows, spiral"),
    ({"seconds": 0}, InputError, "seconds 0 must be a positive number"),
    ({"max_nodes": 0}, InputError, "max_nodes 0 must be a whole number of at least 1"),
    ({"corner": "first"}, InputError, "backtrack_board: corner is a piece number"),
    ({"hints": 1}, TypeError, "backtrack_board: hints is True or False"),
])
def test_backtracking_start_refuses_bad_options(kwargs, error, words):
    with pytest.raises(error, match=words) as exc:
        backtrack_board(emc.load("set2-5x5"), **kwargs)
    assert "\n" not in str(exc.value)


def test_random_pairs_saved_and_loaded_boards():
    from emc.heuristics.core.state import CORNER, INNER, load_board, random_pair, save_board

    puzzle = emc.load("meta-10x10")
    bs = BoardState(puzzle, random_board(puzzle, 1, corner="random"), fixed=[TOP_LEFT])
    T, S = bs.tables, bs.state
    rng = make_rng(2)
    corners = set(bs.cells("corner"))
    seen = set()
    for _ in range(300):
        a, b = random_pair(T, rng, CORNER)
        assert a != b and {a, b} <= corners
        seen.add((a, b))
    assert len(seen) == 6  # every ordered pair of the three movable corners
    pairs = [random_pair(T, make_rng(5), INNER) for _ in range(3)]
    assert pairs[0] == pairs[1] == pairs[2]
    lone = BoardState(puzzle, random_board(puzzle, 1, corner="random"), fixed=[TOP_LEFT, 9, 90, 99])
    assert random_pair(lone.tables, rng, CORNER) == (-1, -1)
    piece, rotation = np.zeros(100, dtype=np.int32), np.zeros(100, dtype=np.int32)
    save_board(S, piece, rotation)
    saved = snapshot(bs)
    random_moves(bs, np.random.default_rng(3), 20)
    load_board(T, bs.state, piece, rotation)
    assert same(snapshot(bs), saved) and bs.state.log_n[0] == 0
