"""Drop what a branch must not contain.

* ``#| course_role: solution`` cells are removed from the exercise branch.
* Conditional divs (Quarto's ``.content-visible`` / ``.content-hidden`` with ``when-profile``,
  ``unless-profile``, ``when-format``, ``unless-format``) are removed where their condition says
  hidden, with the branch as the active profile and ``ctx.fmt`` as the format. A condition on a format
  is left for Quarto to decide when ``ctx.fmt`` is ``None``.
* Conditional bracketed spans ``[text]{.content-visible when-profile="answer"}`` in markdown get the
  same treatment (dropped, or reduced to their text once decided).
"""
from __future__ import annotations

import re

from ..context import BuildContext
from ..qmd import Attrs, Cell, Div, Document, Markdown, Node, parse_attrs

CONDITION_KEYS = ("when-profile", "unless-profile", "when-format", "unless-format")
_HTML_FORMATS = {"html", "html4", "html5", "html:js"}
_SPAN = re.compile(r"(?<![!\]])\[([^\[\]\n]*)\]\{([^{}\n]*\.content-(?:visible|hidden)[^{}\n]*)\}")


def _values(raw: str) -> set[str]:
    return {v for v in re.split(r"[,\s]+", raw.strip()) if v}


def _format_matches(wanted: set[str], fmt: str) -> bool:
    return fmt in wanted or (fmt == "html" and bool(wanted & _HTML_FORMATS))


def is_conditional(attrs: Attrs) -> bool:
    """True for a Quarto conditional-content div with at least one condition we understand."""
    return bool({"content-visible", "content-hidden"} & set(attrs.classes)) and any(
        k in attrs.kv for k in CONDITION_KEYS)


def condition_holds(attrs: Attrs, branch: str, fmt: str | None) -> bool | None:
    """Whether all the div's conditions hold (Quarto ANDs them); None if one depends on an unknown format."""
    result: bool | None = True
    for key in CONDITION_KEYS:
        if key not in attrs.kv:
            continue
        wanted = _values(attrs.kv[key])
        if key.endswith("profile"):
            hit = branch in wanted
        elif fmt is None:
            result = None
            continue
        else:
            hit = _format_matches(wanted, fmt)
        ok = hit if key.startswith("when") else not hit
        if not ok:
            return False
    return result


def is_visible(attrs: Attrs, branch: str, fmt: str | None) -> bool | None:
    """Visibility of a conditional div: True, False, or None (undecided, Quarto resolves it)."""
    holds = condition_holds(attrs, branch, fmt)
    if "content-hidden" in attrs.classes:
        return None if holds is None else not holds
    return holds


def _keep(node: Node, ctx: BuildContext) -> bool:
    if isinstance(node, Cell):
        return not (ctx.branch == "exercise" and node.role == "solution")
    if isinstance(node, Div) and is_conditional(node.attrs):
        return is_visible(node.attrs, ctx.branch, ctx.fmt) is not False
    return True


def _spans(text: str, ctx: BuildContext) -> str:
    def one(m: re.Match) -> str:
        attrs = parse_attrs(m.group(2))
        if not is_conditional(attrs):
            return m.group(0)
        visible = is_visible(attrs, ctx.branch, ctx.fmt)
        return m.group(0) if visible is None else (m.group(1) if visible else "")
    return _SPAN.sub(one, text)


def _filter(nodes: list[Node], ctx: BuildContext) -> list[Node]:
    kept = []
    for node in nodes:
        if not _keep(node, ctx):
            continue
        if isinstance(node, Markdown):
            node.text = _spans(node.text, ctx)
        if isinstance(node, Div):
            node.children = _filter(node.children, ctx)
        kept.append(node)
    return kept


def select_branch(doc: Document, ctx: BuildContext) -> Document:
    """Remove solution cells (exercise branch) and divs whose condition is false for this branch."""
    doc.children = _filter(doc.children, ctx)
    return doc
