"""The portfolio backend: members race in child processes; their boards and progress lines
reach the parent while they run."""

from __future__ import annotations

import re

import emc
from emc.backends import get_backend
from emc.backends.base import Status
from emc.model import Subproblem

from helpers import ctrl_c_after_first_board, unsolvable, unsolvable_optimisation


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


def test_feasibility_answer_is_perfect_and_checked():
    """Without named members a perfect board is raced for by the scan-row search and SAT."""
    sp = Subproblem.whole(emc.load("set2-6x6"))
    res = get_backend("portfolio").solve(sp, time_limit=60)
    assert res.status is Status.OPTIMAL and res.objective == sp.max_score and emc.verify(sp.puzzle, res.board).solved
    assert res.stats["members"] == "backtrack,sat" and res.stats["winner"] in ("backtrack", "sat")


def test_default_portfolio_proves_infeasibility():
    sp = Subproblem.whole(unsolvable(emc.load("set2-5x5")))
    res = get_backend("portfolio").solve(sp, time_limit=60)
    assert res.status is Status.INFEASIBLE and res.board is None


def test_ctrl_c_keeps_the_best_board_a_member_sent(tmp_path):
    """Members ignore SIGINT and are ended by the parent without their answers: the best board
    must come from what they sent while running."""
    first, (status, score, interrupted, valid) = ctrl_c_after_first_board(tmp_path, "portfolio", threads=2,
                                                                          members="cpsat,maxsat")
    assert status == "feasible" and int(score) >= first and interrupted == valid == "True"
