"""Solver backends, one module per solver family, and their registry.

``get_backend(name)`` returns a backend; an unknown name lists the valid ones. Adding a
backend is one line in :data:`BACKENDS`.
"""

from __future__ import annotations

import importlib

from ..errors import UnknownNameError
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


__all__ = ["BACKENDS", "Backend", "BackendError", "Capability", "CountResult", "Result", "Status", "backend_class", "get_backend", "names"]
