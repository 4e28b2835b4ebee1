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
    pass_score: float | None = None
    manual_items: dict | None = None        # item id -> points (None: an older results.json)
    optional: tuple[str, ...] = ()          # manual items outside the pass rule (their points add to the score only)
    optional_score: float = 0.0             # the points a TA entered for them

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
                                 float(extra.get("pending_manual_points") or 0),
                                 None if extra.get("pass_score") is None else float(extra["pass_score"]),
                                 dict(extra["manual_items"]) if isinstance(extra.get("manual_items"), dict) else None,
                                 tuple(str(i) for i in extra.get("optional_manual_items") or ())))
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


MANUAL_COLUMNS = ("student", "exercise", "item", "points", "comment")


def manual_template(folders: list[Path], out: Path) -> int:
    """A CSV for the TA: one row per student, exercise and manual item still pending, points left empty."""
    exercises, table = merge(folders)
    n = 0
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow([*MANUAL_COLUMNS, "max_points"])
        for student in sorted(table):
            for x in exercises:
                e = table[student].get(x)
                for item, mx in (_manual_items(e) if e else {}).items():
                    w.writerow([csv_cell(student), x, item, "", "", f"{mx:g}"])
                    n += 1
    return n


def _manual_items(e: Entry) -> dict[str, float]:
    if e.manual_items is not None:
        return {k: float(v) for k, v in e.manual_items.items()}
    from .spec import load_exercise             # a results.json written before manual_items was recorded
    return {m.id: float(m.points) for m in load_exercise(e.exercise).manual}


def _pass_score(e: Entry) -> float:
    if e.pass_score is not None:
        return e.pass_score
    from .spec import load_exercise
    return float(load_exercise(e.exercise).config["pass_score"])


def apply_manual(table: dict[str, dict[str, Entry]], path: Path) -> int:
    """Add the points a TA entered (CSV: student, exercise, item, points[, comment]) to the entries: the score
    grows, the pending points shrink, the verdict follows the grader's rule (a veto fails; a pass needs the
    pass score; points still pending keep it pending). Returns the rows applied; a row that names an unknown
    student, exercise or item, points outside 0..max, or an item entered twice is an error naming the row."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise GradebookError(f"{path}: cannot read the manual scores ({e})") from None
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in MANUAL_COLUMNS[:4] if c not in (reader.fieldnames or [])]
    if missing:
        raise GradebookError(f"{path}: the manual scores need the columns {', '.join(MANUAL_COLUMNS[:4])} "
                             f"(missing: {', '.join(missing)})")
    seen: set[tuple[str, str, str]] = set()
    applied = 0
    for n, row in enumerate(reader, start=2):
        where = f"{path}:{n}"
        student = (row.get("student") or "").strip().lstrip("'")
        x, item, pts = ((row.get(k, "") or "").strip() for k in ("exercise", "item", "points"))
        if not pts:
            continue                                   # not graded yet: stays pending
        e = table.get(student, {}).get(x)
        if e is None:
            raise GradebookError(f"{where}: no graded result for student {student!r} in exercise {x!r}")
        items = _manual_items(e)
        if item not in items:
            raise GradebookError(f"{where}: {x} has no manual item {item!r} (its items: {', '.join(items)})")
        try:
            value = float(pts)
        except ValueError:
            raise GradebookError(f"{where}: points {pts!r} is not a number") from None
        if not 0 <= value <= items[item]:
            raise GradebookError(f"{where}: points {value:g} outside 0..{items[item]:g} for {x} {item}")
        if (student, x, item) in seen:
            raise GradebookError(f"{where}: {student} {x} {item} entered twice")
        seen.add((student, x, item))
        e.score = round(e.score + value, 6)
        e.pending = round(e.pending - items[item], 6)
        if item in e.optional:
            e.optional_score = round(e.optional_score + value, 6)
        e.verdict = _verdict(e, items, seen, student, x)
        applied += 1
    return applied


def _verdict(e: Entry, items: dict[str, float], seen: set, student: str, x: str) -> str:
    """The grader's rule (results.SubmissionResult.verdict) on an entry: optional items neither help a pass nor
    hold the verdict pending."""
    optional_pending = sum(items[i] for i in e.optional if i in items and (student, x, i) not in seen)
    score = e.score - e.optional_score
    pending = round(e.pending - optional_pending, 6)
    return "fail" if e.veto or score + pending < _pass_score(e) else "pending" if pending > 0 else "pass"


def write_course_gradebook(folders: list[Path], out: Path, order: list[str] | None = None,
                           manual: list[Path] = ()) -> int:
    """Write the merged CSV (with the TA's manual scores added, if given); returns the number of students."""
    exercises, table = merge(folders, order)
    for m in manual:
        apply_manual(table, m)
    head = ["student"] + [f"{x} {f}" for x in exercises for f in FIELDS] + ["total", "total_max"]
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)   # a separator or formula inside a cell stays text in it
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
