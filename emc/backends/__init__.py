"""Solver backends, one module per solver family, and their registry.

``get_backend(name)`` returns a backend; an unknown name lists the valid ones. Adding a
backend is one file (``TEMPLATE.py`` shows the contract) and one line in :data:`BACKENDS`.
The defaults (which backend answers which task when none is named, and the portfolio's
members) come from the backends' own :attr:`Backend.priority`, so nothing else needs an edit.
"""

from __future__ import annotations

import importlib

from ..errors import InputError, UnknownNameError
from .base import Backend, BackendError, Capability, CountResult, Result, Status

#: backend name -> "module:Class" (imported on first use: solvers stay optional)
BACKENDS: dict[str, str] = {
    "cpsat": "emc.backends.cpsat:CpSatBackend",
    "sat": "emc.backends.sat:SatBackend",
    "maxsat": "emc.backends.sat:MaxSatBackend",
    "highs": "emc.backends.milp:HighsBackend",
    "cbc": "emc.backends.milp:CbcBackend",
    "clique": "emc.backends.clique:CliqueBackend",
    "minizinc": "emc.backends.minizinc:MiniZincBackend",
    "backtrack": "emc.backends.backtrack:BacktrackBackend",
    "portfolio": "emc.backends.portfolio:PortfolioBackend",
    "colorpair": "emc.backends.colorpair:ColorPairBackend",
}

#: The tasks a backend may declare a default rank for (:attr:`Backend.priority`).
TASKS: dict[str, str] = {
    "feasibility": "a perfect board of a whole puzzle (emc solve)",
    "optimisation": "the most matched edges of a whole puzzle (emc solve --goal optimisation)",
    "region optimisation": "the most matched edges of a sub-problem (emc solve --fixed ... --free ...)",
    "enumeration": "counting solutions (emc count)",
    "heuristic": "the sub-problems the heuristics send: regions, the frame, windows (backend 'auto')",
    "race feasibility": "the portfolio's two members for a perfect board",
    "race optimisation": "the portfolio's two members for the most matched edges",
}


def names() -> list[str]:
    return list(BACKENDS)


def backend_class(name: str) -> type[Backend]:
    if not isinstance(name, str):
        raise TypeError(f"a backend is named by a string ({', '.join(names())}), not {name!r}")
    if name not in BACKENDS:
        raise UnknownNameError("backend", name, names())
    module, cls = BACKENDS[name].split(":")
    return getattr(importlib.import_module(module), cls)


def get_backend(name: str) -> Backend:
    """An instance of the backend registered as ``name``."""
    return backend_class(name)()


def ranked(task: str) -> list[str]:
    """The backends that declare a rank for ``task``, best first (installed or not)."""
    if task not in TASKS:
        raise UnknownNameError("task", task, list(TASKS))
    ranks = {n: backend_class(n).priority.get(task) for n in BACKENDS}
    return sorted((n for n, r in ranks.items() if r is not None), key=lambda n: (ranks[n], n))


def default_backend(task: str = "feasibility") -> str:
    """The best-ranked installed backend for ``task``."""
    for name in ranked(task):
        if backend_class(name).available():
            return name
    raise InputError(f"no solver backend for {task} is available: pip install 'emc[all]'")


def pick_backend(name: str | None) -> str | None:
    """``name``, or for ``"auto"`` the heuristics' default: the best-ranked installed backend
    for the task ``heuristic`` (none installed: the best-ranked, whose install hint is then
    shown when it is used)."""
    if name != "auto":
        return name
    order = ranked("heuristic")
    return next((b for b in order if backend_class(b).available()), order[0])


def race_members(task: str) -> tuple[str, ...]:
    """The two best-ranked installed backends for ``task`` (``race feasibility`` or ``race
    optimisation``): the members a portfolio races when none are named (the two best-ranked,
    installed or not, when fewer than two are installed, so the missing one is named)."""
    order = ranked(task)
    installed = [b for b in order if backend_class(b).available()]
    return tuple(installed[:2] if len(installed) >= 2 else order[:2])


__all__ = ["BACKENDS", "TASKS", "Backend", "BackendError", "Capability", "CountResult", "Result", "Status",
           "backend_class", "default_backend", "get_backend", "names", "pick_backend", "race_members", "ranked"]
