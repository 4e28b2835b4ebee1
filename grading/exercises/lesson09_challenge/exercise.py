"""Lesson 9's challenge, as code: how ``launch_transpose_half`` is called and checked (bit-exact against numpy's
transpose: a transpose moves values, it computes nothing). Shipped to students: nothing here is secret."""
from __future__ import annotations

import numpy as np

from grading.sim import Call, Case, Output


def shape(id: str, kind: str, m: int, n: int, seed: int = 0) -> Case:
    """A case: an M×N __half matrix of random values drawn from ``seed``."""
    return Case(id, kind, {"M": m, "N": n}, seed)


def call(case: Case) -> Call:
    """``launch_transpose_half(input, output, M, N, 0)``; the output must equal numpy's transpose."""
    a = case.rng().standard_normal((case.M, case.N)).astype(np.float16)
    out = np.full((case.N, case.M), np.nan, dtype=np.float16)   # NaN marks elements never written
    return Call((a.reshape(-1), out.reshape(-1), case.M, case.N, 0), [Output("output", out, a.T)])



def counters_outcome(ctx, kind: str = "counter"):
    """The counter point needs both targets at once: no excess shared wavefronts on the column read (lesson 9's
    unpadded tile misses it) and coalesced global reads and writes (a transpose without a tile has no shared
    wavefronts at all, and misses this one). The H200's speeds are said once, at the end."""
    from grading.checks import Outcome
    from grading.whole import counter_outcome, h200_speed
    parts = [counter_outcome(ctx, "lds_wavefronts", kind), counter_outcome(ctx, "sectors", kind)]
    speed = h200_speed(ctx.exercise)
    text = " ".join(p.message.replace(speed, "") for p in parts) + speed
    return Outcome(all(p.passed for p in parts), text, data={"lds_wavefronts": parts[0].data, "sectors": parts[1].data})
