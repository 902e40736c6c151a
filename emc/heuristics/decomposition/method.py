"""The region-decomposition matheuristic as the registered method ``matheuristic``
(Salassa et al., seed 000, sections 3-4; defaults from its Table 2).

The options are those of ``emc matheuristic`` under their Python names; a run of
``emc optimise PUZZLE --method matheuristic`` is the run of ``emc matheuristic PUZZLE`` with the
same settings (and ``--threads 1``: the same board for the same seed, time limits permitting).
"""

from __future__ import annotations

from ...errors import InputError
from ...model import Board, Puzzle
from ..core.method import Method, Option, Outcome, Recorder
from .neighbourhoods import PAPER_ORDER

_T2 = "seed 000, Table 2"


class Matheuristic(Method):
    name = "matheuristic"
    summary = "construct region by region with an exact backend, then multi-neighbourhood local search"
    paper = ("Salassa, Vancroonenburg, Wauters, Della Croce, Vanden Berghe: MILP and max-clique based heuristics "
             "for the Eternity II puzzle (seed 000)")
    unit = "cycles"
    options = (
        Option("start", "greedy", "greedy (Algorithm 1), backtracking (Algorithm 2) or a random board", "choice",
               ("greedy", "backtracking", "random"), source="seed 000, section 4"),
        Option("region", "1xW", "region ROWSxCOLS (W board width, H height): 1xW, 2xW, 4x4, Hx1"),
        Option("order", "row-major", "order of the regions", "choice", ("row-major", "column-major", "snake")),
        Option("backend", "auto", "exact backend for regions, BO and RO (auto: the first installed of the heuristic "
               "ranking, highs, cbc, cpsat)"),
        Option("backend_options", {}, "options for every backend call, as a mapping", "mapping"),
        Option("construct_time_limit", None, "seconds for the construction (default: half of the time limit)",
               "seconds"),
        Option("region_time_limit", None, "seconds per region solve (default: to optimality)", "seconds"),
        Option("threads", 1, "solver threads (1: repeatable runs)", "int", low=1, high=1024),
        Option("improve", True, "run the local search after the construction (false: construct only)", "bool"),
        Option("neighbourhoods", ",".join(PAPER_ORDER), "neighbourhoods in cycle order, from TA, BO, BW, TSR, RO",
               source=_T2),
        Option("ta_k", 16, "TA: pieces lifted per move", "int", low=2, source=_T2),
        Option("ta_n", 1000, "TA: moves per cycle", "int", low=1, source=_T2),
        Option("ta_sideways", True, "TA: take a reinsertion that only ties", "bool"),
        Option("ro_window", "6x6", "RO: window WIDTHxHEIGHT (cut down to smaller boards)", source=_T2),
        Option("ro_n", 10, "RO: windows per cycle", "int", low=1, source=_T2),
        Option("ro_method", "clique", "RO: max-clique then fill the holes (paper), or one direct sub-problem",
               "choice", ("clique", "direct"), source=_T2),
        Option("ro_time_limit", 10.0, "RO: seconds per window", "seconds", source=_T2),
        Option("ro_sideways", False, "RO: adopt a window answer that only ties", "bool"),
        Option("clique_steps", 100_000, "RO: clique local-search moves per window (0: the whole window time)", "int",
               low=0),
        Option("bo_time_limit", 30.0, "BO: seconds per frame solve", "seconds", source=_T2),
        Option("patience", None, "stop after N cycles without gain; 0: until the time limit (default: 0 with a "
               "time limit, else 3)", "int", low=0, none=True),
    )

    @classmethod
    def check_options(cls, options: dict) -> None:
        from .neighbourhoods import parse_neighbourhoods

        parse_neighbourhoods(options["neighbourhoods"])  # an unknown name lists the valid ones
        _window(options["ro_window"])

    def _config(self, puzzle: Puzzle, time_limit, seed: int, o: dict, given_board: bool):
        from ...backends import pick_backend
        from .local_search import LocalSearchParams
        from .neighbourhoods import parse_neighbourhoods
        from .run import OPTION_WORDS, RunConfig, calls_backend, check_backend

        local_search = None
        if o["improve"]:
            w, h = _window(o["ro_window"])
            if (w, h) == (6, 6):
                w, h = min(6, puzzle.width), min(6, puzzle.height)
            local_search = LocalSearchParams(
                neighbourhoods=tuple(parse_neighbourhoods(o["neighbourhoods"])), ta_k=o["ta_k"], ta_n=o["ta_n"],
                ta_accept_equal=o["ta_sideways"], ro_width=w, ro_height=h, ro_n=o["ro_n"],
                ro_method=o["ro_method"], bo_time_limit=o["bo_time_limit"], ro_time_limit=o["ro_time_limit"],
                ro_clique_steps=o["clique_steps"] or None, ro_accept_equal=o["ro_sideways"], patience=o["patience"])
        elif given_board:
            raise InputError("option improve false with a starting board: there is nothing to do")
        start = "given" if given_board else o["start"]
        builds = start in ("greedy", "backtracking")
        config = RunConfig(start=start, region=o["region"] if builds else None, order=o["order"] if builds else None,
                           backend=pick_backend(o["backend"]), time_limit=time_limit,
                           construct_time_limit=o["construct_time_limit"], region_time_limit=o["region_time_limit"],
                           seed=seed, threads=o["threads"], local_search=local_search,
                           backend_options=dict(o["backend_options"]))
        if calls_backend(config):
            check_backend(config.backend, config.backend_options, need_feasibility=start == "backtracking",
                          words=OPTION_WORDS)
        return config

    def _run(self, puzzle: Puzzle, time_limit, seed: int, options: dict, rec: Recorder,
             start_board: Board | None) -> Outcome:
        from .run import matheuristic, result_document

        config = self._config(puzzle, time_limit, seed, options, start_board is not None)

        def on_event(ev) -> None:
            if ev.board is not None:
                rec.phase = ev.neighbourhood
                rec.improved(ev.board, ev.score, ev.neighbourhood, at=ev.time)

        def on_tick(phase: str, score: int, elapsed: float) -> None:
            rec.tick(phase=phase, current=score)

        run = matheuristic(puzzle, config, start_board=start_board, on_event=on_event, on_tick=on_tick)
        rec.improved(run.board, run.score, "final")  # the run's own best, should an event have lacked its board
        doc = result_document(run, "optimise")
        details = {k: doc[k] for k in ("parameters", "construction", "local_search", "backend_calls")}
        cycles = run.local_search.cycles if run.local_search is not None else 0
        return Outcome(run.stopped_by, cycles, details)


def _window(text: str) -> tuple[int, int]:
    import re

    m = re.fullmatch(r"\s*([0-9]{1,4})\s*[xX]\s*([0-9]{1,4})\s*", str(text))
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1 or int(m.group(1)) * int(m.group(2)) < 2:
        raise InputError(f"option ro_window of method 'matheuristic' is WIDTHxHEIGHT of at least 2 cells (e.g. 6x6), "
                         f"not {text!r}")
    return int(m.group(1)), int(m.group(2))
