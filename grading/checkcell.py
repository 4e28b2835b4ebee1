"""The public check a lesson's check cell calls: ``report = check("<the exercise's target file>")``.

Runs the public cases on labsim, prints a short verdict in Chinese, the per-line counters of the student's
kernel (Nsight Compute names; the exercise's focus instructions marked with their labels) and a run receipt,
and returns a CheckReport whose ``heatmap`` is the labsim WarpAccess of the focus instruction marked
``heatmap = true`` in the exercise's config.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .checks import error_text, unwritten_text
from .numbering import FILE, Numbering
from .checkview import bound_html, lane_map_svg, report_html, show as show_view  # noqa: F401  (bound_html: grade)
from .pipeline import run_public
from .receipt import TITLE, make_receipt
from .results import TestResult, mark, plain
from .sim import Case
from .source import Submission, load_submission, read_cu
from .spec import SpecError, resolve


@dataclass
class LineCounters:
    """Counters of one source line of the student's file."""

    line: int                      # in the student's file
    template_line: int
    source: str
    metrics: dict[str, int]
    focus: str | None = None       # the label of the focus instruction on this line, if any

    def __repr__(self) -> str:
        return f"LineCounters(line {self.line}, {len(self.metrics)} metrics)"


@dataclass
class InstrRow:
    """One memory instruction of the student's kernel in the source view (labsim's InstrSummary, moved to
    the student's line numbers)."""

    line: int                      # in the student's file
    space: str
    op: str
    array: str
    requests: int
    cost: int                      # sectors (global) or wavefronts (shared)
    conflicts: int
    focus: str | None = None
    lanes: str = ""                # one warp's lane -> bank / sector map ("" when labsim kept no sample)
    map_svg: str = ""              # the same warp as a lanes x banks / sectors grid (grading.checkview)
    ideal: float = 0.0             # the least cost per request for the bytes asked (0: unknown)

    @property
    def per_request(self) -> float:
        return self.cost / self.requests if self.requests else 0.0

    def __repr__(self) -> str:
        return f"InstrRow(line {self.line}, {self.space} {self.op} {self.array!r}, {self.requests} requests)"


@dataclass
class CheckReport:
    """What the public check found; ``heatmap`` feeds figures.heatmap.draw_bank_heatmap."""

    path: str
    exercise: str
    ok: bool
    verdict: str
    blank: str | None = None
    value: int | None = None
    checks: list[TestResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problem: str | None = None
    counters: list[LineCounters] = field(default_factory=list)
    counters_case: str = ""
    heatmap: Any = None
    heatmap_summary: str = ""
    receipt: str | None = None
    # one warp's labsim WarpAccess of each [[focus]] instruction (by focus id) in the first public case, for
    # figures (sector maps, heatmaps); a focus the run never reached maps to None
    samples: dict[str, Any] = field(default_factory=dict)
    # what the student's source as written (edits outside the blank kept) does on labsim; never graded
    edited: list[str] = field(default_factory=list)
    # the same section as plain lines printed verbatim in place of ``edited`` (the grader's receipt check splices
    # the saved section in: it binds the graded lines, and the edited version runs after the verdict)
    edited_text: list[str] | None = None
    # the source view of html(): the student's file and its memory instructions (first public case)
    source_lines: list[str] = field(default_factory=list)
    instr_rows: list[InstrRow] = field(default_factory=list)
    # check(shape=...): the verdict of the run on the student's own sizes, printed after the receipt (the
    # receipt binds the public cases only, so a saved output re-runs the same with or without a shape)
    shape_lines: list[str] = field(default_factory=list)
    # which line numbers every line number above is in (the notebook cell's or the file's), printed once
    numbering: Numbering = FILE
    # a whole-kernel exercise's counter table (grading.whole.CounterTable; public cases only), or None
    counter_table: Any = None

    def __repr__(self) -> str:
        passed = sum(c.status == "passed" for c in self.checks)
        return (f"CheckReport({self.exercise}, ok={self.ok}, public {passed}/{len(self.checks)}, "
                f"blank={self.blank!r}, receipt={'yes' if self.receipt else 'no'})")

    def text(self) -> str:
        lines = [f"{self.exercise} {TITLE}{self.path}", *self.body_lines()]
        if self.receipt:
            lines.append(self.receipt)
        return "\n".join(lines + self.shape_lines)

    def body_lines(self) -> list[str]:
        """What the check prints between its title line and the receipt (what the receipt binds)."""
        lines = []
        if self.blank is not None:
            lines.append(f"填空：{self.blank}" + (f" = {self.value}" if self.value is not None else ""))
        lines.append(f"结论：{plain(self.verdict)}")
        if self.problem != "missing":
            lines.append(self.numbering.statement())
        for c in self.checks:
            lines.append(f"  {mark(c.status == 'passed')} {c.name}：{plain(c.output)}")
        for n in self.notes:
            lines.append(f"  · {plain(n)}")
        lines.extend(self.edited_text if self.edited_text is not None else [plain(ln) for ln in self.edited])
        if self.counter_table is not None:
            lines.extend(self.counter_table.text_lines())
        if self.counters:
            lines.append(f"你的内核每一行的计数器（{self.counters_case}，Nsight Compute 指标名）：")
            for lc in self.counters:
                arrow = "▶" if lc.focus else " "
                tag = f"   ← {lc.focus}" if lc.focus else ""
                lines.append(f"{arrow} 第 {lc.line} 行  {lc.source.strip()}{tag}")
                for k, v in lc.metrics.items():
                    lines.append(f"      {k} = {v}")
        if self.heatmap_summary:
            lines.append(self.heatmap_summary)
        return "\n".join(lines).splitlines()

    def markdown(self) -> str:
        """The report as Markdown (a table of checks and of the per-line counters)."""
        from .report import md_inline         # a student's characters made inert (no raw HTML, no code-span break-out)
        out = [f"**{html.escape(self.exercise)} 公开检查**：{md_inline(self.verdict)}", ""]
        if self.blank is not None:
            out += [f"填空：<code>{html.escape(self.blank, quote=False)}</code>"
                    + (f" = {self.value}" if self.value is not None else ""), ""]
        if self.checks:
            out += ["| 检查 | 结果 | 说明 |", "| --- | --- | --- |"]
            out += [f"| {md_inline(c.name)} | {mark(c.status == 'passed')} | "
                    f"{md_inline(c.output).replace('|', '&#124;')} |" for c in self.checks]
            out.append("")
        out += [f"- {md_inline(n)}" for n in self.notes]
        if self.edited:
            out += ["", f"**{md_inline(self.edited[0])}**", ""]
            out += [f"- {md_inline(ln.strip())}" for ln in self.edited[1:]]
        if self.counter_table is not None:
            out += ["", self.counter_table.markdown()]
        if self.counters:
            out += ["", f"每一行的计数器（{self.counters_case}）：", "", "| 行 | 代码 | 指标 | 值 |",
                    "| --- | --- | --- | --- |"]
            for lc in self.counters:
                code = html.escape(lc.source.strip(), quote=False).replace("|", "&#124;")
                line = f"**{lc.line}** ◀ {html.escape(lc.focus)}" if lc.focus else str(lc.line)
                for i, (k, v) in enumerate(lc.metrics.items()):
                    out.append(f"| {line if i == 0 else ''} | {('<code>' + code + '</code>') if i == 0 else ''} | `{k}` | {v} |")
        if self.heatmap_summary:
            out += ["", html.escape(self.heatmap_summary)]
        if self.receipt:
            out += ["", f"`{self.receipt}`"]
        out += [f"\n{html.escape(x)}" for x in self.shape_lines]
        return "\n".join(out)


    def html(self) -> str:
        """The notebook's view (grading.checkview): verdict and notes as in the text, then the student's kernel
        as a source view with each instruction's lane map a click away."""
        return report_html(self)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        # text/html in Jupyter and nbconvert, a raw-HTML block under Quarto; the plain text is the check's
        from .display import html_bundle
        return html_bundle(self.html(), self.text())

    def show(self) -> None:
        """Display the report again (the HTML view in a notebook, the text elsewhere)."""
        show_view(self)


def _load(path: Path, ex) -> Submission:
    if path.suffix == ".ipynb" or path.is_dir():
        return load_submission(path, ex)
    return read_cu(path, ex)


def _lanes(sample: Any) -> str:
    """One warp's lane -> sector (global, relative numbers) or lane -> bank (shared) map; "·" is inactive."""
    import numpy as np
    active = np.asarray(sample.active, dtype=bool)
    ids = sample.sector_ids() if sample.space == "global" else sample.banks
    return " ".join(str(int(v)) if a else "·" for v, a in zip(ids, active))


def _heatmap_summary(sample: Any, label: str) -> str:
    """One sampled warp of the heatmap focus: lane -> bank (shared) or lane -> sector (global)."""
    if sample is None:
        return ""
    where = f"{label}{' ' if label[-1:].isascii() else ''}的一个 warp（block {tuple(int(v) for v in sample.block)}，warp {sample.warp}）"
    if sample.space == "global":
        return (f"{where}lane 0..31 → sector（相对编号）：{_lanes(sample)}；这条指令 {sample.sectors} 个 sector。"
                "report.heatmap 可交给 figures.sectors.draw_sector_map 画出。")
    return (f"{where}lane 0..31 → bank：{_lanes(sample)}；这条指令 {sample.wavefronts} 个 wavefront。"
            "report.heatmap 可交给 figures.heatmap.draw_bank_heatmap 画出。")


MAX_SHAPE_ELEMENTS = 512 * 512   # a case the simulator runs in seconds


def check(path: str | Path | None = None, exercise: str | None = None, *, shape: Any = None,
          quiet: bool = False, cell_lines: int | None = None) -> CheckReport:
    """Run the public checks on the student's file; prints the report unless ``quiet``; never raises on
    student mistakes (an unfilled blank, a syntax error, a missing file, a bad ``shape`` give a Chinese message).

    The exercise is ``exercise``, else the one whose ``target`` has ``path``'s file name, else the only one
    installed; ``path`` defaults to the exercise's ``target``.

    ``shape`` also runs the student's kernel on sizes of one's own choosing: a tuple in the order of the first
    public case's sizes (``(65, 45)`` for lesson 9's M, N) or a dict of them. Its verdict and the focus
    instructions' counts are printed after the receipt (``report.shape_lines``), which binds the public cases
    only.

    Line numbers are the notebook cell's when the file was written by a ``%%writefile`` cell of this Jupyter
    session (found in its input history; ``cell_lines`` = the lines above the file's first line overrides
    it), else the file's; the report says which."""
    try:
        ex = resolve(exercise, path)
    except SpecError as e:
        raise SpecError(f"check({str(path or '')!r}): {e}; pass exercise=...") from None
    p = Path(path if path is not None else ex.config["target"])
    if not p.exists():
        rep = CheckReport(str(p), ex.id, False, f"找不到 {p}：先运行上面的练习单元格（它用 %%writefile 写出这个文件）。",
                          problem="missing")
        rep.receipt = make_receipt(ex.id, None, rep.body_lines(), ex.fingerprint()).line()
    else:
        sub = _load(p, ex)
        if sub.kind == "cu":
            offset = cell_lines if cell_lines is not None else writefile_offset(p)
            if offset is not None:
                sub.numbering = Numbering(sub.numbering.offset + offset, True, p.name)
        rep = _build(sub, ex, str(p), shape)
    if not quiet:
        rep.show()              # the HTML view in a notebook, the text in a terminal
    return rep


def rerun(source: str, ex, numbering: Numbering = FILE, *, edited: bool = True) -> CheckReport:
    """The check cell's report for ``source``: the grader's re-run that a saved check output (its text and
    its HTML view) is compared with (a bare submission, so no grader notes creep in). ``edited=False``: without
    the edited version's section (the grader runs that only after the verdict)."""
    return _build(Submission("check", None, "cu", source=source, numbering=numbering), ex, "", edited=edited)


def writefile_offset(path: Path) -> int | None:
    """The lines above the file's first line in the notebook cell that wrote it: the last ``%%writefile`` cell
    for this file in the running IPython session whose body is the file's text now (None: not written so,
    or not in IPython)."""
    import sys
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if not history:
        return None
    try:
        text = path.read_text(encoding="utf-8")
        target = path.resolve()
    except (OSError, UnicodeDecodeError):
        return None
    from .source import cell_header_lines
    for cell in reversed(history[-200:]):
        n = cell_header_lines(cell)
        if not n:
            continue
        magic = cell.splitlines()[n - 1].split()
        named = [w for w in magic[1:] if not w.startswith("-")]      # %%writefile [-a] FILE
        if not named or Path(named[-1].strip("'\"")).expanduser().resolve() != target:
            continue
        body = "".join(cell.splitlines(keepends=True)[n:])
        return n if body.rstrip("\n") == text.rstrip("\n") else None
    return None


def _shape_sizes(shape: Any, template: Case) -> tuple[dict[str, int] | None, str | None]:
    """(sizes, None) for a valid ``shape``, else (None, the message saying what is wrong)."""
    names = list(template.sizes)
    example = "shape=(" + ", ".join(str(v + 1) for v in template.sizes.values()) + ")"
    if isinstance(shape, dict):
        sizes = dict(shape)
    elif isinstance(shape, (tuple, list)) and len(shape) == len(names):
        sizes = dict(zip(names, shape))
    else:
        return None, f"shape 要写成 {len(names)} 个正整数（{', '.join(names)}），例如 {example}；收到的是 {shape!r}。"
    if set(sizes) != set(names) or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                                           for v in sizes.values()):
        return None, f"shape 要给出正整数的 {', '.join(names)}，例如 {example}；收到的是 {shape!r}。"
    total = 1
    for v in sizes.values():
        total *= v
    if total > MAX_SHAPE_ELEMENTS:
        return None, f"shape={shape!r} 太大：模拟器一次最多跑 {MAX_SHAPE_ELEMENTS} 个元素，换一个小一点的形状。"
    return {n: int(sizes[n]) for n in names}, None


def _shape_lines(ctx, ex, shape: Any) -> list[str]:
    """The run on the student's own sizes: its verdict, then each focus instruction's cost per request."""
    sizes, bad = _shape_sizes(shape, ctx.all_cases()[0])
    if bad:
        return [bad]
    run = ctx.run(Case("shape-" + "x".join(map(str, sizes.values())), "shape", sizes, 0))
    shown = run.case.shape_text("×")
    if run.error:
        lines = [f"你指定的 {shown} 输入运行出错：{run.error}"]
    elif run.race_count:
        r = run.races[0] if run.races else None
        what = (f"{r.kind} __shared__ {_element(r)}，第 {ctx.shown_line(r.first_line)} 行与第 "
                f"{ctx.shown_line(r.second_line)} 行" if r is not None and r.first_line and r.second_line
                else f"{run.race_count} 处")
        lines = [f"你指定的 {shown} 输入有数据竞争：{what}"]
    elif not run.correct:
        lines = [f"你指定的 {shown} 输入结果错误：{run.wrong} 个元素与参考结果不同{unwritten_text(run)}。"]
    else:
        lines = [f"你指定的 {shown} 输入结果正确。"]
    for f in ex.focus:
        s = run.summary(f.id)
        if s is not None and s.requests:
            unit = "wavefront" if s.space == "shared" else "sector"
            lines.append(f"  {f.label}：{s.requests} 个请求，每个请求 {_per_request(s.cost, s.requests)} 个 {unit}")
    return lines


def _build(sub: Submission, ex, path: str, shape: Any = None, edited: bool = True) -> CheckReport:
    return report_from_state(run_public(sub, ex), path, shape, edited=edited)


def report_from_state(st, path: str, shape: Any = None, *, edited: bool = True) -> CheckReport:
    """The check cell's report from a GradeState whose public steps ran (the check cell's own run, or the
    grader's graded run: the same compile and the same public runs, never a second one). ``edited=False``
    leaves out the edited version's section (``rep.edited`` empty): the grader's receipt check, which must
    not wait for the student's edits (grading.grade runs them last, under their own time limit)."""
    p, sub, ex = path, st.submission, st.exercise
    numbering = sub.numbering
    res = st.result
    checks = [t for t in res.tests if "public" in t.tags]
    notes = list(st.public_notes if st.public_notes is not None else res.notes)
    conf_test = next((t for t in res.tests if t.id == "conformance"), None)
    if conf_test is not None and conf_test.status == "failed" and not st.blocked:
        notes.insert(0, conf_test.output)
    if st.blocked:
        rep = CheckReport(str(p), ex.id, False, st.blocked, res.blank, res.value, [], notes, st.blocked)
        rep.numbering = numbering
        rep.receipt = make_receipt(ex.id, sub.source, rep.body_lines(), ex.fingerprint()).line()
        return rep
    passed = sum(c.status == "passed" for c in checks)
    if passed == len(checks):
        verdict = (f"公开检查全部通过（{passed}/{len(checks)}）。这只是公开用例：提交后还有隐藏检查（更多形状和随机值），"
                   "以提交后的评分为准。")
    else:
        verdict = f"公开检查通过 {passed}/{len(checks)}，没通过的项目见下面的说明。"
    if conf_test is not None and conf_test.status == "failed":
        verdict += "注意：你在填空之外改了代码，这些改动不会被评分（见说明）。"
    if conf_test is not None and conf_test.status == "failed":
        # the ✓ lines are about the template with the blank, never about the edited code: each says so
        from dataclasses import replace
        checks = [c if c.output.startswith(GRADED_VERSION) else replace(c, output=GRADED_VERSION + c.output)
                  for c in checks]
    rep = CheckReport(str(p), ex.id, passed == len(checks), verdict, res.blank, res.value, checks, notes)
    rep.numbering = numbering
    rep.counter_table = res.counter_table
    if edited and conf_test is not None and conf_test.status == "failed" and sub.source:
        rep.edited = edited_version(sub.source, ex, st.result.value, st.result.blank or "", numbering)
    ctx = st.public_ctx
    if ctx is not None and ctx.all_cases():
        run = ctx.run(ctx.all_cases()[0])         # the first public case shows the counters
        rep.counters_case = f"{run.case.shape_text('×')} 输入"
        rep.counters = _counters(run, st, ex)
        rep.source_lines = numbering.source(st.submission.source or "").splitlines()
        rep.instr_rows = _instr_rows(run, st, ex)
        rep.samples = {f.id: run.sample(f.id) for f in ex.focus}
        hm = ex.heatmap_focus
        if hm is not None:
            rep.heatmap = run.sample(hm.id)
            rep.heatmap_summary = _heatmap_summary(rep.heatmap, hm.label)
    rep.receipt = make_receipt(ex.id, sub.source, rep.body_lines(), ex.fingerprint()).line()
    if shape is not None and ctx is not None and ctx.all_cases():
        rep.shape_lines = _shape_lines(ctx, ex, shape)
    return rep


EDITED_TITLE = "你修改后的版本（不计分）"
EDITED_HEAD = f"{EDITED_TITLE}：按你写的代码（含填空之外的改动）在 labsim 上运行，只供观察："
GRADED_VERSION = "（评分版本：模板 + 你的填空）"


def saved_edited_section(lines: list[str]) -> list[str]:
    """The edited version's section of a check's printed lines (its head line and the indented lines after
    it), as printed; [] when there is none."""
    start = next((k for k, ln in enumerate(lines) if ln.startswith(EDITED_TITLE)), None)
    if start is None:
        return []
    end = start + 1
    while end < len(lines) and lines[end].startswith(" "):
        end += 1
    return list(lines[start:end])


def edited_version(source: str, ex, value: int | None, blank: str, numbering: Numbering = FILE) -> list[str]:
    """What the student's source as written (edits outside the blank kept) does on labsim, in the check's
    lines: races with both source lines, wrong elements under the adversarial schedule, out-of-bounds
    accesses. Only shown; the graded source is always the template plus the blank. labsim interprets the
    code under its own step and size limits, so an edited loop that never ends gives a message, not a hang."""
    from .context import RunContext
    from .sim import LabsimError, compile_source
    source = numbering.source(source)          # compiled as shown: every line it reports is the student's
    src_lines = source.splitlines()

    def at(line: int | None) -> str:
        if line is None or not 0 < line <= len(src_lines):
            return f"第 {line} 行"
        return f"第 {line} 行 `{src_lines[line - 1].strip()}`"

    head = EDITED_HEAD
    try:
        program = compile_source(source, numbering.where if numbering.cell else ex.target_name)
    except LabsimError as e:
        return [head, f"  labsim 无法编译你修改后的版本。labsim 的报错原文是“{e}”。"]
    except Exception as e:  # only an illustration: a front-end bug must not break the check cell
        return [head, f"  labsim 无法运行你修改后的版本（{type(e).__name__}，不是你的问题）。"]
    ctx = RunContext(ex, program, ex.public_module.cases(), value=value, blank=blank)
    cases = ctx.all_cases()
    if not cases:
        return []
    from labsim.budget import limited
    with limited(EDITED_WORK_LIMIT):        # an illustration: it never gets the graded run's time
        return [head, *_edited_lines(ctx, cases, at)]


# thread-steps per launch of the edited version's runs (labsim.budget; lesson 10's 64×64×64 public case needs
# about half): a launch of 1 << 28 blocks in an edited host function is refused at once, a long one stops
EDITED_WORK_LIMIT = 1 << 26


def _edited_lines(ctx, cases, at) -> list[str]:
    out: list[str] = []
    verbs = {"RAW": ("写", "读"), "WAR": ("读", "写"), "WAW": ("写", "写")}
    example_shown = False                   # race examples once: the other cases' races are the same lines
    for case in cases:
        for schedule, name in (("lockstep", "按 warp 顺序执行"), ("adversarial", "对抗调度（一种不利的 warp 顺序）")):
            rec = ctx.run(case, schedule)
            where = f"  {case.shape_text('×')} 输入，{name}："
            if rec.error_kind:
                out.append(f"{where}{error_text(rec)}。")
                break
            out.append(where + ("输出正确。" if rec.correct else
                                f"输出有 {rec.wrong} 个元素与参考答案不同{unwritten_text(rec)}。"))
            if schedule == "lockstep" and rec.race_count:
                out.append(f"    数据竞争 {rec.race_count} 处（没有 barrier 隔开的不同 warp 访问同一个 shared 元素）"
                           + ("。" if example_shown else "，例如："))
                for r in [] if example_shown else rec.races[:2]:
                    v = verbs.get(r.kind, ("访问", "访问"))
                    out.append(f"    {r.kind} __shared__ {_element(r)}，block {tuple(r.block)}："
                               f"线程 {tuple(r.first_thread)} 在{at(r.first_line)} {v[0]}，"
                               f"线程 {tuple(r.second_thread)} 在{at(r.second_line)} {v[1]}")
                example_shown = True
    return out


def _element(race: Any) -> str:
    """The shared element a race is on, as C names it (``tile[1][0]``)."""
    return getattr(race, "element", None) or f"{race.array}[{race.index}]"


def _ideal(s: Any) -> float:
    """Least cost per request: conflict-free wavefronts (shared), the requested bytes in whole 32-byte sectors
    (global: 4 for a warp of floats)."""
    if not s.requests:
        return 0.0
    if s.space == "shared":
        return (s.cost - s.conflicts) / s.requests
    return max(1.0, getattr(s, "bytes_requested", 0) / 32 / s.requests)


def _instr_rows(run, st, ex) -> list[InstrRow]:
    line_map = st.conformance.line_map if st.conformance else {}
    rows = []
    for s in run.instructions:
        if s.line is None or not s.requests:
            continue
        focus = next((f.label for f in ex.focus if f.matches(s)), None)
        where = (f"block {tuple(int(v) for v in s.sample.block)} warp {s.sample.warp} lane 0..31 → "
                 f"{'sector' if s.space == 'global' else 'bank'}：") if s.sample is not None else ""
        lanes = where + _lanes(s.sample) if s.sample is not None else ""
        svg = lane_map_svg(s.sample) if s.sample is not None else ""
        shown = line_map.get(s.line, s.line + st.submission.numbering.offset)
        rows.append(InstrRow(shown, s.space, s.op, s.array, int(s.requests), int(s.cost),
                             int(s.conflicts), focus, lanes, svg, _ideal(s)))
    return rows


def _counters(run, st, ex) -> list[LineCounters]:
    src_lines = st.submission.numbering.source(st.submission.source or "").splitlines()
    line_map = st.conformance.line_map if st.conformance else {}
    labels = {f.line: f.label for f in ex.focus}
    out = []
    for tline, metrics in sorted((k, v) for k, v in run.by_line.items() if k is not None):
        sline = line_map.get(tline, tline + st.submission.numbering.offset)
        text = src_lines[sline - 1] if 0 < sline <= len(src_lines) and src_lines[sline - 1].strip() \
            else ex.template.splitlines()[tline - 1]
        shown = {k: int(v) for k, v in metrics.items() if k != "races"}
        out.append(LineCounters(sline, tline, text, shown, labels.get(tline)))
    return out


def _per_request(cost: int, requests: int) -> str:
    """Sectors or wavefronts per request as a reader wants it: 4, 23.5, 5.29 (not 5.29412)."""
    return f"{cost / requests:.2f}".rstrip("0").rstrip(".")
