"""Names the grading tests share (a module, not conftest, so test files can import it unambiguously)."""
from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path

import pytest


HERE = Path(__file__).parent
FIXTURE_EXERCISES = HERE / "fixtures" / "exercises"     # exercises that are not lessons (GRADING_EXERCISES)
CORPORA = HERE / "submissions"                           # one corpus per exercise: submissions/<id>/
SUBMISSIONS = CORPORA / "lesson09"
REFERENCE = HERE.parents[1] / "grading" / "exercises" / "lesson09" / "solution.cu"   # the reference solution

# labsim.cuda is part of the project; the marker stays for the tests that name it (it never skips)
needs_cuda = pytest.mark.skipif(False, reason="labsim.cuda is part of the project")


def fixture_roots() -> str:
    """GRADING_EXERCISES with the fixture exercises' root added."""
    return os.pathsep.join([str(FIXTURE_EXERCISES)] + [p for p in [os.environ.get("GRADING_EXERCISES")] if p])


def exercise_ids() -> list[str]:
    """Every exercise the grading tests see (at collection time, before the autouse fixture runs)."""
    from grading.spec import available
    before = os.environ.get("GRADING_EXERCISES")
    os.environ["GRADING_EXERCISES"] = fixture_roots()
    try:
        return available()
    finally:
        if before is None:
            del os.environ["GRADING_EXERCISES"]
        else:
            os.environ["GRADING_EXERCISES"] = before


def path_of(name: str) -> Path:
    """A corpus file, or the exercise's reference solution for "solution.cu"."""
    return REFERENCE if name == "solution.cu" else SUBMISSIONS / name


def fill(ex, blank: str) -> str:
    return ex.template.replace(ex.blank, blank)


def expectations(exercise_id: str) -> tuple[dict, dict[str, dict]]:
    """([exercise] of submissions/<id>/expected.toml, file name -> expectation)."""
    data = tomllib.loads((CORPORA / exercise_id / "expected.toml").read_text(encoding="utf-8"))
    head = data.pop("exercise")
    return head, data


def corpus_file(ex, name: str) -> Path:
    return ex.solution_path if name == "solution.cu" else CORPORA / ex.id / name


def auto_check_ids(ex) -> list[str]:
    return [c.id for c in ex.public_checks + ex.hidden_checks]


def assert_expected(ex, res, exp: dict, head: dict) -> None:
    """``res`` (a SubmissionResult) is what ``exp`` (one entry of expected.toml) says."""
    auto = auto_check_ids(ex)
    status = {t.id: t.status for t in res.tests}
    want_failed = set(auto) if exp.get("failed") == "all" else set(exp.get("failed", []))
    failed = {t for t in auto if status[t] != "passed"}
    assert failed == want_failed, {t.id: t.output for t in res.tests if t.id in failed ^ want_failed}
    assert {v.id for v in res.vetoes} == set(exp.get("vetoes", [])), res.vetoes
    if exp.get("problem"):
        assert res.problem and exp["problem"] in res.problem, res.problem
        assert all(t.output.startswith("未运行") for t in res.tests if t.id in auto)
    else:
        assert res.problem is None, res.problem
    conformance = exp.get("conformance", "passed")
    assert status.get("conformance") == (None if conformance == "none" else conformance)
    for n in exp.get("notes", []):
        assert any(n in note for note in res.notes), res.notes
    # what the student reads must be true of this submission: phrases it must say, and phrases it must not
    visible = student_visible(res)
    # every corpus file: no literal backtick in the plain-text results.json, no "0 个从未写入", no chained
    # colons in a message we wrote (a quoted labsim error may hold its own)
    plain = json.dumps(res.to_gradescope(), ensure_ascii=False)
    assert "`" not in plain.replace(json.dumps(res.blank or "", ensure_ascii=False)[1:-1], ""), plain
    assert "（其中 0 个从未写入）" not in visible
    for t in res.tests:
        ours = t.output.split("labsim 的报错原文是")[0].split("\n")[0]
        assert ours.count("：") <= 2, t.output
    for m in exp.get("messages", []):
        assert m in visible, (m, [v.reason for v in res.vetoes])
    for m in exp.get("absent", []):
        assert m not in visible, (m, [v.reason for v in res.vetoes])
    assert res.max_score == head["max_score"] and res.pending_max == head["pending"]
    points = {c.id: c.points for c in ex.public_checks + ex.hidden_checks}
    expected_score = sum(p for c, p in points.items() if c not in want_failed)
    assert res.score == expected_score
    pass_score = ex.config["pass_score"]
    counted = head["pending"] - head.get("optional", 0)      # optional manual points are outside the pass rule
    assert res.verdict == ("fail" if exp.get("vetoes") or expected_score + counted < pass_score
                           else "pending" if counted else "pass")
    validate_gradescope(res.to_gradescope())


def student_visible(res) -> str:
    """Everything a student reads of a graded result: results.json and feedback.md."""
    from grading.report import feedback_markdown
    return json.dumps(res.to_gradescope(), ensure_ascii=False) + "\n" + feedback_markdown(res)


def validate_gradescope(d: dict) -> None:
    """Gradescope's results.json schema, as its autograder specification describes it."""
    assert isinstance(d["score"], (int, float)) and isinstance(d["tests"], list)
    assert d.get("visibility", "visible") in ("hidden", "after_due_date", "after_published", "visible")
    assert isinstance(d["extra_data"], dict) and isinstance(d["extra_data"]["veto"], list)
    for t in d["tests"]:
        assert set(t) <= {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
                          "tags", "visibility", "extra_data"}
        assert isinstance(t["name"], str) and isinstance(t["output"], str) and isinstance(t["tags"], list)
        assert 0 <= t["score"] <= t["max_score"]
        assert t.get("status", "passed") in ("passed", "failed")
        assert t["visibility"] in ("hidden", "after_due_date", "after_published", "visible")
        if "manual" in t["tags"]:
            assert t["score"] == 0 and "status" not in t and "pending" in t["tags"]
    assert d["score"] == pytest.approx(sum(t["score"] for t in d["tests"]))
    json.dumps(d)


_GRADED: dict = {}


def graded(path, ex, **options):
    """``grade_submission(path, ex, options=Options(nvcc="off", **options))``, computed once per test session for
    each exercise, file (path and content) and options: lesson 8-10's corpora are read by several test files,
    and a run of the suite grades each entry once. Callers only read the result."""
    from grading.grade import Options, grade_submission
    p = Path(path)
    key = (ex.id, str(p.resolve()), hashlib.sha256(p.read_bytes()).hexdigest(), tuple(sorted(options.items())),
           os.environ.get("GRADING_SECRET"))
    if key not in _GRADED:
        _GRADED[key] = grade_submission(p, ex, options=Options(**{"nvcc": "off", **options}))
    return _GRADED[key]
