"""`emc export` and `emc suite`: every registered format, deterministic bytes, manifests."""

from __future__ import annotations

import csv
import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

import emc
from emc.encoders import FORMATS, formulation_of_format, get_encoder

FMTS = sorted(FORMATS)


def _digest(paths):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@pytest.mark.parametrize("fmt", FMTS)
def test_export_writes_and_reports_sizes(tmp_path, cli, fmt):
    out = tmp_path / f"a.{fmt}"
    res = cli("export", "set2-3x3", "--format", fmt, "-o", out, "--json")
    assert res.code == 0, res
    d = json.loads(res.out)
    assert d["format"] == fmt and d["free_cells"] == 9
    assert d["sizes"] and all(v >= 0 for v in d["sizes"].values() if isinstance(v, int))
    assert out.exists() and out.stat().st_size > 0
    # same input, same bytes
    out2 = tmp_path / "again" / f"a.{fmt}"
    assert cli("export", "set2-3x3", "--format", fmt, "-o", out2).code == 0
    files1 = sorted(p for p in tmp_path.iterdir() if p.is_file())
    files2 = sorted(p for p in (tmp_path / "again").iterdir() if p.is_file())
    assert _digest(files1) == _digest(files2)


@pytest.mark.parametrize("fmt", FMTS)
def test_export_of_a_subproblem(tmp_path, cli, fmt):
    p, planted = emc.generate(6, 5, 2, 4, seed=2)
    pz, bd = tmp_path / "p.json", tmp_path / "b.json"
    emc.write_puzzle(p, pz)
    emc.write_board(planted, p, bd)
    res = cli("export", pz, "--format", fmt, "--fixed", bd, "--free", "r2c2-r3c4", "-o", tmp_path / f"w.{fmt}", "--json")
    assert res.code == 0, res
    assert json.loads(res.out)["free_cells"] == 6 and json.loads(res.out)["hints_not_kept"] == []


def test_export_says_which_hints_a_region_frees(tmp_path, cli):
    # Eternity II's centre hint is at r9c8: a region over it lets any piece go there.
    out = tmp_path / "centre.cnf"
    res = cli("export", "eternity2", "--format", "cnf", "--free", "r8c7-r10c9", "-o", out)
    assert res.code == 0 and "hints not kept" in res.out and "r9c8" in res.out
    res = cli("export", "eternity2", "--format", "cnf", "--free", "r8c7-r10c9", "-o", out, "--json")
    assert json.loads(res.out)["hints_not_kept"] == ["r9c8"]
    assert "c hints not kept (their cells are free): r9c8" in out.read_text()  # the file says it too
    for fmt, name, words in (("clq", "c.clq", "c hints_not_kept r9c8"),
                             ("mzn", "c.mzn", "hints not kept (their cells are free): r9c8")):
        assert cli("export", "eternity2", "--format", fmt, "--free", "r8c7-r10c9", "-o", tmp_path / name).code == 0
        head = (tmp_path / ("c.dzn" if fmt == "mzn" else name)).read_text()[:2000]
        assert words in head, (fmt, head)
    res = cli("export", "eternity2", "--format", "cnf", "--free", "r1c1-r2c2", "-o", out)
    assert res.code == 0 and "hints not kept" not in res.out and "hints not kept" not in out.read_text()[:2000]


def test_export_errors_are_one_line(tmp_path, cli):
    res = cli("export", "set2-3x3", "--format", "xls", "-o", tmp_path / "x")
    assert res.code == 2 and "unknown export format" in res.err and res.err.count("\n") == 1
    if FMTS:
        res = cli("export", "set2-3x3", "--format", FMTS[0], "--free", "r9c9", "-o", tmp_path / "x")
        assert res.code == 2 and "outside" in res.err


def test_suite_colour_counts_are_emc_infos(tmp_path, cli):
    """A puzzle generated with no frame colours of its own (F = 0) has its colours on the frame
    and inside alike: the manifest counts them in both, and as shared, as `emc info` does."""
    out = tmp_path / "s"
    assert cli("suite", "-o", out, "--instances", "set2-3x3", "--generate", "4x4:0:3:1", "--formats", "cnf").code == 0
    rows = {r["instance"]: r for r in csv.DictReader((out / "manifest.csv").open())}
    m = {e["instance"]: e for e in json.loads((out / "manifest.json").read_text())["puzzles"]}
    for name, r in rows.items():
        info = json.loads(cli("info", out / m[name]["puzzle"]["path"], "--json").out)
        counts = [len(info[k]) for k in ("frame_colours", "inner_colours", "shared_colours")]
        assert [int(r[k]) for k in ("frame_colours", "inner_colours", "shared_colours")] == counts
        assert [m[name][k] for k in ("frame_colours", "inner_colours", "shared_colours")] == counts
    assert rows["gen-4x4-f0-i3-s1"]["shared_colours"] == rows["gen-4x4-f0-i3-s1"]["inner_colours"] != "0"
    assert rows["set2-3x3"]["shared_colours"] == "0"


def test_suite_into_a_folder_inside_a_file_is_one_line(tmp_path, cli):
    (tmp_path / "plain").write_text("x")
    res = cli("suite", "-o", tmp_path / "plain" / "s", "--instances", "set2-3x3", "--formats", "cnf")
    assert res.code == 2 and res.err.count("\n") == 1 and res.err.strip().endswith("plain is a file, not a folder")


@pytest.mark.skipif(not FMTS, reason="no formats registered")
def test_suite_is_byte_identical_and_its_manifest_is_right(tmp_path, cli):
    fast = [f for f in FMTS if f != "mzn"][:4] or FMTS
    args = ["--instances", "set2-3x3,set2-4x3", "--generate", "4x4:1:3:1-2", "--formats", ",".join(fast)]
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli("suite", "-o", a, *args).code == 0
    assert cli("suite", "-o", b, *args).code == 0
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b
    for rel in files_a:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    m = json.loads((a / "manifest.json").read_text())
    instances = {r["instance"] for r in m["files"]}
    assert instances == {"set2-3x3", "set2-4x3", "gen-4x4-f1-i3-s1", "gen-4x4-f1-i3-s2"}
    # the versions of what writes the bytes: numpy and the writers of these formats only
    from importlib.metadata import version

    writers = {"cnf": "python-sat", "wcnf": "python-sat", "lp": "PuLP", "mps": "PuLP", "cpsat": "ortools"}
    want = {"numpy"} | {writers[f] for f in fast if f in writers}
    assert m["version"] == 3 and m["library_versions"] == {k: version(k) for k in want}, m["library_versions"]
    for row in m["files"]:
        for f in row["files"]:
            assert hashlib.sha256((a / f["path"]).read_bytes()).hexdigest() == f["sha256"]
        cells = row["width"] * row["height"]
        top = (row["width"] - 1) * row["height"] + row["width"] * (row["height"] - 1)  # internal edges
        # the known answer in the file's own terms (each of these puzzles has a perfect board)
        assert row["known"] == {
            "cnf": "satisfiable", "clq": f"satisfiable: maximum clique {cells} (one vertex per free cell)",
            "conflict": f"satisfiable: maximum independent set {cells} (one vertex per free cell)",
            "lp": f"optimum 0 unmatched edges ({top} matched)", "mps": f"optimum 0 unmatched edges ({top} matched)",
            "wcnf": f"optimum cost 0 (no unmatched edge; {top} matched)",
            "wcnf-old": f"optimum cost 0 (no unmatched edge; {top} matched)",
            "cpsat": f"optimum {top} matched edges", "mzn": f"optimum {top} matched edges"}[row["format"]], row
        assert row["goal"] == ("feasibility" if row["format"] in ("cnf", "clq", "conflict") else "optimisation")
        assert row["sizes"]
        formulation, _ = formulation_of_format(row["format"])
        assert row["formulation"] == formulation
    gen_rows = [r for r in m["files"] if r["generator"]]
    assert gen_rows and all(r["generator"]["seed"] in (1, 2) for r in gen_rows)
    # the planted certificate of each generated puzzle is there and verifies
    for seed in (1, 2):
        p = emc.read_puzzle(a / "puzzles" / f"gen-4x4-f1-i3-s{seed}.json")
        sol = emc.read_board(a / "puzzles" / f"gen-4x4-f1-i3-s{seed}.solution.json", p)
        assert emc.verify(p, sol).solved
    # the puzzle files and planted solutions are in the manifest too, hashed
    listed = {e["instance"]: e for e in m["puzzles"]}
    assert set(listed) == instances
    for name, e in listed.items():
        p = emc.read_puzzle(a / e["puzzle"]["path"])
        assert p.sha256 == e["puzzle_sha256"] and e["frame_colours"] == len(p.frame_colours)
        for key in ("puzzle", "solution"):
            if key in e:
                assert hashlib.sha256((a / e[key]["path"]).read_bytes()).hexdigest() == e[key]["sha256"]
        assert ("solution" in e) == name.startswith("gen-")
        rows_of = [r for r in m["files"] if r["instance"] == name]
        assert all(r["puzzle_sha256"] == p.sha256 for r in rows_of)
        if name.startswith("gen-"):
            turned = " (turned so that it keeps the symmetry breaking: the first corner piece on a top corner)"
            assert all(r["known_how"] == f"planted solution in {e['solution']['path']} (emc generate)" + turned
                       for r in rows_of)
            # and it is: the solution file answers the whole-puzzle files, which fix the first corner piece
            first, cells = emc.Subproblem.whole(p).symmetry_cells()
            sol = emc.read_board(a / e["solution"]["path"], p)
            assert emc.verify(p, sol).solved and int(np.flatnonzero(sol.piece == first)[0]) in cells
            assert all(r["puzzle_file"] == e["puzzle"]["path"] and r["solution_file"] == e["solution"]["path"]
                       for r in rows_of)
    rows = list(csv.DictReader((a / "manifest.csv").open()))
    assert len(rows) == len(m["files"])
    assert all(r["puzzle_sha256"] and r["symmetry_breaking"] == "true" and r["inner_colours"] for r in rows)


@pytest.mark.skipif(not FMTS, reason="no formats registered")
def test_suite_gzip_and_patterns(tmp_path, cli):
    fmt = next((f for f in FMTS if f in ("cnf", "clq", "lp")), FMTS[0])
    out = tmp_path / "s"
    res = cli("suite", "-o", out, "--instances", "set2-?x3", "--formats", fmt, "--gzip")
    assert res.code == 0, res
    m = json.loads((out / "manifest.json").read_text())
    assert {r["instance"] for r in m["files"]} == {"set2-3x3", "set2-4x3", "set2-5x3", "set2-6x3", "set2-7x3", "set2-8x3", "set2-9x3"}
    import zlib

    assert m["library_versions"]["zlib"] == zlib.ZLIB_RUNTIME_VERSION  # gzip's bytes depend on it
    if fmt not in ("cpsat", "mzn"):
        import gzip

        for r in m["files"]:
            path = out / r["files"][0]["path"]
            assert path.suffix == ".gz"
            content = gzip.decompress(path.read_bytes())
            assert r["files"][0]["content_sha256"] == hashlib.sha256(content).hexdigest()
    res = cli("suite", "-o", out, "--instances", "nothing-*", "--formats", fmt)
    assert res.code == 2 and "matches no shipped instance" in res.err
    res = cli("suite", "-o", out, "--generate", "4x4:1:3", "--formats", fmt)
    assert res.code == 2 and "WxH:F:I:SEEDS" in res.err


def test_suite_of_regions_keeps_the_planted_board_outside_and_each_file_solves(tmp_path, cli):
    """--free gives one set of files per cell set: the cells outside keep the planted solution,
    so each file is known satisfiable; a SAT solver's answer, decoded with the same arguments,
    is a solved board that agrees with the planted one outside the region."""
    from pysat.solvers import Solver

    out = tmp_path / "s"
    r = cli("suite", "-o", out, "--generate", "6x6:2:4:3-4", "--free", "r2c2-r4c5", "--free", "frame+r3c3-r3c4",
            "--formats", "cnf,lp")
    assert r.code == 0, r
    m = json.loads((out / "manifest.json").read_text())
    assert m["arguments"]["free"] == ["r2c2-r4c5", "frame+r3c3-r3c4"]
    assert len(m["files"]) == 2 * 2 * 2
    for row in m["files"]:
        assert row["free"] in ("r2c2-r4c5", "frame+r3c3-r3c4") and not row["symmetry_breaking"]
        assert row["free_cells"] == (12 if row["free"] == "r2c2-r4c5" else 20 + 2)
        assert row["known"].startswith("satisfiable" if row["format"] == "cnf" else "optimum 0 unmatched edges")
        assert row["known_how"].endswith("the cells outside the free ones keep it")
        path = out / row["files"][0]["path"]
        assert path.name.startswith(f"{row['instance']}.free-{'r2c2-r4c5' if row['free'] == 'r2c2-r4c5' else 'frame_r3c3-r3c4'}.")
        if row["format"] != "cnf":
            continue
        clauses = [[int(x) for x in ln.split()[:-1]] for ln in path.read_text().splitlines()
                   if ln and ln[0] not in "cp"]
        with Solver(name="cadical195", bootstrap_with=clauses) as sat:
            assert sat.solve()
            answer = tmp_path / "answer.txt"
            answer.write_text("v " + " ".join(map(str, sat.get_model())) + " 0\n")
        planted = out / "puzzles" / f"{row['instance']}.solution.json"
        board_out = tmp_path / "b.json"
        d = cli("decode", out / "puzzles" / f"{row['instance']}.json", answer, "-f", "cnf", "--fixed", planted,
                "--free", row["free"], "--model", path, "-o", board_out)
        assert d.code == 0 and "solved" in d.out, d
        p = emc.read_puzzle(out / "puzzles" / f"{row['instance']}.json")
        board, sol = emc.read_board(board_out, p), emc.read_board(planted, p)
        assert emc.verify(p, board).solved
        free = set(int(c) for c in emc.cells.parse_cells(row["free"], p))
        outside = [c for c in range(p.n_cells) if c not in free]
        assert (board.piece[outside] == sol.piece[outside]).all()
        assert (board.rotation[outside] == sol.rotation[outside]).all()
    rows = list(csv.DictReader((out / "manifest.csv").open()))
    assert [(x["free"], x["free_cells"]) for x in rows] == [(f["free"], str(f["free_cells"])) for f in m["files"]]


def test_suite_regions_are_refused_without_a_board_or_outside_a_puzzle(tmp_path, cli):
    r = cli("suite", "-o", tmp_path / "s", "--instances", "set2-4x4", "--free", "frame", "--formats", "cnf")
    assert r.code == 2 and "set2-4x4 has no known board to keep outside the free cells" in r.err
    r = cli("suite", "-o", tmp_path / "s", "--generate", "4x4:2:3:1", "--free", "r2c2-r5c5", "--formats", "cnf")
    assert r.code == 2 and "r5c5 is outside the 4x4 board (puzzle gen-4x4-f2-i3-s1)" in r.err
    r = cli("suite", "-o", tmp_path / "s", "--generate", "4x4:2:3:1", "--free", "rows:1", "--free", "rows:1",
            "--formats", "cnf")
    assert r.code == 2 and "--free 'rows:1' is listed twice" in r.err
    r = cli("suite", "-o", tmp_path / "s", "--generate", "4x4:2:3:1", "--free", "rows:1", "--free", "r1c1-r1c4",
            "--formats", "cnf")
    assert r.code == 2 and "--free 'rows:1' and --free 'r1c1-r1c4' name the same cells of gen-4x4-f2-i3-s1" in r.err
    # a long list of cells gets a short name (the cell set itself is in the manifest)
    many = ",".join(f"r{r}c{c}" for r in (1, 2, 3) for c in (1, 2, 3, 4))
    r = cli("suite", "-o", tmp_path / "t", "--generate", "4x4:2:3:1", "--free", many, "--formats", "cnf")
    assert r.code == 0, r
    row = json.loads((tmp_path / "t" / "manifest.json").read_text())["files"][0]
    assert row["free"] == many and row["files"][0]["path"].startswith("cnf/gen-4x4-f2-i3-s1.free-12parts-")
    assert not (tmp_path / "s").exists()


def test_suite_options_go_to_the_formats_that_take_them(tmp_path, cli):
    out = tmp_path / "s"
    r = cli("suite", "-o", out, "--instances", "set2-4x4", "--formats", "cnf,wcnf,lp", "-O", "redundant=triples",
            "-O", "order=spiral")
    assert r.code == 0, r
    m = json.loads((out / "manifest.json").read_text())
    assert m["arguments"]["options"] == {"redundant": "triples", "order": "spiral"}
    by_format = {row["format"]: row for row in m["files"]}
    assert by_format["cnf"]["options"] == by_format["wcnf"]["options"] == {"redundant": "triples", "order": "spiral"}
    assert by_format["lp"]["options"] == {}
    # the files are those export writes with the same options (their headers record them)
    for fmt in ("cnf", "wcnf"):
        one = tmp_path / f"one.{fmt}"
        assert cli("export", "set2-4x4", "-f", fmt, "-O", "redundant=triples", "-O", "order=spiral", "-o", one).code == 0
        assert (out / by_format[fmt]["files"][0]["path"]).read_bytes() == one.read_bytes()
    plain = tmp_path / "plain.cnf"
    assert cli("export", "set2-4x4", "-f", "cnf", "-o", plain).code == 0
    assert plain.read_bytes() != (out / by_format["cnf"]["files"][0]["path"]).read_bytes()
    rows = {x["format"]: x for x in csv.DictReader((out / "manifest.csv").open())}
    assert rows["cnf"]["options"] == "redundant=triples order=spiral" and rows["lp"]["options"] == ""


def test_suite_options_are_checked_before_any_file(tmp_path, cli):
    out = tmp_path / "s"
    for args, words in ((["--formats", "cnf,clq", "-O", "linking=diff"], "--option linking: none of the formats cnf, clq"),
                        (["--formats", "cnf", "-O", "order=x"], "--option for cnf/onehot: unknown variable order 'x'"),
                        (["--formats", "cnf", "-O", "tiebreak=-2"], "tiebreak must be a seed"),
                        (["--formats", "lp", "--variants", "paper", "-O", "linking=diff"], "the paper variant has its own"),
                        (["--formats", "cpsat", "-O", "balance=3"], "--option balance: true or false, not 3"),
                        (["--formats", "cpsat", "-O", "hint=3"], "only the Python API")):
        r = cli("suite", "-o", out, "--instances", "set2-4x4", *args)
        assert r.code == 2 and words in r.err and r.err.count("\n") == 1, (args, r)
        assert not out.exists()


def test_every_encoder_declares_formats_and_variants():
    for fmt, (formulation, _) in FORMATS.items():
        enc = get_encoder(formulation)
        assert fmt in enc.formats and enc.variants


def test_export_refuses_a_goal_its_format_cannot_ask_and_names_that_promise_another_format(cli, tmp_path):
    """A CNF or a clique graph asks for a perfect board and a WCNF for the most matched edges,
    whatever --goal says: a contrary --goal used to change only the header."""
    r = cli("export", "set2-4x4", "--format", "cnf", "--goal", "optimisation", "-o", tmp_path / "x.cnf")
    assert r.code == 2 and "a cnf file always asks for a perfect board" in r.err and not (tmp_path / "x.cnf").exists()
    r = cli("export", "set2-4x4", "--format", "wcnf", "--goal", "feasibility", "-o", tmp_path / "x.wcnf")
    assert r.code == 2 and "a wcnf file always asks for the most matched edges" in r.err
    for fmt, name in (("conflict", "x.clq"), ("cnf", "x.clq"), ("mzn", "q.dzn"), ("cpsat", "x.json"), ("lp", "x.pb")):
        r = cli("export", "set2-4x4", "--format", fmt, "-o", tmp_path / name)
        words = "a MiniZinc model is written to NAME.mzn" if fmt == "mzn" else "the file name says"
        assert r.code == 2 and words in r.err, (fmt, name, r)
    assert cli("export", "set2-4x4", "--format", "conflict", "-o", tmp_path / "x.mis").code == 0


def test_conflict_sizes_are_those_of_the_graph_written(cli, tmp_path):
    out = tmp_path / "x.mis"
    r = cli("export", "set2-4x4", "--format", "conflict", "-o", out, "--json")
    sizes = json.loads(r.out)["sizes"]
    p_line = next(ln for ln in out.read_text().splitlines() if ln.startswith("p edge"))
    assert p_line == f"p edge {sizes['vertices']} {sizes['edges']}"
    clq = json.loads(cli("export", "set2-4x4", "--format", "clq", "-o", tmp_path / "x.clq", "--json").out)["sizes"]
    n = sizes["vertices"]
    assert sizes["clique_edges"] == clq["edges"] and sizes["edges"] + clq["edges"] == n * (n - 1) // 2


def test_a_puzzle_file_is_recorded_by_its_name_not_its_path(tmp_path, cli, monkeypatch):
    """The path as typed (an absolute /home/... path) went into suite manifests and puzzle
    files, and made the bytes depend on the working folder."""
    folder = tmp_path / "private" / "alice"
    folder.mkdir(parents=True)
    assert cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 3, "-o", folder / "p.txt").code == 0
    outs = []
    for cwd, spelled in ((tmp_path, folder / "p.txt"), (tmp_path / "private", "alice/p.txt")):
        monkeypatch.chdir(cwd)
        out = tmp_path / f"s{len(outs)}"
        assert cli("suite", "-o", out, "--instances", spelled, "--formats", "cnf").code == 0
        assert cli("convert", spelled, "--to", "json", "-o", tmp_path / f"c{len(outs)}.json").code == 0
        outs.append(out)
    for rel in ("manifest.json", "manifest.csv", "puzzles/p.json", "cnf/p.onehot.cnf"):
        assert (outs[0] / rel).read_bytes() == (outs[1] / rel).read_bytes(), rel
    assert (tmp_path / "c0.json").read_bytes() == (tmp_path / "c1.json").read_bytes()
    assert "private" not in (outs[0] / "manifest.json").read_text() + (tmp_path / "c0.json").read_text()


def test_suite_refuses_repeats_and_says_what_max_cells_left_out(cli, tmp_path):
    r = cli("suite", "-o", tmp_path / "d", "--instances", "set2-3x3", "--formats", "cnf,cnf,lp")
    assert r.code == 2 and "format 'cnf' is listed twice" in r.err
    r = cli("suite", "-o", tmp_path / "d", "--instances", "set2-3x3", "--formats", "lp", "--variants", "paper,paper")
    assert r.code == 2 and "variant 'paper' is listed twice" in r.err
    r = cli("suite", "-o", tmp_path / "s", "--instances", "set2-3x3,set2-5x5", "--max-cells", "10", "--formats", "cnf")
    assert r.code == 0 and "left out by --max-cells 10: set2-5x5" in r.out
    m = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert [row["instance"] for row in m["files"]] == ["set2-3x3"]
    assert m["left_out_by_max_cells"] == ["set2-5x5"] and m["arguments"]["max_cells"] == 10


def test_suite_takes_a_generated_puzzle_file_as_known_by_its_provenance(tmp_path, cli):
    """A puzzle file `emc generate` wrote carries its parameters: the suite draws it again, and
    when the pieces are the same it has the planted board (known satisfiable, regions allowed)
    and writes the same files as --generate; an edited file is a user file like any other."""
    q = tmp_path / "q.json"
    assert cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 3, "--seed", 2, "-o", q).code == 0
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli("suite", "-o", a, "--instances", q, "--formats", "cnf", "--free", "r1c1-r2c2").code == 0
    assert cli("suite", "-o", b, "--generate", "4x4:2:3:2", "--formats", "cnf", "--free", "r1c1-r2c2").code == 0
    ra, rb = (json.loads((x / "manifest.json").read_text())["files"] for x in (a, b))
    assert len(ra) == len(rb) == 1 and ra[0]["instance"] == rb[0]["instance"] == "gen-4x4-f2-i3-s2"
    assert ra[0]["generator"] == rb[0]["generator"] == {"width": 4, "height": 4, "frame_colours": 2,
                                                          "inner_colours": 3, "seed": 2}
    assert ra[0]["known"] == "satisfiable" and "provenance" in ra[0]["known_how"]
    for rel in (ra[0]["files"][0]["path"], "puzzles/gen-4x4-f2-i3-s2.solution.json"):
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    p = emc.read_puzzle(q)
    assert emc.verify(p, emc.read_board(a / "puzzles" / "gen-4x4-f2-i3-s2.solution.json", p)).solved
    doc = json.loads(q.read_text())
    doc["pieces"][5], doc["pieces"][6] = doc["pieces"][6], doc["pieces"][5]  # same pieces, other order: another hash
    doc.pop("sha256", None)
    q.write_text(json.dumps(doc))
    assert cli("suite", "-o", a, "--instances", q, "--formats", "cnf").code == 0
    row = json.loads((a / "manifest.json").read_text())["files"][0]
    assert row["known"] == "unknown" and row["known_how"] == "user file" and row["generator"] is None
    r = cli("suite", "-o", a, "--instances", q, "--formats", "cnf", "--free", "r1c1-r2c2")
    assert r.code == 2 and "has no known board" in r.err, r


def test_suite_refuses_two_puzzles_of_one_name(tmp_path, cli):
    (tmp_path / "alt").mkdir()
    for seed, path in ((1, tmp_path / "g.txt"), (2, tmp_path / "alt" / "g.txt")):
        assert cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 3, "--seed", seed, "-o", path).code == 0
    r = cli("suite", "-o", tmp_path / "s", "--instances", f"{tmp_path / 'g.txt'},{tmp_path / 'alt' / 'g.txt'}",
            "--formats", "cnf")
    assert r.code == 2 and "two different puzzles are named 'g'" in r.err, r
    r = cli("suite", "-o", tmp_path / "s", "--instances", f"{tmp_path / 'g.txt'},{tmp_path / '.' / 'g.txt'}",
            "--formats", "cnf")
    assert r.code == 2 and "instance 'g' is listed twice" in r.err, r


@pytest.mark.parametrize("seed", range(6))
def test_a_cell_no_free_piece_fits_is_told_and_the_files_say_so(tmp_path, cli, seed):
    """Swap two inner pieces of a planted board and free one of the two cells: the piece left
    to place fits there in some rotation or not (checked here by scoring every rotation). When
    it does not, the export says the model has no solution, the CNF and clique headers say
    why, and a SAT solver agrees; when it does, none of that is said."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    from emc.model import Goal, Subproblem

    p, planted = emc.generate(5, 5, 2, 3, seed=seed)
    a, b = p.cell_of(1, 1), p.cell_of(1 + seed % 3, 3)
    board = planted.copy()
    board.place(a, int(planted.piece[b]), int(planted.rotation[b]))
    board.place(b, int(planted.piece[a]), int(planted.rotation[a]))
    sp = Subproblem.region(p, board, [a], Goal.FEASIBILITY)
    fits = any(sp.score(_turned(board, a, r)) == sp.max_score for r in range(4))
    assert (sp.dead_ends() == ([], [])) == fits
    pz, bd = tmp_path / "p.json", tmp_path / "b.json"
    emc.write_puzzle(p, pz)
    emc.write_board(board, p, bd)
    label = p.cell_label(a)
    res = cli("export", pz, "-f", "cnf", "--fixed", bd, "--free", label, "-o", tmp_path / "w.cnf")
    assert res.code == 0
    assert ("note: this feasibility model has no solution: cell " + label in res.out) == (not fits), res.out
    text = (tmp_path / "w.cnf").read_text()
    assert ("c unsatisfiable as written: cell " + label in text) == (not fits)
    with Solver(name="cadical195", bootstrap_with=CNF(from_string=text).clauses) as s:
        assert s.solve() == fits
    assert cli("export", pz, "-f", "clq", "--fixed", bd, "--free", label, "-o", tmp_path / "w.clq").code == 0
    head = (tmp_path / "w.clq").read_text()[:3000]
    assert (f"c target_unreachable cells_without_vertex {label}\n" in head) == (not fits)


def _turned(board, cell, rotation):
    b = board.copy()
    b.place(cell, int(board.piece[cell]), rotation)
    return b


@pytest.mark.parametrize("seed", range(4))
def test_a_cnf_arc_consistency_empties_is_said_to_have_no_solution(tmp_path, cli, seed):
    """Regions of a random board of a generated 5x5: when pruning by arc consistency leaves a cell
    without any placement (the CNF then has no variables there, only empty clauses), the export
    says the model has no solution and why, as it does for a cell that fits no piece; a SAT
    solver agrees whenever it says so. The export once kept quiet about this case."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    from emc.cells import parse_cells
    from emc.heuristics.core.starts import random_board
    from emc.model import Goal, Subproblem

    p, _ = emc.generate(5, 5, 2, 3, seed=seed)
    board = random_board(p, seed)
    pz, bd = tmp_path / "p.json", tmp_path / "b.json"
    emc.write_puzzle(p, pz)
    emc.write_board(board, p, bd)
    seen = set()
    for spec in ("frame", "inner", "r2c2-r3c3", "rows:1-2"):
        sp = Subproblem.region(p, board, parse_cells(spec, p), Goal.FEASIBILITY)
        out = tmp_path / f"{spec.replace(':', '_')}.cnf"
        res = cli("export", pz, "-f", "cnf", "--fixed", bd, "--free", spec, "-o", out, "--json")
        assert res.code == 0, res
        note = json.loads(res.out)["no_solution"]
        text = out.read_text()
        with Solver(name="cadical195", bootstrap_with=CNF(from_string=text).clauses) as s:
            sat = s.solve()
        assert not (note and sat), (spec, note)
        assert (f"c unsatisfiable as written: {note}\n" in text) == bool(note)
        if note and sp.dead_ends() == ([], []):
            assert note.startswith("arc consistency leaves no placement on cell"), note
            seen.add(spec)
    if seed == 0:
        assert seen == {"r2c2-r3c3", "rows:1-2"}  # the case this test is for does occur


def test_a_suite_stopped_early_leaves_no_manifest_of_an_earlier_suite(tmp_path, cli):
    """Rewriting a suite folder rewrote the files first and the manifest last: a run that
    stopped in between left the old manifest describing the new files (sizes, sha256)."""
    out = tmp_path / "s"
    assert cli("suite", "-o", out, "--instances", "set2-4x4", "--formats", "cnf,wcnf").code == 0
    assert (out / "manifest.json").exists() and (out / "manifest.csv").exists()
    for f in (out / "wcnf").iterdir():
        f.unlink()
    (out / "wcnf").rmdir()
    (out / "wcnf").write_text("in the way")  # the second format cannot be written
    r = cli("suite", "-o", out, "--instances", "set2-4x4", "--formats", "cnf,wcnf", "--no-symmetry")
    assert r.code == 2 and r.err.count("\n") == 1, r
    assert not (out / "manifest.json").exists() and not (out / "manifest.csv").exists()


def test_a_suite_stopped_early_still_lets_the_next_run_remove_the_earlier_files(tmp_path, cli):
    """The earlier manifest goes before any file is written; a run stopped after that used to
    leave the earlier suite's files listed by nothing, so no later run removed them. The list
    now waits in a hidden file until a run finishes."""
    from emc.suite import EARLIER

    out = tmp_path / "s"
    assert cli("suite", "-o", out, "--instances", "set2-4x4", "--formats", "cnf,clq,wcnf").code == 0
    for f in (out / "wcnf").iterdir():
        f.unlink()
    (out / "wcnf").rmdir()
    (out / "wcnf").write_text("in the way")  # the run stops at this format
    assert cli("suite", "-o", out, "--instances", "set2-4x4", "--formats", "cnf,wcnf").code == 2
    assert not (out / "manifest.json").exists() and (out / EARLIER).exists() and (out / "clq").is_dir()
    (out / "wcnf").unlink()
    assert cli("suite", "-o", out, "--instances", "set2-4x4", "--formats", "cnf").code == 0
    assert sorted(p.name for p in out.iterdir()) == ["cnf", "manifest.csv", "manifest.json", "puzzles"]


@pytest.mark.slow
def test_a_suite_stopped_by_ctrl_c_says_what_it_leaves(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    env = dict(os.environ, PYTHONPATH=str(Path(emc.__file__).resolve().parent.parent))
    out = tmp_path / "s"
    proc = subprocess.Popen([sys.executable, "-m", "emc", "suite", "-o", str(out), "--generate", "6x6:2:4:1-3000",
                             "--formats", "cnf"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    for _ in range(1200):  # the first model file, then Ctrl-C (at most 120 s of waiting)
        if (out / "cnf").is_dir() and any((out / "cnf").iterdir()):
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert f"suite stopped before its end: {out} holds the files written so far and no manifest" in err, err
    assert not (out / "manifest.json").exists() and len(list((out / "cnf").iterdir())) < 3000


def test_a_suite_usage_error_creates_no_folder(tmp_path, cli):
    r = cli("suite", "-o", tmp_path / "s", "--instances", "set2-4x4", "--formats", "cnf", "--variants", "paper")
    assert r.code == 2 and "fit none of the formats" in r.err and not (tmp_path / "s").exists()


def test_suite_rows_list_apart_the_options_a_variant_has_no_use_for(tmp_path, cli):
    out = tmp_path / "s"
    r = cli("suite", "-o", out, "--instances", "set2-4x4", "--formats", "cnf", "--variants", "onehot,log",
            "-O", "redundant=triples")
    assert r.code == 0, r
    rows = {row["variant"]: row for row in json.loads((out / "manifest.json").read_text())["files"]}
    assert rows["onehot"]["options"] == {"redundant": "triples"} and rows["onehot"]["options_without_effect"] == {}
    assert rows["log"]["options"] == {} and list(rows["log"]["options_without_effect"]) == ["redundant"]
    log = out / rows["log"]["files"][0]["path"]
    plain = tmp_path / "plain.cnf"
    assert cli("export", "set2-4x4", "-f", "cnf", "--variant", "log", "-o", plain).code == 0
    # the file an export with the row's options writes, header included, so that decode takes those
    # options (the header named redundant=triples, which decode then wanted and export refused)
    assert log.read_bytes() == plain.read_bytes()
    from pysat.formula import CNF
    from pysat.solvers import Solver

    with Solver(name="cadical195", bootstrap_with=CNF(from_string=log.read_text()).clauses) as s:
        assert s.solve()
        answer = tmp_path / "log.out"
        answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, s.get_model())) + " 0\n")
    # decoded with the arguments the row records (its options: none), as a user of the suite would
    r = cli("decode", "set2-4x4", answer, "-f", "cnf", "--variant", "log", "--model", log, "-o", tmp_path / "b.json")
    assert r.code == 0, r
    csv_rows = {x["variant"]: x for x in csv.DictReader((out / "manifest.csv").open())}
    assert csv_rows["log"]["options"] == "" and csv_rows["onehot"]["options"] == "redundant=triples"
    reason = rows["log"]["options_without_effect"]["redundant"]
    assert csv_rows["log"]["options_without_effect"] == f"redundant: {reason}"
    assert csv_rows["onehot"]["options_without_effect"] == ""


def test_feasibility_only_options_on_optimisation_models_are_refused_or_listed(tmp_path, cli):
    """cpsat's balance, pairs and exclusions and mzn's balance only act on feasibility models: an
    export asking for them on an optimisation model (the default goal there) is refused, as the
    CNF log variant's are, a suite lists them as without effect (its manifest said they were
    applied to a file identical to one without them), and the backends refuse them."""
    for fmt, opt in (("cpsat", "pairs=true"), ("cpsat", "exclusions=true"), ("cpsat", "balance=true"),
                     ("mzn", "balance=true")):
        r = cli("export", "set2-4x4", "-f", fmt, "-O", opt, "-o", tmp_path / f"x.{fmt}")
        assert r.code == 2 and f"--option {opt.split('=')[0]}: no effect on this model (feasibility models only)" in r.err, r
    r = cli("export", "set2-4x4", "-f", "cpsat", "--goal", "feasibility", "--variant", "sum", "-O", "exclusions=true",
            "-o", tmp_path / "s.pbtxt")
    assert r.code == 2 and "exclusions: no effect on this model (edgevar, clause and table variants only)" in r.err, r
    # on a feasibility model they are taken, and change the file
    plain, paired = tmp_path / "f.pbtxt", tmp_path / "fp.pbtxt"
    assert cli("export", "set2-4x4", "-f", "cpsat", "--goal", "feasibility", "-o", plain).code == 0
    assert cli("export", "set2-4x4", "-f", "cpsat", "--goal", "feasibility", "-O", "pairs=true", "-o", paired).code == 0
    assert plain.read_bytes() != paired.read_bytes()
    out = tmp_path / "suite"
    assert cli("suite", "-o", out, "--instances", "set2-4x4", "--formats", "cpsat", "-O", "pairs=true").code == 0
    row = json.loads((out / "manifest.json").read_text())["files"][0]
    assert row["goal"] == "optimisation" and row["options"] == {}
    assert row["options_without_effect"] == {"pairs": "feasibility models only"}
    assert cli("export", "set2-4x4", "-f", "cpsat", "-o", tmp_path / "o.pbtxt").code == 0
    assert (out / row["files"][0]["path"]).read_bytes() == (tmp_path / "o.pbtxt").read_bytes()
    for backend in ("cpsat", "minizinc"):
        r = cli("solve", "set2-4x4", "-b", backend, "--goal", "optimisation", "-O", "balance=true")
        assert r.code == 2 and "no effect on an optimisation model (feasibility models only)" in r.err and r.out == "", r


def test_the_log_variant_does_not_list_a_default_it_has_no_use_for(tmp_path, cli):
    """The redundant clauses' default (pairs) belongs to the one-hot variant: a log CNF nobody asked
    options of said "options without effect here: redundant=pairs", and every log row of a suite
    listed it. Files written that way still decode with --model (that line is information)."""
    new = tmp_path / "l.cnf"
    r = cli("export", "set2-4x4", "-f", "cnf", "--variant", "log", "-o", new)
    text = new.read_text()
    assert r.code == 0 and "without effect" not in text, r
    out = tmp_path / "s"
    assert cli("suite", "-o", out, "--instances", "set2-4x4", "--formats", "cnf", "--variants", "log").code == 0
    assert json.loads((out / "manifest.json").read_text())["files"][0]["options_without_effect"] == {}
    # an earlier version's file: the same, with the line after the options line, and without the
    # later "c models:" line
    lines = text.splitlines(keepends=True)
    k = next(i for i, x in enumerate(lines) if x.startswith("c variant log options"))
    assert sum(x.startswith("c models: one per board") for x in lines) == 1
    old = tmp_path / "old.cnf"
    old.write_text("".join(lines[:k + 1] + ["c options without effect here: redundant=pairs (one-hot variant only)\n"]
                           + [x for x in lines[k + 1:] if not x.startswith("c models:")]))
    from pysat.formula import CNF
    from pysat.solvers import Solver

    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(old)).clauses) as s:
        assert s.solve()
        answer = tmp_path / "a.out"
        answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, s.get_model())) + " 0\n")
    r = cli("decode", "set2-4x4", answer, "-f", "cnf", "--variant", "log", "--model", old, "-o", tmp_path / "b.json")
    assert r.code == 0 and "valid and solved" in r.out, r
    r = cli("decode", "set2-4x4", answer, "-f", "cnf", "--variant", "onehot", "--model", old, "-o", tmp_path / "c.json")
    assert r.code == 2 and f"{old}:{k + 1}: the header differs" in r.err, r  # the line number of the file itself


def test_a_suite_rerun_into_its_folder_removes_the_files_of_the_earlier_one(tmp_path, cli):
    """A second suite into the same folder used to leave the first one's files beside its own,
    unlisted: now the files the earlier manifest lists and this run did not write go (with
    their emptied folders); files the manifest never listed stay."""
    out = tmp_path / "s"
    assert cli("suite", "--instances", "set2-3x3,set2-4x4", "--formats", "cnf,clq", "-o", out).code == 0
    (out / "notes.txt").write_text("mine")
    assert cli("suite", "--instances", "set2-3x3", "--formats", "cnf", "-o", out).code == 0
    left = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    assert left == ["cnf", "cnf/set2-3x3.onehot.cnf", "manifest.csv", "manifest.json", "notes.txt", "puzzles",
                    "puzzles/set2-3x3.json"]
    listed = json.loads((out / "manifest.json").read_text())
    assert [f["path"] for r in listed["files"] for f in r["files"]] == ["cnf/set2-3x3.onehot.cnf"]


def test_a_gz_suffix_in_any_case_compresses_and_other_compressions_are_refused(tmp_path, cli):
    """Names were read for their format in any case but compressed only for a lower-case .gz:
    `-o b.TXT.GZ` wrote plain text under a name that says gzip."""
    import gzip

    outs = {"board": tmp_path / "b.TXT.GZ", "puzzle": tmp_path / "p.json.Gz", "cnf": tmp_path / "m.cnf.GZ",
            "clq": tmp_path / "m.clq.GZ"}
    assert cli("solve", "set2-4x4", "-o", outs["board"]).code == 0
    assert cli("convert", "set2-4x4", "--to", "json", "-o", outs["puzzle"]).code == 0
    assert cli("export", "set2-4x4", "-f", "cnf", "-o", outs["cnf"]).code == 0
    assert cli("export", "set2-4x4", "-f", "clq", "-o", outs["clq"]).code == 0
    for what, path in outs.items():
        assert path.read_bytes()[:2] == b"\x1f\x8b", what  # gzip's magic number
        assert gzip.decompress(path.read_bytes()), what
    assert emc.verify(emc.load("set2-4x4"), emc.read_board(outs["board"], emc.load("set2-4x4"))).solved
    assert emc.read_puzzle(outs["puzzle"]).sha256 == emc.load("set2-4x4").sha256
    r = cli("export", "set2-4x4", "-f", "cnf", "-o", tmp_path / "m.cnf.Z")
    assert r.code == 2 and "emc compresses with gzip only" in r.err and not (tmp_path / "m.cnf.Z").exists(), r


def test_lp_mps_and_pbtxt_files_say_what_they_are_in_comments_their_solvers_skip(tmp_path, cli):
    """lp, mps and CP-SAT text files start with comment lines naming emc's version, the
    puzzle and its hash, the sub-problem (free cells, goal), the symmetry breaking and the
    options given; HiGHS and OR-Tools read the files as before."""
    import highspy
    from google.protobuf import text_format
    from ortools.sat import cp_model_pb2

    p = emc.load("set2-5x5")
    board = tmp_path / "b.json"
    assert cli("solve", "set2-5x5", "-b", "cpsat", "-o", board).code == 0
    files = {}
    for fmt, suffix, mark, extra in (("lp", ".lp", "\\ ", ("-O", "linking=diff")), ("mps", ".mps", "* ", ()),
                                      ("cpsat", ".pbtxt", "# ", ("-O", "exclusions=true", "--goal", "feasibility"))):
        path = tmp_path / f"m{suffix}"
        r = cli("export", "set2-5x5", "-f", fmt, "--fixed", board, "--free", "rows:2-5", *extra, "-o", path)
        assert r.code == 0, r
        text = path.read_text()
        about = [ln[len(mark):] for ln in text.splitlines() if ln.startswith(mark) and not ln.startswith("*SENSE")]
        assert about[0].startswith(f"emc {emc.__version__}: ") and f"({'pbtxt' if fmt == 'cpsat' else fmt})" in about[0]
        assert about[1] == f"puzzle set2-5x5 5x5 sha256 {p.sha256}"
        goal = "feasibility" if fmt == "cpsat" else "optimisation"
        assert about[2].startswith("subproblem: region, 20 free cells, 20 pieces,") and about[2].endswith(f"goal {goal}")
        cells = " ".join(p.cell_label(c) for c in range(5, 25))
        assert " ".join(ln.removeprefix("free cells ") for ln in about if ln.startswith("free cells ")) == cells
        pin = "symmetry breaking: none (a region: its fixed cells pin the board)"
        assert pin in about
        assert about[about.index(pin) + 1] == "options " + (" ".join(extra[1::2][:1]) or
                                                                                 "none given (the defaults)")
        files[fmt] = path
    for fmt in ("lp", "mps"):
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        assert h.readModel(str(files[fmt])) == highspy.HighsStatus.kOk
        h.run()
        assert round(h.getInfo().objective_function_value) == 0  # the solved board is still there to find
    pb = cp_model_pb2.CpModelProto()
    text_format.Parse(files["cpsat"].read_text(), pb)
    assert pb.name.startswith("emc ")
    r = cli("export", "set2-4x4", "-f", "lp", "-o", tmp_path / "w.lp")
    assert "\\ symmetry breaking: piece 1 only on r1c1\n" in (tmp_path / "w.lp").read_text()
    p4 = emc.load("set2-4x4")
    hinted = tmp_path / "hinted.json"
    emc.write_puzzle(p4.with_hints([emc.Hint(5, 12, 0)], name="hinted"), hinted)
    for puzzle, args, words in (("set2-4x4", ("--no-symmetry",), "off (asked for)"),
                                (hinted, (), "none (the puzzle's hints pin the board)")):
        r = cli("export", puzzle, "-f", "mps", *args, "-o", tmp_path / "w.mps")
        assert r.code == 0, r
        assert f"* symmetry breaking: {words}\n" in (tmp_path / "w.mps").read_text()


def test_suite_refuses_a_goal_no_format_of_it_takes(tmp_path, cli):
    """cnf, clq, conflict and wcnf files keep their own question: a --goal only such formats
    would get, and that some would not ask, is refused (as `emc export` refuses it); a suite
    with a format that takes the goal, or a goal they all ask anyway, goes ahead."""
    out = tmp_path / "s"
    r = cli("suite", "-o", out, "--instances", "set2-3x3", "--formats", "cnf,clq", "--goal", "optimisation")
    assert r.code == 2 and r.err.count("\n") == 1 and "cnf files always ask for a perfect board" in r.err, r
    assert not out.exists()
    for formats, goal in (("cnf,lp", "optimisation"), ("cnf,clq", "feasibility"), ("wcnf", "optimization")):
        r = cli("suite", "-o", out, "--instances", "set2-3x3", "--formats", formats, "--goal", goal)
        assert r.code == 0, (formats, r)
        rows = json.loads((out / "manifest.json").read_text())["files"]
        assert {x["format"]: x["goal"] for x in rows}["lp" if "lp" in formats else formats.split(",")[0]] == \
            ("optimisation" if goal.startswith("optimi") else "feasibility")


def test_suite_rows_give_the_options_in_effect_and_the_symmetry_pin(tmp_path, cli):
    """`options` lists what was asked for; `effective_options` what each model holds, defaults
    included (the CNF's are those its header names), and `symmetry_pin` which piece is pinned
    where: the same piece and cell the clq header and the lp comment name."""
    out = tmp_path / "s"
    assert cli("suite", "-o", out, "--instances", "set2-4x4", "--formats", "cnf,lp,cpsat,mzn,clq",
               "--goal", "feasibility", "-O", "linking=diff", "-O", "pairs=true", "-O", "card=ladder").code == 0
    rows = {r["format"]: r for r in json.loads((out / "manifest.json").read_text())["files"]}
    cnf = rows["cnf"]
    header = next(ln for ln in (out / cnf["files"][0]["path"]).read_text().splitlines() if ln.startswith("c variant "))
    assert header == "c variant onehot options " + " ".join(
        f"{k}={v}" for k, v in sorted(cnf["effective_options"].items()))
    assert cnf["options"] == {"card": "ladder"} and cnf["effective_options"]["card"] == "ladder"
    assert rows["lp"]["effective_options"] == {"linking": "diff", "cuts": 0}
    assert rows["cpsat"]["options"] == {"pairs": True}
    assert rows["cpsat"]["effective_options"] == {"balance": True, "pairs": True, "exclusions": False, "piece_cells": False,
                                                  "cell_vars": False, "hint": False, "cuts": 0}
    assert rows["mzn"]["effective_options"] == {"search": "first_fail", "value": "indomain_random", "restart": "luby",
                                                "balance": True}
    assert rows["clq"]["effective_options"] == {}
    # a log CNF holds no one-hot extras, whatever its options line keeps for older files
    assert cli("suite", "-o", tmp_path / "l", "--instances", "set2-4x4", "--formats", "cnf", "--variants", "log").code == 0
    log = json.loads((tmp_path / "l" / "manifest.json").read_text())["files"][0]["effective_options"]
    assert not {"redundant", "edge_amo", "colour_counts", "forbid", "piece_support"} & set(log) and log["card"] == "seqcounter"
    # the clause families of issue 52 are in the one-hot rows, asked for or not
    from emc.encoders.cnf import DEFAULT_FORBID, DEFAULT_PIECE_SUPPORT

    assert (cnf["effective_options"]["forbid"], cnf["effective_options"]["piece_support"],
            cnf["effective_options"]["twins"]) == (DEFAULT_FORBID, DEFAULT_PIECE_SUPPORT, False)
    assert cli("suite", "-o", tmp_path / "f", "--instances", "set2-4x4", "--formats", "cnf", "-O", "forbid=both",
               "-O", "piece_support=true").code == 0
    f = json.loads((tmp_path / "f" / "manifest.json").read_text())["files"][0]
    assert f["options"] == {"forbid": "both", "piece_support": True}
    assert f["effective_options"]["forbid"] == "both" and f["effective_options"]["piece_support"] is True
    assert {r["symmetry_pin"] for r in rows.values()} == {"piece 1 only on r1c1"}
    clq = (out / rows["clq"]["files"][0]["path"]).read_text()
    assert "c symmetry_breaking piece 1 only on r1c1\n" in clq
    assert "\\ symmetry breaking: piece 1 only on r1c1\n" in (out / rows["lp"]["files"][0]["path"]).read_text()
    table = list(csv.DictReader((out / "manifest.csv").open()))
    assert {x["format"]: x["effective_options"] for x in table}["lp"] == "linking=diff cuts=0"
    assert {x["symmetry_pin"] for x in table} == {"piece 1 only on r1c1"}
    r = cli("suite", "-o", out, "--generate", "4x4:2:3:1", "--free", "r2c2-r3c3", "--formats", "cnf")
    assert r.code == 0 and json.loads((out / "manifest.json").read_text())["files"][0]["symmetry_pin"] is None


def test_suite_estimate_gives_each_sub_problem_its_search_size(tmp_path, cli):
    """--estimate WALKS: each row gets Knuth's estimate of the nodes emc's backtrack search
    needs to settle its sub-problem; the same for every format of one sub-problem, the same on
    every run, and close to the true count where the complete search can be run."""
    from emc.backends.backtrack import Search, make_plan, race_pins
    from emc.model import Goal, Subproblem

    a, b = tmp_path / "a", tmp_path / "b"
    args = ["--generate", "6x6:2:4:1", "--free", "r2c2-r5c5", "--formats", "cnf,clq"]
    r = cli("suite", "-o", a, "--instances", "set2-5x5", "--formats", "cnf,lp", "--estimate", 20000)
    assert r.code == 0, r
    rows = json.loads((a / "manifest.json").read_text())["files"]
    assert len({json.dumps(x["estimate"]) for x in rows}) == 1
    est = rows[0]["estimate"]
    assert est["walks"] == 20000 and est["seed"] == 0
    sp = Subproblem.whole(emc.load("set2-5x5"), Goal.FEASIBILITY)
    plan = make_plan(sp, "rows")
    piece, positions = race_pins(sp, plan.order)[0]
    s = Search(plan, piece, positions)
    while not s.done:
        s.step(10_000_000, 0)
    assert 0.8 * s.nodes < est["nodes"] < 1.25 * s.nodes, (est, s.nodes)
    table = list(csv.DictReader((a / "manifest.csv").open()))
    assert {x["estimated_nodes"] for x in table} == {f"{est['nodes']:.3g}"}
    # regions of a generated puzzle: an estimate per region; byte-identical runs
    assert cli("suite", "-o", a, *args, "--estimate", 3000).code == 0
    assert cli("suite", "-o", b, *args, "--estimate", 3000).code == 0
    assert (a / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()
    rows = json.loads((a / "manifest.json").read_text())["files"]
    assert all(x["estimate"]["nodes"] > 0 and x["free"] == "r2c2-r5c5" for x in rows)
    # without --estimate there is none
    assert cli("suite", "-o", b, *args).code == 0
    assert all("estimate" not in x for x in json.loads((b / "manifest.json").read_text())["files"])
    r = cli("suite", "-o", b, *args, "--estimate", -1)
    assert r.code == 2 and "--estimate: a number of random walks from 0" in r.err, r


def test_an_estimate_past_a_float_is_said_in_words_and_the_manifest_stays_json():
    """Knuth's estimate of a huge loose puzzle passes 1.8e308: JSON has no Infinity, so the
    figure is null with a note (the CSV says >1.8e308)."""
    from emc.model import Subproblem
    from emc.suite import search_estimate

    p, _ = emc.generate(30, 30, 1, 2, seed=1)
    est = search_estimate(Subproblem.whole(p), 10)
    assert est["nodes"] is None and "beyond a float's range" in est["note"]
    json.loads(json.dumps(est), parse_constant=lambda c: pytest.fail(f"non-standard JSON {c}"))


def test_suite_generates_distinct_puzzles_as_emc_generate_does(tmp_path, cli):
    """`:distinct` after the seeds draws the puzzles `emc generate --distinct` draws (same
    pieces, same name), with their planted boards, and the manifest records it."""
    out, q = tmp_path / "s", tmp_path / "q.json"
    assert cli("suite", "-o", out, "--generate", "5x5:3:6:3:distinct", "--formats", "cnf").code == 0
    assert cli("generate", 5, 5, "--frame-colours", 3, "--inner-colours", 6, "--seed", 3, "--distinct", "-o", q).code == 0
    row = json.loads((out / "manifest.json").read_text())["files"][0]
    assert row["instance"] == "gen-5x5-f3-i6-s3-distinct" and row["generator"]["distinct"] is True
    p = emc.read_puzzle(q)
    assert emc.read_puzzle(out / "puzzles" / "gen-5x5-f3-i6-s3-distinct.json").sha256 == p.sha256
    assert not p.duplicate_pieces()
    assert emc.verify(p, emc.read_board(out / "puzzles" / "gen-5x5-f3-i6-s3-distinct.solution.json", p)).solved
    # the file emc generate wrote is known by its provenance and gives the same files
    b = tmp_path / "b"
    assert cli("suite", "-o", b, "--instances", q, "--formats", "cnf").code == 0
    assert (b / row["files"][0]["path"]).read_bytes() == (out / row["files"][0]["path"]).read_bytes()
    r = cli("suite", "-o", out, "--generate", "5x5:2:4:3:unique", "--formats", "cnf")
    assert r.code == 2 and "WxH:F:I:SEEDS:distinct" in r.err, r


def test_suite_limits_and_rectangular_planted_boards(tmp_path, cli):
    """The seed-range cap is exact; --max-cells keeps a puzzle of exactly that many cells; a
    rectangular planted board is turned only by half turns (a quarter turn would give another
    shape) so that it keeps the whole-puzzle files' pin, and the wcnf-old rows say cost 0."""
    from emc.suite import MAX_SEEDS, parse_generate

    assert len(parse_generate(f"4x4:2:3:1-{MAX_SEEDS}")) == MAX_SEEDS
    with pytest.raises(emc.InputError, match="more than"):
        parse_generate(f"4x4:2:3:0-{MAX_SEEDS}")
    out = tmp_path / "s"
    r = cli("suite", "-o", out, "--instances", "set2-4x4,set2-5x4", "--max-cells", 16, "--formats", "wcnf-old")
    assert r.code == 0, r
    rows = json.loads((out / "manifest.json").read_text())["files"]
    assert [x["instance"] for x in rows] == ["set2-4x4"]
    assert rows[0]["known"].startswith("optimum cost 0")
    assert cli("suite", "-o", out, "--generate", "6x4:2:3:1-8", "--formats", "cnf").code == 0
    from emc.model import Subproblem

    for row in json.loads((out / "manifest.json").read_text())["files"]:
        p = emc.read_puzzle(out / row["puzzle_file"])
        b = emc.read_board(out / row["solution_file"], p)
        assert (b.width, b.height) == (6, 4) and emc.verify(p, b).solved
        piece, cells = Subproblem.whole(p).symmetry_cells()
        assert int(np.flatnonzero(b.piece == piece)[0]) in cells.tolist()


def test_a_long_export_shows_how_far_it_has_got(cli, tmp_path, monkeypatch):
    """Writing Eternity II's clique graph takes a quarter of an hour and said nothing until the
    end; a write that runs more than a moment now reports on stderr the edges written of the
    exact total, with a rate and the time left (here from the start, on a small graph), and
    the file is the same as without the reports."""
    import re

    from emc.commands import compile as commands

    monkeypatch.setattr(commands, "PROGRESS_AFTER", 0.0)
    quiet, watched = tmp_path / "quiet.clq", tmp_path / "watched.clq"
    assert cli("export", "set2-6x6", "-f", "clq", "-o", quiet, "--progress-every", 0).code == 0
    r = cli("export", "set2-6x6", "-f", "clq", "-o", watched, "--progress-every", 0.01)
    assert r.code == 0, r
    total = int(re.search(r"([\d,]+) edges", r.out)[1].replace(",", ""))
    lines = [x for x in r.err.splitlines() if "writing edges:" in x]
    pattern = r"^\[\s*[\d.]+ s\] writing edges: ([\d.]+)( thousand| million)? of ([\d.]+)( thousand| million)? " \
              r"\(([\d.]+)%\), [\d.]+( thousand| million)? a second, about .+ left$"
    assert lines and all(re.match(pattern, x) for x in lines), r.err
    scale = {None: 1, " thousand": 1e3, " million": 1e6}
    m = re.match(pattern, lines[-1])
    assert abs(float(m[3]) * scale[m[4]] - total) <= 0.01 * total  # the exact total, in 3 digits
    done = [float(re.match(pattern, x)[5]) for x in lines]
    assert done == sorted(done) and 0 < done[-1] <= 100
    assert watched.read_bytes() == quiet.read_bytes() and "writing edges" not in r.out
    r = cli("export", "set2-6x6", "-f", "clq", "-o", watched, "--progress-every", 0.01, "--json")
    assert r.code == 0 and "writing edges" not in r.err  # --json: no progress lines, as emc solve


def test_suite_writes_seed_002s_benchmark_uniform_puzzles_with_their_corners_fixed(tmp_path, cli):
    """`--generate NxN:uniform:K:SEEDS --free all~corners`: the puzzles `emc generate --model
    uniform` draws, the planted board's corner pieces kept, the rest free; the manifest names the
    model, and the same command writes the same bytes."""
    from emc.cells import make_subproblem
    from emc.generate import generate_uniform
    from emc.suite import parse_generate

    assert parse_generate("7x7:uniform:6:2-3") == [("uniform", 7, 7, 6, 2), ("uniform", 7, 7, 6, 3)]
    assert parse_generate("5x5:uniform:4:1:distinct") == [("uniform", 5, 5, 4, 1, True)]
    with pytest.raises(emc.InputError, match="WxH:uniform:K:SEEDS"):
        parse_generate("5x5:uniform:1-3")
    out, again = tmp_path / "s", tmp_path / "t"
    args = ("--generate", "5x5:uniform:4:1-2", "--free", "all~corners", "--formats", "cnf", "--estimate", 200)
    assert cli("suite", "-o", out, *args).code == 0
    assert cli("suite", "-o", again, *args).code == 0
    m = json.loads((out / "manifest.json").read_text())
    assert (again / "manifest.json").read_text() == (out / "manifest.json").read_text()
    assert m["arguments"]["generated"] == [["uniform", 5, 5, 4, 1], ["uniform", 5, 5, 4, 2]]
    for row, seed in zip(m["files"], (1, 2)):
        assert row["generator"] == {"model": "uniform", "width": 5, "height": 5, "colours": 4, "seed": seed}
        assert row["instance"] == f"gen-5x5-u4-s{seed}" and row["free"] == "all~corners" and row["free_cells"] == 21
        assert not row["symmetry_breaking"] and row["estimate"]["nodes"] > 0
        p = emc.read_puzzle(out / row["puzzle_file"])
        assert p.sha256 == generate_uniform(5, 5, 4, seed=seed)[0].sha256
        b = emc.read_board(out / row["solution_file"], p)
        sp = make_subproblem(p, row["free"], b)
        assert sorted(set(range(25)) - set(sp.free.tolist())) == [0, 4, 20, 24] and emc.verify(p, b).solved
    # the file `emc generate --model uniform` wrote is known by its provenance
    q = tmp_path / "q.json"
    assert cli("generate", 5, 5, "--model", "uniform", "--colours", 4, "--seed", 1, "-o", q).code == 0
    r = cli("suite", "-o", tmp_path / "f", "--instances", q, "--free", "all~corners", "--formats", "cnf")
    assert r.code == 0, r
    row = json.loads((tmp_path / "f" / "manifest.json").read_text())["files"][0]
    assert row["generator"]["model"] == "uniform" and row["known"].startswith("satisfiable")
