"""File formats: round trips are identities, detection works, bad input gives one-line errors."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import emc
from emc.errors import InputError
from emc.formats import (
    format_board,
    format_puzzle,
    infer_size,
    parse_board,
    parse_puzzle,
    read_board,
    read_puzzle,
    write_board,
    write_puzzle,
)
from emc.rng import StableRng


def same_puzzle(a, b):
    return (a.width, a.height) == (b.width, b.height) and np.array_equal(a.pieces, b.pieces) and a.hints == b.hints


@given(st.integers(3, 9), st.integers(3, 9), st.integers(0, 4), st.integers(1, 8), st.integers(0, 10**6))
@settings(max_examples=30, deadline=None)
def test_puzzle_round_trips(w, h, f, i, seed):
    p, _ = emc.generate(max(w, h), min(w, h), f, i, seed=seed)
    for fmt in ("heule", "wh", "json"):
        text = format_puzzle(p, fmt)
        q = parse_puzzle(text)
        assert same_puzzle(p, q), fmt
        assert format_puzzle(q, fmt) == text  # text -> puzzle -> text is the identity too


def test_tall_boards_round_trip_in_wh_and_json():
    p, _ = emc.generate(3, 7, 2, 3, seed=1)
    for fmt in ("wh", "json"):
        assert same_puzzle(p, parse_puzzle(format_puzzle(p, fmt)))
    with pytest.raises(InputError, match="width >= height"):
        format_puzzle(p, "heule")


def test_hints_survive_heule_and_json():
    e2 = emc.load("eternity2")
    for fmt in ("heule", "json"):
        q = parse_puzzle(format_puzzle(e2, fmt))
        assert q.hints == e2.hints
    with pytest.raises(InputError, match="cannot hold hints"):
        format_puzzle(e2, "wh")
    text = format_puzzle(e2, "heule")
    assert text.splitlines()[:2] == ["1", "9 8 139 2"]


def test_a_wrong_hint_count_is_pointed_at():
    # one hint line where line 1 announces two: the first piece line is read as the second hint
    lines = format_puzzle(emc.load("set2-4x4"), "heule").splitlines()
    text = "\n".join(["2", "1 1 1 3"] + lines[1:]) + "\n"
    with pytest.raises(InputError, match="fill no rectangular board; line 1 says the first 2 lines after it are hints"):
        parse_puzzle(text, "h.txt")


def test_shipped_files_read_back_byte_identical(tmp_path):
    for name in ("set2-5x4", "meta-10x10"):
        info = emc.instances.info(name)
        p = emc.load(name)
        assert format_puzzle(p, "wh") == info.path.read_text()
    e2 = emc.load("eternity2-nohint")
    assert format_puzzle(e2, "heule") == emc.instances.info("eternity2").path.read_text()


@given(st.integers(3, 8), st.integers(3, 8), st.integers(0, 10**6), st.integers(0, 5))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_board_round_trips(w, h, seed, empties):
    p, b = emc.generate(w, h, 2, 4, seed=seed)
    rng = StableRng(seed)
    for _ in range(empties):
        b.clear([rng.below(p.n_cells)])
    for fmt in ("json", "edges"):
        text = format_board(b, p, fmt)
        back = parse_board(text, p)
        if fmt == "json":
            assert back == b
        else:
            # edges stores colours: identical pieces may swap, but what the board shows is the same
            assert np.array_equal(back.shown(p), b.shown(p))
            assert format_board(back, p, "edges") == text
        assert emc.score(p, back) == emc.score(p, b)


def test_edges_string_layout():
    p, b = emc.generate(3, 3, 1, 1, seed=5)
    s = format_board(b, p, "edges").strip()
    assert len(s) == 4 * 9
    shown = b.shown(p)
    assert s[:4] == "".join(chr(97 + c) for c in shown[0])  # up, right, down, left of the top-left cell
    assert s[0] == "a" and s[3] == "a"  # the top-left corner shows the border up and left


def test_board_json_records_the_puzzle_and_refuses_another(tmp_path):
    p, b = emc.generate(5, 5, 2, 3, seed=1)
    q, _ = emc.generate(5, 5, 2, 3, seed=2)
    path = tmp_path / "b.json"
    write_board(b, p, path)
    d = json.loads(path.read_text())
    assert d["puzzle"]["sha256"] == p.sha256 and d["score"] == p.max_score
    with pytest.raises(InputError, match="made for puzzle"):
        read_board(path, q)
    assert read_board(path, q, check_puzzle=False).width == 5


def test_writes_are_atomic(tmp_path):
    p, b = emc.generate(4, 4, 1, 2, seed=1)
    path = tmp_path / "p.json"
    write_puzzle(p, path)
    before = path.read_bytes()

    class Boom(Exception):
        pass

    from emc.io import atomic_write

    with pytest.raises(Boom):
        with atomic_write(path) as f:
            f.write("half a fi")
            raise Boom
    assert path.read_bytes() == before
    assert [x.name for x in tmp_path.iterdir()] == ["p.json"]  # no temporary left behind


def test_a_file_that_cannot_be_written_is_an_input_error_naming_it(tmp_path):
    from emc.errors import InputError
    from emc.io import atomic_write

    (tmp_path / "plain").write_text("x")
    target = tmp_path / "plain" / "sub" / "b.json"  # its folder would sit inside a file
    with pytest.raises(InputError, match=r"plain/sub/b\.json: cannot write \(Not a directory\)"):
        with atomic_write(target) as f:
            f.write("{}")
    assert (tmp_path / "plain").read_text() == "x"


def test_gzip_output_is_deterministic(tmp_path):
    from emc.io import atomic_write

    for name in ("a.txt.gz", "b.txt.gz"):
        with atomic_write(tmp_path / name) as f:
            f.write("1 2 3\n" * 100)
    assert (tmp_path / "a.txt.gz").read_bytes() == (tmp_path / "b.txt.gz").read_bytes()
    p = read_puzzle(_write(tmp_path, "x.txt", "3 3\n" + "\n".join(" ".join(map(str, r)) for r in emc.load("set2-3x3").pieces)))
    assert p.size == "3x3"


def test_infer_size_takes_width_at_least_height():
    p, _ = emc.generate(12, 6, 2, 3, seed=1)
    assert infer_size(p.pieces) == (12, 6)
    assert emc.load("clue2").size == "12x6"


@pytest.mark.parametrize("w", [2, 3, 5, 9])
def test_boards_two_rows_high_round_trip_through_heule(tmp_path, w):
    """A board two rows high has no inner pieces: its Heule file (no size in it) must still
    read back as W x 2."""
    p, b = emc.generate(w, 2, 1, 2, seed=w)
    path = tmp_path / "p.txt"
    emc.write_puzzle(p, path, "heule")
    q = read_puzzle(path)
    assert q.size == f"{w}x2" and (q.pieces == p.pieces).all() and emc.verify(q, b).solved


# ------------------------------------------------------------------ bad input
def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


GOOD_3X3 = "\n".join(" ".join(map(str, r)) for r in emc.load("set2-3x3").pieces.tolist())
GOOD_4X3 = "\n".join(" ".join(map(str, r)) for r in emc.load("set2-4x3").pieces.tolist())

BAD_PUZZLES = {
    # name: (text, expected line, words in the reason)
    "wrong piece count": ("3 3\n" + "\n".join(GOOD_3X3.splitlines()[:8]) + "\n", 9, "wrong piece count"),
    "non-integer colour": ("3 3\n" + GOOD_3X3.replace("0 0 1 1", "0 0 x 1", 1) + "\n", 2, "not a whole number"),
    "negative colour": ("3 3\n" + GOOD_3X3.replace("0 0 1 1", "0 0 -1 1", 1) + "\n", 2, "negative"),
    "ragged line": ("3 3\n" + GOOD_3X3.replace("0 0 1 1", "0 0 1", 1) + "\n", 2, "ragged line"),
    "empty file": ("\n  \n", None, "empty file"),
    "unknown format": ("hello world foo\n1 2 3 4\n", 1, "unknown format"),
    "heule count mismatch": ("0\n" + "\n".join(GOOD_3X3.splitlines()[:7]) + "\n", 8, "wrong piece count"),
    "bad hint": ("1\n4 1 1 0\n" + GOOD_3X3 + "\n", 2, "outside"),
    # set 2's 4x3 is wider than high: row 4 is past its 3 rows, though the board has 4 columns
    "hint row past a wide board": ("1\n4 1 1 0\n" + GOOD_4X3 + "\n", 2, "hint cell row 4 col 1 is outside the 4x3 board"),
    "hint count as long as the file": ("3\n1 1 1 0\n0 0 1 1\n", 1, "hint count 3 does not fit the file"),
    "three border sides": ("3 3\n" + GOOD_3X3.replace("0 0 1 1", "0 0 0 1", 1) + "\n", 2, "border sides"),
    "bad json": ('{"format": "emc-puzzle",\n "width": 3,, }', 2, "invalid JSON"),
    "json list": ("[1, 2, 3]\n", 1, "a JSON list, expected an object with format 'emc-puzzle'"),
    "json ragged": ('{"format": "emc-puzzle", "width": 3, "height": 3, "pieces": [\n[0,0,1,1],\n[1,2]\n]}', 3, "ragged line"),
}


@pytest.mark.parametrize("case", sorted(BAD_PUZZLES))
def test_bad_puzzle_gives_one_line_error(tmp_path, cli, case):
    text, line, words = BAD_PUZZLES[case]
    path = _write(tmp_path, "bad.txt", text)
    with pytest.raises(InputError) as exc:
        read_puzzle(path)
    assert exc.value.path == str(path) and exc.value.line == line and words in exc.value.reason
    res = cli("info", path)
    assert res.code == 2
    assert res.out == ""
    lines = res.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.err
    where = f"{path}:{line}: " if line else f"{path}: "
    assert lines[0].startswith("emc: error: " + where), lines[0]
    assert words in lines[0]


@pytest.mark.parametrize("w, h", [(4, 4), (5, 3)])
def test_bad_boards_give_one_line_errors(tmp_path, cli, w, h):
    p, b = emc.generate(w, h, 2, 3, seed=9)
    ppath = _write(tmp_path, "p.txt", format_puzzle(p, "wh"))
    good = format_board(b, p, "json").splitlines()
    first = good.index('  "pieces": [') + 1  # 0-based index of the line of board row 1
    # (row, col, new piece number, words); the error must point at that row's line (a board
    # wider than high too: the row of a cell is its number over the width)
    first_piece = int(b.piece[0]) + 1
    cases = [(2, 1, first_piece, "used twice"), (1, 3, 99, "does not exist"), (h - 1, w - 1, -4, "negative")]
    for row, col, value, words in cases:
        lines = list(good)
        vals = [int(v) for v in lines[first + row].strip().rstrip(",").strip("[]").split(",")]
        vals[col] = value
        lines[first + row] = "    [" + ", ".join(map(str, vals)) + "]" + ("," if row < h - 1 else "")
        bpath = _write(tmp_path, "b.json", "\n".join(lines) + "\n")
        # verify reads a board that repeats a piece and calls it INVALID (exit 1); the other
        # commands refuse it as bad input, like the other broken boards
        res = cli("render", ppath, bpath, "-o", tmp_path / "b.png")
        assert res.code == 2, words
        err = res.err.strip().splitlines()
        assert len(err) == 1 and words in err[0], err
        assert err[0].startswith(f"emc: error: {bpath}:{first + row + 1}: "), err[0]
        res = cli("verify", ppath, bpath)
        if words == "used twice":
            assert res.code == 1 and f"piece {first_piece} is used 2 times" in res.out, res.out
        else:
            assert res.code == 2 and err[0] in res.err

    edges = format_board(b, p, "edges").strip()
    dup = edges[:4] + edges[:4] + edges[8:]
    bpath = _write(tmp_path, "b.edges", dup + "\n")
    res = cli("render", ppath, bpath, "-o", tmp_path / "b.png")
    assert res.code == 2 and "twice" in res.err and res.err.count("\n") == 1
    res = cli("verify", ppath, bpath)
    assert res.code == 1 and "used 2 times" in res.out and "INVALID" in res.out
    assert cli("score", ppath, bpath).code == 0

    res = cli("verify", ppath, _write(tmp_path, "junk.txt", "12 13 14\n"))
    assert res.code == 2 and "unknown board format" in res.err

    res = cli("verify", ppath, tmp_path / "missing.json")
    assert res.code == 2 and "no such file" in res.err


def test_unknown_instance_name_suggests(cli):
    res = cli("info", "meta-10x1")
    assert res.code == 2 and "did you mean" in res.err and "meta-10x10" in res.err
    assert res.err.count("\n") == 1


def test_a_replaced_file_keeps_its_permissions_and_a_new_one_follows_the_umask(tmp_path):
    import os
    import stat

    from emc.io import write_text

    f = tmp_path / "private.json"
    f.write_text("old")
    f.chmod(0o600)
    write_text(f, "new")
    assert f.read_text() == "new" and stat.S_IMODE(f.stat().st_mode) == 0o600  # was reset to 0644
    old = os.umask(0o027)
    try:
        write_text(tmp_path / "fresh.json", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "fresh.json").stat().st_mode) == 0o640


def test_empty_names_and_board_letters_are_refused_before_any_work(tmp_path, cli):
    """`-o ""` was ignored or wrote into the current folder; a board_edges output for a puzzle
    with colours past 'z' failed only after the run (and generate had written the puzzle)."""
    for args, flag in ((("solve", "set2-3x3", "-o", ""), "--output"), (("solve", "set2-3x3", "--backend", ""), "--backend"),
                       (("info", ""), "puzzle"), (("suite", "-o", "", "--instances", "set2-3x3", "--formats", "cnf"), "--output"),
                       (("count", "set2-3x3", "--keep", "1", "--out-dir", ""), "--out-dir")):
        r = cli(*args)
        assert r.code == 2 and r.err.strip() == f"emc: error: {flag}: an empty name", (args, r)
    puzzle = tmp_path / "p30.txt"
    r = cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 30, "--seed", 2, "-o", tmp_path / "never.txt",
            "--solution", tmp_path / "s.edges")
    assert r.code == 2 and "letters for colours 0 to 25" in r.err and not (tmp_path / "never.txt").exists(), r
    r = cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 30, "--seed", 2, "-o", tmp_path / "never.txt",
            "--solution", tmp_path / "s.edges.gz")  # past .gz: the letters are checked all the same
    assert r.code == 2 and "letters for colours 0 to 25" in r.err and not (tmp_path / "never.txt").exists(), r
    assert cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 30, "--seed", 2, "-o", puzzle).code == 0
    assert emc.read_puzzle(puzzle).max_colour > 25
    for args in (("solve", puzzle, "-o", tmp_path / "b.edges"), ("construct", puzzle, "-o", tmp_path / "b.txt"),
                 ("solve", puzzle, "-o", tmp_path / "b.edges.gz"),
                 ("count", puzzle, "--keep", "1")):
        r = cli(*args)
        assert r.code == 2 and r.out == "" and ("letters for colours 0 to 25" in r.err or "give --out-dir" in r.err), r
    assert cli("solve", puzzle, "-o", tmp_path / "b.json").code == 0
    r = cli("improve", puzzle, tmp_path / "b.json", "-o", tmp_path / "c.TXT.gz")
    assert r.code == 2 and "letters for colours 0 to 25" in r.err and not (tmp_path / "c.TXT.gz").exists(), r


def test_writing_through_a_symlink_keeps_the_link(tmp_path, cli):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert cli("solve", "set2-4x4", "-o", link).code == 0
    assert link.is_symlink() and emc.verify(emc.load("set2-4x4"), emc.read_board(target, emc.load("set2-4x4"))).solved


def test_writing_to_a_fifo_writes_into_it_instead_of_replacing_it(tmp_path):
    # A special file (a FIFO here; /dev/null in real use) must not be renamed over: that
    # would replace the device itself.
    import stat
    import threading

    from emc.io import write_text

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_text(fifo, "hello\n")
    reader.join(timeout=30)
    assert got == [b"hello\n"] and stat.S_ISFIFO(fifo.stat().st_mode)
    assert list(tmp_path.iterdir()) == [fifo]  # no temporary file left beside it


@pytest.mark.slow
def test_a_file_written_to_dev_stdout_is_all_that_stdout_carries(tmp_path):
    # /dev/stdout leads into /proc: it must be written into, at the stream's place, not
    # replaced nor followed to a missing name; the report then goes to stderr, so that a
    # board or a CNF piped on is the file alone.
    import subprocess
    import sys

    from emc.formats import read_board

    out = tmp_path / "out.json"
    with open(out, "w") as f:
        r = subprocess.run([sys.executable, "-m", "emc", "solve", "set2-3x3", "-o", "/dev/stdout"], stdout=f,
                           stderr=subprocess.PIPE, text=True)
    assert r.returncode == 0, r.stderr
    assert "verified independently" in r.stderr and "wrote /dev/stdout" in r.stderr
    p = emc.load("set2-3x3")
    assert emc.verify(p, read_board(str(out), p)).solved
    r = subprocess.run([sys.executable, "-m", "emc", "export", "set2-3x3", "-f", "cnf", "-o", "/dev/stdout"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "wrote /dev/stdout" in r.stderr
    lines = [ln for ln in r.stdout.splitlines() if not ln.startswith("c ")]
    head = lines[0].split()
    assert head[:2] == ["p", "cnf"] and len(lines) - 1 == int(head[3])  # clauses and nothing else
    r = subprocess.run([sys.executable, "-m", "emc", "solve", "set2-3x3", "-o", "/dev/stdout", "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "the output and --json would both go to standard output" in r.stderr
    # a reader that stops early (`| head`): the export ends quietly, as Unix tools do
    proc = subprocess.Popen([sys.executable, "-m", "emc", "export", "set2-8x8", "-f", "cnf", "-o", "/dev/stdout"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.read(100).startswith(b"c emc")
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and "error" not in err and "Traceback" not in err, err


def test_a_cut_gzip_file_is_a_one_line_error(tmp_path, cli):
    import gzip

    from emc.formats import read_head

    data = gzip.compress(emc.instances.info("set2-4x4").path.read_bytes())
    (tmp_path / "ok.gz").write_bytes(data)
    assert read_head(tmp_path / "ok.gz", 2) == emc.instances.info("set2-4x4").path.read_text().splitlines()[:2]
    cut = tmp_path / "cut.gz"
    cut.write_bytes(data[:20])
    r = cli("info", cut)
    assert r.code == 2 and "cannot read: Compressed file ended" in r.err and r.err.count("\n") == 1, r


# ------------------------------------------------------------------ audit: edge cases of the readers
def _read_error(tmp_path, text, name="bad.txt"):
    path = tmp_path / name
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    with pytest.raises(InputError) as exc:
        read_puzzle(path)
    assert exc.value.path == str(path)
    return exc.value


def test_colours_up_to_the_largest_are_read_and_one_past_it_is_named(tmp_path):
    from emc.model import MAX_COLOUR

    top = GOOD_3X3.replace("3 3 4 4", f"3 3 4 {MAX_COLOUR}")
    assert read_puzzle(_write(tmp_path, "ok.txt", "3 3\n" + top + "\n")).pieces[8].tolist() == [3, 3, 4, MAX_COLOUR]
    err = _read_error(tmp_path, "3 3\n" + GOOD_3X3.replace("3 3 4 4", f"3 3 4 {MAX_COLOUR + 1}") + "\n")
    assert err.line == 10 and err.reason == f"colour {MAX_COLOUR + 1} is too large (at most {MAX_COLOUR})"


def test_a_file_with_cr_line_ends_reads_as_lf_and_its_errors_name_the_right_line(tmp_path):
    lf = read_puzzle(_write(tmp_path, "lf.txt", "3 3\n" + GOOD_3X3 + "\n"))
    cr = tmp_path / "cr.txt"
    cr.write_bytes(("3 3\r" + GOOD_3X3.replace("\n", "\r") + "\r").encode())
    assert same_puzzle(read_puzzle(cr), lf)
    err = _read_error(tmp_path, ("3 3\r" + GOOD_3X3.replace("0 0 1 2", "0 0 x 2").replace("\n", "\r")).encode())
    assert err.line == 3 and "not a whole number" in err.reason
    # a byte that is not UTF-8 is counted by the same line ends
    raw = ("3 3\r" + GOOD_3X3.replace("\n", "\r")).encode().replace(b"0 0 2 1", b"0 0 \xff 1")
    err = _read_error(tmp_path, raw)
    assert err.line == 4 and err.reason == "byte 0xff is not UTF-8 text"


def test_a_piece_line_with_a_fifth_number_is_a_ragged_line(tmp_path):
    err = _read_error(tmp_path, "3 3\n" + GOOD_3X3.replace("0 0 2 1", "0 0 2 1 7") + "\n")
    assert err.line == 4 and err.reason == "ragged line: a piece needs 4 colours (top right bottom left), found 5"


def test_a_piece_with_border_on_opposite_sides_is_refused(tmp_path):
    err = _read_error(tmp_path, "3 3\n" + GOOD_3X3.replace("0 0 2 2", "0 2 0 2") + "\n")
    assert err.line == 5 and err.reason == "piece 4 has two border sides that are not adjacent"


def test_two_hints_for_one_cell_are_refused_at_the_second(tmp_path):
    corner = emc.load("set2-3x3")
    k = next(k for k in range(4) if corner.fits[0, 0, k])
    k2 = next(k for k in range(4) if corner.fits[1, 0, k])
    err = _read_error(tmp_path, f"2\n1 1 1 {k}\n1 1 2 {k2}\n" + GOOD_3X3 + "\n")
    assert err.line == 3 and err.reason == "two hints for row 1 col 1"


def test_one_piece_in_two_hints_is_refused_at_the_second(tmp_path):
    p = emc.load("set2-3x3")
    k1 = next(k for k in range(4) if p.fits[0, 0, k])
    k3 = next(k for k in range(4) if p.fits[0, 2, k])  # the same corner piece on the top-right corner
    err = _read_error(tmp_path, f"2\n1 1 1 {k1}\n1 3 1 {k3}\n" + GOOD_3X3 + "\n")
    assert err.line == 3 and err.reason == "piece 1 is in two hints"


@pytest.mark.parametrize("k", [4, -1])
def test_a_hint_rotation_past_three_quarter_turns_is_refused(tmp_path, k):
    err = _read_error(tmp_path, f"1\n1 1 1 {k}\n" + GOOD_3X3 + "\n")
    assert err.line == 2 and err.reason == f"hint rotation {k} is not 0..3"


@pytest.mark.parametrize("w, h", [(1, 9), (9, 1), (1, 1)])
def test_a_board_one_cell_wide_or_high_is_too_small(tmp_path, w, h):
    err = _read_error(tmp_path, f"{w} {h}\n" + "\n".join(["0 0 0 0"] * (w * h)) + "\n")
    assert err.line == 1 and err.reason == f"board size {w}x{h} is too small"


def test_a_format_version_one_past_the_supported_is_refused_with_its_line(tmp_path):
    from emc.formats import BOARD_FORMAT_VERSION, PUZZLE_FORMAT_VERSION

    p, b = emc.generate(4, 4, 2, 3, seed=9)
    text = format_puzzle(p, "json").replace(f'"version": {PUZZLE_FORMAT_VERSION},', f'"version": {PUZZLE_FORMAT_VERSION + 1},')
    line = text.splitlines().index(f'  "version": {PUZZLE_FORMAT_VERSION + 1},') + 1
    err = _read_error(tmp_path, text, "p.json")
    assert err.line == line and err.reason.startswith(f"format version {PUZZLE_FORMAT_VERSION + 1} is not one this emc")
    text = format_board(b, p, "json").replace(f'"version": {BOARD_FORMAT_VERSION},', f'"version": {BOARD_FORMAT_VERSION + 1},')
    with pytest.raises(InputError, match=f"format version {BOARD_FORMAT_VERSION + 1} is not one this emc") as exc:
        parse_board(text, p, "b.json")
    assert exc.value.line == text.splitlines().index(f'  "version": {BOARD_FORMAT_VERSION + 1},') + 1


def test_a_board_edges_string_in_capitals_reads_as_the_same_board(tmp_path):
    p, b = emc.generate(4, 3, 2, 3, seed=4)
    upper = format_board(b, p, "edges").upper()
    got = read_board(_write(tmp_path, "b.edges", upper), p)
    # the letters show colours, not piece numbers (equal-looking pieces may trade places)
    assert np.array_equal(got.shown(p), b.shown(p)) and emc.verify(p, got).solved


def test_a_board_rotation_of_four_quarter_turns_is_refused(tmp_path):
    p, b = emc.generate(4, 4, 2, 3, seed=9)
    d = json.loads(format_board(b, p, "json"))
    d["rotations"][1][2] = 4
    with pytest.raises(InputError) as exc:
        parse_board(json.dumps(d, indent=1), p, "b.json")
    assert exc.value.path == "b.json" and exc.value.reason == "r2c3: rotation 4 is not 0..3"
    # named at the line of that row of "rotations" (it was the line of the same row of "pieces")
    lines = format_board(b, p, "json").splitlines()
    at = lines.index('  "rotations": [') + 2  # row 2 of the rotations, as emc writes them
    lines[at] = re.sub(r"\[\d+", "[70", lines[at], count=1)
    with pytest.raises(InputError) as exc:
        parse_board("\n".join(lines), p, "b.json")
    assert exc.value.reason == "r2c1: rotation 70 is not 0..3" and exc.value.line == at + 1
    d["rotations"][1][2] = -1
    with pytest.raises(InputError, match="r2c3: rotation -1 is not 0..3"):
        parse_board(json.dumps(d), p, "b.json")


def test_a_hint_cell_in_board_edges_holds_the_hint_piece_among_equal_looking_ones():
    """Letters cannot tell equal pieces (or a symmetric piece's turns) apart: the hint cell
    showing its hint's colours is read as the hint, so the board keeps its hint."""
    p, b = emc.generate(4, 4, 1, 1, seed=1)
    inner = [q for q in range(16) if (p.pieces[q] == 0).sum() == 0]
    assert len(inner) == 4 and all(len(set(p.pieces[q].tolist())) == 1 for q in inner)  # four equal, symmetric pieces
    first = min(inner)
    text = "\n".join(" ".join(map(str, r)) for r in p.pieces.tolist())
    hinted = parse_puzzle(f"1\n3 3 {first + 1} 1\n{text}\n", "hinted.txt")  # r3c3 (cell 10): the first inner piece, turned once
    board = b.copy()
    at = int(np.flatnonzero(board.piece == first)[0])
    board.piece[[at, 10]] = board.piece[[10, at]]
    board.rotation[10] = 1
    assert emc.verify(hinted, board).solved
    got = parse_board(format_board(board, hinted, "edges"), hinted, "b.edges")
    assert (int(got.piece[10]), int(got.rotation[10])) == (first, 1)
    assert emc.verify(hinted, got).solved


def test_extra_keys_may_not_overwrite_what_the_board_file_says(tmp_path):
    p, b = emc.generate(4, 4, 2, 3, seed=9)
    for key in ("score", "pieces", "puzzle"):
        with pytest.raises(InputError, match=rf"extra keys \['{key}'\] are the board file's own"):
            format_board(b, p, "json", extra={key: 0, "note": "x"})
    d = json.loads(format_board(b, p, "json", extra={"note": "x"}))
    assert d["note"] == "x" and d["score"] == p.max_score


def test_a_board_written_under_txt_or_edges_is_a_board_edges_string(tmp_path):
    p, b = emc.generate(4, 4, 2, 3, seed=9)
    for name in ("b.txt", "b.edges", "b.TXT"):
        assert write_board(b, p, tmp_path / name) == "edges"
        assert (tmp_path / name).read_text() == format_board(b, p, "edges")
    assert write_board(b, p, tmp_path / "b.json") == "json"


@pytest.mark.parametrize("key", ["width", "height", "pieces"])
def test_a_puzzle_json_missing_a_required_key_names_it(tmp_path, key):
    p, _ = emc.generate(4, 4, 2, 3, seed=9)
    d = json.loads(format_puzzle(p, "json"))
    del d[key], d["sha256"]
    err = _read_error(tmp_path, json.dumps(d, indent=2), "p.json")
    assert err.line == 1 and err.reason == f"missing key {key!r}"


def test_a_huge_negative_piece_number_in_a_board_is_out_of_range_with_its_line(tmp_path):
    p, b = emc.generate(4, 4, 2, 3, seed=9)
    text = format_board(b, p, "json")
    lines = text.splitlines()
    row2 = lines.index('  "pieces": [') + 2
    lines[row2] = "    [" + str(-10**20) + lines[row2][lines[row2].index(","):]
    with pytest.raises(InputError) as exc:
        parse_board("\n".join(lines) + "\n", p, "b.json")
    assert exc.value.line == row2 + 1 and exc.value.reason == f"pieces row 2: {-10**20} is out of range"


def test_a_blank_puzzle_name_in_json_gives_the_file_name(tmp_path):
    p, _ = emc.generate(4, 4, 2, 3, seed=9)
    d = json.loads(format_puzzle(p, "json"))
    d["name"] = "   "
    q = read_puzzle(_write(tmp_path, "fromfile.json", json.dumps(d)))
    assert q.name == "fromfile" and same_puzzle(p, q)


def test_a_gz_suffix_in_capitals_also_compresses(tmp_path):
    import gzip

    p, _ = emc.generate(4, 4, 2, 3, seed=9)
    for name in ("p.txt.GZ", "p.txt.Gz"):
        write_puzzle(p, tmp_path / name, "wh")
        data = (tmp_path / name).read_bytes()
        assert data[:2] == b"\x1f\x8b" and gzip.decompress(data).decode() == format_puzzle(p, "wh")
        assert same_puzzle(read_puzzle(tmp_path / name), p)


def test_gzip_output_carries_no_timestamp(tmp_path):
    """The header's MTIME field is zero, so equal text gives equal bytes at any time."""
    import gzip

    p, _ = emc.generate(4, 4, 2, 3, seed=9)
    write_puzzle(p, tmp_path / "p.json.gz")
    data = (tmp_path / "p.json.gz").read_bytes()
    assert data[4:8] == b"\0\0\0\0"
    assert data[:2] == b"\x1f\x8b" and gzip.decompress(data).decode() == format_puzzle(p, "json")
