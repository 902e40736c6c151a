"""The ColorPair constraint search (seed 002) against brute force, the other counting backends,
and its own bookkeeping."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import emc
from emc.backends import Status, get_backend
from emc.backends import colorpair as CP
from emc.cells import make_subproblem
from emc.generate import generate_uniform
from emc.model import Goal, Subproblem
from emc.score import check_subproblem_solution

from bruteforce import count_solutions, every_fill
from helpers import unsolvable

COLORPAIR = get_backend("colorpair")

#: every filter and search rule switched from its default in turn (and a few together), each must
#: keep every solution
TOGGLES = [{}] + [{k: k in CP.OFF_BY_DEFAULT} for k in CP.SWITCHES] + [
    {"edge_bound": True, "frame_cycle": True, "shaving": False, "backjumping": False},
    {"shaving": False, "backjumping": False},
    {"shaving": False, "patterns": False},
    {"preemption": False, "instantiation": False, "shaving": False},
    {"contradiction": False, "shaving": False},
] + [{"heuristic": h, "patterns": False} for h in CP.HEURISTICS]


def _id(opts: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in opts.items()) or "defaults"


def fixed_corners(n: int, k: int, seed: int) -> Subproblem:
    """Seed 002's kind of instance: a uniform puzzle with its four corner pieces where the
    planted board has them."""
    p, planted = generate_uniform(n, n, k, seed=seed)
    return make_subproblem(p, "all~corners", planted)


# ------------------------------------------------------------------------- against brute force
TINY = {
    "set2-3x3": lambda: emc.load("set2-3x3"),
    "set2-4x3": lambda: emc.load("set2-4x3"),
    "gen-4x3-f2-i2-s4": lambda: emc.generate(4, 3, 2, 2, seed=4)[0],
    "uniform-4x4-k3-s2": lambda: generate_uniform(4, 4, 3, seed=2)[0],
    "uniform-4x4-k3-s5": lambda: generate_uniform(4, 4, 3, seed=5)[0],
}


@pytest.mark.parametrize("opts", TOGGLES, ids=_id)
@pytest.mark.parametrize("case", sorted(TINY))
def test_no_filter_loses_a_solution_of_a_whole_puzzle(case, opts):
    """Each filter, each search rule and each heuristic, on or off: the count is brute force's,
    with and without symmetry breaking, and every kept board is a solution (the base class checks
    it again)."""
    p = TINY[case]()
    for sym in (True, False):
        want = count_solutions(p, symmetry=sym)
        res = COLORPAIR.count(Subproblem.whole(p, symmetry_breaking=sym), keep=50, **opts)
        assert res.complete and res.count == want, (case, sym, opts, res.count, want)
        assert len(res.boards) == min(want, 50) and all(emc.verify(p, b).solved for b in res.boards)
        assert len({(b.piece.tobytes(), b.rotation.tobytes()) for b in res.boards}) == len(res.boards)


def test_the_tiny_cases_are_not_trivial():
    counts = [count_solutions(TINY[c](), symmetry=True) for c in sorted(TINY)]
    assert min(counts) >= 1 and max(counts) > 10 and 0 in [count_solutions(unsolvable(TINY["set2-4x3"]()))]


def _region(data, planted_cases=((4, 4, 2), (5, 4, 2), (4, 3, 3), (5, 5, 3))):
    """A random small sub-problem of a uniform puzzle: free cells anywhere (frame and inside),
    sometimes an empty cell outside it (a hole), a spare piece, or a foreign piece swapped in."""
    w, h, k = data.draw(st.sampled_from(planted_cases))
    P, planted = generate_uniform(w, h, k, seed=data.draw(st.integers(0, 50)))
    n = P.n_cells
    free = sorted(data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=5, unique=True)))
    board = planted.copy()
    rest = [c for c in range(n) if c not in free]
    pieces = [int(board.piece[c]) for c in free]
    if data.draw(st.booleans()):
        board.clear([data.draw(st.sampled_from(rest))])
    filled = [c for c in rest if board.piece[c] >= 0]
    if filled and data.draw(st.booleans()):
        spare = data.draw(st.sampled_from(filled))
        pieces.append(int(board.piece[spare]))
        board.clear([spare])
    filled = [c for c in rest if board.piece[c] >= 0]
    if filled and data.draw(st.booleans()):
        o = data.draw(st.sampled_from(filled))
        f = free[0]
        pieces = [q for q in pieces if q != board.piece[f]] + [int(board.piece[o])]
        board.piece[[f, o]] = board.piece[[o, f]]
    return Subproblem.region(P, board, free, Goal.FEASIBILITY, pieces=pieces)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_sub_problem_counts_equal_brute_force_with_every_filter_toggled(data):
    """Fixed cells, holes (empty cells outside the sub-problem), spare pieces, pieces that fit
    nowhere: every setting counts what brute force counts, and solves when there is a fill."""
    sp = _region(data)
    want = sum(sp.score(b) == sp.max_score for *_, b in every_fill(sp))
    opts = data.draw(st.sampled_from(TOGGLES))
    res = COLORPAIR.count(sp, keep=want + 1, **opts)
    assert res.complete and res.count == want, (opts, res.count, want)
    assert all(not check_subproblem_solution(sp, b) for b in res.boards)
    solved = COLORPAIR.solve(sp, seed=data.draw(st.integers(0, 3)), **{k: v for k, v in opts.items()})
    assert solved.status is (Status.OPTIMAL if want else Status.INFEASIBLE)


# ------------------------------------------------------------------------- against the other backends
AGREE = {
    "set2-4x4": lambda: Subproblem.whole(emc.load("set2-4x4")),
    "set2-5x5": lambda: Subproblem.whole(emc.load("set2-5x5")),
    "uniform-5x5-k4-corners": lambda: fixed_corners(5, 4, 3),
    "uniform-6x6-k5-corners": lambda: fixed_corners(6, 5, 1),
    "set2-6x6-region": lambda: make_subproblem(emc.load("set2-6x6"), "r2c2-r4c5", _planted("set2-6x6")),
}


def _planted(name: str):
    """A solution of a shipped puzzle (backtrack finds one)."""
    return get_backend("backtrack").solve(Subproblem.whole(emc.load(name)), seed=0).board


@pytest.mark.parametrize("case", sorted(AGREE))
def test_counts_equal_backtrack_cpsat_and_sat(case):
    sp = AGREE[case]()
    mine = COLORPAIR.count(sp)
    assert mine.complete and mine.count >= 1
    for other in ("backtrack", "cpsat", "sat"):
        b = get_backend(other)
        if not b.available():
            continue
        theirs = b.count(sp, time_limit=300)
        assert theirs.complete and theirs.count == mine.count, (other, theirs.count, mine.count)


@pytest.mark.slow
@pytest.mark.parametrize("n,k,seed", [(7, 6, 10), (8, 8, 7), (9, 10, 7)])
def test_counts_equal_backtrack_on_benchmark_instances(n, k, seed):
    """Instances of the seed-002 benchmark that the backtracker counts in seconds."""
    sp = fixed_corners(n, k, seed)
    mine = COLORPAIR.count(sp)
    theirs = get_backend("backtrack").count(sp)
    assert mine.complete and theirs.complete and mine.count == theirs.count
    assert mine.stats["nodes"] < theirs.stats["nodes"]


def test_rectangular_whole_puzzles_split_the_pinned_corner_between_two_searches():
    """A rectangle's first corner piece may take either top corner: two searches, whose counts
    add up to the others' count."""
    p = emc.load("set2-5x4")
    res = COLORPAIR.count(Subproblem.whole(p), keep=5)
    assert res.stats["searches"] == 2
    assert res.count == get_backend("backtrack").count(Subproblem.whole(p)).count


# ------------------------------------------------------------------------- the sets, step by step
def _check_state(s: CP.Search) -> None:
    """The incremental sets equal what the board says: the offers are the unplaced allowed
    pieces showing each pair, the demands the empty cells whose known sides make each pair,
    the frontier the empty free cells with two known sides, the counters right."""
    K, CS, PT, PC, X = s.K, s.CS, s.PT, s.PC, s.X
    P = s.plan.sp.puzzle
    C = s.plan.C
    pieces_on = {int(t) for t in CS[:, K.C_PIECE] if t >= 0}
    for p in range(s.plan.n_pairs):
        a, size = int(PT[p, K.P_OSTART]), int(PT[p, K.P_OSIZE])
        block = X[s.at["OELEM"] + a:s.at["OELEM"] + a + int(PT[p, K.P_OCAP])]
        assert set(block[:size].tolist()) == set(block.tolist()) - pieces_on, p
        for i, t in enumerate(block):
            assert PC[t, K.Q_L0 + X[s.at["OMJ"] + a + i]] == a + i and PC[t, K.Q_M0 + X[s.at["OMJ"] + a + i]] == p
        nbpre = sum(1 for t in block[:size] if PC[t, K.Q_PREBY] not in (-1, p))
        assert PT[p, K.P_NBPRE] == nbpre, p
    want_demand: dict[int, set[int]] = {}
    for c in np.flatnonzero(CS[:, K.C_FREE]):
        if CS[c, K.C_PIECE] >= 0:
            continue
        known = CS[c, K.C_K0:K.C_K0 + 4]
        for s_ in range(4):
            nb = P.neighbours[c, s_]
            if nb < 0:
                assert known[s_] == 0
            elif CS[nb, K.C_PIECE] >= 0:
                assert known[s_] == P.colours[CS[nb, K.C_PIECE], CS[nb, K.C_ROT], (s_ + 2) % 4]
            else:
                assert known[s_] == -1
        assert CS[c, K.C_NK] == (known >= 0).sum()
        assert (CS[c, K.C_FLOC] >= 0) == (CS[c, K.C_NK] >= 2)
        slots = [(j, (j + 1) % 4) for j in range(4)] + ([(0, 2), (1, 3)] if X[K.CF_OPP] else [])
        for j, (a, b) in enumerate(slots):
            if known[a] >= 0 and known[b] >= 0:
                cls = P.cell_class[c]
                raw = ((cls * C + known[a]) * C + known[b] if j < 4 else
                       3 * C * C + (cls * C + min(known[a], known[b])) * C + max(known[a], known[b]))
                p = s.plan.tables["CMAP"][raw]
                if p >= 0:
                    want_demand.setdefault(int(p), set()).add(int(c))
    for p in range(s.plan.n_pairs):
        d0, d = int(PT[p, K.P_DSTART]), int(PT[p, K.P_DSIZE])
        cells = [int(m) // 6 for m in X[s.at["DELEM"] + d0:s.at["DELEM"] + d0 + d]]
        assert len(cells) == len(set(cells)) and set(cells) == want_demand.get(p, set()), p
    assert X[K.ST_DPN] == len(want_demand)
    assert X[K.ST_NFILLED] == sum(1 for c in np.flatnonzero(CS[:, K.C_FREE]) if CS[c, K.C_PIECE] >= 0)


@pytest.mark.parametrize("opts", [{}, {"shaving": False}, {"preemption": False, "opposite_pairs": False}], ids=_id)
def test_the_sets_stay_exact_through_the_search(opts):
    """Stopped every few nodes (between two nodes, after the undo of the last), the offers,
    demands, pre-emption counts and frontier are what the board says they are."""
    sp = fixed_corners(6, 5, 1)
    s = CP.Search(CP.Plan(sp), [], CP.settings_from(opts, counting=True))
    checked = 0
    while not s.done and checked < 300:
        s.step(7)
        _check_state(s)
        checked += 1
    assert checked > 20


# ------------------------------------------------------------------------- the search's figures
def test_statistics_count_what_happened():
    sp = fixed_corners(7, 6, 10)
    on = COLORPAIR.count(sp)
    off = COLORPAIR.count(sp, backjumping=False, shaving=False)
    for k in CP.STAT_NAMES + ("nodes", "nodes_per_second", "free_cells"):
        assert k in on.stats
    assert on.count == off.count
    assert on.stats["shaving_probes"] > 0 and on.stats["forced_instantiation"] > 0
    assert on.stats["preemptions"] > 0 and on.stats["branch_pattern"] > 0
    assert off.stats["shaving_probes"] == off.stats["backjumps"] == off.stats["forced_shaving"] == 0
    assert on.stats["nodes"] < off.stats["nodes"]  # shaving's point
    no_shave = COLORPAIR.count(sp, shaving=False)
    assert no_shave.stats["backjumps"] > 0 and no_shave.stats["nodes_skipped"] >= no_shave.stats["backjumps"]
    assert no_shave.stats["nodes"] <= off.stats["nodes"]


def test_same_inputs_same_run():
    sp = fixed_corners(6, 5, 2)
    a, b = COLORPAIR.count(sp, keep=3), COLORPAIR.count(sp, keep=3)
    strip = lambda d: {k: v for k, v in d.items() if k != "nodes_per_second"}  # noqa: E731
    assert strip(a.stats) == strip(b.stats) and a.boards == b.boards
    p = emc.load("set2-6x6")
    r1, r2 = (COLORPAIR.solve(Subproblem.whole(p), seed=5) for _ in range(2))
    assert r1.board == r2.board and r1.stats["nodes"] == r2.stats["nodes"] and r1.stats["runs"] == r2.stats["runs"]


def test_h_is_the_most_shared_edges_of_the_papers_formula():
    """h(n) of seed 002 section 4.2 (Benoist 2008), piecewise in s = floor(sqrt n), and the
    brute-force most of a few small shapes."""
    for n in range(1, 200):
        s = int(np.sqrt(n))
        r = n - s * s
        paper = 2 * s * (s - 1) + (0 if r == 0 else 2 * r - 1 if r <= s else 2 * r - 2)
        assert CP.h_shared(n) == paper, n
    for n in range(1, 7):  # every set of n cells of a 4x4 grid
        best = 0
        for cells in itertools.combinations(range(16), n):
            cs = set(cells)
            best = max(best, sum((c + 1 in cs and c % 4 < 3) + (c + 4 in cs) for c in cs))
        assert CP.h_shared(n) == best


# ------------------------------------------------------------------------- solve
def test_solve_finds_boards_and_proves_infeasibility():
    p = emc.load("set2-6x6")
    r = COLORPAIR.solve(Subproblem.whole(p), seed=1)
    assert r.status is Status.OPTIMAL and emc.verify(p, r.board).solved and r.stats["runs"] >= 1
    r = COLORPAIR.solve(Subproblem.whole(unsolvable(emc.load("set2-5x5"))), restarts=False)
    assert r.status is Status.INFEASIBLE and r.board is None
    r = COLORPAIR.solve(Subproblem.whole(unsolvable(emc.load("set2-5x5"))), seed=3)
    assert r.status is Status.INFEASIBLE


def test_a_time_limit_ends_with_a_matched_partial_fill():
    sp = Subproblem.whole(emc.load("set2-10x10"))
    seen = []
    r = COLORPAIR.solve(sp, time_limit=1.0, on_partial=seen.append, on_progress=lambda line: None)
    assert r.status is Status.UNKNOWN and r.interrupted and r.partial is not None
    assert not check_subproblem_solution(sp, r.partial, allow_empty=True)
    assert seen and (seen[-1].piece >= 0).sum() <= (r.partial.piece >= 0).sum()
    c = COLORPAIR.count(fixed_corners(7, 5, 2), time_limit=0.5)
    assert not c.complete


def test_count_limit_and_keep():
    sp = fixed_corners(5, 3, 2)  # 304 fills
    full = COLORPAIR.count(sp)
    assert full.complete and full.count > 5
    part = COLORPAIR.count(sp, limit=5, keep=3)
    assert part.count == 5 and not part.complete and len(part.boards) == 3


# ------------------------------------------------------------------------- options
def test_options_are_checked():
    sp = Subproblem.whole(emc.load("set2-3x3"))
    with pytest.raises(emc.InputError, match=r"unknown option\(s\) for backend 'colorpair': shave \(choose from: "
                                             r"backjumping, contradiction"):
        COLORPAIR.count(sp, shave=False)
    with pytest.raises(emc.InputError, match="unknown heuristic 'mindom'.*min-expected-gap"):
        COLORPAIR.count(sp, heuristic="mindom")
    with pytest.raises(emc.InputError, match="option shaving of backend 'colorpair' is true or false"):
        COLORPAIR.solve(sp, shaving="yes")
    with pytest.raises(emc.InputError, match="restarts of backend colorpair would have no effect: a count"):
        COLORPAIR.count(sp, restarts=False)
    with pytest.raises(emc.InputError, match="restart_nodes of backend colorpair would have no effect"):
        COLORPAIR.solve(sp, restarts=False, restart_nodes=10)


def test_count_and_solve_from_the_command_line(cli):
    r = cli("count", "set2-4x4", "-b", "colorpair", "-O", "heuristic=min-offer")
    assert r.code == 0 and "exactly 12 solution(s)  [colorpair" in r.out and "search:" in r.out, r
    r = cli("solve", "set2-5x5", "-b", "colorpair", "-O", "shaving=no")
    assert r.code == 0 and "status OPTIMAL" in r.out, r
    r = cli("count", "set2-4x4", "-b", "colorpair", "-O", "patterns=maybe")
    assert r.code == 2 and r.err.count("\n") == 1 and "true or false" in r.err, r


def test_the_colour_filters_fire_and_keep_every_solution():
    """On set 2's puzzles (frame colours apart from inner ones) the shared-edge bound and the frame
    cycle both find failures, and the counts stay the backtracker's."""
    for name in ("set2-5x5", "set2-6x5"):
        sp = Subproblem.whole(emc.load(name))
        on = COLORPAIR.count(sp, edge_bound=True, frame_cycle=True, shaving=False)
        off = COLORPAIR.count(sp, shaving=False)
        assert on.stats["fail_edge_bound"] > 0 and on.stats["fail_frame_cycle"] > 0
        assert off.stats["fail_edge_bound"] == off.stats["fail_frame_cycle"] == 0
        assert on.count == off.count == get_backend("backtrack").count(sp).count
        assert on.stats["nodes"] < off.stats["nodes"]
