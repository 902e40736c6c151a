"""The restarting, record-hunting search around the slipping kernel (seed 001, "Heuristics
for restarting a search", "Usage of Hint Pieces", "Search Algorithm").

:func:`slip_search` runs restarts one after another, in one process or in ``threads``
independent processes. Run ``i`` draws its candidate order (and, with piece groups, its
group) from ``(seed, i)``, so the same inputs search the same way; process ``k`` of ``N``
takes runs ``k + 1, k + 1 + N, ...``. A run ends when a restart rule fires:

``luby`` (the default): run ``i`` gets ``luby(i) * luby_unit`` nodes (unit 5 x 10^7). On
Eternity II it found 24 boards of 460 or more in three 60 s runs on two processes where eii's
rules found 3 (docs/slip.md): eii's node counts are made for runs of days, which restart
rarely in a minute.

``eii``: the four rules of seed 001 with their published defaults:

=====================  ===================================================================
``depth_nodes``        no square past depth ``pass_depth`` (128) within 200 million nodes
``hit_nodes``          no hit at ``hit_score`` within 4 x 10^9 nodes (paper: 463 on 480)
``visited_depth``      the most visited depth below 165, checked every ``visited_every``
                       nodes (the paper: "at regular points"; emc checks every 10^9)
``window``             fewer than ``window_hits`` (40) hits in each window of 10^10 nodes
=====================  ===================================================================

``none``: one run for the whole time.

Every complete board with at least ``save_score`` (default: two above the slip array's
target; and every board better than all before it) is checked with :func:`emc.verify` (its score must be ``max_score - slips``) and, with a
``save_dir``, written at once as emc JSON with its ``board_edges`` string (and the viewer link
when emc has a writer for it), so a run that is killed keeps what it found.
"""

from __future__ import annotations

import os
import queue
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ...errors import InputError
from ...model import Board, Puzzle
from ...runtime import check as check_interrupt
from ...runtime import child_setup, held_interrupts, process_context, start_child
from .engine import DepthStats, SlipSearch
from .groups import Group, checkpoint_bounds
from .orders import SlipArray, order_cells, slip_array
from .plan import SlipPlan, make_plan
from .schedule import Schedule

SLICE_NODES = 1 << 24  # nodes between looks at the clock and the rules (under a second)
REPORT_SECONDS = 1.0  # how often a search process sends its counts


@dataclass(frozen=True)
class RestartRules:
    """eii's restart rules (seed 001); node counts are per run."""

    pass_depth: int = 128
    depth_nodes: int = 200_000_000
    hit_nodes: int = 4_000_000_000
    visited_depth: int = 165
    visited_every: int = 1_000_000_000
    window_nodes: int = 10_000_000_000
    window_hits: int = 40


@dataclass
class SlipConfig:
    """Everything that decides a search (see :func:`slip_search`)."""

    order: str = "eii-468"
    slips: str | SlipArray = "eii-468"
    restarts: str = "luby"  # luby, eii or none (see the module's docstring)
    rules: RestartRules = field(default_factory=RestartRules)
    hit_score: int | None = None  # the rules' hit: default the slip array's target
    luby_unit: int = 50_000_000
    groups: list[Group] | None = None
    checkpoints: tuple | None = None  # default groups.EII_CHECKPOINTS
    schedule: Schedule | None = None
    save_score: int | None = None  # default: the slip array's target + 2
    slice_nodes: int = SLICE_NODES


@dataclass
class Found:
    board: Board
    score: int
    run: int
    process: int
    path: str | None = None


@dataclass
class SlipResult:
    """What a search found and measured."""

    best: Board | None
    best_score: int | None
    max_score: int
    stats: DepthStats
    saved: list[Found]
    runs: int
    processes: int
    seconds: float
    interrupted: bool
    config: dict

    @property
    def nodes(self) -> int:
        return self.stats.nodes

    @property
    def nodes_per_second(self) -> float:
        """Nodes per CPU second of search (one process searches on one core)."""
        return self.stats.nodes / self.stats.seconds if self.stats.seconds > 0 else 0.0

    def hits_at_least(self, score: int) -> int:
        return int(sum(v for s, v in self.stats.hits_by_score(self.max_score).items() if s >= score))

    def hits_per_cpu_hour(self) -> dict[int, float]:
        """Complete boards of at least each score found per CPU hour."""
        h = self.stats.seconds / 3600
        scores = sorted(self.stats.hits_by_score(self.max_score))
        return {s: self.hits_at_least(s) / h for s in scores} if h > 0 else {}

    def document(self) -> dict:
        return {
            "method": "slip", "best_score": self.best_score, "max_score": self.max_score, "nodes": self.nodes,
            "cpu_seconds": round(self.stats.seconds, 3), "seconds": round(self.seconds, 3),
            "nodes_per_second": round(self.nodes_per_second), "runs": self.runs, "processes": self.processes,
            "interrupted": self.interrupted,
            "hits": {str(s): self.hits_at_least(s) for s in sorted(self.stats.hits_by_score(self.max_score))},
            "hits_per_cpu_hour": {str(s): round(v, 2) for s, v in self.hits_per_cpu_hour().items()},
            "most_visited_depth": self.stats.most_visited(), "saved": [f.path for f in self.saved if f.path],
            "config": self.config,
        }


def board_edges(puzzle: Puzzle, board: Board) -> str | None:
    """The community viewers' ``board_edges`` string (None for colours past 'z')."""
    from ...formats import format_board

    try:
        return format_board(board, puzzle, "edges").strip()
    except InputError:
        return None


def viewer_url(puzzle: Puzzle, board: Board) -> str | None:
    """The viewer link, when this emc has a writer for it (``emc.formats.format_board_url``)."""
    from ... import formats

    writer = getattr(formats, "format_board_url", None)
    if writer is None:
        return None
    try:
        return writer(board, puzzle)
    except InputError:
        return None


def save_board(puzzle: Puzzle, board: Board, folder: str | os.PathLike, info: dict) -> str:
    """Write a found board atomically into ``folder``; returns the path."""
    from ...formats import format_board
    from ...io import write_text

    score = info["score"]
    name = f"{puzzle.name}-{score}-seed{info['seed']}-run{info['run']}-{info['found_at_nodes']}.json"
    path = Path(folder) / name
    extra = {"found_by": info}
    edges = board_edges(puzzle, board)
    if edges is not None:
        extra["board_edges"] = edges
    url = viewer_url(puzzle, board)
    if url is not None:
        extra["viewer_url"] = url
    write_text(path, format_board(board, puzzle, "json", extra=extra))
    return str(path)


def check_board(puzzle: Puzzle, board: Board, slips: int) -> int:
    """Verify a board the kernel handed back; its score must be max - slips."""
    from ...score import verify

    rep = verify(puzzle, board)
    if not rep.valid or not rep.complete or rep.scores["score"] != puzzle.max_score - slips:
        raise RuntimeError(f"the slipping search handed back a board that does not check: valid {rep.valid}, "
                           f"score {rep.scores.get('score')} for {slips} slips ({'; '.join(rep.problems[:3])})")
    return int(rep.scores["score"])


class Worker:
    """The runs of one process (slot ``slot`` of ``n_proc``)."""

    def __init__(self, puzzle: Puzzle, cfg: SlipConfig, seed: int, slot: int = 0, n_proc: int = 1,
                 plan: SlipPlan | None = None):
        self.P, self.cfg, self.seed, self.slot, self.n_proc = puzzle, cfg, seed, slot, n_proc
        self.plan = plan or make_plan(puzzle, order_cells(cfg.order, puzzle))
        self.array = slip_array(cfg.slips)
        self.allow = self.array.allowances(self.plan.n)
        most = int(self.allow.max()) if self.plan.n else 0
        self.target = puzzle.max_score - most
        self.hit_slips = puzzle.max_score - (cfg.hit_score if cfg.hit_score is not None else self.target)
        # by default two points above the array's target: the boards it is tuned to find come
        # by the thousand an hour, those two points better a few times
        save = cfg.save_score if cfg.save_score is not None else min(puzzle.max_score, self.target + 2)
        self.save_slips = puzzle.max_score - save
        self.totals = DepthStats.zeros(self.plan.n, most)
        self.best_slips = 1 << 40
        self.runs = 0
        self.current: SlipSearch | None = None  # the run under way (its counts join totals at its end)
        self.cpu0 = time.process_time()

    def counters(self, rng: np.random.Generator):
        """(mask per piece, lo, hi) for run's group and schedule, or (None, None, None)."""
        cfg, n = self.cfg, self.plan.n
        masks, los, his = [], [], []
        if cfg.groups:
            from .groups import EII_CHECKPOINTS

            g = cfg.groups[int(rng.integers(len(cfg.groups)))]
            lo, hi = checkpoint_bounds(g, n, cfg.checkpoints or EII_CHECKPOINTS)
            masks.append(g.counter_mask())
            los.append(lo)
            his.append(hi)
        if cfg.schedule is not None:
            c = cfg.schedule.carriers(self.P).astype(np.int64) << (3 if cfg.groups else 0)
            masks.append(c)
            los.append(cfg.schedule.bounds(n)[None, :])
            his.append(np.full((1, n + 1), n + 1, dtype=np.int64))
        if not masks:
            return None, None, None
        return (np.bitwise_or.reduce(masks) if len(masks) > 1 else masks[0], np.concatenate(los), np.concatenate(his))

    def start_run(self, i: int) -> SlipSearch:
        rng = np.random.default_rng([self.seed, i])
        plan = self.plan.shuffled(rng)
        mask, lo, hi = self.counters(rng)
        s = SlipSearch(plan, self.allow, self.save_slips, mask, lo, hi)
        s.state[7] = self.best_slips  # only boards better than the process's best come back unasked
        return s

    def run_all(self, deadline: float | None, node_limit: int | None, emit: Callable[..., None],
                halt: Callable[[], bool] | None = None) -> None:
        """Runs until the deadline, ``node_limit`` nodes or ``halt()``; ``emit(kind, **data)``
        hears boards ("board") and counts ("stats")."""
        cfg, rules = self.cfg, self.cfg.rules
        i = self.slot + 1
        nodes_done = 0
        last_report = time.monotonic()
        cpu0 = self.cpu0 = time.process_time()
        while True:
            self.runs += 1
            s = self.current = self.start_run(i)
            run_deepest_checks = 0
            window_hits0, next_visit_check, next_window = 0, rules.visited_every, rules.window_nodes
            budget = (luby(self.runs_index(i)) * cfg.luby_unit) if cfg.restarts == "luby" else None
            stop = False
            while True:
                step = cfg.slice_nodes
                if node_limit is not None:
                    step = min(step, node_limit - nodes_done - s.nodes)
                if budget is not None:
                    step = min(step, budget - s.nodes)
                if step <= 0:
                    stop = node_limit is not None and nodes_done + s.nodes >= node_limit
                    break
                s.step(step)
                check_interrupt()
                if s.found:
                    self.best_slips = min(self.best_slips, s.found_slips)
                    emit("board", piece=s.out_piece[:self.plan.n].copy(), rot=s.out_rot[:self.plan.n].copy(),
                         slips=s.found_slips, run=i, nodes=s.nodes)
                now = time.monotonic()
                if now - last_report >= REPORT_SECONDS:
                    last_report = now
                    emit("stats", stats=self._snapshot(s, time.process_time() - cpu0), runs=self.runs)
                if s.done:
                    break
                if (deadline is not None and now >= deadline) or (halt is not None and halt()):
                    stop = True
                    break
                if cfg.restarts == "eii":
                    hits = int(s.stats.hits[:self.hit_slips + 1].sum()) if self.hit_slips >= 0 else 0
                    if s.nodes >= rules.depth_nodes and s.deepest <= rules.pass_depth:
                        break
                    if s.nodes >= rules.hit_nodes and hits == 0:
                        break
                    if s.nodes >= next_visit_check:
                        next_visit_check += rules.visited_every
                        run_deepest_checks += 1
                        if s.stats.most_visited() < rules.visited_depth:
                            break
                    if s.nodes >= next_window:
                        next_window += rules.window_nodes
                        if hits - window_hits0 < rules.window_hits:
                            break
                        window_hits0 = hits
            nodes_done += s.nodes
            self.totals.add(s.stats)
            self.current = None
            # (a run can end at once, its whole tree pruned by a checkpoint: the clock and the
            # budget are looked at here too)
            if (stop or cfg.restarts == "none" or (deadline is not None and time.monotonic() >= deadline)
                    or (node_limit is not None and nodes_done >= node_limit) or (halt is not None and halt())):
                break
            i += self.n_proc
        self.totals.nodes = nodes_done
        self.totals.seconds = time.process_time() - cpu0
        emit("stats", stats=self.totals.copy(), runs=self.runs, final=True)

    def runs_index(self, i: int) -> int:
        return (i - 1) // self.n_proc + 1

    def _snapshot(self, s: SlipSearch, cpu: float) -> DepthStats:
        t = self.totals.copy()
        t.add(s.stats)
        t.seconds = cpu
        return t


def luby(i: int) -> int:
    """Term ``i`` (from 1) of Luby's sequence 1, 1, 2, 1, 1, 2, 4, ..."""
    from ...backends.backtrack import luby as _luby

    return _luby(i)


def _child(parent: int, puzzle: Puzzle, cfg: SlipConfig, seed: int, slot: int, n_proc: int, deadline, node_limit,
           out, halt) -> None:
    child_setup(parent)
    w = Worker(puzzle, cfg, seed, slot, n_proc)

    def emit(kind: str, **data) -> None:
        out.put((kind, slot, data))

    w.run_all(deadline, node_limit, emit, halt.is_set)
    out.put(("end", slot, {"runs": w.runs}))


def slip_search(puzzle: Puzzle, config: SlipConfig | None = None, *, seed: int = 0, threads: int = 1,
                time_limit: float | None = None, node_limit: int | None = None, save_dir: str | None = None,
                stats_path: str | None = None, on_progress: Callable[[dict], None] | None = None,
                on_best: Callable[[Board, int], None] | None = None) -> SlipResult:
    """Hunt high scores on ``puzzle`` with the edge-slipping backtracker of seed 001.

    Args:
        puzzle: any puzzle; its hints stay in place (Eternity II's piece 139 on I8 by default,
            ``emc.load("eternity2")``; the clue hints with :func:`with_clue_hints`).
        config: order, slip array, restart rules, heuristics (:class:`SlipConfig`).
        seed: the restarts' candidate orders and groups are drawn from ``(seed, run)``.
        threads: independent searching processes.
        time_limit: seconds (None: until ``node_limit`` or Ctrl-C).
        node_limit: nodes in all, shared evenly by the processes; with it the search is the
            same on every run with the same inputs.
        save_dir: where found boards go as they are found (None: kept in memory only).
        stats_path: where the per-depth counts go at the end (JSON, ``emc slip estimate`` reads it).
        on_progress: called about once a second with a dict (nodes, best score, hits, runs).
        on_best: called with each board better than all before it (verified) and its score.

    Returns:
        :class:`SlipResult`. Ctrl-C ends the search and still returns (``interrupted``).
    """
    cfg = config or SlipConfig()
    if cfg.restarts not in ("eii", "luby", "none"):
        raise InputError(f"unknown restarts {cfg.restarts!r} (choose from: eii, luby, none)")
    if save_dir is not None:
        Path(save_dir).mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    deadline = None if time_limit is None else t0 + time_limit
    n_proc = max(1, int(threads))
    main = Worker(puzzle, cfg, seed)  # checks the settings before any process starts
    saved: list[Found] = []
    best: list[Any] = [None, None]
    stats_by: dict[int, DepthStats] = {}
    runs_by: dict[int, int] = {}
    arr = main.array
    config_doc = {"order": cfg.order, "slip_array": arr.as_list(), "slip_base": arr.base, "restarts": cfg.restarts,
                  "seed": seed, "threads": n_proc, "groups": len(cfg.groups or []),
                  "schedule": cfg.schedule.text() if cfg.schedule else None,
                  "hit_score": puzzle.max_score - main.hit_slips, "save_score": puzzle.max_score - main.save_slips}
    last_progress = [0.0]

    def on_board(slot: int, data: dict) -> None:
        # a Ctrl-C waits until the board is checked, kept and written (then ends the search)
        with held_interrupts() as held:
            keep_board(slot, data)
        if held.seen:
            raise KeyboardInterrupt

    def keep_board(slot: int, data: dict) -> None:
        b = Board.from_hints(puzzle)
        for j, cell in enumerate(main.plan.order):
            b.place(int(cell), int(data["piece"][j]), int(data["rot"][j]))
        score = check_board(puzzle, b, int(data["slips"]))
        f = Found(b, score, int(data["run"]), slot)
        if save_dir is not None and score >= puzzle.max_score - main.save_slips:
            f.path = save_board(puzzle, b, save_dir, {"method": "slip", "score": score, "seed": seed,
                                                      "run": f.run, "process": slot, "found_at_nodes": int(data["nodes"]),
                                                      "order": cfg.order, "slip_array": arr.as_list()})
        if score >= puzzle.max_score - main.save_slips:
            saved.append(f)
            from ..core.found import found

            found(b, score, "slip")  # a record hunt's collector, if a campaign runs this search
        if best[1] is None or score > best[1]:
            best[0], best[1] = b, score
            if on_best is not None:
                on_best(b, score)

    def on_stats(slot: int, data: dict) -> None:
        stats_by[slot] = data["stats"]
        runs_by[slot] = data["runs"]
        now = time.monotonic()
        if on_progress is not None and now - last_progress[0] >= 1.0:
            last_progress[0] = now
            tot = _total(stats_by, main)
            on_progress({"nodes": tot.nodes, "seconds": now - t0, "best_score": best[1],
                         "hits": tot.hits_by_score(puzzle.max_score), "runs": sum(runs_by.values()),
                         "nodes_per_second": tot.nodes / tot.seconds if tot.seconds else 0})

    def emit(kind: str, **data) -> None:
        (on_board if kind == "board" else on_stats)(0, data)

    interrupted = False
    if n_proc == 1:
        try:
            main.run_all(deadline, node_limit, emit)
        except KeyboardInterrupt:
            interrupted = True
            stats_by[0] = main.totals.copy()
            if main.current is not None:  # the counts of the run Ctrl-C cut short
                stats_by[0].add(main.current.stats)
            stats_by[0].seconds = time.process_time() - main.cpu0
    else:
        ctx = process_context()
        SlipSearch(main.plan, main.allow).step(0)  # compile or load the kernel before forking
        out = ctx.Queue()
        halt = ctx.Event()  # set on Ctrl-C: the processes finish their slice and send their counts
        share = None if node_limit is None else [node_limit // n_proc + (k < node_limit % n_proc) for k in range(n_proc)]
        procs = [ctx.Process(target=_child, args=(os.getpid(), puzzle, cfg, seed, k, n_proc, deadline,
                                                  None if share is None else share[k], out, halt), daemon=True)
                 for k in range(n_proc)]
        for p in procs:
            start_child(p)
        ended: set[int] = set()
        try:
            while len(ended) < n_proc:
                check_interrupt()
                try:
                    kind, slot, data = out.get(timeout=0.2)
                except queue.Empty:
                    if not any(p.is_alive() for p in procs):
                        break
                    continue
                if kind == "end":
                    ended.add(slot)
                elif kind == "board":
                    on_board(slot, data)
                else:
                    on_stats(slot, data)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            with held_interrupts() as held:
                halt.set()
                end = time.monotonic() + 5  # a slice is well under a second
                while len(ended) < n_proc and time.monotonic() < end and any(p.is_alive() for p in procs):
                    try:
                        kind, slot, data = out.get(timeout=0.1)
                    except queue.Empty:
                        continue
                    if kind == "end":
                        ended.add(slot)
                    elif kind == "board":
                        on_board(slot, data)
                    else:
                        on_stats(slot, data)
                for p in procs:
                    if p.is_alive():
                        p.terminate()
                for p in procs:
                    p.join(timeout=5)
                while True:  # boards and counts already sent
                    try:
                        kind, slot, data = out.get_nowait()
                    except (queue.Empty, OSError, ValueError):
                        break
                    if kind == "board":
                        on_board(slot, data)
                    elif kind == "stats":
                        on_stats(slot, data)
            interrupted = interrupted or held.seen
        if not interrupted and len(ended) < n_proc and (deadline is None or time.monotonic() < deadline):
            codes = sorted({p.exitcode for p in procs if p.exitcode})
            raise RuntimeError(f"a slipping search process failed (exit code {', '.join(map(str, codes))})")
    total = _total(stats_by, main)
    result = SlipResult(best[0], best[1], puzzle.max_score, total, saved, sum(runs_by.values()) or main.runs, n_proc,
                        time.monotonic() - t0, interrupted, config_doc)
    if stats_path is not None:
        from ...io import write_text
        import json

        total.info = {"order": cfg.order, "slip_array": arr.as_list(), "slip_base": arr.base,
                      "puzzle": {"name": puzzle.name, "sha256": puzzle.sha256}, "config": config_doc}
        write_text(stats_path, json.dumps(total.document(puzzle.max_score)) + "\n")
    return result


def _total(stats_by: dict[int, DepthStats], main: Worker) -> DepthStats:
    t = DepthStats.zeros(main.plan.n, int(main.allow.max()) if main.plan.n else 0)
    for s in stats_by.values():
        t.add(s)
    return t


#: Eternity II's four clue hints, revealed by the clue puzzles' prizes: (row, column, piece,
#: turns clockwise), 1-based, rows from the top (eii's C3, C14, N3, N14). The turns were matched
#: colour for colour against a public solver's table of the same pieces (the mandatory hint,
#: piece 139 turned twice on I8, comes out the same way there as in emc's instance).
CLUE_HINTS = ((3, 3, 208, 3), (3, 14, 255, 3), (14, 3, 181, 3), (14, 14, 249, 0))


def with_clue_hints(puzzle: Puzzle) -> Puzzle:
    """Eternity II with its four clue hints added to the hints it has (piece 139 on I8)."""
    from ...model import Hint

    if (puzzle.width, puzzle.height, puzzle.n_pieces) != (16, 16, 256):
        raise InputError(f"the clue hints are Eternity II's; {puzzle.name} is {puzzle.size}")
    have = {h.piece for h in puzzle.hints}
    extra = [Hint((r - 1) * 16 + c - 1, p - 1, k) for r, c, p, k in CLUE_HINTS if p - 1 not in have]
    return puzzle.with_hints(tuple(puzzle.hints) + tuple(extra), name=puzzle.name + "-clues")


__all__ = ["RestartRules", "SlipConfig", "SlipResult", "slip_search", "save_board", "board_edges", "viewer_url",
           "with_clue_hints"]
