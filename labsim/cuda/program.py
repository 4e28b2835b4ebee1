"""``compile(source) -> Program``; ``Program.launch`` / ``Program.call`` run it on the labsim engine.

Limitations: a kernel sees numpy arrays as device memory (no cudaMalloc/cudaMemcpy); host code can declare
scalars and dim3s, do integer arithmetic, loop, branch and launch kernels, but cannot touch device memory;
streams are accepted and ignored (launches run one after another).
"""
from __future__ import annotations

import math
import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import tree_sitter_cuda
from tree_sitter import Language, Parser

from .. import launch as _engine_launch
from ..errors import KernelError, LabsimError, StepBudgetError
from ..budget import steps_within_budget
from ..launch import check_launch_size
from . import ctype as ct
from . import sass
from .access import mem_dtype
from .compiler import Compiler
from .errors import CudaArgumentError, CudaError, CudaSyntaxError, CudaUnsupportedError
from .preprocess import preprocess
from .runtime import Ctx, HostBlock, LoadCache, Ptr
from .symbols import FunctionCode, Reparse

MAX_SOURCE_BYTES = 1 << 20
MAX_REPARSES = 64
DEFAULT_MAX_STEPS = 2_000_000     # per thread: about a second of one thread looping alone (see runtime.MEM_STEPS)
HOST_MAX_STEPS = 10_000_000
MAX_HOST_LAUNCHES = 1000          # kernel launches from one host call
_LANGUAGE = Language(tree_sitter_cuda.language())


class Result:
    """One kernel launch of a CUDA C program: everything the engine's ``Stats`` has, plus the source.

    ``metrics`` (Nsight Compute names), ``by_line`` ({source line: metrics}), ``races`` (with their lines),
    ``race_count``, the seed's fields (``gld_sectors`` ...) and ``instructions`` come from ``Stats``.
    """

    def __init__(self, stats, program: Program, kernel: str) -> None:
        self.stats = stats
        self.program = program
        self.kernel = kernel

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "stats":
            raise AttributeError(name)
        return getattr(self.stats, name)

    def source_line(self, line: int) -> str:
        """The text of a line of the compiled source (1-based)."""
        return self.program.source_line(line)

    def line_of(self, snippet: str) -> int:
        """The line number of the one source line containing ``snippet`` (whitespace-insensitive)."""
        return self.program.line_of(snippet)

    def table(self) -> str:
        """Memory metrics next to the source text, one row per memory instruction (its line:column site),
        under a header naming the counting model that produced them and what decided the compiler's rewrites
        ("sass", "source-rules" or "source": ``labsim.cuda.sass``)."""
        rows = [f"labsim counting model {self.stats.model_version} ({self.stats.counting})",
                f"{'site':>8}  {'space':6} {'op':4} {'array':10} {'requests':>9} {'cost':>9} {'per req':>8}  source"]
        for s in sorted(self.stats.instructions, key=lambda s: (s.line or 0, s.col or 0, s.space, s.op)):
            unit = "wavefr." if s.space == "shared" else "sectors"
            per = s.cost / s.requests if s.requests else 0.0
            site = f"{s.line or 0}:{s.col}" if s.col is not None else f"{s.line or 0}"
            rows.append(f"{site:>8}  {s.space:6} {s.op:4} {s.array[:10]:10} {s.requests:>9} {s.cost:>9} "
                        f"{per:>8.2f}  {self.source_line(s.line or 0).strip()}  ({unit})")
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"Result({self.kernel}, {self.stats!r})"


class Results(list):
    """The launches made by one ``Program.call``; with exactly one launch it answers like that ``Result``."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if len(self) == 1:
            return getattr(self[0], name)
        raise AttributeError(f"'{name}': this call made {len(self)} kernel launches; pick one with results[i]")

    def __repr__(self) -> str:
        return f"Results({list.__repr__(self)})"


class Program:
    """A compiled CUDA C translation unit: its kernels and host functions, ready to run on labsim."""

    def __init__(self, source: str, filename: str, kernels: dict[str, FunctionCode],
                 hosts: dict[str, FunctionCode], funcs: dict, pp) -> None:
        self.source = source
        self.filename = filename
        self.kernels = kernels
        self.hosts = hosts
        self.funcs = funcs
        self._pp = pp
        self._lines = source.split("\n")

    def __repr__(self) -> str:
        return (f"Program({self.filename!r}, kernels={sorted(self.kernels)}, host functions={sorted(self.hosts)})")

    def source_line(self, line: int) -> str:
        return self._lines[line - 1] if 1 <= line <= len(self._lines) else ""

    def _instance(self, name: str) -> FunctionCode | None:
        """The kernel instance ``red<256>`` of a template kernel, compiled on first launch; None if no template."""
        comp = getattr(self, "_compiler", None)
        if comp is None or "<" not in name:
            return None
        try:
            with np.errstate(all="ignore"):
                fd = comp.instantiate_by_name(name)
                if fd is None:
                    return None
                if not fd.is_kernel:
                    raise CudaArgumentError(f"'{name}' is not a __global__ function template", file=self.filename)
                if fd.name not in self.kernels:
                    self.kernels[fd.name] = comp.compile_entry(fd, "device")
        except Reparse:
            raise CudaUnsupportedError(f"labsim could not compile the instance {name}", file=self.filename) from None
        return self.kernels[fd.name]

    # ---- __constant__ memory -------------------------------------------------------------------------------
    def set_constant(self, name: str, values) -> None:
        """Fill ``__constant__`` ``name`` from ``values`` (what ``cudaMemcpyToSymbol`` does in host code); it keeps
        its contents across launches of this program."""
        store = self._constant(name)
        arr = np.asarray(values)
        raw = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
        dev = store.data.view(np.uint8)
        if raw.size > dev.size:
            raise CudaArgumentError(f"{raw.size} bytes do not fit __constant__ '{name}' ({dev.size} bytes)",
                                    file=self.filename)
        dev[:raw.size] = raw

    def constant(self, name: str) -> np.ndarray:
        """A copy of ``__constant__`` ``name``'s contents, shaped as declared."""
        store = self._constant(name)
        return store.data.reshape(store.shape).copy() if store.shape else store.data[0].copy()

    def _constant(self, name: str):
        store = getattr(self, "constants", {}).get(name)
        if store is None:
            raise CudaArgumentError(f"no __constant__ variable named '{name}'; here: "
                                    f"{', '.join(sorted(getattr(self, 'constants', {}))) or 'none'}", file=self.filename)
        return store

    def line_of(self, snippet: str) -> int:
        want = "".join(snippet.split())
        hits = [i + 1 for i, s in enumerate(self._lines) if want in "".join(s.split())]
        if len(hits) != 1:
            raise LookupError(f"{len(hits)} lines of {self.filename} contain {snippet!r}")
        return hits[0]

    # ---- launching -----------------------------------------------------------------------------------------
    def launch(self, kernel_name: str, grid, block, args: Sequence = (), *, dynamic_smem: int = 0,
               gpu: str = "H200", schedule: str = "lockstep", max_steps: int | None = None,
               memory_limit: int | None = None, counting: str | None = None,
               analysis: dict | None = None) -> Result:
        """Run ``kernel_name<<<grid, block, dynamic_smem>>>(*args)`` on the engine.

        Arrays stand for device pointers: an array passed for ``T*`` is viewed as ``T`` (its size in bytes must
        be a multiple of ``sizeof(T)``). ``max_steps`` bounds the work of each thread (a loop iteration costs 5
        steps per AST node it runs, a memory instruction 20; the default, 2 million, is about a second of one
        thread looping alone and does not depend on the size of the launch) so that an endless loop stops with
        ``StepBudgetError``; raise it for a longer kernel. ``memory_limit``: see ``labsim.launch``.
        ``counting``: None (or "auto") takes ``labsim.cuda.sass.default_counting()``: "source-rules" unless
        ``$LABSIM_COUNTING`` says otherwise, whatever is installed. "source-rules" counts what the compiled kernel
        does by labsim's rules for ptxas; "sass" (opt-in, needs nvcc and nvdisasm) lets the kernel's SASS decide;
        "source" counts the accesses as written (no vector loads, every guarded instruction predicated, no
        aggregated atomics). ``labsim.cuda.sass`` documents the modes. ``analysis``: SASS recorded elsewhere
        (``labsim.cuda.sass.parse_nvdisasm`` of the file's ``nvdisasm -gi`` output) for SASS mode without nvcc.
        """
        code = self.kernels.get(kernel_name) or self._instance(kernel_name)
        if code is None:
            hint = f"; kernels here: {', '.join(sorted(self.kernels)) or 'none'}"
            raise CudaArgumentError(f"no __global__ function named '{kernel_name}'{hint}", file=self.filename)
        if not isinstance(args, (list, tuple)):
            args = (args,)
        vals = self._bind(code, list(args))
        return self._run(code, grid, block, vals, dynamic_smem, gpu, schedule, max_steps, memory_limit, counting,
                         analysis)

    def _run(self, code: FunctionCode, grid, block, vals, dynamic_smem, gpu, schedule, max_steps,
             memory_limit=None, counting: str | None = None, analysis: dict | None = None) -> Result:
        self._check_size(code, grid, block, dynamic_smem, memory_limit)
        steps = DEFAULT_MAX_STEPS if max_steps is None else int(max_steps)
        steps = steps_within_budget(_threads(grid, block), steps, kernel=code.name, file=self.filename)
        file = self.filename
        shared, coords, body, nslots, njm = code.shared, code.coords, code.body, code.nslots, code.njm
        slots = code.param_slots
        restrict = code.restrict

        def kernel(blk, *values):
            with np.errstate(all="ignore"):
                c = Ctx(blk, nslots, njm, file)
                if fold:
                    c.loads = LoadCache()
                    c.loads.restrict = {id(values[k].buf) for k in restrict if isinstance(values[k], Ptr)}
                for s, v in zip(slots, values):
                    c.v[s] = v
                for sd in shared:
                    dt = mem_dtype(sd.elem)
                    dims = sd.dims or (1,)
                    if sd.elem.struct:   # float3 and structs: an array of their members, accessed one by one
                        dt = sd.elem.elem.dtype
                        dims = dims[:-1] + (dims[-1] * len(sd.elem.fields),)
                    if sd.extern:
                        c.v[sd.slot] = blk.dynamic_shared(dt, name=sd.name)
                    else:   # declared shape (a scalar is one element); accesses use flat indices
                        c.v[sd.slot] = blk.shared(dims, dt, name=sd.name, line=sd.line)
                for s, key in coords:
                    c.v[s] = _coord(blk, key)
                if body is not None:      # an empty body compiles to None
                    body(c)

        if analysis is not None:
            plan = self.plan(code.name, analysis=analysis)
        else:
            counting = self._counting(counting)
            plan = None if counting == "source" else self.plan(code.name, counting)
        fold = plan is not None       # the compiled kernel keeps repeated reads in registers
        try:
            stats = _engine_launch(kernel, grid, block, tuple(vals), gpu=gpu, schedule=schedule,
                                   dynamic_smem=dynamic_smem, max_steps=steps, name=code.name,
                                   memory_limit=memory_limit, plan=plan)
        except CudaError:
            raise
        except LabsimError as e:
            self._locate(e)
            raise
        return Result(stats, self, code.name)

    def _counting(self, counting: str | None) -> str:
        if counting is None or counting == "auto":
            try:
                counting = sass.default_counting()
            except ValueError as e:
                raise CudaArgumentError(str(e), file=self.filename) from None
        if counting not in sass.MODES:
            raise CudaArgumentError(f"counting must be 'source-rules' (the default), 'sass' or 'source', not "
                                    f"{counting!r}", file=self.filename)
        if counting == "sass" and not sass.available():
            raise CudaArgumentError("counting='sass' reads the kernel's SASS and needs nvcc and nvdisasm on the PATH "
                                    "(none found); the default, counting='source-rules', needs no compiler",
                                    file=self.filename)
        return counting

    def plan(self, kernel_name: str, counting: str | None = None, *, analysis: dict | None = None):
        """What the compiler does to the kernel (``labsim.model.CountPlan``): labsim's source rules
        ("source-rules", the default), or the rules decided by the kernel's SASS ("sass": compiled with nvcc, or
        ``analysis``, recorded ``nvdisasm`` output parsed by ``labsim.cuda.sass.parse_nvdisasm``). Computed once."""
        plan_for = sass.plan_for
        if analysis is not None:
            counting = "sass"
        else:
            counting = self._counting(counting)
            if counting == "source":
                raise CudaArgumentError("counting='source' has no plan: the accesses are counted as written",
                                        file=self.filename)
        rules = self.kernels[kernel_name].rules
        if analysis is not None:
            return plan_for(rules, None, kernel_name, rules.get("sites"), analysis=analysis)
        plans = self.__dict__.setdefault("_plans", {})
        key = (kernel_name, counting)
        if key not in plans:
            plans[key] = plan_for(rules, self.source if counting == "sass" else None, kernel_name,
                                  rules.get("sites"))
        return plans[key]

    def _check_size(self, code: FunctionCode, grid, block, dynamic_smem, memory_limit=None) -> None:
        """Refuse launches whose simulation would not fit in memory (a hostile <<<1 << 30, 1024>>>, say)."""
        def prod(d):
            try:
                vals = [int(d)] if isinstance(d, (int, np.integer)) else [int(x) for x in d]
            except (TypeError, ValueError):
                return 1        # the engine reports malformed dimensions
            out = 1
            for x in vals:
                out *= max(x, 1)
            return out
        if prod(block) > 1024:
            return              # the engine reports the invalid configuration
        smem = sum(math.prod(int(d) for d in sd.dims) * sd.elem.size for sd in code.shared if not sd.extern)
        check_launch_size(prod(grid), prod(block), smem + max(int(dynamic_smem), 0), code.local_bytes,
                          limit=memory_limit, kernel=code.name, file=self.filename)

    def _locate(self, e: LabsimError) -> None:
        """Report an engine error raised inside this program like a compiler would: file:line:col, the line."""
        if "source" in e.where:
            return
        if isinstance(e, KernelError):   # a Python exception in the interpreter: its line is not the student's
            e.where.pop("line", None)
            e.args = (f"internal error in labsim.cuda while running {self.filename}: {e.message} (please "
                      "report this with the source)",)
            return
        e.where.setdefault("file", self.filename)
        line = e.where.get("line")
        if isinstance(line, int) and 1 <= line <= len(self._lines):
            e.where["source"] = self._lines[line - 1]
        text = CudaError._format(e)
        if isinstance(e, StepBudgetError):
            text += "\n(a kernel that really needs longer can pass a larger max_steps= to launch/call)"
        e.args = (text,)

    def _bind(self, code: FunctionCode, args: list) -> list:
        if len(args) != len(code.params):
            sig = ", ".join(f"{t} {n}" for n, t in code.params)
            raise CudaArgumentError(f"{code.name}({sig}) takes {len(code.params)} argument(s), {len(args)} given",
                                    file=self.filename, line=code.line)
        return [self._bind_one(code, n, t, a) for (n, t), a in zip(code.params, args)]

    def _bind_one(self, code: FunctionCode, name: str, t: ct.CType, a: Any):
        where = dict(file=self.filename, line=code.line)
        if t.kind == "ptr":
            if isinstance(a, Ptr):
                return a
            if not isinstance(a, np.ndarray):
                raise CudaArgumentError(f"argument '{name}' ({t}) needs a numpy array, got {type(a).__name__}",
                                        **where)
            if not a.flags.c_contiguous:
                raise CudaArgumentError(f"array for '{name}' is not C-contiguous (shape {a.shape}); pass "
                                        "np.ascontiguousarray(...)", **where)
            elem = t.elem
            if elem.kind == "void":
                return Ptr(a.reshape(-1), 0, name, "global")
            dt = mem_dtype(elem) if not elem.struct else elem.elem.dtype   # a struct: its members' type
            if dt.itemsize not in (1, 2, 4, 8, 16):
                raise CudaArgumentError(f"parameter '{name}' points to {elem}: labsim models 1-, 2-, 4-, 8- and "
                                        "16-byte elements", **where)
            flat = a.reshape(-1)
            if flat.dtype != dt:
                if flat.nbytes % dt.itemsize:
                    raise CudaArgumentError(
                        f"array for '{name}' has {flat.nbytes} bytes ({flat.size} x {flat.dtype}), not a whole "
                        f"number of {elem} ({dt.itemsize} bytes each)", **where)
                base = elem.elem.dtype if elem.kind == "vec" else dt
                same_ints = flat.dtype.kind in "iu" and base.kind in "iu" and flat.dtype.itemsize == base.itemsize
                if flat.dtype != base and not same_ints and flat.dtype.kind != "V":
                    warnings.warn(f"{code.name}: array for '{name}' has dtype {flat.dtype} but the parameter is "
                                  f"{t}; its bytes are read as {elem} (device memory is untyped)", stacklevel=5)
                flat = flat.view(np.uint8).view(dt)
            return Ptr(flat, 0, name, "global")
        if t.kind == "stream":
            return None
        if t.kind == "vec":
            try:
                comps = tuple(a)
            except TypeError:
                comps = None
            if comps is None or len(comps) not in ((len(t.fields),) if t is not ct.DIM3 else (1, 2, 3)):
                raise CudaArgumentError(f"argument '{name}' ({t}) needs {len(t.fields)} numbers", **where)
            comps = comps + (1,) * (len(t.fields) - len(comps))
            return tuple(self._scalar(name, t.elem, x, where) for x in comps)
        return self._scalar(name, t, a, where)

    def _scalar(self, name: str, t: ct.CType, a: Any, where: dict):
        if isinstance(a, np.ndarray) and a.ndim == 0:
            a = a[()]
        if isinstance(a, (bool, np.bool_)):
            return ct.scalar(bool(a), t)
        if t.kind in ("int", "bool"):
            if not isinstance(a, (int, np.integer)):
                raise CudaArgumentError(f"argument '{name}' ({t}) needs an integer, got {a!r}", **where)
            if t.kind == "int":
                info = np.iinfo(t.dtype)
                lo = info.min if info.min < 0 else -(1 << (info.bits - 1))
                if not lo <= int(a) <= info.max:
                    raise CudaArgumentError(f"argument '{name}' = {a} does not fit in {t}", **where)
            return ct.scalar(int(a), t)
        if t.kind == "float":
            if not isinstance(a, (int, float, np.integer, np.floating)):
                raise CudaArgumentError(f"argument '{name}' ({t}) needs a number, got {a!r}", **where)
            return t.dtype.type(a)
        raise CudaArgumentError(f"argument '{name}' has unsupported type {t}", **where)

    # ---- host functions ------------------------------------------------------------------------------------
    def call(self, host_fn: str, *args: Any, gpu: str = "H200", schedule: str = "lockstep",
             max_steps: int | None = None, memory_limit: int | None = None, counting: str | None = None) -> Results:
        """Run a host launcher such as ``launch_transpose_tiled(input, output, M, N, stream)``.

        Its ``<<<grid, block[, smem[, stream]]>>>`` launches run on the engine in order; returns their Results
        (a list that, with a single launch, also answers like that launch's Result).
        """
        code = self.hosts.get(host_fn)
        if code is None:
            if host_fn in self.kernels:
                raise CudaArgumentError(f"'{host_fn}' is a kernel: use Program.launch", file=self.filename)
            hint = f"; host functions here: {', '.join(sorted(self.hosts)) or 'none'}"
            raise CudaArgumentError(f"no host function named '{host_fn}'{hint}", file=self.filename)
        vals = self._bind(code, list(args))
        results = Results()
        blk = _HostBlock(self, results, gpu, schedule, max_steps, memory_limit, counting)
        with np.errstate(all="ignore"):
            c = Ctx(blk, code.nslots, code.njm, self.filename)
            for s, v in zip(code.param_slots, vals):
                c.v[s] = v
            if code.body is not None:     # an empty body compiles to None
                code.body(c)
        return results


def _threads(grid, block) -> int:
    """Threads of a launch (malformed dimensions count as 1: the engine reports them)."""
    out = 1
    for d in (grid, block):
        try:
            vals = [int(d)] if isinstance(d, (int, np.integer)) else [int(x) for x in d]
        except (TypeError, ValueError):
            vals = [1]
        for x in vals:
            out *= max(x, 1)
    return out


class _HostBlock(HostBlock):
    def __init__(self, program: Program, results: Results, gpu, schedule, max_steps, memory_limit,
                 counting: str | None = None) -> None:
        super().__init__(HOST_MAX_STEPS)
        self.program, self.results = program, results
        self.opts = (gpu, schedule, max_steps, memory_limit, counting)

    def launch_kernel(self, name: str, grid, block, vals, smem: int, line: int) -> None:
        if len(self.results) >= MAX_HOST_LAUNCHES:     # each launch is a whole simulation
            raise StepBudgetError(f"host code launched more than {MAX_HOST_LAUNCHES} kernels in one call: is a "
                                  "launch inside a loop?", file=self.program.filename, line=line)
        code = self.program.kernels[name]
        args = []
        for (pname, t), v in zip(code.params, vals):
            if isinstance(v, Ptr):
                boff = int(np.asarray(v.boff).reshape(-1)[0])
                buf = v.buf.reshape(-1)
                args.append(self.program._bind_one(code, pname, t, buf if boff == 0 else buf.view(np.uint8)[boff:]))
            elif isinstance(v, tuple):
                args.append(tuple(np.asarray(x).reshape(-1)[0] for x in v))
            elif v is None:
                args.append(None)
            else:
                args.append(np.asarray(v).reshape(-1)[0])
        self.results.append(self.program._run(code, grid, block, args, smem, *self.opts))


def _coord(blk, key: str):
    v = getattr(blk, key)
    if isinstance(v, (int, np.integer)):
        return np.uint32(v)
    return v.astype(np.uint32)


# ---- compile ---------------------------------------------------------------------------------------------------

def compile(source: str, filename: str = "<source>") -> Program:
    """Parse and check CUDA C++ ``source``; raise a CudaError (file:line:col) for anything it cannot run."""
    if not isinstance(source, str):
        raise TypeError(f"compile() needs the source text as a str, got {type(source).__name__}")
    if len(source.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise CudaSyntaxError(f"source is larger than {MAX_SOURCE_BYTES} bytes", file=filename)
    source = source.replace("\r\n", "\n")
    try:
        return _compile(source, filename)
    except RecursionError:
        raise CudaUnsupportedError("the source nests too deeply for labsim (expressions, parentheses or else-if "
                                   "chains hundreds of levels deep): split the expression or the chain",
                                   file=filename) from None


def _compile(source: str, filename: str) -> Program:
    pp = preprocess(source, filename)
    for _ in range(MAX_REPARSES):
        tree = Parser(_LANGUAGE).parse(pp.text.encode("utf-8"))
        comp = Compiler(pp, tree.root_node, filename)
        if tree.root_node.has_error:
            raise _syntax_error(comp, tree.root_node)
        try:
            with np.errstate(all="ignore"):   # constant folding wraps like the kernels do
                kernels, hosts, funcs = comp.run()
        except Reparse as r:
            # C++ is ambiguous without a symbol table: `(a * (b)) + 0` parses as a cast to a function-pointer
            # type `a (*)(b)` unless `a` is known to be a variable. Parenthesise the name and parse again.
            pp.parenthesize(r.start_byte, r.end_byte)
            continue
        prog = Program(source, filename, kernels, hosts, funcs, pp)
        prog.constants = dict(comp.constants)
        prog._compiler = comp         # instantiates templates named at launch: prog.launch("red<256>", ...)
        return prog
    raise CudaSyntaxError("could not disambiguate the expressions of this source", file=filename)


def _syntax_error(comp: Compiler, root) -> CudaError:
    node = _first_error(root)
    if node is None:
        return CudaSyntaxError("syntax error", file=comp.file)
    if node.is_missing:
        what = node.type if not node.is_named else node.type.replace("_", " ")
        return comp.err(node, f"expected '{what}'", CudaSyntaxError)
    text = comp.text(node).strip().split("\n")[0][:40]
    bad = next((ch for ch in _leaves(node) if ch.type not in ("comment",)), node)
    tok = comp.text(bad).strip()[:30] or text
    return comp.err(bad, f"syntax error near '{tok}'", CudaSyntaxError)


def _first_error(node):
    if node.type == "ERROR" or node.is_missing:
        return node
    if not node.has_error:
        return None
    for ch in node.children:
        hit = _first_error(ch)
        if hit is not None:
            return hit
    return None


def _leaves(node):
    if node.child_count == 0:
        yield node
    for ch in node.children:
        yield from _leaves(ch)


def compile_file(path: str) -> Program:
    """Compile a .cu file (e.g. one written by ``%%writefile``); diagnostics name it by its base name."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    return compile(source, os.path.basename(path))


def run_file(path: str, host_fn: str, *args: Any, **opts: Any) -> Results:
    """Compile ``path`` and run its host launcher ``host_fn(*args)``: the notebook one-liner."""
    return compile_file(path).call(host_fn, *args, **opts)
