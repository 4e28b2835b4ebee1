"""Veto rules a machine can judge honestly. A rule takes the GradeState and returns a Veto or None.

An exercise's own rules (exercise.py's ``VETOES``) run first, then the generic ones: an edit to a template
region that carries ``veto = "<id>"`` in config.toml, and saved check output that its code does not produce.
Every rule runs on its own: a rule that raises is reported as an internal error and the others still run.
"""
from __future__ import annotations

import traceback
from typing import Callable

from .results import Veto
from .state import GradeState

Rule = Callable[[GradeState], "Veto | list[Veto] | None"]


def region_edits(st: GradeState) -> list[Veto]:
    """One veto per vetoing region an edit touched; title and reason from config ``[vetoes.<id>]``."""
    conf = st.conformance
    if conf is None or conf.problem_kind == "unrelated":     # not this exercise's code: nothing was deleted
        return []
    ex = st.exercise
    out = []
    for vid in dict.fromkeys(r.veto for r in ex.regions if r.veto):
        ids = {r.id for r in ex.regions if r.veto == vid}
        hits = [e for e in conf.edits if ids & set(e.regions)]
        if not hits:
            continue
        text = ex.config.get("vetoes", {}).get(vid, {})
        labels = "、".join(r.label for r in ex.regions if r.id in ids)
        what = "；".join(e.describe(ex.region_labels) for e in hits)
        out.append(Veto(vid, text.get("title", f"改动了{labels}"),
                        text.get("reason", "{labels}被改动：{edits}。").format(edits=what, labels=labels)))
    return out


def unrun_output(st: GradeState) -> Veto | None:
    """Saved check output that does not match the code it claims to come from."""
    if st.receipt is None or not st.receipt.flagged:
        return None
    return Veto("unrun_output", "把未运行结果说成实测", st.receipt.message)


def out_of_bounds(st: GradeState) -> Veto | None:
    """One rule for every exercise (grading/exercises/README.md): an access outside an array in any graded run
    (public or hidden) is a veto. On a GPU it reads or corrupts other memory with no error, so no count of
    other shapes that came out right can make the index acceptable. The message names public cases only."""
    ctxs = [c for c in (st.public_ctx, st.hidden_ctx) if c is not None]
    runs = [r for c in ctxs for r in c._runs.values()]          # what the checks ran (not a new run)
    bad = [r for r in runs if r.error_kind == "oob"]
    if not bad:
        return None
    public = [r for r in bad if st.public_ctx is not None and r in st.public_ctx._runs.values()]
    hidden = len({r.case.id for r in bad if r not in public})
    where = "、".join(dict.fromkeys(r.case.shape_text("×") for r in public))
    parts = ([f"公开用例 {where}"] if public else []) + ([f"{hidden} 个隐藏用例"] if hidden else [])
    said = " 和 ".join(parts)
    return Veto("out_of_bounds", "越界访问",
                f"{said}{' ' if said[-1:].isascii() else ''}的运行访问了数组之外的内存。在 GPU 上这会读到或改坏别的数据而不报错，"
                "所以无论其它形状的结果如何，越界访问都是一票否决。")


GENERIC_RULES: list[Rule] = [region_edits, unrun_output, out_of_bounds]


def run_rules(st: GradeState, rules: list[Rule]) -> list[Veto]:
    """Apply every rule in isolation; a rule's own error is recorded, never hides the other rules."""
    found: list[Veto] = []
    for rule in rules:
        try:
            v = rule(st)
        except Exception:
            tb = traceback.format_exc()
            st.result.instructor.setdefault("internal_errors", []).append(tb)
            name = getattr(rule, "__name__", repr(rule))
            st.result.notes.append(f"评分程序在一票否决规则 {name} 出错（不是你的问题，已通知老师）；其余规则照常执行。")
            continue
        found.extend(v if isinstance(v, list) else [v] if v is not None else [])
    return found
