"""Turn Quarto-only markdown into plain CommonMark that Jupyter and nbconvert render.

Quarto understands heading ids (``## 标题 {#sec-x}``), attributes after links and images, bracketed
spans and cross references (``@fig-x``); Jupyter shows them as literal text. For notebooks and the
fallback HTML this step:

* numbers figures and tables in page order (cells, figure divs and images with a ``fig-``/``tbl-``
  label) and stores the number in ``cell.meta["crossref"]`` / ``div`` attributes;
* numbers the headings as Quarto's ``number-sections`` does (the page's highest heading level is "1",
  the next "1.1", ...; ``{.unnumbered}`` / ``{-}`` headings are skipped) and shows the number in a
  ``<span class="header-section-number">`` like Quarto's;
* replaces ``@fig-x`` by a link "图 N" (``-@fig-x``: just "N"), ``@sec-x`` by a link "小节 3.2" (the heading
  text when sections are not numbered); an unknown label becomes ``?@label`` as Quarto renders it;
* turns ``{#id}`` on headings into an ``<a id>`` anchor, drops ``{...}`` after links, images and spans;
* points relative ``.qmd`` links at ``ctx.link_suffix`` (``.ipynb``; the HTML step later makes them
  ``.html``).

Code blocks and inline code are left alone.
"""
from __future__ import annotations

import html
import re
from typing import Callable

from ..context import BuildContext
from ..lang import CROSSREF_TITLES, SECTION_TITLE, TITLE_DELIM
from ..qmd import Cell, Div, Document, Markdown, iter_nodes, parse_attrs

_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:.+?)\1", re.S)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)(?:[ \t]*\{([^{}\n]*)\})?[ \t]*$", re.M)
_IMAGE_ATTR = re.compile(r"!\[([^\]\n]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)\{([^{}\n]*)\}")
_LINK_ATTR = re.compile(r"(?<!!)(\[[^\]\n]*\]\([^)\n]*\))\{[^{}\n]*\}")
_SPAN = re.compile(r"(?<![!\]\w])\[([^\[\]\n]+)\]\{[^{}\n]*\}")
_XREF = re.compile(r"(\[)?(?<![\w@?])(-?)@((?:fig|tbl|sec)-[\w-]*\w)(\])?")
_QMD_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|/|#)([^)\s#]+?)\.qmd(#[^)\s]*)?\)")


def map_prose(text: str, fn: Callable[[str], str]) -> str:
    """Apply ``fn`` to the parts of markdown ``text`` outside fenced code blocks and inline code."""
    out, prose, in_code, fence = [], [], False, ""

    def flush() -> None:
        if prose:
            chunk = "".join(prose)
            parts, last = [], 0
            for m in _INLINE_CODE.finditer(chunk):
                parts.append(fn(chunk[last:m.start()]))
                parts.append(m.group(0))
                last = m.end()
            parts.append(fn(chunk[last:]))
            out.append("".join(parts))
            prose.clear()

    for line in text.splitlines(keepends=True):
        m = _FENCE_LINE.match(line)
        if in_code:
            out.append(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip(" `~\n"):
                in_code = False
        elif m:
            flush()
            in_code, fence = True, m.group(1)
            out.append(line)
        else:
            prose.append(line)
    flush()
    return "".join(out)


class SectionNumbers:
    """Quarto's section numbers, heading by heading in page order: the top level is the page's highest
    heading level (``##`` in lessons, below the title), deeper levels add ".n"; unnumbered headings skip."""

    def __init__(self, top: int) -> None:
        self.top, self.counts = top, [0] * 7

    def next(self, level: int, attrs: str | None) -> str | None:
        parsed = parse_attrs(attrs) if attrs else None
        if parsed is not None and ("unnumbered" in parsed.classes or "-" in parsed.classes or parsed.lang == "-"):
            return None
        depth = level - self.top
        if depth < 0:
            return None
        self.counts[depth] += 1
        for d in range(depth + 1, len(self.counts)):
            self.counts[d] = 0
        return ".".join(str(c) for c in self.counts[: depth + 1])


def _headings(doc: Document) -> list[tuple[int, str, str | None]]:
    """``(level, text, attrs)`` of every heading of the page's prose, in order (code is skipped)."""
    found: list[tuple[int, str, str | None]] = []
    for node, _ in iter_nodes(doc.children):
        if isinstance(node, Markdown):
            def scan(prose: str) -> str:
                found.extend((len(m.group(1)), m.group(2), m.group(3)) for m in _HEADING.finditer(prose))
                return prose
            map_prose(node.text, scan)
    return found


def top_level(doc: Document) -> int:
    return min((lvl for lvl, _, _ in _headings(doc)), default=2)


def collect_labels(doc: Document, number_sections: bool = True) -> dict[str, tuple[str, str]]:
    """Map each cross-reference label to ``(kind, text)``: ("fig", "3"), ("sec", "3.2") or, without section
    numbers, ("sec", heading text)."""
    labels: dict[str, tuple[str, str]] = {}
    counters = {kind: 0 for kind in CROSSREF_TITLES}
    numbers = SectionNumbers(top_level(doc)) if number_sections else None

    def number(label: str) -> None:
        kind = label.split("-", 1)[0]
        if kind in counters and label not in labels:
            counters[kind] += 1
            labels[label] = (kind, str(counters[kind]))

    for node, _ in iter_nodes(doc.children):
        if isinstance(node, Cell):
            label = str(node.options.get("label", ""))
            if label and (f"{label.split('-', 1)[0]}-cap" in node.options or node.lang == "mermaid"):
                number(label)
        elif isinstance(node, Div) and node.attrs.id:
            number(node.attrs.id)
        elif isinstance(node, Markdown):
            def scan(prose: str) -> str:
                for m in _IMAGE_ATTR.finditer(prose):
                    number(parse_attrs(m.group(3)).id)
                for m in _HEADING.finditer(prose):
                    num = numbers.next(len(m.group(1)), m.group(3)) if numbers else None
                    ident = parse_attrs(m.group(3)).id if m.group(3) else ""
                    if ident:
                        labels.setdefault(ident, ("sec", f"{SECTION_TITLE} {num}" if num else m.group(2).strip()))
                return prose
            map_prose(node.text, scan)
    return labels


def _rewrite(prose: str, labels: dict[str, tuple[str, str]], suffix: str, numbers: SectionNumbers | None) -> str:
    def heading(m: re.Match) -> str:
        hashes, text, attrs = m.group(1), m.group(2), m.group(3)
        num = numbers.next(len(hashes), attrs) if numbers else None
        ident = parse_attrs(attrs).id if attrs else ""
        shown = f'<span class="header-section-number">{num}</span> {text}' if num else text
        return (f'<a id="{html.escape(ident)}"></a>\n\n' if ident else "") + f"{hashes} {shown}"

    def image(m: re.Match) -> str:
        alt, src, attrs = m.group(1), m.group(2), parse_attrs(m.group(3))
        alt_text = attrs.get("fig-alt", alt) or alt
        if attrs.id in labels:
            kind, num = labels[attrs.id]
            cap = f"{CROSSREF_TITLES[kind]} {num}{TITLE_DELIM}{alt}"
            return (f'<figure id="{html.escape(attrs.id)}" class="course-figure"><img src="{html.escape(src)}" '
                    f'alt="{html.escape(alt_text)}"><figcaption>{html.escape(cap)}</figcaption></figure>')
        return f"![{alt_text}]({src})"

    def xref(m: re.Match) -> str:
        label = m.group(3)
        if label not in labels:
            return f"{m.group(1) or ''}{m.group(2)}?@{label}{m.group(4) or ''}"
        kind, value = labels[label]
        if kind == "sec":
            text = value
        else:
            text = value if m.group(2) else f"{CROSSREF_TITLES[kind]} {value}"
        return f"[{text}](#{label})"

    prose = _HEADING.sub(heading, prose)
    prose = _IMAGE_ATTR.sub(image, prose)
    prose = _LINK_ATTR.sub(r"\1", prose)
    prose = _SPAN.sub(r"\1", prose)
    prose = _XREF.sub(xref, prose)
    return _QMD_LINK.sub(lambda m: f"]({m.group(1)}{suffix}{m.group(2) or ''})", prose)


def quarto_markdown(doc: Document, ctx: BuildContext) -> Document:
    """Rewrite Quarto-only markdown in place and number the figures (see the module docstring)."""
    labels = collect_labels(doc, ctx.number_sections)
    numbers = SectionNumbers(top_level(doc)) if ctx.number_sections else None
    for node, _ in iter_nodes(doc.children):
        if isinstance(node, Markdown):
            node.text = map_prose(node.text, lambda p: _rewrite(p, labels, ctx.link_suffix, numbers))
        elif isinstance(node, Cell):
            label = str(node.options.get("label", ""))
            if label in labels:
                kind, num = labels[label]
                node.meta["crossref"] = {"label": label, "kind": kind, "number": int(num),
                                         "title": f"{CROSSREF_TITLES[kind]} {num}"}
    return doc
