"""Links to the community viewer (e2.bucas.name): written, read back, refused when wrong."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import emc
from emc.errors import InputError
from emc.formats import (
    format_board,
    format_board_url,
    parse_board,
    parse_board_url,
    puzzle_motif_order,
    read_board,
    url_parameters,
)
from emc.model import Board, Hint, Puzzle
from emc.rng import StableRng


def _scrambled(puzzle: Puzzle, seed: int, empties: int) -> Board:
    """Any placement of the pieces (not a solution): a random piece on each cell, turned at
    random, some cells left empty."""
    rng = StableRng(seed)
    order = list(range(puzzle.n_pieces))
    for i in range(len(order) - 1, 0, -1):  # Fisher-Yates with the project's own generator
        j = rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    b = Board(puzzle.width, puzzle.height, np.array(order), np.array([rng.below(4) for _ in order]))
    b.clear([rng.below(puzzle.n_cells) for _ in range(empties)])
    return b


def _same_board(a: Board, b: Board, puzzle: Puzzle) -> bool:
    """The same piece on every cell, showing the same colours (a piece that looks the same turned
    half-way may come back turned the other way: the link cannot tell, and neither can a player)."""
    return np.array_equal(a.piece, b.piece) and np.array_equal(a.shown(puzzle), b.shown(puzzle))


@given(st.integers(2, 7), st.integers(2, 7), st.integers(0, 3), st.integers(1, 6), st.integers(0, 10**6),
       st.integers(0, 4), st.booleans(), st.booleans())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_link_reads_back_as_the_board_it_was_written_from(w, h, f, i, seed, empties, scrambled, hinted):
    p, planted = emc.generate(w, h, f, i, seed=seed)
    if hinted:  # a hint taken from the planted solution: the link must keep its cell and turn
        cell = StableRng(seed + 1).below(p.n_cells)
        p = Puzzle(w, h, p.pieces, [Hint(cell, int(planted.piece[cell]), int(planted.rotation[cell]))], p.name)
    b = _scrambled(p, seed, empties) if scrambled else planted.copy()
    if not scrambled:
        b.clear([StableRng(seed + 2).below(p.n_cells) for _ in range(empties)])

    url = format_board_url(b, p)
    params = url_parameters(url)
    assert url.startswith("https://e2.bucas.name/#puzzle=")
    assert (params["board_w"], params["board_h"]) == (str(w), str(h))
    assert params["board_edges"] == format_board(b, p, "edges").strip()
    assert len(params["board_pieces"]) == 3 * p.n_cells
    back = parse_board_url(url, p)
    assert _same_board(back, b, p)
    if hinted and b.piece[p.hints[0].cell] == p.hints[0].piece:
        assert back.rotation[p.hints[0].cell] == p.hints[0].rotation
    assert format_board_url(back, p) == url  # and the board's link is the link itself

    # without board_pieces, equal pieces may trade places, but the board shows the same
    bare = format_board_url(b, p, pieces=False)
    assert "board_pieces" not in bare and "motifs_order" not in bare
    assert np.array_equal(parse_board_url(bare, p).shown(p), b.shown(p))


def test_the_shipped_eternity2_round_trips_and_names_its_motif_order():
    p = emc.load("eternity2")
    assert puzzle_motif_order(p) == "jblackwood"
    for seed in range(3):
        b = _scrambled(p, seed, 5)
        h = p.hints[0]
        b.piece[b.piece == h.piece] = -1  # the hint piece only on its own cell
        b.place(h.cell, h.piece, h.rotation)
        url = format_board_url(b, p)
        assert url.endswith("&motifs_order=jblackwood")
        assert _same_board(parse_board_url(url, p), b, p)
        assert parse_board_url(url, p) == b  # Eternity II's pieces all look different turned


def _one_cell_link(words: dict[int, str], order: str | None) -> str:
    edges = "".join(words.get(cell, "aaaa") for cell in range(256))
    return "https://e2.bucas.name/#board_w=16&board_h=16&board_edges=" + edges + (
        f"&motifs_order={order}" if order is not None else "")


@pytest.mark.parametrize("order,word", [(None, "ijjm"), ("jef", "vddo"), ("jblackwood", "sggl"), ("marie", "sggl")])
def test_links_in_each_motif_order_put_the_centre_clue_on_its_cell(order, word):
    """The viewer checks the centre clue of Eternity II by its letters on cell 136 (r9c8): 'ijjm'
    in its own order, 'vddo' in Jef's and 'sggl' in Blackwood's. Read in each order, those
    letters are emc's hint piece, turned as the hint says."""
    p = emc.load("eternity2")
    b = parse_board_url(_one_cell_link({135: word}, order), p)
    h = p.hints[0]
    assert (b.piece[h.cell], b.rotation[h.cell]) == (h.piece, h.rotation)
    assert (b.piece >= 0).sum() == 1


def test_the_first_pieces_of_eternity2_in_the_viewers_order_are_found():
    """The viewer lists Eternity II's pieces, each at its smallest turn, sorted: in its own
    letters they start 'aabd', 'aabe', 'aacd', 'aadc', 'abgb'. Each is one of emc's pieces."""
    p = emc.load("eternity2")
    words = {0: "aabd", 1: "aabe", 2: "aacd", 3: "aadc", 20: "abgb"}
    b = parse_board_url(_one_cell_link(words, None), p)
    assert len({int(b.piece[c]) for c in words}) == 5 and (b.piece >= 0).sum() == 5


def test_a_file_holding_a_link_reads_as_a_board(tmp_path):
    p, b = emc.generate(4, 3, 2, 3, seed=4)
    path = tmp_path / "link.txt"
    path.write_text(format_board(b, p, "url"))
    assert read_board(path, p) == b
    assert parse_board(format_board_url(b, p), p) == b


def test_query_and_hash_forms_and_escapes_read_alike():
    p, b = emc.generate(3, 3, 1, 2, seed=7)
    url = format_board_url(b, p)
    params = url.split("#", 1)[1]
    for form in (url, "https://e2.bucas.name/?" + params, params, "  " + url + "\n",
                 url.replace("board_w=", "board%5Fw=")):
        assert parse_board_url(form, p) == b, form


def test_a_puzzle_whose_colours_pass_z_has_no_link():
    p = emc.load("set2-20x20")
    b = Board(20, 20, np.arange(400), np.zeros(400, dtype=np.int64))
    with pytest.raises(InputError, match="'z'"):
        format_board_url(b, p)


def test_more_than_999_pieces_leave_board_pieces_out():
    p, b = emc.generate(32, 32, 2, 6, seed=1)
    url = format_board_url(b, p)
    assert "board_pieces" not in url
    assert np.array_equal(parse_board_url(url, p).shown(p), b.shown(p))


# ------------------------------------------------------------------ bad links
def _link(p, b, **change):
    params = url_parameters(format_board_url(b, p))
    params.update(change)
    return "https://e2.bucas.name/#" + "&".join(f"{k}={v}" for k, v in params.items() if v is not None)


@pytest.fixture(scope="module")
def small():
    return emc.generate(4, 4, 2, 3, seed=3)


BAD_LINKS = [
    (dict(board_edges=None), "the link has no board_edges"),
    (dict(board_w=None), "the link has no board_w"),
    (dict(board_w="x"), "board_w: 'x' is not a whole number"),
    (dict(board_w="5"), "the link shows a 5x4 board and puzzle 'gen-4x4-f2-i3-s3' is 4x4"),
    (dict(board_edges="abc"), "board_edges holds 3 letters; a 4x4 board needs 64"),
    (dict(board_edges="ab1" + "a" * 61), "board_edges: '1' (character 3) is not a letter a-z"),
    (dict(board_pieces="001"), "board_pieces holds 3 digits; a 4x4 board needs 48"),
    (dict(board_pieces="x" * 48), "board_pieces holds 48 characters"),
    (dict(board_pieces="017" + "0" * 45), "r1c1: board_pieces names piece 17; puzzle 'gen-4x4-f2-i3-s3' has 16"),
    (dict(board_pieces="000" * 16), "r1c1: board_pieces says empty (000) and board_edges shows"),
    (dict(motifs_order="zz"), "motifs_order 'zz' is not an order the viewer knows"),
]


@pytest.mark.parametrize("change,reason", BAD_LINKS, ids=[r.split(":")[0][:30] for _, r in BAD_LINKS])
def test_a_bad_link_is_one_line_naming_the_reason(small, cli, tmp_path, change, reason):
    p, b = small
    pz = tmp_path / "p.json"
    emc.write_puzzle(p, pz)
    r = cli("convert", _link(p, b, **change), "--puzzle", pz, "--to", "json")
    assert r.code == 2 and r.out == "", r
    assert r.err.startswith("emc: error: viewer link: ") and reason in r.err, r.err
    assert len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err


def test_a_link_for_another_board_of_the_same_size_says_so(small, cli, tmp_path):
    p, b = small
    r = cli("convert", format_board_url(b, p), "--puzzle", "set2-4x4", "--to", "json")
    assert r.code == 2 and "board_pieces and board_edges disagree, or the link is another puzzle's" in r.err, r


def test_a_piece_named_twice_in_board_pieces_is_refused(small):
    p, b = small
    params = url_parameters(format_board_url(b, p))
    numbers = params["board_pieces"]
    twice = numbers[:3] + numbers[:3] + numbers[6:]  # r1c2 names r1c1's piece: its letters disagree
    with pytest.raises(InputError, match="r1c2: piece"):
        parse_board_url(_link(p, b, board_pieces=twice), p)
    same = Board(4, 4, b.piece, b.rotation)
    same.place(1, int(b.piece[0]), int(b.rotation[0]))  # the letters say the same piece again
    with pytest.raises(InputError, match="used twice"):
        parse_board_url(format_board_url(same, p), p)
    assert parse_board_url(format_board_url(same, p), p, repeats=True) == same


def test_a_link_is_not_a_puzzle(small, cli):
    p, b = small
    r = cli("convert", format_board_url(b, p), "--to", "json")
    assert r.code == 2 and "this is a viewer link to a board, not a puzzle" in r.err, r


# ------------------------------------------------------------------ the commands
def test_convert_writes_and_reads_links(small, cli, tmp_path):
    p, b = small
    pz, bd, back = tmp_path / "p.json", tmp_path / "b.json", tmp_path / "back.json"
    emc.write_puzzle(p, pz)
    emc.write_board(b, p, bd)
    r = cli("convert", bd, "--puzzle", pz, "--to", "url")
    assert r.code == 0 and r.out == format_board_url(b, p) + "\n", r
    r = cli("convert", r.out.strip(), "--puzzle", pz, "-o", back, "--to", "json")
    assert r.code == 0, r
    assert read_board(back, p) == b and back.read_text() == bd.read_text()
    r = cli("convert", bd, "--puzzle", pz, "--to", "url", "-o", tmp_path / "link.txt")
    assert r.code == 0 and (tmp_path / "link.txt").read_text() == format_board_url(b, p) + "\n"
    r = cli("convert", bd, "--puzzle", pz, "--to", "edges", "--url")  # the string, then the link
    assert r.code == 0 and r.out.splitlines() == [format_board(b, p, "edges").strip(), format_board_url(b, p)]
    r = cli("convert", bd, "--puzzle", pz, "--to", "url", "-o", tmp_path / "x.edges")
    assert r.code == 2 and "the file name says edges" in r.err
    r = cli("render", pz, format_board_url(b, p))  # every command that reads a board reads links
    assert r.code == 0, r


def _printed_link(out: str) -> str:
    lines = [ln for ln in out.splitlines() if ln.startswith("https://e2.bucas.name/#")]
    assert len(lines) == 1, out
    return lines[0]


def test_commands_that_write_a_board_print_its_link(cli, tmp_path):
    pz, planted = tmp_path / "p.json", tmp_path / "planted.json"
    r = cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 3, "--seed", 5, "-o", pz,
            "--solution", planted, "--url")
    assert r.code == 0, r
    p = emc.read_puzzle(pz)
    assert parse_board_url(_printed_link(r.out), p) == read_board(planted, p)
    runs = {
        "solve": ("solve", pz, "-b", "backtrack"),
        "construct": ("construct", pz, "--seed", 1),
        "improve": ("improve", pz, planted, "--time-limit", 5),
        "matheuristic": ("matheuristic", pz, "--time-limit", 5),
    }
    for name, args in runs.items():
        out = tmp_path / f"{name}.json"
        r = cli(*args, "-o", out, "--url")
        assert r.code == 0, (name, r)
        assert _same_board(parse_board_url(_printed_link(r.out), p), read_board(out, p), p), name
    r = cli("solve", pz, "-b", "backtrack", "--url", "--json")  # the report carries it
    d = json.loads(r.out)
    assert parse_board_url(d["url"], p) == parse_board(json.dumps(d["board"]), p)


def test_url_is_refused_before_any_work_for_colours_past_z(cli, tmp_path):
    for args in (("solve", "set2-20x20"), ("construct", "set2-20x20"),
                 ("generate", 12, 12, "--frame-colours", 2, "--inner-colours", 30, "-o", tmp_path / "g.txt")):
        r = cli(*args, "--url")
        assert r.code == 2 and "--url: the viewer's link writes colours 0 to 25" in r.err, (args, r)
    assert not (tmp_path / "g.txt").exists()
