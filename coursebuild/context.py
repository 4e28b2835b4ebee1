"""The build context handed to every transform."""
from __future__ import annotations

from dataclasses import dataclass, field

BRANCHES = ("answer", "exercise")


@dataclass
class BuildContext:
    """What a transform may know: the branch, the output format and the hidden-check snippets.

    ``fmt`` is ``None`` for the branch ``.qmd`` (``when-format`` divs stay for Quarto to resolve),
    ``"html"`` for the pages and ``"ipynb"`` for student notebooks.
    """

    branch: str
    fmt: str | None = None
    hidden_snippets: list[tuple[str, str]] = field(default_factory=list)  # (file, text)
    link_suffix: str = ".ipynb"  # what relative ``.qmd`` links become in notebooks
    number_sections: bool = False  # number headings as Quarto does (the build sets it for the fallback pages)
    lessons: list[tuple[str, str, str]] = field(default_factory=list)  # (page, title, summary), site order

    def __post_init__(self) -> None:
        if self.branch not in BRANCHES:
            raise ValueError(f"unknown branch {self.branch!r}; expected one of {BRANCHES}")

    def __repr__(self) -> str:
        return f"BuildContext(branch={self.branch!r}, fmt={self.fmt!r}, {len(self.hidden_snippets)} hidden snippets)"
