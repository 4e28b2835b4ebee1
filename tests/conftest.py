"""Settings for the whole suite.

* A sandbox (tests/sandbox.py): $HOME and the per-user caches point into a temporary folder, so nothing a test
  does lands in the user's home; a run that leaves files in the *fake* home fails at the end and names them.
* No wall-clock deadlines: Hypothesis's 200 ms per example is a speed target that a busy machine fails.
* Helpers shared by several test folders (``workbound``) live next to this file.
* Where the CPU goes: the summary ends with the CPU seconds (this process and the subprocesses it waited
  for: kernels, builds, graders) spent in each test folder, the number the README's test budget is about.
"""
from __future__ import annotations

import os
import resource
import shutil
import sys
from collections import defaultdict

import pytest
from hypothesis import settings

sys.path.insert(0, os.path.dirname(__file__))  # for sandbox and workbound (tests run with --import-mode=importlib)

import sandbox  # noqa: E402  (sets up the sandbox on import)

# as coursebuild/__init__.py does, for test modules that import nbformat before coursebuild: ~2 s of CPU of grammars
# (jsonschema's "iri" formats) that notebook validation never uses
sys.modules.setdefault("rfc3987_syntax", None)

# Every build of the run (the course site and the fixture projects in temporary folders) shares one cache of
# the vendored scripts: `npm pack` runs once per run, not twice per fixture build (~3 s of CPU each).
os.environ["COURSEBUILD_VENDOR_CACHE"] = str(sandbox.SANDBOX / "coursebuild-vendor")

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


_CPU: dict[str, float] = defaultdict(float)


def _cpu_now() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    t = _cpu_now()
    yield
    parts = item.nodeid.split("::")[0].split("/")
    _CPU["/".join(parts[:2])] += _cpu_now() - t     # tests/<folder> or tests/<file>.py


def pytest_terminal_summary(terminalreporter):
    if not _CPU:
        return
    total = sum(_CPU.values())
    terminalreporter.write_line(f"CPU seconds by test folder (with the subprocesses waited for): {total:.1f} s in all")
    for area, secs in sorted(_CPU.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"  {secs:7.1f}  {area}")
