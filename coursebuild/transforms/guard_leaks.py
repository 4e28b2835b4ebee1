"""Fail the exercise branch if anything answer-only is still in it.

Defence in depth behind :mod:`select_branch`: no cell tagged ``course_role: solution`` may remain, and
no snippet of a hidden check (``grading/exercises/*/hidden*``, see :mod:`coursebuild.leaks`) may
appear anywhere in the branch text.
"""
from __future__ import annotations

from ..context import BuildContext
from ..qmd import Cell, Document, iter_nodes, write_qmd


class LeakError(RuntimeError):
    """Answer-only material reached the exercise branch; the message names lesson, line and source."""


def guard_leaks(doc: Document, ctx: BuildContext) -> Document:
    """Raise :class:`LeakError` on the exercise branch if a solution cell or hidden-check text remains."""
    if ctx.branch != "exercise":
        return doc
    for node, _ in iter_nodes(doc.children):
        if isinstance(node, Cell) and node.role == "solution":
            raise LeakError(f"{doc.path}:{node.line}: a `course_role: solution` cell is still in the "
                            "exercise branch")
    text = write_qmd(doc)
    for source, snippet in ctx.hidden_snippets:
        if snippet in text:
            line = text[: text.index(snippet)].count("\n") + 1
            raise LeakError(f"{doc.path}: exercise branch line {line} contains text of the hidden check "
                            f"{source}: {snippet!r}")
    return doc
