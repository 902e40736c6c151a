"""Compiled kernel of the clique graph writer (numba; imported only when numba is installed).

:func:`fill_edges` walks the vertex pairs ``u < v`` in order, tests compatibility with a few
integer comparisons and prints ``e u v`` lines straight into a byte buffer; it returns when
the buffer is nearly full so the caller can hand the bytes to the file and call again.
"""

from __future__ import annotations

from numba import njit

from .._compile_clock import install as _clock_compiles

_clock_compiles()


@njit(cache=True, nogil=True)
def fill_edges(piece, cell, shown, nbcell, complement, u0, v0, digits, lens, buf):
    """Print edges (or, with ``complement``, non-edges) from pair ``(u0, v0)`` on.

    Args:
        piece, cell: int32 per vertex (0-based).
        shown: ``(N, 4)`` colours of each placement.
        nbcell: ``(cells, 4)`` neighbour cell across each side, -1 at the frame.
        complement: print the pairs that are NOT joined.
        u0, v0: first pair to consider (0-based, ``u0 < v0``).
        digits, lens: ASCII digits of 0..N and their lengths.
        buf: uint8 output buffer.

    Returns:
        ``(u, v, nbytes, nlines)``: the next pair to consider (``u = N - 1`` when done), the
        bytes written into ``buf`` and the number of lines.
    """
    n = piece.shape[0]
    cap = buf.shape[0]
    maxline = 2 * digits.shape[1] + 4
    pos = 0
    lines = 0
    u = u0
    v = v0
    while u < n - 1:
        pu = piece[u]
        cu = cell[u]
        n0 = nbcell[cu, 0]
        n1 = nbcell[cu, 1]
        n2 = nbcell[cu, 2]
        n3 = nbcell[cu, 3]
        lu = lens[u + 1]
        while v < n:
            cv = cell[v]
            ok = piece[v] != pu and cv != cu
            if ok:
                # placements on neighbouring cells must show the same non-border colour
                if cv == n0:
                    ok = shown[u, 0] == shown[v, 2] and shown[u, 0] != 0
                elif cv == n1:
                    ok = shown[u, 1] == shown[v, 3] and shown[u, 1] != 0
                elif cv == n2:
                    ok = shown[u, 2] == shown[v, 0] and shown[u, 2] != 0
                elif cv == n3:
                    ok = shown[u, 3] == shown[v, 1] and shown[u, 3] != 0
            if ok != complement:
                if pos + maxline > cap:
                    return u, v, pos, lines
                buf[pos] = 101  # 'e'
                buf[pos + 1] = 32
                pos += 2
                for k in range(lu):
                    buf[pos + k] = digits[u + 1, k]
                pos += lu
                buf[pos] = 32
                pos += 1
                lv = lens[v + 1]
                for k in range(lv):
                    buf[pos + k] = digits[v + 1, k]
                pos += lv
                buf[pos] = 10
                pos += 1
                lines += 1
            v += 1
        u += 1
        v = u + 1
    return u, v, pos, lines

