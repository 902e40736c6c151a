"""eii's Markov-chain estimate of nodes per board at a score, and the slip-array tuner (seed
001, "Determining the Search Order and Slip Array" and its appendix).

From a run's per-depth counts (:class:`.engine.DepthStats`), each depth ``d`` has a perfect
branching factor ``p_d`` (perfect placements per visit) and a half-fit factor ``h_d``
(placements slipping one edge per visit where slipping was allowed). The chain's state is
(depth, slips so far); from ``(d, s)`` it goes to ``(d + 1, s)`` ``p_d`` times on average and,
while ``s`` is below the slip array's allowance at ``d``, to ``(d + 1, s + 1)`` ``h_d`` times.
The forward recurrence over (depth, slips) gives the expected nodes at every state of a whole
search tree, hence the expected boards with ``k`` slips and the nodes per board of each score
(eii's ``nrNodes``/``mergeRatios`` compute the same numbers as branching factors per depth).

Another order puts other squares at each depth. As eii assumes, the matching odds at a depth
are a property of the heuristics and the pieces left, not of the order: from the measured
order, each depth gets a per-edge match probability ``q_d`` with ``p_d = m_d q_d^k_d`` (``m_d``
the turned pieces of the square's class still unused, ``k_d`` its known sides), and the other
order's factors follow from its own ``m``, ``k`` and slippable sides ``j``: ``p = m q^k`` and
``h = c m j q^(k-1) (1 - q)``, ``c`` calibrated on the measured ``h`` where slipping was seen.
Depths the measuring run never reached take the mean ``q`` of the deepest well-visited ones.

:func:`tune` searches slip arrays (and, given several, orders) for the fewest estimated nodes
per board at a target score: coordinate descent over the depths where each allowance step
starts, from the best of a few spread-out arrays, which is how eii's author refined arrays
score by score.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ...model import PieceClass, Puzzle
from . import kernel as K
from .engine import DepthStats
from .orders import SlipArray, order_cells
from .plan import make_plan

MIN_VISITS = 100  # depths visited fewer times take the extrapolated q


@dataclass
class Shape:
    """Per position of an order: turned pieces of its class left (m), known sides (k),
    slippable known sides (j)."""

    m: np.ndarray
    k: np.ndarray
    j: np.ndarray


def order_shape(P: Puzzle, order: np.ndarray) -> Shape:
    plan = make_plan(P, order)
    n = plan.n
    cls = plan.cell_class
    left = {c: int(((P.piece_class == c) & (plan.used0 == 0)).sum()) for c in (0, 1, 2)}
    m = np.zeros(n)
    for i in range(n):
        c = int(cls[i])
        m[i] = left[c] * (4 if c == PieceClass.INNER else 1)
        left[c] -= 1
    slips = plan.S[:n, K.F_SLIPS]
    j = np.array([bin(int(v)).count("1") for v in slips], dtype=np.int64)
    return Shape(m, plan.known.astype(np.int64), j)


@dataclass
class Factors:
    """Branching factors per position: perfect ``p`` and half-fit ``h`` (per visit)."""

    p: np.ndarray
    h: np.ndarray


def measured_factors(st: DepthStats) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(p, h, p known, h known) from counts."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(st.visits > 0, st.perfect / np.maximum(st.visits, 1), 0.0)
        h = np.where(st.slip_visits > 0, st.slipped / np.maximum(st.slip_visits, 1), 0.0)
    return p, h, st.visits >= MIN_VISITS, st.slip_visits >= MIN_VISITS


def edge_odds(st: DepthStats, shape: Shape) -> tuple[np.ndarray, float]:
    """Per-depth match probability q (extrapolated past the measured depths) and the half-fit
    calibration c, from counts taken with the order of ``shape``."""
    p, h, pk, hk = measured_factors(st)
    n = len(shape.m)
    q = np.full(n, np.nan)
    ok = pk & (shape.k > 0) & (shape.m > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        q[ok] = np.clip(p[ok] / shape.m[ok], 1e-12, 1.0) ** (1.0 / shape.k[ok])
    good = np.flatnonzero(ok)
    if len(good) == 0:
        raise InputError("the statistics hold no depth visited often enough to estimate from (run longer)")
    tail = float(np.nanmean(q[good[-10:]]))
    last = good[-1]
    q[last + 1:] = tail
    q = np.where(np.isnan(q), tail, q)  # the few unmeasured depths before (squares with no known side)
    model_h = shape.m * shape.j * q ** np.maximum(shape.k - 1, 0) * (1 - q)
    sel = hk & (model_h > 0)
    c = float(np.median(h[sel] / model_h[sel])) if sel.any() else 1.0
    return q, c


def factors_for(st: DepthStats, measured: Shape, target: Shape, same_order: bool) -> Factors:
    """The factors of ``target``'s order, from counts taken with ``measured``'s order. With
    the same order, measured factors are used wherever depths were visited enough."""
    q, c = edge_odds(st, measured)
    p = target.m * q ** target.k
    h = c * target.m * target.j * q ** np.maximum(target.k - 1, 0) * (1 - q)
    if same_order:
        pm, hm, pk, hk = measured_factors(st)
        p = np.where(pk, pm, p)
        h = np.where(hk, hm, h)
    h = np.where(target.j > 0, h, 0.0)
    return Factors(p, h)


def chain(f: Factors, allow: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The forward recurrence: (expected nodes placed at each position, expected complete
    boards by number of slips) of one whole search tree."""
    n = len(f.p)
    S = int(allow.max()) if n else 0
    N = np.zeros(S + 1)
    N[0] = 1.0
    nodes = np.zeros(n)
    for d in range(n):
        nxt = N * f.p[d]
        a = int(allow[d])
        if a > 0 and f.h[d] > 0:
            nxt[1:a + 1] += N[:a] * f.h[d]
        nodes[d] = nxt.sum()
        N = nxt
    return nodes, N


def nodes_per_hit(f: Factors, allow: np.ndarray, max_score: int) -> dict[int, float]:
    """Expected nodes per complete board of at least each reachable score."""
    nodes, boards = chain(f, allow)
    total = nodes.sum()
    out = {}
    for k in range(len(boards)):
        b = boards[:k + 1].sum()
        out[max_score - k] = total / b if b > 0 else float("inf")
    return out


def read_stats(path: str) -> tuple[DepthStats, dict]:
    """Counts written by a search (``--stats FILE``)."""
    try:
        with open(path) as fh:
            doc = json.load(fh)
    except OSError as exc:
        raise InputError(f"cannot read it ({exc.strerror})", path) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not valid JSON ({getattr(exc, 'msg', exc)})", path, getattr(exc, "lineno", None)) from None
    if not isinstance(doc, dict) or doc.get("format") != "emc-slip-stats":
        raise InputError('not slip statistics (no "format": "emc-slip-stats")', path, 1)
    try:
        arrs = [np.array(doc[k], dtype=np.int64) for k in ("visits", "slip_visits", "perfect", "slipped")]
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"the per-depth counts are missing or not whole numbers ({exc})", path) from None
    if len({len(a) for a in arrs}) != 1:
        raise InputError("the per-depth lists differ in length", path)
    mx = int(doc.get("max_score", 0))
    hits = np.zeros(max([mx - int(s) for s in doc.get("hits", {})] + [0]) + 1, dtype=np.int64)
    for s, v in doc.get("hits", {}).items():
        hits[mx - int(s)] = v  # boards with exactly this score
    st = DepthStats(*arrs, hits=hits, nodes=int(doc.get("nodes", 0)), seconds=float(doc.get("cpu_seconds", 0)))
    return st, doc


def estimate(P: Puzzle, st: DepthStats, measured_order: str, order: str, array: SlipArray) -> dict[int, float]:
    """Nodes per board of at least each score for ``order`` and ``array``."""
    ms = order_shape(P, order_cells(measured_order, P))
    ts = ms if order == measured_order else order_shape(P, order_cells(order, P))
    f = factors_for(st, ms, ts, order == measured_order)
    return nodes_per_hit(f, array.allowances(len(ts.m)), P.max_score)


def _allow_from_steps(steps: np.ndarray, n: int) -> np.ndarray:
    allow = np.zeros(n, dtype=np.int64)
    for t in steps:
        allow[int(t):] += 1
    return allow


def tune(P: Puzzle, st: DepthStats, measured_order: str, target: int, orders: list[str] | None = None,
         start: SlipArray | None = None, rounds: int = 20) -> tuple[str, SlipArray, float]:
    """The order (of ``orders``) and slip array with the fewest estimated nodes per board of at
    least ``target``: (order, array, nodes per board)."""
    slips = P.max_score - target
    if slips < 0:
        raise InputError(f"target {target} is above the puzzle's maximum {P.max_score}")
    orders = orders or [measured_order]
    ms = order_shape(P, order_cells(measured_order, P))
    best = (None, None, float("inf"))
    for order in orders:
        ts = ms if order == measured_order else order_shape(P, order_cells(order, P))
        f = factors_for(st, ms, ts, order == measured_order)
        n = len(ts.m)
        slip_pos = np.flatnonzero(ts.j > 0)
        if slips and len(slip_pos) == 0:
            continue

        def cost(steps: np.ndarray) -> float:
            nodes, boards = chain(f, _allow_from_steps(steps, n))
            b = boards[:slips + 1].sum()
            return float(nodes.sum() / b) if b > 0 else float("inf")

        # starting points: the given array cut or padded to ``slips`` steps, and even spreads
        starts = []
        if start is not None:
            a = start.allowances(n)
            st_steps = sorted(int(np.searchsorted(a, k)) for k in range(1, min(slips, a.max()) + 1))
            while len(st_steps) < slips:
                st_steps.append(min(n - 1, (st_steps[-1] + 2) if st_steps else n // 2))
            starts.append(np.array(sorted(st_steps[:slips])))
        for first in (0.3, 0.5, 0.65, 0.75, 0.85):
            starts.append(np.linspace(int(first * n), n - 2, slips).astype(np.int64) if slips else np.zeros(0, int))
        cur, cur_cost = None, float("inf")
        for s0 in starts:
            c0 = cost(s0)
            if c0 < cur_cost:
                cur, cur_cost = s0.copy(), c0
        for _ in range(rounds):
            improved = False
            for idx in range(slips):
                for delta in (-16, 16, -8, 8, -4, 4, -2, 2, -1, 1):
                    trial = cur.copy()
                    trial[idx] = np.clip(trial[idx] + delta, 0, n - 1)
                    trial.sort()
                    c = cost(trial)
                    if c < cur_cost * (1 - 1e-9):
                        cur, cur_cost, improved = trial, c, True
            if not improved:
                break
        if cur_cost < best[2]:
            arr = SlipArray.from_allowances(_allow_from_steps(cur, n), 1, name=f"tuned-{target}", order=order,
                                            info={"target": target, "estimated_nodes_per_board": cur_cost})
            best = (order, arr, cur_cost)
    if best[0] is None:
        raise InputError(f"no order given allows slipping: cannot reach {target}")
    return best
