"""Parse and evaluate an integer constant expression (the blank) without eval.

C++'s rules over the template's names: integer literals (decimal, hex, octal, binary, digit separators, u/l
suffixes), character literals, ``true``/``false``, the names the template defines as ``constexpr int``,
parentheses, unary ``+ - ~ !``, binary ``* / % + - << >> < <= > >= == != & ^ | && ||``, ``?:``, ``sizeof``
and ``alignof`` (of a type or an unevaluated expression), casts to arithmetic types (C-style, functional,
``static_cast``) and floating literals under them (IEEE double or float arithmetic, truncated by the cast).
Truncating ``/`` and ``%``; signed overflow, division by zero and out-of-range conversions are errors (a
compiler rejects them in a constant expression); unsigned arithmetic wraps; operands narrower than int are
promoted. Nothing is executed. What the evaluator cannot decide (a call of a constexpr function, a
qualified name, nesting deeper than a compiler's default limit) raises ConstExprError with ``undecidable``
set: the grader routes it to a person instead of scoring it.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from .ctokens import Token, tokenize

MAX_DEPTH = 100          # nesting the evaluator follows (clang's default -fbracket-depth is 256)
MAX_LITERAL_DIGITS = 64  # any literal that fits in 64 bits is shorter


class ConstExprError(ValueError):
    """The blank is not an integer constant expression (``undecidable``: the evaluator cannot tell);
    ``token`` is where it went wrong (or None)."""

    def __init__(self, message: str, token: Token | None = None, *, undecidable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.token = token
        self.undecidable = undecidable


@dataclass(frozen=True)
class CInt:
    """An integer value with its C type (bits, signedness)."""

    value: int
    bits: int = 32
    signed: bool = True

    def __repr__(self) -> str:
        return f"CInt({self.value}, {'' if self.signed else 'u'}int{self.bits})"


@dataclass(frozen=True)
class CFloat:
    """A floating value: IEEE double (bits 64) or float (bits 32)."""

    value: float
    bits: int = 64

    def __repr__(self) -> str:
        return f"CFloat({self.value}, {'double' if self.bits == 64 else 'float'})"


_BIN_PREC = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, "<=": 7, ">": 7, ">=": 7,
    "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}
_INT_RX = re.compile(r"(?i)(0x[0-9a-f']+|0b[01']+|0[0-7']*|[1-9][0-9']*)(u?l{0,2}|l{1,2}u)$")
_FLOAT_RX = re.compile(r"(?i)((?:\d[\d']*)?\.[\d']*(?:e[+-]?\d+)?|\d[\d']*e[+-]?\d+|\d[\d']*\.)([fl]?)$")

# (bits, signed, integral) of the arithmetic types a cast or sizeof may name; key: the sorted words
_TYPES: dict[tuple[str, ...], tuple[int, bool, bool]] = {}
for words, spec in [
    ("bool", (1, False, True)), ("char", (8, True, True)), ("signed char", (8, True, True)),
    ("unsigned char", (8, False, True)), ("short", (16, True, True)), ("short int", (16, True, True)),
    ("signed short", (16, True, True)), ("unsigned short", (16, False, True)),
    ("unsigned short int", (16, False, True)), ("int", (32, True, True)), ("signed", (32, True, True)),
    ("signed int", (32, True, True)), ("unsigned", (32, False, True)), ("unsigned int", (32, False, True)),
    ("long", (64, True, True)), ("long int", (64, True, True)), ("unsigned long", (64, False, True)),
    ("unsigned long int", (64, False, True)), ("long long", (64, True, True)),
    ("long long int", (64, True, True)), ("unsigned long long", (64, False, True)),
    ("unsigned long long int", (64, False, True)), ("size_t", (64, False, True)),
    ("ptrdiff_t", (64, True, True)), ("int8_t", (8, True, True)), ("uint8_t", (8, False, True)),
    ("int16_t", (16, True, True)), ("uint16_t", (16, False, True)), ("int32_t", (32, True, True)),
    ("uint32_t", (32, False, True)), ("int64_t", (64, True, True)), ("uint64_t", (64, False, True)),
    ("float", (32, True, False)), ("double", (64, True, False)), ("long double", (128, True, False)),
]:
    _TYPES[tuple(sorted(words.split()))] = spec
_TYPE_WORDS = {w for k in _TYPES for w in k}


def _clip(text: str, n: int = 40) -> str:
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= n else text[: n - 1] + "…"


def parse_int_literal(tok: Token) -> CInt:
    """An integer literal with the type C++ gives it (int, then long, per suffix)."""
    if len(tok.text) > MAX_LITERAL_DIGITS:
        raise ConstExprError(f"整数字面量 `{_clip(tok.text)}` 太大（{len(tok.text)} 个字符），任何整数类型都放不下", tok)
    m = _INT_RX.match(tok.text)
    if not m or "''" in tok.text or tok.text.endswith("'"):
        raise ConstExprError(f"`{_clip(tok.text)}` 不是整数字面量", tok)
    digits, suffix = m.group(1).replace("'", ""), m.group(2).lower()
    if digits[:2].lower() == "0x":
        value = int(digits[2:], 16)
    elif digits[:2].lower() == "0b":
        value = int(digits[2:], 2)
    elif len(digits) > 1 and digits[0] == "0":
        value = int(digits[1:], 8)
    else:
        value = int(digits)
    unsigned = "u" in suffix
    decimal = not digits.startswith("0") or digits == "0"
    widths = [64] if "l" in suffix else [32, 64]
    for bits in widths:
        for signed in ([False] if unsigned else ([True] if decimal else [True, False])):
            if value < (1 << (bits - 1 if signed else bits)):
                return CInt(value, bits, signed)
    raise ConstExprError(f"整数字面量 `{_clip(tok.text)}` 太大", tok)


def _float_literal(tok: Token) -> CFloat | None:
    m = _FLOAT_RX.match(tok.text)
    if not m or len(tok.text) > 400:
        return None
    try:
        value = float(m.group(1).replace("'", ""))
    except ValueError:
        return None
    return CFloat(_f32(value), 32) if m.group(2).lower() == "f" else CFloat(value, 64)


def _f32(x: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


def _char_literal(tok: Token) -> CInt:
    body = tok.text[1:-1]
    simple = {"n": 10, "t": 9, "0": 0, "\\": 92, "'": 39, '"': 34, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11}
    if tok.text[0] == "'" and len(body) == 1 and body != "\\":
        return CInt(ord(body) if ord(body) < 128 else ord(body) - 256 * (ord(body) >= 128), 8, True)
    if tok.text[0] == "'" and len(body) == 2 and body[0] == "\\" and body[1] in simple:
        return CInt(simple[body[1]], 8, True)
    raise ConstExprError(f"字符字面量 `{_clip(tok.text)}` 评分程序无法确定它的值", tok, undecidable=True)


def _wrap(value: int, bits: int, signed: bool, tok: Token | None) -> CInt:
    if signed:
        if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
            raise ConstExprError("常量表达式有符号溢出（编译器会拒绝）", tok)
        return CInt(value, bits, True)
    return CInt(value % (1 << bits), bits, False)


def _promote(x: CInt) -> CInt:
    return CInt(x.value, 32, True) if x.bits < 32 else x


def _common(a: CInt, b: CInt) -> tuple[int, bool]:
    a, b = _promote(a), _promote(b)
    bits = max(a.bits, b.bits)
    big = [x for x in (a, b) if x.bits == bits]
    return bits, all(x.signed for x in big)


def _conv(x: CInt, bits: int, signed: bool) -> int:
    return x.value % (1 << bits) if not signed else x.value


def _convert(x: CInt | CFloat, bits: int, signed: bool, integral: bool, tok: Token | None) -> CInt | CFloat:
    """A conversion to an arithmetic type, as static_cast does; UB (a float out of range) is an error."""
    if not integral:
        v = float(x.value)
        return CFloat(_f32(v), 32) if bits == 32 else CFloat(v, 64)
    if bits == 1:                              # bool
        return CInt(int(x.value != 0), 1, False)
    if isinstance(x, CFloat):
        if x.value != x.value or x.value in (float("inf"), float("-inf")):
            raise ConstExprError("把非有限的浮点数转换成整数（编译器会拒绝）", tok)
        v = int(x.value)                       # truncates toward zero
        lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
        if not lo <= v < hi:
            raise ConstExprError("浮点数转换成整数时超出范围（编译器会拒绝）", tok)
        return CInt(v, bits, signed)
    v = x.value % (1 << bits)
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits                         # modular since C++20
    return CInt(v, bits, signed)


Value = CInt | CFloat


class _Parser:
    def __init__(self, toks: list[Token], names: dict[str, int]) -> None:
        self.toks, self.i, self.names = toks, 0, names
        self.depth = 0
        self.unevaluated = 0                   # inside sizeof/alignof: no overflow or division errors

    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def take(self) -> Token:
        tok = self.peek()
        if tok is None:
            last = self.toks[-1] if self.toks else None
            raise ConstExprError("表达式不完整", last)
        self.i += 1
        return tok

    def expect(self, text: str) -> Token:
        tok = self.peek()
        if tok is None or tok.text != text:
            raise ConstExprError(f"这里应为 `{text}`" + (f"，却是 `{_clip(tok.text)}`" if tok else ""), tok)
        return self.take()

    def nest(self, tok: Token | None) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ConstExprError(f"表达式嵌套超过 {MAX_DEPTH} 层，评分程序不再往下算",
                                 tok, undecidable=True)

    def expr(self) -> Value:
        tok0 = self.peek()
        self.nest(tok0)
        cond = self.binary(1)
        tok = self.peek()
        if tok is not None and tok.text == "?":
            self.take()
            a = self.expr()
            self.expect(":")
            b = self.expr()
            result: Value
            if isinstance(a, CFloat) or isinstance(b, CFloat):
                pick = a if _truth(cond) else b
                result = CFloat(float(pick.value), max(x.bits for x in (a, b) if isinstance(x, CFloat)))
            else:
                bits, signed = _common(a, b)
                pick = a if _truth(cond) else b
                result = CInt(_conv(_promote(pick), bits, signed), bits, signed)
            self.depth -= 1
            return result
        self.depth -= 1
        return cond

    def binary(self, min_prec: int) -> Value:
        left = self.unary()
        while True:
            tok = self.peek()
            prec = _BIN_PREC.get(tok.text) if tok is not None and tok.kind == "punct" else None
            if prec is None or prec < min_prec:
                return left
            self.take()
            right = self.binary(prec + 1)
            left = _apply(tok, left, right, strict=not self.unevaluated)

    def unary(self) -> Value:
        ops: list[Token] = []                  # prefix operators, applied innermost first (no recursion)
        while (tok := self.peek()) is not None and tok.kind == "punct" and tok.text in ("+", "-", "~", "!"):
            ops.append(self.take())
        x = self.primary()
        for tok in reversed(ops):
            x = _unary(tok, x, strict=not self.unevaluated)
        return x

    def primary(self) -> Value:
        tok = self.take()
        if tok.kind == "punct" and tok.text == "(":
            cast = self.type_name()
            if cast is not None:
                self.expect(")")
                self.nest(tok)
                x = _convert(self.unary(), *cast, tok)
                self.depth -= 1
                return x
            x = self.expr()
            while (nxt := self.peek()) is not None and nxt.text == ",":     # the comma operator
                self.take()
                x = self.expr()
            self.expect(")")
            return x
        if tok.kind == "number":
            if (f := _float_literal(tok)) is not None:
                return f
            return parse_int_literal(tok)
        if tok.kind == "char":
            return _char_literal(tok)
        if tok.kind == "ident":
            if tok.text in ("true", "false"):
                return CInt(int(tok.text == "true"), 1, False)
            if tok.text in ("sizeof", "alignof", "_Alignof", "__alignof__"):
                return self.size_of(tok)
            if tok.text == "static_cast":
                self.expect("<")
                cast = self.type_name()
                if cast is None:
                    raise ConstExprError("static_cast 的目标类型评分程序不认识", self.peek(), undecidable=True)
                self.expect(">")
                self.expect("(")
                x = _convert(self.expr(), *cast, tok)
                self.expect(")")
                return x
            if tok.text in _TYPE_WORDS:
                self.i -= 1
                cast = self.type_name()
                if cast is not None and self.peek() is not None and self.peek().text == "(":
                    self.take()
                    x = _convert(self.expr(), *cast, tok)
                    self.expect(")")
                    return x
                raise ConstExprError(f"类型名 `{tok.text}` 不能单独出现在表达式里", tok)
            nxt = self.peek()
            if tok.text not in self.names and nxt is not None and nxt.text in ("::", "("):
                raise ConstExprError(f"`{_clip(tok.text)}{nxt.text}…` 是函数调用或限定名，评分程序不计算函数，无法判断"
                                     "它是不是常量表达式", tok, undecidable=True)
            if tok.text in self.names:
                return CInt(self.names[tok.text])
            allowed = "、".join(self.names) or "（无）"
            raise ConstExprError(f"`{_clip(tok.text)}` 不能用在这里，只能用整数字面量和模板里的常量 {allowed}", tok)
        if tok.kind == "punct" and tok.text == "::":
            raise ConstExprError("限定名（`::`）评分程序无法判断", tok, undecidable=True)
        raise ConstExprError(f"`{_clip(tok.text)}` 不能出现在整数常量表达式里", tok)

    def type_name(self) -> tuple[int, bool, bool] | None:
        """A type spelled from here (consumed), as (bits, signed, integral); None (nothing consumed) if not."""
        j, words = self.i, []
        while (tok := self.peek(j - self.i + len(words))) is not None:
            text = tok.text
            if text == "std" and not words and (nxt := self.peek(j - self.i + 1)) is not None and nxt.text == "::":
                j += 2
                continue
            if text in _TYPE_WORDS or text in ("const", "volatile"):
                words.append(text)
                continue
            break
        core = tuple(sorted(w for w in words if w not in ("const", "volatile")))
        if not core or core not in _TYPES:
            return None
        self.i = j + len(words)
        return _TYPES[core]

    def size_of(self, tok: Token) -> CInt:
        align = tok.text != "sizeof"
        nxt = self.peek()
        if nxt is not None and nxt.text == "(":
            save = self.i
            self.take()
            t = self.type_name()
            if t is not None and self.peek() is not None and self.peek().text == ")":
                self.take()
                return CInt(max(t[0], 8) // 8, 64, False)
            self.i = save
        if align:
            raise ConstExprError(f"`{tok.text}` 需要一个类型", tok)
        self.unevaluated += 1
        self.nest(tok)
        x = self.unary()
        self.depth -= 1
        self.unevaluated -= 1
        return CInt(max(x.bits, 8) // 8, 64, False)


def _truth(x: Value) -> bool:
    return x.value != 0


def _unary(tok: Token, x: Value, *, strict: bool) -> Value:
    if isinstance(x, CFloat):
        if tok.text == "+":
            return x
        if tok.text == "-":
            return CFloat(-x.value, x.bits)
        if tok.text == "!":
            return CInt(int(x.value == 0), 1, False)
        raise ConstExprError("`~` 不能用于浮点数", tok)
    if tok.text == "!":
        return CInt(int(x.value == 0), 1, False)
    x = _promote(x)
    if tok.text == "+":
        return x
    if tok.text == "-":
        return _wrap(-x.value, x.bits, x.signed, tok) if strict else _quiet(-x.value, x)
    return _wrap(~x.value if x.signed else (~x.value) % (1 << x.bits), x.bits, x.signed, tok)


def _quiet(value: int, like: CInt) -> CInt:
    return CInt(value % (1 << like.bits), like.bits, like.signed) if not like.signed else \
        CInt(((value + (1 << (like.bits - 1))) % (1 << like.bits)) - (1 << (like.bits - 1)), like.bits, True)


def _apply(tok: Token, a: Value, b: Value, *, strict: bool = True) -> Value:
    op = tok.text
    if op in ("&&", "||"):
        r = (_truth(a) and _truth(b)) if op == "&&" else (_truth(a) or _truth(b))
        return CInt(int(r), 1, False)
    if isinstance(a, CFloat) or isinstance(b, CFloat):
        return _apply_float(tok, a, b)
    if op in ("<<", ">>"):
        a = _promote(a)
        bits, signed = a.bits, a.signed
        if b.value < 0 or b.value >= bits:
            if not strict:
                return CInt(0, bits, signed)
            raise ConstExprError(f"移位位数 {b.value} 超出范围（0..{bits - 1}）", tok)
        if op == ">>":
            return CInt(a.value >> b.value, bits, signed)
        if signed and a.value < 0 and strict:
            raise ConstExprError("负数左移在常量表达式里不允许", tok)
        return _wrap(a.value << b.value, bits, signed, tok) if strict else _quiet(a.value << b.value, a)
    bits, signed = _common(a, b)
    x, y = _conv(_promote(a), bits, signed), _conv(_promote(b), bits, signed)
    if op in ("<", "<=", ">", ">=", "==", "!="):
        r = {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]
        return CInt(int(r), 1, False)
    like = CInt(0, bits, signed)
    if op in ("/", "%"):
        if y == 0:
            if not strict:
                return like
            raise ConstExprError("除以零", tok)
        q = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)  # C truncates toward zero
        r = q if op == "/" else x - q * y
    else:
        r = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "^": x ^ y, "|": x | y}[op]
    return _wrap(r, bits, signed, tok) if strict else _quiet(r, like)


def _apply_float(tok: Token, a: Value, b: Value) -> Value:
    op = tok.text
    if op in ("%", "<<", ">>", "&", "^", "|"):
        raise ConstExprError(f"`{op}` 不能用于浮点数", tok)
    bits = max(x.bits for x in (a, b) if isinstance(x, CFloat))
    x, y = float(a.value), float(b.value)
    if op in ("<", "<=", ">", ">=", "==", "!="):
        r = {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]
        return CInt(int(r), 1, False)
    if op == "/" and y == 0:
        raise ConstExprError("除以零", tok)
    v = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "/": lambda: x / y}[op]()
    return CFloat(_f32(v), 32) if bits == 32 else CFloat(v, 64)


def evaluate_tokens(toks: list[Token], names: dict[str, int]) -> int:
    """Value of the expression spelled by ``toks``; raises ConstExprError naming the offending token."""
    if not toks:
        raise ConstExprError("填空是空的", None)
    for tok in toks:
        if tok.kind in ("error", "pp", "string"):
            raise ConstExprError(f"`{_clip(tok.text)}` 不能出现在整数常量表达式里", tok)
    p = _Parser(toks, names)
    value = p.expr()
    extra = p.peek()
    if extra is not None:
        raise ConstExprError(f"表达式在 `{_clip(extra.text)}` 处多出了内容", extra)
    if isinstance(value, CFloat):
        raise ConstExprError("数组大小必须是整数类型，这个表达式的值是浮点数（编译器会拒绝）", toks[0])
    return value.value
def evaluate(text: str, names: dict[str, int]) -> int:
    """Convenience: tokenize and evaluate ``text``."""
    return evaluate_tokens(tokenize(text), names)


def constexpr_names(source: str) -> dict[str, int]:
    """The ``constexpr int NAME = <expr>;`` definitions of a source, evaluated in order."""
    toks = tokenize(source)
    names: dict[str, int] = {}
    for i in range(len(toks) - 4):
        if toks[i].text == "constexpr" and toks[i + 1].text == "int" and toks[i + 2].kind == "ident" \
                and toks[i + 3].text == "=":
            j = i + 4
            while j < len(toks) and toks[j].text != ";":
                j += 1
            names[toks[i + 2].text] = evaluate_tokens(toks[i + 4:j], names)
    return names
