"""The --free cell-set syntax and the sub-problems built from command-line options."""

from __future__ import annotations

import re

import pytest

import emc
from emc.cells import make_subproblem, parse_cells
from emc.model import Goal


@pytest.fixture(scope="module")
def p8():
    return emc.generate(8, 6, 2, 4, seed=3)


def labels(p, cells):
    return [p.cell_label(c) for c in cells]


def test_named_sets(p8):
    p, _ = p8
    assert len(parse_cells("all", p)) == 48
    assert len(parse_cells("frame", p)) == 2 * 8 + 2 * 4
    assert len(parse_cells("inner", p)) == 6 * 4
    black, white = parse_cells("black", p), parse_cells("white", p)
    assert len(black) == len(white) == 24 and not set(black) & set(white)
    # black cells are never side by side
    for c in black:
        assert not set(p.neighbours[c][p.neighbours[c] >= 0]) & set(black)


def test_ranges_rectangles_lists_and_unions(p8):
    p, _ = p8
    assert labels(p, parse_cells("rows:2", p))[:2] == ["r2c1", "r2c2"]
    assert len(parse_cells("rows:1-2", p)) == 16
    assert len(parse_cells("cols:8", p)) == 6
    rect = parse_cells("r2c3-r4c5", p)
    assert labels(p, rect) == [f"r{r}c{c}" for r in (2, 3, 4) for c in (3, 4, 5)]
    assert labels(p, parse_cells("r4c5-r2c3", p)) == labels(p, rect)  # corners in any order
    assert labels(p, parse_cells("r1c1,r6c8", p)) == ["r1c1", "r6c8"]
    u = parse_cells("frame+rows:3", p)
    assert len(u) == 24 + 6  # row 3 adds its 6 inner cells


@pytest.mark.parametrize("bad", ["", "r0c1", "r7c1", "rows:3-1", "cols:9", "middle", "r1c1-r9c9", "r1,c1"])
def test_bad_specs_are_input_errors(p8, bad):
    p, _ = p8
    with pytest.raises(emc.InputError):
        parse_cells(bad, p)


def test_parts_joined_by_commas_are_told_to_use_plus(p8):
    p, _ = p8
    for spec, joined in (("frame,inner", "frame+inner"), ("r1c1-r2c2,r3c3", "r1c1-r2c2+r3c3")):
        with pytest.raises(emc.InputError, match=f"join other parts with '\\+': {re.escape(joined)}$"):
            parse_cells(spec, p)


def test_make_subproblem_variants(p8):
    p, planted = p8
    whole = make_subproblem(p)
    assert whole.is_whole and whole.symmetry_cells() is not None and whole.goal is Goal.FEASIBILITY
    region = make_subproblem(p, "r2c2-r3c3", planted, Goal.OPTIMISATION)
    assert region.n_free == 4 and region.exact_cover
    assert sorted(region.pieces.tolist()) == sorted(planted.piece[region.free].tolist())
    assert region.score(planted) == region.max_score == 4 + 8
    partial = planted.copy()
    partial.clear(parse_cells("rows:5-6", p))
    fill = make_subproblem(p, None, partial)
    assert fill.n_free == 16 and fill.exact_cover
    free_only = make_subproblem(p, "rows:1")  # no fixed board: any piece may go there
    assert free_only.n_free == 8 and len(free_only.pieces) == 48
    with pytest.raises(emc.InputError, match="already full"):
        make_subproblem(p, None, planted)


def test_hints_stay_fixed_in_subproblems():
    e2 = emc.load("eternity2")
    sp = make_subproblem(e2, "rows:9")
    hint = e2.hints[0].cell  # row 9: freed with its row, so any piece may go there, the hint's one too
    assert hint in sp.free.tolist() and sp.fixed.piece[hint] == -1 and 138 in sp.pieces.tolist()
    sp = make_subproblem(e2, "rows:1")
    assert sp.fixed.piece[e2.hints[0].cell] == 138 and 138 not in sp.pieces.tolist()


def test_black_is_the_colour_of_the_top_left_cell(p8):
    p, _ = p8
    black, white = parse_cells("black", p), parse_cells("white", p)
    assert 0 in black and 0 not in white and 1 in white and len(black) + len(white) == p.n_cells
    assert all((c // p.width + c % p.width) % 2 == 0 for c in black)


def test_a_partial_fixed_board_keeps_the_puzzles_hints_and_may_not_move_them():
    e2 = emc.load("eternity2")
    (hint,) = e2.hints
    partial = emc.Board.empty(e2)
    sp = make_subproblem(e2, None, partial)
    assert sp.fixed.piece[hint.cell] == hint.piece and sp.fixed.rotation[hint.cell] == hint.rotation
    assert hint.cell not in set(sp.free.tolist())
    moved = emc.Board.empty(e2)
    moved.place(0 if hint.cell else 1, hint.piece, hint.rotation)  # the hint's piece on another cell
    with pytest.raises(emc.InputError, match="the puzzle's hint puts it on"):
        make_subproblem(e2, None, moved)


def test_no_symmetry_breaking_means_none_on_a_whole_puzzle_given_as_all(p8):
    p, _ = p8
    assert make_subproblem(p, "all", symmetry_breaking=False).symmetry_cells() is None
    assert make_subproblem(p, "all").symmetry_cells() is not None


def test_corners_and_taking_cells_away(p8):
    p, _ = p8
    W, H = p.width, p.height
    corners = {0, W - 1, (H - 1) * W, H * W - 1}
    assert set(parse_cells("corners", p).tolist()) == corners
    assert set(parse_cells("all~corners", p).tolist()) == set(range(p.n_cells)) - corners
    # what follows a '~' is a union, and several '~' take away in turn
    assert set(parse_cells(f"frame~rows:1+rows:{H}", p).tolist()) == {c for c in range(p.n_cells)
                                                                    if c % W in (0, W - 1) and 0 < c // W < H - 1}
    assert parse_cells("all~frame~inner", p).size == 0
    for bad in ("all~", "~corners", "all~~corners"):
        with pytest.raises(emc.InputError, match="nothing on one side of '~'"):
            parse_cells(bad, p)
    with pytest.raises(emc.InputError, match="use all, frame, corners, inner"):
        parse_cells("all~corner", p)
    sp = make_subproblem(p, "all~corners", p8[1])
    assert sp.n_free == p.n_cells - 4 and sp.symmetry_cells() is None
    assert set(sp.fixed.piece[sorted(corners)].tolist()) == set(p8[1].piece[sorted(corners)].tolist())
