"""Shared-memory race detection: RAW, WAR and WAW between warps of a block with no barrier between them.

Each shared element keeps a small shadow: the last writer (thread and the epoch it wrote in) and the readers
of the current epoch (one reader warp plus a flag for "more than one warp"). An epoch is a warp's count of
barriers passed, so two accesses race when they come from different warps of the same block with equal
barrier counts and at least one writes. Work is a handful of gathers and scatters per instruction.

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

from .analysis import Race
from .memory import SharedArray

MAX_REPORTED = 100
# racecheck-style tally: per shared element, whether the last write's first other-thread read was reported
# (kept in the array's shadow beside the detector's own: whatever resets the shadow must reset it too)
_RC_SHADOW = {"rc_done": (bool, False)}


class RaceTracker:
    def __init__(self) -> None:
        self.racecheck: Counter = Counter()   # (severity, kind, first line, second line) -> bytes
        self.count = 0
        self.races: list[Race] = []
        self.by_line: dict[int | None, int] = {}

    def __repr__(self) -> str:
        return f"RaceTracker({self.count} hazards)"

    @staticmethod
    def _shadow(sh: SharedArray) -> dict[str, np.ndarray]:
        if sh.shadow is None:
            n = sh.flat.size
            sh.shadow = {
                "w_tid": np.full(n, -1, np.int64), "w_epoch": np.full(n, -1, np.int32),
                "w_line": np.zeros(n, np.int32),
                "r_tid": np.full(n, -1, np.int64), "r_epoch": np.full(n, -1, np.int32),
                "r_line": np.zeros(n, np.int32), "r_multi": np.zeros(n, bool),
            }
        return sh.shadow

    @staticmethod
    def forget(sh: SharedArray) -> None:
        """No history for ``sh`` any more (its blocks are done; the next group of blocks reuses the array): the
        whole shadow, the detector's and the racecheck tally's, is rebuilt on the next access."""
        sh.shadow = None

    def access(self, sh: SharedArray, pos: np.ndarray, tid: np.ndarray, warp: np.ndarray,
               epoch: np.ndarray, line: int | None, is_write: bool, describe) -> None:
        """Check and record one instruction's active lanes.

        ``pos``: flat element positions (block * size + index); ``tid``: launch-wide thread ids; ``warp``:
        launch-wide warp ids; ``epoch``: each lane's barrier count. ``describe(tid) -> (block, thread)``.
        """
        if pos.size == 0:
            return
        s = self._shadow(sh)
        ln = -1 if line is None else int(line)
        self._racecheck(sh, s, pos, tid, warp, epoch, ln, is_write)
        wpl = 32  # thread ids are laid out warp-major, 32 lanes per warp
        w_tid = s["w_tid"][pos]
        w_same_epoch = (s["w_epoch"][pos] == epoch) & (w_tid >= 0) & (w_tid // wpl != warp)
        if is_write:
            r_tid = s["r_tid"][pos]
            war = (s["r_epoch"][pos] == epoch) & (r_tid >= 0) & ((r_tid // wpl != warp) | s["r_multi"][pos])
            self._report("WAW", sh, pos, w_same_epoch, w_tid, s["w_line"][pos], tid, ln, describe)
            self._report("WAR", sh, pos, war & ~w_same_epoch, r_tid, s["r_line"][pos], tid, ln, describe)
            s["w_tid"][pos] = tid
            clash = s["w_tid"][pos] // wpl != warp          # two warps wrote it in this very instruction
            if clash.any():
                self._report("WAW", sh, pos, clash, s["w_tid"][pos], np.full(pos.size, ln), tid, ln, describe)
            s["w_epoch"][pos] = epoch
            s["w_line"][pos] = ln
        else:
            self._report("RAW", sh, pos, w_same_epoch, w_tid, s["w_line"][pos], tid, ln, describe)
            r_tid = s["r_tid"][pos]
            same = s["r_epoch"][pos] == epoch
            multi = same & (((r_tid // wpl) != warp) | s["r_multi"][pos])
            s["r_multi"][pos[~same]] = False
            s["r_tid"][pos] = tid
            multi |= s["r_tid"][pos] // wpl != warp
            s["r_multi"][pos[multi]] = True
            s["r_epoch"][pos] = epoch
            s["r_line"][pos] = ln

    def _racecheck(self, sh, s, pos, tid, warp, epoch, ln, is_write) -> None:
        """racecheck-style tally (before ``access`` updates the shadow); see the module docstring. Readers come
        from the detector's own shadow: the last reader of the epoch and whether readers of several warps."""
        if "rc_done" not in s:
            s.update({key: np.full(sh.flat.size, empty, dtype) for key, (dtype, empty) in _RC_SHADOW.items()})
        done = s["rc_done"]
        nbytes = sh.dtype.itemsize
        w_tid = s["w_tid"][pos]
        w_live = (s["w_epoch"][pos] == epoch) & (w_tid >= 0)
        if is_write:
            r_tid, r_multi = s["r_tid"][pos], s["r_multi"][pos]
            war = (s["r_epoch"][pos] == epoch) & (r_tid >= 0) & ((r_tid != tid) | r_multi)
            # racecheck pairs the write with the last reader; if that is the writer, with the others
            same = np.where(r_tid != tid, r_tid // 32 == warp, ~r_multi)
            self._tally("WAR", war, same, s["r_line"][pos], ln, pos, nbytes)
            waw = w_live & (w_tid != tid) & ~war
            self._tally("WAW", waw, w_tid // 32 == warp, s["w_line"][pos], ln, pos, nbytes)
            done[pos] = False
            return
        cand = w_live & (w_tid != tid) & ~done[pos]
        if cand.any():
            idx = np.nonzero(cand)[0]
            upos, first = np.unique(pos[idx], return_index=True)
            sel = idx[first]                          # the first other-thread reader of each element
            self._tally("RAW", np.ones(sel.size, bool), w_tid[sel] // 32 == warp[sel], s["w_line"][pos[sel]],
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

    def _report(self, kind, sh, pos, hit, other_tid, other_line, tid, line, describe) -> None:
        n = int(np.count_nonzero(hit))
        if not n:
            return
        self.count += n
        self.by_line[line] = self.by_line.get(line, 0) + n
        room = MAX_REPORTED - len(self.races)
        for i in np.nonzero(hit)[0][:max(room, 0)]:
            blk, first = describe(int(other_tid[i]))
            _, second = describe(int(tid[i]))
            ol = int(other_line[i])
            self.races.append(Race(kind, sh.name, int(pos[i] % sh.size), blk, first, None if ol < 0 else ol,
                                   second, None if line < 0 else line, tuple(getattr(sh, "shape", ())) or None))
