"""Campaign specs: a TOML file naming instances, methods (with options) or backends, seeds, time
limits and repetitions, whose product is the list of runs.

A spec is read and checked whole before anything runs: an unknown instance, method, backend or
option, a value an option does not take, a malformed file: one :class:`~emc.errors.InputError`
naming the spec file, the line and the reason (the command line prints it as one line and exits
with status 2). The minimal form::

    instances = ["meta-10x10", "set2-6x6"]
    seeds = [1, 2]
    time_limit = 5

    [[methods]]
    name = "matheuristic"
    options = {}

Every key is described in ``docs/campaigns.md`` and in :data:`TOP_KEYS` / :data:`METHOD_KEYS`.
Each run has a *key*: a digest of what determines it (instance and its pieces, method or backend
and options, seed, time limit, repetition). The store keeps runs by key, so running the same
spec again skips what is stored, and a spec that grows (more seeds) runs only the new runs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..model import Puzzle

#: The keys of a spec's top level, and what each holds.
TOP_KEYS = {
    "name": "the campaign's name (default: the spec file's name without .toml)",
    "description": "a line or two on what the campaign measures",
    "instances": "shipped instance names, puzzle files (relative to the spec's folder) or generated puzzles "
                 "(generate:WxH:MODEL:COUNTS:SEEDS, colour counts as lists like 6-10)",
    "seeds": "a list of seeds, or {from = A, to = B} for A..B",
    "time_limit": "seconds per run: a number, a list (one run per value), or a table instance -> number or list",
    "repetitions": "runs of each (instance, configuration, seed, time limit); default 1",
    "methods": "[[methods]] tables: one configuration each (or a grid of them)",
    "hunt": "[hunt] threshold = N (or a table instance -> N): boards with at least N matched edges are "
            "collected as the runs find them",
}

#: The keys of one ``[[methods]]`` table.
METHOD_KEYS = {
    "name": "a registered method (emc methods)",
    "backend": "a solver backend (emc backends), instead of a method: exact solving or counting",
    "task": "for a backend: solve (default) or count",
    "goal": "for a backend's solve: feasibility (default) or optimisation",
    "threads": "for a backend's solve: solver threads (default 1)",
    "options": "the method's (or backend's) options, a table",
    "grid": "options with a list of values each: one configuration per combination",
    "label": "the configuration's name in reports (default: name and options)",
    "time_limit": "this configuration's time limit, overriding the top-level one (same forms)",
    "paper": "published figures to report beside: {table = \"seed003-table5\"} or with row = \"...\" "
             "(emc campaign papers lists them)",
}

MAX_RUNS = 10_000_000

#: The prefix of a generated instance in ``instances``.
GENERATE = "generate:"


def generated_instances(text: str) -> list[Instance]:
    """The puzzles of one ``generate:`` entry: ``emc suite --generate``'s form (WxH, the model,
    its colour counts, the seeds) after the prefix, where each colour count may be a list or a
    range (``generate:8x8:frame-inner-balanced:3:6-10:1-5`` is 25 puzzles). Each is labelled
    with its name (``gen-8x8-f3-i6-bal-s1``) and its planted board is checked, as
    ``emc hardness`` checks the puzzles of a sweep."""
    import itertools

    from ..hardness import check_planted, parse_counts
    from ..suite import draw_generated, parse_generate

    parts = text[len(GENERATE):].split(":")
    tail = parts[-2:] if parts[-1] == "distinct" else parts[-1:]
    named = len(parts) > 1 and not parts[1][:1].isdigit()  # a model (or hardest) after the size
    head = 2 if named else 1
    counts = parts[head:max(head, len(parts) - len(tail))]
    if len(parts) < 3 or (not counts and parts[1] != "hardest"):
        raise InputError("expected generate:WxH:MODEL:COUNTS:SEEDS (emc suite --generate's form, each colour "
                         "count a number or a list like 6-10), e.g. generate:8x8:frame-inner-balanced:3:6-10:1-5")
    lists = [parse_counts(c, "a colour count") for c in counts]
    out = []
    for combo in itertools.product(*lists):
        one = ":".join(parts[:head] + [str(c) for c in combo] + tail)
        try:
            drawn = parse_generate(one)
        except InputError as exc:  # said of emc suite's option: say it of this entry
            raise InputError(exc.reason.replace(f"--generate {one!r}: ", "")) from None
        for g in drawn:
            puzzle, planted, _ = draw_generated(g)
            check_planted(puzzle, planted)
            out.append(Instance(puzzle.name, puzzle))
    return out


@dataclass(frozen=True)
class Instance:
    """One instance of a campaign: ``label`` as the spec names it, and its puzzle."""

    label: str
    puzzle: Puzzle = field(repr=False, compare=False)


@dataclass(frozen=True)
class Config:
    """One configuration: a method with its options, or a backend with its task.

    Attributes:
        kind: ``method`` or ``backend``.
        name: the registry name.
        task: ``optimise`` (methods), ``solve`` or ``count`` (backends).
        goal: a backend solve's goal (``feasibility`` or ``optimisation``), else None.
        threads: a backend solve's threads (1 elsewhere).
        options: the options the spec gives, checked and converted (what the run is keyed by).
        resolved: every option's value, defaults filled (methods), or the options (backends).
        label: its name in reports.
        target: ``module:Class`` of the method or backend, so that a worker that does not share
            this process's registry (a Dask worker on another machine) imports it directly.
        paper: the published figures to report beside (``{"table": ..., "row": ...}``) or None.
    """

    kind: str
    name: str
    task: str
    goal: str | None
    threads: int
    options: dict
    resolved: dict
    label: str
    target: str
    paper: dict | None = None

    @property
    def key(self) -> str:
        """A digest of what determines the configuration's runs (not its label)."""
        return digest({"kind": self.kind, "name": self.name, "task": self.task, "goal": self.goal,
                       "threads": self.threads, "options": self.options})[:16]


@dataclass(frozen=True)
class Run:
    """One planned run."""

    position: int
    instance: Instance
    config: Config
    seed: int
    time_limit: float | None
    repetition: int
    threshold: int | None  # record hunts: boards with at least this score are collected

    @property
    def key(self) -> str:
        return digest({"instance": self.instance.label, "puzzle": self.instance.puzzle.sha256,
                       "config": self.config.key, "seed": self.seed, "time_limit": self.time_limit,
                       "repetition": self.repetition})[:24]

    def task(self, run_id: int) -> dict:
        """What a worker needs to run it (picklable; no registry lookup needed there)."""
        c = self.config
        return {"run_id": run_id, "key": self.key, "instance": self.instance.label, "puzzle": self.instance.puzzle,
                "kind": c.kind, "name": c.name, "target": c.target, "task": c.task, "goal": c.goal,
                "threads": c.threads, "options": c.options, "seed": self.seed, "time_limit": self.time_limit,
                "threshold": self.threshold}


@dataclass
class Spec:
    """A checked campaign spec and its runs, in the order they are started (repetition, then
    seed outermost, so an interrupted campaign holds the first seeds of every configuration)."""

    path: Path
    text: str
    name: str
    description: str
    instances: list[Instance]
    configs: list[Config]
    seeds: list[int]
    repetitions: int
    runs: list[Run]
    hunt: dict | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


def digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


# --------------------------------------------------------------------------- locating lines


class _Lines:
    """Finds the line a key or value of the spec sits on, for error messages (tomllib gives no
    positions once a file is read). Blocks are the top level and each ``[table]`` or
    ``[[array]]`` header with the lines under it."""

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.blocks: list[tuple[str, int, int]] = [("", 0, len(self.lines))]  # (header, first index, end)
        for i, line in enumerate(self.lines):
            m = re.match(r"\s*\[\[?\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?", line)
            if m and not re.match(r"\s*\[[^\]]*\]\s*=", line):
                name = m.group(1).strip().strip("\"'")
                prev = self.blocks[-1]
                self.blocks[-1] = (prev[0], prev[1], i)
                self.blocks.append((name, i, len(self.lines)))

    def _block(self, table: str | None, index: int | None) -> tuple[int, int]:
        if table is None:
            return self.blocks[0][1], self.blocks[0][2]
        found = [b for b in self.blocks if b[0] == table or b[0].startswith(table + ".")]
        heads = [b for b in self.blocks if b[0] == table]
        if index is not None and index < len(heads):
            start = heads[index][1]
            following = [b for b in self.blocks if b[1] > start and b[0] == table]
            end = following[0][1] if following else len(self.lines)
            return start, end
        if found:
            return found[0][1], found[-1][2]
        return 0, len(self.lines)

    def key(self, key: str, table: str | None = None, index: int | None = None) -> int | None:
        """1-based line of ``key =`` (in table ``table``, its ``index``-th entry for an array of
        tables), or None."""
        start, end = self._block(table, index)
        pat = re.compile(r"(^|[{,\s])\"?" + re.escape(key) + r"\"?\s*=")
        for i in range(start, end):
            if pat.search(self.lines[i].split("#", 1)[0]):
                return i + 1
        return None

    def value(self, value: Any, table: str | None = None, index: int | None = None) -> int | None:
        """1-based line where ``value`` is written (a string in quotes, or a number), or None."""
        start, end = self._block(table, index)
        needle = json.dumps(value) if isinstance(value, str) else str(value)
        for i in range(start, end):
            if needle in self.lines[i].split("#", 1)[0]:
                return i + 1
        return None

    def header(self, table: str, index: int) -> int | None:
        heads = [b for b in self.blocks if b[0] == table]
        return heads[index][1] + 1 if index < len(heads) else None


# --------------------------------------------------------------------------- reading


def read_spec(path: str | Path, check_available: bool = True) -> Spec:
    """Read and check the spec at ``path``: every instance loaded, every method and backend and
    option checked. InputError (file, line, reason) on anything wrong."""
    import tomllib

    path = Path(path)
    try:
        data_bytes = path.read_bytes()
    except IsADirectoryError:
        raise InputError("is a folder, not a campaign spec (a .toml file)", path) from None
    except OSError as exc:
        raise InputError(f"cannot read the campaign spec ({exc.strerror or exc})", path) from None
    try:
        text = data_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data_bytes[: exc.start].count(b"\n") + 1
        raise InputError("not UTF-8 text (a campaign spec is a TOML file)", path, line) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\s*\(at line (\d+), column \d+\)$", msg)
        line = int(m.group(1)) if m else (len(text.splitlines()) or 1)
        reason = msg[: m.start()] if m else re.sub(r"\s*\(at end of document\)$", "", msg) + " at the end of the file"
        raise InputError(f"not valid TOML: {reason}", path, line) from None
    return _SpecReader(path, text, data, check_available).read()


class _SpecReader:
    def __init__(self, path: Path, text: str, data: dict, check_available: bool):
        self.path, self.text, self.data = path, text, data
        self.lines = _Lines(text)
        self.check_available = check_available

    def fail(self, reason: str, line: int | None = None):
        raise InputError(reason, self.path, line)

    def read(self) -> Spec:
        d = self.data
        for key in d:
            if key not in TOP_KEYS:
                import difflib

                close = difflib.get_close_matches(key, list(TOP_KEYS), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                self.fail(f"unknown key {key!r}{hint} (a spec takes: {', '.join(TOP_KEYS)})",
                          self.lines.key(key) or self.lines.header(key, 0))
        for key in ("instances", "seeds", "methods"):
            if key not in d:
                self.fail(f"the spec names no {key} (`{key} = ...`; docs/campaigns.md shows the format)", 1)
        name = d.get("name", self.path.stem)
        if not isinstance(name, str) or not name.strip():
            self.fail(f"name is a non-empty string, not {name!r}", self.lines.key("name"))
        description = d.get("description", "")
        if not isinstance(description, str):
            self.fail(f"description is a string, not {description!r}", self.lines.key("description"))
        instances = self.instances(d["instances"])
        seeds = self.seeds(d["seeds"])
        reps = d.get("repetitions", 1)
        if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
            self.fail(f"repetitions is a whole number of at least 1, not {reps!r}", self.lines.key("repetitions"))
        labels = [i.label for i in instances]
        top_limits = self.time_limits(d.get("time_limit"), labels, None, None)
        methods = d["methods"]
        if not isinstance(methods, list) or not methods or not all(isinstance(m, dict) for m in methods):
            self.fail("methods is an array of tables: one [[methods]] block per configuration",
                      self.lines.key("methods") or self.lines.header("methods", 0))
        configs: list[tuple[Config, dict]] = []
        for i, entry in enumerate(methods):
            for config in self.configs(entry, i):
                limits = self.time_limits(entry["time_limit"], labels, "methods", i) if "time_limit" in entry \
                    else top_limits
                configs.append((config, limits))
        seen: dict[str, str] = {}
        by_label: dict[str, int] = {}
        for i, (c, _) in enumerate(configs):
            if c.label in by_label:
                self.fail(f"two configurations are labelled {c.label!r}: give each its own label",
                          self.lines.value(c.label) or self.lines.header("methods", i))
            by_label[c.label] = i
            if c.key in seen:
                self.fail(f"configurations {seen[c.key]!r} and {c.label!r} are the same (one method, the same "
                          "options): give each once", self.lines.header("methods", min(i, len(methods) - 1)))
            seen[c.key] = c.label
        if any(c.kind == "backend" for c, _ in configs) and max(seeds) > 2**31 - 1:
            self.fail(f"seed {max(seeds)} is too large for the solvers (backends take seeds up to {2**31 - 1:,})",
                      self.lines.key("seeds"))
        hunt = self.hunt(d.get("hunt"), labels)
        runs: list[Run] = []
        total = len(seeds) * reps * sum(len(lim[label]) for _, lim in configs for label in labels)
        if total > MAX_RUNS:
            self.fail(f"the spec makes more than {MAX_RUNS:,} runs")
        for rep in range(reps):
            for seed in seeds:
                for inst in instances:
                    for config, limits in configs:
                        for limit in limits[inst.label]:
                            threshold = None if hunt is None else hunt["threshold"].get(inst.label)
                            runs.append(Run(len(runs), inst, config, seed, limit, rep, threshold))
        return Spec(self.path, self.text, name.strip(), description, instances, [c for c, _ in configs], seeds, reps,
                    runs, hunt)

    # ---------------------------------------------------------------- parts
    def instances(self, value) -> list[Instance]:
        from ..instances import resolve

        line = self.lines.key("instances")
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            self.fail("instances is a non-empty list of instance names or puzzle files (strings)", line)
        out: list[Instance] = []
        for label in value:
            where = self.lines.value(label) or line
            if not label.strip():
                self.fail("an empty instance name", where)
            if label.startswith(GENERATE):
                try:
                    drawn = generated_instances(label)
                except InputError as exc:
                    self.fail(f"instance {label!r}: {exc.reason}", where)
            else:
                local = self.path.parent / label
                try:
                    drawn = [Instance(label, resolve(str(local) if local.is_file() else label))]
                except InputError as exc:
                    self.fail(f"instance {label!r}: {exc}", where)
            for inst in drawn:
                if inst.label in (i.label for i in out):
                    self.fail(f"instance {inst.label!r} is named twice", where)
                out.append(inst)
        return out

    def seeds(self, value) -> list[int]:
        line = self.lines.key("seeds")
        if isinstance(value, dict):
            unknown = set(value) - {"from", "to"}
            lo, hi = value.get("from"), value.get("to")
            if unknown or not all(isinstance(x, int) and not isinstance(x, bool) for x in (lo, hi)):
                self.fail("seeds is a list of whole numbers or a table {from = A, to = B}", line)
            if lo < 0 or hi < lo:
                self.fail(f"seeds from {lo} to {hi}: need 0 <= from <= to", line)
            if hi - lo + 1 > MAX_RUNS:
                self.fail(f"seeds from {lo} to {hi} is more than {MAX_RUNS:,} seeds", line)
            return list(range(lo, hi + 1))
        if not isinstance(value, list) or not value:
            self.fail("seeds is a non-empty list of whole numbers, or a table {from = A, to = B}", line)
        for s in value:
            if isinstance(s, bool) or not isinstance(s, int) or s < 0:
                self.fail(f"a seed is a whole number of at least 0, not {s!r}", line)
        if len(set(value)) != len(value):
            dup = next(s for s in value if value.count(s) > 1)
            self.fail(f"seed {dup} is listed twice (repetitions = N runs each seed N times)", line)
        return list(value)

    def _seconds(self, value, where: int | None, what: str) -> list[float | None]:
        vals = value if isinstance(value, list) else [value]
        if not vals:
            self.fail(f"{what} is an empty list", where)
        out = []
        for v in vals:
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) or v <= 0:
                self.fail(f"{what} is a positive number of seconds (or a list of them), not {v!r}", where)
            out.append(float(v))
        if len(set(out)) != len(out):
            self.fail(f"{what} lists a time limit twice", where)
        return out

    def time_limits(self, value, labels: list[str], table: str | None, index: int | None) -> dict[str, list]:
        """instance label -> the time limits of its runs ([None]: no time limit)."""
        line = self.lines.key("time_limit", table, index)
        if value is None:
            return {label: [None] for label in labels}
        if isinstance(value, dict):
            line = line or self.lines.header("time_limit", 0)
            for k in value:
                if k not in labels:
                    self.fail(f"time_limit names {k!r}, which is not one of the instances ({', '.join(labels)})",
                              self.lines.key(k, "time_limit") or line)
            missing = [label for label in labels if label not in value]
            if missing:
                self.fail(f"time_limit gives no time for {', '.join(missing)} (a table names every instance)", line)
            return {k: self._seconds(v, self.lines.key(k, "time_limit") or line, f"time_limit of {k}")
                    for k, v in value.items()}
        secs = self._seconds(value, line, "time_limit")
        return {label: secs for label in labels}

    def hunt(self, value, labels: list[str]) -> dict | None:
        if value is None:
            return None
        line = self.lines.header("hunt", 0) or self.lines.key("hunt")
        if not isinstance(value, dict) or set(value) != {"threshold"}:
            self.fail("hunt is a table with one key: threshold = N (or threshold = {instance = N, ...})", line)
        t = value["threshold"]
        where = self.lines.key("threshold", "hunt") or line

        def whole(v, what):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                self.fail(f"{what} is a whole number of matched edges, not {v!r}", where)
            return v

        if isinstance(t, dict):
            for k in t:
                if k not in labels:
                    self.fail(f"hunt threshold names {k!r}, which is not one of the instances", where)
            return {"threshold": {k: whole(v, f"the hunt threshold of {k}") for k, v in t.items()}}
        return {"threshold": {label: whole(t, "the hunt threshold") for label in labels}}

    def configs(self, entry: dict, i: int) -> list[Config]:
        lines = self.lines
        head = lines.header("methods", i)

        def at(key):
            return lines.key(key, "methods", i) or head

        for key in entry:
            if key not in METHOD_KEYS:
                self.fail(f"[[methods]] entry {i + 1}: unknown key {key!r} (an entry takes: {', '.join(METHOD_KEYS)})",
                          at(key))
        if ("name" in entry) == ("backend" in entry):
            self.fail(f"[[methods]] entry {i + 1}: give either name = METHOD or backend = BACKEND", head)
        options = entry.get("options", {})
        if not isinstance(options, dict):
            self.fail(f"options is a table (options = {{key = value}}), not {options!r}", at("options"))
        grid = entry.get("grid", {})
        if not isinstance(grid, dict) or not all(isinstance(v, list) and v for v in grid.values()):
            self.fail("grid is a table of non-empty lists (grid = {ta_n = [500, 1000]})", at("grid"))
        both = set(options) & set(grid)
        if both:
            self.fail(f"option {sorted(both)[0]!r} is given in both options and grid", at(sorted(both)[0]))
        label = entry.get("label")
        if label is not None and (not isinstance(label, str) or not label.strip()):
            self.fail(f"label is a non-empty string, not {label!r}", at("label"))
        paper = self.paper(entry.get("paper"), at("paper"))
        points = [dict(zip(grid, combo)) for combo in itertools.product(*grid.values())] if grid else [{}]
        out = []
        for point in points:
            given = {**options, **point}
            if "backend" in entry:
                config = self.backend_config(entry, given, i, at)
            else:
                config = self.method_config(entry, given, i, at)
            text = label.strip() if label else config.label
            if point and label:
                text += " " + " ".join(f"{k}={_text(v)}" for k, v in point.items())
            out.append(Config(config.kind, config.name, config.task, config.goal, config.threads, config.options,
                              config.resolved, text, config.target, paper))
        return out

    def method_config(self, entry: dict, given: dict, i: int, at) -> Config:
        from ..heuristics import METHODS, method_class

        name = entry["name"]
        for key in ("task", "goal", "threads"):
            if key in entry:
                self.fail(f"{key} is for backends (backend = NAME); a method takes its settings in options", at(key))
        if not isinstance(name, str):
            self.fail(f"name is a method's name, not {name!r}", at("name"))
        try:
            cls = method_class(name)
        except InputError as exc:
            self.fail(str(exc), at("name"))
        if self.check_available and not cls.available():
            self.fail(f"method {name!r} is not available here: install it with `{cls.install_hint}`", at("name"))
        checked = {}
        for key, value in given.items():
            try:
                checked[key] = cls.option(key).check(name, value)
            except InputError as exc:
                self.fail(str(exc), at(key) if _has_key(self.lines, key, i) else at("options"))
        try:
            resolved = cls.resolve(checked)
        except InputError as exc:
            self.fail(str(exc), at("options"))
        label = name + ("" if not checked else " " + " ".join(f"{k}={_text(v)}" for k, v in checked.items()))
        return Config("method", name, "optimise", None, 1, jsonable(checked), jsonable(resolved), label,
                      METHODS[name])

    def backend_config(self, entry: dict, given: dict, i: int, at) -> Config:
        from ..backends import BACKENDS, Capability, backend_class
        from ..model import Goal

        name = entry["backend"]
        if not isinstance(name, str):
            self.fail(f"backend is a backend's name, not {name!r}", at("backend"))
        try:
            cls = backend_class(name)
        except InputError as exc:
            self.fail(str(exc), at("backend"))
        if self.check_available and not cls.available():
            self.fail(f"backend {name!r} is not available here: install it with `{cls.install_hint}`", at("backend"))
        task = entry.get("task", "solve")
        if task not in ("solve", "count"):
            self.fail(f"task is solve or count, not {task!r}", at("task"))
        goal = entry.get("goal", "feasibility" if task == "solve" else None)
        threads = entry.get("threads", 1)
        if task == "count":
            if "goal" in entry or "threads" in entry:
                self.fail("a count has no goal or threads (it enumerates perfect boards with one worker)",
                          at("goal" if "goal" in entry else "threads"))
            if Capability.ENUMERATION not in cls.capabilities:
                self.fail(f"backend {name!r} cannot count solutions", at("backend"))
            goal_value = Goal.FEASIBILITY
        else:
            try:
                goal_value = Goal.of(goal)
            except InputError as exc:
                self.fail(str(exc), at("goal"))
            goal = goal_value.value
            if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
                self.fail(f"threads is a whole number of at least 1, not {threads!r}", at("threads"))
        try:
            backend = cls()
            if task == "count":
                if backend.options is not None:
                    from ..backends.base import check_options

                    check_options(name, given, backend.options)
                backend.check_option_values(goal_value, given)
            else:
                backend.check_request(goal_value, dict(given))
        except InputError as exc:
            self.fail(str(exc), at("options"))
        label = f"{name} {task}" + (f" {goal}" if task == "solve" and goal != "feasibility" else "")
        label += "" if not given else " " + " ".join(f"{k}={_text(v)}" for k, v in given.items())
        return Config("backend", name, task, goal if task == "solve" else None, threads if task == "solve" else 1,
                      jsonable(given), jsonable(given), label, BACKENDS[name])

    def paper(self, value, line: int | None) -> dict | None:
        if value is None:
            return None
        from .published import comparable

        if isinstance(value, str):
            value = {"table": value}
        if not isinstance(value, dict) or "table" not in value or set(value) - {"table", "row"}:
            self.fail("paper is {table = \"seed003-table5\"} or {table = ..., row = ...} (emc campaign papers lists "
                      "the tables)", line)
        try:
            t = comparable(value["table"])
        except InputError as exc:
            self.fail(str(exc), line)
        row = value.get("row")
        if row is not None:
            rows = t.row_labels()
            if row not in rows:
                self.fail(f"{t.id} has no row {row!r} (its rows: {', '.join(rows)})", line)
        elif t.needs_row:
            self.fail(f"{t.id} has several configurations: name one with row = ... (its rows: "
                      f"{', '.join(t.row_labels())})", line)
        return {"table": t.id, "row": row}


def _has_key(lines: _Lines, key: str, index: int) -> bool:
    return lines.key(key, "methods", index) is not None


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def jsonable(value):
    """``value`` with numpy scalars and tuples made plain JSON."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    return value
