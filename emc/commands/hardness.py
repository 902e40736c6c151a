"""``emc hardness``: sweep a generation model's colour counts and measure where solving peaks."""

from __future__ import annotations

import json
import platform
import shlex

from ..errors import InputError
from .basic import board_side
from .common import add_command, check_outputs, console, err_console, positive_float, positive_int


def register(sub) -> None:
    from ..generate import DEFAULT_MODEL, MODELS
    from ..hardness import DEFAULT_MEASURE, MEASURES

    p = add_command(
        sub, "hardness", "measure where a generation model's puzzles are hardest (sweep the colour counts)",
        "For a board size and a generation model, draw several planted puzzles (seeds) at each\n"
        "point of a grid of colour counts, check each planted board, solve each puzzle with a\n"
        "real solver and take the median cost per point; print the table with the peak (the\n"
        "point of highest median) marked, and draw the curve with -o. The cost: seconds in the\n"
        "solver for Kissat and CaDiCaL on emc's CNF, nodes for the scan-row search (backtrack),\n"
        "seconds for CP-SAT. A solve stopped by --time-limit counts at what it had spent and is\n"
        "flagged; a median among such costs is a lower bound ('>=' in the table), and among\n"
        "tied medians the peak is the point nearest one expected solution. Without\n"
        "colour lists the grid surrounds the counts where a random puzzle of the model expects\n"
        "about one solution (the first-moment estimate, column log10 E[sol]). The peaks shipped\n"
        "with emc (`emc generate --hardest`) were measured so; --record adds one to a peaks file.\n"
        "--store keeps the sweep in a file as it goes: run again with more seeds, more colour\n"
        "counts or a longer limit and only the new puzzles are solved; after Ctrl-C the same\n"
        "command resumes where it stopped.",
        """
  emc hardness 6 6 --model uniform --colours 4-9
  emc hardness 7 7 --frame-colours 3 --inner-colours 5-8 --backend kissat --instances 5 -o 7x7.png
  emc hardness 6 6 --model frame-inner-balanced --backend backtrack --json
  emc hardness 5 5 --model uniform-balanced --colours 3-7 --record peaks.json
  emc hardness 8 8 --model uniform --colours 5-8 --backend kissat --instances 3 --store u8.json
  emc hardness 8 8 --model uniform --colours 5-8 --backend kissat --instances 5 --store u8.json   # seeds 4, 5 only
""", cmd_hardness)
    p.add_argument("width", type=board_side, metavar="W", help="board width in cells (at least 2)")
    p.add_argument("height", type=board_side, metavar="H", help="board height in cells (at least 2)")
    p.add_argument("--model", choices=list(MODELS), default=DEFAULT_MODEL,
                   help=f"generation model (see `emc generate --help`; default {DEFAULT_MODEL})")
    p.add_argument("--colours", "--colors", metavar="LIST",
                   help="one-set models: colour counts to sweep, like 6, 4-9 or 4,6,8")
    p.add_argument("--frame-colours", "--frame-colors", metavar="LIST",
                   help="two-set models: frame colour counts to sweep (with --inner-colours: every pair)")
    p.add_argument("--inner-colours", "--inner-colors", metavar="LIST", help="two-set models: inner colour counts")
    p.add_argument("--backend", choices=list(MEASURES), default=DEFAULT_MEASURE,
                   help="what measures the cost: " + "; ".join(f"{m.name}: {m.summary}" for m in MEASURES.values())
                   + f" (default {DEFAULT_MEASURE})")
    p.add_argument("--instances", type=positive_int, default=5, metavar="N",
                   help="puzzles per point: seeds FIRST..FIRST+N-1 (default 5)")
    p.add_argument("--first-seed", type=int, default=1, metavar="S", help="the first seed (default 1)")
    p.add_argument("--time-limit", type=positive_float, default=60.0, metavar="S",
                   help="seconds per solve (default 60); a stopped solve counts at what it spent")
    p.add_argument("-o", "--output", metavar="PNG", help="draw the curve (PNG, SVG or PDF), the peak marked")
    p.add_argument("--record", metavar="PEAKS", help="add the peak to this peaks file (the format of emc's shipped "
                                                     "instances/hardness/peaks.json), replacing that size and model")
    p.add_argument("--store", metavar="SWEEP", help="keep the sweep in this JSON file (the --json document), "
                                                    "saved after every puzzle; the puzzles it already holds are "
                                                    "not solved again (those stopped at a shorter limit are)")
    p.add_argument("--json", action="store_true", help="print the sweep (every puzzle's row, every point's median) "
                                                       "and its peak as JSON")


def _command(args) -> str:
    """The command that measures this sweep again (for the peaks file), from the parsed options."""
    words = ["emc", "hardness", str(args.width), str(args.height), "--model", args.model]
    for opt, v in (("--colours", args.colours), ("--frame-colours", args.frame_colours),
                   ("--inner-colours", args.inner_colours)):
        if v is not None:
            words += [opt, v]
    words += ["--backend", args.backend, "--instances", str(args.instances), "--time-limit", f"{args.time_limit:g}"]
    if args.first_seed != 1:
        words += ["--first-seed", str(args.first_seed)]
    return " ".join(shlex.quote(w) for w in words)


def _read_store(path: str) -> dict | None:
    """The sweep kept in ``--store``, or None when the file does not exist yet."""
    from pathlib import Path

    p = Path(path)
    if not p.exists():
        return None
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the sweep ({exc})", path) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg})", path, exc.lineno) from None
    if not isinstance(doc, dict):
        raise InputError("not a sweep of emc hardness (the file holds no JSON object)", path)
    return doc


def cmd_hardness(args) -> int:
    from ..hardness import (MEASURES, cost_text, make_grid, params_text, peak_entry, peak_text, plot, record_peak,
                            sweep)
    from ..io import write_text

    if args.first_seed < 0:
        raise InputError(f"--first-seed must be 0 or more, not {args.first_seed}")
    if args.output and not args.output.lower().endswith((".png", ".svg", ".pdf")):  # matplotlib draws no page
        raise InputError("-o: a picture file ending in .png, .svg or .pdf", args.output)
    check_outputs((args.output, "picture"), (args.record, "peaks file"), (args.store, "sweep"))
    previous = _read_store(args.store) if args.store else None
    grid = make_grid(args.width, args.height, args.model, args.colours, args.frame_colours, args.inner_colours)
    seeds = list(range(args.first_seed, args.first_seed + args.instances))
    m = MEASURES[args.backend]
    show = not args.json
    if show:
        console.print(f"{args.width}x{args.height}, model {args.model}: {len(grid)} points x {len(seeds)} puzzles, "
                      f"{m.summary}, limit {args.time_limit:g} s per solve")

    def on_row(row: dict, stored: bool) -> None:  # on stderr, so that --json's stdout stays one document
        flag = (" (stopped)" if row["timed_out"] else "") + (f" (from {args.store})" if stored else "")
        err_console.print(f"  {params_text(row['params'])} seed {row['seed']}: "
                          f"{cost_text(row['cost'], m.cost)} {m.cost}{flag}")

    def save(doc: dict) -> None:
        write_text(args.store, json.dumps(doc, indent=0) + "\n")

    result = sweep(args.width, args.height, args.model, grid, seeds, args.backend, args.time_limit, on_row=on_row,
                   previous=previous, on_save=save if args.store else None, previous_name=args.store)
    if args.store and result["rows"]:
        save(result)
    if not result["complete"]:
        return _report_interrupted(args, result, len(grid) * len(seeds), show)
    if args.output:
        plot(result, args.output)
    if args.record:
        command = _command(args)
        record_peak(args.record, peak_entry(result, f"{platform.machine()} {platform.processor() or ''}".strip(),
                                            command))
    if args.json:
        console.print_json(json.dumps(result))
        return 0
    _print_table(result, m.cost)
    console.print(peak_text(result))
    if args.output:
        console.print(f"wrote {args.output}")
    if args.record:
        console.print(f"recorded the peak in {args.record}")
    if args.store:
        console.print(f"kept the sweep in {args.store}")
    return 0


def _report_interrupted(args, result: dict, asked: int, show: bool) -> int:
    """Ctrl-C ended the sweep: what it measured is reported and kept (--store, -o, --json), no
    peak is recorded from part of a sweep, and the exit status is 130."""
    from ..hardness import MEASURES, plot

    if args.output and result["rows"]:
        plot(result, args.output)
    if args.json:
        console.print_json(json.dumps(result))
    elif result["rows"]:
        _print_table(result, MEASURES[args.backend].cost)
    how = ("the same command resumes it" if args.store
           else "--store SWEEP.json would have kept it to resume")
    err_console.print(f"interrupted after {len(result['rows'])} of {asked} puzzles: {how}"
                      + ("; no peak recorded from part of a sweep" if args.record else ""))
    if args.output and result["rows"] and show:
        console.print(f"wrote {args.output}")
    return 130


def _print_table(result: dict, cost: str) -> None:
    from rich.table import Table

    from ..hardness import cost_text, params_text

    t = Table(box=None, pad_edge=False)
    for col in ("colours", "puzzles", "stopped", f"median {cost}", "min", "max", "log10 E[sol]", ""):
        t.add_column(col, justify="left" if col in ("colours", "") else "right")
    pk = result["peak"]["params"] if result["peak"] else None
    for pt in result["points"]:
        lower = ">=" if pt["median_is_lower_bound"] else ""
        t.add_row(params_text(pt["params"]), str(pt["instances"]), str(pt["timeouts"]),
                  lower + cost_text(pt["median"], cost), cost_text(min(pt["costs"]), cost),
                  cost_text(max(pt["costs"]), cost), f"{pt['log10_expected_solutions']:.1f}",
                  "<- peak" if pt["params"] == pk else "")
    console.print(t)
