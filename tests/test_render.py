"""Pictures: files are real images of the right size; the terminal view shows the colours."""

from __future__ import annotations

import numpy as np
import pytest
from rich.console import Console

import emc
from emc.render import PALETTE, colour_hex, glyph, minimum_cell_pixels, render, terminal_view


def _lab(hex_colour: str) -> np.ndarray:
    """CIELAB (D65) of an sRGB colour."""
    rgb = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255
    rgb = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ rgb
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > 0.008856, np.cbrt(t), 7.787 * t + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_palette_tells_eternity_colours_apart():
    cols = [colour_hex(c) for c in range(23)]
    assert len(set(cols)) == 23
    # no two palette colours closer than 19 in CIELAB (cream and apricot were 16.7, two cyans 9.1)
    labs = [_lab(c) for c in PALETTE]
    assert min(np.linalg.norm(a - b) for i, a in enumerate(labs) for b in labs[i + 1:]) > 19
    assert colour_hex(40).startswith("#") and len(colour_hex(40)) == 7
    assert PALETTE[0] == "#7f7f7f"


def test_png_of_a_planted_16x16(tmp_path):
    from PIL import Image

    p, b = emc.generate(16, 16, 5, 17, seed=1)
    path = render(p, b, tmp_path / "b.png", numbers=True)
    im = Image.open(path)
    assert im.format == "PNG"
    w, h = im.size
    assert w >= 16 * 40 and h >= 16 * 40
    # The frame is grey: the pixel just inside the top-left corner of the board is border grey.
    rgb = im.convert("RGB")
    colours = rgb.getcolors(maxcolors=1 << 16)
    assert any(c == (127, 127, 127) for _, c in colours)


def test_svg_is_deterministic_and_marks_mismatches(tmp_path):
    p, b = emc.generate(5, 5, 2, 3, seed=2)
    b.piece[[6, 12]] = b.piece[[12, 6]]
    b.clear([18])
    a = render(p, b, tmp_path / "a.svg").read_text()
    c = render(p, b, tmp_path / "c.svg").read_text()
    assert a == c
    assert "#ff0000" in a  # red bars
    # the title's parts are kept apart by more than spaces, which an SVG viewer runs together
    assert f">{p.name} · 5x5 · score {emc.score(p, b)}/{p.max_score} (1 empty)</text>" in a
    clean, planted = emc.generate(5, 5, 2, 3, seed=2)
    assert "#ff0000" not in render(clean, planted, tmp_path / "d.svg").read_text()


def test_bad_suffix_is_an_input_error(tmp_path):
    p, b = emc.generate(3, 3, 1, 1, seed=2)
    with pytest.raises(emc.InputError, match="png"):
        render(p, b, tmp_path / "x.gif")


def test_terminal_view_letters(planted_6x5):
    p, b = planted_6x5
    console = Console(width=200, color_system=None, record=True)
    console.print(terminal_view(p, b))
    text = console.export_text()
    lines = text.splitlines()
    assert len(lines) == 3 * p.height
    assert lines[0].strip().startswith("a")  # top row shows the border letter on top


def test_render_command(tmp_path, cli):
    out = tmp_path / "pieces.png"
    res = cli("render", "clue1", "-o", out, "--numbers")
    assert res.code == 0 and out.stat().st_size > 1000
    res = cli("render", "set2-3x3")  # no board: the pieces in file order, unturned, in the terminal
    p = emc.load("set2-3x3")
    want = terminal_view(p, emc.Board(3, 3, np.arange(9), np.zeros(9, dtype=np.int64)), marks=False).plain
    assert res.code == 0 and [ln.rstrip() for ln in res.out.splitlines()] == [ln.rstrip() for ln in want.splitlines()]


def _red_sides(text) -> int:
    return sum(span.end - span.start for span in text.spans if "#ff0000" in str(span.style))


def test_the_terminal_view_marks_only_what_the_pictures_mark(tmp_path, cli, monkeypatch):
    """The terminal drawing marked unmatched sides even with --no-marks, and without a board
    (the pieces in file order, unturned) it painted nearly every side red on white, hiding the
    colours the listing is for."""
    p, planted = emc.generate(5, 5, 2, 3, seed=2)
    b = planted.copy()
    b.piece[[6, 12]] = b.piece[[12, 6]]
    assert _red_sides(terminal_view(p, b)) > 0 and _red_sides(terminal_view(p, b, marks=False)) == 0
    assert _red_sides(terminal_view(p, planted)) == 0
    pz, bd = tmp_path / "p.json", tmp_path / "b.json"
    emc.write_puzzle(p, pz)
    emc.write_board(b, p, bd)
    import emc.render as R

    asked, real = [], R.terminal_view
    monkeypatch.setattr(R, "terminal_view", lambda *a, **kw: asked.append(kw.get("marks", True)) or real(*a, **kw))
    for args in ((pz, bd), (pz, bd, "--no-marks"), (pz,)):
        assert cli("render", *args).code == 0
    assert asked == [True, False, False]


def test_terminal_glyphs_tell_every_colour_of_the_shipped_puzzles_apart():
    """Colours past 25 ('z') all showed as '?' in the terminal (set 2's 20x20 has 28)."""
    assert [glyph(c) for c in (0, 25, 26, 51, 52, 61, 62)] == ["a", "z", "A", "Z", "0", "9", "?"]
    assert len({glyph(c) for c in range(62)}) == 62
    p = emc.load("set2-20x20")
    b = emc.Board(20, 20, np.arange(400), np.zeros(400, dtype=np.int64))
    text = terminal_view(p, b).plain
    assert "?" not in text and "B" in text  # colour 27


def test_numbers_need_cells_that_hold_them(tmp_path):
    """--numbers at --cell-pixels 8 drew number boxes and no colours (the font never went below
    4 pt); now cells too small for the largest number are refused, and at the smallest size
    allowed the numbers fit."""
    for name in ("set2-6x6", "eternity2"):
        p = emc.load(name)
        b = emc.Board(p.width, p.height, np.arange(p.n_pieces), np.zeros(p.n_pieces, dtype=np.int64))
        need = minimum_cell_pixels(p, True)
        assert minimum_cell_pixels(p, False) == 8 < need
        with pytest.raises(emc.InputError, match=f"piece numbers need cells of at least {need} pixels"):
            render(p, b, tmp_path / "x.png", numbers=True, cell_pixels=need - 1)
        assert render(p, b, tmp_path / "x.png", numbers=True, cell_pixels=need).stat().st_size > 500
        render(p, b, tmp_path / "y.png", cell_pixels=8)  # without numbers any size goes


@pytest.mark.parametrize("size", [(3, 3), (4, 3), (8, 8)])
def test_the_title_fits_the_picture(tmp_path, size):
    """The title (puzzle name, size, score, empty cells) is drawn whole: no dark pixel of the
    title band touches the picture's left or right edge, whatever the board's size."""
    import numpy as np
    from PIL import Image

    p, b = emc.generate(*size, 2, 3, seed=1)  # a long generated name: gen-WxH-f2-i3-s1
    b.clear([0])
    im = np.asarray(Image.open(render(p, b, tmp_path / "t.png")).convert("L"))
    band = im[: int(0.5 * 100)]  # the top half inch holds the title only
    cols = np.flatnonzero((band < 128).any(axis=0))
    assert cols.size, "no title drawn"
    assert cols[0] >= 5 and cols[-1] <= im.shape[1] - 6, (cols[0], cols[-1], im.shape)


def test_terminal_numbers_are_whole_and_cells_line_up():
    """The terminal view printed the last digit of each piece number only: piece 16 read as 6."""
    p = emc.load("meta-10x10")  # 100 pieces: three digits
    b = emc.Board(10, 10, np.arange(100), np.zeros(100, dtype=np.int64))
    b.piece[5] = -1  # an empty cell keeps its width
    lines = terminal_view(p, b, numbers=True).plain.splitlines()
    assert len(lines) == 30 and len({len(ln) for ln in lines}) == 1 and len(lines[0]) == 10 * 5
    middles = [lines[3 * r + 1] for r in range(10)]
    centres = [ln[5 * c + 1:5 * c + 4].strip() for ln in middles for c in range(10)]
    numbers = [int(x) for x in centres if x.isdigit()]
    assert sorted(numbers) == [n for n in range(1, 101) if n != 6]
    assert lines[1][5 * 5 + 2] == "·"


def test_a_dollar_in_the_name_draws_as_text(tmp_path, cli):
    """matplotlib read "$...$" in the title as a formula: a traceback and no picture."""
    pz, bd = tmp_path / "p.json", tmp_path / "b.json"
    assert cli("generate", 3, 3, "--frame-colours", 1, "--inner-colours", 2, "--name", "cost$^$ and $x_1$",
               "-o", pz, "--solution", bd).code == 0
    r = cli("render", pz, bd, "-o", tmp_path / "x.png")
    assert r.code == 0 and (tmp_path / "x.png").stat().st_size > 500, r


def _turn_border_to(puzzle, board, cell, side):
    """Turn the piece on ``cell`` so that a border side of it faces ``side``."""
    for r in range(4):
        board.rotation[cell] = r
        if board.shown(puzzle)[cell, side] == 0:
            return
    raise AssertionError(f"no border side on cell {cell}")


def _unmatched(puzzle, board):
    """(sides, edges) a picture must mark, counted here by a plain loop: a frame side showing a
    colour, and an inner edge whose two sides differ or are both border grey (the border
    colour only matches the frame)."""
    from emc.model import OPPOSITE

    shown, sides, edges = board.shown(puzzle), 0, 0
    for cell in range(puzzle.width * puzzle.height):
        for s in range(4):
            n = int(puzzle.neighbours[cell, s])
            if n < 0:
                sides += bool(shown[cell, s] != 0)
                edges += bool(shown[cell, s] != 0)
            elif not (shown[cell, s] == shown[n, OPPOSITE[s]] != 0):
                sides += 1
                edges += cell < n
    return sides, edges


def test_every_unmatched_edge_and_frame_side_gets_one_red_mark(tmp_path):
    """Two frame pieces turned so that their border sides face each other: that grey-on-grey
    inner edge is unmatched, and each piece now shows a colour to the frame. The SVG draws one
    red bar per unmatched edge or wrong frame side, the terminal view one red side per side."""
    p, b = emc.generate(5, 5, 2, 3, seed=2)
    _turn_border_to(p, b, 1, 1)  # r1c2's border to its right
    _turn_border_to(p, b, 2, 3)  # r1c3's border to its left
    sides, edges = _unmatched(p, b)
    assert (sides, edges) == (12, 7)  # the grey-grey edge, two frame sides, and edges the turns broke
    svg = render(p, b, tmp_path / "a.svg").read_text()
    assert svg.count("stroke: #ff0000") == edges
    assert len([s for s in terminal_view(p, b).spans if "#ff0000" in str(s.style)]) == sides


def _eternity2_board():
    """Eternity II's pieces in file order, unturned, but for the hint piece, placed as its hint
    says (and the piece that was on the hint cell moved to the hint piece's old cell)."""
    p = emc.load("eternity2")
    b = emc.Board(16, 16, np.arange(256), np.zeros(256, dtype=np.int64))
    h = p.hints[0]
    b.place(h.piece, h.cell, 0)
    b.place(h.cell, h.piece, h.rotation)
    return p, b


def test_pictures_mark_the_hint_cells(tmp_path, cli):
    """The pictures did not show which cells the puzzle pins. Each hint cell now gets a dashed
    square inside it, and nothing else in the picture changes."""
    from PIL import Image

    p, b = _eternity2_board()
    (cell,) = [h.cell for h in p.hints]
    svg = render(p, b, tmp_path / "a.svg").read_text()
    assert svg.count('id="hint-') == 1 and 'id="hint-r9c8"' in svg
    q, planted = emc.generate(5, 5, 2, 3, seed=2)  # no hints, no squares
    assert 'id="hint-' not in render(q, planted, tmp_path / "q.svg").read_text()

    px = 40
    marked = np.asarray(Image.open(render(p, b, tmp_path / "m.png", cell_pixels=px)).convert("RGB")).astype(int)
    plain = np.asarray(Image.open(render(p, b, tmp_path / "p.png", cell_pixels=px, mark_hints=False))
                       .convert("RGB")).astype(int)
    ys, xs = np.nonzero((marked != plain).any(axis=2))
    assert xs.size > 4 * px  # a square's outline, drawn
    # where the cell is: the board is centred, 0.6 inch below the top, and its axes run from
    # -0.05 to W + 0.05 cells
    r, c = divmod(cell, 16)
    step = px * 16 / 16.1
    left, top = (marked.shape[1] - 16 * px) / 2, 60
    x0, y0 = left + (c + 0.05) * step, top + (r + 0.05) * step
    assert x0 <= xs.min() and xs.max() <= x0 + step and y0 <= ys.min() and ys.max() <= y0 + step
    changed = marked[ys, xs]
    assert (changed == 0).all(axis=1).any() and (changed == 255).all(axis=1).any()  # black on white

    bd = tmp_path / "b.json"
    emc.write_board(b, p, bd)
    assert cli("render", "eternity2", bd, "-o", tmp_path / "c.svg").code == 0
    assert 'id="hint-r9c8"' in (tmp_path / "c.svg").read_text()
    assert cli("render", "eternity2", "-o", tmp_path / "pieces.svg").code == 0  # no board: no hint squares
    assert 'id="hint-' not in (tmp_path / "pieces.svg").read_text()


def test_the_terminal_view_marks_the_hint_cells():
    p, b = _eternity2_board()
    r, c = divmod(p.hints[0].cell, 16)
    lines = terminal_view(p, b).plain.splitlines()
    assert lines[3 * r + 1][3 * c + 1] == "*"
    assert sum(line.count("*") for line in lines) == 1
    assert terminal_view(p, b, hints=False).plain.splitlines()[3 * r + 1][3 * c + 1] == " "
    text = terminal_view(p, b, numbers=True)
    k = 5  # three digits and a side letter each side
    middle = text.plain.splitlines()[3 * r + 1]
    assert middle[k * c + 1:k * c + 4] == str(p.hints[0].piece + 1)
    start = sum(len(line) + 1 for line in text.plain.splitlines()[:3 * r + 1]) + k * c + 1
    assert any(s.start == start and s.end == start + 3 and "reverse" in str(s.style) for s in text.spans)
    b.clear([p.hints[0].cell])  # an empty hint cell still says it is one
    assert terminal_view(p, b).plain.splitlines()[3 * r + 1][3 * c + 1] == "*"
