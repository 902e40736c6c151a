"""The contract every score-maximising method implements, and the one result they all return.

A *method* turns a puzzle into the best board it can find in a time limit (or an iteration
budget): the region-decomposition matheuristic, the guide-and-observe hyper-heuristic, the
tabu search, the slipping backtracker. Each is a :class:`Method` subclass in its family's
package, registered by one line in :data:`emc.heuristics.METHODS`; the command line
(``emc methods``, ``emc optimise``), the Python entry point :func:`emc.optimise` and the
campaign runner know methods only through this module:

* :class:`Option`: one declared option, its default, where the default comes from, and how
  a value given as text (``-O key=value``) or from Python is checked;
* :class:`Progress`: what a run tells its caller while it goes (a new best board, or how the
  search is doing);
* :class:`Recorder`: the bookkeeping every method shares (best board, trajectory, time to
  best, throttled progress);
* :class:`RunResult`: the finished run, its board verified by :func:`emc.verify`.
"""

from __future__ import annotations

import abc
import json
import math
import numbers
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ... import runtime
from ...errors import InputError, UnknownNameError
from ...formats import RUN_RESULT_FORMAT as RESULT_FORMAT
from ...formats import RUN_RESULT_FORMAT_VERSION as RESULT_VERSION
from ...model import Board, Puzzle, require_puzzle, require_seed


#: How a run can end (:attr:`RunResult.stopped_by`).
STOPS = {
    "solved": "every edge matched",
    "time-limit": "the time limit ran out",
    "iteration-limit": "the iteration (or node) budget ran out",
    "local-optimum": "no neighbourhood improves the board any more",
    "finished": "the method ran its course",
    "interrupt": "Ctrl-C or SIGTERM",
}

_KINDS = ("int", "float", "bool", "str", "choice", "seconds", "mapping")


@dataclass(frozen=True)
class Option:
    """One option of a method.

    Attributes:
        name: the key (``-O name=value``; a keyword of :func:`emc.optimise`).
        default: the value when not given (``None`` where "not given" has a meaning of its
            own, which ``help`` states).
        help: one line: what it does.
        kind: ``int``, ``float``, ``bool``, ``str``, ``choice`` (one of ``choices``),
            ``seconds`` (a positive number of seconds) or ``mapping`` (a dict, ``-O
            'name={"k": 1}'``).
        choices: the allowed values of a ``choice``.
        low, high: bounds of an ``int`` or ``float`` (inclusive).
        none: ``None`` is a valid value (beside the default).
        source: where the default comes from (``"seed 003, Table II"``), empty for emc's own.
    """

    name: str
    default: Any
    help: str
    kind: str = "str"
    choices: tuple = ()
    low: float | None = None
    high: float | None = None
    none: bool = False
    source: str = ""

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"option {self.name}: kind {self.kind!r} is not one of {_KINDS}")

    def check(self, method: str, value: Any) -> Any:
        """``value`` checked and converted (text from the command line read as its kind);
        InputError naming the method, the option and what it takes."""
        what = f"option {self.name} of method {method!r}"
        if value is None:
            if self.none or self.default is None:
                return None
            raise InputError(f"{what} takes {self.takes()}, not None")
        kind = self.kind
        if kind == "bool":
            if isinstance(value, str) and value.strip().lower() in ("true", "yes", "on", "1", "false", "no", "off", "0"):
                return value.strip().lower() in ("true", "yes", "on", "1")
            if not isinstance(value, bool):
                raise InputError(f"{what} is true or false, not {value!r}")
            return value
        if kind == "int":
            if isinstance(value, str):
                try:
                    value = int(value.strip())
                except ValueError:
                    raise InputError(f"{what} is a whole number, not {value!r}") from None
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise InputError(f"{what} is a whole number, not {value!r}")
            value = int(value)
        elif kind in ("float", "seconds"):
            if isinstance(value, str):
                try:
                    value = float(value.strip())
                except ValueError:
                    raise InputError(f"{what} is a number, not {value!r}") from None
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
                raise InputError(f"{what} is a number, not {value!r}")
            value = float(value)
            if kind == "seconds" and (value <= 0 or math.isinf(value)):
                raise InputError(f"{what} is a positive number of seconds, not {value!r}")
        elif kind == "choice":
            if value not in self.choices:
                raise InputError(f"{what} is one of {', '.join(map(str, self.choices))}, not {value!r}")
            return value
        elif kind == "mapping":
            if not isinstance(value, dict):
                raise InputError(f"{what} is a mapping (-O '{self.name}={{\"key\": value}}'), not {value!r}")
            return dict(value)
        elif kind == "str":
            if not isinstance(value, str):
                raise InputError(f"{what} is text, not {value!r}")
            return value
        if self.low is not None and value < self.low:
            raise InputError(f"{what} is at least {self.low:g}, not {value:g}")
        if self.high is not None and value > self.high:
            raise InputError(f"{what} is at most {self.high:g}, not {value:g}")
        return value

    def takes(self) -> str:
        """What the option takes, in a few words (for errors and ``emc methods``)."""
        if self.kind == "choice":
            return " | ".join(map(str, self.choices))
        bounds = ""
        if self.low is not None and self.high is not None:
            bounds = f" {self.low:g}..{self.high:g}"
        elif self.low is not None:
            bounds = f" >= {self.low:g}"
        return {"int": "a whole number", "float": "a number", "bool": "true | false", "str": "text",
                "seconds": "seconds", "mapping": "a mapping"}[self.kind] + bounds


@dataclass
class Progress:
    """One report of a running method to its caller's ``on_progress``.

    An improvement carries the new best ``board`` (a copy the method does not touch again) and
    ``what`` made it; a plain report has ``board`` None and says how the search is doing.

    Attributes:
        time: seconds since the run began.
        phase: what the method is doing, in words (``phase 1: Obj4, ILTA``).
        best: the best score so far (None before the first board).
        current: the score of the board under search, where there is one.
        iterations: moves, iterations or nodes so far (:attr:`Method.unit` says which).
        rate: ``iterations`` per second over the run so far.
        detail: anything else worth one short line.
        board: the new best board, on an improvement.
        what: on an improvement, what made it (a neighbourhood, a low-level heuristic).
    """

    time: float
    phase: str
    best: int | None
    current: int | None = None
    iterations: int | None = None
    rate: float | None = None
    detail: str = ""
    board: Board | None = field(default=None, repr=False)
    what: str = ""

    @property
    def improved(self) -> bool:
        return self.board is not None


@dataclass
class RunResult:
    """A finished run of any method.

    Attributes:
        method: the registry name.
        puzzle: the puzzle.
        board: the best board found, verified (valid, hints honoured unless the method's
            options said to ignore them).
        score: its matched edges.
        time_to_best: seconds from the start until ``board`` was found.
        trajectory: every improvement, ``{"time", "score", "what"}``.
        iterations: moves, iterations or nodes the run made (``unit`` says which; None when
            the method does not count them).
        unit: what ``iterations`` counts.
        options: every option's value in this run (defaults filled in).
        seed: the seed.
        time_limit: the time limit (None: none).
        stopped_by: a key of :data:`STOPS`.
        elapsed: seconds the run took.
        details: what only this method reports (phases, statistics), JSON-ready.
    """

    method: str
    puzzle: Puzzle
    board: Board
    score: int
    time_to_best: float
    trajectory: list[dict]
    iterations: int | None
    unit: str
    options: dict
    seed: int
    time_limit: float | None
    stopped_by: str
    elapsed: float
    details: dict = field(default_factory=dict)

    @property
    def interrupted(self) -> bool:
        return self.stopped_by == "interrupt"

    def document(self) -> dict:
        """The run as JSON-ready data: what ``emc optimise --result`` writes and ``--json``
        prints (the schema is documented with the command)."""
        from ...formats import format_board
        from ...score import verify

        rep = verify(self.puzzle, self.board, check_hints=self.options.get("hints", "honour") != "ignore")
        P = self.puzzle
        return {
            "format": RESULT_FORMAT,
            "version": RESULT_VERSION,
            "method": self.method,
            "puzzle": {"name": P.name, "size": P.size, "sha256": P.sha256, "max_score": P.max_score},
            "seed": self.seed,
            "time_limit": self.time_limit,
            "options": _jsonable(self.options),
            "trajectory": self.trajectory,
            "final": {
                "score": self.score,
                "max_score": P.max_score,
                "time_to_best": round(self.time_to_best, 4),
                "iterations": self.iterations,
                "unit": self.unit,
                "rate": None if not self.iterations or self.elapsed <= 0 else round(self.iterations / self.elapsed, 1),
                "elapsed": round(self.elapsed, 4),
                "stopped_by": self.stopped_by,
                "valid": rep.valid,
                "scores": rep.scores,
            },
            "details": _jsonable(self.details),
            "board": json.loads(format_board(self.board, P)),
        }

    def write(self, path) -> None:
        """Write :meth:`document` atomically as JSON."""
        from ...io import write_text

        write_text(path, json.dumps(self.document(), indent=1) + "\n")


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # a numpy scalar
        return value.item()
    return value


class Recorder:
    """The bookkeeping of a run, shared by every method: the best board and score, the
    trajectory, the time to best, and progress reports to the caller (every improvement at
    once, other reports at most every ``every`` seconds).

    A method calls :meth:`improved` with each better board (the recorder copies it) and
    :meth:`tick` now and then from its main loop; :meth:`due` says, cheaply, whether a tick
    would be passed on, so a compiled loop can return to Python only that often."""

    def __init__(self, puzzle: Puzzle, on_progress: Callable[[Progress], None] | None, every: float = 0.5):
        self.puzzle = puzzle
        self.on_progress = on_progress
        self.every = every
        self.t0 = time.perf_counter()
        self.best: Board | None = None
        self.best_score = -1
        self.time_to_best = 0.0
        self.trajectory: list[dict] = []
        self.phase = "starting"
        self.iterations: int | None = None
        self._last_tick = -math.inf

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def improved(self, board: Board, score: int, what: str, at: float | None = None) -> bool:
        """Offer a board; kept (and reported) when it beats the best so far. ``at``: the
        seconds into the run it was found (default: now)."""
        if score <= self.best_score:
            return False
        t = self.elapsed() if at is None else at
        self.best, self.best_score, self.time_to_best = board.copy(), int(score), t
        self.trajectory.append({"time": round(t, 4), "score": int(score), "what": what})
        if self.on_progress is not None:
            self.on_progress(Progress(t, self.phase, self.best_score, iterations=self.iterations,
                                      rate=self._rate(t), board=self.best.copy(), what=what))
        return True

    def due(self) -> bool:
        return self.on_progress is not None and time.perf_counter() - self.t0 - self._last_tick >= self.every

    def tick(self, phase: str | None = None, current: int | None = None, iterations: int | None = None,
             detail: str = "", force: bool = False, rate: float | None = None) -> None:
        """Note how the search is doing; passed on when :meth:`due` (or ``force``). ``rate``:
        the iterations per second to show (default: over the whole run so far, which counts
        the start and any compiling too)."""
        if phase is not None:
            self.phase = phase
        if iterations is not None:
            self.iterations = int(iterations)
        if self.on_progress is None or not (force or self.due()):
            return
        t = self.elapsed()
        self._last_tick = t
        self.on_progress(Progress(t, self.phase, self.best_score if self.best is not None else None, current,
                                  self.iterations, self._rate(t) if rate is None else rate, detail))

    def _rate(self, t: float) -> float | None:
        return self.iterations / t if self.iterations and t > 0 else None


@dataclass
class Outcome:
    """What :meth:`Method._run` hands back beside the recorder's best board."""

    stopped_by: str
    iterations: int | None = None
    details: dict = field(default_factory=dict)


class Method(abc.ABC):
    """A score-maximising algorithm: subclasses set the class attributes and implement
    :meth:`_run`. :meth:`run` checks the arguments, fills in the options' defaults, guards
    against Ctrl-C, and verifies the board before anything is reported.

    Attributes:
        name: the registry name (``emc optimise --method NAME``).
        summary: one line for ``emc methods``.
        paper: the publication it implements (empty for emc's own).
        options: the declared :class:`Option` values, in the order ``emc methods`` lists them.
        unit: what the run's ``iterations`` count (``iterations``, ``moves``, ``nodes``).
        install_hint: what to install when :meth:`available` says no.
    """

    name: str = ""
    summary: str = ""
    paper: str = ""
    options: tuple[Option, ...] = ()
    unit: str = "iterations"
    install_hint: str = ""
    #: Python packages the method cannot run without (checked by :meth:`available`).
    requires: tuple[str, ...] = ()
    #: Options of a run of a second or less on a small puzzle that compiles every kernel the
    #: method uses (``emc warmup``), or None when it compiles nothing.
    warmup_options: dict | None = None

    @classmethod
    def available(cls) -> bool:
        """Whether everything the method needs (:attr:`requires`) is installed."""
        import importlib.util

        return all(importlib.util.find_spec(m) is not None for m in cls.requires)

    @classmethod
    def option(cls, name: str) -> Option:
        for o in cls.options:
            if o.name == name:
                return o
        raise UnknownNameError(f"option of method {cls.name!r}", name, [o.name for o in cls.options])

    @classmethod
    def resolve(cls, given: dict | None = None) -> dict:
        """Every option's value: ``given`` (names checked, values checked and converted) over
        the defaults. An unknown name fails listing the valid ones."""
        given = dict(given or {})
        known = {o.name for o in cls.options}
        for key in given:
            if key not in known:
                raise UnknownNameError(f"option of method {cls.name!r}", key, sorted(known))
        out = {o.name: o.default for o in cls.options}
        for key, value in given.items():
            out[key] = cls.option(key).check(cls.name, value)
        cls.check_options(out)
        return out

    @classmethod
    def check_options(cls, options: dict) -> None:
        """Refuse combinations of options the method cannot run (InputError), before any work;
        methods with such rules override this."""

    def run(self, puzzle: Puzzle, *, time_limit: float | None = None, seed: int = 0, options: dict | None = None,
            on_progress: Callable[[Progress], None] | None = None, start_board: Board | None = None) -> RunResult:
        """Run the method.

        Args:
            puzzle: the puzzle.
            time_limit: seconds (None: the method's own stopping rule, which its options say).
            seed: seed of everything random in the run.
            options: option values by name (see :attr:`options`; the rest take their defaults).
            on_progress: called with a :class:`Progress` at each improvement and now and then.
            start_board: a complete board to start from, for methods that can.

        Returns:
            :class:`RunResult`. Ctrl-C (or SIGTERM from the command line) ends the run early
            and still returns the best board found (``stopped_by="interrupt"``).
        """
        require_puzzle(puzzle, f"{self.name}.run")
        seed = require_seed(seed, f"{self.name}.run")
        time_limit = runtime.time_limit_seconds(time_limit)
        resolved = self.resolve(options)
        if not self.available():
            from ...errors import SolverUnavailableError

            raise SolverUnavailableError(f"method {self.name!r} is not available: install it with `{self.install_hint}`")
        if start_board is not None:
            self.check_start(puzzle, start_board, resolved)
        rec = Recorder(puzzle, on_progress)
        with runtime.sigint_guard():
            try:
                out = self._run(puzzle, time_limit, seed, resolved, rec, start_board)
            except KeyboardInterrupt:
                if rec.best is None:
                    raise
                out = Outcome("interrupt", rec.iterations)
        if rec.best is None:
            raise RuntimeError(f"method {self.name!r} ended without a board")
        return self._finish(puzzle, rec, out, resolved, seed, time_limit)

    def check_start(self, puzzle: Puzzle, board: Board, options: dict) -> None:
        """InputError unless ``board`` can start this method: by default a complete, valid
        board (hints honoured)."""
        from ...score import verify

        rep = verify(puzzle, board)
        if not rep.valid:
            raise InputError(f"the starting board is not a valid complete board: {rep.problems[0]}")

    def _finish(self, puzzle: Puzzle, rec: Recorder, out: Outcome, options: dict, seed: int,
                time_limit: float | None) -> RunResult:
        from ...score import score, verify

        board = rec.best
        rep = verify(puzzle, board, check_hints=options.get("hints", "honour") != "ignore")
        if not rep.valid:  # a bug in the method: never reported as a result
            raise RuntimeError(f"method {self.name!r} produced an invalid board: {rep.problems[0]}")
        true = score(puzzle, board)
        if true != rec.best_score:
            raise RuntimeError(f"method {self.name!r} claimed {rec.best_score} matched edges, the board has {true}")
        stopped_by = out.stopped_by
        if stopped_by != "interrupt" and true == puzzle.max_score:
            stopped_by = "solved"
        return RunResult(self.name, puzzle, board, true, rec.time_to_best, rec.trajectory,
                         out.iterations if out.iterations is not None else rec.iterations, self.unit, options, seed,
                         time_limit, stopped_by, rec.elapsed(), out.details)

    @abc.abstractmethod
    def _run(self, puzzle: Puzzle, time_limit: float | None, seed: int, options: dict, rec: Recorder,
             start_board: Board | None) -> Outcome:
        """Search; hand every better board to ``rec.improved`` (the first board too) and call
        ``rec.tick`` now and then. Ctrl-C may end it with KeyboardInterrupt at any point once
        a board is recorded."""
