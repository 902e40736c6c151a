"""Wang and Chiang's two-phase tabu search with annealing and perturbation (seed 004),
registered as the method ``tabu``: :mod:`~emc.heuristics.tabu.method` (the phases and stages,
options with the paper's Table 1 defaults) and :mod:`~emc.heuristics.tabu.kernel` (the compiled
iterations on the shared core).
"""
