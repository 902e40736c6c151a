"""A compiled dense linear assignment solver, for partial optimal placement (seed 003, section
4.5: "solving an assignment problem, for which an efficient algorithm, the Hungarian method,
exists"; Schaus and Deville's very large neighbourhood).

:func:`solve` is the shortest-augmenting-path form of the Hungarian method with row and
column potentials (the O(n^2 m) form Jonker and Volgenant's algorithm also builds on): each row
not placed by a greedy start is added by a Dijkstra-like search over the columns on reduced
costs. It takes ``n <= m`` rows; every row is assigned.

Two choices suit partial optimal placement's matrices (small integer weights, many ties, the
diagonal being the current placement): the start puts every row on its cheapest column when
that column is free, preferring its own column and then any free one among equal costs, and the
searches break ties towards free columns, where they end. On q = 24 matrices of META 16x16
(CPU time per matrix, 24 x 24, compiled) they took a solve from 11.0 to 4.6 us on a random
board and from 2.4 to 0.4 us on a board with 386 matched edges (either alone: 6.9 or 7.6 us,
and 4.0 or 0.4 us).

scipy's :func:`scipy.optimize.linear_sum_assignment` answers the same problem; partial optimal
placement runs inside a compiled search loop, which cannot call scipy without returning to
Python on every move (docs/local-search-core.md measures both). :func:`linear_sum_assignment`
below is the Python face with scipy's signature, for tests and Python callers.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...errors import InputError
from .jit import njit


AssignmentWork = namedtuple("AssignmentWork", ["u", "v", "row_of", "way", "minv", "used"])
AssignmentWork.__doc__ = "Buffers of :func:`solve` for up to ``m`` columns (:func:`assignment_work`)."


def assignment_work(m: int) -> AssignmentWork:
    """The buffers :func:`solve` needs for matrices of up to ``m`` columns."""
    return AssignmentWork(np.zeros(m + 1), np.zeros(m + 1), np.zeros(m + 1, dtype=np.int64),
                          np.zeros(m + 1, dtype=np.int64), np.zeros(m + 1), np.zeros(m + 1, dtype=np.uint8))


@njit
def solve(cost, n, m, col_of_row, H):
    """Minimum-cost assignment of the ``n`` rows of ``cost[:n, :m]`` (float64, finite, ``n <=
    m``) to distinct columns; writes each row's column into ``col_of_row`` and returns the total
    cost. ``H`` holds the buffers (:func:`assignment_work` of at least ``m``)."""
    inf = np.inf
    u = H.u  # row potentials (1-based: index 0 stands for "no row")
    v = H.v  # column potentials (column 0: the virtual start of each row's search)
    row_of = H.row_of  # 1-based row assigned to each column, 0: none
    way = H.way  # the column before each one on the shortest path
    minv = H.minv
    used = H.used
    for j in range(m + 1):
        v[j] = 0.0
        row_of[j] = 0
    # A start that keeps the potentials feasible (reduced costs >= 0, 0 on assigned pairs):
    # each row's potential is its smallest cost, and it takes that column when the column is
    # still free. On partial optimal placement's matrices most rows get their column here, and
    # the searches below run only for the others (see the module's docstring).
    u[0] = 0.0
    for i in range(1, n + 1):
        best = inf
        bj = 0
        for j in range(1, m + 1):
            if cost[i - 1, j - 1] < best:
                best = cost[i - 1, j - 1]
                bj = j
        u[i] = best
        # among equal smallest costs: the row's own column (the diagonal: a piece staying in
        # its hole), else the first free one
        if i <= m and row_of[i] == 0 and cost[i - 1, i - 1] == best:
            bj = i
        elif row_of[bj] != 0:
            for j in range(bj + 1, m + 1):
                if row_of[j] == 0 and cost[i - 1, j - 1] == best:
                    bj = j
                    break
        col_of_row[i - 1] = -1
        if row_of[bj] == 0:
            row_of[bj] = i
            col_of_row[i - 1] = bj - 1
    for i in range(1, n + 1):
        if col_of_row[i - 1] >= 0:
            continue
        row_of[0] = i
        j0 = 0
        for j in range(m + 1):
            minv[j] = inf
            used[j] = 0
        while True:
            used[j0] = 1
            i0 = row_of[j0]
            delta = inf
            j1 = 0
            ui0 = u[i0]
            for j in range(1, m + 1):
                if used[j] == 0:
                    cur = cost[i0 - 1, j - 1] - ui0 - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    # on ties a free column first: the search ends there (with the small
                    # integer costs of partial optimal placement, ties are the rule)
                    if minv[j] < delta or (minv[j] == delta and row_of[j] == 0):
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[row_of[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if row_of[j0] == 0:
                break
        while j0 != 0:  # flip the augmenting path
            j1 = way[j0]
            row_of[j0] = row_of[j1]
            j0 = j1
    total = 0.0
    for j in range(1, m + 1):
        if row_of[j] > 0:
            col_of_row[row_of[j] - 1] = j - 1
            total += cost[row_of[j] - 1, j - 1]
    return total


def linear_sum_assignment(cost, maximize: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)`` of an optimal assignment of ``cost`` (a 2-D array of finite numbers),
    as :func:`scipy.optimize.linear_sum_assignment` returns them: rows in order, one pair per
    row when there are no more rows than columns, else one per column."""
    a = np.asarray(cost)
    if a.ndim != 2:
        raise InputError(f"an assignment's cost is a 2-D array, not one of shape {a.shape}")
    if a.size and not (np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_):
        raise TypeError(f"an assignment's cost holds numbers, not {a.dtype} values")
    a = a.astype(np.float64)
    if not np.isfinite(a).all():
        raise InputError("an assignment's cost must be finite (use a large number for a forbidden pair)")
    if maximize:
        a = -a
    transposed = a.shape[0] > a.shape[1]
    if transposed:
        a = a.T
    n = a.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    col = np.zeros(n, dtype=np.int64)
    solve(np.ascontiguousarray(a), n, a.shape[1], col, assignment_work(a.shape[1]))
    rows = np.arange(n)
    if transposed:
        order = np.argsort(col)
        return col[order], rows[order]
    return rows, col
