"""Pieces the public and hidden checks of lesson 9 share (shipped with the public checks)."""
from __future__ import annotations

from typing import Any

import numpy as np

from grading.checks import FAILURE_LABELS, Outcome, failure_kind, instructor_detail, tally
from grading.context import RunContext
from grading.sim import SHARED_LD_CONFLICTS, RunRecord

from .exercise import READ, read_factor

__all__ = ["conflict_outcome", "padding_notes"]


def conflict_outcome(ctx: RunContext, runs: list[RunRecord], *, show_shapes: bool) -> Outcome:
    """Conflict-free transposed read on runs that produced the right matrix."""
    good = [r for r in runs if failure_kind(r) is None]
    if not good:
        return Outcome(False, "结果还不正确，先让转置结果正确，再看 bank conflict。")
    ex = ctx.exercise
    line = ex.focus_by_id(READ).line
    conflicts = sum(r.line_metric(line, SHARED_LD_CONFLICTS) for r in good)
    factor = read_factor(ex, good[0])
    per = f"每个 warp 请求 {factor:g} 个 wavefront" if factor is not None else "每个 warp 请求多个 wavefront"
    data = {"read_conflicts": conflicts, "read_wavefronts_per_request": factor}
    if conflicts == 0:
        notes = padding_notes(ctx)
        return Outcome(True, f"转置读（第 {ctx.shown_line(line)} 行）没有 bank conflict：{per}，"
                             f"{SHARED_LD_CONFLICTS} = 0。", data=data, notes=notes)
    why = conflict_explanation(good[0].sample(READ), ctx.value, int(ex.config.get("element_bytes", 4)))
    # a hidden check must not reveal its inputs, and a total over hidden cases would hint at their sizes
    total = f"，{SHARED_LD_CONFLICTS} = {conflicts}" if show_shapes else ""
    return Outcome(False, f"转置读（第 {ctx.shown_line(line)} 行）有 bank conflict：{per}{total}。{why}", data=data)


def conflict_explanation(sample: Any, value: int | None, element_bytes: int = 4) -> str:
    """Why one warp's transposed read needs several wavefronts: which lanes share a bank, from labsim's
    sample (never from a formula the student cannot see)."""
    if sample is None:
        return ""
    active = np.asarray(sample.active, dtype=bool)
    banks = np.asarray(sample.banks)[active]
    words = np.asarray(sample.words)[active]
    lanes = np.flatnonzero(active)
    used = len(set(banks.tolist()))
    text = f"采样的 warp（block {tuple(sample.block)}，warp {sample.warp}）里 {len(lanes)} 个 lane 只用到 {used} 个 bank"
    for b in sorted(set(banks.tolist())):
        mask = banks == b
        if len(set(words[mask].tolist())) > 1:
            pair = lanes[mask][:2]
            text += f"，例如 lane {pair[0]} 和 lane {pair[1]} 读 bank {b} 里的不同字"
            break
    if value is not None:
        stride_words = value * element_bytes // 4
        text += f"。第二维 {value} 让相邻两行相隔 {stride_words} 个 4 字节字，{stride_words} mod 32 = {stride_words % 32}"
    return text + "。"


def padding_notes(ctx: RunContext) -> list[str]:
    """Notes for a conflict-free choice wider than it needs to be, or written as a literal (the notes name the
    student's own value, never the reference fill's text: this file ships to students)."""
    ex, value = ctx.exercise, ctx.value
    tile = ex.names.get("TILE_DIM")
    if value is None or tile is None:
        return []
    notes = []
    if value > tile + 1:
        extra = (value - tile - 1) * tile * int(ex.config.get("element_bytes", 4))
        notes.append(f"第二维 {value} 也没有 bank conflict，但比第二维 {tile + 1} 每个 block 多占 {extra} 字节共享内存；"
                     f"{tile + 1} 已经足够。")
    if value == tile + 1 and "TILE_DIM" not in ctx.blank:
        notes.append(f"用 TILE_DIM 写出 {value}，而不是字面量：TILE_DIM 改变时填充仍然成立。")
    return notes
