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
- ``recheck``: made under another released model or tool version (grading/releases.toml), or in an earlier
  receipt format (format 1: ``code=… result=… tool=… sig=…``, its signature checked): the counters cannot be
  compared with this version's re-run, but what does not depend on the counting model still is — the blank,
  and each public check's pass/fail — and the code and the output's own hash; never vetoed for the version or
  format alone, never counted as verified (grading uses the grader's own run in every case). A version that
  no release wrote (``tool=deadbeef``) is ``edited``.
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
# format 1 (the first release): the public checks' outcomes hashed, signed with a shipped key
_RX1 = re.compile(r"receipt (?P<ex>[\w-]+) code=(?P<code>[0-9a-f]{12}) result=(?P<result>[0-9a-f]{12}) "
                  r"tool=(?P<tool>[0-9a-f]{12}) sig=(?P<sig>[0-9a-f]{8})\s*$")
FORMAT1 = "format1"          # the model field of a format-1 receipt (it had none)
FLAGGED = ("stale_code", "edited")
NO_CODE = "0" * 12           # the check found no file to run: its output claims no result


def _h(text: str, n: int) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:n]


def released() -> tuple[set[str], dict[str, set[str]]]:
    """(counting models, exercise -> tool hashes) that released versions of the check wrote."""
    import tomllib
    from pathlib import Path
    try:
        data = tomllib.loads((Path(__file__).with_name("releases.toml")).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set(), {}
    return ({str(m) for m in data.get("models", [])},
            {k: {str(t) for t in v} for k, v in data.get("tools", {}).items()})


def record_release(model: str, tools: dict[str, str]) -> list[str]:
    """Add ``model`` and each exercise's tool hash to releases.toml (keeping its comments); returns what was
    added ("model 3", "lesson08 1a2b3c4d")."""
    from pathlib import Path
    path = Path(__file__).with_name("releases.toml")
    text = path.read_text(encoding="utf-8")
    models, known = released()
    added = []
    if model not in models:
        text = re.sub(r"(?m)^models = \[(.*)\]", lambda m: f'models = [{m.group(1)}, "{model}"]', text, count=1)
        added.append(f"model {model}")
    for ex, tool in sorted(tools.items()):
        if tool in known.get(ex, set()):
            continue
        if re.search(rf"(?m)^{re.escape(ex)} = \[", text):
            text = re.sub(rf"(?m)^({re.escape(ex)} = \[.*)\]", lambda m: f'{m.group(1)}, "{tool}"]', text, count=1)
        else:
            text = text.rstrip("\n") + f'\n{ex} = ["{tool}"]\n'
        added.append(f"{ex} {tool}")
    path.write_text(text, encoding="utf-8")
    return added


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
                exercise_cell: int | None, calls: list[bool] | None = None) -> SavedCheck | None:
    """The check cell's saved output: the last cell tagged ``check`` after the exercise cell (or, in an
    untagged notebook, the last cell that calls ``check(`` and whose output holds this exercise's check title:
    an old report printed by a scratch cell is not the check); None when it has no saved check output."""
    after = exercise_cell if exercise_cell is not None else -1
    # up to the next exercise cell: a lesson's challenge (its own exercise and check cells) follows the exercise
    until = min((i for i, r in enumerate(roles) if r == "exercise" and i > after), default=len(roles))
    tagged = [i for i, r in enumerate(roles) if r == "check" and after < i < until]
    title = f"{exercise} {TITLE}"
    if tagged:
        index = tagged[-1]
    else:
        with_title = [i for i, text in enumerate(outputs) if i > after and title in text
                      and (calls is None or (i < len(calls) and calls[i]))]
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
            m1 = _RX1.search(ln)
            if m and m.group("ex") == exercise:
                receipt = Receipt(m.group("ex"), m.group("model"), m.group("tool"), m.group("code"), m.group("out"))
            elif m1 and m1.group("ex") == exercise and m1.group("sig") == _sig1(*m1.group("ex", "code", "result", "tool")):
                # no hash of the printed lines: they are compared with the re-run where the model cannot matter
                receipt = Receipt(exercise, FORMAT1, m1.group("tool"), m1.group("code"), out_hash(body))
            break
        body.append(ln)
    return SavedCheck(index, body, receipt, raw)


def _sig1(*parts: str) -> str:
    """Format 1's signature (the first release shipped the algorithm; it only tells a typo from a receipt)."""
    return hashlib.sha256(("receipt|" + "|".join(parts)).encode()).hexdigest()[:8]


_CHECK_LINE = re.compile(r"^\s+(?P<mark>[✓✗✅❌]) (?P<name>[^：]+)：")


def model_free(lines: list[str]) -> tuple[str | None, dict[str, bool], str | None]:
    """What a check's printed lines say that no counting model or check version changes: the blank (its
    tokens, without spacing or comments), each public check's pass/fail by name, and the verdict's count
    ("3/3")."""
    from .ctokens import tokenize
    blank = verdict = None
    checks: dict[str, bool] = {}
    for ln in lines:
        if verdict is None and ln.startswith("结论："):
            m = re.search(r"(\d+)/(\d+)", ln)
            verdict = m.group(0) if m else ln[len("结论："):].strip()[:40]
        if blank is None and ln.startswith("填空："):
            text = ln[len("填空："):]
            text = re.sub(r" = -?\d+$", "", text)
            blank = " ".join(t.text for t in tokenize(text))
        m = _CHECK_LINE.match(ln)
        if m:
            checks[m.group("name").strip()] = m.group("mark") in "✓✅"
    return blank, checks, verdict


def compare_model_free(saved: list[str], fresh: list[str]) -> str | None:
    """The first model-independent difference between a saved check output and the grader's re-run (Chinese),
    or None. Checks are compared by name where both name them, else by how many passed."""
    sb, sc, sv = model_free(saved)
    fb, fc, fv = model_free(fresh)
    if sb != fb:
        return f"保存的输出里的填空（{_clip(sb or '（无）', 40)}）不是提交的代码里的填空（{_clip(fb or '（无）', 40)}）"
    if sv != fv and sv is not None and fv is not None and "/" in sv + fv:
        return f"保存的输出的结论是通过 {sv}，这份代码重新运行是 {fv}"
    common = [n for n in sc if n in fc]
    for n in common:
        if sc[n] != fc[n]:
            said, is_ = ("通过", "没有通过") if sc[n] else ("没有通过", "通过")
            return f"保存的输出说“{_clip(n, 40)}”{said}，这份代码重新运行{is_}"
    if not common and (sum(sc.values()), len(sc)) != (sum(fc.values()), len(fc)):
        return (f"保存的输出说公开检查通过 {sum(sc.values())}/{len(sc)}，这份代码重新运行通过 "
                f"{sum(fc.values())}/{len(fc)}")
    return None


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
        models, tools = released()
        if r.model != FORMAT1:
            base, _, mode = r.model.partition("+")          # "2+sass": model 2 counted in SASS mode
            if r.model != expected.model and (base not in models or mode not in ("", "sass", "source-rules")):
                return ReceiptCheck("edited", f"{where}的运行凭据声称来自计数模型 {_clip(r.model, 20)}，"
                                              "没有哪个发布的版本用过它：凭据被改动过。")
            if r.tool != expected.tool and r.tool not in tools.get(r.exercise, set()):
                return ReceiptCheck("edited", f"{where}的运行凭据声称来自检查版本 {_clip(r.tool, 20)}，"
                                              "没有哪个发布的版本是它：凭据被改动过。")
        differs = compare_model_free(saved.lines, fresh)
        if differs:
            return ReceiptCheck("edited", f"{where}保存的输出与这份代码重新运行的结果不一致（与计数模型无关的部分）："
                                          f"{differs}。")
        version = "较早格式的运行凭据" if r.model == FORMAT1 else (
            f"另一版计数模型或检查（model={_clip(r.model, 20)}，评分用 model={expected.model}）的运行凭据")
        return ReceiptCheck("recheck", f"{where}是{version}，计数器无法逐行核对；代码、填空和每项公开检查的"
                                       "通过与否都与重新运行一致，没有因此扣分，评分以重新运行的结果为准。"
                                       "请重新运行检查单元格后保存，让输出可以逐行核对。")
    k = _first_difference(saved.lines, fresh)
    if k is not None:
        shown = _clip(saved.lines[k]) if k < len(saved.lines) else "（缺少这一行）"
        should = _clip(fresh[k]) if k < len(fresh) else "（没有这一行）"
        return ReceiptCheck("edited", f"{where}保存的输出与这份代码重新运行的结果不一致：第 {k + 2} 行保存的是“{shown}”，"
                                      f"重新运行打印的是“{should}”。", k + 2)
    return ReceiptCheck("ok", "检查单元格保存的输出与重新运行的结果逐行一致。")
