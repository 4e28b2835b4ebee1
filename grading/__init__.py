"""Autograder for the course's fill-in-the-blank exercises (one folder each: grading/exercises/README.md).

    from grading import check
    report = check("/tmp/<the exercise's target>.cu")   # the public checks a lesson's check cell runs

Instructors: ``python -m grading grade --exercise ID SUBMISSION... --out DIR`` (see grading/cli.py).
"""
from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["check", "CheckReport", "grade_submission", "load_exercise"]


def __getattr__(name: str):
    # lazy, so that importing grading stays cheap in a notebook and the student build needs no batch code
    if name in ("check", "CheckReport"):
        from . import checkcell
        return getattr(checkcell, name)
    if name == "grade_submission":
        from .grade import grade_submission
        return grade_submission
    if name == "load_exercise":
        from .spec import load_exercise
        return load_exercise
    raise AttributeError(f"module 'grading' has no attribute {name!r}")
