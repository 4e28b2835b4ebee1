"""What must never reach the exercise branch or the student kit: hidden-check text and the exercises' answers.

Exercises are found as grading finds them: every folder of ``<root>/grading/exercises/`` and of each folder in
``$GRADING_EXERCISES`` (os.pathsep-separated).

*Hidden snippets.* Hidden checks live in ``<exercise>/hidden*`` (files or folders). A snippet is a line of a
hidden file, stripped, at least :data:`MIN_LEN` characters long, that occurs in no public file (the rest of
``grading/``, ``labsim/``, ``figures/``): lines shared with the public template or harness are not evidence of
a leak. :func:`scan_for_leaks` looks for snippets in built files.

*Reference fills.* An exercise's answer is what its solution (config ``solution``, default ``solution.cu``)
puts where its template (``template``) has the blank (``blank``, default ``______``): :func:`reference_fill`
diffs the two, token by token. :func:`fill_patterns` makes what is searched: the filled statement (the
template's line with the fill, comment cut) always, and the fill alone wherever it is distinctive (three or
more tokens, and in no exercise's template code: P2's ``row * N + col`` is lesson 8's given read, so only P2's
``int idx = row * N + col;`` counts). Whitespace between tokens does not matter. :func:`scan_for_fills`
searches built files; the course build and grading's student build (``grading/studentbuild/verify.py``) both
run it over everything they ship.
"""
from __future__ import annotations

import html
import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

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
    for folder in exercise_folders(root):          # exercises outside the root: their public files too
        for p in _text_files(folder):
            if p not in hidden_set:
                public |= _lines(p)
    out = []
    for path in hidden:
        for line in sorted(_lines(path)):
            if len(line) >= MIN_LEN and line not in public and not _BORING.match(line):
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


def _texts(path: Path) -> list[str]:
    """The file's text, and for HTML also its visible text (code highlighting splits tokens into spans)."""
    try:
        raw = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return []
    if path.suffix in (".html", ".svg"):
        return [raw, html.unescape(re.sub(r"<[^>]+>", "", raw))]
    return [raw]


def _read(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None
    if path.suffix in (".html", ".svg"):  # highlighted code is split into spans: compare the visible text
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return text


# ---- reference fills ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Fill:
    """One exercise's answer: the text its solution puts in the blank, and the template line it completes."""

    exercise: str
    fill: str                 # e.g. "col * M + row"
    statement: str            # the template's line with the fill, without its comment
    fill_tokens: tuple[str, ...]
    statement_tokens: tuple[str, ...]

    def __repr__(self) -> str:
        return f"Fill({self.exercise!r}, {self.fill!r})"


def _code(line: str) -> str:
    """A C/C++ line without its trailing ``//`` comment (no string literal in a blank's line holds ``//``)."""
    return line.split("//", 1)[0].rstrip()


def tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(text))


def reference_fill(exercise: str, template: str, solution: str, blank: str = "______") -> Fill:
    """The fill of ``template``'s one blank in ``solution``; ValueError naming the exercise when the solution
    does not complete the blank's line (an exercise whose solution changed more than the blank)."""
    lines = [ln for ln in template.splitlines() if blank in ln]
    if len(lines) != 1:
        raise ValueError(f"{exercise}: the template has {len(lines)} lines with the blank {blank!r}, expected 1")
    before, after = _code(lines[0]).split(blank, 1)
    pre, post = tokens(before), tokens(after)
    for ln in solution.splitlines():
        code = _code(ln)
        got = tokens(code)
        if len(got) > len(pre) + len(post) and got[:len(pre)] == pre and got[len(got) - len(post):] == post:
            fill_tokens = got[len(pre):len(got) - len(post)]
            text = _span(code, len(pre), len(got) - len(post))
            return Fill(exercise, text, code.strip(), fill_tokens, got)
    raise ValueError(f"{exercise}: no line of the solution completes the template's blank line {lines[0].strip()!r}")


def _span(code: str, first: int, end: int) -> str:
    """The text of tokens ``first`` .. ``end - 1`` of ``code``, as written."""
    spans = [m.span() for m in _TOKEN.finditer(code)]
    return code[spans[first][0]:spans[end - 1][1]]


def exercise_fills(root: Path) -> list[Fill]:
    """The reference fill of every exercise (under :func:`exercise_roots`) that has a template and a solution."""
    out = []
    for folder in exercise_folders(root):
        cfg_path = folder / "config.toml"
        cfg = tomllib.loads(cfg_path.read_text(encoding="utf-8")) if cfg_path.is_file() else {}
        template, solution = folder / cfg.get("template", "template.cu"), folder / cfg.get("solution", "solution.cu")
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
            out.append("\n".join(_code(ln) for ln in template.read_text(encoding="utf-8").splitlines()))
    return out


def _regex(toks: tuple[str, ...]) -> re.Pattern:
    body = r"\s*".join(re.escape(t) for t in toks)
    head = r"(?<![\w])" if re.match(r"\w", toks[0]) else ""
    tail = r"(?![\w])" if re.match(r".*\w$", toks[-1]) else ""
    return re.compile(head + body + tail)


def fill_patterns(fills: list[Fill], public: list[str]) -> list[tuple[str, str, re.Pattern]]:
    """``(exercise, what, regex)`` to search for: each filled statement, and each distinctive bare fill."""
    out = []
    for f in fills:
        out.append((f.exercise, f.statement, _regex(f.statement_tokens)))
        bare = _regex(f.fill_tokens)
        if len(f.fill_tokens) >= _BARE_MIN_TOKENS and not any(bare.search(code) for code in public):
            out.append((f.exercise, f.fill, bare))
    return out


# Known answers in shipped files, being removed (issue 24, item 4): {path suffix: {exercise, ...}}. Only ever
# shrinks; tests/coursebuild/test_leaks.py says which entries are stale.
ALLOW_FILLS: dict[str, set[str]] = {
    "figures/lesson08.py": {"lesson08"},
    "figures/lesson09.py": {"lesson09"},
    "figures/lesson10.py": {"lesson10"},
    "grading/exercises/lesson09/common.py": {"lesson09"},
}


def scan_for_fills(paths: list[Path], patterns: list[tuple[str, str, re.Pattern]],
                   allow: dict[str, set[str]] | None = None) -> list[str]:
    """Messages ``"<file>:<line>: contains <exercise>'s answer <text>"`` for every hit; empty if clean.

    ``allow``: ``{path suffix: {exercise, ...}}``, hits to let pass (default :data:`ALLOW_FILLS`)."""
    allow = ALLOW_FILLS if allow is None else allow
    hits = []
    for path in paths:
        texts = _texts(path)
        for exercise, what, rx in patterns:
            m = next((m for m in (rx.search(t) for t in texts) if m), None)
            if m is None:
                continue
            if any(path.as_posix().endswith("/" + k) and exercise in v for k, v in allow.items()):
                continue
            line = m.string.count("\n", 0, m.start()) + 1
            hits.append(f"{path}:{line}: contains {exercise}'s answer {what!r} (the reference fill)")
    return hits


def shipped_files(*bases: Path) -> list[Path]:
    """Every file under ``bases`` (folders or files), caches left out: what a student gets."""
    out = []
    for base in bases:
        if base.is_file():
            out.append(base)
        elif base.is_dir():
            out.extend(p for p in sorted(base.rglob("*")) if p.is_file() and "__pycache__" not in p.parts
                       and p.suffix != ".pyc")
    return out
