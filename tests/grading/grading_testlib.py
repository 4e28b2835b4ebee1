"""Names the grading tests share (a module, not conftest, so test files can import it unambiguously)."""
from __future__ import annotations

from pathlib import Path

import pytest

from grading.sim import cuda_available

HERE = Path(__file__).parent
SUBMISSIONS = HERE / "submissions"
REFERENCE = HERE.parents[1] / "grading" / "exercises" / "lesson09" / "solution.cu"   # the reference solution

needs_cuda = pytest.mark.skipif(not cuda_available(), reason="labsim.cuda (CUDA C front end) not installed yet")


def path_of(name: str) -> Path:
    """A corpus file, or the exercise's reference solution for "solution.cu"."""
    return REFERENCE if name == "solution.cu" else SUBMISSIONS / name


def fill(ex, blank: str) -> str:
    return ex.template.replace(ex.blank, blank)
