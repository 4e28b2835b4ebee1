"""labsim's fast paths against brute force: counting each distinct per-warp access pattern once
(``CountingModel._many_warps``) and folding uniform blocks onto one race shadow (``labsim.race_detection``).

Both are pure speed: the counters must be what the per-lane reference (labsim_reference) gives warp by warp,
and races, racecheck tallies and the races kept must be what one shadow copy per block finds.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from labsim import FLOAT4, launch
from labsim import race_detection as races
from labsim.stats import METRIC_NAMES

from labsim_reference import global_counts, shared_counts

DTYPES = [np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64), FLOAT4]


@st.composite
def repeated_patterns(draw):
    """Warps that repeat a few one-warp patterns at shifted addresses (as the blocks of a tiled kernel do):
    (element index per thread, active mask, dtype, threads per block, blocks)."""
    dtype = draw(st.sampled_from(DTYPES))
    npat = draw(st.integers(1, 3))
    pats = [np.array(draw(st.lists(st.integers(0, 95), min_size=32, max_size=32))) for _ in range(npat)]
    masks = [np.array(draw(st.lists(st.booleans(), min_size=32, max_size=32))) | draw(st.booleans())
             for _ in range(npat)]
    warps_per_block = draw(st.sampled_from([1, 2, 4, 8]))
    blocks = draw(st.integers(1, 6))
    same_blocks = draw(st.booleans())        # every block the same: counted once for all of them
    # shifts: multiples of a bank row (same pattern to the model), of one element, or of a sector
    unit = draw(st.sampled_from([128 // dtype.itemsize, 1, max(1, 32 // dtype.itemsize)]))
    idx, mask = [], []
    for _ in range(warps_per_block * (1 if same_blocks else blocks)):
        k = draw(st.integers(0, npat - 1))
        shift = draw(st.integers(0, 6)) * unit
        idx.append(pats[k] + shift)
        mask.append(masks[k])
    if same_blocks:
        idx, mask = idx * blocks, mask * blocks
    return np.concatenate(idx), np.concatenate(mask), dtype, 32 * warps_per_block, blocks


@settings(max_examples=150, deadline=None)
@given(repeated_patterns())
def test_pattern_counting_matches_per_warp_brute_force(case):
    idx, mask, dtype, threads, blocks = case
    size = int(idx.max()) + 1
    A = np.zeros(size * dtype.itemsize, np.uint8).view(dtype)

    def kernel(blk, A, idx, mask):
        p = blk.bx * blk.bdx + blk.tx
        sh = blk.shared(size, dtype, name="sh")
        with blk.where(mask[p]):
            blk.sstore(sh, idx[p], blk.load(A, idx[p]))
            blk.store(A, idx[p], blk.sload(sh, idx[p]))

    stats = launch(kernel, blocks, threads, (A, idx, mask))
    m = stats.metrics
    req, sec, _ = global_counts(idx * dtype.itemsize, mask, (blocks,), (threads,), dtype.itemsize)
    assert m[METRIC_NAMES["global", "ld", "requests"]] == req
    assert m[METRIC_NAMES["global", "ld", "cost"]] == sec == m[METRIC_NAMES["global", "st", "cost"]]
    for op in ("ld", "st"):
        # the shared array starts at 0 in the block's window: byte addresses are idx * itemsize
        req, wf, conf = shared_counts(idx * dtype.itemsize, mask, (blocks,), (threads,), dtype.itemsize, op)
        assert m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"] == wf
        assert m[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"] == conf
        assert m[f"smsp__inst_executed_op_shared_{op}.sum"] >= req


def _brute_races(wr, rd, threads, sync):
    """Hazards of ``store sh[wr[t]]; [sync;] load sh[rd[t]]`` in one block in lockstep (all stores, then all
    loads; the highest thread's store lands last): WAW when the element's final writer is another warp, RAW
    when a load reads an element whose final writer is another warp."""
    final = {}
    for t in range(threads):
        final[wr[t]] = t
    waw = sum(1 for t in range(threads) if final[wr[t]] // 32 != t // 32)
    raw = 0 if sync else sum(1 for t in range(threads) if rd[t] in final and final[rd[t]] // 32 != t // 32)
    return waw + raw


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4).map(lambda w: 32 * w), st.integers(2, 5), st.data(), st.booleans())
def test_uniform_blocks_count_each_block_like_brute_force(threads, blocks, data, sync):
    """Every block does the same, so the folded shadow stands for all: each block has the one-block count."""
    wr = np.array(data.draw(st.lists(st.integers(0, 63), min_size=threads, max_size=threads)))
    rd = np.array(data.draw(st.lists(st.integers(0, 63), min_size=threads, max_size=threads)))

    def kernel(blk, wr, rd):
        sh = blk.shared(64, np.float32, name="sh")
        blk.sstore(sh, wr[blk.tx], 1.0)
        if sync:
            blk.sync()
        blk.sload(sh, rd[blk.tx])

    stats = launch(kernel, blocks, threads, (wr, rd))
    assert stats.race_count == blocks * _brute_races(list(wr), list(rd), threads, sync)


def _stats_fields(st_):
    return (st_.metrics, st_.race_count, [str(r) for r in st_.races], [r.block for r in st_.races],
            dict(st_.racecheck), st_.races_by_line)


def _site_rows(stats) -> list:
    """Every site's counters and sampled warp, sorted."""
    return sorted((s.space, s.op, s.line, s.col, s.array, s.itemsize, s.executed, s.requests, s.cost, s.conflicts,
                   s.bytes_requested,
                   None if s.sample is None else (s.sample.block, s.sample.warp, s.sample.active.tolist(),
                                                  s.sample.addr.tolist()))
                  for s in stats.instructions)


@st.composite
def kernels(draw):
    """A random sequence of shared stores, loads and barriers; each access indexes by thread alone (the same in
    every block) or by block and thread (blocks differ), under a mask that is uniform or not."""
    steps = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["st", "ld", "ld", "sync"]))
        if kind == "sync":
            steps.append(("sync",))
            continue
        per_block = draw(st.booleans())
        table = np.array(draw(st.lists(st.integers(0, 43), min_size=8, max_size=8)))
        mask = draw(st.sampled_from(["all", "tx", "block"]))
        steps.append((kind, per_block, table, mask))
    return steps


def _run_steps(steps, threads, blocks, schedule, *, move_index=False, **switches):
    """Launch the kernel ``steps`` describe (shared stores, loads, barriers under masks) with the race tracker's
    switches (``FOLD=``, ``DEFER=``) set for this run; (its counters, what it stored). ``move_index``: the
    index array changes after each read (a deferred read must not see that)."""
    out = np.zeros(blocks * threads, np.float32)

    def kernel(blk, out):
        sh = blk.shared(48, np.float32, name="sh")
        acc = np.zeros(blk.tx.shape, np.float32)
        for n, step in enumerate(steps):
            if step[0] == "sync":
                blk.sync(line=100 + n)
                continue
            kind, per_block, table, mask = step
            i = table[(blk.tx * 7 + (blk.bx * 3 if per_block else 0)) % 8] + blk.tx % 5
            cond = {"all": blk.tx >= 0, "tx": blk.tx % 3 != 1, "block": (blk.tx + blk.bx) % 4 != 0}[mask]
            with blk.where(cond):
                if kind == "st":
                    blk.sstore(sh, i, blk.tx.astype(np.float32), line=100 + n)
                else:
                    acc = acc + blk.sload(sh, i, line=100 + n)
                    if move_index:
                        i += 1
        blk.store(out, blk.bx * blk.bdx + blk.tx, acc)

    old = {k: getattr(races, k) for k in switches}
    try:
        for k, v in switches.items():
            setattr(races, k, v)
        st_ = launch(kernel, blocks, threads, (out,), schedule=schedule)
        return _stats_fields(st_), out.copy()
    finally:
        for k, v in old.items():
            setattr(races, k, v)


@pytest.mark.parametrize("schedule", ["lockstep", "adversarial"])
@settings(max_examples=40, deadline=None)
@given(kernels(), st.sampled_from([32, 64, 96]), st.integers(2, 4))
def test_folded_race_shadow_equals_one_copy_per_block(schedule, steps, threads, blocks):
    (folded, a) = _run_steps(steps, threads, blocks, schedule, FOLD=True)
    (plain, b) = _run_steps(steps, threads, blocks, schedule, FOLD=False)
    assert folded == plain
    assert np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("schedule", ["lockstep", "adversarial"])
@pytest.mark.parametrize("fold", [True, False])
@settings(max_examples=40, deadline=None)
@given(kernels(), st.sampled_from([32, 64, 96]), st.integers(1, 4))
def test_deferred_reads_equal_reads_applied_one_by_one(schedule, fold, steps, threads, blocks):
    """Reads' reader-shadow updates queued and applied in one pass at the next write (race_detection.DEFER)
    find the same races, racecheck tally and races kept as applying each read at once: WAR needs the last
    reader and whether readers of several warps came before, which the batch must reproduce."""
    steps = steps + [("st", False, np.arange(8) * 5, "all")]      # a write after the reads: WAR checked
    (deferred, a) = _run_steps(steps, threads, blocks, schedule, move_index=True, FOLD=fold, DEFER=True)
    (direct, b) = _run_steps(steps, threads, blocks, schedule, move_index=True, FOLD=fold, DEFER=False)
    assert deferred == direct
    assert np.array_equal(a, b, equal_nan=True)


def test_deferred_reads_find_war_after_reads_of_several_warps():
    """Reads by two warps, then a write by one of them with no barrier: WAR against the other warp's read (the
    batch must remember that readers of several warps came first), counted per block as brute force says."""
    def kernel(blk):
        sh = blk.shared(64, np.float32, name="sh")
        blk.sload(sh, blk.tx % 32, line=1)            # warps 0 and 1 read elements 0..31
        blk.sload(sh, 32 + blk.tx % 32, line=2)       # and 32..63
        with blk.where(blk.tx < 32):
            blk.sstore(sh, blk.tx, 1.0, line=3)        # warp 0 writes 0..31: warp 1 read them
    for defer in (True, False):
        old = races.DEFER
        races.DEFER = defer
        try:
            st_ = launch(kernel, 3, 64)
        finally:
            races.DEFER = old
        assert st_.race_count == 3 * 32, defer
        assert {r.kind for r in st_.races} == {"WAR"}
        assert all(r.first_line == 1 and r.second_line == 3 for r in st_.races)


def test_races_kept_follow_lane_order_across_folded_blocks():
    """More than MAX_REPORTED hazards over several uniform blocks: the races kept are block 0's, then block 1's,
    as the lanes of the whole group are ordered, and the count is every block's."""
    def kernel(blk):
        sh = blk.shared(64, np.float32, name="sh")
        blk.sstore(sh, blk.tx % 64, 1.0, line=1)
        blk.sload(sh, (blk.tx + 32) % 64, line=2)     # read what another warp wrote, no barrier

    folded = launch(kernel, 8, 128)
    old = races.FOLD
    races.FOLD = False
    try:
        plain = launch(kernel, 8, 128)
    finally:
        races.FOLD = old
    assert folded.race_count == plain.race_count > races.MAX_REPORTED
    assert [str(r) for r in folded.races] == [str(r) for r in plain.races]
    assert folded.races[-1].block != folded.races[0].block


def _run_with_repeats(prog, blocks, threads, data, tiles, repeats):
    """Kernel ``k(out, data, tiles)`` with the repeat memos on or off: (stats fields, every site's counters and
    sampled warp, out)."""
    import sys

    from labsim import model
    engine = sys.modules["labsim.launch"]      # the module (labsim.launch is also the name of its function)
    old = engine.REPEATS, model.MERGE_MEMO
    engine.REPEATS = model.MERGE_MEMO = repeats
    try:
        out = np.zeros(threads * blocks, np.float32)
        st_ = prog.launch("k", blocks, threads, (out, data, tiles)).stats
    finally:
        engine.REPEATS, model.MERGE_MEMO = old
    return _stats_fields(st_), _site_rows(st_), out


REPEAT_SRC = """
__global__ void k(float* out, const int* rows, int tiles) {{
    __shared__ float t[32][{w}];
    for (int r = threadIdx.x; r < 32 * {w}; r += blockDim.x) t[r / {w}][r % {w}] = r;
    {sync}
    float s = 0.0f;
    for (int it = 0; it < tiles; ++it) {{
        int row = rows[{row}];
        #pragma unroll
        for (int k = 0; k < {n}; ++k) s += t[row][k] * t[k][threadIdx.x % {w}];
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}}
"""


@settings(max_examples=30, deadline=None)
@given(w=st.sampled_from([16, 17, 32, 33]), n=st.sampled_from([2, 4, 8]), threads=st.sampled_from([32, 64]),
       blocks=st.integers(1, 4), tiles=st.integers(1, 3), per_block=st.booleans(), sync=st.booleans(),
       data=st.data())
def test_repeated_uniform_loads_count_as_the_first_time(w, n, threads, blocks, tiles, per_block, sync, data):
    """A block-uniform shared load met again (the next tile of an unrolled loop) adds the counts, or hands the
    model the addresses, remembered from its first time (labsim.launch.REPEATS), and a vector group met again
    adds what it added then (labsim.model.MERGE_MEMO): every counter, the sampled warp, races and the result
    equal the general path's, merged vector loads and per-block (non-uniform) rows alike."""
    from labsim import cuda

    rows = np.array(data.draw(st.lists(st.integers(0, 31), min_size=threads * blocks,
                                       max_size=threads * blocks)), np.int32)
    src = REPEAT_SRC.format(w=w, n=n, sync="__syncthreads();" if sync else "",
                            row="blockIdx.x * blockDim.x + threadIdx.x" if per_block else "threadIdx.x")
    prog = cuda.compile(src, "k.cu")

    fast, slow = (_run_with_repeats(prog, blocks, threads, rows, tiles, on) for on in (True, False))
    assert fast[1] == slow[1]
    assert fast[0] == slow[0]
    assert np.array_equal(fast[2], slow[2], equal_nan=True)


@settings(max_examples=25, deadline=None)
@given(launches=st.lists(st.tuples(st.sampled_from([16, 32, 33]), st.sampled_from([32, 64]), st.integers(2, 4),
                                   st.integers(1, 3), st.booleans()), min_size=2, max_size=4),
       data=st.data())
def test_repeat_memo_entries_kept_across_launches_count_as_the_first_time(launches, data):
    """The repeat memo's counts outlive their launch (labsim.launch._KEPT_REPEATS): a later launch adds them at
    its first block-uniform shared access of a site met before. Launches in a row of programs that share the
    kernel's name and lines but not its array shapes, with drawn thread and block counts and row patterns (a
    pattern reused or not); each launch's counters, sampled warps, races and results equal those with the memo
    off."""
    from labsim import cuda

    engine = importlib.import_module("labsim.launch")
    progs = {w: cuda.compile(REPEAT_SRC.format(w=w, n=4, sync="__syncthreads();", row="threadIdx.x"), "k.cu")
             for w in {w for w, *_ in launches}}
    rows, runs = None, []
    for w, threads, blocks, tiles, same in launches:
        if rows is None or not same or rows.size != threads * blocks:
            rows = np.array(data.draw(st.lists(st.integers(0, 31), min_size=threads * blocks,
                                               max_size=threads * blocks)), np.int32)
        runs.append((w, threads, blocks, tiles, rows))
    got = []
    for on in (True, False):
        engine._KEPT_REPEATS.clear()
        got.append([_run_with_repeats(progs[w], blocks, threads, r, tiles, on)
                    for w, threads, blocks, tiles, r in runs])
    for fast, slow in zip(*got):
        assert fast[:2] == slow[:2]
        assert np.array_equal(fast[2], slow[2])


def test_repeat_memo_entries_kept_across_launches_are_used():
    """The second launch of a kernel takes its shared accesses' counts from the entries kept from the first (so
    the test above compares something), and an entry marked as counted under other model settings is not used."""
    from labsim import cuda

    engine = importlib.import_module("labsim.launch")
    prog = cuda.compile(REPEAT_SRC.format(w=32, n=4, sync="__syncthreads();", row="threadIdx.x"), "k.cu")
    rows = np.arange(64, dtype=np.int32) % 32
    used = []
    orig = engine.Block._kept_repeat

    def spy(self, sh, memo):
        r = orig(self, sh, memo)
        used.append(r)
        return r
    engine._KEPT_REPEATS.clear()
    engine.Block._kept_repeat = spy
    try:
        prog.launch("k", 2, 32, (np.zeros(64, np.float32), rows, 3))
        assert engine._KEPT_REPEATS and not any(used)
        used.clear()
        prog.launch("k", 2, 32, (np.zeros(64, np.float32), rows, 3))
        assert any(used)
        for k, v in engine._KEPT_REPEATS.items():
            engine._KEPT_REPEATS[k] = ((0,) + v[0][1:],) + v[1:]      # as if counted under other settings
        used.clear()
        prog.launch("k", 2, 32, (np.zeros(64, np.float32), rows, 3))
        assert used and not any(used)
    finally:
        engine.Block._kept_repeat = orig


SHIFT_SRC = """
__global__ void k(float* out, const float* src, const int* off, int step, int iters, int sel) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int it = 0; it < iters; ++it) {
        int i = off[t] + it * step;
        s += src[i];
        if (sel) out[i] = s; else out[i] = -s;
    }
    out[t] += s;
}
"""


@settings(max_examples=40, deadline=None)
@given(threads=st.sampled_from([32, 64, 48]), blocks=st.integers(1, 3), iters=st.integers(1, 4),
       step=st.sampled_from([0, 1, 8, 16, 32, 33, 64, 96]), spread=st.sampled_from([1, 4, 40]),
       sel=st.integers(0, 1), data=st.data())
def test_shifted_global_accesses_count_as_the_first_time(threads, blocks, iters, step, spread, sel, data):
    """A global access of every lane at the site's previous addresses shifted by a multiple of the counting
    period adds the counts remembered from then (labsim.launch.SHIFTS): lane patterns drawn at random, shifts
    that are and are not such a multiple, a partial last warp (no memo), an if/else pair on one location; every
    counter, the sampled warp and the result equal the general path's."""
    from labsim import cuda

    n = threads * blocks
    off = np.array(data.draw(st.lists(st.integers(0, 31 * spread), min_size=n, max_size=n)), np.int32)
    src = np.arange(int(off.max()) + iters * step + 1, dtype=np.float32)
    prog = cuda.compile(SHIFT_SRC, "k.cu")
    engine = importlib.import_module("labsim.launch")    # the package's `launch` is the function
    got = []
    for on in (True, False):
        old = engine.SHIFTS
        engine.SHIFTS = on
        try:
            out = np.zeros(src.size + n, np.float32)
            st_ = prog.launch("k", blocks, threads, (out, src, off, step, iters, sel)).stats
        finally:
            engine.SHIFTS = old
        got.append((_site_rows(st_), _stats_fields(st_), out))
    assert got[0][0] == got[1][0]
    assert got[0][1] == got[1][1]
    assert np.array_equal(got[0][2], got[1][2])


@settings(max_examples=30, deadline=None)
@given(launches=st.lists(st.tuples(st.sampled_from([32, 64]), st.sampled_from([0, 1, 32, 33]),
                                   st.integers(0, 40), st.integers(0, 1), st.booleans()),
                         min_size=2, max_size=4),
       data=st.data())
def test_shift_memo_entries_kept_across_launches_count_as_the_first_time(launches, data):
    """Entries of the shift memo outlive their launch (labsim.launch._KEPT_SHIFTS): a later launch of a kernel
    of the same name may add a kept entry's counts at its first access of a site. Launches in a row with drawn
    thread counts, lane patterns (a pattern reused or not), shifts, and source buffers starting at drawn element
    offsets (base addresses that differ by a multiple of the 32-byte period or not); each launch's counters,
    sampled warps and results equal those with the memo off."""
    from labsim import cuda

    engine = importlib.import_module("labsim.launch")
    prog = cuda.compile(SHIFT_SRC, "k.cu")
    pattern = None
    runs = []
    for threads, step, start, sel, same in launches:
        if pattern is None or not same or pattern.size != threads:
            pattern = np.array(data.draw(st.lists(st.integers(0, 40), min_size=threads, max_size=threads)),
                               np.int32)
        runs.append((threads, step, start, sel, pattern))
    got = []
    for on in (True, False):
        old = engine.SHIFTS
        engine.SHIFTS = on
        engine._KEPT_SHIFTS.clear()
        rows = []
        try:
            for threads, step, start, sel, off in runs:
                whole = np.arange(start + int(off.max()) + 4 * step + 1, dtype=np.float32)
                out = np.zeros(whole.size + threads, np.float32)
                st_ = prog.launch("k", 1, threads, (out, whole[start:], off, step, 4, sel)).stats
                rows.append((_site_rows(st_), _stats_fields(st_), out.tolist()))
        finally:
            engine.SHIFTS = old
        got.append(rows)
    assert got[0] == got[1]


def test_a_kept_shift_entry_serves_only_the_same_model():
    """A kept entry counted under one model setting (32-byte sectors) is not used under another (a GPU model with
    other sectors would count the same addresses differently), nor under another plan (counting="source" has
    none): the next launch counts anew."""
    from labsim import cuda
    from labsim.gpus import get_gpu

    engine = importlib.import_module("labsim.launch")
    prog = cuda.compile(SHIFT_SRC, "k.cu")
    off = np.arange(32, dtype=np.int32) * 3
    src = np.ones(200, np.float32)
    engine._KEPT_SHIFTS.clear()
    prog.launch("k", 1, 32, (np.zeros(232, np.float32), src, off, 32, 1, 1))
    entry = next(e for k, e in engine._KEPT_SHIFTS.items() if k[1][1] == "ld" and k[1][4] == "src")
    assert entry.stamp == engine._model_stamp(engine.CountingModel(get_gpu("H200"), prog.plan("k")))
    entry.stamp = (0,) + entry.stamp[1:]                  # as if counted under other settings
    calls = []
    orig = engine.Block._record

    def spy(self, space, op, site, name, *a, **k):
        calls.append((space, op, name))
        return orig(self, space, op, site, name, *a, **k)
    engine.Block._record = spy
    try:
        prog.launch("k", 1, 32, (np.zeros(232, np.float32), src, off, 32, 1, 1))
        assert ("global", "ld", "src") in calls
        calls.clear()
        prog.launch("k", 1, 32, (np.zeros(232, np.float32), src, off, 32, 1, 1), counting="source")
        assert ("global", "ld", "src") in calls
    finally:
        engine.Block._record = orig


@pytest.mark.parametrize("over", [1, 32, 33])
def test_a_shifted_access_that_leaves_the_array_still_faults(over):
    """The shift memo serves an access without the bounds check only when the remembered one's lowest and highest
    elements, shifted, stay inside the array: a loop whose later iteration reads (or writes) past the end faults
    there, with the general path's message (memo on and off)."""
    from labsim import cuda
    from labsim.errors import OutOfBoundsError

    engine = importlib.import_module("labsim.launch")
    prog = cuda.compile(SHIFT_SRC, "k.cu")
    off = np.arange(64, dtype=np.int32)
    src = np.ones(64 + 3 * 32 - over, np.float32)          # the last iteration reads `over` elements too far
    msgs = []
    for on in (True, False):
        old = engine.SHIFTS
        engine.SHIFTS = on
        try:
            with pytest.raises(OutOfBoundsError) as e:
                prog.launch("k", 2, 32, (np.zeros(256, np.float32), src, off, 32, 4, 1))
            msgs.append(str(e.value))
        finally:
            engine.SHIFTS = old
    assert msgs[0] == msgs[1] and "src" in msgs[0]


def test_shift_memo_is_used_and_a_wrong_count_would_show():
    """The memo serves the loop's later iterations (so the test above compares it with something): src[i] moving
    by 128 bytes is served from the second iteration on, by 4 bytes never; off[t] (not moving) always is. A
    second launch's first iteration reads what the first launch's did: both sites are served from the entries
    kept from that launch, then src[i] moves by 4 bytes and is counted anew."""
    from labsim import cuda

    engine = importlib.import_module("labsim.launch")
    prog = cuda.compile(SHIFT_SRC, "k.cu")
    lines = SHIFT_SRC.split("\n")          # line 1 of the file is the empty first line of the string
    src_line = next(i + 1 for i, ln in enumerate(lines) if "src[i]" in ln)
    off_line = next(i + 1 for i, ln in enumerate(lines) if "off[t]" in ln)
    off = np.arange(64, dtype=np.int32)
    hits = []
    orig = engine.Block._shifted

    def spy(self, arr, idx, name, site, op):
        r = orig(self, arr, idx, name, site, op)
        if r is not None:
            hits.append((site[0], op))
        return r
    engine.Block._shifted = spy
    engine._KEPT_SHIFTS.clear()                           # no entry from another test's launches of "k"
    try:
        for step, src_hits, off_hits in ((32, 3, 3), (1, 1, 4)):   # 128-byte shifts, then 4-byte ones; 4 iterations
            hits.clear()
            src = np.ones(64 + 4 * step + 1, np.float32)
            prog.launch("k", 2, 32, (np.zeros(src.size + 64, np.float32), src, off, step, 4, 1))
            assert hits.count((src_line, "ld")) == src_hits
            assert hits.count((off_line, "ld")) == off_hits
    finally:
        engine.Block._shifted = orig


@settings(max_examples=60, deadline=None)
@given(grid=st.tuples(st.integers(1, 5), st.integers(1, 3), st.integers(1, 2)),
       block=st.tuples(st.integers(1, 40), st.integers(1, 3), st.integers(1, 2)),
       chunk=st.sampled_from([32, 100, 256, 1 << 14]))
def test_thread_set_coordinates_are_cuda_thread_order(grid, block, chunk):
    """A lockstep thread set spreads one block's coordinates over its blocks (Block's ``blocks`` path) instead
    of dividing every lane id: every lane must still hold the coordinates of the CUDA thread it stands for,
    enumerated here thread by thread (x fastest, blocks padded to whole warps), over several thread sets."""
    LAUNCH = importlib.import_module("labsim.launch")   # the package's `launch` is the function
    threads = block[0] * block[1] * block[2]
    lpb = -(-threads // 32) * 32
    want = {k: [] for k in ("bx", "by", "bz", "tx", "ty", "tz", "lane", "warp", "valid")}
    for bz in range(grid[2]):
        for by in range(grid[1]):
            for bx in range(grid[0]):
                for t in range(lpb):
                    tz, ty, tx = t // (block[0] * block[1]), t // block[0] % block[1], t % block[0]
                    for k, v in zip(want, (bx, by, bz, tx, ty, tz, t % 32, t // 32, t < threads)):
                        want[k].append(v)
    got = {k: [] for k in want}

    def kernel(blk):
        for k in ("bx", "by", "bz", "tx", "ty", "tz", "lane", "warp"):
            got[k].append(np.array(getattr(blk, k)))
        got["valid"].append(np.array(blk.live))

    old = LAUNCH.CHUNK_LANES
    LAUNCH.CHUNK_LANES = chunk
    try:
        launch(kernel, grid, block)
    finally:
        LAUNCH.CHUNK_LANES = old
    for k in want:
        assert np.concatenate(got[k]).tolist() == want[k], k


STORE_SRC = """
__global__ void k(float* out, const int* cols, int tiles) {{
    __shared__ float t[8][{w}];
    float s = 0.0f;
    for (int it = 0; it < tiles; ++it) {{
        int c = cols[{col}] % {w};
        t[threadIdx.x % 8][c] = it + threadIdx.x;
        t[threadIdx.x % 8][2 * (threadIdx.x % {half})] = 1.0f + it;
        t[threadIdx.x % 8][2 * (threadIdx.x % {half}) + 1] = 2.0f;
        {sync}
        s += t[(threadIdx.x + it) % 8][threadIdx.x % {w}];
        {sync}
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}}
"""


@settings(max_examples=30, deadline=None)
@given(w=st.sampled_from([16, 32, 33]), threads=st.sampled_from([32, 64]), blocks=st.integers(1, 4),
       tiles=st.integers(1, 3), per_block=st.booleans(), sync=st.booleans(), data=st.data())
def test_repeated_uniform_stores_count_as_the_first_time(w, threads, blocks, tiles, per_block, sync, data):
    """A block-uniform shared store met again (the next tile) adds the counts, or hands the model the addresses,
    remembered from its first time (labsim.launch.REPEATS), and still writes and checks races: every counter, the
    sampled warp, the races, racecheck's tally and the result equal the general path's, paired stores (STS.64)
    and per-block (non-uniform) columns alike."""
    from labsim import cuda

    cols = np.array(data.draw(st.lists(st.integers(0, 63), min_size=threads * blocks, max_size=threads * blocks)),
                    np.int32)
    src = STORE_SRC.format(w=w, half=w // 2, sync="__syncthreads();" if sync else "",
                           col="blockIdx.x * blockDim.x + threadIdx.x" if per_block else "threadIdx.x")
    prog = cuda.compile(src, "k.cu")

    fast, slow = (_run_with_repeats(prog, blocks, threads, cols, tiles, on) for on in (True, False))
    assert fast[1] == slow[1]
    assert fast[0] == slow[0]                # races and racecheck's tally among them
    assert np.array_equal(fast[2], slow[2], equal_nan=True)
