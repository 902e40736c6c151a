"""The interface every formulation implements.

An :class:`Encoder` turns a :class:`~emc.model.Subproblem` into an :class:`Encoding`: an
artefact that knows its size, writes itself as standard files, and decodes a solver's
answer back into a :class:`~emc.model.Board`. One module per formulation lives beside this
one; :mod:`emc.encoders` holds the registry.
"""

from __future__ import annotations

import abc
import os
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import InputError
from ..model import OPPOSITE, Board, Goal, Subproblem


def colour_sides_between_free_cells(sp: Subproblem) -> np.ndarray | None:
    """Per colour (index = colour), how many sides of the allowed pieces a perfect fill shows
    on edges between two free cells: every side of every piece, minus the sides that face
    filled fixed neighbours. Half of it is that colour's number of free-free edges (the
    colour-balance constraint). ``None`` when it cannot be counted: spare pieces, or a free
    cell beside an empty fixed cell."""
    if not sp.exact_cover:
        return None
    P = sp.puzzle
    free_mask = sp.free_mask
    filled = sp.fixed.piece >= 0
    fixed_shown = sp.fixed.shown(P)
    need = np.zeros(int(P.pieces.max()) + 1, dtype=np.int64)
    np.add.at(need, P.pieces[sp.pieces].ravel(), 1)
    for c in sp.free:
        for s in range(4):
            nb = int(P.neighbours[c, s])
            if nb < 0 or free_mask[nb]:
                continue
            if not filled[nb]:
                return None
            need[int(fixed_shown[nb, OPPOSITE[s]])] -= 1
    return need


#: Why a colour count (balance rows, colour-count clauses) has no effect on a sub-problem.
COUNTS_NOT_FIXED = "the counts are not fixed here (spare pieces, or a free cell beside an empty fixed cell)"


class Encoding(abc.ABC):
    """A compiled sub-problem in one formulation.

    Attributes:
        formulation: registry name of the formulation (``milp``, ``clique``, ...).
        variant: the variant used (e.g. ``paper`` or ``compact`` for the MILP).
        subproblem: what was compiled.
        idle_options: (where the encoder can tell) options asked for that this model has no use
            for, each with why: `emc export` refuses them, `emc suite` lists them in its manifest.
        on_written: None, or a callable ``(done, total, unit)`` that a writer whose files take
            long calls as it goes (the clique graph: edges written of the exact total), for
            `emc export` to show progress; set it before :meth:`write`.
    """

    formulation: str
    variant: str
    subproblem: Subproblem
    on_written: Callable[[int, int, str], None] | None = None

    @abc.abstractmethod
    def sizes(self) -> dict[str, int]:
        """Size of the artefact, e.g. ``{"variables": n, "constraints": m}`` or
        ``{"vertices": n, "edges": m}``. Keys are what the literature reports."""

    def sizes_of(self, fmt: str | None = None) -> dict[str, Any]:
        """:meth:`sizes` of the file written in export format ``fmt`` (the same for most formats;
        the clique graph's complement has the other edges)."""
        return self.sizes()

    def no_solution_text(self) -> str:
        """Why the model has no solution, seen before any search ("" when nothing is seen): for a
        feasibility goal, cells or pieces that fit nothing (:meth:`Subproblem.dead_end_text`)."""
        sp = self.subproblem
        return sp.dead_end_text() if sp.goal is Goal.FEASIBILITY else ""

    def effective(self) -> dict[str, Any]:
        """The options the model was built with, defaults included, as far as they shape it
        (what the suite manifest lists as ``effective_options``; boards as counts)."""
        return dict(getattr(self, "effective_options", {}))

    def about_lines(self, fmt: str) -> list[str]:
        """What the file is, as comment text (without the comment marker): emc's version, the
        puzzle and its sha256, the sub-problem, its goal, the symmetry breaking and the options.
        The lp, mps and CP-SAT text writers put these at the top of their files (the cnf, clq
        and MiniZinc files have headers of their own)."""
        from .. import __version__

        sp = self.subproblem
        P = sp.puzzle
        given = getattr(self, "given_options", {})
        lines = [
            f"emc {__version__}: {self.formulation} model, variant {self.variant}, of an edge-matching sub-problem "
            f"({fmt})",
            f"puzzle {P.name} {P.size} sha256 {P.sha256}",
            f"subproblem: {'whole puzzle' if sp.is_whole else 'region'}, {sp.n_free} free "
            f"cell{'' if sp.n_free == 1 else 's'}, {len(sp.pieces)} piece{'' if len(sp.pieces) == 1 else 's'}, "
            f"{sp.max_score} counted edges, goal {sp.goal.value}",
            *(["free cells all"] if sp.is_whole else  # 16 labels a line: some readers limit line lengths
              [f"free cells {' '.join(P.cell_label(c) for c in sp.free[i:i + 16])}" for i in range(0, sp.n_free, 16)]),
            f"symmetry breaking: {pin_text(sp) or _no_pin_reason(sp)}",
            "options " + (" ".join(f"{k}={_option_word(v)}" for k, v in sorted(given.items())) or "none given "
                                                                                                    "(the defaults)"),
        ]
        freed = sp.hints_not_kept()
        if freed:
            lines.append(f"hints not kept (their cells are free): {' '.join(freed)}")
        lines.append("sizes " + " ".join(f"{k}={v}" for k, v in self.sizes().items()))
        return lines

    @abc.abstractmethod
    def write(self, path: str | os.PathLike, fmt: str | None = None, compress: bool | None = None) -> list[Path]:
        """Write the artefact atomically and deterministically (same input, same bytes).

        Args:
            path: main output file; side files (variable maps, .dzn data) go beside it.
            fmt: export format name when the formulation has several (``lp`` / ``mps``,
                ``clq`` / ``conflict``, ...).
            compress: gzip the output (default: when ``path`` ends in ``.gz``).

        Returns:
            Every file written, main file first.
        """

    @abc.abstractmethod
    def decode(self, answer: Any) -> Board:
        """The full board (fixed cells plus the free cells filled) from a solver's answer.

        The answer's type is the formulation's natural one: true variable numbers for CNF,
        vertex numbers of a clique, a name -> value mapping for MILP, ...
        """


def pin_text(sp: Subproblem) -> str | None:
    """Which piece the symmetry breaking pins and where (``piece 1 only on r1c1``), as the
    file comments and the suite manifest say it; None when nothing is pinned."""
    sym = sp.symmetry_cells()
    if sym is None:
        return None
    return f"piece {sym[0] + 1} only on {' '.join(sp.puzzle.cell_label(c) for c in sym[1])}"


def _no_pin_reason(sp: Subproblem) -> str:
    """Why a sub-problem's model pins no piece."""
    if sp.symmetry_rule() is not None:
        return "off (asked for)"
    if not sp.is_whole:
        return "none (a region: its fixed cells pin the board)"
    return "none (the puzzle's hints pin the board)" if sp.puzzle.hints else "none (no corner piece)"


def _option_word(value: Any) -> str:
    """An option's value in a header line: switches as true/false, boards (hint, cuts) by count."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return f"{len(value)} board{'' if len(value) == 1 else 's'}"
    if isinstance(value, Board):
        return "a board"
    return str(value)


def as_boards(cuts: Any) -> list:
    """No-good cut boards as a list: ``None``, one :class:`~emc.model.Board`, or any iterable
    of them (the encoders check each one)."""
    if cuts is None:
        return []
    return [cuts] if isinstance(cuts, Board) else list(cuts)


class Encoder(abc.ABC):
    """Compiles sub-problems into one formulation.

    Attributes:
        name: registry name.
        formats: export format names this encoder writes (see ``emc export --format``).
        variants: accepted variants; the first is the default.
    """

    name: str = ""
    formats: tuple[str, ...] = ()
    variants: tuple[str, ...] = ("default",)
    #: The option names :meth:`encode` takes (each encoder refuses others).
    options: frozenset[str] = frozenset()
    #: The options that are switches (true or false).
    bool_options: frozenset[str] = frozenset()

    @abc.abstractmethod
    def encode(self, subproblem: Subproblem, variant: str | None = None, **options: Any) -> Encoding:
        """Compile ``subproblem``; unknown variants or options raise :class:`~emc.errors.InputError`."""

    #: Options that are boards, which only the Python API can pass.
    BOARD_OPTIONS = frozenset({"hint", "cuts"})

    @property
    def cli_options(self) -> frozenset[str]:
        """The options a command line can give (``-O KEY=VALUE``): all but the boards."""
        return self.options - self.BOARD_OPTIONS

    def check_cli_options(self, options: dict[str, Any], flag: str = "--option") -> None:
        """InputError for command-line options this encoder does not take: boards, unknown
        names, or a switch that is not true or false (values are checked by :meth:`encode`)."""
        from ..errors import InputError

        boards = sorted(set(options) & self.BOARD_OPTIONS)
        if boards:
            raise InputError(f"{flag} {boards[0]}: that is a board, which only the Python API passes to an encoder")
        if "variant" in options:
            raise InputError(f"{flag} variant: the variant has its own flag, --variant")
        unknown = sorted(set(options) - self.options)
        if unknown:
            raise InputError(f"{flag} {', '.join(unknown)}: not an option of the {self.name} encoder (its options: "
                             f"{', '.join(sorted(self.cli_options)) or 'none'})")
        for key, value in options.items():
            if key in self.bool_options and not isinstance(value, bool):
                raise InputError(f"{flag} {key}: true or false, not {value!r}")

    def check_variant(self, variant: str | None) -> str:
        from ..errors import UnknownNameError

        v = variant or self.variants[0]
        if v not in self.variants:
            raise UnknownNameError(f"{self.name} variant", v, self.variants)
        return v


def whole_number_list(values: Any, what: str) -> list[int]:
    """``values`` as a list of ints; InputError(``what``) for anything but whole numbers (int()
    alone would cut 1.5 to 1, and a literal or vertex cut short names another placement)."""
    import math
    import numbers

    try:
        items = list(values)
    except TypeError:
        raise InputError(what) from None
    out = []
    for v in items:
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) or v != int(v):
            raise InputError(f"{what}, not {v!r}")
        out.append(int(v))
    return out
