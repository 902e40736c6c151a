"""SAT and MaxSAT backends on the CNF / WCNF formulations (:mod:`emc.encoders.cnf`), via PySAT.

* ``sat``: a CDCL solver (Kissat 4.0.4 by default, any PySAT solver by ``solver=``) on the
  CNF "every counted edge matched". For an optimisation sub-problem it first asks whether a
  perfect fill exists (then the answer is optimal); if not, it hands the rest of the time to
  the ``maxsat`` backend. Enumerates solutions with blocking clauses.
* ``maxsat``: RC2 (Ignatiev, Morgado and Marques-Silva, JSAT 2019), a core-guided MaxSAT
  solver, on the WCNF with one soft clause per counted edge; optionally in parallel with a
  linear SAT-UNSAT search that reports every better board as it finds it.

The encodings follow Heule (SAT 2008 workshop) and Ansotegui et al. (CP 2008); the
sub-problems and objective are those of Salassa et al. (seed 000).

Every solver runs in a child process: PySAT cannot interrupt CaDiCaL or Kissat, so killing
the child is the only dependable way to honour a time limit or Ctrl-C. The child inherits
the clauses by ``fork`` and sends back only true variables. A portfolio runs several
differently configured children at once and takes the first answer.
"""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import InputError, UnknownNameError
from ..model import Board, Goal, Subproblem
from .base import Backend, Capability, CountResult, Result, Status, check_options, mapping_option, member_seed, option_bool, solutions_text
from ..runtime import Throttled, child_setup, process_context, start_child

#: Solvers a PySAT build may offer, canonical name first (pysat.solvers.SolverNames).
_KNOWN = ("kissat404", "cadical195", "cadical153", "cadical103", "cadical300", "glucose4", "glucose42",
          "glucose3", "lingeling", "maplechrono", "maplecm", "maplesat", "mergesat3", "minisat22",
          "minisatgh", "minicard", "gluecard3", "gluecard4", "cryptosat")
#: Short names PySAT does not know, for the newest build of each family.
_EXTRA_ALIASES = {"cadical": "cadical195", "glucose": "glucose4", "minisat": "minisat22"}
#: Solvers that accept clauses after a solve (needed to enumerate solutions).
_NON_INCREMENTAL = {"kissat404"}
# Solvers PySAT gives no literal propagation, which RC2 asks of its oracle ("not yet implemented")
_NO_PROPAGATION = {"lingeling", "cadical103"}
DEFAULT_SOLVER = "kissat404"
DEFAULT_COUNT_SOLVER = "cadical195"
#: Processes in the default portfolio (one per core of the 2-core target machine).
PORTFOLIO_SIZE = 2
#: Variable orders picked by the run seed (see :func:`run_settings`).
SEED_ORDERS = ("rowmajor", "colmajor", "diagonal")

_SAT_OPTIONS = {"solver", "portfolio", "variant", "encoding", "fallback"}
_MAXSAT_OPTIONS = {"solver", "algorithm", "portfolio", "encoding"}


# ----------------------------------------------------------------------------- solver names
_available_cache: dict[str, bool] = {}


def _solver_works(name: str) -> bool:
    if name not in _available_cache:
        try:
            from pysat.solvers import Solver

            s = Solver(name=name, bootstrap_with=[[1]])
            s.delete()
            _available_cache[name] = True
        except Exception:  # NoSuchSolverError or a build without it
            _available_cache[name] = False
    return _available_cache[name]


def solver_names() -> list[str]:
    """Canonical names of the SAT solvers this PySAT build can run."""
    return [n for n in _KNOWN if _solver_works(n)]


def canonical_solver(name: str) -> str:
    """The canonical PySAT solver name for ``name`` or an alias (``kissat``, ``cd19``, ``g4``, ...).

    Raises:
        InputError: the name is not a solver of this PySAT build (lists all valid names).
    """
    from pysat.solvers import SolverNames

    name = str(name).strip().lower()
    name = _EXTRA_ALIASES.get(name, name)
    for canon in _KNOWN:
        aliases = getattr(SolverNames, canon, ())
        if name == canon or name in aliases:
            if _solver_works(canon):
                return canon
            break
    # Every valid name, not a shortened list: the user needs them all to choose.
    raise InputError(f"unknown SAT solver {name!r} (this PySAT build offers: {', '.join(solver_names())}; "
                     f"aliases such as 'kissat', 'cadical', 'cd19', 'g4' work too)")


# ----------------------------------------------------------------------------- child processes
def _make_solver(name: str, clauses, seed: int):
    from pysat.solvers import Solver

    s = Solver(name=name)
    if name == "cadical195" and seed:
        s.solver.configure({"seed": int(seed)})
    s.append_formula(clauses)
    return s


def _stats(s, name: str) -> dict[str, Any]:
    if name in _NON_INCREMENTAL:
        return {}
    try:
        return {k: int(v) for k, v in s.accum_stats().items()}
    except Exception:
        return {}


def _sat_child(conn, parent, tag, clauses, n_vars, name, seed, keep_vars):
    """Solve once; send ("sat", tag, true placement vars, stats) or ("unsat", tag, stats)."""
    child_setup(parent)
    try:
        s = _make_solver(name, clauses, seed)
        t0 = time.perf_counter()
        ok = s.solve()
        # the solver's own time, without encoding, forking and loading clauses: what a benchmark compares
        st = {**_stats(s, name), "solve_seconds": round(time.perf_counter() - t0, 4)}
        if ok:
            m = np.asarray(s.get_model(), dtype=np.int64)
            true = np.intersect1d(m[m > 0], keep_vars)
            conn.send(("sat", tag, true, st))
        else:
            conn.send(("unsat", tag, None, st))
    except Exception as exc:  # reported to the parent, which raises it as one line
        conn.send(("error", tag, f"{type(exc).__name__}: {exc}", {}))
    finally:
        conn.close()


def _count_child(conn, parent, clauses, name, keep_vars, limit):
    """Enumerate models, blocking each one's placements; stream them to the parent."""
    child_setup(parent)
    try:
        s = _make_solver(name, clauses, 0)
        n = 0
        while limit is None or n < limit:
            if not s.solve():
                conn.send(("done", True, _stats(s, name)))
                return
            m = np.asarray(s.get_model(), dtype=np.int64)
            true = np.intersect1d(m[m > 0], keep_vars)
            conn.send(("model", true))
            n += 1
            s.add_clause((-true).tolist())
        conn.send(("done", False, _stats(s, name)))
    except Exception as exc:
        conn.send(("error", f"{type(exc).__name__}: {exc}", {}))
    finally:
        conn.close()


class _Children:
    """A set of worker processes and their pipes; kills every survivor on exit."""

    def __init__(self):
        self.procs: list[tuple[Any, Any]] = []

    def start(self, target, *args) -> None:
        ctx = process_context()
        recv, send = ctx.Pipe(duplex=False)
        p = ctx.Process(target=target, args=(send, os.getpid()) + args, daemon=True)
        start_child(p)
        send.close()
        self.procs.append((p, recv))

    def wait(self, deadline: float | None):
        """The next message from any child, or None at the deadline / when all are gone.

        Raises:
            InputError: every child is gone and one was killed or crashed (the out-of-memory
                killer, a signal sent to it alone): no answer, and no time limit either.
        """
        from multiprocessing.connection import wait

        while True:
            live = [r for p, r in self.procs if not r.closed]
            if not live:
                for p, _ in self.procs:
                    p.join(timeout=2)
                codes = [p.exitcode for p, _ in self.procs if p.exitcode not in (0, None)]
                if codes:
                    how = f"killed by signal {-codes[0]}" if codes[0] < 0 else f"exit status {codes[0]}"
                    raise InputError(f"the solver's process ended without an answer ({how}: out of memory, or "
                                     "killed)")
                return None
            timeout = None if deadline is None else max(0.0, deadline - time.perf_counter())
            # at most a day per wait: the poll under wait() takes milliseconds as a 32-bit number
            ready = wait(live, None if timeout is None else min(timeout, 86400.0))
            if not ready:
                if timeout is not None and timeout > 86400.0:
                    continue
                return None
            for r in ready:
                try:
                    return r.recv()
                except (EOFError, OSError):
                    r.close()

    def stop(self) -> None:
        for p, r in self.procs:
            if p.is_alive():
                p.kill()
            p.join(timeout=5)
            if not r.closed:
                r.close()
        self.procs = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


# ----------------------------------------------------------------------------- helpers
def _portfolio(option: Any, solver: str | None, threads: int) -> list[str]:
    """Solver name per child process (member ``i`` gets run seed ``seed + i``)."""
    if option is None:
        option = threads >= 2 and solver is None
    if option is False:
        return [canonical_solver(solver or DEFAULT_SOLVER)]
    if option is True:
        names = [solver or DEFAULT_SOLVER] * PORTFOLIO_SIZE
    elif isinstance(option, str):
        names = [n for n in option.split(",") if n.strip()]
    elif isinstance(option, list) and all(isinstance(n, str) for n in option):
        names = option
    else:
        raise InputError(f"sat portfolio: true, false, or solver names (cadical195,glucose4 or a JSON list of "
                         f"them), not {option!r}")
    if not names:
        raise InputError("portfolio needs at least one solver")
    return [canonical_solver(n) for n in names]


def run_settings(seed: int, encoding: dict[str, Any]) -> dict[str, Any]:
    """Encoder options for run seed ``seed``: the variable order and tie-break it implies.

    Seeds 0, 1, 2 number the variables row by row, column by column and along
    anti-diagonals, all starting from the top-left corner where symmetry breaking puts the
    first corner piece (measured: orders that start elsewhere are much slower); higher
    seeds cycle through them again with the placements of each cell in a random order.
    Options the user gave explicitly win."""
    out = {"order": SEED_ORDERS[seed % len(SEED_ORDERS)], "tiebreak": seed // len(SEED_ORDERS)}
    out.update(encoding)
    return out


def _write_log(log_path: Path | None, lines: list[str]) -> None:
    if log_path is None:
        return
    from ..io import write_text

    write_text(log_path, "".join(l + "\n" for l in lines))


def _fmt_stats(st: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(st.items())) or "(solver exposes no statistics)"


def _encoding_options(options: dict[str, Any], key: str = "encoding") -> dict[str, Any]:
    return dict(mapping_option(options, key, "a mapping of encoder options, e.g. -O 'encoding={\"order\": \"spiral\"}'"))


def _version() -> str | None:
    if importlib.util.find_spec("pysat") is None:
        return None
    try:
        import pysat

        return f"python-sat {pysat.__version__}"
    except Exception:
        return None


# ----------------------------------------------------------------------------- SAT backend
class SatBackend(Backend):
    """CDCL SAT solving of the CNF formulation (feasibility; optimisation via a perfect fill).

    Options (``solve(..., **options)``):
        solver: PySAT solver name or alias (:func:`solver_names`); default ``kissat404``.
        portfolio: ``True`` runs :data:`PORTFOLIO_SIZE` processes (the solver with run
            seeds ``seed``, ``seed + 1``, ...), a comma list or list of solver names runs
            one process each; the first answer wins. Default: on when ``threads >= 2`` and
            no ``solver`` is named.
        variant: ``onehot`` (default) or ``log`` colour encoding.
        encoding: encoder options (:meth:`emc.encoders.cnf.CnfEncoder.encode`); they
            override the order and tie-break a run seed implies (:func:`run_settings`).
        fallback: for an optimisation sub-problem without a perfect fill, hand the rest of
            the time to the ``maxsat`` backend (default ``True``; otherwise UNKNOWN with
            bound ``max_score - 1``).
    """

    name = "sat"
    priority = {"feasibility": 30, "enumeration": 20, "race feasibility": 20}
    options = frozenset(_SAT_OPTIONS)
    formulations = ("cnf",)
    capabilities = frozenset({Capability.FEASIBILITY, Capability.OPTIMISATION, Capability.ENUMERATION})
    install_hint = "pip install 'emc[sat]'"
    solver_modules = ("pysat.solvers", "pysat.card", "emc.encoders.cnf")
    description = "SAT solvers via PySAT (Kissat, CaDiCaL, Glucose, ...) on the CNF encoding; portfolio option"

    @classmethod
    def available(cls) -> bool:
        return importlib.util.find_spec("pysat") is not None

    @classmethod
    def version(cls) -> str | None:
        return _version()

    def check_option_values(self, goal: Goal, options: dict[str, Any]) -> None:
        from ..encoders.cnf import CnfEncoder

        CnfEncoder().check_variant(options.get("variant"))
        _portfolio(options.get("portfolio"), options.get("solver"), 2)  # checks the solver names
        given = _encoding_options(options)
        opts = CnfEncoder().check_options(given, options.get("variant"))
        if options.get("variant") == "log":  # as `emc export` refuses them: asked for, yet without effect
            idle = [k for k in ("redundant", "edge_amo", "colour_counts", "forbid", "piece_support")
                    if k in given and opts[k] not in ("none", False)]
            if idle:
                raise InputError(f"-O encoding {idle[0]}={given[idle[0]]}: no effect with the log variant (one-hot "
                                 "variant only)")
        if "fallback" in options:
            option_bool(self.name, options, "fallback", True)

    def _solve(self, sp: Subproblem, formulation: str, time_limit: float | None, threads: int, seed: int,
               log_path: Path | None, hint: Board | None, on_improvement: Callable[[Board, int], None] | None,
               options: dict[str, Any]) -> Result:
        from ..encoders.cnf import CnfEncoder

        check_options(self.name, options, _SAT_OPTIONS)
        t0 = time.perf_counter()
        deadline = None if time_limit is None else t0 + time_limit
        team = _portfolio(options.get("portfolio"), options.get("solver"), threads)
        user_enc = _encoding_options(options)
        encs, members = {}, []
        for i, name in enumerate(team):
            ms = member_seed(seed, i)
            settings = run_settings(ms, user_enc)
            key = tuple(sorted(settings.items()))  # hashable: check_option_values refused other values
            if key not in encs:
                encs[key] = CnfEncoder().encode(sp, options.get("variant"), **settings)
            members.append((name, ms, encs[key]))
        enc = members[0][2]
        sizes = enc.sizes()
        log = [f"emc sat backend ({_version()})", f"sub-problem: {sp.n_free} free cells, {len(sp.pieces)} pieces, "
               f"{sp.max_score} counted edges, goal {sp.goal.value}",
               f"sizes: variables={sizes['variables']} clauses={sizes['clauses']}",
               f"time limit: {time_limit if time_limit is not None else 'none'}"]
        for i, (name, s_, e) in enumerate(members):
            log.append(f"process {i}: {name}, seed {s_}, cnf variant {e.variant} {e.options_text()}")
        stats: dict[str, Any] = {"variables": sizes["variables"], "clauses": sizes["clauses"],
                                 "encode_seconds": round(time.perf_counter() - t0, 3)}
        status, board, winner, interrupted = Status.UNKNOWN, None, None, False
        clause_lists = {id(e): e.clauses() for e in encs.values()}
        if any(len(c) == 0 for c in clause_lists[id(enc)]):
            status = Status.INFEASIBLE
            winner = "encoder (empty clause)"
        else:
            try:
                with _Children() as kids:
                    for i, (name, s_, e) in enumerate(members):
                        kids.start(_sat_child, i, clause_lists[id(e)], e.sizes()["variables"], name, s_,
                                   e.placement_vars)
                    pending = len(members)
                    while pending:
                        msg = kids.wait(deadline)
                        if msg is None:
                            interrupted = deadline is not None
                            break
                        kind, tag, payload, st = msg
                        pending -= 1
                        name, s_, e = members[tag]
                        if kind == "error":
                            raise InputError(f"SAT solver {name} failed: {payload}")
                        stats.update({f"{k}": v for k, v in st.items()})
                        winner = f"{name} (process {tag}, seed {s_})"
                        if kind == "sat":
                            status, board = Status.OPTIMAL, e.decode(payload.tolist())
                        else:
                            status = Status.INFEASIBLE
                        break
            except KeyboardInterrupt:
                interrupted = True
        # who answered, or (no answer) the solvers that ran
        stats["solver"] = winner if winner is not None else ", ".join(sorted({m[0] for m in members}))
        log.append(f"result: {status.value} (answered by {winner or 'nobody'}) after "
                   f"{time.perf_counter() - t0:.3f} s{' (stopped)' if interrupted else ''}")
        for k, v in stats.items():
            log.append(f"  {k}: {v}")
        if sp.goal is Goal.OPTIMISATION and status is Status.INFEASIBLE and options.get("fallback", True) \
                and not interrupted:
            # No perfect fill: the optimum is below the maximum, which is MaxSAT's job.
            left = None if deadline is None else deadline - time.perf_counter()
            if left is None or left > 0:
                log.append("no perfect fill exists: handing over to the maxsat backend")
                _write_log(log_path, log)
                res = MaxSatBackend()._solve(sp, "wcnf", left, threads, seed, None, hint, on_improvement,
                                             {"encoding": {k: v for k, v in user_enc.items()
                                                           if k in ("card", "cell_amo", "piece_cell", "redundant", "forbid")}})
                res.stats = {**{f"sat_{k}": v for k, v in stats.items()}, **res.stats, "fallback": "maxsat"}
                res.log_path = log_path  # the SAT log written above is this run's log
                if res.status is not Status.INFEASIBLE:
                    # the SAT call proved the maximum impossible: RC2 stopped before its
                    # first cores knows less (it said max_score)
                    res.bound = sp.max_score - 1 if res.bound is None else min(res.bound, sp.max_score - 1)
                return res
            status = Status.UNKNOWN
            interrupted = True
        _write_log(log_path, log)
        res = Result(status, board=board, log_path=log_path, stats=stats, interrupted=interrupted)
        if status is Status.OPTIMAL:
            res.objective = res.bound = sp.max_score
            if on_improvement is not None:
                on_improvement(board, sp.max_score)
        elif status is Status.INFEASIBLE and sp.goal is Goal.OPTIMISATION:
            # Without the fallback: we only know the maximum is out of reach.
            res.status, res.bound = Status.UNKNOWN, sp.max_score - 1
        return res

    def _count(self, sp: Subproblem, formulation: str, limit: int | None, time_limit: float | None,
               keep: int, options: dict[str, Any]) -> CountResult:
        from ..encoders.cnf import CnfEncoder

        check_options(self.name, options, _SAT_OPTIONS)
        name = canonical_solver(options.get("solver") or DEFAULT_COUNT_SOLVER)
        if name in _NON_INCREMENTAL:
            name = DEFAULT_COUNT_SOLVER  # Kissat cannot take the blocking clauses between calls
        t0 = time.perf_counter()
        deadline = None if time_limit is None else t0 + time_limit
        user_enc = _encoding_options(options)
        if user_enc.get("twins"):
            raise InputError("-O encoding twins=true keeps one board of each set that differs by swapping twin pieces: "
                             "a count would miss the others")
        enc = CnfEncoder().encode(sp, options.get("variant"), **user_enc)
        clauses = enc.clauses()
        count, complete, boards, stats = 0, False, [], {"solver": name}
        if any(len(c) == 0 for c in clauses):
            complete = True
        else:
            tick = Throttled(self.progress)
            try:
                with _Children() as kids:
                    kids.start(_count_child, clauses, name, enc.placement_vars, limit)
                    while True:
                        msg = kids.wait(deadline)
                        if msg is None:
                            break
                        if msg[0] == "model":
                            count += 1
                            tick(lambda: solutions_text(count))
                            if len(boards) < keep:
                                boards.append(enc.decode(msg[1].tolist()))
                        elif msg[0] == "done":
                            complete = bool(msg[1])
                            stats.update(msg[2])
                            break
                        else:
                            raise InputError(f"SAT solver {name} failed: {msg[1]}")
            except KeyboardInterrupt:
                complete = False
        return CountResult(count, complete, backend=self.name, boards=boards, stats=stats)


# ----------------------------------------------------------------------------- MaxSAT backend
def _rc2_child(conn, parent, hard, soft, n_vars, name, stratified, keep_vars):
    """RC2 on (hard, soft). Sends a first feasible model, lower bounds on the cost as cores
    are found, and the optimum: ("model", vars, cost), ("bound", lb), ("optimal", vars, cost)."""
    child_setup(parent)
    try:
        from pysat.examples.rc2 import RC2, RC2Stratified
        from pysat.formula import WCNF

        def cost_of(model_true: set[int]) -> int:
            return sum(1 for c in soft if not any((l > 0) == (abs(l) in model_true) for l in c))

        # A first board at once: any model of the hard clauses.
        s = _make_solver(name, hard, 0)
        if not s.solve():
            conn.send(("infeasible",))
            return
        m = np.asarray(s.get_model(), dtype=np.int64)
        true = set(m[m > 0].tolist())
        conn.send(("model", np.intersect1d(m[m > 0], keep_vars), cost_of(true)))
        s.delete()

        w = WCNF()
        w.nv = n_vars
        for c in hard:
            w.append(c)
        for c in soft:
            w.append(c, weight=1)
        base = RC2Stratified if stratified else RC2

        class _Reporting(base):
            def process_core(self):  # report each new lower bound on the cost
                super().process_core()
                conn.send(("bound", int(self.cost)))

        with _Reporting(w, solver=name, adapt=True, exhaust=True, minz=True) as rc2:
            model = rc2.compute()
            if model is None:
                conn.send(("infeasible",))
                return
            m = np.asarray(model, dtype=np.int64)
            conn.send(("optimal", np.intersect1d(m[m > 0], keep_vars), int(rc2.cost)))
    except Exception as exc:
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _lsu_child(conn, parent, hard, soft, n_vars, name, keep_vars):
    """Linear SAT-UNSAT search: every model must violate fewer soft clauses than the last.

    Anytime: each better model is sent at once; an unsatisfiable bound proves the last
    one optimal."""
    child_setup(parent)
    try:
        from pysat.card import ITotalizer

        top = n_vars
        relax = []
        clauses = list(hard)
        for c in soft:
            top += 1
            relax.append(top)
            clauses.append(list(c) + [top])
        tot = ITotalizer(lits=relax, ubound=len(relax), top_id=top)
        clauses.extend(tot.cnf.clauses)
        if name in _NON_INCREMENTAL:
            name = DEFAULT_COUNT_SOLVER
        s = _make_solver(name, clauses, 0)
        best = None
        assumptions: list[int] = []
        while True:
            if not s.solve(assumptions=assumptions):
                if best is None:
                    conn.send(("infeasible",))
                else:
                    conn.send(("optimal", best[0], best[1]))
                return
            m = np.asarray(s.get_model(), dtype=np.int64)
            true = set(m[m > 0].tolist())
            cost = sum(1 for c in soft if not any((l > 0) == (abs(l) in true) for l in c))
            best = (np.intersect1d(m[m > 0], keep_vars), cost)
            conn.send(("model", best[0], cost))
            if cost == 0:
                conn.send(("optimal", best[0], 0))
                return
            # at most cost-1 relaxed soft clauses from now on
            assumptions = [-tot.rhs[cost - 1]]
    except Exception as exc:
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class MaxSatBackend(Backend):
    """RC2 MaxSAT on the WCNF formulation (optimisation and feasibility).

    Options:
        algorithm: ``rc2`` (default), ``rc2-stratified`` or ``lsu`` (linear SAT-UNSAT
            search on CaDiCaL, anytime).
        solver: the SAT oracle of RC2 (default ``glucose4``; Kissat cannot serve, it is not
            incremental).
        portfolio: run the linear search in a second process beside RC2, so that a time
            limit still returns the best board found (default: ``threads >= 2``).
        encoding: encoder options (:meth:`emc.encoders.cnf.WcnfEncoder.encode`).

    Without the portfolio, RC2's child first sends any board of the hard clauses, so a
    stopped run still has a board; RC2 reports each core's lower bound on the cost, which
    becomes the ``bound`` of a stopped run.
    """

    name = "maxsat"
    priority = {"feasibility": 80, "optimisation": 20, "region optimisation": 10, "race optimisation": 20}
    options = frozenset(_MAXSAT_OPTIONS)
    formulations = ("wcnf",)
    capabilities = frozenset({Capability.FEASIBILITY, Capability.OPTIMISATION})
    install_hint = "pip install 'emc[sat]'"
    solver_modules = ("pysat.examples.rc2", "pysat.card", "emc.encoders.cnf")
    description = "MaxSAT via PySAT's RC2 on the WCNF encoding (one soft clause per edge); anytime portfolio option"

    @classmethod
    def available(cls) -> bool:
        return importlib.util.find_spec("pysat") is not None

    @classmethod
    def version(cls) -> str | None:
        return _version()

    def check_option_values(self, goal: Goal, options: dict[str, Any]) -> None:
        from ..encoders.cnf import WcnfEncoder

        WcnfEncoder().check_variant(options.get("variant"))
        self._algorithm_and_solver(options)
        if options.get("portfolio") is not None:  # true or false here (sat's portfolio also takes solver names)
            option_bool(self.name, options, "portfolio", False)
        WcnfEncoder().check_options(_encoding_options(options), options.get("variant"))

    @staticmethod
    def _algorithm_and_solver(options: dict[str, Any]) -> tuple[str, str]:
        algo = options.get("algorithm", "rc2")
        algos = ("rc2", "rc2-stratified", "lsu")
        if algo not in algos:
            raise UnknownNameError("MaxSAT algorithm", str(algo), algos)
        name = canonical_solver(options.get("solver") or "glucose4")
        if name in _NON_INCREMENTAL:
            raise InputError(f"{name} cannot serve as a MaxSAT oracle (it is not incremental); "
                             f"use e.g. glucose4 or cadical195")
        if name in _NO_PROPAGATION and algo != "lsu":
            raise InputError(f"{name} cannot serve as RC2's oracle (PySAT gives it no literal propagation); use e.g. "
                             "glucose4 or cadical195, or -O algorithm=lsu")
        return algo, name

    def _solve(self, sp: Subproblem, formulation: str, time_limit: float | None, threads: int, seed: int,
               log_path: Path | None, hint: Board | None, on_improvement: Callable[[Board, int], None] | None,
               options: dict[str, Any]) -> Result:
        from ..encoders.cnf import WcnfEncoder

        check_options(self.name, options, _MAXSAT_OPTIONS)
        algo, name = self._algorithm_and_solver(options)
        portfolio = options.get("portfolio")
        if portfolio is None:
            portfolio = threads >= 2
        t0 = time.perf_counter()
        deadline = None if time_limit is None else t0 + time_limit
        enc = WcnfEncoder().encode(sp, None, **run_settings(seed, _encoding_options(options)))
        hard, soft = enc.clauses(), enc.soft
        sizes = enc.sizes()
        M = sp.max_score
        stats: dict[str, Any] = {**sizes, "encode_seconds": round(time.perf_counter() - t0, 3)}
        log = [f"emc maxsat backend ({_version()})",
               f"sub-problem: {sp.n_free} free cells, {len(sp.pieces)} pieces, {M} counted edges, goal {sp.goal.value}",
               f"encoding: wcnf {enc.options_text()}",
               f"sizes: variables={sizes['variables']} hard={sizes['hard']} soft={sizes['soft']}",
               f"algorithm: {algo}{' + lsu portfolio' if portfolio and algo != 'lsu' else ''}, oracle {name}",
               f"time limit: {time_limit if time_limit is not None else 'none'}"]
        best_board, best_cost, lower, optimal, infeasible, interrupted = None, None, 0, False, False, False
        tick = Throttled(self.progress)

        def report() -> None:  # the bound from RC2's cores and the best board so far
            tick(lambda: f"bound {M - lower}" + ("" if best_cost is None else f", best {M - best_cost}"))

        if hint is not None and hint.width == sp.puzzle.width and hint.height == sp.puzzle.height:
            from ..score import check_subproblem_solution

            if not check_subproblem_solution(sp.with_goal(Goal.OPTIMISATION), hint):
                best_board, best_cost = hint.copy(), M - sp.score(hint)
        if any(len(c) == 0 for c in hard):
            infeasible = True
        elif best_cost == 0:
            optimal = True  # the hint already matches every counted edge
        else:
            try:
                with _Children() as kids:
                    if algo == "lsu":
                        kids.start(_lsu_child, hard, soft, sizes["variables"], name, enc.placement_vars)
                    else:  # RC2, with an anytime linear search beside it on a second core
                        kids.start(_rc2_child, hard, soft, sizes["variables"], name, algo == "rc2-stratified",
                                   enc.placement_vars)
                        if portfolio:
                            kids.start(_lsu_child, hard, soft, sizes["variables"], "cadical195", enc.placement_vars)
                    while True:
                        msg = kids.wait(deadline)
                        if msg is None:
                            interrupted = True
                            break
                        kind = msg[0]
                        if kind == "error":
                            raise InputError(f"MaxSAT solver failed: {msg[1]}")
                        if kind == "infeasible":
                            infeasible = True
                            break
                        if kind == "bound":
                            lower = max(lower, msg[1])
                            report()
                            continue
                        # The child's cost counts soft clauses it left false, which can
                        # exceed the board's real number of unmatched edges: score the board.
                        board = enc.decode(msg[1].tolist())
                        cost = M - sp.score(board)
                        if best_cost is None or cost < best_cost:
                            best_cost, best_board = cost, board
                            if on_improvement is not None:
                                on_improvement(best_board, M - cost)
                            report()
                        if kind == "optimal":
                            cost = int(msg[2])
                            optimal = True
                            lower = max(lower, cost)
                            break
                        if best_cost is not None and best_cost <= lower:
                            optimal = True
                            break
            except KeyboardInterrupt:
                interrupted = True
        if infeasible:
            status = Status.INFEASIBLE
        elif best_board is None:
            status = Status.UNKNOWN
        elif sp.goal is Goal.FEASIBILITY:
            if best_cost == 0:
                status = Status.OPTIMAL
            elif optimal:
                status, best_board = Status.INFEASIBLE, None
            else:
                status, best_board = Status.UNKNOWN, None
        else:
            status = Status.OPTIMAL if optimal else Status.FEASIBLE
        stats.update({"best_cost": best_cost, "cost_lower_bound": lower})
        log.append(f"result: {status.value}, best cost {best_cost} (unmatched counted edges), "
                   f"proved lower bound {lower}, after {time.perf_counter() - t0:.3f} s"
                   f"{' (stopped)' if interrupted else ''}")
        _write_log(log_path, log)
        res = Result(status, board=best_board if status.has_board else None, log_path=log_path, stats=stats,
                     interrupted=interrupted)
        if status.has_board:
            res.objective = M - best_cost
        if status is Status.OPTIMAL:
            res.bound = M - best_cost
        elif status is not Status.INFEASIBLE:
            res.bound = M - lower
        return res
