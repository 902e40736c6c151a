"""`emc solve`, `emc count` and `emc backends` from the command line, on real solvers."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import emc
from emc.backends import get_backend
from emc.formats import read_board, write_board
from emc.score import mismatches, verify
from bruteforce import count_solutions


def _json(out: str) -> dict:
    return json.loads(out[out.index("{"):])


def test_default_backend_solves_a_whole_puzzle_and_writes_a_valid_board(cli, tmp_path):
    out = tmp_path / "b.json"
    r = cli("solve", "set2-5x5", "-o", out, "--json")
    assert r.code == 0, r
    res = _json(r.out)
    assert res["backend"] == "backtrack"  # the fastest for perfect boards
    assert res["status"] == "feasible" or res["status"] == "optimal"
    assert res["interrupted"] is False and res["stopped_by"] is None  # the search finished
    puzzle = emc.load("set2-5x5")
    rep = verify(puzzle, read_board(out, puzzle))
    assert rep.valid and rep.solved
    assert cli("verify", "set2-5x5", out).code == 0


def test_solve_prints_what_the_search_did(cli):
    r = cli("solve", "set2-5x5")
    assert r.code == 0, r
    line = next(x for x in r.out.splitlines() if x.startswith("search: "))
    assert " nodes, " in line and "restart runs; answered by run " in line


_LINE = (r"^\[\s*[\d.]+ s\] solving with backtrack: [\d.]+( thousand| million| billion)? nodes, [\d.]+ M nodes/s, "
         r"restart run \d+, deepest fill \d+/81 cells$")
_SILENT = r"^\[\s*[\d.]+ s\] (solving|counting) with \w+: still running, nothing to report yet$"


@pytest.mark.slow
def test_solve_prints_progress_lines_to_stderr_when_piped(cli):
    r = cli("solve", "set2-9x9", "-t", "2", "--progress-every", "0.3", "-O", "slice_nodes=200000")
    assert r.code == 3, r  # no board in 2 s: status unknown
    lines = [x for x in r.err.splitlines() if "solving with" in x and not re.match(_SILENT, x)]
    assert lines and all(re.match(_LINE, x) for x in lines), r.err
    assert "solving with" not in r.out  # stdout keeps only the result
    for quiet in (["--progress-every", "0"], ["--json"]):
        r = cli("solve", "set2-9x9", "-t", "1", "--progress-every", "0.3", *quiet)
        assert "solving with" not in r.err + r.out


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sat", "minizinc"])
def test_a_backend_that_reports_nothing_still_gets_progress_lines(cli, backend):
    """SAT solvers and MiniZinc say nothing while they search: the CLI's clock says the run
    goes on, so a long run piped to a log is never silent."""
    if not get_backend(backend).available():
        pytest.skip(f"{backend} is not installed")
    r = cli("solve", "set2-9x9", "--backend", backend, "-t", "3", "--progress-every", "0.5")
    assert r.code == 3, r  # no board in 3 s
    silent = [x for x in r.err.splitlines() if re.match(_SILENT, x)]
    assert silent and all(x.startswith("[") for x in silent), r.err
    times = [float(x[1:x.index("s]")]) for x in silent]
    assert times == sorted(times) and all(b - a > 0.4 for a, b in zip(times, times[1:]))  # at most one per 0.5 s
    r = cli("solve", "set2-9x9", "--backend", backend, "-t", "2", "--progress-every", "0")
    assert "still running" not in r.err + r.out


def test_default_backend_for_a_subproblem_optimises(cli, tmp_path):
    puzzle, planted = emc.generate(6, 6, 2, 4, seed=5)
    pz, bd = tmp_path / "p.txt", tmp_path / "s.json"
    emc.formats.write_puzzle(puzzle, pz)
    write_board(planted, puzzle, bd)
    out = tmp_path / "w.json"
    r = cli("solve", pz, "--fixed", bd, "--free", "r2c2-r4c4", "-o", out, "--json")
    assert r.code == 0, r
    res = _json(r.out)
    assert res["backend"] == "maxsat" and res["goal"] == "optimisation"  # the fastest on regions (bench/regions.py)
    board = read_board(out, puzzle)
    assert verify(puzzle, board).solved
    outside = [c for c in range(36) if not (1 <= c // 6 <= 3 and 1 <= c % 6 <= 3)]
    assert (board.piece[outside] == planted.piece[outside]).all()
    # a whole puzzle to optimise goes to CP-SAT, whose boards within a time limit are the better ones there
    whole = _json(cli("solve", "set2-4x4", "--goal", "optimisation", "--json").out)
    assert whole["backend"] == "cpsat" and whole["status"] == "optimal" and whole["objective"] == 24


def test_count_default_backend_agrees_with_brute_force(cli):
    want = count_solutions(emc.load("set2-3x3"))
    r = cli("count", "set2-3x3", "--json")
    assert r.code == 0, r
    res = _json(r.out)
    assert res["backend"] == "backtrack" and res["complete"] and res["count"] == want
    r = cli("count", "set2-3x3", "--backend", "sat", "--json")
    assert _json(r.out)["count"] == want


def test_count_prints_backend_time_and_search(cli):
    r = cli("count", "set2-4x4")
    assert r.code == 0, r
    lines = r.out.splitlines()
    n = count_solutions(emc.load("set2-4x4"))  # by brute force, no emc search
    assert re.match(rf"^set2-4x4: exactly {n} solution\(s\)  \[backtrack, [\d.]+ s\]$", lines[0]), lines[0]
    assert re.match(r"^search: [\d.]+( thousand)? nodes, ", lines[1]), lines[1]


def test_count_keeps_boards_that_verify(cli, tmp_path):
    r = cli("count", "set2-4x4", "--keep", "3", "--out-dir", tmp_path / "sols")
    assert r.code == 0, r
    files = sorted((tmp_path / "sols").glob("*.json"))
    assert len(files) == 3
    puzzle = emc.load("set2-4x4")
    for f in files:
        assert verify(puzzle, read_board(f, puzzle)).solved
    # --json names the files it wrote, and lists the boards as it does without --out-dir
    doc = _json(cli("count", "set2-4x4", "--keep", "2", "--out-dir", tmp_path / "two", "--json").out)
    assert doc["files"] == [str(tmp_path / "two" / f"solution-000{i}.json") for i in (1, 2)]
    assert [read_board(f, puzzle) for f in doc["files"]] == [read_board(f, puzzle) for f in files[:2]]
    assert doc["boards"] == _json(cli("count", "set2-4x4", "--keep", "2", "--json").out)["boards"]
    assert len(doc["boards"]) == 2 and _json(cli("count", "set2-4x4", "--json").out)["files"] == []
    # past 26 colours board_edges has no letters: the files alone hold the boards
    many, _ = emc.generate(4, 4, 2, 30, seed=1)
    assert many.max_colour > 25
    emc.write_puzzle(many, tmp_path / "many.json")
    r = cli("count", tmp_path / "many.json", "--keep", "1", "--out-dir", tmp_path / "m", "--json")
    doc = _json(r.out)
    assert r.code == 0 and doc["boards"] is None and len(doc["files"]) == 1 and doc["count"] >= 1, r
    assert verify(many, read_board(doc["files"][0], many)).solved


@pytest.mark.parametrize("args, message", [
    (("solve", "set2-3x3", "--backend", "nope"), "backtrack"),
    (("solve", "set2-3x3", "--backend", "backtrack", "--goal", "optimisation"), "optimis"),
    (("solve", "set2-3x3", "-O", "noequals"), "KEY=VALUE"),
    (("count", "set2-3x3", "--backend", "highs"), "highs"),
    (("solve", "set2-3x3", "--backend", "cpsat", "--formulation", "cnf"), "unknown cpsat formulation 'cnf'"),
    # a picture or board that could not be written is refused before the solve, not after it
    (("solve", "set2-3x3", "--render", "b.bmp"), "b.bmp: cannot draw to .bmp: use .png, .svg, .pdf or .html"),
    (("solve", "set2-3x3", "--backend", "portfolio", "-O", "members=backtrack,sat", "--goal", "optimisation"),
     "portfolio member 'backtrack' does not take optimisation problems"),
    (("solve", "set2-3x3", "--backend", "portfolio", "-O", "members=sat,nope"), "unknown backend 'nope'"),
])
def test_bad_requests_give_one_line_errors(cli, args, message):
    r = cli(*args)
    assert r.code == 2, r
    assert message in r.err and "Traceback" not in r.err
    assert len(r.err.strip().splitlines()) == 1 and r.out == ""  # refused before anything is printed


def test_a_board_path_inside_a_file_is_refused_before_solving(cli, tmp_path):
    (tmp_path / "plain").write_text("x")
    r = cli("solve", "set2-3x3", "-o", tmp_path / "plain" / "b.json")
    assert r.code == 2 and r.out == "", r
    assert r.err.strip().endswith("plain is a file, not a folder")


@pytest.mark.parametrize("backend", ["cpsat", "sat"])
def test_a_log_in_a_folder_not_yet_made_is_written_as_a_board_would_be(cli, tmp_path, backend):
    log, out = tmp_path / "logs" / "deeper" / "run.log", tmp_path / "boards" / "b.json"
    r = cli("solve", "set2-4x4", "-b", backend, "--log", log, "-o", out)
    assert r.code == 0 and log.stat().st_size > 0 and out.exists(), r
    (tmp_path / "plain").write_text("x")
    r = cli("solve", "set2-4x4", "-b", backend, "--log", tmp_path / "plain" / "run.log")
    assert r.code == 2 and r.out == "" and r.err.strip().endswith("plain is a file, not a folder"), r


@pytest.mark.slow
@pytest.mark.parametrize("backend,puzzle", [("backtrack", "set2-8x8"), ("clique", "set2-7x7")])
def test_emcs_own_log_grows_as_the_run_goes(tmp_path, backend, puzzle):
    """backtrack and clique write no log of their own; emc's (settings, progress lines, answer)
    holds the settings and each kept progress line while the run goes, so `tail -f` can follow
    a long search, and is whole at the end."""
    log = tmp_path / "run.log"
    seen: list[str] = []
    res = get_backend(backend).solve(emc.Subproblem.whole(emc.load(puzzle)), time_limit=2, threads=1, seed=0,
                                     log_path=log, on_progress=lambda line: seen.append(log.read_text()))
    assert seen, "no progress line came"
    assert seen[0].startswith(f"emc {backend} log: {puzzle} ") and "settings: time limit 2.0" in seen[0]
    assert re.search(r"^\[ +[0-9.]+ s\] ", seen[0], re.M), seen[0]  # the first progress line is there already
    final = log.read_text()
    assert res.log_path == log and final.startswith(seen[0]) and "\nstatus " in final, final


def test_count_refuses_a_board_folder_inside_a_file_before_counting(cli, tmp_path):
    (tmp_path / "plain").write_text("x")
    r = cli("count", "set2-3x3", "--keep", "1", "--out-dir", tmp_path / "plain" / "sols")
    assert r.code == 2 and r.out == "", r
    assert r.err.strip().endswith("plain is a file, not a folder")


def test_portfolio_refuses_an_option_a_member_does_not_know_before_the_race(cli):
    r = cli("solve", "set2-3x3", "--backend", "portfolio", "-O", "nosuch=1")
    assert r.code == 2 and r.out == "", r
    err = r.err.strip().splitlines()[-1]
    assert err.startswith("emc: error: portfolio member 'backtrack': unknown option(s) for backend 'backtrack': nosuch")
    assert err.endswith("-O backtrack.KEY=VALUE gives one to backtrack alone)")
    r = cli("solve", "set2-3x3", "--backend", "sat", "-O", "restart_nodes=5")
    assert r.code == 2 and r.out == "" and "unknown option(s) for backend 'sat': restart_nodes" in r.err, r


@pytest.mark.parametrize("backend", ["cpsat", "highs", "cbc"])
def test_the_options_offered_for_a_backend_are_ones_the_command_line_takes(cli, backend):
    """cpsat and the MILP backends take no-good cuts from the Python API only: an unknown
    option's error does not offer them, and each option it offers is not refused as unknown."""
    r = cli("solve", "set2-3x3", "--backend", backend, "-O", "nosuch=1")
    assert r.code == 2 and r.out == "", r
    offered = r.err.split("(choose from: ")[1].split(")")[0].split(", ")
    assert offered and "cuts" not in offered, offered
    for key in offered:
        r = cli("solve", "set2-3x3", "--backend", backend, "-O", f"{key}=nosuch-value", "-t", "5")
        assert "unknown option" not in r.err and "no-good cuts" not in r.err, (key, r.err)


def test_portfolio_says_why_when_every_member_fails(cli):
    """Failures only a run shows (a clique program that prints no clique): the member's reason
    is in the one error line."""
    r = cli("solve", "set2-3x3", "--backend", "portfolio", "-O", "members=clique",
            "-O", "clique.binary=/bin/false")
    assert r.code == 2, r
    err = r.err.strip().splitlines()[-1]
    assert err.startswith("emc: error: every portfolio member failed: "), err
    assert err.count("clique: BackendError: the clique program exited with status 1, and printed no clique") == 1, err


def test_portfolio_members_that_cannot_run_are_refused_before_the_race(cli):
    # a clique binary that is not there, a MiniZinc solver MiniZinc does not have
    for opt, words in (("clique.binary=/nonexistent/solver", "clique solver binary '/nonexistent/solver' not found"),
                       ("minizinc.solver=nosuch", "MiniZinc has no solver 'nosuch'")):
        r = cli("solve", "set2-3x3", "--backend", "portfolio", "-O", "members=clique,minizinc", "-O", opt)
        assert r.code == 2 and r.out == "" and words in r.err and r.err.count("\n") == 1, r


def test_option_values_are_refused_before_the_header(cli):
    """A value a backend will not take stops the run before anything is printed or encoded."""
    for backend, opts, words in (
            ("backtrack", ["-O", "restarts=nope"], "option restarts of backend 'backtrack' is true or false, not 'nope'"),
            ("sat", ["--solver", "nosuch"], "unknown SAT solver 'nosuch'"),
            ("highs", ["--variant", "nosuch"], "unknown milp variant 'nosuch'"),
            ("cpsat", ["-O", 'params={"nosuch": 1}'], "unknown CP-SAT parameter 'nosuch'"),
            ("clique", ["-O", "complete_with=nosuch"], "unknown backend for complete_with 'nosuch'"),
            ("clique", ["-O", "max_steps=-1"], "option max_steps of backend 'clique' must be at least 1, not -1"),
            ("portfolio", ["-O", "members=sat,cpsat", "-O", "sat.solver=nosuch"],
             "portfolio member 'sat': unknown SAT solver 'nosuch'")):
        r = cli("solve", "set2-3x3", "--backend", backend, *opts)
        assert r.code == 2 and r.out == "" and words in r.err, (backend, opts, r)


def test_options_the_command_line_owns_or_cannot_give_are_refused(cli):
    """threads / time_limit / seed have their own flags (they used to crash the heuristics with a
    TypeError), and no-good cuts are boards only the Python API can pass (a number crashed HiGHS)."""
    for cmd, words in (
            (("solve", "set2-3x3", "-b", "highs", "-O", "threads=1"), "threads is set with --threads"),
            (("construct", "set2-4x4", "-b", "highs", "-O", "time_limit=1"),
             "each backend call's limit is set with --region-time-limit"),
            (("matheuristic", "set2-4x4", "-b", "cpsat", "-O", "seed=3", "-t", 5),
             "seed is set with --seed"),
            (("solve", "set2-3x3", "-b", "highs", "-O", "cuts=1"), "no-good cuts are boards"),
            (("solve", "set2-3x3", "-b", "portfolio", "-O", "members=highs,sat", "-O", "highs.cuts=[1]"),
             "no-good cuts are boards"),
            (("construct", "set2-4x4", "--start", "backtracking", "-b", "cpsat", "-O", "cuts=[]"),
             "--option 'cuts=[]'"),
            (("construct", "set2-4x4", "-b", "highs", "-O", "linking=nosuch"),
             "unknown MILP linking 'nosuch'")):
        r = cli(*cmd)
        assert r.code == 2 and r.out == "" and words in r.err and r.err.count("\n") == 1, (cmd, r)


def test_heuristics_read_backend_options_as_solve_reads_options(cli, tmp_path):
    """The heuristics' -O values are read as `emc solve -O` reads them (yes/no are booleans),
    and reach the run: its result file records them."""
    from emc.commands.common import parse_options

    assert parse_options(["deterministic=yes", "variant=sum", "params={\"num_workers\": 1}"]) == {
        "deterministic": True, "variant": "sum", "params": {"num_workers": 1}}
    res = tmp_path / "r.json"
    r = cli("construct", "set2-4x4", "-b", "cpsat", "-O", "deterministic=yes", "--option", "variant=table", "-q",
            "--result", res)
    assert r.code == 0 and "greedy 1xW gave" in r.out, r
    assert json.loads(res.read_text())["parameters"]["backend_options"] == {"deterministic": True, "variant": "table"}


def test_the_old_backend_option_flag_still_works_unlisted(cli, tmp_path):
    """--backend-option was the heuristics' name for -O: scripts using it still run (the two
    spellings add to one list), and --help lists -O alone."""
    res = tmp_path / "r.json"
    r = cli("construct", "set2-4x4", "-b", "cpsat", "--backend-option", "deterministic=yes", "-O", "variant=table",
            "-q", "--result", res)
    assert r.code == 0, r
    assert json.loads(res.read_text())["parameters"]["backend_options"] == {"deterministic": True, "variant": "table"}
    for command in ("construct", "improve", "matheuristic"):
        text = cli(command, "--help").out
        assert re.search(r"-O( KEY=VALUE)?, --option", text) and "--backend-option" not in text, command
    # the same flag, so the same refusals: given twice, or given to a run that calls no backend
    r = cli("construct", "set2-4x4", "-b", "cpsat", "--backend-option", "deterministic=yes", "-O", "deterministic=no")
    assert r.code == 2 and "--option deterministic is given twice" in r.err, r


def test_backends_json_lists_every_registered_backend(cli):
    from emc.backends import BACKENDS

    r = cli("backends", "--json")
    assert r.code == 0
    rows = json.loads(r.out)
    assert [row["name"] for row in rows] == list(BACKENDS)
    assert all(row["available"] for row in rows)  # the test set-up installs every solver


def test_portfolio_members_from_the_command_line(cli):
    """`-O members=a,b` is a comma-separated string on the command line, not a list."""
    r = cli("solve", "set2-4x4", "--backend", "portfolio", "-O", "members=backtrack,sat", "--json")
    assert r.code == 0, r
    res = _json(r.out)
    assert res["status"] == "optimal" and res["board_valid"]
    assert res["stats"]["members"] == "backtrack,sat"


def test_options_take_json_mappings_for_solver_settings(cli):
    """``-O params=...`` passes solver settings as a JSON object (it used to arrive as a string,
    which every backend refused)."""
    r = cli("solve", "set2-4x4", "--backend", "highs", "-O", 'params={"mip_rel_gap": 0, "mip_heuristic_effort": 0.1}')
    assert r.code == 0 and "solved" in r.out, r
    r = cli("solve", "set2-4x4", "--backend", "highs", "-O", 'params={"no_such_highs_option": 1}')
    assert r.code == 2 and "HiGHS rejects option no_such_highs_option=1" in r.err, r  # it reached HiGHS
    r = cli("solve", "set2-4x4", "--backend", "cpsat", "-O", 'params={"linearization_level": 2, "cp_model_probing_level": 1}')
    assert r.code == 0 and "solved" in r.out, r
    for value, words in (('{"no_such_field": 1}', "unknown CP-SAT parameter 'no_such_field'"),
                         ("8", "option 'params' must be a mapping of SatParameters fields"),
                         ("{bad", "the value is not valid JSON")):
        r = cli("solve", "set2-4x4", "--backend", "cpsat", "-O", f"params={value}")
        assert r.code == 2 and words in r.err and "Traceback" not in r.err, r


def test_a_progress_line_says_the_best_board_once(capsys):
    """The CLI puts "best S/M" first; a backend's own "best S" in its line is dropped there."""
    from types import SimpleNamespace

    from emc.commands.solve import _live_status

    live = _live_status(SimpleNamespace(json=False, progress_every=1e-9), 60)
    live.update(55)
    live.progress("bound 60, best 55")
    live.progress("cpsat: bound 59, best 55, nodes 10")
    lines = [x for x in capsys.readouterr().err.splitlines() if "solving:" in x]
    assert [x.split("] ", 1)[1] for x in lines] == ["solving: best 55/60", "solving: best 55/60, bound 60",
                                                   "solving: best 55/60, cpsat: bound 59, nodes 10"]


@pytest.mark.slow
def test_an_unanswered_search_saves_its_deepest_partial_fill(cli, tmp_path):
    """Stopped by its time limit, the scan-row search on set 2's 8x8 (minutes from a board)
    reports, writes and draws the deepest partial fill it reached, marked as such: its pieces
    used once, every edge between two of them matched, the rest empty."""
    out, png = tmp_path / "deep.json", tmp_path / "deep.svg"
    r = cli("solve", "set2-8x8", "-t", "3", "-o", out, "--render", png)  # under load, a run of 1 s may end before the workers search
    assert r.code == 3, r
    assert "(time limit reached)" in r.out and "(interrupted)" not in r.out  # no Ctrl-C here
    m = re.search(r"deepest partial fill: (\d+) of 64 free cells, every edge between them matched; "
                  r"board score (\d+)/112 \(not a solution\)$", r.out, re.M)
    assert m, r.out
    assert f"wrote {out} (the deepest partial fill)" in r.out and png.stat().st_size > 0
    # the picture says it too (its title said only the score and the empty cells)
    assert f"deepest partial fill, not a solution: score {m.group(2)}/112" in png.read_text()
    puzzle = emc.load("set2-8x8")
    board = read_board(out, puzzle)
    filled = int((board.piece >= 0).sum())
    assert filled == int(m.group(1)) and 0 < filled < 64
    rep = verify(puzzle, board, allow_partial=True)
    assert rep.valid and rep.scores["score"] == int(m.group(2))
    assert all(x.colour_a < 0 or x.colour_b < 0 for x in mismatches(puzzle, board))
    assert json.loads(out.read_text())["solver"]["partial"] is True

    res = _json(cli("solve", "set2-8x8", "-t", "1", "--json").out)
    assert res["status"] == "unknown" and res["board_score"] is None
    assert 0 < res["partial_cells"] < 64 and res["partial_score"] > 0


def test_a_backend_without_partial_fills_writes_nothing_and_says_so(cli, tmp_path):
    out = tmp_path / "none.json"
    r = cli("solve", "set2-8x8", "--backend", "sat", "-t", "1", "-o", out)
    assert r.code == 3 and "no board to write: the backend found none" in r.out and not out.exists()


@pytest.mark.skipif(not get_backend("minizinc").available(), reason="MiniZinc is not installed")
def test_a_sub_problem_stopped_before_any_board_answers_with_the_fixed_fill(cli, tmp_path):
    """Optimising 40 cells of a complete --fixed board, MiniZinc given 0.01 s (less than it takes
    to compile the model) finds no board; the fixed board's own fill is an answer all the same."""
    from emc.heuristics.core.starts import random_board

    puzzle = emc.load("set2-8x8")
    fixed, out = tmp_path / "fixed.json", tmp_path / "out.json"
    write_board(random_board(puzzle, 1), puzzle, fixed)
    r = cli("solve", "set2-8x8", "--fixed", fixed, "--free", "rows:1-5", "-b", "minizinc", "-t", "0.01", "-o", out)
    own = emc.verify(puzzle, read_board(fixed, puzzle)).scores["score"]
    assert "the backend found no board better than --fixed's own fill" in r.out, r
    assert re.search(r"^status FEASIBLE  matched \d+/75", r.out, re.M) and f"board score {own}/112" in r.out
    assert read_board(out, puzzle) == read_board(fixed, puzzle)
    assert json.loads(out.read_text())["solver"]["kept_fixed"] is True
    res = _json(cli("solve", "set2-8x8", "--fixed", fixed, "--free", "rows:1-5", "-b", "minizinc", "-t", "0.01",
                    "--json").out)
    assert res["kept_fixed"] and res["status"] == "feasible" and res["board_score"] == own
    # a feasibility question is not answered by a fill with unmatched edges
    r = cli("solve", "set2-8x8", "--fixed", fixed, "--free", "rows:1-5", "-b", "minizinc", "-t", "0.01",
            "--goal", "feasibility", "-o", out.with_suffix(".2.json"))
    assert "no board to write" in r.out and "--fixed's own fill" not in r.out


def test_the_fixed_fill_kept_is_optimal_only_when_the_backend_proved_its_score_the_bound():
    """A backend stopped without a board as good as the --fixed board's own fill: that fill is
    the answer, OPTIMAL when the backend had proved a bound equal to its score, else FEASIBLE;
    a backend's better board, or a finished answer, is left as it is."""
    from emc.backends.base import Result, Status
    from emc.commands.solve import _keep_fixed
    from emc.heuristics.core.starts import random_board
    from emc.model import Goal

    puzzle = emc.load("set2-5x5")
    fixed = random_board(puzzle, 2)
    sp = emc.Subproblem.region(puzzle, fixed, [puzzle.cell_of(r, c) for r in (1, 2) for c in (1, 2)])
    own = sp.score(fixed)
    for bound, status in ((own, Status.OPTIMAL), (own + 1, Status.FEASIBLE), (None, Status.FEASIBLE)):
        res = Result(Status.UNKNOWN, bound=bound, interrupted=True)
        assert _keep_fixed(sp, res, fixed) and res.status is status and res.objective == own
        assert res.board == fixed and res.board is not fixed
    better = Result(Status.FEASIBLE, fixed.copy(), own + 1, own + 2)  # claimed better: not replaced
    assert not _keep_fixed(sp, better, fixed) and better.objective == own + 1
    done = Result(Status.OPTIMAL, None, None, own)
    assert not _keep_fixed(sp, done, fixed) and done.board is None
    assert not _keep_fixed(sp.with_goal(Goal.FEASIBILITY), Result(Status.UNKNOWN), fixed)

def test_json_outputs_keep_what_the_text_shows(cli, tmp_path):
    """count --json carries the kept boards (they used to be dropped) and solve --json --show,
    whose drawing would break the JSON, is refused."""
    r = cli("count", "set2-4x4", "--keep", "2", "--json")
    data = json.loads(r.out)
    assert r.code == 0 and data["count"] == count_solutions(emc.load("set2-4x4")) and len(data["boards"]) == 2
    p = emc.load("set2-4x4")
    for text in data["boards"]:
        path = tmp_path / "b.edges"
        path.write_text(text + "\n")
        assert emc.verify(p, emc.read_board(path, p)).solved
    r = cli("solve", "set2-4x4", "--json", "--show")
    assert r.code == 2 and "--show draws on the terminal" in r.err


def test_count_says_when_a_piece_looks_the_same_turned(cli, tmp_path):
    puzzle, _ = emc.generate(3, 3, frame_colours=2, inner_colours=1, seed=5)  # its centre piece is 3 3 3 3
    path = tmp_path / "p.txt"
    emc.write_puzzle(puzzle, path)
    r = cli("count", path)
    k = int(np.flatnonzero((puzzle.pieces == puzzle.pieces[:, :1]).all(axis=1))[0]) + 1
    assert r.code == 0 and f"piece(s) {k} look the same turned" in r.out
    assert "look the same turned" not in cli("count", "set2-4x4").out


def test_count_says_which_stop_fired(cli):
    r = cli("count", "clue1", "--limit", 100)
    assert r.code == 0 and "--limit 100 reached: the count is a lower bound" in r.out, r
    r = cli("count", "clue1", "--limit", 100, "--json")
    res = json.loads(r.out)
    assert res["count"] == 100 and not res["complete"] and res["stopped_by"] == "limit"
    r = cli("count", "set2-4x4", "--json")
    assert json.loads(r.out)["stopped_by"] is None and json.loads(r.out)["complete"]


def test_a_partial_board_and_threads_beyond_the_cores_are_told(cli):
    import os

    r = cli("solve", "set2-4x4", "--free", "r1c1-r2c2")
    assert r.code == 0 and "valid partial board (12 empty cells outside the sub-problem)" in r.out, r
    r = cli("solve", "set2-4x4", "--threads", (os.cpu_count() or 1) + 1)
    assert r.code == 0 and f"this machine has {os.cpu_count() or 1} cores" in r.out, r


def test_clique_says_its_answer_optimises_the_clique_not_the_edges(cli, tmp_path):
    """A window with no perfect fill: the clique backend's largest clique is completed by
    another backend, and solve says so instead of letting the score pass as an optimum."""
    import emc

    p, b = emc.generate(5, 5, 2, 3, seed=1)
    c, far = p.cell_of(1, 2), p.cell_of(3, 3)
    b.piece[[c, far]] = b.piece[[far, c]]
    pz, bd = tmp_path / "p.json", tmp_path / "b.json"
    emc.write_puzzle(p, pz)
    emc.write_board(b, p, bd)
    r = cli("solve", pz, "--fixed", bd, "--free", "r2c2,r2c3,r3c2", "-b", "clique", "--json")
    stats = json.loads(r.out)["stats"]
    assert stats["clique_size"] < stats["target"] and stats.get("completed_with"), stats
    r = cli("solve", pz, "--fixed", bd, "--free", "r2c2,r2c3,r3c2", "-b", "clique")
    assert r.code == 0 and "the other cells filled by" in r.out and "not proven optimal" in r.out, r


def test_count_names_the_hints_it_frees_and_keeps_runs_apart(cli, tmp_path):
    """--free over a hint counts fills that need not keep it, and says so (as solve and export
    do); --out-dir refuses a folder that holds an earlier count's boards, which the new ones
    would mix with."""
    import emc

    sol = tmp_path / "s.json"
    assert cli("solve", "set2-4x4", "-o", sol).code == 0
    P = emc.load("set2-4x4")
    b = emc.read_board(sol, P)
    hinted = P.with_hints([emc.Hint(5, int(b.piece[5]), int(b.rotation[5]))], name="hinted")
    pf = tmp_path / "h.json"
    emc.write_puzzle(hinted, pf)
    kept = json.loads(cli("count", pf, "--json").out)
    freed = json.loads(cli("count", pf, "--free", "all", "--json").out)
    assert kept["hints_not_kept"] == [] and freed["hints_not_kept"] == ["r2c2"]
    assert "hints not kept (their cells are free): r2c2" in freed["symmetry"]
    assert freed["count"] >= kept["count"] >= 1
    out = tmp_path / "sols"
    r = cli("count", "set2-4x4", "--keep", "3", "--out-dir", out)
    assert r.code == 0 and len(list(out.glob("solution-*.json"))) == 3, r
    r = cli("count", "set2-4x4", "--keep", "2", "--out-dir", out)
    assert r.code == 2 and "already holds 3 solution files (solution-0001.json ...) from an earlier count" in r.err, r


@pytest.mark.slow
def test_hints_not_kept_are_said_without_a_board_too(cli):
    """A run that found no board (time-out, infeasible) reported hints_not_kept: [] though the
    region freed a hint: it is a fact of the sub-problem."""
    r = cli("solve", "eternity2", "--free", "all", "-b", "sat", "-t", "0.5", "--json")
    d = json.loads(r.out)
    assert d["board"] is None and d["hints_not_kept"] == ["r9c8"], d
    r = cli("solve", "eternity2", "--free", "all", "-b", "sat", "-t", "0.5")
    assert "hints not kept (their cells are free): r9c8" in r.out, r


def test_variant_flag_and_option_must_agree(cli):
    r = cli("solve", "set2-4x4", "-b", "cpsat", "--variant", "sum", "-O", "variant=table")
    assert r.code == 2 and "--variant sum and -O variant=table disagree" in r.err, r
    assert cli("solve", "set2-4x4", "-b", "cpsat", "--variant", "sum", "-O", "variant=sum").code == 0


def test_solve_json_holds_the_board_it_reports(cli, tmp_path):
    import emc

    out = tmp_path / "b.json"
    r = cli("solve", "set2-5x5", "-b", "sat", "--json", "-o", out)
    d = json.loads(r.out)
    assert d["board"] == json.loads(out.read_text())  # what -o writes
    P = emc.load("set2-5x5")
    (tmp_path / "from_json.json").write_text(json.dumps(d["board"]))
    assert emc.verify(P, emc.read_board(tmp_path / "from_json.json", P)).solved


@pytest.mark.slow
def test_solve_json_says_which_stop_cut_the_run_short(cli):
    """--json has "interrupted" for any cut-short run and "stopped_by" to tell a time limit from
    Ctrl-C (as `emc count --json` does); the finished run is checked above."""
    d = _json(cli("solve", "set2-8x8", "-t", "2", "--json").out)  # minutes from a board
    assert d["status"] == "unknown" and d["interrupted"] is True and d["stopped_by"] == "time-limit", d


def test_help_examples_of_backend_options_are_accepted(cli):
    """The -O examples printed by --help (solve's and the heuristics') must be ones emc itself accepts."""
    help_text = " ".join(cli("solve", "--help").out.split())
    assert "-O solver=glucose4 with -b sat" in help_text and "linearization_level" in help_text, help_text
    assert cli("count", "set2-4x4", "-b", "sat", "-O", "solver=glucose4").code == 0
    assert cli("solve", "set2-4x4", "-b", "cpsat", "-O", 'params={"linearization_level": 2}').code == 0
    assert cli("solve", "set2-4x4", "-b", "clique", "-O", "method=heuristic").code in (0, 3)
    construct_help = " ".join(cli("construct", "--help").out.split())
    assert "-O variant=table with -b cpsat" in construct_help, construct_help
    assert cli("construct", "set2-5x5", "-b", "cpsat", "-O", "variant=table").code == 0


@pytest.mark.parametrize("backend, option", [("cpsat", "variant=1"), ("sat", "variant=2"), ("highs", "variant=true"),
                                             ("minizinc", "variant=[1]"), ("sat", "portfolio=1"),
                                             ("sat", "portfolio=[1]")])
def test_option_values_of_the_wrong_type_get_one_line(cli, backend, option):
    """-O values read as JSON numbers or lists reached difflib or list() and raised TypeError."""
    r = cli("solve", "set2-3x3", "-b", backend, "-O", option)
    assert r.code == 2 and r.err.startswith("emc: error:") and len(r.err.strip().splitlines()) == 1, r


def test_count_takes_solver_and_variant_and_says_why_it_has_no_threads_or_seed(cli):
    """count used to lack --solver and --variant while the backends' messages pointed at them,
    and at --threads and --seed, which a count does not have."""
    r = cli("count", "set2-4x4", "-b", "sat", "--solver", "glucose4")
    assert r.code == 0 and r.out.startswith("set2-4x4: exactly 12 solution(s)  [sat"), r
    r = cli("count", "set2-4x4", "-b", "cpsat", "--variant", "table")
    assert r.code == 0 and r.out.startswith("set2-4x4: exactly 12 solution(s)  [cpsat"), r
    for args, words in ((("-b", "sat", "-O", "seed=3"), "-O seed: a count enumerates on one thread with the solver's "
                                                         "default seed; it takes no seed"),
                        (("-b", "cpsat", "-O", 'params={"num_workers": 2}'),
                         "cpsat params num_workers: a count enumerates with one worker and the solver's default seed"),
                        (("-b", "sat", "--solver", "glucose4", "-O", "solver=cadical195"),
                         "--solver glucose4 and -O solver=cadical195 disagree")):
        r = cli("count", "set2-4x4", *args)
        assert r.code == 2 and words in r.err, r


@pytest.mark.slow
def test_a_solve_killed_outright_keeps_the_boards_it_saved(tmp_path):
    """SIGKILL cannot be caught: what --save-every wrote while CP-SAT improved the board (in its
    own threads) survives, each a verified fill of the sub-problem; here -o is the --fixed file."""
    import signal
    import subprocess
    import sys

    from emc.cells import make_subproblem
    from emc.heuristics.core.starts import random_board
    from emc.model import Goal
    from emc.score import check_subproblem_solution
    from helpers import eventually

    puzzle = emc.load("eternity2")
    board = tmp_path / "b.json"
    start = random_board(puzzle, 3)
    write_board(start, puzzle, board)
    own = verify(puzzle, start).scores["score"]
    proc = subprocess.Popen([sys.executable, "-u", "-m", "emc", "solve", "eternity2", "--fixed", str(board), "--free",
                             "r1c1-r8c8", "-b", "cpsat", "-t", "300", "--save-every", "0.2", "--progress-every", "0",
                             "-o", str(board)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    scores = []

    def saved_twice():
        doc = json.loads(board.read_text())  # written whole each time (atomically): always a complete file
        if doc.get("solver", {}).get("saved_during_run") and doc["score"] not in scores:
            scores.append(doc["score"])
        return len(scores) >= 2

    try:
        assert eventually(saved_twice, timeout=240), scores
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    doc = json.loads(board.read_text())
    saved = read_board(board, puzzle)
    sp = make_subproblem(puzzle, "r1c1-r8c8", start, Goal.OPTIMISATION)
    assert not check_subproblem_solution(sp, saved)  # the cells outside the region as they were
    assert verify(puzzle, saved).valid and doc["score"] == verify(puzzle, saved).scores["score"] > own
    assert own < scores[0] < scores[1] <= doc["score"]
    assert doc["solver"]["backend"] == "cpsat" and doc["solver"]["saved_during_run"] is True


def test_a_killed_backtrack_search_leaves_its_deepest_partial_fill(tmp_path):
    """The scan-row search has no board until it solves: with -o it keeps its deepest partial
    fill on disk as it grows (marked partial), so that SIGKILL on a long Eternity II run still
    leaves the fill it reached."""
    import signal
    import subprocess
    import sys

    from helpers import eventually

    puzzle = emc.load("eternity2")
    out = tmp_path / "deep.json"
    proc = subprocess.Popen([sys.executable, "-u", "-m", "emc", "solve", "eternity2", "-t", "600", "--save-every",
                             "0.2", "--progress-every", "0", "-O", "slice_nodes=100000", "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert eventually(out.exists, timeout=240)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    doc = json.loads(out.read_text())  # written atomically: a whole file
    saved = read_board(out, puzzle)
    report = verify(puzzle, saved, allow_partial=True)
    assert report.valid and doc["empty_cells"] == int((saved.piece < 0).sum()) > 0
    assert doc["solver"]["partial"] is True and doc["solver"]["saved_during_run"] is True
    assert doc["solver"]["status"] == "unknown" and doc["solver"]["backend"] == "backtrack"


def test_a_search_that_proves_no_board_removes_the_partial_fill_it_saved(cli, tmp_path):
    """Partial fills saved during the run, then a proof that no perfect board exists: the file
    would contradict the answer, so it goes, and the report says so."""
    from helpers import unsolvable

    pz, out = tmp_path / "p.json", tmp_path / "b.json"
    emc.write_puzzle(unsolvable(emc.load("set2-6x6")), pz)
    r = cli("solve", pz, "-o", out, "--save-every", "0.01", "--threads", "1", "-O", "slice_nodes=10000")
    assert r.code == 0 and "status INFEASIBLE" in r.out, r
    assert f"no board to write: the backend found none (removed the partial fill saved to {out} during the run)" \
        in r.out and not out.exists()


def test_a_search_that_proves_no_board_puts_back_the_file_o_held_before(cli, tmp_path):
    """The same with an -o file from before the run: the partial fills saved during the run
    replaced it, and the proof that no board exists gives it back, byte for byte and with its
    permissions, rather than leaving nothing where the user had a file."""
    from helpers import unsolvable

    pz, out = tmp_path / "p.json", tmp_path / "b.json"
    emc.write_puzzle(unsolvable(emc.load("set2-6x6")), pz)
    before = b"an older file, not a board\n"
    out.write_bytes(before)
    out.chmod(0o640)
    r = cli("solve", pz, "-o", out, "--save-every", "0.01", "--threads", "1", "-O", "slice_nodes=10000")
    assert r.code == 0 and "status INFEASIBLE" in r.out, r
    assert f"no board to write: the backend found none ({out} holds again what it held before the run, " \
        "not the partial fill saved during it)" in r.out, r.out
    assert out.read_bytes() == before and out.stat().st_mode & 0o777 == 0o640


def test_the_solve_saver_writes_partial_fills_but_never_over_a_board(tmp_path):
    import argparse

    from emc.commands.solve import _solve_saver

    puzzle = emc.load("set2-5x5")
    sp = emc.Subproblem.whole(puzzle)
    solved = get_backend("backtrack").solve(sp, seed=0).board
    partial = solved.copy()
    partial.clear(range(10, 25))
    broken = partial.copy()
    broken.rotation[0] = (broken.rotation[0] + 1) % 4  # a corner turned off the frame
    out = tmp_path / "b.json"
    args = argparse.Namespace(output=str(out), save_every=1e-6, seed=0)
    with _solve_saver(args, puzzle, sp, "backtrack", None) as saver:
        saver.offer(broken)  # fails verification: not written
        assert not out.exists()
        saver.offer(partial)
        assert read_board(out, puzzle) == partial and json.loads(out.read_text())["solver"]["partial"] is True
        saver.offer(solved)
        saver.offer(partial)  # a partial fill never replaces a board
    assert read_board(out, puzzle) == solved and "partial" not in json.loads(out.read_text())["solver"]
    write_board(partial, puzzle, out)
    deeper = solved.copy()
    deeper.clear(range(20, 25))
    args.fixed = str(out)  # -o is the --fixed board, complete or not: no partial fill goes over it
    with _solve_saver(args, puzzle, sp, "backtrack", None) as saver:
        saver.offer(deeper)
    assert read_board(out, puzzle) == partial

def test_solve_saves_only_verified_boards_better_than_the_fixed_one_and_none_after_the_run(tmp_path):
    import argparse

    from emc.cells import make_subproblem
    from emc.commands.solve import _solve_saver
    from emc.model import Goal

    puzzle = emc.load("set2-5x5")
    solved = get_backend("backtrack").solve(emc.Subproblem.whole(puzzle), seed=0).board
    worse = solved.copy()  # two inner pieces swapped: a complete --fixed board with unmatched edges
    a, b = 6, 12
    worse.piece[[a, b]] = worse.piece[[b, a]]
    sp = make_subproblem(puzzle, "r2c2-r3c3", worse, Goal.OPTIMISATION)
    assert sp.score(worse) < sp.score(solved) == sp.max_score
    out = tmp_path / "b.json"
    write_board(worse, puzzle, out)
    args = argparse.Namespace(output=str(out), save_every=1e-6, seed=0)
    twice = solved.copy()
    twice.piece[a] = twice.piece[0]  # a corner piece in an inner cell: used twice
    args.save_every = 3600  # declined boards do not count as written: the next is written at once
    with _solve_saver(args, puzzle, sp, "cpsat", worse) as saver:
        saver.offer(twice)
        saver.offer(worse)  # no better than the file's own board
        assert read_board(out, puzzle) == worse and "solver" not in json.loads(out.read_text())
        saver.offer(solved)
        assert read_board(out, puzzle) == solved
        assert json.loads(out.read_text())["solver"]["saved_during_run"] is True
    args.save_every = 1e-6
    with _solve_saver(args, puzzle, sp.with_goal(Goal.FEASIBILITY), "sat", None) as saver:
        saver.offer(worse)  # a feasibility run keeps perfect boards only
        assert read_board(out, puzzle) == solved
    saver.offer(worse)  # a solver thread that outlives the run: the final write must stay the last
    assert read_board(out, puzzle) == solved
    with _solve_saver(args, puzzle, sp.with_goal(Goal.FEASIBILITY), "sat", None) as saver:
        write_board(worse, puzzle, out)
        saver.offer(solved)
        assert read_board(out, puzzle) == solved


def test_save_every_is_off_for_a_stream_and_refused_when_asked_for(cli, tmp_path):
    """Writing into a stream or FIFO adds each board after the last: no saving there."""
    import argparse

    from emc.commands.common import save_seconds

    assert save_seconds(argparse.Namespace(output="/dev/stdout", save_every=None)) == 0
    assert save_seconds(argparse.Namespace(output=str(tmp_path / "b.json"), save_every=None)) == 60
    assert save_seconds(argparse.Namespace(output=str(tmp_path / "b.json"), save_every=0)) == 0
    for command in ("solve", "matheuristic"):
        r = cli(command, "set2-4x4", "-o", "/dev/stdout", "--save-every", "5")
        assert r.code == 2 and "/dev/stdout is not a file" in r.err and len(r.err.strip().splitlines()) == 1, r
        assert cli(command, "set2-4x4", "-o", "/dev/null", "--save-every", "0").code == 0


@pytest.mark.slow
def test_a_reader_that_stops_early_ends_the_count_quietly(tmp_path):
    """`emc count ... | head`: rich ended the command with status 1 when the pipe closed; now the
    rest goes nowhere and the exit status is 0, with nothing on stderr, files written."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "emc", "count", "set2-5x4", "--no-symmetry", "--keep", "2000",
                             "--progress-every", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("set2-5x4: exactly 1648 solution(s)")
    proc.stdout.close()  # 1,648 board lines (130 KB) do not fit in the pipe: the count meets the closed end
    err = proc.stderr.read()
    # (a first run after installing notes on stderr that it compiles the kernels: nothing else goes there)
    assert proc.wait(timeout=120) == 0 and "error" not in err and "Traceback" not in err, err
    # the same through rich (the JSON report), which used to exit with status 1 itself
    proc = subprocess.Popen([sys.executable, "-m", "emc", "count", "set2-5x4", "--no-symmetry", "--keep", "2000",
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "{"
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0 and "error" not in err and "Traceback" not in err, err


def test_count_keep_of_a_puzzle_past_z_needs_an_out_dir(cli, tmp_path):
    """--keep prints boards as board_edges letters, which stop at colour 25 ('z'): a puzzle with
    more colours is refused before the count, unless --out-dir takes the boards as JSON."""
    p, _ = emc.generate(4, 4, 3, 30, seed=1)
    path = tmp_path / "many.json"
    emc.write_puzzle(p, path)
    assert p.max_colour > 25
    r = cli("count", path, "--keep", 2)
    assert r.code == 2 and "--keep prints boards as board_edges strings" in r.err and r.out == "", r
    r = cli("count", path, "--keep", 2, "--out-dir", tmp_path / "boards")
    assert r.code == 0, r


def _command_parsers() -> dict:
    import argparse

    from emc.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_seeds_and_progress_intervals_read_the_same_on_every_command(cli):
    """--seed is 0 to 2^31 - 1 wherever it appears (solve had that range, generate and the
    heuristics none), and --progress-every has one default (10 s on solve and count, 5 on the
    heuristics before): the parser of every command agrees, and each refuses the same seed."""
    from emc.backends.base import MAX_SEED
    from emc.commands.common import PROGRESS_EVERY

    seeds, progress = [], []
    for name, parser in _command_parsers().items():
        for action in parser._actions:
            if action.dest == "seed":
                seeds.append(name)
                assert action.default == 0, name
                assert f"0 to {MAX_SEED}" in action.help, name
                assert action.type(str(MAX_SEED)) == MAX_SEED, name
            if action.dest == "progress_every":
                progress.append(name)
                assert action.default == PROGRESS_EVERY == 10, name
    assert {"solve", "generate", "matheuristic", "construct", "improve", "optimise"} <= set(seeds)
    assert {"solve", "count", "matheuristic", "construct", "improve", "optimise"} <= set(progress)
    for name in seeds:
        r = cli(name, "--seed", MAX_SEED + 1)
        assert r.code == 2 and f"argument --seed: {MAX_SEED + 1} is too large: seeds are 0 to {MAX_SEED}" in r.err, r
    r = cli("suite", "-o", "x", "--formats", "cnf", "--generate", f"3x3:2:2:{MAX_SEED}-{MAX_SEED + 1}")
    assert r.code == 2 and f"seed {MAX_SEED + 1} is too large: seeds are 0 to {MAX_SEED}" in r.err, r


def test_the_threads_help_says_why_the_defaults_differ(cli):
    """--threads defaults to 2 on solve and 1 on the heuristics; each help says so and why."""
    solve = next(a for a in _command_parsers()["solve"]._actions if a.dest == "threads")
    assert solve.default == 2 and "heuristics default to 1" in solve.help
    for name in ("matheuristic", "construct", "improve"):
        action = next(a for a in _command_parsers()[name]._actions if a.dest == "threads")
        assert action.default == 1 and "emc solve has 2" in action.help and "repeats exactly" in action.help, name


def test_backends_and_methods_fit_80_columns_and_keep_everything(cli, monkeypatch):
    """`emc backends` printed a six-column table 160 wide (and hid a missing backend's
    description behind its install hint); it is one block per backend now, within 80 columns
    on an 80-column console, with every fact --json has. `emc methods` fits as well."""
    from emc.backends import BACKENDS, backend_class
    from emc.commands import common

    monkeypatch.setattr(common.console, "width", 80)
    cls = backend_class("minizinc")  # the longest install hint, shown as when MiniZinc is missing
    monkeypatch.setattr(cls, "available", classmethod(lambda c: False))
    r = cli("backends")
    assert r.code == 0, r
    assert max(len(line) for line in r.out.splitlines()) <= 80, r.out
    text = " ".join(r.out.split())  # wrapped lines joined
    rows = json.loads(cli("backends", "--json").out)
    assert [row["name"] for row in rows] == list(BACKENDS)
    for row in rows:
        head = f"{row['name']} installed" + (f" ({row['version']})" if row["version"] else "") if row["available"] \
            else f"{row['name']} not installed install: {row['install']}"
        assert head in text, row["name"]
        assert " ".join(row["description"].split()) in text, row["name"]
        assert (f"formulations: {', '.join(row['formulations'])}; can do: {', '.join(row['capabilities'])}"
                in text), row["name"]
    assert "minizinc not installed install: apt-get install minizinc" in text and "(minizinc)" in text
    for task in ("feasibility", "enumeration", "heuristic"):
        assert f"{task}: " in text
    r = cli("methods")
    assert r.code == 0 and max(len(line) for line in r.out.splitlines()) <= 80, r.out
    r = cli("methods", "matheuristic")
    assert r.code == 0 and max(len(line) for line in r.out.splitlines()) <= 80, r.out


@pytest.mark.parametrize("backend", ["backtrack", "sat", "cpsat", "clique", "minizinc"])
def test_a_count_limit_larger_than_any_counter_is_no_limit(cli, backend):
    """--limit 99999999999999999999 reached numba's 64-bit integers as a traceback (backtrack,
    clique); no search counts that far, so such a limit counts everything."""
    from emc.backends import backend_class

    if not backend_class(backend).available():
        pytest.skip(f"{backend} is not installed")
    r = cli("count", "set2-4x4", "-b", backend, "--limit", "99999999999999999999", "--json")
    assert r.code == 0 and "Traceback" not in r.err, r
    d = json.loads(r.out)
    assert d["count"] == count_solutions(emc.load("set2-4x4"), symmetry=True) and d["complete"] is True, d
    r = cli("count", "set2-4x4", "-b", backend, "--limit", 2**63 - 1, "--json")
    assert r.code == 0 and json.loads(r.out)["complete"] is True, r
