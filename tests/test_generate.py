"""The planted-solution generator: determinism, colour classes, distinct pieces."""

from __future__ import annotations

import hashlib
import json

import pytest

import emc
from emc.formats import format_puzzle


def test_same_seed_same_bytes():
    a, sa = emc.generate(9, 7, 3, 6, seed=42)
    b, sb = emc.generate(9, 7, 3, 6, seed=42)
    assert format_puzzle(a, "json") == format_puzzle(b, "json")
    assert sa == sb
    c, _ = emc.generate(9, 7, 3, 6, seed=43)
    assert format_puzzle(a, "wh") != format_puzzle(c, "wh")


def test_golden_bytes_do_not_drift():
    # If this fails, seeds no longer give the puzzles users generated before: a breaking change.
    p, _ = emc.generate(8, 8, 3, 5, seed=1)
    digest = hashlib.sha256(format_puzzle(p, "wh").encode()).hexdigest()
    assert digest == GOLDEN_8x8_SEED1


GOLDEN_8x8_SEED1 = "2ae8f6f648618b36c609ea514f64b4b5b8c82430633ce2e32f49dfc2ee758a38"


def test_colour_classes_follow_the_request():
    p, b = emc.generate(10, 8, 4, 9, seed=3)
    assert p.frame_colours == (1, 2, 3, 4)  # every colour asked for is drawn on a board this big
    assert p.inner_colours == tuple(range(5, 14))
    assert p.structure_problems() == []
    q, _ = emc.generate(6, 6, 0, 4, seed=3)  # Benoist-Bourreau style: one colour range
    assert q.frame_colours == q.inner_colours == q.shared_colours == (1, 2, 3, 4)
    assert p.shared_colours == () and q.structure_problems() == []  # what the mode is for: no defect


def test_generate_and_info_describe_one_colour_range_as_such(cli, tmp_path):
    """--frame-colours 0 was announced as "4 frame + 4 inner colours", and `emc info` listed its
    shared colours under checks, as if they were a defect of the puzzle the option exists for."""
    out = tmp_path / "q.txt"
    r = cli("generate", 6, 6, "--frame-colours", 0, "--inner-colours", 4, "--seed", 3, "-o", out)
    assert r.code == 0 and "6x6, 4 colours, on the frame and inside alike, seed 3" in r.out, r
    r = cli("info", out)
    assert r.code == 0 and "4 of them both: [1, 2, 3, 4]" in r.out and "passed" in r.out, r
    d = json.loads(cli("info", out, "--json").out)
    assert d["shared_colours"] == [1, 2, 3, 4] and d["problems"] == []
    r = cli("generate", 6, 6, "--frame-colours", 2, "--inner-colours", 4, "--seed", 3, "-o", out)
    assert "2 frame + 4 inner colours, seed 3" in r.out and json.loads(cli("info", out, "--json").out)["shared_colours"] == []
    # colours the board has no room for: the line said what it made as if it echoed the request
    r = cli("generate", 3, 3, "--frame-colours", 200, "--inner-colours", 55, "-o", out)
    assert "3x3, 8 frame + 4 inner colours (asked for 200 + 55: a 3x3 board shows no more)" in r.out, r
    r = cli("generate", 2, 2, "--frame-colours", 0, "--inner-colours", 1, "-o", out)
    assert "2x2, 1 colour, on the frame and inside alike" in r.out, r


def test_distinct_rejects_duplicate_pieces():
    p, b = emc.generate(6, 6, 3, 6, seed=5, distinct=True)
    # another puzzle than the plain draw of the seed, so another default name (both were gen-6x6-f3-i6-s5)
    plain, _ = emc.generate(6, 6, 3, 6, seed=5)
    assert p.sha256 != plain.sha256 and (p.name, plain.name) == ("gen-6x6-f3-i6-s5-distinct", "gen-6x6-f3-i6-s5")
    assert p.duplicate_pieces() == []
    assert emc.verify(p, b).solved
    with pytest.raises(emc.InputError, match="duplicate"):
        emc.generate(6, 6, 1, 1, seed=5, distinct=True, max_tries=5)


def test_generate_command_writes_puzzle_and_certificate(tmp_path, cli):
    pz, sol = tmp_path / "p.txt", tmp_path / "s.json"
    res = cli("generate", 7, 5, "--frame-colours", 2, "--inner-colours", 4, "--seed", 8, "-o", pz, "--solution", sol)
    assert res.code == 0, res
    res = cli("verify", pz, sol)
    assert res.code == 0 and "valid and solved" in res.out
    res = cli("verify", pz, sol, "--json")
    import json

    d = json.loads(res.out)
    assert d["valid"] and d["score"] == d["max_score"] == 7 * 4 + 5 * 6
    res = cli("generate", 1, 5, "--frame-colours", 2, "--inner-colours", 4, "-o", pz)
    assert res.code == 2 and "argument W: 1 must be at least 2" in res.err
    # --distinct on the command line: the same seed without it draws pieces alike
    for flag, alike in (([], True), (["--distinct"], False)):
        assert cli("generate", 6, 6, "--frame-colours", 3, "--inner-colours", 6, "--seed", 5, *flag, "-o", pz).code == 0
        assert bool(emc.read_puzzle(pz).duplicate_pieces()) is alike, flag


def test_a_name_the_output_format_cannot_hold_is_refused(cli, tmp_path):
    """--name reaches JSON only: a 'W H' or Heule file is named after itself when read, so the name
    was dropped without a word."""
    for out, fmt in ((tmp_path / "p.txt", ()), (tmp_path / "p.dat", ("--format", "heule"))):
        r = cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 3, "--name", "mine", "-o", out, *fmt)
        assert r.code == 2 and "--name: the 'W H' and Heule formats hold no name" in r.err and not out.exists(), r
    out = tmp_path / "p.txt"
    assert cli("generate", 4, 4, "--frame-colours", 2, "--inner-colours", 3, "--name", "mine", "-o", out,
               "--format", "json").code == 0
    assert emc.read_puzzle(out).name == "mine"


def test_generate_refuses_one_past_each_limit():
    from emc.model import MAX_COLOUR

    with pytest.raises(emc.InputError, match="too large"):
        emc.generate(1000, 101, 1, 2)  # 101,000 cells, one row past 100,000
    emc.generate(3, 2, MAX_COLOUR - 1, 1)  # exactly MAX_COLOUR colours: allowed
    with pytest.raises(emc.InputError, match=f"at most {MAX_COLOUR} in all"):
        emc.generate(3, 2, MAX_COLOUR, 1)


def test_a_distinct_draw_records_its_attempt():
    p, _ = emc.generate(5, 5, 3, 6, seed=3, distinct=True)
    assert p.provenance["distinct"] is True and isinstance(p.provenance["attempt"], int)


def test_the_uniform_model_draws_every_edge_from_one_range():
    """`--model uniform --colours K` (seed 002's generator): every internal edge one of 1..K on
    the frame as inside; the pieces are those of --frame-colours 0 --inner-colours K; its own
    name and provenance, from which a suite rebuilds it."""
    from emc.generate import MODELS, generate_model, generate_uniform

    p, planted = generate_uniform(9, 7, 6, seed=4)
    q, _ = emc.generate(9, 7, 0, 6, seed=4)
    assert (p.pieces == q.pieces).all() and p.name == "gen-9x7-u6-s4" and q.name == "gen-9x7-f0-i6-s4"
    assert p.provenance["model"] == "uniform" and p.provenance["colours"] == 6 and "frame_colours" not in p.provenance
    assert set(p.colour_set) == set(range(1, 7)) and p.frame_colours == p.inner_colours == p.colour_set
    assert emc.verify(p, planted).solved and p.structure_problems() == []
    assert list(MODELS)[0] == "frame-inner" and generate_model("uniform", 9, 7, seed=4, colours=6)[0].sha256 == p.sha256
    assert generate_model("frame-inner", 8, 8, seed=1, frame_colours=3, inner_colours=5)[0].sha256 == \
        emc.generate(8, 8, 3, 5, seed=1)[0].sha256
    with pytest.raises(emc.InputError, match="model uniform takes --colours; --frame-colours belongs to another model"):
        generate_model("uniform", 5, 5, frame_colours=2, colours=3)
    with pytest.raises(emc.InputError, match="unknown generator model 'gauss'"):
        generate_model("gauss", 5, 5)
    with pytest.raises(emc.InputError, match="need at least 1 colour"):
        generate_uniform(5, 5, 0)
    d, _ = generate_uniform(5, 5, 9, seed=2, distinct=True)
    assert d.name == "gen-5x5-u9-s2-distinct" and not d.duplicate_pieces()


def test_generate_command_takes_the_model_and_its_own_colours(tmp_path, cli):
    out, sol = tmp_path / "u.json", tmp_path / "s.json"
    r = cli("generate", 6, 6, "--model", "uniform", "--colours", 5, "--seed", 2, "-o", out, "--solution", sol)
    assert r.code == 0 and "5 colours, drawn uniformly on the frame and inside alike (uniform model), seed 2" in r.out, r
    assert emc.read_puzzle(out).provenance["model"] == "uniform" and cli("verify", out, sol).code == 0
    for args, words in ((("--model", "uniform"), "model uniform takes --colours; missing --colours"),
                        (("--model", "uniform", "--colours", 3, "--inner-colours", 2), "--inner-colours belongs to"),
                        (("--frame-colours", 2), "model frame-inner takes --frame-colours, --inner-colours; missing "
                                                 "--inner-colours"),
                        (("--colours", 3), "model frame-inner takes --frame-colours, --inner-colours; missing")):
        r = cli("generate", 4, 4, *args, "-o", tmp_path / "x.json")
        assert r.code == 2 and words in r.err and r.err.count("\n") == 1 and not (tmp_path / "x.json").exists(), r
    r = cli("generate", 4, 4, "--model", "gauss", "--colours", 3, "-o", tmp_path / "x.json")
    assert r.code == 2 and "invalid choice: 'gauss'" in r.err, r
