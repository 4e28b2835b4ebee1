"""Veto rules of the seed's rubric that a machine can judge honestly. Each returns a Veto or None."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from .results import Veto

if TYPE_CHECKING:
    from .pipeline import GradeState


def _title(st: "GradeState", vid: str, default: str) -> str:
    return st.exercise.rubric.get("vetoes", {}).get(vid, default)


def right_by_luck(st: "GradeState") -> Veto | None:
    """The matrix is right, but the transposed read conflicts as much as with no padding at all."""
    ctx = st.hidden_ctx or st.public_ctx
    if ctx is None:
        return None
    runs = [r for kind in ("normal", "boundary") for r in ctx.runs(kind)]
    if not runs or not all(r.passed for r in runs):
        return None
    factor = ctx.read_factor(ctx.runs("normal")[0])
    baseline = ctx.unpadded_factor()
    if factor is None or baseline is None or baseline <= 1 or factor < baseline:
        return None
    return Veto("right_by_luck", "结果碰巧正确但核心因果链错误",
                f"填空 `{st.result.blank}` = {st.result.value} 让转置结果正确，但转置读每个请求仍是 {factor:g} 个 "
                f"wavefront，和不加填充（第二维 = TILE_DIM）时的 {baseline:g} 个一样：填充没有把一列的元素错开到不同的 bank。")


def deleted_bounds_check(st: "GradeState") -> Veto | None:
    """Any edit that touches a region whose veto is deleted_bounds_check."""
    conf = st.conformance
    if conf is None or conf.problem_kind == "unrelated":     # not this exercise's code: nothing was deleted
        return None
    vetoing = {r.id for r in st.exercise.regions if r.veto == "deleted_bounds_check"}
    hits = [e for e in conf.edits if vetoing & set(e.regions)]
    if not hits:
        return None
    what = "；".join(e.describe(st.exercise.region_labels) for e in hits)
    return Veto("deleted_bounds_check", "删除边界检查", f"边界检查被改动：{what}。边界守卫保证非 32 倍数的矩阵不越界，不能删改。")


def unrun_output(st: "GradeState") -> Veto | None:
    """Saved check output that does not match the code it claims to come from."""
    if st.receipt is None or not st.receipt.flagged:
        return None
    return Veto("unrun_output", "把未运行结果说成实测", st.receipt.message)


VETO_RULES: list[Callable[["GradeState"], Veto | None]] = [right_by_luck, deleted_bounds_check, unrun_output]
