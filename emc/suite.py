"""Benchmark suites: many instances x many formulations, written with a manifest.

The manifest (``manifest.json`` and ``manifest.csv``) has one row per written artefact:
instance, generator parameters, formulation, variant, goal, sizes, files with their sha256,
and the known answer with how it is known. Nothing in the folder depends on the time or the
machine, so the same arguments always give byte-identical files.
"""

from __future__ import annotations

import contextlib
import csv
import fnmatch
import hashlib
import io
import json
import math
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import __version__
from . import instances as inst
from .errors import InputError, UnknownNameError, read_whole, shorten
from .io import gzip_name
from .model import Board, Goal, Puzzle, Subproblem

#: File suffix of each export format.
SUFFIX = {"lp": ".lp", "mps": ".mps", "clq": ".clq", "conflict": ".conflict", "cnf": ".cnf", "wcnf": ".wcnf",
          "cpsat": ".pbtxt", "mzn": ".mzn"}
#: Formats whose readers do not take gzip (written uncompressed even with --gzip).
NO_GZIP = ("cpsat", "mzn")


@dataclass
class Item:
    """One puzzle of the suite."""

    name: str
    puzzle: Puzzle
    generator: dict | None
    known: str
    known_how: str
    certificate: object = None  # planted Board for generated puzzles


MAX_SEEDS = 100_000  # puzzles one seed range of --generate may ask for
MAX_WALKS = 10_000_000  # random walks per difficulty estimate


@dataclass
class SuiteSpec:
    instances: list[str] = field(default_factory=list)
    generated: list[tuple] = field(default_factory=list)  # (w, h, f, i, seed[, distinct])
    formats: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)
    goal: str | None = None
    max_cells: int | None = None
    gzip: bool = False
    symmetry: bool = True
    #: cell sets to free (``--free``): each gives a sub-problem of every puzzle, the other cells
    #: keeping the puzzle's planted board; none: the whole puzzles
    free: list[str] = field(default_factory=list)
    #: encoder options (``-O KEY=VALUE``), each given to the formats whose encoder takes it
    options: dict = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # puzzles --max-cells left out (set by items())
    #: random walks for each sub-problem's difficulty estimate (0: none; see :func:`search_estimate`)
    estimate: int = 0

    @classmethod
    def from_cli(cls, instances: str, generate: list[str], formats: str, variants: str, goal: str | None,
                 max_cells: int | None, gzip: bool, symmetry: bool, free: list[str] | None = None,
                 options: dict | None = None, estimate: int = 0) -> "SuiteSpec":
        from .encoders import FORMATS

        fmts = [f for f in (x.strip() for x in formats.split(",")) if f]
        if not fmts:
            raise InputError(f"--formats names no format (choose from: {', '.join(FORMATS)})")
        for f in fmts:
            if f not in FORMATS:
                raise UnknownNameError("export format", f, list(FORMATS))
        vs = [v for v in (x.strip() for x in variants.split(",")) if v]
        for what, given in (("format", fmts), ("variant", vs)):
            twice = sorted({x for x in given if given.count(x) > 1})
            if twice:
                raise InputError(f"{what} {twice[0]!r} is listed twice")
        names: list[str] = []
        known_names = inst.names(include_aliases=False)
        for tok in (x.strip() for x in instances.split(",")):
            if not tok:
                continue
            if any(ch in tok for ch in "*?[") and not Path(tok).is_file():  # a file may have brackets in its name
                hits = [n for n in known_names if fnmatch.fnmatchcase(n, tok)]
                if not hits:
                    raise InputError(f"pattern {tok!r} matches no shipped instance")
                names += hits
            else:
                names.append(tok)
        gens = [g for spec in generate for g in parse_generate(spec)]
        goal = "optimisation" if goal == "optimization" else goal  # one spelling in the manifest
        if goal is not None:
            from .encoders import FIXED_GOAL, formulation_of_format

            fixed = {f: FIXED_GOAL.get(formulation_of_format(f)[0]) for f in fmts}
            if all(g is not None for g in fixed.values()) and any(g.value != goal for g in fixed.values()):
                # no format of the suite takes the goal and some file would ask another question
                raise InputError(f"--goal {goal}: " + "; ".join(
                    f"{f} files always ask for {'a perfect board' if g.value == 'feasibility' else 'the most matched edges'}"
                    for f, g in fixed.items()) + " (--goal is for lp, mps, cpsat and mzn)")
        free = [f.strip() for f in free or []]
        tags: dict[str, str] = {}
        for f in free:
            if not f:
                raise InputError("--free names no cells (e.g. --free r2c2-r5c5)")
            first = tags.setdefault(region_tag(f), f)
            if first != f or free.count(f) > 1:
                raise InputError(f"--free {f!r} is listed twice" if first == f else
                                 f"--free {first!r} and --free {f!r} would give files of one name ({region_tag(f)})")
        if free and not symmetry:
            raise InputError("--no-symmetry has no effect with --free: region files have no symmetry breaking (their "
                             "fixed cells already pin the board)")
        if isinstance(estimate, bool) or not isinstance(estimate, int) or not 0 <= estimate <= MAX_WALKS:
            raise InputError(f"--estimate: a number of random walks from 0 (none) to {MAX_WALKS:,}, not {estimate!r}")
        spec = cls(names, gens, fmts, vs, goal, max_cells, gzip, symmetry, free, dict(options or {}),
                   estimate=estimate)
        spec.check_options()
        return spec

    def options_for(self, encoder) -> dict:
        """The options of the suite that ``encoder`` takes."""
        return {k: v for k, v in self.options.items() if k in encoder.options}

    def check_options(self) -> None:
        """Each option must fit one of the formats at least, and its value must be one those
        encoders take; and every format must be one this install can write (a missing library
        such as PySAT for cnf). Checked by encoding a 3x3 puzzle, before any file is written."""
        from .encoders import formulation_of_format, get_encoder

        encoders = {}
        for fmt in self.formats:
            enc = get_encoder(formulation_of_format(fmt)[0])
            encoders.setdefault(enc.name, enc)
        if self.options:
            self._check_option_names(encoders)
        tiny = inst.resolve("set2-3x3")
        with tempfile.TemporaryDirectory() as scratch:
            for fmt in self.formats:
                formulation, wfmt = formulation_of_format(fmt)
                e = get_encoder(formulation)
                sp = Subproblem.whole(tiny, _goal_for(self, formulation))
                for v in [v for v in self.variants if v in e.variants] or [e.variants[0]]:
                    opts = self.options_for(e)
                    try:
                        encoding = e.encode(sp, v, **opts)
                    except InputError as exc:
                        what = "--option for " if opts else ""
                        raise InputError(f"{what}{e.name}{'/' + v if len(e.variants) > 1 else ''}: {exc}") from None
                    encoding.write(Path(scratch) / f"tiny{SUFFIX.get(fmt, '.' + fmt)}", wfmt)

    def _check_option_names(self, encoders: dict) -> None:
        from .encoders.base import Encoder

        special = {k: v for k, v in self.options.items() if k in Encoder.BOARD_OPTIONS | {"variant"}}
        if special:  # refused as export refuses them
            next(iter(encoders.values())).check_cli_options(special)
        for key in self.options:
            if not any(key in e.cli_options for e in encoders.values()):
                offer = "; ".join(f"{e.name}: {', '.join(sorted(e.cli_options)) or 'none'}" for e in encoders.values())
                raise InputError(f"--option {key}: none of the formats {', '.join(self.formats)} takes it "
                                 f"(options taken: {offer})")
        for e in encoders.values():
            e.check_cli_options(self.options_for(e))

    def items(self) -> list[Item]:
        out: list[Item] = []
        for name in self.instances:
            p = inst.resolve(name)
            if name in inst.manifest():
                i = inst.info(name)
                known, how = i.known, i.known_how
            else:
                rebuilt = _rebuilt(p)
                if rebuilt is not None:  # a file of `emc generate`: its planted board is known again
                    params, planted = rebuilt
                    name = _safe(p.name)
                    out.append(Item(name, p, params, "satisfiable",
                                    f"planted solution in puzzles/{name}.solution.json (the file's provenance: emc "
                                    f"generate, seed {params['seed']}, rebuilt and checked against its pieces)",
                                    _turned_for_symmetry_breaking(p, planted)))
                    continue
                known, how = "unknown", "user file"
            out.append(Item(_safe(p.name), p, None, known, how))
        for g in self.generated:
            p, planted, params = draw_generated(g)
            planted = _turned_for_symmetry_breaking(p, planted)
            name = _safe(p.name)
            how = "emc generate" + (f", at the measured hardness peak of {p.size}" if "hardest" in params else "")
            out.append(Item(name, p, params, "satisfiable", f"planted solution in puzzles/{name}.solution.json ({how})",
                            planted))
        if self.max_cells is not None:
            kept = [x for x in out if x.puzzle.n_cells <= self.max_cells]
            if out and not kept:
                raise InputError(f"--max-cells {self.max_cells} leaves no puzzle of the {len(out)} "
                                 f"(the smallest has {min(x.puzzle.n_cells for x in out)} cells)")
            self.skipped = [x.name for x in out if x.puzzle.n_cells > self.max_cells]
            out = kept
        seen: dict[str, Item] = {}
        for x in out:
            first = seen.get(x.name)
            if first is not None:
                if first.puzzle.sha256 == x.puzzle.sha256:
                    raise InputError(f"instance {x.name!r} is listed twice")
                # two different puzzles whose files are named alike (p8.txt, alt/p8.txt)
                raise InputError(f"two different puzzles are named {x.name!r}: their suite files would overwrite "
                                 "each other; rename one of the files")
            seen[x.name] = x
        if self.free:
            self.check_regions(out)
        elif not self.symmetry and out and all(Subproblem.whole(x.puzzle).symmetry_rule() is None for x in out):
            raise InputError("--no-symmetry has no effect here: symmetry breaking applies to whole puzzles without "
                             "hints only, and none of these is one")
        return out

    def check_regions(self, items: list[Item]) -> None:
        """Every ``--free`` cell set must name cells of every puzzle, and every puzzle needs a
        board for the cells outside it (generated puzzles have their planted one)."""
        from .cells import parse_cells

        for x in items:
            if x.certificate is None:
                raise InputError(f"--free: {x.name} has no known board to keep outside the free cells (generated "
                                 "puzzles keep their planted solution, and so do the JSON files of `emc generate`, "
                                 "drawn again from their provenance; its text formats record none); for one puzzle "
                                 "and a board of yours use `emc export --fixed BOARD --free CELLS`")
            seen: dict[tuple[int, ...], str] = {}
            for f in self.free:
                try:
                    cells = tuple(parse_cells(f, x.puzzle).tolist())
                except InputError as exc:
                    raise InputError(f"{exc} (puzzle {x.name})") from None
                if cells in seen:
                    raise InputError(f"--free {seen[cells]!r} and --free {f!r} name the same cells of {x.name}: "
                                     "give each region once")
                seen[cells] = f

    def subproblem(self, item: Item, free: str | None, goal: Goal) -> Subproblem:
        """The whole puzzle (``free`` None), or the cells ``free`` of its planted board."""
        if free is None:
            return Subproblem.whole(item.puzzle, goal, self.symmetry)
        from .cells import make_subproblem

        return make_subproblem(item.puzzle, free, item.certificate, goal, symmetry_breaking=self.symmetry)


def _rebuilt(puzzle: Puzzle) -> tuple[dict, Board] | None:
    """The generator parameters and planted board of a puzzle file ``emc generate`` wrote, when
    its provenance draws the same pieces again (same puzzle hash); None for any other file."""
    from .generate import DEFAULT_MODEL, MODELS, generate_model

    prov = puzzle.provenance if isinstance(puzzle.provenance, dict) else {}
    if prov.get("generator") != "emc.generate":
        return None
    model = prov.get("model", DEFAULT_MODEL)  # files of the default model name none
    if model not in MODELS:
        return None
    keys = ("width", "height", *MODELS[model].params, "seed")
    params = {k: prov.get(k) for k in keys}
    distinct = prov.get("distinct", False)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in params.values()) or \
            not isinstance(distinct, bool):
        return None
    try:
        again, planted = generate_model(model, params["width"], params["height"], params["seed"], distinct=distinct,
                                        **{k: params[k] for k in MODELS[model].params})
    except InputError:
        return None
    if "model" in prov:
        params = {"model": model, **params}
    if again.sha256 != puzzle.sha256:  # edited since, or drawn by another version: nothing is known
        return None
    if distinct:
        params["distinct"] = True
    if isinstance(prov.get("hardest"), dict):
        params["hardest"] = prov["hardest"]
    return params, planted


def draw_generated(g: tuple) -> tuple[Puzzle, Board, dict]:
    """The puzzle, planted board and manifest parameters of one ``--generate`` tuple
    (:func:`parse_generate`)."""
    from .generate import MODELS, generate, generate_hardest, generate_model

    distinct = False
    if g[0] == "hardest":
        (_, w, h, seed), distinct = g[:4], len(g) > 4 and bool(g[4])
        p, planted = generate_hardest(w, h, seed, distinct=distinct)
        model = p.provenance["model"] if "model" in p.provenance else None
        keys = MODELS[model or "frame-inner"].params
        params = {**({"model": model} if model else {}), "width": w, "height": h,
                  **{k: p.provenance[k] for k in keys}, "seed": seed}
    elif isinstance(g[0], str):  # ("uniform", w, h, k, seed), (model, w, h, *params, seed)
        model = g[0]
        n = len(MODELS[model].params)
        w, h, *values = g[1:3 + n]
        seed = g[3 + n]
        distinct = len(g) > 4 + n and bool(g[4 + n])
        p, planted = generate_model(model, w, h, seed, distinct=distinct, **dict(zip(MODELS[model].params, values)))
        params = {"model": model, "width": w, "height": h, **dict(zip(MODELS[model].params, values)), "seed": seed}
    else:
        (w, h, f, i, seed), distinct = g[:5], len(g) > 5 and bool(g[5])
        p, planted = generate(w, h, f, i, seed, distinct=distinct)
        params = {"width": w, "height": h, "frame_colours": f, "inner_colours": i, "seed": seed}
    if distinct:
        params["distinct"] = True
    if g[0] == "hardest":  # the measurement the colour counts come from
        params["hardest"] = p.provenance["hardest"]
    return p, planted, params


def region_tag(free: str) -> str:
    """The part of a sub-problem's file names that says which cells are free: the cell set as
    written (lower case, no spaces), or for a long list its length and a hash of it."""
    text = free.replace(" ", "").lower()
    tag = "free-" + _safe(text).strip("_")
    if len(tag) > 48:  # a list of single cells would make a file name too long
        digest = hashlib.sha256(text.encode()).hexdigest()[:10]
        tag = f"free-{text.count(',') + text.count('+') + 1}parts-{digest}"
    return tag


def parse_generate(spec: str) -> list[tuple]:
    """``WxH:F:I:SEEDS`` -> one tuple ``(w, h, f, i, seed)`` per seed (the frame-inner model);
    ``WxH:uniform:K:SEEDS`` -> one tuple ``("uniform", w, h, k, seed)`` per seed (the uniform
    model of `emc generate --model uniform`); any model by name, its colour counts in the order
    of ``emc.generate.MODELS``, the same way (``WxH:uniform-balanced:K:SEEDS``,
    ``WxH:frame-inner-balanced:F:I:SEEDS``; ``WxH:frame-inner:F:I:SEEDS`` is ``WxH:F:I:SEEDS``);
    ``WxH:hardest:SEEDS`` -> ``("hardest", w, h, seed)``: the model and colour counts of the
    measured hardness peak of that size, as `emc generate --hardest` draws them. SEEDS like
    ``3``, ``1-5`` or ``1,4,9``; with ``:distinct`` after them, ``True`` is added to each tuple:
    puzzles drawn as `emc generate --distinct` draws them (no two pieces equal up to rotation)."""
    from .generate import MODELS

    text = spec.strip()
    shown = shorten(spec)
    form = ("expected WxH:F:I:SEEDS, WxH:F:I:SEEDS:distinct, WxH:uniform:K:SEEDS, WxH:MODEL:COLOUR COUNTS:SEEDS or "
            "WxH:hardest:SEEDS (each with :distinct after the seeds for distinct pieces), e.g. 8x8:3:5:1-10, "
            "9x9:uniform:10:1-10, 8x8:frame-inner-balanced:3:8:1-5 or 7x7:hardest:1-10")
    parts = text.split(":")
    distinct = len(parts) > 1 and parts[-1] == "distinct"
    if distinct:
        parts = parts[:-1]
    size = re.fullmatch(r"([0-9]+)x([0-9]+)", parts[0]) if parts else None
    if not size or len(parts) < 2 or not re.fullmatch(r"[0-9,\-]+", parts[-1]):
        raise InputError(f"--generate {shown!r}: {form}")
    model = parts[1] if not parts[1].isdigit() else None
    if model is not None and model != "hardest" and model not in MODELS:
        raise InputError(f"--generate {shown!r}: unknown model {shorten(model)!r} (models: "
                         f"{', '.join(MODELS)}, or hardest)")
    counts = parts[2:-1] if model is not None else parts[1:-1]
    wanted = 0 if model == "hardest" else len(MODELS[model or "frame-inner"].params)
    if len(counts) != wanted or not all(c.isdigit() for c in counts):
        what = ("no colour counts (the peak's are used)" if model == "hardest" else
                f"{wanted} colour count{'s' if wanted != 1 else ''} ("
                + ", ".join(MODELS[model or 'frame-inner'].params) + ")")
        raise InputError(f"--generate {shown!r}: {model or 'the frame-inner model'} takes {what}; {form}")

    def number(text: str) -> int:
        return read_whole(text, f"--generate {shown!r}")

    def seed(text: str) -> int:  # the range of every --seed (emc generate's too)
        from .model import MAX_SEED

        v = number(text)
        if v > MAX_SEED:
            raise InputError(f"--generate {shown!r}: seed {shorten(text)} is too large: seeds are 0 to {MAX_SEED}")
        return v

    seeds: list[int] = []
    for part in parts[-1].split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            if not a or not b or "-" in b or number(a) > number(b):
                raise InputError(f"--generate {shown!r}: bad seed range {shorten(part)!r}")
            if number(b) - number(a) >= MAX_SEEDS:
                raise InputError(f"--generate {shown!r}: seed range {shorten(part)!r} asks for more than {MAX_SEEDS:,} "
                                 "puzzles")
            seeds += range(number(a), seed(b) + 1)
        elif part:
            seeds.append(seed(part))
        else:
            raise InputError(f"--generate {shown!r}: an empty seed between commas")
    w, h = number(size.group(1)), number(size.group(2))
    values = tuple(number(c) for c in counts)
    tail = (True,) if distinct else ()
    if model in (None, "frame-inner"):  # the tuples suites have always written for this model
        return [(w, h, *values, s_, *tail) for s_ in seeds]
    return [(model, w, h, *values, s_, *tail) for s_ in seeds]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def _sha256(path: Path, unpacked: bool = False) -> str:
    """sha256 of the file's bytes, or (``unpacked``) of what its gzip stream holds."""
    import gzip

    h = hashlib.sha256()
    with (gzip.open if unpacked else open)(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _goal_for(spec: SuiteSpec, formulation: str) -> Goal:
    """--goal for the formats that take one (lp, mps, cpsat, mzn); cnf, clq, conflict and wcnf
    files keep their own question (see FIXED_GOAL), and the manifest says which."""
    from .encoders import FIXED_GOAL

    if formulation in FIXED_GOAL:
        return FIXED_GOAL[formulation]
    if spec.goal is None:
        return Goal.OPTIMISATION
    return Goal.FEASIBILITY if spec.goal == "feasibility" else Goal.OPTIMISATION


def _turned_for_symmetry_breaking(puzzle: Puzzle, board: Board) -> Board:
    """``board`` turned as a whole so that it keeps the symmetry breaking of the whole-puzzle
    files (the first corner piece on the top-left cell, or a top corner of a rectangle): the
    solution file then answers those files as it is, and the region files keep this board."""
    piece, cells = Subproblem.whole(puzzle).symmetry_cells() or (None, None)
    if piece is None:
        return board
    for k in ((0, 1, 2, 3) if puzzle.width == puzzle.height else (0, 2)):
        turned = board.rotated(k)
        if int(np.flatnonzero(turned.piece == piece)[0]) in cells:
            return turned
    raise AssertionError("a corner piece is on a corner: some turn brings it to the top-left")  # pragma: no cover


def _known_answer(known: str, fmt: str, goal: Goal, sp: Subproblem) -> str:
    """The known answer in the terms of the file's own question: a satisfiable puzzle is a
    satisfiable CNF, a clique of one vertex per free cell, cost 0 for a WCNF (it counts unmatched
    edges), 0 unmatched edges for an LP/MPS (they minimise them) and the maximum for CP-SAT and
    MiniZinc (they maximise matched edges)."""
    if known != "satisfiable":
        return known
    if goal is Goal.FEASIBILITY:
        if fmt == "clq":
            return f"satisfiable: maximum clique {sp.n_free} (one vertex per free cell)"
        if fmt == "conflict":
            return f"satisfiable: maximum independent set {sp.n_free} (one vertex per free cell)"
        return "satisfiable"
    if fmt in ("wcnf", "wcnf-old"):
        return f"optimum cost 0 (no unmatched edge; {sp.max_score} matched)"
    if fmt in ("lp", "mps"):
        return f"optimum 0 unmatched edges ({sp.max_score} matched)"
    return f"optimum {sp.max_score} matched edges"


def build_suite(spec: SuiteSpec, outdir: str | Path, progress: bool = False,
                items: list[Item] | None = None) -> list[dict]:
    """Write every (instance, format, variant) of ``spec`` into ``outdir`` with a manifest
    (``items``: ``spec.items()`` when the caller has them already, so puzzles are built once)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from .encoders import formulation_of_format, get_encoder
    from .encoders.base import pin_text
    from .formats import write_board, write_puzzle
    from .io import write_text

    out = Path(outdir)
    if out.exists() and not out.is_dir():
        raise InputError("suite output exists and is not a folder", out)
    items = spec.items() if items is None else items
    jobs = []
    used_variants: set[str] = set()
    for item in items:
        for fmt in spec.formats:
            formulation, wfmt = formulation_of_format(fmt)
            enc = get_encoder(formulation)
            vs = [v for v in spec.variants if v in enc.variants] or [enc.variants[0]]
            used_variants.update(v for v in spec.variants if v in enc.variants)
            for free in spec.free or [None]:
                for v in vs:
                    jobs.append((item, free, fmt, formulation, wfmt, enc, v))
    unused = [v for v in spec.variants if v not in used_variants]
    if unused:
        raise InputError(f"variant(s) {unused} fit none of the formats {spec.formats}")
    out.mkdir(parents=True, exist_ok=True)
    earlier = _listed_files(out)
    # A manifest left by an earlier suite in this folder would describe files this run rewrites:
    # it goes first, so a run that stops early (an error, Ctrl-C) leaves no manifest at all; the
    # list of the files it named stays in a hidden file until this run ends, so that a run
    # stopped early still lets the next one remove what nobody lists.
    if earlier:
        write_text(out / EARLIER, json.dumps(sorted(earlier), indent=0) + "\n")
    for name in ("manifest.json", "manifest.csv"):
        (out / name).unlink(missing_ok=True)

    rows: list[dict] = []
    show = progress and sys.stderr.isatty()
    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), disable=not show, transient=True) as bar:
        task = bar.add_task("compiling", total=len(jobs))
        puzzles: dict[str, dict] = {}  # instance -> its puzzle file (and planted solution) in the manifest
        estimates: dict[tuple, dict] = {}  # (instance, free) -> its difficulty estimate
        for item, free, fmt, formulation, wfmt, enc, variant in jobs:
            bar.update(task, description=f"{item.name} {free or ''} {fmt}/{variant}")
            if item.name not in puzzles:
                written = [out / "puzzles" / f"{item.name}.json"]
                write_puzzle(item.puzzle, written[0], "json")
                if item.certificate is not None:
                    written.append(out / "puzzles" / f"{item.name}.solution.json")
                    write_board(item.certificate, item.puzzle, written[1], extra={"certificate": "planted solution"})
                entry = {"instance": item.name, "puzzle_sha256": item.puzzle.sha256,
                         "frame_colours": len(item.puzzle.frame_colours),
                         "inner_colours": len(item.puzzle.inner_colours),
                         "shared_colours": len(item.puzzle.shared_colours), "generator": item.generator}
                for key, p in zip(("puzzle", "solution"), written):
                    entry[key] = _file_entry(p, out)
                puzzles[item.name] = entry
            goal = _goal_for(spec, formulation)
            sp = spec.subproblem(item, free, goal)
            if spec.estimate and (item.name, free) not in estimates:  # once per sub-problem, whatever the format
                bar.update(task, description=f"{item.name} {free or ''} estimating")
                estimates[(item.name, free)] = search_estimate(sp, spec.estimate)
            options = spec.options_for(enc)
            encoding = enc.encode(sp, variant, **options)
            idle = dict(getattr(encoding, "idle_options", {}))  # taken by the encoder, unused by this variant
            if any(k in idle for k in options):
                # the file written without them, byte for byte what `emc export` writes with the row's
                # options, so that decode takes the row's options too (its header would name them)
                encoding = enc.encode(sp, variant, **{k: v for k, v in options.items() if k not in idle})
            gz = ".gz" if spec.gzip and fmt not in NO_GZIP else ""
            base = item.name if free is None else f"{item.name}.{region_tag(free)}"
            base = f"{base}.{variant}" if len(enc.variants) > 1 else base
            rel = Path(fmt) / f"{base}{SUFFIX.get(fmt, '.' + fmt)}{gz}"
            paths = encoding.write(out / rel, wfmt)
            known, how = _known_answer(item.known, fmt, goal, sp), item.known_how
            if free is not None:
                how += "; the cells outside the free ones keep it"
            if item.certificate is not None and sp.symmetry_cells() is not None:
                how += " (turned so that it keeps the symmetry breaking: the first corner piece on a top corner)"
            rows.append({
                "instance": item.name,
                "width": item.puzzle.width,
                "height": item.puzzle.height,
                "puzzle_sha256": item.puzzle.sha256,
                "generator": item.generator,
                "format": fmt,
                "formulation": formulation,
                "variant": encoding.variant,
                "goal": goal.value,
                "symmetry_breaking": sp.symmetry_cells() is not None,
                "free": free,
                "free_cells": sp.n_free,
                "puzzle_file": puzzles[item.name]["puzzle"]["path"],
                "solution_file": puzzles[item.name]["solution"]["path"] if "solution" in puzzles[item.name] else None,
                "options": {k: v for k, v in options.items() if k not in idle},
                "options_without_effect": idle,
                "effective_options": encoding.effective(),
                "symmetry_pin": pin_text(sp),
                **({"estimate": estimates[(item.name, free)]} if spec.estimate else {}),
                "sizes": encoding.sizes_of(wfmt),
                "frame_colours": len(item.puzzle.frame_colours),
                "inner_colours": len(item.puzzle.inner_colours),
                "shared_colours": len(item.puzzle.shared_colours),
                "files": [_file_entry(Path(p), out) for p in paths],
                "known": known,
                "known_how": how,
            })
            bar.advance(task)
    manifest = {
        "format": "emc-suite",
        # 2: free, options, puzzle/solution paths and content_sha256 per row; 3: library_versions,
        # left_out_by_max_cells, and effective_options, symmetry_pin and (--estimate) estimate per row;
        # a puzzle of `--generate WxH:uniform:K:SEEDS` has generator {model: uniform, width, height,
        # colours, seed} and its arguments.generated entry starts with "uniform" (frame-inner suites
        # are written as before, byte for byte); the other models likewise under their names, and a
        # puzzle of `--generate WxH:hardest:SEEDS` has its peak's model and counts and a "hardest"
        # record of the measurement
        "version": 3,
        "emc_version": __version__,
        "library_versions": _library_versions(spec),
        # files by their name alone: a path as typed names the user's folders and changes the bytes
        "arguments": {"instances": [n if n in inst.manifest() else Path(n).name for n in spec.instances],
                      "generated": [list(g) for g in spec.generated], "formats": spec.formats, "variants": spec.variants, "goal": spec.goal, "max_cells": spec.max_cells, "gzip": spec.gzip,
                      "symmetry": spec.symmetry, "free": spec.free, "options": spec.options},
        "left_out_by_max_cells": list(spec.skipped),
        "puzzles": list(puzzles.values()),
        "files": rows,
    }
    written = set(_paths(rows, puzzles.values()))
    for rel in sorted(earlier - written):  # an earlier suite's files this one did not write: not left to mislead
        (out / rel).unlink(missing_ok=True)
        if (out / rel).parent != out:
            with contextlib.suppress(OSError):  # its folder too, once empty (cnf/, clq/, ...)
                (out / rel).parent.rmdir()
    write_text(out / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    write_text(out / "manifest.csv", _csv(rows))
    (out / EARLIER).unlink(missing_ok=True)
    return rows


#: the libraries whose code writes part of a format's bytes (besides emc and numpy)
_WRITERS = {"cnf": "python-sat", "wcnf": "python-sat", "wcnf-old": "python-sat", "lp": "PuLP", "mps": "PuLP",
            "cpsat": "ortools"}


def _library_versions(spec: SuiteSpec) -> dict[str, str]:
    """The versions of what shapes the files' bytes besides emc: numpy, the writers of the
    suite's formats (PySAT's cardinality encodings, PuLP's LP/MPS writer, OR-Tools' model
    export) and, for --gzip, the zlib compressing them."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in sorted({"numpy", *(_WRITERS[f] for f in spec.formats if f in _WRITERS)}, key=str.lower):
        try:
            out[name] = version(name)
        except PackageNotFoundError:  # pragma: no cover - the suite could not have written the files
            out[name] = "unknown"
    if spec.gzip:
        import zlib

        out["zlib"] = zlib.ZLIB_RUNTIME_VERSION
    return out


def search_estimate(sp: Subproblem, walks: int, seed: int = 0) -> dict:
    """A difficulty estimate of a sub-problem: Knuth's random-walk estimate of the nodes emc's
    backtrack search (row scan, its row look-ahead, the files' symmetry pin) visits to list
    every perfect fill, i.e. to settle the instance completely (:meth:`emc.backends.backtrack.
    Search.estimate`). Finding one fill takes less where there are many. The walks are seeded,
    so the figure is the same on every run; heavy-tailed trees make it rough (compare orders of
    magnitude). The walks cannot estimate the number of fills itself: one walk in millions
    reaches one."""
    from .backends.backtrack import Search, make_plan, race_pins

    feas = sp.with_goal(Goal.FEASIBILITY)
    plan = make_plan(feas, "rows")
    piece, positions = (race_pins(feas, plan.order) or [(-1, None)])[0]  # the first corner piece, as the files pin it
    est = Search(plan, piece, positions).estimate(walks, seed)
    out = {"nodes": float(f"{est.nodes:.3g}"), "walks": walks, "seed": seed,
           "search": "emc backtrack: row scan, row look-ahead, every perfect fill"}
    if not math.isfinite(est.nodes):  # JSON has no infinity: past a float's range, said in words
        out["nodes"] = None
        out["note"] = "beyond a float's range (over 1.8e308 nodes)"
    return out


def _paths(rows, puzzles) -> list[str]:
    """Every file a manifest lists: each row's files, each puzzle's file and planted solution."""
    return ([f["path"] for r in rows for f in r["files"]]
            + [e[k]["path"] for e in puzzles for k in ("puzzle", "solution") if k in e])


#: where a suite keeps the earlier suite's file list while it runs (a run stopped early leaves it,
#: so the next run into the folder still removes the files nobody lists any more)
EARLIER = ".emc-earlier-files.json"


def _listed_files(out: Path) -> set[str]:
    """The files an earlier suite in ``out`` wrote: those its manifest lists, and those of a
    suite before it that a run stopped early kept in :data:`EARLIER` (paths inside ``out``;
    nothing when there is neither or they cannot be read)."""
    paths: list = []
    try:
        m = json.loads((out / "manifest.json").read_text())
        paths += _paths(m["files"], m["puzzles"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        kept_list = json.loads((out / EARLIER).read_text())
        paths += kept_list if isinstance(kept_list, list) else []
    except (OSError, ValueError):
        pass
    root = out.resolve()
    kept = set()
    for rel in paths:
        if isinstance(rel, str) and (out / rel).resolve().is_relative_to(root) and not Path(rel).is_absolute():
            kept.add(rel)
    return kept


def _option_text(value) -> str:
    return str(value).lower() if isinstance(value, bool) else json.dumps(value) if isinstance(value, (dict, list)) else str(value)


def _file_entry(path: Path, root: Path) -> dict:
    entry = {"path": str(path.relative_to(root)), "bytes": path.stat().st_size, "sha256": _sha256(path)}
    if gzip_name(path):  # gzip's bytes depend on the zlib build; what they hold does not
        entry["content_sha256"] = _sha256(path, unpacked=True)
    return entry


def _csv(rows: list[dict]) -> str:
    size_keys = sorted({k for r in rows for k in r["sizes"]})
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["instance", "width", "height", "frame_colours", "inner_colours", "shared_colours", "seed", "puzzle_sha256", "format",
                "formulation", "variant", "goal", "symmetry_breaking", "symmetry_pin", "free", "free_cells", "estimated_nodes", "options", "options_without_effect",
                "effective_options", "puzzle_file", "solution_file", *size_keys,
                "file", "bytes", "sha256", "content_sha256", "other_files", "known", "known_how"])
    for r in rows:
        f = r["files"][0]
        others = " ".join(x["path"] for x in r["files"][1:])  # MiniZinc's .dzn beside its .mzn
        seed = r["generator"]["seed"] if r["generator"] else ""
        w.writerow([r["instance"], r["width"], r["height"], r["frame_colours"], r["inner_colours"], r["shared_colours"], seed,
                    r["puzzle_sha256"], r["format"], r["formulation"], r["variant"], r["goal"],
                    str(r["symmetry_breaking"]).lower(), r["symmetry_pin"] or "", r["free"] or "", r["free_cells"],
                    ("" if "estimate" not in r else f"{r['estimate']['nodes']:.3g}" if r["estimate"]["nodes"] is not None
                     else ">1.8e308"),
                    " ".join(f"{k}={_option_text(v)}" for k, v in r["options"].items()),
                    "; ".join(f"{k}: {why}" for k, why in r["options_without_effect"].items()),
                    " ".join(f"{k}={_option_text(v)}" for k, v in r["effective_options"].items()), r["puzzle_file"],
                    r["solution_file"] or "", *[r["sizes"].get(k, "") for k in size_keys], f["path"], f["bytes"], f["sha256"], f.get("content_sha256", ""), others, r["known"], r["known_how"]])
    return buf.getvalue()
