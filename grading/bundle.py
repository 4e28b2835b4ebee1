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


README = """# Gradescope autograder: {exercise} ({title})

Built by `python -m grading bundle --exercise {exercise} --out autograder.zip`. It holds `setup.sh`,
`run_autograder`, this project's `pyproject.toml` and the `grading` and `labsim` packages, with the
exercise's hidden checks, rubric, solution and instructor secret: **keep the zip away from students.**

## Setting up the assignment

1. Gradescope → the course → *Create Assignment* → **Programming Assignment**. Total points: **{max_score}**
   ({auto} automatic + {manual} manual). Students submit their exercise notebook (`.ipynb`, the file they
   worked in) or the `.cu` file the exercise cell writes (`{target}`); a folder or several files are fine:
   the grader picks the one that holds the exercise and says which.
2. *Configure Autograder* → upload `autograder.zip`. Base image: **Ubuntu 22.04** (or newer). `setup.sh`
   installs Python 3.12 or 3.11 from the image's packages (the project needs ≥ 3.11) and this project into
   `/autograder/venv`; no network is needed after that, no GPU and no nvcc (labsim interprets the kernel;
   where nvcc exists it also compiles it).
3. Memory 2 GB or more and the default time limit are enough: one submission takes seconds; the grader
   stops a submission's graded steps at `[limits] time_limit_s` = {time_limit} s of its own (the ungraded run
   of a student's edits outside the blank comes after them, under `[limits] edited_time_limit_s`).
4. Test the autograder with `grading/exercises/{exercise}/solution.cu` from the instructor repository:
   {auto}/{auto} automatic points, {manual} manual points pending, no veto.

## What students see

`results.json` follows Gradescope's schema: one test per check; hidden checks show counts only ("非方阵：2/3"),
never their inputs; vetoes are listed in the overall output. A submission passes with at least {pass_score}
points and no veto.{optional} Manual items are tests tagged `manual` with 0 points and visibility
`{manual_visibility}`; their output holds the student's answer, the question and the general criteria, never
the model answer (set `rubric_visibility = "full"` in the exercise's config.toml to show it).

## Entering the manual points

In Gradescope: add a **manual-graded question** per manual item ({items}) with its points, and grade them
with Gradescope's rubric tools; Gradescope adds them to the autograder score. The model answers are in
`grading/exercises/{exercise}/rubric.toml` (instructor repository) and in each `_instructor/*.json` of a
local run.

Without Gradescope (or to merge several exercises into one course gradebook):

```bash
python -m grading grade --exercise {exercise} submissions/ --out graded/{exercise}
python -m grading gradebook graded/{exercise} --manual-template manual_{exercise}.csv   # the TA fills "points"
python -m grading gradebook graded/p2 graded/{exercise} --manual manual_{exercise}.csv --out course.csv
```

The TA's CSV has one row per student and manual item (`student,exercise,item,points,comment`); an empty
`points` stays pending; a row naming an unknown student or item, or points outside 0..max, stops the merge
with the row's line number.
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


def readme(ex) -> str:
    """The instructor's README inside the zip, with this exercise's numbers."""
    manual = sum(m.points for m in ex.manual)
    total = sum(c.points for c in ex.public_checks + ex.hidden_checks) + manual
    return README.format(exercise=ex.id, title=ex.config.get("title", ex.id), max_score=f"{total:g}",
                         auto=f"{total - manual:g}", manual=f"{manual:g}", target=ex.config.get("target", ""),
                         time_limit=ex.limits.get("time_limit_s", 120), pass_score=ex.config["pass_score"],
                         manual_visibility=ex.config.get("manual_visibility", "after_published"),
                         items="、".join(f"{m.id} {m.points:g} 分" for m in ex.manual) or "none",
                         optional="".join(f" The optional manual item {m.id} ({m.points:g} points) adds to the score "
                                          "but does not count toward passing (config `optional_manual = false` "
                                          "turns it off)." for m in ex.manual if not m.counts_toward_pass))


def build_bundle(exercise: str | Path, out: Path) -> Path:
    """Write the zip for an exercise (id or folder); returns its path."""
    from .spec import load_exercise
    ex = load_exercise(exercise)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w") as z:
        _add(z, "setup.sh", SETUP_SH, executable=True)
        _add(z, "run_autograder", RUN_AUTOGRADER.format(exercise=ex.id), executable=True)
        _add(z, "README.md", readme(ex))
        for name, p in _files(ex.folder):
            _add(z, name, p.read_bytes())
    return out
