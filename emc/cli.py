"""The ``emc`` command line: ``emc COMMAND --help`` for each command's options and examples."""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading

from . import __version__
from .commands import MODULES
from .errors import EmcError

DESCRIPTION = """\
emc: edge-matching puzzles of the Eternity II family.

PUZZLE arguments take a file (Heule, 'W H' or emc JSON) or a shipped instance name
(`emc instances` lists them: set2-8x8, meta-10x10, eternity2, clue1, ...).
BOARD files are emc JSON or board_edges strings.
Sizes: a puzzle's is WIDTHxHEIGHT, as files and instance names write it (set2-8x5 is 8
wide, 5 high); a part of the board's (--region, --window) is ROWSxCOLS, rows first as in
cell labels like r2c5 (--region 2xW: two rows across the board)."""

EXAMPLES = """\
examples:
  emc instances
  emc info meta-16x16
  emc generate 16 16 --frame-colours 5 --inner-colours 17 --seed 1 -o p.txt --solution s.json
  emc verify p.txt s.json
  emc render p.txt s.json -o s.png --numbers"""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors, like every other error emc reports: the same ``emc:
    error:`` prefix, then the command, the reason and where to look (argparse's default prints
    the whole usage block first, and starts the line with "emc solve:")."""

    def error(self, message: str):
        command = self.prog.removeprefix("emc").strip()
        what = "options" if command else "commands"
        self.exit(2, f"emc: error: {command + ': ' if command else ''}{message} (`{self.prog} --help` lists the "
                     f"{what})\n")


#: The optional libraries and the extra that installs each (pyproject.toml).
OPTIONAL_MODULES = {"pulp": "milp", "highspy": "milp", "ortools": "cpsat", "pysat": "sat", "minizinc": "minizinc",
                    "numba": "fast", "networkx": "graph"}


def build_parser() -> argparse.ArgumentParser:
    from .commands.common import HelpFormatter

    parser = Parser(prog="emc", description=DESCRIPTION, epilog=EXAMPLES, formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"emc {__version__}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in MODULES:
        importlib.import_module(name).register(sub)
    return parser


_TERMINATED = False  # set when SIGTERM stopped the command (it then exits 143, not 130)


def _stop_as_for_ctrl_c(signum, frame) -> None:
    """SIGTERM (``timeout``, ``kill``, a batch scheduler) stops a run as Ctrl-C does: it still
    reports, saves its best board and removes its half-written files."""
    global _TERMINATED
    _TERMINATED = True
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:  # SIGINT ignored (nohup, a background job): a stop all the same
        from .runtime import note_interrupt

        note_interrupt()
        raise KeyboardInterrupt


def entry() -> None:
    """The ``emc`` command: :func:`main`, then exit with its code, without waiting for a solver
    thread a Ctrl-C left running in the background (see ``runtime.BACKGROUND_THREADS``;
    the board is saved by then, and such a thread would abort the interpreter's shutdown).

    An interrupted command (130, 143) also leaves without the interpreter's shutdown: when the
    Ctrl-C landed while a library ran Python code from C (loading numba's compiled kernels, in
    the first second of ``emc count``), CPython marks the KeyboardInterrupt as unhandled even
    though the command caught it, and its shutdown then killed the process with SIGINT: exit -2
    instead of 130, after the report was printed (``emc count set2-8x8`` with a Ctrl-C at 0.5 s:
    3 times in 8)."""
    for stream in (sys.stdout, sys.stderr):
        # A terminal or pipe whose encoding cannot show a character (PYTHONIOENCODING=ascii and a
        # puzzle file named "é.txt") gets a "?" there, not a UnicodeEncodeError traceback.
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="replace")
            except (ValueError, OSError):
                pass
    code = main()
    # The command has reported and written its files: a Ctrl-C or SIGTERM from here on would only
    # turn a finished run into one killed by the signal (exit -2) in the interpreter's shutdown.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    from .runtime import background_threads_alive

    if background_threads_alive() or code in (130, 143):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def _reader_gone(stream) -> bool:
    """Whether ``stream`` is a pipe whose reader has gone (poll says so: its write end reports an
    error); if so, it is pointed at /dev/null, so that what is left for it is dropped."""
    import select

    try:
        fd = stream.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        gone = any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # no descriptor, or no poll on this system
        return False
    if gone:
        from .io import drop_output

        drop_output(fd)
    return gone


def _interrupt_not_lost(hook_args) -> None:
    """``sys.unraisablehook`` of a command: a Ctrl-C (or SIGTERM) whose KeyboardInterrupt was
    raised in Python code that C called back (llvmlite's object cache while numba loads or
    compiles a kernel) cannot propagate; Python printed "Exception ignored in ..." with a
    traceback and the interrupt was lost. It is delivered again to the main thread instead,
    silently, a moment later (from another thread: delivered now, it would land in this hook,
    still inside the callback); anything else goes to the default hook."""
    if isinstance(hook_args.exc_value, KeyboardInterrupt):
        import _thread
        import time

        left = threading.Event()

        def again() -> None:
            left.wait()  # counted from the hook's return: Thread.start() itself waits, and may be slow
            time.sleep(0.02)
            _thread.interrupt_main(signal.SIGINT)  # runs the SIGINT handler (SIGTERM's too) again

        threading.Thread(target=again, name="emc-interrupt", daemon=True).start()
        left.set()
        return
    sys.__unraisablehook__(hook_args)


def main(argv: list[str] | None = None) -> int:
    if threading.current_thread() is not threading.main_thread():
        return _main(argv)
    global _TERMINATED
    _TERMINATED = False
    previous = signal.signal(signal.SIGTERM, _stop_as_for_ctrl_c)
    hook, sys.unraisablehook = sys.unraisablehook, _interrupt_not_lost
    try:
        code = _main(argv)
        # The shell's convention, 128 + signal number: 130 after Ctrl-C, 143 after SIGTERM.
        return 143 if code == 130 and _TERMINATED else code
    finally:
        sys.unraisablehook = hook
        signal.signal(signal.SIGTERM, previous)


def _compile_note(before: float) -> None:
    """Say where the seconds went when numba compiled emc's kernels in this run (a cold cache),
    since no time limit covers them (``before``: the compile seconds when the run began)."""
    from ._compile_clock import seconds

    spent = seconds() - before
    if spent >= 0.5:
        print(f"emc: note: {spent:.1f} s of this run went to compiling emc's kernels (numba; the first run after "
              "installing, or with a new NUMBA_CACHE_DIR); later runs load them from the cache", file=sys.stderr)


def _main(argv: list[str] | None) -> int:
    try:
        # Building the parser imports every command's module (numpy, rich, ...): the first few
        # tenths of a second of a run, where a Ctrl-C gave a traceback instead of this message.
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
    except KeyboardInterrupt:
        print("emc: interrupted", file=sys.stderr)
        return 130
    if not hasattr(args, "func"):
        parser.print_help()
        return 2
    if extra:  # named after the command they were given to, not after "emc"
        args.parser.error(f"unrecognized arguments: {' '.join(extra)}")
    from . import runtime

    redirect = runtime.REDIRECT_C_STDOUT
    runtime.REDIRECT_C_STDOUT = True  # stdout carries the command's results only
    try:
        from .commands.common import (check_environment, check_inputs_kept, check_no_empty_names,
                                      report_clear_of_stdout)

        check_environment()
        check_no_empty_names(args)
        check_inputs_kept(args)
        from ._compile_clock import seconds

        compiled_before = seconds()
        try:
            with report_clear_of_stdout(args):
                return int(args.func(args) or 0)
        finally:
            if getattr(args, "compile_note", True):
                _compile_note(compiled_before)
    except EmcError as exc:
        print(f"emc: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("emc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError as exc:
        # The reader went away (`emc count ... | head`): what is still buffered for it goes
        # nowhere, as in any shell tool, instead of failing again at exit. A pipe that is not a
        # standard stream's is an error like any other.
        if not (_reader_gone(sys.stdout) or _reader_gone(sys.stderr)):
            print(f"emc: error: {exc.strerror or exc}", file=sys.stderr)
            return 1
        return 0
    except ModuleNotFoundError as exc:  # an optional solver library this install lacks
        extra = OPTIONAL_MODULES.get((exc.name or "").split(".")[0])
        if extra is None:
            raise
        print(f"emc: error: this needs the Python package {exc.name.split('.')[0]!r}, which is not installed: "
              f"pip install 'emc[{extra}]' (from emc's folder: pip install '.[{extra}]')", file=sys.stderr)
        return 2
    except OSError as exc:  # a file system problem no command foresaw: still one line
        import errno

        where = f"{exc.filename}: " if exc.filename else ""
        print(f"emc: error: {where}{exc.strerror or exc}", file=sys.stderr)
        # a name that cannot be a file is bad input (2), like the errors the commands foresee
        return 2 if exc.errno in (errno.ENAMETOOLONG, errno.ENOTDIR, errno.ENOENT, errno.EISDIR) else 1
    finally:
        runtime.REDIRECT_C_STDOUT = redirect


if __name__ == "__main__":
    entry()
