"""The region-decomposition matheuristic of Salassa et al. (seed 000, sections 3-4)."""
