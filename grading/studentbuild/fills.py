"""Each exercise's answer, found wherever a student would get it.

An exercise's answer is what its solution puts where its template has the blank: :func:`reference_fill` diffs
the two, token by token. :func:`fill_patterns` makes what is searched: the filled statement (the template's
line with the fill, comment cut) always, and the fill alone wherever it is distinctive (three or more tokens,
and in no exercise's template code: P2's ``row * N + col`` is lesson 8's given read, so only P2's
``int idx = row * N + col;`` counts). Whitespace between tokens does not matter. :func:`scan_for_fills`
searches files (HTML also as its visible text). Both leak scanners use this module: the student build's verify
(over the whole kit) and the course build's (``coursebuild.leaks``: the student site, the kit, the exercise
branch). Standard library only.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")
_BARE_MIN_TOKENS = 3


def _texts(path: Path) -> list[str]:
    """The file's text, and for HTML also its visible text (code highlighting splits tokens into spans);
    nothing for a file that is not UTF-8 text."""
    try:
        raw = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return []
    if path.suffix in (".html", ".svg"):
        return [raw, html.unescape(re.sub(r"<[^>]+>", "", raw))]
    return [raw]


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


def code_only(line: str) -> str:
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
    before, after = code_only(lines[0]).split(blank, 1)
    pre, post = tokens(before), tokens(after)
    for ln in solution.splitlines():
        code = code_only(ln)
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


def _regex(toks: tuple[str, ...]) -> re.Pattern:
    r"""The tokens in order, any whitespace between, not inside a longer word at either end.

    The start's word boundary is checked after the first token (``int(?<!\wint)``, the same as ``(?<!\w)int``):
    a pattern that begins with literal text lets ``re`` jump from one occurrence of it to the next instead of
    trying every position of a page (20x faster over the site's megabytes of HTML)."""
    first = re.escape(toks[0])
    head = rf"(?<!\w{first})" if re.match(r"\w", toks[0]) else ""
    body = first + head + "".join(r"\s*" + re.escape(t) for t in toks[1:])
    tail = r"(?![\w])" if re.match(r".*\w$", toks[-1]) else ""
    return re.compile(body + tail)


def fill_patterns(fills: list[Fill], public: list[str]) -> list[tuple[str, str, re.Pattern]]:
    """``(exercise, what, regex)`` to search for: each filled statement, and each distinctive bare fill."""
    out = []
    for f in fills:
        out.append((f.exercise, f.statement, _regex(f.statement_tokens)))
        bare = _regex(f.fill_tokens)
        if len(f.fill_tokens) >= _BARE_MIN_TOKENS and not any(bare.search(code) for code in public):
            out.append((f.exercise, f.fill, bare))
    return out


# Known answers in shipped files while they are being removed: {path suffix: {exercise, ...}}. Empty, and
# meant to stay so (an entry would need a reason next to it).
ALLOW_FILLS: dict[str, set[str]] = {}


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
