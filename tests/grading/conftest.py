"""Fixtures for the grading tests.

``sim`` runs a test twice: on labsim.cuda (the real CUDA C front end; skipped only while it is missing) and
on tests/grading/fakecuda.py (the template's kernel hand-written in labsim's Python API), so the pipeline's
logic is tested even before the front end lands and both must agree once it has.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import fakecuda  # noqa: E402

import grading.sim  # noqa: E402
from grading.sim import cuda_available  # noqa: E402
from grading.spec import clear_caches, load_exercise  # noqa: E402


@pytest.fixture(autouse=True)
def fixture_exercises(monkeypatch):
    """The fixture exercises (not lessons) are found like any other, by the grading tests only (in the
    environment, so subprocesses see them too)."""
    from grading_testlib import fixture_roots
    monkeypatch.setenv("GRADING_EXERCISES", fixture_roots())


@pytest.fixture(scope="session")
def ex():
    return load_exercise("lesson09")


def _use(monkeypatch, compile_fn) -> None:
    monkeypatch.setattr(grading.sim, "compile_source", compile_fn)
    monkeypatch.setattr(grading.sim, "cuda_available", lambda: True)
    clear_caches()


@pytest.fixture(params=["labsim.cuda", "fake"])
def sim(request, monkeypatch):
    """Which front end runs the checks: the real one, or the test double."""
    if request.param == "fake":
        _use(monkeypatch, lambda src, filename="x.cu": fakecuda.compile(src))
    else:
        if not cuda_available():
            pytest.skip("labsim.cuda (CUDA C front end) not installed yet")
        clear_caches()
    yield request.param
    clear_caches()


@pytest.fixture
def fake_sim(monkeypatch):
    """The test double only: for tests of reporting and batch logic, not of the simulator."""
    _use(monkeypatch, lambda src, filename="x.cu": fakecuda.compile(src))
    yield "fake"
    clear_caches()

