"""The region-decomposition matheuristic of Salassa, Vancroonenburg, Wauters, Della Croce and
Vanden Berghe (seed 000, sections 3-4).

* :mod:`~emc.heuristics.decomposition.construction`: region decompositions, the greedy (Algorithm 1) and
  backtracking (Algorithm 2, no-good cut (17)) constructive heuristics over any backend;
* :mod:`~emc.heuristics.decomposition.neighbourhoods`: TA, BO, BW, TSR and RO;
* :mod:`~emc.heuristics.decomposition.local_search`: the steepest-descent driver cycling through them;
* :mod:`~emc.heuristics.decomposition.run`: a whole run (construct + improve) and its JSON result;
* :mod:`~emc.heuristics.decomposition.kernels`: the compiled (numba) inner loops.

The names below are imported on first use, so ``import emc.heuristics`` stays cheap (numba
and the solvers load only when a heuristic runs)::

    from emc.heuristics import greedy, improve, matheuristic, RunConfig
    built = greedy(puzzle, backend="cbc", region="1xW")
    better = improve(puzzle, built.board, time_limit=60)
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "regions": "decomposition.construction",
    "greedy": "decomposition.construction",
    "backtracking": "decomposition.construction",
    "construct": "decomposition.construction",
    "ConstructResult": "decomposition.construction",
    "improve": "decomposition.local_search",
    "random_board": "core.starts",
    "LocalSearchParams": "decomposition.local_search",
    "LocalSearchResult": "decomposition.local_search",
    "NEIGHBOURHOODS": "decomposition.neighbourhoods",
    "PAPER_ORDER": "decomposition.neighbourhoods",
    "matheuristic": "decomposition.run",
    "RunConfig": "decomposition.run",
    "RunResult": "decomposition.run",
    "result_document": "decomposition.run",
    "write_result": "decomposition.run",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
