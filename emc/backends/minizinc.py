"""Backend ``minizinc``: the MiniZinc model of :mod:`emc.encoders.minizinc` on a CP solver
(Gecode by default) through the ``minizinc`` Python package.

Solves whole puzzles and region sub-problems as a constraint program (the CP route that
Salassa et al., seed 000, contrast with their MILP), reports every improving board of an
optimisation run, and enumerates all solutions for counting.

Notes:
    * The solver runs as a MiniZinc subprocess. The time limit is MiniZinc's own
      (``--time-limit``, which includes compiling the model to FlatZinc).
    * ``seed`` is passed as ``--random-seed`` (Gecode's ``-r``); it only changes runs that
      use randomness (restarts). With one thread Gecode is deterministic.
    * Gecode always runs on one thread, whatever ``threads`` says: Gecode 6.2's parallel
      search (``-p 2``) was seen to end an optimisation with a wrong "optimal" objective
      (a 6-cell clue-1 sub-problem: 15 or less reported optimal in about 1 run in 100, true
      16; with or without restarts, random or fixed values). Other MiniZinc solvers get
      ``threads`` as ``-p``.
    * Hints are not used (Gecode has no warm start in this MiniZinc version).
    * Ctrl-C cancels the search, terminates the subprocess and returns the best board so far.
"""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
import subprocess
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable

from ..errors import InputError
from ..model import Board, Goal, Subproblem
from .base import Backend, BackendError, Capability, CountResult, Result, Status, check_options, option_bool, refuse_feasibility_only, solutions_text
from ..runtime import Throttled

OPTIONS = ("solver", "variant", "search", "value", "restart", "balance")


class MiniZincBackend(Backend):
    """MiniZinc with a CP solver (default ``gecode``); see the module docstring.

    Options:
        solver: MiniZinc solver id or tag (default ``gecode``).
        variant: ``element`` (default) or ``table`` (see :mod:`emc.encoders.minizinc`).
        search: ``int_search`` variable selection (default ``first_fail``).
        value: value choice (default ``indomain_random``; the seed picks the values).
        restart: restart policy (default ``luby``).
        balance: colour-balance count in feasibility models (default on).
    """

    name = "minizinc"
    priority = {"feasibility": 60, "optimisation": 50, "region optimisation": 50, "enumeration": 40}
    options = frozenset(OPTIONS)
    formulations = ("minizinc",)
    capabilities = frozenset({Capability.FEASIBILITY, Capability.OPTIMISATION, Capability.ENUMERATION})
    install_hint = "apt-get install minizinc (Debian) and pip install 'emc[minizinc]'"
    solver_modules = ("minizinc", "emc.encoders.minizinc")
    description = "MiniZinc CP model on Gecode (or another MiniZinc solver)"

    @classmethod
    def available(cls) -> bool:
        return shutil.which("minizinc") is not None and importlib.util.find_spec("minizinc") is not None

    @classmethod
    def version(cls) -> str | None:
        exe = shutil.which("minizinc")
        if exe is None:
            return None
        try:
            out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        words = out.split()
        return words[words.index("version") + 1] if "version" in words else (out.strip() or None)

    def check_option_values(self, goal: Goal, options: dict[str, Any]) -> None:
        from ..encoders.minizinc import check_search_options

        check_search_options(options)
        option_bool(self.name, options, "balance", True)
        refuse_feasibility_only(self.name, goal, options, ("balance",))
        solver_id = options.get("solver")
        if solver_id and self.available():
            self._lookup_solver(str(solver_id))

    @staticmethod
    def _lookup_solver(solver_id: str):
        """The ``minizinc.Solver`` MiniZinc knows as ``solver_id``; InputError if none."""
        import minizinc

        try:
            return minizinc.Solver.lookup(solver_id)
        except LookupError:
            raise InputError(f"MiniZinc has no solver {solver_id!r} (see `minizinc --solvers`)") from None

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _check_options(options: dict[str, Any]) -> None:
        check_options("minizinc", options, OPTIONS)

    @staticmethod
    def _processes(solver, threads: int) -> int:
        """How many processes ``solver`` gets for ``threads``: one for Gecode, whose parallel
        search is not trusted (see the module docstring)."""
        return 1 if "gecode" in str(solver.id).lower() else max(1, int(threads))

    @staticmethod
    def _instance(sp: Subproblem, options: dict[str, Any], folder: Path, solver=None):
        """Encode, write the files and build a ``minizinc.Instance`` (on ``solver``, a
        ``minizinc.Solver`` already looked up, or the one ``options`` names)."""
        import minizinc

        from ..encoders.minizinc import MiniZincEncoder

        enc_opts = {k: options[k] for k in ("search", "value", "restart", "balance") if k in options}
        enc = MiniZincEncoder().encode(sp, options.get("variant"), **enc_opts)
        mzn, dzn = enc.write(folder / "model.mzn")
        if solver is None:
            solver = MiniZincBackend._lookup_solver(options.get("solver") or "gecode")
        model = minizinc.Model([mzn, dzn])
        return enc, minizinc.Instance(solver, model)

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
        import minizinc

        feas = sp.goal is Goal.FEASIBILITY
        best: dict[str, Any] = {"board": None, "objective": -1, "status": minizinc.Status.UNKNOWN, "stats": {}}
        log_lines: list[str] = []
        t0 = time.perf_counter()

        with tempfile.TemporaryDirectory(prefix="emc-minizinc-") as tmp:
            solver = self._lookup_solver(str(options.get("solver") or "gecode"))
            enc, inst = self._instance(sp, options, Path(tmp), solver)
            processes = self._processes(solver, threads)
            kwargs: dict[str, Any] = {"processes": processes, "random_seed": seed}
            if time_limit is not None:
                kwargs["time_limit"] = _minizinc_limit(time_limit)
            if not feas:
                kwargs["intermediate_solutions"] = True
            stderr_file = Path(tmp) / "stderr.txt"
            if log_path is not None:
                kwargs["debug_output"] = stderr_file
            log_lines.append(f"minizinc {self.version()} solver={options.get('solver') or 'gecode'} "
                             f"variant={enc.variant} goal={sp.goal.value} threads={threads} processes={processes} seed={seed} "
                             f"time_limit={time_limit}")

            def handle(r) -> None:
                if r.status is not None:
                    best["status"] = r.status
                if r.statistics:
                    best["stats"].update({k: v for k, v in r.statistics.items() if isinstance(v, (int, float, str))})
                if r.solution is None:
                    return
                board = enc.decode(r.solution)
                obj = sp.score(board)
                log_lines.append(f"{time.perf_counter() - t0:9.3f}s solution matched={obj}/{sp.max_score}")
                if obj > best["objective"]:
                    best["board"], best["objective"] = board, obj
                    if on_improvement is not None:
                        on_improvement(board, obj)

            interrupted = _run(inst.solutions, kwargs, handle)
            if log_path is not None:
                log_lines.append(f"final status {best['status'].name}" + (" (interrupted)" if interrupted else ""))
                log_lines += [f"{k}={v}" for k, v in sorted(best["stats"].items())]
                if stderr_file.exists():
                    log_lines.append("solver messages:\n" + stderr_file.read_text(errors="replace"))
                log_path.parent.mkdir(parents=True, exist_ok=True)
                log_path.write_text("\n".join(log_lines) + "\n")

        mz = best["status"]
        stats = {"variant": enc.variant, **enc.sizes(), "minizinc_status": mz.name, "processes": processes,
                 **{k: best["stats"][k] for k in ("nodes", "failures", "solveTime", "flatTime") if k in best["stats"]}}
        res = Result(Status.UNKNOWN, log_path=log_path, stats=stats, interrupted=interrupted)
        if mz is minizinc.Status.ERROR:
            raise BackendError("MiniZinc reported an error" + (f" (see {log_path})" if log_path else ""))
        if mz is minizinc.Status.UNSATISFIABLE and best["board"] is None:  # Backend.solve reports no bound then
            res.status = Status.INFEASIBLE
            return res
        if best["board"] is None:
            res.interrupted = True
            return res
        res.board, res.objective = best["board"], best["objective"]
        if feas or mz is minizinc.Status.OPTIMAL_SOLUTION or res.objective == sp.max_score:
            res.status, res.bound = Status.OPTIMAL, res.objective
        else:
            res.status, res.interrupted = Status.FEASIBLE, True
        return res

    # ------------------------------------------------------------------ counting
    def _count(self, sp: Subproblem, formulation: str, limit: int | None, time_limit: float | None,
               keep: int, options: dict[str, Any]) -> CountResult:
        self._check_options(options)
        import minizinc

        state: dict[str, Any] = {"n": 0, "status": minizinc.Status.UNKNOWN, "boards": []}
        # Enumeration needs one systematic pass: restarts would revisit solutions.
        if options.get("restart", "none") != "none":
            raise InputError("counting walks the search tree once: a restart would find solutions again "
                             "(count takes -O restart=none, its default)")
        solver = self._lookup_solver(str(options.get("solver") or "gecode"))
        if "-a" not in (solver.stdFlags or []):
            raise InputError(f"MiniZinc's solver {solver.id!r} cannot list all solutions (it has no -a flag): "
                             "count with gecode, or with -b sat, cpsat or backtrack")
        opts = {"value": "indomain_min", **options, "restart": "none"}
        with tempfile.TemporaryDirectory(prefix="emc-minizinc-") as tmp:
            enc, inst = self._instance(sp, opts, Path(tmp), solver)  # looked up once (minizinc --solvers runs)
            kwargs: dict[str, Any] = {"processes": 1}
            if limit is not None and limit <= MINIZINC_MAX_SOLUTIONS:
                kwargs["nr_solutions"] = int(limit)
            else:  # MiniZinc reads -n into 32 bits and refused 2^31 with its usage text: emc stops it there itself
                kwargs["all_solutions"] = True
            if time_limit is not None:
                kwargs["time_limit"] = _minizinc_limit(time_limit)

            tick = Throttled(self.progress)

            def handle(r) -> None:
                if r.status is not None:
                    state["status"] = r.status
                if r.solution is None:
                    return
                state["n"] += 1
                tick(lambda: solutions_text(state["n"]))
                if len(state["boards"]) < keep:
                    state["boards"].append(enc.decode(r.solution))
                if limit is not None and state["n"] >= limit:  # only reached without nr_solutions
                    raise _Enough

            if limit is not None and limit <= 0:
                return CountResult(0, False)
            try:
                interrupted = _run(inst.solutions, kwargs, handle)
            except _Enough:  # the solver process was ended on the way out
                interrupted = False
        mz = state["status"]
        if mz is minizinc.Status.ERROR:
            raise BackendError("MiniZinc reported an error while enumerating")
        reached_limit = limit is not None and state["n"] >= limit
        complete = (not interrupted and not reached_limit
                    and mz in (minizinc.Status.ALL_SOLUTIONS, minizinc.Status.UNSATISFIABLE, minizinc.Status.OPTIMAL_SOLUTION))
        return CountResult(count=state["n"], complete=complete, boards=state["boards"],
                           stats={"variant": enc.variant, "minizinc_status": mz.name})


#: Largest solution count MiniZinc's -n takes (32 bits); past it emc counts and stops it itself.
MINIZINC_MAX_SOLUTIONS = 2**31 - 1


class _Enough(Exception):
    """Raised from the solution handler when a count reached its limit without ``-n``."""


#: Longest limit given to MiniZinc: it reads milliseconds into 32 bits (a limit past 2^31 ms,
#: 24.8 days, made it answer UNKNOWN at once) and the Python package waits a little longer than
#: the limit on a 32-bit poll too (at 2^31 - 2 ms it failed), so longer limits stop at 20 days.
MINIZINC_MAX_SECONDS = 20 * 86400


def _minizinc_limit(time_limit: float) -> timedelta:
    """``time_limit`` as MiniZinc takes it (at most :data:`MINIZINC_MAX_SECONDS`)."""
    return timedelta(seconds=min(time_limit, MINIZINC_MAX_SECONDS))


def _driver_message(exc: Exception) -> str:
    """The one line that says what went wrong in a MiniZincError. When the driver printed text
    instead of its JSON (a usage error), the Python package's message is only "cannot be
    parsed as JSON" followed by the text's repr: the driver's own first line is what counts."""
    import ast

    lines = str(exc).strip().splitlines()
    if not lines:
        return repr(exc)
    if len(lines) > 1 and "cannot be parsed as JSON" in lines[0]:
        try:
            said = ast.literal_eval(lines[1].strip())  # the repr of the bytes or text it printed
        except (ValueError, SyntaxError):
            said = lines[1]
        if isinstance(said, bytes):
            said = said.decode("utf-8", errors="replace")
        first = next((x.strip() for x in str(said).splitlines() if x.strip()), "")
        if "MiniZinc driver." in first:  # its usage text: what it refused went to its stderr
            return "it refused the command line emc gave it and printed its usage text (please report this)"
        if first:
            return first
    return lines[0]


def _run(solutions, kwargs: dict[str, Any], handle: Callable[[Any], None]) -> bool:
    """Drive ``solutions(**kwargs)`` (an async generator) to the end, passing each result to
    ``handle``. Returns True when Ctrl-C stopped it (the subprocess is then terminated by
    minizinc's own clean-up on cancellation)."""
    import minizinc

    async def drive() -> None:
        agen = solutions(**kwargs)
        try:
            async for r in agen:
                try:
                    handle(r)  # the caller's callbacks run here, and may raise
                except Exception as exc:
                    # Thrown into the generator, the error ends the MiniZinc process (closing
                    # the generator alone would leave it and its solver running).
                    try:
                        await agen.athrow(exc)
                    except Exception:
                        pass
                    raise
        finally:
            await agen.aclose()

    def run_here() -> bool:
        import warnings

        try:
            with warnings.catch_warnings():
                # Debian's Gecode library redefines some globals the old way; MiniZinc warns
                # about it on every run, which says nothing about this model.
                warnings.filterwarnings("ignore", message=".*overrides a global constraint file.*")
                # An infeasible sub-problem is reported through the status, not as a warning.
                warnings.filterwarnings("ignore", message=".*model inconsistency detected.*")
                asyncio.run(drive())
        except KeyboardInterrupt:
            return True
        except minizinc.MiniZincError as exc:
            raise BackendError(f"MiniZinc failed: {_driver_message(exc)}") from None
        return False

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run_here()
    # Called from inside a running event loop (a notebook): run in a thread of its own.
    out: dict[str, Any] = {}

    def work() -> None:
        try:
            out["interrupted"] = run_here()
        except BaseException as exc:  # re-raised below
            out["error"] = exc

    t = threading.Thread(target=work, name="emc-minizinc")
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["interrupted"]
