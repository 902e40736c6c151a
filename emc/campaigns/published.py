"""The published figures emc ships as data, with their source: the tables of the papers emc
implements, transcribed from the papers (``emc/campaigns/published/seedNNN.toml``), so that a
campaign's report can put its own numbers beside them.

Each table has an ``id`` (``seed003-table5``), a title, its source, the setting it was measured
in (runs, time limits, machine) and rows of named columns. Tables of scores say which of their
columns the report compares (``compare``: ``max``, ``min``, ``avg``, ``std``, ``median``,
``time``, ``runs``), how their rows are matched to a campaign's (``instance`` and ``row``
columns), and what their time column means. The other tables (model sizes, node counts, the
record hunt's milestones) are there to read: ``emc campaign papers ID`` prints any of them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, UnknownNameError

FOLDER = Path(__file__).resolve().parent / "published"

#: What a score table's ``compare`` may map: report column -> meaning.
COMPARED = {"runs": "runs", "max": "max", "min": "min", "avg": "average", "std": "std dev", "median": "median",
            "time": "time (s)"}


@dataclass(frozen=True)
class Table:
    """One published table (or list of figures)."""

    id: str
    title: str
    source: str
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]
    headings: dict = field(default_factory=dict)
    compare: dict = field(default_factory=dict)
    time_means: str = ""
    runs: int | None = None
    machine: str = ""
    notes: str = ""
    file: str = ""

    def records(self) -> list[dict]:
        return [dict(zip(self.columns, r)) for r in self.rows]

    def heading(self, column: str) -> str:
        return self.headings.get(column, column)

    @property
    def comparable(self) -> bool:
        return bool(self.compare)

    def row_labels(self) -> list[str]:
        if "row" not in self.columns:
            return []
        seen: list[str] = []
        for r in self.records():
            if r["row"] not in seen:
                seen.append(r["row"])
        return seen

    @property
    def needs_row(self) -> bool:
        """Several configurations per instance: a campaign must say which row is its own."""
        return len(self.row_labels()) > 1

    def match(self, instance: str, row: str | None) -> dict | None:
        """The record for ``instance`` (and ``row``), or None. A table without an instance
        column matches any instance (the paper measured one puzzle it does not name)."""
        for r in self.records():
            if "instance" in r and r["instance"] != instance:
                continue
            if row is not None and r.get("row") != row:
                continue
            return r
        return None

    def figures(self, record: dict) -> dict:
        """The compared figures of ``record``: report column -> value (None where the paper
        gives none)."""
        out = {}
        for mine, theirs in self.compare.items():
            v = record.get(theirs)
            out[mine] = v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
        return out


@functools.lru_cache(maxsize=1)
def tables() -> dict[str, Table]:
    """Every shipped table by id, in file order."""
    import tomllib

    out: dict[str, Table] = {}
    for path in sorted(FOLDER.glob("seed*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for t in data.get("tables", []):
            columns = tuple(t["columns"])
            rows = tuple(tuple(r) for r in t["rows"])
            for r in rows:
                if len(r) != len(columns):
                    raise ValueError(f"{path.name}: {t['id']}: a row of {len(r)} values for {len(columns)} columns")
            compare = dict(t.get("compare", {}))
            for mine, theirs in compare.items():
                if mine not in COMPARED or theirs not in columns:
                    raise ValueError(f"{path.name}: {t['id']}: compare {mine} = {theirs} is not a column")
            out[t["id"]] = Table(t["id"], t["title"], data["source"], columns, rows, dict(t.get("headings", {})),
                                 compare, t.get("time_means", ""), t.get("runs"), t.get("machine", ""),
                                 t.get("notes", ""), data.get("file", ""))
    return out


def table(table_id: str) -> Table:
    """The table ``table_id``; an unknown id lists the valid ones."""
    all_tables = tables()
    if table_id not in all_tables:
        raise UnknownNameError("published table", table_id, list(all_tables))
    t = all_tables[table_id]
    return t


def comparable(table_id: str) -> Table:
    t = table(table_id)
    if not t.comparable:
        raise InputError(f"{t.id} ({t.title}) holds no score figures to report beside a campaign's; tables that do: "
                         f"{', '.join(x.id for x in tables().values() if x.comparable)}")
    return t
