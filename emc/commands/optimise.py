"""The method registry's commands: ``emc methods`` and ``emc optimise``.

They know methods only through :mod:`emc.heuristics.core.method`: the declared options, the
:class:`~emc.heuristics.core.method.Progress` reports and the
:class:`~emc.heuristics.core.method.RunResult`; a new method needs nothing here.
"""

from __future__ import annotations

import json
import sys
import textwrap
from functools import partial
import threading
import time

from ..errors import InputError
from .common import (
    BoardSaver,
    add_command,
    board_url,
    check_board_letters,
    check_outputs,
    check_save_every,
    check_url,
    console,
    err_console,
    load_board,
    load_puzzle,
    parse_options,
    positive_float,
    print_url,
    progress_arg,
    puzzle_arg,
    save_every_arg,
    save_seconds,
    seed_arg,
    url_arg,
)

#: Lines wrapped at spaces only (a wrap inside 'conflict-directed' left 'conflict- directed').
_fill = partial(textwrap.fill, break_on_hyphens=False)


def register(sub) -> None:
    p = add_command(
        sub, "methods", "list the score-maximising methods and their options",
        "Show every registered method (the heuristics `emc optimise` runs): what it does, the\n"
        "paper it implements, and its options with their defaults; with a NAME, that method's\n"
        "options in full (what each takes, its help, where its default comes from).",
        """
  emc methods
  emc methods matheuristic
  emc methods --json
""", cmd_methods)
    p.add_argument("name", nargs="?", metavar="NAME", help="one method, in full")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = add_command(
        sub, "warmup", "compile emc's kernels now, so that first runs spend no time limit on it",
        "emc's searches run compiled code (numba), compiled on first use and cached on disk. The\n"
        "first run after installing (or with a new NUMBA_CACHE_DIR) would spend seconds of its\n"
        "time limit compiling; this runs every method and compiled backend briefly on a small\n"
        "puzzle so that later runs load the kernels from the cache. scripts/setup.sh runs it.",
        """
  emc warmup
""", cmd_warmup)
    p.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")
    p.set_defaults(compile_note=False)  # compiling is what it is for: it says so itself

    p = add_command(
        sub, "optimise", "run a score-maximising method (emc methods lists them)",
        "Run any registered method on PUZZLE for a time limit and keep the best board. Options\n"
        "of the method go in -O KEY=VALUE (repeatable; `emc methods NAME` lists them). Ctrl-C,\n"
        "SIGTERM or the time limit end the run cleanly: the best board is verified, reported and\n"
        "saved (and with -o, written there as the run improves it: --save-every). The same seed\n"
        "gives the same run wherever the method's budget is counted in iterations, not seconds.\n"
        "Exit status: 0 done, 130 after Ctrl-C (143 after SIGTERM), 2 bad input.",
        """
  emc optimise meta-10x10 --method matheuristic -t 60 --seed 1 -o best.json --result run.json
  emc optimise meta-16x16 -m matheuristic -O start=random -O neighbourhoods=TA,BW,TSR -t 120
  emc optimise eternity2 -m matheuristic -t 3600 -o e2.json --save-every 300
  emc optimise meta-12x12 -m matheuristic --start-board b.json -O improve=true -t 60 -o better.json
""", cmd_optimise)
    puzzle_arg(p)
    p.add_argument("--method", "-m", default="matheuristic", metavar="NAME",
                   help="the method (default matheuristic; `emc methods` lists them)")
    p.add_argument("--time-limit", "-t", type=positive_float, default=None, metavar="S",
                   help="seconds for the whole run (default: the method's own stopping rule)")
    seed_arg(p, "the same seed gives the same run where the method counts its budget in iterations")
    p.add_argument("-O", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="an option of the method (repeatable; `emc methods NAME` lists them)")
    p.add_argument("--start-board", metavar="BOARD", help="a complete board to start from, for methods that take one")
    p.add_argument("-o", "--output", metavar="BOARD", help="write the best board (.json, or .edges/.txt)")
    save_every_arg(p)
    p.add_argument("--result", metavar="JSON", help="write the run as JSON: method, options, seed, trajectory, "
                   "final scores, board")
    p.add_argument("--render", metavar="PNG", help="draw the best board (.png, .svg or .pdf)")
    p.add_argument("--show", action="store_true", help="draw the best board in the terminal")
    url_arg(p)
    p.add_argument("--json", action="store_true",
                   help="print the result as JSON (the --result document; with --url, the link too)")
    progress_arg(p)
    p.add_argument("--quiet", "-q", action="store_true", help="print only the final line")
    p.set_defaults(in_place="start_board")


# --------------------------------------------------------------------------- emc methods
def _method_row(cls) -> dict:
    return {"name": cls.name, "summary": cls.summary, "paper": cls.paper, "unit": cls.unit,
            "available": cls.available(), "install": cls.install_hint,
            "options": [{"name": o.name, "default": o.default, "kind": o.kind, "takes": o.takes(),
                         "choices": list(o.choices), "low": o.low, "high": o.high, "help": o.help,
                         "source": o.source} for o in cls.options]}


def _default_text(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def cmd_methods(args) -> int:
    from ..heuristics import METHODS, method_class

    names = [args.name] if args.name else list(METHODS)
    rows = [_method_row(method_class(n)) for n in names]
    if args.json:
        console.print_json(json.dumps(rows if not args.name else rows[0]))
        return 0
    width = 78
    for r in rows:
        head = f"{r['name']}: {r['summary']}"
        console.print(_fill(head, width, subsequent_indent="    "))
        if not r["available"]:
            console.print(f"    not installed: {r['install']}")
        if args.name:
            if r["paper"]:
                console.print(_fill(f"paper: {r['paper']}", width, subsequent_indent="    "))
            console.print(f"options (-O KEY=VALUE; iterations count {r['unit']}):")
            for o in r["options"]:
                console.print(f"  {o['name']} = {_default_text(o['default'])}   ({o['takes']})")
                text = o["help"] + (f" [default: {o['source']}]" if o["source"] else "")
                console.print(_fill(text, width, initial_indent="      ", subsequent_indent="      "))
        else:
            opts = ", ".join(f"{o['name']}={_default_text(o['default'])}" for o in r["options"])
            console.print(_fill(f"options: {opts}", width, initial_indent="    ", subsequent_indent="    "))
    if not args.name:
        console.print("`emc methods NAME` gives a method's options in full")
    return 0


# --------------------------------------------------------------------------- emc warmup
def cmd_warmup(args) -> int:
    from .._compile_clock import seconds
    from ..backends import BACKENDS, backend_class
    from ..heuristics import METHODS, method_class, optimise
    from ..instances import resolve
    from ..model import Subproblem

    t0 = time.perf_counter()
    before = seconds()
    small = resolve("meta-10x10")
    done = []
    for name in METHODS:
        cls = method_class(name)
        if cls.warmup_options is not None and cls.available():
            optimise(small, name, seed=0, **cls.warmup_options)
            done.append(name)
    for name in BACKENDS:
        cls = backend_class(name)
        if cls.compiled and cls.available():
            cls().solve(Subproblem.whole(resolve("set2-4x4")), threads=1)
            cls().count(Subproblem.whole(resolve("set2-3x3")))
            done.append(name)
    if not args.quiet:
        console.print(f"compiled or loaded the kernels of {', '.join(done)} in {time.perf_counter() - t0:.1f} s "
                      f"({seconds() - before:.1f} s compiling)")
    return 0


# --------------------------------------------------------------------------- emc optimise
class _Status:
    """The progress line on stderr: a rich status line on a terminal, plain lines every
    ``--progress-every`` seconds otherwise (stdout keeps the result)."""

    def __init__(self, puzzle, method, args):
        self.max, self.name, self.unit = puzzle.max_score, puzzle.name, method.unit
        self.quiet, self.every = args.quiet, args.progress_every
        self.last = None
        self.t0 = time.perf_counter()
        self.tty = sys.stderr.isatty() and not self.quiet
        self.live = None
        self._printed = -1e9
        self._lock = threading.Lock()
        self._clock = None

    def __enter__(self):
        if self.tty:
            from rich.live import Live

            self.live = Live(console=err_console, refresh_per_second=4, transient=False, get_renderable=self._text)
            self.live.__enter__()
        elif not self.quiet and self.every > 0:
            self._stop = threading.Event()
            self._clock = threading.Thread(target=self._keep_time, name="emc-progress", daemon=True)
            self._clock.start()
        return self

    def __exit__(self, *exc):
        if self._clock is not None:
            self._stop.set()
            self._clock.join()
        if self.live is not None:
            self.live.refresh()
            self.live.__exit__(*exc)
        return False

    def _keep_time(self) -> None:
        while not self._stop.wait(min(self.every, 1.0)):
            if time.perf_counter() - self._printed >= self.every:
                with self._lock:
                    err_console.print(self._line())
                    self._printed = time.perf_counter()

    def _line(self) -> str:
        el = time.perf_counter() - self.t0
        p = self.last
        if p is None:
            return f"[{el:8.1f} s] starting"
        # the phase in words first, as the matheuristic commands print it, then the numbers
        parts = [f"best {p.best}/{self.max}" if p.best is not None else "no board yet"]
        if p.current is not None:
            parts.append(f"current board {p.current}")
        if p.rate is not None:
            parts.append(f"{p.rate:,.0f} {self.unit}/s")
        if p.detail:
            parts.append(p.detail)
        return f"[{el:8.1f} s] {p.phase}; " + ", ".join(parts)

    def _text(self):
        from rich.text import Text

        return Text(f"{self.name}  " + self._line())

    def update(self, p) -> None:
        self.last = p
        if self.live is not None:
            self.live.refresh()


def cmd_optimise(args) -> int:
    from ..heuristics import get_method

    check_outputs((args.output, "board"), (args.render, "picture"), (args.result, "result"))
    check_save_every(args)
    method = get_method(args.method)
    options = method.resolve(parse_options(args.option))
    puzzle = load_puzzle(args.puzzle)
    check_board_letters(puzzle, args.output)
    check_url(args, puzzle)
    start = None
    if args.start_board:
        start = load_board(args.start_board, puzzle)
        try:
            method.check_start(puzzle, start, options)
        except InputError as exc:
            raise InputError(str(exc), args.start_board) from None

    def note(**more) -> dict:
        return {"solver": {"method": method.name, "seed": args.seed, **more}}

    def write(board, elapsed):
        from ..formats import write_board

        write_board(board, puzzle, args.output, extra=note(saved_during_run=True, elapsed=round(elapsed, 3)))

    saver = BoardSaver(save_seconds(args), write)
    with _Status(puzzle, method, args) as status, saver:
        def on_progress(p) -> None:
            status.update(p)
            if p.board is not None:
                saver.offer(p.board, p.time)

        run = method.run(puzzle, time_limit=args.time_limit, seed=args.seed, options=options,
                         on_progress=on_progress, start_board=start)
    return _report(args, puzzle, run, note)


def _report(args, puzzle, run, note) -> int:
    from ..formats import write_board
    from ..heuristics.core.method import STOPS

    if args.output:
        write_board(run.board, puzzle, args.output, extra=note())
    if args.result:
        run.write(args.result)
    if args.render:
        from ..render import render

        render(puzzle, run.board, args.render)
    if args.json:
        console.print_json(json.dumps({**run.document(),
                                       **({"url": board_url(args, puzzle, run.board)} if args.url else {})}))
    else:
        rate = ""
        if run.iterations and run.elapsed > 0:
            rate = f", {run.iterations:,} {run.unit} ({run.iterations / run.elapsed:,.0f}/s)"
        console.print(f"{puzzle.name}: score {run.score}/{puzzle.max_score} by {run.method}, found at "
                      f"{run.time_to_best:.1f} s{rate}; {STOPS.get(run.stopped_by, run.stopped_by)} after "
                      f"{run.elapsed:.1f} s")
        wrote = [x for x in (args.output, args.result, args.render) if x]
        if wrote and not args.quiet:
            console.print("wrote " + ", ".join(wrote))
    if args.show:
        from ..render import terminal_view

        console.print(terminal_view(puzzle, run.board))
    if not args.json:
        print_url(args, puzzle, run.board)
    return 130 if run.interrupted else 0
