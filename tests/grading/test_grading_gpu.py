"""grade --gpu (grading.gpu): the generic host harness compiles with nvcc for every exercise, the binary
argument/result files round-trip, disagreements reach the instructor file, and without a GPU the option says
it is skipped and why. Running the harness needs a GPU: see measurements/h200/ for the recorded run."""
from __future__ import annotations

import json
import struct
import sys
import subprocess
from pathlib import Path

import numpy as np
import pytest
from grading_testlib import CORPORA, exercise_ids, needs_cuda

from grading import gpu
from grading.nvcc import find_nvcc
from grading.grade import Options, grade_submission
from grading.sim import Case
from grading.spec import load_exercise

REPO = Path(__file__).resolve().parents[2]
needs_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="no nvcc on this machine")


def _first_case(ex):
    cases = ex.public_module.cases()
    return next(c for cs in cases.values() for c in cs)


@needs_nvcc
@pytest.mark.parametrize("eid", ["lesson09", "vecscale"])
def test_harness_compiles_with_the_exercise_solution(eid, tmp_path):
    ex = load_exercise(eid)
    call = ex.call(_first_case(ex))
    exe, msg = gpu.build(ex.solution_path.read_text(encoding="utf-8"), ex.config["host_function"],
                         len(call.args), tmp_path)
    assert exe is not None and exe.is_file(), msg


@needs_nvcc
def test_harness_with_the_wrong_arity_does_not_compile(tmp_path):
    ex = load_exercise("vecscale")
    n = len(ex.call(_first_case(ex)).args)
    exe, msg = gpu.build(ex.solution_path.read_text(encoding="utf-8"), ex.config["host_function"], n + 1, tmp_path)
    assert exe is None and "launch_scale" in msg


def test_harness_rejects_a_host_function_that_is_not_an_identifier():
    with pytest.raises(ValueError, match="not a C identifier"):
        gpu.harness_source("f(); system", 2)


def test_argument_file_layout(tmp_path):
    x = np.arange(5, dtype=np.float32)
    call = type("C", (), {"args": (x, 2.5, 7, 0)})()
    gpu.write_args(call, tmp_path / "a.bin")
    data = (tmp_path / "a.bin").read_bytes()
    want = (struct.pack("<i", 4) + struct.pack("<iq", 2, 20) + x.tobytes() + struct.pack("<id", 1, 2.5)
            + struct.pack("<iq", 0, 7) + struct.pack("<iq", 0, 0))
    assert data == want


def test_results_are_read_back_into_the_outputs(tmp_path):
    ex = load_exercise("lesson09")
    case = Case("t", "normal", {"M": 3, "N": 5}, 1)
    call = ex.call(case)
    arrays = [a for a in call.args if isinstance(a, np.ndarray)]
    # what a correct GPU run writes back: the input unchanged, the output = the transpose
    blob = b""
    a = arrays[0].reshape(3, 5)
    for buf in (arrays[0], a.T.copy().reshape(-1)):
        blob += struct.pack("<q", buf.nbytes) + buf.tobytes()
    (tmp_path / "r.bin").write_bytes(blob)
    gpu.read_results(call, tmp_path / "r.bin")
    np.testing.assert_array_equal(call.outputs[0].array, a.T)


def test_status_without_nvcc_or_driver(monkeypatch):
    monkeypatch.setattr(gpu, "find_nvcc", lambda: None)
    assert gpu.status() == (False, "no nvcc on this machine")
    monkeypatch.setattr(gpu, "find_nvcc", lambda: "/usr/bin/nvcc")
    monkeypatch.setattr(gpu.shutil, "which", lambda name: None)
    ok, why = gpu.status()
    assert not ok and "nvidia-smi" in why


@needs_cuda
def test_compare_reports_disagreements_to_the_instructor(monkeypatch):
    """A GPU verdict that differs from labsim's lands in instructor["gpu_disagreements"]; the score is kept."""
    ex = load_exercise("lesson09")
    sub = CORPORA / "lesson09" / "passes_padding_plus3.cu"
    base = grade_submission(sub, ex, options=Options(nvcc="off"))
    monkeypatch.setattr(gpu, "status", lambda: (True, "GPU 0: fake"))
    monkeypatch.setattr(gpu, "build", lambda *a, **k: (Path("/nonexistent"), ""))
    monkeypatch.setattr(gpu, "run_case", lambda exe, call, work, timeout_s: (False, "output: 3 wrong, 0 unwritten"))
    res = grade_submission(sub, ex, options=Options(nvcc="off", gpu=True))
    assert res.score == base.score and res.verdict == base.verdict
    rec = res.instructor["gpu"]
    assert rec["status"] == "ran" and rec["cases"]
    assert all(c["labsim"] is True and c["gpu"] is False for c in rec["cases"])
    assert len(res.instructor["gpu_disagreements"]) == len(rec["cases"])
    monkeypatch.setattr(gpu, "run_case", lambda exe, call, work, timeout_s: (True, "ok"))
    res = grade_submission(sub, ex, options=Options(nvcc="off", gpu=True))
    assert "gpu_disagreements" not in res.instructor and res.instructor["gpu"]["status"] == "ran"


@needs_cuda
def test_step_records_why_it_was_skipped(monkeypatch):
    monkeypatch.setattr(gpu, "status", lambda: (False, "no nvcc on this machine"))
    ex = load_exercise("lesson09")
    res = grade_submission(CORPORA / "lesson09" / "passes_padding_plus3.cu", ex,
                           options=Options(nvcc="off", gpu=True))
    assert res.instructor["gpu"] == {"status": "skipped", "message": "no nvcc on this machine"}


@needs_cuda
@pytest.mark.skipif(gpu.status()[0], reason="this machine has a GPU")
def test_cli_gpu_says_it_is_skipped_and_why(tmp_path):
    sub = CORPORA / "lesson09" / "passes_padding_plus3.cu"
    p = subprocess.run([sys.executable, "-m", "grading", "grade", "--exercise", "lesson09", "--gpu", "--nvcc", "off",
                        "--no-progress", "--jobs", "1", "--out", str(tmp_path), "--", str(sub)],
                       capture_output=True, text=True, cwd=REPO, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "--gpu: skipped: " in p.stdout
    inst = json.loads(next((tmp_path / "_instructor").glob("*.json")).read_text())
    assert "gpu" not in inst


RECORDED = REPO / "measurements" / "h200" / "grading_gpu" / "lesson09.json"


def test_recorded_h200_run_found_no_disagreement():
    rec = json.loads(RECORDED.read_text(encoding="utf-8"))
    ran = [r for r in rec["records"] if r["gpu_status"] == "ran"]
    assert rec["meta"]["gpu"] == "NVIDIA H200" and len(ran) >= 10
    assert rec["disagreements"] == 0
    assert all(bool(c["gpu"]) == bool(c["labsim"]) for r in ran for c in r["cases"])


@needs_cuda
@pytest.mark.parametrize("name", ["fails_out_of_bounds", "passes_padding_plus3"])
def test_labsim_still_agrees_with_the_recorded_gpu_verdicts(name, monkeypatch):
    """Replay the H200's per-case verdicts through the pipeline: labsim, run now, must give the same ones."""
    rec = next(r for r in json.loads(RECORDED.read_text(encoding="utf-8"))["records"] if r["submission"] == name)
    ex = load_exercise("lesson09")
    monkeypatch.setattr(gpu, "status", lambda: (True, "recorded H200"))
    monkeypatch.setattr(gpu, "build", lambda *a, **k: (Path("/recorded"), ""))
    calls = iter(rec["cases"])
    monkeypatch.setattr(gpu, "run_case", lambda exe, call, work, timeout_s: (lambda c: (c["gpu"], c["message"]))(next(calls)))
    res = grade_submission(CORPORA / "lesson09" / f"{name}.cu", ex, options=Options(nvcc="off", gpu=True))
    now = res.instructor["gpu"]
    assert [c["case"] for c in now["cases"]] == [c["case"] for c in rec["cases"]]   # the same hidden cases
    assert [c["labsim"] for c in now["cases"]] == [c["labsim"] for c in rec["cases"]]
    assert now["disagreements"] == []
