"""Where a campaign stands: runs done, failed, running and left, and an estimate of the time left.

A run marked ``running`` counts as running only while the session that started it is alive
(on this machine: its process exists and its heartbeat is recent; elsewhere: a heartbeat within
the last minute); a killed campaign's runs count as left, since the next run of the spec does
them again.
"""

from __future__ import annotations

import os
import socket
import statistics
import time

from .store import Store

#: A session whose heartbeat (every 5 s) is older than this is taken for dead.
STALE_SECONDS = 60.0


def session_alive(session: dict, now: float | None = None) -> bool:
    now = time.time() if now is None else now
    if session["state"] != "running":
        return False
    if now - session["heartbeat"] > STALE_SECONDS:
        return False
    if session["host"] == socket.gethostname():
        try:
            os.kill(int(session["pid"]), 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # someone else's process: it exists
            return True
    return True


def status(store: Store) -> dict:
    """The store's state as a JSON-ready object: ``done``, ``failed``, ``running``, ``left``,
    ``total`` (integers), ``eta_seconds`` (None when nothing tells), per campaign the same, and
    the sessions."""
    now = time.time()
    sessions = store.sessions()
    alive = {s["id"] for s in sessions if session_alive(s, now)}
    runs = store.query("SELECT r.campaign_id, r.status, r.session_id, r.config, r.instance, r.time_limit, r.elapsed, "
                       "r.started FROM runs r")
    campaigns = []
    totals = {"done": 0, "failed": 0, "running": 0, "left": 0, "total": 0}
    eta_total = 0.0
    eta_known = True
    for c in store.campaigns():
        mine = [r for r in runs if r["campaign_id"] == c["id"]]
        counts = {"done": 0, "failed": 0, "running": 0, "left": 0}
        for r in mine:
            if r["status"] == "running" and r["session_id"] in alive:
                counts["running"] += 1
            elif r["status"] in ("running", "pending"):
                counts["left"] += 1
            else:
                counts[r["status"]] += 1
        counts["total"] = len(mine)
        last = [s for s in sessions if s["campaign_id"] == c["id"]]
        workers = max(1, last[-1]["workers"]) if last else 1
        eta = _eta(mine, alive, workers, now)
        if eta is None and (counts["left"] or counts["running"]):
            eta_known = False
        eta_total += eta or 0.0
        campaigns.append({"name": c["name"], "spec": c["spec_path"], **counts,
                          "eta_seconds": None if eta is None else round(eta, 1),
                          "running_now": any(s["id"] in alive for s in last)})
        for k in totals:
            totals[k] += counts[k]
    return {"store": str(store.path), **totals,
            "eta_seconds": round(eta_total, 1) if eta_known else None,
            "campaigns": campaigns,
            "sessions": [{"id": s["id"], "campaign": _name(store, s["campaign_id"]), "state": "running" if s["id"] in alive else
                          ("killed" if s["state"] == "running" else s["state"]), "host": s["host"], "pid": s["pid"],
                          "executor": s["executor"], "workers": s["workers"], "started": s["started"],
                          "ended": s["ended"]} for s in sessions]}


def _name(store: Store, campaign_id: int) -> str:
    row = store.conn.execute("SELECT name FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()
    return row[0] if row else "?"


def _eta(runs: list[dict], alive: set, workers: int, now: float) -> float | None:
    """Seconds until the runs left and running are done, at ``workers`` runs at a time: each
    run is expected to take what the done runs of its configuration and instance took on
    average, else its time limit, else what done runs took on average."""
    done = [r for r in runs if r["status"] == "done" and r["elapsed"] is not None]
    by_group: dict[tuple, list[float]] = {}
    for r in done:
        by_group.setdefault((r["config"], r["instance"], r["time_limit"]), []).append(r["elapsed"])
    overall = statistics.fmean(r["elapsed"] for r in done) if done else None
    total = 0.0
    for r in runs:
        running = r["status"] == "running" and r["session_id"] in alive
        if not running and r["status"] not in ("pending", "running"):
            continue
        group = by_group.get((r["config"], r["instance"], r["time_limit"]))
        expect = statistics.fmean(group) if group else r["time_limit"] if r["time_limit"] is not None else overall
        if expect is None:
            return None
        if running and r["started"] is not None:
            expect = max(0.0, expect - (now - r["started"]))
        total += expect
    return total / max(1, workers)
