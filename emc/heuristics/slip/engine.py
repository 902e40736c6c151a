"""One resumable slipping search (:mod:`.kernel` with its state arrays) and its per-depth
statistics (seed 001, "Determining the Search Order and Slip Array": visits, perfect and
half-fitting placements per depth, the numbers the estimator reads)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...model import Board
from . import kernel as K
from .plan import SlipPlan


@dataclass
class DepthStats:
    """Counts per position (index ``i`` is depth ``i + 1``) and hits per number of slips.

    ``visits[i]``: times the search reached position ``i``; ``slip_visits[i]``: those where it
    could still slip; ``perfect[i]`` / ``slipped[i]``: placements there matching every known
    side / all but one. ``hits[k]``: complete boards with ``k`` slips (score = max - k).
    Every placement but those on the last position leads to one visit of the next, so
    ``visits[i + 1] == perfect[i] + slipped[i]``."""

    visits: np.ndarray
    slip_visits: np.ndarray
    perfect: np.ndarray
    slipped: np.ndarray
    hits: np.ndarray
    nodes: int = 0
    seconds: float = 0.0  # CPU seconds of search behind these counts (summed over processes)
    info: dict = field(default_factory=dict)

    @classmethod
    def zeros(cls, n: int, most_slips: int) -> "DepthStats":
        z = lambda: np.zeros(max(n, 1), dtype=np.int64)  # noqa: E731
        return cls(z(), z(), z(), z(), np.zeros(most_slips + 1, dtype=np.int64))

    def add(self, other: "DepthStats") -> None:
        for name in ("visits", "slip_visits", "perfect", "slipped"):
            getattr(self, name)[:] += getattr(other, name)
        if len(other.hits) > len(self.hits):
            self.hits = np.concatenate([self.hits, np.zeros(len(other.hits) - len(self.hits), dtype=np.int64)])
        self.hits[:len(other.hits)] += other.hits
        self.nodes += other.nodes
        self.seconds += other.seconds

    def copy(self) -> "DepthStats":
        return DepthStats(self.visits.copy(), self.slip_visits.copy(), self.perfect.copy(), self.slipped.copy(),
                          self.hits.copy(), self.nodes, self.seconds, dict(self.info))

    def most_visited(self) -> int:
        """The most visited depth (1-based; 0 before any visit)."""
        return int(np.argmax(self.visits)) + 1 if self.visits.any() else 0

    def hits_by_score(self, max_score: int) -> dict[int, int]:
        return {max_score - k: int(v) for k, v in enumerate(self.hits) if v}

    def document(self, max_score: int) -> dict:
        return {
            "format": "emc-slip-stats", "version": 1, "nodes": int(self.nodes), "cpu_seconds": round(self.seconds, 3),
            "max_score": max_score, "hits": {str(s): n for s, n in sorted(self.hits_by_score(max_score).items())},
            "depth": list(range(1, len(self.visits) + 1)), "visits": self.visits.tolist(),
            "slip_visits": self.slip_visits.tolist(), "perfect": self.perfect.tolist(),
            "slipped": self.slipped.tolist(), **self.info,
        }


class SlipSearch:
    """One search over a (shuffled) plan with a slip array and optional piece counters."""

    def __init__(self, plan: SlipPlan, allow: np.ndarray, save_slips: int = -1,
                 ctr_mask: np.ndarray | None = None, lo: np.ndarray | None = None, hi: np.ndarray | None = None):
        n = plan.n
        self.plan = plan
        self.allow = np.ascontiguousarray(allow, dtype=np.int64)
        if len(self.allow) != n:
            raise ValueError("one allowance per position")
        self.counters = ctr_mask is not None
        if ctr_mask is None:
            ctr_mask = np.zeros(plan.puzzle.n_pieces, dtype=np.int64)
            lo = np.zeros((1, n + 1), dtype=np.int64)
            hi = np.full((1, n + 1), n + 1, dtype=np.int64)
        self.ctr_mask, self.lo, self.hi = ctr_mask, lo, hi
        self.cnt = np.zeros(lo.shape[0], dtype=np.int64)
        self.shown = plan.shown0.copy()
        self.used = plan.used0.copy()
        self.D = np.zeros((max(n, 1), K.N_G), dtype=np.int64)
        self.D[:, K.G_PIECE] = -1
        self.state = np.zeros(K.N_STATE, dtype=np.int64)
        self.state[K.S_BEST] = 1 << 40
        self.save_slips = int(save_slips)
        self.out_piece = np.zeros(max(n, 1), dtype=np.int64)
        self.out_rot = np.zeros(max(n, 1), dtype=np.int64)
        self.stats = DepthStats.zeros(n, int(self.allow.max()) if n else 0)

    @property
    def nodes(self) -> int:
        return int(self.state[K.S_NODES])

    @property
    def done(self) -> bool:
        return bool(self.state[K.S_DONE])

    @property
    def found(self) -> bool:
        """Whether the last :meth:`step` stopped on a board to hand back."""
        return bool(self.state[K.S_FOUND])

    @property
    def found_slips(self) -> int:
        return int(self.state[K.S_FOUND_SLIPS])

    @property
    def deepest(self) -> int:
        return int(self.state[K.S_DEEPEST])

    def step(self, budget: int) -> None:
        """Search on for ``budget`` more nodes, or until a board to hand back (:attr:`found`)."""
        p, st = self.plan, self.stats
        K.run(budget, p.n, p.S, p.C1, p.start, p.cand, p.cand_rot, self.shown, self.used, self.allow, self.counters,
              self.ctr_mask, self.lo, self.hi, self.cnt, self.D, self.state, self.save_slips, self.out_piece,
              self.out_rot, st.visits, st.slip_visits, st.perfect, st.slipped, st.hits)
        st.nodes = self.nodes

    def board(self) -> Board:
        """The board last handed back."""
        P = self.plan.puzzle
        b = Board.from_hints(P)
        for i, cell in enumerate(self.plan.order):
            b.place(int(cell), int(self.out_piece[i]), int(self.out_rot[i]))
        return b
