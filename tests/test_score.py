"""Scores and verification, checked against brute force and invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import emc
from emc.model import BORDER, OPPOSITE, Board, rotate_puzzle_board
from emc.rng import StableRng
from emc.score import complete_blocks, mismatches, perfect_pieces, score, scores, swap_delta, verify


def _placed(p, b):
    """(row, column, cell, the piece's colours) of each filled cell, with no emc code."""
    for r in range(p.height):
        for c in range(p.width):
            cell = r * p.width + c
            if b.piece[cell] >= 0:
                yield r, c, cell, p.pieces[b.piece[cell]]


def brute_perfect(p, b):
    """Obj3 cell by cell: every side matched by its neighbour, or showing the border on the frame."""
    n = 0
    steps = ((-1, 0), (0, 1), (1, 0), (0, -1))  # top, right, bottom, left
    for r, c, cell, me in _placed(p, b):
        ok = True
        for s, (dr, dc) in enumerate(steps):
            mine = me[(s - b.rotation[cell]) % 4]
            rr, cc = r + dr, c + dc
            if not (0 <= rr < p.height and 0 <= cc < p.width):
                ok &= mine == 0
                continue
            other = rr * p.width + cc
            if b.piece[other] < 0:
                ok = False
                continue
            theirs = p.pieces[b.piece[other]][((s + 2) % 4 - b.rotation[other]) % 4]
            ok &= mine == theirs and mine != 0
        n += bool(ok)
    return n


def brute_matched(p, b):
    """Matched edges counted cell by cell, with no shared code."""
    n = 0
    for r, c, cell, me in _placed(p, b):
        k = b.rotation[cell]
        right = me[(1 - k) % 4]
        down = me[(2 - k) % 4]
        if c + 1 < p.width and b.piece[cell + 1] >= 0:
            o = p.pieces[b.piece[cell + 1]]
            n += right == o[(3 - b.rotation[cell + 1]) % 4] and right != 0
        if r + 1 < p.height and b.piece[cell + p.width] >= 0:
            o = p.pieces[b.piece[cell + p.width]]
            n += down == o[(0 - b.rotation[cell + p.width]) % 4] and down != 0
    return n


def brute_blocks(p, b, k):
    W = p.width
    ok = 0
    for r in range(p.height - k + 1):
        for c in range(W - k + 1):
            good = True
            for rr in range(r, r + k):
                for cc in range(c, c + k):
                    cell = rr * W + cc
                    if cc + 1 < c + k:
                        good &= _match(p, b, cell, cell + 1, 1)
                    if rr + 1 < r + k:
                        good &= _match(p, b, cell, cell + W, 2)
            ok += good
    return ok


def _match(p, b, a, c, side):
    if b.piece[a] < 0 or b.piece[c] < 0:
        return False
    x = p.colours[b.piece[a], b.rotation[a], side]
    y = p.colours[b.piece[c], b.rotation[c], OPPOSITE[side]]
    return bool(x == y and x != BORDER)


def scrambled(p, b, seed, swaps=6, empties=0):
    rng = StableRng(seed)
    b = b.copy()
    for _ in range(swaps):
        i, j = rng.below(p.n_cells), rng.below(p.n_cells)
        b.piece[[i, j]] = b.piece[[j, i]]
        b.rotation[i] = rng.below(4)
    for _ in range(empties):
        b.clear([rng.below(p.n_cells)])
    return b


@given(st.integers(3, 8), st.integers(3, 8), st.integers(1, 4), st.integers(1, 6), st.integers(0, 10**6))
@settings(max_examples=40, deadline=None)
def test_planted_boards_verify_with_the_maximum_score(w, h, f, i, seed):
    p, b = emc.generate(w, h, f, i, seed=seed)
    rep = verify(p, b)
    assert rep.valid and rep.complete and rep.solved
    assert rep.scores["score"] == p.max_score == w * (h - 1) + h * (w - 1)
    assert rep.scores["obj2"] == (w - 1) * (h - 1)
    assert rep.scores["obj3"] == w * h
    assert rep.scores["obj4"] == max(0, w - 2) * max(0, h - 2)
    assert rep.scores["obj5"] == max(0, w - 3) * max(0, h - 3)


@given(st.integers(3, 7), st.integers(3, 7), st.integers(0, 3), st.integers(0, 10**6))
@settings(max_examples=40, deadline=None)
def test_rotating_a_board_keeps_every_score(w, h, k, seed):
    p, b = emc.generate(w, h, 2, 3, seed=seed)
    b = scrambled(p, b, seed, swaps=4, empties=2)
    p2 = rotate_puzzle_board(p, k)
    b2 = b.rotated(k)
    s1, s2 = scores(p, b), scores(p2, b2)
    for key in ("score", "obj2", "obj3", "obj4", "obj5"):
        assert s1[key] == s2[key], key


@given(st.integers(3, 7), st.integers(3, 7), st.integers(0, 10**6), st.integers(0, 3))
@settings(max_examples=40, deadline=None)
def test_scores_agree_with_brute_force(w, h, seed, empties):
    p, b = emc.generate(w, h, 1, 2, seed=seed)  # few colours: many accidental matches
    b = scrambled(p, b, seed, swaps=5, empties=empties)
    assert score(p, b) == brute_matched(p, b)
    for k in (2, 3, 4):
        assert complete_blocks(p, b, k) == brute_blocks(p, b, k)
    assert perfect_pieces(p, b) == brute_perfect(p, b)
    assert len(mismatches(p, b)) == p.max_score - score(p, b)


def test_perfect_pieces_counts_frame_sides(planted_6x5):
    p, b = planted_6x5
    assert perfect_pieces(p, b) == p.n_cells
    b2 = b.copy()
    b2.rotation[0] = (b2.rotation[0] + 1) % 4  # corner turned: its border sides leave the frame
    assert perfect_pieces(p, b2) < p.n_cells
    assert perfect_pieces(p, b2) >= p.n_cells - 3  # only the corner and its two neighbours


@given(st.integers(3, 7), st.integers(3, 7), st.integers(0, 10**6), st.data())
@settings(max_examples=60, deadline=None)
def test_swap_delta_equals_full_rescoring(w, h, seed, data):
    p, b = emc.generate(w, h, 1, 2, seed=seed)
    b = scrambled(p, b, seed)
    a = data.draw(st.integers(0, p.n_cells - 1))
    c = data.draw(st.integers(0, p.n_cells - 1))
    ra, rc = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))
    before = score(p, b)
    d = swap_delta(p, b, a, c, ra, rc)
    nb = b.copy()
    pa, pc = nb.piece[a], nb.piece[c]
    if a == c:
        nb.rotation[a] = ra
    else:
        nb.piece[a], nb.piece[c] = pc, pa
        nb.rotation[a], nb.rotation[c] = ra, rc
    assert score(p, nb) - before == d


def test_verify_reports_each_kind_of_problem(planted_6x5):
    p, b = planted_6x5
    bad = b.copy()
    bad.piece[3] = bad.piece[4]  # duplicate
    rep = verify(p, bad)
    assert not rep.valid and any("used 2 times" in x for x in rep.problems)

    turned = b.copy()
    turned.rotation[0] = (turned.rotation[0] + 2) % 4
    rep = verify(p, turned)
    assert not rep.valid and rep.frame_violations

    partial = b.copy()
    partial.clear([7])
    assert not verify(p, partial).valid
    assert verify(p, partial, allow_partial=True).valid

    wrong_size = Board(p.height, p.width, b.piece, b.rotation)
    assert not verify(p, wrong_size).valid

    ghost = b.copy()
    ghost.piece[2] = p.n_pieces + 3
    assert any("does not exist" in x for x in verify(p, ghost).problems)

    spun = b.copy()
    spun.rotation[9] = 7
    assert any("not 0..3" in x for x in verify(p, spun).problems)

    # an id below -1 (-1 is an empty cell) is a problem verify reports, not an exception
    minus = b.copy()
    minus.piece[4] = -2
    rep = verify(p, minus, allow_partial=True)
    assert not rep.valid and f"{p.cell_label(4)}: invalid piece id -2" in rep.problems

    # the first id past the last piece: reported by verify, refused by score with a clean error
    past = b.copy()
    past.piece[0] = p.n_pieces
    assert any("does not exist" in x for x in verify(p, past).problems)
    with pytest.raises(emc.InputError, match="is not a placement of"):
        score(p, past)


def test_a_partial_board_with_a_piece_facing_the_frame_wrongly_is_not_valid(planted_6x5):
    """On a complete board a colour shown to the frame always comes with a border colour shown
    inside (as many border sides as frame sides), so only partial boards tell the two apart:
    an inner piece on an edge cell, alone, must still be a frame violation."""
    p, b = planted_6x5
    part = Board.empty(p)
    inner = int(b.piece[p.width + 1])  # a piece of an inner cell
    part.place(2, inner, 0)  # top edge cell: its top side faces the frame
    rep = verify(p, part, allow_partial=True)
    assert not rep.valid and rep.frame_violations
    assert any("to the frame on its top side" in x for x in rep.frame_violations), rep.frame_violations


def test_hint_violations_are_reported():
    e2 = emc.load("eternity2")
    b = Board.empty(e2)
    rep = verify(e2, b, allow_partial=True)
    assert rep.hint_violations and not rep.valid
    assert verify(e2, b, allow_partial=True, check_hints=False).valid
    b = Board.from_hints(e2)
    assert verify(e2, b, allow_partial=True).valid


@pytest.mark.parametrize("name", ["set2-4x4", "clue1"])
def test_random_full_boards_are_scored_consistently(name):
    p = emc.load(name)
    rng = StableRng(3)
    perm = rng.permutation(p.n_pieces)
    b = Board(p.width, p.height, perm, rng.integers(0, 4, p.n_cells))
    rep = verify(p, b)
    assert rep.scores["score"] == brute_matched(p, b)
    assert rep.complete


def test_board_conversion_round_trip_and_json_validity_on_the_command_line(cli, tmp_path):
    """convert json -> edges -> json gives the same board (a conversion that turned the pieces
    passed every test), and score/verify --json call a board with a repeated piece invalid."""
    import json

    p, planted = emc.generate(5, 4, 2, 4, seed=4, distinct=True)  # board_edges names pieces by their colours
    pf, b0, edges, b1 = (tmp_path / n for n in ("p.json", "b0.json", "b.edges", "b1.json"))
    emc.formats.write_puzzle(p, pf)
    emc.formats.write_board(planted, p, b0)
    assert cli("convert", b0, "--puzzle", pf, "--to", "edges", "-o", edges).code == 0
    assert cli("convert", edges, "--puzzle", pf, "--to", "json", "-o", b1).code == 0
    back = emc.read_board(b1, p)
    assert back.piece.tolist() == planted.piece.tolist() and back.rotation.tolist() == planted.rotation.tolist()
    assert emc.read_board(edges, p).piece.tolist() == planted.piece.tolist()
    twice = planted.copy()
    twice.piece[1] = twice.piece[0]
    twice.rotation[1] = twice.rotation[0]
    (tmp_path / "twice.json").write_text(emc.formats.format_board(twice, p, "json"))  # write_board refuses it
    for cmd, code in (("score", 0), ("verify", 1)):
        r = cli(cmd, pf, tmp_path / "twice.json", "--json")
        out = json.loads(r.out)
        assert r.code == code and out["valid"] is False and out["problems"], (cmd, r)
    r = cli("score", pf, b1, "--json")
    assert r.code == 0 and json.loads(r.out)["valid"] is True



def test_a_hint_piece_in_its_cell_turned_the_wrong_way_is_a_hint_violation():
    p, b = emc.generate(4, 4, 2, 3, seed=9)
    cell = 5  # r2c2, inner: any turn keeps the frame right
    piece, turn = int(b.piece[cell]), int(b.rotation[cell])
    text = "\n".join(" ".join(map(str, r)) for r in p.pieces.tolist())
    hinted = emc.formats.parse_puzzle(f"1\n2 2 {piece + 1} {turn}\n{text}\n", "h.txt")
    assert verify(hinted, b).solved
    turned = b.copy()
    turned.rotation[cell] = (turn + 1) % 4
    rep = verify(hinted, turned)
    assert not rep.valid and rep.frame_violations == []
    assert rep.hint_violations == [f"r2c2: hint wants piece {piece + 1} rotation {turn}, board has piece {piece + 1} "
                                   f"rotation {(turn + 1) % 4}"]


def test_a_negative_rotation_of_a_placed_piece_is_no_placement_to_score():
    p, b = emc.generate(4, 4, 2, 3, seed=9)
    bad = b.copy()
    bad.rotation[6] = -1
    with pytest.raises(emc.errors.InputError, match=rf"r2c3: piece {int(b.piece[6]) + 1} rotation -1 is not a placement"):
        score(p, bad)
    with pytest.raises(emc.errors.InputError, match="rotation -1 is not a placement"):
        scores(p, bad)
    assert verify(p, bad).problems == ["r2c3: rotation -1 is not 0..3"]


def test_a_partial_fill_of_a_feasibility_region_is_judged_on_its_filled_edges_only():
    from emc.cells import make_subproblem
    from emc.model import Goal
    from emc.score import check_subproblem_solution

    p, b = emc.generate(5, 5, 2, 3, seed=4)
    sp = make_subproblem(p, "r2c2-r4c4", b, Goal.FEASIBILITY)
    assert check_subproblem_solution(sp, b) == []
    part = b.copy()
    part.piece[[6, 12]] = -1  # r2c2 and r3c3 left empty: the edges around them have one empty side
    assert check_subproblem_solution(sp, part, allow_empty=True) == []
    assert check_subproblem_solution(sp, part) == ["2 free cells left empty"]
    wrong = part.copy()
    wrong.rotation[18] = (wrong.rotation[18] + 2) % 4  # r4c4 turned: its filled neighbours no longer match
    problems = check_subproblem_solution(sp, wrong, allow_empty=True)
    assert len(problems) == 1 and problems[0].startswith("partial fill matches"), problems
