"""labsim at scale: 2048² counters in closed form, blocks run in groups, budgets and size limits.

The big sizes (4096², 8192²) and the timings are in tools/bench.py, not here.
"""
from __future__ import annotations

import os
import platform
import subprocess
import sys

import numpy as np
import pytest

import labsim
import labsim.cuda as lc
from labsim import LaunchError, launch
from labsim.stats import METRIC_NAMES

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import bench_kernels  # noqa: E402
from workbound import python_calls  # noqa: E402

LAUNCH = sys.modules["labsim.launch"]    # the module (labsim.launch is the function)
N = 2048
M = METRIC_NAMES


def closed_form(kernel: str, n: int) -> dict[str, int]:
    """Counters of an n x n float32 copy/transpose with Harris's 32x8 blocks, worked out by hand.

    Every warp request is a full warp; a row of 32 floats is 128 aligned bytes = 4 sectors; a column write
    (naive) puts each lane in its own sector; the tile (32 x 33 floats) is written along rows (1 wavefront) and
    read along columns, which the padding spreads over 32 banks (1 wavefront).
    """
    req = n * n // 32
    out = {M["global", "ld", "requests"]: req, M["global", "ld", "cost"]: 4 * req,
           M["global", "ld", "executed"]: req, M["global", "st", "requests"]: req,
           M["global", "st", "cost"]: (32 if kernel == "naive" else 4) * req, M["global", "st", "executed"]: req}
    if kernel == "tiled":
        for op in ("ld", "st"):
            out[M["shared", op, "executed"]] = req
            out[M["shared", op, "cost"]] = req
    return out


@pytest.mark.parametrize("api", ["python", "cuda"])
@pytest.mark.parametrize("kernel", ["copy", "naive", "tiled"])
def test_2048_counters_equal_the_closed_form(kernel, api):
    st, ok = bench_kernels.run(kernel, api, N)
    assert ok
    want = closed_form(kernel, N)
    assert {k: v for k, v in st.metrics.items() if v} == want
    assert st.race_count == 0


def test_groups_of_blocks_count_like_one_set(monkeypatch):
    """Running blocks in groups (each with its own shared memory and race shadow) changes no counter, race or
    result: the same launch with one group and with groups of one block."""
    def run(chunk):
        monkeypatch.setattr(LAUNCH, "CHUNK_LANES", chunk)
        a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
        b = np.zeros_like(a)

        def racy(blk, A, B, N):   # the tiled transpose without its barrier: races in every block
            p = bench_kernels._prelude()
            p.transpose_tiled(blk, A, B, N, pad=0, do_sync=False)
        st = launch(racy, (2, 2), (32, 8), (a, b, 64), schedule="adversarial")
        return st, b
    one, b1 = run(1 << 20)
    many, b2 = run(1)
    assert one.metrics == many.metrics and one.race_count == many.race_count > 0
    assert one.races_by_line == many.races_by_line and one.racecheck == many.racecheck
    assert np.array_equal(b1, b2, equal_nan=True)


def test_shared_memory_starts_poisoned_in_every_group(monkeypatch):
    monkeypatch.setattr(LAUNCH, "CHUNK_LANES", 32)
    out = np.zeros(4 * 32, np.float32)

    def kernel(blk, out):
        sh = blk.shared(32, name="sh")
        v = blk.sload(sh, blk.tx)                       # read before any write: garbage (NaN here)
        blk.sstore(sh, blk.tx, 1.0)
        blk.store(out, blk.bx * 32 + blk.tx, v)
    launch(kernel, 4, 32, (out,))
    assert np.isnan(out).all()


def test_an_endless_loop_in_one_thread_stops_fast_and_names_the_line():
    src = ("__global__ void k(float* a) {\n"
           "    int x = 0;\n"
           "    if (threadIdx.x == 0) {\n"
           "        while (x >= 0) { x = (x + 1) % 5; }\n"
           "    }\n"
           "    a[threadIdx.x] = x;\n"
           "}\n")
    prog = lc.compile(src, "loop.cu")
    # work, not seconds: the budget is per thread set, so one looping thread of 256 stops after ~2M steps
    calls, _, err = python_calls(lambda: prog.launch("k", 1, 256, (np.zeros(256, np.float32),)))
    assert isinstance(err, labsim.StepBudgetError), err
    assert calls < 10_000_000, calls
    assert err.where["line"] == 4 and "endless loop" in str(err)


def test_step_budget_is_per_thread_not_per_launch():
    """The same per-thread work passes at any grid size: 64 threads or 65536 (1024 blocks)."""
    src = "__global__ void k(float* a, int n) { for (int j = 0; j < n; ++j) a[blockIdx.x * 64 + threadIdx.x] += 1; }"
    prog = lc.compile(src, "budget.cu")
    with pytest.raises(labsim.StepBudgetError):
        prog.launch("k", 1, 64, (np.zeros(64, np.float32), 40), max_steps=4000)
    small = np.zeros(64, np.float32)
    prog.launch("k", 1, 64, (small, 20), max_steps=4000)
    big = np.zeros(64 * 1024, np.float32)
    prog.launch("k", 1024, 64, (big, 20), max_steps=4000)
    assert (small == 20).all() and (big == 20).all()


def test_launch_size_limit_comes_from_memory(monkeypatch):
    # an 8192² transpose (65536 blocks of 32x8) fits the default limit
    LAUNCH.check_launch_size(65536, 256, 32 * 33 * 4)
    est = LAUNCH.estimate_launch_bytes(65536, 256, 32 * 33 * 4)
    assert est < LAUNCH.DEFAULT_MEMORY_LIMIT
    with pytest.raises(LaunchError) as ei:
        launch(lambda blk: None, (65535, 65535), 256)
    msg = str(ei.value)
    need = LAUNCH.estimate_launch_bytes(65535 * 65535, 256)
    assert f"estimated {need / 2**20:.0f} MiB" in msg and "limit of 4096 MiB" in msg
    assert "memory_limit=" in msg and "LABSIM_MEMORY_LIMIT" in msg
    # the limit is configurable: by argument and by environment
    with pytest.raises(LaunchError, match="limit of 1 MiB"):
        launch(lambda blk: None, 64, 256, memory_limit=1 << 20)
    monkeypatch.setenv("LABSIM_MEMORY_LIMIT", "1M")
    with pytest.raises(LaunchError, match="limit of 1 MiB"):
        launch(lambda blk: None, 64, 256)


_FAULTS = """
import importlib, resource, sys
sys.path.insert(0, "tools")
import bench_kernels
# the counting model's temporaries are what the tuning keeps: the shift memo (which spares them when a site's
# addresses move by whole periods, as the copy's do from set to set) is off
importlib.import_module("labsim.launch").SHIFTS = False
ins, out, _ = bench_kernels.setup("copy", 2048)
bench_kernels._prelude()                      # import the kernels (and all they import) before counting
out.fill(1)                                   # fault the output in before timing the launch
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
bench_kernels.run("copy", "python", 2048, times={})
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="malloc tuning is for glibc")
def test_first_launch_of_a_process_does_not_fault_its_temporaries_in():
    """A process's first launch kept glibc's initial malloc thresholds: every 128 KiB temporary of a thread set
    was a fresh mmap or trimmed heap, faulted in again (twice the time per element). Page faults, not seconds,
    so the test does not depend on the machine's load. 2048² (16 thread sets): the heap a tuned process keeps
    is faulted in once, an untuned process faults its temporaries in again in every set."""
    root = os.path.join(os.path.dirname(__file__), "..", "..")

    def faults(tuning: str) -> int:
        env = dict(os.environ, LABSIM_MALLOC_TUNING=tuning)
        r = subprocess.run([sys.executable, "-c", _FAULTS], cwd=root, env=env, capture_output=True, text=True,
                           check=True)
        return int(r.stdout.split()[-1])

    tuned, untuned = faults("1"), faults("0")
    assert untuned > 5000                     # the launch allocates enough for the problem to show
    assert tuned < untuned / 5


def test_bench_row_passes_only_within_30_percent_of_its_median():
    import bench
    med, ratio, dev, ok = bench.spread([100.0, 80.0, 120.0, 90.0])
    assert (med, ok) == (95.0, True) and ratio == pytest.approx(120 / 80) and dev == pytest.approx(120 / 95 - 1)
    assert not bench.spread([100.0, 80.0, 125.0, 90.0])[3]                            # 125 is 31.6% above 95
    assert bench.spread([100.0, 100.0, 69.0])[2:] == (pytest.approx(-0.31), False)   # 69 is 31% below 100
    assert not bench.spread([40.0, 40.0, 40.0, 79.0, 80.0])[3]                        # the brief's failing row shape
