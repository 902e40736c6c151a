"""Campaigns (`emc campaign run | status | report | papers`): specs checked before anything runs,
the local pool and a real Dask LocalCluster storing the same results, killed campaigns resumed
with every run done exactly once, failed runs kept with their error, record hunts collecting
boards as found, and reports whose numbers are recomputed here from the store's raw rows."""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import emc
from emc.campaigns.execute import board_digest
from emc.campaigns.published import table, tables
from emc.campaigns.spec import read_spec
from emc.campaigns.store import Store
from emc.backends import get_backend
from emc.formats import parse_board, parse_puzzle
from emc.heuristics import METHODS
from emc.heuristics.core.found import collecting

from helpers import eventually

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def climb(monkeypatch):
    """The template method (deterministic for a seed and a moves budget), registered for the test."""
    monkeypatch.setitem(METHODS, "climb", "emc.heuristics.TEMPLATE:Climb")
    return "climb"


@pytest.fixture
def test_methods(monkeypatch, climb):
    for name, cls in (("flaky", "Flaky"), ("crash", "Crash"), ("wander", "Wander")):
        monkeypatch.setitem(METHODS, name, f"campaign_methods:{cls}")


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def rows(db: Path, sql: str = "SELECT * FROM runs ORDER BY position") -> list[dict]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql)]
    finally:
        conn.close()


def check_boards(db: Path) -> int:
    """Every board in the store is a valid board of its puzzle scoring what the row says."""
    conn = sqlite3.connect(db)
    puzzles = {sha: parse_puzzle(text, name=name)
               for sha, name, text in conn.execute("SELECT sha256, name, text FROM puzzles")}
    n = 0
    for sha, text, claimed in list(conn.execute("SELECT puzzle_sha256, board, score FROM runs WHERE board IS NOT NULL")) \
            + list(conn.execute("SELECT r.puzzle_sha256, b.board, b.score FROM boards b JOIN runs r ON r.id = b.run_id")):
        P = puzzles[sha]
        board = parse_board(text, P)
        assert emc.verify(P, board).valid and emc.score(P, board) == claimed
        n += 1
    conn.close()
    return n


CLIMB_SPEC = """
    name = "tiny"
    instances = ["set2-4x4", "set2-5x5"]
    seeds = [1, 2, 3]

    [[methods]]
    name = "climb"
    options = {moves = 1500}

    [[methods]]
    name = "climb"
    label = "strict"
    options = {moves = 1500, sideways = false}
"""


# --------------------------------------------------------------------------- specs


def test_the_minimal_spec_of_the_issue_plans_its_product(tmp_path):
    spec = read_spec(write(tmp_path / "s.toml", """
        instances = ["meta-10x10", "set2-6x6"]
        seeds = [1, 2]
        time_limit = 5

        [[methods]]
        name = "matheuristic"
        options = {}
    """))
    assert spec.name == "s" and len(spec.runs) == 4
    assert [(r.seed, r.instance.label) for r in spec.runs] == [(1, "meta-10x10"), (1, "set2-6x6"), (2, "meta-10x10"),
                                                               (2, "set2-6x6")]
    assert {r.time_limit for r in spec.runs} == {5.0} and len({r.key for r in spec.runs}) == 4
    assert spec.configs[0].resolved["ta_n"] == 1000  # defaults filled in for the record


def test_the_product_covers_grids_limits_per_instance_and_repetitions(tmp_path, climb):
    spec = read_spec(write(tmp_path / "s.toml", """
        instances = ["set2-4x4", "set2-5x5"]
        seeds = {from = 3, to = 4}
        repetitions = 2
        [time_limit]
        "set2-4x4" = 10
        "set2-5x5" = [20, 40]

        [[methods]]
        name = "climb"
        grid = {moves = [100, 200], sideways = [true, false]}
    """))
    assert len(spec.configs) == 4 and len({c.key for c in spec.configs}) == 4
    # 2 reps x 2 seeds x 4 configurations x (1 limit + 2 limits)
    assert len(spec.runs) == 2 * 2 * 4 * 3 and len({r.key for r in spec.runs}) == len(spec.runs)
    assert {r.time_limit for r in spec.runs if r.instance.label == "set2-5x5"} == {20.0, 40.0}
    assert [r.repetition for r in spec.runs[:24]] == [0] * 24  # repetitions outermost, then seeds
    # the key is what determines a run: the same spec read again gives the same keys
    again = read_spec(tmp_path / "s.toml")
    assert [r.key for r in again.runs] == [r.key for r in spec.runs]


BAD_SPECS = [
    ("seeds = [1,\n", 1, "not valid TOML"),
    ('instances = ["set2-4x4"]\nseeds = [1]\ntime_limit = 5\nseeds = [2]\n[[methods]]\nname = "climb"\n', 4,
     "not valid TOML"),
    ('instances = ["set2-4x4"]\nseeds = [1]\ntimelimit = 5\n[[methods]]\nname = "climb"\n', 3,
     "unknown key 'timelimit'; did you mean 'time_limit'?"),
    ('instances = ["set2-4x4", "set2-44x4"]\nseeds = [1]\n[[methods]]\nname = "climb"\n', 1,
     "instance 'set2-44x4'"),
    ('instances = ["set2-4x4"]\nseeds = [1]\n\n[[methods]]\nname = "climb"\n\n[[methods]]\nname = "goa"\n', 8,
     "unknown method 'goa'; did you mean 'gao'?"),
    ('instances = ["set2-4x4"]\nseeds = [1]\n[[methods]]\nname = "climb"\noptions = {moves = 10, ta_q = 3}\n', 5,
     "unknown option of method 'climb' 'ta_q'"),
    ('instances = ["set2-4x4"]\nseeds = [1]\n[[methods]]\nname = "climb"\noptions = {moves = 0}\n', 5,
     "option moves of method 'climb' is at least 1, not 0"),
    ('instances = ["set2-4x4"]\nseeds = [1]\n[[methods]]\nbackend = "backtrak"\n', 4, "unknown backend 'backtrak'"),
    ('instances = ["set2-4x4"]\nseeds = [1]\n[[methods]]\nbackend = "backtrack"\noptions = {nosuch = 1}\n', 5,
     "unknown option(s) for backend 'backtrack': nosuch"),
    ('instances = ["set2-4x4", "set2-5x5"]\nseeds = [1]\n[time_limit]\n"set2-4x4" = 3\n[[methods]]\nname = "climb"\n',
     3, "time_limit gives no time for set2-5x5"),
    ('instances = ["set2-4x4"]\nseeds = [1, 1]\n[[methods]]\nname = "climb"\n', 2, "seed 1 is listed twice"),
    ('instances = ["set2-4x4"]\nseeds = [1]\n[[methods]]\nname = "climb"\npaper = {table = "seed003-table9"}\n', 5,
     "unknown published table 'seed003-table9'"),
    ('instances = ["set2-4x4"]\nseeds = [1]\n[[methods]]\nname = "climb"\npaper = {table = "seed000-table3"}\n', 5,
     "seed000-table3 has several configurations: name one with row"),
    ('instances = ["set2-4x4"]\nseeds = [1]\n[[methods]]\nname = "climb"\nbackend = "backtrack"\n', 3,
     "give either name = METHOD or backend = BACKEND"),
    ('instances = ["set2-4x4"]\nseeds = [1]\n[[methods]]\nname = "climb"\n[[methods]]\nname = "climb"\n', 5,
     "two configurations are labelled 'climb'"),
    ('instances = ["set2-4x4"]\nseeds = [1]\n', 1, "the spec names no methods"),
]


@pytest.mark.parametrize("text, line, words", BAD_SPECS)
def test_a_bad_spec_stops_everything_in_one_line_naming_file_and_line(cli, tmp_path, climb, text, line, words):
    spec = tmp_path / "bad.toml"
    spec.write_text(text)
    r = cli("campaign", "run", spec, "--workers", "1")
    assert r.code == 2, r
    assert r.err.count("\n") == 1 and "Traceback" not in r.err, r
    assert r.err.startswith(f"emc: error: {spec}:{line}: "), r
    assert words in r.err, r
    assert not (tmp_path / "bad.db").exists()  # checked before anything starts


def test_the_bench_specs_are_valid_except_for_methods_not_registered_yet(cli):
    specs = sorted((ROOT / "bench" / "campaigns").glob("*.toml"))
    assert any(p.name == "table5-short.toml" for p in specs)
    for path in specs:
        r = cli("campaign", "run", path, "--dry-run", "--store", os.devnull)
        missing = [m for m in ("gao",) if f'name = "{m}"' in path.read_text() and m not in METHODS]
        if missing:
            assert r.code == 2 and f"unknown method '{missing[0]}'" in r.err, (path.name, r)
        else:
            assert r.code == 0 and " runs" in r.out, (path.name, r)


def test_table5_short_is_seed_003s_table_v_at_a_tenth_of_the_time(monkeypatch):
    # gao is being written: a stand-in under its name lets the spec be read here
    monkeypatch.setitem(METHODS, "gao", "emc.heuristics.TEMPLATE:Climb")
    spec = read_spec(ROOT / "bench" / "campaigns" / "table5-short.toml")
    limits = {r.instance.label: r.time_limit for r in spec.runs}
    published = {r["instance"]: r["time_limit"] for r in table("seed003-table5").records()}
    assert limits == {k: v / 10 for k, v in published.items()}
    assert limits == {"meta-10x10": 120, "meta-12x12": 180, "meta-14x14": 240, "meta-16x16": 360,
                      "eternity2-nohint": 360}
    assert len(spec.seeds) == 5 and len(spec.runs) == 25
    assert [c.name for c in spec.configs] == ["gao"] and spec.configs[0].paper == {"table": "seed003-table5",
                                                                                  "row": None}


# --------------------------------------------------------------------------- running


def test_a_campaign_runs_is_stored_and_is_not_run_twice(cli, tmp_path, climb, no_processes_left):
    spec = write(tmp_path / "tiny.toml", CLIMB_SPEC)
    r = cli("campaign", "run", spec, "--workers", "2")
    assert r.code == 0 and "12 done, 0 failed of 12 to run" in r.out, r
    db = tmp_path / "tiny.db"
    runs = rows(db)
    assert len(runs) == 12 and {x["status"] for x in runs} == {"done"} and {x["attempts"] for x in runs} == {1}
    assert check_boards(db) == 12
    # every run carries its machine, emc version and times
    machines = rows(db, "SELECT * FROM machines")
    info = json.loads(machines[0]["info"])
    assert info["emc"] == emc.__version__ and info["cores"] >= 1 and info["cpu"] and info["python"]
    assert all(x["machine_id"] == machines[0]["id"] and x["emc_version"] == emc.__version__ and
               x["started"] <= x["ended"] and x["worker"] for x in runs)
    # the same as running the method directly: same seed, same moves, same board
    P = emc.load("set2-5x5")
    one = next(x for x in runs if x["instance"] == "set2-5x5" and x["seed"] == 2 and "sideways" not in
               json.loads(rows(db, f"SELECT options FROM configs WHERE key = '{x['config']}'")[0]["options"]))
    direct = emc.optimise(P, "climb", seed=2, moves=1500)
    assert parse_board(one["board"], P) == direct.board and one["score"] == direct.score
    # run again: nothing to do; a grown spec runs only its new runs
    r = cli("campaign", "run", spec, "--workers", "2")
    assert r.code == 0 and "nothing to run" in r.out, r
    write(spec, CLIMB_SPEC.replace("seeds = [1, 2, 3]", "seeds = [1, 2, 3, 4]"))
    r = cli("campaign", "run", spec, "--workers", "2")
    assert r.code == 0 and "4 done, 0 failed of 4 to run (12 already stored)" in r.out, r
    after = rows(db)
    assert len(after) == 16 and all(a == b for a, b in zip(sorted(runs, key=lambda x: x["id"]),
                                                            sorted(after, key=lambda x: x["id"])[:12]))
    assert {x["session_id"] for x in after if x["seed"] == 4} == {2}  # the run with nothing to do opened none


def test_a_failed_run_is_stored_with_its_error_and_the_others_go_on(cli, tmp_path, test_methods):
    spec = write(tmp_path / "f.toml", """
        instances = ["set2-4x4"]
        seeds = [1, 2, 3, 4]
        [[methods]]
        name = "flaky"
        options = {moves = 500}
        [[methods]]
        name = "crash"
        options = {moves = 500}
    """)
    r = cli("campaign", "run", spec, "--workers", "2")
    assert r.code == 0 and "6 done, 2 failed" in r.out and "warning: 2 runs failed" in r.err, r
    runs = {(x["seed"], x["config"]): x for x in rows(tmp_path / "f.db")}
    failed = [x for x in runs.values() if x["status"] == "failed"]
    assert len(failed) == 2 and all(x["board"] is None and x["score"] is None for x in failed)
    errors = sorted(x["error"] for x in failed)
    assert errors[0].startswith("ValueError: seed 2 fails on purpose")
    assert "the worker process died (exit status 3)" in errors[1]
    flaky = next(x for x in failed if x["error"].startswith("ValueError"))
    assert "raise ValueError" in flaky["traceback"]
    assert sum(x["status"] == "done" for x in runs.values()) == 6 and check_boards(tmp_path / "f.db") == 6
    # failed runs are not retried unless asked
    r = cli("campaign", "run", spec, "--workers", "2")
    assert "nothing to run" in r.out, r
    r = cli("campaign", "run", spec, "--workers", "2", "--retry-failed")
    assert r.code == 0 and "0 done, 2 failed of 2 to run" in r.out, r
    assert {x["attempts"] for x in rows(tmp_path / "f.db") if x["status"] == "failed"} == {2}


def test_a_backend_campaign_solves_and_counts_with_verified_results(cli, tmp_path):
    spec = write(tmp_path / "b.toml", """
        instances = ["set2-3x3", "set2-4x4"]
        seeds = [1]
        time_limit = 60
        [[methods]]
        backend = "backtrack"
        [[methods]]
        backend = "backtrack"
        task = "count"
    """)
    r = cli("campaign", "run", spec, "--workers", "1")
    assert r.code == 0 and "4 done" in r.out, r
    runs = rows(tmp_path / "b.db")
    solves = [x for x in runs if x["count"] is None]
    counts = {x["instance"]: x for x in runs if x["count"] is not None}
    assert all(x["score"] == x["max_score"] and x["stopped_by"] == "optimal" for x in solves)
    assert check_boards(tmp_path / "b.db") == 2
    for name, row in counts.items():
        truth = get_backend("backtrack").count(emc.Subproblem.whole(emc.load(name)))
        assert row["complete"] == 1 and row["count"] == truth.count >= 1


def test_the_writer_refuses_a_board_that_is_not_what_the_run_claims(climb):
    """The runner reads every board back and verifies it before the store takes it."""
    from emc.campaigns.execute import board_text, check_board, check_result

    P = emc.load("set2-5x5")
    run = emc.optimise(P, "climb", seed=1, moves=500)
    good = {"status": "done", "score": run.score, "board": board_text(P, run.board), "resolved_options": run.options}
    assert check_result(P, good) == good
    worse = run.board.copy()
    worse.rotation[6] = (worse.rotation[6] + 1) % 4  # an inner piece turned: fewer matched edges
    claim = {**good, "board": board_text(P, worse)}
    out = check_result(P, claim)
    assert out["status"] == "failed" and out["board"] is None
    assert out["error"] == f"the run claims {run.score} matched edges, its board has {emc.score(P, worse)}"
    twice = run.board.copy()
    twice.piece[7] = twice.piece[6]  # one piece on two cells
    assert "the board" in check_board(P, board_text(P, twice), None)
    assert check_board(P, board_text(emc.load("set2-4x4"), emc.optimise(emc.load("set2-4x4"), "climb",
                                                                            moves=10).board), None) is not None


def test_one_writer_per_store(cli, tmp_path, climb):
    spec = write(tmp_path / "tiny.toml", CLIMB_SPEC)
    with Store.writer(tmp_path / "tiny.db"):
        r = cli("campaign", "run", spec, "--workers", "1")
    assert r.code == 2 and "another `emc campaign run` is writing to this store" in r.err, r
    r = cli("campaign", "status", spec)
    assert r.code == 2 and "not an emc campaign store" in r.err, r


def children() -> set[int]:
    """Live processes whose parent is this one (a pool's or a cluster's workers left behind), but
    multiprocessing's resource tracker."""
    me, out = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me and fields[0] != "Z":
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    # multiprocessing's resource tracker serves this process until it exits (spawn starts it)
                    if b"multiprocessing.resource_tracker" not in f.read():
                        out.add(int(entry))
    return out


@pytest.fixture
def no_processes_left():
    """Fails the test if it leaves worker processes (a pool's, a Dask cluster's) behind."""
    before = children()
    yield
    assert eventually(lambda: children() <= before, timeout=30), children() - before


@pytest.mark.slow
def test_a_dask_local_cluster_stores_the_same_results_as_the_local_pool(cli, tmp_path, climb, no_processes_left):
    pytest.importorskip("distributed")
    spec = write(tmp_path / "tiny.toml", CLIMB_SPEC)
    r = cli("campaign", "run", spec, "--workers", "2", "--store", tmp_path / "pool.db")
    assert r.code == 0, r
    r = cli("campaign", "run", spec, "--cluster", "local", "--workers", "2", "--store", tmp_path / "dask.db")
    assert r.code == 0 and "12 done, 0 failed" in r.out, r
    pool, dask = rows(tmp_path / "pool.db"), rows(tmp_path / "dask.db")
    same = ("key", "instance", "config", "seed", "status", "score", "board", "iterations", "stopped_by",
            "resolved_options")
    assert [{k: x[k] for k in same} for x in pool] == [{k: x[k] for k in same} for x in dask]
    assert [[p["score"] for p in json.loads(x["trajectory"])] for x in pool] == \
           [[p["score"] for p in json.loads(x["trajectory"])] for x in dask]
    assert check_boards(tmp_path / "dask.db") == 12
    # the runs ran in the cluster's two worker processes, not in this one
    workers = {x["worker"] for x in dask}
    assert 1 <= len(workers) <= 2 and f"{os.getpid()}" not in {w.split(":")[1] for w in workers}
    session = rows(tmp_path / "dask.db", "SELECT * FROM sessions")[0]
    assert session["executor"].startswith("dask LocalCluster") and session["state"] == "finished"


# --------------------------------------------------------------------------- killed and resumed

DRIVER = """
import sys
from emc.heuristics import METHODS
from emc.heuristics.core.found import collecting
METHODS["climb"] = "emc.heuristics.TEMPLATE:Climb"
if __name__ == "__main__":
    from emc.cli import main
    sys.exit(main(sys.argv[1:]))
"""

SLOW_SPEC = """
    name = "slow"
    instances = ["set2-8x8"]
    seeds = {from = 1, to = 16}
    [[methods]]
    name = "climb"
    options = {moves = 6000}
"""


def start_campaign(tmp_path: Path, *args: str, group: bool = False) -> subprocess.Popen:
    """The campaign in a fresh Python process; ``group``: in a process group of its own, as a
    terminal's foreground job (a Ctrl-C there reaches the runner and its workers alike)."""
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, str(driver), "campaign", "run", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=group)


def done_count(db: Path) -> int:
    try:
        return len(rows(db, "SELECT id FROM runs WHERE status = 'done'"))
    except sqlite3.Error:
        return 0


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is gone for our purpose
        return f.read().split(")")[-1].split()[0] != "Z"


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_a_killed_campaign_resumes_running_each_run_exactly_once(cli, tmp_path, climb, how):
    spec = write(tmp_path / "slow.toml", SLOW_SPEC)
    db = tmp_path / "slow.db"
    proc = start_campaign(tmp_path, str(spec), "--workers", "2")
    try:
        assert eventually(lambda: done_count(db) >= 3, timeout=120), proc.stderr.read() if proc.poll() else ""
        assert proc.poll() is None, "the campaign ended before it could be killed: give its runs more moves"
        proc.send_signal(getattr(signal, how))
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    first = {x["key"]: x for x in rows(db) if x["status"] == "done"}
    assert 3 <= len(first) < 16
    session = rows(db, "SELECT * FROM sessions")[0]
    workers = json.loads(session["worker_pids"])
    assert len(workers) == 2
    assert eventually(lambda: not any(alive(p) for p in workers), timeout=30), "the workers outlived the campaign"
    if how == "SIGTERM":  # stopped cleanly: nothing left running, the session says so
        assert proc.returncode == 143 and "stopped by Ctrl-C" in out and "Traceback" not in err, (out, err)
        assert session["state"] == "interrupted"
        assert {x["status"] for x in rows(db)} <= {"done", "pending"}
    st = cli("campaign", "status", db, "--json")
    s = json.loads(st.out)
    assert st.code == 0 and s["done"] == len(first) and s["running"] == 0 and s["left"] == 16 - len(first)
    assert all(isinstance(s[k], int) for k in ("done", "failed", "left"))
    r = cli("campaign", "run", spec, "--workers", "2")
    assert r.code == 0 and f"{16 - len(first)} done, 0 failed of {16 - len(first)} to run ({len(first)} already " \
                           "stored)" in r.out, r
    final = rows(db)
    assert len(final) == 16 and len({x["key"] for x in final}) == 16 and {x["status"] for x in final} == {"done"}
    for x in final:
        if x["key"] in first:  # stored before the kill: untouched, not run again
            assert {k: x[k] for k in ("session_id", "started", "ended", "board", "attempts")} == \
                   {k: first[x["key"]][k] for k in ("session_id", "started", "ended", "board", "attempts")}
            assert x["session_id"] == 1
        else:
            assert x["session_id"] == 2
    # in flight when killed: dispatched twice, done once
    assert sum(x["attempts"] for x in final) >= 16 and all(x["attempts"] <= 2 for x in final)
    assert check_boards(db) == 16
    states = [x["state"] for x in rows(db, "SELECT state FROM sessions ORDER BY id")]
    assert states == ["killed" if how == "SIGKILL" else "interrupted", "finished"]
    # the same seeds give the same boards as a campaign never killed
    clean = tmp_path / "clean.db"
    assert cli("campaign", "run", spec, "--workers", "2", "--store", clean).code == 0
    assert {x["key"]: x["board"] for x in final} == {x["key"]: x["board"] for x in rows(clean)}


# --------------------------------------------------------------------------- record hunts


def test_a_hunt_keeps_every_board_above_the_threshold_that_a_run_offers(cli, tmp_path, test_methods):
    spec = write(tmp_path / "h.toml", """
        instances = ["set2-5x5"]
        seeds = [1, 2]
        [hunt]
        threshold = 28
        [[methods]]
        name = "wander"
        options = {moves = 1500, offer = 28}
        [[methods]]
        name = "climb"
        options = {moves = 1500}
    """)
    r = cli("campaign", "run", spec, "--workers", "2")
    assert r.code == 0, r
    db = tmp_path / "h.db"
    boards = rows(db, "SELECT b.*, r.config, r.seed FROM boards b JOIN runs r ON r.id = b.run_id")
    assert boards and all(b["score"] >= 28 for b in boards)
    check_boards(db)
    P = emc.load("set2-5x5")
    for run in rows(db):
        mine = {b["board_sha256"] for b in boards if b["run_id"] == run["id"]}
        assert len(mine) == len([b for b in boards if b["run_id"] == run["id"]])  # each board once
        improvements = [t["score"] for t in json.loads(run["trajectory"]) if t["score"] >= 28]
        if "offered" in json.loads(run["details"]):
            # wander: every distinct board it offered, the boards of its sideways moves too
            offered = set()
            with collecting(lambda b, score, what, at: offered.add(board_digest(b)) if score >= 28 else None):
                emc.optimise(P, "wander", seed=run["seed"], moves=1500, offer=28)
            assert mine == offered and len(offered) > len(improvements)
        else:  # climb: its improvements above the threshold
            assert sorted(b["score"] for b in boards if b["run_id"] == run["id"]) == improvements
    r = cli("campaign", "report", db, "-o", tmp_path / "rep")
    assert r.code == 0 and "record hunt" in r.out, r
    assert "## Record hunt" in (tmp_path / "rep" / "report.md").read_text()


@pytest.mark.slow
def test_a_hunt_stores_boards_while_the_run_that_found_them_goes_on(tmp_path):
    """Boards reach the store as found: a long run's boards are there before it ends, and stay
    when the campaign is killed."""
    spec = write(tmp_path / "long.toml", """
        instances = ["meta-10x10"]
        seeds = [1]
        time_limit = 600
        [hunt]
        threshold = 60
        [[methods]]
        name = "climb"
        options = {moves = 1000000000}
    """)
    db = tmp_path / "long.db"
    proc = start_campaign(tmp_path, str(spec), "--workers", "1")

    def boards():
        try:
            return rows(db, "SELECT * FROM boards")
        except sqlite3.Error:
            return []

    try:
        assert eventually(lambda: len(boards()) >= 3, timeout=120)
        assert rows(db)[0]["status"] == "running"
        proc.kill()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    kept = boards()
    assert len(kept) >= 3 and rows(db)[0]["status"] == "running" and check_boards(db) >= 3
    assert sorted(b["score"] for b in kept) == sorted({b["score"] for b in kept})  # improvements: all different


# --------------------------------------------------------------------------- status and report


def test_status_counts_left_runs_and_estimates_the_time(cli, tmp_path, climb):
    spec = write(tmp_path / "tiny.toml", CLIMB_SPEC.replace("seeds = [1, 2, 3]", "seeds = [1, 2, 3]\ntime_limit = 30"))
    from emc.campaigns.runner import plan

    with Store.writer(tmp_path / "tiny.db") as st:
        plan(read_spec(spec), st)
    r = cli("campaign", "status", tmp_path / "tiny.db", "--json")
    s = json.loads(r.out)
    assert (s["done"], s["failed"], s["running"], s["left"], s["total"]) == (0, 0, 0, 12, 12)
    assert s["eta_seconds"] == 12 * 30  # nothing done yet: the time limits, one worker
    r = cli("campaign", "status", tmp_path / "tiny.db")
    assert "0 done, 0 failed, 0 running, 12 left of 12" in r.out and "about 6 min left" in r.out, r


def test_the_report_agrees_with_numbers_computed_from_the_stores_rows(cli, tmp_path, climb):
    spec = write(tmp_path / "tiny.toml", CLIMB_SPEC.replace("seeds = [1, 2, 3]", "seeds = [1, 2, 3, 4, 5]"))
    assert cli("campaign", "run", spec, "--workers", "2").code == 0
    db = tmp_path / "tiny.db"
    out = tmp_path / "report"
    r = cli("campaign", "report", db, "-o", out, "--csv", "--json")
    assert r.code == 0, r
    labels = {x["key"]: x["label"] for x in rows(db, "SELECT key, label FROM configs")}
    raw = rows(db)
    summary = list(csv.DictReader((out / "summary.csv").open()))
    doc = json.loads((out / "report.json").read_text())
    md = (out / "report.md").read_text()
    assert len(summary) == 4 == len(doc["summary"])
    for row, jrow in zip(summary, doc["summary"]):
        mine = [x for x in raw if x["instance"] == row["instance"] and labels[x["config"]] == row["configuration"]]
        scores = [x["score"] for x in mine]
        ttb = [x["time_to_best"] for x in mine]
        assert int(row["runs"]) == len(mine) == 5
        assert int(row["max"]) == max(scores) and int(row["min"]) == min(scores)
        assert float(row["mean"]) == pytest.approx(sum(scores) / len(scores))
        mean = sum(scores) / len(scores)
        std = (sum((s - mean) ** 2 for s in scores) / (len(scores) - 1)) ** 0.5
        assert float(row["std"]) == pytest.approx(std)
        ordered = sorted(ttb)
        assert float(row["median_time_to_best"]) == pytest.approx(ordered[2])
        assert jrow["mean"] == pytest.approx(mean) and jrow["std"] == pytest.approx(std)
        # the work table: the method's unit, the median work and the median of each run's rate
        assert jrow["unit"] == mine[0]["unit"] and jrow["median_work"] == statistics.median(x["iterations"] for x in mine)
        assert jrow["median_rate"] == pytest.approx(statistics.median(x["iterations"] / x["elapsed"] for x in mine))
        assert jrow["median_evaluations"] is None and jrow["evaluations_per_second"] is None
        # the Markdown table shows the same figures
        line = f"| {row['configuration']} | - | 5 | {max(scores)} | {min(scores)} | {mean:.2f} | {std:.2f} | " \
               f"{statistics.median(ttb):.1f} |"
        assert line in md, line
    assert len(list(csv.DictReader((out / "runs.csv").open()))) == 20 == len(doc["runs"])
    for inst in ("set2-4x4", "set2-5x5"):
        for kind in ("time", "scores"):
            for ext in ("png", "svg"):
                assert (out / "plots" / f"{inst}-{kind}.{ext}").stat().st_size > 1000
        assert (out / "boards" / f"{inst}.png").is_file()
        best = max(x["score"] for x in raw if x["instance"] == inst)
        assert f"Best board: {best}/" in md
    html = (out / "report.html").read_text()
    assert html.count("<table>") == sum(line.startswith("|---") for line in md.splitlines()) >= 3
    assert '<img src="plots/set2-4x4-time.svg"' in html
    # the same store gives the same report
    again = tmp_path / "again"
    assert cli("campaign", "report", db, "-o", again, "--csv").code == 0
    for name in ("report.md", "summary.csv", "plots/set2-5x5-scores.svg", "plots/set2-5x5-time.svg"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name


def test_the_report_puts_the_papers_figures_beside_the_campaigns(cli, tmp_path, climb):
    spec = write(tmp_path / "p.toml", """
        instances = ["meta-10x10"]
        seeds = [1, 2]
        [[methods]]
        name = "climb"
        options = {moves = 300}
        paper = {table = "seed003-table5"}
    """)
    assert cli("campaign", "run", spec, "--workers", "2").code == 0
    r = cli("campaign", "report", tmp_path / "p.db", "-o", tmp_path / "rep", "--csv")
    assert r.code == 0 and "paper: seed 003 Table V" in r.out, r
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| *paper: seed 003 Table V* | 1200 | 30 | 172 | 168 | 170.4 | 0.9 | 46 * |" in md
    assert "seconds to the best board over all 30 runs" in md
    row = next(csv.DictReader((tmp_path / "rep" / "summary.csv").open()))
    assert (row["paper_table"], row["paper_max"], row["paper_avg"], row["paper_std"], row["paper_time"]) == \
           ("seed003-table5", "172", "170.4", "0.9", "46")


# --------------------------------------------------------------------------- the published figures


def test_the_published_tables_agree_where_the_papers_quote_each_other():
    t5 = {r["instance"]: r for r in table("seed003-table5").records()}
    t6 = table("seed003-table6").records()
    for r in t6:  # Table VI's "present work" is Table V's average; Wang and Chiang's is seed 004's mean
        if r["row"] == "Present work":
            assert r["avg"] == t5[r["instance"]]["avg"] and r["edges"] == t5[r["instance"]]["edges"]
    w = {r["instance"]: r for r in table("seed004-table2").records()}
    for r in t6:
        if r["row"].startswith("Wang"):
            assert r["avg"] == round(w[r["instance"]]["avg"], 2)
    # seed 000's Table 3: an instance's 8 configurations, each row's max >= average >= min
    t3 = table("seed000-table3").records()
    assert len(t3) == 40 and {r["row"] for r in t3} == {f"{s}{ls} {k}xW" for s in ("greedy", "backtracking")
                                                        for ls in ("", "+LS") for k in (1, 2)}
    assert all(r["max"] >= r["avg"] >= r["min"] for r in t3)
    for t in tables().values():
        for r in t.records():
            if t.comparable and "max" in t.compare and "min" in t.compare:
                f = t.figures(r)
                assert f["max"] >= f["min"] and (f.get("avg") is None or f["max"] >= f["avg"] >= f["min"]), (t.id, r)
    assert len(table("seed002-table1").records()) == 45 and table("seed000-table1").records()[-1]["optimum"] == 112


def test_papers_lists_and_prints_the_shipped_tables(cli):
    r = cli("campaign", "papers")
    assert r.code == 0 and "* seed003-table5" in r.out and "seed001-rates" in r.out, r
    r = cli("campaign", "papers", "seed003-table5", "--json")
    doc = json.loads(r.out)
    assert doc["runs"] == 30 and doc["rows"][-1]["instance"] == "eternity2-nohint" and doc["rows"][-1]["max"] == 461
    r = cli("campaign", "papers", "seed003-table7")
    assert r.code == 2 and "unknown published table 'seed003-table7'" in r.err, r


# --------------------------------------------------------------------------- the benchmarks moved to specs


@pytest.mark.slow
def test_a_matheuristic_campaign_keeps_each_runs_construction(cli, tmp_path):
    """What bench/matheuristic.py printed (the longest region solve, kept within its limit) is
    in each stored run's details."""
    spec = write(tmp_path / "m.toml", """
        instances = ["meta-10x10"]
        seeds = [1, 2]
        [[methods]]
        name = "matheuristic"
        label = "greedy 1xW"
        options = {start = "greedy", region = "1xW", improve = false, region_time_limit = 0.5}
        paper = {table = "seed000-table3", row = "greedy 1xW"}
    """)
    r = cli("campaign", "run", spec, "--workers", "2")
    assert r.code == 0 and "2 done" in r.out, r
    runs = rows(tmp_path / "m.db")
    for x in runs:
        details = json.loads(x["details"])
        regions = details["construction"]["regions"]
        assert len(regions) == 10 and all(0 < reg["time"] <= x["elapsed"] for reg in regions)
        assert details["construction"]["score"] == x["score"] and x["stopped_by"] in ("finished", "local-optimum")
    assert check_boards(tmp_path / "m.db") == 2
    r = cli("campaign", "report", tmp_path / "m.db", "-o", tmp_path / "rep")
    assert "paper: seed 000 Table 3 greedy 1xW" in r.out and "161.1" in r.out, r


@pytest.mark.slow
def test_a_campaign_runs_on_a_scheduler_and_workers_started_as_the_docs_say(cli, tmp_path, climb):
    """`dask scheduler` and `dask worker` started by hand (docs/campaigns.md), then --scheduler."""
    pytest.importorskip("distributed")
    dask_cli = Path(sys.executable).parent / "dask"
    if not dask_cli.exists():
        pytest.skip("the dask command is not installed beside this Python")
    env = dict(os.environ, PYTHONPATH=str(ROOT), DASK_DISTRIBUTED__WORKER__DAEMON="False")
    info = tmp_path / "scheduler.json"
    procs = [subprocess.Popen([str(dask_cli), "scheduler", "--scheduler-file", str(info), "--port", "0",
                               "--no-dashboard"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        assert eventually(lambda: info.exists() and info.stat().st_size > 0, timeout=60)
        address = json.loads(info.read_text())["address"]
        procs.append(subprocess.Popen([str(dask_cli), "worker", address, "--nthreads", "1", "--nworkers", "2",
                                       "--no-dashboard"], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
        spec = write(tmp_path / "tiny.toml", CLIMB_SPEC)
        r = cli("campaign", "run", spec, "--scheduler", address)
        assert r.code == 0 and "12 done, 0 failed" in r.out, r
        r = cli("campaign", "run", spec, "--workers", "1", "--store", tmp_path / "pool.db")
        assert r.code == 0, r
        same = ("key", "score", "board", "iterations")
        assert [{k: x[k] for k in same} for x in rows(tmp_path / "tiny.db")] == \
               [{k: x[k] for k in same} for x in rows(tmp_path / "pool.db")]
        assert rows(tmp_path / "tiny.db", "SELECT executor FROM sessions")[0]["executor"] == f"dask {address}"
        r = cli("campaign", "run", spec, "--scheduler", "tcp://127.0.0.1:9", "--store", tmp_path / "none.db")
        assert r.code == 2 and "cannot reach the Dask scheduler tcp://127.0.0.1:9" in r.err, r
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_the_work_table_gives_the_tabu_searchs_evaluations_beside_the_papers(cli, tmp_path):
    spec = write(tmp_path / "tabu.toml", """
        name = "tabu-work"
        instances = ["meta-10x10"]
        seeds = [1, 2, 3]

        [[methods]]
        name = "tabu"
        options = {iterations = 40, beta2 = 200}
        paper = {table = "seed004-table2"}
    """)
    assert cli("campaign", "run", spec, "--workers", "1").code == 0
    db = tmp_path / "tabu.db"
    r = cli("campaign", "report", db, "-o", tmp_path / "rep", "--json")
    assert r.code == 0, r
    raw = rows(db)
    evals = [json.loads(x["details"])["evaluations"] for x in raw]
    (row,) = json.loads((tmp_path / "rep" / "report.json").read_text())["summary"]
    assert row["unit"] == "iterations" and row["median_work"] == 40
    assert row["median_evaluations"] == statistics.median(evals) > 0
    assert row["evaluations_per_second"] == pytest.approx(
        statistics.median(json.loads(x["details"])["evaluations"] / x["elapsed"] for x in raw))
    assert row["paper_evaluations"] == pytest.approx(95790842.3)
    assert "work and speed" in r.out and "95,790,842" in r.out and f"{statistics.median(evals):,.0f}" in r.out


@pytest.mark.slow
def test_workers_leave_ctrl_c_to_the_runner(tmp_path):
    """A SIGINT that reaches the workers alone (``pkill -INT -f 'emc campaign'`` matches them
    too) must not cut their runs short: a run stopped early would be stored as a finished one.
    The workers ignore it; the runs go on to their time limit."""
    spec = write(tmp_path / "timed.toml", """
        name = "timed"
        instances = ["meta-10x10"]
        seeds = {from = 1, to = 4}
        time_limit = 5
        [[methods]]
        name = "tabu"
        options = {}
    """)
    db = tmp_path / "timed.db"
    proc = start_campaign(tmp_path, str(spec), "--workers", "2")
    try:
        def under_way() -> bool:
            try:
                return bool(rows(db, "SELECT id FROM runs WHERE status = 'running' AND started IS NOT NULL"))
            except sqlite3.Error:  # not created yet
                return False

        assert eventually(under_way, timeout=120), proc.stderr.read() if proc.poll() else ""
        time.sleep(1.5)  # the runs are under way
        for pid in json.loads(rows(db, "SELECT worker_pids FROM sessions")[0]["worker_pids"]):
            os.kill(pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0 and "Traceback" not in err, (out, err)
    runs = rows(db)
    assert [x["status"] for x in runs] == ["done"] * 4
    assert all(x["stopped_by"] == "time-limit" and x["elapsed"] >= 4.9 for x in runs), runs


def test_generated_instances_are_the_puzzles_emc_generate_draws(tmp_path):
    from emc.campaigns.spec import generated_instances
    from emc.generate import generate_hardest, generate_model

    got = generated_instances("generate:6x5:frame-inner-balanced:2-3:4:1-2")
    assert [i.label for i in got] == ["gen-6x5-f2-i4-bal-s1", "gen-6x5-f2-i4-bal-s2", "gen-6x5-f3-i4-bal-s1",
                                      "gen-6x5-f3-i4-bal-s2"]
    for inst, (f, seed) in zip(got, [(2, 1), (2, 2), (3, 1), (3, 2)]):
        assert inst.puzzle.sha256 == generate_model("frame-inner-balanced", 6, 5, seed, frame_colours=f,
                                                    inner_colours=4)[0].sha256
    assert [i.label for i in generated_instances("generate:6x6:hardest:3")] == \
        [generate_hardest(6, 6, 3)[0].name]


@pytest.mark.parametrize("entry, words", [
    ("generate:6x6:uniform:1-2", "expected generate:WxH:MODEL:COUNTS:SEEDS"),
    ("generate:6x6:gauss:3:1", "unknown model 'gauss'"),
    ("generate:6x6:uniform:3-x:1", "expected counts like 5, 4-9 or 3,5,7, not '3-x'"),
    ("generate:3x3:uniform-balanced:13:1", "has 12 internal edges"),
])
def test_a_bad_generated_instance_is_named_with_its_line(cli, tmp_path, entry, words):
    spec = write(tmp_path / "g.toml", f"""
        seeds = [0]
        instances = ["set2-4x4",
                     "{entry}"]
        [[methods]]
        backend = "backtrack"
    """)
    r = cli("campaign", "run", spec, "--dry-run")
    assert r.code == 2 and f"g.toml:3: instance '{entry}'" in r.err and words in r.err, r


def test_a_campaign_of_generated_puzzles_reports_the_sweep_emc_hardness_measures(cli, tmp_path):
    """Backend solves of generated puzzles make a hardness sweep in the report: the same rows,
    medians and peak as `emc hardness` (the scan-row search's nodes are the same on every run),
    written as a --store file that `emc hardness` takes whole."""
    from emc.hardness import sweep

    spec = write(tmp_path / "h.toml", """
        instances = ["generate:5x4:uniform:3-5:1-2"]
        seeds = [0]
        time_limit = 60
        [[methods]]
        backend = "backtrack"
    """)
    r = cli("campaign", "run", spec, "--workers", "2")
    assert r.code == 0 and "6 done" in r.out, r
    r = cli("campaign", "report", tmp_path / "h.db", "-o", tmp_path / "rep", "--json")
    assert r.code == 0 and "hardness sweep: 5x4, model uniform, backtrack solve, limit 60 s" in r.out, r
    files = sorted((tmp_path / "rep" / "hardness").iterdir())
    assert [f.suffix for f in files] == [".json", ".png"], files
    doc = json.loads(files[0].read_text())
    fresh = sweep(5, 4, "uniform", [{"colours": k} for k in (3, 4, 5)], [1, 2], "backtrack", 60)
    assert doc["measure"] == "backtrack" and doc["complete"] and doc["seeds"] == [1, 2]
    assert [(x["params"], x["seed"], x["puzzle_sha256"], x["nodes"]) for x in doc["rows"]] == \
        [(x["params"], x["seed"], x["puzzle_sha256"], x["nodes"]) for x in fresh["rows"]]
    assert doc["points"] == fresh["points"] and doc["peak"] == fresh["peak"]
    (exported,) = json.loads((tmp_path / "rep" / "report.json").read_text())["hardness_sweeps"]
    assert exported["rows"] == doc["rows"] and exported["configuration"] == "backtrack solve"
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## Hardness sweeps" in md and "K=" in md and "(peak)" in md
    # emc hardness grows it: nothing is solved again
    r = cli("hardness", 5, 4, "--model", "uniform", "--colours", "3-5", "--instances", 2, "--backend", "backtrack",
            "--time-limit", 60, "--store", files[0])
    assert r.code == 0 and r.err.count(f"(from {files[0]})") == 6, r


def test_a_campaign_sweep_that_is_not_emc_hardness_measure_is_no_store_for_it(cli, tmp_path):
    """Solver seed 1 (emc hardness solves with seed 0), and pieces drawn distinct: each sweep is
    under its configuration's label, which `emc hardness --store` refuses. (A distinct draw
    whose pieces equal the plain one's is the same puzzle to the store, hence other counts.)"""
    spec = write(tmp_path / "n.toml", """
        instances = ["generate:5x4:uniform:5:1-2", "generate:5x4:uniform:4:1-2:distinct"]
        seeds = [1]
        time_limit = 60
        [[methods]]
        backend = "backtrack"
    """)
    assert cli("campaign", "run", spec, "--workers", "1").code == 0
    r = cli("campaign", "report", tmp_path / "n.db", "-o", tmp_path / "rep", "--json", "--no-plots")
    assert r.code == 0, r
    sweeps = json.loads((tmp_path / "rep" / "report.json").read_text())["hardness_sweeps"]
    assert sorted(s["measure"] for s in sweeps) == ["backtrack solve", "backtrack solve, distinct pieces"]
    assert all(s["complete"] and len(s["rows"]) == 2 for s in sweeps)
    plain = next(s for s in sweeps if s["measure"] == "backtrack solve")
    store = tmp_path / "plain.json"
    store.write_text(json.dumps(plain))
    r = cli("hardness", 5, 4, "--model", "uniform", "--colours", 5, "--instances", 2, "--backend", "backtrack",
            "--store", store)
    assert r.code == 2 and "has measure 'backtrack solve', this one 'backtrack'" in r.err, r
