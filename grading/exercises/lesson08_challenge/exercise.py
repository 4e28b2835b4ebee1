"""Lesson 8's challenge, as code: how ``launch_transpose`` is called and checked, and the veto on shared memory
(the challenge is the mapping alone). Shipped to students with the public checks: nothing here is secret."""
from __future__ import annotations

import numpy as np

from grading.results import Veto
from grading.sim import Call, Case, Output


def shape(id: str, kind: str, m: int, n: int, seed: int = 0) -> Case:
    """A case: an M×N float32 matrix of random values drawn from ``seed``."""
    return Case(id, kind, {"M": m, "N": n}, seed)


def call(case: Case) -> Call:
    """``launch_transpose(input, output, M, N, 0)``; the output must equal numpy's transpose."""
    a = case.rng().standard_normal((case.M, case.N)).astype(np.float32)
    out = np.full((case.N, case.M), np.nan, dtype=np.float32)   # NaN marks elements never written
    return Call((a.reshape(-1), out.reshape(-1), case.M, case.N, 0), [Output("output", out, a.T)])


SHARED_METRICS = ("smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
                  "smsp__inst_executed_op_shared_atom.sum")


def no_shared_memory(st) -> Veto | None:
    """The challenge is a transpose without shared memory: a run that touched shared memory is vetoed."""
    ctx = st.hidden_ctx or st.public_ctx
    if ctx is None:
        return None
    if any(r.ok and any(r.metrics.get(m, 0) for m in SHARED_METRICS) for r in ctx.all_runs()):
        return Veto("uses_shared_memory", "用了 shared memory",
                    "这个挑战要求不用 shared memory，只靠线程到数据的映射和 block 形状减少 sector；"
                    "用 shared memory 的分块转置是第 9 课的内容。")
    return None


VETOES = [no_shared_memory]
