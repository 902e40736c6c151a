"""The data model: colour table, frame fitting, neighbours, edges, sub-problems."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import emc
from emc.model import BOTTOM, LEFT, RIGHT, TOP, Board, Goal, PieceClass, Subproblem


def test_rotation_convention_matches_the_official_hint():
    # Piece 139 is N6 E11 S18 W6; turned 180 degrees it shows top 18, right 6, bottom 6, left 11.
    e2 = emc.load("eternity2")
    assert list(e2.pieces[138]) == [6, 11, 18, 6]
    assert list(e2.colours[138, 2]) == [18, 6, 6, 11]
    # One clockwise quarter turn brings the left colour to the top.
    assert list(e2.colours[138, 1]) == [6, 6, 11, 18]
    (hint,) = e2.hints
    assert e2.row_col(hint.cell) == (8, 7) and hint.piece == 138 and hint.rotation == 2


def test_colour_table_is_a_rotation_of_the_piece(set2_3x3):
    p = set2_3x3
    for piece, k, s in itertools.product(range(p.n_pieces), range(4), range(4)):
        assert p.colours[piece, k, s] == p.pieces[piece, (s - k) % 4]


def test_arrays_are_read_only(set2_3x3):
    with pytest.raises(ValueError):
        set2_3x3.pieces[0, 0] = 5
    with pytest.raises(ValueError):
        set2_3x3.colours[0, 0, 0] = 5


@pytest.mark.parametrize("w,h", [(3, 3), (5, 3), (4, 7)])
def test_neighbours_and_edges(w, h):
    p, _ = emc.generate(w, h, 2, 3, seed=1)
    assert len(p.edges) == p.max_score == w * (h - 1) + h * (w - 1)
    for (a, b), (sa, sb) in zip(p.edges, p.edge_sides):
        assert p.neighbours[a, sa] == b and p.neighbours[b, sb] == a
    # every cell side either faces the frame or a neighbour, never both
    assert ((p.neighbours < 0) == p.frame_sides).all()
    assert p.cell_class.tolist().count(PieceClass.CORNER) == 4


def test_fits_only_frame_consistent_placements():
    p, planted = emc.generate(5, 4, 2, 3, seed=4)
    # the planted board uses fitting placements only
    for cell in range(p.n_cells):
        assert p.fits[planted.piece[cell], cell, planted.rotation[cell]]
    # a corner piece fits a corner cell in exactly one rotation and no other cell
    corner = int(np.flatnonzero(p.piece_class == PieceClass.CORNER)[0])
    assert p.fits[corner, 0].sum() == 1
    inner_cells = np.flatnonzero(p.cell_class == PieceClass.INNER)
    assert not p.fits[corner, inner_cells].any()


def test_structure_checks_and_class_counts():
    for name in ("set2-3x3", "meta-16x16", "eternity2", "clue2"):
        p = emc.load(name)
        assert p.structure_problems() == []
        c = p.class_counts()
        assert c["corner"] == 4 and c["edge"] == 2 * (p.width - 2) + 2 * (p.height - 2)


@given(st.integers(3, 7), st.integers(3, 7), st.integers(0, 3), st.integers(0, 10_000))
@settings(max_examples=25, deadline=None)
def test_board_rotation_is_a_group_action(w, h, k, seed):
    p, b = emc.generate(w, h, 2, 3, seed=seed)
    r = b.rotated(k)
    assert (r.width, r.height) == ((h, w) if k % 2 else (w, h))
    assert r.rotated(4 - k) == b
    assert b.rotated(1).rotated(1) == b.rotated(2)


def test_subproblem_whole_has_hints_fixed():
    e2 = emc.load("eternity2")
    sp = Subproblem.whole(e2)
    assert sp.n_free == 255 and 138 not in sp.pieces.tolist()
    assert sp.fixed.piece[e2.hints[0].cell] == 138
    assert sp.symmetry_cells() is None  # hints break the symmetry already
    assert sp.max_score == 480


def test_placements_3x3_match_the_paper_vertex_count(set2_3x3):
    # Seed 000, Table 1: 30 clique vertices for the 3x3 (first corner fixed top-left).
    sp = Subproblem.whole(set2_3x3)
    assert len(sp.placements()) == 30
    no_sym = Subproblem.whole(set2_3x3, symmetry_breaking=False)
    assert len(no_sym.placements()) == 36


def test_rectangular_symmetry_breaking_keeps_both_top_corners():
    p, _ = emc.generate(5, 3, 2, 3, seed=2)
    sp = Subproblem.whole(p)
    piece, cells = sp.symmetry_cells()
    assert cells.tolist() == [0, 4]
    pl = sp.placements()
    assert set(pl.cell[pl.piece == piece].tolist()) == {0, 4}


def test_a_freed_hint_and_a_fixed_cell_are_not_the_whole_puzzle():
    # as many free cells as the whole puzzle has, but not the same ones: a region
    p = emc.load("eternity2")  # one hint: piece 139 on r8c7
    hint = p.hints[0].cell
    piece = np.arange(p.n_cells)
    piece[[hint, p.hints[0].piece]] = piece[[p.hints[0].piece, hint]]
    board = Board(p.width, p.height, piece, np.zeros(p.n_cells, dtype=np.int64))
    other = next(c for c in range(p.n_cells) if c != hint)
    free = [c for c in range(p.n_cells) if c != other]
    assert len(free) == p.n_cells - len(p.hints)
    sp = Subproblem.region(p, board, free)
    assert hint in sp.free.tolist() and not sp.is_whole
    assert Subproblem.whole(p).is_whole


def test_region_subproblem_counts_edges_to_fixed_neighbours(planted_6x5):
    p, b = planted_6x5
    free = [p.cell_of(1, 1), p.cell_of(1, 2), p.cell_of(2, 1), p.cell_of(2, 2)]
    sp = Subproblem.region(p, b, free)
    # 4 edges inside the 2x2 block + 8 to the ring of fixed neighbours around it
    assert sp.max_score == 12
    assert sp.score(b) == 12
    assert sp.exact_cover and not sp.is_whole
    # placements fitting the fixed neighbours include the planted ones
    pl = sp.placements(fit_fixed=True)
    got = set(zip(pl.piece.tolist(), pl.cell.tolist(), pl.rotation.tolist()))
    for c in free:
        assert (b.piece[c], c, b.rotation[c]) in got


def test_subproblem_rejects_inconsistent_input(planted_6x5):
    p, b = planted_6x5
    with pytest.raises(emc.InputError):
        Subproblem(p, b, [0, 1], [int(b.piece[5]), int(b.piece[6])])  # pieces still fixed elsewhere
    with pytest.raises(emc.InputError):
        Subproblem.region(p, b, [0, 1, 2], pieces=[int(b.piece[0])])  # too few pieces
    sp = Subproblem.region(p, b, [0, 1]).with_goal(Goal.FEASIBILITY)
    assert sp.goal is Goal.FEASIBILITY


def test_board_shown_and_empty(planted_6x5):
    p, b = planted_6x5
    e = Board.empty(p)
    assert (e.shown(p) == -1).all() and not e.is_complete
    assert b.is_complete
    sh = b.shown(p)
    for cell in range(p.n_cells):
        for s in (TOP, RIGHT, BOTTOM, LEFT):
            assert sh[cell, s] == p.colours[b.piece[cell], b.rotation[cell], s]


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 5), st.integers(3, 5), st.integers(1, 2), st.integers(1, 3), st.integers(0, 10**6))
def test_duplicate_groups_are_the_classes_of_pieces_equal_up_to_rotation(w, h, f, i, seed):
    """Checked against comparing every two pieces in all four turns: two pieces share a group
    exactly when one is a turn of the other, and each group lists its pieces in file order."""
    P, _ = emc.generate(w, h, f, i, seed=seed)
    same = {(a, b) for a in range(P.n_pieces) for b in range(a + 1, P.n_pieces)
            if any(list(np.roll(P.pieces[a], k)) == list(P.pieces[b]) for k in range(4))}
    groups = P.duplicate_groups()
    in_group = {(a, b) for g in groups for x, a in enumerate(g) for b in g[x + 1:]}
    assert in_group == same
    assert all(len(g) >= 2 and g == sorted(g) for g in groups)
    assert len(P.duplicate_pieces()) == sum(len(g) - 1 for g in groups)


def test_a_goal_given_by_name_is_the_goal_and_a_wrong_one_is_refused():
    """Scripts write goal="feasibility": the sub-problem holds the Goal itself (backends compared
    it with Goal members and crashed deep inside on the string)."""
    from emc.backends import get_backend
    from emc.errors import InputError

    p = emc.load("set2-4x4")
    for word, goal in (("feasibility", Goal.FEASIBILITY), ("Optimization", Goal.OPTIMISATION),
                       ("optimisation", Goal.OPTIMISATION), (Goal.FEASIBILITY, Goal.FEASIBILITY)):
        assert Subproblem.whole(p, goal=word).goal is goal
    sp = Subproblem.whole(p).with_goal("feasibility")
    assert sp.goal is Goal.FEASIBILITY
    res = get_backend("backtrack").solve(sp, time_limit=30)
    assert res.objective == p.max_score and emc.verify(p, res.board).solved
    with pytest.raises(InputError, match="goal 'max'"):
        Subproblem.whole(p, goal="max")


@pytest.mark.parametrize("args, words", [
    ((8, 8, np.zeros(3), np.zeros(3)), "a 8x8 board takes 64 pieces, one per cell, not 3"),
    ((2, 2, None, None), "pieces must be whole numbers, not None"),
    ((2, 2, [0, 1, None, 3], [0] * 4), "pieces must be whole numbers, not None"),
    ((0, 2, [], []), "a board's width is a whole number of at least 1, not 0"),
    ((2, 2, [0, 1, 2, 3], [0, 0, 0]), "a 2x2 board takes 4 rotations, one per cell, not 3"),
])
def test_a_board_of_wrong_arrays_is_one_input_error(args, words):
    """numpy's reshape and int() errors came out of Board() as they were."""
    with pytest.raises(emc.InputError, match=words):
        Board(*args)


def test_fit_fixed_placements_match_a_fixed_piece_on_the_first_cell():
    """Cell 0's fixed piece counts as a neighbour like any other (a `> 0` test once skipped it):
    the fit_fixed placements of the free cell beside it are exactly those matching every fixed
    neighbour, checked here side by side."""
    p, planted = emc.generate(5, 4, 4, 3, seed=2)
    board = planted.copy()
    board.clear([2, 3])  # their pieces are spare: candidates for cell 1 too
    sp = Subproblem.region(p, board, [1], Goal.FEASIBILITY, pieces=[int(x) for x in planted.piece[1:4]])
    shown = board.shown(p)
    want = set()
    for q, c, k in zip(sp.placements().piece, sp.placements().cell, sp.placements().rotation):
        mine = p.colours[q, k]
        if all(board.piece[nb] < 0 or mine[s] == shown[nb, (s + 2) % 4]
               for s, nb in enumerate(p.neighbours[c]) if nb >= 0):
            want.add((int(q), int(c), int(k)))
    pl = sp.placements(fit_fixed=True)
    assert set(zip(pl.piece.tolist(), pl.cell.tolist(), pl.rotation.tolist())) == want
    # and cell 0's colour did rule some out (the test would not see the rule otherwise)
    assert any(p.colours[q, k][LEFT] != shown[0, RIGHT] for q, k in zip(sp.placements().piece, sp.placements().rotation))


def test_a_subproblem_needs_a_piece_for_every_free_cell_and_boards_compare_their_turns():
    p, planted = emc.generate(4, 4, 2, 3, seed=1)
    with pytest.raises(emc.InputError, match="2 free cells but only 1 pieces to place"):
        Subproblem.region(p, planted, [5, 6], Goal.FEASIBILITY, pieces=[int(planted.piece[5])])
    turned = planted.copy()
    turned.rotation[5] = (turned.rotation[5] + 1) % 4
    assert turned != planted and planted.copy() == planted


def test_spare_pieces_that_fit_nowhere_are_no_dead_end():
    """With more pieces than free cells, a piece that fits no free cell just stays out: only
    an exact cover (every piece must be placed) makes it a dead end."""
    p, planted = emc.generate(5, 4, 2, 3, seed=2)
    board = planted.copy()
    board.clear([0])  # a spare corner piece
    sp = Subproblem.region(p, board, [7], Goal.FEASIBILITY, pieces=[int(planted.piece[7]), int(planted.piece[0])])
    assert not sp.exact_cover and sp.dead_ends() == ([], [])
    exact = Subproblem.region(p, planted, [7, 0], Goal.FEASIBILITY)
    assert exact.exact_cover and exact.dead_ends() == ([], [])
