"""labsim's shared-memory hazards in ``compute-sanitizer --tool racecheck``'s terms.

racecheck (``--racecheck-report hazard``) reports hazards per **byte**, as "Error" when the two threads are in
different warps and as "Warning: (Warp Level Programming)" when they share a warp, each naming the two source
lines; the analysis report groups the same hazards per pair of instructions. ``report(stats)`` gives labsim's
count in those terms, from ``Stats.racecheck`` (``labsim.race_detection``): per element and barrier interval, one RAW for
the first read by another thread after a write, one WAR for a write after reads by other threads, one WAW,
each weighted by the element's size in bytes.

How it compares with the H200 (``measurements/h200/racecheck/``, tested in tests/labsim/test_racecheck_h200.py):

* Elements with one writer and one reader (lesson 9's transpose without the barrier, 32×32, 64×64, 33×45):
  errors and warnings equal racecheck's exactly, on the same two lines.
* Elements with several readers (the tiled GEMM without either barrier, 16×16×32, 32³, 64³): the same
  (severity, line pair) groups; the counts depend on the order the hardware happened to run the warps
  (racecheck's own totals differ between two runs of one launch: 17 984 and 17 920 at 32³), and racecheck's
  total lies between labsim's and twice labsim's (a reader can come before the write, WAR, and another after
  it, RAW, each reported once); the split between errors and warnings follows which reader racecheck saw last.
* RAW vs WAR: racecheck names the order it saw; labsim names the order of its schedule (``lockstep`` runs every
  warp's instruction in turn), so the split between the two kinds can differ while the sum agrees.

Limitations: global memory, atomics and ``__syncwarp`` are not modelled; a launch reports at most what its
schedule exposes, like racecheck.
"""
from __future__ import annotations

from .stats import Stats


def report(stats: Stats) -> dict:
    """{"errors": bytes, "warnings": bytes, "groups": [{severity, kind, first_line, second_line, hazards}]}."""
    groups = [{"severity": sev, "kind": kind, "first_line": fl, "second_line": sl, "hazards": n}
              for (sev, kind, fl, sl), n in sorted(stats.racecheck.items(), key=lambda kv: (kv[0][0], kv[0][1],
                                                                                             kv[0][2] or 0, kv[0][3] or 0))]
    return {"errors": sum(g["hazards"] for g in groups if g["severity"] == "error"),
            "warnings": sum(g["hazards"] for g in groups if g["severity"] == "warning"),
            "groups": groups}

