"""Figure tests: a headless backend; helpers in figref.py and ../labsim/labsim_reference.py (tests run with
--import-mode=importlib)."""
from __future__ import annotations

import os
import sys

import matplotlib

matplotlib.use("Agg")
sys.path.insert(0, os.path.dirname(__file__))  # for figref
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "labsim"))  # for labsim_reference


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def bank_explorer():
    """Lesson 9's static bank explorer, its spec computed once (1920 labsim views, ~7 s CPU) for the
    independent-count tests and the browser tests alike; both only read it."""
    from figures import lesson09_explorer
    ex = lesson09_explorer.static_bank_explorer(key="bank")
    ex.spec()
    return ex
