"""Apply Quarto's display options to the executed notebook, as Quarto's HTML would show it.

``#|`` option lines are not shown (Quarto strips them too), ``include: false`` hides the cell (its div markers stay), ``echo: false`` hides the code,
``output: false`` drops the outputs, ``fig-alt`` becomes the images' alt text, and widget outputs
(which need a live kernel) are replaced by a short note: the static page shows pre-rendered views.
"""
from __future__ import annotations

import html

from nbformat import NotebookNode

from ..lang import UI

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def cell_display(nb: NotebookNode, page: dict) -> NotebookNode:
    """Mark hidden cells/inputs, drop hidden outputs, set image alt text, replace widget views."""
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        options = cell.metadata.get("course_options", {})
        if "remove-cell" in tags or "course-chrome" in tags:
            cell.metadata["course_skip"] = True
        if cell.cell_type != "code":
            continue
        lines = cell.source.split("\n")
        while lines and lines[0].lstrip().startswith("#|"):
            lines.pop(0)
        cell.source = "\n".join(lines)
        if "remove-input" in tags:
            cell.metadata.setdefault("transient", {})["remove_source"] = True
        if "remove-output" in tags:
            cell.outputs = []
        alt = options.get("fig-alt") or options.get("fig-cap")
        if alt:
            cell.metadata["course_alt"] = str(alt)
        outputs, widget_note = [], False
        for out in cell.get("outputs", []):
            if WIDGET_MIME in out.get("data", {}):
                widget_note = True
                continue
            outputs.append(out)
        if widget_note:
            outputs.append(NotebookNode(output_type="display_data", metadata={}, data={
                "text/html": f'<p class="course-widget-note">{html.escape(UI["widget_static"])}</p>'}))
        cell.outputs = outputs
    return nb
