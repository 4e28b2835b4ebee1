"""Lesson 8 challenge: a transpose without shared memory, written whole (grading.whole)."""
