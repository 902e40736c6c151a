"""The portfolio backend: members race in child processes; their boards and progress lines
reach the parent while they run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import emc
from emc.backends import get_backend
from emc.backends.base import Status
from emc.errors import InputError
from emc.model import Subproblem

from helpers import ctrl_c_after_first_board, eventually, solver_processes, unsolvable, unsolvable_optimisation


@pytest.mark.slow
def test_members_progress_lines_and_boards_reach_the_caller():
    sp = unsolvable_optimisation("set2-5x5")
    lines: list[str] = []
    seen: list[int] = []
    pf = get_backend("portfolio")
    res = pf.solve(sp, time_limit=4, threads=2, members="cpsat,highs", on_progress=lines.append,
                   on_improvement=lambda board, score: seen.append(score))
    assert res.status in (Status.OPTIMAL, Status.FEASIBLE) and pf.progress is None
    assert lines and all(re.match(r"^(cpsat|highs): \S", x) for x in lines), lines
    assert {x.split(":")[0] for x in lines} == {"cpsat", "highs"}, lines  # both members report
    # boards arrive as members find them, strictly better each time, the last one is the answer
    assert seen and seen == sorted(set(seen)) and seen[-1] == res.objective
    # the answer is a member's final one, with its bound (the same board sent during the run had none)
    assert res.bound is not None and res.objective <= res.bound <= sp.max_score


def test_feasibility_answer_is_perfect_and_checked():
    """Without named members a perfect board is raced for by the scan-row search and SAT."""
    sp = Subproblem.whole(emc.load("set2-6x6"))
    res = get_backend("portfolio").solve(sp, time_limit=60)
    assert res.status is Status.OPTIMAL and res.objective == sp.max_score and emc.verify(sp.puzzle, res.board).solved
    assert res.stats["members"] == "backtrack,sat" and res.stats["winner"] in ("backtrack", "sat")


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["backtrack", "cpsat", "sat", "maxsat", "highs", "cbc", "clique", "minizinc"])
def test_every_backend_works_as_a_member(backend):
    """A member runs in a process of its own; backends that start processes themselves (the
    sat backend runs its solver in one) must work there too: members used to be daemonic
    processes, which may not have children, so ``sat`` always failed inside a portfolio and
    the other member answered alone."""
    if not get_backend(backend).available():
        pytest.skip(f"{backend} is not installed")
    sp = Subproblem.whole(emc.load("set2-4x4"))
    res = get_backend("portfolio").solve(sp, time_limit=60, members=backend)
    assert res.status is Status.OPTIMAL and emc.verify(sp.puzzle, res.board).solved
    assert res.stats["winner"] == backend and "errors" not in res.stats, res.stats
    res = get_backend("portfolio").solve(Subproblem.whole(unsolvable(emc.load("set2-4x4"))), time_limit=60,
                                         members=backend)
    assert res.status is Status.INFEASIBLE and "errors" not in res.stats, res.stats


def test_default_portfolio_proves_infeasibility():
    sp = Subproblem.whole(unsolvable(emc.load("set2-5x5")))
    res = get_backend("portfolio").solve(sp, time_limit=60)
    assert res.status is Status.INFEASIBLE and res.board is None


@pytest.mark.slow
def test_ctrl_c_keeps_the_best_board_a_member_sent(tmp_path):
    """Members ignore SIGINT; the parent asks them to stop (SIGTERM) and keeps the best board
    they sent while running or with their answers."""
    first, (status, score, interrupted, valid) = ctrl_c_after_first_board(tmp_path, "portfolio", threads=2,
                                                                          members="cpsat,maxsat")
    assert status == "feasible" and int(score) >= first and interrupted == valid == "True"


def deepest_fill_ok(sp: Subproblem, partial) -> int:
    """The number of free cells a partial fill holds, after checking that it fills free cells
    only, with distinct pieces of the sub-problem and every edge between them matched."""
    from emc.score import check_subproblem_solution

    assert partial is not None
    assert check_subproblem_solution(sp, partial, allow_empty=True) == []
    return int((partial.piece[sp.free] >= 0).sum())


@pytest.mark.slow
def test_a_time_limit_keeps_the_deepest_partial_fill_of_the_search_member():
    """No member answers set 2's 8x8 in two seconds: the scan-row member's deepest partial
    fill comes back with the unknown answer, as with ``-b backtrack`` alone."""
    sp = Subproblem.whole(emc.load("set2-8x8"))
    res = get_backend("portfolio").solve(sp, time_limit=2)
    assert res.status is Status.UNKNOWN and res.board is None and res.interrupted
    alone = get_backend("backtrack").solve(sp, time_limit=2, threads=1)
    assert alone.status is Status.UNKNOWN
    # the backtrack member searches with seed 0 on one process, as alone
    assert deepest_fill_ok(sp, res.partial) > 0 and deepest_fill_ok(sp, alone.partial) > 0


@pytest.mark.slow
def test_ctrl_c_keeps_the_deepest_partial_fill_of_the_search_member(tmp_path):
    """Ctrl-C once the scan-row member reports progress: the portfolio stops its members, which
    send what they have, and the answer carries the deepest partial fill."""
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent("""
        import emc
        from emc.backends import get_backend
        from emc.model import Subproblem
        from emc.score import check_subproblem_solution
        sp = Subproblem.whole(emc.load("set2-8x8"))
        def line(text):
            print("progress", text, flush=True)
        r = get_backend("portfolio").solve(sp, time_limit=120, on_progress=line)
        p = r.partial
        print("RESULT", r.status.value, r.interrupted, -1 if p is None else int((p.piece >= 0).sum()),
              p is not None and check_subproblem_solution(sp, p, allow_empty=True) == [], flush=True)
    """))
    env = dict(os.environ, PYTHONPATH=str(Path(emc.__file__).resolve().parent.parent))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    for ln in proc.stdout:
        if ln.startswith("progress backtrack:"):
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "Traceback" not in err, err
    status, interrupted, cells, valid = [ln for ln in out.splitlines() if ln.startswith("RESULT")][0].split()[1:]
    assert (status, interrupted, valid) == ("unknown", "True", "True") and int(cells) > 0


def test_an_option_named_after_a_member_goes_to_that_member_alone():
    """``sat.solver`` reaches sat only (cpsat has no option ``solver``: had it been passed there,
    cpsat would be refused); a value sat does not take is refused before the race, naming sat."""
    from emc.errors import InputError

    sp = Subproblem.whole(emc.load("set2-5x5"))
    pf = get_backend("portfolio")
    with pytest.raises(InputError, match=re.escape("portfolio member 'sat': unknown SAT solver 'nosuch'")):
        pf.solve(sp, time_limit=60, members="sat,cpsat", **{"sat.solver": "nosuch"})
    ok = pf.solve(sp, time_limit=60, members="sat,cpsat", **{"sat.solver": "glucose4", "cpsat.variant": "table"})
    assert ok.status is Status.OPTIMAL and "errors" not in ok.stats and emc.verify(sp.puzzle, ok.board).solved


def test_an_option_for_a_backend_outside_the_portfolio_is_refused_before_the_race():
    from emc.errors import InputError

    sp = Subproblem.whole(emc.load("set2-4x4"))
    pf = get_backend("portfolio")
    for key, words in (("cpsat.variant", "not a member of this portfolio (members: backtrack, sat)"),
                       ("sat.", "no option name after 'sat.'")):
        with pytest.raises(InputError, match=re.escape(words)):
            pf.check_request(sp.goal, {key: 1})
        with pytest.raises(InputError, match=re.escape(words)):
            pf.solve(sp, time_limit=10, **{key: 1})


def test_cli_names_the_member_that_answered_and_logs_the_race(cli, tmp_path):
    log = tmp_path / "race.log"
    r = cli("solve", "set2-6x6", "-b", "portfolio", "--log", log, "--json")
    d = __import__("json").loads(r.out)
    winner = d["stats"]["winner"]
    assert r.code == 0 and winner in ("backtrack", "sat")
    r = cli("solve", "set2-6x6", "-b", "portfolio", "-O", f"members={winner},sat" if winner != "sat" else "members=sat,backtrack")
    assert r.code == 0 and re.search(r"^portfolio of \w+, \w+: answered by (backtrack|sat)$", r.out, re.M), r.out
    text = log.read_text()
    assert f"winner: {winner}\nanswer: optimal objective=60" in text, text


def test_a_member_listed_twice_is_refused_before_the_race():
    with pytest.raises(InputError, match="portfolio member 'cpsat' is listed twice"):
        get_backend("portfolio").solve(Subproblem.whole(emc.load("set2-3x3")), members="cpsat,sat,cpsat")


def test_a_callback_that_raises_ends_the_members():
    """The error of a caller's callback reaches the caller, and the member processes end with it
    (they kept searching, one at full speed, after the portfolio call had returned)."""
    import multiprocessing

    def boom(line):
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        get_backend("portfolio").solve(Subproblem.whole(emc.load("set2-8x8")), time_limit=60, on_progress=boom)
    assert multiprocessing.active_children() == []


@pytest.mark.slow
def test_a_portfolio_beside_a_search_in_another_thread_hears_from_its_members(tmp_path):
    """Forked while the other thread was still loading the search kernel (a fresh process, as
    here), the members inherited its locks held and never ran: the portfolio waited out its
    grace period with no member reporting. Loading first (Backend.before_fork) makes both
    members answer, the search member with its deepest partial fill."""
    script = tmp_path / "threads.py"
    script.write_text(textwrap.dedent("""
        from concurrent.futures import ThreadPoolExecutor
        import emc
        from emc.backends import get_backend
        from emc.model import Subproblem
        sp = Subproblem.whole(emc.load("set2-8x8"))
        def run(name):
            return get_backend(name).solve(sp, time_limit=3, threads=1)
        with ThreadPoolExecutor(2) as ex:
            alone, raced = ex.map(run, ["backtrack", "portfolio"])
        print("RESULT", alone.status.value, raced.status.value, raced.stats["finished"] or "-",
              raced.partial is not None, flush=True)
    """))
    env = dict(os.environ, PYTHONPATH=str(Path(emc.__file__).resolve().parent.parent))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    alone, raced, finished, partial = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")][0].split()[1:]
    assert (alone, raced, partial) == ("unknown", "unknown", "True"), proc.stdout
    assert sorted(finished.split(",")) == ["backtrack", "sat"], proc.stdout


def test_the_losing_members_solver_processes_end_with_the_race():
    """The scan-row member answers set 2's 6x6 at once; CBC, in its own session, ran on
    orphaned after its member was killed. Now the member stops as for Ctrl-C (CBC with it), and
    CBC dies with its parent in any case."""
    before = solver_processes("emc-cbc-")
    res = get_backend("portfolio").solve(Subproblem.whole(emc.load("set2-6x6")), time_limit=60,
                                         members="backtrack,cbc")
    assert res.status is Status.OPTIMAL and res.stats["winner"] == "backtrack"
    # a killed parent's children get their signal asynchronously
    assert eventually(lambda: not (solver_processes("emc-cbc-") - before))


@pytest.mark.slow
def test_a_search_members_deeper_partial_fills_reach_the_caller():
    """``on_partial`` through a portfolio: the backtrack member's deeper partial fills come to
    the caller as they grow (what `emc solve -b portfolio -o` keeps on disk during a run)."""
    sp = Subproblem.whole(emc.load("eternity2"))
    got: list[emc.Board] = []
    res = get_backend("portfolio").solve(sp, time_limit=4, members="backtrack,sat", on_partial=lambda b: got.append(b.copy()))
    cells = [int(b.filled.sum()) for b in got]
    assert res.status is Status.UNKNOWN and cells and cells == sorted(set(cells))
    assert all(emc.verify(sp.puzzle, b, allow_partial=True).valid for b in got)
    assert cells[-1] <= int(res.partial.filled.sum())
