"""labsim.cuda: run a student's real CUDA C on the lab simulator, counting per source line.

    import labsim.cuda as lc
    prog = lc.compile_file("/tmp/09_transpose_tiled.cu")               # or lc.compile(text, "name.cu")
    res = prog.call("launch_transpose_tiled", A, B, M, N, 0)           # the file's own host launcher
    res.by_line[prog.line_of("tile[threadIdx.x][threadIdx.y + j]")]  # ncu metrics of that line
    prog.launch("transpose_tiled_kernel", grid, block, (A, B, M, N))   # or launch a kernel directly

The source is preprocessed (line numbers kept), parsed with tree-sitter-cuda, checked, and compiled once into
Python closures that the engine runs over whole thread sets (numpy arrays, masks for divergence). It is never
executed natively nor passed to eval/exec; calls that could reach files, processes, the network or the
allocator are rejected by name, loops spend a step budget, and launches too large to simulate are refused.

The subset: ``#include`` (ignored), ``#define`` (object- and function-like), ``#if``/``#ifdef``; namespaces;
``constexpr``/``const`` scalars; ``__global__``/``__device__``/host functions (device functions inlined);
``__restrict__``; pointers to global memory and into shared arrays, pointer arithmetic, ``reinterpret_cast``
between 2/4/8/16-byte element types; ``__shared__`` 1-D/2-D arrays and scalars, ``extern __shared__``;
per-thread arrays; bool/char/short/int/unsigned/long long/size_t/float/double/``__half`` (global and shared
arrays of 1-, 2-, 4-, 8- and 16-byte elements); CUDA's vector types up to 16 bytes (char1-4 ... float1-4,
double1-3, longlong1-2, dim3) with ``make_*`` and ``.x/.y/.z/.w``, 3-component ones (float3) moved member by
member as nvcc does; plain structs of scalar members; function templates with integer and type parameters
(``red<256><<<g, b>>>``, ``sum<float>(a, b)`` or deduced; ``Program.launch("red<256>", ...)``); ``__constant__``
variables filled by ``cudaMemcpyToSymbol`` (or ``Program.set_constant``) and read through the constant cache
(not a global load); warp shuffles, votes and ``__reduce_*_sync`` (``labsim.cuda.warp``); every C operator
except pointer comparison/difference; ``if``/``for``/``while``/``do``/``break``/``continue``/``return``;
``__syncthreads``, ``__syncwarp``, ``atomicAdd``/``atomicSub``, ``min``/``max``, the common math functions and
conversion intrinsics; host launchers with ``dim3``, integer arithmetic, loops and
``<<<grid, block[, smem[, stream]]>>>``.

Counters are those of the compiled kernel (``labsim.cuda.sass``): labsim's source rules decide which shared
loads ptxas merges into LDS.64/LDS.128, which guarded instructions are predicated and which behind a branch,
and which integer atomics are warp-aggregated. That is the default everywhere, whatever is installed, so a
notebook, the grader and the site count alike; ``launch(..., counting="sass")`` (or ``LABSIM_COUNTING=sass``)
lets the kernel's SASS decide instead (needs nvcc), and ``counting="source"`` counts the accesses as written.
``res.stats.counting`` says which.

Limitations: arithmetic follows C on the GPU's instructions, but each operation is rounded on its own (nvcc
contracts ``a * b + c`` into an FMA by default) and float math functions are numpy's (a few ulps from CUDA's);
a member access of a vector in memory (``a[i].x``) is its own 4-byte access (nvcc may merge several into one
vector access); per-thread arrays live in Python, so local-memory traffic is not counted; uninitialised locals
read as zero; no printf, switch, class templates, ``__match_*_sync`` or other atomics; streams are ignored;
a ``__constant__`` read costs no counted memory traffic whatever its addresses (the H200 serialises a warp's
distinct constant addresses, which no counter labsim reports measures).
A merge ptxas makes that the source rules do not propose (a loop whose trip count it derives through a shift,
say) is not modelled: ``labsim.model``'s Limitations list the measured cases.
"""
from .errors import (
                     CudaArgumentError,
                     CudaCompileError,
                     CudaError,
                     CudaRuntimeError,
                     CudaSyntaxError,
                     CudaUnsupportedError,
)
from .program import Program, Result, Results, compile, compile_file, run_file

__all__ = [
                     "CudaArgumentError",
                     "CudaCompileError",
                     "CudaError",
                     "CudaRuntimeError",
                     "CudaSyntaxError",
                     "CudaUnsupportedError",
                     "Program",
                     "Result",
                     "Results",
                     "compile",
                     "compile_file",
                     "run_file",
]
