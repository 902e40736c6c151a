"""The guide-and-observe hyper-heuristic of Wauters, Vancroonenburg and Vanden Berghe (seed 003),
registered as the method ``gao``: :mod:`~emc.heuristics.gao.method` (the run: starting board,
two phases, options with the paper's defaults) and :mod:`~emc.heuristics.gao.kernel` (the
compiled loop on the shared core).
"""
