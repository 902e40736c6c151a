"""A portfolio: several backends race on the same sub-problem, one process each.

On a machine with two cores, running two different solvers side by side often beats giving
both cores to one of them: their run times on edge-matching instances vary a lot from one
instance to the next, and the first proof (a solution, or infeasibility) ends the race.
For an optimisation problem stopped by the time limit, the best board of any member wins.
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import InputError
from ..model import Board, Goal, Subproblem
from .base import Backend, BackendError, Capability, DeeperFills, Result, Status, member_seed
from ..runtime import child_setup, process_context, start_child

def default_members(goal: Goal) -> tuple[str, ...]:
    """The members a portfolio races when none are named: the two best-ranked installed
    backends for the race (the backends' own ``priority``: for a perfect board the scan-row
    search, which finds boards fastest, beside the SAT solver, which proves infeasibility
    fastest; to optimise CP-SAT beside MaxSAT)."""
    from . import race_members

    return race_members("race feasibility" if goal is Goal.FEASIBILITY else "race optimisation")


def _member(parent: int, name: str, sp: Subproblem, ends: float | None, seed: int, hint_arrays, options: dict,
            out, progress: bool, partials: bool = False) -> None:
    """Run one member in a child process. It sends plain tuples (no solver objects) to the
    parent: ("improved", name, pieces, rotations, score) for each better board, ("progress",
    name, line) when the parent shows progress, ("partial", name, pieces, rotations) for each
    deeper partial fill of a search (backtrack) when ``partials``, and last ("result", name,
    status, board, objective, bound, seconds, error, interrupted, partial fill or None).

    SIGTERM from the parent (Ctrl-C, or a member past its own limit) stops the member's solver
    as Ctrl-C would, so the member still sends what it has, a deepest partial fill included.

    ``ends``: the ``time.monotonic()`` the portfolio's time limit runs out at (one clock for
    every process on the machine), so a member's start-up counts in the limit."""
    child_setup(parent)  # the parent decides when to stop, and the member dies with it

    def stop(signum, frame) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process
        # The interrupt may land in an import or a compiled kernel's callback, where Python
        # prints "Exception ignored ..." with a traceback: the answer goes through the queue,
        # so nothing this process prints from now on is worth showing.
        try:
            sys.stderr.flush()
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 2)
            os.close(null)
        except OSError:
            pass
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    from . import get_backend

    def improved(board: Board, score: int) -> None:
        out.put(("improved", name, np.asarray(board.piece), np.asarray(board.rotation), int(score)))

    def progressed(line: str) -> None:
        out.put(("progress", name, line))

    def deeper(board: Board) -> None:
        out.put(("partial", name, np.asarray(board.piece), np.asarray(board.rotation)))

    try:
        hint = None
        if hint_arrays is not None:
            hint = Board(sp.puzzle.width, sp.puzzle.height, hint_arrays[0], hint_arrays[1])
        # (the least a backend takes, when the start-up used the whole limit: it answers at once)
        time_limit = None if ends is None else max(1e-3, ends - time.monotonic())
        res = get_backend(name).solve(sp, time_limit=time_limit, threads=1, seed=seed, hint=hint,
                                      on_improvement=improved, on_progress=progressed if progress else None,
                                      on_partial=deeper if partials else None,
                                      **options)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # answered: let the queue send it before exiting
        board = None if res.board is None else (res.board.piece, res.board.rotation)
        partial = None if res.partial is None else (res.partial.piece, res.partial.rotation)
        out.put(("result", name, res.status.value, board, res.objective, res.bound, res.wall_time, None,
                 bool(res.interrupted), partial))
    except KeyboardInterrupt:  # stopped before the backend could answer: nothing to send but that
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        out.put(("result", name, Status.UNKNOWN.value, None, None, None, 0.0, None, True, None))
    except BaseException as exc:  # reported to the parent, which decides
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        out.put(("result", name, Status.UNKNOWN.value, None, None, None, 0.0, f"{type(exc).__name__}: {exc}", False,
                 None))


class PortfolioBackend(Backend):
    name = "portfolio"
    formulations = ("portfolio",)
    capabilities = frozenset({Capability.FEASIBILITY, Capability.OPTIMISATION})
    install_hint = "pip install 'emc[cpsat,sat]'"
    description = "two backends race in two processes (default backtrack + sat; cpsat + maxsat to optimise)"

    @classmethod
    def available(cls) -> bool:
        from ..errors import EmcError
        from . import backend_class

        try:
            return all(backend_class(m).available() for m in default_members(Goal.FEASIBILITY))
        except EmcError:  # a member backend is not registered in this build
            return False

    @classmethod
    def version(cls) -> str | None:
        return "+".join(default_members(Goal.FEASIBILITY))

    def check_request(self, goal: Goal, options: dict[str, Any]) -> None:
        from . import backend_class

        super().check_request(goal, options)
        members = self.members(goal, options.get("members"))
        for m, opts in self.member_options(members, options).items():
            try:
                backend_class(m)().check_request(goal, opts)
            except InputError as exc:
                raise InputError(f"portfolio member {m!r}: {exc} (an option without a member's name goes to every "
                                 f"member; -O {m}.KEY=VALUE gives one to {m} alone)") from None

    @staticmethod
    def member_options(members: tuple[str, ...], options: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """Each member's options: ``KEY`` goes to every member, ``MEMBER.KEY`` to that member
        alone (``-O sat.solver=glucose4 -O backtrack.restart_nodes=1000000``)."""
        per: dict[str, dict[str, Any]] = {m: {} for m in members}
        for key, value in options.items():
            if key == "members":
                continue
            name, dot, rest = key.partition(".")
            if not dot:
                for m in members:
                    per[m][key] = value
            elif name not in per:
                raise InputError(f"option {key!r} is for backend {name!r}, which is not a member of this portfolio "
                                 f"(members: {', '.join(members)})")
            elif not rest:
                raise InputError(f"option {key!r}: no option name after {name + '.'!r}")
            else:
                per[name][rest] = value
        return per

    def members(self, goal: Goal, named: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
        """The member backends to race: ``named`` ("cpsat,sat" from the command line, or a
        sequence) or the defaults for ``goal``; each must exist, be installed and take ``goal``."""
        from . import backend_class

        if named is not None and not (named.strip(" ,") if isinstance(named, str) else named):
            raise InputError("-O members= names no backend: give them joined by commas, e.g. members=cpsat,sat")
        members = named or default_members(goal)
        if isinstance(members, str):
            members = [m.strip() for m in members.split(",") if m.strip()]
        if not isinstance(members, (list, tuple)) or not all(isinstance(m, str) for m in members):
            raise InputError(f"-O members= is backend names joined by commas (members=cpsat,sat), not {members!r}")
        members = tuple(members)
        if len(members) < 1:
            raise InputError("portfolio needs at least one member backend")
        twice = sorted({m for m in members if members.count(m) > 1})
        if twice:  # one process would lose to its twin, and -O NAME.KEY could not tell them apart
            raise InputError(f"portfolio member {twice[0]!r} is listed twice: give each backend once")
        for m in members:
            cls = backend_class(m)
            if m == self.name:
                raise InputError("a portfolio cannot contain itself")
            member = cls()
            member.require()
            try:
                member.check_goal(goal)
            except InputError:
                raise InputError(f"portfolio member {m!r} does not take {goal.value} problems (default members "
                                 f"for them: {','.join(default_members(goal))})") from None
        return members

    def _solve(self, sp: Subproblem, formulation: str, time_limit: float | None, threads: int, seed: int,
               log_path: Path | None, hint: Board | None, on_improvement: Callable[[Board, int], None] | None,
               options: dict[str, Any]) -> Result:
        members = self.members(sp.goal, options.pop("members", None))
        per = self.member_options(members, options)
        ctx = process_context()
        out = ctx.Queue()
        hint_arrays = None if hint is None else (np.asarray(hint.piece), np.asarray(hint.rotation))
        show = self.progress is not None
        deeper = DeeperFills(self.partial_sink, sp)  # a member's deeper partial fills go on to the caller's
        # Not daemonic: a daemonic process may not start processes of its own, and the sat
        # backend runs its solver in one (each member dies with this process all the same).
        ends = None if time_limit is None else time.monotonic() + time_limit
        procs = {m: ctx.Process(target=_member, daemon=False,
                                args=(os.getpid(), m, sp, ends, member_seed(seed, i), hint_arrays, per[m], out,
                                      show, deeper.emit is not None))
                 for i, m in enumerate(members)}
        from . import get_backend

        for m in members:
            get_backend(m).before_fork(sp)  # not while another thread of ours loads them (see before_fork)
        for p in procs.values():
            start_child(p)
        results: list[tuple] = []
        best: Result | None = None
        partial: Board | None = None  # the deepest partial fill a member left (searches without an answer)
        interrupted = False
        deadline = None if time_limit is None else time.monotonic() + time_limit + 30.0  # members stop themselves

        def take(item: tuple) -> bool:
            """Take one message from a member; True when it decides the race."""
            nonlocal best, partial
            tag, item = item[0], item[1:]
            if tag == "progress":
                self.progress(f"{item[0]}: {item[1]}")
                return False
            if tag == "partial":  # members race: only a fill deeper than any passed on
                deeper.offer(Board(sp.puzzle.width, sp.puzzle.height, item[1], item[2]))
                return False
            if tag == "improved":
                # A member's board as soon as it has it, so that a member killed before its
                # answer (one that does not stop when asked) still leaves the best board found.
                name, piece, rotation, score = item
                perfect = score == sp.max_score
                if sp.goal is Goal.FEASIBILITY and not perfect:
                    return False
                r = Result(Status.OPTIMAL if perfect else Status.FEASIBLE,
                           Board(sp.puzzle.width, sp.puzzle.height, piece, rotation), score,
                           score if perfect else None)
                r.stats["member"] = name
            else:
                results.append(item)
                r = self._to_result(sp, item)
                if r.partial is not None and (partial is None or r.partial.filled.sum() > partial.filled.sum()):
                    partial = r.partial
            held = -1 if best is None or best.board is None else (best.objective or 0)
            got = r.objective or 0
            if r.board is not None and (got > held or (tag == "result" and got == held)):
                best = r  # a member's final answer replaces the same board sent earlier (it has the bound)
                if on_improvement is not None and got > held:
                    on_improvement(r.board, r.objective)
            if r.status in (Status.OPTIMAL, Status.INFEASIBLE):
                best = r
                return True
            return False

        decided = False
        try:  # whatever happens here (a caller's callback may raise), the members end with it
            try:
                while len(results) < len(procs):
                    try:
                        item = out.get(timeout=0.2)
                    except queue.Empty:
                        if deadline is not None and time.monotonic() > deadline:
                            interrupted = True  # members that overran their own limit are ended
                            break
                        if not any(p.is_alive() for p in procs.values()) and out.empty():
                            break
                        continue
                    if take(item):
                        decided = True
                        break
            except KeyboardInterrupt:
                interrupted = True
            for p in procs.values():
                if p.is_alive():
                    # A member stops as for Ctrl-C (its solver processes end with it) and sends
                    # what it has; once the race is decided nobody waits for that.
                    p.terminate()
            # Unless the race is decided, wait a little for those answers (a best board, or the
            # deepest partial fill of a search); a second Ctrl-C stops waiting.
            try:
                until = time.monotonic() + 5.0
                while not decided and len(results) < len(procs) and time.monotonic() < until:
                    try:
                        decided = take(out.get(timeout=0.1))
                    except queue.Empty:
                        if not any(p.is_alive() for p in procs.values()) and out.empty():
                            break
            except KeyboardInterrupt:
                interrupted = True
        finally:
            for p in procs.values():
                if p.is_alive():
                    p.terminate()
                p.join(timeout=1)
                if p.is_alive():
                    p.kill()
                    p.join(timeout=5)
        errors = [f"{it[0]}: {it[6]}" for it in results if it[6]]
        if best is None and not interrupted and errors and len(errors) == len(procs):
            # Every member failed: say why instead of answering "unknown".
            refused = all(it[6].split(":")[0] in ("InputError", "UnknownNameError") for it in results)
            text = "every portfolio member failed: " + "; ".join(errors)
            raise InputError(text) if refused else BackendError(text)
        if best is None:
            best = Result(Status.UNKNOWN, partial=partial)
        # Unproven answers were cut short when any member was (Ctrl-C or the time limit).
        best.interrupted = interrupted or best.interrupted or (
            best.status not in (Status.OPTIMAL, Status.INFEASIBLE) and any(it[7] for it in results))
        best.stats = {"members": ",".join(members), "winner": best.stats.get("member", ""),
                      "finished": ",".join(it[0] for it in results), **({"errors": "; ".join(errors)} if errors else {})}
        if log_path is not None:
            from ..io import write_text

            lines = [f"portfolio of {', '.join(members)} on {sp.puzzle.name} ({sp.n_free} free cells, {sp.goal.value})"]
            lines += self.log_lines.lines() if self.log_lines is not None else []
            lines += [f"winner: {best.stats['winner'] or 'none'}",
                      f"answer: {best.status.value} objective={best.objective} bound={best.bound}"
                      + (" (interrupted)" if best.interrupted else "")]
            lines += [f"{it[0]}: {it[1]} objective={it[3]} bound={it[4]} time={it[5]:.3f}s" + (f" error={it[6]}" if it[6] else "")
                      for it in results]
            done = {it[0] for it in results}
            lines += [f"{m}: stopped when the race ended" + (" (it gave the answer)"
                                                             if m == best.stats["winner"] else "")
                      for m in members if m not in done]
            write_text(log_path, "\n".join(lines) + "\n")
            best.log_path = log_path
        return best

    @staticmethod
    def _to_result(sp: Subproblem, item: tuple) -> Result:
        name, status, board, objective, bound, wall, _err, interrupted, partial = item
        b = None if board is None else Board(sp.puzzle.width, sp.puzzle.height, board[0], board[1])
        r = Result(Status(status), b, objective, bound, interrupted=interrupted,
                   partial=None if partial is None else Board(sp.puzzle.width, sp.puzzle.height, *partial))
        r.stats["member"] = name
        return r
