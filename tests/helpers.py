"""Puzzles and harnesses the tests share."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

import emc
from emc.model import Goal, PieceClass, Subproblem


#: A count as :func:`emc.backends.base.count_text` writes it ("812", "45.3 thousand", ...).
COUNT = r"[\d.]+(?: thousand| million| billion)?"


def counted(text: str) -> float:
    """The number a :data:`COUNT` stands for."""
    num, _, word = text.partition(" ")
    return float(num) * {"": 1, "thousand": 1e3, "million": 1e6, "billion": 1e9}[word]


def unsolvable(puzzle: emc.Puzzle) -> emc.Puzzle:
    """The puzzle with one inner side recoloured to a new colour: no perfect board exists,
    while every piece still fits the frame as before."""
    pieces = puzzle.pieces.copy()
    inner = int(np.flatnonzero(puzzle.piece_class == PieceClass.INNER)[0])
    pieces[inner, 0] = puzzle.max_colour + 1
    return emc.Puzzle(puzzle.width, puzzle.height, pieces, (), puzzle.name + "-broken")


def unsolvable_optimisation(name: str) -> Subproblem:
    """A shipped puzzle made :func:`unsolvable`, whole, to optimise: a solver must bring its
    bound down from a perfect board, which gives progress lines to look at."""
    return Subproblem.whole(unsolvable(emc.load(name)), Goal.OPTIMISATION)


def ctrl_c_after_first_board(tmp_path: Path, backend: str, **solve_options) -> tuple[int, list[str]]:
    """Optimise set 2's 8x8 with ``backend`` in a fresh Python process, send it SIGINT once
    the first board is reported, and check it exits cleanly (status 0, no traceback).
    Returns (score of that first board, [status, score, interrupted, board valid] printed
    after the solve returned)."""
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(f"""
        import emc
        from emc.backends import get_backend
        from emc.model import Goal, Subproblem
        P = emc.load("set2-8x8")
        def seen(board, obj):
            print("improved", obj, flush=True)
        r = get_backend({backend!r}).solve(Subproblem.whole(P, Goal.OPTIMISATION), time_limit=120,
                                           on_improvement=seen, **{solve_options!r})
        print("RESULT", r.status.value, r.objective, r.interrupted, emc.verify(P, r.board).valid, flush=True)
    """))
    env = dict(os.environ, PYTHONPATH=str(Path(emc.__file__).resolve().parent.parent))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    line = proc.stdout.readline()  # the first board has been reported
    assert line.startswith("improved"), proc.stderr.read()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "Traceback" not in err, err
    result = [ln for ln in out.splitlines() if ln.startswith("RESULT")][0].split()
    return int(line.split()[1]), result[1:]


def eventually(condition, timeout: float = 30.0) -> bool:
    """Whether ``condition()`` holds within ``timeout`` seconds, polled (for what happens
    asynchronously, such as a killed process's children ending; no speed is asserted)."""
    import time

    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.1)
    return True


def solver_processes(*marks: str) -> set[int]:
    """PIDs of running processes whose command line holds one of ``marks`` (emc's temporary
    folder prefixes, such as ``emc-cbc-``, or the files MiniZinc writes): only emc's own solver
    processes, wherever they were reparented."""
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    found = set()
    for line in out.splitlines():
        pid, _, args = line.strip().partition(" ")
        if any(m in args for m in marks) and "ps -eo" not in args:
            found.add(int(pid))
    return found
