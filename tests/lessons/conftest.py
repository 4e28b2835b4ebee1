"""Lesson tests: helpers in lessonref.py and ../figures/figref.py (tests run with --import-mode=importlib)."""
from __future__ import annotations

import os
import sys

import matplotlib

matplotlib.use("Agg")
HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "figures"))
sys.path.insert(0, os.path.join(HERE, "..", "labsim"))   # labsim_reference, which figref uses
