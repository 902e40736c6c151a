"""`emc decode`: answers of outside solvers to exported files, turned back into boards.

Each test exports a file, solves that file (not emc's model in memory) with a real solver
(PySAT's CaDiCaL and RC2, networkx's clique search, HiGHS reading the LP/MPS), writes the
answer the way solvers print it, and decodes it; emc's verifier judges the board.
"""

from __future__ import annotations

import json
import re

import networkx as nx
import pytest

import emc
from emc.answers import read_columns, read_literals, read_vertices
from emc.errors import InputError


def _board(path, name):
    p = emc.load(name) if isinstance(name, str) else name
    return emc.read_board(path, p)


def _sat_model(cnf_path):
    from pysat.formula import CNF
    from pysat.solvers import Solver

    f = CNF(from_file=str(cnf_path))
    with Solver(name="cadical195", bootstrap_with=f.clauses) as s:
        assert s.solve()
        return s.get_model()


def test_a_sat_answer_in_every_style_decodes_to_the_same_solved_board(tmp_path, cli):
    cnf = tmp_path / "5.cnf"
    assert cli("export", "set2-5x5", "-f", "cnf", "-o", cnf).code == 0
    model = _sat_model(cnf)
    styles = {
        "competition": "c solver\ns SATISFIABLE\n" + "".join(
            "v " + " ".join(map(str, model[i:i + 10])) + "\n" for i in range(0, len(model), 10)) + "v 0\n",
        "bits": "s SATISFIABLE\nv " + "".join("1" if v > 0 else "0" for v in model) + "\n",
        "bare": "SAT\n" + " ".join(map(str, model)) + " 0\n",
    }
    boards = []
    for style, text in styles.items():
        ans = tmp_path / f"{style}.out"
        ans.write_text(text)
        out = tmp_path / f"{style}.json"
        r = cli("decode", "set2-5x5", ans, "-f", "cnf", "--model", cnf, "-o", out)
        assert r.code == 0 and "25 of 25 free cells placed by the answer; valid and solved" in r.out, (style, r)
        board = _board(out, "set2-5x5")
        assert emc.verify(emc.load("set2-5x5"), board).solved
        boards.append(board.piece.tolist() + board.rotation.tolist())
    assert boards[0] == boards[1] == boards[2]


def test_a_maxsat_answer_to_a_window_gives_the_optimum_it_claims(tmp_path, cli):
    """A WCNF window of a damaged board, solved by RC2 from the file: the decoded board scores
    the maximum minus the cost RC2 reports, and keeps every cell outside the window."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    p, planted = emc.generate(6, 6, 2, 4, seed=3)
    pz, fixed = tmp_path / "p.json", tmp_path / "fixed.json"
    emc.write_puzzle(p, pz)
    damaged = planted.copy()
    a, b = 2 * 6 + 2, 3 * 6 + 3  # swap two inner pieces inside the window
    damaged.piece[[a, b]] = damaged.piece[[b, a]]
    emc.write_board(damaged, p, fixed)
    args = ["--fixed", fixed, "--free", "r2c2-r5c5"]
    w = tmp_path / "w.wcnf"
    assert cli("export", pz, "-f", "wcnf", *args, "-o", w).code == 0
    with RC2(WCNF(from_file=str(w))) as rc2:
        model = rc2.compute()
        cost = rc2.cost
    ans = tmp_path / "rc2.out"
    ans.write_text(f"o {cost}\ns OPTIMUM FOUND\nv " + " ".join(map(str, model)) + "\n")
    out = tmp_path / "best.json"
    r = cli("decode", pz, ans, "-f", "wcnf", *args, "--model", w, "-o", out, "--json")
    assert r.code == 0, r
    rep = json.loads(r.out)
    assert rep["valid"] and rep["placed"] == 16 and rep["free_cells"] == 16
    board = _board(out, p)
    assert emc.verify(p, board).valid
    window = {r_ * 6 + c for r_ in range(1, 5) for c in range(1, 5)}
    assert all(board.piece[i] == damaged.piece[i] for i in range(36) if i not in window)
    # the cost counts the window's unmatched counted edges; the board's own score agrees
    assert emc.score(p, board) == p.max_score - cost


def test_a_clique_found_by_networkx_in_the_clq_file_decodes_to_a_solution(tmp_path, cli):
    clq = tmp_path / "3.clq"
    assert cli("export", "set2-3x3", "-f", "clq", "-o", clq).code == 0
    g = nx.Graph()
    for line in clq.read_text().splitlines():
        if line.startswith("p "):
            g.add_nodes_from(range(1, int(line.split()[2]) + 1))
        elif line.startswith("e "):
            _, u, v = line.split()
            g.add_edge(int(u), int(v))
    clique, size = nx.max_weight_clique(g, weight=None)
    assert size == 9
    ans = tmp_path / "clique.txt"
    ans.write_text("c found by networkx\nM " + " ".join(map(str, sorted(clique))) + "\n")
    for fmt in ("clq", "conflict"):  # an independent set of the complement is the same vertex set
        r = cli("decode", "set2-3x3", ans, "-f", fmt, "--show")
        assert r.code == 0 and "valid and solved" in r.out, (fmt, r)
    # a smaller clique is a partial board (written), but no solution of the file: exit 1
    part = tmp_path / "part.txt"
    part.write_text("M " + " ".join(map(str, sorted(clique)[:6])) + "\n")
    r = cli("decode", "set2-3x3", part, "-f", "clq", "-o", tmp_path / "part.json")
    assert r.code == 1 and "6 of 9 free cells placed by the answer (3 left empty); partial" in r.out, r
    assert "a clique of 6 vertices, short of the file's target of 9" in r.out, r
    assert emc.verify(emc.load("set2-3x3"), _board(tmp_path / "part.json", "set2-3x3"), allow_partial=True).valid
    r = cli("decode", "set2-3x3", part, "-f", "conflict", "--json")
    assert r.code == 1 and json.loads(r.out)["valid"] is False and "an independent set of 6" in r.out, r
    not_clique = tmp_path / "bad.txt"
    not_clique.write_text("1 2\n")
    r = cli("decode", "set2-3x3", not_clique, "-f", "clq")
    assert r.code == 2 and "the set is not a clique" in r.err and r.err.startswith(f"emc: error: {not_clique}"), r
    r = cli("decode", "set2-3x3", not_clique, "-f", "conflict")  # in the complement the two are joined
    assert r.code == 2 and "vertices 1 and 2 are joined in the conflict graph: the set is not independent" in r.err, r


@pytest.mark.parametrize("fmt,variant", [("lp", "paper"), ("mps", "compact")])
def test_highs_solution_file_of_the_exported_milp_decodes(tmp_path, cli, fmt, variant):
    import highspy

    model = tmp_path / f"4.{fmt}"
    assert cli("export", "set2-4x4", "-f", fmt, "--variant", variant, "--goal", "feasibility", "-o", model).code == 0
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(model))
    h.run()
    sol = tmp_path / "4.sol"
    h.writeSolution(str(sol), 0)  # primal values, then duals under the same names
    r = cli("decode", "set2-4x4", sol, "-f", fmt, "-o", tmp_path / "4.json")
    assert r.code == 0 and "16 of 16 free cells placed by the answer; valid and solved" in r.out, r
    h.writeSolution(str(sol), 1)  # "pretty": the name last, the value under the Primal heading
    assert "Primal" in sol.read_text()
    r = cli("decode", "set2-4x4", sol, "-f", fmt, "-o", tmp_path / "4p.json")
    assert r.code == 0 and "16 of 16 free cells placed by the answer; valid and solved" in r.out, r
    assert (tmp_path / "4p.json").read_text() == (tmp_path / "4.json").read_text()


def test_answers_that_hold_no_board_or_belong_elsewhere_are_refused(tmp_path, cli):
    cnf = tmp_path / "4.cnf"
    assert cli("export", "set2-4x4", "-f", "cnf", "-o", cnf).code == 0
    model = _sat_model(cnf)
    ans = tmp_path / "a.out"
    ans.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    # the export's arguments differ: the header check names the difference
    r = cli("decode", "set2-4x4", ans, "-f", "cnf", "--no-symmetry", "--model", cnf)
    assert r.code == 2 and f"{cnf}:3: the header differs" in r.err and "symmetry breaking off" in r.err, r
    # without --model the numbering is another one: caught as an impossible answer, or the
    # board it gives fails the verifier; never reported as solved
    r = cli("decode", "set2-4x4", ans, "-f", "wcnf")
    assert r.code in (1, 2) and "solved" not in r.out, r
    unsat = tmp_path / "u.out"
    unsat.write_text("c\ns UNSATISFIABLE\n")
    r = cli("decode", "set2-4x4", unsat, "-f", "cnf")
    assert r.code == 2 and f"{unsat}:2: the solver's answer is UNSATISFIABLE" in r.err, r
    junk = tmp_path / "j.out"
    junk.write_text("v 1 2 x3 0\n")
    r = cli("decode", "set2-4x4", junk, "-f", "cnf")
    assert r.code == 2 and f"{junk}:1: a literal: 'x3' is not a whole number" in r.err, r
    r = cli("decode", "set2-4x4", ans, "-f", "cpsat")  # a SAT answer is no CP-SAT response
    assert r.code == 2 and f"{ans}:1: not a CP-SAT response in protobuf text, JSON or binary form" in r.err, r
    r = cli("decode", "set2-4x4", ans, "-f", "cnf", "-o", ans)
    assert r.code == 2 and "would overwrite the answer" in r.err, r


@pytest.mark.parametrize("fmt,text,line,words", [
    ("cnf", "s SATISFIABLE\nv 99999999 0\n", 2, "literal 99999999 is not a variable of this model"),
    ("cnf", "s SATISFIABLE\nv 1 2\nv 3 -3 0\n", 3, "variable 3 is given both true and false"),
    ("wcnf", "s OPTIMUM FOUND\nv 02020202020202020202\n", 2, "the 0/1 answer has '2' at character 2, not 0 or 1"),
    ("clq", "c found\nv 1 99999\n", 2, "vertex 99999 is not in 1.."),
    ("clq", "v 3\nv 5 3\n", 1, "vertex 3 is listed twice in the clique"),
    ("clq", "v 1\nv 2\n", 1, "vertices 1 and 2 are not joined"),
    ("lp", "x_p2_r1_c1_k0 0\nx_p1_r1_c1_k0 0.5\n", 2, "MILP column x_p1_r1_c1_k0 has the value 0.5"),
    ("lp", "x_p1_r1_c1_k0 0\nx_p99_r1_c1_k0 1\n", 2, "MILP column x_p99_r1_c1_k0 is outside the 4x4 puzzle"),
])
def test_a_value_at_fault_in_an_answer_is_named_with_its_line(tmp_path, cli, fmt, text, line, words):
    """A decoder's complaint about one literal, vertex or column named the file only."""
    ans = tmp_path / "a.out"
    ans.write_text(text)
    r = cli("decode", "set2-4x4", ans, "-f", fmt)
    assert r.code == 2 and f"{ans}:{line}: {words}" in r.err and r.err.count("\n") == 1, r


def test_a_negative_maxsat_cost_is_refused_with_its_line(tmp_path, cli):
    wcnf = tmp_path / "4.wcnf"
    assert cli("export", "set2-4x4", "-f", "wcnf", "-o", wcnf).code == 0
    from pysat.formula import WCNF
    from pysat.solvers import Solver

    with Solver(name="cadical195", bootstrap_with=WCNF(from_file=str(wcnf)).hard) as solver:
        assert solver.solve()
        model = solver.get_model()  # a whole board, so that the claimed cost is read
    ans = tmp_path / "a.out"
    ans.write_text("s OPTIMUM FOUND\no -5\nv " + " ".join(map(str, model)) + " 0\n")
    r = cli("decode", "set2-4x4", ans, "-f", "wcnf")
    assert r.code == 2 and f"{ans}:2: the cost -5 is negative" in r.err, r


def test_answers_that_are_not_whole_solutions_of_the_file_are_not_called_valid(tmp_path, cli):
    """A cut or foreign answer used to come out "valid", exit 0, as a partial board: every model
    of a CNF (every solution of an LP or MiniZinc model) fills every free cell."""
    cnf = tmp_path / "4.cnf"
    assert cli("export", "set2-4x4", "-f", "cnf", "-o", cnf).code == 0
    model = _sat_model(cnf)
    n_vars = int(next(ln for ln in cnf.read_text().splitlines() if ln.startswith("p cnf")).split()[2])
    ans = tmp_path / "a.out"
    cases = {
        "v " + " ".join(map(str, model[: len(model) // 3])) + " 0\n": None,  # cut short
        "v " + " ".join(str(-abs(v)) for v in model) + " 0\n": None,  # nothing true
        f"v 1 {n_vars + 1} 0\n": f"literal {n_vars + 1} is not a variable of this model (1..{n_vars})",
        "v 99999999999999999999999999 0\n": "is larger than any model's variables",  # was an OverflowError
        "v 1 " + "9" * 5000 + " 0\n": "(5000 digits) is too large",  # int() refuses 4300+ digits: was a traceback
        "v " + " ".join(map(str, model)) + f" {-model[0]} 0\n": f"variable {abs(model[0])} is given both true and false",
        "s OPTIMUM FOUND\nv " + "1" * (n_vars - 1) + "\n": f"the 0/1 answer gives {n_vars - 1:,} values, the model "
                                                         f"has {n_vars:,} variables (cut short?)",
        "v " + "0" * (n_vars + 2) + "\n": f"gives {n_vars + 2:,} values, the model has {n_vars:,} variables (another",
        "v 1 1_0 0\n": "a literal: '1_0' is not a whole number",  # last: the clq check below reads it again
    }
    for text, words in cases.items():
        ans.write_text(text)
        r = cli("decode", "set2-4x4", ans, "-f", "cnf", "--json")
        if words is None:
            out = json.loads(r.out)
            assert r.code == 1 and not out["valid"] and "not a whole answer" in out["problems"][-1], r
        else:
            assert r.code == 2 and words in r.err and r.err.count("\n") == 1, (text, r)
    r = cli("decode", "set2-4x4", ans, "-f", "clq")
    assert r.code == 2 and "a vertex: '1_0' is not a whole number" in r.err, r
    ans.write_text("v 99999999999999999999999999\n")
    r = cli("decode", "set2-4x4", ans, "-f", "clq")
    assert r.code == 2 and "is larger than any graph's vertex count" in r.err, r
    ans.write_text("x_p1_r1_c1_k0 nan\n")
    r = cli("decode", "set2-4x4", ans, "-f", "lp")
    assert r.code == 2 and f"{ans}:1: column x_p1_r1_c1_k0 has the value nan" in r.err, r
    fits = next(k for k in range(4) if emc.load("set2-4x4").fits[0, 0, k])  # piece 1 is a corner
    ans.write_text(f"x_p1_r1_c1_k{fits} 1\n")  # one placement: no solution of the LP looks like that
    r = cli("decode", "set2-4x4", ans, "-f", "lp")
    assert r.code == 1 and "INVALID" in r.out and "leaves 15 empty" in r.out, r
    # a placement no model of the puzzle has (the corner turned off the frame), a fractional value
    ans.write_text(f"x_p1_r1_c1_k{(fits + 1) % 4} 1\n")
    r = cli("decode", "set2-4x4", ans, "-f", "lp")
    assert r.code == 2 and f"column x_p1_r1_c1_k{(fits + 1) % 4} is no variable of this model" in r.err, r
    ans.write_text(f"x_p1_r1_c1_k{fits} 0.5\n")
    r = cli("decode", "set2-4x4", ans, "-f", "lp")
    assert r.code == 2 and "has the value 0.5: no integer solution" in r.err, r
    ans.write_text(f"x_p1_r1_c1_k{fits} 0.9999999\n")
    assert cli("decode", "set2-4x4", ans, "-f", "lp").code == 1  # read as 1 (and leaves 15 cells empty)
    ans.write_text("piece = [9999999999999999999999, 1];\nrotation = [0, 0];\n----------\n")
    r = cli("decode", "set2-4x4", ans, "-f", "mzn")
    assert r.code == 2 and "must hold small whole numbers" in r.err, r  # was an OverflowError
    nine = ", ".join(["1"] * 16)
    ans.write_text(f"piece = [{nine.replace('1', '17', 1)}];\nrotation = [{nine.replace('1', '0')}];\n----------\n")
    r = cli("decode", "set2-4x4", ans, "-f", "mzn")
    assert r.code == 2 and "a MiniZinc answer puts piece 17 on r1c1: pieces are 1..16" in r.err, r
    ans.write_text(f"piece = [{nine}];\nrotation = [{nine.replace('1', '0').replace('0', '4', 1)}];\n----------\n")
    r = cli("decode", "set2-4x4", ans, "-f", "mzn")
    assert r.code == 2 and "a MiniZinc answer turns r1c1 by 4: rotations are 0..3" in r.err, r
    ans.write_text("% comment\npiece = [x, 1];\nrotation = [0, 0];\n----------\n")
    r = cli("decode", "set2-4x4", ans, "-f", "mzn")
    assert r.code == 2 and f"{ans}:2: piece = [x, 1]: not whole numbers" in r.err, r


def test_answer_readers():
    assert read_literals("c x\ns SATISFIABLE\nv 1 -2 3\nv -4 0\n") == [1, -2, 3, -4]
    assert read_literals("s OPTIMUM FOUND\nv 0110\n") == [-1, 2, 3, -4]
    assert read_literals("s OPTIMUM FOUND\nv 0110\n", n_vars=4) == [-1, 2, 3, -4]
    for n in (3, 5):
        with pytest.raises(InputError, match=f"the 0/1 answer gives 4 values, the model has {n} variables"):
            read_literals("s OPTIMUM FOUND\nv 0110\n", "f", n_vars=n)
    assert read_literals("SAT\n-1 2 0\n") == [-1, 2]
    # anytime MaxSAT solvers print a model for each better one: the last is the answer
    assert read_literals("o 5\nv 0110\no 3\nv 1010\ns OPTIMUM FOUND\n", n_vars=4) == [1, -2, 3, -4]
    assert read_literals("o 5\nv 1 -2 0\no 3\nv -1\nv 2 0\n") == [-1, 2]
    with pytest.raises(InputError, match="1 model ended by 0, then 1 literal without an ending 0"):
        read_literals("v 1 -2 0\nv -1\n", "f")
    pretty = ("Columns\n    Index Status        Lower        Upper       Primal         Dual  Type        Name\n"
              "        0                   0            1            1               Integer     x_p1_r1_c1_k3\n"
              "        1     BS            0            1            0            0  Integer     x_p2_r1_c2_k0\n")
    assert read_columns(pretty) == {"x_p1_r1_c1_k3": 1.0, "x_p2_r1_c2_k0": 0.0}
    assert read_vertices("c comment\ns 3\nv 4 9\n12\n") == [4, 9, 12]
    # a line giving the clique's size is no vertex list (the size was read as one more vertex)
    assert read_vertices("size 3\nMaximum clique size: 3\nomega = 3\nv 4 9 12\n") == [4, 9, 12]
    cbc = "Optimal - objective value 0.00000000\n      0 x_p1_r1_c1_k3   1   0\n      1 x_p2_r1_c2_k0  0  0\n"
    assert read_columns(cbc) == {"x_p1_r1_c1_k3": 1.0, "x_p2_r1_c2_k0": 0.0}
    assert read_columns("x_p1_r1_c1_k3 1\n# Dual\nx_p1_r1_c1_k3 0\n") == {"x_p1_r1_c1_k3": 1.0}
    for status in ("Integer infeasible - objective value 0.00000000",
                   "Stopped on time (no integer solution - continuous used) - objective value 2.5",
                   "Unbounded", "Model status        : Infeasible"):  # CBC / HiGHS lines of no integer solution
        with pytest.raises(InputError, match="holds no board"):
            read_columns(f"{status}\n      0 x_p1_r1_c1_k3   0.403   0\n", "f")
    assert read_columns("Stopped on time - objective value 3.00000000\n      0 x_p1_r1_c1_k3   1   0\n") == {
        "x_p1_r1_c1_k3": 1.0}  # a time limit with an integer solution still holds a board
    for reader, text in ((read_literals, "s UNKNOWN\n"), (read_vertices, "c nothing\n"), (read_columns, "Infeasible\n")):
        with pytest.raises(InputError):
            reader(text, "f")


def test_encoder_options_given_to_export_must_be_given_to_decode(tmp_path, cli):
    """-O changes the CNF's variable numbers (cell order, tie-break): the answer decodes to a
    solution with the export's options; --model names the difference when decode is not given
    them; values and names the encoders do not take are refused in one line."""
    cnf = tmp_path / "5.cnf"
    opts = ["-O", "order=diagonal", "-O", "tiebreak=3"]
    assert cli("export", "set2-5x5", "-f", "cnf", *opts, "-o", cnf).code == 0
    assert "order=diagonal" in cnf.read_text()[:3000] and "tiebreak=3" in cnf.read_text()[:3000]
    plain = tmp_path / "plain.cnf"
    assert cli("export", "set2-5x5", "-f", "cnf", "-o", plain).code == 0
    assert cnf.read_bytes() != plain.read_bytes()
    ans = tmp_path / "a.out"
    ans.write_text("s SATISFIABLE\nv " + " ".join(map(str, _sat_model(cnf))) + " 0\n")
    r = cli("decode", "set2-5x5", ans, "-f", "cnf", *opts, "--model", cnf, "-o", tmp_path / "b.json")
    assert r.code == 0 and "valid and solved" in r.out, r
    r = cli("decode", "set2-5x5", ans, "-f", "cnf", "--model", cnf)
    assert r.code == 2 and "the header differs" in r.err and "order=diagonal" in r.err, r
    for opt, words in (("prune=maybe", "--option prune: true or false, not 'maybe'"),
                       ("nosuch=1", "--option nosuch: not an option of the cnf encoder (its options: card,"),
                       ("variant=log", "--option variant: the variant has its own flag, --variant"),
                       ("order=sideways", "unknown variable order 'sideways'")):
        r = cli("export", "set2-5x5", "-f", "cnf", "-O", opt, "-o", tmp_path / "x.cnf")
        assert r.code == 2 and words in r.err and r.err.count("\n") == 1, (opt, r.err)
    r = cli("export", "set2-5x5", "-f", "cpsat", "-O", "hint=1", "-o", tmp_path / "x.pb")
    assert r.code == 2 and "--option hint: that is a board, which only the Python API passes" in r.err, r
    r = cli("export", "set2-5x5", "-f", "clq", "-O", "x=1", "-o", tmp_path / "x.clq")
    assert r.code == 2 and "not an option of the clique encoder (its options: none)" in r.err, r
    r = cli("decode", "set2-5x5", ans, "-f", "clq", "-O", "subproblem=1")  # was a TypeError
    assert r.code == 2 and "not an option of the clique encoder" in r.err, r
    assert not list(tmp_path.glob("x.*"))


def test_an_answer_to_a_region_that_frees_a_hint_is_judged_as_emc_solve_judges_it(tmp_path, cli):
    """--free over a hint gives the hint up (export says so); decode used to call a board that
    moved it INVALID, where emc solve calls the same board valid for the region and says why
    emc verify will not. Symmetry breaking puts piece 1 on r1c1, so the board breaks the hint."""
    p = emc.load("set2-4x4")
    corner = [q for q in range(16) if (p.pieces[q] == 0).sum() == 2][1]
    turn = next(k for k in range(4) if p.fits[corner, 0, k])
    puzzle = tmp_path / "hint.txt"
    puzzle.write_text(f"1\n1 1 {corner + 1} {turn}\n" + "\n".join(" ".join(map(str, r)) for r in p.pieces) + "\n")
    cnf = tmp_path / "h.cnf"
    assert cli("export", puzzle, "-f", "cnf", "--free", "all", "-o", cnf).code == 0
    ans = tmp_path / "h.out"
    ans.write_text("s SATISFIABLE\nv " + " ".join(map(str, _sat_model(cnf))) + " 0\n")
    out = tmp_path / "b.json"
    r = cli("decode", puzzle, ans, "-f", "cnf", "--free", "all", "--model", cnf, "-o", out)
    assert r.code == 0 and "16 of 16 free cells placed by the answer; valid and solved" in r.out, r
    assert "hints not kept (their cells are free): r1c1; the board breaks r1c1" in r.out, r
    hinted = emc.read_puzzle(puzzle)
    board = emc.read_board(out, hinted)
    assert board.piece[0] != corner and not emc.verify(hinted, board).valid
    assert emc.verify(hinted, board, check_hints=False).solved
    r = cli("decode", puzzle, ans, "-f", "cnf", "--free", "all", "--model", cnf, "--json")
    assert r.code == 0 and json.loads(r.out)["hints_not_kept"] == ["r1c1"] and json.loads(r.out)["valid"], r


def test_a_maxsat_answer_claiming_less_cost_than_its_board_has_is_not_valid(tmp_path, cli):
    """The cost on a MaxSAT answer's last o line is checked against the board it decodes to: a
    claim below the board's unmatched counted edges is a wrong claim (another file's answer)."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    p = emc.load("set2-4x4")
    pieces = p.pieces.copy()
    inner = next(q for q in range(16) if (pieces[q] == 0).sum() == 0)
    pieces[inner, 0] = (pieces[inner, 0] % max(p.inner_colours)) + 1  # one side recoloured: no perfect board
    broken = tmp_path / "broken.txt"
    broken.write_text("4 4\n" + "\n".join(" ".join(map(str, r)) for r in pieces) + "\n")
    w = tmp_path / "b.wcnf"
    assert cli("export", broken, "-f", "wcnf", "-o", w).code == 0
    with RC2(WCNF(from_file=str(w))) as rc2:
        model, cost = rc2.compute(), rc2.cost
    assert cost >= 1
    ans = tmp_path / "rc2.out"
    for claim, code in ((cost, 0), (cost - 1, 1)):
        ans.write_text(f"o {cost + 3}\no {claim}\ns OPTIMUM FOUND\nv " + " ".join(map(str, model)) + "\n")
        r = cli("decode", broken, ans, "-f", "wcnf", "--model", w)
        assert r.code == code, r
        if code:
            assert (f"line 2: the answer claims cost {claim}, its board leaves {cost} counted edge" in r.out
                    and "INVALID" in r.out), r


def test_model_is_refused_for_milp_answers_which_need_none(tmp_path, cli):
    ans = tmp_path / "a.sol"
    ans.write_text("x_p1_r1_c1_k0 1\n")
    r = cli("decode", "set2-3x3", ans, "-f", "lp", "--model", tmp_path / "missing.lp")
    assert r.code == 2 and "an lp answer names its placements in its column names and needs no model" in r.err, r


@pytest.mark.parametrize("fmt", ["cnf", "wcnf"])
def test_two_pieces_on_one_cell_name_the_file_kind(fmt):
    """An assignment no model of the file has (two placements on one cell) said "not a model of
    this CNF" for a WCNF too."""
    import numpy as np

    from emc.encoders import encode

    enc = encode(emc.Subproblem.whole(emc.load("set2-4x4")), fmt)
    cell = 5  # r2c2, an inner cell: several placements (the top-left takes only the pinned corner piece)
    two = [int(v) for v in enc.x_var[np.flatnonzero(enc.x_cell == cell)[:2]]]
    assert len(two) == 2
    with pytest.raises(InputError, match=f"2 pieces on r2c2: it is not a model of this {fmt.upper()} "):
        enc.decode(two)


def test_a_decoded_board_says_whether_it_is_a_solution(cli, tmp_path):
    """A partial or invalid board decode wrote looked like a solution in its file (solve marks
    its deepest partial fill); the board now notes its answer and whether it solves the file."""
    cnf, model = tmp_path / "m.cnf", tmp_path / "m.out"
    assert cli("export", "set2-4x4", "-f", "cnf", "-o", cnf).code == 0
    lits = _sat_model(cnf)
    model.write_text("s SATISFIABLE\nv " + " ".join(map(str, lits)) + " 0\n")
    r = cli("decode", "set2-4x4", model, "-f", "cnf", "-o", tmp_path / "good.json")
    assert r.code == 0 and json.loads((tmp_path / "good.json").read_text())["decoded"] == {
        "format": "cnf", "answer": "m.out", "solution": True}
    cut = tmp_path / "cut.out"  # the first placements only: a cut-short answer
    cut.write_text("v " + " ".join(str(v) for v in lits[:40]) + " 0\n")
    r = cli("decode", "set2-4x4", cut, "-f", "cnf", "-o", tmp_path / "part.json")
    assert r.code == 1 and "wrote " + str(tmp_path / "part.json") + " (a partial board, no solution)" in r.out, r
    assert json.loads((tmp_path / "part.json").read_text())["decoded"]["partial"] is True


def test_a_minizinc_answer_with_a_bad_value_names_its_line(cli, tmp_path):
    """A piece or rotation out of range in MiniZinc's output named no line (values that are not
    numbers did): now the line of the array, in the last solution, which decode reads."""
    n = 16
    first = "piece = [" + ", ".join(str(i) for i in range(1, n + 1)) + "];\nrotation = [" + ", ".join("0" * n) + "];\n"
    bad_piece = "piece = [99" + "".join(f", {i}" for i in range(2, n + 1)) + "];\nrotation = [" + ", ".join("0" * n) + "];\n"
    ans = tmp_path / "a.out"
    ans.write_text(first + "----------\n" + "% a comment\n" + bad_piece + "----------\n")
    r = cli("decode", "set2-4x4", ans, "-f", "mzn")
    assert r.code == 2 and f"{ans}:5: a MiniZinc answer puts piece 99 on r1c1" in r.err, r
    bad_turn = "piece = [" + ", ".join(str(i) for i in range(1, n + 1)) + "];\nrotation = [7" + ", 0" * (n - 1) + "];\n"
    ans.write_text(bad_turn + "----------\n")
    r = cli("decode", "set2-4x4", ans, "-f", "mzn")
    assert r.code == 2 and f"{ans}:2: a MiniZinc answer turns r1c1 by 7" in r.err, r


def _cpsat_response(model_path, tmp_path, seed=1):
    """A CP-SAT run on the exported file, outside emc: the response written in text, binary
    and JSON, as a user's script would write it."""
    from google.protobuf import json_format, text_format
    from ortools.sat import cp_model_pb2
    from ortools.sat.python import cp_model

    pb = cp_model_pb2.CpModelProto()
    text_format.Parse(model_path.read_text(), pb)  # emc's comment lines are skipped by protobuf
    m = cp_model.CpModel()
    m.proto.parse_text_format(text_format.MessageToString(pb))
    s = cp_model.CpSolver()
    s.parameters.num_workers = 1
    s.parameters.random_seed = seed
    assert s.solve(m) == cp_model.OPTIMAL
    resp = cp_model_pb2.CpSolverResponse()
    text_format.Parse(str(s.response_proto), resp)
    files = {"text": tmp_path / "r.txt", "binary": tmp_path / "r.bin", "json": tmp_path / "r.json"}
    files["text"].write_text(str(s.response_proto))
    files["binary"].write_bytes(resp.SerializeToString())
    files["json"].write_text(json_format.MessageToJson(resp))
    return resp, files


def test_a_cpsat_response_to_the_exported_model_decodes_in_every_form(tmp_path, cli):
    """An outside CP-SAT run on the exported pbtxt (feasibility, a whole puzzle; optimisation,
    a region of a board with mismatches): its response, as text, binary or JSON, decodes to the
    board it describes, the optimum CP-SAT claims is the board's score, and --model checks the
    whole model."""
    model = tmp_path / "f.pbtxt"
    assert cli("export", "set2-5x5", "-f", "cpsat", "--goal", "feasibility", "-o", model).code == 0
    _, files = _cpsat_response(model, tmp_path)
    boards = []
    for form, path in files.items():
        out = tmp_path / f"{form}.json"
        r = cli("decode", "set2-5x5", path, "-f", "cpsat", "--goal", "feasibility", "--model", model, "-o", out)
        assert r.code == 0 and "valid and solved" in r.out, (form, r)
        boards.append(_board(out, "set2-5x5"))
        assert json.loads(out.read_text())["decoded"] == {"format": "cpsat", "answer": path.name, "solution": True}
    assert boards[0] == boards[1] == boards[2] and emc.verify(emc.load("set2-5x5"), boards[0]).solved
    # another model: --model names it; the optimisation model of the same puzzle is not this file
    r = cli("decode", "set2-5x5", files["text"], "-f", "cpsat", "--model", model)
    assert r.code == 2 and "not the CP-SAT model these arguments export" in r.err, r
    # optimisation over a region of a board with mismatches: the claimed optimum is the board's score
    from emc.heuristics.core.starts import random_board

    p = emc.load("set2-6x6")
    start = tmp_path / "start.json"
    emc.write_board(random_board(p, 3), p, start)
    region = tmp_path / "o.pbtxt"
    args = ("--fixed", start, "--free", "r2c2-r4c4")
    assert cli("export", "set2-6x6", "-f", "cpsat", *args, "-o", region).code == 0
    resp, files = _cpsat_response(region, tmp_path)
    out = tmp_path / "o.json"
    r = cli("decode", "set2-6x6", files["text"], "-f", "cpsat", *args, "--model", region, "-o", out, "--json")
    assert r.code == 0, r
    board = _board(out, p)
    from emc.cells import make_subproblem
    from emc.model import Goal

    sp = make_subproblem(p, "r2c2-r4c4", emc.read_board(start, p), Goal.OPTIMISATION)
    assert sp.score(board) == round(resp.objective_value) and json.loads(r.out)["valid"] is True
    # a response that claims more than its board has is no answer of this model
    forged = tmp_path / "forged.txt"
    forged.write_text(files["text"].read_text().replace(f"objective_value: {resp.objective_value:g}",
                                                         f"objective_value: {resp.objective_value + 3:g}", 1))
    assert forged.read_text() != files["text"].read_text()
    r = cli("decode", "set2-6x6", forged, "-f", "cpsat", *args)
    assert r.code == 1 and f"the response claims {round(resp.objective_value) + 3} matched edges" in r.out, r
    assert "INVALID (its board is solved, but the answer is not one of this file)" in r.out or "solved" not in r.out, r
    for bad in ("nan", "inf"):  # not a number of edges: one line, not a traceback
        forged.write_text(re.sub(r"objective_value: \S+", f"objective_value: {bad}", files["text"].read_text()))
        r = cli("decode", "set2-6x6", forged, "-f", "cpsat", *args)
        assert r.code == 2 and "is not a number of matched edges" in r.err and r.err.count("\n") == 1, r


@pytest.mark.parametrize("text, words", [
    ("status: INFEASIBLE\n", "the response's status is INFEASIBLE: it holds no solution to decode"),
    ("status: UNKNOWN\n", "the response's status is UNKNOWN"),
    ("status: OPTIMAL\n", "the response says OPTIMAL but lists no solution values"),
    ("status: OPTIMAL\nsolution: 1\nsolution: 0\n", "the response gives 2 values, the model these arguments export"),
    ("status: OPTIMAL\nsolutions: 1\n", "r.txt:2: not a CP-SAT response"),
])
def test_cpsat_responses_without_a_board_of_this_model_are_refused(tmp_path, cli, text, words):
    path = tmp_path / "r.txt"
    path.write_text(text)
    r = cli("decode", "set2-4x4", path, "-f", "cpsat", "--goal", "feasibility")
    assert r.code == 2 and words in r.err and r.err.count("\n") == 1, r


@pytest.mark.slow
def test_a_suite_file_stands_for_the_export_arguments(tmp_path, cli):
    """Given a model file `emc suite` wrote instead of the puzzle, decode takes the puzzle,
    format, variant, goal, region, fixed board and options from its manifest row (and checks
    the file itself as --model): answers of real solvers to each file decode to solved boards."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    out = tmp_path / "s"
    assert cli("suite", "-o", out, "--generate", "6x6:2:4:1", "--free", "r2c2-r4c5", "--formats", "cnf,wcnf,clq,cpsat",
               "-O", "card=ladder").code == 0
    rows = {r["format"]: r for r in json.loads((out / "manifest.json").read_text())["files"]}
    files = {f: out / r["files"][0]["path"] for f, r in rows.items()}
    answers = {}
    answers["cnf"] = tmp_path / "cnf.out"
    answers["cnf"].write_text("s SATISFIABLE\nv " + " ".join(map(str, _sat_model(files["cnf"]))) + " 0\n")
    with RC2(WCNF(from_file=str(files["wcnf"]))) as rc2:
        model = rc2.compute()
        answers["wcnf"] = tmp_path / "wcnf.out"
        answers["wcnf"].write_text(f"o {rc2.cost}\ns OPTIMUM FOUND\nv " + " ".join(map(str, model)) + "\n")
    g = nx.Graph()
    lines = files["clq"].read_text().splitlines()
    n = int(next(ln for ln in lines if ln.startswith("p ")).split()[2])
    g.add_nodes_from(range(1, n + 1))
    g.add_edges_from((int(a), int(b)) for t, a, b in (ln.split() for ln in lines if ln.startswith("e ")))
    clique, _ = nx.max_weight_clique(g, weight=None)
    answers["clq"] = tmp_path / "clq.out"
    answers["clq"].write_text(" ".join(map(str, clique)) + "\n")
    _, responses = _cpsat_response(files["cpsat"], tmp_path)
    answers["cpsat"] = responses["text"]
    p = emc.read_puzzle(out / "puzzles" / "gen-6x6-f2-i4-s1.json")
    for fmt, path in files.items():
        b = tmp_path / f"{fmt}.json"
        r = cli("decode", path, answers[fmt], "-o", b)
        assert r.code == 0 and "valid and solved" in r.out and "from the suite's manifest" in r.out, (fmt, r)
        assert f"-f {fmt}," in r.out and "--free r2c2-r4c5" in r.out and (fmt not in ("cnf", "wcnf") or
                                                                         "-O card=ladder" in r.out)
        assert emc.verify(p, emc.read_board(b, p)).solved
    # the export arguments are the row's to give; a file no manifest lists needs --format
    r = cli("decode", files["cnf"], answers["cnf"], "-f", "cnf", "--free", "r2c2-r4c5")
    assert r.code == 2 and "--format, --free: the suite's manifest row of this file gives them" in r.err, r
    # the MiniZinc data file of a row stands for its model too
    assert cli("suite", "-o", tmp_path / "m", "--instances", "set2-4x4", "--formats", "mzn").code == 0
    dzn = tmp_path / "m" / "mzn" / "set2-4x4.element.dzn"
    junk = tmp_path / "m.out"
    junk.write_text("=====UNKNOWN=====\n")
    r = cli("decode", dzn, junk)
    assert r.code == 2 and "from the suite's manifest" in r.out and "the solver's answer is UNKNOWN" in r.err, r
    loose = tmp_path / "loose.cnf"
    loose.write_bytes(files["cnf"].read_bytes())
    r = cli("decode", loose, answers["cnf"])
    assert r.code == 2 and "--format is needed" in r.err, r
    # a gzipped whole-puzzle CNF of a shipped instance
    assert cli("suite", "-o", out, "--instances", "set2-5x5", "--formats", "cnf", "--gzip").code == 0
    gz = out / "cnf" / "set2-5x5.onehot.cnf.gz"
    plain = tmp_path / "p.cnf"
    import gzip

    plain.write_bytes(gzip.decompress(gz.read_bytes()))
    answers["gz"] = tmp_path / "gz.out"
    answers["gz"].write_text("v " + " ".join(map(str, _sat_model(plain))) + " 0\n")
    r = cli("decode", gz, answers["gz"], "--json")
    assert r.code == 0 and json.loads(r.out)["solved"] is True, r
    # a manifest of an early version names no puzzle file per row: one line saying so
    m = json.loads((out / "manifest.json").read_text())
    m["version"] = 1
    for row in m["files"]:
        row.pop("puzzle_file")
    (out / "manifest.json").write_text(json.dumps(m))
    r = cli("decode", gz, answers["gz"])
    assert r.code == 2 and "(version 1) does not give this file's puzzle_file" in r.err and r.err.count("\n") == 1, r


def test_a_cnf_written_before_repeated_clauses_were_dropped_still_decodes(tmp_path, cli):
    """Earlier exports held the pinned corner's unit clause twice: one clause more in the sizes
    line, the count by kind and the p line, same variables. --model compares the numbering
    (the variable map and count), so such a file still decodes; another variable count does not."""
    new = tmp_path / "new.cnf"
    assert cli("export", "set2-4x4", "-f", "cnf", "-o", new).code == 0
    lines = new.read_text().splitlines(keepends=True)
    old_lines = []
    for ln in lines:
        if ln.startswith("c sizes "):
            ln = re.sub(r"clauses=(\d+)", lambda m: f"clauses={int(m[1]) + 1}", ln)
        elif ln.startswith("c hard clauses by kind"):
            ln = re.sub(r"piece-alo=(\d+)", lambda m: f"piece-alo={int(m[1]) + 1}", ln)
        elif ln.startswith("c models:"):
            continue  # nor had they this line
        elif ln.startswith("p cnf "):
            _, _, v, c = ln.split()
            ln = f"p cnf {v} {int(c) + 1}\n"
        old_lines.append(ln)
    body = old_lines.index(next(x for x in old_lines if x.startswith("p cnf"))) + 1
    old_lines.insert(body, "1 0\n")  # the repeated unit clause
    old = tmp_path / "old.cnf"
    old.write_text("".join(old_lines))
    answer = tmp_path / "a.out"
    answer.write_text("v " + " ".join(map(str, _sat_model(old))) + " 0\n")
    r = cli("decode", "set2-4x4", answer, "-f", "cnf", "--model", old, "-o", tmp_path / "b.json")
    assert r.code == 0 and "valid and solved" in r.out, r
    other = tmp_path / "other.cnf"
    other.write_text("".join(x.replace("c sizes variables=", "c sizes variables=9") for x in old_lines))
    r = cli("decode", "set2-4x4", answer, "-f", "cnf", "--model", other)
    assert r.code == 2 and "the header differs" in r.err, r


# ---------------------------------------------------------------- audit: reader edge cases
def test_comment_lines_of_every_kind_are_skipped_in_literal_and_vertex_answers():
    """Lines starting with c, # or % are comments (a % or # glued to its text too)."""
    text = "c solver\n% minizinc-style note\n%glued\n#glued\n# spaced\ns SATISFIABLE\nv 1 -2 3 0\n"
    assert read_literals(text, "f") == [1, -2, 3]
    assert read_vertices("% note\n#x\nv 4 9\n", "f") == [4, 9]


def test_a_line_of_one_literal_is_a_literal_not_a_0_1_string():
    """A 0/1 string has more than one character: "v 1" then "v 0" is variable 1 true, ended."""
    assert read_literals("s SATISFIABLE\nv 1\nv 0\n", "f") == [1]


def test_a_lone_0_after_a_model_does_not_empty_it():
    """0 ends a model; a second 0 (a solver ending its last v line with one more) ends nothing."""
    assert read_literals("s SATISFIABLE\nv 1 -2 3 0\nv 0\n", "f") == [1, -2, 3]
    assert read_literals("SAT\n-1 2 0 0\n", "f") == [-1, 2]


def test_an_objective_line_of_a_clique_answer_is_no_vertex():
    """``o 3`` gives the size found so far (as in MaxSAT output), not vertex 3."""
    assert read_vertices("o 3\nv 4 9 12\n", "f") == [4, 9, 12]


def test_the_line_of_a_variable_is_its_first_mention_either_sign():
    lits = read_literals("s SATISFIABLE\nv -3 1\nv 2 3 0\n", "f")
    assert lits == [-3, 1, 2, 3] and lits.line_of(3) == 2 and lits.line_of(-2) == 3


def test_a_claimed_cost_below_zero_is_refused_even_minus_one():
    from emc.answers import claimed_cost

    assert claimed_cost("o 4\no 0\nv 1 0\n", "f") == (0, 2)
    with pytest.raises(InputError, match="the cost -1 is negative") as exc:
        claimed_cost("o 2\no -1\n", "f")
    assert exc.value.line == 2


@pytest.mark.parametrize("status", ["UNSATISFIABLE", "UNSATorUNBOUNDED", "UNBOUNDED", "ERROR"])
def test_a_minizinc_status_line_without_a_solution_is_refused_with_its_line(tmp_path, cli, status):
    ans = tmp_path / "m.out"
    ans.write_text(f"% minizinc\n={'=' * 4}{status}={'=' * 4}\n")
    r = cli("decode", "set2-4x4", ans, "-f", "mzn")
    assert r.code == 2 and f"{ans}:2: the solver's answer is {status}: it holds no board" in r.err, r


def test_a_feasible_cpsat_response_decodes_like_an_optimal_one(tmp_path, cli):
    """A run stopped by its time limit says FEASIBLE: its solution is a board all the same."""
    model = tmp_path / "f.pbtxt"
    assert cli("export", "set2-4x4", "-f", "cpsat", "--goal", "feasibility", "-o", model).code == 0
    _, files = _cpsat_response(model, tmp_path)
    feasible = tmp_path / "feasible.txt"
    feasible.write_text(files["text"].read_text().replace("status: OPTIMAL", "status: FEASIBLE", 1))
    assert "status: FEASIBLE" in feasible.read_text()
    out = tmp_path / "b.json"
    r = cli("decode", "set2-4x4", feasible, "-f", "cpsat", "--goal", "feasibility", "--model", model, "-o", out)
    assert r.code == 0 and "valid and solved" in r.out, r
    assert emc.verify(emc.load("set2-4x4"), _board(out, "set2-4x4")).solved


@pytest.mark.parametrize("value", ["inf", "-inf", "Infinity", "nan"])
def test_a_column_value_that_is_no_number_of_a_solution_is_refused_with_its_line(value):
    with pytest.raises(InputError, match=f"column x_p1_r1_c1_k0 has the value {value}, not a number") as exc:
        read_columns(f"x_p2_r1_c1_k0 0\nx_p1_r1_c1_k0 {value}\n", "f")
    assert exc.value.line == 2


@pytest.mark.parametrize("text, line, said", [
    ("c minisat\nUNSAT\n", 2, "UNSAT"),
    ("s INDETERMINATE\n", 1, "INDETERMINATE"),
    ("c x\ns UNKNOWN\n", 2, "UNKNOWN"),
    ("INFEASIBLE\n", 1, "INFEASIBLE"),
])
def test_every_status_that_holds_no_answer_is_named_with_its_line(text, line, said):
    with pytest.raises(InputError, match=f"the solver's answer is {said}: it holds no board") as exc:
        read_literals(text, "f")
    assert exc.value.line == line
    with pytest.raises(InputError, match=f"the solver's answer is {said}: it holds no board"):
        read_vertices(text, "f")


def test_a_huge_negative_vertex_is_one_line_naming_its_line(tmp_path, cli):
    ans = tmp_path / "v.out"
    ans.write_text("c clique\nv 1 -99999999999999999999999999\n")
    r = cli("decode", "set2-4x4", ans, "-f", "clq")
    assert r.code == 2 and f"{ans}:2: vertex -99999999999... (27 digits) is larger than any graph's vertex count" in r.err, r
    assert r.err.count("\n") == 1, r


def test_a_json_cpsat_response_with_leading_blank_lines_decodes(tmp_path, cli):
    model = tmp_path / "f.pbtxt"
    assert cli("export", "set2-4x4", "-f", "cpsat", "--goal", "feasibility", "-o", model).code == 0
    _, files = _cpsat_response(model, tmp_path)
    spaced = tmp_path / "spaced.json"
    spaced.write_text("\n  \n" + files["json"].read_text())
    out = tmp_path / "b.json"
    r = cli("decode", "set2-4x4", spaced, "-f", "cpsat", "--goal", "feasibility", "--model", model, "-o", out)
    assert r.code == 0 and "valid and solved" in r.out, r
    assert emc.verify(emc.load("set2-4x4"), _board(out, "set2-4x4")).solved


def test_a_cnf_exported_before_the_clause_family_options_still_decodes_with_its_model(tmp_path, cli):
    """Files written before forbid, piece_support and twins existed have no such words on their
    options line (and, at those options' defaults, the same clauses): --model takes them; a
    file written with a family on is another model, and --model names it."""
    cnf = tmp_path / "5.cnf"
    assert cli("export", "set2-5x5", "-f", "cnf", "-o", cnf).code == 0
    text = cnf.read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("c variant "))
    old = " ".join(t for t in line.split() if t not in ("forbid=none", "piece_support=False", "twins=False"))
    assert old != line
    cnf.write_text(text.replace(line, old, 1))
    ans = tmp_path / "a.out"
    ans.write_text("s SATISFIABLE\nv " + " ".join(map(str, _sat_model(cnf))) + " 0\n")
    r = cli("decode", "set2-5x5", ans, "-f", "cnf", "--model", cnf, "-o", tmp_path / "b.json")
    assert r.code == 0 and "valid and solved" in r.out, r
    fam = tmp_path / "f.cnf"
    assert cli("export", "set2-5x5", "-f", "cnf", "-O", "forbid=both", "-o", fam).code == 0
    r = cli("decode", "set2-5x5", ans, "-f", "cnf", "--model", fam)
    assert r.code == 2 and "the header differs" in r.err and "forbid=both" in r.err, r
    r = cli("decode", "set2-5x5", ans, "-f", "cnf", "-O", "forbid=both", "--model", fam)
    assert r.code == 0 and "valid and solved" in r.out, r
