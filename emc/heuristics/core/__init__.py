"""What two or more heuristic families share: the method contract and its result
(:mod:`~emc.heuristics.core.method`), random and constructive starting boards
(:mod:`~emc.heuristics.core.starts`).
"""
