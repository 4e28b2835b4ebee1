"""A small table that shows itself in a notebook (HTML) and in a terminal (text): lessons print results with it."""
from __future__ import annotations

import html
from typing import Any, Sequence

from grading.display import html_bundle, quarto_rendering


class Table:
    """Rows of values under headers, with an optional caption and notes.

    ``data`` keeps the raw values (numbers stay numbers) so tests can read what a lesson showed.
    """

    def __init__(self, headers: Sequence[str], rows: Sequence[Sequence[Any]], caption: str | None = None,
                 notes: Sequence[str] = ()) -> None:
        self.headers = list(headers)
        self.data = [list(r) for r in rows]
        bad = [i for i, r in enumerate(self.data) if len(r) != len(self.headers)]
        if bad:
            raise ValueError(f"Table: row {bad[0]} has {len(self.data[bad[0]])} cells, headers have "
                             f"{len(self.headers)}")
        self.caption = caption
        self.notes = list(notes)

    def column(self, header: str) -> list[Any]:
        """The values under one header."""
        if header not in self.headers:
            raise KeyError(f"no column {header!r}; columns: {self.headers}")
        i = self.headers.index(header)
        return [r[i] for r in self.data]

    @staticmethod
    def _fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.2f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))
        return str(v)

    def _repr_html_(self) -> str | None:
        return None if quarto_rendering() else self.html()

    def _repr_markdown_(self) -> str | None:
        # Quarto: a raw-HTML block, not a text/html output (see grading.display.html_bundle)
        return html_bundle(self.html())["text/markdown"] if quarto_rendering() else None

    def html(self) -> str:
        def cell(v: Any) -> str:
            text = html.escape(self._fmt(v)).replace("\n", "<br>")
            # numbers line up on the right, words and messages read from the left
            align = "right" if isinstance(v, (int, float)) else "left"
            return f"<td style='text-align:{align}'>{text}</td>"

        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.headers)
        body = "".join("<tr>" + "".join(cell(v) for v in r) + "</tr>" for r in self.data)
        cap = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        notes = "".join(f"<p class='labsim-note'>{html.escape(n)}</p>" for n in self.notes)
        return (f"<table class='labsim-table'>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
                f"{notes}")

    def __str__(self) -> str:
        cells = [self.headers] + [[self._fmt(v) for v in r] for r in self.data]
        width = [max(_w(row[i]) for row in cells) for i in range(len(self.headers))]
        lines = [self.caption] if self.caption else []
        for k, row in enumerate(cells):
            lines.append("  ".join(c + " " * (width[i] - _w(c)) for i, c in enumerate(row)).rstrip())
            if k == 0:
                lines.append("  ".join("-" * w for w in width))
        return "\n".join(lines + self.notes)

    def __repr__(self) -> str:
        return str(self)


def _w(s: str) -> int:
    """Display width: CJK characters take two columns."""
    return sum(2 if "\u2e80" <= ch <= "\uffef" else 1 for ch in s)
