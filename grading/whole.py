"""Whole-kernel exercises (config ``kind = "whole"``, issue 29's challenges): the submission replaces the whole
template, which is only the kernel's and the launcher's signatures around empty bodies.

Conformance is that both signatures are still there (token for token; whitespace and comments free) and that the
code is not the template itself; the graded source is the submission as written. Counter points compare one
metric of labsim's run (per element of a case's output) with a target from ``[[counter]]`` in config.toml; the
message puts the student's number beside the target and the reference solution's.
"""
from __future__ import annotations

from dataclasses import dataclass

from .checks import Outcome, failures_text, tally
from .conformance import Conformance
from .ctokens import tokenize

WHOLE = "whole"


def is_whole(config: dict) -> bool:
    return config.get("kind") == WHOLE


def signature(template: str, name: str) -> list:
    """The tokens of ``name``'s declaration in ``template``: from the start of its line's declaration (after the
    previous ``;``, ``}`` or ``{``) through the ``)`` that closes its parameter list."""
    toks = tokenize(template)
    at = next((i for i, t in enumerate(toks) if t.text == name and i + 1 < len(toks) and toks[i + 1].text == "("),
              None)
    if at is None:
        raise ValueError(f"the template declares no function {name!r}")
    start = at
    while start > 0 and toks[start - 1].text not in (";", "}", "{") and not toks[start - 1].text.startswith("#"):
        start -= 1
    depth, end = 0, at + 1
    for end in range(at + 1, len(toks)):
        depth += {"(": 1, ")": -1}.get(toks[end].text, 0)
        if depth == 0:
            break
    return toks[start:end + 1]


def _contains(keys: list[str], part: list[str]) -> bool:
    n = len(part)
    return any(keys[i:i + n] == part for i in range(len(keys) - n + 1))


def whole_conformance(template: str, submission: str, functions: list[str]) -> Conformance:
    """Both signatures present and the code not the template's: a Conformance with no blank and no edits."""
    conf = Conformance([], "", None, None, None)
    keys = [t.key for t in tokenize(submission)]
    if keys == [t.key for t in tokenize(template)]:
        conf.problem_kind = "unfilled"
        conf.problem = "你还没有写 kernel：提交的代码和模板一样（函数体是空的）。请在模板的函数体里写出完整的 kernel 和启动函数。"
        return conf
    missing = []
    for name in functions:
        sig = signature(template, name)
        if not _contains(keys, [t.key for t in sig]):
            missing.append(" ".join(t.text for t in sig))
    if missing:
        conf.problem_kind = "signature"
        conf.problem = ("找不到模板要求的函数签名（函数名、参数的类型、名字和顺序都要和模板一样）：\n- "
                        + "\n- ".join(missing))
    return conf


def functions(ex) -> list[str]:
    """The functions whose signatures a submission keeps: the kernel (config ``kernel``) and the host function."""
    return [f for f in (ex.config.get("kernel"), ex.config["host_function"]) if f]


def signature_match(exercises: list, path):
    """The one whole-kernel exercise whose signatures all occur in the file at ``path`` (a renamed challenge
    file, which resembles no template by its body), else None."""
    from pathlib import Path
    try:
        p = Path(path) if path is not None else None
        if p is None or not p.is_file() or p.stat().st_size > 1_000_000:
            return None
        keys = [t.key for t in tokenize(p.read_text(encoding="utf-8", errors="replace"))]
    except Exception:          # not code we can read: the caller tries the other ways
        return None
    hits = [ex for ex in exercises if ex.whole
            and all(_contains(keys, [t.key for t in signature(ex.template, f)]) for f in functions(ex))]
    return hits[0] if len(hits) == 1 else None


def step_whole_conformance(st) -> None:
    """pipeline.step_conformance for a whole-kernel exercise."""
    from .results import TestResult
    ex = st.exercise
    conf = whole_conformance(ex.template, st.submission.source, functions(ex))
    st.conformance = conf
    st.result.blank, st.result.value = None, None
    if conf.problem:
        st.blocked = st.result.problem = conf.problem
        st.result.tests.append(TestResult("conformance", "函数签名与模板一致", 0, 0, "failed", conf.problem,
                                          ["conformance"]))
        return
    st.graded_source = st.submission.source
    st.result.tests.append(TestResult("conformance", "函数签名与模板一致", 0, 0, "passed",
                                      "kernel 和启动函数的签名与模板一致。", ["conformance"]))


WORK_LIMIT = 1 << 26        # thread-steps per launch (labsim.budget), like the check cell's edited version


def work_budget(ex):
    """The per-launch work budget of a whole-kernel exercise's runs (config ``[limits] work_limit``): its launch
    configuration is the student's, so ``<<<1 << 28, 1024>>>`` is refused at once with a message naming the
    limit. Other exercises launch as their template does: no budget."""
    import contextlib
    if not ex.whole:
        return contextlib.nullcontext()
    from labsim.budget import limited
    return limited(int(ex.limits.get("work_limit", WORK_LIMIT)))


# ---- counter points ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CounterTarget:
    """``[[counter]]`` of config.toml: ``metrics`` (labsim metric names, summed) per ``per`` of the case
    (``"elements"``: the product of its sizes, M·N for a transpose, M·N·K, the FFMAs, for a GEMM; ``"metric"``:
    the metric ``per_metric``), times ``scale`` (32: per warp instruction of M·N·K thread FFMAs), at most
    ``target``; ``ideal`` (optional) is the best any kernel can do; ``reference`` is the reference solution's
    value (recorded in the config; the tests check it against the H200's counts and a run of solution.cu)."""

    id: str
    label: str
    metrics: tuple[str, ...]
    target: float
    ideal: float | None
    reference: float
    per: str = "elements"
    per_metric: str = ""
    scale: float = 1.0

    @classmethod
    def from_config(cls, d: dict) -> "CounterTarget":
        ideal = d.get("ideal")
        return cls(d["id"], d["label"], tuple(d["metrics"]), float(d["target"]),
                   None if ideal is None else float(ideal), float(d["reference"]), d.get("per", "elements"),
                   d.get("per_metric", ""), float(d.get("scale", 1)))

    def value(self, rec) -> float | None:
        """The run's value, None when the run has none (an error, or no such metric)."""
        if not rec.ok or any(m not in rec.metrics for m in self.metrics):
            return None
        total = sum(rec.metrics[m] for m in self.metrics)
        if self.per == "elements":
            denom = 1
            for v in rec.case.sizes.values():
                denom *= int(v)
        else:
            denom = rec.metrics.get(self.per_metric, 0)
        return total * self.scale / denom if denom else None


def counter_targets(ex) -> list[CounterTarget]:
    return [CounterTarget.from_config(d) for d in ex.config.get("counter", [])]


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def h200_speed(ex) -> str:
    """The H200's measured speed of the reference and the baseline (config ``[h200]``), as a sentence, or "";
    ``note`` (optional) follows it, e.g. where the reference is not the faster one."""
    h = ex.config.get("h200")
    if not h:
        return ""
    return (f"H200 在 {h['size']} 上实测参考解 {h['reference']:g} {h['unit']}、课上的基线内核 "
            f"{h['baseline']:g} {h['unit']}（{h['reference'] / h['baseline']:.1f} 倍）。{h.get('note', '')}")


def _public_ids(ex) -> set[str]:
    return {c.id for cases in ex.public_module.cases().values() for c in cases}


def _not_passed(runs) -> str:
    """Why some of ``runs`` did not pass, as the hidden checks say it ("1 个数据竞争")."""
    return failures_text(tally(runs)[1])


def counter_outcome(ctx, counter_id: str, kind: str = "counter") -> Outcome:
    """One counter point: every correct run of the ``kind`` cases at or under the target. A wrong or failed
    run earns no counter point (a fast wrong kernel is no achievement); the message says why those runs failed.
    It names the cases' shapes only when they are public: a hidden case's size is never shown."""
    t = next(c for c in counter_targets(ctx.exercise) if c.id == counter_id)
    runs = ctx.runs(kind)
    values = [t.value(r) if r.passed else None for r in runs]
    ideal = "" if t.ideal is None else f"，理想 {_fmt(t.ideal)}"
    head = f"{t.label}：目标 ≤ {_fmt(t.target)}（参考解 {_fmt(t.reference)}{ideal}）"
    if any(v is None for v in values):
        return Outcome(False, f"{head}；你的 kernel 在 {sum(v is None for v in values)}/{len(values)} 个计数用例上"
                              f"没有通过（{_not_passed(runs)}），不计这一项。", data={"values": values})
    worst = max(values)
    ok = worst <= t.target + 1e-9
    public = _public_ids(ctx.exercise)
    shapes = ("、".join(r.case.shape_text() for r in runs) if all(r.case.id in public for r in runs)
              else "隐藏的计数用例" if len(runs) == 1 else f"{len(runs)} 个隐藏的计数用例中最大的")
    msg = f"{head}；你的是 {_fmt(worst)}（{shapes}）" + ("，达到目标。" if ok else "，没有达到目标。") + h200_speed(ctx.exercise)
    return Outcome(ok, msg, data={"values": values, "target": t.target, "reference": t.reference})


# ---- the counter table (issue 29: "the student's counters, the target, the reference, and the H200's speeds") --

NOT_RECORDED = "未记录"


@dataclass(frozen=True)
class CounterRow:
    """One ``[[counter]]`` beside the student's value on the public counter case(s) (None: a run did not pass,
    ``why`` says how)."""

    label: str
    metrics: tuple[str, ...]
    yours: float | None
    target: float
    ideal: float | None
    reference: float
    why: str = ""


@dataclass(frozen=True)
class CounterTable:
    """What a whole-kernel exercise's check view and report show after the checks: one row per counter (the
    student's value on the public counter case only, never a hidden one), then the H200's measured speed of
    the reference solution and the baseline (config ``[h200]``; "未记录" where the config records none)."""

    case: str                          # the public counter case(s) the student's values come from ("96×64")
    rows: tuple[CounterRow, ...]
    size: str = ""                     # the H200's problem size; "" when [h200] is absent
    unit: str = ""
    reference_speed: float | None = None
    baseline_speed: float | None = None
    note: str = ""

    def __repr__(self) -> str:
        return f"CounterTable({self.case}, {len(self.rows)} rows)"

    def _cells(self, r: CounterRow) -> list[str]:
        return [_fmt(r.yours) if r.yours is not None else f"—（未通过：{r.why}）", f"≤ {_fmt(r.target)}",
                _fmt(r.ideal) if r.ideal is not None else "—", _fmt(r.reference)]

    def _speed(self, v: float | None) -> str:
        return f"{v:g} {self.unit}" if v is not None else NOT_RECORDED

    def speed_text(self) -> str:
        where = f"（{self.size}）" if self.size else ""
        return (f"H200 实测速度{where}：参考解 {self._speed(self.reference_speed)}；"
                f"课上的基线内核 {self._speed(self.baseline_speed)}。{self.note}")

    def text_lines(self) -> list[str]:
        """Plain text (the check cell, results.json): one line per counter and one for the speeds."""
        out = [f"计数器对照（你的数值来自公开用例 {self.case}）："]
        for r in self.rows:
            yours, target, ideal, ref = self._cells(r)
            out.append(f"  {r.label}（{' + '.join(r.metrics)}）：你的 {yours} ｜ 目标 {target} ｜ 理想 {ideal} ｜ "
                       f"参考解 {ref}")
        out.append("  " + self.speed_text())
        return out

    def markdown(self) -> str:
        """A Markdown table (feedback.md, CheckReport.markdown)."""
        import html
        esc = lambda t: html.escape(t, quote=False).replace("|", "&#124;")       # noqa: E731
        out = [f"计数器对照（你的数值来自公开用例 {esc(self.case)}）：", "",
               "| 计数器 | 你的 | 目标 | 理想 | 参考解 |", "| --- | --- | --- | --- | --- |"]
        for r in self.rows:
            metric = "<br>".join(f"<code>{esc(m)}</code>" for m in r.metrics)
            out.append(f"| {esc(r.label)}<br>{metric} | " + " | ".join(esc(c) for c in self._cells(r)) + " |")
        out += ["", esc(self.speed_text())]
        return "\n".join(out)

    def html(self) -> str:
        """The check view's table (grading.checkview)."""
        import html
        esc = html.escape
        head = "".join(f"<th>{h}</th>" for h in ("计数器", "你的", "目标", "理想", "参考解"))
        rows = "".join(
            f"<tr><td>{esc(r.label)}<br>" + "<br>".join(f"<code>{esc(m)}</code>" for m in r.metrics) + "</td>"
            + "".join(f"<td>{esc(c)}</td>" for c in self._cells(r)) + "</tr>" for r in self.rows)
        return (f"<div class='lc-counters'><p>计数器对照（你的数值来自公开用例 {esc(self.case)}）：</p>"
                f"<table class='lc-counter-table'><tr>{head}</tr>{rows}</table>"
                f"<p>{esc(self.speed_text())}</p></div>")


def _shape(case) -> str:
    """A public case's size as the lesson writes it: "96×64", "n = 2048"."""
    if len(case.sizes) == 1:
        (name, v), = case.sizes.items()
        return f"{name} = {v}"
    return case.shape_text("×")


def counter_table(ex, ctx, kind: str = "counter") -> CounterTable | None:
    """The counter table of a whole-kernel exercise from its public run context (None: not a whole-kernel
    exercise, no counters, or nothing ran). Values come from the public ``kind`` cases only."""
    targets = counter_targets(ex)
    if not ex.whole or not targets or ctx is None or not ctx.cases(kind):
        return None
    public = _public_ids(ex)
    runs = [r for r in ctx.runs(kind) if r.case.id in public]
    if not runs:
        return None
    rows = []
    why = "" if all(r.passed for r in runs) else _not_passed(runs)
    for t in targets:
        values = [t.value(r) if r.passed else None for r in runs]
        yours = None if any(v is None for v in values) else max(values)
        rows.append(CounterRow(t.label, t.metrics, yours, t.target, t.ideal, t.reference,
                               "" if yours is not None else why))
    h = ex.config.get("h200") or {}
    speed = lambda k: float(h[k]) if isinstance(h.get(k), (int, float)) else None      # noqa: E731
    return CounterTable("、".join(_shape(r.case) for r in runs), tuple(rows), str(h.get("size", "")),
                        str(h.get("unit", "")), speed("reference"), speed("baseline"), str(h.get("note", "")))
