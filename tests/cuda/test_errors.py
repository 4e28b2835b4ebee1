"""Diagnostics a student can act on, and hostile sources that must end in a clean labsim error."""
from __future__ import annotations

import builtins
import os
import subprocess
import tracemalloc

import numpy as np
import pytest

import labsim
import labsim.cuda as lc
from workbound import python_calls

KERNEL = "__global__ void k(float* a, int n) {{\n    int i = threadIdx.x;\n    {body}\n}}\n"


def compile_error(body: str, cls=lc.CudaError) -> lc.CudaError:
    src = KERNEL.format(body=body)
    with pytest.raises(cls) as ei:
        lc.compile(src, "student.cu")
    e = ei.value
    assert e.where["file"] == "student.cu" and e.where["line"] == 3
    # the column points into the line, and the message shows it like a compiler does
    assert 1 <= e.where["col"] <= len(src.split("\n")[2]) + 1
    assert str(e).startswith(f"student.cu:3:{e.where['col']}: error: ")
    return e


def run_error(body: str, cls, block=32, **opts) -> labsim.LabsimError:
    prog = lc.compile(KERNEL.format(body=body), "student.cu")
    with pytest.raises(cls) as ei:
        prog.launch("k", 1, block, (np.zeros(64, np.float32), 64), **opts)
    e = ei.value
    assert e.where.get("file") == "student.cu"
    return e


@pytest.mark.parametrize("body,expect", [
    ("a[i] = 1", "expected ';'"),
    ("a[i] = (1 + ;", "syntax error"),
    ("if (i < n { a[i] = 1; }", "syntax error"),
])
def test_syntax_errors_are_reported_like_a_compiler(body, expect):
    e = compile_error(body, lc.CudaSyntaxError)
    assert expect in str(e)


def test_syntax_error_column():
    e = compile_error("a[i] = 1", lc.CudaSyntaxError)
    assert e.where["col"] == len("    a[i] = 1") + 1


@pytest.mark.parametrize("body,name", [
    ("a[i] = b;", "'b'"),
    ("a[i] = foo(i);", "'foo'"),
    ("mystery_t x = 1;", "unknown type name 'mystery_t'"),
    ("a[i] = threadIdx.w;", "no member 'w'"),
    ("const int c = 3; c = 4;", "const-qualified"),
    ("float4 v; v = v + v;", "invalid operands"),
    ("a[i] = 1.5f % 2;", "invalid operands"),
    ("break;", "'break' statement not in loop"),
    ("a[i] = ______;", "blank"),
])
def test_semantic_errors_name_the_culprit(body, name):
    assert name in str(compile_error(body, lc.CudaCompileError))


HOSTILE = [
    ('asm("mov.u32 %0, %%laneid;" : "=r"(i));', "inline asm"),
    ('asm volatile("trap;");', "inline asm"),
    ('system("rm -rf /");', "'system' is not allowed"),
    ('FILE* f = fopen("/etc/passwd", "r");', "FILE"),
    ('fopen("/etc/passwd", "r");', "'fopen' is not allowed"),
    ('popen("ls", "r");', "'popen' is not allowed"),
    ('exit(1);', "'exit' is not allowed"),
    ("void (*fp)(int) = 0;", "function pointers"),
    ("long long p = (long long)a;", "casting a pointer to an integer"),
    ("float* q = (float*)i;", "casting an integer to a pointer"),
    ("bool* c = reinterpret_cast<bool*>(a);", "pointer casts"),
    ("float* q = (float*)malloc(16);", "'malloc'"),
    ("int* q = new int[4];", "new"),
    ("delete a;", "delete"),
    ("goto L; L: ;", "goto"),
    ('printf("%d\\n", i);', "'printf'"),
    ("auto f = [](int x) { return x; };", "lambda"),
    ("struct S { int v; };", "struct"),
    ("switch (i) { case 0: break; }", "switch"),
    ("float** pp;", "pointers to pointers"),
    ("int& r = i;", "references"),
    ("static int counter = 0;", "static local variables"),
    ("__shared__ float big[1 << 30];", "too large"),
    ("float loc[100000];", "per-thread array"),
    ("k<<<1, 1>>>(a, n);", "dynamic parallelism"),
    ("std::vector<int> v;", "templates"),
    ("throw 1;", "exceptions"),
    ("int v = __shfl_down(i, 1);", "__shfl_down_sync"),
    ("unsigned v = __match_any_sync(0xffffffff, i);", "__match_any_sync"),
]


@pytest.mark.parametrize("body,what", HOSTILE)
def test_hostile_or_unsupported_constructs_are_rejected_by_name(body, what):
    e = compile_error(body)
    assert what in str(e)
    assert isinstance(e, lc.CudaError)


def test_hostile_sources_never_reach_eval_exec_or_processes(monkeypatch):
    """Compiling and running every hostile source touches neither eval/exec nor subprocesses nor files (with the
    SASS analysis off; test_sass_analysis_only_compiles covers it)."""
    monkeypatch.setenv("LABSIM_SASS", "0")
    # one launch first: modules the engine imports lazily (numpy.random ...) run `exec` while importing
    lc.compile(KERNEL.format(body="a[i] = i;"), "warm.cu").launch("k", 1, 32, (np.zeros(64, np.float32), 64))
    calls = []

    def spy(name):
        def f(*a, **k):
            calls.append(name)
            raise AssertionError(f"{name} called")
        return f
    for name in ("eval", "exec"):
        monkeypatch.setattr(builtins, name, spy(name))
    monkeypatch.setattr(subprocess, "Popen", spy("Popen"))
    monkeypatch.setattr(os, "system", spy("os.system"))
    for body, _ in HOSTILE:
        with pytest.raises(labsim.LabsimError):
            lc.compile(KERNEL.format(body=body), "student.cu")
    prog = lc.compile(KERNEL.format(body="a[i] = i * 2;"), "student.cu")
    a = np.zeros(64, np.float32)
    prog.launch("k", 1, 32, (a, 64))
    assert calls == [] and np.array_equal(a[:32], 2 * np.arange(32))


def test_sass_analysis_only_compiles(monkeypatch, tmp_path):
    """The one live nvcc test. SASS mode (an explicit opt-in) runs nvcc -cubin (compile only, nothing executed)
    and nvdisasm on the source, and no other process; eval/exec are never reached; the default mode runs none."""
    from labsim.cuda import sass
    if not sass.available():
        pytest.skip("nvcc or nvdisasm not installed: SASS mode cannot run (the recorded SASS in "
                    "tests/fixtures/sass/ covers it in tests/labsim/test_h200_classes.py)")
    monkeypatch.setenv("LABSIM_SASS_CACHE", str(tmp_path))
    sass._MEMO.clear()
    argv = []
    real = subprocess.Popen

    def spy(args, *a, **k):
        argv.append(list(args))
        return real(args, *a, **k)
    monkeypatch.setattr(subprocess, "Popen", spy)
    for name in ("eval", "exec"):
        monkeypatch.setattr(builtins, name, lambda *a, **k: (_ for _ in ()).throw(AssertionError(name)))
    prog = lc.compile(KERNEL.format(body="a[i] = i * 3;"), "student.cu")
    a = np.zeros(64, np.float32)
    assert prog.launch("k", 1, 32, (a, 64)).stats.counting == "source-rules"
    assert argv == []
    assert prog.launch("k", 1, 32, (a, 64), counting="sass").stats.counting == "sass"
    assert len(list(tmp_path.glob("*.json"))) == 1      # the cache went where LABSIM_SASS_CACHE says
    tools = [os.path.basename(x[0]) for x in argv]
    assert tools == ["nvcc", "nvdisasm"]
    assert "-cubin" in argv[0] and not {"-run", "--run", "-o-"} & set(argv[0])


def test_recursion_and_inlining_bombs():
    src = "__device__ int f(int x) { return x <= 0 ? 0 : 1 + f(x - 1); }\n" \
          "__global__ void k(int* a) { a[0] = f(3); }\n"
    with pytest.raises(lc.CudaUnsupportedError, match="recursion"):
        lc.compile(src, "rec.cu")
    mutual = "__device__ int g(int x);\n__device__ int f(int x) { return g(x); }\n" \
             "__device__ int g(int x) { return f(x); }\n__global__ void k(int* a) { a[0] = f(1); }\n"
    with pytest.raises(lc.CudaUnsupportedError, match="recursion"):
        lc.compile(mutual, "rec.cu")
    # each level calls the next twice: 2^20 inlined copies; must stop quickly with a clear error
    chain = ["__device__ int f0(int x) { return x + 1; }"]
    chain += [f"__device__ int f{k}(int x) {{ return f{k - 1}(x) + f{k - 1}(x + 1); }}" for k in range(1, 21)]
    chain.append("__global__ void k(int* a) { a[0] = f20(1); }")
    calls, _, err = python_calls(lambda: lc.compile("\n".join(chain), "bomb.cu"))
    assert isinstance(err, lc.CudaUnsupportedError) and "too large" in str(err)
    assert calls < 5_000_000, calls        # stops at the node limit, not after 2^20 inlined copies


@pytest.mark.parametrize("body,block", [("for (;;) {}", 32), ("while (i >= 0) { a[i] = 1.0f; }", 32),
                                        ("for (int j = 0; j < 8; j + 1) { a[i % 64] += 1.0f; }", 1024)])
def test_endless_loops_stop_with_a_message(body, block):
    # the work is the step budget (2 million steps, charged per thread set, whatever the block size)
    calls, e, err = python_calls(lambda: run_error(body, labsim.StepBudgetError, block=block))
    assert err is None and calls < 15_000_000, (err, calls)
    assert e.where.get("line") == 3 and "endless loop" in str(e)


def test_step_budget_is_adjustable():
    e = run_error("for (int j = 0; j < 1000; ++j) { a[i] += 1.0f; }", labsim.StepBudgetError, max_steps=10_000)
    assert "max_steps" in str(e)
    prog = lc.compile(KERNEL.format(body="for (int j = 0; j < 1000; ++j) { a[i] += 1.0f; }"), "student.cu")
    a = np.zeros(64, np.float32)
    prog.launch("k", 1, 32, (a, 64), max_steps=10**9)
    assert np.all(a[:32] == 1000)


def test_endless_host_loop_stops():
    src = "__global__ void k(float* a) { a[0] = 1.0f; }\nvoid host(float* a) { while (1) { } }\n"
    with pytest.raises(labsim.StepBudgetError):
        lc.compile(src, "host.cu").call("host", np.zeros(4, np.float32))


def test_runtime_faults_name_line_array_index_and_thread():
    e = run_error("a[i + 60] = 1.0f;", labsim.OutOfBoundsError)
    assert (e.where["line"], e.where["array"], e.where["index"], e.where["thread"]) == (3, "a", 64, (4, 0, 0))
    assert "a[i + 60] = 1.0f;" in str(e)
    e = run_error("a[i] = 1 / (i - 5);", lc.CudaRuntimeError)
    assert e.where["thread"] == (5, 0, 0) and "division by zero" in str(e)
    e = run_error("if (i < 16) __syncthreads();", labsim.DivergentBarrierError)
    assert e.where["line"] == 3 and "divergent" in str(e)
    e = run_error("assert(i < 20);", lc.CudaRuntimeError)
    assert e.where["thread"] == (20, 0, 0) and "assertion failed: i < 20" in str(e)


def test_errors_in_macro_expansions_point_at_the_use():
    src = "#define BAD(x) ((x) + undefined_thing)\n__global__ void k(int* a) {\n    a[0] = BAD(1);\n}\n"
    with pytest.raises(lc.CudaCompileError) as ei:
        lc.compile(src, "m.cu")
    assert (ei.value.where["line"], ei.value.where["col"]) == (3, 12)


def test_bad_directives():
    with pytest.raises(lc.CudaUnsupportedError, match="single file"):
        lc.compile('#include "helpers.h"\n', "inc.cu")
    with pytest.raises(lc.CudaCompileError, match="#error stop here"):
        lc.compile("#error stop here\n", "err.cu")
    with pytest.raises(lc.CudaSyntaxError, match="#endif"):
        lc.compile("#if 1\nint x;\n", "if.cu")
    with pytest.raises(lc.CudaUnsupportedError, match="##"):
        lc.compile("#define CAT(a, b) a ## b\n", "cat.cu")


def test_non_text_and_oversized_sources():
    with pytest.raises(TypeError):
        lc.compile(b"__global__ void k() {}")   # type: ignore[arg-type]
    with pytest.raises(lc.CudaSyntaxError, match="larger than"):
        lc.compile("//" + "x" * (2 << 20))


def test_launches_too_big_to_simulate_are_refused_before_allocating():
    src = ("__global__ void k(float* a) { __shared__ float s[12000]; s[threadIdx.x] = 1; a[0] = s[0]; }\n"
           "void huge_grid(float* a) { k<<<dim3(65535, 65535), 1024>>>(a); }\n"
           "void huge_shared(float* a) { k<<<60000, 32>>>(a); }\n")
    prog = lc.compile(src, "big.cu")
    traced = tracemalloc.is_tracing()
    tracemalloc.start()
    tracemalloc.reset_peak()
    with pytest.raises(labsim.LaunchError, match=r"estimated \d+ MiB .* limit of 4096 MiB.*LABSIM_MEMORY_LIMIT"):
        prog.call("huge_grid", np.zeros(4, np.float32))
    # shared memory counts per group of blocks (a set), so this one fits the default limit but not 64 MiB
    with pytest.raises(labsim.LaunchError, match=r"48000 bytes of shared memory .* limit of 64 MiB.*memory_limit="):
        prog.call("huge_shared", np.zeros(4, np.float32), memory_limit=64 << 20)
    peak = tracemalloc.get_traced_memory()[1]
    if not traced:
        tracemalloc.stop()
    assert peak < 16 << 20, peak           # refused before allocating (numpy's buffers are traced too)
