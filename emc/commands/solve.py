"""Exact solving commands: ``emc backends``, ``emc solve``, ``emc count``."""

from __future__ import annotations

import contextlib
import json
import re
import sys
import threading
import time
from pathlib import Path

from ..errors import InputError
from ..runtime import held_interrupts, raised as interrupt_seen, sigint_guard
from ..model import Goal
from .common import (
    BoardSaver,
    add_command,
    board_outputs,
    board_url,
    check_board_letters,
    check_no_symmetry,
    check_output_dir,
    check_outputs,
    check_save_every,
    check_url,
    console,
    err_console,
    freed_hints_note,
    load_puzzle,
    non_negative_int,
    parse_options,
    positive_float,
    positive_int,
    progress_arg,
    puzzle_arg,
    save_every_arg,
    save_seconds,
    seed_arg,
    styled,
    thread_count,
    url_arg,
)
from .compile import GOALS, subproblem_args

def default_backend(task: str = "feasibility") -> str:
    """The best-ranked installed backend for ``task`` (the backends declare their ranks)."""
    from ..backends import default_backend as registry_default

    return registry_default(task)


def register(sub) -> None:
    p = add_command(
        sub, "backends", "list the solver backends and whether they are installed",
        "Show every solver backend: the formulations it uses, what it can do (feasibility,\n"
        "optimisation, enumeration), whether it is installed here, its version, and how to\n"
        "install it when it is missing.",
        """
  emc backends
  emc backends --json
""", cmd_backends)
    p.add_argument("--json", action="store_true", help="print JSON")

    p = add_command(
        sub, "solve", "solve a puzzle or sub-problem exactly with a chosen backend",
        "Solve PUZZLE (or a sub-problem of it) with one backend. Every board a backend returns\n"
        "is checked by emc's own verifier before it is reported. Ctrl-C or the time limit stop\n"
        "the search and still report and save the best board found (backtrack, finding no\n"
        "perfect board, reports and saves the deepest partial fill it reached, marked as such).\n"
        "Default goal: feasibility (a perfect board) for a whole puzzle, optimisation (most\n"
        "matched edges) for a sub-problem given with --free/--fixed.\n"
        "Exit status: 0 answered (a board, a proven optimum or a proof that none exists), 3 no\n"
        "answer within the time limit, 130 after Ctrl-C (143 after SIGTERM), 2 bad input, 1 a\n"
        "backend's board failed verification.",
        """
  emc solve set2-6x6
  emc solve set2-7x7 --backend sat --time-limit 120 -o 7x7.json --render 7x7.png
  emc solve set2-5x5 --backend highs --goal optimisation --threads 2
  emc solve meta-16x16 --fixed board.json --free r1c1-r5c5 --backend cpsat -o better.json
  emc solve set2-4x4 --backend minizinc --show
  emc solve set2-6x6 --backend clique -O method=heuristic
  emc solve set2-6x6 --backend portfolio -O members=cpsat,sat
  emc solve set2-8x8 -t 600 -o 8x8.json --progress-every 30 2>> progress.log
  emc solve eternity2 --fixed best.json --free r1c1-r8c8 -b cpsat -t 3600 -o best.json --save-every 300
""", cmd_solve)
    puzzle_arg(p)
    p.add_argument("--backend", "-b", metavar="NAME", help="solver backend (default: the best-ranked installed for the task: "
                   "feasibility, optimisation of a whole puzzle or of a region; `emc backends` shows the ranking)")
    p.add_argument("--formulation", metavar="F", help="formulation the backend should use (default: its own)")
    p.add_argument("--variant", help="formulation variant, for backends that take one (e.g. paper or compact)")
    p.add_argument("--goal", choices=GOALS + ("optimization",), default=None,
                   help="feasibility or optimisation (default: see above)")
    subproblem_args(p)
    p.add_argument("--time-limit", "-t", type=positive_float, default=None, metavar="S", help="seconds (default: none)")
    p.add_argument("--threads", type=thread_count, default=2, metavar="N",
                   help="solver threads (default 2, for the solver's parallel search; the heuristics default to 1, "
                        "since their runs repeat exactly only on one thread)")
    seed_arg(p, "the solver's seed")
    p.add_argument("--solver", metavar="NAME", help="sub-solver for backends that have several (sat: cadical195, glucose4, ...; minizinc: gecode, ...)")
    option_arg(p)
    p.add_argument("-o", "--output", metavar="BOARD", help="write the board (.json, or .edges/.txt for board_edges)")
    p.set_defaults(in_place="fixed")  # -o may be the --fixed board: improving it in place
    save_every_arg(p, "default 60; CBC gives its board only at the end; backtrack, which has no board until it "
                      "solves, saves its deepest partial fill")
    p.add_argument("--render", metavar="PNG", help="draw the board (.png, .svg, .pdf, or .html for a page)")
    p.add_argument("--show", action="store_true", help="draw the board in the terminal")
    url_arg(p)
    p.add_argument("--log", metavar="PATH", help="write the solver's log here")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    progress_arg(p)

    p = add_command(
        sub, "count", "count (or list) every solution of a puzzle",
        "Enumerate every perfect board of PUZZLE (or of a sub-problem) with a backend that can\n"
        "enumerate, and print how many there are. Symmetry breaking is on by default for a whole\n"
        "puzzle without hints: the first corner piece of the file is fixed on the top-left cell\n"
        "(square boards) or on a top corner (rectangular boards), so boards that are rotations of\n"
        "each other are counted once.",
        """
  emc count set2-4x4 --backend sat
  emc count clue1 --limit 100 --keep 10 --out-dir generated/sols
  emc count clue1 --backend cpsat --limit 100 --time-limit 120
  emc count my3x3.txt --backend sat --no-symmetry --keep 10 --out-dir generated/sols
  emc count set2-5x5 --backend sat --solver glucose4
""", cmd_count)
    puzzle_arg(p)
    p.add_argument("--backend", "-b", metavar="NAME", default=None, help="a backend that can enumerate (default: the best-ranked installed for counting; `emc "
                   "backends` shows the ranking)")
    p.add_argument("--formulation", metavar="F", help="formulation the backend should use")
    p.add_argument("--variant", help="formulation variant, for backends that take one")
    subproblem_args(p)
    p.add_argument("--solver", metavar="NAME", help="sub-solver for backends that have several (sat: cadical195, glucose4, ...; minizinc: gecode, ...)")
    option_arg(p)
    p.add_argument("--limit", type=positive_int, default=None, metavar="N", help="stop after N solutions")
    p.add_argument("--time-limit", "-t", type=positive_float, default=None, metavar="S", help="seconds")
    p.add_argument("--keep", type=non_negative_int, default=0, metavar="N", help="keep the first N boards")
    p.add_argument("--out-dir", metavar="DIR", help="write the kept boards here as JSON (default: print board_edges lines)")
    p.add_argument("--json", action="store_true", help="print JSON")
    progress_arg(p)


def option_arg(parser) -> None:
    parser.add_argument("-O", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="backend-specific option, repeatable (e.g. -O solver=glucose4 with -b sat, -O method=heuristic "
                             "with -b clique; JSON for a mapping: -O 'params={\"linearization_level\": 2}' with -b cpsat)")


def cmd_backends(args) -> int:
    from ..backends import BACKENDS, backend_class

    rows = []
    for name in BACKENDS:
        cls = backend_class(name)
        ok = cls.available()
        rows.append({"name": name, "formulations": list(cls.formulations),
                     "capabilities": sorted(c.value for c in cls.capabilities), "available": ok,
                     "version": (cls.version() if ok else None), "install": cls.install_hint, "description": cls.description,
                     "priority": dict(cls.priority)})
    if args.json:
        console.print_json(json.dumps(rows))
        return 0
    import textwrap

    def _fill(text, width, **kw):  # at spaces only, as emc methods wraps
        return textwrap.fill(text, width, break_on_hyphens=False, **kw)

    from ..backends import TASKS, ranked

    # One block per backend, wrapped to 78 columns as `emc methods` is: a table of six columns
    # needed 160 and hid the description of a backend that is not installed behind its hint.
    width = 78
    console.print("solver backends:")
    for r in rows:  # Text parts: the install hints hold extras in brackets ('emc[sat]'), not markup
        state = (("installed", "green"), f" ({r['version']})" if r["version"] else "") if r["available"] else \
            (("not installed", "red"),)
        console.print(styled((r["name"], "bold"), "  ", *state))
        lines = [] if r["available"] else [f"install: {r['install']}"]
        lines += [r["description"], f"formulations: {', '.join(r['formulations'])}; can do: "
                                    f"{', '.join(r['capabilities'])}"]
        for text in lines:
            console.print(_fill(text, width, initial_indent="    ", subsequent_indent="    "))
    installed = {r["name"] for r in rows if r["available"]}
    console.print("defaults when no backend is named (best first; the first installed is used):")
    for task in TASKS:
        names = [n if n in installed else f"({n})" for n in ranked(task)]
        console.print(_fill(f"{task}: {', '.join(names)}", width, initial_indent="  ",
                                    subsequent_indent="      "))
    console.print("  (a name in brackets is not installed)")
    return 0


def _options(args) -> dict:
    opts = parse_options(getattr(args, "option", []))
    for key in ("variant", "solver"):  # --variant X is -O variant=X; saying both differently is a contradiction
        flag = getattr(args, key, None)
        if flag:
            if key in opts and opts[key] != flag:
                raise InputError(f"--{key} {flag} and -O {key}={opts[key]} disagree: give one")
            opts[key] = flag
    return opts


def _cores_note(threads: int) -> str:
    """A note when more threads are asked for than the machine has cores (backtrack and the
    portfolio then run one process per core)."""
    import os

    cores = os.cpu_count() or 1
    return f" (asked; this machine has {cores} cores)" if threads > cores else ""


def _keep_fixed(sp, res, hint) -> bool:
    """When optimising a sub-problem of a complete --fixed board, the board's own fill of the
    free cells is an answer already: a backend stopped before it found one as good (no board, or
    a worse one) leaves ``res`` with that fill, FEASIBLE (OPTIMAL if it meets the backend's proven
    bound). True when it did."""
    from ..backends import Status
    from ..score import check_subproblem_solution

    if sp.goal is not Goal.OPTIMISATION or hint is None or res.status in (Status.OPTIMAL, Status.INFEASIBLE):
        return False
    if check_subproblem_solution(sp, hint):
        return False  # the hint is not a fill of this sub-problem (freed hints, say)
    own = sp.score(hint)
    if res.objective is not None and res.objective >= own:
        return False
    res.board, res.objective = hint.copy(), own
    res.status = Status.OPTIMAL if res.bound == own else Status.FEASIBLE
    res.partial = None
    return True


def cmd_solve(args) -> int:
    from ..backends import get_backend
    from ..cells import make_subproblem
    from ..formats import format_board, read_board
    from ..score import verify

    check_outputs((args.output, "board"), (args.render, "picture"), (args.log, "log"))
    check_save_every(args)
    puzzle = load_puzzle(args.puzzle)
    check_board_letters(puzzle, args.output)
    check_url(args, puzzle)
    is_sub = bool(args.free or args.fixed)
    goal = ((Goal.FEASIBILITY if args.goal == "feasibility" else Goal.OPTIMISATION) if args.goal
            else (Goal.OPTIMISATION if is_sub else Goal.FEASIBILITY))
    fixed = read_board(args.fixed, puzzle) if args.fixed else None
    sp = make_subproblem(puzzle, args.free, fixed, goal, symmetry_breaking=not args.no_symmetry, fixed_path=args.fixed)
    check_no_symmetry(args, sp)
    task = "region optimisation" if goal is Goal.OPTIMISATION and not sp.is_whole else goal.value
    name = args.backend or default_backend(task)
    backend = get_backend(name)
    backend.require()
    # Wrong requests fail here, before the header is printed.
    backend.pick_formulation(args.formulation)
    options = _options(args)
    backend.check_request(goal, options)
    backend.check_size(sp)
    what = "whole puzzle" if sp.is_whole else f"sub-problem of {sp.n_free} cell{'' if sp.n_free == 1 else 's'}"
    if not args.json:
        console.print(f"{puzzle.name} {puzzle.size}: {what}, {goal.value}, {sp.max_score} counted edges; "
                      f"backend {name}, {args.threads} thread(s){_cores_note(args.threads)}, seed {args.seed}"
                      + (f", time limit {args.time_limit:g} s" if args.time_limit else ""))

    if args.log:  # its folder made as -o's is (check_outputs found it can be)
        Path(args.log).absolute().parent.mkdir(parents=True, exist_ok=True)
    best: dict = {}
    live = _live_status(args, sp.max_score, f"solving with {name}")
    hint = fixed if (fixed is not None and fixed.is_complete) else None
    saver = _solve_saver(args, puzzle, sp, name, hint)

    def on_improvement(board, objective):
        best["board"], best["objective"] = board.copy(), objective
        live.update(objective)
        saver.offer(best["board"])

    def on_partial(board):  # a search with no board yet (backtrack): its deepest partial fill
        best["partial"] = board
        if best.get("board") is None:
            saver.offer(board)

    t0 = time.perf_counter()
    interrupted = False
    res = None
    # Ctrl-C and SIGTERM end the command with status 130 (emc.cli makes it 143 after SIGTERM)
    # whether the backend let the interrupt through or caught it to hand back its best board (the
    # guard notes the signal either way).
    with sigint_guard():
        try:
            with live, saver:
                res = backend.solve(sp, time_limit=args.time_limit, threads=args.threads, seed=args.seed,
                                    formulation=args.formulation, log_path=args.log, hint=hint,
                                    on_improvement=on_improvement, on_progress=live.progress,
                                    on_partial=on_partial, **options)
        except KeyboardInterrupt:
            interrupted = True
            if res is None:  # (a Ctrl-C after the backend answered keeps its answer)
                # The backend let the interrupt through: report what the callbacks saw.
                from ..backends import Result, Status
                from ..score import check_subproblem_solution

                b = best.get("board")
                ok = b is not None and not check_subproblem_solution(sp.with_goal(Goal.OPTIMISATION), b)
                res = Result(Status.FEASIBLE if ok else Status.UNKNOWN, b if ok else None,
                             sp.score(b) if ok else None, None, sp.max_score, time.perf_counter() - t0, name, "",
                             interrupted=True, partial=None if ok else best.get("partial"))
        interrupted = interrupted or interrupt_seen()
    # Stopped by Ctrl-C: the report and the files come whole even if another one follows.
    with held_interrupts() if interrupted else contextlib.nullcontext():
        kept_fixed = _keep_fixed(sp, res, hint)
        board = res.board
        # Hints on cells named in --free were given up on purpose: the board need not keep them.
        freed_hints = sp.hints_not_kept()
        full = (verify(puzzle, board, allow_partial=not sp.is_whole and not board.is_complete, check_hints=not freed_hints)
                if board is not None else None)
        # Without an answer, a search may leave the deepest partial fill it reached: shown and saved
        # as such, never as a solution.
        partial = res.partial if board is None else None
        partial_report = verify(puzzle, partial, allow_partial=True) if partial is not None else None
        partial_cells = int((partial.piece[sp.free] >= 0).sum()) if partial is not None else None
        def solver_note(partial_fill: bool) -> dict:  # what the board files record of the run
            return {"solver": {"backend": res.backend, "status": res.status.value, "seed": args.seed,
                               **({"partial": True} if partial_fill else {}),
                               **({"kept_fixed": True} if kept_fixed else {})}}

        if args.json:
            console.print_json(json.dumps({
                "puzzle": puzzle.name, "goal": goal.value, "backend": res.backend, "formulation": res.formulation, "status": res.status.value,
                "objective": res.objective, "bound": res.bound, "max_score": res.max_score, "wall_time": round(res.wall_time, 3),
                "interrupted": res.interrupted or interrupted,
                # which stop cut the run short, as `emc count --json` says it (null: the backend finished)
                "stopped_by": "interrupt" if interrupted else "time-limit" if res.interrupted else None,
                "board_score": full.scores["score"] if full else None,
                "board_valid": full.valid if full else None,
                "hints_not_kept": freed_hints,  # a fact of the sub-problem, board or none
                "partial_cells": partial_cells, "partial_score": partial_report.scores["score"] if partial_report else None,
                "stats": _plain(res.stats), "kept_fixed": kept_fixed,
                # the board itself, as -o writes it in emc JSON (so a script needs no second file)
                "board": json.loads(format_board(board, puzzle, "json", solver_note(False))) if board is not None else None,
                **({"url": board_url(args, puzzle, board)} if args.url else {})}))
        else:
            bound = "" if res.bound is None else f"  bound {res.bound}"
            obj = "-" if res.objective is None else str(res.objective)
            # A run cut short by Ctrl-C (or SIGTERM) says so; one the backend ended at --time-limit says that
            # instead (--json has one flag, "interrupted", for both).
            cut = "  (interrupted)" if interrupted else "  (time limit reached)" if res.interrupted else ""
            console.print(styled("status ", (res.status.value.upper(), "bold"), f"  matched {obj}/{res.max_score}{bound}  "
                                 f"time {res.wall_time:.2f} s" + cut))
            if res.stats.get("nodes") is not None:
                console.print(_search_line(res.stats))
            if res.stats.get("stopped"):
                console.print(f"stopped: {res.stats['stopped']}")
            if res.stats.get("completed_with") and res.stats.get("clique_size") is not None:
                # the clique backend optimises the clique, not the matched edges: say how the answer was made
                proven = " (a proven maximum)" if res.stats.get("clique_proven_maximum") else ""
                console.print(f"clique search ({res.stats.get('method')}): largest clique {res.stats['clique_size']} of "
                              f"{res.stats.get('target')}{proven}; the other cells filled by {res.stats['completed_with']}, "
                              "so the matched edges are not proven optimal (an optimising backend such as cpsat is)")
            if res.stats.get("members") is not None:  # a portfolio: who gave the answer
                console.print(f"portfolio of {res.stats['members'].replace(',', ', ')}: answered by "
                              f"{res.stats.get('winner') or 'no member'}"
                              + (f"; errors: {res.stats['errors']}" if res.stats.get("errors") else ""))
            if full is not None:
                verdict = "valid" if full.valid else "INVALID: " + "; ".join(full.problems[:3])
                empty = int((board.piece < 0).sum())
                if full.valid and empty:  # a sub-problem without --fixed: the cells outside it stay empty
                    verdict += f" partial board ({empty} empty cell{'s' if empty != 1 else ''} outside the sub-problem)"
                console.print(f"verified independently: {verdict}; board score {full.scores['score']}/{puzzle.max_score}"
                              + (" (solved)" if full.solved else ""))
            if kept_fixed:
                when = " in the time" if res.interrupted or interrupted else ""  # a heuristic may end early on its own
                console.print(f"the backend found no board better than --fixed's own fill ({res.objective}/{res.max_score})"
                              f"{when}: that board is the answer")
            if freed_hints:  # said with or without a board: it is a fact of the sub-problem
                console.print(freed_hints_note(sp, board if full is not None else None))
            if partial_report is not None:
                console.print(f"deepest partial fill: {partial_cells} of {sp.n_free} free cells, every edge between "
                              f"them matched; board score {partial_report.scores['score']}/{puzzle.max_score} "
                              "(not a solution)")
            if res.log_path:
                console.print(f"solver log: {res.log_path}")
        shown = board if board is not None else partial
        what = "" if board is not None else " (the deepest partial fill)"
        if shown is not None:
            # the picture says what the file's "partial": true says
            label = None if board is not None else "deepest partial fill, not a solution"
            board_outputs(args, puzzle, shown, what=what, extra=solver_note(board is None), label=label)
        elif args.output or args.render:
            removed = ""
            if saver.wrote_partial:  # a partial fill saved during the run would contradict the answer
                try:
                    if saver.before is None:
                        Path(args.output).unlink()
                        removed = f" (removed the partial fill saved to {args.output} during the run)"
                    else:  # -o held a file before the run: it gets its bytes back
                        from ..io import atomic_write

                        with atomic_write(args.output, "wb", compress=False) as f:
                            f.write(saver.before)
                        removed = (f" ({args.output} holds again what it held before the run, "
                                   "not the partial fill saved during it)")
                except OSError:
                    pass
            if not args.json:
                console.print("no board to write: the backend found none" + removed)
        if full is not None and not full.valid:  # a backend's bug: never let it pass as an answer
            err_console.print("emc: error: the board the backend returned failed verification (a bug; please report it)")
            return 1
        if interrupted:
            return 130
        return 0 if res.status.value in ("optimal", "feasible", "infeasible") else 3


def _solve_saver(args, puzzle, sp, backend: str, hint) -> BoardSaver:
    """``--save-every`` for ``emc solve``: the boards a backend reports as it improves them (in
    its own threads, for some), each verified before it is written, and, when a complete
    ``--fixed`` board is improved, only those better than its own fill of the free cells (-o may
    be that very file). A search with no board until it solves (backtrack) offers its deepest
    partial fills instead, written as such ("partial": true), never over a board nor with
    --fixed (-o may be that board's file, complete or not); ``saver.wrote_partial`` says the
    file holds one, for the caller to remove if the run ends with nothing to write, and
    ``saver.before`` holds the bytes -o had before the first write (None: no file), for the
    caller to put back instead."""
    from ..formats import write_board
    from ..score import check_subproblem_solution, verify

    whole = sp.with_goal(Goal.OPTIMISATION)  # any fill of the free cells, perfect or not
    floor = sp.score(hint) if hint is not None and not check_subproblem_solution(whole, hint) else -1
    wrote_board = False

    def write(board, elapsed) -> bool:
        nonlocal wrote_board
        partial = bool((board.piece[sp.free] < 0).any())
        if partial:
            if wrote_board or getattr(args, "fixed", None) or not verify(puzzle, board, allow_partial=True).valid:
                return False  # never over a board (with --fixed, -o may be that board's file)
        # Against the sub-problem's own goal: a feasibility run keeps perfect boards only.
        elif check_subproblem_solution(sp, board) or sp.score(board) <= floor:
            return False  # a backend's bug, which the final report will show; or no better than the file's board
        if saver.before is _UNREAD:  # -o's bytes before the run's first write, for the caller to put back
            try:
                saver.before = Path(args.output).read_bytes() if Path(args.output).is_file() else None
            except OSError:
                saver.before = None
        write_board(board, puzzle, args.output,
                    extra={"solver": {"backend": backend, "status": "unknown" if partial else "feasible",
                                      **({"partial": True} if partial else {}), "seed": args.seed,
                                      "saved_during_run": True, "elapsed": round(elapsed, 3)}})
        wrote_board = wrote_board or not partial
        saver.wrote_partial = partial
        return True

    saver = BoardSaver(save_seconds(args), write)
    saver.wrote_partial = False  # what -o holds now is a partial fill saved during the run
    saver.before = _UNREAD  # what -o held before the run's first write (None: no file)
    return saver


_UNREAD = object()


def _search_line(stats: dict) -> str:
    """One line on a node-counting search: nodes, speed, restart runs, what answered."""
    from ..backends.base import count_text

    n = int(stats["nodes"])
    line = f"search: {count_text(n)} node" + ("" if n == 1 else "s")
    rate = stats.get("nodes_per_second")
    if rate:
        line += f", {rate / 1e6:.1f} M nodes/s" if rate >= 1e5 else f", {count_text(int(rate))} nodes/s"
    if stats.get("runs"):
        line += f", {stats['runs']} restart runs"
    if stats.get("decided_by"):
        line += f"; answered by {stats['decided_by']}"
    elif stats.get("deepest") and stats.get("free_cells"):
        line += f"; deepest {stats['deepest']} of {stats['free_cells']} cells filled at once"
    return line


def _plain(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        out[k] = v if isinstance(v, (int, float, str, bool)) or v is None else str(v)
    return out


class _live_status:
    """A one-line live status on the terminal (best so far, the backend's progress line,
    elapsed). When stderr is not a terminal, the same text as plain lines on stderr at most
    every ``--progress-every`` seconds (none with 0 or ``--json``). Backends that report no
    progress of their own (SAT solvers, MiniZinc, CP-SAT on feasibility) still get a line
    saying the run goes on, from a clock thread, so a long run is never silent."""

    def __init__(self, args, max_score: int | None, doing: str = "solving"):
        quiet = getattr(args, "json", False)
        self.enabled = sys.stderr.isatty() and not quiet
        self.every = 0.0 if quiet else float(getattr(args, "progress_every", 0) or 0)
        self.max_score = max_score
        self.doing = doing
        self.best = None
        self.text = ""
        self._status = None
        self._t0 = self._last = time.perf_counter()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._clock: threading.Thread | None = None

    def __enter__(self):
        if self.enabled:
            self._status = err_console.status(f"{self.doing}...")
            self._status.__enter__()
        if self.enabled or self.every > 0:
            self._clock = threading.Thread(target=self._tick, name="emc-status", daemon=True)
            self._clock.start()
        return self

    def update(self, objective: int) -> None:
        self.best = objective
        self._show()

    def progress(self, text: str) -> None:
        self.text = text
        self._show()

    def _tick(self) -> None:
        while not self._stop.wait(min(1.0, self.every) if self.every > 0 else 1.0):
            self._show(clock=True)

    def _show(self, clock: bool = False) -> None:
        with self._lock:
            parts = [] if self.best is None else [f"best {self.best}/{self.max_score}"]
            text = self.text
            if self.best is not None:  # the backend's own "best N" says it again
                text = ", ".join(x for x in text.split(", ") if not re.fullmatch(r"best \d+", x))
            parts += [text] if text else []
            now = time.perf_counter()
            if self._status is not None:
                self._status.update(f"{self.doing}... {', '.join(parts)}{'; ' if parts else ''}{now - self._t0:.1f} s")
            elif self.every > 0 and now - self._last >= self.every and (parts or clock):
                self._last = now
                what = ", ".join(parts) if parts else "still running, nothing to report yet"
                err_console.print(f"[{now - self._t0:8.1f} s] {self.doing}: {what}")

    def __exit__(self, *exc):
        self._stop.set()
        if self._clock is not None:
            self._clock.join()
        if self._status is not None:
            self._status.__exit__(*exc)
        return False


def cmd_count(args) -> int:
    from ..backends import get_backend
    from ..cells import make_subproblem
    from ..formats import format_board, read_board, write_board

    if args.out_dir:
        if not args.keep:
            raise InputError("--out-dir writes the boards --keep N keeps: give --keep (how many to write)")
        check_output_dir(args.out_dir, "boards")
        old = sorted(Path(args.out_dir).glob("solution-[0-9][0-9][0-9][0-9].json")) if Path(args.out_dir).is_dir() else []
        if old:  # new boards beside them would read as one run's (and fewer would leave old ones behind)
            raise InputError(f"the folder already holds {len(old)} solution file{'s' if len(old) != 1 else ''} "
                             f"({old[0].name} ...) from an earlier count: give an empty folder, or remove them",
                             args.out_dir)
    puzzle = load_puzzle(args.puzzle)
    from ..formats import EDGES_MAX_COLOUR

    if args.keep and not args.out_dir and puzzle.max_colour > EDGES_MAX_COLOUR:
        raise InputError(f"--keep prints boards as board_edges strings, whose letters reach colour {EDGES_MAX_COLOUR} "
                         f"('z'), and this puzzle has colour {puzzle.max_colour}: give --out-dir for JSON files")
    fixed = read_board(args.fixed, puzzle) if args.fixed else None
    sp = make_subproblem(puzzle, args.free, fixed, Goal.FEASIBILITY, symmetry_breaking=not args.no_symmetry, fixed_path=args.fixed)
    check_no_symmetry(args, sp)
    name = args.backend or default_backend("enumeration")
    backend = get_backend(name)
    keep = max(args.keep, 0)
    options = _options(args)
    for key in ("threads", "seed"):  # the backends' message would point at flags count does not have
        if key in options:
            raise InputError(f"-O {key}: a count enumerates on one thread with the solver's default seed; it takes "
                             f"no {key}")
    from ..backends.base import CountResult

    started, caught = time.monotonic(), False
    with sigint_guard():
        try:
            with _live_status(args, None, f"counting with {name}") as live:
                res = backend.count(sp, limit=args.limit, time_limit=args.time_limit, formulation=args.formulation,
                                    keep=keep, on_progress=live.progress, **options)
        except KeyboardInterrupt:  # before the backend's own count began (loading a solver or a kernel)
            res, caught = CountResult(0, False, time.monotonic() - started, name), True
        interrupted = interrupt_seen() or caught
    sym = sp.symmetry_cells()
    if sym is not None:
        piece, cells = sym
        where = "the top-left cell" if len(cells) == 1 else "one of the two top corners"
        statement = (f"symmetry breaking: piece {piece + 1} (the first corner piece) fixed on {where}, so boards that "
                     f"are turns of each other are counted once")
    elif sp.is_whole and puzzle.hints:
        statement = "no symmetry breaking needed: the hints fix the board's orientation"
    elif sp.is_whole:
        statement = "no symmetry breaking (--no-symmetry): each solution is counted once per turn of the board"
    else:
        statement = "sub-problem: every fill of the free cells counted"
    freed = sp.hints_not_kept()
    if freed:
        statement += f"; hints not kept (their cells are free): {', '.join(freed)}"
    if puzzle.duplicate_pieces():
        statement += "; the puzzle has duplicate pieces, and boards differing only by swapping equal pieces count separately"
    turn_same = (puzzle.turn_symmetric_pieces() + 1).tolist()
    if turn_same:
        statement += (f"; piece(s) {', '.join(map(str, turn_same[:5]))}{' ...' if len(turn_same) > 5 else ''} look the "
                      "same turned half-way (or a quarter), and boards differing only by such a turn count separately")
    stopped_by = None
    if not res.complete:  # which stop fired (the backends only say that one did)
        if interrupted:
            stopped_by = "interrupt"
        elif args.limit is not None and res.count >= args.limit:
            stopped_by = "limit"
        elif args.time_limit is not None:
            stopped_by = "time-limit"
        else:
            stopped_by = "stopped"
    files = []
    if res.boards and args.out_dir:  # written before the report, which names them
        for i, b in enumerate(res.boards, 1):
            files.append(str(Path(args.out_dir) / f"solution-{i:04d}.json"))
            write_board(b, puzzle, files[-1])
    if args.json:
        console.print_json(json.dumps({"puzzle": puzzle.name, "backend": name, "count": res.count, "complete": res.complete,
                                       "stopped_by": stopped_by,
                                       "wall_time": round(res.wall_time, 3), "symmetry": statement,
                                       "hints_not_kept": freed,
                                       # board_edges letters stop at 'z': past that, the files alone hold them
                                       "boards": [format_board(b, puzzle, "edges").strip() for b in res.boards]
                                       if puzzle.max_colour <= EDGES_MAX_COLOUR else None,
                                       "files": files}))
    else:
        exact = "exactly" if res.complete else "at least"
        console.print(f"{puzzle.name}: {exact} {res.count} solution(s)  [{name}, {res.wall_time:.2f} s]")
        if res.stats.get("nodes") is not None:
            console.print(_search_line({**res.stats, "nodes_per_second": res.stats["nodes"] / max(res.wall_time, 1e-9)}))
        console.print(statement)
        if not res.complete:
            why = {"interrupt": "interrupted", "limit": f"--limit {args.limit} reached",
                   "time-limit": f"time limit {args.time_limit:g} s reached" if args.time_limit else ""}.get(stopped_by,
                                                                                                         "stopped early")
            console.print(f"{why}: the count is a lower bound")
        if res.stats.get("stopped"):
            console.print(f"stopped: {res.stats['stopped']}")
    if res.boards and not args.json:
        if args.out_dir:
            console.print(f"wrote {len(res.boards)} boards to {Path(args.out_dir)}/")
        else:
            for b in res.boards:
                print(format_board(b, puzzle, "edges").strip())
    return 130 if interrupted else 0
