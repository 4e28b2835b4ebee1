"""Parse and evaluate an integer constant expression (the blank) without eval.

Accepted: integer literals (decimal, hex, octal, binary, digit separators, u/l suffixes), the names the
template defines as ``constexpr int``, parentheses, unary ``+ - ~ !``, binary ``* / % + - << >> < <= > >=
== != & ^ | && ||`` and ``?:``, with C++ semantics: truncating ``/`` and ``%``, signed overflow and division
by zero are errors (a compiler rejects them in a constant expression), unsigned arithmetic wraps.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .ctokens import Token, tokenize


class ConstExprError(ValueError):
    """The blank is not an integer constant expression; ``token`` is where it went wrong (or None)."""

    def __init__(self, message: str, token: Token | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.token = token


@dataclass(frozen=True)
class CInt:
    """An integer value with its C type (bits, signedness)."""

    value: int
    bits: int = 32
    signed: bool = True

    def __repr__(self) -> str:
        return f"CInt({self.value}, {'' if self.signed else 'u'}int{self.bits})"


_BIN_PREC = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, "<=": 7, ">": 7, ">=": 7,
    "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}
_INT_RX = re.compile(r"(?i)(0x[0-9a-f']+|0b[01']+|0[0-7']*|[1-9][0-9']*)(u?l{0,2}|l{1,2}u)$")


def parse_int_literal(tok: Token) -> CInt:
    """An integer literal with the type C++ gives it (int, then long, per suffix)."""
    m = _INT_RX.match(tok.text)
    if not m or "''" in tok.text or tok.text.endswith("'"):
        raise ConstExprError(f"`{tok.text}` 不是整数字面量", tok)
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
    raise ConstExprError(f"整数字面量 `{tok.text}` 太大", tok)


def _wrap(value: int, bits: int, signed: bool, tok: Token | None) -> CInt:
    if signed:
        if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
            raise ConstExprError("常量表达式有符号溢出（编译器会拒绝）", tok)
        return CInt(value, bits, True)
    return CInt(value % (1 << bits), bits, False)


def _common(a: CInt, b: CInt) -> tuple[int, bool]:
    bits = max(a.bits, b.bits)
    big = [x for x in (a, b) if x.bits == bits]
    return bits, all(x.signed for x in big)


def _conv(x: CInt, bits: int, signed: bool) -> int:
    v = x.value % (1 << bits) if not signed else x.value
    return v


class _Parser:
    def __init__(self, toks: list[Token], names: dict[str, int]) -> None:
        self.toks, self.i, self.names = toks, 0, names

    def peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

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
            raise ConstExprError(f"这里应为 `{text}`" + (f"，却是 `{tok.text}`" if tok else ""), tok)
        return self.take()

    def expr(self) -> CInt:
        cond = self.binary(1)
        tok = self.peek()
        if tok is not None and tok.text == "?":
            self.take()
            a = self.expr()
            self.expect(":")
            b = self.expr()
            bits, signed = _common(a, b)
            pick = a if cond.value != 0 else b
            return CInt(_conv(pick, bits, signed), bits, signed)
        return cond

    def binary(self, min_prec: int) -> CInt:
        left = self.unary()
        while True:
            tok = self.peek()
            prec = _BIN_PREC.get(tok.text) if tok is not None and tok.kind == "punct" else None
            if prec is None or prec < min_prec:
                return left
            self.take()
            right = self.binary(prec + 1)
            left = _apply(tok, left, right)

    def unary(self) -> CInt:
        tok = self.take()
        if tok.kind == "punct" and tok.text in ("+", "-", "~", "!"):
            x = self.unary()
            if x.bits < 32:
                x = CInt(x.value, 32, True)
            if tok.text == "+":
                return x
            if tok.text == "-":
                return _wrap(-x.value, x.bits, x.signed, tok)
            if tok.text == "~":
                return _wrap(~x.value if x.signed else (~x.value) % (1 << x.bits), x.bits, x.signed, tok)
            return CInt(int(x.value == 0))
        if tok.kind == "punct" and tok.text == "(":
            x = self.expr()
            self.expect(")")
            return x
        if tok.kind == "number":
            return parse_int_literal(tok)
        if tok.kind == "ident":
            if tok.text in self.names:
                return CInt(self.names[tok.text])
            allowed = "、".join(self.names) or "（无）"
            raise ConstExprError(f"`{tok.text}` 不能用在这里：只能用整数字面量和模板里的常量 {allowed}", tok)
        raise ConstExprError(f"`{tok.text}` 不能出现在整数常量表达式里", tok)


def _apply(tok: Token, a: CInt, b: CInt) -> CInt:
    op = tok.text
    if op in ("&&", "||"):
        r = (a.value != 0 and b.value != 0) if op == "&&" else (a.value != 0 or b.value != 0)
        return CInt(int(r))
    if op in ("<<", ">>"):
        bits, signed = a.bits, a.signed
        if b.value < 0 or b.value >= bits:
            raise ConstExprError(f"移位位数 {b.value} 超出范围（0..{bits - 1}）", tok)
        if op == ">>":
            return CInt(a.value >> b.value, bits, signed)
        if signed and a.value < 0:
            raise ConstExprError("负数左移在常量表达式里不允许", tok)
        return _wrap(a.value << b.value, bits, signed, tok)
    bits, signed = _common(a, b)
    x, y = _conv(a, bits, signed), _conv(b, bits, signed)
    if op in ("<", "<=", ">", ">=", "==", "!="):
        r = {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]
        return CInt(int(r))
    if op in ("/", "%"):
        if y == 0:
            raise ConstExprError("除以零", tok)
        q = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)  # C truncates toward zero
        return _wrap(q if op == "/" else x - q * y, bits, signed, tok)
    r = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "^": x ^ y, "|": x | y}[op]
    return _wrap(r, bits, signed, tok)


def evaluate_tokens(toks: list[Token], names: dict[str, int]) -> int:
    """Value of the expression spelled by ``toks``; raises ConstExprError naming the offending token."""
    if not toks:
        raise ConstExprError("填空是空的", None)
    for tok in toks:
        if tok.kind in ("error", "pp", "string", "char"):
            raise ConstExprError(f"`{tok.text}` 不能出现在整数常量表达式里", tok)
    p = _Parser(toks, names)
    value = p.expr()
    extra = p.peek()
    if extra is not None:
        raise ConstExprError(f"表达式在 `{extra.text}` 处多出了内容", extra)
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
