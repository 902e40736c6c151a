"""The edge-slipping commands (Verhaard's eii, seed 001): ``emc slip run``, ``emc slip
estimate``, ``emc slip tune`` and ``emc slip groups``."""

from __future__ import annotations

import argparse
import json
import re
import sys

from ..errors import InputError, shorten
from .common import (
    HelpFormatter,
    console,
    err_console,
    load_puzzle,
    non_negative_int,
    positive_float,
    positive_int,
    puzzle_arg,
    solver_seed,
    thread_count,
)


def _scores(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d{1,6})\s*(?:-\s*(\d{1,6}))?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"{shorten(text)!r} is not a score or a range like 458-463")
    a = int(m.group(1))
    b = int(m.group(2) or a)
    if b < a:
        raise argparse.ArgumentTypeError(f"{text!r}: the range runs low to high")
    return a, b


def _add(sub, name, help, description, examples, func):
    p = sub.add_parser(name, help=help, description=description, epilog="examples:\n" + examples.strip("\n"),
                       formatter_class=HelpFormatter)
    p.set_defaults(func=func, parser=p)
    return p


def _search_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("search (seed 001)")
    g.add_argument("--order", default="eii-468",
                   help="square order: rows, rows-up, eii-468, eii-465 or a file (default eii-468)")
    g.add_argument("--slips", default="emc-458",
                   help="slip array: eii-468, eii-465, emc-458, emc-460, emc-463, emc-465, none, a file (emc slip tune -o) "
                        "or the numbers '193,1,202,2,...' (default emc-458)")
    g.add_argument("--clue-hints", action="store_true", help="add Eternity II's four clue hints to piece 139")


def register(sub) -> None:
    top = sub.add_parser("slip", help="edge-slipping backtracker that hunts high scores (eii, seed 001)",
                         description="The scan-row backtracker with edge slipping, its restarts and heuristics, "
                                     "the Markov-chain estimator and the slip-array tuner of Verhaard's eii.",
                         formatter_class=HelpFormatter)
    top.set_defaults(func=lambda args: (top.print_help(sys.stderr), 2)[1], parser=top)
    ss = top.add_subparsers(metavar="COMMAND")

    p = _add(ss, "run", "hunt high scores", "Run restarting slipping searches and save every board at or above a "
             "score as it is found.", """
  emc slip run eternity2 -t 60 --threads 2 --save-dir boards
  emc slip run eternity2 -t 600 --slips tuned.json --stats stats.json --json
  emc slip run eternity2 --nodes 2000000000 --seed 3 --restarts luby
""", cmd_run)
    puzzle_arg(p)
    _search_args(p)
    g = p.add_argument_group("restarts and heuristics")
    g.add_argument("--restarts", choices=("luby", "eii", "none"), default="luby",
                   help="Luby's sequence (default), eii's four rules, or one search")
    g.add_argument("--luby-unit", type=positive_int, default=50_000_000, metavar="N",
                   help="nodes per Luby unit (default 50,000,000)")
    g.add_argument("--hit-score", type=non_negative_int, default=None, metavar="S",
                   help="the score eii's restart rules count hits at (default: the slip array's target)")
    g.add_argument("--groups", metavar="FILE", help="piece groups from `emc slip groups` (eii's checkpoints)")
    g.add_argument("--schedule", metavar="SPEC", help="colour schedule: auto, auto:K or colours=3,7;60:20,120:45")
    o = p.add_argument_group("run")
    o.add_argument("-t", "--time-limit", type=positive_float, default=None, metavar="S", help="seconds")
    o.add_argument("--nodes", type=positive_int, default=None, metavar="N",
                   help="nodes in all (the same search on every run with the same inputs)")
    o.add_argument("--threads", type=thread_count, default=1, metavar="N", help="independent search processes")
    o.add_argument("--seed", type=solver_seed, default=0)
    o.add_argument("--save-score", type=non_negative_int, default=None, metavar="S",
                   help="save boards of at least this score (default: the slip array's target + 2)")
    o.add_argument("--save-dir", metavar="DIR", help="folder for found boards (JSON with board_edges)")
    o.add_argument("--stats", metavar="FILE", help="write the per-depth counts here (for estimate and tune)")
    o.add_argument("--json", action="store_true", help="print the result as JSON")

    p = _add(ss, "estimate", "nodes per board at each score (Markov chain)",
             "Estimate, from a run's per-depth counts, the nodes per board of each score for an order and a "
             "slip array (seed 001's recurrence over depth and slips).", """
  emc slip estimate eternity2 --stats stats.json
  emc slip estimate eternity2 --stats stats.json --order eii-465 --slips eii-465 --scores 460-466
""", cmd_estimate)
    puzzle_arg(p)
    p.add_argument("--stats", required=True, metavar="FILE", help="counts written by `emc slip run --stats`")
    _search_args(p)
    p.add_argument("--scores", type=_scores, default=None, metavar="A-B", help="scores to show (default: all reachable)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = _add(ss, "tune", "find the slip array (and order) for a target score",
             "Search slip arrays, and orders when several are given, for the fewest estimated nodes per board "
             "at the target; write the best as a file `emc slip run --slips` reads.", """
  emc slip tune eternity2 --stats stats.json --target 460 -o tuned-460.json
  emc slip tune eternity2 --stats stats.json --target 463 --orders eii-468,eii-465,rows-up
""", cmd_tune)
    puzzle_arg(p)
    p.add_argument("--stats", required=True, metavar="FILE", help="counts written by `emc slip run --stats`")
    p.add_argument("--target", required=True, type=non_negative_int, metavar="S", help="score to aim at")
    p.add_argument("--orders", default=None, metavar="LIST", help="orders to try (default: the measured one)")
    p.add_argument("--start", default=None, metavar="SLIPS", help="slip array to start from")
    p.add_argument("--clue-hints", action="store_true", help="add Eternity II's four clue hints")
    p.add_argument("-o", "--output", metavar="FILE", help="write the slip array here (JSON)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = _add(ss, "groups", "build a pool of good piece groups (hill-climb on tileability)",
             "eii's good/bad groups: hill-climbs on the 2x3 tileability for a time, the best groups "
             "split into precious, good, bad and useless pieces, written to a file.", """
  emc slip groups eternity2 -t 60 -o groups.json
""", cmd_groups)
    puzzle_arg(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="write the pool here (JSON)")
    p.add_argument("-t", "--time-limit", type=positive_float, default=60.0, metavar="S", help="seconds (default 60)")
    p.add_argument("--keep", type=positive_int, default=60, metavar="N", help="groups kept (default 60, as eii)")
    p.add_argument("--size", type=positive_int, default=180, metavar="N", help="pieces in a group (default 180)")
    p.add_argument("--order", default="eii-468",
                   help="the search order the groups are for: a group holds the edge and inner pieces of its "
                        "last squares (default eii-468)")
    p.add_argument("--seed", type=solver_seed, default=0)
    p.add_argument("--clue-hints", action="store_true", help="add Eternity II's four clue hints")
    p.add_argument("--json", action="store_true", help="print JSON")


def _puzzle(args):
    P = load_puzzle(args.puzzle)
    if getattr(args, "clue_hints", False):
        from ..heuristics.slip.search import with_clue_hints

        P = with_clue_hints(P)
    return P


def cmd_run(args) -> int:
    from ..heuristics.slip.orders import slip_array
    from ..heuristics.slip.search import SlipConfig, slip_search

    if args.time_limit is None and args.nodes is None:
        raise InputError("give a time limit (-t) or a node budget (--nodes): the search never ends by itself")
    P = _puzzle(args)
    groups = schedule = None
    if args.groups:
        from ..heuristics.slip.groups import read_pool

        groups = read_pool(args.groups, P)
    if args.schedule:
        from ..heuristics.slip.schedule import parse_schedule

        schedule = parse_schedule(args.schedule, P)
    cfg = SlipConfig(order=args.order, slips=slip_array(args.slips), restarts=args.restarts, hit_score=args.hit_score,
                     luby_unit=args.luby_unit, groups=groups, schedule=schedule, save_score=args.save_score)

    def progress(d: dict) -> None:
        if not args.json:
            err_console.print(f"{d['nodes']:,} nodes, {d['nodes_per_second'] / 1e6:.1f} M nodes/s per CPU, "
                              f"best {d['best_score']}, runs {d['runs']}")

    r = slip_search(P, cfg, seed=args.seed, threads=args.threads, time_limit=args.time_limit, node_limit=args.nodes,
                    save_dir=args.save_dir, stats_path=args.stats, on_progress=progress)
    doc = r.document()
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        console.print(f"best score {r.best_score} of {P.max_score}" + (" (interrupted)" if r.interrupted else ""))
        console.print(f"{r.nodes:,} nodes in {r.seconds:.1f} s on {r.processes} process(es), "
                      f"{r.nodes_per_second / 1e6:.1f} M nodes per CPU second, {r.runs} runs, "
                      f"most visited depth {doc['most_visited_depth']}")
        for s, v in doc["hits_per_cpu_hour"].items():
            console.print(f"  score >= {s}: {doc['hits'][s]} boards, {v:.1f} per CPU hour")
        for path in doc["saved"]:
            console.print(f"saved {path}")
    return 0 if r.best is not None else 1


def _read(args, P):
    from ..heuristics.slip.estimate import read_stats

    st, doc = read_stats(args.stats)
    measured = doc.get("order")
    if not isinstance(measured, str):
        raise InputError("the statistics do not say which order they were measured with", args.stats)
    if doc.get("puzzle", {}).get("sha256") not in (None, P.sha256):
        raise InputError(f"the statistics were measured on another puzzle than {P.name}", args.stats)
    if len(st.visits) != P.n_cells - len(P.hints):
        raise InputError(f"the statistics have {len(st.visits)} depths, {P.name} has {P.n_cells - len(P.hints)} "
                         "free squares (the same hints?)", args.stats)
    return st, measured


def cmd_estimate(args) -> int:
    from ..heuristics.slip.estimate import estimate
    from ..heuristics.slip.orders import slip_array

    P = _puzzle(args)
    st, measured = _read(args, P)
    arr = slip_array(args.slips)
    est = estimate(P, st, measured, args.order, arr)
    lo, hi = args.scores or (min(est), max(est))
    rows = {s: v for s, v in sorted(est.items()) if lo <= s <= hi}
    if args.json:
        print(json.dumps({"order": args.order, "slip_array": arr.as_list(), "measured_order": measured,
                          "nodes_per_board": {str(s): v for s, v in rows.items()}}, indent=2))
        return 0
    console.print(f"order {args.order}, slip array {arr.name or arr.as_list()}, counts measured with {measured}")
    for s, v in rows.items():
        console.print(f"  score >= {s}: {v:.3g} nodes per board")
    return 0


def cmd_tune(args) -> int:
    from ..heuristics.slip.estimate import tune
    from ..heuristics.slip.orders import slip_array

    P = _puzzle(args)
    st, measured = _read(args, P)
    orders = [o.strip() for o in args.orders.split(",") if o.strip()] if args.orders else None
    start = slip_array(args.start) if args.start else None
    order, arr, cost = tune(P, st, measured, args.target, orders, start)
    doc = arr.document(measured_order=measured, stats=args.stats)
    if args.output:
        from ..io import write_text

        write_text(args.output, json.dumps(doc, indent=2) + "\n")
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        console.print(f"order {order}: {cost:.3g} nodes per board of at least {args.target}")
        console.print("slip array {" + ", ".join(map(str, arr.as_list())) + "}")
    return 0


def cmd_groups(args) -> int:
    from ..heuristics.slip.groups import build_pool, pool_document
    from ..io import write_text

    from ..heuristics.slip.orders import order_cells

    P = _puzzle(args)
    pool = build_pool(P, args.time_limit, seed=args.seed, keep=args.keep, size=args.size,
                      order=order_cells(args.order, P))
    doc = pool_document(P, pool, seed=args.seed, seconds=args.time_limit, size=args.size, order=args.order)
    write_text(args.output, json.dumps(doc) + "\n")
    if args.json:
        print(json.dumps({"groups": len(pool), "tileability": [g.tileability for g in pool]}, indent=2))
    else:
        console.print(f"{len(pool)} groups, tileability {pool[0].tileability:.4g} (best) .. "
                      f"{pool[-1].tileability:.4g}; written to {args.output}")
    return 0
