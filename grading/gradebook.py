"""The course gradebook: per-exercise grading folders merged into one row per student.

``python -m grading gradebook graded/lesson09 graded/lesson10 ... --out course.csv`` reads every
``<dir>/<submission>/results.json`` the grader wrote (``grade`` or ``gradescope``), matches students by
submission name (or the Gradescope metadata next to a results.json), and writes one row per student with,
per exercise, the score, the verdict, the vetoes and the manual points still pending. Text cells are
escaped against spreadsheet formulas, so the CSV imports into Canvas or Moodle as plain values.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

from .report import csv_cell

FIELDS = ("score", "max_score", "verdict", "veto", "pending_manual")
MAX_RESULTS_BYTES = 5_000_000


@dataclass
class Entry:
    student: str
    exercise: str
    score: float
    max_score: float
    verdict: str
    veto: str
    pending: float

    def __repr__(self) -> str:
        return f"Entry({self.student!r}, {self.exercise}, {self.score:g}/{self.max_score:g}, {self.verdict})"


class GradebookError(ValueError):
    """A folder that holds no grading results, or two results for one student and exercise."""


def _student(folder: Path, extra: dict) -> str:
    meta = folder / "submission_metadata.json"
    if meta.is_file() and not meta.is_symlink():
        try:
            users = json.loads(meta.read_text(encoding="utf-8")).get("users") or []
            ids = [str(u.get("email") or u.get("sid") or u.get("name")) for u in users if isinstance(u, dict)]
            if ids:
                return ";".join(sorted(ids))
        except (OSError, ValueError, AttributeError):
            pass
    return str(extra.get("submission") or folder.name)


def read_entries(folder: Path) -> list[Entry]:
    """Every graded submission under ``folder`` (its sub-folders' results.json)."""
    entries = []
    for res in sorted(folder.glob("*/results.json")):
        if res.is_symlink() or res.parent.is_symlink() or res.stat().st_size > MAX_RESULTS_BYTES:
            continue
        try:
            d = json.loads(res.read_text(encoding="utf-8"))
            extra = d["extra_data"]
            entries.append(Entry(_student(res.parent, extra), str(extra["exercise"]), float(d["score"]),
                                 float(d["max_score"]), str(extra["verdict"]),
                                 ";".join(str(v.get("id", "")) for v in extra.get("veto") or []),
                                 float(extra.get("pending_manual_points") or 0)))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise GradebookError(f"{res}: not a results.json the grader wrote ({type(e).__name__}: {e})") from None
    if not entries:
        raise GradebookError(f"{folder}: no <submission>/results.json found (was it graded with --out?)")
    return entries


def merge(folders: list[Path], order: list[str] | None = None) -> tuple[list[str], dict[str, dict[str, Entry]]]:
    """(exercises in ``order``, else in the order of the folders given, student -> exercise -> entry); a
    student graded twice for one exercise (the same name in two folders) is an error, not a silent overwrite.
    The grader knows no course: the instructor's command line (or ``order``) says which unit comes first."""
    table: dict[str, dict[str, Entry]] = {}
    seen: list[str] = []
    for folder in folders:
        for e in read_entries(folder):
            row = table.setdefault(e.student, {})
            if e.exercise in row:
                raise GradebookError(f"{e.student}: graded twice for {e.exercise} (in {folder} and before it)")
            row[e.exercise] = e
            if e.exercise not in seen:
                seen.append(e.exercise)
    rank = {x: i for i, x in enumerate(order or ())}
    exercises = sorted(seen, key=lambda x: (rank.get(x, len(rank)), seen.index(x)))
    return exercises, table


def write_course_gradebook(folders: list[Path], out: Path, order: list[str] | None = None) -> int:
    """Write the merged CSV; returns the number of students."""
    exercises, table = merge(folders, order)
    head = ["student"] + [f"{x} {f}" for x in exercises for f in FIELDS] + ["total", "total_max"]
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(head)
        for student in sorted(table):
            row = table[student]
            cells = [csv_cell(student)]
            for x in exercises:
                e = row.get(x)
                cells += ([f"{e.score:g}", f"{e.max_score:g}", e.verdict, csv_cell(e.veto), f"{e.pending:g}"]
                          if e else ["", "", "missing", "", ""])
            cells += [f"{sum(e.score for e in row.values()):g}", f"{sum(e.max_score for e in row.values()):g}"]
            w.writerow(cells)
    return len(table)
