"""The counting model: how recorded memory accesses become Nsight Compute's counters.

This module is the seam between executing a kernel and counting what it cost. The executor
(``labsim.launch.Block``) records, for every instruction *site* (source line and column), which lanes
reached it and the byte address of every active lane, one row of 32 lanes per warp, and hands that to
one ``CountingModel``. The model alone decides what the instruction counts as: executed warp
instructions, requests, sectors, wavefronts and bank conflicts. A new rule (vector loads merged by the
compiler, branch vs predication, warp-aggregated atomics) changes this module and ``MODEL_VERSION``
only, so receipts and recorded reports made under another model can be recognised and re-checked.

The rules (checked against an H200 with Nsight Compute, see measurements/h200/):
- executed (``smsp__inst_executed_*``): every warp with a lane that reached the instruction, lanes
  predicated off by an ``if`` included (the compiler predicates short bodies), except at sites the plan marks
  as behind a branch (below);
- global: one request per warp instruction with an active lane; sectors = distinct 32-byte segments the
  active lanes touch; atomics serialise lanes hitting one address (each sector costs the most lanes aiming
  at one address in it).
- shared: 32 banks of 4 bytes. Lanes are gathered in groups: the whole warp for accesses of up to 4 bytes,
  half-warps for 8-byte and quarter-warps for 16-byte accesses. A group costs as many wavefronts as the most
  distinct 4-byte words any one bank must deliver (lanes reading the same word share it: a broadcast); an
  empty group costs nothing. Two adjacent groups (the halves of an 8-byte request; quarters 0+1 and 2+3 of a
  16-byte one) share their wavefronts when they use disjoint banks or all their active lanes read one address;
  16-byte loads also when the half-warp reads at most two addresses and no bank holds two of its words (so a
  16-byte load costs at least one wavefront per half-warp: a warp-wide broadcast costs 2).
  Nsight Compute's bank-conflict counter is, for a load, the wavefronts beyond what the active lanes' bytes
  need at 128 bytes per wavefront (never negative; for 16-byte loads per half-warp: its distinct bytes, and
  one wavefront per non-empty quarter unless the quarters read disjoint words or at most two addresses); for
  a store, the wavefronts beyond one per non-empty group. Checked on an H200 over 471 one-warp patterns of 2-,
  4-, 8- and 16-byte accesses (measurements/h200/patterns/) and 8 float4 patterns (classes/): e.g. 32 lanes
  reading one double cost 1 wavefront, one float4 2, and a conflict-free float4 read 4. Stores never share
  wavefronts between groups. Shared atomics are costed as a load of the same addresses.

What the compiler did (issues 17 and 23; ``CountPlan``, made by ``labsim.cuda.sass`` from labsim's source rules,
or from the kernel's SASS on request, and applied here per instruction site): shared loads that ptxas merged into
one ``LDS.64`` / ``LDS.128`` (four reads ``a[k]``..``a[k+3]`` of an aligned row, also on a computed index such
as ``As[k][ty*4+i]`` with ``i`` unrolled, ``As[ty*4+i][k]`` over ``k`` with ``i`` inner (every fourth execution),
or ``s[2*m]``, ``s[2*m+1]``) count as one wide load per warp wherever
the lanes' addresses are consecutive and aligned; shared stores in consecutive statements (``s[2*l] = a;
s[2*l+1] = b;``) likewise as one ``STS.64``/``STS.128``; the two arms of an if/else that store (or both read) one
location count as one instruction for the lanes of both arms; instructions behind a branch count only warps
with an active lane; integer atomics that nvcc aggregates (vote + popc + one lane's atomic) touch memory from
one lane per warp. Repeated reads of one location are folded into one load before the model sees them
(``labsim.cuda.runtime.LoadCache``). A Python kernel (``labsim.launch``) has no plan: its accesses are counted as
written.

Limitations (departures measured on the H200, measurements/h200/README.md "Round 2"): the model counts what
the addresses need, as ncu's per-instruction source counters do (equal at every size measured). ncu's
hardware counter of shared-memory wavefronts adds a timing-dependent excess when the kernel streams global
memory at the same time: the tiled transposes' loads at 1024², 2048², 4096², 8192² show 0%, 6.0%, 8.0% and
8.1% more wavefronts than the model for the padded tile (1.1% for the unpadded one at 8192²), 15% at 8192²
with two blocks per SM, 16% for a variant without global loads; the model does not reproduce this excess.
A shared float ``atomicAdd`` is a compare-and-swap loop on the H200 whose retries depend on timing (3782
``ATOMS`` for 16 warps on one address, measured in classes/); labsim counts one ``ATOMS`` per warp.

What the source rules cannot know without the compiler (each case measured in round3/classes3, COMPARISON.md):
ptxas unrolls loops whose trip count follows from constants through other operators (Blelloch's ``for (d = n >> 1;
d > 0; d >>= 1)``) and then folds the constants of each copy (its first step reads ``temp[2t]``, ``temp[2t+1]``:
one LDS.64): labsim unrolls only ``for (k = C0; k < C1; ++k)`` loops, so scan_blelloch counts 376 shared loads
where the H200 executes 280 (the padded variant 376 for 112). Whether ptxas predicates a guarded body or branches around it depends on its size
and on the registers it needs; the rules branch at a kernel's final ``if`` without ``else`` (also in the last copy
of a final unrolled loop) and on warp-uniform conditions only. Global pairs are never merged (ptxas cannot prove a global pointer 8-byte aligned, as
measured for ``in[2*i]``, ``in[2*i+1]``); a ``#pragma unroll N`` over a runtime bound is counted per trip (as
measured: unroll4_runtime). Folding assumes no store through another pointer aliases a read unless one of them is
``__restrict__`` (nvcc's rule); a read after a runtime loop's trip is never folded (ptxas may hoist a loop-invariant
load out of such a loop).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

# Version of the counting model. Bump it whenever a rule here changes a counter, so that receipts and
# recorded reports made under another model are re-checked, not trusted.
MODEL_VERSION = "4"   # 2: the compiled program (CountPlan): LDS.128 merging, branches, aggregated atomics
#                       3: repeated reads of one location folded into one load (labsim.cuda LoadCache)
#                       4: computed-index LDS.64/128 (also every n-th execution), STS.64/128, if/else arms as one
#                          instruction, the last copy of a final unrolled loop and warp-uniform conditions branch

_BIG = np.int64(1) << 40
WARP = 32
_MEMOS: dict[tuple, dict] = {}        # CountingModel's memo per (banks, bank width, sector size), across launches
_EXACT_ROWS = 16                      # up to this many requests, memoise on the exact addresses (_few_warps)
_INACTIVE = np.iinfo(np.int64).min    # an inactive lane in a pattern (CountingModel._many_warps)
# odd multipliers for hashing a row of 32 lanes (Weyl sequence of the golden ratio; no numpy.random import)
_HASH_WEIGHTS = np.array([((i + 1) * 0x9E3779B97F4A7C15 % (1 << 62)) | 1 for i in range(32)], dtype=np.int64)


def sectors_per_warp(addr: np.ndarray, active: np.ndarray, itemsize: int, sector_bytes: int = 32,
                     aligned: bool = False) -> np.ndarray:
    """Distinct sectors touched by the active lanes of each warp (rows). Inactive warps give 0.

    ``aligned``: every address is a multiple of ``itemsize`` (the engine faults otherwise), so no access
    straddles a sector and the check is skipped."""
    first = addr // sector_bytes
    if aligned and sector_bytes % itemsize == 0:
        return _distinct_per_row(first, active)
    last = (addr + itemsize - 1) // sector_bytes
    if np.array_equal(first, last):
        return _distinct_per_row(first, active)
    # an access that straddles a sector (only unaligned views can) touches two
    both = np.concatenate([first, last], axis=1)
    return _distinct_per_row(both, np.concatenate([active, active], axis=1))


def atomic_sectors_per_warp(addr: np.ndarray, active: np.ndarray, sector_bytes: int = 32) -> np.ndarray:
    """Sector accesses of a global atomic: lanes updating the same address are serialised, so each sector
    costs as many accesses as the most lanes aiming at one address in it (H200: 32 lanes adding to one float
    count 32 sectors, 32 lanes adding to consecutive floats 4)."""
    rows = np.broadcast_to(np.arange(addr.shape[0])[:, None], addr.shape)[active]
    pairs, counts = np.unique(np.stack([rows, addr[active]], axis=1), axis=0, return_counts=True)
    if not counts.size:
        return np.zeros(addr.shape[0], dtype=np.int64)
    # pairs are sorted by (row, address), hence by (row, sector): the worst address of each sector
    sec = np.stack([pairs[:, 0], pairs[:, 1] // sector_bytes], axis=1)
    first = np.ones(len(sec), dtype=bool)
    first[1:] = np.any(sec[1:] != sec[:-1], axis=1)
    starts = np.nonzero(first)[0]
    worst = np.maximum.reduceat(counts, starts)
    return np.bincount(sec[starts, 0], weights=worst, minlength=addr.shape[0]).astype(np.int64)


def _distinct_per_row(keys: np.ndarray, active: np.ndarray) -> np.ndarray:
    if keys.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    lo = np.where(active, keys, _BIG).min(axis=1, keepdims=True)
    rel = keys - lo
    if rel.size and np.where(active, rel, 0).max() < 2**31 - 1:
        rel = rel.astype(np.int32)
        sentinel = np.int32(2**31 - 1)
    else:
        sentinel = _BIG
    rel = np.where(active, rel, sentinel)
    rel.sort(axis=1)
    new = np.empty(rel.shape, dtype=bool)
    new[:, 0] = True
    np.not_equal(rel[:, 1:], rel[:, :-1], out=new[:, 1:])
    new &= rel != sentinel
    return new.sum(axis=1)


def phase_lanes(itemsize: int) -> int:
    """Lanes whose words are gathered together: the warp (<= 4 bytes), a half-warp (8), a quarter-warp (16)."""
    return 32 if itemsize <= 4 else 128 // itemsize


def wavefronts_per_warp(addr: np.ndarray, active: np.ndarray, itemsize: int, banks: int = 32,
                        bank_bytes: int = 4, op: str = "ld", return_conflicts: bool = False):
    """Shared-memory wavefronts of each warp request (rows of 32 lanes). Inactive warps give 0.

    With ``return_conflicts``, also Nsight Compute's bank-conflict count of each request.
    """
    nw = addr.shape[0]
    if nw == 0:
        z = np.zeros(0, dtype=np.int64)
        return (z, z) if return_conflicts else z
    k = max(1, itemsize // bank_bytes)           # words per lane
    g = phase_lanes(itemsize)
    ng = 32 // g
    word = addr // bank_bytes
    if k > 1:
        wordk = (word[:, :, None] + np.arange(k)).reshape(nw, 32 * k)
        actk = np.repeat(active, k, axis=1)
    else:
        wordk, actk = word, active
    cost, ndist, bmask = _max_words_per_bank(wordk.reshape(nw * ng, g * k), actk.reshape(nw * ng, g * k), banks)
    cost = cost.reshape(nw, ng)
    if itemsize == 16 and op == "ld":
        return _wide_load(addr, active, wordk, actk, cost, ndist.reshape(nw, ng), bmask.reshape(nw, ng), banks,
                          bank_bytes, return_conflicts)
    if ng == 1 or op != "ld":
        wf = cost.sum(axis=1)
    else:
        # Loads: adjacent groups (the halves of an 8-byte request, quarters 0+1 and 2+3 of a 16-byte one)
        # share wavefronts when their banks are disjoint or every active lane of the pair reads one address.
        c2 = cost.reshape(nw, ng // 2, 2)
        m2 = bmask.reshape(nw, ng // 2, 2)
        a2 = addr.reshape(nw, ng // 2, 2 * g)
        act2 = active.reshape(nw, ng // 2, 2 * g)
        uniform = np.where(act2, a2, _BIG).min(axis=2) == np.where(act2, a2, -_BIG).max(axis=2)
        disjoint = (m2[:, :, 0] & m2[:, :, 1]) == 0
        wf = np.where(disjoint | uniform, c2.max(axis=2), c2.sum(axis=2)).sum(axis=1)
    if not return_conflicts:
        return wf
    if op == "ld":
        # loads: beyond the wavefronts the active lanes' bytes need at 128 bytes each
        ideal = -(-(active.sum(axis=1) * itemsize) // (banks * bank_bytes))
        conflicts = np.maximum(wf - ideal, 0)
    else:
        # stores: per group, beyond one wavefront per 32 distinct words
        conflicts = (cost - (-(-ndist.reshape(nw, ng) // banks))).sum(axis=1)
    return wf, conflicts


def _wide_load(addr, active, wordk, actk, cost, ndist, bmask, banks, bank_bytes, return_conflicts):
    """Wavefronts (and conflicts) of 16-byte loads: quarter-warps, paired by half-warp.

    The two quarters of a half-warp share their wavefronts when they use disjoint banks, or when together they
    read at most two distinct addresses and no bank holds two of their words (two lanes groups reading
    float4 0 and 1 alternately: 1 wavefront, where quarters 0 1 2 3 repeated cost 2). Conflicts are the
    wavefronts beyond an ideal half-warp: its distinct bytes at 128 per wavefront, and at least one wavefront per
    non-empty quarter unless the quarters read disjoint words or at most two addresses. Checked against the
    H200 on 47 patterns (measurements/h200/patterns/ and classes/: every 16-byte load pattern recorded)."""
    nw = addr.shape[0]
    halves = nw * 2
    ucost, undist, _ = _max_words_per_bank(wordk.reshape(halves, 64), actk.reshape(halves, 64), banks)
    naddr = _distinct_per_row(addr.reshape(halves, 16), active.reshape(halves, 16))
    c2, n2, m2 = cost.reshape(halves, 2), ndist.reshape(halves, 2), bmask.reshape(halves, 2)
    share = ((m2[:, 0] & m2[:, 1]) == 0) | ((ucost <= 1) & (naddr <= 2))
    wf_h = np.where(share, c2.max(axis=1), c2.sum(axis=1))
    wf = wf_h.reshape(nw, 2).sum(axis=1)
    if not return_conflicts:
        return wf
    nq = (n2 > 0).sum(axis=1)
    share_ideal = (undist == n2.sum(axis=1)) | (naddr <= 2)
    ideal = np.where(undist > 0, np.maximum(-(-(undist * bank_bytes) // (banks * bank_bytes)),
                                            np.where(share_ideal, 1, nq)), 0)
    conflicts = np.maximum(wf_h - ideal, 0).reshape(nw, 2).sum(axis=1)
    return wf, conflicts


def _max_words_per_bank(words: np.ndarray, active: np.ndarray, banks: int):
    """For each row: the most distinct words any one bank holds, the number of distinct words, and the
    bitmask of banks used."""
    lo = np.where(active, words, _BIG).min(axis=1, keepdims=True)
    # keep bank identity while shrinking to int32: subtract a multiple of the bank count
    lo = np.where(lo == _BIG, 0, lo // banks * banks)
    rel = words - lo
    sentinel = np.int64(2**62)
    if rel.size and np.where(active, rel, 0).max() < 2**30:
        rel = rel.astype(np.int32)
        sentinel = np.int32(2**31 - 1)
    rel = np.where(active, rel, sentinel)
    rel.sort(axis=1)
    uniq = np.empty(rel.shape, dtype=bool)
    uniq[:, 0] = True
    np.not_equal(rel[:, 1:], rel[:, :-1], out=uniq[:, 1:])
    uniq &= rel != sentinel
    ndist = uniq.sum(axis=1)
    bank = rel % banks
    # distinct banks among distinct words: a bitmask OR over the row (transposed so the reduction is wide)
    bits = np.where(uniq, np.left_shift(np.uint64(1), bank.astype(np.uint64)), np.uint64(0))
    mask = np.bitwise_or.reduce(np.ascontiguousarray(bits.T), axis=0)
    nbanks = np.bitwise_count(mask).astype(np.int64)
    out = np.where(ndist == nbanks, np.minimum(ndist, 1), 0).astype(np.int64)  # conflict-free rows
    out = np.where(nbanks == 1, ndist, out)                                    # one bank: fully serialised
    rest = np.nonzero((ndist != nbanks) & (nbanks > 1))[0]
    if rest.size:
        b = np.where(uniq[rest], bank[rest], banks).astype(np.int64)
        rows = np.arange(rest.size)[:, None] * (banks + 1) + b
        counts = np.bincount(rows.ravel(), minlength=rest.size * (banks + 1)).reshape(rest.size, banks + 1)
        out[rest] = counts[:, :banks].max(axis=1)
    return out, ndist.astype(np.int64), mask


def min_wavefronts(itemsize: int) -> int:
    """Wavefronts of a conflict-free full-warp access of distinct elements: 1, 2 (8-byte) or 4 (16-byte)."""
    return max(1, itemsize // 4)


def warp_wavefronts(byte_addrs, active=None, itemsize: int = 4, banks: int = 32, bank_bytes: int = 4,
                    op: str = "ld") -> int:
    """Wavefronts of one warp's shared access (byte offsets of 32 lanes; ``op`` "ld" or "st")."""
    a = np.asarray(byte_addrs, dtype=np.int64).reshape(1, 32)
    act = np.ones((1, 32), bool) if active is None else np.asarray(active, bool).reshape(1, 32)
    return int(wavefronts_per_warp(a, act, itemsize, banks, bank_bytes, op=op)[0])


def warp_sectors(byte_addrs, active=None, itemsize: int = 4, sector_bytes: int = 32) -> int:
    """Sectors of one warp's global access (byte addresses of 32 lanes)."""
    a = np.asarray(byte_addrs, dtype=np.int64).reshape(1, 32)
    act = np.ones((1, 32), bool) if active is None else np.asarray(active, bool).reshape(1, 32)
    return int(sectors_per_warp(a, act, itemsize, sector_bytes)[0])


@dataclass
class CountPlan:
    """What the compiler did to each instruction site, ``(line, col)``: the counting model applies it.

    ``mode``: "sass" (decided by the kernel's SASS, compiled with nvcc) or "source-rules" (labsim's rules for
    ptxas's common decisions; labsim.cuda.sass documents both).
    ``vector``: shared loads merged into one wider load: site -> (group, position, width). A group is one site
    executed ``width`` times in a row (an unrolled loop reading ``a[k]``, ``a[k+1]``...) with position None, or
    ``width`` sites of one statement (``a[0] + a[1] + ...``) with positions 0..width-1.
    ``branch``: sites behind a branch: warps with no active lane do not execute them (the default is
    predication: every warp that reaches the ``if`` executes the instruction).
    ``aggregate``: integer atomics on a warp-uniform address, which nvcc turns into one lane's atomic.
    """

    mode: str = "source-rules"
    vector: dict = field(default_factory=dict)
    branch: frozenset = frozenset()
    aggregate: frozenset = frozenset()
    vector_st: dict = field(default_factory=dict)   # shared stores merged into STS.64/STS.128, as ``vector``
    union: dict = field(default_factory=dict)       # (line, col, op) -> (group, arm): if/else arms sharing one
    vector_stride: dict = field(default_factory=dict)   # vector site -> s: its group is every s-th execution

    def __repr__(self) -> str:
        return (f"CountPlan({self.mode}: {len(self.vector)} vector sites, {len(self.branch)} branch sites, "
                f"{len(self.aggregate)} aggregated atomics)")


_ALL_ROWS: dict[int, np.ndarray] = {}


def _all_rows(n: int) -> np.ndarray:
    """A read-only all-True row mask of length ``n`` (what ``account`` returns when every row made a request)."""
    rows = _ALL_ROWS.get(n)
    if rows is None:
        rows = np.ones(n, dtype=bool)
        rows.flags.writeable = False
        if len(_ALL_ROWS) < 1024:
            _ALL_ROWS[n] = rows
    return rows


class CountingModel:
    """Turns one instruction's recorded accesses into counters; one instance per launch (per GPU).

    ``account(summary, addr, active, reach)`` is the single entry point the executor calls: ``addr`` and
    ``active`` are (warps, 32) arrays (byte addresses, active lanes), ``reach`` the lanes that reached the
    instruction (``active`` plus lanes predicated off by an ``if``), or None when every lane is active. It adds
    to ``summary`` (an ``InstrSummary``) and returns the rows that made a request, for the caller's sample.
    """

    version = MODEL_VERSION

    def __init__(self, gpu, plan: CountPlan | None = None) -> None:
        self.sector_bytes = gpu.sector_bytes
        self.banks = gpu.banks
        self.bank_bytes = gpu.bank_bytes
        self.plan = plan
        self.mode = plan.mode if plan is not None else "source"   # "source": no compiler decisions applied
        # accesses and patterns seen before (loops repeat them): shared by every launch on the same banks and sectors
        # unless a subclass changes what they cost
        self._memo: dict[tuple, tuple] = (_MEMOS.setdefault((self.banks, self.bank_bytes, self.sector_bytes), {})
                                          if type(self).cost is CountingModel.cost else {})
        # addresses matter only modulo this (banks x bank width, sector size, widest access): see _many_warps
        self._period = math.lcm(self.banks * self.bank_bytes, self.sector_bytes, 16)
        self._pending: dict = {}                # vector groups waiting for their other executions
        # complete vector groups counted before -> what they added: across launches of this very class (a subclass
        # may count differently)
        self._merged: dict = (_MERGES.setdefault((self.banks, self.bank_bytes, self.sector_bytes), {})
                              if type(self) is CountingModel else {})
        self._executions: dict = {}             # executions of strided vector sites, per thread set

    def __repr__(self) -> str:
        return (f"CountingModel(version {self.version}, {self.mode}, {self.banks} banks, "
                f"{self.sector_bytes}-byte sectors)")

    def executed(self, reach: np.ndarray | None, nwarps: int) -> int:
        """Warp-level instructions executed: warps with a lane that reached the instruction."""
        return nwarps if reach is None else int(reach.any(axis=1).sum())

    def cost(self, space: str, op: str, addr: np.ndarray, active: np.ndarray, itemsize: int):
        """(cost per request, bank conflicts per request or None): sectors for global memory, wavefronts for
        shared memory. Rows are requests (warps with an active lane); addresses are multiples of ``itemsize``
        (the executor faults on misaligned accesses)."""
        if space == "global" and op in ("atom", "red"):
            return atomic_sectors_per_warp(addr, active, self.sector_bytes), None
        if space == "global":   # the executor faults on misaligned accesses: every address here is aligned
            return sectors_per_warp(addr, active, itemsize, self.sector_bytes, aligned=True), None
        return wavefronts_per_warp(addr, active, itemsize, self.banks, self.bank_bytes,
                                   op="st" if op == "st" else "ld", return_conflicts=True)

    def account(self, s, addr: np.ndarray, active: np.ndarray, reach: np.ndarray | None,
                warps: np.ndarray | None = None, times: int = 1) -> np.ndarray:
        """Count one instruction (see the class docstring). ``times``: the rows stand for that many blocks, each
        making the same access (shared memory, whose addresses do not depend on the block)."""
        plan = self.plan
        if plan is not None:
            site = (s.line, s.col)
            if site in plan.branch:
                reach = active              # a branch: warps with no active lane skip the instruction
            if plan.union and (s.line, s.col, s.op) in plan.union:
                group, arm = plan.union[(s.line, s.col, s.op)]
                key = (("union",) + group, None if warps is None or not len(warps) else int(warps[0]))
                return self._union(s, key, arm, addr, active, reach)
            vec = plan.vector if s.op == "ld" else (plan.vector_st if s.op == "st" else {})
            if s.space == "shared" and site in vec:
                group, pos, width = vec[site]
                # executions of one group by other thread sets (another warp under the adversarial schedule)
                # never merge: the key names the thread set's first warp
                key = (group, None if warps is None or not len(warps) else int(warps[0]))
                stride = plan.vector_stride.get(site) if plan.vector_stride else None
                if stride:          # executions of one inner iteration form the group: every stride-th one
                    n = self._executions.get(key, 0)
                    self._executions[key] = n + 1
                    key = key + (n % stride,)
                return self._vector(s, (key, pos, width), addr, active, reach, times)
            if s.space == "global" and s.op in ("atom", "red") and site in plan.aggregate:
                # vote + popc + one lane's atomic: only the first active lane of each warp touches memory
                first = np.zeros_like(active)
                rows = active.any(axis=1)
                first[np.nonzero(rows)[0], np.argmax(active[rows], axis=1)] = True
                active = first
        return self._account(s, addr, active, reach, times)

    def _account(self, s, addr, active, reach, times=1) -> np.ndarray:
        nw = addr.shape[0]
        if np.logical_and.reduce(active, axis=None):     # the common case, without per-row reductions
            s.executed += self.executed(reach, nw) * times
            if nw:
                s.requests += nw * times
                s.bytes_requested += nw * WARP * s.itemsize * times
                if nw <= _EXACT_ROWS:
                    cost, conflicts = self._few_warps(s.space, s.op, addr, active, s.itemsize, True)
                else:
                    cost, conflicts = self._many_warps(s.space, s.op, addr, active, s.itemsize, all_active=True)
                s.cost += cost * times
                s.conflicts += conflicts * times
            return _all_rows(nw)
        rows = active.any(axis=1)
        s.executed += self.executed(reach, nw) * times
        nreq = int(rows.sum())
        if not nreq:
            return rows
        if nreq != rows.size:
            addr, active = addr[rows], active[rows]
        s.requests += nreq * times
        s.bytes_requested += int(np.count_nonzero(active)) * s.itemsize * times
        if nreq <= _EXACT_ROWS:
            cost, conflicts = self._few_warps(s.space, s.op, addr, active, s.itemsize, False)
        else:
            cost, conflicts = self._many_warps(s.space, s.op, addr, active, s.itemsize)
        s.cost += cost * times
        s.conflicts += conflicts * times
        return rows

    # ---- vector loads ------------------------------------------------------------------------------------------
    def _vector(self, s, spec, addr, active, reach, times=1) -> np.ndarray:
        """Collect the executions of a vector group; when all ``width`` are in, count the rows whose lanes read
        consecutive elements from a ``width * itemsize``-aligned start as one wide load, the others as scalars."""
        group, pos, width = spec
        # kept without copies: the executor hands over arrays it never changes afterwards
        entry = (s, addr, active, reach, times)
        got = self._pending.setdefault(group, {})
        if got:
            first = next(iter(got.values()))
            if addr.shape[0] * times != first[1].shape[0] * first[4]:
                self._flush_group(group)
                got = self._pending.setdefault(group, {})
        got[len(got) if pos is None else pos] = entry
        if len(got) == width and all(k in got for k in range(width)):
            del self._pending[group]
            self._merge([got[k] for k in range(width)], width)
        return active.any(axis=1)

    def _union(self, s, key, arm, addr, active, reach) -> np.ndarray:
        """The two arms of an if/else touching one location (``if (c) out[i] = a; else out[i] = b;``): ptxas
        emits one instruction before or after the branch, executed once for the lanes of both arms."""
        got = self._pending.setdefault(key, {})
        if arm in got or (got and next(iter(got.values()))[1].shape != addr.shape):
            self._flush_group(key)          # an arm ran alone (a uniform condition): counted as itself
            got = self._pending.setdefault(key, {})
        # the entry as _flush_group takes it (an arm flushed alone is counted once: times 1)
        got[arm] = (s, addr.copy(), active.copy(), None if reach is None else reach.copy(), 1)
        if len(got) == 2:
            del self._pending[key]
            (s0, a0, act0, r0, _), (_, a1, act1, r1, _) = got[0], got[1]
            both = act0 | act1
            reach_u = None if r0 is None or r1 is None else (r0 | r1)
            self._account(s0, np.where(act0, a0, a1), both, reach_u)
        return active.any(axis=1)

    def _merge(self, parts, width: int) -> None:
        """Count a complete vector group (see ``_vector``); a group met before (the same sites, addresses,
        lanes and blocks: an unrolled loop's next tile) adds what it added then."""
        if not MERGE_MEMO or parts[0][1].size > _MERGE_MEMO_LANES:    # a whole unfolded set: not worth keeping
            self._merge_parts(parts, width)
            return
        # sites by where they are (the summaries are the launch's), parts by what they hold
        key = (width,) + tuple(((s.space, s.op, s.line, s.col, s.array, s.itemsize), a.tobytes(), act.tobytes(),
                                None if r is None else r.tobytes(), t) for s, a, act, r, t in parts)
        hit = self._merged.get(key)
        if hit is None:
            if len(self._merged) >= 4096:
                self._merged.clear()
            first = {}                                  # each summary once, by the first part that has it
            for j, p in enumerate(parts):
                first.setdefault(id(p[0]), j)
            before = {j: counts(parts[j][0]) for j in first.values()}
            self._merge_parts(parts, width)
            self._merged[key] = [(j, tuple(n - o for n, o in zip(counts(parts[j][0]), b)))
                                 for j, b in before.items()]
            return
        for j, added in hit:
            add_counts(parts[j][0], *added)

    def _merge_parts(self, parts, width: int) -> None:
        times = parts[0][4]
        if any(p[4] != times for p in parts):
            # some executions stood for several blocks and some did not: spell every one out per block
            parts = [(s, np.tile(a, (t, 1)), np.tile(act, (t, 1)), None if r is None else np.tile(r, (t, 1)), 1)
                     for s, a, act, r, t in parts]
            times = 1
        s0, a0, act0, reach0, _ = parts[0]
        size = s0.itemsize
        ok = (a0 % (size * width) == 0) | ~act0
        for j, (_, a, act, _, _) in enumerate(parts[1:], start=1):
            ok &= (act == act0) & ((a == a0 + j * size) | ~act0)
        rows = ok.all(axis=1)
        if rows.any():
            wide = _WideSite(s0, size * width)
            sub = rows if not rows.all() else slice(None)
            self._account(wide, a0[sub], act0[sub], None if reach0 is None else reach0[sub], times)
            wide.settle()
        if not rows.all():
            for s, a, act, reach, _ in parts:
                self._account(s, a[~rows], act[~rows], None if reach is None else reach[~rows], times)

    def _flush_group(self, group) -> None:
        got = self._pending.pop(group, {})
        for k in sorted(got):
            s, a, act, reach, times = got[k]
            self._account(s, a, act, reach, times)

    def flush(self) -> None:
        """Count any vector group left incomplete (a loop that ended early) as scalar loads. The executor calls it
        after each set of blocks."""
        for group in list(self._pending):
            self._flush_group(group)

    def _many_warps(self, space, op, addr, active, itemsize, all_active=False) -> tuple[int, int]:
        """Summed ``cost`` of several warp requests (every row has an active lane), each distinct access
        *pattern* costed once.

        Warps of a group of blocks mostly repeat one pattern at shifted addresses (a tile row, a column read in
        every block). Every rule here depends only on the addresses modulo the period of the banks and sectors
        (and on which lanes are equal), so rows that are equal after subtracting a multiple of the period from
        each cost the same; a loop meets the same patterns again, so their costs are memoised across calls."""
        nw = addr.shape[0]
        period = self._period
        if all_active:
            base = addr[:, 0]
        else:
            base = addr[np.arange(nw), active.argmax(axis=1)]     # each row's first active lane
        rel = addr - (base - base % period)[:, None]
        if not all_active:
            rel[~active] = _INACTIVE                               # which lanes are off is part of the pattern
        if (rel[1:] == rel[:-1]).all():
            c, k = self._pattern(space, op, rel[:1], itemsize)
            return int(c[0]) * nw, int(k[0]) * nw
        # distinct rows through a hash of each row, checked row by row (a collision only costs speed)
        _, first, inverse = np.unique(rel @ _HASH_WEIGHTS, return_index=True, return_inverse=True)
        uniq = rel[first]
        if first.size * 4 > nw or not (uniq[inverse] == rel).all():
            per, conf = self.cost(space, op, addr, active, itemsize)
            return int(per.sum()), 0 if conf is None else int(conf.sum())
        c, k = self._pattern(space, op, uniq, itemsize)
        times = np.bincount(inverse, minlength=first.size)
        return int(c @ times), int(k @ times)

    def _pattern(self, space, op, rel, itemsize) -> tuple[np.ndarray, np.ndarray]:
        """(cost, conflicts) per row of ``rel`` (period-reduced addresses, _INACTIVE for inactive lanes),
        memoised."""
        key = (space, op, itemsize, rel.tobytes())
        hit = self._memo.get(key)
        if hit is None:
            active = rel != _INACTIVE
            per, conf = self.cost(space, op, np.where(active, rel, 0), active, itemsize)
            hit = (np.asarray(per, dtype=np.int64),
                   np.zeros(rel.shape[0], np.int64) if conf is None else np.asarray(conf, dtype=np.int64))
            if len(self._memo) >= 4096:
                self._memo.clear()
            self._memo[key] = hit
        return hit

    def _few_warps(self, space, op, addr, active, itemsize, all_active) -> tuple[int, int]:
        """Summed ``cost`` of a few warp requests, memoised on their exact addresses: small thread sets (and one
        block standing for a group, see ``account``'s ``times``) repeat their addresses in a loop, and numpy's
        per-call overhead would dominate."""
        key = (space, op, itemsize, addr.tobytes(), None if all_active else active.tobytes())
        hit = self._memo.get(key)
        if hit is None:
            if addr.shape[0] == 1:
                per, conf = self.cost(space, op, addr, active, itemsize)
                hit = (int(per[0]), 0 if conf is None else int(conf[0]))
            else:
                hit = self._many_warps(space, op, addr, active, itemsize, all_active)
            if len(self._memo) >= 4096:
                self._memo.clear()
            self._memo[key] = hit
        return hit


_MERGE_MEMO_LANES = 1024     # vector groups of at most this many lanes per execution are remembered (_merge)
MERGE_MEMO = True            # remember complete vector groups (tests switch it off to compare)
_MERGES: dict[tuple, dict] = {}


NO_COUNTS = (0, 0, 0, 0, 0)        # counts() of a new summary


def counts(s) -> tuple:
    """A site summary's additive counts, in the order ``add_counts`` takes them (what a remembered access added
    is the difference of two of these)."""
    return s.executed, s.requests, s.bytes_requested, s.cost, s.conflicts


def add_counts(s, executed, requests, nbytes, cost, conflicts) -> None:
    s.executed += executed
    s.requests += requests
    s.bytes_requested += nbytes
    s.cost += cost
    s.conflicts += conflicts


class _WideSite:
    """A site's summary seen through a wider element: counts go to the site, costed at ``itemsize`` bytes."""

    def __init__(self, s, itemsize: int) -> None:
        self._s = s
        self.space, self.op, self.itemsize = s.space, s.op, itemsize
        self.executed = self.requests = self.bytes_requested = self.cost = self.conflicts = 0

    def settle(self) -> None:
        s = self._s
        s.executed += self.executed
        s.requests += self.requests
        s.bytes_requested += self.bytes_requested
        s.cost += self.cost
        s.conflicts += self.conflicts
