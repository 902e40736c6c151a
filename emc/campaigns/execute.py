"""One run of a campaign, in whatever process runs it (a local worker, a Dask worker), and the
check every result passes before the store takes it.

:func:`execute` takes a task (:meth:`emc.campaigns.spec.Run.task`: the puzzle itself, the
method's or backend's ``module:Class``, options, seed, time limit) and returns a JSON-ready
result: ``done`` with the score, board, trajectory and the machine, or ``failed`` with the
error; it never raises for a run that goes wrong. Boards worth keeping in a record hunt go to
``sink`` as they are found (see :mod:`emc.heuristics.core.found`).

:func:`check_result` and :func:`check_board` are the writer's own verification: the board is
read back from its text and checked by :func:`emc.verify` against the puzzle the runner
holds, so no store ever keeps a board that is not what it claims.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import socket
import time
import traceback
from typing import Any, Callable

from ..model import Board, Puzzle
from .spec import jsonable


class Stopped(Exception):
    """Raised inside a run the campaign no longer wants (Ctrl-C on a Dask campaign), or that a
    signal ended early: the run is cancelled and goes back to pending."""


def board_text(puzzle: Puzzle, board: Board) -> str:
    """The board as compact emc JSON (what the store keeps)."""
    from ..formats import format_board

    return json.dumps(json.loads(format_board(board, puzzle)), separators=(",", ":"))


def board_digest(board: Board) -> str:
    return hashlib.sha256(board.piece.astype("int32").tobytes() + board.rotation.astype("int8").tobytes()).hexdigest()


def _class(target: str):
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Collector:
    """The hunt's sink in the worker: boards at or above the threshold, verified, each once."""

    def __init__(self, task: dict, send: Callable[[dict], None], t0: float):
        self.puzzle: Puzzle = task["puzzle"]
        self.threshold = task.get("threshold")
        self.hints = (task.get("options") or {}).get("hints", "honour") != "ignore"
        self.send, self.t0 = send, t0
        self.seen: set[str] = set()
        self.run_id = task["run_id"]

    def __call__(self, board: Board, claimed: int, what: str = "", at: float | None = None) -> None:
        from ..score import score, verify

        if self.threshold is None or claimed < self.threshold:
            return
        if not verify(self.puzzle, board, check_hints=self.hints).valid:
            return
        real = score(self.puzzle, board)
        if real < self.threshold:
            return
        digest = board_digest(board)
        if digest in self.seen:
            return
        self.seen.add(digest)
        self.send({"run_id": self.run_id, "score": int(real), "what": what or "",
                   "time": round(time.perf_counter() - self.t0 if at is None else at, 4), "found": time.time(),
                   "board": board_text(self.puzzle, board), "board_sha256": digest})


def execute(task: dict, sink: Callable[[dict], None] | None = None,
            should_stop: Callable[[], bool] | None = None) -> dict:
    """Run ``task``; the result record (``status`` done, failed or cancelled)."""
    from .. import __version__
    from .machine import machine

    started = time.time()
    t0 = time.perf_counter()
    out: dict[str, Any] = {"run_id": task["run_id"], "key": task["key"], "emc_version": __version__,
                           "machine": machine(), "worker": f"{socket.gethostname()}:{os.getpid()}",
                           "started": started}
    collector = _Collector(task, sink, t0) if sink is not None and task.get("threshold") is not None else None
    try:
        if task["kind"] == "method":
            out.update(_method(task, collector, should_stop))
        elif task["task"] == "count":
            out.update(_count(task))
        else:
            out.update(_solve(task, collector))
        out["status"] = "done"
    except Stopped:
        out["status"] = "cancelled"
    except Exception as exc:  # a failed run is stored with its error; the campaign goes on
        out.update(status="failed", error=_one_line(exc), traceback=traceback.format_exc(limit=12)[-4000:])
    out["ended"] = time.time()
    return out


def _stopper(should_stop: Callable[[], bool] | None) -> Callable[[], None]:
    """A check of ``should_stop`` at most once a second (it may ask a scheduler)."""
    last = [time.perf_counter()]

    def check() -> None:
        if should_stop is None:
            return
        now = time.perf_counter()
        if now - last[0] >= 1.0:
            last[0] = now
            if should_stop():
                raise Stopped()

    return check


def _method(task: dict, collector: _Collector | None, should_stop) -> dict:
    from ..heuristics.core.found import collecting

    puzzle = task["puzzle"]
    method = _class(task["target"])()
    check = _stopper(should_stop)

    def on_progress(p) -> None:
        if collector is not None and p.board is not None and p.best is not None:
            collector(p.board, p.best, p.what, p.time)
        check()

    def go():
        return method.run(puzzle, time_limit=task["time_limit"], seed=task["seed"], options=dict(task["options"]),
                          on_progress=on_progress)

    if collector is not None:
        with collecting(collector):
            run = go()
    else:
        run = go()
    if run.stopped_by == "interrupt":  # cut short by a stray SIGINT: not a finished run, to run again
        raise Stopped()
    return {"score": int(run.score), "time_to_best": round(run.time_to_best, 4), "elapsed": round(run.elapsed, 4),
            "iterations": run.iterations, "unit": run.unit, "stopped_by": run.stopped_by,
            "board": board_text(puzzle, run.board), "trajectory": jsonable(run.trajectory),
            "resolved_options": jsonable(run.options), "details": jsonable(run.details)}


def _solve(task: dict, collector: _Collector | None) -> dict:
    from ..model import Goal, Subproblem
    from ..score import score

    puzzle = task["puzzle"]
    backend = _class(task["target"])()
    sp = Subproblem.whole(puzzle, Goal.of(task["goal"]))
    t0 = time.perf_counter()
    trajectory: list[dict] = []

    def on_improvement(board: Board, objective: int) -> None:
        s = score(puzzle, board) if (board.piece >= 0).all() else int(objective)
        trajectory.append({"time": round(time.perf_counter() - t0, 4), "score": int(s), "what": backend.name})
        if collector is not None and (board.piece >= 0).all():
            collector(board, s, backend.name)

    res = backend.solve(sp, time_limit=task["time_limit"], threads=task["threads"], seed=task["seed"],
                        on_improvement=on_improvement, **dict(task["options"]))
    board = res.board
    final = None if board is None else score(puzzle, board)
    if board is not None and (not trajectory or trajectory[-1]["score"] != final):
        trajectory.append({"time": round(res.wall_time, 4), "score": int(final), "what": backend.name})
    if board is not None and collector is not None:
        collector(board, final, backend.name, res.wall_time)
    nodes = res.stats.get("nodes")
    return {"score": final, "time_to_best": trajectory[-1]["time"] if board is not None else None,
            "elapsed": round(res.wall_time, 4), "iterations": int(nodes) if isinstance(nodes, (int, float)) else None,
            "unit": "nodes", "stopped_by": res.status.value,
            "board": None if board is None else board_text(puzzle, board), "trajectory": trajectory,
            "resolved_options": jsonable(task["options"]),
            "details": jsonable({"status": res.status.value, "bound": res.bound, "formulation": res.formulation,
                                  "interrupted": res.interrupted, "stats": res.stats})}


def _count(task: dict) -> dict:
    from ..model import Subproblem

    backend = _class(task["target"])()
    res = backend.count(Subproblem.whole(task["puzzle"]), time_limit=task["time_limit"], **dict(task["options"]))
    nodes = res.stats.get("nodes")
    return {"count": int(res.count), "complete": bool(res.complete), "elapsed": round(res.wall_time, 4),
            "iterations": int(nodes) if isinstance(nodes, (int, float)) else None, "unit": "nodes",
            "stopped_by": "complete" if res.complete else "incomplete", "resolved_options": jsonable(task["options"]),
            "details": jsonable({"symmetry": res.symmetry, "stats": res.stats})}


# --------------------------------------------------------------------------- the writer's check


def check_board(puzzle: Puzzle, text: str, claimed: int | None, hints: bool = True) -> str | None:
    """None when ``text`` is a valid complete board of ``puzzle`` scoring ``claimed`` (hints
    kept unless ``hints`` is false); else why not, in a few words."""
    from ..errors import InputError
    from ..formats import parse_board
    from ..score import score, verify

    try:
        board = parse_board(text, puzzle, path="<stored board>")
    except InputError as exc:
        return f"the board cannot be read back ({exc})"
    rep = verify(puzzle, board, check_hints=hints)
    if not rep.valid:
        return f"the board fails emc's check: {rep.problems[0]}"
    real = score(puzzle, board)
    if claimed is not None and real != claimed:
        return f"the run claims {claimed} matched edges, its board has {real}"
    return None


def check_result(puzzle: Puzzle, result: dict) -> dict:
    """``result`` as the store takes it: a done run whose board fails the check becomes a
    failed run saying why (its board is not kept)."""
    if result.get("status") != "done" or result.get("board") is None:
        return result
    hints = (result.get("resolved_options") or {}).get("hints", "honour") != "ignore"
    why = check_board(puzzle, result["board"], result.get("score"), hints)
    if why is None:
        return result
    return {**result, "status": "failed", "error": why, "board": None}
