"""Fixtures for the grading tests. The checks run on labsim.cuda, the real CUDA C front end (a hand-written
stand-in once tested the pipeline before the front end existed; issue 22 retired it)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from grading.spec import load_exercise  # noqa: E402


@pytest.fixture(autouse=True)
def fixture_exercises(monkeypatch):
    """The fixture exercises (not lessons) are found like any other, by the grading tests only (in the
    environment, so subprocesses see them too)."""
    from grading_testlib import fixture_roots
    monkeypatch.setenv("GRADING_EXERCISES", fixture_roots())


@pytest.fixture(scope="session")
def ex():
    return load_exercise("lesson09")
