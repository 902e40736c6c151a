"""The edge-slipping backtracker as the registered method ``slip`` (Verhaard's eii, seed 001).

``emc optimise eternity2 --method slip -t 60`` is ``emc slip run eternity2 -t 60`` with the same
settings; the options carry the same names (``-O order=eii-465 -O slips=tuned.json``).
"""

from __future__ import annotations

from ...model import Board, Puzzle
from ..core.method import Method, Option, Outcome, Recorder

_S001 = "seed 001"


class Slip(Method):
    name = "slip"
    summary = "scan-row backtracker that slips a few edges late in the search, with restarts (eii)"
    paper = "Verhaard: Details of Eternity II Solver eii (2009, seed 001)"
    unit = "nodes"
    requires = ("numba",)
    install_hint = "pip install 'emc[fast]'"
    warmup_options = {"order": "rows", "slips": "none", "nodes": 200_000, "restarts": "none"}
    options = (
        Option("order", "eii-468", "square order: rows, rows-up, eii-468, eii-465 or a file", source=_S001),
        Option("slips", "emc-458", "slip array: eii-468, eii-465, emc-458, emc-460, emc-463, emc-465, none, a file or "
               "'193,1,202,2,...'"),
        Option("restarts", "luby", "Luby's sequence, eii's four restart rules (seed 001), or one search", "choice",
               ("luby", "eii", "none")),
        Option("luby_unit", 50_000_000, "nodes per Luby unit", "int", low=1),
        Option("hit_score", None, "score eii's restart rules count hits at (default: the slip array's target)",
               "int", low=0, none=True),
        Option("threads", 1, "independent search processes", "int", low=1, high=1024),
        Option("nodes", None, "node budget in all (repeatable runs)", "int", low=1, none=True),
        Option("groups", None, "piece-group pool file (emc slip groups)", none=True, source=_S001),
        Option("schedule", None, "colour schedule: auto, auto:K or colours=3,7;60:20,120:45", none=True),
        Option("clue_hints", False, "add Eternity II's four clue hints", "bool"),
        Option("save_score", None, "save boards of at least this score (default: the array's target + 2)", "int",
               low=0, none=True),
        Option("save_dir", None, "folder where found boards are written as found", none=True),
        Option("stats", None, "file for the per-depth counts (emc slip estimate reads it)", none=True),
    )

    def _run(self, puzzle: Puzzle, time_limit: float | None, seed: int, options: dict, rec: Recorder,
             start_board: Board | None) -> Outcome:
        from .orders import slip_array
        from .search import SlipConfig, slip_search, with_clue_hints

        P = with_clue_hints(puzzle) if options["clue_hints"] else puzzle
        groups = schedule = None
        if options["groups"]:
            from .groups import read_pool

            groups = read_pool(options["groups"], P)
        if options["schedule"]:
            from .schedule import parse_schedule

            schedule = parse_schedule(options["schedule"], P)
        cfg = SlipConfig(order=options["order"], slips=slip_array(options["slips"]), restarts=options["restarts"],
                         hit_score=options["hit_score"], luby_unit=options["luby_unit"], groups=groups,
                         schedule=schedule, save_score=options["save_score"])

        # A complete board from the first moment (the contract: a run always ends with one), in
        # case the search finds none in a short run: the start board given, else a random one.
        from ...score import score
        from ..core.starts import random_board

        first = start_board if start_board is not None else random_board(P, seed)
        rec.improved(first, score(P, first), "start")

        def progress(d: dict) -> None:
            rec.tick(phase="searching", iterations=d["nodes"],
                     detail=f"{d['nodes_per_second'] / 1e6:.1f} M nodes/s per CPU, runs {d['runs']}")

        r = slip_search(P, cfg, seed=seed, threads=options["threads"], time_limit=time_limit,
                        node_limit=options["nodes"], save_dir=options["save_dir"], stats_path=options["stats"],
                        on_progress=progress, on_best=lambda b, s: rec.improved(b, s, "slip"))
        stopped = "interrupt" if r.interrupted else ("iteration-limit" if options["nodes"] and (
            time_limit is None or r.seconds < time_limit) else "time-limit")
        return Outcome(stopped, r.nodes, r.document())
