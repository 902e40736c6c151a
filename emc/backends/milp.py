"""Backends ``highs`` and ``cbc``: the MILP formulations of :mod:`emc.encoders.milp`.

The model is (1)-(14) of Salassa et al. (seed 000) or emc's compact variant
(``variant="paper"`` / ``"compact"``, the default); both minimise the unmatched counted
edges, so a solver's dual bound ``z`` turns into the bound ``max_score - ceil(z)`` on
matched edges. Options: ``variant``, ``linking`` (compact variant: ``flow`` or ``diff``),
``cuts`` (boards excluded by the no-good cut (17) of seed 000) and ``params`` (a dict of
extra solver settings: HiGHS option names, or CBC command-line parameters without the
dash, e.g. ``{"mip_heuristic_effort": 0.3}`` or ``{"feas": "off"}``).

``highs`` passes the arrays straight to HiGHS through highspy. ``cbc`` writes the model as
MPS and runs the CBC binary that PuLP bundles (or a ``cbc`` on the PATH), reading its
solution file and its log. Both stop proving at an absolute gap below one edge (the
objective is integral) and use the given random seed, so with one thread a run repeats
exactly; CBC with more threads runs in its repeatable mode (``-threads 100+n``). HiGHS's
branch and bound runs on one thread; ``threads`` sizes the worker pool its other parts use.
HiGHS runs without its RINS and RENS heuristics (:data:`HIGHS_SETTINGS`; ``params`` can turn
them on): with them, region solves ran seconds past their time limits.

Hints (``hint=board``) are passed as a MIP start: every placement of the board on a free
cell at 1, the rest at 0, the edge columns at the values that board implies.

Ctrl-C:

* HiGHS runs in a helper thread; an interrupt asks it to stop at its next check (within
  milliseconds in branch and bound, but a heuristic under way runs to its end first: about
  2 s on Eternity II's 2xW regions with emc's settings, ~20 s there with RINS and RENS turned
  on through ``params``) and the incumbent, if any, comes back as
  FEASIBLE with ``Result.interrupted`` set. Each improving board is also passed to
  ``on_improvement`` as HiGHS finds it.
* CBC runs in its own process group, so a terminal's Ctrl-C reaches emc only; emc then
  sends CBC one SIGINT. CBC acts on it only inside branch and bound: there it stops within
  a moment, writes its best solution, and that board comes back as FEASIBLE. In its root
  phase (presolve, cuts, feasibility pump: tens of seconds on an 8x8 puzzle) it carries on
  until that phase ends; a second Ctrl-C kills CBC, and the result is UNKNOWN (CBC keeps
  its incumbent to itself until it exits). CBC reports no boards while it runs:
  ``on_improvement`` is called once, with the final board.
* Time limits: CBC obeys ``-sec`` only in branch and bound, so emc sends it the same SIGINT
  half a second past the limit and ends it 1-3 s later if it is still in its root phase.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import InputError
from ..model import Board, Goal, Subproblem
from .base import Backend, BackendError, Capability, Result, Status, check_options, count_text, mapping_option, refuse_own_settings_in_params, stopped_by_gap
from ..runtime import BACKGROUND_THREADS, Throttled, c_stdout_to_stderr, die_with_parent_hook, limit_left

#: backend options (anything else raises InputError)
OPTIONS = ("variant", "cuts", "linking", "params")
# Seconds past the time limit after which emc sends CBC a SIGINT (it stops at once in branch
# and bound, and writes its best board), then ends it (in its root phase it ignores SIGINT):
# a tenth of the limit, between 1 and 3 s.
CBC_STOP_AFTER = 0.5
#: Seconds a solver gets to stop after Ctrl-C before emc stops waiting for it: CBC in its root
#: phase and HiGHS in a heuristic sub-MIP (which does not look at the interrupt) ran on for up
#: to 25 s. Then CBC is killed, and HiGHS's thread is left to finish in the background with
#: the run taking the best solution it had reported.
CTRL_C_GRACE = 1.5
#: HiGHS settings emc changes from HiGHS's own defaults (``params`` may set them back). With
#: the RINS and RENS heuristics on, a region solve could run well past its time limit while one
#: of their sub-MIPs was under way (4x4 regions of Eternity II with a 2 s limit: up to 5.5 s in
#: 3 of 5 runs, against 2.4 s with them off, and a higher average score off; README, "Measured
#: against the paper"); untimed, the greedy construction scored the same within an edge.
HIGHS_SETTINGS = {"mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False}


def _cbc_grace(time_limit: float) -> float:
    return CBC_STOP_AFTER + min(3.0, max(1.0, 0.1 * time_limit))


def check_milp_options(options: dict[str, Any], backend: str) -> None:
    """Refuse MILP options the encoder or the solver will not take (no work done)."""
    from ..encoders.milp import MilpEncoder

    check_options(backend, options, OPTIONS)
    MilpEncoder.check_linking(MilpEncoder().check_variant(options.get("variant")), options.get("linking"))
    params = mapping_option(options, "params", "a mapping of solver settings, e.g. -O 'params={\"mip_rel_gap\": 0}'")
    if not all(isinstance(k, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k)
                                               for k in params):
        raise InputError("MILP 'params' must map solver setting names to values, e.g. "
                         "-O 'params={\"mip_rel_gap\": 0}'")


def _encode(sp: Subproblem, options: dict[str, Any], backend: str):
    from ..encoders.milp import MilpEncoder

    check_milp_options(options, backend)
    enc_opts = {k: options[k] for k in ("cuts", "linking") if options.get(k) is not None}
    return MilpEncoder().encode(sp, options.get("variant"), **enc_opts)


_ONE_SOLVE = threading.Lock()
_BUSY = ("HiGHS runs one solve at a time in a process (a lock inside highspy), and one is running in another "
         "thread: run the other solve in its own process, or use cbc or cpsat side by side")


@contextlib.contextmanager
def _released_after(thread_of: list):
    """Release :data:`_ONE_SOLVE` when the block ends, or, when HiGHS's thread (``thread_of``,
    filled in the block) is left running in the background, when that thread ends."""
    try:
        yield
    finally:
        left = [t for t in thread_of if t.is_alive()]
        if left:
            threading.Thread(target=lambda: (left[0].join(), _ONE_SOLVE.release()), daemon=True,
                             name="emc-highs-release").start()
        else:
            _ONE_SOLVE.release()


def _tree_line(sp: Subproblem, nodes: int | None, dual: float | None, primal: float | None = None) -> str:
    """A progress line of a branch and bound: its nodes (None: still at the root), the bound
    on the matched edges and the best board's matched edges (from the best objective value,
    unmatched edges; None or a huge value: no board yet)."""
    bound = _bound_from(sp, dual)
    text = "root node" if nodes is None else f"{count_text(nodes)} branch-and-bound nodes"
    if bound is not None:
        text += f", bound {bound}"
    if primal is not None and math.isfinite(primal) and abs(primal) < 1e30:
        text += f", best {max(0, sp.max_score - round(primal))}"
    return text


class _CbcProgress:
    """Follows CBC's log as it is written and turns its node lines ("After N nodes, ... best
    solution, best possible B") and new-solution lines into :func:`_tree_line` progress."""

    NODES = re.compile(r"^Cbc0010I After (\d+) nodes, \d+ on tree, (\S+) best solution, best possible (\S+)")
    FOUND = re.compile(r"^Cbc00(?:04|12)I Integer solution of (\S+) found")

    def __init__(self, sp: Subproblem, log: Path, emit: Callable[[str], None]):
        self.sp, self.log, self.tick = sp, log, Throttled(emit)
        self.f = None
        self.rest = ""
        self.nodes: int | None = None
        self.dual: float | None = None
        self.primal: float | None = None
        self.pending: str | None = None

    def poll(self) -> None:
        if self.f is None:
            try:
                self.f = open(self.log, errors="replace")
            except OSError:
                return
        *lines, self.rest = (self.rest + self.f.read()).split("\n")
        seen = False
        for line in lines:
            m = self.NODES.match(line)
            if m:
                self.nodes, self.primal, self.dual = int(m[1]), _number(m[2]), _number(m[3])
                seen = True
                continue
            m = self.FOUND.match(line)
            if m and (v := _number(m[1])) is not None and (self.primal is None or v < self.primal):
                self.primal = v
                seen = True
        if seen:
            self.pending = _tree_line(self.sp, self.nodes, self.dual, self.primal)
        if self.pending:  # kept until shown, so the last news is not lost to the throttle
            self.tick(self._take)

    def _take(self) -> str | None:
        text, self.pending = self.pending, None
        return text

    def close(self) -> None:
        if self.f is not None:
            self.f.close()


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _bound_from(sp: Subproblem, dual: float | None) -> int | None:
    """Upper bound on matched counted edges from a lower bound on unmatched ones."""
    if dual is None or not math.isfinite(dual):
        return None
    unmatched = max(0, math.ceil(dual - 1e-6))
    return max(0, sp.max_score - unmatched)


def _cbc_own_setting(key: str) -> str | None:
    """Which emc option sets CBC setting ``key``; CBC takes abbreviations ("sec" for seconds)."""
    k = key.lower().lstrip("-")
    if len(k) >= 3 and "seconds".startswith(k):
        return "time"
    if len(k) >= 3 and "threads".startswith(k):
        return "threads"
    if k.startswith("random") and ("randomseed".startswith(k) or "randomcbcseed".startswith(k)):
        return "seed"
    return None


def _trivial(sp: Subproblem) -> Result | None:
    """Nothing to place: the fixed board is the answer (or no answer for a failed feasibility)."""
    if sp.n_free:
        return None
    b = sp.fixed.copy()
    ok = sp.goal is Goal.OPTIMISATION or sp.score(b) == sp.max_score
    return Result(Status.OPTIMAL if ok else Status.INFEASIBLE, b if ok else None, sp.score(b) if ok else None,
                  sp.score(b))


class _MilpBackend(Backend):
    formulations = ("milp",)
    options = frozenset(OPTIONS)
    capabilities = frozenset({Capability.FEASIBILITY, Capability.OPTIMISATION})
    install_hint = "pip install 'emc[milp]'"
    solver_modules = ("pulp", "highspy", "emc.encoders.milp")

    def check_option_values(self, goal: Goal, options: dict[str, Any]) -> None:
        check_milp_options(options, self.name)


# ---------------------------------------------------------------------------- HiGHS
class HighsBackend(_MilpBackend):
    """HiGHS through highspy (see the module docstring)."""

    name = "highs"
    priority = {"feasibility": 40, "optimisation": 30, "region optimisation": 30, "heuristic": 10}
    description = "HiGHS MILP solver (highspy), paper or compact MILP model"

    @classmethod
    def available(cls) -> bool:
        return importlib.util.find_spec("highspy") is not None

    @classmethod
    def version(cls) -> str | None:
        if not cls.available():
            return None
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("highspy")
        except PackageNotFoundError:  # pragma: no cover - an unusual install
            return None

    def check_option_values(self, goal: Goal, options: dict[str, Any]) -> None:
        super().check_option_values(goal, options)
        params = mapping_option(options, "params", "a mapping of HiGHS settings")
        refuse_own_settings_in_params("highs", params, {"time_limit": "time", "threads": "threads",
                                                        "random_seed": "seed"}.get)
        if params and self.available():
            import highspy

            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            for key, value in params.items():
                try:
                    ok = h.setOptionValue(key, value) == highspy.HighsStatus.kOk
                except TypeError:  # a value of a type no HiGHS option takes (a list, ...)
                    ok = False
                if not ok:
                    raise InputError(f"HiGHS rejects option {key}={value!r} (its options: "
                                     "https://ergo-code.github.io/HiGHS/stable/options/definitions/)")

    def _solve(self, sp, formulation, time_limit, threads, seed, log_path, hint, on_improvement, options) -> Result:
        import highspy

        called = time.monotonic()
        enc = _encode(sp, options, self.name)
        trivial = _trivial(sp)
        if trivial is not None:
            return trivial
        time_limit = limit_left(time_limit, called)
        m = enc.model
        if m.n_cols == 0 and not np.all((m.row_lower <= 0) & (m.row_upper >= 0)):
            # No placement is left for some free cell (HiGHS calls a model without columns
            # "Empty" and solves nothing): the empty assignment breaks a row, so no board fits.
            return Result(Status.INFEASIBLE, None, None, None, stats={"variant": enc.variant, **enc.sizes()})
        h = highspy.Highs()
        h.setOptionValue("output_flag", log_path is not None)
        if log_path is not None:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            if log_path.exists():
                log_path.unlink()  # HiGHS appends; one run per log file
            h.setOptionValue("log_to_console", False)
            h.setOptionValue("log_file", str(log_path))
        if time_limit is not None:
            h.setOptionValue("time_limit", float(time_limit))
        h.setOptionValue("threads", int(threads))
        h.setOptionValue("random_seed", int(seed))
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 1.0 - 1e-6)
        for key, value in HIGHS_SETTINGS.items():
            h.setOptionValue(key, value)
        for key, value in (options.get("params") or {}).items():
            if h.setOptionValue(key, value) != highspy.HighsStatus.kOk:
                raise InputError(f"HiGHS rejects option {key}={value!r}")

        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = m.n_cols, m.n_rows
        lp.col_cost_ = m.cost
        lp.col_lower_, lp.col_upper_ = m.col_lower, m.col_upper
        lp.row_lower_ = np.where(np.isfinite(m.row_lower), m.row_lower, -highspy.kHighsInf)
        lp.row_upper_ = np.where(np.isfinite(m.row_upper), m.row_upper, highspy.kHighsInf)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = m.n_cols, m.n_rows
        lp.a_matrix_.start_ = m.start.astype(np.int32)
        lp.a_matrix_.index_ = m.index.astype(np.int32)
        lp.a_matrix_.value_ = m.value
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                           for i in m.integer.tolist()]
        lp.col_names_ = list(m.col_names)
        lp.row_names_ = list(m.row_names)
        if h.passModel(lp) == highspy.HighsStatus.kError:
            raise BackendError("HiGHS rejected the model")

        if hint is not None:
            start = enc.start_values(hint)
            if start is not None:
                sol = highspy.HighsSolution()
                sol.col_value = start.tolist()
                sol.value_valid = True
                h.setSolution(sol)

        stats: dict[str, Any] = {"variant": enc.variant, **enc.sizes()}
        # The callbacks run in HiGHS's thread, which prints an exception and carries on: a
        # caller's error is kept here, stops the solve and is raised in the caller's thread.
        raised: list[BaseException] = []
        latest: list[np.ndarray] = []  # the last improving solution HiGHS reported
        left: list[bool] = []  # set when this call answered without waiting for HiGHS to stop

        def improved(e) -> None:
            if left:
                return
            x = np.array(e.data_out.mip_solution)
            latest[:] = [x]
            if on_improvement is None:
                return
            try:
                board = enc.decode(x)
            except Exception:  # a solver-side vector emc cannot read: skip the report
                return
            try:
                on_improvement(board, sp.score(board))
            except BaseException as exc:
                raised.append(exc)

        h.cbMipImprovingSolution += improved

        if self.progress is not None:
            tick = Throttled(self.progress)

            def polled(e) -> None:
                if left:
                    return
                d = e.data_out
                try:
                    tick(lambda: _tree_line(sp, int(d.mip_node_count), float(d.mip_dual_bound),
                                            float(d.mip_primal_bound)))
                except BaseException as exc:
                    raised.append(exc)

            h.cbMipInterrupt += polled

        h.HandleUserInterrupt = True
        interrupted = False
        give_up_at = None  # after Ctrl-C: when to stop waiting for HiGHS
        # highspy runs one solve per process at a time (a class-level lock): a second one in another
        # thread would wait for it, past its own time limit, or be refused by highspy. emc's own lock
        # refuses it at once, every time; it is held until HiGHS's thread ends.
        if not _ONE_SOLVE.acquire(blocking=False):
            raise BackendError(_BUSY)
        thread_of: list[threading.Thread] = []
        with _released_after(thread_of), c_stdout_to_stderr():  # released whatever goes wrong after acquire
            try:
                thread = h.startSolve()
            except Exception as exc:
                if "already running" not in str(exc):
                    raise
                raise BackendError(_BUSY) from None
            thread_of.append(thread)
            cancelled = False
            while True:
                try:
                    done, _ = h.wait(0.05)
                    if done:
                        break
                    if raised and not cancelled:
                        cancelled = True
                        h.cancelSolve()
                    if give_up_at is not None and time.monotonic() >= give_up_at:
                        break
                except KeyboardInterrupt:
                    interrupted = True
                    h.cancelSolve()
                    if give_up_at is None:
                        give_up_at = time.monotonic() + CTRL_C_GRACE
            if thread.is_alive() and give_up_at is not None:
                # HiGHS is in a phase that does not look at the interrupt (a heuristic sub-MIP):
                # its (daemon) thread finishes in the background, and this call answers now
                # with the best solution HiGHS had reported
                left.append(True)
                BACKGROUND_THREADS.append(thread)
                board = enc.decode(latest[0]) if latest else None
                stats.update(solver_status="interrupted (HiGHS left to finish in the background)")
                st = Status.FEASIBLE if board is not None else Status.UNKNOWN
                return Result(st, board, sp.score(board) if board is not None else None, None, log_path=log_path,
                              stats=stats, interrupted=True)
            thread.join()
        if raised:
            h.clear()
            raise raised[0]

        status = h.getModelStatus()
        info = h.getInfo()
        MS = highspy.HighsModelStatus
        stats.update(nodes=int(info.mip_node_count), solver_status=h.modelStatusToString(status),
                     solver_objective=float(info.objective_function_value), dual_bound=float(info.mip_dual_bound))
        board = None
        if int(info.primal_solution_status) == 2:  # kSolutionStatusFeasible
            board = enc.decode(np.asarray(h.getSolution().col_value))
        if status == MS.kOptimal and board is not None:
            gap = stopped_by_gap(_bound_from(sp, float(info.mip_dual_bound)), sp.score(board), stats)
            st = Status.FEASIBLE if gap else Status.OPTIMAL
        elif status == MS.kInfeasible:
            st = Status.INFEASIBLE
        elif board is not None:
            st = Status.FEASIBLE
        else:
            st = Status.UNKNOWN
        if status in (MS.kInterrupt, MS.kHighsInterrupt, MS.kTimeLimit):
            interrupted = True  # Ctrl-C or the time limit (as Result.interrupted defines it)
        if st is Status.OPTIMAL:
            bound = sp.score(board)
        elif st is Status.INFEASIBLE:
            bound = None
        else:
            bound = _bound_from(sp, float(info.mip_dual_bound))
            if bound is not None and board is not None and bound < sp.score(board):
                bound = sp.score(board)  # rounding of a bound that already closed the gap
        h.clear()
        return Result(st, board if st.has_board else None, sp.score(board) if st.has_board else None, bound,
                      log_path=log_path, stats=stats, interrupted=interrupted)


# ------------------------------------------------------------------------------ CBC
def _cbc_candidates() -> list[str]:
    """CBC binaries: PuLP's bundled one(s) first, then one on the PATH (no import needed)."""
    out = []
    spec = importlib.util.find_spec("pulp")
    if spec is not None and spec.origin:
        root = Path(spec.origin).parent / "solverdir" / "cbc"
        if root.is_dir():
            out += [str(p) for p in sorted(root.rglob("cbc*")) if p.is_file() and p.suffix in ("", ".exe")]
    which = shutil.which("cbc")
    if which:
        out.append(which)
    return out


@lru_cache(maxsize=1)
def cbc_path() -> str | None:
    """The CBC binary emc runs: the one PuLP picks for this platform, else ``cbc`` on the PATH."""
    if importlib.util.find_spec("pulp") is not None:
        try:
            from pulp.apis.coin_api import pulp_cbc_path

            if os.path.isfile(pulp_cbc_path):
                if not os.access(pulp_cbc_path, os.X_OK):
                    return None
                return os.path.normpath(pulp_cbc_path)
        except Exception:  # pragma: no cover - a PuLP without the bundled binary
            pass
    return shutil.which("cbc")


def read_cbc_solution(path: Path) -> tuple[str, dict[str, float]]:
    """The status line and the ``{column name: value}`` of a CBC solution file."""
    values: dict[str, float] = {}
    with open(path) as f:
        head = f.readline().strip()
        for line in f:
            tok = line.split()
            if tok and tok[0] == "**":  # CBC flags values that break a bound or a row
                tok = tok[1:]
            if len(tok) >= 3:
                try:
                    values[tok[1]] = float(tok[2])
                except ValueError:
                    continue
    return head, values


def parse_cbc_log(text: str) -> dict[str, Any]:
    """Result line, objective, lower bound and node count from CBC's final summary."""
    out: dict[str, Any] = {}
    m = re.search(r"^Result - (.*)$", text, re.M)
    if m:
        out["result"] = m.group(1).strip()
    for key, pat in (("objective", r"^Objective value:\s+(\S+)"), ("lower_bound", r"^Lower bound:\s+(\S+)"),
                     ("nodes", r"^Enumerated nodes:\s+(\d+)")):
        m = re.search(pat, text, re.M)
        v = None if m is None else _number(m.group(1))
        if v is not None:
            out[key] = int(v) if key == "nodes" else v
    return out


def _check_cbc_params(exe: str, params: dict[str, Any]) -> None:
    """Refuse CBC settings it does not know or values it will not take, by asking CBC itself
    (it only prints a complaint and carries on)."""
    args = [exe]
    for key, value in params.items():
        args += [f"-{key}", str(value)]
    try:
        out = subprocess.run(args + ["-quit"], capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise BackendError(f"could not run CBC to check its params: {exc}") from exc
    for line in out.splitlines():
        m = re.match(r"No match for (\S+)", line)
        if m and f"-{m.group(1)}" in args:
            raise InputError(f"CBC has no setting {m.group(1)!r} (cbc -? lists them)")
        if m:
            raise InputError(f"CBC does not take {m.group(1)!r} where it stands in params (cbc -? lists its settings)")
        if "is illegal for" in line or line.startswith("<Possible options for"):
            raise InputError(f"CBC refuses params: {line.strip('<> ')}")


class CbcBackend(_MilpBackend):
    """COIN-OR CBC, the binary bundled with PuLP (see the module docstring)."""

    name = "cbc"
    priority = {"feasibility": 50, "optimisation": 40, "region optimisation": 40, "heuristic": 20}
    description = "COIN-OR CBC (PuLP's bundled binary), paper or compact MILP model"

    @classmethod
    def available(cls) -> bool:
        return importlib.util.find_spec("pulp") is not None and bool(_cbc_candidates())

    @classmethod
    def version(cls) -> str | None:
        path = cbc_path() if cls.available() else None
        if path is None:
            return None
        return _cbc_version(path)

    def check_option_values(self, goal: Goal, options: dict[str, Any]) -> None:
        super().check_option_values(goal, options)
        params = mapping_option(options, "params", "a mapping of CBC settings")
        refuse_own_settings_in_params("cbc", params, _cbc_own_setting)
        if params and self.available():
            _check_cbc_params(cbc_path(), params)

    def _solve(self, sp, formulation, time_limit, threads, seed, log_path, hint, on_improvement, options) -> Result:
        called = time.monotonic()
        enc = _encode(sp, options, self.name)
        trivial = _trivial(sp)
        if trivial is not None:
            return trivial
        exe = cbc_path()
        if exe is None:
            raise BackendError("the CBC binary cannot be run (PuLP's bundled cbc is missing or not executable)")
        stats: dict[str, Any] = {"variant": enc.variant, **enc.sizes()}
        with tempfile.TemporaryDirectory(prefix="emc-cbc-") as tmp:
            mps, sol = Path(tmp) / "model.mps", Path(tmp) / "model.sol"
            enc.write(mps, "mps")
            if time_limit is not None and time.monotonic() - called >= time_limit:
                # Building the model took the whole limit: CBC would read it for seconds, then
                # run its root phase past the limit until emc ends it, to no purpose.
                stats["stopped"] = "the time limit ran out while building the model (CBC not started)"
                return Result(Status.UNKNOWN, None, None, None, log_path=None, stats=stats, interrupted=True)
            time_limit = limit_left(time_limit, called)
            # CBC's output to a file is block-buffered; line buffering (where coreutils' stdbuf
            # exists) lets the progress follow the log as it is written, and a killed CBC
            # leaves its whole log.
            stdbuf = shutil.which("stdbuf")
            args = ([stdbuf, "-oL"] if stdbuf else []) + [exe, str(mps), "-timeMode", "elapsed"]
            if time_limit is not None:
                args += ["-sec", f"{time_limit:g}"]
            # 100 + n: CBC's repeatable multi-threaded mode; seeds 0 would mean "time of day".
            args += ["-threads", str(100 + threads if threads > 1 else 1)]
            args += ["-randomSeed", str(seed + 1), "-randomCbcSeed", str(seed + 1)]
            args += ["-ratioGap", "0", "-allowableGap", f"{1 - 1e-6}"]
            for key, value in (options.get("params") or {}).items():
                args += [f"-{key}", str(value)]
            if hint is not None:
                start = enc.start_values(hint)
                if start is not None:
                    mst = Path(tmp) / "start.mst"
                    _write_cbc_start(mst, enc.model.col_names, start)
                    args += ["-mips", str(mst)]
            args += ["-solve", "-solution", str(sol)]
            log = log_path or Path(tmp) / "cbc.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            interrupted = False
            follow = _CbcProgress(sp, log, self.progress) if self.progress is not None else None
            with open(log, "w") as out:
                proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        # CBC dies with its parent too (a portfolio member killed after
                                        # the race), its own session keeping Ctrl-C's signal from it
                                        start_new_session=True, preexec_fn=die_with_parent_hook())
                # CBC checks -sec only in branch and bound; in its root phase it runs on. Past the
                # limit emc asks it to stop as Ctrl-C does, and past the grace it ends it.
                started = time.monotonic()
                stop_at = None if time_limit is None else started + time_limit + CBC_STOP_AFTER
                kill_at = None if time_limit is None else started + time_limit + _cbc_grace(time_limit)
                try:
                    while True:
                        try:
                            # Short waits so that an interrupt raised without a real signal
                            # (another thread calling interrupt_main) is seen promptly too.
                            proc.wait(timeout=0.1)
                            break
                        except subprocess.TimeoutExpired:
                            if follow is not None:
                                follow.poll()
                            now = time.monotonic()
                            if stop_at is not None and now >= stop_at and not interrupted:
                                interrupted = True
                                proc.send_signal(signal.SIGINT)
                            elif kill_at is not None and now >= kill_at:
                                proc.kill()
                            continue
                        except KeyboardInterrupt:
                            # First Ctrl-C: ask CBC to stop and write its best solution; if it
                            # is in a phase that ignores that (its root), it is ended after
                            # CTRL_C_GRACE, or at a second Ctrl-C, giving up on the answer.
                            if not interrupted:
                                interrupted = True
                                proc.send_signal(signal.SIGINT)
                                grace = time.monotonic() + CTRL_C_GRACE
                                kill_at = grace if kill_at is None else min(kill_at, grace)
                            else:
                                proc.kill()
                finally:
                    if proc.poll() is None:
                        proc.kill()
                        proc.wait()
                    if follow is not None:
                        follow.close()
            summary = parse_cbc_log(Path(log).read_text(errors="replace"))
            stats.update({k: summary[k] for k in ("result", "nodes", "lower_bound") if k in summary})
            result_text = summary.get("result", "").lower()
            if "ctrl-c" in result_text or "stopped on time" in result_text:
                interrupted = True  # Ctrl-C or CBC's own time limit (-sec)
            if not sol.exists():
                if proc.returncode not in (0, None) and not interrupted:
                    raise BackendError(f"CBC failed (exit status {proc.returncode}); see its log {log}")
                return Result(Status.UNKNOWN, None, None, None, log_path=log_path, stats=stats, interrupted=interrupted)
            head, values = read_cbc_solution(sol)
        stats["solver_status"] = head
        word = head.split()[0] if head else ""
        result_line = summary.get("result", "")
        board = None
        if word not in ("Infeasible", "Integer", "Unbounded") and "no integer solution" not in head:
            board = _checked_board(enc, sp, values)
        if word == "Optimal" and board is not None and \
                not stopped_by_gap(_bound_from(sp, summary.get("lower_bound")), sp.score(board), stats):
            st, bound = Status.OPTIMAL, sp.score(board)
        elif word in ("Infeasible", "Integer") or "infeasible" in result_line.lower():
            st, bound, board = Status.INFEASIBLE, None, None
        else:
            st = Status.FEASIBLE if board is not None else Status.UNKNOWN
            bound = _bound_from(sp, summary.get("lower_bound"))
            if bound is not None and board is not None and bound < sp.score(board):
                bound = sp.score(board)
        if board is not None and on_improvement is not None:
            on_improvement(board, sp.score(board))
        return Result(st, board, sp.score(board) if board is not None else None, bound,
                      log_path=log_path, stats=stats, interrupted=interrupted)


def _checked_board(enc, sp: Subproblem, values: dict[str, float]) -> Board | None:
    """The board of a CBC solution, or ``None`` if it is no integer placement (an LP point)."""
    from ..score import check_subproblem_solution

    xs = {k: v for k, v in values.items() if k.startswith("x_")}
    if any(min(abs(v), abs(v - 1)) > 1e-6 for v in xs.values()):
        return None
    try:
        board = enc.decode(values)
    except Exception:
        return None
    if check_subproblem_solution(sp.with_goal(Goal.OPTIMISATION), board):
        return None
    return board


def _write_cbc_start(path: Path, names: list[str], values: np.ndarray) -> None:
    """A MIP start in the layout of CBC's own solution files (what ``-mips`` reads)."""
    lines = ["Stopped on iterations - objective value 0\n"]
    lines += [f"{i:>7} {n} {float(v):.12g} 0\n" for i, (n, v) in enumerate(zip(names, values.tolist()))]
    path.write_text("".join(lines))


@lru_cache(maxsize=4)
def _cbc_version(path: str) -> str | None:
    try:
        out = subprocess.run([path, "-quit"], capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"Version:\s*(\S+)", out)
    return m.group(1) if m else None


__all__ = ["CbcBackend", "HighsBackend", "cbc_path", "parse_cbc_log", "read_cbc_solution"]
