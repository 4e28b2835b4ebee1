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
    """Lesson 9's static bank explorer, its spec computed once (1920 labsim views) for the independent-count
    tests and the browser tests alike; both only read it. Where the fallback site is already built (a whole run
    builds it first), the spec is the one its lesson 9 page embeds, read from the build's cache (same code,
    same inputs); else it is computed here."""
    from sitebuilds import explorer_cache

    from figures import lesson09_explorer
    cache = explorer_cache(build=False)
    before = os.environ.get("COURSEBUILD_EXPLORER_CACHE")
    if cache is not None:
        os.environ["COURSEBUILD_EXPLORER_CACHE"] = str(cache)
    try:
        ex = lesson09_explorer.static_bank_explorer()
        ex.spec()
    finally:
        if before is None:
            os.environ.pop("COURSEBUILD_EXPLORER_CACHE", None)
        else:
            os.environ["COURSEBUILD_EXPLORER_CACHE"] = before
    return ex
