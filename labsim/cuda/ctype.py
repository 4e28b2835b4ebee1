"""C types of the interpreted subset and their semantics on numpy values.

A value is a numpy scalar (uniform over the thread set) or a numpy array with one entry per thread; a vector
value (float4, dim3, ...) is a tuple of component values. Types are resolved when the kernel is compiled, so
every operator below is chosen once per AST node and then applied to whole arrays.

C semantics kept: integer promotions and the usual arithmetic conversions; 32-bit wrap-around; ``/`` and
``%`` truncating toward zero; float32 arithmetic in float32 (double only where C says double); ``__half``
stored as IEEE binary16.

Limitations: out-of-range float-to-int conversion and over-wide shifts are undefined in C; labsim gives what
the GPU's instructions give (``cvt.rzi`` saturates and maps NaN to 0; ``shl``/``shr`` clamp the shift count to
the width). nvcc fuses ``a * b + c`` into one FMA by default (one rounding); labsim rounds each operation, as
``-fmad=false`` would. ``__half`` operators compute in float32 and round, as sm_53+ half arithmetic does.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .. import memory as _mem


@dataclass(frozen=True, eq=False)
class CType:
    """One C type. ``kind``: bool, int, float, vec, ptr, void, stream."""

    name: str
    kind: str
    dtype: np.dtype | None = None
    rank: int = 0
    signed: bool = True
    fields: tuple[str, ...] = ()
    elem: CType | None = None       # vec component / pointee
    const: bool = False                # pointee const-ness for pointers
    space: str = "global"             # pointers: where the pointee lives
    vdtype: np.dtype | None = None    # vec: structured dtype for memory
    struct: bool = False              # a user struct of 4-byte members: moved member by member

    @cached_property
    def size(self) -> int:       # cached: a CType never changes, and every memory access asks
        if self.kind == "ptr":
            return 8
        return int(self.vdtype.itemsize if self.kind == "vec" and self.vdtype is not None
                   else (self.dtype.itemsize if self.dtype is not None else 0))

    @property
    def is_arith(self) -> bool:
        return self.kind in ("bool", "int", "float")

    @property
    def is_integer(self) -> bool:
        return self.kind in ("bool", "int")

    def same(self, other: CType) -> bool:
        if self.kind == "ptr" and other.kind == "ptr":
            return self.elem.same(other.elem)
        return self.name == other.name if self.kind == other.kind == "vec" else (
            self.kind == other.kind and self.dtype == other.dtype)

    def __repr__(self) -> str:
        return f"CType({self.name})"

    def __str__(self) -> str:
        return self.name


def _t(name, kind, dt, rank, signed=True):
    return CType(name, kind, np.dtype(dt), rank, signed)


BOOL = _t("bool", "bool", np.bool_, 0, False)
CHAR = _t("char", "int", np.int8, 1)
SCHAR = _t("signed char", "int", np.int8, 1)
UCHAR = _t("unsigned char", "int", np.uint8, 1, False)
SHORT = _t("short", "int", np.int16, 2)
USHORT = _t("unsigned short", "int", np.uint16, 2, False)
INT = _t("int", "int", np.int32, 4)
UINT = _t("unsigned int", "int", np.uint32, 4, False)
LONG = _t("long", "int", np.int64, 5)
ULONG = _t("unsigned long", "int", np.uint64, 5, False)
LLONG = _t("long long", "int", np.int64, 6)
ULLONG = _t("unsigned long long", "int", np.uint64, 6, False)
SIZE_T = _t("size_t", "int", np.uint64, 5, False)
HALF = _t("__half", "float", np.float16, 10)
FLOAT = _t("float", "float", np.float32, 11)
DOUBLE = _t("double", "float", np.float64, 12)
VOID = CType("void", "void")
STREAM = CType("cudaStream_t", "stream")


def _vec(name, comp: CType, n: int, vdtype) -> CType:
    return CType(name, "vec", None, 0, True, ("x", "y", "z", "w")[:n], comp, vdtype=np.dtype(vdtype))


def _vdt(fmt: str, n: int):
    return np.dtype([(c, fmt) for c in "xyzw"[:n]])


FLOAT2 = _vec("float2", FLOAT, 2, getattr(_mem, "FLOAT2", _vdt("<f4", 2)))
FLOAT4 = _vec("float4", FLOAT, 4, getattr(_mem, "FLOAT4", _vdt("<f4", 4)))
INT2 = _vec("int2", INT, 2, getattr(_mem, "INT2", _vdt("<i4", 2)))
INT4 = _vec("int4", INT, 4, getattr(_mem, "INT4", _vdt("<i4", 4)))
UINT2 = _vec("uint2", UINT, 2, _vdt("<u4", 2))
UINT4 = _vec("uint4", UINT, 4, _vdt("<u4", 4))
DOUBLE2 = _vec("double2", DOUBLE, 2, getattr(_mem, "DOUBLE2", _vdt("<f8", 2)))
DIM3 = _vec("dim3", UINT, 3, _vdt("<u4", 3))


def _struct_vec(name, comp: CType, n: int) -> CType:
    """A 3-component vector type (float3, char3, ...): aligned to its component, so nvcc moves it member by member
    (measured on the H200: a float3 element costs three 4-byte loads)."""
    return CType(name, "vec", None, 0, True, ("x", "y", "z", "w")[:n], comp,
                 vdtype=np.dtype([(c, comp.dtype) for c in "xyzw"[:n]]), struct=True)


def _builtin_vectors() -> dict[str, CType]:
    """CUDA's vector types up to 16 bytes (vector_types.h): <base>1..4, with 1-, 2- and 4-component types
    aligned to their size (one access) and 3-component ones to their component (one access per member)."""
    bases = {"char": SCHAR, "uchar": UCHAR, "short": SHORT, "ushort": USHORT, "int": INT, "uint": UINT,
             "long": LONG, "ulong": ULONG, "longlong": LLONG, "ulonglong": ULLONG, "float": FLOAT, "double": DOUBLE}
    out = {}
    for base, comp in bases.items():
        for n in (1, 2, 3, 4):
            name = f"{base}{n}"
            size = comp.size * n
            if n == 3:
                out[name] = _struct_vec(name, comp, 3)
            elif size <= 16:
                out[name] = _vec(name, comp, n, _vdt(comp.dtype.str, n))
    for t in (FLOAT2, FLOAT4, INT2, INT4, UINT2, UINT4, DOUBLE2):
        out[t.name] = t
    return out


VECTORS = _builtin_vectors()
UINT3 = VECTORS["uint3"]
# 32-byte vector types labsim does not model (one access moves at most 16 bytes)
WIDE_VECTORS = {f"{b}4" for b in ("long", "ulong", "longlong", "ulonglong", "double")} | {
    "double4_16a", "double4_32a", "long4_16a", "long4_32a", "ulong4_16a", "ulong4_32a", "longlong4_16a",
    "longlong4_32a", "ulonglong4_16a", "ulonglong4_32a"}

# spellings of primitive / sized type specifiers (word multiset -> type)
SCALARS: dict[str, CType] = {
    "bool": BOOL, "char": CHAR, "signed char": SCHAR, "unsigned char": UCHAR,
    "short": SHORT, "short int": SHORT, "signed short": SHORT, "unsigned short": USHORT,
    "unsigned short int": USHORT, "int": INT, "signed": INT, "signed int": INT, "unsigned": UINT,
    "unsigned int": UINT, "long": LONG, "long int": LONG, "signed long": LONG, "unsigned long": ULONG,
    "unsigned long int": ULONG, "long long": LLONG, "long long int": LLONG, "signed long long": LLONG,
    "unsigned long long": ULLONG, "unsigned long long int": ULLONG, "float": FLOAT, "double": DOUBLE,
    "size_t": SIZE_T, "__half": HALF, "half": HALF, "int32_t": INT, "uint32_t": UINT, "int64_t": LLONG,
    "uint64_t": ULLONG, "int8_t": SCHAR, "uint8_t": UCHAR, "int16_t": SHORT, "uint16_t": USHORT,
    "void": VOID, "cudaStream_t": STREAM, "dim3": DIM3, "cudaError_t": INT,
}
SCALARS.update(VECTORS)


def pointer_to(t: CType, const: bool = False, space: str = "global") -> CType:
    return CType(("const " if const else "") + t.name + "*", "ptr", None, 0, True, (), t, const, space)


# ---- conversions -------------------------------------------------------------------------------------------

def promote(t: CType) -> CType:
    """Integer promotion: bool, char, short -> int."""
    return INT if t.kind in ("bool", "int") and t.rank < 4 else t


def common_type(a: CType, b: CType) -> CType:
    """The usual arithmetic conversions (C11 6.3.1.8), with __half op __half -> __half, __half op x -> float."""
    if a.kind == "float" or b.kind == "float":
        if DOUBLE in (a, b) or a.rank == 12 or b.rank == 12:
            return DOUBLE
        if a.rank == 10 and b.rank == 10:
            return HALF
        return FLOAT
    a, b = promote(a), promote(b)
    if a.dtype == b.dtype:
        return a if a.rank >= b.rank else b
    if a.signed == b.signed:
        return a if a.rank > b.rank else b
    u, s = (a, b) if not a.signed else (b, a)
    if u.rank >= s.rank:
        return u
    if s.dtype.itemsize > u.dtype.itemsize:
        return s
    return {LLONG.dtype: ULLONG}.get(s.dtype, UINT)


def _float_to_int(v, dt: np.dtype):
    """cvt.rzi: truncate, saturate to the destination range, NaN -> 0 (what the GPU does)."""
    info = np.iinfo(dt)
    f = np.trunc(np.asarray(v, dtype=np.float64))
    f = np.where(np.isnan(f), 0.0, f)
    hi = f >= float(info.max) + 1.0 if info.bits < 64 else f >= 2.0 ** (63 if info.min < 0 else 64)
    lo = f < float(info.min)
    out = np.where(hi | lo, 0.0, f).astype(dt)
    if hi.any() or lo.any():
        out = np.where(hi, dt.type(info.max), np.where(lo, dt.type(info.min), out))
    return out[()] if out.ndim == 0 else out


def converter(src: CType, dst: CType) -> Callable | None:
    """A function converting values of ``src`` to ``dst`` (None when no conversion is needed)."""
    if dst.kind == "bool":
        if src.kind == "bool":
            return None
        if src.kind == "ptr":
            raise TypeError(f"cannot convert {src} to bool")
        return lambda v: v != 0
    if src.kind not in ("bool", "int", "float") or dst.kind not in ("int", "float"):
        raise TypeError(f"cannot convert {src} to {dst}")
    if src.dtype == dst.dtype:
        return None
    dt = dst.dtype
    if src.kind == "float" and dst.kind == "int":
        return lambda v: _float_to_int(v, dt)
    return lambda v: v.astype(dt)


def convert(v, src: CType, dst: CType):
    f = converter(src, dst)
    return v if f is None else f(v)


def scalar(value, t: CType):
    """A numpy scalar of type ``t`` from a Python number (C conversion semantics)."""
    if t.kind == "bool":
        return np.bool_(bool(value))
    if t.kind == "int":
        if isinstance(value, float):
            return _float_to_int(np.float64(value), t.dtype)
        info = np.iinfo(t.dtype)
        return t.dtype.type((int(value) - info.min) % (1 << info.bits) + info.min)
    return t.dtype.type(value)


# ---- operators ---------------------------------------------------------------------------------------------

def _trunc_div(a, b):
    r = np.fmod(a, b)
    return (a - r) // b


def _signed_ok(b):
    return np.where(b == 0, b.dtype.type(1), b) if isinstance(b, np.ndarray) else (b if b != 0 else b.dtype.type(1))


def int_div(signed: bool) -> Callable:
    """``/`` on integers: truncating; a zero divisor yields -1 (all ones), as the GPU's division sequence."""
    def div(a, b):
        zero = b == 0
        bb = _signed_ok(b)
        q = _trunc_div(a, bb) if signed else a // bb
        if np.any(zero):
            q = np.where(zero, q.dtype.type(-1) if signed else np.iinfo(q.dtype).max, q)
        return q
    return div


def int_mod(signed: bool) -> Callable:
    """``%`` on integers: the sign of the dividend; a zero divisor yields the dividend."""
    def mod(a, b):
        zero = b == 0
        bb = _signed_ok(b)
        r = np.fmod(a, bb) if signed else a % bb
        if np.any(zero):
            r = np.where(zero, a, r)
        return r
    return mod


def shift(op: str, t: CType) -> Callable:
    """``<<``/``>>`` of a value of (promoted) type ``t`` by any integer count, GPU clamping semantics."""
    bits = t.dtype.itemsize * 8
    dt = t.dtype

    def sh(a, n):
        n64 = np.asarray(n).astype(np.int64) if np.ndim(n) else np.int64(n)
        n64 = np.where(n64 < 0, bits, np.minimum(n64, bits))   # negative counts are huge unsigned counts
        big = n64 >= bits
        cnt = np.where(big, 0, n64).astype(dt)
        if op == "<<":
            r = np.left_shift(a, cnt)
            fill = dt.type(0)
        else:
            r = np.right_shift(a, cnt)
            fill = np.right_shift(a, dt.type(bits - 1)) if t.signed else dt.type(0)
        out = np.where(big, fill, r) if np.any(big) else r
        out = np.asarray(out, dtype=dt)
        return out[()] if out.ndim == 0 else out
    return sh


ARITH_OPS = {
    "+": np.add, "-": np.subtract, "*": np.multiply,
    "&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor,
}
COMPARE_OPS = {"<": np.less, ">": np.greater, "<=": np.less_equal, ">=": np.greater_equal,
               "==": np.equal, "!=": np.not_equal}


@dataclass
class BinOp:
    """A binary operator resolved for its operand types."""

    op: str
    left: CType
    right: CType
    result: CType
    operand: CType                      # type both operands are converted to
    fn: Callable = field(repr=False)
    traps: bool = False                 # integer division: the interpreter checks for a zero divisor


def binop(op: str, lt: CType, rt: CType) -> BinOp:
    """Resolve ``lt op rt``; raise TypeError with a compiler-like reason when the operands are invalid."""
    if not (lt.is_arith and rt.is_arith):
        raise TypeError(f"invalid operands to binary expression ('{lt}' {op} '{rt}')")
    if op in ("<<", ">>"):
        if not (lt.is_integer and rt.is_integer):
            raise TypeError(f"invalid operands to binary expression ('{lt}' {op} '{rt}')")
        t = promote(lt)
        return BinOp(op, lt, rt, t, t, shift(op, t))
    ct = common_type(lt, rt)
    if op in COMPARE_OPS:
        return BinOp(op, lt, rt, BOOL, ct, COMPARE_OPS[op])
    if op in ("&&", "||"):
        f = np.logical_and if op == "&&" else np.logical_or
        return BinOp(op, lt, rt, BOOL, BOOL, f)
    if op in ("&", "|", "^", "%") and ct.kind == "float":
        raise TypeError(f"invalid operands to binary expression ('{lt}' {op} '{rt}')")
    if op == "/":
        if ct.kind == "float":
            return BinOp(op, lt, rt, ct, ct, np.true_divide)
        return BinOp(op, lt, rt, ct, ct, int_div(ct.signed), traps=True)
    if op == "%":
        return BinOp(op, lt, rt, ct, ct, int_mod(ct.signed), traps=True)
    if op not in ARITH_OPS:
        raise TypeError(f"unknown operator {op}")
    return BinOp(op, lt, rt, ct, ct, ARITH_OPS[op])


def unop(op: str, t: CType) -> tuple[CType, Callable]:
    """Resolve a unary operator; returns (result type, function on converted operand)."""
    if not t.is_arith:
        raise TypeError(f"invalid argument type '{t}' to unary expression")
    if op == "!":
        return BOOL, lambda v: np.logical_not(v)
    pt = promote(t)
    if op == "-":
        return pt, np.negative
    if op == "+":
        return pt, lambda v: v
    if op == "~":
        if pt.kind != "int":
            raise TypeError(f"invalid argument type '{t}' to unary expression")
        return pt, np.invert
    raise TypeError(f"unknown unary operator {op}")


def parse_number(text: str) -> tuple[object, CType]:
    """A C number literal: (Python value, type), following C's rules for suffixes and unsuffixed sizes."""
    s = text.replace("'", "")
    low = s.lower()
    is_hex = low.startswith("0x")
    if ("." in s or ("e" in low and not is_hex) or ("p" in low and is_hex)) or (
            not is_hex and low.endswith("f") and not low.startswith("0b")):
        suffix = ""
        while low and low[-1] in "fl":
            suffix += low[-1]
            low = low[:-1]
        value = float.fromhex(low) if is_hex else float(low)
        t = FLOAT if "f" in suffix else DOUBLE
        return value, t
    suffix = ""
    while low and low[-1] in "ul":
        suffix = low[-1] + suffix
        low = low[:-1]
    if low.startswith("0b"):
        value = int(low[2:], 2)
    elif is_hex:
        value = int(low, 16)
    elif len(low) > 1 and low.startswith("0"):
        value = int(low, 8)
    else:
        value = int(low)
    unsigned = "u" in suffix
    longs = suffix.count("l")
    decimal = not (is_hex or low.startswith("0b") or (len(low) > 1 and low.startswith("0")))
    cands = []
    if longs == 0:
        cands += [INT] if unsigned is False else []
        cands += [UINT] if (unsigned or not decimal) else []
    if longs <= 1:
        cands += [LONG] if not unsigned else []
        cands += [ULONG] if (unsigned or not decimal) else []
    cands += [LLONG] if not unsigned else []
    cands += [ULLONG] if (unsigned or not decimal) else []
    if unsigned and longs == 0:
        cands = [UINT, ULONG, ULLONG]
    for t in cands:
        info = np.iinfo(t.dtype)
        if value <= info.max:
            return value, t
    raise OverflowError(f"integer literal {text} is too large")
