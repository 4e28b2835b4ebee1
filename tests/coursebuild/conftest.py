"""coursebuild tests; helpers in cb_leakprobe.py (tests run with --import-mode=importlib)."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))  # for cb_leakprobe
