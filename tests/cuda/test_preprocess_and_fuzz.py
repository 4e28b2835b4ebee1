"""The line-preserving preprocessor, and mutated sources that must fail cleanly (never a raw traceback)."""
from __future__ import annotations

import os
import re

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import labsim
import labsim.cuda as lc
from labsim.cuda.preprocess import preprocess

with open(os.path.join(os.path.dirname(__file__), "transpose_tiled_seed.cu"), encoding="utf-8") as _f:
    SEED = _f.read()


def test_directives_become_blank_lines_and_expansions_map_back():
    src = "#include <cuda_runtime.h>\n#define W 32\n#define AT(r, c) ((r) * W + (c))\nint x = AT(1, 2) + W;\n"
    pp = preprocess(src, "p.cu")
    lines = pp.text.split("\n")
    assert len(lines) == len(src.split("\n")) and lines[:3] == ["", "", ""]
    assert lines[3] == "int x = ((1) * 32 + ( 2)) + 32;"
    # a column inside the expansion of AT maps to the macro's use; after it, to the original text
    assert pp.position(4, lines[3].index("32") + 1) == (4, 9)
    assert pp.position(4, lines[3].rindex("32") + 1) == (4, src.split("\n")[3].rindex("W") + 1)


def test_conditionals_and_continuations():
    src = "#if defined(A) || 2 > 1\n#define V \\\n  (3 + \\\n   4)\n#else\n#define V 0\n#endif\nint v = V;\n"
    pp = preprocess(src, "c.cu")
    assert pp.text.split("\n")[7] == "int v = (3 + 4);"
    assert pp.text.count("\n") == src.count("\n")


TOKENS = re.compile(r"\w+|[^\w\s]|\s+")
PIECES = ["*", "&", "[", "]", "(", ")", "{", "}", ";", ",", "<<<", ">>>", "float4", "__shared__", "return",
          "break", "int", "-1", "threadIdx", ".x", "->", "::", "sizeof", "<", ">", '"s"', "#define X", "?", ":"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 2), st.sampled_from(PIECES)), min_size=1,
                max_size=3))
def test_mutated_seed_fails_cleanly(edits):
    toks = TOKENS.findall(SEED)
    for pos, op, piece in edits:
        k = pos % len(toks)
        if op == 0:
            del toks[k]
        elif op == 1:
            toks.insert(k, piece)
        else:
            toks[k] = toks[(k * 7 + 3) % len(toks)]
    src = "".join(toks)
    try:
        prog = lc.compile(src, "mutant.cu")
        if "launch_transpose_tiled" in prog.hosts:
            A = np.random.default_rng(0).standard_normal((40, 33)).astype(np.float32)
            prog.call("launch_transpose_tiled", A, np.zeros((33, 40), np.float32), 40, 33, 0, max_steps=10**6)
    except labsim.KernelError as e:       # a Python exception inside the interpreter: a bug
        raise AssertionError(f"interpreter crashed on:\n{src}") from e
    except labsim.LabsimError:
        pass


def test_header_constants_are_predefined():
    src = ("#include <cfloat>\n#include <climits>\n__global__ void k(float* f, int* i) {\n"
           "    f[0] = -FLT_MAX; f[1] = INFINITY; i[0] = INT_MIN; i[1] = INT_MAX; f[2] = FLT_EPSILON;\n}\n")
    f, i = np.zeros(3, np.float32), np.zeros(2, np.int32)
    lc.compile(src, "h.cu").launch("k", 1, 1, (f, i))
    fi = np.finfo(np.float32)
    assert f.tolist() == [-float(fi.max), float("inf"), float(fi.eps)]
    assert i.tolist() == [np.iinfo(np.int32).min, np.iinfo(np.int32).max]
