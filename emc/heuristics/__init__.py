"""Score-maximising methods, one sub-package per algorithm family, and their registry.

* :mod:`~emc.heuristics.core`: what the families share: the method contract and its result
  (:mod:`~emc.heuristics.core.method`), starting boards;
* :mod:`~emc.heuristics.decomposition`: the region-decomposition matheuristic of Salassa et
  al. (seed 000), method ``matheuristic``.

``get_method(name)`` returns a method; an unknown name lists the valid ones. Adding a method
is one file (``TEMPLATE.py`` shows the contract) and one line in :data:`METHODS`.
:func:`optimise` runs any of them::

    import emc
    run = emc.optimise(emc.load("meta-10x10"), method="matheuristic", time_limit=60, seed=1)
    run.score, run.board, run.trajectory

The matheuristic's parts keep their own entry points (imported on first use, so ``import
emc.heuristics`` stays cheap)::

    from emc.heuristics import greedy, improve, matheuristic, RunConfig
    built = greedy(puzzle, backend="cbc", region="1xW")
    better = improve(puzzle, built.board, time_limit=60)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Callable

from ..errors import UnknownNameError

if TYPE_CHECKING:  # pragma: no cover
    from ..model import Board, Puzzle
    from .core.method import Method, Progress, RunResult

#: method name -> "module:Class" (imported on first use)
METHODS: dict[str, str] = {
    "matheuristic": "emc.heuristics.decomposition.method:Matheuristic",
    "gao": "emc.heuristics.gao.method:GuideAndObserve",
    "tabu": "emc.heuristics.tabu.method:TabuSearch",
    "slip": "emc.heuristics.slip.method:Slip",
}


def names() -> list[str]:
    return list(METHODS)


def method_class(name: str) -> type[Method]:
    if not isinstance(name, str):
        raise TypeError(f"a method is named by a string ({', '.join(names())}), not {name!r}")
    if name not in METHODS:
        raise UnknownNameError("method", name, names())
    module, cls = METHODS[name].split(":")
    return getattr(importlib.import_module(module), cls)


def get_method(name: str) -> Method:
    """An instance of the method registered as ``name``."""
    return method_class(name)()


def optimise(puzzle: Puzzle, method: str = "matheuristic", *, time_limit: float | None = None, seed: int = 0,
             options: dict[str, Any] | None = None, on_progress: Callable[[Progress], None] | None = None,
             start_board: Board | None = None, **more: Any) -> RunResult:
    """Run the method ``method`` on ``puzzle`` and return its :class:`~emc.heuristics.core.method.RunResult`.

    Options go in ``options`` or as keywords (``emc.optimise(p, "matheuristic", ta_n=500)``);
    ``emc methods`` lists every method's options and defaults. See
    :meth:`emc.heuristics.core.method.Method.run` for the rest.
    """
    given = dict(options or {})
    for key, value in more.items():
        if key in given:
            raise TypeError(f"optimise(): option {key!r} given twice (in options and as a keyword)")
        given[key] = value
    return get_method(method).run(puzzle, time_limit=time_limit, seed=seed, options=given, on_progress=on_progress,
                                  start_board=start_board)


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
    "MatheuristicRun": "decomposition.run",
    "RunResult": "core.method",
    "result_document": "decomposition.run",
    "write_result": "decomposition.run",
    "Method": "core.method",
    "Option": "core.method",
    "Progress": "core.method",
}

__all__ = sorted(set(_EXPORTS) | {"METHODS", "get_method", "method_class", "names", "optimise"})


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
