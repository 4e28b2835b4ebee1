"""Point links between lessons at pages: relative ``x.ipynb`` links in markdown become ``x.html``."""
from __future__ import annotations

import re

from nbformat import NotebookNode

_IPYNB_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|/|#)([^)\s#]+?)\.ipynb(#[^)\s]*)?\)")
_IPYNB_HREF = re.compile(r'href="(?![a-z][a-z0-9+.-]*:|/|#)([^"#]+?)\.ipynb(#[^"]*)?"')


def page_links(nb: NotebookNode, page: dict) -> NotebookNode:
    """Rewrite relative notebook links in markdown cells (markdown and raw HTML forms)."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            src = _IPYNB_LINK.sub(lambda m: f"]({m.group(1)}.html{m.group(2) or ''})", cell.source)
            cell.source = _IPYNB_HREF.sub(lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"', src)
    return nb
