"""The campaign runner: plans a spec's runs in the store, hands the runs the store lacks to an
executor (local processes or a Dask cluster), and writes every result and every hunt board as
it arrives, alone, one transaction each.

Ctrl-C (or SIGTERM from the command line) stops cleanly: the runs in flight are dropped (put
back to ``pending``, to run again next time), the workers end, the session is marked
``interrupted``. A runner killed outright leaves its runs ``running`` and its session
``running``; the next runner of the store (it holds the store's lock, so no other runs) marks
that session ``killed`` and its runs ``pending`` again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from .. import runtime
from .execute import check_board, check_result
from .spec import Run, Spec
from .store import Store


@dataclass
class Outcome:
    """What a campaign run did."""

    store: str
    campaign: str
    total: int
    stored_before: int
    done: int = 0
    failed: int = 0
    boards: int = 0
    left: int = 0
    interrupted: bool = False
    requeued: int = 0
    session: int | None = None
    executor: str = ""
    rejected_boards: int = 0
    failures: list[str] = field(default_factory=list)


#: (kind, run, record) with kind "result", "board" or "note"
Listener = Callable[[str, "Run | None", dict], None]


def plan(spec: Spec, store: Store, retry_failed: bool = False) -> tuple[int, list[tuple[int, Run]]]:
    """Put the spec's runs in the store; (campaign id, [(run id, run)] left to do)."""
    cid = store.add_campaign(spec)
    store.plan(cid, spec)
    store.requeue_stale(cid)
    by_key = {r.key: r for r in spec.runs}
    return cid, [(rid, by_key[key]) for rid, key in store.todo(cid, retry_failed, set(by_key))]


def run_campaign(spec: Spec, store_path, executor, retry_failed: bool = False,
                 listen: Listener | None = None) -> Outcome:
    """Run what the store lacks of ``spec`` on ``executor`` (a :class:`~emc.campaigns.pool.LocalPool`
    or :class:`~emc.campaigns.cluster.DaskCluster`, not started yet)."""
    from .machine import machine

    listen = listen or (lambda kind, run, record: None)
    store = Store.writer(store_path)
    try:
        cid, todo = plan(spec, store, retry_failed)
        out = Outcome(str(store_path), spec.name, len(spec.runs), len(spec.runs) - len(todo), executor=executor.describe())
        if not todo:
            out.left = 0
            return out
        by_id = {rid: run for rid, run in todo}
        puzzles = {i.puzzle.sha256: i.puzzle for i in spec.instances}
        inflight: dict[int, Run] = {}
        session = None
        ok = False
        try:
            executor.start()
            session = out.session = store.begin_session(cid, executor.describe(), executor.capacity(), machine())
            store.heartbeat(session, worker_pids=executor.worker_pids())
            beat = time.monotonic()
            waiting_noted = False
            pending = list(todo)
            while pending or inflight:
                cap = executor.capacity()
                if cap == 0 and not inflight and not waiting_noted:
                    listen("note", None, {"text": "waiting for Dask workers to join the scheduler"})
                    waiting_noted = True
                while pending and len(inflight) < cap:
                    rid, run = pending.pop(0)
                    inflight[rid] = run
                    store.mark_running(rid, session)
                    executor.submit(run.task(rid))
                for ev in executor.poll(0.5):
                    _handle(ev, store, session, by_id, inflight, puzzles, out, listen)
                if time.monotonic() - beat >= 5.0:
                    beat = time.monotonic()
                    store.heartbeat(session, workers=executor.capacity())
            ok = True
        except KeyboardInterrupt:
            out.interrupted = True
        finally:
            with runtime.held_interrupts():  # a second Ctrl-C must not leave the store half-way
                executor.close(cancel=not ok)
                out.requeued = len(inflight)
                if session is not None:
                    store.requeue_session(session)  # every run this session left in flight, whatever the moment
                    store.end_session(session, "finished" if ok else "interrupted" if out.interrupted else "failed")
        out.left = len(todo) - out.done - out.failed
        return out
    finally:
        store.close()


def _handle(ev: tuple, store: Store, session: int, by_id: dict, inflight: dict, puzzles: dict, out: Outcome,
            listen: Listener) -> None:
    kind, rid = ev[0], ev[1]
    run = by_id.get(rid)
    if run is None:  # not a run of this session
        return
    if kind == "started":
        store.mark_started(rid, ev[2], ev[3])
    elif kind == "board":
        record = ev[2]
        hints = (run.config.resolved or {}).get("hints", "honour") != "ignore"
        why = check_board(puzzles[run.instance.puzzle.sha256], record["board"], record["score"], hints)
        if why is not None:
            out.rejected_boards += 1
            listen("note", run, {"text": f"a board of run {rid} was refused: {why}"})
            return
        if store.add_board(rid, session, record):
            out.boards += 1
            listen("board", run, record)
    elif kind in ("result", "lost"):
        if rid not in inflight:
            return
        if kind == "lost":
            result = {"status": "failed", "error": ev[2], "ended": time.time()}
        else:
            result = ev[2]
            if result.get("status") == "cancelled":
                store.requeue([rid])
                inflight.pop(rid)
                return
            result = check_result(puzzles[run.instance.puzzle.sha256], result)
        if store.record(rid, session, result):
            inflight.pop(rid)
            if result["status"] == "done":
                out.done += 1
            else:
                out.failed += 1
                out.failures.append(result.get("error") or "unknown error")
            listen("result", run, result)
