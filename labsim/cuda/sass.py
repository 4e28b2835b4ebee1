"""What the compiled kernel does: nvcc's SASS, where nvcc is installed, else labsim's source rules.

labsim counts the accesses a kernel's source makes. The H200 counts the instructions ptxas emitted, and ptxas
rewrites the source in ways that change Nsight Compute's counters (measured in measurements/h200/classes/):

* **vector loads**: four consecutive 4-byte shared reads of a 16-byte-aligned row (``As[ty][k]`` for k..k+3 in
  an unrolled loop, or ``t[i][0] + t[i][1] + t[i][2] + t[i][3]``) become one ``LDS.128``; two of an
  8-byte-aligned row one ``LDS.64``.
* **branch vs predication**: a guarded instruction is either predicated (``@P0 LDG``: every warp that reaches
  it executes it, lanes off) or behind a branch or an early ``EXIT`` (warps with no active lane skip it), and
  ``smsp__inst_executed_op_*`` differs.
* **warp-aggregated atomics**: an integer ``atomicAdd`` on a warp-uniform address becomes vote + popc + one
  lane's atomic (1 request, 1 sector per warp instead of 32).

Design (issue 17, issue 23). The executor records every access by instruction site (line, column). A
``CountPlan`` (``labsim.model``) says, per site, what the compiler did, and the counting model applies it:

1. **Source rules** (the default everywhere: lessons, grader, kit, tests; computed by the front end while it
   compiles): ptxas's decisions, written down as rules and checked against the SASS of every recorded kernel.
   Vector loads: a shared read ``a[...][b + k + c]`` inside ``for (int k = C0; k < C1; ++k)`` with constant
   bounds, at most 32 iterations and no ``#pragma unroll 1`` before it (ptxas unrolls it), whose row is a
   multiple of 16 (8) bytes, whose other terms ``b`` are multiples of 4 (2) (``ty * 4``) and whose groups start
   aligned; or last indices b+c..b+c+3 of one array row on one line (``t[i][0..3]``, ``s[2*m]``, ``s[2*m+1]``).
   Vector stores: the same shapes in consecutive statements (``s[2*l] = a; s[2*l+1] = b;``). If/else arms: a
   location both arms store (``if (c) out[i] = a; else out[i] = b;``) or both read is one instruction.
   Branches: the instructions inside a kernel's final ``if`` without ``else`` (ptxas emits ``@!P EXIT``), and in
   the last copy of a kernel's final unrolled loop(s) ending in such an ``if`` (the earlier copies are
   predicated); both arms of an ``if`` whose condition is warp-uniform (constants, parameters, blockIdx/blockDim/
   gridDim and locals made only of them); every other guarded instruction is predicated. Unrolled loops:
   ``for (int k = C0; k < C1; k += S)`` with constant bounds and step, at most 32 trips. Aggregation: ``atomicAdd``/``atomicSub`` on an integer whose
   address names only constants, kernel parameters and blockIdx/blockDim/gridDim.
2. **SASS** (an explicit opt-in: ``counting="sass"`` or ``LABSIM_COUNTING=sass``; needs ``nvcc`` and
   ``nvdisasm``): the file is compiled as nvcc would for the H200 (``nvcc -cubin -arch=sm_90 -O3 -lineinfo``)
   and disassembled with ``nvdisasm -gi``; for each source line of the kernel the SASS then decides: a vector
   candidate is kept only if the line has an ``LDS`` of that width; a guarded site is a branch exactly when none
   of the line's instructions of its kind (LDS, STS, LDG, STG, ATOM/RED) is predicated; an integer atomic is
   aggregated exactly when its line has a vote and a popc/redux. Nothing is executed: nvcc only compiles. The
   analysis is cached by the source's SHA-256 in memory and in a cache folder: ``$LABSIM_SASS_CACHE``, else
   ``$LABSIM_CACHE_DIR/sass``, else ``$XDG_CACHE_HOME/labsim/sass``, else ``~/.cache/labsim/sass``.

Why this design: one count whatever the PATH. A student's notebook (no nvcc), the grader's container and the
lesson pages count the same kernel the same way, because the default never looks for a compiler. The SASS is
the ground truth of what the H200 executes, so the SASS mode is kept to check a kernel the rules may not cover;
reading it per source line keeps labsim's exact per-lane address model (sectors, wavefronts, conflicts come
from the simulated addresses, never from the SASS). ``Stats.counting`` says which decided ("source-rules" or
"sass"; "source" when the accesses are counted as written).

Limitations: a merge ptxas makes that the source rules do not propose (a loop over a computed bound, say) is
not modelled even with SASS (``labsim.model`` lists the measured cases); a shared float ``atomicAdd`` is a CAS loop on the
H200 whose retries depend on timing (measured: 3782 ``ATOMS`` for 16 warps), labsim counts one ``ATOMS`` per warp.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..model import CountPlan

NVCC_FLAGS = ["-cubin", "-arch=sm_90", "-O3", "-lineinfo"]
_MEMO: dict[str, dict | None] = {}
_LOC = re.compile(r'File "([^"]*)", line (\d+)')
_INSTR = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)")


def _tool(name: str) -> str | None:
    found = shutil.which(name) or shutil.which(name, path="/usr/local/cuda/bin")
    if found:
        return found
    try:   # the pip wheels nvidia-cuda-nvdisasm / nvidia-cuda-nvcc put the tools in nvidia/cu13/bin
        import nvidia
        for base in nvidia.__path__:
            for cand in Path(base).glob(f"cu*/bin/{name}"):
                if os.access(cand, os.X_OK):
                    return str(cand)
    except ImportError:
        pass
    return None


def available() -> bool:
    """nvcc and nvdisasm are both here (and ``LABSIM_SASS=0`` does not hide them)."""
    return os.environ.get("LABSIM_SASS", "1") != "0" and _tool("nvcc") is not None and _tool("nvdisasm") is not None


MODES = ("source-rules", "sass", "source")


def default_counting() -> str:
    """The counting mode used when a launch names none: ``$LABSIM_COUNTING`` if set, else "source-rules"
    (never chosen by what happens to be installed)."""
    mode = os.environ.get("LABSIM_COUNTING", "").strip() or "source-rules"
    if mode not in MODES:
        raise ValueError(f"LABSIM_COUNTING={mode!r}: expected one of {', '.join(MODES)}")
    return mode


def cache_dir() -> Path:
    """Where SASS analyses are cached (only SASS mode writes there)."""
    env = os.environ
    if env.get("LABSIM_SASS_CACHE"):
        return Path(env["LABSIM_SASS_CACHE"])
    if env.get("LABSIM_CACHE_DIR"):
        return Path(env["LABSIM_CACHE_DIR"]) / "sass"
    if env.get("XDG_CACHE_HOME"):
        return Path(env["XDG_CACHE_HOME"]) / "labsim" / "sass"
    return Path.home() / ".cache" / "labsim" / "sass"


_cache_dir = cache_dir


def analyse(source: str, timeout_s: float = 60) -> dict | None:
    """{function symbol: {line: [[opcode, predicated], ...]}} of ``source`` compiled for sm_90, or None when
    nvcc/nvdisasm are missing or nvcc rejects the source. Cached by the source's hash."""
    if not available():
        return None
    tools = []
    for t in ("nvcc", "nvdisasm"):      # another toolkit may compile differently: its own cache entries
        path = os.path.realpath(_tool(t))
        tools.append(f"{path}:{os.path.getmtime(path) if os.path.exists(path) else 0}")
    key = hashlib.sha256((" ".join(NVCC_FLAGS + tools) + "\n" + source).encode()).hexdigest()
    if key in _MEMO:
        return _MEMO[key]
    path = _cache_dir() / f"{key}.json"
    try:
        out = json.loads(path.read_text(encoding="utf-8"))
        _MEMO[key] = out
        return out
    except (OSError, ValueError):
        pass
    out = _compile(source, timeout_s)
    _MEMO[key] = out
    if out is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(out), encoding="utf-8")
            tmp.replace(path)
        except OSError:
            pass
    return out


def _compile(source: str, timeout_s: float) -> dict | None:
    text = disassemble(source, timeout_s)
    return None if text is None else parse_nvdisasm(text, "kernel.cu")


def disassemble(source: str, timeout_s: float = 60) -> str | None:
    """``nvdisasm -gi -c`` of ``source`` compiled as ``kernel.cu`` with ``nvcc -cubin -arch=sm_90 -O3 -lineinfo``
    (compiled, never run), or None when the tools are missing or nvcc rejects the source."""
    if _tool("nvcc") is None or _tool("nvdisasm") is None:
        return None
    with tempfile.TemporaryDirectory(prefix="labsim-sass-") as tmp:
        src = os.path.join(tmp, "kernel.cu")
        with open(src, "w", encoding="utf-8") as f:
            f.write(source)
        cubin = os.path.join(tmp, "kernel.cubin")
        try:
            r = subprocess.run([_tool("nvcc"), *NVCC_FLAGS, "-o", cubin, src], capture_output=True, text=True,
                               timeout=timeout_s, cwd=tmp)
            if r.returncode != 0:
                return None
            d = subprocess.run([_tool("nvdisasm"), "-gi", "-c", cubin], capture_output=True, text=True,
                               timeout=timeout_s, cwd=tmp, errors="replace")
        except (OSError, subprocess.TimeoutExpired):
            return None
        if d.returncode != 0:
            return None
        return d.stdout


def parse_nvdisasm(text: str, source_name: str) -> dict:
    """Instructions per function and source line of ``nvdisasm -gi`` output; a line is the innermost location
    in ``source_name`` (an atomic inlined from CUDA's headers belongs to the line that called it)."""
    out: dict[str, dict[str, list]] = {}
    func = None
    line = None
    for raw in text.splitlines():
        s = raw.strip()
        if s.startswith(".text.") and s.endswith(":"):
            func = s[len(".text."):-1]
            out.setdefault(func, {})
            line = None
            continue
        if s.startswith("//## File"):
            mine = [int(n) for f, n in _LOC.findall(s) if os.path.basename(f) == source_name]
            if mine:
                line = mine[0]
            elif " inlined at " not in s:
                line = None
            continue
        m = _INSTR.search(raw)
        if m and func is not None and line is not None:
            pred = m.group(1)
            predicated = bool(pred) and "PT" not in pred
            out[func].setdefault(str(line), []).append([m.group(2), predicated])
    return out


_MANGLE = {"bool": "b", "char": "c", "signed char": "a", "unsigned char": "h", "short": "s", "unsigned short": "t",
           "int": "i", "unsigned int": "j", "long": "l", "unsigned long": "m", "long long": "x",
           "unsigned long long": "y", "size_t": "m", "float": "f", "double": "d", "__half": "6__half"}


def _template_args(text: str) -> str | None:
    """Itanium mangling of template arguments ``256, float`` (``Li256EEf``... as nvcc writes them), or None."""
    out = []
    for a in (x.strip() for x in text.split(",")):
        if re.fullmatch(r"-?\d+", a):
            out.append(f"Li{'n' + a[1:] if a.startswith('-') else a}E")
        elif a in _MANGLE:
            out.append(_MANGLE[a])
        else:
            return None
    return "I" + "".join(out) + "E"


def _function(sass: dict, kernel: str) -> dict | None:
    if kernel in sass:
        return sass[kernel]
    m = re.fullmatch(r"(\w+)<(.*)>", kernel)
    if m is not None:           # a template instance red<256, float>: _Z3redILi256EfEv...
        targs = _template_args(m.group(2))
        if targs is None:
            return None
        name = m.group(1)
        pat = re.compile(rf"^_Z{len(name)}{re.escape(name)}{re.escape(targs)}")
    else:
        # Itanium mangling: <length><name> then the parameter types (or E closing a namespace)
        pat = re.compile(rf"{len(kernel)}{re.escape(kernel)}(?=[A-Za-z]|$)")
    hits = [f for f in sass if pat.search(f)]
    return sass[hits[0]] if len(hits) == 1 else None


def _kind(opcode: str) -> tuple[str, str, int] | None:
    """(space, op, bits) of a memory instruction, else None."""
    parts = opcode.split(".")
    base = parts[0]
    bits = next((int(p) for p in parts[1:] if p in ("64", "128")), 32)
    table = {"LDS": ("shared", "ld"), "STS": ("shared", "st"), "ATOMS": ("shared", "atom"),
             "LDG": ("global", "ld"), "STG": ("global", "st"), "ATOMG": ("global", "atom"),
             "ATOM": ("global", "atom"), "REDG": ("global", "red"), "RED": ("global", "red"),
             "LD": ("global", "ld"), "ST": ("global", "st")}
    k = table.get(base)
    return None if k is None else (k[0], k[1], bits)


def plan_for(rules: dict, source: str | None, kernel: str, sites=None, analysis: dict | None = None) -> CountPlan:
    """The CountPlan of ``kernel``: the source rules ``rules`` (``FunctionCode.rules``), decided by the SASS of
    ``source`` (None: the rules alone), or by ``analysis`` (``parse_nvdisasm``'s output: recorded SASS).
    ``sites``: {(line, col): (space, ops)} of the kernel's memory accesses, for the branch decision (None: the
    source rules' branch sites only)."""
    vector = dict(rules.get("vector", {}))
    vector_st = dict(rules.get("vector_st", {}))
    union = dict(rules.get("union", {}))
    stride = dict(rules.get("vector_stride", {}))
    branch = set(rules.get("branch", ()))
    aggregate = set(rules.get("aggregate", ()))
    sass = analysis if analysis is not None else (None if source is None else analyse(source))
    fn = None if sass is None else _function(sass, kernel)
    if fn is None:
        return CountPlan("source-rules", {s: v[:3] for s, v in vector.items()}, frozenset(branch),
                         frozenset(aggregate), {s: v[:3] for s, v in vector_st.items()}, union, stride)
    by_line = {int(k): v for k, v in fn.items()}

    def kinds(line):
        return [(_kind(op), pred, op) for op, pred in by_line.get(line, ()) if _kind(op) is not None]
    for site, (group, pos, w, nbytes) in list(vector.items()):
        if not any(k[0] == "shared" and k[1] == "ld" and k[2] == nbytes * 8 for k, _, _ in kinds(site[0])):
            del vector[site]
    groups: dict = {}
    for site, (group, pos, w, nbytes) in vector_st.items():     # stores in consecutive statements: one STS
        groups.setdefault(group, []).append((site, nbytes))      # attributed to one of their lines
    for sts in groups.values():
        if not any(k[0] == "shared" and k[1] == "st" and k[2] == nbytes * 8 for site, nbytes in sts
                   for k, _, _ in kinds(site[0])):
            for site, _ in sts:
                del vector_st[site]
    for site in list(aggregate):
        ops = [op for op, _ in by_line.get(site[0], ())]
        if not (any(o.startswith("VOTE") for o in ops) and any(o.startswith(("POPC", "REDUX")) for o in ops)):
            aggregate.discard(site)
    for site, (space, ops) in (sites or {}).items():
        if site in aggregate:
            continue     # the elected lane's atomic is predicated by the election, not by the guard
        mine = [pred for k, pred, _ in kinds(site[0]) if k[0] == space and k[1] in ops]
        if not mine:
            continue
        if any(mine):
            if site not in rules.get("branch", ()):
                branch.discard(site)   # predicated; inside the kernel's tail `if` it is both (@!P EXIT, then @P)
        else:
            branch.add(site)
    return CountPlan("sass", {s: v[:3] for s, v in vector.items()}, frozenset(branch), frozenset(aggregate),
                     {s: v[:3] for s, v in vector_st.items()}, union, {s: v for s, v in stride.items() if s in vector})
