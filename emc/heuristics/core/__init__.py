"""What two or more heuristic families share: the method contract and its result
(:mod:`~emc.heuristics.core.method`), random and constructive starting boards
(:mod:`~emc.heuristics.core.starts`), and the compiled local-search core every
score-maximising method runs on (docs/local-search-core.md):

* :mod:`~emc.heuristics.core.state`: the incremental board state (the five objectives of seed
  003, section 4.6), its moves (set a cell, rotate, swap, with fast Obj1 deltas) and undo log,
  and :class:`~emc.heuristics.core.board_state.BoardState`, its checked Python face;
* :mod:`~emc.heuristics.core.pop`: probabilistic partial optimal placement (seed 003, section 4.5);
* :mod:`~emc.heuristics.core.assignment`: the compiled assignment solver it uses;
* :mod:`~emc.heuristics.core.xorshift`: the seeded random streams of compiled searches;
* :mod:`~emc.heuristics.core.jit`: the numba-optional decorator of the kernels.
"""
