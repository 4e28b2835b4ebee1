"""Gradescope autograder bundle: ``setup.sh`` and ``run_autograder`` at the zip's root, plus the sources.

setup.sh installs this project (labsim and grading, from the bundled pyproject.toml) into a venv;
run_autograder grades /autograder/submission into /autograder/results/results.json.
"""
from __future__ import annotations

import stat
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("grading", "labsim")

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
set -euo pipefail
# the project needs Python >= 3.11 (tomllib); older Ubuntu images ship 3.10 as python3
apt-get update -qq
PY=""
for v in 3.12 3.11; do
  if apt-get install -y -qq "python$v" "python$v-venv" >/dev/null 2>&1; then PY="python$v"; break; fi
done
PY="${PY:-python3}"
"$PY" -m venv /autograder/venv
/autograder/venv/bin/pip install --quiet --upgrade pip
/autograder/venv/bin/pip install --quiet /autograder/source
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission; it must leave results/results.json behind.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PY="${{AUTOGRADER_PYTHON:-$ROOT/venv/bin/python}}"
mkdir -p "$ROOT/results"
cd "$ROOT/source"
"$PY" -m grading gradescope --exercise {exercise} --submission "$ROOT/submission" \\
    --results "$ROOT/results/results.json"
"""


def _tree(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo")]


def _files(exercise_folder: Path) -> list[tuple[str, Path]]:
    """(name in the zip, file): the packages, and the exercise's folder as grading/exercises/<id> wherever
    it lives (an exercise from another root travels with its bundle)."""
    out = [("pyproject.toml", REPO / "pyproject.toml")]
    for pkg in PACKAGES:
        out += [(p.relative_to(REPO).as_posix(), p) for p in _tree(REPO / pkg)]
    inside = exercise_folder.resolve().parent == (REPO / "grading" / "exercises").resolve()
    if not inside:
        out += [(f"grading/exercises/{exercise_folder.name}/{p.relative_to(exercise_folder).as_posix()}", p)
                for p in _tree(exercise_folder)]
    return out


def _add(z: zipfile.ZipFile, name: str, data: str | bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))    # fixed time: reproducible zips
    mode = 0o755 if executable else 0o644
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def build_bundle(exercise: str | Path, out: Path) -> Path:
    """Write the zip for an exercise (id or folder); returns its path."""
    from .spec import load_exercise
    ex = load_exercise(exercise)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w") as z:
        _add(z, "setup.sh", SETUP_SH, executable=True)
        _add(z, "run_autograder", RUN_AUTOGRADER.format(exercise=ex.id), executable=True)
        for name, p in _files(ex.folder):
            _add(z, name, p.read_bytes())
    return out
