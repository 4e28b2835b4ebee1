"""A small C/CUDA tokenizer for conformance: tokens with line and column, comments and whitespace dropped.

It never raises on odd input: anything it cannot classify (a stray byte, an unterminated comment or string)
becomes an ``error`` token that conformance reports with its place.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_PUNCT = sorted(
    """>>= <<= ... ->* :: -> ++ -- << >> <= >= == != && || += -= *= /= %= &= |= ^= .* ## { } [ ] ( ) < > ; : ,
    . ? ~ ! + - * / % ^ & | = #""".split(),
    key=len, reverse=True,
)

_RULES = [
    ("newline", r"\r\n|\n|\r"),
    ("space", r"[ \t\f\v]+"),
    ("line_comment", r"//[^\r\n]*"),
    ("block_comment", r"/\*.*?\*/"),
    ("open_comment", r"/\*"),                      # unterminated
    ("string", r'[uUL]?8?"(?:\\.|[^"\\\r\n])*"'),
    ("char", r"[uUL]?8?'(?:\\.|[^'\\\r\n])+'"),
    ("open_string", r"[\"']"),
    ("number", r"\.?\d(?:[eEpP][+-]|'[0-9a-zA-Z]|[\w.])*"),
    ("ident", r"[^\W\d]\w*"),
    ("punct", "|".join(re.escape(p) for p in _PUNCT)),
    ("other", r"."),
]
_MASTER = re.compile("|".join(f"(?P<{name}>{rx})" for name, rx in _RULES), re.S)


@dataclass(frozen=True)
class Token:
    """One token: ``kind`` is ident, number, punct, string, char, pp (a whole preprocessor line) or error."""

    kind: str
    text: str
    line: int
    col: int

    @property
    def key(self) -> tuple[str, str]:
        """What two tokens must share to be equal (the place is ignored)."""
        return (self.kind, self.text)

    def __repr__(self) -> str:
        return f"Token({self.kind} {self.text!r} @{self.line}:{self.col})"


_SPLICE = re.compile(r"\\(?:\r\n|\n|\r)")


def splice(src: str) -> tuple[str, list[tuple[int, int]]]:
    """Backslash-newline removed, as the preprocessor's second translation phase does, and the shifts:
    (offset in the spliced text, characters removed before it), to place tokens in the original text."""
    shifts, parts, pos, removed = [], [], 0, 0
    for m in _SPLICE.finditer(src):
        parts.append(src[pos:m.start()])
        removed += m.end() - m.start()
        shifts.append((m.start() - removed + (m.end() - m.start()), removed))
        pos = m.end()
    parts.append(src[pos:])
    return "".join(parts), shifts


def tokenize(src: str) -> list[Token]:
    """Tokens of ``src`` after line splicing; preprocessor lines become one ``pp`` token with whitespace
    normalised; lines and columns are those of the original text."""
    if not _SPLICE.search(src):
        return _tokenize(src)
    spliced, shifts = splice(src)
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\n|\r", src)]
    keys = [at for at, _ in shifts]

    def place(tok: Token, offset: int) -> Token:
        k = bisect.bisect_right(keys, offset)
        orig = offset + (shifts[k - 1][1] if k else 0)
        line = bisect.bisect_right(starts, orig)
        return Token(tok.kind, tok.text, line, orig - starts[line - 1] + 1)
    return [place(t, off) for t, off in _tokenize(spliced, offsets=True)]


def _tokenize(src: str, offsets: bool = False) -> list:
    out: list = []
    pos, line, line_start, at_line_start = 0, 1, 0, True
    n = len(src)
    while pos < n:
        if at_line_start:
            m = re.compile(r"[ \t]*#").match(src, pos)
            if m:
                start = pos
                pos, line, line_start = _preprocessor(src, pos, line, line_start, out)
                if offsets:
                    out[-1] = (out[-1], start)
                continue
        m = _MASTER.match(src, pos)
        kind, text = m.lastgroup, m.group()
        col = pos - line_start + 1
        if kind == "newline":
            line, line_start, at_line_start = line + 1, m.end(), True
        elif kind in ("space",):
            pass
        elif kind in ("line_comment", "block_comment"):
            line, line_start = _advance_lines(text, m.start(), line, line_start)
        elif kind == "open_comment":
            out.append(_emit(Token("error", "/* (comment never closed)", line, col), pos, offsets))
            return out
        else:
            at_line_start = False
            if kind == "open_string":
                out.append(_emit(Token("error", f"{text} (string never closed)", line, col), pos, offsets))
            elif kind == "other":
                out.append(_emit(Token("error", text, line, col), pos, offsets))
            else:
                out.append(_emit(Token(kind, text, line, col), pos, offsets))
        pos = m.end()
    return out


def _emit(tok: Token, pos: int, offsets: bool):
    return (tok, pos) if offsets else tok


def _advance_lines(text: str, start: int, line: int, line_start: int) -> tuple[int, int]:
    for m in re.finditer(r"\r\n|\n|\r", text):
        line, line_start = line + 1, start + m.end()
    return line, line_start


def _preprocessor(src: str, pos: int, line: int, line_start: int, out: list[Token]) -> tuple[int, int, int]:
    """Consume one directive (with backslash continuations) as a single normalised token."""
    m = re.compile(r"(?:[^\r\n\\]|\\(?:\r\n|\n|\r)?)*").match(src, pos)
    raw = m.group()
    body = re.sub(r"/\*.*?\*/|//.*", " ", re.sub(r"\\(\r\n|\n|\r)", " ", raw))
    text = " ".join(body.split())
    text = re.sub(r"^# ", "#", text)
    out.append(Token("pp", text, line, pos - line_start + 1))
    new_line, new_start = _advance_lines(raw, pos, line, line_start)
    return m.end(), new_line, new_start
