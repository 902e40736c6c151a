"""Runs on a Dask distributed cluster: a ``LocalCluster`` started for the campaign (``--cluster
local``) or an existing scheduler (``--scheduler tcp://HOST:PORT``) with workers on any number
of machines (``dask scheduler`` on one, ``dask worker tcp://HOST:PORT`` on each; every worker
needs emc installed, the same version, with the extras the campaign's methods need).

Each run is one Dask task calling :func:`emc.campaigns.execute.execute` on a worker; its result
comes back to the runner, which alone writes the store. A record hunt's boards travel through a
``distributed.Queue`` that the runner drains while the tasks go on, so they are stored as they
are found. Ctrl-C sets a ``distributed.Event`` that the runs look at (about once a second, in
their progress reports) and end on; the runs in flight are dropped and run again next time.

Workers run tasks in threads; emc's methods and backends start child processes of their own,
which a daemonic worker process may not have: the LocalCluster here starts its workers
non-daemonic, and a worker started by hand needs ``DASK_DISTRIBUTED__WORKER__DAEMON=False``
(``docs/campaigns.md``). Give each worker one thread per core it may use (``--nthreads``):
the campaign puts one run on each thread.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
import uuid

from ..errors import InputError


def run_task(task: dict, queue_name: str, stop_name: str) -> dict:
    """The Dask task: one run, its hunt boards to the campaign's queue."""
    from distributed import Event, Queue

    from .execute import execute

    boards = Queue(queue_name)
    stop = Event(stop_name)
    return execute(task, sink=boards.put, should_stop=stop.is_set)


def dask_setup(worker) -> None:
    """Run by each worker of the campaign's LocalCluster as it starts (a Dask preload): leave
    Ctrl-C to the runner."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


class DaskCluster:
    """A Dask cluster as the runner's executor (the interface of :mod:`emc.campaigns.pool`)."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None):
        self.scheduler, self.workers = scheduler, workers
        self.client = self.cluster = None
        self.futures: dict = {}
        self._capacity, self._asked = 0, -1e9

    def describe(self) -> str:
        if self.scheduler:
            return f"dask {self.scheduler}"
        return f"dask LocalCluster, {self.workers} worker{'s' if self.workers != 1 else ''}"

    def start(self) -> None:
        try:
            import dask
            import distributed
        except ModuleNotFoundError:
            raise InputError("running on a Dask cluster needs dask and distributed: pip install 'emc[campaigns]'") \
                from None
        from .pool import ONE_CORE

        if self.scheduler:
            try:
                self.client = distributed.Client(self.scheduler, timeout="20s", set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise InputError(f"cannot reach the Dask scheduler {self.scheduler} ({exc})") from None
        else:
            # Ctrl-C is the runner's: the workers ignore it (dask_setup below, run in each worker process
            # as it starts), so a Ctrl-C in the terminal reaches the runner alone, which closes the
            # cluster, instead of every worker printing its own KeyboardInterrupt.
            with dask.config.set({"distributed.worker.daemon": False}):
                self.cluster = distributed.LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                                        dashboard_address=None, silence_logs=logging.CRITICAL,
                                                        env=dict(ONE_CORE), preload=[__name__])
            self.client = distributed.Client(self.cluster, set_as_default=False)
            self.client.wait_for_workers(self.workers, timeout=120)
        token = uuid.uuid4().hex[:12]
        self.queue_name, self.stop_name = f"emc-boards-{token}", f"emc-stop-{token}"
        self.queue = distributed.Queue(self.queue_name, client=self.client)
        self.stop = distributed.Event(self.stop_name, client=self.client)
        self.token = token

    def capacity(self) -> int:
        now = time.monotonic()
        if now - self._asked >= 2.0:
            self._asked = now
            self._capacity = sum(self.client.nthreads().values())
        return self._capacity

    def worker_pids(self) -> list[int]:
        if self.cluster is None:
            return []
        with contextlib.suppress(Exception):
            return sorted(self.client.run(lambda: __import__("os").getpid()).values())
        return []

    def submit(self, task: dict) -> None:
        fut = self.client.submit(run_task, task, self.queue_name, self.stop_name, pure=False, retries=0,
                                 key=f"emc-run-{task['run_id']}-{self.token}")
        self.futures[fut] = task["run_id"]

    def _boards(self) -> list[tuple]:
        out = []
        for record in self.queue.get(batch=True):
            out.append(("board", record["run_id"], record))
        return out

    def poll(self, timeout: float) -> list[tuple]:
        events = self._boards()
        deadline = time.monotonic() + timeout
        done = [f for f in self.futures if f.done()]
        while not done and time.monotonic() < deadline:
            time.sleep(0.05)
            done = [f for f in self.futures if f.done()]
        events += self._boards()  # boards before the results of the runs that found them
        for fut in done:
            run_id = self.futures.pop(fut)
            if fut.status == "finished":
                events.append(("result", run_id, fut.result()))
            else:
                exc = fut.exception() if fut.status == "error" else None
                why = f"{type(exc).__name__}: {exc}" if exc is not None else fut.status
                events.append(("lost", run_id, f"the Dask task failed ({why})"))
        return events

    def close(self, cancel: bool) -> None:
        try:
            if self.client is not None:
                if cancel:
                    with contextlib.suppress(Exception):
                        self.stop.set()
                    with contextlib.suppress(Exception):
                        self.client.cancel(list(self.futures))
                self.futures = {}
                with contextlib.suppress(Exception):
                    self.client.close()
        finally:
            if self.cluster is not None:
                with contextlib.suppress(Exception):
                    self.cluster.close()
            self.client = self.cluster = None
