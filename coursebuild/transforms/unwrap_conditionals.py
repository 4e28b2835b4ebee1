"""Replace a decided conditional div by its children.

After :mod:`select_branch`, a ``.content-visible when-profile="answer"`` div on the answer branch is
known to be shown, so its fences go and its content stays: the branch ``.qmd`` no longer depends on a
Quarto profile, and notebooks carry no empty wrappers. Undecided divs (a format condition while
``ctx.fmt`` is None) are kept as they are for Quarto.
"""
from __future__ import annotations

from ..context import BuildContext
from ..qmd import Div, Document, Node
from .select_branch import is_conditional, is_visible


def _unwrap(nodes: list[Node], ctx: BuildContext) -> list[Node]:
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, Div):
            node.children = _unwrap(node.children, ctx)
            if is_conditional(node.attrs) and is_visible(node.attrs, ctx.branch, ctx.fmt) is True:
                # A conditional div that also carries other classes (a callout, say) keeps its fences.
                others = [c for c in node.attrs.classes if c not in ("content-visible", "content-hidden")]
                if not others and not node.attrs.id:
                    out.extend(node.children)
                    continue
        out.append(node)
    return out


def unwrap_conditionals(doc: Document, ctx: BuildContext) -> Document:
    """Unwrap every conditional div whose visibility is decided (true) for this branch and format."""
    doc.children = _unwrap(doc.children, ctx)
    return doc
