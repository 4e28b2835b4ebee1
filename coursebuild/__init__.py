"""coursebuild: lessons (``lessons/*.qmd``) -> answer and exercise branches -> notebooks -> site.

``python -m coursebuild`` is the main command (``make site``); see ``coursebuild/README.md`` for the
lesson source conventions, the transforms and the output layout.
"""
from __future__ import annotations

import sys

# nbformat imports jsonschema, which imports rfc3987_syntax where it is installed (jupyterlab's dependencies pull
# it in) and compiles 38 grammars for the "iri" string formats at import: ~2 s of CPU in every process that loads
# nbformat, for formats that notebook validation never checks. Mark it absent before nbformat loads; jsonschema
# then skips those two format checks, as where the package is not installed.
sys.modules.setdefault("rfc3987_syntax", None)

from .build import BuildError, BuildReport, build, inputs_digest  # noqa: E402 (after the line above)
from .context import BRANCHES, BuildContext  # noqa: E402
from .qmd import Document, QmdError, parse_qmd, read_qmd, write_qmd  # noqa: E402

__all__ = ["build", "BuildError", "BuildReport", "inputs_digest", "BRANCHES", "BuildContext", "Document",
           "QmdError", "parse_qmd", "read_qmd", "write_qmd"]
