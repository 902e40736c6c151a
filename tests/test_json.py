"""Every command's --json: the output parses, holds exactly the keys docs/reference/json.md
documents for it, with the documented types, and its values are those of the run (checked
against emc's own readers and scorers, not against the command's other output)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import emc
from emc.formats import format_board_url, parse_board, read_board

DOC = Path(__file__).resolve().parents[1] / "docs" / "reference" / "json.md"

TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "list": list, "object": dict,
         "null": type(None)}


def _schemas() -> dict[str, dict[str, tuple[tuple, bool]]]:
    """command -> key -> (allowed Python types, optional) from the tables of json.md."""
    out: dict[str, dict] = {}
    commands: list[str] = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            commands = re.findall(r"`emc ([a-z]+)`", line)
            for c in commands:
                out[c] = {}
        elif commands and line.startswith("| `"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            keys = re.findall(r"`([a-z_0-9]+)`", cells[0])
            words = cells[1].split(" or ")
            assert all(w in TYPES for w in words), line
            types = tuple(TYPES[w] for w in words)
            optional = cells[2].startswith("only with")
            for c in commands:
                for k in keys:
                    out[c][k] = (types, optional)
    return out


SCHEMAS = _schemas()


def _check(command: str, doc) -> None:
    """``doc`` (one object) has every documented key of ``command`` but the optional ones, no
    other, and each of the documented type."""
    schema = SCHEMAS[command]
    assert isinstance(doc, dict), (command, doc)
    missing = {k for k, (_, optional) in schema.items() if not optional} - set(doc)
    extra = set(doc) - set(schema)
    assert not missing and not extra, (command, "missing", missing, "undocumented", extra)
    for key, value in doc.items():
        types = schema[key][0]
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        assert ok, (command, key, value)


def planted_file(tmp_path, board, puzzle) -> Path:
    path = tmp_path / "planted.json"
    emc.write_board(board, puzzle, path)
    return path


def _json(r, code: int = 0):
    assert r.code == code, r
    return json.loads(r.out)


def test_the_check_fails_on_a_missing_an_undocumented_or_a_mistyped_key():
    good = {"kind": "board", "input": "b.json", "puzzle": "p", "to": "edges", "files": [], "text": "ab\n"}
    _check("convert", good)
    _check("convert", {**good, "url": "https://e2.bucas.name/#..."})  # optional
    for bad in ({k: v for k, v in good.items() if k != "text"}, {**good, "extra": 1}, {**good, "files": "b.json"},
                {**good, "text": True}):
        with pytest.raises(AssertionError):
            _check("convert", bad)


def test_every_command_with_json_is_documented():
    """Each command whose parser has --json has its table, and each table's command has --json."""
    import argparse

    from emc.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    with_json = {name for name, p in sub.choices.items() if any(a.dest == "json" for a in p._actions)}
    assert with_json == set(SCHEMAS)
    for name in ("matheuristic", "construct", "improve", "generate", "convert", "verify", "render"):
        assert name in with_json, name


def test_the_listings_and_descriptions_hold_their_documented_keys(cli):
    _check("info", _json(cli("info", "clue1", "--json")))
    for command in ("instances", "backends", "methods"):
        rows = _json(cli(command, "--json"))
        assert isinstance(rows, list) and rows, command
        for row in rows:
            _check(command, row)
    _check("methods", _json(cli("methods", "matheuristic", "--json")))


def test_solve_count_export_decode_verify_and_score(cli, tmp_path):
    from pysat.formula import CNF
    from pysat.solvers import Solver

    p = emc.load("set2-4x4")
    d = _json(cli("solve", "set2-4x4", "-b", "sat", "--json", "--url"))
    _check("solve", d)
    board = parse_board(json.dumps(d["board"]), p)
    assert d["board_score"] == emc.score(p, board) == p.max_score and d["url"] == format_board_url(board, p)
    d = _json(cli("count", "set2-4x4", "-b", "sat", "--json"))
    _check("count", d)
    assert d["count"] == 12 and d["complete"] is True and d["stopped_by"] is None
    cnf = tmp_path / "4.cnf"
    d = _json(cli("export", "set2-4x4", "-f", "cnf", "-o", cnf, "--json"))
    _check("export", d)
    assert d["files"] == [str(cnf)] and d["sizes"]["variables"] == CNF(from_file=str(cnf)).nv
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(cnf)).clauses) as s:
        assert s.solve()
        (tmp_path / "4.out").write_text("s SATISFIABLE\nv " + " ".join(map(str, s.get_model())) + " 0\n")
    out = tmp_path / "d.json"
    d = _json(cli("decode", "set2-4x4", tmp_path / "4.out", "-f", "cnf", "--model", cnf, "-o", out, "--json", "--url"))
    _check("decode", d)
    decoded = read_board(out, p)
    assert d["valid"] and d["score"] == emc.score(p, decoded) and d["url"] == format_board_url(decoded, p)
    for command in ("verify", "score"):
        d = _json(cli(command, "set2-4x4", out, "--json"))
        _check(command, d)
        assert d["solved"] and d["score"] == emc.score(p, decoded)


def test_generate_json_names_its_files_and_the_planted_score(cli, tmp_path):
    out, sol = tmp_path / "g.txt", tmp_path / "g.json"
    d = _json(cli("generate", 6, 4, "--frame-colours", 2, "--inner-colours", 3, "--seed", 5, "-o", out,
                  "--solution", sol, "--json", "--url"))
    _check("generate", d)
    _check("info", d["puzzle"])
    puzzle = emc.resolve(str(out))
    planted = read_board(sol, puzzle)
    assert d["files"] == [str(out), str(sol)] and d["solution"] == str(sol) and d["format"] == "wh"
    assert d["planted_score"] == emc.score(puzzle, planted) == d["max_score"] == puzzle.max_score
    assert d["puzzle"]["sha256"] == puzzle.sha256 and (d["puzzle"]["width"], d["puzzle"]["height"]) == (6, 4)
    generated, _ = emc.generate(6, 4, 2, 3, seed=5)  # named as generated: the 'W H' file holds no name
    assert d["url"] == format_board_url(planted, generated) and d["puzzle"]["name"] == generated.name
    d = _json(cli("generate", 6, 4, "--frame-colours", 2, "--inner-colours", 3, "-o", tmp_path / "h.json", "--json"))
    _check("generate", d)
    assert d["files"] == [str(tmp_path / "h.json")] and d["solution"] is None and d["format"] == "json"


def test_convert_json_carries_the_text_or_names_the_file(cli, tmp_path):
    p = emc.load("set2-5x5")
    board = tmp_path / "b.json"
    assert cli("solve", "set2-5x5", "-b", "sat", "-o", board).code == 0
    printed = cli("convert", board, "--puzzle", "set2-5x5", "--to", "edges")
    d = _json(cli("convert", board, "--puzzle", "set2-5x5", "--to", "edges", "--json", "--url"))
    _check("convert", d)
    assert (d["kind"], d["to"], d["files"], d["input"]) == ("board", "edges", [], str(board))
    assert d["text"] == printed.out and d["url"] == format_board_url(read_board(board, p), p)
    out = tmp_path / "p.json"
    d = _json(cli("convert", "set2-5x5", "--to", "json", "-o", out, "--json"))
    _check("convert", d)
    assert (d["kind"], d["files"], d["text"], d["puzzle"]) == ("puzzle", [str(out)], None, "set2-5x5")
    assert emc.resolve(str(out)).sha256 == p.sha256


def test_render_json_summarises_what_the_picture_shows(cli, tmp_path):
    """The score and red bars of a damaged board, and a hint cell it breaks, as the picture marks them."""
    from emc.drawing import mismatch_bars

    g, planted = emc.generate(6, 6, 2, 4, seed=8)
    a, c = g.cell_of(2, 2), g.cell_of(3, 4)
    p = g.with_hints([emc.Hint(a, int(planted.piece[a]), int(planted.rotation[a]))], name="hinted")
    pfile = tmp_path / "p.json"
    emc.write_puzzle(p, pfile)
    b = planted.copy()
    b.piece[a], b.piece[c] = b.piece[c], b.piece[a]  # two inner pieces swapped: the hint's piece leaves its cell
    bad = tmp_path / "bad.json"
    emc.write_board(b, p, bad)
    svg = tmp_path / "b.svg"
    d = _json(cli("render", pfile, bad, "-o", svg, "--json"))
    _check("render", d)
    assert svg.is_file() and d["files"] == [str(svg)] and d["format"] == "svg"
    assert d["score"] == emc.score(p, b) < p.max_score and d["mismatches"] == p.max_score - d["score"]
    assert d["marked_edges"] == [words for _, _, words in mismatch_bars(p, b)] and d["marked_edges"]
    assert d["hints"] == [{"cell": "r3c3", "piece": int(planted.piece[a]) + 1, "rotation": int(planted.rotation[a]),
                           "kept": False}]
    d = _json(cli("render", pfile, planted_file(tmp_path, planted, p), "--json"))
    assert d["hints"][0]["kept"] is True and d["marked_edges"] == [] and d["score"] == p.max_score
    d = _json(cli("render", pfile, bad, "--json", "--no-marks"))  # no picture: the summary alone
    _check("render", d)
    assert d["files"] == [] and d["format"] is None and d["marked_edges"] == []
    d = _json(cli("render", pfile, "--json"))  # the pieces in file order: no board to score
    _check("render", d)
    assert d["board"] is None and d["score"] is None and d["hints"] == []
    r = cli("render", pfile, bad, "--json", "--terminal")
    assert r.code == 2 and r.out == "" and "--terminal draws on the terminal" in r.err


@pytest.mark.parametrize("command", ["construct", "matheuristic", "improve"])
def test_heuristic_json_is_the_result_document(cli, tmp_path, command):
    """--json prints what --result writes (and the link with --url); the board in it scores what
    it says, as emc scores the -o board."""
    p = emc.load("set2-5x5")
    start = tmp_path / "start.json"
    assert cli("construct", "set2-5x5", "--start", "random", "-o", start).code == 0
    args = {"construct": ("construct", "set2-5x5", "-b", "highs"),
            "matheuristic": ("matheuristic", "set2-5x5", "-b", "highs", "--window", "2x3", "--ro-n", 1, "--ta-n", 50,
                             "--patience", 1),
            "improve": ("improve", "set2-5x5", start, "--neighbourhoods", "TA,TSR", "--ta-n", 50, "--patience", 1)}
    res, out = tmp_path / "r.json", tmp_path / "b.json"
    r = cli(*args[command], "--seed", 3, "--result", res, "-o", out, "--json", "--url")
    d = _json(r)
    _check(command, d)
    url = d.pop("url")
    assert d == json.loads(res.read_text())
    board = read_board(out, p)
    assert d["command"] == command and d["final"]["score"] == emc.score(p, board) and url == format_board_url(board, p)
    r = cli(*args[command], "--json", "--show")
    assert r.code == 2 and r.out == "" and "--show draws on the terminal" in r.err


def test_optimise_json_is_the_run_record(cli, tmp_path):
    p = emc.load("set2-4x4")
    res, out = tmp_path / "r.json", tmp_path / "b.json"
    d = _json(cli("optimise", "set2-4x4", "-t", 2, "-O", "neighbourhoods=TA,TSR", "--result", res, "-o", out,
                  "--json", "--url"))
    _check("optimise", d)
    board = read_board(out, p)
    assert d.pop("url") == format_board_url(board, p) and d == json.loads(res.read_text())
    assert d["final"]["score"] == emc.score(p, board)


def test_hardness_json_holds_the_documented_sweep(cli):
    d = _json(cli("hardness", 4, 4, "--model", "uniform", "--colours", "3-4", "--instances", 1, "--backend",
                  "backtrack", "--json"))
    _check("hardness", d)
    assert d["width"] == 4 and d["height"] == 4 and len(d["rows"]) == 2 and len(d["points"]) == 2
