"""The shipped instance library and its manifest."""

from __future__ import annotations

import json

import pytest

import emc
from emc import instances

ALL = instances.names(include_aliases=False)


def test_library_has_everything_promised():
    assert len([n for n in ALL if n.startswith("set2-")]) == 171
    for n in ("eternity2", "eternity2-nohint", "clue1", "clue2", "clue3", "clue4"):
        assert n in ALL
    for k in (10, 12, 14, 16):
        assert instances.info(f"meta-{k}x{k}").name == f"set2-{k}x{k}"


@pytest.mark.parametrize("name", ALL)
def test_every_instance_passes_structural_checks_and_matches_the_manifest(name):
    info = instances.info(name)
    p = emc.load(name)
    assert p.structure_problems() == []
    assert (p.width, p.height, p.n_pieces) == (info.width, info.height, info.n_pieces)
    assert len(p.frame_colours) == info.frame_colours and len(p.inner_colours) == info.inner_colours
    assert p.max_score == info.max_score == p.width * (p.height - 1) + p.height * (p.width - 1)
    assert info.source["repository"].startswith("https://github.com/") and info.source["commit"]
    assert info.source["licence"]
    # Frame colours never appear inside in these families.
    assert not set(p.frame_colours) & set(p.inner_colours)
    if info.family != "clues":
        assert p.duplicate_pieces() == [], "only the clue puzzles have duplicate pieces"


def test_official_puzzle_and_its_hint():
    e2 = emc.load("eternity2")
    assert (e2.width, e2.height, len(e2.frame_colours), len(e2.inner_colours)) == (16, 16, 5, 17)
    assert [(h.cell, h.piece, h.rotation) for h in e2.hints] == [(8 * 16 + 7, 138, 2)]
    assert emc.load("eternity2-nohint").hints == ()
    assert e2.sha256 == emc.load("eternity2-nohint").sha256  # the hash is of the pieces only


def test_resolve_accepts_files_and_names(tmp_path):
    assert emc.resolve("set2-4x3").size == "4x3"
    path = instances.info("set2-4x3").path
    assert emc.resolve(str(path)).size == "4x3"
    with pytest.raises(emc.InputError, match="no such file"):
        emc.resolve(str(tmp_path / "nope.txt"))


def test_manifest_is_json_with_sources():
    raw = json.loads((instances.data_dir("instances") / "manifest.json").read_text())
    assert set(raw["sources"]) == {"set2", "eternity2", "clues"}
    assert len(raw["instances"]) == len(ALL)


def test_instances_command_lists_all(cli):
    res = cli("instances", "--json")
    assert res.code == 0
    rows = json.loads(res.out)
    assert len(rows) == len(ALL)
    meta = [r for r in rows if "meta-16x16" in r["aliases"]][0]
    assert (meta["width"], meta["frame_colours"], meta["inner_colours"], meta["max_score"]) == (16, 5, 17, 480)
    res = cli("instances")
    assert res.code == 0 and "set2-20x20" in res.out and "eternity2" in res.out


def test_instances_filters_and_info_of_the_official_puzzle(cli):
    rows = json.loads(cli("instances", "--family", "clues", "--json").out)
    assert [r["name"] for r in rows] == ["clue1", "clue2", "clue3", "clue4"] and {r["family"] for r in rows} == {"clues"}
    rows = json.loads(cli("instances", "--family", "set2", "--min-size", "19", "--json").out)
    assert {(r["width"], r["height"]) for r in rows} == {(19, 19), (20, 19), (20, 20)}
    rows = json.loads(cli("instances", "--family", "set2", "--max-size", "4", "--json").out)
    assert {(r["width"], r["height"]) for r in rows} == {(3, 3), (4, 3), (4, 4)}  # both sides at most 4
    info = json.loads(cli("info", "eternity2", "--json").out)
    # the hint as the file and the published rules give it: row 9, column 8, piece 139, turned twice
    assert info["hints"] == [[9, 8, 139, 2]]
    assert (info["corner_pieces"], info["edge_pieces"], info["inner_pieces"], info["max_score"]) == (4, 56, 196, 480)
    assert len(info["frame_colours"]) == 5 and len(info["inner_colours"]) == 17 and info["problems"] == []



def test_info_cuts_a_huge_group_of_equal_pieces_short(cli, tmp_path):
    """One colour inside: hundreds of equal inner pieces, every one of them listed (1.4 MB of
    text for a 400x400 board); a group of more than 8 now shows its first 6 and its size."""
    puzzle, _ = emc.generate(30, 30, 1, 1, seed=1)
    path = tmp_path / "p.txt"
    emc.write_puzzle(puzzle, path)
    line = next(x for x in cli("info", path).out.splitlines() if x.startswith("duplicates"))
    biggest = max(puzzle.duplicate_groups(), key=len)
    assert len(biggest) > 8 and f"... ({len(biggest):,} pieces)" in line and len(line) < 400, line


def test_info_piped_has_no_trailing_spaces(cli):
    out = cli("info", "eternity2").out
    assert "sha256" in out and all(line == line.rstrip() for line in out.splitlines()), repr(out[:300])
