"""Expressions: each AST node becomes one closure over whole thread sets, typed when compiled."""
from __future__ import annotations

import numpy as np

from . import ctype as ct
from .access import constant_lv, element_lv, local_array_lv, mem_get, mem_put, shared_scalar_lv
from .batch import index_ok
from .ctype import CType
from .errors import CudaCompileError, CudaRuntimeError, CudaUnsupportedError
from .runtime import Ptr, masked, select
from .symbols import LValue, UNSUPPORTED, ArraySym, CompiledExpr, Reparse

COORDS = {"threadIdx": ("tx", "ty", "tz"), "blockIdx": ("bx", "by", "bz"),
          "blockDim": ("bdx", "bdy", "bdz"), "gridDim": ("gdx", "gdy", "gdz")}
ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}


_ALL = np.logical_and.reduce      # ndarray.all()/any() without numpy's Python-level wrapper
_ANY = np.logical_or.reduce


def const_e(value, t: CType) -> CompiledExpr:
    return CompiledExpr(t, lambda c, v=value: v, k=value)


# Identity-memoised unary steps (UNARY_MEMO): an index such as ``As[ty + 16][k]`` converts and scales the same
# ``ty`` array at every iteration of the k loop. The interpreter never changes an array it owns in place (a
# variable's new value is a new array; only per-thread arrays are written in place, and reading one gives a view),
# so a step applied to the very array object it saw last time gives the same result.
UNARY_MEMO = True


def memo1(F, A):
    """``c -> F(A(c))``, returning the last result again while ``A`` gives the same array object (one that owns
    its data: a view may belong to a per-thread array that changes)."""
    last = [None, None]

    def ev(c):
        x = A(c)
        if x is last[0]:
            return last[1]
        y = F(x)
        if UNARY_MEMO and type(x) is np.ndarray and x.base is None:
            last[0], last[1] = x, y
        return y
    return ev


def is_scalar(v) -> bool:
    return not isinstance(v, np.ndarray) or v.ndim == 0


class ExprMixin:
    """Compiles expression nodes (mixed into ``Compiler``)."""

    def expr(self, node, allow_array: bool = False) -> CompiledExpr:
        self.count(node)
        handler = getattr(self, "x_" + node.type, None)
        if handler is None:
            if node.type in UNSUPPORTED:
                raise self.unsupported(node, UNSUPPORTED[node.type])
            raise self.unsupported(node, f"the expression '{self.text(node)[:40]}' ({node.type.replace('_', ' ')})")
        e = handler(node)
        if e.ev is None and not allow_array:
            raise self.err(node, f"per-thread array '{e.arr.name}' can only be indexed ({e.arr.name}[i]); labsim "
                           "has no pointers into per-thread arrays", CudaUnsupportedError)
        return e

    # ---- leaves --------------------------------------------------------------------------------------------
    def x_number_literal(self, node) -> CompiledExpr:
        text = self.text(node)
        neg = text.startswith("-")
        try:
            value, t = ct.parse_number(text.lstrip("-+"))
        except (OverflowError, ValueError) as exc:
            raise self.err(node, f"invalid number literal {text}: {exc}") from None
        v = ct.scalar(value, t)
        if neg:
            rt, fn = ct.unop("-", t)
            v, t = fn(ct.convert(v, t, rt)), rt
        return const_e(v, t)

    def x_char_literal(self, node) -> CompiledExpr:
        body = self.text(node)[1:-1]
        esc = {"\\n": 10, "\\t": 9, "\\0": 0, "\\\\": 92, "\\'": 39, '\\"': 34, "\\r": 13}
        value = esc.get(body, ord(body[0]) if len(body) == 1 else None)
        if value is None:
            raise self.unsupported(node, f"the character literal {self.text(node)}")
        return const_e(np.int8(value), ct.CHAR)

    def x_true(self, node) -> CompiledExpr:
        return const_e(np.bool_(True), ct.BOOL)

    def x_false(self, node) -> CompiledExpr:
        return const_e(np.bool_(False), ct.BOOL)

    def x_parenthesized_expression(self, node) -> CompiledExpr:
        inner = [ch for ch in node.named_children if ch.type != "comment"]
        return self.expr(inner[0])

    def x_comma_expression(self, node) -> CompiledExpr:
        a = self.expr(node.child_by_field_name("left"))
        b = self.expr(node.child_by_field_name("right"))
        A, B = a.ev, b.ev

        def ev(c):
            A(c)
            return B(c)
        return CompiledExpr(b.t, ev, b.k if a.pure else None, a.pure and b.pure)

    def x_qualified_identifier(self, node) -> CompiledExpr:
        name = self.text(node).replace(" ", "")
        sym = self.lookup(name)
        if sym is None:
            for prefix in ("::", "std::"):
                if name.startswith(prefix):
                    return self.identifier(node, name[len(prefix):])
            raise self.err(node, f"use of undeclared identifier '{name}'")
        return self.identifier(node, name)

    def x_identifier(self, node) -> CompiledExpr:
        return self.identifier(node, self.text(node))

    x_type_identifier = x_identifier      # `dim3 b(TILE, ROWS)` parses its arguments as type names

    def identifier(self, node, name: str) -> CompiledExpr:
        sym = self.lookup(name)
        if sym is None:
            if name in COORDS:
                keys = COORDS[name]
                if self.mode == "host":
                    raise self.err(node, f"{name} is only available in device code")
                slots = [self.coord_slot(k) for k in keys]
                return CompiledExpr(ct.DIM3, lambda c: tuple(c.v[s] for s in slots))
            if name == "warpSize":
                return const_e(np.int32(32), ct.INT)
            if name == "cudaSuccess":
                return const_e(np.int32(0), ct.INT)
            if name.strip("_") == "" and len(name) >= 2:
                raise self.err(node, f"the blank '{name}' is still unfilled: replace it with your code")
            if self.resolve_function(name) is not None:
                raise self.unsupported(node, "function pointers (using a function name as a value)")
            raise self.err(node, f"use of undeclared identifier '{name}'")
        if sym.kind == "const":
            return const_e(sym.value, sym.t)
        if isinstance(sym, ArraySym):
            if sym.space == "constant":
                if self.mode == "host":
                    raise self.err(node, f"host code cannot read __constant__ '{sym.name}' (it lives on the GPU); "
                                   "use cudaMemcpyToSymbol / cudaMemcpyFromSymbol")
                if not sym.dims:
                    return self.lv_e(constant_lv(self, sym, const_e(np.int64(0), ct.LLONG), node), pure=True)
                return CompiledExpr(sym.t, None, pure=True, arr=sym)
            if sym.space == "shared" and not sym.dims and not sym.extern:
                if self.batch_rec is not None:
                    self.batch_rec.reads.append((sym.slot, node.start_byte))
                return self.lv_e(shared_scalar_lv(self, sym, node))
            if sym.space == "local":
                return CompiledExpr(sym.t, None, pure=True, arr=sym)
            pt = ct.pointer_to(sym.t, space="shared")
            k, nm = sym.slot, sym.name
            if self.batch_rec is not None:
                self.batch_rec.reads.append((k, node.start_byte))
            e = CompiledExpr(pt, lambda c: Ptr(c.v[k], 0, nm, "shared"), arr=sym)
            return e
        k = sym.slot
        t = sym.t
        if self.batch_rec is not None:
            self.batch_rec.reads.append((k, node.start_byte))

        def put(c, loc, v):
            c.v[k] = masked(c, v, c.v[k])
        lv = LValue(t, _none, lambda c, loc: c.v[k], put, None, name, sym.const, "var")
        return CompiledExpr(t, lambda c: c.v[k], pure=True, lv=lv)

    def lv_e(self, lv: LValue, pure: bool = False) -> CompiledExpr:
        loc, get = lv.locate, lv.get
        return CompiledExpr(lv.t, lambda c: get(c, loc(c)), pure=pure, lv=lv)

    # ---- member access, subscripts, pointers ------------------------------------------------------------
    def x_field_expression(self, node) -> CompiledExpr:
        arg = node.child_by_field_name("argument")
        op = node.child_by_field_name("operator")
        field = self.text(node.child_by_field_name("field"))
        if op is not None and op.type == "->":
            raise self.unsupported(node, "the -> operator (structs and classes)")
        if arg.type == "identifier" and self.text(arg) in COORDS and self.lookup(self.text(arg)) is None:
            name = self.text(arg)
            if field not in ("x", "y", "z"):
                raise self.err(node.child_by_field_name("field"), f"{name} has no member '{field}'")
            if self.mode == "host":
                raise self.err(node, f"{name} is only available in device code")
            s = self.coord_slot(COORDS[name]["xyz".index(field)])
            return CompiledExpr(ct.UINT, lambda c: c.v[s])
        base = self.expr(arg)
        if base.t.kind != "vec":
            raise self.err(node, f"member reference base type '{base.t}' is not a structure (.{field})")
        if field not in base.t.fields:
            raise self.err(node.child_by_field_name("field"), f"no member named '{field}' in '{base.t}'")
        i = base.t.fields.index(field)
        comp = base.t.elem
        if base.lv is not None:
            return self.lv_e(self.component_lv(base.lv, i, comp, node), pure=base.lv.kind == "var")
        B = base.ev
        return CompiledExpr(comp, lambda c: B(c)[i], pure=base.pure)

    def component_lv(self, lv: LValue, i: int, comp: CType, node) -> LValue:
        name = f"{lv.name}.{'xyzw'[i]}"
        if lv.kind == "mem":
            addr, loc0 = lv.addr, lv.locate
            line, arr = lv.line, lv.name or None
            col = self.loc(node)[1]     # `a[i].x` and `a[i].y` on one line are two instructions
            if self.in_tail:
                self.branch_sites.add((line, col))
            self.mem_sites[(line, col)] = (lv.space or "global", ("ld", "st"))

            def locate(c):
                return addr(c, loc0(c)).moved(i * comp.size)

            def get(c, p):
                return mem_get(c, p, 0, comp, line, arr or p.name, col)

            def put(c, p, v):
                mem_put(c, p, 0, comp, v, line, arr or p.name, col)
            out = LValue(comp, locate, get, put, lambda c, p: p, name, lv.const, "mem", line, lv.space, col)
            return out
        get0, put0, loc0 = lv.get, lv.put, lv.locate

        def get(c, loc):
            return get0(c, loc)[i]

        def put(c, loc, v):
            old = get0(c, loc)
            new = tuple(v if j == i else old[j] for j in range(len(old)))
            put0(c, loc, new)
        return LValue(comp, loc0, get, put, None, name, lv.const, lv.kind)

    def x_subscript_expression(self, node) -> CompiledExpr:
        indices = []
        base = node
        while base.type == "subscript_expression":
            idx = [ch for ch in base.child_by_field_name("indices").named_children if ch.type != "comment"]
            if len(idx) != 1:
                raise self.err(base, "expected exactly one index inside [ ]")
            indices.append(idx[0])
            base = base.child_by_field_name("argument")
            while base.type == "parenthesized_expression":
                base = [ch for ch in base.named_children if ch.type != "comment"][0]
        indices.reverse()
        if self.batch_rec is not None:
            index_ok(self, self.batch_rec, indices)
        b = self.expr(base, allow_array=True)
        name = self.text(base) if base.type == "identifier" else None
        if b.arr is not None:
            sym = b.arr
            if len(indices) > len(sym.dims) or not sym.dims:
                raise self.err(node, f"too many subscripts for array '{sym.name}'")
            idx_es = [self.index_expr(i) for i in indices]
            if sym.space == "constant":
                if len(indices) != len(sym.dims):
                    raise self.unsupported(node, "pointers into __constant__ arrays")
                return self.lv_e(constant_lv(self, sym, self.flat_index(idx_es, sym.dims), node), pure=True)
            if sym.space == "local":
                if len(indices) != len(sym.dims):
                    raise self.unsupported(node, "pointers into per-thread arrays")
                return self.lv_e(local_array_lv(self, sym, idx_es, node))
            flat = self.flat_index(idx_es, sym.dims)
            if len(indices) < len(sym.dims):    # a row of a 2-D array: a pointer to its first element
                size = sym.t.size       # flat already counts whole rows
                F, B = flat.ev, b.ev
                return CompiledExpr(ct.pointer_to(sym.t, space="shared"), lambda c: B(c).moved(F(c) * size),
                         pure=flat.pure)
            self.note_shared_read(sym, indices, idx_es, node)
            return self.lv_e(element_lv(self, b, flat, node, sym.name))
        e = b
        for k, inode in enumerate(indices):
            if e.t.kind != "ptr":
                raise self.err(node, f"subscripted value is not an array or pointer (it is '{e.t}')")
            e = self.lv_e(element_lv(self, e, self.index_expr(inode), node, name))
        return e

    def index_expr(self, node) -> CompiledExpr:
        e = self.expr(node)
        if not e.t.is_integer:
            raise self.err(node, f"array subscript is not an integer (it is '{e.t}')")
        return self.to_i64(e)

    def to_i64(self, e: CompiledExpr) -> CompiledExpr:
        if e.t.dtype == np.int64:
            return e
        f = ct.converter(e.t, ct.LLONG)
        if e.k is not None:
            return const_e(f(e.k), ct.LLONG)
        return CompiledExpr(ct.LLONG, memo1(f, e.ev), pure=e.pure)

    def flat_index(self, idx: list[CompiledExpr], dims: tuple[int, ...]) -> CompiledExpr:
        strides = [int(np.prod(dims[k + 1:], dtype=np.int64)) for k in range(len(dims))][:len(idx)]
        if all(i.k is not None for i in idx):
            return const_e(np.int64(sum(int(i.k) * s for i, s in zip(idx, strides))), ct.LLONG)
        evs = [(i.ev, s) for i, s in zip(idx, strides)]
        if len(evs) == 1:
            (A, sa), = evs
            return CompiledExpr(ct.LLONG, A if sa == 1 else (lambda c: A(c) * sa), pure=idx[0].pure)
        if len(evs) == 2:
            (A, sa), (B, sb) = evs
            if sb == 1:
                AS = memo1(lambda x: x * sa, A)
                return CompiledExpr(ct.LLONG, lambda c: AS(c) + B(c), pure=all(i.pure for i in idx))
        return CompiledExpr(ct.LLONG, lambda c: sum(f(c) * s for f, s in evs), pure=all(i.pure for i in idx))

    def x_pointer_expression(self, node) -> CompiledExpr:
        op = node.child_by_field_name("operator").type
        arg = self.expr(node.child_by_field_name("argument"))
        if op == "*":
            if arg.t.kind != "ptr":
                raise self.err(node, f"indirection requires a pointer operand ('{arg.t}' invalid)")
            zero = const_e(np.int64(0), ct.LLONG)
            an = node.child_by_field_name("argument")
            return self.lv_e(element_lv(self, arg, zero, node, self.text(an) if an.type == "identifier" else None))
        if op == "&":
            if arg.arr is not None:
                return CompiledExpr(arg.t, arg.ev)
            lv = arg.lv
            if lv is None:
                raise self.err(node, "cannot take the address of an rvalue")
            if lv.addr is None:
                raise self.unsupported(node, "taking the address of a local variable")
            loc, addr = lv.locate, lv.addr
            space = getattr(lv, "space", "global")
            return CompiledExpr(ct.pointer_to(lv.t, const=lv.const, space=space), lambda c: addr(c, loc(c)))
        raise self.unsupported(node, f"the operator {op}")

    # ---- operators -----------------------------------------------------------------------------------------
    def truth(self, e: CompiledExpr, node) -> CompiledExpr:
        """``e`` as a C condition (bool values)."""
        if e.t.kind == "bool":
            return e
        if not e.t.is_arith:
            raise self.err(node, f"value of type '{e.t}' is not contextually convertible to bool")
        if e.k is not None:
            return const_e(np.bool_(e.k != 0), ct.BOOL)
        A = e.ev
        return CompiledExpr(ct.BOOL, lambda c: A(c) != 0, pure=e.pure)

    def x_unary_expression(self, node) -> CompiledExpr:
        op = node.child_by_field_name("operator").type
        a = self.expr(node.child_by_field_name("argument"))
        try:
            rt, fn = ct.unop(op, a.t)
        except TypeError as exc:
            raise self.err(node, str(exc)) from None
        if op == "!":
            a = self.truth(a, node)
        else:
            a = self.coerce(a, rt, node)
        if a.k is not None:
            return const_e(fn(a.k), rt)
        A = a.ev
        return CompiledExpr(rt, lambda c: fn(A(c)), pure=a.pure)

    def x_binary_expression(self, node) -> CompiledExpr:
        op = node.child_by_field_name("operator").type
        ln, rn = node.child_by_field_name("left"), node.child_by_field_name("right")
        a, b = self.expr(ln), self.expr(rn)
        if op in ("&&", "||"):
            return self.logical(op, self.truth(a, ln), self.truth(b, rn))
        if a.t.kind == "ptr" or b.t.kind == "ptr":
            return self.pointer_arith(op, a, b, node)
        try:
            bo = ct.binop(op, a.t, b.t)
        except TypeError as exc:
            raise self.err(node, str(exc)) from None
        return self.apply_binop(bo, a, b, node)

    def apply_binop(self, bo, a: CompiledExpr, b: CompiledExpr, node) -> CompiledExpr:
        a = self.coerce(a, bo.operand, node)
        if bo.op not in ("<<", ">>"):
            b = self.coerce(b, bo.operand, node)
        fn = bo.fn
        if a.k is not None and b.k is not None and not (bo.traps and b.k == 0):
            return const_e(fn(a.k, b.k), bo.result)
        A, B = a.ev, b.ev
        if bo.traps:
            where = self.loc(node)

            def ev(c):
                x = A(c)
                y = B(c)
                if np.any(y == 0):
                    self.division_by_zero(c, y, where)
                return fn(x, y)
            return CompiledExpr(bo.result, ev, pure=False)
        if b.k is not None:
            kb = b.k
            return CompiledExpr(bo.result, memo1(lambda x: fn(x, kb), A), pure=a.pure)
        return CompiledExpr(bo.result, lambda c: fn(A(c), B(c)), pure=a.pure and b.pure)

    def division_by_zero(self, c, y, where) -> None:
        zero = np.broadcast_to(y == 0, c.act.shape) & c.act
        if not zero.any():
            return
        lane = int(np.argmax(zero))
        extra = {}
        blk = c.blk
        if hasattr(blk, "tx"):
            extra = {"block": (int(blk.bx[lane]), int(blk.by[lane]), int(blk.bz[lane])),
                     "thread": (int(blk.tx[lane]), int(blk.ty[lane]), int(blk.tz[lane]))}
        raise CudaRuntimeError("integer division by zero (undefined behaviour in C)", file=self.file,
                               line=where[0], col=where[1], source=self.pp.line_text(where[0]), **extra)

    def logical(self, op: str, a: CompiledExpr, b: CompiledExpr) -> CompiledExpr:
        if a.k is not None:
            if (op == "&&") != bool(a.k):      # 0 && x, 1 || x: x is never evaluated
                return const_e(np.bool_(op == "||"), ct.BOOL)
            return b
        A, B = a.ev, b.ev
        if b.pure:
            f = np.logical_and if op == "&&" else np.logical_or
            return CompiledExpr(ct.BOOL, lambda c: f(A(c), B(c)), pure=a.pure)
        conj = op == "&&"

        def ev(c):
            x = A(c)
            if is_scalar(x):
                return B(c) if bool(x) == conj else np.bool_(not conj)
            c.push(x if conj else ~x, "if")
            y = B(c)
            c.pop()
            return (x & y) if conj else (x | y)
        return CompiledExpr(ct.BOOL, ev, pure=False)

    def pointer_arith(self, op: str, a: CompiledExpr, b: CompiledExpr, node) -> CompiledExpr:
        if op == "-" and a.t.kind == "ptr" and b.t.kind == "ptr":
            raise self.unsupported(node, "pointer subtraction")
        if op in ct.COMPARE_OPS:
            raise self.unsupported(node, "pointer comparisons")
        if op not in ("+", "-") or (a.t.kind == "ptr") == (b.t.kind == "ptr"):
            raise self.err(node, f"invalid operands to binary expression ('{a.t}' {op} '{b.t}')")
        p, i = (a, b) if a.t.kind == "ptr" else (b, a)
        if p.t.elem.kind == "void":
            raise self.err(node, "arithmetic on a pointer to void")
        if op == "-" and p is b:
            raise self.err(node, f"invalid operands to binary expression ('{a.t}' - '{b.t}')")
        if not i.t.is_integer:
            raise self.err(node, f"invalid operands to binary expression ('{a.t}' {op} '{b.t}')")
        return self.ptr_offset(p, self.to_i64(i), -1 if op == "-" else 1)

    def ptr_offset(self, p: CompiledExpr, i: CompiledExpr, sign: int) -> CompiledExpr:
        size = p.t.elem.size * sign
        P, I = p.ev, i.ev
        if i.k is not None:
            delta = int(i.k) * size
            return CompiledExpr(p.t, lambda c: P(c).moved(delta), pure=p.pure)
        return CompiledExpr(p.t, lambda c: P(c).moved(I(c) * size), pure=p.pure and i.pure)

    def x_conditional_expression(self, node) -> CompiledExpr:
        cn = node.child_by_field_name("condition")
        if node.child_by_field_name("consequence") is None:
            raise self.unsupported(node, "the GNU 'a ?: b' operator")
        cond = self.truth(self.expr(cn), cn)
        a = self.expr(node.child_by_field_name("consequence"))
        b = self.expr(node.child_by_field_name("alternative"))
        if a.t.is_arith and b.t.is_arith:
            t = ct.common_type(a.t, b.t)
        elif a.t.same(b.t):
            t = a.t
        else:
            raise self.err(node, f"incompatible operand types ('{a.t}' and '{b.t}') in ?:")
        a, b = self.coerce(a, t, node), self.coerce(b, t, node)
        if cond.k is not None:
            return a if bool(cond.k) else b
        C, A, B = cond.ev, a.ev, b.ev
        if a.pure and b.pure:
            return CompiledExpr(t, lambda c: select(C(c), A(c), B(c)), pure=cond.pure)

        a_pure, b_pure = a.pure, b.pure

        def ev(c):
            x = C(c)
            if is_scalar(x):
                return A(c) if x else B(c)
            # every lane takes one arm and the other has no side effects: run that arm under the mask as it is (an
            # all-true "if" mask leaves the active and reached lanes as they are)
            if b_pure and _ALL(x, axis=None):
                v = A(c)
                return v if type(v) is np.ndarray and v.shape == x.shape else select(x, v, v)
            if a_pure and not _ANY(x, axis=None):
                v = B(c)
                return v if type(v) is np.ndarray and v.shape == x.shape else select(x, v, v)
            c.push(x, "if")
            va = A(c)
            c.pop()
            c.push(~x, "if")
            vb = B(c)
            c.pop()
            return select(x, va, vb)
        return CompiledExpr(t, ev, pure=False)

    # ---- assignment ----------------------------------------------------------------------------------------
    def target(self, node) -> LValue:
        e = self.expr(node)
        if e.lv is None:
            if node.type == "identifier" and getattr(self.lookup(self.text(node)), "kind", "") == "const":
                raise self.err(node, f"cannot assign to '{self.text(node)}': it is const-qualified")
            raise self.err(node, "expression is not assignable")
        if e.lv.const:
            raise self.err(node, f"cannot assign to '{self.text(node)}': it is const-qualified")
        return e.lv

    def x_assignment_expression(self, node) -> CompiledExpr:
        op = node.child_by_field_name("operator").type
        ln, rn = node.child_by_field_name("left"), node.child_by_field_name("right")
        lv = self.target(ln)
        self._not_uniform(ln)
        rhs = self.expr(rn)
        locate, get, put = lv.locate, lv.get, lv.put
        if self.batch_rec is not None and (op == "=" or lv.t.kind == "ptr"):
            self._note_assign(ln, node, op, None)
        if op == "=":
            r = self.coerce(rhs, lv.t, node)
            R = r.ev

            def ev(c):
                loc = locate(c)
                v = R(c)
                put(c, loc, v)
                return v
            return CompiledExpr(lv.t, ev, pure=False)
        bop = op[:-1]
        if lv.t.kind == "ptr":
            if bop not in ("+", "-") or not rhs.t.is_integer:
                raise self.err(node, f"invalid operands to '{op}' on a pointer")
            size = lv.t.elem.size * (1 if bop == "+" else -1)
            R = self.to_i64(rhs).ev

            def ev(c):
                loc = locate(c)
                v = get(c, loc).moved(R(c) * size)
                put(c, loc, v)
                return v
            return CompiledExpr(lv.t, ev, pure=False)
        try:
            bo = ct.binop(bop, lv.t, rhs.t)
        except TypeError as exc:
            raise self.err(node, str(exc)) from None
        fl = ct.converter(lv.t, bo.operand)
        fr = None if bop in ("<<", ">>") else ct.converter(rhs.t, bo.operand)
        back = ct.converter(bo.result, lv.t)
        fn, traps, R = bo.fn, bo.traps, rhs.ev
        where = self.loc(node)
        if self.batch_rec is not None:
            self._note_assign(ln, node, bop, None if traps else (R, fn, fl, fr, back))

        def ev(c):
            r = R(c)
            loc = locate(c)
            old = get(c, loc)
            x = old if fl is None else fl(old)
            y = r if fr is None else fr(r)
            if traps and np.any(y == 0):
                self.division_by_zero(c, y, where)
            v = fn(x, y)
            if back is not None:
                v = back(v)
            put(c, loc, v)
            return v
        return CompiledExpr(lv.t, ev, pure=False)

    def _note_assign(self, target, node, op: str, parts) -> None:
        """For the loop body being compiled (``labsim.cuda.batch``): an assignment to a variable, or a reason
        the body cannot be batched."""
        rec = self.batch_rec
        sym = self.lookup(self.text(target)) if target.type == "identifier" else None
        if sym is None or sym.kind != "var" or not sym.t.is_arith:
            rec.fail("an assignment to memory or a non-scalar")
            return
        rec.assigns[node.start_byte] = (sym, op, parts)

    def _not_uniform(self, target) -> None:
        """A local assigned again may differ between lanes from here on (labsim.cuda's uniformity rule)."""
        if target.type == "identifier":
            sym = self.lookup(self.text(target))
            if sym is not None:
                getattr(self, "uniform_syms", set()).discard(id(sym))

    def x_update_expression(self, node) -> CompiledExpr:
        op = node.child_by_field_name("operator").type
        an = node.child_by_field_name("argument")
        prefix = node.children[0].type in ("++", "--")
        lv = self.target(an)
        if self.batch_rec is not None:
            self._note_assign(an, node, op, None)
        self._not_uniform(an)
        locate, get, put = lv.locate, lv.get, lv.put
        if lv.t.kind == "ptr":
            size = lv.t.elem.size * (1 if op == "++" else -1)

            def step(v):
                return v.moved(size)
        elif lv.t.is_arith and lv.t.kind != "bool":
            bo = ct.binop("+" if op == "++" else "-", lv.t, ct.INT)
            one = ct.convert(np.int32(1), ct.INT, bo.operand)
            to_op = ct.converter(lv.t, bo.operand)
            back = ct.converter(bo.result, lv.t)
            fn = bo.fn

            def step(v):
                r = fn(v if to_op is None else to_op(v), one)
                return r if back is None else back(r)
        else:
            raise self.err(node, f"cannot increment or decrement a value of type '{lv.t}'")

        def ev(c):
            loc = locate(c)
            old = get(c, loc)
            new = step(old)
            put(c, loc, new)
            return new if prefix else old
        return CompiledExpr(lv.t, ev, pure=False)

    # ---- conversions ---------------------------------------------------------------------------------------
    def coerce(self, e: CompiledExpr, t: CType, node, explicit: bool = False) -> CompiledExpr:
        """Convert ``e`` to ``t`` as C would implicitly (or, with ``explicit``, as a cast does)."""
        if e.t is t:
            return e
        if t.kind == "void" and explicit:
            A = e.ev
            return CompiledExpr(ct.VOID, lambda c: (A(c), None)[1], pure=e.pure)
        if e.t.is_arith and t.is_arith:
            f = ct.converter(e.t, t)
            if f is None:
                return CompiledExpr(t, e.ev, e.k, e.pure)
            if e.k is not None:
                return const_e(f(e.k), t)
            A = e.ev
            return CompiledExpr(t, lambda c: f(A(c)), pure=e.pure)
        if t is ct.DIM3 and e.t.is_integer:
            f = ct.converter(e.t, ct.UINT)
            A = e.ev
            one = np.uint32(1)
            return CompiledExpr(t, lambda c: (A(c) if f is None else f(A(c)), one, one), pure=e.pure)
        if t.kind == "vec" and e.t.kind == "vec" and e.t.same(t):
            return CompiledExpr(t, e.ev, pure=e.pure, lv=e.lv)
        if t.kind == "vec" and e.t.kind == "vec" and {t.name, e.t.name} == {"dim3", "uint3"}:
            return CompiledExpr(t, e.ev, pure=e.pure)          # threadIdx is a uint3; dim3 converts to and from it
        if t.kind == "ptr" and e.t.kind == "ptr":
            if e.t.elem.same(t.elem) or t.elem.kind == "void":
                if e.t.const and not t.const and not explicit:
                    raise self.err(node, f"cannot convert '{e.t}' to '{t}': it would drop const")
                return CompiledExpr(t, e.ev, pure=e.pure)
            if explicit:
                return self.pointer_cast(e, t, node)
            raise self.err(node, f"cannot convert '{e.t}' to '{t}' (incompatible pointer types; labsim "
                           "allows reinterpret_cast between element types)")
        if t.kind == "ptr" or e.t.kind == "ptr":
            if explicit:
                what = "casting a pointer to an integer" if e.t.kind == "ptr" else "casting an integer to a pointer"
                raise self.unsupported(node, what)
            raise self.err(node, f"cannot convert '{e.t}' to '{t}'")
        raise self.err(node, f"cannot convert '{e.t}' to '{t}'")

    def pointer_cast(self, e: CompiledExpr, t: CType, node) -> CompiledExpr:
        elem = t.elem
        if elem.kind == "void" or elem.size not in (1, 2, 4, 8, 16) or elem.kind not in ("int", "float", "vec"):
            raise self.unsupported(node, f"pointer casts to '{t}' (labsim reinterprets device memory only as "
                                   "1-, 2-, 4-, 8- or 16-byte element types)")
        return CompiledExpr(t, e.ev, pure=e.pure)

    def names_a_value(self, tnode) -> bool:
        """Is this "type name" really a variable (tree-sitter cannot tell without a symbol table)?"""
        if tnode is None or tnode.type != "type_identifier":
            return False
        name = self.text(tnode)
        sym = self.lookup(name)
        return (sym is not None and sym.kind != "func") or (sym is None and name in COORDS | {"warpSize": 0})

    def x_cast_expression(self, node) -> CompiledExpr:
        td = node.child_by_field_name("type")
        if self.names_a_value(td.child_by_field_name("type")):
            raise Reparse(td.child_by_field_name("type"))
        t = self.type_descriptor(td)
        e = self.expr(node.child_by_field_name("value"))
        return self.coerce(e, t, node, explicit=True)

    def x_sizeof_expression(self, node) -> CompiledExpr:
        tnode = node.child_by_field_name("type")
        if tnode is not None:
            t = self.type_descriptor(tnode)
            size = t.size
        else:
            vn = node.child_by_field_name("value")
            inner = vn
            while inner.type == "parenthesized_expression":
                inner = inner.named_children[0]
            if inner.type == "identifier" and self.lookup(self.text(inner)) is None and \
                    self.text(inner) in ct.SCALARS:        # sizeof(float4): parsed as an expression
                size = ct.SCALARS[self.text(inner)].size
            elif inner.type == "identifier" and isinstance(self.lookup(self.text(inner)), ArraySym):
                sym = self.lookup(self.text(inner))
                size = int(np.prod(sym.dims, dtype=np.int64)) * sym.t.size if sym.dims else sym.t.size
            else:
                size = self.expr(vn).t.size
        if size <= 0:
            raise self.err(node, "invalid application of sizeof")
        return const_e(np.uint64(size), ct.SIZE_T)

    def x_initializer_list(self, node) -> CompiledExpr:
        raise self.unsupported(node, "brace initializers outside declarations")


def _none(c):
    return None


__all__ = ["COORDS", "CudaCompileError", "CudaUnsupportedError", "ExprMixin", "const_e", "is_scalar"]
