"""Memory spaces: the device address space of global arrays, shared arrays, and the element types labsim models.

Device memory is addressed like cudaMalloc's: every distinct numpy buffer gets a 256-byte aligned base in one
virtual address space, and views of a buffer (slices, ``.view(FLOAT4)``) share it, so an offset view really is
misaligned and two views of one buffer alias.
"""
from __future__ import annotations

import numpy as np

from .errors import MemoryArgumentError, UnsupportedError

FLOAT2 = np.dtype([("x", "<f4"), ("y", "<f4")])
FLOAT4 = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("w", "<f4")])
INT2 = np.dtype([("x", "<i4"), ("y", "<i4")])
INT4 = np.dtype([("x", "<i4"), ("y", "<i4"), ("z", "<i4"), ("w", "<i4")])
DOUBLE2 = np.dtype([("x", "<f8"), ("y", "<f8")])

_SCALAR_KINDS = {"f": (2, 4, 8), "i": (1, 2, 4, 8), "u": (1, 2, 4, 8)}
DEVICE_HEAP_BASE = 0x7F00_0000_0000
ALLOC_ALIGN = 256
SHARED_ALIGN = 128


def check_dtype(dtype: np.dtype, what: str = "array") -> np.dtype:
    """Accept the element types a GPU load/store moves in one access: 1, 2, 4, 8 or 16 bytes."""
    dtype = np.dtype(dtype)
    if dtype.kind in _SCALAR_KINDS and dtype.itemsize in _SCALAR_KINDS[dtype.kind]:
        return dtype
    if dtype.kind == "V" and dtype.itemsize in (1, 2, 4, 8, 16):
        return dtype  # raw 16-byte elements (the seed's view("V16")) and vector types (char2 ... float4, double2)
    raise UnsupportedError(
        f"unsupported element type {dtype} for {what}: labsim models float16/32/64, int8/16/32/64, uint8/16/32/64 "
        "and 8- or 16-byte vector elements (float2, float4, int2, int4, V16)")


def _root(arr: np.ndarray) -> np.ndarray:
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


class AddressSpace:
    """Assigns each distinct host buffer a 256-byte aligned device base address, as cudaMalloc would."""

    def __init__(self) -> None:
        self._bases: dict[int, tuple[int, np.ndarray]] = {}
        self._next = DEVICE_HEAP_BASE

    def base_of(self, arr: np.ndarray) -> int:
        root = _root(arr)
        entry = self._bases.get(id(root))
        if entry is None:
            entry = (self._next, root)  # keep root alive so its id is not reused
            self._bases[id(root)] = entry
            size = max(int(root.nbytes), 1)
            self._next += (size + 2 * ALLOC_ALIGN - 1) // ALLOC_ALIGN * ALLOC_ALIGN
        return entry[0] + (arr.__array_interface__["data"][0] - root.__array_interface__["data"][0])

    def __repr__(self) -> str:
        return f"AddressSpace({len(self._bases)} buffers)"


def as_device_array(arr: object, name: str) -> np.ndarray:
    """Validate a global-memory argument and return it flattened (a view, never a copy)."""
    if isinstance(arr, SharedArray):
        raise MemoryArgumentError(f"{name} is a shared array: use blk.sload/blk.sstore for shared memory",
                                  array=name)
    if not isinstance(arr, np.ndarray):
        raise MemoryArgumentError(
            f"{name} is a {type(arr).__name__}, not a numpy array: device memory must be a numpy array "
            "(e.g. np.asarray(x, dtype=np.float32))", array=name)
    if not arr.flags.c_contiguous:
        raise MemoryArgumentError(
            f"{name} is not C-contiguous (shape {arr.shape}, strides {arr.strides}): device buffers are "
            "contiguous; pass np.ascontiguousarray(...)", array=name)
    check_dtype(arr.dtype, name)
    return arr.reshape(-1)


class SharedArray:
    """A __shared__ array: one copy per block of a group of blocks (a thread set), laid out at ``offset`` bytes in
    the block's shared window.

    Contents start as 0xFF bytes (NaN for floats, -1 for ints): uninitialised shared memory holds garbage on a
    GPU, and a visible poison makes a read-before-write show up in the result.
    """

    def __init__(self, name: str, shape: tuple[int, ...], dtype: np.dtype, nblocks: int, offset: int) -> None:
        self.name = name
        self.shape = shape
        self.dtype = dtype
        self.size = int(np.prod(shape, dtype=np.int64))
        self.offset = offset
        self.nbytes = self.size * dtype.itemsize
        self.data = np.full((nblocks, self.size * dtype.itemsize), 0xFF, dtype=np.uint8).view(dtype)
        self.flat = self.data.reshape(-1)
        # race-detection shadow, per element (see races.RaceTracker)
        self.shadow: dict[str, np.ndarray] | None = None
        self.set_index = 0          # the thread set (group of blocks) the contents belong to

    def reset(self) -> None:
        """Garbage again: the array as the next group of blocks finds it (the race shadow is race_detection.py's)."""
        self.data.view(np.uint8).fill(0xFF)

    def block(self, b: int) -> np.ndarray:
        """This array's contents in block ``b`` of the current group of blocks, shaped as declared."""
        return self.data[b].reshape(self.shape)

    def __repr__(self) -> str:
        return f"SharedArray({self.name!r}, shape={self.shape}, dtype={self.dtype}, offset={self.offset})"
