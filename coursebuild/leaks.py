"""What must never reach the exercise branch: text of the hidden checks.

Hidden checks live in ``grading/exercises/<exercise>/hidden*`` (files or folders). A *snippet* is a
line of a hidden file, stripped, at least :data:`MIN_LEN` characters long, that occurs in no public
file (the rest of ``grading/``, ``labsim/``, ``figures/``): lines shared with the public template or
harness are not evidence of a leak. :func:`scan_for_leaks` looks for snippets in built files.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

MIN_LEN = 20
_TEXT_SUFFIXES = {".py", ".cu", ".cuh", ".c", ".h", ".json", ".yml", ".yaml", ".toml", ".txt", ".md", ".qmd",
                  ".ipynb", ".html", ""}
_BORING = re.compile(r"^(import |from \S+ import |#include|//\s*$|#\s*$|\"\"\"|''')")


def _text_files(base: Path) -> list[Path]:
    if base.is_file():
        return [base]
    return sorted(p for p in base.rglob("*") if p.is_file() and p.suffix in _TEXT_SUFFIXES
                  and "__pycache__" not in p.parts)


def _lines(path: Path) -> set[str]:
    try:
        return {ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()}
    except (UnicodeDecodeError, OSError):
        return set()


def hidden_files(root: Path) -> list[Path]:
    """Every file under ``grading/exercises/*/hidden*``."""
    out: list[Path] = []
    for base in sorted((root / "grading" / "exercises").glob("*/hidden*")):
        out.extend(_text_files(base))
    return out


def hidden_snippets(root: Path) -> list[tuple[str, str]]:
    """``(hidden file relative to root, line)`` pairs that identify hidden-check text."""
    hidden = hidden_files(root)
    if not hidden:
        return []
    hidden_set = set(hidden)
    public: set[str] = set()
    for folder in ("grading", "labsim", "figures"):
        if (root / folder).is_dir():
            for p in _text_files(root / folder):
                if p not in hidden_set:
                    public |= _lines(p)
    out = []
    for path in hidden:
        for line in sorted(_lines(path)):
            if len(line) >= MIN_LEN and line not in public and not _BORING.match(line):
                out.append((str(path.relative_to(root)), line))
    return out


def scan_for_leaks(paths: list[Path], snippets: list[tuple[str, str]]) -> list[str]:
    """Messages ``"<file>: contains <snippet> from <hidden file>"`` for every hit; empty if clean."""
    hits = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if path.suffix == ".html":  # highlighted code is split into spans: compare the visible text
            text = html.unescape(re.sub(r"<[^>]+>", "", text))
        for source, snippet in snippets:
            if snippet in text or (path.suffix == ".ipynb" and _json_escaped(snippet) in text):
                hits.append(f"{path}: contains {snippet!r} from {source}")
    return hits


def _json_escaped(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)[1:-1]
