"""Fill the landing page's lesson table from the site's own order.

``index.qmd`` holds an empty ``::: {.course-lessons}`` div where the table goes; the build fills it with one
row per page in the sidebar's order (``_quarto.yml``: the one list of lessons), each linking the page's title
and showing its front matter's ``course-summary``. A new lesson appears there without an edit of index.qmd.
"""
from __future__ import annotations

import posixpath

from ..context import BuildContext
from ..qmd import Div, Document, Markdown, Node

CLASS = "course-lessons"


def table_markdown(doc_path: str, lessons: list[tuple[str, str, str]]) -> str:
    """A pipe table of (page, title, summary) rows; links relative to ``doc_path``'s folder."""
    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|")
    here = posixpath.dirname(doc_path) or "."
    rows = ["| 页面 | 内容 |", "|------|------|"]
    rows += [f"| [{cell(title)}]({posixpath.relpath(page, here)}) | {cell(summary)} |"
             for page, title, summary in lessons]
    return "\n".join(rows) + "\n"


def _fill(nodes: list[Node], doc: Document, ctx: BuildContext) -> list[Node]:
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, Div):
            if CLASS in node.attrs.classes:
                out.append(Markdown(table_markdown(doc.path, [x for x in ctx.lessons if x[0] != doc.path]),
                                    node.line))
                continue
            node.children = _fill(node.children, doc, ctx)
        out.append(node)
    return out


def lesson_table(doc: Document, ctx: BuildContext) -> Document:
    """Replace every ``.course-lessons`` div by the table of ``ctx.lessons``."""
    doc.children = _fill(doc.children, doc, ctx)
    return doc
