"""eii's piece groups (seed 001, "Good Groups/Bad Groups").

The idea: pieces that fit well together are saved for the end of the search. A *group* of
good pieces is rated by its *tileability*, the number of ways its pieces fill a 2x3 patch
with two frame squares (A2 A3 B2 B3 C2 C3: two edge squares on the frame row, four inner
squares below them; corner pieces take no part). A hill-climb improves a random group by
swapping a random good piece for a random bad one and keeping the swap when the tileability
rises, until it has not risen for a while; many climbs give a pool of groups, written to a
file. Within a group each piece is rated by the patches it takes part in, which splits the
good pieces into *precious* (the best rated) and *good*, and the others into *bad* and
*useless* (the worst rated). At each restart the search draws a group from the pool and obeys
*checkpoints* on how many pieces of each class it may (or must) have placed by given depths.

What emc does differently, and why:

* Tileability counts fillings in which a piece may appear more than once in the same patch.
  The count is then a product of small colour-transfer matrices (about a millisecond for
  Eternity II), which lets the hill-climb take thousands of steps a second; the paper's
  separate program counted for days. Repeats need a piece matching itself twice in a patch,
  rare enough that the ranking of groups hardly moves (the tests compare the count with an
  enumeration that allows repeats, the definition used here).
* The best fitting corner pieces per group (eii's 3x3 corner count) are not chosen: corners
  are always "bad" pieces here.
* A group holds as many edge pieces as the squares it is saved for (the last squares of the
  search order): left free, the climb takes nearly every edge piece into the group (they tile
  the patch's frame row), and the first rows, which must be filled with bad pieces, could not
  be (Eternity II kept 4 to 7 bad edge pieces for the 20 edge squares of its first four rows).
* The checkpoints shipped (:data:`EII_CHECKPOINTS`) are the four examples the paper gives:
  no good piece up to depth 63, at most 6 up to depth 79, every useless piece used by depth
  96, no precious piece up to depth 100. The paper says its real list was longer and tuned by
  hand; these are the ones it prints.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ...model import PieceClass, Puzzle

# classes of pieces
BAD, USELESS, GOOD, PRECIOUS = 0, 1, 2, 3
CLASS_NAMES = ("bad", "useless", "good", "precious")
# the counters the checkpoints bound (a piece adds to every counter its class belongs to)
C_GOOD, C_PRECIOUS, C_USELESS = 0, 1, 2
COUNTERS = {"good": C_GOOD, "precious": C_PRECIOUS, "useless": C_USELESS}

#: (counter, depth up to which it holds, at least, at most); None: no bound (seed 001).
EII_CHECKPOINTS = (
    ("good", 63, None, 0),
    ("good", 79, None, 6),
    ("useless", 96, "all", None),
    ("precious", 100, None, 0),
)
GROUP_SIZE = 180  # "a random group of maybe 180-190 pieces" (seed 001)
PRECIOUS_SHARE = 0.25  # emc's choice: the paper's picture has about a third of the good pieces precious
USELESS_SHARE = 0.25  # emc's choice: about 20 of the 76 bad pieces in the paper's picture are useless
PATIENCE = 2000  # swaps without improvement before a climb stops (emc's choice)


class _Counts:
    """The colour counts a tileability is computed from, kept up to date as pieces join and
    leave a group (a swap costs two small updates and one product, not a recount)."""

    def __init__(self, P: Puzzle):
        self.P = P
        self.C = C = int(P.max_colour) + 1
        self.NL = np.zeros((C, C, C))  # inner squares on the left: (top, right, bottom)
        self.NR = np.zeros((C, C, C))  # on the right: (top, left, bottom)
        self.EL = np.zeros((C, C))  # edge pieces, border on top, left square: (right, bottom)
        self.ER = np.zeros((C, C))  # right square: (left, bottom)

    def change(self, p: int, sign: int) -> None:
        P = self.P
        if P.piece_class[p] == PieceClass.INNER:
            for r in range(4):
                t, rt, b, lf = (int(v) for v in P.colours[p, r])
                self.NL[t, rt, b] += sign
                self.NR[t, lf, b] += sign
        elif P.piece_class[p] == PieceClass.EDGE:
            for r in range(4):
                t, rt, b, lf = (int(v) for v in P.colours[p, r])
                if t == 0:
                    self.EL[rt, b] += sign
                    self.ER[lf, b] += sign

    def value(self) -> float:
        """Rows of the patch from the top: F[a, b] frame pairs showing (a, b) below them; the
        middle row turns (a, b) into (c, d) through a shared colour x between its two squares;
        the bottom row needs only to match (c, d) on top. Summed in that order, never forming
        the whole (a, b) -> (c, d) matrix."""
        C = self.C
        F = self.EL.T @ self.ER  # (a, b): summed over the frame colour between the two
        G = (F.T @ self.NL.reshape(C, C * C)).reshape(C * C, C)  # rows (b, x), columns c
        V = G.T @ self.NR.reshape(C * C, C)  # (c, d) after the middle row
        L1 = self.NL.sum(axis=2)  # (c, x): left squares of the bottom row, any bottom
        R1 = self.NR.sum(axis=2)  # (d, x)
        return float((V * (L1 @ R1.T)).sum())


def _counts(P: Puzzle, group: np.ndarray) -> _Counts:
    c = _Counts(P)
    for p in np.flatnonzero(group):
        c.change(int(p), 1)
    return c


def tileability(P: Puzzle, group: np.ndarray) -> float:
    """Fillings of the 2x3 patch (two frame squares on top) by pieces of ``group`` (bool per
    piece), pieces allowed to repeat (see the module's docstring)."""
    return _counts(P, group).value()


def candidates(P: Puzzle) -> np.ndarray:
    """The pieces a group may hold: edge and inner pieces that are not hints."""
    ok = P.piece_class != PieceClass.CORNER
    for h in P.hints:
        ok[h.piece] = False
    return ok


def composition(P: Puzzle, order: np.ndarray | None, size: int) -> dict[int, int]:
    """How many edge and inner pieces a group of ``size`` holds: as many of each class as the
    last ``size`` edge and inner squares of ``order`` have (the squares the good pieces are
    saved for; the paper's picture has the bottom rows, which eii fills first, all bad), or
    in the puzzle's proportions without an order."""
    ok = candidates(P)
    if order is None:
        counts = np.bincount(P.piece_class[ok], minlength=2)[:2]
        share = counts / counts.sum()
        edge = int(round(size * share[PieceClass.EDGE]))
        return {int(PieceClass.EDGE): edge, int(PieceClass.INNER): size - edge}
    cls = P.cell_class[np.asarray(order)]
    last = cls[cls != PieceClass.CORNER][-size:]
    return {int(PieceClass.EDGE): int((last == PieceClass.EDGE).sum()),
            int(PieceClass.INNER): int((last == PieceClass.INNER).sum())}


def climb(P: Puzzle, rng: np.random.Generator, size: int = GROUP_SIZE, patience: int = PATIENCE,
          deadline: float | None = None, order: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """One hill-climb from a random group of ``size`` pieces (edge and inner pieces as
    :func:`composition` says; a swap keeps the class): (group, tileability)."""
    ok = candidates(P)
    comp = composition(P, order, size)
    group = np.zeros(P.n_pieces, dtype=bool)
    inside, outside = {}, {}
    for c, k in comp.items():
        pool = np.flatnonzero(ok & (P.piece_class == c))
        chosen = rng.choice(pool, min(k, len(pool)), replace=False)
        group[chosen] = True
        inside[c] = chosen.copy()
        outside[c] = np.setdiff1d(pool, chosen)
    classes = [c for c in comp if len(inside[c]) and len(outside[c])]
    counts = _counts(P, group)
    best = counts.value()
    stale = 0
    while stale < patience and classes and (deadline is None or time.monotonic() < deadline):
        c = classes[int(rng.integers(len(classes)))]
        i, j = int(rng.integers(len(inside[c]))), int(rng.integers(len(outside[c])))
        a, b = int(inside[c][i]), int(outside[c][j])
        counts.change(a, -1)
        counts.change(b, 1)
        t = counts.value()
        if t > best:
            best, stale = t, 0
            group[a], group[b] = False, True
            inside[c][i], outside[c][j] = b, a
        else:
            counts.change(b, -1)
            counts.change(a, 1)
            stale += 1
    return group, best


@dataclass
class Group:
    """A good group with its four classes of pieces (class per piece, :data:`CLASS_NAMES`)."""

    classes: np.ndarray
    tileability: float

    def counter_mask(self) -> np.ndarray:
        """Per piece, the counters it adds to (bit :data:`C_GOOD` etc.)."""
        m = np.zeros(len(self.classes), dtype=np.int64)
        m[(self.classes == GOOD) | (self.classes == PRECIOUS)] |= 1 << C_GOOD
        m[self.classes == PRECIOUS] |= 1 << C_PRECIOUS
        m[self.classes == USELESS] |= 1 << C_USELESS
        return m

    def size(self, counter: int) -> int:
        return int(((self.counter_mask() >> counter) & 1).sum())


def classify(P: Puzzle, group: np.ndarray, precious: float = PRECIOUS_SHARE, useless: float = USELESS_SHARE) -> Group:
    """Split a group's pieces into good and precious, the others (edge and inner pieces) into
    bad and useless, by how many patches each takes part in (counted with the group)."""
    counts = _counts(P, group)
    base = counts.value()
    part = np.zeros(P.n_pieces)
    cand = candidates(P)
    for p in np.flatnonzero(cand):
        sign = -1 if group[p] else 1
        counts.change(int(p), sign)
        part[p] = (base - counts.value()) * (-sign)
        counts.change(int(p), -sign)
    classes = np.full(P.n_pieces, BAD, dtype=np.int64)
    good = np.flatnonzero(group)
    classes[good] = GOOD
    k = int(round(precious * len(good)))
    if k:
        classes[good[np.argsort(-part[good], kind="stable")[:k]]] = PRECIOUS
    bad = np.flatnonzero(cand & ~group)
    k = int(round(useless * len(bad)))
    if k:
        classes[bad[np.argsort(part[bad], kind="stable")[:k]]] = USELESS
    for h in P.hints:
        classes[h.piece] = BAD
    return Group(classes, base)


def build_pool(P: Puzzle, seconds: float, seed: int = 0, keep: int = 60, size: int = GROUP_SIZE,
               patience: int = PATIENCE, precious: float = PRECIOUS_SHARE, useless: float = USELESS_SHARE,
               climbs: int | None = None, order: np.ndarray | None = None) -> list[Group]:
    """Hill-climbs for ``seconds`` (or ``climbs`` of them), the best ``keep`` groups classified
    (eii used its 60 best). A climb the time limit cuts short still counts."""
    rng = np.random.default_rng(seed)
    deadline = time.monotonic() + seconds
    found: list[tuple[float, np.ndarray]] = []
    while (climbs is None and (not found or time.monotonic() < deadline)) or (climbs is not None and
                                                                             len(found) < climbs):
        g, t = climb(P, rng, size, patience, None if climbs is not None else deadline, order)
        found.append((t, g))
    found.sort(key=lambda x: -x[0])
    return [classify(P, g, precious, useless) for _, g in found[:keep]]


def pool_document(P: Puzzle, pool: list[Group], **info) -> dict:
    return {
        "format": "emc-slip-groups", "version": 1, "puzzle": {"name": P.name, "sha256": P.sha256}, **info,
        "groups": [{"tileability": g.tileability,
                    **{name: (np.flatnonzero(g.classes == c) + 1).tolist() for c, name in enumerate(CLASS_NAMES)}}
                   for g in pool],
    }


def read_pool(path: str, P: Puzzle) -> list[Group]:
    """A pool written by :func:`pool_document` (``emc slip groups``)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as exc:
        raise InputError(f"cannot read it ({exc.strerror})", path) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not valid JSON ({getattr(exc, 'msg', exc)})", path, getattr(exc, "lineno", None)) from None
    if not isinstance(doc, dict) or doc.get("format") != "emc-slip-groups":
        raise InputError('not a group pool (no "format": "emc-slip-groups")', path, 1)
    if doc.get("puzzle", {}).get("sha256") != P.sha256:
        raise InputError(f"the groups were made for another puzzle than {P.name}", path)
    pool = []
    for k, g in enumerate(doc.get("groups", []), 1):
        classes = np.full(P.n_pieces, BAD, dtype=np.int64)
        for c, name in enumerate(CLASS_NAMES):
            for p in g.get(name, []):
                if not isinstance(p, int) or not 1 <= p <= P.n_pieces:
                    raise InputError(f"group {k}: {name} piece {p!r} is not 1..{P.n_pieces}", path)
                classes[p - 1] = c
        pool.append(Group(classes, float(g.get("tileability", 0))))
    if not pool:
        raise InputError("the file holds no group", path)
    return pool


def checkpoint_bounds(group: Group, n: int, checkpoints=EII_CHECKPOINTS) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi), int64[3, n + 1]: on the first ``d`` positions, between lo[k, d] and hi[k, d]
    pieces adding to counter k. A checkpoint (counter, depth, at least, at most) bounds every
    depth up to its own; "all" means every piece of the counter."""
    lo = np.zeros((3, n + 1), dtype=np.int64)
    hi = np.full((3, n + 1), n + 1, dtype=np.int64)
    for name, depth, least, most in checkpoints:
        k = COUNTERS[name]
        d = min(int(depth), n)
        if most is not None:
            hi[k, :d + 1] = np.minimum(hi[k, :d + 1], group.size(k) if most == "all" else int(most))
        if least is not None:
            lo[k, d] = max(lo[k, d], group.size(k) if least == "all" else int(least))
    return lo, hi
