"""What a notebook shows, in every renderer: the HTML bundles of the check cell and of figures' tables.

Display sits above the simulator: labsim counts and never draws or prints for a page. The course build
(``coursebuild``) says which renderer executes the notebook through ``COURSEBUILD_RENDERER``; Quarto's own
kernel also carries ``QUARTO_FIG_FORMAT``.
"""
from __future__ import annotations

import os
import sys


def quarto_rendering() -> bool:
    """True while Quarto executes the notebook (the course build says so; Quarto's kernel has QUARTO_FIG_*)."""
    return os.environ.get("COURSEBUILD_RENDERER") == "quarto" or "QUARTO_FIG_FORMAT" in os.environ


def html_bundle(html_text: str, text: str = "") -> dict:
    """A display bundle showing ``html_text`` in every renderer.

    Quarto loads require.js and jQuery from a CDN (and runs ``define(...)``, an error offline) on any page
    with a ``text/html`` output; a raw-HTML markdown block reaches the page unchanged without them.
    """
    if quarto_rendering():
        return {"text/markdown": f"`````{{=html}}\n{html_text}\n`````\n", "text/plain": text or "(HTML)"}
    return {"text/html": html_text, "text/plain": text or "(HTML)"}


def in_notebook_kernel() -> bool:
    """True inside a Jupyter kernel (where rich output is shown), False in a terminal or a plain script."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"
