"""Pieces the public and hidden checks of lesson 9 share (shipped with the public checks)."""
from __future__ import annotations

from grading.checks import Outcome
from grading.context import RunContext
from grading.explain import conflict_explanation
from grading.sim import SHARED_LD_CONFLICTS, RunRecord

FAILURE_LABELS = {"wrong": "结果错误", "oob": "越界访问", "sim": "运行错误", "internal": "模拟器内部错误",
                  "race": "数据竞争"}


def failure_kind(rec: RunRecord) -> str | None:
    """Why a run did not pass, as a FAILURE_LABELS key (None when it passed)."""
    if rec.error_kind:
        return rec.error_kind
    if rec.race_count:
        return "race"
    return None if rec.correct else "wrong"


def tally(runs: list[RunRecord]) -> tuple[int, dict[str, int]]:
    passed, failures = 0, {}
    for r in runs:
        k = failure_kind(r)
        if k is None:
            passed += 1
        else:
            failures[FAILURE_LABELS[k]] = failures.get(FAILURE_LABELS[k], 0) + 1
    return passed, failures


def instructor_detail(runs: list[RunRecord]) -> str:
    lines = []
    for r in runs:
        k = failure_kind(r)
        state = "ok" if k is None else FAILURE_LABELS[k]
        extra = f": {r.error}" if r.error else (f": {r.wrong} wrong, {r.unwritten} unwritten" if r.wrong else "")
        lines.append(f"{r.case.id} {r.case.M}x{r.case.N} seed={r.case.seed} -> {state}{extra}")
    return "\n".join(lines)


def conflict_outcome(ctx: RunContext, runs: list[RunRecord], *, show_shapes: bool) -> Outcome:
    """Conflict-free transposed read on runs that produced the right matrix."""
    good = [r for r in runs if failure_kind(r) is None]
    if not good:
        return Outcome(False, "结果还不正确，先让转置结果正确，再看 bank conflict。")
    line = ctx.read_line
    conflicts = sum(r.line_metric(line, SHARED_LD_CONFLICTS) for r in good)
    factor = ctx.read_factor(good[0])
    per = f"每个 warp 请求 {factor:g} 个 wavefront" if factor is not None else "每个 warp 请求多个 wavefront"
    data = {"read_conflicts": conflicts, "read_wavefronts_per_request": factor}
    if conflicts == 0:
        notes = padding_notes(ctx)
        return Outcome(True, f"转置读（模板第 {line} 行）没有 bank conflict：{per}，"
                             f"{SHARED_LD_CONFLICTS} = 0。", data=data, notes=notes)
    why = conflict_explanation(good[0].read_sample, ctx.value, int(ctx.exercise.config.get("element_bytes", 4)))
    # a hidden check must not reveal its inputs, and a total over hidden cases would hint at their sizes
    total = f"，{SHARED_LD_CONFLICTS} = {conflicts}" if show_shapes else ""
    return Outcome(False, f"转置读（模板第 {line} 行）有 bank conflict：{per}{total}。{why}", data=data)


def padding_notes(ctx: RunContext) -> list[str]:
    """Notes for conflict-free choices other than the lesson's TILE_DIM + 1."""
    ex, value = ctx.exercise, ctx.value
    tile = ex.names.get("TILE_DIM")
    if value is None or tile is None:
        return []
    notes = []
    if value > tile + 1:
        extra = (value - tile - 1) * tile * int(ex.config.get("element_bytes", 4))
        notes.append(f"第二维 {value} 也没有 bank conflict，但比 TILE_DIM + 1 每个 block 多占 {extra} 字节共享内存；"
                     "TILE_DIM + 1 已经足够。")
    if value == tile + 1 and "TILE_DIM" not in ctx.blank:
        notes.append("写成 TILE_DIM + 1 而不是字面量，TILE_DIM 改变时填充仍然成立。")
    return notes
