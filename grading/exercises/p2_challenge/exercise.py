"""Part 2's challenge, as code: how ``launch_aos_to_soa`` is called and checked (bit-exact: a conversion moves
values, it computes nothing). Shipped to students with the public checks: nothing here is secret."""
from __future__ import annotations

import numpy as np

from grading.sim import Call, Case, Output


def structs(id: str, kind: str, n: int, seed: int = 0) -> Case:
    """A case: n structs of three random float32 values drawn from ``seed``."""
    return Case(id, kind, {"n": n}, seed)


def call(case: Case) -> Call:
    """``launch_aos_to_soa(aos, x, y, z, n, 0)``; x, y, z must be the structs' three fields."""
    aos = case.rng().standard_normal((case.n, 3)).astype(np.float32)
    outs = [np.full(case.n, np.nan, dtype=np.float32) for _ in range(3)]   # NaN marks elements never written
    return Call((aos.reshape(-1), *outs, case.n, 0),
                [Output(name, out, aos[:, i].copy()) for i, (name, out) in enumerate(zip("xyz", outs))])
