"""Every exercise, discovered: grading/exercises/*/ and the fixture exercises (tests/grading/fixtures/exercises,
through GRADING_EXERCISES). Each is graded end to end from its folder alone — its spec, its own corpus
(tests/grading/submissions/<id>/ with expected.toml), the public check, the CLI's results.json, the Gradescope
bundle and the student build — and the generic rules hold for it (vetoes run one by one, 0 cases fail)."""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from grading_testlib import (CORPORA, FIXTURE_EXERCISES, assert_expected, auto_check_ids, corpus_file,
                             exercise_ids, expectations, graded, needs_cuda, validate_gradescope)

from grading.conformance import check_conformance
from grading.grade import Options, grade_submission
from grading.spec import EXERCISES_DIR, load_exercise

REPO = Path(__file__).resolve().parents[2]
EXERCISES = exercise_ids()
CORPUS = [(e, n) for e in EXERCISES if (CORPORA / e / "expected.toml").is_file() for n in sorted(expectations(e)[1])]


def env_without_roots() -> dict[str, str]:
    """A subprocess environment that sees only what it carries itself (no GRADING_EXERCISES)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GRADING_EXERCISES", "PYTHONPATH")}
    return env


def test_discovery_finds_the_lessons_and_the_fixture():
    assert "vecscale" in EXERCISES
    assert {p.name for p in EXERCISES_DIR.iterdir() if (p / "config.toml").is_file()} <= set(EXERCISES)
    assert load_exercise("vecscale").folder.parent == FIXTURE_EXERCISES


@pytest.mark.parametrize("eid", EXERCISES)
def test_every_exercise_has_its_own_corpus(eid):
    head, exp = expectations(eid)
    files = {p.name for p in (CORPORA / eid).iterdir() if p.is_file() and p.name != "expected.toml"}
    assert files | {"solution.cu"} == set(exp)


def test_every_corpus_belongs_to_an_exercise():
    assert {p.name for p in CORPORA.iterdir() if p.is_dir()} <= set(EXERCISES)


@pytest.mark.parametrize("eid", EXERCISES)
def test_spec_is_consistent(eid):
    ex = load_exercise(eid)
    if ex.whole:              # grading.whole: the solution keeps the template's signatures
        from grading.whole import whole_conformance
        ref = whole_conformance(ex.template, ex.solution_path.read_text(encoding="utf-8"),
                                [ex.config["kernel"], ex.config["host_function"]])
    else:
        ref = check_conformance(ex.template, ex.solution_path.read_text(encoding="utf-8"), blank=ex.blank,
                                names=ex.names, regions=ex.regions, value_range=ex.value_range(),
                                rules=ex.blank_rules)
    assert ref.edits == [] and ref.blank_ok, ref
    ids = auto_check_ids(ex) + [f"manual_{m.id}" for m in ex.manual]
    assert len(ids) == len(set(ids)), ids
    assert all(ex.template.splitlines()[f.line - 1] for f in ex.focus)
    assert any(ex.public_module.cases().values())
    assert ex.hidden_module is None or any(ex.hidden_module.cases(np.random.default_rng(0)).values())
    head, _ = expectations(eid)
    total = sum(c.points for c in ex.public_checks + ex.hidden_checks) + sum(m.points for m in ex.manual)
    assert total == head["max_score"]


# Every challenge's corpus has a kernel that never ends; grading one runs each of its ~15 cases to the step budget
# (~1.5-3 s of CPU). They test the same stop (grading.whole under labsim's step budget): `make test` grades P2's,
# the slow tier the other three.
ENDLESS_FAST = {("p2_challenge", "fails_hostile_endless_loop.cu")}


def _corpus_param(eid: str, name: str):
    slow = name == "fails_hostile_endless_loop.cu" and (eid, name) not in ENDLESS_FAST
    return pytest.param(eid, name, id=f"{eid}/{name}", marks=pytest.mark.slow if slow else ())


@needs_cuda
@pytest.mark.parametrize("eid,name", [_corpus_param(e, n) for e, n in CORPUS])
def test_corpus(eid, name):
    ex = load_exercise(eid)
    head, exp = expectations(eid)
    res = graded(corpus_file(ex, name), ex)
    assert_expected(ex, res, exp[name], head)
    assert not res.instructor.get("internal_errors"), res.instructor["internal_errors"]


@needs_cuda
@pytest.mark.parametrize("eid", EXERCISES)
def test_public_check_end_to_end(eid, tmp_path, capsys):
    from grading import check
    ex = load_exercise(eid)
    p = tmp_path / ex.target_name                    # named like the target: check() finds the exercise itself
    p.write_text(ex.solution_path.read_text(encoding="utf-8"), encoding="utf-8")
    rep = check(p)
    out = capsys.readouterr().out
    assert rep.exercise == eid and rep.ok and rep.receipt and rep.receipt in out
    assert {c.focus for c in rep.counters if c.focus} == {f.label for f in ex.focus}
    for f in ex.focus:
        assert f"← {f.label}" in out
    assert (rep.heatmap is not None) == (ex.heatmap_focus is not None)
    if rep.heatmap is not None:
        f = ex.heatmap_focus
        assert rep.heatmap.line == f.line and rep.heatmap.space == (f.space or rep.heatmap.space)
        unit = "wavefront" if rep.heatmap.space == "shared" else "sector"
        assert f"{f.label}{' ' if f.label[-1].isascii() else ''}的一个 warp" in rep.heatmap_summary and unit in rep.heatmap_summary
    p.write_text(ex.template, encoding="utf-8")
    rep = check(p, quiet=True)
    assert not rep.ok and rep.problem and rep.receipt     # a blocked verdict is bound by a receipt too


@needs_cuda
@pytest.mark.parametrize("eid", EXERCISES)
def test_cli_grade_writes_results(eid, tmp_path, capsys):
    from grading.cli import main
    ex = load_exercise(eid)
    _, exp = expectations(eid)
    inp = tmp_path / "in"
    inp.mkdir()
    names = sorted(exp)[:3]
    for name in names:
        shutil.copy(corpus_file(ex, name), inp / name)
    out = tmp_path / "out"
    assert main(["grade", "--exercise", eid, str(inp), "--out", str(out), "--nvcc", "off", "--no-progress",
                 "--jobs", "2"]) == 0
    rows = {r["submission"]: r for r in csv.DictReader(open(out / "gradebook.csv", encoding="utf-8"))}
    for name in names:
        d = json.loads((out / Path(name).stem / "results.json").read_text(encoding="utf-8"))
        validate_gradescope(d)
        assert d["extra_data"]["exercise"] == eid
        assert sorted(v["id"] for v in d["extra_data"]["veto"]) == sorted(exp[name].get("vetoes", []))
        assert rows[Path(name).stem]["verdict"] == d["extra_data"]["verdict"]


def _unpacked_bundle(eid: str, tmp_path: Path) -> tuple[Path, list[str]]:
    """The exercise's Gradescope bundle unpacked as Gradescope does: ``(autograder root, names in the zip)``."""
    from grading.bundle import build_bundle
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    with zipfile.ZipFile(build_bundle(eid, tmp_path / "a.zip")) as f:
        names = f.namelist()
        f.extractall(root / "source")
    return root, names


@pytest.mark.parametrize("eid", EXERCISES)
def test_bundle_carries_the_exercise(eid, tmp_path):
    """The bundle holds the exercise's folder wherever it lives, and the instructor's README with its numbers."""
    ex = load_exercise(eid)
    root, names = _unpacked_bundle(eid, tmp_path)
    assert f"grading/exercises/{eid}/config.toml" in names and f"grading/exercises/{eid}/hidden_checks.py" in names
    # the instructor's README: assignment setup, base image, how manual points are entered, with the numbers
    readme = (root / "source" / "README.md").read_text(encoding="utf-8")
    assert "Ubuntu 22.04" in readme and "manual-graded question" in readme and "--manual-template" in readme
    total = sum(c.points for c in ex.public_checks + ex.hidden_checks) + sum(m.points for m in ex.manual)
    assert f"Total points: **{total:g}**" in readme


# Running the bundle is the same run_autograder and `grading gradescope` for every exercise (a new Python that
# imports grading and the exercise from the unpacked bundle, ~2 s of CPU each): `make test` runs it on the
# fixture exercise (outside grading/exercises: the bundle carries an exercise the package does not have),
# test_grading_build.py on lesson 9's notebook; the slow tier runs every other exercise's, the challenges' whole
# kernels included (each solution is graded in process by test_corpus).
BUNDLE_RUNS_FAST = {"vecscale"}


@needs_cuda
@pytest.mark.parametrize("eid", [e if e in BUNDLE_RUNS_FAST else pytest.param(e, marks=pytest.mark.slow)
                                 for e in EXERCISES])
def test_bundle_runs_like_gradescope(eid, tmp_path):
    """The unpacked bundle's run_autograder grades the solution with nothing but the bundle (no exercise roots)."""
    ex = load_exercise(eid)
    root, _ = _unpacked_bundle(eid, tmp_path)
    shutil.copy(ex.solution_path, root / "submission" / ex.target_name)
    run = root / "source" / "run_autograder"
    run.chmod(0o755)
    env = {**env_without_roots(), "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    r = subprocess.run(["bash", str(run)], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    d = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    validate_gradescope(d)
    assert d["score"] == sum(c.points for c in ex.public_checks + ex.hidden_checks)


@pytest.mark.parametrize("eid", EXERCISES)
def test_student_build_ships_the_exercise_without_its_hidden_parts(eid, tmp_path):
    from grading.studentbuild import build
    from grading.studentbuild.verify import forbidden_strings
    ex = load_exercise(eid)
    build(tmp_path, (eid,))
    folder = tmp_path / "grading" / "exercises" / eid
    assert (folder / "config.toml").is_file() and (folder / "exercise.py").is_file()
    assert not [f for f in ex.instructor_files if (folder / f).exists()]
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in tmp_path.rglob("*") if p.is_file())
    for s in forbidden_strings((eid,)):
        assert s not in text
    others = {p.name for p in (tmp_path / "grading" / "exercises").iterdir() if p.is_dir()} - {eid, "__pycache__"}
    assert not others


# One child Python per exercise (~0.9 s of CPU each): `make test` runs a blank exercise's and a whole-kernel
# challenge's; the slow tier runs the others (every exercise's kit is checked in process by the test above, and
# its solution graded by test_corpus).
STUDENT_CHECK_FAST = {"lesson09", "lesson10_challenge"}


@needs_cuda
@pytest.mark.parametrize("eid", [e if e in STUDENT_CHECK_FAST else pytest.param(e, marks=pytest.mark.slow)
                                 for e in EXERCISES])
def test_student_build_public_check_runs(eid, tmp_path):
    from grading.studentbuild import build
    ex = load_exercise(eid)
    build(tmp_path / "kit", (eid,))
    p = tmp_path / ex.target_name
    p.write_text(ex.solution_path.read_text(encoding="utf-8"), encoding="utf-8")
    code = f"import grading; assert grading.__file__.startswith({str(tmp_path)!r}); grading.check({str(p)!r})"
    env = {**env_without_roots(), "PYTHONPATH": str(REPO)}     # labsim from the repo; grading from the kit
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path / "kit", env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert "公开检查全部通过" in r.stdout
    if eid == "lesson10_challenge":     # the shape, then a space before the Latin letter: "…的输入 C 正确"
        assert "64×64×64 的输入 C 正确" in r.stdout and "输入C" not in r.stdout


# ---- generic rules, shown on the fixture exercise -------------------------------------------------------

@needs_cuda
def test_a_failing_veto_rule_hides_no_other(monkeypatch):
    ex = load_exercise("vecscale")

    def broken(st):
        raise KeyError("transposed_read")
    monkeypatch.setattr(ex.module, "VETOES", [broken, *ex.module.VETOES])
    res = grade_submission(CORPORA / "vecscale" / "fails_bounds_check_deleted.cu", ex, options=Options(nvcc="off"))
    assert [v.id for v in res.vetoes] == ["deleted_bounds_check"]
    assert any("broken" in n and "出错" in n for n in res.notes)
    assert any("KeyError" in tb for tb in res.instructor["internal_errors"])


@needs_cuda
def test_a_check_that_ran_no_case_fails(monkeypatch):
    ex = load_exercise("vecscale")
    real = ex.hidden_module.cases
    monkeypatch.setattr(ex.hidden_module, "cases", lambda rng: {"normal": real(rng)["normal"]})
    res = grade_submission(ex.solution_path, ex, options=Options(nvcc="off"))
    t = next(t for t in res.tests if t.id == "boundary_lengths")
    assert t.status == "failed" and t.score == 0 and "0 个" in t.output
    assert next(t for t in res.tests if t.id == "normal_lengths").status == "passed"
    monkeypatch.setattr(ex.hidden_module, "cases", lambda rng: {})
    res = grade_submission(ex.solution_path, ex, options=Options(nvcc="off"))
    assert next(t for t in res.tests if t.id == "oob_free").status == "failed"      # 0 of 0 runs is no pass


@pytest.mark.parametrize("eid", EXERCISES)
def test_check_finds_the_exercise_of_a_renamed_file(eid, tmp_path):
    from grading.spec import resolve
    ex = load_exercise(eid)
    p = tmp_path / "my_copy.cu"
    p.write_text(ex.solution_path.read_text(encoding="utf-8"), encoding="utf-8")
    assert resolve(None, p).id == eid
    assert resolve(None, tmp_path / ex.target_name).id == eid        # by the target's name, even if absent


def test_focus_tells_two_accesses_on_one_line_apart():
    """labsim identifies instructions by site: with ``access`` a focus picks one of two loads of x on a line."""
    from types import SimpleNamespace as NS

    from grading.sim import Focus
    line = "    if (i < n) { y[i] = x[i] + x[(i * 2) % n]; }"
    first, second = line.index("x[i]") + 1, line.index("x[(i") + 1
    loads = [NS(line=3, col=first, space="global", op="ld", array="x"),
             NS(line=3, col=second, space="global", op="ld", array="x")]
    f = Focus("strided", "跨步读 x", 3, "global", "ld", "x", col=second)
    assert [s.col for s in loads if f.matches(s)] == [second]
    assert len([s for s in loads if Focus("any", "读 x", 3, "global", "ld", "x").matches(s)]) == 2


@pytest.mark.parametrize("breakage,message", [
    (lambda d: (d / "exercise.py").unlink(), "exercise.py is missing"),
    (lambda d: (d / "exercise.py").write_text("X = 1\n"), "must define call"),
    (lambda d: (d / "__init__.py").unlink(), "__init__.py is missing"),
    (lambda d: _edit(d / "config.toml", 'line = "y[i] = a * x[i];"', 'line = "no such line"'), "focus 'load_x'"),
    (lambda d: _edit(d / "config.toml", 'id = "vecscale"', 'id = "other"'), "but the folder is"),
    (lambda d: _edit(d / "config.toml", 'host_function = "launch_scale"\n', ''), "missing host_function"),
    (lambda d: _edit(d / "config.toml", 'kind = "constexpr"', 'kind = "regex"'), "kind"),
    (lambda d: _edit(d / "template.cu", "______", "BLOCK"), "exactly once"),
    (lambda d: _edit(d / "config.toml", "[[focus]]", "[[focus]]\nid = 'y'\nlabel = 'y'\nline = 'y[i] ='\n"
                     "heatmap = true\n\n[[focus]]"), "at most one"),
])
def test_a_broken_exercise_folder_is_named_clearly(tmp_path, breakage, message):
    from grading.spec import SpecError
    d = tmp_path / "vecscale"
    shutil.copytree(FIXTURE_EXERCISES / "vecscale", d, ignore=shutil.ignore_patterns("__pycache__"))
    breakage(d)
    with pytest.raises(SpecError, match=message):
        load_exercise(d)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
