"""The matheuristic commands: ``emc construct``, ``emc improve``, ``emc matheuristic``
(Salassa et al., seed 000: region heuristics and multi-neighbourhood local search)."""

from __future__ import annotations

import argparse
import re
import sys
import threading
import time

from ..errors import InputError, shorten
from .common import parse_options
from .common import (
    BoardSaver,
    add_command,
    check_outputs,
    check_save_every,
    check_url,
    console,
    err_console,
    load_board,
    load_puzzle,
    non_negative_int,
    positive_float,
    positive_int,
    print_url,
    progress_seconds,
    puzzle_arg,
    save_every_arg,
    save_seconds,
    thread_count,
    url_arg,
    whole_number,
)

START_CHOICES = ("greedy", "backtracking", "random")


def _window(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*([0-9]{1,9})\s*[xX]\s*([0-9]{1,9})\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"{shorten(text)!r} is not WIDTHxHEIGHT (e.g. 6x6)")
    if int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise argparse.ArgumentTypeError(f"{text.strip()!r}: sizes must be at least 1")
    if int(m.group(1)) * int(m.group(2)) < 2:
        raise argparse.ArgumentTypeError(f"{text!r} is one cell: a window re-solves at least 2")
    return int(m.group(1)), int(m.group(2))


def _at_least_2(text: str) -> int:
    v = whole_number(text)
    if v < 2:
        raise argparse.ArgumentTypeError(f"{v} must be at least 2")
    return v


def _construct_args(p: argparse.ArgumentParser, with_start: bool = True, alone: bool = False) -> None:
    """The construction's options; ``alone``: for `emc construct`, where --time-limit is the
    construction's own limit (in `emc matheuristic` it bounds the whole run)."""
    g = p.add_argument_group("construction")
    if with_start:
        g.add_argument("--start", choices=START_CHOICES, default="greedy",
                       help="greedy (Algorithm 1), backtracking (Algorithm 2) or a random board (default greedy)")
    g.add_argument("--region", default=None, metavar="RxC",
                   help="region ROWSxCOLS; W = board width, H = height: 1xW, 2xW, 4x4, Hx1 (default 1xW)")
    g.add_argument("--order", default=None, choices=("row-major", "column-major", "snake"),
                   help="order of the regions (default row-major; snake reverses every other band)")
    g.add_argument("--region-time-limit", type=positive_float, default=None, metavar="S",
                   help="seconds per region solve (default: solve each region to optimality)")
    g.add_argument("--construct-time-limit", type=positive_float, default=None, metavar="S",
                   help=("seconds for the backtracking phase (default: three quarters of --time-limit, the "
                         "greedy finish having the rest; 60 s without one); a greedy construction stops "
                         "here too") if alone else
                   ("seconds for the construction; backtracking: its backtracking phase "
                    "(default: half of --time-limit, 60 s without one; its greedy finish then "
                    "takes at most half of the time left; greedy: half of --time-limit, no limit "
                    "without one; the local search has the rest)"))


def _ls_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("local search (defaults: Table 2 of Salassa et al.)")
    g.add_argument("--neighbourhoods", "--neighborhoods", default="TA,BO,BW,TSR,RO", metavar="LIST",
                   help="neighbourhoods in cycle order, from TA, BO, BW, TSR, RO (default TA,BO,BW,TSR,RO)")
    g.add_argument("--ta-k", type=_at_least_2, default=None, metavar="K", help="TA: pieces lifted per move, at least 2 (default 16; fewer on boards without K pairwise non-adjacent cells of one kind)")
    g.add_argument("--ta-n", type=positive_int, default=None, metavar="N", help="TA: moves per cycle (default 1000)")
    g.add_argument("--no-sideways", action="store_true",
                   help="TA: keep the board when the best reinsertion only ties (default: take it)")
    g.add_argument("--window", type=_window, default=None, metavar="WxH",
                   help="RO: window size, WIDTHxHEIGHT (columns by rows; default 6x6, or the board on smaller boards)")
    g.add_argument("--ro-n", type=positive_int, default=None, metavar="N", help="RO: windows per cycle (default 10)")
    g.add_argument("--ro-method", choices=("clique", "direct"), default=None,
                   help="RO: max-clique then fill the holes with --backend (paper), or the window as one "
                        "optimisation sub-problem of --backend (default clique; direct if the clique backend is missing)")
    g.add_argument("--ro-time-limit", type=positive_float, default=None, metavar="S",
                   help="RO: seconds per window (default 10)")
    g.add_argument("--ro-sideways", action="store_true",
                   help="RO: adopt a window answer that only ties with the current board (default: keep the board)")
    g.add_argument("--clique-steps", type=non_negative_int, default=None, metavar="N",
                   help="RO: clique local-search moves per window (default 100000; 0 = use the whole window time)")
    g.add_argument("--bo-time-limit", type=positive_float, default=None, metavar="S",
                   help="BO: seconds per frame solve (default 30)")
    g.add_argument("--patience", type=non_negative_int, default=None, metavar="N",
                   help="stop after N cycles in a row without improvement; 0 = run until the time limit "
                        "(default: 0 with --time-limit, else 3)")


def _common_args(p: argparse.ArgumentParser, default_limit_help: str, save_every: bool = True) -> None:
    """The run options; ``save_every`` False for `emc construct`, whose only board is the one it
    ends with (a killed construction has nothing to have saved)."""
    g = p.add_argument_group("run")
    g.add_argument("--backend", "-b", default=None, metavar="NAME",
                   help="exact backend for the sub-problems (construct: the regions; improve: BO and RO; "
                        "matheuristic: both; default auto: the best-ranked installed for the heuristics' task, "
                        "which `emc backends` shows)")
    g.add_argument("--time-limit", "-t", type=positive_float, default=None, metavar="S", help=default_limit_help)
    g.add_argument("--backend-option", action="append", default=[], metavar="KEY=VALUE",
                   help="extra option for every call of --backend, read as `emc solve -O` reads it: e.g. "
                        "variant=paper for highs or cbc, variant=table with -b cpsat (repeatable)")
    g.add_argument("--seed", type=non_negative_int, default=0, help="random seed (default 0)")
    g.add_argument("--threads", type=thread_count, default=1, metavar="N",
                   help="solver threads (default 1: with a fixed seed, runs repeat exactly, but for -b portfolio, "
                        "whose members race)")
    g.add_argument("-o", "--output", metavar="BOARD", help="write the best board (.json, or .edges/.txt)")
    if save_every:
        save_every_arg(g)
    else:
        p.set_defaults(save_every=0.0, no_save_every=True)
    g.add_argument("--render", metavar="PNG", help="draw the best board (.png, .svg, .pdf, or .html for a page)")
    g.add_argument("--result", metavar="JSON", help="write the run as JSON: parameters, seed, trajectory, final board")
    g.add_argument("--show", action="store_true", help="draw the best board in the terminal")
    url_arg(g)
    g.add_argument("--progress-every", type=progress_seconds, default=5.0, metavar="S",
                   help="when not on a terminal: print a progress line every S seconds, whether or not the run "
                        "improved (default 5; 0: none, as with solve)")
    g.add_argument("--quiet", "-q", action="store_true", help="print only the final line")


def register(sub) -> None:
    p = add_command(
        sub, "matheuristic", "construct a board with a region heuristic, then improve it by local search",
        "The matheuristic of Salassa et al.: build a board region by region with an exact\n"
        "backend (greedy: each region optimised in turn; backtracking: each region must match\n"
        "perfectly, backing up with no-good cuts, finished greedily when its time is up), then\n"
        "improve it by steepest descent cycling through the neighbourhoods TA (optimal\n"
        "reinsertion of non-adjacent pieces), BO (exact frame), BW (checkerboard reinsertion),\n"
        "TSR (swaps and rotations) and RO (exact windows via max-clique). The score never\n"
        "goes down. Ctrl-C or the time limit stop the run cleanly: the best board is saved\n"
        "(and with -o, written there every minute as the run improves it: --save-every).\n"
        "The same seed with one thread repeats a run exactly (time limits permitting).",
        """
  emc matheuristic meta-10x10 -t 120 --seed 1 -o best.json --result run.json
  emc matheuristic meta-16x16 --start greedy --region 2xW -b highs -t 600 -o best.json
  emc matheuristic eternity2 --start backtracking --construct-time-limit 300 -t 900 -o e2.json --render e2.png
  emc matheuristic meta-12x12 --start random --neighbourhoods TA,BW,TSR -t 60 -o b.json
  emc matheuristic eternity2 -t 86400 -o day.json --save-every 600   # the best board on disk every 10 min
""", cmd_matheuristic)
    puzzle_arg(p)
    _construct_args(p)
    _ls_args(p)
    _common_args(p, "seconds for the whole run (default: until a local optimum of every neighbourhood)")

    p = add_command(
        sub, "construct", "build a board region by region with an exact backend (greedy or backtracking)",
        "Constructive heuristics of Salassa et al. (Algorithms 1 and 2). The board is cut into\n"
        "regions (--region), each solved by --backend over the pieces still unused: greedy\n"
        "optimises the matched edges of each region (inside it and towards the regions placed\n"
        "before); backtracking asks each region to match perfectly, goes back a region with a\n"
        "no-good cut when one cannot, and finishes greedily when its share of the time is up\n"
        "(--construct-time-limit: three quarters of --time-limit by default, 60 s without one).",
        """
  emc construct meta-10x10 -o greedy.json
  emc construct meta-10x10 --region 2xW -b highs --result construct.json -o greedy2.json
  emc construct set2-5x5 --start backtracking -t 30 -o bt.json
  emc construct eternity2 --region 4x4 --order snake --region-time-limit 20 -o e2.json
""", cmd_construct)
    puzzle_arg(p)
    _construct_args(p, alone=True)
    _common_args(p, "seconds for the whole construction; greedy: no limit by default (regions still empty "
                    "then get a fast rule); backtracking: three quarters of it for the backtracking, the rest "
                    "for the greedy finish (without -t: 60 s of backtracking, then the finish)", save_every=False)

    p = add_command(
        sub, "improve", "improve a complete board with the multi-neighbourhood local search",
        "Steepest descent over the neighbourhoods TA, BO, BW, TSR, RO (Salassa et al., section\n"
        "3.3), in that order, until a whole cycle improves nothing (--patience) or the time\n"
        "limit. The score never goes down; hints never move.",
        """
  emc improve meta-10x10 greedy.json -t 300 -o better.json
  emc improve eternity2 board.json --neighbourhoods TA,BW,TSR --ta-n 5000 -o better.json
  emc improve meta-14x14 board.json --window 5x5 --ro-method direct -b highs -t 600 --result ls.json
""", cmd_improve)
    puzzle_arg(p)
    p.add_argument("board", metavar="BOARD", help="complete starting board (emc JSON, board_edges, or a viewer link)")
    p.set_defaults(in_place="board")  # -o may be the starting board: improving it in place
    _ls_args(p)
    _common_args(p, "seconds (default: until a local optimum of every neighbourhood)")


# --------------------------------------------------------------------------- helpers
#: The local search's options that belong to one neighbourhood: flag, neighbourhood, default.
_LS_OWNED = {"ta_k": ("--ta-k", "TA", 16), "ta_n": ("--ta-n", "TA", 1000), "no_sideways": ("--no-sideways", "TA", False),
             "ro_n": ("--ro-n", "RO", 10), "ro_method": ("--ro-method", "RO", "clique"),
             "ro_time_limit": ("--ro-time-limit", "RO", 10.0), "ro_sideways": ("--ro-sideways", "RO", False),
             "clique_steps": ("--clique-steps", "RO", 100_000), "bo_time_limit": ("--bo-time-limit", "BO", 30.0)}


def _ls_params(args):
    from ..heuristics.decomposition.local_search import LocalSearchParams
    from ..heuristics.decomposition.neighbourhoods import parse_neighbourhoods

    names = parse_neighbourhoods(args.neighbourhoods)
    # An option of a neighbourhood the run leaves out is refused, not ignored (the result file
    # would have recorded it as used), as a random start refuses the construction's options.
    given = [(flag, owner) for key, (flag, owner, _) in _LS_OWNED.items()
             if getattr(args, key) is not None and getattr(args, key) is not False]
    if getattr(args, "window_given", False):
        given.append(("--window", "RO"))
    for flag, owner in given:
        if owner not in names:
            raise InputError(f"{flag}: the neighbourhoods {','.join(names)} leave out {owner}, so it has no use here")
    for key, (_, _, default) in _LS_OWNED.items():
        if getattr(args, key) is None:
            setattr(args, key, default)
    return LocalSearchParams(
        neighbourhoods=tuple(names),
        ta_k=args.ta_k, ta_n=args.ta_n, ta_accept_equal=not args.no_sideways,
        ro_width=args.window[0], ro_height=args.window[1], ro_n=args.ro_n, ro_method=args.ro_method,
        bo_time_limit=args.bo_time_limit, ro_time_limit=args.ro_time_limit, patience=args.patience,
        ro_clique_steps=args.clique_steps or None, ro_accept_equal=args.ro_sideways,
    )


def _resolve_backend(args) -> str:
    from ..backends import backend_class
    from ..backends import pick_backend

    if args.backend is None or args.backend == "auto":  # "auto", as the Python API names the default
        args.backend = pick_backend("auto")
    backend_class(args.backend)  # an unknown name is refused even when this run would not call it
    return args.backend


def _check_times(args) -> None:
    if getattr(args, "patience", None) == 0 and args.time_limit is None:
        raise InputError("--patience 0 runs until the time limit: give --time-limit too")
    ctl = getattr(args, "construct_time_limit", None)
    if ctl is not None and args.time_limit is not None and ctl > args.time_limit:
        raise InputError(f"--construct-time-limit {ctl:g} is longer than --time-limit {args.time_limit:g}, "
                         "which bounds the whole run")


def _check_start(args) -> None:
    """A random start builds no regions: the construction's options are refused with it (the
    result file would have recorded them as used); otherwise their defaults are filled in."""
    if args.start == "random":
        given = [flag for flag, v in (("--region", args.region), ("--order", args.order),
                                      ("--region-time-limit", args.region_time_limit),
                                      ("--construct-time-limit", args.construct_time_limit)) if v is not None]
        if given:
            raise InputError(f"{given[0]}: a random start builds no regions, so it has no use here (it is for "
                             "--start greedy or backtracking)")
        return
    if args.region == "":
        raise InputError("--region: an empty region (give one such as 1xW, 2xW or 4x4)")
    args.region = args.region or "1xW"
    args.order = args.order or "row-major"


def _check_window(args, puzzle) -> None:
    """Refuse a --window larger than the board; the default 6x6 is cut down to small boards."""
    args.window_given = args.window is not None
    if args.window is None:
        args.window = (min(6, puzzle.width), min(6, puzzle.height))
        return
    w, h = args.window
    if w > puzzle.width or h > puzzle.height:
        raise InputError(f"--window {w}x{h} is larger than the {puzzle.size} board (at most "
                         f"{puzzle.width}x{puzzle.height}, a window of the whole board)")


def _calls_backend(config) -> bool:
    from ..heuristics.decomposition.run import calls_backend

    return calls_backend(config)


def _check_backend(name: str, options: dict, need_feasibility: bool = False) -> None:
    from ..heuristics.decomposition.run import check_backend

    check_backend(name, options, need_feasibility)


class Progress:
    """Live progress on stderr, as `emc solve` shows it: a rich status line on a terminal, plain
    periodic lines otherwise (stdout keeps the result, and a board written to -o /dev/stdout)."""

    def __init__(self, puzzle, args):
        self.max = puzzle.max_score
        self.name = puzzle.name
        self.quiet = args.quiet
        self.every = args.progress_every
        self.live = None
        self.best = None
        self.partial = 0
        start = getattr(args, "start", None)  # construct and matheuristic: the construction comes first
        self.phase = f"construct:{start}" if start in ("greedy", "backtracking") else "start"
        self.improvements = 0
        self.t0 = time.perf_counter()
        self._last_print = -1e9
        self._dirty = False
        self.tty = sys.stderr.isatty() and not self.quiet
        self._clock: threading.Thread | None = None
        self._lock = threading.Lock()

    def __enter__(self):
        if self.tty:
            from rich.live import Live

            # get_renderable: the status line is drawn afresh at each refresh, so its clock runs
            # during a long backend call too (a frame solve may take the whole --bo-time-limit)
            self.live = Live(console=err_console, refresh_per_second=4, transient=False,
                             get_renderable=self._render)
            self.live.__enter__()
        elif not self.quiet and self.every > 0:
            # Plain lines: a clock thread prints one when none came for --progress-every seconds,
            # so a log never goes silent while a backend call runs.
            self._stop = threading.Event()
            self._clock = threading.Thread(target=self._keep_time, name="emc-progress", daemon=True)
            self._clock.start()
        return self

    def _keep_time(self) -> None:
        while not self._stop.wait(min(self.every, 1.0)):
            if time.perf_counter() - self._last_print >= self.every:
                with self._lock:
                    self._line()

    def __exit__(self, *exc):
        if self._clock is not None:
            self._stop.set()
            self._clock.join()
        if self.live is not None:
            self.live.refresh()
            self.live.__exit__(*exc)
        elif self._dirty and not self.quiet:
            self._line()
        return False

    def _best_text(self) -> str:
        if self.best is not None:
            return f"best {self.best}/{self.max}"
        # a construction under way shows the matched edges of what it has built; before anything
        # is scored (improve's start), there is no number to show yet
        return f"partial {self.partial}" if self.phase.startswith("construct") else "best -"

    def _render(self):
        from rich.text import Text

        el = time.perf_counter() - self.t0
        best = self._best_text()
        return Text.assemble((self.name, "bold"), "  ", (best, "bold green"), "  ", (self.phase, "cyan"),
                             f"  {el:7.1f} s  improvements {self.improvements}")

    def _line(self):
        el = time.perf_counter() - self.t0
        best = self._best_text()
        err_console.print(f"[{el:8.1f} s] {best}  {self.phase}  improvements {self.improvements}")
        self._last_print = time.perf_counter()
        self._dirty = False

    def _refresh(self):
        if self.live is not None:
            self.live.refresh()
        elif not self.quiet and self.every > 0:
            with self._lock:
                self._dirty = True
                if time.perf_counter() - self._last_print >= self.every:
                    self._line()

    def event(self, ev):
        if self.best is None or ev.score > self.best:
            self.best = ev.score
        if not (ev.neighbourhood.startswith("construct") or ev.neighbourhood == "start"):
            self.improvements += 1
        self.phase = ev.neighbourhood
        self._refresh()

    def tick(self, phase, score, elapsed):
        self.phase = phase
        if phase.startswith("construct"):
            self.partial = score  # matched edges of the board built so far
        elif self.best is None or score > self.best:
            self.best = score
        self._refresh()


def _board_note(args, config, command: str, **more) -> dict:
    """The ``solver`` note of a board the heuristic commands write."""
    start = getattr(args, "start", None)
    used = args.backend if _calls_backend(config) else None  # named only when the run called it
    return {"solver": {"method": command, "start": start, **({"backend": used} if used else {}), "seed": args.seed,
                       **more}}


class _Saver(BoardSaver):
    """``--save-every`` for the heuristic commands: the run's events carry its improvements (the
    constructed board, then each better one); the board written last is always a valid one of the
    run, and the end of the run writes the final board as before."""

    def __init__(self, puzzle, args, config, command: str):
        def write(board, elapsed):
            from ..formats import write_board

            write_board(board, puzzle, args.output,
                        extra=_board_note(args, config, command, saved_during_run=True, elapsed=round(elapsed, 3)))

        super().__init__(save_seconds(args), write)

    def event(self, ev) -> None:
        if ev.board is not None and ev.neighbourhood != "start":  # the start board is the input: nothing to keep yet
            self.offer(ev.board, ev.time)


def _outputs(args, puzzle, run, command: str) -> int:
    from ..formats import write_board
    from ..heuristics.decomposition.run import write_result
    from ..score import verify

    rep = verify(puzzle, run.board)
    if not rep.valid:  # every step is checked; this would be a bug
        raise AssertionError(f"the best board is invalid: {rep.problems[0]}")
    if args.output:
        write_board(run.board, puzzle, args.output, extra=_board_note(args, run.config, command))
    if args.result:
        write_result(run, args.result, command)
    if args.render:
        from ..render import render

        render(puzzle, run.board, args.render)
    parts = [f"{puzzle.name}: score {run.score}/{puzzle.max_score}"]
    if run.construction is not None:
        c = run.construction
        extra = ""
        if c.method == "backtracking":
            extra = (f", {c.depth} region{'s' if c.depth != 1 else ''} matched, {c.backtracks} "
                     f"backtrack{'s' if c.backtracks != 1 else ''}" + (", solved" if c.solved else ""))
        last = {r.index: r for r in c.records}  # a backtracking run may solve a region again
        ruled = [r for r in last.values() if r.filled_by == "fallback"]
        if ruled:  # said, not only in --result: the board is weaker than the regions' optima
            why = ("the run was interrupted" if any(r.status == "interrupted" for r in ruled) else
                   "no solver answer in time, or a worse one")
            extra += (f", {len(ruled)} of {len(last)} region{'s' if len(last) != 1 else ''} filled by the fast greedy "
                      f"rule ({why})")
        what = "random start" if c.method == "random" else f"{c.method} {c.region}"
        parts.append(f"{what} gave {c.score} in {c.elapsed:.1f} s{extra}")
    if run.local_search is not None:
        ls = run.local_search
        parts.append(f"local search {ls.start_score} -> {ls.score} in {ls.elapsed:.1f} s ({ls.cycles} full cycle{'' if ls.cycles == 1 else 's'})")
    elif run.config.local_search is not None and run.stopped_by == "time-limit":
        parts.append("no time was left for the local search")
    ending = {"finished": "finished", "local-optimum": "local optimum reached", "time-limit": "time limit reached",
              "solved": "stopped at the maximum score",
              "interrupt": "interrupted"}.get(run.stopped_by, run.stopped_by)
    parts.append(f"{ending} after {run.elapsed:.1f} s")
    console.print("; ".join(parts))
    wrote = [x for x in (args.output, args.result, args.render) if x]
    if wrote and not args.quiet:
        console.print("wrote " + ", ".join(wrote))
    if args.show:
        from ..render import terminal_view

        console.print(terminal_view(puzzle, run.board))
    print_url(args, puzzle, run.board)
    return 130 if run.interrupted else 0


def _check_paths(args) -> None:
    check_outputs((args.output, "board"), (args.render, "picture"), (args.result, "result"))
    if not getattr(args, "no_save_every", False):  # construct has none (its 0 saves nothing during the run)
        check_save_every(args)


def _run(args, puzzle, config, command: str, start_board=None) -> int:
    from ..heuristics.decomposition.run import matheuristic
    from .common import check_board_letters

    check_board_letters(puzzle, args.output)
    check_url(args, puzzle)
    saver = _Saver(puzzle, args, config, command)

    def on_event(ev):
        prog.event(ev)
        saver.event(ev)

    with Progress(puzzle, args) as prog, saver:
        run = matheuristic(puzzle, config, start_board=start_board, on_event=on_event, on_tick=prog.tick)
    return _outputs(args, puzzle, run, command)


def _config(args, local_search, start: str):
    from ..heuristics.decomposition.run import RunConfig

    builds = start in ("greedy", "backtracking")  # the others build no regions: none recorded
    return RunConfig(start=start, region=args.region if builds else None, order=args.order if builds else None,
                     backend=args.backend, time_limit=args.time_limit,
                     construct_time_limit=getattr(args, "construct_time_limit", None),
                     region_time_limit=getattr(args, "region_time_limit", None), seed=args.seed,
                     threads=args.threads, local_search=local_search,
                     backend_options=parse_options(args.backend_option, "--backend-option"))


# --------------------------------------------------------------------------- handlers
def cmd_matheuristic(args) -> int:
    from ..heuristics.decomposition.construction import regions

    _check_paths(args)
    _check_times(args)
    _resolve_backend(args)
    _check_start(args)
    puzzle = load_puzzle(args.puzzle)
    if args.region is not None:
        regions(puzzle, args.region, args.order, clamp=False)  # bad specs fail before any work
    _check_window(args, puzzle)
    params = _ls_params(args)
    cfg = _config(args, params, args.start)
    if _calls_backend(cfg):
        _check_backend(args.backend, cfg.backend_options, need_feasibility=args.start == "backtracking")
    elif cfg.backend_options:  # never checked by a backend that is never called: refused, not ignored
        raise InputError(f"--backend-option: a random start and the neighbourhoods {','.join(params.neighbourhoods)} "
                         "call no backend (the constructions and BO and RO do), so it has no use here")
    return _run(args, puzzle, cfg, "matheuristic")


def cmd_construct(args) -> int:
    from ..heuristics.decomposition.construction import regions

    _check_paths(args)
    _check_times(args)
    _resolve_backend(args)
    _check_start(args)
    puzzle = load_puzzle(args.puzzle)
    if args.region is not None:
        regions(puzzle, args.region, args.order, clamp=False)
    cfg = _config(args, None, args.start)
    if _calls_backend(cfg):
        _check_backend(args.backend, cfg.backend_options, need_feasibility=args.start == "backtracking")
    elif cfg.backend_options:  # never checked by a backend that is never called: refused, not ignored
        raise InputError("--backend-option: a random start calls no backend, so it has no use here (it is for "
                         "--start greedy or backtracking)")
    return _run(args, puzzle, cfg, "construct")


def cmd_improve(args) -> int:
    _check_paths(args)
    _check_times(args)
    _resolve_backend(args)
    puzzle = load_puzzle(args.puzzle)
    board = load_board(args.board, puzzle)
    from ..heuristics.decomposition.local_search import check_start_board

    try:
        check_start_board(puzzle, board)
    except InputError as exc:
        raise InputError(str(exc), args.board) from None
    _check_window(args, puzzle)
    params = _ls_params(args)
    cfg = _config(args, params, "given")
    if _calls_backend(cfg):
        _check_backend(args.backend, cfg.backend_options)
    elif cfg.backend_options:  # never checked by a backend that is never called: refused, not ignored
        raise InputError(f"--backend-option: the neighbourhoods {','.join(params.neighbourhoods)} call no backend "
                         "(BO and RO do), so it has no use here")
    return _run(args, puzzle, cfg, "improve", start_board=board)
