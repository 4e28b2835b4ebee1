"""Statements and declarations inside functions; divergence through the engine's mask stack.

``if`` pushes an "if" mask (or, when the condition is uniform, just picks a branch); loops push a "loop"
level and narrow it with ``set_mask`` each iteration while any lane is still in the loop. ``break``,
``continue`` and ``return`` inside an inlined device function record their lanes in a jump mask; every
statement sequence drops those lanes after a statement that may have jumped. A ``return`` in a kernel ends
the lanes in the engine (``blk.exit``), so barriers know they are gone.
"""
from __future__ import annotations

import numpy as np

from ..errors import StepBudgetError
from . import ctype as ct
from .access import MAX_LOCAL_ELEMENTS, mem_dtype
from .batch import BatchRecorder, body_shape_ok, plan_batch
from .errors import CudaSyntaxError, CudaUnsupportedError
from .expr import const_e
from .runtime import masked, pack
from .symbols import AUTO, UNSUPPORTED, ArraySym, CompiledExpr, LoopState, SharedDecl, Sym

_ALL = np.logical_and.reduce
# an `if` whose condition every lane of a full thread set meets runs its arm without a mask push (tests switch it
# off to compare)
IF_ALL = True

NO_JUMPS: frozenset = frozenset()


def _narrow(c, slots) -> None:
    gone = None
    for k in slots:
        m = c.jm[k]
        if m is not None:
            gone = m if gone is None else gone | m
    if gone is not None:
        c.setm(c.act & ~gone)


def _mark(c, k: int) -> None:
    a = c.act
    m = c.jm[k]
    c.jm[k] = np.array(a, dtype=bool) if m is None else (m | a)
    c.jumps += 1


class StmtMixin:
    """Compiles statement nodes (mixed into ``Compiler``). Each returns (closure or None, jump slots)."""

    def compile_function_body(self, body):
        items = [ch for ch in body.named_children if ch.type != "comment"]
        if items and items[-1].type == "return_statement":
            self.fn.tail = items[-1]
        if (self.fn.entry and self.fn.fd.is_kernel and items and items[-1].type == "if_statement"
                and items[-1].child_by_field_name("alternative") is None):
            # the kernel ends in `if (...) { ... }`: ptxas exits the lanes that fail it (@!P EXIT), so warps
            # with no lane left do not execute its instructions
            self.tail_if = (items[-1].start_byte, items[-1].end_byte)
        loops, last = [], items[-1] if items else None
        while self.fn.entry and self.fn.fd.is_kernel and last is not None and last.type == "for_statement":
            # the kernel ends in (nested) unrolled loops whose body ends in `if (...) { ... }`: ptxas predicates
            # the guarded instructions of every copy but the last, which it puts behind `@P EXIT` (measured:
            # round3 lesson08 challenge baseline at 33x45, lesson 10's 4x4 challenge variant at 70x45x33)
            loops.append(last.start_byte)
            lbody = last.child_by_field_name("body")
            kids = [ch for ch in lbody.named_children if ch.type != "comment"] \
                if lbody.type == "compound_statement" else [lbody]
            last = kids[-1] if kids else None
            if last is not None and last.type == "if_statement" and last.child_by_field_name("alternative") is None:
                self.tail_loop_if = (tuple(loops), last.start_byte)
        return self.block(body)

    def stmt(self, node):
        self.count(node)
        kind = node.type
        handler = getattr(self, "s_" + kind, None)
        if handler is not None:
            return handler(node)
        if kind in ("comment", "empty_statement"):
            return None, NO_JUMPS
        if kind in UNSUPPORTED:
            raise self.unsupported(node, UNSUPPORTED[kind])
        if kind == "ERROR":
            raise self.err(node, "syntax error", CudaSyntaxError)
        raise self.unsupported(node, f"the statement '{self.text(node)[:40]}' ({kind.replace('_', ' ')})")

    def block(self, node, scope: bool = True):
        return self.seq(self.block_items(node, scope))

    def block_items(self, node, scope: bool = True) -> list:
        """Each statement of a block compiled: (closure or None, jump slots)."""
        if scope:
            self.scopes.append({})
        items = [self.stmt(ch) for ch in node.named_children]
        if scope:
            self.scopes.pop()
        return items

    def seq(self, items):
        fs = [(f, js) for f, js in items if f is not None]
        jumps = frozenset().union(*[js for _, js in fs]) if fs else NO_JUMPS
        if not fs:
            return None, NO_JUMPS
        if not jumps:
            fns = tuple(f for f, _ in fs)
            if len(fns) == 1:
                return fns[0], NO_JUMPS

            def run(c):
                for f in fns:
                    f(c)
            return run, NO_JUMPS
        steps = tuple(fs)

        def run_j(c):
            for f, js in steps:
                j0 = c.jumps
                f(c)
                if js and c.jumps != j0:
                    _narrow(c, js)
        return run_j, jumps

    def s_compound_statement(self, node):
        return self.block(node)

    def s_expression_statement(self, node):
        kids = [ch for ch in node.named_children if ch.type != "comment"]
        if not kids:
            return None, NO_JUMPS
        e = self.expr(kids[0])
        return e.ev, NO_JUMPS

    def s_using_declaration(self, node):
        if "namespace" not in self.text(node):
            raise self.unsupported(node, "using-declarations")
        return None, NO_JUMPS    # `using namespace std;`: names are looked up without it anyway

    def s_static_assert_declaration(self, node):
        self.static_assert(node)
        return None, NO_JUMPS

    # ---- control flow --------------------------------------------------------------------------------------
    def condition(self, node) -> CompiledExpr:
        if node.type == "condition_clause":
            kids = node.named_children
            if len(kids) != 1 or node.child_by_field_name("value") is None:
                raise self.unsupported(node, "declarations in conditions")
            node = node.child_by_field_name("value")
        return self.truth(self.expr(node), node)

    def s_if_statement(self, node):
        cond_node = node.child_by_field_name("condition")
        cond = self.condition(cond_node)
        # a warp-uniform condition (constants, parameters, blockIdx/blockDim/gridDim and locals made of them):
        # ptxas branches (a uniform predicate), so warps whose lanes all fail it skip the arms (measured: round3
        # p2 challenge solution's `if (count == BLOCK)`)
        uniform = self.mode == "device" and cond.k is None and self.uniform_address(
            cond_node.child_by_field_name("value") or cond_node)
        before = set(self.mem_sites) if uniform else None
        self.scopes.append({})
        tail = self.tail_if == (node.start_byte, node.end_byte) and not self.inline_stack[1:]
        self.in_tail += tail
        then_f, tj = self.stmt(node.child_by_field_name("consequence"))
        self.in_tail -= tail
        self.scopes.pop()
        alt = node.child_by_field_name("alternative")
        else_f, ej = None, NO_JUMPS
        if alt is not None:
            self.note_shared_arms(node)
            inner = [ch for ch in alt.named_children if ch.type != "comment"]
            self.scopes.append({})
            else_f, ej = self.stmt(inner[0]) if inner else (None, NO_JUMPS)
            self.scopes.pop()
        if uniform:
            self.branch_sites |= set(self.mem_sites) - before
        C = cond.ev
        plain = not tj
        last_keys = None
        if self.tail_loop_if is not None and self.tail_loop_if[1] == node.start_byte and not self.inline_stack[1:]:
            last_keys = [("last", b) for b in self.tail_loop_if[0]]

        def run(c):
            x = C(c)
            if not isinstance(x, np.ndarray) or x.ndim == 0:
                if x:
                    if then_f is not None:
                        then_f(c)
                elif else_f is not None:
                    else_f(c)
                return
            if then_f is not None:
                if plain and IF_ALL and c.full and _ALL(x, axis=None):
                    # every lane of the set takes it: the mask would stay as it is (the set's lanes, reached
                    # lanes the same), so no push; an arm with a jump (break, continue, return) always pushes
                    then_f(c)
                else:
                    # in the last copy of the kernel's tail loop the body is behind a branch (@P EXIT): only warps
                    # with an active lane execute it
                    c.push(x, "branch" if last_keys is not None and all(c.coords.get(k) for k in last_keys)
                           else "if")
                    then_f(c)
                    c.pop()
            if else_f is not None:
                c.push(~x, "if")
                else_f(c)
                c.pop()
        return run, tj | ej

    def note_shared_arms(self, node) -> None:
        """``if (c) x[i] = a; else x[i] = b;``: ptxas selects the value and emits one store after the branch, and a
        location both arms read (``t[pin][k]``) one load before it (measured: round3 ifelse_shared_load,
        scan_hillis_steele). Recorded for the counting plan as pairs of sites, then-arm 0 and else-arm 1."""
        def single(n):
            while n is not None and n.type in ("compound_statement", "else_clause"):
                kids = [ch for ch in n.named_children if ch.type != "comment"]
                if len(kids) != 1:
                    return None
                n = kids[0]
            return n if n is not None and n.type == "expression_statement" else None
        arms = [single(node.child_by_field_name("consequence")), single(node.child_by_field_name("alternative"))]
        if None in arms:
            return
        exprs = [next((ch for ch in a.named_children if ch.type != "comment"), None) for a in arms]
        if any(e is None or e.type != "assignment_expression" or self.text(e.child_by_field_name("operator")) != "="
               for e in exprs):
            return
        targets = [e.child_by_field_name("left") for e in exprs]
        group = self.loc(node)
        if all(t.type == "subscript_expression" for t in targets) and \
                "".join(self.text(targets[0]).split()) == "".join(self.text(targets[1]).split()):
            for arm, t in enumerate(targets):
                self.union_sites[self.loc(t) + ("st",)] = (group + ("st",), arm)

        def reads(n, out):
            if n.type == "subscript_expression":
                out.setdefault("".join(self.text(n).split()), n)
                return
            for ch in n.named_children:
                reads(ch, out)
        found = [{}, {}]
        for arm, e in enumerate(exprs):
            reads(e.child_by_field_name("right"), found[arm])
        for k, text in enumerate(t for t in found[0] if t in found[1]):
            for arm in (0, 1):
                self.union_sites[self.loc(found[arm][text]) + ("ld",)] = (group + ("ld", k), arm)

    def loop(self, node, init, cond_node, update_node, body_node, do_while: bool = False):
        cond = self.condition(cond_node) if cond_node is not None else None
        upd = self.expr(update_node).ev if update_node is not None else None
        self.loops.append(self._loop_state())
        self.scopes.append({})
        cand = self.unroll_candidate(node) if node.type == "for_statement" else None
        self.unroll.append(cand)
        last_key = ("last", node.start_byte) if cand is not None and self.tail_loop_if is not None and \
            node.start_byte in self.tail_loop_if[0] and not self.inline_stack[1:] else None
        trips = cand[2] if cand is not None else 0
        unrolled = cand is not None     # ptxas unrolls it: its iterations share registers (LoadCache)
        rec = None
        if (cand is not None and last_key is None and self.mode == "device" and self.batch_rec is None
                and body_node is not None and body_shape_ok(self, body_node)):
            rec = self.batch_rec = BatchRecorder()
        try:
            if rec is not None and body_node.type == "compound_statement":
                # compiled as ``stmt`` compiles a block, keeping each statement's closure for the batched run
                self.count(body_node)
                children = list(body_node.named_children)
                items = self.block_items(body_node)
                body_f, bj = self.seq(items)
            else:
                body_f, bj = self.stmt(body_node)
                children, items = [body_node], [(body_f, bj)]
        finally:
            if rec is not None:
                self.batch_rec = None
        self.unroll.pop()
        self.scopes.pop()
        ls = self.loops.pop()
        own = {ls.brk, ls.cont} - {-1}
        leave = tuple(sorted(bj - {ls.cont}))
        cont = ls.cont
        brk = ls.brk
        C = cond.ev if cond is not None and not (cond.k is not None and bool(cond.k)) else None
        line = self.line(node)
        cost = 5 * (2 + self.weight(cond_node) + self.weight(update_node) + self.weight(body_node))
        if cond is not None and cond.k is not None and not bool(cond.k) and not do_while:
            return (init if init is not None else None), NO_JUMPS
        batch = None if rec is None else plan_batch(self, rec, children, items, cand[0], cand[1], trips, cand[3],
                                                    cost)

        def run(c):      # the loop run batched (labsim.cuda.batch), or the ordinary way, perhaps recorded
            pend = batch.attempt(c, init)
            if pend is True:
                return
            run_loop(c)
            if pend is not None:
                batch.finish(c, pend)

        def run_loop(c):
            if init is not None:
                init(c)
            if brk >= 0:
                c.jm[brk] = None
            if cont >= 0:
                c.jm[cont] = None
            c.push(c.act, "loop")
            alive = c.act
            first = True
            it = 0
            while True:
                if C is not None and not (do_while and first):
                    x = C(c)
                    if not isinstance(x, np.ndarray) or x.ndim == 0:
                        if not x:
                            break
                    else:
                        c.setm(alive & x)
                        alive = c.act
                first = False
                if not alive.any():
                    break
                try:
                    c.blk.tick(cost)
                except StepBudgetError as e:
                    e.where.setdefault("line", line)
                    raise
                if not unrolled and c.loads is not None:
                    c.loads.clear()
                if last_key is not None and c.loads is not None:     # counting what the compiler emits
                    c.coords[last_key] = it == trips - 1
                it += 1
                if body_f is not None:
                    j0 = c.jumps
                    body_f(c)
                    if c.jumps != j0:
                        gone = None
                        for k in leave:
                            m = c.jm[k]
                            if m is not None:
                                gone = m if gone is None else gone | m
                        if cont >= 0:
                            c.jm[cont] = None
                        c.setm(alive if gone is None else alive & ~gone)
                alive = c.act
                if upd is not None:
                    upd(c)
            c.pop()
            if not unrolled and c.loads is not None:
                c.loads.clear()
        return (run if batch is not None else run_loop), bj - own

    def _loop_state(self):
        return LoopState()

    def s_for_statement(self, node):
        self.scopes.append({})
        init_node = node.child_by_field_name("initializer")
        init = None
        if init_node is not None:
            if init_node.type == "declaration":
                init, _ = self.s_declaration(init_node)
            else:
                init = self.expr(init_node).ev
        r = self.loop(node, init, node.child_by_field_name("condition"), node.child_by_field_name("update"),
                      node.child_by_field_name("body"))
        self.scopes.pop()
        return r

    def s_while_statement(self, node):
        return self.loop(node, None, node.child_by_field_name("condition"), None, node.child_by_field_name("body"))

    def s_do_statement(self, node):
        return self.loop(node, None, node.child_by_field_name("condition"), None, node.child_by_field_name("body"),
                         do_while=True)

    def s_break_statement(self, node):
        if not self.loops:
            raise self.err(node, "'break' statement not in loop statement")
        ls = self.loops[-1]
        if ls.brk < 0:
            ls.brk = self.new_jm()
        k = ls.brk
        return (lambda c: _mark(c, k)), frozenset({k})

    def s_continue_statement(self, node):
        if not self.loops:
            raise self.err(node, "'continue' statement not in loop statement")
        ls = self.loops[-1]
        if ls.cont < 0:
            ls.cont = self.new_jm()
        k = ls.cont
        return (lambda c: _mark(c, k)), frozenset({k})

    def s_return_statement(self, node):
        fn = self.fn
        kids = [ch for ch in node.named_children if ch.type != "comment"]
        value = None
        if kids:
            if fn.ret is ct.VOID:
                raise self.err(kids[0], f"void function '{fn.fd.name}' should not return a value")
            value = self.coerce(self.expr(kids[0]), fn.ret, kids[0]).ev
        elif fn.ret is not ct.VOID:
            raise self.err(node, f"non-void function '{fn.fd.name}' should return a value")
        rs = fn.ret_slot
        if fn.entry:
            def run(c):
                if value is not None:
                    c.v[rs] = masked(c, value(c), c.v[rs])
                c.blk.exit(c.act)
                c.refresh()
            return run, NO_JUMPS
        if fn.tail is not None and node == fn.tail and not self.loops:
            if value is None:
                return None, NO_JUMPS

            def run_tail(c):
                c.v[rs] = masked(c, value(c), c.v[rs])
            return run_tail, NO_JUMPS
        if fn.ret_jm < 0:
            fn.ret_jm = self.new_jm()
        k = fn.ret_jm

        def run_ret(c):
            if value is not None:
                c.v[rs] = masked(c, value(c), c.v[rs])
            _mark(c, k)
        return run_ret, frozenset({k})

    # ---- declarations --------------------------------------------------------------------------------------
    def s_declaration(self, node):
        quals = self.quals_of(node)
        if "static" in quals:
            raise self.unsupported(node, "static local variables")
        if "__constant__" in quals:
            raise self.unsupported(node, "__constant__ memory")
        t0 = self.base_type(node.child_by_field_name("type"))
        fns = []
        for d in node.children_by_field_name("declarator"):
            if d.type == "function_declarator":
                fns.append(self.constructor_declaration(d, t0))
                continue
            name, nnode, t, dims, init, const = self.unwrap_declarator(d, t0, quals)
            if "__shared__" in quals:
                if self.mode == "host":
                    raise self.err(d, "__shared__ variables exist only in device code")
                self.shared_declaration(d, name, t, dims, init, "extern" in quals)
                continue
            if "extern" in quals:
                raise self.unsupported(d, "extern variables (except extern __shared__ arrays)")
            if dims:
                fns.append(self.local_array(d, name, t, dims, init))
                continue
            if t is AUTO:
                if init is None:
                    raise self.err(d, f"declaration of 'auto {name}' has no initializer")
                e = self.expr(init)
                if e.arr is not None:
                    raise self.unsupported(d, "auto with array initializers")
                t = e.t
            fns.append(self.variable(d, name, nnode, t, init, const))
        fns = [f for f in fns if f is not None]
        if not fns:
            return None, NO_JUMPS
        if len(fns) == 1:
            return fns[0], NO_JUMPS
        fs = tuple(fns)

        def run(c):
            for f in fs:
                f(c)
        return run, NO_JUMPS

    def init_value(self, init, t: ct.CType, node) -> CompiledExpr:
        if init.type == "initializer_list" or init.type == "argument_list":
            items = [ch for ch in init.named_children if ch.type != "comment"]
            if t.kind == "vec":
                return self.make_vector(t, items, init, partial=init.type == "initializer_list")
            if len(items) != 1:
                raise self.err(init, f"expected one initializer for a {t}")
            return self.coerce(self.expr(items[0]), t, items[0])
        return self.coerce(self.expr(init), t, init)

    def variable(self, d, name, nnode, t, init, const):
        if t.kind in ("void", "auto"):
            raise self.err(d, f"variable '{name}' has incomplete type '{t}'")
        if t.kind == "stream":
            init = None
        e = self.init_value(init, t, d) if init is not None else None
        if const and e is not None and e.k is not None and t.is_arith:
            self.declare(nnode, Sym(name, "const", t, value=e.k, const=True, node=nnode))
            return None
        slot = self.new_slot()
        sym = Sym(name, "var", t, slot, const=const, node=nnode)
        self.declare(nnode, sym)
        if init is not None and self.mode == "device" and t.is_arith and self.uniform_address(init):
            self.uniform_syms.add(id(sym))      # the same in every lane of a warp (until assigned again)
        if e is None:
            zero = self.zero_value(t)
            return lambda c: c.v.__setitem__(slot, zero)
        V = e.ev
        return lambda c: c.v.__setitem__(slot, V(c))

    def zero_value(self, t: ct.CType):
        if t.kind == "vec":
            z = t.elem.dtype.type(0)
            return tuple(z if t is not ct.DIM3 else np.uint32(1) for _ in t.fields)
        if t.kind == "ptr":
            return None
        if t.kind == "stream":
            return None
        return t.dtype.type(0)

    def constructor_declaration(self, d, t):
        """``dim3 block(TILE_DIM, BLOCK_ROWS);`` which tree-sitter reads as a function declaration."""
        name_node = d.child_by_field_name("declarator")
        if name_node.type != "identifier":
            raise self.unsupported(d, "function pointers")
        if t.kind not in ("vec", "int", "float", "bool"):
            raise self.unsupported(d, "local function declarations")
        items = []
        for p in d.child_by_field_name("parameters").named_children:
            if p.type == "comment":
                continue
            tn = p.child_by_field_name("type")
            if p.type != "parameter_declaration" or p.child_by_field_name("declarator") is not None or \
                    tn is None or tn.type != "type_identifier":
                raise self.unsupported(d, "local function declarations")
            items.append(tn)
        if t.kind == "vec":
            e = self.make_vector(t, items, d, partial=False)
        else:
            if len(items) != 1:
                raise self.err(d, f"expected one initializer for a {t}")
            e = self.coerce(self.expr(items[0]), t, d)
        name = self.text(name_node)
        slot = self.new_slot()
        self.declare(name_node, Sym(name, "var", t, slot, node=name_node))
        V = e.ev
        return lambda c: c.v.__setitem__(slot, V(c))

    def shared_declaration(self, d, name, t, dims, init, extern) -> None:
        if init is not None:
            raise self.err(d, f"initializer not allowed for __shared__ variable '{name}'")
        if t.kind == "ptr":
            raise self.unsupported(d, "__shared__ pointers")
        if t.kind not in ("int", "float", "vec") or (t.size not in (1, 2, 4, 8, 16) and not t.struct) or \
                t is ct.DIM3:
            raise self.unsupported(d, f"__shared__ arrays of {t} (labsim models 1-, 2-, 4-, 8- and 16-byte "
                                   "elements)")
        if extern:
            if len(dims) != 1 or dims[0] is not None:
                raise self.err(d, f"extern __shared__ '{name}' must be declared as {name}[]")
            shape: tuple[int, ...] = (0,)
        else:
            if any(x is None for x in dims):
                raise self.err(d, f"__shared__ array '{name}' needs a size (or 'extern' for dynamic shared memory)")
            shape = tuple(self.const_int(x, f"size of __shared__ array '{name}'") for x in dims)
            total = 1
            for x, n in zip(dims, shape):
                if n <= 0:
                    raise self.err(x, f"size of __shared__ array '{name}' is not positive ({n})")
                total *= n
            if total * t.size > 1 << 31:
                raise self.err(d, f"__shared__ array '{name}' is too large ({total * t.size} bytes)")
        key = (self.fn.fd.name, name)
        slot = self.shared_keys.get(key)
        if slot is None:
            slot = self.new_slot()
            self.shared_keys[key] = slot
            self.shared.append(SharedDecl(slot, name, t, shape if not extern else (), self.line(d), extern))
        self.declare(d, ArraySym(name, "array", t, slot, space="shared", dims=shape, extern=extern))

    def local_array(self, d, name, t, dims, init):
        if t.kind not in ("int", "float", "bool", "vec") or t is ct.DIM3:
            raise self.unsupported(d, f"per-thread arrays of {t}")
        if any(x is None for x in dims):
            if init is None or len(dims) != 1:
                raise self.err(d, f"array '{name}' needs a size")
            n_items = len([ch for ch in init.named_children if ch.type != "comment"])
            shape = (n_items,)
        else:
            shape = tuple(self.const_int(x, f"size of array '{name}'") for x in dims)
        total = int(np.prod(shape, dtype=np.int64))
        if total <= 0:
            raise self.err(d, f"size of array '{name}' is not positive")
        if total > MAX_LOCAL_ELEMENTS:
            raise self.err(d, f"per-thread array '{name}' has {total} elements; labsim allows at most "
                           f"{MAX_LOCAL_ELEMENTS} per thread", self._unsupported_cls())
        slot = self.new_slot()
        self.declare(d, ArraySym(name, "array", t, slot, space="local", dims=shape))
        dt = mem_dtype(t)
        self.local_bytes += total * dt.itemsize
        inits = []
        if init is not None:
            if init.type != "initializer_list":
                raise self.err(init, f"array '{name}' must be initialized with {{...}}")
            items = [ch for ch in init.named_children if ch.type != "comment"]
            if len(items) > total:
                raise self.err(init, f"excess elements in initializer of array '{name}'")
            for it in items:
                if it.type == "initializer_list":
                    raise self.unsupported(it, "nested brace initializers")
                inits.append(self.coerce(self.expr(it), t, it).ev if t.kind != "vec" else
                             self.init_value(it, t, it).ev)
        vec = t.kind == "vec"

        def run(c):
            arr = np.zeros((c.n, total), dtype=dt)
            for j, f in enumerate(inits):
                v = f(c)
                arr[:, j] = pack(v, dt, c.n) if vec else v
            c.v[slot] = arr
        return run

    def _unsupported_cls(self):
        return CudaUnsupportedError


__all__ = ["StmtMixin", "const_e"]
