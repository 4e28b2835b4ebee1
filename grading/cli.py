"""Command line: ``python -m grading {check,grade,gradescope,gradebook,bundle,student-build} ...``.

Exit status: 0 whenever the grader ran (whatever the submissions were worth); 2 when the grader is misused
(bad arguments, unknown exercise, a path that does not exist); 3 when the grading environment is broken
(labsim's CUDA front end missing).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

from .spec import ROOTS_ENV, SpecError, load_exercise, resolve

MISUSE = 2


def _die(msg: str, code: int = MISUSE) -> int:
    print(f"grading: error: {msg}", file=sys.stderr)
    return code


def _exercise(name: str):
    try:
        return load_exercise(name)
    except SpecError as e:
        raise SystemExit(_die(str(e)))


def _instructor_only(module: str):
    """Import an instructor tool; the student build ships without them."""
    import importlib
    try:
        return importlib.import_module(f"grading.{module}")
    except ModuleNotFoundError:
        raise SystemExit(_die(f"'{module}' is an instructor tool and not part of the student build"))


def cmd_check(a: argparse.Namespace) -> int:
    try:
        ex = resolve(a.exercise, a.file)
    except SpecError as e:
        return _die(str(e))
    if not Path(a.file).exists():
        return _die(f"{a.file}: no such file")
    from .checkcell import check
    check(a.file, ex.id)
    return 0


def cmd_grade(a: argparse.Namespace) -> int:
    ex = _exercise(a.exercise)
    missing = [p for p in a.submissions if not Path(p).exists()]
    if missing:
        return _die(f"no such file or folder: {', '.join(missing)}")
    grade_many = _instructor_only("batch").grade_many
    from .pipeline import Options
    from .source import discover
    warnings: list[str] = []
    items = discover([Path(p) for p in a.submissions], ex, warnings)
    for w in warnings:
        print(f"grading: warning: {w}", file=sys.stderr)
    if not items:
        return _die("no submissions found (.ipynb, .cu, or student folders)")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    gpu_on = False
    if a.gpu:
        from .gpu import status
        gpu_on, why = status()
        print(f"--gpu: running the hidden cases natively on {why}" if gpu_on else f"--gpu: skipped: {why}")
    results = grade_many(items, ex.id, out, jobs=a.jobs, time_limit=a.time_limit,
                         edited_time_limit=a.edited_time_limit, options=Options(nvcc=a.nvcc, secret=a.secret, gpu=gpu_on), progress=not a.no_progress)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    print(f"graded {len(results)} submission(s) into {out}: " +
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if gpu_on:
        ran = [r for r in results if r.instructor.get("gpu", {}).get("status") == "ran"]
        bad = [r.name for r in results if r.instructor.get("gpu_disagreements")]
        print(f"--gpu: {len(ran)} submission(s) run on the GPU; GPU and labsim disagree on {len(bad)}"
              + (": " + ", ".join(bad) if bad else ""))
    return 0


def _gradescope_failure(results_path: Path, message: str) -> None:
    """Gradescope shows nothing without results.json: always leave one that says why."""
    try:
        results_path.parent.mkdir(parents=True, exist_ok=True)
        results_path.write_text(json.dumps({"score": 0, "output": message, "tests": []}, ensure_ascii=False),
                                encoding="utf-8")
    except OSError as e:
        print(f"grading: error: cannot write {results_path}: {e}", file=sys.stderr)


def cmd_gradescope(a: argparse.Namespace) -> int:
    results_path = Path(a.results)
    try:
        ex = _exercise(a.exercise)
    except SystemExit:
        _gradescope_failure(results_path, f"评分配置有误：没有练习 {a.exercise}，请联系老师（不是你的问题）。")
        raise
    sub = Path(a.submission)
    if not sub.is_dir() or sub.is_symlink():
        _gradescope_failure(results_path, "没有收到提交的文件夹：请重新提交（上传 .ipynb 或 .cu 文件）。"
                                          "如果一直这样，请联系老师。")
        return _die(f"{sub}: no such folder")
    results_path.parent.mkdir(parents=True, exist_ok=True)
    grade_many = _instructor_only("batch").grade_many
    from .pipeline import Options
    name = a.name or _gradescope_name(Path(a.metadata))
    [res] = grade_many([(name, sub)], ex.id, None, jobs=1, options=Options(nvcc=a.nvcc), progress=False)
    results_path.write_text(json.dumps(res.to_gradescope(), ensure_ascii=False, indent=2), encoding="utf-8")
    from .report import feedback_markdown
    print(feedback_markdown(res))
    return 0


def _gradescope_name(metadata: Path) -> str:
    """The hidden cases are seeded per submission: use Gradescope's submission id (stable across regrades)."""
    try:
        meta = json.loads(metadata.read_text(encoding="utf-8"))
        return f"gs{int(meta['id'])}"
    except (OSError, ValueError, KeyError, TypeError):
        return "submission"


def cmd_gradebook(a: argparse.Namespace) -> int:
    gb = _instructor_only("gradebook")
    missing = [d for d in a.dirs if not Path(d).is_dir()]
    if missing:
        return _die(f"no such folder: {', '.join(missing)}")
    if not a.out and not a.manual_template:
        return _die("gradebook needs --out CSV (or --manual-template CSV)")
    try:
        if a.manual_template:
            n = gb.manual_template([Path(d) for d in a.dirs], Path(a.manual_template))
            print(f"wrote {a.manual_template}: {n} manual item(s) to score")
            return 0
        n = gb.write_course_gradebook([Path(d) for d in a.dirs], Path(a.out), manual=[Path(m) for m in a.manual])
    except gb.GradebookError as e:
        return _die(str(e))
    print(f"wrote {a.out}: {n} student(s)")
    return 0


def cmd_release_record(a: argparse.Namespace) -> int:
    """Add this version's counting model and every exercise's tool hash to grading/releases.toml."""
    from .receipt import model_version, record_release
    from .spec import available, load_exercise
    added = record_release(model_version(), {e: load_exercise(e).fingerprint()[:8] for e in available()})
    print("releases.toml: " + (", ".join(added) if added else "this version is already recorded"))
    return 0


def cmd_bundle(a: argparse.Namespace) -> int:
    ex = _exercise(a.exercise)
    build_bundle = _instructor_only("bundle").build_bundle
    path = build_bundle(ex.id, Path(a.out))
    print(f"wrote {path}")
    return 0


def cmd_student_build(a: argparse.Namespace) -> int:
    for name in a.exercise or ():
        _exercise(name)
    build = _instructor_only("studentbuild").build
    report = build(Path(a.out), tuple(a.exercise) if a.exercise else None)
    print(report)
    return 0


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive, finite number of seconds, not {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _globbed_options(argv: list[str]) -> list[str]:
    """Arguments spelled like an option that are also files here: a shell glob (``*.cu`` next to a file named
    ``--secret=x.cu``) put them there, and argparse would take them as options."""
    out = []
    for arg in argv:
        if arg == "--":
            break
        if arg.startswith("-") and len(arg) > 1 and os.path.lexists(arg):
            out.append(arg)
    return out


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if globbed := _globbed_options(argv):
        return _die(f"{globbed[0]!r} is both an option and a file here (a shell glob?): "
                    "put '--' before the submission paths, e.g. 'grade --exercise ID --out g -- *'")
    p = argparse.ArgumentParser(prog="python -m grading", description="Autograder for the course's exercises.",
                                allow_abbrev=False)
    sub = p.add_subparsers(dest="cmd", required=True)
    roots = argparse.ArgumentParser(add_help=False)
    roots.add_argument("--exercises-root", action="append", default=[], metavar="DIR",
                       help=f"also look for exercise folders in DIR (repeatable; adds to ${ROOTS_ENV})")

    def add(name: str, **kw) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[roots], allow_abbrev=False, **kw)

    c = add("check", help="run the public checks on one file (what the lesson's check cell does)")
    c.add_argument("--exercise", default=None,
                   help="exercise id (default: the one whose target file has this file's name, or the only one)")
    c.add_argument("file")
    c.set_defaults(func=cmd_check)

    g = add("grade", help="grade submissions (.cu, .ipynb, or folders of them) into DIR")
    g.add_argument("--exercise", required=True)
    g.add_argument("submissions", nargs="+", metavar="SUBMISSION")
    g.add_argument("--out", required=True, metavar="DIR")
    g.add_argument("--jobs", type=_positive_int, default=None, help="worker processes (default: all cores)")
    g.add_argument("--time-limit", type=_positive_seconds, default=None,
                   help="seconds per submission (default: config)")
    g.add_argument("--edited-time-limit", type=_positive_seconds, default=None,
                   help="seconds of the edited version's ungraded run, after the graded steps (default: config "
                        "[limits] edited_time_limit_s, else 20)")
    g.add_argument("--nvcc", choices=("auto", "on", "off"), default="auto")
    g.add_argument("--secret", default=None, help="instructor secret (default: GRADING_SECRET or config)")
    g.add_argument("--no-progress", action="store_true")
    g.add_argument("--gpu", action="store_true",
                   help="also run the conforming program on this machine's CUDA GPU (nvcc + a host harness) and "
                        "report where its output disagrees with labsim (instructor file; never changes scores)")
    g.set_defaults(func=cmd_grade)

    s = add("gradescope", help="grade one Gradescope submission folder into results.json")
    s.add_argument("--exercise", required=True)
    s.add_argument("--submission", default="/autograder/submission")
    s.add_argument("--results", default="/autograder/results/results.json")
    s.add_argument("--name", default=None, help="seeds the hidden cases (default: the metadata's submission id)")
    s.add_argument("--metadata", default="/autograder/submission_metadata.json")
    s.add_argument("--nvcc", choices=("auto", "on", "off"), default="auto")
    s.set_defaults(func=cmd_gradescope)

    gb = add("gradebook", help="merge per-exercise grading folders into one course gradebook CSV")
    gb.add_argument("dirs", nargs="+", metavar="DIR", help="folders written by grade --out (or Gradescope results)")
    gb.add_argument("--out", default=None, help="the course CSV to write")
    gb.add_argument("--manual", action="append", default=[], metavar="CSV",
                    help="a TA's manual scores (student,exercise,item,points[,comment]) added to the gradebook")
    gb.add_argument("--manual-template", default=None, metavar="CSV",
                    help="write the CSV a TA fills (one row per pending manual item) instead of the gradebook")
    gb.set_defaults(func=cmd_gradebook)

    rr = add("release-record", help="record this version's receipts as released (grading/releases.toml): run it "
                                    "when a kit goes to students, so their receipts are re-checked, not vetoed")
    rr.set_defaults(func=cmd_release_record)

    b = add("bundle", help="write a Gradescope autograder zip (setup.sh, run_autograder, sources)")
    b.add_argument("--exercise", required=True)
    b.add_argument("--out", required=True)
    b.set_defaults(func=cmd_bundle)

    sb = add("student-build", help="write the student copy of grading (public checks only)")
    sb.add_argument("--exercise", nargs="+", default=None,
                    help="exercise ids (default: every exercise in grading/exercises/)")
    sb.add_argument("--out", required=True)
    sb.set_defaults(func=cmd_student_build)

    a = p.parse_args(argv)
    if not a.exercises_root:
        return a.func(a)
    missing = [d for d in a.exercises_root if not Path(d).is_dir()]
    if missing:
        return _die(f"--exercises-root: no such folder: {', '.join(missing)}")
    # through the environment, so that worker processes see the same exercises
    before = os.environ.get(ROOTS_ENV)
    os.environ[ROOTS_ENV] = os.pathsep.join([str(Path(d).resolve()) for d in a.exercises_root] + [before or ""])
    try:
        return a.func(a)
    finally:
        if before is None:
            os.environ.pop(ROOTS_ENV, None)
        else:
            os.environ[ROOTS_ENV] = before
