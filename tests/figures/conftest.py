"""Figure tests: a headless backend; helpers in figref.py and ../labsim/labsim_reference.py (tests run with
--import-mode=importlib)."""
from __future__ import annotations

import os
import sys

import matplotlib

matplotlib.use("Agg")
sys.path.insert(0, os.path.dirname(__file__))  # for figref
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "labsim"))  # for labsim_reference
