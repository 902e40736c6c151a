"""One matheuristic run (Salassa et al., seed 000, sections 3-4): construct a board with the
greedy or backtracking region heuristic (or draw a random one), then improve it with the
multi-neighbourhood local search, within one time limit, recording the score trajectory.

:func:`matheuristic` is the library entry point; :func:`result_document` turns a run into
the JSON result the ``emc matheuristic`` / ``emc improve`` / ``emc construct`` commands
write.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from typing import Callable

from ...runtime import time_limit_seconds as seconds
from ...errors import InputError
from ...formats import RESULT_FORMAT, RESULT_FORMAT_VERSION
from ...model import Board, Puzzle, require_puzzle, require_seed
from ... import runtime
from ...backends import pick_backend
from .construction import ConstructResult, construct
from .local_search import LocalSearchParams, LocalSearchResult, improve
from .neighbourhoods import Event

RESULT_VERSION = RESULT_FORMAT_VERSION
#: Seconds of backtracking when neither a run nor a construction time limit is given.
DEFAULT_BACKTRACKING_TIME = 60.0
#: Share of ``time_limit`` a backtracking construction with no local search after it has by default.
BACKTRACKING_SHARE = 0.75


@dataclass
class RunConfig:
    """Everything that defines a run (stored in the JSON result).

    Attributes:
        start: ``greedy``, ``backtracking`` or ``random``.
        region, order: region decomposition of the constructive heuristics (``None`` in the
            result of a run that builds no regions: a random or given start).
        backend: exact backend for regions, BO and RO.
        time_limit: seconds for the whole run (``None``: construct, then improve until a
            local optimum of every neighbourhood).
        construct_time_limit: seconds for the construction (backtracking: the backtracking
            phase, default half of ``time_limit`` when a local search follows, else three
            quarters, or 60 s without any limit; greedy: default half of ``time_limit`` when a
            local search follows, else all of it). The result records it as given (``None``:
            the default), the construction the seconds it had.
        region_time_limit: seconds per region solve (``None``: to optimality).
        seed: seed of everything random (solver seeds are drawn from it).
        threads: solver threads (1 with a fixed seed: repeatable runs).
        local_search: :class:`LocalSearchParams`; ``None`` skips the improvement phase.
        backend_options: extra options for every call of ``backend`` (e.g. a CP-SAT
            ``variant`` or MILP ``variant``; see ``emc backends``).
    """

    start: str = "greedy"
    region: str | None = "1xW"
    order: str | None = "row-major"
    backend: str = "auto"
    time_limit: float | None = None
    construct_time_limit: float | None = None
    region_time_limit: float | None = None
    seed: int = 0
    threads: int = 1
    local_search: LocalSearchParams | None = field(default_factory=LocalSearchParams)
    backend_options: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = {k: v for k, v in vars(self).items() if k != "local_search"}
        d["local_search"] = None if self.local_search is None else self.local_search.as_dict()
        return d


@dataclass
class MatheuristicRun:
    """A finished run: the best board and how it got there."""

    puzzle: Puzzle
    config: RunConfig
    board: Board
    score: int
    construction: ConstructResult | None
    local_search: LocalSearchResult | None
    trajectory: list[dict]
    elapsed: float
    stopped_by: str

    @property
    def interrupted(self) -> bool:
        return self.stopped_by == "interrupt"


def matheuristic(
    puzzle: Puzzle,
    config: RunConfig | None = None,
    start_board: Board | None = None,
    on_event: Callable[[Event], None] | None = None,
    on_tick: Callable[[str, int, float], None] | None = None,
) -> MatheuristicRun:
    """Construct (unless ``start_board`` is given) and improve a board.

    Args:
        puzzle: the puzzle.
        config: :class:`RunConfig` (default: greedy 1xW with the first installed of highs,
            cbc and cpsat, as the commands choose; the paper's local search).
        start_board: skip the construction and improve this complete board.
        on_event: called with every improvement (:class:`Event`, including the constructed
            board as neighbourhood ``construct:<start>``).
        on_tick: called as ``(phase, score, elapsed)`` whenever the run changes phase or
            neighbourhood, and after every region of the construction.

    Returns:
        :class:`MatheuristicRun`. Ctrl-C stops the run and returns the best board so far
        (``stopped_by="interrupt"``).
    """
    require_puzzle(puzzle, "matheuristic")
    config = config or RunConfig()
    if not isinstance(config, RunConfig):
        raise TypeError(f"matheuristic(): config is a RunConfig, not {type(config).__name__}")
    require_seed(config.seed, "matheuristic")
    if config.local_search is not None and not isinstance(config.local_search, LocalSearchParams):
        raise TypeError(f"matheuristic(): local_search is a LocalSearchParams or None, not "
                        f"{type(config.local_search).__name__}")
    if not isinstance(config.backend_options, dict):
        raise TypeError(f"matheuristic(): backend_options is a dict, not {type(config.backend_options).__name__}")
    for name in ("time_limit", "construct_time_limit", "region_time_limit"):
        seconds(getattr(config, name))  # InputError for a string, a negative number, nan
    config = replace(config, backend=pick_backend(config.backend))
    if start_board is not None or config.start == "random":  # recorded as the commands record them: no regions
        config = replace(config, start="given" if start_board is not None else "random", region=None, order=None)
    if (config.construct_time_limit is not None and config.time_limit is not None
            and config.construct_time_limit > config.time_limit):
        raise InputError(f"construct_time_limit {config.construct_time_limit:g} is longer than time_limit "
                         f"{config.time_limit:g}, which bounds the whole run")
    if config.local_search is not None:
        config.local_search.check(puzzle, config.time_limit)
    t0 = time.perf_counter()
    deadline = t0 + config.time_limit if config.time_limit is not None else None
    trajectory: list[dict] = []

    def record(ev: Event) -> None:
        trajectory.append({"time": round(ev.time, 4), "score": ev.score, "neighbourhood": ev.neighbourhood})
        if on_event is not None:
            on_event(ev)

    from ...score import score as _score

    built: ConstructResult | None = None
    ls_res: LocalSearchResult | None = None
    stopped_by = "finished"
    board: Board | None = None
    final_board, final_score = None, -1
    with runtime.sigint_guard():
        try:
            if start_board is None:
                built = _construct(puzzle, config, t0, deadline, on_tick)
                board = built.board
                record(Event(time.perf_counter() - t0, built.score, f"construct:{config.start}", built.board))
                if built.interrupted:
                    stopped_by = "interrupt"
                elif built.timed_out:  # the rest was filled by the fast rule
                    stopped_by = "time-limit"
            else:
                from .local_search import check_start_board

                check_start_board(puzzle, start_board)
                board = start_board.copy()
                record(Event(time.perf_counter() - t0, _score(puzzle, board), "start", board.copy()))
            final_board, final_score = board, _score(puzzle, board)
            left = None if deadline is None else deadline - time.perf_counter()
            if final_score >= puzzle.max_score and stopped_by != "interrupt":
                stopped_by = "solved"  # the construction matched every edge: nothing to improve
            elif config.local_search is not None and stopped_by != "interrupt" and (left is None or left > 0):

                def tick(state, name):
                    if on_tick is not None:
                        on_tick(name, state.best_score, time.perf_counter() - t0)

                ls_res = improve(puzzle, board, config.local_search, backend=config.backend, time_limit=left,
                                 seed=config.seed, threads=config.threads, on_event=record, on_tick=tick, t0=t0,
                                 backend_options=config.backend_options)
                final_board, final_score = ls_res.board, ls_res.score
                stopped_by = ls_res.stopped_by
            elif config.local_search is not None and stopped_by != "interrupt":
                stopped_by = "time-limit"
        except KeyboardInterrupt:
            # Between phases (the phases catch their own interrupts): keep the best board so far.
            if board is None:
                raise
            stopped_by = "interrupt"
            if final_board is None:
                final_board, final_score = board, _score(puzzle, board)
            if ls_res is not None and ls_res.score > final_score:
                final_board, final_score = ls_res.board, ls_res.score
    return MatheuristicRun(puzzle, config, final_board, final_score, built, ls_res, trajectory,
                     time.perf_counter() - t0, stopped_by)


def _construct(puzzle: Puzzle, config: RunConfig, t0: float, deadline: float | None,
               on_tick: Callable[[str, int, float], None] | None) -> ConstructResult:
    if config.start == "random":
        return construct(puzzle, "random", seed=config.seed)
    improving = config.local_search is not None  # a local search follows: it keeps a share of the time
    ctl = config.construct_time_limit
    if ctl is None and config.time_limit is not None:
        # half when a local search follows; alone, a greedy construction has it all and backtracking
        # three quarters, so that its greedy finish has time to solve the regions left (given all of
        # it, the finish was the fast rule's alone: worse than a plain greedy construction)
        share = 0.5 if improving else BACKTRACKING_SHARE if config.start == "backtracking" else 1.0
        ctl = share * config.time_limit
    if ctl is None and config.start == "backtracking":
        ctl = DEFAULT_BACKTRACKING_TIME
    kw = dict(backend=config.backend, region=config.region, order=config.order, time_limit=ctl,
              region_time_limit=config.region_time_limit, threads=config.threads)
    if config.start == "backtracking" and deadline is not None:
        # the greedy finish gets what the backtracking leaves, or half of it when a local
        # search follows and keeps the other half
        left = max(deadline - time.perf_counter() - ctl, 0.0)
        kw["greedy_time_limit"] = left / 2 if improving else left  # 0: the compiled rule fills

    def on_region(rec, board):
        if on_tick is not None:
            from ...score import score as _score

            # a partial board scores its matched edges between filled cells
            on_tick(f"construct:{config.start} region {rec.index + 1}", _score(puzzle, board), time.perf_counter() - t0)

    return construct(puzzle, config.start, seed=config.seed, on_region=on_region, **kw, **config.backend_options)


def result_document(run: MatheuristicRun, command: str) -> dict:
    """The JSON result of a run: parameters, seed, construction, local search, trajectory,
    backend calls, final scores and the final board (emc board JSON)."""
    from ...formats import format_board
    from ...score import verify

    puzzle = run.puzzle
    rep = verify(puzzle, run.board)
    doc: dict = {
        "format": RESULT_FORMAT,
        "version": RESULT_VERSION,
        "command": command,
        "puzzle": {"name": puzzle.name, "size": puzzle.size, "sha256": puzzle.sha256, "max_score": puzzle.max_score},
        "seed": run.config.seed,
        "parameters": run.config.as_dict(),
        "construction": None if run.construction is None else run.construction.as_dict(),
        "local_search": None,
        "trajectory": run.trajectory,
        "backend_calls": [],
        "final": {
            "score": run.score,
            "max_score": puzzle.max_score,
            "elapsed": round(run.elapsed, 4),
            "stopped_by": run.stopped_by,
            "valid": rep.valid,
            "scores": rep.scores,
        },
    }
    calls: dict[tuple, dict] = {}
    if run.construction is not None:
        for r in run.construction.records:
            if r.backend == "-":  # a region the compiled rule filled after the time limit: no call
                continue
            key = (f"construct:{r.phase}", r.backend, r.status)
            c = calls.setdefault(key, {"phase": key[0], "backend": key[1], "status": key[2], "calls": 0, "seconds": 0.0})
            c["calls"] += 1
            c["seconds"] += r.time
    ls = run.local_search
    if ls is not None:
        doc["local_search"] = {"start_score": ls.start_score, "score": ls.score, "cycles": ls.cycles,
                               "patience": ls.patience, "stopped_by": ls.stopped_by, "elapsed": round(ls.elapsed, 4),
                               "stats": ls.stats}
        for t in ls.trace:
            key = (t["neighbourhood"], t["backend"], t["status"])
            c = calls.setdefault(key, {"phase": key[0], "backend": key[1], "status": key[2], "calls": 0, "seconds": 0.0})
            c["calls"] += 1
            c["seconds"] += t["time"]
            if t.get("completed_with"):
                c.setdefault("holes_completed_with", {})
                c["holes_completed_with"][t["completed_with"]] = c["holes_completed_with"].get(t["completed_with"], 0) + 1
    for c in calls.values():
        c["seconds"] = round(c["seconds"], 4)
    doc["backend_calls"] = list(calls.values())
    doc["board"] = json.loads(format_board(run.board, puzzle))
    return doc


def write_result(run: MatheuristicRun, path, command: str) -> None:
    """Write :func:`result_document` atomically as JSON."""
    from ...io import write_text

    write_text(path, json.dumps(result_document(run, command), indent=1) + "\n")


def calls_backend(config: RunConfig) -> bool:
    """Whether a run of ``config`` sends anything to the backend: the constructions that build
    regions do, and so do the neighbourhoods that solve sub-problems (BO, RO); a random or given
    start improved by the others alone never does."""
    from .neighbourhoods import NEIGHBOURHOODS

    if config.start in ("greedy", "backtracking"):
        return True
    ls = config.local_search
    return ls is not None and any(NEIGHBOURHOODS[n].needs_backend for n in ls.neighbourhoods)


#: How the command line and the method registry name the settings the errors below mention.
CLI_WORDS = {"backend_options": "--backend-option", "region_time_limit": "--region-time-limit",
             "bo_time_limit": "--bo-time-limit", "ro_time_limit": "--ro-time-limit", "time_limit": "--time-limit"}
OPTION_WORDS = {"backend_options": "option backend_options", "region_time_limit": "option region_time_limit",
                "bo_time_limit": "option bo_time_limit", "ro_time_limit": "option ro_time_limit",
                "time_limit": "the time limit"}


def check_backend(name: str, options: dict, need_feasibility: bool = False, words: dict | None = None) -> None:
    """Refuse a backend (or backend options) a run could not use, before any work starts.
    ``words`` names the settings in the messages (:data:`CLI_WORDS` by default)."""
    from ...backends import Capability, backend_class, get_backend
    from ...errors import SolverUnavailableError
    from ...model import Goal

    w = words or CLI_WORDS
    cls = backend_class(name)
    if need_feasibility and (cls.options is None or "cuts" not in cls.options):  # portfolio: not declared, none
        raise InputError(f"backend {name!r} does not take no-good cuts, which backtracking needs; use cpsat, cbc "
                         "or highs")
    if not cls.available():
        raise SolverUnavailableError(f"backend {name!r} is not available: install it with `{cls.install_hint}`")
    if Capability.OPTIMISATION not in cls.capabilities:
        raise InputError(f"backend {name!r} cannot optimise, which the heuristics' sub-problems need (try cpsat, "
                         "highs or cbc)")
    if need_feasibility and Capability.FEASIBILITY not in cls.capabilities:
        raise InputError(f"backend {name!r} cannot solve feasibility problems, which backtracking needs")
    if "time_limit" in options:  # the backend's own message would name the run's limit, which bounds the whole run
        raise InputError(f"{w['backend_options']} time_limit: each backend call's limit is set with "
                         f"{w['region_time_limit']} (construction), {w['bo_time_limit']} and {w['ro_time_limit']} "
                         f"(local search); {w['time_limit']} bounds the whole run")
    backend = get_backend(name)
    backend.check_request(Goal.OPTIMISATION, options)
    if need_feasibility:
        backend.check_request(Goal.FEASIBILITY, options)

