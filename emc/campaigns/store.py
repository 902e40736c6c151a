"""The results store of campaigns: one SQLite file (Python's ``sqlite3``), written by one process.

Every planned run is a row of ``runs`` from the moment its campaign starts (status
``pending``); the runner marks it ``running`` when it hands it to a worker and writes its
result, ``done`` or ``failed``, in one transaction with the boards it found. A campaign killed
outright (SIGKILL, a power cut) therefore loses at most the runs in flight: the next ``emc
campaign run`` of the same spec puts them back to ``pending`` and runs them, and skips the rest.

Only the process that holds the store's lock (an ``flock`` on the file, released by the system
when that process ends however it ends) writes; ``emc campaign status`` and ``report`` read
while a campaign runs (WAL mode). The tables and their columns are in ``docs/campaigns.md``
and in :data:`SCHEMA`.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterable

from ..errors import InputError

FORMAT = "emc-campaign-store"
VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS campaigns (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    spec_path TEXT,
    spec_text TEXT NOT NULL,
    spec_sha256 TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS puzzles (
    sha256 TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    max_score INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS configs (
    key TEXT PRIMARY KEY,
    label TEXT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    task TEXT NOT NULL,
    goal TEXT,
    threads INTEGER NOT NULL,
    options TEXT NOT NULL,
    resolved TEXT NOT NULL,
    paper TEXT
);
CREATE TABLE IF NOT EXISTS machines (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,
    info TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
    started REAL NOT NULL,
    ended REAL,
    heartbeat REAL NOT NULL,
    state TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    executor TEXT NOT NULL,
    workers INTEGER NOT NULL,
    worker_pids TEXT,
    emc_version TEXT NOT NULL,
    machine_id INTEGER REFERENCES machines(id)
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
    key TEXT NOT NULL,
    position INTEGER NOT NULL,
    instance TEXT NOT NULL,
    puzzle_sha256 TEXT NOT NULL REFERENCES puzzles(sha256),
    config TEXT NOT NULL REFERENCES configs(key),
    seed INTEGER NOT NULL,
    time_limit REAL,
    repetition INTEGER NOT NULL,
    threshold INTEGER,
    status TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    session_id INTEGER REFERENCES sessions(id),
    worker TEXT,
    started REAL,
    ended REAL,
    score INTEGER,
    max_score INTEGER NOT NULL,
    time_to_best REAL,
    elapsed REAL,
    iterations INTEGER,
    unit TEXT,
    stopped_by TEXT,
    count INTEGER,
    complete INTEGER,
    board TEXT,
    trajectory TEXT,
    resolved_options TEXT,
    details TEXT,
    error TEXT,
    traceback TEXT,
    emc_version TEXT,
    machine_id INTEGER REFERENCES machines(id),
    UNIQUE (campaign_id, key)
);
CREATE INDEX IF NOT EXISTS runs_status ON runs (campaign_id, status, position);
CREATE TABLE IF NOT EXISTS boards (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    session_id INTEGER REFERENCES sessions(id),
    score INTEGER NOT NULL,
    time REAL,
    what TEXT,
    found REAL NOT NULL,
    board TEXT NOT NULL,
    board_sha256 TEXT NOT NULL,
    UNIQUE (run_id, board_sha256)
);
"""

#: Statuses of a run.
STATUSES = ("pending", "running", "done", "failed")


def default_store(spec_path: str | os.PathLike) -> Path:
    """Beside the spec, same name, ``.db``."""
    return Path(spec_path).with_suffix(".db")


class Store:
    """A campaign store. :meth:`writer` opens it to write (creating it, and taking its lock);
    :meth:`reader` to read."""

    def __init__(self, path: Path, conn: sqlite3.Connection, lock_fd: int | None):
        self.path, self.conn, self._lock_fd = path, conn, lock_fd

    # ---------------------------------------------------------------- opening
    @classmethod
    def writer(cls, path: str | os.PathLike) -> "Store":
        path = Path(path)
        if path.is_dir():
            raise InputError("is a folder, not a campaign store", path)
        if not path.parent.exists():
            raise InputError(f"the store's folder {path.parent} does not exist", path)
        existed = path.exists() and path.stat().st_size > 0
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise InputError(f"cannot open the store ({exc.strerror})", path) from None
        try:
            _lock(fd, path)
            conn = _connect(path)
            store = cls(path, conn, fd)
            if existed:
                store._check()
            store._create()
        except BaseException:
            os.close(fd)
            raise
        return store

    @classmethod
    def reader(cls, path: str | os.PathLike) -> "Store":
        path = Path(path)
        if not path.is_file():
            raise InputError("no such campaign store" if not path.exists() else "is not a file", path)
        conn = _connect(path, read_only=True)
        store = cls(path, conn, None)
        store._check()
        return store

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _check(self) -> None:
        try:
            rows = dict(self.conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError:
            raise InputError("not an emc campaign store (an SQLite file written by emc campaign run)",
                             self.path) from None
        if rows.get("format") != FORMAT:
            raise InputError("not an emc campaign store (an SQLite file written by emc campaign run)", self.path)
        if int(rows.get("version", 0)) > VERSION:
            raise InputError(f"written by a newer emc (store version {rows.get('version')}; this emc reads "
                             f"{VERSION})", self.path)

    def _create(self) -> None:
        from .. import __version__

        self.conn.executescript(SCHEMA)  # its own transaction; every statement is IF NOT EXISTS
        with self.transaction():
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('format', ?)", (FORMAT,))
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('version', ?)", (str(VERSION),))
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('created_by', ?)", (f"emc {__version__}",))

    @contextlib.contextmanager
    def transaction(self):
        """One atomic write: everything in the block is stored, or nothing."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")

    # ---------------------------------------------------------------- planning
    def add_campaign(self, spec) -> int:
        now = time.time()
        with self.transaction() as c:
            row = c.execute("SELECT id FROM campaigns WHERE name = ?", (spec.name,)).fetchone()
            if row is None:
                cur = c.execute("INSERT INTO campaigns (name, spec_path, spec_text, spec_sha256, created, updated) "
                                "VALUES (?, ?, ?, ?, ?, ?)", (spec.name, str(Path(spec.path).resolve()), spec.text,
                                                              spec.sha256, now, now))
                return int(cur.lastrowid)
            c.execute("UPDATE campaigns SET spec_path = ?, spec_text = ?, spec_sha256 = ?, updated = ? WHERE id = ?",
                      (str(Path(spec.path).resolve()), spec.text, spec.sha256, now, row[0]))
            return int(row[0])

    def plan(self, campaign_id: int, spec) -> None:
        """Add the spec's runs that the store lacks (and their puzzles and configurations);
        runs already there keep their results, and take the spec's order."""
        from ..formats import format_puzzle

        with self.transaction() as c:
            for inst in spec.instances:
                P = inst.puzzle
                c.execute("INSERT OR IGNORE INTO puzzles VALUES (?, ?, ?, ?, ?, ?)",
                          (P.sha256, P.name, P.width, P.height, P.max_score, format_puzzle(P, "json")))
            for cfg in spec.configs:
                c.execute("INSERT INTO configs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET "
                          "label = excluded.label, paper = excluded.paper",
                          (cfg.key, cfg.label, cfg.kind, cfg.name, cfg.task, cfg.goal, cfg.threads,
                           _json(cfg.options), _json(cfg.resolved), _json(cfg.paper) if cfg.paper else None))
            c.executemany(
                "INSERT INTO runs (campaign_id, key, position, instance, puzzle_sha256, config, seed, time_limit, "
                "repetition, threshold, max_score) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(campaign_id, key) DO UPDATE SET position = excluded.position, "
                "threshold = excluded.threshold",
                [(campaign_id, r.key, r.position, r.instance.label, r.instance.puzzle.sha256, r.config.key, r.seed,
                  r.time_limit, r.repetition, r.threshold, r.instance.puzzle.max_score) for r in spec.runs])

    # ---------------------------------------------------------------- sessions
    def begin_session(self, campaign_id: int, executor: str, workers: int, machine: dict) -> int:
        from .. import __version__

        now = time.time()
        with self.transaction() as c:
            mid = self._machine(c, machine)
            cur = c.execute("INSERT INTO sessions (campaign_id, started, heartbeat, state, host, pid, executor, workers, "
                            "emc_version, machine_id) VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?)",
                            (campaign_id, now, now, socket.gethostname(), os.getpid(), executor, workers, __version__,
                             mid))
            return int(cur.lastrowid)

    def heartbeat(self, session_id: int, workers: int | None = None, worker_pids: list[int] | None = None) -> None:
        with self.transaction() as c:
            c.execute("UPDATE sessions SET heartbeat = ? WHERE id = ?", (time.time(), session_id))
            if workers is not None:
                c.execute("UPDATE sessions SET workers = ? WHERE id = ?", (workers, session_id))
            if worker_pids is not None:
                c.execute("UPDATE sessions SET worker_pids = ? WHERE id = ?", (_json(worker_pids), session_id))

    def end_session(self, session_id: int, state: str) -> None:
        with self.transaction() as c:
            c.execute("UPDATE sessions SET state = ?, ended = ?, heartbeat = ? WHERE id = ?",
                      (state, time.time(), time.time(), session_id))

    def requeue_stale(self, campaign_id: int) -> int:
        """Runs left ``running`` by a session that ended without writing them (killed): back to
        ``pending``. Only the lock holder calls this, so no other runner is writing."""
        with self.transaction() as c:
            c.execute("UPDATE sessions SET state = 'killed', ended = heartbeat WHERE campaign_id = ? AND "
                      "state = 'running'", (campaign_id,))
            return c.execute("UPDATE runs SET status = 'pending', session_id = NULL, worker = NULL, started = NULL "
                             "WHERE campaign_id = ? AND status = 'running'", (campaign_id,)).rowcount

    def todo(self, campaign_id: int, retry_failed: bool = False, keys: set[str] | None = None) -> list[tuple[int, str]]:
        """(id, key) of the runs to do, in the spec's order."""
        statuses = ("pending", "failed") if retry_failed else ("pending",)
        rows = self.conn.execute(
            f"SELECT id, key FROM runs WHERE campaign_id = ? AND status IN ({','.join('?' * len(statuses))}) "
            "ORDER BY position", (campaign_id, *statuses)).fetchall()
        return [(int(i), k) for i, k in rows if keys is None or k in keys]

    def mark_running(self, run_id: int, session_id: int) -> None:
        with self.transaction() as c:
            c.execute("UPDATE runs SET status = 'running', session_id = ?, attempts = attempts + 1, started = ?, "
                      "worker = NULL WHERE id = ?", (session_id, time.time(), run_id))

    def mark_started(self, run_id: int, worker: str, started: float) -> None:
        with self.transaction() as c:
            c.execute("UPDATE runs SET worker = ?, started = ? WHERE id = ? AND status = 'running'",
                      (worker, started, run_id))

    def requeue(self, run_ids: Iterable[int]) -> None:
        ids = list(run_ids)
        if not ids:
            return
        with self.transaction() as c:
            c.executemany("UPDATE runs SET status = 'pending', session_id = NULL, worker = NULL, started = NULL "
                          "WHERE id = ? AND status = 'running'", [(i,) for i in ids])

    def requeue_session(self, session_id: int) -> int:
        """The runs a session still has ``running``: back to ``pending`` (it is ending)."""
        with self.transaction() as c:
            return c.execute("UPDATE runs SET status = 'pending', session_id = NULL, worker = NULL, started = NULL "
                             "WHERE session_id = ? AND status = 'running'", (session_id,)).rowcount

    # ---------------------------------------------------------------- results
    def record(self, run_id: int, session_id: int, result: dict, boards: list[dict] = ()) -> bool:
        """Write a finished run (``result["status"]`` done or failed) and its boards, in one
        transaction. False (nothing written) when the run is not the session's running run any
        more (a result that came twice)."""
        cols = ("status", "score", "time_to_best", "elapsed", "iterations", "unit", "stopped_by", "count", "complete",
                "board", "trajectory", "resolved_options", "details", "error", "traceback", "emc_version", "worker",
                "started", "ended")
        values = [result.get(c) for c in cols]
        for i, c in enumerate(cols):
            if c in ("trajectory", "resolved_options", "details") and values[i] is not None:
                values[i] = _json(values[i])
            if c == "complete" and values[i] is not None:
                values[i] = int(bool(values[i]))
        with self.transaction() as c:
            mid = self._machine(c, result["machine"]) if result.get("machine") else None
            cur = c.execute(f"UPDATE runs SET {', '.join(f'{x} = ?' for x in cols)}, machine_id = ? "
                            "WHERE id = ? AND status = 'running' AND session_id = ?",
                            (*values, mid, run_id, session_id))
            if cur.rowcount != 1:
                return False
            for b in boards:
                self._board(c, run_id, session_id, b)
        return True

    def add_board(self, run_id: int, session_id: int, board: dict) -> bool:
        with self.transaction() as c:
            return self._board(c, run_id, session_id, board)

    @staticmethod
    def _board(c, run_id: int, session_id: int, b: dict) -> bool:
        cur = c.execute("INSERT OR IGNORE INTO boards (run_id, session_id, score, time, what, found, board, "
                        "board_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (run_id, session_id, b["score"], b.get("time"), b.get("what", ""), b["found"], b["board"],
                         b["board_sha256"]))
        return cur.rowcount == 1

    @staticmethod
    def _machine(c, machine: dict) -> int:
        from .machine import fingerprint

        fp = fingerprint(machine)
        c.execute("INSERT OR IGNORE INTO machines (fingerprint, info) VALUES (?, ?)", (fp, _json(machine)))
        return int(c.execute("SELECT id FROM machines WHERE fingerprint = ?", (fp,)).fetchone()[0])

    # ---------------------------------------------------------------- reading
    def query(self, sql: str, args: tuple = ()) -> list[dict]:
        cur = self.conn.execute(sql, args)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    def campaigns(self) -> list[dict]:
        return self.query("SELECT * FROM campaigns ORDER BY id")

    def sessions(self, campaign_id: int | None = None) -> list[dict]:
        if campaign_id is None:
            return self.query("SELECT * FROM sessions ORDER BY id")
        return self.query("SELECT * FROM sessions WHERE campaign_id = ? ORDER BY id", (campaign_id,))

    def runs(self, status: str | None = None, campaign_id: int | None = None) -> list[dict]:
        where, args = [], []
        if status is not None:
            where.append("r.status = ?")
            args.append(status)
        if campaign_id is not None:
            where.append("r.campaign_id = ?")
            args.append(campaign_id)
        sql = ("SELECT r.*, c.label, c.kind, c.name, c.task, c.goal, c.threads, c.options, c.paper, "
               "p.name AS puzzle_name FROM runs r JOIN configs c ON c.key = r.config "
               "JOIN puzzles p ON p.sha256 = r.puzzle_sha256")
        if where:
            sql += " WHERE " + " AND ".join(where)
        return self.query(sql + " ORDER BY r.campaign_id, r.position", tuple(args))

    def boards(self) -> list[dict]:
        return self.query("SELECT b.*, r.instance, r.config, r.seed, r.puzzle_sha256, r.campaign_id FROM boards b "
                          "JOIN runs r ON r.id = b.run_id ORDER BY b.id")

    def machines(self) -> dict[int, dict]:
        return {int(r["id"]): json.loads(r["info"]) for r in self.query("SELECT * FROM machines")}

    def puzzle(self, sha256: str):
        from ..formats import parse_puzzle

        row = self.conn.execute("SELECT name, text FROM puzzles WHERE sha256 = ?", (sha256,)).fetchone()
        if row is None:
            raise InputError(f"the store lacks the puzzle {sha256[:12]}", self.path)
        return parse_puzzle(row[1], path=f"{self.path}:puzzles", name=row[0])

    def configs(self) -> dict[str, dict]:
        out = {}
        for r in self.query("SELECT * FROM configs"):
            for k in ("options", "resolved", "paper"):
                r[k] = json.loads(r[k]) if r[k] else None
            out[r["key"]] = r
        return out


def _connect(path: Path, read_only: bool = False) -> sqlite3.Connection:
    try:
        if read_only:
            conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True, timeout=30, isolation_level=None)
        else:
            conn = sqlite3.connect(str(path), timeout=30, isolation_level=None)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")  # a committed run survives a power cut too
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA busy_timeout = 30000")
    except sqlite3.DatabaseError as exc:
        raise InputError(f"not an emc campaign store ({exc})", path) from None
    return conn


def _lock(fd: int, path: Path) -> None:
    """Take the writer's lock: an ``flock`` on the store file itself (independent of SQLite's own
    byte-range locks; the system releases it when the process ends, however it ends)."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): one writer is the user's to ensure
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise InputError("another `emc campaign run` is writing to this store (one runner per store; wait for it, "
                         "or give --store another file)", path) from None


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
