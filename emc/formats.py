"""Reading and writing puzzles and boards.

Puzzle formats (detected on read):

``heule``
    Heule's format: a line with the number of hints, that many lines
    ``row col piece rotation`` (1-based row, column and piece, rotation in clockwise quarter
    turns), then one piece a line ``N E S W``. The board size is not stored: it follows from
    the numbers of corner, edge and inner pieces.
``wh``
    A ``W H`` header line, then one piece a line: top, right, bottom, left.
``json``
    emc's canonical JSON (``"format": "emc-puzzle"``): name, size, hints, provenance, pieces.

Board formats (detected on read):

``json``
    emc's canonical JSON (``"format": "emc-board"``): the puzzle's name and hash, then two
    grids, 1-based piece numbers (0 = empty) and rotations, one board row a line.
``edges``
    The community "board_edges" string pasted into the public online viewers: one line, the
    cells row-major from the top-left, four letters each (up, right, down, left), letter =
    ``'a' + colour`` (``'a'`` is the border). An empty cell is ``aaaa``.
``url``
    A link to the community viewer at e2.bucas.name: ``https://e2.bucas.name/#`` followed by
    ``&``-separated parameters ``puzzle`` (a label), ``board_w``, ``board_h``, ``board_edges``
    (as above) and optionally ``board_pieces`` (three digits a cell: the 1-based piece number,
    ``000`` for an empty cell) and ``motifs_order`` (which letter stands for which Eternity II
    motif: ``jblackwood`` (also called ``marie``), ``jef``, or absent for the viewer's own
    order). See :func:`format_board_url`.

Every error names the file, the line and the reason (:class:`emc.errors.InputError`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

from .errors import InputError, UnknownNameError, parse_whole, read_whole, shorten as _shorten
from .io import write_text
from .model import BORDER, MAX_COLOUR, Board, Hint, Puzzle, check_name, name_from_path, require_puzzle

PUZZLE_FORMATS = ("heule", "wh", "json")
BOARD_FORMATS = ("json", "edges", "url")
EDGES_MAX_COLOUR = 25  # board_edges writes colour c as the letter 'a' + c
PUZZLE_FORMAT_VERSION = 1
BOARD_FORMAT_VERSION = 1
RESULT_FORMAT = "emc-matheuristic-result"  # the matheuristic commands' --result files (emc.heuristics.decomposition.run)
RESULT_FORMAT_VERSION = 1
RUN_RESULT_FORMAT = "emc-run-result"  # emc optimise's --result files, any method (emc.heuristics.core.method)
RUN_RESULT_FORMAT_VERSION = 1
#: The run records a board reader takes as their final board, with the version each is at.
RESULT_FORMATS = {RESULT_FORMAT: RESULT_FORMAT_VERSION, RUN_RESULT_FORMAT: RUN_RESULT_FORMAT_VERSION}
#: Largest puzzle or board file read (bytes, after gzip): a 100,000-cell puzzle is about 2.5 MB
MAX_INPUT_BYTES = 256 << 20


# ---------------------------------------------------------------- reading text
@contextlib.contextmanager
def _open_bytes(path: str | os.PathLike) -> Iterator[IO[bytes]]:
    """``path`` opened for reading bytes, through gzip when it starts with gzip's magic (read
    once, so a pipe works too); a missing file, a folder or an unreadable file is an InputError
    naming it."""
    p = Path(path)
    if not p.exists():
        raise InputError("no such file", path)
    if p.is_dir():
        raise InputError("is a folder, not a file", path)
    try:
        f = p.open("rb")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path) from None
    with f:
        if f.peek(2)[:2] == b"\x1f\x8b":
            import gzip

            with gzip.GzipFile(fileobj=f, mode="rb") as gz:
                yield gz
        else:
            yield f


def _decode_text(data: bytes, path: str | os.PathLike, first_line: int = 1) -> str:
    try:
        return data.decode("utf-8-sig")  # a byte-order mark some editors write is dropped
    except UnicodeDecodeError as exc:
        line = first_line + len(re.split(rb"\r\n|\r|\n", data[:exc.start])) - 1
        raise InputError(f"byte {data[exc.start]:#04x} is not UTF-8 text", path, line) from None


def read_head(path: str | os.PathLike, n: int) -> list[str]:
    """The first ``n`` lines of a text file (gzip allowed), without reading the rest: the
    header of an exported model that may be gigabytes long."""
    lines: list[str] = []
    with _open_bytes(path) as f:
        try:
            for raw in f:
                if len(lines) >= n:
                    break
                lines.append(_decode_text(raw, path, len(lines) + 1).rstrip("\r\n"))
        except (OSError, EOFError) as exc:  # a broken or cut gzip stream
            raise InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}", path) from None
    return lines


def _read_bytes(path: str | os.PathLike, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of an input file (gzip allowed); one over ``limit`` bytes (``/dev/zero``, a
    wrong file) is refused without reading it all."""
    with _open_bytes(path) as f:
        try:
            data = f.read(limit + 1)
        except (OSError, EOFError) as exc:  # an unreadable file, or a broken or cut gzip stream
            raise InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}", path) from None
    if len(data) > limit:
        raise InputError(f"larger than {limit >> 20} MB: not a file emc reads", path)
    return data


def _read_text(path: str | os.PathLike, limit: int = MAX_INPUT_BYTES) -> str:
    """The text of a puzzle, board or answer file (:func:`_read_bytes`, decoded)."""
    text = _decode_text(_read_bytes(path, limit), path)
    if not text.strip():
        raise InputError("empty file", path)
    return text


def _int_tokens(tokens: list[str], path: str, line: int, what: str, count: int | None = None) -> list[int]:
    """Whole numbers written with ASCII digits and an optional minus (``int()`` alone would
    also take ``1_0``, ``+5`` and other scripts' digits); exactly ``count`` of them if given."""
    if count is not None and len(tokens) != count:
        raise InputError(f"{what}: expected {count} number{'s' if count != 1 else ''}, found {len(tokens)}", path, line)
    return [read_whole(t, what, path, line) for t in tokens]


def _check_colour(v: int, path: str, line: int | None, what: str = "") -> None:
    if v < 0:
        raise InputError(f"{what}colour {v} is negative", path, line)
    if v > MAX_COLOUR:
        raise InputError(f"{what}colour {v} is too large (at most {MAX_COLOUR})", path, line)


def text_lines(text: str) -> list[str]:
    """The lines of a text as editors number them: CRLF, CR or LF ends a line (splitlines()
    would also break at form feeds and U+2028, and the line numbers in messages would drift)."""
    return re.split(r"\r\n|\r|\n", text)


def _numbered_lines(text: str) -> list[tuple[int, list[str]]]:
    """Non-blank lines as (1-based line number, tokens)."""
    out = []
    for i, raw in enumerate(text_lines(text), start=1):
        toks = raw.split()
        if toks:
            out.append((i, toks))
    return out


def detect_puzzle_format(text: str) -> str | None:
    s = text.lstrip()
    if s.startswith(("{", "[")):
        return "json"  # "[" is JSON too, if not a puzzle object: the JSON reader says so
    lines = _numbered_lines(text)
    if not lines:
        return None
    n = len(lines[0][1])
    return {1: "heule", 2: "wh"}.get(n)


def _parse_pieces(lines: list[tuple[int, list[str]]], path: str) -> tuple[np.ndarray, list[int]]:
    pieces, where = [], []
    for ln, toks in lines:
        if len(toks) != 4:
            raise InputError(f"ragged line: a piece needs 4 colours (top right bottom left), found {len(toks)}", path, ln)
        vals = _int_tokens(toks, path, ln, "colour")
        for v in vals:
            _check_colour(v, path, ln)
        pieces.append(vals)
        where.append(ln)
    if not pieces:
        raise InputError("no pieces in file", path)
    return np.array(pieces, dtype=np.int64), where


def infer_size(pieces: np.ndarray) -> tuple[int, int] | None:
    """Board size ``(W, H)``, ``W >= H``, from the numbers of corner, edge and inner pieces."""
    zeros = (pieces == BORDER).sum(axis=1)
    corners, edges, inner = int((zeros == 2).sum()), int((zeros == 1).sum()), int((zeros == 0).sum())
    if corners != 4 or edges % 2 or len(pieces) != corners + edges + inner:
        return None
    s = edges // 2  # (W-2) + (H-2)
    for b in range(0, s // 2 + 1):
        a = s - b
        if a * b == inner:
            return a + 2, b + 2
    return None


def _check_structure(puzzle: Puzzle, path: str, where: list[int] | None) -> None:
    """Raise on defects that make the puzzle unplaceable; milder ones are left to `emc info`."""
    zeros = (puzzle.pieces == BORDER).sum(axis=1)
    line = lambda p: where[p] if where else None  # noqa: E731
    for p in range(puzzle.n_pieces):
        if zeros[p] > 2:
            raise InputError(f"piece {p + 1} has {zeros[p]} border sides (at most 2)", path, line(p))
        if zeros[p] == 2:
            row = puzzle.pieces[p]
            if not any(row[s] == BORDER and row[(s + 1) % 4] == BORDER for s in range(4)):
                raise InputError(f"piece {p + 1} has two border sides that are not adjacent", path, line(p))
    W, H = puzzle.width, puzzle.height
    want = {"corner": 4, "edge": 2 * (W - 2) + 2 * (H - 2), "inner": (W - 2) * (H - 2)}
    have = puzzle.class_counts()
    for k in ("corner", "edge", "inner"):
        if have[k] != want[k]:
            raise InputError(f"{have[k]} {k} pieces, but the {W}x{H} board needs {want[k]}", path)


def _parse_hints(lines: list[tuple[int, list[str]]], path: str) -> list[tuple[int, int, int, int, int]]:
    hints = []
    for ln, toks in lines:
        if len(toks) != 4:
            raise InputError(f"a hint line needs 4 numbers 'row col piece rotation', found {len(toks)}", path, ln)
        r, c, p, k = _int_tokens(toks, path, ln, "hint")
        hints.append((ln, r, c, p, k))
    return hints


def _make_hints(raw: list[tuple[int, int, int, int, int]], W: int, H: int, n: int, path: str) -> list[Hint]:
    out, seen_cells, seen_pieces = [], set(), set()
    for ln, r, c, p, k in raw:
        if not (1 <= r <= H and 1 <= c <= W):
            raise InputError(f"hint cell row {r} col {c} is outside the {W}x{H} board", path, ln)
        if not (1 <= p <= n):
            raise InputError(f"hint piece {p} does not exist (pieces are 1..{n})", path, ln)
        if not (0 <= k <= 3):
            raise InputError(f"hint rotation {k} is not 0..3", path, ln)
        cell = (r - 1) * W + (c - 1)
        if cell in seen_cells:
            raise InputError(f"two hints for row {r} col {c}", path, ln)
        if p in seen_pieces:
            raise InputError(f"piece {p} is in two hints", path, ln)
        seen_cells.add(cell)
        seen_pieces.add(p)
        out.append(Hint(cell, p - 1, k))
    return out


def parse_puzzle(text: str, path: str = "<text>", name: str | None = None, fmt: str | None = None) -> Puzzle:
    """Parse puzzle text in any supported format (``fmt`` forces one)."""
    fmt_given = fmt
    fmt = fmt or detect_puzzle_format(text)
    default_name = name_from_path(path) if path != "<text>" else "puzzle"
    if fmt == "json":
        return _parse_puzzle_json(text, path, name)
    lines = _numbered_lines(text)
    if not lines:
        raise InputError("empty file", path)
    if fmt == "wh":
        ln, toks = lines[0]
        W, H = _int_tokens(toks, path, ln, "header 'W H'", 2)
        if W < 2 or H < 2:
            raise InputError(f"board size {W}x{H} is too small", path, ln)
        pieces, where = _parse_pieces(lines[1:], path)
        if len(pieces) != W * H:
            last = where[-1] if where else ln
            raise InputError(f"wrong piece count: the {W}x{H} board needs {W * H} pieces, the file has {len(pieces)}", path, last)
        puzzle = Puzzle(W, H, pieces, (), name or default_name, {"file": Path(path).name, "format": "wh"})
        _check_structure(puzzle, path, where)
        return puzzle
    if fmt == "heule":
        ln, toks = lines[0]
        if not re.fullmatch(r"-?[0-9]+", toks[0]) and fmt_given is None:
            tok = toks[0]
            if re.fullmatch(r"[a-z]+", tok) and len(tok) % 4 == 0 and len(tok) >= 16:  # 2x2 cells at least
                raise InputError("this is a board (a board_edges string), not a puzzle", path, ln)
            m = re.fullmatch(r"(\d+)[x,;](\d+)", tok)
            said = f"; a 'W H' header is two numbers: '{m.group(1)} {m.group(2)}'" if m else ""
            raise InputError(f"unknown format: the first line holds {_shorten(tok)!r}, expected a hint count (Heule), "
                             f"a 'W H' header or JSON{said}", path, ln)
        (nh,) = _int_tokens(toks, path, ln, "hint count", 1)
        if nh < 0 or nh >= len(lines):
            raise InputError(f"hint count {nh} does not fit the file", path, ln)
        raw_hints = _parse_hints(lines[1 : 1 + nh], path)
        pieces, where = _parse_pieces(lines[1 + nh :], path)
        size = infer_size(pieces)
        if size is None:
            zeros = (pieces == BORDER).sum(axis=1)
            # a wrong hint count on line 1 moves lines between the hints and the pieces
            count = (f"; line {ln} says the {'first ' + str(nh) + ' lines' if nh != 1 else 'line'} after it "
                     f"{'are hints' if nh != 1 else 'is a hint'}") if nh else ""
            raise InputError(
                f"wrong piece count: {len(pieces)} pieces ({int((zeros == 2).sum())} corner, "
                f"{int((zeros == 1).sum())} edge, {int((zeros == 0).sum())} inner) fill no rectangular board{count}",
                path,
                where[-1],
            )
        W, H = size
        hints = _make_hints(raw_hints, W, H, len(pieces), path)
        puzzle = Puzzle(W, H, pieces, hints, name or default_name, {"file": Path(path).name, "format": "heule"})
        _check_structure(puzzle, path, where)
        _check_hints(puzzle, [h[0] for h in raw_hints], path)
        return puzzle
    first = lines[0]
    raise InputError(
        f"unknown format: expected a hint count (Heule), a 'W H' header or JSON on the first line, found {len(first[1])} values",
        path,
        first[0],
    )


class _RepeatedKey(Exception):
    pass


def _no_repeats(pairs: list) -> dict:
    keys = [k for k, _ in pairs]
    for k in keys:
        if keys.count(k) > 1:
            raise _RepeatedKey(k)
    return dict(pairs)


class _LongNumber(Exception):
    pass


def _json_int(digits: str) -> int:
    # numbers up to 100 digits are read, for the range checks that name the field to say
    # what is wrong; longer ones stop here
    try:
        return parse_whole(digits, 100)
    except ValueError:
        raise _LongNumber(digits) from None


def _json_load(text: str, path: str) -> Any:
    """Parsed JSON; a key given twice in one object is refused (json keeps the last one
    silently, so a hand-edited file could say one thing and mean another)."""
    try:
        return json.loads(text, object_pairs_hook=_no_repeats, parse_int=_json_int)
    except _LongNumber as exc:
        digits = exc.args[0]
        raise InputError(f"{digits[:12]}... ({len(digits)} digits) is too large", path, _line_of(text, digits)) from None
    except _RepeatedKey as exc:
        key = exc.args[0]
        again = _line_of(text, f'"{key}"', text.find(f'"{key}"') + 1)  # best effort: its second mention
        raise InputError(f"key {key!r} given twice in one object", path, again) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", path) from None
    except json.JSONDecodeError as exc:
        # json's messages end in "at" and leave the place to lineno/colno ("Unterminated string
        # starting at"): say the column, the line is in the prefix
        where = f" column {exc.colno}" if exc.msg.endswith(" at") else f" (column {exc.colno})"
        raise InputError(f"invalid JSON: {exc.msg}{where}", path, exc.lineno) from None


def _line_of(text: str, needle: str, start: int = 0) -> int | None:
    i = text.find(needle, start)
    return None if i < 0 else text.count("\n", 0, i) + 1


def _array_item_line(text: str, key: str, index: int) -> int | None:
    """1-based line of item ``index`` of the JSON array under ``key`` (best effort)."""
    k = text.find(f'"{key}"')
    if k < 0:
        return None
    i = text.find("[", k)
    if i < 0:
        return None
    depth, item, in_str, j = 0, 0, False, i
    while j < len(text):
        ch = text[j]
        if in_str:
            if ch == "\\":
                j += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth == 2 and item == index:
                return text.count("\n", 0, j) + 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                break
        elif ch == "," and depth == 1:
            item += 1
            if item == index:
                # scalar items: the line of the next non-space character
                m = re.compile(r"\S").search(text, j + 1)
                if m and text[m.start()] not in "[{":
                    return text.count("\n", 0, m.start()) + 1
        j += 1
    return _line_of(text, f'"{key}"')


def _parse_puzzle_json(text: str, path: str, name: str | None) -> Puzzle:
    d = _json_load(text, path)
    if not isinstance(d, dict):
        raise InputError(f"a JSON {type(d).__name__}, expected an object with format 'emc-puzzle'", path, 1)
    if d.get("format") == "emc-board":
        raise InputError("this is a board (emc JSON), not a puzzle", path, 1)
    if d.get("format") in RESULT_FORMATS:
        raise InputError("this is a heuristic's result file (emc JSON, with its board), not a puzzle", path, 1)
    if d.get("format") != "emc-puzzle":
        what = "no 'format' key" if "format" not in d else f"format {d.get('format')!r}"
        raise InputError(f"unknown format: JSON with {what}, expected 'emc-puzzle'", path, 1)
    for key in ("width", "height", "pieces"):
        if key not in d:
            raise InputError(f"missing key {key!r}", path, 1)
    _check_version(d, PUZZLE_FORMAT_VERSION, text, path)
    W, H = d["width"], d["height"]
    if not (isinstance(W, int) and isinstance(H, int)) or isinstance(W, bool) or isinstance(H, bool) or W < 2 or H < 2:
        raise InputError(f"width and height must be whole numbers of at least 2, got {_json_text(W)} and {_json_text(H)}",
                         path, _line_of(text, '"width"'))
    rows = d["pieces"]
    if not isinstance(rows, list):
        raise InputError("'pieces' must be a list of [top, right, bottom, left]", path, _line_of(text, '"pieces"'))
    where = []
    for i, row in enumerate(rows):
        ln = _array_item_line(text, "pieces", i)
        where.append(ln)
        if not isinstance(row, list) or len(row) != 4:
            raise InputError(f"ragged line: piece {i + 1} needs 4 colours", path, ln)
        for v in row:
            if not isinstance(v, int) or isinstance(v, bool):
                raise InputError(f"piece {i + 1}: colour {_json_text(v)} is not a whole number", path, ln)
            _check_colour(v, path, ln, f"piece {i + 1}: ")
    if len(rows) != W * H:
        raise InputError(f"wrong piece count: the {W}x{H} board needs {W * H} pieces, the file has {len(rows)}", path, _line_of(text, '"pieces"'))
    raw = []
    given = d.get("hints", [])
    if not isinstance(given, list):
        raise InputError(f"'hints' must be a list of [row, col, piece, rotation], not {_json_text(given)}", path,
                         _line_of(text, '"hints"'))
    for i, h in enumerate(given):
        ln = _array_item_line(text, "hints", i)
        if (not isinstance(h, list) or len(h) != 4
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in h)):
            raise InputError("a hint is [row, col, piece, rotation] (1-based row, col and piece)", path, ln)
        raw.append((ln, *h))
    hints = _make_hints(raw, W, H, len(rows), path)
    prov = d.get("provenance") or {}
    if not isinstance(prov, dict):
        raise InputError(f"'provenance' must be an object, not {_json_text(prov)}", path, _line_of(text, '"provenance"'))
    given_name = d.get("name")
    if given_name is not None and not isinstance(given_name, str):
        raise InputError(f"'name' must be a string, not {_json_text(given_name)}", path, _line_of(text, '"name"'))
    given_name = (given_name or "").strip() or name_from_path(path)  # a blank name: the file's, as with no name
    try:
        check_name(given_name)
    except InputError as exc:
        raise InputError(exc.reason, path, _line_of(text, '"name"')) from None
    puzzle = Puzzle(W, H, np.array(rows, dtype=np.int64), hints, name or given_name, prov)
    _check_structure(puzzle, path, where)
    _check_hints(puzzle, [ln for ln, *_ in raw], path)
    sha = d.get("sha256")
    if sha is not None and not isinstance(sha, str):
        raise InputError(f"'sha256' must be a string, not {_json_text(sha)}", path, _line_of(text, '"sha256"'))
    if sha is not None and sha != puzzle.sha256:
        raise InputError("the pieces do not match the file's sha256 (edited by hand? then delete the \"sha256\" line)",
                         path, _line_of(text, '"sha256"'))
    return puzzle


def _json_text(value: Any) -> str:
    """A JSON value as JSON spells it (``null``, ``true``), shortened, for messages."""
    return _shorten(json.dumps(value))


def _check_version(d: dict, supported: int, text: str, path: str) -> None:
    v = d.get("version", supported)
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise InputError(f"format version {_json_text(v)}: a version is a whole number from 1", path,
                         _line_of(text, '"version"'))
    if v > supported:
        raise InputError(f"format version {v} is not one this emc reads (1..{supported}); a newer emc wrote it?",
                         path, _line_of(text, '"version"'))


def _check_hints(puzzle: Puzzle, lines: list[int], path: str) -> None:
    """Every hint must show the border colour exactly on the sides of its cell that face the
    frame, and hints on neighbouring cells must match each other."""
    for h, ln in zip(puzzle.hints, lines):
        why = puzzle.hint_problem(h)
        if why:
            raise InputError(why, path, ln)
    line_of = {h.cell: ln for h, ln in zip(puzzle.hints, lines)}
    clashes = puzzle.hint_clash_cells()
    if clashes:
        a, b, why = clashes[0]
        raise InputError(why, path, max(line_of[a], line_of[b]))


def read_puzzle(path: str | os.PathLike, name: str | None = None, fmt: str | None = None) -> Puzzle:
    """Read a puzzle file in any supported format (optionally gzipped)."""
    if fmt is not None and fmt not in PUZZLE_FORMATS:
        raise UnknownNameError("puzzle format", fmt, PUZZLE_FORMATS)
    return parse_puzzle(_read_text(path), os.fspath(path), name, fmt)


# ---------------------------------------------------------------- writing puzzles
def format_puzzle(puzzle: Puzzle, fmt: str = "json") -> str:
    """The text of ``puzzle`` in format ``fmt`` (``heule``, ``wh`` or ``json``)."""
    require_puzzle(puzzle, "format_puzzle")
    if fmt not in PUZZLE_FORMATS:
        raise UnknownNameError("puzzle format", fmt, PUZZLE_FORMATS)
    piece_lines = [" ".join(str(int(x)) for x in row) for row in puzzle.pieces]
    hint_rows = [[h.cell // puzzle.width + 1, h.cell % puzzle.width + 1, h.piece + 1, h.rotation] for h in puzzle.hints]
    if fmt == "heule":
        if infer_size(puzzle.pieces) != (max(puzzle.width, puzzle.height), min(puzzle.width, puzzle.height)):
            raise InputError("Heule's format stores no board size and this piece set does not determine it; use wh or json")
        if puzzle.width < puzzle.height:
            raise InputError("Heule's format implies width >= height; use wh or json for a tall board")
        return "\n".join([str(len(hint_rows))] + [" ".join(map(str, h)) for h in hint_rows] + piece_lines) + "\n"
    if fmt == "wh":
        if puzzle.hints:
            raise InputError("the 'W H' format cannot hold hints; write heule or json instead")
        return "\n".join([f"{puzzle.width} {puzzle.height}"] + piece_lines) + "\n"
    head = {
        "format": "emc-puzzle",
        "version": PUZZLE_FORMAT_VERSION,
        "name": puzzle.name,
        "width": puzzle.width,
        "height": puzzle.height,
        "sha256": puzzle.sha256,
        "hints": hint_rows,
        "provenance": _jsonable(puzzle.provenance),
    }
    body = json.dumps(head, indent=2, sort_keys=False)[:-2]  # drop the closing "\n}"
    rows = ",\n".join("    " + json.dumps([int(x) for x in row]) for row in puzzle.pieces)
    return body + ',\n  "pieces": [\n' + rows + "\n  ]\n}\n"


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    return str(obj)


def name_suffix(path: str | os.PathLike) -> str:
    """The suffix a file name gives its format: lower case, past a final ``.gz``
    (``p.JSON`` -> ``.json``, ``s.edges.gz`` -> ``.edges``)."""
    name = os.path.basename(os.fspath(path)).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return os.path.splitext(name)[1]


def write_puzzle(puzzle: Puzzle, path: str | os.PathLike, fmt: str | None = None) -> str:
    """Write ``puzzle`` atomically; the format defaults from the suffix (``.json`` -> json,
    otherwise ``wh``, or ``heule`` when the puzzle has hints). Returns the format used."""
    from .drawing import is_picture_name

    if is_picture_name(path):  # as write_board: text under a picture's name opens nowhere
        raise InputError(f"{path}: a puzzle file is JSON, 'W H' or Heule text, not a picture: draw it with "
                         "emc.render.render")
    fmt = puzzle_format_for(puzzle, path, fmt)
    write_text(path, format_puzzle(puzzle, fmt))
    return fmt


def puzzle_format_for(puzzle: Puzzle, path: str | os.PathLike, fmt: str | None = None) -> str:
    """The format :func:`write_puzzle` writes ``puzzle`` to ``path`` in: ``fmt``, else from the
    suffix (``.json`` -> json, otherwise ``wh``, or ``heule`` when the puzzle has hints)."""
    if fmt is not None:
        return fmt
    return "json" if name_suffix(path) == ".json" else ("heule" if puzzle.hints else "wh")


# ---------------------------------------------------------------- boards
def detect_board_format(text: str) -> str | None:
    s = text.strip()
    if s.startswith("{"):
        return "json"
    if re.fullmatch(r"[a-zA-Z]+", s):
        return "edges"
    if looks_like_url(s):
        return "url"
    return None


def _validate_board(puzzle: Puzzle, piece: np.ndarray, rot: np.ndarray, path: str, line_of_cell,
                    repeats: bool = False, rotation_line_of_cell=None) -> None:
    """Pieces that exist, used once, turned 0..3 times; errors at ``line_of_cell(cell)`` (a
    rotation's at ``rotation_line_of_cell(cell)`` when the rotations have lines of their own)."""
    rotation_line_of_cell = rotation_line_of_cell or line_of_cell
    seen: dict[int, int] = {}
    for cell in range(puzzle.n_cells):
        p = int(piece[cell])
        if p < 0:
            continue
        label = puzzle.cell_label(cell)
        if p >= puzzle.n_pieces:
            raise InputError(f"{label}: piece {p + 1} does not exist (the puzzle has {puzzle.n_pieces} pieces)", path, line_of_cell(cell))
        if not 0 <= rot[cell] <= 3:
            raise InputError(f"{label}: rotation {int(rot[cell])} is not 0..3", path, rotation_line_of_cell(cell))
        if p in seen and not repeats:
            raise InputError(f"{label}: piece {p + 1} is used twice (also on {puzzle.cell_label(seen[p])})", path, line_of_cell(cell))
        seen[p] = cell


def parse_board(text: str, puzzle: Puzzle, path: str = "<text>", fmt: str | None = None, check_puzzle: bool = True,
                repeats: bool = False) -> Board:
    """Parse a board for ``puzzle`` in any supported format (``fmt`` forces one).

    A piece placed twice is refused as bad input unless ``repeats`` (``emc verify`` and
    ``emc score`` read such boards and report the repeat as a problem of the board)."""
    fmt = fmt or detect_board_format(text)
    if fmt == "json":
        return _parse_board_json(text, puzzle, path, check_puzzle, repeats)
    if fmt == "edges":
        return _parse_board_edges(text, puzzle, path, repeats)
    if fmt == "url":
        return parse_board_url(text, puzzle, path, repeats)
    raise InputError("unknown board format: expected emc JSON, a board_edges letter string or a viewer link", path, 1)


def read_board(path: str | os.PathLike, puzzle: Puzzle, fmt: str | None = None, check_puzzle: bool = True,
               repeats: bool = False) -> Board:
    """Read a board file for ``puzzle``; checks it was made for this puzzle (unless told not
    to). ``repeats``: as for :func:`parse_board`."""
    require_puzzle(puzzle, "read_board")
    if fmt is not None and fmt not in BOARD_FORMATS:
        raise UnknownNameError("board format", fmt, BOARD_FORMATS)
    return parse_board(_read_text(path), puzzle, os.fspath(path), fmt, check_puzzle, repeats)


def _parse_board_json(text: str, puzzle: Puzzle, path: str, check_puzzle: bool, repeats: bool = False) -> Board:
    d = _json_load(text, path)
    if isinstance(d, dict) and d.get("format") in RESULT_FORMATS:
        _check_version(d, RESULT_FORMATS[d["format"]], text, path)
        if not isinstance(d.get("board"), dict):
            raise InputError("this result file holds no board (its 'board' key is missing or not an object)", path,
                             _line_of(text, '"board"') if '"board"' in text else 1)
        d = d["board"]  # a heuristic's --result file holds its final board: read that
    if isinstance(d, dict) and d.get("format") == "emc-puzzle":
        raise InputError("this is a puzzle (emc JSON), not a board", path, 1)
    if not isinstance(d, dict) or d.get("format") != "emc-board":
        what = ("no 'format' key" if "format" not in d else f"format {d.get('format')!r}") if isinstance(d, dict) \
            else f"a {type(d).__name__}"
        raise InputError(f"unknown board format: JSON with {what}, expected 'emc-board'", path, 1)
    _check_version(d, BOARD_FORMAT_VERSION, text, path)
    for key in ("width", "height"):
        if key not in d:
            raise InputError(f"missing key {key!r}", path, 1)
    W, H = d.get("width"), d.get("height")
    for key, v in (("width", W), ("height", H)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise InputError(f"'{key}' must be a whole number, not {_json_text(v)}", path, _line_of(text, f'"{key}"'))
    if (W, H) != (puzzle.width, puzzle.height):
        raise InputError(f"board is {W}x{H} but puzzle {puzzle.name!r} is {puzzle.size}", path, _line_of(text, '"width"'))
    meta = d.get("puzzle") or {}
    if not isinstance(meta, dict) or not isinstance(meta.get("sha256", ""), str):
        raise InputError("'puzzle' must be an object with the puzzle's name and sha256 (strings)", path,
                         _line_of(text, '"puzzle"'))
    if check_puzzle and meta.get("sha256") and meta["sha256"] != puzzle.sha256:
        raise InputError(
            f"board was made for puzzle {meta.get('name') or '?'!r} (sha256 {meta['sha256'][:12]}...), "
            f"not for {puzzle.name!r} ({puzzle.sha256[:12]}...)",
            path,
            _line_of(text, '"sha256"'),
        )
    grids = {}
    for key in ("pieces", "rotations"):
        rows = d.get(key)
        if not isinstance(rows, list) or len(rows) != H:
            raise InputError(f"{key!r} must be a list of {H} rows", path, _line_of(text, f'"{key}"'))
        for r, row in enumerate(rows):
            ln = _array_item_line(text, key, r)
            if not isinstance(row, list) or len(row) != W:
                n = len(row) if isinstance(row, list) else 1
                raise InputError(f"ragged line: {key} row {r + 1} must hold {W} numbers, found {n}", path, ln)
            for v in row:
                if not isinstance(v, int) or isinstance(v, bool):
                    raise InputError(f"{key} row {r + 1}: {_json_text(v)} is not a whole number", path, ln)
                if abs(v) > 1 << 31:
                    raise InputError(f"{key} row {r + 1}: {v} is out of range", path, ln)
        grids[key] = np.array(rows, dtype=np.int64).ravel()
    piece = grids["pieces"] - 1  # 0 = empty -> -1
    rot = grids["rotations"]
    for cell in np.flatnonzero(piece < -1):
        raise InputError(f"{puzzle.cell_label(cell)}: piece number {int(piece[cell]) + 1} is negative", path, _array_item_line(text, "pieces", cell // W))
    rot = np.where(piece >= 0, rot, 0)
    _validate_board(puzzle, piece, rot, path, lambda c: _array_item_line(text, "pieces", c // W), repeats,
                    lambda c: _array_item_line(text, "rotations", c // W))
    return Board(W, H, piece, rot)


def _parse_board_edges(text: str, puzzle: Puzzle, path: str, repeats: bool = False) -> Board:
    s = text.strip()
    n = puzzle.n_cells
    if len(s) != 4 * n:
        raise InputError(f"board_edges for the {puzzle.size} board has {4 * n} letters, found {len(s)}", path, 1)
    s = s.lower()
    lookup: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for p in range(puzzle.n_pieces):
        for k in range(4):
            lookup.setdefault(tuple(int(x) for x in puzzle.colours[p, k]), []).append((p, k))
    used = np.zeros(puzzle.n_pieces, dtype=bool)
    piece = np.full(n, -1)
    rot = np.zeros(n)
    # A hint cell showing its hint's colours holds the hint (the letters cannot tell a piece that
    # looks the same turned half-way, or an equal piece, from it)
    for h in puzzle.hints:
        key = tuple(ord(ch) - ord("a") for ch in s[4 * h.cell : 4 * h.cell + 4])
        if key == tuple(int(x) for x in puzzle.colours[h.piece, h.rotation]):
            piece[h.cell], rot[h.cell] = h.piece, h.rotation
            used[h.piece] = True
    for cell in range(n):
        word = s[4 * cell : 4 * cell + 4]
        if word == "aaaa" or piece[cell] >= 0:
            continue
        key = tuple(ord(ch) - ord("a") for ch in word)
        cands = lookup.get(key)
        if not cands:
            raise InputError(f"{puzzle.cell_label(cell)} (letters {4 * cell + 1}-{4 * cell + 4}): no piece shows {word!r}", path, 1)
        for p, k in cands:
            if not used[p]:
                used[p] = True
                piece[cell], rot[cell] = p, k
                break
        else:
            if repeats:  # the first piece that shows these colours, placed once more
                piece[cell], rot[cell] = cands[0]
                continue
            raise InputError(f"{puzzle.cell_label(cell)}: {word!r} appears more often than the puzzle has such pieces (a piece used twice)", path, 1)
    return Board(puzzle.width, puzzle.height, piece, rot)


def format_board(board: Board, puzzle: Puzzle, fmt: str = "json", extra: dict | None = None) -> str:
    """The text of ``board`` in format ``fmt`` (``json``, ``edges`` or ``url``)."""
    from .score import _check_types

    _check_types(puzzle, board)
    if fmt not in BOARD_FORMATS:
        raise UnknownNameError("board format", fmt, BOARD_FORMATS)
    if (board.width, board.height) != (puzzle.width, puzzle.height):
        raise InputError(f"board is {board.width}x{board.height}, puzzle is {puzzle.size}")
    if fmt == "url":
        return format_board_url(board, puzzle) + "\n"
    if fmt == "edges":
        if puzzle.max_colour > EDGES_MAX_COLOUR:
            raise InputError(f"colour {puzzle.max_colour} has no letter (board_edges goes up to {EDGES_MAX_COLOUR} = 'z')")
        from .score import check_placements

        check_placements(puzzle, board)  # a piece or turn out of range: one line, as for JSON
        shown = board.shown(puzzle)
        return "".join("aaaa" if p < 0 else "".join(chr(ord("a") + int(c)) for c in row) for p, row in zip(board.piece, shown)) + "\n"
    from .score import score

    W = board.width
    head = {
        "format": "emc-board",
        "version": BOARD_FORMAT_VERSION,
        "puzzle": {"name": puzzle.name, "sha256": puzzle.sha256},
        "width": board.width,
        "height": board.height,
        "score": score(puzzle, board),
        "max_score": puzzle.max_score,
        "empty_cells": int((board.piece < 0).sum()),
    }
    if extra:
        taken = sorted(set(extra) & (set(head) | {"pieces", "rotations"}))
        if taken:  # they would overwrite what the file says of the board
            raise InputError(f"extra keys {taken} are the board file's own")
        head.update(_jsonable(extra))
    body = json.dumps(head, indent=2)[:-2]
    P = (board.piece + 1).reshape(board.height, W)
    R = np.where(board.piece >= 0, board.rotation, 0).reshape(board.height, W)
    width = len(str(puzzle.n_pieces))
    prow = ",\n".join("    [" + ", ".join(f"{int(v):>{width}}" for v in row) + "]" for row in P)
    rrow = ",\n".join("    [" + ", ".join(str(int(v)) for v in row) + "]" for row in R)
    return body + ',\n  "pieces": [\n' + prow + '\n  ],\n  "rotations": [\n' + rrow + "\n  ]\n}\n"


def write_board(board: Board, puzzle: Puzzle, path: str | os.PathLike, fmt: str | None = None, extra: dict | None = None) -> str:
    """Write ``board`` atomically; format from the suffix (``.txt``/``.edges`` -> edges, else json).

    A picture's name (``.png``, ``.svg``, ``.pdf``) is refused: :func:`emc.render.render` draws
    boards; writing JSON under it would make a file no viewer opens."""
    if not isinstance(board, Board) or not isinstance(puzzle, Puzzle):
        raise TypeError("write_board(board, puzzle, path): give an emc.Board, then its emc.Puzzle")
    from .drawing import is_picture_name

    if is_picture_name(path):
        raise InputError(f"{path}: a board file is emc JSON or board_edges (.edges/.txt), not a picture: draw it "
                         "with emc.render.render")
    if fmt is None:
        fmt = "edges" if name_suffix(path) in (".edges", ".txt") else "json"
    write_text(path, format_board(board, puzzle, fmt, extra))
    return fmt


# ---------------------------------------------------------------- links to the community viewer
#: The community viewer: its page reads the board from the part of the link after '#' (or '?').
VIEWER_URL = "https://e2.bucas.name/"
URL_PIECE_DIGITS = 3  # board_pieces gives every cell three digits, so at most 999 pieces fit

#: The viewer draws Eternity II's 22 motifs; ``motifs_order`` says which letter stands for which.
#: Each order is the list: motif in the viewer's own order (the index) -> letter index in that
#: order. emc's shipped ``eternity2`` numbers its colours in the ``jblackwood`` order (Joshua
#: Blackwood's solver's, which the viewer also calls ``marie``).
MOTIF_ORDERS: dict[str, tuple[int, ...]] = {
    "jblackwood": (0, 1, 9, 17, 5, 13, 2, 10, 18, 6, 14, 3, 11, 19, 7, 15, 4, 12, 20, 8, 16, 21, 22),
    "jef": (0, 8, 16, 22, 4, 12, 7, 15, 21, 3, 11, 6, 14, 20, 2, 10, 5, 13, 19, 1, 9, 18, 17),
}
MOTIF_ORDERS["marie"] = MOTIF_ORDERS["jblackwood"]
_DEFAULT_ORDER = tuple(range(23))


def _order(name: str) -> tuple[int, ...]:
    return MOTIF_ORDERS[name] if name else _DEFAULT_ORDER


def _motif_signature(rows) -> tuple:
    """A piece set as the viewer compares them: each piece at its smallest turn, the pieces sorted."""
    return tuple(sorted(min(tuple(r[k:]) + tuple(r[:k]) for k in range(4)) for r in rows))


_E2_SIGNATURES: dict[str, tuple] = {}


def puzzle_motif_order(puzzle: Puzzle) -> str | None:
    """The motif order in which ``puzzle``'s colours are Eternity II's: ``"jblackwood"``,
    ``"jef"``, ``""`` (the viewer's own order) or None when its pieces are not the 256 pieces
    of Eternity II (the viewer then shows its letters with motifs that mean nothing more)."""
    if puzzle.n_pieces != 256 or puzzle.max_colour != 22:
        return None
    if not _E2_SIGNATURES:
        from .io import data_dir

        # the shipped eternity2 instance (instances/manifest.json names this file), in the jblackwood order
        shipped = read_puzzle(data_dir("instances") / "eternity2" / "e2pieces.txt").pieces.tolist()
        to_viewer = {letter: motif for motif, letter in enumerate(MOTIF_ORDERS["jblackwood"])}
        for name in ("jblackwood", "", "jef"):
            order = _order(name)
            _E2_SIGNATURES[name] = _motif_signature([[order[to_viewer[c]] for c in row] for row in shipped])
    mine = _motif_signature(puzzle.pieces.tolist())
    return next((name for name, sig in _E2_SIGNATURES.items() if sig == mine), None)


def _url_label(name: str) -> str:
    """The puzzle's name as the viewer's ``puzzle`` label: it reads no %-escapes and splits at
    '&' and '=', so anything but letters, digits, '_', '.' and '-' becomes '_'."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "board"


def format_board_url(board: Board, puzzle: Puzzle, pieces: bool = True) -> str:
    """The community viewer's link to ``board``.

    ``https://e2.bucas.name/#puzzle=NAME&board_w=W&board_h=H&board_edges=...``, then
    ``&board_pieces=...`` (with ``pieces``, when the puzzle has at most 999 pieces: three
    digits a cell, the 1-based piece number, ``000`` for an empty cell) and
    ``&motifs_order=...`` when the puzzle's colours are Eternity II's in a named order (so the
    viewer draws the real motifs). The same board gives the same link. Colours past 25 ('z')
    have no letter: an InputError.
    """
    edges = format_board(board, puzzle, "edges").strip()  # checks the board and the letters
    params = [f"puzzle={_url_label(puzzle.name)}", f"board_w={puzzle.width}", f"board_h={puzzle.height}",
              f"board_edges={edges}"]
    if pieces and puzzle.n_pieces < 10 ** URL_PIECE_DIGITS:
        params.append("board_pieces=" + "".join(f"{int(p) + 1:03d}" if p >= 0 else "000" for p in board.piece))
    order = puzzle_motif_order(puzzle)
    if order:
        params.append(f"motifs_order={order}")
    return VIEWER_URL + "#" + "&".join(params)


def looks_like_url(text: str) -> bool:
    """Whether ``text`` is meant as a viewer link (a web address, or the viewer's parameters)."""
    s = text.strip()
    return bool(re.match(r"https?://", s, re.IGNORECASE)) or "board_edges=" in s


def url_parameters(text: str, path: str | None = None) -> dict[str, str]:
    """The parameters of a viewer link, as the viewer reads them: those after '?' and after
    '#' alike, split at '&' and at the first '='. A parameter given twice with two values is
    refused (the viewer would silently take the last)."""
    from urllib.parse import unquote

    s = text.strip()
    starts = [i for i in (s.find("?"), s.find("#")) if i >= 0]
    body = s[min(starts) + 1:] if starts else s
    params: dict[str, str] = {}
    for item in re.split(r"[&?#]", body):
        if not item:
            continue
        key, _, value = item.partition("=")
        key, value = unquote(key).strip(), unquote(value).strip()
        if key in params and params[key] != value:
            raise InputError(f"the link gives {key} twice, with two values", path)
        params[key] = value
    return params


def parse_board_url(text: str, puzzle: Puzzle, path: str | None = None, repeats: bool = False) -> Board:
    """The board a viewer link shows (:func:`format_board_url` writes them), for ``puzzle``.

    ``board_pieces``, when given, says which piece is on each cell (the letters then only fix
    its turn); without it, cells are matched to pieces by their colours, as for board_edges.
    The letters are read in the link's ``motifs_order`` and turned into ``puzzle``'s own when
    its pieces are Eternity II's; for other puzzles the letters are its colours. ``path``
    names the file the link came from (None: a link given as it is). ``repeats``: as for
    :func:`parse_board`.
    """
    where = path if path is not None else "viewer link"
    params = url_parameters(text, where)
    for key in ("board_w", "board_h", "board_edges"):
        if key not in params:
            raise InputError(f"the link has no {key} (a board link has board_w, board_h and board_edges)", where)
    w = read_whole(params["board_w"], "board_w", where)
    h = read_whole(params["board_h"], "board_h", where)
    if (w, h) != (puzzle.width, puzzle.height):
        raise InputError(f"the link shows a {w}x{h} board and puzzle {puzzle.name!r} is {puzzle.size}", where)
    edges = params["board_edges"]
    n = puzzle.n_cells
    if len(edges) != 4 * n:
        raise InputError(f"board_edges holds {len(edges)} letters; a {puzzle.size} board needs {4 * n}, four a cell",
                         where)
    bad = re.search(r"[^a-zA-Z]", edges)
    if bad:
        raise InputError(f"board_edges: {bad.group()!r} (character {bad.start() + 1}) is not a letter a-z", where)
    edges = edges.lower()
    order = params.get("motifs_order", "")
    if order and order not in MOTIF_ORDERS:
        raise InputError(f"motifs_order {_shorten(order)!r} is not an order the viewer knows "
                         f"({', '.join(sorted(MOTIF_ORDERS))}, or none)", where)
    mine = puzzle_motif_order(puzzle)
    if mine is not None and mine != order:  # the same motifs, lettered as the puzzle letters them
        theirs, ours = _order(order), _order(mine)
        table = {ord("a") + letter: ord("a") + ours[motif] for motif, letter in enumerate(theirs)}
        edges = edges.translate(table)
    try:
        if "board_pieces" not in params:
            return _parse_board_edges(edges, puzzle, where, repeats)
        return _board_from_numbers(edges, params["board_pieces"], puzzle, where, repeats)
    except InputError as exc:
        if path is None and exc.line is not None:  # a link given as it is has no lines
            raise InputError(exc.reason, where) from None
        raise


def _board_from_numbers(edges: str, numbers: str, puzzle: Puzzle, where: str, repeats: bool) -> Board:
    """The board a link's board_pieces and board_edges describe together: the piece each cell
    names, turned to show the cell's letters (a hint's own turn first, where both fit)."""
    n, digits = puzzle.n_cells, URL_PIECE_DIGITS
    if len(numbers) != digits * n or not (numbers.isascii() and numbers.isdigit()):
        what = f"{len(numbers)} characters" if not (numbers.isascii() and numbers.isdigit()) else f"{len(numbers)} digits"
        raise InputError(f"board_pieces holds {what}; a {puzzle.size} board needs {digits * n} digits, three a cell",
                         where)
    hint_at = {h.cell: h for h in puzzle.hints}
    piece = np.full(n, -1)
    rot = np.zeros(n, dtype=np.int64)
    for cell in range(n):
        number = int(numbers[digits * cell: digits * cell + digits])
        word = edges[4 * cell: 4 * cell + 4]
        label = puzzle.cell_label(cell)
        if number == 0:
            if word != "aaaa":
                raise InputError(f"{label}: board_pieces says empty (000) and board_edges shows {word!r} (pieces are "
                                 "numbered from 001)", where)
            continue
        if number > puzzle.n_pieces:
            raise InputError(f"{label}: board_pieces names piece {number}; puzzle {puzzle.name!r} has "
                             f"{puzzle.n_pieces}", where)
        p = number - 1
        turns = [k for k in range(4) if "".join(chr(ord("a") + int(c)) for c in puzzle.colours[p, k]) == word]
        if not turns:
            raise InputError(f"{label}: piece {number} shows {word!r} turned no way (board_pieces and board_edges "
                             "disagree, or the link is another puzzle's)", where)
        h = hint_at.get(cell)
        piece[cell] = p
        rot[cell] = h.rotation if h is not None and h.piece == p and h.rotation in turns else turns[0]
    _validate_board(puzzle, piece, rot, where, lambda c: None, repeats)
    return Board(puzzle.width, puzzle.height, piece, rot)
