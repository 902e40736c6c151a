"""The edge-slipping backtracker that hunts high scores, after Louis Verhaard eii (seed 001)."""
