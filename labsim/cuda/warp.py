"""Warp-level primitives: shuffles, votes, ``__reduce_*_sync``, ``__syncwarp``, ``__activemask``.

The interpreter runs a thread set whose lanes are whole warps (32 consecutive entries of every per-thread
array), so each primitive is a gather or a reduction over rows of 32, for every warp at once (numpy, no loop
per thread). Semantics follow the CUDA Programming Guide and PTX's ``shfl.sync`` pseudo-code: with
``width`` w (a power of two), lanes form segments of w; ``__shfl_up_sync`` and ``__shfl_down_sync`` keep the
caller's own value when the source falls outside its segment; ``__shfl_xor_sync`` may read an earlier segment
but keeps its own value for a later one; ``__shfl_sync`` reads lane ``srcLane % w`` of the caller's segment.

Where the hardware is undefined labsim stops with a ``WarpSyncError`` naming the intrinsic, the line and the
lane: the calling lane is not in its ``mask``; a lane named in the mask (that has not exited) does not execute
this intrinsic here, or with another mask; a shuffle reads a lane that does not take part (inactive, exited,
or outside the mask); ``width`` is not a power of two from 1 to 32.

Shuffles and votes are not memory instructions: no memory counter changes.
"""
from __future__ import annotations

import numpy as np

from .errors import CudaRuntimeError

WARP = 32
FULL = np.uint32(0xFFFFFFFF)
_BIT = (np.uint64(1) << np.arange(WARP, dtype=np.uint64)).astype(np.uint64)


class WarpSyncError(CudaRuntimeError):
    """A warp-synchronous intrinsic used where the GPU's behaviour is undefined (mask, divergence, source lane)."""


class Undefined(Exception):
    """Raised by the functions below; the caller turns it into a WarpSyncError at the source line."""

    def __init__(self, lane: int, message: str) -> None:
        super().__init__(message)
        self.lane = lane
        self.message = message


def lane_ids(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.int64) % WARP


def bits_of(rows: np.ndarray) -> np.ndarray:
    """(warps, 32) bools -> (warps,) uint32 with bit k set where lane k is True."""
    return (rows.astype(np.uint64) * _BIT).sum(axis=1).astype(np.uint32)


def per_lane(v, n: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(v), (n,))


def participants(mask, act: np.ndarray, live: np.ndarray, what: str) -> np.ndarray:
    """Each lane's mask as (n,) uint32, after checking the rules every ``*_sync`` intrinsic shares.

    ``act``: lanes executing this call; ``live``: lanes that exist and have not exited (a lane named in a mask
    that has exited is allowed, as the Programming Guide says: "all non-exited threads named in mask")."""
    n = act.size
    m = per_lane(np.asarray(mask).astype(np.uint32), n)
    lane = lane_ids(n)
    mine = ((m >> lane.astype(np.uint32)) & 1).astype(bool)
    bad = act & ~mine
    if bad.any():
        i = int(np.argmax(bad))
        raise Undefined(i, f"{what}: the mask 0x{int(m[i]):08x} does not include the calling lane {lane[i]} "
                        "(undefined on the GPU: a lane must name itself)")
    actbits = np.repeat(bits_of(act.reshape(-1, WARP)), WARP)
    livebits = np.repeat(bits_of(live.reshape(-1, WARP)), WARP)
    missing = m & livebits & ~actbits
    bad = act & (missing != 0)
    if bad.any():
        i = int(np.argmax(bad))
        k = int(np.log2(int(missing[i]) & -int(missing[i])))
        raise Undefined(i, f"{what}: lane {k} is named in the mask 0x{int(m[i]):08x} of lane {lane[i]} but does "
                        "not execute this call here (divergent lanes must all reach the same intrinsic: undefined "
                        "on the GPU)")
    if np.ndim(mask) and act.any() and not np.all(m[act] == m[act][0]):
        # every participant must pass the same mask: lane k in lane i's mask with another mask of its own
        rows = m.reshape(-1, WARP)
        same = rows[:, :, None] == rows[:, None, :]                      # (warps, i, k)
        named = ((rows[:, :, None] >> np.arange(WARP, dtype=np.uint32)) & 1).astype(bool)
        wrong = named & ~same & act.reshape(-1, WARP)[:, None, :] & act.reshape(-1, WARP)[:, :, None]
        if wrong.any():
            w, i, k = (int(x) for x in np.argwhere(wrong)[0])
            raise Undefined(w * WARP + i, f"{what}: lanes {i} and {k} pass different masks (0x{int(rows[w, i]):08x}"
                            f", 0x{int(rows[w, k]):08x}) to one call (undefined on the GPU)")
    return np.array(m, dtype=np.uint32)


def shuffle(mode: str, v, b, width, mask, act: np.ndarray, live: np.ndarray, what: str) -> np.ndarray:
    """``__shfl{,_up,_down,_xor}_sync`` for every lane (mode "idx", "up", "down", "bfly")."""
    n = act.size
    m = participants(mask, act, live, what)
    w = per_lane(np.asarray(width).astype(np.int64), n)
    badw = act & ((w < 1) | (w > WARP) | ((w & (w - 1)) != 0))
    if badw.any():
        i = int(np.argmax(badw))
        raise Undefined(i, f"{what}: width {int(w[i])} is not a power of two from 1 to 32")
    lane = lane_ids(n)
    bval = per_lane(np.asarray(b).astype(np.int64), n) & 31
    seg = WARP - w                                   # PTX's segmask (c[12:8])
    lo = lane & seg
    if mode == "up":
        j = lane - bval
        ok = j >= lo
    else:
        hi = lo | (31 & ~seg)
        j = {"down": lambda: lane + bval, "bfly": lambda: lane ^ bval, "idx": lambda: lo | (bval & ~seg)}[mode]()
        ok = j <= hi
    j = np.where(ok, j, lane)
    src = np.arange(n, dtype=np.int64) - lane + j
    takes = ((m >> j.astype(np.uint32)) & 1).astype(bool) & act[src]
    bad = act & ~takes
    if bad.any():
        i = int(np.argmax(bad))
        state = "inactive here" if live[src[i]] else "exited or not a thread of the block"
        raise Undefined(i, f"{what}: lane {lane[i]} reads lane {int(j[i])}, which does not take part (it is "
                        f"{'outside the mask 0x%08x' % int(m[i]) if act[src[i]] else state}): the value is "
                        "undefined on the GPU")
    return per_lane(v, n)[src]


def ballot(pred, mask, act, live, what: str) -> np.ndarray:
    n = act.size
    m = participants(mask, act, live, what)
    p = per_lane(np.asarray(pred).astype(bool), n) & act
    return np.repeat(bits_of(p.reshape(-1, WARP)), WARP) & m


def vote(kind: str, pred, mask, act, live, what: str) -> np.ndarray:
    """``__any_sync`` / ``__all_sync``: int 1 or 0 per lane."""
    n = act.size
    m = participants(mask, act, live, what)
    p = per_lane(np.asarray(pred).astype(bool), n) & act
    got = np.repeat(bits_of(p.reshape(-1, WARP)), WARP) & m
    inm = np.repeat(bits_of(act.reshape(-1, WARP)), WARP) & m
    return ((got != 0) if kind == "any" else (got == inm)).astype(np.int32)


def activemask(act: np.ndarray) -> np.ndarray:
    return np.repeat(bits_of(act.reshape(-1, WARP)), WARP)


def reduce(op: str, v, mask, act, live, what: str, dtype) -> np.ndarray:
    """``__reduce_{add,min,max,and,or,xor}_sync`` over the lanes of each lane's mask (sm_80+)."""
    n = act.size
    m = participants(mask, act, live, what)
    vals = per_lane(np.asarray(v).astype(dtype), n).reshape(-1, WARP)
    rows = np.repeat(vals, WARP, axis=0)                                   # (n, 32): lane i's warp
    named = ((m[:, None] >> np.arange(WARP, dtype=np.uint32)) & 1).astype(bool)
    named &= np.repeat(act.reshape(-1, WARP), WARP, axis=0)
    info = np.iinfo(dtype)
    ident = {"add": 0, "min": info.max, "max": info.min, "and": info.max if info.min == 0 else -1, "or": 0,
             "xor": 0}[op]
    x = np.where(named, rows, np.asarray(ident).astype(dtype))
    if op == "add":     # wraps around like the 32-bit hardware sum
        return x.astype(np.uint64 if info.min == 0 else np.int64).sum(axis=1).astype(dtype)
    fn = {"min": np.min, "max": np.max}.get(op)
    if fn is not None:
        return fn(x, axis=1)
    ufunc = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    return ufunc.reduce(x, axis=1)


def syncwarp(mask, act, live, what: str) -> None:
    participants(mask, act, live, what)
