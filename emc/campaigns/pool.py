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
leaves no process behind. Each worker takes one run at a time through its own pipe, so the
runner always knows which run a worker that dies was running.
"""

from __future__ import annotations

import contextlib
import os
import queue as queue_module
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


def _worker_main(parent: int, tasks, events) -> None:
    from .execute import execute

    runtime.child_setup(parent)
    os.environ.update(ONE_CORE)
    name = f"{socket.gethostname()}:{os.getpid()}"
    while True:
        try:
            task = tasks.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        run_id = task["run_id"]
        events.put(("started", run_id, name, time.time()))
        result = execute(task, sink=lambda record: events.put(("board", run_id, record)))
        events.put(("result", run_id, result))


class _Worker:
    def __init__(self, ctx, events):
        recv, send = ctx.Pipe(duplex=False)
        self.send_end, self.process = send, ctx.Process(target=_worker_main, args=(os.getpid(), recv, events),
                                                       name="emc-campaign-worker")
        runtime.start_child(self.process)
        recv.close()  # the child holds its own copy
        self.run_id: int | None = None


class LocalPool:
    """``workers`` processes on this machine, one run each at a time."""

    def __init__(self, workers: int):
        self.workers = workers
        self._pool: list[_Worker] = []
        self._ctx = None
        self._events = None

    def describe(self) -> str:
        return f"local pool, {self.workers} worker{'s' if self.workers != 1 else ''}"

    def start(self) -> None:
        self._ctx = runtime.process_context()
        self._events = self._ctx.Queue()
        self._pool = [_Worker(self._ctx, self._events) for _ in range(self.workers)]

    def capacity(self) -> int:
        return len(self._pool)

    def worker_pids(self) -> list[int]:
        return [w.process.pid for w in self._pool]

    def submit(self, task: dict) -> None:
        w = next(w for w in self._pool if w.run_id is None)
        w.run_id = task["run_id"]
        w.send_end.send(task)

    def in_flight(self) -> int:
        return sum(w.run_id is not None for w in self._pool)

    def poll(self, timeout: float) -> list[tuple]:
        events: list[tuple] = []
        try:
            events.append(self._events.get(timeout=timeout))
            while True:
                events.append(self._events.get_nowait())
        except queue_module.Empty:
            pass
        for ev in events:
            if ev[0] == "result":
                for w in self._pool:
                    if w.run_id == ev[1]:
                        w.run_id = None
        for i, w in enumerate(self._pool):
            if w.process.is_alive():
                continue
            code = w.process.exitcode
            if w.run_id is not None:
                why = f"signal {-code}" if code is not None and code < 0 else f"exit status {code}"
                events.append(("lost", w.run_id, f"the worker process died ({why}) during the run"))
            with contextlib.suppress(OSError):
                w.send_end.close()
            self._pool[i] = _Worker(self._ctx, self._events)  # a fresh worker takes its place
        return events

    def close(self, cancel: bool) -> None:
        if not self._pool:
            return
        if not cancel:
            for w in self._pool:
                with contextlib.suppress(OSError, BrokenPipeError):
                    w.send_end.send(None)
        else:
            for w in self._pool:
                if w.process.is_alive():
                    w.process.terminate()
        deadline = time.monotonic() + (10 if not cancel else 5)
        for w in self._pool:
            w.process.join(max(0.0, deadline - time.monotonic()))
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
            with contextlib.suppress(OSError):
                w.send_end.close()
        self._pool = []
        if self._events is not None:
            self._events.cancel_join_thread()
            self._events.close()
