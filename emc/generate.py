"""Planted-solution puzzles, like the benchmark sets of the literature.

A colour is drawn for every internal edge of a W x H board: one of ``frame_colours`` for
the edges between two frame cells, one of ``inner_colours`` for every other internal edge;
sides on the frame get the border colour 0. Cutting the board into pieces gives a puzzle
with a known perfect solution (the *planted* board); the pieces are then turned and
shuffled at random. With ``frame_colours == 0`` every edge draws from the same
``inner_colours`` colours, as in the generator of Benoist and Bourreau (seed 002, section 5).

Colours are numbered ``1..F`` for the frame and ``F+1..F+I`` inside. The random stream is
:class:`emc.rng.StableRng`, so a seed gives the same bytes on every machine.
"""

from __future__ import annotations

import numpy as np

from .errors import InputError
from .model import BORDER, MAX_COLOUR, Board, Puzzle
from .rng import StableRng


def generate(
    width: int,
    height: int,
    frame_colours: int,
    inner_colours: int,
    seed: int = 0,
    distinct: bool = False,
    max_tries: int = 1000,
    name: str | None = None,
) -> tuple[Puzzle, Board]:
    """A random puzzle with a planted solution.

    Args:
        width: board width, in columns (at least 2).
        height: board height, in rows (at least 2).
        frame_colours: colours for edges between two frame cells (0: use the inner colours).
        inner_colours: colours for every other internal edge (at least 1).
        seed: random seed; the same arguments always give the same puzzle.
        distinct: redraw until no two pieces are equal up to rotation.
        max_tries: redraws allowed with ``distinct`` before giving up.
        name: puzzle name (default ``gen-WxH-fF-iI-sSEED``, with ``-distinct`` after it for
            ``distinct``, which draws another puzzle from the same seed).

    Returns:
        ``(puzzle, planted_board)``: the planted board scores the maximum.

    Raises:
        InputError: on impossible parameters, or when ``distinct`` cannot be met.
    """
    for what, v in (("width", width), ("height", height), ("frame_colours", frame_colours),
                    ("inner_colours", inner_colours), ("seed", seed), ("max_tries", max_tries)):
        # a float or a string would name the puzzle after a seed it did not use ("s1.5")
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise InputError(f"{what} must be a whole number, not {v!r}")
    if seed < 0:
        raise InputError(f"seed must be 0 or more, not {seed}")
    if max_tries < 1:
        raise InputError(f"max_tries must be at least 1, not {max_tries}")
    if not isinstance(distinct, (bool, np.bool_)):  # "no" would count as true
        raise InputError(f"distinct is True or False, not {distinct!r}")
    if width < 2 or height < 2:
        raise InputError(f"board size {width}x{height} is too small (both sides at least 2)")
    if inner_colours < 1 or frame_colours < 0:
        raise InputError("need at least 1 inner colour and a non-negative number of frame colours")
    if frame_colours + inner_colours > MAX_COLOUR:
        raise InputError(f"{frame_colours} frame and {inner_colours} inner colours: at most {MAX_COLOUR} in all")
    if width * height > 100_000:
        raise InputError(f"board {width}x{height} is too large (at most 100000 cells)")
    rng = StableRng(seed)
    # distinct gives another puzzle from the same seed (a later draw), so another name
    name = name or f"gen-{width}x{height}-f{frame_colours}-i{inner_colours}-s{seed}" + ("-distinct" if distinct else "")
    for attempt in range(max_tries if distinct else 1):
        pieces, planted = _draw(width, height, frame_colours, inner_colours, rng)
        prov = {
            "generator": "emc.generate",
            "width": width,
            "height": height,
            "frame_colours": frame_colours,
            "inner_colours": inner_colours,
            "seed": seed,
            "distinct": distinct,
            "attempt": attempt,
        }
        puzzle = Puzzle(width, height, pieces, (), name, prov)
        if not distinct or not puzzle.duplicate_pieces():
            return puzzle, planted
    raise InputError(
        f"no puzzle without duplicate pieces in {max_tries} draws; use more colours (now {frame_colours} frame, {inner_colours} inner)"
    )


def _draw(W: int, H: int, F: int, I: int, rng: StableRng) -> tuple[np.ndarray, Board]:
    # Colours shown on each side of each cell of the planted board.
    sides = np.zeros((H, W, 4), dtype=np.int64)
    def colour(along_frame: bool) -> int:
        if F > 0 and along_frame:
            return 1 + rng.below(F)
        return F + 1 + rng.below(I)

    for r in range(H):
        for c in range(W - 1):  # horizontal edges, row-major
            col = colour(_along_frame(r, c, r, c + 1, W, H))
            sides[r, c, 1] = sides[r, c + 1, 3] = col
    for r in range(H - 1):
        for c in range(W):  # vertical edges
            col = colour(_along_frame(r, c, r + 1, c, W, H))
            sides[r, c, 2] = sides[r + 1, c, 0] = col
    sides[0, :, 0] = sides[-1, :, 2] = sides[:, 0, 3] = sides[:, -1, 1] = BORDER

    n = W * H
    shown = sides.reshape(n, 4)
    order = rng.permutation(n)  # order[k] = cell whose piece becomes piece k
    turns = np.array([rng.below(4) for _ in range(n)])
    # The stored piece is the shown piece turned back by `turns`; placing it with rotation
    # `turns` shows `shown` again.
    pieces = np.empty((n, 4), dtype=np.int64)
    piece_of_cell = np.empty(n, dtype=np.int64)
    rot_of_cell = np.empty(n, dtype=np.int64)
    for k, cell in enumerate(order):
        t = int(turns[k])
        pieces[k] = np.roll(shown[cell], -t)
        piece_of_cell[cell] = k
        rot_of_cell[cell] = t
    return pieces, Board(W, H, piece_of_cell, rot_of_cell)


def _along_frame(r1: int, c1: int, r2: int, c2: int, W: int, H: int) -> bool:
    """The edge between two cells runs along the frame: both cells on the same frame side."""
    if r1 == r2:
        return r1 == 0 or r1 == H - 1
    return c1 == 0 or c1 == W - 1
