"""Lesson 10: shared-memory tiled GEMM; the blank is the index of the B element a thread loads into its tile."""
