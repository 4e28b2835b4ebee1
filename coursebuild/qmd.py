"""Parse a Quarto ``.qmd`` lesson into a small tree, and write it back.

The tree has four node kinds: :class:`Markdown` (verbatim text), :class:`Cell` (an executable
```` ```{lang} ```` fence with its ``#|`` / ``%%|`` option lines), :class:`Div` (a pandoc fenced div
``::: {...}`` ... ``:::``, nested) and the :class:`Document` root with its YAML front matter.
``write_qmd(parse_qmd(text)) == text`` for every document the parser accepts: branch files differ from
the source only where a transform changed the tree.

Limitations: executable cells must start at column 0 (as Quarto requires); attributes inside
``{...}`` follow pandoc's syntax (``#id``, ``.class``, ``key=value`` with optional quotes); cell
options set in the fence (``{python echo=false}``) are not read, only ``#|`` lines.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Union

import yaml

__all__ = ["Attrs", "Markdown", "Cell", "Div", "Document", "QmdError", "parse_qmd", "read_qmd",
           "write_qmd", "iter_nodes"]


class QmdError(ValueError):
    """A lesson source that cannot be parsed; the message names the file and line."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.path, self.line = path, line
        super().__init__(f"{path}:{line}: {message}")


@dataclass
class Attrs:
    """Pandoc attributes ``{#id .class key="value"}``; ``lang`` is the bare first word of a code fence."""

    id: str = ""
    classes: list[str] = field(default_factory=list)
    kv: dict[str, str] = field(default_factory=dict)
    lang: str = ""

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.kv.get(key, default)

    def __repr__(self) -> str:
        return f"Attrs(id={self.id!r}, classes={self.classes!r}, kv={self.kv!r}, lang={self.lang!r})"


@dataclass
class Markdown:
    """Verbatim markdown text (may span many lines, ends with a newline unless at end of file)."""

    text: str
    line: int  # 1-based line of its first line in the source

    def __repr__(self) -> str:
        return f"Markdown(line={self.line}, {self.text[:40]!r}...)"


@dataclass
class Cell:
    """An executable code cell: ```` ```{python} ```` or ```` ```{mermaid} ````."""

    lang: str
    options: dict
    option_lines: list[str]  # the raw ``#| ...`` lines, newline included
    source: str              # the code after the option lines
    line: int
    open_line: str           # raw fence lines, kept for an exact round trip
    close_line: str
    meta: dict = field(default_factory=dict)  # build annotations (figure number...), never written

    @property
    def role(self) -> str | None:
        """The ``course_role`` option (exercise, solution, check) or None."""
        role = self.options.get("course_role")
        return str(role) if role is not None else None

    def __repr__(self) -> str:
        return f"Cell({self.lang}, line={self.line}, options={self.options!r})"


@dataclass
class Div:
    """A fenced div ``::: {attrs}`` ... ``:::``; children are nodes."""

    attrs: Attrs
    children: list["Node"]
    line: int
    open_line: str
    close_line: str

    def __repr__(self) -> str:
        return f"Div(line={self.line}, classes={self.attrs.classes!r}, kv={self.attrs.kv!r}, {len(self.children)} children)"


Node = Union[Markdown, Cell, Div]


@dataclass
class Document:
    """A parsed lesson: front matter (dict and its raw text) and the node tree."""

    path: str
    front_matter: dict
    front_matter_text: str  # the raw block including both ``---`` lines, or ""
    children: list[Node]

    @property
    def title(self) -> str:
        return str(self.front_matter.get("title", Path(self.path).stem))

    def __repr__(self) -> str:
        return f"Document({self.path!r}, title={self.title!r}, {len(self.children)} nodes)"


_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*(.*?)\s*$")
_DIV_OPEN = re.compile(r"^(:{3,})\s*(\{.*\}|[A-Za-z][\w-]*)\s*:*\s*$")
_DIV_CLOSE = re.compile(r"^:{3,}\s*$")
_EXEC_INFO = re.compile(r"^\{\s*([A-Za-z][\w+-]*)(.*)\}$")
_OPTION_PREFIX = {"mermaid": "%%|", "dot": "//|", "ojs": "//|"}


def parse_attrs(text: str, path: str = "<string>", line: int = 0) -> Attrs:
    """Parse ``{#id .class key=value}`` (braces optional) or a bare class word."""
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    elif re.fullmatch(r"[A-Za-z][\w-]*", text):
        return Attrs(classes=[text])
    try:
        tokens = shlex.split(text, posix=True)
    except ValueError as err:
        raise QmdError(path, line, f"cannot parse attributes {{{text}}}: {err}") from None
    attrs = Attrs()
    for tok in tokens:
        if tok.startswith("#") and len(tok) > 1:
            attrs.id = tok[1:]
        elif tok.startswith(".") and len(tok) > 1:
            attrs.classes.append(tok[1:])
        elif "=" in tok:
            key, value = tok.split("=", 1)
            attrs.kv[key] = value
        elif not attrs.lang and not attrs.classes and not attrs.kv:
            attrs.lang = tok
        else:
            attrs.classes.append(tok)
    return attrs


def _parse_options(lines: list[str], prefix: str, path: str, line: int) -> dict:
    body = "".join(ln.strip()[len(prefix):].removeprefix(" ") + "\n" for ln in lines)
    try:
        options = yaml.safe_load(body) if body.strip() else {}
    except yaml.YAMLError as err:
        raise QmdError(path, line, f"cell options are not valid YAML: {err}") from None
    if not isinstance(options, dict):
        raise QmdError(path, line, f"cell options must be `{prefix} key: value` lines, got {body!r}")
    return options


def parse_qmd(text: str, path: str = "<string>") -> Document:
    """Parse lesson source text; raises :class:`QmdError` naming ``path`` and the line."""
    lines = text.splitlines(keepends=True)
    i = 0
    front, front_text = {}, ""
    if lines and lines[0].rstrip() == "---":
        for j in range(1, len(lines)):
            if lines[j].rstrip() in ("---", "..."):
                front_text = "".join(lines[: j + 1])
                try:
                    front = yaml.safe_load("".join(lines[1:j])) or {}
                except yaml.YAMLError as err:
                    raise QmdError(path, 1, f"front matter is not valid YAML: {err}") from None
                if not isinstance(front, dict):
                    raise QmdError(path, 1, "front matter must be a YAML mapping")
                i = j + 1
                break
        else:
            raise QmdError(path, 1, "front matter opened with --- is never closed")

    root: list[Node] = []
    stack: list[tuple[Div, list[Node]]] = []
    current = root
    md_buf: list[str] = []
    md_start = i + 1

    def flush(next_line: int) -> None:
        nonlocal md_buf, md_start
        if md_buf:
            current.append(Markdown("".join(md_buf), md_start))
        md_buf = []
        md_start = next_line

    while i < len(lines):
        raw = lines[i]
        lineno = i + 1
        fence = _FENCE.match(raw.rstrip("\n"))
        if fence:
            indent, marks, info = fence.groups()
            # Find the closing fence first: nothing inside a code block is structure.
            close = None
            for j in range(i + 1, len(lines)):
                m = re.match(r"^ {0,3}(`{3,}|~{3,})\s*$", lines[j].rstrip("\n"))
                if m and m.group(1)[0] == marks[0] and len(m.group(1)) >= len(marks):
                    close = j
                    break
            if close is None:
                raise QmdError(path, lineno, f"code block opened with {marks} is never closed")
            exec_info = _EXEC_INFO.match(info) if not indent else None
            if exec_info and not info.startswith("{."):
                flush(close + 2)
                lang = exec_info.group(1)
                prefix = _OPTION_PREFIX.get(lang, "#|")
                body = lines[i + 1: close]
                k = 0
                while k < len(body) and body[k].lstrip().startswith(prefix):
                    k += 1
                options = _parse_options(body[:k], prefix, path, lineno + 1)
                current.append(Cell(lang, options, body[:k], "".join(body[k:]), lineno, raw, lines[close]))
            else:
                md_buf.extend(lines[i: close + 1])
            i = close + 1
            continue
        div_open = _DIV_OPEN.match(raw.rstrip("\n"))
        if div_open:
            flush(lineno + 1)
            div = Div(parse_attrs(div_open.group(2), path, lineno), [], lineno, raw, "")
            current.append(div)
            stack.append((div, current))
            current = div.children
            i += 1
            continue
        if _DIV_CLOSE.match(raw.rstrip("\n")):
            if not stack:
                raise QmdError(path, lineno, "':::' closes a div that was never opened")
            flush(lineno + 1)
            div, current = stack.pop()
            div.close_line = raw
            i += 1
            continue
        md_buf.append(raw)
        i += 1
    if stack:
        div = stack[-1][0]
        raise QmdError(path, div.line, f"div {div.open_line.strip()!r} is never closed with ':::'")
    flush(len(lines) + 1)
    return Document(path, front, front_text, root)


def read_qmd(path: str | Path, display_path: str | None = None) -> Document:
    """Read and parse a file; errors name ``display_path`` (default: ``path``)."""
    p = Path(path)
    name = display_path or str(p)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise QmdError(name, 1, f"not UTF-8 text: {err}") from None
    return parse_qmd(text, name)


def _write_nodes(nodes: list[Node], out: list[str]) -> None:
    for node in nodes:
        if isinstance(node, Markdown):
            out.append(node.text)
        elif isinstance(node, Cell):
            out.append(node.open_line)
            out.extend(node.option_lines)
            out.append(node.source)
            out.append(node.close_line)
        else:
            out.append(node.open_line)
            _write_nodes(node.children, out)
            out.append(node.close_line)


def write_qmd(doc: Document) -> str:
    """Serialize the tree back to ``.qmd`` text (exactly the source when nothing changed)."""
    out = [doc.front_matter_text]
    _write_nodes(doc.children, out)
    return "".join(out)


def iter_nodes(nodes: list[Node]) -> Iterator[tuple[Node, tuple[Div, ...]]]:
    """Depth-first walk yielding ``(node, enclosing divs outermost first)``."""
    def walk(ns: list[Node], parents: tuple[Div, ...]) -> Iterator[tuple[Node, tuple[Div, ...]]]:
        for n in ns:
            yield n, parents
            if isinstance(n, Div):
                yield from walk(n.children, parents + (n,))
    return walk(nodes, ())
