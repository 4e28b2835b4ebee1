"""Run receipts: the check cell's last line binds the code it ran to everything it printed.

    运行凭据 receipt lesson09 model=<labsim.MODEL_VERSION> tool=<8 hex> code=<12 hex> out=<12 hex>

``code`` hashes the exercise source's tokens (whitespace and comments do not count), ``out`` every line the
check printed between its title line and the receipt, ``model`` is labsim's counting-model version and
``tool`` the exercise's template and public checks. The algorithm ships with the student kit, so a receipt
carries no secret and a student could recompute it: the grader verifies by re-running the public check on
the submitted code and comparing the saved output line by line. Only the check cell that matters is read
(the last cell tagged ``course_role: check`` after the exercise cell), so an old receipt in another cell's
output neither vetoes nor vouches for anything.

Verdicts (``ReceiptCheck.status``):

- ``none``: the check cell has no saved output (nothing was claimed);
- ``ok``: same model and tool, and the saved output is what the re-run prints;
- ``stale_code``: the receipt's code is not the submitted code (edited after running), at any version;
- ``edited``: the saved output differs from what it printed (its hash) or from the re-run (same version),
  or its receipt line is missing or malformed; the message names the first line that differs;
- ``recheck``: made under another model or tool version: the lines cannot be compared with this version's
  re-run, the code and the output's own hash still are; never vetoed for the version alone, never counted
  as verified: it needs a re-run (grading uses the grader's own run in every case).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from .ctokens import tokenize

PREFIX = "运行凭据 receipt"
TITLE = "公开检查："
_RX = re.compile(r"receipt (?P<ex>[\w-]+) model=(?P<model>[\w.+-]{1,32}) tool=(?P<tool>[0-9a-f]{8}) "
                 r"code=(?P<code>[0-9a-f]{12}) out=(?P<out>[0-9a-f]{12})\s*$")
FLAGGED = ("stale_code", "edited")
NO_CODE = "0" * 12           # the check found no file to run: its output claims no result


def _h(text: str, n: int) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:n]


def model_version() -> str:
    """labsim's counting-model version, with ``+<mode>`` when labsim counts in a mode other than its default
    source rules (``LABSIM_COUNTING=sass``): such counts are re-checked, not trusted."""
    try:
        import labsim
        version = str(getattr(labsim, "MODEL_VERSION", "0"))
    except ImportError:
        return "none"
    mode = counting_mode()
    return version if mode in ("source-rules", "none") else f"{version}+{mode}"


def counting_mode() -> str:
    """How labsim decides what the compiler did (``labsim.cuda.sass.default_counting``): "source-rules" or
    "sass"."""
    try:
        from labsim.cuda import sass
        return sass.default_counting()
    except (ImportError, AttributeError):
        return "none"
    except ValueError:                # a bad LABSIM_COUNTING: every launch reports it
        return "invalid"


def code_hash(source: str) -> str:
    return _h(" ".join(t.text for t in tokenize(source)), 12)


def _norm(lines: list[str]) -> list[str]:
    return [ln.rstrip() for ln in lines]


def out_hash(lines: list[str]) -> str:
    return _h("\n".join(_norm(lines)), 12)


@dataclass(frozen=True)
class Receipt:
    exercise: str
    model: str
    tool: str
    code: str
    out: str

    def line(self) -> str:
        return f"{PREFIX} {self.exercise} model={self.model} tool={self.tool} code={self.code} out={self.out}"

    def __repr__(self) -> str:
        return f"Receipt({self.exercise}, model={self.model}, code={self.code}, out={self.out})"


def make_receipt(exercise: str, source: str | None, printed: list[str], fingerprint: str) -> Receipt:
    """The receipt for ``printed`` (the check's lines after its title line) produced from ``source``."""
    code = NO_CODE if source is None else code_hash(source)
    return Receipt(exercise, model_version(), fingerprint[:8], code, out_hash(printed))


@dataclass
class SavedCheck:
    """The saved output of the check cell that matters: the lines it printed and its receipt line."""

    cell: int                      # index among the notebook's code cells
    lines: list[str]               # between the title line and the receipt line
    receipt: Receipt | None
    receipt_text: str | None       # the receipt line as saved (None: missing)


def saved_check(outputs: list[str], roles: list[str | None], exercise: str,
                exercise_cell: int | None) -> SavedCheck | None:
    """The check cell's saved output: the last cell tagged ``check`` after the exercise cell (or, in an
    untagged notebook, the last cell whose output holds this exercise's check title); None when it has no
    saved check output."""
    after = exercise_cell if exercise_cell is not None else -1
    tagged = [i for i, r in enumerate(roles) if r == "check" and i > after]
    title = f"{exercise} {TITLE}"
    if tagged:
        index = tagged[-1]
    else:
        with_title = [i for i, text in enumerate(outputs) if i > after and title in text]
        if not with_title:
            return None
        index = with_title[-1]
    lines = outputs[index].splitlines()
    start = next((k for k, ln in enumerate(lines) if ln.startswith(title)), None)
    if start is None:
        return None
    body, receipt, raw = [], None, None
    for ln in lines[start + 1:]:
        if PREFIX in ln or "receipt " + exercise in ln:
            raw = ln.strip()
            m = _RX.search(ln)
            if m and m.group("ex") == exercise:
                receipt = Receipt(m.group("ex"), m.group("model"), m.group("tool"), m.group("code"), m.group("out"))
            break
        body.append(ln)
    return SavedCheck(index, body, receipt, raw)


@dataclass
class ReceiptCheck:
    status: str
    message: str
    line: int | None = None         # the first differing line, counted in the check's printed output

    @property
    def flagged(self) -> bool:
        return self.status in FLAGGED

    @property
    def needs_rerun(self) -> bool:
        return self.status == "recheck"

    def __repr__(self) -> str:
        return f"ReceiptCheck({self.status})"


def _first_difference(saved: list[str], fresh: list[str]) -> int | None:
    saved, fresh = _norm(saved), _norm(fresh)
    for k in range(max(len(saved), len(fresh))):
        if k >= len(saved) or k >= len(fresh) or saved[k] != fresh[k]:
            return k
    return None


def _clip(text: str, n: int = 80) -> str:
    text = "".join(ch if ch.isprintable() else "?" for ch in text.strip())
    return text if len(text) <= n else text[: n - 1] + "…"


def _version_tuple(v: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(x) for x in v.split("."))
    except ValueError:
        return None


def verify(saved: SavedCheck | None, expected: Receipt, fresh: list[str]) -> ReceiptCheck:
    """Judge the saved check output against the grader's re-run (``fresh``: the lines it prints for the
    submitted code; ``expected``: its receipt)."""
    if saved is None:
        return ReceiptCheck("none", "检查单元格没有保存的运行输出。")
    where = f"检查单元格（第 {saved.cell + 1} 个代码单元格）"
    if saved.receipt is None:
        what = "被改动过，格式不对" if saved.receipt_text else "不见了"
        return ReceiptCheck("edited", f"{where}保存的输出里，运行凭据那一行{what}：保存的输出不是检查原样打印的。")
    r = saved.receipt
    if r.code == NO_CODE and r.out == out_hash(saved.lines):
        return ReceiptCheck("none", f"{where}运行时还没有练习文件，保存的输出没有检查结果。")
    if r.code != expected.code:
        return ReceiptCheck("stale_code", f"{where}保存的输出来自另一版代码：运行检查之后又改了练习单元格，"
                                          "输出不是这份代码的运行结果。")
    if r.out != out_hash(saved.lines):
        k = (_first_difference(saved.lines, fresh) if (r.model, r.tool) == (expected.model, expected.tool)
             else None)
        at = f"第 {k + 2} 行（“{_clip(saved.lines[k]) if k < len(saved.lines) else ''}”）" if k is not None else "某一行"
        return ReceiptCheck("edited", f"{where}保存的输出在运行之后被改动过：{at}与检查打印的不一致。",
                            None if k is None else k + 2)
    if (r.model, r.tool) != (expected.model, expected.tool):
        claimed, current = _version_tuple(r.model), _version_tuple(expected.model)
        if claimed is not None and current is not None and claimed > current:
            return ReceiptCheck("edited", f"{where}的运行凭据声称来自计数模型 {r.model}，比评分用的 {expected.model} "
                                          "还新：凭据被改动过。")
        return ReceiptCheck("recheck", f"{where}的运行凭据来自另一版计数模型或检查（model={_clip(r.model, 20)}，"
                                       f"评分用 model={expected.model}），无法逐行核对：代码一致，没有因此扣分；"
                                       "评分以重新运行的结果为准。请重新运行检查单元格后保存，让输出可以核对。")
    k = _first_difference(saved.lines, fresh)
    if k is not None:
        shown = _clip(saved.lines[k]) if k < len(saved.lines) else "（缺少这一行）"
        should = _clip(fresh[k]) if k < len(fresh) else "（没有这一行）"
        return ReceiptCheck("edited", f"{where}保存的输出与这份代码重新运行的结果不一致：第 {k + 2} 行保存的是“{shown}”，"
                                      f"重新运行打印的是“{should}”。", k + 2)
    return ReceiptCheck("ok", "检查单元格保存的输出与重新运行的结果逐行一致。")
