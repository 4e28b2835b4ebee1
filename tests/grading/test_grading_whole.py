"""Whole-kernel exercises (grading.whole): signatures as conformance, counter targets against the H200's record."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from grading.context import run_exercise
from grading.sim import Case, compile_source
from grading.spec import load_exercise
from grading.whole import counter_targets, signature, signature_match, whole_conformance

REPO = Path(__file__).resolve().parents[2]
ROUND3 = json.loads((REPO / "measurements/h200/round3/results.json").read_text(encoding="utf-8"))["challenges"]
WHOLE = ["p2_challenge", "lesson08_challenge", "lesson09_challenge", "lesson10_challenge"]
TEMPLATE = """namespace {
// comment
__global__ void k(const float* __restrict__ a, float* b, int n) {
}
} // namespace
void launch(const float* a, float* b, int n, cudaStream_t s) {
}
"""


def test_signature_is_the_declaration_through_its_closing_parenthesis():
    assert " ".join(t.text for t in signature(TEMPLATE, "k")) == \
        "__global__ void k ( const float * __restrict__ a , float * b , int n )"
    assert " ".join(t.text for t in signature(TEMPLATE, "launch")) == \
        "void launch ( const float * a , float * b , int n , cudaStream_t s )"
    with pytest.raises(ValueError, match="no function 'other'"):
        signature(TEMPLATE, "other")


@pytest.mark.parametrize("source,kind", [
    (TEMPLATE, "unfilled"),                                                        # the template itself
    (TEMPLATE.replace("// comment", "/* other */").replace("{\n}", "{ }"), "unfilled"),   # only layout changed
    (TEMPLATE.replace("{\n}\n}", "{ b[0] = a[0]; }\n}", 1), None),                 # a body: accepted
    (TEMPLATE.replace("{\n}\n}", "{ b[0] = a[0]; }\n}", 1).replace("int n)", "unsigned n)", 1), "signature"),
    (TEMPLATE.replace("{\n}\n}", "{ b[0] = a[0]; }\n}", 1).replace("launch(", "go(", 1), "signature"),
    (TEMPLATE.replace("{\n}\n}", "{ b[0] = a[0]; }\n}", 1).replace("int n) {", "int\n   n   ) {", 1), None),
])
def test_whole_conformance(source, kind):
    conf = whole_conformance(TEMPLATE, source, ["k", "launch"])
    assert conf.problem_kind == kind and (conf.problem is None) == (kind is None)
    assert conf.edits == [] and conf.blank_text == ""


def test_a_renamed_challenge_file_is_found_by_its_signatures(tmp_path):
    ex = load_exercise("lesson08_challenge")
    p = tmp_path / "mine.cu"
    p.write_text(ex.solution_path.read_text(encoding="utf-8"), encoding="utf-8")
    assert signature_match([load_exercise("lesson08"), ex], p) is ex
    p.write_text(load_exercise("lesson08").solution_path.read_text(encoding="utf-8"), encoding="utf-8")
    assert signature_match([load_exercise("lesson08"), ex], p) is None


@pytest.mark.parametrize("eid", WHOLE)
def test_counter_reference_and_h200_agree_with_labsim(eid):
    """Each counter's ``reference`` is the H200's number for solution.cu at round 3's small shapes (ncu), and
    labsim's run of solution.cu and baseline.cu gives the H200's counts there; the baseline misses a target."""
    ex = load_exercise(eid)
    folder = ex.folder
    for variant, file in (("solution", ex.solution_path), ("baseline", folder / "baseline.cu")):
        program = compile_source(file.read_text(encoding="utf-8"), ex.target_name)
        missed = False
        for shape, h200 in ROUND3["ncu_small"][f"{eid}/{variant}"].items():
            sizes = ({k: int(v) for k, v in [shape.split("=")]} if "=" in shape     # "n=1000" (p2_challenge)
                     else dict(zip("MNK", (int(v) for v in shape.split("x")))))
            regular = all(v % 32 == 0 for v in sizes.values())
            rec = run_exercise(ex, program, Case(f"h200-{shape}", "h200", sizes, 1))
            elements = int(np.prod(list(sizes.values())))
            assert rec.passed, (variant, shape, rec.error)
            for t in counter_targets(ex):
                assert all(rec.metrics[k] == h200[k] for k in t.metrics), (variant, shape)
                measured = sum(h200[k] for k in t.metrics) * t.scale / elements
                assert t.value(rec) == pytest.approx(measured)
                if t.id.endswith("per_ffma") and all(v % 32 == 0 for v in sizes.values()):   # M·N·K FFMAs
                    assert h200["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] == elements
                if variant == "solution" and regular:
                    assert measured == pytest.approx(t.reference) and t.reference <= t.target
                missed = missed or (regular and measured > t.target)
        assert missed == (variant == "baseline"), variant


@pytest.mark.parametrize("eid", WHOLE)
def test_h200_speeds_are_the_recorded_medians(eid):
    """config [h200]: the reference's and the baseline's median speed at the H200's size, as round 3 recorded."""
    from grading.whole import h200_speed
    h = load_exercise(eid).config["h200"]
    timing = {t["variant"]: t for t in ROUND3["timing"]}
    for variant in ("reference", "baseline"):
        t = timing[f"{eid}/{'solution' if variant == 'reference' else 'baseline'}"]
        measured = t["gbps_median"] if h["unit"] == "GB/s" else t["gflops_median"]
        assert h[variant] == round(measured), (variant, measured)
        if "n" in t:                                                    # p2_challenge: n structs
            assert h["size"] == f"n = {t['n']}"
        else:
            assert "x".join(str(t[k]) for k in "MNK" if k in t) == h["size"].replace("×", "x")
    text = h200_speed(load_exercise(eid))
    assert f"参考解 {h['reference']} {h['unit']}" in text and f"{h['reference'] / h['baseline']:.1f} 倍" in text


@pytest.mark.parametrize("eid", WHOLE)
def test_solution_and_baseline_are_the_recorded_kernels(eid):
    """solution.cu and baseline.cu are round 3's measured files (measurements/h200/round3/challenges), only the
    kernels renamed: the H200 speeds the feedback quotes are of this very code."""
    import re
    from pathlib import Path
    recorded = Path(__file__).resolve().parents[2] / "measurements/h200/round3/challenges" / eid

    def kernels_renamed(text: str) -> str:
        for i, name in enumerate(re.findall(r"__global__\s+void\s+(\w+)", text)):
            text = re.sub(rf"\b{name}\b", f"KERNEL{i}", text)
        return text
    ex = load_exercise(eid)
    for mine, theirs in ((ex.solution_path, recorded / "solution.cu"), (ex.folder / "baseline.cu", recorded / "baseline.cu")):
        assert kernels_renamed(mine.read_text(encoding="utf-8")) == kernels_renamed(theirs.read_text(encoding="utf-8")), mine.name
