"""Lesson 9's exercise, as code: how the host function is called and checked (``call``), the blank's legal
range, the transposed read's wavefronts per request (and its unpadded baseline), and the right-by-luck veto.

Shipped to students with the public checks: nothing here is secret.
"""
from __future__ import annotations

import numpy as np

from grading import context
from grading.results import Veto
from grading.sim import SHARED_LD_INSTR, SHARED_LD_WAVEFRONTS, Call, Case, Output, RunRecord

READ = "transposed_read"            # the [[focus]] id of the transposed shared read in config.toml


def shape(id: str, kind: str, m: int, n: int, seed: int = 0, fill: str = "normal") -> Case:
    """A case: an M×N float32 matrix drawn from ``seed`` (``fill="arange"``: 0, 1, 2, ... instead)."""
    return Case(id, kind, {"M": m, "N": n}, seed, fill)


def matrix(case: Case) -> np.ndarray:
    if case.fill == "arange":
        return np.arange(case.M * case.N, dtype=np.float32).reshape(case.M, case.N)
    return case.rng().standard_normal((case.M, case.N)).astype(np.float32)


def call(case: Case) -> Call:
    """``launch_transpose_tiled(input, output, M, N, 0)``; the output must equal numpy's transpose."""
    a = matrix(case)
    out = np.full((case.N, case.M), np.nan, dtype=np.float32)   # NaN marks elements never written
    return Call((a.reshape(-1), out.reshape(-1), case.M, case.N, 0), [Output("output", out, a.T)])


def value_range(ex) -> tuple[int, int]:
    """Legal values of the blank: a positive size whose tile fits the static shared-memory limit."""
    tile_rows = ex.names.get("TILE_DIM", 1)
    return 1, max(1, _smem_limit() // (tile_rows * int(ex.config.get("element_bytes", 4))))


def _smem_limit() -> int:
    try:
        from labsim.gpus import GPUS
        return int(GPUS["H200"].smem_per_block)
    except Exception:  # labsim absent: fall back to the CUDA static limit the presets also carry
        return 48 * 1024


def read_factor(ex, rec: RunRecord) -> float | None:
    """Shared wavefronts per request of the transposed read in one run."""
    s = rec.summary(READ)
    if s is not None and s.requests:
        return s.cost / s.requests
    line = ex.focus_by_id(READ).line
    inst = rec.line_metric(line, SHARED_LD_INSTR)
    return rec.line_metric(line, SHARED_LD_WAVEFRONTS) / inst if inst else None


def unpadded_factor(ex) -> float | None:
    """Wavefronts per request of the transposed read with the unpadded tile (the veto's baseline)."""
    if "unpadded_factor" not in ex.cache:
        program = context.compile_exercise(ex, ex.config["unpadded_blank"])
        tile = ex.names.get("TILE_DIM", 32)
        rec = context.run_exercise(ex, program, shape("baseline", "baseline", tile, tile, 0, "arange"))
        ex.cache["unpadded_factor"] = read_factor(ex, rec) if rec.ok else None
    return ex.cache["unpadded_factor"]


def warm(ex) -> None:
    """Batch grading computes the baseline once before forking its workers."""
    unpadded_factor(ex)


def right_by_luck(st) -> Veto | None:
    """The matrix is right, but the transposed read conflicts as much as with no padding at all."""
    ctx = st.hidden_ctx or st.public_ctx
    if ctx is None:
        return None
    runs = [r for kind in ("normal", "boundary") for r in ctx.runs(kind)]
    if not runs or not all(r.passed for r in runs):
        return None
    ex = st.exercise
    factor = read_factor(ex, ctx.runs("normal")[0])
    baseline = unpadded_factor(ex)
    if factor is None or baseline is None or baseline <= 1 or factor < baseline:
        return None
    return Veto("right_by_luck", "结果正确，但填充没有消除 bank conflict",
                f"填空 `{st.result.blank}` = {st.result.value} 让转置结果正确，但转置读每个请求仍是 {factor:g} 个 "
                f"wavefront，和不加填充（第二维 = TILE_DIM）时的 {baseline:g} 个一样：填充没有把一列的元素错开到不同的 bank。")


VETOES = [right_by_luck]
