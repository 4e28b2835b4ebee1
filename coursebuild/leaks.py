"""What must never reach the exercise branch or the student kit: hidden-check text and the exercises' answers.

Exercises are found as grading finds them: every folder of ``<root>/grading/exercises/`` and of each folder in
``$GRADING_EXERCISES`` (os.pathsep-separated).

*Hidden snippets.* Hidden checks live in ``<exercise>/hidden*`` (files or folders). A snippet is a line of a
hidden file, stripped, at least :data:`MIN_LEN` characters long, that occurs in no public file (the rest of
``grading/``, ``labsim/``, ``figures/``): lines shared with the public template or harness are not evidence of
a leak. :func:`scan_for_leaks` looks for snippets in built files.

*Reference fills.* An exercise's answer is what its solution (config ``solution``, default ``solution.cu``)
puts where its template (``template``) has the blank (``blank``, default ``______``): :func:`exercise_fills`
reads them for every exercise of the course, :func:`public_code` the templates (given code, never an answer);
the matching is ``grading.studentbuild.fills`` (:func:`fill_patterns`, :func:`scan_for_fills`), the same
grading's student build runs over the whole kit.
"""
from __future__ import annotations

import html
import json
import os
import re
import tomllib
from pathlib import Path

# the matching of answers is grading's (its student build scans the kit with it); re-exported for the build
from grading.studentbuild.fills import (ALLOW_FILLS, Fill, code_only, fill_patterns, reference_fill,  # noqa: F401
                                        scan_for_fills, shipped_files, tokens)

MIN_LEN = 20
ROOTS_ENV = "GRADING_EXERCISES"          # the same variable grading.spec reads
_TEXT_SUFFIXES = {".py", ".cu", ".cuh", ".c", ".h", ".json", ".yml", ".yaml", ".toml", ".txt", ".md", ".qmd",
                  ".ipynb", ".html", ".js", ".css", ".cfg", ".ini", ".csv", ".svg", ""}
_BORING = re.compile(r"^(import |from \S+ import |#include|//\s*$|#\s*$|\"\"\"|''')")
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")
_BARE_MIN_TOKENS = 3


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


def exercise_roots(root: Path) -> list[Path]:
    """``<root>/grading/exercises`` and every folder named in ``$GRADING_EXERCISES``, in that order."""
    out = [root / "grading" / "exercises"]
    for p in os.environ.get(ROOTS_ENV, "").split(os.pathsep):
        if p.strip() and Path(p).resolve() not in [r.resolve() for r in out]:
            out.append(Path(p))
    return out


def exercise_folders(root: Path) -> list[Path]:
    """Every exercise folder under :func:`exercise_roots` (a folder with a config.toml or hidden material)."""
    out = []
    for base in exercise_roots(root):
        if not base.is_dir():
            continue
        for p in sorted(base.iterdir()):
            if p.is_dir() and ((p / "config.toml").is_file() or any(p.glob("hidden*"))):
                out.append(p)
    return out


def hidden_files(root: Path) -> list[Path]:
    """Every file under ``<exercise>/hidden*`` of every exercise."""
    out: list[Path] = []
    for folder in exercise_folders(root):
        for base in sorted(folder.glob("hidden*")):
            out.extend(_text_files(base))
    return out


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def hidden_snippets(root: Path) -> list[tuple[str, str]]:
    """``(hidden file relative to root, line)`` pairs that identify hidden-check text: lines that occur in no
    public file, not even inside a longer line (the README's example of a check decorator is no leak)."""
    hidden = hidden_files(root)
    if not hidden:
        return []
    hidden_set = set(hidden)
    public: list[str] = []
    bases = [root / folder for folder in ("grading", "labsim", "figures") if (root / folder).is_dir()]
    for base in bases + exercise_folders(root):   # exercises outside the root: their public files too
        for p in _text_files(base):
            if p not in hidden_set:
                try:
                    public.append(p.read_text(encoding="utf-8"))
                except (UnicodeDecodeError, OSError):
                    pass
    public_text = "\n".join(public)
    out = []
    for path in hidden:
        for line in sorted(_lines(path)):
            if len(line) >= MIN_LEN and not _BORING.match(line) and line not in public_text:
                out.append((_shown(path, root), line))
    return out


def scan_for_leaks(paths: list[Path], snippets: list[tuple[str, str]]) -> list[str]:
    """Messages ``"<file>: contains <snippet> from <hidden file>"`` for every hit; empty if clean."""
    hits = []
    for path in paths:
        text = _read(path)
        if text is None:
            continue
        for source, snippet in snippets:
            if snippet in text or (path.suffix == ".ipynb" and _json_escaped(snippet) in text):
                hits.append(f"{path}: contains {snippet!r} from {source}")
    return hits


def _json_escaped(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)[1:-1]


def _read(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None
    if path.suffix in (".html", ".svg"):  # highlighted code is split into spans: compare the visible text
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return text


# ---- reference fills (the matching lives in grading.studentbuild.fills, shared with the student build) ---

def exercise_fills(root: Path) -> list[Fill]:
    """The reference fill of every exercise (under :func:`exercise_roots`) that has a template and a solution."""
    out = []
    for folder in exercise_folders(root):
        cfg_path = folder / "config.toml"
        cfg = tomllib.loads(cfg_path.read_text(encoding="utf-8")) if cfg_path.is_file() else {}
        template, solution = folder / cfg.get("template", "template.cu"), folder / cfg.get("solution", "solution.cu")
        if cfg.get("kind") == "whole":      # no blank: the solution file itself is what must not ship
            continue
        if template.is_file() and solution.is_file():
            out.append(reference_fill(cfg.get("id", folder.name), template.read_text(encoding="utf-8"),
                                      solution.read_text(encoding="utf-8"), cfg.get("blank", "______")))
    return out


def public_code(root: Path) -> list[str]:
    """The code every student is given anyway: each exercise's template."""
    out = []
    for folder in exercise_folders(root):
        cfg_path = folder / "config.toml"
        cfg = tomllib.loads(cfg_path.read_text(encoding="utf-8")) if cfg_path.is_file() else {}
        template = folder / cfg.get("template", "template.cu")
        if template.is_file():
            out.append("\n".join(code_only(ln) for ln in template.read_text(encoding="utf-8").splitlines()))
    return out


