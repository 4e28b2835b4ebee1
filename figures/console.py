"""Console helpers for the prelude scripts: headers, aligned tables (CJK-aware widths), observations.
In a Jupyter kernel a table is shown as HTML (``grading.display``'s bundle, which Quarto passes through)."""
from __future__ import annotations

import html
import sys
import unicodedata

from grading.display import html_bundle, in_notebook_kernel


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in str(text))


def _pad(text: str, width: int) -> str:
    return str(text) + " " * (width - _width(text))


def print_header(title: str) -> None:
    """A section title framed by rules."""
    rule = "=" * max(60, _width(title) + 4)
    print(f"\n{rule}\n  {title}\n{rule}")


def format_table(headers: list[str], rows: list[list]) -> str:
    """An aligned text table; widths count CJK characters as two columns."""
    cols = [[str(h)] + [str(r[i]) for r in rows] for i, h in enumerate(headers)]
    widths = [max(_width(c) for c in col) for col in cols]
    lines = ["  ".join(_pad(h, w) for h, w in zip(headers, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(_pad(v, w) for v, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def html_table(headers: list[str], rows: list[list]) -> str:
    """The same table as HTML (numbers right-aligned), for notebooks and web pages."""
    def cell(tag: str, v: object) -> str:
        text = str(v)
        num = text.replace(".", "", 1).replace("%", "").replace("×", "").replace(",", "").strip().isdigit()
        cls = ' class="num"' if num and tag == "td" else ""
        return f"<{tag}{cls}>{html.escape(text)}</{tag}>"
    head = "".join(cell("th", h) for h in headers)
    body = "".join("<tr>" + "".join(cell("td", v) for v in r) + "</tr>" for r in rows)
    return (f'<table class="course-console-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>')


def print_table(headers: list[str], rows: list[list]) -> None:
    """Print an aligned text table; in a Jupyter kernel, show it as an HTML table instead.

    Monospace fonts rarely draw a CJK character exactly two columns wide, so text tables with Chinese
    headers misalign on web pages; an HTML table aligns in every renderer (the text form stays the
    ``text/plain`` alternative).
    """
    text = format_table(headers, rows)
    if in_notebook_kernel():
        from IPython.display import display
        sys.stdout.flush()   # keep the order of printed lines and the table
        display(html_bundle(html_table(headers, rows), text), raw=True)
    else:
        print(text)


def print_observations(items: list[str]) -> None:
    """Numbered observations under a heading."""
    print("\n观察：")
    for i, text in enumerate(items, 1):
        print(f"  {i}. {text}")
