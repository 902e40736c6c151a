"""The edge-slipping backtracker (seed 001): agreement with the exact kernel, an independent
reference search, per-depth counts, saved boards, the estimator's recurrence, groups, orders,
the command line and the registered method."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import emc
from emc.backends.backtrack import Search, make_plan as exact_plan
from emc.heuristics.slip import estimate as E
from emc.heuristics.slip import groups as G
from emc.heuristics.slip.engine import SlipSearch
from emc.heuristics.slip.orders import (ORDER_465, ORDER_468, SLIP_ARRAYS, SlipArray, order_cells, parse_order,
                                        parse_slip_text)
from emc.heuristics.slip.plan import make_plan
from emc.heuristics.slip.schedule import Schedule
from emc.heuristics.slip.search import SlipConfig, slip_search, with_clue_hints
from emc.model import OPPOSITE, Subproblem


def exhaust(search: SlipSearch, limit: int = 10**9) -> list[tuple[emc.Board, int]]:
    """Run a search to its end, keeping every board it hands back (with its slips)."""
    out = []
    while not search.done and search.nodes < limit:
        search.step(10**7)
        if search.found:
            out.append((search.board(), search.found_slips))
    assert search.done
    return out


# ------------------------------------------------------------------ agreement with the exact kernel
@pytest.mark.parametrize("name", ["set2-4x4", "set2-5x5", "set2-6x5"])
def test_zero_slips_visit_the_exact_kernels_nodes_and_boards(name):
    """With an all-zero slip array and the row scan, the slipping kernel is the exact kernel
    (look-ahead, colour budget and pinning off): the same nodes, the same boards in order."""
    P = emc.load(name)
    sp = Subproblem.whole(P)
    ep = exact_plan(sp, "rows", lookahead=False)
    ep = dataclasses.replace(ep, right_slot=np.full_like(ep.right_slot, -1),
                             bottom_slot=np.full_like(ep.bottom_slot, -1))
    ex = Search(ep, keep=10_000)
    while not ex.done:
        ex.step(10**7, 0)
    plan = make_plan(P, order_cells("rows", P))
    s = SlipSearch(plan, np.zeros(plan.n, dtype=np.int64), save_slips=0)
    found = exhaust(s)
    assert ex.solutions > 0
    assert s.nodes == ex.nodes
    assert [b for b, _ in found] == [ex.board(sp, k) for k in range(ex.solutions)]
    assert all(k == 0 for _, k in found)


def test_zero_slips_agree_with_a_hint_in_place():
    """A hint's sides are demands like any other: the same tree as the exact kernel's."""
    P, planted = emc.generate(5, 5, 3, 5, seed=4)
    c = 12
    P = P.with_hints([emc.Hint(c, int(planted.piece[c]), int(planted.rotation[c]))])
    sp = Subproblem.whole(P)
    ep = exact_plan(sp, "rows", lookahead=False)
    ep = dataclasses.replace(ep, right_slot=np.full_like(ep.right_slot, -1),
                             bottom_slot=np.full_like(ep.bottom_slot, -1))
    ex = Search(ep, keep=10_000)
    while not ex.done:
        ex.step(10**7, 0)
    plan = make_plan(P, order_cells("rows", P))
    s = SlipSearch(plan, np.zeros(plan.n, dtype=np.int64), save_slips=0)
    found = exhaust(s)
    assert 0 < ex.solutions == len(found) and s.nodes == ex.nodes
    keep = min(ex.solutions, 10_000)
    assert [b for b, _ in found[:keep]] == [ex.board(sp, k) for k in range(keep)]


# ------------------------------------------------------------------ an independent reference
def reference(P: emc.Puzzle, order: np.ndarray, allow: np.ndarray) -> tuple[int, dict[int, int]]:
    """Plain recursive search by the rule of seed 001: perfect pieces, or, below the allowance,
    pieces mismatching exactly one known side that is not between two frame cells. Returns
    (placements, complete boards by slips)."""
    hinted = {h.cell: h for h in P.hints}
    shown = {h.cell: P.colours[h.piece, h.rotation] for h in P.hints}
    used = {h.piece for h in P.hints}
    frame = P.cell_class > 0
    nodes = 0
    hits: dict[int, int] = {}

    def go(d: int, slips: int) -> None:
        nonlocal nodes
        if d == len(order):
            hits[slips] = hits.get(slips, 0) + 1
            return
        cell = int(order[d])
        for p in range(P.n_pieces):
            if p in used:
                continue
            for r in range(4):
                if not P.fits[p, cell, r]:
                    continue
                col = P.colours[p, r]
                miss, slippable = 0, True
                for s in range(4):
                    nb = int(P.neighbours[cell, s])
                    if nb < 0 or nb not in shown:
                        continue
                    if col[s] != shown[nb][OPPOSITE[s]]:
                        miss += 1
                        slippable = not (frame[cell] and frame[nb])
                if miss == 0 or (miss == 1 and slippable and slips < allow[d]):
                    nodes += 1
                    used.add(p)
                    shown[cell] = col
                    go(d + 1, slips + miss)
                    used.discard(p)
                    del shown[cell]

    assert not set(order.tolist()) & set(hinted)
    go(0, 0)
    return nodes, hits


@pytest.mark.parametrize("name,order,steps", [
    ("set2-3x3", "rows", ((4, 1), (7, 2))),
    ("set2-4x3", "rows-up", ((5, 1), (9, 2), (11, 3))),
    ("set2-4x4", "rows", ((9, 1), (13, 2), (15, 3))),
])
def test_slipping_search_matches_a_plain_reference_search(name, order, steps):
    P = emc.load(name)
    cells = order_cells(order, P)
    plan = make_plan(P, cells)
    allow = SlipArray(steps).allowances(plan.n)
    s = SlipSearch(plan, allow, save_slips=int(allow.max()))
    found = exhaust(s)
    nodes, hits = reference(P, cells, allow)
    assert s.nodes == nodes
    assert {k: int(v) for k, v in enumerate(s.stats.hits) if v} == hits
    assert sum(hits.values()) == len(found)
    for board, k in found:  # every board handed back checks, and scores max - slips
        rep = emc.verify(P, board)
        assert rep.valid and rep.complete and rep.scores["score"] == P.max_score - k
    assert max(hits) >= 1  # slipping found boards the exact search cannot have


def test_per_depth_counts_add_up():
    P = emc.load("set2-5x5")
    plan = make_plan(P, order_cells("rows", P)).shuffled(np.random.default_rng(3))
    allow = SlipArray(((10, 1), (16, 2), (20, 4))).allowances(plan.n)
    s = SlipSearch(plan, allow, save_slips=-1)
    for _ in range(5):
        s.step(200_000)
    st = s.stats
    assert st.visits[0] >= 1
    placed = st.perfect + st.slipped
    assert placed.sum() == s.nodes
    # every placement but the last position's opens the next one (the slice may end just after)
    assert np.all(st.visits[1:] - placed[:-1] <= 0) and np.all(placed[:-1] - st.visits[1:] <= 1)
    assert st.hits.sum() == placed[-1]
    assert np.all(st.slipped[allow == 0] == 0)
    assert np.all(st.slip_visits <= st.visits)


def test_eternity2_boards_are_verified_and_saved(tmp_path):
    """A short Eternity II run with piece 139 (a node budget: the same run each time)."""
    P = emc.load("eternity2")
    arr = SlipArray(tuple((150 + 2 * k, k + 1) for k in range(52)))  # generous: boards within seconds
    r = slip_search(P, SlipConfig(slips=arr, save_score=420), seed=1, node_limit=20_000_000,
                    save_dir=str(tmp_path))
    assert r.best is not None and r.saved
    for f in r.saved:
        doc = json.loads(open(f.path).read())
        board = emc.read_board(f.path, P)
        rep = emc.verify(P, board)
        assert rep.valid and rep.complete and rep.scores["score"] == f.score == doc["score"]
        assert board.piece[8 * 16 + 7] == 138 and board.rotation[8 * 16 + 7] == 2  # piece 139 on I8
        assert len(doc["board_edges"]) == 4 * 256
        assert f.score >= P.max_score - arr.most
    assert len(r.saved) == r.hits_at_least(420) == len(list(tmp_path.iterdir()))
    again = slip_search(P, SlipConfig(slips=arr, save_score=420), seed=1, node_limit=20_000_000)
    assert again.best == r.best and again.nodes == r.nodes
    assert np.array_equal(again.stats.visits, r.stats.visits)


@pytest.mark.slow
def test_threads_search_the_same_way_under_a_node_budget(tmp_path):
    P = emc.load("set2-10x10")
    cfg = SlipConfig(order="rows", slips=SlipArray(((60, 1), (70, 2), (80, 4), (90, 8))), restarts="luby",
                     luby_unit=2_000_000, save_score=P.max_score - 8)
    a = slip_search(P, cfg, seed=5, threads=2, node_limit=40_000_000, stats_path=str(tmp_path / "s.json"))
    b = slip_search(P, cfg, seed=5, threads=2, node_limit=40_000_000)
    assert a.processes == 2 and a.nodes == b.nodes == 40_000_000
    assert np.array_equal(a.stats.hits, b.stats.hits) and a.best_score == b.best_score
    assert json.loads((tmp_path / "s.json").read_text())["nodes"] == a.nodes


# ------------------------------------------------------------------ the estimator
def tree_by_enumeration(p: list[int], h: list[int], allow: list[int]) -> tuple[float, dict[int, int]]:
    """The tree where every node at depth d has exactly p[d] perfect and (below the
    allowance) h[d] slipping children, walked node by node."""
    nodes = 0
    leaves: dict[int, int] = {}

    def go(d: int, s: int) -> None:
        nonlocal nodes
        if d == len(p):
            leaves[s] = leaves.get(s, 0) + 1
            return
        for _ in range(p[d]):
            nodes += 1
            go(d + 1, s)
        if s < allow[d]:
            for _ in range(h[d]):
                nodes += 1
                go(d + 1, s + 1)

    go(0, 0)
    return nodes, leaves


def test_chain_recurrence_matches_enumeration_and_simulation():
    p, h, allow = [2, 1, 2, 1, 3, 1], [0, 1, 2, 1, 1, 2], [0, 1, 1, 2, 2, 3]
    f = E.Factors(np.array(p, float), np.array(h, float))
    nodes, boards = E.chain(f, np.array(allow))
    n_enum, leaves = tree_by_enumeration(p, h, allow)
    assert nodes.sum() == pytest.approx(n_enum)
    assert {k: round(v) for k, v in enumerate(boards) if v} == leaves
    # random branching with the same means: the recurrence is the expectation
    rng = np.random.default_rng(0)
    pf = np.array([0.9, 1.4, 0.7, 1.6, 0.5, 1.2])
    hf = np.array([0.0, 0.8, 0.6, 0.9, 1.1, 0.7])
    f = E.Factors(pf, hf)
    nodes, boards = E.chain(f, np.array(allow))
    tot_nodes, tot_boards = 0, np.zeros(len(boards))
    trials = 20_000
    for _ in range(trials):
        level = {0: 1}
        for d in range(len(pf)):
            nxt: dict[int, int] = {}
            for s, cnt in level.items():
                kp = int(rng.poisson(pf[d], cnt).sum())
                nxt[s] = nxt.get(s, 0) + kp
                tot_nodes += kp
                if s < allow[d]:
                    kh = int(rng.poisson(hf[d], cnt).sum())
                    nxt[s + 1] = nxt.get(s + 1, 0) + kh
                    tot_nodes += kh
            level = nxt
        for s, cnt in level.items():
            tot_boards[s] += cnt
    assert tot_nodes / trials == pytest.approx(nodes.sum(), rel=0.05)
    assert tot_boards.sum() / trials == pytest.approx(boards.sum(), rel=0.08)


def test_estimate_reproduces_measured_factors_and_tune_writes_a_usable_array():
    """Counts from a whole tree: with the same order and array, the estimate's nodes per board
    is that of the counts' own model, and the tuned array is a valid slip array."""
    P = emc.load("set2-5x5")
    cells = order_cells("rows", P)
    plan = make_plan(P, cells)
    arr = SlipArray(((12, 1), (17, 2), (21, 3)))
    s = SlipSearch(plan, arr.allowances(plan.n), save_slips=-1)
    exhaust(s)
    shape = E.order_shape(P, cells)
    f = E.factors_for(s.stats, shape, shape, True)
    pm, hm, pk, hk = E.measured_factors(s.stats)
    assert np.allclose(f.p[pk], pm[pk]) and np.allclose(f.h[hk & (shape.j > 0)], hm[hk & (shape.j > 0)])
    est = E.nodes_per_hit(f, arr.allowances(plan.n), P.max_score)
    assert set(est) == {P.max_score - k for k in range(4)}
    assert all(est[a] <= est[b] for a, b in zip(sorted(est), sorted(est)[1:]))  # lower scores are cheaper
    order, tuned, cost = E.tune(P, s.stats, "rows", P.max_score - 2)
    assert order == "rows" and tuned.most == 2 and np.isfinite(cost)
    assert parse_slip_text(json.dumps(tuned.document())).steps == tuned.steps


# ------------------------------------------------------------------ groups and schedule
def brute_tileability(P: emc.Puzzle, group: np.ndarray) -> int:
    idx = np.flatnonzero(group)
    edges = [tuple(P.colours[p, r]) for p in idx if P.piece_class[p] == 1 for r in range(4) if P.colours[p, r][0] == 0]
    inner = [tuple(P.colours[p, r]) for p in idx if P.piece_class[p] == 0 for r in range(4)]
    count = 0
    for e1 in edges:
        for e2 in edges:
            if e1[1] != e2[3]:
                continue
            for i1 in inner:
                if i1[0] != e1[2]:
                    continue
                for i2 in inner:
                    if i2[0] != e2[2] or i2[3] != i1[1]:
                        continue
                    for i3 in inner:
                        if i3[0] != i1[2]:
                            continue
                        count += sum(1 for i4 in inner if i4[0] == i2[2] and i4[3] == i3[1])
    return count


def test_tileability_counts_the_2x3_patches():
    P = emc.load("set2-6x6")
    rng = np.random.default_rng(2)
    for _ in range(3):
        group = np.zeros(P.n_pieces, bool)
        group[rng.choice(np.flatnonzero(G.candidates(P)), 20, replace=False)] = True
        assert G.tileability(P, group) == brute_tileability(P, group)


def test_hill_climb_improves_and_checkpoints_hold_in_every_board():
    P = emc.load("set2-7x7")
    pool = G.build_pool(P, 0, seed=1, keep=2, size=20, patience=100, climbs=3)
    rng = np.random.default_rng(1)
    start = np.zeros(P.n_pieces, bool)
    start[rng.choice(np.flatnonzero(G.candidates(P)), 20, replace=False)] = True
    assert pool[0].tileability >= G.tileability(P, start)
    assert pool[0].tileability >= pool[1].tileability
    g = pool[0]
    assert (g.classes == G.PRECIOUS).sum() == 5 and (g.classes == G.GOOD).sum() == 15
    checks = (("good", 10, None, 0), ("useless", 30, "all", None))
    lo, hi = G.checkpoint_bounds(g, 49, checks)
    plan = make_plan(P, order_cells("rows", P)).shuffled(np.random.default_rng(4))
    allow = SlipArray(((30, 2), (40, 6))).allowances(plan.n)
    s = SlipSearch(plan, allow, save_slips=6, ctr_mask=g.counter_mask(), lo=lo, hi=hi)
    boards = []
    while not s.done and s.nodes < 30_000_000 and len(boards) < 20:
        s.step(1_000_000)
        if s.found:
            boards.append(s.board())
    assert boards
    order = plan.order
    for b in boards:
        first = b.piece[order[:10]]
        assert not np.isin(g.classes[first], (G.GOOD, G.PRECIOUS)).any()
        assert set(np.flatnonzero(g.classes == G.USELESS)) <= set(b.piece[order[:30]].tolist())


def test_colour_schedule_holds_in_every_board():
    P = emc.load("set2-6x6")
    sched = Schedule((1,), ((12, 6),))
    carriers = sched.carriers(P)
    plan = make_plan(P, order_cells("rows", P))
    allow = SlipArray(((20, 2), (28, 5))).allowances(plan.n)
    s = SlipSearch(plan, allow, save_slips=5, ctr_mask=carriers.astype(np.int64),
                   lo=sched.bounds(plan.n)[None, :], hi=np.full((1, plan.n + 1), plan.n + 1))
    boards = []
    while not s.done and len(boards) < 10:
        s.step(1_000_000)
        if s.found:
            boards.append(s.board())
    assert boards
    for b in boards:
        assert carriers[b.piece[plan.order[:12]]].sum() >= 6


# ------------------------------------------------------------------ orders, hints, files
def test_published_orders_cover_the_board():
    P = emc.load("eternity2-nohint")
    o468 = parse_order(ORDER_468, P)
    o465 = parse_order(ORDER_465, P)
    assert sorted(o468.tolist()) == list(range(256)) == sorted(o465.tolist())
    assert o468[:16].tolist() == list(range(240, 256))  # row P, left to right
    assert o468[191] == 4 * 16 + 15  # the twelfth row filled is E
    assert o468[192] == 3 * 16  # then D1: depth 193, where the 468 array first allows a slip
    assert o468[204:208].tolist() == [3 * 16 + 3, 2 * 16 + 3, 16 + 3, 3]  # column 4 from D up to A
    assert len(order_cells("eii-468", emc.load("eternity2"))) == 255  # I8 left to its hint
    assert SLIP_ARRAYS["eii-468"].allowances(256)[192] == 1 and SLIP_ARRAYS["eii-468"].allowances(256)[191] == 0


def test_clue_hints_fit():
    P = with_clue_hints(emc.load("eternity2"))
    assert len(P.hints) == 5 and not P.structure_problems()
    plan = make_plan(P, order_cells("eii-468", P))
    assert plan.n == 251


def test_bad_files_are_one_line_errors(tmp_path, cli):
    bad = tmp_path / "order.txt"
    bad.write_text("[P1-P16 E1-E16]\nD1-D3 Z9\n")
    r = cli("slip", "run", "eternity2", "--order", str(bad), "-t", "1")
    assert r.code == 2 and f"{bad}:2:" in r.err and "Z9" in r.err
    arr = tmp_path / "slips.txt"
    arr.write_text("193, 1\n202, x\n")
    r = cli("slip", "run", "eternity2", "--slips", str(arr), "-t", "1")
    assert r.code == 2 and f"{arr}:2:" in r.err
    arr.write_text("193, 2, 202, 1\n")
    r = cli("slip", "run", "eternity2", "--slips", str(arr), "-t", "1")
    assert r.code == 2 and "must not fall" in r.err
    r = cli("slip", "estimate", "eternity2", "--stats", str(arr))
    assert r.code == 2 and str(arr) in r.err


def test_cli_run_estimate_tune(tmp_path, cli):
    stats = tmp_path / "stats.json"
    r = cli("slip", "run", "set2-6x6", "--order", "rows", "--slips", "20,1,26,2,30,4", "--nodes", "3000000",
            "--restarts", "luby", "--luby-unit", "100000", "--stats", str(stats), "--save-dir", str(tmp_path / "b"),
            "--json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["best_score"] >= 60 - 4 and doc["nodes"] == 3_000_000
    r = cli("slip", "estimate", "set2-6x6", "--stats", str(stats), "--order", "rows", "--slips", "20,1,26,2,30,4",
            "--json")
    assert r.code == 0, r.err
    est = json.loads(r.out)["nodes_per_board"]
    assert set(est) == {"60", "59", "58", "57", "56"}
    out = tmp_path / "tuned.json"
    r = cli("slip", "tune", "set2-6x6", "--stats", str(stats), "--target", "57", "-o", str(out))
    assert r.code == 0, r.err
    r = cli("slip", "run", "set2-6x6", "--order", "rows", "--slips", str(out), "--nodes", "1000000", "--json")
    assert r.code in (0, 1), r.err


def test_registered_method_returns_a_verified_board():
    P = emc.load("set2-6x6")
    run = emc.heuristics.optimise(P, "slip", seed=2, options={"order": "rows", "slips": "20,1,26,2,30,4",
                                                              "nodes": 3_000_000, "restarts": "luby",
                                                              "luby_unit": 100_000})
    assert emc.verify(P, run.board).valid and run.score == emc.score(P, run.board)
    assert run.score >= P.max_score - 4


@pytest.mark.slow
@pytest.mark.parametrize("threads", ["1", "2"])
def test_ctrl_c_reports_and_keeps_the_boards_found(tmp_path, threads):
    """Ctrl-C once a board is saved: the command reports the best board and exits cleanly, the
    saved files stay, and no search process outlives it."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from helpers import eventually

    boards = tmp_path / "boards"
    env = dict(os.environ, PYTHONPATH=str(Path(emc.__file__).resolve().parent.parent))
    proc = subprocess.Popen([sys.executable, "-m", "emc", "slip", "run", "set2-10x10", "--order", "rows", "--slips",
                             "70,2,80,6,90,12", "--threads", threads, "-t", "300", "--save-dir", str(boards), "--save-score", "168",
                             "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert eventually(lambda: boards.is_dir() and any(boards.iterdir()), timeout=120)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "Traceback" not in err, err
    doc = json.loads(out)
    assert doc["interrupted"] and doc["best_score"] >= 180 - 12 and doc["nodes"] > 0
    P = emc.load("set2-10x10")
    saved = list(boards.iterdir())
    assert saved and all(emc.verify(P, emc.read_board(str(f), P)).valid for f in saved)
    assert doc["best_score"] == max(emc.score(P, emc.read_board(str(f), P)) for f in saved)
