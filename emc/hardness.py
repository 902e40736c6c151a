"""Where the hard instances are: sweep the colour counts of a generation model and measure.

A random planted puzzle with few colours has so many solutions that any search stumbles on
one; with many colours nearly every placement is forced and the planted board is found at
once. In between lies a peak of solving cost, the phase transition of random edge-matching
puzzles that Ansotegui, Bejar, Fernandez and Mateu located for their generation models (CP 2008;
Constraints 18(1), 2013). :func:`sweep` finds it for one board size and one model of
:data:`emc.generate.MODELS`: for each point of a grid of colour counts it draws several
puzzles (seeds), checks each planted board, solves each puzzle with a real solver and takes
the median cost; the peak is the point of highest median.

Costs (:data:`MEASURES`): Kissat and CaDiCaL on emc's CNF (seconds the solver spent, without
encoding), the scan-row search of the ``backtrack`` backend (its nodes), CP-SAT (seconds, one
worker, model building included). A solve stopped by the time limit counts with what it had
spent (seconds: the limit) and is flagged: such a median is a lower bound.

:func:`expected_log10_solutions` is the first-moment estimate that goes with it: the expected
number of solutions of a random puzzle of the model, the count of arrangements that respect
the piece classes times the chance that every internal edge matches. Brendan Owen and Guenter
Stertenbrink used it (Eternity II forum, 2007) to show that Eternity II's 5 frame and 17 inner
colours sit where it falls to about one; the cost peak lies near that point.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Callable

from .errors import EmcError, InputError
from .generate import DEFAULT_MODEL, MODELS, edge_counts, generate_model


@dataclass(frozen=True)
class Measure:
    """One way to measure the cost of solving a puzzle: an emc backend with its options."""

    name: str
    backend: str
    options: tuple[tuple[str, object], ...]
    cost: str  # unit of the cost: seconds or nodes
    summary: str


#: ``emc hardness --backend`` choices.
MEASURES: dict[str, Measure] = {m.name: m for m in (
    Measure("cadical", "sat", (("solver", "cadical195"), ("portfolio", False)), "seconds",
            "CaDiCaL 1.9.5 on emc's CNF (PySAT cadical195): seconds in the solver"),
    Measure("kissat", "sat", (("solver", "kissat404"), ("portfolio", False)), "seconds",
            "Kissat 4.0.4 on emc's CNF (PySAT kissat404): seconds in the solver"),
    Measure("backtrack", "backtrack", (), "nodes", "emc's scan-row search (backend backtrack): nodes"),
    Measure("cpsat", "cpsat", (), "seconds", "OR-Tools CP-SAT, one worker: seconds, model building included"),
)}
DEFAULT_MEASURE = "cadical"


def expected_log10_solutions(width: int, height: int, model: str, params: dict) -> float:
    """log10 of the expected number of solutions of a random puzzle of ``model``: the
    placements that put corner pieces on corners and edge pieces on edges (turns then forced)
    and inner pieces inside in any of 4 turns, times the chance that every internal edge
    matches when each of its colours is one of k with equal odds (1/k per edge). Balanced
    models are counted as their unbalanced twins (the estimate ignores the small dependence
    balancing adds)."""
    n_frame, n_other = edge_counts(width, height)
    if width == 2 or height == 2:  # no inner cells; every cell a corner or an edge cell
        corners, sides, inner = min(width * height, 4), max(width * height - 4, 0), 0
    else:
        corners, sides, inner = 4, 2 * (width - 2) + 2 * (height - 2), (width - 2) * (height - 2)
    log = (math.lgamma(corners + 1) + math.lgamma(sides + 1) + math.lgamma(inner + 1)) / math.log(10)
    log += inner * math.log10(4)
    if "colours" in params:
        return log - (n_frame + n_other) * math.log10(params["colours"])
    f, i = params["frame_colours"], params["inner_colours"]
    if f == 0:  # frame-inner with no frame colours: one set
        return log - (n_frame + n_other) * math.log10(i)
    return log - n_frame * math.log10(f) - n_other * math.log10(i)


def default_grid(width: int, height: int, model: str) -> list[dict]:
    """Colour counts around the first-moment threshold (expected solutions about one): for
    one-set models five counts, for two-set models five inner counts for each of three frame
    counts."""
    n_frame, n_other = edge_counts(width, height)
    one = MODELS[model].params == ("colours",)
    if one:
        k = _crossing(lambda c: expected_log10_solutions(width, height, model, {"colours": c}))
        lo = max(2, round(k) - 2)
        return [{"colours": c} for c in range(lo, lo + 5) if c <= n_frame + n_other]
    grid = []
    for f in (2, 3, 4):
        if f > max(n_frame, 1):
            continue
        i = _crossing(lambda c: expected_log10_solutions(width, height, model, {"frame_colours": f,
                                                                                 "inner_colours": c}))
        lo = max(2, round(i) - 2)
        grid += [{"frame_colours": f, "inner_colours": c} for c in range(lo, lo + 5)
                 if "balanced" not in model or c <= n_other]
    return grid


def _crossing(log_e: Callable[[float], float]) -> float:
    """The colour count where ``log_e`` (falling in it) crosses 0, by bisection on [1, 256]."""
    lo, hi = 1.0, 256.0
    if log_e(lo) <= 0:
        return lo
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if log_e(mid) > 0 else (lo, mid)
    return lo


def parse_counts(text: str, what: str) -> list[int]:
    """``"5"``, ``"4-9"`` or ``"3,5,7"`` (and mixes) -> the counts, each at least 0, in order."""
    out: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        try:
            if "-" in part:
                a, b = (int(x) for x in part.split("-", 1))
                if a > b:
                    raise ValueError
                out += range(a, b + 1)
            else:
                out.append(int(part))
        except ValueError:
            raise InputError(f"{what}: expected counts like 5, 4-9 or 3,5,7, not {text!r}") from None
    if any(v < 0 for v in out) or not out:
        raise InputError(f"{what}: expected counts like 5, 4-9 or 3,5,7, not {text!r}")
    if len(out) > 200:
        raise InputError(f"{what}: at most 200 counts in one sweep, not {len(out)}")
    return sorted(set(out))


def make_grid(width: int, height: int, model: str, colours: str | None = None, frame: str | None = None,
              inner: str | None = None) -> list[dict]:
    """The sweep's points from the user's lists (``--colours`` for one-set models,
    ``--frame-colours`` and ``--inner-colours`` for two-set ones), the default grid where
    none is given; every point is checked by drawing seed 0 of it, so an impossible count
    is refused before anything is solved."""
    if model not in MODELS:
        from .errors import UnknownNameError

        raise UnknownNameError("generator model", model, list(MODELS))
    params = MODELS[model].params
    one = params == ("colours",)
    given = {"--colours": colours, "--frame-colours": frame, "--inner-colours": inner}
    wrong = [k for k, v in given.items() if v is not None and ((k == "--colours") != one)]
    if wrong:
        takes = "--colours" if one else "--frame-colours and --inner-colours"
        raise InputError(f"model {model} takes {takes}, not {', '.join(wrong)}")
    if one:
        grid = ([{"colours": c} for c in parse_counts(colours, "--colours")] if colours is not None
                else default_grid(width, height, model))
    elif frame is None and inner is None:
        grid = default_grid(width, height, model)
    else:
        if frame is None or inner is None:
            raise InputError(f"model {model}: give both --frame-colours and --inner-colours (or neither, for the "
                             "default grid)")
        grid = [{"frame_colours": f, "inner_colours": i} for f in parse_counts(frame, "--frame-colours")
                for i in parse_counts(inner, "--inner-colours")]
    if not grid:
        raise InputError(f"no colour counts to sweep for a {width}x{height} board under model {model}")
    for point in grid:
        generate_model(model, width, height, 0, **point)  # raises on an impossible count
    return grid


def measure_puzzle(puzzle, measure: str, time_limit: float) -> dict:
    """Solve one whole puzzle with ``measure`` and return its cost row (``cost``, ``timed_out``,
    ``seconds`` of wall time, and the solver's own numbers). A planted puzzle said to have no
    solution is a solver or encoder bug and raises."""
    from .backends import Status, get_backend
    from .model import Subproblem

    m = MEASURES[measure]
    res = get_backend(m.backend).solve(Subproblem.whole(puzzle), time_limit=time_limit, threads=1, seed=0,
                                       **dict(m.options))
    if res.status is Status.INFEASIBLE:
        raise EmcError(f"{m.name} says {puzzle.name} has no solution, yet its planted board solves it")
    return cost_row(m.backend, m.cost, res.status is Status.OPTIMAL, res.stats, res.wall_time, time_limit)


def cost_row(backend: str, cost: str, solved: bool, stats: dict, seconds: float, time_limit: float) -> dict:
    """How a sweep counts one solve: ``status``, ``timed_out``, ``seconds`` of wall time, the
    ``cost`` (nodes; or seconds in the SAT solver, encoding and process start left out, or wall
    seconds of another backend; a stopped solve at the limit) and the solver's own numbers."""
    row = {"status": "solved" if solved else "timeout", "timed_out": not solved, "seconds": round(seconds, 4)}
    if cost == "nodes":
        row["nodes"] = int(stats.get("nodes", 0))
        row["cost"] = row["nodes"]
    else:
        spent = stats.get("solve_seconds", seconds) if backend == "sat" else seconds
        row["cost"] = round(float(spent), 4) if solved else float(time_limit)
    for k in ("conflicts", "decisions", "branches"):
        if k in stats:
            row[k] = int(stats[k])
    return row


def check_planted(puzzle, planted) -> None:
    """The generator's promise, checked on every puzzle a sweep solves: its planted board solves it."""
    from .score import verify

    if not verify(puzzle, planted).solved:
        raise EmcError(f"the planted board of {puzzle.name} does not solve it: a generator bug")


def cost_text(v: float, unit: str) -> str:
    return f"{int(v):,}" if unit == "nodes" else f"{v:.3g}"


def peak_text(result: dict) -> str:
    """The line under a sweep's table: its peak, its median, whether that is a lower bound."""
    pk = result["peak"]
    return (f"peak: {params_text(pk['params'])}, median {cost_text(pk['median'], result['cost'])} {result['cost']}"
            + (" (a lower bound: most of its solves were stopped)" if pk["median_is_lower_bound"] else ""))


def sweep(width: int, height: int, model: str = DEFAULT_MODEL, grid: list[dict] | None = None,
          seeds: list[int] | None = None, measure: str = DEFAULT_MEASURE, time_limit: float = 60.0,
          on_row: Callable[[dict, bool], None] | None = None, previous: dict | None = None,
          on_save: Callable[[dict], None] | None = None, previous_name: str | None = None) -> dict:
    """Measure the median solving cost at each point of ``grid`` (default :func:`default_grid`)
    over the puzzles of ``seeds`` (default 1..5) and find the peak.

    Returns a dict: the size, model, measure, cost unit, time limit and seeds; ``rows`` (one per
    puzzle: params, seed, puzzle name and hash, its planted board verified, cost, timed_out,
    seconds and solver numbers); ``points`` (one per grid point: params, median, costs,
    timeouts, whether the median is only a lower bound, the first-moment estimate); ``peak``
    (the point of highest median; among tied medians the one nearest one expected solution);
    ``complete`` (every puzzle asked for has its row; the peak is None until then). Each row
    records the limit it was measured under (``time_limit``). ``on_row`` is called with each row as it
    is measured or taken from ``previous``, and whether it was taken.

    ``previous`` is an earlier sweep of the same size, model and measure whose rows are kept
    instead of solving again (see :func:`reusable_rows`): a sweep grows (more seeds, more
    colour counts, a longer limit) by measuring only what is new, and an interrupted one
    resumes (``previous_name``, the file it was read from, goes into the errors about it).
    ``on_save`` is called with the sweep so far (``complete`` false until the end)
    after every puzzle solved, to keep it in a file. Ctrl-C ends the sweep early: the puzzle
    being solved is dropped and the result, ``complete`` false, holds the rows measured.
    """
    from .runtime import raised, sigint_guard

    if measure not in MEASURES:
        from .errors import UnknownNameError

        raise UnknownNameError("hardness measure", measure, list(MEASURES))
    grid = make_grid(width, height, model) if grid is None else grid
    seeds = list(range(1, 6)) if seeds is None else list(seeds)
    if not seeds:
        raise InputError("a sweep needs at least one seed")
    if not (isinstance(time_limit, (int, float)) and 0 < time_limit < 1e7):
        raise InputError(f"time limit: seconds above 0, not {time_limit!r}")
    out = {"format": "emc-hardness-sweep", "version": 1, "width": width, "height": height, "model": model,
           "measure": measure, "backend": MEASURES[measure].backend,
           "solver": dict(MEASURES[measure].options).get("solver"), "cost": MEASURES[measure].cost,
           "time_limit": time_limit, "seeds": seeds}
    wanted = [(point, seed) for point in grid for seed in seeds]
    done, stale = {}, {}
    if previous is not None:
        done, stale = reusable_rows(previous, out, wanted, previous_name)
        for (key, row) in list(done.items()) + list(stale.items()):  # before anything is solved or saved
            puzzle, _ = generate_model(model, width, height, row["seed"], **row["params"])
            if row["puzzle_sha256"] != puzzle.sha256:
                raise InputError(f"the earlier sweep's {params_text(row['params'])} seed {row['seed']} is another "
                                 "puzzle than this emc draws (made by another version of the generator): start a "
                                 "new sweep", previous_name)

    def document(complete: bool) -> dict:
        # Rows a shorter limit stopped stay in the file until they are solved again: an
        # interrupted sweep under a longer limit loses none of them.
        rows = [done.get(k, stale.get(k)) for k in (_row_key(pt, s) for pt, s in wanted) if k in done or k in stale]
        doc = {**out, "rows": rows, "complete": complete}
        doc["points"], doc["peak"] = summarise(width, height, model, rows) if rows else ([], None)
        if not complete:  # a peak of part of a sweep is no peak
            doc["peak"] = None
        return doc

    complete = True
    with sigint_guard():
        try:
            for point, seed in wanted:
                key = _row_key(point, seed)
                if key in done:
                    if on_row is not None:
                        on_row(done[key], True)
                    continue
                puzzle, planted = generate_model(model, width, height, seed, **point)
                check_planted(puzzle, planted)
                row = {"params": dict(point), "seed": seed, "puzzle": puzzle.name, "puzzle_sha256": puzzle.sha256,
                       "planted_verified": True, "time_limit": time_limit,
                       **measure_puzzle(puzzle, measure, time_limit)}
                if raised():  # the solver was stopped by Ctrl-C, not by the limit: no measurement
                    complete = False
                    break
                done[key] = row
                stale.pop(key, None)
                if on_row is not None:
                    on_row(row, False)
                if on_save is not None:
                    on_save(document(False))
        except KeyboardInterrupt:
            complete = False
    return document(complete)


def _row_key(params: dict, seed: int) -> tuple:
    return tuple(sorted(params.items())), seed


def params_text(params: dict) -> str:
    """A point's colour counts as the tables show them: ``F=3 I=8``, ``K=7``."""
    short = {"frame_colours": "F", "inner_colours": "I", "colours": "K"}
    return " ".join(f"{short.get(k, k)}={v}" for k, v in params.items())


#: What every row of a sweep holds, and of which type (checked on the rows read back).
ROW_FIELDS = {"params": dict, "seed": int, "puzzle_sha256": str, "cost": (int, float), "timed_out": bool}


def reusable_rows(previous: dict, head: dict, wanted: list[tuple[dict, int]],
                  name: str | None = None) -> tuple[dict, dict]:
    """The rows of an earlier sweep ``previous`` that a sweep described by ``head`` (its size,
    model, measure and time limit) over the puzzles ``wanted`` keeps, by (params, seed): those
    it takes as they are, and those stopped by a shorter limit, to be solved again (and kept
    in the file until then).

    A puzzle solved there counts as solved here: it finished within its limit, which is no
    longer than this one. A puzzle stopped there is taken under the same limit (each row
    records its own, ``time_limit``; older files only the sweep's) and solved again under a
    longer one. So that growing a sweep never drops a measurement, the earlier sweep must be of
    the same size, model and measure, have no longer limit, and hold no puzzle this one leaves
    out, each once; otherwise :class:`InputError` says which (naming the file ``name``).
    """
    if not isinstance(previous, dict) or previous.get("format") != "emc-hardness-sweep":
        raise InputError("not a sweep of emc hardness (its format is not emc-hardness-sweep)", name)
    for k in ("width", "height", "model", "measure", "backend", "solver", "cost"):
        if previous.get(k) != head[k]:
            raise InputError(f"the earlier sweep has {k} {previous.get(k)!r}, this one {head[k]!r}: "
                             "a sweep only grows with the same size, model and --backend", name)
    limit = previous.get("time_limit")
    rows = previous.get("rows")
    if not isinstance(limit, (int, float)) or isinstance(limit, bool) or not isinstance(rows, list):
        raise InputError("not a sweep of emc hardness (it lacks a time_limit or its rows)", name)
    if limit > head["time_limit"]:
        raise InputError(f"the earlier sweep's limit is {limit:g} s: a sweep that grows keeps it or "
                         f"lengthens it, not {head['time_limit']:g} s", name)
    asked = {_row_key(pt, s) for pt, s in wanted}
    keep: dict = {}
    again: dict = {}
    for n, r in enumerate(rows, 1):
        bad = [k for k, t in ROW_FIELDS.items() if not isinstance(r, dict) or not isinstance(r.get(k), t)
               or (t is int and isinstance(r.get(k), bool))
               or (k == "params" and not all(isinstance(v, int) for v in r[k].values()))]
        if bad:
            raise InputError(f"row {n} of the earlier sweep lacks a proper {bad[0]!r}", name)
        key = _row_key(r["params"], r["seed"])
        if key in keep or key in again:
            raise InputError(f"the earlier sweep holds {params_text(r['params'])} seed {r['seed']} twice (a "
                             "campaign's, with several runs a puzzle): a sweep keeps one row a puzzle", name)
        if key not in asked:
            raise InputError(f"the earlier sweep holds {params_text(r['params'])} seed {r['seed']}, which "
                             "this one leaves out: a sweep only grows (give the colour counts and seeds "
                             "it had, and more)", name)
        own = r.get("time_limit", limit)
        if not r["timed_out"] or own == head["time_limit"]:
            keep[key] = r
        else:
            again[key] = r
    return keep, again


def summarise(width: int, height: int, model: str, rows: list[dict]) -> tuple[list[dict], dict]:
    """The points (in the order their params first appear in ``rows``) and the peak, from the
    raw rows of a sweep: median cost per point, and the argmax of the medians (among equal
    medians, the point whose expected number of solutions is nearest one)."""
    order: list[tuple] = []
    by: dict[tuple, list[dict]] = {}
    for r in rows:
        key = tuple(sorted(r["params"].items()))
        if key not in by:
            order.append(key)
            by[key] = []
        by[key].append(r)
    points = []
    for key in order:
        rs = by[key]
        costs = [r["cost"] for r in rs]
        med = statistics.median(costs)
        timeouts = sum(r["timed_out"] for r in rs)
        points.append({"params": dict(key), "instances": len(rs), "median": med, "costs": costs,
                       "timeouts": timeouts,
                       # more than half stopped: the median is one of the stopped costs, a lower bound
                       "median_is_lower_bound": 2 * timeouts >= len(rs) and timeouts > 0,
                       "log10_expected_solutions": round(expected_log10_solutions(width, height, model, dict(key)), 2)})
    if not points:
        raise InputError("a sweep with no rows has no peak")
    # Medians that tie (every solve stopped at the limit) say nothing of which point is harder:
    # the one nearest the first-moment crossing, one expected solution, is taken as the peak.
    best = max(range(len(points)), key=lambda j: (points[j]["median"], -abs(points[j]["log10_expected_solutions"]),
                                                  -j))
    return points, {**{k: points[best][k] for k in ("params", "median", "instances", "timeouts",
                                                   "median_is_lower_bound")}}


def peak_entry(result: dict, machine: str, command: str) -> dict:
    """The shipped-peaks entry of a sweep (``instances/hardness/peaks.json``)."""
    pk = result["peak"]
    return {"width": result["width"], "height": result["height"], "model": result["model"],
            "params": pk["params"], "backend": result["backend"], "solver": result["solver"],
            "cost": result["cost"], "median": pk["median"], "instances": pk["instances"],
            "timeouts": pk["timeouts"], "median_is_lower_bound": pk["median_is_lower_bound"],
            "time_limit": result["time_limit"],
            "measured": time.strftime("%Y-%m-%d"), "machine": machine, "command": command}


def record_peak(path, entry: dict) -> None:
    """Put ``entry`` into the peaks file at ``path`` (created if missing), replacing the entry of
    the same size and model, the entries sorted by size and model."""
    import json
    from pathlib import Path

    from .io import write_text

    p = Path(path)
    data = {"format": "emc-hardness-peaks", "version": 1, "peaks": []}
    if p.exists():
        try:
            data = json.loads(p.read_text())
            data["peaks"] = list(data["peaks"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputError(f"cannot read the peaks file ({exc})", path) from None
    peaks = [e for e in data["peaks"] if (e["width"], e["height"], e["model"]) !=
             (entry["width"], entry["height"], entry["model"])]
    peaks.append(entry)
    models = list(MODELS)
    data["peaks"] = sorted(peaks, key=lambda e: (e["width"] * e["height"], e["width"], models.index(e["model"])))
    write_text(p, json.dumps(data, indent=1) + "\n")


def plot(result: dict, path) -> None:
    """Draw the sweep: median cost against the colour count (for two-set models, one line per
    frame-colour count against the inner colours), log scale, each instance as a dot, the peak
    marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    one = "colours" in result["points"][0]["params"]
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=100)
    lines: dict[int | None, list[dict]] = {}
    for pt in result["points"]:
        lines.setdefault(None if one else pt["params"]["frame_colours"], []).append(pt)
    xkey = "colours" if one else "inner_colours"
    for f, pts in sorted(lines.items(), key=lambda kv: -1 if kv[0] is None else kv[0]):
        pts = sorted(pts, key=lambda p: p["params"][xkey])
        xs = [p["params"][xkey] for p in pts]
        (ln,) = ax.plot(xs, [max(p["median"], 1e-4) for p in pts], marker="o",
                        label="median" if f is None else f"{f} frame colours")
        for p in pts:
            ax.scatter([p["params"][xkey]] * len(p["costs"]), [max(c, 1e-4) for c in p["costs"]], s=8,
                       color=ln.get_color(), alpha=0.35)
        # where a random puzzle expects one solution (first moment): the peak is expected near it
        fixed = {} if f is None else {"frame_colours": f}
        star = _crossing(lambda c: expected_log10_solutions(result["width"], result["height"], result["model"],
                                                            {**fixed, xkey: c}))
        ax.axvline(star, color=ln.get_color(), linestyle=":", linewidth=1)
    pk = result["peak"]
    if pk is not None:  # (none for part of a sweep)
        ax.scatter([pk["params"][xkey]], [max(pk["median"], 1e-4)], s=220, marker="*", color="crimson", zorder=5,
                   label="peak: " + ", ".join(f"{k.replace('_colours', '')} {v}" for k, v in pk["params"].items()))
    ax.set_yscale("log")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # colour counts are whole
    ax.set_xlabel("colours" if one else "inner colours")
    unit = result["cost"] + (f" ({result['solver']})" if result.get("solver") else f" ({result['measure']})")
    ax.set_ylabel(f"median {unit}")
    ax.set_title(f"{result['width']}x{result['height']}, model {result['model']}: "
                 f"{result['points'][0]['instances']} puzzles per point, limit {result['time_limit']:g} s")
    ax.grid(True, which="both", alpha=0.3)
    ax.plot([], [], color="grey", linestyle=":", label="E[solutions] = 1")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
