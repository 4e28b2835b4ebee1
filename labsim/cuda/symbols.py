"""Compile-time objects: symbols in scope, compiled expressions and lvalues, compiled functions."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .ctype import CType


@dataclass
class E:
    """A compiled expression: static type, evaluator ``ev(ctx) -> value``, and its constant value if any.

    ``pure``: no side effects, no memory access and no trap, so it may be evaluated for every lane at once
    without a mask (``&&``, ``||`` and ``?:`` use it to skip pushing masks).
    """

    t: CType
    ev: Callable
    k: Any = None
    pure: bool = True
    lv: LV | None = None      # set when the expression designates an object (for &, =, ++)
    arr: ArraySym | None = None  # set when it names an array (decays to a pointer)

    def __repr__(self) -> str:
        return f"E({self.t}{', const ' + repr(self.k) if self.k is not None else ''})"


@dataclass
class LV:
    """An lvalue: ``locate(ctx) -> loc`` once, then ``get(ctx, loc)`` / ``put(ctx, loc, value)``.

    ``addr(ctx, loc) -> Ptr`` when the object lives in device memory (for ``&`` and atomics).
    """

    t: CType
    locate: Callable
    get: Callable
    put: Callable
    addr: Callable | None = None
    name: str = ""
    const: bool = False
    kind: str = "var"        # var, mem, local
    line: int = 0            # source line of a memory access
    space: str = "global"    # where a memory lvalue lives


@dataclass
class Sym:
    """A name in scope."""

    name: str
    kind: str                 # var, const, array, func
    t: CType | None = None
    slot: int = -1
    value: Any = None         # const: numpy scalar
    const: bool = False
    node: Any = None


@dataclass
class ArraySym(Sym):
    """A declared array: __shared__ (one per block), or a per-thread local array."""

    space: str = "shared"     # shared | local
    dims: tuple[int, ...] = ()
    extern: bool = False


@dataclass
class FuncDef:
    """A function definition found in the translation unit."""

    name: str
    quals: frozenset
    ret: CType
    params: list[tuple[str, CType, Any]]
    body: Any
    node: Any

    @property
    def is_kernel(self) -> bool:
        return "__global__" in self.quals

    @property
    def is_device(self) -> bool:
        return "__device__" in self.quals

    @property
    def is_host(self) -> bool:
        return "__host__" in self.quals or not (self.is_kernel or self.is_device)

    def __repr__(self) -> str:
        q = " ".join(sorted(self.quals))
        return f"FuncDef({q} {self.ret} {self.name}({', '.join(str(t) for _, t, _ in self.params)}))"


@dataclass
class SharedDecl:
    """A __shared__ array to allocate at kernel entry (static ones in declaration order)."""

    slot: int
    name: str
    elem: CType
    dims: tuple[int, ...]
    line: int
    extern: bool = False


@dataclass
class FunctionCode:
    """A kernel or host function compiled to closures."""

    name: str
    kind: str                                  # kernel | host
    params: list[tuple[str, CType]]
    param_slots: list[int]
    body: Callable
    nslots: int
    njm: int
    shared: list[SharedDecl] = field(default_factory=list)
    coords: list[tuple[int, str]] = field(default_factory=list)
    line: int = 0
    local_bytes: int = 0                       # per-thread arrays, bytes per thread

    def __repr__(self) -> str:
        ps = ", ".join(f"{t} {n}" for n, t in self.params)
        return f"FunctionCode({self.kind} {self.name}({ps}))"
