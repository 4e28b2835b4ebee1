"""Memory lvalues: every global and shared access goes through the engine, named by the student's line and array.

A pointer (``runtime.Ptr``) is a buffer plus a byte offset. When the offset is a whole number of elements of
the buffer's own type the engine gets an element index (its messages then speak in elements); otherwise, or
when the element type differs (``reinterpret_cast<float4*>``), it gets a byte offset and ``view=`` the C type,
so alignment faults and 8/16-byte counting are the engine's.
"""
from __future__ import annotations

import numpy as np

from ..errors import LabsimError, OutOfBoundsError, StepBudgetError
from .ctype import LLONG, CType, pointer_to
from .runtime import MEM_STEPS, Ptr, masked, pack, unpack
from .symbols import LValue, CompiledExpr

MAX_LOCAL_ELEMENTS = 1024


def mem_dtype(t: CType) -> np.dtype:
    return t.vdtype if t.kind == "vec" else t.dtype


def _offset(p, i, size: int, dt: np.dtype):
    """(element index, None) when the access lines up with the buffer's elements, else (byte offset, view)."""
    if p.buf.dtype == dt:
        if type(p.boff) is int:
            if p.boff == 0:
                return i, None
            if p.boff % size == 0:
                return i + p.boff // size, None
        elif not np.any(p.boff % size):
            return np.asarray(i, dtype=np.int64) + p.boff // size, None
    return np.asarray(i, dtype=np.int64) * size + p.boff, dt


def _tick(c, line: int) -> None:
    try:
        c.blk.tick(MEM_STEPS)
    except StepBudgetError as e:
        e.where.setdefault("line", line)
        raise


def mem_get(c, p, i, t: CType, line: int, name: str, col: int | None = None):
    if t.struct:    # one access per member (aligned to a member only: nvcc moves members one by one)
        base = p.moved(np.asarray(i, dtype=np.int64) * t.size)
        return tuple(mem_get(c, base.moved(k * t.elem.size), 0, t.elem, line, name, col) for k in range(len(t.fields)))
    if c.batch is not None:
        return c.batch.load(c, p, i, t, line, name, col)
    _tick(c, line)
    dt = t.vdtype if t.kind == "vec" else t.dtype
    boff = p.boff
    if type(boff) is int and boff == 0 and p.buf.dtype == dt:
        idx, view = i, None            # the common case (an array's own elements from its start): _offset's answer
    else:
        idx, view = _offset(p, i, t.size, dt)
    cache = c.loads
    if cache is not None:
        key = (p.space, id(p.buf), t.name)
        if view is None and type(idx) is np.ndarray and (idx is not i or idx.base is None):
            addr = idx                 # what _where gives
        else:
            addr = _where(p, i, idx, view, t.size, dt, c.act)
        if addr is not None:
            fresh = addr.shape == c.act.shape
            if not fresh:
                addr = np.broadcast_to(addr, c.act.shape)
            hit = cache.find(key, addr, c.act, c.full)
            if hit is not None:
                return hit
    if p.space == "global":
        v = c.blk.load(p.buf, idx, line=line, name=name, view=view, col=col)
    else:
        v = c.blk.sload(p.buf, idx, line=line, name=name, view=view, col=col)
    v = unpack(v, dt) if t.kind == "vec" else v
    if cache is not None and addr is not None:
        # c.act is kept as is: the engine replaces its masks, never changes one in place
        cache.add(key, addr if fresh else addr.copy(), c.act, v, c.full)
    return v


def _where(p, i, idx, view, size: int, dt: np.dtype, act):
    """Each lane's location for the LoadCache, in one unit per cache key (buffer and C type): the element index
    when the type is the buffer's own (``idx``, no arithmetic: byte address / size), else the byte offset. None
    when an active lane is misaligned (the access faults; nothing is kept)."""
    if view is None:
        if idx is i and type(i) is np.ndarray and i.base is not None:
            return i.copy()           # a view (of a per-thread array, say) may change after the load: keep a copy
        return np.asarray(idx)
    if p.buf.dtype != dt:
        return idx                    # every access of this type to this buffer is in bytes
    off = np.broadcast_to(idx, act.shape)
    if np.any((off % size != 0) & act):
        return None
    return idx // size


def mem_put(c, p, i, t: CType, v, line: int, name: str, col: int | None = None) -> None:
    if t.struct:
        base = p.moved(np.asarray(i, dtype=np.int64) * t.size)
        for k in range(len(t.fields)):
            mem_put(c, base.moved(k * t.elem.size), 0, t.elem, v[k], line, name, col)
        return
    _tick(c, line)
    dt = mem_dtype(t)
    idx, view = _offset(p, i, t.size, dt)
    if c.loads is not None:
        c.loads.store(p.space, p.buf)
    if t.kind == "vec":
        v = pack(v, dt, c.n)
    if p.space == "global":
        c.blk.store(p.buf, idx, v, line=line, name=name, view=view, col=col)
    else:
        c.blk.sstore(p.buf, idx, v, line=line, name=name, view=view, col=col)


def element_lv(comp, pe: CompiledExpr, ie: CompiledExpr, node, name: str | None) -> LValue:
    """``p[i]`` for a pointer (or decayed shared array) ``pe`` and an int64 index ``ie``.

    ``name``: the identifier written at the access; None when the pointer is an expression (a cast, ``p + k``),
    and then the array the pointer came from names the access.
    """
    t = pe.t.elem
    if t.kind == "void":
        comp_err = comp.err(node, "cannot dereference a void pointer")
        raise comp_err
    if comp.mode == "host":
        raise comp.err(node, f"host code cannot read or write device memory ('{name or comp.text(node)}' lives "
                       "on the GPU); do this in a kernel")
    line, col = comp.loc(node)
    if comp.batch_rec is not None and pe.t.space != "shared":
        comp.batch_rec.fail("a global memory access")
    if comp.in_tail:
        comp.branch_sites.add((line, col))
    comp.mem_sites[(line, col)] = (pe.t.space or "global", ("ld", "st"))
    P, I = pe.ev, ie.ev
    size = t.size

    def locate(c):
        return P(c), I(c)

    def get(c, loc):
        try:
            return mem_get(c, loc[0], loc[1], t, line, name or loc[0].name, col)
        except LabsimError as e:
            e.where.setdefault("col", col)
            raise

    def put(c, loc, v):
        try:
            mem_put(c, loc[0], loc[1], t, v, line, name or loc[0].name, col)
        except LabsimError as e:
            e.where.setdefault("col", col)
            raise

    def addr(c, loc):
        return loc[0].moved(loc[1] * size)
    return LValue(t, locate, get, put, addr, name or "", pe.t.const, "mem", line, pe.t.space, col)


def shared_scalar_lv(comp, sym, node) -> LValue:
    """``__shared__ float total;``: a one-element shared array."""
    k, nm = sym.slot, sym.name
    pe = CompiledExpr(pointer_to(sym.t, space="shared"), lambda c: Ptr(c.v[k], 0, nm, "shared"))
    zero = CompiledExpr(comp_ll(), lambda c: 0, k=np.int64(0))
    return element_lv(comp, pe, zero, node, sym.name)


def comp_ll():
    return LLONG


def constant_lv(comp, sym, flat: CompiledExpr, node) -> LValue:
    """An element of a ``__constant__`` array: read through the constant cache (LDC), which Nsight Compute's
    global and shared counters never see; writing it in device code is an error (it is const there)."""
    store, t, name = sym.store, sym.t, sym.name
    size = store.data.size
    F = flat.ev
    line, col = comp.loc(node)
    vec = t.kind == "vec"

    def locate(c):
        i = F(c)
        bad = (i < 0) | (i >= size)
        if np.any(bad):
            bad = np.broadcast_to(bad, c.act.shape) & c.act
            if bad.any():
                lane = int(np.argmax(bad))
                ii = int(np.broadcast_to(i, c.act.shape)[lane])
                raise OutOfBoundsError(f"out-of-bounds access to __constant__ {name}[{ii}], which has {size} "
                                       "elements", line=line, col=col, array=name, index=ii, file=comp.file)
            i = np.clip(i, 0, size - 1)
        return i

    def get(c, i):
        v = store.data[i]
        return unpack(np.atleast_1d(v), t.vdtype) if vec else v

    def put(c, i, v):      # unreachable: the lvalue is const
        raise AssertionError("write to __constant__")
    return LValue(t, locate, get, put, None, name, True, "local", line)


def local_array_lv(comp, sym, idx_es: list[CompiledExpr], node) -> LValue:
    """An element of a per-thread array (registers / local memory: not counted as memory traffic)."""
    flat = comp.flat_index(idx_es, sym.dims)
    size = int(np.prod(sym.dims, dtype=np.int64))
    slot, t, name = sym.slot, sym.t, sym.name
    if comp.batch_rec is not None:
        comp.batch_rec.fail("a per-thread array")
    F = flat.ev
    line, col = comp.loc(node)
    vec = t.kind == "vec"

    def locate(c):
        i = F(c)
        bad = (i < 0) | (i >= size)
        if np.any(bad):
            bad = np.broadcast_to(bad, c.act.shape) & c.act
            if bad.any():
                lane = int(np.argmax(bad))
                ii = int(np.broadcast_to(i, c.act.shape)[lane])
                raise OutOfBoundsError(f"out-of-bounds access to per-thread array {name}[{ii}], which has {size} "
                                       "elements", line=line, col=col, array=name, index=ii, file=comp.file)
            i = np.clip(i, 0, size - 1)
        return i

    def rows(c):
        r = c.coords.get("rows")
        if r is None:
            r = c.coords["rows"] = np.arange(c.n)
        return r

    def get(c, i):
        arr = c.v[slot]
        # a copy: a view of the column would change when the element is written later (``int x = a[0]; a[0] = 1;``)
        v = arr[:, i].copy() if np.ndim(i) == 0 else arr[rows(c), i]
        return unpack(v, t.vdtype) if vec else v

    def put(c, i, v):
        arr = c.v[slot]
        if vec:
            v = pack(v, t.vdtype, c.n)
        if c.full and np.ndim(i) == 0:
            arr[:, i] = v
            return
        act = c.act
        v = np.broadcast_to(v, (c.n,))
        ii = np.broadcast_to(i, (c.n,))
        arr[rows(c)[act], ii[act]] = v[act]
    return LValue(t, locate, get, put, None, name, False, "local", line)


__all__ = [
    "MAX_LOCAL_ELEMENTS",
    "element_lv",
    "local_array_lv",
    "masked",
    "mem_dtype",
    "mem_get",
    "mem_put",
    "shared_scalar_lv",
]
