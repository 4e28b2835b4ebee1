"""Compile a parsed translation unit into closures: declarations, types, scopes, functions, inlining.

Expressions live in ``expr.py``, statements in ``stmt.py``, built-in functions in ``builtins.py``; this module
mixes them into one ``Compiler`` (scopes, slots, diagnostics) and walks the top level. The names the mixins
share (``Reparse``, ``FnState``, ``LoopState``, ``UNSUPPORTED`` ...) live in the leaf module ``symbols.py``, so
no mixin imports this module.
"""
from __future__ import annotations

import math
import re

import numpy as np

from . import ctype as ct
from .builtins import CallMixin
from .ctype import CType
from .errors import CudaCompileError, CudaSyntaxError, CudaUnsupportedError
from .expr import ExprMixin
from .preprocess import Preprocessed
from .stmt import StmtMixin
from .access import mem_dtype
from .symbols import (AUTO, UNSUPPORTED, ArraySym, ConstantMemory, FnState, FuncDef, FunctionCode, LoopState, Sym,
                      TemplateDef)

MAX_NODES = 50_000          # compiled AST nodes per program (inlining can multiply a small source)



class Compiler(StmtMixin, ExprMixin, CallMixin):
    """One compiler per program: ``Compiler(pp, tree, file).run()`` -> (kernels, host functions, funcs)."""

    def __init__(self, pp: Preprocessed, root, filename: str) -> None:
        self.pp = pp
        self.file = filename
        self.root = root
        self.exp_lines = pp.text.split("\n")
        self.globals: dict[str, Sym] = {}
        self.funcs: dict[str, FuncDef] = {}
        self._weights: dict[str, int] = {}
        self.structs: dict[str, CType] = {}
        self.constants: dict = {}               # __constant__ variables: name -> ConstantMemory
        self.templates: dict[str, TemplateDef] = {}
        self.tbind: dict = {}                   # the template instance being compiled: name -> CType or Sym
        self.pending_kernels: list[str] = []    # kernel instances made while compiling host code
        self.nodes = 0
        self._reset("device")

    def __repr__(self) -> str:
        return f"Compiler({self.file!r}, {len(self.funcs)} functions)"

    def _reset(self, mode: str) -> None:
        self.mode = mode
        self.scopes: list[dict[str, Sym]] = []
        self.nslots = 0
        self.njm = 0
        self.shared = []
        self.shared_keys: dict = {}
        self.coords: dict[str, int] = {}
        self.local_bytes = 0
        self.fn: FnState | None = None
        self.loops: list[LoopState] = []
        self.inline_stack: list[str] = []
        # source rules for what ptxas does (labsim.cuda.sass): candidates per instruction site (line, col)
        self.unroll: list = []                  # per enclosing loop: (var Sym, first, trip) if fully unrolled
        self.vec_loop: dict = {}                # site -> (width, bytes): a[k] in an unrolled loop
        self.vec_const: dict = {}               # (line, array, leading indices, base) -> {pos: site}
        self.vec_stride: dict = {}              # site -> executions between two of one vector group
        self.vec_store: dict = {}               # ("st", block, array, leading, base) -> {pos: site}, {pos: stmt}
        self.union_sites: dict = {}             # (line, col, op) -> (group, arm): if/else arms sharing an access
        self.branch_sites: set = set()          # sites in the kernel's tail `if` (ptxas exits the other warps)
        self.agg_sites: set = set()             # integer atomics on a warp-uniform address
        self.mem_sites: dict = {}               # every memory site -> (space, ops), for the SASS decisions
        self.tail_if = None
        self.in_tail = 0
        self.uniform_syms: set = set()          # locals initialised from warp-uniform values
        self.tail_loop_if = None              # (loop start byte, if start byte): the kernel ends in an unrolled loop
        self.entry_params: set = set()
        self.batch_rec = None                   # BatchRecorder of the loop body being compiled (labsim.cuda.batch)

    # ---- diagnostics ---------------------------------------------------------------------------------------
    def loc(self, node) -> tuple[int, int]:
        row, bcol = node.start_point
        text = self.exp_lines[row] if row < len(self.exp_lines) else ""
        col = len(text.encode("utf-8")[:bcol].decode("utf-8", "ignore")) + 1
        return self.pp.position(row + 1, col)

    def line(self, node) -> int:
        return self.loc(node)[0]

    def err(self, node, msg: str, cls=CudaCompileError) -> Exception:
        line, col = self.loc(node)
        return cls(msg, file=self.file, line=line, col=col, source=self.pp.line_text(line))

    def unsupported(self, node, what: str) -> Exception:
        return self.err(node, f"{what} {'are' if what.endswith('s') and not what.endswith('ss') else 'is'} not "
                        "supported by labsim", CudaUnsupportedError)

    def count(self, node) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.err(node, f"program too large for labsim (over {MAX_NODES} AST nodes after inlining "
                           "device functions)", CudaUnsupportedError)

    @staticmethod
    def text(node) -> str:
        return node.text.decode("utf-8")

    # ---- scopes and slots ----------------------------------------------------------------------------------
    def new_slot(self) -> int:
        self.nslots += 1
        return self.nslots - 1

    def new_jm(self) -> int:
        self.njm += 1
        return self.njm - 1

    def lookup(self, name: str) -> Sym | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        bound = self.tbind.get(name)
        if isinstance(bound, Sym):
            return bound
        return self.globals.get(name)

    def declare(self, node, sym: Sym) -> None:
        scope = self.scopes[-1] if self.scopes else self.globals
        if sym.name in scope and scope is not self.globals:
            raise self.err(node, f"redefinition of '{sym.name}'")
        scope[sym.name] = sym
        rec = self.batch_rec
        if rec is not None and scope is not self.globals:
            rec.declared.add(id(sym))
            if sym.slot is not None:
                rec.decl_slots.append(sym.slot)

    # ---- types ---------------------------------------------------------------------------------------------
    def quals_of(self, node) -> set[str]:
        quals: set[str] = set()
        for ch in node.children:
            if ch.type in ("type_qualifier", "storage_class_specifier", "virtual", "explicit_function_specifier"):
                quals.add(" ".join(self.text(ch).split()))
            elif not ch.is_named and ch.type.startswith("__"):
                quals.add(ch.type)
            elif ch.type == "attribute_specifier" or ch.type == "attribute_declaration":
                continue
        return quals

    def base_type(self, tnode) -> CType:
        if tnode is None:
            raise CudaSyntaxError("missing type")
        kind = tnode.type
        if kind == "type_identifier" and isinstance(self.tbind.get(self.text(tnode)), CType):
            return self.tbind[self.text(tnode)]
        if kind in ("type_identifier", "struct_specifier") and tnode.child_by_field_name("body") is None:
            st = self.structs.get(self.text(tnode if kind == "type_identifier" else tnode.child_by_field_name("name")))
            if st is not None:
                return st
        if kind in UNSUPPORTED:
            raise self.unsupported(tnode, UNSUPPORTED[kind])
        if kind == "placeholder_type_specifier":
            return AUTO
        text = " ".join(self.text(tnode).split())
        if kind == "qualified_identifier" and any(ch.type in ("template_type", "template_function")
                                                  for ch in tnode.named_children):
            raise self.unsupported(tnode, "templates")
        if kind == "qualified_identifier":
            text = text.replace(" ", "")
            for prefix in ("::", "std::", "cuda::std::"):
                text = text.removeprefix(prefix)
        if kind == "sized_type_specifier":
            words = text.split()
            order = {"signed": 0, "unsigned": 0, "short": 1, "long": 1, "char": 2, "int": 3, "double": 3}
            text = " ".join(sorted(words, key=lambda w: order.get(w, 4)))
        t = ct.SCALARS.get(text)
        if t is None:
            if text in ct.WIDE_VECTORS or text in ("__half2", "half2", "__nv_bfloat162"):
                raise self.err(tnode, f"vector type {text} is not supported by labsim (it models CUDA's vector "
                               "types of up to 16 bytes: char1-4 ... float1-4, double1-3, longlong1-2)",
                               CudaUnsupportedError)
            if text in ("__nv_bfloat16", "nv_bfloat16", "long double", "wchar_t", "char16_t", "char32_t"):
                raise self.err(tnode, f"type {text} is not supported by labsim", CudaUnsupportedError)
            raise self.err(tnode, f"unknown type name '{text}'")
        return t

    def unwrap_declarator(self, node, t: CType, quals: set[str]):
        """Peel a declarator: returns (name, name node, type, array dim nodes, initializer, var is const)."""
        dims: list = []
        init = None
        var_const = False
        while True:
            kind = node.type
            if kind == "init_declarator":
                init = node.child_by_field_name("value")
                node = node.child_by_field_name("declarator")
            elif kind == "pointer_declarator":
                if t.kind == "ptr":
                    raise self.unsupported(node, "pointers to pointers")
                if dims:
                    raise self.unsupported(node, "arrays of pointers")
                for ch in node.children:
                    if ch.type == "type_qualifier" and self.text(ch) == "const":
                        var_const = True
                t = ct.pointer_to(t, const="const" in quals)
                node = node.child_by_field_name("declarator")
            elif kind == "array_declarator":
                dims.append(node.child_by_field_name("size"))
                node = node.child_by_field_name("declarator")
            elif kind in ("identifier", "field_identifier", "qualified_identifier"):
                dims.reverse()
                const = var_const or (t.kind != "ptr" and bool({"const", "constexpr"} & quals))
                return self.text(node), node, t, dims, init, const
            elif kind in ("function_declarator", "abstract_function_declarator"):
                inner = node.child_by_field_name("declarator")
                if inner is not None and inner.type == "parenthesized_declarator":
                    raise self.unsupported(node, "function pointers")
                raise self.err(node, "a function cannot be declared here")
            elif kind == "parenthesized_declarator":
                if any(ch.type in ("pointer_declarator", "function_declarator") for ch in node.named_children):
                    raise self.unsupported(node, "function pointers")
                node = node.named_children[0]
            elif kind in UNSUPPORTED:
                raise self.unsupported(node, UNSUPPORTED[kind])
            else:
                raise self.err(node, f"unexpected declarator ({kind})", CudaSyntaxError)

    def type_descriptor(self, node) -> CType:
        """A type written in a cast or sizeof: ``float``, ``const float4*``."""
        quals = self.quals_of(node)
        t = self.base_type(node.child_by_field_name("type"))
        d = node.child_by_field_name("declarator")
        while d is not None:
            if d.type == "abstract_pointer_declarator":
                if t.kind == "ptr":
                    raise self.unsupported(d, "pointers to pointers")
                t = ct.pointer_to(t, const="const" in quals)
                d = d.child_by_field_name("declarator")
            elif d.type in UNSUPPORTED:
                raise self.unsupported(d, UNSUPPORTED[d.type])
            elif d.type == "abstract_function_declarator":
                raise self.unsupported(d, "function pointers")
            else:
                raise self.unsupported(d, f"the type {self.text(node)}")
        return t

    def const_int(self, node, what: str) -> int:
        e = self.expr(node)
        if e.k is None or not e.t.is_integer:
            raise self.err(node, f"{what} is not an integral constant expression")
        return int(e.k)

    # ---- top level -----------------------------------------------------------------------------------------
    def run(self) -> tuple[dict[str, FunctionCode], dict[str, FunctionCode], dict[str, FuncDef]]:
        self.collect(self.root, "")
        kernels, hosts = {}, {}
        for name, fd in list(self.funcs.items()):
            if "::" in name and fd.name in self.funcs and self.funcs[fd.name] is fd:
                continue
            if fd.body is None:
                continue
            if fd.is_kernel:
                kernels[fd.name] = self.compile_entry(fd, "device")
            elif fd.is_device and not fd.is_host:
                self.compile_entry(fd, "device")        # check it now, as a compiler would
            else:
                hosts[fd.name] = self.compile_entry(fd, "host")
        while self.pending_kernels:      # template kernels the host code launched: red<256>
            key = self.pending_kernels.pop(0)
            if key not in kernels:
                kernels[key] = self.compile_entry(self.funcs[key], "device")
        return kernels, hosts, self.funcs

    def collect(self, node, prefix: str) -> None:
        for ch in node.named_children:
            kind = ch.type
            if kind == "comment":
                continue
            if kind == "function_definition":
                self.add_function(ch, prefix)
            elif kind == "declaration":
                self.global_declaration(ch, prefix)
            elif kind == "namespace_definition":
                name = ch.child_by_field_name("name")
                body = ch.child_by_field_name("body")
                self.collect(body, prefix + (self.text(name) + "::" if name is not None else ""))
            elif kind == "linkage_specification":
                body = ch.child_by_field_name("body")
                if body.type == "declaration_list":
                    self.collect(body, prefix)
                elif body.type == "function_definition":
                    self.add_function(body, prefix)
                else:
                    self.global_declaration(body, prefix)
            elif kind == "using_declaration":
                if "namespace" not in self.text(ch):
                    raise self.unsupported(ch, "using-declarations")
            elif kind == "static_assert_declaration":
                self.static_assert(ch)
            elif kind == "template_declaration":
                self.add_template(ch, prefix)
            elif kind == "struct_specifier" and ch.child_by_field_name("body") is not None:
                self.struct_definition(ch)
            elif kind in UNSUPPORTED:
                raise self.unsupported(ch, UNSUPPORTED[kind])
            elif kind == "expression_statement" and not ch.named_children:
                continue
            else:
                raise self.err(ch, f"expected a declaration or function definition, found {kind.replace('_', ' ')}",
                               CudaSyntaxError)

    def struct_definition(self, node) -> None:
        """``struct P { float x, y, z; };``: plain members of one 4-byte int or float type. An access to a member
        (``p[i].x``) is one 4-byte access; a whole element (``P v = p[i];``) is one access per member, as nvcc
        compiles a struct aligned to 4 bytes."""
        name = node.child_by_field_name("name")
        if name is None:
            raise self.unsupported(node, "anonymous structs")
        fields: list[str] = []
        ftype = None
        for fd in node.child_by_field_name("body").named_children:
            if fd.type == "comment":
                continue
            if fd.type != "field_declaration" or fd.child_by_field_name("type") is None:
                raise self.unsupported(fd, "struct members other than plain data fields")
            t = self.base_type(fd.child_by_field_name("type"))
            for d in fd.children_by_field_name("declarator"):
                if d.type != "field_identifier":
                    raise self.unsupported(d, "struct members other than scalars (arrays, pointers, bit-fields)")
                fields.append(self.text(d))
            if ftype is not None and not ftype.same(t):
                raise self.unsupported(fd, "structs mixing member types")
            ftype = t
        if ftype is None or ftype.kind not in ("int", "float") or ftype.size != 4 or len(set(fields)) != len(fields):
            raise self.unsupported(node, "structs other than 4-byte int or float members")
        tname = self.text(name)
        self.structs[tname] = CType(tname, "vec", None, 0, True, tuple(fields), ftype,
                                    vdtype=np.dtype([(f, ftype.dtype) for f in fields]), struct=True)

    def static_assert(self, node) -> None:
        cond = node.child_by_field_name("condition")
        if self.const_int(cond, "static_assert condition") == 0:
            msg = node.child_by_field_name("message")
            raise self.err(node, "static assertion failed" + (f": {self.text(msg)}" if msg is not None else ""))

    def add_function(self, node, prefix: str) -> None:
        quals = self.quals_of(node)
        ret = self.base_type(node.child_by_field_name("type"))
        d = node.child_by_field_name("declarator")
        while d.type == "pointer_declarator":
            ret = ct.pointer_to(ret)
            d = d.child_by_field_name("declarator")
        if d.type == "reference_declarator":
            raise self.unsupported(d, "references (T&)")
        if d.type != "function_declarator":
            raise self.err(d, "expected a function declarator", CudaSyntaxError)
        name_node = d.child_by_field_name("declarator")
        if name_node.type not in ("identifier", "qualified_identifier"):
            if name_node.type in UNSUPPORTED:
                raise self.unsupported(name_node, UNSUPPORTED[name_node.type])
            raise self.unsupported(name_node, "this kind of function declarator")
        name = self.text(name_node)
        if "__global__" in quals and ret is not ct.VOID:
            raise self.err(node, f"a __global__ function must return void ('{name}' returns {ret})")
        params = self.parameters(d.child_by_field_name("parameters"))
        fd = FuncDef(name, frozenset(quals), ret, params, node.child_by_field_name("body"), node)
        for key in (name, prefix + name):
            old = self.funcs.get(key)
            if old is not None and old.body is not None and fd.body is not None and old is not fd:
                raise self.err(name_node, f"redefinition of '{name}' (overloading is not supported by labsim)")
            self.funcs[key] = fd

    def parameters(self, plist) -> list[tuple[str, CType, object]]:
        out = []
        for p in plist.named_children:
            if p.type == "comment":
                continue
            if p.type == "variadic_parameter":
                raise self.unsupported(p, "variadic functions")
            if p.type != "parameter_declaration":
                if p.type in UNSUPPORTED:
                    raise self.unsupported(p, UNSUPPORTED[p.type])
                raise self.unsupported(p, "this kind of parameter")
            quals = self.quals_of(p)
            t = self.base_type(p.child_by_field_name("type"))
            d = p.child_by_field_name("declarator")
            if d is None:
                if t is ct.VOID:
                    continue
                out.append(("", t, p))
                continue
            name, nnode, t, dims, _, const = self.unwrap_declarator(d, t, quals)
            if dims:  # float a[] as a parameter is a pointer
                if len(dims) > 1:
                    raise self.unsupported(p, "multi-dimensional array parameters")
                t = ct.pointer_to(t, const="const" in quals)
            out.append((name, t, p))
        return out

    def global_declaration(self, node, prefix: str) -> None:
        quals = self.quals_of(node)
        tnode = node.child_by_field_name("type")
        t = self.base_type(tnode)
        for d in node.children_by_field_name("declarator"):
            if d.type == "function_declarator" or (d.type == "pointer_declarator" and self._is_fn_decl(d)):
                self.prototype(node, quals, t, d, prefix)
                continue
            if "__constant__" in quals:
                name, nnode, vt, dims, init, _ = self.unwrap_declarator(d, t, quals)
                self.constant_declaration(d, prefix, name, nnode, vt, dims, init)
                continue
            for bad, what in (("__device__", "global __device__ variables"),
                              ("__managed__", "__managed__ memory"),
                              ("__shared__", "__shared__ variables at file scope")):
                if bad in quals:
                    raise self.unsupported(node, what)
            name, nnode, vt, dims, init, const = self.unwrap_declarator(d, t, quals)
            if dims:
                raise self.unsupported(d, "arrays at file scope (pass them as kernel arguments)")
            if not const or init is None:
                raise self.unsupported(d, "global variables (only const/constexpr scalars at file scope)")
            if vt.kind not in ("int", "float", "bool"):
                raise self.unsupported(d, f"file-scope constants of type {vt}")
            e = self.expr(init)
            if e.k is None:
                raise self.err(init, f"initializer of '{name}' is not a constant expression")
            value = ct.convert(e.k, e.t, vt) if e.t.is_arith else None
            sym = Sym(name, "const", vt, value=value, const=True, node=nnode)
            self.globals[name] = sym
            self.globals[prefix + name] = sym

    def constant_declaration(self, d, prefix, name, nnode, t, dims, init) -> None:
        """``__constant__ float c[64];`` (or a scalar): per-program storage that kernels read (LDC, not a global
        load: no memory counter sees it) and host code fills with ``cudaMemcpyToSymbol``."""
        if t.kind == "ptr" or t.struct or t is ct.DIM3 or t.kind not in ("int", "float", "vec", "bool"):
            raise self.unsupported(d, f"__constant__ variables of type {t}")
        shape = tuple(self.const_int(x, f"size of __constant__ array '{name}'") for x in dims if x is not None)
        if len(shape) != len(dims) or any(n <= 0 for n in shape):
            raise self.err(d, f"__constant__ array '{name}' needs a positive size")
        store = ConstantMemory(name, mem_dtype(t), shape)
        if store.data.nbytes > 64 * 1024:
            raise self.err(d, f"__constant__ '{name}' is {store.data.nbytes} bytes; constant memory holds 64 KiB")
        if init is not None:
            items = [ch for ch in init.named_children if ch.type != "comment"] if init.type == "initializer_list" \
                else [init]
            if len(items) > store.data.size:
                raise self.err(init, f"excess elements in initializer of '{name}'")
            for j, it in enumerate(items):
                e = self.coerce(self.expr(it), t, it) if t.kind != "vec" else None
                if e is None or e.k is None:
                    raise self.err(it, f"initializer of __constant__ '{name}' is not a constant expression")
                store.data[j] = e.k
        sym = ArraySym(name, "array", t, -1, const=True, node=nnode, space="constant", dims=shape, store=store)
        self.globals[name] = sym
        self.globals[prefix + name] = sym
        self.constants[name] = store

    # ---- templates: instantiated per use (red<256>, sum<float>, or deduced from the arguments) -------------
    def add_template(self, node, prefix: str) -> None:
        fnode = next((ch for ch in node.named_children if ch.type not in ("template_parameter_list", "comment")),
                     None)
        if fnode is None or fnode.type != "function_definition":
            raise self.unsupported(node, "templates other than function templates (class, struct or variable "
                                   "templates)")
        params = []
        for p in node.child_by_field_name("parameters").named_children:
            if p.type == "comment":
                continue
            if p.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
                ident = next((ch for ch in p.named_children if ch.type == "type_identifier"), None)
                if ident is None:
                    raise self.unsupported(p, "unnamed template parameters")
                params.append(("type", self.text(ident), p.child_by_field_name("default_type")))
            elif p.type in ("parameter_declaration", "optional_parameter_declaration"):
                t = self.base_type(p.child_by_field_name("type"))
                d = p.child_by_field_name("declarator")
                if not t.is_integer or d is None or d.type != "identifier":
                    raise self.unsupported(p, "template parameters other than integers and types")
                params.append((t, self.text(d), p.child_by_field_name("default_value")))
            else:
                raise self.unsupported(p, "this kind of template parameter (variadic or template template)")
        d = fnode.child_by_field_name("declarator")
        while d is not None and d.type == "pointer_declarator":
            d = d.child_by_field_name("declarator")
        nn = d.child_by_field_name("declarator") if d is not None and d.type == "function_declarator" else None
        if nn is None or nn.type != "identifier":
            raise self.unsupported(fnode, "this kind of function template")
        name = self.text(nn)
        td = TemplateDef(name, params, fnode, prefix)
        for key in {name, prefix + name}:
            if key in self.templates or key in self.funcs:
                raise self.err(nn, f"redefinition of '{name}' (overloading is not supported by labsim)")
            self.templates[key] = td

    def template_args(self, targs_node) -> list:
        """The arguments of ``<...>``: CTypes for types, ints for constant expressions."""
        out = []
        for a in targs_node.named_children:
            if a.type == "comment":
                continue
            if a.type == "type_descriptor":
                tn = a.child_by_field_name("type")
                nm = self.text(tn) if tn is not None and tn.type == "type_identifier" else None
                sym = self.lookup(nm) if nm is not None and a.child_by_field_name("declarator") is None else None
                if sym is not None and sym.kind == "const":        # red<N>: a constant parsed as a type name
                    out.append(int(sym.value))
                else:
                    out.append(self.type_descriptor(a))
            else:
                out.append(self.const_int(a, "template argument"))
        return out

    def instantiate(self, td: TemplateDef, args: list, node, deduce=None) -> FuncDef:
        """The instance of ``td`` for ``args`` (then ``deduce``: {type parameter: CType} from a call's arguments,
        then defaults), compiled on first use under its own bindings."""
        if len(args) > len(td.params):
            raise self.err(node, f"too many template arguments for '{td.name}' ({len(args)} given, "
                           f"{len(td.params)} parameters)")
        bind: dict = {}
        saved = self.tbind
        try:
            for k, (kind, pname, default) in enumerate(td.params):
                self.tbind = bind
                if k < len(args):
                    a = args[k]
                elif deduce and pname in deduce:
                    a = deduce[pname]
                elif default is not None:
                    a = self.type_descriptor(default) if kind == "type" and default.type == "type_descriptor" \
                        else (self.base_type(default) if kind == "type" else self.const_int(default, "template "
                                                                                           "argument"))
                else:
                    raise self.err(node, f"cannot deduce template argument '{pname}' of '{td.name}': give it "
                                   f"explicitly ({td.name}<...>)")
                if kind == "type":
                    if not isinstance(a, CType):
                        raise self.err(node, f"template argument for '{pname}' of '{td.name}' must be a type")
                    bind[pname] = a
                else:
                    if isinstance(a, CType):
                        raise self.err(node, f"template argument for '{pname}' of '{td.name}' must be an integer "
                                       "constant, not a type")
                    bind[pname] = Sym(pname, "const", kind, value=ct.scalar(int(a), kind), const=True)
            key = td.name + "<" + ", ".join(str(v) if isinstance(v, CType) else str(int(v.value))
                                            for v in bind.values()) + ">"
            fd = self.funcs.get(key)
            if fd is None:
                fnode = td.fnode
                quals = self.quals_of(fnode)
                ret = self.base_type(fnode.child_by_field_name("type"))
                d = fnode.child_by_field_name("declarator")
                while d.type == "pointer_declarator":
                    ret = ct.pointer_to(ret)
                    d = d.child_by_field_name("declarator")
                if "__global__" in quals and ret is not ct.VOID:
                    raise self.err(fnode, f"a __global__ function must return void ('{td.name}' returns {ret})")
                params = self.parameters(d.child_by_field_name("parameters"))
                fd = FuncDef(key, frozenset(quals), ret, params, fnode.child_by_field_name("body"), fnode, dict(bind))
                self.funcs[key] = fd
                if fd.is_kernel:
                    self.pending_kernels.append(key)
            return fd
        finally:
            self.tbind = saved

    def deduce(self, td: TemplateDef, arg_types: list) -> dict:
        """Type parameters named directly by a function parameter (``T x``, ``const T* p``), from the call."""
        d = td.fnode.child_by_field_name("declarator")
        while d.type == "pointer_declarator":
            d = d.child_by_field_name("declarator")
        plist = [p for p in d.child_by_field_name("parameters").named_children if p.type == "parameter_declaration"]
        tparams = {n for k, n, _ in td.params if k == "type"}
        out: dict = {}
        for p, at in zip(plist, arg_types):
            tn = p.child_by_field_name("type")
            if tn is None or tn.type != "type_identifier" or self.text(tn) not in tparams:
                continue
            depth, dn = 0, p.child_by_field_name("declarator")
            while dn is not None and dn.type == "pointer_declarator":
                depth += 1
                dn = dn.child_by_field_name("declarator")
            t = at
            for _ in range(depth):
                t = t.elem if t is not None and t.kind == "ptr" else None
            if t is not None:
                out.setdefault(self.text(tn), t)
        return out

    def instantiate_by_name(self, text: str) -> FuncDef | None:
        """``red<256, float>`` written as a string (Program.launch): its kernel instance, or None if ``text`` names
        no template."""
        import re as _re
        m = _re.fullmatch(r"\s*([A-Za-z_][\w:]*)\s*<(.*)>\s*", text)
        if m is None or m.group(1) not in self.templates:
            return None
        td = self.templates[m.group(1)]
        args = []
        for a in (x.strip() for x in m.group(2).split(",") if x.strip()):
            if _re.fullmatch(r"[-+]?(0[xX][0-9a-fA-F]+|\d+)[uUlL]*", a):
                args.append(int(a.rstrip("uUlL"), 0))
            elif a in ct.SCALARS or a in self.structs:
                args.append(ct.SCALARS.get(a) or self.structs[a])
            elif getattr(self.globals.get(a), "kind", None) == "const":
                args.append(int(self.globals[a].value))
            else:
                raise CudaCompileError(f"template argument '{a}' of '{text}': labsim takes integer literals, "
                                       "constants of the file and type names here", file=self.file)
        return self.instantiate(td, args, td.fnode)

    def _is_fn_decl(self, d) -> bool:
        while d.type == "pointer_declarator":
            d = d.child_by_field_name("declarator")
        return d.type == "function_declarator"

    def prototype(self, node, quals, t, d, prefix) -> None:
        while d.type == "pointer_declarator":
            t = ct.pointer_to(t)
            d = d.child_by_field_name("declarator")
        inner = d.child_by_field_name("declarator")
        if inner.type == "parenthesized_declarator":
            raise self.unsupported(d, "function pointers")
        name = self.text(inner)
        params = self.parameters(d.child_by_field_name("parameters"))
        fd = FuncDef(name, frozenset(quals), t, params, None, node)
        for key in (name, prefix + name):
            self.funcs.setdefault(key, fd)

    def resolve_function(self, name: str) -> FuncDef | None:
        fd = self.funcs.get(name)
        if fd is not None and fd.body is None:  # a prototype: find the definition by its plain name
            fd = next((f for f in self.funcs.values() if f.name == fd.name and f.body is not None), fd)
        return fd

    # ---- functions -----------------------------------------------------------------------------------------
    def bind_params(self, params) -> tuple[dict[str, Sym], list[int]]:
        """A fresh scope binding each named parameter to a new slot; the slots in parameter order."""
        scope: dict[str, Sym] = {}
        slots = []
        for name, t, pnode in params:
            s = self.new_slot()
            slots.append(s)
            if name:
                scope[name] = Sym(name, "var", t, s, node=pnode)
        return scope, slots

    def compile_entry(self, fd: FuncDef, mode: str) -> FunctionCode:
        """Compile a kernel, a host function, or (for checking) a device function as an entry point."""
        self._reset(mode)
        self.tbind = fd.tbind
        self.inline_stack = [fd.name]
        scope, slots = self.bind_params(fd.params)
        self.scopes = [scope]
        self.entry_params = {id(sym) for sym in scope.values()}
        self.fn = FnState(fd, entry=True, ret=fd.ret)
        if not fd.is_kernel and fd.ret is not ct.VOID:
            self.fn.ret_slot = self.new_slot()
        body, _ = self.compile_function_body(fd.body)
        kind = "kernel" if mode == "device" else "host"
        code = FunctionCode(fd.name, kind, [(n, t) for n, t, _ in fd.params], slots, body, self.nslots, self.njm,
                            list(self.shared), sorted((s, k) for k, s in self.coords.items()), self.line(fd.node),
                            self.local_bytes)
        code.rules = self.source_rules()
        code.restrict = frozenset(k for k, (_, t, pnode) in enumerate(fd.params) if t.kind == "ptr" and re.search(
            r"\b(__restrict__|__restrict|restrict)\b", self.text(pnode)))
        return code

    # ---- source rules: what ptxas does in the common cases (labsim.cuda.sass applies or overrides them) -----
    def source_rules(self) -> dict:
        """The kernel's candidates: vector loads {site: (group, pos, width, bytes)}, branch sites, aggregated
        atomics."""
        vector = {site: (("loop",) + site, None, w, b) for site, (w, b) in self.vec_loop.items()}
        for key, (pos_sites, size, row_ok) in self.vec_const.items():
            for w in (4, 2):
                if w * size > 16 or not row_ok(w):
                    continue
                for base in range(min(pos_sites) // w * w, max(pos_sites) + 1, w):
                    run = [pos_sites.get(base + j) for j in range(w)]
                    if all(run) and not any(r in vector for r in run):
                        for j, site in enumerate(run):
                            vector[site] = (("const",) + key + (base,), j, w, w * size)
        vector_st = {}
        for key, (pos_sites, size, row_ok, stmts) in self.vec_store.items():
            for w in (4, 2):
                if w * size > 16 or not row_ok(w):
                    continue
                for base in range(min(pos_sites) // w * w, max(pos_sites) + 1, w):
                    run = [pos_sites.get(base + j) for j in range(w)]
                    if all(run) and not any(r in vector_st for r in run) and \
                            sorted(stmts[base + j] for j in range(w)) == list(range(stmts[base], stmts[base] + w)):
                        for j, site in enumerate(run):
                            vector_st[site] = (("st",) + key[1:] + (base,), j, w, w * size)
        return {"vector": vector, "branch": frozenset(self.branch_sites), "aggregate": frozenset(self.agg_sites),
                "sites": dict(self.mem_sites), "vector_st": vector_st, "union": dict(self.union_sites),
                "vector_stride": dict(self.vec_stride)}

    def unroll_candidate(self, node):
        """(loop variable, first value, trip count, step) of ``for (int k = C0; k < C1; k += S)`` with constant bounds
        and step (``++k`` too), which ptxas unrolls fully (up to 32 iterations, unless ``#pragma unroll 1`` precedes
        it); else None."""
        init, cond, upd = (node.child_by_field_name(f) for f in ("initializer", "condition", "update"))
        if init is None or cond is None or upd is None or init.type != "declaration":
            return None
        decls = [ch for ch in init.named_children if ch.type == "init_declarator"]
        if len(decls) != 1:
            return None
        var = self.text(decls[0].child_by_field_name("declarator"))
        c0 = self._const_of(decls[0].child_by_field_name("value"))
        if cond.type == "condition_clause":
            cond = cond.child_by_field_name("value") or cond
        if cond.type != "binary_expression" or self.text(cond.child_by_field_name("left")) != var:
            return None
        op = self.text(cond.child_by_field_name("operator"))
        c1 = self._const_of(cond.child_by_field_name("right"))
        text = "".join(self.text(upd).split())
        if text in (f"++{var}", f"{var}++"):
            step = 1
        elif upd.type == "assignment_expression" and self.text(upd.child_by_field_name("left")) == var and \
                self.text(upd.child_by_field_name("operator")) == "+=":
            step = self._const_value(upd.child_by_field_name("right"))
        else:
            step = None
        if c0 is None or c1 is None or op not in ("<", "<=") or step is None or step <= 0:
            return None
        trip = -(-(c1 - c0 + (op == "<=")) // step)
        if not 0 < trip <= 32 or self._pragma_unroll_1(node):
            return None
        sym = self.lookup(var)
        return (sym, c0, trip, step) if sym is not None else None

    def _const_of(self, node):
        if node is None:
            return None
        if node.type == "number_literal" or node.type == "identifier":
            sym = self.lookup(self.text(node)) if node.type == "identifier" else None
            if node.type == "identifier" and (sym is None or sym.kind != "const"):
                return None
            try:
                k = self.expr(node).k
            except CudaCompileError:
                return None
            return int(k) if k is not None and np.issubdtype(np.asarray(k).dtype, np.integer) else None
        return None

    def _pragma_unroll_1(self, node) -> bool:
        lines = self.pp.original.split("\n")
        ln = self.line(node) - 2
        while ln >= 0 and (not lines[ln].strip() or lines[ln].strip().startswith(("//", "#pragma"))):
            words = lines[ln].split()
            if words[:2] == ["#pragma", "unroll"] and len(words) > 2 and words[2] == "1":
                return True
            ln -= 1
        return False

    def note_shared_read(self, sym, indices, idx_es, node) -> None:
        """Record a shared element access that ptxas may merge with its neighbours into an LDS.64/LDS.128 (or,
        for a plain store, STS.64/STS.128): the same row at consecutive last indices, on one line (loads), in
        consecutive statements (stores), or over the iterations of an unrolled loop (loads)."""
        size = sym.t.size
        if size not in (4, 8) or sym.t.kind == "vec" or not sym.dims:
            return
        site = self.loc(node)
        row_bytes = sym.dims[-1] * size if len(sym.dims) > 1 else None     # None: a 1-D array, base aligned
        last, lead = indices[-1], [self.text(i) for i in indices[:-1]]
        aff = self._affine(last)
        if aff is None:
            return
        terms, off = aff
        parent = node.parent
        store = parent is not None and parent.type == "assignment_expression" and \
            parent.child_by_field_name("left") == node
        if store and (self.text(parent.child_by_field_name("operator")) != "=" or parent.parent is None
                      or parent.parent.type != "expression_statement"):
            return                                   # a compound assignment: a load and a store at one site
        loop_vars = {id(c[0]): c for c in self.unroll if c is not None}
        in_loop = [t for t in terms if t[0] in loop_vars]
        base = tuple(sorted((t[1], c) for t, c in terms.items() if t[0] not in loop_vars))
        g = 0
        for _, c in base:
            g = math.gcd(g, abs(c))

        def row_ok(w):
            return (row_bytes is None or row_bytes % (w * size) == 0) and (g == 0 or g % w == 0)
        if not in_loop:
            if store:
                stmt = parent.parent
                block = stmt.parent
                idx = [ch.id for ch in block.named_children].index(stmt.id) if block is not None else 0
                key = ("st", block.id if block is not None else 0, sym.name, "][".join(lead), base)
                entry = self.vec_store.setdefault(key, ({}, size, row_ok, {}))
                entry[0].setdefault(off, site)
                entry[3][off] = idx
            else:
                key = (site[0], sym.name, "][".join(lead), base)
                entry = self.vec_const.setdefault(key, ({}, size, row_ok))
                entry[0].setdefault(off, site)
            return
        if store or len(in_loop) != 1 or terms[in_loop[0]] != 1:
            return
        var, c0, trip, step = loop_vars[in_loop[0][0]]
        if step != 1 or any(re.search(rf"\b{re.escape(var.name)}\b", t) for t in lead):
            return
        # unrolled loops inside var's loop that pick the row (As[ty*4+i][k], i inner): ptxas merges the site's
        # executions at the same inner iteration, one every `stride` executions (lesson 10's 4x4 challenge)
        inner = self.unroll[[id(c[0]) if c is not None else None for c in self.unroll].index(id(var)) + 1:]
        stride = 1
        for c in inner:
            if c is None:
                return                          # a runtime loop inside: no merge across its trips
            if any(re.search(rf"\b{re.escape(c[0].name)}\b", t) for t in lead):
                stride *= c[2]
        for w in (4, 2):
            if w * size <= 16 and row_ok(w) and (c0 + off) % w == 0 and trip % w == 0:
                self.vec_loop[site] = (w, w * size)
                if stride > 1:
                    self.vec_stride[site] = stride
                return

    def _affine(self, node):
        """An index as ({(symbol id or text, text): coefficient}, constant offset): ``ty * 4 + i + 1`` ->
        ({ty: 4, i: 1}, 1); a term that is not a constant multiple of a name counts as a name itself; None when
        a constant coefficient cannot be read."""
        terms: dict = {}
        off = 0

        def add(n, sign):
            nonlocal off
            while n.type == "parenthesized_expression":
                n = n.named_children[0]
            k = self._const_value(n)
            if k is not None:
                off += sign * k
                return True
            if n.type == "binary_expression":
                op = self.text(n.child_by_field_name("operator"))
                a, b = n.child_by_field_name("left"), n.child_by_field_name("right")
                if op in ("+", "-"):
                    return add(a, sign) and add(b, sign * (1 if op == "+" else -1))
                if op == "*":
                    for x, y in ((a, b), (b, a)):
                        c = self._const_value(y)
                        if c is not None:
                            return term(x, sign * c)
                if op == "<<":
                    c = self._const_value(b)
                    if c is not None and 0 <= c < 31:
                        return term(a, sign * (1 << c))
            return term(n, sign)

        def term(n, coef):
            while n.type == "parenthesized_expression":
                n = n.named_children[0]
            if n.type == "identifier":
                sym = self.lookup(self.text(n))
                key = (id(sym) if sym is not None else self.text(n), self.text(n))
            else:
                key = ("".join(self.text(n).split()), "".join(self.text(n).split()))
            terms[key] = terms.get(key, 0) + coef
            return True
        if not add(node, 1):
            return None
        return {t: c for t, c in terms.items() if c}, off

    def _const_value(self, node):
        """The integer value of a constant expression node, or None (never raises)."""
        if node.type not in ("number_literal", "identifier", "binary_expression", "parenthesized_expression",
                             "unary_expression"):
            return None
        def const_shape(n):
            if n.type == "identifier":
                sym = self.lookup(self.text(n))
                return sym is not None and sym.kind == "const"
            if n.type == "number_literal":
                return True
            if n.type not in ("binary_expression", "parenthesized_expression", "unary_expression"):
                return False
            return all(const_shape(ch) for ch in n.named_children)
        if not const_shape(node):     # compiling anything else here would record its accesses twice
            return None
        try:
            k = self.expr(node).k
        except Exception:       # not a constant here (a Reparse, an unknown name...): not a term's coefficient
            return None
        if k is None or not np.issubdtype(np.asarray(k).dtype, np.integer):
            return None
        return int(k)

    def uniform_address(self, node) -> bool:
        """The address names only constants, the kernel's parameters and blockIdx/blockDim/gridDim: the same for
        every lane of a warp, as nvcc's uniformity analysis sees it (a local variable counts as not uniform)."""
        if node.type == "identifier":
            name = self.text(node)
            if name in ("blockIdx", "blockDim", "gridDim", "warpSize"):
                return True
            sym = self.lookup(name)
            return sym is not None and (sym.kind == "const" or id(sym) in self.entry_params
                                        or id(sym) in self.uniform_syms)
        if node.type in ("field_identifier", "number_literal"):
            return True
        if node.type in ("call_expression", "subscript_expression") and node.type == "call_expression":
            return False
        return all(self.uniform_address(ch) for ch in node.named_children if ch.type != "comment")

    def weight(self, node, seen: frozenset = frozenset()) -> int:
        """Named AST nodes one iteration of a loop runs (inner loops count as their header; inlined calls
        count their callee's body): the step cost of an iteration, so the budget follows interpretation time."""
        if node is None:
            return 0
        w = 1
        for ch in node.named_children:
            if ch.type in ("for_statement", "while_statement", "do_statement"):
                w += 3
            elif ch.type != "comment":
                w += self.weight(ch, seen)
        if node.type == "call_expression":
            fnode = node.child_by_field_name("function")
            fd = self.resolve_function(self.text(fnode)) if fnode is not None and fnode.type == "identifier" else None
            if fd is not None and fd.body is not None and fd.name not in seen:
                memo = self._weights
                if fd.name not in memo:
                    memo[fd.name] = min(self.weight(fd.body, seen | {fd.name}), 1 << 20)
                w += memo[fd.name]
        return min(w, 1 << 20)

    def coord_slot(self, key: str) -> int:
        """Slot holding a thread-coordinate array (threadIdx.x -> 'tx', ...), filled at kernel entry."""
        s = self.coords.get(key)
        if s is None:
            s = self.coords[key] = self.new_slot()
        if self.batch_rec is not None:
            self.batch_rec.reads.append((s, -1))
        return s


def dims_size(dims: tuple[int, ...]) -> int:
    return int(np.prod(dims, dtype=np.int64)) if dims else 1


__all__ = ["AUTO", "UNSUPPORTED", "ArraySym", "Compiler", "FnState", "LoopState", "dims_size"]
