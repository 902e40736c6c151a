"""What every picture of a board shares: the palette, the geometry of a cell, the red bars of
unmatched edges, titles, the characters of colours, and the picture formats by suffix.

:mod:`emc.render` (PNG, SVG, PDF, the terminal view) and :mod:`emc.page` (the HTML page) draw
with these, so the two always agree.
"""

from __future__ import annotations

import colorsys
import os
from pathlib import Path

import numpy as np

from .errors import InputError
from .model import BORDER, Board, Puzzle

MIN_CELL_PIXELS, MAX_CELL_PIXELS = 8, 400  # what --cell-pixels takes
DPI = 100  # of every picture: a PNG cell of cell_pixels pixels is cell_pixels / DPI inches
MIN_NUMBER_POINTS = 4.0  # piece numbers are never set smaller

#: Fixed palette: index = colour number. 0 is the border grey; the next ones are chosen to be
#: far apart (no two closer than 19 in CIELAB), so that the 22 colours of Eternity II are all
#: told apart.
PALETTE = (
    "#7f7f7f",  # 0 border
    "#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
    "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#800000", "#aaffc3",
    "#808000", "#0000e0", "#000075", "#1f1f1f", "#ffffff", "#c71585", "#ff7f7f", "#7fbfff",
    "#5a3d8a", "#c0a000", "#00c080", "#ff00a0", "#604020", "#004000", "#00e020",
)


def colour_hex(c: int) -> str:
    """Display colour of puzzle colour ``c``; beyond the fixed palette, golden-ratio hues."""
    if c < len(PALETTE):
        return PALETTE[c]
    h = (c * 0.618033988749895) % 1.0
    r, g, b = colorsys.hsv_to_rgb(h, 0.55 + 0.4 * ((c // 7) % 2), 0.95 - 0.35 * ((c // 3) % 2))
    return "#{:02x}{:02x}{:02x}".format(int(r * 255), int(g * 255), int(b * 255))


def _text_colour(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#000000" if (0.299 * r + 0.587 * g + 0.114 * b) > 140 else "#ffffff"


#: The formats pictures are drawn in, named by the file's suffix (html: a page, see emc.page).
PICTURE_FORMATS = ("png", "svg", "pdf", "html")


def is_picture_name(path: str | os.PathLike) -> bool:
    """Whether ``path``'s suffix names a picture format (boards and text files are refused there)."""
    return Path(path).suffix.lower().lstrip(".") in PICTURE_FORMATS


def picture_format(path: str | os.PathLike) -> str:
    """``png``, ``svg``, ``pdf`` or ``html`` from the suffix of ``path``; anything else is an
    InputError (checked by the commands before they start a long run)."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in PICTURE_FORMATS:
        raise InputError(f"cannot draw to {path.suffix or 'a file without suffix'}: use .png, .svg, .pdf or .html",
                         path)
    return fmt


#: Corners of a cell clockwise from the top-left, in cell units: side s runs from corner s to s + 1.
CORNERS = ((0, 0), (1, 0), (1, 1), (0, 1))
HINT_INSET = 0.14  # a hint cell's square is drawn this far inside the cell (in cells)


def default_title(puzzle: Puzzle, board: Board, label: str | None = None) -> str:
    """Name, size, ``label`` and score of a board, as the pictures are titled."""
    from .score import score

    empty = int((board.piece < 0).sum())
    # " · " between the parts: an SVG viewer shows a run of spaces as one
    title = (f"{puzzle.name} · {puzzle.size} · {label + ': ' if label else ''}"
             f"score {score(puzzle, board)}/{puzzle.max_score}")
    return title + (f" ({empty} empty)" if empty else "")


def mismatch_bars(puzzle: Puzzle, board: Board) -> list[tuple[tuple[float, float], tuple[float, float], str]]:
    """Where the pictures draw a red bar, in cell units (x right, y down): across every unmatched
    internal edge between two filled cells, and along every frame side of a filled cell that
    does not show the border colour. Each bar comes with words naming it (``r1c2|r1c3``,
    ``r1c1 top``)."""
    W = puzzle.width
    shown = board.shown(puzzle)
    bars = []
    e, sd = puzzle.edges, puzzle.edge_sides
    ca, cb = shown[e[:, 0], sd[:, 0]], shown[e[:, 1], sd[:, 1]]
    both = (ca >= 0) & (cb >= 0)
    bad = both & ~((ca == cb) & (ca > BORDER))
    nh = puzzle.height * (W - 1)  # the edges between left and right neighbours come first
    for i in np.flatnonzero(bad):
        a, b = int(e[i, 0]), int(e[i, 1])
        ra, cca = divmod(a, W)
        what = f"{puzzle.cell_label(a)}|{puzzle.cell_label(b)}"
        if i < nh:  # vertical bar on the line between (ra, cca) and (ra, cca+1)
            bars.append(((cca + 1, ra + 0.12), (cca + 1, ra + 0.88), what))
        else:
            bars.append(((cca + 0.12, ra + 1), (cca + 0.88, ra + 1), what))
    wrong_frame = (board.piece[:, None] >= 0) & puzzle.frame_sides & (shown != BORDER)
    for cell, s in zip(*np.nonzero(wrong_frame)):
        r, c = divmod(int(cell), W)
        a, b = CORNERS[s], CORNERS[(s + 1) % 4]
        bars.append(((c + a[0], r + a[1]), (c + b[0], r + b[1]), f"{puzzle.cell_label(int(cell))} {SIDE_NAMES[s]}"))
    return bars


SIDE_NAMES = ("top", "right", "bottom", "left")


def letter(c: int) -> str:
    """The board_edges letter of colour ``c`` ('a' = border)."""
    return chr(ord("a") + c) if c <= 25 else "?"


def glyph(c: int) -> str:
    """The character the terminal view shows for colour ``c``: its board_edges letter up to 25
    ('z'), then A-Z (26 to 51) and 0-9 (52 to 61); '?' past that."""
    if c <= 25:
        return letter(c)
    if c <= 51:
        return chr(ord("A") + c - 26)
    return chr(ord("0") + c - 52) if c <= 61 else "?"


def _number_points(cell_pixels: int, digits: int) -> float:
    """The largest type size (points) in which a piece number of ``digits`` digits fits in a
    cell of ``cell_pixels`` (a digit is about 0.6 em wide; 1 pt = DPI / 72 px; 80 % of the cell
    less the label's padding)."""
    return (0.8 * cell_pixels - 2) / (digits * 0.6 * DPI / 72)


def cell_pixels_for_digits(digits: int) -> int:
    """The smallest cell that holds a ``digits``-digit piece number in :data:`MIN_NUMBER_POINTS`
    type (two digits: 11, three: 15)."""
    return next(px for px in range(MIN_CELL_PIXELS, MAX_CELL_PIXELS + 1)
                if _number_points(px, digits) >= MIN_NUMBER_POINTS)


def minimum_cell_pixels(puzzle: Puzzle, numbers: bool) -> int:
    """The smallest ``cell_pixels`` :func:`render` takes: with ``numbers``, cells that hold the
    largest piece number of ``puzzle`` (:func:`cell_pixels_for_digits`)."""
    return cell_pixels_for_digits(len(str(puzzle.n_pieces))) if numbers else MIN_CELL_PIXELS
