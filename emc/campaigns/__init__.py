"""Campaigns: many runs of emc's methods and backends, on one machine or a Dask cluster, kept
in a results store, and reported beside the published figures.

* :mod:`~emc.campaigns.spec`: the TOML spec (instances x configurations x seeds x time limits
  x repetitions) and its checks;
* :mod:`~emc.campaigns.store`: the SQLite results store, written by one process;
* :mod:`~emc.campaigns.runner`: plans the runs, hands them out, writes what comes back;
* :mod:`~emc.campaigns.pool` and :mod:`~emc.campaigns.cluster`: local worker processes, or Dask;
* :mod:`~emc.campaigns.execute`: one run, in the worker, and the writer's check of its board;
* :mod:`~emc.campaigns.status` and :mod:`~emc.campaigns.report`: where a campaign stands, and
  its tables and plots;
* :mod:`~emc.campaigns.published`: the papers' figures emc ships as data.

From Python::

    from emc.campaigns import read_spec, run_campaign, LocalPool
    spec = read_spec("bench/campaigns/table5-short.toml")
    outcome = run_campaign(spec, "table5-short.db", LocalPool(2))
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "read_spec": "spec",
    "Spec": "spec",
    "Store": "store",
    "default_store": "store",
    "run_campaign": "runner",
    "Outcome": "runner",
    "LocalPool": "pool",
    "DaskCluster": "cluster",
    "write_report": "report",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
