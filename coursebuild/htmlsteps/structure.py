"""Rebuild the lesson's nesting around the notebook cells: callouts, plain divs and figures.

Notebook cells are flat; the div markers written by :mod:`coursebuild.notebook` say where each fenced
div opened and closed. This step turns them into HTML emitted before/after cells by the template
(``course_before`` / ``course_after``): a collapsible callout is ``<details class="callout ...">``
with its title as ``<summary>``, other callouts ``<div class="callout ...">``, other divs keep id,
classes and attributes (as ``data-*``). A cell with a figure label or caption (or a mermaid block)
is wrapped in ``<figure>`` with "图 N：caption".
"""
from __future__ import annotations

import html

from nbformat import NotebookNode

from ..lang import CALLOUT_TITLES, TITLE_DELIM, UI
from ..notebook import callout_kind


def _attr(value: str) -> str:
    return html.escape(str(value), quote=True)


def _open_div(marker: dict) -> tuple[str, str]:
    classes, attrs, ident = marker.get("classes", []), marker.get("attrs", {}), marker.get("id", "")
    id_attr = f' id="{_attr(ident)}"' if ident else ""
    kind = callout_kind(classes)
    if kind:
        title = attrs.get("title")
        if title is None and attrs.get("appearance") not in ("simple", "minimal"):
            title = CALLOUT_TITLES[kind]
        cls = _attr(" ".join(["callout"] + classes))
        collapse = str(attrs.get("collapse", "")).lower()
        if collapse in ("true", "false"):
            opened = " open" if collapse == "false" else ""
            return (f'<details{id_attr} class="{cls}"{opened}><summary class="callout-title">'
                    f'{html.escape(title or CALLOUT_TITLES[kind])}</summary><div class="callout-body">',
                    "</div></details>")
        head = f'<div class="callout-title">{html.escape(title)}</div>' if title else ""
        return f'<div{id_attr} class="{cls}">{head}<div class="callout-body">', "</div></div>"
    data = "".join(f' data-{_attr(k)}="{_attr(v)}"' for k, v in attrs.items())
    cls = f' class="{_attr(" ".join(classes))}"' if classes else ""
    return f"<div{id_attr}{cls}{data}>", "</div>"


def _figure(cell: NotebookNode, page: dict) -> tuple[str, str]:
    options = cell.metadata.get("course_options", {})
    ref = cell.metadata.get("course_crossref")
    cap = str(options.get("fig-cap") or options.get("tbl-cap") or "")
    mermaid = cell.metadata.get("course_role") == "mermaid"
    if not (ref or cap or mermaid):
        return "", ""
    if ref:
        cap = f"{ref['title']}{TITLE_DELIM}{cap}" if cap else ref["title"]
    ident = f' id="{_attr(ref["label"])}"' if ref else ""
    notice = ""
    if mermaid and not page.get("mermaid_src"):
        notice = f'<p class="course-notice">{html.escape(UI["mermaid_missing"])}</p>'
    kind = " course-mermaid" if mermaid else ""
    caption = f"<figcaption>{html.escape(cap)}</figcaption>" if cap else ""
    # Images carry fig-alt as alt (cells step); a drawn flowchart gets it as the figure's label.
    label = f' aria-label="{_attr(options["fig-alt"])}"' if mermaid and options.get("fig-alt") else ""
    return f'<figure{ident} class="course-figure{kind}"{label}>{notice}', f"{caption}</figure>"


def div_structure(nb: NotebookNode, page: dict) -> NotebookNode:
    """Set ``course_before`` / ``course_after`` HTML on cells from their div markers and figure options."""
    stack: list[str] = []
    for cell in nb.cells:
        before, after = [], []
        for marker in cell.metadata.get("course_div_open", []):
            opening, closing = _open_div(marker)
            before.append(opening)
            stack.append(closing)
        fig_open, fig_close = _figure(cell, page)
        before.append(fig_open)
        after.append(fig_close)
        for _ in range(cell.metadata.get("course_div_close", 0)):
            if not stack:
                raise ValueError(f"{cell.metadata.get('course_source', '?')}: a div closes that never opened")
            after.append(stack.pop())
        cell.metadata["course_before"] = "".join(before)
        cell.metadata["course_after"] = "".join(after)
    if stack:
        nb.cells[-1].metadata["course_after"] += "".join(reversed(stack))
    return nb
