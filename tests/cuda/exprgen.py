"""Random C expression trees over int, unsigned and float, with an independent reference evaluator.

The reference is plain Python: integers are exact and wrapped to 32 bits after every operation; float32
results are computed in binary64 and rounded once to binary32 (exact for + - * /, since binary64 has more
than 2 * 24 + 2 bits), using numpy only for that rounding. Expressions avoid C's undefined behaviour
(zero or INT_MIN / -1 divisions, over-wide or negative shifts, out-of-range float-to-int casts) so that gcc
gives the same answers as the C standard promises.
"""
from __future__ import annotations

import math

import numpy as np

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
FLOAT_LITS = ["0.0f", "1.0f", "-1.0f", "0.5f", "-0.25f", "3.0f", "1.5e3f", "-7.125f", "1e-3f", "65504.0f",
              "3.4e38f", "1.17549435e-38f"]


def w32(v: int) -> int:
    return ((v - INT_MIN) % (1 << 32)) + INT_MIN


def u32(v: int) -> int:
    return v % (1 << 32)


def f32(v: float) -> float:
    with np.errstate(over="ignore"):
        return float(np.float32(v))


def c_int_lit(v: int) -> str:
    return "(-2147483647 - 1)" if v == INT_MIN else (f"({v})" if v < 0 else str(v))


def _conv(value, src: str, dst: str):
    if dst == src:
        return value
    if dst == "I":
        return w32(int(value))
    if dst == "U":
        return u32(int(value))
    if dst == "F":
        return f32(float(value))
    if dst == "D":
        return float(value)
    raise ValueError(dst)


def _common(a: str, b: str) -> str:
    if "D" in (a, b):
        return "D"
    if "F" in (a, b):
        return "F"
    if "U" in (a, b):
        return "U"
    return "I"


def _cdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


class Expr:
    """A generated expression: C text, type ('I', 'U', 'F', 'D') and a reference evaluator env -> value."""

    def __init__(self, text: str, t: str, ev) -> None:
        self.text, self.t, self.ev = text, t, ev

    def __repr__(self) -> str:
        return f"Expr({self.t}: {self.text})"


def gen_int(r, depth: int) -> Expr:
    """An int- or unsigned-typed expression. ``r`` offers randint(a, b) and choice(seq)."""
    if depth <= 0 or r.randint(0, 4) == 0:
        k = r.randint(0, 5)
        if k == 0:
            v = r.choice([0, 1, -1, 7, 31, INT_MAX, INT_MIN, 65536, -65537, 123456789])
            return Expr(c_int_lit(v), "I", lambda env, v=v: v)
        if k == 1:
            v = r.choice([0, 1, 4294967295, 2147483648, 3000000000])
            return Expr(f"{v}u", "U", lambda env, v=v: v)
        name = r.choice(["a", "b", "c"])
        if k == 5:
            return Expr(f"(unsigned){name}", "U", lambda env, n=name: u32(env[n]))
        return Expr(name, "I", lambda env, n=name: env[n])
    op = r.choice(["+", "-", "*", "&", "|", "^", "/", "%", "<<", ">>", "cmp", "neg", "not", "lnot", "ternary",
                   "cast", "and", "or", "ftoi"])
    if op in ("+", "-", "*", "&", "|", "^"):
        a, b = gen_int(r, depth - 1), gen_int(r, depth - 1)
        t = _common(a.t, b.t)
        wrap = w32 if t == "I" else u32
        fn = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
              "&": lambda x, y: x & y, "|": lambda x, y: x | y, "^": lambda x, y: x ^ y}[op]
        return Expr(f"({a.text} {op} {b.text})", t,
                    lambda env: wrap(fn(_conv(a.ev(env), a.t, t), _conv(b.ev(env), b.t, t))))
    if op in ("/", "%"):
        a, d = gen_int(r, depth - 1), gen_int(r, depth - 1)
        neg = r.randint(0, 1) and d.t == "I"
        # divisor in 1..128 (or -2..-129): never zero, never INT_MIN / -1
        dtext = f"(-(({d.text} & 127) + 2))" if neg else f"(({d.text} & 127) + 1)"

        def dv(env, d=d, neg=neg):
            v = (d.ev(env) & 127)
            return -(v + 2) if neg else v + 1
        t = _common(a.t, d.t)
        wrap = w32 if t == "I" else u32

        def ev(env, a=a, t=t, op=op):
            x, y = _conv(a.ev(env), a.t, t), _conv(dv(env), d.t, t)
            if t == "U":
                return x // y if op == "/" else x % y
            q = _cdiv(x, y)
            return wrap(q if op == "/" else x - q * y)
        return Expr(f"({a.text} {op} {dtext})", t, ev)
    if op == "<<":
        a, s = gen_int(r, depth - 1), gen_int(r, depth - 1)
        # shift the unsigned bits (signed overflow in << is undefined), then back to the left type
        text = f"(({a.text}) << ({s.text} & 31))" if a.t == "U" else f"((int)((unsigned)({a.text}) << ({s.text} & 31)))"
        return Expr(text, a.t, lambda env: (u32 if a.t == "U" else w32)(u32(a.ev(env)) << (s.ev(env) & 31)))
    if op == ">>":
        a, s = gen_int(r, depth - 1), gen_int(r, depth - 1)
        return Expr(f"({a.text} >> ({s.text} & 31))", a.t, lambda env: a.ev(env) >> (s.ev(env) & 31))
    if op == "cmp":
        a, b = gen_int(r, depth - 1), gen_int(r, depth - 1)
        c = r.choice(["<", ">", "<=", ">=", "==", "!="])
        t = _common(a.t, b.t)
        fn = {"<": lambda x, y: x < y, ">": lambda x, y: x > y, "<=": lambda x, y: x <= y,
              ">=": lambda x, y: x >= y, "==": lambda x, y: x == y, "!=": lambda x, y: x != y}[c]
        return Expr(f"({a.text} {c} {b.text})", "I",
                    lambda env: int(fn(_conv(a.ev(env), a.t, t), _conv(b.ev(env), b.t, t))))
    if op == "neg":
        a = gen_int(r, depth - 1)
        return Expr(f"(- {a.text})", a.t, lambda env: (w32 if a.t == "I" else u32)(-a.ev(env)))
    if op == "not":
        a = gen_int(r, depth - 1)
        return Expr(f"(~{a.text})", a.t, lambda env: (w32 if a.t == "I" else u32)(~a.ev(env)))
    if op == "lnot":
        a = gen_int(r, depth - 1)
        return Expr(f"(!{a.text})", "I", lambda env: int(a.ev(env) == 0))
    if op in ("and", "or"):
        a, b = gen_int(r, depth - 1), gen_int(r, depth - 1)
        if op == "and":
            return Expr(f"({a.text} && {b.text})", "I", lambda env: int(a.ev(env) != 0 and b.ev(env) != 0))
        return Expr(f"({a.text} || {b.text})", "I", lambda env: int(a.ev(env) != 0 or b.ev(env) != 0))
    if op == "ternary":
        c, a, b = gen_int(r, depth - 1), gen_int(r, depth - 1), gen_int(r, depth - 1)
        t = _common(a.t, b.t)
        return Expr(f"({c.text} ? {a.text} : {b.text})", t,
                    lambda env: _conv(a.ev(env), a.t, t) if c.ev(env) else _conv(b.ev(env), b.t, t))
    if op == "ftoi":
        x = r.choice(["x", "y"])   # |x| < 1e6: the cast truncates toward zero, in range
        return Expr(f"((int){x})", "I", lambda env, x=x: int(math.trunc(env[x])))
    a = gen_int(r, depth - 1)
    t = r.choice(["I", "U"])
    return Expr(f"(({'int' if t == 'I' else 'unsigned'}){a.text})", t, lambda env: _conv(a.ev(env), a.t, t))


def gen_float(r, depth: int) -> Expr:
    """A float-typed expression (double only inside, where a double literal makes C use double)."""
    if depth <= 0 or r.randint(0, 3) == 0:
        k = r.randint(0, 3)
        if k == 0:
            lit = r.choice(FLOAT_LITS)
            v = f32(float(lit[:-1]))
            return Expr(lit, "F", lambda env, v=v: v)
        if k == 1:
            i = gen_int(r, min(depth, 2))
            return Expr(f"((float){i.text})", "F", lambda env: f32(i.ev(env)))
        name = r.choice(["x", "y"])
        return Expr(name, "F", lambda env, n=name: env[n])
    op = r.choice(["+", "-", "*", "/", "neg", "ternary", "fmin", "fmax", "dbl", "mixed"])
    if op in ("+", "-", "*", "/"):
        a, b = gen_float(r, depth - 1), gen_float(r, depth - 1)
        return Expr(f"({a.text} {op} {b.text})", "F", lambda env: _fop(op, a.ev(env), b.ev(env), f32))
    if op == "mixed":   # float op int: the int converts to float first
        a, i = gen_float(r, depth - 1), gen_int(r, 2)
        o = r.choice(["+", "-", "*"])
        return Expr(f"({a.text} {o} {i.text})", "F", lambda env: _fop(o, a.ev(env), f32(i.ev(env)), f32))
    if op == "dbl":     # float * 0.1 is double arithmetic in C, then rounded back to float
        a = gen_float(r, depth - 1)
        return Expr(f"((float)({a.text} * 0.1))", "F", lambda env: f32(_fop("*", a.ev(env), 0.1, float)))
    if op == "neg":
        a = gen_float(r, depth - 1)
        return Expr(f"(- {a.text})", "F", lambda env: -a.ev(env))
    if op in ("fmin", "fmax"):
        a, b = gen_float(r, depth - 1), gen_float(r, depth - 1)
        # "+ 0.0f" turns -0 into +0: fminf(-0, +0) may return either zero (C leaves it open)
        return Expr(f"({op}f({a.text}, {b.text}) + 0.0f)", "F", lambda env: _fminmax(op, a.ev(env), b.ev(env)) + 0.0)
    c1, c2 = gen_float(r, depth - 1), gen_float(r, depth - 1)
    a, b = gen_float(r, depth - 1), gen_float(r, depth - 1)
    cmp = r.choice(["<", ">", "<=", ">=", "==", "!="])
    fn = {"<": lambda x, y: x < y, ">": lambda x, y: x > y, "<=": lambda x, y: x <= y,
          ">=": lambda x, y: x >= y, "==": lambda x, y: x == y, "!=": lambda x, y: x != y}[cmp]
    return Expr(f"(({c1.text} {cmp} {c2.text}) ? {a.text} : {b.text})", "F",
                lambda env: a.ev(env) if fn(c1.ev(env), c2.ev(env)) else b.ev(env))


def _fop(op: str, x: float, y: float, rnd) -> float:
    try:
        if op == "+":
            v = x + y
        elif op == "-":
            v = x - y
        elif op == "*":
            v = x * y
        else:
            if y == 0.0:
                if x == 0.0 or math.isnan(x):
                    return math.nan
                return math.copysign(math.inf, x) * math.copysign(1.0, y)
            v = x / y
    except OverflowError:
        return math.nan
    return rnd(v)


def _fminmax(op: str, x: float, y: float) -> float:
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    return min(x, y) if op == "fmin" else max(x, y)
