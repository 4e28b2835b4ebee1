"""Lesson 10 challenge: a register-tiled GEMM, written whole (grading.whole)."""
