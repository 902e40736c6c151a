"""The method registry, `emc methods` / `emc optimise`, and the one-file-one-line promise for
new methods and backends: the two TEMPLATE modules are registered at run time and then work
everywhere the registries reach."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import emc
from emc.backends import BACKENDS, backend_class, default_backend, get_backend, race_members, ranked
from emc.heuristics import METHODS, get_method, method_class, optimise
from emc.heuristics.core.method import Option, Recorder
from emc.model import Goal, Subproblem

from bruteforce import brute_force_optimum


@pytest.fixture
def climb(monkeypatch):
    """The template method, registered as `climb` for the test (one registry line)."""
    monkeypatch.setitem(METHODS, "climb", "emc.heuristics.TEMPLATE:Climb")
    return "climb"


@pytest.fixture
def exhaustive(monkeypatch):
    """The template backend, registered as `exhaustive` for the test (one registry line)."""
    monkeypatch.setitem(BACKENDS, "exhaustive", "emc.backends.TEMPLATE:ExhaustiveBackend")
    return "exhaustive"


# --------------------------------------------------------------------------- the registry
def test_methods_lists_every_registered_method_with_its_options(cli):
    r = cli("methods", "--json")
    assert r.code == 0, r
    rows = json.loads(r.out)
    assert [row["name"] for row in rows] == list(METHODS)
    mh = next(row for row in rows if row["name"] == "matheuristic")
    names = [o["name"] for o in mh["options"]]
    assert names == [o.name for o in method_class("matheuristic").options]
    assert {o["name"]: o["default"] for o in mh["options"]}["ta_n"] == 1000
    text = cli("methods").out
    assert "matheuristic:" in text and "ta_k=16" in text
    assert max(len(line) for line in text.splitlines()) <= 80  # an 80-column terminal
    full = cli("methods", "matheuristic").out
    assert "ro_method = clique   (clique | direct)" in full and "seed 000, Table 2" in full


def test_unknown_methods_options_and_values_fail_loudly_naming_the_valid_ones(cli):
    r = cli("optimise", "set2-4x4", "--method", "tabuu")
    assert r.code == 2 and "unknown method 'tabuu'" in r.err and "matheuristic" in r.err, r
    r = cli("optimise", "set2-4x4", "-O", "ta_q=3")
    assert r.code == 2 and "unknown option of method 'matheuristic' 'ta_q'" in r.err and "ta_k" in r.err, r
    r = cli("optimise", "set2-4x4", "-O", "ta_k=1")
    assert r.code == 2 and "ta_k of method 'matheuristic' is at least 2, not 1" in r.err, r
    r = cli("optimise", "set2-4x4", "-O", "ro_method=exact")
    assert r.code == 2 and "clique, direct" in r.err, r
    r = cli("optimise", "set2-4x4", "-O", "neighbourhoods=TA,XX")
    assert r.code == 2 and "XX" in r.err, r
    with pytest.raises(emc.InputError, match="unknown method"):
        get_method("nosuch")
    with pytest.raises(TypeError, match="given twice"):
        optimise(emc.load("set2-4x4"), "matheuristic", options={"ta_n": 5}, ta_n=6)


def test_option_values_from_text_and_from_python_read_alike():
    o = Option("k", 3, "k", "int", low=1)
    assert o.check("m", "7") == 7 == o.check("m", 7)
    for bad in ("seven", 0, 2.5, True):
        with pytest.raises(emc.InputError):
            o.check("m", bad)
    b = Option("flag", True, "f", "bool")
    assert b.check("m", "no") is False and b.check("m", "yes") is True and b.check("m", False) is False
    with pytest.raises(emc.InputError):
        b.check("m", "maybe")
    s = Option("t", None, "t", "seconds")
    assert s.check("m", None) is None and s.check("m", "2.5") == 2.5
    with pytest.raises(emc.InputError):
        s.check("m", 0)


# --------------------------------------------------------------------------- a new method: one file, one line
def test_a_method_registered_at_run_time_is_listed_and_runs(cli, tmp_path, climb):
    assert "climb:" in cli("methods").out
    out = tmp_path / "b.json"
    res = tmp_path / "r.json"
    r = cli("optimise", "meta-10x10", "--method", climb, "-O", "moves=3000", "--seed", "3", "-o", out,
            "--result", res)
    assert r.code == 0, r
    P = emc.load("meta-10x10")
    board = emc.read_board(out, P)
    rep = emc.verify(P, board)
    doc = json.loads(res.read_text())
    assert rep.valid and doc["final"]["score"] == emc.score(P, board) == doc["trajectory"][-1]["score"]
    assert doc["method"] == "climb" and doc["options"] == {"moves": 3000, "sideways": True}
    assert doc["final"]["iterations"] == 3000 and doc["final"]["stopped_by"] == "iteration-limit"
    # the result file reads as its board wherever a board is asked for
    assert emc.read_board(res, P) == board
    # same seed, same run (an iteration budget): from Python too
    again = optimise(P, climb, seed=3, moves=3000)
    assert again.board == board and [t["score"] for t in again.trajectory] == [t["score"] for t in doc["trajectory"]]
    other = optimise(P, climb, seed=4, moves=3000)
    assert other.board != board


def test_a_run_reports_its_improvements_and_the_result_agrees_with_them():
    P = emc.load("meta-10x10")
    seen = []
    run = optimise(P, "climb" if "climb" in METHODS else "matheuristic", seed=1, on_progress=seen.append,
                   **({"moves": 2000} if "climb" in METHODS else {"start": "random", "neighbourhoods": "TA,TSR",
                                                                   "ta_n": 50, "patience": 1}))
    improvements = [p for p in seen if p.improved]
    assert improvements and [p.best for p in improvements] == [t["score"] for t in run.trajectory]
    assert improvements[-1].board == run.board and run.score == emc.score(P, run.board)
    assert all(a.best < b.best for a, b in zip(improvements, improvements[1:]))
    assert run.time_to_best == pytest.approx(run.trajectory[-1]["time"], abs=1e-3)


def test_the_recorder_keeps_copies_and_only_better_boards():
    P, planted = emc.generate(4, 4, 2, 3, seed=2)
    rec = Recorder(P, None)
    board = planted.copy()
    assert rec.improved(board, 24, "a") and not rec.improved(board, 24, "b") and not rec.improved(board, 20, "c")
    board.piece[:] = -1  # the method goes on changing its board: the kept one is a copy
    assert rec.best == planted and rec.best_score == 24 and [t["what"] for t in rec.trajectory] == ["a"]


# --------------------------------------------------------------------------- the matheuristic through the registry
def test_optimise_matheuristic_gives_the_board_of_emc_matheuristic(cli, tmp_path):
    """A run that stops at a local optimum (no time limit) is the same run either way."""
    flags = ["--neighbourhoods", "TA,BW,TSR", "--patience", "1", "--ta-n", "100", "--seed", "1"]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    r1 = cli("matheuristic", "set2-7x7", *flags, "-o", a)
    r2 = cli("optimise", "set2-7x7", "--method", "matheuristic", "-O", "neighbourhoods=TA,BW,TSR", "-O", "patience=1",
             "-O", "ta_n=100", "--seed", "1", "-o", b, "--result", tmp_path / "r.json")
    assert r1.code == 0 and r2.code == 0, (r1, r2)
    P = emc.load("set2-7x7")
    assert emc.read_board(a, P) == emc.read_board(b, P)
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["details"]["construction"]["method"] == "greedy" and doc["final"]["stopped_by"] == "local-optimum"


@pytest.mark.slow
def test_optimise_stops_on_sigterm_and_keeps_the_best_board(tmp_path):
    out = tmp_path / "b.json"
    env = dict(os.environ, PYTHONPATH=str(Path(emc.__file__).resolve().parent.parent))
    proc = subprocess.Popen([sys.executable, "-m", "emc", "optimise", "meta-12x12", "-m", "matheuristic", "-O",
                             "start=random", "-O", "neighbourhoods=TA,BW,TSR", "-t", "120", "-o", str(out),
                             "--progress-every", "0.2"], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env=env)
    for line in proc.stderr:  # the run has a board once a progress line shows a best score
        if "best " in line:  # ("no board yet" before)
            break
    proc.send_signal(signal.SIGTERM)
    outs, errs = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "Traceback" not in errs, errs
    P = emc.load("meta-12x12")
    board = emc.read_board(out, P)
    assert emc.verify(P, board).valid and f"score {emc.score(P, board)}/" in outs


# --------------------------------------------------------------------------- a new backend: one file, one line
@pytest.mark.slow
def test_a_backend_registered_at_run_time_is_listed_solves_and_counts(cli, exhaustive):
    rows = json.loads(cli("backends", "--json").out)
    assert any(r["name"] == exhaustive and r["available"] for r in rows)
    r = cli("solve", "set2-4x4", "-b", exhaustive)
    assert r.code == 0 and "solved" in r.out.lower(), r
    P = emc.load("set2-4x4")
    sp = Subproblem.whole(P)
    assert get_backend(exhaustive).count(sp).count == get_backend("backtrack").count(sp).count > 1
    # optimisation of a scrambled region agrees with brute force
    P5, planted = emc.generate(5, 5, 2, 4, seed=3)
    from emc.heuristics.core.starts import random_board

    region = Subproblem.region(P5, random_board(P5, 1), [6, 7, 8, 11, 12], Goal.OPTIMISATION)
    assert get_backend(exhaustive).solve(region).objective == brute_force_optimum(region)


def test_the_defaults_follow_the_backends_own_ranks(monkeypatch, exhaustive):
    from emc.backends.TEMPLATE import ExhaustiveBackend

    assert default_backend("feasibility") == next(b for b in ranked("feasibility") if backend_class(b).available())
    monkeypatch.setattr(ExhaustiveBackend, "priority", {"feasibility": 1, "race feasibility": 1})
    assert ranked("feasibility")[0] == default_backend("feasibility") == exhaustive
    assert race_members("race feasibility")[0] == exhaustive
    with pytest.raises(emc.InputError, match="unknown task"):
        ranked("guessing")


def test_warmup_runs_every_method_and_compiled_backend(cli):
    r = cli("warmup")
    assert r.code == 0, r
    done = r.out.split("kernels of ")[1].split(" in ")[0].split(", ")
    from emc.heuristics import METHODS, method_class

    want = [n for n in METHODS if method_class(n).warmup_options is not None and method_class(n).available()]
    want += [n for n in BACKENDS if backend_class(n).compiled and backend_class(n).available()]
    assert done == want and "gao" in done and "backtrack" in done
