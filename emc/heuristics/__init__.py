"""The region-decomposition matheuristic of Salassa, Vancroonenburg, Wauters, Della Croce and
Vanden Berghe (seed 000, sections 3-4).

* :mod:`~emc.heuristics.construction`: region decompositions, the greedy (Algorithm 1) and
  backtracking (Algorithm 2, no-good cut (17)) constructive heuristics over any backend;
* :mod:`~emc.heuristics.neighbourhoods`: TA, BO, BW, TSR and RO;
* :mod:`~emc.heuristics.local_search`: the steepest-descent driver cycling through them;
* :mod:`~emc.heuristics.run`: a whole run (construct + improve) and its JSON result;
* :mod:`~emc.heuristics.kernels`: the compiled (numba) inner loops.

The names below are imported on first use, so ``import emc.heuristics`` stays cheap (numba
and the solvers load only when a heuristic runs)::

    from emc.heuristics import greedy, improve, matheuristic, RunConfig
    built = greedy(puzzle, backend="cbc", region="1xW")
    better = improve(puzzle, built.board, time_limit=60)
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "regions": "construction",
    "greedy": "construction",
    "backtracking": "construction",
    "construct": "construction",
    "ConstructResult": "construction",
    "improve": "local_search",
    "random_board": "local_search",
    "LocalSearchParams": "local_search",
    "LocalSearchResult": "local_search",
    "NEIGHBOURHOODS": "neighbourhoods",
    "PAPER_ORDER": "neighbourhoods",
    "matheuristic": "run",
    "RunConfig": "run",
    "RunResult": "run",
    "result_document": "run",
    "write_result": "run",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
