"""A board as one self-contained web page: the drawing as inline SVG, a few lines of script.

The page loads nothing: no fonts, scripts or pictures from anywhere (its Content-Security-Policy
forbids it), so it can be mailed, attached to an issue or opened offline. It draws what the
pictures of :mod:`emc.render` draw, in the same colours: each piece as four triangles, unmatched
edges as red bars, hint cells as dashed squares, empty cells hatched. Piece numbers are shown or
hidden by a switch; pointing at a cell tells its piece, turn and four colours; a button copies
the board_edges string, and a link opens the board in the community viewer.

Every cell is a ``<g class="cell">`` with its numbers in ``data-`` attributes (the script reads
them, and so can anyone who wants the board back out of the page); every red bar is one
``<line class="mark">`` and every hint square one ``<g class="hint">``.
"""

from __future__ import annotations

import json

from .model import Board, Puzzle

UNIT = 100  # a cell's side in the drawing's own units; the page scales the whole drawing


def _environment():
    from .io import templates

    return templates(autoescape=True)  # puzzle names are the user's: "<" in one is text


def _number(v: float) -> str:
    """A coordinate as short text: 12, 12.5 (the same number always the same text)."""
    return f"{v:.2f}".rstrip("0").rstrip(".")


def board_page(puzzle: Puzzle, board: Board, *, numbers: bool = False, mark_mismatches: bool = True,
               mark_hints: bool = True, title: str | None = None, label: str | None = None,
               cell_pixels: int = 40) -> str:
    """The HTML page showing ``board``: the same board gives the same text.

    Args:
        numbers: piece numbers shown when the page opens (a switch on the page turns them off).
        mark_mismatches: red bars across unmatched edges and wrong frame sides (a switch hides them).
        mark_hints: a dashed square inside each cell the puzzle has a hint for.
        title: the heading (default: name, ``label``, score, as the pictures' titles).
        cell_pixels: a cell's size on screen when the page opens, in CSS pixels (a narrow window
            shrinks the drawing to fit).
    """
    from .formats import EDGES_MAX_COLOUR, format_board, format_board_url
    from .drawing import CORNERS, HINT_INSET, SIDE_NAMES, colour_hex, default_title, glyph, mismatch_bars
    from .score import check_placements, score

    check_placements(puzzle, board)
    W, H = puzzle.width, puzzle.height
    shown = board.shown(puzzle)
    u = UNIT
    hints = {h.cell: h for h in puzzle.hints}

    cells = []
    for cell in range(puzzle.n_cells):
        r, c = divmod(cell, W)
        p = int(board.piece[cell])
        item = {"id": puzzle.cell_label(cell), "row": r + 1, "col": c + 1, "x": c * u, "y": r * u,
                "piece": p + 1, "rotation": int(board.rotation[cell]) if p >= 0 else 0, "triangles": [], "colours": "",
                "hint": ""}
        h = hints.get(cell)
        if h is not None:
            kept = p == h.piece and int(board.rotation[cell]) == h.rotation
            item["hint"] = f"{h.piece + 1} {h.rotation} {'kept' if kept else 'broken'}"
        if p >= 0:
            centre = (c * u + u / 2, r * u + u / 2)
            for s in range(4):
                a, b = CORNERS[s], CORNERS[(s + 1) % 4]
                points = [((c + a[0]) * u, (r + a[1]) * u), ((c + b[0]) * u, (r + b[1]) * u), centre]
                item["triangles"].append({"points": " ".join(f"{_number(x)},{_number(y)}" for x, y in points),
                                          "fill": colour_hex(int(shown[cell, s]))})
            item["colours"] = " ".join(str(int(v)) for v in shown[cell])
        cells.append(item)

    marks = []
    if mark_mismatches:
        for (x1, y1), (x2, y2), what in mismatch_bars(puzzle, board):
            marks.append({"x1": _number(x1 * u), "y1": _number(y1 * u), "x2": _number(x2 * u), "y2": _number(y2 * u),
                          "what": what})

    hint_marks = []
    if mark_hints:
        side = u * (1 - 2 * HINT_INSET)
        for h in puzzle.hints:
            r, c = divmod(h.cell, W)
            hint_marks.append({"cell": puzzle.cell_label(h.cell), "x": _number((c + HINT_INSET) * u),
                               "y": _number((r + HINT_INSET) * u), "side": _number(side)})

    used = sorted({int(v) for v in shown[board.piece >= 0].ravel()} | {0})
    colour_table = {str(c): [colour_hex(c), glyph(c)] for c in used}
    digits = len(str(puzzle.n_pieces))
    has_letters = puzzle.max_colour <= EDGES_MAX_COLOUR
    kept = sum(1 for h in puzzle.hints if board.piece[h.cell] == h.piece and board.rotation[h.cell] == h.rotation)
    facts = {
        "score": score(puzzle, board),
        "max_score": puzzle.max_score,
        "unmatched": len(mismatch_bars(puzzle, board)),
        "empty": int((board.piece < 0).sum()),
        "hints": len(puzzle.hints),
        "hints_kept": kept,
    }
    return _environment().get_template("board.html.j2").render(
        title=title if title is not None else default_title(puzzle, board, label),
        puzzle=puzzle,
        width=W * u, height=H * u, pixel_width=W * cell_pixels, pixel_height=H * cell_pixels,
        cells=cells, marks=marks, marks_on=mark_mismatches, hint_marks=hint_marks,
        numbers=numbers, font_size=_number(min(0.36 * u, 0.8 * u / (0.62 * digits))),
        colours_json=json.dumps(colour_table, sort_keys=True, separators=(",", ":")).replace("</", "<\\/"),
        side_names=SIDE_NAMES,
        edges=format_board(board, puzzle, "edges").strip() if has_letters else None,
        url=format_board_url(board, puzzle) if has_letters else None,
        letters_max=EDGES_MAX_COLOUR,
        facts=facts,
        u=u,
    )
