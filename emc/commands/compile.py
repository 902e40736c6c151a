"""The model compiler's commands: ``emc export`` (one file) and ``emc suite`` (a benchmark folder)."""

from __future__ import annotations

import json
import math
import os

from ..encoders import FIXED_GOAL
from ..errors import InputError
from ..model import Goal
from .common import (add_command, check_no_symmetry, check_output_dir, check_output_path, console, err_console, freed_hints_note, load_board, load_puzzle,
                     progress_arg, puzzle_arg, styled, url_arg)

GOALS = ("feasibility", "optimisation")


def goal_arg(parser, formats: str = "lp, mps, cpsat, mzn") -> None:
    parser.add_argument("--goal", choices=GOALS + ("optimization",), default=None,
                        help="feasibility: every counted edge matched; optimisation: most edges matched "
                             f"({formats}; default optimisation). cnf, clq and conflict files always "
                             "ask for a perfect board, wcnf files for the most matched edges")


def subproblem_args(parser) -> None:
    parser.add_argument("--free", metavar="CELLS",
                        help="cells to solve: all, frame, inner, black, white, rows:A-B, cols:A-B, rRcC-rRcC, "
                             "rRcC,..., joined by + (default: every cell without a hint, or the empty cells of "
                             "--fixed)")
    parser.add_argument("--fixed", metavar="BOARD", help="board whose cells outside --free stay as they are")
    parser.add_argument("--no-symmetry", action="store_true",
                        help="do not fix the first corner piece (whole puzzles without hints)")


#: File suffixes that name a format, and the export formats that may be written under them
#: (names with other suffixes, or none, are taken as given).
SUFFIX_TAKES = {"lp": {"lp"}, "mps": {"mps"}, "cnf": {"cnf"}, "wcnf": {"wcnf", "wcnf-old"},
                "wcnf-old": {"wcnf-old"}, "mzn": {"mzn"},
                "dzn": set(), "clq": {"clq"}, "conflict": {"conflict"}, "mis": {"conflict"}, "pbtxt": {"cpsat"},
                "pb": {"cpsat"}, "json": set()}


def goal_of(args, formulation: str) -> Goal:
    """The goal an export asks for: --goal, or the formulation's own; a --goal the format cannot
    express is refused (it would only have changed the header)."""
    fixed = FIXED_GOAL.get(formulation)
    if args.goal is None:
        return fixed or Goal.OPTIMISATION
    goal = Goal.FEASIBILITY if args.goal == "feasibility" else Goal.OPTIMISATION
    if fixed is not None and goal is not fixed:
        raise InputError(f"--goal {args.goal}: {goal_text(formulation)}; leave --goal out")
    return goal


def goal_text(formulation: str) -> str:
    """What a fixed-goal formulation's file asks, in words."""
    if FIXED_GOAL[formulation] is Goal.FEASIBILITY:
        return f"a {formulation} file always asks for a perfect board (feasibility)"
    return f"a {formulation} file always asks for the most matched edges (optimisation)"


def subproblem_from_args(args, puzzle, goal: Goal):
    from ..cells import make_subproblem

    fixed = load_board(args.fixed, puzzle) if args.fixed else None
    sp = make_subproblem(puzzle, args.free, fixed, goal, symmetry_breaking=not args.no_symmetry, fixed_path=args.fixed)
    check_no_symmetry(args, sp)
    return sp


def register(sub) -> None:
    from ..encoders import FORMATS

    fmts = ", ".join(FORMATS) or "(none installed)"
    p = add_command(
        sub, "export", "compile a puzzle or sub-problem into one formulation file",
        "Write PUZZLE (or a sub-problem of it) in one of the literature's formulations and print\n"
        f"its size. Formats: {fmts}.\n"
        "lp/mps: MILP (variants paper = model (1)-(14) of Salassa et al., compact); clq: max-clique\n"
        "graph (DIMACS); conflict: its complement; cnf/wcnf: SAT/MaxSAT (DIMACS); cpsat: CP-SAT\n"
        "model (.pb or .pbtxt); mzn: MiniZinc model with its .dzn beside it. Output ending in .gz\n"
        "is gzipped (not cpsat or mzn: their solvers read no gzip). The same inputs always give\n"
        "the same bytes.",
        """
  emc export set2-8x8 --format clq -o generated/8x8.clq
  emc export meta-10x10 --format lp --variant paper -o generated/meta10.lp
  emc export set2-6x6 --format cnf -o generated/6x6.cnf.gz
  emc export meta-16x16 --format wcnf --fixed board.json --free r1c1-r6c6 -o generated/window.wcnf
  emc export eternity2 --format mps --fixed board.json --free frame -o generated/frame.mps
""", cmd_export)
    puzzle_arg(p)
    p.add_argument("--format", "-f", required=True, metavar="FORMAT", help=f"one of: {fmts}")
    p.add_argument("--variant", help="formulation variant (e.g. paper or compact for lp/mps)")
    goal_arg(p)
    subproblem_args(p)
    p.add_argument("-O", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="encoder option, repeatable: cnf/wcnf card, redundant, order, numbering, tiebreak, ...; cnf prune; "
                        "cpsat balance, pairs, ...; mzn search, value, restart, balance; lp/mps linking (an unknown "
                        "key lists the valid ones; the CNF header records them)")
    p.add_argument("-o", "--output", required=True, metavar="PATH", help="file to write (side files go beside it; missing folders are created)")
    p.add_argument("--json", action="store_true", help="print the sizes as JSON")
    progress_arg(p)

    p = add_command(
        sub, "decode", "turn an outside solver's answer to an exported model into a board",
        "Read what a SAT, MaxSAT, clique or MILP solver printed for a file `emc export` wrote and\n"
        "turn it into a board, checked by emc's verifier. Give the export's own arguments\n"
        "(--format, --variant, --free, --fixed, --no-symmetry), or instead of the puzzle a file\n"
        "`emc suite` wrote, whose manifest row gives them: the model is rebuilt from them\n"
        "(exports are deterministic), and --model checks that the file's header is the one they\n"
        "give. Answers: cnf/wcnf: 'v' lines (SAT competition, MaxSAT Evaluation old and new) or a\n"
        "bare list of literals; clq/conflict: the vertex numbers; lp/mps: 'name value' lines\n"
        "(HiGHS, Gurobi, SCIP, CBC solution files); mzn: what minizinc printed (the last\n"
        "solution); cpsat: the CpSolverResponse of a CP-SAT run on the exported model (text as\n"
        "str(solver.response_proto) prints it, JSON or binary). Exit 0 for a valid board, 1 for\n"
        "an invalid one.",
        """
  emc export set2-6x6 -f cnf -o 6x6.cnf && kissat 6x6.cnf > 6x6.out
  emc decode set2-6x6 6x6.out -f cnf --model 6x6.cnf -o 6x6.json --render 6x6.png
  emc decode meta-16x16 answer.txt -f wcnf --fixed start.json --free r1c1-r6c6 -o better.json
  emc decode set2-5x5 clique.txt -f clq
  minizinc --solver gecode 5x5.mzn 5x5.dzn > 5x5.out && emc decode set2-5x5 5x5.out -f mzn
  highs --model_file 5x5.lp --solution_file 5x5.sol && emc decode set2-5x5 5x5.sol -f lp
  emc decode set2-6x6 response.txt -f cpsat --goal feasibility --model 6x6.pbtxt
  emc decode generated/windows/cnf/gen-16x16-f4-i12-s1.free-r3c3-r8c8.onehot.cnf kissat.out -o b.json
""", cmd_decode)
    p.add_argument("puzzle", metavar="PUZZLE", help="puzzle file (Heule, 'W H' or JSON) or shipped instance name; "
                   "or a model file `emc suite` wrote, whose manifest row then gives everything else")
    p.add_argument("answer", metavar="ANSWER", help="the solver's output or solution file (gzip allowed)")
    p.add_argument("--format", "-f", metavar="FORMAT",
                   help=f"the exported file's format: {', '.join(DECODABLE)} (not with a suite file)")
    p.add_argument("--variant", help="formulation variant the export used")
    p.add_argument("-O", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="encoder option the export used (repeatable; cnf's order, numbering and tiebreak change the "
                        "variable numbers)")
    goal_arg(p, "lp, mps, mzn, cpsat")
    subproblem_args(p)
    p.add_argument("--model", metavar="FILE", help="the exported file (cnf, wcnf, clq, conflict: its header; cpsat: "
                   "the whole model) must be what these arguments export (lp/mps answers name their columns and "
                   "need no model)")
    p.add_argument("-o", "--output", metavar="BOARD", help="write the board (.json, or .edges/.txt for board_edges)")
    p.add_argument("--render", metavar="PNG", help="draw the board (.png, .svg, .pdf, or .html for a page)")
    p.add_argument("--show", action="store_true", help="draw the board in the terminal")
    url_arg(p)
    p.add_argument("--json", action="store_true", help="print the report as JSON")

    p = add_command(
        sub, "suite", "write a folder of benchmark files with a manifest",
        "Compile a list of instances (shipped names, or generated from parameters and seeds)\n"
        "into a list of formats, and write them with a manifest (manifest.json and .csv):\n"
        "instance, generator parameters, formulation, variant, goal, sizes, sha256, known answer\n"
        "and how it is known. With --free, sub-problems of generated puzzles (a region free, the\n"
        "rest of the planted solution fixed) instead of whole puzzles, each known satisfiable.\n"
        "The same arguments always give byte-identical files.",
        """
  emc suite -o generated/suite --instances set2-5x5,set2-6x6,set2-7x7 --formats cnf,wcnf,clq
  emc suite -o generated/sat8 --generate 8x8:3:5:1-10 --formats cnf --gzip
  emc suite -o generated/milp --instances 'set2-*x*' --max-cells 64 --formats lp,mps --variants paper,compact
  emc suite -o generated/enc --instances set2-6x6 --formats cnf --variants onehot,log -O redundant=triples
  emc suite -o generated/windows --generate 16x16:4:12:1-5 --free r3c3-r8c8 --free r3c3-r9c9 --formats cnf,clq
  emc suite -o generated/hard --generate 10x10:3:5:1-20 --free rows:2-6 --formats cnf --estimate 10000
  emc suite -o generated/seed002 --generate 8x8:uniform:8:1-10 --free all~corners --formats cnf --estimate 10000
""", cmd_suite)
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="folder to write (created if missing)")
    p.add_argument("--instances", metavar="NAMES", default="",
                   help="comma-separated instance names or files; shell-style patterns like 'set2-*x8' work")
    p.add_argument("--generate", metavar="SPEC", action="append", default=[],
                   help="generated puzzles WxH:F:I:SEEDS (F frame colours, I inner colours, SEEDS like 1-5 or 1,4,9), "
                        "or WxH:uniform:K:SEEDS (the uniform model of emc generate: K colours on every edge; "
                        "add :distinct for puzzles without two equal pieces, as emc generate --distinct); repeatable")
    p.add_argument("--formats", required=True, metavar="LIST", help=f"comma-separated formats: {fmts}")
    p.add_argument("--variants", metavar="LIST", default="",
                   help="comma-separated variants, applied to the formats that accept them (e.g. paper,compact)")
    goal_arg(p)
    p.add_argument("--max-cells", type=int, default=None, metavar="N", help="skip instances with more than N cells")
    p.add_argument("--gzip", action="store_true",
                   help="gzip the files, except cpsat and mzn (CP-SAT and MiniZinc do not read gzip)")
    p.add_argument("--no-symmetry", action="store_true", help="no symmetry breaking")
    p.add_argument("--free", metavar="CELLS", action="append", default=[],
                   help="sub-problems instead of whole puzzles: these cells free, the others keeping the generated "
                        "puzzle's planted solution (cell sets as for export: frame, rows:A-B, rRcC-rRcC, ..., joined "
                        "by +, ~ taking cells away: all~corners); repeatable, one set of files per cell set")
    p.add_argument("-O", "--option", metavar="KEY=VALUE", action="append", default=[],
                   help="encoder option as for export, given to the formats that take it (e.g. -O redundant=triples "
                        "for cnf and wcnf); repeatable; the manifest lists each file's options")
    p.add_argument("--estimate", type=int, default=0, metavar="WALKS",
                   help="add a difficulty estimate to each row: Knuth's estimate, from WALKS random walks (e.g. "
                        "10000), of the nodes emc's backtrack search needs to list every perfect fill of the "
                        "sub-problem (default 0: none)")


def _check_export_suffix(path: str, fmt: str) -> None:
    """Refuse a file name whose suffix promises what will not be in it: a compression other than
    gzip, or another file format (``-o model.mps`` with ``--format lp``)."""
    from pathlib import Path

    suffixes = [x.lower() for x in Path(path).suffixes]
    if suffixes and suffixes[-1] in (".bz2", ".xz", ".zst", ".zip", ".lzma", ".7z", ".z", ".lz", ".lz4"):
        raise InputError(f"emc compresses with gzip only: name the file {Path(path).with_suffix('.gz')}", path)
    if suffixes and suffixes[-1] == ".gz":
        from ..suite import NO_GZIP

        if fmt in NO_GZIP:
            raise InputError(f"{fmt} files are not read gzipped (CP-SAT and MiniZinc do not read gzip): name the "
                             f"file without .gz", path)
        suffixes = suffixes[:-1]
    said = suffixes[-1][1:] if suffixes else ""
    if fmt == "mzn" and said != "mzn":  # /dev/stdout too: the data needs a name of its own beside the model
        raise InputError("a MiniZinc model is written to NAME.mzn (minizinc opens no other name), its data beside "
                         "it to NAME.dzn", path)
    takes = SUFFIX_TAKES.get(said)
    if takes is not None and fmt not in takes:
        raise InputError(f"the file name says {said}, --format says {fmt}"
                         + (" (MiniZinc's data goes beside the model: name the .mzn)" if said == "dzn" else ""), path)


def encoder_options(args, encoder) -> dict:
    """The options of ``-O KEY=VALUE`` (export, decode) for ``encoder``, read as `emc solve -O`
    reads its options, its switches (``encoder.bool_options``) true or false; the encoder
    refuses names it does not take. Boards (a CP-SAT ``hint``, no-good ``cuts``) only the
    Python API gives."""
    from .common import parse_options

    options = parse_options(args.option or [])
    encoder.check_cli_options(options)
    return options


def _check_data_path(args) -> None:
    """The MiniZinc data file goes beside the model under a name of its own: check it as the
    CLI checks ``-o``, before any work (a folder there, or a file the command reads)."""
    import os

    from ..encoders.minizinc import MiniZincEncoding

    data = str(MiniZincEncoding.data_path(args.output))
    check_output_path(data, "data file")
    for attr, what in (("puzzle", "puzzle"), ("fixed", "--fixed board")):
        source = getattr(args, attr, None)
        if isinstance(source, str) and os.path.isfile(source) and os.path.realpath(source) == os.path.realpath(data):
            raise InputError(f"the model's data file {data} would overwrite the {what} {source}: name the model "
                             "otherwise", args.output)


def cmd_export(args) -> int:
    from ..encoders import formulation_of_format, get_encoder

    check_output_path(args.output)
    formulation, fmt = formulation_of_format(args.format)
    _check_export_suffix(args.output, args.format)
    if fmt == "mzn":
        _check_data_path(args)
    puzzle = load_puzzle(args.puzzle)
    sp = subproblem_from_args(args, puzzle, goal_of(args, formulation))
    encoder = get_encoder(formulation)
    options = encoder_options(args, encoder)
    enc = encoder.encode(sp, args.variant, **options)
    idle = [k for k in options if k in getattr(enc, "idle_options", {})]
    if idle:  # asked for by name, yet the file would not have it
        raise InputError(f"--option {idle[0]}: no effect on this model ({enc.idle_options[idle[0]]})")
    with _WriteProgress(args) as progress:
        enc.on_written = progress
        paths = enc.write(args.output, fmt)
    sizes = enc.sizes_of(fmt)
    freed = sp.hints_not_kept()
    # A perfect fill ruled out before any search (benchmark makers want to know): feasibility only
    dead = enc.no_solution_text()
    if args.json:
        console.print_json(json.dumps({"puzzle": puzzle.name, "format": args.format, "formulation": formulation,
                                       "variant": enc.variant, "goal": sp.goal.value, "free_cells": sp.n_free,
                                       "hints_not_kept": freed, "no_solution": dead or None, "sizes": sizes,
                                       "files": [str(p) for p in paths]}))
        return 0
    size_text = ", ".join(f"{v:,} {k}" if isinstance(v, int) else f"{v} {k}" for k, v in sizes.items())
    cells = f"{sp.n_free} free cell{'' if sp.n_free == 1 else 's'}"
    console.print(f"{puzzle.name}: {cells}, {sp.goal.value}, {formulation}/{enc.variant}: {size_text}")
    if freed:
        console.print(f"hints not kept (their cells are free, the file lets any piece go there): {', '.join(freed)}")
    if dead:
        console.print(f"note: this {sp.goal.value} model has no solution: {dead}")
    for p in paths:
        console.print(f"wrote {p}")
    return 0


#: Seconds a write runs before it shows progress: most exports end sooner and stay quiet.
PROGRESS_AFTER = 2.0


class _WriteProgress:
    """Progress of a long write on stderr (the clique graph of Eternity II: eleven billion edges,
    hours of writing): what is written of the exact total, the rate and the time left, once the
    write has run :data:`PROGRESS_AFTER` seconds. A status line on a terminal, else a plain line
    every ``--progress-every`` seconds; none with 0 or ``--json``, as `emc solve` does."""

    def __init__(self, args):
        import sys
        import time

        self.clock = time.perf_counter
        self.t0 = self.clock()
        self.last = -float("inf")  # the first line comes as soon as the write has run PROGRESS_AFTER seconds
        quiet = getattr(args, "json", False)
        self.tty = sys.stderr.isatty() and not quiet
        self.every = 0.0 if quiet else float(args.progress_every or 0)
        self.status = None
        self.first: tuple[float, int] | None = None  # the first report: the rate is measured from it

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.status is not None:
            self.status.__exit__(*exc)
        return False

    def __call__(self, done: int, total: int, unit: str) -> None:
        from ..backends.base import count_text

        now = self.clock()
        if self.first is None:  # what came before (building the model, compiling a kernel) is no rate of writing
            self.first = (now, done)
        el = now - self.t0
        if el < PROGRESS_AFTER or not (self.tty or self.every > 0):
            return
        if now - self.last < (0.25 if self.tty else self.every):
            return
        self.last = now
        rate = (done - self.first[1]) / (now - self.first[0]) if now > self.first[0] else 0.0
        left = (total - done) / rate if rate > 0 else float("inf")
        text = (f"writing {unit}: {count_text(done)} of {count_text(total)} ({100 * done / max(total, 1):.1f}%), "
                f"{count_text(int(rate))} a second, about {_duration(left)} left")
        if self.tty:
            if self.status is None:
                self.status = err_console.status(text)
                self.status.__enter__()
            self.status.update(text)
        else:
            err_console.print(f"[{el:8.1f} s] {text}")


def _duration(seconds: float) -> str:
    """A time left in a few characters: 45 s, 12 min, 3.4 h."""
    if seconds == float("inf"):
        return "an unknown time"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


#: Export formats whose answers `emc decode` reads, and the kind of answer each solver prints.
DECODABLE = {"cnf": "literals", "wcnf": "literals", "wcnf-old": "literals", "clq": "vertices",
             "conflict": "vertices", "lp": "columns", "mps": "columns", "mzn": "minizinc", "cpsat": "response"}


def _check_model_header(enc, fmt: str, path: str) -> None:
    """Refuse a --model whose header is not the one these arguments export: the answer would
    be read with another variable numbering."""
    from ..formats import read_head

    # Lines of information, not numbering, are skipped on both sides, so files of earlier versions
    # still decode: the options without effect (a log CNF named the one-hot default
    # redundant=pairs there; now only options asked for by name are named) and the models line.
    # Clause counts are no numbering either: files written before repeated clauses were dropped
    # hold one more (the pinned corner's unit clause) under the same variables, so only the
    # variable count of the sizes line is compared, and the count by kind not at all.
    info = ("c options without effect here:", "c models:", "c hard clauses by kind")

    # CNF options added later (issue 52) at their defaults: files written before them have no
    # such words on their options line, and the same clauses
    later = ("forbid=none", "piece_support=False", "twins=False")

    def numbering(line: str) -> str:
        if line.startswith("c sizes "):
            return " ".join(t for t in line.split() if not t.startswith(("clauses=", "hard=", "soft=")))
        if line.startswith("c variant "):
            return " ".join(t for t in line.split() if t not in later)
        return line

    want = [numbering(x) for x in "\n".join(line.rstrip("\n") for line in enc.header_lines(fmt)).splitlines()
            if not x.startswith(info)]
    kept = [(i, numbering(x)) for i, x in enumerate(read_head(path, len(want) + 3), start=1) if not x.startswith(info)]
    for (i, b), a in zip(kept, want):
        if a != b:
            j = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            lo = max(j - 25, 0)
            raise InputError(f"the header differs from what these arguments export ('...{b[lo:j + 25]}...' where "
                             f"they give '...{a[lo:j + 25]}...'): give decode the arguments of the export", path, i)
    if len(kept) < len(want):
        raise InputError("the file is shorter than the header these arguments export", path)


def _check_cpsat_model(enc, path: str) -> None:
    """Refuse a --model that is not the CP-SAT model these arguments export (the response's
    values are read by the variables' order)."""
    from google.protobuf import text_format
    from ortools.sat import cp_model_pb2

    from ..answers import read_cpsat_model

    given = read_cpsat_model(path)
    want = text_format.Parse(str(enc.model.proto), cp_model_pb2.CpModelProto())
    if given != want:
        raise InputError("not the CP-SAT model these arguments export (its variables or constraints differ): give "
                         "decode the arguments of the export", path)


def _suite_row(path: str):
    """``(folder, row, manifest)`` when ``path`` is a model file an `emc suite` manifest in one of
    the three folders above it lists, else None."""
    from pathlib import Path

    p = Path(path)
    if not p.is_file():
        return None
    target = p.resolve()
    for folder in list(target.parents)[:3]:
        manifest = folder / "manifest.json"
        if not manifest.is_file():
            continue
        try:
            m = json.loads(manifest.read_text())
            if m.get("format") != "emc-suite":
                continue
            for row in m["files"]:  # any file of the row: the MiniZinc data beside its model too
                if any((folder / f["path"]).resolve() == target for f in row["files"]):
                    return folder, row, m
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            continue
    return None


def _take_suite_row(args) -> None:
    """Fill decode's export arguments from the manifest row of the suite file given as PUZZLE."""
    found = _suite_row(args.puzzle)
    if found is None:
        if args.format is None:
            raise InputError("--format is needed (or give, instead of the puzzle, a model file `emc suite` wrote)")
        return
    folder, row, m = found
    given = [flag for flag, v in (("--format", args.format), ("--variant", args.variant), ("--free", args.free),
                                  ("--fixed", args.fixed), ("--option", args.option), ("--goal", args.goal),
                                  ("--no-symmetry", args.no_symmetry), ("--model", args.model)) if v]
    if given:
        raise InputError(f"{', '.join(given)}: the suite's manifest row of this file gives "
                         f"{'it' if len(given) == 1 else 'them'}; leave {'it' if len(given) == 1 else 'them'} out",
                         args.puzzle)
    from ..suite import _option_text

    missing = [k for k in ("puzzle_file", "format", "variant", "goal") if not isinstance(row.get(k), str)]
    if missing or (row.get("free") and not isinstance(row.get("solution_file"), str)):
        raise InputError(f"the suite's manifest (version {m.get('version')}) does not give this file's "
                         f"{', '.join(missing) or 'solution_file'}: give decode the puzzle and the export's arguments",
                         args.puzzle)
    model = str(folder / row["files"][0]["path"])  # the model itself, whichever of its files was given
    args.puzzle = str(folder / row["puzzle_file"])
    args.format, args.variant, args.goal = row["format"], row["variant"], row["goal"]
    args.option = [f"{k}={_option_text(v)}" for k, v in row.get("options", {}).items()]
    if row.get("free"):
        args.free, args.fixed = row["free"], str(folder / row["solution_file"])
    args.no_symmetry = not m.get("arguments", {}).get("symmetry", True)
    # the formats whose --model decode checks: not the MILP's (column names) nor MiniZinc's
    args.model = model if DECODABLE.get(args.format) not in ("columns", "minizinc") else None
    args.from_suite = True  # the row's --no-symmetry, where it has no effect, is not the user's to fix
    if not args.json:
        console.print(f"from the suite's manifest: {args.puzzle}, -f {args.format}, --variant {args.variant}, "
                      f"--goal {args.goal}" + (f", --free {args.free} --fixed {args.fixed}" if row.get("free") else "")
                      + "".join(f" -O {o}" for o in args.option))


def cmd_decode(args) -> int:
    from ..answers import claimed_cost, parse_answer, read_answer_text, read_cpsat_response
    from ..encoders import formulation_of_format, get_encoder
    from ..encoders.clique import NotACliqueError
    from ..encoders.milp import decode_names
    from ..errors import EmcError, UnknownNameError
    from ..score import verify

    _take_suite_row(args)
    if args.format not in DECODABLE:
        raise UnknownNameError("decodable format", args.format, list(DECODABLE))
    from .common import board_outputs, board_url, check_board_letters, check_outputs, check_url

    check_outputs((args.output, "board"), (args.render, "picture"))
    formulation, fmt = formulation_of_format(args.format)
    puzzle = load_puzzle(args.puzzle)
    check_board_letters(puzzle, args.output)
    check_url(args, puzzle)
    sp = subproblem_from_args(args, puzzle, goal_of(args, formulation))
    encoder = get_encoder(formulation)
    options = encoder_options(args, encoder)
    enc = None
    if DECODABLE[args.format] == "columns":
        # MILP answers need no model: the column names say the placements
        if args.model:
            raise InputError(f"--model checks DIMACS headers (cnf, wcnf, clq, conflict); an {args.format} answer "
                             "names its placements in its column names and needs no model")
        encoder.check_variant(args.variant)
        encoder.check_options(options)
    else:
        enc = encoder.encode(sp, args.variant, **options)
        if args.model:
            if args.format == "mzn":
                raise InputError("--model checks DIMACS headers (cnf, wcnf, clq, conflict) and CP-SAT models; a "
                                 "MiniZinc answer names its pieces and needs no model")
            if args.format == "cpsat":
                _check_cpsat_model(enc, args.model)
            else:
                _check_model_header(enc, fmt, args.model)
    claimed_matches = None  # what a CP-SAT response claims for an optimisation model
    if args.format == "cpsat":
        _, answer, objective = read_cpsat_response(args.answer)
        n = len(enc.model.proto.variables)
        if len(answer) != n:
            raise InputError(f"the response gives {len(answer)} values, the model these arguments export has {n} "
                             "variables (give decode the arguments of the export)", args.answer)
        if enc.model.proto.has_objective():
            if not math.isfinite(objective):
                raise InputError(f"the response's objective_value {objective} is not a number of matched edges",
                                 args.answer)
            claimed_matches = round(objective)
    else:
        text = read_answer_text(args.answer)  # read once: the WCNF's claimed cost is checked below
        answer = parse_answer(text, args.answer, DECODABLE[args.format], getattr(enc, "n_vars", None))
    try:
        board = decode_names(sp, answer) if enc is None else enc.decode(answer)
    except EmcError as exc:  # the answer's file, and its line when the reader knows it
        if isinstance(exc, NotACliqueError) and fmt == "conflict":
            exc = exc.in_conflict_graph()  # in the complement the two vertices are joined
        if isinstance(exc, InputError) and exc.path is None:
            # the line of the value at fault (the answer's one line, when it has one)
            line = exc.line
            if line is None and hasattr(answer, "line_of"):
                line = answer.line_of(exc.about)
            raise InputError(exc.reason, args.answer, line) from None
        raise InputError(str(exc), args.answer) from None
    freed = sp.hints_not_kept()  # hints in the free cells were given up on purpose, as emc solve does
    rep = verify(puzzle, board, allow_partial=True, check_hints=not freed)
    placed = int((board.piece >= 0).sum()) - int((sp.fixed.piece >= 0).sum())
    left = sp.n_free - placed
    # Every model of a cnf / wcnf file, every solution of an lp / mps / mzn model fills every
    # free cell: an answer that does not is cut short or belongs to another file. A clique may
    # be smaller than the free cells (a clique search's best): a partial board, but no solution
    # of the file, whose target is a clique on every free cell.
    whole = left == 0
    clique = DECODABLE[args.format] == "vertices"
    unanswered = ""  # why the answer is no solution of the file, though its board may be valid
    if whole:
        claim = claimed_cost(text, args.answer) if fmt in ("wcnf", "wcnf-old") else None
        unmatched = sp.max_score - sp.score(board)  # a WCNF's cost: its unmatched counted edges
        if claim is not None and rep.valid and claim[0] < unmatched:
            unanswered = (f"line {claim[1]}: the answer claims cost {claim[0]}, its board leaves {unmatched} counted "
                          f"edge{'s' if unmatched != 1 else ''} unmatched (another file's answer?)")
        if claimed_matches is not None and rep.valid and claimed_matches > sp.max_score - unmatched:
            unanswered = (f"the response claims {claimed_matches} matched edges, its board matches "
                          f"{sp.max_score - unmatched} (another model's answer?)")
    elif clique:
        unanswered = (f"a partial board: {'a clique' if fmt == 'clq' else 'an independent set'} of {placed} vertices, "
                      f"short of the file's target of {sp.n_free} (one per free cell), so no solution")
    else:
        unanswered = (f"not a whole answer: every solution of this {args.format} model fills the {sp.n_free} free "
                      f"cells, this one leaves {left} empty (cut short, or another file's answer?)")
    answered = rep.valid and not unanswered
    s = rep.scores
    if args.json:
        problems = rep.problems + ([unanswered] if unanswered else [])
        console.print_json(json.dumps({"puzzle": puzzle.name, "format": args.format, "placed": placed,
                                       "free_cells": sp.n_free, "valid": answered, "complete": rep.complete,
                                       "solved": rep.solved, "problems": problems, "hints_not_kept": freed, **s,
                                       **({"url": board_url(args, puzzle, board)} if args.url else {})}))
    else:
        status = (("valid", "bold green") if answered else
                  ("partial", "bold yellow") if rep.valid and clique else ("INVALID", "bold red"))
        # "solved" goes with an answer of the file; a solved board that is no answer of it (a claim
        # it does not meet) says so apart, not "INVALID and solved"
        tail = ("" if not rep.solved else " and solved" if answered else
                " (its board is solved, but the answer is not one of this file)")
        console.print(styled(f"{puzzle.name} {puzzle.size}: {placed} of {sp.n_free} free cells placed by the answer"
                             + (f" ({left} left empty)" if left > 0 else "") + "; ", status, tail))
        for prob in ([unanswered] if unanswered else []) + rep.problems[:20]:
            console.print(f"  - {prob}")
        if s:
            console.print(f"score {s['score']}/{s['max_score']} ({s['mismatches']} unmatched)")
        if freed:
            console.print(freed_hints_note(sp, board))
    # the board file says where it came from, and when it is no solution of the file (as solve marks
    # its deepest partial fill): a partial or invalid board written beside good ones looked like them
    note = {"format": args.format, "answer": os.path.basename(str(args.answer)), "solution": answered,
            **({"partial": True} if left > 0 else {}), **({"valid": False} if not rep.valid else {})}
    what = "" if answered else " (a partial board, no solution)" if rep.valid else " (an invalid board, no solution)"
    board_outputs(args, puzzle, board, extra={"decoded": note}, what=what)
    return 0 if answered else 1


def cmd_suite(args) -> int:
    from ..suite import SuiteSpec, build_suite
    from .common import parse_options

    spec = SuiteSpec.from_cli(
        instances=args.instances, generate=args.generate, formats=args.formats, variants=args.variants,
        goal=args.goal, max_cells=args.max_cells, gzip=args.gzip, symmetry=not args.no_symmetry, free=args.free,
        options=parse_options(args.option or []), estimate=args.estimate)
    items = spec.items()
    if not items:
        raise InputError("the suite is empty: give --instances and/or --generate")
    check_output_dir(args.output, "suite")
    try:
        rows = build_suite(spec, args.output, progress=True, items=items)
    except KeyboardInterrupt:
        err_console.print(f"suite stopped before its end: {args.output} holds the files written so far and no "
                          "manifest; run the same command again to finish (it also removes the earlier suite's files "
                          "it does not write again)")
        raise
    models = sum(len(r["files"]) for r in rows)
    puzzles = len({r["instance"] for r in rows})
    planted = len({r["instance"] for r in rows if r["generator"]})
    console.print(f"wrote {models} model file{'' if models == 1 else 's'}, {puzzles} puzzle{'' if puzzles == 1 else 's'}"
                  + (f" with {planted} planted solution{'' if planted == 1 else 's'}" if planted else "")
                  + f" and {args.output}/manifest.json, {args.output}/manifest.csv")
    if spec.skipped:
        console.print(f"left out by --max-cells {args.max_cells}: {', '.join(spec.skipped)}")
    return 0
