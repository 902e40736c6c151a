"""Where runs execute: a pool of local worker processes (the default) or a Dask cluster
(:mod:`emc.campaigns.cluster`). Both speak to the runner the same way:

* ``start()``; ``capacity()``: how many runs may be in flight now (one per core);
* ``submit(task)``;
* ``poll(timeout)``: the events since the last poll, each a tuple: ``("started", run_id, worker,
  time)``, ``("board", run_id, record)`` (a hunt's board, as found), ``("result", run_id,
  record)``, ``("lost", run_id, reason)`` (the worker died with the run);
* ``close(cancel)``: end the workers (``cancel``: now, dropping the runs in flight).

The local workers are child processes started with :func:`emc.runtime.start_child`: they leave
Ctrl-C to the runner and die with it, even when it is killed outright, so a killed campaign
leaves no process behind. Each worker takes one run at a time and sends back its events through its own pipe, so the
runner always knows which run a worker that dies was running, and a worker that dies in the
middle of a message breaks no other's channel.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import socket
import time

from .. import runtime

#: Thread pools of numerical libraries: one core per run.
ONE_CORE = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _worker_main(parent: int, conn) -> None:
    from .execute import execute

    runtime.child_setup(parent)
    os.environ.update(ONE_CORE)
    name = f"{socket.gethostname()}:{os.getpid()}"
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        run_id = task["run_id"]
        conn.send(("started", run_id, name, time.time()))
        result = execute(task, sink=lambda record: conn.send(("board", run_id, record)))
        conn.send(("result", run_id, result))


class _Worker:
    """One worker process and its own pipe (tasks in, events out). A pipe per worker, not one
    queue shared by all: a worker that dies while writing (a crash, os._exit in a method) can
    leave only its own channel broken; a shared queue's lock died with it and blocked every
    other worker's results."""

    def __init__(self, ctx):
        self.conn, child = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=_worker_main, args=(os.getpid(), child), name="emc-campaign-worker")
        runtime.start_child(self.process)
        child.close()  # the child holds its own copy: the parent's end sees EOF when the child dies
        self.run_id: int | None = None
        self.broken = False


class LocalPool:
    """``workers`` processes on this machine, one run each at a time."""

    def __init__(self, workers: int):
        self.workers = workers
        self._pool: list[_Worker] = []
        self._ctx = None

    def describe(self) -> str:
        return f"local pool, {self.workers} worker{'s' if self.workers != 1 else ''}"

    def start(self) -> None:
        self._ctx = runtime.process_context()
        self._pool = [_Worker(self._ctx) for _ in range(self.workers)]

    def capacity(self) -> int:
        return len(self._pool)

    def worker_pids(self) -> list[int]:
        return [w.process.pid for w in self._pool]

    def submit(self, task: dict) -> None:
        w = next(w for w in self._pool if w.run_id is None and not w.broken)
        w.run_id = task["run_id"]
        try:
            w.conn.send(task)
        except OSError:  # died since the last poll: the next poll replaces it and reports the run
            w.broken = True

    def poll(self, timeout: float) -> list[tuple]:
        from multiprocessing.connection import wait

        events: list[tuple] = []
        ready = wait([w.conn for w in self._pool if not w.broken], timeout)
        for w in self._pool:
            if w.conn not in ready:
                continue
            try:
                while w.conn.poll():
                    ev = w.conn.recv()
                    if ev[0] == "result" and ev[1] == w.run_id:
                        w.run_id = None
                    events.append(ev)
            except (EOFError, OSError, pickle.UnpicklingError, ValueError):  # it died, maybe mid-message
                w.broken = True
        for i, w in enumerate(self._pool):
            if not w.broken and w.process.is_alive():
                continue
            w.process.join(5)
            if w.process.is_alive():  # a broken channel to a live worker: end it
                w.process.kill()
                w.process.join()
            code = w.process.exitcode
            if w.run_id is not None:
                why = f"signal {-code}" if code is not None and code < 0 else f"exit status {code}"
                events.append(("lost", w.run_id, f"the worker process died ({why}) during the run"))
            with contextlib.suppress(OSError):
                w.conn.close()
            self._pool[i] = _Worker(self._ctx)  # a fresh worker takes its place
        return events

    def close(self, cancel: bool) -> None:
        if not self._pool:
            return
        for w in self._pool:
            if cancel:
                if w.process.is_alive():
                    w.process.terminate()
            else:
                with contextlib.suppress(OSError):
                    w.conn.send(None)
        deadline = time.monotonic() + (10 if not cancel else 5)
        for w in self._pool:
            w.process.join(max(0.0, deadline - time.monotonic()))
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
            with contextlib.suppress(OSError):
                w.conn.close()
        self._pool = []
