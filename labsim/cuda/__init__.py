"""labsim.cuda: run a student's real CUDA C on the lab simulator, counting per source line.

    import labsim.cuda as lc
    prog = lc.compile(open("/tmp/09_transpose_tiled.cu").read(), "09_transpose_tiled.cu")
    res = prog.call("launch_transpose_tiled", A, B, M, N, 0)    # the file's own host launcher
    res.by_line[prog.line_of("tile[threadIdx.x][threadIdx.y + j]")]

The source is parsed with tree-sitter-cuda, checked, and compiled into Python closures that the engine runs
over all threads at once; it is never executed natively nor passed to eval/exec.
"""
from .errors import (CudaArgumentError, CudaCompileError, CudaError, CudaRuntimeError, CudaSyntaxError,
                     CudaUnsupportedError)
from .program import Program, Result, Results, compile, compile_file, run_file

__all__ = ["compile", "compile_file", "run_file", "Program", "Result", "Results", "CudaError", "CudaSyntaxError",
           "CudaCompileError", "CudaUnsupportedError", "CudaRuntimeError", "CudaArgumentError"]
