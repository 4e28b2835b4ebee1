"""Running every iteration of a short constant-trip loop at once: one (trips, lanes) array operation per
statement instead of one interpreted statement per iteration.

A shared-memory GEMM spends its time in an inner loop such as::

    for (int k = 0; k < TILE; ++k) {
        float a0 = As[ty][k];
        float b0 = Bs[k][tx];
        c00 += a0 * b0;
    }

Every iteration costs the interpreter a fixed amount of Python work per statement whatever the number of lanes,
so a small launch (a few thousand threads) pays mostly for that. Such a loop's iterations depend on each other
only through its accumulators (``c00 += ...``), and its loads read memory nothing in the loop writes. So the
body can run once with the loop variable holding every iteration's value (an array of shape (trips, 1)): the
loads and arithmetic give (trips, lanes) arrays, and each accumulator adds its (trips, lanes) terms one
iteration after another, in the same order and the same precision as the loop does.

What the hardware model counts (wavefronts, requests, vector loads) and what the race detector records are not
recomputed per iteration: the first time a loop runs with given access patterns it runs the ordinary way while
the counters' growth is recorded, keyed by those patterns (every block of a thread set reading the same
elements, the thread set's shape, the counting plan); a later run with the same key adds what was recorded,
queues the same reads for the race detector, and leaves the register cache (``LoadCache``) as the loop would.
Anything this cannot reproduce exactly makes that run take the ordinary path: a partial mask, a read that
would fault, blocks reading different elements, a load of an address loaded before in the loop, a step budget
that would run out, a counting model other than labsim's own. ``LOOP_BATCH = False`` turns it off (the tests
compare both ways).

Which loops qualify is decided at compile time (``BatchRecorder``): a fully unrollable ``for`` (constant
bounds, at most 32 trips) whose body holds only declarations of scalars, assignments to those, and
accumulating assignments (``x op= e``) to variables declared outside it that nothing else in the body reads;
expressions without calls, ``?:``, ``&&``/``||`` or pointers; memory reads from shared arrays only.
"""
from __future__ import annotations

import numpy as np

from ..memory import SharedArray
from ..model import NO_COUNTS, CountingModel, add_counts, counts
from ..race_detection import _reduced
from .runtime import MEM_STEPS, Ctx, LoadCache

LOOP_BATCH = True          # tests switch it off to compare
MAX_KEYS = 256             # recorded keys per loop (a loop meets a handful: one per tile shape and thread set)
COUNTS = {"batched": 0, "recorded": 0}     # loop runs done batched, and recorded for later ones (tests read them)

# named AST nodes a batched body may contain (anything else: the loop runs the ordinary way)
ALLOWED = frozenset({
    "compound_statement", "declaration", "init_declarator", "expression_statement", "assignment_expression",
    "binary_expression", "unary_expression", "parenthesized_expression", "subscript_expression",
    "subscript_argument_list", "identifier", "field_expression", "field_identifier", "number_literal", "true",
    "false", "cast_expression", "type_descriptor", "primitive_type", "sized_type_specifier", "type_qualifier",
    "comment", "update_expression", "char_literal", "type_identifier", "empty_statement",
})
_SHORT_CIRCUIT = frozenset({"&&", "||", "and", "or"})


class Abort(Exception):
    """The batched run cannot reproduce the loop exactly: run it the ordinary way."""


def body_shape_ok(comp, body) -> bool:
    """Only the node types of ALLOWED, no short-circuit operators (they narrow masks), no unary ``*``/``&``."""
    stack = [body]
    while stack:
        n = stack.pop()
        if n.type not in ALLOWED:
            return False
        if n.type == "binary_expression" and comp.text(n.child_by_field_name("operator")) in _SHORT_CIRCUIT:
            return False
        stack.extend(n.named_children)
    return True


class BatchRecorder:
    """What compiling a candidate body found (filled by the compiler's hooks while the body compiles)."""

    def __init__(self) -> None:
        self.bad: str | None = None          # why the body cannot be batched
        self.reads: list = []                # (slot, start byte) of every variable read
        self.declared: set = set()           # ids of symbols declared in the body
        self.decl_slots: list = []           # their slots
        self.assigns: dict = {}              # start byte of an assignment -> (sym, op, parts or None)

    def fail(self, why: str) -> None:
        if self.bad is None:
            self.bad = why


def index_ok(comp, rec: BatchRecorder, nodes) -> None:
    """A shared read's indices may name only what the loop does not compute (outer variables, the loop variable,
    constants, thread coordinates): then the addresses follow from the variables the loop reads, which is what
    a run is keyed by. A read indexed by a value read in the loop fails the body."""
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if n.type == "subscript_expression":
            rec.fail("a read indexed by a read")
            return
        if n.type == "identifier":
            sym = comp.lookup(comp.text(n))
            if sym is not None and id(sym) in rec.declared:
                rec.fail("a read indexed by a value computed in the loop")
                return
        stack.extend(n.named_children)


def plan_batch(comp, rec: BatchRecorder, children, items, loop_sym, first: int, trips: int, step: int,
               cost: int):
    """A ``LoopBatch`` for a body whose statements were compiled to ``items`` (closure, jumps) from the AST nodes
    ``children``, or None when the body does not qualify."""
    if rec.bad is not None or trips < 2 or loop_sym is None or loop_sym.slot is None:
        return None
    outer_assigned = {}
    for start, (sym, op, parts) in rec.assigns.items():
        if id(sym) in rec.declared:
            continue
        if sym is loop_sym or op in ("=", "++", "--") or parts is None:
            return None                      # the loop variable or an outer variable set, not accumulated
        if sym.slot in outer_assigned:
            return None
        outer_assigned[sym.slot] = start
    for slot, start in rec.reads:            # an accumulator read anywhere but as its own target
        if slot in outer_assigned and start != outer_assigned[slot]:
            return None
    steps, accs = [], []
    for node, (f, jumps) in zip(children, items):
        if jumps:
            return None
        if f is None:
            continue
        expr = None
        if node.type == "expression_statement":
            kids = [ch for ch in node.named_children if ch.type != "comment"]
            expr = kids[0] if kids else None
        start = expr.start_byte if expr is not None and expr.type == "assignment_expression" else None
        if start is not None and start in rec.assigns and id(rec.assigns[start][0]) not in rec.declared:
            sym, _, parts = rec.assigns[start]
            steps.append(_accumulate(sym.slot, *parts))
            accs.append(sym.slot)
        else:
            steps.append(f)
    if len(accs) != len(outer_assigned):
        return None                          # an accumulation nested in an expression
    own = set(rec.decl_slots) | set(accs) | {loop_sym.slot}
    env = tuple(sorted({slot for slot, _ in rec.reads} - own))
    dtype = loop_sym.t.dtype
    ks = (np.arange(trips, dtype=np.int64) * step + first).astype(dtype).reshape(trips, 1)
    return LoopBatch(tuple(steps), tuple(accs), tuple(rec.decl_slots), env, loop_sym.slot, ks,
                     dtype.type(first + trips * step), cost)


def _accumulate(slot: int, R, fn, fl, fr, back):
    """``x op= e`` for every iteration in turn: ``e`` evaluated once for all of them, folded into ``x`` in order."""
    inplace = fl is None and back is None and isinstance(fn, np.ufunc)     # ``fn(x, term, x)`` is ``x = fn(x, term)``

    def run(c):
        y = R(c)
        if fr is not None:
            y = fr(y)
        if isinstance(y, tuple):
            raise Abort("vector accumulator")
        if isinstance(y, np.ndarray) and y.ndim == 2:
            terms = y[:, 0] if y.shape[1] == 1 else y    # a term of the loop variable alone: a scalar per iteration
        else:
            terms = (y,) * c.batch.trips                 # the same term every iteration
        x = c.v[slot]
        if inplace and type(terms) is np.ndarray and len(terms) > 1:
            # the first sum is a new array (x may be another variable's too); the later ones overwrite it, the
            # same float operations in the same order without an array per iteration
            x = fn(x, terms[0])
            if type(x) is np.ndarray and x.shape == terms.shape[1:] and x.dtype == terms.dtype:
                for term in terms[1:]:
                    fn(x, term, x)
                c.v[slot] = x
                return
            terms = terms[1:]
        for term in terms:
            v = fn(x if fl is None else fl(x), term)
            x = v if back is None else back(v)
        c.v[slot] = x
    return run


CHUNK_ELEMENTS = 1 << 17   # iterations x lanes per batched pass: its int64 temporaries stay within a core's L2


class _Loads:
    """The loads of one batched pass over some iterations, in program order: (site, name, array, indices,
    values, type name), indices and values of shape (iterations, lanes)."""

    __slots__ = ("check", "items", "n", "trips")

    def __init__(self, trips: int, n: int, check: bool) -> None:
        self.items: list = []
        self.trips, self.n, self.check = trips, n, check

    def load(self, c, p, i, t, line: int, name: str, col):
        sh = p.buf
        if (p.space != "shared" or type(sh) is not SharedArray or t.struct or t.kind == "vec"
                or type(p.boff) is not int or p.boff != 0 or sh.dtype != t.dtype):
            raise Abort("not a plain shared read")
        idx = np.asarray(i)
        if idx.dtype != np.int64:
            raise Abort("index type")
        shape = (self.trips, self.n)
        # np.broadcast_to costs microseconds even when the shape is already right (the usual case)
        full = idx if idx.shape == shape else np.broadcast_to(idx, shape)
        if self.check and (int(full.min()) < 0 or int(full.max()) >= sh.size):
            raise Abort("out of bounds")      # the ordinary run reports it
        # out-of-bounds indices are possible only in a pass whose results a key does not vouch for (discarded)
        v = sh.flat.take(c.blk._lbase(sh.size) + full, mode="wrap")
        self.items.append(((line, col), name or sh.name, sh, full, v, t.name))
        return v


class _Entry:
    """What one run of a loop with a given key does beside its values: what it adds to each site's counts, and
    how its reads look to the race detector and the register cache."""

    __slots__ = ("by_layout", "deltas", "merged", "plan", "tails", "uniform")

    def __init__(self, plan, uniform: tuple, merged: dict) -> None:
        self.deltas: list = []               # [(summary key, added counts)]
        self.plan = plan                     # keeps the plan alive (its id is in the key)
        self.uniform = uniform               # per load: every block of the set reads the same elements
        self.merged = merged                 # array index -> the reads after the first (first block), in order
        self.tails: list = []                # per array and type: a load of it, the (t, j) the cache keeps
        self.by_layout: dict = {}            # the set's lane layout (bytes) -> the merged reads reduced for it


_ORDINARY = object()       # a key whose loop runs the ordinary way (the batched pass cannot reproduce it)


class _Recording:
    __slots__ = ("before", "entry", "key", "sites")

    def __init__(self, key, before, sites, entry) -> None:
        self.key, self.before, self.sites, self.entry = key, before, sites, entry


class LoopBatch:
    """One qualifying loop: its batched statements and, per key, what a run adds beside its values."""

    def __init__(self, steps, accs, locals_, env, kslot, ks, kend, cost) -> None:
        self.steps, self.accs, self.locals, self.env, self.kslot = steps, accs, locals_, env, kslot
        self.ks, self.kend, self.trips, self.cost = ks, kend, ks.shape[0], cost
        self.memo: dict = {}

    def attempt(self, c, init):
        """Run the loop batched when its key was recorded (True); else None (the ordinary run), or a
        ``_Recording`` for the ordinary run to fill (``finish``)."""
        blk = c.blk
        if not LOOP_BATCH or not c.full or not getattr(blk, "_all", False) or blk._greenlet:
            return None
        ctx = blk._ctx
        model = ctx.model
        cache = c.loads
        if type(model) is not CountingModel or model._pending or cache is None:
            return None
        n, per = c.n, ctx.lanes_per_block
        if n % per:
            return None
        env = []
        for s in self.env:
            v = c.v[s]
            tv = type(v)
            if tv is np.ndarray:
                env.append((v.dtype.str, v.shape, v.tobytes()))
            elif tv is SharedArray:
                if cache.holds("shared", id(v)):
                    return None              # a read before the loop may serve one in it
                env.append(("shared", v.offset, v.size, v.dtype.str, v.shape))
            elif isinstance(v, np.generic):
                env.append((v.dtype.str, v.tobytes()))
            elif tv is tuple and all(type(x) is np.ndarray for x in v):     # threadIdx as a whole
                env.append(tuple((x.dtype.str, x.shape, x.tobytes()) for x in v))
            else:
                return None
        plan = model.plan
        key = (id(plan), model.banks, model.bank_bytes, model.sector_bytes, n, per, tuple(env))
        entry = self.memo.get(key)
        if entry is _ORDINARY:
            return None
        if entry is None or entry.plan is not plan:
            return self._prepare(c, init, key, plan)
        steps_needed = self.trips * (self.cost + MEM_STEPS * len(entry.uniform))
        if ctx.max_steps is not None and blk._steps + steps_needed > ctx.max_steps:
            return None                      # the ordinary run stops where the budget runs out
        c2, chunks = self._run(c, init, False)
        if chunks is None:
            return None
        self._commit(c, c2, chunks, entry, steps_needed)
        COUNTS["batched"] += 1
        return True

    def _run(self, c, init, check: bool):
        """The batched pass: (its frame, per chunk of iterations its loads), or (None, None) when it fails."""
        n = c.n
        size = max(1, min(self.trips, CHUNK_ELEMENTS // max(n, 1)))
        c2 = Ctx.__new__(Ctx)
        c2.blk, c2.v, c2.jm, c2.jumps, c2.file = c.blk, list(c.v), list(c.jm), c.jumps, c.file
        c2.coords, c2.n, c2.base, c2.act, c2.full, c2.loads = c.coords, n, c.base, c.act, True, None
        chunks = []
        try:
            if init is not None:
                init(c2)
            for t0 in range(0, self.trips, size):
                ks = self.ks[t0:t0 + size]
                c2.batch = _Loads(ks.shape[0], n, check)
                c2.v[self.kslot] = ks
                for f in self.steps:
                    f(c2)
                chunks.append((t0, c2.batch.items))
        except Exception:          # noqa: BLE001 -- whatever the batched pass cannot do, the ordinary run does
            return None, None
        if not chunks[0][1] or any(len(items) != len(chunks[0][1]) for _, items in chunks):
            return None, None
        return c2, chunks

    def _prepare(self, c, init, key, plan):
        """A new key: check what the batched pass would do (bounds, repeated reads, which reads are the same in
        every block), then let the ordinary run record what it adds."""
        ctx = c.blk._ctx
        c2, chunks = self._run(c, init, True)
        if chunks is None or (plan is not None and (plan.union or plan.vector_stride) and any(
                (site[0], site[1], "ld") in plan.union or site in plan.vector_stride
                for site, *_ in chunks[0][1])):
            self._keep(key, _ORDINARY)
            return None
        per, n = ctx.lanes_per_block, c.n
        nb = n // per
        loads = chunks[0][1]
        order = [(t, j) for t in range(self.trips) for j in range(len(loads))]
        # per load: its (iterations, first block's lanes) elements, and whether every block reads the same
        fulls, patterns, same = [], [], []
        for j in range(len(loads)):
            full = np.concatenate([items[j][3] for _, items in chunks])
            r = full.reshape(self.trips, nb, per)
            same.append(bool(nb == 1 or (r[:, 1:] == r[:, :-1]).all()))
            fulls.append(full)
            patterns.append(np.ascontiguousarray(r[:, 0]))
        seen: dict = {}
        for t, j in order:        # a read of elements read before in the loop: the register cache serves it
            b = (patterns[j][t] if same[j] else fulls[j][t]).tobytes()
            got = seen.setdefault((id(loads[j][2]), loads[j][5]), set())
            if b in got:
                self._keep(key, _ORDINARY)
                return None
            got.add(b)
        # the sload path's race calls: read_uniform for a read the same in every block of several, else access
        uniform = tuple(nb > 1 and x for x in same)
        merged = {}
        if all(uniform) or nb == 1:     # (one block: its lanes are the first block's, the patterns' own)
            for a, sh in enumerate(_arrays(loads)):
                parts = [(t, j) for t, j in order[1:] if loads[j][2] is sh]
                if parts:
                    lines = np.array([-1 if loads[j][0][0] is None else loads[j][0][0] for _, j in parts],
                                     np.int32)
                    merged[a] = (np.concatenate([patterns[j][t] for t, j in parts]), len(parts),
                                 np.repeat(lines, per))
        entry = _Entry(plan, uniform, merged)
        # the register cache after the loop: per array and type, its last loads (t, j) in order
        tails: dict = {}
        for t, j in order:
            tails.setdefault((_arrays(loads).index(loads[j][2]), loads[j][5]), (j, []))[1].append((t, j))
        entry.tails = [(j0, seq[-LoadCache.MAX_PER_BUFFER:]) for j0, seq in tails.values()]
        sites = {("shared", "ld", site[0], site[1], name, sh.dtype.itemsize) for site, name, sh, *_ in loads}
        return _Recording(key, {k: counts(s) for k, s in ctx.instrs.items()}, sites, entry)

    def _keep(self, key, entry) -> None:
        if len(self.memo) >= MAX_KEYS:
            self.memo.clear()
        self.memo[key] = entry

    def finish(self, c, rec: _Recording) -> None:
        """After the ordinary run of a ``_Recording``: what it added to each site, kept under its key."""
        ctx = c.blk._ctx
        if ctx.model._pending:
            self._keep(rec.key, _ORDINARY)
            return
        for k, s in ctx.instrs.items():
            d = tuple(a - b for a, b in zip(counts(s), rec.before.get(k, NO_COUNTS)))
            if any(d):
                if k not in rec.sites:
                    self._keep(rec.key, _ORDINARY)   # something else counted: not this loop's to replay
                    return
                rec.entry.deltas.append((k, d))
        self._keep(rec.key, rec.entry)
        COUNTS["recorded"] += 1

    def _commit(self, c, c2, chunks, entry: _Entry, steps_needed: int) -> None:
        blk = c.blk
        ctx = blk._ctx
        loads = chunks[0][1]

        def row(j, t):                       # load j's (indices, values) at iteration t
            for t0, items in reversed(chunks):
                if t >= t0:
                    _, _, _, full, v, _ = items[j]
                    return full[t - t0], (v[t - t0] if v.ndim == 2 else v)
            raise AssertionError(t)
        # the sites' summaries, made (with their sample warp) in the order the loop's first iteration meets them
        for j, (site, name, sh, full, _, _) in enumerate(loads):
            k = ("shared", "ld", site[0], site[1], name, sh.dtype.itemsize)
            s = ctx.instrs.get(k)
            if s is None or s.sample is None:
                blk._first_sample("shared", "ld", site, name, sh.dtype.itemsize,
                                  sh.offset + full[0, :32].astype(np.int64) * sh.dtype.itemsize)
        for k, d in entry.deltas:
            add_counts(ctx.instrs[k], *d)
        self._reads(blk, loads, row, entry)
        # the register cache as the loop leaves it: each array's last loads (it held none of them before the loop),
        # made when the cache next looks at the array (a barrier after the loop drops them unmade)
        cache, act = c.loads, c.act
        for j0, seq in entry.tails:
            def make(seq=seq):
                out = []
                for t, j in seq:
                    idx, v = row(j, t)
                    out.append((np.ascontiguousarray(idx), act, v))
                return out
            cache.add_later(("shared", id(loads[j0][2]), loads[j0][5]), make)
        blk.tick(steps_needed)
        for s in self.accs:
            c.v[s] = c2.v[s]
        for s in self.locals:
            v = c2.v[s]
            if isinstance(v, np.ndarray) and v.ndim == 2:     # the last iteration's value, as the loop leaves it
                v = v[-1, 0] if v.shape[1] == 1 else v[-1]
            c.v[s] = v
        c.v[self.kslot] = self.kend

    def _reads(self, blk, loads, row, entry: _Entry) -> None:
        """The race detector's view of the loop's reads: what each would do, in program order."""
        races = blk._ctx.races

        def one(t, j):                       # what the ordinary run's read does (Block._race)
            blk._race(loads[j][2], np.ascontiguousarray(row(j, t)[0]), blk._active, loads[j][0][0], False,
                      entry.uniform[j])
        one(0, 0)
        arrays = _arrays(loads)
        epoch = blk._epoch()
        deferring = [races.deferring(sh, epoch, blk._ctx.lanes_per_block, blk._tid) for sh in arrays]
        if not all(entry.uniform) or None in deferring:
            # a thread set of one block: the reads after the first as one read per array, where none can race
            if blk._tid.size == blk._ctx.lanes_per_block and races.read_one_block(
                    [(arrays[a], *read) for a, read in entry.merged.items()], blk._tid, epoch):
                return
            for t in range(self.trips):
                for j in range(len(loads)):
                    if t or j:
                        one(t, j)
            return
        (_, local, _, lwarp, _), ep = deferring[0]
        # the reads after the first, as one read of each element by its last reader (kept per lane layout, the
        # same in every launch of the kernel)
        lk = local.tobytes()
        reduced = entry.by_layout.get(lk)
        if reduced is None:
            reduced = entry.by_layout[lk] = {a: _reduced(pos, np.tile(local, m), np.tile(lwarp, m), line)
                                             for a, (pos, m, line) in entry.merged.items()}
        for a, sh in enumerate(arrays):
            if a in reduced:
                sh.shadow.queue(ep, reduced[a])


def _arrays(loads) -> list:
    out = []
    for _, _, sh, *_ in loads:
        if all(sh is not a for a in out):
            out.append(sh)
    return out


__all__ = ["LOOP_BATCH", "BatchRecorder", "LoopBatch", "body_shape_ok", "index_ok", "plan_batch"]
