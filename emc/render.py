"""Pictures of boards: PNG/SVG/PDF through matplotlib, an HTML page, and a coloured terminal view.

Each cell is drawn as four triangles meeting at its centre, one per side, in the colour that
side shows, the way edge-matching pieces look. Unmatched internal edges get a red bar across
them, hint cells a dashed square inside them, empty cells are hatched, and piece numbers can be
printed on the pieces. The HTML page (:mod:`emc.page`) draws the same with the same colours
(both take them from :mod:`emc.drawing`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .drawing import (  # noqa: F401 (the names pictures share, also reached through emc.render)
    CORNERS,
    DPI,
    HINT_INSET,
    MAX_CELL_PIXELS,
    MIN_CELL_PIXELS,
    MIN_NUMBER_POINTS,
    PALETTE,
    PICTURE_FORMATS,
    SIDE_NAMES,
    _number_points,
    _text_colour,
    cell_pixels_for_digits,
    colour_hex,
    default_title,
    glyph,
    is_picture_name,
    letter,
    minimum_cell_pixels,
    mismatch_bars,
    picture_format,
)
from .errors import InputError
from .model import BORDER, Board, Puzzle


def render(
    puzzle: Puzzle,
    board: Board,
    path: str | os.PathLike,
    numbers: bool = False,
    mark_mismatches: bool = True,
    title: str | None = None,
    cell_pixels: int = 40,
    label: str | None = None,
    mark_hints: bool = True,
) -> Path:
    """Draw ``board`` to ``path`` (format from the suffix: .png, .svg, .pdf, or .html for a
    page of its own, see :func:`emc.page.board_page`), atomically.

    Args:
        numbers: print the 1-based piece number on each piece (on the page: shown at first,
            and a switch hides them).
        mark_mismatches: draw a red bar across every unmatched internal edge between two
            filled cells, and across frame sides that do not show the border colour.
        title: text above the board (default: name, ``label`` if given, and score).
        cell_pixels: size of a cell in the PNG (on the page: at first); with ``numbers``, at
            least :func:`minimum_cell_pixels` (smaller cells held the numbers and little else).
        label: words for the default title, before the score (e.g. what kind of board it is).
        mark_hints: draw a dashed square inside each cell the puzzle has a hint for.
    """
    import matplotlib
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    from .io import atomic_write
    from .score import check_placements

    check_placements(puzzle, board)
    path = Path(path)
    fmt = picture_format(path)
    if fmt == "html":  # the page scales its drawing and sizes the numbers itself
        from .io import write_text
        from .page import board_page

        write_text(path, board_page(puzzle, board, numbers=numbers, mark_mismatches=mark_mismatches,
                                    mark_hints=mark_hints, title=title, label=label, cell_pixels=cell_pixels))
        return path
    need = minimum_cell_pixels(puzzle, numbers)
    if numbers and cell_pixels < need:
        raise InputError(f"piece numbers need cells of at least {need} pixels for the {puzzle.n_pieces} pieces of "
                         f"{puzzle.name}, not {cell_pixels}: give a larger --cell-pixels, or leave the numbers out")
    W, H = puzzle.width, puzzle.height
    shown = board.shown(puzzle)
    dpi = DPI
    inch = cell_pixels / dpi
    if title is None:
        title = default_title(puzzle, board, label)
    # Wide enough for the title (about 0.085 inch a character at 10 points): a small board's
    # picture would cut it at both ends; the board stays centred.
    fig_w = max(W * inch + 0.4, 0.085 * len(title) + 0.4)
    # A Figure of its own, not pyplot's: the caller's matplotlib backend (a notebook's inline
    # one) is left as it is, and no figure is left open in pyplot's list.
    fig = Figure(figsize=(fig_w, H * inch + 0.8), dpi=dpi)
    ax = fig.add_axes(((fig_w - W * inch) / 2 / fig_w, 0.2 / (H * inch + 0.8), W * inch / fig_w, H * inch / (H * inch + 0.8)))
    ax.set_xlim(-0.05, W + 0.05)
    ax.set_ylim(H + 0.05, -0.05)
    ax.set_aspect("equal")
    ax.axis("off")

    polys, faces = [], []
    offsets = CORNERS
    for cell in range(puzzle.n_cells):
        r, c = divmod(cell, W)
        if board.piece[cell] < 0:
            ax.add_patch(Rectangle((c, r), 1, 1, facecolor="#f4f4f4", edgecolor="#c8c8c8", hatch="///", linewidth=0.3))
            continue
        centre = (c + 0.5, r + 0.5)
        for s in range(4):
            a = offsets[s]
            b = offsets[(s + 1) % 4]
            polys.append([(c + a[0], r + a[1]), (c + b[0], r + b[1]), centre])
            faces.append(colour_hex(int(shown[cell, s])))
    ax.add_collection(PolyCollection(polys, facecolors=faces, edgecolors="#303030", linewidths=0.35))
    ax.add_patch(Rectangle((0, 0), W, H, fill=False, edgecolor="#202020", linewidth=1.2))

    if mark_hints:
        # a dashed black square on a white one: seen on every colour of the palette, and apart
        # from the red bars, which cross edges
        width = max(0.6, cell_pixels / 20)  # points
        side = 1 - 2 * HINT_INSET
        for h in puzzle.hints:
            r, c = divmod(h.cell, W)
            ax.add_patch(Rectangle((c + HINT_INSET, r + HINT_INSET), side, side, fill=False, edgecolor="#ffffff",
                                   linewidth=width * 2.4, zorder=3))
            ax.add_patch(Rectangle((c + HINT_INSET, r + HINT_INSET), side, side, fill=False, edgecolor="#000000",
                                   linewidth=width, linestyle=(0, (3, 2)), zorder=3,
                                   gid=f"hint-{puzzle.cell_label(h.cell)}"))

    if mark_mismatches:
        bars = [[a, b] for a, b, _ in mismatch_bars(puzzle, board)]
        if bars:  # red on a white halo: visible on the red and pink colours of the palette too
            width = max(0.8, cell_pixels / 12)  # points; the floor keeps small cells' colours in sight
            ax.add_collection(LineCollection(bars, colors="#ffffff", linewidths=width * 2.2, capstyle="round", zorder=4))
            ax.add_collection(LineCollection(bars, colors="#ff0000", linewidths=width, capstyle="round", zorder=5))

    if numbers:
        # at least 4 pt (minimum_cell_pixels sees to it), and no wider than the cell
        fsize = min(max(MIN_NUMBER_POINTS, min(9.0, cell_pixels / 5.0)), _number_points(cell_pixels, len(str(puzzle.n_pieces))))
        for cell in np.flatnonzero(board.piece >= 0):
            r, c = divmod(int(cell), W)
            ax.text(c + 0.5, r + 0.5, str(int(board.piece[cell]) + 1), ha="center", va="center", fontsize=fsize,
                    color="#000000", zorder=6,
                    bbox=dict(boxstyle="round,pad=0.12", facecolor="#ffffffcc", edgecolor="none"))
    # parse_math off: a "$" in a puzzle name is text, not the start of a formula
    fig.text(0.5, 1 - 0.3 / (H * inch + 0.8), title, ha="center", va="center", fontsize=10, parse_math=False)

    meta = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}, "png": {"Software": None}}[fmt]
    with matplotlib.rc_context({"svg.hashsalt": "emc", "svg.fonttype": "none", "hatch.linewidth": 0.5}):
        with atomic_write(path, "wb") as f:
            fig.savefig(f, format=fmt, dpi=dpi, metadata=meta)
    return path


HINT_STYLE = "bold reverse"  # a hint cell's centre in the terminal view


def terminal_view(puzzle: Puzzle, board: Board, numbers: bool = False, marks: bool = True, hints: bool = True):
    """A rich ``Text`` with the board drawn as 3x3 characters a cell.

    Each side shows its colour's character (:func:`glyph`: 'a' = border) on the colour's
    background; with ``marks`` unmatched sides are red and bold; empty cells are dots. With
    ``numbers`` the centre holds the whole piece number (cells widen to the digits of the
    largest one: 5 characters for 256 pieces). With ``hints`` the centre of each hint cell is
    a '*' (its number in reverse video, with ``numbers``).
    """
    from rich.text import Text

    from .score import check_placements

    check_placements(puzzle, board)
    W, H = puzzle.width, puzzle.height
    shown = board.shown(puzzle)
    nb = puzzle.neighbours
    from .model import OPPOSITE

    def side_ok(cell: int, s: int) -> bool:
        col = shown[cell, s]
        n = nb[cell, s]
        if n < 0:
            return col == BORDER
        theirs = shown[n, OPPOSITE[s]]
        return theirs < 0 or (col == theirs and col > BORDER)

    hint_cells = {h.cell for h in puzzle.hints} if hints else set()
    k = len(str(puzzle.n_pieces)) if numbers else 1  # width of the centre
    lpad, rpad = " " * ((k + 1) // 2), " " * (k + 2 - 1 - (k + 1) // 2)  # around the top and bottom letters
    out = Text()
    for r in range(H):
        lines = [Text(), Text(), Text()]
        for c in range(W):
            cell = r * W + c
            if board.piece[cell] < 0:
                for i, ln in enumerate(lines):
                    if i == 1 and cell in hint_cells:
                        ln.append(lpad, style="dim")
                        ln.append("*", style=HINT_STYLE)
                        ln.append(rpad, style="dim")
                    else:
                        ln.append(f"{lpad}·{rpad}", style="dim")
                continue

            def side(s: int) -> Text:
                col = int(shown[cell, s])
                bg = colour_hex(col)
                style = f"{_text_colour(bg)} on {bg}"
                if marks and not side_ok(cell, s):
                    style = "bold #ff0000 on #ffffff"
                return Text(glyph(col), style=style)

            centre = str(int(board.piece[cell]) + 1).rjust(k) if numbers else " "
            centre_style = "dim"
            if cell in hint_cells:
                centre_style = HINT_STYLE
                if not numbers:
                    centre = "*"
            lines[0].append(lpad)
            lines[0].append(side(0))
            lines[0].append(rpad)
            lines[1].append(side(3))
            lines[1].append(centre, style=centre_style)
            lines[1].append(side(1))
            lines[2].append(lpad)
            lines[2].append(side(2))
            lines[2].append(rpad)
        for i, ln in enumerate(lines):
            out.append(ln)
            if r < H - 1 or i < 2:
                out.append("\n")
    return out
