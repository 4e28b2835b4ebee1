"""Shared-memory race detection: RAW, WAR and WAW between warps of a block with no barrier between them.

Each shared element keeps a small shadow: the last writer (thread and the epoch it wrote in) and the readers
of the current epoch (one reader warp plus a flag for "more than one warp"). An epoch is a warp's count of
barriers passed, so two accesses race when they come from different warps of the same block with equal
barrier counts and at least one writes. Work is a handful of gathers and scatters per instruction.

Folding: the blocks of a group mostly do the same thing (the same elements, lanes and barrier counts in every
block: a tile load, a column read). As long as every access to an array since the group began was such a
*uniform* access, the array's shadow is kept for one block only, standing for all of them, and what it finds
is counted once per block (races listed block by block, as the lane order of the whole group lists them).
The first access that differs between blocks unfolds the shadow into one copy per block; counts, the races
kept and the racecheck tally are the same either way.

Limitations: like ``compute-sanitizer --tool racecheck`` this looks at shared memory only; accesses by lanes
of the same warp are not reported (the hardware orders them within one instruction); atomics are not
checked against plain accesses; hazards are counted per element access, not per byte.

Alongside, ``RaceTracker.racecheck`` counts hazards the way ``compute-sanitizer --tool racecheck
--racecheck-report hazard`` reports them (``labsim.racecheck`` turns it into racecheck's terms): per element
and barrier interval, at most one RAW (the first read by another thread after a write), one WAR (a write after
reads by other threads) and one WAW, each weighted by the element's bytes, with severity "error" when the two
threads are in different warps and "warning" when they share a warp (racecheck's "Warp Level Programming").
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from .launch_records import Race
from .memory import SharedArray

MAX_REPORTED = 100
WARP = 32
FOLD = True    # fold uniform accesses onto one block's shadow (tests switch it off to compare)
DEFER = True   # defer reads' reader-shadow updates to one pass per barrier interval (tests switch it off)
_ANY = np.logical_or.reduce    # ndarray.any() without numpy's Python-level wrapper (1-D arrays here)
_EMPTY = {"w_tid": (np.int64, -1), "w_epoch": (np.int32, -1), "w_line": (np.int32, 0),
          "r_tid": (np.int64, -1), "r_epoch": (np.int32, -1), "r_line": (np.int32, 0), "r_multi": (bool, False),
          # racecheck-style tally: whether the last write's first other-thread read was reported
          "rc_done": (bool, False)}
_TIDS = ("w_tid", "r_tid")


class _Shadow(dict):
    """Per-element state of one shared array: for every block of the group, or, while ``fold`` is a number of
    blocks, for one block standing for that many (thread ids then count from the block's first lane)."""

    def __init__(self, n: int, fold: int | None) -> None:
        super().__init__({k: np.full(n, empty, dtype) for k, (dtype, empty) in _EMPTY.items()})
        self.fold = fold
        self.w_max = -1          # the highest barrier count any write recorded (w_epoch <= w_max everywhere)
        self.r_max = -1          # the same for reads applied to the reader shadow (r_epoch <= r_max everywhere)
        self.pending: list = []  # reads whose reader-shadow update is deferred: (pos, tid, warp, line), in order
        self.pending_epoch = None

    def settle(self) -> None:
        """Apply the deferred reads' reader-shadow updates (one pass for all of them; see ``_read_update``)."""
        pend = self.pending
        if not pend:
            return
        self.pending = []
        if len(pend) == 1:
            pos, tid, warp, multi, line = pend[0]
        else:
            pos = np.concatenate([p[0] for p in pend])
            tid = np.concatenate([p[1] for p in pend])
            warp = np.concatenate([p[2] for p in pend])
            multi = None
            if any(p[3] is not None for p in pend):
                multi = np.concatenate([np.zeros(p[0].size, bool) if p[3] is None else p[3] for p in pend])
            if all(np.ndim(p[4]) == 0 for p in pend):
                line = np.repeat(np.array([p[4] for p in pend], np.int32), [p[0].size for p in pend])
            else:   # a batched loop's reads carry one line per lane (labsim.cuda.batch)
                line = np.concatenate([np.full(p[0].size, p[4], np.int32) if np.ndim(p[4]) == 0 else p[4]
                                       for p in pend])
        _read_update(self, pos, tid, warp, self.pending_epoch, line, multi)

    def queue(self, epoch, read: tuple) -> None:
        """Queue a read's reader-shadow update, (elements, threads, warps, several warps or None, line or lines),
        applied by ``settle``; reads of an earlier barrier interval are settled first."""
        if self.pending and self.pending_epoch != epoch:
            self.settle()
        self.pending_epoch = epoch
        self.pending.append(read)

    def unfold(self, size: int, total: int, offsets: np.ndarray) -> None:
        """One copy per block: block b's thread ids shifted by ``offsets[b]``; elements past the group's blocks
        (a last, smaller group) empty."""
        self.settle()
        nb = offsets.size
        for k, (dtype, empty) in _EMPTY.items():
            full = np.full(total, empty, dtype)
            one = self[k]
            if k in _TIDS:
                full[:nb * size] = np.where(one >= 0, one[None, :] + offsets[:, None], -1).reshape(-1)
            else:
                full[:nb * size] = np.tile(one, nb)
            self[k] = full
        self.fold = None


def _read_update(s, pos, tid, warp, epoch, line, within=None) -> None:
    """The reader shadow after a read by lanes (``pos``, ``tid``, ``warp``) in barrier interval ``epoch``.

    Reads of one interval compose: applied one instruction after another, or once to all their lanes in order,
    the result is the same (the last reader and line of each element; "several warps" iff the element's readers
    in this interval, the earlier one included, span more than one warp), which lets reads be queued and applied
    together (``_Shadow.settle``). ``within``: per lane, whether it stands for lanes of several warps (an
    instruction's lanes reduced to the last reader of each element, see ``_reduced``)."""
    r_tid = s["r_tid"][pos]
    same = s["r_epoch"][pos] == epoch
    # warp of a thread id: >> 5 is // WARP for every int64 (-1, no reader, stays -1), and cheaper
    multi = same & (((r_tid >> 5) != warp) | s["r_multi"][pos])
    s["r_tid"][pos] = tid
    multi |= s["r_tid"][pos] >> 5 != warp
    if within is not None:
        multi |= within
    # an element ends "read by several warps" iff one of its lanes says so (an element read before in
    # this epoch with the flag set has it in ``multi``): clear every element read, then set those
    s["r_multi"][pos] = False
    s["r_multi"][pos[multi]] = True
    s["r_epoch"][pos] = epoch
    s["r_line"][pos] = line
    if pos.size:
        s.r_max = max(s.r_max, int(epoch if np.ndim(epoch) == 0 else np.max(epoch)))


_DISTINCT: dict[bytes, bool] = {}     # small index patterns (a block's lanes) -> no element twice
_DISTINCT_MAX = 1024


def _distinct(pos: np.ndarray) -> bool:
    """Whether no element of ``pos`` occurs twice (False for large or not int64 arrays, which are not looked at:
    the caller's check then runs)."""
    if pos.size > _DISTINCT_MAX or pos.dtype != np.int64:
        return False
    key = pos.tobytes()
    got = _DISTINCT.get(key)
    if got is None:
        if len(_DISTINCT) >= 4096:
            _DISTINCT.clear()
        got = _DISTINCT[key] = bool(np.unique(pos).size == pos.size)
    return got


def _reduced(pos, tid, warp, line=None) -> tuple:
    """One read instruction's lanes as the reader shadow sees them: each element once, with its last lane's
    thread and warp, and whether lanes of another warp read it too (``_read_update``'s ``within``). ``line``: for
    lanes of several instructions in order, each lane's line; then the last lane's line is returned too."""
    u, first = np.unique(pos[::-1], return_index=True)
    last = pos.size - 1 - first                 # each element's last lane
    lw = warp[last]
    inv = np.searchsorted(u, pos)               # each lane's element
    within = np.zeros(u.size, dtype=bool)
    within[inv[warp != lw[inv]]] = True
    if line is not None:
        return u, tid[last], lw, within, line[last]
    return u, tid[last], lw, within


def _queue_read(s, epoch, reads, pos, tid, warp, ln: int, key: bytes | None = None) -> None:
    """Queue a read of ``pos`` by a thread set's checked lanes (``tid``, ``warp``) on shadow ``s`` (settling reads
    of an earlier barrier interval first), in its reduced pattern, which ``reads`` remembers by the elements read
    (``key``: ``pos.tobytes()`` where the caller has it)."""
    if key is None:
        key = pos.tobytes()
    red = reads.get(key)
    if red is None:
        if len(reads) >= 4096:
            reads.clear()
        red = reads[key] = _reduced(pos, tid, warp)
    s.queue(epoch, red + (ln,))


# reduced read patterns of lanes 0..n-1 of a block (a folded thread set's checked lanes): n -> {elements: pattern}
_READS: dict[int, dict] = {}


class _Blocks:
    """How the checked lanes stand for a group's blocks: ``n`` copies, copy b's thread ids shifted by
    ``offsets[b]`` (folded), or the lanes themselves (``n`` = 1, no shift)."""

    __slots__ = ("n", "offsets")

    def __init__(self, offsets: np.ndarray | None) -> None:
        self.offsets = offsets
        self.n = 1 if offsets is None else offsets.size


_UNFOLDED = _Blocks(None)


def _lane_epochs(epoch: np.ndarray) -> np.ndarray:
    """Each lane's barrier count from each warp's; one number (a 0-d array) when every warp has the same."""
    return epoch[0] if (epoch == epoch[0]).all() else np.repeat(epoch, WARP)


class RaceTracker:
    def __init__(self) -> None:
        self.racecheck: Counter = Counter()   # (severity, kind, first line, second line) -> bytes
        self.count = 0
        self.races: list[Race] = []
        self.by_line: dict[int | None, int] = {}
        self._lanes = None     # (the thread set's tid array, its lanes' thread ids in their block, _Blocks)
        self._epochs = None    # (epoch array, per_block, every block's epochs equal, first block's lane epochs)

    def __repr__(self) -> str:
        return f"RaceTracker({self.count} hazards)"

    @staticmethod
    def forget(sh: SharedArray) -> None:
        """No history for ``sh`` any more (its blocks are done; the next group of blocks reuses the array): the
        whole shadow, the detector's and the racecheck tally's, is rebuilt on the next access."""
        sh.shadow = None

    def access(self, sh: SharedArray, elem: np.ndarray, act: np.ndarray, tid: np.ndarray, epoch: np.ndarray,
               per_block: int, lanes_per_block: int, line: int | None, is_write: bool, describe,
               uniform: bool | None = None, full: bool = False) -> None:
        """Check and record one instruction of a thread set.

        The set's lanes are block-major, ``per_block`` lanes of each block (whole warps), the same lanes of
        every block. ``elem``: each lane's element index in its block's copy of ``sh`` (meaningful where
        ``act``); ``tid``: launch-wide thread ids (blocks of ``lanes_per_block``); ``epoch``: each warp's
        barrier count (one per row of 32 lanes). ``describe(tid) -> (block, thread)``. ``uniform``: whether every
        block has the same active lanes and elements, if the caller knows (None: check here). ``full``: the caller
        knows every lane is active. ``epoch`` arrays are not changed after they are passed (the caller passes the
        same object again while the barrier counts stay: what is derived from it is cached by identity).
        """
        nb = tid.size // per_block
        s = sh.shadow
        if FOLD and nb > 1 and (s is None or s.fold == nb):
            eps = self._epochs
            if eps is None or eps[0] is not epoch or eps[1] != per_block:
                rows = per_block // WARP
                eps = self._epochs = (epoch, per_block, bool((epoch[rows:] == epoch[:-rows]).all()),
                                      _lane_epochs(epoch[:rows]))
            fold = eps[2] and self._uniform(elem, act, per_block, nb, uniform)
        else:
            fold = False
        if fold:
            a0 = act[:per_block]
            if not full and not a0.any():
                return
            if s is None:
                s = sh.shadow = _Shadow(sh.size, nb)
            if self._lanes is None or self._lanes[0] is not tid:     # a new thread set: its block layout
                local = tid[:per_block] % lanes_per_block
                # read patterns are remembered across sets and launches for the lanes every lockstep set checks
                reads = (_READS.setdefault(per_block, {}) if np.array_equal(local, np.arange(per_block))
                         else {})
                self._lanes = (tid, local, _Blocks(tid[::per_block] // lanes_per_block * lanes_per_block),
                               local // WARP, reads)
            _, local, blocks, local_warp, reads = self._lanes
            ep = eps[3]
            if full or a0.all():
                self._access(sh, s, elem[:per_block], local, local_warp, ep, line, is_write, describe, blocks,
                             reads)
            else:
                t = local[a0]
                self._access(sh, s, elem[:per_block][a0], t, t // WARP, ep if ep.ndim == 0 else ep[a0], line,
                             is_write, describe, blocks)
            return
        if s is None:
            s = sh.shadow = _Shadow(sh.flat.size, None)
        elif s.fold is not None:
            s.unfold(sh.size, sh.flat.size, tid[::per_block] // lanes_per_block * lanes_per_block)
        pos = np.repeat(np.arange(nb, dtype=np.int64) * sh.size, per_block) + elem
        ep = _lane_epochs(epoch)
        if not act.all():
            pos, tid, ep = pos[act], tid[act], ep if ep.ndim == 0 else ep[act]
        if pos.size:
            self._access(sh, s, pos, tid, tid // WARP, ep, line, is_write, describe, _UNFOLDED)

    def read_uniform(self, sh: SharedArray, elem: np.ndarray, act: np.ndarray, tid: np.ndarray, epoch: np.ndarray,
                     per_block: int, lanes_per_block: int, line: int | None, describe, key: bytes | None = None) -> None:
        """``access`` for a read by every lane of the set, the same elements in every block (the caller checked):
        while the array's shadow is folded and no write recorded this barrier interval, this only queues the
        read's reduced pattern (what ``access`` would do, without its checks); otherwise ``access``. ``key``:
        ``elem[:per_block].tobytes()`` if the caller has it (a bytes object keeps its hash)."""
        d = self.deferring(sh, epoch, per_block, tid)
        if d is None:
            self.access(sh, elem, act, tid, epoch, per_block, lanes_per_block, line, False, describe, uniform=True,
                        full=True)
            return
        lanes, ep = d
        _queue_read(sh.shadow, ep, lanes[4], elem[:per_block], lanes[1], lanes[3], -1 if line is None else int(line),
                    key)

    def deferring(self, sh: SharedArray, epoch: np.ndarray, per_block: int, tid: np.ndarray):
        """When a read of ``sh`` by every lane of the set, the same elements in every block, would only queue its
        reduced pattern (the shadow folded for this set, its barrier counts cached, no write recorded this barrier
        interval): (the set's checked lanes as ``access`` keeps them, the barrier count); else None."""
        s = sh.shadow
        eps, lanes = self._epochs, self._lanes
        if (not FOLD or not DEFER or s is None or s.fold is None or eps is None or eps[0] is not epoch
                or eps[1] != per_block or not eps[2] or lanes is None or lanes[0] is not tid
                or s.fold != tid.size // per_block or eps[3].ndim or not eps[3] > s.w_max):
            return None
        return lanes, eps[3]

    @staticmethod
    def read_one_block(groups: list, tid: np.ndarray, epoch: np.ndarray) -> bool:
        """Reads by every lane of a thread set of one block (whose shadows are never folded), in program order:
        ``groups`` holds per array (the array, the reads' elements one read after another, the number of reads,
        each lane's line). Queued as one read per array, which is what ``access`` queues read by read (they
        compose, see ``_read_update``) when none of them can find a hazard: the lanes share one barrier count and
        no write was recorded in this barrier interval, the first thing ``_access`` checks. False, with nothing
        done, when that does not hold for every array."""
        if not DEFER:
            return False
        ep = _lane_epochs(epoch)
        if ep.ndim:
            return False
        for sh, *_ in groups:
            s = sh.shadow
            if s is None or s.fold is not None or not ep > s.w_max:
                return False
        for sh, pos, m, line in groups:
            t = np.tile(tid, m)
            sh.shadow.queue(ep, (pos, t, t // WARP, None, line))
        return True

    @staticmethod
    def _uniform(elem, act, per, nb, known) -> bool:
        """Every block of the set does the same: active lanes and elements (``known`` if not None); the caller
        checked the barrier counts."""
        if known is not None:
            return known
        a2 = act.reshape(nb, per)
        if not (a2 == a2[0]).all():
            return False
        e2 = elem.reshape(nb, per)
        return bool(((e2 == e2[0]) | ~a2).all())

    def _access(self, sh, s, pos, tid, warp, epoch, line, is_write, describe, blocks, reads=None) -> None:
        """The detector on the lanes checked (``pos``: positions in the shadow; ``tid``, ``warp`` per lane;
        ``epoch`` per lane or one for all), each hazard counted ``blocks.n`` times. ``reads``: a dict that
        remembers read patterns reduced by ``_reduced`` for these very ``tid`` and ``warp`` arrays (their thread
        set's), by the elements read; None for other lanes."""
        ln = -1 if line is None else int(line)
        if is_write:
            s.settle()        # the write's checks read the reader shadow
        # a hazard needs an access of the same barrier interval before: most instructions have none to look at
        if epoch.ndim == 0 and epoch > s.w_max and (not is_write or epoch > s.r_max):
            live = False      # no write (nor, for a write, read) recorded this interval: no epoch equals it
        else:
            live = _ANY(s["w_epoch"][pos] == epoch) or (is_write and _ANY(s["r_epoch"][pos] == epoch))
        if live:
            self._racecheck(sh, s, pos, tid, warp, epoch, ln, is_write, blocks.n)
            w_tid = s["w_tid"][pos]
            w_same_epoch = (s["w_epoch"][pos] == epoch) & (w_tid >= 0) & (w_tid // WARP != warp)
        if is_write:
            if live:
                r_tid = s["r_tid"][pos]
                war = (s["r_epoch"][pos] == epoch) & (r_tid >= 0) & ((r_tid // WARP != warp) | s["r_multi"][pos])
                self._report("WAW", sh, pos, w_same_epoch, w_tid, s["w_line"][pos], tid, ln, describe, blocks)
                self._report("WAR", sh, pos, war & ~w_same_epoch, r_tid, s["r_line"][pos], tid, ln, describe,
                             blocks)
            else:
                s["rc_done"][pos] = False            # what _racecheck does to a write with nothing to report
            s["w_tid"][pos] = tid
            # two warps wrote it in this very instruction: only where lanes share an element
            clash = None if _distinct(pos) else s["w_tid"][pos] // WARP != warp
            if clash is not None and clash.any():
                self._report("WAW", sh, pos, clash, s["w_tid"][pos], np.full(pos.size, ln), tid, ln, describe,
                             blocks)
            s["w_epoch"][pos] = epoch
            s["w_line"][pos] = ln
            if pos.size:
                s.w_max = max(s.w_max, int(epoch if epoch.ndim == 0 else epoch.max()))
        else:
            if live:
                self._report("RAW", sh, pos, w_same_epoch, w_tid, s["w_line"][pos], tid, ln, describe, blocks)
            if DEFER and epoch.ndim == 0:
                # only a later write (or unfolding) reads the reader shadow: queue the update, applied in one pass
                if reads is not None:
                    _queue_read(s, epoch, reads, pos, tid, warp, ln)
                else:
                    # ``pos`` may be a view of the caller's index array, which the caller may change afterwards
                    s.queue(epoch, (pos if pos.base is None else pos.copy(), tid, warp, None, ln))
            else:
                s.settle()
                _read_update(s, pos, tid, warp, epoch, ln)

    def _racecheck(self, sh, s, pos, tid, warp, epoch, ln, is_write, times) -> None:
        """racecheck-style tally (before ``access`` updates the shadow); see the module docstring. Readers come
        from the detector's own shadow: the last reader of the epoch and whether readers of several warps."""
        done = s["rc_done"]
        nbytes = sh.dtype.itemsize * times
        w_tid = s["w_tid"][pos]
        w_live = (s["w_epoch"][pos] == epoch) & (w_tid >= 0)
        if is_write:
            r_tid, r_multi = s["r_tid"][pos], s["r_multi"][pos]
            war = (s["r_epoch"][pos] == epoch) & (r_tid >= 0) & ((r_tid != tid) | r_multi)
            # racecheck pairs the write with the last reader; if that is the writer, with the others
            same = np.where(r_tid != tid, r_tid // WARP == warp, ~r_multi)
            self._tally("WAR", war, same, s["r_line"][pos], ln, pos, nbytes)
            waw = w_live & (w_tid != tid) & ~war
            self._tally("WAW", waw, w_tid // WARP == warp, s["w_line"][pos], ln, pos, nbytes)
            done[pos] = False
            return
        cand = w_live & (w_tid != tid) & ~done[pos]
        if cand.any():
            idx = np.nonzero(cand)[0]
            upos, first = np.unique(pos[idx], return_index=True)
            sel = idx[first]                          # the first other-thread reader of each element
            self._tally("RAW", np.ones(sel.size, bool), w_tid[sel] // WARP == warp[sel], s["w_line"][pos[sel]],
                        ln, upos, nbytes)
            done[upos] = True

    def _tally(self, kind, hit, same_warp, first_line, line, pos, nbytes) -> None:
        if not hit.any():
            return
        # one count per element even if several lanes of this instruction hit it
        for sev, mask in (("warning", hit & same_warp), ("error", hit & ~same_warp)):
            if not mask.any():
                continue
            lines, elems = first_line[mask], pos[mask]
            for fl in np.unique(lines):
                n = np.unique(elems[lines == fl]).size
                key = (sev, kind, None if fl < 0 else int(fl), None if line < 0 else int(line))
                self.racecheck[key] += n * nbytes

    def _report(self, kind, sh, pos, hit, other_tid, other_line, tid, line, describe, blocks) -> None:
        n = int(np.count_nonzero(hit))
        if not n:
            return
        self.count += n * blocks.n
        self.by_line[line] = self.by_line.get(line, 0) + n * blocks.n
        room = MAX_REPORTED - len(self.races)
        if room <= 0:
            return
        hits = np.nonzero(hit)[0][:room]
        shape = tuple(getattr(sh, "shape", ())) or None
        for shift in ([0] if blocks.offsets is None else blocks.offsets.tolist()):    # block-major, as lanes are
            for i in hits:
                if len(self.races) >= MAX_REPORTED:
                    return
                blk, first = describe(int(other_tid[i]) + shift)
                _, second = describe(int(tid[i]) + shift)
                ol = int(other_line[i])
                self.races.append(Race(kind, sh.name, int(pos[i] % sh.size), blk, first, None if ol < 0 else ol,
                                       second, None if line < 0 else line, shape))
