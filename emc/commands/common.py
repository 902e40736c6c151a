"""Helpers shared by the command modules: argument types, loading, console output."""

from __future__ import annotations

import argparse
import json
import re
import contextlib
import os
import sys
from collections.abc import Iterator

from rich.console import Console

from ..errors import EmcError, InputError, parse_whole, read_whole, shorten
from ..formats import read_board
from ..instances import resolve
from ..io import drop_output, is_special
from ..model import Board, Puzzle

# A closed stdout or stderr (`emc info p.txt >&-`) leaves Python None there: what would go to it is
# dropped, as a shell drops it, instead of an AttributeError traceback.
for _name in ("stdout", "stderr"):
    if getattr(sys, _name) is None:
        setattr(sys, _name, open(os.devnull, "w"))
# Piped output is not cut to 80 columns: tables stay whole in logs and files.
_width = None if sys.stdout.isatty() else 160
# No markup: puzzle names and file names are the user's, and rich read "[/]" or "[red]" in them as
# tags (a MarkupError traceback, or text swallowed). Styled words are rich Text objects instead.


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """The reader went away (`emc count ... | head`): rich exits with status 1 here, before
        the command has written its files. The rest of the report goes nowhere instead, as
        in any shell tool, and the command carries on to its end."""
        self.quiet = True
        with contextlib.suppress(OSError, ValueError):
            drop_output(self.file.fileno())  # the stream this console writes to, whichever it is now


console = _Console(highlight=False, soft_wrap=True, width=_width, markup=False)
err_console = _Console(stderr=True, highlight=False, soft_wrap=True, markup=False)


def styled(*parts) -> "rich.text.Text":  # noqa: F821 (rich loads on first use)
    """A line of plain strings and (text, style) pairs, for the consoles above."""
    from rich.text import Text

    return Text.assemble(*parts)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples in descriptions and epilogs as written."""

    def __init__(self, prog: str):
        super().__init__(prog, max_help_position=32, width=100)


def add_command(subparsers, name: str, help: str, description: str, examples: str, func) -> argparse.ArgumentParser:
    """Add a sub-command whose ``--help`` ends with its examples."""
    p = subparsers.add_parser(
        name,
        help=help,
        description=description,
        epilog="examples:\n" + examples.strip("\n"),
        formatter_class=HelpFormatter,
    )
    p.set_defaults(func=func, parser=p)
    return p


def puzzle_arg(parser: argparse.ArgumentParser, name: str = "puzzle") -> None:
    parser.add_argument(name, metavar=name.upper(), help="puzzle file (Heule, 'W H' or JSON) or shipped instance name (see `emc instances`)")


def load_puzzle(spec: str) -> Puzzle:
    """The puzzle ``spec`` names; a note on stderr when its pieces rule out a perfect board (a
    file missing a piece can still read as a puzzle of another size: Eternity II less one
    inner piece reads as 17x15)."""
    puzzle = resolve(spec)
    fatal = puzzle.structure_problems()
    if fatal:
        more = f"; {len(fatal) - 1} more, `emc info` lists them" if len(fatal) > 1 else ""
        err_console.print(f"note: {spec}: read as the {puzzle.size} puzzle, which no board can match on every edge: "
                          f"{fatal[0]}{more}")
    return puzzle


def load_board(path: str, puzzle: Puzzle, check_puzzle: bool = True, repeats: bool = False) -> Board:
    """The board in file ``path``, or the board a viewer link shows when ``path`` is one (and
    no file of that name exists)."""
    from ..formats import looks_like_url, parse_board_url

    if not os.path.exists(path) and looks_like_url(path):
        return parse_board_url(path, puzzle, repeats=repeats)
    return read_board(path, puzzle, check_puzzle=check_puzzle, repeats=repeats)


def url_arg(parser) -> None:
    """``--url``: the commands that write a board can also print its viewer link."""
    parser.add_argument("--url", action="store_true",
                        help="also print the board's link to the community viewer (e2.bucas.name)")


def check_url(args, puzzle: Puzzle) -> None:
    """Refuse ``--url``, before any work, for a puzzle whose colours do not all have letters."""
    from ..formats import EDGES_MAX_COLOUR

    if getattr(args, "url", False) and puzzle.max_colour > EDGES_MAX_COLOUR:
        raise InputError(f"--url: the viewer's link writes colours 0 to {EDGES_MAX_COLOUR} as the letters 'a' to 'z' "
                         f"and this puzzle has colour {puzzle.max_colour}")


def board_url(args, puzzle: Puzzle, board: Board | None) -> str | None:
    """The viewer link to ``board`` when ``--url`` asks for it (None otherwise, or without a board)."""
    if not getattr(args, "url", False) or board is None:
        return None
    from ..formats import format_board_url

    return format_board_url(board, puzzle)


def print_url(args, puzzle: Puzzle, board: Board | None) -> None:
    """Print the viewer link to ``board`` on a line of its own, when ``--url`` asks for it."""
    url = board_url(args, puzzle, board)
    if url is not None:
        console.print(url, soft_wrap=True, crop=False)


def _number(text: str, cast: type, what: str):
    try:
        if cast is int:
            return parse_whole(text.strip())
        return cast(text)
    except ValueError as exc:
        reason = str(exc) if cast is int else f"{shorten(text)!r} is not {what}"
        raise argparse.ArgumentTypeError(reason) from None


def whole_number(text: str) -> int:
    """Any whole number (range checks are the caller's)."""
    return _number(text, int, "an integer")


def positive_int(text: str) -> int:
    v = _number(text, int, "an integer")
    if v < 1:
        raise argparse.ArgumentTypeError(f"{v} must be at least 1")
    return v


MAX_THREADS = 1024


def thread_count(text: str) -> int:
    v = positive_int(text)
    if v > MAX_THREADS:
        raise argparse.ArgumentTypeError(f"{v} is more than {MAX_THREADS} threads")
    return v


def non_negative_int(text: str) -> int:
    v = _number(text, int, "an integer")
    if v < 0:
        raise argparse.ArgumentTypeError(f"{v} must not be negative")
    return v


def solver_seed(text: str) -> int:
    """A seed for a solver: 0 .. 2^31 - 1 (CP-SAT, HiGHS and MiniZinc take 32-bit seeds)."""
    from ..backends.base import MAX_SEED

    v = non_negative_int(text)
    if v > MAX_SEED:
        raise argparse.ArgumentTypeError(f"{v} is too large: solver seeds are 0 to {MAX_SEED}")
    return v


def positive_float(text: str) -> float:
    v = _number(text, float, "a number")
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"{v} must be a positive finite number")
    return v


def non_negative_float(text: str) -> float:
    v = _number(text, float, "a number")
    if not v >= 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"{v} must be a finite number, at least 0")
    return v


def progress_seconds(text: str) -> float:
    """--progress-every: 0 (no periodic lines) or at least 0.01 s (1e-9 printed a line per poll)."""
    v = non_negative_float(text)
    if 0 < v < 0.01:
        raise argparse.ArgumentTypeError(f"{v:g} s is shorter than 0.01 s: give 0.01 or more, or 0 for no periodic "
                                         "lines")
    return v


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


BOARD_SUFFIXES = (".json", ".edges", ".txt")


def check_output_path(path: str, what: str = "output") -> None:
    """Refuse an output path that cannot be written before any work starts: a folder, a
    folder that cannot be created or written to, a suffix that cannot be drawn to
    (``what="picture"``), or (``what="board"`` / ``"solution"``) a suffix naming neither board
    format (no suffix: JSON)."""
    from pathlib import Path

    from ..render import is_picture_name, picture_format

    if path == "-":
        raise InputError(f"the {what} goes to a file: give its name (standard output, '-', is not supported here)")
    from ..formats import name_suffix

    p = Path(path)
    if p.is_dir():
        raise InputError(f"{what} path is a folder", path)
    if os.fspath(path).endswith(("/", os.sep)):  # Path() drops the slash: a file of the folder's name was written
        raise InputError(f"{what} path ends in '/': give a file name, not a folder", path)
    if what == "picture":
        picture_format(p)
    elif is_picture_name(p):
        if what == "board":  # the commands that write boards also draw them
            raise InputError("a board file is emc JSON or board_edges (.edges), not a picture: draw it with "
                             "--render or `emc render`", path)
        if what == "solution":
            raise InputError("a solution file is emc JSON or board_edges (.edges), not a picture: draw it with "
                             "`emc render`", path)
        raise InputError(f"the {what} is a text file, not a picture ({p.suffix} is a picture suffix; boards are "
                         "drawn by `emc render`)", path)
    elif what == "result" and name_suffix(p) not in ("", ".json"):  # .lp, .csv, .edges, ... promise another format
        raise InputError(f"the result file is JSON: name it .json, not {name_suffix(p)}", path)
    elif what in ("board", "solution") and name_suffix(p) and name_suffix(p) not in BOARD_SUFFIXES:
        # the format follows the suffix: anything else would silently get JSON under a name
        # that promises another format
        raise InputError(f"a {what} file is emc JSON (.json) or a board_edges string (.edges or .txt), not "
                         f"{''.join(p.suffixes[-2:]) if p.suffix.lower() == '.gz' else p.suffix}", path)
    if p.exists() and not p.is_file() and os.access(p, os.W_OK):
        return  # a device or FIFO (/dev/null): written into, not replaced, so its folder does not matter
    _check_writable_folder(p.absolute().parent, what, path)


def check_format_suffix(path: str | None, fmt: str | None, flag: str = "--format") -> None:
    """Refuse a file name ending in ``.json`` for a ``fmt`` that is not JSON (`emc generate -o
    p.json --format wh` wrote 'W H' text there, which every reader then refused as JSON), and
    a board_edges string under ``.json`` likewise."""
    from ..formats import name_suffix

    if not path or fmt is None:
        return
    suffix = name_suffix(path)
    if fmt != "json" and suffix == ".json":
        raise InputError(f"the file name says json, {flag} says {fmt}", path)
    if fmt in ("json", "url") and suffix == ".edges":
        raise InputError(f"the file name says edges (board_edges), {flag} says {fmt}", path)


def check_board_letters(puzzle: Puzzle, path: str | None, what: str = "board") -> None:
    """Refuse, before any work, a board file in board_edges form (.edges, .txt) for a puzzle
    with colours past 'z': the board would be lost at the end of the run."""
    from ..formats import EDGES_MAX_COLOUR, name_suffix

    if path and name_suffix(path) in (".edges", ".txt") and puzzle.max_colour > EDGES_MAX_COLOUR:
        raise InputError(f"board_edges has letters for colours 0 to {EDGES_MAX_COLOUR} ('a' to 'z') and this puzzle "
                         f"has colour {puzzle.max_colour}: write the {what} as .json", path)


def check_outputs(*outputs: tuple[str | None, str]) -> None:
    """:func:`check_output_path` for each ``(path, what)`` given (None: not asked for), and refuse
    two outputs on one file (the second would overwrite the first)."""

    seen: dict[str, str] = {}
    for path, what in outputs:
        if not path:
            continue
        check_output_path(path, what)
        key = os.path.realpath(path)
        if key in seen:
            raise InputError(f"the {what} and the {seen[key]} would be written to the same file", path)
        seen[key] = what


#: The arguments that name files a command reads, and those that name files it writes.
INPUT_ARGS = (("puzzle", "puzzle"), ("input", "input"), ("fixed", "--fixed board"), ("board", "board"),
              ("start_board", "starting board"), ("answer", "answer"), ("model", "model"))
OUTPUT_ARGS = (("output", "output"), ("solution", "solution"), ("log", "log"), ("result", "result"),
               ("render", "picture"))


#: Arguments whose empty value ("") would be taken for "not given" or for the current folder.
NAMED_ARGS = tuple(a for a, _ in INPUT_ARGS + OUTPUT_ARGS) + ("out_dir", "backend", "method", "formulation", "variant", "solver",
                                                              "name")


def check_no_empty_names(args) -> None:
    """Refuse an empty file or backend name (``-o ""`` was ignored, or wrote into the current
    folder, and ``--backend ""`` took the default)."""
    for attr in NAMED_ARGS:
        if getattr(args, attr, None) == "":
            flag = attr if attr in ("puzzle", "input", "board", "answer") else "--" + attr.replace("_", "-")
            raise InputError(f"{flag}: an empty name")


def check_environment() -> None:
    """Refuse settings in the environment that would make a library fail on import with a
    traceback (numba raises ValueError for NUMBA_NUM_THREADS=0 when it is first imported, and
    prints one as a warning for NUMBA_NUM_THREADS=abc)."""
    value = os.environ.get("NUMBA_NUM_THREADS", "").strip()
    if not value:
        return
    try:
        ok = parse_whole(value) >= 1
    except ValueError:  # numba prints a traceback as a warning for text, then uses its default
        ok = False
    if not ok:
        raise InputError(f"environment variable NUMBA_NUM_THREADS={shorten(value)}: numba needs a whole number of at "
                         "least 1 (unset it to use the default)")


def _is_run_record(path: str) -> bool:
    """Whether ``path`` is a heuristic run's --result file (read as its board where a board is
    asked for); a file that cannot be read as one is left to the board reader's errors."""
    import json

    from ..formats import RESULT_FORMATS, _read_text

    try:
        d = json.loads(_read_text(path))
    except (EmcError, ValueError, OSError):
        return False
    return isinstance(d, dict) and d.get("format") in RESULT_FORMATS


def check_inputs_kept(args) -> None:
    """Refuse, before any work, an output that would overwrite a file the command reads (`emc
    export p.txt -o p.txt` replaced the puzzle by its CNF). A command whose board output may
    replace the board it starts from names that input in ``args.in_place`` (`emc improve`'s
    starting board, `emc solve`'s --fixed board): that is improving a board in place."""

    in_place = getattr(args, "in_place", None)
    for src_attr, src_name in INPUT_ARGS:
        source = getattr(args, src_attr, None)
        if not isinstance(source, str) or not os.path.isfile(source):  # an instance name, or not given
            continue
        if src_attr == "board" and in_place == "board":
            src_name = "starting board"
        for out_attr, what in OUTPUT_ARGS:
            path = getattr(args, out_attr, None)
            if not isinstance(path, str) or os.path.realpath(path) != os.path.realpath(source):
                continue
            if src_attr == in_place:
                if out_attr == "output":  # improving the board in place, unless the file is a run record
                    if not _is_run_record(source):
                        continue
                    raise InputError(f"-o would replace the run record {source} (a --result file) by a bare board: "
                                     "give -o another file (and --result another file for the new record)", path)
                raise InputError(f"the {what} would overwrite the {src_name} {source} (-o may: it writes a board)",
                                 path)
            raise InputError(f"the {what} would overwrite the {src_name} {source}", path)


@contextlib.contextmanager
def report_clear_of_stdout(args) -> Iterator[None]:
    """When an output file is this process's standard output (`-o /dev/stdout`, or the file
    stdout is redirected to), print the report on stderr for the command's duration, so that
    stdout carries the file alone (a CNF piped into a solver got emc's summary lines after its
    clauses). ``--json`` prints its result on stdout, so it cannot share it with a file, nor with
    ``--show``'s drawing."""
    from pathlib import Path

    from ..io import _standard_stream

    if getattr(args, "json", False) and getattr(args, "show", False):
        raise InputError("--show draws on the terminal and would break --json's output: use --render PNG or -o BOARD")
    taken = None
    for attr, what in OUTPUT_ARGS:
        path = getattr(args, attr, None)
        if isinstance(path, str) and _standard_stream(Path(path)) is sys.stdout:
            taken = (path, what)
            break
    if taken is None:
        yield
        return
    if getattr(args, "json", False):
        raise InputError(f"the {taken[1]} and --json would both go to standard output", taken[0])
    before = console._file
    console.file = sys.stderr
    try:
        yield
    finally:
        console._file = before


def board_outputs(args, puzzle: Puzzle, board: Board, extra: dict | None = None, what: str = "",
                  label: str | None = None) -> None:
    """Write ``board`` where ``-o``/``--render`` say, draw it with ``--show`` and print its
    viewer link with ``--url``; "wrote ..." lines (with ``what`` after the name) unless the
    report is ``--json``; ``label``: words for the picture's title, before the score."""
    from ..formats import write_board

    quiet = getattr(args, "json", False)
    if args.output:
        write_board(board, puzzle, args.output, extra=extra)
        if not quiet:
            console.print(f"wrote {args.output}{what}")
    if args.render:
        from ..render import render

        render(puzzle, board, args.render, label=label)
        if not quiet:
            console.print(f"wrote {args.render}{what}")
    if args.show:
        from ..render import terminal_view

        console.print(terminal_view(puzzle, board))
    if not quiet:  # --json carries the link in its report
        print_url(args, puzzle, board)


def check_output_dir(path: str, what: str = "output folder") -> None:
    """Refuse a folder to write files into that is a file or cannot be created or written."""
    from pathlib import Path

    _check_writable_folder(Path(path).absolute(), what, path)


def _check_writable_folder(folder, what: str, path: str) -> None:

    while not folder.exists():  # the folders to create on writing: the nearest existing one decides
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(f"cannot write the {what}: {folder} is a file, not a folder", path)
    if not os.access(folder, os.W_OK | os.X_OK):
        try:
            read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
        except (OSError, AttributeError):  # no statvfs on this system
            read_only = False
        why = f"{folder} is on a read-only file system" if read_only else f"no permission to write in {folder}"
        raise InputError(f"cannot write the {what}: {why}", path)
    import tempfile

    try:  # os.access says yes to root everywhere, even on /proc: try it
        with tempfile.TemporaryFile(dir=folder, prefix=".emc-probe-"):
            pass
    except OSError as exc:
        raise InputError(f"cannot write the {what} in {folder}: {exc.strerror}", path) from None


def freed_hints_note(sp, board: Board | None) -> str:
    """The line saying which hints a sub-problem gave up (their cells are free) and whether
    ``board`` (None: no board) keeps them; :meth:`Subproblem.hints_not_kept` must be non-empty."""
    puzzle = sp.puzzle
    note = f"hints not kept (their cells are free): {', '.join(sp.hints_not_kept())}"
    if board is None:
        return note
    broken = [h for h in puzzle.hints if sp.free_mask[h.cell]
              and (board.piece[h.cell] != h.piece or board.rotation[h.cell] != h.rotation)]
    return note + (f"; the board breaks {', '.join(puzzle.cell_label(h.cell) for h in broken)}, so `emc verify` "
                   "calls it invalid for the puzzle (valid as an answer to this region)"
                   if broken else "; the board keeps them all the same")


#: --save-every's default, in seconds
SAVE_EVERY = 60.0


def save_every_arg(parser, default_help: str = "default 60") -> None:
    parser.add_argument("--save-every", type=non_negative_float, default=None, metavar="S",
                        help="with -o: write the best board there as the run improves it too, at most once every S "
                             f"seconds, so that a run killed outright keeps it ({default_help}; 0: only at the end)")


def check_save_every(args) -> None:
    if args.save_every is not None and not args.output:
        raise InputError("--save-every writes the best board to -o while the run goes on: give -o BOARD too")
    if args.save_every and args.output and is_special(args.output):
        raise InputError(f"--save-every replaces -o with each better board, and {args.output} is not a file (a "
                         "stream, device or FIFO takes each board after the last): give a file, or --save-every 0")


def save_seconds(args) -> float:
    """The saving interval a command's ``--save-every`` and ``-o`` give (0: none): the default
    with -o, none where -o is a stream or other special file (each save would add a board)."""
    if not args.output or is_special(args.output):
        return 0.0
    return SAVE_EVERY if args.save_every is None else args.save_every


class BoardSaver:
    """Keeps a run's best board on disk while the run goes on (``--save-every``), so that a run
    killed outright (SIGKILL, a crash, a machine switched off) leaves its best board behind.

    ``offer(board)`` from any thread hands over a better board; it is written through
    ``write(board, seconds into the run)`` at once when the last write is at least ``every``
    seconds old, else by a clock thread once it is (``write`` may decline a board, one that
    fails verification say, by returning False: the next one is then written at once). A
    write that fails (a full disk) is reported once and the run goes on. Leaving the ``with``
    block ends the saving, waiting for a write under way (through a second Ctrl-C too), so the
    caller's final write always comes last; boards offered later (a solver thread that
    outlives its stop) are dropped. ``every`` 0 saves nothing."""

    def __init__(self, every: float, write) -> None:
        import threading
        import time

        self.every = float(every)
        self._write, self._clock = write, time.perf_counter
        self._t0 = self._clock()
        self._last = -float("inf")
        self._pending = None  # (board, seconds into the run) not written yet
        self._closed = False
        self._warned = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None

    def __enter__(self) -> BoardSaver:
        import threading

        if self.every > 0:
            self._thread = threading.Thread(target=self._tick, name="emc-saver", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> bool:
        self._closed = True  # no write starts after this (flush looks under the lock)
        self._stop.set()
        again = None
        while True:
            try:
                with self._lock:  # a write under way ends first
                    pass
                if self._thread is not None:
                    self._thread.join()
                break
            except KeyboardInterrupt as e:  # a second Ctrl-C: wait all the same (a write takes milliseconds)
                again = e
        if again is not None and exc[0] is None:
            raise again
        return False

    def offer(self, board: Board, elapsed: float | None = None) -> None:
        if self.every <= 0:
            return
        with self._lock:
            if self._closed:
                return
            self._pending = (board, self._clock() - self._t0 if elapsed is None else elapsed)
        self.flush()

    def flush(self) -> None:
        with self._lock:  # held while writing: __exit__ waits for a write under way
            if self._closed or self._pending is None or self._clock() - self._last < self.every:
                return
            board, elapsed = self._pending
            self._pending = None
            try:
                tried = self._write(board, elapsed) is not False
            except (OSError, InputError) as exc:  # emc's writer reports a failed write as an InputError
                tried = True  # the next try waits its turn
                if not self._warned:
                    self._warned = True
                    why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                    err_console.print(f"emc: warning: could not save the best board during the run ({why}); the "
                                      "run goes on")
            if tried:
                self._last = self._clock()

    def _tick(self) -> None:
        while not self._stop.wait(min(1.0, max(self.every, 0.05))):
            self.flush()


def check_no_symmetry(args, sp) -> None:
    """Refuse --no-symmetry where symmetry breaking would not apply anyway (a region, a puzzle
    with hints, no corner piece): the flag would be silently ignored."""
    if getattr(args, "no_symmetry", False) and sp.symmetry_rule() is None and not getattr(args, "from_suite", False):
        why = ("the puzzle has hints" if sp.is_whole and sp.puzzle.hints else
               "this is a region (its fixed cells already pin the board)" if not sp.is_whole else
               "the puzzle has no corner piece to pin")
        raise InputError(f"--no-symmetry has no effect here: symmetry breaking applies to whole puzzles without hints "
                         f"only, and {why}")


def parse_options(items: list[str], option: str = "--option") -> dict:
    """``KEY=VALUE`` strings -> dict; values become int, float or bool when they look like one,
    and a JSON object or list when they start with ``{`` or ``[``. ``option`` names the flag in
    errors (``emc solve``'s ``--option``, the heuristics' ``--backend-option``)."""
    out: dict = {}
    for item in items:
        if "=" not in item:
            raise InputError(f"{option} {item!r}: expected KEY=VALUE")
        key, value = item.split("=", 1)
        key = key.strip().replace("-", "_")
        if not key:
            raise InputError(f"{option} {item!r}: empty key")
        if key in out:  # the later one would win without a word
            raise InputError(f"{option} {key} is given twice")
        if key == "cuts" or key.endswith(".cuts"):  # boards, which only the Python API can pass
            raise InputError(f"{option} {item!r}: no-good cuts are boards, which the heuristics pass to the backend "
                             "themselves; the command line cannot give them")
        v: object = value
        low = value.lower()
        if value.strip()[:1] in ("{", "["):  # a mapping or a list, as JSON: -O 'params={"linearization_level": 2}'
            try:
                v = json.loads(value, parse_int=parse_whole)
            except ValueError as exc:
                if not isinstance(exc, json.JSONDecodeError):  # a number too long for int()
                    raise InputError(f"{option} {shorten(item)!r}: {exc}") from None
                raise InputError(f"{option} {item!r}: the value is not valid JSON ({exc.msg} at column "
                                 f"{exc.colno})") from None
        elif low in ("true", "yes", "on"):
            v = True
        elif low in ("false", "no", "off"):
            v = False
        elif re.fullmatch(r"\s*-?[0-9]+\s*", value):
            v = read_whole(value.strip(), f"{option} {key}")
        else:
            with contextlib.suppress(ValueError):
                v = float(value)
        out[key] = v
    return out
