"""The region-decomposition matheuristic of Salassa, Vancroonenburg, Wauters, Della Croce and
Vanden Berghe (seed 000, sections 3-4), registered as the method ``matheuristic``.

* :mod:`~emc.heuristics.decomposition.construction`: region decompositions, the greedy
  (Algorithm 1) and backtracking (Algorithm 2, no-good cut (17)) constructive heuristics over
  any backend;
* :mod:`~emc.heuristics.decomposition.neighbourhoods`: TA, BO, BW, TSR and RO;
* :mod:`~emc.heuristics.decomposition.local_search`: the steepest-descent driver cycling
  through them;
* :mod:`~emc.heuristics.decomposition.run`: a whole run (construct + improve) and its JSON
  result;
* :mod:`~emc.heuristics.decomposition.kernels`: the compiled (numba) inner loops;
* :mod:`~emc.heuristics.decomposition.method`: the registry entry (``emc optimise --method
  matheuristic``).
"""
