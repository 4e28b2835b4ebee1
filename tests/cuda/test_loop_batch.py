"""labsim.cuda runs a short constant-trip loop's iterations at once (``labsim.cuda.batch``) and replays what a run
with the same inputs added to the counters. Every kernel here runs with it on and off: the outputs, every site's
counters and sample warp, the races found and racecheck's tally must be the same, and the GEMM bodies' C must be
numpy's A @ B. The kernels vary what the batched path must reproduce: accumulators of several types and
operators, reads that bank-conflict, broadcast or repeat an address (which the register cache serves), a read
after the loop that the cache may serve, barriers removed (races in and around the loop), reads indexed by a value
read in the loop (not batched), a step budget that runs out and a read out of bounds inside the loop."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsim import LabsimError, cuda
from labsim.cuda import batch

SRC = """
#define TILE {tile}
__global__ void k(const float* A, const float* B, float* C, int M, int N, int K) {{
    __shared__ float As[TILE][TILE + {pad}];
    __shared__ float Bs[TILE][TILE + {pad}];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f, acc2 = 1.0f;
    int iacc = 0;
    for (int t = 0; t < K; t += TILE) {{
        As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
        {sync1}
        for (int k = {k0}; k < TILE; k += {step}) {{
            {body}
        }}
        {after}
        {sync2}
    }}
    if (row < M && col < N) C[row * N + col] = acc + acc2 + (float)iacc;
}}

void launch(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t s) {{
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    k<<<grid, block, 0, s>>>(A, B, C, M, N, K);
}}
"""

GEMM_BODIES = ["acc += As[ty][k] * Bs[k][tx];",
               "float a = As[ty][k]; float b = Bs[k][tx]; acc += a * b;"]
BODIES = GEMM_BODIES + [
    "acc += As[ty][k] * Bs[k][tx]; acc2 -= As[k][ty] * 0.5f;",      # two accumulators, a conflicting column read
    "int v = (int)Bs[k][tx]; iacc += v * 3 + k;",                    # an int accumulator fed by a conversion
    "acc += As[0][k] + Bs[tx][k];",                                  # a broadcast and a transposed read
    "acc += As[ty][0] * Bs[k][tx];",                                 # a repeated address: the cache serves it
    "float a = As[ty][k]; a = a * 2.0f + 1.0f; acc2 += a;",          # a body-local variable assigned again
    "acc += Bs[k][(tx + k) % TILE];",                                # a skewed read
    "iacc ^= (int)As[ty][k];",                                       # an xor accumulator
    "acc += As[ty][k] * Bs[k][tx]; iacc += 1;",                      # a constant term
    "acc2 *= 1.0f + As[ty][k] * 0.001f;",                            # a product
    "iacc += k * 2; acc += Bs[k][tx];",                              # a term of the loop variable alone
    "acc = acc + As[ty][k];",                                        # a plain assignment: not batched
    "int j = (int)As[ty][k] & (TILE - 1); acc += Bs[k][j];",         # a read indexed by a read: not batched
]


def _source(tile, pad, body, k0, step, after, sync1, sync2):
    return SRC.format(tile=tile, pad=pad, body=body, k0=k0, step=step, after=after,
                      sync1="__syncthreads();" if sync1 else "", sync2="__syncthreads();" if sync2 else "")


def _facts(st_) -> dict:
    """Everything a launch reports, in comparable form."""
    ins = []
    for s in sorted(st_.instructions, key=lambda s: (s.space, s.op, s.line or 0, s.col or 0, s.array, s.itemsize)):
        smp = s.sample
        ins.append((s.space, s.op, s.line, s.col, s.array, s.itemsize, s.executed, s.requests, s.cost, s.conflicts,
                    s.bytes_requested, None if smp is None else (tuple(smp.block), smp.warp,
                                                                 smp.active.tolist(), smp.addr.tolist())))
    return {"instructions": ins, "metrics": dict(st_.metrics), "race_count": st_.race_count,
            "races": [str(r) for r in st_.races], "racecheck": dict(st_.racecheck),
            "by_line": {k: dict(v) for k, v in st_.by_line.items()}, "races_by_line": dict(st_.races_by_line)}


def _run(src, M, N, K, on: bool, launches: int = 2, **kw):
    """Each launch's C and facts (or its error), with batching on or off; one program for all the launches, so
    later ones replay what the first recorded."""
    old = batch.LOOP_BATCH
    batch.LOOP_BATCH = on
    try:
        prog = cuda.compile(src, "k.cu")
        rng = np.random.default_rng(M * 31 + N * 7 + K)
        A = rng.integers(-4, 5, (M, K)).astype(np.float32)
        B = rng.integers(-4, 5, (K, N)).astype(np.float32)
        out = []
        for _ in range(launches):
            C = np.full((M, N), -7, np.float32)
            try:
                r = prog.call("launch", A, B, C, M, N, K, 0, **kw)
            except LabsimError as e:
                out.append(("error", type(e).__name__, str(e), sorted(map(str, e.where.items()))))
                continue
            out.append((C, [_facts(x.stats) for x in r]))
        return out, A, B
    finally:
        batch.LOOP_BATCH = old


def _same(a, b) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x[0], str) or isinstance(y[0], str):
            assert x == y
            continue
        assert np.array_equal(x[0], y[0])
        assert x[1] == y[1]


@settings(max_examples=40, deadline=None)
@given(tile=st.sampled_from([8, 16]), pad=st.integers(0, 1), body=st.sampled_from(BODIES),
       k0=st.integers(0, 1), step=st.integers(1, 2), after=st.sampled_from(["", "acc += As[ty][TILE - 1];",
                                                          "if (iacc < 0) acc += As[ty][1];"]),
       sync1=st.booleans(), sync2=st.booleans(), M=st.integers(1, 40), N=st.integers(1, 40),
       K=st.integers(1, 48))
def test_batched_loops_report_what_the_ordinary_run_does(tile, pad, body, k0, step, after, sync1, sync2, M, N, K):
    src = _source(tile, pad, body, k0, step, after, sync1, sync2)
    on, A, B = _run(src, M, N, K, True)
    off, _, _ = _run(src, M, N, K, False)
    _same(on, off)
    if body in GEMM_BODIES and k0 == 0 and step == 1 and not after and sync1 and sync2:
        want = (A @ B).astype(np.float32) + np.float32(1.0)      # + acc2's 1.0; small integers: exact
        assert np.array_equal(on[0][0], want)


def test_the_gemm_loop_is_batched_and_replayed_across_tiles_and_launches():
    """Not a path that never runs: the inner loop is recorded once and replayed for every later tile and launch
    (4 tiles x 4 thread-set runs of 32x32 blocks... here 3 tiles, 2 launches)."""
    src = _source(16, 0, GEMM_BODIES[0], 0, 1, "", True, True)
    before = dict(batch.COUNTS)
    on, A, B = _run(src, 64, 48, 48, True)
    assert batch.COUNTS["recorded"] - before["recorded"] == 1
    assert batch.COUNTS["batched"] - before["batched"] == 2 * 3 - 1
    off, _, _ = _run(src, 64, 48, 48, False)
    _same(on, off)
    assert np.array_equal(on[1][0], (A @ B).astype(np.float32) + np.float32(1.0))


@pytest.mark.parametrize("sync2", [True, False])
@pytest.mark.parametrize("body", [GEMM_BODIES[1], BODIES[2]])
def test_a_one_block_launch_queues_its_loop_reads_as_one_read_per_array(monkeypatch, body, sync2):
    """A launch of one block (its race shadows never fold): the batched loop's reads after the first are queued as
    one read per array (``RaceTracker.read_one_block``), not read by read, and everything reported is what the
    ordinary run reports; without the second barrier the next tile's stores race with those queued reads."""
    from labsim.race_detection import RaceTracker
    used = []
    real = RaceTracker.read_one_block

    def spy(groups, tid, epoch):
        got = real(groups, tid, epoch)
        used.append((got, [(sh.name, m) for sh, _, m, _ in groups]))
        return got
    monkeypatch.setattr(RaceTracker, "read_one_block", staticmethod(spy))
    src = _source(16, 0, body, 0, 1, "", True, sync2)
    on, A, B = _run(src, 16, 16, 64, True)
    assert used and all(got for got, _ in used)
    # 16 iterations; the first read is made the ordinary way: As once and Bs once per iteration (15 and 16 more),
    # or As twice and Bs once (31 and 16)
    assert sorted(n for _, g in used[:1] for _, n in g) == ([15, 16] if body == GEMM_BODIES[1] else [16, 31])
    off, _, _ = _run(src, 16, 16, 64, False)
    _same(on, off)
    races = on[0][1][0]["race_count"]
    assert (races > 0) == (not sync2)
    if sync2 and body in GEMM_BODIES:
        assert np.array_equal(on[0][0], (A @ B).astype(np.float32) + np.float32(1.0))


def test_a_term_of_the_loop_variable_alone_leaves_a_uniform_accumulator_uniform():
    """``iacc += k * 2`` adds the same value in every lane: after the loop ``iacc`` is one value as the ordinary
    run leaves it, so ``if (iacc < 0)`` is a uniform branch that skips its read (not a predicated one that runs
    it with no lane active, which the counters would see)."""
    src = _source(16, 0, "iacc += k * 2; acc += Bs[k][tx];", 0, 1, "if (iacc < 0) acc += As[ty][1];", True, True)
    before = dict(batch.COUNTS)
    on, _, _ = _run(src, 32, 32, 64, True)
    assert batch.COUNTS["batched"] > before["batched"]
    off, _, _ = _run(src, 32, 32, 64, False)
    _same(on, off)


@pytest.mark.parametrize("body", ["acc = acc + As[ty][k];",
                                  "int j = (int)As[ty][k] & (TILE - 1); acc += Bs[k][j];",
                                  "acc += As[ty][k]; if (k == 3) acc += 1.0f;",
                                  "acc += fmaxf(As[ty][k], 0.0f);"])
def test_loops_outside_the_batched_form_run_the_ordinary_way(body):
    src = _source(16, 0, body, 0, 1, "", True, True)
    before = dict(batch.COUNTS)
    on, _, _ = _run(src, 32, 32, 64, True)
    assert batch.COUNTS == before
    off, _, _ = _run(src, 32, 32, 64, False)
    _same(on, off)


def test_a_step_budget_that_runs_out_in_the_loop_stops_where_the_ordinary_run_does():
    src = _source(16, 0, GEMM_BODIES[0], 0, 1, "", True, True)
    for steps in (3000, 9000, 20000):
        on, _, _ = _run(src, 32, 32, 256, True, max_steps=steps)
        off, _, _ = _run(src, 32, 32, 256, False, max_steps=steps)
        _same(on, off)
        assert isinstance(on[0][0], str) and on[0][1] == "StepBudgetError"


def test_a_read_out_of_bounds_in_the_loop_is_reported_as_the_ordinary_run_reports_it():
    # k runs to 17: a batched pass would read past As's rows; the error names the element and thread
    src = _source(16, 0, "acc += As[ty][k] * Bs[k][tx];", 0, 1, "", True, True).replace(
        "k < TILE;", "k < 18;")
    on, _, _ = _run(src, 32, 32, 32, True)
    off, _, _ = _run(src, 32, 32, 32, False)
    _same(on, off)
    assert isinstance(on[0][0], str) and on[0][1] == "OutOfBoundsError"
