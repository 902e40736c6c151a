"""A campaign's report, from its store alone: tables per instance and configuration beside the
published figures, plots, the best boards, the record hunt's finds and the failed runs.

:func:`write_report` writes into a folder:

* ``report.md`` and ``report.html``: the same page, in Markdown and as a standalone HTML file;
* ``plots/INSTANCE-time.png|svg``: best score against time, the median and the quartiles of the
  runs of each configuration; ``plots/INSTANCE-scores.png|svg``: the final scores, per
  configuration (boxes and every run);
* ``boards/INSTANCE.png``: the best board of each instance, drawn by :func:`emc.render.render`;
* ``hardness/CONFIG-WxH-MODEL-LIMIT.json|png``: for backend solves of generated puzzles
  (``generate:`` instances), the hardness sweep they make (:func:`hardness_sweeps`): the
  document of ``emc hardness --json`` and its curve;
* with ``csv``: ``runs.csv`` (every run), ``summary.csv`` (the tables), ``boards.csv`` (hunts);
  with ``json_export``: ``report.json`` (all of it, with trajectories and boards).

The statistics: ``max``, ``min``, ``average`` of the final scores of the runs done; ``std dev``
is the sample standard deviation (n - 1), as papers report it; ``median time to best`` is the
median over the runs of the seconds to each run's best board. Failed runs are counted apart and
enter no statistic.
"""

from __future__ import annotations

import csv as csv_module
import io
import json
import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from ..io import atomic_write, write_text
from .machine import describe
from .published import Table, tables
from .store import Store


@dataclass
class Group:
    """The runs of one instance x configuration x time limit."""

    instance: str
    puzzle_sha256: str
    max_score: int
    config: str
    label: str
    kind: str
    task: str
    time_limit: float | None
    runs: list[dict] = field(default_factory=list)  # done
    failed: int = 0
    paper: dict | None = None

    @property
    def scores(self) -> list[int]:
        return [r["score"] for r in self.runs if r["score"] is not None]

    def stats(self) -> dict:
        s = self.scores
        ttb = [r["time_to_best"] for r in self.runs if r["time_to_best"] is not None]
        el = [r["elapsed"] for r in self.runs if r["elapsed"] is not None]
        return {
            "runs": len(self.runs), "failed": self.failed, "with_board": len(s),
            "max": max(s) if s else None, "min": min(s) if s else None,
            "mean": statistics.fmean(s) if s else None,
            "std": statistics.stdev(s) if len(s) >= 2 else None,
            "median": statistics.median(s) if s else None,
            "median_time_to_best": statistics.median(ttb) if ttb else None,
            "mean_elapsed": statistics.fmean(el) if el else None,
        }

    def work_stats(self) -> dict:
        """Median work and speed of the runs: the method's own unit (iterations, moves, nodes)
        and, when its details hold them, evaluated neighbours; both per second of the run."""
        work = [r for r in self.runs if r["iterations"] is not None and r["elapsed"]]
        evals = [(r["details"]["evaluations"], r["elapsed"]) for r in self.runs
                 if isinstance(r.get("details"), dict) and r["details"].get("evaluations") is not None and r["elapsed"]]
        return {
            "unit": self.runs[0]["unit"] if self.runs else None,
            "median_work": statistics.median(r["iterations"] for r in work) if work else None,
            "median_rate": statistics.median(r["iterations"] / r["elapsed"] for r in work) if work else None,
            "median_evaluations": statistics.median(e for e, _ in evals) if evals else None,
            "evaluations_per_second": statistics.median(e / t for e, t in evals) if evals else None,
        }

    def count_stats(self) -> dict:
        counts = [r["count"] for r in self.runs if r["count"] is not None]
        el = [r["elapsed"] for r in self.runs if r["elapsed"] is not None]
        return {"runs": len(self.runs), "failed": self.failed, "complete": sum(bool(r["complete"]) for r in self.runs),
                "min_count": min(counts) if counts else None, "max_count": max(counts) if counts else None,
                "median_time": statistics.median(el) if el else None, "max_time": max(el) if el else None}

    def published(self) -> tuple[Table, dict] | None:
        if not self.paper:
            return None
        t = tables().get(self.paper["table"])
        if t is None:
            return None
        rec = t.match(self.instance, self.paper.get("row"))
        return (t, rec) if rec is not None else None


@dataclass
class Report:
    store: str
    campaigns: list[dict]
    groups: list[Group]
    instances: list[str]
    failures: list[dict]
    boards: list[dict]
    machines: dict
    sessions: list[dict]
    runs: list[dict]
    counts: dict
    written: list[str] = field(default_factory=list)
    best: dict = field(default_factory=dict)  # instance -> best run
    sweeps: list[dict] = field(default_factory=list)  # hardness sweeps (hardness_sweeps)
    swept: set = field(default_factory=set)  # id() of the groups in a sweep

    def score_groups(self, instance: str) -> list[Group]:
        return [g for g in self.groups if g.instance == instance and g.task != "count"]

    def count_groups(self, instance: str) -> list[Group]:
        return [g for g in self.groups if g.instance == instance and g.task == "count"]

    def text_tables(self) -> str:
        """The tables as plain text (what the command prints)."""
        out = []
        for inst in self.instances:
            for title, heads, rows in _instance_tables(self, inst):
                out.append(f"{inst}: {title}")
                out.append(_plain(heads, rows))
                out.append("")
        for sw in self.sweeps:
            heads, rows, peak = _sweep_table(sw)
            out += [f"hardness sweep: {_sweep_title(sw)}", _plain(heads, rows), peak, ""]
        if self.boards:
            heads, rows = _hunt_table(self)
            out += ["record hunt: boards kept as found", _plain(heads, rows), ""]
        if self.failures:
            out.append(f"{len(self.failures)} failed run{'s' if len(self.failures) != 1 else ''} (report.md lists them)")
        return "\n".join(out).rstrip()

    def written_summary(self) -> list[str]:
        return self.written


# --------------------------------------------------------------------------- collecting


def collect(store: Store) -> Report:
    runs = store.runs()
    configs = store.configs()
    groups: dict[tuple, Group] = {}
    instances: list[str] = []
    failures = []
    for r in runs:
        for k in ("trajectory", "resolved_options", "details", "options", "paper"):
            if isinstance(r.get(k), str):
                r[k] = json.loads(r[k])
        if r["instance"] not in instances:
            instances.append(r["instance"])
        key = (r["instance"], r["puzzle_sha256"], r["config"], r["time_limit"])
        g = groups.get(key)
        if g is None:
            c = configs[r["config"]]
            g = groups[key] = Group(r["instance"], r["puzzle_sha256"], r["max_score"], r["config"], c["label"],
                                    c["kind"], c["task"], r["time_limit"], paper=c["paper"])
        if r["status"] == "done":
            g.runs.append(r)
        elif r["status"] == "failed":
            g.failed += 1
            failures.append(r)
    counts = {s: sum(r["status"] == s for r in runs) for s in ("done", "failed", "pending", "running")}
    rep = Report(str(store.path), store.campaigns(), list(groups.values()), instances, failures, store.boards(),
                 store.machines(), store.sessions(), runs, counts)
    for inst in instances:
        done = [r for r in runs if r["instance"] == inst and r["status"] == "done" and r["board"]
                and r["score"] is not None]
        if done:
            rep.best[inst] = max(done, key=lambda r: (r["score"], -(r["time_to_best"] or 0.0), -r["id"]))
    rep.sweeps = hardness_sweeps(rep, store)
    return rep


# --------------------------------------------------------------------------- hardness sweeps


def _measure_of(config: dict, runs: list[dict]) -> str | None:
    """The ``emc hardness --backend`` a backend configuration's runs are, if they are one: the
    same backend and options exactly, one thread, a feasibility solve, solver seed 0."""
    from ..hardness import MEASURES

    if config["threads"] != 1 or any(r["seed"] != 0 for r in runs):
        return None
    for m in MEASURES.values():
        if m.backend == config["name"] and (config["options"] or {}) == dict(m.options):
            return m.name
    return None


def hardness_sweeps(rep: Report, store: Store) -> list[dict]:
    """The hardness sweeps a campaign holds: its feasibility solves (backends) of generated
    puzzles, grouped by configuration, time limit, board size, model and whether the pieces
    were drawn distinct. Each is a document of ``emc hardness --json``
    (:func:`emc.hardness.sweep`) built from the runs done: one row per run (several when the
    campaign has several seeds or repetitions), the cost as ``emc hardness`` counts it (seconds
    in the SAT solver, nodes of the scan-row search, seconds of any other backend; a run
    stopped by the limit counts at the limit), the median per colour count and the peak. It is
    ``complete`` when every run of its puzzles is done and none failed. When the configuration
    is exactly one of ``emc hardness``'s measures (:func:`_measure_of`) the document is a
    ``--store`` file that ``emc hardness`` grows; otherwise its ``measure`` is the
    configuration's label, which no ``emc hardness --backend`` matches."""
    from ..generate import MODELS
    from ..hardness import MEASURES, cost_row, summarise

    configs = store.configs()
    provenance: dict[str, dict] = {}
    by: dict[tuple, list[tuple]] = {}  # key -> (order, row)
    heads: dict[tuple, dict] = {}
    for g in rep.groups:
        c = configs[g.config]
        if g.kind != "backend" or g.task != "solve" or c["goal"] != "feasibility" or g.time_limit is None:
            continue
        if g.puzzle_sha256 not in provenance:
            provenance[g.puzzle_sha256] = dict(store.puzzle(g.puzzle_sha256).provenance or {})
        prov = provenance[g.puzzle_sha256]
        model = prov.get("model", "frame-inner")
        if prov.get("generator") != "emc.generate" or model not in MODELS:
            continue
        distinct = bool(prov.get("distinct"))
        key = (g.config, g.time_limit, prov["width"], prov["height"], model, distinct)
        head = heads.setdefault(key, {"configuration": g.label + (", distinct pieces" if distinct else ""),
                                      "config": c, "runs": [], "failed": 0, "groups": [],
                                      # as emc hardness's measures count
                                      "unit": "nodes" if c["name"] == "backtrack" else "seconds"})
        head["failed"] += g.failed
        head["runs"] += g.runs
        head["groups"].append(g)
        params = {k: prov[k] for k in MODELS[model].params}
        for r in g.runs:
            d = r["details"] or {}
            if d.get("status") not in ("optimal", "unknown"):  # a planted puzzle is never infeasible
                head["failed"] += 1
                continue
            row = {"params": params, "seed": prov["seed"], "puzzle": g.instance, "puzzle_sha256": g.puzzle_sha256,
                   "planted_verified": True, "time_limit": g.time_limit,
                   **cost_row(c["name"], head["unit"], d["status"] == "optimal", d.get("stats") or {}, r["elapsed"],
                              g.time_limit)}
            order = (tuple(params[k] for k in MODELS[model].params), prov["seed"], r["id"])
            by.setdefault(key, []).append((order, row))
    out = []
    pending = rep.counts["pending"] + rep.counts["running"]
    for key, ordered in by.items():
        _, limit, width, height, model, distinct = key
        head = heads[key]
        c = head["config"]
        measure = None if distinct else _measure_of(c, head["runs"])
        rows = [row for _, row in sorted(ordered, key=lambda x: x[0])]
        doc = {"format": "emc-hardness-sweep", "version": 1, "width": width, "height": height, "model": model,
               "measure": measure or head["configuration"], "backend": c["name"],
               "solver": dict(MEASURES[measure].options).get("solver") if measure
               else (c["options"] or {}).get("solver"), "cost": head["unit"], "time_limit": limit,
               "seeds": sorted({x["seed"] for x in rows}), "rows": rows,
               "complete": pending == 0 and head["failed"] == 0}
        doc["points"], doc["peak"] = summarise(width, height, model, rows)
        doc["configuration"] = head["configuration"]
        rep.swept.update(id(g) for g in head["groups"])
        out.append(doc)
    return out


def _sweep_title(sw: dict) -> str:
    return (f"{sw['width']}x{sw['height']}, model {sw['model']}, {sw['configuration']}, limit {sw['time_limit']:g} s"
            + ("" if sw["complete"] else " (runs not all done)"))


def _sweep_table(sw: dict) -> tuple[list[str], list[list[str]], str]:
    from ..hardness import cost_text, params_text, peak_text

    heads = ["colours", "runs", "stopped", f"median {sw['cost']}", "min", "max", "log10 E[sol]"]
    rows = []
    for pt in sw["points"]:
        mark = " (peak)" if pt["params"] == sw["peak"]["params"] else ""
        rows.append([params_text(pt["params"]) + mark, str(pt["instances"]), str(pt["timeouts"]),
                     (">= " if pt["median_is_lower_bound"] else "") + cost_text(pt["median"], sw["cost"]),
                     cost_text(min(pt["costs"]), sw["cost"]), cost_text(max(pt["costs"]), sw["cost"]),
                     f"{pt['log10_expected_solutions']:.1f}"])
    return heads, rows, peak_text(sw)


def _sweep_slug(sw: dict) -> str:
    return _slug(f"{sw['configuration']}-{sw['width']}x{sw['height']}-{sw['model']}-{sw['time_limit']:g}s")


# --------------------------------------------------------------------------- tables


def _num(v, digits: int = 2) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v)) if digits == 0 else f"{v:.{digits}f}"
        return f"{v:.{digits}f}"
    return str(v)


def _count(v) -> str:
    """A count or rate, whole, with thousands separators."""
    return "-" if v is None else f"{v:,.0f}"


def _paper_num(v) -> str:
    """A published figure as the paper prints it (TOML keeps 170.4 as 170.4)."""
    if v is None:
        return "-"
    if isinstance(v, float):
        return repr(v) if abs(v) < 1e7 else f"{v:,.1f}"
    return str(v)


def _limit(tl) -> str:
    return "-" if tl is None else f"{tl:g}"


SCORE_HEADS = ["configuration", "time limit (s)", "runs", "max", "min", "average", "std dev", "median time to best (s)"]


def _instance_tables(rep: Report, inst: str) -> list[tuple[str, list[str], list[list[str]]]]:
    out = []
    groups = rep.score_groups(inst)
    if groups:
        rows = []
        for g in groups:
            s = g.stats()
            runs = str(s["runs"]) + (f" (+{s['failed']} failed)" if s["failed"] else "")
            rows.append([g.label, _limit(g.time_limit), runs, _num(s["max"]), _num(s["min"]), _num(s["mean"]),
                         _num(s["std"]), _num(s["median_time_to_best"], 1)])
            pub = g.published()
            if pub is not None:
                t, rec = pub
                f = t.figures(rec)
                limit = rec.get("time_limit")
                row = f" {rec['row']}" if rec.get("row") is not None else ""
                time_text = _paper_num(f.get("time")) + (" *" if f.get("time") is not None else "")
                rows.append([f"  paper: {_table_name(t)}{row}", _limit(limit) if limit is not None else "-",
                             _paper_num(t.runs), _paper_num(f.get("max")), _paper_num(f.get("min")),
                             _paper_num(f.get("avg")), _paper_num(f.get("std")), time_text])
        out.append(("scores (matched edges)", SCORE_HEADS, rows))
        work = _work_rows(groups)
        if work:
            out.append(("work and speed (medians over the runs, per second of the run)", WORK_HEADS, work))
    counts = rep.count_groups(inst)
    if counts:
        rows = []
        for g in counts:
            s = g.count_stats()
            rows.append([g.label, _limit(g.time_limit), str(s["runs"]), str(s["complete"]), _num(s["min_count"]),
                         _num(s["max_count"]), _num(s["median_time"], 2), _num(s["max_time"], 2)])
        out.append(("solutions counted", ["configuration", "time limit (s)", "runs", "complete", "min count",
                                          "max count", "median time (s)", "max time (s)"], rows))
    return out


WORK_HEADS = ["configuration", "unit", "work", "per second", "evaluations", "evaluations per second"]


def _work_rows(groups: list[Group]) -> list[list[str]]:
    """The work table's rows, or none when no run recorded its work."""
    rows = []
    for g in groups:
        w = g.work_stats()
        if w["median_work"] is None and w["median_evaluations"] is None:
            continue
        rows.append([g.label, w["unit"] or "-", _count(w["median_work"]), _count(w["median_rate"]),
                     _count(w["median_evaluations"]), _count(w["evaluations_per_second"])])
        pub = g.published()
        if pub is not None and pub[1].get("evaluations") is not None:
            t, rec = pub
            limit = rec.get("time_limit")
            rows.append([f"  paper: {_table_name(t)}", "-", "-", "-", _count(rec["evaluations"]),
                         _count(rec["evaluations"] / limit if limit else None)])
    return rows


def _table_name(t: Table) -> str:
    m = re.match(r"seed(\d+)-table(\w+)", t.id)
    if not m:
        return t.id
    roman = {"2": "II", "3": "III", "4": "IV", "5": "V", "6": "VI"}
    num = roman.get(m.group(2), m.group(2)) if m.group(1) == "003" else m.group(2)
    return f"seed {m.group(1)} Table {num}"


def _hunt_table(rep: Report) -> tuple[list[str], list[list[str]]]:
    rows = []
    by_inst: dict[str, list[dict]] = {}
    for b in rep.boards:
        by_inst.setdefault(b["instance"], []).append(b)
    for inst, boards in by_inst.items():
        runs = [r for r in rep.runs if r["instance"] == inst and r["threshold"] is not None]
        thresholds = sorted({r["threshold"] for r in runs})
        hours = sum((r["elapsed"] or 0.0) for r in runs if r["status"] == "done") / 3600
        scores = sorted({b["score"] for b in boards}, reverse=True)
        found = ", ".join(f"{sum(b['score'] == s for b in boards)} x {s}" for s in scores)
        rate = len(boards) / hours if hours > 0 else None
        rows.append([inst, ", ".join(map(str, thresholds)) or "-", str(len(boards)), found,
                     _num(hours, 3), _num(rate, 1)])
    return ["instance", "threshold", "boards", "scores found", "CPU hours (runs done)", "boards per CPU hour"], rows


def _plain(heads: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(heads)]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(heads, widths)))]
    for r in rows:
        lines.append("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(r, widths))))
    return "\n".join(lines)


def _md(heads: list[str], rows: list[list[str]], numeric: set[int] | None = None) -> str:
    """A Markdown table; columns in ``numeric`` (default: all but the first) right-aligned."""
    def esc(s: str) -> str:
        return s.replace("|", "\\|")

    numeric = set(range(1, len(heads))) if numeric is None else numeric
    lines = ["| " + " | ".join(esc(h) for h in heads) + " |",
             "|" + "|".join("---:" if i in numeric else "---" for i in range(len(heads))) + "|"]
    for r in rows:
        cells = [esc(c) for c in r]
        if cells[0].startswith("  paper: "):
            cells[0] = "*paper: " + cells[0][len("  paper: "):] + "*"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.") or "instance"


# --------------------------------------------------------------------------- plots


def _figure():
    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = "emc-campaign"  # the same SVG for the same store
    from matplotlib.figure import Figure

    return Figure(figsize=(7.0, 4.2), dpi=100, layout="constrained")


def _save(fig, path: Path) -> None:
    meta = {"Date": None} if path.suffix == ".svg" else {"Software": None} if path.suffix == ".png" else {}
    with atomic_write(path, "wb") as f:
        fig.savefig(f, format=path.suffix[1:], metadata=meta)


def best_so_far(trajectory: list[dict], grid) -> list[float]:
    """A run's best score at each time of ``grid`` (NaN before its first board)."""
    out, i, best = [], 0, math.nan
    points = sorted(((p["time"], p["score"]) for p in trajectory), key=lambda x: x[0])
    for t in grid:
        while i < len(points) and points[i][0] <= t:
            best = points[i][1] if math.isnan(best) else max(best, points[i][1])
            i += 1
        out.append(best)
    return out


def _time_plot(rep: Report, inst: str, folder: Path) -> list[Path]:
    import numpy as np

    groups = [g for g in rep.score_groups(inst) if any(r["trajectory"] for r in g.runs)]
    if not groups:
        return []
    end = max(max((r["elapsed"] or 0.0) for r in g.runs) for g in groups)
    end = max(end, max((g.time_limit or 0.0) for g in groups), 1e-3)
    grid = np.linspace(0.0, end, 400)
    fig = _figure()
    ax = fig.add_subplot()
    for g in groups:
        curves = np.array([best_so_far(r["trajectory"] or [], grid) for r in g.runs], dtype=float)
        have = (~np.isnan(curves)).sum(axis=0)
        ok = have * 2 >= len(g.runs)  # shown where at least half the runs have a board
        if not ok.any():
            continue
        q1, med, q3 = (np.full(len(grid), np.nan) for _ in range(3))
        cols = curves[:, ok]
        with np.errstate(all="ignore"):
            q1[ok], med[ok], q3[ok] = np.nanpercentile(cols, [25, 50, 75], axis=0)
        name = g.label + (f" ({_limit(g.time_limit)} s)" if len({x.time_limit for x in groups}) > 1 else "")
        line, = ax.plot(grid, med, drawstyle="steps-post", label=f"{name}: median of {len(g.runs)}")
        ax.fill_between(grid, q1, q3, step="post", alpha=0.25, color=line.get_color(), linewidth=0)
    ax.set_xlabel("seconds into the run")
    ax.set_ylabel(f"best score (matched edges of {groups[0].max_score})")
    ax.set_title(f"{inst}: best score against time (median, quartiles shaded)")
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(True, alpha=0.3)
    paths = []
    for ext in ("png", "svg"):
        p = folder / f"{_slug(inst)}-time.{ext}"
        _save(fig, p)
        paths.append(p)
    return paths


def _score_plot(rep: Report, inst: str, folder: Path) -> list[Path]:
    import numpy as np

    groups = [g for g in rep.score_groups(inst) if g.scores]
    if not groups:
        return []
    fig = _figure()
    ax = fig.add_subplot()
    data = [g.scores for g in groups]
    import matplotlib

    sideways = {"orientation": "horizontal"} if tuple(int(x) for x in matplotlib.__version__.split(".")[:2]) >= (3, 10) \
        else {"vert": False}
    ax.boxplot(data, widths=0.5, showfliers=False, **sideways)
    rng = np.random.default_rng(0)  # the same jitter every time
    for i, scores in enumerate(data, start=1):
        ax.scatter(scores, i + rng.uniform(-0.18, 0.18, len(scores)), s=14, alpha=0.7, zorder=3)
    ax.set_yticks(range(1, len(groups) + 1),
                  [g.label + (f" ({_limit(g.time_limit)} s)" if g.time_limit is not None else "") for g in groups])
    ax.set_xlabel(f"final score (matched edges of {groups[0].max_score})")
    ax.set_title(f"{inst}: score distribution per configuration")
    ax.grid(True, axis="x", alpha=0.3)
    paths = []
    for ext in ("png", "svg"):
        p = folder / f"{_slug(inst)}-scores.{ext}"
        _save(fig, p)
        paths.append(p)
    return paths


# --------------------------------------------------------------------------- the page


def _markdown(rep: Report, pictures: dict[str, dict[str, str]]) -> str:
    names = ", ".join(c["name"] for c in rep.campaigns) or "(no campaign)"
    c = rep.counts
    out = [f"# Campaign report: {names}", "",
           f"Store `{rep.store}`: {len(rep.runs)} runs, {c['done']} done, {c['failed']} failed, "
           f"{c['pending'] + c['running']} not run yet.", ""]
    if rep.machines:
        out += ["**Machines**", ""]
        for mid, m in sorted(rep.machines.items()):
            n = sum(r["machine_id"] == mid for r in rep.runs)
            if n:
                out.append(f"- {describe(m)} ({n} run{'s' if n != 1 else ''})")
        out.append("")
    if rep.sessions:
        heads = ["session", "campaign", "state", "executor", "host", "started", "ended"]
        names_by_id = {x["id"]: x["name"] for x in rep.campaigns}
        rows = [[str(s["id"]), names_by_id.get(s["campaign_id"], "?"), s["state"], s["executor"], s["host"],
                 _when(s["started"]), _when(s["ended"])] for s in rep.sessions]
        out += ["**Sessions**", "", _md(heads, rows, numeric={0}), ""]
    marks = set()
    for inst in rep.instances:
        groups = rep.score_groups(inst) + rep.count_groups(inst)
        max_score = groups[0].max_score if groups else None
        out += [f"## {inst}", "", f"{max_score} edges to match." if max_score else "", ""]
        for title, heads, rows in _instance_tables(rep, inst):
            out += [f"**{title[0].upper()}{title[1:]}**", "", _md(heads, rows), ""]
        for g in rep.score_groups(inst):
            pub = g.published()
            if pub is not None:
                marks.add(pub[0].id)
        pics = pictures.get(inst, {})
        for kind, caption in (("time", "best score against time"), ("scores", "score distribution"),
                              ("board", "best board")):
            if kind in pics:
                out += [f"![{inst}: {caption}]({pics[kind]})", ""]
        if inst in rep.best:
            b = rep.best[inst]
            out += [f"Best board: {b['score']}/{b['max_score']} by {b['label']}, seed {b['seed']}, found "
                    f"{b['time_to_best']:.1f} s into the run.", ""]
    if marks:
        out += ["## The published figures", "",
                "Rows in italics are the papers' (`emc campaign papers ID` prints a whole table). Their time "
                "column (*) is:", ""]
        for tid in sorted(marks):
            t = tables()[tid]
            out.append(f"- **{_table_name(t)}** ({t.title}): {t.time_means or 'no time given'}; "
                       f"{t.runs or '?'} runs; {t.machine or 'machine not given'}. {t.notes} Source: {t.source}.")
        out.append("")
    if rep.sweeps:
        out += ["## Hardness sweeps", "",
                "Backend solves of generated puzzles, per configuration, time limit, size and model: the median "
                "cost of each colour count (runs the limit stopped count at the limit; `>=` marks a median that "
                "is only a lower bound) and the peak, as `emc hardness` measures them.", ""]
        for sw in rep.sweeps:
            heads, rows, peak = _sweep_table(sw)
            out += [f"**{_sweep_title(sw)}**", "", _md(heads, rows, numeric={1, 2, 3, 4, 5, 6}), "", peak + ".", ""]
            for kind, caption in (("png", "the curve"), ("json", "the sweep")):
                if kind in sw.get("files", {}):
                    out += ([f"![{_sweep_title(sw)}]({sw['files'][kind]})", ""] if kind == "png"
                            else [f"The sweep: [{sw['files'][kind]}]({sw['files'][kind]}).", ""])
    if rep.boards:
        heads, rows = _hunt_table(rep)
        out += ["## Record hunt", "", "Boards at or above the hunt's threshold, stored as the runs found them.", "",
                _md(heads, rows), ""]
        if any(inst.startswith("eternity2") for inst in {b["instance"] for b in rep.boards}):
            t = tables()["seed001-rates"]
            out.append("For scale, Verhaard's eii (seed 001) found boards of 463 or more on Eternity II at these "
                       "rates per CPU and hour: " +
                       "; ".join(f"{r['per_cpu_hour']} ({r['when']}, {r['solver']})" for r in t.records()) +
                       f". Source: {t.source}.")
            out.append("")
    if rep.failures:
        heads = ["instance", "configuration", "seed", "error"]
        rows = [[r["instance"], r["label"], str(r["seed"]), r["error"] or "?"] for r in rep.failures]
        out += ["## Failed runs", "", _md(heads, rows, numeric={2}), ""]
    out += ["---", "", "Statistics over the runs done: std dev is the sample standard deviation (n - 1); median "
            "time to best is the median of the runs' seconds to their best board. Written by `emc campaign report` "
            "from the store alone.", ""]
    return "\n".join(out)


def _when(t) -> str:
    if t is None:
        return "-"
    import datetime

    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; }
td.num, th.num { text-align: right; }
tr.paper td { font-style: italic; color: #555; background: #f6f6f6; }
img { max-width: 100%; display: block; margin: 0.5em 0 1em; }
code { background: #f3f3f3; padding: 0 0.2em; }
</style></head><body>
{{ body }}
</body></html>
"""


def _html(markdown_text: str) -> str:
    """The Markdown page as HTML: the small subset :func:`_markdown` writes (headings, tables,
    images, lists, paragraphs, bold, italics, code)."""
    import html

    from jinja2 import Template

    def inline(s: str) -> str:
        s = html.escape(s, quote=False)
        s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
        s = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", s)
        s = re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"<em>\1</em>", s)
        return s

    lines = markdown_text.splitlines()
    body: list[str] = []
    i = 0
    title = "Campaign report"
    while i < len(lines):
        line = lines[i]
        if line.startswith("# "):
            title = line[2:]
            body.append(f"<h1>{inline(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{inline(line[3:])}</h2>")
        elif line.startswith("!["):
            m = re.match(r"!\[(.*)\]\((.*)\)", line)
            body.append(f'<img src="{html.escape(m.group(2))}" alt="{html.escape(m.group(1))}">')
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", lines[i])[1:-1]])
                i += 1
            i -= 1
            head, aligns, data = rows[0], rows[1], rows[2:]
            nums = [a.endswith(":") for a in aligns]
            t = ["<table><thead><tr>" + "".join(f'<th class="{"num" if n else ""}">{inline(h)}</th>'
                                                for h, n in zip(head, nums)) + "</tr></thead><tbody>"]
            for r in data:
                paper = r[0].startswith("*paper:")
                cells = [r[0].strip("*")] + r[1:] if paper else r
                t.append(f'<tr class="{"paper" if paper else ""}">' + "".join(
                    f'<td class="{"num" if n else ""}">{inline(c)}</td>' for c, n in zip(cells, nums)) + "</tr>")
            t.append("</tbody></table>")
            body.append("\n".join(t))
        elif line.startswith("- "):
            items = []
            while i < len(lines) and lines[i].startswith("- "):
                items.append(f"<li>{inline(lines[i][2:])}</li>")
                i += 1
            i -= 1
            body.append("<ul>" + "".join(items) + "</ul>")
        elif line.strip() == "---":
            body.append("<hr>")
        elif line.strip():
            body.append(f"<p>{inline(line)}</p>")
        i += 1
    return Template(_HTML).render(title=title, body="\n".join(body))


# --------------------------------------------------------------------------- exports


RUN_COLUMNS = ["campaign", "instance", "configuration", "config_key", "kind", "name", "task", "options", "seed",
               "time_limit", "repetition", "status", "score", "max_score", "time_to_best", "elapsed", "iterations",
               "unit", "stopped_by", "count", "complete", "error", "worker", "started", "ended", "emc_version",
               "machine"]

SUMMARY_COLUMNS = ["instance", "configuration", "config_key", "time_limit", "runs", "failed", "max", "min", "mean",
                   "std", "median", "median_time_to_best", "paper_table", "paper_row", "paper_runs", "paper_max",
                   "paper_min", "paper_avg", "paper_std", "paper_median", "paper_time", "paper_time_means",
                   "unit", "median_work", "median_rate", "median_evaluations", "evaluations_per_second",
                   "paper_evaluations"]


def _run_record(rep: Report, r: dict) -> dict:
    names = {c["id"]: c["name"] for c in rep.campaigns}
    m = rep.machines.get(r["machine_id"]) if r.get("machine_id") is not None else None
    return {"campaign": names.get(r["campaign_id"]), "instance": r["instance"], "configuration": r["label"],
            "config_key": r["config"], "kind": r["kind"], "name": r["name"], "task": r["task"],
            "options": r["options"], "seed": r["seed"], "time_limit": r["time_limit"], "repetition": r["repetition"],
            "status": r["status"], "score": r["score"], "max_score": r["max_score"], "time_to_best": r["time_to_best"],
            "elapsed": r["elapsed"], "iterations": r["iterations"], "unit": r["unit"], "stopped_by": r["stopped_by"],
            "count": r["count"], "complete": None if r["complete"] is None else bool(r["complete"]),
            "error": r["error"], "worker": r["worker"], "started": r["started"], "ended": r["ended"],
            "emc_version": r["emc_version"], "machine": describe(m) if m else None}


def summary_records(rep: Report) -> list[dict]:
    out = []
    for g in rep.groups:
        if g.task == "count":
            continue
        s = g.stats()
        rec = {"instance": g.instance, "configuration": g.label, "config_key": g.config, "time_limit": g.time_limit,
               "runs": s["runs"], "failed": s["failed"], "max": s["max"], "min": s["min"], "mean": s["mean"],
               "std": s["std"], "median": s["median"], "median_time_to_best": s["median_time_to_best"],
               **g.work_stats()}
        pub = g.published()
        if pub is not None:
            t, row = pub
            f = t.figures(row)
            rec["paper_evaluations"] = row.get("evaluations")
            rec.update(paper_table=t.id, paper_row=row.get("row"), paper_runs=t.runs, paper_max=f.get("max"),
                       paper_min=f.get("min"), paper_avg=f.get("avg"), paper_std=f.get("std"),
                       paper_median=f.get("median"), paper_time=f.get("time"), paper_time_means=t.time_means or None)
        out.append({k: rec.get(k) for k in SUMMARY_COLUMNS})
    return out


def _csv(columns: list[str], rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv_module.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: (json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v) for k, v in r.items()})
    return buf.getvalue()


# --------------------------------------------------------------------------- writing


def write_report(store_path, out_dir, csv: bool = False, json_export: bool = False, plots: bool = True) -> Report:
    """Write the report of the store at ``store_path`` into ``out_dir``; the :class:`Report`."""
    out = Path(out_dir)
    with Store.reader(store_path) as store:
        rep = collect(store)
        puzzles = {sha: store.puzzle(sha) for sha in {r["puzzle_sha256"] for r in rep.best.values()}}
    out.mkdir(parents=True, exist_ok=True)
    pictures: dict[str, dict[str, str]] = {}
    for inst in rep.instances:
        pics: dict[str, str] = {}
        if all(id(g) in rep.swept for g in rep.groups if g.instance == inst):  # drawn as curves, not one by one
            pictures[inst] = pics
            continue
        if plots:
            for kind, make in (("time", _time_plot), ("scores", _score_plot)):
                paths = make(rep, inst, out / "plots")
                rep.written += [str(p) for p in paths]
                if paths:
                    pics[kind] = paths[-1].relative_to(out).as_posix()  # the SVG in the page
        if inst in rep.best:
            from ..formats import parse_board
            from ..render import render

            b = rep.best[inst]
            puzzle = puzzles[b["puzzle_sha256"]]
            board = parse_board(b["board"], puzzle, path="<stored board>")
            p = out / "boards" / f"{_slug(inst)}.png"
            render(puzzle, board, p, label=f"{b['label']}, seed {b['seed']}:")
            rep.written.append(str(p))
            pics["board"] = p.relative_to(out).as_posix()
        pictures[inst] = pics
    for sw in rep.sweeps:
        from ..hardness import plot

        base = out / "hardness" / _sweep_slug(sw)
        base.parent.mkdir(parents=True, exist_ok=True)
        doc = {k: v for k, v in sw.items() if k not in ("configuration", "files")}
        write_text(base.with_suffix(".json"), json.dumps(doc, indent=0) + "\n")
        sw["files"] = {"json": base.with_suffix(".json").relative_to(out).as_posix()}
        rep.written.append(str(base.with_suffix(".json")))
        if plots:
            plot(doc, base.with_suffix(".png"))
            sw["files"]["png"] = base.with_suffix(".png").relative_to(out).as_posix()
            rep.written.append(str(base.with_suffix(".png")))
    md = _markdown(rep, pictures)
    write_text(out / "report.md", md)
    write_text(out / "report.html", _html(md))
    rep.written[:0] = [str(out / "report.md"), str(out / "report.html")]
    if csv:
        write_text(out / "runs.csv", _csv(RUN_COLUMNS, [_run_record(rep, r) for r in rep.runs]))
        write_text(out / "summary.csv", _csv(SUMMARY_COLUMNS, summary_records(rep)))
        bcols = ["run_id", "instance", "config", "seed", "score", "time", "what", "found", "board_sha256"]
        write_text(out / "boards.csv", _csv(bcols, [{k: b[k] for k in bcols} for b in rep.boards]))
        rep.written += [str(out / n) for n in ("runs.csv", "summary.csv", "boards.csv")]
    if json_export:
        doc = {"format": "emc-campaign-report", "version": 1, "store": rep.store,
               "campaigns": [{k: c[k] for k in ("name", "spec_path", "spec_sha256", "created", "updated")}
                             for c in rep.campaigns],
               "counts": rep.counts, "summary": summary_records(rep),
               "runs": [{**_run_record(rep, r), "trajectory": r["trajectory"], "board": json.loads(r["board"])
                         if r["board"] else None, "details": r["details"]} for r in rep.runs],
               "boards": [{**{k: b[k] for k in ("run_id", "instance", "config", "seed", "score", "time", "what",
                                                "found", "board_sha256")}, "board": json.loads(b["board"])}
                          for b in rep.boards],
               "machines": {str(k): v for k, v in rep.machines.items()},
               "hardness_sweeps": [{k: v for k, v in sw.items() if k != "files"} for sw in rep.sweeps]}
        write_text(out / "report.json", json.dumps(doc, indent=1, sort_keys=False) + "\n")
        rep.written.append(str(out / "report.json"))
    return rep
