"""Console helpers for the prelude scripts: headers, aligned tables (CJK-aware widths), observations."""
from __future__ import annotations

import unicodedata


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in str(text))


def _pad(text: str, width: int) -> str:
    return str(text) + " " * (width - _width(text))


def print_header(title: str) -> None:
    """A section title framed by rules."""
    rule = "=" * max(60, _width(title) + 4)
    print(f"\n{rule}\n  {title}\n{rule}")


def print_table(headers: list[str], rows: list[list]) -> None:
    """An aligned text table; widths count CJK characters as two columns."""
    cols = [[str(h)] + [str(r[i]) for r in rows] for i, h in enumerate(headers)]
    widths = [max(_width(c) for c in col) for col in cols]
    line = "  ".join(_pad(h, w) for h, w in zip(headers, widths))
    print(line)
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(_pad(v, w) for v, w in zip(r, widths)))


def print_observations(items: list[str]) -> None:
    """Numbered observations under a heading."""
    print("\n观察：")
    for i, text in enumerate(items, 1):
        print(f"  {i}. {text}")
