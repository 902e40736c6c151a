"""Bad input and risky outputs from the command line: one-line errors naming the file, the
line and the reason, refused before any work, and SIGTERM stopping a run as Ctrl-C does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import textwrap

import pytest

import emc
from emc.runtime import leave_signals_to_parent, process_context, start_child
from emc.cli import _stop_as_for_ctrl_c
from emc.formats import read_board, write_board
from helpers import eventually

W_H_4X4 = emc.load("set2-4x4")


def _wh(path, pieces, header="4 4", prefix=b""):
    text = header + "\n" + "\n".join(" ".join(str(int(c)) for c in row) for row in pieces) + "\n"
    path.write_bytes(prefix + text.encode())
    return path


def _error(r) -> str:
    assert r.code == 2 and r.out == "", r
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.err, r.err
    return lines[0]


def test_odd_puzzle_and_board_files_get_one_line_with_their_line(cli, tmp_path):
    """What a fuzzing read-through found: each was a traceback or a wrong message."""
    doc = json.loads(emc.formats.format_puzzle(W_H_4X4, "json"))
    doc.pop("sha256")

    def puzzle_json(**changes):
        d = {**doc, **changes}
        f = tmp_path / "p.json"
        f.write_text(json.dumps(d, indent=1))
        return _error(cli("info", f))

    assert "'hints' must be a list of [row, col, piece, rotation], not null" in puzzle_json(hints=None)
    assert "'hints' must be a list" in puzzle_json(hints=5)
    assert "a hint is [row, col, piece, rotation]" in puzzle_json(hints=[[True, True, True, False]])
    assert "'provenance' must be an object, not \"x\"" in puzzle_json(provenance="x")
    assert "'name' must be a string, not {\"a\": 1}" in puzzle_json(name={"a": 1})
    assert "format version null: a version is a whole number from 1" in puzzle_json(version=None)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    assert _error(cli("info", deep)).endswith("deep.json: invalid JSON: nested too deeply")
    deep.write_text('{"format": "emc-board", "x": ' + "[" * 100000 + "]" * 100000 + "}")
    assert _error(cli("verify", "set2-4x4", deep)).endswith("deep.json: invalid JSON: nested too deeply")
    # text formats: digits only, lines as the editor counts them, the line of a bad byte
    text = emc.formats.format_puzzle(W_H_4X4, "wh").split("\n")
    for token in ("1_0", "+5", "\u0665"):
        f = tmp_path / "t.txt"
        f.write_text("\n".join(text[:4] + [f"{token} 1 1 1"] + text[5:]))
        assert _error(cli("info", f)) == f"emc: error: {f}:5: colour: {token!r} is not a whole number"
    f = tmp_path / "ff.txt"
    f.write_text("\n".join(text[:2] + [text[2] + "\f"] + text[3:4] + ["x 1 1 1"] + text[5:]))
    assert _error(cli("info", f)) == f"emc: error: {f}:5: colour: 'x' is not a whole number"
    f = tmp_path / "bytes.txt"
    f.write_bytes("\n".join(text[:4]).encode() + b"\n1 \xff 1 1\n")
    assert _error(cli("info", f)) == f"emc: error: {f}:5: byte 0xff is not UTF-8 text"
    for first, words in (("4x4", "a 'W H' header is two numbers: '4 4'"), ("null", "expected a hint count (Heule)"),
                         ("abcd" * 16, "this is a board (a board_edges string), not a puzzle")):
        f = tmp_path / "first.txt"
        f.write_text(first + "\n" + "\n".join(text[1:]))
        assert words in _error(cli("info", f)), first
    # a board whose puzzle entry or size has the wrong type
    board = tmp_path / "b.json"
    write_board(emc.Board.from_hints(W_H_4X4), W_H_4X4, board)
    b = json.loads(board.read_text())
    for key, value, words in (("puzzle", "set2-4x4", "'puzzle' must be an object"),
                              ("puzzle", {"name": "x", "sha256": 5}, "'puzzle' must be an object"),
                              ("width", "4", "'width' must be a whole number, not \"4\""),
                              ("width", None, "'width' must be a whole number, not null")):
        board.write_text(json.dumps({**b, key: value}, indent=1))
        assert words in _error(cli("verify", "set2-4x4", board, "--partial")), (key, value)


def test_long_time_limits_and_large_seeds_do_not_overflow_a_solver(cli):
    """A 25-day limit overflowed the SAT backend's poll and MiniZinc's 32-bit milliseconds (it
    answered UNKNOWN at once); a seed of 2^31 reached CP-SAT as a TypeError."""
    import emc.backends

    for backend in ("sat", "maxsat", "minizinc"):
        if not emc.backends.get_backend(backend).available():
            continue  # MiniZinc is a Debian package the test command installs
        r = cli("solve", "set2-3x3", "-b", backend, "-t", "2200000", "--json")
        assert r.code == 0 and json.loads(r.out)["status"] == "optimal", (backend, r)
    r = cli("count", "set2-3x3", "-b", "sat", "-t", "2200000")
    assert r.code == 0 and "solution" in r.out, r
    r = cli("solve", "set2-3x3", "-b", "cpsat", "--seed", 2**31)
    assert r.code == 2 and "solver seeds are 0 to 2147483647" in r.err, r
    assert cli("solve", "set2-3x3", "-b", "cpsat", "--seed", 2**31 - 1).code == 0
    r = cli("solve", "set2-4x4", "-b", "portfolio", "--seed", 2**31 - 1, "--json")  # member 2 wraps to seed 0
    assert r.code == 0 and "errors" not in json.loads(r.out).get("stats", {}), r
    with pytest.raises(emc.InputError, match="the seed is at most 2,147,483,647"):
        emc.backends.get_backend("highs").solve(emc.Subproblem.whole(emc.load("set2-3x3")), seed=2**31)


def test_solver_settings_are_checked_before_the_header(cli):
    """Values CP-SAT or the MILP encoder refuse only showed after the header was printed; flags a
    backend does not take were called unknown -O options."""
    for args, words in ((("-b", "cpsat", "--threads", "1000000"), "1000000 is more than 1024 threads"),
                        (("-b", "cpsat", "-O", 'params={"num_violation_ls": -5}'), "CP-SAT params: parameter 'num_violation_ls'"),
                        (("-b", "highs", "-O", "linking=nope"), "unknown MILP linking 'nope'"),
                        (("-b", "backtrack", "--variant", "nope"), "backend 'backtrack' has no formulation variants"),
                        (("-b", "backtrack", "--solver", "x"), "backend 'backtrack' has no sub-solvers to choose")):
        r = cli("solve", "set2-3x3", *args)
        assert r.code == 2 and r.out == "" and words in r.err, (args, r)


def test_output_names_that_promise_another_format_are_refused(cli, tmp_path):
    board = tmp_path / "b.json"
    assert cli("solve", "set2-3x3", "-o", board).code == 0
    r = cli("convert", board, "--puzzle", "set2-3x3", "--to", "json", "-o", tmp_path / "x.edges")
    assert r.code == 2 and "the file name says edges (board_edges), --to says json" in r.err, r
    r = cli("construct", "set2-3x3", "--result", tmp_path / "r.csv", "-o", tmp_path / "c.json")
    assert r.code == 2 and "the result file is JSON: name it .json, not .csv" in r.err, r
    assert cli("construct", "set2-3x3", "-q", "--result", tmp_path / "r.json.gz").code == 0  # gzipped JSON
    for other in ("r.lp", "r.mps", "r.cnf"):  # any other suffix promises another format (only some were refused)
        r = cli("construct", "set2-3x3", "-q", "--result", tmp_path / other)
        assert r.code == 2 and f"name it .json, not .{other.split('.')[1]}" in r.err and not (tmp_path / other).exists()
    assert not (tmp_path / "x.edges").exists() and not (tmp_path / "c.json").exists()


def test_a_board_past_z_converted_to_letters_names_the_puzzle(cli, tmp_path):
    """board_edges has letters up to 'z': converting a board of a puzzle with more colours says so
    in one line naming the puzzle file (it named no file), printed or written."""
    puzzle, solution = emc.generate(4, 4, frame_colours=3, inner_colours=30, seed=1)
    assert puzzle.max_colour > 25
    pz, bd = tmp_path / "p.txt", tmp_path / "s.json"
    emc.write_puzzle(puzzle, pz)
    emc.write_board(solution, puzzle, bd)
    for out in ((), ("-o", tmp_path / "s.edges")):
        r = cli("convert", bd, "--puzzle", pz, "--to", "edges", *out)
        assert r.code == 2 and r.out == "" and r.err.strip().startswith(f"emc: error: {pz}: board_edges has letters"), r
        assert len(r.err.strip().splitlines()) == 1
    assert not (tmp_path / "s.edges").exists()


@pytest.mark.parametrize("command", ["construct", "matheuristic", "improve", "solve"])
def test_save_every_without_an_output_is_refused(cli, tmp_path, command):
    board = tmp_path / "b.json"
    assert cli("construct", "set2-3x3", "-q", "-o", board).code == 0
    args = [board] if command == "improve" else []
    r = cli(command, "set2-3x3", *args, "--save-every", 5)
    if command == "construct":  # it has one board, at its end: nothing to save during the run (its help said otherwise)
        assert r.code == 2 and "unrecognized arguments: --save-every 5" in r.err, r
        assert "--save-every" not in cli("construct", "--help").out
        return
    assert r.code == 2 and "--save-every writes the best board to -o" in r.err and r.err.count("\n") == 1, r
    r = cli(command, "set2-3x3", *args, "--save-every", "-1")
    assert r.code == 2 and "--save-every" in r.err and "Traceback" not in r.err, r


def test_a_missing_optional_library_is_one_line_with_its_extra(cli, tmp_path, monkeypatch):
    """On an install without the MILP extra, exporting lp was a ModuleNotFoundError traceback."""
    import builtins

    real = builtins.__import__

    def without_pulp(name, *args, **kwargs):
        if name.split(".")[0] == "pulp":
            raise ModuleNotFoundError("No module named 'pulp'", name="pulp")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_pulp)
    r = cli("export", "set2-4x4", "-f", "lp", "-o", tmp_path / "x.lp")
    assert _error(r).startswith("emc: error: this needs the Python package 'pulp'") and "emc[milp]" in r.err
    # a suite finds out before it writes anything (it used to leave its puzzles/ folder behind)
    r = cli("suite", "-o", tmp_path / "s", "--instances", "set2-4x4", "--formats", "cnf,lp")
    assert _error(r).startswith("emc: error: this needs the Python package 'pulp'") and "emc[milp]" in r.err
    assert not (tmp_path / "s").exists()


def test_endless_input_is_refused_without_reading_it_all(cli):
    assert _error(cli("info", "/dev/zero")) == "emc: error: /dev/zero: larger than 256 MB: not a file emc reads"


def test_huge_numbers_are_refused_with_their_line(cli, tmp_path):
    pieces = W_H_4X4.pieces.astype(object).copy()
    pieces[3, 2] = 10**20
    f = _wh(tmp_path / "p.txt", pieces)
    assert _error(cli("info", f)) == f"emc: error: {f}:5: colour {10**20} is too large (at most 255)"
    doc = json.loads(emc.formats.format_puzzle(W_H_4X4, "json"))
    doc["pieces"][4][0] = 10**30
    doc.pop("sha256")
    j = tmp_path / "p.json"
    j.write_text(json.dumps(doc))
    assert "piece 5: colour 1000000000000000000000000000000 is too large" in _error(cli("info", j))
    board = tmp_path / "b.json"
    write_board(emc.Board.from_hints(W_H_4X4), W_H_4X4, board)
    b = json.loads(board.read_text())
    b["pieces"][0][0] = 10**30
    board.write_text(json.dumps(b, indent=1))
    msg = _error(cli("verify", "set2-4x4", board, "--partial"))
    assert msg.startswith(f"emc: error: {board}:") and msg.endswith(f"pieces row 1: {10**30} is out of range")
    b["pieces"][0][0] = "x"
    board.write_text(json.dumps(b, indent=1))
    assert _error(cli("verify", "set2-4x4", board, "--partial")).endswith('pieces row 1: "x" is not a whole number')


def test_a_byte_order_mark_is_read_past(cli, tmp_path):
    f = _wh(tmp_path / "bom.txt", W_H_4X4.pieces, prefix="\ufeff".encode())
    assert emc.read_puzzle(f).sha256 == W_H_4X4.sha256
    assert cli("info", f).code == 0


def test_a_hint_that_shows_the_border_inside_is_refused(cli, tmp_path):
    corner = next(p for p in range(16) if (W_H_4X4.pieces[p] == 0).sum() == 2)
    good = next(k for k in range(4) if W_H_4X4.fits[corner, 0, k])
    f = tmp_path / "h.txt"
    rows = "\n".join(" ".join(map(str, r)) for r in W_H_4X4.pieces)
    f.write_text(f"1\n1 1 {corner + 1} {good}\n{rows}\n")
    assert cli("info", f).code == 0
    bad = (good + 1) % 4
    f.write_text(f"1\n1 1 {corner + 1} {bad}\n{rows}\n")
    msg = _error(cli("info", f))
    assert msg.startswith(f"emc: error: {f}:2: hint: piece {corner + 1} turned {bad} on r1c1 shows ")
    puzzle = W_H_4X4.with_hints([emc.Hint(5, corner, good)])  # a corner piece on an inner cell
    assert "shows the border colour" in " ".join(puzzle.structure_problems())


def test_puzzle_json_of_another_version_or_with_a_stale_hash_is_refused(cli, tmp_path):
    doc = json.loads(emc.formats.format_puzzle(W_H_4X4, "json"))
    j = tmp_path / "p.json"
    j.write_text(json.dumps(dict(doc, version=99), indent=2))
    assert "format version 99 is not one this emc reads" in _error(cli("info", j))
    doc["pieces"][0], doc["pieces"][1] = doc["pieces"][1], doc["pieces"][0]
    j.write_text(json.dumps(doc, indent=2))
    msg = _error(cli("info", j))
    assert msg.startswith(f"emc: error: {j}:") and "do not match the file's sha256" in msg
    doc.pop("sha256")
    j.write_text(json.dumps(doc, indent=2))
    assert cli("info", j).code == 0


def test_outputs_that_would_collide_or_lie_are_refused_before_the_work(cli, tmp_path):
    b = tmp_path / "b.json"
    assert "the log and the board would be written to the same file" in _error(
        cli("solve", "set2-4x4", "-o", b, "--log", tmp_path / "." / "b.json"))
    assert "the result and the board would be written to the same file" in _error(
        cli("construct", "set2-4x4", "-t", 5, "-o", b, "--result", b))
    assert "not a picture: draw it with --render" in _error(cli("solve", "set2-4x4", "-o", tmp_path / "b.png"))
    # text written under a picture's name, by the commands without --render too
    assert "draw it with `emc render`" in _error(cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 3,
                                                      "-o", tmp_path / "g.txt", "--solution", tmp_path / "g.png"))
    for args in (("convert", "set2-4x4", "--to", "json", "-o", tmp_path / "p.pdf"),
                 ("export", "set2-4x4", "--format", "cnf", "-o", tmp_path / "f.png"),
                 ("solve", "set2-4x4", "--log", tmp_path / "l.svg")):
        assert "is a text file, not a picture" in _error(cli(*args)), args
    assert not list(tmp_path.glob("*.p*")) and not (tmp_path / "l.svg").exists()
    # a board's format follows its suffix: one naming neither board format is refused, not
    # answered with JSON under a .csv name
    assert "a board file is emc JSON (.json) or a board_edges string (.edges or .txt), not .csv" in _error(
        cli("solve", "set2-4x4", "-o", tmp_path / "b.csv"))
    assert "not .CSV" in _error(cli("improve", "set2-4x4", tmp_path / "start.json", "-o", tmp_path / "b.CSV"))
    assert "a solution file is emc JSON" in _error(cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 3,
                                                       "-o", tmp_path / "g.txt", "--solution", tmp_path / "g.yaml"))
    p = tmp_path / "p.txt"
    assert "the solution and the puzzle would be written to the same file" in _error(
        cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 3, "-o", p, "--solution", p))
    assert "solution path is a folder" in _error(
        cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 3, "-o", p, "--solution", tmp_path))
    assert not p.exists() and not b.exists()  # nothing was written
    assert "compresses with gzip only: name the file" in _error(
        cli("export", "set2-4x4", "--format", "cnf", "-o", tmp_path / "x.cnf.bz2"))
    assert "the file name says mps, --format says lp" in _error(
        cli("export", "set2-4x4", "--format", "lp", "-o", tmp_path / "x.mps"))
    assert "the file name says wcnf-old, --format says wcnf" in _error(
        cli("export", "set2-4x4", "--format", "wcnf", "-o", tmp_path / "x.wcnf-old"))
    # text under a .json name, which every reader would then refuse as JSON
    assert "the file name says json, --format says wh" in _error(
        cli("generate", 3, 3, "--frame-colours", 2, "--inner-colours", 2, "-o", tmp_path / "g.json", "--format", "wh"))
    assert "the file name says json, --to says edges" in _error(
        cli("convert", "some.edges", "--puzzle", "set2-4x4", "--to", "edges", "-o", tmp_path / "b.json"))
    for fmt, name in (("mzn", "x.mzn.gz"), ("cpsat", "x.pb.gz")):  # their readers take no gzip
        assert f"{fmt} files are not read gzipped" in _error(
            cli("export", "set2-4x4", "--format", fmt, "-o", tmp_path / name))
    assert "standard output, '-', is not supported" in _error(cli("export", "set2-4x4", "--format", "cnf", "-o", "-"))
    assert "--formats names no format" in _error(cli("suite", "-o", tmp_path / "s", "--instances", "set2-4x4",
                                                     "--formats", ""))
    assert "--max-cells 4 leaves no puzzle" in _error(cli("suite", "-o", tmp_path / "s", "--instances", "set2-4x4",
                                                          "--formats", "cnf", "--max-cells", 4))
    assert "give --keep" in _error(cli("count", "set2-4x4", "--out-dir", tmp_path / "sols"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_a_folder_that_cannot_be_written_is_found_before_the_work(cli):
    """/proc takes no new files, whatever os.access says to root: emc tries before solving."""
    assert "cannot write the board in /proc" in _error(cli("solve", "set2-4x4", "-o", "/proc/emc-test.json"))


def _read_only_folder():
    """A folder on a file system mounted read-only, if this machine has one (containers do)."""
    with open("/proc/mounts") as f:
        for line in f:
            parts = line.split()
            if len(parts) > 3 and "ro" in parts[3].split(",") and os.path.isdir(parts[1]) \
                    and not os.access(parts[1], os.W_OK):
                return parts[1]
    return None


def test_a_read_only_file_system_is_named_as_such(cli):
    """Writing under a read-only mount said "no permission", which sends people to chmod."""
    folder = _read_only_folder()
    if folder is None:
        pytest.skip("no read-only mount on this machine")
    msg = _error(cli("export", "set2-3x3", "-f", "cnf", "-o", os.path.join(folder, "x.cnf")))
    assert msg.endswith(f"cannot write the output: {folder} is on a read-only file system"), msg


def test_a_fixed_board_against_a_hint_is_refused_and_freed_hints_are_reported(cli, tmp_path):
    puzzle = emc.load("set2-5x5")
    sol = tmp_path / "s.json"
    assert cli("solve", "set2-5x5", "-o", sol).code == 0
    b = read_board(sol, puzzle)
    hinted = puzzle.with_hints([emc.Hint(6, int(b.piece[6]), int(b.rotation[6]))], name="hinted")
    pf = tmp_path / "hinted.json"
    emc.formats.write_puzzle(hinted, pf, "json")
    turned = b.copy()
    turned.place(6, int(b.piece[6]), (int(b.rotation[6]) + 1) % 4)
    bad = tmp_path / "bad.json"
    write_board(turned, hinted, bad)
    msg = _error(cli("solve", pf, "--fixed", bad, "--free", "r3c3"))
    assert msg.startswith(f"emc: error: {bad}: r2c2: the fixed board has piece {b.piece[6] + 1} turned ")
    assert msg.endswith("(free r2c2 to re-solve it)")
    r = cli("solve", pf, "--fixed", bad, "--free", "r2c2,r3c3", "-b", "sat")
    assert r.code == 0 and "verified independently: valid" in r.out
    assert "hints not kept (their cells are free): r2c2; the board keeps them all the same" in r.out
    # A hint no perfect board keeps (the solution's piece, turned): freeing its cell gives a board
    # that answers the region and breaks the hint, which emc verify then refuses; solve says so.
    wrong = puzzle.with_hints([emc.Hint(6, int(b.piece[6]), (int(b.rotation[6]) + 1) % 4)], name="wrong-hint")
    wf, out = tmp_path / "wrong.json", tmp_path / "answer.json"
    emc.formats.write_puzzle(wrong, wf, "json")
    write_board(b, wrong, sol)
    r = cli("solve", wf, "--fixed", sol, "--free", "r2c2", "-b", "sat", "-o", out)
    assert r.code == 0 and "verified independently: valid" in r.out
    assert ("hints not kept (their cells are free): r2c2; the board breaks r2c2, so `emc verify` calls it invalid"
            in r.out), r.out
    r = cli("verify", wf, out)
    assert r.code == 1 and "r2c2: hint wants piece" in r.out + r.err


def _first_line_with(stream, words: str) -> str:
    """Read ``stream`` up to the first line holding ``words`` (what was read is returned);
    the process's own time limit ends the wait if it never comes."""
    seen = ""
    for line in iter(stream.readline, ""):
        seen += line
        if words in line:
            return seen
    raise AssertionError(f"no line with {words!r} in: {seen}")


def test_sigterm_stops_a_solve_as_ctrl_c_does(tmp_path):
    """``timeout`` and batch schedulers send SIGTERM: the run still reports and saves its deepest
    partial fill, and its processes end with it."""
    out = tmp_path / "deep.json"
    proc = subprocess.Popen([sys.executable, "-u", "-m", "emc", "solve", "set2-8x8", "-o", str(out), "-t", "300",
                             "--progress-every", "0.5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    header = proc.stdout.readline()
    assert "backend backtrack" in header, header + proc.stderr.read()
    first = _first_line_with(proc.stderr, "nodes")  # the search is under way: it has placed pieces
    proc.send_signal(signal.SIGTERM)
    rest, err = proc.communicate(timeout=60)
    err = first + err
    assert proc.returncode == 143, err  # 128 + SIGTERM, though the search caught the signal itself
    assert "(interrupted)" in rest and "deepest partial fill" in rest and "Traceback" not in err
    puzzle = emc.load("set2-8x8")
    assert emc.verify(puzzle, read_board(out, puzzle), allow_partial=True).valid


def _slow_to_set_its_handlers(q) -> None:
    time.sleep(0.5)  # the parent's SIGTERM comes before this child has its own handlers
    leave_signals_to_parent()
    q.put("went on")  # not reached: the SIGTERM held back until now ends the process


def test_a_worker_stopped_before_it_set_its_handlers_ends_as_meant():
    """The CLI's SIGTERM handler raises KeyboardInterrupt, and a forked worker begins with it: a
    worker terminated before its target set its own handlers used to lose the signal and go on
    (exit code 0, "went on" sent) or raise (exit code 1, with a traceback) rather than end.
    start_child holds SIGINT and SIGTERM back until the worker has set them."""
    ctx = process_context()
    q = ctx.Queue()
    previous = signal.signal(signal.SIGTERM, _stop_as_for_ctrl_c)  # the CLI's own, as `emc solve` sets it
    try:
        p = ctx.Process(target=_slow_to_set_its_handlers, args=(q,), daemon=True)
        start_child(p)
        p.terminate()
        p.join(30)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert p.exitcode == -signal.SIGTERM
    assert q.empty()


def test_a_ctrl_c_while_the_command_line_starts_is_reported_in_one_line(monkeypatch, capsys):
    """Building the parser imports every command's module, the first tenths of a second of any
    run: a Ctrl-C there gave a traceback. (The package itself now loads in a few hundredths:
    tests/test_api.py.)"""
    import emc.cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(emc.cli, "build_parser", interrupted)
    assert emc.cli.main(["info", "set2-4x4"]) == 130
    assert capsys.readouterr().err == "emc: interrupted\n"


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    kids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                kids.add(int(entry))
    return kids


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="dying with the parent is Linux's PR_SET_PDEATHSIG")
def test_the_backtrack_search_processes_die_with_a_killed_parent():
    """A parent killed outright (SIGKILL, the kernel's out-of-memory killer) cannot stop its
    workers: the scan-row search's two processes ran on under init until their deadline, or for
    ever without one. They now die with it, as the portfolio's and the SAT backend's do."""
    proc = subprocess.Popen([sys.executable, "-u", "-m", "emc", "solve", "set2-8x8", "-b", "backtrack",
                             "--threads", "2", "--progress-every", "0.5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _first_line_with(proc.stderr, " nodes")  # a progress line with nodes: the workers are searching
        workers = _children(proc.pid)
        assert len(workers) >= 2
    finally:
        proc.kill()
        proc.communicate(timeout=60)
    assert eventually(lambda: not any(_running(w) for w in workers))


@pytest.mark.parametrize("backend", ["backtrack", "sat"])
def test_ctrl_c_stops_a_count_with_its_lower_bound(backend):
    """Both counting backends catch Ctrl-C to report what they counted: the count is printed as
    a lower bound and the command still exits with 130, as an interrupted command should."""
    proc = subprocess.Popen([sys.executable, "-u", "-m", "emc", "count", "set2-8x8", "-b", backend, "-t", "300",
                             "--progress-every", "0.5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    _first_line_with(proc.stderr, "[")  # a progress line: the count is under way
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "set2-8x8: at least " in out and "the count is a lower bound" in out and "Traceback" not in err


@pytest.mark.slow
def test_ctrl_c_on_a_json_solve_says_it_stopped_the_run():
    """solve --json after Ctrl-C: "interrupted" as after a time limit, "stopped_by" tells them apart."""
    proc = subprocess.Popen([sys.executable, "-u", "-m", "emc", "solve", "set2-8x8", "-t", "300", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(3)  # --json prints no progress to wait for; whenever it comes, Ctrl-C must end the run so
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    d = json.loads(out)
    assert d["interrupted"] is True and d["stopped_by"] == "interrupt" and d["status"] == "unknown", d


@pytest.mark.slow
def test_a_ctrl_c_raised_where_python_cannot_propagate_it_is_not_lost():
    """A Ctrl-C landing in Python code that C calls back (llvmlite's object cache, while numba
    loads a kernel) raised a KeyboardInterrupt Python can only print ("Exception ignored in ...",
    a traceback on a count's stderr) and drop. The command's hook delivers it again instead."""
    script = textwrap.dedent("""
        import sys, time
        import emc.cli as cli
        sys.unraisablehook = cli._interrupt_not_lost

        class Callback:
            def __del__(self):  # an exception here cannot propagate: it goes to unraisablehook
                raise KeyboardInterrupt

        try:
            Callback()
            time.sleep(30)
            print("lost")
        except KeyboardInterrupt:
            print("interrupted")
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "interrupted" and "Exception ignored" not in proc.stderr, proc


def test_an_output_encoding_without_a_character_shows_a_stand_in(tmp_path):
    """With PYTHONIOENCODING=ascii, a puzzle file named "é.txt" ended `emc info` in a
    UnicodeEncodeError traceback; the character now shows as "?"."""
    path = tmp_path / "\u00e9.txt"
    emc.write_puzzle(emc.load("set2-4x4"), path)
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    proc = subprocess.run([sys.executable, "-m", "emc", "info", str(path)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr and "4 corner, 8 edge, 4 inner" in proc.stdout, proc


def test_a_count_interrupted_before_it_began_still_reports_its_lower_bound(cli, monkeypatch):
    """A Ctrl-C while the backend loaded its solver or kernel (before its own count caught
    interrupts) ended with `emc: interrupted` alone; now the count says at least 0, as any
    interrupted count reports its lower bound."""
    from emc.backends.backtrack import BacktrackBackend

    def interrupted(self, *args, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(BacktrackBackend, "count", interrupted)
    r = cli("count", "set2-4x4", "-b", "backtrack")
    assert r.code == 130, r
    assert "set2-4x4: at least 0 solution(s)" in r.out and "interrupted: the count is a lower bound" in r.out, r


def test_heuristic_commands_refuse_what_they_cannot_do_before_starting(cli, tmp_path):
    board = tmp_path / "b.json"
    write_board(emc.generate(6, 6, 2, 3, seed=1)[1], emc.generate(6, 6, 2, 3, seed=1)[0], board)
    for backend in ("maxsat", "portfolio"):  # the portfolio declares no options: it takes no cuts either
        assert "does not take no-good cuts, which backtracking needs" in _error(
            cli("construct", "set2-6x6", "--start", "backtracking", "-b", backend, "-t", 20))
    msg = _error(cli("construct", "set2-6x6", "-b", "highs", "--backend-option", "time_limit=3"))
    assert "--region-time-limit (construction), --bo-time-limit and --ro-time-limit" in msg
    assert "unknown backend 'nosuch'" in _error(cli("construct", "set2-6x6", "--start", "random", "-b", "nosuch"))
    assert "--patience 0 runs until the time limit" in _error(
        cli("improve", "set2-6x6", board, "--neighbourhoods", "TSR", "--patience", 0))
    assert "--construct-time-limit 8 is longer than --time-limit 3" in _error(
        cli("matheuristic", "meta-10x10", "-t", 3, "--construct-time-limit", 8))
    for opt, words in ((["--window", "1x1"], "a window re-solves at least 2"), (["--ta-k", "1"], "1 must be at least 2"),
                       (["--window", "0x5"], "'0x5': sizes must be at least 1"),
                       (["--window", "5"], "'5' is not WIDTHxHEIGHT")):
        r = cli("improve", "set2-6x6", board, *opt)
        assert r.code == 2 and words in r.err, r
    assert list(tmp_path.iterdir()) == [board]


def test_a_greedy_construction_cut_by_the_time_limit_says_so(cli, tmp_path):
    res = tmp_path / "r.json"
    # sixteen CBC runs (one per row) cannot all fit in 0.05 s on any machine
    r = cli("construct", "meta-16x16", "--region", "1xW", "-b", "cbc", "--region-time-limit", 0.5, "-t", 0.05,
            "--result", res, "-q")
    assert r.code == 0, r
    doc = json.loads(res.read_text())
    assert doc["construction"]["timed_out"] and doc["final"]["stopped_by"] == "time-limit"


def test_subproblems_refuse_a_board_of_another_size_and_cells_that_are_not_cell_numbers():
    g, sol = emc.generate(6, 6, frame_colours=3, inner_colours=5, seed=1)
    with pytest.raises(emc.InputError, match="board is 6x6, puzzle is 9x4"):
        emc.Subproblem.region(emc.load("set2-9x4"), sol, free=[0, 1])
    with pytest.raises(emc.InputError, match="board is 5x5, puzzle is 6x6"):
        emc.Subproblem(g, emc.Board.empty(emc.load("set2-5x5")), [0, 1], [0, 1, 2])
    for free in ([100], [1.7, 2.2], [-1]):
        with pytest.raises(emc.InputError, match="free cells"):
            emc.Subproblem.region(g, sol, free=free)


@pytest.mark.parametrize("backend", ["cpsat", "highs", "backtrack"])
def test_a_board_of_another_size_is_refused_by_score_and_as_a_hint(backend):
    """Scoring and hints used to differ by backend (an IndexError, a hint silently ignored):
    every way in names the two sizes."""
    g, sol = emc.generate(6, 6, frame_colours=3, inner_colours=5, seed=1)
    other = emc.Board.empty(emc.load("set2-5x5"))
    with pytest.raises(emc.InputError, match="board is 5x5, puzzle .* is 6x6"):
        emc.score(g, other)
    assert emc.score(g, sol) == g.max_score  # the right size still scores
    from emc.backends import get_backend

    with pytest.raises(emc.InputError, match="the hint must be a board of the puzzle's size, 6x6"):
        get_backend(backend).solve(emc.Subproblem.whole(g), time_limit=10, hint=other)


def test_python_callers_passing_the_wrong_kind_of_argument_get_a_type_error_that_says_so():
    p = emc.load("set2-4x4")
    with pytest.raises(TypeError, match="an instance name is a str"):
        emc.load(5)
    with pytest.raises(TypeError, match="puzzle must be an emc.Puzzle .* not str"):
        emc.verify("set2-4x4", emc.Board.empty(p))
    with pytest.raises(TypeError, match="board must be an emc.Board .* not NoneType"):
        emc.score(p, None)


@pytest.mark.parametrize("args, expected", [
    (("solve",), "emc solve: error: the following arguments are required: PUZZLE (`emc solve --help` lists the options)"),
    (("solve", "set2-4x4", "--threads", "x"), "emc solve: error: argument --threads: 'x' is not a whole number"),
    (("solve", "set2-4x4", "--bogus"), "emc solve: error: unrecognized arguments: --bogus"),
    (("info", "set2-4x4", "--json", "extra"), "emc info: error: unrecognized arguments: extra"),
    (("frob",), "emc: error: argument COMMAND: invalid choice: 'frob'"),
])
def test_command_line_mistakes_get_one_line_naming_the_command(cli, args, expected):
    """Mistakes argparse catches are one line too (not the usage block first), named after the
    command they were given to, with where to look."""
    line = _error(cli(*args))
    assert line.startswith(expected) and line.endswith("--help` lists the " + ("commands)" if args[0] == "frob" else "options)"))


def test_a_fixed_board_that_is_invalid_where_it_stays_fixed_is_refused_not_blamed_on_the_solver(cli, tmp_path):
    """A hand-edited --fixed board with a frame piece turned wrong used to be solved around and
    then reported as a backend's bug (exit 1); it is bad input, named with its file and cell."""
    puzzle = emc.load("set2-6x6")
    sol = tmp_path / "s.json"
    assert cli("solve", "set2-6x6", "-o", sol).code == 0
    b = read_board(sol, puzzle)
    b.place(0, int(b.piece[0]), (int(b.rotation[0]) + 1) % 4)  # the corner piece turned off the frame
    bad = tmp_path / "bad.json"
    write_board(b, puzzle, bad)
    msg = _error(cli("solve", "set2-6x6", "--fixed", bad, "--free", "r3c3-r4c4", "-b", "sat"))
    assert msg.startswith(f"emc: error: {bad}: the fixed board is not valid where it stays fixed: r1c1")
    r = cli("solve", "set2-6x6", "--fixed", bad, "--free", "r1c1+r3c3-r4c4", "-b", "sat")  # freed: re-solved
    assert r.code == 0 and "verified independently: valid" in r.out


def test_a_board_that_meets_its_own_bound_is_reported_optimal():
    """The clique search proves its maximum and used to say FEASIBLE with bound = objective."""
    from emc.backends import get_backend

    P = emc.load("set2-4x4")
    pieces = P.pieces.copy()
    pieces[14, 0] = 4  # one inner side recoloured: 23 of 24 edges at best
    sp = emc.Subproblem.whole(emc.Puzzle(4, 4, pieces, (), "set2-4x4-recoloured"), emc.Goal.OPTIMISATION)
    res = get_backend("clique").solve(sp, time_limit=60)
    assert res.bound == res.objective == 23 and res.status.value == "optimal"
    cp = get_backend("cpsat").solve(sp, time_limit=60)
    assert cp.status.value == "optimal" and cp.objective == 23


def test_a_construction_whose_only_region_is_cut_says_time_limit(cli, tmp_path):
    # One region, the whole 10x10: no MILP solver proves its optimum in a second, so the
    # time limit cuts the only solve, and the run must not call itself finished.
    res = tmp_path / "r.json"
    r = cli("construct", "meta-10x10", "--region", "WxH", "-t", 1, "--result", res, "-q")
    assert r.code == 0 and "time limit reached" in r.out, r
    doc = json.loads(res.read_text())
    assert doc["construction"]["timed_out"] and doc["final"]["stopped_by"] == "time-limit"


def test_a_run_whose_construction_took_all_the_time_says_the_local_search_got_none(cli, tmp_path):
    res = tmp_path / "r.json"
    # the greedy construction has half of -t unless told otherwise: here all of it
    r = cli("matheuristic", "meta-12x12", "--region", "WxH", "-t", 1, "--construct-time-limit", 1, "--result", res, "-q")
    assert r.code == 0 and "no time was left for the local search" in r.out, r
    assert json.loads(res.read_text())["local_search"] is None


@pytest.mark.slow
def test_regions_and_windows_larger_than_the_board_are_refused(cli, tmp_path):
    # They were cut down to the board silently (and the result file kept the size asked for).
    msg = _error(cli("construct", "meta-10x10", "--region", "20x20", "-t", 5))
    assert "region '20x20' (20 rows by 20 columns) is larger than the 10x10 board" in msg and "HxW: the whole" in msg
    # rows by columns: on 8 wide by 5 high, WxH is 8 rows, too many, and HxW the whole board; the
    # message once put the region's rows and columns beside the board's size, as if they were the board's
    msg = _error(cli("construct", "set2-8x5", "--region", "WxH", "-t", 5))
    assert "region 'WxH' (8 rows by 5 columns) is larger than the 8x5 board (5 rows by 8 columns)" in msg, msg
    assert cli("construct", "set2-8x5", "--region", "HxW", "-t", 5, "-q").code == 0
    msg = _error(cli("matheuristic", "clue2", "--window", "3x8", "-t", 5))
    assert "--window 3x8 is larger than the 12x6 board" in msg
    assert cli("construct", "meta-10x10", "--region", "10x10", "-t", 1, "-q").code == 0  # the whole board is fine
    assert not list(tmp_path.iterdir())


def test_improve_names_the_file_of_a_bad_starting_board_and_keeps_it(cli, tmp_path):
    p, planted = emc.generate(6, 6, 2, 4, seed=3)
    pz, start = tmp_path / "p.json", tmp_path / "start.json"
    emc.write_puzzle(p, pz)
    holed = planted.copy()
    holed.piece[14] = -1
    emc.write_board(holed, p, start)
    msg = _error(cli("improve", pz, start, "-t", 1))
    assert msg == f"emc: error: {start}: the starting board is not a valid complete board: 1 empty cell"
    emc.write_board(planted, p, start)
    before = start.read_bytes()
    msg = _error(cli("improve", pz, start, "-t", 1, "--result", start))
    assert "the result would overwrite the starting board" in msg and start.read_bytes() == before
    assert cli("improve", pz, start, "-t", 1, "-o", start, "-q").code == 0  # in place: allowed
    # ... but not over a run record read as its board: its parameters and trajectory would be gone
    record = tmp_path / "run.json"
    assert cli("improve", pz, start, "-t", 1, "--result", record, "-q").code == 0
    kept = record.read_bytes()
    for cmd in (("improve", pz, record, "-t", 1, "-o", record),
                ("solve", pz, "--fixed", record, "--free", "r2c2-r3c3", "-t", 5, "-o", record)):
        msg = _error(cli(*cmd))
        assert msg == (f"emc: error: {record}: -o would replace the run record {record} (a --result file) by a bare "
                       "board: give -o another file (and --result another file for the new record)"), msg
        assert record.read_bytes() == kept


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "ten"])
def test_time_limits_must_be_positive_finite_numbers(cli, value):
    for args in (("solve", "set2-4x4"), ("matheuristic", "set2-4x4")):
        r = cli(*args, "-t", value)
        assert r.code == 2 and r.out == "" and "--time-limit" in r.err and r.err.count("\n") == 1, (args, r)


def test_a_log_may_not_overwrite_the_fixed_board(cli, tmp_path):
    fixed = tmp_path / "fixed.json"
    assert cli("solve", "set2-5x5", "-o", fixed).code == 0
    before = fixed.read_bytes()
    msg = _error(cli("solve", "set2-5x5", "--fixed", fixed, "--free", "r2c2-r3c3", "--log", fixed))
    assert "the log would overwrite the --fixed board" in msg, msg
    assert fixed.read_bytes() == before
    assert cli("solve", "set2-5x5", "--fixed", fixed, "--free", "r2c2-r3c3", "-o", fixed).code == 0


def test_no_output_may_overwrite_the_puzzle_it_reads(cli, tmp_path):
    """`emc export p.txt -o p.txt` replaced the puzzle with its CNF, exit 0."""
    p = tmp_path / "p.txt"
    assert cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 3, "-o", p).code == 0
    before = p.read_bytes()
    for args in (("export", p, "-f", "cnf", "-o", p), ("solve", p, "-o", p), ("solve", p, "--log", p),
                 ("convert", p, "--to", "json", "-o", tmp_path / "." / "p.txt"),
                 ("matheuristic", p, "-t", 1, "--result", p)):
        msg = _error(cli(*args))
        assert "would overwrite the puzzle" in msg or "would overwrite the input" in msg, (args, msg)
    assert p.read_bytes() == before


def test_the_default_window_fits_small_boards(cli, tmp_path):
    # --window defaults to 6x6; on a smaller board that is the whole board, not an error
    res = tmp_path / "r.json"
    assert cli("matheuristic", "set2-4x4", "-t", 2, "-q", "--result", res).code == 0
    params = json.loads(res.read_text())["parameters"]
    assert json.dumps(params).count("ro_width") == 1 and '"ro_width": 4' in json.dumps(params)


def test_a_puzzle_file_missing_a_piece_is_noted_by_every_command(cli, tmp_path):
    """Eternity II less its last inner piece reads as a valid-looking 17x15 puzzle: the command
    goes on (it may be meant) but says on stderr that no board can match every edge."""
    full = tmp_path / "e2.txt"
    assert cli("convert", "eternity2", "--to", "heule", "-o", full).code == 0
    cut = tmp_path / "cut.txt"
    cut.write_text("".join(full.read_text().splitlines(True)[:-1]))
    r = cli("construct", cut, "--start", "random", "-q")
    assert r.code == 0 and r.err.startswith(f"note: {cut}: read as the 17x15 puzzle, which no board can match on every "
                                            "edge: colours used an odd number of times"), r
    r = cli("info", full)
    assert r.code == 0 and "note:" not in r.err


def test_brackets_in_a_name_are_text_not_markup(cli, tmp_path, monkeypatch):
    """rich read "[/]" in a puzzle's name as a closing tag: `emc verify` of a solved board died
    with a traceback and exit 1 (which says "invalid"); "[red]" in a file name vanished."""
    pz, bd = tmp_path / "n.json", tmp_path / "s.json"
    assert cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 2, "--name", "x[/]y[red]z",
               "-o", pz, "--solution", bd).code == 0
    r = cli("verify", pz, bd)
    assert r.code == 0 and r.out.startswith("x[/]y[red]z 4x4: valid and solved"), r
    r = cli("info", pz)
    assert r.code == 0 and "x[/]y[red]z" in r.out, r
    r = cli("solve", pz, "--backend", "sat", "-t", "30")
    assert r.code == 0 and r.out.startswith("x[/]y[red]z 4x4:") and "status OPTIMAL" in r.out, r
    r = cli("construct", pz, "-t", "5")
    assert r.code == 0 and "x[/]y[red]z: score" in r.out, r


def test_a_folder_does_not_hide_a_shipped_instance(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "set2-4x4").mkdir()
    r = cli("info", "set2-4x4")
    assert r.code == 0 and "4 x 4" in r.out, r


def test_output_names_read_their_format_in_any_case_and_past_gz(cli, tmp_path):
    pz, bd, gz = tmp_path / "p.JSON", tmp_path / "s.EDGES", tmp_path / "s.edges.gz"
    assert cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 2, "-o", pz, "--solution", bd).code == 0
    assert json.loads(pz.read_text())["format"] == "emc-puzzle"
    assert bd.read_text().strip().isalpha()  # board_edges, as the suffix says
    assert cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 2, "-o", tmp_path / "q.txt",
               "--solution", gz).code == 0
    import gzip

    assert gzip.decompress(gz.read_bytes()).decode().strip().isalpha()
    assert cli("verify", pz, bd).code == 0 and cli("verify", tmp_path / "q.txt", gz).code == 0
    r = cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 2, "-o", tmp_path / "r.txt",
            "--solution", tmp_path / "s.dat.gz")
    assert r.code == 2 and "not .dat.gz" in r.err, r


def test_an_output_name_ending_in_a_slash_is_refused(cli, tmp_path):
    r = cli("convert", "set2-4x4", "--to", "wh", "-o", f"{tmp_path / 'newdir'}/")
    assert r.code == 2 and "ends in '/'" in r.err and not (tmp_path / "newdir").exists(), r


def test_a_board_given_as_the_puzzle_says_so(cli, tmp_path):
    pz, bd = tmp_path / "p.json", tmp_path / "b.json"
    assert cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 2, "-o", pz, "--solution", bd).code == 0
    r = cli("verify", bd, pz)
    assert r.code == 2 and "this is a board (emc JSON), not a puzzle" in r.err, r
    r = cli("verify", pz, pz)
    assert r.code == 2 and "this is a puzzle (emc JSON), not a board" in r.err, r
    d = json.loads(pz.read_text())
    del d["format"]
    (tmp_path / "nf.json").write_text(json.dumps(d))
    r = cli("info", tmp_path / "nf.json")
    assert r.code == 2 and "JSON with no 'format' key" in r.err, r


def test_json_keys_given_twice_or_missing_are_named(cli, tmp_path):
    pz, bd = tmp_path / "p.json", tmp_path / "b.json"
    assert cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 2, "-o", pz, "--solution", bd).code == 0
    twice = tmp_path / "twice.json"
    twice.write_text(pz.read_text().replace('"height": 4,', '"height": 4,\n  "height": 5,'))
    r = cli("info", twice)
    assert r.code == 2 and r.err.strip().endswith("twice.json:7: key 'height' given twice in one object"), r
    d = json.loads(bd.read_text())
    del d["width"]
    (tmp_path / "nw.json").write_text(json.dumps(d))
    r = cli("verify", pz, tmp_path / "nw.json")
    assert r.code == 2 and "nw.json:1: missing key 'width'" in r.err, r


def test_closed_stdout_drops_the_output_without_a_traceback(tmp_path):
    """`emc info p >&-` leaves Python's sys.stdout None: it raised AttributeError at import."""
    board = tmp_path / "b.json"
    for args in (["info", "set2-3x3"], ["solve", "set2-3x3", "-b", "sat", "-o", str(board)]):
        r = subprocess.run([sys.executable, "-m", "emc", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, preexec_fn=lambda: os.close(1))
        assert r.returncode == 0 and "Traceback" not in r.stderr, (args, r.stderr)
    puzzle = emc.load("set2-3x3")
    report = emc.verify(puzzle, read_board(board, puzzle))
    assert report.valid and report.solved, report  # the board is still written, and right


HUGE = "9" * 5000  # past the 4300 digits Python's int() converts from text


@pytest.mark.parametrize("args, expected", [
    (("solve", "set2-3x3", "--free", f"r1c{HUGE}"), "emc: error: --free: cell set 'r1c9999"),
    (("solve", "set2-3x3", "--free", f"rows:1-{HUGE}"), "emc: error: --free: cell set 'rows:1-999"),
    (("solve", "set2-3x3", "--seed", HUGE), "emc solve: error: argument --seed: 999999999999... (5000 digits) is too large"),
    (("solve", "set2-3x3", "--seed", "\u0663"), "emc solve: error: argument --seed: '\u0663' is not a whole number"),
    (("solve", "set2-3x3", "--free", "r\u0661c1"), "emc: error: --free: cell set 'r\u0661c1': cannot read"),
    (("construct", "set2-6x6", "--region", f"1x{HUGE}"), "emc: error: region '1x999"),
    (("construct", "set2-6x6", "--region", ""), "emc: error: --region: an empty region"),
    (("instances", "--min-size", "10", "--max-size", "5"), "emc: error: --min-size 10 is above --max-size 5"),
    (("solve", "set2-3x3", "--free", "r9c9"), "emc: error: --free: cell set 'r9c9': r9c9 is outside the 3x3 board"),
    (("solve", "set2-3x3", "-b", "cpsat", "-O", f"pairs={HUGE}"), "emc: error: --option pairs: 999999999999... (5000 digits)"),
    (("solve", "set2-3x3", "-b", "cpsat", "-O", f'params={{"num_workers": {HUGE}}}'), "emc: error: --option 'params="),
    (("suite", "-o", "gen", "--formats", "cnf", "--generate", f"3x3:2:2:{HUGE}"), "emc: error: --generate '3x3:2:2:999"),
    (("suite", "-o", "gen", "--formats", "cnf", "--generate", "3x3:2:2:1,,2"), "emc: error: --generate '3x3:2:2:1,,2': an empty seed"),
])
def test_numbers_too_long_or_in_other_scripts_get_one_short_line(cli, tmp_path, monkeypatch, args, expected):
    """Python refuses int() on text over 4300 digits with a ValueError of its own; every place
    that reads a number from the user says which value is too large instead, in a short line."""
    monkeypatch.chdir(tmp_path)
    line = _error(cli(*args))
    assert line.startswith(expected) and len(line) < 300, line
    assert ("(5000 digits) is too large" in line) == any(HUGE in a for a in args), line
    assert not (tmp_path / "gen").exists()


def test_a_puzzle_or_board_with_a_number_too_long_names_its_line(cli, tmp_path):
    text = emc.formats.format_puzzle(W_H_4X4, "json").split("\n")
    at = next(i for i, t in enumerate(text) if t.strip().startswith("[0,"))  # the first piece row
    text[at] = text[at].replace("[0,", f"[{HUGE},", 1)
    f = tmp_path / "p.json"
    f.write_text("\n".join(text))
    assert _error(cli("info", f)) == f"emc: error: {f}:{at + 1}: 999999999999... (5000 digits) is too large"
    f = _wh(tmp_path / "p.txt", W_H_4X4.pieces, header=f"4 {HUGE}")
    assert _error(cli("info", f)) == f"emc: error: {f}:1: header 'W H': 999999999999... (5000 digits) is too large"
    board = tmp_path / "b.json"
    assert cli("solve", "set2-4x4", "-o", board).code == 0
    board.write_text(board.read_text().replace("[", f"[{HUGE}, ", 2).replace(f"[{HUGE}, ", "[", 1))
    assert "999999999999... (5000 digits) is too large" in _error(cli("verify", "set2-4x4", board))


@pytest.mark.parametrize("args, expected", [
    (("solve", "set2-3x3", "-b", "portfolio", "-O", "members=[1,2]"),
     "emc: error: -O members= is backend names joined by commas (members=cpsat,sat), not [1, 2]"),
    (("solve", "set2-3x3", "-b", "clique", "-O", "complete_with=[1]"),
     "emc: error: complete_with is a backend name, auto or assignment, not [1]"),
    (("solve", "set2-3x3", "-b", "sat", "-O", 'encoding={"order": []}'),
     "emc: error: unknown variable order '[]'"),
    (("solve", "set2-3x3", "-b", "sat", "-O", "encoding=[]"), "emc: error: option 'encoding' must be a mapping"),
    (("solve", "set2-3x3", "-b", "maxsat", "-O", "encoding="), "emc: error: option 'encoding' must be a mapping"),
    (("solve", "set2-3x3", "-b", "maxsat", "-O", "portfolio=x"),
     "emc: error: option portfolio of backend 'maxsat' is true or false, not 'x'"),
    (("solve", "set2-3x3", "-b", "cpsat", "-O", "params=[]"), "emc: error: option 'params' must be a mapping"),
    (("solve", "set2-3x3", "-b", "highs", "-O", "params=[]"), "emc: error: option 'params' must be a mapping"),
    (("count", "set2-3x3", "-b", "backtrack", "--keep", "1000000000"),
     "emc: error: keep 1,000,000,000: that many boards of 9 free cells would not fit in memory; keep at most 2,222,222"),
])
def test_option_values_of_the_wrong_kind_or_size_get_one_line(cli, args, expected):
    """Found by fuzzing -O values and counts: a TypeError from a list where a name was meant,
    and a count that set aside 67 GiB for the boards --keep asked for before it started."""
    assert _error(cli(*args)).startswith(expected)


def test_keep_larger_than_the_limit_asks_for_no_more_room_than_the_limit(cli):
    r = cli("count", "set2-3x3", "-b", "backtrack", "--keep", "1000000000", "--limit", "2")
    boards = [ln for ln in r.out.splitlines() if ln.isalpha() and len(ln) == 9 * 4]  # board_edges strings
    assert r.code == 0 and "at least 2 solution(s)" in r.out and len(boards) == 2, r


def test_numba_threads_zero_in_the_environment_is_one_line(tmp_path):
    """numba raises ValueError on import for NUMBA_NUM_THREADS=0; emc says so before."""
    for value in ("0", "abc", "1.5"):
        env = {**os.environ, "NUMBA_NUM_THREADS": value}
        r = subprocess.run([sys.executable, "-m", "emc", "solve", "set2-3x3"], capture_output=True, text=True, env=env)
        assert r.returncode == 2 and r.stderr.strip() == (
            f"emc: error: environment variable NUMBA_NUM_THREADS={value}: numba needs a whole number of at least 1 "
            "(unset it to use the default)"), r


def test_puzzle_names_are_one_printable_line(cli, tmp_path):
    """A name is written into CNF/LP/MiniZinc headers and manifests: a newline in it ended a
    comment and began a clause, and crashed the minizinc backend. A name given in a file or on
    the command line is refused; one taken from a file's name has such characters replaced."""
    doc = json.loads(emc.formats.format_puzzle(emc.load("set2-3x3"), "json"))
    doc.pop("sha256")
    doc["name"] = "a\nb"
    f = tmp_path / "p.json"
    f.write_text(json.dumps(doc, indent=1))
    line_of_name = next(i for i, t in enumerate(f.read_text().splitlines(), 1) if '"name"' in t)
    assert _error(cli("info", f)) == (f"emc: error: {f}:{line_of_name}: puzzle name 'a\\nb': the character '\\n' "
                                      "cannot be in a name (one line of printable characters)")
    assert _error(cli("generate", "3", "3", "--frame-colours", "2", "--inner-colours", "2", "--name", "x\ty",
                      "-o", tmp_path / "g.txt")).endswith("puzzle name 'x\\ty': the character '\\t' cannot be in a name "
                                                         "(one line of printable characters)")
    odd = tmp_path / "we\nird.txt"
    odd.write_text(emc.formats.format_puzzle(emc.load("set2-3x3"), "wh"))
    cnf = tmp_path / "w.cnf"
    assert cli("export", odd, "--format", "cnf", "-o", cnf).code == 0
    assert all(ln.startswith(("c ", "p ")) or ln[:1] in "-123456789" for ln in cnf.read_text().splitlines())
    assert "c puzzle we_ird 3x3" in cnf.read_text()
    r = cli("solve", odd, "-b", "minizinc")
    assert r.code == 0 and "12/12 (solved)" in r.out, r
    with pytest.raises(TypeError, match="a puzzle name is a str"):
        emc.Puzzle(2, 2, emc.load("set2-3x3").pieces[:4], name=5)


def test_hints_on_neighbouring_cells_that_do_not_match_are_refused(cli, tmp_path):
    """A sub-problem does not score edges between two fixed cells, so two clashing hints were
    never seen: info passed and the backends answered for the other edges. The file is refused
    at the later hint's line; a puzzle built in Python lists the clash among its problems."""
    corner = next(p for p in range(16) if (W_H_4X4.pieces[p] == 0).sum() == 2)
    turn = next(k for k in range(4) if W_H_4X4.fits[corner, 0, k])
    right = W_H_4X4.colours[corner, turn, 1]
    edge, eturn = next((q, k) for q in range(16) for k in range(4)
                       if W_H_4X4.fits[q, 1, k] and W_H_4X4.colours[q, k, 3] != right)
    rows = "\n".join(" ".join(map(str, r)) for r in W_H_4X4.pieces)
    f = tmp_path / "h.txt"
    f.write_text(f"2\n1 1 {corner + 1} {turn}\n1 2 {edge + 1} {eturn}\n{rows}\n")
    left = W_H_4X4.colours[edge, eturn, 3]
    assert _error(cli("info", f)) == f"emc: error: {f}:3: hints on r1c1 and r1c2 do not match: colour {right} meets colour {left}"
    puzzle = W_H_4X4.with_hints([emc.Hint(0, corner, turn), emc.Hint(1, edge, eturn)])
    assert f"hints on r1c1 and r1c2 do not match: colour {right} meets colour {left}" in puzzle.structure_problems()
    fine = next((q, k) for q in range(16) for k in range(4)
                if q != corner and W_H_4X4.fits[q, 1, k] and W_H_4X4.colours[q, k, 3] == right)
    assert not W_H_4X4.with_hints([emc.Hint(0, corner, turn), emc.Hint(1, *fine)]).hint_clashes()


def test_no_free_cells_says_why(cli, tmp_path):
    """It blamed "the board is already full" when --free named no cell and no board was given."""
    p = tmp_path / "p.json"
    assert cli("generate", "5", "2", "--frame-colours", "2", "--inner-colours", "2", "-o", p).code == 0
    assert _error(cli("solve", p, "--free", "inner")) == "emc: error: no free cells: --free 'inner' names no cell of the 5x2 board"
    full = tmp_path / "full.json"
    assert cli("solve", "set2-4x4", "-o", full).code == 0
    assert _error(cli("solve", "set2-4x4", "--fixed", full)) == (
        "emc: error: no free cells: the --fixed board is already full (give --free)")


@pytest.mark.slow
def test_a_run_that_compiles_the_kernels_says_where_its_seconds_went(tmp_path):
    """With a cold numba cache a `-t 2` solve spent its time compiling and answered UNKNOWN
    after 0 nodes, with nothing said; the note names the compile time, and only when there was one."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    args = [sys.executable, "-m", "emc", "solve", "set2-3x3", "-b", "backtrack"]
    first = subprocess.run(args, capture_output=True, text=True, env=env)
    assert first.returncode == 0 and "emc: note: " in first.stderr and "went to compiling emc's kernels" in first.stderr
    again = subprocess.run(args, capture_output=True, text=True, env=env)
    assert again.returncode == 0 and "compiling" not in again.stderr, again.stderr


@pytest.mark.parametrize("args, expected", [
    (("generate", "4", "4", "--frame-colours", "2", "--inner-colours", "3", "--name", "", "-o", "g.txt"),
     "emc: error: --name: an empty name"),
    (("improve", "set2-6x6", "b.json", "--ta-k", "0"), "emc improve: error: argument --ta-k: 0 must be at least 2"),
    (("solve", "set2-3x3", "--progress-every", "1e-9"),
     "emc solve: error: argument --progress-every: 1e-09 s is shorter than 0.01 s"),
])
def test_small_option_mistakes_found_by_fuzzing(cli, tmp_path, monkeypatch, args, expected):
    monkeypatch.chdir(tmp_path)
    assert _error(cli(*args)).startswith(expected)
    assert not (tmp_path / "g.txt").exists()


def test_no_symmetry_where_nothing_is_pinned_is_refused_not_ignored(cli, tmp_path):
    """Symmetry breaking pins a corner piece of a whole puzzle without hints; on a region, or
    on a puzzle with hints, --no-symmetry changed nothing and was accepted silently."""
    board = tmp_path / "b.json"
    assert cli("solve", "set2-4x4", "-o", board).code == 0
    region = ("--fixed", board, "--free", "r1c1-r2c2")
    for args in (("count", "set2-4x4", *region), ("solve", "set2-4x4", *region),
                 ("export", "set2-4x4", "-f", "cnf", "-o", tmp_path / "x.cnf", *region),
                 ("solve", "eternity2", "-t", "1")):
        r = cli(*args, "--no-symmetry")
        assert r.code == 2 and "--no-symmetry has no effect here" in r.err and r.err.count("\n") == 1, (args, r)
        assert ("the puzzle has hints" if "eternity2" in args else "this is a region") in r.err
    assert not (tmp_path / "x.cnf").exists()
    r = cli("suite", "-o", tmp_path / "s", "--generate", "4x4:2:3:1", "--free", "r1c1-r2c2", "--formats", "cnf",
            "--no-symmetry")
    assert r.code == 2 and "--no-symmetry has no effect with --free" in r.err, r
    hinted = tmp_path / "hinted.json"
    emc.write_puzzle(emc.load("set2-4x4").with_hints([emc.Hint(5, 12, 0)], name="hinted"), hinted)
    r = cli("suite", "-o", tmp_path / "s", "--instances", hinted, "--formats", "cnf", "--no-symmetry")
    assert r.code == 2 and "none of these is one" in r.err and not (tmp_path / "s").exists(), r
    assert cli("suite", "-o", tmp_path / "s", "--instances", f"{hinted},set2-3x3", "--formats", "cnf",
               "--no-symmetry").code == 0  # set2-3x3's files do change
    # where it does something, it is taken: the whole puzzle's count is four times larger
    on, off = (cli("count", "set2-4x4", "-b", "sat", "--json", *x) for x in ((), ("--no-symmetry",)))
    assert json.loads(off.out)["count"] == 4 * json.loads(on.out)["count"] > 0
