"""Backend ``cpsat``: Google OR-Tools CP-SAT on the formulation of :mod:`emc.encoders.cpsat`.

Solves whole puzzles and region sub-problems (feasibility or maximum matched edges, as in
the exact sub-problem solves of Salassa et al., seed 000), enumerates solutions for
counting, and reports every improving board while it runs.

Reproducibility: CP-SAT with several workers races them against each other, so two runs
may return different boards. A run is repeatable when it uses the same seed and either one
worker (``threads=1``) or ``deterministic=True``, which turns on CP-SAT's interleaved
search (the workers take turns in fixed batches) and, when a time limit is given, spends it
as *deterministic* time (CP-SAT's work units, roughly seconds on a fast machine) instead of
wall-clock seconds. A wall-clock limit always makes the stopping point machine-dependent.

Ctrl-C: the search runs in a helper thread while the calling thread waits; an interrupt
stops CP-SAT (``StopSearch``) and the best board found so far is returned as FEASIBLE, with
``Result.interrupted`` set.
"""

from __future__ import annotations

import importlib.util
import json
import re
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import InputError
from ..model import Board, Goal, Subproblem
from .base import Backend, Capability, CountResult, Result, Status, check_options, option_bool, mapping_option, refuse_feasibility_only, refuse_own_settings_in_params, solutions_text, stopped_by_gap
from ..runtime import Throttled, limit_left

#: backend options (anything else raises InputError)
OPTIONS = ("variant", "cuts", "balance", "deterministic", "params", "branching", "piece_cells", "pairs", "exclusions")

BRANCHINGS = ("auto", "rowmajor", "mindom")

#: default CP-SAT model variant per goal (measured with bench/cpsat.py)
DEFAULT_VARIANT = {Goal.FEASIBILITY: "edgevar", Goal.OPTIMISATION: "edgevar"}


class _BoundLines:
    """Turns CP-SAT's search log into progress lines: ``bound B`` each time the upper bound
    on the matched edges (the ``next:[lo,hi]`` of its ``#`` lines, capped at the maximum) drops."""

    _NEXT = re.compile(r"next:\[[^,\]]*,\s*(-?[\d.]+)\]")

    def __init__(self, max_score: int, emit: Callable[[str], None]):
        self.max_score, self.emit, self.last = max_score, emit, None

    def __call__(self, line: str) -> None:
        if not line.startswith("#"):
            return
        m = self._NEXT.search(line)
        if m is None:
            return
        b = min(int(float(m[1])), self.max_score)
        if self.last is None or b < self.last:
            self.last = b
            self.emit(f"bound {b}")


def _ask_cpsat(params: Any) -> str:
    """What CP-SAT says of parameters it refuses, "" when it takes them. Values out of CP-SAT's
    ranges show only when it solves, so it is asked on an empty model, quietly (a params'
    log_search_progress would print its log on stdout)."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    CpSatBackend._apply_params(solver, params)
    solver.parameters.log_search_progress = False
    if solver.solve(cp_model.CpModel()) == cp_model.MODEL_INVALID:
        return solver.response_proto.solution_info or "a value CP-SAT refuses"
    return ""


@lru_cache(maxsize=32)
def _params_refusal(params_json: str) -> str:
    """:func:`_ask_cpsat` for parameters given as JSON text, remembered."""
    return _ask_cpsat(json.loads(params_json))


class CpSatBackend(Backend):
    """OR-Tools CP-SAT, multi-threaded; see the module docstring.

    Options:
        variant: CP-SAT model variant (``edgevar`` default, ``sum``, ``table``, ``clause``).
        cuts: boards whose free-cell assignment is excluded (no-good cut (17) of seed 000).
        balance, pairs, piece_cells: redundant parts of the model (see
            :mod:`emc.encoders.cpsat`).
        deterministic: reproducible multi-worker runs (interleaved search, deterministic time).
        params: dict of extra CP-SAT parameters (``SatParameters`` field -> value, enums by
            name, lists for repeated fields), e.g. ``{"linearization_level": 0}``.
        branching: ``auto`` (CP-SAT's portfolio), ``rowmajor`` (decide the cells in reading
            order) or ``mindom`` (the cell with the fewest candidates first); with one
            thread the strategy is followed strictly, with more it is one worker's.
    """

    name = "cpsat"
    priority = {"feasibility": 20, "optimisation": 10, "region optimisation": 20, "enumeration": 30, "heuristic": 30,
                "race feasibility": 30, "race optimisation": 10}
    options = frozenset(OPTIONS)
    formulations = ("cpsat",)
    capabilities = frozenset({Capability.FEASIBILITY, Capability.OPTIMISATION, Capability.ENUMERATION})
    install_hint = "pip install 'emc[cpsat]'"
    solver_modules = ("ortools.sat.python.cp_model", "emc.encoders.cpsat")
    description = "Google OR-Tools CP-SAT (multi-threaded CP/SAT/LP hybrid)"

    @classmethod
    def available(cls) -> bool:
        return importlib.util.find_spec("ortools") is not None

    @classmethod
    def version(cls) -> str | None:
        if not cls.available():
            return None
        import ortools

        return getattr(ortools, "__version__", None)

    # ------------------------------------------------------------------ building
    def check_option_values(self, goal: Goal, options: dict[str, Any]) -> None:
        self._check_options(options)
        from ..encoders.cpsat import CpSatEncoder

        CpSatEncoder().check_variant(options.get("variant"))
        CpSatEncoder.check_goal_variant(goal, options.get("variant"))
        refuse_feasibility_only("cpsat", goal, options, ("balance", "pairs", "exclusions"))
        branching = options.get("branching", "auto")
        if branching not in BRANCHINGS:
            raise InputError(f"unknown cpsat branching {branching!r} (choose from {', '.join(BRANCHINGS)})")
        params = mapping_option(options, "params",
                                "a mapping of SatParameters fields, e.g. -O 'params={\"linearization_level\": 2}'")
        refuse_own_settings_in_params("cpsat", params, _own_setting)
        if params:
            try:  # the heuristics check the same options before every call: CP-SAT is asked once
                refusal = _params_refusal(json.dumps(params, sort_keys=True))
            except (TypeError, ValueError):  # values JSON cannot spell (from Python only): ask anew
                refusal = _ask_cpsat(params)
            if refusal:
                raise InputError(f"CP-SAT params: {refusal}")

    @staticmethod
    def _check_options(options: dict[str, Any], allowed: tuple[str, ...] = OPTIONS) -> None:
        check_options("cpsat", options, allowed)
        for key in ("balance", "piece_cells", "pairs", "exclusions", "deterministic"):
            if key in options:
                option_bool("cpsat", options, key, False)

    @staticmethod
    def _encode(sp: Subproblem, options: dict[str, Any], hint: Board | None):
        from ..encoders.cpsat import CpSatEncoder

        enc_opts: dict[str, Any] = {}
        if options.get("cuts"):
            enc_opts["cuts"] = list(options["cuts"])
        for key in ("balance", "piece_cells", "pairs", "exclusions"):
            if key in options:
                enc_opts[key] = bool(options[key])
        if options.get("branching") == "mindom":
            enc_opts["cell_vars"] = True
        if hint is not None:
            enc_opts["hint"] = hint
        variant = options.get("variant") or DEFAULT_VARIANT[sp.goal]
        return CpSatEncoder().encode(sp, variant, **enc_opts)

    @staticmethod
    def _apply_params(solver, params: dict[str, Any] | None) -> None:
        """Merge ``{field: value}`` (enums by name, lists for repeated fields) into the
        solver's parameters, validated against ``SatParameters``."""
        if not params:
            return
        if not isinstance(params, dict):
            raise InputError("CP-SAT 'params' must map SatParameters fields to values, e.g. "
                             "-O 'params={\"linearization_level\": 2}'")
        from google.protobuf import json_format, text_format
        from ortools.sat import sat_parameters_pb2

        msg = sat_parameters_pb2.SatParameters()
        for key in params:
            if key not in msg.DESCRIPTOR.fields_by_name:
                raise InputError(f"unknown CP-SAT parameter {key!r}")
        try:
            json_format.ParseDict(dict(params), msg)
        except json_format.ParseError as exc:
            raise InputError(f"bad CP-SAT parameters: {str(exc).splitlines()[0]}") from None
        solver.parameters.merge_text_format(text_format.MessageToString(msg))

    @staticmethod
    def _strategy(enc, branching: str) -> None:
        """Add a decision strategy: ``rowmajor`` decides the placement Booleans cell by cell
        in reading order; ``mindom`` picks the cell with the fewest candidates left (ties in
        reading order) and tries its candidates in order."""
        from ortools.sat.python import cp_model

        if branching == "rowmajor":
            enc.model.add_decision_strategy(enc.literals, cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)
        elif branching == "mindom":
            enc.model.add_decision_strategy(enc.cell_vars, cp_model.CHOOSE_MIN_DOMAIN_SIZE, cp_model.SELECT_MIN_VALUE)

    # ------------------------------------------------------------------ solving
    def _solve(
        self,
        sp: Subproblem,
        formulation: str,
        time_limit: float | None,
        threads: int,
        seed: int,
        log_path: Path | None,
        hint: Board | None,
        on_improvement: Callable[[Board, int], None] | None,
        options: dict[str, Any],
    ) -> Result:
        self._check_options(options)
        from ortools.sat.python import cp_model

        called = time.monotonic()
        if self.progress is not None:  # a large model takes seconds to build and to presolve: say which
            self.progress("building the CP-SAT model")
        enc = self._encode(sp, options, hint)
        if not options.get("deterministic"):  # a deterministic limit counts work units, not the clock
            time_limit = limit_left(time_limit, called)
        branching = options.get("branching", "auto")
        if branching not in BRANCHINGS:
            raise InputError(f"unknown cpsat branching {branching!r} (choose from {', '.join(BRANCHINGS)})")
        solver = cp_model.CpSolver()
        prm = solver.parameters
        prm.num_workers = threads
        prm.random_seed = seed
        prm.catch_sigint_signal = False  # emc handles Ctrl-C itself (see _run)
        if branching != "auto":
            self._strategy(enc, branching)
            if threads == 1:
                prm.search_branching = cp_model.FIXED_SEARCH
        deterministic = bool(options.get("deterministic", False))
        if time_limit is not None:
            if deterministic:
                prm.max_deterministic_time = float(time_limit)
            else:
                prm.max_time_in_seconds = float(time_limit)
        if deterministic and threads > 1:
            prm.interleave_search = True
        self._apply_params(solver, options.get("params"))

        feas = sp.goal is Goal.FEASIBILITY
        state = _Best()
        lock = threading.Lock()

        class Callback(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self) -> None:
                values = np.asarray(self.response_proto.solution, dtype=np.int64)
                board = enc.decode_values(values)
                obj = sp.score(board)
                with lock:
                    if state.board is not None and obj <= state.objective:
                        return
                    state.board, state.objective = board, obj
                if on_improvement is not None:
                    on_improvement(board, obj)
                if feas or obj == sp.max_score:
                    self.stop_search()  # nothing better exists: no need for CP-SAT to prove it

        cb = Callback()
        log_file = None
        if log_path is not None:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            log_file = open(log_path, "w", encoding="utf-8")
        bounds = _BoundLines(sp.max_score, self.progress) if self.progress is not None and not feas else None
        if log_file is not None or bounds is not None:
            prm.log_search_progress = True
            prm.log_to_stdout = False

            def on_log(line: str) -> None:
                if log_file is not None:
                    log_file.write(line + "\n")
                    log_file.flush()
                if bounds is not None:
                    bounds(line)

            solver.log_callback = on_log
        if self.progress is not None:
            size = enc.sizes()
            self.progress(f"CP-SAT presolving and searching ({size['variables']:,} variables, "
                          f"{size['constraints']:,} constraints)")
        try:
            status, interrupted = _run(solver, enc.model, cb)
        finally:
            if log_file is not None:
                log_file.close()

        stats = {
            "variant": enc.variant,
            "variables": enc.sizes()["variables"],
            "constraints": enc.sizes()["constraints"],
            "conflicts": int(solver.num_conflicts),
            "branches": int(solver.num_branches),
            "cpsat_status": solver.status_name(status),
            "deterministic_time": float(solver.response_proto.deterministic_time),
        }
        res = Result(Status.UNKNOWN, log_path=log_path, stats=stats, interrupted=interrupted)
        # The last solution found is also in the response; take it if the callback missed it.
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) and state.board is None:
            state.board = enc.decode_values(np.asarray(solver.response_proto.solution, dtype=np.int64))
            state.objective = sp.score(state.board)
        if status == cp_model.INFEASIBLE:  # no board at all: Backend.solve reports no bound then
            res.status = Status.INFEASIBLE
            return res
        if status == cp_model.MODEL_INVALID:
            from .base import BackendError

            raise BackendError(f"CP-SAT rejected the model: {solver.response_proto.solution_info or 'MODEL_INVALID'}")
        bound = None
        # Stopped before it had loaded the model (in presolve), CP-SAT answers a bound of 0: no
        # bound at all, not a proof that nothing matches.
        searched = state.board is not None or solver.response_proto.num_booleans > 0
        if not feas and searched and np.isfinite(solver.best_objective_bound):
            bound = int(min(np.floor(solver.best_objective_bound + 1e-6), sp.max_score))
        if state.board is not None:
            res.board, res.objective = state.board, state.objective
            # CP-SAT says OPTIMAL also when a gap limit in params stopped it: its bound tells
            gap_stop = status == cp_model.OPTIMAL and stopped_by_gap(bound, state.objective, stats)
            if feas or state.objective == sp.max_score or (status == cp_model.OPTIMAL and not gap_stop):
                res.status, res.bound = Status.OPTIMAL, state.objective
            elif gap_stop:
                res.status, res.bound = Status.FEASIBLE, bound
            else:
                res.status = Status.FEASIBLE
                res.bound = max(bound, state.objective) if bound is not None else None
                if time_limit is None and not interrupted:
                    # no limit and no Ctrl-C: a setting in params stopped it (stop_after_first_solution, ...)
                    stats["stopped"] = "a setting in params ended the search before it proved the optimum"
                else:
                    res.interrupted = True
        else:
            res.status, res.bound, res.interrupted = Status.UNKNOWN, bound, True
        return res

    # ------------------------------------------------------------------ counting
    def _count(self, sp: Subproblem, formulation: str, limit: int | None, time_limit: float | None,
               keep: int, options: dict[str, Any]) -> CountResult:
        self._check_options(options, ("variant", "balance", "params", "cuts"))
        from ortools.sat.python import cp_model

        opts = dict(options)
        opts.setdefault("variant", "sum")  # placement Booleans only: one model solution per board
        enc = self._encode(sp, opts, None)
        only_placements = len(enc.model.proto.variables) == len(enc.literals)
        solver = cp_model.CpSolver()
        prm = solver.parameters
        prm.enumerate_all_solutions = True
        # One worker: with several, CP-SAT may report a solution more than once.
        prm.num_workers = 1
        prm.catch_sigint_signal = False
        if time_limit is not None:
            prm.max_time_in_seconds = float(time_limit)
        refuse_own_settings_in_params("cpsat", options.get("params"), _own_setting, counting=True)
        self._apply_params(solver, options.get("params"))

        seen: set[bytes] = set()
        boards: list[Board] = []
        counter = {"n": 0, "stopped": False}
        tick = Throttled(self.progress)

        class Callback(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self) -> None:
                values = np.asarray(self.response_proto.solution, dtype=np.int64)
                chosen = values[enc.literal_index] > 0
                if not only_placements:
                    # Auxiliary variables could repeat a board; count distinct placements.
                    key = np.packbits(chosen).tobytes()
                    if key in seen:
                        return
                    seen.add(key)
                counter["n"] += 1
                tick(lambda: solutions_text(counter["n"]))
                if len(boards) < keep:
                    boards.append(enc.decode_values(values))
                if limit is not None and counter["n"] >= limit:
                    counter["stopped"] = True
                    self.stop_search()

        status, interrupted = _run(solver, enc.model, Callback())
        complete = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) and not counter["stopped"] and not interrupted
        return CountResult(count=counter["n"], complete=complete, boards=boards,
                           stats={"variant": enc.variant, "cpsat_status": solver.status_name(status),
                                  "conflicts": int(solver.num_conflicts)})


def _own_setting(key: str) -> str | None:
    """Which emc option sets SatParameters field ``key`` (see refuse_own_settings_in_params)."""
    return {"max_time_in_seconds": "time", "max_deterministic_time": "time", "num_workers": "threads",
            "num_search_workers": "threads", "random_seed": "seed",
            "enumerate_all_solutions": "emc count enumerates (with one worker, so no board comes twice)",
            "catch_sigint_signal": "emc handles Ctrl-C itself"}.get(key)


class _Best:
    board: Board | None = None
    objective: int = -1


def _run(solver, model, callback) -> tuple[int, bool]:
    """Solve in a helper thread so that Ctrl-C in the calling thread can stop CP-SAT.

    Returns CP-SAT's status and whether the search was interrupted by the user.
    """
    out: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            out["status"] = solver.solve(model, callback)
        except BaseException as exc:  # re-raised in the calling thread
            out["error"] = exc
        finally:
            done.set()

    # Waiting on an Event (not Thread.join) keeps the thread's state sane when Ctrl-C
    # interrupts the wait.
    t = threading.Thread(target=work, name="emc-cpsat", daemon=True)
    t.start()
    interrupted = False
    while not done.is_set():
        try:
            done.wait(0.05)
        except KeyboardInterrupt:
            interrupted = True
            solver.stop_search()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["status"], interrupted
