"""Calls: device functions (inlined), kernel launches from host code, CUDA intrinsics and math functions.

Anything that could reach the outside world (files, processes, the network, the allocator, printing) is
rejected by name when the program is compiled; nothing in a source is ever executed natively.
"""
from __future__ import annotations

import numpy as np

from . import ctype as ct
from .access import element_lv
from .ctype import CType
from ..errors import LabsimError
from .errors import CudaRuntimeError, CudaUnsupportedError
from .expr import const_e, is_scalar
from .runtime import MEM_STEPS
from .symbols import MAX_INLINE_DEPTH, CompiledExpr, FnState, Reparse, Sym
from . import warp as _warp

FORBIDDEN = {
    "system", "popen", "pclose", "fopen", "fclose", "fread", "fwrite", "fgets", "fputs", "fprintf", "fscanf",
    "scanf", "open", "close", "read", "write", "remove", "unlink", "rename", "execl", "execlp", "execv",
    "execvp", "execve", "fork", "vfork", "exit", "_exit", "abort", "atexit", "getenv", "setenv", "putenv",
    "socket", "connect", "bind", "listen", "accept", "send", "recv", "sendto", "recvfrom", "dlopen", "dlsym",
    "mmap", "munmap", "kill", "signal", "raise", "chdir", "mkdir", "rmdir", "opendir", "readdir", "ioctl",
    "sleep", "usleep", "time", "clock", "rand", "srand", "freopen", "tmpfile", "sprintf", "snprintf",
}
ALLOC = {"malloc", "calloc", "realloc", "free", "cudaMalloc", "cudaFree", "cudaMallocManaged", "cudaMallocHost",
         "cudaHostAlloc", "cudaFreeHost", "cudaMallocPitch", "cudaMalloc3D", "cudaMemcpy", "cudaMemcpyAsync",
         "cudaMemcpy2D", "cudaMemset", "cudaMemsetAsync",
         "cudaMallocAsync", "cudaFreeAsync", "memcpy", "memset", "memmove"}
PRINT = {"printf", "puts", "putchar", "perror", "cout", "cerr"}
HOST_NOOP = {"cudaDeviceSynchronize", "cudaGetLastError", "cudaPeekAtLastError", "cudaStreamSynchronize",
             "cudaFuncSetAttribute", "cudaDeviceReset", "cudaSetDevice", "cudaFuncSetCacheConfig",
             "cudaDeviceSetSharedMemConfig", "cudaFuncSetSharedMemConfig"}
DEVICE_NOOP = {"__threadfence", "__threadfence_block", "__threadfence_system"}
CASTS = {"static_cast", "reinterpret_cast", "const_cast"}

_F32 = {"sqrt": np.sqrt, "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2,
        "log10": np.log10, "log1p": np.log1p, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
        "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
        "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint, "nearbyint": np.rint,
        "fabs": np.abs, "cbrt": np.cbrt}
_F32_2 = {"pow": np.power, "fmod": np.fmod, "atan2": np.arctan2, "fmin": np.fmin, "fmax": np.fmax,
          "hypot": np.hypot, "copysign": np.copysign}
_INTRINSIC_1 = {"__expf": "exp", "__logf": "log", "__log2f": "log2", "__log10f": "log10", "__sinf": "sin",
                "__cosf": "cos", "__tanf": "tan", "__exp10f": None}
_INTRINSIC_2 = {"__powf": "pow", "__fdividef": "div"}


def _round_half_away(v):
    d = np.asarray(v, dtype=np.float64)
    r = np.where(d >= 0, np.floor(d + 0.5), np.ceil(d - 0.5)).astype(np.asarray(v).dtype)
    return r[()] if r.ndim == 0 else r


def _rsqrt(v):
    r = np.asarray(1, dtype=np.asarray(v).dtype) / np.sqrt(v)
    return r[()] if np.ndim(r) == 0 else r


def _to_dims(v) -> tuple[int, ...]:
    if isinstance(v, tuple):
        return tuple(int(np.asarray(x).reshape(-1)[0]) for x in v)
    return (int(np.asarray(v).reshape(-1)[0]),)


class CallMixin:
    """Compiles call expressions (mixed into ``Compiler``)."""

    def x_call_expression(self, node) -> CompiledExpr:
        fnode = node.child_by_field_name("function")
        ksyn = next((ch for ch in node.children if ch.type == "kernel_call_syntax"), None)
        args_node = node.child_by_field_name("arguments")
        arg_nodes = [ch for ch in args_node.named_children if ch.type != "comment"] if args_node else []
        if ksyn is not None:
            return self.kernel_launch(node, fnode, ksyn, arg_nodes)
        if fnode.type == "template_function":
            name = self.text(fnode.child_by_field_name("name"))
            td = self.templates.get(name)
            if td is not None and name not in CASTS:
                args = self.template_args(fnode.child_by_field_name("arguments"))
                if len(args) < len(td.params):      # the rest deduced from the call's arguments
                    deduce = self.deduce(td, [self.expr(a).t for a in arg_nodes])
                    return self.user_call(self.instantiate(td, args, node, deduce), arg_nodes, node)
                return self.user_call(self.instantiate(td, args, node), arg_nodes, node)
            if name not in CASTS and self.lookup(name) is not None:
                raise Reparse(fnode.child_by_field_name("name"))
            if name in CASTS:
                targs = fnode.child_by_field_name("arguments").named_children
                if len(targs) != 1 or targs[0].type != "type_descriptor" or len(arg_nodes) != 1:
                    raise self.err(node, f"{name} needs one type and one argument")
                t = self.type_descriptor(targs[0])
                e = self.expr(arg_nodes[0])
                if name == "static_cast" and t.kind == "ptr" and e.t.kind == "ptr" and not e.t.elem.same(t.elem) \
                        and e.t.elem.kind != "void" and t.elem.kind != "void":
                    raise self.err(node, f"static_cast from '{e.t}' to '{t}' is not allowed (use reinterpret_cast)")
                return self.coerce(e, t, node, explicit=True)
            if name == "dynamic_cast":
                raise self.unsupported(node, "dynamic_cast")
            raise self.unsupported(node, "templates")
        if fnode.type == "qualified_identifier":
            name = self.text(fnode).replace(" ", "")
            for prefix in ("::", "std::", "cuda::std::"):
                if name.startswith(prefix) and self.resolve_function(name) is None:
                    name = name[len(prefix):]
        elif fnode.type == "identifier":
            name = self.text(fnode)
        elif fnode.type == "field_expression":
            raise self.unsupported(node, "member functions")
        else:
            raise self.unsupported(node, "calls through function pointers")
        sym = self.lookup(name)
        if isinstance(sym, Sym) and sym.kind != "func":
            raise self.unsupported(node, "function pointers (calling a variable)")
        fd = self.resolve_function(name)
        if fd is None and name in self.templates and self.lookup(name) is None:
            td = self.templates[name]
            fd = self.instantiate(td, [], node, self.deduce(td, [self.expr(a).t for a in arg_nodes]))
        if fd is not None:
            return self.user_call(fd, arg_nodes, node)
        handler = self.builtin(name)
        if handler is not None:
            return handler(name, arg_nodes, node)
        base = name.split("::")[-1]
        if base in FORBIDDEN:
            raise self.err(node, f"call to '{base}' is not allowed: labsim programs cannot reach files, processes "
                           "or the network", CudaUnsupportedError)
        if base in ALLOC:
            raise self.err(node, f"call to '{base}' is not supported: labsim has no allocator; pass numpy arrays "
                           "to Program.call/launch instead", CudaUnsupportedError)
        if base in PRINT:
            raise self.err(node, f"call to '{base}' is not supported: labsim kernels have no console; inspect the "
                           "arrays after the launch", CudaUnsupportedError)
        raise self.err(fnode, f"use of undeclared identifier '{name}'")

    def args(self, arg_nodes, n: int | tuple, name: str, node) -> list[CompiledExpr]:
        want = (n,) if isinstance(n, int) else n
        if len(arg_nodes) not in want:
            raise self.err(node, f"{name} takes {' or '.join(map(str, want))} argument(s), {len(arg_nodes)} given")
        return [self.expr(a) for a in arg_nodes]

    # ---- user functions ------------------------------------------------------------------------------------
    def user_call(self, fd, arg_nodes, node) -> CompiledExpr:
        if fd.is_kernel:
            raise self.err(node, f"kernel '{fd.name}' must be launched with <<<grid, block>>>")
        if self.mode == "device" and not fd.is_device:
            raise self.err(node, f"calling a __host__ function ('{fd.name}') from device code is not allowed")
        if self.mode == "host" and not fd.is_host:
            raise self.err(node, f"calling a __device__ function ('{fd.name}') from host code is not allowed")
        if fd.body is None:
            raise self.err(node, f"function '{fd.name}' is declared but never defined")
        if fd.name in self.inline_stack:
            raise self.unsupported(node, f"recursion ('{fd.name}' calls itself, directly or through other "
                                   "functions); recursive calls")
        if len(self.inline_stack) >= MAX_INLINE_DEPTH:
            raise self.unsupported(node, f"call chains deeper than {MAX_INLINE_DEPTH} functions")
        if len(arg_nodes) != len(fd.params):
            raise self.err(node, f"'{fd.name}' takes {len(fd.params)} argument(s), {len(arg_nodes)} given")
        evs = []
        for a, (pname, pt, _) in zip(arg_nodes, fd.params):
            e = self.expr(a)
            if e.arr is not None and e.arr.space == "local":
                raise self.unsupported(a, "passing per-thread arrays to functions")
            evs.append(self.coerce(e, pt, a).ev)
        saved = (self.scopes, self.fn, self.loops, self.tbind)
        self.tbind = fd.tbind
        scope, slots = self.bind_params(fd.params)
        self.scopes, self.loops = [scope], []
        fst = FnState(fd, entry=False, ret=fd.ret, ret_slot=self.new_slot() if fd.ret is not ct.VOID else -1)
        self.fn = fst
        self.inline_stack.append(fd.name)
        try:
            body, _ = self.compile_function_body(fd.body)
        finally:
            self.inline_stack.pop()
            self.scopes, self.fn, self.loops, self.tbind = saved
        rs, rj = fst.ret_slot, fst.ret_jm
        slots_t = tuple(slots)

        def ev(c):
            vals = [f(c) for f in evs]
            for s, v in zip(slots_t, vals):
                c.v[s] = v
            if rs >= 0:
                c.v[rs] = None
            if body is not None:
                if rj >= 0:
                    c.jm[rj] = None
                    c.push(c.act, "loop")
                    body(c)
                    c.pop()
                else:
                    body(c)
            return c.v[rs] if rs >= 0 else None
        return CompiledExpr(fd.ret, ev, pure=False)

    def kernel_launch(self, node, fnode, ksyn, arg_nodes) -> CompiledExpr:
        if self.mode != "host":
            raise self.unsupported(node, "launching kernels from device code (dynamic parallelism)")
        if fnode.type == "template_function" and self.text(fnode.child_by_field_name("name")) in self.templates:
            td = self.templates[self.text(fnode.child_by_field_name("name"))]
            args = self.template_args(fnode.child_by_field_name("arguments"))
            deduce = self.deduce(td, [self.expr(a).t for a in arg_nodes]) if len(args) < len(td.params) else None
            fd = self.instantiate(td, args, node, deduce)
            name = fd.name
        elif fnode.type == "identifier" and self.text(fnode) in self.templates:
            td = self.templates[self.text(fnode)]
            fd = self.instantiate(td, [], node, self.deduce(td, [self.expr(a).t for a in arg_nodes]))
            name = fd.name
        else:
            name = self.text(fnode)
            fd = self.resolve_function(name)
        if fd is None:
            raise self.err(fnode, f"use of undeclared identifier '{name}'")
        if not fd.is_kernel:
            raise self.err(fnode, f"'{name}' is not a __global__ function and cannot be launched with <<<...>>>")
        cfg = [ch for ch in ksyn.named_children if ch.type != "comment"]
        if not 2 <= len(cfg) <= 4:
            raise self.err(ksyn, "a launch needs <<<grid, block[, shared bytes[, stream]]>>>")
        dims = []
        for cn in cfg[:2]:
            e = self.expr(cn)
            if not (e.t is ct.DIM3 or e.t.is_integer):
                raise self.err(cn, f"launch dimensions must be dim3 or integers, not '{e.t}'")
            dims.append(e.ev)
        smem = None
        if len(cfg) >= 3:
            se = self.expr(cfg[2])
            if not se.t.is_integer:
                raise self.err(cfg[2], "dynamic shared memory size must be an integer")
            smem = se.ev
        if len(cfg) == 4:
            self.expr(cfg[3])
        if len(arg_nodes) != len(fd.params):
            raise self.err(node, f"kernel '{fd.name}' takes {len(fd.params)} argument(s), {len(arg_nodes)} given")
        evs = [self.coerce(self.expr(a), pt, a).ev for a, (_, pt, _) in zip(arg_nodes, fd.params)]
        G, B = dims
        kname, line = fd.name, self.line(node)

        def ev(c):
            g, b = _to_dims(G(c)), _to_dims(B(c))
            s = int(np.asarray(smem(c)).reshape(-1)[0]) if smem is not None else 0
            vals = [f(c) for f in evs]
            c.blk.launch_kernel(kname, g, b, vals, s, line)
            return np.int32(0)
        return CompiledExpr(ct.VOID, ev, pure=False)

    # ---- built-in functions --------------------------------------------------------------------------------
    def builtin(self, name: str):
        if name == "__syncthreads":
            return self.b_syncthreads
        if name in ("cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cudaMemcpyToSymbolAsync",
                    "cudaMemcpyFromSymbolAsync"):
            return self.b_memcpy_symbol
        if name in DEVICE_NOOP:
            return self.b_noop
        if name in HOST_NOOP:
            return self.b_host_noop
        if name in ("atomicAdd", "atomicSub"):
            return self.b_atomic
        if name in ("min", "max", "umin", "umax", "llmin", "llmax", "fminf", "fmaxf", "fmin", "fmax"):
            return self.b_minmax
        if name in ("abs", "labs", "llabs"):
            return self.b_abs
        if name.startswith("make_") and name[5:] in ct.VECTORS:
            return self.b_make
        if name == "dim3":
            return self.b_make
        if name in ("assert",):
            return self.b_assert
        if name == "__ldg":
            return self.b_ldg
        if self.math_fn(name) is not None:
            return self.b_math
        if name in CONVERSIONS:
            return self.b_convert
        if name in WARP_SHUFFLES or name in WARP_VOTES or name in WARP_REDUCE or name in (
                "__syncwarp", "__activemask"):
            return self.b_warp
        if name in ("__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__ballot", "__any", "__all"):
            return self.b_legacy_warp
        if name in ("__syncthreads_count", "__syncthreads_and", "__syncthreads_or") or \
                name.startswith(("__shfl", "__ballot", "__match", "atomic")) or \
                name in ("__any_sync", "__all_sync", "__activemask"):
            return self.b_unsupported
        return None

    def b_memcpy_symbol(self, name, arg_nodes, node) -> CompiledExpr:
        """``cudaMemcpyToSymbol(sym, src, count[, offset[, kind[, stream]]])`` and ``cudaMemcpyFromSymbol(dst, sym,
        count[, offset[, kind[, stream]]])`` in host code: bytes between a host array and a __constant__ variable."""
        if self.mode != "host":
            raise self.err(node, f"{name}() can only be called in host code")
        if not 3 <= len(arg_nodes) <= 6:
            raise self.err(node, f"{name} takes 3 to 6 arguments, {len(arg_nodes)} given")
        to = "ToSymbol" in name
        sn, pn = (arg_nodes[0], arg_nodes[1]) if to else (arg_nodes[1], arg_nodes[0])
        sym = self.lookup(self.text(sn)) if sn.type == "identifier" else None
        if getattr(sym, "space", None) != "constant":
            raise self.err(sn, f"{name}: '{self.text(sn)}' is not a __constant__ variable of this file")
        p = self.expr(pn)
        if p.t.kind != "ptr":
            raise self.err(pn, f"{name}: '{self.text(pn)}' must be a pointer to host data (an array argument)")
        count = self.coerce(self.expr(arg_nodes[2]), ct.LLONG, arg_nodes[2]).ev
        offset = self.coerce(self.expr(arg_nodes[3]), ct.LLONG, arg_nodes[3]).ev if len(arg_nodes) > 3 else None
        for a in arg_nodes[4:]:
            if a.type != "identifier" or not self.text(a).startswith("cudaMemcpy"):
                self.expr(a)
        store, P, where = sym.store, p.ev, self.loc(node)

        def ev(c):
            ptr = P(c)
            n = int(np.asarray(count(c)).reshape(-1)[0])
            off = 0 if offset is None else int(np.asarray(offset(c)).reshape(-1)[0])
            dev = store.data.view(np.uint8)
            host = ptr.buf.reshape(-1).view(np.uint8)
            hoff = int(np.asarray(ptr.boff).reshape(-1)[0])
            if n < 0 or off < 0 or off + n > dev.size or hoff + n > host.size:
                raise CudaRuntimeError(f"{name}: {n} bytes at offset {off} do not fit '{sym.name}' ({dev.size} bytes) "
                                       f"and the host array ({host.size - hoff} bytes from the pointer): "
                                       "cudaErrorInvalidValue", file=self.file, line=where[0], col=where[1],
                                       source=self.pp.line_text(where[0]))
            if to:
                dev[off:off + n] = host[hoff:hoff + n]
            else:
                host[hoff:hoff + n] = dev[off:off + n]
            return np.int32(0)
        return CompiledExpr(ct.INT, ev, pure=False)

    def b_legacy_warp(self, name, arg_nodes, node) -> CompiledExpr:
        raise self.err(node, f"{name}() was removed for sm_70 and later (the H200 is sm_90): use {name}_sync(mask, "
                       "...) with the mask of the lanes that take part, e.g. 0xffffffff", CudaUnsupportedError)

    def b_warp(self, name, arg_nodes, node) -> CompiledExpr:
        """Warp shuffles, votes, reductions, ``__syncwarp`` and ``__activemask`` (labsim.cuda.warp)."""
        if self.mode == "host":
            raise self.err(node, f"{name}() can only be called in device code")
        where = self.loc(node)
        if name == "__activemask":
            self.args(arg_nodes, 0, name, node)
            return CompiledExpr(ct.UINT, lambda c: _warp.activemask(c.act), pure=False)
        if name == "__syncwarp":
            es = self.args(arg_nodes, (0, 1), name, node)
            M = self.coerce(es[0], ct.UINT, node).ev if es else (lambda c: _warp.FULL)

            def ev_sync(c):
                if c.loads is not None:
                    c.loads.clear()
                self._warp_call(c, where, name, lambda act, live: _warp.syncwarp(M(c), act, live, name))
            return CompiledExpr(ct.VOID, ev_sync, pure=False)
        if name in WARP_SHUFFLES:
            es = self.args(arg_nodes, (3, 4), name, node)
            t = es[1].t
            if t.kind == "vec" or not t.is_arith:
                raise self.err(node, f"no matching function for call to {name} with a value of type '{t}' (labsim: "
                               "int, unsigned, long long, unsigned long long, float, double, __half)")
            if t.kind in ("bool", "int") and t.rank < 4:
                t = ct.INT
            M = self.coerce(es[0], ct.UINT, node).ev
            V = self.coerce(es[1], t, node).ev
            B = self.coerce(es[2], ct.INT if name == "__shfl_sync" else ct.UINT, node).ev
            W = self.coerce(es[3], ct.INT, node).ev if len(es) == 4 else (lambda c: np.int32(32))
            mode = WARP_SHUFFLES[name]
            return CompiledExpr(t, lambda c: self._warp_call(c, where, name, lambda act, live: _warp.shuffle(
                mode, V(c), B(c), W(c), M(c), act, live, name)), pure=False)
        if name in WARP_VOTES:
            m, p = self.args(arg_nodes, 2, name, node)
            M = self.coerce(m, ct.UINT, node).ev
            P = self.truth(p, arg_nodes[1]).ev
            if name == "__ballot_sync":
                return CompiledExpr(ct.UINT, lambda c: self._warp_call(c, where, name, lambda act, live: _warp.ballot(
                    P(c), M(c), act, live, name)), pure=False)
            kind = WARP_VOTES[name]
            return CompiledExpr(ct.INT, lambda c: self._warp_call(c, where, name, lambda act, live: _warp.vote(
                kind, P(c), M(c), act, live, name)), pure=False)
        m, v = self.args(arg_nodes, 2, name, node)
        op = WARP_REDUCE[name]
        if not v.t.is_integer:
            raise self.err(node, f"no matching function for call to {name}('{v.t}'): the value must be an integer "
                           "(int or unsigned)")
        signed = v.t.signed and op in ("add", "min", "max") and ct.promote(v.t).dtype.itemsize <= 4
        t = ct.INT if signed else ct.UINT
        M, V = self.coerce(m, ct.UINT, node).ev, self.coerce(v, t, node).ev
        dt = t.dtype
        return CompiledExpr(t, lambda c: self._warp_call(c, where, name, lambda act, live: _warp.reduce(
            op, V(c), M(c), act, live, name, dt)), pure=False)

    def _warp_call(self, c, where, name, fn):
        blk = c.blk
        live = getattr(blk, "live", None)
        act = np.asarray(c.act, dtype=bool)
        if live is None:
            live = act
        try:
            return fn(act, np.asarray(live, dtype=bool))
        except _warp.Undefined as u:
            extra = {}
            if hasattr(blk, "tx"):
                i = u.lane
                extra = {"block": (int(blk.bx[i]), int(blk.by[i]), int(blk.bz[i])),
                         "thread": (int(blk.tx[i]), int(blk.ty[i]), int(blk.tz[i])), "lane": i % 32}
            raise _warp.WarpSyncError(u.message, file=self.file, line=where[0], col=where[1],
                                      source=self.pp.line_text(where[0]), **extra) from None

    def b_unsupported(self, name, arg_nodes, node) -> CompiledExpr:
        raise self.unsupported(node, f"{name}()")

    def b_syncthreads(self, name, arg_nodes, node) -> CompiledExpr:
        self.args(arg_nodes, 0, name, node)
        if self.mode == "host":
            raise self.err(node, "__syncthreads() can only be called in device code")
        line, col = self.loc(node)

        def ev(c):
            if c.loads is not None:
                c.loads.clear()          # other threads' writes become visible: nothing stays in registers
            try:
                c.blk.sync(line=line)
            except LabsimError as e:
                e.where.setdefault("col", col)
                raise
        return CompiledExpr(ct.VOID, ev, pure=False)

    def b_noop(self, name, arg_nodes, node) -> CompiledExpr:
        for a in arg_nodes:
            self.expr(a)
        return CompiledExpr(ct.VOID, lambda c: None, pure=False)

    def b_host_noop(self, name, arg_nodes, node) -> CompiledExpr:
        if self.mode != "host":
            raise self.err(node, f"{name}() can only be called in host code")
        for a in arg_nodes:
            if a.type != "pointer_expression":
                self.expr(a)
        return CompiledExpr(ct.INT, lambda c: np.int32(0), pure=False)

    def b_atomic(self, name, arg_nodes, node) -> CompiledExpr:
        p, v = self.args(arg_nodes, 2, name, node)
        if self.mode == "host":
            raise self.err(node, f"{name}() can only be called in device code")
        if p.t.kind != "ptr":
            raise self.err(node, f"the first argument of {name} must be an address (&a[i]), not '{p.t}'")
        t = p.t.elem
        if t.kind not in ("int", "float") or t.size not in (4, 8) or t is ct.HALF:
            raise self.unsupported(node, f"{name} on {t}")
        if p.t.const:
            raise self.err(node, f"{name} on a pointer to const")
        v = self.coerce(v, t, node)
        neg = name == "atomicSub"
        P, V = p.ev, v.ev
        line = self.line(node)
        an = arg_nodes[0]
        while an.type in ("pointer_expression", "subscript_expression", "parenthesized_expression",
                          "binary_expression"):
            an = an.child_by_field_name("argument") or an.child_by_field_name("left") or an.named_children[0]
        aname = self.text(an) if an.type == "identifier" else "memory"
        size, dt = t.size, t.dtype
        where = self.loc(node)
        if self.in_tail:
            self.branch_sites.add(where)
        self.mem_sites[where] = (p.t.space or "global", ("atom", "red"))
        if t.kind == "int" and self.uniform_address(arg_nodes[0]):
            self.agg_sites.add(where)     # nvcc: vote + popc + one lane's atomic (labsim.cuda.sass)
        # a call whose result is discarded compiles to a reduction (RED), counted apart from ATOM by ncu
        returns = not (node.parent is not None and node.parent.type == "expression_statement")

        def ev(c):
            c.blk.tick(MEM_STEPS)
            ptr = P(c)
            val = V(c)
            if c.loads is not None:
                c.loads.store(ptr.space, ptr.buf)
            if neg:
                val = np.negative(val)
            buf = ptr.buf
            boff = ptr.boff
            if np.any(np.asarray(boff) % size):
                raise CudaRuntimeError(f"misaligned address in {name} on {aname}", file=self.file, line=where[0],
                                       col=where[1], source=self.pp.line_text(where[0]))
            if buf.dtype != dt:
                if ptr.space == "shared":
                    raise CudaRuntimeError(f"{name} on shared array {aname} through a pointer of another type is "
                                           "not supported", file=self.file, line=where[0], col=where[1])
                flat = buf.reshape(-1)
                buf = flat.view(np.uint8)[:flat.nbytes - flat.nbytes % size].view(dt)
            idx = np.asarray(boff, dtype=np.int64) // size
            return c.blk.atomic_add(buf, idx, val, line=line, name=aname, returns=returns, col=where[1])
        return CompiledExpr(t, ev, pure=False)

    def b_minmax(self, name, arg_nodes, node) -> CompiledExpr:
        a, b = self.args(arg_nodes, 2, name, node)
        if not (a.t.is_arith and b.t.is_arith):
            raise self.err(node, f"no matching function for call to {name}('{a.t}', '{b.t}')")
        t = ct.common_type(a.t, b.t)
        if name.startswith("f"):
            t = ct.FLOAT if name.endswith("f") else (ct.DOUBLE if t.kind != "float" or t is ct.DOUBLE else t)
            if t is ct.HALF:
                t = ct.FLOAT
        elif name.startswith("u"):
            t = ct.UINT
        elif name.startswith("ll"):
            t = ct.LLONG
        t = ct.promote(t)
        a, b = self.coerce(a, t, node), self.coerce(b, t, node)
        is_min = "min" in name
        f = (np.fmin if is_min else np.fmax) if t.kind == "float" else (np.minimum if is_min else np.maximum)
        return self.fold2(f, a, b, t)

    def fold2(self, f, a: CompiledExpr, b: CompiledExpr, t: CType) -> CompiledExpr:
        if a.k is not None and b.k is not None:
            return const_e(t.dtype.type(f(a.k, b.k)), t)
        A, B = a.ev, b.ev
        return CompiledExpr(t, lambda c: f(A(c), B(c)), pure=a.pure and b.pure)

    def fold1(self, f, a: CompiledExpr, t: CType) -> CompiledExpr:
        if a.k is not None:
            return const_e(t.dtype.type(f(a.k)), t)
        A = a.ev
        return CompiledExpr(t, lambda c: f(A(c)), pure=a.pure)

    def b_abs(self, name, arg_nodes, node) -> CompiledExpr:
        (a,) = self.args(arg_nodes, 1, name, node)
        if not a.t.is_arith:
            raise self.err(node, f"no matching function for call to {name}('{a.t}')")
        t = ct.promote(a.t) if name == "abs" else (ct.LONG if name == "labs" else ct.LLONG)
        return self.fold1(np.abs, self.coerce(a, t, node), t)

    def math_fn(self, name: str):
        if _INTRINSIC_1.get(name):
            return ("1", _F32[_INTRINSIC_1[name]], ct.FLOAT)
        if name in _INTRINSIC_2:
            return ("2", np.power if name == "__powf" else np.true_divide, ct.FLOAT)
        base, t = (name[:-1], ct.FLOAT) if name.endswith("f") and name[:-1] in _F32 | _F32_2 | {
            "round": 0, "rsqrt": 0, "fma": 0} else (name, None)
        if base in _F32:
            return ("1", _F32[base], t)
        if base == "round":
            return ("1", _round_half_away, t)
        if base == "rsqrt":
            return ("1", _rsqrt, t)
        if base in _F32_2:
            return ("2", _F32_2[base], t)
        if base in ("fma", "__fmaf_rn"):
            return ("3", None, t)
        if name == "__saturatef":
            return ("1", lambda v: np.clip(v, 0, 1).astype(np.asarray(v).dtype), ct.FLOAT)
        return None

    def b_math(self, name, arg_nodes, node) -> CompiledExpr:
        arity, f, t = self.math_fn(name)
        es = self.args(arg_nodes, int(arity), name, node)
        for e in es:
            if not e.t.is_arith:
                raise self.err(node, f"no matching function for call to {name}('{e.t}')")
        if t is None:  # overloaded <cmath> name: float stays float, everything else is double
            t = ct.FLOAT if all(e.t in (ct.FLOAT, ct.HALF) for e in es) else ct.DOUBLE
        es = [self.coerce(e, t, node) for e in es]
        if arity == "1":
            return self.fold1(f, es[0], t)
        if arity == "2":
            return self.fold2(f, es[0], es[1], t)
        A, B, C = (e.ev for e in es)
        dt = t.dtype

        def fma(c):
            r = (np.asarray(A(c), np.float64) * np.asarray(B(c), np.float64) + np.asarray(C(c), np.float64))
            r = r.astype(dt)
            return r[()] if r.ndim == 0 else r
        return CompiledExpr(t, fma, pure=all(e.pure for e in es))

    def b_make(self, name, arg_nodes, node) -> CompiledExpr:
        t = ct.DIM3 if name == "dim3" else ct.VECTORS[name[5:]]
        if name != "dim3" and len(arg_nodes) != len(t.fields):
            raise self.err(node, f"{name} takes {len(t.fields)} arguments, {len(arg_nodes)} given")
        return self.make_vector(t, arg_nodes, node, partial=name == "dim3")

    def make_vector(self, t: CType, items, node, partial: bool) -> CompiledExpr:
        n = len(t.fields)
        partial = partial or t is ct.DIM3
        if len(items) > n or (not partial and len(items) != n):
            raise self.err(node, f"{t} needs {n} components, {len(items)} given")
        comps = [self.coerce(self.expr(it), t.elem, it) for it in items]
        fill = t.elem.dtype.type(1 if t is ct.DIM3 else 0)
        evs = [e.ev for e in comps] + [(lambda c, f=fill: f)] * (n - len(comps))
        return CompiledExpr(t, lambda c: tuple(f(c) for f in evs), pure=all(e.pure for e in comps))

    def b_assert(self, name, arg_nodes, node) -> CompiledExpr:
        (a,) = self.args(arg_nodes, 1, name, node)
        cond = self.truth(a, arg_nodes[0])
        C = cond.ev
        text = self.text(arg_nodes[0])
        where = self.loc(node)

        def ev(c):
            x = C(c)
            bad = ~np.broadcast_to(x, c.act.shape) & c.act
            if bad.any():
                lane = int(np.argmax(bad))
                extra = {}
                if hasattr(c.blk, "tx"):
                    b = c.blk
                    extra = {"block": (int(b.bx[lane]), int(b.by[lane]), int(b.bz[lane])),
                             "thread": (int(b.tx[lane]), int(b.ty[lane]), int(b.tz[lane]))}
                raise CudaRuntimeError(f"assertion failed: {text}", file=self.file, line=where[0], col=where[1],
                                       source=self.pp.line_text(where[0]), **extra)
        return CompiledExpr(ct.VOID, ev, pure=False)

    def b_ldg(self, name, arg_nodes, node) -> CompiledExpr:
        (p,) = self.args(arg_nodes, 1, name, node)
        if p.t.kind != "ptr":
            raise self.err(node, "__ldg needs a pointer argument")
        an = arg_nodes[0]
        nm = self.text(an) if an.type == "identifier" else "memory"
        return self.lv_e(element_lv(self, p, const_e(np.int64(0), ct.LLONG), node, nm))

    def b_convert(self, name, arg_nodes, node) -> CompiledExpr:
        src, dst, f = CONVERSIONS[name]
        (a,) = self.args(arg_nodes, 1, name, node)
        if not a.t.is_arith:
            raise self.err(node, f"no matching function for call to {name}('{a.t}')")
        a = self.coerce(a, src, node)
        if f is None:
            return self.coerce(a, dst, node, explicit=True)
        return self.fold1(f, a, dst)


WARP_SHUFFLES = {"__shfl_sync": "idx", "__shfl_up_sync": "up", "__shfl_down_sync": "down",
                 "__shfl_xor_sync": "bfly"}
WARP_VOTES = {"__ballot_sync": "ballot", "__any_sync": "any", "__all_sync": "all"}
WARP_REDUCE = {f"__reduce_{op}_sync": op for op in ("add", "min", "max", "and", "or", "xor")}


def _rn_int(dt):
    def f(v):
        return ct._float_to_int(np.rint(np.asarray(v, dtype=np.float64)), np.dtype(dt))
    return f


def _bits(dt):
    def f(v):
        a = np.asarray(v)
        r = a.view(np.dtype(dt))
        return r[()] if r.ndim == 0 else r
    return f


CONVERSIONS = {
    "__float2half": (ct.FLOAT, ct.HALF, None), "__float2half_rn": (ct.FLOAT, ct.HALF, None),
    "__half2float": (ct.HALF, ct.FLOAT, None), "__int2float_rn": (ct.INT, ct.FLOAT, None),
    "__int2half_rn": (ct.INT, ct.HALF, None),
    "__uint2float_rn": (ct.UINT, ct.FLOAT, None), "__float2int_rz": (ct.FLOAT, ct.INT, None),
    "__float2uint_rz": (ct.FLOAT, ct.UINT, None), "__double2float_rn": (ct.DOUBLE, ct.FLOAT, None),
    "__int2double_rn": (ct.INT, ct.DOUBLE, None), "__float2int_rn": (ct.FLOAT, ct.INT, _rn_int(np.int32)),
    "__float2uint_rn": (ct.FLOAT, ct.UINT, _rn_int(np.uint32)),
    "__float2int_rd": (ct.FLOAT, ct.INT, lambda v: ct._float_to_int(np.floor(np.asarray(v, np.float64)),
                                                                    np.dtype(np.int32))),
    "__float2int_ru": (ct.FLOAT, ct.INT, lambda v: ct._float_to_int(np.ceil(np.asarray(v, np.float64)),
                                                                    np.dtype(np.int32))),
    "__int_as_float": (ct.INT, ct.FLOAT, _bits(np.float32)), "__float_as_int": (ct.FLOAT, ct.INT, _bits(np.int32)),
    "__uint_as_float": (ct.UINT, ct.FLOAT, _bits(np.float32)),
    "__float_as_uint": (ct.FLOAT, ct.UINT, _bits(np.uint32)),
    "__popc": (ct.UINT, ct.INT, lambda v: np.bitwise_count(v).astype(np.int32)),
    "__popcll": (ct.ULLONG, ct.INT, lambda v: np.bitwise_count(v).astype(np.int32)),
}

__all__ = ["ALLOC", "CONVERSIONS", "FORBIDDEN", "PRINT", "CallMixin", "is_scalar"]
