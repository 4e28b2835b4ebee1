"""The student build (each transform, and the whole: no hidden checks ship, the public check still works),
the Gradescope bundle (setup.sh + run_autograder), nvcc, and the lesson's exercise cell vs the template."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from grading_testlib import REFERENCE, SUBMISSIONS, fill, needs_cuda
from nbmaker import notebook, write

from grading.bundle import build_bundle
from grading.nvcc import find_nvcc, nvcc_compile
from grading.studentbuild import BuildContext, build, copy_package, drop_hidden_checks, drop_rubrics, strip_config
from grading.studentbuild.verify import BuildError, forbidden_strings
from grading.studentbuild.verify import run as verify

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    build(out)
    return out


def test_copy_package_takes_only_chosen_exercises(tmp_path):
    ctx = BuildContext(tmp_path / "grading", ("lesson09",))
    copy_package.run(ctx)
    assert (ctx.out / "exercises" / "lesson09" / "template.cu").exists()
    assert not list(ctx.out.rglob("__pycache__"))


def test_drop_steps(tmp_path):
    ctx = BuildContext(tmp_path / "grading", ("lesson09",))
    copy_package.run(ctx)
    drop_hidden_checks.run(ctx)
    drop_rubrics.run(ctx)
    assert not list(ctx.out.rglob("hidden_checks.py")) and not list(ctx.out.rglob("rubric.toml"))


def test_strip_config_keeps_the_rest():
    text = (REPO / "grading/exercises/lesson09/config.toml").read_text(encoding="utf-8")
    before, after = tomllib.loads(text), tomllib.loads(strip_config.strip_keys(text))
    assert "instructor_secret" in before and "instructor_secret" not in after
    assert {k: v for k, v in before.items() if k not in strip_config.INSTRUCTOR_KEYS} == after


def test_verify_catches_a_leak(tmp_path):
    ctx = BuildContext(tmp_path / "grading", ("lesson09",))
    copy_package.run(ctx)
    drop_hidden_checks.run(ctx)
    drop_rubrics.run(ctx)
    strip_config.run(ctx)
    secret = next(s for s, what in forbidden_strings(("lesson09",)).items() if "secret" in what)
    (ctx.out / "leak.py").write_text(f"SECRET = {secret!r}\n")
    with pytest.raises(BuildError, match="secret"):
        verify(ctx)


def test_student_build_has_no_hidden_material(student):
    files = [p for p in student.rglob("*") if p.is_file()]
    assert not [p for p in files if p.name in ("hidden_checks.py", "rubric.toml", "solution.cu", "batch.py",
                                               "bundle.py")]
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)
    forbidden = forbidden_strings(("lesson09",))
    assert len(forbidden) >= 11
    for s in forbidden:
        assert s not in text
    cfg = tomllib.loads((student / "grading/exercises/lesson09/config.toml").read_text(encoding="utf-8"))
    assert "instructor_secret" not in cfg and cfg["blank"] == "______"


def _run_student(student: Path, code: str) -> subprocess.CompletedProcess:
    # labsim from the repo; grading from the build (cwd first); no extra exercise roots, as on a student's machine
    env = {**{k: v for k, v in os.environ.items() if k != "GRADING_EXERCISES"}, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", code], cwd=student, env=env, capture_output=True, text=True,
                          timeout=600)


def test_student_build_public_check_handles_mistakes_without_hidden_checks(ex, student, tmp_path):
    p = tmp_path / "s.cu"
    p.write_text(ex.template)
    r = _run_student(student, f"import grading; print(grading.__file__); from grading import check; check({str(p)!r})")
    assert r.returncode == 0, r.stderr
    assert str(student) in r.stdout and "还没有填写" in r.stdout


@needs_cuda
def test_student_build_public_check_runs_and_receipt_matches_grader(ex, student, tmp_path):
    code = fill(ex, "TILE_DIM + 1")
    p = tmp_path / "s.cu"
    p.write_text(code)
    r = _run_student(student, f"from grading import check; check({str(p)!r})")
    assert r.returncode == 0, r.stderr
    assert "公开检查全部通过" in r.stdout
    # the instructor's grader accepts the receipt the student build printed
    from grading.grade import Options, grade_submission
    nb = write(notebook(code, check_output=r.stdout), tmp_path / "s.ipynb")
    res = grade_submission(nb, ex, options=Options(nvcc="off"))
    assert res.instructor["receipt"] == "ok" and not res.vetoes


def test_student_build_refuses_instructor_commands(student, tmp_path):
    r = subprocess.run([sys.executable, "-m", "grading", "grade", "--exercise", "lesson09", str(tmp_path), "--out",
                        str(tmp_path / "o")], cwd=student, env={**os.environ, "PYTHONPATH": str(REPO)},
                       capture_output=True, text=True, timeout=600)
    assert r.returncode != 0


def test_bundle_layout(tmp_path):
    z = build_bundle("lesson09", tmp_path / "autograder.zip")
    with zipfile.ZipFile(z) as f:
        names = f.namelist()
        assert "setup.sh" in names and "run_autograder" in names and "pyproject.toml" in names
        for exe in ("setup.sh", "run_autograder"):
            assert (f.getinfo(exe).external_attr >> 16) & 0o111
        assert "grading/exercises/lesson09/hidden_checks.py" in names and "labsim/cuda/__init__.py" in names
        assert not [n for n in names if "__pycache__" in n or n.startswith("tests/")]
        run = f.read("run_autograder").decode()
        assert "--exercise lesson09" in run and "results/results.json" in run
        assert "pip install" in f.read("setup.sh").decode()


def test_bundle_runs_like_gradescope(ex, tmp_path):
    """Unpack as Gradescope does and run run_autograder on a submitted notebook (setup.sh's pip install is
    replaced by this test's interpreter)."""
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    with zipfile.ZipFile(build_bundle("lesson09", tmp_path / "a.zip")) as f:
        f.extractall(root / "source")
    write(notebook(fill(ex, "TILE_DIM + 2")), root / "submission" / "lesson09.ipynb")
    run = root / "source" / "run_autograder"
    run.chmod(0o755)
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    env.pop("PYTHONPATH", None)
    r = subprocess.run(["bash", str(run)], env=env, capture_output=True, text=True, timeout=300)
    d = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert r.returncode == 0, r.stderr
    assert d["score"] == 2 and d["max_score"] == 10
    assert any("manual" in t["tags"] for t in d["tests"])


nvcc_needed = pytest.mark.skipif(find_nvcc() is None, reason="nvcc not installed")


@nvcc_needed
def test_nvcc_compiles_reference_and_reports_errors(ex):
    assert nvcc_compile(ex.fill("TILE_DIM + 1")).status == "passed"
    bad = nvcc_compile(ex.fill("TILE_DIM + 1").replace("int x =", "int x = undefined_name +"),
                       display_name="09_transpose_tiled.cu")
    assert bad.status == "failed" and "undefined_name" in bad.message and "09_transpose_tiled.cu" in bad.message


@nvcc_needed
def test_nvcc_in_pipeline(ex):
    from grading.grade import Options, grade_submission
    res = grade_submission(REFERENCE, ex, options=Options(nvcc="on"))
    t = next(t for t in res.tests if t.id == "nvcc")
    assert t.status == "passed" and t.max_score == 0


def test_nvcc_timeout_is_not_the_students_fault(ex, monkeypatch):
    if find_nvcc() is None:
        pytest.skip("nvcc not installed")
    import grading.nvcc as gn
    monkeypatch.setattr(gn, "_CACHE", {})
    assert nvcc_compile(ex.fill("TILE_DIM + 5"), timeout_s=0.001).status == "timeout"


LESSON = REPO / "lessons" / "lesson09_transpose_tiled.qmd"


@pytest.mark.skipif(not LESSON.exists(), reason="lesson 9 not written yet")
def test_lesson_exercise_cell_is_the_template(ex):
    from grading.conformance import check_conformance
    text = LESSON.read_text(encoding="utf-8")
    cells = re.findall(r"```\{python\}\n(#\| course_role: (\w+)\n%%writefile [^\n]+\n.*?)```", text, re.S)
    by_role: dict[str, str] = {}
    for body, role in cells:             # the lesson's own cells come first; its challenge's come after them
        by_role.setdefault(role, body.split("\n", 2)[2])
    ex_cell = check_conformance(ex.template, by_role["exercise"], blank=ex.blank, names=ex.names)
    assert ex_cell.edits == [] and ex_cell.problem_kind == "unfilled"
    sol = check_conformance(ex.template, by_role["solution"], blank=ex.blank, names=ex.names)
    ref = check_conformance(ex.template, ex.solution_path.read_text(encoding="utf-8"), blank=ex.blank, names=ex.names)
    assert sol.edits == [] and sol.value == ref.value
    assert "### 解释你的实现" in text and all(f"### {q}\n" in text for q in ("Q1", "Q2", "Q3"))
    assert 'check("/tmp/09_transpose_tiled.cu")' in text
