"""The puzzles emc ships, by name: ``emc.instances.load("meta-10x10")``.

The files live in ``instances/`` (inside the wheel: ``emc/_data/instances``) with a manifest,
``instances/manifest.json``, that records for each instance its size, colour counts, maximum
score, hints, and where the data comes from (repository, path, commit, licence).

Names:

* ``set2-WxH``: the 171 generated puzzles of set 2, 3x3 to 20x20 (W >= H); each has a
  planted perfect solution.
* ``meta-10x10``, ``meta-12x12``, ``meta-14x14``, ``meta-16x16``: the META 2010 contest
  instances (the same files as ``set2-10x10`` etc.).
* ``eternity2``: the official 256-piece puzzle with its hint, piece 139 on row 9, column 8,
  turned 180 degrees; ``eternity2-nohint``: the same pieces without it.
* ``clue1`` .. ``clue4``: the official clue puzzles (6x6, 12x6, 6x6, 12x6).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .errors import EmcError, InputError, UnknownNameError
from .io import data_dir  # noqa: F401 (re-exported: emc.instances.data_dir)
from .model import Hint, Puzzle


@dataclass(frozen=True)
class InstanceInfo:
    """One manifest entry."""

    name: str
    file: str
    width: int
    height: int
    n_pieces: int
    frame_colours: int
    inner_colours: int
    max_score: int
    hints: tuple[tuple[int, int, int, int], ...]
    aliases: tuple[str, ...]
    family: str
    known: str
    known_how: str
    source: dict
    notes: str

    @property
    def size(self) -> str:
        return f"{self.width}x{self.height}"

    @property
    def path(self) -> Path:
        return data_dir("instances") / self.file


@lru_cache(maxsize=1)
def manifest() -> dict[str, InstanceInfo]:
    """Every shipped instance by name (aliases included), in manifest order."""
    path = data_dir("instances") / "manifest.json"
    try:
        raw = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise EmcError(f"{path}: cannot read the instance manifest ({exc})") from None
    out: dict[str, InstanceInfo] = {}
    for e in raw["instances"]:
        info = InstanceInfo(
            name=e["name"],
            file=e["file"],
            width=e["width"],
            height=e["height"],
            n_pieces=e["pieces"],
            frame_colours=e["frame_colours"],
            inner_colours=e["inner_colours"],
            max_score=e["max_score"],
            hints=tuple(tuple(h) for h in e.get("hints", [])),
            aliases=tuple(e.get("aliases", [])),
            family=e["family"],
            known=e["known"],
            known_how=e["known_how"],
            source=raw["sources"][e["source"]],
            notes=e.get("notes", ""),
        )
        out[info.name] = info
        for a in info.aliases:
            out[a] = info
    return out


def names(include_aliases: bool = True) -> list[str]:
    m = manifest()
    if include_aliases:
        return list(m)
    return [k for k, v in m.items() if k == v.name]


def info(name: str) -> InstanceInfo:
    if not isinstance(name, str):
        raise TypeError(f"an instance name is a str (emc.instances.names() lists them), not {type(name).__name__}; "
                        "files are read with emc.resolve or emc.read_puzzle")
    m = manifest()
    if name not in m:
        raise UnknownNameError("instance", name, names())
    return m[name]


def load(name: str) -> Puzzle:
    """The shipped puzzle called ``name`` (or one of its aliases)."""
    from .formats import read_puzzle

    i = info(name)
    p = read_puzzle(i.path, name=name)
    hints = [Hint((r - 1) * p.width + (c - 1), piece - 1, k) for r, c, piece, k in i.hints]
    prov = {
        "instance": i.name,
        "family": i.family,
        "repository": i.source["repository"],
        "path": i.source["path"] + "/" + Path(i.file).name if i.source.get("path") else Path(i.file).name,
        "commit": i.source["commit"],
        "licence": i.source["licence"],
    }
    return Puzzle(p.width, p.height, p.pieces, hints or p.hints, name, prov)


def resolve(spec: str | os.PathLike) -> Puzzle:
    """A puzzle from a file path or a shipped instance name (a file wins when both exist; a
    folder of an instance's name does not hide the instance)."""
    from .formats import read_puzzle

    s = os.fspath(spec)
    if not s.strip():
        raise InputError("no puzzle given (an empty name): give a puzzle file or a shipped instance name")
    if s in manifest() and not Path(s).is_file():
        return load(s)
    if Path(s).exists():
        return read_puzzle(s)
    if any(ch in s for ch in "/\\") or s.endswith((".txt", ".json", ".gz")):
        raise InputError("no such file", s)
    raise UnknownNameError("puzzle file or instance", s, names())
