"""Analyses that consume access events: global sectors, shared wavefronts, races.

Every function works on a whole memory instruction at once: ``addr`` and ``active`` are shaped
(warps, 32), one row per warp request. Python work is per instruction, never per lane.

The model (checked against an H200 with Nsight Compute, see measurements/h200/):
- global: one request per warp instruction with an active lane; sectors = distinct 32-byte segments the
  active lanes touch.
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
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

_BIG = np.int64(1) << 40


def sectors_per_warp(addr: np.ndarray, active: np.ndarray, itemsize: int, sector_bytes: int = 32) -> np.ndarray:
    """Distinct sectors touched by the active lanes of each warp (rows). Inactive warps give 0."""
    first = addr // sector_bytes
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


@dataclass
class WarpAccess:
    """One warp's execution of one memory instruction: what each lane touched.

    ``addr`` holds byte addresses (global: device addresses; shared: offsets in the block's shared window).
    """

    space: str
    op: str
    line: int | None
    array: str
    itemsize: int
    block: tuple[int, int, int]
    warp: int
    active: np.ndarray
    addr: np.ndarray
    banks_n: int = 32
    bank_bytes: int = 4
    sector_bytes: int = 32

    @property
    def words(self) -> np.ndarray:
        return self.addr // self.bank_bytes

    @property
    def banks(self) -> np.ndarray:
        return self.words % self.banks_n

    @property
    def wavefronts(self) -> int:
        return warp_wavefronts(self.addr, self.active, self.itemsize, self.banks_n, self.bank_bytes,
                               "st" if self.op == "st" else "ld")

    @property
    def sectors(self) -> int:
        return warp_sectors(self.addr, self.active, self.itemsize, self.sector_bytes)

    def bank_matrix(self) -> np.ndarray:
        """Lanes × banks (32 × banks) int matrix: how many 4-byte words each lane reads from each bank."""
        m = np.zeros((32, self.banks_n), dtype=np.int64)
        k = max(1, self.itemsize // self.bank_bytes)
        for j in range(k):  # k <= 4 words per lane
            b = (self.words + j) % self.banks_n
            np.add.at(m, (np.arange(32)[self.active], b[self.active]), 1)
        return m

    def sector_ids(self) -> np.ndarray:
        """Each lane's sector, relative to the lowest sector the warp touched (-1 for inactive lanes)."""
        s = self.addr // self.sector_bytes
        lo = s[self.active].min() if self.active.any() else 0
        return np.where(self.active, s - lo, -1)

    def __repr__(self) -> str:
        cost = f"{self.wavefronts} wavefronts" if self.space == "shared" else f"{self.sectors} sectors"
        return (f"WarpAccess({self.space} {self.op} {self.array!r} line {self.line}, block {self.block}, "
                f"warp {self.warp}, {int(self.active.sum())} lanes, {cost})")


@dataclass
class InstrSummary:
    """Totals for one static memory instruction (space, op, line, array, element size)."""

    space: str
    op: str
    line: int | None
    array: str
    itemsize: int
    executed: int = 0          # warp-level instructions executed (predicated-off warps included)
    requests: int = 0          # warp requests with at least one active lane
    cost: int = 0              # sectors (global) or wavefronts (shared)
    conflicts: int = 0         # shared: wavefronts beyond the conflict-free minimum
    bytes_requested: int = 0
    hist: dict[int, int] = field(default_factory=dict)   # cost per request -> number of requests
    sample: WarpAccess | None = None

    def __repr__(self) -> str:
        unit = "wavefronts" if self.space == "shared" else "sectors"
        per = self.cost / self.requests if self.requests else 0.0
        return (f"InstrSummary({self.space} {self.op} {self.array!r} line {self.line}: {self.requests} requests, "
                f"{self.cost} {unit} ({per:.2f}/request))")


@dataclass
class Race:
    """A shared-memory hazard between threads of different warps with no barrier between them."""

    kind: str                      # "RAW", "WAR" or "WAW"
    array: str
    index: int
    block: tuple[int, int, int]
    first_thread: tuple[int, int, int]
    first_line: int | None
    second_thread: tuple[int, int, int]
    second_line: int | None

    def __str__(self) -> str:
        verb = {"RAW": ("Write", "Read"), "WAR": ("Read", "Write"), "WAW": ("Write", "Write")}[self.kind]
        return (f"Potential {self.kind} hazard at __shared__ {self.array}[{self.index}] in block "
                f"{self.block}: {verb[0]} Thread {self.first_thread} at line {self.first_line}, "
                f"{verb[1]} Thread {self.second_thread} at line {self.second_line}")

    __repr__ = __str__
