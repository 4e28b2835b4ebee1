"""labsim counts the compiled kernel (issue 17, labsim.cuda.sass): the SASS parser on hand-written disassembly,
the source rules on small kernels, and the merged loads against a brute-force reference per lane."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import labsim.cuda as lc
from labsim.cuda import sass
from labsim_reference import shared_warp_wavefronts

LD_EXEC, LD_WF = "smsp__inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
LD_CONF = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"

SAMPLE = """\
.text._Z1kPi:
\t//## File "/tmp/x/kernel.cu", line 3
        /*0000*/                   LDC R1, c[0x0][0x28] ;
\t//## File "/usr/include/device_atomic_functions.hpp", line 107 inlined at "/tmp/x/kernel.cu", line 5
\t//## File "/tmp/x/kernel.cu", line 5
        /*0010*/                   VOTEU.ANY UR4, UPT, PT ;
        /*0020*/                   POPC R5, UR4 ;
        /*0030*/               @P0 REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5 ;
\t//## File "/tmp/x/kernel.cu", line 6
        /*0040*/                   LDS.128 R8, [R19+0x10] ;
        /*0050*/              @!PT LDS R9, [R7] ;
        /*0060*/              @!P1 STS [R7], R2 ;
.text._Z1gv:
\t//## File "/tmp/x/kernel.cu", line 9
        /*0000*/                   EXIT ;
"""


def test_parse_nvdisasm_sample():
    out = sass.parse_nvdisasm(SAMPLE, "kernel.cu")
    assert set(out) == {"_Z1kPi", "_Z1gv"}
    k = out["_Z1kPi"]
    # the atomic inlined from CUDA's header belongs to the line that called it
    assert k["5"] == [["VOTEU.ANY", False], ["POPC", False], ["REDG.E.ADD.STRONG.GPU", True]]
    # @!PT is "always": not a guard
    assert k["6"] == [["LDS.128", False], ["LDS", False], ["STS", True]]
    assert sass._kind("LDS.128") == ("shared", "ld", 128) and sass._kind("STG.E") == ("global", "st", 32)
    assert sass._function(out, "k") is k and sass._function(out, "kx") is None


def _rules(src: str, kernel: str = "k"):
    return lc.compile(src, "k.cu").plan(kernel, "source-rules")


ROWSUM = """
__global__ void k(float* out, const int* rows) {{
    __shared__ float t[8][{w}];
    for (int i = threadIdx.x; i < 8 * {w}; i += 32) (&t[0][0])[i] = i;
    __syncthreads();
    float s = 0.0f;
    {pragma}
    for (int k = 0; k < {n}; ++k) s += t[rows[threadIdx.x]][k];
    out[threadIdx.x] = s;
}}
"""


@pytest.mark.parametrize("w,n,pragma,width", [(16, 16, "", 4), (16, 16, "#pragma unroll 1", None),
                                              (17, 16, "", None), (18, 16, "", 2), (16, 6, "", 2),
                                              (16, 64, "", None), (32, 32, "#pragma unroll", 4)])
def test_source_rules_propose_vector_loads(w, n, pragma, width):
    plan = _rules(ROWSUM.format(w=w, n=n, pragma=pragma))
    assert [v[2] for v in plan.vector.values()] == ([] if width is None else [width])


@settings(max_examples=25, deadline=None)
@given(w=st.sampled_from([4, 8, 12, 16, 17, 18, 32, 33]), groups=st.integers(1, 4),
       rows=st.lists(st.integers(0, 7), min_size=32, max_size=32), active=st.integers(1, 32))
def test_merged_loads_match_a_per_lane_reference(w, groups, rows, active):
    """labsim's counts of ``t[rows[lane]][k]``, k < 4·groups (unrolled), against a brute-force reference: ptxas
    merges aligned groups of four (rows a multiple of 16 bytes) into LDS.128, pairs (8 bytes) into LDS.64."""
    n = 4 * min(groups, w // 4)       # k stays inside the row
    src = ROWSUM.format(w=w, n=n, pragma="").replace("float s = 0.0f;", "float s = 0.0f;\n    if (threadIdx.x < "
                                                                  f"{active}) {{").replace(
        "out[threadIdx.x] = s;", "}\n    out[threadIdx.x] = s;")
    prog = lc.compile(src, "k.cu")
    r = np.asarray(rows, np.int32)
    m = prog.launch("k", 1, 32, (np.zeros(32, np.float32), r), counting="source-rules").stats.metrics
    width = 4 if (w * 4) % 16 == 0 else 2 if (w * 4) % 8 == 0 else 1
    act = [lane < active for lane in range(32)]
    execs = wf = conf = 0
    for g in range(n // width):
        addr = [int(r[lane]) * w * 4 + g * width * 4 for lane in range(32)]
        a, c = shared_warp_wavefronts(addr, act, 4 * width)
        execs, wf, conf = execs + 1, wf + a, conf + c
    assert (m[LD_EXEC], m[LD_WF], m[LD_CONF]) == (execs, wf, conf)


def test_constant_indices_of_one_row_merge():
    src = """
__global__ void k(float* out) {
    __shared__ float t[32][32];
    __shared__ float u[32][33];
    t[threadIdx.x][threadIdx.x] = 1.0f;
    u[threadIdx.x][threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = t[threadIdx.x][0] + t[threadIdx.x][1] + t[threadIdx.x][2] + t[threadIdx.x][3]
                     + u[threadIdx.x][0] + u[threadIdx.x][1] + t[0][4] + t[0][5];
}
"""
    plan = _rules(src)
    widths = sorted(v[2] for v in plan.vector.values())
    assert widths == [2, 2, 4, 4, 4, 4]       # t[i][0..3] one LDS.128, t[0][4..5] one LDS.64, u stays scalar
    m = lc.compile(src, "k.cu").launch("k", 1, 32, (np.zeros(32, np.float32),), counting="source-rules").stats
    assert m.metrics[LD_EXEC] == 1 + 2 + 1


@pytest.mark.parametrize("addr,agg", [("&c[0]", True), ("c", True), ("&c[blockIdx.x]", True),
                                      ("&c[threadIdx.x & 7]", False), ("&c[j]", True), ("&f[0]", False)])
def test_source_rules_aggregate_uniform_integer_atomics(addr, agg):
    """A local made only of blockIdx is warp-uniform too: nvcc 13 emits VOTEU.ANY + POPC + one lane's REDG for
    ``int j = blockIdx.x; atomicAdd(&c[j], 1)`` (seen with nvcc -cubin -arch=sm_90 -O3 and nvdisasm)."""
    src = f"""
__global__ void k(int* c, float* f) {{
    int j = blockIdx.x;
    atomicAdd({addr}, {'1.0f' if 'f[' in addr else '1'});
}}
"""
    plan = _rules(src)
    assert bool(plan.aggregate) == agg
    c, f = np.zeros(64, np.int32), np.zeros(4, np.float32)
    st_ = lc.compile(src, "k.cu").launch("k", 2, 64, (c, f), counting="source-rules").stats
    sectors = st_.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"]
    # 4 warps: one lane's RED each when aggregated; else the lanes on one address serialise (32 sectors) or
    # hit 8 addresses of one sector (4 lanes each: 4)
    want = {"&c[0]": 4, "c": 4, "&c[blockIdx.x]": 4, "&c[threadIdx.x & 7]": 16, "&c[j]": 4, "&f[0]": 128}
    assert sectors == want[addr]
    assert c.sum() + f.sum() == 128      # the values are right either way


def test_tail_if_is_a_branch():
    src = """
__global__ void k(const float* in, float* out) {
    __shared__ float s[256];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x < 128) s[threadIdx.x] += s[threadIdx.x + 128];
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
"""
    x = np.ones(256, np.float32)
    prog = lc.compile(src, "k.cu")
    rules = prog.launch("k", 1, 256, (x, np.zeros(1, np.float32)), counting="source-rules").stats.metrics
    written = prog.launch("k", 1, 256, (x, np.zeros(1, np.float32)), counting="source").stats.metrics
    # the middle `if` is predicated (8 warps execute its two loads), the tail `if` exits 7 warps
    assert rules[LD_EXEC] == 2 * 8 + 1 and written[LD_EXEC] == 2 * 8 + 8
    assert rules["smsp__inst_executed_op_global_st.sum"] == 1 and written["smsp__inst_executed_op_global_st.sum"] == 8


def test_counting_argument_is_checked():
    prog = lc.compile("__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }", "k.cu")
    with pytest.raises(lc.CudaArgumentError, match="counting"):
        prog.launch("k", 1, 32, (np.zeros(32, np.float32),), counting="ptx")


def test_byte_and_short_buffers_are_counted():
    src = """
__global__ void k(const unsigned char* p, short* q, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = p[4 * i];
    q[i] = (short)i;
}
"""
    p, q = np.arange(4 * 64, dtype=np.uint8), np.zeros(64, np.int16)
    out = np.zeros(64, np.float32)
    st_ = lc.compile(src, "k.cu").launch("k", 2, 32, (p, q, out)).stats
    assert np.array_equal(out, p[::4].astype(np.float32)) and np.array_equal(q, np.arange(64))
    # brute force: a warp reads bytes 4·lane (128 bytes: 4 sectors) and writes 2-byte shorts (64 bytes: 2)
    assert st_.instruction(array="p").cost == 2 * len({4 * lane // 32 for lane in range(32)})
    assert st_.instruction(array="q").cost == 2 * len({2 * lane // 32 for lane in range(32)})


def test_structs_move_member_by_member():
    src = """
struct P { float x, y, z; };
__global__ void k(const P* p, P* q, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    P v = p[i];
    out[i] = v.x + v.y + v.z;
    q[i].y = p[i].x;
}
"""
    a = np.arange(3 * 64, dtype=np.float32)
    q, out = np.zeros(3 * 64, np.float32), np.zeros(64, np.float32)
    res = lc.compile(src, "k.cu").launch("k", 2, 32, (a, q, out))
    assert np.allclose(out, a.reshape(64, 3).sum(axis=1)) and np.array_equal(q.reshape(64, 3)[:, 1], a[::3])
    whole = res.instruction(res.program.line_of("P v = p[i];"))
    # 3 members x 2 warps; each warp's members at stride 12 bytes: 384 bytes over 12 or 13 sectors
    per = [len({(12 * lane + 4 * k) // 32 for lane in range(32)}) for k in range(3)]
    assert whole.requests == 6 and whole.cost == 2 * sum(per)
    with pytest.raises(lc.CudaUnsupportedError, match="structs"):
        lc.compile("struct Q { float x; int n; };\n__global__ void k(Q* q) { }", "k.cu")


FOLD = r'''
__global__ void k(const float* {r}x, float* {r}out, float* {r}out2, int n) {{
    int i = threadIdx.x;
    {body}
}}
'''


@pytest.mark.parametrize("body,restrict,loads", [
    ("out[i] = x[i] * x[i];", "", 1),                                   # one location read twice: one LDG
    ("out[i] = x[i] + 1.0f; out2[i] = x[i] * 2.0f;", "", 2),            # a store between: x may alias out
    ("out[i] = x[i] + 1.0f; out2[i] = x[i] * 2.0f;", "__restrict__ ", 1),
    ("if (x[i] > 0.0f) out[i] = x[i];", "", 1),                         # the condition's load serves the body
    ("float s = 0.0f; for (int j = 0; j < n; ++j) s += x[i]; out[i] = s;", "", 3),   # a runtime loop: per trip
    ("float s = 0.0f; for (int j = 0; j < 3; ++j) s += x[i]; out[i] = s;", "", 1),   # unrolled: one load
    ("out[i] = x[i]; __syncthreads(); out2[i] = x[i];", "__restrict__ ", 2),          # a barrier ends it
])
def test_repeated_reads_of_one_location_are_one_load(body, restrict, loads):
    """What ptxas does (measured: round3 fold_square, fold_after_store, ifelse_shared_load, hist_*): a read of a
    location already in a register, with no store that may alias, atomic, barrier or runtime-loop trip between,
    costs no load; counting="source" counts every read as written."""
    prog = lc.compile(FOLD.format(r=restrict, body=body), "f.cu")
    x = np.arange(32, dtype=np.float32) - 3
    folded = (x, np.zeros(32, np.float32), np.zeros(32, np.float32), 3)
    m = prog.launch("k", 1, 32, folded).stats.metrics
    assert m["smsp__inst_executed_op_global_ld.sum"] == loads
    as_written = (x, np.zeros(32, np.float32), np.zeros(32, np.float32), 3)
    written = prog.launch("k", 1, 32, as_written, counting="source").stats.metrics
    assert written["smsp__inst_executed_op_global_ld.sum"] == body.count("x[i]") * (3 if "j < " in body else 1)
    assert np.array_equal(folded[1], as_written[1]) and np.array_equal(folded[2], as_written[2])


SHAPES = r'''
__global__ void k(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float s[66];
    __shared__ float t[16][64];
    int l = threadIdx.x;
    BODY
}
'''


@pytest.mark.parametrize("body,ld,st", [
    # s[2l], s[2l+1] in consecutive statements: one STS.64; read back as a pair on one line: one LDS.64
    ("s[2 * l] = x[l]; s[2 * l + 1] = x[l] + 1.0f; __syncthreads(); out[l] = s[2 * l] * s[2 * l + 1];", 1, 1),
    # not 8-byte aligned (2l+1, 2l+2): two of each
    ("s[2 * l + 1] = x[l]; s[2 * l + 2] = 1.0f; __syncthreads(); out[l] = s[2 * l + 1] * s[2 * l + 2];", 2, 2),
    # a statement between the stores: not merged
    ("s[2 * l] = x[l]; out[l] = 1.0f; s[2 * l + 1] = 2.0f; __syncthreads(); out[l] = s[2 * l];", 1, 2),
    # t[k][l*4+i], i unrolled: one LDS.128 per k (a computed, 16-byte-aligned index)
    ("for (int e = l; e < 1024; e += 32) (&t[0][0])[e] = e; __syncthreads(); float a = 0.0f;\n"
     "    for (int k = 0; k < 4; ++k) for (int i = 0; i < 4; ++i) a += t[k][(l & 15) * 4 + i]; out[l] = a;", 4, 32),
    # if/else arms storing one location: one STS; reading one location: one LDS
    ("s[l] = x[l]; __syncthreads(); if (l & 1) s[l + 32] = s[l] * 2.0f; else s[l + 32] = s[l] + 1.0f;", 1, 2),
])
def test_rules_for_pairs_computed_indices_and_if_else_arms(body, ld, st):
    """Executed shared loads/stores under the source rules (what ptxas emits, measured in round3: pair64_*,
    rtgemm4x4_64, ifelse_shared_load, scan_hillis_steele); counting="source" counts each access as written."""
    prog = lc.compile(SHAPES.replace("BODY", body), "r.cu")
    x = np.arange(64, dtype=np.float32)
    args = (x, np.zeros(64, np.float32), 64)
    m = prog.launch("k", 1, 32, args).stats.metrics
    assert (m[LD_EXEC], m["smsp__inst_executed_op_shared_st.sum"]) == (ld, st)
    ref = (x, np.zeros(64, np.float32), 64)
    prog.launch("k", 1, 32, ref, counting="source")
    assert np.array_equal(args[1], ref[1])      # the rules change counts, never values


@pytest.mark.parametrize("sel", [0, 1])
def test_if_else_pair_whose_condition_is_uniform_runs_one_arm_alone(sel):
    """An if/else pair on one location (one store under the rules) whose condition every lane shares: each
    execution runs one arm alone, counted as itself; the last one, still waiting for its pair when the blocks
    end, is counted then (its entry once lacked the count of blocks it stands for: an internal ValueError)."""
    src = """
__global__ void k(float* out, const float* x, int sel, int iters) {
    int i = threadIdx.x;
    for (int it = 0; it < iters; ++it) {
        if (sel) out[i + 32 * it] = x[i]; else out[i + 32 * it] = -x[i];
    }
}
"""
    prog = lc.compile(src, "u.cu")
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(96, np.float32)
    m = prog.launch("k", 1, 32, (out, x, sel, 3)).stats.metrics
    assert m["smsp__inst_executed_op_global_st.sum"] == 3
    assert m["smsp__inst_executed_op_global_ld.sum"] == 3
    assert np.array_equal(out, np.tile(x if sel else -x, 3))
