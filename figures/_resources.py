"""Files figures reads from other installed packages, found through importlib.resources (never relative to a
repository checkout, so a non-editable install of the student kit finds them too)."""
from __future__ import annotations

import importlib.resources
from importlib.resources.abc import Traversable


def exercise_template(exercise: str) -> Traversable:
    """``template.cu`` of grading's exercise ``exercise`` (it ships in the student kit's grading package)."""
    res = importlib.resources.files("grading").joinpath("exercises", exercise, "template.cu")
    if not res.is_file():
        raise FileNotFoundError(f"grading has no exercises/{exercise}/template.cu")
    return res
