"""A small C preprocessor that keeps every line where it was, so diagnostics name the student's line.

Handles ``#include <...>`` (ignored: the CUDA headers' contents are built in), object-like and function-like
``#define``, ``#undef``, ``#if/#ifdef/#ifndef/#elif/#else/#endif`` (integer expressions and ``defined``),
``#pragma`` (ignored), ``#error``. Directive lines become blank lines and a macro expansion stays on the line
of its use, so the line numbers of the output are those of the input; a column map sends columns inside an
expansion back to the macro's use.

Limitations: no ``#`` / ``##`` operators, no variadic macros, no ``#include "file"`` (labsim compiles one
file), and a function-like macro call must close its parentheses on the line where it starts.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from .errors import CudaCompileError, CudaSyntaxError, CudaUnsupportedError

_TOKEN = re.compile(r"""
    (?P<bc>/\*.*?\*/) | (?P<ubc>/\*) | (?P<lc>//[^\n]*) |
    (?P<str>"(?:\\.|[^"\\\n])*"?) | (?P<chr>'(?:\\.|[^'\\\n])*'?) |
    (?P<id>[A-Za-z_]\w*) | (?P<num>\.?\d(?:[eEpP][+-]|[\w.'])*) |
    (?P<cont>\\\r?\n) | (?P<nl>\n) | (?P<ws>[ \t\r\f\v]+) |
    (?P<op><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|&=|\|=|\^=|\#\#|::|[-+*/%&|^!~<>=?:;,.()\[\]{}\#@$`\\])
""", re.DOTALL | re.VERBOSE)

PREDEFINED = {"__CUDACC__": "1", "__NVCC__": "1", "__cplusplus": "201703L",
              # what <climits>, <cfloat> and <cmath> would provide (their #include is ignored)
              "INT_MAX": "2147483647", "INT_MIN": "(-2147483647 - 1)", "UINT_MAX": "4294967295U",
              "LLONG_MAX": "9223372036854775807LL", "FLT_MAX": "3.402823466e+38F", "FLT_MIN": "1.175494351e-38F",
              "FLT_EPSILON": "1.192092896e-07F", "DBL_MAX": "1.7976931348623158e+308", "INFINITY": "(1.0f / 0.0f)",
              "NAN": "(0.0f / 0.0f)", "M_PI": "3.14159265358979323846"}


@dataclass
class _Tok:
    kind: str
    text: str
    line: int   # 1-based
    col: int    # 1-based, characters


@dataclass
class _Macro:
    name: str
    params: list[str] | None
    body: list[_Tok]
    line: int


@dataclass
class Preprocessed:
    """The expanded text (same line count as the input) and the map back to the input's columns."""

    text: str
    filename: str
    original: str
    segments: dict[int, list[tuple[int, int, int, bool]]] = field(default_factory=dict)
    macros: dict[str, _Macro] = field(default_factory=dict)

    def position(self, line: int, col: int) -> tuple[int, int]:
        """Map (line, col) of the expanded text (1-based, characters) to the original source."""
        segs = self.segments.get(line)
        if not segs:
            return line, col
        i = bisect.bisect_right([s[0] for s in segs], col) - 1
        if i < 0:
            return line, col
        out_col, oline, ocol, verbatim = segs[i]
        return (oline, ocol + (col - out_col)) if verbatim else (oline, ocol)

    def parenthesize(self, start_byte: int, end_byte: int) -> None:
        """Wrap text[start:end] (bytes, one line) in parentheses, keeping the map to the original columns."""
        raw = self.text.encode("utf-8")
        before = raw[:start_byte].decode("utf-8")
        line = before.count("\n") + 1
        c0 = len(before) - (before.rfind("\n") + 1) + 1          # 1-based column of the first char
        c1 = c0 + len(raw[start_byte:end_byte].decode("utf-8"))  # column just after the last char
        self.text = (before + "(" + raw[start_byte:end_byte].decode("utf-8") + ")" +
                     raw[end_byte:].decode("utf-8"))
        old = self.position
        width = len(self.text.split("\n")[line - 1])
        segs: list[tuple[int, int, int, bool]] = []
        for col in range(1, width + 2):   # rebuild this line's map column by column (lines are short)
            src = old(line, col) if col < c0 else old(line, col - 1) if col <= c1 else old(line, col - 2)
            if col in (c0, c1 + 1):
                src = old(line, c0 if col == c0 else c1 - 1)
            segs.append((col, src[0], src[1], False))
        self.segments[line] = segs

    def line_text(self, line: int) -> str:
        lines = self.original.split("\n")
        return lines[line - 1] if 1 <= line <= len(lines) else ""

    def __repr__(self) -> str:
        return f"Preprocessed({self.filename!r}, {self.text.count(chr(10)) + 1} lines, {len(self.macros)} macros)"


def tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    line, line_start = 1, 0
    for m in _TOKEN.finditer(text):
        kind, s = m.lastgroup, m.group()
        toks.append(_Tok(kind, s, line, m.start() - line_start + 1))
        if kind == "ubc":
            raise CudaSyntaxError("unterminated /* comment", line=line, col=m.start() - line_start + 1)
        n = s.count("\n")
        if n:
            line += n
            line_start = m.start() + s.rindex("\n") + 1
    return toks


def preprocess(text: str, filename: str = "<source>") -> Preprocessed:
    """Expand directives and macros of ``text``; raise a CudaError naming file:line:col on a bad directive."""
    text = text.replace("\r\n", "\n")
    pp = _Pre(text, filename)
    return pp.run()


MAX_EXPANDED_TOKENS = 2_000_000    # all macro expansions of one file (an exponential #define is refused)
MAX_MACRO_DEPTH = 200              # macro calls nested in macro arguments
MAX_IF_DEPTH = 40                  # parentheses and unary operators in an #if expression (each costs ~12 frames)


class _Pre:
    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.file = filename
        self.budget = MAX_EXPANDED_TOKENS
        self.depth = 0
        self.site: _Tok | None = None      # the macro use on the source line being expanded
        self.macros: dict[str, _Macro] = {
            k: _Macro(k, None, [t for t in tokenize(v) if t.kind != "ws"], 0) for k, v in PREDEFINED.items()}
        # __align__(n): labsim already aligns every shared array to 128 bytes
        self.macros["__align__"] = _Macro("__align__", ["n"], [], 0)
        self.out: list[str] = []
        self.segments: dict[int, list[tuple[int, int, int, bool]]] = {}
        self.lines = text.split("\n")

    def err(self, cls, msg: str, tok: _Tok) -> Exception:
        return cls(msg, file=self.file, line=tok.line, col=tok.col, source=self.lines[tok.line - 1]
                   if 0 < tok.line <= len(self.lines) else None)

    def run(self) -> Preprocessed:
        toks = tokenize(self.text)
        # split into logical lines (a backslash-newline continues the line; block comments may span lines)
        logical: list[list[_Tok]] = [[]]
        for t in toks:
            logical[-1].append(t)
            if t.kind == "nl":
                logical.append([])
        cond: list[list[bool]] = []   # stack of [this branch taken, any branch taken, parent active]
        out_line = 1
        for ltoks in logical:
            content = [t for t in ltoks if t.kind not in ("ws", "bc", "lc", "cont", "nl")]
            nnl = sum(t.text.count("\n") for t in ltoks)
            active = all(c[0] for c in cond)
            if content and content[0].text == "#":
                self.directive(content, cond, active)
                self.out.append("\n" * nnl)
            elif not active:
                self.out.append("\n" * nnl)
            else:
                self.emit_line(ltoks, out_line)
            out_line += nnl
        if cond:
            raise CudaSyntaxError("unterminated #if/#ifdef (missing #endif)", file=self.file, line=out_line)
        return Preprocessed("".join(self.out), self.file, self.text, self.segments,
                            {k: v for k, v in self.macros.items() if k not in PREDEFINED and k != "__align__"})

    # ---- directives ----------------------------------------------------------------------------------------
    def directive(self, content: list[_Tok], cond: list[list[bool]], active: bool) -> None:
        if len(content) == 1:
            return  # the null directive
        d = content[1]
        name, args = d.text, content[2:]
        if name in ("if", "ifdef", "ifndef"):
            if not active:
                cond.append([False, True, False])
                return
            value = self.eval_if(args, d) if name == "if" else self.is_defined(args, d) == (name == "ifdef")
            cond.append([value, value, True])
            return
        if name in ("elif", "else"):
            if not cond:
                raise self.err(CudaSyntaxError, f"#{name} without #if", d)
            top = cond[-1]
            if not top[2] or top[1]:
                top[0] = False
                return
            top[0] = True if name == "else" else self.eval_if(args, d)
            top[1] = top[0]
            return
        if name == "endif":
            if not cond:
                raise self.err(CudaSyntaxError, "#endif without #if", d)
            cond.pop()
            return
        if not active:
            return
        if name == "include":
            if args and args[0].kind == "str":
                raise self.err(CudaUnsupportedError, f"#include {args[0].text}: labsim compiles a single file; "
                               "paste the header's declarations into it", d)
            return  # <cuda_runtime.h>, <cuda_fp16.h>, ...: their contents are built in
        if name == "define":
            self.define(args, d)
        elif name == "undef":
            if not args or args[0].kind != "id":
                raise self.err(CudaSyntaxError, "macro name missing after #undef", d)
            self.macros.pop(args[0].text, None)
        elif name == "pragma":
            return  # unroll, once, ...: no effect on what the program computes
        elif name == "error":
            raise self.err(CudaCompileError, "#error " + " ".join(t.text for t in args), d)
        elif name == "warning":
            return
        else:
            raise self.err(CudaUnsupportedError, f"preprocessing directive #{name} is not supported", d)

    def define(self, args: list[_Tok], d: _Tok) -> None:
        if not args or args[0].kind != "id":
            raise self.err(CudaSyntaxError, "macro name missing after #define", d)
        name_tok = args[0]
        raw = self._raw_after(name_tok)
        body_toks = [t for t in tokenize(raw) if t.kind not in ("bc", "lc", "cont", "nl")] if raw else []
        params = None
        if raw.startswith("("):  # function-like only when '(' touches the name
            close = next((i for i, t in enumerate(body_toks) if t.text == ")"), None)
            if close is None:
                raise self.err(CudaSyntaxError, f"missing ')' in parameter list of macro {name_tok.text}", name_tok)
            plist = [t for t in body_toks[1:close] if t.kind != "ws"]
            params = [t.text for t in plist if t.text != ","]
            if any(p == "..." or p == "." for p in params) or any(t.text == "." for t in plist):
                raise self.err(CudaUnsupportedError, "variadic macros are not supported", name_tok)
            if any(not re.fullmatch(r"[A-Za-z_]\w*", p) for p in params):
                raise self.err(CudaSyntaxError, f"bad parameter list of macro {name_tok.text}", name_tok)
            body_toks = body_toks[close + 1:]
        while body_toks and body_toks[0].kind == "ws":
            body_toks.pop(0)
        while body_toks and body_toks[-1].kind == "ws":
            body_toks.pop()
        if any(t.text in ("#", "##") for t in body_toks):
            raise self.err(CudaUnsupportedError, f"macro {name_tok.text}: the preprocessor operators # and ## "
                           "are not supported", name_tok)
        self.macros[name_tok.text] = _Macro(name_tok.text, params, body_toks, name_tok.line)

    def _raw_after(self, tok: _Tok) -> str:
        """The directive's text right after ``tok`` up to its end (continuations joined)."""
        lines = self.lines
        text = lines[tok.line - 1][tok.col - 1 + len(tok.text):]
        ln = tok.line
        while text.endswith("\\") and ln < len(lines):
            text = text[:-1] + " " + lines[ln]
            ln += 1
        return text

    def is_defined(self, args: list[_Tok], d: _Tok) -> bool:
        if not args or args[0].kind != "id":
            raise self.err(CudaSyntaxError, f"macro name missing after #{d.text}", d)
        return args[0].text in self.macros

    def eval_if(self, args: list[_Tok], d: _Tok) -> bool:
        toks: list[_Tok] = []
        i = 0
        while i < len(args):  # `defined X` / `defined(X)` before expansion
            t = args[i]
            if t.text == "defined":
                j = i + 1
                paren = j < len(args) and args[j].text == "("
                j += paren
                if j >= len(args) or args[j].kind != "id":
                    raise self.err(CudaSyntaxError, "macro name missing after 'defined'", t)
                toks.append(_Tok("num", "1" if args[j].text in self.macros else "0", t.line, t.col))
                i = j + 1 + paren
            else:
                toks.append(t)
                i += 1
        self.site = d
        expanded = [t for t in self.expand(toks, frozenset()) if t.kind != "ws"]
        try:
            value = _IfEval(expanded).run()
        except _IfError as e:
            raise self.err(CudaSyntaxError, f"bad #{d.text} expression: {e}", d) from None
        return value != 0

    # ---- macro expansion ----------------------------------------------------------------------------------
    def emit_line(self, ltoks: list[_Tok], out_line: int) -> None:
        pieces: list[str] = []
        line, col = out_line, 1
        i = 0
        while i < len(ltoks):
            t = ltoks[i]
            if t.kind == "id" and t.text in self.macros:
                self.site = t
                end, repl = self.expand_call(ltoks, i)
                if end is not None:
                    text = _join(repl)
                    segs = self.segments.setdefault(line, [(1, line, 1, True)])
                    segs.append((col, t.line, t.col, False))
                    pieces.append(text)
                    col += len(text)
                    last = ltoks[end - 1]
                    segs.append((col, last.line, last.col + len(last.text), True))
                    nnl = sum(x.text.count("\n") for x in ltoks[i:end])
                    if nnl:  # keep the line count: the call's own newlines follow its expansion
                        pieces.append("\n" * nnl)
                        line += nnl
                        col = 1
                        self.segments[line] = [(1, line, 1, True)]
                    i = end
                    continue
            pieces.append(t.text)
            n = t.text.count("\n")
            if n:
                line += n
                col = len(t.text) - t.text.rindex("\n")
            else:
                col += len(t.text)
            i += 1
        self.out.append("".join(pieces))

    def expand_call(self, toks: list[_Tok], i: int) -> tuple[int | None, list[_Tok]]:
        """Expand the macro use starting at toks[i]; return (index after it, tokens) or (None, []) if none."""
        t = toks[i]
        m = self.macros[t.text]
        if m.params is None:
            return i + 1, self.expand(m.body, frozenset({m.name}))
        j = i + 1
        while j < len(toks) and toks[j].kind in ("ws", "bc", "lc"):
            j += 1
        if j >= len(toks) or toks[j].text != "(":
            return None, []  # a function-like macro's name without '(' is not a call
        args, end = self._collect_args(toks, j, t)
        if len(args) == 1 and not [a for a in args[0] if a.kind != "ws"] and not m.params:
            args = []
        if len(args) != len(m.params):
            raise self.err(CudaCompileError, f"macro {m.name} takes {len(m.params)} argument(s), "
                           f"{len(args)} given", t)
        pmap = {p: self.expand(a, frozenset()) for p, a in zip(m.params, args)}
        body: list[_Tok] = []
        for b in m.body:
            if b.kind == "id" and b.text in pmap:
                body.extend(pmap[b.text])
            else:
                body.append(b)
        return end, self.expand(body, frozenset({m.name}))

    def _collect_args(self, toks: list[_Tok], j: int, name: _Tok) -> tuple[list[list[_Tok]], int]:
        depth, args, cur = 0, [], []
        k = j
        while k < len(toks):
            x = toks[k]
            if x.kind in ("bc", "lc", "cont", "nl"):
                if x.kind == "nl" or "\n" in x.text:
                    break
                k += 1
                continue
            if x.text == "(":
                depth += 1
                if depth == 1:
                    k += 1
                    continue
            elif x.text == ")":
                depth -= 1
                if depth == 0:
                    args.append(cur)
                    return args, k + 1
            elif x.text == "," and depth == 1:
                args.append(cur)
                cur = []
                k += 1
                continue
            cur.append(x)
            k += 1
        raise self.err(CudaUnsupportedError, f"the call of macro {name.text} must close its ')' on the same line",
                       name)

    def expand(self, toks: list[_Tok], hide: frozenset) -> list[_Tok]:
        self.depth += 1
        try:
            if self.depth > MAX_MACRO_DEPTH:
                raise self.err(CudaUnsupportedError, f"macro uses nested more than {MAX_MACRO_DEPTH} levels deep",
                               self.site or (toks[0] if toks else _Tok("id", "", 1, 1)))
            out = self._expand(toks, hide)
        finally:
            self.depth -= 1
        self.budget -= len(out)
        if self.budget < 0:
            site = self.site or (toks[0] if toks else _Tok("id", "", 1, 1))
            raise self.err(CudaUnsupportedError, f"macro expansion too large: more than {MAX_EXPANDED_TOKENS} tokens "
                           f"(a macro that doubles its argument at every level grows exponentially)", site)
        return out

    def _expand(self, toks: list[_Tok], hide: frozenset) -> list[_Tok]:
        out: list[_Tok] = []
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "id" and t.text in self.macros and t.text not in hide:
                m = self.macros[t.text]
                if m.params is None:
                    out.extend(self.expand(m.body, hide | {m.name}))
                    i += 1
                    continue
                end, repl = self.expand_call(toks, i)
                if end is not None:
                    out.extend(self.expand(repl, hide | {m.name}))
                    i = end
                    continue
            out.append(t)
            i += 1
        return out


def _join(toks: list[_Tok]) -> str:
    """Join expanded tokens; a space between two tokens keeps them from gluing into one."""
    parts: list[str] = []
    prev = None
    for t in toks:
        if t.kind == "ws":
            if parts and parts[-1] != " ":
                parts.append(" ")
            continue
        if prev is not None and parts[-1] != " " and _glue(prev, t):
            parts.append(" ")
        parts.append(t.text)
        prev = t
    return "".join(parts).strip()


def _glue(a: _Tok, b: _Tok) -> bool:
    word = ("id", "num")
    if a.kind in word and b.kind in word:
        return True
    return a.kind == "op" and b.kind == "op" and (a.text + b.text[:1]) in (
        "++", "--", "<<", ">>", "&&", "||", "==", "!=", "<=", ">=", "->", "+=", "-=", "*=", "/=", "::", "//", "/*")


class _IfError(Exception):
    pass


def _i64(v: int) -> int:
    """#if arithmetic is intmax_t's: 64 bits, wrapping (what GCC and Clang do, with a warning)."""
    return (v + (1 << 63)) % (1 << 64) - (1 << 63)


class _IfEval:
    """Integer constant expressions of #if in intmax_t (identifiers left after expansion are 0, as in C)."""

    BIN = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"),
           ("+", "-"), ("*", "/", "%")]

    def __init__(self, toks: list[_Tok]) -> None:
        self.toks = toks
        self.i = 0
        self.depth = 0

    def run(self) -> int:
        if not self.toks:
            raise _IfError("empty expression")
        v = self.cond()
        if self.i != len(self.toks):
            raise _IfError(f"unexpected {self.toks[self.i].text!r}")
        return v

    def peek(self) -> str | None:
        return self.toks[self.i].text if self.i < len(self.toks) else None

    def cond(self) -> int:
        c = self.binary(0)
        if self.peek() == "?":
            self.i += 1
            a = self.cond()
            if self.peek() != ":":
                raise _IfError("expected ':'")
            self.i += 1
            b = self.cond()
            return a if c else b
        return c

    def binary(self, level: int) -> int:
        if level == len(self.BIN):
            return self.unary()
        v = self.binary(level + 1)
        while self.peek() in self.BIN[level]:
            op = self.toks[self.i].text
            self.i += 1
            r = self.binary(level + 1)
            v = _if_op(op, v, r)
        return v

    def unary(self) -> int:
        t = self.peek()
        if t is None:
            raise _IfError("unexpected end")
        if t in ("-", "+", "!", "~", "("):
            self.depth += 1
            if self.depth > MAX_IF_DEPTH:
                raise _IfError(f"expression nested more than {MAX_IF_DEPTH} levels deep")
            self.i += 1
            if t == "(":
                v = self.cond()
                if self.peek() != ")":
                    raise _IfError("expected ')'")
                self.i += 1
            else:
                v = self.unary()
                v = _i64({"-": -v, "+": v, "!": int(not v), "~": ~v}[t])
            self.depth -= 1
            return v
        tok = self.toks[self.i]
        self.i += 1
        if tok.kind == "id":
            return 0
        if tok.kind == "num":
            s = tok.text.rstrip("uUlL").replace("'", "")
            try:
                v = int(s[:70], 0) if not re.fullmatch(r"0\d+", s) else int(s[:70], 8)
            except ValueError:
                raise _IfError(f"bad number {tok.text[:40]!r}") from None
            if len(s) > 70 or v >= 1 << 64:
                raise _IfError(f"integer constant {tok.text[:40]!r} is too large for intmax_t")
            return _i64(v)
        if tok.kind == "chr" and len(tok.text) == 3:
            return ord(tok.text[1])
        raise _IfError(f"unexpected {tok.text!r}")


def _if_op(op: str, a: int, b: int) -> int:
    if op in ("/", "%") and b == 0:
        raise _IfError("division by zero")
    if op in ("<<", ">>") and not 0 <= b < 64:
        raise _IfError(f"shift count {b} is out of range for intmax_t (0..63)")
    return _i64(_if_op_exact(op, a, b))


def _if_op_exact(op: str, a: int, b: int) -> int:
    if op == "/":
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q
    if op == "%":
        return a - b * _if_op_exact("/", a, b)
    return {"||": lambda: int(bool(a or b)), "&&": lambda: int(bool(a and b)), "|": lambda: a | b,
            "^": lambda: a ^ b, "&": lambda: a & b, "==": lambda: int(a == b), "!=": lambda: int(a != b),
            "<": lambda: int(a < b), ">": lambda: int(a > b), "<=": lambda: int(a <= b),
            ">=": lambda: int(a >= b), "<<": lambda: a << b, ">>": lambda: a >> b, "+": lambda: a + b,
            "-": lambda: a - b, "*": lambda: a * b}[op]()
