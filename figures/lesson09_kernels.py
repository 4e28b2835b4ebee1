"""Small labsim kernels (Python kernel API) behind the lesson's figures and tables.

``transpose_tiled`` mirrors the lesson's CUDA kernel statement for statement (32×32 tile, 32×8 threads, four
rows per thread, bounds guards, swapped block indices), with switches for the variants the lesson compares:
padding, XOR swizzle, the barrier and each bounds guard. ``tile_access`` runs one warp over one tile read or
write, for the heatmaps and the explorer.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from labsim import launch
from labsim.launch_records import InstrSummary, WarpAccess
from labsim.memory import FLOAT4
from labsim.stats import Stats

TILE_DIM = 32
BLOCK_ROWS = 8
DTYPES = {"float32": np.float32, "float16": np.float16, "float64": np.float64}
CTYPES = {"float32": "float", "float16": "__half", "float64": "double"}


def copy_kernel(blk, inp, out, M, N):
    """B = A with the tiled kernel's thread layout: the baseline both sides of a transpose aim for."""
    x = blk.bx * TILE_DIM + blk.tx
    y = blk.by * TILE_DIM + blk.ty
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        with blk.where((y + j < M) & (x < N)):
            v = blk.load(inp, (y + j) * N + x, name="input")
            blk.store(out, (y + j) * N + x, v, name="output")


def transpose_naive(blk, inp, out, M, N):
    """Lesson 8's transpose: reads a row of ``input``, writes a column of ``output`` (stride M floats)."""
    x = blk.bx * TILE_DIM + blk.tx
    y = blk.by * TILE_DIM + blk.ty
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        with blk.where((y + j < M) & (x < N)):
            v = blk.load(inp, (y + j) * N + x, name="input")
            blk.store(out, x * M + (y + j), v, name="output")


def transpose_tiled(blk, inp, out, M, N, pad=1, swizzle=False, sync=True, guard_in=True, guard_out="swapped",
                    side="read"):
    """The lesson's tiled transpose. ``guard_out``: "swapped" (row < N && col < M, correct), "unswapped"
    (the input's guard reused by mistake) or None (no guard). ``side="write"`` moves the row/column swap to
    the tile store (``tile[tx][ty + j] = ...``, then a row read ``tile[ty + j][tx]``): Q1's variant."""
    if side not in ("read", "write"):
        raise ValueError(f"side must be 'read' or 'write', got {side!r}")
    if side == "write" and swizzle:
        raise ValueError("side='write' is not combined with the swizzle")
    ld = TILE_DIM + pad
    tile = blk.shared((TILE_DIM, ld), np.float32, name="tile")
    x = blk.bx * TILE_DIM + blk.tx
    y = blk.by * TILE_DIM + blk.ty
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        row, col = y + j, x
        ok = (row < M) & (col < N) if guard_in else np.ones_like(blk.active)
        with blk.where(ok):
            r, c = (blk.ty + j, blk.tx) if side == "read" else (blk.tx, blk.ty + j)
            c = c ^ r if swizzle else c
            v = blk.load(inp, row * N + col, name="input")
            blk.sstore(tile, r * ld + c, v, name="tile")
    if sync:
        blk.sync()
    x = blk.by * TILE_DIM + blk.tx          # swapped block indices: this block writes tile (by, bx)
    y = blk.bx * TILE_DIM + blk.ty
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        row, col = y + j, x
        if guard_out == "swapped":
            ok = (row < N) & (col < M)
        elif guard_out == "unswapped":
            ok = (row < M) & (col < N)
        else:
            ok = np.ones_like(blk.active)
        with blk.where(ok):
            r, c = (blk.tx, blk.ty + j) if side == "read" else (blk.ty + j, blk.tx)
            c = c ^ r if swizzle else c
            v = blk.sload(tile, r * ld + c, name="tile")
            blk.store(out, row * M + col, v, name="output")


KERNELS = {"copy": copy_kernel, "naive": transpose_naive, "tiled": transpose_tiled}


def run_transpose(kind: str, M: int, N: int, *, seed: int = 0, schedule: str = "lockstep",
                  **options: Any) -> tuple[Stats, np.ndarray, np.ndarray]:
    """Launch one of :data:`KERNELS` on a random M×N float32 matrix; returns (stats, input, output)."""
    if kind not in KERNELS:
        raise ValueError(f"unknown kernel {kind!r}; choose one of {', '.join(KERNELS)}")
    if M <= 0 or N <= 0:
        raise ValueError(f"matrix shape must be positive, got {M}×{N}")
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((M, N)).astype(np.float32)
    b = np.zeros((M, N) if kind == "copy" else (N, M), dtype=np.float32)
    grid = (-(-N // TILE_DIM), -(-M // TILE_DIM))
    kern = KERNELS[kind]

    def kernel(blk, input, output, M, N):
        kern(blk, input, output, M, N, **options)

    stats = launch(kernel, grid=grid, block=(TILE_DIM, BLOCK_ROWS), args=(a, b, M, N), schedule=schedule,
                   name=f"transpose_{kind}" if kind != "copy" else "copy")
    return stats, a, b


def instr(stats: Stats, space: str, op: str) -> InstrSummary:
    """The one instruction of ``stats`` in this space with this op (the kernels above have one each)."""
    return stats.instruction(space=space, op=op)


def per_request(s: InstrSummary) -> float:
    """Sectors or wavefronts per warp request of one instruction."""
    return s.cost / s.requests if s.requests else 0.0


def tile_access(pad: int = 0, dtype: str = "float32", access: str = "column", swizzle: bool = False,
                index: int = 0, op: str = "ld") -> WarpAccess:
    """One warp reading (or writing) ``T tile[32][32 + pad]`` along a column or a row, on labsim.

    ``access="column"``: lane k touches ``tile[k][index]`` (the transposed read); ``"row"``: lane k touches
    ``tile[index][k]``. With ``swizzle`` the column actually used is ``col ^ row`` (an XOR swizzle: no padding,
    every row a permutation of the banks). Returns the warp's ``WarpAccess``.
    """
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if access not in ("column", "row"):
        raise ValueError(f"access must be 'column' or 'row', got {access!r}")
    if not 0 <= int(pad) <= 32:
        raise ValueError(f"pad must be between 0 and 32 elements, got {pad}")
    if not 0 <= int(index) < TILE_DIM:
        raise ValueError(f"index must be a row/column of the tile (0..31), got {index}")
    if op not in ("ld", "st"):
        raise ValueError(f"op must be 'ld' or 'st', got {op!r}")
    ld = TILE_DIM + int(pad)

    def kernel(blk):
        tile = blk.shared((TILE_DIM, ld), DTYPES[dtype], name="tile")
        r, c = (blk.lane, np.full_like(blk.lane, index)) if access == "column" else \
            (np.full_like(blk.lane, index), blk.lane)
        if swizzle:
            c = c ^ r
        if op == "ld":
            blk.sload(tile, r * ld + c, name="tile", line=1)
        else:
            blk.sstore(tile, r * ld + c, 0, name="tile", line=1)

    stats = launch(kernel, grid=1, block=32, name="tile_access")
    return stats.instructions[0].sample


def float4_access(pad: int = 0, pattern: str = "rows", row: int = 0, col4: int = 0) -> WarpAccess:
    """One warp reading ``float tile[32][32 + pad]`` as float4 (16 bytes per lane), on labsim.

    ``pattern="rows"``: eight lanes per row, rows ``row .. row+3`` (the warp covers four whole rows);
    ``"column"``: lane k reads ``tile[k][4*col4 .. 4*col4+3]``; ``"column_swizzled"``: the same with the
    16-byte chunk index XORed with ``k % 8`` (chunk swizzle, as CuTe-style layouts do: each float4 stays
    whole). Raises labsim's MisalignedAddressError when a 16-byte address
    is not a multiple of 16, as the GPU faults on it ("misaligned address").
    """
    if pattern not in ("rows", "column", "column_swizzled"):
        raise ValueError(f"pattern must be 'rows', 'column' or 'column_swizzled', got {pattern!r}")
    if pattern == "rows" and not 0 <= int(row) <= TILE_DIM - 4:
        raise ValueError(f"row must be 0..{TILE_DIM - 4} (the warp covers four rows), got {row}")
    ld = TILE_DIM + int(pad)

    def kernel(blk):
        tile = blk.shared((TILE_DIM, ld), np.float32, name="tile")
        if pattern == "rows":
            r, c = row + blk.lane // 8, 4 * (blk.lane % 8)
        elif pattern == "column":
            r, c = blk.lane, np.full_like(blk.lane, 4 * int(col4))
        else:
            r, c = blk.lane, 4 * (int(col4) ^ (blk.lane % 8))
        blk.sload(tile, (r * ld + c) * 4, name="tile", view=FLOAT4, line=1)   # byte offset of &tile[r][c]

    stats = launch(kernel, grid=1, block=32, name="float4_read")
    return stats.instructions[0].sample
