"""Time every CNF variant under Kissat and CaDiCaL, several runs per cell, and print medians.

Each run encodes a whole puzzle (feasibility, first corner pinned as everywhere in emc),
hands the clauses to one PySAT solver in a child process (one solver process at a time; a
run over the time limit is killed and counts as the limit) and checks the board it answers
with emc's verifier. Run ``s`` of a cell gives the solver the clauses in an order shuffled
by seed ``s`` (run 0: as written) and, for CaDiCaL, solver seed ``s``: CDCL times swing by
tens on one instance, so a cell's figure is the median of its runs. Example::

    python bench/cnf_variants.py --instances set2-6x6,set2-7x7 --seeds 0-4 --time-limit 300
    python bench/cnf_variants.py --instances gen:7x7:3:6:1-3 --variants old,default,ref-all

Instances are shipped names or ``gen:WxH:FRAME:INNER:SEEDS`` (emc.generate, planted
solution). Variants (``--variants``, comma list; ``all`` for every one):

emc's encoder (:mod:`emc.encoders.cnf`), named by what they add to ``old``:

    old            the encoding before issue 52: seqcounter at-most-one, colour-pair
                   redundant clauses, no forbidden-colour clauses
    default        emc's default options, whatever they are in this checkout
    pairwise       old + explicit (pairwise) at-most-one per cell and per piece
    forbid-piece   old + forbid=piece (a piece on a cell excludes the colours it never shows)
    forbid-place   old + forbid=placement (a placement excludes every colour it does not show)
    forbid-both    old + forbid=both
    two-families   old + pairwise at-most-one + forbid=piece: the reference's two families
    piece-support  old + piece_support (a piece on a cell shows one of its colours per side)
    triples        old + redundant=triples
    nopairs        old without the colour-pair clauses
    counts         old + colour_counts (colour balance)
    twins          old + twins (symmetry breaking among pieces equal up to rotation; the
                   planted puzzles of emc generate have them, set 2 has none)
    ...            any ``+``-joined mix of the atoms above and KEY=VALUE encoder options,
                   e.g. ``forbid-piece+card=pairwise``

a re-implementation of the reference encoding (Heule 2008, written here from the paper's
description: piece-on-cell variables without rotations, a colour variable per edge and
colour, exactly one colour per edge, support clauses and case clauses that tie a piece's
colours to one of its rotations):

    ref-plain      at-least-one per cell and per piece only
    ref-amo        + pairwise at-most-one per cell and per piece
    ref-forbid     + forbidden-colour clauses
    ref-all        + both (the reference's strongest variant)
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing as mp
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import emc
from emc.encoders import encode
from emc.model import Board, Goal, Subproblem

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import BenchError, guard, machine, puzzles, table  # noqa: E402

#: What each emc atom sets; ``old`` is the encoder's configuration before issue 52.
OLD = {"card": "seqcounter", "redundant": "pairs", "forbid": "none", "piece_support": False}
ATOMS: dict[str, dict] = {
    "old": {},
    "pairwise": {"card": "pairwise"},
    "forbid-piece": {"forbid": "piece"},
    "forbid-place": {"forbid": "placement"},
    "forbid-both": {"forbid": "both"},
    "two-families": {"card": "pairwise", "forbid": "piece"},
    "piece-support": {"piece_support": True},
    "triples": {"redundant": "triples"},
    "nopairs": {"redundant": "none"},
    "counts": {"colour_counts": True},
    "twins": {"twins": True},
}
REF = {"ref-plain": (False, False), "ref-amo": (True, False), "ref-forbid": (False, True), "ref-all": (True, True)}
DEFAULT_VARIANTS = "old,default,pairwise,forbid-piece,forbid-place,two-families,piece-support,ref-plain,ref-all"


def emc_options(name: str) -> dict | None:
    """Encoder options of an emc variant name (None for ``default``: the encoder's own)."""
    if name == "default":
        return None
    opts = dict(OLD)
    for atom in name.split("+"):
        if "=" in atom:
            k, v = atom.split("=", 1)
            opts[k] = {"true": True, "false": False}.get(v.lower(), v)
        elif atom in ATOMS:
            opts.update(ATOMS[atom])
        else:
            raise BenchError(f"unknown variant or atom {atom!r} (choose from: default, {', '.join(ATOMS)}, "
                             f"{', '.join(REF)}, or KEY=VALUE)")
    return opts


# ----------------------------------------------------------------------------- reference
class Reference:
    """The reference encoding of a whole puzzle (see the module docstring), with a decoder.

    Variables: ``p`` (piece on cell) for every pair with a rotation that fits the frame and
    the symmetry breaking (the same pairs as emc's placements), then ``c`` (edge, colour)
    for every colour both ends of an internal edge can show. Clauses:

    * every cell holds a piece and every piece is somewhere (at-least-one); twin pieces
      (equal up to rotation) never share a cell;
    * every edge has exactly one colour (at-least-one and pairwise at-most-one);
    * support: a piece on a cell shows on each side one of the colours its rotations there
      show; case clauses: with colour ``a`` on side ``s``, side ``t`` has a colour that a
      rotation showing ``a`` on ``s`` puts there; a colour that every rotation shows is
      shown somewhere; any colour pattern these still let through that is no rotation of
      the piece is forbidden by a clause of its own;
    * ``amo``: pairwise at-most-one per cell and per piece;
    * ``forbid``: a piece on a cell excludes, on each edge, the colours none of its rotations
      there shows on that side.
    """

    def __init__(self, puzzle, amo: bool, forbid: bool):
        self.puzzle = P = puzzle
        sp = Subproblem.whole(puzzle, Goal.FEASIBILITY)
        pl = sp.placements()
        shown = pl.shown(P)
        edges, esides = P.edges[sp.counted_edges()], P.edge_sides[sp.counted_edges()]
        self.edge_of = np.full((P.n_cells, 4), -1, dtype=np.int64)
        self.edge_of[edges[:, 0], esides[:, 0]] = np.arange(len(edges))
        self.edge_of[edges[:, 1], esides[:, 1]] = np.arange(len(edges))
        # rotations (and what they show) per (piece, cell) pair
        pairs: dict[tuple[int, int], list[tuple[int, tuple]]] = {}
        for i in range(len(pl)):
            pairs.setdefault((int(pl.piece[i]), int(pl.cell[i])), []).append((int(pl.rotation[i]), tuple(shown[i])))
        # colours each end of each edge can show
        K = int(P.max_colour) + 1
        ends = np.zeros((len(edges), 2, K), dtype=bool)
        for (p, c), rots in pairs.items():
            for s in range(4):
                e = self.edge_of[c, s]
                if e >= 0:
                    for _, sh in rots:
                        ends[e, int(edges[e, 0] != c), sh[s]] = True
        dom = ends[:, 0] & ends[:, 1]
        n = 0
        self.pvar: dict[tuple[int, int], int] = {}
        for key in sorted(pairs, key=lambda pc: (pc[1], pc[0])):
            n += 1
            self.pvar[key] = n
        self.cvar = np.zeros((len(edges), K), dtype=np.int64)
        for e in range(len(edges)):
            for k in np.flatnonzero(dom[e]):
                n += 1
                self.cvar[e, k] = n
        self.n_vars = n
        self.pairs = pairs
        cl: list[list[int]] = []
        by_cell: dict[int, list[int]] = {}
        by_piece: dict[int, list[int]] = {}
        for (p, c), v in self.pvar.items():
            by_cell.setdefault(c, []).append(v)
            by_piece.setdefault(p, []).append(v)
        cl += [vs for _, vs in sorted(by_cell.items())] + [[] for c in range(P.n_cells) if c not in by_cell]
        cl += [vs for _, vs in sorted(by_piece.items())] + [[] for p in range(P.n_pieces) if p not in by_piece]
        for g in puzzle.duplicate_groups():
            for a, b in itertools.combinations(sorted(g), 2):
                for c in range(P.n_cells):
                    if (a, c) in self.pvar and (b, c) in self.pvar:
                        cl.append([-self.pvar[a, c], -self.pvar[b, c]])
        for e in range(len(edges)):
            vs = self.cvar[e][self.cvar[e] > 0].tolist()
            cl.append(vs)
            cl += [[-a, -b] for a, b in itertools.combinations(vs, 2)]
        for (p, c), rots in sorted(pairs.items(), key=lambda kv: self.pvar[kv[0]]):
            cl += self._piece_clauses(self.pvar[p, c], c, rots, dom, forbid)
        if amo:
            for groups in (by_cell, by_piece):
                for _, vs in sorted(groups.items()):
                    cl += [[-a, -b] for a, b in itertools.combinations(vs, 2)]
        self.clauses = cl

    def _piece_clauses(self, v: int, cell: int, rots, dom, forbid: bool) -> list[list[int]]:
        sides = [s for s in range(4) if self.edge_of[cell, s] >= 0]
        ev = [self.edge_of[cell, s] for s in sides]
        tuples = {tuple(sh[s] for s in sides) for _, sh in rots}
        # a colour a rotation shows on an internal side that the edge cannot carry rules that rotation out
        tuples = {t for t in tuples if all(dom[e, k] for e, k in zip(ev, t))}
        if not tuples:
            return [[-v]]
        out = []
        col = lambda i, k: int(self.cvar[ev[i], k])  # noqa: E731
        seen = [sorted({t[i] for t in tuples}) for i in range(len(sides))]
        for i in range(len(sides)):
            out.append([-v] + [col(i, k) for k in seen[i]])  # support
            if forbid:
                out += [[-v, -col(i, k)] for k in np.flatnonzero(dom[ev[i]]) if k not in seen[i]]
            for a in seen[i]:
                for j in range(len(sides)):
                    if j != i:
                        out.append([-v, -col(i, a)] + [col(j, b) for b in sorted({t[j] for t in tuples if t[i] == a})])
        common = set.intersection(*(set(t) for t in tuples))
        for k in sorted(common):
            out.append([-v] + [col(i, k) for i in range(len(sides)) if k in seen[i]])
        # patterns the clauses above still allow that are no rotation (none for a piece whose
        # four rotations are all allowed: checked over every colouring of four sides)
        for t in itertools.product(*seen):
            if t in tuples:
                continue
            pairwise = all(t[j] in {u[j] for u in tuples if u[i] == t[i]}
                           for i in range(len(sides)) for j in range(len(sides)) if i != j)
            if pairwise and all(k in t for k in common):
                out.append([-v] + [-col(i, t[i]) for i in range(len(sides))])
        return out

    def decode(self, true: set[int]) -> Board:
        P = self.puzzle
        board = Board.from_hints(P)
        for (p, c), v in self.pvar.items():
            if v in true:
                sides = [s for s in range(4) if self.edge_of[c, s] >= 0]
                for r, sh in self.pairs[p, c]:
                    if all(self.cvar[self.edge_of[c, s], sh[s]] in true for s in sides):
                        board.place(c, p, r)
                        break
        return board


# ----------------------------------------------------------------------------- runs
def _child(conn, clauses, solver, seed):
    from pysat.solvers import Solver

    s = Solver(name=solver)
    if solver.startswith("cadical") and seed:
        s.solver.configure({"seed": int(seed)})
    s.append_formula(clauses)
    t0 = time.perf_counter()
    ok = s.solve()
    secs = time.perf_counter() - t0
    model = [v for v in s.get_model() if v > 0] if ok else None
    conn.send((ok, secs, model))
    conn.close()


def run_one(clauses, solver: str, seed: int, limit: float):
    """(status, seconds, true variables) of one solver run in a child process."""
    if seed:
        rng = np.random.default_rng(seed)
        clauses = [clauses[i] for i in rng.permutation(len(clauses))]
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, clauses, solver, seed), daemon=True)
    proc.start()
    send.close()
    try:
        if recv.poll(limit + 5):
            try:
                ok, secs, model = recv.recv()
            except EOFError:
                raise BenchError(f"the {solver} process ended without an answer (out of memory?)") from None
            return ("sat" if ok else "unsat"), secs, model
        return "timeout", limit, None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()


def build(puzzle, variant: str):
    """(clauses, variables, decode) of one variant on a whole puzzle."""
    if variant in REF:
        ref = Reference(puzzle, *REF[variant])
        return ref.clauses, ref.n_vars, lambda true: ref.decode(set(true))
    opts = emc_options(variant)
    enc = encode(Subproblem.whole(puzzle, Goal.FEASIBILITY), "cnf", **(opts or {}))
    return enc.clauses(), enc.n_vars, lambda true: enc.decode(true)


def fmt_median(times: list[float], statuses: list[str], limit: float) -> str:
    m = statistics.median(times)
    timeouts = statuses.count("timeout")
    if timeouts * 2 >= len(times) and m >= limit:
        return f"> {limit:g}"
    return f"{m:.2f}" + (f" ({timeouts} > {limit:g})" if timeouts else "")


def seeds_of(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        try:
            out += list(range(int(lo), int(hi or lo) + 1))
        except ValueError:
            raise BenchError(f"--seeds: {text!r} is not a list like 0-4 or 0,2,5") from None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="set2-6x6,set2-7x7,set2-8x8")
    ap.add_argument("--variants", default=DEFAULT_VARIANTS, help="comma list (see above), or 'all'")
    ap.add_argument("--solvers", default="kissat404,cadical195")
    ap.add_argument("--seeds", default="0-2", help="runs per cell: clause-order (and CaDiCaL) seeds, e.g. 0-4")
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per run (default 120)")
    args = ap.parse_args(argv)

    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if variants == ["all"]:
        variants = ["default", *ATOMS, *REF]
    from emc.encoders.cnf import CnfEncoder

    for v in variants:  # every name and option value checked before the first run
        if v not in REF:
            CnfEncoder().check_options(emc_options(v) or {})
    from emc.backends.sat import canonical_solver

    solvers = [canonical_solver(s) for s in args.solvers.split(",")]
    seeds = seeds_of(args.seeds)
    print(f"# {machine()}")
    print(f"# {' '.join(['python', 'bench/cnf_variants.py'] + (argv if argv is not None else sys.argv[1:]))}")
    print(f"# time limit {args.time_limit:g} s per run, seeds {args.seeds}, solve time only (encoding apart)")
    head = f"{'instance':<14} {'variant':<16} {'solver':<11} {'seed':>4} {'vars':>7} {'clauses':>8} {'encode':>7} {'seconds':>8} status"
    print(head)
    print("-" * len(head), flush=True)
    results: dict[tuple[str, str, str], list[tuple[float, str]]] = {}
    sizes: dict[tuple[str, str], tuple[int, int]] = {}
    for spec, puzzle in puzzles(args.instances):
        for variant in variants:
            t0 = time.perf_counter()
            clauses, n_vars, decode = build(puzzle, variant)
            enc_s = time.perf_counter() - t0
            sizes[spec, variant] = (n_vars, len(clauses))
            for solver in solvers:
                for seed in seeds:
                    status, secs, model = run_one(clauses, solver, seed, args.time_limit)
                    if status == "sat" and not emc.verify(puzzle, decode(model)).solved:
                        status = "WRONG"  # never expected: the variant's models are not the puzzle's boards
                    results.setdefault((spec, variant, solver), []).append((secs, status))
                    print(f"{spec:<14} {variant:<16} {solver:<11} {seed:>4} {n_vars:>7} {len(clauses):>8} "
                          f"{enc_s:>7.2f} {secs:>8.2f} {status}", flush=True)
    print()
    print(f"Median solve seconds over seeds {args.seeds} (both: over the runs of both solvers; "
          f"'> L': most runs hit the limit)")
    print()
    rows = []
    for spec, _ in puzzles(args.instances):
        for variant in variants:
            row = [spec, variant, f"{sizes[spec, variant][0]:,}", f"{sizes[spec, variant][1]:,}"]
            every_t, every_s = [], []
            for solver in solvers:
                rs = results[spec, variant, solver]
                t, s = [x[0] for x in rs], [x[1] for x in rs]
                every_t += t
                every_s += s
                row.append(fmt_median(t, s, args.time_limit))
            row.append(fmt_median(every_t, every_s, args.time_limit))
            rows.append(row)
    print(table(["instance", "variant", "variables", "clauses", *solvers, "both"], rows, right={2, 3, 4, 5, 6, 7}))
    wrong = [k for k, rs in results.items() if any(s == "WRONG" for _, s in rs)]
    if wrong:
        print(f"WRONG boards from: {wrong}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(guard(main))
