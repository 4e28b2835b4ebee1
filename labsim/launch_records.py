"""What a launch reports about its memory accesses: per-warp samples, per-instruction totals, races.

The counting rules themselves (sectors, wavefronts, conflicts, what counts as executed) live in
``labsim.model``; the per-warp rule functions are re-exported here for figures and tests.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import (atomic_sectors_per_warp, min_wavefronts, phase_lanes, sectors_per_warp,  # noqa: F401
                    warp_sectors, warp_wavefronts, wavefronts_per_warp)


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
    col: int | None = None      # column of the instruction's site (two accesses on one line differ)

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
        return (f"WarpAccess({self.space} {self.op} {self.array!r} {_site(self.line, self.col)}, block {self.block}, "
                f"warp {self.warp}, {int(self.active.sum())} lanes, {cost})")


@dataclass
class InstrSummary:
    """Totals for one static memory instruction, identified by its site (line, column), space, op, array and
    element size: two accesses on one source line are two instructions, as Nsight Compute's source view shows."""

    space: str
    op: str
    line: int | None
    array: str
    itemsize: int
    col: int | None = None
    executed: int = 0          # warp-level instructions executed (predicated-off warps included)
    requests: int = 0          # warp requests with at least one active lane
    cost: int = 0              # sectors (global) or wavefronts (shared)
    conflicts: int = 0         # shared: wavefronts beyond the conflict-free minimum
    bytes_requested: int = 0
    sample: WarpAccess | None = None

    def __repr__(self) -> str:
        unit = "wavefronts" if self.space == "shared" else "sectors"
        per = self.cost / self.requests if self.requests else 0.0
        return (f"InstrSummary({self.space} {self.op} {self.array!r} {_site(self.line, self.col)}: "
                f"{self.requests} requests, "
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
    shape: tuple[int, ...] | None = None   # the array's declared shape: the place is named tile[1][0]

    @property
    def element(self) -> str:
        """The element as C names it: ``tile[1][0]`` for a 2-D array (flat ``tile[32]`` without a shape)."""
        if not self.shape or len(self.shape) < 2:
            return f"{self.array}[{self.index}]"
        idx, rest = [], self.index
        for dim in reversed(self.shape):
            idx.append(rest % dim)
            rest //= dim
        return self.array + "".join(f"[{i}]" for i in reversed(idx))

    def __str__(self) -> str:
        verb = {"RAW": ("Write", "Read"), "WAR": ("Read", "Write"), "WAW": ("Write", "Write")}[self.kind]
        return (f"Potential {self.kind} hazard at __shared__ {self.element} in block "
                f"{self.block}: {verb[0]} Thread {self.first_thread} at line {self.first_line}, "
                f"{verb[1]} Thread {self.second_thread} at line {self.second_line}")

    __repr__ = __str__


def _site(line, col) -> str:
    return f"line {line}" if col is None else f"line {line}:{col}"
