"""Which line numbers the student is shown: the notebook cell's or the .cu file's.

The exercise cell starts with ``%%writefile /tmp/<name>.cu``, so line L of the file is line L + 1 of the cell
the student edits. A check run from that notebook (and the grading of a notebook submission) counts lines as
the cell shows them; ``python -m grading check FILE.cu`` and a .cu submission count the file's own lines.
Every line number the check prints — races, out-of-bounds errors, compile errors, edits outside the blank,
the per-line counters and the source view — goes through one Numbering, and the check says which it is.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass

CELL = "练习单元格"


@dataclass(frozen=True)
class Numbering:
    offset: int = 0          # lines above the file's first line in what the student sees (the %%writefile line)
    cell: bool = False       # True: the notebook cell's numbering; False: the file's
    file: str = ""           # the file's name, for the statement

    def __call__(self, line: int | None) -> int | None:
        return None if line is None else int(line) + self.offset

    @property
    def where(self) -> str:
        """What ``file:line:col`` messages name: the cell, or the file."""
        return CELL if self.cell else (self.file or "<source>")

    def statement(self) -> str:
        """The line the check prints to say which numbering it uses."""
        if not self.cell:
            return f"行号：文件 {self.file} 里的行号。" if self.file else "行号：代码文件里的行号。"
        if not self.offset:
            return f"行号：{CELL}里的行号。"
        head = "第 1 行是 %%writefile" if self.offset == 1 else f"前 {self.offset} 行是选项和 %%writefile"
        return (f"行号：{CELL}里的行号（单元格{head}，所以文件 {self.file} 的第 N 行是单元格的第 N+{self.offset} 行）。")

    @classmethod
    def parse(cls, line: str, file: str = "") -> "Numbering | None":
        """The numbering a saved ``statement()`` line names (None: not such a line). The grader re-runs a saved
        check in the numbering it printed: a check run from a terminal and pasted into the notebook is as
        honest as one run in the notebook."""
        if not line.startswith("行号："):
            return None
        if m := re.fullmatch(r"行号：文件 (.{1,200}) 里的行号。", line):
            return cls(0, False, m.group(1))
        if line in ("行号：代码文件里的行号。",):
            return cls(0, False, "")
        if line == f"行号：{CELL}里的行号。":
            return cls(0, True, file)
        if m := re.fullmatch(rf"行号：{CELL}里的行号（单元格.{{1,40}}，所以文件 (.{{1,200}}) 的第 N 行是单元格的第 "
                             r"N\+(\d{1,4}) 行）。", line):
            return cls(int(m.group(2)), True, m.group(1))
        return None

    def source(self, text: str) -> str:
        """``text`` (the file's content) padded so that its line numbers are this numbering's."""
        return "\n" * self.offset + text

    def error(self, err: BaseException) -> str:
        """A labsim error's message with its ``file:line`` in this numbering (the run itself used the file's)."""
        where = getattr(err, "where", None)
        if not isinstance(where, dict) or not (self.offset or self.cell):
            return str(err)
        text, file, line = str(err), where.get("file"), where.get("line")
        head = f"{file}:{line}"
        if file is not None and isinstance(line, int) and text.startswith(head):
            # located like a compiler's message (labsim.cuda): file:line:col: error: ..., the line, a caret
            return f"{CELL if self.cell else file}:{line + self.offset}" + text[len(head):]
        moved = dict(where)
        if "line" in moved:
            moved["line"] = int(moved["line"]) + self.offset
        if self.cell and "file" in moved:
            moved["file"] = CELL
        try:
            clone = copy.copy(err)
            clone.where = moved
            return clone._format()
        except Exception:  # a message is never worth a crash: keep the file's numbering
            return str(err)


FILE = Numbering()
