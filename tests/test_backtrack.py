"""The compiled scan-row backtracker on sub-problems of every shape, against CP-SAT."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import emc
from emc.backends import Status, get_backend
from emc.backends.base import count_text
from emc.backends.backtrack import (Restarts, Search, _board_from, luby, make_plan, pack_candidates,
                                   pair_scores, race_pins, race_trees, shuffled)
from emc.cells import parse_cells
from emc.model import Goal, Subproblem
from emc.score import check_subproblem_solution, mismatches

from helpers import COUNT, counted, unsolvable

BT = get_backend("backtrack")


def test_plan_table_lists_exactly_the_fitting_candidates(set2_3x3):
    sp = Subproblem.whole(set2_3x3)
    plan = make_plan(sp)
    C1 = plan.C1
    # top-left cell: frame on top and left, key (type, 0, 0) holds the corners in their one fitting rotation
    k = (int(plan.ptype[0]) * C1 + 0) * C1 + 0
    got = {(int(p), int(r)) for p, r in zip(plan.cand_piece[plan.start[k]:plan.start[k + 1]],
                                             plan.cand_rot[plan.start[k]:plan.start[k + 1]])}
    want = {(p, r) for p in range(9) for r in range(4) if set2_3x3.fits[p, 0, r]}
    assert got == want and len(got) == 4


@pytest.mark.parametrize("spec", ["r2c2-r3c4", "frame", "r1c1,r3c3,r6c7"])
def test_position_types_list_only_what_fits_the_fixed_neighbours(spec):
    """A position's block of the candidate table holds, under each (top, left) key, exactly
    the allowed turns that show its frame sides and the colours its fixed right and bottom
    neighbours demand, so the kernel need not check those."""
    p, b, free = _region(5, spec)
    sp = Subproblem.region(p, b, free, Goal.FEASIBILITY)
    plan = make_plan(sp)
    C1 = plan.C1
    fixed_somewhere = False
    for pos in range(len(plan.order)):
        fixed_somewhere |= plan.right_fix[pos] >= 0 or plan.bottom_fix[pos] >= 0
        for top in range(C1):
            for left in range(C1):
                k = (int(plan.ptype[pos]) * C1 + top) * C1 + left
                got = {(int(q), int(r)) for q, r in zip(plan.cand_piece[plan.start[k]:plan.start[k + 1]],
                                                         plan.cand_rot[plan.start[k]:plan.start[k + 1]])}
                want = set()
                for q in sp.pieces:
                    for r in range(4):
                        c = p.colours[q, r]
                        mask = sum(1 << s for s in range(4) if c[s] == 0)
                        if (mask == plan.kind[pos] and (top == C1 - 1 and c[0] != 0 or c[0] == top)
                                and (left == C1 - 1 and c[3] != 0 or c[3] == left)
                                and plan.right_fix[pos] in (-1, c[1]) and plan.bottom_fix[pos] in (-1, c[2])):
                            want.add((int(q), r))
                assert got == want, (pos, top, left)
    assert fixed_somewhere


def test_race_pins_are_the_corner_pieces():
    p = emc.load("set2-5x5")
    pins = race_pins(Subproblem.whole(p))
    assert [int(x) for x, _ in pins] == [int(c) for c in np.flatnonzero(p.piece_class == 2)]
    assert race_pins(Subproblem.whole(emc.load("eternity2"))) == []  # hints: no symmetry to exploit


def _complete(plan, piece=-1, positions=None, keep=1):
    s = Search(plan, piece, positions, keep=keep)
    while not s.done:
        s.step(10_000_000, 0)
    return s


@pytest.mark.parametrize("name", ["set2-5x5", "set2-6x4"])
def test_every_raced_search_is_an_equivalent_symmetry_breaking(name):
    """Each scan order with each pinned corner piece counts the same solutions (a square
    board's solutions turn so that any corner piece is top-left; a rectangle's so that it is
    on a top corner), and the pinned piece is the only thing tried where it must go."""
    p = emc.load(name)
    sp = Subproblem.whole(p)
    trees = race_trees(sp, ("rows", "cols"), race=True)
    assert len(trees) == 8
    counts = set()
    for scan, piece, positions in trees:
        plan = make_plan(sp, scan)
        first = Search(plan, piece, positions)
        first.step(1, 1)  # one node: the first cell's first candidate
        if p.width == p.height:
            assert first.placed[0] == piece
        counts.add(_complete(plan, piece, positions).solutions)
    assert len(counts) == 1 and counts.pop() >= 1


def test_scan_orders_visit_top_and_left_neighbours_first():
    p = emc.load("set2-6x4")
    for scan in ("rows", "cols"):
        plan = make_plan(Subproblem.whole(p), scan)
        posof = {int(c): i for i, c in enumerate(plan.order)}
        for i, cell in enumerate(plan.order):
            r, c = divmod(int(cell), p.width)
            assert plan.top_src[i] == (posof[cell - p.width] if r > 0 else -1)
            assert plan.left_src[i] == (posof[cell - 1] if c > 0 else -1)


@pytest.mark.parametrize("restarts", [True, False])
@pytest.mark.parametrize("threads,race,scan", [(1, True, "both"), (1, False, "rows"), (1, True, "cols"), (2, True, "both")])
def test_whole_puzzles_all_ways(threads, race, scan, restarts):
    for name in ("set2-5x4", "set2-6x5", "clue1"):
        p = emc.load(name)
        unit = {"restart_nodes": 500} if restarts else {}  # refused without the restarts
        res = BT.solve(Subproblem.whole(p), threads=threads, race=race, scan=scan, restarts=restarts, **unit)
        assert res.status is Status.OPTIMAL and emc.verify(p, res.board).solved
        assert res.stats["nodes"] > 0


def test_luby_sequence():
    assert [luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]
    assert luby(2 ** 10 - 1) == 2 ** 9
    with pytest.raises(ValueError):
        luby(0)


def test_shuffled_plan_keeps_each_keys_candidates():
    plan = make_plan(Subproblem.whole(emc.load("set2-6x6")))
    other = shuffled(plan, np.random.default_rng(4))
    assert np.array_equal(plan.start, other.start)
    moved = False
    for k in range(len(plan.start) - 1):
        a, b = plan.start[k], plan.start[k + 1]
        mine = sorted(zip(plan.cand_piece[a:b], plan.cand_rot[a:b], plan.cand_right[a:b], plan.cand_bottom[a:b]))
        theirs = list(zip(other.cand_piece[a:b], other.cand_rot[a:b], other.cand_right[a:b], other.cand_bottom[a:b]))
        assert mine == sorted(theirs)
        moved |= not np.array_equal(plan.cand_piece[a:b], other.cand_piece[a:b])
    assert moved


def _rarity_by_hand(puzzle, pieces):
    """Sum over a piece's four corners of 1 / (how many corners of ``pieces`` show that pair),
    counted from the piece lists (top, right, bottom, left) without emc's colour table."""
    from collections import Counter

    rows = [tuple(int(c) for c in puzzle.pieces[p]) for p in pieces]
    corners = Counter((r[s], r[(s + 3) % 4]) for r in rows for s in range(4))
    return [sum(1 / corners[(r[s], r[(s + 3) % 4])] for s in range(4)) for r in rows]


@pytest.mark.parametrize("name,spec", [("set2-6x6", None), ("set2-8x7", None), ("generated 7x7", "r2c2-r5c6")])
def test_pair_scores_are_z_scores_of_the_corner_pairs_rarity(name, spec):
    if spec is None:
        p = emc.load(name)
        sp = Subproblem.whole(p)
    else:
        p, planted = emc.generate(7, 7, 2, 5, seed=4)
        sp = Subproblem.region(p, planted, parse_cells(spec, p), Goal.FEASIBILITY)
        assert sp.n_free < p.n_cells
    got = pair_scores(sp)
    pieces = sorted(int(x) for x in sp.pieces)
    rarity = np.array(_rarity_by_hand(p, pieces))
    assert np.allclose(got[pieces], (rarity - rarity.mean()) / rarity.std())
    outside = np.setdiff1d(np.arange(p.n_pieces), pieces)
    assert np.all(got[outside] == 0)
    assert got[pieces].std() > 0.5  # set 2's pieces do differ


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_pair_scores_ignore_colour_names_and_turns(seed):
    """Renaming the inner colours and turning pieces in the file changes no piece's score."""
    p, _ = emc.generate(5, 5, 2, 4, seed=seed)
    rng = np.random.default_rng(seed)
    names = np.concatenate([[0], 1 + rng.permutation(int(p.pieces.max()))])
    turned = np.array([np.roll(names[row], int(k)) for row, k in zip(p.pieces, rng.integers(0, 4, p.n_pieces))])
    q = emc.Puzzle(p.width, p.height, turned)
    assert np.allclose(pair_scores(Subproblem.whole(p)), pair_scores(Subproblem.whole(q)))


def test_shuffled_by_score_puts_each_keys_candidates_in_score_order():
    plan = make_plan(Subproblem.whole(emc.load("set2-6x6")))
    n = int(plan.cand_piece.max()) + 1
    score = np.random.default_rng(2).permutation(n).astype(float)  # a different score per piece ...
    other = shuffled(plan, np.random.default_rng(5), score, noise=0.0)
    for k in range(len(plan.start) - 1):
        a, b = plan.start[k], plan.start[k + 1]
        got = score[other.cand_piece[a:b]]
        assert np.all(np.diff(got) >= 0)  # the four turns of one piece tie; any order among them
        assert sorted(zip(plan.cand_piece[a:b], plan.cand_rot[a:b])) == sorted(zip(other.cand_piece[a:b],
                                                                                   other.cand_rot[a:b]))
    # ... while noise large against the score shuffles (the orders differ between generators)
    loud = [shuffled(plan, np.random.default_rng(g), score, noise=100.0).cand_piece for g in (1, 2)]
    assert not np.array_equal(*loud)


def test_both_candidate_orders_solve_and_differ():
    sp = Subproblem.whole(emc.load("set2-7x6"))
    res = {order: BT.solve(sp, threads=1, seed=3, order=order) for order in ("random", "pairs")}
    for r in res.values():
        assert r.status is Status.OPTIMAL and emc.verify(sp.puzzle, r.board).solved
    assert res["random"].stats["nodes"] != res["pairs"].stats["nodes"]
    # the default is the random order: the same runs as asking for it
    assert BT.solve(sp, threads=1, seed=3).stats["decided_by"] == res["random"].stats["decided_by"]


def test_unknown_candidate_order_is_refused():
    with pytest.raises(emc.InputError, match="unknown order 'easy'.*random, pairs"):
        BT.solve(Subproblem.whole(emc.load("set2-4x4")), order="easy")


def test_packed_candidates_decode_to_the_plan_in_every_order():
    plan = make_plan(Subproblem.whole(emc.load("set2-7x7")), "cols")
    for p in (plan, shuffled(plan, np.random.default_rng(9))):
        assert np.array_equal(p.cand & 0xFFFF, p.cand_piece)
        assert np.array_equal((p.cand >> 16) & 0xFF, p.cand_right)
        assert np.array_equal(p.cand >> 24, p.cand_bottom)


def test_packing_refuses_what_does_not_fit():
    with pytest.raises(emc.InputError, match="256 colours"):
        pack_candidates(np.array([1]), np.array([300]), np.array([2]))
    with pytest.raises(emc.InputError, match="65,536 pieces"):
        pack_candidates(np.array([70_000]), np.array([1]), np.array([2]))


@pytest.mark.parametrize("name", ["set2-6x6", "set2-7x5"])
def test_restarts_give_the_same_board_for_any_number_of_processes(name):
    """The answer is the lowest run that decides; which process ran it does not matter."""
    sp = Subproblem.whole(emc.load(name))
    runs = {}
    for threads in (1, 2, 3):
        res = BT.solve(sp, threads=threads, seed=5, restart_nodes=2000)
        assert res.status is Status.OPTIMAL and emc.verify(sp.puzzle, res.board).solved
        runs[threads] = (res.stats["decided_by"], tuple(res.board.piece), tuple(res.board.rotation))
    assert len(set(runs.values())) == 1, runs
    assert BT.solve(sp, threads=1, seed=6, restart_nodes=2000).stats["decided_by"] != runs[1][0]


def test_no_more_processes_than_cores():
    import os

    sp = Subproblem.whole(emc.load("set2-5x5"))
    res = BT.solve(sp, threads=64, seed=1)
    assert res.status is Status.OPTIMAL and emc.verify(sp.puzzle, res.board).solved
    assert 1 <= res.stats["processes"] <= len(os.sched_getaffinity(0))


def test_restart_runs_are_reproducible():
    sp = Subproblem.whole(emc.load("set2-6x6"))
    trees = race_trees(sp, ("rows", "cols"), True)
    a, b = Restarts(sp, trees, 3, 1000, 10_000), Restarts(sp, trees, 3, 1000, 10_000)
    for i in range(1, 12):
        ka, sa, ta = a.run(i, None)
        kb, sb, tb = b.run(i, None)
        assert (ka, sa.nodes, ta[:2]) == (kb, sb.nodes, tb[:2])
        assert sa.nodes >= luby(i) * 1000 or ka in ("solution", "infeasible")


@pytest.mark.slow
def test_tree_picking_keeps_the_early_runs_and_then_the_smallest_tree():
    """Runs up to pick_after are the unpicked runs; later runs search the tree with the
    smallest estimate, with the candidate order drawn as before (so a run whose drawn tree is
    the picked one is the same run)."""
    sp = Subproblem.whole(emc.load("set2-6x6"))
    trees = race_trees(sp, ("rows", "cols"), True)
    plain = Restarts(sp, trees, 5, 1000, 10_000, pick=False)
    picking = Restarts(sp, trees, 5, 1000, 10_000, pick_after=4)
    picked = picking.picked()
    assert picking.estimates is not None and len(picking.estimates) == len(trees)
    assert picked == trees[int(np.argmin(picking.estimates))]
    assert min(picking.estimates) < max(picking.estimates)  # the trees differ, so the pick means something
    assert Restarts(sp, trees, 5, 1000, 10_000).picked() == picked  # the same in every process
    same = changed = 0
    for i in range(1, 40):
        a, ta = plain.search(i)
        b, tb = picking.search(i)
        if i <= 4:
            assert ta == tb
        else:
            assert tb == picked
        a.step(20_000, 1)
        b.step(20_000, 1)
        if ta == tb:
            assert (a.nodes, a.solutions) == (b.nodes, b.solutions)
            same += i > 4
        else:
            changed += 1
    assert same and changed  # some later runs drew the picked tree anyway, others were moved to it
    assert Restarts(sp, trees[:1], 5, 1000, 10_000).pick_after is None  # one tree: nothing to pick


@pytest.mark.slow
def test_a_deadline_during_tree_picking_stops_between_trees_and_the_pick_goes_on_later():
    """The estimates take seconds on big puzzles: a time limit that falls while they run ends
    the run there (at most one tree's estimate late), and a later call finishes the same pick."""
    import time

    sp = Subproblem.whole(emc.load("set2-6x6"))
    trees = race_trees(sp, ("rows", "cols"), True)
    ref = Restarts(sp, trees, 5, 1000, 10_000, pick_after=4)
    whole = ref.picked()
    r = Restarts(sp, trees, 5, 1000, 10_000, pick_after=4)
    assert r.run(5, time.monotonic()) == ("timeout", None, None)  # the deadline has passed: no tree estimated
    assert r.estimates is None and r._estimated == []
    r._estimated.append(ref.estimates[0])  # as if the deadline had passed after the first tree
    assert r.picked(time.monotonic()) is None and r._estimated == ref.estimates[:1]  # stops between trees
    assert r.run(5, None)[2] == whole and r.estimates == ref.estimates  # goes on from there: the same pick


@pytest.mark.slow
def test_tree_picking_answers_and_proves_infeasibility():
    """With the pick after the first run: boards still verified, infeasible puzzles still
    proven infeasible (every tree is a complete search), and pick=false accepted."""
    import emc.backends.backtrack as bt

    sp = Subproblem.whole(emc.load("set2-6x6"))
    broken = Subproblem.whole(unsolvable(emc.load("set2-5x5")))
    old = bt.PICK_AFTER
    bt.PICK_AFTER = 1
    try:
        scan, piece, _ = Restarts(sp, race_trees(sp, ("rows", "cols"), True), 4, 2000, 10_000).picked()
        for threads in (1, 2):
            res = BT.solve(sp, threads=threads, seed=4, restart_nodes=2000)
            assert res.status is Status.OPTIMAL and emc.verify(sp.puzzle, res.board).solved
            run, tree = re.match(r"run (\d+) \((\w+, piece \d+) pinned", res.stats["decided_by"]).groups()
            assert int(run) > 1 and tree == f"{scan}, piece {piece + 1}"  # answered after the pick, on its tree
            assert BT.solve(broken, threads=threads, seed=1, restart_nodes=500).status is Status.INFEASIBLE
    finally:
        bt.PICK_AFTER = old
    assert BT.solve(sp, seed=4, pick=False).status is Status.OPTIMAL
    with pytest.raises(emc.InputError, match="pick"):
        BT.solve(sp, pick="maybe")


@pytest.mark.parametrize("threads", [1, 2])
def test_a_ctrl_c_swallowed_on_the_way_still_stops_the_search(threads):
    """A Ctrl-C that lands while numba loads a kernel can be lost before it reaches the search
    (`emc count set2-8x8` with a Ctrl-C at 0.5 s then ran on to its time limit); the command
    line's guard still notes it, and the searches look at that note between slices."""
    from emc import runtime as control

    sp = Subproblem.whole(emc.load("set2-8x8"))
    with control.sigint_guard():
        control._flag["raised"] = True  # what the guard's handler leaves when its KeyboardInterrupt was lost
        counted = BT.count(sp, time_limit=600, slice_nodes=100_000)
        solved = BT.solve(sp, time_limit=600, threads=threads, slice_nodes=100_000)
        raced = BT.solve(sp, time_limit=600, threads=threads, restarts=False, slice_nodes=100_000)
    assert not counted.complete and counted.stats["nodes"] <= 100_000
    for res in (solved, raced):
        assert res.status is Status.UNKNOWN and res.interrupted
        assert res.stats["nodes"] <= 8 * 100_000 * threads  # stopped within the first slices, not at the limit


@pytest.mark.slow
@pytest.mark.parametrize("restarts", [True, False])
def test_a_second_ctrl_c_while_the_search_processes_end_keeps_the_deepest_fill(restarts):
    """The first Ctrl-C ends the search processes; a second one landing while they are ended and
    their deepest fill gathered (the last progress line is sent then) used to escape as a
    KeyboardInterrupt, and `emc solve` wrote no board ("the backend found none")."""
    import signal

    from emc import runtime as control

    sp = Subproblem.whole(emc.load("set2-8x8"))
    lines: list[str] = []

    def progress(line: str) -> None:
        lines.append(line)
        if len(lines) <= 2:  # a Ctrl-C after the first line, another after the last one
            time.sleep(0.6)  # past the progress throttle, so that the last line is sent
            signal.raise_signal(signal.SIGINT)

    with control.sigint_guard():
        try:
            res = BT.solve(sp, time_limit=600, threads=2, restarts=restarts, on_progress=progress)
        except KeyboardInterrupt:
            pytest.fail("the second Ctrl-C escaped the search, and its deepest fill with it")
        assert control.raised()
    assert len(lines) == 2 and res.status is Status.UNKNOWN and res.interrupted
    assert res.partial is not None and res.partial.filled.sum() > 0
    assert emc.verify(sp.puzzle, res.partial, allow_partial=True).valid

@pytest.mark.slow
@pytest.mark.parametrize("threads,restarts", [(1, True), (2, True), (1, False), (2, False)])
def test_on_partial_hears_each_deeper_fill_and_the_last_is_the_answers(threads, restarts):
    """A search has no board until it solves; ``on_partial`` hears its deepest partial fill as
    it grows (what `emc solve -o` keeps on disk during a long run), each one deeper than the
    last, every edge between its pieces matched, the last one as deep as the fill the answer
    carries."""
    sp = Subproblem.whole(emc.load("eternity2"))
    got: list[emc.Board] = []
    res = BT.solve(sp, time_limit=3, threads=threads, restarts=restarts, slice_nodes=200_000,
                   on_partial=lambda b: got.append(b.copy()))
    assert res.status is Status.UNKNOWN and got
    cells = [int(b.filled.sum()) for b in got]
    assert cells == sorted(set(cells))
    for b in got:
        report = emc.verify(sp.puzzle, b, allow_partial=True)
        assert report.valid and report.scores["score"] == _matched_between_filled(sp.puzzle, b)
    assert cells[-1] == int(res.partial.filled.sum())  # as deep as the answer's (two searches may tie)
    # the backends that never search that way take the callback and never call it
    assert get_backend("cpsat").solve(Subproblem.whole(emc.load("set2-4x4")), on_partial=got.append).board is not None


def _matched_between_filled(puzzle, board) -> int:
    """Edges whose two cells are filled: all of them count as matched on a partial fill."""
    e = puzzle.edges
    return int(((board.piece[e[:, 0]] >= 0) & (board.piece[e[:, 1]] >= 0)).sum())

def _edges_by_type_and_colour(sp, board):
    """(type, colour) -> number of edges between two free cells on a solved board."""
    P = sp.puzzle
    shown = board.shown(P)
    free = set(int(c) for c in sp.free)
    inner = P.cell_class == 0
    out = {}
    for (a, b), (sa, _) in zip(P.edges, P.edge_sides):
        if int(a) in free and int(b) in free:
            key = (int(inner[a]) + int(inner[b]), int(shown[a, sa]))
            out[key] = out.get(key, 0) + 1
    return out


@given(st.integers(0, 10_000), st.sampled_from(["all", "frame", "inner", "rows:2-4", "r2c2-r4c5", "cols:1-3+rows:5"]))
@settings(max_examples=30, deadline=None)
def test_edge_budget_is_exactly_what_a_solution_uses(seed, spec):
    p, planted = emc.generate(7, 6, 2, 4, seed=seed)
    free = parse_cells(spec, p)
    sp = Subproblem.region(p, planted, free, Goal.FEASIBILITY)
    plan = make_plan(sp)
    C = p.max_colour + 1
    want = _edges_by_type_and_colour(sp, planted)
    got = {(t, c): int(plan.budget[t * C + c]) for t in range(3) for c in range(C) if plan.budget[t * C + c]}
    assert got == want
    # and every edge between two free cells has a slot: right and below, in either scan order
    for scan in ("rows", "cols"):
        pl = make_plan(sp, scan)
        assert (pl.right_slot >= 0).sum() + (pl.bottom_slot >= 0).sum() == sum(want.values())


def test_edge_budget_is_off_where_counts_are_not_fixed():
    p, planted = emc.generate(6, 5, 2, 4, seed=2)
    partial = planted.copy()
    partial.clear(parse_cells("rows:3-5", p))
    sp = Subproblem(p, partial, parse_cells("rows:3", p),  # row 3 has empty cells below it
                    np.setdiff1d(np.arange(p.n_pieces), partial.piece[partial.piece >= 0]), Goal.FEASIBILITY)
    plan = make_plan(sp)
    assert (plan.right_slot < 0).all() and (plan.bottom_slot < 0).all()
    sp2 = Subproblem.whole(emc.load("set2-3x3"))
    assert make_plan(sp2).budget.sum() > 0


def test_hinted_puzzle_keeps_its_hint():
    p, planted = emc.generate(6, 6, 2, 5, seed=13)
    h = emc.Hint(p.cell_of(2, 3), int(planted.piece[p.cell_of(2, 3)]), int(planted.rotation[p.cell_of(2, 3)]))
    hinted = p.with_hints([h])
    res = BT.solve(Subproblem.whole(hinted))
    assert res.status is Status.OPTIMAL and emc.verify(hinted, res.board).valid


def _region(seed, spec, w=7, h=6):
    p, b = emc.generate(w, h, 2, 4, seed=seed)
    return p, b, parse_cells(spec, p)


@pytest.mark.parametrize("spec", ["r2c2-r3c4", "frame", "rows:1-2", "cols:6-7", "black", "r1c1,r3c3,r6c7", "rows:5-6"])
def test_regions_of_planted_boards_are_refilled(spec):
    p, b, free = _region(5, spec)
    sp = Subproblem.region(p, b, free, Goal.FEASIBILITY)
    for threads in (1, 2):  # two processes race the two scan orders
        res = BT.solve(sp, threads=threads)
        assert res.status is Status.OPTIMAL
        assert not check_subproblem_solution(sp, res.board)
        assert emc.verify(p, res.board).solved


def test_empty_neighbours_outside_the_region_constrain_nothing():
    p, b, _ = _region(8, "all")
    partial = b.copy()
    partial.clear(parse_cells("rows:3-6", p))
    # re-solve row 3 only: its bottom neighbours are empty cells, not part of the sub-problem
    sp = Subproblem(p, partial, parse_cells("rows:3", p), np.setdiff1d(np.arange(p.n_pieces), partial.piece[partial.piece >= 0]),
                    Goal.FEASIBILITY)
    assert not sp.exact_cover
    res = BT.solve(sp)
    assert res.status is Status.OPTIMAL and not check_subproblem_solution(sp, res.board)


@pytest.mark.parametrize("scan", ["rows", "cols"])
def test_long_candidate_lists_are_tried_whole_and_once(scan):
    """Three cells in a line amid empty cells have no neighbour to match but each other, so
    the first one's candidate list holds every turn of the 36 loose inner pieces (144, more
    than one 64-bit word of them): the complete search must visit exactly the placements
    counted here by brute force (each once), and find every chain."""
    p, b = emc.generate(10, 10, 2, 4, seed=7)
    partial = b.copy()
    partial.clear(parse_cells("r3c3-r8c8", p))
    pieces = np.setdiff1d(np.arange(p.n_pieces), partial.piece[partial.piece >= 0])
    free = parse_cells("r5c4-r5c6" if scan == "rows" else "r4c5-r6c5", p)
    sp = Subproblem(p, partial, free, pieces, Goal.FEASIBILITY)
    plan = make_plan(sp, scan)
    assert np.diff(plan.start).max() == 4 * len(pieces) == 144
    out, inn = (1, 3) if scan == "rows" else (2, 0)  # the side shown towards the next cell, and the one facing back
    turns = [(int(q), k) for q in pieces for k in range(4)]
    one = turns
    two = [(a, c) for a in one for c in turns if c[0] != a[0] and p.colours[a][out] == p.colours[c][inn]]
    three = [(a, c, e) for a, c in two for e in turns
             if e[0] not in (a[0], c[0]) and p.colours[c][out] == p.colours[e][inn]]
    s = _complete(plan, keep=len(three) + 1)
    assert (s.nodes, s.solutions) == (len(one) + len(two) + len(three), len(three))
    found = {tuple(zip(s.sol_piece[k, :3].tolist(), s.sol_rot[k, :3].tolist())) for k in range(s.solutions)}
    assert found == set(three)


def test_a_puzzle_past_the_kernels_piece_limit_is_refused_before_any_work():
    """Over 65,536 pieces do not fit the kernel's 16-bit piece numbers: the refusal came after
    seconds of building the search (past a 5 s limit), and did not name the puzzle."""
    P, _ = emc.generate(257, 256, 2, 3, seed=1)
    sp = Subproblem.whole(P)
    for call in (lambda: get_backend("backtrack").solve(sp, time_limit=5),
                 lambda: get_backend("backtrack").count(sp, time_limit=5)):
        with pytest.raises(emc.InputError, match=f"{P.name} has 65,792 pieces: the backtrack backend handles up to 65,536"):
            call()


def test_infeasible_region_is_proven():
    p, b, free = _region(3, "r3c3-r4c4")
    bad = b.copy()
    outside = p.cell_of(1, 5)
    inside = int(free[0])
    bad.piece[[inside, outside]] = bad.piece[[outside, inside]]
    sp = Subproblem.region(p, bad, free, Goal.FEASIBILITY)
    res = BT.solve(sp)
    cp = get_backend("cpsat").solve(sp, threads=1)
    assert res.status is cp.status is Status.INFEASIBLE and res.board is None


@given(st.integers(0, 10_000), st.integers(1, 4), st.integers(1, 3), st.integers(0, 3), st.integers(0, 3))
@settings(max_examples=25, deadline=None)
def test_random_windows_agree_with_cpsat(seed, hh, ww, r0, c0):
    p, b = emc.generate(6, 5, 1, 3, seed=seed)  # few colours: alternative fills exist
    rng = np.random.default_rng(seed)
    scrambled = b.copy()
    inner = np.flatnonzero(p.cell_class == 0)
    i, j = rng.choice(inner, 2, replace=False)
    scrambled.piece[[i, j]] = scrambled.piece[[j, i]]
    free = [p.cell_of(r, c) for r in range(r0, min(r0 + hh, 5)) for c in range(c0, min(c0 + ww, 6))]
    sp = Subproblem.region(p, scrambled, free, Goal.FEASIBILITY)
    a = BT.solve(sp)
    c = get_backend("cpsat").solve(sp, threads=1)
    assert a.status is c.status
    if a.board is not None:
        assert not check_subproblem_solution(sp, a.board)


def test_count_limit_keep_and_time_limit():
    p, _ = emc.generate(3, 3, 1, 2, seed=3)  # 96 solutions under symmetry breaking
    sp = Subproblem.whole(p)
    full = BT.count(sp, keep=5)
    assert full.complete and full.count == 96 and len(full.boards) == 5
    assert len({tuple(b.piece) + tuple(b.rotation) for b in full.boards}) == 5
    part = BT.count(sp, limit=10)
    assert not part.complete and part.count == 10
    for restarts in (True, False):
        for threads in (1, 2):
            res = BT.solve(Subproblem.whole(emc.load("set2-9x9")), time_limit=0.3, threads=threads, restarts=restarts)
            assert res.status is Status.UNKNOWN and res.board is None and res.interrupted


_PROGRESS = re.compile(rf"^({COUNT}) nodes, [\d.]+ M nodes/s(, restart run (\d+))?(, deepest fill (\d+)/81 cells)?$")


@pytest.mark.slow
@pytest.mark.parametrize("threads,restarts", [(1, True), (2, True), (1, False), (2, False)])
def test_progress_lines_count_nodes_as_the_search_goes(threads, restarts):
    lines: list[str] = []
    res = BT.solve(Subproblem.whole(emc.load("set2-9x9")), time_limit=1.5, threads=threads, restarts=restarts,
                   slice_nodes=200_000, on_progress=lines.append)
    assert res.status is Status.UNKNOWN and BT.progress is None  # the callback is dropped after the call
    assert lines
    seen = [_PROGRESS.match(x) for x in lines]
    assert all(seen), lines
    nodes = [counted(m[1]) for m in seen]
    assert nodes == sorted(nodes) and nodes[-1] <= res.stats["nodes"]
    runs = [int(m[3]) for m in seen if m[3]]
    assert (len(runs) == len(lines)) == restarts and runs == sorted(runs)
    # the most cells filled at once only grows, and the statistics end with it
    deepest = [int(m[5]) for m in seen if m[5]]
    assert len(deepest) == len(seen)
    assert 0 < deepest[0] and deepest == sorted(deepest) and deepest[-1] <= res.stats["deepest"] < 81


def test_deepest_counts_the_cells_a_search_filled_at_once():
    """A solved search filled every free cell; a complete search of a puzzle without a
    perfect board never did, and a restart past its deadline fills none."""
    sp = Subproblem.whole(emc.load("set2-5x5"))
    res = BT.solve(sp, seed=2)
    assert res.status is Status.OPTIMAL and res.stats["deepest"] == sp.n_free == 25
    broken = Subproblem.whole(unsolvable(emc.load("set2-5x5")))
    for restarts in (True, False):
        res = BT.solve(broken, restarts=restarts, lookahead=False)
        assert res.status is Status.INFEASIBLE and 0 < res.stats["deepest"] < broken.n_free
    R = Restarts(sp, race_trees(sp, ("rows", "cols"), True), 0, 1000, 10_000)
    kind, s, _ = R.run(1, time.monotonic() - 1.0)
    assert kind == "timeout" and s.nodes == 0 and s.deepest == 0 == R.deepest


def test_counting_reports_solutions_and_nodes():
    lines: list[str] = []
    res = BT.count(Subproblem.whole(emc.load("set2-7x7")), time_limit=1.5, slice_nodes=200_000,
                   on_progress=lines.append)
    assert not res.complete and BT.progress is None and lines
    seen = [re.match(r"^(\d+) solutions?, (.+)$", x) for x in lines]
    assert all(seen) and all(_PROGRESS.match(m[2]) for m in seen), lines
    counts = [int(m[1]) for m in seen]
    assert counts == sorted(counts) and counts[-1] <= res.count


def test_count_text():
    assert [count_text(n) for n in (0, 812, 45_300, 12_400_000, 3_210_000_000)] == [
        "0", "812", "45.3 thousand", "12.4 million", "3.21 billion"]


def test_optimisation_is_refused():
    p = emc.load("set2-3x3")
    with pytest.raises(emc.InputError, match="does not support optimisation"):
        BT.solve(Subproblem.whole(p, Goal.OPTIMISATION))
    with pytest.raises(emc.InputError, match="unknown option"):
        BT.solve(Subproblem.whole(p), colour="red")
    with pytest.raises(emc.InputError, match="unknown scan"):
        BT.solve(Subproblem.whole(p), scan="spiral")
    with pytest.raises(emc.InputError, match="restart_nodes of backend 'backtrack' must be at least 1"):
        BT.solve(Subproblem.whole(p), restart_nodes=0)
    with pytest.raises(emc.InputError, match="restarts of backend 'backtrack' is true or false, not 'nope'"):
        BT.solve(Subproblem.whole(p), restarts="nope")


def test_options_that_would_change_nothing_are_refused():
    sp = Subproblem.whole(emc.load("set2-4x4"))
    for idle in ({"order": "pairs"}, {"pick": False}, {"restart_nodes": 1000}):
        with pytest.raises(emc.InputError, match=f"{next(iter(idle))} of backend backtrack would have no effect: "
                                                 "they set the restarts"):
            BT.solve(sp, restarts=False, **idle)
        with pytest.raises(emc.InputError, match="no effect: a count is one complete search"):
            BT.count(sp, **idle)
        assert BT.solve(sp, **idle).status is Status.OPTIMAL  # with the restarts they count
    with pytest.raises(emc.InputError, match=r"option\(s\) race, restarts of backend backtrack"):
        BT.count(sp, race=False, restarts=True)
    # what a count does use still goes
    assert BT.count(sp, scan="cols", lookahead=False).count == BT.count(sp).count == 12


def _mirrored(puzzle: emc.Puzzle, piece: int) -> emc.Puzzle:
    """The puzzle with one inner piece mirrored (left and right sides swapped): the colour
    counts stay the same, so only the search can tell whether a perfect board is left."""
    pieces = puzzle.pieces.copy()
    pieces[piece, [1, 3]] = pieces[piece, [3, 1]]
    return emc.Puzzle(puzzle.width, puzzle.height, pieces, (), f"{puzzle.name}-mirrored{piece}")


@pytest.mark.slow
@pytest.mark.parametrize("piece,feasible", [(19, False), (22, False), (20, True)])
def test_tiny_restarts_agree_with_the_complete_search(piece, feasible):
    """With a unit of 100 nodes, infeasibility is only proven once Luby's runs outgrow a tree
    (set 2's 6x5 with piece 20 or 23 mirrored (0-based 19, 22) has no perfect board: about 76,000 nodes)."""
    p = _mirrored(emc.load("set2-6x5"), piece)
    sp = Subproblem.whole(p)
    complete = BT.solve(sp, restarts=False)
    assert (complete.status is Status.OPTIMAL) == feasible
    for threads in (1, 2):
        res = BT.solve(sp, restart_nodes=100, threads=threads)
        assert res.status is complete.status
        if feasible:
            assert emc.verify(p, res.board).solved
        else:
            assert res.board is None and res.stats["runs"] > 100


def _estimate_cases():
    sp = Subproblem.whole(emc.load("set2-5x5"))
    for scan in ("rows", "cols"):
        plan = make_plan(sp, scan)
        for piece, positions in race_pins(sp, plan.order)[:2]:
            yield f"5x5-{scan}-{piece}", plan, piece, positions
    for spec in ("rows:1-3", "r2c2-r4c5", "frame"):  # regions: fixed neighbours, budgets net of them
        p, b, free = _region(2, spec)
        yield f"region-{spec}", make_plan(Subproblem.region(p, b, free, Goal.FEASIBILITY)), -1, None


@pytest.mark.parametrize("case", list(_estimate_cases()), ids=lambda c: c[0])
def test_tree_estimate_agrees_with_the_complete_search(case):
    _, plan, piece, positions = case
    exact = _complete(plan, piece, positions)
    est = Search(plan, piece, positions).estimate(probes=20_000, seed=3)
    assert abs(est.nodes - exact.nodes) <= 4 * est.stderr + 0.01 * exact.nodes
    assert est.per_depth.sum() == pytest.approx(est.nodes)


def test_tree_estimate_of_one_free_cell_is_exact():
    p, b, free = _region(4, "r3c3")
    plan = make_plan(Subproblem.region(p, b, free, Goal.FEASIBILITY))
    exact = _complete(plan)
    est = Search(plan).estimate(probes=5, seed=0)
    assert exact.nodes >= 1 and est.nodes == exact.nodes and est.stderr == 0


def test_tree_estimate_is_reproducible_and_leaves_the_search_untouched():
    sp = Subproblem.whole(emc.load("set2-6x6"))
    plan = make_plan(sp)
    piece, positions = race_pins(sp)[0]
    s = Search(plan, piece, positions)
    a, b = s.estimate(2_000, seed=7), s.estimate(2_000, seed=7)
    assert a.nodes == b.nodes and np.array_equal(a.per_depth, b.per_depth)
    assert s.estimate(2_000, seed=8).nodes != a.nodes
    assert np.array_equal(s.used, ~plan.allowed) and np.array_equal(s.budget, plan.budget)
    s.step(100_000, 1)
    with pytest.raises(RuntimeError):
        s.estimate(10)


def _all_solutions(plan, piece=-1, positions=None):
    s = _complete(plan, piece, positions, keep=50_000)  # a 7x5's three free rows can hold 8,000
    assert s.solutions <= 50_000
    return s.nodes, {tuple(s.sol_piece[k]) + tuple(s.sol_rot[k]) for k in range(s.solutions)}


def test_lookahead_chains_are_the_rows_or_columns():
    sp = Subproblem.whole(emc.load("set2-4x4"))
    for scan in ("rows", "cols"):
        plan = make_plan(sp, scan)
        assert plan.chain_end.tolist() == [3, -1, -1, -1, 7, -1, -1, -1, 11, -1, -1, -1, 15, -1, -1, -1]
        assert (make_plan(sp, scan, lookahead=False).chain_end == -1).all()
    # a row under empty cells outside the sub-problem: its tops are "any colour", so no chain
    p, b, _ = _region(8, "all")
    partial = b.copy()
    partial.clear(parse_cells("rows:3-5", p))
    pieces = np.setdiff1d(np.arange(p.n_pieces), partial.piece[partial.piece >= 0])
    assert (make_plan(Subproblem(p, partial, parse_cells("rows:4", p), pieces, Goal.FEASIBILITY)).chain_end == -1).all()
    row3 = make_plan(Subproblem(p, partial, parse_cells("rows:3", p), pieces, Goal.FEASIBILITY))
    assert row3.chain_end.tolist() == [6, -1, -1, -1, -1, -1, -1]  # tops fixed by row 2: one chain


@pytest.mark.parametrize("name", ["set2-5x5", "set2-6x5"])
def test_lookahead_keeps_every_solution_of_whole_puzzles(name):
    sp = Subproblem.whole(emc.load(name))
    for scan in ("rows", "cols"):
        on, off = make_plan(sp, scan), make_plan(sp, scan, lookahead=False)
        piece, positions = race_pins(sp, on.order)[0]
        n_on, sols_on = _all_solutions(on, piece, positions)
        n_off, sols_off = _all_solutions(off, piece, positions)
        assert sols_on == sols_off and sols_on
        assert n_on < n_off  # the look-ahead only cuts branches, and here it does


@given(st.integers(0, 10_000), st.sampled_from(["inner", "rows:2-4", "r2c2-r4c5", "cols:1-3+rows:5", "frame",
                                                "r1c1,r2c2,r3c3", "rows:1+rows:3", "row3-", "cols:2-"]),
       st.sampled_from(["rows", "cols"]))
@example(1058, "rows:2-4", "rows")  # 8,064 solutions: more than the test once kept
@settings(max_examples=40, deadline=None)
def test_lookahead_keeps_every_solution_of_sub_problems(seed, spec, scan):
    """Regions with fixed neighbours, and partial boards whose free cells border empty cells
    (``row3-``: rows 3 to 5 cleared, row 3 free; ``cols:2-``: columns 2 to 7 cleared, column 2
    free), in both scan orders: the look-ahead finds the same solutions in no more nodes."""
    p, b = emc.generate(7, 5, 3, 4, seed=seed)
    if spec in ("row3-", "cols:2-"):
        partial = b.copy()
        partial.clear(parse_cells("rows:3-5" if spec == "row3-" else "cols:2-7", p))
        pieces = np.setdiff1d(np.arange(p.n_pieces), partial.piece[partial.piece >= 0])
        sp = Subproblem(p, partial, parse_cells("rows:3" if spec == "row3-" else "cols:2", p), pieces, Goal.FEASIBILITY)
    else:
        sp = Subproblem.region(p, b, parse_cells(spec, p), Goal.FEASIBILITY)
    n_on, sols_on = _all_solutions(make_plan(sp, scan))
    n_off, sols_off = _all_solutions(make_plan(sp, scan, lookahead=False))
    assert sols_on == sols_off and sols_on  # the planted board is one
    assert n_on <= n_off


@pytest.mark.parametrize("spec", ["inner", "rows:2-4", "cols:1-3+rows:5"])
@pytest.mark.parametrize("scan", ["rows", "cols"])
def test_lookahead_reads_used_pieces_the_same_from_a_word_or_an_array(spec, scan):
    """With at most 64 pieces the look-ahead reads the used pieces from one 64-bit word,
    otherwise from the array: padding the array past 64 entries (pieces that do not exist,
    marked used) switches paths and must leave the tree exactly as it was."""
    p, b = emc.generate(7, 5, 3, 4, seed=11)
    plan = make_plan(Subproblem.region(p, b, parse_cells(spec, p), Goal.FEASIBILITY), scan)
    word = _complete(plan, keep=100)
    s = Search(plan, keep=100)
    s.used = np.concatenate([s.used, np.ones(70, dtype=np.bool_)])
    while not s.done:
        s.step(10_000_000, 0)
    assert (word.nodes, word.solutions) == (s.nodes, s.solutions) and word.solutions >= 1
    k = min(word.solutions, 100)
    assert np.array_equal(word.sol_piece[:k], s.sol_piece[:k]) and np.array_equal(word.sol_rot[:k], s.sol_rot[:k])


def _reference_tree(plan, piece=-1, positions=None):
    """(nodes, solutions) of a complete search spelled with the kernel's reference pieces,
    :func:`lookahead` and :func:`admissible`, one candidate at a time in Python: the tree
    :func:`run` must visit with its own written-out copy of the look-ahead."""
    from emc.backends import _backtrack_kernel as K

    s = Search(plan, piece, positions)
    S, D, used, budget = plan.S, s.D, s.used, s.budget
    n, C1 = len(plan.order), plan.C1
    lsh = 16 if plan.side == 1 else 24
    count = [0, 0]

    def visit(d):
        if d == n:
            count[1] += 1
            return
        ts, ls = S[d, K.F_TOP_SRC], S[d, K.F_LEFT_SRC]
        t = S[d, K.F_TOP_FIX] if ts < 0 else D[ts, K.G_BOTTOM]
        lf = S[d, K.F_LEFT_FIX] if ls < 0 else D[ls, K.G_RIGHT]
        kk = (S[d, K.F_TYPE] * C1 + t) * C1 + lf
        last = S[d, K.F_CHAIN_END]
        if last >= 0 and not K.lookahead(d, last, plan.side, S, D, C1, plan.la_start, plan.la_cand, used, False,
                                         np.int64(0)):
            return
        rs, bs = S[d, K.F_RIGHT_SLOT], S[d, K.F_BOTTOM_SLOT]
        check_pin = s.pin_piece >= 0 and d <= s.pin_last
        pinned_here = check_pin and d == s.pin_last and not used[s.pin_piece]
        for i in range(plan.start[kk], plan.start[kk + 1]):
            cv = int(plan.cand[i])
            if not (D[d, K.G_LOOK] >> ((cv >> lsh) & 0xFF)) & 1:
                continue
            if not K.admissible(cv, d, used, check_pin, pinned_here, s.pin_piece, s.first_ok, rs, bs, budget):
                continue
            p, cr, cb = cv & 0xFFFF, (cv >> 16) & 0xFF, cv >> 24
            count[0] += 1
            used[p] = True
            D[d, K.G_RIGHT], D[d, K.G_BOTTOM] = cr, cb
            for slot, c in ((rs, cr), (bs, cb)):
                if slot >= 0:
                    budget[slot + c] -= 1
            visit(d + 1)
            used[p] = False
            for slot, c in ((rs, cr), (bs, cb)):
                if slot >= 0:
                    budget[slot + c] += 1

    visit(0)
    return tuple(count)


def _written_out_cases():
    cases = list(_estimate_cases())  # the first is set 2's 5x5, rows, a corner piece pinned; then regions
    return cases[:1] + [c for c in cases if c[0].startswith("region")]


@pytest.mark.parametrize("case", _written_out_cases(), ids=lambda c: c[0])
def test_the_kernels_written_out_lookahead_is_the_functions(case):
    """run() spells the row look-ahead out instead of calling :func:`lookahead` (for speed);
    its complete trees must be exactly those the function and :func:`admissible` define."""
    _, plan, piece, positions = case
    fast = _complete(plan, piece, positions)
    assert (fast.nodes, fast.solutions) == _reference_tree(plan, piece, positions)
    assert fast.nodes > 100 and (plan.chain_end >= 0).any()


def test_lookahead_option_of_the_backend():
    sp = Subproblem.whole(emc.load("set2-6x6"))
    on = BT.count(sp)
    off = BT.count(sp, lookahead=False)
    assert on.count == off.count == 40  # the README's figure; 3x3-5x5 counts are checked against sat and cpsat
    res = BT.solve(sp, lookahead=False, seed=3)
    assert res.status is Status.OPTIMAL and emc.verify(sp.puzzle, res.board).solved


@pytest.mark.slow
@pytest.mark.parametrize("threads,restarts", [(1, True), (2, True), (1, False), (2, False)])
def test_an_unanswered_search_keeps_its_deepest_partial_fill(threads, restarts):
    sp = Subproblem.whole(emc.load("set2-8x8"))
    res = BT.solve(sp, time_limit=1, threads=threads, restarts=restarts)
    assert res.status is Status.UNKNOWN and res.board is None and res.partial is not None
    b = res.partial
    assert int((b.piece >= 0).sum()) == res.stats["deepest"] > 0
    assert not check_subproblem_solution(sp, b, allow_empty=True)
    # every edge between two filled cells matches; the unmatched ones all touch an empty cell
    assert all(m.colour_a < 0 or m.colour_b < 0 for m in mismatches(sp.puzzle, b))


def test_a_sub_problem_partial_fill_keeps_the_fixed_cells():
    p, b, _ = _region(8, "all")
    sp = Subproblem.region(p, b, parse_cells("rows:2-6", p), Goal.FEASIBILITY)
    s = Search(make_plan(sp))
    s.step(50, 1)  # a few nodes: a partial fill, no board yet
    assert s.solutions == 0 and 0 < s.deepest < sp.n_free
    board = _board_from(sp, *s.partial(p.n_cells))
    assert not check_subproblem_solution(sp, board, allow_empty=True)
    outside = ~sp.free_mask
    assert np.array_equal(board.piece[outside], b.piece[outside])
    assert int((board.piece[sp.free] >= 0).sum()) == s.deepest


def test_partial_fill_check_refuses_a_mismatch_between_filled_cells():
    p, b, _ = _region(8, "all")
    sp = Subproblem.whole(p)
    part = b.copy()
    part.clear(parse_cells("rows:4-6", p))
    assert not check_subproblem_solution(sp, part, allow_empty=True)
    assert "left empty" in check_subproblem_solution(sp, part)[0]
    # swap two inner pieces of the filled part: the edges between them and their neighbours break
    c1, c2 = p.cell_of(1, 1), p.cell_of(1, 3)
    bad = part.copy()
    bad.piece[c1], bad.piece[c2] = part.piece[c2], part.piece[c1]
    problems = check_subproblem_solution(sp, bad, allow_empty=True)
    assert problems and problems[0].startswith("partial fill matches")


def test_race_false_searches_one_tree_and_pick_false_never_picks():
    """`-O race=false` searches one tree instead of racing the eight (rows/columns x four
    pinned corner pieces); `-O pick=false` keeps the restarts on the drawn trees."""
    from emc.backends.backtrack import Restarts, race_trees
    from emc.model import Goal, Subproblem

    sp = Subproblem.whole(emc.load("set2-5x5"), Goal.FEASIBILITY)
    bt = get_backend("backtrack")
    for race, searches in ((True, 8), (False, 1)):
        res = bt.solve(sp, time_limit=60, threads=1, restarts=False, race=race)
        assert res.status is Status.OPTIMAL and res.stats["searches"] == searches, (race, res.stats)
    trees = race_trees(sp, ("rows", "cols"), True)
    assert len(trees) == 8
    assert Restarts(sp, trees, 0, 1000, 1000, pick=False).pick_after is None
    assert Restarts(sp, trees, 0, 1000, 1000).pick_after is not None


def test_an_infeasible_region_carries_no_partial_fill():
    """A partial fill is kept for UNKNOWN answers (time limit, Ctrl-C), to look at; a region
    proven infeasible has none to show."""
    from helpers import unsolvable

    from emc.model import Goal, Subproblem

    sp = Subproblem.whole(unsolvable(emc.load("set2-4x4")), Goal.FEASIBILITY)
    res = get_backend("backtrack").solve(sp, time_limit=60, threads=1, restarts=False)
    assert res.status is Status.INFEASIBLE and res.partial is None and res.board is None
