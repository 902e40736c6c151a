"""The interface every solver backend implements, and the result it returns.

A backend solves a :class:`~emc.model.Subproblem` through one of the formulations it
supports. :meth:`Backend.solve` wraps the backend's own :meth:`Backend._solve`: it checks
that the software is installed and that the goal is supported, times the call, and checks
every returned board independently (:func:`emc.score.check_subproblem_solution`) so that a
backend bug can never produce a wrong claimed score.
"""

from __future__ import annotations

import abc
import contextlib
import enum
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping

from ..errors import EmcError, InputError, SolverUnavailableError, UnknownNameError
from ..runtime import c_stdout_to_stderr, held_interrupts, time_limit_seconds
from ..io import is_special
from ..model import MAX_SEED, Board, Goal, Subproblem, require_subproblem



#: The largest count limit a backend is given (2^63 - 1: the searches count in 64 bits);
#: a larger one means no limit.
MAX_COUNT_LIMIT = 2**63 - 1


def member_seed(seed: int, i: int) -> int:
    """The seed of the ``i``-th member of a team run with ``seed`` (portfolio members, SAT
    solver teams): ``seed + i``, wrapped to stay a 32-bit seed."""
    return (seed + i) % (MAX_SEED + 1)


def _whole(value: Any, what: str, low: int | None) -> int:
    """``value`` as a whole number of at least ``low`` (InputError otherwise: a string, 2.5, ...)."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or (low is not None and value < low):
        raise InputError(f"{what} is a whole number" + (f" of at least {low}" if low is not None else "")
                         + f", not {value!r}")
    return int(value)


def check_options(backend: str, given: dict[str, Any], allowed) -> None:
    """Reject backend options the backend does not know, naming the ones a user can give
    (:data:`API_ONLY` options are accepted but not offered: the command line refuses them)."""
    unknown = sorted(set(given) - set(allowed))
    for key, what in (("variant", "formulation variants (--variant)"), ("solver", "sub-solvers to choose (--solver)")):
        if key in unknown:  # given with its own flag, which the backend does not take
            raise InputError(f"backend {backend!r} has no {what}")
    if unknown:
        flags = [f"{k} is set with {OWN_SETTINGS[k]}" for k in unknown if k in OWN_SETTINGS]
        offered = sorted(set(allowed) - API_ONLY)
        raise InputError(f"unknown option(s) for backend {backend!r}: {', '.join(unknown)} "
                         f"(choose from: {', '.join(offered)})" + (f"; {', '.join(flags)}" if flags else ""))


def stopped_by_gap(bound: int | None, score: int, stats: dict) -> bool:
    """Whether a search its solver calls optimal was ended by a gap limit given in params
    (CP-SAT's relative_gap_limit, HiGHS's mip_rel_gap, CBC's allowableGap, ...) rather than
    proven: the solver's own bound on matched edges is above the board's score. Says so in
    ``stats["stopped"]``; such an answer is FEASIBLE with that bound."""
    if bound is None or bound <= score:
        return False
    stats["stopped"] = f"the solver's gap limit (params): its bound {bound} is above the board's {score}"
    return True


def refuse_own_settings_in_params(backend: str, params: Any, owner: Callable[[str], str | None],
                                  counting: bool = False) -> None:
    """InputError for a solver setting in ``params`` that emc sets itself: ``owner(key)`` names
    the option that does (``"time"``, ``"threads"``, ``"seed"``, or another reason), or None.
    Such a setting would quietly override the run's own (and what its result records): the
    time limit (in the heuristics, each call's own limit), the threads, the seed, the counting
    mode (``counting``: the call is a count, which has no threads or seed to give)."""
    if not isinstance(params, dict):
        return  # the backend's own check says what params must be
    for key in params:
        what = owner(key) if isinstance(key, str) else None
        if what is None:
            continue
        flag = {"time": "the time limit is set with --time-limit (in the heuristics, by each backend call's limit)",
                "threads": "the threads are set with --threads", "seed": "the seed is set with --seed"}.get(what, what)
        if counting and what in ("threads", "seed"):  # emc count has neither option
            flag = "a count enumerates with one worker and the solver's default seed"
        raise InputError(f"{backend} params {key}: {flag}; a solver setting would override it")


#: Settings every backend call takes from the command line, not from backend options.
OWN_SETTINGS = {"threads": "--threads", "time_limit": "--time-limit", "seed": "--seed"}
#: Backend options only the Python API passes (no-good cuts are boards).
API_ONLY = frozenset({"cuts"})


def mapping_option(options: dict[str, Any], key: str, what: str) -> dict[str, Any]:
    """Backend option ``key``, a mapping (``{}`` when not given). Anything else is refused,
    an empty list or string too (``-O params=[]`` used to pass as "nothing given")."""
    value = options.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"option {key!r} must be {what}, not {value!r}")
    return value


def option_bool(backend: str, options: dict[str, Any], key: str, default: bool) -> bool:
    """Backend option ``key``, which must be true or false (``-O key=yes/no/on/off/true/false``)."""
    v = options.get(key, default)
    if not isinstance(v, bool):
        raise InputError(f"option {key} of backend {backend!r} is true or false, not {v!r}")
    return v


def refuse_feasibility_only(backend: str, goal: Goal, options: dict[str, Any], keys: tuple[str, ...]) -> None:
    """Refuse redundant parts of a feasibility model (``keys``, booleans) asked for on an
    optimisation model, which has no use for them (`emc export` refuses them likewise)."""
    if goal is Goal.OPTIMISATION:
        for key in keys:
            if options.get(key) is True:
                raise InputError(f"option {key} of backend {backend!r}: no effect on an optimisation model "
                                 "(feasibility models only)")


def option_int(backend: str, options: dict[str, Any], key: str, default: int | None, low: int = 0) -> int | None:
    """Backend option ``key``, a whole number of at least ``low`` (``default`` when not given)."""
    v = options.get(key, default)
    if v is None and key not in options:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError(f"option {key} of backend {backend!r} is a whole number, not {v!r}")
    if v < low:
        raise InputError(f"option {key} of backend {backend!r} must be at least {low}, not {v}")
    return v


class Status(enum.Enum):
    """How a solve ended (as in minizinc-python and python-mip)."""

    OPTIMAL = "optimal"  #: best possible answer, proven (for feasibility: a solution)
    FEASIBLE = "feasible"  #: an answer, not proven best
    INFEASIBLE = "infeasible"  #: proven: no answer exists
    UNKNOWN = "unknown"  #: nothing proven, no answer (time limit, interrupt)

    @property
    def has_board(self) -> bool:
        return self in (Status.OPTIMAL, Status.FEASIBLE)


class Capability(enum.Enum):
    FEASIBILITY = "feasibility"
    OPTIMISATION = "optimisation"
    ENUMERATION = "enumeration"


@dataclass
class Result:
    """What a backend returns.

    Attributes:
        status: :class:`Status`.
        board: the full board (fixed cells + solved free cells), or ``None``.
        objective: matched counted edges of ``board`` in the sub-problem (recomputed by emc).
        bound: upper bound on the matched counted edges the solver proved, if any.
        max_score: number of counted edges of the sub-problem.
        wall_time: seconds, as measured by emc around the call.
        backend, formulation: what solved it.
        log_path: the solver's log file, if one was written.
        stats: solver-specific numbers (nodes, conflicts, ...).
        interrupted: the run was stopped by Ctrl-C or the time limit before finishing.
        partial: when a search for a perfect board ends without an answer, the deepest partial
            fill it reached (free cells past it empty; every edge between its pieces matched),
            from backends that keep one (``backtrack``). Never a solution: it is there to
            look at and to save, and nothing else reads it.
    """

    status: Status
    board: Board | None = None
    objective: int | None = None
    bound: int | None = None
    max_score: int = 0
    wall_time: float = 0.0
    backend: str = ""
    formulation: str = ""
    log_path: Path | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    interrupted: bool = False
    partial: Board | None = None


@dataclass
class CountResult:
    """Outcome of enumerating solutions (:meth:`Backend.count`).

    ``complete`` is true when the enumeration finished (the count is exact); otherwise it
    stopped at ``limit``, the time limit or an interrupt, and ``count`` is a lower bound.
    """

    count: int
    complete: bool
    wall_time: float = 0.0
    backend: str = ""
    symmetry: str = ""
    boards: list[Board] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)


class BackendError(EmcError):
    """A backend returned something wrong (a bug in emc or in the solver), or failed."""


MAX_KEPT_CELLS = 20_000_000
"""How many cells the boards a count keeps may hold in all (``keep`` x free cells): the
backtracking and clique searches set aside room for every board before they start."""


def count_text(n: int) -> str:
    """A count (of search nodes) in a few characters: 812, 45.3 thousand, 12.4 million, 3.21 billion."""
    for scale, word in ((1e9, "billion"), (1e6, "million"), (1e3, "thousand")):
        if n >= scale:
            return f"{n / scale:.3g} {word}"
    return str(n)


def solutions_text(n: int) -> str:
    return f"{n} solution" + ("" if n == 1 else "s")


class DeeperFills:
    """Passes on to ``emit`` (:attr:`Backend.partial_sink`; None: nothing) each partial fill of
    ``sp`` with more free cells filled than any passed on before: the searches' and the
    portfolio's ``on_partial``."""

    def __init__(self, emit: Callable[[Board], None] | None, sp: Subproblem | None):
        self.emit, self.sp, self.sent = emit, sp, 0

    def cells(self, piece) -> int:
        """Free cells that ``piece`` (a piece number per cell, -1 empty) fills."""
        return int((piece[self.sp.free] >= 0).sum())

    def wants(self, cells: int) -> bool:
        return self.emit is not None and cells > self.sent

    def offer(self, board: Board) -> None:
        cells = self.cells(board.piece)
        if self.wants(cells):
            self.sent = cells
            self.emit(board)


class _LogLines:
    """Progress lines kept for a log, with the seconds since ``t0``: at most one every
    ``every`` seconds (a week-long search stays a readable file), and always the last one."""

    def __init__(self, t0: float, every: float = 5.0, sink: Path | None = None):
        self.t0, self.every = t0, every
        self.kept: list[str] = []
        self.last_kept = -float("inf")
        self.pending: str | None = None
        self.sink = sink  # a log file that already holds its head: each kept line is added as it comes

    def relay(self, then: Callable[[str], None] | None) -> Callable[[str], None]:
        def progress(line: str) -> None:
            now = time.perf_counter() - self.t0
            stamped = f"[{now:9.1f} s] {line}"
            if now - self.last_kept >= self.every:
                self.kept.append(stamped)
                self.last_kept, self.pending = now, None
                if self.sink is not None:
                    try:
                        with open(self.sink, "a", encoding="utf-8") as f:
                            f.write(stamped + "\n")
                    except OSError:
                        self.sink = None  # the whole log is written again at the end, which says what failed
            else:
                self.pending = stamped
            if then is not None:
                then(line)

        return progress

    def lines(self) -> list[str]:
        return self.kept + ([self.pending] if self.pending else [])


class Backend(abc.ABC):
    """A solver family (CP-SAT, MILP via CBC/HiGHS, SAT, MaxSAT, clique, MiniZinc).

    Subclasses set the class attributes and implement :meth:`_solve` (and :meth:`_count`
    when they can enumerate).

    Attributes:
        name: registry name (``emc solve --backend NAME``).
        formulations: formulations it can use; the first is the default.
        capabilities: :class:`Capability` values.
        install_hint: the command that installs what it needs.
        description: one line for ``emc backends``.
        exact_optimisation: optimisation answers are proven optimal when the status says
            OPTIMAL, and the search can prove it; ``False`` for heuristic backends (their
            OPTIMAL only ever means every counted edge is matched).
    """

    name: str = ""
    formulations: tuple[str, ...] = ()
    capabilities: frozenset[Capability] = frozenset()
    install_hint: str = ""
    description: str = ""
    exact_optimisation: bool = True
    #: The tasks this backend is a default for, each with its rank (lower is tried first; see
    #: :data:`emc.backends.TASKS`). The registry picks defaults from these, so a new backend
    #: declares here where it should be used without an edit anywhere else.
    priority: Mapping[str, int] = MappingProxyType({})
    #: The option names :meth:`solve` takes (``None``: not declared; the backend checks them itself).
    options: frozenset[str] | None = None
    #: During :meth:`solve` and :meth:`count`, the caller's ``on_progress`` (or None); backends
    #: that can tell how their search is going call it with one line now and then, usually
    #: through :class:`Throttled`.
    progress: Callable[[str], None] | None = None
    #: During :meth:`solve`, the caller's ``on_partial`` (or None): a search that has no board
    #: until it solves (``backtrack``) calls it with each deeper partial fill.
    partial_sink: Callable[[Board], None] | None = None
    log_lines: "_LogLines | None" = None
    #: Its solver writes no log of its own: with a log path, emc writes one (the settings, the
    #: progress lines as they come, the answer).
    summary_log: bool = False
    #: It runs compiled (numba) kernels, which ``emc warmup`` compiles ahead of the first run.
    compiled: bool = False
    #: Modules :meth:`solve` imports when it runs (see :meth:`before_fork`).
    solver_modules: tuple[str, ...] = ()

    def before_fork(self, sp: "Subproblem") -> None:
        """Load in this process what :meth:`solve` on ``sp`` needs (the solver's modules,
        compiled kernels) before a process is forked to run it. A child forked while another
        thread of this process was importing a module, or loading a compiled kernel, inherits
        that thread's locks held and waits on them forever (a portfolio started beside a
        search in another thread never answered); loading here first waits for that thread
        instead."""
        import importlib

        for name in self.solver_modules:
            try:
                importlib.import_module(name)
            except ImportError:  # the child says what is missing when it runs
                pass

    # ---------------------------------------------------------------- to implement
    @classmethod
    @abc.abstractmethod
    def available(cls) -> bool:
        """True when the solver software can be used (checked without importing it if possible)."""

    @classmethod
    def version(cls) -> str | None:
        """Version of the underlying solver, or ``None`` if unavailable."""
        return None

    @abc.abstractmethod
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
        """Solve ``sp``. Must honour the time limit and return the best board found when
        stopped (time limit or KeyboardInterrupt) with status FEASIBLE (or UNKNOWN if none).
        Call ``on_improvement(board, objective)`` for each better board when given."""

    def _count(self, sp: Subproblem, formulation: str, limit: int | None, time_limit: float | None,
               keep: int, options: dict[str, Any]) -> CountResult:
        raise InputError(f"backend {self.name!r} cannot enumerate solutions")

    # ---------------------------------------------------------------- public API
    def require(self) -> None:
        if not self.available():
            raise SolverUnavailableError(f"backend {self.name!r} is not available: install it with `{self.install_hint}`")

    def check_goal(self, goal: Goal) -> None:
        """Raise InputError unless this backend can take ``goal`` (feasibility or optimisation)."""
        need = Capability.FEASIBILITY if goal is Goal.FEASIBILITY else Capability.OPTIMISATION
        if need not in self.capabilities:
            other = "feasibility" if goal is Goal.OPTIMISATION else "optimisation"
            raise InputError(f"backend {self.name!r} does not support {goal.value} problems "
                             f"(--goal {other}, or another backend: emc backends)")

    def check_request(self, goal: Goal, options: dict[str, Any]) -> None:
        """Raise InputError for a request this backend will refuse, before any work starts:
        the goal and the option names here; backends with options that name other things
        (the portfolio's members) check those too."""
        self.check_goal(goal)
        if self.options is not None:
            check_options(self.name, options, self.options)
        self.check_option_values(goal, options)

    def check_option_values(self, goal: Goal, options: dict[str, Any]) -> None:
        """Raise InputError for an option value this backend will refuse (a solver name it does
        not have, a word where a number goes, ...), without doing any work; backends with options
        override this."""

    def check_size(self, sp: Subproblem) -> None:
        """Raise InputError for a sub-problem too large for this backend, before any work;
        backends with a size limit override this."""

    def pick_formulation(self, formulation: str | None) -> str:
        f = formulation or self.formulations[0]
        if f not in self.formulations:
            raise UnknownNameError(f"{self.name} formulation", f, self.formulations)
        return f

    def solve(
        self,
        sp: Subproblem,
        time_limit: float | None = None,
        threads: int = 1,
        seed: int = 0,
        formulation: str | None = None,
        log_path: str | Path | None = None,
        hint: Board | None = None,
        on_improvement: Callable[[Board, int], None] | None = None,
        on_progress: Callable[[str], None] | None = None,
        on_partial: Callable[[Board], None] | None = None,
        **options: Any,
    ) -> Result:
        """Solve a sub-problem; the returned board (if any) has been checked by emc.

        Args:
            sp: what to solve.
            time_limit: seconds (``None``: no limit).
            threads: solver threads.
            seed: solver random seed (same seed + deterministic settings = same run).
            formulation: one of :attr:`formulations` (default: the first).
            log_path: write the solver's log here.
            hint: a board to start from (used by solvers that take hints).
            on_improvement: called with each improving board and its objective.
            on_progress: called now and then with one line on how the search is going, by
                the backends that can tell (``backtrack``: nodes searched and their rate;
                ``cpsat``: building its model, then presolving and searching, and optimising,
                its bound as it drops; ``maxsat``: its bound and best board; ``highs`` and
                ``cbc``: their branch-and-bound nodes, bound and best board;
                ``clique``: nodes or moves and the largest clique; ``portfolio``: its members'
                lines, each after the member's name); never called by the others.
            on_partial: called with each deeper partial fill (more cells filled at once,
                every edge between them matched) by a search that has no board until it
                solves (``backtrack``), so that a caller can keep it while the run goes on;
                never called by the others.
            options: backend-specific options; unknown ones raise InputError.

        Raises:
            SolverUnavailableError: the solver is not installed.
            BackendError: the solver returned a wrong board or a wrong status.
        """
        require_subproblem(sp, "solve")
        self.check_size(sp)
        self.require()
        f = self.pick_formulation(formulation)
        if log_path is not None:  # refused now, not after a whole time limit of search
            lp = Path(log_path)
            if lp.is_dir() or not lp.absolute().parent.is_dir() or not os.access(lp.absolute().parent, os.W_OK):
                raise InputError("log path is a folder, or its folder is missing or cannot be written to", log_path)
        if options.get("cuts") is not None:  # one cut board, or any iterable of them: a list
            from ..encoders.base import as_boards

            options["cuts"] = as_boards(options["cuts"])
        self.check_request(sp.goal, options)
        time_limit = time_limit_seconds(time_limit)
        threads, seed = _whole(threads, "threads", 1), _whole(seed, "seed", 0)
        if seed > MAX_SEED:  # CP-SAT, HiGHS and MiniZinc take 32-bit seeds
            raise InputError(f"the seed is at most {MAX_SEED:,} (solvers take 32-bit seeds), not {seed:,}")
        P = sp.puzzle
        if hint is not None and (not isinstance(hint, Board) or (hint.width, hint.height) != (P.width, P.height)):
            raise InputError(f"the hint must be a board of the puzzle's size, {P.size}")
        if hint is not None:  # refused as the fixed board of a sub-problem is, not used as it is
            from ..model import check_board_pieces

            check_board_pieces(P, hint, "the hint")
        log = Path(log_path) if log_path else None
        t0 = time.perf_counter()
        # With a log, the progress lines also go into it (backends whose solver writes no log
        # of its own get one from emc: see _write_summary_log; it grows as the run goes, like a
        # solver's own log, and is written whole at the end).
        sink = None
        if log is not None and self.summary_log and not is_special(log):  # a stream gets the whole log once, at the end
            from ..io import write_text

            write_text(log, "\n".join(self._summary_head(sp, f, time_limit, threads, seed, options)) + "\n")
            sink = log
        self.log_lines = _LogLines(t0, sink=sink) if log is not None else None
        self.progress = on_progress if log is None else self.log_lines.relay(on_progress)
        self.partial_sink = on_partial
        try:
            with c_stdout_to_stderr():  # a solver's own log (asked for in params) is not a result
                res = self._solve(sp, f, time_limit, threads, seed, log, hint, on_improvement, dict(options))
        finally:
            self.progress = self.partial_sink = None
        res.wall_time = time.perf_counter() - t0
        res.backend, res.formulation, res.max_score = self.name, f, sp.max_score
        if res.status is Status.INFEASIBLE:
            # no board at all: a solver's objective bound (CP-SAT and MiniZinc gave the largest
            # score below the maximum) would read as a proven optimum that is not there
            res.bound = None
        # Stopped by Ctrl-C: a second one must not lose the answer while it is checked and logged.
        with held_interrupts() if res.interrupted else contextlib.nullcontext():
            try:
                return self._checked(sp, res)
            finally:
                if log is not None and res.log_path is None:
                    self._write_summary_log(log, sp, res, time_limit, threads, seed, options)
                    res.log_path = log
                self.log_lines = None

    def _summary_head(self, sp: Subproblem, formulation: str, time_limit: float | None, threads: int, seed: int,
                      options: dict[str, Any]) -> list[str]:
        P = sp.puzzle
        return [f"emc {self.name} log: {P.name} {P.size}, {'whole puzzle' if sp.is_whole else 'sub-problem'}, "
                f"{sp.goal.value}, {sp.n_free} free cells, {sp.max_score} counted edges",
                f"settings: time limit {time_limit if time_limit is not None else 'none'}, threads {threads}, "
                f"seed {seed}, formulation {formulation}"
                + "".join(f", {k}={v}" for k, v in sorted(options.items()))]

    def _write_summary_log(self, log: Path, sp: Subproblem, res: "Result", time_limit: float | None, threads: int,
                           seed: int, options: dict[str, Any]) -> None:
        """The log of a backend whose solver writes none: the run's settings, its progress
        lines with the seconds they came at, and the answer."""
        from ..io import write_text

        head = self._summary_head(sp, res.formulation, time_limit, threads, seed, options)
        tail = [f"status {res.status.value}, objective {'-' if res.objective is None else res.objective}, "
                f"bound {'-' if res.bound is None else res.bound}, "
                f"{res.wall_time:.3f} s{', interrupted' if res.interrupted else ''}"]
        tail += [f"{k}: {v}" for k, v in res.stats.items()]
        lines = self.log_lines.lines() if self.log_lines is not None else []
        write_text(log, "\n".join(head + lines + tail) + "\n")

    def count(self, sp: Subproblem, limit: int | None = None, time_limit: float | None = None,
              formulation: str | None = None, keep: int = 0, on_progress: Callable[[str], None] | None = None,
              **options: Any) -> CountResult:
        """Count (and keep up to ``keep`` of) the solutions of a feasibility sub-problem.

        Every kept board is checked by emc. ``on_progress`` as for :meth:`solve`: ``backtrack``,
        ``sat``, ``cpsat``, ``clique`` and ``minizinc`` report the solutions counted so far.
        """
        require_subproblem(sp, "count")
        self.check_size(sp)
        self.require()
        if Capability.ENUMERATION not in self.capabilities:
            raise InputError(f"backend {self.name!r} cannot enumerate solutions")
        time_limit = time_limit_seconds(time_limit)
        if limit is not None:
            limit = _whole(limit, "limit", 1)  # a count stopped after 0 solutions says nothing
            if limit > MAX_COUNT_LIMIT:
                # No search counts that far (centuries at a billion solutions a second), and the
                # compiled searches take the limit as a 64-bit integer (numba refused 10^20 with a
                # traceback): a limit past it is no limit.
                limit = None
        keep = _whole(keep, "keep", 0)
        if limit is not None:
            keep = min(keep, limit)  # no more boards than solutions counted
        cells = max(sp.n_free, 1)
        if keep * cells > MAX_KEPT_CELLS:
            raise InputError(f"keep {keep:,}: that many boards of {sp.n_free} free cells would not fit in memory; keep "
                             f"at most {MAX_KEPT_CELLS // cells:,} (a count alone needs none)")
        f = self.pick_formulation(formulation)
        sp = sp.with_goal(Goal.FEASIBILITY)
        t0 = time.perf_counter()
        self.progress = on_progress
        try:
            with c_stdout_to_stderr():
                res = self._count(sp, f, limit, time_limit, keep, dict(options))
        finally:
            self.progress = None
        res.wall_time = time.perf_counter() - t0
        res.backend = self.name
        res.symmetry = sp.symmetry_text()  # one statement, whichever backend counted
        from ..score import check_subproblem_solution

        for b in res.boards:
            probs = check_subproblem_solution(sp, b)
            if probs:
                raise BackendError(f"backend {self.name!r} enumerated a wrong solution: {probs[0]}")
        return res

    def _checked(self, sp: Subproblem, res: Result) -> Result:
        from ..score import check_subproblem_solution

        if res.status.has_board:
            if res.board is None:
                raise BackendError(f"backend {self.name!r} reported {res.status.value} without a board")
            problems = check_subproblem_solution(sp, res.board)
            if problems:
                raise BackendError(f"backend {self.name!r} returned an invalid board: {problems[0]}")
            true_obj = sp.score(res.board)
            if res.objective is not None and res.objective != true_obj:
                raise BackendError(
                    f"backend {self.name!r} claimed {res.objective} matched edges, the board has {true_obj}")
            res.objective = true_obj
            if res.bound is not None and res.bound < true_obj:
                raise BackendError(f"backend {self.name!r} claimed bound {res.bound} below its own answer {true_obj}")
            if sp.goal is Goal.FEASIBILITY and true_obj != sp.max_score:
                raise BackendError(f"backend {self.name!r} returned a non-solution to a feasibility problem")
            if res.status is Status.FEASIBLE and (true_obj == sp.max_score or res.bound == true_obj):
                res.status = Status.OPTIMAL  # a perfect board, or one that meets the backend's own proven bound
            if res.status is Status.OPTIMAL and res.bound is None:
                res.bound = true_obj  # an optimum is its own bound, whichever backend proved it
        elif res.board is not None:
            # A board without a claim (e.g. an infeasible status) is dropped, never reported.
            res.board = None
        if res.partial is not None:
            if res.board is not None or res.status is not Status.UNKNOWN:
                res.partial = None  # only an unanswered search leaves a partial fill to look at
            else:
                problems = check_subproblem_solution(sp, res.partial, allow_empty=True)
                if problems:
                    raise BackendError(f"backend {self.name!r} returned an invalid partial fill: {problems[0]}")
        return res
