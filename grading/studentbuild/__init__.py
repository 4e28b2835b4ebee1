"""The student build: the copy of ``grading`` shipped with the student notebooks (public checks only).

An ordered list of small transforms over a copied tree (nbgrader's preprocessors), each in its own module:
copy the package → drop hidden checks → drop rubrics and solutions → strip instructor-only config → drop instructor
tools → verify that nothing hidden is left.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import copy_package, drop_hidden_checks, drop_instructor_tools, drop_rubrics, strip_config, verify


@dataclass
class BuildContext:
    """What the transforms share: the output package folder and a log of what each did."""

    out: Path                    # the student package folder (…/grading)
    exercises: tuple[str, ...]
    log: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"BuildContext({self.out}, {len(self.log)} actions)"


STEPS = [copy_package.run, drop_hidden_checks.run, drop_rubrics.run, strip_config.run, drop_instructor_tools.run,
         verify.run]


def build(out_dir: Path, exercises: tuple[str, ...] | None = None) -> BuildContext:
    """Write ``out_dir/grading`` with ``exercises`` (ids; default: every exercise in grading/exercises/);
    raises verify.BuildError if anything hidden survived."""
    if exercises is None:
        from ..spec import EXERCISES_DIR
        exercises = tuple(sorted(p.name for p in EXERCISES_DIR.iterdir() if (p / "config.toml").is_file()))
    ctx = BuildContext(Path(out_dir) / "grading", tuple(exercises))
    for step in STEPS:
        step(ctx)
    return ctx
