"""Extraction: turn a submission path (.cu, .ipynb, or a folder) into the exercise source and answers.

Nothing here raises on bad student input: every problem becomes ``Submission.problem`` (Chinese, naming
the file and place) so that the grader can return a graded result.
"""
from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .numbering import FILE, Numbering
from .spec import Exercise

CU_SUFFIXES = (".cu", ".cuh", ".txt")
ARCHIVE_SUFFIXES = (".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar")
# What operating systems and editors leave in a folder; never graded, never reported as the student's work.
JUNK_NAMES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini", "__MACOSX", ".ipynb_checkpoints", "__pycache__",
                        ".git", ".Trashes", ".Spotlight-V100", ".fseventsd"})
MAX_FOLDER_ENTRIES = 2000      # a student folder is a handful of files; more is not looked at (and said so)
MAX_FOLDER_DEPTH = 8           # deeper folders are listed as not looked at, never dropped silently
MAX_SUBMISSIONS = 100_000      # entries of a submissions folder (a class); beyond it, a warning names the limit
MAX_FOLDER_READ_BYTES = 200_000_000   # all files read from one student folder together
_MAGIC = ((b"PK\x03\x04", "zip"), (b"PK\x05\x06", "zip"), (b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"),
          (b"\xfd7zXZ\x00", "xz"), (b"7z\xbc\xaf\x27\x1c", "7z"), (b"Rar!", "rar"))


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
    output_roles: list[str | None] = field(default_factory=list)    # each code cell's course_role
    outputs_html: list[list[str]] = field(default_factory=list)     # each code cell's saved text/html outputs
    exercise_output: int | None = None                              # index of the exercise cell in outputs
    calls_check: list[bool] = field(default_factory=list)           # each code cell's source calls check(
    graded_file: str | None = None                                  # in a folder: the file graded
    notes: list[str] = field(default_factory=list)
    numbering: Numbering = FILE                                     # the line numbers the student sees

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


class ReadProblem(Exception):
    """A file the grader will not read; ``kind`` and a Chinese ``message`` naming the file."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.message = kind, message


def shown_name(path: Path, limit: int = 60) -> str:
    """A file name as reports show it: printable characters only, shortened."""
    name = "".join(ch if ch.isprintable() else "?" for ch in path.name)
    return name if len(name) <= limit else name[: limit - 1] + "…"


def read_limited(path: Path, limit: int, too_large: str) -> bytes:
    """The bytes of a regular file, at most ``limit``: symlinks are never followed and devices, pipes and
    sockets never opened (their st_size says nothing about how much they yield). ``too_large`` is the
    message (with ``{size}`` in MB) when the file is larger."""
    label = shown_name(path)
    try:
        st = os.lstat(path)
    except OSError as e:
        raise ReadProblem("unreadable", f"{label} 无法读取（{e.strerror}）。")
    if stat.S_ISLNK(st.st_mode):
        raise ReadProblem("symlink", f"{label} 是符号链接：评分程序不跟随链接，请提交文件本身。")
    if not stat.S_ISREG(st.st_mode):
        raise ReadProblem("special", f"{label} 不是普通文件（目录、设备、管道或套接字）：评分程序不读取它。")
    if st.st_size > limit:
        raise ReadProblem("too_large", too_large.format(size=st.st_size / 1e6))
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise ReadProblem("unreadable", f"{label} 无法读取（{e.strerror}）。")
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):     # swapped after the lstat
            raise ReadProblem("special", f"{label} 不是普通文件：评分程序不读取它。")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ReadProblem("too_large", too_large.format(size=len(data) / 1e6))
    return data


def archive_kind(data: bytes) -> str | None:
    """"zip", "gzip", ... when ``data`` starts like an archive (or is a tar file), else None."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    return "tar" if data[257:262] == b"ustar" else None


def _archive_message(label: str, kind: str) -> str:
    return f"{label} 是 {kind} 压缩包，不是代码或笔记本：请解压后提交里面的 .ipynb 或 .cu 文件。"


def read_cu(path: Path, ex: Exercise, name: str | None = None) -> Submission:
    sub = Submission(name or path.stem, path, "cu")
    limit = int(ex.limits.get("max_source_bytes", 200_000))
    label = shown_name(path)
    try:
        data = read_limited(path, limit, f"{label} 有 {{size:.1f}} MB，超过练习代码的上限 {limit / 1e3:.0f} KB："
                                         "请只提交练习单元格里的那份代码。")
    except ReadProblem as e:
        return _fail(sub, e.kind, e.message)
    if (kind := archive_kind(data)) is not None:
        return _fail(sub, "archive", _archive_message(label, kind))
    if b"\0" in data:
        return _fail(sub, "binary", f"{label} 含有 NUL 字节，是二进制文件而不是代码：请提交练习单元格里的代码。")
    text = _decode(data, label, sub)
    if text is None:
        return sub
    if not text.strip():
        return _fail(sub, "empty", f"{path.name} 是空文件：请提交练习单元格里填好的代码。")
    sub.source = strip_cell_header(text, ex)
    sub.numbering = Numbering(cell_header_lines(text), False, path.name)
    return sub


def cell_header_lines(text: str) -> int:
    """How many lines ``strip_cell_header`` drops: a cell's options and its ``%%writefile`` line (0: none)."""
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines) and (lines[i].lstrip().startswith("#|") or not lines[i].strip()):
        i += 1
    if i < len(lines) and lines[i].lstrip().startswith("%%writefile"):
        return i + 1
    return 0


def strip_cell_header(text: str, ex: Exercise | None = None) -> str:
    """Drop leading ``#|`` cell options and the ``%%writefile`` line, as the magic does."""
    n = cell_header_lines(text)
    return "".join(text.splitlines(keepends=True)[n:]) if n else text


class _Malformed(Exception):
    """A notebook cell whose fields have the wrong JSON types."""


def _text_field(value: object, what: str) -> str:
    """A notebook text field: a string or a list of strings (nbformat); anything else is malformed."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    raise _Malformed(f"{what} 不是文本（是 {type(value).__name__}）")


def _cell_text(cell: dict) -> str:
    try:
        return _text_field(cell.get("source", ""), "source")
    except _Malformed:
        return ""


def _meta(cell: dict) -> dict:
    meta = cell.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _has_option(text: str, key: str, value: str) -> bool:
    """Whether a ``#| key: value`` option line is in ``text`` (a line scan: no regex backtracking)."""
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#|"):
            k, sep, v = s[2:].partition(":")
            if sep and k.strip() == key and v.strip() == value:
                return True
    return False


def cell_role(cell: dict) -> str | None:
    """A code cell's ``course_role`` (exercise, check, solution, ...): metadata, tags or a ``#|`` option line."""
    if cell.get("cell_type") != "code":
        return None
    meta = _meta(cell)
    if isinstance(meta.get("course_role"), str):
        return meta["course_role"]
    tags = meta.get("tags")
    for t in tags if isinstance(tags, list) else []:
        k, sep, v = str(t).replace(" ", "").replace("=", ":").partition(":")
        if sep and k == "course_role":
            return v
    for line in _cell_text(cell).splitlines():
        s = line.strip()
        if not s.startswith("#|"):
            if s:
                break                      # options come first
            continue
        k, sep, v = s[2:].partition(":")
        if sep and k.strip() == "course_role":
            return v.strip()
    return None


def is_exercise_cell(cell: dict) -> bool:
    """Tagged ``course_role: exercise`` in metadata, in tags, or as a ``#|`` option line."""
    if cell.get("cell_type") != "code":
        return False
    return cell_role(cell) == "exercise" or _has_option(_cell_text(cell), "course_role", "exercise")


def _parse_json(text: str, label: str, sub: Submission) -> object | None:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        _fail(sub, "not_json", f"{label} 不是有效的笔记本（JSON 解析失败：第 {e.lineno} 行第 {e.colno} 列，"
                               f"{e.msg}）：请从 Jupyter 重新保存后提交。")
    except RecursionError:
        _fail(sub, "not_json", f"{label} 的 JSON 嵌套层数太深，不是 Jupyter 保存的笔记本：请从 Jupyter 重新保存后提交。")
    except ValueError as e:              # e.g. an integer with thousands of digits
        _fail(sub, "not_json", f"{label} 的 JSON 里有无法读取的值（{str(e)[:80]}）：请从 Jupyter 重新保存后提交。")
    return None


def read_notebook(path: Path, ex: Exercise, name: str | None = None) -> Submission:
    sub = Submission(name or path.stem, path, "ipynb")
    limit = int(ex.limits.get("max_notebook_bytes", 50_000_000))
    label = shown_name(path)
    try:
        data = read_limited(path, limit, f"{label} 有 {{size:.1f}} MB，超过笔记本的上限 {limit / 1e6:.0f} MB。")
    except ReadProblem as e:
        return _fail(sub, e.kind, e.message)
    if not data:
        return _fail(sub, "empty", f"{label} 是空文件。")
    if (kind := archive_kind(data)) is not None:
        return _fail(sub, "archive", _archive_message(label, kind))
    text = _decode(data, label, sub)
    if text is None:
        return sub
    nb = _parse_json(text, label, sub)
    if sub.problem:
        return sub
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        return _fail(sub, "not_notebook", f"{label} 是 JSON，但不是 Jupyter 笔记本（没有 cells 列表）。")
    ex_cells = [(i, c) for i, c in enumerate(cells) if is_exercise_cell(c)]
    if not ex_cells:
        return _fail(sub, "no_exercise_cell",
                     f"{label} 里没有练习单元格（标记为 course_role: exercise、以 `%%writefile {ex.config['target']}` "
                     "开头的代码单元格）：请提交课程发下的那本笔记本。")
    # a lesson notebook carries the exercise and its challenge: each is graded on the cell that writes its file
    own = [(i, c) for i, c in ex_cells if _writefile_name(c) == ex.target_name]
    if own:
        ex_cells = own
    if len(ex_cells) > 1:
        sub.notes.append(f"笔记本里有 {len(ex_cells)} 个练习单元格，评分用最后一个。")
    index, cell = ex_cells[-1]
    try:
        cell_text = _text_field(cell.get("source", ""), "source")
    except _Malformed as e:
        return _fail(sub, "not_notebook", f"{label} 的练习单元格（第 {index + 1} 个单元格）格式不对：{e}。"
                                          "请从 Jupyter 重新保存后提交。")
    limit_src = int(ex.limits.get("max_source_bytes", 200_000))
    if len(cell_text.encode("utf-8", "surrogatepass")) > limit_src:
        return _fail(sub, "too_large", f"{label} 的练习单元格超过 {limit_src / 1e3:.0f} KB。")
    if "\0" in cell_text:
        return _fail(sub, "binary", f"{label} 的练习单元格含有 NUL 字符：请删掉它后重新保存。")
    sub.source = strip_cell_header(cell_text, ex)
    sub.numbering = Numbering(cell_header_lines(cell_text), True, ex.target_name)
    code = [c for c in cells if c.get("cell_type") == "code"]
    sub.outputs = [_outputs_text(c) for c in code]
    sub.outputs_html = [_outputs_html(c) for c in code]
    sub.output_roles = [cell_role(c) for c in code]
    sub.calls_check = [_calls_check(c) for c in code]
    sub.exercise_output = next(k for k, c in enumerate(code) if c is cell)
    sub.answers = extract_answers(cells, ex)
    return sub


def _writefile_name(cell: dict) -> str | None:
    """The file name a ``%%writefile`` exercise cell writes (None: no such line)."""
    try:
        text = _text_field(cell.get("source", ""), "source")
    except _Malformed:
        return None
    for ln in text.splitlines():
        if ln.startswith("%%writefile"):
            named = [w for w in ln.split()[1:] if not w.startswith("-")]
            return Path(named[-1].strip("'\"")).name if named else None
    return None


def _calls_check(cell: dict) -> bool:
    """Whether a code cell's source calls ``check(`` (the check cell; a scratch cell that prints an old report
    does not)."""
    try:
        text = _text_field(cell.get("source", ""), "source")
    except _Malformed:
        return False
    return re.search(r"(?<![\w.])(?:grading\.)?check\s*\(", text) is not None


def _outputs_html(cell: dict) -> list[str]:
    """The cell's saved ``text/html`` outputs (the check's source view is bound like its text)."""
    found = []
    outputs = cell.get("outputs")
    for out in outputs if isinstance(outputs, list) else []:
        data = out.get("data") if isinstance(out, dict) else None
        if isinstance(data, dict) and "text/html" in data:
            try:
                found.append(_text_field(data["text/html"], "text/html"))
            except _Malformed:
                found.append("")
    return found


def _outputs_text(cell: dict) -> str:
    parts = []
    outputs = cell.get("outputs")
    for out in outputs if isinstance(outputs, list) else []:
        if not isinstance(out, dict):
            continue
        if "text" in out:
            try:
                parts.append(_text_field(out["text"], "text"))
            except _Malformed:
                pass
        data = out.get("data")
        for mime in ("text/plain", "text/markdown", "text/html"):
            v = data.get(mime) if isinstance(data, dict) else None
            if v is not None:
                try:
                    parts.append(_text_field(v, mime))
                except _Malformed:
                    pass
    return "\n".join(parts)


def _anchor(line: str) -> bool:
    """An ``<a ...></a>`` line the notebook build puts before headings."""
    s = line.strip()
    return s.startswith("<a") and s[2:3].isspace() and s.endswith("</a>") and ">" in s[2:-4] \
        and not s[s.index(">") + 1:-4].strip()


def _heading(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX markdown heading, parsed by hand: a regex here backtracks cubically on blanks."""
    indent = len(line) - len(line.lstrip(" "))
    if indent > 3:
        return None
    s = line[indent:]
    level = len(s) - len(s.lstrip("#"))
    if not 1 <= level <= 6:
        return None
    rest = s[level:]
    if rest and not rest[0].isspace():
        return None
    text = rest.strip()
    stripped = text.rstrip("#")
    if stripped != text and (not stripped or stripped[-1].isspace()):
        text = stripped.strip()               # closing #s
    return level, text


def extract_answers(cells: list[dict], ex: Exercise) -> dict[str, str | None]:
    """Each manual item's answer: its own answer cell (metadata ``course_role: answer``, ``course_question``:
    the item's id), else, for notebooks built before answer cells existed, the text after the item's marker
    up to the next heading (across markdown cells)."""
    by_cell = answers_from_cells(cells, ex)
    by_heading = answers_from_headings(cells, ex)
    return {item.id: by_cell[item.id] if by_cell.get(item.id) is not None else by_heading.get(item.id)
            for item in ex.manual}


# ---- answer cells (lessons built since issue 24): one markdown cell per question, found by metadata ------

def _answer_question(cell: dict) -> str | None:
    meta = _meta(cell)
    if cell.get("cell_type") != "markdown" or meta.get("course_role") != "answer":
        return None
    q = meta.get("course_question")
    return q if isinstance(q, str) else None


def answers_from_cells(cells: list[dict], ex: Exercise) -> dict[str, str | None]:
    """The text of each item's answer cell after its marker (``**你的答案：**``), plus markdown cells the student
    added right after it (up to the next heading, code cell or tagged cell); None for an item with no cell.
    A student who moved or retitled the question still gets the cell: only its metadata is read."""
    found: dict[str, str | None] = {}
    for i, cell in enumerate(cells):
        q = _answer_question(cell)
        if q is None or q in found:
            continue
        parts = [_cell_text(cell)]
        for nxt in cells[i + 1:]:
            text = _cell_text(nxt)
            if (nxt.get("cell_type") != "markdown" or _meta(nxt).get("course_role") or _meta(nxt).get("tags")
                    or any(_heading(ln) for ln in text.splitlines())):
                break
            parts.append(text)
        body = "\n\n".join(p for p in parts if p.strip())
        item = next((m for m in ex.manual if m.id == q), None)
        marker = item.marker if item is not None else ""
        if marker and marker in body:
            body = body.split(marker, 1)[1]
        found[q] = body.lstrip(" \t\n\r*_：:").strip()
    return found


# ---- fallback: answers under their headings (notebooks without answer cells) ------------------------------

def answers_from_headings(cells: list[dict], ex: Exercise) -> dict[str, str | None]:
    """Text after each manual item's marker, up to the next heading (across markdown cells)."""
    answers: dict[str, str | None] = {}
    lines: list[str] = []
    for c in cells:
        if c.get("cell_type") in ("markdown", "raw"):
            lines.extend(_cell_text(c).splitlines())
            lines.append("")
    # (line, level, text without emphasis marks): normalised once, searched once per manual item
    headings = [(i, h[0], h[1].strip("*_ ")) for i, line in enumerate(lines) if (h := _heading(line)) is not None]
    for item in ex.manual:
        answers[item.id] = _section_answer(lines, headings, item.headings, item.marker)
    return answers


def _starts_with_word(text: str, word: str) -> bool:
    return text.startswith(word) and not (text[len(word):len(word) + 1].isascii()
                                          and text[len(word):len(word) + 1].isalnum())


def _section_answer(lines: list[str], headings: list[tuple[int, int, str]], names: tuple[str, ...],
                    marker: str) -> str | None:
    start = level = None
    for k, (i, lvl, text) in enumerate(headings):
        if any(text.startswith(h) and _starts_with_word(text, h) for h in names):
            start, level = i + 1, lvl
            break
    if start is None:
        return None
    end = next((i for i, lvl, _ in headings[k + 1:] if lvl <= level), len(lines))
    body = "\n".join(ln for ln in lines[start:end] if not _anchor(ln))
    if marker and marker in body:
        body = body.split(marker, 1)[1].lstrip(" \t\n\r*_：:")
    return body.strip()


# ---- which files, and under which names ---------------------------------------------------------------

RESERVED_NAMES = frozenset({"gradebook", "instructor", "results", "feedback", "submission"})
MAX_NAME = 80


def _is_junk(name: str) -> bool:
    return name in JUNK_NAMES or name.startswith("._") or name.startswith("~$") or name.endswith("~")


def _kind_of(path: Path) -> str | None:
    """What a directory entry is, from lstat only (never follows a link)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "dir"
    return "file" if stat.S_ISREG(mode) else "special"


def safe_name(raw: str) -> str:
    """A result name that is a plain folder name: word characters and ``-`` only (no dots, so never ``..``
    or a grader file like ``gradebook.csv``), no leading ``_`` (the grader's own folders) or ``-`` (an
    option to the next shell command), bounded length."""
    name = re.sub(r"[^\w-]+", "_", raw, flags=re.UNICODE).lstrip("_-").rstrip("_")
    name = "".join(ch for ch in name if ch.isprintable()) or "submission"
    if name.casefold() in RESERVED_NAMES:
        name = f"s_{name}"
    if len(name.encode()) > MAX_NAME:
        import hashlib
        digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        while len(name.encode()) > MAX_NAME - 9:
            name = name[:-1]
        name = f"{name}_{digest}"
    return name


def unique_names(found: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    """Safe names, unique even on a case-insensitive file system (``x``, ``x_2``, then ``x_2_2`` ...)."""
    taken: set[str] = set()
    out = []
    for raw, path in found:
        base = safe_name(raw)
        name, k = base, 2
        while name.casefold() in taken:
            name, k = f"{base}_{k}", k + 1
        taken.add(name.casefold())
        out.append((name, path))
    return out


def discover(paths: list[Path], ex: Exercise, warnings: list[str] | None = None,
             limit: int = MAX_SUBMISSIONS) -> list[tuple[str, Path]]:
    """(name, path) for every submission: files directly, and a folder's files and sub-folders. No student is
    dropped silently: a folder with more than ``limit`` entries keeps the first ``limit`` and appends a warning
    naming the limit to ``warnings`` (the CLI prints them)."""
    found: list[tuple[str, Path]] = []
    for p in paths:
        if _kind_of(p) == "dir":
            children = sorted(p.iterdir())
            if len(children) > limit and warnings is not None:
                warnings.append(f"{p}: {len(children)} entries, more than the limit of {limit} "
                                f"(grading.source.MAX_SUBMISSIONS): only the first {limit} are graded; "
                                "split the folder or raise the limit")
            for child in children[:limit]:
                kind = _kind_of(child)
                if _is_junk(child.name) or (kind == "dir" and child.name.startswith(".")):
                    continue
                if kind == "dir":
                    found.append((child.name, child))
                elif child.suffix.lower() in (".ipynb", *CU_SUFFIXES, *ARCHIVE_SUFFIXES):
                    found.append((child.stem, child))     # a link or special file becomes a graded problem
        else:
            found.append((p.stem, p))
    return unique_names(found)


def _walk(root: Path) -> tuple[list[Path], list[tuple[str, str]]]:
    """Regular files under ``root`` (never through a link) and (relative name, why ignored) pairs."""
    files: list[Path] = []
    ignored: list[tuple[str, str]] = []
    stack = [(root, 0)]
    seen = 0
    while stack:
        folder, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            seen += 1
            if seen > MAX_FOLDER_ENTRIES:
                ignored.append(("…", f"文件夹里的文件超过 {MAX_FOLDER_ENTRIES} 个，其余没有查看"))
                return files, ignored
            path = Path(e.path)
            rel = shown_name(path) if folder == root else f"{path.relative_to(root)}"
            if _is_junk(e.name):
                continue                                # OS junk: silently skipped
            kind = _kind_of(path)
            if kind == "symlink":
                ignored.append((rel, "符号链接，不跟随"))
            elif kind == "special":
                ignored.append((rel, "不是普通文件"))
            elif kind == "dir":
                if e.name.startswith("."):
                    continue
                if depth + 1 < MAX_FOLDER_DEPTH:
                    stack.append((path, depth + 1))
                else:
                    ignored.append((rel + "/", f"文件夹嵌套超过 {MAX_FOLDER_DEPTH} 层，里面的文件没有查看；"
                                                "请把练习文件放在浅一些的文件夹里"))
            elif kind == "file":
                files.append(path)
    return files, ignored


def _related(sub: Submission, ex: Exercise) -> bool:
    """Whether a file holds the exercise: most of the template's identifiers appear in it."""
    if sub.source is None:
        return False
    from .ctokens import tokenize
    want = {t.text for t in tokenize(ex.template) if t.kind == "ident"}
    have = set(re.findall(r"[^\W\d]\w*", sub.source))
    return bool(want) and len(want & have) >= 0.6 * len(want)


def _mtime(path: Path) -> float:
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return 0.0


def _why_not(sub: Submission, older: bool) -> str:
    if older:
        return "较旧的版本"
    if sub.problem_kind == "no_exercise_cell":
        return "没有练习单元格"
    if sub.problem:
        return f"读不了：{sub.problem[:60]}"
    return "不是这道练习的代码"


def _listing(ignored: list[tuple[str, str]]) -> str:
    shown = "；".join(f"{r}（{why}）" for r, why in ignored[:10])
    return shown + (f" 等 {len(ignored)} 个" if len(ignored) > 10 else "")


def _load_folder(path: Path, ex: Exercise, name: str) -> Submission:
    """Grade the file that holds the exercise: a notebook with its exercise cell before a code file, the
    newest of several; say which file was graded and which were ignored."""
    files, ignored = _walk(path)
    files = [f for f in files if ".ipynb_checkpoints" not in f.parts]
    readers = {".ipynb": read_notebook, **{s: read_cu for s in CU_SUFFIXES}}
    # the file is chosen from cheap metadata first (notebooks before code, newest first; hard links to one
    # file read once), then read one at a time until one holds the exercise: a folder of many notebooks
    # never has them all parsed and kept, and the bytes read from one folder are capped
    candidates, seen_inodes = [], set()
    for f in files:
        rel = str(f.relative_to(path))
        if f.suffix.lower() not in readers:
            why = "压缩包，请解压后提交" if f.suffix.lower() in ARCHIVE_SUFFIXES else "不是 .ipynb 或 .cu 文件"
            ignored.append((rel, why))
            continue
        try:
            st = os.lstat(f)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in seen_inodes:
            ignored.append((rel, "与另一个文件是同一个文件（硬链接）"))
            continue
        seen_inodes.add((st.st_dev, st.st_ino))
        candidates.append((f.suffix.lower() == ".ipynb", st.st_mtime, str(f), rel, f, st.st_size))
    candidates.sort(reverse=True)
    tried: list[tuple[str, Submission]] = []
    good: list[Submission] = []
    budget = MAX_FOLDER_READ_BYTES
    for is_nb, _, _, rel, f, size in candidates:
        if good:
            same = is_nb == (good[0].kind == "ipynb")
            ignored.append((rel, "较旧的版本" if same else "已有笔记本，这个代码文件没有查看"))
            continue
        if size > budget:
            ignored.append((rel, f"这个文件夹读取的文件已超过 {MAX_FOLDER_READ_BYTES // 1_000_000} MB，没有查看"))
            continue
        budget -= size
        sub = readers[f.suffix.lower()](f, ex, name)
        if sub.problem is None and _related(sub, ex):
            good.append(sub)
        else:                     # keep only what the choice below needs: no outputs of a file not graded
            sub.outputs, sub.outputs_html = [], []
        tried.append((rel, sub))
    subs = [s for _, s in tried]
    if good:
        chosen = good[0]
    else:
        order = ([s for s in subs if s.kind == "ipynb" and s.problem_kind not in ("no_exercise_cell", None)] +
                 [s for s in subs if s.kind == "cu" and s.problem is None] +
                 [s for s in subs if s.kind == "cu"] + subs)
        if not order:
            archives = [r for r, why in ignored if why.startswith("压缩包")]
            if archives:
                return _fail(Submission(name, path, "none"), "archive",
                             f"文件夹 {shown_name(path)} 里只有压缩包 {archives[0]}：请解压后提交里面的 .ipynb 或 .cu 文件。")
            skipped = f"（没有评分的文件：{_listing(ignored)}）" if ignored else ""
            return _fail(Submission(name, path, "none"), "no_files",
                         f"文件夹 {shown_name(path)} 里没有 .ipynb 或 .cu 文件{skipped}。")
        chosen = order[0]
    for rel, s in tried:
        if s is not chosen:
            ignored.append((rel, _why_not(s, s in good)))
    rel = next(r for r, s in tried if s is chosen)
    chosen.notes.insert(0, f"评分的文件：{rel}。")
    if ignored:
        chosen.notes.insert(1, f"没有评分的文件：{_listing(ignored)}。")
    chosen.graded_file = rel
    return chosen


def load_submission(path: Path, ex: Exercise, name: str | None = None) -> Submission:
    """Read one submission (file or a student's folder); links and special files are never followed or read."""
    name = name or path.stem
    if _kind_of(path) == "dir":
        return _load_folder(path, ex, name)
    if path.suffix == ".ipynb":
        return read_notebook(path, ex, name)
    return read_cu(path, ex, name)
