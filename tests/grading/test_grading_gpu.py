"""grade --gpu (grading.gpu): the generic host harness compiles with nvcc for every exercise, the binary
argument/result files round-trip, disagreements reach the instructor file, and without a GPU the option says
it is skipped and why. Running the harness needs a GPU: see measurements/h200/ for the recorded run."""
from __future__ import annotations

import json
import struct
import sys
import subprocess
import time
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


CHALLENGES = ["p2_challenge", "lesson08_challenge", "lesson09_challenge", "lesson10_challenge"]


# Each case is one nvcc compile (~3 s of CPU). `make test` (where nvcc is on PATH) compiles one representative: the
# 7-argument challenge (lesson 10's, a whole kernel with the most arguments); the slow tier, which CI runs, compiles
# the other nine (the blank exercises, the __half challenge, the baselines) and the whole program below.
HARNESS_FAST = {("lesson10_challenge", "solution.cu")}


@needs_nvcc
@pytest.mark.parametrize("eid,name", [
    case if case in HARNESS_FAST else pytest.param(*case, marks=pytest.mark.slow)
    for case in [("lesson09", "solution.cu"), ("vecscale", "solution.cu")]
    + [(c, f) for c in CHALLENGES for f in ("solution.cu", "baseline.cu")]])
def test_harness_compiles_with_the_exercise_solution(eid, name, tmp_path):
    """Blank exercises and whole-kernel challenges (the student's source as written: the challenges' reference
    and baseline, __half in lesson09_challenge, 6 and 7 arguments in p2's and lesson 10's)."""
    ex = load_exercise(eid)
    call = ex.call(_first_case(ex))
    exe, msg = gpu.build((ex.solution_path.parent / name).read_text(encoding="utf-8"), ex.config["host_function"],
                         len(call.args), tmp_path)
    assert exe is not None and exe.is_file(), msg


# what a whole submission may hold that the harness must not trip on: macros named like the harness's variables,
# a template kernel, an extra kernel, a __half scalar parameter, a main of its own
WHOLE_PROGRAM = r"""#include <cuda_runtime.h>
#include <cuda_fp16.h>
#define check(call) call
#define die(x) x
#define T 32
#define n count
#define a scale
template <int B>
__global__ void fill_kernel(__half* out, __half a, int n) {
    int i = blockIdx.x * B + threadIdx.x;
    if (i < n) out[i] = a;
}
__global__ void unused_kernel(float* p) { p[threadIdx.x] = 0.0f; }
void launch_fill(__half* out, __half a, int n, cudaStream_t stream) {
    check((fill_kernel<T><<<(n + T - 1) / T, T, 0, stream>>>(out, a, n)));
}
int main() { return 1; }
"""


@needs_nvcc
@pytest.mark.slow
def test_harness_compiles_a_whole_program_with_its_own_macros_and_main(tmp_path):
    exe, msg = gpu.build(WHOLE_PROGRAM, "launch_fill", 4, tmp_path)
    assert exe is not None and exe.is_file(), msg


@needs_nvcc
def test_harness_with_the_wrong_arity_does_not_compile(tmp_path):
    ex = load_exercise("vecscale")
    n = len(ex.call(_first_case(ex)).args)
    exe, msg = gpu.build(ex.solution_path.read_text(encoding="utf-8"), ex.config["host_function"], n + 1, tmp_path)
    assert exe is None and "launch_scale" in msg


def test_harness_rejects_a_host_function_that_is_not_an_identifier():
    with pytest.raises(ValueError, match="not a C identifier"):
        gpu.harness_sources("f(); system", 2)


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def _vecscale_call():
    ex = load_exercise("vecscale")
    return ex.call(_first_case(ex))


def test_run_case_kills_a_child_past_its_time_limit(tmp_path):
    """A kernel that never ends (the challenges' hostile corpus entries): the child and what it started die."""
    exe = _script(tmp_path / "harness", f"sleep 60 & echo $! > {tmp_path}/child.pid; wait")
    gpu_ok, msg = gpu.run_case(exe, _vecscale_call(), tmp_path, timeout_s=1)
    assert gpu_ok is None and msg == "timed out after 1 s"
    stat = Path(f"/proc/{int((tmp_path / 'child.pid').read_text())}/stat")

    def dead() -> bool:     # gone, or dead and waiting to be reaped by whoever inherited it (state Z)
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
        except FileNotFoundError:
            return True
    # SIGKILL is sent by the time run_case returns; on a busy machine the child may take a moment to act on it
    # (seen in state R right after), so wait up to 10 s: a child left alive sleeps 60 s and fails this
    deadline = time.monotonic() + 10
    while not dead() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert dead()


def test_run_case_reports_a_crash_with_the_end_of_its_stderr(tmp_path):
    exe = _script(tmp_path / "harness", "echo 'harness: kernel: an illegal memory access was encountered' >&2; exit 2")
    assert gpu.run_case(exe, _vecscale_call(), tmp_path, timeout_s=30) == (
        None, "exit 2: harness: kernel: an illegal memory access was encountered")


def test_run_case_under_memcheck_names_the_sanitizer_error(tmp_path):
    """A fake compute-sanitizer that finds an error: its log, not the program's stderr, is the message."""
    san = _script(tmp_path / "compute-sanitizer",
                  'while [ "$1" != "--log-file" ]; do shift; done; echo "========= Invalid __global__ read of size 4" > "$2"; exit 3')
    assert gpu.run_case(tmp_path / "nonexistent", _vecscale_call(), tmp_path, timeout_s=30, memcheck=str(san)) == (
        None, "exit 3 under memcheck: ========= Invalid __global__ read of size 4")


def test_run_case_lifts_a_batch_workers_address_space_cap_in_its_child(tmp_path):
    """grade --jobs N caps each worker's address space (8 GiB); a CUDA context reserves more than that, so the
    harness's child runs without the cap (else every case would fail to start on the GPU)."""
    exe = _script(tmp_path / "harness", f"ulimit -v > {tmp_path}/limit.txt")
    code = ("import resource, sys\nfrom pathlib import Path\nfrom grading.batch import _limit_memory\n"
            "from grading import gpu\nfrom grading.spec import load_exercise\n_limit_memory(1024)\n"
            "assert resource.getrlimit(resource.RLIMIT_AS)[0] == 1024 << 20\n"
            "ex = load_exercise('vecscale')\ncase = next(c for cs in ex.public_module.cases().values() for c in cs)\n"
            f"print(gpu.run_case(Path({str(exe)!r}), ex.call(case), Path({str(tmp_path)!r}), timeout_s=30))\n")
    env = {**__import__("os").environ, "GRADING_EXERCISES": str(REPO / "tests" / "grading" / "fixtures" / "exercises")}
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "limit.txt").read_text().strip() != str(1024 << 10)     # ulimit -v counts KiB


def _fake_compare(monkeypatch, verdicts, labsim, oob=(), races=()):
    """compare() over len(labsim) cases with a fake build and run_case giving ``verdicts`` in turn; the cases
    whose flag in ``oob`` / ``races`` is set are labsim's out-of-bounds / racy ones. Returns (record, the memcheck
    argument of each native run)."""
    ex = load_exercise("vecscale")
    first = _first_case(ex)
    cases = [Case(f"c{i}", first.kind, first.sizes, i) for i in range(len(labsim))]
    runs = []
    monkeypatch.setattr(gpu, "build", lambda *a, **k: (Path("/fake"), ""))
    monkeypatch.setattr(gpu, "find_sanitizer", lambda: "/fake/compute-sanitizer")

    def run(exe, call, work, timeout_s, memcheck=None):
        runs.append(memcheck)
        return verdicts[len(runs) - 1]
    monkeypatch.setattr(gpu, "run_case", run)
    pick = lambda flags: frozenset(c.id for c, f in zip(cases, flags) if f)  # noqa: E731
    rec = gpu.compare(ex, "source", cases, {c.id: v for c, v in zip(cases, labsim)}, timeout_s=5,
                      out_of_bounds=pick(oob), races=pick(races))
    return rec, runs


def test_compare_does_not_run_what_labsims_lab_limits_stopped(monkeypatch):
    """labsim's work budget refused the launch (None): nothing to compare, and it does not run natively."""
    rec, runs = _fake_compare(monkeypatch, [(False, "x: 3 wrong")], [None, True])
    assert runs == [None] and [c["ran"] for c in rec["cases"]] == [False, True]
    assert rec["cases"][0]["message"].startswith("not run: labsim stopped this case at one of its lab limits")
    assert [c["labsim"] for c in rec["cases"]] == [None, True]
    assert len(rec["disagreements"]) == 1 and "labsim passed, GPU failed (x: 3 wrong)" in rec["disagreements"][0]


def test_compare_runs_no_case_after_a_timeout(monkeypatch):
    """The case that timed out is a disagreement where labsim passed it; the cases after it have no verdict."""
    rec, runs = _fake_compare(monkeypatch, [(None, "timed out after 5 s")], [True, True, True])
    assert len(runs) == 1 and [c["gpu"] for c in rec["cases"]] == [None, None, None]
    assert [c["ran"] for c in rec["cases"]] == [True, False, False]
    assert rec["cases"][1]["message"].startswith("not run: ") and rec["cases"][1]["message"].endswith(" timed out")
    assert len(rec["disagreements"]) == 1 and "timed out after 5 s" in rec["disagreements"][0]


def test_compare_runs_labsims_out_of_bounds_cases_under_memcheck(monkeypatch):
    rec, runs = _fake_compare(monkeypatch, [(True, "ok"), (None, "exit 3 under memcheck: ...")], [True, False],
                              oob=[False, True])
    assert runs == [None, "/fake/compute-sanitizer"]
    assert [c["memcheck"] for c in rec["cases"]] == [False, True] and rec["disagreements"] == []


def test_compare_records_but_does_not_compare_a_racy_case(monkeypatch):
    """A case where labsim found a data race: the GPU's outputs (another order of the warps) are recorded, and a
    difference from labsim's lockstep outputs is no disagreement; a race-free case still is."""
    rec, runs = _fake_compare(monkeypatch, [(False, "output: 9 wrong"), (False, "output: 9 wrong")], [True, True],
                              races=[True, False])
    assert [c["race"] for c in rec["cases"]] == [True, False] and [c["gpu"] for c in rec["cases"]] == [False, False]
    assert len(rec["disagreements"]) == 1 and rec["disagreements"][0].startswith("c1 ")


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
    monkeypatch.setattr(gpu, "run_case", lambda exe, call, work, timeout_s, **k: (False, "output: 3 wrong, 0 unwritten"))
    res = grade_submission(sub, ex, options=Options(nvcc="off", gpu=True))
    assert res.score == base.score and res.verdict == base.verdict
    rec = res.instructor["gpu"]
    assert rec["status"] == "ran" and rec["cases"]
    assert all(c["labsim"] is True and c["gpu"] is False for c in rec["cases"])
    assert len(res.instructor["gpu_disagreements"]) == len(rec["cases"])
    monkeypatch.setattr(gpu, "run_case", lambda exe, call, work, timeout_s, **k: (True, "ok"))
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
    monkeypatch.setattr(gpu, "run_case", lambda exe, call, work, timeout_s, **k: (lambda c: (c["gpu"], c["message"]))(next(calls)))
    res = grade_submission(CORPORA / "lesson09" / f"{name}.cu", ex, options=Options(nvcc="off", gpu=True))
    now = res.instructor["gpu"]
    assert [c["case"] for c in now["cases"]] == [c["case"] for c in rec["cases"]]   # the same hidden cases
    assert [c["labsim"] for c in now["cases"]] == [c["labsim"] for c in rec["cases"]]
    assert now["disagreements"] == []


# ---- the four whole-kernel challenges' corpora on the H200 (measurements/h200/grading_gpu/README.md) ----------

RECORDED_CHALLENGES = REPO / "measurements" / "h200" / "grading_gpu" / "challenges.json"


def _challenge_records():
    return json.loads(RECORDED_CHALLENGES.read_text(encoding="utf-8"))


def test_recorded_h200_challenges_run_found_no_disagreement():
    """Every challenge's corpus and reference graded with --gpu on the H200: no case where both had a verdict and
    they differed; every case labsim stopped at a lab limit stayed off the GPU; every case labsim found out of
    bounds ran under memcheck, which found the access too."""
    rec = _challenge_records()
    assert rec["meta"]["gpu"] == "NVIDIA H200" and set(rec["challenges"]) == set(CHALLENGES)
    for eid, ch in rec["challenges"].items():
        ran = [r for r in ch["records"] if r["gpu_status"] == "ran"]
        assert ch["disagreements"] == 0 and len(ran) >= 8 and ch["cases_compared"] >= 60, eid
        assert {r["submission"] for r in ran} >= {"solution", "baseline"}
        for r in ran:
            assert r["disagreements"] == [], (eid, r["submission"])
            for c in r["cases"]:
                if c["labsim"] is None:                      # a lab limit: the hostile entries only
                    assert not c["ran"] and r["submission"].startswith("fails_hostile_"), (eid, c)
                elif c["memcheck"]:
                    assert c["labsim"] is False and c["gpu"] is None and "Invalid __global__" in c["message"]
                elif not c["race"]:
                    assert c["ran"] and bool(c["gpu"]) == c["labsim"], (eid, r["submission"], c)
        sol = next(r for r in ran if r["submission"] == "solution")
        assert all(c["labsim"] is True and c["gpu"] is True for c in sol["cases"])


def test_recorded_h200_races_show_or_hide_as_the_readme_says():
    """The racy entries' cases are recorded, not compared: lesson 9's tile read without a barrier came out wrong
    on the H200 in every racy case; P2's and lesson 10's missing second barrier came out right in every one (the
    race check grades them, not the GPU's luck)."""
    ch = _challenge_records()["challenges"]
    racy = {(eid, r["submission"]): [c for c in r["cases"] if c["race"]] for eid, v in ch.items() for r in v["records"]}
    racy = {k: v for k, v in racy.items() if v}
    assert set(racy) == {("p2_challenge", "fails_race_no_second_barrier"),
                         ("lesson09_challenge", "fails_race_no_barrier"),
                         ("lesson10_challenge", "fails_race_no_second_barrier")}
    assert all(c["labsim"] is True for cs in racy.values() for c in cs)      # lockstep order: right outputs
    assert all(c["gpu"] is False for c in racy["lesson09_challenge", "fails_race_no_barrier"])
    assert all(c["gpu"] is True for c in racy["p2_challenge", "fails_race_no_second_barrier"])
    assert all(c["gpu"] is True for c in racy["lesson10_challenge", "fails_race_no_second_barrier"])


@needs_cuda
@pytest.mark.parametrize("eid,name", [
    ("p2_challenge", "fails_out_of_bounds_full_block_load"), ("p2_challenge", "fails_race_no_second_barrier"),
    ("lesson08_challenge", "fails_out_of_bounds_no_guard"), ("lesson08_challenge", "fails_ragged_grid_rounds_down"),
    ("lesson09_challenge", "fails_race_no_barrier"), ("lesson09_challenge", "fails_hostile_huge_launch"),
    ("lesson10_challenge", "fails_out_of_bounds_unguarded_loads"), ("lesson10_challenge", "solution")])
def test_labsim_still_agrees_with_the_recorded_gpu_verdicts_on_the_challenges(eid, name, monkeypatch):
    """Replay the H200's per-case verdicts through the pipeline: labsim, run now, gives the same verdicts, the
    same lab limits (not run), the same races and the same out-of-bounds cases (run under memcheck)."""
    rec = next(r for r in _challenge_records()["challenges"][eid]["records"] if r["submission"] == name)
    ex = load_exercise(eid)
    monkeypatch.setattr(gpu, "status", lambda: (True, "recorded H200"))
    monkeypatch.setattr(gpu, "build", lambda *a, **k: (Path("/recorded"), ""))
    monkeypatch.setattr(gpu, "find_sanitizer", lambda: "/recorded/compute-sanitizer")
    native = iter([c for c in rec["cases"] if c["ran"]])
    memchecks = []

    def replay(exe, call, work, timeout_s, memcheck=None):
        memchecks.append(bool(memcheck))
        c = next(native)
        return c["gpu"], c["message"]
    monkeypatch.setattr(gpu, "run_case", replay)
    path = ex.solution_path if name == "solution" else CORPORA / eid / f"{name}.cu"
    res = grade_submission(path, ex, options=Options(nvcc="off", gpu=True))
    now = res.instructor["gpu"]
    for key in ("case", "labsim", "ran", "race", "memcheck"):      # the same hidden cases, the same verdicts
        assert [c[key] for c in now["cases"]] == [c[key] for c in rec["cases"]], key
    assert memchecks == [c["memcheck"] for c in rec["cases"] if c["ran"]]
    assert now["disagreements"] == [] and next(native, None) is None
