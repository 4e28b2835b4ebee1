"""Compile-time objects: symbols in scope, compiled expressions and lvalues, compiled functions."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .ctype import CType


@dataclass
class CompiledExpr:
    """A compiled expression: static type, evaluator ``ev(ctx) -> value``, and its constant value if any.

    ``pure``: no side effects, no memory access and no trap, so it may be evaluated for every lane at once
    without a mask (``&&``, ``||`` and ``?:`` use it to skip pushing masks).
    """

    t: CType
    ev: Callable
    k: Any = None
    pure: bool = True
    lv: LValue | None = None      # set when the expression designates an object (for &, =, ++)
    arr: ArraySym | None = None  # set when it names an array (decays to a pointer)

    def __repr__(self) -> str:
        return f"E({self.t}{', const ' + repr(self.k) if self.k is not None else ''})"


@dataclass
class LValue:
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
    col: int | None = None   # source column of a memory access (its instruction site with ``line``)


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

    space: str = "shared"     # shared | local | constant
    dims: tuple[int, ...] = ()
    extern: bool = False
    store: Any = None         # constant: the ConstantMemory holding its bytes (one per program)


class ConstantMemory:
    """A ``__constant__`` variable's storage: one per program, kept across launches, written by
    ``cudaMemcpyToSymbol`` in host code or ``Program.set_constant``."""

    def __init__(self, name: str, dtype, shape: tuple[int, ...]) -> None:
        import numpy as np
        self.name = name
        self.shape = shape
        self.data = np.zeros(int(np.prod(shape, dtype=np.int64)) if shape else 1, dtype=dtype)

    def __repr__(self) -> str:
        return f"ConstantMemory({self.name!r}, {self.data.dtype}, shape={self.shape})"


@dataclass
class FuncDef:
    """A function definition found in the translation unit."""

    name: str
    quals: frozenset
    ret: CType
    params: list[tuple[str, CType, Any]]
    body: Any
    node: Any
    tbind: dict = field(default_factory=dict)   # a template instance: parameter name -> CType or const Sym

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
class TemplateDef:
    """A function template: its parameters ("int" or "type", name, default node) and its definition."""

    name: str
    params: list
    fnode: Any
    prefix: str = ""

    def __repr__(self) -> str:
        return f"TemplateDef({self.name}<{', '.join(n for _, n, _ in self.params)}>)"


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
    rules: dict = field(default_factory=dict)  # source rules' candidates (Compiler.source_rules)
    restrict: frozenset = frozenset()          # indices of the __restrict__ pointer parameters

    def __repr__(self) -> str:
        ps = ", ".join(f"{t} {n}" for n, t in self.params)
        return f"FunctionCode({self.kind} {self.name}({ps}))"


AUTO = CType("auto", "auto")
MAX_INLINE_DEPTH = 24

# node types outside the subset, with the name a student would recognise
UNSUPPORTED = {
    "gnu_asm_expression": "inline asm", "asm_statement": "inline asm", "ms_based_modifier": "inline asm",
    "new_expression": "new (dynamic allocation)", "delete_expression": "delete (dynamic allocation)",
    "lambda_expression": "lambda expressions", "template_instantiation": "explicit template instantiations", "goto_statement": "goto", "labeled_statement": "labels and goto",
    "switch_statement": "switch statements", "case_statement": "switch statements",
    "struct_specifier": "struct types", "class_specifier": "classes", "union_specifier": "unions",
    "enum_specifier": "enums", "try_statement": "exceptions", "throw_statement": "exceptions",
    "this": "this", "nullptr": "null pointers", "null": "null pointers", "type_definition": "typedef",
    "alias_declaration": "type aliases (using X = ...)", "for_range_loop": "range-based for loops",
    "co_await_expression": "coroutines", "co_return_statement": "coroutines", "co_yield_statement": "coroutines",
    "concatenated_string": "string literals", "string_literal": "string literals (printf and friends)",
    "raw_string_literal": "string literals", "compound_literal_expression": "compound literals",
    "reference_declarator": "references (T&)", "abstract_reference_declarator": "references (T&)",
    "operator_name": "operator overloading", "destructor_name": "classes", "fold_expression": "templates",
    "requires_expression": "templates", "user_defined_literal": "user-defined literals",
    "seh_try_statement": "exceptions", "offsetof_expression": "offsetof", "gnu_asm_qualifier": "inline asm",
    "template_type": "templates", "dependent_type": "templates", "decltype": "decltype",
}


class Reparse(Exception):
    """Raised when a cast's "type" turns out to be a variable: the caller parenthesises it and parses again."""

    def __init__(self, node) -> None:
        super().__init__("reparse")
        self.start_byte, self.end_byte = node.start_byte, node.end_byte


@dataclass
class FnState:
    """The function being compiled (an entry function, or a device function being inlined)."""

    fd: FuncDef
    entry: bool
    ret: CType
    ret_slot: int = -1
    ret_jm: int = -1
    tail: object = None       # the return statement in tail position (needs no mask bookkeeping)


@dataclass
class LoopState:
    brk: int = -1
    cont: int = -1
