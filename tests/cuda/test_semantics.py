"""C integer and float semantics of the interpreter against independent references (Python; gcc)."""
from __future__ import annotations

import math
import os
import random
import shutil
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import labsim.cuda as lc

sys.path.insert(0, os.path.dirname(__file__))
from exprgen import INT_MAX, INT_MIN, gen_float, gen_int, w32

LANES = 32
ints = st.one_of(st.integers(INT_MIN, INT_MAX), st.sampled_from([0, 1, -1, INT_MIN, INT_MAX, 31, 32, -32]))
floats = st.one_of(st.floats(-1e6, 1e6, width=32), st.sampled_from([0.0, -0.0, 1.0, -1.5, 0.1]))


class Draw:
    """randint/choice backed by hypothesis, so failing trees shrink."""

    def __init__(self, data) -> None:
        self.data = data

    def randint(self, a: int, b: int) -> int:
        return self.data.draw(st.integers(a, b))

    def choice(self, seq):
        return self.data.draw(st.sampled_from(seq))


def kernel_source(int_exprs, float_exprs) -> str:
    body_i = "\n".join(f"    oi[{k} * {LANES} + i] = {e.text};" for k, e in enumerate(int_exprs))
    body_f = "\n".join(f"    of[{k} * {LANES} + i] = {e.text};" for k, e in enumerate(float_exprs))
    return f"""
__global__ void lanes(const int* A, const int* B, const int* C, const float* X, const float* Y, int* oi, float* of) {{
    int i = threadIdx.x;
    int a = A[i], b = B[i], c = C[i];
    float x = X[i], y = Y[i];
{body_i}
{body_f}
}}
__global__ void uniform(int a, int b, int c, float x, float y, int* oi, float* of) {{
    int i = threadIdx.x;
{body_i}
{body_f}
}}
"""


def same_float(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def run_lanes(int_exprs, float_exprs, env):
    prog = lc.compile(kernel_source(int_exprs, float_exprs), "expr.cu")
    oi = np.zeros(max(1, len(int_exprs)) * LANES, np.int32)
    of = np.zeros(max(1, len(float_exprs)) * LANES, np.float32)
    prog.launch("lanes", 1, LANES, (env["a"], env["b"], env["c"], env["x"], env["y"], oi, of))
    return prog, oi.reshape(-1, LANES), of.reshape(-1, LANES)


def check(int_exprs, float_exprs, oi, of, env_of) -> None:
    for k, e in enumerate(int_exprs):
        for lane in range(LANES):
            want = w32(e.ev(env_of(lane)))
            assert int(oi[k, lane]) == want, (e.text, env_of(lane), int(oi[k, lane]), want)
    for k, e in enumerate(float_exprs):
        for lane in range(LANES):
            want = e.ev(env_of(lane))
            assert same_float(float(of[k, lane]), want), (e.text, env_of(lane), float(of[k, lane]), want)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.lists(st.tuples(ints, ints, ints, floats, floats), min_size=LANES, max_size=LANES))
def test_random_expression_trees_per_lane(data, rows):
    r = Draw(data)
    int_exprs = [gen_int(r, 4) for _ in range(2)]
    float_exprs = [gen_float(r, 3) for _ in range(2)]
    cols = list(zip(*rows))
    env = {"a": np.array(cols[0], np.int32), "b": np.array(cols[1], np.int32), "c": np.array(cols[2], np.int32),
           "x": np.array(cols[3], np.float32), "y": np.array(cols[4], np.float32)}
    _, oi, of = run_lanes(int_exprs, float_exprs, env)
    check(int_exprs, float_exprs, oi, of,
          lambda lane: {k: (int(v[lane]) if k in "abc" else float(v[lane])) for k, v in env.items()})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), ints, ints, ints, floats, floats)
def test_random_expression_trees_uniform_values(data, a, b, c, x, y):
    """Kernel parameters are uniform: the interpreter keeps them as numpy scalars, a separate code path."""
    r = Draw(data)
    int_exprs = [gen_int(r, 4) for _ in range(2)]
    float_exprs = [gen_float(r, 3) for _ in range(2)]
    prog = lc.compile(kernel_source(int_exprs, float_exprs), "expr.cu")
    oi = np.zeros(2 * LANES, np.int32)
    of = np.zeros(2 * LANES, np.float32)
    prog.launch("uniform", 1, LANES, (a, b, c, float(np.float32(x)), float(np.float32(y)), oi, of))
    env = {"a": a, "b": b, "c": c, "x": float(np.float32(x)), "y": float(np.float32(y))}
    check(int_exprs, float_exprs, oi.reshape(2, LANES), of.reshape(2, LANES), lambda lane: env)


C_MAIN = r"""
#include <math.h>
#include <stdio.h>
#include <string.h>
static const int A[32] = {%(A)s}, B[32] = {%(B)s}, C[32] = {%(C)s};
static const float X[32] = {%(X)s}, Y[32] = {%(Y)s};
int main(void) {
    for (int i = 0; i < 32; ++i) {
        int a = A[i], b = B[i], c = C[i];
        float x = X[i], y = Y[i];
        (void)a; (void)b; (void)c; (void)x; (void)y;
%(ints)s
%(floats)s
    }
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc for the C reference")
def test_expression_trees_against_gcc(tmp_path):
    """300 expressions compiled by gcc (-fwrapv, no FMA contraction) on the same 32 lanes."""
    rnd = random.Random(20261129)
    int_exprs = [gen_int(rnd, 5) for _ in range(150)]
    float_exprs = [gen_float(rnd, 4) for _ in range(150)]
    rng = np.random.default_rng(11)
    env = {"a": rng.integers(INT_MIN, INT_MAX, 32, endpoint=True).astype(np.int32),
           "b": np.array([0, 1, -1, INT_MIN, INT_MAX, 31, 32, -32] * 4, np.int32),
           "c": rng.integers(-100, 100, 32).astype(np.int32),
           "x": rng.uniform(-1e3, 1e3, 32).astype(np.float32),
           "y": np.array([0.0, -0.0, 1.0, 0.1, -2.5, 1e5, 3.0, 7.0] * 4, np.float32)}
    fmt_i = lambda v: ", ".join("(-2147483647 - 1)" if int(t) == INT_MIN else str(int(t)) for t in v)
    fmt_f = lambda v: ", ".join(f"{float(t).hex()}f" for t in v)
    ints = "\n".join(f"        {{ int r = {e.text}; printf(\"%d\\n\", r); }}" for e in int_exprs)
    floats = "\n".join(f"        {{ float r = {e.text}; unsigned u; memcpy(&u, &r, 4); printf(\"%u\\n\", u); }}"
                       for e in float_exprs)
    src = C_MAIN % {"A": fmt_i(env["a"]), "B": fmt_i(env["b"]), "C": fmt_i(env["c"]), "X": fmt_f(env["x"]),
                    "Y": fmt_f(env["y"]), "ints": ints, "floats": floats}
    (tmp_path / "ref.c").write_text(src)
    exe = tmp_path / "ref"
    subprocess.run(["gcc", "-O0", "-fwrapv", "-ffp-contract=off", "-std=c11", str(tmp_path / "ref.c"), "-o",
                    str(exe), "-lm"], check=True, capture_output=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    per_lane = len(int_exprs) + len(float_exprs)
    gcc = np.array(out, dtype=np.int64).reshape(32, per_lane)
    _, oi, of = run_lanes(int_exprs, float_exprs, env)
    for k, e in enumerate(int_exprs):
        assert np.array_equal(oi[k].astype(np.int64), gcc[:, k]), e.text
    for k, e in enumerate(float_exprs):
        ref = gcc[:, len(int_exprs) + k].astype(np.uint32).view(np.float32)
        got = of[k]
        ok = (got == ref) | (np.isnan(got) & np.isnan(ref))
        assert ok.all(), (e.text, got[~ok], ref[~ok])
    # and the Python reference agrees with gcc too (it is what the hypothesis tests use)
    check(int_exprs, float_exprs, oi, of,
          lambda lane: {k: (int(v[lane]) if k in "abc" else float(v[lane])) for k, v in env.items()})
