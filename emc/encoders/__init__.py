"""Formulations of a sub-problem, one module each, and their registry.

``get_encoder(name)`` returns an encoder; ``FORMATS`` maps each ``emc export --format`` name
to the formulation that writes it. Adding a formulation is one line in each table.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import UnknownNameError
from ..model import Goal, Subproblem, require_subproblem
from .base import Encoder, Encoding

#: formulation name -> "module:Class" (imported on first use: solvers stay optional)
ENCODERS: dict[str, str] = {
    "minizinc": "emc.encoders.minizinc:MiniZincEncoder",
    "cpsat": "emc.encoders.cpsat:CpSatEncoder",
    "milp": "emc.encoders.milp:MilpEncoder",
    "clique": "emc.encoders.clique:CliqueEncoder",
    "cnf": "emc.encoders.cnf:CnfEncoder",
    "wcnf": "emc.encoders.cnf:WcnfEncoder",
}

#: Formulations whose files ask one question whatever --goal says: a CNF and a clique graph
#: ask for a perfect board (a model; a clique with one vertex per free cell), a WCNF for the
#: most matched edges (its soft clauses). The others (lp, mps, cpsat, mzn) take either goal.
FIXED_GOAL: dict[str, Goal] = {"cnf": Goal.FEASIBILITY, "clique": Goal.FEASIBILITY, "wcnf": Goal.OPTIMISATION}

#: export format -> (formulation, format name passed to Encoding.write)
FORMATS: dict[str, tuple[str, str]] = {
    "mzn": ("minizinc", "mzn"),
    "cpsat": ("cpsat", "cpsat"),
    "lp": ("milp", "lp"),
    "mps": ("milp", "mps"),
    "clq": ("clique", "clq"),
    "conflict": ("clique", "conflict"),
    "cnf": ("cnf", "cnf"),
    "wcnf": ("wcnf", "wcnf"),
    "wcnf-old": ("wcnf", "wcnf-old"),
}


def names() -> list[str]:
    """The registered formulations (encoder names)."""
    return list(ENCODERS)


def get_encoder(name: str) -> Encoder:
    """The encoder registered as ``name``; an unknown name lists the valid ones."""
    if name not in ENCODERS:
        raise UnknownNameError("formulation", name, names())
    module, cls = ENCODERS[name].split(":")
    return getattr(importlib.import_module(module), cls)()


def encode(subproblem: Subproblem, formulation: str, variant: str | None = None, **options: Any) -> Encoding:
    """``subproblem`` in ``formulation`` (one of :func:`names`: cnf, clique, milp, cpsat,
    minizinc, ...), as ``variant`` with the encoder's ``options`` (those of ``emc export -O``).
    The :class:`Encoding` writes the files ``emc export`` writes (``.write(path)``, the format
    from the suffix or ``fmt=``), reports ``.sizes()`` and turns a solver's answer back into a
    board (``.decode(answer)``). The goal is the sub-problem's: a CNF or clique graph always
    asks for a perfect fill."""
    require_subproblem(subproblem, "encode")
    return get_encoder(formulation).encode(subproblem, variant, **options)


def formulation_of_format(fmt: str) -> tuple[str, str]:
    """``(formulation, file format)`` of an ``emc export --format`` name (``lp`` ->
    ``("milp", "lp")``); an unknown name lists the valid ones."""
    if fmt not in FORMATS:
        raise UnknownNameError("export format", fmt, list(FORMATS))
    return FORMATS[fmt]


__all__ = ["ENCODERS", "FORMATS", "Encoder", "Encoding", "encode", "formulation_of_format", "get_encoder", "names"]
