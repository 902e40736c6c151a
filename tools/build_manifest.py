"""Rebuild instances/manifest.json from the files in instances/ (run after adding data).

The manifest is checked against the files by tests/test_instances.py, so a stale one fails CI.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from emc.formats import read_puzzle  # noqa: E402

SOURCES = {
    "set2": {
        "repository": "https://github.com/david3x3x3/eternity2",
        "path": "python/pieces_set_2",
        "commit": "3e9c92a",
        "licence": "GPL-2.0 (repository licence)",
        "also": "META files byte-identical to https://github.com/jwortmann/Eternity2Puzzles.jl pieces/meta_*.txt (MIT)",
    },
    "eternity2": {
        "repository": "https://github.com/marijnheule/edge-matching",
        "path": "benchmarks/e2",
        "commit": "db01630",
        "licence": "no licence file; puzzle by TOMY",
        "also": "",
    },
    "clues": {
        "repository": "https://github.com/marijnheule/edge-matching",
        "path": "benchmarks",
        "commit": "12afe73",
        "licence": "no licence file; puzzles by TOMY",
        "also": "",
    },
}


def entry(name, file, family, source, known, how, hints=(), aliases=(), notes=""):
    p = read_puzzle(ROOT / "instances" / file)
    return {
        "name": name,
        "file": file,
        "width": p.width,
        "height": p.height,
        "pieces": p.n_pieces,
        "frame_colours": len(p.frame_colours),
        "inner_colours": len(p.inner_colours),
        "max_score": p.max_score,
        "hints": [list(h) for h in hints],
        "aliases": list(aliases),
        "family": family,
        "known": known,
        "known_how": how,
        "source": source,
        "notes": notes,
    }


def main() -> None:
    items = []
    files = sorted((ROOT / "instances" / "set2").glob("pieces_*.txt"))
    def key(f):
        w, h = map(int, re.findall(r"(\d+)x(\d+)", f.name)[0])
        return (w * h, w, h)
    for f in sorted(files, key=key):
        w, h = map(int, re.findall(r"(\d+)x(\d+)", f.name)[0])
        aliases = [f"meta-{w}x{h}"] if w == h and w in (10, 12, 14, 16) else []
        notes = "META 2010 contest benchmark" if aliases else ""
        items.append(entry(f"set2-{w}x{h}", f"set2/{f.name}", "set2", "set2", "satisfiable",
                           "generated with a planted perfect solution (the solution is not published)",
                           aliases=aliases, notes=notes))
    items.append(entry("eternity2", "eternity2/e2pieces.txt", "eternity2", "eternity2", "unknown",
                       "unsolved; best known board matches 470 of 480 edges",
                       hints=[(9, 8, 139, 2)],
                       notes="official puzzle with the mandatory hint: piece 139 on row 9, column 8, turned 180 degrees"))
    items.append(entry("eternity2-nohint", "eternity2/e2pieces.txt", "eternity2", "eternity2", "unknown",
                       "unsolved", notes="official pieces without the hint"))
    for k in range(1, 5):
        items.append(entry(f"clue{k}", f"clues/clue{k}.txt", "clues", "clues", "satisfiable",
                           "official clue puzzle, sold with a known solution",
                           notes="contains duplicate pieces"))
    out = {
        "format": "emc-instances",
        "version": 1,
        "conventions": "pieces are 1-based line numbers of their file (header lines not counted); "
                       "hints are [row, col, piece, rotation], 1-based, rotation in clockwise quarter turns",
        "sources": SOURCES,
        "instances": items,
    }
    (ROOT / "instances" / "manifest.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(items)} instances")


if __name__ == "__main__":
    main()
