"""Lesson 9 challenge: a conflict-free tiled transpose of __half, written whole (grading.whole)."""
