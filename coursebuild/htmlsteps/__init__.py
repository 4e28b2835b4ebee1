"""Notebook -> page steps of the fallback renderer, applied in order to a copy of the executed notebook.

Each step is ``(nb, page) -> nb`` in its own module with its own test; :data:`HTML_PIPELINE` is the order.
"""
from __future__ import annotations

from .cells import cell_display
from .links import page_links
from .structure import div_structure

HTML_PIPELINE = [cell_display, page_links, div_structure]

__all__ = ["HTML_PIPELINE", "cell_display", "page_links", "div_structure"]
