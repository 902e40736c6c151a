"""Read what an outside solver printed for an exported model, for ``emc decode``.

Three kinds of answer, one per family of export formats:

* ``literals`` (cnf, wcnf): the true variables. SAT competition output (``v`` lines of
  signed numbers ending in 0), the MaxSAT Evaluation's output since 2022 (one ``v`` line of
  0/1 characters, the i-th for variable i) or the older signed-number ``v`` lines, and the
  bare lists MiniSat-style solvers write (a ``SAT`` line, then the numbers).
* ``vertices`` (clq, conflict): the 1-based vertex numbers of a clique (or independent set),
  whitespace separated, on as many lines as the solver likes; a leading word on a line
  (``v``, ``M``, ``clique:``) is skipped.
* ``columns`` (lp, mps): ``name value`` pairs as HiGHS, Gurobi, SCIP and CBC write them
  (CBC puts an index before the name and a reduced cost after the value; HiGHS's "pretty"
  style, ``write_solution_style=1``, puts the name last and the value under its ``Primal``
  heading). Only placement
  columns ``x_p.._r.._c.._k..`` are read; the first value printed for a name counts (HiGHS
  writes the duals afterwards under the same names).
* ``minizinc`` (mzn): what ``minizinc`` prints for an exported model: ``piece = [...];
  rotation = [...];`` blocks ending in ``----------``; the last one counts (the best of an
  optimisation). ``=====UNSATISFIABLE=====`` and the other ``=====`` status lines that carry
  no solution are errors naming their line.

Lines starting with ``c``, ``#`` or ``%`` are comments, and ``o`` lines (objective values)
are skipped. A status line that says there is no answer (``s UNSATISFIABLE``, ``UNSAT``,
``s UNKNOWN``) is an error naming that line.
"""

from __future__ import annotations

import math
import os
import re

from .errors import InputError
from .formats import _int_tokens, _read_bytes, _read_text, text_lines

KINDS = ("literals", "vertices", "columns", "minizinc")
_COMMENT = ("c", "#", "%")
_NO_ANSWER = ("UNSATISFIABLE", "UNSAT", "UNKNOWN", "INDETERMINATE", "INFEASIBLE")
# status lines of MILP solution files whose values are no integer solution: CBC's "Integer infeasible",
# "Stopped on time (no integer solution - continuous used)", "Unbounded", HiGHS's "Model status: Infeasible"
_MILP_NO_BOARD = ("infeasible", "unbounded", "no integer solution", "continuous used")
_X_NAME = re.compile(r"^x_p\d+_r\d+_c\d+_k[0-3]$")


class Located(list):
    """Values read from an answer (literals, vertices), with the line each was read from, so
    that a decoder's complaint about one value can name its line (:meth:`line_of`)."""

    def __init__(self, values, lines):
        super().__init__(values)
        self.lines = list(lines)

    def line_of(self, value) -> int | None:
        """The first line holding ``value`` (a literal's variable counts either way), or the
        answer's one line when it has one."""
        if value is not None:
            for v, ln in zip(self, self.lines):
                if v == value or (isinstance(value, int) and abs(v) == abs(value)):
                    return ln
        return self.lines[0] if self.lines and len(set(self.lines)) == 1 else None


class LocatedColumns(dict):
    """``{column name: value}`` with the line each name was read from (:meth:`line_of`)."""

    def __init__(self):
        super().__init__()
        self.lines: dict[str, int] = {}

    def line_of(self, name) -> int | None:
        return self.lines.get(name)


def _lines(text: str):
    for ln, line in enumerate(text_lines(text), start=1):
        toks = line.split()
        if not toks or toks[0] in _COMMENT or toks[0].startswith(("#", "%")):
            continue
        yield ln, toks


def _status(toks: list[str], path: str, ln: int) -> None:
    """Raise when a status line says the solver found no answer."""
    words = [t.upper() for t in toks]
    if words[0] == "S":
        words = words[1:]
    if words and words[0] in _NO_ANSWER:
        raise InputError(f"the solver's answer is {' '.join(toks[1:] if toks[0] == 's' else toks)}: it holds no board",
                         path, ln)


MAX_NUMBER = 1 << 62  # literals and vertex numbers beyond this fit no model (and no int64)


def _short(tok: str) -> str:
    return tok if len(tok) <= 24 else f"{tok[:12]}... ({len(tok)} digits)"


def _int(tok: str, path: str, ln: int, what: str) -> int:
    return _int_tokens([tok], path, ln, what)[0]


def read_literals(text: str, path: str = "<text>", n_vars: int | None = None) -> list[int]:
    """The literals of a SAT or MaxSAT answer, signed as given (a 0/1 string gives one per
    character). With ``n_vars``, a 0/1 string must have exactly that many characters."""
    v_lines = []
    bare = []
    for ln, toks in _lines(text):
        head = toks[0]
        if head == "s" or head.upper() in _NO_ANSWER or head.upper() in ("SAT", "SATISFIABLE", "OPTIMUM"):
            _status(toks, path, ln)
            continue
        if head == "o":
            continue
        if head == "v":
            v_lines.append((ln, toks[1:]))
        else:
            bare.append((ln, toks))
    lits: list[int] = []
    where: list[int] = []
    if v_lines:
        for ln, toks in v_lines:  # a 0/1 string (a literal never starts with 0) with another character
            if len(toks) == 1 and len(toks[0]) > 1 and toks[0][0] == "0" and not set(toks[0]) <= {"0", "1"}:
                k, ch = next((i, c) for i, c in enumerate(toks[0]) if c not in "01")
                raise InputError(f"the 0/1 answer has {ch!r} at character {k + 1:,}, not 0 or 1", path, ln)
        if all(len(toks) == 1 and len(toks[0]) > 1 and set(toks[0]) <= {"0", "1"} for _, toks in v_lines):
            # MaxSAT Evaluation 2022+: character i is variable i + 1; an anytime solver prints a
            # line for each better model found, the last is its answer
            ln, bits = v_lines[-1][0], v_lines[-1][1][0]
            if n_vars is not None and len(bits) != n_vars:
                why = "cut short?" if len(bits) < n_vars else "another file's answer?"
                raise InputError(f"the 0/1 answer gives {len(bits):,} values, the model has {n_vars:,} variables "
                                 f"({why})", path, ln)
            return Located([i + 1 if b == "1" else -(i + 1) for i, b in enumerate(bits)], [ln] * len(bits))
        source = v_lines
    else:
        source = bare
    models = 0
    for ln, toks in source:
        for t in toks:
            v = _int(t, path, ln, "a literal")
            if abs(v) > MAX_NUMBER:
                raise InputError(f"literal {_short(t)} is larger than any model's variables", path, ln)
            if v != 0:
                lits.append(v)
                where.append(ln)
            elif lits:  # 0 ends a model; a solver that prints each better one gives several: the last counts
                last, lits, models = Located(lits, where), [], models + 1
                where = []
    if not source:
        raise InputError("no variable values found (expected 'v' lines or a list of literals)", path)
    if models and not lits:
        return last
    if models:  # literals after the last model's 0: a model cut short
        ended = f"{models} model{'s' if models > 1 else ''} ended by 0"
        raise InputError(f"{ended}, then {len(lits):,} literal{'s' if len(lits) != 1 else ''} without an ending 0 "
                         "(cut short?)", path)
    return Located(lits, where)


_SIZE_WORD = re.compile(r"size|omega|weight|cardinality|order", re.IGNORECASE)


def read_vertices(text: str, path: str = "<text>") -> list[int]:
    """The vertex numbers of a clique or independent set."""
    verts: list[int] = []
    where: list[int] = []
    for ln, toks in _lines(text):
        head = toks[0]
        if head in ("s", "o", "p") or head.upper() in _NO_ANSWER:
            _status(toks, path, ln)
            continue
        words = [t for t in toks if not t.lstrip("-").isdigit()]
        if any(_SIZE_WORD.search(w) for w in words):
            continue  # "size 12", "Maximum clique size: 12", "omega = 12": the clique's size, not a vertex
        if not head.lstrip("-").isdigit():
            toks = toks[1:]  # a leading word: "v 1 5 9", "M 1 5 9", "clique: 1 5 9"
        for t in toks:
            v = _int(t, path, ln, "a vertex")
            if abs(v) > MAX_NUMBER:
                raise InputError(f"vertex {_short(t)} is larger than any graph's vertex count", path, ln)
            verts.append(v)
            where.append(ln)
    if not verts:
        raise InputError("no vertex numbers found", path)
    return Located(verts, where)


def read_columns(text: str, path: str = "<text>") -> dict[str, float]:
    """``{placement column name: value}`` from a MILP solution file."""
    values = LocatedColumns()
    primal_end = None  # HiGHS's "pretty" style: right-aligned columns under a heading line
    for ln, line in enumerate(text_lines(text), start=1):
        toks = line.split()
        if not toks or toks[0] in _COMMENT or toks[0].startswith(("#", "%")):
            continue
        if toks[:5] == ["Index", "Status", "Lower", "Upper", "Primal"]:
            primal_end = line.index("Primal") + len("Primal")  # the values end where the word does
            continue
        low = " ".join(toks).lower()
        if toks[0].upper() in _NO_ANSWER or (any(w in low for w in _MILP_NO_BOARD)
                                             and not any(_X_NAME.match(t) for t in toks)):
            raise InputError(f"the solver's answer is {' '.join(toks)}: it holds no board", path, ln)
        for i, t in enumerate(toks):
            if _X_NAME.match(t):
                if t in values:
                    break  # the first value printed for a name counts
                if primal_end is None:
                    after = toks[i + 1:]
                else:  # the name comes last; the value is the field under "Primal"
                    after = [m.group() for m in re.finditer(r"\S+", line) if m.end() == primal_end]
                for u in after:
                    try:
                        v = float(u)
                    except ValueError:
                        continue
                    if not math.isfinite(v):
                        raise InputError(f"column {t} has the value {_short(u)}, not a number a solution holds", path, ln)
                    values[t] = v
                    values.lines[t] = ln
                    break
                else:
                    where = "under the Primal heading" if primal_end is not None else "after it"
                    raise InputError(f"column {t} has no number {where}", path, ln)
                break
    if not values:
        raise InputError("no placement column (x_p.._r.._c.._k..) with a value found", path)
    return values


def read_answer(path: str | os.PathLike, kind: str, n_vars: int | None = None):
    """The answer in ``path`` (gzip allowed), read as ``kind`` (one of :data:`KINDS`);
    ``n_vars``: the model's variable count, which a 0/1 MaxSAT answer must match."""
    return parse_answer(_read_text(path), os.fspath(path), kind, n_vars)


def read_answer_text(path: str | os.PathLike) -> str:
    """The text of an answer file (gzip allowed), for :func:`parse_answer` and :func:`claimed_cost`."""
    return _read_text(path)


def parse_answer(text: str, path: str, kind: str, n_vars: int | None = None):
    """:func:`read_answer` of a text already read (``path`` names it in messages)."""
    if kind == "literals":
        return read_literals(text, path, n_vars)
    reader = {"vertices": read_vertices, "columns": read_columns, "minizinc": read_minizinc}[kind]
    return reader(text, path)


def claimed_cost(text: str, path: str = "<text>") -> tuple[int, int] | None:
    """The cost a MaxSAT answer claims, its last ``o`` line, as ``(cost, line)``; None without one."""
    last = None
    for ln, toks in _lines(text):
        if toks[0] == "o" and len(toks) == 2:
            last = (_int(toks[1], path, ln, "the cost"), ln)
            if last[0] < 0:
                raise InputError(f"the cost {last[0]} is negative: costs count unmatched edges", path, ln)
    return last


def read_minizinc(text: str, path: str = "answer") -> str:
    """MiniZinc's output text, checked for a status line that holds no solution; the model's
    encoding reads the solutions from it (:func:`emc.encoders.minizinc.parse_output`)."""
    for ln, line in enumerate(text_lines(text), start=1):
        word = line.strip()
        if word.startswith("=====") and word.endswith("=====") and word.strip("=") in (
                "UNSATISFIABLE", "UNKNOWN", "ERROR", "UNSATorUNBOUNDED", "UNBOUNDED"):
            raise InputError(f"the solver's answer is {word.strip('=')}: it holds no board", path, ln)
    return text


def _parse_proto(data: bytes, message, path, what: str):
    """``message`` filled from protobuf text (comments allowed), JSON or binary ``data``; when
    none reads it, the text reader's reason (with its line) names the fault."""
    from google.protobuf import json_format, text_format
    from google.protobuf.message import DecodeError

    if not data.strip():
        raise InputError("empty file", path)
    reason, line = "", None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None:
        try:
            text_format.Parse(text, message)
            return message
        except text_format.ParseError as exc:
            reason, line = f": {str(exc).split(' : ', 1)[-1]}", (exc.GetLine() or None)
        message.Clear()
        if text.lstrip().startswith("{"):
            try:
                json_format.Parse(text, message)
                return message
            except json_format.ParseError as exc:
                reason, line = f": {exc}", None
            message.Clear()
    try:
        message.ParseFromString(data)
        return message
    except DecodeError:
        pass
    raise InputError(f"not a {what} in protobuf text, JSON or binary form{reason}", path, line)


def read_cpsat_response(path: str | os.PathLike) -> tuple[str, list[int], float | None]:
    """A CP-SAT ``CpSolverResponse`` as an outside run writes it (``str(solver.response_proto)``
    in Python, the ``--output`` of OR-Tools' command-line solver; text, JSON or binary): its
    status name, its solution values and, when the model has an objective, the claimed value."""
    from ortools.sat import cp_model_pb2

    resp = _parse_proto(_read_bytes(path), cp_model_pb2.CpSolverResponse(), path, "CP-SAT response")
    status = cp_model_pb2.CpSolverStatus.Name(resp.status)
    if status not in ("OPTIMAL", "FEASIBLE"):
        raise InputError(f"the response's status is {status}: it holds no solution to decode", path)
    if not resp.solution:
        raise InputError(f"the response says {status} but lists no solution values", path)
    return status, [int(v) for v in resp.solution], float(resp.objective_value)


def read_cpsat_model(path: str | os.PathLike):
    """A CP-SAT model file (``.pbtxt`` with emc's comment lines, or binary ``.pb``; gzip allowed)."""
    from ortools.sat import cp_model_pb2

    return _parse_proto(_read_bytes(path), cp_model_pb2.CpModelProto(), path, "CP-SAT model")
