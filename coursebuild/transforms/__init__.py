"""Source transforms: an ordered list of small steps, each ``(Document, BuildContext) -> Document``.

Like nbgrader's preprocessors, each step lives in its own module with its own test, and
:func:`run_pipeline` applies them in the order of :data:`SOURCE_PIPELINE` (what the branch ``.qmd``
files get) and then :data:`NOTEBOOK_PIPELINE` (what notebooks and the fallback HTML also get).
"""
from __future__ import annotations

import copy
from typing import Callable

from ..context import BuildContext
from ..qmd import Document
from .guard_leaks import guard_leaks
from .lesson_table import lesson_table
from .quarto_markdown import quarto_markdown
from .select_branch import select_branch
from .unwrap_conditionals import unwrap_conditionals

__all__ = ["BuildContext", "Transform", "SOURCE_PIPELINE", "NOTEBOOK_PIPELINE", "run_pipeline"]

Transform = Callable[[Document, BuildContext], Document]

SOURCE_PIPELINE: list[Transform] = [select_branch, unwrap_conditionals, lesson_table, guard_leaks]
NOTEBOOK_PIPELINE: list[Transform] = [quarto_markdown]


def run_pipeline(doc: Document, ctx: BuildContext, steps: list[Transform]) -> Document:
    """Apply ``steps`` in order to a deep copy of ``doc`` (the source tree is never mutated)."""
    doc = copy.deepcopy(doc)
    for step in steps:
        doc = step(doc, ctx)
    return doc
