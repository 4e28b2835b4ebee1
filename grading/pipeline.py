"""The steps of grading one submission, each small, over a GradeState, and ``run_public`` (the public steps
the check cell runs).

extract → conformance → nvcc → compile on labsim → public checks → hidden checks → (receipts: grading.grade)
→ vetoes → manual items. Grading takes only the blank from the submission; everything else comes from the
template. The layers: this module, then the check cell's report over it (grading.checkcell), then
``grade_submission`` on top (grading.grade), so nothing here imports either.
"""
from __future__ import annotations

import hashlib
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import numpy as np

from . import sim
from .checks import CheckSpec, Outcome
from .conformance import check_conformance
from .context import RunContext
from .nvcc import nvcc_compile
from .results import SubmissionResult, TestResult
from .sim import LabsimError
from .source import Submission
from .spec import Exercise
from .state import GradeState, Options
from .vetoes import GENERIC_RULES, run_rules

__all__ = ["GradeState", "Options", "run_public", "case_seed"]


def case_seed(secret: str, exercise: str, name: str) -> int:
    """The hidden cases' seed for one submission: reproducible, different per submission."""
    return int.from_bytes(hashlib.sha256(f"{secret}|{exercise}|{name}".encode()).digest()[:8], "little")


# ---- steps -------------------------------------------------------------------------------------------

def step_extract(st: GradeState) -> None:
    sub = st.submission
    st.result.source_kind = sub.kind
    st.result.notes.extend(sub.notes)
    if sub.problem:
        st.blocked = sub.problem
        st.result.problem = sub.problem


def _clip(text: str, limit: int = 200) -> str:
    """A blank as messages show it: a hostile one may be 100 000 characters long."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def step_conformance(st: GradeState) -> None:
    if st.blocked:
        return
    ex = st.exercise
    if ex.whole:                                   # the submission is the whole kernel (grading.whole)
        from .whole import step_whole_conformance
        return step_whole_conformance(st)
    numbering = st.submission.numbering
    # the source padded to the student's numbering: edits, the blank's tokens and line_map count lines as shown
    conf = check_conformance(ex.template, numbering.source(st.submission.source), blank=ex.blank, names=ex.names,
                             regions=ex.regions, value_range=ex.value_range(), rules=ex.blank_rules)
    st.conformance = conf
    st.result.blank, st.result.value = conf.blank_shown or None, conf.value
    labels = ex.region_labels
    edits = [e.describe(labels, numbering.offset) for e in conf.edits]
    if conf.problem:
        st.blocked = conf.problem
        st.result.problem = conf.problem
        st.review = conf.problem_kind == "undecidable"
        out = conf.problem + ("\n在填空之外还有改动：\n- " + "\n- ".join(edits) if edits else "")
        st.result.tests.append(TestResult("conformance", "只修改填空处", 0, 0, "pending" if st.review else "failed",
                                          out, ["conformance", *(["manual", "pending"] if st.review else [])]))
        return
    st.graded_source = ex.fill(conf.blank_text)
    shown = _clip(conf.blank_shown)
    if edits:
        out = (f"练习规则是只修改 `{ex.blank}` 处。这些改动不会被评分，评分用模板原样的其余代码加上你的填空 "
               f"`{shown}`：\n- " + "\n- ".join(edits))
        st.result.tests.append(TestResult("conformance", "只修改填空处", 0, 0, "failed", out, ["conformance"]))
    else:
        value = "" if conf.value is None else f" = {conf.value}"      # an "expression" blank has no value
        st.result.tests.append(TestResult("conformance", "只修改填空处", 0, 0, "passed",
                                          f"只改了填空：`{shown}`{value}。", ["conformance"]))


def step_nvcc(st: GradeState) -> None:
    if st.blocked or st.options.nvcc == "off":
        return
    res = nvcc_compile(st.graded_source, display_name=st.exercise.target_name,
                       timeout_s=float(st.exercise.limits.get("nvcc_timeout_s", 60)))
    st.nvcc = res
    if res.status in ("skipped", "timeout"):     # the machine's limitation, not the student's
        st.result.notes.append(res.message)
        return
    st.result.tests.append(TestResult("nvcc", "nvcc -std=c++17 -c 编译", 0, 0, res.status, res.message,
                                      ["compile"]))
    if res.status == "failed":
        st.blocked = "nvcc 编译失败，见“nvcc -std=c++17 -c 编译”一项。"


MEMO_PROGRAMS = 32


def _compiled(ex: Exercise, source: str) -> Any:
    """The graded source compiled on labsim, once per distinct source and process (the exercise's cache):
    students who hand in the same blank share one compile, and its runs (grading.context.run_exercise)."""
    from collections import OrderedDict
    memo = ex.cache.setdefault("programs", OrderedDict())
    key = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    if key not in memo:
        memo[key] = sim.compile_source(source, ex.target_name)
        while len(memo) > MEMO_PROGRAMS:
            memo.popitem(last=False)
    memo.move_to_end(key)
    return memo[key]


def step_compile(st: GradeState) -> None:
    if st.blocked:
        return
    try:
        # the blank's value where it has one: labsim runs the same array, and its parser never sees a deeply
        # nested or exotic (sizeof, casts) expression that only the evaluator needs to understand
        value = st.result.value
        source = st.exercise.fill(str(value)) if value is not None else st.graded_source
        st.program = _compiled(st.exercise, source)
    except LabsimError as e:
        st.blocked = f"labsim 无法编译这份代码。labsim 的报错原文是“{st.submission.numbering.error(e)}”。"
        st.result.problem = st.blocked


def _run_checks(st: GradeState, specs: list[CheckSpec], ctx: RunContext | None, *, hidden: bool) -> list[TestResult]:
    out = []
    vis = st.exercise.config.get("hidden_visibility", "visible") if hidden else "visible"
    for spec in specs:
        tags = ["hidden" if hidden else "public", spec.kind, *spec.tags]
        if ctx is None and st.review:
            out.append(TestResult(spec.id, spec.name, 0, spec.points, "pending", f"待人工判断：{st.blocked}",
                                  [*tags, "manual", "pending"], vis, hidden))
            continue
        if ctx is None:
            out.append(TestResult(spec.id, spec.name, 0, spec.points, "failed", f"未运行。{st.blocked}",
                                  tags, vis, hidden))
            continue
        looked = ctx.looked
        try:
            oc: Outcome = spec.func(ctx)
        except Exception:  # a bug in a check must not stop grading; the instructor sees the traceback
            tb = traceback.format_exc()
            out.append(TestResult(spec.id, spec.name, 0, spec.points, "failed",
                                  "评分程序在这一项出错（不是你的问题，已通知老师）。", tags, vis, hidden, tb))
            st.result.instructor.setdefault("internal_errors", []).append(tb)
            continue
        if spec.needs_runs and ctx.looked == looked:       # 0 of 0 is no evidence, never a pass
            st.result.instructor.setdefault("internal_errors", []).append(
                f"check {spec.id} looked at no run (case kinds: {sorted(k for k in ctx.kinds())})")
            oc = Outcome(False, "这一项没有运行任何用例（0 个），不能算通过：评分配置有问题（不是你的问题，已通知老师）。")
        frac = oc.fraction if oc.fraction is not None else (1.0 if oc.passed else 0.0)
        out.append(TestResult(spec.id, spec.name, round(spec.points * frac, 6), spec.points,
                              "passed" if oc.passed else "failed", oc.message, tags, vis, hidden, oc.detail))
        for note in oc.notes:
            if note not in st.result.notes:
                st.result.notes.append(note)
        st.result.instructor.setdefault("data", {})[spec.id] = oc.data
    return out


def _context(st: GradeState, cases: dict) -> RunContext:
    """A RunContext whose messages use the line numbers the student sees."""
    line_map = st.conformance.line_map if st.conformance else {}
    return RunContext(st.exercise, st.program, cases, value=st.result.value, blank=st.result.blank or "",
                      numbering=st.submission.numbering, line_map=line_map)


def step_public(st: GradeState) -> None:
    ctx = None
    if not st.blocked:
        ctx = _context(st, st.exercise.public_module.cases())
        st.public_ctx = ctx
    before = len(st.result.notes)
    tests = _run_checks(st, st.exercise.public_checks, ctx, hidden=False)
    st.result.tests.extend(tests)
    st.public_notes = st.result.notes[before:]          # what the check cell prints as notes (grading.checkcell)
    if st.exercise.whole and ctx is not None:     # the counter table (grading.whole): public cases only
        from .whole import counter_table
        st.result.counter_table = counter_table(st.exercise, ctx)


def step_hidden(st: GradeState) -> None:
    ex = st.exercise
    if not st.options.hidden or ex.hidden_module is None:
        return
    ctx = None
    if not st.blocked:
        secret = st.options.secret or ex.secret or ""
        seed = case_seed(secret, ex.id, st.result.name)
        cases = ex.hidden_module.cases(np.random.default_rng(seed))
        ctx = _context(st, cases)
        st.hidden_ctx = ctx
        st.result.instructor["cases"] = [f"{c.id} {c.label} seed={c.seed}" for k in cases.values() for c in k]
    st.result.tests.extend(_run_checks(st, ex.hidden_checks, ctx, hidden=True))
    if ctx is not None:
        st.result.instructor["details"] = {t.id: t.detail for t in st.result.tests if t.hidden and t.detail}


def step_gpu(st: GradeState) -> None:
    """grade --gpu: the hidden cases on the real GPU beside labsim; reported to the instructor, never scored."""
    if not st.options.gpu or st.hidden_ctx is None or not st.graded_source:
        return
    from . import gpu
    ok, why = gpu.status()
    if not ok:
        st.result.instructor["gpu"] = {"status": "skipped", "message": why}
        return
    ctx = st.hidden_ctx
    cases = ctx.all_cases()
    # outputs only: a race labsim detects may not show on the GPU, so race-freedom is not compared (nor the
    # outputs of a run with a race); a run one of labsim's lab limits stopped has no verdict (None): grading.gpu
    runs = {c.id: ctx.run(c) for c in cases}
    labsim = {k: None if r.limit else bool(r.ok and r.correct) for k, r in runs.items()}
    oob = frozenset(k for k, r in runs.items() if r.error_kind == "oob")
    races = frozenset(k for k, r in runs.items() if r.race_count)
    rec = gpu.compare(st.exercise, st.graded_source, cases, labsim, out_of_bounds=oob, races=races)
    st.result.instructor["gpu"] = rec
    if rec["disagreements"]:
        st.result.instructor["gpu_disagreements"] = rec["disagreements"]


def step_numbering(st: GradeState) -> None:
    """A notebook's feedback counts lines as its exercise cell shows them: say so (a .cu keeps its own)."""
    n = st.submission.numbering
    if st.submission.kind == "ipynb" and n.offset:
        st.result.notes.append(n.statement())


def step_vetoes(st: GradeState) -> None:
    st.result.vetoes.extend(run_rules(st, [*st.exercise.vetoes, *GENERIC_RULES]))


def step_manual(st: GradeState) -> None:
    from .manual import manual_tests
    st.result.tests.extend(manual_tests(st.exercise, st.submission))


PUBLIC_STEPS: list[Callable[[GradeState], None]] = [step_extract, step_conformance, step_compile, step_public]


def run_public(sub: Submission, exercise: Exercise) -> GradeState:
    """What the student's check cell runs: the public steps only (no nvcc, no hidden checks)."""
    result = SubmissionResult(sub.name, exercise.id, sub.kind)
    st = GradeState(exercise, sub, Options(nvcc="off", hidden=False), result)
    for step in PUBLIC_STEPS:
        step(st)
    return st


