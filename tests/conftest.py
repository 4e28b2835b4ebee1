"""Settings for the whole suite.

* A sandbox (tests/sandbox.py): $HOME and the per-user caches point into a temporary folder, so nothing a test
  does lands in the user's home; a run that leaves files in the *fake* home fails at the end and names them.
* No wall-clock deadlines: Hypothesis's 200 ms per example is a speed target that a busy machine fails.
* Helpers shared by several test folders (``workbound``) live next to this file.
"""
from __future__ import annotations

import os
import shutil
import sys

import pytest
from hypothesis import settings

sys.path.insert(0, os.path.dirname(__file__))  # for sandbox and workbound (tests run with --import-mode=importlib)

import sandbox  # noqa: E402  (sets up the sandbox on import)

settings.register_profile("course", deadline=None)
settings.load_profile("course")


def pytest_sessionfinish(session, exitstatus):
    left = sandbox.files_in_fake_home()
    if left:
        print(f"\nTests wrote into $HOME ({sandbox.FAKE_HOME}), bypassing the cache variables of tests/sandbox.py:",
              *(f"  {p.relative_to(sandbox.FAKE_HOME)}" for p in left[:20]), sep="\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    else:
        shutil.rmtree(sandbox.SANDBOX, ignore_errors=True)
