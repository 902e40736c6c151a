"""``emc campaign``: many runs from a spec, on this machine or a Dask cluster, kept in a store
(``run``); where a campaign stands (``status``); its tables and plots beside the published
figures (``report``); the figures emc ships (``papers``).

The work is in :mod:`emc.campaigns`; this module reads arguments and prints.
"""

from __future__ import annotations

import json
import math

from ..errors import InputError
from .common import add_command, console, err_console, positive_int


def register(sub) -> None:
    p = add_command(
        sub, "campaign", "many runs from a spec, kept in a store, reported beside the papers",
        "Campaigns: the product of instances, methods (with options) or backends, seeds, time limits\n"
        "and repetitions, run on this machine (one process per core) or on a Dask cluster, every\n"
        "result kept in a store (SQLite) as it arrives. The same spec run again skips the stored\n"
        "runs. docs/campaigns.md describes the spec, the store and the report.",
        """
  emc campaign run bench/campaigns/table5-short.toml --workers 2
  emc campaign run spec.toml --cluster local
  emc campaign run spec.toml --scheduler tcp://10.0.0.1:8786
  emc campaign status spec.db
  emc campaign report spec.db -o report/ --csv --json
  emc campaign papers seed003-table5
""", _campaign_help)
    csub = p.add_subparsers(title="campaign commands", metavar="ACTION")

    r = add_command(
        csub, "run", "run a campaign spec (the runs its store lacks)",
        "Check SPEC whole (an unknown instance, method, backend or option stops it before any run:\n"
        "one line naming the file and line, exit status 2), put its runs in the store, and run\n"
        "those the store lacks: on a pool of local processes (--workers, one core per run), on a\n"
        "LocalCluster of Dask (--cluster local) or on a running Dask scheduler (--scheduler).\n"
        "Each finished run is written at once, its board verified; a failed run is stored with\n"
        "its error and the others go on. Ctrl-C or SIGTERM stop cleanly: the runs in flight are\n"
        "dropped and run again by the next `emc campaign run` of the same spec, as are those of a\n"
        "campaign killed outright. Exit status: 0 every run stored (done or failed), 130 after\n"
        "Ctrl-C (143 after SIGTERM), 2 bad input.",
        """
  emc campaign run bench/campaigns/table5-short.toml
  emc campaign run spec.toml --store results/spec.db --workers 8
  emc campaign run spec.toml --cluster local --workers 4
  emc campaign run spec.toml --scheduler tcp://10.0.0.1:8786
  emc campaign run spec.toml --dry-run
""", cmd_run)
    r.add_argument("spec", metavar="SPEC", help="the campaign spec (.toml)")
    r.add_argument("--store", metavar="PATH", help="the results store (default: beside SPEC, same name, .db)")
    r.add_argument("--workers", "-j", type=positive_int, default=None, metavar="N",
                   help="local worker processes, or LocalCluster workers (default: the cores this process may use)")
    where = r.add_mutually_exclusive_group()
    where.add_argument("--cluster", choices=["local"], default=None,
                       help="run on a Dask LocalCluster started for the campaign (--workers of them)")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on the Dask cluster of this scheduler (tcp://HOST:PORT), on every worker it has")
    r.add_argument("--retry-failed", action="store_true", help="run the failed runs again too")
    r.add_argument("--dry-run", action="store_true", help="check the spec and say what would run; run nothing")
    r.add_argument("--quiet", "-q", action="store_true", help="print only the summary")
    r.set_defaults(in_place=None)

    s = add_command(
        csub, "status", "runs done, failed, running and left in a store, and the time left",
        "Count the runs of every campaign in STORE: done, failed, running (in a live campaign) and\n"
        "left (pending, or in flight when a campaign was killed), with an estimate of the time\n"
        "left (from the runs done so far, else the time limits). Safe while a campaign runs.",
        """
  emc campaign status table5-short.db
  emc campaign status table5-short.db --json
""", cmd_status)
    s.add_argument("store", metavar="STORE", help="a campaign store (.db)")
    s.add_argument("--json", action="store_true", help="print JSON (integer keys done, failed, running, left, total)")

    t = add_command(
        csub, "report", "tables, plots and best boards of a store, beside the published figures",
        "Write report.md and report.html into DIR with the plots (PNG and SVG: score against time,\n"
        "median and quartiles per configuration; score distributions) and the best board of each\n"
        "instance, and print the tables: per instance and configuration the runs, max, min,\n"
        "average, standard deviation and median time to best, beside the paper's figures where\n"
        "the spec names them (paper = ...). --csv and --json also write every run and the tables\n"
        "for pandas or R.",
        """
  emc campaign report table5-short.db -o report/
  emc campaign report table5-short.db -o report/ --csv --json
""", cmd_report)
    t.add_argument("store", metavar="STORE", help="a campaign store (.db)")
    t.add_argument("-o", "--output", required=True, metavar="DIR", help="the folder to write the report into")
    t.add_argument("--csv", action="store_true", help="also write runs.csv, summary.csv and boards.csv")
    t.add_argument("--json", action="store_true", help="also write report.json (every run and every table)")
    t.add_argument("--no-plots", action="store_true", help="tables only (no matplotlib pictures)")
    t.add_argument("--quiet", "-q", action="store_true", help="do not print the tables")

    q = add_command(
        csub, "papers", "the published figures emc ships, to report beside",
        "List the papers' tables emc ships as data (with their source), or print one. A spec's\n"
        "[[methods]] entry names the one to report beside: paper = {table = ID, row = ...}.",
        """
  emc campaign papers
  emc campaign papers seed003-table5
  emc campaign papers seed000-table3 --json
""", cmd_papers)
    q.add_argument("table", nargs="?", metavar="ID", help="one table, in full")
    q.add_argument("--json", action="store_true", help="print JSON")


def _campaign_help(args) -> int:
    args.parser.print_help()
    return 2


# --------------------------------------------------------------------------- run
def _executor(args):
    from ..campaigns.pool import LocalPool, default_workers

    if args.scheduler:
        if args.workers is not None:
            raise InputError("--workers sets local workers; a scheduler's cluster has its own (dask worker --nthreads)")
        from ..campaigns.cluster import DaskCluster

        return DaskCluster(scheduler=args.scheduler)
    workers = args.workers or default_workers()
    if args.cluster == "local":
        from ..campaigns.cluster import DaskCluster

        return DaskCluster(workers=workers)
    return LocalPool(workers)


def _seconds(s: float | None) -> str:
    if s is None:
        return "unknown"
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


def cmd_run(args) -> int:
    from ..campaigns.spec import read_spec
    from ..campaigns.store import default_store

    spec = read_spec(args.spec)
    store = args.store or str(default_store(args.spec))
    executor = _executor(args)
    if args.dry_run:
        return _dry_run(spec, store, executor)
    from ..campaigns.runner import run_campaign

    counter = {"n": 0}
    multiple_limits = len({r.time_limit for r in spec.runs}) > 1

    def listen(kind, run, record) -> None:
        if args.quiet:
            return
        if kind == "note":
            err_console.print(f"emc: {record['text']}")
            return
        where = f"{run.instance.label} | {run.config.label} | seed {run.seed}"
        if spec.repetitions > 1:
            where += f" rep {run.repetition + 1}"
        if multiple_limits and run.time_limit is not None:
            where += f" | {run.time_limit:g} s"
        if kind == "board":
            err_console.print(f"  found {record['score']}/{run.instance.puzzle.max_score}: {where}, "
                              f"{record['time']:.1f} s into the run")
            return
        counter["n"] += 1
        head = f"[{counter['n']}]"
        if record["status"] == "done":
            if record.get("count") is not None:
                what = f"{record['count']} solution{'s' if record['count'] != 1 else ''}" + \
                       ("" if record.get("complete") else " (incomplete)")
            elif record.get("score") is not None:
                what = f"{record['score']}/{run.instance.puzzle.max_score}, best at {record['time_to_best']:.1f} s"
            else:
                what = f"no board ({record.get('stopped_by')})"
            err_console.print(f"{head} {where}: {what}")
        else:
            err_console.print(f"{head} {where}: FAILED: {record.get('error')}")

    if not args.quiet:
        err_console.print(f"emc: campaign {spec.name}: {len(spec.runs)} runs, store {store}, {executor.describe()}")
    out = run_campaign(spec, store, executor, retry_failed=args.retry_failed, listen=listen)
    to_run = out.total - out.stored_before
    if out.total == out.stored_before:
        console.print(f"campaign {spec.name}: all {out.total} runs are in {store}; nothing to run "
                      "(--retry-failed runs the failed ones again)")
        return 0
    parts = [f"{out.done} done", f"{out.failed} failed"]
    if out.boards:
        parts.append(f"{out.boards} hunt board{'s' if out.boards != 1 else ''} kept")
    left = out.left
    tail = f"; {left} left (run the same command to go on)" if left else ""
    stopped = "stopped by Ctrl-C: " if out.interrupted else ""
    console.print(f"campaign {spec.name}: {stopped}{', '.join(parts)} of {to_run} to run "
                  f"({out.stored_before} already stored){tail}; store {store}")
    if out.failed:
        err_console.print(f"emc: warning: {out.failed} run{'s' if out.failed != 1 else ''} failed (first: "
                          f"{out.failures[0]}); `emc campaign report` lists them")
    return 130 if out.interrupted else 0


def _dry_run(spec, store_path, executor) -> int:
    from pathlib import Path

    from ..campaigns.store import Store

    stored: dict[str, str] = {}
    if Path(store_path).is_file():
        with Store.reader(store_path) as st:
            rows = st.query("SELECT r.key, r.status FROM runs r JOIN campaigns c ON c.id = r.campaign_id "
                            "WHERE c.name = ?", (spec.name,))
            stored = {r["key"]: r["status"] for r in rows}
    done = sum(stored.get(r.key) == "done" for r in spec.runs)
    failed = sum(stored.get(r.key) == "failed" for r in spec.runs)
    left = len(spec.runs) - done - failed
    limits = [r.time_limit for r in spec.runs if stored.get(r.key) not in ("done", "failed")]
    budget = sum(x for x in limits if x is not None) if all(x is not None for x in limits) else None
    console.print(f"campaign {spec.name}: {len(spec.instances)} instances x {len(spec.configs)} configurations x "
                  f"{len(spec.seeds)} seeds x {spec.repetitions} repetition{'s' if spec.repetitions != 1 else ''}"
                  f" = {len(spec.runs)} runs")
    console.print(f"  in {store_path}: {done} done, {failed} failed; {left} to run"
                  + (f" (time limits add up to {_seconds(budget)}, on {executor.describe()})" if budget else ""))
    for c in spec.configs:
        paper = f"  [beside {c.paper['table']}{' ' + c.paper['row'] if c.paper.get('row') else ''}]" if c.paper else ""
        console.print(f"  configuration {c.label}: {c.kind} {c.name}" + (f", {c.task}" if c.kind == "backend" else "")
                      + paper)
    return 0


# --------------------------------------------------------------------------- status
def cmd_status(args) -> int:
    from ..campaigns.status import status
    from ..campaigns.store import Store

    with Store.reader(args.store) as st:
        s = status(st)
    if args.json:
        console.print_json(json.dumps(s))
        return 0
    console.print(f"store {s['store']}: {s['done']} done, {s['failed']} failed, {s['running']} running, {s['left']} left"
                  f" of {s['total']}" + (f"; about {_seconds(s['eta_seconds'])} left"
                                         if s["eta_seconds"] and (s["left"] or s["running"]) else ""))
    for c in s["campaigns"]:
        now = " (running now)" if c["running_now"] else ""
        console.print(f"  campaign {c['name']}{now}: {c['done']} done, {c['failed']} failed, {c['running']} running, "
                      f"{c['left']} left of {c['total']}" + (f"; about {_seconds(c['eta_seconds'])} left"
                                                             if c["eta_seconds"] and (c["left"] or c["running"]) else ""))
    for ses in s["sessions"]:
        console.print(f"  session {ses['id']} ({ses['campaign']}): {ses['state']}, {ses['executor']}, host "
                      f"{ses['host']} pid {ses['pid']}")
    return 0


# --------------------------------------------------------------------------- report
def cmd_report(args) -> int:
    from ..campaigns.report import write_report
    from .common import check_output_dir

    check_output_dir(args.output, "report folder")
    rep = write_report(args.store, args.output, csv=args.csv, json_export=args.json, plots=not args.no_plots)
    if not args.quiet:
        console.print(rep.text_tables())
    console.print(f"wrote {', '.join(rep.written_summary())}")
    return 0


# --------------------------------------------------------------------------- papers
def _cell(v) -> str:
    if isinstance(v, float):
        return f"{v:g}" if not math.isfinite(v) or abs(v) >= 1e7 else repr(v)
    if isinstance(v, list):
        return " ".join(map(str, v))
    return str(v)


def cmd_papers(args) -> int:
    from ..campaigns.published import table, tables

    if args.table is None:
        rows = [{"id": t.id, "title": t.title, "source": t.source, "comparable": t.comparable, "rows": len(t.rows)}
                for t in tables().values()]
        if args.json:
            console.print_json(json.dumps(rows))
            return 0
        for r in rows:
            mark = "*" if r["comparable"] else " "
            console.print(f"{mark} {r['id']:<20} {r['title']}")
        console.print("* score tables a spec can report beside (paper = {table = ID, row = ...}); "
                      "`emc campaign papers ID` prints one")
        return 0
    t = table(args.table)
    if args.json:
        console.print_json(json.dumps({"id": t.id, "title": t.title, "source": t.source, "file": t.file,
                                       "runs": t.runs, "machine": t.machine, "notes": t.notes,
                                       "time_means": t.time_means, "compare": t.compare,
                                       "columns": list(t.columns), "rows": t.records()}))
        return 0
    console.print(f"{t.id}: {t.title}")
    console.print(f"source: {t.source}" + (f" ({t.file})" if t.file else ""))
    for what, v in (("runs", t.runs), ("machine", t.machine), ("time", t.time_means), ("notes", t.notes)):
        if v:
            console.print(f"{what}: {v}")
    heads = [t.heading(c) for c in t.columns]
    cells = [[_cell(v) for v in r] for r in t.rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(heads)]
    console.print("  ".join(h.ljust(w) for h, w in zip(heads, widths)).rstrip())
    for r in cells:
        console.print("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
    return 0
