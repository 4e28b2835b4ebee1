"""Shared-memory race detection: RAW, WAR and WAW between warps of a block with no barrier between them.

Each shared element keeps a small shadow: the last writer (thread and the epoch it wrote in) and the readers
of the current epoch (one reader warp plus a flag for "more than one warp"). An epoch is a warp's count of
barriers passed, so two accesses race when they come from different warps of the same block with equal
barrier counts and at least one writes. Work is a handful of gathers and scatters per instruction.

Limitations: like ``compute-sanitizer --tool racecheck`` this looks at shared memory only; accesses by lanes
of the same warp are not reported (the hardware orders them within one instruction); atomics are not
checked against plain accesses; hazards are counted per element access, not per byte.
"""
from __future__ import annotations

import numpy as np

from .analysis import Race
from .memory import SharedArray

MAX_REPORTED = 100


class RaceTracker:
    def __init__(self) -> None:
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
                                   second, None if line < 0 else line))
