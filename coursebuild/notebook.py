"""Write a (transformed) lesson tree as a Jupyter notebook.

Cell conventions (what graders and the HTML step rely on):

* a python cell keeps its ``#|`` option lines at the top of its source, except when the code starts
  with a cell magic (``%%writefile``), which must be the cell's first line; options also live in
  ``metadata.course_options`` (all of them), ``metadata.course_role`` and ``metadata.tags`` (the role
  itself, e.g. ``"exercise"``, plus Jupyter Book's ``remove-cell`` / ``remove-input`` /
  ``remove-output`` for ``include`` / ``echo`` / ``output: false``, nbclient's ``skip-execution`` for
  ``eval: false`` and ``raises-exception`` for ``error: true``);
* ``metadata.course_source`` = ``"lessons/x.qmd:LINE"`` names the cell's source for error messages;
* a mermaid cell becomes a markdown cell with a ```` ```mermaid ```` block (JupyterLab 4.1+ and nbconvert
  draw it), ``metadata.course_role = "mermaid"``;
* fenced divs become markers: ``metadata.course_div_open`` (divs opening before the cell, outermost
  first: ``{"id", "classes", "attrs"}``) and ``metadata.course_div_close`` (how many close after it);
* an answer div ``::: {.course-answer question="Q1"}`` becomes one markdown cell of its own (never merged with
  the text around it) with ``metadata.course_role = "answer"``, ``metadata.course_question = "Q1"`` and the
  tag ``answer``: the student writes there and the grader reads it by its metadata (grading/source.py).

With ``student=True`` (the notebooks handed out) the notebook also shows what the site shows in its
page chrome: a title cell, callout titles and figure captions as small markdown cells (tagged
``course-chrome``); a collapsible callout holding only text (the hint levels) becomes one markdown cell
of nested ``<details>``, so hints stay folded in Jupyter too.
"""
from __future__ import annotations

import html
import json
import re

import nbformat
from nbformat import NotebookNode

from .lang import CALLOUT_TITLES, TITLE_DELIM
from .qmd import Cell, Div, Document, Markdown, Node, QmdError

ANSWER_CLASS = "course-answer"
_REMOVE_TAGS = (("include", "remove-cell"), ("echo", "remove-input"), ("output", "remove-output"))
_CELL_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _json_safe(value: object) -> object:
    return json.loads(json.dumps(value, default=str, ensure_ascii=False))


def _has_cells(node: Div) -> bool:
    return any(isinstance(c, Cell) or (isinstance(c, Div) and _has_cells(c)) for c in node.children)


def callout_kind(classes: list[str]) -> str | None:
    """``callout-tip`` -> ``"tip"``; None if the div is not a callout."""
    for c in classes:
        if c.startswith("callout-") and c[len("callout-"):] in CALLOUT_TITLES:
            return c[len("callout-"):]
    return None


def cell_tags(options: dict) -> list[str]:
    """Jupyter tags derived from Quarto cell options (see the module docstring)."""
    tags = []
    if options.get("course_role"):
        tags.append(str(options["course_role"]))
    for key, tag in _REMOVE_TAGS:
        if options.get(key) is False:
            tags.append(tag)
    if options.get("eval") is False:
        tags.append("skip-execution")
    if options.get("error") is True:
        tags.append("raises-exception")
    return tags


class _Writer:
    def __init__(self, doc: Document, student: bool) -> None:
        self.doc, self.student = doc, student
        self.cells: list[NotebookNode] = []
        self.pending_open: list[dict] = []
        self.ids: set[str] = set()

    def _id(self, wanted: str) -> str:
        ident = wanted if _CELL_ID.match(wanted) and wanted not in self.ids else f"cell-{len(self.cells)}"
        while ident in self.ids:
            ident += "x"
        self.ids.add(ident)
        return ident

    def add(self, cell: NotebookNode, line: int, wanted_id: str = "") -> None:
        cell["id"] = self._id(wanted_id)
        cell.metadata["course_source"] = f"{self.doc.path}:{line}"
        if self.pending_open:
            cell.metadata["course_div_open"] = self.pending_open
            self.pending_open = []
        self.cells.append(cell)

    def close_div(self) -> None:
        if self.pending_open:  # an empty div: give its markers a cell to live on
            self.add(nbformat.v4.new_markdown_cell(""), 0)
        last = self.cells[-1].metadata
        last["course_div_close"] = last.get("course_div_close", 0) + 1

    def chrome(self, text: str, line: int) -> None:
        cell = nbformat.v4.new_markdown_cell(text)
        cell.metadata["tags"] = ["course-chrome"]
        self.add(cell, line)

    def markdown(self, node: Markdown) -> None:
        text = node.text.strip("\n")
        if not text.strip():
            return
        prev = self.cells[-1] if self.cells else None
        if (prev is not None and prev.cell_type == "markdown" and not self.pending_open
                and "course_div_close" not in prev.metadata and "course_role" not in prev.metadata
                and "tags" not in prev.metadata):
            prev.source += "\n\n" + text
            return
        self.add(nbformat.v4.new_markdown_cell(text), node.line)

    def caption(self, cell: Cell) -> str:
        cap = str(cell.options.get("fig-cap") or cell.options.get("tbl-cap") or "")
        ref = cell.meta.get("crossref")
        if ref:
            cap = f"{ref['title']}{TITLE_DELIM}{cap}" if cap else ref["title"]
        return cap

    def code(self, node: Cell) -> None:
        meta = {"course_options": _json_safe(node.options)}
        if node.role:
            meta["course_role"] = node.role
        if "crossref" in node.meta:
            meta["course_crossref"] = node.meta["crossref"]
        if node.lang == "mermaid":
            cell = nbformat.v4.new_markdown_cell(f"```mermaid\n{node.source.rstrip()}\n```")
            meta["course_role"] = "mermaid"
            cell.metadata.update(meta)
            self.add(cell, node.line, str(node.options.get("label", "")))
            if self.student and self.caption(node):
                self.chrome(f"*{self.caption(node)}*", node.line)
            return
        if node.lang != "python":
            raise QmdError(self.doc.path, node.line, f"executable `{{{node.lang}}}` cells are not supported "
                                                      "(python and mermaid are)")
        body = node.source.rstrip("\n")
        magic = body.lstrip().startswith("%%")
        source = body if magic else "".join(node.option_lines) + body
        cell = nbformat.v4.new_code_cell(source)
        tags = cell_tags(node.options)
        if tags:
            meta["tags"] = tags
        cell.metadata.update(meta)
        self.add(cell, node.line, str(node.options.get("label", "")))
        if self.student and "crossref" in node.meta:
            label = node.meta["crossref"]["label"]
            self.chrome(f'<a id="{label}"></a>*{self.caption(node)}*', node.line)

    def details(self, node: Div) -> str:
        """Markdown of a text-only div, collapsible callouts as ``<details>`` (Jupyter renders both)."""
        parts = []
        for child in node.children:
            if isinstance(child, Markdown):
                if child.text.strip():
                    parts.append(child.text.strip("\n"))
            elif isinstance(child, Div):
                parts.append(self.details(child))
        body = "\n\n".join(parts)
        kind = callout_kind(node.attrs.classes)
        collapse = str(node.attrs.get("collapse", "")).lower()
        if not kind or collapse not in ("true", "false"):
            return body
        title = html.escape(node.attrs.get("title") or CALLOUT_TITLES[kind])
        opened = " open" if collapse == "false" else ""
        return (f'<details class="callout callout-{kind}"{opened}>\n<summary><strong>{title}</strong></summary>'
                f"\n\n{body}\n\n</details>")

    def answer(self, node: Div) -> None:
        question = str(node.attrs.get("question", "")).strip()
        if not question:
            raise QmdError(self.doc.path, node.line, f"an .{ANSWER_CLASS} div needs question=\"...\" "
                                                      "(the manual item's id in the exercise's config.toml)")
        if _has_cells(node):
            raise QmdError(self.doc.path, node.line, f"an .{ANSWER_CLASS} div holds text only, no code cell")
        cell = nbformat.v4.new_markdown_cell(self.details(node))
        cell.metadata.update({"course_role": "answer", "course_question": question, "tags": ["answer"]})
        self.add(cell, node.line)

    def div(self, node: Div) -> None:
        if ANSWER_CLASS in node.attrs.classes:
            self.answer(node)
            return
        if self.student and not _has_cells(node) and str(node.attrs.get("collapse", "")).lower() in ("true", "false"):
            cell = nbformat.v4.new_markdown_cell(self.details(node))
            cell.metadata["tags"] = ["course-collapsed"]
            self.add(cell, node.line)
            return
        self.pending_open.append({"id": node.attrs.id, "classes": list(node.attrs.classes),
                                  "attrs": dict(node.attrs.kv)})
        kind = callout_kind(node.attrs.classes)
        if self.student and kind:
            title = node.attrs.get("title") or CALLOUT_TITLES[kind]
            self.chrome(f"**{title}**", node.line)
        self.walk(node.children)
        self.close_div()

    def walk(self, nodes: list[Node]) -> None:
        for node in nodes:
            if isinstance(node, Markdown):
                self.markdown(node)
            elif isinstance(node, Cell):
                self.code(node)
            else:
                self.div(node)


def to_notebook(doc: Document, *, student: bool = False, branch: str = "") -> NotebookNode:
    """Build the notebook for ``doc`` (already run through the transforms)."""
    w = _Writer(doc, student)
    if student:
        subtitle = doc.front_matter.get("subtitle")
        w.chrome(f"# {doc.title}" + (f"\n\n{subtitle}" if subtitle else ""), 1)
    w.walk(doc.children)
    if w.pending_open:
        w.add(nbformat.v4.new_markdown_cell(""), 0)
    nb = nbformat.v4.new_notebook()
    nb.cells = w.cells
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["title"] = doc.title
    nb.metadata["course"] = {"source": doc.path, "branch": branch,
                             "front_matter": _json_safe(doc.front_matter)}
    nbformat.validate(nb)
    return nb
