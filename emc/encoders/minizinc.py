"""MiniZinc formulation of a sub-problem: a ``.mzn`` model and a ``.dzn`` data file.

A constraint-programming model in the spirit of the CP approaches to edge matching that
Salassa et al. survey (seed 000, section 1) and of Benoist and Bourreau's model with
``AllDifferent`` and ``Element`` (seed 002, section 2.2): one variable per free cell chooses
among the cell's candidate placements (from :meth:`Subproblem.placements`, so frame fitting
and symmetry breaking are those of every other formulation), element (or table) constraints
tie the choice to its piece, rotation and four colours, ``alldifferent`` uses each piece
once, and every counted edge is either required to match (feasibility, with the colour-
balance count as a redundant constraint) or counted in the objective (optimisation).

Both files are rendered from the Jinja2 templates ``minizinc_model.mzn.j2`` and
``minizinc_data.dzn.j2`` in emc's ``templates`` folder. The model holds no instance data, so
one model file serves every sub-problem with the same goal and variant.

Variants: ``element`` (default; element constraints from the choice to its piece, rotation
and each colour) and ``table`` (one table constraint per cell over the same columns). On
set2-7x7 with Gecode both explored the same search trees, ``element`` at about 1.6 times as
many nodes per second.

Search annotation on the choices: option ``search`` (variable selection, default
``first_fail``: the cell with the fewest candidates left), ``value`` (default
``indomain_random``) and ``restart`` (default ``luby``, scale 100 nodes). Random values with
restarts avoid the heavy tails of a fixed order; with one thread the run is still
reproducible, the seed choosing the random values. Measured with
``bench/minizinc_gecode.py``.

Answers: MiniZinc prints ``piece = [...]; rotation = [...];`` (1-based pieces, rotations in
quarter turns, one entry per free cell in reading order); :meth:`MiniZincEncoding.decode`
accepts that text, a mapping with ``piece`` and ``rotation``, or an object with those
attributes (a ``minizinc`` Python result).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..io import atomic_write, gzip_name
from ..model import OPPOSITE, Board, Goal, Subproblem
from .base import COUNTS_NOT_FIXED, Encoder, Encoding, colour_sides_between_free_cells

MODEL_TEMPLATE = "minizinc_model.mzn.j2"
DATA_TEMPLATE = "minizinc_data.dzn.j2"
DEFAULT_VALUE = "indomain_random"
DEFAULT_RESTART = "luby"
SEARCHES = ("first_fail", "input_order", "dom_w_deg", "smallest", "anti_first_fail")
OPTIONS = ("search", "value", "restart", "balance")
VALUES = ("indomain_min", "indomain_random", "indomain_max", "indomain_median")
RESTARTS = ("none", "luby", "geometric", "constant")

_ARRAY_RE = re.compile(r"^\s*(piece|rotation|matched)\s*=\s*(\[[^\]]*\]|-?\d+)\s*;", re.M)


def _environment():
    from ..io import templates

    return templates(autoescape=False)


def parse_output(text: str) -> list[dict[str, Any]]:
    """Solutions in MiniZinc's text output (``piece = [...]; rotation = [...];`` blocks
    separated by ``----------``), in order; the search-complete marker is ignored."""
    out: list[dict[str, Any]] = []
    start = 0  # where the block starts in ``text``
    for block in text.split("----------"):
        at, start = start, start + len(block) + len("----------")
        matches = list(_ARRAY_RE.finditer(block))
        found = {m.group(1): m.group(2) for m in matches}
        if "piece" not in found or "rotation" not in found:
            continue
        # the line each array starts on, for a complaint about one of its values
        sol: dict[str, Any] = {"lines": {m.group(1): text.count("\n", 0, at + m.start(2)) + 1 for m in matches}}
        for k, v in found.items():
            try:
                sol[k] = [int(x) for x in v.strip("[]").split(",") if x.strip()] if v.startswith("[") else int(v)
            except ValueError:
                line = text[:text.index(v)].count("\n") + 1 if v in text else None
                raise InputError(f"{k} = {v}: not whole numbers", line=line) from None
        out.append(sol)
    return out


class MiniZincEncoding(Encoding):
    """A rendered MiniZinc model and its data for one sub-problem.

    Attributes:
        model_text: the ``.mzn`` text.
        data_text: the ``.dzn`` text.
        free: the free cells, in the order of the model's arrays.
    """

    formulation = "minizinc"

    def __init__(self, sp: Subproblem, variant: str, model_text: str, data_text: str, n_placements: int, n_constraints: int):
        self.subproblem = sp
        self.variant = variant
        self.idle_options: dict[str, str] = {}
        self.model_text = model_text
        self.data_text = data_text
        self.free = sp.free
        self._n_placements = n_placements
        self._n_constraints = n_constraints

    def sizes(self) -> dict[str, int]:
        """``variables``: one choice per free cell (plus piece, rotation and four colours
        derived from it); ``placements``: candidate values; ``constraints``: constraint
        items after the per-cell ``forall`` loops are unrolled (before flattening)."""
        return {"variables": int(self.free.size), "placements": self._n_placements, "constraints": self._n_constraints}

    @staticmethod
    def data_path(path: str | os.PathLike) -> Path:
        """Where :meth:`write` puts the data of the model written to ``path``: beside it, the
        same name with ``.dzn`` (``m.mzn`` -> ``m.dzn``)."""
        path = Path(path)
        stem = path.name[:-4] if path.name.endswith(".mzn") else path.name
        return path.with_name(stem + ".dzn")

    def write(self, path: str | os.PathLike, fmt: str | None = None, compress: bool | None = None) -> list[Path]:
        """Write ``path`` (the model, ``.mzn``) and the data beside it (same name, ``.dzn``)."""
        if fmt not in (None, "mzn", "minizinc"):
            raise InputError(f"unknown MiniZinc export format {fmt!r} (choose mzn)")
        path = Path(path)
        if gzip_name(path) if compress is None else compress:
            raise InputError(f"{path}: MiniZinc does not read gzipped models or data: write them uncompressed")
        data_path = self.data_path(path)
        with atomic_write(path, compress=False) as f:
            f.write(self.model_text)
        with atomic_write(data_path, compress=False) as f:
            f.write(self.data_text)
        return [path, data_path]

    def decode(self, answer: Any) -> Board:
        """Board from MiniZinc's output text, a ``{"piece", "rotation"}`` mapping or an object
        with ``piece`` and ``rotation`` attributes (1-based pieces, rotations 0..3)."""
        if isinstance(answer, str):
            sols = parse_output(answer)
            if not sols:
                raise InputError("no solution in the MiniZinc output")
            answer = sols[-1]  # the last one printed is the best
        lines: dict = {}
        if isinstance(answer, Mapping):
            piece, rotation = answer.get("piece"), answer.get("rotation")
            lines = answer.get("lines") or {}
        else:
            piece, rotation = getattr(answer, "piece", None), getattr(answer, "rotation", None)
        if piece is None or rotation is None:
            raise InputError("a MiniZinc answer needs the arrays piece and rotation")
        try:
            piece = np.asarray(piece, dtype=np.int64).ravel()
            rotation = np.asarray(rotation, dtype=np.int64).ravel()
        except (OverflowError, TypeError, ValueError):
            raise InputError("a MiniZinc answer's piece and rotation arrays must hold small whole numbers") from None
        sp = self.subproblem
        if piece.size != sp.n_free or rotation.size != sp.n_free:
            raise InputError(f"a MiniZinc answer has {piece.size} pieces for {sp.n_free} free cells")
        bad_p = np.flatnonzero((piece < 1) | (piece > sp.puzzle.n_pieces))
        if bad_p.size:
            i = int(bad_p[0])
            raise InputError(f"a MiniZinc answer puts piece {int(piece[i])} on {sp.puzzle.cell_label(int(sp.free[i]))}: "
                             f"pieces are 1..{sp.puzzle.n_pieces}", line=lines.get("piece"))
        bad_r = np.flatnonzero((rotation < 0) | (rotation > 3))
        if bad_r.size:
            i = int(bad_r[0])
            raise InputError(f"a MiniZinc answer turns {sp.puzzle.cell_label(int(sp.free[i]))} by {int(rotation[i])}: "
                             "rotations are 0..3", line=lines.get("rotation"))
        board = sp.fixed.copy()
        board.piece[sp.free] = piece - 1
        board.rotation[sp.free] = rotation
        return board


def check_search_options(options: dict[str, Any]) -> None:
    """InputError for a ``search``, ``value`` or ``restart`` option the model cannot take."""
    for key, allowed, what in (("search", SEARCHES, "search"), ("value", VALUES, "value choice"),
                               ("restart", RESTARTS, "restart")):
        if key in options and options[key] not in allowed:
            raise InputError(f"unknown MiniZinc {what} {options[key]!r} (choose from {', '.join(allowed)})")


class MiniZincEncoder(Encoder):
    """Renders :class:`MiniZincEncoding` files from the templates."""

    name = "minizinc"
    formats = ("mzn",)
    variants = ("element", "table")
    options = frozenset(OPTIONS)
    bool_options = frozenset({"balance"})

    def encode(self, subproblem: Subproblem, variant: str | None = None, **options: Any) -> MiniZincEncoding:
        """Render the model and data of ``subproblem``.

        Args:
            subproblem: what to model.
            variant: ``element`` (default) or ``table``.
            search: ``int_search`` variable selection (default ``first_fail``).
            value: ``int_search`` value choice (default ``indomain_random``).
            restart: ``none``, ``luby`` (default), ``geometric`` or ``constant``.
            balance: colour-balance count in feasibility models (default on).
        """
        variant = self.check_variant(variant)
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise InputError(f"unknown minizinc encoder option(s) {unknown} (known: {', '.join(OPTIONS)})")
        check_search_options(options)
        search = options.get("search", "first_fail")
        value = options.get("value", DEFAULT_VALUE)
        restart = options.get("restart", DEFAULT_RESTART)
        if not isinstance(options.get("balance", True), bool):
            raise InputError(f"option balance is true or false, not {options['balance']!r}")
        restart_text = {"none": "", "luby": " :: restart_luby(100)", "geometric": " :: restart_geometric(1.5, 100)",
                        "constant": " :: restart_constant(1000)"}[restart]
        sp = subproblem
        P = sp.puzzle
        feas = sp.goal is Goal.FEASIBILITY
        pl = sp.placements(fit_fixed=feas)
        index = {int(c): i + 1 for i, c in enumerate(sp.free)}  # free cell -> 1-based position
        first = np.searchsorted(pl.cell, sp.free) + 1
        last = np.searchsorted(pl.cell, sp.free, side="right")
        shown = pl.shown(P)
        free_mask = sp.free_mask
        fixed_shown = sp.fixed.shown(P)
        edges, fixed = [], []
        for ei in sp.counted_edges():
            (a, b), (sa, sb) = P.edges[ei], P.edge_sides[ei]
            a, b, sa, sb = int(a), int(b), int(sa), int(sb)
            if free_mask[a] and free_mask[b]:
                edges.append((index[a], sa + 1, index[b], sb + 1))
            else:
                f, s, o = (a, sa, b) if free_mask[a] else (b, sb, a)
                fixed.append((index[f], s + 1, int(fixed_shown[o, OPPOSITE[s]])))
        max_colour = int(P.pieces.max())
        balance = _balance(sp) if feas and options.get("balance", True) else None
        rows, cols = np.divmod(sp.free, P.width)
        freed = sp.hints_not_kept()
        from .. import __version__

        ctx = {
            "emc_version": __version__,
            "symmetry": "off" if sp.symmetry_cells() is None else
                        f"{sp.symmetry_text()}, so boards that are turns of each other are found once",
            "goal": sp.goal.value,
            "variant": variant,
            "search": search,
            "value": value,
            "restart": restart_text,
            "kind": ("whole puzzle" if sp.is_whole else f"region of {sp.n_free} free cells")
                    + (f" ({sp.name})" if sp.name and sp.name != P.name else "")
                    + (f"; hints not kept (their cells are free): {' '.join(freed)}" if freed else ""),
            "puzzle": P.name,
            "size": P.size,
            "sha256": P.sha256,
            "n_free": sp.n_free,
            "n_placements": len(pl),
            "cell_row": [int(r) + 1 for r in rows],
            "cell_col": [int(c) + 1 for c in cols],
            "first": [int(x) for x in first],
            "last": [int(x) for x in last],
            "pl_piece": [int(p) + 1 for p in pl.piece],
            "pl_rotation": [int(r) for r in pl.rotation],
            "pl_colour": [[int(x) for x in row] for row in shown],
            "edges": edges,
            "fixed": fixed,
            "max_colour": max_colour,
            "balance": balance if balance is not None else [-1] * max_colour,
        }
        env = _environment()
        model_text = env.get_template(MODEL_TEMPLATE).render(ctx)
        data_text = env.get_template(DATA_TEMPLATE).render(ctx)
        n_cons = sp.n_free * (2 if variant == "table" else 7) + 1 + (len(edges) + len(fixed) if feas else 1)
        if balance is not None:
            n_cons += sum(1 for x in balance if x >= 0)
        enc = MiniZincEncoding(sp, variant, model_text, data_text, len(pl), n_cons)
        enc.effective_options = {"search": search, "value": value, "restart": restart, "balance": balance is not None}
        if options.get("balance"):  # asked for, yet not in the model (`emc export` refuses it, suites list it)
            if not feas:
                enc.idle_options["balance"] = "feasibility models only"
            elif balance is None:
                enc.idle_options["balance"] = COUNTS_NOT_FIXED
        return enc


def _balance(sp: Subproblem) -> list[int] | None:
    """Edges of each colour 1..max among the edges between free cells in a perfect fill, or
    ``None`` when they cannot be counted (spare pieces, or a free cell beside an empty
    fixed cell). A colour that cannot pair up gets an impossible count."""
    need = colour_sides_between_free_cells(sp)
    if need is None:
        return None
    out = []
    for k in range(1, len(need)):
        # An odd or negative count has no perfect fill: ask for more edges than there are,
        # which makes the model infeasible as it should be (-1 means "no count").
        out.append(int(need[k] // 2) if need[k] >= 0 and need[k] % 2 == 0 else sp.max_score + 1)
    return out
