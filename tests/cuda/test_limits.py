"""Bounds on what a student's own file can make labsim.cuda do (issue 15): macro expansion, #if constant
sizes, nesting depth, kernel launches from host loops. Each ends in a named CudaError within a bounded number of
Python calls (work, not seconds), never an uncaught Python error or minutes of work."""
from __future__ import annotations

import numpy as np
import pytest

import labsim
import labsim.cuda as lc
from workbound import python_calls

K = "__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n"


def _doubling(levels: int, body: str = "x x") -> str:
    return f"#define D0(x) {body}\n" + "".join(f"#define D{i}(x) D{i - 1}(D{i - 1}(x))\n" for i in range(1, levels))


def refused(src: str, cls=lc.CudaError, calls: int = 5_000_000) -> lc.CudaError:
    """compile(src) fails with cls within `calls` Python calls (a work bound: the machine's speed is no part)."""
    made, _, err = python_calls(lambda: lc.compile(src, "s.cu"))
    assert isinstance(err, cls), err
    assert made < calls, made
    assert str(err).startswith("s.cu")
    return err


@pytest.mark.parametrize("src", [
    _doubling(40) + "__global__ void k(float* a) { D39(a[0] += 1;) }\n",
    _doubling(30, "x x x") + "__global__ void k(float* a) { D29(a[0] += 1;) }\n",
    "#define A B B B B\n#define B C C C C\n#define C E E E E\n#define E F F F F\n#define F G G G G\n"
    "#define G H H H H\n#define H I I I I\n#define I J J J J\n#define J L L L L\n#define L M M M M\n"
    "#define M N N N N\n#define N 1+\n__global__ void k(float* a) { a[0] = A 0; }\n",
    _doubling(40) + "#if D39(1)\n#endif\n" + K,
])
def test_exponential_macros_are_refused(src):
    e = refused(src, lc.CudaUnsupportedError)
    assert "macro expansion too large" in str(e)


def test_macro_arguments_nested_deeply():
    src = "#define F(x) (x)\n__global__ void k(float* a) { a[0] = " + "F(" * 2000 + "1" + ")" * 2000 + "; }\n"
    assert "nested" in str(refused(src, lc.CudaUnsupportedError))


@pytest.mark.parametrize("cond,word", [("(1 << 16000000000)", "shift count"), ("1 << 64", "shift count"),
                                       ("1 >> -1", "shift count"), ("9" * 5000, "too large"),
                                       ("99999999999999999999999", "too large"),
                                       ("(" * 5000 + "1" + ")" * 5000, "nested"), ("- " * 5000 + "1", "nested")])
def test_if_constants_are_bounded(cond, word):
    e = refused(f"#if {cond}\n#endif\n" + K, lc.CudaSyntaxError, calls=1_000_000)
    assert word in str(e)


@pytest.mark.parametrize("cond,taken", [("9223372036854775807 + 1 < 0", True), ("-1 >> 63 == -1", True),
                                        ("(1 << 62) * 4 == 0", True), ("0x7fffffffffffffff > 0", True)])
def test_if_arithmetic_is_intmax_t(cond, taken):
    src = f"#if {cond}\n#define R 2.0f\n#else\n#define R 3.0f\n#endif\n__global__ void k(float* a) {{ a[0] = R; }}\n"
    out = np.zeros(1, np.float32)
    lc.compile(src, "s.cu").launch("k", 1, 1, (out,))
    assert out[0] == (2.0 if taken else 3.0)


@pytest.mark.parametrize("src", [
    "__global__ void k(float* a, int n) { int i = threadIdx.x;\nif (i == 0) a[0] = 1;\n"
    + "".join(f"else if (i == {j}) a[0] = {j};\n" for j in range(1, 5000)) + "}\n",
    "__global__ void k(float* a) { a[0] = " + " + ".join(["1"] * 20000) + "; }\n",
    "__global__ void k(float* a) { a[0] = " + "(" * 3000 + "1" + ")" * 3000 + "; }\n",
    "__global__ void k(float* a) { a[0] = " + "- " * 5000 + "1; }\n",
])
def test_deep_nesting_is_a_named_error(src):
    e = refused(src, lc.CudaUnsupportedError, calls=2_000_000)
    assert "nests too deeply" in str(e)


@pytest.mark.parametrize("count", [1001, 1_000_000])
def test_host_loops_cannot_launch_without_bound(count):
    src = K + f"void host(float* a) {{ for (int i = 0; i < {count}; ++i) k<<<1, 32>>>(a); }}\n"
    prog = lc.compile(src, "s.cu")
    made, _, err = python_calls(lambda: prog.call("host", np.zeros(32, np.float32)))
    assert isinstance(err, labsim.StepBudgetError) and "launched more than" in str(err)
    assert made < 2_000_000, made          # stops after the launch limit, whatever the loop's count


def test_a_few_launches_from_a_loop_still_run():
    src = K + "void host(float* a) { for (int i = 0; i < 10; ++i) k<<<1, 32>>>(a); }\n"
    res = lc.compile(src, "s.cu").call("host", np.zeros(32, np.float32))
    assert len(res) == 10
