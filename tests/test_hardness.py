"""Generation models of tunable hardness and `emc hardness`: every model's planted board, its
bytes per seed, the balanced models' colour counts, the sweep's medians and peak from its raw
rows (real solvers), the shipped peaks and `--hardest`, and bad input."""

from __future__ import annotations

import collections
import hashlib
import json
import statistics

import pytest

import emc
from emc.formats import format_puzzle
from emc.generate import MODELS, edge_counts, generate_model, hardest_peak, hardness_peaks

PARAMS = {"frame-inner": {"frame_colours": 3, "inner_colours": 5}, "uniform": {"colours": 5},
          "frame-inner-balanced": {"frame_colours": 3, "inner_colours": 5}, "uniform-balanced": {"colours": 5}}


def test_every_model_is_listed_with_parameters_for_these_tests():
    assert set(PARAMS) == set(MODELS)  # a new model needs its golden hash and checks below


@pytest.mark.parametrize("model", list(PARAMS))
@pytest.mark.parametrize("size", [(7, 7), (8, 5), (4, 9), (3, 4)])
def test_every_model_plants_a_board_scoring_the_maximum(model, size):
    w, h = size
    for seed in (1, 2, 3):
        p, planted = generate_model(model, w, h, seed, **PARAMS[model])
        rep = emc.verify(p, planted)
        assert rep.valid and rep.solved, (model, size, seed, rep.problems)
        assert emc.score(p, planted) == p.max_score == w * (h - 1) + h * (w - 1)
        assert p.structure_problems() == []
        prov = p.provenance
        assert prov["generator"] == "emc.generate" and prov["seed"] == seed
        assert prov.get("model", "frame-inner") == model  # frame-inner files keep their old provenance
        assert {k: prov[k] for k in MODELS[model].params} == PARAMS[model]


#: sha256 of the JSON file of seed 4 of each model on a 7x6 board (name and provenance included).
GOLDEN_JSON = {
    "frame-inner": "9d77d4c6ea80a87d68973953906603b72d69265005df59db0eddc67a7f4830f8",
    "uniform": "627e9ba9d11f8bb5f47d08130bcc5230c0e6eb8efec96eb18c9c484910a70bc5",
    "frame-inner-balanced": "d9c22da3d3c0ede188f3eb093f479a2dd324c80a4ea68052de8f01195fa2ad43",
    "uniform-balanced": "178876fe5ae9aad01e3171c76fbb65b6c87f7554647bc29d59e9b3aa77f93349",
}


@pytest.mark.parametrize("model", list(PARAMS))
def test_same_seed_same_bytes_per_model(model):
    a, sa = generate_model(model, 7, 6, 4, **PARAMS[model])
    b, sb = generate_model(model, 7, 6, 4, **PARAMS[model])
    text = format_puzzle(a, "json")
    assert text == format_puzzle(b, "json") and sa == sb
    assert format_puzzle(generate_model(model, 7, 6, 5, **PARAMS[model])[0], "wh") != format_puzzle(a, "wh")
    # If this fails, a seed no longer gives the puzzle users drew before: a breaking change.
    assert hashlib.sha256(text.encode()).hexdigest() == GOLDEN_JSON[model]


def _edge_colours(puzzle, board):
    """The colour of every internal edge of a solved board, split into frame edges (between two
    cells of one frame side) and the others."""
    from emc.generate import _along_frame, _edges

    shown = {}
    for cell in range(puzzle.n_cells):
        piece, rot = int(board.piece[cell]), int(board.rotation[cell])
        sides = [int(puzzle.pieces[piece][(k - rot) % 4]) for k in range(4)]  # N E S W as placed
        shown[divmod(cell, puzzle.width)] = sides
    frame, other = [], []
    for r1, c1, r2, c2 in _edges(puzzle.width, puzzle.height):
        a = shown[(r1, c1)][1 if r1 == r2 else 2]
        b = shown[(r2, c2)][3 if r1 == r2 else 0]
        assert a == b  # a solved board: both sides of the edge agree
        (frame if _along_frame(r1, c1, r2, c2, puzzle.width, puzzle.height) else other).append(a)
    return frame, other


@pytest.mark.parametrize("size", [(7, 7), (9, 4), (5, 3)])
def test_balanced_models_use_each_colour_equally_often_give_or_take_one(size):
    w, h = size
    n_frame, n_other = edge_counts(w, h)
    for seed in (1, 7):
        p, planted = generate_model("frame-inner-balanced", w, h, seed, frame_colours=3, inner_colours=4)
        frame, other = _edge_colours(p, planted)
        assert (len(frame), len(other)) == (n_frame, n_other)
        for colours, wanted in ((frame, {1, 2, 3}), (other, {4, 5, 6, 7})):
            counts = collections.Counter(colours)
            assert set(counts) == wanted  # every colour of the set, no other
            assert max(counts.values()) - min(counts.values()) <= 1, counts
        q, planted = generate_model("uniform-balanced", w, h, seed, colours=5)
        counts = collections.Counter(sum(_edge_colours(q, planted), []))
        assert set(counts) == {1, 2, 3, 4, 5} and max(counts.values()) - min(counts.values()) <= 1, counts
    # the unbalanced draw of the same counts is not so even (what the balanced model is for)
    p, planted = generate_model("uniform", 9, 9, 1, colours=5)
    counts = collections.Counter(sum(_edge_colours(p, planted), []))
    assert max(counts.values()) - min(counts.values()) > 1


def test_impossible_counts_are_refused():
    with pytest.raises(emc.InputError, match="cannot show each of 9 frame colours"):
        generate_model("frame-inner-balanced", 3, 3, 1, frame_colours=9, inner_colours=2)  # 8 frame edges
    with pytest.raises(emc.InputError, match="has 0 inner edges"):
        generate_model("frame-inner-balanced", 2, 2, 1, frame_colours=2, inner_colours=1)
    with pytest.raises(emc.InputError, match="uniform-balanced"):
        generate_model("frame-inner-balanced", 5, 5, 1, frame_colours=0, inner_colours=4)
    with pytest.raises(emc.InputError, match="has 4 internal edges"):
        generate_model("uniform-balanced", 2, 2, 1, colours=5)
    with pytest.raises(emc.InputError, match="model uniform-balanced takes --colours; missing --colours"):
        generate_model("uniform-balanced", 5, 5, 1)
    with pytest.raises(emc.InputError, match="--inner-colours belongs to another model"):
        generate_model("uniform-balanced", 5, 5, 1, colours=3, inner_colours=4)
    with pytest.raises(emc.InputError, match="too small"):
        generate_model("uniform-balanced", 1, 5, 1, colours=3)


def test_first_moment_estimate_puts_eternity_ii_near_one_solution():
    """Eternity II's 5 frame and 17 inner colours were chosen where a random puzzle expects about
    one solution; one inner colour more and it expects none."""
    from emc.hardness import expected_log10_solutions as e

    assert abs(e(16, 16, "frame-inner", {"frame_colours": 5, "inner_colours": 17})) < 2
    assert e(16, 16, "frame-inner", {"frame_colours": 5, "inner_colours": 18}) < -5
    # one set: frame-inner without frame colours is uniform
    assert e(7, 7, "uniform", {"colours": 5}) == e(7, 7, "frame-inner", {"frame_colours": 0, "inner_colours": 5})


# ----------------------------------------------------------------------------- the sweep
def _check_sweep(result, grid, seeds):
    rows = result["rows"]
    assert len(rows) == len(grid) * len(seeds)
    assert all(r["planted_verified"] for r in rows)
    assert [p["params"] for p in result["points"]] == grid
    for pt in result["points"]:  # the medians, recomputed from the raw rows
        costs = [r["cost"] for r in rows if r["params"] == pt["params"]]
        assert pt["costs"] == costs and pt["median"] == statistics.median(costs)
        assert pt["timeouts"] == sum(r["timed_out"] for r in rows if r["params"] == pt["params"])
    medians = [p["median"] for p in result["points"]]
    assert result["peak"]["median"] == max(medians)
    assert result["peak"]["params"] == result["points"][medians.index(max(medians))]["params"]


def test_sweep_with_the_scan_row_search_counts_nodes():
    from emc.hardness import sweep

    grid = [{"colours": 2}, {"colours": 4}, {"colours": 7}]
    result = sweep(5, 5, "uniform", grid, [1, 2, 3], "backtrack", 60)
    _check_sweep(result, grid, [1, 2, 3])
    assert result["cost"] == "nodes" and all(r["status"] == "solved" and r["nodes"] > 0 for r in result["rows"])
    # node counts are the search's own, the same on every run
    again = sweep(5, 5, "uniform", grid[:1], [1], "backtrack", 60)
    assert again["rows"][0]["nodes"] == result["rows"][0]["nodes"]
    # every puzzle is the one `emc generate` draws
    assert result["rows"][4]["puzzle_sha256"] == generate_model("uniform", 5, 5, 2, colours=4)[0].sha256


@pytest.mark.parametrize("measure", ["cadical", "kissat"])
def test_sweep_with_sat_solvers_on_emcs_cnf(measure):
    from emc.hardness import sweep

    grid = [{"frame_colours": 2, "inner_colours": 3}, {"frame_colours": 2, "inner_colours": 5}]
    result = sweep(5, 4, "frame-inner-balanced", grid, [1, 2], measure, 60)
    _check_sweep(result, grid, [1, 2])
    assert result["solver"] == {"cadical": "cadical195", "kissat": "kissat404"}[measure]
    assert all(r["status"] == "solved" and 0 <= r["cost"] <= r["seconds"] for r in result["rows"])
    if measure == "cadical":  # CaDiCaL reports its search; Kissat through PySAT does not
        assert all(r["conflicts"] >= 0 for r in result["rows"])


def test_a_stopped_solve_counts_at_the_limit_and_flags_the_median():
    from emc.hardness import summarise

    rows = [{"params": {"colours": 6}, "seed": s, "cost": c, "timed_out": t}
            for s, c, t in ((1, 0.5, False), (2, 9.0, True), (3, 9.0, True))]
    rows += [{"params": {"colours": 5}, "seed": 1, "cost": 2.0, "timed_out": False}]
    points, peak = summarise(7, 7, "uniform", rows)
    assert [p["params"] for p in points] == [{"colours": 6}, {"colours": 5}]
    assert points[0]["median"] == 9.0 and points[0]["median_is_lower_bound"] and points[0]["timeouts"] == 2
    assert not points[1]["median_is_lower_bound"]
    assert peak["params"] == {"colours": 6} and peak["median_is_lower_bound"]


def test_among_medians_all_stopped_at_the_limit_the_peak_is_nearest_one_expected_solution():
    """Every solve of four points stopped at the limit (8x8 at its transition): the medians tie,
    and the peak is the point nearest the first-moment crossing, not the first of the grid."""
    from emc.hardness import expected_log10_solutions, summarise

    rows = [{"params": {"frame_colours": 3, "inner_colours": i}, "seed": s, "cost": 300.0 if i < 10 else 1.0 * s,
             "timed_out": i < 10} for i in (6, 7, 8, 9, 10) for s in (1, 2, 3)]
    points, peak = summarise(8, 8, "frame-inner-balanced", rows)
    logs = {i: abs(expected_log10_solutions(8, 8, "frame-inner-balanced", {"frame_colours": 3, "inner_colours": i}))
            for i in (6, 7, 8, 9)}
    assert peak["params"]["inner_colours"] == min(logs, key=logs.get) == 8
    assert peak["median"] == 300.0 and peak["median_is_lower_bound"] and len(points) == 5


def test_hardness_command_prints_the_sweep_and_draws_the_curve(cli, tmp_path):
    png = tmp_path / "curve.png"
    r = cli("hardness", 5, 4, "--model", "uniform", "--colours", "3-5", "--instances", 2, "--backend", "backtrack",
            "--json", "-o", png)
    assert r.code == 0, r
    d = json.loads(r.out)
    _check_sweep(d, [{"colours": 3}, {"colours": 4}, {"colours": 5}], [1, 2])
    assert d["width"] == 5 and d["height"] == 4 and d["model"] == "uniform" and d["cost"] == "nodes"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = cli("hardness", 5, 4, "--model", "uniform", "--colours", "3,5", "--instances", 2, "--backend", "backtrack")
    assert r.code == 0, r
    peak = [line for line in r.out.splitlines() if "<- peak" in line]
    assert len(peak) == 1 and r.out.rstrip().splitlines()[-1].startswith("peak: K=")
    assert peak[0].split()[0] == r.out.rstrip().splitlines()[-1].split()[1].rstrip(",")


def test_record_adds_the_peak_to_a_peaks_file(cli, tmp_path):
    peaks = tmp_path / "peaks.json"
    for colours in ("2-3", "4-5"):
        assert cli("hardness", 4, 4, "--model", "uniform", "--colours", colours, "--instances", 1, "--backend",
                   "backtrack", "--record", peaks).code == 0
    assert cli("hardness", 4, 4, "--model", "frame-inner", "--frame-colours", 2, "--inner-colours", 2,
               "--instances", 1, "--backend", "backtrack", "--record", peaks).code == 0
    d = json.loads(peaks.read_text())
    assert [(e["model"], e["width"]) for e in d["peaks"]] == [("frame-inner", 4), ("uniform", 4)]  # one per model
    e = d["peaks"][1]
    assert e["params"]["colours"] in (4, 5) and e["cost"] == "nodes" and "--colours 4-5" in e["command"]


# ----------------------------------------------------------------------------- --store
def _store_run(cli, store, colours, seeds, limit=60):
    return cli("hardness", 5, 4, "--model", "uniform", "--colours", colours, "--instances", seeds, "--backend",
               "backtrack", "--time-limit", limit, "--store", store, "--json")


def test_store_grows_a_sweep_solving_only_the_new_puzzles(cli, tmp_path):
    store = tmp_path / "sweep.json"
    r = _store_run(cli, store, "3-4", 2)
    assert r.code == 0, r
    first = json.loads(store.read_text())
    assert first == json.loads(r.out) and first["complete"] and len(first["rows"]) == 4
    r = _store_run(cli, store, "3-5", 3)  # one more seed, one more colour count
    assert r.code == 0, r
    grown = json.loads(store.read_text())
    _check_sweep(grown, [{"colours": k} for k in (3, 4, 5)], [1, 2, 3])
    kept = [ln for ln in r.err.splitlines() if f"(from {store})" in ln]
    assert len(kept) == 4 and len(grown["rows"]) == 9  # 5 solved now, 4 taken from the file
    old = {(x["params"]["colours"], x["seed"]): x for x in first["rows"]}
    for row in grown["rows"]:
        if (row["params"]["colours"], row["seed"]) in old:  # taken whole, wall seconds included
            assert row == old[row["params"]["colours"], row["seed"]]
    # what a sweep from scratch measures: the scan-row search's nodes are the same on every run
    from emc.hardness import sweep

    fresh = sweep(5, 4, "uniform", [{"colours": k} for k in (3, 4, 5)], [1, 2, 3], "backtrack", 60)
    assert [x["nodes"] for x in fresh["rows"]] == [x["nodes"] for x in grown["rows"]]
    assert fresh["points"] == grown["points"] and fresh["peak"] == grown["peak"]


def test_store_solves_again_under_a_longer_limit_what_a_shorter_one_stopped(cli, tmp_path):
    store = tmp_path / "sweep.json"
    assert _store_run(cli, store, "4", 2).code == 0
    d = json.loads(store.read_text())
    d["time_limit"] = 1.0  # as if seed 1 had been stopped by a limit of 1 s
    d["rows"][0].update(status="timeout", timed_out=True, cost=7, time_limit=1.0)
    store.write_text(json.dumps(d))
    r = _store_run(cli, store, "4", 2, limit=1)  # the same limit: the stopped row stands
    assert r.code == 0 and r.err.count("(from") == 2 and json.loads(store.read_text())["rows"][0]["timed_out"], r
    r = _store_run(cli, store, "4", 2, limit=60)  # a longer one: seed 1 is solved again, seed 2 kept
    assert r.code == 0, r
    rows = json.loads(store.read_text())["rows"]
    assert [("(from" in ln) for ln in r.err.splitlines() if "seed" in ln] == [False, True]
    assert rows[0]["status"] == "solved" and rows[0]["cost"] == rows[0]["nodes"] > 0
    assert json.loads(store.read_text())["time_limit"] == 60


@pytest.mark.parametrize("change, words", [
    (lambda d: d.update(model="uniform-balanced"), "the earlier sweep has model 'uniform-balanced', this one "
                                                   "'uniform'"),
    (lambda d: d.update(measure="kissat"), "the earlier sweep has measure 'kissat'"),
    (lambda d: d.update(time_limit=90), "the earlier sweep's limit is 90 s"),
    (lambda d: d["rows"][0].update(seed=9), "holds K=3 seed 9, which this one leaves out"),
    (lambda d: d["rows"][0].update(puzzle_sha256="0" * 64), "K=3 seed 1 is another puzzle than this emc draws"),
    (lambda d: d["rows"].append(dict(d["rows"][0])), "holds K=3 seed 1 twice"),
    (lambda d: d.pop("rows"), "not a sweep of emc hardness (it lacks a time_limit or its rows)"),
    (lambda d: d["rows"][0].pop("puzzle_sha256"), "row 1 of the earlier sweep lacks a proper 'puzzle_sha256'"),
    (lambda d: d["rows"][0].update(params={"colours": [3]}), "row 1 of the earlier sweep lacks a proper 'params'"),
    (lambda d: d.update(format="emc-peaks"), "its format is not emc-hardness-sweep"),
])
def test_store_refuses_a_sweep_it_cannot_grow_in_one_line(cli, tmp_path, change, words):
    store = tmp_path / "sweep.json"
    assert _store_run(cli, store, "3", 1).code == 0
    d = json.loads(store.read_text())
    change(d)
    store.write_text(json.dumps(d))
    before = store.read_bytes()
    r = _store_run(cli, store, "3", 1)
    assert r.code == 2 and words in r.err and str(store) in r.err and r.err.strip().count("\n") == 0, r
    assert store.read_bytes() == before  # nothing lost


def test_an_interrupted_sweep_resumes_solving_only_what_it_had_not(tmp_path):
    """Ctrl-C (here raised where the file is saved) after two puzzles: the saved sweep has those
    two and no peak; resumed from it, the sweep solves the other four and ends as a sweep from
    scratch would (the scan-row search's nodes are the same on every run)."""
    from emc.hardness import sweep

    grid = [{"colours": k} for k in (3, 4, 5)]
    saved = []

    def save(doc):
        saved.append(doc)
        if len(saved) == 2:
            raise KeyboardInterrupt

    part = sweep(5, 4, "uniform", grid, [1, 2], "backtrack", 60, on_save=save)
    assert not part["complete"] and part["peak"] is None and len(part["rows"]) == 2 == len(saved[-1]["rows"])
    taken = []
    whole = sweep(5, 4, "uniform", grid, [1, 2], "backtrack", 60, previous=saved[-1],
                  on_row=lambda row, stored: taken.append(stored))
    assert taken == [True, True, False, False, False, False] and whole["complete"]
    fresh = sweep(5, 4, "uniform", grid, [1, 2], "backtrack", 60)
    assert [r["nodes"] for r in whole["rows"]] == [r["nodes"] for r in fresh["rows"]]
    assert whole["rows"][:2] == part["rows"] and whole["peak"] == fresh["peak"]


def test_rows_a_shorter_limit_stopped_stay_until_solved_again(tmp_path):
    """Under a longer limit the stopped rows are solved again; if the sweep is interrupted first,
    the ones not reached yet stay as they were (with their own limit), so nothing is lost."""
    from emc.hardness import sweep

    earlier = sweep(5, 4, "uniform", [{"colours": 4}], [1, 2], "backtrack", 60)
    for row in earlier["rows"]:
        row.update(status="timeout", timed_out=True, cost=5, time_limit=1.0)
    earlier["time_limit"] = 1.0

    def stop(row, stored):
        raise KeyboardInterrupt

    part = sweep(5, 4, "uniform", [{"colours": 4}], [1, 2], "backtrack", 60, previous=earlier, on_row=stop)
    assert not part["complete"] and part["time_limit"] == 60
    assert [(r["timed_out"], r["time_limit"]) for r in part["rows"]] == [(False, 60), (True, 1.0)]
    whole = sweep(5, 4, "uniform", [{"colours": 4}], [1, 2], "backtrack", 60, previous=part)
    assert whole["complete"] and [r["timed_out"] for r in whole["rows"]] == [False, False]


def test_store_that_is_not_json_is_named_with_its_line(cli, tmp_path):
    store = tmp_path / "sweep.json"
    store.write_text('{"format": "emc-hardness-sweep",\n "rows": [,]}')
    r = _store_run(cli, store, "3", 1)
    assert r.code == 2 and f"{store}:2: not JSON" in r.err, r


@pytest.mark.slow
@pytest.mark.parametrize("how, code", [("SIGINT", 130), ("SIGTERM", 143), ("SIGTERM under nohup", 143)])
def test_ctrl_c_reports_and_keeps_what_the_sweep_measured(tmp_path, how, code):
    """Ctrl-C (SIGINT to the whole process group, Kissat's process included), SIGTERM, or
    SIGTERM to the whole group of a command that ignores SIGINT (nohup, a background job), while
    Kissat works on the second puzzle (7x7 at set 2's point, a minute or more): the first
    puzzle's row is reported and kept, the interrupted solve is not counted as stopped by the
    limit, no peak is claimed, and the exit status is 130 (143)."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    store = tmp_path / "sweep.json"
    env = dict(os.environ, PYTHONPATH=str(Path(emc.__file__).resolve().parent.parent))
    cmd = [sys.executable, "-m", "emc", "hardness", "7", "7", "--model", "frame-inner-balanced", "--frame-colours",
           "3", "--inner-colours", "4,6", "--instances", "1", "--backend", "kissat", "--time-limit", "600",
           "--store", str(store)]
    nohup = how.endswith("nohup")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True,
                            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if nohup else None)
    line = proc.stderr.readline()
    assert "F=3 I=4 seed 1:" in line and "stopped" not in line, line  # the first puzzle is solved
    time.sleep(1.5)  # Kissat is on the second
    if how == "SIGINT":
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    elif nohup:
        os.killpg(proc.pid, signal.SIGTERM)  # Kissat's process dies of it at once
    else:
        proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code and "Traceback" not in err, err
    assert "interrupted after 1 of 2 puzzles: the same command resumes it" in err
    assert "F=3 I=4" in out and "peak" not in out  # the table of what was measured, no peak claimed
    d = json.loads(store.read_text())
    assert d["complete"] is False and d["peak"] is None
    assert [(r["params"]["inner_colours"], r["timed_out"]) for r in d["rows"]] == [(4, False)]


@pytest.mark.parametrize("args, words", [
    (("--model", "gauss"), "invalid choice: 'gauss'"),
    (("--model", "uniform", "--frame-colours", "3"), "model uniform takes --colours, not --frame-colours"),
    (("--colours", "3"), "model frame-inner takes --frame-colours and --inner-colours, not --colours"),
    (("--frame-colours", "3"), "give both --frame-colours and --inner-colours"),
    (("--model", "uniform", "--colours", "4-x"), "--colours: expected counts like 5, 4-9 or 3,5,7"),
    (("--model", "uniform-balanced", "--colours", "3,40"), "cannot show each of 40 colours"),
    (("--model", "uniform", "--colours", "3", "--backend", "glucose"), "invalid choice: 'glucose'"),
    (("--model", "uniform", "--colours", "3", "--time-limit", "0"), "must be a positive finite number"),
    (("--model", "uniform", "--colours", "3", "-o", "curve.txt"), "-o: a picture file ending in .png"),
])
def test_hardness_refuses_bad_input_in_one_line(cli, tmp_path, args, words):
    r = cli("hardness", 4, 4, *args)
    assert r.code == 2 and words in r.err and r.err.strip().count("\n") == 0, r


# ----------------------------------------------------------------------------- the shipped peaks
def test_shipped_peaks_are_complete_and_draw():
    peaks = hardness_peaks()
    assert peaks
    assert len({(e["backend"], e["solver"], e["cost"]) for e in peaks}) == 1  # comparable across models
    seen = set()
    for e in peaks:
        key = (e["width"], e["height"], e["model"])
        assert key not in seen
        seen.add(key)
        assert e["model"] in MODELS and set(e["params"]) == set(MODELS[e["model"]].params)
        assert e["instances"] >= 3 and e["median"] > 0 and e["command"].startswith("emc hardness ")
        p, planted = generate_model(e["model"], e["width"], e["height"], 1, **e["params"])
        assert emc.verify(p, planted).solved
    for w, h in {(e["width"], e["height"]) for e in peaks}:  # the hardest of a size: its highest median
        here = [e for e in peaks if (e["width"], e["height"]) == (w, h)]
        assert hardest_peak(w, h)["median"] == max(e["median"] for e in here)


def test_the_hardest_of_tied_peaks_is_the_one_most_often_stopped_then_the_balanced_two_set(monkeypatch):
    """9x9 measured with one limit: every model's peak a lower bound at that limit. The one with
    more solves stopped wins; among equals, the balanced two-set model (the two-set models are
    the hardest at 6x6 and 7x7, where the models were told apart)."""
    import importlib

    gen = importlib.import_module("emc.generate")  # the module, not the function emc.generate

    def entry(model, timeouts):
        params = {k: 5 for k in MODELS[model].params}
        return {"width": 9, "height": 9, "model": model, "params": params, "median": 120.0, "instances": 3,
                "timeouts": timeouts}

    peaks = [entry("frame-inner", 3), entry("uniform", 3), entry("frame-inner-balanced", 3),
             entry("uniform-balanced", 3)]
    monkeypatch.setattr(gen, "hardness_peaks", lambda: peaks)
    assert hardest_peak(9, 9)["model"] == "frame-inner-balanced"
    peaks[2]["timeouts"] = 2
    assert hardest_peak(9, 9)["model"] == "frame-inner"
    peaks[1]["median"] = 121.0
    assert hardest_peak(9, 9)["model"] == "uniform"


def test_generate_hardest_draws_with_the_shipped_parameters(cli, tmp_path):
    peak = hardest_peak(6, 6)
    out, sol = tmp_path / "h.json", tmp_path / "h.solution.json"
    r = cli("generate", 6, 6, "--hardest", "--seed", 3, "-o", out, "--solution", sol)
    assert r.code == 0 and "the measured hardness peak of 6x6" in r.out, r
    p = emc.read_puzzle(out)
    same, _ = generate_model(peak["model"], 6, 6, 3, **peak["params"])
    assert p.sha256 == same.sha256  # the pieces of that model and those counts
    prov = p.provenance
    assert prov.get("model", "frame-inner") == peak["model"]
    assert {k: prov[k] for k in peak["params"]} == peak["params"]
    assert prov["hardest"]["median"] == peak["median"] and prov["hardest"]["solver"] == peak["solver"]
    assert cli("verify", out, sol).code == 0
    # a named model: that model's peak
    for e in [e for e in hardness_peaks() if (e["width"], e["height"]) == (6, 6)]:
        r = cli("generate", 6, 6, "--hardest", "--model", e["model"], "-o", out)
        assert r.code == 0 and emc.read_puzzle(out).provenance.get("model", "frame-inner") == e["model"], r


@pytest.mark.parametrize("args, words", [
    (("13", "11", "--hardest"), "no measured hardness peak for 13x11"),
    (("6", "6", "--hardest", "--colours", "5"), "--hardest takes its colour counts from the measured peak: drop "
                                                "--colours"),
    (("6", "6", "--model", "frame-inner-balanced", "--frame-colours", "0", "--inner-colours", "4"),
     "needs at least 1 frame colour"),
    (("3", "3", "--model", "uniform-balanced", "--colours", "13"), "has 12 internal edges"),
])
def test_generate_refuses_impossible_requests_in_one_line(cli, tmp_path, args, words):
    out = tmp_path / "x.json"
    r = cli("generate", *args, "-o", out)
    assert r.code == 2 and words in r.err and r.err.strip().count("\n") == 0 and not out.exists(), r


def test_suite_generates_at_the_peak_with_the_measurement_in_the_manifest(cli, tmp_path):
    from emc.suite import parse_generate

    assert parse_generate("6x6:hardest:1-2") == [("hardest", 6, 6, 1), ("hardest", 6, 6, 2)]
    assert parse_generate("8x8:frame-inner:3:5:1") == parse_generate("8x8:3:5:1") == [(8, 8, 3, 5, 1)]
    assert parse_generate("5x5:uniform-balanced:6:2") == [("uniform-balanced", 5, 5, 6, 2)]
    out = tmp_path / "s"
    r = cli("suite", "-o", out, "--generate", "6x6:hardest:1-2", "--generate", "5x5:frame-inner-balanced:2:4:1",
            "--formats", "cnf")
    assert r.code == 0, r
    m = json.loads((out / "manifest.json").read_text())
    peak = hardest_peak(6, 6)
    gens = {e["instance"]: e["generator"] for e in m["puzzles"]}
    hard = [g for g in gens.values() if "hardest" in g]
    assert len(hard) == 2 and {g["seed"] for g in hard} == {1, 2}
    for g in hard:
        assert g.get("model", "frame-inner") == peak["model"] and g["hardest"]["median"] == peak["median"]
        assert {k: g[k] for k in peak["params"]} == peak["params"]
    bal = [g for g in gens.values() if g.get("model") == "frame-inner-balanced" and "hardest" not in g]
    assert bal == [{"model": "frame-inner-balanced", "width": 5, "height": 5, "frame_colours": 2, "inner_colours": 4,
                    "seed": 1}]
    for e in m["puzzles"]:  # every planted board, as written, solves its puzzle
        p = emc.read_puzzle(out / e["puzzle"]["path"])
        assert emc.verify(p, emc.read_board(out / e["solution"]["path"], p)).solved
    # the file `emc generate --hardest` wrote is known by its provenance, measurement and all
    q = tmp_path / "q.json"
    assert cli("generate", 6, 6, "--hardest", "--seed", 1, "-o", q).code == 0
    assert cli("suite", "-o", tmp_path / "t", "--instances", q, "--formats", "cnf").code == 0
    row = json.loads((tmp_path / "t" / "manifest.json").read_text())["files"][0]
    assert row["known"].startswith("satisfiable") and row["generator"]["hardest"]["median"] == peak["median"]
    r = cli("suite", "-o", tmp_path / "u", "--generate", "13x11:hardest:1", "--formats", "cnf")
    assert r.code == 2 and "no measured hardness peak for 13x11" in r.err, r
