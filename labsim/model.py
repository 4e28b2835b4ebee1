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
  predicated off by an ``if`` included (the compiler predicates short bodies);
- global: one request per warp instruction with an active lane; sectors = distinct 32-byte segments the
  active lanes touch; atomics serialise lanes hitting one address (each sector costs the most lanes aiming
  at one address in it).
- shared: 32 banks of 4 bytes. Lanes are gathered in groups: the whole warp for accesses of up to 4 bytes,
  half-warps for 8-byte and quarter-warps for 16-byte accesses. A group costs as many wavefronts as the most
  distinct 4-byte words any one bank must deliver (lanes reading the same word share it: a broadcast); an
  empty group costs nothing. Two adjacent groups (the halves of an 8-byte request; quarters 0+1 and 2+3 of a
  16-byte one) share their wavefronts when they use disjoint banks or all their active lanes read one address.
  Nsight Compute's bank-conflict counter is, for a load, the wavefronts beyond what the active lanes' bytes
  need at 128 bytes per wavefront (never negative); for a store, the wavefronts beyond one per non-empty
  group. Checked on an H200 over 471 one-warp patterns of 2-, 4-,
  8- and 16-byte accesses (measurements/h200/patterns/): e.g. 32 lanes reading one double cost 1 wavefront,
  one float4 2, and a conflict-free float4 read 4. Stores never share wavefronts between groups.
  Shared atomics are costed as a load of the same addresses.

Limitations (departures measured on the H200, measurements/h200/README.md "Round 2"): the model counts what
the addresses need, as ncu's per-instruction source counters do (equal at every size measured). ncu's
hardware counter of shared-memory wavefronts adds a timing-dependent excess when the kernel streams global
memory at the same time: the tiled transposes' loads at 1024², 2048², 4096², 8192² show 0%, 6.0%, 8.0% and
8.1% more wavefronts than the model for the padded tile (1.1% for the unpadded one at 8192²), 15% at 8192²
with two blocks per SM, 16% for a variant without global loads; the model does not reproduce this excess.
The compiler's rewrites are not modelled either: four scalar reads of a 16-byte-aligned row merged into one
``LDS.128``, warp-aggregated integer atomics, branches instead of predication (measured in
measurements/h200/classes/).
"""
from __future__ import annotations

import numpy as np

# Version of the counting model. Bump it whenever a rule here changes a counter, so that receipts and
# recorded reports made under another model are re-checked, not trusted.
MODEL_VERSION = "1"

_BIG = np.int64(1) << 40


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


class CountingModel:
    """Turns one instruction's recorded accesses into counters; one instance per launch (per GPU).

    ``account(summary, addr, active, reach)`` is the single entry point the executor calls: ``addr`` and
    ``active`` are (warps, 32) arrays (byte addresses, active lanes), ``reach`` the lanes that reached the
    instruction (``active`` plus lanes predicated off by an ``if``), or None when every lane is active. It adds
    to ``summary`` (an ``InstrSummary``) and returns the rows that made a request, for the caller's sample.
    """

    version = MODEL_VERSION

    def __init__(self, gpu) -> None:
        self.sector_bytes = gpu.sector_bytes
        self.banks = gpu.banks
        self.bank_bytes = gpu.bank_bytes
        self._memo: dict[tuple, tuple] = {}     # one-warp accesses seen before (loops repeat them)

    def __repr__(self) -> str:
        return f"CountingModel(version {self.version}, {self.banks} banks, {self.sector_bytes}-byte sectors)"

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

    def account(self, s, addr: np.ndarray, active: np.ndarray, reach: np.ndarray | None) -> np.ndarray:
        rows = active.any(axis=1)
        s.executed += self.executed(reach, addr.shape[0])
        nreq = int(rows.sum())
        if not nreq:
            return rows
        if nreq != rows.size:
            addr, active = addr[rows], active[rows]
        s.requests += nreq
        s.bytes_requested += int(np.count_nonzero(active)) * s.itemsize
        if nreq == 1:
            cost, conflicts = self._one_warp(s.space, s.op, addr, active, s.itemsize)
        else:
            per, conf = self.cost(s.space, s.op, addr, active, s.itemsize)
            cost, conflicts = int(per.sum()), 0 if conf is None else int(conf.sum())
        s.cost += cost
        s.conflicts += conflicts
        return rows

    def _one_warp(self, space, op, addr, active, itemsize) -> tuple[int, int]:
        """``cost`` of a single warp request, memoised: small thread sets in a loop repeat their addresses, and
        numpy's per-call overhead would dominate."""
        key = (space, op, itemsize, addr.tobytes(), active.tobytes())
        hit = self._memo.get(key)
        if hit is None:
            per, conf = self.cost(space, op, addr, active, itemsize)
            hit = (int(per[0]), 0 if conf is None else int(conf[0]))
            if len(self._memo) >= 4096:
                self._memo.clear()
            self._memo[key] = hit
        return hit
