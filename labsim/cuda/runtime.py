"""What compiled closures work on at run time: the frame of one thread set, device pointers, the host block.

Every closure takes a ``Ctx``: the engine's ``blk`` for the current thread set, the variable slots, and a
cached copy of the active mask (refreshed whenever the interpreter changes the engine's mask stack, which only
the interpreter does).
"""
from __future__ import annotations

import numpy as np

from ..errors import StepBudgetError
from .errors import CudaUnsupportedError

# The step budget is per thread: a loop iteration costs 5 steps per AST node it runs (``StmtMixin.loop``), a
# memory instruction MEM_STEPS, whatever the number of threads in the set (they run in lockstep).
MEM_STEPS = 20

class Ctx:
    """Frame of one kernel (or host function) invocation over one thread set."""

    __slots__ = ("act", "base", "batch", "blk", "coords", "file", "full", "jm", "jumps", "loads", "n", "v")

    def __init__(self, blk, nslots: int, njm: int, file: str) -> None:
        self.blk = blk
        self.v: list = [None] * nslots
        self.jm: list = [None] * njm     # break / continue / return masks, by static slot
        self.jumps = 0                   # bumped whenever a jump statement fires for some lane
        self.file = file
        self.coords: dict = {}
        a = blk.active
        self.n = a.shape[0]
        self.base = np.array(a, dtype=bool)
        self.act = self.base
        self.full = True
        self.loads = None                # LoadCache when repeated reads are folded (counting modes with a plan)
        self.batch = None                # the loads of a loop run for all its iterations at once (labsim.cuda.batch)

    def refresh(self) -> None:
        a = self.blk.active
        self.act = a
        self.full = a is self.base or bool(np.array_equal(a, self.base))

    def push(self, cond, kind: str) -> None:
        self.blk.push_mask(cond, kind)
        self.refresh()

    def pop(self) -> None:
        self.blk.pop_mask()
        self.refresh()

    def setm(self, mask) -> None:
        self.blk.set_mask(mask)
        self.refresh()

    def __repr__(self) -> str:
        return f"Ctx({self.n} lanes, {int(np.count_nonzero(self.act))} active)"


class LoadCache:
    """Loads the compiled kernel keeps in registers: a later read of the same location by the same (or fewer)
    lanes, with no store, atomic or barrier in between and no iteration of a loop that is not unrolled, is served
    from the register, not from memory, as ptxas folds ``x[i] * x[i]`` into one load (measured on the H200:
    measurements/h200/round3, fold_square, vmake_int2, ifelse_shared_load, hist_*). Keyed by buffer; each entry
    holds the byte address per lane, the lanes that loaded and the value."""

    __slots__ = ("entries", "lane0", "later", "restrict")
    MAX_PER_BUFFER = 16

    def __init__(self) -> None:
        self.entries: dict = {}
        self.lane0: dict = {}            # per key: {lane 0's address: entries} of the entries lane 0 loaded in
        self.restrict: set = set()       # ids of buffers passed as __restrict__ parameters: no other store aliases
        self.later: dict = {}            # per key: loads added when the key is next used (``add_later``)

    def add_later(self, key, make) -> None:
        """Loads of every lane to add under ``key`` in order, made by ``make()`` (a list of (addr, act, value))
        only when the key is next looked up or added to: a batched loop's last loads, which the barrier after
        the loop usually discards unseen."""
        self._settle(key)
        self.later[key] = make

    def _settle(self, key) -> None:
        make = self.later.pop(key, None)
        if make is not None:
            for addr, act, value in make():
                self.add(key, addr, act, value, True)

    def holds(self, space: str, buf_id: int) -> bool:
        """Whether loads of the buffer with id ``buf_id`` are kept (or to be added)."""
        return (any(k[0] == space and k[1] == buf_id for k, e in self.entries.items() if e)
                or any(k[0] == space and k[1] == buf_id for k in self.later))

    def find(self, key, addr, act, full: bool = False):
        """The value of a kept load that covers ``act`` at ``addr``, or None. ``full``: the caller knows lane 0
        is active (the thread set's every thread is), which spares finding the first active lane."""
        if self.later:
            self._settle(key)
        entries = self.entries.get(key)
        if not entries:
            return None
        if full:
            f = 0
        else:
            f = int(act.argmax())
            if not act[f]:               # a predicated-off instruction still executes: not folded
                return None
        probe = int(addr[f])
        if f == 0 and probe not in self.lane0[key]:
            return None                  # no entry has lane 0 at this address (the usual miss, without a scan)
        for e_addr, e_act, value, e_first, e_probe, _ in entries:
            # the first active lane's address rejects almost every other entry without touching whole arrays:
            # an entry whose first active lane is f compares Python ints; one starting later lacks lane f
            if e_first == f:
                if e_probe != probe:
                    continue
            elif e_first > f or e_addr[f] != probe or not e_act[f]:
                continue
            if e_addr.shape != addr.shape:
                continue
            if not np.any(act & ~e_act) and not np.any((addr != e_addr) & act):
                return value
        return None

    def add(self, key, addr, act, value, full: bool = False) -> None:
        """``addr`` and ``act`` are kept as given: the caller hands over arrays nobody changes afterwards.
        ``full``: as for ``find``."""
        if self.later:
            self._settle(key)
        lst = self.entries.setdefault(key, [])
        lane0 = self.lane0.setdefault(key, {})
        if len(lst) >= self.MAX_PER_BUFFER:
            old = lst.pop(0)
            if old[5]:
                n = lane0[old[4]] - 1
                if n:
                    lane0[old[4]] = n
                else:
                    del lane0[old[4]]
        f = 0 if full else int(act.argmax())
        probe = int(addr[f])
        counted = full or (f == 0 and bool(act[0]))
        lst.append((addr, act, value, f, probe, counted))
        if counted:
            lane0[probe] = lane0.get(probe, 0) + 1

    def store(self, space: str, buf) -> None:
        """A store or atomic: global memory may alias any global buffer; a shared array only itself."""
        mine = id(buf)
        if space == "global":
            free = mine in self.restrict    # a store through a __restrict__ pointer aliases no other pointer's

            def hit(k):
                return k[0] == "global" and (k[1] == mine or not (free or k[1] in self.restrict))
        else:
            def hit(k):
                return k[0] == "shared" and k[1] == mine
        for k in [k for k in self.entries if hit(k)]:
            del self.entries[k]
            del self.lane0[k]
        for k in [k for k in self.later if hit(k)]:
            del self.later[k]

    def clear(self) -> None:
        self.entries.clear()
        self.lane0.clear()
        self.later.clear()

    def __repr__(self) -> str:
        return f"LoadCache({sum(len(v) for v in self.entries.values())} loads, {len(self.later)} keys to add)"


def masked(c: Ctx, new, old):
    """C assignment under divergence: active lanes take ``new``, the others keep ``old``."""
    if c.full or old is None:
        return new
    if isinstance(new, tuple):
        return tuple(masked(c, a, b) for a, b in zip(new, old))
    if isinstance(new, Ptr):
        return new.merge(c, old)
    return np.where(c.act, new, old)


class Ptr:
    """A device pointer: a buffer (global numpy array or engine SharedArray) plus a byte offset.

    The offset is a Python int (uniform) or an int64 array (one per thread). Pointer arithmetic moves the
    offset; every access goes through the engine with the byte offset, so bounds and alignment are checked
    against the real buffer.
    """

    __slots__ = ("boff", "buf", "name", "space")

    def __init__(self, buf, boff, name: str, space: str) -> None:
        self.buf = buf
        self.boff = boff
        self.name = name
        self.space = space

    def moved(self, delta_bytes) -> Ptr:
        if isinstance(delta_bytes, (int, np.integer)) and isinstance(self.boff, int):
            return Ptr(self.buf, self.boff + int(delta_bytes), self.name, self.space)
        return Ptr(self.buf, np.asarray(self.boff + np.asarray(delta_bytes, dtype=np.int64), dtype=np.int64),
                   self.name, self.space)

    def merge(self, c: Ctx, old: Ptr) -> Ptr:
        if old.buf is not self.buf:
            raise CudaUnsupportedError(
                f"pointer {old.name!r} would point into {old.name!r} for some threads and {self.name!r} for "
                "others: labsim needs a pointer variable to stay within one array")
        return Ptr(self.buf, np.where(c.act, self.boff, old.boff), self.name, self.space)

    def __repr__(self) -> str:
        off = self.boff if isinstance(self.boff, int) else "per-thread"
        return f"Ptr({self.space} {self.name!r}, byte offset {off})"


def select(cond, a, b):
    """``cond ? a : b`` lane by lane (values, vectors, pointers into one array)."""
    if isinstance(a, tuple):
        return tuple(select(cond, x, y) for x, y in zip(a, b))
    if isinstance(a, Ptr):
        if a.buf is not b.buf:
            if np.all(cond):
                return a
            if not np.any(cond):
                return b
            raise CudaUnsupportedError(f"a pointer chosen per thread between {a.name!r} and {b.name!r} is not "
                                       "supported")
        return Ptr(a.buf, np.where(cond, a.boff, b.boff), a.name, a.space)
    return np.where(cond, a, b)


def pack(comps: tuple, vdtype: np.dtype, n: int) -> np.ndarray:
    """Components (x, y, z, w) -> a structured array of ``n`` vector elements, for a store."""
    out = np.empty(n, dtype=vdtype)
    for name, v in zip(vdtype.names, comps):
        out[name] = v
    return out


def unpack(arr: np.ndarray, vdtype: np.dtype) -> tuple:
    """A loaded structured array -> its components (each a contiguous array)."""
    if arr.dtype != vdtype:
        arr = arr.view(vdtype)
    return tuple(np.ascontiguousarray(arr[name]) for name in vdtype.names)


class HostBlock:
    """The ``blk`` of host code: one "thread", masks for its control flow, a step budget for its loops."""

    def __init__(self, max_steps: int) -> None:
        self._active = np.ones(1, dtype=bool)
        self._stack: list[np.ndarray] = []
        self.steps = 0
        self.max_steps = max_steps

    @property
    def active(self) -> np.ndarray:
        return self._active

    def push_mask(self, cond, kind: str = "if") -> None:
        self._stack.append(self._active)
        self._active = self._active & np.broadcast_to(np.asarray(cond, dtype=bool), (1,))

    def pop_mask(self) -> None:
        self._active = self._stack.pop()

    def set_mask(self, mask) -> None:
        self._active = np.broadcast_to(np.asarray(mask, dtype=bool), (1,)).copy()

    def exit(self, mask=None) -> None:
        self._active = np.zeros(1, dtype=bool)
        self._stack = [np.zeros(1, dtype=bool) for _ in self._stack]

    def tick(self, n: int = 1) -> None:
        self.steps += n
        if self.steps > self.max_steps:
            raise StepBudgetError(f"step budget of {self.max_steps} exhausted in host code: is there an endless "
                                  "loop?")

    def __repr__(self) -> str:
        return f"HostBlock(steps={self.steps})"
