"""The puzzle model every part of emc works on: :class:`Puzzle`, :class:`Board`, :class:`Subproblem`.

Conventions (used everywhere in emc, and in the file formats):

* A piece lists its colours clockwise from the top: ``(top, right, bottom, left)``. Colour 0
  is the border colour: it must face the frame of the board and nothing else.
* Cells are numbered row-major from the top-left: ``cell = row * width + col``. Internally
  rows, columns and pieces are 0-based; every file and message shown to a person uses
  1-based rows, columns and piece numbers (piece k is the k-th piece line of its file).
* A rotation ``k`` turns a piece ``k`` quarter turns clockwise, so after rotation ``k`` side
  ``s`` shows the colour the unrotated piece has on side ``(s - k) mod 4``.
* ``Puzzle.colours[piece, rotation, side]`` is that table; it is what encoders, scoring,
  pictures and compiled search kernels read.

The puzzle itself is immutable (its arrays are read-only) so that cached tables stay right.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Mapping, Sequence

import numpy as np

from .errors import InputError

TOP, RIGHT, BOTTOM, LEFT = 0, 1, 2, 3
SIDES = ("top", "right", "bottom", "left")
BORDER = 0
MAX_COLOUR = 255  # colours are array indices throughout (Eternity II has 22, generated puzzles a few dozen)
MAX_FITS = 2_000_000_000  # entries of Puzzle.fits (bytes): pieces x cells x 4 turns
#: Row and column step of the neighbour across each side.
SIDE_STEP = ((-1, 0), (0, 1), (1, 0), (0, -1))
OPPOSITE = (BOTTOM, LEFT, TOP, RIGHT)


class PieceClass(enum.IntEnum):
    """Class of a piece by its number of border sides, and of a cell by its frame sides."""

    INNER = 0
    EDGE = 1
    CORNER = 2

    @property
    def label(self) -> str:
        return self.name.lower()


def _whole_numbers(values, what: str) -> np.ndarray:
    """``values`` as an integer array; InputError for values that are not whole numbers (numpy
    would cut 1.5 to 1 without a word)."""
    arr = np.asarray(values)
    if arr.size and not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_):
        flat = arr.ravel()
        if np.issubdtype(arr.dtype, np.floating):
            off = flat[~(np.isfinite(flat) & (flat == np.round(flat)))]
            if off.size:
                raise InputError(f"{what} must be whole numbers, not {off[0].item()!r}")
        else:  # strings, objects (None, numbers past 64 bits)
            example = next((x for x in flat if not isinstance(x, (int, np.integer)) or isinstance(x, bool)), flat[0])
            raise InputError(f"{what} must be whole numbers, not {example!r}")
    return arr if np.issubdtype(arr.dtype, np.integer) else arr.astype(np.int64)


@dataclass(frozen=True)
class Hint:
    """A fixed placement required by the puzzle's rules (0-based cell and piece)."""

    cell: int
    piece: int
    rotation: int


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


_PUZZLE_FIELDS = frozenset({"width", "height", "pieces", "hints", "name", "provenance"})

MAX_NAME = 200


def check_name(name: object) -> None:
    """A puzzle name goes into file headers, manifests and solver models: one line of at most
    :data:`MAX_NAME` printable characters (a newline would end a CNF comment and start a clause)."""
    if not isinstance(name, str):
        raise TypeError(f"a puzzle name is a str, not {type(name).__name__}")
    if not name.strip():
        raise InputError("a puzzle name must not be empty")
    bad = next((ch for ch in name if not ch.isprintable()), None)
    if bad is not None:
        raise InputError(f"puzzle name {name[:40]!r}: the character {bad!r} cannot be in a name (one line of printable "
                         "characters)")
    if len(name) > MAX_NAME:
        raise InputError(f"puzzle name {name[:40]!r}...: {len(name)} characters, at most {MAX_NAME}")


def name_from_path(path: str) -> str:
    """A puzzle name from a file's name: its stem, with characters a name cannot hold (a file
    may be called anything) replaced by ``_``, cut to :data:`MAX_NAME`."""
    from pathlib import Path

    stem = "".join(ch if ch.isprintable() else "_" for ch in Path(path).stem).strip()[:MAX_NAME]
    return stem or "puzzle"


class Puzzle:
    """An edge-matching puzzle: a ``width`` x ``height`` board and its pieces.

    Args:
        width: board columns (>= 2).
        height: board rows (>= 2).
        pieces: integer array-like of shape ``(width * height, 4)``, colours clockwise from the top.
        hints: fixed placements (:class:`Hint`, 0-based).
        name: a short name used in file headers and messages.
        provenance: free-form facts about where the puzzle comes from (source, commit,
            licence, generator parameters).

    Raises:
        InputError: if the pieces do not fit the board (see :meth:`structure_problems`).
    """

    def __init__(
        self,
        width: int,
        height: int,
        pieces: np.ndarray | Sequence[Sequence[int]],
        hints: Iterable[Hint] = (),
        name: str = "puzzle",
        provenance: Mapping[str, object] | None = None,
    ):
        width, height = (int(_whole_numbers([v], "board sides")[0]) for v in (width, height))
        if width < 2 or height < 2:
            raise InputError(f"board size {width}x{height} is too small (both sides must be at least 2)")
        arr = _whole_numbers(pieces, "colours")
        if arr.ndim != 2 or arr.shape[1] != 4:
            raise InputError(f"pieces must have 4 colours each, got an array of shape {arr.shape}")
        if arr.shape[0] != width * height:
            raise InputError(
                f"{arr.shape[0]} pieces do not fill the {width}x{height} board ({width * height} cells)"
            )
        if (arr < 0).any():
            raise InputError("colours must be non-negative integers")
        if arr.size and arr.max() > MAX_COLOUR:
            raise InputError(f"colour {int(arr.max())} is too large (at most {MAX_COLOUR})")
        check_name(name)
        self.width = width
        self.height = height
        self.pieces: np.ndarray = _readonly(arr.astype(np.int32))
        self.hints: tuple[Hint, ...] = tuple(hints)
        self.name = name
        self.provenance: dict[str, object] = dict(provenance or {})
        cells, hinted = set(), set()
        for h in self.hints:
            if not isinstance(h, Hint):
                raise TypeError(f"hints are emc.Hint(cell, piece, rotation) values (0-based), not {h!r}")
            _whole_numbers([h.cell, h.piece, h.rotation], f"hint {h}: cell, piece and rotation")
            if not (0 <= h.cell < self.n_cells and 0 <= h.piece < self.n_pieces and 0 <= h.rotation < 4):
                raise InputError(f"hint {h} is outside the board or the piece set")
            if h.cell in cells or h.piece in hinted:  # a file reader says so with the line
                raise InputError(f"hint {h}: two hints for one cell, or one piece hinted twice")
            cells.add(h.cell)
            hinted.add(h.piece)

    # ------------------------------------------------------------------ sizes
    @property
    def n_cells(self) -> int:
        return self.width * self.height

    @property
    def n_pieces(self) -> int:
        return int(self.pieces.shape[0])

    @property
    def size(self) -> str:
        return f"{self.width}x{self.height}"

    @property
    def max_score(self) -> int:
        """Number of internal edges, the best possible score: W(H-1) + H(W-1)."""
        return self.width * (self.height - 1) + self.height * (self.width - 1)

    def __setattr__(self, key: str, value) -> None:
        # Set once, in __init__: the cached tables (fits, colours, sha256) and the checks made
        # there (a name of one printable line) hold only while they stay as they are.
        if key in _PUZZLE_FIELDS and key in self.__dict__:
            raise AttributeError(f"Puzzle.{key} cannot be changed: a puzzle is immutable (build another Puzzle, or "
                                 "use with_hints)")
        object.__setattr__(self, key, value)

    def __repr__(self) -> str:
        return f"Puzzle({self.name!r}, {self.size}, {self.n_colours} colours, {len(self.hints)} hints)"

    # ------------------------------------------------------------ colour table
    @cached_property
    def colours(self) -> np.ndarray:
        """``colours[piece, rotation, side]``: the colour a placed piece shows on a side."""
        idx = (np.arange(4)[None, :] - np.arange(4)[:, None]) % 4  # [rotation, side] -> original side
        return _readonly(self.pieces[:, idx].copy())

    @cached_property
    def piece_class(self) -> np.ndarray:
        """:class:`PieceClass` value of each piece, from its number of border sides."""
        zeros = (self.pieces == BORDER).sum(axis=1)
        return _readonly(np.minimum(zeros, 2).astype(np.int8))

    @cached_property
    def frame_sides(self) -> np.ndarray:
        """Boolean ``(cells, 4)``: side ``s`` of ``cell`` faces the frame of the board."""
        r, c = np.divmod(np.arange(self.n_cells), self.width)
        fs = np.stack([r == 0, c == self.width - 1, r == self.height - 1, c == 0], axis=1)
        return _readonly(fs)

    @cached_property
    def cell_class(self) -> np.ndarray:
        """:class:`PieceClass` value of each cell: how many frame sides it has (capped at 2)."""
        return _readonly(np.minimum(self.frame_sides.sum(axis=1), 2).astype(np.int8))

    @cached_property
    def neighbours(self) -> np.ndarray:
        """``neighbours[cell, side]``: the cell across that side, or -1 at the frame."""
        r, c = np.divmod(np.arange(self.n_cells), self.width)
        out = np.full((self.n_cells, 4), -1, dtype=np.int32)
        for s, (dr, dc) in enumerate(SIDE_STEP):
            rr, cc = r + dr, c + dc
            ok = (rr >= 0) & (rr < self.height) & (cc >= 0) & (cc < self.width)
            out[ok, s] = (rr * self.width + cc)[ok]
        return _readonly(out)

    @cached_property
    def edges(self) -> np.ndarray:
        """Internal edges as ``(E, 2)`` cell pairs ``(a, b)``: horizontal edges first
        (b right of a), row-major, then vertical ones (b below a), row-major."""
        W, H = self.width, self.height
        cells = np.arange(self.n_cells).reshape(H, W)
        horiz = np.stack([cells[:, :-1].ravel(), cells[:, 1:].ravel()], axis=1)
        vert = np.stack([cells[:-1, :].ravel(), cells[1:, :].ravel()], axis=1)
        return _readonly(np.concatenate([horiz, vert]).astype(np.int32))

    @cached_property
    def edge_sides(self) -> np.ndarray:
        """``(E, 2)``: the side of ``a`` and the side of ``b`` that meet on each edge."""
        nh = self.height * (self.width - 1)
        sides = np.empty((len(self.edges), 2), dtype=np.int8)
        sides[:nh] = (RIGHT, LEFT)
        sides[nh:] = (BOTTOM, TOP)
        return _readonly(sides)

    @cached_property
    def fits(self) -> np.ndarray:
        """Boolean ``(pieces, cells, 4)``: piece at cell with rotation shows the border colour
        exactly on the sides that face the frame."""
        n = self.n_pieces * self.n_cells * 4
        if n > MAX_FITS:
            raise InputError(f"the {self.size} puzzle is too large for this: its table of which piece may take which "
                             f"cell and turn has {n:,} entries (at most {MAX_FITS:,}, about a 150x150 board)")
        weights = 1 << np.arange(4)
        piece_mask = ((self.colours == BORDER) * weights).sum(axis=2)  # (P, 4 turns): sides showing the border
        cell_mask = (self.frame_sides * weights).sum(axis=1)  # (cells,): sides facing the frame
        return _readonly(piece_mask[:, None, :] == cell_mask[None, :, None])

    # -------------------------------------------------------------- colours
    @cached_property
    def frame_colours(self) -> tuple[int, ...]:
        """Colours on the sides of frame pieces that run along the frame (between two frame cells)."""
        cols: set[int] = set()
        for p in self.pieces:
            for s in range(4):
                if p[s] == BORDER:
                    continue
                if p[(s + 1) % 4] == BORDER or p[(s - 1) % 4] == BORDER:
                    cols.add(int(p[s]))
        return tuple(sorted(cols))

    @cached_property
    def inner_colours(self) -> tuple[int, ...]:
        """Colours on the sides that point inwards: every side of an inner piece and the side
        of an edge piece opposite its border side."""
        cols: set[int] = set()
        for p in self.pieces:
            for s in range(4):
                if p[s] == BORDER:
                    continue
                if p[(s + 1) % 4] != BORDER and p[(s - 1) % 4] != BORDER:
                    cols.add(int(p[s]))
        return tuple(sorted(cols))

    @cached_property
    def shared_colours(self) -> tuple[int, ...]:
        """Colours both between frame pieces and on inward sides (none in the official puzzle;
        all of them with ``emc generate --frame-colours 0``)."""
        return tuple(sorted(set(self.frame_colours) & set(self.inner_colours)))

    @cached_property
    def colour_set(self) -> tuple[int, ...]:
        """Every non-border colour that appears on some piece."""
        return tuple(sorted(set(int(c) for c in np.unique(self.pieces)) - {BORDER}))

    @property
    def n_colours(self) -> int:
        """Number of distinct non-border colours."""
        return len(self.colour_set)

    @property
    def max_colour(self) -> int:
        return int(self.pieces.max())

    # --------------------------------------------------------------- checks
    def class_counts(self) -> dict[str, int]:
        counts = np.bincount(self.piece_class, minlength=3)
        return {PieceClass(k).label: int(counts[k]) for k in (PieceClass.CORNER, PieceClass.EDGE, PieceClass.INNER)}

    def structure_problems(self) -> list[str]:
        """Structural defects that rule out any full solution (empty list if none).

        Checks: pieces with more than two border sides or two non-adjacent ones, the number
        of corner, edge and inner pieces for the board size, colours used an odd number of
        times, hints that do not fit or clash. Colours both on the frame and inside are no
        defect (``emc generate --frame-colours 0`` makes them on purpose): see
        :attr:`shared_colours`.
        """
        problems: list[str] = []
        zeros = (self.pieces == BORDER).sum(axis=1)
        for p in np.flatnonzero(zeros > 2):
            problems.append(f"piece {p + 1} has {zeros[p]} border sides")
        for p in np.flatnonzero(zeros == 2):
            row = self.pieces[p]
            if not any(row[s] == BORDER and row[(s + 1) % 4] == BORDER for s in range(4)):
                problems.append(f"piece {p + 1} has two border sides that are not adjacent")
        W, H = self.width, self.height
        want = {"corner": 4, "edge": 2 * (W - 2) + 2 * (H - 2), "inner": (W - 2) * (H - 2)}
        have = self.class_counts()
        for k in ("corner", "edge", "inner"):
            if have[k] != want[k]:
                problems.append(f"{have[k]} {k} pieces, the {W}x{H} board needs {want[k]}")
        vals, counts = np.unique(self.pieces[self.pieces != BORDER], return_counts=True)
        odd = [int(v) for v, n in zip(vals, counts) if n % 2]
        if odd:
            problems.append(f"colours used an odd number of times: {odd}")
        problems += [why for why in map(self.hint_problem, self.hints) if why]
        problems += self.hint_clashes()
        return problems

    def hint_clashes(self) -> list[str]:
        """Hints on neighbouring cells whose touching sides differ in colour: no board keeping
        both matches every edge (and a sub-problem does not score edges between fixed cells,
        so only this check sees it)."""
        return [text for _, _, text in self.hint_clash_cells()]

    def hint_clash_cells(self) -> list[tuple[int, int, str]]:
        """:meth:`hint_clashes` with the two cells of each: ``(cell_a, cell_b, text)``."""
        if len(self.hints) < 2:
            return []
        at = {h.cell: h for h in self.hints}
        out = []
        for (a, b), (sa, sb) in zip(self.edges.tolist(), self.edge_sides.tolist()):
            ha, hb = at.get(a), at.get(b)
            if ha is None or hb is None:
                continue
            ca, cb = int(self.colours[ha.piece, ha.rotation, sa]), int(self.colours[hb.piece, hb.rotation, sb])
            if ca != cb:
                out.append((a, b, f"hints on {self.cell_label(a)} and {self.cell_label(b)} do not match: colour {ca} "
                                  f"meets colour {cb}"))
        return out

    def hint_problem(self, h: Hint) -> str | None:
        """Why hint ``h`` can be in no solution (its piece, so turned, shows the border colour
        on a side that does not face the frame, or another colour on one that does), or None."""
        if self.fits[h.piece, h.cell, h.rotation]:
            return None
        names = ("top", "right", "bottom", "left")
        shown = self.colours[h.piece, h.rotation]
        for s in range(4):
            if (shown[s] == BORDER) != bool(self.frame_sides[h.cell, s]):
                where = "inside the board" if shown[s] == BORDER else "towards the frame, which needs the border colour"
                what = "the border colour" if shown[s] == BORDER else f"colour {int(shown[s])}"
                return (f"hint: piece {h.piece + 1} turned {h.rotation} on {self.cell_label(h.cell)} shows "
                        f"{what} on its {names[s]} side, {where}")
        return None  # pragma: no cover (fits and the loop agree)

    def duplicate_groups(self) -> list[list[int]]:
        """Groups (two pieces or more, in file order) of pieces that are equal up to rotation."""
        groups: dict[int, list[int]] = {}
        for a, b in self.duplicate_pieces():
            groups.setdefault(a, [a]).append(b)
        return sorted(groups.values())

    def duplicate_pieces(self) -> list[tuple[int, int]]:
        """Pairs ``(i, j)``, ``i < j``, of pieces equal up to rotation, ``i`` the first piece of
        its group in file order: one pair per extra copy (see :meth:`duplicate_groups`)."""
        canon = {}
        dups = []
        for p in range(self.n_pieces):
            key = min(tuple(int(x) for x in self.colours[p, k]) for k in range(4))
            if key in canon:
                dups.append((canon[key], p))
            else:
                canon[key] = p
        return dups

    def turn_symmetric_pieces(self) -> np.ndarray:
        """Pieces (0-based) that look the same turned half-way (top = bottom, right = left;
        those that look the same turned a quarter among them)."""
        c = self.pieces
        return np.flatnonzero((c[:, 0] == c[:, 2]) & (c[:, 1] == c[:, 3]))

    # ------------------------------------------------------------ identity
    @cached_property
    def sha256(self) -> str:
        """Hash of the board size and the pieces in order (not the name, not the hints).

        Boards store it, so a board is never scored against the wrong puzzle by accident."""
        h = hashlib.sha256()
        h.update(f"{self.width} {self.height}\n".encode())
        for row in self.pieces:
            h.update(" ".join(str(int(x)) for x in row).encode() + b"\n")
        return h.hexdigest()

    def with_hints(self, hints: Iterable[Hint], name: str | None = None) -> "Puzzle":
        return Puzzle(self.width, self.height, self.pieces, hints, name or self.name, self.provenance)

    def cell_of(self, row: int, col: int) -> int:
        return row * self.width + col

    def row_col(self, cell: int) -> tuple[int, int]:
        return divmod(int(cell), self.width)

    def cell_label(self, cell: int) -> str:
        """A cell as people name it: ``r3c5`` (1-based row and column)."""
        r, c = self.row_col(cell)
        return f"r{r + 1}c{c + 1}"


@dataclass
class Board:
    """A (possibly partial) placement: ``piece[cell]`` (-1 = empty) and ``rotation[cell]``.

    Both arrays have one entry per cell, row-major from the top-left.
    """

    width: int
    height: int
    piece: np.ndarray
    rotation: np.ndarray

    def __post_init__(self):
        for what, v in (("width", self.width), ("height", self.height)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
                raise InputError(f"a board's {what} is a whole number of at least 1, not {v!r}")
        n = self.width * self.height
        arrays = []
        for what, values in (("pieces", self.piece), ("rotations", self.rotation)):
            arr = _whole_numbers(values, what)
            if arr.size != n:  # numpy's reshape error named neither the board nor the array
                raise InputError(f"a {self.width}x{self.height} board takes {n} {what}, one per cell, not {arr.size}")
            arrays.append(arr.astype(np.int32).reshape(n))  # astype copies
        self.piece, self.rotation = arrays

    @classmethod
    def empty(cls, puzzle: Puzzle) -> "Board":
        """A board of ``puzzle``'s size with every cell empty (the hints not placed)."""
        require_puzzle(puzzle, "Board.empty")
        n = puzzle.n_cells
        return cls(puzzle.width, puzzle.height, np.full(n, -1), np.zeros(n))

    @classmethod
    def from_hints(cls, puzzle: Puzzle) -> "Board":
        """An empty board of ``puzzle``'s size with its hint pieces placed."""
        b = cls.empty(puzzle)
        for h in puzzle.hints:
            b.place(h.cell, h.piece, h.rotation)
        return b

    @property
    def n_cells(self) -> int:
        return self.width * self.height

    def copy(self) -> "Board":
        """An independent copy (the arrays are copied)."""
        return Board(self.width, self.height, self.piece, self.rotation)

    def place(self, cell: int, piece: int, rotation: int) -> None:
        """Put 0-based ``piece`` on ``cell`` turned ``rotation`` quarter turns clockwise (taken
        mod 4). A board does not know its puzzle: :func:`emc.verify` and the scores check the
        piece numbers against one."""
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (cell, piece, rotation)):
            raise TypeError(f"place(cell, piece, rotation) takes whole numbers, not {(cell, piece, rotation)!r}")
        if not 0 <= cell < self.piece.size:  # -1 would write the last cell
            raise IndexError(f"cell {cell} is not on the {self.width}x{self.height} board (0..{self.piece.size - 1})")
        self.piece[cell] = piece
        self.rotation[cell] = rotation % 4

    def clear(self, cells: Iterable[int] | np.ndarray) -> None:
        """Empty ``cells`` (0-based cell numbers, row-major)."""
        cells = _whole_numbers(list(cells) if not isinstance(cells, np.ndarray) else cells, "cells").astype(np.int64)
        if cells.size and (cells.min() < 0 or cells.max() >= self.piece.size):  # -1 would clear the last cell
            raise IndexError(f"cells to clear must be 0..{self.piece.size - 1}, not "
                             f"{int(cells.min())}..{int(cells.max())}")
        self.piece[cells] = -1
        self.rotation[cells] = 0

    @property
    def filled(self) -> np.ndarray:
        return self.piece >= 0

    @property
    def is_complete(self) -> bool:
        return bool(self.filled.all())

    def shown(self, puzzle: Puzzle) -> np.ndarray:
        """``(cells, 4)`` colours each cell shows on each side; -1 for empty cells."""
        out = np.full((self.n_cells, 4), -1, dtype=np.int32)
        f = self.filled
        out[f] = puzzle.colours[self.piece[f], self.rotation[f]]
        return out

    def rotated(self, quarter_turns: int = 1) -> "Board":
        """The same board turned clockwise by ``quarter_turns`` (pieces turn with it).

        A W x H board becomes H x W after an odd number of turns.
        """
        k = quarter_turns % 4
        P = self.piece.reshape(self.height, self.width)
        R = self.rotation.reshape(self.height, self.width)
        P2 = np.rot90(P, -k)  # np.rot90 turns counter-clockwise for positive k
        R2 = np.where(np.rot90(P, -k) >= 0, (np.rot90(R, -k) + k) % 4, 0)
        h2, w2 = P2.shape
        return Board(w2, h2, P2.ravel(), R2.ravel())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self.width == other.width
            and self.height == other.height
            and np.array_equal(self.piece, other.piece)
            and np.array_equal(np.where(self.piece >= 0, self.rotation, 0), np.where(other.piece >= 0, other.rotation, 0))
        )


def rotate_puzzle_board(puzzle: Puzzle, quarter_turns: int = 1) -> Puzzle:
    """The puzzle of a board turned by ``quarter_turns``: same pieces, sides swapped if odd."""
    if quarter_turns % 2 == 0:
        return puzzle
    return Puzzle(puzzle.height, puzzle.width, puzzle.pieces, (), puzzle.name, puzzle.provenance)


class Goal(enum.Enum):
    """What a :class:`Subproblem` asks for."""

    FEASIBILITY = "feasibility"  #: every counted edge matched
    OPTIMISATION = "optimisation"  #: as many counted edges matched as possible

    @classmethod
    def of(cls, goal: "Goal | str") -> "Goal":
        """``goal`` as a :class:`Goal`: a Goal, or its name ("feasibility", "optimisation" or
        "optimization"); InputError for anything else."""
        if isinstance(goal, cls):
            return goal
        if isinstance(goal, str):
            word = goal.strip().lower().replace("optimization", "optimisation")
            for g in cls:
                if word in (g.value, g.name.lower()):
                    return g
        raise InputError(f"goal {goal!r}: give Goal.FEASIBILITY or Goal.OPTIMISATION (or 'feasibility', "
                         "'optimisation')")


def _free_cells(puzzle: Puzzle, board: Board, free) -> np.ndarray:
    """``free`` as sorted distinct int64 cell numbers, after checking that ``board`` has the
    puzzle's size and that every entry is a cell number of it."""
    if (board.width, board.height) != (puzzle.width, puzzle.height):
        raise InputError(f"board is {board.width}x{board.height}, puzzle is {puzzle.size}")
    arr = np.asarray(list(free) if not isinstance(free, np.ndarray) else free)
    if arr.size and (not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0 or arr.max() >= puzzle.n_cells):
        raise InputError(f"free cells must be 0-based cell numbers 0..{puzzle.n_cells - 1} of the {puzzle.size} board")
    return np.unique(arr.astype(np.int64))


def _check_types(puzzle: Puzzle, board: Board) -> None:
    """TypeError naming the argument when a caller passes, say, an instance name for the puzzle."""
    if not isinstance(puzzle, Puzzle):
        raise TypeError(f"puzzle must be an emc.Puzzle (emc.load or emc.resolve give one), not {type(puzzle).__name__}")
    if not isinstance(board, Board):
        raise TypeError(f"board must be an emc.Board (emc.read_board gives one), not {type(board).__name__}")


def check_placements(puzzle: Puzzle, board: Board) -> None:
    """TypeError or InputError unless ``board`` is a board of ``puzzle``'s size whose filled
    cells hold its pieces turned 0..3 (what scoring and drawing need; :func:`verify` reports
    the rest: pieces used twice, the frame, hints)."""
    _check_types(puzzle, board)
    if (board.width, board.height) != (puzzle.width, puzzle.height):
        raise InputError(f"board is {board.width}x{board.height}, puzzle {puzzle.name} is {puzzle.size}")
    placed = board.piece >= 0  # an empty cell's rotation means nothing (partial fills write -1 there)
    bad = np.flatnonzero((board.piece >= puzzle.n_pieces) | (board.piece < -1)
                         | (placed & ((board.rotation < 0) | (board.rotation > 3))))
    if bad.size:  # emc.verify names every such cell; a score has no answer for them
        c = int(bad[0])
        raise InputError(f"{puzzle.cell_label(c)}: piece {int(board.piece[c]) + 1} rotation {int(board.rotation[c])} "
                         f"is not a placement of {puzzle.name} (pieces 1..{puzzle.n_pieces}, rotations 0..3): "
                         "emc.verify lists the problems")


def edge_matches(puzzle: Puzzle, board: Board) -> np.ndarray:
    """Boolean per internal edge (order of ``puzzle.edges``): matched or not."""
    check_placements(puzzle, board)
    shown = board.shown(puzzle)
    e, s = puzzle.edges, puzzle.edge_sides
    ca = shown[e[:, 0], s[:, 0]]
    cb = shown[e[:, 1], s[:, 1]]
    return (ca == cb) & (ca > BORDER)


def check_board_pieces(puzzle: Puzzle, board: Board, what: str = "the fixed board") -> None:
    """InputError (naming the board as ``what``) unless the filled cells of ``board`` hold real
    pieces, turned 0..3, each once: the cells a sub-problem keeps (a backend trusts them: a piece
    fixed twice came back inside an "optimal" board), and a solve's hint."""
    try:
        check_placements(puzzle, board)
    except InputError as exc:
        raise InputError(f"{what}: {exc}") from None
    on = np.flatnonzero(board.piece >= 0)
    pc = board.piece[on]
    values, counts = np.unique(pc, return_counts=True)
    if (counts > 1).any():
        p = int(values[counts > 1][0])
        cells = [puzzle.cell_label(int(c)) for c in on[pc == p]]
        raise InputError(f"{what} has piece {p + 1} on {' and '.join(cells[:2])}: a piece goes on one cell")


def require_puzzle(puzzle, caller: str) -> None:
    """TypeError unless ``puzzle`` is a :class:`Puzzle` (an instance name is a common slip)."""
    if not isinstance(puzzle, Puzzle):
        raise TypeError(f"{caller}() takes an emc.Puzzle (emc.load(name) gives one), not {type(puzzle).__name__}")


#: The largest seed: CP-SAT, HiGHS and MiniZinc take 32-bit seeds, and every command's --seed
#: has this range (the heuristics pass their seeds on to the solvers).
MAX_SEED = 2**31 - 1


def require_seed(seed, caller: str) -> int:
    """``seed`` as an int: a whole number of at least 0 (None would make a run unrepeatable)."""
    import numbers

    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{caller}(): a seed is a whole number of at least 0, not {seed!r}")
    if seed < 0:
        raise ValueError(f"{caller}(): a seed is a whole number of at least 0, not {seed}")
    return int(seed)


def require_subproblem(sp, caller: str) -> None:
    """TypeError unless ``sp`` is a :class:`Subproblem` (``caller``: the function that takes it)."""
    if not isinstance(sp, Subproblem):
        raise TypeError(f"{caller}(sp, ...) takes an emc.model.Subproblem, not {type(sp).__name__} "
                        "(Subproblem.whole(puzzle) is the whole puzzle)")


@dataclass(frozen=True, eq=False)  # eq=False: compared and hashed by identity (its arrays have no truth value)
class Subproblem:
    """A part of a puzzle to solve: fill the ``free`` cells with ``pieces`` (each at most once).

    The cells that are not free keep what ``fixed`` has on them (possibly nothing). Every free
    cell gets exactly one piece, placed so that the border colour faces the frame exactly on
    the frame sides. The *counted edges* are the internal edges between two free cells and
    between a free cell and a filled fixed cell; the goal is to match all of them
    (feasibility) or as many as possible (optimisation).

    A whole puzzle is the sub-problem with every non-hint cell free (:meth:`whole`).

    Attributes:
        puzzle: the puzzle.
        fixed: a board whose filled cells outside ``free`` stay as they are.
        free: sorted 0-based cell indices to fill.
        pieces: sorted 0-based piece indices allowed in the free cells.
        goal: :class:`Goal`.
        symmetry_breaking: when the sub-problem is a whole puzzle without hints, fix the first
            corner piece on the top-left cell (square boards) or on the top row's corners
            (rectangular boards, whose only symmetry is the half turn).
    """

    puzzle: Puzzle
    fixed: Board
    free: np.ndarray
    pieces: np.ndarray
    goal: Goal = Goal.OPTIMISATION
    symmetry_breaking: bool = False
    name: str = ""
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        if not isinstance(self.puzzle, Puzzle) or not isinstance(self.fixed, Board):
            raise TypeError(f"Subproblem(puzzle, fixed, ...): give an emc.Puzzle and an emc.Board, not "
                            f"{type(self.puzzle).__name__} and {type(self.fixed).__name__}")
        object.__setattr__(self, "goal", Goal.of(self.goal))  # "feasibility" from a script reads as the Goal
        P = self.puzzle
        free = _free_cells(P, self.fixed, self.free).astype(np.int32)
        pieces = np.asarray(self.pieces)
        if pieces.size and not np.issubdtype(pieces.dtype, np.integer):
            raise InputError(f"pieces must be whole numbers (0-based indices), got {pieces.dtype} values")
        pieces = np.unique(pieces.astype(np.int64)).astype(np.int32)
        object.__setattr__(self, "free", _readonly(free))
        object.__setattr__(self, "pieces", _readonly(pieces))
        fixed = self.fixed.copy()
        fixed.clear(free)
        object.__setattr__(self, "fixed", fixed)
        check_board_pieces(P, fixed)
        if pieces.size and (pieces.min() < 0 or pieces.max() >= P.n_pieces):
            raise InputError("sub-problem names a piece the puzzle does not have")
        used = set(int(p) for p in fixed.piece[fixed.piece >= 0])
        clash = sorted(used & set(int(p) for p in pieces))
        if clash:
            raise InputError(f"pieces {[p + 1 for p in clash[:5]]} are both fixed on the board and free to place")
        if len(pieces) < len(free):
            raise InputError(f"{len(free)} free cells but only {len(pieces)} pieces to place")

    # ------------------------------------------------------------- builders
    @classmethod
    def whole(cls, puzzle: Puzzle, goal: Goal = Goal.FEASIBILITY, symmetry_breaking: bool = True) -> "Subproblem":
        """The whole puzzle: hints fixed, every other cell free, every other piece to place."""
        if not isinstance(puzzle, Puzzle):
            raise TypeError(f"Subproblem.whole(puzzle) takes an emc.Puzzle (emc.load(name) gives one), not "
                            f"{type(puzzle).__name__}")
        fixed = Board.from_hints(puzzle)
        free = np.flatnonzero(fixed.piece < 0)
        pieces = np.setdiff1d(np.arange(puzzle.n_pieces), fixed.piece[fixed.piece >= 0])
        return cls(puzzle, fixed, free, pieces, goal, symmetry_breaking and not puzzle.hints, name=puzzle.name)

    @classmethod
    def region(
        cls,
        puzzle: Puzzle,
        board: Board,
        free: Iterable[int] | np.ndarray,
        goal: Goal = Goal.OPTIMISATION,
        pieces: Iterable[int] | np.ndarray | None = None,
    ) -> "Subproblem":
        """Re-solve ``free`` cells of ``board``: by default with the pieces now on them."""
        require_puzzle(puzzle, "Subproblem.region")
        free = _free_cells(puzzle, board, free)
        if pieces is None:
            pieces = board.piece[free]
            pieces = pieces[pieces >= 0]
        return cls(puzzle, board, free, np.asarray(list(pieces) if not isinstance(pieces, np.ndarray) else pieces), goal)

    def with_goal(self, goal: Goal) -> "Subproblem":
        return Subproblem(self.puzzle, self.fixed, self.free, self.pieces, goal, self.symmetry_breaking, self.name)

    # ---------------------------------------------------------- properties
    @property
    def n_free(self) -> int:
        return int(self.free.size)

    @property
    def exact_cover(self) -> bool:
        """Every allowed piece must be used (as many pieces as free cells)."""
        return self.pieces.size == self.free.size

    @property
    def is_whole(self) -> bool:
        """No fixed cell other than the puzzle's hints, every non-hint cell free."""
        hint_cells = [h.cell for h in self.puzzle.hints]
        return (self.exact_cover and self.free.size + len(hint_cells) == self.puzzle.n_cells
                and not self.free_mask[hint_cells].any())

    def hints_not_kept(self) -> list[str]:
        """Labels (``r9c8``) of the puzzle's hint cells this sub-problem leaves free: any piece
        may go there, the hint's included."""
        free = self.free_mask
        return [self.puzzle.cell_label(h.cell) for h in self.puzzle.hints if free[h.cell]]

    def symmetry_text(self) -> str:
        """The symmetry breaking applied, in one phrase (a count's statement, the MiniZinc
        files' header): ``none``, or the corner piece and the cells it may take."""
        sym = self.symmetry_cells()
        if sym is None:
            return "none"
        return (f"piece {sym[0] + 1} (the first corner piece) only on "
                + " or ".join(self.puzzle.cell_label(int(c)) for c in sym[1]))

    def dead_ends(self) -> tuple[list[int], list[int]]:
        """What rules out a perfect fill before any search: (free cells that no allowed piece
        fits, given frame sides, the colours of fixed neighbours and symmetry breaking; when
        every piece must be used, pieces that fit no free cell). Both empty when nothing is seen
        this way."""
        key = "dead_ends"
        if key not in self._cache:
            pl = self.placements(fit_fixed=True)
            cells = [int(c) for c in np.setdiff1d(self.free, pl.cell)]
            pieces = [int(p) for p in np.setdiff1d(self.pieces, pl.piece)] if self.exact_cover else []
            self._cache[key] = (cells, pieces)
        cells, pieces = self._cache[key]
        return list(cells), list(pieces)

    def dead_end_text(self) -> str:
        """:meth:`dead_ends` in words ("" when there are none), at most three of each kind."""
        cells, pieces = self.dead_ends()

        def some(items: list[str]) -> str:
            return ", ".join(items[:3]) + (f" and {len(items) - 3} more" if len(items) > 3 else "")

        parts = []
        if cells:
            parts.append(f"{'cell' if len(cells) == 1 else 'cells'} {some([self.puzzle.cell_label(c) for c in cells])} "
                         f"{'fits' if len(cells) == 1 else 'fit'} none of the free pieces")
        if pieces:
            parts.append(f"{'piece' if len(pieces) == 1 else 'pieces'} {some([str(p + 1) for p in pieces])} "
                         f"{'fits' if len(pieces) == 1 else 'fit'} none of the free cells")
        return "; ".join(parts)

    @property
    def free_mask(self) -> np.ndarray:
        m = np.zeros(self.puzzle.n_cells, dtype=bool)
        m[self.free] = True
        return m

    def counted_edges(self) -> np.ndarray:
        """Indices into ``puzzle.edges`` of the edges this sub-problem scores.

        An edge counts when both cells are free, or one is free and the other is a filled
        fixed cell."""
        key = "counted"
        if key not in self._cache:
            e = self.puzzle.edges
            free = self.free_mask
            filled = self.fixed.piece >= 0
            a_free, b_free = free[e[:, 0]], free[e[:, 1]]
            ok = (a_free & b_free) | (a_free & filled[e[:, 1]]) | (b_free & filled[e[:, 0]])
            self._cache[key] = _readonly(np.flatnonzero(ok).astype(np.int32))
        return self._cache[key]

    @property
    def max_score(self) -> int:
        return int(self.counted_edges().size)

    def score(self, board: Board) -> int:
        """Matched counted edges of ``board`` (which must agree with ``fixed`` outside ``free``)."""
        return int(edge_matches(self.puzzle, board)[self.counted_edges()].sum())

    def symmetry_cells(self) -> tuple[int, np.ndarray] | None:
        """``(piece, allowed_cells)`` when symmetry breaking applies, else ``None``.

        Applies only to a whole puzzle without hints whose exact cover includes a corner piece:
        the first corner piece (lowest number) goes on the top-left corner of a square board,
        or on one of the two top corners of a rectangular board."""
        return self.symmetry_rule() if self.symmetry_breaking else None

    def symmetry_rule(self) -> tuple[int, np.ndarray] | None:
        """What :meth:`symmetry_cells` gives with symmetry breaking on, whether it is on or not
        (None: it cannot apply here, so turning it off changes nothing)."""
        if not (self.is_whole and not self.puzzle.hints):
            return None
        P = self.puzzle
        corners = [int(p) for p in self.pieces if P.piece_class[p] == PieceClass.CORNER]
        if not corners:
            return None
        W = P.width
        cells = np.array([0] if P.width == P.height else [0, W - 1], dtype=np.int32)
        return corners[0], cells

    def placements(self, fit_fixed: bool = False) -> "Placements":
        """Every (piece, cell, rotation) a solution may use, as a :class:`Placements`.

        A placement qualifies when the piece is allowed, the cell is free, the border colour
        faces the frame exactly on the cell's frame sides, and symmetry breaking (if on)
        allows it. With ``fit_fixed`` it must also match every filled fixed neighbour, as the
        clique formulation requires.
        """
        key = ("placements", fit_fixed)
        if key not in self._cache:
            self._cache[key] = _enumerate_placements(self, fit_fixed)
        return self._cache[key]


@dataclass(frozen=True)
class Placements:
    """Parallel arrays of candidate placements, sorted by cell, then piece, then rotation."""

    piece: np.ndarray
    cell: np.ndarray
    rotation: np.ndarray

    def __len__(self) -> int:
        return int(self.piece.size)

    def shown(self, puzzle: Puzzle) -> np.ndarray:
        """``(n, 4)`` colours each placement shows."""
        return puzzle.colours[self.piece, self.rotation]


def _enumerate_placements(sp: Subproblem, fit_fixed: bool) -> Placements:
    P = sp.puzzle
    fits = P.fits[np.ix_(sp.pieces, sp.free)]  # (p, c, 4)
    pi, ci, ri = np.nonzero(fits)
    piece = sp.pieces[pi]
    cell = sp.free[ci]
    rot = ri.astype(np.int32)
    sym = sp.symmetry_cells()
    if sym is not None:
        sp_piece, allowed = sym
        keep = (piece != sp_piece) | np.isin(cell, allowed)
        if len(allowed) == 1:
            # Square board: the top-left cell takes the fixed corner and nothing else.
            keep &= (cell != allowed[0]) | (piece == sp_piece)
        piece, cell, rot = piece[keep], cell[keep], rot[keep]
    if fit_fixed and len(piece):
        shown = P.colours[piece, rot]  # (n, 4)
        ok = np.ones(len(piece), dtype=bool)
        fixed_shown = sp.fixed.shown(P)
        for s in range(4):
            nb = P.neighbours[cell, s]
            has = (nb >= 0) & (sp.fixed.piece[np.maximum(nb, 0)] >= 0) & ~sp.free_mask[np.maximum(nb, 0)]
            theirs = fixed_shown[np.maximum(nb, 0), OPPOSITE[s]]
            ok &= ~has | (shown[:, s] == theirs)
        piece, cell, rot = piece[ok], cell[ok], rot[ok]
    order = np.lexsort((rot, piece, cell))
    return Placements(
        _readonly(piece[order].astype(np.int32)),
        _readonly(cell[order].astype(np.int32)),
        _readonly(rot[order].astype(np.int32)),
    )
