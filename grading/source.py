"""Extraction: turn a submission path (.cu, .ipynb, or a folder) into the exercise source and answers.

Nothing here raises on bad student input: every problem becomes ``Submission.problem`` (Chinese, naming
the file and place) so that the grader can return a graded result.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .spec import Exercise

CU_SUFFIXES = (".cu", ".cuh", ".txt")


@dataclass
class Submission:
    """What the grader takes from one submission."""

    name: str
    path: Path | None
    kind: str                                  # "cu", "ipynb" or "none"
    source: str | None = None
    problem: str | None = None
    problem_kind: str | None = None
    answers: dict[str, str | None] = field(default_factory=dict)   # manual item id -> text (None: no cell)
    outputs: list[str] = field(default_factory=list)                # saved output text of code cells
    notes: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        state = self.problem_kind or ("ok" if self.source is not None else "empty")
        return f"Submission({self.name!r}, {self.kind}, {state})"


def _fail(sub: Submission, kind: str, message: str) -> Submission:
    sub.problem_kind, sub.problem = kind, message
    return sub


def _decode(data: bytes, label: str, sub: Submission) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        _fail(sub, "encoding", f"{label} 不是 UTF-8 编码的文本（第 {line} 行，第 {e.start} 个字节附近）："
                               "请用 UTF-8 保存后再提交。")
        return None


def read_cu(path: Path, ex: Exercise, name: str | None = None) -> Submission:
    sub = Submission(name or path.stem, path, "cu")
    limit = int(ex.limits.get("max_source_bytes", 200_000))
    size = path.stat().st_size
    if size > limit:
        return _fail(sub, "too_large", f"{path.name} 有 {size / 1e6:.1f} MB，超过练习代码的上限 "
                                       f"{limit / 1e3:.0f} KB：请只提交练习单元格里的那份代码。")
    text = _decode(path.read_bytes(), path.name, sub)
    if text is None:
        return sub
    if not text.strip():
        return _fail(sub, "empty", f"{path.name} 是空文件：请提交练习单元格里填好的代码。")
    sub.source = strip_cell_header(text, ex)
    return sub


def strip_cell_header(text: str, ex: Exercise) -> str:
    """Drop leading ``#|`` cell options and the ``%%writefile`` line, as the magic does."""
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines) and (lines[i].lstrip().startswith("#|") or not lines[i].strip()):
        i += 1
    if i < len(lines) and lines[i].lstrip().startswith("%%writefile"):
        return "".join(lines[i + 1:])
    return text


def _cell_text(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def is_exercise_cell(cell: dict) -> bool:
    """Tagged ``course_role: exercise`` in metadata, in tags, or as a ``#|`` option line."""
    if cell.get("cell_type") != "code":
        return False
    meta = cell.get("metadata") or {}
    if meta.get("course_role") == "exercise":
        return True
    tags = [str(t).replace(" ", "") for t in (meta.get("tags") or [])]
    if any(t in ("course_role:exercise", "course_role=exercise") for t in tags):
        return True
    return bool(re.search(r"^\s*#\|\s*course_role:\s*exercise\s*$", _cell_text(cell), re.M))


def read_notebook(path: Path, ex: Exercise, name: str | None = None) -> Submission:
    sub = Submission(name or path.stem, path, "ipynb")
    size = path.stat().st_size
    limit = int(ex.limits.get("max_notebook_bytes", 50_000_000))
    if size > limit:
        return _fail(sub, "too_large", f"{path.name} 有 {size / 1e6:.1f} MB，超过笔记本的上限 {limit / 1e6:.0f} MB。")
    if size == 0:
        return _fail(sub, "empty", f"{path.name} 是空文件。")
    text = _decode(path.read_bytes(), path.name, sub)
    if text is None:
        return sub
    try:
        nb = json.loads(text)
    except json.JSONDecodeError as e:
        return _fail(sub, "not_json", f"{path.name} 不是有效的笔记本（JSON 解析失败：第 {e.lineno} 行第 {e.colno} 列，"
                                      f"{e.msg}）：请从 Jupyter 重新保存后提交。")
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        return _fail(sub, "not_notebook", f"{path.name} 是 JSON，但不是 Jupyter 笔记本（没有 cells 列表）。")
    ex_cells = [c for c in cells if is_exercise_cell(c)]
    if not ex_cells:
        return _fail(sub, "no_exercise_cell",
                     f"{path.name} 里没有练习单元格（标记为 course_role: exercise、以 `%%writefile {ex.config['target']}` "
                     "开头的代码单元格）：请提交课程发下的那本笔记本。")
    if len(ex_cells) > 1:
        sub.notes.append(f"笔记本里有 {len(ex_cells)} 个练习单元格，评分用最后一个。")
    cell_text = _cell_text(ex_cells[-1])
    limit_src = int(ex.limits.get("max_source_bytes", 200_000))
    if len(cell_text.encode()) > limit_src:
        return _fail(sub, "too_large", f"{path.name} 的练习单元格超过 {limit_src / 1e3:.0f} KB。")
    sub.source = strip_cell_header(cell_text, ex)
    sub.outputs = [_outputs_text(c) for c in cells if c.get("cell_type") == "code"]
    sub.answers = extract_answers(cells, ex)
    return sub


def _outputs_text(cell: dict) -> str:
    parts = []
    for out in cell.get("outputs") or []:
        if not isinstance(out, dict):
            continue
        if "text" in out:
            t = out["text"]
            parts.append("".join(t) if isinstance(t, list) else str(t))
        for mime in ("text/plain", "text/markdown", "text/html"):
            v = (out.get("data") or {}).get(mime)
            if v is not None:
                parts.append("".join(v) if isinstance(v, list) else str(v))
    return "\n".join(parts)


_ANCHOR = re.compile(r"^\s*<a\s[^>]*>\s*</a>\s*$")      # anchors the notebook build puts before headings
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def extract_answers(cells: list[dict], ex: Exercise) -> dict[str, str | None]:
    """Text after each manual item's marker, up to the next heading (across markdown cells)."""
    answers: dict[str, str | None] = {}
    lines: list[str] = []
    for c in cells:
        if c.get("cell_type") in ("markdown", "raw"):
            lines.extend(_cell_text(c).splitlines())
            lines.append("")
    for item in ex.manual:
        answers[item.id] = _section_answer(lines, item.headings, item.marker)
    return answers


def _section_answer(lines: list[str], headings: tuple[str, ...], marker: str) -> str | None:
    start = level = None
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if m and any(re.match(rf"{re.escape(h)}(?![0-9A-Za-z])", m.group(2).strip("*_ ")) for h in headings):
            start, level = i + 1, len(m.group(1))
            break
    if start is None:
        return None
    end = len(lines)
    for j in range(start, len(lines)):
        m = _HEADING.match(lines[j])
        if m and len(m.group(1)) <= level:
            end = j
            break
    body = "\n".join(ln for ln in lines[start:end] if not _ANCHOR.match(ln))
    if marker and marker in body:
        body = body.split(marker, 1)[1]
        body = re.sub(r"^[\s*_：:]+", "", body)
    return body.strip()


def discover(paths: list[Path], ex: Exercise) -> list[tuple[str, Path]]:
    """(name, path) for every submission: files directly, and a folder's files and sub-folders."""
    found: list[tuple[str, Path]] = []
    for p in paths:
        if p.is_dir():
            for child in sorted(p.iterdir()):
                if child.name.startswith("."):
                    continue
                if child.is_dir() or child.suffix in (".ipynb", *CU_SUFFIXES):
                    found.append((child.stem if child.is_file() else child.name, child))
        else:
            found.append((p.stem, p))
    names: dict[str, int] = {}
    unique = []
    for name, path in found:
        safe = re.sub(r"[^\w.-]+", "_", name) or "submission"
        n = names.get(safe, 0)
        names[safe] = n + 1
        unique.append((safe if n == 0 else f"{safe}_{n + 1}", path))
    return unique


def load_submission(path: Path, ex: Exercise, name: str | None = None) -> Submission:
    """Read one submission (file or a student's folder)."""
    name = name or path.stem
    if path.is_dir():
        nbs = sorted(path.rglob("*.ipynb"))
        nbs = [p for p in nbs if ".ipynb_checkpoints" not in p.parts]
        cus = sorted(p for s in CU_SUFFIXES for p in path.rglob(f"*{s}"))
        for nb in nbs:
            sub = read_notebook(nb, ex, name)
            if sub.problem_kind != "no_exercise_cell":
                return sub
        if cus:
            return read_cu(cus[0], ex, name)
        if nbs:
            return read_notebook(nbs[0], ex, name)
        return _fail(Submission(name, path, "none"), "no_files",
                     f"文件夹 {path.name} 里没有 .ipynb 或 .cu 文件。")
    if path.suffix == ".ipynb":
        return read_notebook(path, ex, name)
    return read_cu(path, ex, name)
