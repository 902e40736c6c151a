"""The Python API refuses what it cannot use with emc's own errors, in one clear line, and
leaves the caller's settings alone (found by a reader using emc as a library)."""

from __future__ import annotations

import math

import matplotlib
import pytest

import emc
from emc.backends import get_backend
from emc.encoders import encode
from emc.errors import InputError
from emc.formats import write_board
from emc.model import Goal, Subproblem
from emc.render import render

from bruteforce import brute_force_solutions, count_solutions


@pytest.mark.parametrize("kw, words", [
    ({"time_limit": "5"}, "the time limit is a positive number of seconds"),
    ({"time_limit": math.nan}, "the time limit is a positive number of seconds"),
    ({"time_limit": 0}, "the time limit is a positive number of seconds"),
    ({"threads": "two"}, "threads is a whole number of at least 1"),
    ({"threads": 0}, "threads is a whole number of at least 1"),
    ({"seed": "x"}, "seed is a whole number"),
])
def test_solve_arguments_of_the_wrong_kind_are_input_errors(kw, words):
    sp = Subproblem.whole(emc.load("set2-3x3"))
    with pytest.raises(InputError, match=words):
        get_backend("backtrack").solve(sp, **kw)


@pytest.mark.parametrize("backend", ["backtrack", "sat", "cpsat", "clique", "minizinc"])
def test_count_reads_its_arguments_alike_on_every_backend(backend):
    """limit=0 gave 12, 1, 0 or 0 solutions depending on the backend, limit="3" a TypeError on
    some; the symmetry statement was empty for backtrack. Now one reading for all."""
    be = get_backend(backend)
    if not be.available():
        pytest.skip(f"{backend} is not installed")
    sp = Subproblem.whole(emc.load("set2-4x4"))
    for bad in (0, -1, "3", 2.5):
        with pytest.raises(InputError, match="limit is a whole number of at least 1"):
            be.count(sp, limit=bad)
    res = be.count(sp, limit=3)
    assert res.count == 3 and not res.complete
    assert res.symmetry == "piece 1 (the first corner piece) only on r1c1"
    whole = be.count(Subproblem.whole(emc.load("set2-4x4"), symmetry_breaking=False))
    assert whole.symmetry == "none" and whole.count == count_solutions(emc.load("set2-4x4"), symmetry=False)


def test_scores_and_writers_refuse_boards_they_cannot_read(tmp_path):
    p, b = emc.generate(5, 5, 2, 3, seed=1)
    b.piece[5] = 99
    with pytest.raises(InputError, match="r2c1: piece 100 rotation 0 is not a placement"):
        emc.score(p, b)
    assert emc.verify(p, b).problems[0] == "r2c1: piece 100 does not exist (puzzle has 25)"
    p, b = emc.generate(5, 5, 2, 3, seed=1)
    with pytest.raises(InputError, match="not a picture"):
        write_board(b, p, tmp_path / "x.png")
    with pytest.raises(TypeError, match="give an emc.Board, then its emc.Puzzle"):
        write_board(p, b, tmp_path / "x.json")
    with pytest.raises(InputError, match="MiniZinc does not read gzipped"):
        encode(Subproblem.whole(p), "minizinc").write(tmp_path / "m.mzn.gz")
    assert not list(tmp_path.iterdir())


def test_encoder_switches_are_true_or_false_and_one_cut_board_is_a_list_of_one():
    p, planted = emc.generate(4, 4, 2, 3, seed=2)
    sp = Subproblem.whole(p, Goal.FEASIBILITY)
    with pytest.raises(InputError, match="cpsat encoder option balance is true or false, not 'false'"):
        encode(sp, "cpsat", balance="false")
    one = encode(sp, "cpsat", cuts=planted)
    assert one.n_cuts == encode(sp, "cpsat", cuts=[planted]).n_cuts == 1
    # one board given alone is a cut: with every solution but one cut, that one comes back
    boards = brute_force_solutions(p)
    assert len(boards) >= 2
    res = get_backend("cpsat").solve(sp, time_limit=30, cuts=boards[1:])
    assert res.board.piece.tolist() == boards[0].piece.tolist()
    assert res.board.rotation.tolist() == boards[0].rotation.tolist()
    res = get_backend("cpsat").solve(sp, time_limit=30, cuts=boards[0])
    assert res.board.piece.tolist() != boards[0].piece.tolist() or \
        res.board.rotation.tolist() != boards[0].rotation.tolist()
    with pytest.raises(InputError, match="a CNF answer is a list of literals"):
        encode(sp, "cnf").decode("hello")


def test_render_leaves_the_callers_matplotlib_backend_alone(tmp_path):
    before = matplotlib.get_backend()
    p, b = emc.generate(4, 4, 2, 3, seed=1)
    for suffix in ("png", "svg", "pdf"):
        assert render(p, b, tmp_path / f"b.{suffix}").stat().st_size > 0
    assert matplotlib.get_backend() == before
    import matplotlib.pyplot as plt

    assert plt.get_fignums() == []  # no figure left open in pyplot's list


@pytest.mark.parametrize("backend", ["clique", "cpsat", "highs", "maxsat"])
def test_an_optimal_answer_carries_its_own_bound(backend):
    """An empty region is solved by every backend; clique gave bound None where the others gave
    0: an optimum is now its own bound whichever backend proved it."""
    p, b = emc.generate(4, 4, 2, 3, seed=1)
    res = get_backend(backend).solve(Subproblem.region(p, b, [], Goal.OPTIMISATION), time_limit=10)
    assert (res.status.value, res.objective, res.bound) == ("optimal", 0, 0)


def test_a_backend_that_claims_wrongly_is_stopped_by_the_verifier():
    """The README's promise that a wrong claim stops with an error, checked with a backend whose
    answers are wrong on purpose (the checker is under test here, not a solver)."""
    from emc.backends.base import Backend, BackendError, Capability, Result, Status

    p, planted = emc.generate(4, 4, 2, 3, seed=5)
    sp = Subproblem.whole(p, Goal.OPTIMISATION)
    broken = planted.copy()
    broken.piece[1] = broken.piece[0]  # one piece twice

    class Liar(Backend):
        name = "liar"
        formulations = ("none",)
        capabilities = frozenset({Capability.FEASIBILITY, Capability.OPTIMISATION})
        answer: Result = Result(Status.UNKNOWN)

        @classmethod
        def available(cls) -> bool:
            return True

        @classmethod
        def version(cls) -> str:
            return "0"

        def _solve(self, sp, formulation, time_limit, threads, seed, log_path, hint, on_improvement, options):
            return self.answer

    liar = Liar()
    for answer, words in ((Result(Status.OPTIMAL, board=broken), "returned an invalid board"),
                          (Result(Status.FEASIBLE, board=planted, objective=3), "claimed 3 matched edges"),
                          (Result(Status.FEASIBLE, board=planted, bound=1), "claimed bound 1 below its own answer"),
                          (Result(Status.OPTIMAL), "reported optimal without a board")):
        liar.answer = answer
        with pytest.raises(BackendError, match=words):
            liar.solve(sp)
    liar.answer = Result(Status.FEASIBLE, board=planted)
    res = liar.solve(sp)  # a true claim: a perfect board is an optimum, and its own bound
    assert res.status is Status.OPTIMAL and res.objective == res.bound == sp.max_score



def test_a_subproblem_refuses_fixed_cells_no_board_could_hold():
    """A fixed board with a piece on two cells was solved, and the answer (the piece twice)
    came back OPTIMAL; a piece id past the puzzle's gave a raw IndexError inside solve."""
    p, planted = emc.generate(6, 6, 3, 4, seed=1)
    twice = planted.copy()
    twice.piece[0], twice.rotation[0] = twice.piece[5], twice.rotation[5]
    with pytest.raises(InputError, match=r"the fixed board has piece \d+ on r1c1 and r1c6: a piece goes on one cell"):
        Subproblem.region(p, twice, free=[1, 2])
    for cell, piece, rot in ((3, 999, 0), (3, int(planted.piece[3]), 9)):
        bad = planted.copy()
        bad.piece[cell], bad.rotation[cell] = piece, rot
        with pytest.raises(InputError, match=r"the fixed board: r1c4: piece \d+ rotation \d+ is not a placement"):
            Subproblem.region(p, bad, free=[1])
    assert Subproblem.region(p, planted, free=[1, 2]).n_free == 2  # a good board still builds


def test_api_calls_given_a_puzzle_for_a_subproblem_say_so():
    p = emc.load("set2-3x3")
    for call in (lambda: get_backend("cpsat").solve(p), lambda: get_backend("sat").count(p),
                 lambda: encode(p, "cnf")):
        with pytest.raises(TypeError, match="takes an emc.model.Subproblem, not Puzzle"):
            call()
    with pytest.raises(TypeError, match="takes an emc.Puzzle"):
        Subproblem.whole("set2-3x3")
    sp = Subproblem.whole(p)
    assert sp == sp and sp != Subproblem.whole(p) and sp in [sp] and len({sp}) == 1  # identity, no array error


def test_a_log_path_that_cannot_be_written_is_refused_before_the_search(tmp_path):
    sp = Subproblem.whole(emc.load("set2-8x8"))
    for backend in ("backtrack", "cpsat"):
        with pytest.raises(InputError, match="log path is a folder"):
            get_backend(backend).solve(sp, time_limit=30, log_path=tmp_path)  # no 30 s search first
        with pytest.raises(InputError, match="log path is a folder"):
            get_backend(backend).solve(sp, time_limit=30, log_path=tmp_path / "no" / "such" / "x.log")


def test_cnf_switches_take_booleans_only():
    sp = Subproblem.whole(emc.load("set2-3x3"))
    for key in ("prune", "colour_counts"):
        with pytest.raises(InputError, match=f"cnf encoder option {key} is true or false, not 'false'"):
            encode(sp, "cnf", **{key: "false"})
    assert encode(sp, "cnf", prune=False).n_vars > encode(sp, "cnf", prune=True).n_vars


def test_forcing_the_wrong_puzzle_format_is_an_input_error(tmp_path):
    f = tmp_path / "p.txt"
    emc.write_puzzle(emc.load("set2-3x3"), f, "heule")  # first line: a hint count
    with pytest.raises(InputError, match=r"p.txt:1: header 'W H': expected 2 numbers, found 1"):
        emc.read_puzzle(f, fmt="wh")
    emc.write_puzzle(emc.load("set2-3x3"), f, "wh")
    with pytest.raises(InputError, match=r"p.txt:1: hint count: expected 1 number, found 2"):
        emc.read_puzzle(f, fmt="heule")


def test_render_and_the_terminal_view_check_the_board(tmp_path):
    from emc.render import terminal_view

    p, b = emc.generate(4, 4, 2, 3, seed=1)
    big, _ = emc.generate(5, 5, 2, 3, seed=1)
    bad = b.copy()
    bad.rotation[2] = 9
    for board, words in ((emc.generate(5, 5, 2, 3, seed=1)[1], "board is 5x5"), (bad, "rotation 9 is not a placement")):
        with pytest.raises(InputError, match=words):
            render(p, board, tmp_path / "x.png")
        with pytest.raises(InputError, match=words):
            terminal_view(p, board)
    assert not (tmp_path / "x.png").exists()
    with pytest.raises(InputError, match=r"extra keys \['width'\] are the board file's own"):
        write_board(b, p, tmp_path / "b.json", extra={"width": 99})


@pytest.mark.parametrize("seed", [1.5, "1", True, -1])
def test_generate_takes_whole_seeds_only(seed):
    with pytest.raises(InputError, match="seed must be"):
        emc.generate(4, 4, 2, 3, seed=seed)


def test_heuristics_refuse_a_negative_time_limit():
    from emc.heuristics import greedy, improve

    p = emc.load("set2-4x4")
    with pytest.raises(InputError, match="the time limit is a positive number"):
        greedy(p, backend="cpsat", time_limit=-1)
    built = greedy(p, backend="cpsat")
    with pytest.raises(InputError, match="the time limit is a positive number"):
        improve(p, built.board, backend="cpsat", time_limit=-2)


@pytest.mark.slow
def test_two_highs_solves_in_threads_say_why_the_second_is_refused():
    """highspy runs one solve per process at a time: the second raised a bare "Solver is already
    running". The first solve is held inside its own improvement callback while the second is
    asked for, so the two surely overlap."""
    import threading

    from emc.backends.base import BackendError

    if not get_backend("highs").available():
        pytest.skip("highs is not installed")
    sp = Subproblem.whole(emc.load("set2-5x5"), Goal.OPTIMISATION)
    inside, release = threading.Event(), threading.Event()

    def hold(board, objective):
        inside.set()
        release.wait(60)

    first = {}
    t = threading.Thread(target=lambda: first.update(res=get_backend("highs").solve(sp, time_limit=10, on_improvement=hold)))
    t.start()
    try:
        assert inside.wait(60)
        with pytest.raises(BackendError, match="HiGHS runs one solve at a time in a process"):
            get_backend("highs").solve(sp, time_limit=5)
    finally:
        release.set()
        t.join()
    assert first["res"].board is not None and emc.verify(sp.puzzle, first["res"].board).valid
    # two started at the same moment: highspy sometimes let both in, the second waiting for the
    # first past its own time limit; one is refused now, and the lock is free again after
    gate = threading.Barrier(2)
    outcomes = []

    def race():
        gate.wait()
        try:
            outcomes.append(get_backend("highs").solve(Subproblem.whole(emc.load("set2-6x6"), Goal.OPTIMISATION),
                                                       time_limit=3).status.value)
        except BackendError as exc:
            outcomes.append(str(exc)[:35])

    threads = [threading.Thread(target=race) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    refused = [o for o in outcomes if o.startswith("HiGHS runs one solve at a time")]
    assert len(refused) == 1 and set(outcomes) - set(refused) <= {"optimal", "feasible", "unknown"}, outcomes
    assert emc.verify(sp.puzzle, get_backend("highs").solve(sp, time_limit=10).board).valid


def test_small_api_misuses_are_named(tmp_path):
    with pytest.raises(TypeError, match="a backend is named by a string"):
        get_backend(None)
    p, b = emc.generate(4, 4, 2, 3, seed=1)
    with pytest.raises(IndexError, match="cell -1 is not on the 4x4 board"):
        b.place(-1, 0, 0)
    with pytest.raises(InputError, match="a puzzle file is JSON, 'W H' or Heule text, not a picture"):
        emc.write_puzzle(p, tmp_path / "p.png")
    assert not list(tmp_path.iterdir())


def test_puzzles_and_boards_take_whole_numbers_and_real_hints():
    """numpy cut 1.5 to 1 without a word; a tuple given as a hint failed with AttributeError."""
    p, b = emc.generate(4, 4, 2, 3, seed=1)
    with pytest.raises(InputError, match="pieces must be whole numbers, not 15.5"):
        emc.Board(4, 4, b.piece.astype(float) + 0.5, b.rotation)
    with pytest.raises(InputError, match="colours must be whole numbers, not 0.5"):
        emc.Puzzle(4, 4, p.pieces + 0.5)
    with pytest.raises(TypeError, match=r"hints are emc.Hint\(cell, piece, rotation\) values"):
        emc.Puzzle(4, 4, p.pieces, hints=[(0, 0, 0)])
    same = emc.Board(4, 4, b.piece.astype(float), b.rotation)  # whole floats are whole numbers
    assert same.piece.tolist() == b.piece.tolist() and emc.verify(p, same).solved


def test_api_misuses_found_by_a_review_are_named(tmp_path):
    """Each of these was a silent wrong result or an error from deep inside numpy or Python."""
    from emc.encoders import encode
    from emc.heuristics import RunConfig, construct, greedy, improve, matheuristic, random_board

    p = emc.load("set2-5x5")
    for call, kind, words in (
            (lambda: construct("set2-5x5"), TypeError, r"construct\(\) takes an emc.Puzzle"),
            (lambda: greedy("set2-5x5"), TypeError, r"greedy\(\) takes an emc.Puzzle"),
            (lambda: random_board("set2-5x5"), TypeError, r"random_board\(\) takes an emc.Puzzle"),
            (lambda: emc.Board.empty("set2-4x4"), TypeError, r"Board.empty\(\) takes an emc.Puzzle"),
            (lambda: emc.read_board(tmp_path / "x.json", "set2-4x4"), TypeError, r"read_board\(\) takes an emc.Puzzle"),
            (lambda: construct(p, start="random", seed=-1), ValueError, "a seed is a whole number of at least 0"),
            (lambda: construct(p, start="random", seed=None), TypeError, "a seed is a whole number of at least 0"),
            (lambda: matheuristic(p, RunConfig(time_limit="5")), emc.InputError, "the time limit is a positive number"),
            (lambda: improve(p, random_board(p), params={"ta_k": 4}), TypeError, "params is a LocalSearchParams"),
            (lambda: greedy(p, region=None), emc.InputError, "region None is not ROWSxCOLS"),
            (lambda: matheuristic(p, RunConfig(region=None)), emc.InputError, "region None is not ROWSxCOLS"),
            (lambda: matheuristic(p, RunConfig(local_search={"ta_k": 3})), TypeError,
             "local_search is a LocalSearchParams or None, not dict"),
            (lambda: matheuristic(p, RunConfig(backend_options=None)), TypeError, "backend_options is a dict"),
            (lambda: construct(p, "random", backend="nosuch", region="garbage"), emc.InputError,
             "a random start builds no regions and calls no backend: it takes no backend, region"),
            (lambda: emc.Puzzle(4.7, 4, emc.load("set2-4x4").pieces), emc.InputError, "board sides must be whole"),
            (lambda: emc.Puzzle(4, 4, emc.load("set2-4x4").pieces, hints=[emc.Hint(0, 0, 0), emc.Hint(0, 1, 0)]),
             emc.InputError, "two hints for one cell"),
            (lambda: emc.Board.empty(p).place(0, 1.5, 0), TypeError, "takes whole numbers"),
            (lambda: emc.Board.empty(p).clear([-1]), IndexError, "cells to clear must be 0..24"),
            (lambda: encode(emc.Subproblem.whole(p), "cnf").decode([1.5]), emc.InputError, "not 1.5"),
            (lambda: encode(emc.Subproblem.whole(p), "clique").decode([1.5]), emc.InputError, "not 1.5"),
    ):
        with pytest.raises(kind, match=words):
            call()
    from emc.score import swap_delta

    q, b4 = emc.generate(4, 4, 2, 2, seed=1)
    with pytest.raises(emc.InputError, match="board is 4x4, puzzle is 5x5"):
        swap_delta(p, b4, 0, 1, 0, 0)
    with pytest.raises(IndexError, match="b must be a whole number 0..15, not -1"):
        swap_delta(q, b4, 0, -1, 0, 0)  # -1 was read as cell 15
    bad = emc.Board.empty(p)
    bad.piece[0] = 99
    with pytest.raises(emc.InputError, match="piece 100 rotation 0 is not a placement"):
        emc.write_board(bad, p, tmp_path / "x.edges")


def test_board_edges_keep_a_hint_whose_piece_looks_the_same_turned_half_way(tmp_path):
    """The letters cannot tell rotation r from r + 2 for such a piece: the hint's rotation wins."""
    p, b = emc.generate(6, 6, 3, 6, seed=1, distinct=True)
    k = int(p.turn_symmetric_pieces()[0])
    c = int((b.piece == k).nonzero()[0][0])
    hinted = p.with_hints([emc.Hint(c, k, int(b.rotation[c]))])
    emc.write_board(b, hinted, tmp_path / "h.edges")
    back = emc.read_board(tmp_path / "h.edges", hinted)
    assert emc.verify(hinted, back).solved and back.rotation[c] == b.rotation[c]


def test_a_puzzle_cannot_be_changed_after_it_is_built():
    """The docstring said immutable, yet name, width and hints could be reassigned, skipping the
    checks (a name with a newline reached a CNF header) and leaving cached tables stale."""
    import pickle

    p = emc.load("set2-4x4")
    for key, value in (("name", "x\np cnf 1 1"), ("width", 5), ("hints", ()), ("pieces", None)):
        with pytest.raises(AttributeError, match=f"Puzzle.{key} cannot be changed"):
            setattr(p, key, value)
    q = pickle.loads(pickle.dumps(p))  # the portfolio's processes get puzzles this way
    assert q.name == p.name and q.sha256 == p.sha256 and emc.verify(q, emc.Board.empty(q), allow_partial=True).valid


def test_generate_names_max_tries_and_distinct_of_the_wrong_kind():
    """max_tries=0 said "no puzzle without duplicate pieces in 0 draws", 1.5 was a TypeError, and
    distinct="no" counted as true."""
    for kw, words in (({"max_tries": 0}, "max_tries must be at least 1, not 0"),
                      ({"max_tries": 1.5}, "max_tries must be a whole number, not 1.5"),
                      ({"distinct": "no"}, "distinct is True or False, not 'no'")):
        with pytest.raises(emc.InputError, match=words):
            emc.generate(4, 4, 2, 3, **kw)


def test_local_search_params_of_the_wrong_kind_are_named_before_the_run():
    """ta_n=None was a TypeError mid-run, ta_accept_equal="no" counted as true and
    neighbourhoods="TA" read as the names T and A."""
    from emc.heuristics import LocalSearchParams, improve, random_board

    p = emc.load("set2-5x5")
    board = random_board(p)
    for kw, words in (({"ta_n": None}, "ta_n is a whole number of at least 0, not None"),
                      ({"ta_accept_equal": "no"}, "ta_accept_equal is True or False, not 'no'"),
                      ({"neighbourhoods": "TA"}, "neighbourhoods is a list of names"),
                      ({"ro_time_limit": "5"}, "the time limit is a positive number of seconds or None")):
        with pytest.raises(emc.InputError, match=words):
            improve(p, board, LocalSearchParams(**kw), time_limit=1)



def test_the_package_loads_its_api_when_first_used_and_keeps_its_names():
    """``import emc`` (and so the ``emc`` command's start) loads no numpy; every name of the API
    still resolves, and ``emc.score`` / ``emc.generate`` stay the functions after the modules of
    the same names are loaded (as importing everything at once had it)."""
    import subprocess
    import sys

    script = (
        "import sys, emc, emc.cli\n"
        "print('numpy' in sys.modules)\n"
        "import emc.score, emc.generate, emc.commands.common\n"
        "from emc.score import verify\n"
        "print(all(getattr(emc, n) is not None for n in emc.__all__), callable(emc.score), callable(emc.generate),\n"
        "      emc.score.__module__, emc.generate.__module__, emc.verify is verify, set(emc.__all__) <= set(dir(emc)))\n"
        "p, b = emc.generate(4, 4, 2, 3, seed=1)\n"
        "print(emc.score(p, b) == p.max_score, isinstance(emc.verify(p, b), emc.Report))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True", "True", "True", "emc.score", "emc.generate", "True", "True",
                                  "True", "True"]
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        emc.nothing_here


def test_api_runs_that_build_no_regions_record_them_as_the_commands_do():
    """matheuristic() from a given board recorded start "greedy" and region "1xW" (the CLI: "given",
    null), and a random start's construction said region "-" where its parameters said null."""
    from emc.heuristics import RunConfig, construct, matheuristic
    from emc.heuristics.decomposition.run import result_document

    p = emc.load("set2-5x5")
    board = construct(p, "random", seed=1).board
    doc = result_document(matheuristic(p, RunConfig(time_limit=1), start_board=board), "improve")
    assert (doc["parameters"]["start"], doc["parameters"]["region"], doc["parameters"]["order"]) == ("given", None, None)
    doc = result_document(matheuristic(p, RunConfig(time_limit=1, start="random")), "matheuristic")
    assert (doc["parameters"]["region"], doc["parameters"]["order"]) == (None, None)
    assert (doc["construction"]["region"], doc["construction"]["order"]) == (None, None)
