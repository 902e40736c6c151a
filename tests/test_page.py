"""The board's HTML page: what it holds, and what a real headless Chromium shows of it."""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import emc
from emc.formats import format_board, format_board_url
from emc.model import OPPOSITE, Board, Hint, Puzzle
from emc.page import board_page
from emc.render import colour_hex, render
from emc.rng import StableRng


class _Elements(HTMLParser):
    """Every element of a page as (tag, attributes, text directly inside it)."""

    def __init__(self, text: str):
        super().__init__()
        self.elements: list[tuple[str, dict, list[str]]] = []
        self._open: list[int] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), []))
        if tag not in ("meta", "input", "polygon", "rect", "line", "br"):
            self._open.append(len(self.elements) - 1)

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), []))

    def handle_endtag(self, tag):
        while self._open:
            if self.elements[self._open.pop()][0] == tag:
                break

    def handle_data(self, data):
        if self._open:
            self.elements[self._open[-1]][2].append(data)

    def having(self, tag: str, cls: str) -> list[tuple[dict, str]]:
        return [(a, "".join(t)) for g, a, t in self.elements if g == tag and cls in a.get("class", "").split()]


def _scrambled(puzzle: Puzzle, seed: int, empties: int) -> Board:
    rng = StableRng(seed)
    order = list(range(puzzle.n_pieces))
    for i in range(len(order) - 1, 0, -1):
        j = rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    b = Board(puzzle.width, puzzle.height, np.array(order), np.array([rng.below(4) for _ in order]))
    b.clear([rng.below(puzzle.n_cells) for _ in range(empties)])
    return b


def _marked(puzzle: Puzzle, board: Board) -> set[str]:
    """What must carry a red bar, found by a plain loop over cells and sides: an edge between two
    filled cells whose sides differ or both show the border, and a frame side of a filled cell
    that shows a colour. Named as the page names them (r1c2|r1c3, r1c1 top)."""
    shown = board.shown(puzzle)
    names = ("top", "right", "bottom", "left")
    out = set()
    for cell in range(puzzle.n_cells):
        if board.piece[cell] < 0:
            continue
        for s in range(4):
            n = int(puzzle.neighbours[cell, s])
            if n < 0:
                if shown[cell, s] != 0:
                    out.add(f"{puzzle.cell_label(cell)} {names[s]}")
            elif n > cell and board.piece[n] >= 0 and not (shown[cell, s] == shown[n, OPPOSITE[s]] != 0):
                out.add(f"{puzzle.cell_label(cell)}|{puzzle.cell_label(n)}")
    return out


def _check_page(puzzle: Puzzle, board: Board, text: str) -> None:
    page = _Elements(text)
    shown = board.shown(puzzle)
    cells = page.having("g", "cell")
    assert [a["id"] for a, _ in cells] == [puzzle.cell_label(c) for c in range(puzzle.n_cells)]
    polygons = [a for g, a, _ in page.elements if g == "polygon"]
    assert len(polygons) == 4 * int((board.piece >= 0).sum())
    fills = iter(a["fill"] for a in polygons)
    for cell, (a, _) in enumerate(cells):
        p = int(board.piece[cell])
        assert int(a["data-piece"]) == p + 1
        if p >= 0:
            assert int(a["data-rotation"]) == board.rotation[cell]
            assert a["data-colours"] == " ".join(str(int(v)) for v in shown[cell])
            assert [next(fills) for _ in range(4)] == [colour_hex(int(v)) for v in shown[cell]]
    assert {a["data-edge"] for a, _ in page.having("line", "mark")} == _marked(puzzle, board)
    assert len(page.having("line", "mark")) == len(_marked(puzzle, board))
    assert [a["data-cell"] for a, _ in page.having("g", "hint")] == [puzzle.cell_label(h.cell) for h in puzzle.hints]
    numbers = [t for _, t in page.having("text", "num")]
    assert numbers == [str(int(p) + 1) for p in board.piece if p >= 0]


@given(st.integers(2, 7), st.integers(2, 7), st.integers(0, 3), st.integers(1, 6), st.integers(0, 10**6),
       st.integers(0, 4), st.booleans())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_page_shows_every_cell_its_piece_and_every_unmatched_edge(w, h, f, i, seed, empties, hinted):
    p, planted = emc.generate(w, h, f, i, seed=seed)
    if hinted:
        cell = StableRng(seed).below(p.n_cells)
        p = Puzzle(w, h, p.pieces, [Hint(cell, int(planted.piece[cell]), int(planted.rotation[cell]))], p.name)
    b = _scrambled(p, seed, empties)
    _check_page(p, b, board_page(p, b))


def test_the_page_is_self_contained_and_the_same_every_time(tmp_path):
    p = emc.load("eternity2")
    b = _scrambled(p, 3, 2)
    a = render(p, b, tmp_path / "a.html", numbers=True).read_bytes()
    assert render(p, b, tmp_path / "b.html", numbers=True).read_bytes() == a
    text = a.decode()
    _check_page(p, b, text)
    page = _Elements(text)
    # nothing to load: no source, stylesheet or import, no address but the SVG namespace and the
    # link to the viewer, and a policy that would block any load the page tried
    assert not [a for _, a, _ in page.elements if "src" in a]
    assert not [g for g, _, _ in page.elements if g in ("link", "iframe", "img", "object", "embed")]
    assert "@import" not in text and text.count("url(") == text.count("url(#hatch)")
    url = format_board_url(b, p)
    addresses = re.findall(r"[a-z]+://[^\s\"'<>]*", text)
    assert sorted(set(addresses)) == sorted({"http://www.w3.org/2000/svg", url.replace("&", "&amp;")}), addresses
    csp = [a["content"] for _, a, _ in page.elements if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0].startswith("default-src 'none';")
    (edges,) = ["".join(t) for g, a, t in page.elements if g == "textarea" and a.get("id") == "edges"]
    assert edges == format_board(b, p, "edges").strip()
    (link,) = [a["href"] for g, a, _ in page.elements if g == "a" and a.get("id") == "viewer-link"]
    assert link == url
    assert 'id="show-numbers" checked' in text and 'class="board numbers"' in text


def test_a_puzzle_with_colours_past_z_gets_a_page_without_board_edges(tmp_path):
    p = emc.load("set2-20x20")
    b = Board(20, 20, np.arange(400), np.zeros(400, dtype=np.int64))
    text = render(p, b, tmp_path / "x.html").read_text()
    assert 'id="copy-edges"' not in text and "no board_edges string" in text
    _check_page(p, b, text)


def test_the_commands_draw_pages(cli, tmp_path):
    out, page = tmp_path / "b.json", tmp_path / "b.html"
    r = cli("solve", "set2-3x3", "-b", "backtrack", "-o", out, "--render", page)
    assert r.code == 0, r
    p = emc.load("set2-3x3")
    _check_page(p, emc.read_board(out, p), page.read_text())
    r = cli("render", "set2-3x3", out, "-o", tmp_path / "c.html", "--numbers")
    assert r.code == 0 and (tmp_path / "c.html").read_text() == board_page(p, emc.read_board(out, p), numbers=True)
    r = cli("solve", "set2-3x3", "-b", "backtrack", "-o", tmp_path / "b.html")
    assert r.code == 2 and "a board file is emc JSON or board_edges" in r.err, r


# ------------------------------------------------------------------ in a real browser
@pytest.fixture(scope="module")
def browser():
    from chromium import Chromium, find_chromium

    exe = find_chromium()
    if exe is None:
        pytest.skip("chromium is not installed (scripts/setup.sh installs Debian's: apt-get install chromium)")
    b = Chromium(exe, width=1000, height=900)
    try:
        yield b
    finally:
        b.close()


def _centre(browser, selector: str) -> tuple[float, float]:
    return tuple(browser.evaluate(
        f"(function () {{ var r = document.querySelector({selector!r}).getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()"))


def _eternity2_page(tmp_path):
    """Eternity II scrambled, two cells empty, the hint piece on its cell as the hint says."""
    p = emc.load("eternity2")
    b = _scrambled(p, 11, 0)
    h = p.hints[0]
    b.place(int(np.flatnonzero(b.piece == h.piece)[0]), int(b.piece[h.cell]), 0)
    b.place(h.cell, h.piece, h.rotation)
    b.clear([0, 200])
    path = render(p, b, tmp_path / "e2.html")
    return p, b, path


def test_the_page_loads_in_chromium_without_errors_and_shows_the_board(browser, tmp_path):
    from PIL import Image

    p, b, path = _eternity2_page(tmp_path)
    browser.open(path.as_uri())
    assert browser.problems() == []
    assert browser.requests() == [path.as_uri()]  # the page asked for nothing more

    # the drawing, as the browser built it: one cell per board cell, with its piece
    pieces = browser.evaluate("Array.from(document.querySelectorAll('#board .cell')).map(c => +c.dataset.piece)")
    assert pieces == [int(x) + 1 for x in b.piece]
    edges = browser.evaluate("Array.from(document.querySelectorAll('#board .mark')).map(m => m.dataset.edge)")
    assert sorted(edges) == sorted(_marked(p, b))
    assert browser.evaluate("document.querySelectorAll('#board .hint').length") == 1

    # the screenshot shows the board: every colour on it, the red bars, the white page
    shot = np.asarray(Image.open(io.BytesIO(browser.screenshot())).convert("RGB"))
    (tmp_path / "e2.png").write_bytes(browser.screenshot())  # kept with the test's files, to look at
    seen = {tuple(int(v) for v in px) for px in shot.reshape(-1, 3)}
    used = {int(v) for v in b.shown(p)[b.piece >= 0].ravel()}
    want = {c: tuple(int(colour_hex(c)[i:i + 2], 16) for i in (1, 3, 5)) for c in used}
    assert {c for c, rgb in want.items() if rgb not in seen} == set()
    assert (255, 0, 0) in seen
    board_box = browser.evaluate("(function () { var r = document.getElementById('board').getBoundingClientRect();"
                                 " return [r.x, r.y, r.width, r.height]; })()")
    x, y, w, h = (int(round(v)) for v in board_box)
    inside = shot[y + 2:y + h - 2, x + 2:x + w - 2].reshape(-1, 3)
    grey = np.array(want[0])
    assert (np.abs(inside - grey).sum(axis=1) == 0).mean() > 0.02  # border grey on the frame pieces
    assert len({tuple(v) for v in inside}) > 23  # not blank: the colours and their edges


def test_pointing_at_a_cell_tells_its_piece_turn_colours_and_hint(browser, tmp_path):
    p, b, path = _eternity2_page(tmp_path)
    browser.open(path.as_uri())
    shown = b.shown(p)
    hint = p.hints[0]
    for cell in (17, hint.cell, 200):
        label = p.cell_label(cell)
        browser.mouse("mouseMoved", *_centre(browser, f"#{label}"))
        assert browser.evaluate("document.getElementById('tip').hidden") is False
        tip = browser.evaluate("document.getElementById('tip').innerText")
        r, c = divmod(cell, 16)
        assert tip.startswith(f"{label} · row {r + 1}, column {c + 1}"), tip
        if b.piece[cell] < 0:
            assert "empty" in tip
        else:
            k = int(b.rotation[cell])
            assert f"piece {int(b.piece[cell]) + 1}, turned {k} quarter turn" in tip, tip
            lines = tip.splitlines()
            for s, side in enumerate(("top", "right", "bottom", "left")):
                colour = int(shown[cell, s])
                assert any(ln.startswith(side) and ln.endswith(f"{chr(97 + colour)} (colour {colour})") for ln in lines), tip
        if cell == hint.cell:
            assert f"hint: piece {hint.piece + 1} turned {hint.rotation} — kept" in tip, tip
    browser.mouse("mouseMoved", 990, 890)  # off the board: the tip goes away
    assert browser.evaluate("document.getElementById('tip').hidden") is True
    assert browser.problems() == []


def test_the_switches_and_the_copy_button_work(browser, tmp_path):
    p, b, path = _eternity2_page(tmp_path)
    browser.open(path.as_uri())
    shown_numbers = "getComputedStyle(document.querySelector('#board .num')).display"
    shown_marks = "getComputedStyle(document.querySelector('#board .marks')).display"
    assert browser.evaluate(shown_numbers) == "none" and browser.evaluate(shown_marks) != "none"
    browser.click(*_centre(browser, "#show-numbers"))
    assert browser.evaluate(shown_numbers) != "none"
    browser.click(*_centre(browser, "#show-numbers"))
    assert browser.evaluate(shown_numbers) == "none"
    browser.click(*_centre(browser, "#show-marks"))
    assert browser.evaluate(shown_marks) == "none"

    browser.send("Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
                 browser=True)
    browser.evaluate("navigator.clipboard.writeText('nothing yet')", gesture=True)
    browser.click(*_centre(browser, "#copy-edges"))
    status = browser.evaluate("new Promise(function (done) { (function wait() {"
                              " var s = document.getElementById('copy-status').textContent;"
                              " if (s) { done(s); } else { setTimeout(wait, 20); } })(); })")
    edges = format_board(b, p, "edges").strip()
    assert status == f"copied {len(edges)} letters"
    assert browser.evaluate("navigator.clipboard.readText()", gesture=True) == edges
    assert browser.problems() == []


def test_numbers_asked_for_are_shown_when_the_page_opens(browser, tmp_path):
    p, planted = emc.generate(6, 5, 2, 4, seed=11)
    path = render(p, planted, tmp_path / "g.html", numbers=True)
    browser.open(path.as_uri())
    assert browser.problems() == []
    texts = browser.evaluate("Array.from(document.querySelectorAll('#board .num'))"
                             ".filter(t => getComputedStyle(t).display !== 'none').map(t => t.textContent)")
    assert texts == [str(int(x) + 1) for x in planted.piece]
    assert browser.evaluate("document.querySelectorAll('#board .mark').length") == 0  # a solution: no red
