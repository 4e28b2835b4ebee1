"""coursebuild: lessons (``lessons/*.qmd``) -> answer and exercise branches -> notebooks -> site.

``python -m coursebuild`` is the main command (``make site``); see ``coursebuild/README.md`` for the
lesson source conventions, the transforms and the output layout.
"""
from __future__ import annotations

from .build import BuildError, BuildReport, build, inputs_digest
from .context import BRANCHES, BuildContext
from .qmd import Document, QmdError, parse_qmd, read_qmd, write_qmd

__all__ = ["build", "BuildError", "BuildReport", "inputs_digest", "BRANCHES", "BuildContext", "Document",
           "QmdError", "parse_qmd", "read_qmd", "write_qmd"]
