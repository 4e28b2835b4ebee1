"""Checks: small decorated functions with their points and visibility (otter's ``@test_case`` idea).

An exercise's ``public_checks.py`` and ``hidden_checks.py`` define them in the order they run::

    @check_case(name="正常形状：结果正确", points=1, hidden=True, kind="normal")
    def normal_correct(ctx: RunContext) -> Outcome: ...

A check gets a RunContext (the student's compiled program, its cases and memoised runs) and returns an
Outcome. The message of a hidden check is shown to the student, so it carries counts and failure kinds,
never inputs; ``detail`` is for the instructor only. A check must look at runs (``ctx.run``, ``ctx.runs``,
``ctx.all_runs``): one that saw none fails, unless it is declared ``needs_runs=False``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .sim import RunRecord


@dataclass
class Outcome:
    """What a check found. ``fraction`` (0..1) overrides pass/fail scoring for partial credit."""

    passed: bool
    message: str
    detail: str = ""
    notes: list[str] = field(default_factory=list)
    fraction: float | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Outcome({'passed' if self.passed else 'failed'}, {self.message!r})"


@dataclass(frozen=True)
class CheckSpec:
    """A registered check."""

    id: str
    name: str
    points: float
    hidden: bool
    kind: str
    tags: tuple[str, ...]
    func: Callable[..., Outcome]
    needs_runs: bool = True

    def __repr__(self) -> str:
        return f"CheckSpec({self.id!r}, {self.points} pts, {'hidden' if self.hidden else 'public'})"


def check_case(*, name: str, points: float = 0.0, hidden: bool = False, kind: str = "",
               tags: tuple[str, ...] = (), needs_runs: bool = True
               ) -> Callable[[Callable[..., Outcome]], Callable[..., Outcome]]:
    """Register a function as a check of the module it is defined in."""
    def deco(fn: Callable[..., Outcome]) -> Callable[..., Outcome]:
        fn.__check_spec__ = CheckSpec(fn.__name__, name, float(points), hidden, kind, tuple(tags), fn, needs_runs)
        return fn
    return deco


def collect_checks(module: ModuleType) -> list[CheckSpec]:
    """The module's checks in definition order."""
    return [v.__check_spec__ for v in vars(module).values() if hasattr(v, "__check_spec__")]


def failures_text(failures: dict[str, int] | None) -> str:
    """Failures by label as the messages say them: "2 个结果错误，1 个数据竞争" ("" for none)."""
    return "，".join(f"{n} 个{k}" for k, n in (failures or {}).items() if n)


def count_message(label: str, passed: int, total: int, failures: dict[str, int] | None = None) -> str:
    """The only shape a hidden check's message takes: "边界形状：3/5（2 个结果错误）"."""
    kinds = failures_text(failures)
    return f"{label}：{passed}/{total}" + (f"（{kinds}）" if kinds else "")


FAILURE_LABELS = {"wrong": "结果错误", "oob": "越界访问", "sim": "运行错误", "internal": "模拟器内部错误",
                  "race": "数据竞争"}


def failure_kind(rec: "RunRecord") -> str | None:
    """Why a run did not pass, as a FAILURE_LABELS key (None when it passed)."""
    if rec.error_kind:
        return rec.error_kind
    if rec.race_count:
        return "race"
    return None if rec.correct else "wrong"


def tally(runs: list["RunRecord"]) -> tuple[int, dict[str, int]]:
    """Runs that passed, and the failures by label (for count_message)."""
    passed, failures = 0, {}
    for r in runs:
        k = failure_kind(r)
        if k is None:
            passed += 1
        else:
            failures[FAILURE_LABELS[k]] = failures.get(FAILURE_LABELS[k], 0) + 1
    return passed, failures


def instructor_detail(runs: list["RunRecord"]) -> str:
    """One line per run for the instructor: case, sizes, seed and what went wrong."""
    lines = []
    for r in runs:
        k = failure_kind(r)
        state = "ok" if k is None else FAILURE_LABELS[k]
        extra = f": {r.error}" if r.error else (f": {r.wrong} wrong, {r.unwritten} unwritten" if r.wrong else "")
        lines.append(f"{r.case.id} {r.case.label} seed={r.case.seed} -> {state}{extra}")
    return "\n".join(lines)


def runs_outcome(label: str, runs: list["RunRecord"]) -> Outcome:
    """A hidden check over a group of runs: passes when every run passed ("方阵：3/3")."""
    passed, failures = tally(runs)
    return Outcome(passed == len(runs), count_message(label, passed, len(runs), failures),
                   detail=instructor_detail(runs))


def oob_outcome(label: str, runs: list["RunRecord"]) -> Outcome:
    """The no-out-of-bounds check every exercise grades over all its runs (the label stays in the hidden checks,
    which the student build keeps out of the kit)."""
    bad = [r for r in runs if r.error_kind == "oob"]
    return Outcome(not bad, count_message(label, len(runs) - len(bad), len(runs)),
                   detail=instructor_detail(bad))


def race_outcome(ctx: Any, wrong_result: str = "结果错误") -> Outcome:
    """The race-free check over every run of a RunContext (grading.context imports this module): no shared-memory race, and no "race" group run that is right in
    lockstep but wrong under the adversarial order (a result wrong in every order is the correctness checks'
    business, not a race). ``wrong_result`` says what went wrong ("C 错误", "结果错误")."""
    adversarial = ctx.runs("race", schedule="adversarial")
    runs = ctx.all_runs()
    racy = [r for r in runs if r.race_count]
    wrong = [r for r in adversarial if r.ok and not r.correct and ctx.run(r.case).passed]
    msg = count_message("无数据竞争的运行", len(runs) - len(racy), len(runs))
    if not racy and not wrong:
        return Outcome(True, msg, detail=instructor_detail(runs))
    if wrong:
        msg += f"；对抗调度下 {len(wrong)}/{len(adversarial)} 个运行的{' ' * wrong_result[0].isascii()}{wrong_result}"
    first = str(racy[0].races[0]) if racy and racy[0].races else ""
    return Outcome(False, msg, detail=(first + "\n" + instructor_detail(runs)).strip())


def unwritten_text(rec: "RunRecord") -> str:
    """"（其中 3 个从未写入）" when some output element was never written, else nothing."""
    return f"（其中 {rec.unwritten} 个从未写入）" if rec.unwritten else ""


def error_text(rec: "RunRecord") -> str:
    """A run's error for Chinese feedback: what kind it is in Chinese, labsim's own words quoted after it."""
    k = failure_kind(rec)
    label = FAILURE_LABELS.get(k or "", "运行出错")
    raw = (rec.error or "").strip()
    said = oob_chinese(raw) if k == "oob" else ""
    label = f"{label}：{said}" if said else label
    return f"{label}。labsim 的报错原文是“{raw}”" if raw else label


_OOB = re.compile(r"out-of-bounds (global|shared) access: (\w+)((?:\[-?\d+\])+)(?: \(flat index -?\d+\))? "
                  r"but \w+ has (?:([\d×]+) = )?(\d+) elements(?: \[kernel [^,\]]+, block \(([\d,]+)\), "
                  r"thread \(([\d,]+)\))?")


def oob_chinese(error: str) -> str:
    """What labsim's out-of-bounds message says, in Chinese ("block (1,1,0) 的线程 (0,7,0) 访问全局内存
    input[1551]，而 input 只有 1551 个元素"); empty when ``error`` is no such message."""
    m = _OOB.search(error or "")
    if not m:
        return ""
    space = "全局" if m[1] == "global" else "共享"
    who = f"block ({m[6]}) 的线程 ({m[7]}) " if m[6] else ""
    size = f"{m[4]} = {m[5]}" if m[4] else m[5]
    return f"{who}访问{space}内存 {m[2]}{m[3]}，而 {m[2]} 只有 {size} 个元素"


def warp_picture(rec: "RunRecord", fid: str, label: str) -> str:
    """What one warp of the run did at focus ``fid`` (labsim's sample), as a clause: the bytes its active lanes
    span, the distance between neighbouring lanes and its sectors; ``label`` names the access ("写 output").
    Empty when there is no sample. What the code did, never what it should be."""
    import numpy as np
    wa = rec.sample(fid)
    if wa is None:
        return ""
    act = np.asarray(wa.active, bool)
    if not act.any():
        return ""
    addr = np.asarray(wa.addr, dtype=np.int64)[act]
    span = int(addr.max() - addr.min()) + int(wa.itemsize)
    gaps = np.unique(np.diff(addr)) if addr.size > 1 else np.array([], dtype=np.int64)
    if gaps.size == 1:
        gap = f"相邻 lane 的地址相差 {int(gaps[0])} 字节"
    elif gaps.size:
        shown = "、".join(str(int(g)) for g in gaps[:4]) + ("……" if gaps.size > 4 else "")
        gap = f"相邻 lane 的地址差有 {gaps.size} 种（{shown} 字节）"
    else:
        gap = "只有一个活跃 lane"
    return (f"labsim 记录的一个 warp {label} 时，{int(act.sum())} 个活跃 lane 的地址跨过 {span} 字节，{gap}，"
            f"碰到 {int(wa.sectors)} 个 sector")


def shape_outcome(rec: "RunRecord", *, where: str, right: str, wrong: str, reference: str) -> Outcome:
    """A public check's outcome on one run, in one sentence and one colon at most: ``where`` names the input
    ("64×96 的输入"), ``right`` what a pass says ("转置正确。"), ``wrong`` a wrong result ("转置错误"),
    ``reference`` what the output is compared with ("numpy 的转置")."""
    k = failure_kind(rec)
    if k is None:
        return Outcome(True, f"{where}{right}")
    if k == "wrong":
        return Outcome(False, f"{where}{wrong}：{rec.wrong} 个元素与{reference}不同{unwritten_text(rec)}。")
    if k == "race":
        race = rec.races[0] if rec.races else None
        at = f"，例如 {race}" if race is not None else ""
        return Outcome(False, f"{where}有数据竞争（{rec.race_count} 处）{at}。")
    return Outcome(False, f"{where}运行出错（{error_text(rec)}）。")


def draw_not_multiple(rng, lo: int, hi: int, of: int = 32) -> int:
    """A size in [lo, hi] that is not a multiple of ``of`` (boundary shapes leave partial tiles)."""
    while True:
        v = int(rng.integers(lo, hi + 1))
        if v % of:
            return v


# ---- evidence about the blank's index (issue 25: messages and vetoes true of the submission) ----------------
#
# Which hidden groups passed says little about *why* (the groups overlap: every square is a multiple of 32),
# and a veto that waits for "every run of group A passed" is dodged by breaking one degenerate case on purpose.
# So an exercise whose blank is an index measures the index itself: a probe run (non-degenerate shapes only,
# every size ≥ 2 and the sizes distinct, so no 1-wide or 1×1×1 shape enters the premise) whose input values
# encode their own position shows which element each thread used; a linear fit gives the pitch the blank
# actually uses, and named hypotheses ("N", "M rounded up to 32") say when that pitch happens to be right.


@dataclass(frozen=True)
class Hypothesis:
    """One way a measured quantity may depend on the sizes: ``label`` names it for the student ("input 的列数
    N"), ``value(sizes)`` computes it, ``when`` says on which shapes it equals the right one ("M = N")."""

    label: str
    value: Callable[[dict[str, int]], int]
    when: str

    def __repr__(self) -> str:
        return f"Hypothesis({self.label!r})"


@dataclass
class IndexEvidence:
    """What probes measured of an index: per probe (its sizes), the fitted coefficients ``coef`` of
    index = Σ coef[v] · v + const over the variables, or None where the index is not linear / the run failed;
    ``right`` whether every probe's index is the right one; ``error`` a failed probe run's error kind."""

    probes: list[dict[str, int]]
    coef: list[dict[str, int] | None]
    right: bool
    error: str | None = None

    def pitch(self, var: str) -> list[int] | None:
        """The coefficient of ``var`` on every probe (None unless every probe fitted)."""
        if any(c is None for c in self.coef):
            return None
        return [c[var] for c in self.coef]

    def __repr__(self) -> str:
        return f"IndexEvidence(right={self.right}, coef={self.coef})"


def linear_fit(points: list[tuple[dict[str, int], int]]) -> dict[str, int] | None:
    """Integer coefficients (and "const") with index = Σ coef[v]·v + const exact on every point, or None."""
    import numpy as np
    if not points:
        return None
    names = list(points[0][0])
    x = np.array([[p[0][n] for n in names] + [1] for p in points], dtype=np.float64)
    y = np.array([p[1] for p in points], dtype=np.float64)
    sol, *_ = np.linalg.lstsq(x, y, rcond=None)
    coef = np.rint(sol).astype(np.int64)
    if not np.array_equal(x.astype(np.int64) @ coef, y.astype(np.int64)):
        return None
    return {**{n: int(c) for n, c in zip(names, coef[:-1])}, "const": int(coef[-1])}


def which(values: list[int], probes: list[dict[str, int]], hypotheses: list[Hypothesis]) -> Hypothesis | None:
    """The first hypothesis whose value equals the measured one on every probe."""
    for h in hypotheses:
        if all(h.value(s) == v for s, v in zip(probes, values)):
            return h
    return None


def scored_passes(st) -> list[str]:
    """The groups of the automatic checks with points that passed (what right-by-luck would earn), by the
    label their message starts with ("方阵" of "方阵：3/3")."""
    return [t.output.split("：")[0] if "：" in t.output else t.name for t in st.result.tests
            if t.max_score > 0 and t.status == "passed" and "manual" not in t.tags]


def evidence_veto(st, evidence: IndexEvidence | None, explanation: str, *, verdict: str = "的下标本身不对",
                  title: str = "下标只在部分形状上碰巧正确",
                  luck: str = "这些分数来自形状的巧合，不能证明下标正确") -> "Veto | None":
    """The right-by-luck veto on evidence: the probes show a wrong index, yet some scored check passed (those
    points came from shapes where the wrong index happens to give the right result). Degenerate shapes never
    enter (the probes are non-degenerate), so breaking a 1×1 case on purpose changes nothing."""
    from .results import Veto
    if evidence is None or evidence.right or evidence.error:
        return None
    passed = scored_passes(st)
    if not passed:
        return None                    # nothing was earned by luck: the checks already give 0
    blank = _clip(st.result.blank or "")
    return Veto("right_by_luck", title,
                f"填空“{blank}”{verdict}。{explanation}它在{''.join(f'“{p}”' for p in passed)}这几组用例上"
                f"得到了正确结果，{luck}。")


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
