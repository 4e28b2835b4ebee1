"""Analyses that consume access events: global sectors, shared wavefronts, races.

Every function works on a whole memory instruction at once: ``addr`` and ``active`` are shaped
(warps, 32), one row per warp request. Python work is per instruction, never per lane.

The model (checked against an H200 with Nsight Compute, see measurements/h200/):
- global: one request per warp instruction with an active lane; sectors = distinct 32-byte segments the
  active lanes touch.
- shared: 32 banks of 4 bytes. 1-, 2- and 4-byte accesses are served for the whole warp at once; 8-byte
  accesses per half-warp and 16-byte accesses per quarter-warp (each phase moves at most 128 bytes). A phase
  costs as many wavefronts as the most distinct 4-byte words any one bank must deliver (same word = broadcast);
  a phase with no active lane costs nothing.
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
    """Lanes served together in one phase: 32 for <= 4-byte accesses, 16 for 8-byte, 8 for 16-byte."""
    return 32 if itemsize <= 4 else 128 // itemsize


def wavefronts_per_warp(addr: np.ndarray, active: np.ndarray, itemsize: int, banks: int = 32,
                        bank_bytes: int = 4, return_phases: bool = False):
    """Shared-memory wavefronts of each warp request (rows of 32 lanes). Inactive warps give 0.

    With ``return_phases``, also the number of phases with an active lane (the conflict-free cost).
    """
    nw = addr.shape[0]
    if nw == 0:
        z = np.zeros(0, dtype=np.int64)
        return (z, z) if return_phases else z
    k = max(1, itemsize // bank_bytes)           # words per lane
    per_phase = phase_lanes(itemsize)
    nphase = 32 // per_phase
    word = addr // bank_bytes
    if k > 1:
        word = word[:, :, None] + np.arange(k)
        act = np.repeat(active[:, :, None], k, axis=2)
    else:
        act = active
    groups = word.reshape(nw * nphase, per_phase * k)
    gact = act.reshape(nw * nphase, per_phase * k)
    per_group = _max_words_per_bank(groups, gact, banks).reshape(nw, nphase)
    if return_phases:
        return per_group.sum(axis=1), (per_group > 0).sum(axis=1)
    return per_group.sum(axis=1)


def _max_words_per_bank(words: np.ndarray, active: np.ndarray, banks: int) -> np.ndarray:
    """For each row, the most distinct words any one bank holds (0 for a row with no active entry)."""
    g = words.shape[0]
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
    return out


def min_wavefronts(itemsize: int) -> int:
    """Wavefronts of a conflict-free full-warp access: 1, 2 (8-byte) or 4 (16-byte)."""
    return 32 // phase_lanes(itemsize)


def warp_wavefronts(byte_addrs, active=None, itemsize: int = 4, banks: int = 32, bank_bytes: int = 4) -> int:
    """Wavefronts of one warp's shared access (byte offsets of 32 lanes)."""
    a = np.asarray(byte_addrs, dtype=np.int64).reshape(1, 32)
    act = np.ones((1, 32), bool) if active is None else np.asarray(active, bool).reshape(1, 32)
    return int(wavefronts_per_warp(a, act, itemsize, banks, bank_bytes)[0])


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
        return warp_wavefronts(self.addr, self.active, self.itemsize, self.banks_n, self.bank_bytes)

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
