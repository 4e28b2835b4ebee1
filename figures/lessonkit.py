"""What every lesson module of figures needs, in one place: the exercise (through grading's API), its fill for the
demos, line numbering, the H200 recordings and the external figures.

* **The exercise.** :func:`exercise` is ``grading.load_exercise``; :func:`source` fills the template's blank and
  applies demo edits (each must match exactly once, so line numbers never shift); :func:`run` compiles it with
  labsim.cuda and calls the exercise's own host launcher on one of its cases.
* **The fill.** No module of figures holds an exercise's answer (the kit ships figures). Tables that need a
  filled kernel ask :func:`demo_fill`: on the answer branch (and for instructors and tests, where the repo has
  it) the reference fill read from the exercise's ``solution.cu``; on the exercise branch, and in the student
  kit (which has no ``solution.cu``), the student's own fill from the file the exercise cell wrote, once it is
  filled; otherwise :class:`NeedsFill`, which :func:`after_exercise` turns into a note telling the student to
  finish the exercise first.
* **Line numbers** the student sees are the exercise cell's: ``grading.numbering`` (``%%writefile`` is line 1).
* **H200 recordings** only through ``figures.recordings`` (:func:`records`); a missing recording answers None
  ("not recorded"), never a guess.
* **External figures** (Harris's published bandwidths) from one labelled file, ``figures/data/harris_2013.json``
  (:func:`harris`).
* **Pure figures.** :func:`pure_figure` marks a figure function whose picture depends only on its arguments and
  the repo: the course build (``COURSEBUILD_FIGURE_CACHE``) renders it once and shows the stored PNG on the other
  branch; while it runs, reading the branch or a fill raises :class:`ImpureFigure`.
* **Tables' plumbing.** :func:`outcome_table` (labelled variants -> 结果正确 / 结果错误（n 个元素）/ the LabsimError
  in the cell's numbering), :func:`race_table` (variants × warp orders, races grouped by line pair) and
  :func:`racecheck_table` (recorded H200 runs beside labsim's, with the lessons' markers): a lesson module passes
  its variants, labels and captions only.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import inspect
import io
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from ._fonts import t

DATA = Path(__file__).resolve().parent / "data"
BLANK = "______"


# ---- the exercise, through grading's API --------------------------------------------------------------------

def exercise(eid: str):
    """grading's Exercise ``eid`` (template, blank, host function, cases)."""
    from grading.spec import load_exercise
    return load_exercise(eid)


def template(eid: str) -> str:
    return exercise(eid).template


def source(eid: str, blank: str, edits: Sequence[tuple[str, str]] = ()) -> str:
    """The exercise's template with the blank filled and each ``(old, new)`` edit applied once.

    Fills and edits stay on their line, so the template's line numbers hold (the exercise cell's are +1)."""
    ex = exercise(eid)
    if ex.template.count(ex.blank) != 1:
        raise ValueError(f"{eid}: the template must hold the blank {ex.blank} exactly once")
    src = ex.fill(blank)
    for old, new in edits:
        if src.count(old) != 1:
            raise ValueError(f"{eid}: a demo edit expects exactly one {old!r} in the template, found {src.count(old)}")
        src = src.replace(old, new)
    return src


def cell_line(file_line: int | None) -> int | None:
    """The exercise cell's line of a line of the written file (the ``%%writefile`` line is the cell's line 1)."""
    from grading.numbering import Numbering
    return Numbering(1, True)(file_line)


def cell_message(message: str) -> str:
    """A labsim.cuda message's ``file.cu:L:C: error:`` as the exercise cell numbers it (``单元格第 L+1 行第 C 列：``)."""
    import re
    return re.sub(r"([\w.-]+\.cu):(\d+):(\d+):(?: error:)? ?",
                  lambda m: t(f"单元格第 {cell_line(int(m[2]))} 行第 {m[3]} 列：",
                              f"cell line {cell_line(int(m[2]))}, column {m[3]}: "), message, count=1)


def run_source(eid: str, code: str, args: Sequence[Any], *, schedule: str = "lockstep", **launch_options):
    """Compile ``code`` (the exercise's template, filled and edited) with labsim.cuda under the exercise's file
    name and call the exercise's host launcher with ``args``; returns what the launcher returns (a labsim.cuda
    Result, or a tuple of them)."""
    from labsim.cuda import compile as compile_cuda
    ex = exercise(eid)
    prog = compile_cuda(code, ex.target_name)
    return prog.call(ex.config["host_function"], *args, schedule=schedule, **launch_options)


def run(eid: str, blank: str, edits: Sequence[tuple[str, str]] = (), *, args: Sequence[Any],
        schedule: str = "lockstep", **launch_options):
    """:func:`run_source` of :func:`source` (the template with ``blank`` and ``edits``)."""
    return run_source(eid, source(eid, blank, edits), args, schedule=schedule, **launch_options)


# ---- the fill the demos run ---------------------------------------------------------------------------------

class NeedsFill(LookupError):
    """A table needs a filled exercise and none is available here (exercise branch, blank not filled yet)."""


@dataclass(frozen=True)
class Fill:
    """The text of a blank and where it came from: ``"reference"`` (solution.cu) or ``"yours"`` (the student's)."""

    text: str
    origin: str

    @property
    def label(self) -> str:
        return t("参考填法", "reference fill") if self.origin == "reference" else t("你的填法", "your fill")

    def __repr__(self) -> str:
        return f"Fill({self.origin})"


def branch() -> str | None:
    """The branch the course build is executing ("answer", "exercise"), or None outside the build."""
    _not_in_pure_figure("lessonkit.branch()")
    return os.environ.get("COURSEBUILD_BRANCH") or os.environ.get("QUARTO_PROFILE") or None


def blank_of(eid: str, code: str) -> str | None:
    """The text ``code`` has where the template has the blank, as written (None: not filled or not aligned)."""
    from grading.conformance import check_conformance
    ex = exercise(eid)
    conf = check_conformance(ex.template, code, blank=ex.blank, names=ex.names, regions=ex.regions)
    toks = conf.blank_tokens
    if conf.problem_kind in ("unfilled", "unrelated") or not toks or BLANK in conf.blank_text:
        return None
    lines = code.splitlines()
    if toks[0].line != toks[-1].line or not 1 <= toks[0].line <= len(lines):
        return conf.blank_text
    line = lines[toks[0].line - 1]
    for base in (0, 1):             # the tokenizer's columns: find the convention that reproduces the tokens
        a, b = toks[0].col - base, toks[-1].col - base + len(toks[-1].text)
        if a >= 0 and line[a:a + len(toks[0].text)] == toks[0].text and line[b - len(toks[-1].text):b] == toks[-1].text:
            return line[a:b]
    return conf.blank_text


def reference_fill(eid: str) -> str:
    """The reference fill, from the exercise's ``solution.cu`` (instructor copy and answer build only)."""
    _not_in_pure_figure(f"lessonkit.reference_fill({eid!r})")
    ex = exercise(eid)
    path = ex.solution_path
    if not path.is_file():
        raise NeedsFill(f"{eid}: no reference solution here ({path.name} is not shipped to students)")
    fill = blank_of(eid, path.read_text(encoding="utf-8"))
    if fill is None:
        raise ValueError(f"{eid}: {path} does not fill the template's blank")
    return fill


def student_fill(eid: str) -> str | None:
    """The student's fill, from the file the exercise cell wrote (None: not written or not filled yet)."""
    _not_in_pure_figure(f"lessonkit.student_fill({eid!r})")
    path = Path(exercise(eid).config["target"])
    try:
        code = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return blank_of(eid, code)


def demo_fill(eid: str) -> Fill:
    """The fill the lesson's demos run: the reference where the build may read it (answer branch, or outside
    the build where ``solution.cu`` exists), else the student's own; :class:`NeedsFill` when there is neither."""
    _not_in_pure_figure(f"lessonkit.demo_fill({eid!r})")
    if branch() != "exercise":
        try:
            return Fill(reference_fill(eid), "reference")
        except NeedsFill:
            pass
    mine = student_fill(eid)
    if mine is None:
        raise NeedsFill(eid)
    return Fill(mine, "yours")


class Note(str):
    """A sentence shown in place of a table (a paragraph in a notebook, plain text in a terminal)."""

    def _repr_markdown_(self) -> str:
        return "".join("\\" + c if c in "_*`[]" else c for c in str(self))

    def __repr__(self) -> str:
        return str(self)


def needs_fill_note(eid: str) -> Note:
    target = exercise(eid).config["target"]
    return Note(t(f"（这一项要用填好的练习计算：先完成上面的练习（{target}）并运行检查单元格，再运行本单元格。）",
                  f"(this needs the filled exercise: complete the exercise ({target}) and run the check first)"))


PENDING = t("（完成练习后显示）", "(after the exercise)")


def or_pending(compute: Callable[[], Any]) -> Any:
    """``compute()``, or :data:`PENDING` where it needs the student's fill (a table keeps its recorded H200
    columns on the exercise branch; only labsim's cells of the filled kernel wait for the exercise)."""
    try:
        return compute()
    except NeedsFill:
        return PENDING


def needs_fill_figure(eid: str):
    """A figure holding :func:`needs_fill_note` (a lesson's numbered figure stays a figure on every branch)."""
    from matplotlib.figure import Figure
    fig = Figure(figsize=(7.6, 0.8))
    ax = fig.add_axes((0, 0, 1, 1))        # IPython shows a figure without axes as its repr, not as a PNG
    ax.axis("off")
    ax.text(0.5, 0.5, str(needs_fill_note(eid)), ha="center", va="center", fontsize=9, wrap=True)
    return fig


def after_exercise(eid: str) -> Callable:
    """Decorator for a lesson function that runs the filled exercise: where there is no fill yet, it returns
    :func:`needs_fill_note` instead of raising (a function annotated to return a Figure returns
    :func:`needs_fill_figure`, so the lesson's figure numbers and cross references hold)."""
    def wrap(fn: Callable) -> Callable:
        figure = "Figure" in str(getattr(fn, "__annotations__", {}).get("return", ""))

        @functools.wraps(fn)
        def inner(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except NeedsFill:
                return needs_fill_figure(eid) if figure else needs_fill_note(eid)
        return inner
    return wrap


# ---- pure figures: rendered once per course build, shown on both branches ----------------------------------

FIGURE_CACHE_ENV = "COURSEBUILD_FIGURE_CACHE"
_PURE: contextvars.ContextVar[str | None] = contextvars.ContextVar("pure_figure", default=None)


class ImpureFigure(RuntimeError):
    """A function declared :func:`pure_figure` read the branch or a fill, so its picture may differ between the
    answer and the exercise branch and must not be rendered once for both."""


def _not_in_pure_figure(what: str) -> None:
    name = _PURE.get()
    if name is not None:
        raise ImpureFigure(f"{name} is declared @pure_figure but calls {what}: its picture can differ between the "
                           "answer and the exercise branch (or with the student's file), so the build must not "
                           "render it once for both; remove @pure_figure from it")


class CachedFigure:
    """A figure the build rendered before: IPython shows its stored display bundle (the PNG and text/plain the
    inline formatter made from the real Figure)."""

    def __init__(self, data: dict, metadata: dict) -> None:
        self.data, self.metadata = data, metadata

    def _repr_mimebundle_(self, include=None, exclude=None):
        return dict(self.data), dict(self.metadata)

    def __repr__(self) -> str:
        return str(self.data.get("text/plain", "<CachedFigure>"))


def _plain(v: Any) -> bool:
    """True for values whose repr says all of them (no numpy arrays, paths to files, objects)."""
    if type(v) in (type(None), bool, int, float, str):
        return True
    if type(v) in (tuple, list):
        return all(_plain(x) for x in v)
    if type(v) is dict:
        return all(_plain(k) and _plain(x) for k, x in v.items())
    return False


def _callable_name(f: Any) -> str:
    if isinstance(f, functools.partial):
        return (f"partial({_callable_name(f.func)}, {f.args!r}, "
                f"{sorted((k, repr(v)) for k, v in f.keywords.items())!r})")
    return f"{getattr(f, '__module__', '?')}.{getattr(f, '__qualname__', type(f).__qualname__)}"


def _display_state(shell) -> str | None:
    """How IPython turns a Figure into output here: each formatter's function for Figure (format, dpi, bbox and
    any other keyword of ``set_matplotlib_formats``) and the active types; None where something other than the
    per-mimetype formatters (an interactive backend) displays figures."""
    from matplotlib.figure import Figure
    df = shell.display_formatter
    for special in (df.ipython_display_formatter, df.mimebundle_formatter):
        with contextlib.suppress(KeyError):
            special.lookup_by_type(Figure)
            return None
    state = []
    for mime, fmt in df.formatters.items():
        try:
            state.append((mime, fmt.enabled, _callable_name(fmt.lookup_by_type(Figure))))
        except KeyError:
            state.append((mime, fmt.enabled, None))
    return repr((state, sorted(df.active_types)))


def _figure_key(fn: Callable, arguments: dict, display: str) -> str:
    """Everything the PNG depends on besides the repo (whose digest names the cache folder): the function, its
    arguments, every rcParam, how figures are displayed, the labels' language and font, the libraries drawing."""
    import matplotlib
    import numpy
    from matplotlib import ft2font

    from grading.display import quarto_rendering
    from ._fonts import cjk_family
    parts = [f"{fn.__module__}.{fn.__qualname__}", repr(sorted(arguments.items())),
             repr(sorted((k, repr(v)) for k, v in matplotlib.rcParams.items())), display, repr(cjk_family()),
             matplotlib.__version__, ft2font.__freetype_version__, numpy.__version__,
             os.environ.get("LABSIM_COUNTING", ""), repr(quarto_rendering())]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


@contextlib.contextmanager
def _pure(name: str):
    token = _PURE.set(name)
    try:
        yield
    finally:
        _PURE.reset(token)


def pure_figure(fn: Callable) -> Callable:
    """Decorator for a figure function whose picture depends only on its arguments and the repo's inputs (never
    on the branch, a fill, the student's files, the global random state, nor on output it prints).

    While it runs, :func:`branch`, :func:`reference_fill`, :func:`student_fill` and :func:`demo_fill` raise
    :class:`ImpureFigure`, so a wrong declaration fails loudly instead of showing one branch's picture on the
    other. Where the course build sets ``COURSEBUILD_FIGURE_CACHE`` (a folder named by the digest of all its
    inputs) and IPython displays the result, the first call renders the Figure as IPython's inline formatter
    does and stores that display bundle; later calls with the same key (:func:`_figure_key`) return a
    :class:`CachedFigure` showing the same bytes. Elsewhere (tests, students) it returns the real Figure.
    Arguments other than plain values (numbers, strings, tuples, lists, dicts of them) are never cached."""
    name = f"{fn.__module__}.{fn.__qualname__}"
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def inner(*args, **kwargs):
        folder = os.environ.get(FIGURE_CACHE_ENV)
        shell = None
        if folder and _PURE.get() is None:          # a pure figure inside another one stays a Figure
            with contextlib.suppress(ImportError):
                from IPython import get_ipython
                shell = get_ipython()
        if shell is None:
            with _pure(name):
                return fn(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        display = _display_state(shell)
        if display is None or not _plain(dict(bound.arguments)):
            with _pure(name):
                return fn(*args, **kwargs)
        path = Path(folder) / f"{fn.__qualname__}-{_figure_key(fn, dict(bound.arguments), display)[:24]}.json"
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            return CachedFigure(stored["data"], stored["metadata"])
        except (OSError, ValueError, KeyError):
            pass
        return _render_and_store(fn, name, args, kwargs, shell, path)

    inner.pure_figure = True
    return inner


def _render_and_store(fn: Callable, name: str, args, kwargs, shell, path: Path):
    """Call ``fn`` and format its Figure as IPython would; store the bundle unless the call or the rendering
    printed or warned (the other branch would not see that output), or the result is no figure."""
    from matplotlib.figure import Figure
    out = io.StringIO()
    with _pure(name), warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
        fig = fn(*args, **kwargs)
        bundle = shell.display_formatter.format(fig) if isinstance(fig, Figure) else None
    if out.getvalue():
        print(out.getvalue(), end="")
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if bundle is None or out.getvalue() or caught:
        return fig
    data, metadata = bundle
    if not any(k.startswith("image/") for k in data):
        return fig
    try:
        text = json.dumps({"function": name, "data": data, "metadata": metadata}, ensure_ascii=False)
    except (TypeError, ValueError):
        return fig
    from .static_explorer import write_build_cache
    write_build_cache(path, text)
    return CachedFigure(data, metadata)


# ---- recordings and external figures ------------------------------------------------------------------------

def measurements_dir() -> Path:
    """Where the repo keeps the H200 recordings (absent in the student kit; read them through :func:`records`)."""
    from . import recordings
    return recordings.measurements_dir()


def records():
    """figures.recordings, the one reader of the H200 recordings (the repo's measurements/h200/ or the student
    kit's bundle); every answer is None where nothing is recorded."""
    from . import recordings
    return recordings


@functools.lru_cache(maxsize=1)
def harris() -> dict:
    """Harris's published effective bandwidths (external, not measured here): ``figures/data/harris_2013.json``."""
    return json.loads((DATA / "harris_2013.json").read_text(encoding="utf-8"))


def harris_gbps(kernel: str, gpu: str) -> float:
    return float(harris()["gbps"][kernel][gpu])


def metric(space: str, op: str, what: str) -> str:
    """The Nsight Compute name of a counter (``metric("global", "st", "cost")`` = the store sectors)."""
    from labsim.stats import METRIC_NAMES
    return METRIC_NAMES[(space, op, what)]


HARRIS_NOTES = {"transpose_tiled_pad0": t("（分块，不填充）", " (tiled, unpadded)"),
                "transpose_tiled_pad1": t("（分块 + 填充）", " (tiled + padding)")}


def harris_table():
    """Harris's published table (external; ``figures/data/harris_2013.json``) as the lessons quote it."""
    from .table import Table
    h = harris()
    rows = [[h["blog_names"][k] + HARRIS_NOTES.get(k, ""), *(v[g] for g in h["gpus"])] for k, v in h["gbps"].items()]
    return Table([t("内核", "kernel"), *(f"Tesla {g}" for g in h["gpus"])], rows)


# ---- a lesson's challenge (issue 29): what its counter point asks and the H200's speed, read, never typed ----

def challenge_targets(eid: str) -> Note:
    """The challenge's counter points from its config.toml: each label, target, reference and ideal."""
    from grading.whole import counter_targets
    return Note("".join(
        f"计数器评分：{c.label}不超过 {c.target:g}（参考解 {c.reference:g}"
        + (f"，理想值 {c.ideal:g}" if c.ideal is not None else "") + "）。"
        for c in counter_targets(exercise(eid))))


def challenge_speed(eid: str) -> Note:
    """The H200's measured speed of the challenge's reference and baseline (round 3, :func:`recordings.challenge_speed`),
    with the config's ``[h200] note`` where the reference is not faster."""
    from . import recordings
    ref, base = (recordings.challenge_speed(eid, v) for v in ("solution", "baseline"))
    if ref is None or base is None:
        return Note("H200 上的速度（第三轮测量）尚未记录。")
    key, unit = ("gflops_median", "GFLOP/s") if "gflops_median" in ref else ("gbps_median", "GB/s")
    size = "×".join(str(ref[k]) for k in ("M", "N", "K") if k in ref) or f"n = {ref.get('n')}"
    r = ref[key] / base[key]
    return Note(f"H200 上的速度（第三轮测量，{size}，20 次启动的中位数）：参考解 {ref[key]:.0f} {unit}，"
                f"课上的基线内核 {base[key]:.0f} {unit}" + (f"，快 {r:.1f} 倍。" if r >= 1.1 else
                f"（参考解是基线的 {r:.2f} 倍）。" + exercise(eid).config.get("h200", {}).get("note", "")))


# ---- outcome, race and recorded-run tables: the plumbing; each lesson keeps its variants, labels, captions -----

RIGHT = t("结果正确", "right")
NOT_RECORDED = t("（未记录）", "(not recorded)")   # the recording is absent here
NOT_RUN = "—"                                      # recorded, but the H200 did not run this case that way
NOT_RUN_NOTE = t("—：H200 上没有以这种方式运行这个尺寸。", "—: not run that way on the H200.")
NOT_SIMULATED = t("（太大，不模拟）", "(not simulated)")
SCHEDULES = ("lockstep", "adversarial")
RACE_VERBS = {"RAW": t("写后读", "write then read"), "WAR": t("读后写", "read then write"),
              "WAW": t("写后写", "write then write")}


def missing(recorded: bool) -> str:
    """The cell of a case without an H200 value: :data:`NOT_RUN` where the recording exists, else NOT_RECORDED."""
    return NOT_RUN if recorded else NOT_RECORDED


def wrong_text(wrong: int) -> str:
    """``结果正确`` or ``结果错误（n 个元素）``."""
    return RIGHT if wrong == 0 else t(f"结果错误（{wrong} 个元素）", f"wrong ({wrong})")


def error_text(e: Exception) -> str:
    """A LabsimError as a table cell: its type and the message's first line, numbered as the exercise cell is
    (the caret lines under it need a fixed-width font, which a table cell has not)."""
    return f"{type(e).__name__}: {cell_message(str(e).split(chr(10))[0])}"


def outcome(run: Callable[[], int], *, error: Callable[[Exception], str] = error_text) -> tuple[str, int | None]:
    """Run ``run()`` (the number of wrong elements, or a LabsimError): (:func:`wrong_text` or ``error(e)``,
    the number or None)."""
    from labsim.errors import LabsimError
    try:
        wrong = int(run())
    except LabsimError as e:
        return error(e), None
    return wrong_text(wrong), wrong


def outcome_table(variants: Sequence[tuple[str, Any]], run: Callable[[Any], int], *, header: str, caption: str,
                  count_header: str | None = None, error: Callable[[Exception], str] = error_text):
    """One row per ``(label, variant)``: the label and labsim's outcome of ``run(variant)`` (the number of wrong
    elements, or a LabsimError shown by ``error``); with ``count_header`` a third column holds the number ("—"
    after an error)."""
    from .table import Table
    rows = []
    for label, variant in variants:
        text, wrong = outcome(lambda: run(variant), error=error)
        rows.append([label, text] + ([NOT_RUN if wrong is None else wrong] if count_header else []))
    return Table([header, t("labsim 的结果", "labsim outcome")] + ([count_header] if count_header else []), rows,
                 caption=caption)


def race_groups(res) -> list[tuple[str, str, int, int]]:
    """The distinct (kind, array, first line, second line) of the races labsim reported, in cell lines."""
    return list(_race_examples(res))


def _race_examples(res) -> dict:
    """Each :func:`race_groups` key with the first race labsim reported for it (its element and threads)."""
    seen: dict = {}
    for r in res.races:
        seen.setdefault((r.kind, r.array, cell_line(r.first_line), cell_line(r.second_line)), r)
    return seen


RACE_ACTS = {"RAW": ("写", "读"), "WAR": ("读", "写"), "WAW": ("写", "写")}


def race_notes(label: str, res, code: Callable[[str], str] = str) -> list[str]:
    """Two notes per :func:`race_groups` of ``res``: the kind, the array, the two cell lines and their code (each
    shown through ``code``, e.g. to mask an exercise's answer); then the first such race labsim reported, with
    its block, threads and element (what racecheck prints), so a student can follow one case by hand."""
    def line(cell_ln: int) -> str:
        return code(res.source_line(cell_ln - 1).split("//")[0].strip())
    def example(r) -> str:
        first, second = RACE_ACTS[r.kind]
        return t(f"  例如 block {r.block} 里，线程 {r.first_thread} 在第 {cell_line(r.first_line)} 行{first} "
                 f"{r.element}，线程 {r.second_thread} 在第 {cell_line(r.second_line)} 行{second}同一个元素，两者之间没有屏障。",
                 f"  e.g. {r}")
    notes = []
    for (kind, array, l1, l2), r in _race_examples(res).items():
        notes += [t(f"{label}：{kind}（{RACE_VERBS[kind]}）{array}，单元格第 {l1} 行 ↔ 第 {l2} 行：{line(l1)}  ↔  {line(l2)}",
                    f"{label}: {kind} on {array}, cell lines {l1} and {l2}"), example(r)]
    return notes


def race_table(variants: Sequence[tuple[str, Any]], run: Callable[[Any, str], tuple[Any, int]], *,
               wrong_header: str, caption: str, code: Callable[[str], str] = str):
    """Each ``(label, variant)`` under each of :data:`SCHEDULES`: ``run(variant, schedule)`` returns (labsim
    Result, wrong elements); a row holds the races labsim detected and the wrong elements. Notes: the races of
    each variant's lockstep run grouped by line pair (:func:`race_notes`)."""
    from .table import Table
    rows, notes = [], []
    for label, variant in variants:
        for schedule in SCHEDULES:
            res, wrong = run(variant, schedule)
            rows.append([label, schedule, res.race_count, int(wrong)])
            if schedule == "lockstep":      # lockstep shows each race in its natural order
                notes += race_notes(label, res, code)
    return Table([t("版本", "version"), t("warp 执行顺序", "warp order"), t("检测到的竞争", "races detected"),
                  wrong_header], rows, caption=caption, notes=notes)


@dataclass(frozen=True)
class RecordedRun:
    """One row of :func:`racecheck_table`: leading ``cells`` (version, shape), the H200's ``(wrong, total)`` per
    recorded column (None: not run that way), labsim's ``simulate() -> (wrong, total)`` (None: too large to
    simulate) and trailing ``extra`` cells."""

    cells: Sequence[Any]
    recorded: Sequence[tuple[int, int] | None]
    simulate: Callable[[], tuple[int, int]] | None = None
    extra: Sequence[Any] = ()


def racecheck_table(runs: Sequence[RecordedRun], *, recorded: bool, headers: Sequence[str], caption: str):
    """H200 runs of a kernel with a race (read from figures.recordings by the lesson; ``recorded``: whether the
    recording exists) next to labsim's: "wrong / total" cells, :func:`missing` where the H200 has no value,
    :data:`NOT_SIMULATED` and :data:`PENDING` for labsim's; a note explains the dash."""
    from .table import Table

    def pair(p: tuple[int, int] | None) -> str:
        return missing(recorded) if p is None else f"{p[0]} / {p[1]}"

    rows = [[*r.cells, *(pair(p) for p in r.recorded),
             NOT_SIMULATED if r.simulate is None else or_pending(lambda: pair(r.simulate())), *r.extra] for r in runs]
    return Table(list(headers), rows, caption=caption, notes=[NOT_RUN_NOTE] if recorded else [])


def gbps_cells(rec: dict) -> tuple[int, str]:
    """A recorded bandwidth run's median and its "min–max", in whole GB/s (the runs spread by far more)."""
    return round(float(rec["gbps_median"])), f"{round(float(rec['gbps_min']))}–{round(float(rec['gbps_max']))}"
